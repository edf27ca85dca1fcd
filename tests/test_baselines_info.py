"""The information-theoretic baselines D2F, FIMF and MI-MCF.

D2F and FIMF are checked against straightforward loops over the formulas (the oracles below, one
entropy per ``np.unique`` of merged rows, the authors' accumulation order); MI-MCF's departures
from its paper are checked on small constructed cases.
"""

from __future__ import annotations

import math
from itertools import combinations

import numpy as np
import pytest
from sklearn.utils.estimator_checks import parametrize_with_checks

from camcf.baselines import D2F, FIMF, MIMCF
from camcf.baselines._discrete import (
    JointEntropies,
    compact_columns,
    label_codes,
)
from camcf.baselines.d2f import d2f_ranking
from camcf.baselines.fimf import fimf_scores
from camcf.baselines.mimcf import _MIMCF, dedupe, mi_from_table, mimcf_select
from camcf.errors import CamcfError, ParameterError


# ---- oracles ---------------------------------------------------------------------------------
def H(*cols) -> float:
    """Plug-in entropy in bits of the merged rows of the given columns."""
    M = np.column_stack(cols)
    _, c = np.unique(M, axis=0, return_counts=True)
    p = c / M.shape[0]
    return float(-(p * np.log2(p)).sum())


def d2f_naive(X, Y, *, accumulate=True):
    """The authors' loop: every step adds the terms of all selected features (or only the
    newest one with ``accumulate=False``, the reading the paper suggests)."""
    m, q = X.shape[1], Y.shape[1]
    scr = [sum(H(X[:, f]) - H(X[:, f], Y[:, a]) for a in range(q)) for f in range(m)]
    feat = [int(np.argmax(scr))]
    scr[feat[0]] = -np.inf
    for _ in range(1, m):
        for c in range(m):
            if np.isinf(scr[c]):
                continue
            for s in (feat if accumulate else feat[-1:]):
                for a in range(q):
                    scr[c] += (-H(X[:, c]) - H(X[:, s]) + H(X[:, c], X[:, s])
                               + H(X[:, c], Y[:, a]) - H(X[:, c], X[:, s], Y[:, a]))
        best = int(np.argmax(scr))
        feat.append(best)
        scr[best] = -np.inf
    return feat


def fimf_naive(X, Y, f_count=None, l_count=None):
    B = (X > 0.5).astype(int)
    L = (Y > 0.5).astype(int)
    m, q = B.shape[1], L.shape[1]
    hf = [H(B[:, k]) for k in range(m)]
    hl = [H(L[:, a]) for a in range(q)]
    scored = sorted(range(m), key=lambda k: -hf[k])[: f_count or m]  # sorted() is stable
    top = sorted(range(q), key=lambda a: -hl[a])[: l_count or q]
    scores = [-np.inf] * m
    for k in scored:
        s = hf[k] * q - sum(H(B[:, k], L[:, a]) for a in range(q))
        for i, j in combinations(range(len(top)), 2):
            a, b = top[i], top[j]
            s += -hf[k] + H(B[:, k], L[:, a]) + H(B[:, k], L[:, b]) - H(B[:, k], L[:, a], L[:, b])
        scores[k] = s
    return sorted(range(m), key=lambda k: -scores[k]), scores


def random_codes(seed, n=90, m=9, q=3, states=4):
    r = np.random.default_rng(seed)
    Y = r.integers(0, 2, (n, q))
    X = r.integers(0, states, (n, m))
    X[:, 0] = Y[:, 0] * 2 + r.integers(0, 2, n)  # some structure
    X[:, 1] = (Y[:, 1] + (r.random(n) < 0.2)) % 2
    return X, Y


# ---- shared pieces ---------------------------------------------------------------------------
def test_joint_entropies_equal_the_definition():
    r = np.random.default_rng(3)
    X = np.column_stack([r.integers(0, 3, 50), np.zeros(50, int), r.integers(0, 40, 50),
                         (r.random(50) < 0.1).astype(int)])
    codes, cards = compact_columns(X)
    z1 = r.integers(0, 2, 50)
    z2 = r.integers(5, 9, 50)  # codes need not start at 0
    got = JointEntropies(codes, cards).entropies([np.zeros(50, int), z1, z2])
    for j in range(X.shape[1]):
        assert got[j, 0] == pytest.approx(H(X[:, j]), abs=1e-12)
        assert got[j, 1] == pytest.approx(H(X[:, j], z1), abs=1e-12)
        assert got[j, 2] == pytest.approx(H(X[:, j], z2), abs=1e-12)
    # many states on both sides: counted by sorting instead of a count table
    z3 = r.integers(0, 45, 50)
    by_sort = JointEntropies(codes, cards)._by_sort(np.unique(z3, return_inverse=True)[1], 45)
    np.testing.assert_allclose(by_sort, [H(X[:, j], z3) for j in range(X.shape[1])], atol=1e-12)


def test_label_codes():
    Y = np.array([[0, -1, 2.5], [1, 1, 7.0], [1, -1, 2.5]])
    assert label_codes(Y).tolist() == [[0, 0, 0], [1, 1, 1], [1, 0, 0]]


# ---- D2F -------------------------------------------------------------------------------------
@pytest.mark.parametrize("seed", range(4))
def test_d2f_equals_the_authors_loop(seed):
    X, Y = random_codes(seed)
    ranking, scores = d2f_ranking(X, Y)
    assert ranking.tolist() == d2f_naive(X, Y)
    assert sorted(ranking.tolist()) == list(range(X.shape[1]))


def test_d2f_accumulates_every_selected_features_terms():
    # find data where adding only the newest feature's terms would rank differently
    for seed in range(40):
        X, Y = random_codes(100 + seed, n=60, m=6, q=2)
        acc, newest = d2f_naive(X, Y), d2f_naive(X, Y, accumulate=False)
        if acc != newest:
            assert d2f_ranking(X, Y)[0].tolist() == acc
            return
    pytest.fail("no data set separated the two readings")


def test_d2f_relevance_by_hand():
    # one label; feature 1 copies it, feature 0 is half of it: rel = −H(l | f)
    y = np.array([0, 0, 1, 1, 0, 1, 0, 1])
    X = np.column_stack([np.array([0, 0, 0, 0, 1, 1, 1, 1]), y])
    est = D2F(n_features_to_select=1).fit(X, y)
    assert est.ranking_.tolist() == [1, 0]
    assert est.scores_[1] == pytest.approx(0.0)  # H(f) − H(f, l) = 0 for a copy
    assert est.get_support().tolist() == [False, True]
    # second step: rel(0) + t(0, 1, l) = −1 + (−1 − 1 + 2 + 2 − 2) = −1
    assert est.scores_[0] == pytest.approx(-1.0)


def test_d2f_ties_go_to_the_lower_index():
    X, Y = random_codes(7, m=5)
    X = np.column_stack([X, X[:, 0], X[:, 3]])  # duplicates of features 0 and 3
    ranking = D2F().fit(X, Y).ranking_.tolist()
    assert ranking.index(0) < ranking.index(5)
    assert ranking.index(3) < ranking.index(6)
    assert ranking == d2f_naive(X, Y)


def test_d2f_breaks_exact_ties_by_the_authors_rounding():
    # feature 3 determines the label, so at step 2 every candidate scores −H(x3) exactly; the
    # authors' MATLAB picks by its rounding. Expected: d2f.m of the authors run in Octave 7.3.
    X = np.array([[1, 2, 2, 0, 2, 2, 0, 1, 2, 0, 2, 1, 1, 1, 1, 2],
                  [1, 2, 0, 0, 0, 0, 2, 1, 2, 1, 0, 1, 1, 1, 0, 1],
                  [0, 2, 1, 0, 1, 1, 0, 0, 0, 2, 0, 0, 1, 2, 2, 1],
                  [0, 2, 2, 3, 0, 0, 2, 2, 1, 0, 2, 0, 1, 2, 1, 1]]).T
    y = np.array([0, 1, 1, 1, 0, 0, 1, 1, 0, 0, 1, 0, 0, 1, 0, 0])
    assert D2F().fit(X, y).ranking_.tolist() == [3, 1, 2, 0]
    assert d2f_naive(X, y[:, None])[0] == 3


# ---- FIMF ------------------------------------------------------------------------------------
@pytest.mark.parametrize("seed", range(3))
@pytest.mark.parametrize("counts", [(None, None), (5, 2), (9, 3)])
def test_fimf_equals_the_formula(seed, counts):
    X, Y = random_codes(seed, q=4)
    ranking, scores = fimf_scores(X, Y, *counts)
    naive_rank, naive_scores = fimf_naive(X, Y, *counts)
    assert ranking.tolist() == naive_rank
    np.testing.assert_allclose(scores, naive_scores, atol=1e-9)


def test_fimf_binarises_at_one_half():
    X, Y = random_codes(5)
    Xf = X * 0.35  # codes 0, 0.35, 0.7, 1.05 → 0, 0, 1, 1
    a = FIMF().fit(Xf, Y)
    b = FIMF().fit((X >= 2).astype(int), Y)
    assert a.ranking_.tolist() == b.ranking_.tolist()
    np.testing.assert_array_equal(a.scores_, b.scores_)


def test_fimf_score_by_hand_and_unscored_features_last():
    # one label: score = H(f) − H(f, l) = −H(l | f); a copy of the label scores 0
    y = np.array([0, 1, 0, 1, 1, 0])
    X = np.column_stack([np.zeros(6, int), np.array([0, 0, 0, 1, 1, 1]), y])
    est = FIMF().fit(X, y)
    assert est.ranking_.tolist() == [2, 1, 0]
    assert est.scores_[2] == pytest.approx(0.0)
    assert est.scores_[0] == pytest.approx(-1.0)  # constant feature: −H(l) = −1
    assert est.scores_[1] == pytest.approx(-H(y, X[:, 1]) + 1.0)
    # f_count = 1 scores only the feature of highest entropy (ties: lower index): feature 1
    est = FIMF(f_count=1).fit(X, y)
    assert est.scores_[0] == -np.inf and est.scores_[2] == -np.inf
    assert est.ranking_.tolist() == [1, 0, 2]


def test_fimf_rejects_bad_counts():
    X, Y = random_codes(0)
    with pytest.raises(ParameterError, match="f_count"):
        FIMF(f_count=0).fit(X, Y)


# ---- MI-MCF ----------------------------------------------------------------------------------
def _run(X, Y, **kw):
    data = np.hstack([X, Y])
    prm = dict(alpha=0.05, k1=0.7, k2=0.1, variant="code") | kw
    return _MIMCF(data, Y.shape[1], prm["alpha"], prm["k1"], prm["k2"], prm["variant"])


def test_mi_is_scikit_learns_to_the_bit():
    from sklearn.metrics import mutual_info_score

    r = np.random.default_rng(0)
    for _ in range(100):
        n = int(r.integers(1, 80))
        a = r.integers(0, int(r.integers(1, 6)), n) * 3
        b = r.integers(0, int(r.integers(1, 6)), n)
        _, ia = np.unique(a, return_inverse=True)
        kb = np.unique(b).size
        _, ib = np.unique(b, return_inverse=True)
        table = np.bincount(ia * kb + ib, minlength=(ia.max() + 1) * kb).reshape(-1, kb)
        assert mi_from_table(table) == mutual_info_score(a, b)


def test_mimcf_su_mixes_nats_and_bits():
    y = np.array([0, 1] * 10)
    run = _run(y[:, None], y[:, None])
    # a copy of a fair coin: MI = ln 2 nats, H = 1 bit each → SU = 2·ln2 / 2 = ln 2, not 1
    assert run.su(0, 1) == pytest.approx(math.log(2))


def test_mimcf_g2_levels_are_max_plus_one():
    y = np.array([0, 1] * 20)
    x = y * 5  # two states, coded 0 and 5: six levels, dof = 5, needs n ≥ 50
    run = _run(x[:, None], y[:, None])
    assert run.g2(1, 0) == (1, 0)  # perfectly dependent, declared independent (n = 40 < 50)
    run2 = _run(y[:, None], y[:, None])
    p, dep = run2.g2(1, 0)
    assert p < 1e-6 and dep > 0


def test_mimcf_spouse_cmi_takes_codes_as_probabilities():
    lab = np.array([1, 1])
    f1 = np.array([0, 1])
    f2 = np.array([1, 0])
    run = _run(np.column_stack([f1, f2]), lab[:, None])
    # raveled codes (lab, f1, f2) in a 2×2×2 grid: 5, 6; (lab, f1) in 2×2: 2, 3
    expected = (-(5 / 11) * math.log(5 / 11) - (6 / 11) * math.log(6 / 11)
                + (2 / 5) * math.log(2 / 5) + (3 / 5) * math.log(3 / 5))
    assert run._cmi_spouse(2, 0, 1) == pytest.approx(expected)
    paper = _run(np.column_stack([f1, f2]), lab[:, None], variant="paper")
    assert paper._cmi_spouse(2, 0, 1) == pytest.approx(0.0)  # a constant label: no information


@pytest.mark.parametrize("n, independent", [(6, True), (20, False)])
def test_mimcf_ci_test_of_the_code(n, independent):
    # x = y, a fair coin, s constant 1: true I(x; y | s) = ln 2 = MI, yet the code's elements are
    # ln(n/4) and ln(n/2) (codes as probabilities): "independent" iff n is small enough
    x = np.array([0, 1] * (n // 2))
    run = _run(np.column_stack([x, x, np.ones(n, int)]), x[:, None])
    assert run.independent(0, 1, [2]) is independent


def test_mimcf_hard_coded_su_threshold_not_alpha():
    r = np.random.default_rng(0)
    y = r.integers(0, 2, 3000)
    weak = np.where(r.random(3000) < 0.62, y, 1 - y)  # clearly dependent, SU ≈ 0.03
    noise = r.integers(0, 2, 3000)
    X = np.column_stack([weak, noise, y])
    for alpha in (0.01, 0.5):
        run = _run(X, y[:, None], alpha=alpha)
        assert 0 < run.su(0, 3) < 0.05 and run.g2(3, 0)[0] < 1e-10
        assert run.pc(3) == [2]  # the copy only; the weak feature never enters


def test_mimcf_equal_su_higher_index_first():
    r = np.random.default_rng(1)
    y = r.integers(0, 2, 200)
    a = np.where(r.random(200) < 0.9, y, 1 - y)
    X = np.column_stack([a, a, r.integers(0, 2, 200)])
    run = _run(X, y[:, None])
    # features 0 and 1 tie; the reverse sort puts 1 first, and FCBF drops its copy 0
    assert run.pc(3) == [1]


def test_mimcf_phase2_mutates_the_stored_subsets():
    X, Y = random_codes(0, q=2)
    run = _run(X, Y)
    f = X.shape[1]
    label_i, label_j = f, f + 1
    PC = [[] for _ in range(f + 2)]
    PC[label_j] = [label_i, 0, 1]
    subsets = {label_j: [[], [0]]}
    run.independent = lambda x, y, s: False  # every test says "dependent"
    run.phase2(PC, [label_j], {label_j: [5]}, subsets)
    assert subsets[label_j] == [[label_i], [0, label_i]]  # the empty subset became [i] for good
    assert PC[label_j] == [0, 1, 5]  # the candidate joined, label i left
    PC[label_j] = [label_i, 0, 1]
    subsets = {label_j: [[], [0]]}
    run.independent = lambda x, y, s: True  # independent, also without i: discarded
    run.phase2(PC, [label_j], {label_j: [5]}, subsets)
    assert subsets[label_j] == [[], [0]]
    assert PC[label_j] == [0, 1]


def test_mimcf_dedupe_is_pythons_set_order():
    assert dedupe([9, 1]) == [9, 1]
    assert dedupe([1, 9]) == [1, 9]
    assert dedupe([3, 1, 3]) == [1, 3]


@pytest.mark.parametrize("variant", ["code", "paper"])
def test_mimcf_selects_related_features(variant):
    X, Y = random_codes(2, n=200, q=2)
    sel = MIMCF(variant=variant).fit(X, Y)
    assert sel.selected_ == sorted(sel.selected_)
    assert 0 in sel.selected_ or 1 in sel.selected_
    assert sel.support_.sum() == len(sel.selected_)


def test_mimcf_maps_labels_and_odd_codes():
    X, Y = random_codes(4, n=150, q=2)
    a = mimcf_select(X, Y)
    assert mimcf_select(X, 2 * Y - 1) == a  # −1/+1 labels read as 0/1
    assert mimcf_select(X - 0.5, Y) == mimcf_select(X, Y)  # non-integers: coded by rank


def test_parameter_errors_are_camcf_errors():
    X, Y = random_codes(0)
    with pytest.raises(CamcfError, match="k1"):
        MIMCF(k1=1.5).fit(X, Y)
    with pytest.raises(CamcfError, match="variant"):
        MIMCF(variant="x").fit(X, Y)


# ---- scikit-learn's contract -----------------------------------------------------------------
@parametrize_with_checks([D2F(), FIMF(), MIMCF()])
def test_sklearn_contract(estimator, check):
    check(estimator)


# ---- shared data sets ------------------------------------------------------------------------
@pytest.mark.parametrize("name", ["flags", "chd49", "yeast"])
def test_shared_data_sets(name, data_dir):
    from camcf.catalog import CATALOG, load_shared
    from camcf.discretize import discretize

    if not (data_dir / CATALOG[name].path).is_file():
        pytest.skip(f"{name} not in {data_dir}")
    ds = load_shared(name, data_dir)
    X, _ = discretize(ds.X)
    Y = np.asarray(ds.Y)
    for est in (D2F(), FIMF()):
        est.fit(X, Y)
        assert sorted(est.ranking_.tolist()) == list(range(X.shape[1]))
    if name != "yeast":  # MI-MCF on Yeast takes a while: see benchmarks/bench_baselines.py
        sel = MIMCF().fit(X, Y)
        assert 0 < len(sel.selected_) <= X.shape[1]
