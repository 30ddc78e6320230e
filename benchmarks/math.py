"""The two math outputs measured on the same pages in one run: ``.venv/bin/python -m benchmarks.math``.

The site is built twice, with the plugin option ``math: mathml`` (Temml's MathML Core, drawn with
the cut STIX Two Math; the default) and ``math: html`` (KaTeX's HTML and its fonts, with a MathML
copy for screen readers), each from a cold formula cache so the typesetting itself is timed. Each
module page is then opened in Chromium at a phone's width, and we count what a reader's browser
gets: DOM elements (all, and those of the formulas), the bytes of the page and of the math's
stylesheets and fonts, and the time to the page's load event. Prints numbers; asserts nothing.
"""

import http.server
import statistics
import tempfile
import threading
from functools import partial
from pathlib import Path

from benchmarks.build import ROOT, plugin_entry, read_config, timed_build, write_config

PAGES = ("modules/softmax-range.html", "modules/multi-head-attention.html", "modules/encoder-block.html")
OUTPUTS = ("mathml", "html")
CHROMIUM = "/usr/bin/chromium"
FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
         "--disable-component-update", "--disable-sync", "--no-first-run"]
COUNT = """() => {
  const formulas = document.querySelectorAll('.arithmatex');
  let inside = 0;
  for (const formula of formulas) inside += formula.querySelectorAll('*').length;
  const load = performance.getEntriesByType('navigation')[0];
  return {dom: document.querySelectorAll('*').length, formulas: formulas.length, formulaDom: inside,
          loadMs: load ? load.loadEventEnd : 0,
          math: performance.getEntriesByType('resource')
            .filter((entry) => /katex|\\/math\\//.test(entry.name))
            .reduce((sum, entry) => sum + entry.encodedBodySize, 0)};
}"""


class _Quiet(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args):
        pass


def build(output: str, work: Path) -> tuple[float, Path]:
    """The site with ``math: output``, its own cold cache; returns (seconds, site folder)."""
    config = read_config()
    index, options = plugin_entry(config)
    for name in ("docs", "scalecore", "scalecore_generator", "tests"):  # tests: the docs' snippets
        link = work / name
        if not link.exists():
            link.symlink_to(ROOT / name, target_is_directory=True)
    # The bake's cache is the repository's (warm, linked, not copied: hundreds of MB); the math's
    # is this build's own, so every formula is typeset afresh and the repository's stays as it was.
    cache = work / f"cache-{output}"
    cache.mkdir(exist_ok=True)
    warm = ROOT / ".cache" / "scalecore"
    for entry in sorted(warm.iterdir()) if warm.is_dir() else ():
        if entry.is_dir() and entry.name not in ("math-font",) and not (cache / entry.name).exists():
            (cache / entry.name).symlink_to(entry, target_is_directory=True)
    plugins = list(config["plugins"])
    plugins[index] = {"scalecore": dict(options, math=output, cache_dir=str(cache))}
    site = work / f"site-{output}"
    seconds, _ = timed_build(write_config(dict(config, plugins=plugins), work / f"{output}.yml"), site)
    return seconds, site


def measure(site: Path) -> dict[str, dict]:
    from playwright.sync_api import sync_playwright

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), partial(_Quiet, directory=str(site)))
    threading.Thread(target=server.serve_forever, daemon=True).start()
    found = {}
    try:
        with sync_playwright() as playwright:
            browser = playwright.chromium.launch(executable_path=CHROMIUM, args=FLAGS)
            for page_path in PAGES:
                runs = []
                for _ in range(3):
                    context = browser.new_context(viewport={"width": 412, "height": 823}, service_workers="block")
                    page = context.new_page()
                    page.goto(f"http://127.0.0.1:{server.server_port}/{page_path}", wait_until="load")
                    page.wait_for_timeout(300)
                    runs.append(page.evaluate(COUNT))
                    runs[-1]["html"] = (site / page_path).stat().st_size
                    context.close()
                found[page_path] = {key: statistics.median(run[key] for run in runs) for key in runs[0]}
            browser.close()
    finally:
        server.shutdown()
    return found


def main() -> None:
    with tempfile.TemporaryDirectory(prefix="scalecore-math-") as folder:
        work = Path(folder)
        built = {output: build(output, work) for output in OUTPUTS}
        results = {output: measure(site) for output, (_, site) in built.items()}
        font = sum(path.stat().st_size for path in (built["mathml"][1] / "assets" / "scalecore" / "math").glob("*"))
        katex = sum(path.stat().st_size for path in (built["html"][1] / "assets" / "katex").rglob("*") if path.is_file())
    print("Chromium at 412 x 823, each page opened 3 times (median); each site typeset from a cold formula cache")
    print(f"math files in the site: mathml {font / 1024:.1f} kB (Temml's stylesheet and the cut font), "
          f"html {katex / 1024:.1f} kB (KaTeX's stylesheet and fonts)")
    for page in PAGES:
        mathml, html = results["mathml"][page], results["html"][page]
        print(f"\n{page} ({mathml['formulas']:.0f} formulas)")
        print(f"  {'':28} {'mathml':>9} {'html':>9} {'html/mathml':>12}")
        for name, key, scale, unit in (("DOM elements", "dom", 1, ""), ("  of them in formulas", "formulaDom", 1, ""),
                                       ("page HTML", "html", 1 / 1024, " kB"), ("math CSS + fonts fetched", "math", 1 / 1024, " kB"),
                                       ("load event", "loadMs", 1, " ms")):
            ratio = f"{html[key] / mathml[key]:12.2f}" if mathml[key] else f"{'-':>12}"
            print(f"  {name:28} {mathml[key] * scale:7.0f}{unit:2} {html[key] * scale:7.0f}{unit:2} {ratio}")
    print("\nchosen: mathml (the default), for the DOM and the bytes; html stays an option for KaTeX's look")


if __name__ == "__main__":
    main()
