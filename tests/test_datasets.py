"""Tests of the built-in causal demo generator (camcf.datasets)."""

from __future__ import annotations

import networkx as nx
import numpy as np
import pytest

from camcf.dataset import Dataset
from camcf.datasets import (
    DEMO_NETWORK,
    NodeSpec,
    build_cpts,
    make_causal_multilabel,
    markov_blanket_features,
    network_graph,
)
from camcf.truth import score


# ---------------------------------------------------------------------------------------------
# A tiny plug-in (conditional) mutual information, in bits, written independently of camcf.
# ---------------------------------------------------------------------------------------------
def _entropy(*cols: np.ndarray) -> float:
    if not cols:
        return 0.0
    _, counts = np.unique(np.column_stack(cols), axis=0, return_counts=True)
    p = counts / counts.sum()
    return float(-(p * np.log2(p)).sum())


def cmi(a: np.ndarray, b: np.ndarray, *given: np.ndarray) -> float:
    """I(a; b | given) = H(a,S) + H(b,S) - H(S) - H(a,b,S)."""
    return _entropy(a, *given) + _entropy(b, *given) - _entropy(*given) - _entropy(a, b, *given)


def test_cmi_helper_on_known_values():
    a = np.array([0, 1] * 50)
    assert cmi(a, a) == pytest.approx(1.0)
    assert cmi(a, np.zeros(100, dtype=int)) == pytest.approx(0.0)
    x, z = np.array([0, 0, 1, 1] * 25), np.array([0, 1, 0, 1] * 25)
    y = x ^ z
    assert cmi(y, z) == pytest.approx(0.0)
    assert cmi(y, z, x) == pytest.approx(1.0)


# ---------------------------------------------------------------------------------------------
# Fixtures
# ---------------------------------------------------------------------------------------------
def _col(demo, name):
    ds = demo.dataset
    if name in ds.feature_names:
        return ds.X[:, ds.feature_names.index(name)].astype(int)
    return ds.Y[:, ds.label_names.index(name)]


def _graph(nodes: dict[str, str], edges: list[tuple[str, str]]) -> nx.DiGraph:
    g = nx.DiGraph()
    for name, kind in nodes.items():
        g.add_node(name, kind=kind)
    g.add_edges_from(edges)
    return g


# ---------------------------------------------------------------------------------------------
# Determinism and shape
# ---------------------------------------------------------------------------------------------
def test_same_seed_gives_identical_data():
    a = make_causal_multilabel(300, seed=7)
    b = make_causal_multilabel(300, seed=7)
    np.testing.assert_array_equal(a.dataset.X, b.dataset.X)
    np.testing.assert_array_equal(a.dataset.Y, b.dataset.Y)
    assert a.dataset.fingerprint() == b.dataset.fingerprint()
    assert a.true_blankets == b.true_blankets


def test_different_seed_gives_different_data():
    a = make_causal_multilabel(300, seed=7)
    b = make_causal_multilabel(300, seed=8)
    assert not np.array_equal(a.dataset.X, b.dataset.X)
    assert not np.array_equal(a.dataset.Y, b.dataset.Y)


def test_cpts_are_deterministic_from_the_seed_and_normalised():
    c1 = build_cpts(DEMO_NETWORK, np.random.default_rng(3))
    c2 = build_cpts(DEMO_NETWORK, np.random.default_rng(3))
    c3 = build_cpts(DEMO_NETWORK, np.random.default_rng(4))
    assert all(np.array_equal(c1[k], c2[k]) for k in c1)
    assert any(not np.array_equal(c1[k], c3[k]) for k in c1)
    for table in c1.values():
        np.testing.assert_allclose(table.sum(axis=-1), 1.0)


def test_demo_shape_and_metadata(demo):
    ds = demo.dataset
    assert isinstance(ds, Dataset)
    assert ds.n_samples == 1000
    assert 20 <= ds.n_features <= 30
    assert 4 <= ds.n_labels <= 5
    assert ds.feature_names == [f"f{j:02d}" for j in range(ds.n_features)]
    assert ds.label_names == ["A", "B", "M", "C", "D"]
    assert ds.X.dtype == np.float64 and ds.Y.dtype == np.int8
    np.testing.assert_array_equal(ds.X, np.round(ds.X))
    assert ds.X.min() >= 0 and ds.Y.min() >= 0
    assert ds.source.startswith("built-in demo (seed 0")
    assert ds.category_names[2] == {0: "low", 1: "mid", 2: "high"}
    assert demo.seed == 0


def test_graph_is_a_dag_with_kinds_and_indices(demo):
    g = demo.graph
    ds = demo.dataset
    assert nx.is_directed_acyclic_graph(g)
    assert set(g.nodes) == set(ds.feature_names) | set(ds.label_names)
    for j, name in enumerate(ds.feature_names):
        assert g.nodes[name]["kind"] == "feature" and g.nodes[name]["index"] == j
    for i, name in enumerate(ds.label_names):
        assert g.nodes[name]["kind"] == "label" and g.nodes[name]["index"] == i
    label_edges = [(u, v) for u, v in g.edges if g.nodes[u]["kind"] == g.nodes[v]["kind"] == "label"]
    assert label_edges, "the demo must have a label -> label edge"


def test_bad_network_is_rejected():
    with pytest.raises(ValueError, match="listed before"):
        network_graph([NodeSpec("y", "label", 2, ("x",), "copy"), NodeSpec("x", "feature", 2)])
    with pytest.raises(ValueError, match=r"n must be in \[1, inf\), got 0"):
        make_causal_multilabel(0)


# ---------------------------------------------------------------------------------------------
# markov_blanket_features on hand-worked networks
# ---------------------------------------------------------------------------------------------
def test_mb_chain():
    # x1 -> x2 -> L -> x3 -> x4 : only the neighbours of L.
    g = _graph(
        {"x1": "feature", "x2": "feature", "L": "label", "x3": "feature", "x4": "feature"},
        [("x1", "x2"), ("x2", "L"), ("L", "x3"), ("x3", "x4")],
    )
    assert markov_blanket_features(g, "L") == {"x2", "x3"}
    assert markov_blanket_features(g, "x3") == {"x4"}  # L is a label: not listed


def test_mb_collider_parents():
    # x -> L <- z : both parents; x and z are each other's spouse through L (a label child).
    g = _graph({"x": "feature", "z": "feature", "L": "label"}, [("x", "L"), ("z", "L")])
    assert markov_blanket_features(g, "L") == {"x", "z"}
    assert markov_blanket_features(g, "x") == {"z"}


def test_mb_fork():
    # L <- h -> x ; L -> c : the common cause is a parent, its other child is not a member.
    g = _graph(
        {"h": "feature", "x": "feature", "L": "label", "c": "feature"},
        [("h", "L"), ("h", "x"), ("L", "c")],
    )
    assert markov_blanket_features(g, "L") == {"h", "c"}


def test_mb_label_to_label():
    # a -> A -> B <- b ; B -> c : for A the feature parent b of its label child B is a spouse;
    # for B the grandparent a is not a member and the label parent A is not a feature.
    g = _graph(
        {"a": "feature", "A": "label", "B": "label", "b": "feature", "c": "feature"},
        [("a", "A"), ("A", "B"), ("b", "B"), ("B", "c")],
    )
    assert markov_blanket_features(g, "A") == {"a", "b"}
    assert markov_blanket_features(g, "B") == {"b", "c"}


def test_mb_feature_child_with_spouse():
    # L -> c <- s ; s <- t ; c -> d : spouse s is a member, its parent t and grandchild d are not.
    g = _graph(
        {"L": "label", "c": "feature", "s": "feature", "t": "feature", "d": "feature"},
        [("L", "c"), ("s", "c"), ("t", "s"), ("c", "d")],
    )
    assert markov_blanket_features(g, "L") == {"c", "s"}


def test_mb_spouse_through_label_child_but_not_label_spouse():
    # L -> K <- s ; L -> K <- M (label) ; M's parent m is not a member of L.
    g = _graph(
        {"L": "label", "K": "label", "M": "label", "s": "feature", "m": "feature"},
        [("L", "K"), ("s", "K"), ("M", "K"), ("m", "M")],
    )
    assert markov_blanket_features(g, "L") == {"s"}


def test_demo_true_blankets_match_the_story(demo):
    ds = demo.dataset
    named = {
        (ds.label_names[i], c): {ds.feature_names[j] for j in js}
        for (i, c), js in demo.true_blankets.items()
    }
    assert named[("A", 0)] == {"f00", "f04", "f05"}
    assert named[("B", 1)] == {"f00", "f01", "f02", "f03"}  # f03: spouse through label D
    assert named[("M", 1)] == {"f07", "f08", "f09", "f10", "f11"}  # f10, f11: through C
    assert named[("C", 0)] == {"f10", "f11"}  # f09 (M's child) is not a member
    assert named[("D", 1)] == {"f03"}
    # a category indicator uses the label's feature set
    assert named[("M", 0)] == named[("M", 1)] == named[("M", 2)]


def test_true_blankets_cover_every_label_category(demo):
    ds = demo.dataset
    expected = {(i, int(c)) for i in range(ds.n_labels) for c in np.unique(ds.Y[:, i])}
    assert set(demo.true_blankets) == expected
    assert all(isinstance(v, frozenset) for v in demo.true_blankets.values())
    noise = {ds.feature_names.index(f"f{j}") for j in range(12, 24)}
    assert not any(v & noise for v in demo.true_blankets.values())


# ---------------------------------------------------------------------------------------------
# The promised statistical properties, checked empirically on the default demo
# ---------------------------------------------------------------------------------------------
def test_multiclass_label_has_three_populated_categories(demo):
    m = _col(demo, "M")
    values, counts = np.unique(m, return_counts=True)
    assert len(values) >= 3
    assert counts.min() >= 5
    binary = [name for name in demo.dataset.label_names if set(np.unique(_col(demo, name))) == {0, 1}]
    assert len(binary) >= 3


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_collider_spouse_is_weak_alone_and_strong_given_its_co_parent(seed):
    d = make_causal_multilabel(1000, seed=seed)
    c, f10, f11 = _col(d, "C"), _col(d, "f10"), _col(d, "f11")
    assert cmi(c, f11) < 0.05
    assert cmi(c, f11, f10) > 0.1  # twice delta1
    assert cmi(c, f10) > 0.1


def test_blocked_feature_is_screened_off_by_the_correlated_label(demo):
    a, b, f00 = _col(demo, "A"), _col(demo, "B"), _col(demo, "f00")
    assert cmi(a, b) > 0.3  # strong label-label tie (enters R at delta2 = 0.1)
    assert cmi(b, f00) > 0.3
    assert cmi(b, f00, a) < 0.05
    # ... yet f00, not A, is B's parent: A adds nothing once f00 is known
    assert cmi(b, a, f00) < 0.01


def test_label_parent_screens_off_its_parents_from_the_child_label(demo):
    b, d, f00 = _col(demo, "B"), _col(demo, "D"), _col(demo, "f00")
    assert cmi(d, f00) > 0.05
    assert cmi(d, f00, b) < 0.01


def test_child_of_other_label_is_better_explained_by_it(demo):
    c, m, f09 = _col(demo, "C"), _col(demo, "M"), _col(demo, "f09")
    # no single category of M is tied to C above delta2 ...
    assert max(cmi(c, (m == k).astype(int)) for k in range(3)) < 0.1
    # ... but M's child f09 is associated with C above delta1, and far more with a category of M
    s = cmi(c, f09)
    assert s > 0.05
    assert max(cmi(f09, (m == k).astype(int)) for k in range(3)) > 1.2 * s
    # and it is screened off by M itself
    assert cmi(c, f09, m) < 0.02


def test_a_spouse_through_a_feature_child(demo):
    a, f04, f05 = _col(demo, "A"), _col(demo, "f04"), _col(demo, "f05")
    assert cmi(a, f05) < 0.01
    assert cmi(a, f05, f04) > 0.05


def test_noise_features_are_irrelevant(demo):
    ds = demo.dataset
    for j in range(12, 24):
        x = ds.X[:, j].astype(int)
        for i in range(ds.n_labels):
            assert cmi(ds.Y[:, i], x) < 0.03, (ds.feature_names[j], ds.label_names[i])


# ---------------------------------------------------------------------------------------------
# scores of a found blanket (camcf.truth.score; the hand-computed cases are in test_truth.py)
# ---------------------------------------------------------------------------------------------
def test_score_counts():
    r = score({1, 2, 5}, {2, 3, 5, 7})
    assert r.tp == (2, 5) and r.missed == (3, 7) and r.extra == (1,)
    assert r.precision == pytest.approx(2 / 3)
    assert r.recall == pytest.approx(0.5)
    assert r.f1 == pytest.approx(2 * (2 / 3) * 0.5 / (2 / 3 + 0.5))


def test_score_edge_cases_follow_pycausalfs():
    r = score(set(), set())
    assert (r.precision, r.recall, r.f1, r.distance) == (1.0, 1.0, 1.0, 0.0)
    r = score({4}, {1})
    assert (r.precision, r.recall, r.f1) == (0.0, 0.0, 0.0)
    r = score(set(), {1, 2})
    assert r.missed == (1, 2) and (r.precision, r.recall, r.f1) == (0.0, 0.0, 0.0)


# ---------------------------------------------------------------------------------------------
# The demo's purpose: every phase of Ca-MCF has work to do (authors' parameters)
# ---------------------------------------------------------------------------------------------
def test_every_phase_does_something_on_the_default_demo(demo):
    import camcf

    if not hasattr(camcf, "run"):
        pytest.skip("camcf.run is not available")
    ds = demo.dataset
    res = camcf.run(ds.X.astype(int), ds.Y, delta1=0.05, delta2=0.1, k1=0.7, k2=1.0)
    targets = [t for t in res.targets if not t.skipped]
    assert len(targets) == len(demo.true_blankets)
    assert any(t.skeleton for t in targets)  # Phase 1: a label skeleton
    assert any(t.spouses for t in targets)  # Phase 2: spouses
    assert any(len(t.candidates) < len(t.candidates_all) for t in targets)  # k1 cut
    assert any(t.recovered for t in targets)  # Phase 3: recovery from label blocking
    assert any(t.symmetry_removed for t in targets)  # Phase 4: symmetry
    assert any(t.redundancy_removed for t in targets)  # Phase 4: redundancy
    by_key = {(t.category.label_index, t.category.value): t for t in targets}
    f = ds.feature_names.index
    # C: M's child f09 is removed as redundant; f10 is selected
    c_target = by_key[(ds.label_names.index("C"), 1)]
    assert f("f09") in [r[0] for r in c_target.redundancy_removed]
    assert f("f10") in c_target.blanket
    # B: f00 is blocked by A and recovered in Phase 3
    b_target = by_key[(ds.label_names.index("B"), 1)]
    assert f("f00") in [r[0] for r in b_target.recovered]
