"""The information engine: hand-computed values, identities, and fast == reference."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from camcf.info import (
    FastEngine,
    ReferenceEngine,
    conditional_mutual_information,
    entropy,
    mutual_information,
)


def h2(p: float) -> float:
    return 0.0 if p in (0, 1) else -(p * math.log2(p) + (1 - p) * math.log2(1 - p))


def test_entropy_by_hand():
    assert entropy(np.array([0, 0, 1, 1])) == pytest.approx(1.0)
    assert entropy(np.array([0, 0, 0, 1])) == pytest.approx(h2(0.25))
    assert entropy(np.array([0, 1, 2, 3])) == pytest.approx(2.0)
    # joint entropy of two columns: states (0,0) ×2, (0,1), (1,1) → H(1/2, 1/4, 1/4) = 1.5
    assert entropy(np.array([0, 0, 0, 1]), np.array([0, 0, 1, 1])) == pytest.approx(1.5)


def test_mutual_information_by_hand():
    x = np.array([0, 0, 0, 1])
    y = np.array([0, 0, 1, 1])
    # H(X) + H(Y) − H(X,Y) = 0.811278… + 1 − 1.5
    assert mutual_information(x, y) == pytest.approx(h2(0.25) + 1 - 1.5)
    assert mutual_information(x, y) == pytest.approx(0.311278124459, abs=1e-12)
    assert mutual_information(np.array([0, 0, 1, 1]), np.array([0, 1, 0, 1])) == 0.0


def test_cmi_xor_by_hand():
    # X, Y independent fair bits, Z = X xor Y: I(X;Y) = 0 but I(X;Y|Z) = 1 bit
    x = np.array([0, 0, 1, 1])
    y = np.array([0, 1, 0, 1])
    z = x ^ y
    assert mutual_information(x, y) == pytest.approx(0.0)
    assert conditional_mutual_information(x, y, z) == pytest.approx(1.0)


def test_cmi_conditioning_set_is_one_joint_variable():
    rng = np.random.default_rng(1)
    x, y, a, b = rng.integers(0, 3, size=(4, 300))
    joint = a * 3 + b
    assert conditional_mutual_information(x, y, np.column_stack([a, b])) == pytest.approx(
        conditional_mutual_information(x, y, joint))


codes = st.lists(st.integers(0, 3), min_size=8, max_size=60)


@st.composite
def three_vars(draw):
    n = draw(st.integers(8, 60))
    col = st.lists(st.integers(0, 3), min_size=n, max_size=n)
    return tuple(np.array(draw(col)) for _ in range(3))


@settings(max_examples=60, deadline=None)
@given(three_vars())
def test_identities(v):
    x, y, z = v
    ixy = mutual_information(x, y)
    assert ixy >= -1e-12
    assert ixy == pytest.approx(mutual_information(y, x), abs=1e-12)
    assert conditional_mutual_information(x, y, z) >= -1e-12
    # chain rule: I(X; Y,Z) = I(X; Z) + I(X; Y | Z)
    left = mutual_information(x, np.column_stack([y, z]))
    right = mutual_information(x, z) + conditional_mutual_information(x, y, z)
    assert left == pytest.approx(right, abs=1e-9)
    # I(X; X) = H(X)
    assert mutual_information(x, x) == pytest.approx(entropy(x), abs=1e-12)


def _engines(X, C):
    return FastEngine(X, C), ReferenceEngine(X, C)


@pytest.mark.parametrize("density", [0.05, 0.5])
def test_fast_engine_matches_reference(density):
    rng = np.random.default_rng(7)
    n, m = 400, 60
    X = (rng.random((n, m)) < density).astype(int) * rng.integers(1, 4, size=(n, m))
    C = np.column_stack([X[:, 0] > 0, X[:, 1] > 0, rng.random(n) < 0.3]).astype(int)
    fast, ref = _engines(X, C)
    np.testing.assert_allclose(fast.mi_table(), ref.mi_table(), atol=1e-12)
    np.testing.assert_allclose(fast.category_mi_table(), ref.category_mi_table(), atol=1e-12)
    for cond in ([], [5], [m + 1], [3, 9, m + 2], list(range(10, 25))):
        cols = [j for j in range(m + 3) if j not in cond]
        a = fast.cmi_many(0, cols, cond)
        b = ref.cmi_many(0, cols, cond)
        np.testing.assert_allclose(a, b, atol=1e-12, err_msg=f"cond={cond}")


def test_leave_one_out_matches_reference():
    rng = np.random.default_rng(3)
    X = rng.integers(0, 3, size=(300, 12))
    C = (X[:, :2] > 0).astype(int)
    fast, ref = _engines(X, C)
    members, fixed = [2, 4, 6, 8], [12 + 1]
    lf, lr = fast.leave_one_out(0, members, fixed), ref.leave_one_out(0, members, fixed)
    for f in [2, 6]:
        assert lf.value(f) == pytest.approx(lr.value(f), abs=1e-12)
        lf.remove(f)
        lr.remove(f)
    assert lf.value(4) == pytest.approx(lr.value(4), abs=1e-12)
    # only one member left and nothing fixed: the plain MI
    lf2 = fast.leave_one_out(0, [8], [])
    assert lf2.value(8) == pytest.approx(fast.mi_table()[8, 0], abs=1e-15)


@pytest.mark.parametrize("codes", [2, 3, 5])
def test_blas_counting_matches_reference(codes):
    """With the shared float32 indicators the engine counts by BLAS products (few cells); the
    values are the reference's, for a few columns or most of them, with dead strata or not."""
    from camcf.info import category_indicators, feature_indicators, pool_cardinality

    rng = np.random.default_rng(codes)
    n, m = 300, 40
    X = np.asfortranarray(rng.integers(0, codes, size=(n, m)).astype(np.uint8))
    C = np.column_stack([X[:, 0] % 2, rng.random(n) < 0.3, X[:, 1] == 0]).astype(np.uint8)
    card = pool_cardinality(X, C)
    ind = feature_indicators(X, card)
    assert ind is not None and ind.shape == (codes - 1, n, m)
    fast = FastEngine(X, C, card=card, indicators=(ind, category_indicators(C)))
    ref = ReferenceEngine(X, C)
    for cond in ([m + 1], [m + 2, m + 1], [2], [m + 1, 3]):
        for cols in (np.arange(m), np.arange(4, 9), np.array([m, m + 2])):
            np.testing.assert_allclose(fast.cmi_many(0, cols, cond), ref.cmi_many(0, cols, cond),
                                       atol=1e-12, err_msg=f"cond={cond}")
    # too big for the budget or sparse: no indicators
    import scipy.sparse as sp

    assert feature_indicators(sp.csc_matrix(X), card) is None


@pytest.mark.parametrize("layout", ["dense", "sparse"])
@pytest.mark.parametrize("threshold", [0.0, 0.004, 0.02, 1.0])
def test_backward_walk_matches_reference_step_by_step(layout, threshold):
    """walk() computes batches assuming each member is removed; whatever the caller decides,
    every value equals the reference's for the members at that moment, and the counters match
    one test per step."""
    import scipy.sparse as sp

    rng = np.random.default_rng(11)
    n, m = 250, 40
    X = rng.integers(0, 3, size=(n, m)) * (rng.random((n, m)) < 0.4)
    C = np.column_stack([(X[:, 0] + X[:, 1]) % 2, rng.random(n) < 0.4]).astype(int)
    Xe = sp.csc_matrix(X) if layout == "sparse" else X
    fast, ref = FastEngine(Xe, C), ReferenceEngine(X, C)
    members = list(rng.permutation(m)[:30])
    fixed = [m + 1]
    lf, lr = fast.leave_one_out(0, members, fixed), ref.leave_one_out(0, members, fixed)
    kept = removed = 0
    for f, v in lf.walk(list(members)):
        assert v == pytest.approx(lr.value(f), abs=1e-12)
        if v <= threshold:
            lf.remove(f)
            lr.remove(f)
            removed += 1
        else:
            kept += 1
    assert lf.members == lr.members
    assert fast.stats()["tests"] == len(members)
    if threshold == 0.0:
        assert kept > 0
    if threshold == 1.0:
        assert kept == 0  # every step removed: one batch after another, all exact


def test_engine_counts_tests_and_hits():
    rng = np.random.default_rng(0)
    X = rng.integers(0, 2, size=(100, 5))
    C = X[:, :1]
    eng = FastEngine(X, C)
    eng.cmi_many(0, [1, 2], [3])  # conditional: counted
    eng.cmi_many(0, [1, 2], [])  # unconditional: read from the MI table
    st_ = eng.stats()
    assert st_["tests"] == 4
    assert st_["cache_hits"] == 2
