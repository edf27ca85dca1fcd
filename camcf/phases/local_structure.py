"""Phase 2 — parents/children (PC) and spouses (SP) of a target category (Algorithm 3).

1. Score every feature, s_f = SCSMI(X_f; t) = I(t; X_f). Candidates: s_f > δ1, sorted by s_f
   (stable, descending); keep the first ⌈k1 × #candidates⌉.
2. Backward elimination over the kept candidates in that order: with S = (PC − f) ∪ R,
   v = I(t; X_f | S) (s_f when S is empty); v ≤ δ1 removes f from PC at once, so later tests
   condition on the smaller PC.
3. Spouses: for x in PC and z ∉ PC, v1 = I(t; X_z | R) (s_z when R is empty). If v1 ≤ δ1,
   v2 = I(t; X_z | {X_x} ∪ R); v2 > δ1 makes z a spouse induced by x (every x is recorded).

Note the estimator: conditioning on many variables splits n samples into many small strata, so
I(·;·|S) falls towards 0 as S grows and backward elimination can prune hard. That is the
published algorithm; it is shown, not corrected.
"""

from __future__ import annotations

import math

import numpy as np

from ..batch_counts import SINGLE_STATES, AtMost, screen_then_extras_many, single_values
from ..info import _JOINT_CACHE_BYTES, rounded
from ..trace import DECISION_CODE, TARGET, TraceBuilder, decide
from .skeleton import _advance

_BLOCK_ROWS = 8  # backward values from which a run's rows are recorded as one block
_NONE, _NONE_F = np.empty(0, dtype=np.int64), np.empty(0)


def parents_children(engine, target: int, s: np.ndarray, R: list[int], delta1: float,
                     k1: float, tb: TraceBuilder) -> tuple[list[int], list[int], list[int]]:
    """Return (all candidates sorted, kept candidates, PC) as feature indices.

    ``s`` holds s_f for every feature (bits).
    """
    return parents_children_many([(engine, target, s, R, delta1, k1, tb)])[0]


def parents_children_many(jobs: list[tuple]) -> list[tuple[list[int], list[int], list[int]]]:
    """:func:`parents_children` of several targets, each job ``(engine, target, s, R, delta1,
    k1, tb)``: the walks of at most two kept candidates (every value a single one, see
    :func:`_short_walks`) advance together, their values of a round counted in one call
    (:func:`camcf.batch_counts.single_values`); each other target walks alone. Each target's
    result and record are those of :func:`parents_children` alone."""
    firsts = _first_steps(jobs)
    pcs: list = [None] * len(jobs)
    short = [i for i, (job, (_, kept)) in enumerate(zip(jobs, firsts, strict=True))
             if _short(job[0], kept, job[3])]
    for i, pc in zip(short, _short_walks([(*jobs[i][:2], firsts[i][1], jobs[i][3],
                                           jobs[i][4], jobs[i][6]) for i in short]),
                     strict=True):
        pcs[i] = pc
    out = []
    for (engine, target, _, R, delta1, _, tb), (order, kept), pc in zip(jobs, firsts, pcs,
                                                                         strict=True):
        if pc is None:
            pc = _backward(engine, target, kept, R, delta1, tb)
        out.append(([int(f) for f in order], kept, pc))
    return out


def _first_steps(jobs: list[tuple]) -> list[tuple[np.ndarray, list[int]]]:
    """Phase 2's first step of each job ``(engine, target, s, R, delta1, k1, tb)``: the
    candidates sorted (by rounded s_f, stable descending) and the kept ones, recorded (kept,
    cut by k1, below δ1, one call per job); the scores of jobs with one number of features
    rounded and sorted at once."""
    if len({job[2].shape for job in jobs}) > 1:
        return [out for job in jobs for out in _first_steps([job])]
    if not jobs:
        return []
    S = np.stack([job[2] for job in jobs])  # (jobs, features)
    G, m = S.shape
    rs = rounded(S)
    is_cand = rs > np.array([job[4] for job in jobs])[:, None]
    n_cand = np.count_nonzero(is_cand, axis=1)
    flat = np.flatnonzero(is_cand)
    job_of = flat // m
    flat = flat[np.lexsort((-rs.ravel()[flat], job_of))]  # by job, then rounded s_f descending
    below = np.flatnonzero(~is_cand)
    ends = np.cumsum(n_cand).tolist()
    ends_below = np.cumsum(m - n_cand).tolist()
    out = []
    lo = lo_b = 0
    for g, (job, hi, hi_b) in enumerate(zip(jobs, ends, ends_below, strict=True)):
        delta1, k1, tb = job[4], job[5], job[6]
        order = flat[lo:hi] - g * m
        # ⌈k1·n⌉ in floating point, as the authors' code computes it
        n_keep = math.ceil(k1 * order.size)
        rows = np.concatenate([order, below[lo_b:hi_b] - g * m])
        dec = np.full(rows.size, _BELOW, dtype=np.int8)
        dec[:n_keep] = _KEPT
        dec[n_keep:order.size] = _CUT
        tb.add("feature-mi", TARGET, rows, [], job[2][rows], delta1, dec)
        out.append((order, order[:n_keep].tolist()))
        lo, lo_b = hi, hi_b
    return out


_KEPT, _CUT, _BELOW = (DECISION_CODE[d] for d in ("kept", "cut-k1", "below-delta1"))


def _short(engine, kept: list[int], R: list[int]) -> bool:
    """Whether the backward walk over ``kept`` given R takes each value alone from the exact
    code of its set (:class:`camcf.fast_walk.FastLeaveOneOut`: at most two members, whose
    runs are single values, and few joint states), so that :func:`_short_walks` may count
    it with other targets'."""
    if not kept or len(kept) > 2 or not hasattr(engine, "_extras_finish"):
        return False
    cols = kept + [q + engine.m for q in R]
    if len(cols) > SINGLE_STATES.bit_length() or len(kept) * engine.n * 9 > _JOINT_CACHE_BYTES:
        return False
    return math.prod(engine.card[cols].tolist()) <= SINGLE_STATES


def _short_walks(jobs: list[tuple]) -> list[list[int]]:
    """The PC of each job ``(engine, target, kept, R, delta1, tb)`` (:func:`_short`): the
    walks advance together, one value of each per round."""
    walks = [_walk_steps(*job) for job in jobs]
    pcs: list = [None] * len(jobs)
    asks: dict[int, tuple] = {}
    for i, w in enumerate(walks):
        _advance(w, None, i, asks, pcs)
    while asks:
        items = list(asks.items())
        asks = {}
        got = single_values([(jobs[i][0], jobs[i][1], f, S) for i, (f, S) in items])
        for (i, _), answer in zip(items, got, strict=True):
            _advance(walks[i], answer, i, asks, pcs)
    return pcs


def _walk_steps(engine, target: int, kept: list[int], R: list[int], delta1: float,
                tb: TraceBuilder):
    """A short backward walk (:func:`_short`) as a generator: yields ``(f, S)`` for
    I(t; X_f | S), S = (PC − f) ∪ R, is sent ``(value, strata of S, read from the tables)``,
    records the row and returns PC: the values, rows and counters of :func:`_backward`."""
    R_pool = [q + engine.m for q in R]
    pc = list(kept)
    for f in kept:
        S = [g for g in pc if g != f] + R_pool
        v, ns, from_table = yield f, S
        engine._counted(computed=not from_table, lookups=from_table)
        out = rounded(v) <= delta1
        tb.add_one("backward", TARGET, f, lambda S=S: np.asarray(S, dtype=np.int32).tobytes(),
                   v, delta1, "removed" if out else "stays", strata=lambda ns=ns: ns)
        if out:
            pc.remove(f)
    return pc


def _backward(engine, target: int, kept: list[int], R: list[int], delta1: float,
              tb: TraceBuilder) -> list[int]:
    """Phase 2's backward walk over ``kept`` given R (recorded): PC."""
    if not kept:
        return []
    R_arr = np.asarray([q + engine.m for q in R], dtype=np.int32)
    R_bytes = R_arr.tobytes()
    loo = engine.leave_one_out(target, kept, R_arr.tolist())
    in_pc = np.ones(len(kept), dtype=bool)  # which of the kept candidates are still in PC
    kept_arr = np.asarray(kept, dtype=np.int32)
    keep_rows = tb.keeps("backward", "removed")

    def cond_of(i: int, j: int, pc_now: list) -> bytes:
        """S = (PC − f) ∪ R for the j-th value of the run from kept position i."""
        if not pc_now:  # PC before the run's removals as int32 bytes, once per run
            pc_now += [kept_arr[in_pc].tobytes(), 4 * int(np.count_nonzero(in_pc[:i]))]
        members, p0 = pc_now  # the run's members are consecutive in PC, from p0
        return members[:p0] + members[p0 + 4 * (j + 1):] + R_bytes

    i = 0  # the kept candidates before position i have been walked
    for fs, vals, strata_of in loo.runs(kept, strata=keep_rows):
        # each value assumed the run's members before it removed: they are used up to the
        # first that stays. S and its strata are materialised only if the trace keeps the row
        pc_now: list = []
        if len(fs) < _BLOCK_ROWS:  # a few values: plain floats (the same rounding), a row each
            gone = 0
            for j, v in enumerate(vals.tolist()):
                out = rounded(v) <= delta1
                tb.add_one("backward", TARGET, fs[j], lambda j=j, i=i, c=pc_now: cond_of(i, j, c),
                           v, delta1, "removed" if out else "stays",
                           strata=lambda j=j, s=strata_of: s(j))
                gone += out
                if not out:
                    break
            used = j + 1
        else:
            removed = rounded(vals) <= delta1
            used = len(fs) if removed.all() else int(np.argmin(removed)) + 1
            tb.add_block("backward", TARGET, kept_arr[i:i + used],
                         lambda j, i=i, c=pc_now: cond_of(i, j, c), np.arange(used),
                         vals[:used], delta1, decide(removed[:used], "removed", "stays"),
                         strata=strata_of)
            gone = used if removed[used - 1] else used - 1
        if gone:
            loo.remove_many(kept[i:i + gone])
            in_pc[i:i + gone] = False
        i += used
    return kept_arr[in_pc].tolist()


def spouses(engine, target: int, s: np.ndarray, pc: list[int], R: list[int], delta1: float,
            tb: TraceBuilder) -> dict[int, list[int]]:
    """Return {spouse z: [inducing PC members x, in PC order]}, z ascending."""
    return spouses_many([(engine, target, s, pc, R, delta1, tb)])[0]


def _outside_pc(jobs: list[tuple]) -> list[tuple[int, np.ndarray]]:
    """(job, the features outside its PC, ascending) for each job ``(engine, target, s, pc,
    …)`` with a PC, found for every job at once (the jobs' engines have one number of
    features)."""
    todo = [i for i, job in enumerate(jobs) if job[3]]
    if not todo:
        return []
    m = jobs[todo[0]][0].m
    if any(jobs[i][0].m != m for i in todo):  # engines of other data: one at a time
        return [(i, _outside_pc([jobs[i]])[0][1]) for i in todo]
    sizes = [len(jobs[i][3]) for i in todo]
    outside = np.ones((len(todo), m), dtype=bool)
    outside[np.repeat(np.arange(len(todo)), sizes),
            np.array([f for i in todo for f in jobs[i][3]], dtype=np.int64)] = False
    _, cols = np.nonzero(outside)
    ends = np.cumsum(np.count_nonzero(outside, axis=1)).tolist()
    return [(i, cols[a:b]) for i, a, b in zip(todo, [0] + ends[:-1], ends, strict=True)]


def spouses_many(jobs: list[tuple]) -> list[dict[int, list[int]]]:
    """:func:`spouses` of several targets, each job ``(engine, target, s, pc, R, delta1,
    tb)``: their screens and tests are counted together
    (:func:`camcf.batch_counts.screen_then_extras_many`); each target's result and record are
    those of :func:`spouses` alone."""
    results: list[dict[int, list[int]]] = [{} for _ in jobs]
    requests, asked = [], []
    keeps: dict[float, AtMost] = {}  # one screen per threshold: the group's screened at once
    for i, non_pc in _outside_pc(jobs):
        engine, target, s, pc, R, delta1, _ = jobs[i]
        m = engine.m
        R_pool = [q + m for q in R]
        # v1 = I(t; X_z | R) (s_z when R is empty); the screened z are tested given each x
        requests.append((engine, target, non_pc, R_pool, pc,
                         keeps.setdefault(delta1, AtMost(delta1)),
                         None if R_pool else s[non_pc]))
        asked.append((i, non_pc, R_pool))
    answers = screen_then_extras_many(requests)
    # every test given some x of every target: rounded and decided at once
    parts = [v2 for _, _, v2s in answers for v2 in v2s]
    if parts:
        v2_all = np.concatenate(parts)
        limits = np.repeat([jobs[i][5] for (i, _, _), (_, _, v2s) in zip(asked, answers,
                                                                          strict=True)
                            for _ in v2s], [v2.size for v2 in parts])
        hit_all = rounded(v2_all) > limits
    # the screens' decisions, built only for a level that keeps these rows (the full record)
    kept = [jobs[i][6].keeps("spouse-screen", "tested")
            or jobs[i][6].keeps("spouse-screen", "not-tested") for i, _, _ in asked]
    if any(kept):
        screens = decide(np.concatenate([mask for _, mask, _ in answers]), "tested",
                         "not-tested")
    at = lo = 0
    for (i, non_pc, R_pool), (v1, screened_mask, _), keep in zip(asked, answers, kept,
                                                                    strict=True):
        pc, delta1, tb = jobs[i][3], jobs[i][5], jobs[i][6]
        tb.add("spouse-screen", TARGET, non_pc, R_pool, v1, delta1,
               screens[lo:lo + non_pc.size] if keep else "tested")
        lo += non_pc.size
        screened = non_pc[screened_mask]
        if screened.size == 0:
            continue
        k, p = screened.size, len(pc)
        hit = hit_all[at:at + k * p]
        if not tb.keeps("spouse", "not-spouse") and not hit.any():  # no row kept: counted
            tb.add("spouse", TARGET, _NONE, [], _NONE_F, delta1, "spouse", at=_NONE, n=k * p)
            at += k * p
            continue
        # the tests given each x in PC order, z ascending: one block (the rows of one add
        # per x, the spouses' only when the level keeps no other)
        xs = np.asarray(pc, dtype=np.int64)
        tb.add_block("spouse", TARGET, np.tile(screened, p),
                     lambda j, xs=xs, R_pool=R_pool: [int(xs[j])] + R_pool,
                     np.repeat(np.arange(p), k), v2_all[at:at + k * p], delta1,
                     decide(hit, "spouse", "not-spouse"), np.repeat(xs, k))
        at += k * p
        xi, zi = np.nonzero(hit.reshape(p, k))  # x by x, z ascending
        if xi.size:
            z = screened[zi]
            order = np.argsort(z, kind="stable")  # by z, each z's x in PC order
            z, x = z[order], xs[xi[order]].tolist()
            first = np.flatnonzero(np.diff(z, prepend=-1)).tolist()
            results[i] = {zz: x[a:b] for zz, a, b in zip(
                z[first].tolist(), first, first[1:] + [len(x)], strict=True)}
    return results
