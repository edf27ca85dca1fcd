"""Shared pieces of the information-theoretic baselines (D2F, FIMF, MI-MCF).

* :func:`label_codes` — how labels are read: a column with values in {0, 1} is kept; a column in
  {−1, +1} becomes 0/1 (+1 → 1); any other column is coded 0..k−1 by its sorted distinct values
  (each distinct value is one state, as the authors' entropy code treats a label column).
* :func:`compact_columns` — every feature column coded 0..c−1 by its sorted distinct values
  (plug-in entropies do not depend on the names of the states).
* :class:`JointEntropies` — plug-in entropies in bits of merged rows ``H(X_j, Z)`` for every
  feature column ``X_j`` at once and many discrete variables ``Z`` (a label, a pair of labels, a
  selected feature with a label …). The counts come from one sparse product: each column is
  one-hot coded without its most frequent state (sparse for sparse data), ``N = OHᵀ · [Z = z]``
  counts every other state, and the most frequent state's count is the rest of the ``Z = z``
  total. With ``S = Σ_cells c·log2(c)``, ``H = log2(n) − S/n``.
* :func:`tie_tolerance` — scores that differ by less than the possible floating-point rounding of
  their sums are ties (D2F then settles them in the authors' own summation order).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import scipy.sparse as sp

from ..limits import check_memory

_CELL_BUDGET = 1 << 23  # float64 cells of one count block (64 MiB)


def label_codes(Y: np.ndarray) -> np.ndarray:
    """Labels (n × q) as non-negative integer codes: 0/1 kept, −1/+1 → 0/1, else 0..k−1."""
    Y = np.asarray(Y)
    out = np.empty(Y.shape, dtype=np.int64)
    for j in range(Y.shape[1]):
        col = Y[:, j]
        vals = np.unique(col)
        if np.all(np.isin(vals, (0, 1))):
            out[:, j] = col.astype(np.int64)
        elif np.all(np.isin(vals, (-1, 1))):
            out[:, j] = (col > 0).astype(np.int64)
        else:
            out[:, j] = np.unique(col, return_inverse=True)[1].ravel()
    return out


def compact_columns(X: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Each column coded 0..c−1 by its sorted distinct values; returns (codes n × m, c per column)."""
    X = np.asarray(X)
    n, m = X.shape
    codes = np.empty((n, m), dtype=np.int64)
    cards = np.empty(m, dtype=np.int64)
    for j in range(m):
        u, inv = np.unique(X[:, j], return_inverse=True)
        codes[:, j] = inv.ravel()
        cards[j] = u.size
    return codes, cards


def _xlogx(c: np.ndarray) -> np.ndarray:
    out = np.zeros(c.shape, dtype=np.float64)
    pos = c > 0
    out[pos] = c[pos] * np.log2(c[pos])
    return out


class JointEntropies:
    """``H(X_j, Z)`` in bits for every column j of ``codes`` and many discrete variables Z.

    ``codes``: (n, m) integer codes 0..c_j−1 (see :func:`compact_columns`), ``cards``: c_j.
    """

    def __init__(self, codes: np.ndarray, cards: np.ndarray) -> None:
        n, m = codes.shape
        self.n, self.m = n, m
        self.codes = codes
        counts = [np.bincount(codes[:, j], minlength=int(cards[j])) for j in range(m)]
        ref = np.array([int(np.argmax(c)) for c in counts], dtype=np.int64)  # most frequent
        # column index of state c ≠ ref_j of feature j in the one-hot matrix
        base = np.concatenate(([0], np.cumsum(cards - 1)))[:-1]
        self.n_cols = int(np.sum(cards - 1))
        rows, cols = np.nonzero(codes != ref[None, :])
        c = codes[rows, cols]
        d = base[cols] + np.where(c < ref[cols], c, c - 1)
        self.onehot_t = sp.csr_array(
            (np.ones(rows.size), (d, rows)), shape=(self.n_cols, n))  # D × n
        owner = np.repeat(np.arange(m), cards - 1)
        self.agg = sp.csr_array(
            (np.ones(self.n_cols), (owner, np.arange(self.n_cols))), shape=(m, self.n_cols))
        self.log2n = float(np.log2(n)) if n > 0 else 0.0

    def entropies(self, variables: Sequence[np.ndarray]) -> np.ndarray:
        """(m, len(variables)): ``H(X_j, Z_g)``; each Z_g is an (n,) integer code vector ≥ 0.

        A variable whose count table would be much larger than the data (many states on both
        sides) is counted by sorting instead (:meth:`_by_sort`)."""
        out = np.empty((self.m, len(variables)))
        pending: list[tuple[int, np.ndarray, int]] = []
        for g, z in enumerate(variables):
            z = np.asarray(z, dtype=np.int64)
            present = np.bincount(z) > 0 if z.size else np.ones(1, dtype=bool)
            zc = (np.cumsum(present) - 1)[z]  # the states present, coded 0..k−1
            k = int(present.sum())
            if k * max(self.n_cols, self.m) > 4 * self.n * self.m + _CELL_BUDGET // 8:
                out[:, g] = self._by_sort(zc, k)
            else:
                pending.append((g, zc, k))
        i = 0
        while i < len(pending):
            # a block of variables whose count table fits the cell budget
            blocks, width, cols = [], 0, []
            while i < len(pending):
                g, zc, k = pending[i]
                if blocks and (width + k) * max(self.n_cols, self.m) > _CELL_BUDGET:
                    break
                blocks.append((g, k))
                cols.append(width + zc)
                width += k
                i += 1
            check_memory(8.0 * 3 * width * max(self.n_cols, self.m, 1),
                         "the joint count table of the entropy computation")
            cols = np.concatenate(cols)
            Z = np.zeros((self.n, width))
            Z[np.tile(np.arange(self.n), len(blocks)), cols] = 1.0
            totals = np.bincount(cols, minlength=width).astype(np.float64)
            N = self.onehot_t @ Z  # D × width: counts of the other states
            rest = totals[None, :] - self.agg @ N  # m × width: the most frequent state
            S = self.agg @ _xlogx(N) + _xlogx(rest)
            off = 0
            for g, k in blocks:
                out[:, g] = self.log2n - S[:, off:off + k].sum(axis=1) / self.n
                off += k
        return out

    def _by_sort(self, zc: np.ndarray, k: int) -> np.ndarray:
        """``H(X_j, Z)`` for every j by sorting the merged codes of each column (n × m keys)."""
        n, m = self.n, self.m
        check_memory(8.0 * 4 * n * m, "the merged codes of the entropy computation")
        keys = self.codes * k + zc[:, None]
        keys.sort(axis=0)
        new = np.ones((n, m), dtype=bool)
        new[1:] = keys[1:] != keys[:-1]
        starts = np.flatnonzero(new.T.ravel())  # column-major: runs never cross columns
        counts = np.diff(np.append(starts, n * m)).astype(np.float64)
        S = np.bincount(starts // n, weights=counts * np.log2(counts), minlength=m)
        return self.log2n - S / n


def tie_tolerance(weight: float) -> float:
    """Largest rounding error of a float sum whose terms have total absolute size ``weight``."""
    return 4.0 * np.finfo(np.float64).eps * max(float(weight), 1.0)
