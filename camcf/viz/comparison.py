"""Plotly figures of a method comparison: critical-difference diagrams, the paper's normalised
radar, per-split ranks. They take plain numbers and tables from :mod:`camcf.evaluation` and
:mod:`camcf.stats` (no Streamlit here).

* :func:`cd_diagram` — average ranks on one axis, best to the right (as the paper's figure).
  With a ``control`` (Bonferroni–Dunn): the band of ± CD around the control's rank; methods
  outside it differ significantly from the control (drawn hollow). Without one (Nemenyi): a
  thick bar joins every maximal group of methods whose ranks differ by at most CD.
* :func:`normalised_radar` — per metric, each method's value relative to the best method:
  v / max(v) for a higher-is-better metric, min(v) / v for a loss, so the best method is 1 on
  every axis and the area shows how close a method comes to the best everywhere.
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np
import pandas as pd
import plotly.graph_objects as go

from ..evaluation.metrics import METRICS

__all__ = ["cd_diagram", "mean_ranks", "normalised_radar", "normalised_scores", "polar_layout",
           "split_ranks_heatmap"]

_CONTROL_COLOR = "#1f4e9c"
_OTHER_COLOR = "#6b7280"
_SIG_COLOR = "#c2410c"


def _cliques(ranks: list[float], cd: float) -> list[tuple[int, int]]:
    """Maximal runs (i, j) of sorted ranks with ranks[j] − ranks[i] ≤ cd (j > i)."""
    out: list[tuple[int, int]] = []
    for i in range(len(ranks)):
        j = i
        while j + 1 < len(ranks) and ranks[j + 1] - ranks[i] <= cd:
            j += 1
        if j > i and not any(a <= i and j <= b for a, b in out):
            out.append((i, j))
    return out


def cd_diagram(average_ranks: Mapping[str, float], cd: float, *, control: str | None = None,
               title: str = "", height: int | None = None) -> go.Figure:
    """A critical-difference diagram.

    Parameters
    ----------
    average_ranks : dict of display name to average rank (1 = best)
    cd : float
        The critical difference (:func:`camcf.stats.critical_difference`).
    control : str, optional
        The method compared with all others (Bonferroni–Dunn); None: all pairs (Nemenyi).
    """
    items = sorted(average_ranks.items(), key=lambda kv: (kv[1], kv[0]))
    names = [n for n, _ in items]
    ranks = [float(r) for _, r in items]
    k = max(len(ranks), 2)
    fig = go.Figure()
    n = len(items)
    levels = [(i % ((n + 1) // 2 or 1)) + 1 for i in range(n)]
    ys = [lv if i < (n + 1) // 2 else -lv for i, lv in enumerate(levels)]
    for name, r, y in zip(names, ranks, ys, strict=True):
        is_control = name == control
        differs = control is not None and not is_control and abs(
            r - average_ranks[control]) > cd
        color = _CONTROL_COLOR if is_control else (_SIG_COLOR if differs else _OTHER_COLOR)
        fig.add_shape(type="line", x0=r, x1=r, y0=0, y1=y, line={"color": color, "width": 1})
        fig.add_trace(go.Scatter(
            x=[r], y=[y], mode="markers+text", text=[f"{name} ({r:.2f})"],
            textposition="middle left" if r < (k + 1) / 2 else "middle right",  # axis reversed
            marker={"size": 11, "color": color,
                    "symbol": "circle-open" if differs else "circle", "line": {"width": 2}},
            hovertemplate=f"{name}: average rank {r:.3f}"
                          + ("<br>differs significantly from " + control if differs else "")
                          + "<extra></extra>",
            showlegend=False))
    top = max(ys + [1]) + 1.2
    if control is not None and control in average_ranks:
        rc = float(average_ranks[control])
        fig.add_shape(type="rect", x0=max(1, rc - cd), x1=min(k, rc + cd), y0=-0.35, y1=0.35,
                      fillcolor=_CONTROL_COLOR, opacity=0.18, line={"width": 0})
        note = f"band: {control} ± CD; outside (hollow, orange) = significantly different"
    else:
        for c, (a, b) in enumerate(_cliques(ranks, cd)):
            yb = -0.3 - 0.3 * (c % 3)
            fig.add_shape(type="line", x0=ranks[a] - 0.03, x1=ranks[b] + 0.03, y0=yb, y1=yb,
                          line={"color": "black", "width": 5})
        note = "bars join methods that do not differ significantly"
    fig.add_shape(type="line", x0=1, x1=1 + cd, y0=top, y1=top,
                  line={"color": "black", "width": 3})
    fig.add_annotation(x=1 + cd / 2, y=top, text=f"CD = {cd:.3f}", showarrow=False, yshift=12)
    fig.update_xaxes(range=[k + 0.3, 0.7], dtick=1, title="average rank (best on the right)",
                     showgrid=False, zeroline=False)
    fig.update_yaxes(visible=False, range=[-top, top + 0.8])
    fig.update_layout(title=(title + " — " if title else "") + note, height=height or
                      200 + 28 * n, margin={"t": 60, "b": 40, "l": 20, "r": 20},
                      plot_bgcolor="white", title_font_size=13)
    return fig


def normalised_scores(means: pd.DataFrame) -> pd.DataFrame:
    """``means``: methods × metric keys (a metric's mean per method). Per metric the value
    relative to the best method (best = 1): v / max v, or min v / v for a loss. NaN stays."""
    out = pd.DataFrame(index=means.index)
    for metric in [m for m in METRICS if m in means.columns]:
        v = means[metric].astype(float)
        if METRICS[metric]["higher_is_better"]:
            best = v.max()
            out[metric] = v / best if best > 0 else np.nan
        else:
            best = v.min()
            out[metric] = np.where(v > 0, best / v, np.where(v == 0, 1.0, np.nan))
    return out


def polar_layout(n_axes: int, *, r_range=(0.0, 1.0), tick_step: float = 0.2) -> dict:
    """The polar layout of the radars: the radial axis from ``r_range[0]`` (0: areas compare
    honestly) to ``r_range[1]``, its ticks drawn along a line half-way between two metric axes
    (so that they never run into a metric's name), small tick labels, the first metric at the
    top and the others clockwise."""
    step = 360.0 / max(n_axes, 1)
    return {"radialaxis": {"range": list(r_range), "angle": 90 - step / 2,
                           "tickangle": 90 - step / 2, "tickfont": {"size": 10},
                           "dtick": tick_step, "showline": False},
            "angularaxis": {"rotation": 90, "direction": "clockwise",
                            "tickfont": {"size": 12}}}


def normalised_radar(means: pd.DataFrame, *, highlight: str | None = None,
                     title: str = "") -> go.Figure:
    """The paper's radar: one closed trace per method on :func:`normalised_scores`;
    ``highlight`` (a row of ``means``) is drawn bold. The radial axis starts at 0, so that the
    areas are comparable (the hover gives every value)."""
    norm = normalised_scores(means)
    theta = [METRICS[m]["short"] for m in norm.columns]
    fig = go.Figure()
    for method, row in norm.iterrows():
        r = row.to_list()
        bold = method == highlight
        fig.add_trace(go.Scatterpolar(
            r=r + r[:1], theta=theta + theta[:1], name=str(method),
            line={"width": 4 if bold else 1.5, "color": _CONTROL_COLOR if bold else None},
            hovertemplate="%{theta}: %{r:.3f} of the best<extra>" + str(method) + "</extra>"))
    fig.update_layout(polar=polar_layout(len(theta)), height=480,
                      margin={"t": 60, "b": 40, "l": 60, "r": 60},
                      title=title or "Relative to the best method per metric (best = 1)",
                      legend={"orientation": "h", "y": -0.08, "yanchor": "top"},
                      title_font_size=13)
    return fig


def split_ranks_heatmap(ranks: pd.DataFrame, title: str = "") -> go.Figure:
    """Splits × methods ranks (1 = best) as a heatmap with the rank in each cell. At least
    300 px tall, so that the colour bar is readable with a single split."""
    fig = go.Figure(go.Heatmap(
        z=ranks.to_numpy(), x=[str(c) for c in ranks.columns],
        y=[f"split {int(i) + 1}" for i in ranks.index], text=ranks.to_numpy(),
        texttemplate="%{text:.1f}", colorscale="Viridis_r",
        colorbar={"title": {"text": "rank", "side": "right"}, "thickness": 14},
        hovertemplate="%{y}, %{x}: rank %{z:.1f}<extra></extra>"))
    fig.update_layout(title=title, height=max(300, 160 + 28 * len(ranks)),
                      margin={"t": 50, "b": 40}, title_font_size=13)
    fig.update_yaxes(autorange="reversed")
    fig.update_xaxes(tickangle=-30 if len(ranks.columns) > 5 else 0)
    return fig


def mean_ranks(ranks: pd.DataFrame) -> pd.DataFrame:
    """The mean rank of every method over the splits (best first), as a table with the
    columns ``method`` and ``mean rank``."""
    m = ranks.mean(axis=0).sort_values(kind="stable")
    return pd.DataFrame({"method": [str(i) for i in m.index], "mean rank": m.to_numpy()})
