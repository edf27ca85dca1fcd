"""The information engine (:mod:`camcf.engine`), black-box: hand-computed measures and their
identities; the registry and the protocols; and the compiled engine ("fast") equal to the
reference engine (the ``np.unique`` oracle) to 1e-12 bits on generated data — the two tables
and their parts, and sessions (:class:`camcf.engine.Given`) whose conditioning set grows and
shrinks by random steps, with copies, leave-one-out values, early stops and strata.

The engines' decisions on whole runs are compared in ``test_engine_decisions.py``.
"""

from __future__ import annotations

import math
import os
from dataclasses import dataclass

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from camcf.algorithm import flatten_labels, prepare_features
from camcf.engine import (
    ENGINES,
    Engine,
    Given,
    cmi_from_counts,
    conditional_mutual_information,
    contingency,
    entropy,
    is_ready,
    joint_codes,
    mutual_information,
    pool_levels,
    rounded,
    warm_up,
)

TOL = 1e-12  # bits: the compiled engine sums in another order than the reference

#: examples per property test (CAMCF_FUZZ_EXAMPLES raises it; CAMCF_FUZZ_RANDOM randomises)
EXAMPLES = int(os.environ.get("CAMCF_FUZZ_EXAMPLES", "40"))
PROPERTY = settings(max_examples=EXAMPLES, deadline=None,
                    derandomize=not os.environ.get("CAMCF_FUZZ_RANDOM"),
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])


def h2(p: float) -> float:
    return 0.0 if p in (0, 1) else -(p * math.log2(p) + (1 - p) * math.log2(1 - p))


# ---------------------------------------------------------------------------------------------
# the measures, by hand
# ---------------------------------------------------------------------------------------------
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


def test_cmi_from_counts_is_the_plug_in_formula():
    rng = np.random.default_rng(5)
    a, b, z = rng.integers(0, 3, size=(3, 500))
    table = contingency(a, b, z)  # (Z, A, B)
    assert table.shape == (3, 3, 3) and table.sum() == 500
    # H(A,Z) + H(B,Z) − H(Z) − H(A,B,Z), the definition, from entropies
    want = entropy(a, z) + entropy(b, z) - entropy(z) - entropy(a, b, z)
    assert cmi_from_counts(table) == pytest.approx(want, abs=1e-12)
    assert cmi_from_counts(np.zeros((1, 2, 2))) == 0.0  # no rows: nothing to measure
    # permuting the values of A or B, or swapping A and B, leaves it as it is
    for t in (table[:, ::-1], table[:, :, ::-1], table.transpose(0, 2, 1)):
        assert cmi_from_counts(t) == pytest.approx(want, abs=1e-12)


@settings(max_examples=200, deadline=None)
@given(st.floats(-1e3, 1e3, allow_nan=False))
def test_rounded_gives_a_float_what_it_gives_an_array(v):
    """Scores are compared after rounding to 12 decimals (SPEC.md): a float and an array of
    it round to the same number."""
    assert rounded(v) == rounded(np.array([v]))[0] == rounded(np.float64(v))


@pytest.mark.parametrize("dtype", [np.uint8, np.uint16, bool])
def test_pool_levels_of_small_unsigned_codes(dtype):
    """The distinct values of each pool column, as np.unique counts them (codes with gaps, a
    constant column, a single column, any layout, dense or sparse), then the categories'."""
    rng = np.random.default_rng(4)
    n = 60
    top = 2 if dtype is bool else 9
    X = rng.integers(0, top, size=(n, 7))
    X[:, 2] = 3 % top  # constant
    if dtype is not bool:
        X[:, 4] = X[:, 4] % 3 * 4  # codes {0, 4, 8}
    X = X.astype(dtype)
    want = [np.unique(X[:, j]).size for j in range(X.shape[1])]
    C = np.column_stack([X[:, 0] == 1, np.ones(n)]).astype(np.uint8)  # the second constant
    for A in (X, np.asfortranarray(X), X[:, :1]):
        assert pool_levels(A, C).tolist() == want[:A.shape[1]] + [2, 1]
    assert pool_levels(X, C).tolist() == pool_levels(X.astype(np.int64), C).tolist()
    assert pool_levels(sp.csc_matrix(X.astype(np.uint8)), C).tolist() == want + [2, 1]


# ---------------------------------------------------------------------------------------------
# the registry and the protocols
# ---------------------------------------------------------------------------------------------
def test_engines_registry_and_protocol():
    assert list(ENGINES) == ["fast", "reference"] and len(ENGINES) == 2
    with pytest.raises(KeyError):
        ENGINES["numpy"]
    X = np.zeros((4, 2), dtype=np.uint8)
    C = np.array([[0], [1], [0], [1]], dtype=np.uint8)
    for name, cls in ENGINES.items():
        eng = cls(X, C, **cls.shared(X, C))
        assert isinstance(eng, Engine), name
        assert (eng.n, eng.m, eng.n_categories) == (4, 2, 1)
        assert isinstance(eng.given(0, [1]), Given), name
        assert isinstance(eng.given(0).copy(), Given), name
        with pytest.raises(ValueError, match="features.*categories"):
            eng.table_part("labels", 0, 1)
    # the compiled engine lets a run mirror a binary label's second category; the reference
    # computes both
    assert ENGINES["fast"].mirrors and not ENGINES["reference"].mirrors


def test_engines_count_their_own_work():
    """Values read from the tables are lookups, values counted are computed, the same for
    every engine (a run adds them up in its stats)."""
    rng = np.random.default_rng(0)
    X = rng.integers(0, 2, size=(100, 5)).astype(np.uint8)
    C = np.asfortranarray(np.column_stack([X[:, 0], 1 - X[:, 0]]).astype(np.uint8))
    for name, cls in ENGINES.items():
        eng = cls(X, C, **cls.shared(X, C))
        assert eng.stats() == {"computed": 0, "lookups": 0}
        assert eng.lookup(0, [1, 2, 5]).tolist() == [eng.mi_table()[1, 0], eng.mi_table()[2, 0],
                                                     eng.category_mi_table()[0, 0]]
        g = eng.given(0, [3])
        g.values([1, 2])
        g.without(3)
        assert eng.stats() == {"computed": 3, "lookups": 3}, name


def test_warm_up_says_how_far_it_is_and_is_ready():
    """warm_up reports its steps in order, 0 to the total (then "ready"), and the engine is
    ready afterwards."""
    calls = []
    seconds = warm_up(lambda done, total, msg: calls.append((done, total, msg)))
    assert seconds >= 0 and is_ready()
    total = calls[0][1]
    assert [c[0] for c in calls] == list(range(total + 1)) and {c[1] for c in calls} == {total}
    assert calls[-1][2] == "ready" and all(msg for _, _, msg in calls)


# ---------------------------------------------------------------------------------------------
# generated problems: the compiled engine against the reference
# ---------------------------------------------------------------------------------------------
@dataclass
class Problem:
    X: object  # what the engines get: dense codes or scipy.sparse
    C: np.ndarray  # the category indicators, as camcf.run builds them
    pool: np.ndarray  # every pool column as int64 (features, then categories)
    layout: str

    @property
    def m(self) -> int:
        return self.X.shape[1]

    @property
    def Q(self) -> int:
        return self.C.shape[1]

    def strata(self, cond) -> int:
        """The distinct joint rows of the pool columns ``cond`` (1 for the empty set)."""
        return joint_codes(self.pool[:, list(cond)])[1] if len(cond) else 1

    def cmi(self, target: int, j: int, cond) -> float:
        """I(t; V_j | cond) from its definition (the measures, not an engine)."""
        pool = self.pool
        return conditional_mutual_information(pool[:, self.m + target], pool[:, j],
                                              pool[:, list(cond)] if len(cond) else None)

    def engine(self, name: str):
        """A new engine ``name`` with its shared inputs, as camcf.run makes them."""
        cls = ENGINES[name]
        return cls(self.X, self.C, **cls.shared(self.X, self.C, self.C.sum(axis=0)))

    def engines(self):
        """(compiled, reference)."""
        return self.engine("fast"), self.engine("reference")


def _indicators(Y: np.ndarray) -> np.ndarray:
    """The category indicators [Y_label == value] of Algorithm 1's categories, column-major."""
    cats = flatten_labels(Y, [f"l{i}" for i in range(Y.shape[1])])
    return np.asfortranarray(np.column_stack(
        [Y[:, c.label_index] == c.value for c in cats]).astype(np.uint8))


@st.composite
def problems(draw, max_n: int = 40, max_m: int = 6):
    """Feature codes (binary to 4 values, mostly zeros or not, constant columns; codes ≥ 64
    with gaps and no zero; a column of more than 256 distinct values on 257+ rows) and 1–3
    labels of 1–4 values (a one-valued label: a constant category) tied to the features with
    noise, in the engines' layouts: dense codes, sparse, or as camcf.run prepares them."""
    kind = draw(st.sampled_from(["small", "wide", "many"]), label="codes")
    n = draw(st.integers(257, 300) if kind == "many" else st.integers(1, max_n), label="n")
    m = draw(st.integers(1, max_m), label="m")
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1), label="seed"))
    X = np.empty((n, m), dtype=np.int64)
    for j in range(m):
        levels = draw(st.integers(1, 4))
        zeros = draw(st.sampled_from([0.0, 0.5, 0.9]))
        X[:, j] = rng.integers(0, levels, n) * (rng.random(n) >= zeros)
    q = draw(st.integers(1, 3), label="labels")
    Y = np.empty((n, q), dtype=np.int64)
    for i in range(q):
        values = draw(st.integers(1, 4))
        noise = draw(st.sampled_from([0.0, 0.2, 0.6]))
        source = X[:, draw(st.integers(0, m - 1))]
        Y[:, i] = np.where(rng.random(n) < noise, rng.integers(0, values, n), source % values)
    if kind == "wide":  # codes 100.. (no zero) and 0 or 64.. with gaps
        X[:, ::2] += 100
        X[:, 1::2] = np.where(X[:, 1::2] > 0, 64 + 37 * X[:, 1::2], 0)
    elif kind == "many":  # more than 256 distinct values (and codes ≥ 256)
        X[:, 0] = rng.permutation(n) * 3
    layout = draw(st.sampled_from(["dense", "sparse", "prepared", "prepared-sparse"]),
                  label="layout")
    dt = np.uint8 if X.max() < 256 else np.uint16
    if layout == "dense":
        Xe = np.asfortranarray(X.astype(dt))
    elif layout == "sparse":
        Xe = sp.csc_matrix(X.astype(dt))
    elif layout == "prepared":
        Xe = prepare_features(X)
    else:
        Xe = prepare_features(sp.csr_matrix(X))
    C = _indicators(Y)
    return Problem(Xe, C, np.column_stack([X, C]).astype(np.int64), layout)


@PROPERTY
@given(problems(), st.data())
def test_tables_and_their_parts_equal_the_reference(p, data):
    """I(X_f; C_c) and I(C_a; C_b) to 1e-12 bits; each engine's table_part blocks (fresh
    engines, as a parallel run's workers compute them) are bit for bit the whole table's rows
    (features) or columns (categories); lookup reads the tables; the levels of every pool
    column are the distinct values it takes."""
    comp, ref = p.engines()
    want = [np.unique(p.pool[:, j]).size for j in range(p.m + p.Q)]
    assert comp.levels().tolist() == ref.levels().tolist() == want
    assert pool_levels(p.X, p.C).tolist() == want
    mi, cat = comp.mi_table(), comp.category_mi_table()
    assert mi.shape == (p.m, p.Q) and cat.shape == (p.Q, p.Q)
    np.testing.assert_allclose(mi, ref.mi_table(), rtol=0, atol=TOL)
    np.testing.assert_allclose(cat, ref.category_mi_table(), rtol=0, atol=TOL)
    for which, size in (("features", p.m), ("categories", p.Q)):
        a = data.draw(st.integers(0, size), label=f"{which} from")
        b = data.draw(st.integers(a, size), label=f"{which} to")
        for name, whole in zip(ENGINES, (comp, ref), strict=True):
            table = whole.mi_table() if which == "features" else whole.category_mi_table()
            part = p.engine(name).table_part(which, a, b)  # (a fresh engine, as a worker's)
            want = table[a:b] if which == "features" else table[:, a:b].T
            assert part.shape == want.shape and np.array_equal(part, want), (which, a, b)
    t = data.draw(st.integers(0, p.Q - 1), label="target")
    cols = data.draw(st.lists(st.integers(0, p.m + p.Q - 1), max_size=6), label="cols")
    want = [mi[j, t] if j < p.m else cat[j - p.m, t] for j in cols]
    assert comp.lookup(t, cols).tolist() == want
    np.testing.assert_allclose(ref.lookup(t, cols), want, rtol=0, atol=TOL)


def _prefix(values: np.ndarray, stop: float) -> int:
    """How many of ``values`` are measured with ``stop_above=stop``: up to the first whose
    12-decimal rounding exceeds it, that one included."""
    over = np.flatnonzero(rounded(values) > stop)
    return int(over[0]) + 1 if over.size else values.size


def _check_values(p: Problem, g, r, cols, stop):
    """``values(cols, stop_above=stop)`` of the compiled session ``g`` and the reference's
    ``r``: the same values to 1e-12, and each the prefix of its own full values that the
    documented stop gives."""
    full_g, full_r = g.values(cols), r.values(cols)
    np.testing.assert_allclose(full_g, full_r, rtol=0, atol=TOL, err_msg=f"{g.cond} {cols}")
    if stop is None:
        return
    got_g, got_r = g.values(cols, stop_above=stop), r.values(cols, stop_above=stop)
    assert np.array_equal(got_g, full_g[:_prefix(full_g, stop)]), (stop, full_g, got_g)
    assert np.array_equal(got_r, full_r[:_prefix(full_r, stop)])
    if np.array_equal(rounded(full_g), rounded(full_r)):  # (not on a rounding boundary)
        assert got_g.size == got_r.size


def _check_state(p: Problem, g, r):
    assert g.cond == r.cond
    assert g.target == r.target
    assert g.strata() == r.strata() == p.strata(g.cond), g.cond


@PROPERTY
@given(problems(), st.data())
def test_sessions_equal_the_reference_as_the_set_grows_and_shrinks(p, data):
    """Sessions for a target whose set S moves by random add/add_all/remove steps, copies
    taken and moved on their own, sessions ended and new ones started: after every step, the
    compiled session and the reference's hold the same S and strata (the distinct joint rows of S), and
    give the same I(t; V | S) for random columns (any pool column: features, categories,
    members of S, t's own), the same early stops (``stop_above``: thresholds at, between and
    below the values, negative ones), the same I(t; V_j | S − j) and strata of S − j
    (``without``), the same values and strata given S with a column more or a member less
    (``values_with``; both leave the session as it was), the same leave-one-out values and
    strata of a backward walk that removes members in turn (``without_each``), and the same
    Engine.strata of random sets; the copies never disturb each other, nor do sessions started after others ended
    (perhaps on their arrays); both engines count the same work."""
    comp, ref = p.engines()
    P = p.m + p.Q
    column = st.integers(0, P - 1)
    target = data.draw(st.integers(0, p.Q - 1), label="target")
    start = data.draw(st.lists(column, unique=True, max_size=3), label="start")
    live = [(comp.given(target, start), ref.given(target, start))]
    _check_state(p, *live[0])
    for _ in range(data.draw(st.integers(1, 25), label="steps")):
        k = data.draw(st.integers(0, len(live) - 1), label="session")
        g, r = live[k]
        op = data.draw(st.sampled_from(["add", "add", "add-all", "remove", "values", "values",
                                        "without", "without-each", "values-with", "copy", "new",
                                        "end", "engine-strata"]), label="op")
        if op == "add" and len(g.cond) < P:
            j = data.draw(st.sampled_from([c for c in range(P) if c not in g.cond]),
                          label="add")
            g.add(j)
            r.add(j)
        elif op == "add-all" and len(g.cond) < P:
            outside = [c for c in range(P) if c not in g.cond]
            cols = data.draw(st.lists(st.sampled_from(outside), unique=True, max_size=5),
                             label="add all")
            g.add_all(cols)
            r.add_all(cols)
        elif op == "remove" and g.cond:
            j = data.draw(st.sampled_from(g.cond), label="remove")
            g.remove(j)
            r.remove(j)
        elif op == "values":
            cols = data.draw(st.lists(column, max_size=8), label="cols")
            picks = [None, 0.0, data.draw(st.floats(-1, 1.5), label="stop")]
            if cols:  # at a value (not above it), and just below
                v = rounded(p.cmi(target, data.draw(st.sampled_from(cols), label="at"), g.cond))
                picks += [v, v - 1e-12]
            stop = data.draw(st.sampled_from(picks), label="stop_above")
            _check_values(p, g, r, cols, stop)
        elif op == "without" and g.cond:
            j = data.draw(st.sampled_from(g.cond), label="without")
            (vg, ng), (vr, nr) = g.without(j), r.without(j)
            rest = [c for c in g.cond if c != j]
            assert abs(vg - vr) <= TOL, (j, g.cond, vg, vr)
            assert ng == nr == p.strata(rest), (j, g.cond)
        elif op == "without-each" and g.cond:  # each left out, then removed: a backward walk
            cols = data.draw(st.permutations(g.cond), label="order")
            cols = cols[:data.draw(st.integers(1, len(cols)), label="how many")]
            before = list(g.cond)
            (vg, ng), (vr, nr) = g.without_each(cols), r.without_each(cols)
            np.testing.assert_allclose(vg, vr, rtol=0, atol=TOL, err_msg=f"{before} {cols}")
            want = [p.strata([c for c in before if c not in cols[:i + 1]])
                    for i in range(len(cols))]
            assert ng.tolist() == nr.tolist() == want, (before, cols)
            assert g.cond == [c for c in before if c not in cols]
        elif op == "values-with":  # given S plus a column, or less a member
            cols = data.draw(st.lists(column, max_size=8), label="cols")
            if g.cond and data.draw(st.booleans(), label="remove"):
                j = data.draw(st.sampled_from(g.cond), label="member")
                how, moved = {"remove": j}, [c for c in g.cond if c != j]
            elif len(g.cond) < P:
                j = data.draw(st.sampled_from([c for c in range(P) if c not in g.cond]),
                              label="column")
                how, moved = {"add": j}, [*g.cond, j]
            else:
                continue
            (vg, ng), (vr, nr) = g.values_with(cols, **how), r.values_with(cols, **how)
            np.testing.assert_allclose(vg, vr, rtol=0, atol=TOL, err_msg=f"{moved} {cols}")
            assert vg.shape == (len(cols),) and ng == nr == p.strata(moved), moved
        elif op == "copy":
            live.append((g.copy(), r.copy()))
        elif op == "new":  # (after an "end", perhaps on the ended session's arrays)
            t = data.draw(st.integers(0, p.Q - 1), label="target")
            cond = data.draw(st.lists(column, unique=True, max_size=4), label="set")
            live.append((comp.given(t, cond), ref.given(t, cond)))
            g, r = live[-1]
        elif op == "end" and len(live) > 1:
            del live[k]
            continue
        elif op == "engine-strata":
            cond = data.draw(st.lists(column, unique=True, max_size=5), label="set")
            assert comp.strata(cond) == ref.strata(cond) == p.strata(cond)
        _check_state(p, g, r)
    for g, r in live:  # every session, copies and originals, still its own
        _check_state(p, g, r)
        _check_values(p, g, r, list(range(P)), None)
    assert comp.stats() == ref.stats()


@pytest.mark.parametrize("layout", ["dense", "sparse"])
def test_sessions_stay_exact_through_many_moves_of_many_rows(layout):
    """A session whose set takes and drops columns of many distinct values again and again
    (hundreds of strata made and emptied at each step, far more than the rows), and a copy
    taken midway and moved apart: every value, leave-one-out value and strata count still
    the reference's."""
    rng = np.random.default_rng(3)
    n = 300
    X = np.column_stack([rng.permutation(n) * 2, rng.integers(0, 60, n),
                         rng.integers(0, 3, (n, 4))])
    Y = np.column_stack([(X[:, 2] + (rng.random(n) < 0.3)) % 2, X[:, 3] % 3])
    C = _indicators(Y)
    X = np.asfortranarray(X.astype(np.uint16))
    p = Problem(sp.csc_matrix(X) if layout == "sparse" else X, C,
                np.column_stack([X, C]).astype(np.int64), layout)
    comp, ref = p.engines()
    P = p.m + p.Q
    live = [(comp.given(0, [4, p.m + 3]), ref.given(0, [4, p.m + 3]))]
    for step in range(16):
        if step == 7:
            live.append((live[0][0].copy(), live[0][1].copy()))
        for g, r in live[-1:] if step % 3 else live:
            j = (0, 1, 5)[step % 3]
            if j in g.cond:  # out again, after a leave-one-out value
                (vg, ng), (vr, nr) = g.without(j), r.without(j)
                rest = [c for c in g.cond if c != j]
                assert abs(vg - vr) <= TOL and ng == nr == p.strata(rest)
                for s in (g, r):
                    s.remove(j)
            else:
                for s in (g, r):
                    s.add(j)
            _check_state(p, g, r)
            _check_values(p, g, r, list(range(P)), None)
    for g, r in live:
        _check_values(p, g, r, list(range(P)), None)


@pytest.mark.parametrize("n", [1, 2])
def test_one_or_two_rows_and_constant_columns(n):
    """On one row everything is constant: every value 0, one stratum; on two rows with a
    constant column and a constant category the engines agree with the definitions."""
    X = np.array([[0, 3, 1], [0, 2, 0]][:n], dtype=np.uint8)
    Y = np.array([[1, 0], [1, 1]][:n])
    C = _indicators(Y)
    pool = np.column_stack([X, C]).astype(np.int64)
    P = pool.shape[1]
    for cls in ENGINES.values():
        eng = cls(X, C, **cls.shared(X, C))
        for t in range(C.shape[1]):
            tcol = C[:, t]
            want = [mutual_information(pool[:, j], tcol) for j in range(P)]
            np.testing.assert_allclose(eng.lookup(t, range(P)), want, rtol=0, atol=TOL)
            g = eng.given(t, [0, 2])
            assert g.strata() == joint_codes(pool[:, [0, 2]])[1]
            np.testing.assert_allclose(
                g.values(range(P)),
                [conditional_mutual_information(tcol, pool[:, j], pool[:, [0, 2]])
                 for j in range(P)], rtol=0, atol=TOL)
            assert g.without(0)[1] == joint_codes(pool[:, [2]])[1]
    if n == 1:
        comp, ref = (cls(X, C, **cls.shared(X, C)) for cls in ENGINES.values())
        assert not comp.mi_table().any() and not comp.category_mi_table().any()
        assert comp.strata(range(P)) == ref.strata(range(P)) == 1
