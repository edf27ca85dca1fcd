"""The views at real sizes: 1,000 label categories (500 binary labels) and wide feature sets.

Every figure and graph stays bounded (number of drawn cells, bars, nodes, traces) whatever the
number of categories or features; the seriation is deterministic; the wide generator is seeded.
"""

from __future__ import annotations

import numpy as np
import pytest

import camcf
from camcf.datasets import make_causal_multilabel, make_wide
from camcf.discretize import discretize
from camcf.viz import figures, graphs, summary


def _run(ds, **params):
    codes, _ = discretize(ds.X, discretize="none")
    return camcf.run(codes, ds.Y, feature_names=ds.feature_names, label_names=ds.label_names,
                     category_names=ds.category_names, **params)


@pytest.fixture(scope="module")
def res1000():
    """500 binary labels = 1,000 label categories, 12 features; δ2 high enough that R is
    small, so the run takes a few seconds."""
    return _run(make_wide(160, 12, 500, seed=3), delta2=0.2)


@pytest.fixture(scope="module")
def res_wide():
    """2,000 features, 20 labels (40 categories)."""
    return _run(make_wide(150, 2000, 20, seed=5), delta1=0.02)


def test_make_wide_is_seeded_and_shaped():
    a, b = make_wide(60, 40, 7, seed=1), make_wide(60, 40, 7, seed=1)
    assert a.X.shape == (60, 40) and a.Y.shape == (60, 7)
    assert np.array_equal(a.X, b.X) and np.array_equal(a.Y, b.Y)
    assert not np.array_equal(a.Y, make_wide(60, 40, 7, seed=2).Y)
    assert set(np.unique(a.X)) <= {0.0, 1.0, 2.0}
    assert all(0 < a.Y[:, i].sum() < 60 for i in range(7))  # both categories present
    assert a.feature_names[0] == "f00000" and a.label_names[-1] == "L006"


def test_the_run_has_1000_categories(res1000):
    assert len(res1000.categories) == 1000


def test_seriation_is_deterministic_and_groups_blocks():
    rng = np.random.default_rng(0)
    blocks = np.repeat(np.arange(4), 5)
    sim = (blocks[:, None] == blocks[None, :]) * 1.0 + rng.uniform(0, 0.05, (20, 20))
    sim = (sim + sim.T) / 2
    perm = rng.permutation(20)
    order = figures.seriate(sim[np.ix_(perm, perm)])
    assert sorted(order.tolist()) == list(range(20))
    assert np.array_equal(order, figures.seriate(sim[np.ix_(perm, perm)]))
    # members of a block end up next to each other
    seq = blocks[perm][order]
    assert int((np.diff(seq) != 0).sum()) == 3


def test_heatmap_at_1000_categories_is_bounded_and_named(res1000):
    sp = figures.label_space(res1000, max_side=120)
    assert sp["level"] == "cluster"  # 500 labels > 120: cluster blocks
    assert len(sp["names"]) <= 120
    assert sorted(sp["order"]) == list(range(1000))  # every category in exactly one block
    again = figures.label_space(res1000, max_side=120)
    assert sp["order"] == again["order"]
    # a block's value is the largest DCSMI between members of different labels
    a, b = 0, 1
    z = res1000.category_mi
    ia, ib = sp["members"][a], sp["members"][b]
    lab = np.array([c.label_index for c in res1000.categories])
    vals = [z[i, j] for i in ia for j in ib if lab[i] != lab[j]]
    if vals:
        assert sp["z"][a, b] == pytest.approx(max(vals))
    fig = figures.skeleton_heatmap(res1000, highlight=5)
    heat = fig.data[0]
    assert np.asarray(heat.z).shape == (len(sp["names"]),) * 2
    assert len(fig.data) == 1 and fig.layout.height <= 760
    assert all("=" in str(y).split(": ", 1)[1] for y in heat.y)  # members on hover
    # 500 binary labels: the blocks are blocks of labels (both categories of a label together)
    lab_of = {c.id: c.label_index for c in res1000.categories}
    for mm in sp["members"]:
        labels = {lab_of[i] for i in mm}
        assert len(mm) == 2 * len(labels)


def test_heatmap_aggregates_by_label_when_labels_fit(res_wide):
    # 20 binary labels: a label's two categories are complements with the same DCSMI, so one
    # row per label is exact (the arts shape's 52 run-together names become 26)
    for side in (30, 120):
        sp = figures.label_space(res_wide, max_side=side)
        assert sp["level"] == "label" and len(sp["names"]) == 20 and sp["exact"]
    z = res_wide.category_mi
    for a in range(0, 40, 2):  # complements: equal rows (up to rounding)
        others = [j for j in range(40) if j // 2 != a // 2]
        assert np.allclose(z[a, others], z[a + 1, others], atol=1e-9)
    # a label with three categories: one row per category, or per label when too many
    demo = make_causal_multilabel(300, seed=1)
    ds = demo.dataset
    res = _run(ds)
    sp = figures.label_space(res, max_side=120)
    assert sp["level"] == "category" and len(sp["names"]) == len(res.categories)
    sp = figures.label_space(res, max_side=6)
    assert sp["level"] == "label" and len(sp["names"]) == 5 and not sp["exact"]


def test_heatmap_names_never_run_together():
    """The arts shape: 26 labels with long names (52 categories) — the names ran together."""
    for s in (10, 26, 52, 120):
        font, step = figures.tick_plan(s)
        assert figures.HEAT_SIDE_PX / s * step >= 1.25 * font  # room per shown name
    assert figures.tick_plan(26)[1] == 1 and figures.tick_plan(120)[1] > 1


def test_ego_graph_is_bounded_at_1000_categories(res1000):
    tid = max(summary.target_order(res1000, "skeleton"), key=lambda i: len(
        res1000.targets[i].skeleton))
    t = res1000.targets[tid]
    g, pos = graphs.skeleton_ego(res1000, tid, n_rejected=10, n_neighbours=8)
    assert g.number_of_nodes() <= 1 + len(t.skeleton) + 11 + 16
    roles = [a["role"] for _, a in g.nodes(data=True)]
    assert roles.count("target") == 1 and roles.count("label-category") == len(t.skeleton)
    # R in acceptance order, numbered
    labels = [g.nodes[res1000.categories[q].display]["label"] for q in t.skeleton]
    assert labels == [f"{i + 1}. {res1000.categories[q].display}"
                      for i, q in enumerate(t.skeleton)]
    # the strongest DCSMI neighbour of another label is drawn
    mi = res1000.category_mi[tid].copy()
    own = t.category.label_index
    mi[[c.id for c in res1000.categories if c.label_index == own]] = -1
    assert res1000.categories[int(np.argmax(mi))].display in g
    assert pos[t.category.display] == (0.0, 0.0)
    g2, pos2 = graphs.skeleton_ego(res1000, tid, n_rejected=10, n_neighbours=8)
    assert pos == pos2
    page = graphs.skeleton_ego_html(res1000, tid)
    assert len(graphs.node_ids(page)) == g.number_of_nodes()
    assert "<h3" in page and "camcf-legend" in page  # exported: title and legend
    assert "<h3" not in graphs.skeleton_ego_html(res1000, tid, decorate=False)


def test_mi_chart_draws_the_interesting_region_only(res_wide):
    t = max((t for t in res_wide.targets if not t.skipped), key=lambda t: len(t.candidates_all))
    fig = figures.mi_ranks(res_wide, t.id, max_bars=80)
    n_bars = sum(len(tr.x) for tr in fig.data)
    assert n_bars <= 100  # of 2,000 features
    ranks = sorted(int(r) for tr in fig.data for r in np.asarray(tr.customdata)[:, 1])
    assert ranks[0] == 1
    n_above = len(t.candidates_all)
    if n_above < 2000:
        assert n_above in ranks or n_above + 1 in ranks  # the δ1 crossing is drawn
    assert "2,000 features" in fig.layout.title.text
    assert len(fig.data) <= 3


def test_mi_window_covers_edges():
    w = figures.mi_window(30000, 700, 1000, max_bars=80)
    assert len(w) <= 80 and w == sorted(set(w))
    assert 0 in w and 699 in w and 700 in w and 999 in w and 1000 in w
    assert figures.mi_window(50, 3, 5) == list(range(50))


def test_local_graph_caps_removed_candidates(res_wide):
    t = max((t for t in res_wide.targets if not t.skipped),
            key=lambda t: len(t.candidates) - len(t.pc))
    g = graphs.local_graph(res_wide, t.id, show_removed=True)
    removed = [n for n, a in g.nodes(data=True) if a["role"] == "removed"]
    assert len(removed) <= graphs.MAX_REMOVED + 1
    if len(t.candidates) - len(t.pc) > graphs.MAX_REMOVED:
        assert any(n.startswith("+") for n in removed)


def test_flow_bars_and_steps_bounded(res1000):
    fig = figures.flow_bars(res1000, max_categories=60)
    assert all(len(tr.x) <= 60 for tr in fig.data) and len(fig.data) == 7
    tid = summary.target_order(res1000, "skeleton")[0]
    fig = figures.skeleton_steps(res1000, tid, max_bars=40)
    assert all(len(tr.x) <= 40 for tr in fig.data)


def test_target_order(res1000):
    by_size = summary.target_order(res1000, "size")
    sizes = [res1000.targets[i].category.size for i in by_size]
    assert sizes == sorted(sizes, reverse=True)
    by_bl = summary.target_order(res1000, "blanket")
    bl = [len(res1000.targets[i].blanket) for i in by_bl]
    assert bl == sorted(bl, reverse=True)
    assert summary.target_order(res1000, "order") == sorted(by_size)
    with pytest.raises(ValueError):
        summary.target_order(res1000, "nonsense")
    assert "samples" in summary.target_label(res1000, by_size[0])


def test_page_bounds():
    assert summary.page_bounds(0, 1, 200) == (0, 0, 1)
    assert summary.page_bounds(450, 3, 200) == (400, 450, 3)
    assert summary.page_bounds(450, 9, 200) == (400, 450, 3)


def test_exported_skeleton_and_local_graphs_have_title_and_legend(res_wide):
    page = graphs.skeleton_graph_html(res_wide)
    assert "<title>Ca-MCF label skeleton" in page and "camcf-legend" in page
    t = next(t for t in res_wide.targets if not t.skipped)
    page = graphs.local_graph_html(res_wide, t.id)
    assert "local structure of" in page and "camcf-legend" in page
    assert "camcf-legend" not in graphs.local_graph_html(res_wide, t.id, decorate=False)
