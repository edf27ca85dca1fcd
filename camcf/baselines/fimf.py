"""FIMF — Lee & Kim 2015, "Fast multi-label feature selection based on information-theoretic
feature ranking" (Pattern Recognition 48), as the authors' ``fimf.m`` runs it.

The rule (entropies in bits of merged rows, plug-in):

* **the data are binarised first**, as the authors' code does: every value > 0.5 becomes 1, every
  other 0 (so every non-zero code is 1). Labels are read by
  :func:`camcf.baselines._discrete.label_codes` (−1/+1 → 0/1) and binarised by the same rule.
* Only the ``f_count`` features of highest entropy are scored (ties: lower index first); the
  others score −inf and come last, in index order, as the authors' stable ``sortrows`` leaves
  them. Label pairs are taken among the ``l_count`` labels of highest entropy. ``None`` (the
  authors' driver) means all; a count above the number available is capped.
* ``Score(f) = q·H(f) − Σ_l H(f, l) + Σ_{m<n} [−H(f) + H(f, l_m) + H(f, l_n) − H(f, l_m, l_n)]``,
  the first two terms over all q labels, the pairs over the chosen labels.
* Ranking: descending score, stable (equal scores keep the lower index first). Every entropy and
  sum is evaluated in the code's order, so that mathematically equal scores (e.g. a feature and
  its complement) carry the code's own rounding and sort as there (checked against the authors'
  ``fimf.m`` in Octave; with MATLAB's MKL the last bits may differ).
"""

from __future__ import annotations

from itertools import combinations
from typing import ClassVar

import numpy as np

from ..params import Param
from . import params as _declared
from ._base import N_FEATURES_TO_SELECT, RankingSelector
from ._discrete import label_codes

F_COUNT, L_COUNT = _declared.FIMF_F_COUNT, _declared.FIMF_L_COUNT


def _b_entropy(counts: np.ndarray, n: int) -> np.ndarray:
    """Entropy in bits from cell counts (last axis, in the code's cell order), as the authors'
    ``b_entropy`` computes it: ``−(p'·log2 p)`` over the non-empty cells, summed left to right."""
    p = counts / n
    with np.errstate(divide="ignore", invalid="ignore"):
        terms = np.where(counts > 0, p * np.log2(p), 0.0)
    return -np.add.accumulate(terms, axis=-1)[..., -1]


def fimf_scores(X: np.ndarray, Y: np.ndarray, f_count: int | None = None,
                l_count: int | None = None) -> tuple[np.ndarray, np.ndarray]:
    """FIMF's ranking and scores (bits; −inf for unscored features) of X (n × m) for Y (n × q).

    Every entropy and every sum is evaluated in the authors' order (cells by their binary key,
    first column least significant; sums left to right), so that scores which are equal in exact
    arithmetic come out with the code's own rounding, and its stable sort orders them as it does.
    """
    B = (np.asarray(X, dtype=np.float64) > 0.5).astype(np.float64)
    L = (label_codes(Y) > 0.5).astype(np.float64)
    n, m = B.shape
    q = L.shape[1]
    f1 = B.sum(axis=0)  # (m,) rows with f = 1
    l1 = L.sum(axis=0)  # (q,)
    fl11 = B.T @ L  # (m, q) rows with f = 1 and l = 1
    h_f = _b_entropy(np.stack([n - f1, f1], axis=-1), n)
    h_l = _b_entropy(np.stack([n - l1, l1], axis=-1), n)
    # H(f, l): key f + 2·l → cells (0,0), (1,0), (0,1), (1,1)
    c10 = f1[:, None] - fl11
    c01 = l1[None, :] - fl11
    h_fl = _b_entropy(np.stack([n - c10 - c01 - fl11, c10, c01, fl11], axis=-1), n)
    top_labels = np.argsort(-h_l, kind="stable")[: q if l_count is None else min(l_count, q)]
    scored = np.argsort(-h_f, kind="stable")[: m if f_count is None else min(f_count, m)]
    score = np.zeros(m) + h_f * q
    acc = h_fl[:, 0].copy() if q else np.zeros(m)
    for a in range(1, q):
        acc = acc + h_fl[:, a]
    score = score - acc
    for i, j in combinations(range(top_labels.size), 2):
        a, b = int(top_labels[i]), int(top_labels[j])
        both = L[:, a] * L[:, b]
        c111 = B.T @ both  # (m,)
        l11 = both.sum()
        c110 = fl11[:, a] - c111
        c101 = fl11[:, b] - c111
        c100 = f1 - fl11[:, a] - fl11[:, b] + c111
        c011 = l11 - c111
        c010 = (l1[a] - l11) - c110
        c001 = (l1[b] - l11) - c101
        c000 = n - (c100 + c010 + c110 + c001 + c101 + c011 + c111)
        # key f + 2·l_a + 4·l_b
        h3 = _b_entropy(np.stack([c000, c100, c010, c110, c001, c101, c011, c111], axis=-1), n)
        score = score - h_f + h_fl[:, a] + h_fl[:, b] - h3
    scores = np.full(m, -np.inf)
    scores[scored] = score[scored]
    return np.argsort(-scores, kind="stable"), scores


class FIMF(RankingSelector):
    """FIMF feature ranking (Lee & Kim 2015) on binarised data, as the authors' code.

    Parameters
    ----------
    f_count : int or None
        Score only the ``f_count`` features of highest entropy (None: all).
    l_count : int or None
        Take label pairs among the ``l_count`` labels of highest entropy (None: all).
    n_features_to_select : int, float or None
        Where the ranking is cut for ``transform``.

    Attributes
    ----------
    ranking_ : ndarray (n_features,)
        Every feature, 0-based, best first.
    scores_ : ndarray (n_features,)
        FIMF's score in bits (−inf for the features not scored).
    """

    params: ClassVar[tuple[Param, ...]] = _declared.FIMF

    def __init__(self, f_count: int | None = F_COUNT.default,
                 l_count: int | None = L_COUNT.default,
                 n_features_to_select: int | float | None = N_FEATURES_TO_SELECT.default):
        self.f_count = f_count
        self.l_count = l_count
        self.n_features_to_select = n_features_to_select

    def fit(self, X, Y) -> FIMF:
        """Rank the features of X (n_samples × n_features) for Y (binarised at 0.5)."""
        p = self._checked_params()
        X, Y = self._validate_xy(X, Y)
        self.ranking_, self.scores_ = fimf_scores(X, Y, p["f_count"], p["l_count"])
        return self
