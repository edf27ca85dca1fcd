"""Phase 4 — symmetry and redundancy pruning of the blanket (Algorithm 5).

1. CMB (sorted PC ∪ SP, then the recovered features in recovery order) is sorted by s_f, stable
   descending; the first ⌈k2 × |CMB|⌉ stay (a share of the blanket, not of all features).
2. Symmetry: every kept f with s_f ≤ δ1 is removed. (A spouse has I(t; z | R) ≤ δ1; with R
   empty that is s_z ≤ δ1, so symmetry always removes such a spouse: the published behaviour.)
3. Redundancy: f is removed if some category d of some other label j ≠ i (all categories) has
   I(X_f; C_d) > γ × s_f; the first such d in flattened order is recorded with both values.

:func:`symmetry_and_redundancy_many` runs Phase 4 of several targets (each with its own record)
and finds the redundancy tests' first dominating categories of all their survivors at once.
"""

from __future__ import annotations

import math

import numpy as np

from ..engine import rounded
from ..trace import TraceBuilder, decide

_BLOCK_CELLS = 1 << 20  # (survivors × other categories) values per block
_NONE, _NONE_F = np.empty(0, dtype=np.int64), np.empty(0)


def symmetry_and_redundancy(mi_table: np.ndarray, target: int, s: np.ndarray, cmb: list[int],
                            others, delta1: float, k2: float, gamma: float,
                            tb: TraceBuilder) -> dict:
    """Return the cut, the removals and the final blanket (sorted feature indices).

    Phase 4 reads unconditional values only: ``mi_table`` is I(X_f; C_d) for every feature and
    category (m × C, :meth:`camcf.engine.Engine.mi_table`, or a finished run's
    :attr:`camcf.Result.mi_table`), ``s`` holds s_f = I(t; X_f). ``others`` lists the
    categories of the other labels in flattened order (a list or an integer array)."""
    return symmetry_and_redundancy_many(
        [(mi_table, target, s, cmb, others, delta1, k2, gamma, tb)])[0]


def symmetry_and_redundancy_many(jobs: list[tuple]) -> list[dict]:
    """:func:`symmetry_and_redundancy` of several targets, each job ``(mi_table, target, s,
    cmb, others, delta1, k2, gamma, tb)``: each one's result and record are those of
    :func:`symmetry_and_redundancy` alone. The blankets of every job are ranked and pruned
    for symmetry at once, and the redundancy tests of every job on one table are decided
    together (:func:`_first_dominating`)."""
    if not jobs:
        return []
    cmbs = [np.asarray(job[3], dtype=np.int64) for job in jobs]
    sizes = np.array([c.size for c in cmbs])
    job_of = np.repeat(np.arange(len(jobs)), sizes)
    feats = np.concatenate(cmbs)
    vals = (np.stack([job[2] for job in jobs])[job_of, feats]
            if len({job[2].shape for job in jobs}) == 1
            else np.concatenate([job[2][c] for job, c in zip(jobs, cmbs, strict=True)]))
    rs = rounded(vals)
    # each job's blanket by s_f (rounded), stable descending: the jobs stay in order
    rank = np.lexsort((-rs, job_of))
    feats, vals, rs = feats[rank], vals[rank], rs[rank]
    removed = rs <= np.repeat([job[5] for job in jobs], sizes)  # symmetry, where kept
    decisions = decide(removed, "removed", "stays")
    out: list[dict] = []
    surv: list[tuple] = []
    a = 0
    for job, size in zip(jobs, sizes.tolist(), strict=True):
        mi_table, _, s, cmb, others, _, k2, gamma, tb = job
        b = a + math.ceil(k2 * size)
        kept, cut = feats[a:b], feats[b:a + size]
        last = float(vals[b - 1]) if b > a else np.nan
        tb.add("k2-cut", -1, kept, [], vals[a:b], last, "kept")
        tb.add("k2-cut", -1, cut, [], vals[b:a + size], last, "cut-k2")
        delta1 = job[5]
        sym_mask = removed[a:b]
        survivors = kept[~sym_mask]
        tb.add("symmetry", -1, kept, [], vals[a:b], delta1, decisions[a:b])
        out.append({
            "cmb": [int(f) for f in cmb],
            "after_cut": kept.tolist(),
            "cut": cut.tolist(),
            "symmetry_removed": sorted(kept[sym_mask].tolist()),
            "after_symmetry": sorted(survivors.tolist()),
        })
        surv.append((mi_table, s, survivors, np.asarray(others, dtype=np.int64), gamma, tb))
        a += size
    for p4, (redundant, final) in zip(out, _redundancy_many(surv), strict=True):
        p4["redundancy_removed"] = redundant
        p4["blanket"] = sorted(final)
    return out


def _redundancy(table: np.ndarray, s: np.ndarray, survivors: np.ndarray, others: np.ndarray,
                gamma: float, tb: TraceBuilder
                ) -> tuple[list[tuple[int, int, float, float]], list[int]]:
    """The redundancy step: (removals (f, d, I(X_f; C_d), s_f), the survivors that stay)
    (:func:`_redundancy_many` of one job)."""
    return _redundancy_many([(table, s, survivors, others, gamma, tb)])[0]


def _redundancy_many(jobs: list[tuple]
                     ) -> list[tuple[list[tuple[int, int, float, float]], list[int]]]:
    """The redundancy step of each job ``(table, s, survivors, others, gamma, tb)``:
    (removals (f, d, I(X_f; C_d), s_f), the survivors that stay).

    f's tests stop at the first dominating d (they cover every d when none dominates); the
    rows are recorded f by f, d in flattened order, in blocks of survivors, as a loop over the
    survivors would. Which d dominates first is found for every job at once
    (:func:`_first_dominating`), except for the jobs whose record keeps every test: theirs
    comes with the values they record (:func:`_record`)."""
    results: list = [None] * len(jobs)
    todo = []
    for j, (table, _, survivors, others, _, _) in enumerate(jobs):
        if others.size == 0:  # nothing to test against: every survivor stays
            results[j] = ([], survivors.tolist())
            continue
        if others.min() < 0 or others.max() >= table.shape[1]:
            raise IndexError(f"category ids out of range 0..{table.shape[1] - 1}")
        if survivors.size == 0:
            results[j] = ([], [])
            continue
        if jobs[j][5].keeps("redundancy", "does-not-dominate"):  # every row: block by block
            results[j] = _record(*jobs[j], None, None)
        else:
            todo.append(j)
    firsts = _first_dominating([jobs[j] for j in todo])
    for j, (hit, upto) in zip(todo, firsts, strict=True):
        results[j] = _record(*jobs[j], hit, upto)
    return results


def _first_dominating(jobs: list[tuple]) -> list[tuple[np.ndarray, np.ndarray]]:
    """For each job ``(table, s, survivors, others, gamma, tb)`` (survivors and other
    categories not empty, in range): whether some d of ``others`` has rounded I(X_f; C_d) >
    rounded γ·s_f, per survivor f, and the tests up to the first such d (its position in
    ``others`` + 1; ``others.size`` when none).

    Jobs whose ``others`` ascend (flattened order) and share a table are decided together:
    one comparison of the survivors' rounded rows of the table with their rounded bounds over
    every category, the categories outside each job's ``others`` masked out."""
    out: list = [None] * len(jobs)
    by_table: dict[int, list[int]] = {}
    for j, (table, _, _, others, _, _) in enumerate(jobs):
        if others.size == 1 or bool((others[1:] > others[:-1]).all()):
            by_table.setdefault(id(table), []).append(j)
        else:  # another order: this job's columns in that order
            out[j] = _dominance(jobs[j], np.arange(jobs[j][2].size))
    for members in by_table.values():
        table = jobs[members[0]][0]
        n_cat = table.shape[1]
        block = max(1, _BLOCK_CELLS // n_cat)
        fs = np.concatenate([jobs[j][2] for j in members])
        job_of = np.repeat(np.arange(len(members)), [jobs[j][2].size for j in members])
        limits = rounded(np.concatenate([jobs[j][4] * jobs[j][1][jobs[j][2]] for j in members]))
        allowed = np.zeros((len(members), n_cat), dtype=bool)
        allowed[np.repeat(np.arange(len(members)), [jobs[j][3].size for j in members]),
                np.concatenate([jobs[j][3] for j in members])] = True
        position = np.cumsum(allowed, axis=1)  # a category's position in others, + 1
        n_others = np.array([jobs[j][3].size for j in members])
        hit = np.empty(fs.size, dtype=bool)
        upto = np.empty(fs.size, dtype=np.int64)
        for lo in range(0, fs.size, block):
            rows = slice(lo, lo + block)
            g = job_of[rows]
            dom = rounded(table[fs[rows]]) > limits[rows, None]
            dom &= allowed[g]
            hit[rows] = dom.any(axis=1)
            upto[rows] = np.where(hit[rows], position[g, np.argmax(dom, axis=1)], n_others[g])
        bounds = np.cumsum([0] + [jobs[j][2].size for j in members])
        for g, j in enumerate(members):
            out[j] = hit[bounds[g]:bounds[g + 1]], upto[bounds[g]:bounds[g + 1]]
    return out


def _dominance(job: tuple, rows: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(hit, tests up to the first dominating d) of the survivors ``rows`` of ``job``, in the
    order of its ``others``, with the full values (:func:`_first_dominating`'s one-job case)."""
    table, s, survivors, others, gamma, _ = job
    hit, upto, _, _ = _block(table, s, survivors[rows], others, gamma)
    return hit, upto


def _block(table, s, fs, others, gamma):
    """The redundancy tests of the survivors ``fs``: (hit, tests up to the first dominating d,
    the values I(X_f; C_d) (fs × others), dominates)."""
    limits = gamma * s[fs]
    vals = table[fs].take(others, axis=1, mode="clip")  # in range: checked by the caller
    dom = rounded(vals) > rounded(limits)[:, None]
    hit = dom.any(axis=1)
    upto = np.where(hit, np.argmax(dom, axis=1) + 1, others.size)
    return hit, upto, vals, dom


def _record(table: np.ndarray, s: np.ndarray, survivors: np.ndarray, others: np.ndarray,
            gamma: float, tb: TraceBuilder, hit: np.ndarray | None, upto: np.ndarray | None
            ) -> tuple[list[tuple[int, int, float, float]], list[int]]:
    """Record one job's redundancy tests (decided: ``hit``, ``upto``; None when the record
    keeps every test: decided here from the values, block by block) block by block, and
    return (removals, the survivors that stay)."""
    m = table.shape[0]
    n_others = others.size
    block = max(1, _BLOCK_CELLS // n_others)
    every_row = tb.keeps("redundancy", "does-not-dominate")
    if not every_row and survivors.size <= block:  # one block, the dominating rows only
        total = int(upto.sum())
        if not hit.any():
            tb.add("redundancy", _NONE, _NONE, [], _NONE_F, _NONE_F, "dominates", at=_NONE,
                   n=total)
            return [], survivors.tolist()
        h = np.flatnonzero(hit)
        fs, d = survivors[h], others[upto[h] - 1]
        s_h = s[fs]
        removed_vals = table[fs, d]
        tb.add("redundancy", fs, d + m, [], removed_vals, gamma * s_h, "dominates",
               at=np.cumsum(upto)[h] - 1, n=total)
        return (list(zip(fs.tolist(), d.tolist(), removed_vals.tolist(), s_h.tolist(),
                         strict=True)), survivors[~hit].tolist())
    if every_row:  # the rows' values are needed: decided from them, block by block
        hit = upto = None
    redundant: list[tuple[int, int, float, float]] = []
    final: list[int] = []
    others_pool = (others + m).astype(np.int32)
    for lo in range(0, survivors.size, block):
        fs = survivors[lo:lo + block]
        if hit is None:  # the values of the block, recorded below
            h_mask, u, vals, dom = _block(table, s, fs, others, gamma)
        else:
            h_mask, u = hit[lo:lo + block], upto[lo:lo + block]
        limits = gamma * s[fs]
        total = int(u.sum())
        h = np.flatnonzero(h_mask)
        last = u[h] - 1  # the dominating category of each removed survivor
        removed_vals = table[fs[h], others[last]]
        if every_row:  # the full record: every test's row
            if total == dom.size:  # every survivor tested against every category
                tb.add("redundancy", np.repeat(fs, n_others), np.tile(others_pool, fs.size), [],
                       vals.ravel(), np.repeat(limits, n_others),
                       decide(dom.ravel(), "dominates", "does-not-dominate"))
            else:
                rows = np.arange(n_others)[None, :] < u[:, None]  # row-major: f by f
                tb.add("redundancy", np.repeat(fs, u),
                       np.broadcast_to(others_pool, dom.shape)[rows], [], vals[rows],
                       np.repeat(limits, u),
                       decide(dom[rows], "dominates", "does-not-dominate"))
        else:  # only the dominating rows can be kept: the last test of each removed survivor
            tb.add("redundancy", fs[h], others[last] + m, [], removed_vals, limits[h],
                   "dominates", at=np.cumsum(u)[h] - 1, n=total)
        redundant.extend(zip(fs[h].tolist(), others[last].tolist(), removed_vals.tolist(),
                             s[fs[h]].tolist(), strict=True))
        final.extend(fs[~h_mask].tolist())
    return redundant, final
