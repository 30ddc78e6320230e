"""Lighthouse (mobile, its default settings) on the module pages against the same pages built as
plain mkdocs-material, in one run: ``.venv/bin/python -m benchmarks.lighthouse``.

Lighthouse 12 comes from its own pinned npm package (``benchmarks/lighthouse/package-lock.json``,
installed here on first use with ``npm ci --prefix benchmarks/lighthouse``: neither the site nor
the tests need it) and drives Debian's Chromium (CHROME_PATH=/usr/bin/chromium). Each page is
measured five times and the median kept: performance score, total blocking time, time to
interactive, DOM elements and bytes. The runs of the two sites alternate (ours, plain, ours,
plain...): on 2 shared cores the machine's load drifts over minutes, and one site measured after
the other took the drift as a difference (plain Material's median score moved from 81 to 92
between two runs on the same build). Each site's five scores are printed too, so the noise is in
view beside the difference, and each site's blocking time is split by the script Lighthouse attributes
each long task to (Material's bundle, or ours). Prints numbers; asserts nothing.

The pages are measured as a plain file server sends them (no compression, as in the issue's
numbers), then the first page again as a static host that compresses text sends it (gzip, as
GitHub Pages, Netlify or Cloudflare Pages do): both sites get the same treatment.
"""

import gzip
import http.server
import json
import mimetypes
import os
import threading
import statistics
import subprocess
import tempfile
from pathlib import Path

from benchmarks.browser import Files, Quiet, serve
from benchmarks.build import serve_both

HERE = Path(__file__).resolve().parent / "lighthouse"
CLI = HERE / "node_modules" / "lighthouse" / "cli" / "index.js"
PAGES = ("modules/softmax-range.html", "modules/multi-head-attention.html", "modules/encoder-block.html")
RUNS = 5
CHROME_FLAGS = "--headless --no-sandbox --disable-gpu --disable-background-networking --disable-component-update " \
               "--disable-sync --no-first-run"
MEASURES = (  # name, Lighthouse audit (None: the score), unit, scale
    ("performance score", None, "", 100),
    ("total blocking time", "total-blocking-time", " ms", 1),
    ("time to interactive", "interactive", " ms", 1),
    ("DOM elements", "dom-size", "", 1),
    ("bytes", "total-byte-weight", " kB", 1e-3),
)


COMPRESSED = {".html", ".css", ".js", ".mjs", ".json", ".svg", ".xml", ".txt", ".map"}


class Compressing(Files):
    """A static host that gzips text (level 6, no timestamp) when the browser accepts it."""

    def do_GET(self):
        path = Path(self.translate_path(self.path))
        if not (path.is_file() and path.suffix in COMPRESSED and "gzip" in self.headers.get("Accept-Encoding", "")):
            return super().do_GET()
        body = gzip.compress(path.read_bytes(), compresslevel=6, mtime=0)
        self.send_response(200)
        self.send_header("Content-Type", mimetypes.guess_type(path.name)[0] or "application/octet-stream")
        self.send_header("Content-Encoding", "gzip")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)


def serve_compressed(folder: Path) -> tuple[Quiet, str]:
    server = Quiet(("127.0.0.1", 0), lambda *a: Compressing(*a, directory=str(folder)))
    server.served, server.lock = 0, threading.Lock()
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server, f"http://127.0.0.1:{server.server_address[1]}/"


def install() -> None:
    if not CLI.is_file():
        subprocess.run(["npm", "ci", "--prefix", str(HERE), "--no-audit", "--no-fund"], check=True,
                       capture_output=True, text=True)


def lighthouse(url: str) -> dict[str, float]:
    with tempfile.NamedTemporaryFile(suffix=".json") as report:
        subprocess.run(["node", str(CLI), url, "--quiet", "--only-categories=performance", "--output=json",
                        f"--output-path={report.name}", f"--chrome-flags={CHROME_FLAGS}"],
                       check=True, capture_output=True, text=True, timeout=300,
                       env=dict(os.environ, CHROME_PATH="/usr/bin/chromium"))
        data = json.loads(Path(report.name).read_text(encoding="utf-8"))
    found = {}
    for name, audit, _, scale in MEASURES:
        value = data["categories"]["performance"]["score"] if audit is None else data["audits"][audit]["numericValue"]
        found[name] = value * scale
    # When the unthrottled load Lighthouse records first painted: its simulated paint times are
    # built on it, so a load that painted only after its scripts ran is simulated as a slow one
    # (the module page's score is bimodal on this machine for that reason: see RESULTS.md).
    found["observed first paint"] = data["audits"]["metrics"]["details"]["items"][0]["observedFirstContentfulPaint"]
    found["blocking by script"] = blocking_by_script(data)
    return found


def blocking_by_script(data: dict) -> dict[str, float]:
    """The blocking time (each long task's time over 50 ms) between the first paint and the page
    turning interactive, by the script Lighthouse attributes each task to, simulated as the score's total
    blocking time is. Why: the total blocking time counts only the tasks after the first paint, so
    a script's task counts or not by where it falls: the same long task of Material's bundle falls
    before the first paint of one page and after that of another."""
    first_paint = data["audits"]["first-contentful-paint"]["numericValue"]
    interactive = data["audits"]["interactive"]["numericValue"]
    found = {}
    for task in data["audits"]["long-tasks"]["details"]["items"]:
        # As Lighthouse counts it: a task that began before the first paint counts from there.
        start, end = max(task["startTime"], first_paint), min(task["startTime"] + task["duration"], interactive)
        if end - start > 50:
            name = task["url"].rsplit("/", 1)[-1] or task["url"]
            name = "the page (parse, style, layout)" if name.endswith(".html") else name
            found[name] = found.get(name, 0) + end - start - 50
    return found


def paired(ours: str, plain: str) -> tuple[dict, dict]:
    """The medians of RUNS measurements of each page, the two measured in turn; each median
    carries every run's score under "scores" and its observed first paint under "first paints"."""
    runs = [(lighthouse(ours), lighthouse(plain)) for _ in range(RUNS)]
    return tuple(_medians([pair[side] for pair in runs]) for side in (0, 1))


def _medians(runs: list[dict]) -> dict:
    found = {name: statistics.median(run[name] for run in runs) for name, *_ in MEASURES}
    found["scores"] = [round(run["performance score"]) for run in runs]
    found["first paints"] = [round(run["observed first paint"]) for run in runs]
    scripts = sorted({name for run in runs for name in run["blocking by script"]})
    found["blocking by script"] = {name: statistics.median(run["blocking by script"].get(name, 0) for run in runs)
                                   for name in scripts}
    return found


def main() -> None:
    install()
    version = json.loads((HERE / "node_modules" / "lighthouse" / "package.json").read_text())["version"]
    with tempfile.TemporaryDirectory(prefix="scalecore-lighthouse-") as folder:
        work = Path(folder)
        serve_both(work)
        server, base = serve(work / "serve")
        try:
            results = {page: paired(base + "site/" + page, base + "plain/" + page) for page in PAGES}
        finally:
            server.shutdown()
        server, base = serve_compressed(work / "serve")
        try:
            compressed = {PAGES[0]: paired(base + "site/" + PAGES[0], base + "plain/" + PAGES[0])}
        finally:
            server.shutdown()
    print(f"Lighthouse {version}, mobile defaults, Chromium /usr/bin/chromium, median of {RUNS} runs each, "
          "the two sites measured in turn")
    report(results, "")
    print("\nserved gzip-compressed, as a static host that compresses text serves it:")
    report(compressed, " (gzip)")


def report(results: dict, served: str) -> None:
    for page, (scalecore, material) in results.items():
        print(f"\n{page}{served}")
        print(f"  {'':22} {'scalecore':>12} {'plain Material':>15} {'ratio':>7}")
        for name, _, unit, _ in MEASURES:
            ours_value, plain_value = scalecore[name], material[name]
            ratio = f"{ours_value / plain_value:7.2f}" if plain_value else "      -"
            print(f"  {name:22} {ours_value:10.0f}{unit:2} {plain_value:13.0f}{unit:2} {ratio}")
        print(f"  score difference: {scalecore['performance score'] - material['performance score']:+.0f} points "
              f"(each run's score: scalecore {scalecore['scores']}, plain {material['scores']})")
        print(f"  each run's observed first paint, ms (the unthrottled load the simulation starts from): "
              f"scalecore {scalecore['first paints']}, plain {material['first paints']}")
        for side, found in (("scalecore", scalecore), ("plain", material)):
            shares = ", ".join(f"{name} {ms:.0f} ms" for name, ms in sorted(found["blocking by script"].items(),
                                                                         key=lambda item: -item[1]) if ms)
            print(f"  {side}: blocking after the first paint by script, medians: {shares or 'none'}")


if __name__ == "__main__":
    main()
