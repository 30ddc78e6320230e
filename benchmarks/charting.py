"""The charting decision, measured: our shared views (scalecore_generator/assets/views.js) against
Observable Plot (with the d3 it needs) for the same heatmap, in headless Chromium.

    npm pack @observablehq/plot@0.6.17 d3@7.9.2 && for f in *.tgz; do tar xzf $f --one-top-level=${f%.tgz}; done
    .venv/bin/python -m benchmarks.charting FOLDER_WITH_THE_UNPACKED_PACKAGES

Prints the bytes each approach ships (raw and gzip) and, as the median of several runs in one
session, the time to evaluate the scripts and to draw a 10 x 10 heatmap. uPlot is not in the
race: it draws on a canvas only, so it cannot produce the SVG the no-JS fallback needs.
Not part of `python -m benchmarks`: it needs those packages, which the site never ships.
"""

import gzip
import json
import statistics
import sys
from pathlib import Path

VIEWS = Path(__file__).resolve().parents[1] / "scalecore_generator" / "assets" / "views.js"
RUNS = 7
TOKENS = "the old man looked at the light of the sun".split()
WEIGHTS = [[((i * 7 + j * 3) % 10 + 1) / 55 for j in range(10)] for i in range(10)]

DRAW = {
    "views": "() => { const t = performance.now(); const s = scalecoreViews.heatmap({tokens: TOKENS, weights: WEIGHTS,"
             " title: 'x'}); document.body.innerHTML = s; return performance.now() - t; }",
    "plot": "() => { const t = performance.now(); const data = []; TOKENS.forEach((q, i) => TOKENS.forEach((k, j) =>"
            " data.push({q: i + ' ' + q, k: j + ' ' + k, w: WEIGHTS[i][j]}))); const svg = Plot.plot({"
            "color: {type: 'sqrt', domain: [0, 1]}, marks: [Plot.cell(data, {x: 'k', y: 'q', fill: 'w'}),"
            " Plot.text(data, {x: 'k', y: 'q', text: d => d.w.toFixed(2)})]}); document.body.replaceChildren(svg);"
            " return performance.now() - t; }",
}


def sizes(files: list[Path]) -> tuple[int, int]:
    data = b"".join(path.read_bytes() for path in files)
    return len(data), len(gzip.compress(data, 9, mtime=0))


def main(folder: Path) -> None:
    from playwright.sync_api import sync_playwright

    plot = next(folder.glob("*plot*/package/dist/plot.umd.min.js"))
    d3 = next(folder.glob("d3*/package/dist/d3.min.js"))
    contenders = {"views": [VIEWS], "plot": [d3, plot]}
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path="/usr/bin/chromium", args=["--headless", "--no-sandbox"])
        for name, files in contenders.items():
            evaluate, draw = [], []
            for _ in range(RUNS):
                page = browser.new_page()
                page.set_content("<!doctype html><body></body>")
                page.evaluate(f"() => {{ window.TOKENS = {json.dumps(TOKENS)}; window.WEIGHTS = {json.dumps(WEIGHTS)}; }}")
                source = "\n;".join(path.read_text(encoding="utf-8") for path in files)
                evaluate.append(page.evaluate("src => { const t = performance.now(); (0, eval)(src); "
                                              "return performance.now() - t; }", source))
                draw.append(page.evaluate(DRAW[name]))
                page.close()
            raw, packed = sizes(files)
            print(f"{name:6} {raw / 1024:8.1f} KiB ({packed / 1024:6.1f} KiB gzip)   evaluate "
                  f"{statistics.median(evaluate):6.1f} ms   draw a 10x10 heatmap {statistics.median(draw):6.1f} ms")
        browser.close()


if __name__ == "__main__":
    main(Path(sys.argv[1]))
