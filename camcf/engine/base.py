"""What the phases ask of an information engine (:class:`Engine`, :class:`Given`) and the
parts every engine shares (:class:`EngineBase`).

Variables are *pool indices*: ``0..m−1`` the features, ``m..m+C−1`` the label categories in
flattened order; a target is a category id (its pool index is ``m + target``). Every value is
the plug-in (conditional) mutual information in bits.
"""

from __future__ import annotations

import abc
from collections.abc import Sequence
from typing import ClassVar, Protocol, runtime_checkable

import numpy as np


@runtime_checkable
class Given(Protocol):
    """I(t; · | S) for one target t while the conditioning set S grows and shrinks.

    ``cond`` lists S's pool indices in the order they were added.
    """

    target: int
    cond: list[int]

    def values(self, cols: Sequence[int], stop_above: float | None = None) -> np.ndarray:
        """I(t; V_j | S) for the pool columns ``cols`` in turn. With ``stop_above``, the
        columns after the first whose value, rounded to 12 decimals, exceeds it are not
        measured (the result is then shorter)."""
        ...

    def values_with(self, cols: Sequence[int], *, add: int | None = None,
                    remove: int | None = None) -> tuple[np.ndarray, int]:
        """(I(t; V_j | S') for the pool columns ``cols``, the strata of S') where S' is S with
        the column ``add`` added or the member ``remove`` removed; S is left as it is."""
        ...

    def without(self, j: int) -> tuple[float, int]:
        """(I(t; V_j | S − j), the strata of S − j) for a member j of S."""
        ...

    def without_each(self, cols: Sequence[int]) -> tuple[np.ndarray, np.ndarray]:
        """For each member j of ``cols`` in turn, :meth:`without` and then j removed: (the
        values, the strata), S left without the ``cols`` (a backward walk that removes them
        all; the caller adds back what it keeps)."""
        ...

    def add(self, j: int) -> None: ...

    def add_all(self, cols: Sequence[int]) -> None:
        """:meth:`add` each of ``cols`` in turn."""
        ...

    def remove(self, j: int) -> None: ...

    def strata(self) -> int:
        """The strata of S: distinct joint rows of its columns among the n rows."""
        ...

    def copy(self) -> Given: ...


@runtime_checkable
class Engine(Protocol):
    """An information engine for one run (or one target): the two unconditional tables, and
    sessions (:class:`Given`) for conditional values. An engine counts its own work
    (:meth:`stats`); the phases never touch its counters."""

    n: int
    m: int
    n_categories: int
    mirrors: bool

    def mi_table(self) -> np.ndarray:
        """I(X_f; C_c) for every feature f and category c: array m × C."""
        ...

    def category_mi_table(self) -> np.ndarray:
        """I(C_a; C_b) for every pair of categories: array C × C."""
        ...

    def lookup(self, target: int, cols: Sequence[int]) -> np.ndarray:
        """I(t; V_j) for the pool columns ``cols``, read from the tables."""
        ...

    def given(self, target: int, cond: Sequence[int] = ()) -> Given:
        """A session for ``target`` given the set ``cond``."""
        ...

    def strata(self, cond: Sequence[int]) -> int:
        """The number of strata of the set ``cond`` (1 for the empty set)."""
        ...

    def levels(self) -> np.ndarray:
        """How many distinct values each pool column takes (features, then categories)."""
        ...

    def stats(self) -> dict:
        """``{"computed": values computed by counting, "lookups": values read from the
        tables}``."""
        ...


class EngineBase(abc.ABC):
    """The tables computed once and kept, the counters, :meth:`lookup`. A subclass implements
    :meth:`given`, :meth:`strata` and the two table builders.

    An engine is per target in :func:`camcf.run`: it holds read-only shared inputs and its own
    counters. The constructor every engine of :data:`camcf.engine.ENGINES` takes:
    ``Engine(X, C, *, tables=None, **shared)`` with ``shared`` from :meth:`shared`.
    """

    #: the two categories of a binary label give identical results in every phase; an engine
    #: with ``mirrors = True`` lets :func:`camcf.run` compute one and mirror the other
    mirrors: ClassVar[bool] = True

    def __init__(self, n: int, m: int, n_categories: int,
                 tables: tuple[np.ndarray, np.ndarray] | None = None) -> None:
        self.n, self.m, self.n_categories = int(n), int(m), int(n_categories)
        self.computed = 0
        self.lookups = 0
        self._mi_table, self._cat_table = tables if tables is not None else (None, None)

    @classmethod
    def shared(cls, X, C: np.ndarray, ones: np.ndarray | None = None, beside=None) -> dict:
        """Read-only inputs every per-target engine of a run shares, built once by
        :func:`camcf.run` and passed to each engine's constructor as keywords (a tuple value is
        a group of arrays). ``beside(fn)``, when given, runs ``fn()`` on another thread."""
        return {}

    def stats(self) -> dict:
        return {"computed": self.computed, "lookups": self.lookups}

    def mi_table(self) -> np.ndarray:
        if self._mi_table is None:
            self._mi_table = self.table_part("features", 0, self.m)
        return self._mi_table

    def category_mi_table(self) -> np.ndarray:
        if self._cat_table is None:  # (as a parallel run assembles it from its parts)
            part = self.table_part("categories", 0, self.n_categories)
            self._cat_table = np.ascontiguousarray(part.T)
        return self._cat_table

    def table_part(self, which: str, start: int, stop: int) -> np.ndarray:
        """Rows ``start``..``stop`` − 1 of the MI table (``which="features"``), or columns of
        the category table, each as a row (``"categories"``), bit for bit. A parallel run
        computes the tables in such parts."""
        if which not in ("features", "categories"):
            raise ValueError(f"which must be 'features' or 'categories', got {which!r}")
        lo = 0 if which == "features" else self.m
        return self._mi_block(lo + int(start), lo + int(stop))

    @abc.abstractmethod
    def _mi_block(self, lo: int, hi: int) -> np.ndarray:
        """I(V_a; C_c) for pool columns a in lo..hi − 1 (rows) and every category c."""

    def lookup(self, target: int, cols) -> np.ndarray:
        cols = np.asarray(cols, dtype=np.int64)
        out = np.empty(cols.size)
        feat = cols < self.m
        out[feat] = self.mi_table()[cols[feat], target]
        out[~feat] = self.category_mi_table()[cols[~feat] - self.m, target]
        self.lookups += cols.size
        return out

    @abc.abstractmethod
    def given(self, target: int, cond: Sequence[int] = ()) -> Given: ...

    @abc.abstractmethod
    def strata(self, cond: Sequence[int]) -> int: ...
