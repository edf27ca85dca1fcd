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

import networkx as nx
import numpy as np

from ..trace import TARGET
from .style import COLORS, FONT, lighten

#: tags pyvis adds that would fetch from a CDN or a relative path (nothing there offline)
_STRIP = [
    re.compile(r"<link[^>]*bootstrap[^>]*>", re.S),
    re.compile(r"<script[^>]*bootstrap[^>]*>\s*</script>", re.S),
    re.compile(r"<link[^>]*node_modules[^>]*>", re.S),
    re.compile(r"<script[^>]*node_modules[^>]*>\s*</script>", re.S),
]
_SCALE = 260.0


def _fmt(v: float) -> str:
    return "n/a" if v != v else f"{v:.3f}"


def local_graph(result, target, *, show_removed: bool = True, truth=None) -> nx.Graph:
    """The target's local structure as an undirected networkx graph with drawing attributes.

    Node attributes: ``role`` (target, label-category, pc, spouse, recovered, removed, missed,
    other), ``fate`` (see :meth:`camcf.Result.feature_fates`), ``pool`` (pool index), ``title`` (tooltip).
    Edge attribute ``kind``: pc, spouse, recovered, blocked-by, skeleton, removed.
    ``truth`` is an optional set of true blanket feature indices: missed features are added.
    """
    t = result.target(target)
    m = result.n_features
    s = result.mi_table[:, t.id]
    fates = result.feature_fates(t.id)
    red = {f: (d, v, sf) for f, d, v, sf in t.redundancy_removed}
    g = nx.Graph(target=t.category.display)
    tname = t.category.display
    g.add_node(tname, role="target", pool=TARGET, fate="",
               title=f"target category {tname} ({t.category.size} samples)")

    def feat_title(f: int, role: str) -> str:
        parts = [f"{result.feature_names[f]}: {role}", f"s = I(f; t) = {_fmt(float(s[f]))} bits"]
        fate = fates.get(f, "")
        if fate == "redundancy":
            d, v, sf = red[f]
            parts.append(f"removed by redundancy: {result.categories[d].display} explains it "
                         f"({_fmt(v)} > γ·s = {_fmt(result.params['gamma'] * sf)})")
        elif fate:
            parts.append({"blanket": "in the final blanket", "cut-k2": "cut by k2",
                          "symmetry": "removed by symmetry (s ≤ δ1)",
                          "removed": "removed by backward elimination",
                          "cut-k1": "cut by k1"}[fate])
        if truth is not None:
            parts.append("true blanket member" if f in truth else "not in the true blanket")
        return "\n".join(parts)

    for q in t.skeleton:
        name = result.categories[q].display
        g.add_node(name, role="label-category", pool=m + q, fate="",
                   title=f"{name}: in the label skeleton R of {tname}; "
                         f"I = {_fmt(float(result.category_mi[t.id, q]))} bits")
        g.add_edge(name, tname, kind="skeleton")
    for f in t.pc:
        g.add_node(result.feature_names[f], role="pc", pool=f, fate=fates.get(f, ""),
                   title=feat_title(f, "parent/child"))
        g.add_edge(result.feature_names[f], tname, kind="pc")
    for z, xs in t.spouses.items():
        g.add_node(result.feature_names[z], role="spouse", pool=z, fate=fates.get(z, ""),
                   title=feat_title(z, "spouse via " + ", ".join(
                       result.feature_names[x] for x in xs)))
        for x in xs:
            g.add_edge(result.feature_names[z], result.feature_names[x], kind="spouse")
    for f, r in t.recovered:
        name = result.feature_names[f]
        rn = result.categories[r].display
        g.add_node(name, role="recovered", pool=f, fate=fates.get(f, ""),
                   title=feat_title(f, f"recovered, displacing {rn}"))
        g.add_edge(name, tname, kind="recovered")
        if rn in g:
            g.add_edge(rn, name, kind="blocked-by")
    if show_removed:
        for f in t.candidates:
            name = result.feature_names[f]
            if name not in g:
                g.add_node(name, role="removed", pool=f, fate="removed",
                           title=feat_title(f, "candidate"))
                g.add_edge(name, tname, kind="removed")
    if truth is not None:
        for f in sorted(truth):
            name = result.feature_names[f]
            if name not in g:
                g.add_node(name, role="missed", pool=f, fate="",
                           title=f"{name}: true blanket member, not found\n"
                                 f"s = {_fmt(float(s[f]))} bits")
                g.add_edge(name, tname, kind="missed")
    return g


def _ring(names: list[str], radius: float, start: float = 0.0) -> dict[str, tuple[float, float]]:
    k = max(len(names), 1)
    return {n: (radius * math.cos(start + 2 * math.pi * i / k),
                radius * math.sin(start + 2 * math.pi * i / k)) for i, n in enumerate(names)}


def layout(g: nx.Graph, center: str | None = None, seed: int = 7) -> dict[str, tuple[float, float]]:
    """Deterministic positions in pixels: a seeded spring layout, ``center`` pinned at 0."""
    if g.number_of_nodes() == 0:
        return {}
    nodes = sorted(g.nodes)
    init = _ring(nodes, 1.0)
    fixed = None
    if center is not None and center in g:
        init[center] = (0.0, 0.0)
        fixed = [center]
    h = nx.Graph()
    h.add_nodes_from(nodes)
    h.add_edges_from(sorted(tuple(sorted(e)) for e in g.edges))
    k = 1.6 / math.sqrt(max(len(nodes), 1))
    pos = nx.spring_layout(h, pos=init, fixed=fixed, seed=seed, k=k, iterations=120)
    arr = np.array(list(pos.values()))
    span = float(np.abs(arr).max()) or 1.0
    return {n: (float(x) / span * _SCALE, float(y) / span * _SCALE) for n, (x, y) in pos.items()}


def _network_html(g: nx.Graph, pos: dict, height: int, highlight: set[str],
                  truth=None, result=None, dim_share: float = 0.75,
                  scale: float = 1.0) -> str:
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
        shape = {"target": "star", "label-category": "box"}.get(role, "dot")
        size = {"target": 30, "label-category": 18}.get(role, 16) * scale
        if n in highlight:
            size += 6 * scale
        x, y = pos[n]
        font = {"size": round(16 * scale), "face": FONT, "color": "#222222" if not dim or n in highlight
                else "#9a9a9a"}
        if shape == "box":
            font["color"] = "#ffffff" if not dim or n in highlight else "#f4f4f4"
        net.add_node(n, label=n, title=a.get("title", n), x=x, y=y, physics=False, shape=shape,
                     size=size, borderWidth=width,
                     color={"background": fill, "border": border,
                            "highlight": {"background": fill, "border": COLORS["highlight"]}},
                     font=font)
    for u, v, a in g.edges(data=True):
        kind = a.get("kind", "")
        color = {"skeleton": COLORS["label-category"], "spouse": COLORS["spouse"],
                 "recovered": COLORS["recovered"], "blocked-by": COLORS["recovered"],
                 "removed": COLORS["removed"], "missed": COLORS["missed"],
                 "pc": COLORS["pc"]}.get(kind, "#999999")
        if dim and not (u in highlight and v in highlight):
            color = lighten(color, dim_share)
        net.add_edge(u, v, color=color, width=a.get("width", 2),
                     dashes=kind in ("skeleton", "removed", "blocked-by", "missed"),
                     title=a.get("title", kind))
    net.set_options(
        '{"physics": {"enabled": false}, "edges": {"smooth": false},'
        ' "interaction": {"hover": true, "tooltipDelay": 120, "dragNodes": true,'
        ' "zoomView": true}}')
    return standalone(net.generate_html())


def standalone(page: str) -> str:
    """Remove the tags pyvis adds that point to a CDN or to ``../node_modules``."""
    for rx in _STRIP:
        page = rx.sub("", page)
    page = page.replace('class="card"', 'class="camcf-card"').replace(
        'class="card-body"', 'class="camcf-card-body"')
    return page.replace("<head>", "<head><style>body{margin:0}#mynetwork{border:none!important}"
                                  "</style>", 1)


def local_graph_html(result, target, *, highlight=(), show_removed: bool = True, truth=None,
                     height: int = 520) -> str:
    """Standalone HTML of a target's local structure (see :func:`local_graph`).

    ``highlight``: pool indices (features ``0..m−1``, categories ``m+c``, ``-1`` the target) or
    names to emphasise; those not in the graph are added on an outer ring (the others keep their
    positions).
    """
    t = result.target(target)
    g = local_graph(result, t.id, show_removed=show_removed, truth=truth)
    pos = layout(g, center=t.category.display)
    names = set()
    extra = []
    for h in highlight:
        name = result.var_name(int(h), t.id) if not isinstance(h, str) else h
        names.add(name)
        if name not in g:
            extra.append((name, h))
    if extra:
        ring = _ring([n for n, _ in extra], _SCALE * 1.25, start=math.pi / 7)
        m = result.n_features
        for name, h in extra:
            pool = int(h) if not isinstance(h, str) else -2
            role = "label-category" if pool >= m else "other"
            g.add_node(name, role=role, pool=pool, fate="", title=f"{name}: involved in this step")
            pos[name] = ring[name]
    return _network_html(g, pos, height, names, truth=truth, result=result)


def skeleton_graph(result) -> nx.Graph:
    """Every flattened category, with an edge t — r for each r in t's label skeleton R."""
    g = nx.Graph()
    for t in result.targets:
        c = t.category
        tip = f"{c.display}: {c.size} samples"
        if t.skipped:
            tip += f"; skipped ({t.skip_reason})"
        g.add_node(c.display, role="label-category" if not t.skipped else "removed",
                   pool=result.n_features + c.id, fate="", title=tip)
    for t in result.targets:
        for q in t.skeleton:
            a, b = t.category.display, result.categories[q].display
            v = float(result.category_mi[t.id, q])
            if g.has_edge(a, b):
                g.edges[a, b]["title"] += f"; also {b} → {a}"
                continue
            g.add_edge(a, b, kind="skeleton", width=1 + 6 * min(v, 1.0),
                       title=f"{b} ∈ R({a}); I = {_fmt(v)} bits")
    return g


def skeleton_graph_html(result, *, highlight=None, height: int = 480) -> str:
    """Standalone HTML of the label skeleton: categories on a circle, label by label.

    ``highlight``: a target (id or display name) drawn as the target, its R emphasised.
    """
    g = skeleton_graph(result)
    order = [c.display for c in result.categories]
    radius = _SCALE * max(1.0, len(order) / 14)  # room for the labels of many categories
    pos = {n: (x * radius, y * radius) for n, (x, y) in _ring(order, 1.0, -math.pi / 2).items()}
    names: set[str] = set()
    if highlight is not None:
        t = result.target(highlight)
        g.nodes[t.category.display]["role"] = "target"
        names = {t.category.display} | {result.categories[q].display for q in t.skeleton}
    return _network_html(g, pos, height, names, dim_share=0.45, scale=radius / _SCALE)


def node_ids(page: str) -> list[str]:
    """The node ids inside a graph HTML page (for tests and checks)."""
    m = re.search(r"nodes = new vis\.DataSet\((\[.*?\])\);", page, re.S)
    if not m:
        return []
    import json

    return [n["id"] for n in json.loads(m.group(1))]


def escape(s: str) -> str:
    return _html.escape(s)
