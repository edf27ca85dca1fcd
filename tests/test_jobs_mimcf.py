"""MI-MCF made fast enough for large label spaces without changing a decision: the vectorised
SU/MI/G² rows equal the pair-by-pair values bit for bit, whole runs select the same features as
the pair-by-pair code, and a time budget ends a run with a clear message."""

from __future__ import annotations

import numpy as np
import pytest

from camcf.baselines.mimcf import _MAX_STATES, _MIMCF, MIMCF, mimcf_select
from camcf.jobs import TimeBudgetExceeded


def _data(seed: int, n: int = 300, m: int = 12, q: int = 4) -> tuple[np.ndarray, int]:
    r = np.random.default_rng(seed)
    X = r.integers(0, 4, (n, m))
    X[:, 0] = 0  # constant
    X[:, 1] = r.integers(0, 3, n) * 3  # codes with gaps: levels ≠ states
    X[:, 2] = r.integers(0, _MAX_STATES + 8, n)  # too many states for the vectorised path
    X[:, 3] = (r.random(n) < 0.05).astype(int)  # sparse binary
    Y = r.integers(0, 2, (n, q))
    Y[:, 0] = np.where(r.random(n) < 0.8, X[:, 4] % 2, Y[:, 0])
    if q > 2:
        Y[:, 2] = r.integers(0, 3, n)  # a 3-state label
    return np.hstack([X, Y]), q


class _PairByPair(_MIMCF):
    """The code's measures one pair at a time, as before the vectorisation."""

    def su_from(self, a):
        return np.array([self.su(a, b) for b in range(self.p)])

    def su_to(self, t):
        return np.array([self.su(c, t) for c in range(self.p)])

    def g2_many(self, fixed, others, *, fixed_is_x=True):
        got = [self.g2(fixed, int(o)) if fixed_is_x else self.g2(int(o), fixed) for o in others]
        return (np.array([float(p) for p, _ in got]), np.array([float(d) for _, d in got]))

    def independent(self, x, y, s):
        mi_xy = self.mi(x, y)
        if not s:
            return True
        d = self.data
        if self.variant == "paper":
            from camcf.baselines.mimcf import _true_cmi_nats

            return bool(mi_xy >= _true_cmi_nats(d[:, x], d[:, y], d[:, s]))
        first = [self._code_entropy(x)] + [self._code_entropy(c) for c in s]
        second = [self._code_entropy(y)] + [self._code_entropy(c) for c in s]
        stacked = [self._code_entropy(x, y)] + [self._code_entropy(c, c) for c in s]
        cmi = (np.array(first) + np.array(second)) - np.array(stacked)
        return bool((mi_xy >= cmi).any())

    def _code_entropy(self, a, b=None):
        from camcf.baselines.mimcf import _stacked_entropy

        col = self.data[:, a] if b is None else np.concatenate((self.data[:, a], self.data[:, b]))
        return _stacked_entropy(col)


@pytest.mark.parametrize("seed", range(6))
def test_rows_equal_the_pairs_bit_for_bit(seed):
    data, q = _data(seed)
    fast = _MIMCF(data, q, 0.05, 0.7, 0.1, "code")
    slow = _PairByPair(data, q, 0.05, 0.7, 0.1, "code")
    for a in range(fast.p):
        assert fast.su_from(a).tobytes() == slow.su_from(a).tobytes()
        assert fast.su_to(a).tobytes() == slow.su_to(a).tobytes()
        others = np.arange(fast.p)
        for fixed_is_x in (True, False):
            p1, d1 = fast.g2_many(a, others, fixed_is_x=fixed_is_x)
            p2, d2 = slow.g2_many(a, others, fixed_is_x=fixed_is_x)
            assert p1.tobytes() == p2.tobytes() and d1.tobytes() == d2.tobytes()


def test_binary_pair_entropies_depend_on_the_count_alone():
    r = np.random.default_rng(0)
    cols = [(r.random(n) < p).astype(np.int64) for n, p in
            [(50, 0.5), (9000, 0.01), (20000, 0.3), (40, 0.0), (40, 1.0)]]
    data = np.column_stack([np.resize(c, 40000) if c.size < 40000 else c[:40000] for c in cols])
    data[:, 3] = 0  # a column without any 1
    fast = _MIMCF(data, 1, 0.05, 0.7, 0.1, "code")
    slow = _PairByPair(data, 1, 0.05, 0.7, 0.1, "code")
    for a in range(5):
        assert fast._code_entropy(a) == slow._code_entropy(a) or (
            np.isnan(fast._code_entropy(a)) and np.isnan(slow._code_entropy(a)))
        for b in range(5):
            x, y = fast._code_entropy(a, b), slow._code_entropy(a, b)
            assert x == y or (np.isnan(x) and np.isnan(y))


@pytest.mark.parametrize("seed", range(8))
def test_whole_runs_select_what_the_pair_by_pair_code_selects(seed):
    r = np.random.default_rng(100 + seed)
    n, m, q = int(r.integers(80, 400)), int(r.integers(3, 20)), int(r.integers(2, 6))
    X = r.integers(0, int(r.integers(2, 4)), (n, m))
    Y = (r.random((n, q)) < 0.3).astype(int)
    for j in range(min(m, q)):  # structure: features copy labels with noise
        X[:, j] = np.where(r.random(n) < 0.85, Y[:, j], X[:, j])
    data = np.hstack([X, Y])
    for variant, k2 in (("code", 0.1), ("code", 0.6), ("paper", 0.3)):
        fast = _MIMCF(data, q, 0.05, 0.7, k2, variant).run()
        slow = _PairByPair(data, q, 0.05, 0.7, k2, variant).run()
        assert fast == slow


def test_a_time_budget_ends_the_run_with_a_message():
    r = np.random.default_rng(0)
    X = r.integers(0, 2, (200, 10))
    Y = r.integers(0, 2, (200, 5))
    with pytest.raises(TimeBudgetExceeded) as e:
        mimcf_select(X, Y, max_seconds=1e-9)
    msg = str(e.value)
    assert msg.startswith("MI-MCF stopped after") and "time budget of 1e-09 s" in msg
    assert "200 rows × 10 features × 5 labels" in msg and "phase 1, label 1 of 5" in msg
    assert "raise max_seconds" in msg and "leave MI-MCF out" in msg
    assert e.value.method == "MI-MCF" and e.value.budget == 1e-9 and e.value.seconds >= 0
    # a budget it stays within changes nothing
    assert mimcf_select(X, Y, max_seconds=600) == mimcf_select(X, Y)
    assert MIMCF(max_seconds=600).fit(X, Y).selected_ == mimcf_select(X, Y)


def test_a_split_over_budget_is_a_failure_of_that_split_only():
    from camcf import methods
    from camcf.evaluation import compare, make_folds, make_splitter

    r = np.random.default_rng(1)
    X = r.integers(0, 3, (120, 6))
    Y = r.integers(0, 2, (120, 3))
    folds = make_folds(X, Y, make_splitter("repeated", n_repeats=2))
    cmp = compare(folds, {"mi-mcf": MIMCF(max_seconds=1e-9), "all": methods.make("all")},
                  n_features=None)
    assert [s for s, _ in cmp.failures["mi-mcf"]] == [0, 1]
    assert all("over its time budget" in m for _, m in cmp.failures["mi-mcf"])
    assert "all" not in cmp.failures
