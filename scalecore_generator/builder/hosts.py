"""The static hosts a site is published to, and their limits, checked on the finished site before
it is swapped in (SiteBuild.finish): a site its host would refuse is never published, and the
previous site stays.

The plugin's option ``host`` names the host. Its limits are errors: the build stops, naming each
file over the limit (its path in the site and its size), the limit, the host and the fix. The
default, ``any``, does not know the host: whatever one of the hosts below would refuse (the
strictest of each limit) is a warning, which a strict build (``strict: true``) turns into a stop.
``self-hosted`` (a server of the author's own) checks nothing.

Each limit is the host's documented one, read on the date below; a host changes them now and
then, so each carries where it is written.
"""

from __future__ import annotations

import os
from dataclasses import dataclass

from scalecore_generator.errors import BuildError

MiB = 1024 * 1024
GB = 1000 ** 3
CHECKED = "2026-12"  # when these limits were read in the hosts' documentation


@dataclass(frozen=True)
class Host:
    title: str
    file_bytes: int | None = None  # the largest file it serves
    files: int | None = None  # the most files in one site
    site_bytes: int | None = None  # the largest site
    folder_files: int | None = None  # the most files in one folder
    source: str = ""  # where the limits are documented


HOSTS = {
    # GitHub Pages limits ("Published GitHub Pages sites may be no larger than 1 GB"), and "About
    # large files on GitHub" (a file over 100 MiB is refused by a push: a site published from a
    # branch cannot hold one). No limit on the number of files is documented.
    "github-pages": Host("GitHub Pages", file_bytes=100 * MiB, site_bytes=GB,
                         source="GitHub Docs: GitHub Pages limits; About large files on GitHub"),
    # GitLab.com settings (the Pages site is the job's artifacts: 1 GB, counted unpacked) and
    # GitLab.com's Pages limit of 200,000 files (GitLab issue 405048). A self-managed GitLab sets
    # its own ("Maximum size of pages").
    "gitlab-pages": Host("GitLab Pages (GitLab.com)", files=200_000, site_bytes=GB,
                         source="GitLab Docs: GitLab.com settings (artifacts 1 GB); GitLab issue 405048 (200,000 files)"),
    # Cloudflare Pages limits: a site asset is at most 25 MiB; 20,000 files a site on the Free
    # plan (100,000 on paid plans since January 2026, Pages changelog). No total size is documented.
    "cloudflare-pages": Host("Cloudflare Pages", file_bytes=25 * MiB, files=20_000,
                             source="Cloudflare Docs: Pages limits (Free plan), Pages changelog 2026-01-23"),
    # Netlify, "Site deploys overview": no limit on the number of files of a deploy, but at most
    # 54,000 files in one folder. No file or site size limit is documented.
    "netlify": Host("Netlify", folder_files=54_000, source="Netlify Docs: Site deploys overview"),
    # Read the Docs documents the limits of its builds (time, memory), none on the files it serves.
    "read-the-docs": Host("Read the Docs", source="Read the Docs: Build resources (no limit on the served files)"),
    "self-hosted": Host("a server of your own"),
}
ANY = "any"
LIMITS = ("file_bytes", "files", "site_bytes", "folder_files")


def _strictest(limit: str) -> Host:
    return min((host for host in HOSTS.values() if getattr(host, limit)), key=lambda host: getattr(host, limit))


# What a site that should open on any of the hosts above keeps to: the strictest of each limit.
HOSTS[ANY] = Host("any of these hosts", **{limit: getattr(_strictest(limit), limit) for limit in LIMITS})
NAMES = tuple(HOSTS)
SHOWN = 10  # the largest files a message names; it counts the others


def size(count: int) -> str:
    """``26.2 MiB (27,480,000 bytes)``: what a reader compares with the host's page, and the exact count."""
    for unit, scale in (("GiB", 1024 ** 3), ("MiB", MiB), ("KiB", 1024)):
        if count >= scale:
            return f"{count / scale:.1f}".removesuffix(".0") + f" {unit} ({count:,} bytes)"
    return f"{count:,} bytes"


def site_sizes(site: str, known: dict[str, int] | None = None) -> dict[str, int]:
    """Every file of the finished site, its path there (with /) -> its size. ``known``: the sizes
    the build knows already (the offline listing's: most of the site, the folders carried whole
    at the swap included), so only the files it does not list are stat'ed."""
    found = dict(known or {})

    def walk(folder: str, prefix: str) -> None:
        with os.scandir(folder) as entries:
            for entry in entries:
                if entry.is_dir(follow_symlinks=False):
                    walk(entry.path, prefix + entry.name + "/")
                elif entry.is_file(follow_symlinks=False) and prefix + entry.name not in found:
                    found[prefix + entry.name] = entry.stat(follow_symlinks=False).st_size

    walk(os.fspath(site), "")
    return found


def problems(sizes: dict[str, int], host: str, source_of=lambda path: None) -> list[str]:
    """What ``host`` would refuse of a site of these files (site path -> size), each a sentence
    naming the files, the limit, the host and the fix; none when it takes them all.
    ``source_of(path)``: the author's file a site path was copied from (docs/...), or None."""
    limits = HOSTS[host]
    hosts = ", ".join(NAMES)

    def who(limit: str) -> str:  # the host whose limit it is
        return limits.title if host != ANY else f"{_strictest(limit).title} (the strictest of the hosts)"

    found = []
    if limits.file_bytes is not None:
        over = sorted(((n, p) for p, n in sizes.items() if n > limits.file_bytes), key=lambda item: (-item[0], item[1]))
        if over:
            sources = {path: source_of(path) for _, path in over}
            sources = {path: source for path, source in sources.items() if source}
            named = "; ".join(f"{path} is {size(count)}" + (f", from {sources[path]}" if path in sources else "")
                              for count, path in over[:SHOWN])
            more = f"; and {len(over) - SHOWN} more" if len(over) > SHOWN else ""
            authored = [sources[path] for _, path in over if path in sources]
            fix = (f"make {', '.join(authored)} smaller than {size(limits.file_bytes)} or split it into parts "
                   "(or publish it elsewhere and link to it)" if authored else
                   "split each into parts under the limit, or leave out the feature that ships it")
            found.append(f"{who('file_bytes')} serves no file over {size(limits.file_bytes)}: {named}{more}. Fix: "
                         f"{fix}; or, if the site is published elsewhere, set the option host to that host ({hosts}).")
    if limits.files is not None and len(sizes) > limits.files:
        found.append(f"{who('files')} serves at most {limits.files:,} files in a site; this one has {len(sizes):,}. "
                     "Fix: leave out what the site need not ship (fewer seeds or corpora bake fewer files), or set "
                     f"the option host to the host the site is published to ({hosts}).")
    if limits.site_bytes is not None:
        total = sum(sizes.values())
        if total > limits.site_bytes:
            largest = sorted(sizes, key=lambda path: -sizes[path])[:3]
            found.append(f"{who('site_bytes')} serves at most {size(limits.site_bytes)} a site; this one is "
                         f"{size(total)} (its largest files: {', '.join(f'{p} {size(sizes[p])}' for p in largest)}). "
                         "Fix: leave out what the site need not ship (console_full_stack is most of a site's bytes), "
                         f"or set the option host to the host the site is published to ({hosts}).")
    if limits.folder_files is not None:
        folders = {}
        for path in sizes:
            folder = path.rsplit("/", 1)[0] if "/" in path else "."
            folders[folder] = folders.get(folder, 0) + 1
        crowded = sorted(folder for folder, count in folders.items() if count > limits.folder_files)
        if crowded:
            found.append(f"{who('folder_files')} takes at most {limits.folder_files:,} files in one folder: "
                         f"{', '.join(f'{f}/ holds {folders[f]:,}' for f in crowded)}. Fix: fewer files there, or set "
                         f"the option host to the host the site is published to ({hosts}).")
    return found


def check_before_swap(build, site_dir: str, listed: dict[str, int]) -> None:
    """The finished site against the limits of the host it is published to (option host,
    builder/py), before it replaces the previous one: a limit of the host named is a
    BuildError (nothing is published), of ``any`` a warning. A dev server's site is not published."""
    host = build.settings.host
    if build.command != "build" or host == "self-hosted":
        return
    sizes = site_sizes(site_dir, listed)  # the listing's sizes, the files it leaves out stat'ed
    docs = build.engine.docs_dir

    def source_of(path: str) -> str | None:  # a file the author put in docs/, copied as it is
        return f"{docs.name}/{path}" if (docs / path).is_file() else None

    found = problems(sizes, host, source_of)
    if not found:
        return
    where = build.settings.where("host")
    if host == ANY and not build.engine.strict:
        for problem in found:
            build.log.warning(f"{where}: host {host}: {problem}")
        return
    if host == ANY:
        raise BuildError(f"{where}: the site is not published: {' Also: '.join(found)} (With host: any, the host is "
                         "not known and these are warnings, which strict: true makes a stop.) The previous site "
                         "is unchanged.")
    raise BuildError(f"{where}: the site is not published, {HOSTS[host].title} (host: {host}) would refuse "
                     f"it: {' Also: '.join(found)} The previous site is unchanged.")
