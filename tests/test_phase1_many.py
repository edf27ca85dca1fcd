"""Phase 1 of several targets at once (camcf.phases.label_skeletons): each target's skeleton,
candidates, record and engine counters are, bit for bit, those of label_skeleton alone on its
own engine, whatever the other targets of the group (their first step, I(t; C_d) of every
other category, is read, rounded and sorted for the whole group at once)."""

from __future__ import annotations

import numpy as np
import pytest

from camcf import batch_counts
from camcf.fast_engine import FastEngine
from camcf.info import ReferenceEngine
from camcf.phases import label_skeleton, label_skeletons
from camcf.trace import TRACE_LEVELS, CondSets, TraceBuilder


def _data(seed: int = 3, n: int = 300, q: int = 6):
    rng = np.random.default_rng(seed)
    X = rng.integers(0, 3, size=(n, 12)).astype(np.uint8)
    y = np.empty((n, q), dtype=np.uint8)
    for j in range(q):  # correlated labels: many candidates, ties between the complements
        y[:, j] = (X[:, j] + (y[:, j - 1] if j else 0) + rng.integers(0, 2, n)) > 2
    C = np.column_stack([v for j in range(q) for v in (1 - y[:, j], y[:, j])]).astype(np.uint8)
    return X, C


@pytest.mark.parametrize("level", list(TRACE_LEVELS))
def test_phase1_of_many_targets_is_each_alone(level):
    X, C = _data()
    Q = C.shape[1]
    label = np.arange(Q) // 2
    shared = FastEngine.shared(X, C)
    tables = (FastEngine(X, C, **shared).mi_table(),
              FastEngine(X, C, **shared).category_mi_table())
    targets = [1, 2, 5, 6, 9, 11, 3]
    delta2 = [0.0, 0.01, 0.0, 0.02, 0.0, 0.5, 0.0]  # 0.5: no candidate

    def engine(i):
        if i == 4:  # another engine: answered by itself
            return ReferenceEngine(X, C)
        return FastEngine(X, C, tables=tables, **shared)

    def others(i, t):
        return [] if i == 6 else np.flatnonzero(label != label[t])  # no other label

    engines = [engine(i) for i in range(len(targets))]
    tbs = [TraceBuilder(CondSets(), level) for _ in targets]
    got = label_skeletons([(e, t, others(i, t), d, tb) for i, (e, t, d, tb) in enumerate(
        zip(engines, targets, delta2, tbs, strict=True))])
    sizes = []
    for i, (t, d) in enumerate(zip(targets, delta2, strict=True)):
        alone, tb = engine(i), TraceBuilder(CondSets(), level)
        want = label_skeleton(alone, t, others(i, t), d, tb)
        assert got[i] == want
        assert {k: v.tolist() for k, v in tbs[i].freeze().items()} == {
            k: v.tolist() for k, v in tb.freeze().items()}
        assert tbs[i].counts == tb.counts and engines[i].stats() == alone.stats()
        sizes.append(len(want[0]))
    assert max(sizes) >= 2 and 0 in sizes  # skeletons of several members, and empty ones


def test_lookups_of_many_targets_are_each_targets_cmi_many():
    X, C = _data(4)
    m = X.shape[1]
    shared = FastEngine.shared(X, C)
    tables = (FastEngine(X, C, **shared).mi_table(),
              FastEngine(X, C, **shared).category_mi_table())
    requests = [(FastEngine(X, C, tables=tables, **shared), t, m + np.array(cols))
                for t, cols in [(0, [2, 3, 5]), (3, [0, 1, 4, 7]), (4, [11]), (9, [])]]
    requests.append((ReferenceEngine(X, C), 2, m + np.array([4, 5, 0])))
    got = batch_counts.lookups_many(requests)
    for (eng, t, cols), vals in zip(requests, got, strict=True):
        alone = (ReferenceEngine(X, C) if isinstance(eng, ReferenceEngine)
                 else FastEngine(X, C, tables=tables, **shared))
        want = alone.cmi_many(t, cols, [])
        assert np.array_equal(vals, want) and vals.dtype == want.dtype
        assert eng.stats() == alone.stats()
    assert got[0].any()
