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


def flow_bars(result, *, height: int = 320, max_categories: int = 60) -> go.Figure:
    """Per category: PC, spouses, recovered (stacked up) and the Phase-4 removals (down).
    With more than ``max_categories`` categories, those with the largest blankets (then CMB)
    are drawn and the title says how many are left out."""
    df = flow_counts(result, overall=False)
    df = df[~df["skipped"]]
    n_all = len(df)
    title = None
    if n_all > max_categories:
        df = df.sort_values(["blanket", "CMB"], ascending=False, kind="stable").iloc[
            :max_categories]
        title = dict(text=f"The {max_categories} categories with the largest blankets "
                          f"(of {n_all:,})", x=0, font=dict(size=13))
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
                      legend=dict(orientation="h", y=-0.25), title=title, **_LAYOUT)
    return fig


#: the heatmap draws at most this many rows/columns; larger label spaces are aggregated
HEATMAP_MAX_SIDE = 120


def seriate(matrix) -> np.ndarray:
    """An order of the rows of a symmetric similarity matrix that puts similar rows together:
    the leaves of an average-linkage hierarchical clustering (``scipy.cluster.hierarchy``) of
    the rows. Deterministic (ties keep the input order). Returns a permutation of
    ``range(len(matrix))``."""
    from scipy.cluster.hierarchy import leaves_list

    a = np.nan_to_num(np.asarray(matrix, dtype=float))
    k = a.shape[0]
    if k < 3:
        return np.arange(k)
    return leaves_list(_linkage(a)).astype(int)


def _linkage(a: np.ndarray) -> np.ndarray:
    """Average-linkage clustering of the rows of ``a`` (Euclidean distances between rows,
    computed with one matrix product)."""
    from scipy.cluster.hierarchy import linkage
    from scipy.spatial.distance import squareform

    sq = np.einsum("ij,ij->i", a, a)
    d2 = np.maximum(sq[:, None] + sq[None, :] - 2.0 * (a @ a.T), 0.0)
    d = np.sqrt(d2)
    np.fill_diagonal(d, 0.0)
    d = np.round((d + d.T) / 2, 12)  # exactly symmetric, no float noise in the order
    return linkage(squareform(d, checks=False), method="average")


def label_space(result, *, max_side: int = HEATMAP_MAX_SIDE) -> dict:
    """The category × category DCSMI, seriated, and aggregated when it is too large to read.

    Returns ``{"z": (s, s) bits, NaN where only one label is involved, "names": s row names,
    "members": s lists of category ids, "level": "category" | "label" | "cluster",
    "order": category ids in drawing order}``. Up to ``max_side`` categories: one row each.
    Beyond that, one row per label (the largest DCSMI between their categories) when there are
    at most ``max_side`` labels, else ``max_side`` blocks of the clustering (largest DCSMI
    between members of different labels).
    """
    z = np.array(result.category_mi, dtype=float)
    lab = np.array([c.label_index for c in result.categories])
    same = lab[:, None] == lab[None, :]
    zx = np.where(same, 0.0, z)
    k = z.shape[0]
    if k <= max_side:
        order = seriate(zx)
        members = [[int(i)] for i in order]
        names = [result.categories[i].display for i in order]
        level = "category"
    elif len(result.label_names) <= max_side:
        q = len(result.label_names)
        by = np.argsort(lab, kind="stable")
        first = np.searchsorted(lab[by], np.arange(q))
        agg = np.maximum.reduceat(np.maximum.reduceat(zx[np.ix_(by, by)], first, axis=0),
                                  first, axis=1)
        lorder = seriate(agg)
        members = [[int(i) for i in np.flatnonzero(lab == li)] for li in lorder]
        names = [result.label_names[li] for li in lorder]
        level = "label"
    else:
        from scipy.cluster.hierarchy import fcluster, leaves_list

        Z = _linkage(zx)
        cl = fcluster(Z, t=max_side, criterion="maxclust")
        leaves = leaves_list(Z)
        seen: dict[int, list[int]] = {}
        for i in leaves:  # blocks in the order their first member appears among the leaves
            seen.setdefault(int(cl[i]), []).append(int(i))
        members = list(seen.values())
        names = [f"block {b + 1} ({len(mm)})" for b, mm in enumerate(members)]
        level = "cluster"
    perm = np.array([i for mm in members for i in mm], dtype=int)
    starts = np.cumsum([0] + [len(mm) for mm in members[:-1]])
    zp = np.where(same, -np.inf, z)[np.ix_(perm, perm)]
    agg_z = np.maximum.reduceat(np.maximum.reduceat(zp, starts, axis=0), starts, axis=1)
    out = np.where(np.isneginf(agg_z), np.nan, agg_z)
    return {"z": out, "names": names, "members": members, "level": level,
            "order": [i for mm in members for i in mm]}


def _members_text(result, ids, limit: int = 8) -> str:
    shown = ", ".join(result.categories[i].display for i in ids[:limit])
    return shown + (f", … (+{len(ids) - limit})" if len(ids) > limit else "")


def skeleton_heatmap(result, *, highlight=None, height: int | None = None,
                     max_side: int = HEATMAP_MAX_SIDE, space: dict | None = None) -> go.Figure:
    """The whole label space: DCSMI I(C_a; C_b) in bits between the categories of different
    labels, rows and columns seriated by hierarchical clustering; aggregated by label or by
    cluster blocks (largest DCSMI inside a cell) beyond ``max_side`` categories. Names and
    members on hover; plotly's zoom works on it. ``highlight``: a target whose row and column
    are outlined. At most ``max_side`` × ``max_side`` cells whatever the number of categories.
    ``space``: the output of :func:`label_space` when the caller already has it."""
    sp = space if space is not None else label_space(result, max_side=max_side)
    z, names, members, level = sp["z"], sp["names"], sp["members"], sp["level"]
    s = len(names)
    d2 = result.params["delta2"]
    if level == "category":
        full = list(names)
    else:
        full = [f"{nm}: {_members_text(result, mm)}" for nm, mm in
                zip(names, members, strict=True)]
    fig = go.Figure(go.Heatmap(
        z=z, x=full, y=full, colorscale="Purples", zmin=0, colorbar=dict(title="bits"),
        hovertemplate="%{y}<br>%{x}<br>I = %{z:.3f} bits<extra></extra>", hoverongaps=False,
        xgap=1 if s <= 60 else 0, ygap=1 if s <= 60 else 0))
    ticks = s <= 60
    axis = dict(tickmode="array", tickvals=full if ticks else [],
                ticktext=names if ticks else [], showgrid=False, zeroline=False,
                type="category")
    if highlight is not None:
        t = result.target(highlight)
        row = next(a for a, mm in enumerate(members) if t.category.id in mm)
        for kw in (dict(x0=-0.5, x1=s - 0.5, y0=row - 0.5, y1=row + 0.5),
                   dict(x0=row - 0.5, x1=row + 0.5, y0=-0.5, y1=s - 0.5)):
            fig.add_shape(type="rect", line=dict(color=COLORS["target"], width=2), **kw)
    what = {"category": f"{s} categories", "label": f"{len(result.categories)} categories "
            f"aggregated by label ({s} labels, largest DCSMI)",
            "cluster": f"{len(result.categories)} categories in {s} cluster blocks "
            f"(largest DCSMI)"}[level]
    fig.update_layout(
        height=height or int(min(720, max(360, 200 + 12 * s))),
        xaxis=dict(**axis, constrain="domain"),
        yaxis=dict(**axis, autorange="reversed", scaleanchor="x"),
        title=dict(text=f"DCSMI, seriated: {what}; δ2 = {d2:g}", x=0, font=dict(size=14)),
        **_LAYOUT)
    return fig


#: the MI chart draws at most about this many bars; the rest is summarised
MI_MAX_BARS = 80


def mi_window(n: int, n_kept: int, n_above: int, max_bars: int = MI_MAX_BARS) -> list[int]:
    """0-based ranks the MI chart draws out of ``n`` sorted features: all of them when
    ``n ≤ max_bars``, else the top ranks, the ranks around the k1 cut (after ``n_kept``) and
    around the δ1 line (after ``n_above``), about ``max_bars`` in all, sorted."""
    if n <= max_bars:
        return list(range(n))
    w = max(4, max_bars // 6)
    keep: set[int] = set(range(min(n, max_bars // 3)))
    for edge in (n_kept, n_above):
        keep.update(range(max(0, edge - w), min(n, edge + w)))
    if n_above + w < max_bars:  # everything interesting fits: one block from the top
        keep.update(range(min(n, max_bars - w)))
    return sorted(keep)


def mi_ranks(result, target, *, height: int = 340, max_bars: int = MI_MAX_BARS) -> go.Figure:
    """s_f = I(X_f; t) for the features, sorted (descending), with the δ1 line and the k1 cut.

    With many features only the top ranks and the ranks around the k1 cut and the δ1 line are
    drawn (see :func:`mi_window`); the gaps are marked and the features below the window are
    summarised in a note. At most about ``max_bars`` bars whatever the number of features."""
    t = result.target(target)
    s = result.mi_table[:, t.id]
    n = s.size
    order = np.argsort(-np.round(s, 12), kind="stable")
    kept, cand = set(t.candidates), set(t.candidates_all)
    n_kept, n_above = len(t.candidates), len(t.candidates_all)
    ranks = np.array(mi_window(n, n_kept, n_above, max_bars), dtype=int)
    feats = order[ranks]
    fate = np.array(["kept" if f in kept else "cut-k1" if f in cand else "below-delta1"
                     for f in feats])
    names = np.array(result.feature_names, dtype=object)[feats]
    pos = np.arange(ranks.size)
    vals = s[feats]
    fig = go.Figure()
    for key, label in (("kept", "kept (PC candidate)"), ("cut-k1", "cut by k1"),
                       ("below-delta1", "s ≤ δ1")):
        idx = np.nonzero(fate == key)[0]
        if idx.size:
            fig.add_bar(x=pos[idx], y=vals[idx], name=label, marker_color=FATE_COLORS[key],
                        customdata=np.column_stack([names[idx], ranks[idx] + 1]),
                        hovertemplate="%{customdata[0]} (rank %{customdata[1]}): "
                                      "s = %{y:.4f} bits<extra></extra>")
    d1 = result.params["delta1"]
    fig.add_hline(y=d1, line=dict(color=COLORS["target"], dash="dash"),
                  annotation_text=f"δ1 = {d1:g}", annotation_position="top right")
    if n_kept:
        x = int(np.searchsorted(ranks, n_kept)) - 0.5
        fig.add_vline(x=x, line=dict(color="#333", dash="dot"),
                      annotation_text=f"k1 cut: {n_kept} of {n_above}",
                      annotation_position="top right")
    gaps = np.nonzero(np.diff(ranks) > 1)[0]
    for gi in gaps:
        skipped = int(ranks[gi + 1] - ranks[gi] - 1)
        fig.add_vline(x=gi + 0.5, line=dict(color="#999", width=1, dash="longdash"))
        fig.add_annotation(x=gi + 0.5, y=1.0, yref="paper", showarrow=False, yanchor="bottom",
                           text=f"⋯ {skipped:,} ⋯", font=dict(size=11, color="#666"))
    rest = n - 1 - int(ranks[-1]) if ranks.size else n
    note = ""
    if rest > 0:
        below = s[order[ranks[-1] + 1:]]
        note = (f"; {rest:,} more below (all ≤ δ1, max s = {below.max():.4f} bits)"
                if not (below > d1).any() else f"; {rest:,} more ranks not drawn")
    ticks = pos[:: max(1, ranks.size // 12)]
    fig.update_layout(
        height=height, bargap=0.05,
        xaxis=dict(title="rank of s_f" + (" (gaps marked ⋯)" if gaps.size else ""),
                   tickmode="array", tickvals=ticks, ticktext=[str(r + 1) for r in ranks[ticks]]),
        yaxis_title="I(X_f; t) (bits)", legend=dict(orientation="h", y=-0.22),
        title=dict(text=f"MI with {t.category.display}: {n:,} features, {n_above:,} above δ1"
                        f"{note}", x=0, font=dict(size=13)),
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
    n_all = len(df)
    if n_all > 40:  # the winners first, then the closest losers
        df = df.assign(_gap=df["I(f; t | S_base)"] - df["I(blocker; t | S_base)"]).sort_values(
            ["decision", "_gap"], ascending=[False, False], key=lambda c: c.eq("recovered")
            if c.name == "decision" else c, kind="stable").iloc[:40]
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
            x=sub["s_f"], y=sub["best other I"],
            mode="markers+text" if len(df) <= 40 else "markers", name=label,
            text=sub["feature"], textposition="top center",
            customdata=np.column_stack([sub["feature_index"], sub["explaining category"]]),
            marker=dict(size=14 if len(df) <= 40 else 8, color=FATE_COLORS[fate],
                        line=dict(color="#333", width=1)),
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


def skeleton_steps(result, target, *, height: int = 300, max_bars: int = 40) -> go.Figure:
    """Phase 1 for one target: each candidate's MI and its conditional MI when tested, vs δ2.
    The ``max_bars`` strongest candidates are drawn; the title says how many more there are."""
    df = result.to_frame(target)
    cand = df[(df["step"] == "label-mi") & (df["decision"] == "candidate")]
    cand = cand.sort_values("value", ascending=False, kind="stable")
    n_cand = len(cand)
    cand = cand.iloc[:max_bars]
    cmi = df[df["step"] == "label-cmi"]
    cmi = cmi[cmi["b_name"].isin(set(cand["b_name"]))]
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
    more = (f"; the {max_bars} strongest of {n_cand:,} candidates shown"
            if n_cand > max_bars else "")
    fig.update_layout(barmode="group", height=height, yaxis_title="bits",
                      title=dict(text=f"Candidates and greedy tests{more}", x=0,
                                 font=dict(size=13)),
                      legend=dict(orientation="h", y=-0.2), **_LAYOUT)
    return fig


def to_standalone_html(fig: go.Figure) -> str:
    """A figure as a complete HTML page with plotly.js inlined (works offline)."""
    return fig.to_html(include_plotlyjs=True, full_html=True)
