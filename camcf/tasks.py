"""The work of :func:`camcf.algorithm.run` after its preparation: one target category's whole
run as a pure function of read-only inputs (:func:`target_work`), and the two parallel steps
that hand that work and the two unconditional tables to joblib (local process workers or a
Dask cluster): the tables in row blocks (:func:`table_blocks`), the targets in parts sized by
their estimated cost (:func:`target_costs`, :func:`plan_tasks`), on workers of this machine in
one task each that takes part after part (:class:`LocalRun`), elsewhere in tasks sent from
here (:func:`parallel_tables`, :func:`parallel_targets`); their results packed into a few
arrays for the way back (:func:`pack_arrays`); each part's times for the record of where a
parallel run's wall went (``Result.stats["timeline"]``).
"""

from __future__ import annotations

import contextlib
import heapq
import os
import pickle
import threading
import time
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING

import numpy as np

from .errors import CamcfError
from .parallel import (
    Failed,
    PickleRef,
    Posts,
    active_client,
    claim,
    collection_paused,
    dask_results,
    dask_sees,
    dask_submit,
    freed_memory_kept,
    one_blas_thread,
    post,
    resolve,
    wake,
    write_shared,
)
from .result import Category, TargetResult
from .trace import CondSetList

if TYPE_CHECKING:
    from .parallel import SharedArrays


# each worker's share of the targets in tasks of these relative sizes, the large ones sent
# first: few tasks (each costs a round trip and a result to pack), and small ones at the end
# for whichever worker is free first, to even out the load (the last two half as large: on
# delicious's shape, 16,000 × 500 with 1,000 labels, two workers ended 8-15 ms sooner than
# with (4, 1, 1), loky and Dask alike, best of 7 in two rounds)
_TASK_SHARES = (4, 1, 0.5, 0.5)
_CELLS = 1 << 22  # cells of a table compared with a threshold at once


def target_costs(tables: tuple[np.ndarray, np.ndarray], todo: list[Category],
                 params: dict, counts: tuple | None = None) -> np.ndarray:
    """A relative cost of each target's run, known before it runs: 1 + the Phase 2 candidates
    it keeps (each a backward-elimination step and a possible spouse scan over the features)
    + its Phase 1 candidates / 8 (one column each). Used to order and size parallel tasks
    only: the counts are of unrounded values and include the target's own label (an estimate;
    no decision depends on it). ``counts``: :func:`table_counts` of the tables when known (the
    parallel table tasks count their rows), else counted here."""
    above1, above2 = counts if counts is not None else table_counts(tables, params)
    ids = np.array([c.id for c in todo], dtype=np.int64)
    kept = np.ceil(params["k1"] * above1[ids])
    sk = above2[ids] if np.size(above2) else 0
    return 1.0 + kept + sk / 8.0


def table_counts(tables: tuple[np.ndarray, np.ndarray], params: dict
                 ) -> tuple[np.ndarray, np.ndarray]:
    """Per category (column), how many values of the MI table exceed δ1 and of the category
    table exceed δ2 (:func:`target_costs`'s inputs). Counts of row blocks add up to these."""
    mi, cat = tables
    return (_count_above(mi, params["delta1"]),
            _count_above(cat, params["delta2"]) if cat.size else np.zeros(0, np.int64))


def _count_above(table: np.ndarray, threshold: float, axis: int = 0) -> np.ndarray:
    """Per column of ``table`` (``axis=0``; per row with ``axis=1``), how many values exceed
    ``threshold``: a block of rows at a time (no full-size boolean temporary), each block's
    comparisons added as bytes, at most 255 of them at a time (numpy's count_nonzero along an
    axis casts each to an int64 first: 1 ms for a 1,000 × 2,000 part, now 0.6)."""
    rows, cols = table.shape
    out = np.zeros(cols if axis == 0 else rows, dtype=np.int64)
    step = max(1, _CELLS // max(cols, 1))
    if axis == 0:
        step = min(step, 255)
    for a in range(0, rows, step):
        hit = (table[a:a + step] > threshold).view(np.uint8)
        if axis == 0:
            out += np.add.reduce(hit, axis=0, dtype=np.uint8)
            continue
        for c in range(0, cols, 255):
            out[a:a + step] += np.add.reduce(hit[:, c:c + 255], axis=1, dtype=np.uint8)
    return out


def plan_tasks(costs: np.ndarray, shares, width: int = 1) -> list[list[int]]:
    """Targets (positions in ``costs``, in the order their results are used) in tasks of total
    cost in proportion to ``shares``, sent in that order in rounds of ``width`` tasks (as
    many as workers): each round takes a consecutive run of the targets, of its shares' part
    of the cost, and splits it among its tasks heaviest target first into the task least
    loaded for its share (longest-processing-time first: even totals); each task lists its
    targets heaviest first; no task is empty. The first rounds hold the first targets, so
    that the run takes the results as they come, and the last round only the last targets
    (the work left after the last result is theirs alone)."""
    costs = np.asarray(costs, dtype=float)
    share = np.asarray(shares, dtype=float)
    width = max(1, int(width))
    if not costs.size or not share.size:
        return []
    rounds = [share[a:a + width] for a in range(0, share.size, width)]
    mid = np.cumsum(costs) - costs / 2  # a target goes to the run its cost's middle is in
    cut = np.cumsum([r.sum() for r in rounds])[:-1] / share.sum()
    edges = [0, *np.searchsorted(mid, mid[-1] * cut).tolist(), costs.size]
    out = []
    for r, a, b in zip(rounds, edges[:-1], edges[1:], strict=True):
        load = [(0.0, k) for k in range(r.size)]  # a heap of (load / share, task)
        total = [0.0] * r.size
        tasks: list[list[int]] = [[] for _ in range(r.size)]
        for i in (a + np.argsort(-costs[a:b], kind="stable")).tolist():
            _, k = heapq.heappop(load)
            tasks[k].append(i)
            total[k] += float(costs[i])
            heapq.heappush(load, (total[k] / r[k], k))
        out.extend(t for t in tasks if t)
    return out


def table_blocks(m: int, n_categories: int, workers: int,
                 weights: np.ndarray | None = None) -> list[tuple[str, int, int]]:
    """The two tables in row blocks for ``workers`` workers: each table in ``workers`` blocks
    (the MI table's first: a row of it counts every code of a feature), so that each worker
    takes about as much of each. The MI table's blocks have even rows; the category table's
    have even sums of ``weights`` (an estimated cost per row, :func:`category_row_weights`),
    even rows without (the category table is symmetric: a block of its columns costs what
    the same rows would). Entries ``(which, start, stop)`` for
    :meth:`camcf.engine.EngineBase.table_part`."""
    out = []
    for which, rows in (("features", m), ("categories", n_categories)):
        k = max(1, min(int(workers), rows))
        edges = np.linspace(0, rows, k + 1).round().astype(int)
        if which == "categories" and weights is not None and rows:
            w = np.asarray(weights, dtype=float)
            mid = np.cumsum(w) - w / 2  # a row goes to the block its weight's middle is in
            edges[1:-1] = np.searchsorted(mid, mid[-1] * np.arange(1, k) / k)
        edges = edges.tolist()
        out.extend((which, a, b) for a, b in zip(edges[:-1], edges[1:], strict=True) if b > a)
    return out


def category_row_weights(shared: dict, n: int, n_categories: int) -> np.ndarray | None:
    """An estimated cost of each row of the category table: 1 + the category's exceptions
    (the rows not at its mode, from the compiled engine's pool in ``shared``), which the
    table's join visits. None without a pool (rows then cost alike). Used to balance
    :func:`table_blocks` only."""
    pool = shared.get("pool")
    if pool is None or not n:
        return None
    ptr = np.asarray(pool[0])
    return 1.0 + np.diff(ptr[ptr.size - 1 - n_categories:]).astype(float)


def _workers(n_jobs: int) -> int:
    """How many workers the parallel steps can count on: the Dask cluster's worker threads
    inside :func:`camcf.parallel.dask_cluster` (at most ``n_jobs`` when that is positive),
    else joblib's ``effective_n_jobs``."""
    client = active_client()
    if client is not None:
        threads = max(1, sum(client.nthreads().values()))
        return threads if n_jobs < 0 else max(1, min(threads, n_jobs))
    from joblib import effective_n_jobs

    return max(1, effective_n_jobs(n_jobs))


def _dispatch(fn, common: tuple, tasks: list[tuple], n_jobs: int, store: SharedArrays,
              prefer: str | None = None, *, ordered: bool = True):
    """The results of ``fn(*common, *task)`` for ``tasks`` (given heaviest first), as they
    finish: on the Dask cluster of :func:`camcf.parallel.dask_cluster` through its client
    (:func:`camcf.parallel.dask_submit`: ``common`` reaches each worker once; ``ordered`` as
    it takes it; the tasks not done are cancelled when the results' iterator closes), else
    through joblib (local process workers map ``common``'s arrays from ``store``'s files; no
    batching, every task dispatched at once)."""
    client = active_client()
    if client is not None:
        futures = dask_submit(client, fn, common, tasks, store, ordered=ordered)
        return dask_results(client, futures)
    from joblib import Parallel, delayed

    return Parallel(n_jobs=n_jobs, prefer=prefer, return_as="generator_unordered",
                    max_nbytes=None, batch_size=1, pre_dispatch="all")(
        delayed(fn)(*common, *task) for task in tasks)


_LAYOUT = {"features": "C", "categories": "F"}  # each table's layout in a parallel run


def parallel_tables(engine: str, inputs: tuple, store: SharedArrays, n_jobs: int, cpu: list,
                    params: dict, timeline: list | None = None
                    ) -> Callable[[], tuple[tuple, tuple]]:
    """The MI table and the category table computed in blocks (:func:`table_blocks`: rows of
    the first, columns of the second), a block of each per task and one task per worker
    (:func:`_engine_tables`; processes preferred: the work holds the GIL in places), started
    now; returns the function that waits for them (the caller does its own work meanwhile).
    A local worker
    writes its block into the table's file of ``store`` (:func:`camcf.parallel.write_shared`:
    each block is contiguous there), a remote one returns it. Returns the two tables and
    :func:`table_counts` (each task counts its block). The tables are written once, in the
    layout the target tasks read them fastest (``_LAYOUT``): the MI table row-major (Phase 4
    reads the rows of the survivors; a target's column is read once), the category table
    column-major (a target reads its column over and over: contiguous so); the result keeps
    the same arrays. Each task's CPU seconds are appended to ``cpu`` in the tasks' order,
    and to ``timeline`` (when given) one :func:`_span` per task. The pool is asked for
    ``n_jobs`` workers, as for the targets next, so that joblib keeps the same worker
    processes for both.

    The returned function also carries ``workers``, the number of workers the tasks were
    planned for (:func:`parallel_targets` plans for as many: on a Dask cluster asking costs
    a round trip to the scheduler)."""
    X, C, spec, leaves = inputs
    workers = _workers(n_jobs)
    tables, parts = _table_tasks(inputs, store, workers, params)
    tasks = [(p,) for p in parts]
    common = (engine, X, C, spec, tuple(leaves))
    sent = time.perf_counter()
    results = _dispatch(_engine_tables, common, tasks, n_jobs, store, prefer="processes",
                        ordered=False)
    readonly = tuple(store.readonly(tables[k]) for k in _LAYOUT)

    def collect() -> tuple[tuple, tuple]:
        got = list(results)
        seconds = {parts[0][:2]: stamp[0] for parts, stamp in got}
        for parts, stamp in got:
            if timeline is not None:
                label = " + ".join(f"{which} {a}" for which, a, _, _ in parts)
                timeline.append(_span(label, sent, stamp))
            for which, a, rows, _ in parts:
                if rows is not None:  # a remote worker's part
                    k = rows.shape[0]
                    if which == "features":
                        tables[which][a:a + k] = rows
                    else:
                        tables[which][:, a:a + k] = rows.T
        cpu.extend(seconds[parts[0][:2]] for (parts,) in tasks)
        return readonly, _block_counts(got)

    collect.workers = workers
    return collect


def _table_tasks(inputs: tuple, store: SharedArrays, workers: int, params: dict
                 ) -> tuple[dict, list[list[tuple]]]:
    """The two tables' files in ``store`` (empty; in the layouts of ``_LAYOUT``) and their
    blocks (:func:`table_blocks`) in one task per worker (one engine each): the i-th block
    of the MI table and the i-th from the end of the category table (the first rows of both
    cost more than their estimates, the features' row for row: 0.074 vs 0.063 s CPU and
    0.093 vs 0.083 s on delicious's shape; so paired the two tasks take 0.157 and 0.156 s,
    not 0.167 and 0.146); each part ``(which, start, stop, path of its table's file,
    threshold)`` as :func:`_table_parts` takes it."""
    X, C, spec, leaves = inputs
    m, Q = X.shape[1], C.shape[1]
    shapes = {"features": (m, Q), "categories": (Q, Q)}
    tables = {k: store.empty(v, np.float64, order=_LAYOUT[k]) for k, v in shapes.items()}
    limit = {"features": params["delta1"], "categories": params["delta2"]}
    blocks = table_blocks(m, Q, workers,
                          category_row_weights(unflatten_shared(spec, leaves), X.shape[0], Q))
    tasks: list[list] = [[] for _ in range(workers)]
    for t, which in enumerate(shapes):
        mine = [(a, b) for w, a, b in blocks if w == which]
        for i, (a, b) in enumerate(mine):
            k = i % workers if t == 0 else workers - 1 - i % workers
            tasks[k].append((which, a, b, store.path(tables[which]), limit[which]))
    return tables, [parts for parts in tasks if parts]


def _block_counts(blocks: list) -> tuple[np.ndarray, np.ndarray]:
    """:func:`table_counts` of the two tables from the results of their tasks
    (:func:`_engine_tables`: each counts its rows)."""
    total: dict[str, np.ndarray] = {}
    for parts, _ in blocks:
        for which, _, _, above in parts:
            total[which] = total[which] + above if which in total else above
    return total["features"], total["categories"]


def task_shares(workers: int) -> list[float]:
    """The relative sizes of a parallel run's target tasks on ``workers`` workers: each
    worker's share in tasks of sizes ``_TASK_SHARES``, the large ones first."""
    return [x for x in _TASK_SHARES for _ in range(workers)]


def plan_targets(todo: list[Category], params: dict, counts: tuple, shares: list[float],
                 workers: int) -> list[list[int]]:
    """The target tasks of a parallel run: :func:`plan_tasks` on :func:`target_costs` from
    the tables' ``counts``, in tasks of relative sizes ``shares`` (:func:`task_shares`), in
    rounds of ``workers`` (positions in ``todo``)."""
    return plan_tasks(target_costs(None, todo, params, counts), shares, workers)


def parallel_targets(inputs: tuple, collect: Callable, todo: list[Category],
                     label_of: np.ndarray, params: dict, trace: str, engine: str,
                     n_jobs: int, store: SharedArrays, cpu: list,
                     timeline: list | None = None) -> tuple[tuple, Iterator[tuple]]:
    """The tables of :func:`parallel_tables` (waited for with ``collect``) and the outcomes of
    :func:`target_work` for ``todo`` in that order, computed in tasks of several targets
    (:func:`plan_targets`: per worker a large task, then small ones, ``_TASK_SHARES``) that
    return as they finish: the route of workers that do not see ``store``'s folder (a
    remote Dask cluster; :class:`LocalRun` otherwise), which this process sends the tables'
    values and the targets' tasks once the tables are in.

    Every large array (codes, indicators, the tables, the engine's shared inputs) is in a
    file of ``store`` (:class:`camcf.parallel.SharedArrays`); a remote Dask worker receives
    each once. Each task's CPU seconds are appended to ``cpu``, its :func:`_span` to
    ``timeline``."""
    X, C, spec, leaves = inputs
    rest = (store.share(label_of), spec, tuple(leaves), params, trace, engine)
    tables, counts = collect()
    plan = plan_targets(todo, params, counts, task_shares(collect.workers), collect.workers)
    sent = time.perf_counter()
    done = _dispatch(_targets_work, (X, C, *tables, *rest),
                     [([todo[i] for i in task],) for task in plan], n_jobs, store)
    return tables, _in_order(done, todo, sent, cpu, timeline)


def parallel_begin(store: SharedArrays, n_jobs: int) -> LocalRun | None:
    """The tasks of a parallel run sent now, before its inputs are ready (:class:`LocalRun`:
    the workers start while this process prepares the rest), when the workers see
    ``store``'s folder (joblib's on this machine; a Dask cluster's there); else None."""
    client = active_client()
    if client is None or dask_sees(client, store):
        return LocalRun(store, n_jobs)
    return None


def parallel_start(begun: LocalRun | None, engine: str, inputs: tuple, store: SharedArrays,
                   n_jobs: int, label_of: np.ndarray, params: dict, trace: str, cpu: dict,
                   timeline: list | None = None) -> LocalRun | _SentRun:
    """Start a parallel run's work (the two tables, then the targets) now; returns the run,
    whose ``outcomes(todo)`` takes the targets to compute (``todo``, known a little later:
    this process plans them meanwhile) and gives the two tables and the targets' outcomes in
    ``todo``'s order, and whose ``join()`` waits for its tasks to end (before the folder
    goes). ``begun``: what :func:`parallel_begin` returned: its tasks get the inputs
    (:meth:`LocalRun.start`); None: workers that do not see the folder (a remote Dask
    cluster) get table tasks, then target tasks sent from here (:func:`parallel_tables`,
    :func:`parallel_targets`). Each task's CPU seconds go to ``cpu["tables"]`` and
    ``cpu["targets"]``, its :func:`_span` to ``timeline``."""
    args = engine, inputs, store, n_jobs, label_of, params, trace, cpu, timeline
    if begun is not None:
        begun.start(*args)
        return begun
    return _SentRun(*args)


class _SentRun:
    """A parallel run on workers that do not see the shared folder (:func:`parallel_start`):
    the table tasks sent now, ``outcomes(todo)`` as :meth:`LocalRun.outcomes` takes it;
    nothing to wait for at the end."""

    def __init__(self, engine: str, inputs: tuple, store: SharedArrays, n_jobs: int,
                 label_of: np.ndarray, params: dict, trace: str, cpu: dict,
                 timeline: list | None) -> None:
        self.args = engine, inputs, store, n_jobs, label_of, params, trace, cpu, timeline
        self.collect = parallel_tables(engine, inputs, store, n_jobs, cpu["tables"], params,
                                       timeline)

    def outcomes(self, todo: list[Category]) -> tuple[tuple, Iterator[tuple]]:
        engine, inputs, store, n_jobs, label_of, params, trace, cpu, timeline = self.args
        return parallel_targets(inputs, self.collect, todo, label_of, params, trace, engine,
                                n_jobs, store, cpu["targets"], timeline)

    def join(self) -> None:
        pass


class LocalRun:
    """A parallel run on workers that see a :class:`camcf.parallel.SharedArrays` folder:
    one task per worker (:func:`_local_run`), sent before the inputs are ready, which waits
    for them (:meth:`start` posts them, :func:`camcf.parallel.post`), takes the table parts
    one after the other (:func:`camcf.parallel.claim`: pairs of blocks of
    :func:`_table_tasks`), writes them into the tables' files and posts their counts, waits
    for every part's post and this process's list of targets, plans the targets
    (:func:`plan_targets`; every task makes the same plan) and takes the plan's parts one
    after the other, posting each part's outcomes. This process reads the posts as they
    appear (:class:`camcf.parallel.Posts`, woken by a pipe): no result passes through
    joblib's or Dask's hands between the steps, and no task waits for this process (joblib
    looks for finished tasks every 10 ms; a round trip through a Dask scheduler took as
    long), nor for a task to reach its worker (5-15 ms on this machine under load). Tasks
    that start late take whatever is left; one worker alone does it all.

    If every task reports that it does not see the folder (joblib's Dask backend on a remote
    cluster), the run is done as :class:`_SentRun` does it."""

    def __init__(self, store: SharedArrays, n_jobs: int) -> None:
        self.store, self.n_jobs = store, n_jobs
        self.workers = _workers(n_jobs)
        self.ref = store.put(None)  # (the run's posts and claims beside it)
        self.posts = Posts(self.ref)  # (before the tasks: each post wakes it)
        client = active_client()
        self.futures: list = []
        self.got: list = []  # what joblib's tasks returned, or [error]
        self.ended = threading.Event()
        self.sent = time.perf_counter()
        if client is not None:
            self.futures = dask_submit(client, _local_run, (), [(self.ref,)] * self.workers,
                                       store, ordered=False)
            return
        from joblib import Parallel, delayed

        results = Parallel(n_jobs=n_jobs, prefer="processes", return_as="generator_unordered",
                           max_nbytes=None, batch_size=1, pre_dispatch="all")(
            delayed(_local_run)(self.ref) for _ in range(self.workers))
        # joblib's results are taken on a thread of their own (the posts are read here)
        threading.Thread(target=self._take, args=(results,), name="camcf-tasks",
                         daemon=True).start()

    def start(self, engine: str, inputs: tuple, store: SharedArrays, n_jobs: int,
              label_of: np.ndarray, params: dict, trace: str, cpu: dict,
              timeline: list | None) -> None:
        """Post the run's inputs for the waiting tasks (the arrays by reference: every large
        one is in a file of the folder)."""
        self.args = engine, inputs, store, n_jobs, label_of, params, trace, cpu, timeline
        X, C, spec, leaves = inputs
        tables, pairs = _table_tasks(inputs, store, self.workers, params)
        self.tables = tuple(store.readonly(tables[k]) for k in _LAYOUT)
        self.pairs = [f"t{i}" for i in range(len(pairs))]
        self.sent = time.perf_counter()
        post(self.ref, "inputs", (
            engine, store.refs(X), store.refs(C), spec, tuple(store.refs(a) for a in leaves),
            label_of, tuple(store.refs(t) for t in self.tables), params, trace, pairs,
            task_shares(self.workers), self.workers))

    def _take(self, results: Iterator) -> None:
        try:
            self.got.extend(results)
        except BaseException as e:  # (a task's error: raised by outcomes)
            self.got[:] = [e]
        finally:
            self.ended.set()
            wake(self.ref)

    def _ended(self) -> bool:
        """Whether every task has ended; raises what one raised."""
        if self.futures:
            for fut in self.futures:
                if fut.status in ("error", "cancelled"):
                    fut.result()  # (raises the task's error)
            return all(fut.done() for fut in self.futures)
        if self.ended.is_set() and self.got and isinstance(self.got[0], BaseException):
            raise self.got[0]
        return self.ended.is_set()

    def _remote(self) -> bool:
        """Whether every task ended reporting that it does not see the folder."""
        if self.futures:
            return all(f.done() and f.status == "finished" and f.result() is None
                       for f in self.futures)
        return self.ended.is_set() and bool(self.got) and all(g is None for g in self.got)

    def outcomes(self, todo: list[Category]) -> tuple[tuple, Iterator[tuple]]:
        """The two tables and the outcomes of ``todo``'s targets in that order (as
        :func:`parallel_targets` gives them)."""
        post(self.ref, "todo", todo)
        try:
            n = dict(self.posts.take(["n"], self._ended))["n"]
        except CamcfError:
            if not self._remote():
                self.stop()
                raise
            self.stop()
            return _SentRun(*self.args).outcomes(todo)
        except BaseException:
            self.stop()
            raise
        return self.tables, self._outcomes(todo, n)

    def _outcomes(self, todo: list[Category], n: int) -> Iterator[tuple]:
        cpu, timeline = self.args[7], self.args[8]
        done = False
        try:
            for _, (parts, stamp) in self.posts.take(self.pairs, self._ended):
                cpu["tables"].append(stamp[0])
                if timeline is not None:
                    label = " + ".join(f"{which} {a}" for which, a, _, _ in parts)
                    timeline.append(_span(label, self.sent, stamp))
            outcomes = _in_order((got for _, got in self.posts.take(range(n), self._ended)),
                                 todo, self.sent, cpu["targets"], timeline)
            for i, outcome in enumerate(outcomes, 1):
                done = i == len(todo)  # (the caller may not ask after the last)
                yield outcome
            done = True
        finally:
            if not done:
                self.stop()
            self.posts.close()

    def join(self) -> None:
        """Wait for the tasks to end (the last ones post the plan's size after the run has
        read it)."""
        if self.futures:
            from distributed import wait

            with contextlib.suppress(Exception):  # (cancelled, or failed: raised already)
                wait(self.futures)
        else:
            self.ended.wait()

    def stop(self) -> None:
        """Tell the tasks waiting for each other to give up (Dask's are cancelled: not
        needed), and stop reading."""
        self.posts.stop()
        self.posts.close()
        left = [f for f in self.futures if not f.done()]
        if left:
            active_client().cancel(left)


def _local_run(ref: PickleRef) -> int | None:
    """One worker's task of a :class:`LocalRun`: it waits for the run's inputs (posted beside
    ``ref`` as ``"inputs"``), then takes table parts, then target parts, each the first not
    yet taken (:func:`camcf.parallel.claim`), each posted beside ``ref``
    (:func:`camcf.parallel.post`; a part that raised is posted as
    :class:`camcf.parallel.Failed`, then raised) with its :func:`_stamp`. Between the two
    it waits for every table part and the run's targets (posted as ``"todo"``) and plans
    them (:func:`plan_targets`; the plan's size posted as ``"n"``). Once the run stopped
    (:meth:`camcf.parallel.Posts.stop`) it waits no more and takes no more parts. Returns
    the parts it did, or None when this worker does not see ``ref``'s folder."""
    if not os.path.exists(ref.path):
        return None
    from .engine import ENGINES

    count = 0
    with one_blas_thread(), freed_memory_kept(), collection_paused():
        got = _posted(ref, ["inputs"])
        if got is None:
            return count
        (engine, X, C, spec, leaves, label_of, tables, params, trace, pairs, shares,
         workers) = got["inputs"]
        c0, t0 = time.process_time(), time.perf_counter()
        keys = [f"t{i}" for i in range(len(pairs))]
        X, C, leaves = resolve(X), resolve(C), resolve(leaves)
        eng = None
        done: set = set()
        while (k := claim(ref, keys, done)) is not None:
            try:
                if eng is None:
                    eng = ENGINES[engine](X, C, **unflatten_shared(spec, leaves))
                out = _table_parts(eng, pairs[int(k[1:])])
            except BaseException as e:
                post(ref, k, Failed(e))
                raise
            post(ref, k, (out, _stamp(c0, t0)))
            done.add(k)
            count += 1
            c0, t0 = time.process_time(), time.perf_counter()
        del eng
        got = _posted(ref, ["todo", *keys])
        if got is None:
            return count
        todo = got.pop("todo")
        plan = plan_targets(todo, params, _block_counts(list(got.values())), shares, workers)
        post(ref, "n", len(plan))
        mi, cat = resolve(tables)
        done = set()
        while not os.path.exists(f"{ref.path}.stop") \
                and (k := claim(ref, range(len(plan)), done)) is not None:
            try:
                blob, (_, _, end, pid) = _targets_work(
                    X, C, mi, cat, label_of, spec, leaves, params, trace, engine,
                    [todo[i] for i in plan[k]])
            except BaseException as e:
                post(ref, k, Failed(e))
                raise
            post(ref, k, (blob, (time.process_time() - c0, t0, end, pid)))
            done.add(k)
            count += 1
            c0, t0 = time.process_time(), time.perf_counter()
    return count


def _posted(ref: PickleRef, keys: list) -> dict | None:
    """In a task of a :class:`LocalRun`: the posts of ``keys`` beside ``ref`` once all are
    there, or None when the run stopped or its folder went (this process ended) meanwhile;
    a posted :class:`camcf.parallel.Failed` raises its error."""
    posts = Posts(ref, f"w{os.getpid()}-{threading.get_ident()}")
    try:
        return dict(posts.take(keys, lambda: not os.path.exists(ref.path)))
    except CamcfError:
        if os.path.exists(f"{ref.path}.stop") or not os.path.exists(ref.path):
            return None
        raise
    finally:
        posts.close()


def _in_order(done: Iterator, todo: list[Category], sent: float, cpu: list,
              timeline: list | None) -> Iterator[tuple]:
    """The outcomes of the target tasks ``done`` (results as they finish) in ``todo``'s
    order."""
    ready: dict[int, tuple] = {}
    for i, c in enumerate(todo, 1):  # in flattening order, whatever order the tasks finish in
        while c.id not in ready:
            blob, stamp = next(done)
            outcomes, packed = pickle.loads(blob)
            if timeline is not None:
                timeline.append(_span(f"targets {len(outcomes)}", sent, stamp))
            ready.update(unpack_arrays(outcomes, packed))
            cpu.append(stamp[0])
        if i == len(todo):  # (before the last: the caller may not ask again)
            done.close()  # (a Dask step cancels the tasks not needed now)
        yield ready.pop(c.id)


def _stamp(c0: float, t0: float) -> tuple[float, float, float, int]:
    """A task's CPU seconds since ``c0``, its wall start ``t0`` and end (``time.perf_counter``:
    one clock for every process of a machine on Linux) and its process id."""
    return time.process_time() - c0, t0, time.perf_counter(), os.getpid()


def _span(label: str, sent: float, stamp: tuple) -> dict:
    """A task's line of ``Result.stats["timeline"]``: when it was submitted, started, ended
    (in its worker) and received here (``time.perf_counter`` seconds), its CPU seconds and
    worker process."""
    cpu, start, end, pid = stamp
    return {"task": label, "sent": sent, "start": start, "end": end,
            "received": time.perf_counter(), "cpu": cpu, "worker": pid}


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


def _engine_tables(engine: str, X, C, spec, leaves, parts: list[tuple]
                   ) -> tuple[list[tuple[str, int, np.ndarray | None, np.ndarray]], tuple]:
    """:func:`_table_parts` of ``parts`` on one fresh engine (a parallel task of
    :func:`parallel_tables`), and the task's :func:`_stamp`."""
    from .engine import ENGINES

    c0, t0 = time.process_time(), time.perf_counter()
    # one worker, one core (a Dask worker sets no limit itself); memory kept from the
    # engine's set-up on (a Dask worker gives back whatever exceeds 64 KB free at once)
    with one_blas_thread(), freed_memory_kept(), collection_paused():
        X, C, leaves = resolve(X), resolve(C), resolve(leaves)
        out = _table_parts(ENGINES[engine](X, C, **unflatten_shared(spec, leaves)), parts)
    return out, _stamp(c0, t0)


def _table_parts(eng, parts: list[tuple]) -> list[tuple[str, int, np.ndarray | None,
                                                        np.ndarray]]:
    """Blocks of the two tables on the engine ``eng``: for each ``(which, start, stop, path,
    threshold)`` of ``parts``, rows ``start``..``stop`` − 1 of the MI table
    (``which="features"``) or columns of the category table
    (:meth:`camcf.engine.EngineBase.table_part`), written into their place in the shared file
    ``path`` when this process can (else returned). Returns, per part, (which, start, the
    part or None, per column of the table how many of the part's values exceed
    ``threshold``)."""
    out = []
    for which, start, stop, path, threshold in parts:
        rows = eng.table_part(which, start, stop)
        if which == "features":
            above = _count_above(rows, threshold)
        else:  # (its rows are the table's columns start..)
            above = np.zeros(rows.shape[1], dtype=np.int64)
            above[start:stop] = _count_above(rows, threshold, axis=1)
        out.append((which, start, write_shared(path, rows, start), above))
        del rows
    return out


def _targets_work(X, C, mi_table, cat_table, label_of, spec, leaves, params, trace, engine,
                  categories) -> tuple[bytes, tuple]:
    """:func:`target_work` for several targets (one parallel task): ({category id: outcome},
    their arrays packed by :func:`pack_arrays`) pickled, and the task's :func:`_stamp`.
    ``label_of`` holds the label of every category (a target's others are the categories of
    the other labels). The outcomes travel pickled by the task: a Dask worker then keeps
    bytes until the result is fetched, not thousands of objects for its garbage collector
    to walk (each run's results, kept so, set off a full collection every few runs)."""
    c0, t0 = time.process_time(), time.perf_counter()
    X, C, mi_table, cat_table, label_of, leaves = (
        resolve(a) for a in (X, C, mi_table, cat_table, label_of, leaves))
    shared = unflatten_shared(spec, leaves)
    tables = (mi_table, cat_table)
    # one worker, one core (a Dask worker sets no limit itself); no garbage collection
    with one_blas_thread(), freed_memory_kept(), collection_paused():
        outs = targets_work(X, C, tables, categories,
                            [np.flatnonzero(label_of != c.label_index) for c in categories],
                            params, trace, engine, shared)
        out = {c.id: o for c, o in zip(categories, outs, strict=True)}
        blob = pickle.dumps((out, pack_arrays(out)), protocol=pickle.HIGHEST_PROTOCOL)
        del out, outs
    return blob, _stamp(c0, t0)


_SET_FIELDS = ("values", "offsets", "strata")  # the arrays of a CondSetList


def pack_arrays(outcomes: dict) -> tuple[list, list]:
    """Move the 1-D number arrays of a task's outcomes (each target's record columns and
    conditioning sets) into one array per dtype, in place: (the arrays, where each array
    went: per field and dtype, the targets in order and their arrays' sizes). A result then
    travels as a few arrays instead of about a dozen per target — pickling and unpickling
    thousands of small arrays was most of the cost of receiving them.
    :func:`unpack_arrays` puts views of the packed arrays back."""
    groups: dict[tuple, tuple[list, list]] = {}  # (kind, field, dtype) -> (targets, arrays)
    for cid, (res, sets, _) in outcomes.items():
        fields = [(0, key, a) for key, a in (res.trace or {}).items()]
        fields += [(1, key, getattr(sets, key)) for key in _SET_FIELDS]
        for kind, key, a in fields:
            if isinstance(a, np.ndarray) and a.ndim == 1 and a.dtype.kind in "biuf":
                g = groups.get((kind, key, a.dtype.char))  # (.char: cheap to read)
                if g is None:
                    g = groups[kind, key, a.dtype.char] = ([], [])
                g[0].append(cid)
                g[1].append(a)
    parts: dict[str, list] = {}
    where = []
    for (kind, key, _), (cids, arrays) in groups.items():
        dt = arrays[0].dtype.str
        where.append((kind, key, dt, cids, [a.size for a in arrays]))
        parts.setdefault(dt, []).extend(arrays)
        for cid in cids:
            res, sets, _ = outcomes[cid]
            if kind == 0:
                res.trace[key] = None
            else:
                setattr(sets, key, None)
    return [{dt: np.concatenate(lst) for dt, lst in parts.items()}], where


def unpack_arrays(outcomes: dict, packed: tuple[list, list]) -> dict:
    """Undo :func:`pack_arrays` on the received outcomes (views of the packed arrays)."""
    (arrays,), where = packed
    offsets = dict.fromkeys(arrays, 0)
    for kind, key, dt, cids, sizes in where:
        data, start = arrays[dt], offsets[dt]
        for cid, size in zip(cids, sizes, strict=True):
            res, sets, _ = outcomes[cid]
            if kind == 0:
                res.trace[key] = data[start:start + size]
            else:
                setattr(sets, key, data[start:start + size])
            start += size
        offsets[dt] = start
    return outcomes


def target_work(X, C: np.ndarray, tables: tuple[np.ndarray, np.ndarray], category: Category,
                others, params: dict, trace: str = "full", engine: str = "fast",
                shared: dict | None = None) -> tuple[TargetResult, CondSetList, dict]:
    """One target category's whole run, as a pure function of read-only inputs.

    ``X`` (codes, n × m, dense or sparse), ``C`` (indicators, n × C), ``tables`` (the MI table
    m × C and the category table C × C) and ``shared`` (the engine's shared inputs,
    :meth:`camcf.engine.EngineBase.shared`) are shared and never written. Returns the target's
    result (its trace's conditioning-set ids refer to the returned sets, a
    :class:`camcf.trace.CondSetList` of int32 arrays that travels cheaply from a worker), the
    sets, and the engine's counters (:meth:`camcf.engine.Engine.stats`). This is what
    :func:`camcf.algorithm.run` hands to joblib workers.
    """
    return targets_work(X, C, tables, [category], [others], params, trace, engine, shared)[0]


def targets_work(X, C: np.ndarray, tables: tuple[np.ndarray, np.ndarray],
                 categories: list[Category], others: list, params: dict, trace: str = "full",
                 engine: str = "fast", shared: dict | None = None
                 ) -> list[tuple[TargetResult, CondSetList, dict]]:
    """:func:`target_work` for several targets (``others[i]`` for ``categories[i]``), each on
    its own engine (:func:`camcf.phases.outcomes`): the outcomes in order."""
    from .phases import outcomes

    return list(outcomes(X, C, tables, categories, others, params, trace, engine, shared))
