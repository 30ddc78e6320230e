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


def test_a_long_bake_off_a_terminal_says_points_rate_and_time_left_as_groups_land(monkeypatch):
    """Off a terminal (CI, a log file): a line when a group lands, counting points (one group can
    hold every point of a kind: "0/1 groups" said nothing), with the rate and the time left."""
    import io
    import multiprocessing

    from scalecore_generator.builder.progress import BakeProgress

    now, said, counter = [0.0], [], multiprocessing.Value("q", 0)
    log = type("Log", (), {"info": lambda self, line: said.append(line)})()
    progress = BakeProgress(1000, 4, log, counter, stream=io.StringIO(), clock=lambda: now[0])
    try:
        progress.computing("4 groups of 'slow'")
        counter.value, now[0] = 250, 10.0
        assert progress.line() == ("bake: 250/1,000 points (0/4 groups), 10 s; 25 points/s; about 30 s left; "
                                   "computing 4 groups of 'slow'")
        counter.value, now[0] = 300, 12.0
        progress.group_landed(250, "3 groups of 'slow'")
        assert said == ["bake: 300/1,000 points (1/4 groups), 12 s; 25 points/s; about 28 s left; "
                        "computing 3 groups of 'slow'"]
        counter.value, now[0] = 1000, 40.0
        progress.group_landed(750, "")
        assert said[-1] == "bake: 1,000/1,000 points (2/4 groups), 40 s; 25 points/s"
    finally:
        progress.stop()


def test_a_cluster_bake_counts_the_points_of_the_groups_that_landed():
    """A Dask worker is on another machine and does not reach the shared count: a landed group's
    points count."""
    from scalecore_generator.builder.progress import BakeProgress

    log = type("Log", (), {"info": lambda self, line: None})()
    progress = BakeProgress(90, 3, log, counter=None)
    try:
        progress.group_landed(30, "2 groups of 'k'")
        assert progress.done() == 30 and progress.line().startswith("bake: 30/90 points (1/3 groups)")
    finally:
        progress.stop()


def test_a_bake_that_finishes_nothing_for_a_while_still_says_where_it_is(monkeypatch):
    """Off a terminal, a line every EVERY_S seconds while no group lands, none while groups keep
    landing, and none once the bake is over."""
    import io
    import time

    from scalecore_generator.builder.progress import BakeProgress

    monkeypatch.setattr(BakeProgress, "EVERY_S", 0.3)
    said = []
    log = type("Log", (), {"info": lambda self, line: said.append(line)})()
    progress = BakeProgress(10, 10, log, stream=io.StringIO())
    try:
        for _ in range(8):  # groups landing every 0.1 s: a line each, nothing more
            time.sleep(0.1)
            progress.group_landed(1, "1 group of 'slow'" if _ == 7 else "")
        assert len(said) == 8
        time.sleep(1.6)  # a slow group: a line about every 0.3 s
        quiet = said[8:]
        assert 2 <= len(quiet) <= 6 and all(line.endswith("computing 1 group of 'slow'") for line in quiet), quiet
    finally:
        progress.stop()
    count = len(said)
    time.sleep(1.0)
    assert len(said) == count, "the progress spoke after the bake was over"


def test_in_a_terminal_the_bake_draws_one_line_in_place_and_clears_it(monkeypatch):
    """In a terminal: one line redrawn in place (a bar, the points, the time left), no line a
    group, and the line cleared for the total when the bake is over; a quiet build draws nothing."""
    import io
    import logging
    import time

    from scalecore_generator.builder.progress import BakeProgress

    class Terminal(io.StringIO):
        def isatty(self):
            return True

    said = []

    class Log:
        def __init__(self, level):
            self.level = level

        def info(self, line):
            said.append(line)

        def isEnabledFor(self, level):
            return level >= self.level

    monkeypatch.setattr(BakeProgress, "REDRAW_S", 0.02)
    monkeypatch.setattr(BakeProgress, "SHOW_AFTER_S", 0.0)
    terminal = Terminal()
    progress = BakeProgress(8, 2, Log(logging.INFO), stream=terminal)
    progress.group_landed(4, "1 group of 'k'")
    time.sleep(0.6)
    progress.group_landed(4, "")
    progress.stop()
    drawn = terminal.getvalue()
    assert "\r\x1b[K[##########----------] bake: 4/8 points (1/2 groups)" in drawn, drawn[:300]
    assert drawn.endswith("\r\x1b[K") and "\n" not in drawn and said == []

    quiet = Terminal()
    progress = BakeProgress(8, 2, Log(logging.WARNING), stream=quiet)
    time.sleep(0.2)
    progress.stop()
    assert quiet.getvalue() == ""


def test_local_workers_count_each_point_they_compute_in_the_shared_count():
    """The count the progress reads is shared memory every local worker adds to."""
    import os
    from concurrent.futures import ProcessPoolExecutor

    from scalecore_generator.builder import bake, progress

    counter = progress.points_counter()
    with ProcessPoolExecutor(max_workers=2, initializer=bake._bake_worker, initargs=(os.getpid(), counter)) as pool:
        for done in [pool.submit(progress.point_done) for _ in range(25)]:
            done.result()
    assert counter.value == 25


