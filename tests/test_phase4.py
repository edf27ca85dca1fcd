"""Phase 4 (camcf.phases.pruning.symmetry_and_redundancy) against its straightforward loop:
each target's sets and record are, bit for bit, those of Phase 4 written as a plain loop over
its blanket (the cut, symmetry, every redundancy test up to the first dominating category)."""

from __future__ import annotations

import math

import numpy as np
import pytest

import camcf.phases.pruning as pruning
from camcf.engine import rounded
from camcf.trace import TRACE_LEVELS, CondSets, TraceBuilder


def loop_phase4(table, s, cmb, others, delta1, k2, gamma, tb):
    """Phase 4 of one target as a loop (the straightforward form of SPEC.md's steps)."""
    m = table.shape[0]
    order = sorted(cmb, key=lambda f: -rounded(float(s[f])))  # stable
    n_keep = math.ceil(k2 * len(order))
    kept, cut = order[:n_keep], order[n_keep:]
    last = float(s[kept[-1]]) if kept else np.nan
    for f in kept:
        tb.add("k2-cut", -1, f, [], s[f], last, "kept")
    for f in cut:
        tb.add("k2-cut", -1, f, [], s[f], last, "cut-k2")
    survivors = []
    for f in kept:
        out = rounded(float(s[f])) <= delta1
        tb.add("symmetry", -1, f, [], s[f], delta1, "removed" if out else "stays")
        if not out:
            survivors.append(f)
    redundant, final = [], []
    for f in survivors:
        limit = gamma * float(s[f])
        for d in others:
            v = float(table[f, d])
            dom = rounded(v) > rounded(limit)
            tb.add("redundancy", f, int(d) + m, [], v, limit,
                   "dominates" if dom else "does-not-dominate")
            if dom:
                redundant.append((f, int(d), v, float(s[f])))
                break
        else:
            final.append(f)
    return {"cmb": list(cmb), "after_cut": kept, "cut": cut,
            "symmetry_removed": sorted(set(kept) - set(survivors)),
            "after_symmetry": sorted(survivors), "redundancy_removed": redundant,
            "blanket": sorted(final)}


def _jobs(seed: int):
    rng = np.random.default_rng(seed)
    m, n_cat = 30, 14
    # coarse values: ties between I(X_f; C_d) and γ·s_f happen at 12 decimals
    table = np.round(rng.random((m, n_cat)) * 0.16, 2)
    other_table = np.round(rng.random((m, n_cat)) * 0.16, 2)
    jobs = []
    for j in range(9):
        s = np.round(rng.random(m) * 0.2, 2)
        cmb = sorted(rng.permutation(m)[:rng.integers(0, 12)].tolist())
        label = 2 * (j % 7)
        others = np.array([d for d in range(n_cat) if d not in (label, label + 1)])
        if j == 3:  # another order than the flattened one: decided on its own
            others = others[::-1].copy()
        if j == 5:  # no other category: nothing is tested
            others = others[:0]
        jobs.append(([table, other_table][j == 7], j, s, cmb, others, 0.05,
                     [1.0, 0.6][j % 2], [1.0, 1.2, 0.8][j % 3]))
    return jobs


@pytest.mark.parametrize("level", list(TRACE_LEVELS))
@pytest.mark.parametrize("block_cells", [1, 20, 1 << 20])
@pytest.mark.parametrize("seed", [0, 1])
def test_phase4_of_each_target_is_its_loop(monkeypatch, level, block_cells, seed):
    monkeypatch.setattr(pruning, "_BLOCK_CELLS", block_cells)
    jobs = _jobs(seed)
    tbs = [TraceBuilder(CondSets(), level) for _ in jobs]
    got = [pruning.symmetry_and_redundancy(*job, tb) for job, tb in zip(jobs, tbs, strict=True)]
    removed = kept = 0
    for job, tb, res in zip(jobs, tbs, got, strict=True):
        ref_tb = TraceBuilder(CondSets(), level)
        table, _, s, cmb, others, d1, k2, gamma = job
        want = loop_phase4(table, s, cmb, others, d1, k2, gamma, ref_tb)
        assert res == want
        assert {k: v.tolist() for k, v in tb.freeze().items()} == {
            k: v.tolist() for k, v in ref_tb.freeze().items()}
        assert tb.counts == ref_tb.counts and tb.n == ref_tb.n
        removed += len(want["redundancy_removed"])
        kept += len(want["blanket"])
    assert removed and kept  # some survivors are removed, others kept


def test_phase4_checks_the_category_ids():
    table = np.zeros((4, 3))
    with pytest.raises(IndexError, match="out of range"):
        pruning.symmetry_and_redundancy(table, 0, np.full(4, 0.1), [0, 1], np.array([1, 3]),
                                        0.05, 1.0, 1.0, TraceBuilder(CondSets(), "full"))
