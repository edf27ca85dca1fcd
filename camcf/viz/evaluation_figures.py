"""Plotly figures of the Evaluation page: metrics radar, ablation by phase, sensitivity heatmap.

They take the tidy frames of :mod:`camcf.evaluation` (no Streamlit here).
"""

from __future__ import annotations

import pandas as pd
import plotly.express as px
import plotly.graph_objects as go

from ..evaluation.metrics import METRICS
from .comparison import polar_layout


def metrics_radar(by: pd.DataFrame, sets: list[str], set_names: dict[str, str]) -> go.Figure:
    """One closed trace per feature set; ``by`` is a summary indexed by (feature_set, metric).

    Losses are drawn as 1 − value so that a larger area is better everywhere (as the paper).
    """
    fig = go.Figure()
    names = [info["short"] for info in METRICS.values()]
    for s in sets:
        values = [by.loc[(s, m), "mean"] for m in METRICS]
        drawn = [v if info["higher_is_better"] else 1 - v
                 for v, info in zip(values, METRICS.values(), strict=True)]
        fig.add_trace(go.Scatterpolar(r=drawn + drawn[:1], theta=names + names[:1],
                                      name=set_names[s], fill="toself", opacity=0.6))
    fig.update_layout(polar=polar_layout(len(names)), height=460,
                      margin={"t": 40, "b": 40, "l": 60, "r": 60},
                      legend={"orientation": "h", "y": -0.08, "yanchor": "top"})
    return fig


def ablation_lines(ab: pd.DataFrame, stages: list[str]) -> go.Figure:
    """Mean ± SD of every metric per stage (columns ``stage``, ``mean``, ``sd``,
    ``metric name``, ``n_features``), one small panel a metric."""
    fig = px.line(ab, x="stage", y="mean", error_y="sd", facet_col="metric name",
                  facet_col_wrap=3, markers=True,
                  # each panel has its own y scale and tick labels: room for them between
                  # the panels (four a row, at plotly's default spacing, they ran into the
                  # panel before, and wider gaps left the stage names no room)
                  facet_col_spacing=0.07, facet_row_spacing=0.09,
                  category_orders={"stage": stages,
                                   "metric name": [i["name"] for i in METRICS.values()]},
                  hover_data={"n_features": ":.1f"}, height=780)
    fig.update_yaxes(matches=None, showticklabels=True)
    fig.for_each_annotation(lambda a: a.update(text=a.text.split("=")[-1]))
    fig.update_xaxes(title=None, showticklabels=True)  # (a panel with none below it too)
    return fig


def sensitivity_heatmap(mat: pd.DataFrame, name: str, title: str, row_param: str,
                        col_param: str, *, higher_is_better: bool, is_metric: bool
                        ) -> go.Figure:
    """A grid of values (rows: ``row_param`` values, columns: ``col_param`` values)."""
    fig = px.imshow(mat.to_numpy(), x=[f"{v:g}" for v in mat.columns],
                    y=[f"{v:g}" for v in mat.index], text_auto=".3f" if is_metric else ".1f",
                    aspect="auto",
                    color_continuous_scale="Viridis" if (higher_is_better or not is_metric)
                    else "Viridis_r",
                    labels={"x": col_param, "y": row_param, "color": title})
    fig.update_layout(title=f"{name}: {title}", height=380, margin={"t": 50})
    # the tick labels are numbers: keep every grid value one equal cell
    fig.update_xaxes(type="category")
    fig.update_yaxes(type="category")
    return fig
