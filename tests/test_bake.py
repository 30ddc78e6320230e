"""The bake's cache key covers only what shapes a kind's files (scalecore_generator/builder/bake.py)."""

from scalecore_generator.builder.points import code_version, module_closure
from scalecore_generator.kinds.registry import discover

KINDS = discover()


def test_a_compute_functions_closure_is_the_modules_it_imports_and_no_other():
    names = {path.stem for path in module_closure("scalecore.experiment")}
    assert {"experiment", "attention", "softmax", "guards", "embeddings", "positional"} <= names
    assert not names & {"cli", "browser", "variance", "__main__"}, "a module the function never imports"
    assert {path.stem for path in module_closure("scalecore.variance")} == {"variance", "matrices"}


def test_a_kinds_code_version_ignores_its_browser_view_and_template(tmp_path, monkeypatch):
    """Editing panel.js or template.html changes no baked file, so it re-bakes nothing."""
    kind = KINDS["variance"]
    before = code_version(kind)
    copy = tmp_path / "variance"
    for path in kind.folder.iterdir():
        if path.is_file():
            (copy / path.name).parent.mkdir(exist_ok=True)
            (copy / path.name).write_bytes(path.read_bytes())
    monkeypatch.setattr(kind, "folder", copy)
    assert code_version(kind) == before
    (copy / "panel.js").write_text("/* changed */", encoding="utf-8")
    (copy / "template.html").write_text("{# changed #}", encoding="utf-8")
    assert code_version(kind) == before
    (copy / "schema.json").write_text("{}", encoding="utf-8")
    assert code_version(kind) != before


def test_a_code_version_kept_under_its_sources_digests_is_the_one_hashed_from_them(tmp_path, monkeypatch):
    """A build takes a kind's code version from its memo, under the sources' sha256 (which its
    digest ledger gives without reading an unchanged file): the value a cluster's worker hashes
    from the sources themselves, and made again when a source changes."""
    from pathlib import Path

    from scalecore_generator.foundation.cache import Memo, sha256_file

    copy = tmp_path / "variance"
    copy.mkdir()
    for path in KINDS["variance"].folder.iterdir():
        if path.is_file():
            (copy / path.name).write_bytes(path.read_bytes())
    monkeypatch.setattr(KINDS["variance"], "folder", copy)
    kind, memo = KINDS["variance"], Memo(None, None)
    ledger = {}  # as the build's: each file's sha256, read once

    def digest(path):
        if path not in ledger:
            ledger[path] = sha256_file(path)
        return ledger[path]

    assert code_version(kind, memo, digest) == code_version(kind)
    read = []
    real = Path.read_bytes
    monkeypatch.setattr(Path, "read_bytes", lambda path: read.append(path) or real(path))
    before = code_version(kind, memo, digest)
    assert read == []  # nothing read: the sources' digests name the version kept
    monkeypatch.setattr(Path, "read_bytes", real)
    (copy / "kind.py").write_text((copy / "kind.py").read_text(encoding="utf-8") + "\n# edited\n", encoding="utf-8")
    ledger.clear()
    assert code_version(kind, memo, digest) == code_version(kind) != before


def test_a_bake_that_finishes_nothing_for_a_while_says_what_is_still_computing(monkeypatch):
    """The heartbeat of a long bake: a line every EVERY_S seconds while no group finishes, none
    while groups keep finishing, and none once the bake is over."""
    import time

    from scalecore_generator.builder import bake

    monkeypatch.setattr(bake._Heartbeat, "EVERY_S", 0.3)
    said = []

    class Log:
        def info(self, line):
            said.append(line)

    heartbeat = bake._Heartbeat(lambda: "still computing 1 group of 'slow'", Log())
    try:
        for _ in range(8):  # groups finishing every 0.1 s: nothing to say
            time.sleep(0.1)
            heartbeat.beat()
        assert said == []
        time.sleep(1.6)  # a slow group: a line about every 0.3 s
        assert 2 <= len(said) <= 6 and set(said) == {"still computing 1 group of 'slow'"}, said
    finally:
        heartbeat.stop()
    count = len(said)
    time.sleep(1.2)
    assert len(said) == count, "the heartbeat spoke after the bake was over"
