"""The two unconditional tables as a parallel run computes them (:mod:`camcf.tasks`): in row
blocks (:func:`camcf.tasks.table_blocks`, the category table's blocks balanced by
:func:`camcf.tasks.category_row_weights`), by workers (:func:`camcf.tasks.parallel_tables`),
with the counts the target plan reads (:func:`camcf.tasks.table_counts`); sparse and dense X,
rare, common and multi-class categories."""

import numpy as np
import pytest
import scipy.sparse as sp

from camcf.engine import ENGINES

FAST = ENGINES["fast"]


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


@pytest.mark.parametrize("engine", list(ENGINES))
@pytest.mark.parametrize("sparse_x", [True, False])
def test_tables_in_row_blocks_are_the_whole_tables_bit_for_bit(engine, sparse_x):
    """table_part over the blocks of table_blocks (for 1 to 4 workers, with and without the
    category rows' weights), each on a fresh engine as a worker's, stacked (the category
    table's parts are its columns), gives each table exactly."""
    from camcf.tasks import category_row_weights, table_blocks

    X, C = _data(sparse_x)
    cls = ENGINES[engine]
    shared = cls.shared(X, C)
    whole = cls(X, C, **shared)
    tables = {"features": whole.mi_table(), "categories": whole.category_mi_table()}
    weights = category_row_weights(shared, X.shape[0], C.shape[1])
    assert (weights is None) == (engine == "reference")  # (no pool: rows cost alike)
    for workers in (1, 2, 3, 4):
        for w in (None, weights):
            blocks = table_blocks(X.shape[1], C.shape[1], workers, w)
            for which, table in tables.items():
                parts = [cls(X, C, **shared).table_part(which, a, b)
                         for kind, a, b in blocks if kind == which]
                assert len(parts) == min(workers, table.shape[0])
                got = np.vstack(parts)
                assert np.array_equal(got if which == "features" else got.T, table)


def test_category_table_parts_are_its_columns_where_it_is_not_symmetric_bit_for_bit():
    """The category table's parts (table_part: columns as rows) are its columns bit for bit
    on data where the table differs from its transpose in the last bits (the two categories'
    terms are summed in the other order there): a part whose rows were the table's rows
    would differ."""
    rng = np.random.default_rng(11)
    n = 700
    Y = rng.random((n, 24)) < rng.uniform(0.02, 0.12, 24)
    C = np.asfortranarray(np.column_stack([Y[:, i] == v for i in range(24) for v in (0, 1)])
                          .astype(np.uint8))
    X = np.asfortranarray((rng.random((n, 6)) < 0.2).astype(np.uint8))
    shared = FAST.shared(X, C)
    table = FAST(X, C, **shared).category_mi_table()
    assert not np.array_equal(table, table.T)
    np.testing.assert_allclose(table, table.T, rtol=0, atol=1e-12)
    for a, b in ((0, 48), (5, 17), (47, 48)):
        part = FAST(X, C, **shared).table_part("categories", a, b)
        assert np.array_equal(part, table[:, a:b].T), (a, b)


def test_a_row_block_of_narrow_features_sums_as_the_whole_table_does():
    """A block whose features have few codes gives its rows' values bit for bit as the whole
    table does, where a feature with many codes is in another block (flags' n_jobs=2 record
    once differed from the serial one in the last bits so)."""
    from camcf.tasks import table_blocks

    rng = np.random.default_rng(5)
    n = 300
    X = (rng.random((n, 12)) < 0.3).astype(np.uint8)
    X[:, 0] = rng.integers(0, 8, n)  # 8 codes, against 2 for the others
    Y = rng.random((n, 3)) < np.array([0.2, 0.5, 0.7])
    C = np.column_stack([Y[:, i] == v for i in range(3) for v in (0, 1)]).astype(np.uint8)
    X, C = np.asfortranarray(X), np.asfortranarray(C)
    shared = FAST.shared(X, C)
    whole = FAST(X, C, **shared).mi_table()
    blocks = [(a, b) for w, a, b in table_blocks(X.shape[1], C.shape[1], 3) if w == "features"]
    assert blocks[0][0] == 0 and blocks[-1][0] > 0  # the wide feature in the first block only
    for a, b in blocks:
        rows = FAST(X, C, **shared).table_part("features", a, b)
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
    shared = FAST.shared(X, C)
    whole = FAST(X, C, **shared)
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


def test_category_blocks_split_by_estimated_cost():
    """The category table's blocks hold even estimated cost, not even rows: a category's row
    costs 1 + its rows off its mode (the rows the table's join visits), so frequent and rare
    categories cost little, a balanced one much; the blocks still cover every row once, in
    order; without weights the rows are split evenly."""
    from camcf.tasks import category_row_weights, table_blocks

    X, C = _data(True)
    n, Q = C.shape
    ones = C.sum(axis=0)
    w = category_row_weights(FAST.shared(X, C), n, Q)
    assert w.tolist() == (1 + np.minimum(ones, n - ones)).tolist()
    assert category_row_weights({}, n, Q) is None  # no pool: rows cost alike
    w = np.ones(8)
    w[:2] = 7.0  # two heavy rows first
    blocks = [(a, b) for which, a, b in table_blocks(30, 8, 2, w) if which == "categories"]
    assert blocks == [(0, 1), (1, 8)]  # 7 against 13 (two rows would be 14 against 6)
    w[1] = 1.0
    blocks = [(a, b) for which, a, b in table_blocks(30, 8, 2, w) if which == "categories"]
    assert blocks == [(0, 1), (1, 8)]  # 7 against 7
    assert [(a, b) for which, a, b in table_blocks(30, 8, 2) if which == "categories"] == [
        (0, 4), (4, 8)]


def test_shared_inputs_built_beside_equal_the_plain_ones():
    """The compiled engine's shared inputs built with ``beside`` (work on another thread, as
    a parallel run asks) are those built without, array for array."""
    from concurrent.futures import ThreadPoolExecutor

    X, C = _data(True)
    ones = C.sum(axis=0)
    plain = FAST.shared(X, C)
    with ThreadPoolExecutor(1) as pool:
        beside = FAST.shared(X, C, ones, beside=pool.submit)
    assert plain.keys() == beside.keys()
    for key in plain:
        a, b = plain[key], beside[key]
        for x, y in zip(a if isinstance(a, tuple) else (a,), b if isinstance(b, tuple) else (b,),
                        strict=True):
            assert x.dtype == y.dtype and np.array_equal(x, y), key


def test_table_counts_count_the_values_above_each_threshold_per_column():
    """table_counts counts, per category, the MI table's values above δ1 and the category
    table's above δ2, as np.count_nonzero does, whatever the layout and size."""
    from camcf.tasks import table_counts

    rng = np.random.default_rng(0)
    for shape in [(600, 300), (3, 7), (1, 1000), (0, 5), (300, 0)]:
        t = rng.random(shape) * 0.02
        t[t.shape[0] // 2:] = 0.0
        cat = rng.random((shape[1], shape[1])) * 0.02
        for thr in (0.01, 0.0, -1.0):
            for a, b in ((t, cat), (np.asfortranarray(t), np.asfortranarray(cat))):
                got = table_counts((a, b), {"delta1": thr, "delta2": thr / 2})
                assert np.array_equal(got[0], np.count_nonzero(t > thr, axis=0))
                assert np.array_equal(got[1], np.count_nonzero(cat > thr / 2, axis=0))
