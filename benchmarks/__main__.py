"""Every benchmark in one run, written to benchmarks/RESULTS.md: ``.venv/bin/python -m benchmarks``.

Each benchmark is its own module, run in its own process (a fresh interpreter, as a user meets
it); its printed report is copied verbatim into RESULTS.md under a heading, with the machine
and the date. ``python -m benchmarks NAME ...`` runs some of them: their sections are replaced,
each stamped with its own date and machine, and the others are kept as they were (each says
when it was measured). Nothing here asserts: the numbers are for people to read.
"""

import datetime
import os
import platform
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
BENCHMARKS = (
    ("core", "The core: pure Python against numpy; embedding learning"),
    ("build", "The site build: cold and warm against plain mkdocs-material; parallel bake"),
    ("bake", "The bake: 1 and 2 local workers against a 2-worker Dask LocalCluster"),
    ("new_site", "An author's first site: the wheel, scalecore new's site against plain mkdocs-material"),
    ("browser", "The browser: page weight, baked switch, live mode, live recompute"),
    ("recompute", "Live recompute, kind by kind: CPython, Pyodide in Node, Chromium's worker"),
    ("lighthouse", "Lighthouse (mobile) on the module pages against plain mkdocs-material"),
    ("math", "Math: MathML (Temml, the cut STIX Two Math) against KaTeX's HTML, on the same pages"),
    ("console", "The console: Stop to the next output, import sympy offline, a flood of output"),
    ("full_stack", "The console's full stack: bytes, time to first output against Pyodide, first imports, Stop"),
    ("fullstack_build", "The full stack's build: cold with the user cache empty and filled, warm into the same and a new folder"),
    ("new_folder", "A warm build into a new output folder (a CI job with a restored cache) against plain mkdocs-material"),
    ("mentor", "The mentor: retrieval scored on the question set, answer time, bytes"),
    ("offline", "Offline reading: the bytes the cache takes with and without the runtime, reloading offline"),
)


def machine() -> str:
    memory = ""
    try:
        pages = os.sysconf("SC_PHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
        memory = f", {pages / 2**30:.0f} GiB"
    except (ValueError, OSError):
        pass
    load = ", load average %.2f %.2f %.2f" % os.getloadavg() if hasattr(os, "getloadavg") else ""
    return f"{os.cpu_count()} cores{memory}, {platform.system()} {platform.machine()}, Python {platform.python_version()}{load}"


def main() -> int:
    wanted = sys.argv[1:] or [name for name, _ in BENCHMARKS]
    sections = []
    failed = False
    for name, title in BENCHMARKS:
        if name not in wanted:
            continue
        print(f"== {name} ...", flush=True)
        started = time.monotonic()
        done = subprocess.run([sys.executable, "-m", f"benchmarks.{name}"], cwd=HERE.parent,
                              capture_output=True, text=True, env=dict(os.environ, NO_MKDOCS_2_WARNING="1"))
        report = done.stdout.strip() or "(no output)"
        if done.returncode:
            failed = True
            report += f"\n\nFAILED (exit {done.returncode}):\n{done.stderr.strip()[-3000:]}"
        print(report, flush=True)
        stamp = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
        sections.append((title, f"## {title}\n\n`python -m benchmarks.{name}`, {time.monotonic() - started:.0f} s, "
                                f"measured {stamp} on {machine()}\n\n```\n{report}\n```\n"))
    earlier = _sections(HERE / "RESULTS.md")
    kept = earlier if len(wanted) < len(BENCHMARKS) else {}
    ran = dict(sections)
    titles = {title for _, title in BENCHMARKS}
    # The sections no benchmark writes (each session's own measurements and reasons) stay, after
    # the benchmarks' own, in their order: a run rewrote the file with the benchmarks' alone.
    written = [section for title, section in earlier.items() if title not in titles]
    body = [ran.get(title) or kept.get(title) for _, title in BENCHMARKS] + written
    text = ("# Benchmark results\n\nEach section was measured in one run of its benchmark, at the time and on the machine "
            "it names. Every ratio compares two measurements taken in the same run. Nothing here is a test: the "
            "suite never asserts a time.\n\n" + "\n".join(section for section in body if section))
    (HERE / "RESULTS.md").write_text(text, encoding="utf-8")
    print(f"wrote {HERE / 'RESULTS.md'}")
    return 1 if failed else 0


def _sections(path: Path) -> dict[str, str]:
    """The sections of an earlier RESULTS.md, by title."""
    if not path.is_file():
        return {}
    import re

    text = path.read_text(encoding="utf-8")
    # A file written by one whole run dates it once, in its header: each kept section says it.
    whole = re.search(r"Measured in one run of `python -m benchmarks` on ([^.]+)\.\n\nMachine: ([^\n]+)\.", text)
    found = {}
    for chunk in text.split("\n## ")[1:]:
        title, _, rest = chunk.partition("\n")
        if whole and ", measured " not in rest.split("\n\n", 2)[1]:
            rest = re.sub(r"^(\n`python -m benchmarks\.\w+`, \d+ s)", rf"\1, measured {whole[1]} on {whole[2]}", rest)
        found[title] = f"## {title}\n{rest.rstrip()}\n"
    return found


if __name__ == "__main__":
    sys.exit(main())
