"""Plug-in information measures in bits, and the engines that evaluate them for Ca-MCF.

Every quantity is the plug-in estimate from empirical frequencies. A set of variables is one
joint variable whose states are its distinct rows. With ``S(·) = Σ_cells c·log2(c)`` over a
contingency table of counts, ``H(A) = log2(n) − S(A)/n`` and therefore

    I(A; B | Z) = H(A,Z) + H(B,Z) − H(Z) − H(A,B,Z) = (S(A,B,Z) + S(Z) − S(A,Z) − S(B,Z)) / n

(with Z empty, ``S(Z) = n·log2(n)``). Both engines below use that one formula; they differ only
in how they get the counts.

* :class:`FastEngine` scores many candidate variables against one conditioning set in a single
  ``np.bincount`` pass, reads unconditional MI from one sparse matrix product, and builds joint
  codes of conditioning sets by 64-bit row hashing. This is what :func:`camcf.run` uses.
* :class:`ReferenceEngine` computes every quantity separately with ``np.unique(axis=0)``: the
  straightforward reading of the definitions. Tests check that both engines take the same
  decisions; the benchmark measures the difference in speed.

Scores are compared after rounding to :data:`DECIMALS` decimal places (SPEC.md), see
:func:`rounded`.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import scipy.sparse as sp

DECIMALS = 12
_CELL_BUDGET = 1 << 22  # contingency cells per bincount chunk (~32 MB of int64)


def rounded(v):
    """Round scores to 12 decimals so that mathematically equal scores tie (SPEC.md)."""
    return np.round(v, DECIMALS)


def _xlogx(counts: np.ndarray) -> np.ndarray:
    c = counts.astype(np.float64)
    out = np.zeros_like(c)
    pos = c > 0
    out[pos] = c[pos] * np.log2(c[pos])
    return out


def _compact(codes: np.ndarray) -> tuple[np.ndarray, int]:
    uniq, inv = np.unique(codes, return_inverse=True)
    return inv.astype(np.int64).ravel(), int(uniq.size)


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


def conditional_mutual_information(a, b, cond=None) -> float:
    """I(A; B | Z) in bits; ``cond`` is None, a 1-D array or an n × k array of variables."""
    a = np.asarray(a)
    b = np.asarray(b)
    n = a.shape[0]
    if cond is None or np.asarray(cond).size == 0:
        z = np.zeros((n, 0), dtype=np.int64)
    else:
        z = np.asarray(cond)
        z = z[:, None] if z.ndim == 1 else z
    za = np.column_stack([a, z])
    zb = np.column_stack([b, z])
    zab = np.column_stack([a, b, z])
    hz = entropy(z) if z.shape[1] else 0.0
    return entropy(za) + entropy(zb) - hz - entropy(zab)


def mutual_information(a, b) -> float:
    """I(A; B) in bits."""
    return conditional_mutual_information(a, b, None)


class _EngineBase:
    """What the phases need from an engine. ``pool`` holds every variable as a column.

    Columns ``0..m−1`` are the features' codes, columns ``m..m+C−1`` the category indicators.
    """

    def __init__(self, X: np.ndarray, C: np.ndarray) -> None:
        self.n = int(X.shape[0])
        self.m = int(X.shape[1])
        self.n_categories = int(C.shape[1])
        self.pool = np.hstack([X.astype(np.int64), C.astype(np.int64)])
        self.card = (self.pool.max(axis=0) + 1) if self.n else np.ones(self.pool.shape[1], int)
        self.n_tests = 0  # information quantities the algorithm asked for
        self.n_hits = 0  # of those, served from something already computed
        self._value_cache: dict = {}

    # -- counters -----------------------------------------------------------------------
    def stats(self) -> dict:
        rate = self.n_hits / self.n_tests if self.n_tests else 0.0
        return {"tests": self.n_tests, "cache_hits": self.n_hits, "hit_rate": rate}

    # -- interface used by the phases ------------------------------------------------------
    def mi_table(self) -> np.ndarray:
        """I(X_f; C_c) for every feature f and category c: array m × C (bits)."""
        raise NotImplementedError

    def category_mi_table(self) -> np.ndarray:
        """I(C_a; C_b) for every pair of categories: array C × C (bits)."""
        raise NotImplementedError

    def cmi_many(self, target: int, variables: Sequence[int], cond: Sequence[int]) -> np.ndarray:
        """I(t; V_j | S) for every pool column j in ``variables``; t is category ``target``."""
        raise NotImplementedError

    def cmi_each_extra(self, target: int, variables: Sequence[int], extras: Sequence[int],
                       fixed: Sequence[int]) -> list[np.ndarray]:
        """For each x in ``extras``: I(t; V_j | {x} ∪ fixed) for every j in ``variables``."""
        return [self.cmi_many(target, variables, [x] + list(fixed)) for x in extras]

    def leave_one_out(self, target: int, members: Sequence[int], fixed: Sequence[int]):
        """A session for backward elimination: ``value(f)`` is I(t; V_f | (members − f) ∪ fixed)
        and ``remove(f)`` drops f from the members for later calls."""
        return _LeaveOneOut(self, target, members, fixed)

    def _target_col(self, target: int) -> int:
        return self.m + target


class ReferenceEngine(_EngineBase):
    """One CMI per test with ``np.unique(axis=0)``: the straightforward implementation."""

    def mi_table(self) -> np.ndarray:
        out = np.empty((self.m, self.n_categories))
        for c in range(self.n_categories):
            t = self.pool[:, self.m + c]
            for f in range(self.m):
                out[f, c] = self._cmi(self.pool[:, f], t, None)
        return out

    def category_mi_table(self) -> np.ndarray:
        C = self.n_categories
        out = np.empty((C, C))
        for a in range(C):
            for b in range(C):
                out[a, b] = self._cmi(self.pool[:, self.m + a], self.pool[:, self.m + b], None)
        return out

    def _cmi(self, a, b, cond_cols) -> float:
        z = None if not cond_cols else self.pool[:, list(cond_cols)]
        return conditional_mutual_information(a, b, z)

    def cmi_many(self, target, variables, cond):
        t = self.pool[:, self._target_col(target)]
        vals = np.array([self._cmi(t, self.pool[:, j], list(cond)) for j in variables], float)
        self.n_tests += len(vals)
        return vals


class FastEngine(_EngineBase):
    """Vectorised engine: batched contingency tables, a matrix product, hashed joint codes."""

    def __init__(self, X: np.ndarray, C: np.ndarray, seed: int = 20240611) -> None:
        super().__init__(X, C)
        rng = np.random.default_rng(seed)
        # Random odd 64-bit multipliers: the hash of a row over a set S is Σ_j a_j·x_j (mod 2^64).
        # Two different rows collide with probability about 2^-63; removing one column from a
        # set is a subtraction, which backward elimination uses.
        mult = rng.integers(1, 2**63 - 1, size=self.pool.shape[1], dtype=np.uint64) * np.uint64(2)
        mult += np.uint64(1)
        self._mult = mult
        self._hashed = self.pool.astype(np.uint64) * mult[None, :]
        self._joint_cache: dict[frozenset, tuple[np.ndarray, int]] = {}
        self._mi_table: np.ndarray | None = None
        self._cat_table: np.ndarray | None = None
        self._xlogx_tab = _xlogx(np.arange(self.n + 1))
        # the pool's non-zero entries, column by column (CSC order), for counting
        cols_nz, rows_nz = np.nonzero(self.pool.T)
        self._nz_row = rows_nz.astype(np.int64)
        self._nz_col = cols_nz.astype(np.int64)
        self._nz_val = self.pool[rows_nz, cols_nz].astype(np.int64)
        self._colptr = np.concatenate(
            [[0], np.cumsum(np.bincount(cols_nz, minlength=self.pool.shape[1]))]
        ).astype(np.int64)

    # -- joint codes -------------------------------------------------------------------------
    def _joint_from_hash(self, h: np.ndarray) -> tuple[np.ndarray, int]:
        return _compact(h)

    def joint(self, cols: Sequence[int]) -> tuple[np.ndarray, int]:
        key = frozenset(int(c) for c in cols)
        hit = self._joint_cache.get(key)
        if hit is not None:
            return hit
        if not key:
            res = (np.zeros(self.n, dtype=np.int64), 1)
        elif len(key) == 1:
            (c,) = key
            res = _compact(self.pool[:, c])
        else:
            h = self._hashed[:, sorted(key)].sum(axis=1, dtype=np.uint64)
            res = self._joint_from_hash(h)
        if len(self._joint_cache) > 4096:
            self._joint_cache.clear()
        self._joint_cache[key] = res
        return res

    # -- unconditional tables --------------------------------------------------------------
    def _onehot(self, cols: np.ndarray) -> tuple[sp.csr_matrix, np.ndarray]:
        """One-hot of pool columns ``cols``: (n × Σ card, column → offset)."""
        card = self.card[cols]
        offsets = np.concatenate([[0], np.cumsum(card)])
        rows = np.repeat(np.arange(self.n), len(cols))
        idx = (self.pool[:, cols] + offsets[:-1][None, :]).ravel()
        mat = sp.csr_matrix(
            (np.ones(idx.size, dtype=np.float64), (rows, idx)), shape=(self.n, int(offsets[-1]))
        )
        return mat, offsets

    def _mi_from_joint(self, joint: np.ndarray, offsets: np.ndarray, marg_a: np.ndarray,
                       t_counts: np.ndarray) -> np.ndarray:
        """MI of each one-hot block (rows of ``joint`` grouped by ``offsets``) with each binary
        indicator (columns of ``joint`` give the count of (value, indicator = 1))."""
        n = self.n
        n1 = np.rint(joint).astype(np.int64)  # (Σcard) × C : count(V = v, t = 1)
        n0 = marg_a[:, None] - n1  # count(V = v, t = 0)
        tab = self._xlogx_tab
        cell = tab[n1] + tab[n0]
        block_ids = np.repeat(np.arange(len(offsets) - 1), np.diff(offsets))
        s_vt = np.zeros((len(offsets) - 1, joint.shape[1]))
        np.add.at(s_vt, block_ids, cell)
        s_v = np.zeros(len(offsets) - 1)
        np.add.at(s_v, block_ids, tab[marg_a])
        s_t = tab[t_counts] + tab[n - t_counts]
        return (s_vt + tab[n] - s_t[None, :] - s_v[:, None]) / n

    def mi_table(self) -> np.ndarray:
        if self._mi_table is None:
            cols = np.arange(self.m)
            mat, offsets = self._onehot(cols)
            C = self.pool[:, self.m:].astype(np.float64)
            joint = (mat.T @ C) if self.m else np.zeros((0, self.n_categories))
            marg = np.rint(np.asarray(mat.sum(axis=0)).ravel()).astype(np.int64)
            t_counts = self.pool[:, self.m:].sum(axis=0).astype(np.int64)
            self._mi_table = self._mi_from_joint(np.asarray(joint), offsets, marg, t_counts)
        return self._mi_table

    def category_mi_table(self) -> np.ndarray:
        if self._cat_table is None:
            cols = np.arange(self.m, self.m + self.n_categories)
            mat, offsets = self._onehot(cols)
            C = self.pool[:, self.m:].astype(np.float64)
            joint = np.asarray(mat.T @ C)
            marg = np.rint(np.asarray(mat.sum(axis=0)).ravel()).astype(np.int64)
            t_counts = self.pool[:, self.m:].sum(axis=0).astype(np.int64)
            self._cat_table = self._mi_from_joint(joint, offsets, marg, t_counts)
        return self._cat_table

    # -- conditional, batched -----------------------------------------------------------------
    def _entries(self, cols: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Non-zero entries (row, position of the column in ``cols``, code) of pool columns."""
        if len(cols) <= 64:
            starts, ends = self._colptr[cols], self._colptr[cols + 1]
            lens = ends - starts
            if lens.sum() == 0:
                e = np.empty(0, dtype=np.int64)
                return e, e, e
            idx = np.concatenate([np.arange(a, b) for a, b in zip(starts, ends, strict=True)])
            local = np.repeat(np.arange(len(cols)), lens)
            return self._nz_row[idx], local, self._nz_val[idx]
        pos = np.full(self.pool.shape[1], -1, dtype=np.int64)
        pos[cols] = np.arange(len(cols))
        lo, hi = self._colptr[cols.min()], self._colptr[cols.max() + 1]
        local = pos[self._nz_col[lo:hi]]
        keep = local >= 0
        return self._nz_row[lo:hi][keep], local[keep], self._nz_val[lo:hi][keep]

    def _cmi_given_codes(self, t: np.ndarray, cols: np.ndarray, s: np.ndarray, ns: int
                         ) -> np.ndarray:
        """I(t; V_j | S) for pool columns ``cols`` given the joint code ``s`` of S (ns states).

        Counts come from the non-zero entries of the columns only (code 0 is the remainder of
        each (t, s) cell), so sparse data costs what it stores. I(t; V | S) = Σ_s p(s)·I(t; V |
        S = s), and a stratum in which t is constant (a singleton, say) contributes exactly 0:
        those strata are dropped before counting, which matters when S has nearly as many
        states as there are samples. The sum keeps the full n in the denominator, so the value
        is unchanged.
        """
        n = self.n
        tab = self._xlogx_tab
        out = np.zeros(len(cols))
        if len(cols) == 0:
            return out
        ts0 = np.bincount(t * ns + s, minlength=2 * ns)
        pos = ts0[ns:]
        live = (pos > 0) & (ts0[:ns] > 0)  # both t = 0 and t = 1 occur in the stratum
        n_live = int(live.sum())
        if n_live == 0:
            return out
        if n_live == ns:
            ok = None  # every stratum informative: no row is dropped
            ts_counts = ts0
            ts_row = t * ns + s
        else:
            remap = np.where(live, np.cumsum(live) - 1, -1)
            s = remap[s]  # −1 for rows in dead strata
            ns = n_live
            ok = s >= 0
            ts_counts = np.bincount(t[ok] * ns + s[ok], minlength=2 * ns)
            # cell of each row within a (column, code) block; −1 for rows of dead strata
            ts_row = np.where(ok, t * ns + s, -1)
        s_ts = tab[ts_counts].sum()
        s_s = tab[ts_counts[:ns] + ts_counts[ns:]].sum()
        K = int(self.card[cols].max())
        per = K * 2 * ns
        chunk = max(1, _CELL_BUDGET // per)
        nnz = self._colptr[cols + 1] - self._colptr[cols]
        sparse = nnz.sum() < 0.3 * n * len(cols)
        live_rows = np.nonzero(ok)[0] if (not sparse and ok is not None) else None
        for start in range(0, len(cols), chunk):
            part = cols[start:start + chunk]
            if sparse:
                # counts of codes ≥ 1 from the stored non-zero entries; code 0 is the remainder
                r, c, v = self._entries(part)
                cell = ts_row[r]
                if ok is None:
                    idx = (c * K + v) * (2 * ns) + cell
                else:
                    keep = cell >= 0
                    idx = (c[keep] * K + v[keep]) * (2 * ns) + cell[keep]
                counts = np.bincount(idx, minlength=len(part) * per)
                counts = counts.reshape(len(part), K, 2 * ns)
                counts[:, 0, :] = ts_counts[None, :] - counts[:, 1:, :].sum(axis=1)
            else:
                if live_rows is None:
                    V = self.pool[:, part]
                    idx = V * (2 * ns) + ts_row[:, None]
                else:
                    V = self.pool[np.ix_(live_rows, part)]
                    idx = V * (2 * ns) + ts_row[live_rows][:, None]
                idx += (np.arange(len(part)) * per)[None, :]
                counts = np.bincount(idx.ravel(), minlength=len(part) * per)
                counts = counts.reshape(len(part), K, 2 * ns)
            s_vts = tab[counts].sum(axis=(1, 2))
            c4 = counts.reshape(len(part), K, 2, ns)
            s_vs = tab[c4[:, :, 0, :] + c4[:, :, 1, :]].sum(axis=(1, 2))
            out[start:start + len(part)] = (s_vts + s_s - s_ts - s_vs) / n
        return out

    def cmi_many(self, target, variables, cond):
        cols = np.asarray(list(variables), dtype=np.int64)
        self.n_tests += len(cols)
        if len(cols) == 0:
            return np.empty(0)
        t = self.pool[:, self._target_col(target)]
        if len(cond) == 0:
            # unconditional: read the tables (computed once per run)
            self.n_hits += len(cols)
            out = np.empty(len(cols))
            feat = cols < self.m
            if feat.any():
                out[feat] = self.mi_table()[cols[feat], target]
            if (~feat).any():
                out[~feat] = self.category_mi_table()[cols[~feat] - self.m, target]
            return out
        key_cond = frozenset(int(c) for c in cond)
        out = np.empty(len(cols))
        todo = []
        for i, c in enumerate(cols):
            v = self._value_cache.get((target, int(c), key_cond))
            if v is None:
                todo.append(i)
            else:
                out[i] = v
        self.n_hits += len(cols) - len(todo)
        if todo:
            s, ns = self.joint(cond)
            sub = cols[todo]
            vals = self._cmi_given_codes(t, sub, s, ns)
            out[todo] = vals
            for c, v in zip(sub, vals, strict=True):
                self._value_cache[(target, int(c), key_cond)] = float(v)
        return out

    def cmi_each_extra(self, target, variables, extras, fixed):
        # the joint code of ``fixed`` is built once; adding x is one multiply-add per row
        cols = np.asarray(list(variables), dtype=np.int64)
        r, nr = self.joint(fixed)
        t = self.pool[:, self._target_col(target)]
        out = []
        for x in extras:
            self.n_tests += len(cols)
            kx = int(self.card[x])
            out.append(self._cmi_given_codes(t, cols, r * kx + self.pool[:, x], nr * kx))
        return out

    def leave_one_out(self, target, members, fixed):
        return _FastLeaveOneOut(self, target, members, fixed)

    def reset_target_cache(self) -> None:
        """Drop cached values (they are keyed by target; call between targets to bound memory)."""
        self._value_cache.clear()


class _LeaveOneOut:
    """Backward elimination, one test at a time (reference: recompute the joint each time)."""

    def __init__(self, engine, target, members, fixed) -> None:
        self.engine = engine
        self.target = target
        self.members = [int(g) for g in members]
        self.fixed = [int(g) for g in fixed]

    def value(self, f: int) -> float:
        cond = [g for g in self.members if g != f] + self.fixed
        return float(self.engine.cmi_many(self.target, [f], cond)[0])

    def remove(self, f: int) -> None:
        self.members.remove(int(f))


class _FastLeaveOneOut(_LeaveOneOut):
    """Keeps the row hash of members ∪ fixed; "without f" is one subtraction."""

    def __init__(self, engine, target, members, fixed) -> None:
        super().__init__(engine, target, members, fixed)
        cols = self.members + self.fixed
        self.total = engine._hashed[:, cols].sum(axis=1, dtype=np.uint64)

    def value(self, f: int) -> float:
        eng = self.engine
        eng.n_tests += 1
        f = int(f)
        cond_set = frozenset(self.members + self.fixed) - {f}
        key = (self.target, f, cond_set)
        v = eng._value_cache.get(key)
        if v is not None:
            eng.n_hits += 1
            return v
        if not cond_set:
            eng.n_hits += 1
            v = float(eng.mi_table()[f, self.target]) if f < eng.m else float(
                eng.category_mi_table()[f - eng.m, self.target])
        else:
            s, ns = _compact(self.total - eng._hashed[:, f])
            t = eng.pool[:, eng._target_col(self.target)]
            v = float(eng._cmi_given_codes(t, np.array([f]), s, ns)[0])
        eng._value_cache[key] = v
        return v

    def remove(self, f: int) -> None:
        super().remove(f)
        self.total = self.total - self.engine._hashed[:, int(f)]
