"""The static hosts' limits (scalecore_generator/builder/hosts.py, option ``host``).

The units need no build; the fixture site's builds check that a site its host would refuse is
not published (the previous one stays, byte for byte), with a message naming the file, its size,
the limit, the host and the fix, and that the same file passes for a host that takes it.
"""

import re

import pytest

from scalecore_generator.builder import hosts
from sites import build, copy_site, edit, line_of, tree

MiB = 1024 * 1024


def test_each_host_refuses_what_its_documentation_says():
    big = {"index.html": 1000, "assets/big.wasm": 26 * MiB}
    assert hosts.problems(big, "cloudflare-pages")
    assert hosts.problems(big, "any")
    for host in ("github-pages", "gitlab-pages", "netlify", "read-the-docs", "self-hosted"):
        assert hosts.problems(big, host) == [], host
    assert hosts.problems({"a.wasm": 101 * MiB}, "github-pages")
    assert hosts.problems({"a.wasm": 100 * MiB}, "github-pages") == []  # the limit itself is allowed
    many = {f"api/{n}.json": 10 for n in range(20_001)}
    assert hosts.problems(many, "cloudflare-pages") and hosts.problems(many, "any")
    assert hosts.problems(many, "github-pages") == []
    heavy = {f"assets/{n}.bin": 20 * MiB for n in range(50)}  # 1,048 MB
    assert hosts.problems(heavy, "github-pages") and hosts.problems(heavy, "gitlab-pages")
    assert hosts.problems(heavy, "cloudflare-pages") == []
    crowded = {f"api/{n}.json": 10 for n in range(54_001)}
    assert any("54,000 files in one folder: api/ holds 54,001" in p for p in hosts.problems(crowded, "netlify"))
    assert hosts.problems(crowded, "self-hosted") == []


def test_any_keeps_to_the_strictest_of_each_limit():
    strictest = hosts.HOSTS["any"]
    assert strictest.file_bytes == 25 * MiB  # Cloudflare Pages
    assert strictest.files == 20_000  # Cloudflare Pages (Free plan)
    assert strictest.site_bytes == 1000 ** 3  # GitHub Pages, GitLab.com
    assert strictest.folder_files == 54_000  # Netlify
    assert set(hosts.NAMES) == {"github-pages", "gitlab-pages", "cloudflare-pages", "netlify", "read-the-docs",
                                "self-hosted", "any"}


def test_the_message_names_the_file_its_size_the_limit_the_host_and_the_fix():
    sizes = {"index.html": 900, "data/big.bin": 27_000_000, "assets/fullstack/python.wasm": 99_421_513}
    [problem] = hosts.problems(sizes, "cloudflare-pages", lambda path: "docs/data/big.bin" if path == "data/big.bin" else None)
    assert problem == (
        "Cloudflare Pages serves no file over 25 MiB (26,214,400 bytes): assets/fullstack/python.wasm is 94.8 MiB "
        "(99,421,513 bytes); data/big.bin is 25.7 MiB (27,000,000 bytes), from docs/data/big.bin. Fix: make "
        "docs/data/big.bin smaller than 25 MiB (26,214,400 bytes) or split it into parts (or publish it elsewhere "
        "and link to it); or, if the site is published elsewhere, set the option host to that host (github-pages, "
        "gitlab-pages, cloudflare-pages, netlify, read-the-docs, self-hosted, any).")


@pytest.fixture(scope="module")
def published(tmp_path_factory):
    """The fixture site built once (its previous site), then given a 25.7 MiB file in docs/."""
    folder = copy_site(tmp_path_factory.mktemp("hosts") / "site")
    first = build(folder)
    assert first.returncode == 0, first.describe()
    return folder


def _set_host(folder, host: str | None) -> None:
    text = (folder / "mkdocs.yml").read_text(encoding="utf-8")
    text = re.sub(r"\n      host: [\w-]+", "", text)
    if host:
        text = text.replace("      live: false\n", f"      live: false\n      host: {host}\n")
    (folder / "mkdocs.yml").write_text(text, encoding="utf-8")


def test_a_file_the_host_refuses_stops_the_build_and_the_previous_site_stays(published):
    folder = published
    before = tree(folder / "site")
    (folder / "docs" / "data").mkdir(exist_ok=True)
    with open(folder / "docs" / "data" / "big.bin", "wb") as stream:
        stream.truncate(27_000_000)
    try:
        _set_host(folder, "cloudflare-pages")
        done = build(folder)
        assert done.returncode != 0, done.describe()
        line = line_of(folder / "mkdocs.yml", "host: cloudflare-pages")
        assert done.errors == [
            f"scalecore: {folder / 'mkdocs.yml'}:{line}: the site is not published, Cloudflare Pages (host: "
            "cloudflare-pages) would refuse it: Cloudflare Pages serves no file over 25 MiB (26,214,400 bytes): "
            "data/big.bin is 25.7 MiB (27,000,000 bytes), from docs/data/big.bin. Fix: make docs/data/big.bin "
            "smaller than 25 MiB (26,214,400 bytes) or split it into parts (or publish it elsewhere and link to "
            "it); or, if the site is published elsewhere, set the option host to that host (github-pages, "
            "gitlab-pages, cloudflare-pages, netlify, read-the-docs, self-hosted, any). The previous site is "
            "unchanged."], done.describe()
        assert tree(folder / "site") == before
        assert not list(folder.glob(".site.partial-*"))

        _set_host(folder, None)  # any, the default, in a strict site: the same stop
        done = build(folder)
        assert done.returncode != 0 and len(done.errors) == 1, done.describe()
        assert "Cloudflare Pages (the strictest of the hosts) serves no file over 25 MiB" in done.errors[0]
        assert "strict: true makes a stop" in done.errors[0]
        assert tree(folder / "site") == before

        edit(folder / "mkdocs.yml", "strict: true", "strict: false")  # any, not strict: a warning, published
        done = build(folder)
        assert done.returncode == 0, done.describe()
        assert [w for w in done.lines("WARNING") if "host any" in w and "data/big.bin is 25.7 MiB" in w], done.describe()
        assert (folder / "site" / "data" / "big.bin").stat().st_size == 27_000_000
        edit(folder / "mkdocs.yml", "strict: false", "strict: true")

        _set_host(folder, "github-pages")  # 100 MiB a file: it takes it
        done = build(folder)
        assert done.returncode == 0, done.describe()
        assert done.lines("WARNING") == [], done.describe()
        assert (folder / "site" / "data" / "big.bin").stat().st_size == 27_000_000
    finally:
        (folder / "docs" / "data" / "big.bin").unlink()
        _set_host(folder, None)


def test_an_unknown_host_is_a_config_error_with_its_line_and_the_hosts(published):
    folder = published
    _set_host(folder, "heroku")
    try:
        done = build(folder)
        assert done.returncode != 0
        line = line_of(folder / "mkdocs.yml", "host: heroku")
        assert any(f"mkdocs.yml:{line}:" in error and "github-pages" in error and "cloudflare-pages" in error
                   for error in done.errors + done.lines("WARNING") + [done.stderr]), done.describe()
    finally:
        _set_host(folder, None)
