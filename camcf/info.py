"""Plug-in information measures in bits, and the engines that evaluate them for Ca-MCF.

Every quantity is the plug-in estimate from empirical frequencies. A set of variables is one
joint variable whose states are its distinct rows. With ``S(T) = Σ_cells c·log2(c)`` over a
table T of counts, ``H(A) = log2(n) − S(A)/n`` and therefore

    I(A; B | Z) = H(A,Z) + H(B,Z) − H(Z) − H(A,B,Z) = (S(A,B,Z) + S(Z) − S(B,Z) − S(A,Z)) / n

(with Z empty, ``S(Z) = n·log2(n)``). :func:`cmi_from_counts` is that formula, and every way
of counting below ends in it; the engines differ only in how they get the counts.

The engine interface (:class:`Engine`) is what the phases (:mod:`camcf.phases`) ask of an
engine; :class:`EngineBase` implements the parts that follow from the others, and
:class:`LeaveOneOut` is the backward-elimination session. :data:`camcf.engines.ENGINES` names
the engines :func:`camcf.run` can use:

* ``"fast"`` — :class:`camcf.fast_engine.FastEngine`: many candidate variables against one
  conditioning set in a single ``np.bincount`` pass, unconditional MI from one sparse matrix
  product, joint codes of conditioning sets by 64-bit row hashing (the default).
* ``"reference"`` — :class:`ReferenceEngine` computes every quantity separately from its
  contingency table with ``np.unique(axis=0)``: the straightforward reading of the definitions.
  Tests check that both engines take the same decisions; the benchmark measures the difference
  in speed.

Scores are compared after rounding to :data:`DECIMALS` decimal places (SPEC.md), see
:func:`rounded`.
"""

from __future__ import annotations

import abc
import sys
from collections.abc import Sequence
from typing import ClassVar, Protocol, runtime_checkable

import numpy as np

from ._sparse import issparse

DECIMALS = 12
_SCALE = 10.0**DECIMALS
_CELL_BUDGET = 1 << 22  # contingency cells per bincount chunk (~32 MB of int64)
_ELEM_BUDGET = 1 << 22  # elements of one n × k block of codes or indices (~32 MB of int64)
_SORT_UP_TO = 1024  # values up to which _compact numbers first appearances by a sort
_JOINT_CACHE_BYTES = 64 << 20  # joint codes of conditioning sets kept per engine


def rounded(v):
    """Round scores to 12 decimals so that mathematically equal scores tie (SPEC.md).

    Arrays go through ``np.round``; a Python/numpy float takes the same steps (scale by 10^12,
    round half to even, unscale) without the array machinery, so both give identical values.
    """
    if isinstance(v, float):
        if v != v or v in (np.inf, -np.inf):
            return v
        return round(v * _SCALE) / _SCALE
    return np.round(v, DECIMALS)


def _xlogx(counts: np.ndarray) -> np.ndarray:
    c = counts.astype(np.float64)
    out = np.zeros_like(c)
    pos = c > 0
    out[pos] = c[pos] * np.log2(c[pos])
    return out


def _sum_xlogx(x, batch: int, table: np.ndarray | None, starts) -> np.ndarray:
    """S(x) = Σ c·log2(c) over the cells of x: per leading index (the first ``batch`` axes),
    or with ``starts`` per run of rows of the first axis."""
    if table is None:
        v = _xlogx(np.asarray(x))
    elif isinstance(x, np.ndarray) and x.size >= _TAKE_FROM:
        v = table.take(x)  # the same gather as table[x], about a third faster on large arrays
    else:
        v = table[x]
    if starts is not None:
        per = _row_sums(v.reshape(v.shape[0], -1)) if v.ndim > 1 else v
        return np.add.reduceat(per, starts)
    if v.ndim != batch + 1:
        v = v.reshape(v.shape[:batch] + (-1,))
    if v.shape[-1] < _SEQUENTIAL and v.size >= _SLICES_FROM * v.shape[-1]:
        return _row_sums(v)  # many short rows: slice by slice
    return v.sum(axis=-1)


_TAKE_FROM = 1024  # cells from which _sum_xlogx gathers with take (below, indexing is faster)
_SEQUENTIAL = 8  # numpy sums fewer elements than this in order (pairwise from 8 on)
_SLICES_FROM = 128  # rows from which _sum_xlogx sums rows of fewer than 8 slice by slice


def _row_sums(w: np.ndarray) -> np.ndarray:
    """``w.sum(axis=-1)`` of a float array, bit for bit: a few columns are added slice by
    slice, in the order numpy's reduction adds them (several times faster than a reduction
    over a short inner axis). ``w`` may be a view in any layout (a transposed block): the
    reduction itself always runs over a row-major copy, so it adds as it does for one."""
    k = w.shape[-1]
    if k < 2 or k >= _SEQUENTIAL:
        return np.ascontiguousarray(w).sum(axis=-1)
    out = w[..., 0] + w[..., 1]
    for i in range(2, k):
        out += w[..., i]
    return out


def cmi_from_counts(counts, n=None, *, margins=None, batch: int | None = None, starts=None,
                    table: np.ndarray | None = None):
    """I(A; B | Z) in bits, the plug-in estimate, from the counts of its contingency table.

    ``(S(A,B,Z) + S(Z) − S(B,Z) − S(A,Z)) / n`` with ``S(T) = Σ_cells c·log2(c)``: the one
    formula every counting path of this module ends in.

    Parameters
    ----------
    counts : array of non-negative integer counts, shape (..., Z, A, B)
        Counts of (z, a, b); leading axes index separate tables (one value each). With Z empty
        there is one stratum (Z of size 1).
    n : number, optional
        The denominator (default: each table's total). A stratum in which A or B is constant
        contributes exactly 0, so a caller that leaves such strata out of ``counts`` passes the
        full number of samples.
    margins : (az, bz, z), optional
        Counts of (a, z), (b, z) and z when the caller has them (then ``counts`` may be laid out
        in any order of its cells, and ``batch`` says how many leading axes index tables); a
        margin with leading axes of size 1 is shared by every table. Default: summed from
        ``counts``.
    batch : int, optional
        Number of leading axes (default ``counts.ndim − 3``).
    starts : array of int, optional
        Ragged tables: ``counts`` (NZ, A, B) stacks the strata of several tables, table i owning
        the strata ``starts[i]`` up to the next start (every table at least one); the margins
        are then (NZ, A), (NZ, B) and (NZ,). One value per table.
    table : array, optional
        ``table[c] = c·log2(c)`` for every count that occurs (faster than logarithms).

    Returns
    -------
    ndarray (or float for a single table)

    Examples
    --------
    >>> round(float(cmi_from_counts(np.array([[[5, 0], [0, 5]]]))), 12)  # A = B, one bit
    1.0
    """
    c = np.asarray(counts)
    if margins is None:
        az = c.sum(axis=-1)
        bz = c.sum(axis=-2)
        z = az.sum(axis=-1)
    else:
        az, bz, z = margins
    if batch is None:
        batch = 0 if starts is not None else c.ndim - 3
    if n is None:
        z_arr = np.asarray(z)
        n = (np.add.reduceat(z_arr, starts) if starts is not None
             else z_arr.reshape(z_arr.shape[:batch] + (-1,)).sum(axis=-1))
    out = (_sum_xlogx(c, batch, table, starts) + _sum_xlogx(z, batch, table, starts)
           - _sum_xlogx(bz, batch, table, starts) - _sum_xlogx(az, batch, table, starts)) / n
    return float(out) if np.ndim(out) == 0 else out


def _sum_axes(a: np.ndarray, *axes: int) -> np.ndarray:
    """``a.sum(axis=axes)`` of an integer array by adding its slices along each short axis in
    turn (numpy's reduction over a few elements of an inner axis is several times slower; an
    integer sum is exact in any order)."""
    for axis in sorted(axes, reverse=True):
        k = a.shape[axis]
        before = (slice(None),) * axis
        if k < 2:
            a = a[before + (0,)].copy() if k else np.zeros(a.shape[:axis] + a.shape[axis + 1:],
                                                          a.dtype)
            continue
        out = a[before + (0,)] + a[before + (1,)]
        for i in range(2, k):
            out += a[before + (i,)]
        a = out
    return a


def _n_distinct(values: np.ndarray) -> int:
    """How many distinct values a 1-D array holds (a sort for short arrays, a hash table for
    long ones)."""
    v = np.asarray(values).ravel()
    if v.size > 1 << 16:
        import pandas as pd

        return int(pd.unique(v).size)
    return int(_n_distinct_rows(v[None, :])[0])


def _n_distinct_rows(values: np.ndarray) -> np.ndarray:
    """How many distinct values each row of a 2-D array holds (one sort of the block)."""
    if values.shape[1] == 0:
        return np.zeros(values.shape[0], dtype=np.int64)
    s = _sorted_rows(values) if values.dtype.kind in "iu" else np.sort(values, axis=1)
    return 1 + np.count_nonzero(s[:, 1:] != s[:, :-1], axis=1)


_SORT_RUN = 256  # values per run sorted alone (see _sorted_rows)


def _sorted_rows(values: np.ndarray) -> np.ndarray:
    """``np.sort(values, axis=1)`` of a 2-D integer array. numpy sorts runs of up to 256
    values several times faster per value than longer ones, so a longer row is padded to a
    multiple of 256 with the type's largest value (which sorts after, or ties with, every
    value), each run is sorted alone and the sorted runs are merged by a stable sort
    (timsort, which merges the runs it finds); the first columns of the sorted block are
    the sorted rows."""
    R, r = values.shape
    if r <= _SORT_RUN:
        return np.sort(values, axis=1)
    width = -(-r // _SORT_RUN) * _SORT_RUN
    block = np.empty((R, width), dtype=values.dtype)
    block[:, r:] = np.iinfo(values.dtype).max
    block[:, :r] = values
    block.reshape(R, width // _SORT_RUN, _SORT_RUN).sort(axis=2)
    block.sort(axis=1, kind="stable")
    return block[:, :r]


def pool_levels(X, C: np.ndarray, ones: np.ndarray | None = None) -> np.ndarray:
    """How many distinct values occur in each pool column: the features of X (dense or sparse),
    then the category indicators of C (2, or 1 when an indicator is constant). ``ones``: the
    ones of each column of C when known (else counted)."""
    n, m = X.shape
    out = np.empty(m + C.shape[1], dtype=np.int64)
    if n == 0:
        out[:] = 0
        return out
    if issparse(X):
        import scipy.sparse as sp

        Xc = sp.csc_matrix(X)
        nnz = np.diff(Xc.indptr)
        data = Xc.data
        if _small_codes(data):
            K = int(data.max()) + 1 if data.size else 1
            col = np.repeat(np.arange(m), nnz)
            seen = np.bincount(col * K + data.astype(np.int64), minlength=m * K).reshape(m, K)
            seen[:, 0] = nnz < n  # code 0 occurs where a column stores fewer than n entries
            out[:m] = np.count_nonzero(seen, axis=1)
        else:  # any values: the distinct stored ones, and 0 where an entry is not stored
            for j in range(m):
                u = np.unique(data[Xc.indptr[j]:Xc.indptr[j + 1]])
                out[j] = u.size + bool(nnz[j] < n and not (u == 0).any())
    elif m:
        A = np.asarray(X)
        if A.dtype.kind in "ub" and int(A.max()) < _FEW_CODES:
            # few small codes: one comparison per code over the n × m codes (no int64 copy)
            out[:m] = 0
            block = max(1, _ELEM_BUDGET // max(n, 1))
            for a in range(0, m, block):
                part = A[:, a:a + block]
                for v in range(int(part.max()) + 1):
                    out[a:a + part.shape[1]] += (part == v).any(axis=0)
        elif _small_codes(A):
            K = int(A.max()) + 1
            block = max(1, _ELEM_BUDGET // max(n, 1))
            for a in range(0, m, block):
                part = A[:, a:a + block].astype(np.int64)
                part += (np.arange(part.shape[1]) * K)[None, :]
                seen = np.bincount(part.ravel(order="K"), minlength=part.shape[1] * K)
                out[a:a + part.shape[1]] = np.count_nonzero(seen.reshape(-1, K), axis=1)
        else:
            out[:m] = [np.unique(A[:, j]).size for j in range(m)]
    if ones is None:
        ones = np.asarray(C).sum(axis=0, dtype=np.int64)
    out[m:] = 1 + ((ones > 0) & (ones < n))
    return out


_FEW_CODES = 16  # codes below which pool_levels compares the codes value by value


def _small_codes(a: np.ndarray) -> bool:
    """Integers in 0..2^16 − 1 (countable with one bincount)."""
    return a.size == 0 or (a.dtype.kind in "iub" and int(a.min()) >= 0 and int(a.max()) < 1 << 16)


def _compact(codes: np.ndarray, *, sort: bool = True) -> tuple[np.ndarray, int]:
    """Distinct values of a 1-D array as codes 0..k−1.

    With ``sort`` the codes follow the values' order (``np.unique``), so that sums over strata
    run in a fixed order; without, they are numbered in order of first appearance
    (``pandas.factorize``'s hash table, no sort of the n rows; up to ``_SORT_UP_TO`` values,
    while pandas is not loaded, a sort gives the same numbers without loading it).
    """
    codes = np.asarray(codes).ravel()
    if sort:
        uniq, inv = np.unique(codes, return_inverse=True)
    elif codes.size <= _SORT_UP_TO and "pandas" not in sys.modules:
        # small: a sort gives the same numbers without loading pandas (once pandas is loaded,
        # its hash table is about twice as fast here too)
        uniq, first, inv = np.unique(codes, return_index=True, return_inverse=True)
        rank = np.empty(first.size, dtype=np.int64)
        rank[np.argsort(first)] = np.arange(first.size)  # numbered by first appearance
        inv = rank[inv.ravel()]
    else:
        import pandas as pd

        inv, uniq = pd.factorize(codes, sort=False)
    return inv.astype(np.int64, copy=False).ravel(), int(len(uniq))


def _first_appearance(codes: np.ndarray, bound: int) -> tuple[np.ndarray, int]:
    """:func:`_compact` ``(codes, sort=False)`` of integer codes in 0..bound−1 with a small
    bound: the distinct codes numbered in order of first appearance, from the first position
    of each code (no hash table, no sort of the n rows)."""
    n = codes.size
    first = np.full(bound, n, dtype=np.int64)
    np.minimum.at(first, codes, np.arange(n))
    present = np.flatnonzero(first < n)
    label = np.empty(bound, dtype=np.int64)
    label[present[np.argsort(first[present])]] = np.arange(present.size)
    return label[codes], int(present.size)


def smallest_uint(max_value: int) -> np.dtype:
    """The smallest unsigned integer type holding 0..max_value."""
    for dt in (np.uint8, np.uint16, np.uint32):
        if max_value <= np.iinfo(dt).max:
            return np.dtype(dt)
    return np.dtype(np.uint64)


def joint_codes(columns: np.ndarray) -> tuple[np.ndarray, int]:
    """Code the distinct rows of ``columns`` (n × k) as 0..ns−1, exactly (no hashing)."""
    columns = np.asarray(columns)
    n = columns.shape[0]
    if columns.ndim == 1:
        columns = columns[:, None]
    if columns.shape[1] == 0:
        return np.zeros(n, dtype=np.int64), 1
    _, inv = np.unique(columns, axis=0, return_inverse=True)
    inv = inv.ravel().astype(np.int64)
    return inv, int(inv.max()) + 1 if n else 0


def entropy(*variables: np.ndarray) -> float:
    """Joint plug-in entropy H(A, B, …) in bits of 1-D (or 2-D, one column a variable) arrays."""
    cols = np.column_stack([np.asarray(v) for v in variables])
    codes, _ = joint_codes(cols)
    n = codes.size
    counts = np.bincount(codes)
    return float(np.log2(n) - _xlogx(counts).sum() / n)


def contingency(a, b, cond=None) -> np.ndarray:
    """The counts of (stratum of ``cond``, a, b): array (Z, A, B) over the distinct values of
    each (strata in the order of their rows' values; Z = 1 when ``cond`` is None or empty)."""
    a = np.asarray(a)
    b = np.asarray(b)
    n = a.shape[0]
    if cond is None or np.asarray(cond).size == 0:
        z, nz = np.zeros(n, dtype=np.int64), 1
    else:
        z, nz = joint_codes(np.asarray(cond))
    ia, na = joint_codes(a)
    ib, nb = joint_codes(b)
    flat = (z * na + ia) * nb + ib
    return np.bincount(flat, minlength=nz * na * nb).reshape(nz, na, nb)


def conditional_mutual_information(a, b, cond=None) -> float:
    """I(A; B | Z) in bits; ``cond`` is None, a 1-D array or an n × k array of variables
    (:func:`cmi_from_counts` of :func:`contingency`)."""
    if np.asarray(a).shape[0] == 0:
        return 0.0
    return cmi_from_counts(contingency(a, b, cond))


def mutual_information(a, b) -> float:
    """I(A; B) in bits."""
    return conditional_mutual_information(a, b, None)


@runtime_checkable
class LeaveOneOutSession(Protocol):
    """Backward elimination over ``members`` given ``fixed`` (see :meth:`Engine.leave_one_out`).

    ``value(f)`` is I(t; V_f | (members − f) ∪ fixed) for the members at the time of the call,
    ``values_given(cols, f)`` the same for the columns ``cols`` (as ``cmi_many`` gives them);
    ``remove(f)`` drops f from the members for later calls; ``walk(order)`` yields
    ``(f, value(f))`` for the members ``order`` in turn, the caller removing each f it prunes
    before taking the next (``strata=True`` tells the session that ``strata(f)`` will be asked
    of the values it yields, so that it may count them with the values); ``strata(f)`` is the
    number of strata of (members − f) ∪ fixed, the set ``value(f)`` conditions on (asked right
    after the value, before any removal). ``runs(order)`` is the walk in runs
    ``(fs, values, strata_of)``: ``values[j]`` conditions on (members − fs[:j + 1]) ∪ fixed
    (the members before it assumed removed), ``strata_of(j)`` counts that set's strata; the
    caller removes a prefix of ``fs`` (``remove_many``), and the next run starts after the
    first member it keeps (or after ``fs``).
    """

    members: list[int]

    def value(self, f: int) -> float: ...

    def values_given(self, cols: Sequence[int], f: int) -> np.ndarray: ...

    def remove(self, f: int) -> None: ...

    def remove_many(self, fs: Sequence[int]) -> None: ...

    def walk(self, order: Sequence[int], strata: bool = False): ...

    def runs(self, order: Sequence[int], strata: bool = False): ...

    def strata(self, f: int) -> int: ...


@runtime_checkable
class Engine(Protocol):
    """What the phases of Ca-MCF ask of an information engine, for one run (or one target).

    Variables are *pool indices*: ``0..m−1`` the features, ``m..m+C−1`` the label categories
    in flattened order; a target is a category id (its pool index is ``m + target``). Every
    value is the plug-in (conditional) mutual information in bits (:func:`cmi_from_counts`).
    An engine counts its own work (:meth:`stats`); the phases never touch its counters.

    :class:`EngineBase` provides :meth:`cmi_each_extra`, :meth:`leave_one_out`,
    :meth:`strata`, the two tables' caching and the counters from :meth:`cmi_many` and two
    table builders; :class:`FastEngine` and :class:`ReferenceEngine` are the implementations
    :data:`ENGINES` names.
    """

    n: int  # samples
    m: int  # features
    n_categories: int

    def mi_table(self) -> np.ndarray:
        """I(X_f; C_c) for every feature f and category c: array m × C."""
        ...

    def category_mi_table(self) -> np.ndarray:
        """I(C_a; C_b) for every pair of categories: array C × C."""
        ...

    def cmi_many(self, target: int, variables: Sequence[int], cond: Sequence[int]
                 ) -> np.ndarray:
        """I(t; V_j | S) for every pool column j in ``variables`` (S = ``cond``)."""
        ...

    def cmi_each_extra(self, target: int, variables: Sequence[int], extras: Sequence[int],
                       fixed: Sequence[int]) -> list[np.ndarray]:
        """For each x in ``extras``: I(t; V_j | {x} ∪ fixed) for every j in ``variables``."""
        ...

    def screen_then_extras(self, target: int, variables: Sequence[int], fixed: Sequence[int],
                           extras: Sequence[int], keep, given: np.ndarray | None = None
                           ) -> tuple[np.ndarray, np.ndarray, list[np.ndarray]]:
        """A screen (``given`` or I(t; V_j | fixed)), the mask ``keep(v1)``, then
        I(t; V_j | {x} ∪ fixed) for the kept j and each x in ``extras``
        (:meth:`EngineBase.screen_then_extras`)."""
        ...

    def leave_one_out(self, target: int, members: Sequence[int], fixed: Sequence[int]
                      ) -> LeaveOneOutSession:
        """A backward-elimination session (:class:`LeaveOneOutSession`)."""
        ...

    def strata(self, cond: Sequence[int]) -> int:
        """The number of strata of the set ``cond``: distinct joint rows of its columns among
        the n rows (1 for the empty set)."""
        ...

    def stats(self) -> dict:
        """Counters of the engine's own work: ``{"computed": quantities computed by counting
        (conditional ones, measured speculatively or not), "lookups": values read from the
        unconditional tables}``."""
        ...


class EngineBase(abc.ABC):
    """A base for engines: the tables computed once and kept, the counters, and the methods of
    :class:`Engine` that follow from :meth:`cmi_many`. A subclass implements
    :meth:`cmi_many` and the two table builders, and calls :meth:`_counted` for what it
    computes or reads.

    An engine is per target in :func:`camcf.run`: it holds read-only shared inputs (the codes,
    the indicators, the unconditional tables) and its own caches and counters, so that no state
    is shared between targets. The constructor every engine of :data:`ENGINES` takes:
    ``Engine(X, C, *, tables=None, **shared)`` with ``shared`` from :meth:`shared`.
    """

    #: the two categories of a binary label give identical results in every phase; an engine
    #: with ``mirrors = True`` lets :func:`camcf.run` compute one and mirror the other
    mirrors: ClassVar[bool] = True

    def __init__(self, n: int, m: int, n_categories: int,
                 tables: tuple[np.ndarray, np.ndarray] | None = None) -> None:
        self.n = int(n)
        self.m = int(m)
        self.n_categories = int(n_categories)
        self._computed = 0  # quantities computed by counting
        self._lookups = 0  # values read from the unconditional tables
        self._mi_table, self._cat_table = tables if tables is not None else (None, None)

    @classmethod
    def shared(cls, X, C: np.ndarray, ones: np.ndarray | None = None, beside=None) -> dict:
        """Read-only inputs every per-target engine of a run shares (computed once by
        :func:`camcf.run` and passed to each engine's constructor as keywords). ``ones``: the
        ones of each column of C when known; ``beside``: when given, ``beside(fn)`` runs
        ``fn()`` on another thread and returns its ``concurrent.futures.Future`` (a parallel
        run's preparation: the second core is free)."""
        return {}

    # -- counters ---------------------------------------------------------------------------
    def _counted(self, computed: int = 0, lookups: int = 0) -> None:
        self._computed += int(computed)
        self._lookups += int(lookups)

    def stats(self) -> dict:
        return {"computed": self._computed, "lookups": self._lookups}

    # -- the tables ------------------------------------------------------------------------
    def mi_table(self) -> np.ndarray:
        if self._mi_table is None:
            self._mi_table = self._feature_table()
        return self._mi_table

    def category_mi_table(self) -> np.ndarray:
        if self._cat_table is None:
            self._cat_table = self._category_table()
        return self._cat_table

    def table_part(self, which: str, start: int, stop: int) -> np.ndarray:
        """Rows ``start``..``stop`` − 1 of the MI table (``which="features"``), or columns
        ``start``..``stop`` − 1 of the category table, each as a row (``"categories"``): bit
        for bit ``mi_table()[start:stop]`` or ``category_mi_table()[:, start:stop].T``. A
        parallel run computes the tables in such parts; each part is then contiguous in its
        table's file (the MI table row-major, the category table column-major)."""
        if which == "features":
            return self._feature_table((int(start), int(stop)))
        if which == "categories":
            return self._category_table((int(start), int(stop)))
        raise ValueError(f"which must be 'features' or 'categories', got {which!r}")

    @abc.abstractmethod
    def _feature_table(self, rows: tuple[int, int] | None = None) -> np.ndarray:
        """I(X_f; C_c), m × C (rows a..b − 1 for ``rows=(a, b)``)."""

    @abc.abstractmethod
    def _category_table(self, cols: tuple[int, int] | None = None) -> np.ndarray:
        """I(C_a; C_b), C × C (for ``cols=(a, b)``, columns a..b − 1, each as a row: the
        transpose of that block, bit for bit)."""

    def _table_value(self, j: int, target: int) -> float:
        """I(t; V_j) from the unconditional tables."""
        if j < self.m:
            return float(self.mi_table()[j, target])
        return float(self.category_mi_table()[j - self.m, target])

    # -- what the phases ask -------------------------------------------------------------------
    @abc.abstractmethod
    def cmi_many(self, target: int, variables: Sequence[int], cond: Sequence[int]
                 ) -> np.ndarray:
        """I(t; V_j | S) for every pool column j in ``variables``."""

    def cmi_each_extra(self, target: int, variables: Sequence[int], extras: Sequence[int],
                       fixed: Sequence[int]) -> list[np.ndarray]:
        return [self.cmi_many(target, variables, [x] + list(fixed)) for x in extras]

    def screen_then_extras(self, target: int, variables: Sequence[int], fixed: Sequence[int],
                           extras: Sequence[int], keep, given: np.ndarray | None = None
                           ) -> tuple[np.ndarray, np.ndarray, list[np.ndarray]]:
        """A screen, then tests given each extra (Phase 2's spouses): v1 = ``given``, or
        I(t; V_j | fixed) for every j in ``variables`` (:meth:`cmi_many`); the mask
        ``keep(v1)``; then for each x in ``extras``, I(t; V_j | {x} ∪ fixed) for the j the mask
        keeps (:meth:`cmi_each_extra`; no extra is tested when it keeps none). Returns (v1,
        mask, the values per x). An engine may count the screen and the extras together."""
        v1 = (np.asarray(given) if given is not None
              else self.cmi_many(target, variables, fixed))
        pick = np.asarray(keep(v1), dtype=bool)
        sel = np.asarray(variables, dtype=np.int64)[pick]
        if not sel.size or not len(extras):
            return v1, pick, []
        return v1, pick, self.cmi_each_extra(target, sel, extras, fixed)

    def leave_one_out(self, target: int, members: Sequence[int], fixed: Sequence[int]
                      ) -> LeaveOneOutSession:
        return LeaveOneOut(self, target, members, fixed)

    def strata(self, cond: Sequence[int]) -> int:
        """Distinct joint rows of the pool columns ``cond`` (1 when empty). The base counts
        them with :func:`joint_codes` of :meth:`columns`."""
        cols = [int(c) for c in cond]
        if not cols:
            return 1
        return joint_codes(self.columns(np.asarray(cols)))[1]

    def columns(self, cols: np.ndarray) -> np.ndarray:
        """Pool columns ``cols`` as a dense n × k array (needed by the base :meth:`strata`)."""
        raise NotImplementedError(f"{type(self).__name__} does not give its columns; "
                                  f"override strata()")


class ReferenceEngine(EngineBase):
    """One CMI per test from its contingency table (``np.unique(axis=0)`` joint codes): the
    straightforward implementation. It computes both categories of a binary label."""

    mirrors = False

    def __init__(self, X, C: np.ndarray, *,
                 tables: tuple[np.ndarray, np.ndarray] | None = None) -> None:
        X = X.toarray() if issparse(X) else np.asarray(X)
        super().__init__(X.shape[0], X.shape[1], C.shape[1], tables)
        self.pool = np.hstack([X.astype(np.int64), np.asarray(C).astype(np.int64)])

    def columns(self, cols: np.ndarray) -> np.ndarray:
        return self.pool[:, np.asarray(cols, dtype=np.int64)]

    def _feature_table(self, rows: tuple[int, int] | None = None) -> np.ndarray:
        lo, hi = (0, self.m) if rows is None else rows
        out = np.empty((hi - lo, self.n_categories))
        for c in range(self.n_categories):
            t = self.pool[:, self.m + c]
            for f in range(lo, hi):
                out[f - lo, c] = self._cmi(self.pool[:, f], t, None)
        return out

    def _category_table(self, cols: tuple[int, int] | None = None) -> np.ndarray:
        C = self.n_categories
        if cols is None:
            return self._category_table((0, C)).T.copy()
        lo, hi = cols
        out = np.empty((hi - lo, C))
        for b in range(lo, hi):
            for a in range(C):
                out[b - lo, a] = self._cmi(self.pool[:, self.m + a], self.pool[:, self.m + b],
                                           None)
        return out

    def _cmi(self, a, b, cond_cols) -> float:
        z = None if not cond_cols else self.pool[:, list(cond_cols)]
        return conditional_mutual_information(a, b, z)

    def cmi_many(self, target, variables, cond):
        t = self.pool[:, self.m + target]
        vals = np.array([self._cmi(t, self.pool[:, j], list(cond)) for j in variables], float)
        self._counted(computed=len(vals))
        return vals


class LeaveOneOut:
    """Backward elimination, one test at a time: each value asks the engine's
    :meth:`~Engine.cmi_many` with the set spelled out (the straightforward session; engines
    may return a faster one). Implements :class:`LeaveOneOutSession`."""

    def __init__(self, engine: Engine, target: int, members: Sequence[int],
                 fixed: Sequence[int]) -> None:
        self.engine = engine
        self.target = target
        self.members = [int(g) for g in members]
        self.fixed = [int(g) for g in fixed]

    def cond(self, f: int) -> list[int]:
        """The set value(f) conditions on: (members − f) ∪ fixed."""
        return [g for g in self.members if g != f] + self.fixed

    def value(self, f: int) -> float:
        return float(self.engine.cmi_many(self.target, [f], self.cond(f))[0])

    def values_given(self, cols: Sequence[int], f: int) -> np.ndarray:
        """I(t; V_j | (members − f) ∪ fixed) for the pool columns ``cols`` (the engine's
        :meth:`~Engine.cmi_many`)."""
        return self.engine.cmi_many(self.target, cols, self.cond(int(f)))

    def strata(self, f: int) -> int:
        return self.engine.strata(self.cond(int(f)))

    def remove(self, f: int) -> None:
        self.members.remove(int(f))

    def remove_many(self, fs: Sequence[int]) -> None:
        """:meth:`remove` each of ``fs`` in turn."""
        for f in fs:
            self.remove(f)

    def runs(self, order: Sequence[int], strata: bool = False):
        """:meth:`walk` as runs of one: yields ``([f], [value(f)], strata_of)`` with
        ``strata_of(0)`` the strata of the set value(f) conditions on (see
        :class:`LeaveOneOutSession`); the caller removes f or not before the next."""
        for f in order:
            f = int(f)
            yield [f], np.array([self.value(f)]), (lambda j, f=f: self.strata(f))

    def walk(self, order: Sequence[int], strata: bool = False):
        """Yield ``(f, value(f))`` for the members ``order`` in turn; the caller may
        :meth:`remove` each f before taking the next one (backward elimination). ``strata`` is
        a hint (see :class:`LeaveOneOutSession`) this session does not need."""
        for f in order:
            yield int(f), self.value(f)


__all__ = [
    "DECIMALS", "Engine", "EngineBase", "LeaveOneOut", "LeaveOneOutSession", "ReferenceEngine",
    "cmi_from_counts", "conditional_mutual_information", "contingency", "entropy",
    "joint_codes", "mutual_information", "pool_levels", "rounded", "smallest_uint",
]
