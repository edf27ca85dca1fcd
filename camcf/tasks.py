"""The work of :func:`camcf.algorithm.run` after its preparation: one target category's whole
run as a pure function of read-only inputs (:func:`target_work`), and the two parallel steps
that hand that work and the two unconditional tables to joblib (local process workers or a
Dask cluster): the tables in row blocks (:func:`table_blocks`), the targets in tasks of even
estimated cost (:func:`target_costs`, :func:`plan_tasks`), their results packed into a few
arrays for the way back (:func:`pack_arrays`).
"""

from __future__ import annotations

import heapq
import time
from collections.abc import Iterator
from typing import TYPE_CHECKING

import numpy as np

from .info import _ELEM_BUDGET
from .parallel import one_blas_thread
from .result import Category, TargetResult
from .trace import CondSetList, CondSets

if TYPE_CHECKING:
    from .parallel import SharedArrays


_TASKS_PER_WORKER = 4  # tasks per worker: enough to even out the load, few enough to batch
_SERIAL_GROUP = 32  # targets per targets_work call in a serial run (camcf.phases.run_targets)


def target_costs(tables: tuple[np.ndarray, np.ndarray], todo: list[Category],
                 params: dict) -> np.ndarray:
    """A relative cost of each target's run, known before it runs: 1 + the Phase 2 candidates
    it keeps (each a backward-elimination step and a possible spouse scan over the features)
    + its Phase 1 candidates / 8 (one column each). Used to order and size parallel tasks
    only: the counts are of unrounded values and include the target's own label (an estimate;
    no decision depends on it)."""
    mi, cat = tables
    ids = np.array([c.id for c in todo], dtype=np.int64)
    # counted over whole rows (contiguous), then the targets' columns taken
    kept = np.ceil(params["k1"] * _count_above(mi, params["delta1"])[ids])
    sk = _count_above(cat, params["delta2"])[ids] if cat.size else 0
    return 1.0 + kept + sk / 8.0


def _count_above(table: np.ndarray, threshold: float) -> np.ndarray:
    """Per column of ``table``, how many values exceed ``threshold`` (a block of rows at a
    time: no full-size boolean temporary)."""
    out = np.zeros(table.shape[1], dtype=np.int64)
    step = max(1, _ELEM_BUDGET // max(table.shape[1], 1))
    for a in range(0, table.shape[0], step):
        out += np.count_nonzero(table[a:a + step] > threshold, axis=0)
    return out


def plan_tasks(costs: np.ndarray, n_tasks: int) -> list[list[int]]:
    """Targets (positions in ``costs``) in at most ``n_tasks`` tasks of even total cost: the
    heaviest target first into the lightest task (longest-processing-time first); the tasks
    heaviest first, each listing its targets heaviest first."""
    order = np.argsort(-costs, kind="stable").tolist()
    n_tasks = max(1, min(int(n_tasks), len(order)))
    load = [(0.0, k) for k in range(n_tasks)]  # a heap of (load, task)
    tasks: list[list[int]] = [[] for _ in range(n_tasks)]
    for i in order:
        w, k = heapq.heappop(load)
        tasks[k].append(i)
        heapq.heappush(load, (w + float(costs[i]), k))
    totals = [sum(float(costs[i]) for i in t) for t in tasks]
    return [tasks[k] for k in sorted(range(n_tasks), key=lambda k: -totals[k]) if tasks[k]]


def table_blocks(m: int, n_categories: int, workers: int) -> list[tuple[str, int, int]]:
    """The two tables in row blocks for ``workers`` workers: each table in ``workers`` blocks
    of even rows (the MI table's first: a row of it counts every code of a feature), so that
    each worker takes about as much of each. Entries ``(which, start, stop)`` for
    :meth:`camcf.info.EngineBase.table_rows`."""
    out = []
    for which, rows in (("features", m), ("categories", n_categories)):
        k = max(1, min(int(workers), rows))
        edges = np.linspace(0, rows, k + 1).round().astype(int).tolist()
        out.extend((which, a, b) for a, b in zip(edges[:-1], edges[1:], strict=True) if b > a)
    return out


def parallel_tables(engine: str, inputs: tuple, store: SharedArrays, n_jobs: int, cpu: list
                     ) -> tuple[np.ndarray, np.ndarray]:
    """The MI table and the category table computed in row blocks (:func:`table_blocks`), one
    joblib task each (processes preferred: the work holds the GIL in places). A local worker
    writes its rows into a file of ``store`` (:func:`camcf.parallel.write_shared`), a remote
    one returns them. Each task's CPU seconds are appended to ``cpu``. The pool is asked for
    ``n_jobs`` workers, as for the targets next, so that joblib keeps the same worker processes
    for both."""
    from joblib import Parallel, delayed, effective_n_jobs

    X, C, spec, leaves = inputs
    m, Q = X.shape[1], C.shape[1]
    outs = {"features": store.empty((m, Q), np.float64),
            "categories": store.empty((Q, Q), np.float64)}
    paths = {k: store.path(v) for k, v in outs.items()}
    blocks = table_blocks(m, Q, max(1, effective_n_jobs(n_jobs)))
    got = Parallel(n_jobs=n_jobs, prefer="processes", max_nbytes=None, batch_size=1,
                   pre_dispatch="all")(
        delayed(_engine_table)(engine, X, C, which, a, b, paths[which], spec, *leaves)
        for which, a, b in blocks)
    for (which, a, b), (rows, seconds) in zip(blocks, got, strict=True):
        cpu.append(seconds)
        if rows is not None:  # a remote worker's rows
            outs[which][a:b] = rows
    return store.readonly(outs["features"]), store.readonly(outs["categories"])


def parallel_outcomes(inputs: tuple, tables, todo: list[Category], label_of: np.ndarray,
                       params: dict, trace: str, engine: str, n_jobs: int,
                       store: SharedArrays, cpu: list):
    """The outcomes of :func:`target_work` for ``todo`` in that order, computed by joblib in
    tasks of several targets (:func:`plan_tasks` on :func:`target_costs`, about four tasks per
    worker) that return as they finish.

    Every large array (codes, indicators, tables, the engine's shared inputs) is in a file of
    ``store`` (:class:`camcf.parallel.SharedArrays`): local process workers map it, nothing is
    copied per task. Each is a separate argument, so that joblib's Dask backend scatters it once
    per run (an array inside a tuple or dict would travel with every task). Each task's CPU
    seconds are appended to ``cpu``."""
    from joblib import Parallel, delayed, effective_n_jobs

    workers = max(1, effective_n_jobs(n_jobs))
    plan = plan_tasks(target_costs(tables, todo, params), _TASKS_PER_WORKER * workers)
    X, C, spec, leaves = inputs
    mi, cat, label_of = (store.share(a) for a in (*tables, label_of))
    done = Parallel(n_jobs=n_jobs, return_as="generator_unordered", max_nbytes=None,
                    batch_size=1, pre_dispatch="all")(
        delayed(_targets_work)(X, C, mi, cat, label_of, spec, [todo[i] for i in task], params,
                               trace, engine, *leaves)
        for task in plan)
    ready: dict[int, tuple] = {}
    for c in todo:  # in flattening order, whatever order the tasks finish in
        while c.id not in ready:
            (outcomes, packed), seconds = next(done)
            ready.update(unpack_arrays(outcomes, packed))
            cpu.append(seconds)
        yield ready.pop(c.id)


def flatten_shared(shared: dict) -> tuple[list, list]:
    """The engine's shared inputs as (spec, leaves): a tuple value becomes its items."""
    spec, leaves = [], []
    for k, v in shared.items():
        if isinstance(v, tuple):
            spec.append((k, len(v)))
            leaves.extend(v)
        else:
            spec.append((k, None))
            leaves.append(v)
    return spec, leaves


def unflatten_shared(spec: list, leaves) -> dict:
    out, i = {}, 0
    for k, size in spec:
        if size is None:
            out[k], i = leaves[i], i + 1
        else:
            out[k], i = tuple(leaves[i:i + size]), i + size
    return out


def _engine_table(engine: str, X, C, which: str, start: int, stop: int, path: str, spec,
                  *leaves) -> tuple[np.ndarray | None, float]:
    """Rows ``start``..``stop`` − 1 of the MI table (``which="features"``) or of the category
    table of a fresh engine (:meth:`camcf.info.EngineBase.table_rows`), written into those
    rows of the shared file ``path`` when this process can (then None) or returned (a parallel
    task of :func:`camcf.algorithm.run`); with the task's CPU seconds."""
    from .engines import ENGINES
    from .parallel import write_shared

    c0 = time.process_time()
    eng = ENGINES[engine](X, C, **unflatten_shared(spec, leaves))
    with one_blas_thread():  # one worker, one core (a Dask worker sets no limit itself)
        out = write_shared(path, eng.table_rows(which, start, stop), start)
    return out, time.process_time() - c0


def _targets_work(X, C, mi_table, cat_table, label_of, spec, categories, params, trace,
                  engine, *leaves) -> tuple[dict[int, tuple], float]:
    """:func:`target_work` for several targets (one parallel task): ({category id: outcome},
    the task's CPU seconds). ``label_of`` holds the label of every category (a target's others
    are the categories of the other labels)."""
    c0 = time.process_time()
    shared = unflatten_shared(spec, leaves)
    tables = (mi_table, cat_table)
    with one_blas_thread():  # one worker, one core (a Dask worker sets no limit itself)
        outs = targets_work(X, C, tables, categories,
                            [np.flatnonzero(label_of != c.label_index) for c in categories],
                            params, trace, engine, shared)
        out = {c.id: o for c, o in zip(categories, outs, strict=True)}
    packed = pack_arrays(out)
    return (out, packed), time.process_time() - c0


_SET_FIELDS = ("values", "offsets", "strata")  # the arrays of a CondSetList


def pack_arrays(outcomes: dict) -> tuple[list, list]:
    """Move the 1-D number arrays of a task's outcomes (each target's record columns and
    conditioning sets) into one array per dtype, in place: (the arrays, where each array
    went). A result then travels as a few arrays instead of about a dozen per target —
    pickling and unpickling thousands of small arrays was most of the cost of receiving
    them. :func:`unpack_arrays` puts views of the packed arrays back."""
    parts: dict[np.dtype, list] = {}
    where: list[tuple] = []

    def take(a, cid: int, kind: int, key: str):
        if not isinstance(a, np.ndarray) or a.ndim != 1 or a.dtype.kind not in "biuf":
            return a
        lst = parts.setdefault(a.dtype, [])
        where.append((cid, kind, key, a.dtype.str, a.size))
        lst.append(a)
        return None

    for cid, (res, sets, _) in outcomes.items():
        if res.trace:
            for key in list(res.trace):
                if take(res.trace[key], cid, 0, key) is None:
                    res.trace[key] = None
        for key in _SET_FIELDS:
            if take(getattr(sets, key), cid, 1, key) is None:
                setattr(sets, key, None)
    packed = {dt.str: np.concatenate(lst) for dt, lst in parts.items()}
    return [packed], where


def unpack_arrays(outcomes: dict, packed: tuple[list, list]) -> dict:
    """Undo :func:`pack_arrays` on the received outcomes (views of the packed arrays)."""
    (arrays,), where = packed
    offsets = {dt: 0 for dt in arrays}
    for cid, kind, key, dt, size in where:
        start = offsets[dt]
        offsets[dt] = start + size
        view = arrays[dt][start:start + size]
        res, sets, _ = outcomes[cid]
        if kind == 0:
            res.trace[key] = view
        else:
            setattr(sets, key, view)
    return outcomes


def target_work(X, C: np.ndarray, tables: tuple[np.ndarray, np.ndarray], category: Category,
                others, params: dict, trace: str = "full", engine: str = "fast",
                shared: dict | None = None) -> tuple[TargetResult, CondSetList, dict]:
    """One target category's whole run, as a pure function of read-only inputs.

    ``X`` (codes, n × m, dense or sparse), ``C`` (indicators, n × C), ``tables`` (the MI table
    m × C and the category table C × C) and ``shared`` (the engine's shared inputs,
    :meth:`camcf.info.EngineBase.shared`) are shared and never written. Returns the target's
    result (its trace's conditioning-set ids refer to the returned sets, a
    :class:`camcf.trace.CondSetList` of int32 arrays that travels cheaply from a worker), the
    sets, and the engine's counters (:meth:`camcf.info.Engine.stats`). This is what
    :func:`camcf.algorithm.run` hands to joblib workers.
    """
    return targets_work(X, C, tables, [category], [others], params, trace, engine, shared)[0]


def targets_work(X, C: np.ndarray, tables: tuple[np.ndarray, np.ndarray],
                 categories: list[Category], others: list, params: dict, trace: str = "full",
                 engine: str = "fast", shared: dict | None = None
                 ) -> list[tuple[TargetResult, CondSetList, dict]]:
    """:func:`target_work` for several targets (``others[i]`` for ``categories[i]``), each on
    its own engine, run together by :func:`camcf.phases.run_targets` (their spouse steps
    counted at once): the outcomes in order, each identical to :func:`target_work`'s."""
    from .engines import ENGINES
    from .phases import batch_size, run_targets

    out = []
    size = batch_size(X.shape[0])
    for a in range(0, len(categories), size):  # engines live for one group of targets
        group = categories[a:a + size]
        engines = [ENGINES[engine](X, C, tables=tables, **(shared or {})) for _ in group]
        sets = [CondSets() for _ in group]
        results = run_targets(engines, group, others[a:a + size], params, cond_sets=sets,
                              trace=trace, scores=[tables[0][:, c.id] for c in group])
        out.extend((res, s.freeze(), eng.stats())
                   for res, s, eng in zip(results, sets, engines, strict=True))
    return out


def serial_outcomes(X, C: np.ndarray, tables: tuple[np.ndarray, np.ndarray],
                    todo: list[Category], label_of: np.ndarray, params: dict, trace: str,
                    engine: str, shared: dict) -> Iterator[tuple]:
    """The outcomes of :func:`target_work` for ``todo`` in that order, computed here by
    :func:`targets_work` in groups of targets (:data:`_SERIAL_GROUP`)."""
    for a in range(0, len(todo), _SERIAL_GROUP):
        group = todo[a:a + _SERIAL_GROUP]
        yield from targets_work(X, C, tables, group,
                                [np.flatnonzero(label_of != c.label_index) for c in group],
                                params, trace, engine, shared)
