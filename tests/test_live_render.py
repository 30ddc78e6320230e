"""The shared views' repaints (views.js) in a browser: repainting a heatmap or a list of read-outs
gives exactly what drawing it afresh gives, and repainting with what is already shown changes no
node at all (a live recompute of the same settings costs the page no restyle and no repaint)."""

from __future__ import annotations

from pathlib import Path

VIEWS = Path(__file__).resolve().parent.parent / "scalecore_generator" / "assets" / "views.js"

MEASURES = [
    {"key": "spread", "name": "Score spread", "hint": "How far apart <scores> are.", "unit": "", "range": None},
    {"key": "row_max", "name": "Mean row-max", "hint": "1/T is even.", "unit": "", "range": ["1/T", 1]},
    {"key": "entropy", "name": "Entropy", "hint": "ln T is even.", "unit": " nats", "range": [0, "ln T"]},
]

CHECK = """([measures, before, after]) => {
  const V = scalecoreViews;
  const withValues = (values) => measures.map((m, i) => Object.assign({}, m, { value: values[i] }));
  const box = document.createElement('div');
  document.body.appendChild(box);
  const count = (node, work) => {
    const seen = new MutationObserver(() => {});
    seen.observe(node, { subtree: true, childList: true, attributes: true, characterData: true });
    work();
    const changes = seen.takeRecords().length;
    seen.disconnect();
    return changes;
  };
  const fresh = (markup) => { const d = document.createElement('div'); d.innerHTML = markup; return d.firstElementChild; };
  const out = {};

  // read-outs
  box.innerHTML = V.readouts({ tokens: 4, measures: withValues(before) });
  const list = box.firstElementChild;
  out.readoutsSame = count(list, () => V.repaintReadouts(list, { tokens: 4, measures: withValues(before) }));
  out.readoutsRepainted = V.repaintReadouts(list, { tokens: 4, measures: withValues(after) });
  out.readoutsEqual = list.outerHTML === fresh(V.readouts({ tokens: 4, measures: withValues(after) })).outerHTML;
  out.readoutsOther = V.repaintReadouts(list, { tokens: 4, measures: withValues(after).slice(1) });

  // heatmap
  const tokens = ['the', 'cat', 'sat', 'down'];
  const weights = (shift) => tokens.map((_, i) => tokens.map((_, j) => (i === j ? 0.4 + shift : (0.6 - shift) / 3)));
  box.innerHTML = V.heatmap({ tokens, weights: weights(0), title: 'a', font: 12 });
  const svg = box.firstElementChild;
  out.heatmapSame = count(svg, () => V.repaintHeatmap(svg, { tokens, weights: weights(0), title: 'a', font: 12 }));
  V.repaintHeatmap(svg, { tokens, weights: weights(0.3), title: 'b', font: 12 });
  out.heatmapEqual = svg.outerHTML === fresh(V.heatmap({ tokens, weights: weights(0.3), title: 'b', font: 12 })).outerHTML;
  return out;
}"""


def test_repaints_equal_a_fresh_drawing_and_touch_nothing_unchanged(chromium):
    page = chromium.new_page()
    try:
        page.set_content("<!doctype html><meta charset=utf-8><body></body>")
        page.add_script_tag(content=VIEWS.read_text(encoding="utf-8"))
        out = page.evaluate(CHECK, [MEASURES, [2.5, 0.4, 1.1], [30.25, 0.97, 1e-4]])
    finally:
        page.close()
    assert out["readoutsSame"] == 0, "repainting the read-outs with the shown values changed nodes"
    assert out["readoutsRepainted"] is True
    assert out["readoutsEqual"], "repainted read-outs differ from freshly drawn ones"
    assert out["readoutsOther"] is False, "a list of other measures must be drawn afresh"
    assert out["heatmapSame"] == 0, "repainting the heatmap with the shown weights changed nodes"
    assert out["heatmapEqual"], "a repainted heatmap differs from a freshly drawn one"


GENERAL = """() => {
  const V = scalecoreViews;
  const box = document.createElement('div');
  document.body.appendChild(box);
  const spec = (shift) => ({ rows: ['layer 1', 'layer 2'], columns: ['a', 'b', 'c'], scheme: 'diverging',
    values: [[-2 + shift, 0, 1], [0.5, -0.25 - shift, 2]], title: 'changes', axis: 'layer \\u2193  unit \\u2192' });
  box.innerHTML = V.heatmap(spec(0));
  const svg = box.firstElementChild;
  const fills = Array.from(svg.querySelectorAll('rect.scalecore-cell__fill'));
  const out = {
    cells: fills.length,
    negative: fills.map(f => f.classList.contains('scalecore-cell__fill--negative')),
    opacity: fills.map(f => Number(f.getAttribute('fill-opacity'))),
    numbers: Array.from(svg.querySelectorAll('text.scalecore-cell__text')).map(t => t.textContent),
    labels: Array.from(svg.querySelectorAll('text.scalecore-axis-label')).map(t => t.textContent),
  };
  V.repaintHeatmap(svg, spec(1));
  const fresh = document.createElement('div');
  fresh.innerHTML = V.heatmap(spec(1));
  out.repaintEqual = svg.outerHTML === fresh.firstElementChild.outerHTML;
  const seq = document.createElement('div');
  seq.innerHTML = V.heatmap({ rows: ['x'], columns: ['p', 'q'], values: [[10, 20]], domain: [0, 40] });
  out.sequential = Array.from(seq.querySelectorAll('rect.scalecore-cell__fill')).map(f => Number(f.getAttribute('fill-opacity')));
  out.legend = V.legend({ rows: ['x'], columns: ['p'], values: [[-3]], scheme: 'diverging' });
  return out;
}"""


def test_a_general_heatmap_draws_any_rows_and_columns_on_the_kinds_scale(chromium):
    """Not only attention's square of weights: rows and columns named by the kind, its own domain,
    and a diverging scheme whose negative cells take the second colour."""
    page = chromium.new_page()
    try:
        page.set_content("<!doctype html><meta charset=utf-8><body></body>")
        page.add_script_tag(content=VIEWS.read_text(encoding="utf-8"))
        out = page.evaluate(GENERAL)
    finally:
        page.close()
    assert out["cells"] == 6
    assert out["negative"] == [True, False, False, False, True, False]
    assert out["opacity"][0] == 1.0 and out["opacity"][5] == 1.0 and out["opacity"][1] == 0.0  # |-2| and 2 strongest, 0 pale
    assert abs(out["opacity"][2] - 0.5 ** 0.5) < 1e-4  # 1 of a reach of 2, on the square-root shade
    assert out["numbers"] == ["\u22122", "0", "1", "0.50", "\u22120.25", "2"]
    assert out["labels"] == ["a", "b", "c", "layer 1", "layer 2"]
    assert out["repaintEqual"], "a repainted general heatmap differs from a fresh drawing"
    assert [round(o, 4) for o in out["sequential"]] == [round(0.25 ** 0.5, 4), round(0.5 ** 0.5, 4)]
    assert "scalecore-cell__fill--negative" in out["legend"] and ">\u22123<" in out["legend"] and ">3<" in out["legend"]
