"""Baked figures: the no-JS and print view of every panel.

Deterministic on purpose (content hashes in the manifest change only when content does): the
Agg backend, a fixed ``svg.hashsalt`` and ``svg.id``, glyphs drawn as paths (no font lookup at
view time), and no date in the metadata. The figures sit on their own light card, so they read
the same in Material's light and dark palettes.
"""

import io

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402

STYLE = {
    "svg.hashsalt": "scalecore",
    "svg.id": "scalecore",
    "svg.fonttype": "path",
    "font.family": "DejaVu Sans",
    "font.size": 9,
    "figure.facecolor": "#ffffff",
    "axes.facecolor": "#ffffff",
    "text.color": "#1f2328",
    "axes.labelcolor": "#1f2328",
    "xtick.color": "#1f2328",
    "ytick.color": "#1f2328",
}
MEASURE_LABELS = (
    ("input_spread", "input spread"),
    ("score_spread", "score spread"),
    ("mean_row_max", "mean row-max"),
    ("mean_entropy", "entropy"),
    ("gradient", "gradient"),
)


def _svg(figure) -> bytes:
    out = io.BytesIO()
    figure.savefig(out, format="svg", metadata={"Date": None}, bbox_inches="tight")
    plt.close(figure)
    return out.getvalue()


def measures_caption(measures: dict) -> str:
    return "   ".join(f"{label} {measures[key]:.3g}" for key, label in MEASURE_LABELS)


def heatmap_svg(tokens: list[str], weights: list[list[float]], measures: dict, title: str) -> bytes:
    """Attention weights as a heatmap: row = the token that looks, column = the token looked at."""
    with plt.rc_context(STYLE):
        size = 1.2 + 0.42 * len(tokens)
        figure, axes = plt.subplots(figsize=(size + 1.2, size + 0.5))
        image = axes.imshow(weights, cmap="viridis", vmin=0.0, vmax=1.0)
        axes.set_xticks(range(len(tokens)), tokens, rotation=60, ha="right")
        axes.set_yticks(range(len(tokens)), tokens)
        axes.set_xlabel("attended to (key)")
        axes.set_ylabel("attending (query)")
        axes.set_title(title, fontsize=10)
        colourbar = figure.colorbar(image, ax=axes, fraction=0.046, pad=0.04)
        colourbar.set_label("weight")
        figure.text(0.5, -0.02, measures_caption(measures), ha="center", va="top", fontsize=8)
        return _svg(figure)


def histogram_svg(edges: list[float], counts: list[int], title: str, xlabel: str) -> bytes:
    """Counts over bins, for the variance lesson's q . k samples."""
    with plt.rc_context(STYLE):
        figure, axes = plt.subplots(figsize=(5.0, 2.8))
        widths = [b - a for a, b in zip(edges, edges[1:])]
        axes.bar(edges[:-1], counts, width=widths, align="edge", color="#3f6fb5", edgecolor="#ffffff", linewidth=0.3)
        axes.set_title(title, fontsize=10)
        axes.set_xlabel(xlabel)
        axes.set_ylabel("samples")
        axes.spines[["top", "right"]].set_visible(False)
        return _svg(figure)
