"""The decision record's builder and the vectorised Phase 4 redundancy step.

The builder takes decisions as names or as int8 codes, rows in bulk or a few at a time, and rows
given sparsely (``at``/``n``); whatever the call form, the frozen record must be the same. The
redundancy step tests all survivors at once; it must record exactly what a loop over the
survivors records.
"""

from __future__ import annotations

import numpy as np
import pytest

import camcf.phases.pruning as pruning
from camcf.engine import rounded
from camcf.trace import (
    DECISION_CODE,
    DECISION_ROWS,
    STEP_NAMES,
    TRACE_LEVELS,
    CondSets,
    TraceBuilder,
    decide,
)

LEVELS = list(TRACE_LEVELS)


def frozen(tb: TraceBuilder) -> dict:
    return {k: (v.dtype.str, v.tolist()) for k, v in tb.freeze().items()}


def rows_of(level, calls):
    """Freeze a builder fed ``calls`` (a function of the builder)."""
    sets = CondSets()
    tb = TraceBuilder(sets, level)
    calls(tb)
    return frozen(tb), tb.counts, tb.n, sets.sets


@pytest.mark.parametrize("level", LEVELS)
def test_decision_names_codes_and_decide_record_the_same_rows(level):
    rng = np.random.default_rng(1)
    k = 40
    mask = rng.random(k) < 0.3
    b = rng.integers(0, 50, k)
    v = rng.random(k)
    names = np.where(mask, "spouse", "not-spouse")
    codes = decide(mask, "spouse", "not-spouse")
    assert codes.dtype == np.int8
    assert codes.tolist() == [DECISION_CODE[str(x)] for x in names]

    def with_(dec):
        def calls(tb):
            tb.add("spouse", -1, b, [3, 7], v, 0.05, dec, aux=3)
            tb.add("k2-cut", -1, b[:5], [], v[:5], 0.1, "cut-k2")
        return calls

    a = rows_of(level, with_(names))
    assert a == rows_of(level, with_(codes)) == rows_of(level, with_(list(names)))
    n_spouse = int(mask.sum())
    expected = {"full": k + 5, "decisions": n_spouse + 5, "counters": 0}[level]
    assert len(a[0]["seq"][1]) == expected
    assert a[1] == {"spouse": k, "k2-cut": 5} and a[2] == k + 5


@pytest.mark.parametrize("level", LEVELS)
def test_rows_added_one_by_one_few_or_in_bulk_freeze_alike(level):
    rng = np.random.default_rng(2)
    k = 60  # more than the few-rows limit
    b = rng.integers(0, 90, k)
    v = rng.random(k)
    mask = rng.random(k) < 0.5
    codes = decide(mask, "removed", "stays")

    def bulk(tb):
        tb.add("backward", -1, b, [1, 2], v, 0.01, codes)

    def by_three(tb):
        for i in range(0, k, 3):
            tb.add("backward", -1, b[i:i + 3], [1, 2], v[i:i + 3], 0.01, codes[i:i + 3])

    def one_by_one(tb):
        for i in range(k):
            tb.add_one("backward", -1, int(b[i]), lambda: [1, 2], float(v[i]), 0.01,
                       "removed" if mask[i] else "stays")

    a = rows_of(level, bulk)
    assert a == rows_of(level, by_three) == rows_of(level, one_by_one)
    if level == "full":
        assert a[0]["seq"][1] == list(range(k))
        assert a[0]["b"][1] == b.tolist() and a[0]["value"][1] == v.tolist()


@pytest.mark.parametrize("level", LEVELS)
def test_few_rows_between_chunks_freeze_in_their_place(level):
    """Few rows (kept as tuples until the record is frozen, then made arrays at once) between
    chunks of arrays and blocks land where they were added: the record of the same rows each
    added alone; the frozen columns are arrays of their own (writable, sharing nothing)."""
    rng = np.random.default_rng(7)
    k = 40  # above the few-rows limit: a chunk
    b = rng.integers(0, 90, k)
    v = rng.random(k)
    dec = decide(rng.random(k) < 0.5, "removed", "stays")

    def mixed(tb):
        tb.add("backward", -1, b[:3], [1, 2], v[:3], 0.01, dec[:3])  # few
        tb.add("backward", -1, b, [1], v, 0.01, dec)  # a chunk
        tb.add_one("spouse", -1, 7, [4], 0.5, 0.01, "spouse", aux=2)
        tb.add("k2-cut", -1, b[:2], [], v[:2], 0.2, "cut-k2")  # few
        tb.add_block("backward", b[:k], 3, [[1], [5, 6]], np.arange(k) % 2, v, 0.01, dec)
        tb.add("symmetry", -1, b[:4], [], v[:4], 0.01, dec[:4])  # few, last

    def alone(tb):
        for i in range(3):
            tb.add_one("backward", -1, int(b[i]), [1, 2], float(v[i]), 0.01,
                       "removed" if dec[i] == DECISION_CODE["removed"] else "stays")
        for i in range(k):
            tb.add_one("backward", -1, int(b[i]), [1], float(v[i]), 0.01,
                       "removed" if dec[i] == DECISION_CODE["removed"] else "stays")
        tb.add_one("spouse", -1, 7, [4], 0.5, 0.01, "spouse", aux=2)
        for i in range(2):
            tb.add_one("k2-cut", -1, int(b[i]), [], float(v[i]), 0.2, "cut-k2")
        for i in range(k):
            tb.add_one("backward", int(b[i]), 3, [[1], [5, 6]][i % 2], float(v[i]), 0.01,
                       "removed" if dec[i] == DECISION_CODE["removed"] else "stays")
        for i in range(4):
            tb.add_one("symmetry", -1, int(b[i]), [], float(v[i]), 0.01,
                       "removed" if dec[i] == DECISION_CODE["removed"] else "stays")

    a = rows_of(level, mixed)
    assert a == rows_of(level, alone)
    tb = TraceBuilder(CondSets(), level)
    mixed(tb)
    for col in tb.freeze().values():
        assert col.flags.writeable and col.flags.owndata


@pytest.mark.parametrize("level", LEVELS)
def test_rows_given_sparsely_keep_their_place_in_the_sequence(level):
    def calls(tb):
        tb.add("symmetry", -1, [4, 5], [], [0.2, 0.3], 0.01, "stays")
        # 10 tests of which only positions 3 and 9 are given (both dominating)
        tb.add("redundancy", [11, 12], [20, 21], [], [0.5, 0.6], [0.1, 0.2], "dominates",
               at=np.array([3, 9]), n=10)
        tb.add("redundancy", [], [], [], [], 0.1, "dominates", at=np.array([], dtype=int), n=4)
        tb.add("k2-cut", -1, 8, [], 0.7, 0.1, "cut-k2")

    cols, counts, n, _ = rows_of(level, calls)
    assert counts == {"k2-cut": 1, "symmetry": 2, "redundancy": 14} and n == 17
    seq = cols["seq"][1]
    if level == "counters":
        assert seq == []
    elif level == "decisions":
        assert seq == [2 + 3, 2 + 9, 16]
        assert cols["a"][1] == [11, 12, -1] and cols["threshold"][1] == [0.1, 0.2, 0.1]
    else:
        assert seq == [0, 1, 5, 11, 16]


def test_keeps_says_what_each_level_records():
    sets = CondSets()
    full, dec, cnt = (TraceBuilder(sets, lv) for lv in ("full", "decisions", "counters"))
    for step in STEP_NAMES:
        for d in DECISION_CODE:
            assert full.keeps(step, d)
            assert not cnt.keeps(step, d)
            assert dec.keeps(step, d) == (d in DECISION_ROWS.get(step, ()))


def loop_redundancy(table, s, survivors, others, gamma, tb):
    """The redundancy step as a loop over the survivors (the straightforward form)."""
    m = table.shape[0]
    redundant, final = [], []
    for f in survivors:
        f = int(f)
        limit = gamma * float(s[f])
        vals = table[f, others] if others.size else np.empty(0)
        dom = rounded(vals) > rounded(limit)
        upto = int(np.argmax(dom)) + 1 if dom.any() else dom.size
        tb.add("redundancy", f, others[:upto] + m, [], vals[:upto], limit,
               np.where(dom[:upto], "dominates", "does-not-dominate"))
        if dom.any():
            redundant.append((f, int(others[upto - 1]), float(vals[upto - 1]), float(s[f])))
        else:
            final.append(f)
    return redundant, final


@pytest.mark.parametrize("level", LEVELS)
@pytest.mark.parametrize("block_cells", [1, 7, 1 << 20])
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_vectorised_redundancy_records_what_the_loop_records(monkeypatch, level, block_cells,
                                                             seed):
    rng = np.random.default_rng(seed)
    m, n_cat = 30, 12
    # coarse values: ties between I(X_f; C_d) and γ·s_f happen at 12 decimals
    table = np.round(rng.random((m, n_cat)) * 0.16, 2)
    s = np.round(0.05 + rng.random(m) * 0.2, 2)
    gamma = 1.2 if seed else 1.0
    survivors = rng.permutation(m)[:17]
    others = np.array([d for d in range(n_cat) if d not in (4, 5)])
    monkeypatch.setattr(pruning, "_BLOCK_CELLS", block_cells)

    def run(fn):
        tb = TraceBuilder(CondSets(), level)
        out = fn(table, s, survivors, others, gamma, tb)
        return out, frozen(tb), tb.counts

    got, want = run(pruning._redundancy), run(loop_redundancy)
    assert got == want
    assert want[0][0] and want[0][1]  # some survivors removed, some kept
    # no other category: every survivor stays, nothing is tested
    assert run(lambda e, s_, f, o, g, tb: pruning._redundancy(e, s_, f, o[:0], g, tb)) == run(
        lambda e, s_, f, o, g, tb: loop_redundancy(e, s_, f, o[:0], g, tb))


def test_cond_sets_are_interned_as_arrays_with_their_strata():
    asked = []

    def strata(cond):
        asked.append(cond.tolist())
        return 10 * len(cond)

    sets = CondSets()
    tb = TraceBuilder(sets, "full", strata=strata)
    tb.add("spouse", -1, [1, 2], [5, 7], [0.1, 0.2], 0.05, "not-spouse", aux=5)
    tb.add("spouse", -1, [3], np.array([5, 7], dtype=np.int32), [0.1], 0.05, "not-spouse", aux=5)
    tb.add_one("backward", -1, 4, lambda: np.array([1, 2, 3]), 0.3, 0.05, "stays",
               strata=lambda: 99)  # the row's own count wins
    tb.add("k2-cut", -1, [4], [], [0.3], 0.3, "kept")
    frozen_sets = sets.freeze()
    assert asked == [[5, 7]]  # once per distinct non-empty set, not per row
    assert list(frozen_sets) == [(5, 7), (1, 2, 3), ()]
    assert frozen_sets.strata.tolist() == [20, 99, 1]
    assert frozen_sets[1] == (1, 2, 3) and frozen_sets.array(0).dtype == np.int32
    # merging into another interner maps ids and keeps the counts
    run_wide = CondSets()
    run_wide.id(())
    ids = run_wide.merge(frozen_sets)
    assert ids.tolist() == [1, 2, 0]
    assert run_wide.freeze().strata.tolist() == [1, 20, 99]
    import pickle

    assert pickle.loads(pickle.dumps(frozen_sets)) == frozen_sets


def test_merge_gives_the_ids_of_adding_the_sets_one_at_a_time():
    from camcf.trace import CondSetList

    def one_by_one(target: CondSets, sets: CondSetList) -> list[int]:
        return [target.id(sets.array(j), int(sets.strata[j])) for j in range(len(sets))]

    incoming = [
        CondSetList.of([(3, 4), (), (9,), (1, 2)], strata=[6, 1, 2, 4]),
        CondSetList.of([(1, 2), (5,), (3, 4), (7, 8, 9)], strata=[4, 3, 6, 12]),
        CondSetList.of([(5,), (2, 6), (2, 6)], strata=[3, 8, 8]),  # a new set listed twice
    ]
    bulk, loop = CondSets(), CondSets()
    for sets in incoming:
        assert bulk.merge(sets).tolist() == one_by_one(loop, sets)
    assert bulk.freeze() == loop.freeze()
    assert list(bulk.freeze()) == [(3, 4), (), (9,), (1, 2), (5,), (7, 8, 9), (2, 6)]
    assert bulk.freeze().strata.tolist() == [6, 1, 2, 4, 3, 12, 8]


@pytest.mark.parametrize("level", LEVELS)
def test_add_block_records_what_add_one_records(level):
    """add_block (rows of two steps over three sets, sets given as arrays, bytes or
    callables, strata as a list or a function of the position) gives the same rows, counts,
    set ids and strata as one add_one per row."""
    sets = [np.array([], dtype=np.int32), np.array([5, 2], dtype=np.int32),
            np.array([7, 1, 3], dtype=np.int32)]
    step = ["recovery-skip", "recovery", "recovery", "recovery-skip", "recovery", "recovery"]
    which = [0, 2, 1, 0, 1, 2]
    dec = ["skipped", "lost", "recovered", "skipped", "lost", "recovered"]
    value = [0.1, 0.2, 0.3, 0.4, 0.5, 0.6]
    b = [11, 12, 12, 13, 14, 14]
    aux = [-1, 20, 21, -1, 21, 20]
    strata = [1, 4, 6]
    one_sets = CondSets()
    one_sets.id([9])  # a set before: ids continue from it
    one = TraceBuilder(one_sets, level)
    for i in range(len(step)):
        one.add_one(step[i], -1, b[i], sets[which[i]], value[i], 0.05, dec[i], aux[i],
                    strata=strata[which[i]])
    for conds, st in ([sets, strata], [[s.tobytes() for s in sets], lambda i: strata[i]],
                      [lambda i: sets[i], strata]):
        block_sets = CondSets()
        block_sets.id([9])
        block = TraceBuilder(block_sets, level)
        block.add_block(np.array([STEP_NAMES.index(s) for s in step]), -1, b, conds, which,
                        value, 0.05, np.array([DECISION_CODE[d] for d in dec]), aux,
                        strata=st)
        assert frozen(block) == frozen(one)
        assert block.counts == one.counts and block.n == one.n
        assert block_sets.freeze() == one_sets.freeze()


def test_cond_sets_take_a_set_as_its_bytes():
    """CondSets.id(bytes of the int32 values) is the id of the set as an array, and a set
    first interned from bytes freezes to the same values."""
    a, b = CondSets(), CondSets()
    for s in ([3, 1], [], [3, 1], [2]):
        arr = np.asarray(s, dtype=np.int32)
        assert a.id(arr, 5) == b.id(arr.tobytes(), 5)
    assert a.freeze() == b.freeze()
