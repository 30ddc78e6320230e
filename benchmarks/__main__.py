"""Every benchmark in one run, written to benchmarks/RESULTS.md: ``.venv/bin/python -m benchmarks``.

Each benchmark is its own module, run in its own process (a fresh interpreter, as a user meets
it); its printed report is copied verbatim into RESULTS.md under a heading, with the machine
and the date. Nothing here asserts: the numbers are for people to read.
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
    ("new_site", "An author's first site: the wheel, scalecore new's site against plain mkdocs-material"),
    ("browser", "The browser: page weight, baked switch, live mode, live recompute"),
    ("lighthouse", "Lighthouse (mobile) on the module pages against plain mkdocs-material"),
    ("math", "Math: MathML (Temml, the cut STIX Two Math) against KaTeX's HTML, on the same pages"),
    ("console", "The console: Stop to the next output, import sympy offline, a flood of output"),
    ("mentor", "The mentor: retrieval scored on the question set, answer time, bytes"),
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
        sections.append(f"## {title}\n\n`python -m benchmarks.{name}`, {time.monotonic() - started:.0f} s\n\n```\n{report}\n```\n")
    stamp = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    text = (f"# Benchmark results\n\nMeasured in one run of `python -m benchmarks` on {stamp}.\n\n"
            f"Machine: {machine()}.\n\nEvery ratio below compares two measurements taken in the same run. "
            "Nothing here is a test: the suite never asserts a time.\n\n" + "\n".join(sections))
    (HERE / "RESULTS.md").write_text(text, encoding="utf-8")
    print(f"wrote {HERE / 'RESULTS.md'}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
