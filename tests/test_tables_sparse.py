"""The unconditional tables counted from sparse category indicators (each column or its
complement, whichever is sparser) equal those counted from the dense float32 indicators."""

import numpy as np
import scipy.sparse as sp

from camcf import fast_counts
from camcf.fast_engine import FastEngine


def _data(sparse_x: bool):
    rng = np.random.default_rng(3)
    n = 400
    X = (rng.random((n, 30)) < 0.05).astype(np.uint8)
    X[:, :5] += (rng.random((n, 5)) < 0.05).astype(np.uint8)  # some codes 2
    Y = np.column_stack([rng.random(n) < 0.04, rng.random(n) < 0.96,  # rare and common
                         rng.integers(0, 3, n) * (rng.random(n) < 0.1)])  # multi-class
    C = np.column_stack([Y[:, i] == v for i in range(Y.shape[1])
                         for v in np.unique(Y[:, i])]).astype(np.uint8)
    return (sp.csc_matrix(X) if sparse_x else np.asfortranarray(X)), np.asfortranarray(C)


def _tables(X, C):
    eng = FastEngine(X, C, **FastEngine.shared(X, C))
    return eng.mi_table(), eng.category_mi_table(), eng._sparse_categories() is not None


def test_sparse_category_counts_equal_dense_ones(monkeypatch):
    for sparse_x in (True, False):
        X, C = _data(sparse_x)
        # small data (n × categories under _SPARSE_CATEGORIES_FROM) counts dense by default
        assert not _tables(X, C)[2]
        monkeypatch.setattr(fast_counts, "_SPARSE_CATEGORIES_FROM", 0)
        feat, cat, used = _tables(X, C)
        assert used  # the data is sparse enough for the sparse route
        monkeypatch.setattr(fast_counts, "_SPARSE_CATEGORIES", -1.0)  # dense route
        feat0, cat0, used0 = _tables(X, C)
        monkeypatch.undo()
        assert not used0
        assert np.array_equal(feat, feat0) and np.array_equal(cat, cat0)
        assert cat.shape == (C.shape[1], C.shape[1]) and np.allclose(cat, cat.T)


def test_tables_in_row_blocks_are_the_whole_tables_bit_for_bit(monkeypatch):
    """table_part over the blocks of table_blocks, stacked (the category table's parts are
    its columns), gives each table exactly, for
    the fast engine (sparse and dense counting routes, sparse and dense X) and the reference
    engine; the sparse indicators hold the non-complement categories only."""
    from camcf.info import ReferenceEngine
    from camcf.tasks import table_blocks

    for sparse_x, route in ((True, 0), (False, 0), (True, None), (False, None)):
        if route is not None:  # the sparse route whatever the size
            monkeypatch.setattr(fast_counts, "_SPARSE_CATEGORIES_FROM", route)
        X, C = _data(sparse_x)
        shared = FastEngine.shared(X, C)
        # the second category of each binary label is its first's complement
        assert np.flatnonzero(shared["complements"]).tolist() == [1, 3]
        S = shared["categories"]
        assert (S is not None) == (route is not None)
        if S is not None:
            assert S.shape == (C.shape[0], int((~shared["complements"]).sum()))
        whole = FastEngine(X, C, **shared)
        blocks = table_blocks(X.shape[1], C.shape[1], 3)
        assert len(blocks) == 6
        for which, table in (("features", whole.mi_table()),
                             ("categories", whole.category_mi_table())):
            eng = FastEngine(X, C, **shared)  # a fresh engine per block, as a worker's
            parts = [eng.table_part(w, a, b) for w, a, b in blocks if w == which]
            got = np.vstack(parts)
            assert np.array_equal(got if which == "features" else got.T, table)
        monkeypatch.undo()
    ref = ReferenceEngine(X[:60], C[:60])
    assert np.array_equal(ref.table_part("features", 3, 7), ref.mi_table()[3:7])
    assert np.array_equal(ref.table_part("categories", 2, 5), ref.category_mi_table()[:, 2:5].T)


def test_category_table_parts_are_its_columns_where_it_is_not_symmetric_bit_for_bit(
        monkeypatch):
    """The category table's parts (table_part: columns as rows) are its columns bit for bit
    on data where the table differs from its transpose in the last bits (the two margins'
    terms are summed in the other order there), on both counting routes; a part whose rows
    were the table's rows would differ."""
    rng = np.random.default_rng(11)
    n = 700
    Y = rng.random((n, 24)) < rng.uniform(0.02, 0.12, 24)  # (sparse enough for that route)
    C = np.asfortranarray(np.column_stack([Y[:, i] == v for i in range(24) for v in (0, 1)])
                          .astype(np.uint8))
    X = np.asfortranarray((rng.random((n, 6)) < 0.2).astype(np.uint8))
    for route in (None, 0):  # dense products, then sparse indicators whatever the size
        if route is not None:
            monkeypatch.setattr(fast_counts, "_SPARSE_CATEGORIES_FROM", route)
        shared = FastEngine.shared(X, C)
        assert (shared["categories"] is not None) == (route is not None)
        table = FastEngine(X, C, **shared).category_mi_table()
        assert not np.array_equal(table, table.T)
        for a, b in ((0, 48), (5, 17), (47, 48)):
            part = FastEngine(X, C, **shared).table_part("categories", a, b)
            assert np.array_equal(part, table[:, a:b].T), (route, a, b)
    monkeypatch.undo()


def test_a_row_block_of_narrow_features_sums_as_the_whole_table_does():
    """A block whose features have few codes gives its rows' values bit for bit as the whole
    table does, where a feature with many codes widens the layout: each value's cells are
    summed in one order whichever block holds the row (a block laid out by its own widest
    code summed fewer cells, and flags' n_jobs=2 record differed from the serial one in the
    last bits)."""
    from camcf.tasks import table_blocks

    rng = np.random.default_rng(5)
    n = 300
    X = (rng.random((n, 12)) < 0.3).astype(np.uint8)
    X[:, 0] = rng.integers(0, 8, n)  # 8 codes: 16 cells per value, against 4 for the others
    Y = rng.random((n, 3)) < np.array([0.2, 0.5, 0.7])
    C = np.column_stack([Y[:, i] == v for i in range(3) for v in (0, 1)]).astype(np.uint8)
    X, C = np.asfortranarray(X), np.asfortranarray(C)
    shared = FastEngine.shared(X, C)
    whole = FastEngine(X, C, **shared).mi_table()
    blocks = [(a, b) for w, a, b in table_blocks(X.shape[1], C.shape[1], 3) if w == "features"]
    assert blocks[0][0] == 0 and blocks[-1][0] > 0  # the wide feature in the first block only
    for a, b in blocks:
        rows = FastEngine(X, C, **shared).table_part("features", a, b)
        assert np.array_equal(rows, whole[a:b]), (a, b)


def test_parallel_tables_give_each_table_once_and_the_cost_counts():
    """parallel_tables (threads here) gives each table bit for bit as the serial engine does,
    written once in the layout the target tasks read (the MI table row-major, the category
    table column-major), and per column the counts of values above δ1 / δ2 that target_costs
    would count from the whole tables."""
    import joblib

    from camcf.parallel import SharedArrays
    from camcf.tasks import flatten_shared, parallel_tables, table_counts, target_costs

    X, C = _data(True)
    shared = FastEngine.shared(X, C)
    whole = FastEngine(X, C, **shared)
    tables = (whole.mi_table(), whole.category_mi_table())
    params = {"delta1": 0.001, "delta2": 0.002, "k1": 0.5}
    spec, leaves = flatten_shared(shared)
    cpu: list = []
    with SharedArrays() as store, joblib.parallel_backend("threading", n_jobs=2):
        collect = parallel_tables("fast", (X, C, spec, leaves), store, 2, cpu, params)
        got, counts = collect()
        for t, g in zip(tables, got, strict=True):
            assert np.array_equal(g, t)
        assert got[0].flags.c_contiguous and got[1].flags.f_contiguous
        want = table_counts(tables, params)
        assert all(np.array_equal(a, b) for a, b in zip(counts, want, strict=True))
        assert want[0].sum() > 0 and want[1].sum() > 0  # the thresholds cut somewhere
    assert len(cpu) == 2  # two tasks for two workers, a block of each table in each
    from camcf.result import Category

    todo = [Category(id=i, label_index=0, label="l", value=0, name="0", size=1)
            for i in range(C.shape[1])]
    assert np.array_equal(target_costs(tables, todo, params),
                          target_costs(None, todo, params, counts))


def test_category_blocks_split_by_estimated_cost(monkeypatch):
    """With sparse indicators the category table's blocks hold even estimated cost, not even
    rows: frequent categories' rows (more stored ones) go in smaller blocks; the blocks still
    cover every row once, in order; without sparse indicators the rows are split evenly."""
    from camcf.tasks import category_row_weights, table_blocks

    monkeypatch.setattr(fast_counts, "_SPARSE_CATEGORIES_FROM", 0)
    X, C = _data(True)
    Q = C.shape[1]
    shared = FastEngine.shared(X, C)
    w = category_row_weights(shared, X.shape[0], Q)
    assert w is not None and w.shape == (Q,) and (w >= Q).all() and w.max() > Q
    w = np.ones(8)
    w[:2] = 7.0  # two heavy rows first
    blocks = [(a, b) for which, a, b in table_blocks(30, 8, 2, w) if which == "categories"]
    assert blocks == [(0, 1), (1, 8)]  # 7 against 13 (two rows would be 14 against 6)
    w[1] = 1.0
    blocks = [(a, b) for which, a, b in table_blocks(30, 8, 2, w) if which == "categories"]
    assert blocks == [(0, 1), (1, 8)]  # 7 against 7
    assert [(a, b) for which, a, b in table_blocks(30, 8, 2) if which == "categories"] == [
        (0, 4), (4, 8)]
    assert category_row_weights({"complements": None}, 10, 3) is None


def test_shared_inputs_built_in_halves_beside_equal_the_plain_ones(monkeypatch):
    """FastEngine.shared with ``beside`` (half the complement comparisons and half the sparse
    columns on another thread, in small steps here) gives what it gives without, and the
    categories' code bounds from their ones are those of the indicators' maxima."""
    from concurrent.futures import ThreadPoolExecutor

    from camcf.fast_counts import pool_cardinality

    monkeypatch.setattr(fast_counts, "_SPARSE_CATEGORIES_FROM", 0)
    monkeypatch.setattr(fast_counts, "_SPARSE_CATEGORIES", 1.0)
    monkeypatch.setattr(fast_counts, "_ELEM_BUDGET", 800)  # two columns a step
    rng = np.random.default_rng(7)
    n = 400
    Y = np.column_stack([rng.random(n) < p for p in rng.uniform(0.01, 0.99, 9)]
                        + [rng.integers(0, 3, n)]).astype(np.uint8)
    Y[:, 3] = Y[:, 2]  # a, ¬a, a, ¬a across two labels: the fix-up of runs
    C = np.column_stack([Y[:, i] == v for i in range(Y.shape[1])
                         for v in np.unique(Y[:, i])] + [np.zeros(n, bool)]).astype(np.uint8)
    C = np.asfortranarray(C)
    ones = C.sum(axis=0)
    X = sp.csc_matrix((rng.random((n, 12)) < 0.1).astype(np.uint8))
    plain = FastEngine.shared(X, C)
    with ThreadPoolExecutor(1) as pool:
        halves = FastEngine.shared(X, C, ones, beside=pool.submit)
    assert np.array_equal(pool_cardinality(X, C, ones), pool_cardinality(X, C))
    for key in ("card", "ones", "complements"):
        assert np.array_equal(plain[key], halves[key]), key
    assert 8 <= plain["complements"].sum() < 10
    S0, S1 = plain["categories"], halves["categories"]
    assert S0 is not None and S0.shape == S1.shape
    for a in ("data", "indices", "indptr"):
        got, want = getattr(S1, a), getattr(S0, a)
        assert got.dtype == want.dtype and np.array_equal(got, want), a


def test_counts_above_a_threshold_per_column_and_per_row():
    """tasks._count_above (comparisons added as bytes, 255 at a time) counts what
    np.count_nonzero counts, per column and per row, whatever the layout and size."""
    from camcf.tasks import _count_above

    rng = np.random.default_rng(0)
    for shape in [(600, 300), (3, 7), (1, 1000), (0, 5), (300, 0)]:
        t = rng.random(shape) * 0.02
        t[t.shape[0] // 2:] = 0.0
        for thr in (0.01, 0.0, -1.0):
            for a in (t, np.asfortranarray(t)):
                assert np.array_equal(_count_above(a, thr), np.count_nonzero(t > thr, axis=0))
                assert np.array_equal(_count_above(a, thr, axis=1),
                                      np.count_nonzero(t > thr, axis=1))
