"""Result → standalone pyvis HTML for the label skeleton and a target's local structure.

The HTML works offline: vis-network is inlined (``cdn_resources="in_line"``) and the bootstrap
and ``node_modules`` tags pyvis still adds are removed. Node positions are fixed (a deterministic
layout, physics off) so the picture does not move between reruns; variables a step involves
can be highlighted without moving the others (extra variables go on an outer ring).

Node ids are the display names of the variables (feature names, ``label=category``).
"""

from __future__ import annotations

import html as _html
import math
import re
from collections.abc import Mapping

import networkx as nx
import numpy as np

from ..trace import TARGET
from .explain import _pair, number, plural
from .style import COLORS, FONT, legend_html, lighten
from .summary import label_mi_p, s_f_p

#: tags pyvis adds that would fetch from a CDN or a relative path (nothing there offline)
_STRIP = [
    re.compile(r"<link[^>]*bootstrap[^>]*>", re.S),
    re.compile(r"<script[^>]*bootstrap[^>]*>\s*</script>", re.S),
    re.compile(r"<link[^>]*node_modules[^>]*>", re.S),
    re.compile(r"<script[^>]*node_modules[^>]*>\s*</script>", re.S),
]
_SCALE = 260.0
#: removed candidates drawn in a local graph (the strongest); the rest become one summary node
MAX_REMOVED = 16
#: parents/children, spouses and members of the label skeleton R drawn in a graph, each
#: (blanket members / the categories a recovered feature displaced first, then the strongest);
#: the rest become one summary node each ("+k more")
MAX_GROUP = 20
#: vis-network's label font (px at zoom 1) and the estimated width of one character in it
FONT_PX = 16
_CHAR_PX = 0.6 * FONT_PX
#: rejected candidates and strongest other neighbours drawn around a target in the skeleton view
EGO_REJECTED = 10
EGO_NEIGHBOURS = 8


def _true_words(role: str | None, label: str) -> str:
    """``true parent of B`` (a role in the network), or ``true blanket member``."""
    if role in ("parent", "child", "spouse"):
        return f"true {role} of {label}"
    return "true blanket member"


def strongest_in_r(result, t) -> list[int]:
    """The members of target ``t``'s label skeleton R in the order a graph draws them (the
    first :data:`MAX_GROUP`): the categories a recovered feature displaced first (so its
    "blocked by" edge is drawn), then by I(t; C') (rounded to the algorithm's 12 decimals),
    the strongest first; ties in flattening order."""
    mi = np.asarray(result.category_mi, dtype=float)[t.id]
    displaced = {r for _, r in t.recovered}
    return sorted(t.skeleton, key=lambda q: (q not in displaced, -round(float(mi[q]), 12), q))


def local_graph(result, target, *, show_removed: bool = True, truth=None) -> nx.Graph:
    """The target's local structure as an undirected networkx graph with drawing attributes.

    Node attributes: ``role`` (target, label-category, pc, spouse, recovered, removed, missed,
    other), ``fate`` (see :meth:`camcf.Result.feature_fates`), ``pool`` (pool index), ``title`` (tooltip).
    Edge attribute ``kind``: pc, spouse, recovered, blocked-by, skeleton, removed.
    ``truth`` is an optional set of true blanket feature indices, or a mapping of them to
    their role (``"parent"``, ``"child"``, ``"spouse"`` of the target's label): missed features
    are added; tooltips name the role.
    """
    roles = truth if isinstance(truth, Mapping) else {}
    t = result.target(target)
    m = result.n_features
    s = result.mi_table[:, t.id]
    fates = result.feature_fates(t.id)
    red = {f: (d, v, sf) for f, d, v, sf in t.redundancy_removed}
    g = nx.Graph(target=t.category.display)
    tname = t.category.display
    g.add_node(tname, role="target", pool=TARGET, fate="",
               title=f"target category {tname} ({plural(t.category.size, 'sample')})")

    p_s = s_f_p(result, t.id)  # the record's p of s_f, beside the bits

    def feat_title(f: int, role: str) -> str:
        p = f", {p_s[f]}" if p_s.get(f) else ""
        parts = [f"{result.feature_names[f]}: {role}",
                 f"s = I(f; t) = {number(float(s[f]))} bits{p}"]
        fate = fates.get(f, "")
        if fate == "redundancy":
            d, v, sf = red[f]
            shown, bound = _pair(v, result.params["gamma"] * sf)
            parts.append(f"removed by redundancy: {result.categories[d].display} explains it "
                         f"({shown} > γ·s = {bound})")
        elif fate:
            parts.append({"blanket": "in the final blanket", "cut-k2": "cut by k2",
                          "symmetry": "removed by symmetry (s ≤ δ1)",
                          "removed": "removed by backward elimination",
                          "cut-k1": "cut by k1"}[fate])
        if truth is not None:
            parts.append(_true_words(roles.get(f), t.category.label) if f in truth
                         else "not in the true blanket")
        return "\n".join(parts)

    def summary_node(n_more: int, what: str, role: str, short: str, why: str) -> None:
        label = f"+{n_more:,} more {short}"
        g.add_node(label, role=role, pool=-3, fate="",
                   title=f"{n_more:,} more {what} ({why}); the tables list them all")
        g.add_edge(label, tname, kind="skeleton" if role == "label-category" else role)

    rs = strongest_in_r(result, t)
    for q in rs[:MAX_GROUP]:
        name = result.categories[q].display
        g.add_node(name, role="label-category", pool=m + q, fate="",
                   title=f"{name}: in the label skeleton R of {tname}; "
                         f"I = {number(float(result.category_mi[t.id, q]))} bits")
        g.add_edge(name, tname, kind="skeleton")
    if len(rs) > MAX_GROUP:
        summary_node(len(rs) - MAX_GROUP, "label categories in R", "label-category", "in R",
                     "weaker I(t; C')")

    def strongest(fs) -> list[int]:  # blanket members first, then by s_f
        return sorted(fs, key=lambda f: (fates.get(f) != "blanket", -round(float(s[f]), 12), f))

    pcs = strongest(t.pc)
    for f in pcs[:MAX_GROUP]:
        g.add_node(result.feature_names[f], role="pc", pool=f, fate=fates.get(f, ""),
                   title=feat_title(f, "parent/child"))
        g.add_edge(result.feature_names[f], tname, kind="pc")
    if len(pcs) > MAX_GROUP:
        summary_node(len(pcs) - MAX_GROUP, "parents/children", "pc", "PC",
                     "weaker s_f, not in the final blanket first")
    sps = strongest(t.spouses)
    for z in sps[:MAX_GROUP]:
        xs = t.spouses[z]
        g.add_node(result.feature_names[z], role="spouse", pool=z, fate=fates.get(z, ""),
                   title=feat_title(z, "spouse via " + ", ".join(
                       result.feature_names[x] for x in xs)))
        drawn = [x for x in xs if result.feature_names[x] in g]
        for x in drawn or [None]:
            g.add_edge(result.feature_names[z],
                       result.feature_names[x] if x is not None else tname, kind="spouse")
    if len(sps) > MAX_GROUP:
        summary_node(len(sps) - MAX_GROUP, "spouses", "spouse", "spouses",
                     "weaker s_f, not in the final blanket first")
    for f, r in t.recovered:
        name = result.feature_names[f]
        rn = result.categories[r].display
        g.add_node(name, role="recovered", pool=f, fate=fates.get(f, ""),
                   title=feat_title(f, f"recovered, displacing {rn}"))
        g.add_edge(name, tname, kind="recovered")
        if rn in g:
            g.add_edge(rn, name, kind="blocked-by")
    if show_removed:
        removed = [f for f in t.candidates if result.feature_names[f] not in g]
        for f in removed[:MAX_REMOVED]:  # candidates are in s_f order: the strongest first
            name = result.feature_names[f]
            g.add_node(name, role="removed", pool=f, fate="removed",
                       title=feat_title(f, "candidate"))
            g.add_edge(name, tname, kind="removed")
        if len(removed) > MAX_REMOVED:
            more = f"+{len(removed) - MAX_REMOVED:,} more removed"
            g.add_node(more, role="removed", pool=-3, fate="",
                       title=f"{len(removed) - MAX_REMOVED:,} more candidates removed by backward "
                             "elimination (weaker s_f); see the Backward elimination table")
            g.add_edge(more, tname, kind="removed")
    if truth is not None:
        for f in sorted(truth):
            name = result.feature_names[f]
            if name not in g:
                g.add_node(name, role="missed", pool=f, fate="",
                           title=f"{name}: {_true_words(roles.get(f), t.category.label)}, not "
                                 f"found\ns = {number(float(s[f]))} bits")
                g.add_edge(name, tname, kind="missed")
    return g


def label_box(label: str, role: str) -> tuple[float, float]:
    """Estimated (width, height) in pixels at zoom 1 of a node and its label as
    :func:`_network_html` draws it (a dot or star with the label under it, or a box with
    the label inside)."""
    w = _CHAR_PX * len(label) + 14
    if role in _BOX_ROLES:
        return w + 10, FONT_PX + 16
    size = {"target": 30, "label-category": 18}.get(role, 16)
    return max(w, 2 * size + 6), 2 * size + FONT_PX + 10


_BOX_ROLES = {"label-category", "rejected", "neighbour", "points-here"}


def ring_layout(rings: list[list[tuple[str, str, str]]], *, r0: float = 140.0,
                start: float = -math.pi / 2, gap: float = 24.0,
                angles: dict[str, float] | None = None) -> dict[str, tuple[float, float]]:
    """Positions (pixels) of nodes on concentric rings around (0, 0), so that no two boxes
    (:func:`label_box`) overlap.

    ``rings``: per ring, its nodes as (name, label, role), inner ring first. Each node gets an
    arc share as wide as its box along the ring, so neighbours on a ring never touch; each ring
    is farther out than the previous one by the widest box of either (so a label never reaches
    the next ring), and large enough to hold its nodes. ``angles``: preferred angles (radians)
    of some nodes; a ring whose nodes have preferred angles is turned so that they come near
    them (spouses next to the PC member that induced them)."""
    pos: dict[str, tuple[float, float]] = {}
    prev_r, prev_w = 0.0, 0.0
    for nodes in rings:
        if not nodes:
            continue
        boxes = [label_box(lab, role) for _, lab, role in nodes]
        widest = max(max(w, h) for w, h in boxes)
        slots = [max(w, h) + gap for w, h in boxes]
        total = sum(slots)
        r = max(r0 if prev_r == 0 else prev_r + (prev_w + widest) / 2 + gap,
                total / (2 * math.pi))
        cum = np.cumsum(slots) - np.asarray(slots) / 2  # spread around the whole ring
        theta = start + 2 * math.pi * (cum - cum[0]) / total
        if angles:
            want = [(i, angles[n]) for i, (n, _, _) in enumerate(nodes) if n in angles]
            if want:  # turn the ring so that the nodes sit near their preferred angles
                d = np.angle(np.mean([np.exp(1j * (a - theta[i])) for i, a in want]))
                theta = theta + float(d)
        for (name, _, _), th in zip(nodes, theta, strict=True):
            pos[name] = (float(r * math.cos(th)), float(r * math.sin(th)))
        prev_r, prev_w = r, widest
    return pos


#: role -> ring of the local graph (0: the target; 1: R, PC, recovered; 2: spouses; 3: the rest)
_LOCAL_RING = {"label-category": 1, "pc": 1, "recovered": 1, "spouse": 2}


def local_layout(g: nx.Graph, center: str) -> dict[str, tuple[float, float]]:
    """Positions (pixels) for a local graph (:func:`local_graph`): the target at (0, 0); R,
    parents/children and recovered features on the first ring; spouses on the second, turned
    towards the PC members that induced them; removed candidates, missed true members and
    summary nodes outside. Deterministic (the graph's node order, which :func:`local_graph`
    fixes) and without overlapping labels (:func:`ring_layout`)."""
    rings: list[list[tuple[str, str, str]]] = [[], [], []]
    for n, a in g.nodes(data=True):
        if n == center:
            continue
        role = a.get("role", "other")
        rings[_LOCAL_RING.get(role, 3) - 1].append((n, a.get("label", n), role))
    inner = ring_layout(rings[:1])
    angles = {}
    for name, _, _ in rings[1]:  # a spouse: the mean angle of its inducing PC members
        xs = [inner[v] for v in g.neighbors(name) if v in inner]
        if xs:
            angles[name] = math.atan2(sum(y for _, y in xs), sum(x for x, _ in xs))
    cw, ch = label_box(center, "target")
    pos = ring_layout(rings, r0=max(140.0, (max(cw, ch) + max(
        (max(label_box(lab, role)) for _, lab, role in rings[0]), default=0)) / 2 + 30),
        angles=angles)
    pos[center] = (0.0, 0.0)
    return pos


def outer_radius(pos: dict[str, tuple[float, float]]) -> float:
    """The largest distance of a node from (0, 0)."""
    return max((math.hypot(x, y) for x, y in pos.values()), default=0.0)


def _network_html(g: nx.Graph, pos: dict, height: int, highlight: set[str],
                  truth=None, result=None, dim_share: float = 0.75,
                  scale: float = 1.0, title: str | None = None,
                  legend: list[str] | None = None) -> str:
    from pyvis.network import Network

    net = Network(height=f"{height}px", width="100%", directed=False, cdn_resources="in_line",
                  bgcolor="#ffffff")  # no font_color: it would replace each node's font
    dim = bool(highlight)
    for n, a in g.nodes(data=True):
        role = a.get("role", "other")
        base = COLORS.get(role, "#BBBBBB") if role != "other" else "#BBBBBB"
        fill = base
        if a.get("fate") in ("cut-k2", "symmetry", "redundancy"):
            fill = COLORS["pruned"]
        border = base
        width = 1.5
        if truth is not None and role not in ("target", "label-category"):
            pool = a.get("pool", -1)
            if role == "missed":
                fill = border = COLORS["missed"]
            elif a.get("fate") == "blanket":
                border = COLORS["tp"] if pool in truth else COLORS["extra"]
                width = 4
        if dim and n not in highlight:
            fill, border = lighten(fill, dim_share), lighten(border, dim_share)
        if n in highlight:
            border, width = COLORS["highlight"], 4
        shape = {"target": "star", "label-category": "box", "rejected": "box",
                 "neighbour": "box", "points-here": "box"}.get(role, "dot")
        size = {"target": 30, "label-category": 18}.get(role, 16) * scale
        if n in highlight:
            size += 6 * scale
        x, y = pos[n]
        font = {"size": round(16 * scale), "face": FONT, "color": "#222222" if not dim or n in highlight
                else "#9a9a9a"}
        if role == "label-category":
            font["color"] = "#ffffff" if not dim or n in highlight else "#f4f4f4"
        net.add_node(n, label=a.get("label", n), title=a.get("title", n), x=x, y=y, physics=False, shape=shape,
                     size=size, borderWidth=width,
                     color={"background": fill, "border": border,
                            "highlight": {"background": fill, "border": COLORS["highlight"]}},
                     font=font)
    for u, v, a in g.edges(data=True):
        kind = a.get("kind", "")
        color = {"skeleton": COLORS["label-category"], "spouse": COLORS["spouse"],
                 "recovered": COLORS["recovered"], "blocked-by": COLORS["recovered"],
                 "removed": COLORS["removed"], "missed": COLORS["missed"],
                 "pc": COLORS["pc"], "rejected": COLORS["rejected"],
                 "neighbour": COLORS["neighbour"],
                 "points-here": COLORS["points-here"]}.get(kind, "#999999")
        if dim and not (u in highlight and v in highlight):
            color = lighten(color, dim_share)
        net.add_edge(u, v, color=color, width=a.get("width", 2),
                     dashes=kind in ("skeleton", "removed", "blocked-by", "missed", "rejected",
                                     "neighbour", "points-here"),
                     title=a.get("title", kind))
    net.set_options(
        '{"physics": {"enabled": false}, "edges": {"smooth": false},'
        ' "interaction": {"hover": true, "tooltipDelay": 120, "dragNodes": true,'
        ' "zoomView": true}}')
    return standalone(net.generate_html(), title=title, legend=legend)


def standalone(page: str, *, title: str | None = None, legend: list[str] | None = None) -> str:
    """Remove the tags pyvis adds that point to a CDN or to ``../node_modules``; with ``title``
    or ``legend`` (role keys of :data:`~camcf.viz.style.LEGEND`), put a heading and a colour
    legend above the graph and give the page that title (for exported files)."""
    for rx in _STRIP:
        page = rx.sub("", page)
    if title or legend:
        head = ""
        if title:
            head += (f'<h3 class="camcf-title" style="font-family:{FONT};margin:8px 10px 2px">'
                     f"{_html.escape(title)}</h3>")
            page = re.sub(r"<title>.*?</title>", f"<title>{_html.escape(title)}</title>", page,
                          count=1, flags=re.S) if "<title>" in page else page.replace(
                "<head>", f"<head><title>{_html.escape(title)}</title>", 1)
        if legend:
            head += f'<div style="font-family:{FONT};margin:0 10px 6px">{legend_html(legend)}</div>'
        page = re.sub(r"(<body[^>]*>)", lambda m: m.group(1) + head, page, count=1)
    page = page.replace('class="card"', 'class="camcf-card"').replace(
        'class="card-body"', 'class="camcf-card-body"')
    return page.replace("<head>", "<head><style>body{margin:0}#mynetwork{border:none!important}"
                                  "</style>", 1)


LOCAL_LEGEND = ["target", "label-category", "pc", "spouse", "recovered", "pruned", "removed"]


def local_graph_html(result, target, *, highlight=(), show_removed: bool = True, truth=None,
                     height: int = 520, decorate: bool = True) -> str:
    """Standalone HTML of a target's local structure (see :func:`local_graph`).

    ``highlight``: pool indices (features ``0..m−1``, categories ``m+c``, ``-1`` the target) or
    names to emphasise; those not in the graph are added on an outer ring (the others keep their
    positions). ``decorate``: a title and a colour legend above the graph (for exported files;
    the app draws its own legend and passes False). At most :data:`MAX_REMOVED` removed
    candidates are drawn, the rest as one summary node.
    """
    t = result.target(target)
    g = local_graph(result, t.id, show_removed=show_removed, truth=truth)
    pos = local_layout(g, t.category.display)
    names = set()
    extra = []
    for h in highlight:
        name = result.var_name(int(h), t.id) if not isinstance(h, str) else h
        names.add(name)
        if name not in g:
            extra.append((name, h))
    if extra:  # on a ring of their own outside the others (which keep their places)
        m = result.n_features
        ring = []
        for name, h in extra:
            pool = int(h) if not isinstance(h, str) else -2
            role = "label-category" if pool >= m else "other"
            g.add_node(name, role=role, pool=pool, fate="", title=f"{name}: involved in this step")
            ring.append((name, name, role))
        widest = max(max(label_box(lab, role)) for _, lab, role in ring)
        pos.update(ring_layout([ring], r0=outer_radius(pos) + widest / 2 + 50,
                               start=math.pi / 7))
    title = legend = None
    if decorate:
        title = (f"Ca-MCF local structure of {t.category.display}: PC, spouses, recovered, "
                 f"and what Phase 4 pruned")
        legend = LOCAL_LEGEND + (["tp", "missed", "extra"] if truth is not None else [])
    return _network_html(g, pos, height, names, truth=truth, result=result, title=title,
                         legend=legend)


def skeleton_graph(result) -> nx.Graph:
    """Every flattened category, with an edge t — r for each r in t's label skeleton R (for
    at most :data:`MAX_GROUP` members of each R, the strongest: :func:`strongest_in_r`)."""
    g = nx.Graph()
    for t in result.targets:
        c = t.category
        tip = f"{c.display}: {plural(c.size, 'sample')}"
        if t.skipped:
            tip += f"; skipped ({t.skip_reason})"
        g.add_node(c.display, role="label-category" if not t.skipped else "removed",
                   pool=result.n_features + c.id, fate="", title=tip)
    for t in result.targets:
        rs = strongest_in_r(result, t)
        if len(rs) > MAX_GROUP:
            g.nodes[t.category.display]["title"] += (
                f"; |R| = {len(rs):,}: edges to the {MAX_GROUP} strongest members drawn")
        for q in rs[:MAX_GROUP]:
            a, b = t.category.display, result.categories[q].display
            v = float(result.category_mi[t.id, q])
            if g.has_edge(a, b):
                g.edges[a, b]["title"] += f"; also {b} → {a}"
                continue
            g.add_edge(a, b, kind="skeleton", width=1 + 6 * min(v, 1.0),
                       title=f"{b} ∈ R({a}); I = {number(v)} bits")
    return g


def skeleton_graph_html(result, *, highlight=None, height: int = 480,
                        decorate: bool = True) -> str:
    """Standalone HTML of the whole label skeleton: categories on a circle, label by label.

    ``highlight``: a target (id or display name) drawn as the target, its R emphasised.
    ``decorate``: a title and a colour legend above the graph (exported files). Readable up to
    a few dozen categories; :func:`skeleton_ego_html` shows one target's neighbourhood at any
    size.
    """
    g = skeleton_graph(result)
    order = [c.display for c in result.categories]
    pos = ring_layout([[(n, n, "label-category") for n in order]], r0=_SCALE)
    names: set[str] = set()
    if highlight is not None:
        t = result.target(highlight)
        g.nodes[t.category.display]["role"] = "target"
        names = {t.category.display} | {result.categories[q].display
                                         for q in strongest_in_r(result, t)[:MAX_GROUP]}
    title = legend = None
    if decorate:
        title = (f"Ca-MCF label skeleton: {plural(len(order), 'label category')}, an edge joins a "
                 f"category and each member of its R (δ2 = {result.params['delta2']:g})")
        legend = ["target", "label-category", "removed"] if highlight is not None else [
            "label-category", "removed"]
    return _network_html(g, pos, height, names, dim_share=0.45,
                         title=title, legend=legend)


def skeleton_ego(result, target, *, n_rejected: int = EGO_REJECTED,
                 n_neighbours: int = EGO_NEIGHBOURS) -> tuple[nx.Graph, dict]:
    """One target's neighbourhood in the label space, bounded whatever the number of categories.

    Nodes: the target; its R in acceptance order (role ``label-category``, labelled
    ``1. L=v``, ``2. …``; at most :data:`MAX_GROUP`, the strongest, the rest in one "+k more
    in R" node); up to ``n_rejected`` candidates (I(t; C') > δ2) that were not accepted
    (role ``rejected``, the strongest first; the rest in one "+k more rejected" node); up to
    ``n_neighbours`` other categories that were no candidate, with the largest DCSMI with the
    target (role ``neighbour``; categories of the target's own label left out), and the
    categories whose R holds the target (role ``points-here``, at most
    ``n_neighbours``). Returns the graph and fixed positions in pixels: R on an inner arc,
    the others on an outer ring — the same target always gets the same picture.
    """
    t = result.target(target)
    mi = np.asarray(result.category_mi, dtype=float)[t.id]
    p_of = label_mi_p(result, t.id)  # the record's p beside the bits

    def pq(q: int) -> str:
        return f", {p_of[q]}" if p_of.get(q) else ""

    tname = t.category.display
    own = t.category.label_index
    g = nx.Graph()
    g.add_node(tname, role="target", title=f"target {tname} "
                                            f"({plural(t.category.size, 'sample')}), "
                                            f"|R| = {len(t.skeleton):,}")
    acc = list(t.skeleton)
    rank = {q: i for i, q in enumerate(acc)}
    drawn = sorted(strongest_in_r(result, t)[:MAX_GROUP], key=rank.get)  # in acceptance order
    for q in drawn:
        i = rank[q]
        c = result.categories[q]
        g.add_node(c.display, role="label-category", label=f"{i + 1}. {c.display}",
                   title=f"{c.display}: accepted into R as number {i + 1}; "
                         f"I(t; C') = {number(float(mi[q]))} bits{pq(q)}")
        g.add_edge(tname, c.display, kind="skeleton", width=1 + 6 * min(float(mi[q]), 1.0),
                   title=f"I = {number(float(mi[q]))} bits")
    if len(acc) > len(drawn):
        k = len(acc) - len(drawn)
        more = f"+{k:,} more in R"
        g.add_node(more, role="label-category",
                   title=f"{k:,} more categories accepted into R (weaker I(t; C')); the "
                         "greedy acceptance table lists them all")
        g.add_edge(tname, more, kind="skeleton")
    rejected = [q for q in t.skeleton_candidates if q not in set(acc)]
    rejected = sorted(rejected, key=lambda q: (-mi[q], q))
    for q in rejected[:n_rejected]:
        c = result.categories[q]
        shown, d2 = _pair(float(mi[q]), result.params["delta2"])
        g.add_node(c.display, role="rejected",
                   title=f"{c.display}: candidate (I(t; C') = {shown} bits > δ2 = {d2}"
                         f"{pq(q)}), not accepted: its conditional MI given the categories "
                         "accepted before it was ≤ δ2")
        g.add_edge(tname, c.display, kind="rejected", title=f"I = {number(float(mi[q]))} bits")
    if len(rejected) > n_rejected:
        more = f"+{len(rejected) - n_rejected:,} more rejected"
        g.add_node(more, role="rejected", title=f"{len(rejected) - n_rejected:,} weaker candidates "
                                                "not accepted (see the greedy acceptance table)")
        g.add_edge(tname, more, kind="rejected")
    # the other labels' categories that were no candidate (the candidates not drawn are in
    # the "+k more rejected" node, not among these)
    cands = set(t.skeleton_candidates)
    others = [c.id for c in result.categories
              if c.label_index != own and c.id not in cands and c.display not in g]
    others = sorted(others, key=lambda q: (-mi[q], q))[:n_neighbours]
    for q in others:
        c = result.categories[q]
        shown, d2 = _pair(float(mi[q]), result.params["delta2"])
        g.add_node(c.display, role="neighbour",
                   title=f"{c.display}: I(t; C') = {shown} bits (≤ δ2 = {d2}: not a candidate)"
                   if mi[q] <= result.params["delta2"] else
                   f"{c.display}: I(t; C') = {number(float(mi[q]))} bits")
        g.add_edge(tname, c.display, kind="neighbour", title=f"I = {number(float(mi[q]))} bits")
    in_r = set(acc)  # a member of R not drawn is in "+k more in R", not drawn again here
    back = [o.id for o in result.targets if t.id in o.skeleton and o.id != t.id
            and (o.id not in in_r or o.id in set(drawn))]
    for q in back[:n_neighbours]:
        c = result.categories[q]
        if c.display not in g:
            g.add_node(c.display, role="points-here",
                       title=f"{c.display}: has {tname} in its own R")
        g.add_edge(tname, c.display, kind="points-here" if g.nodes[c.display]["role"] ==
                   "points-here" else g.edges[tname, c.display]["kind"]
                   if g.has_edge(tname, c.display) else "points-here")
    inner = [(n, a.get("label", n), a["role"]) for n, a in g.nodes(data=True)
             if a["role"] == "label-category"]
    outer = [(n, a.get("label", n), a["role"]) for n, a in g.nodes(data=True)
             if a["role"] not in ("target", "label-category")]
    pos = ring_layout([inner, outer], r0=130.0)
    pos[tname] = (0.0, 0.0)
    return g, pos


EGO_LEGEND = ["target", "label-category", "rejected", "neighbour", "points-here"]


def skeleton_ego_html(result, target, *, height: int = 460, decorate: bool = True,
                      n_rejected: int = EGO_REJECTED, n_neighbours: int = EGO_NEIGHBOURS) -> str:
    """Standalone HTML of :func:`skeleton_ego` (bounded: at most 3 + MAX_GROUP + n_rejected
    + 2 · n_neighbours nodes). ``decorate``: a title and a colour legend above it."""
    t = result.target(target)
    g, pos = skeleton_ego(result, t.id, n_rejected=n_rejected, n_neighbours=n_neighbours)
    title = (f"Label skeleton around {t.category.display}: R in acceptance order, rejected "
             f"candidates, strongest DCSMI neighbours") if decorate else None
    return _network_html(g, pos, height, set(), title=title,
                         legend=EGO_LEGEND if decorate else None)


def node_ids(page: str) -> list[str]:
    """The node ids inside a graph HTML page (for tests and checks)."""
    m = re.search(r"nodes = new vis\.DataSet\((\[.*?\])\);", page, re.S)
    if not m:
        return []
    import json

    return [n["id"] for n in json.loads(m.group(1))]


def escape(s: str) -> str:
    return _html.escape(s)
