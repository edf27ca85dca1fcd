"""Plotly figures of a Result: flow Sankey, skeleton heatmap, MI ranks, recovery competition,
pruning scatter. Colours come from :mod:`camcf.viz.style`."""

from __future__ import annotations

import math

import numpy as np
import plotly.graph_objects as go

from .explain import bits_values, number, plural
from .style import COLORS, FATE_COLORS, FONT, text_px
from .summary import flow_counts, flow_row, pruning_frame, recovery_frame, s_f_p

#: the left margin holds the y axis title and its tick labels whether or not plotly's automatic
#: margins have run yet (they run after the first draw, late on a busy machine)
_LAYOUT = dict(font=dict(family=FONT, size=13), margin=dict(l=70, r=10, t=50, b=10),
               paper_bgcolor="white", plot_bgcolor="white")
_NO_AXES = {**_LAYOUT, "margin": dict(l=10, r=10, t=50, b=10)}

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


#: the plot width (pixels) the per-category bars get at the narrowest usual window
BARS_PX = 700

#: a Sankey link is drawn at least this share of the largest flow thick (the counts shown are
#: the real ones), so that a handful of recovered features next to a hundred thousand
#: candidates stays visible
SANKEY_MIN_SHARE = 0.04


def flow_sankey(result, target=None, *, height: int = 380) -> go.Figure:
    """Candidates → PC → + spouses → + recovered → − k2 cut → − symmetry → − redundancy →
    blanket, for one target (id or name) or summed over all categories (``target=None``).
    See :func:`flow_sankey_counts`; a skipped target (or a run where every category was
    skipped) gets a message instead."""
    d1 = result.params["delta1"]
    if target is None:
        ran = [x for x in result.targets if not x.skipped]
        title, where = "All categories (feature–category pairs)", "any category"
        if not ran:
            return message_figure(f"{title}: nothing ran — every category is skipped (fewer "
                                  "positive samples than the minimum category size).")
        r = flow_counts(result).loc["overall"]
    else:
        t = result.target(target)
        title, where = f"Target {t.category.display}", t.category.display
        if t.skipped:
            return message_figure(f"{title}: skipped ({t.skip_reason}).")
        r = flow_row(t)
    return flow_sankey_counts(r, title, delta1=d1, where=where, height=height)


def flow_sankey_counts(r, title: str, *, delta1: float, where: str = "any category",
                       height: int = 380) -> go.Figure:
    """The flow Sankey of one row of counts (:func:`camcf.viz.summary.flow_row` keys).

    Stages with no feature are left out. A link thinner than :data:`SANKEY_MIN_SHARE` of the
    largest is drawn at that thickness (the node names and the hover give the real counts;
    the title says so). When nothing passed δ1 there is no flow: the figure says so instead
    of drawing an empty Sankey."""
    links = [  # (source, target, value)
        (0, 1, r["cut by k1"]), (0, 2, r["kept by k1"]),
        (2, 3, r["removed (backward)"]), (2, 4, r["PC"]),
        (4, 7, r["PC"]), (5, 7, r["spouses"]), (6, 7, r["recovered"]),
        (7, 8, r["cut by k2"]), (7, 9, r["symmetry"]), (7, 10, r["redundancy"]),
        (7, 11, r["blanket"]),
    ]
    links = [(a, b, int(v)) for a, b, v in links if v > 0]
    if not links:
        return message_figure(
            f"{title}: nothing flows through the phases — no feature has s_f > δ1 = "
            f"{delta1:g} for {where}, so there is no PC candidate, spouse or recovered "
            "feature. Lower δ1 in the sidebar to see a flow.")
    counts = {0: r["candidates"], 1: r["cut by k1"], 2: r["kept by k1"],
              3: r["removed (backward)"], 4: r["PC"], 5: r["spouses"], 6: r["recovered"],
              7: r["CMB"], 8: r["cut by k2"], 9: r["symmetry"], 10: r["redundancy"],
              11: r["blanket"]}
    used = sorted({a for a, _, _ in links} | {b for _, b, _ in links})
    at = {k: i for i, k in enumerate(used)}
    floor = SANKEY_MIN_SHARE * max(v for _, _, v in links)
    drawn = [max(float(v), floor) for _, _, v in links]
    raised = any(d > v for d, (_, _, v) in zip(drawn, links, strict=True))
    fig = go.Figure(go.Sankey(
        arrangement="snap",
        node=dict(label=[f"{_STAGES[k][0]}: {int(counts[k]):,}" for k in used],
                  color=[COLORS[_STAGES[k][1]] for k in used], pad=22, thickness=16,
                  line=dict(color="#555", width=0.5),
                  hovertemplate="%{label}<extra></extra>"),
        link=dict(source=[at[a] for a, _, _ in links], target=[at[b] for _, b, _ in links],
                  value=drawn, customdata=[v for _, _, v in links],
                  color=["rgba(120,120,120,0.3)"] * len(links),
                  hovertemplate="%{source.label} → %{target.label}: %{customdata:,} "
                                "<extra></extra>"),
    ))
    if raised:
        title += " — small flows drawn thicker; the numbers are the counts"
    fig.update_layout(title=dict(text=title, x=0, font=dict(size=13)), height=height,
                      **_NO_AXES)
    return fig


def message_figure(text: str, *, height: int = 160) -> go.Figure:
    """A figure that only says ``text`` (wrapped), for a chart with nothing to draw."""
    import textwrap

    fig = go.Figure()
    fig.add_annotation(text="<br>".join(textwrap.wrap(text, 90)), showarrow=False, x=0.5,
                       y=0.5, xref="paper", yref="paper", font=dict(size=13, color="#444"))
    fig.update_layout(height=height, xaxis=dict(visible=False), yaxis=dict(visible=False),
                      **_NO_AXES)
    return fig


def flow_bars(result, *, height: int = 320, max_categories: int = 60) -> go.Figure:
    """Per category: PC, spouses, recovered (stacked up) and the Phase-4 removals (down).
    With more than ``max_categories`` categories, those with the largest blankets (then CMB)
    are drawn and the title says how many are left out."""
    df = flow_counts(result, overall=False)
    df = df[~df["skipped"]]
    n_all = len(df)
    moved = ["PC", "spouses", "recovered", "cut by k2", "symmetry", "redundancy", "blanket"]
    if n_all == 0 or not df[moved].to_numpy().any():
        return message_figure(
            "No category has a feature in PC, a spouse, a recovered feature or a Phase 4 "
            f"removal (δ1 = {result.params['delta1']:g}): nothing to draw per category."
            if n_all else "Every category is skipped: nothing to draw per category.",
            height=140)
    main = "Per category: what entered (up) and what Phase 4 removed (down)"
    sub = ""
    if n_all > max_categories:
        df = df.sort_values(["blanket", "CMB"], ascending=False, kind="stable").iloc[
            :max_categories]
        sub = f"the {max_categories} categories with the largest blankets (of {n_all:,})"
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
    font, step = tick_plan(len(x), side=BARS_PX)
    fig.update_layout(barmode="relative", height=height, yaxis_title="features",
                      xaxis=dict(tickangle=-90, tickfont=dict(size=font), tickmode="array",
                                 tickvals=x[::step], ticktext=x[::step], type="category"),
                      **_legend_on_top(main, sub))
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


def _block_max(z: np.ndarray, members: list[list[int]]) -> np.ndarray:
    """The largest value of ``z`` between the members of every two blocks (−inf: none)."""
    perm = np.array([i for mm in members for i in mm], dtype=int)
    starts = np.cumsum([0] + [len(mm) for mm in members[:-1]])
    return np.maximum.reduceat(np.maximum.reduceat(z[np.ix_(perm, perm)], starts, axis=0),
                               starts, axis=1)


def label_space(result, *, max_side: int = HEATMAP_MAX_SIDE) -> dict:
    """The category × category DCSMI, seriated, and aggregated when it is too large to read.

    Returns ``{"z": (s, s) bits, NaN where only one label is involved, "names": s row names,
    "members": s lists of category ids, "level": "category" | "label" | "cluster",
    "order": category ids in drawing order, "exact": bool}``.

    When every label is binary, the two categories of a label are complements and have the
    same DCSMI with every other category, so one row per label says everything (``exact``).
    Otherwise one row per category. When there are more than ``max_side`` rows: one row per
    label (the largest DCSMI between their categories) when there are at most ``max_side``
    labels, else ``max_side`` blocks of the clustering of the rows (largest DCSMI between
    members of different labels).
    """
    z = bits_values(result.category_mi)  # float noise as 0, as every view shows it
    lab = np.array([c.label_index for c in result.categories])
    same = lab[:, None] == lab[None, :]
    zx = np.where(same, 0.0, z)
    zn = np.where(same, -np.inf, z)
    q = len(result.label_names)
    by_label = [[int(i) for i in np.flatnonzero(lab == li)] for li in range(q)]
    binary = all(len(mm) == 2 for mm in by_label)
    if binary:
        units, unit_names = by_label, list(result.label_names)
    else:
        units = [[int(i)] for i in range(len(result.categories))]
        unit_names = [c.display for c in result.categories]
    level = "label" if binary else "category"
    if len(units) > max_side and not binary and q <= max_side:
        units, unit_names, level = by_label, list(result.label_names), "label"
    if len(units) <= max_side:
        agg = _block_max(zx, units) if level == "label" else zx
        order = seriate(agg)
        members = [units[i] for i in order]
        names = [unit_names[i] for i in order]
    else:
        from scipy.cluster.hierarchy import fcluster, leaves_list

        agg = _block_max(zx, units) if level == "label" else zx
        Z = _linkage(agg)
        cl = fcluster(Z, t=max_side, criterion="maxclust")
        seen: dict[int, list[int]] = {}
        for i in leaves_list(Z):  # blocks in the order their first member appears
            seen.setdefault(int(cl[i]), []).append(int(i))
        members = [[c for u in us for c in units[u]] for us in seen.values()]
        names = [unit_names[us[0]] if len(us) == 1 else
                 f"block {b + 1} ({plural(len(us), 'label' if binary else 'category')})"
                 for b, us in enumerate(seen.values())]
        level = "cluster"
    agg_z = _block_max(zn, members)
    out = np.where(np.isneginf(agg_z), np.nan, agg_z)
    return {"z": out, "names": names, "members": members, "level": level,
            "order": [i for mm in members for i in mm],
            "exact": level == "category" or (binary and level == "label")}


def _members_text(result, ids, limit: int = 8) -> str:
    shown = ", ".join(result.categories[i].display for i in ids[:limit])
    return shown + (f", … (+{len(ids) - limit:,})" if len(ids) > limit else "")


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
    font, step = tick_plan(s)
    shown = list(range(0, s, step))
    axis = dict(tickmode="array", tickvals=[full[i] for i in shown],
                ticktext=[_short(names[i]) for i in shown], tickfont=dict(size=font),
                showgrid=False, zeroline=False, type="category")
    if highlight is not None:
        t = result.target(highlight)
        row = next(a for a, mm in enumerate(members) if t.category.id in mm)
        for kw in (dict(x0=-0.5, x1=s - 0.5, y0=row - 0.5, y1=row + 0.5),
                   dict(x0=row - 0.5, x1=row + 0.5, y0=-0.5, y1=s - 0.5)):
            fig.add_shape(type="rect", line=dict(color=COLORS["target"], width=2), **kw)
    n_cat = len(result.categories)
    what = {"category": plural(s, "category"),
            "label": (f"{plural(s, 'binary label')}, one row each (a label's two categories "
                      f"have the same DCSMI)" if sp.get("exact") else
                      f"{plural(n_cat, 'category')} aggregated by label "
                      f"({plural(s, 'label')}, largest DCSMI)"),
            "cluster": f"{plural(n_cat, 'category')} in {s:,} cluster blocks (largest "
                       "DCSMI)"}[level]
    if step > 1:
        what += f"; every {step}th name shown, hover for all"
    title, top = titled(f"DCSMI between label categories, seriated; δ2 = {d2:g}", what)
    names_px = math.ceil(max(text_px(t, font) for t in axis["ticktext"])) + 12
    # the names are drawn left of the rows and, turned, below the columns: the margins hold
    # them on the first draw (before plotly's automatic margins run)
    margin = dict(_LAYOUT["margin"], t=top, l=max(_LAYOUT["margin"]["l"], names_px),
                  b=names_px)
    fig.update_layout(
        height=height or int(min(760, max(380, 220 + 14 * s))),
        xaxis=dict(**axis, constrain="domain", tickangle=-90),
        yaxis=dict(**axis, autorange="reversed", scaleanchor="x"),
        title=title, **{**_LAYOUT, "margin": margin})
    return fig


def _legend_on_top(main: str, sub: str = "") -> dict:
    """Layout keywords for a chart whose x axis holds names: the title, then the legend in a
    row above the plot (below it, long rotated names would run into it)."""
    title, top = titled(main, sub)
    return dict(title=title, legend=dict(orientation="h", x=0, y=1.0, yanchor="bottom"),
                **{**_LAYOUT, "margin": dict(_LAYOUT["margin"], t=top + 30)})


def titled(main: str, sub: str = "", *, chars: int = 62) -> tuple[dict, int]:
    """A chart title that fits a narrow chart: ``main`` on the first line, ``sub`` below it in
    smaller type, wrapped at ``chars`` characters; returns (plotly title, top margin)."""
    import textwrap

    lines = textwrap.wrap(sub, chars) if sub else []
    text = main + "".join(f"<br><span style='font-size:11px'>{ln}</span>" for ln in lines)
    return dict(text=text, x=0, xanchor="left", font=dict(size=13)), 44 + 15 * len(lines)


#: the side (pixels) of the heatmap's square at the narrowest width the app usually gives it;
#: the tick names are thinned so that they never touch at that size or larger
HEAT_SIDE_PX = 360
#: tick names longer than this are shortened (the full name is in the hover)
TICK_CHARS = 18


def tick_plan(s: int, side: int = HEAT_SIDE_PX) -> tuple[int, int]:
    """(font size, show every ``step``-th name) for ``s`` rows on a ``side``-pixel square:
    the font shrinks with the number of rows down to 9 px, then names are thinned so that
    two shown names are at least 1.25 font heights apart."""
    font = 12 if s <= 16 else 11 if s <= 24 else 10 if s <= 36 else 9
    per = side / max(s, 1)  # pixels per row
    return font, max(1, math.ceil(1.25 * font / per))


def _short(name: str, limit: int = TICK_CHARS) -> str:
    return name if len(name) <= limit else name[: limit - 1] + "…"


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
    vals = bits_values(s[feats])
    p_of = s_f_p(result, t.id)  # the record's p beside the bits in the hover
    ps = np.array([p_of.get(int(f), "") for f in feats], dtype=object)
    fig = go.Figure()
    for key, label in (("kept", "kept (PC candidate)"), ("cut-k1", "cut by k1"),
                       ("below-delta1", "s ≤ δ1")):
        idx = np.nonzero(fate == key)[0]
        if idx.size:
            fig.add_bar(x=pos[idx], y=vals[idx], name=label, marker_color=FATE_COLORS[key],
                        customdata=np.column_stack([names[idx], ranks[idx] + 1, ps[idx]]),
                        hovertemplate="%{customdata[0]} (rank %{customdata[1]}): "
                                      "s = %{y:.4f} bits, %{customdata[2]}<extra></extra>")
    d1 = result.params["delta1"]
    fig.add_hline(y=d1, line=dict(color=COLORS["target"], dash="dash"),
                  annotation_text=f"δ1 = {d1:g}", annotation_position="top right")
    if n_kept:
        x = int(np.searchsorted(ranks, n_kept)) - 0.5
        fig.add_vline(x=x, line=dict(color="#333", dash="dot"),
                      annotation_text=f"k1 cut: {n_kept:,} of {n_above:,}",
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
        note = (f"; {rest:,} more below (all ≤ δ1, max s = {number(below.max())} bits)"
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
    font, step = tick_plan(len(x), side=BARS_PX)
    fig.update_layout(barmode="group", height=height, yaxis_title="bits",
                      bargap=0.2 if len(x) > 4 else 0.6,
                      xaxis=dict(tickangle=-90 if len(x) > 6 else 0, tickfont=dict(size=font),
                                 tickmode="array", tickvals=x[::step], ticktext=x[::step]),
                      **_legend_on_top("Phase 3: each feature against the blocker it tried to "
                                       "displace, both given S_base",
                                       f"the 40 closest of {n_all:,}" if n_all > 40 else ""))
    return fig


#: the plot area (pixels) the pruning scatter gets at the narrowest usual width (a 480 px
#: column: 400 × 260 inside the margins, the title and the legend below); point names are
#: placed so that they do not touch at that size or larger
SCATTER_PX = (400, 260)


#: where a point's name may go, in the order tried (plotly ``textposition`` values)
LABEL_SPOTS = ("top center", "middle right", "middle left", "bottom center")


def place_labels(x, y, texts, order, *, x_range, y_range, size_px=SCATTER_PX,
                 font_px: int = 12, marker_px: int = 14, layers=None,
                 spots: tuple[str, ...] = LABEL_SPOTS) -> np.ndarray:
    """Where each point's name is drawn (a plotly ``textposition``; "" for no name), so that no
    two names (nor a name and the plot edge) overlap at ``size_px`` (plot width, height) or
    larger, and no name lies on another point (a name over a point hides it; one under a point
    drawn later is hidden by it): greedily, in ``order`` (indices, the most important first),
    each name at the first of ``spots`` around its point that is free. ``layers`` is accepted
    for older callers and ignored (every other point is avoided whatever its trace). Returns
    an array of strings over the points (``.astype(bool)`` is the mask of named points)."""
    w_px, h_px = size_px
    (x0, x1), (y0, y1) = x_range, y_range
    px = (np.asarray(x, dtype=float) - x0) / ((x1 - x0) or 1.0) * w_px
    py = (y1 - np.asarray(y, dtype=float)) / ((y1 - y0) or 1.0) * h_px  # from the top
    r = marker_px / 2
    marks = [(px[j] - r, py[j] - r, px[j] + r, py[j] + r) for j in range(len(px))]
    boxes: list[tuple[float, float, float, float]] = []
    where = np.full(len(px), "", dtype=object)
    hgt = font_px * 1.3

    def hits(box, others) -> bool:
        return any(box[0] < b[2] and b[0] < box[2] and box[1] < b[3] and b[1] < box[3]
                   for b in others)

    for i in order:
        wid = text_px(texts[i], font_px) + 4
        others = [mk for j, mk in enumerate(marks) if j != i]
        for spot in spots:
            box = {"top center": (px[i] - wid / 2, py[i] - r - hgt, px[i] + wid / 2, py[i] - r),
                   "bottom center": (px[i] - wid / 2, py[i] + r, px[i] + wid / 2,
                                     py[i] + r + hgt),
                   "middle right": (px[i] + r, py[i] - hgt / 2, px[i] + r + wid,
                                    py[i] + hgt / 2),
                   "middle left": (px[i] - r - wid, py[i] - hgt / 2, px[i] - r,
                                   py[i] + hgt / 2)}[spot]
            if box[0] < 0 or box[2] > w_px or box[1] < 0 or box[3] > h_px:
                continue
            if hits(box, boxes) or hits(box, others):
                continue  # no name on another name, nor on another point
            boxes.append(box)
            where[i] = spot
            break
    return where


def pruning_scatter(result, target, *, height: int = 440) -> go.Figure:
    """Phase 4: every CMB feature at (s_f, best I(X_f; C_d) over other labels' categories),
    coloured by its fate; the δ1 line and the redundancy line y = γ·x. Point customdata =
    feature index (for click-to-explain).

    Names are drawn only where they fit (:func:`place_labels`: the pruned features first, then
    by s_f); the title says how many, every point names itself on hover. The axes start a
    little below 0 so that points at s = 0 are drawn whole."""
    t = result.target(target)
    df = pruning_frame(result, t.id).reset_index(drop=True)
    d1, g = result.params["delta1"], result.params["gamma"]
    top = float(max([df["s_f"].max(), df["best other I"].max(), d1 * 2]
                    if not df.empty else [d1 * 2])) * 1.15
    pad = 0.04 * top
    rng = (-pad, top)
    prio = np.lexsort((-df["s_f"].to_numpy(), (df["fate"] == "blanket").to_numpy())) if len(
        df) else np.array([], dtype=int)
    fates = ["blanket", "cut-k2", "symmetry", "redundancy"]  # the order traces are drawn
    spot = place_labels(df["s_f"], df["best other I"].fillna(0), df["feature"], prio,
                        x_range=rng, y_range=rng)
    named = spot.astype(bool)
    fig = go.Figure()
    words = {"blanket": "in the blanket", "cut-k2": "cut by k2",
             "symmetry": "removed: symmetry", "redundancy": "removed: redundancy"}
    for fate in fates:
        sub = df[df["fate"] == fate]
        if sub.empty:
            continue
        fig.add_scatter(
            x=sub["s_f"], y=sub["best other I"], mode="markers+text", name=words[fate],
            text=np.where(named[sub.index], sub["feature"], ""),
            textposition=[p or "top center" for p in spot[sub.index]],
            textfont=dict(size=12),
            customdata=np.column_stack([sub["feature_index"], sub["explaining category"],
                                        sub["feature"], sub["p (s_f)"]]),
            marker=dict(size=13 if len(df) <= 40 else 9, color=FATE_COLORS[fate],
                        line=dict(color="#333", width=1)),
            hovertemplate="%{customdata[2]}<br>s_f = %{x:.4f} bits, %{customdata[3]}<br>"
                          "max I(f; C_d) = "
                          "%{y:.4f} bits<extra></extra>")
    fig.add_scatter(x=[0, top / g], y=[0, top], mode="lines", name=f"y = γ·s_f (γ = {g:g})",
                    line=dict(color=COLORS["extra"], dash="dash"), hoverinfo="skip")
    fig.add_vline(x=d1, line=dict(color=COLORS["target"], dash="dot"),
                  annotation_text=f"δ1 = {d1:g}", annotation_position="top right")
    n_named = int(named.sum())
    note = f" ({n_named:,} of {len(df):,} named)" if n_named < len(df) else ""
    fig.update_layout(height=height, xaxis=dict(title="s_f = I(X_f; t) (bits)", range=rng,
                                                zeroline=False),
                      yaxis=dict(title="max I(X_f; C_d), other labels (bits)", range=rng,
                                 zeroline=False),
                      legend=dict(orientation="h", y=-0.2, yanchor="top"),
                      clickmode="event+select",
                      title=dict(text=f"Phase 4 for {t.category.display}{note}", x=0,
                                 font=dict(size=13)), **_LAYOUT)
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
        fig.add_bar(x=cand["b_name"], y=bits_values(cand["value"]), name="I(t; C')",
                    marker_color=COLORS["removed"], marker_line=dict(color="#777", width=1))
    if not cmi.empty:
        fig.add_bar(x=cmi["b_name"], y=bits_values(cmi["value"]),
                    name="I(t; C' | accepted) when tested",
                    marker_color=[COLORS["label-category"] if d == "accepted" else
                                  COLORS["pruned"] for d in cmi["decision"]])
    d2 = result.params["delta2"]
    fig.add_hline(y=d2, line=dict(color=COLORS["target"], dash="dash"),
                  annotation_text=f"δ2 = {d2:g}")
    more = (f"the {max_bars} strongest of {n_cand:,} candidates shown"
            if n_cand > max_bars else "")
    names = list(cand["b_name"])
    font, step = tick_plan(len(names), side=BARS_PX)
    fig.update_layout(barmode="group", height=height, yaxis_title="bits",
                      xaxis=dict(tickangle=-90 if len(names) > 6 else 0,
                                 tickfont=dict(size=font), tickmode="array",
                                 tickvals=names[::step], ticktext=names[::step]),
                      **_legend_on_top("Candidates and greedy tests", more))
    return fig


def to_standalone_html(fig: go.Figure) -> str:
    """A figure as a complete HTML page with plotly.js inlined (works offline)."""
    return fig.to_html(include_plotlyjs=True, full_html=True)
