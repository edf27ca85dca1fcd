"""Drawing a Ca-MCF :class:`~camcf.result.Result`: colours, graphs, figures, sentences, tables.

Nothing here imports streamlit; the app's pages call these functions and hand the output to
``st.*``. Graph functions return standalone HTML strings (pyvis, vis-network inlined, no CDN);
figure functions return plotly figures; :func:`explain_test` turns one record row into an
:class:`Explanation` (the sentence and the "This decision" table, generated from the row's
fields) and :mod:`camcf.viz.story` tells the demo's story from a run.
"""

from .explain import Explanation, explain, explain_row, explain_test
from .style import COLORS, LEGEND, legend_html

__all__ = ["COLORS", "LEGEND", "Explanation", "explain", "explain_row", "explain_test",
           "legend_html"]
