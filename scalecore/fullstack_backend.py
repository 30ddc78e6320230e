"""matplotlib's backend in the console's full stack (MPLBACKEND=module://scalecore.fullstack_backend):
Agg draws, and plt.show() sends each figure to the page as a PNG (scalecore/fullstack.py)."""

from matplotlib.backends.backend_agg import FigureCanvasAgg as FigureCanvas  # noqa: F401  (the backend API)

from scalecore.fullstack import show  # noqa: F401  (the backend API)
