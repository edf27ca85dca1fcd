"""Significance tests for comparing methods over data sets (Demšar 2006).

The rule, for ``scores`` of shape (N data sets × k methods):

* per data set the methods are ranked, 1 = best (``lower_is_better`` says which direction is
  better), ties get the average of the ranks they span; ``average_ranks`` R_j are the means over
  data sets;
* Friedman χ²_F = 12N / (k(k+1)) · (Σ_j R_j² − k(k+1)²/4);
* Iman–Davenport F_F = (N − 1) χ²_F / (N(k − 1) − χ²_F), compared with the F distribution with
  (k − 1, (k − 1)(N − 1)) degrees of freedom: ``critical_value`` is its 1 − α quantile and
  ``p_value`` its upper tail at F_F;
* critical difference CD = q_α · √(k(k + 1) / (6N)); Bonferroni–Dunn (comparisons with one
  control): q_α = the two-sided normal quantile at α/(k − 1); Nemenyi (all pairs): the
  studentized range quantile for k means and infinite degrees of freedom, divided by √2.

Two methods (or a method and a control) differ significantly when their average ranks differ
by more than CD.

>>> round(critical_difference(8, 7), 3)
3.522
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from scipy import stats as _st

from .errors import InvalidDataError, ParameterError

__all__ = ["FriedmanResult", "critical_difference", "friedman", "q_alpha", "rank_scores"]

TESTS = ("bonferroni-dunn", "nemenyi")


def _alpha(alpha: float) -> float:
    if isinstance(alpha, bool) or not isinstance(alpha, int | float) or not 0 < alpha < 1:
        raise ParameterError(f"alpha must be a probability in (0, 1), got {alpha!r}")
    return float(alpha)


def rank_scores(scores, *, lower_is_better: bool) -> np.ndarray:
    """Ranks per row (1 = best; ties: average ranks), shape as ``scores`` (N × k).

    NaN is not allowed (a method without a value on a data set cannot be ranked): fill it
    first (e.g. with the worst value) and say so.
    """
    S = np.asarray(scores, dtype=float)
    if S.ndim != 2 or S.shape[0] < 1 or S.shape[1] < 2:
        raise InvalidDataError(f"scores must be 2-D (data sets × methods) with at least 2 "
                               f"methods, got shape {S.shape}")
    if not np.all(np.isfinite(S)):
        rows, cols = np.nonzero(~np.isfinite(S))
        raise InvalidDataError(
            f"scores hold {rows.size} missing or infinite value(s) (first at data set "
            f"{int(rows[0])}, method {int(cols[0])}); fill them (e.g. with the worst value) "
            "before ranking")
    return _st.rankdata(S if lower_is_better else -S, axis=1, method="average")


@dataclass(frozen=True)
class FriedmanResult:
    """The Friedman test and the Iman–Davenport correction on N data sets × k methods."""

    average_ranks: np.ndarray  # (k,), 1 = best
    ranks: np.ndarray  # (N, k)
    chi2: float
    iman_davenport: float  # F_F
    critical_value: float  # F_{1-α}(k - 1, (k - 1)(N - 1))
    p_value: float  # of F_F
    n_data_sets: int
    n_methods: int
    alpha: float

    @property
    def significant(self) -> bool:
        """F_F above its critical value: the methods do not all perform alike."""
        return bool(self.iman_davenport > self.critical_value)

    def to_dict(self) -> dict:
        def num(x: float) -> float | None:
            return float(x) if math.isfinite(x) else None

        return {"average_ranks": [float(r) for r in self.average_ranks], "chi2": num(self.chi2),
                "iman_davenport": num(self.iman_davenport),
                "critical_value": num(self.critical_value), "p_value": num(self.p_value),
                "n_data_sets": self.n_data_sets, "n_methods": self.n_methods,
                "alpha": self.alpha, "significant": self.significant}


def friedman(scores, *, lower_is_better: bool, alpha: float = 0.05) -> FriedmanResult:
    """Friedman χ²_F and Iman–Davenport F_F on ``scores`` (N data sets × k methods).

    Parameters
    ----------
    scores : array-like of shape (N, k)
        One metric's value per data set and method; no NaN (see :func:`rank_scores`).
    lower_is_better : bool
        True for losses (Hamming loss, coverage, ranking loss).
    alpha : float, default 0.05

    Returns
    -------
    FriedmanResult
        ``average_ranks``, ``chi2``, ``iman_davenport``, ``critical_value``, ``p_value``. With
        N = 1 or all ranks equal the statistics are not defined: F_F is NaN (p = NaN).
    """
    alpha = _alpha(alpha)
    R = rank_scores(scores, lower_is_better=lower_is_better)
    n, k = R.shape
    avg = R.mean(axis=0)
    chi2 = 12 * n / (k * (k + 1)) * (float(np.sum(avg ** 2)) - k * (k + 1) ** 2 / 4)
    denom = n * (k - 1) - chi2
    ff = (n - 1) * chi2 / denom if n > 1 and denom > 0 else math.nan
    df1, df2 = k - 1, (k - 1) * (n - 1)
    crit = float(_st.f.ppf(1 - alpha, df1, df2)) if df2 > 0 else math.nan
    p = float(_st.f.sf(ff, df1, df2)) if math.isfinite(ff) and df2 > 0 else math.nan
    return FriedmanResult(average_ranks=avg, ranks=R, chi2=float(chi2), iman_davenport=float(ff),
                          critical_value=crit, p_value=p, n_data_sets=n, n_methods=k,
                          alpha=alpha)


def q_alpha(n_methods: int, alpha: float = 0.05, test: str = "bonferroni-dunn") -> float:
    """The q_α of :func:`critical_difference` (2.690 for Bonferroni–Dunn, k = 8, α = 0.05)."""
    alpha = _alpha(alpha)
    if isinstance(n_methods, bool) or not isinstance(n_methods, int) or n_methods < 2:
        raise ParameterError(f"n_methods must be an integer ≥ 2, got {n_methods!r}")
    if test == "bonferroni-dunn":
        return float(_st.norm.ppf(1 - alpha / (2 * (n_methods - 1))))
    if test == "nemenyi":
        return float(_st.studentized_range.ppf(1 - alpha, n_methods, np.inf) / math.sqrt(2))
    raise ParameterError(f"test must be one of {TESTS}, got {test!r}")


def critical_difference(n_methods: int, n_data_sets: int, alpha: float = 0.05,
                        test: str = "bonferroni-dunn") -> float:
    """CD = q_α · √(k(k + 1) / (6N)) for k = ``n_methods`` and N = ``n_data_sets``.

    ``test``: ``"bonferroni-dunn"`` (every method against one control, as the paper) or
    ``"nemenyi"`` (all pairs).
    """
    if isinstance(n_data_sets, bool) or not isinstance(n_data_sets, int) or n_data_sets < 1:
        raise ParameterError(f"n_data_sets must be an integer ≥ 1, got {n_data_sets!r}")
    q = q_alpha(n_methods, alpha, test)
    return q * math.sqrt(n_methods * (n_methods + 1) / (6 * n_data_sets))
