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
* Ranking: descending score, stable (equal scores keep the lower index first). Scores that differ
  by less than their possible rounding error count as equal (MATLAB sums in another order).
"""

from __future__ import annotations

from itertools import combinations
from typing import ClassVar

import numpy as np

from ..params import Param
from ._base import N_FEATURES_TO_SELECT, RankingSelector
from ._discrete import JointEntropies, entropy_bits, label_codes, order_descending, tie_tolerance

F_COUNT = Param("f_count", None, int, low=1, none_ok=True,
                help="score only this many features of highest entropy (none: all)",
                advanced=True)
L_COUNT = Param("l_count", None, int, low=1, none_ok=True,
                help="take label pairs among this many labels of highest entropy (none: all)",
                advanced=True)


def fimf_scores(X: np.ndarray, Y: np.ndarray, f_count: int | None = None,
                l_count: int | None = None) -> tuple[np.ndarray, np.ndarray]:
    """FIMF's ranking and scores (bits; −inf for unscored features) of X (n × m) for Y (n × q)."""
    B = (np.asarray(X, dtype=np.float64) > 0.5).astype(np.int64)
    L = (label_codes(Y) > 0.5).astype(np.int64)
    n, m = B.shape
    q = L.shape[1]
    je = JointEntropies(B, np.full(m, 2, dtype=np.int64))
    h_l = np.array([entropy_bits(L[:, a]) for a in range(q)])
    top_labels = np.argsort(-h_l, kind="stable")[: q if l_count is None else min(l_count, q)]
    pairs = list(combinations(top_labels.tolist(), 2))
    zero = np.zeros(n, dtype=np.int64)
    ent = je.entropies([zero] + [L[:, a] for a in range(q)]
                       + [L[:, a] * 2 + L[:, b] for a, b in pairs])
    h_f = ent[:, 0]
    h_fl = ent[:, 1:1 + q]
    h_fll = ent[:, 1 + q:]
    score = q * h_f - h_fl.sum(axis=1)
    for k, (a, b) in enumerate(pairs):
        score = score - h_f + h_fl[:, a] + h_fl[:, b] - h_fll[:, k]
    scored = np.argsort(-h_f, kind="stable")[: m if f_count is None else min(f_count, m)]
    scores = np.full(m, -np.inf)
    scores[scored] = score[scored]
    weight = (2 * q + 4 * len(pairs)) * np.log2(max(n, 2))
    return order_descending(scores, tie_tolerance(weight)), scores


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

    params: ClassVar[tuple[Param, ...]] = (F_COUNT, L_COUNT, N_FEATURES_TO_SELECT)

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
