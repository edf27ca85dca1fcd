"""The engine at scale: parallel targets (joblib, Dask), trace levels, compact and sparse codes."""

from __future__ import annotations

import json
import os
import sys
import time
import warnings

import numpy as np
import pytest
import scipy.sparse as sp

import camcf
import camcf.parallel
from camcf.algorithm import prepare_features, target_work
from camcf.errors import ParameterError, ResourceLimitError

HEAVIER = dict(delta1=0.01, delta2=0.02, k1=1.0, k2=0.3)
AUTHORS = dict(delta1=0.05, delta2=0.1, k1=0.7, k2=1.0)


def problem(seed=0, n=300, m=30, sparse_share=None):
    """Features with structure, four binary labels and a three-category label."""
    rng = np.random.default_rng(seed)
    X = rng.integers(0, 3, size=(n, m))
    if sparse_share is not None:
        X = X * (rng.random((n, m)) < sparse_share)
    L = [((X[:, 0] + X[:, 1]) > 2) ^ (rng.random(n) < 0.1)]
    L.append(L[0] ^ (rng.random(n) < 0.2))
    L.append((X[:, 2] > 0) ^ (rng.random(n) < 0.1))
    L.append((X[:, 3] + L[2]) > 1)
    L.append(np.where(X[:, 4] == 0, 0, np.where(X[:, 5] > 0, 1, 2)))
    return X, np.column_stack(L).astype(int)


def quiet_run(*a, **kw):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", camcf.CamcfWarning)
        return camcf.run(*a, **kw)


@pytest.mark.parametrize("params", [AUTHORS, HEAVIER])
def test_output_is_byte_identical_for_every_n_jobs(params):
    X, Y = problem(1)
    serial = quiet_run(X, Y, **params)
    ref = serial.to_json(include_trace=True)
    assert json.loads(ref)["n_tests"] > 100
    for n_jobs in (1, 2):
        par = quiet_run(X, Y, **params, n_jobs=n_jobs)
        assert par.to_json(include_trace=True) == ref, n_jobs
        assert par.cond_sets == serial.cond_sets


def test_progress_is_reported_in_order_when_parallel():
    X, Y = problem(2, n=150, m=10)
    seen = []
    quiet_run(X, Y, **AUTHORS, n_jobs=2, progress=lambda d, t, msg: seen.append(d))
    assert seen == list(range(len(seen)))
    assert seen[-1] == len(seen) - 1  # the final (total, total) call


def test_target_work_is_pure():
    X, Y = problem(3)
    res = quiet_run(X, Y, **HEAVIER)
    Xc = prepare_features(X)
    C = np.column_stack([(Y[:, c.label_index] == c.value) for c in res.categories]).astype(
        np.uint8)
    c = res.categories[0]
    others = [d.id for d in res.categories if d.label_index != c.label_index]
    before = (Xc.copy(), C.copy(), res.mi_table.copy())
    tables = (res.mi_table, res.category_mi)
    a = target_work(Xc, C, tables, c, others, res.params)
    b = target_work(Xc, C, tables, c, others, res.params)
    assert a[0].blanket == b[0].blanket == res.targets[0].blanket
    assert a[1] == b[1] and a[2] == b[2]
    for x, y in zip(before, (Xc, C, res.mi_table), strict=True):
        np.testing.assert_array_equal(x, y)  # the shared inputs are not written


@pytest.mark.parametrize("params", [AUTHORS, HEAVIER])
def test_decisions_are_identical_at_every_trace_level(params):
    X, Y = problem(4)
    full = quiet_run(X, Y, **params)
    dec = quiet_run(X, Y, **params, trace="decisions")
    cnt = quiet_run(X, Y, **params, trace="counters")
    assert full.to_json() == dec.to_json() == cnt.to_json()  # n_tests included
    assert full.trace_level == "full" and cnt.trace_level == "counters"
    assert cnt.n_rows == 0 and full.n_rows == full.n_tests
    assert 0 < dec.n_rows < full.n_rows
    for a, b in zip(full.targets, cnt.targets, strict=True):
        assert a.test_counts == b.test_counts
    # every kept row is the full record's row with the same seq
    f = full.to_frame(names=False).set_index(["target", "seq"])
    d = dec.to_frame(names=False).set_index(["target", "seq"])
    assert set(d.decision) <= {"accepted", "cut-k1", "removed", "spouse", "recovered", "cut-k2",
                               "dominates"}
    sub = f.loc[d.index]
    assert list(sub.decision) == list(d.decision)
    assert list(sub.cond) == list(d.cond)
    np.testing.assert_array_equal(sub.value.to_numpy(), d.value.to_numpy())
    # and the full record keeps all of those decisions
    changing = f[f.decision.isin(set(d.decision)) & ~((f.step == "feature-mi")
                                                      & (f.decision != "cut-k1"))]
    assert len(changing) == len(d)


def test_bad_trace_level_and_n_jobs_are_parameter_errors():
    X, Y = problem(0, n=50, m=6)
    with pytest.raises(ParameterError, match="trace"):
        camcf.run(X, Y, trace="everything")
    with pytest.raises(ParameterError, match="n_jobs"):
        camcf.run(X, Y, n_jobs=0)
    # the estimator and the run share one declaration: 0 is refused there too
    with pytest.raises(ParameterError, match="except 0"):
        camcf.CaMCF(n_jobs=0).fit(X, Y)
    assert camcf.CaMCF(n_jobs=1).fit(X, Y).n_features_in_ == X.shape[1]


def test_codes_take_the_smallest_type_and_column_major_layout():
    X, _ = problem(0, n=100, m=8)
    A = prepare_features(X)
    assert A.dtype == np.uint8 and A.flags.f_contiguous
    np.testing.assert_array_equal(A, X)
    big = np.column_stack([X[:, 0] * 1000, X[:, 1] - 5])  # recoded: 0..k−1 by value
    B = prepare_features(big.astype(float))
    assert B.dtype == np.uint8
    np.testing.assert_array_equal(B[:, 0], X[:, 0])
    np.testing.assert_array_equal(B[:, 1], X[:, 1])
    with pytest.raises(camcf.InvalidDataError, match=r"column\(s\) \[1\]"):
        prepare_features(np.column_stack([X[:, 0], X[:, 1] + 0.5]))


def test_sparse_input_stays_sparse_and_decides_as_dense():
    X, Y = problem(5, n=200, m=25, sparse_share=0.15)
    S = prepare_features(sp.csr_matrix(X))
    assert sp.issparse(S) and S.format == "csc" and S.dtype == np.uint8
    assert not sp.issparse(prepare_features(X))  # small dense input: dense counts faster
    big = np.zeros((1100, 1000), dtype=np.uint8)
    big[::7, ::3] = 2
    assert sp.issparse(prepare_features(big))  # ≥ 2^20 cells, mostly zeros: made sparse
    for params in (AUTHORS, HEAVIER):
        dense = quiet_run(X, Y, **params)
        sparse = quiet_run(sp.csr_matrix(X), Y, **params)
        assert sparse.to_json() == dense.to_json()
        if params is AUTHORS:
            continue
        ref = quiet_run(X, Y, **params, engine="reference")
        f, r = sparse.to_frame(names=False), ref.to_frame(names=False)
        assert list(f.decision) == list(r.decision)
        np.testing.assert_allclose(f.value.to_numpy(), r.value.to_numpy(), atol=1e-12)


def test_a_sparse_x_with_stored_zeros_is_left_as_it_was_and_decides_as_without_them():
    X, Y = problem(6, n=200, m=25, sparse_share=0.15)
    A = sp.csc_matrix(X)  # int64 indptr too: the case where nothing would be copied
    rows = np.flatnonzero(X[:, 2] == 0)[:5]
    stored = sp.csc_matrix((np.r_[A.data, np.zeros(rows.size, dtype=A.data.dtype)],
                            (np.r_[A.tocoo().row, rows], np.r_[A.tocoo().col, [2] * rows.size])),
                           shape=A.shape)
    stored.indptr = stored.indptr.astype(np.int64)
    assert stored.nnz == A.nnz + rows.size  # the zeros are stored entries
    before = (stored.data.copy(), stored.indices.copy(), stored.indptr.copy())
    S = prepare_features(stored)
    assert S.nnz == A.nnz
    for got, was in zip((stored.data, stored.indices, stored.indptr), before, strict=True):
        np.testing.assert_array_equal(got, was)
    assert quiet_run(stored, Y, **HEAVIER).to_json() == quiet_run(A, Y, **HEAVIER).to_json()


def test_too_big_for_the_memory_limit_is_a_resource_error_before_allocating(monkeypatch):
    X, Y = problem(0, n=200, m=10)
    monkeypatch.setenv("CAMCF_MEMORY_LIMIT", "1M")
    with pytest.raises(ResourceLimitError, match="CAMCF_MEMORY_LIMIT"):
        camcf.run(X, Y)


def test_an_error_preparing_the_codes_beside_reaches_the_caller(monkeypatch):
    """In a parallel run the codes are prepared on a second thread: what it raises is raised
    by camcf.run, as in a serial run."""
    X, Y = problem(0, n=200, m=10)
    monkeypatch.setenv("CAMCF_MEMORY_LIMIT", "1K")  # the 2,000 bytes of codes do not fit
    for n_jobs in (1, 2):
        with pytest.raises(ResourceLimitError, match="the codes of X"):
            camcf.run(X, Y, n_jobs=n_jobs)


def test_dask_cluster_gives_the_same_json():
    distributed = pytest.importorskip("distributed")
    import joblib

    X, Y = problem(6, n=250, m=20)
    serial = quiet_run(X, Y, **HEAVIER).to_json(include_trace=True)
    with distributed.LocalCluster(n_workers=2, processes=True, threads_per_worker=1,
                                  host="127.0.0.1", dashboard_address=None) as cluster, \
            distributed.Client(cluster) as client:
        with joblib.parallel_backend("dask"):
            res = quiet_run(X, Y, **HEAVIER, n_jobs=-1)
        # the work ran on the two workers: each holds the scattered inputs or task results
        assert len(client.scheduler_info()["workers"]) == 2
        # each worker keeps the memory its tasks freed until it has been idle a while
        pending = client.run(lambda: camcf.parallel._TIMER[0] is not None)
        time.sleep(camcf.parallel._GIVE_BACK_AFTER + 0.3)
        given = client.run(lambda: camcf.parallel._TIMER[0] is None)
    if sys.platform.startswith("linux"):  # (glibc's mallopt only)
        assert any(pending.values()) and all(given.values())
    assert res.to_json(include_trace=True) == serial


def test_dask_cluster_submits_to_the_client_and_gives_the_same_json(monkeypatch):
    """Inside camcf.parallel.dask_cluster the tasks go to the client directly (dask_submit):
    when the workers see the shared folder, one task per worker that does table parts then
    target parts, leaving their results in files (the arrays by file reference); scattered
    to every worker when they do not (then the table tasks, and the targets once the tables
    are in); the same workers are not asked again on the next run; the JSON with its record
    is the serial one either way."""
    distributed = pytest.importorskip("distributed")
    from camcf import tasks
    from camcf.parallel import dask_cluster

    calls = []
    real = tasks.dask_submit

    def submit(client, fn, common, todo, store, **kw):
        calls.append((fn.__name__, len(todo)))
        return real(client, fn, common, todo, store, **kw)

    monkeypatch.setattr(tasks, "dask_submit", submit)
    X, Y = problem(8, n=250, m=20)
    serial = quiet_run(X, Y, **HEAVIER).to_json(include_trace=True)
    with distributed.LocalCluster(n_workers=2, processes=False, threads_per_worker=1,
                                  dashboard_address=None) as cluster, \
            distributed.Client(cluster) as client, dask_cluster(client):
        local = quiet_run(X, Y, **HEAVIER, n_jobs=-1)
        asked = []
        real_run = client.run
        monkeypatch.setattr(client, "run", lambda *a, **k: asked.append(a) or real_run(*a, **k))
        again = quiet_run(X, Y, **HEAVIER, n_jobs=-1)
        assert not asked  # the same workers saw the folder's parent: not asked again
        monkeypatch.setattr(client, "run", lambda *a, **k: {"w": False})  # a remote folder
        camcf.parallel._SEEN.pop(client)  # (as when the workers change)
        remote = quiet_run(X, Y, **HEAVIER, n_jobs=-1)
    # a task per worker, each taking table parts then target parts
    assert calls[:2] == [("_local_run", 2)] * 2
    assert calls[2] == ("_engine_tables", 2)
    assert calls[3][0] == "_targets_work"  # sent with the tables' values
    assert len(calls) == 4
    for res in (local, again, remote):
        assert res.to_json(include_trace=True) == serial


def test_cli_n_jobs_and_parquet_record(tmp_path):
    import pandas as pd

    from camcf.cli import main

    X, Y = problem(7, n=120, m=8)
    data = tmp_path / "d.csv"
    df = pd.DataFrame(X, columns=[f"x{j}" for j in range(X.shape[1])])
    for i in range(Y.shape[1]):
        df[f"y{i}"] = Y[:, i]
    df.to_csv(data, index=False)
    base = [str(data), "--labels", f"last:{Y.shape[1]}", "--discretize", "none"]
    assert main(["select", *base, "-o", str(tmp_path / "a.json")]) == 0
    assert main(["select", *base, "-o", str(tmp_path / "b.json"), "--n-jobs", "2",
                 "--record", str(tmp_path / "r.parquet")]) == 0
    a = json.loads((tmp_path / "a.json").read_text())
    b = json.loads((tmp_path / "b.json").read_text())
    assert a == b
    rec = pd.read_parquet(tmp_path / "r.parquet")
    assert len(rec) == a["n_tests"] > 0
    res = quiet_run(X, Y)
    full = res.to_frame()
    assert list(rec.decision) == list(full.decision)
    assert [list(c) for c in rec.cond] == [list(c) for c in full.cond]


def test_record_streams_as_csv_and_jsonl(tmp_path):
    import pandas as pd

    X, Y = problem(8, n=150, m=10)
    res = quiet_run(X, Y, **HEAVIER)
    assert res.write_record(tmp_path / "r.csv") == res.n_tests
    assert res.write_record(tmp_path / "r.jsonl") == res.n_tests
    csv = pd.read_csv(tmp_path / "r.csv", keep_default_na=False)
    jl = pd.read_json(tmp_path / "r.jsonl", lines=True)
    full = res.to_frame()
    assert list(csv.decision) == list(jl.decision) == list(full.decision)
    np.testing.assert_allclose(csv.value.to_numpy(float), full.value.to_numpy(float))
    import io

    pq = pd.read_parquet(io.BytesIO(res.record_bytes("parquet")))
    assert list(pq.decision) == list(full.decision)
    with pytest.raises(ParameterError, match="parquet"):
        res.write_record(tmp_path / "r.xlsx")


def test_estimator_passes_n_jobs():
    X, Y = problem(9, n=150, m=8)
    sel = camcf.CaMCF(n_jobs=2)
    assert sel.get_params()["n_jobs"] == 2
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", camcf.CamcfWarning)
        a = sel.fit(X, Y).result_.to_json()
    assert a == quiet_run(X, Y).to_json()


def _sparse_arff(X, Y) -> str:
    lines = [f"@relation 'demo: -C -{Y.shape[1]}'"]
    lines += [f"@attribute x{j} numeric" for j in range(X.shape[1])]
    lines += [f"@attribute y{i} {{0,1}}" for i in range(Y.shape[1])]
    lines.append("@data")
    Z = np.column_stack([X, Y])
    for row in Z:
        nz = np.flatnonzero(row)
        lines.append("{" + ", ".join(f"{j} {row[j]}" for j in nz) + "}")
    return "\n".join(lines) + "\n"


def test_large_sparse_arff_stays_sparse_to_the_engine(monkeypatch):
    from camcf.io import arff

    X, Y = problem(10, n=200, m=25, sparse_share=0.1)
    Y = (Y[:, :4] > 0).astype(int)
    text = _sparse_arff(X, Y)
    dense_ds = arff.parse_arff_text(text)
    assert not sp.issparse(dense_ds.X)  # small: dense as before
    monkeypatch.setattr(arff, "SPARSE_ABOVE", 0)
    ds = arff.parse_arff_text(text)
    assert sp.issparse(ds.X)
    np.testing.assert_array_equal(ds.X.toarray(), dense_ds.X)
    np.testing.assert_array_equal(ds.Y, dense_ds.Y)
    from camcf.discretize import discretize

    codes, info = discretize(ds.X)
    dcodes, dinfo = discretize(dense_ds.X)
    assert sp.issparse(codes) and info == dinfo
    np.testing.assert_array_equal(codes.toarray(), dcodes)
    assert quiet_run(ds, **HEAVIER).to_json() == quiet_run(dense_ds, **HEAVIER).to_json()


def test_sparse_x_through_the_estimator_and_the_evaluation():
    """A sparse X (what the ARFF reader returns for large sparse files): CaMCF fits it as it
    is and selects what it selects on the dense X; a dense-only baseline refuses it with a
    typed error naming the way out; the evaluation makes its folds from it as from the dense
    X."""
    from camcf.baselines.d2f import D2F
    from camcf.errors import InvalidDataError
    from camcf.evaluation import make_folds, make_splitter

    X, Y = problem(3, n=200, m=25, sparse_share=0.15)
    S = sp.csr_matrix(X)
    dense = camcf.CaMCF(**HEAVIER).fit(X, Y)
    sparse = camcf.CaMCF(**HEAVIER).fit(S, Y)
    assert sparse.get_support().tolist() == dense.get_support().tolist()
    assert sparse.get_support().any()
    with pytest.raises(InvalidDataError, match="toarray"):
        D2F().fit(S, Y)
    a = make_folds(S, Y, make_splitter("holdout"), discretize=None)
    b = make_folds(X, Y, make_splitter("holdout"), discretize=None)
    assert len(a) == len(b) == 1
    np.testing.assert_array_equal(a[0].X_train, b[0].X_train)
    np.testing.assert_array_equal(a[0].test, b[0].test)


def test_parallel_tasks_cover_every_target_once_in_rounds_sized_by_cost():
    """plan_tasks puts each target in one task; the tasks go in rounds (as many as workers),
    each round a consecutive run of the targets (the order their results are used) of its
    shares' part of the cost, split evenly for the shares heaviest first (each total within
    the largest cost); each task heaviest first, none empty."""
    from camcf.tasks import plan_tasks

    costs = np.random.default_rng(0).pareto(1.5, size=200) + 1
    shares = [4, 4, 1, 1, 1, 1]
    tasks = plan_tasks(costs, shares, 2)
    assert len(tasks) == 6
    assert sorted(i for t in tasks for i in t) == list(range(200))
    rounds = [tasks[0] + tasks[1], tasks[2] + tasks[3], tasks[4] + tasks[5]]
    assert all(max(a) < min(b) for a, b in zip(rounds[:-1], rounds[1:], strict=True))
    unit = costs.sum() / sum(shares)
    for t, share in zip(tasks, shares, strict=True):
        assert abs(costs[t].sum() - share * unit) <= costs.max()
        assert list(costs[t]) == sorted(costs[t], reverse=True)
    assert abs(costs[tasks[0]].sum() - costs[tasks[1]].sum()) <= costs.max()
    assert [len(t) for t in plan_tasks(np.ones(60), shares, 2)] == [20, 20, 5, 5, 5, 5]
    assert [len(t) for t in plan_tasks(np.ones(60), shares)] == [20, 20, 5, 5, 5, 5]
    assert sorted(plan_tasks(costs[:3], shares, 2)) == [[0], [1], [2]]
    assert plan_tasks(np.array([1.0, 100.0, 1.0]), [1, 1]) == [[0], [1, 2]]
    assert plan_tasks(np.zeros(0), shares, 2) == []


def test_parallel_run_in_tasks_of_several_targets_gives_the_serial_json(monkeypatch):
    """With one task per worker (several targets each, finishing in any order) the result is
    the serial one, byte for byte."""
    import camcf.parallel
    import camcf.tasks

    monkeypatch.setattr(camcf.tasks, "_TASK_SHARES", (1,))
    folders = []

    class Recorded(camcf.parallel.SharedArrays):
        def __init__(self, nbytes=0):
            super().__init__(nbytes)
            folders.append(self.folder)

    monkeypatch.setattr(camcf.parallel, "SharedArrays", Recorded)
    X, Y = problem(4)
    serial = quiet_run(X, Y, **HEAVIER)
    assert folders == []  # a serial run shares nothing
    par = quiet_run(X, Y, **HEAVIER, n_jobs=2)
    assert par.to_json(include_trace=True) == serial.to_json(include_trace=True)
    # the two tables, computed side by side on the workers, are the serial ones bit for bit,
    # arrays of their own (private mappings of files that are gone: writeable, a write
    # reaches no one else)
    np.testing.assert_array_equal(par.mi_table, serial.mi_table)
    np.testing.assert_array_equal(par.category_mi, serial.category_mi)
    for table in (par.mi_table, par.category_mi):
        assert type(table) is np.ndarray and table.flags.writeable
        table[0, 0] += 1.0
    assert len(folders) == 1 and not os.path.exists(folders[0])
    assert set(par.stats["stages"]) == {"prepare", "tables", "targets"}
    # CPU seconds: one per table task (one task per worker, a row block of each table) and
    # per targets task (one task per worker here)
    assert len(par.stats["cpu"]["tables"]) == 2 and len(par.stats["cpu"]["targets"]) == 2
    assert len(serial.stats["cpu"]["tables"]) == len(serial.stats["cpu"]["targets"]) == 1


def test_prepared_codes_and_label_counts_equal_the_plain_ones():
    """The preparation's shortcuts give what the plain numpy/scipy calls give: mostly-zero
    dense codes as scipy's CSC matrix, labels (0/1, −1/+1, multi-class, float) as their
    codes in column-major order, and each label's values and counts as np.unique's."""
    from camcf.algorithm import _label_values, _prepare_labels

    rng = np.random.default_rng(5)
    X = ((rng.random((2100, 500)) < 0.05) * rng.integers(1, 4, (2100, 500))).astype(np.uint8)
    got = prepare_features(X, checked=True)
    want = sp.csc_matrix(np.asfortranarray(X))
    assert sp.issparse(got) and got.dtype == want.dtype and got.has_sorted_indices
    assert all(np.array_equal(getattr(got, a), getattr(want, a))
               for a in ("data", "indices", "indptr"))
    Y = np.column_stack([rng.integers(0, 2, 300), rng.integers(0, 4, 300),
                         np.where(rng.random(300) < 0.3, 1, -1), rng.integers(0, 9, 300)])
    for A in (Y, Y.astype(float), Y[:, [0, 1]].astype(np.uint8), Y[:, [0, 2]]):  # K 9, 4, 2
        P = _prepare_labels(A)
        want = np.where(A == -1, 0, A).astype(np.int64)
        assert P.flags.f_contiguous and np.array_equal(P, want)
        for i, (values, counts) in enumerate(_label_values(P)):
            u, k = np.unique(P[:, i], return_counts=True)
            assert np.array_equal(values, u) and np.array_equal(counts, k)


def test_packed_outcomes_travel_as_a_few_arrays_and_come_back_equal():
    """A targets task's outcomes leave with their record and set arrays packed (one array
    per dtype) and come back, after pickling, with every array equal in values and dtype."""
    import copy
    import pickle

    from camcf.tasks import pack_arrays, unpack_arrays

    X, Y = problem(3)
    res = quiet_run(X, Y, **HEAVIER)
    Xc = prepare_features(X)
    C = np.column_stack([(Y[:, c.label_index] == c.value) for c in res.categories]).astype(
        np.uint8)
    tables = (res.mi_table, res.category_mi)
    out = {c.id: target_work(Xc, C, tables, c, [d.id for d in res.categories
                                                 if d.label_index != c.label_index],
                             res.params)
           for c in res.categories[:4]}
    want = copy.deepcopy(out)
    packed = pack_arrays(out)
    assert len(packed[0][0]) <= 4 < len(packed[1])  # a few dtypes, many arrays
    back = unpack_arrays(*pickle.loads(pickle.dumps((out, packed))))
    for cid, (r, sets, counters) in want.items():
        r2, sets2, counters2 = back[cid]
        assert r2.trace.keys() == r.trace.keys() and sets2 == sets and counters2 == counters
        for key, a in r.trace.items():
            assert r2.trace[key].dtype == a.dtype and r2.trace[key].tobytes() == a.tobytes()


def test_a_mirrored_target_is_what_dataclasses_replace_gives():
    """run's mirrors (the complementary category of a binary label) are made without the
    dataclass's __init__: the same fields as dataclasses.replace gives, still frozen."""
    import dataclasses

    from camcf.algorithm import _mirror

    X, Y = problem(2, n=150, m=8)
    res = quiet_run(X, Y, **HEAVIER)
    done = next(t for t in res.targets if not t.skipped and t.mirror_of is None and t.trace)
    other = res.categories[done.id + 1]
    got = _mirror(done, other, done.id)
    assert got == dataclasses.replace(done, category=other, mirror_of=done.id)
    assert got.category is other and got.mirror_of == done.id and got.trace is done.trace
    assert done.category is not other and done.mirror_of is None  # the original is untouched
    with pytest.raises(dataclasses.FrozenInstanceError):
        got.blanket = ()


def test_local_run_late_tasks_take_what_is_left_and_errors_reach_the_caller(monkeypatch):
    """A parallel run on workers that see the shared folder (camcf.tasks.LocalRun; threads
    here): with more tasks than workers, the tasks that start late take the table and target
    parts left (or none) and the JSON is the serial one; when every task reports that it does
    not see the folder, the run goes the remote route (table tasks, then target tasks) and
    gives the same JSON; a part that raises raises in the caller, and the other task waiting
    for it gives up (no hang)."""
    import joblib

    from camcf import tasks

    X, Y = problem(4)
    serial = quiet_run(X, Y, **HEAVIER).to_json(include_trace=True)
    calls = []
    real = tasks._local_run

    def local_run(*args):
        out = real(*args)
        calls.append(out)
        return out

    monkeypatch.setattr(tasks, "_local_run", local_run)
    monkeypatch.setattr(tasks, "_workers", lambda n_jobs: 3)  # 3 tasks on 2 threads
    stops = []
    real_stop = camcf.parallel.Posts.stop
    monkeypatch.setattr(camcf.parallel.Posts, "stop",
                        lambda self: stops.append(1) or real_stop(self))
    with joblib.parallel_backend("threading", n_jobs=2):
        par = quiet_run(X, Y, **HEAVIER, n_jobs=2)
        assert par.to_json(include_trace=True) == serial
        assert not stops  # (a run that took every result tells no task to give up)
        # each of the 3 table parts and of the target parts done once, by one task or other
        parts = par.stats["cpu"]
        assert len(parts["tables"]) == 3 and len(parts["targets"]) > 3
        assert len(calls) == 3 and sum(calls) == 3 + len(parts["targets"])
        sent = []
        real_tables = tasks._engine_tables
        monkeypatch.setattr(tasks, "_local_run", lambda *a: None)  # a folder it cannot see
        monkeypatch.setattr(tasks, "_engine_tables",
                            lambda *a: sent.append(1) or real_tables(*a))
        remote = quiet_run(X, Y, **HEAVIER, n_jobs=2)
        assert remote.to_json(include_trace=True) == serial and len(sent) == 3
        monkeypatch.setattr(tasks, "_local_run", real)

        def broken(eng, parts):
            if parts[0][1] > 0:
                raise ValueError("a broken part")
            return real_parts(eng, parts)

        real_parts = tasks._table_parts
        monkeypatch.setattr(tasks, "_table_parts", broken)
        with pytest.raises(ValueError, match="a broken part"):
            quiet_run(X, Y, **HEAVIER, n_jobs=2)
        assert stops  # (the task waiting for the broken part was told to give up)


@pytest.mark.parametrize("where", ["preparation", "planning"])
def test_tasks_of_a_failed_parallel_run_end_and_its_folder_goes(monkeypatch, where):
    """A parallel run sends its tasks before their inputs are ready (camcf.tasks.LocalRun),
    and they wait for its list of targets once the tables are done. When the run raises
    before posting either (in its preparation, or planning the targets; a KeyboardInterrupt,
    say), the waiting tasks end (told to stop) and the run's shared folder goes once they
    have, so that the workers are free for the next run (before the planning was covered,
    the tasks waited for the targets for good and the next parallel run hung behind them)."""
    import joblib

    from camcf import algorithm, tasks
    from camcf.engine import ENGINES

    runs = []

    class Recorded(tasks.LocalRun):
        def __init__(self, *a, **k):
            super().__init__(*a, **k)
            runs.append(self)

    monkeypatch.setattr(tasks, "LocalRun", Recorded)
    X, Y = problem(4)
    serial = quiet_run(X, Y, **HEAVIER).to_json(include_trace=True)

    def broken(*a, **k):
        raise RuntimeError(f"a broken {where}")

    with joblib.parallel_backend("threading", n_jobs=2):
        with monkeypatch.context() as m:
            if where == "preparation":
                m.setattr(ENGINES["fast"], "shared", classmethod(broken))
            else:
                m.setattr(algorithm, "_plan", broken)
            with pytest.raises(RuntimeError, match=f"a broken {where}"):
                quiet_run(X, Y, **HEAVIER, n_jobs=2)
        assert len(runs) == 1 and runs[0].ended.wait(10)
        if where == "preparation":
            assert runs[0].got == [0, 0]  # (each task gave up before any part)
        folder = os.path.dirname(runs[0].ref.path)
        for _ in range(1000):  # (removed on a thread of its own once the tasks ended)
            if not os.path.exists(folder):
                break
            time.sleep(0.01)
        assert not os.path.exists(folder)
        assert quiet_run(X, Y, **HEAVIER, n_jobs=2).to_json(include_trace=True) == serial
