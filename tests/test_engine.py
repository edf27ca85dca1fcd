"""The information engine: hand-computed values, identities, and fast == reference."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from camcf import fast_engine
from camcf.engines import ENGINES
from camcf.fast_engine import FastEngine
from camcf.info import (
    Engine,
    LeaveOneOutSession,
    ReferenceEngine,
    cmi_from_counts,
    conditional_mutual_information,
    contingency,
    entropy,
    joint_codes,
    mutual_information,
    pool_levels,
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
    from camcf.fast_counts import category_indicators, feature_indicators, pool_cardinality

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
    st_ = fast.stats()
    assert st_["computed"] + st_["lookups"] == len(members)  # one value per step, none twice
    if threshold == 0.0:
        assert kept > 0
    if threshold == 1.0:
        assert kept == 0  # every step removed: one batch after another, all exact


def test_engine_counts_its_own_work():
    rng = np.random.default_rng(0)
    X = rng.integers(0, 2, size=(100, 5))
    C = X[:, :1]
    eng = FastEngine(X, C)
    eng.cmi_many(0, [1, 2], [3])  # conditional: computed by counting
    eng.cmi_many(0, [1, 2], [])  # unconditional: read from the MI table
    assert eng.stats() == {"computed": 2, "lookups": 2}
    ref = ReferenceEngine(X, C)
    ref.cmi_many(0, [1, 2], [])
    assert ref.stats() == {"computed": 2, "lookups": 0}  # the reference computes everything


def test_engines_registry_and_protocol():
    assert set(ENGINES) == {"fast", "reference"}
    X = np.zeros((4, 2), dtype=int)
    C = np.array([[0], [1], [0], [1]])
    for name, cls in ENGINES.items():
        eng = cls(X, C, **cls.shared(X, C))
        assert isinstance(eng, Engine), name
        assert isinstance(eng.leave_one_out(0, [0, 1], []), LeaveOneOutSession), name
    assert ENGINES["fast"].mirrors and not ENGINES["reference"].mirrors


def test_cmi_from_counts_is_the_plug_in_formula():
    rng = np.random.default_rng(5)
    a, b, z = rng.integers(0, 3, size=(3, 500))
    table = contingency(a, b, z)  # (Z, A, B)
    assert table.shape == (3, 3, 3) and table.sum() == 500
    # H(A,Z) + H(B,Z) − H(Z) − H(A,B,Z), the definition, from entropies
    want = entropy(a, z) + entropy(b, z) - entropy(z) - entropy(a, b, z)
    assert cmi_from_counts(table) == pytest.approx(want, abs=1e-12)
    # a batch of tables gives one value each; given margins give the same values
    batch = np.stack([table, table[:, ::-1], table.transpose(0, 2, 1)])
    got = cmi_from_counts(batch)
    np.testing.assert_allclose(got, want, atol=1e-12)
    margins = (batch.sum(axis=-1), batch.sum(axis=-2), batch.sum(axis=(-1, -2)))
    np.testing.assert_allclose(cmi_from_counts(batch, margins=margins, batch=1), got, atol=1e-15)
    # ragged: the strata of three tables stacked, each its own value
    stacked = np.concatenate([table, table[:1], table[1:]])
    np.testing.assert_allclose(cmi_from_counts(stacked, starts=np.array([0, 3, 4])),
                               [want, cmi_from_counts(table[:1]), cmi_from_counts(table[1:])],
                               atol=1e-12)
    # strata left out of the table (t constant there) count only in the denominator
    assert cmi_from_counts(table[:2], 500) == pytest.approx(
        cmi_from_counts(table[:2]) * table[:2].sum() / 500, abs=1e-15)


def test_strata_and_levels():
    rng = np.random.default_rng(9)
    n, m = 300, 8
    X = rng.integers(0, 3, size=(n, m))
    X[:, 5] = 0  # constant
    X[:, 6] = X[:, 6] * 2  # codes {0, 2, 4}: three levels, not five
    C = np.column_stack([X[:, 0] == 1, np.ones(n)]).astype(int)  # the second one constant
    levels = pool_levels(X, C)
    assert levels.tolist() == [3, 3, 3, 3, 3, 1, 3, 3, 2, 1]
    import scipy.sparse as sp

    assert pool_levels(sp.csc_matrix(X), C).tolist() == levels.tolist()
    fast, ref = FastEngine(X, C), ReferenceEngine(X, C)
    for cond in ([], [1], [5], [1, 2], [1, 2, 3, 4], [0, m], [m + 1, 3]):
        want = 1 if not cond else joint_codes(np.column_stack(
            [X[:, c] if c < m else C[:, c - m] for c in cond]))[1]
        assert fast.strata(cond) == ref.strata(cond) == want, cond
    fast.cmi_many(0, [7], [1, 2, 3])  # a joint code built: its count is kept and agrees
    assert fast.strata([3, 2, 1]) == joint_codes(X[:, [1, 2, 3]])[1]


@pytest.mark.parametrize("ask_every", [1, 3])
@pytest.mark.parametrize("threshold", [0.0, 0.02, 1.0])
def test_leave_one_out_strata_match_the_set(threshold, ask_every):
    """strata(f), asked right after value(f), is the number of distinct rows of the set that
    value conditioned on, in batches and one by one, whichever steps ask."""
    rng = np.random.default_rng(4)
    n, m = 200, 14
    X = rng.integers(0, 2, size=(n, m))
    C = np.column_stack([(X[:, 0] + X[:, 1]) % 2, rng.random(n) < 0.4]).astype(int)
    fast = FastEngine(X, C)
    members, fixed = list(range(2, 12)), [m + 1]
    loo = fast.leave_one_out(0, members, fixed)
    checked = 0
    for i, (f, v) in enumerate(loo.walk(list(members))):
        if i % ask_every == ask_every - 1:
            cond = [g for g in loo.members if g != f] + fixed
            want = joint_codes(np.column_stack([X[:, c] if c < m else C[:, c - m]
                                                for c in cond]))[1]
            assert loo.strata(f) == want
            checked += 1
        if v <= threshold:
            loo.remove(f)
    assert checked == len(members) // ask_every


@pytest.mark.parametrize("codes", [2, 3, 5])
@pytest.mark.parametrize("dense", [True, False])
def test_counting_by_rows_matches_the_other_counting_paths(codes, dense, monkeypatch):
    """The product over the row-major indicators (one conditioning set, or every extra of
    cmi_each_extra in one product; a dense 0/1 matrix for few cells of small data, a sparse
    one otherwise)
    gives bit for bit the values of the engine without indicators (bincount counting), and
    the reference's to 1e-12, with and without dead strata."""
    from camcf.fast_counts import (
        category_indicators,
        feature_indicators,
        indicator_rows,
        pool_cardinality,
    )

    monkeypatch.setattr(fast_engine, "_ROWS_FROM", 0)  # by rows on small data too

    rng = np.random.default_rng(10 + codes)
    n, m = 250, 30
    X = np.asfortranarray(rng.integers(0, codes, size=(n, m)).astype(np.uint8))
    C = np.column_stack([X[:, 0] % 2, rng.random(n) < 0.3, X[:, 1] == 0]).astype(np.uint8)
    card = pool_cardinality(X, C)
    ind = feature_indicators(X, card)
    assert indicator_rows(ind).shape == (n, (codes - 1) * m)
    rows_eng = FastEngine(X, C, card=card, indicators=(ind, category_indicators(C)))
    plain = FastEngine(X, C, card=card)  # no indicators: bincount counting
    ref = ReferenceEngine(X, C)
    assert rows_eng._rows is not None and plain._rows is None
    monkeypatch.setattr(fast_engine, "_DENSE_ONEHOT_CELLS", 1 << 30 if dense else 0)
    monkeypatch.setattr(fast_engine, "_GEMM_CELLS", 1 << 30 if dense else 0)
    sets_counted = []
    by_rows = FastEngine._counts_rows
    monkeypatch.setattr(FastEngine, "_counts_rows", lambda self, cols, cells, K: (
        sets_counted.append(len(cells)) or by_rows(self, cols, cells, K)))
    cols = np.arange(2, m)
    # eight features: far more strata than rows, most of them dead (t constant)
    for cond in ([m + 1], [m + 2, m + 1], [4, 5, 6, m + 1], list(range(8, 16))):
        a = rows_eng.cmi_many(0, cols, cond)
        np.testing.assert_array_equal(a, plain.cmi_many(0, cols, cond))
        np.testing.assert_allclose(a, ref.cmi_many(0, cols, cond), atol=1e-12)
    for fixed in ([], [m + 1], [3, m + 2], list(range(20, 26))):
        extras = [0, 1, 6, m + 1] if m + 1 not in fixed else [0, 1, 6]
        got = rows_eng.cmi_each_extra(0, cols, extras, fixed)
        for x, g, p in zip(extras, got, plain.cmi_each_extra(0, cols, extras, fixed),
                           strict=True):
            np.testing.assert_array_equal(g, p)
            np.testing.assert_allclose(g, ref.cmi_many(0, cols, [x] + fixed), atol=1e-12)
    assert rows_eng.stats()["computed"] == plain.stats()["computed"]
    assert max(sets_counted) >= 3  # the extras went through one product together


@pytest.mark.parametrize("sparse_x", [False, True])
def test_tables_from_complements_are_exact(sparse_x, monkeypatch):
    """Counting the tables over the categories that are not their predecessor's complement
    (and deriving the complements' rows and columns) gives the tables of counting every
    category, bit for bit: binary labels, a 3-valued label, a run ¬a, a, ¬a, a constant."""
    import scipy.sparse as sp

    rng = np.random.default_rng(5)
    n = 300
    X = rng.integers(0, 3, size=(n, 12)).astype(np.uint8)
    a = (X[:, 0] + rng.integers(0, 2, n) > 1).astype(np.uint8)
    b = rng.integers(0, 3, n)
    cats = [a == 0, a == 1, np.where(a == 0, 0, 1 + (b > 0)) == 0,  # ¬a, a, ¬a
            b == 1, b == 2, X[:, 3] == 1, X[:, 3] != 1, np.zeros(n, bool), np.ones(n, bool)]
    C = np.asfortranarray(np.column_stack(cats).astype(np.uint8))
    Xe = sp.csc_matrix(np.where(rng.random(X.shape) < 0.7, 0, X)) if sparse_x else X
    fast = FastEngine(Xe, C, **FastEngine.shared(Xe, C))
    assert fast._complements().tolist() == [False, True, False, False, False, False, True,
                                            False, True]
    plain = FastEngine(Xe, C, **FastEngine.shared(Xe, C))
    monkeypatch.setattr(plain, "_complements", lambda: np.zeros(C.shape[1], dtype=bool))
    assert np.array_equal(fast.mi_table(), plain.mi_table())
    assert np.array_equal(fast.category_mi_table(), plain.category_mi_table())
    ref = ReferenceEngine(Xe.toarray() if sparse_x else X, C)
    np.testing.assert_allclose(fast.category_mi_table(), ref.category_mi_table(), atol=1e-12)
    np.testing.assert_allclose(fast.mi_table(), ref.mi_table(), atol=1e-12)


def test_single_column_joint_codes_are_the_sorted_distinct_values():
    """A one-column set's joint code (counted, not sorted) numbers its distinct values in
    their order, as np.unique does, also when codes are missing or the type is signed."""
    X = np.array([[4, 0], [0, 0], [2, 0], [4, 0], [2, 0]], dtype=np.int8)
    C = np.array([[1], [0], [1], [1], [0]], dtype=np.uint8)
    eng = FastEngine(X, C)
    for col in (0, 1, 2):  # a feature with codes 0, 2, 4; a constant one; a category
        codes, ns = eng.joint([col])
        values = X[:, col] if col < 2 else C[:, 0]
        _, inv = np.unique(values, return_inverse=True)
        assert codes.tolist() == inv.tolist() and ns == np.unique(values).size
    assert eng.joint([0])[0].tolist() == [2, 0, 1, 2, 1]


@pytest.mark.parametrize("sparse_x", [False, True])
def test_joint_codes_of_few_combinations_are_those_of_the_sorted_hashes(sparse_x, monkeypatch):
    """A set with few combinations of codes gets its joint code and strata from a count of
    the combinations (FastEngine._joint_direct): the same numbers, in the same order, as
    the sorted row hashes give; equal hashes (a collision, forced here) stay one stratum; the
    engine's joint codes and strata are those numbers."""
    import scipy.sparse as sp

    from camcf.info import _compact

    monkeypatch.setattr(fast_engine, "_DIRECT_ROWS", 1)  # (from 512 rows otherwise)
    rng = np.random.default_rng(11)
    for n, K in ((1, 2), (7, 3), (300, 2), (2000, 4)):
        X = rng.integers(0, K, size=(n, 6)).astype(np.uint8)
        X[:, 5] = 0  # a constant feature
        C = (rng.random((n, 4)) < 0.3).astype(np.uint8)
        eng = FastEngine(sp.csc_matrix(X) if sparse_x else np.asfortranarray(X), C)
        for cols in ([0, 1], [1, 6, 8], [0, 2, 3, 5], [6, 7, 8, 9], [0, 1, 2, 3, 4, 6]):
            want = _compact(eng._hash(cols))
            got = eng._joint_direct(cols)
            if got is None:  # too many combinations for these rows
                assert np.prod(eng.card[cols]) > fast_engine._DIRECT_STATES * n
                continue
            assert got[1] == want[1] and got[0].dtype == want[0].dtype
            np.testing.assert_array_equal(got[0], want[0])
            fresh = FastEngine(eng.X, C)
            assert fresh.strata(cols) == want[1] == eng.joint(cols)[1]
            np.testing.assert_array_equal(eng.joint(cols)[0], want[0])
    eng = FastEngine(np.array([[0, 0], [1, 0], [0, 1], [1, 1]], dtype=np.uint8),
                     np.array([[1], [0], [1], [0]], dtype=np.uint8))
    eng._mult = np.array([1, 1, 5], dtype=np.uint64)  # rows (1, 0) and (0, 1) collide
    want = _compact(eng._hash([0, 1]))
    got = eng._joint_direct([0, 1])
    assert want[1] == got[1] == 3 and got[0].tolist() == want[0].tolist() == [0, 1, 1, 2]


@pytest.mark.parametrize("layout", ["dense", "sparse"])
@pytest.mark.parametrize("threshold", [0.0, 0.004, 0.02, 1.0])
@pytest.mark.parametrize("n", [250, 12])
def test_backward_walk_counts_strata_with_values(layout, threshold, n, m=40, k=30):
    """walk(strata=True) counts each set's strata with the batch's values: the same values,
    bit for bit, as walk() and every strata(f) equal to the distinct joint rows of
    (members − f) ∪ fixed, whatever the caller removes (n = 12: most strata of one row)."""
    import scipy.sparse as sp

    from camcf.info import joint_codes

    rng = np.random.default_rng(5)
    X = rng.integers(0, 3, size=(n, m)) * (rng.random((n, m)) < 0.4)
    C = np.column_stack([(X[:, 0] + X[:, 1]) % 2, rng.random(n) < 0.4]).astype(int)
    Xe = sp.csc_matrix(X) if layout == "sparse" else X
    members = [int(f) for f in rng.permutation(m)[:k]]
    fixed = [m + 1]
    pool = np.column_stack([X, C])
    plain = FastEngine(Xe, C).leave_one_out(0, members, fixed)
    counted = FastEngine(Xe, C).leave_one_out(0, members, fixed)
    left = list(members)
    steps = zip(plain.walk(list(members)), counted.walk(list(members), strata=True),
                strict=True)
    for (f, v), (g, w) in steps:
        assert f == g and v == w
        cond = [x for x in left if x != f] + fixed
        assert counted.strata(f) == joint_codes(pool[:, cond])[1]
        if v <= threshold:
            for s in (plain, counted):
                s.remove(f)
            left.remove(f)


def test_backward_walk_strata_when_hashes_share_their_high_bits():
    """Small batches sort keys made of a hash's high bits and the row position; two different
    hashes with the same high bits must not merge or interleave their strata. Hash multipliers
    that are powers of 3 (exact, distinct codes below 3^6, so that most share their high
    bits): every strata(f) is still the distinct joint rows of (members − f) ∪ fixed, and the
    values are walk()'s with the engine's own multipliers."""
    from camcf.info import joint_codes

    rng = np.random.default_rng(8)
    n, m, k = 250, 40, 5
    X = rng.integers(0, 3, size=(n, m)) * (rng.random((n, m)) < 0.4)
    C = np.column_stack([(X[:, 0] + X[:, 1]) % 2, rng.random(n) < 0.4]).astype(int)
    members = [int(f) for f in rng.permutation(m)[:k]]
    fixed = [m + 1]
    pool = np.column_stack([X, C])
    exact = FastEngine(X, C)
    exact._mult = np.zeros_like(exact._mult)
    exact._mult[members + fixed] = 3 ** np.arange(k + 1, dtype=np.uint64)
    H = pool[:, members + fixed] @ (3 ** np.arange(k + 1, dtype=np.int64))
    assert np.unique(H >> 8).size < np.unique(H).size  # 250 rows: 8 low bits replaced
    plain = FastEngine(X, C).leave_one_out(0, members, fixed)
    counted = exact.leave_one_out(0, members, fixed)
    left = list(members)
    for (f, v), (g, w) in zip(plain.walk(list(members)),
                              counted.walk(list(members), strata=True), strict=True):
        assert f == g and v == pytest.approx(w, rel=1e-12, abs=1e-15)
        cond = [x for x in left if x != f] + fixed
        assert counted.strata(f) == joint_codes(pool[:, cond])[1]
        if v <= 0.02:
            for s in (plain, counted):
                s.remove(f)
            left.remove(f)


def test_backward_walk_counts_strata_with_values_tall():
    """The same from 2^15 rows up (strata by hash factorisation, one set at a time)."""
    test_backward_walk_counts_strata_with_values("dense", 0.001, (1 << 15) + 10, m=8, k=6)


@pytest.mark.parametrize("dtype", [np.uint8, np.uint16, bool])
def test_pool_levels_of_small_unsigned_codes(dtype):
    """Few small unsigned codes are compared value by value: the same levels as np.unique
    (codes with gaps, a constant column, a single column, any layout)."""
    rng = np.random.default_rng(4)
    n = 60
    top = 2 if dtype is bool else 9
    X = rng.integers(0, top, size=(n, 7))
    X[:, 2] = 3 % top  # constant
    if dtype is not bool:
        X[:, 4] = X[:, 4] % 3 * 4  # codes {0, 4, 8}
    X = X.astype(dtype)
    C = np.zeros((n, 0), dtype=np.uint8)
    want = [np.unique(X[:, j]).size for j in range(X.shape[1])]
    for A in (X, np.asfortranarray(X), X[:, :1]):
        assert pool_levels(A, C).tolist() == want[:A.shape[1]]
    assert pool_levels(X, C).tolist() == pool_levels(X.astype(np.int64), C).tolist()


@pytest.mark.parametrize("case", ["some", "none", "dead-extra", "given"])
def test_screen_then_extras_matches_separate_calls(case):
    """FastEngine counts the spouse screen and the tests given each extra in one product: the
    same values, bit for bit, and the same counters as cmi_many then cmi_each_extra, and the
    reference's values (dense features counted by rows; a screen keeping some or none; an
    extra in whose strata t is constant; a screen given from the table)."""
    rng = np.random.default_rng(8)
    n, m = 300, 24
    X = rng.integers(0, 3, size=(n, m))
    C = np.column_stack([X[:, 0] % 2, rng.random(n) < 0.3, rng.random(n) < 0.5]).astype(int)
    X[:, 5] = C[:, 0]  # an extra that fixes t: no informative stratum given it
    variables = np.arange(6, m)
    fixed = [] if case == "given" else [m + 1, m + 2]
    extras = [5, 1, 2] if case == "dead-extra" else [1, 2, 3]
    limit = {"some": 0.01, "none": -1.0, "dead-extra": 0.01, "given": 0.01}[case]

    def keep(v):
        return np.round(v, 12) <= limit

    merged, plain = (FastEngine(X, C, **FastEngine.shared(X, C)) for _ in range(2))
    ref = ReferenceEngine(X, C)
    given = plain.mi_table()[variables, 0] if case == "given" else None
    v1, pick, v2 = merged.screen_then_extras(0, variables, fixed, extras, keep, given=given)
    p1 = given if case == "given" else plain.cmi_many(0, variables, fixed)
    assert np.array_equal(v1, p1) and np.array_equal(pick, keep(p1))
    assert pick.any() == (case != "none")
    want = plain.cmi_each_extra(0, variables[pick], extras, fixed) if pick.any() else []
    assert len(v2) == len(want)
    for a, b, x in zip(v2, want, extras[:len(want)], strict=True):
        assert np.array_equal(a, b)
        r = ref.cmi_many(0, variables[pick], [x] + fixed)
        np.testing.assert_allclose(a, r, atol=1e-12)
    if case == "dead-extra":
        assert not v2[0].any()
    assert merged.stats() == plain.stats()


@pytest.mark.parametrize("fixed", [[], [25], [25, 26]])
def test_joint_cells_give_the_separate_sets_values(fixed, monkeypatch):
    """The spouse step's sets counted from one product over their joint cells (t, S, x_1, …)
    give, bit for bit, the values and counters of counting each set on its own (the lead
    given S, then S ∪ {x} for each x), with and without a lead."""
    monkeypatch.setattr(fast_engine, "_ROWS_FROM", 0)  # by rows on small data too
    rng = np.random.default_rng(11)
    n, m = 400, 24
    X = rng.integers(0, 3, size=(n, m))
    C = np.column_stack([X[:, 0] % 2, rng.random(n) < 0.4, rng.random(n) < 0.5]).astype(int)
    variables, extras = np.arange(4, m), [1, 2]
    fixed = [m + (f - 24) for f in fixed]

    def keep(v):
        return np.round(v, 12) <= 0.02

    from camcf import batch_counts

    used = []
    joint = batch_counts.joint_cells_many
    monkeypatch.setattr(batch_counts, "joint_cells_many", lambda items: (
        lambda got: used.extend(got) or got)(joint(items)))
    merged = FastEngine(X, C, **FastEngine.shared(X, C))
    got = merged.screen_then_extras(0, variables, fixed, extras, keep)
    assert used and all(u is not None for u in used)
    monkeypatch.setattr(batch_counts, "joint_cells_many", lambda items: [None] * len(items))
    separate = FastEngine(X, C, **FastEngine.shared(X, C))
    want = separate.screen_then_extras(0, variables, fixed, extras, keep)
    assert np.array_equal(got[0], want[0]) and np.array_equal(got[1], want[1])
    assert len(got[2]) == len(want[2]) == len(extras)
    for a, b in zip(got[2], want[2], strict=True):
        assert np.array_equal(a, b)
    assert merged.stats() == separate.stats()


def test_first_appearance_numbers_as_compact():
    from camcf.info import _compact, _first_appearance

    rng = np.random.default_rng(3)
    for n, bound in ((1, 1), (50, 7), (3000, 40)):
        codes = rng.integers(0, bound, size=n) * (rng.random(n) < 0.9)
        got = _first_appearance(codes, bound)
        want = _compact(codes, sort=False)
        assert np.array_equal(got[0], want[0]) and got[1] == want[1]


def test_leave_one_out_single_values_from_exact_codes(monkeypatch):
    """A short PC and R: single values number their strata from the mixed-radix code of the
    set instead of its hash: the same values and strata, bit for bit, as from the hash, also
    after removals."""
    from camcf import fast_walk

    rng = np.random.default_rng(12)
    n, m = 1500, 10
    X = rng.integers(0, 3, size=(n, m))
    C = np.column_stack([(X[:, 0] + X[:, 1]) % 2, rng.random(n) < 0.3]).astype(int)
    members, fixed = [0, 1, 2], [m + 1]
    out = []
    for states in (fast_walk._RADIX_STATES, 0):
        monkeypatch.setattr(fast_walk, "_RADIX_STATES", states)
        eng = FastEngine(X, C, **FastEngine.shared(X, C))
        loo = eng.leave_one_out(0, members, fixed)
        assert (loo._radix is not None) == bool(states)
        got = [(loo.value(f), loo.strata(f)) for f in members]
        loo.remove(1)
        got += [(loo.value(f), loo.strata(f)) for f in (0, 2, 1)]
        out.append(got)
    assert out[0] == out[1]


def test_sum_axes_is_numpy_sum():
    from camcf.info import _sum_axes

    a = np.random.default_rng(0).integers(0, 9, size=(4, 3, 1, 2, 5))
    for axes in ((1,), (2,), (3, 4), (1, 4), (0,)):
        assert np.array_equal(_sum_axes(a, *axes), a.sum(axis=axes))


def test_sparse_entries_kept_between_calls():
    """Sparse features: the stored entries of the last columns counted are kept for the next
    call on the same columns (Phase 3 asks the same features given each member of R); every
    value still equals the reference's, whichever columns and sets come in turn."""
    import scipy.sparse as sp

    rng = np.random.default_rng(12)
    n, m = 200, 30
    X = rng.integers(0, 3, size=(n, m)) * (rng.random((n, m)) < 0.3)
    C = np.column_stack([rng.random(n) < 0.4, X[:, 0] > 0, rng.random(n) < 0.5]).astype(int)
    fast, ref = FastEngine(sp.csc_matrix(X), C), ReferenceEngine(X, C)
    a, b = np.arange(1, 20), np.arange(5, 30)
    for cols, cond in ((a, [m + 1]), (a, [m + 2, 3]), (b, [m + 1]), (a, [m + 1]), (a, [])):
        np.testing.assert_allclose(fast.cmi_many(0, cols, cond), ref.cmi_many(0, cols, cond),
                                   atol=1e-12)


@pytest.mark.parametrize("n", [1, 7, 1024, 1025, 5000])
def test_compact_without_sort_numbers_values_by_first_appearance(n, monkeypatch):
    """``_compact(sort=False)`` numbers distinct values in order of first appearance, as
    ``pandas.factorize`` does, on both sides of the size where it stops sorting, with pandas
    loaded (its hash table) or not (a sort, up to that size)."""
    import sys

    import pandas as pd

    from camcf.info import _SORT_UP_TO, _compact

    rng = np.random.default_rng(n)
    codes = rng.integers(0, 2**40, 50)[rng.integers(0, 50, n)]
    want, uniq = pd.factorize(codes, sort=False)
    if n <= _SORT_UP_TO:  # as in a process that has not loaded pandas: the sort
        with monkeypatch.context() as mp:
            mp.delitem(sys.modules, "pandas")
            inv, k = _compact(codes, sort=False)
            assert "pandas" not in sys.modules
        assert k == len(uniq) and inv.dtype == np.int64
        np.testing.assert_array_equal(inv, want)
    inv, k = _compact(codes, sort=False)
    assert k == len(uniq) and inv.dtype == np.int64
    np.testing.assert_array_equal(inv, want)


@pytest.mark.parametrize("K, B, s_max", [(2, 20, 30), (2, 64, 30), (3, 40, 30), (2, 20, 5000),
                                         (2, 64, 5000), (3, 60, 4096), (2, 50, 1000)])
def test_suffix_order_sorts_and_counts_the_distinct_rows_of_each_suffix(K, B, s_max):
    """_suffix_order (one sort: one packed key, or several keys by lexsort) sorts the rows by
    (s, W[B − 1], …, W[0]) and gives where each pair of neighbours first differs, from which
    _suffix_distinct counts, for every j, the distinct rows of (s, W[j + 1:]) counted as sets
    of tuples; each of them is a run of the sorted rows."""
    from camcf.fast_walk import _suffix_distinct, _suffix_order

    rng = np.random.default_rng(K + B + s_max)
    r = 150
    W = rng.integers(0, K, size=(B, r)).astype(np.uint8)
    W[rng.random((B, r)) < 0.85] = 0  # sparse codes: many equal suffixes
    s = rng.integers(0, s_max, size=r)
    s[:3] = s_max - 1
    want = [len({(s[c], *W[j + 1:, c].tolist()) for c in range(r)}) for j in range(B)]
    order, first = _suffix_order(s, W, K)
    assert _suffix_distinct(first, B).tolist() == want
    rows = [(s[c], *W[::-1, c].tolist()) for c in order.tolist()]
    assert rows == sorted(rows)
    for p in range(r - 1):  # the highest member where neighbours differ (B: in s; −1: none)
        a, b = rows[p], rows[p + 1]
        differ = [i for i in range(B) if a[B - i] != b[B - i]]
        assert first[p] == (B if a[0] != b[0] else max(differ, default=-1))


@pytest.mark.parametrize("threshold", [0.0, 0.02, 1.0])
def test_leave_one_out_runs_give_the_walk_and_the_strata_of_each_set(threshold):
    """runs(): each run's values are the walk's, and strata_of(j), asked before the run's
    removals, is the number of distinct rows of (members − fs[:j + 1]) ∪ fixed."""
    rng = np.random.default_rng(7)
    n, m = 300, 40
    X = rng.integers(0, 2, size=(n, m))
    X[rng.random((n, m)) < 0.7] = 0
    C = np.column_stack([(X[:, 0] + X[:, 1]) % 2, rng.random(n) < 0.4]).astype(int)
    members, fixed = list(range(2, 38)), [m + 1]
    walked = []
    loo = FastEngine(X, C).leave_one_out(0, members, fixed)
    for f, v in loo.walk(members):
        walked.append((f, v))
        if v <= threshold:
            loo.remove(f)
    loo = FastEngine(X, C).leave_one_out(0, members, fixed)
    got, runs = [], 0
    for fs, vals, strata_of in loo.runs(members, strata=True):
        runs += 1
        now = list(loo.members)
        used = 0
        for j, (f, v) in enumerate(zip(fs, vals.tolist(), strict=True)):
            cond = [g for g in now if g not in fs[:j + 1]] + fixed
            want = joint_codes(np.column_stack([X[:, c] if c < m else C[:, c - m]
                                                for c in cond]))[1]
            assert strata_of(j) == want
            got.append((f, v))
            used += 1
            if v > threshold:
                break
        gone = used if vals[used - 1] <= threshold else used - 1
        loo.remove_many(fs[:gone])
    assert got == walked
    if threshold == 1.0:  # everything removed: the runs grow
        assert runs < len(members)


def test_hash_ranks_sort_each_sets_strata_by_hash_exactly():
    """_hash_ranks places each stratum among its set's by hash: the ranks of a lexsort by
    (set, hash), with hashes spread over 64 bits and with hashes that differ only in their
    low bits (sorted by their high bits in the keys, then found and sorted exactly)."""
    from camcf.fast_walk import _hash_ranks

    rng = np.random.default_rng(4)
    ns = np.array([5, 300, 1, 40, 700])
    sets = np.repeat(np.arange(ns.size), ns)
    for h in (rng.integers(0, 2**63, size=ns.sum(), dtype=np.uint64) * np.uint64(2),
              rng.permutation(ns.sum()).astype(np.uint64) + np.uint64(1 << 40)):
        want = np.empty(h.size, dtype=np.int64)
        want[np.lexsort((h, sets))] = np.arange(h.size)
        np.testing.assert_array_equal(_hash_ranks(h, ns), want)


def _chain_counts_reference(W, terms, t, total, K, n):
    """The batch values of _chain_counts the plain way: each set's strata from its hashes
    in hash order, the counts of every stratum, the uninformative ones zeroed, one
    cmi_from_counts over all of them."""
    from camcf.fast_counts import xlogx_table
    from camcf.info import _compact, cmi_from_counts

    B = W.shape[0]
    H = total[None, :] - np.cumsum(terms, axis=0, dtype=np.uint64)
    parts, ns = [], []
    for j in range(B):
        s, k = _compact(H[j], sort=True)
        parts.append(np.bincount(s * 2 * K + W[j].astype(np.int64) * 2 + t,
                                 minlength=k * 2 * K).reshape(k, K, 2))
        ns.append(k)
    c = np.concatenate(parts)
    c_ts = c.sum(axis=1)
    live = (c_ts[:, 0] > 0) & (c_ts[:, 1] > 0)
    c = c * live[:, None, None]
    c_ts = c_ts * live[:, None]
    off = np.cumsum(ns) - np.array(ns)
    return cmi_from_counts(c, n, margins=(c[:, :, 0] + c[:, :, 1], c_ts, c_ts[:, 0] + c_ts[:, 1]),
                           starts=off, table=xlogx_table(n)), np.array(ns)


@pytest.mark.parametrize("K", [2, 3, 5])
@pytest.mark.parametrize("B, s_max", [(9, 16), (9, 1 << 13), (40, 16), (70, 16)])
def test_chain_counts_are_bit_for_bit_those_of_every_stratum(K, B, s_max):
    """_chain_counts finds the strata of every set of a batch from one sort of the rows
    (_suffix_order: one key with the row, one key, several keys, s apart), places them by
    hash and sums the terms of the informative strata only, each in its place: the values
    (to the last bit) and strata counts of counting every stratum of every set alone in
    hash order, with a column of the batch that is not a member, sets of a few strata, of
    more than 8 and of more than 128 (numpy's pairwise sums), and codes of 2·K ≥ 8 cells
    (numpy's own row sums)."""
    from types import SimpleNamespace

    from camcf.fast_counts import xlogx_table
    from camcf.fast_walk import FastLeaveOneOut, _suffix_order
    from camcf.info import _compact

    rng = np.random.default_rng(K + B)
    r, n = 700, 900
    mult = rng.integers(1, 2**63, size=B + 2, dtype=np.uint64) * np.uint64(2) + np.uint64(1)
    W = rng.integers(0, K, size=(B, r)).astype(np.uint8)
    W[rng.random((B, r)) > 4 / B] = 0  # sparse codes: about 4 of a row's B not 0
    W[:, rng.random(r) < 0.5] = 0  # half the rows agree on every member: large strata
    Z = rng.integers(0, 4, size=(2, r)).astype(np.uint64)  # the rest of S: 16 strata
    t = (rng.random(r) < 0.3).astype(np.int64)
    terms = W.astype(np.uint64) * mult[:B, None]
    terms[3] = 0  # a column of the batch that is not a member
    after = (Z * mult[B:, None]).sum(axis=0, dtype=np.uint64)  # the hash of S_B
    total = after + terms.sum(axis=0, dtype=np.uint64)
    s_last = _compact(after, sort=False)[0] * (s_max // 16)
    Wk = W.copy()
    Wk[3] = 0  # not a member: not in the sets
    order, first = _suffix_order(s_last, Wk, K)
    me = SimpleNamespace(engine=SimpleNamespace(n=n, _tab=xlogx_table(n)))
    got = FastLeaveOneOut._chain_counts(me, W[:, order], t[order], first, terms[:, order],
                                        total[order], K)
    want = _chain_counts_reference(W, terms, t, total, K, n)
    assert got[1].tolist() == want[1].tolist()
    assert max(want[1]) > 128 and min(want[1]) <= 16
    assert np.count_nonzero(want[0]) > B // 2
    np.testing.assert_array_equal(got[0], want[0])


def test_sparse_counts_of_every_entry_match_the_columns_own_entries(monkeypatch):
    """_cmi_given_codes on sparse features counts every stored entry at once
    (camcf.sparse_counts.all_code_counts) when the columns asked hold a third of them or
    more: bit for bit the values of counting each column's own entries, for all columns, a
    subset of narrower codes than the widest and a few columns, given a joint code with dead
    strata and one without."""
    import scipy.sparse as sp

    from camcf import fast_engine, sparse_counts

    rng = np.random.default_rng(11)
    n, m = 160, 30
    X = rng.integers(1, 4, size=(n, m)) * (rng.random((n, m)) < 0.2)
    X[:, :20] = np.minimum(X[:, :20], 1)  # 20 binary columns: code bound 2 below the widest 4
    C = (rng.random((n, 3)) < 0.4).astype(np.uint8)
    eng = FastEngine(sp.csc_matrix(X.astype(np.uint8)), C)
    t = eng._target(0)
    calls = []
    real = sparse_counts.all_code_counts

    def spy(*args):
        out = real(*args)
        calls.append(out is not None)
        return out

    for cond in ([m + 1], [m + 1, m + 2, 25, 26, 27]):
        s, ns = eng.joint(cond)
        for cols in (np.arange(m), np.arange(20), np.array([3, 22])):
            monkeypatch.setattr(fast_engine, "all_code_counts", spy)
            calls.clear()
            got = eng._cmi_given_codes(t, cols, s, ns)
            assert calls == [cols.size >= 20]  # a third of the entries or more: all counted
            monkeypatch.setattr(fast_engine, "all_code_counts", lambda *a: None)
            np.testing.assert_array_equal(got, eng._cmi_given_codes(t, cols, s, ns))


def test_strata_of_a_set_one_column_beyond_a_kept_joint_code(monkeypatch):
    """FastEngine.strata of a set whose joint code without one column is kept (the spouse
    step's {x} ∪ R after R's) counts the distinct (code, column) pairs: no row hash, the
    exact number of distinct rows."""
    rng = np.random.default_rng(5)
    n, m = 150, 8
    X = rng.integers(0, 3, size=(n, m))
    C = (rng.random((n, 3)) < 0.5).astype(int)
    fast = FastEngine(X, C)
    fast.joint([m, m + 2, 4])  # kept
    monkeypatch.setattr(fast, "_hash", lambda cols: pytest.fail("hashed again"))
    for extra in (0, 6, m + 1):
        cond = [extra, m, m + 2, 4]
        want = joint_codes(np.column_stack([X[:, c] if c < m else C[:, c - m]
                                            for c in cond]))[1]
        assert fast.strata(cond) == want


def test_entry_keys_are_built_once_for_the_engines_over_one_x():
    """The per-target engines over one sparse X share one read-only copy of its entry keys
    (the entries row after row: each row's length, each entry's column·K + code),
    dropped with X; another X gets its own."""
    import gc

    import scipy.sparse as sp

    from camcf import sparse_counts

    rng = np.random.default_rng(2)
    X = sp.csc_matrix((rng.integers(1, 3, size=(60, 9)) * (rng.random((60, 9)) < 0.3))
                      .astype(np.uint8))
    C = (rng.random((60, 2)) < 0.5).astype(np.uint8)
    a, b = FastEngine(X, C), FastEngine(X, C)
    lens, code, K = sparse_counts.entry_keys(a)
    assert sparse_counts.entry_keys(b)[1] is code and not code.flags.writeable
    R = X.tocsr()
    np.testing.assert_array_equal(lens, np.diff(R.indptr))
    np.testing.assert_array_equal(code, R.indices * K + R.data)
    other = FastEngine(sp.csc_matrix(X.toarray()), C)
    assert sparse_counts.entry_keys(other)[1] is not code
    del a, b, other, X
    gc.collect()
    assert not sparse_counts._BY_X


@pytest.mark.parametrize("dtype", [np.uint64, np.int64, np.uint8, np.int32])
@pytest.mark.parametrize("r", [0, 1, 255, 256, 257, 700, 1024])
def test_sorted_rows_in_runs_is_numpys_sort(dtype, r):
    """_sorted_rows sorts rows longer than a run in runs of 256 merged by a stable sort, the
    padding being the type's largest value: exactly np.sort, with that largest value (and
    the smallest) among the values too; _n_distinct_rows counts from it."""
    from camcf.info import _n_distinct_rows, _sorted_rows

    info = np.iinfo(dtype)
    rng = np.random.default_rng(r)
    v = rng.integers(info.min, info.max, size=(3, r), dtype=dtype, endpoint=True)
    v[1, : r // 3] = info.max  # ties with the padding
    v[2, : r // 2] = info.min
    np.testing.assert_array_equal(_sorted_rows(v), np.sort(v, axis=1))
    assert _n_distinct_rows(v).tolist() == [len(set(row.tolist())) for row in v]


@pytest.mark.parametrize("k", list(range(1, 20)))
@pytest.mark.parametrize("layout", ["C", "F", "transposed"])
def test_row_sums_are_numpys_sums_bit_for_bit(k, layout):
    """_row_sums adds rows of fewer than 8 elements slice by slice, in order, along the last
    axis of an array of any rank: exactly numpy's sum over a row-major copy, whatever the
    layout of the view; _sum_xlogx's batched sums of many short rows likewise."""
    from camcf.fast_counts import xlogx_table
    from camcf.info import _row_sums, _sum_xlogx

    rng = np.random.default_rng(k)
    w = rng.random((3, 200, k)) * rng.choice([1.0, 1e6, 1e-6], size=(3, 200, k))
    if layout == "F":
        w = np.asfortranarray(w)
    elif layout == "transposed":
        w = np.ascontiguousarray(w.transpose(2, 1, 0)).transpose(2, 1, 0)
    want = np.ascontiguousarray(w).sum(axis=-1)
    assert np.array_equal(_row_sums(w), want)
    assert np.array_equal(_row_sums(w.reshape(600, k)), want.ravel())
    tab = xlogx_table(5000)
    counts = rng.integers(0, 5000, size=(2, 300, 1, 1, k))  # 600 rows of k cells
    assert np.array_equal(_sum_xlogx(counts, 2, tab, None),
                          tab[counts].reshape(2, 300, -1).sum(axis=-1))
