"""The build's memos are versioned by the code that derives their values (builder/memos.py,
issue 44.5): each module named with every module of its package it imports, at any depth, so a
change to a helper two imports away starts the memo empty, as a change to the module itself does."""

from pathlib import Path

from scalecore_generator.blocks import base
from scalecore_generator.builder import hosts
from scalecore_generator.builder.memos import CodeVersions
from scalecore_generator.foundation import cache, text


def version(module, changed: Path | None = None) -> str:
    real = cache.Digests(None).of
    digest = (lambda path: "edited" if Path(path) == changed else real(path)) if changed else real
    return CodeVersions(digest, cache.Memo(None, None))(module)


def test_a_change_two_imports_away_gives_another_version():
    assert version(base, Path(text.__file__)) != version(base)  # blocks/base -> ... -> foundation/text.py


def test_a_change_outside_the_closure_gives_the_same_version():
    assert version(base, Path(hosts.__file__)) == version(base)


def test_a_warm_build_takes_the_versions_it_kept_while_no_file_of_the_packages_changed():
    kept = cache.Memo(None, None)
    real = cache.Digests(None).of
    first = CodeVersions(real, kept)(base)
    # the same files: the kept version, even where the digests would now say otherwise
    assert CodeVersions(lambda path: "other", kept)(base) == first
