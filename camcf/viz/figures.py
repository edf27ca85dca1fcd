"""Plotly figures of a Result: flow Sankey, skeleton heatmap, MI ranks, recovery competition,
pruning scatter. Colours come from :mod:`camcf.viz.style`."""

from __future__ import annotations

import numpy as np
import plotly.graph_objects as go

from .style import COLORS, FATE_COLORS, FONT
from .summary import flow_counts, flow_row, pruning_frame, recovery_frame

_LAYOUT = dict(font=dict(family=FONT, size=13), margin=dict(l=10, r=10, t=50, b=10),
               paper_bgcolor="white", plot_bgcolor="white")

# Sankey stages: node label, colour key
_STAGES = [
    ("candidates (s > δ1)", "removed"),  # 0
    ("cut by k1", "removed"),  # 1
    ("kept by k1", "pc"),  # 2
    ("removed (backward)", "removed"),  # 3
    ("PC", "pc"),  # 4
    ("spouses", "spouse"),  # 5
    ("recovered", "recovered"),  # 6
    ("CMB", "pc"),  # 7
    ("cut by k2", "pruned"),  # 8
    ("symmetry", "pruned"),  # 9
    ("redundancy", "pruned"),  # 10
    ("blanket", "tp"),  # 11
]


def flow_sankey(result, target=None, *, height: int = 360) -> go.Figure:
    """Candidates → PC → + spouses → + recovered → − k2 cut → − symmetry → − redundancy →
    blanket, for one target (id or name) or summed over all categories (``target=None``)."""
    if target is None:
        r = flow_counts(result).loc["overall"]
        title = "All categories (feature–category pairs)"
    else:
        t = result.target(target)
        r = flow_row(t)
        title = f"Target {t.category.display}"
    links = [  # (source, target, value)
        (0, 1, r["cut by k1"]), (0, 2, r["kept by k1"]),
        (2, 3, r["removed (backward)"]), (2, 4, r["PC"]),
        (4, 7, r["PC"]), (5, 7, r["spouses"]), (6, 7, r["recovered"]),
        (7, 8, r["cut by k2"]), (7, 9, r["symmetry"]), (7, 10, r["redundancy"]),
        (7, 11, r["blanket"]),
    ]
    links = [lk for lk in links if lk[2] > 0]
    counts = {0: r["candidates"], 1: r["cut by k1"], 2: r["kept by k1"],
              3: r["removed (backward)"], 4: r["PC"], 5: r["spouses"], 6: r["recovered"],
              7: r["CMB"], 8: r["cut by k2"], 9: r["symmetry"], 10: r["redundancy"],
              11: r["blanket"]}
    labels = [f"{name}: {int(counts[i])}" for i, (name, _) in enumerate(_STAGES)]
    colors = [COLORS[c] for _, c in _STAGES]
    fig = go.Figure(go.Sankey(
        arrangement="snap",
        node=dict(label=labels, color=colors, pad=18, thickness=16,
                  line=dict(color="#555", width=0.5)),
        link=dict(source=[a for a, _, _ in links], target=[b for _, b, _ in links],
                  value=[int(v) for _, _, v in links],
                  color=["rgba(120,120,120,0.25)"] * len(links)),
    ))
    fig.update_layout(title=dict(text=title, x=0, font=dict(size=14)), height=height, **_LAYOUT)
    if not links:
        fig.add_annotation(text="no feature passed δ1 for this category", showarrow=False,
                           x=0.5, y=0.5, xref="paper", yref="paper")
    return fig


def flow_bars(result, *, height: int = 320) -> go.Figure:
    """Per category: PC, spouses, recovered (stacked up) and the Phase-4 removals (down)."""
    df = flow_counts(result, overall=False)
    df = df[~df["skipped"]]
    x = list(df.index)
    fig = go.Figure()
    for col, key in (("PC", "pc"), ("spouses", "spouse"), ("recovered", "recovered")):
        fig.add_bar(x=x, y=df[col], name=col, marker_color=COLORS[key])
    for col, color in (("cut by k2", "#7F7F7F"), ("symmetry", COLORS["pruned"]),
                       ("redundancy", COLORS["extra"])):
        fig.add_bar(x=x, y=-df[col], name=f"− {col}", marker_color=color)
    fig.add_scatter(x=x, y=df["blanket"], mode="markers", name="blanket",
                    marker=dict(symbol="diamond", size=11, color=COLORS["tp"],
                                line=dict(color="#222", width=1)))
    fig.update_layout(barmode="relative", height=height, yaxis_title="features",
                      legend=dict(orientation="h", y=-0.25), **_LAYOUT)
    return fig


def skeleton_heatmap(result, *, highlight=None, height: int | None = None) -> go.Figure:
    """Category × category DCSMI, I(C_a; C_b) in bits; δ2 marked on the colour bar."""
    names = [c.display for c in result.categories]
    z = np.array(result.category_mi, dtype=float)
    same = np.array([[a.label_index == b.label_index for b in result.categories]
                     for a in result.categories])
    zshow = np.where(same, np.nan, z)
    d2 = result.params["delta2"]
    text = np.where(same, "same label", np.vectorize(lambda v: f"{v:.3f}")(z))
    fig = go.Figure(go.Heatmap(
        z=zshow, x=names, y=names, colorscale="Purples", zmin=0,
        colorbar=dict(title="bits"), text=text, hovertemplate="I(%{y}; %{x}) = %{text}"
        "<extra></extra>", xgap=1, ygap=1))
    rows, cols = np.nonzero((z > d2) & ~same)
    if rows.size and rows.size <= 400:
        fig.add_scatter(x=[names[c] for c in cols], y=[names[r] for r in rows], mode="markers",
                        marker=dict(symbol="circle-open", size=9, color=COLORS["target"]),
                        name=f"> δ2 = {d2:g}", hoverinfo="skip")
    k = len(names)
    fig.update_layout(height=height or min(900, 160 + 26 * k), yaxis=dict(autorange="reversed"),
                      title=dict(text=f"DCSMI between categories (ringed: > δ2 = {d2:g})", x=0,
                                 font=dict(size=14)),
                      legend=dict(orientation="h", y=1.02, x=1, xanchor="right"), **_LAYOUT)
    return fig


def mi_ranks(result, target, *, height: int = 340) -> go.Figure:
    """s_f = I(X_f; t) for every feature, sorted (descending); δ1 line and the k1 cut."""
    t = result.target(target)
    s = result.mi_table[:, t.id]
    order = np.argsort(-np.round(s, 12), kind="stable")
    kept, cand = set(t.candidates), set(t.candidates_all)
    fate = np.array(["kept" if f in kept else "cut-k1" if f in cand else "below-delta1"
                     for f in order])
    names = np.array(result.feature_names, dtype=object)[order]
    fig = go.Figure()
    for key, label in (("kept", "kept (PC candidate)"), ("cut-k1", "cut by k1"),
                       ("below-delta1", "s ≤ δ1")):
        idx = np.nonzero(fate == key)[0]
        if idx.size:
            fig.add_bar(x=idx + 1, y=s[order][idx], name=label, marker_color=FATE_COLORS[key],
                        customdata=names[idx], hovertemplate="%{customdata}: s = %{y:.4f} bits"
                        "<extra></extra>")
    d1 = result.params["delta1"]
    fig.add_hline(y=d1, line=dict(color=COLORS["target"], dash="dash"),
                  annotation_text=f"δ1 = {d1:g}", annotation_position="top right")
    if t.candidates:
        fig.add_vline(x=len(t.candidates) + 0.5, line=dict(color="#333", dash="dot"),
                      annotation_text=f"k1 cut: {len(t.candidates)} of {len(t.candidates_all)}",
                      annotation_position="top right")
    fig.update_layout(height=height, bargap=0.05, xaxis_title="rank of s_f",
                      yaxis_title="I(X_f; t) (bits)", legend=dict(orientation="h", y=-0.22),
                      title=dict(text=f"MI with {t.category.display}", x=0, font=dict(size=14)),
                      **_LAYOUT)
    return fig


def competition(result, target, *, height: int = 320) -> go.Figure:
    """Phase 3: for each tried (feature, blocker), the feature's SCSMI vs the blocker's DCSMI,
    both given S_base."""
    df = recovery_frame(result, target)
    fig = go.Figure()
    if df.empty:
        fig.add_annotation(text="no recovery competition for this category", showarrow=False,
                           x=0.5, y=0.5, xref="paper", yref="paper")
        fig.update_layout(height=160, **_LAYOUT)
        return fig
    x = [f"{f} vs {b}" for f, b in zip(df["feature"], df["blocker"], strict=True)]
    fig.add_bar(x=x, y=df["I(f; t | S_base)"], name="feature: I(f; t | S_base)",
                marker_color=[FATE_COLORS["recovered"] if d == "recovered" else
                              COLORS["removed"] for d in df["decision"]],
                marker_line=dict(color=COLORS["recovered"], width=1))
    fig.add_bar(x=x, y=df["I(blocker; t | S_base)"], name="blocker: I(r; t | S_base)",
                marker_color=COLORS["label-category"])
    fig.update_layout(barmode="group", height=height, yaxis_title="bits",
                      bargap=0.2 if len(x) > 4 else 0.6, legend=dict(orientation="h", y=-0.2),
                      **_LAYOUT)
    return fig


def pruning_scatter(result, target, *, height: int = 420) -> go.Figure:
    """Phase 4: every CMB feature at (s_f, best I(X_f; C_d) over other labels' categories),
    coloured by its fate; the δ1 line and the redundancy line y = γ·x. Point customdata =
    feature index (for click-to-explain)."""
    t = result.target(target)
    df = pruning_frame(result, t.id)
    fig = go.Figure()
    for fate, label in (("blanket", "in the blanket"), ("cut-k2", "cut by k2"),
                        ("symmetry", "removed: symmetry"), ("redundancy", "removed: redundancy")):
        sub = df[df["fate"] == fate]
        if sub.empty:
            continue
        fig.add_scatter(
            x=sub["s_f"], y=sub["best other I"], mode="markers+text", name=label,
            text=sub["feature"], textposition="top center",
            customdata=np.column_stack([sub["feature_index"], sub["explaining category"]]),
            marker=dict(size=14, color=FATE_COLORS[fate], line=dict(color="#333", width=1)),
            hovertemplate="%{text}<br>s_f = %{x:.4f} bits<br>max I(f; C_d) = %{y:.4f} bits"
                          "<extra></extra>")
    d1, g = result.params["delta1"], result.params["gamma"]
    top = float(max([df["s_f"].max(), df["best other I"].max(), d1 * 2]
                    if not df.empty else [d1 * 2])) * 1.15
    fig.add_scatter(x=[0, top / g], y=[0, top], mode="lines", name=f"y = γ·s_f (γ = {g:g})",
                    line=dict(color=COLORS["extra"], dash="dash"), hoverinfo="skip")
    fig.add_vline(x=d1, line=dict(color=COLORS["target"], dash="dot"),
                  annotation_text=f"δ1 = {d1:g}", annotation_position="bottom right")
    fig.update_layout(height=height, xaxis=dict(title="s_f = I(X_f; t) (bits)", range=[0, top]),
                      yaxis=dict(title="max I(X_f; C_d), other labels (bits)",
                                 range=[0, top]),
                      legend=dict(orientation="h", y=-0.18), clickmode="event+select",
                      title=dict(text=f"Phase 4 for {t.category.display} — click a feature",
                                 x=0, font=dict(size=14)), **_LAYOUT)
    return fig


def skeleton_steps(result, target, *, height: int = 300) -> go.Figure:
    """Phase 1 for one target: each candidate's MI and its conditional MI when tested, vs δ2."""
    df = result.to_frame(target)
    cand = df[(df["step"] == "label-mi") & (df["decision"] == "candidate")]
    cmi = df[df["step"] == "label-cmi"]
    fig = go.Figure()
    if not cand.empty:
        fig.add_bar(x=cand["b_name"], y=cand["value"], name="I(t; C')",
                    marker_color=COLORS["removed"], marker_line=dict(color="#777", width=1))
    if not cmi.empty:
        fig.add_bar(x=cmi["b_name"], y=cmi["value"], name="I(t; C' | accepted) when tested",
                    marker_color=[COLORS["label-category"] if d == "accepted" else
                                  COLORS["pruned"] for d in cmi["decision"]])
    d2 = result.params["delta2"]
    fig.add_hline(y=d2, line=dict(color=COLORS["target"], dash="dash"),
                  annotation_text=f"δ2 = {d2:g}")
    fig.update_layout(barmode="group", height=height, yaxis_title="bits",
                      legend=dict(orientation="h", y=-0.2), **_LAYOUT)
    return fig


def to_standalone_html(fig: go.Figure) -> str:
    """A figure as a complete HTML page with plotly.js inlined (works offline)."""
    return fig.to_html(include_plotlyjs=True, full_html=True)
