"""The fast engine: batched contingency tables, BLAS products, hashed joint codes.

:class:`FastEngine` implements :class:`camcf.info.Engine` (the engine :func:`camcf.run` uses by
default, ``engine="fast"`` in :data:`camcf.engines.ENGINES`). It scores many candidate
variables against one conditioning set in a single ``np.bincount`` pass, reads unconditional MI
from one sparse matrix product, and builds joint codes of conditioning sets by 64-bit row
hashing; every value ends in :func:`camcf.info.cmi_from_counts`. Tests check that it takes the
same decisions as :class:`camcf.info.ReferenceEngine`.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import TYPE_CHECKING

import numpy as np

from ._sparse import issparse
from .batch_counts import (
    _BLAS_CELLS,
    ExtrasPlan,
    _values_many,
    extras_plan,
    joint_extras,
    screen_then_extras_many,
)
from .fast_counts import (
    HASH_SEED,
    category_indicators,
    complements,
    feature_indicators,
    hash_multipliers,
    indicator_rows,
    pool_cardinality,
    sparse_categories,
    xlogx_table,
)
from .fast_walk import FastLeaveOneOut
from .info import (
    _CELL_BUDGET,
    _ELEM_BUDGET,
    _JOINT_CACHE_BYTES,
    EngineBase,
    _compact,
    _n_distinct,
    _sum_axes,
    cmi_from_counts,
)
from .sparse_counts import all_code_counts

if TYPE_CHECKING:
    import scipy.sparse as sp

_ROWS_CODES = 4  # most codes ≥ 1 per feature for counting by rows (FastEngine._counts_rows)
_ROWS_FROM = 1 << 14  # ... and fewest indicator cells, rows × (codes − 1) × features (on
# fewer, as on flags-mat's 5,016, a BLAS product per set takes fewer calls; chd49's 54,390
# are counted faster by rows)
_DENSE_ONEHOT_CELLS = 1 << 18  # cells × rows up to which counting by rows may multiply dense
_GEMM_CELLS = 8  # ... and cells up to which it does (a multiply-add per cell and row)
_TALL = 1 << 15  # rows from which counting goes one column at a time
_SUBSET_SEARCH = 16  # columns up to which strata() looks for a kept code of all but one
_SCIPY_ROWS = 128  # sparse columns from which rows_of goes through scipy (4× faster at 900)
_DIRECT_STATES = 4  # combinations of codes per row up to which joint codes come from a count
_DIRECT_ROWS = 512  # of them from this many rows (FastEngine._joint_direct; fewer: sort hashes)
_LAZY = object()  # an input of the tables not given to the engine: computed when needed
_CACHE_ROWS = 64  # rows of the category table whose arithmetic goes at once (in cache)
_CACHE_CELLS = 1 << 16  # ... and (value, indicator) cells of the feature table's (16
# features × 1,000 categories of binary codes; more features when there are fewer categories)


class FastEngine(EngineBase):
    """Vectorised engine: batched contingency tables, BLAS products, hashed joint codes.

    ``X`` (n × m) holds the feature codes in a small unsigned type, dense (column-major is
    fastest) or a ``scipy.sparse`` matrix (kept in CSC form; counts then come from the stored
    entries). ``C`` (n × C, uint8) holds the category indicators. Nothing here copies ``X``: a
    per-target engine over shared (possibly memory-mapped or scattered) arrays costs O(n + m).
    """

    def __init__(self, X, C: np.ndarray, *, card: np.ndarray | None = None,
                 tables: tuple[np.ndarray, np.ndarray] | None = None,
                 indicators: tuple | None = None, ones: np.ndarray | None = None,
                 complements: np.ndarray | None = None, categories=_LAZY,
                 seed: int = HASH_SEED) -> None:
        super().__init__(X.shape[0], X.shape[1], C.shape[1], tables)
        self.sparse = bool(issparse(X))
        if self.sparse and X.format != "csc":
            X = X.tocsc()
        elif not self.sparse:
            X = np.asarray(X)
        self.X = X
        self.C = np.asarray(C)
        self.card = (np.asarray(card, dtype=np.int64) if card is not None
                     else pool_cardinality(X, self.C))
        # Row hash of a set S: Σ_{j∈S} a_j·x_j (mod 2^64) with random odd a_j; two different
        # rows collide with probability about 2^-63. Removing one column is a subtraction.
        self._mult = hash_multipliers(self.m + self.n_categories, seed)
        self._tab = xlogx_table(self.n)
        # the tables' inputs (FastEngine.shared), computed when first needed if not given
        self._ones = None if ones is None else np.asarray(ones)  # ones of each category
        self._comp = complements  # _complements()
        self._spcat = categories  # _sparse_categories()
        # (feature_indicators(X, card), category_indicators(C)); None in either: count those
        # columns with bincount
        self._ind, self._cind = indicators if indicators is not None else (None, None)
        self._rows = indicator_rows(self._ind)  # the feature indicators row by row, or None
        self._joint_cache: dict[frozenset, tuple[np.ndarray, int]] = {}
        self._joint_bytes = 0
        self._strata: dict[frozenset, int] = {}  # sets' strata (kept when joints are dropped)
        self._t: tuple[int, np.ndarray] | None = None
        self._ent: tuple | None = None  # (key, _entries()) of the last columns counted
        self._entry_keys: tuple | None = None  # camcf.sparse_counts.entry_keys()

    @classmethod
    def shared(cls, X, C: np.ndarray, ones: np.ndarray | None = None, beside=None) -> dict:
        """The code bounds of the pool and the float32 indicators for BLAS counting
        (:func:`feature_indicators`, :func:`category_indicators`); for the two tables, the ones
        of each category, which categories are their predecessor's complement
        (:func:`complements`) and the sparse indicators of the others
        (:func:`sparse_categories`): built once, whatever the number of table tasks. ``ones``:
        the ones of each column of C when known (else counted); ``beside``: as
        :func:`complements` takes it (half of that work on another thread)."""
        ones = (np.asarray(C).sum(axis=0, dtype=np.int64) if ones is None
                else np.asarray(ones, dtype=np.int64))
        card = pool_cardinality(X, C, ones)
        comp = complements(C, ones, beside)
        return {"card": card, "indicators": (feature_indicators(X, card),
                                             category_indicators(C)),
                "ones": ones, "complements": comp,
                "categories": sparse_categories(C, ones, np.flatnonzero(~comp), beside)}

    # -- columns -------------------------------------------------------------------------------
    def column(self, j: int) -> np.ndarray:
        """Pool column ``j`` as a dense 1-D array of codes."""
        j = int(j)
        if j >= self.m:
            return self.C[:, j - self.m]
        if self.sparse:
            a, b = self.X.indptr[j], self.X.indptr[j + 1]
            out = np.zeros(self.n, dtype=self.X.dtype)
            out[self.X.indices[a:b]] = self.X.data[a:b]
            return out
        return self.X[:, j]

    def columns(self, cols: np.ndarray) -> np.ndarray:
        """Pool columns ``cols`` as a dense n × k array."""
        cols = np.asarray(cols, dtype=np.int64)
        if cols.size and cols.min() >= self.m:
            return self.C[:, cols - self.m]
        if cols.size and cols.max() < self.m:
            if self.sparse:
                return self.X[:, cols].toarray()
            return self.X[:, cols]
        return np.column_stack([self.column(j) for j in cols]) if cols.size else np.empty(
            (self.n, 0), dtype=np.uint8)

    def rows_of(self, cols: np.ndarray) -> np.ndarray:
        """Pool columns ``cols`` as a C-ordered k × n array (one row per column)."""
        cols = np.asarray(cols, dtype=np.int64)
        if self.sparse and cols.size and cols.max() < self.m:
            if cols.size >= _SCIPY_ROWS:  # scipy's column selection, written out row by row
                return self.X[:, cols].T.toarray()
            out = np.zeros((cols.size, self.n), dtype=self.X.dtype)
            r, local, codes, _, _ = self._entries(cols, 1)
            out[local, r] = codes
            return out
        return np.ascontiguousarray(self.columns(cols).T)

    def _target(self, target: int) -> np.ndarray:
        if self._t is None or self._t[0] != target:
            self._t = (target, self.C[:, target].astype(np.int64))
        return self._t[1]

    def _hash(self, cols: Sequence[int]) -> np.ndarray:
        """Row hash Σ_j a_j·x_j (mod 2^64) of pool columns ``cols``, in column blocks."""
        cols = np.asarray(cols, dtype=np.int64)
        h = np.zeros(self.n, dtype=np.uint64)
        block = max(1, _ELEM_BUDGET // max(self.n, 1) // 2)
        for a in range(0, cols.size, block):
            part = cols[a:a + block]
            if part.size == 1:
                h += self.column(int(part[0])).astype(np.uint64) * self._mult[int(part[0])]
                continue
            terms = self.rows_of(part).astype(np.uint64)
            terms *= self._mult[part][:, None]
            h += terms.sum(axis=0, dtype=np.uint64)
        return h

    # -- joint codes -------------------------------------------------------------------------
    def joint(self, cols: Sequence[int]) -> tuple[np.ndarray, int]:
        """Joint code (0..ns−1 per row) of pool columns ``cols`` and its number of states."""
        key = frozenset(int(c) for c in cols)
        hit = self._joint_cache.get(key)
        if hit is not None:
            return hit
        if not key:
            res = (np.zeros(self.n, dtype=np.int64), 1)
        elif len(key) == 1:
            (c,) = key
            res = self._compact_column(c)
        else:
            res = self._joint_direct(sorted(key)) or _compact(self._hash(sorted(key)))
        if self._joint_bytes + res[0].nbytes > _JOINT_CACHE_BYTES:
            self._joint_cache.clear()
            self._joint_bytes = 0
        self._joint_cache[key] = res
        self._joint_bytes += res[0].nbytes
        self._strata[key] = res[1]  # the compacted codes number exactly the strata that occur
        return res

    def _joint_direct(self, cols: list[int]) -> tuple[np.ndarray, int] | None:
        """``_compact(self._hash(cols))`` without sorting n hashes (None: too few rows or
        too many combinations of codes): each row's mixed-radix code of its combination, the
        combinations that occur (a ``bincount``) and their hashes (mod 2^64, as :meth:`_hash`
        sums a row's), numbered as ``np.unique`` numbers the hashes."""
        card = self.card[cols].tolist()
        if self.n < _DIRECT_ROWS or math.prod(card) > _DIRECT_STATES * self.n:
            return None
        code = np.zeros(self.n, dtype=np.int64)
        for c, k in zip(cols, card, strict=True):  # Horner: code·k + x_c, column by column
            code *= k
            code += self.column(c)
        present = np.flatnonzero(np.bincount(code, minlength=math.prod(card)))
        h, rest = np.zeros(present.size, dtype=np.uint64), present
        for c, k in zip(reversed(cols), reversed(card), strict=True):
            h += (rest % k).astype(np.uint64) * self._mult[c]
            rest = rest // k
        uniq, rank = np.unique(h, return_inverse=True)
        remap = np.empty(int(present[-1]) + 1 if present.size else 0, dtype=np.int64)
        remap[present] = rank.ravel()
        return remap[code], int(uniq.size)

    def _compact_column(self, c: int) -> tuple[np.ndarray, int]:
        """Column ``c``'s codes renumbered 0..k−1 in the order of their values (what
        :func:`camcf.info._compact` gives), from one count of its codes: no sort."""
        col = self.column(c)
        K = int(self.card[c])
        if col.dtype.kind not in "iub" or col.dtype == np.uint64 or K > max(self.n, 1 << 16):
            return _compact(col)
        present = np.bincount(col, minlength=K) > 0
        ns = int(np.count_nonzero(present))
        if ns == K:  # every code occurs: the codes are their own numbers
            return col.astype(np.int64), ns
        remap = np.cumsum(present) - 1
        return remap[col], ns

    def strata(self, cond: Sequence[int]) -> int:
        """Distinct joint rows of the pool columns ``cond`` among the n rows (1 when empty):
        known already when the set's joint code was built, else counted from its row hash."""
        key = frozenset(int(c) for c in cond)
        if not key:
            return 1
        k = self._strata.get(key)
        if k is None:
            hit = self._joint_cache.get(key)
            if hit is not None:
                k = hit[1]
            elif len(key) == 1:
                (c,) = key
                k = _n_distinct(self.column(c))
            else:
                k = self._strata_by_one_more(key)
                if k is None:
                    k = _n_distinct(self._hash(sorted(key)))
            self._strata[key] = k
        return k

    def _strata_by_one_more(self, key: frozenset) -> int | None:
        """The strata of ``key`` from the kept joint code of the set without one of its
        columns c (the spouse step's {x} ∪ R given R's): the distinct (code, c) pairs, one
        ``bincount``; None when no such code is kept (or the set is long)."""
        if len(key) > _SUBSET_SEARCH:
            return None
        for c in key:
            hit = self._joint_cache.get(key - {c})
            if hit is not None and hit[1] * int(self.card[c]) <= _CELL_BUDGET:
                kc = int(self.card[c])
                code = hit[0] * kc
                code += self.column(c)
                return int(np.count_nonzero(np.bincount(code, minlength=hit[1] * kc)))
        return None

    # -- unconditional tables --------------------------------------------------------------
    def _category_ones(self) -> np.ndarray:
        """The number of ones of each category."""
        if self._ones is None:
            self._ones = self.C.sum(axis=0, dtype=np.int64)
        return self._ones

    def _sparse_categories(self) -> sp.csc_matrix | None:
        """:func:`sparse_categories` of the categories that are not their predecessor's
        complement (:meth:`_complements`)."""
        if self._spcat is _LAZY:
            self._spcat = sparse_categories(self.C, self._category_ones(),
                                            np.flatnonzero(~self._complements()))
        return self._spcat

    def _indicators(self, cols: np.ndarray | None = None) -> np.ndarray:
        """The category indicators (columns ``cols``, default all) as floats for BLAS
        counting: exact integers in float32 below 2^24 samples."""
        C = self.C if cols is None else self.C[:, cols]
        return C.astype(np.float32 if self.n < 2**24 else np.float64)

    def _complements(self) -> np.ndarray:
        """:func:`complements` of the categories."""
        if self._comp is None:
            self._comp = complements(self.C, self._category_ones())
        return self._comp

    def _mi_blocks(self, n1: np.ndarray, marg: np.ndarray, t_counts: np.ndarray) -> np.ndarray:
        """MI of variables with K codes (``marg``: k × K counts) and binary indicators
        (``n1``: k × K × C counts of (value, indicator = 1)): k × C values."""
        n = self.n
        k, K, Q = n1.shape
        joint = np.empty((k, Q, K, 2), dtype=np.int64)  # (value, indicator) per pair, in order
        joint[..., 1] = n1.transpose(0, 2, 1)
        np.subtract(marg[:, None, :], joint[..., 1], out=joint[..., 0])
        t_marg = np.stack([n - t_counts, t_counts], axis=-1)[None]  # (1, C, 2)
        return cmi_from_counts(joint, n, margins=(marg[:, None, :], t_marg,
                                                  np.full((1, 1), n)),
                               batch=2, table=self._tab)

    def _feature_table(self, rows: tuple[int, int] | None = None) -> np.ndarray:
        n, m, Q = self.n, self.m, self.n_categories
        lo, hi = (0, m) if rows is None else rows
        out = np.empty((hi - lo, Q))
        if hi <= lo or Q == 0:
            return out
        t_counts = self._category_ones()
        # counts over the categories that are not their predecessor's complement; a
        # complement's column follows: count(X_f = v, ¬C) = count(X_f = v) − count(X_f = v, C)
        comp = self._complements()
        basis, drop = np.flatnonzero(~comp), np.flatnonzero(comp)
        S = self._sparse_categories() if self.sparse else None
        Cf = self._indicators(basis) if S is None else None
        flip = (2 * t_counts > n)[basis]
        # every row block is laid out with the widest code of all features, as the whole
        # table is: a row's value is then summed in the same order whichever block holds it
        K = int(self.card.max())
        block = max(1, min(_ELEM_BUDGET // max(n, 1), _CELL_BUDGET // (2 * K * Q)))
        for a in range(lo, hi, block):
            b = min(hi, a + block)
            n1 = np.zeros((b - a, K, Q), dtype=np.int64)
            marg = np.zeros((b - a, K), dtype=np.int64)
            if self.sparse:
                import scipy.sparse as sp

                sub = self.X[:, a:b]
                col_of = np.repeat(np.arange(b - a), np.diff(sub.indptr))
                for v in range(1, K):
                    hit = sub.data == v
                    marg[:, v] = np.bincount(col_of, weights=hit, minlength=b - a)
                    if S is None:
                        mv = sp.csc_matrix((hit.astype(Cf.dtype), sub.indices, sub.indptr),
                                           shape=sub.shape)
                        n1[:, v, basis] = np.rint(np.asarray(mv.T @ Cf))
                        continue
                    # count(X_f = v, C_c = 1): of the stored column, or the code's count
                    # minus that of the complement
                    mv = sp.csc_matrix((hit.astype(np.int64), sub.indices, sub.indptr),
                                       shape=sub.shape)
                    part = np.asarray((mv.T @ S).toarray(), dtype=np.int64)
                    n1[:, v, basis] = np.where(flip[None, :], marg[:, v][:, None] - part, part)
            else:
                sub = self.X[:, a:b]
                for v in range(1, K):
                    mv = sub == v
                    marg[:, v] = np.count_nonzero(mv, axis=0)
                    n1[:, v, basis] = np.rint(mv.astype(Cf.dtype).T @ Cf)
            if drop.size:
                n1[:, 1:, drop] = marg[:, 1:, None] - n1[:, 1:, drop - 1]
            n1[:, 0, :] = t_counts[None, :] - n1[:, 1:, :].sum(axis=1)
            marg[:, 0] = n - marg[:, 1:].sum(axis=1)
            step = max(1, _CACHE_CELLS // (2 * K * Q))  # rows whose values stay in cache
            for a2 in range(0, b - a, step):
                b2 = min(b - a, a2 + step)
                out[a + a2 - lo:a + b2 - lo] = self._mi_blocks(n1[a2:b2], marg[a2:b2], t_counts)
        return out

    def _category_table(self, cols: tuple[int, int] | None = None) -> np.ndarray:
        n, Q = self.n, self.n_categories
        part = cols is not None  # the table's columns lo..hi − 1, each as a row
        lo, hi = (0, Q) if cols is None else cols
        out = np.empty((hi - lo, Q))
        if hi <= lo:
            return out
        na = self._category_ones()
        hold, pair_rows = self._pair_rows(na)
        tab = self._tab
        s_b = tab[n - na] + tab[na]  # S of C_b's margin, per column
        block = max(1, _CELL_BUDGET // (4 * Q))  # rows a of the table at a time
        for a in range(lo, hi, block):
            b = min(hi, a + block)
            # the four cells of (C_a, C_b), summed in the order of cmi_from_counts's table
            # (C_a = 0, C_b = 0), (0, 1), (1, 0), (1, 1): the same values, bit for bit, as
            # _mi_blocks gives (no k × C × 2 × 2 array is built). For a part, row i holds
            # column i of the table: the same sums with the roles of the two categories
            # swapped (the pair counts are symmetric), so each value is the table's bit
            # for bit.
            held = hold(a, b)  # the block's products; then rows that stay in cache
            for a2 in range(a, b, _CACHE_ROWS):
                b2 = min(b, a2 + _CACHE_ROWS)
                c11 = pair_rows(a2, b2, held)
                mine, other = na[a2:b2, None], na[None, :]  # (of the row's, each column's)
                if part:  # row i: C_b; column r: C_a
                    c01, c10 = mine - c11, other - c11
                    c00 = (n - other) - c01
                else:
                    c01, c10 = other - c11, mine - c11
                    c00 = (n - mine) - c01
                s_j = tab.take(c00)
                s_j += tab.take(c01)
                s_j += tab.take(c10)
                s_j += tab.take(c11)
                s_j += tab[n]
                s_j -= s_b[a2:b2, None] if part else s_b[None, :]  # C_b's, then C_a's
                s_j -= s_b[None, :] if part else s_b[a2:b2, None]
                s_j /= n
                out[a2 - lo:b2 - lo] = s_j
        return out

    def _pair_rows(self, na: np.ndarray):
        """count(C_a = 1, C_b = 1) for rows a..b−1 of the pairs of categories, as functions
        ``hold(a, b)`` (the products that rows a..b−1 need) and ``pair_rows(a', b', held)``
        (rows a'..b'−1 of them, (b' − a') × Q int64), from products over the categories that
        are not the
        complement of the one before them (the second category of a binary label, in
        flattened order): the rows and columns of such a category follow exactly,
        n(¬a, y) = n(y) − n(a, y). A quarter of the products for binary labels, and no Q × Q
        count matrix. The products: of the sparse indicators (:meth:`_sparse_categories`)
        when there are, else a BLAS product of float indicators (exact integers)."""
        n, Q = self.n, self.n_categories
        comp = self._complements()
        basis = np.flatnonzero(~comp)
        na_basis = na[basis]
        S = self._sparse_categories()
        if S is None:
            Cb = self._indicators(basis)

            def basis_rows(a: int, b: int) -> np.ndarray:
                return np.rint(Cb[:, a:b].T @ Cb).astype(np.int64)
        else:  # C_a = f_a + σ_a·S_a (f_a = 1 where the complement is stored, σ_a = 1 − 2·f_a):
            # n11 = σσᵀ∘SᵀS + f·(σ∘ns)ᵀ + (σ∘ns)·fᵀ + n·f·fᵀ, in place
            flip = 2 * na_basis > n
            sign = np.where(flip, -1, 1).astype(np.int64)
            sn = sign * np.where(flip, n - na_basis, na_basis)  # σ ∘ ones of the stored columns
            St = S.T.tocsr()

            def basis_rows(a: int, b: int) -> np.ndarray:
                n11 = np.asarray((St[a:b] @ S).toarray(), dtype=np.int64)
                n11 *= sign[a:b, None]
                n11 *= sign[None, :]
                rows = np.flatnonzero(flip[a:b])
                n11[rows] += sn[None, :]
                n11[:, flip] += sn[a:b, None]
                n11[np.ix_(rows, np.flatnonzero(flip))] += n
                return n11

        if basis.size == Q:
            return (lambda a, b: (a, basis_rows(a, b)),
                    lambda a, b, held: held[1][a - held[0]:b - held[0]])
        pos = np.cumsum(~comp) - 1  # each category's basis column (a complement: the one before)
        drop = np.flatnonzero(comp)

        def hold(a: int, b: int) -> tuple[int, np.ndarray]:
            first = int(pos[a])
            return first, basis_rows(first, int(pos[b - 1]) + 1)

        def pair_rows(a: int, b: int, held: tuple[int, np.ndarray]) -> np.ndarray:
            rows = held[1][pos[a:b] - held[0]]  # (b − a) × basis
            flip = comp[a:b]
            rows[flip] = na_basis[None, :] - rows[flip]
            out = rows[:, pos]  # (b − a) × Q
            out[:, drop] = na[a:b, None] - out[:, drop]
            return out

        return hold, pair_rows

    # -- conditional, batched -----------------------------------------------------------------
    def _entries_kept(self, cols: np.ndarray, K: int) -> tuple[np.ndarray, ...]:
        """:meth:`_entries`, the last columns' kept (Phase 3 asks the same eligible features
        given each member of R; the arrays are read-only to their users)."""
        key = (cols.tobytes(), K)
        if self._ent is None or self._ent[0] != key:
            self._ent = (key, self._entries(cols, K))
        return self._ent[1]

    def _entries(self, cols: np.ndarray, K: int | None = None) -> tuple[np.ndarray, ...]:
        """Stored entries of sparse features, column after column: (row, position of the
        column in ``cols``, code, where each column's entries start (len(cols) + 1 offsets),
        position × K + code with K, by default, the largest code bound of ``cols``)."""
        indptr = self.X.indptr
        starts = indptr[cols].astype(np.int64)
        lens = indptr[cols + 1].astype(np.int64) - starts
        bounds = np.zeros(len(cols) + 1, dtype=np.int64)
        np.cumsum(lens, out=bounds[1:])
        total = int(bounds[-1])
        if total == 0:
            e = np.empty(0, dtype=np.int64)
            return e, e, e, bounds, e
        local = np.repeat(np.arange(len(cols)), lens)
        offs = np.repeat(starts - bounds[:-1], lens) + np.arange(total)
        codes = self.X.data[offs].astype(np.int64)
        if K is None:
            K = int(self.card[cols].max())
        return self.X.indices[offs], local, codes, bounds, local * K + codes

    def _cells(self, t: np.ndarray, s: np.ndarray, ns: int) -> tuple | None:
        """The (t, stratum) cells of the joint code ``s`` (ns states) that counting uses, or
        None when no stratum holds both t = 0 and t = 1 (every value is then exactly 0).

        Returns ``(n_live, S, ts_counts, ts_row, live_rows)``: the informative strata number
        0..n_live−1 (in the order of their codes); the dead strata become one extra stratum,
        number n_live (S = n_live + 1), unless every stratum is informative (S = ns); each
        row's cell is ``ts_row`` = t·S + stratum, ``ts_counts`` counts the 2S cells, and
        ``live_rows`` are the rows in informative strata (None: every row; always None for
        sparse X, whose entries in dead strata go to the extra stratum)."""
        key = t * ns
        key += s
        ts0 = np.bincount(key, minlength=2 * ns)
        live = (ts0[ns:] > 0) & (ts0[:ns] > 0)  # both t = 0 and t = 1 occur in the stratum
        n_live = int(np.count_nonzero(live))
        if n_live == 0:
            return None
        if n_live == ns:  # every stratum informative: no row is dropped
            return ns, ns, ts0, key, None
        S = n_live + 1
        remap = np.where(live, np.cumsum(live) - 1, n_live)
        ts_row = t * S
        rs = remap[s]
        ts_row += rs
        ts_counts = np.bincount(ts_row, minlength=2 * S)
        live_rows = None if self.sparse else np.flatnonzero(rs < n_live)
        return n_live, S, ts_counts, ts_row, live_rows

    def _values(self, counts: np.ndarray, cells: tuple) -> np.ndarray:
        """I(t; V_j | S) from counts (k × K × 2S) of (code, t, stratum) in the layout of
        ``cells`` (:meth:`_cells`): the informative strata only, the full n as denominator
        (:func:`camcf.batch_counts._values_many` of one table)."""
        n_live, S, ts_counts = cells[0], cells[1], cells[2]
        return _values_many(counts[None], ts_counts[None], S, self, n_live)[0]

    def _by_rows(self, cols: np.ndarray, S: int) -> bool:
        """Whether :meth:`_counts_rows` counts ``cols`` (dense features, most of the columns,
        and a product output within the cell budget)."""
        rows = self._rows
        return (rows is not None and cols.size > 0 and 4 * cols.size >= self.m
                and rows.size >= _ROWS_FROM
                and rows.shape[1] <= _ROWS_CODES * self.m  # a row costs (K − 1)·m adds
                and int(cols.max()) < self.m and 2 * S * rows.shape[1] <= _CELL_BUDGET)

    def _cmi_given_codes(self, t: np.ndarray, cols: np.ndarray, s: np.ndarray, ns: int
                         ) -> np.ndarray:
        """I(t; V_j | S) for pool columns ``cols`` given the joint code ``s`` of S (ns states).

        With sparse features, counts come from the stored entries only (code 0 is the remainder
        of each (t, s) cell), so sparse data costs what it stores: every entry at once when the
        columns hold most of them (:func:`camcf.sparse_counts.all_code_counts`), else the
        columns' own entries (:meth:`_entries_kept`, kept for the next call on the same
        columns). I(t; V | S) = Σ_s p(s)·
        I(t; V | S = s), and a stratum in which t is constant (a singleton, say) contributes
        exactly 0: those strata are left out of the sums (dense rows in them are dropped before
        counting, sparse entries in them go to one extra stratum that is not summed), which
        matters when S has nearly as many states as there are samples. The sum keeps the full n
        in the denominator, so the value is unchanged.
        """
        n = self.n
        out = np.zeros(len(cols))
        if len(cols) == 0:
            return out
        cells = self._cells(t, s, ns)
        if cells is None:
            return out
        n_live, S, ts_counts, ts_row, live_rows = cells
        K = int(self.card[cols].max())
        if not self.sparse and self._by_rows(cols, S):
            return self._values(self._counts_rows(cols, [cells], K)[0], cells)
        sparse = self.sparse and int(cols.max()) < self.m
        rows = n if live_rows is None else live_rows.size
        ts_live = ts_row if live_rows is None else ts_row[live_rows]
        per = K * 2 * S
        chunk = max(1, min(_CELL_BUDGET // per, _ELEM_BUDGET // max(rows, 1)))
        counts = all_code_counts(self, cols, ts_row, ts_counts, S, K) if sparse else None
        if counts is not None:  # most of the entries: all of them counted at once
            return self._values(counts, cells)
        entries = self._entries_kept(cols, K) if sparse and chunk >= len(cols) else None
        for start in range(0, len(cols), chunk):
            part = cols[start:start + chunk]
            k = len(part)
            if sparse:
                # counts of codes ≥ 1 from the stored entries; code 0 is the remainder
                if entries is None:  # this chunk's entries
                    ent, first = self._entries(part, K), 0
                else:  # the slice of the entries of every column
                    ent, first = entries, start
                a, b = ent[3][first], ent[3][first + k]
                idx = ent[4][a:b] - first * K  # (position in part, code) of each entry
                idx *= 2 * S
                idx += ts_row[ent[0][a:b]]
                counts = np.bincount(idx, minlength=k * per).reshape(k, K, 2 * S)
                counts[:, 0, :] = ts_counts[None, :] - _sum_axes(counts[:, 1:, :], 1)
            elif (K - 1) * 2 * S <= _BLAS_CELLS and (
                    (self._ind is not None and int(part.max()) < self.m)
                    or (self._cind is not None and int(part.min()) >= self.m)):
                counts = self._counts_blas(part, ts_row, live_rows, ts_counts, S, K)
            elif rows >= _TALL:
                # tall data: one contiguous column at a time, no n × k temporaries
                counts = np.empty((k, K, 2 * S), dtype=np.int64)
                for i, j in enumerate(part.tolist()):
                    v = self.column(j)
                    key = np.multiply(v if live_rows is None else v[live_rows], 2 * S,
                                      dtype=np.int64)
                    key += ts_live
                    counts[i] = np.bincount(key, minlength=per).reshape(K, 2 * S)
            else:
                V = self.columns(part)
                if live_rows is not None:
                    V = V[live_rows]
                idx = np.multiply(V, 2 * S, dtype=np.int64)
                idx += ts_live[:, None]
                idx += (np.arange(k) * per)[None, :]
                # order="K": no copy of a column-major block (bincount ignores the order)
                counts = np.bincount(idx.ravel(order="K"), minlength=k * per)
                counts = counts.reshape(k, K, 2 * S)
            out[start:start + k] = self._values(counts, cells)
        return out

    def _cells_times_rows(self, indices: np.ndarray, indptr: np.ndarray, total: int
                          ) -> np.ndarray:
        """The 0/1 matrix (``total`` cells × n rows; row i of the data lists its cells in
        ``indices[indptr[i]:indptr[i + 1]]``) times the n × (K − 1)·m indicators
        (:func:`indicator_rows`): float32 counts, exact integers below 2^24 rows."""
        n, R = self.n, self._rows
        if total * n <= _DENSE_ONEHOT_CELLS and total <= _GEMM_CELLS:
            # few cells of small data: a dense 0/1 matrix times the indicators (no scipy.sparse;
            # with more cells its multiply-add per cell and row costs more than the import)
            onehot = np.zeros((total, n), dtype=np.float32)
            onehot[indices, np.repeat(np.arange(n), np.diff(indptr))] = 1.0
            return onehot @ R
        import scipy.sparse as sp  # cells × n in CSC form, built directly (no transpose)

        onehot = sp.csc_matrix((np.ones(indices.size, dtype=np.float32), indices, indptr),
                               shape=(total, n))
        return onehot @ R

    def _counts_rows(self, cols: np.ndarray, cell_sets: list[tuple], K: int
                     ) -> list[np.ndarray]:
        """Counts (k × K × 2S) of (code, t, stratum) of dense features ``cols`` for each of
        several conditioning sets (``cell_sets``: :meth:`_cells` of each), by one sparse
        product: a 0/1 matrix with one row per cell of every set and one entry per counted row
        of the data, times the n × (K − 1)·m indicators (:func:`indicator_rows`). Each row of
        the data is read once per set, whatever the number of cells (a dense one-hot product
        costs a multiply-add per cell); float32 sums of ones are exact below 2^24 rows. Code 0
        is the remainder of each cell."""
        n, m = self.n, self.m
        R = self._rows
        width = [2 * c[1] for c in cell_sets]
        off = np.concatenate([[0], np.cumsum(width)]).astype(np.int64)
        total = int(off[-1])
        idx = np.int32 if total < 2**31 and n < 2**31 else np.int64
        # the 0/1 matrix (cells × n) in CSC form: column i (row i of the data) lists its cell
        # in each set where it is counted, sets in order (so no sort is needed)
        if all(c[4] is None for c in cell_sets):  # every row in every set
            cell = np.empty((n, len(cell_sets)), dtype=idx)
            for i, (c, o) in enumerate(zip(cell_sets, off[:-1].tolist(), strict=True)):
                np.add(c[3], o, out=cell[:, i], casting="unsafe")
            indices = cell.ravel()
            indptr = np.arange(0, indices.size + 1, len(cell_sets), dtype=idx)
        else:
            cell = np.full((n, len(cell_sets)), -1, dtype=idx)
            for i, (c, o) in enumerate(zip(cell_sets, off[:-1].tolist(), strict=True)):
                rows = slice(None) if c[4] is None else c[4]
                cell[rows, i] = c[3][rows] + o
            counted = cell >= 0
            indices = cell[counted]  # row-major: row by row
            indptr = np.zeros(n + 1, dtype=idx)
            np.cumsum(np.count_nonzero(counted, axis=1), out=indptr[1:])
        prod = self._cells_times_rows(indices, indptr, total)
        L = R.shape[1] // m
        prod = prod.reshape(total, L, m)[:, :K - 1, :][:, :, cols]  # (cells, K − 1, k)
        out = []
        for c, a, b in zip(cell_sets, off[:-1].tolist(), off[1:].tolist(), strict=True):
            counts = np.empty((cols.size, K, b - a), dtype=np.int64)
            counts[:, 1:, :] = prod[a:b].transpose(2, 1, 0)
            counts[:, 0, :] = c[2][None, :] - _sum_axes(counts[:, 1:, :], 1)
            out.append(counts)
        return out

    def _counts_blas(self, part: np.ndarray, ts_row: np.ndarray, live_rows, ts_counts,
                     S: int, K: int) -> np.ndarray:
        """Counts (k × K × 2S) of (code, t, stratum) of dense features (or of categories)
        ``part`` by products [X_j == v]ᵀ · onehot(t, stratum) in float32 (exact: fewer than
        2^24 rows); rows outside ``live_rows`` are left out, and code 0 is the remainder."""
        n, k = self.n, len(part)
        onehot = np.zeros((n, 2 * S), dtype=np.float32)
        if live_rows is None:
            onehot[np.arange(n), ts_row] = 1.0
        else:
            onehot[live_rows, ts_row[live_rows]] = 1.0
        counts = np.empty((k, K, 2 * S), dtype=np.int64)
        if part[0] >= self.m:  # categories: one block of 0/1 indicators
            blocks, part = self._cind[None], part - self.m
        else:
            blocks = self._ind
        L, _, width = blocks.shape
        if 4 * k >= width:  # most columns: one product over every code and column, then pick
            flat = blocks.transpose(0, 2, 1).reshape(L * width, n)  # a view: no copy
            prod = (flat @ onehot).reshape(L, width, 2 * S)
            counts[:, 1:, :] = prod[:K - 1, part, :].transpose(1, 0, 2)
        else:
            for v in range(1, K):
                counts[:, v, :] = blocks[v - 1][:, part].T @ onehot
        counts[:, 0, :] = ts_counts[None, :] - _sum_axes(counts[:, 1:, :], 1)
        return counts

    def _cmi_one(self, t: np.ndarray, v: np.ndarray, k: int, s: np.ndarray, ns: int) -> float:
        """I(t; V | S) for one column ``v`` (codes < k) given the joint code ``s`` (ns states):
        one ``bincount`` over (s, v, t)."""
        key = s * (2 * k)
        key += v * 2
        key += t
        c = np.bincount(key, minlength=ns * k * 2).reshape(ns, k, 2)
        tab = self._tab
        ts = _sum_axes(c, 1)  # (ns, 2): counts of (S, t)
        s_vts = tab[c].sum()
        s_vs = tab[c[:, :, 0] + c[:, :, 1]].sum()
        s_ts = tab[ts].sum()
        s_s = tab[ts[:, 0] + ts[:, 1]].sum()
        return float((s_vts + s_s - s_ts - s_vs) / self.n)

    def cmi_many(self, target, variables, cond):
        cols = np.asarray(variables, dtype=np.int64)
        if len(cols) == 0:
            return np.empty(0)
        if len(cond) == 0:
            # unconditional: read the tables (computed once per run)
            self._counted(lookups=len(cols))
            out = np.empty(len(cols))
            feat = cols < self.m
            if feat.any():
                out[feat] = self.mi_table()[cols[feat], target]
            if (~feat).any():
                out[~feat] = self.category_mi_table()[cols[~feat] - self.m, target]
            return out
        s, ns = self.joint(cond)
        self._counted(computed=len(cols))
        return self._cmi_given_codes(self._target(target), cols, s, ns)

    def cmi_each_extra(self, target, variables, extras, fixed):
        # the joint code of ``fixed`` is built once; adding x is one multiply-add per row
        cols = np.asarray(variables, dtype=np.int64)
        r, nr = self.joint(fixed)
        return self._extras(self._target(target), cols, r, nr, [int(x) for x in extras])[2]

    def screen_then_extras(self, target, variables, fixed, extras, keep, given=None):
        return screen_then_extras_many([(self, target, variables, fixed, extras, keep,
                                         given)])[0]

    def _extras(self, t: np.ndarray, cols: np.ndarray, r: np.ndarray, nr: int,
                extras: list[int], lead: tuple | None = None, keep=None
                ) -> tuple[np.ndarray | None, np.ndarray | None, list[np.ndarray]]:
        """For each x in ``extras``: I(t; V_j | {x} ∪ S) for the columns ``cols`` (S the set
        with joint code ``r``, ``nr`` states). With ``lead`` (:meth:`_cells` of S itself,
        countable by rows) and ``keep``, I(t; V_j | S) for every column comes first, from the
        same product as the first extras, and the extras' values are for the columns
        ``keep(v1)`` only: returns (v1, that mask, values per x; none when the mask is empty).
        Without: (None, None, values per x)."""
        plan = extras_plan(self, t, cols, r, nr, extras, lead, keep)
        if plan.joint is not None:
            joint_extras([plan])
        return self._extras_finish(plan)

    def _extras_finish(self, plan: ExtrasPlan
                       ) -> tuple[np.ndarray | None, np.ndarray | None, list[np.ndarray]]:
        """The rest of :meth:`_extras` after :func:`camcf.batch_counts.extras_plan` (and, for
        joint cells, :func:`camcf.batch_counts.joint_extras`): the sets not counted yet, the
        counters."""
        if plan.done:  # nothing screened: no extra is tested
            return plan.v1, plan.pick, []
        t, cols, r, nr, extras, lead = (plan.t, plan.cols, plan.r, plan.nr, plan.extras,
                                        plan.lead)
        out, keep = plan.out, plan.keep
        zero: list[int] = []  # extras with no informative stratum: every value is 0
        v1, pick, sel = plan.v1, plan.pick, plan.sel
        if plan.rows and plan.joint is None:
            K, kxs, cell_of = plan.K, plan.kxs, plan.cell_of
            width = self._rows.shape[1]
            # when neither the lead nor the first x drops a stratum, the lead's counts are
            # sums of the first x's: cell (t, s) of S is the cells (t, s·kx + v) of {x} ∪ S
            first = cell_of[0] if extras else None
            derive = (lead is not None and first is not None and lead[0] == lead[1] == nr
                      and first[0] == first[1] == nr * kxs[0]
                      and self._by_rows(cols, first[1]))
            batch: list[tuple[int, tuple]] = []
            used = 0
            if lead is not None and not derive:
                batch.append((-1, lead))
                used = 2 * lead[1] * width
            for i, x in enumerate(extras + [None]):
                cells = None
                if x is not None:
                    cells = cell_of[i]
                    if cells is None:  # no informative stratum: every value is 0
                        zero.append(i)
                        continue
                    if not self._by_rows(cols, cells[1]):
                        continue  # counted alone below
                    need = 2 * cells[1] * width
                if batch and (x is None or used + need > _CELL_BUDGET):
                    counts = self._counts_rows(cols, [c for _, c in batch], K)
                    for (j, c), cnt in zip(batch, counts, strict=True):
                        if j < 0 or (derive and j == 0):
                            lc = cnt if j < 0 else _sum_axes(cnt.reshape(
                                cols.size, K, 2, nr, kxs[0]), 4).reshape(cols.size, K, 2 * nr)
                            v1 = self._values(lc, lead)
                            pick = np.asarray(keep(v1), dtype=bool)
                            if not pick.any():  # nothing screened: no extra is tested
                                return v1, pick, []
                            sel = cols[pick]
                            if j < 0:
                                continue
                        out[j] = self._values(cnt if pick is None else cnt[pick], c)
                    batch, used = [], 0
                if x is not None:
                    batch.append((i, cells))
                    used += need
        for i in zero:
            out[i] = np.zeros(sel.size)
        for i, x in enumerate(extras):  # (sparse columns' entries: gathered once, kept)
            self._counted(computed=len(sel))
            if out[i] is None:
                kx = int(self.card[x])
                out[i] = self._cmi_given_codes(t, sel, r * kx + self.column(x), nr * kx)
        return v1, pick, out

    def leave_one_out(self, target, members, fixed):
        return FastLeaveOneOut(self, target, members, fixed)


__all__ = ["FastEngine", "category_indicators", "complements", "feature_indicators",
           "indicator_rows", "pool_cardinality", "sparse_categories"]
