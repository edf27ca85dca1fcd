"""The truth of a known DAG and the one scoring function (camcf.truth): each score against a
hand-computed case, the blankets against pgmpy's own ``get_markov_blanket``."""

from __future__ import annotations

import math

import networkx as nx
import numpy as np
import pytest

from camcf.errors import DataFormatError, LabelSpecError
from camcf.truth import Truth, blanket_of, found_in_result, score, score_blankets, truth_of


# ------------------------------------------------------------------------ score, by hand
def test_score_by_hand():
    # found {a, b, c}, true {b, c, d, e}: tp = 2; P = 2/3, R = 2/4, F1 = 2PR/(P+R) = 4/7,
    # distance = sqrt((1/3)^2 + (1/2)^2) = sqrt(13)/6
    s = score(["a", "b", "c"], ["b", "c", "d", "e"])
    assert s.precision == pytest.approx(2 / 3)
    assert s.recall == pytest.approx(0.5)
    assert s.f1 == pytest.approx(4 / 7)
    assert s.distance == pytest.approx(math.sqrt(13) / 6)
    assert s.found == ("a", "b", "c") and s.true == ("b", "c", "d", "e")
    assert s.tp == ("b", "c") and s.missed == ("d", "e") and s.extra == ("a",)


def test_score_perfect_and_disjoint():
    s = score({3, 1}, [1, 3, 3])
    assert (s.precision, s.recall, s.f1, s.distance) == (1.0, 1.0, 1.0, 0.0)
    s = score({1}, {2})
    assert (s.precision, s.recall, s.f1) == (0.0, 0.0, 0.0)
    assert s.distance == pytest.approx(math.sqrt(2))


def test_score_empty_sets_follow_pycausalfs():
    # pyCausalFS CBD/evaluation_MBalgorithm.py: both empty = 1; one of them empty = 0
    both = score([], [])
    assert (both.precision, both.recall, both.f1, both.distance) == (1.0, 1.0, 1.0, 0.0)
    for found, true in (([], ["x"]), (["x"], [])):
        s = score(found, true)
        assert (s.precision, s.recall, s.f1) == (0.0, 0.0, 0.0)
        assert s.distance == pytest.approx(math.sqrt(2))


def test_score_only_recall_wrong():
    # found {a}, true {a, b, c, d}: P = 1, R = 1/4, F1 = 2/5, distance = 3/4
    s = score({"a"}, {"a", "b", "c", "d"})
    assert (s.precision, s.recall) == (1.0, 0.25)
    assert s.f1 == pytest.approx(0.4) and s.distance == pytest.approx(0.75)


# ------------------------------------------------------------------------ blankets, by hand
def _dag(edges):
    g = nx.DiGraph()
    g.add_edges_from(edges)
    return g


def test_blanket_parents_children_spouses_are_disjoint():
    # p -> L -> c <- s ; p -> c (p is a parent and a co-parent: listed once, as a parent)
    # L -> d ; d -> e (grandchild e is not a member) ; q -> p (grandparent q is not either)
    g = _dag([("p", "L"), ("L", "c"), ("s", "c"), ("p", "c"), ("L", "d"), ("d", "e"),
              ("q", "p")])
    b = blanket_of(g, "L")
    assert b.parents == ("p",) and b.children == ("c", "d") and b.spouses == ("s",)
    assert b.blanket == ("c", "d", "p", "s")
    assert b.role("s") == "spouse" and b.role("p") == "parent" and b.role("e") is None


def test_truth_splits_the_blanket_into_features_and_labels():
    # f1 -> A -> B <- f2 ; B -> f3 ; A -> f4 <- f5
    g = _dag([("f1", "A"), ("A", "B"), ("f2", "B"), ("B", "f3"), ("A", "f4"), ("f5", "f4")])
    t = truth_of(g, ["A", "B"], network="hand")
    assert t.features == ("f1", "f2", "f3", "f4", "f5")
    assert t.feature_blanket("A") == ("f1", "f2", "f4", "f5")  # f2: co-parent of child B
    assert t.label_blanket("A") == ("B",)
    assert t.feature_blanket("B") == ("f2", "f3") and t.label_blanket("B") == ("A",)
    assert t.selection() == ("f1", "f2", "f3", "f4", "f5")
    cats = t.category_blankets(["f5", "f1", "f2", "f3", "f4"], ["B", "A"], [[0, 1], [0, 2]])
    assert cats[(0, 0)] == cats[(0, 1)] == frozenset({2, 3})
    assert cats[(1, 2)] == frozenset({0, 1, 2, 4})
    with pytest.raises(LabelSpecError, match="not nodes"):
        truth_of(g, ["A", "Z"])


def test_truth_json_round_trip(tmp_path):
    g = _dag([("f1", "A"), ("A", "B"), ("f2", "B")])
    t = truth_of(g, ["B", "A"], network="hand")
    d = t.to_dict()
    assert d == {"network": "hand", "labels": ["A", "B"], "features": ["f1", "f2"],
                 "blankets": {"A": {"parents": ["f1"], "children": ["B"], "spouses": ["f2"],
                                    "blanket": ["B", "f1", "f2"]},
                              "B": {"parents": ["A", "f2"], "children": [], "spouses": [],
                                    "blanket": ["A", "f2"]}}}
    path = t.write(tmp_path / "t.truth.json")
    back = Truth.read(path)
    assert back.to_dict() == d and back.feature_blanket("A") == ("f1", "f2")
    (tmp_path / "bad.json").write_text('{"labels": ["A"]}')
    with pytest.raises(DataFormatError, match="not a camcf truth file"):
        Truth.read(tmp_path / "bad.json")
    (tmp_path / "text.json").write_text("no json")
    with pytest.raises(DataFormatError, match="not JSON"):
        Truth.read(tmp_path / "text.json")
    with pytest.raises(DataFormatError, match="no such truth file"):
        Truth.read(tmp_path / "absent.json")


def test_score_blankets_per_label_overall_and_mean():
    g = _dag([("f1", "A"), ("A", "B"), ("f2", "B"), ("B", "f3"), ("f4", "f3")])
    t = truth_of(g, ["A", "B"])
    # A: true {f1, f2}; B: true {f2, f3, f4}; union {f1, f2, f3, f4}
    got = score_blankets(t, {"A": ["f1", "f3"], "B": ["f2", "f3", "f4"]},
                         labels={"A": ["B"], "B": []})
    a, b = got["per_label"]["A"], got["per_label"]["B"]
    assert (a["precision"], a["recall"], a["f1"]) == (0.5, 0.5, 0.5)
    assert (b["precision"], b["recall"], b["f1"]) == (1.0, 1.0, 1.0)
    assert a["found"] == ["f1", "f3"] and a["true"] == ["f1", "f2"]
    assert a["labels"]["f1"] == 1.0                     # R of A found its true label B
    assert b["labels"]["recall"] == 0.0 and b["labels"]["true"] == ["A"]
    # overall: the union {f1, f2, f3, f4} = the true union
    assert got["overall"]["f1"] == 1.0
    assert got["mean"]["f1"] == pytest.approx(0.75)
    assert got["mean"]["distance"] == pytest.approx((math.hypot(0.5, 0.5) + 0) / 2)
    # a label missing from the answer is an empty answer
    assert score_blankets(t, {"B": ["f2"]})["per_label"]["A"]["f1"] == 0.0


def test_found_in_result_is_the_union_of_the_categories():
    import camcf

    rng = np.random.default_rng(0)
    X = rng.integers(0, 3, size=(600, 4))
    m = np.clip(X[:, 0] + (rng.random(600) < 0.1), 0, 2)  # a three-class label from f0
    b = (X[:, 2] > 0).astype(int) ^ (rng.random(600) < 0.05)
    res = camcf.run(X, np.column_stack([m, b]), feature_names=["f0", "f1", "f2", "f3"],
                    label_names=["M", "B"])
    feats, labs = found_in_result(res)
    for lab in ("M", "B"):
        union = {res.feature_names[f] for t in res.targets if t.category.label == lab
                 and not t.skipped for f in t.blanket}
        assert feats[lab] == sorted(union)
        assert lab not in labs[lab]
    assert feats["M"] == ["f0"] and feats["B"] == ["f2"]


# ------------------------------------------------------------------------ against pgmpy
@pytest.mark.parametrize("name", ["alarm", "child", "insurance", "asia", "sachs"])
def test_blankets_are_pgmpys_markov_blankets(name):
    from camcf import networks

    net = networks.load(name)
    model = net.model  # pgmpy's DiscreteBayesianNetwork read from its own BIF
    for node in net.nodes:
        assert set(blanket_of(net.graph, node).blanket) == set(model.get_markov_blanket(node))
    t = net.truth("auto:4")
    for lab in t.labels:
        mb = set(model.get_markov_blanket(lab))
        assert set(t.feature_blanket(lab)) == mb - set(t.labels)
        assert set(t.label_blanket(lab)) == mb & set(t.labels)
