"""Phase 2's first step and backward walk of several targets at once
(camcf.phases.local_structure.parents_children_many): each target's candidates, PC, record,
conditioning sets and engine counters are, bit for bit, those of the walk alone through the
engine's leave-one-out session, whatever the other targets of the group (the walks of at most
two kept candidates advance together, their values counted by batch_counts.single_values)."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp

from camcf.fast_engine import FastEngine
from camcf.info import ReferenceEngine
from camcf.phases import local_structure
from camcf.phases.local_structure import parents_children_many
from camcf.trace import DECISION_CODE, STEP_CODE, TRACE_LEVELS, CondSets, TraceBuilder


def _data(seed: int = 7, n: int = 300, m: int = 14, q: int = 4):
    rng = np.random.default_rng(seed)
    X = rng.integers(0, 3, size=(n, m)).astype(np.uint8)
    X[:, 5] = rng.integers(0, 5, n)  # a feature of five codes
    copy = rng.random((n, 3)) < 0.9
    X[:, 8:11] = np.where(copy, X[:, 0:3], X[:, 8:11])  # near copies: the walk removes them
    X[:, 11] = X[:, 1]  # a copy: the first of the two is removed, the second given R alone
    y = np.empty((n, q), dtype=np.uint8)
    for j in range(q):  # labels that depend on two or three features
        y[:, j] = (X[:, j] + X[:, j + 4] // 2 + rng.integers(0, 2, n)) > 2
    C = np.column_stack([v for j in range(q) for v in (1 - y[:, j], y[:, j])]).astype(np.uint8)
    return X, C


# (target, R as category ids, delta1, k1): at most two kept candidates (walked together) or more
_JOBS = [(2, [], 0.02, 0.3), (3, [5], 0.02, 0.1), (2, [4], 0.04, 0.5), (0, [2], 0.04, 0.5),
         (1, [3], 0.01, 1.0), (1, [], 0.02, 0.5), (6, [0], 0.001, 0.1), (5, [1, 7], 0.005, 0.15),
         (0, [2], 0.3, 0.1)]


@pytest.mark.parametrize("level", list(TRACE_LEVELS))
@pytest.mark.parametrize("sparse", [False, True])
def test_phase2_of_many_targets_is_each_walked_alone(monkeypatch, level, sparse):
    X, C = _data()
    Xs = sp.csc_matrix(X) if sparse else X
    shared = FastEngine.shared(Xs, C)

    def engine(i):
        if i == 6:  # another engine: walked by its own session
            return ReferenceEngine(X, C)
        return FastEngine(Xs, C, **shared)

    def jobs(engines, tbs):
        return [(e, t, e.mi_table()[:, t], R, d1, k1, tb) for e, tb, (t, R, d1, k1) in zip(
            engines, tbs, _JOBS, strict=True)]

    engines = [engine(i) for i in range(len(_JOBS))]
    tbs = [TraceBuilder(CondSets(), level, strata=e.strata) for e in engines]
    walked = []
    short = local_structure._short_walks
    monkeypatch.setattr(local_structure, "_short_walks", lambda js: (
        walked.append(len(js)) or short(js)))
    got = parents_children_many(jobs(engines, tbs))
    assert walked == [7]  # the targets of at most two kept candidates on fast engines

    monkeypatch.setattr(local_structure, "_short", lambda *a: False)  # each walked alone
    alone = [engine(i) for i in range(len(_JOBS))]
    tbs_alone = [TraceBuilder(CondSets(), level, strata=e.strata) for e in alone]
    want = [parents_children_many([job])[0] for job in jobs(alone, tbs_alone)]
    assert got == want
    for tb, tb_alone, e, e_alone in zip(tbs, tbs_alone, engines, alone, strict=True):
        rec, rec_alone = tb.freeze(), tb_alone.freeze()
        assert {k: v.tolist() for k, v in rec.items()} == {
            k: v.tolist() for k, v in rec_alone.items()}
        assert tb.counts == tb_alone.counts and e.stats() == e_alone.stats()
        sets, sets_alone = tb._conds.freeze(), tb_alone._conds.freeze()
        assert sets.values.tolist() == sets_alone.values.tolist()
        assert sets.strata.tolist() == sets_alone.strata.tolist()
    # short walks of one and two candidates that remove the first or the second, and a longer
    assert [(k, pc) for _, k, pc in got[:4]] == [([1, 11], [11]), ([1], [1]), ([1, 11], [11]),
                                                 ([0, 8], [0])]
    assert len(got[4][1]) > 2
    if level != "counters":
        rec = tbs[0].freeze()
        assert rec["step"].tolist().count(STEP_CODE["backward"]) == (2 if level == "full" else 1)
        assert DECISION_CODE["removed"] in rec["decision"].tolist()
