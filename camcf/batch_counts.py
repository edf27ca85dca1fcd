"""Counting for many targets at once: Phase 1's tests given R, Phase 2's short backward walks
and its spouse step.

:func:`camcf.phases.run_targets` runs targets in groups, each on its own engine. A target
costs little work but some 150 small numpy calls, so with many small targets (many label
categories) the calls are the cost; here three steps of a whole group are counted together.

* **Phase 1** (:func:`cmi_many_batch`): each round's I(t; C_d | R) of every target of the
  group, for categories that :class:`~camcf.fast_engine.FastEngine` counts by a BLAS product:
  one stacked product of the float32 indicators with each target's 0/1 matrix of its rows'
  (t, stratum) cells, then the values of the targets of one shape in one call.
* **The spouse step** (:func:`screen_then_extras_many`): for one target, the engine counts the
  screen I(t; X_z | R) and the tests given each PC member x, I(t; X_z | {x} ∪ R), from one
  sparse product over the joint cells (t, R, x_1, …, x_p) of every row (when no set drops a
  stratum and the joint cells are few, :func:`joint_cells`); :func:`joint_extras` counts the
  joint cells of all the group's targets in one product and turns the counts of every target
  of one shape into values in one call of :func:`camcf.info.cmi_from_counts`.
* **Phase 2's short walks** (:func:`single_values`): the backward walks of at most two kept
  candidates take each value alone; a round's values of every target of the group come from
  one bincount over each request's (t, f, exact code of S) per row.

Every value and counter is bit for bit what the target alone gives: the counts are exact
integers whatever the product, and each value is the same sum over the same contiguous cells
(one row of the batched table per variable, as alone), in the same order of operations.
"""

from __future__ import annotations

import math

import numpy as np

from .info import _CELL_BUDGET, _ELEM_BUDGET, EngineBase, _sum_axes, cmi_from_counts, rounded

_BLAS_CELLS = 48  # (codes − 1) × (t, S) cells up to which counts come from a BLAS product
# the arrays one batched step holds (a few of each size at a time): with many rows, fewer
# targets go together (each one's calls then matter less)
_GROUP_ELEMS = 1 << 19  # count cells of same-shaped spouse steps (4 MB of int64)
_PRODUCT_CELLS = 1 << 20  # float32 outputs of one spouse product (4 MB)
_STACK_ELEMS = 1 << 20  # float32 rows × (columns + cells) of one Phase 1 product (4 MB)


class ExtrasPlan:
    """One target's tests given each extra x (:meth:`FastEngine._extras`), prepared up to its
    counting. ``joint``: the joint cells (:func:`joint_cells`) when the counting
    goes through :func:`joint_extras`, else None; after it, ``v1``/``pick`` hold the lead's
    values and mask (lead only), ``sel`` the columns tested given each x, ``out`` the values
    per x and ``done`` whether nothing is left (no column screened)."""

    __slots__ = ("engine", "t", "cols", "r", "nr", "extras", "lead", "keep", "rows", "K",
                 "kxs", "cell_of", "joint", "v1", "pick", "sel", "out", "done", "given")

    def __init__(self, engine, t: np.ndarray, cols: np.ndarray, r: np.ndarray, nr: int,
                 extras: list[int], lead: tuple | None, keep) -> None:
        self.engine, self.t, self.cols, self.r, self.nr = engine, t, cols, r, nr
        self.extras, self.lead, self.keep = extras, lead, keep
        self.rows = False  # whether the columns are counted by rows (FastEngine._by_rows)
        self.K = 0
        self.kxs: list[int] = []
        self.cell_of: list = []
        self.joint: tuple | None = None
        self.v1 = self.pick = None
        self.sel = cols
        self.out: list[np.ndarray | None] = [None] * len(extras)
        self.done = False
        self.given: tuple | None = None  # (v1, mask) of a screen given by the caller


def cmi_many_batch(requests: list[tuple]) -> list[np.ndarray]:
    """``engine.cmi_many(target, variables, cond)`` for many requests ``(engine, target,
    variables, cond)``, each on its own engine: the values, in order, bit for bit (and the
    engines' counters) as each request alone. Categories given a non-empty set, on a
    :class:`~camcf.fast_engine.FastEngine` that counts them by a BLAS product (Phase 1's tests
    given R), are counted together: one stacked product for many requests. Any other request
    is answered by its engine."""
    results: list = [None] * len(requests)
    asks = []
    for i, (eng, target, variables, cond) in enumerate(requests):
        cols = np.asarray(variables, dtype=np.int64)
        if not (hasattr(eng, "_extras_finish") and getattr(eng, "_cind", None) is not None
                and len(cond) and cols.size and int(cols.min()) >= eng.m
                and cols.size * eng.n <= _ELEM_BUDGET):
            results[i] = eng.cmi_many(target, cols, cond)
            continue
        # cmi_many's steps: the joint code of cond, the counter, the cells (of every request
        # at once, lead_cells)
        s, ns = eng.joint(cond)
        eng._counted(computed=len(cols))
        asks.append((i, eng, cols, eng._target(target), s, ns))
    plans = []
    for (i, eng, cols, t, s, ns), cells in zip(
            asks, lead_cells([(a[1], a[3], a[4], a[5]) for a in asks]), strict=True):
        if cells is None:  # no informative stratum: every value is 0
            results[i] = np.zeros(len(cols))
        elif int(eng.card[cols].max()) != 2 or 2 * cells[1] > _BLAS_CELLS:
            results[i] = eng._cmi_given_codes(t, cols, s, ns)
        else:
            plans.append((i, eng, cols, cells))
    group: list[tuple] = []
    k_max = s_max = 0  # the group's widest columns and cells
    for p in plans:  # groups of plans on the same indicators, within the element budget
        k, s2 = p[2].size, 2 * p[3][1]
        if group and (id(p[1]._cind) != id(group[0][1]._cind)
                      or (len(group) + 1) * p[1].n
                      * (max(k, k_max) + max(s2, s_max)) > _STACK_ELEMS):
            _category_counts(group, results)
            group, k_max, s_max = [], 0, 0
        group.append(p)
        k_max, s_max = max(k, k_max), max(s2, s_max)
    if group:
        _category_counts(group, results)
    return results


def _category_counts(group: list[tuple], results: list) -> None:
    """I(t; C_d | S) for each plan ``(request, engine, category pool columns, cells of S)``
    of ``group``: the counts of (C_d = 1, t, stratum) of every plan from one stacked product
    of the float32 indicators (exact: fewer than 2^24 rows) with each plan's 0/1 matrix of
    its rows' cells, as ``FastEngine._counts_blas`` counts them alone (rows in dead strata
    are left out)."""
    eng = group[0][1]
    n, m = eng.n, eng.m
    G = len(group)
    k_max = max(p[2].size for p in group)
    s_max = max(2 * p[3][1] for p in group)
    onehot = np.zeros((G, n, s_max), dtype=np.float32)
    every = np.arange(n)
    pick = np.zeros((G, k_max), dtype=np.int64)  # each plan's columns (padded with its first)
    whole = []  # the plans that keep every row: their ones set at once
    for g, (_, _, cols, cells) in enumerate(group):
        ts_row, live = cells[3], cells[4]
        if live is None:
            whole.append(g)
        else:
            onehot[g, live, ts_row[live]] = 1.0
        pick[g] = cols[0] - m
        pick[g, :cols.size] = cols - m
    if whole:
        onehot[np.array(whole)[:, None], every[None, :],
               np.stack([group[g][3][3] for g in whole])] = 1.0
    prod = np.matmul(eng._cind.T[pick], onehot)  # (G, k_max, s_max): counts of C_d = 1
    shapes: dict[tuple, list[int]] = {}  # plans of one shape: their values in one call
    for g, (_, _, cols, cells) in enumerate(group):
        shapes.setdefault((cols.size, cells[0], cells[1]), []).append(g)
    for (k, n_live, S), members in shapes.items():
        counts = np.empty((len(members), k, 2, 2 * S), dtype=np.int64)
        counts[:, :, 1, :] = prod[members, :k, :2 * S]
        ts = np.stack([group[g][3][2] for g in members])  # (G', 2S): counts of (t, stratum)
        counts[:, :, 0, :] = ts[:, None, :] - counts[:, :, 1, :]
        vals = _values_many(counts, ts, S, eng, n_live)
        for row, g in enumerate(members):
            results[group[g][0]] = vals[row]


def lookups_many(requests: list[tuple]) -> list[np.ndarray]:
    """``engine.cmi_many(target, categories, [])`` for many requests ``(engine, target,
    categories as pool columns)``, each on its own engine: the values (and the engines'
    counters) as each request alone. On a :class:`~camcf.fast_engine.FastEngine` they are
    its category table's entries (as its ``cmi_many`` reads them): the requests of engines
    sharing one table are read in one gather."""
    results: list = [None] * len(requests)
    by_table: dict[int, list[int]] = {}
    for i, (eng, target, cols) in enumerate(requests):
        if hasattr(eng, "_extras_finish") and cols.size and int(cols.min()) >= eng.m:
            by_table.setdefault(id(eng.category_mi_table()), []).append(i)
        else:
            results[i] = eng.cmi_many(target, cols, [])
    for members in by_table.values():
        eng0 = requests[members[0]][0]
        rows = np.concatenate([requests[i][2] for i in members]) - eng0.m
        sizes = [requests[i][2].size for i in members]
        vals = eng0.category_mi_table()[rows, np.repeat([requests[i][1] for i in members],
                                                         sizes)]
        a = 0
        for i, k in zip(members, sizes, strict=True):
            requests[i][0]._counted(lookups=k)
            results[i] = vals[a:a + k]
            a += k
    return results


def screen_then_extras_many(requests: list[tuple]) -> list[tuple]:
    """:meth:`camcf.info.Engine.screen_then_extras` for many requests ``(engine, target,
    variables, fixed, extras, keep, given)``, each on its own engine: the results, in order,
    bit for bit (and the engines' counters) as each request alone. Requests on a
    :class:`camcf.fast_engine.FastEngine` are planned together (:func:`screen_plans`) and
    those whose sets go through joint cells counted together (:func:`joint_extras`); any
    other is answered by its engine."""
    results: list = [None] * len(requests)
    fast = []
    for i, (eng, target, variables, fixed, extras, keep, given) in enumerate(requests):
        if hasattr(eng, "_extras_finish"):  # a FastEngine
            fast.append(i)
        else:
            results[i] = eng.screen_then_extras(target, variables, fixed, extras, keep, given)
    plans: list[tuple[int, ExtrasPlan]] = []
    for i, plan in zip(fast, screen_plans([requests[i] for i in fast]), strict=True):
        if isinstance(plan, ExtrasPlan):
            plans.append((i, plan))
        else:
            results[i] = plan
    joint_extras([p for _, p in plans if p.joint is not None])
    for i, p in plans:
        v1, pick, out = p.engine._extras_finish(p)
        results[i] = (v1, pick, out) if p.given is None else (*p.given, out)
    return results


def screen_plan(eng, target: int, variables, fixed, extras, keep, given) -> ExtrasPlan | tuple:
    """``eng.screen_then_extras`` (a :class:`~camcf.fast_engine.FastEngine`) up to its
    counting: the plan of its tests given each extra (:func:`extras_plan`; with ``given``, the
    screen's values and mask in ``plan.given``), or the finished result when nothing is left
    to count or it goes the base's way (:func:`screen_plans` of one request)."""
    return screen_plans([(eng, target, variables, fixed, extras, keep, given)])[0]


def screen_plans(requests: list[tuple]) -> list[ExtrasPlan | tuple]:
    """:func:`screen_plan` of each request ``(engine, target, variables, fixed, extras, keep,
    given)`` on a :class:`~camcf.fast_engine.FastEngine`: the screens' cells
    (:func:`lead_cells`) and the plans (:func:`extras_plans`) of all the requests at once."""
    out: list = [None] * len(requests)
    leads: list[tuple] = []  # (request, t, cols, r, nr): the screen counted with the extras
    asks: list[tuple] = []  # (request, extras_plan's arguments, given's (v1, mask))
    for i, (eng, target, variables, fixed, extras, keep, given) in enumerate(requests):
        cols = np.asarray(variables, dtype=np.int64)
        if given is None and len(fixed) and not eng.sparse and cols.size and extras \
                and eng._by_rows(cols, 1):
            r, nr = eng.joint(fixed)
            leads.append((i, eng._target(target), cols, r, nr))
        elif given is None:
            out[i] = EngineBase.screen_then_extras(eng, target, variables, fixed, extras, keep)
        else:
            v1 = np.asarray(given)  # the base's steps: the mask, then cmi_each_extra
            pick = np.asarray(keep(v1), dtype=bool)
            sel = cols[pick]
            if not sel.size or not len(extras):
                out[i] = v1, pick, []
                continue
            r, nr = eng.joint(fixed)
            asks.append((i, (eng, eng._target(target), sel, r, nr, [int(x) for x in extras]),
                         (v1, pick)))
    got = lead_cells([(requests[i][0], t, r, nr) for i, t, _, r, nr in leads])
    for (i, t, cols, r, nr), lead in zip(leads, got, strict=True):
        eng, target, variables, fixed, extras, keep, _ = requests[i]
        if lead is not None and _fits(eng, lead[1]):  # eng._by_rows(cols, lead[1])
            # the screen's cells and every x's in one product (the product reads every
            # column whatever the screen keeps)
            eng._counted(computed=len(cols))
            asks.append((i, (eng, t, cols, r, nr, [int(x) for x in extras], lead, keep, True),
                         None))
        else:
            out[i] = EngineBase.screen_then_extras(eng, target, variables, fixed, extras, keep)
    for (i, _, given), plan in zip(asks, extras_plans([args for _, args, _ in asks]),
                                   strict=True):
        plan.given = given
        out[i] = plan
    return out


def lead_cells(items: list[tuple]) -> list[tuple | None]:
    """``eng._cells(t, r, nr)`` (:meth:`camcf.fast_engine.FastEngine._cells`) of each item
    ``(eng, t, r, nr)``: the (t, stratum) counts of items of one shape from one bincount; an
    item with a stratum lacking t = 0 or t = 1 goes to ``eng._cells`` (which then drops it)."""
    out: list = [None] * len(items)
    shapes: dict[tuple, list[int]] = {}
    for i, (_, t, _, nr) in enumerate(items):
        shapes.setdefault((t.size, nr), []).append(i)
    for (_, nr), members in shapes.items():
        key = np.stack([items[i][1] for i in members]) * nr
        key += np.stack([items[i][2] for i in members])
        ts = _bincount_rows(key, 2 * nr)
        live = (ts[:, nr:] > 0) & (ts[:, :nr] > 0)
        full = live.all(axis=1).tolist()
        for g, i in enumerate(members):
            eng, t, r, _ = items[i]
            # every stratum informative: no row is dropped (as _cells gives it)
            out[i] = (nr, nr, ts[g], key[g], None) if full[g] else eng._cells(t, r, nr)
    return out


def _bincount_rows(key: np.ndarray, size: int) -> np.ndarray:
    """``np.bincount(key[g], minlength=size)`` of every row g of ``key`` (values below
    ``size``), as one array (rows × size)."""
    B = key.shape[0]
    flat = key + (np.arange(B, dtype=np.int64) * size)[:, None]
    return np.bincount(flat.ravel(), minlength=B * size).reshape(B, size)


def extras_plan(eng, t: np.ndarray, cols: np.ndarray, r: np.ndarray, nr: int,
                extras: list[int], lead: tuple | None = None, keep=None,
                by_rows: bool | None = None) -> ExtrasPlan:
    """``eng._extras`` (:meth:`camcf.fast_engine.FastEngine._extras`) up to its counting:
    the cells of each x and, when the sets go through joint cells (:func:`joint_cells`),
    those (then counted by :func:`joint_extras`, for many targets at once). ``by_rows``:
    ``eng._by_rows(cols, 1)`` when the caller knows it (:func:`extras_plans` of one)."""
    return extras_plans([(eng, t, cols, r, nr, extras, lead, keep, by_rows)])[0]


def extras_plans(items: list[tuple]) -> list[ExtrasPlan]:
    """:func:`extras_plan` of each item ``(eng, t, cols, r, nr, extras[, lead, keep,
    by_rows])``: the joint cells of all of them at once (:func:`joint_cells_many`)."""
    plans = []
    joint_asks = []
    for item in items:
        eng, t, cols, r, nr, extras = item[:6]
        lead, keep, by_rows = (*item[6:], None, None, None)[:3]
        plan = ExtrasPlan(eng, t, cols, r, nr, extras, lead, keep)
        if by_rows is None:
            by_rows = bool(cols.size) and eng._by_rows(cols, 1)
        if not eng.sparse and cols.size and by_rows:
            # every x's cells in one sparse product over the indicators (as many as fit)
            plan.rows = True
            plan.K = int(eng.card[cols].max())
            plan.kxs = [int(eng.card[x]) for x in extras]
            joint_asks.append(plan)
        plans.append(plan)
    got = joint_cells_many([(p.engine, p.t, p.cols, p.r, p.nr, p.extras, p.kxs, p.lead)
                            for p in joint_asks])
    for plan, cells in zip(joint_asks, got, strict=True):
        if cells is not None:
            plan.joint, plan.cell_of = cells
        else:
            eng, t, r, nr = plan.engine, plan.t, plan.r, plan.nr
            plan.cell_of = [eng._cells(t, r * kx + eng.column(x), nr * kx)
                            for x, kx in zip(plan.extras, plan.kxs, strict=True)]
    return plans


def joint_cells(eng, t: np.ndarray, cols: np.ndarray, r: np.ndarray, nr: int,
                extras: list[int], kxs: list[int], lead: tuple | None
                ) -> tuple[tuple, list[tuple]] | None:
    """The cells (t, S, x_1, …, x_p) of every row, in the layout of ``eng._cells`` (every
    stratum kept, t·N + joint code), and each {x} ∪ S's ``_cells`` summed from them, when
    ``eng._extras`` may count the lead and every x from them: none of those sets
    drops a stratum (so each one's cells are sums of the joint cells), there are two x or
    more, and the joint cells are few (at most four times the separate sets' strata).
    Else None (:func:`joint_cells_many` of one)."""
    return joint_cells_many([(eng, t, cols, r, nr, extras, kxs, lead)])[0]


def joint_cells_many(items: list[tuple]) -> list[tuple[tuple, list[tuple]] | None]:
    """:func:`joint_cells` of each item ``(eng, t, cols, r, nr, extras, kxs, lead)``: the
    items of one shape (rows, S's states, the x's codes) counted in one bincount."""
    out: list = [None] * len(items)
    shapes: dict[tuple, list[int]] = {}
    for i, (eng, t, _, _, nr, _, kxs, lead) in enumerate(items):
        if len(kxs) < 2 or (lead is not None and not lead[0] == lead[1] == nr):
            continue
        N = nr * math.prod(kxs)
        if N > 4 * nr * sum(kxs) or not _fits(eng, N):  # (the columns are counted by rows)
            continue
        shapes.setdefault((t.size, nr, tuple(kxs)), []).append(i)
    for (n, nr, kxs), members in shapes.items():
        N = nr * math.prod(kxs)
        key = np.empty((len(members), n), dtype=np.int64)
        X = items[members[0]][0].X
        extras = np.array([items[i][5] for i in members], dtype=np.int64)  # (items, p)
        if isinstance(X, np.ndarray) and int(extras.max()) < X.shape[1] and all(
                items[i][0].X is X for i in members):  # features of one dense X: at once
            key[:] = np.stack([items[i][3] for i in members])
            for j, kx in enumerate(kxs):
                key *= kx
                key += X[:, extras[:, j]].T
            key += np.stack([items[i][1] for i in members]) * N
        else:
            for g, i in enumerate(members):
                eng, t, _, r, _, xs, _, _ = items[i]
                u = key[g]
                u[:] = r
                for x, kx in zip(xs, kxs, strict=True):
                    u *= kx
                    u += eng.column(x)
                u += t * N
        ts = _bincount_rows(key, 2 * N)
        cells = ts.reshape(len(members), 2, nr, *kxs)
        ok = np.ones(len(members), dtype=bool)
        sums = []
        for i, kx in enumerate(kxs):
            ns = nr * kx
            # (a few cells: numpy's integer sum, exact)
            c = cells.sum(axis=tuple(a + 3 for a in range(len(kxs)) if a != i)).reshape(
                len(members), 2 * ns)
            ok &= np.count_nonzero(c, axis=1) == 2 * ns  # else {x} ∪ S drops a stratum
            sums.append((ns, c))
        for g, i in enumerate(members):
            if ok[g]:
                out[i] = ((N, N, ts[g], key[g], None),
                          [(ns, ns, c[g], None, None) for ns, c in sums])
    return out


def _fits(eng, S: int) -> bool:
    """``eng._by_rows(cols, S)`` for columns with ``eng._by_rows(cols, 1)``: the product
    output of S strata within the cell budget."""
    return 2 * S * eng._rows.shape[1] <= _CELL_BUDGET


def joint_extras(plans: list[ExtrasPlan]) -> None:
    """Count the joint cells of ``plans`` (each with ``joint`` set, on engines that share their
    indicator rows) and fill in their values, as :meth:`FastEngine._extras` does one plan at a
    time: the lead's values and the mask ``keep`` gives, then I(t; V_j | {x} ∪ S) for the
    kept columns and every x. One sparse product per chunk of plans within the cell budget."""
    by_rows: dict[int, list[ExtrasPlan]] = {}
    for p in plans:  # engines of one run share their indicators (the rows are views of them)
        by_rows.setdefault(id(p.engine._ind), []).append(p)
    for group in by_rows.values():
        width = group[0].engine._rows.shape[1]
        chunk: list[ExtrasPlan] = []
        cells = 0
        for p in group:
            c = 2 * p.joint[1]
            if chunk and (cells + c) * width > _PRODUCT_CELLS:
                _count_chunk(chunk)
                chunk, cells = [], 0
            chunk.append(p)
            cells += c
        if chunk:
            _count_chunk(chunk)


def _count_chunk(chunk: list[ExtrasPlan]) -> None:
    """One product over the joint cells of every plan of ``chunk`` (stacked: plan b's cells
    follow plan b − 1's), then the values of the plans by shape."""
    rows = chunk[0].engine._rows  # n × (K − 1)·m float32 indicators, row by row
    n, width = rows.shape
    m = chunk[0].engine.m
    # the plans of one shape next to each other: their cells are one slice of the product
    shape_of = [(p.cols.size, p.K, p.nr, tuple(p.kxs), p.lead is not None) for p in chunk]
    order = sorted(range(len(chunk)), key=lambda b: shape_of[b])
    chunk, shape_of = [chunk[b] for b in order], [shape_of[b] for b in order]
    sizes = [2 * p.joint[1] for p in chunk]
    off = np.zeros(len(chunk) + 1, dtype=np.int64)
    np.cumsum(sizes, out=off[1:])
    total, B = int(off[-1]), len(chunk)
    idx = np.int32 if total < 2**31 and n * B < 2**31 else np.int64
    # the 0/1 matrix (cells × n) in CSC form: column i (row i of the data) has one entry per
    # plan, plans in order (so no sort is needed)
    cell = np.empty((n, B), dtype=idx)
    for b, p in enumerate(chunk):
        np.add(p.joint[3], off[b], out=cell[:, b], casting="unsafe")
    # float32 sums of ones: exact integers below 2^24 rows (the indicators exist only then)
    prod = chunk[0].engine._cells_times_rows(
        cell.ravel(), np.arange(0, n * B + 1, B, dtype=idx), total).reshape(total, width // m, m)
    shapes: dict[tuple, list[int]] = {}
    for b, key in enumerate(shape_of):
        shapes.setdefault(key, []).append(b)
    for (k, K, nr, kxs, _), members in shapes.items():
        per = max(1, _GROUP_ELEMS // max(1, k * K * sizes[members[0]]))
        for a in range(0, len(members), per):
            part = members[a:a + per]
            _values_of([chunk[b] for b in part], prod, off[part], k, K, nr, kxs)


def _values_of(plans: list[ExtrasPlan], prod: np.ndarray, starts: np.ndarray, k: int, K: int,
               nr: int, kxs: tuple) -> None:
    """The values of same-shaped ``plans`` from their rows of the product ``prod`` (cells ×
    L × m; plan g's cells start at ``starts[g]``): as :meth:`FastEngine._counts_rows` then
    :meth:`FastEngine._values` give them for each plan alone. Each set's cells are sums of
    the joint cells (t, S, x_1, …), taken in float32 (exact: integers below 2^24), and every
    feature is valued: a plan takes its columns' values (each value depends on its column's
    counts only)."""
    G = len(plans)
    L, m = prod.shape[1:]
    N2 = 2 * plans[0].joint[1]
    a = int(starts[0])
    if int(starts[-1]) == a + (G - 1) * N2:  # the plans' cells follow one another: a slice
        joint = prod[a:a + G * N2]
    else:
        joint = prod[(starts[:, None] + np.arange(N2)[None, :]).ravel()]
    joint = joint.reshape(G, 2 * nr, *kxs, L, m)  # cells (t, S, x_1, …, x_p)
    if K - 1 < L:
        joint = joint[..., :K - 1, :]
    eng = plans[0].engine
    x_axes = tuple(range(2, 2 + len(kxs)))
    if plans[0].lead is not None:
        lead_ts = np.stack([p.lead[2] for p in plans])
        lead, margin = _counts(_sum_axes(joint, *x_axes), lead_ts)
        v1 = _values_many(lead, lead_ts, nr, eng, margin=margin)
        _screen(plans, v1)
        live = []
        for g, p in enumerate(plans):
            if not p.pick.any():  # nothing screened: no extra is tested
                p.done = True
                continue
            p.sel = p.cols[p.pick]
            live.append(g)
        if not live:
            return
        if len(live) < G:
            joint, plans = joint[live], [plans[g] for g in live]
    for i, kx in enumerate(kxs):
        other = x_axes[:i] + x_axes[i + 1:]
        ts = np.stack([p.cell_of[i][2] for p in plans])
        ci, margin = _counts(_sum_axes(joint, *other) if other else joint, ts)
        vals = _values_many(ci, ts, nr * kx, eng, margin=margin)
        for g, p in enumerate(plans):
            p.out[i] = vals[g][p.sel]


def _screen(plans: list[ExtrasPlan], v1: np.ndarray) -> None:
    """Each plan's screen: its columns' values ``v1[g][p.cols]`` and the mask ``p.keep``
    gives them. Plans sharing one elementwise ``keep`` (``keep.elementwise``, such as
    :class:`AtMost`) are screened in one call."""
    by_keep: dict[int, list[int]] = {}
    for g, p in enumerate(plans):
        if getattr(p.keep, "elementwise", False):
            by_keep.setdefault(id(p.keep), []).append(g)
        else:
            p.v1 = v1[g][p.cols]
            p.pick = np.asarray(p.keep(p.v1), dtype=bool)
    for members in by_keep.values():
        sizes = [plans[g].cols.size for g in members]
        vals = v1[np.repeat(members, sizes), np.concatenate([plans[g].cols for g in members])]
        mask = np.asarray(plans[members[0]].keep(vals), dtype=bool)
        a = 0
        for g, k in zip(members, sizes, strict=True):
            plans[g].v1, plans[g].pick = vals[a:a + k], mask[a:a + k]
            a += k


def single_values(requests: list[tuple]) -> list[tuple[float, int, bool]]:
    """I(t; V_f | S) for many requests ``(engine, target, f, S)`` (S: a list of pool columns
    whose mixed-radix code has at most :data:`SINGLE_STATES` states), each on its own
    :class:`~camcf.fast_engine.FastEngine`: ``(value, strata of S, whether the value was read
    from the tables)`` per request, bit for bit what the backward walk's single value
    (:class:`camcf.fast_walk.FastLeaveOneOut`) gives (S empty: the table's value).

    The walk numbers the strata of S by first appearance (any exact code of S gives the same
    numbers): here the counts of (code of S, code of f, t) of the requests whose f has one
    number of codes come from one bincount, and each request's strata are then put in order
    of first appearance; the values of requests of one shape (strata, codes of f) come from
    one :func:`camcf.info.cmi_from_counts` call, each table summed alone, in the same order."""
    out: list = [None] * len(requests)
    by_k: dict[int, list[int]] = {}
    for i, (eng, target, f, S) in enumerate(requests):
        if not len(S):
            out[i] = (eng._table_value(int(f), target), 1, True)
        else:
            by_k.setdefault(int(eng.card[f]), []).append(i)
    for k, todo in by_k.items():
        _single_values(requests, todo, k, out)
    return out


_PREFIX = 64  # rows in which the first appearance of every code is looked for first


def _single_values(requests: list[tuple], todo: list[int], k: int, out: list) -> None:
    """:func:`single_values` of the requests ``todo``, whose f has ``k`` codes."""
    eng0 = requests[todo[0]][0]
    n, G, m = eng0.n, len(todo), eng0.m
    # each request's key per row: ((request·B + code of S)·k + code of f)·2 + t, the code of
    # S mixed-radix over its columns; as a sum of the pool columns read times their places
    cols: list[int] = []  # per request: t (as a pool column), f, then S's columns
    places: list[int] = []
    sizes = []
    B = 1
    for i in todo:
        eng, target, f, S = requests[i]
        cols += [m + int(target), int(f)]
        places += [1, 2]
        place = 2 * k
        for c in S:
            cols.append(int(c))
            places.append(place)
            place *= int(eng.card[c])
        sizes.append(len(S) + 2)
        B = max(B, place // (2 * k))
    X, C = eng0.X, eng0.C
    col = np.array(cols, dtype=np.int64)
    dt = next(t for t in (np.int16, np.int32, np.int64) if G * B * k * 2 <= np.iinfo(t).max)
    M = np.empty((col.size, n), dtype=dt)
    if isinstance(X, np.ndarray) and all(requests[i][0].X is X and requests[i][0].C is C
                                         for i in todo):  # one dense X and C: read at once
        feat = col < m
        M[feat] = X[:, col[feat]].T
        M[~feat] = C[:, col[~feat] - m].T
    else:
        at = 0
        for i, size in zip(todo, sizes, strict=True):
            M[at:at + size] = requests[i][0].rows_of(col[at:at + size])
            at += size
    M *= np.array(places, dtype=dt)[:, None]
    starts = np.zeros(G, dtype=np.int64)
    np.cumsum(sizes[:-1], out=starts[1:])
    size = np.array(sizes)
    key = M[starts] + M[starts + 1]
    for j in range(2, int(size.max())):  # the columns of S, position by position
        more = np.flatnonzero(size > j)
        if more.size == G:
            key += M[starts + j]
        else:
            key[more] += M[starts[more] + j]
    key += (np.arange(G, dtype=dt) * (B * k * 2))[:, None]
    counts = np.bincount(key.ravel(), minlength=G * B * k * 2).reshape(G, B, k, 2)
    present = (counts.reshape(G, B, 2 * k) > 0).any(axis=2)
    # each code of S's first row: looked for in the first rows, then in all when one is not
    first = np.full(G * B, n, dtype=np.int64)
    P = min(n, _PREFIX)
    np.minimum.at(first, key[:, :P].ravel() // (2 * k),
                  np.tile(np.arange(P, dtype=np.int64), G))
    if np.any(present.ravel() & (first == n)):
        np.minimum.at(first, key.ravel() // (2 * k), np.tile(np.arange(n, dtype=np.int64), G))
    first = first.reshape(G, B)
    order = np.argsort(first, axis=1, kind="stable")  # present codes first, as they appear
    ns = np.count_nonzero(present, axis=1).tolist()
    shapes: dict[int, list[int]] = {}
    for g, s in enumerate(ns):
        shapes.setdefault(s, []).append(g)
    tab = eng0._tab
    for s, members in shapes.items():
        rows = np.asarray(members)
        c = counts[rows[:, None], order[rows, :s]]  # (requests, strata, code of f, t)
        ts = _sum_axes(c, 2)  # (stratum, t)
        vals = cmi_from_counts(c, n, margins=(c[..., 0] + c[..., 1], ts, ts[..., 0] + ts[..., 1]),
                               batch=1, table=tab)
        for g, v in zip(members, np.atleast_1d(vals).tolist(), strict=True):
            out[todo[g]] = (v, s, False)


SINGLE_STATES = 1 << 12  # joint states of S up to which single_values counts it (the walk's
# exact code; beyond, the walk numbers S's strata from its row hash)


class AtMost:
    """A screen's ``keep`` for :meth:`camcf.info.Engine.screen_then_extras`: the values whose
    rounded value (:func:`camcf.info.rounded`) is at most ``limit``. Elementwise: the plans
    of many targets sharing one are screened in one call (:func:`_screen`)."""

    elementwise = True

    def __init__(self, limit: float) -> None:
        self.limit = limit

    def __call__(self, v) -> np.ndarray:
        return rounded(v) <= self.limit


def _counts(cells: np.ndarray, ts_counts: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Counts (G × m × K × 2S, int64) of (feature, code, t, stratum) from float32 counts
    ``cells`` (G × (t, stratum …) × (K − 1) × m) of the codes ≥ 1 (code 0 is the remainder of
    each cell, ``ts_counts``: G × 2S), and their sums over t (G × m × K × S, the margin
    :func:`_values_many` takes). Both are laid out in the cells' order first (every code, in
    float32: integers below 2^24, exact), then transposed once each."""
    G, m = cells.shape[0], cells.shape[-1]
    K1 = cells.shape[-2]
    c = cells.reshape(G, -1, K1, m)
    C = c.shape[1]
    full = np.empty((G, C, K1 + 1, m), dtype=np.float32)
    full[:, :, 1:, :] = c
    ones = _sum_axes(c, 2) if K1 > 1 else c[:, :, 0]  # the codes ≥ 1
    np.subtract(ts_counts[:, :, None], ones, out=full[:, :, 0, :], casting="unsafe")
    out = np.empty((G, m, K1 + 1, C), dtype=np.int64)
    out[:] = full.transpose(0, 3, 2, 1)
    half = full.reshape(G, 2, C // 2, K1 + 1, m)
    margin = np.empty((G, m, K1 + 1, C // 2), dtype=np.int64)
    margin[:] = (half[:, 0] + half[:, 1]).transpose(0, 3, 2, 1)
    return out, margin


def _values_many(counts: np.ndarray, ts_counts: np.ndarray, S: int, eng,
                 n_live: int | None = None, *, margin: np.ndarray | None = None) -> np.ndarray:
    """:meth:`FastEngine._values` of G tables at once: counts (G × k × K × 2S) of
    (variable, code, t, stratum), ``ts_counts`` (G × 2S) of (t, stratum), the strata from
    ``n_live`` on (default none) left out, as ``_values`` leaves out the extra stratum of the
    dead ones; G × k values, each bit for bit its table's value alone. ``margin``: the
    counts summed over t (G × k × K × S) when the caller has them (:func:`_counts`)."""
    G, k, K = counts.shape[:3]
    c5 = counts.reshape(G, k, K, 2, S)
    tsm = ts_counts.reshape(G, 2, S)
    if n_live is not None and n_live < S:
        c5, tsm = c5[..., :n_live], tsm[..., :n_live]
        margin = None if margin is None else margin[..., :n_live]
    az = c5[:, :, :, 0] + c5[:, :, :, 1] if margin is None else margin
    return cmi_from_counts(c5, eng.n, margins=(az, tsm[:, None], (tsm[:, 0] + tsm[:, 1])[:, None]),
                           batch=2, table=eng._tab)


__all__ = ["SINGLE_STATES", "AtMost", "ExtrasPlan", "cmi_many_batch", "extras_plan",
           "extras_plans", "joint_cells", "joint_cells_many", "joint_extras", "lead_cells",
           "lookups_many", "screen_plan", "screen_plans", "screen_then_extras_many",
           "single_values"]
