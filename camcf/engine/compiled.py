"""The compiled engine (the default, ``engine="fast"``): the pool kept by exception, sessions
that move only the exceptions of the column added or removed, and numba kernels for the
counting (:mod:`camcf.engine.kernels`, which explains the method). Tests check that it takes
the same decisions as :class:`camcf.engine.reference.ReferenceEngine`."""

from __future__ import annotations

import functools
from collections.abc import Sequence

import numpy as np

from .._sparse import issparse
from . import kernels as K
from .base import EngineBase

HASH_SEED = 20240611
_TABLE_CELLS = 1 << 24  # joint counts of one block of a table, at most
# seconds × 1e9 per pair of exceptions met in a row's join, and per word of two bit sets ANDed
# and counted (measured here: benchmarks/bench_kernels.py)
_JOIN_NS, _WORD_NS = 1.5, 0.1


@functools.lru_cache(maxsize=4)
def _xlogx(n: int) -> np.ndarray:
    out = K.xlogx(n)
    out.flags.writeable = False
    return out


def hash_multipliers(k: int, seed: int = HASH_SEED) -> np.ndarray:
    """Random odd 64-bit multipliers, one per pool column: two different rows of a set collide
    with probability about 2^-63."""
    rng = np.random.default_rng(seed)
    return rng.integers(0, 2**63, size=k, dtype=np.uint64) * np.uint64(2) + np.uint64(1)


def build_pool(X, C: np.ndarray) -> tuple[np.ndarray, ...]:
    """The pool of a run, (ptr, rows, vals, card, mult, coff, bits): by exception (the features
    of X, dense codes or ``scipy.sparse``, then the category indicators of C), the columns'
    hash multipliers, and the rows at each value as bit sets (:func:`kernels.build_bits`)."""
    n = X.shape[0]
    if issparse(X):
        Xc = X.tocsc()
        if not Xc.has_canonical_format:  # (rows ascending, no duplicates: the kernels' input)
            Xc = Xc.copy()
            Xc.sum_duplicates()
        first = (Xc.indptr, Xc.indices, Xc.data)
    else:
        first = np.asarray(X)
    ptr, rows, vals, card = K.build_pool([first, np.asarray(C)], n)
    coff, bits = K.build_bits(ptr, rows, vals, card, n)
    return ptr, rows, vals, card, hash_multipliers(card.size), coff, bits


class CompiledEngine(EngineBase):
    """Ca-MCF's engine on the pool by exception (:func:`build_pool`); nothing here copies X."""

    def __init__(self, X, C: np.ndarray, *, tables: tuple[np.ndarray, np.ndarray] | None = None,
                 pool: tuple | None = None) -> None:
        super().__init__(X.shape[0], X.shape[1], C.shape[1], tables)
        self.pool = tuple(pool) if pool is not None else build_pool(X, C)
        self.ptr, self.rows, self.vals, self.card, self.mult, self.coff, self.bits = self.pool
        self.tab = _xlogx(self.n)

    @classmethod
    def shared(cls, X, C: np.ndarray, ones: np.ndarray | None = None, beside=None) -> dict:
        return {"pool": build_pool(X, C)}

    def _mi_block(self, lo: int, hi: int) -> np.ndarray:
        m, q, n = self.m, self.n_categories, self.n
        out = np.empty((hi - lo, q))
        cat_exc = int(self.ptr[m + q] - self.ptr[m])
        a = lo
        while a < hi:  # blocks of at most _TABLE_CELLS joint counts
            b, cells = a, 0
            while b < hi and (b == a or cells + (self.card[b] - 1) * q <= _TABLE_CELLS):
                cells += (self.card[b] - 1) * q
                b += 1
            # the join visits about exceptions(a) · exceptions(c) / n pairs of a row; the bit
            # sets AND a word per (value, category) and 64 rows (dense blocks: far fewer)
            join = (self.ptr[b] - self.ptr[a]) * cat_exc / max(n, 1) * _JOIN_NS
            by_bits = cells * ((n + 63) >> 6) * _WORD_NS < join
            out[a - lo:b - lo] = K.mi_block(self.ptr, self.rows, self.vals, self.card, self.coff,
                                            self.bits, a, b, m, m + q, n, self.tab, by_bits)
            a = b
        return out

    def strata(self, cond: Sequence[int]) -> int:
        cols = np.asarray(cond, dtype=np.int64)
        if cols.size == 0:
            return 1
        return int(K.strata_of(self.ptr, self.rows, self.vals, cols, self.mult, self.n))

    def levels(self) -> np.ndarray:
        return self.card

    def exceptions(self, j: int) -> int:
        """How many rows of pool column j are not at its mode."""
        return int(self.ptr[j + 1] - self.ptr[j])

    def given(self, target: int, cond: Sequence[int] = ()) -> CompiledGiven:
        g = CompiledGiven(self, target)
        g.add_all(list(cond))
        return g


_SPARE: dict[tuple[int, int], list[dict]] = {}  # work arrays of ended sessions, by (n, cap)
_ROW_ARRAYS = {"zt": np.int32, "seen": np.int32, "touched": np.int32}
_BIT_STRATA = 64  # strata up to which a session may count columns from bit sets
_STRATUM_ARRAYS = {"skey": np.uint64, "free": np.int32, "acc": np.float64, "dest": np.int32}
_PAIR_ARRAYS = {"sc": np.int32, "wc": np.int32, "tc": np.int32}


def _arrays(n: int, cap: int) -> dict:
    """A session's arrays for n rows and ``cap`` strata: those of an ended session when there
    is one (the kernels leave their work space as they found it), else new ones."""
    spare = _SPARE.get((n, cap))
    if spare:
        return spare.pop()
    bits = (2 * cap - 1).bit_length()  # a hash table at most half full
    out = {k: np.empty(max(n, 1), dtype=d) for k, d in _ROW_ARRAYS.items()}
    out.update({k: np.zeros(cap, dtype=d) for k, d in _STRATUM_ARRAYS.items()})
    out.update({k: np.zeros(2 * cap, dtype=d) for k, d in _PAIR_ARRAYS.items()})
    out["dest"][:] = -1
    out["sb"] = np.empty((2 * _BIT_STRATA, (n + 63) >> 6), dtype=np.uint64)
    out["occ"] = np.empty(_BIT_STRATA, dtype=np.int32)
    out["slots"] = np.empty(1 << bits, dtype=np.int32)
    out["shift"] = np.uint64(64 - bits)
    return out


class CompiledGiven:
    """A session of :class:`CompiledEngine` (:class:`camcf.engine.Given`): per row its stratum
    and t, per stratum its hash and its rows by t, a hash table of the strata
    (:mod:`camcf.engine.kernels`)."""

    def __init__(self, engine: CompiledEngine, target: int, *, _copy: CompiledGiven | None = None
                 ) -> None:
        self.engine, self.target = engine, target
        n = engine.n
        cap = _copy.cap if _copy is not None else max(1024, 1 << int(n).bit_length())
        self._take(cap)
        if _copy is not None:
            self.cond = list(_copy.cond)
            self.used = _copy.used.copy()
            for name in ("zt", "skey", "free", "sc", "slots"):
                getattr(self, name)[:] = getattr(_copy, name)
            return
        self.cond = []
        self.used = np.zeros(3, dtype=np.int64)
        e = engine
        j = e.m + target
        K.start(e.rows[e.ptr[j]:e.ptr[j + 1]], n, self.zt, self.skey, self.sc, self.slots,
                self.shift, self.used, self.free)

    def _take(self, cap: int) -> None:
        self.cap = cap
        self.__dict__.update(_arrays(self.engine.n, cap))

    def _give_back(self) -> None:
        names = (*_ROW_ARRAYS, *_STRATUM_ARRAYS, *_PAIR_ARRAYS, "slots", "shift", "sb", "occ")
        spare = _SPARE.setdefault((self.engine.n, self.cap), [])
        if len(spare) < 4:
            spare.append({k: self.__dict__[k] for k in names})

    def __del__(self) -> None:
        if "zt" in self.__dict__:
            self._give_back()

    def _room(self, more: int) -> None:
        """Make room for ``more`` strata (those that moving a column's exceptions may add)."""
        if int(self.used[0] - self.used[2]) + more <= self.cap:
            return
        old = {k: self.__dict__[k] for k in ("zt", "skey", "sc")}
        used = self.used.copy()
        keep = old["zt"].copy()
        self._give_back()
        self._take(1 << (2 * (int(used[1]) + more)).bit_length())
        self.zt[:] = keep
        K.regrow(self.zt, old["skey"], old["sc"], used, self.skey, self.sc, self.slots,
                 self.shift, self.used, self.free)

    def _move(self, j: int, add: bool) -> None:
        e = self.engine
        self._room(self.engine.exceptions(j))
        K.move(e.ptr, e.rows, e.vals, j, e.mult[j], add, self.zt, self.skey, self.sc,
               self.slots, self.shift, self.used, self.free, self.dest, self.seen)

    def add(self, j: int) -> None:
        self._move(int(j), True)
        self.cond.append(int(j))

    def add_all(self, cols) -> None:
        e = self.engine
        cols = np.asarray(cols, dtype=np.int64)
        if cols.size == 0:
            return
        exc = np.diff(e.ptr)[cols]  # (a column's move drops the strata it empties: the ids in
        self._room(int(min(exc.sum(), e.n) + exc.max()))  # use stay under n + its exceptions)
        K.move_all(e.ptr, e.rows, e.vals, cols, e.mult, self.zt, self.skey, self.sc,
                   self.slots, self.shift, self.used, self.free, self.dest, self.seen)
        self.cond.extend(cols.tolist())

    def remove(self, j: int) -> None:
        self._move(int(j), False)
        self.cond.remove(int(j))

    def strata(self) -> int:
        return int(self.used[1])

    def copy(self) -> CompiledGiven:
        return CompiledGiven(self.engine, self.target, _copy=self)

    def values(self, cols, stop_above: float | None = None) -> np.ndarray:
        e = self.engine
        cols = np.asarray(cols, dtype=np.int64)
        out = np.empty(cols.size)
        k = K.values(e.ptr, e.rows, e.vals, e.card, e.coff, e.bits, cols,
                     np.inf if stop_above is None else stop_above, self.zt, self.sc, self.used,
                     e.tab, e.n, out, self.wc, self.tc, self.acc, self.dest, self.seen,
                     self.touched, self.sb, self.occ)
        e.computed += k
        return out[:k]

    def values_with(self, cols, *, add: int | None = None, remove: int | None = None
                    ) -> tuple[np.ndarray, int]:
        e = self.engine
        j = int(add if remove is None else remove)
        if (add is None) == (remove is None):
            raise ValueError("values_with takes one of add= and remove=")
        cols = np.asarray(cols, dtype=np.int64)
        out = np.empty(cols.size)
        self._room(e.exceptions(j))
        ns = K.values_moved(e.ptr, e.rows, e.vals, e.card, e.coff, e.bits, j, e.mult[j],
                            remove is None, cols, self.zt, self.skey, self.sc, self.slots,
                            self.shift, self.used, self.free, e.tab, e.n, out, self.wc, self.tc,
                            self.acc, self.dest, self.seen, self.touched, self.sb, self.occ)
        e.computed += cols.size
        return out, int(ns)

    def without_each(self, cols) -> tuple[np.ndarray, np.ndarray]:
        e = self.engine
        cols = np.asarray(cols, dtype=np.int64)
        out, strata = np.empty(cols.size), np.empty(cols.size, dtype=np.int64)
        if cols.size:
            self._room(int(np.diff(e.ptr)[cols].max()))
            K.without_each(e.ptr, e.rows, e.vals, cols, e.mult, self.zt, self.skey, self.sc,
                           self.slots, self.shift, self.used, self.free, e.tab, e.n, self.wc,
                           self.tc, self.acc, self.dest, self.seen, self.touched, out, strata)
            e.computed += cols.size
            gone = set(cols.tolist())
            self.cond = [c for c in self.cond if c not in gone]
        return out, strata

    def without(self, j: int) -> tuple[float, int]:
        e = self.engine
        j = int(j)
        self._room(self.engine.exceptions(j))
        v, ns = K.without(e.ptr, e.rows, e.vals, j, e.mult[j], self.zt, self.skey, self.sc,
                          self.slots, self.shift, self.used, self.free, e.tab, e.n, self.wc,
                          self.tc, self.acc, self.seen, self.touched, self.dest, False)
        e.computed += 1
        return float(v), int(ns)
