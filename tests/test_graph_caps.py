"""Graphs stay graphs when the label skeleton R is large (issue 34, item 7): every graph that
draws R (the local structure, the skeleton's neighbourhood, the whole skeleton, their exported
HTML) draws at most :data:`camcf.viz.graphs.MAX_GROUP` members of a target's R, the strongest
(and the ones a recovered feature displaced), and sums up the rest in one "+k more in R" node —
as it does for parents/children and spouses.

The data: a seeded :func:`camcf.datasets.make_wide` whose 30 labels share one hidden factor, at
the thresholds the data suggest (``"auto"``), where most targets have |R| > 20 (Corel16k's
y146=0 had |R| = 109 at its suggested thresholds).
"""

from __future__ import annotations

import numpy as np
import pytest

import camcf
from camcf.datasets import make_wide
from camcf.discretize import discretize
from camcf.viz import graphs

CAP = graphs.MAX_GROUP


def large_r_data():
    """600 × 20, 30 binary labels tied by one hidden factor (seeded)."""
    return make_wide(600, 20, 30, seed=7, group_size=30)


@pytest.fixture(scope="module")
def res():
    ds = large_r_data()
    codes, _ = discretize(ds.X, discretize="none")
    return camcf.run(codes, ds.Y, feature_names=ds.feature_names, label_names=ds.label_names,
                     category_names=ds.category_names, delta1="auto", delta2="auto")


@pytest.fixture(scope="module")
def big(res):
    out = [t for t in res.targets if len(t.skeleton) > CAP]
    assert len(out) >= 5 and any(t.recovered for t in out)
    return out


def _mi(res, t):
    return np.asarray(res.category_mi, dtype=float)[t.id]


def _check_strongest(res, t, drawn: set[int]):
    """Those drawn are the strongest of R, after the members a recovered feature displaced."""
    mi = _mi(res, t)
    displaced = {r for _, r in t.recovered}
    assert displaced <= drawn
    left = set(t.skeleton) - drawn
    rest = [q for q in drawn if q not in displaced]
    assert min(round(mi[q], 12) for q in rest) >= max(round(mi[q], 12) for q in left)


def test_local_graph_draws_the_strongest_of_r_and_sums_up_the_rest(res, big):
    for t in big:
        g = graphs.local_graph(res, t.id)
        cats = [n for n, a in g.nodes(data=True) if a["role"] == "label-category"]
        drawn = {q for q in t.skeleton if res.categories[q].display in g}
        assert len(drawn) == CAP and len(cats) == CAP + 1
        more = f"+{len(t.skeleton) - CAP} more in R"
        assert more in g and g.has_edge(more, t.category.display)
        assert f"{len(t.skeleton) - CAP} more label categories in R" in g.nodes[more]["title"]
        _check_strongest(res, t, drawn)
        for f, r in t.recovered:  # the "blocked by" edge of each recovery is drawn
            assert g.has_edge(res.categories[r].display, res.feature_names[f])


def test_the_skeleton_neighbourhood_draws_the_strongest_of_r(res, big):
    for t in big:
        g, pos = graphs.skeleton_ego(res, t.id)
        inner = [n for n, a in g.nodes(data=True) if a["role"] == "label-category"]
        drawn = {q for q in t.skeleton if res.categories[q].display in inner}
        assert len(drawn) == CAP and len(inner) == CAP + 1
        more = f"+{len(t.skeleton) - CAP} more in R"
        assert more in inner and set(pos) == set(g.nodes)
        _check_strongest(res, t, drawn)
        rank = {q: i + 1 for i, q in enumerate(t.skeleton)}  # numbered in acceptance order
        for q in drawn:
            c = res.categories[q].display
            assert g.nodes[c]["label"] == f"{rank[q]}. {c}"
        # a member of R that is not drawn is not drawn as another kind of node either
        for q in set(t.skeleton) - drawn:
            assert res.categories[q].display not in g


def test_the_whole_skeleton_draws_at_most_cap_edges_of_each_r(res, big):
    g = graphs.skeleton_graph(res)
    own = {}
    for t in res.targets:
        drawn = [q for q in graphs.strongest_in_r(res, t)[:CAP]]
        own[t.id] = drawn
        for q in drawn:
            assert g.has_edge(t.category.display, res.categories[q].display)
    # every edge is one of a drawn R's (from either end)
    names = {c.display: c.id for c in res.categories}
    for a, b in g.edges():
        ia, ib = names[a], names[b]
        assert ib in own[ia] or ia in own[ib], (a, b)
    for t in big:
        assert f"|R| = {len(t.skeleton)}" in g.nodes[t.category.display]["title"]


def test_exported_graphs_are_bounded(res, big):
    t = max(big, key=lambda t: len(t.skeleton))
    cats = {c.display for c in res.categories}
    for page in (graphs.local_graph_html(res, t.id), graphs.skeleton_ego_html(res, t.id)):
        ids = graphs.node_ids(page)
        in_r = [n for n in ids if n in cats and n != t.category.display
                and res.categories[[c.display for c in res.categories].index(n)].id
                in t.skeleton]
        assert len(in_r) == CAP
        assert f"+{len(t.skeleton) - CAP} more in R" in ids
