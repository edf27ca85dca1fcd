"""Drawing a Ca-MCF :class:`~camcf.result.Result`: colours, graphs, figures, sentences, tables.

Nothing here imports streamlit; the app's pages call these functions and hand the output to
``st.*``. Graph functions return standalone HTML strings (pyvis, vis-network inlined, no CDN);
figure functions return plotly figures; ``explain`` turns one trace row into a sentence.
"""

from .explain import explain, explain_row
from .style import COLORS, LEGEND, legend_html

__all__ = ["COLORS", "LEGEND", "explain", "explain_row", "legend_html"]
