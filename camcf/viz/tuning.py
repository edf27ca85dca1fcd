"""Figures of the tuning pages: what changed between two runs, and the threshold landscape.

They take a :class:`camcf.diff.RunDiff` or a :class:`camcf.landscape.Landscape` (no Streamlit).
"""

from __future__ import annotations

import math

import numpy as np
import plotly.graph_objects as go

from .style import COLORS, text_px

#: display symbol of each grid parameter
SYMBOL = {"delta1": "δ1", "delta2": "δ2", "k1": "k1", "k2": "k2"}
MAX_BARS = 40


def diff_bars(d, max_bars: int = MAX_BARS) -> go.Figure:
    """Per category whose blanket changed, the features that entered (+, right) and left
    (−, left) it; the ``max_bars`` categories with the most change, largest first."""
    rows = []
    for cd in d.changed:
        plus, minus = len(cd.entered["blanket"]), len(cd.left["blanket"])
        if plus + minus == 0:  # a decision flipped but the blanket stayed: not a bar
            continue
        rows.append((d.after.categories[cd.target].display, plus, minus, cd.n_flips))
    rows.sort(key=lambda r: (-(r[1] + r[2]), -r[3], r[0]))
    shown = rows[:max_bars][::-1]  # largest at the top
    names = [r[0] for r in shown]
    if not rows:
        from .figures import message_figure

        return message_figure("Blanket changes per category: none — every category kept its "
                              "blanket (the table lists decisions that flipped without "
                              "changing one).", height=120)
    fig = go.Figure()
    fig.add_trace(go.Bar(y=names, x=[r[1] for r in shown], orientation="h",
                         name="entered the blanket", marker_color=COLORS["tp"],
                         hovertemplate="%{y}: %{x} entered<extra></extra>"))
    fig.add_trace(go.Bar(y=names, x=[-r[2] for r in shown], orientation="h",
                         name="left the blanket", marker_color=COLORS["extra"],
                         customdata=[r[2] for r in shown],
                         hovertemplate="%{y}: %{customdata} left<extra></extra>"))
    title = "Blanket changes per category"
    if len(rows) > max_bars:
        title += f" (the {max_bars} most changed of {len(rows):,})"
    fig.update_layout(barmode="relative", title=title, height=max(260, 60 + 22 * len(shown)),
                      margin={"l": min(240, 12 + 8 * max(map(len, names))), "r": 10, "t": 50,
                              "b": 30},  # room for the names before automargin runs
                      legend={"orientation": "h", "y": -0.15},
                      xaxis={"title": "features (− left, + entered)", "zeroline": True,
                             "zerolinecolor": "#888", "tickformat": "d",
                             "dtick": max(1, -(-max([r[1] + r[2] for r in shown] or [1]) // 8))},
                      yaxis={"automargin": True})
    return fig


#: the colour of cells that are not coloured by their value (not computed, not usable)
GREY = "#d9d9d9"
#: the name of a landscape's ``truth_f1`` on the screen
TRUTH_F1 = "F1 against the truth"


def landscape_heatmap(L, value: str = "n_selected", current: dict | None = None,
                      best: tuple[int, int] | None = None,
                      unusable: np.ndarray | None = None,
                      unusable_text: np.ndarray | None = None) -> go.Figure:
    """Heatmap of the landscape: ``value`` is ``"n_selected"``, ``"truth_f1"`` (on data with a
    known truth: :attr:`camcf.landscape.Landscape.truth_f1`) or the metric's name. Cells are
    equal (categorical axes) and show their value; ``current`` (parameter values) is ringed;
    ``best`` (row, column), e.g. a tuner's best point, is marked with an open diamond.

    Cells a partial landscape has not computed (:attr:`camcf.landscape.Landscape.filled`) are
    grey and say "not computed". ``unusable`` (a boolean array of the grid's shape, e.g. a
    tuning's points that selected nothing on some folds) are grey too, outside the colour
    scale, so no colour can make them look best; ``unusable_text`` is what each says."""
    if value == "n_selected":
        z = L.counts.astype(float)
        cbar = "features selected"
    elif value == "truth_f1":
        z = np.asarray(L.truth_f1, dtype=float)
        cbar = TRUTH_F1
    else:
        z = np.asarray(L.metric_values, dtype=float)
        cbar = value
    filled = (np.ones(z.shape, dtype=bool) if getattr(L, "filled", None) is None
              else np.asarray(L.filled, dtype=bool))
    bad = np.zeros(z.shape, dtype=bool) if unusable is None else np.asarray(unusable, bool)
    grey = ~filled | bad
    xs = [f"{v:g}" for v in L.x_values]
    ys = [f"{v:g}" for v in L.y_values]

    def shown(i: int, j: int) -> str:
        v = z[i][j]
        if not filled[i][j]:
            return "not computed"
        number = "—" if np.isnan(v) else (f"{v:.0f}" if value == "n_selected" else f"{v:.3f}")
        if bad[i][j] and unusable_text is not None:
            return f"{number}<br>{unusable_text[i][j]}"
        return number

    text = [[shown(i, j) for j in range(len(xs))] for i in range(len(ys))]
    coloured = np.where(grey, np.nan, z)
    fig = go.Figure(go.Heatmap(
        z=coloured, x=xs, y=ys, text=[[("" if grey[i][j] else text[i][j])
                                       for j in range(len(xs))] for i in range(len(ys))],
        texttemplate="%{text}", colorscale="Viridis",
        colorbar={"title": {"text": cbar, "side": "right"}}, hoverinfo="skip"))
    if grey.any():  # a second layer: grey cells with their words, outside the colour scale
        fig.add_trace(go.Heatmap(
            z=np.where(grey, 0.0, np.nan), x=xs, y=ys, showscale=False, hoverinfo="skip",
            colorscale=[[0, GREY], [1, GREY]],
            text=[[(text[i][j] if grey[i][j] else "") for j in range(len(xs))]
                  for i in range(len(ys))], texttemplate="%{text}",
            textfont={"color": "#333333"}))
    # an invisible marker on every cell carries hover and click (plotly selects points, and a
    # heatmap has none); customdata = (row, column) of the cell
    cells = [(i, j) for i in range(len(ys)) for j in range(len(xs))]
    fig.add_trace(go.Scatter(
        x=[xs[j] for _, j in cells], y=[ys[i] for i, _ in cells], mode="markers",
        customdata=[[i, j, z[i][j], text[i][j]] for i, j in cells], showlegend=False,
        name="cells", marker={"size": 44, "symbol": "square", "color": "rgba(0,0,0,0)"},
        hovertemplate=(f"{SYMBOL[L.x]} = %{{x}}<br>{SYMBOL[L.y]} = %{{y}}<br>{cbar} = "
                       "%{customdata[3]}<extra>click to set the sliders</extra>")))
    if current is not None:
        cx, cy = f"{current.get(L.x, np.nan):g}", f"{current.get(L.y, np.nan):g}"
        if cx in xs and cy in ys:
            fig.add_trace(go.Scatter(x=[cx], y=[cy], mode="markers", hoverinfo="skip",
                                     marker={"symbol": "square-open", "size": 38,
                                             "color": COLORS["target"],
                                             "line": {"width": 3}},
                                     name="current parameters", showlegend=True))
    if best is not None:
        bi, bj = best
        fig.add_trace(go.Scatter(x=[xs[bj]], y=[ys[bi]], mode="markers", hoverinfo="skip",
                                 marker={"symbol": "diamond-open", "size": 34,
                                         "color": "#ff7f0e", "line": {"width": 3}},
                                 name="best (least score)", showlegend=True))
    # the margins hold the tick values and the axis titles on the first draw (plotly's
    # automatic margins run after it, late on a busy machine)
    font = 12
    left = math.ceil(max(text_px(y, font) for y in ys)) + 34
    fig.update_layout(
        height=460, margin={"l": left, "r": 10, "t": 40, "b": 56},
        xaxis={"title": SYMBOL[L.x], "type": "category"},
        yaxis={"title": SYMBOL[L.y], "type": "category"},
        legend={"orientation": "h", "y": 1.08}, clickmode="event+select")
    return fig
