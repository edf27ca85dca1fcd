"""Counting many targets at once (camcf.batch_counts, camcf.phases.run_targets): every value,
counter and record is bit for bit what each target gives alone, by the counting paths that
existed before (each set counted on its own)."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from camcf import batch_counts, fast_engine
from camcf.algorithm import check_params
from camcf.fast_engine import FastEngine
from camcf.result import Category
from camcf.tasks import target_work, targets_work


@pytest.fixture(autouse=True)
def _by_rows_on_small_data(monkeypatch):
    """These data are small (400 rows): count by rows anyway, as on larger data, so that the
    joint cells and the products over many targets are exercised."""
    monkeypatch.setattr(fast_engine, "_ROWS_FROM", 0)


def _data(seed: int = 5, n: int = 400, m: int = 30):
    rng = np.random.default_rng(seed)
    X = np.asfortranarray(rng.integers(0, 3, size=(n, m)).astype(np.uint8))
    y = np.column_stack([
        (X[:, 0] + X[:, 1] + rng.integers(0, 2, n)) > 2,  # depends on features 0, 1
        (X[:, 2] == 0) ^ (rng.random(n) < 0.1),
        rng.random(n) < 0.3,
        (X[:, 0] > 0) & (rng.random(n) < 0.7),
    ]).astype(np.uint8)
    y[:, 2] |= y[:, 0] & (rng.random(n) < 0.5)  # a label that depends on another
    C = np.asfortranarray(np.column_stack([v for j in range(y.shape[1])
                                           for v in (1 - y[:, j], y[:, j])]).astype(np.uint8))
    return X, C


def _fresh(X, C, shared=None):
    return FastEngine(X, C, **(shared or FastEngine.shared(X, C)))


# (target, fixed: R as pool columns, extras: PC, threshold of the screen)
_SPOUSE_CASES = [
    (1, [31], [0, 1], 0.02), (3, [33], [2, 5], 0.02), (5, [31], [0, 4], 0.01),
    (7, [], [0, 1], 0.02), (1, [35, 33], [0, 1], 0.02), (3, [31], [2, 5], -1.0),
    (7, [33], [0, 6, 9], 0.02), (5, [], [4, 8], 0.005),
]


@pytest.mark.parametrize("shared_keep", [False, True])
def test_spouse_steps_of_many_targets_match_each_counted_alone(monkeypatch, shared_keep):
    """screen_then_extras_many over eight targets (R of one or two categories or empty, two
    or three PC members, a screen keeping none) counts the joint cells of several targets in
    one product and gives, bit for bit, the values, masks and counters of each target counted
    set by set on its own engine (joint cells switched off); with ``shared_keep`` the targets
    of one threshold share one elementwise screen (AtMost: screened at once)."""
    X, C = _data()
    m = X.shape[1]
    chunks = []
    count_chunk = batch_counts._count_chunk
    monkeypatch.setattr(batch_counts, "_count_chunk", lambda plans: (
        chunks.append(len(plans)) or count_chunk(plans)))
    shared = FastEngine.shared(X, C)  # one run's engines share their indicators
    engines = [_fresh(X, C, shared) for _ in _SPOUSE_CASES]
    requests = []
    keeps: dict = {}
    for eng, (t, fixed, extras, limit) in zip(engines, _SPOUSE_CASES, strict=True):
        variables = np.setdiff1d(np.arange(m), extras)
        given = eng.mi_table()[variables, t] if not fixed else None
        keep = (keeps.setdefault(limit, batch_counts.AtMost(limit)) if shared_keep
                else lambda v, lim=limit: np.round(v, 12) <= lim)
        requests.append((eng, t, variables, fixed, extras, keep, given))
    got = batch_counts.screen_then_extras_many(requests)
    assert len(chunks) == 1 and chunks[0] >= 4  # several targets in one product

    monkeypatch.setattr(batch_counts, "joint_cells_many", lambda items: [None] * len(items))
    for (eng, t, variables, fixed, extras, _, given), (v1, pick, v2), case in zip(
            requests, got, _SPOUSE_CASES, strict=True):
        alone = _fresh(X, C)
        g = None if given is None else alone.mi_table()[variables, t]
        lim = case[3]  # the screen of the target alone: its own plain function
        w1, wpick, w2 = alone.screen_then_extras(t, variables, fixed, extras,
                                                 lambda v, lim=lim: np.round(v, 12) <= lim,
                                                 given=g)
        assert np.array_equal(v1, w1) and v1.dtype == w1.dtype
        assert np.array_equal(pick, wpick)
        assert len(v2) == len(w2)
        for a, b in zip(v2, w2, strict=True):
            assert np.array_equal(a, b) and a.dtype == b.dtype
        assert eng.stats() == alone.stats()
    assert any(not p.any() for _, p, _ in got)  # the screen that keeps nothing
    assert any(len(v2) == 3 for _, _, v2 in got)


def test_phase1_tests_of_many_targets_match_each_counted_alone(monkeypatch):
    """cmi_many_batch (Phase 1's tests given R of many targets) gives, bit for bit, the values
    and counters of cmi_many on each target's own engine: categories given one, two or four
    categories (dead strata among them), given a set fixing t (every value 0), features,
    the unconditional lookups; the categories of several targets in one product."""
    X, C = _data(7)
    m, Q = X.shape[1], C.shape[1]
    requests = [
        (1, m + np.array([2, 3, 4, 5, 6, 7]), [m + 5]),
        (3, m + np.array([0, 1, 4, 5]), [m + 1, m + 5]),
        (5, m + np.array([1, 2, 3, 6, 7]), [m + 1, m + 3, m + 7, m + 6]),  # dead strata
        (2, m + np.array([0, 1, 5]), [m + 3]),  # C_3 = ¬C_2 fixes t: every value is 0
        (7, np.array([0, 1, 2]), [m + 1]),  # features: the engine's own path
        (6, m + np.arange(4), []),  # unconditional: the table
        (0, m + np.array([2, 3, 4, 5, 6, 7]), [m + 2]),
    ]
    products = []
    matmul = np.matmul
    monkeypatch.setattr(batch_counts.np, "matmul", lambda a, b: (
        products.append(a.shape[0]) or matmul(a, b)))
    shared = FastEngine.shared(X, C)
    engines = [_fresh(X, C, shared) for _ in requests]
    got = batch_counts.cmi_many_batch([(e, t, cols, cond)
                                       for e, (t, cols, cond) in zip(engines, requests,
                                                                     strict=True)])
    monkeypatch.setattr(batch_counts.np, "matmul", matmul)
    assert products == [4]  # the four requests of categories with informative strata
    for e, (t, cols, cond), vals in zip(engines, requests, got, strict=True):
        alone = _fresh(X, C)
        want = alone.cmi_many(t, cols, cond)
        assert np.array_equal(vals, want) and vals.dtype == want.dtype
        assert e.stats() == alone.stats()
    assert not got[3].any() and got[0].any()
    assert Q == 8


@pytest.mark.parametrize("trace", ["full", "decisions"])
def test_targets_run_together_give_each_target_alone(trace):
    """targets_work over every category (Phase 1 rounds and spouse steps of all targets
    counted together) gives each target's result, record, conditioning sets and counters as
    target_work gives them one target at a time."""
    X, C = _data(11)
    eng = _fresh(X, C)
    shared = FastEngine.shared(X, C)
    tables = (eng.mi_table(), eng.category_mi_table())
    Q = C.shape[1]
    label_of = np.arange(Q) // 2
    cats = [Category(id=i, label_index=i // 2, label=f"L{i // 2}", value=i % 2,
                     name=str(i % 2), size=int(C[:, i].sum())) for i in range(Q)]
    others = [np.flatnonzero(label_of != c.label_index) for c in cats]
    params = check_params(0.01, 0.01, 1.0, 1.0, 1.2, 1, "all")
    together = targets_work(X, C, tables, cats, others, params, trace, "fast", shared)
    assert sum(len(r.spouses) for r, _, _ in together) > 0
    assert sum(len(r.skeleton) > 1 for r, _, _ in together) > 0
    for c, o, (res, sets, counters) in zip(cats, others, together, strict=True):
        r1, s1, k1 = target_work(X, C, tables, c, o, params, trace, "fast", shared)
        assert counters == k1
        assert set(res.trace) == set(r1.trace)
        for key in res.trace:  # NaN where a row has no threshold
            np.testing.assert_array_equal(res.trace[key], r1.trace[key])
            assert res.trace[key].dtype == r1.trace[key].dtype
        for key in ("values", "offsets", "strata"):
            assert np.array_equal(getattr(sets, key), getattr(s1, key))
        for f in dataclasses.fields(res):
            if f.name != "trace":
                assert getattr(res, f.name) == getattr(r1, f.name), f.name


@pytest.mark.parametrize("n_live", [3, 4])
def test_values_of_same_shaped_tables_at_once_are_each_alone(n_live):
    """_values_many (the values of same-shaped tables in one call, the dead strata's extra
    stratum left out) gives each table's values bit for bit as FastEngine._values alone."""
    rng = np.random.default_rng(3)
    G, k, S = 5, 4, 4  # K = 3 codes
    ts = rng.integers(0, 40, size=(G, 2 * S))
    counts = np.stack([
        np.stack([np.stack([rng.multinomial(c, [0.5, 0.3, 0.2]) for c in ts[g]], axis=1)
                  for _ in range(k)]) for g in range(G)])  # (G, k, K, 2S), codes sum to ts
    assert (counts.sum(axis=2) == ts[:, None, :]).all()
    n = int(ts.sum(axis=1).max())
    eng = FastEngine(np.zeros((n, 1), dtype=np.uint8), np.zeros((n, 1), dtype=np.uint8))
    got = batch_counts._values_many(counts, ts, S, eng, n_live)
    for g in range(G):
        want = eng._values(counts[g], (n_live, S, ts[g]))
        assert np.array_equal(got[g], want)
    assert got.shape == (G, k)


def test_screen_cells_of_many_targets_are_each_engines_cells():
    """lead_cells (the screens' (t, stratum) counts of many targets from one bincount) gives,
    item by item, exactly FastEngine._cells: sets whose strata all hold both t = 0 and t = 1,
    sets with dead strata and one fixing t (no informative stratum: None), in several shapes."""
    X, C = _data()
    m = X.shape[1]
    shared = FastEngine.shared(X, C)
    cases = [(1, [m + 5]), (3, [m + 1]), (1, [m + 0]), (5, [m + 1, m + 3, m + 7]),
             (7, [m + 2, m + 5]), (2, [m + 0, m + 4]), (1, [0, 1, 2, 3])]
    items = []
    for t, fixed in cases:
        eng = _fresh(X, C, shared)
        r, nr = eng.joint(fixed)
        items.append((eng, eng._target(t), r, nr))
    got = batch_counts.lead_cells(items)
    kinds = set()
    for (_, t, r, nr), cells in zip(items, got, strict=True):
        want = _fresh(X, C)._cells(t, r, nr)
        if want is None:
            assert cells is None
            kinds.add("none")
            continue
        kinds.add("full" if want[0] == want[1] == nr else "dead")
        assert cells[:2] == want[:2]
        for a, b in zip(cells[2:], want[2:], strict=True):
            assert (a is None and b is None) or (np.array_equal(a, b) and a.dtype == b.dtype)
    assert kinds == {"none", "full", "dead"}


def test_spouse_steps_of_engines_of_other_data_are_each_alone():
    """spouses_many over engines of data with different numbers of features (the features
    outside each PC found one job at a time) gives each target's spouses and record alone."""
    from camcf.phases import spouses, spouses_many
    from camcf.trace import CondSets, TraceBuilder

    X, C = _data()
    X2, _ = _data(6, m=18)
    jobs, alone = [], []
    for Xi, t, pc, R in [(X, 1, [0, 1], [5]), (X2, 3, [2, 5], [1]), (X, 7, [0, 6], [])]:
        for out in (jobs, alone):
            eng = _fresh(Xi, C)
            out.append((eng, t, eng.mi_table()[:, t], pc, R, 0.02,
                        TraceBuilder(CondSets(), "full")))
    got = spouses_many(jobs)
    for job, ref, res in zip(jobs, alone, got, strict=True):
        assert res == spouses(*ref)
        assert {k: v.tolist() for k, v in job[6].freeze().items()} == {
            k: v.tolist() for k, v in ref[6].freeze().items()}
    assert {job[0].m for job in jobs} == {30, 18} and any(got)


def test_small_data_counted_without_rows_gives_the_values_of_counting_by_rows(monkeypatch):
    """Below ``_ROWS_FROM`` indicator cells the engine counts dense features by BLAS
    products and bincounts, not by rows: a whole run (every value, record and conditioning
    set, at the full level) is bit for bit the run counted by rows."""
    import camcf

    X, C = _data(11, n=300, m=24)
    Y = C[:, 1::2]
    params = dict(delta1=0.005, delta2=0.01, k1=1.0, k2=0.5, trace="full")
    used = []
    by_rows = FastEngine._counts_rows
    monkeypatch.setattr(FastEngine, "_counts_rows", lambda self, *a: (
        used.append(1) or by_rows(self, *a)))
    monkeypatch.setattr(fast_engine, "_ROWS_FROM", 10**9)
    plain = camcf.run(X, Y, **params)
    assert not used
    monkeypatch.setattr(fast_engine, "_ROWS_FROM", 0)
    rows = camcf.run(X, Y, **params)
    assert used  # the other run did count by rows
    assert plain.stats["tests"] == rows.stats["tests"] > 100
    assert plain.cond_sets == rows.cond_sets
    for a, b in zip(plain.targets, rows.targets, strict=True):
        assert a.blanket == b.blanket and a.spouses == b.spouses
        for k in a.trace:
            assert np.array_equal(a.trace[k], b.trace[k], equal_nan=a.trace[k].dtype.kind == "f")


@pytest.mark.parametrize("level", ["full", "decisions", "counters"])
@pytest.mark.parametrize("sparse", [False, True])
def test_spouse_rows_recorded_as_one_add_per_pc_member(level, sparse):
    """spouses_many records each target's tests given its PC members as one block and builds
    its spouses from the hits at once: the record (rows, sets, their strata, counts) and the
    spouses are, bit for bit, those of the step recorded one PC member at a time, the spouses
    gathered z by z (the way it was written before), from the same screen and values."""
    import scipy.sparse as sps

    from camcf.info import rounded
    from camcf.phases import spouses_many
    from camcf.trace import TARGET, CondSets, TraceBuilder, decide

    X, C = _data()
    Xs = sps.csc_matrix(X) if sparse else X
    shared = FastEngine.shared(Xs, C)
    cases = [(1, [0, 1], [5], 0.02), (3, [2, 5], [1], 0.02), (7, [0, 6, 9], [], 0.02),
             (5, [4, 8], [0, 2], 0.005), (1, [0, 1], [5], -1.0), (3, [2], [1], 0.5)]
    jobs = []
    for t, pc, R, d1 in cases:
        eng = FastEngine(Xs, C, **shared)
        jobs.append((eng, t, eng.mi_table()[:, t], pc, R, d1,
                     TraceBuilder(CondSets(), level, strata=eng.strata)))
    got = spouses_many(jobs)
    n_found = 0
    for (_, t, s, pc, R, d1, tb), res in zip(jobs, got, strict=True):
        ref = FastEngine(Xs, C, **shared)
        rtb = TraceBuilder(CondSets(), level, strata=ref.strata)
        m = ref.m
        non_pc = np.setdiff1d(np.arange(m), pc)
        R_pool = [q + m for q in R]
        v1, mask, v2s = ref.screen_then_extras(
            t, non_pc, R_pool, pc, lambda v, d1=d1: rounded(v) <= d1,
            None if R_pool else s[non_pc])
        rtb.add("spouse-screen", TARGET, non_pc, R_pool, v1, d1,
                decide(mask, "tested", "not-tested"))
        screened = non_pc[mask]
        found: dict[int, list[int]] = {}
        if screened.size:
            k = screened.size
            every = rtb.keeps("spouse", "not-spouse")
            hits = [rounded(v2) > d1 for v2 in v2s]
            if not every and not any(h.any() for h in hits):
                rtb.add("spouse", TARGET, np.empty(0, dtype=np.int64), [], np.empty(0), d1,
                        "spouse", at=np.empty(0, dtype=np.int64), n=k * len(pc))
            else:
                for x, v2, hit in zip(pc, v2s, hits, strict=True):
                    h = np.flatnonzero(hit)
                    if every:
                        rtb.add("spouse", TARGET, screened, [x] + R_pool, v2, d1,
                                decide(hit, "spouse", "not-spouse"), aux=x)
                    else:
                        rtb.add("spouse", TARGET, screened[h], [x] + R_pool, v2[h], d1,
                                "spouse", aux=x, at=h, n=k)
                    for z in screened[h].tolist():
                        found.setdefault(z, []).append(int(x))
        assert res == dict(sorted(found.items()))
        n_found += len(res)
        rec, want = tb.freeze(), rtb.freeze()
        assert {c: v.tolist() for c, v in rec.items()} == {c: v.tolist() for c, v in want.items()}
        assert tb.counts == rtb.counts
        sets, want_sets = tb._conds.freeze(), rtb._conds.freeze()
        assert sets.values.tolist() == want_sets.values.tolist()
        assert sets.strata.tolist() == want_sets.strata.tolist()
    assert n_found
