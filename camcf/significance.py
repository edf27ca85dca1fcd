"""Thresholds with a meaning: what a number of bits says at a sample size, and back.

Ca-MCF's thresholds δ1 and δ2 are in bits of plug-in (conditional) mutual information. A value
I measured on n rows is a G statistic (the log-likelihood ratio statistic of the test of
independence on the same contingency table):

    G = 2 · n · ln 2 · I        (I in bits)

and under independence G is approximately χ²-distributed with df degrees of freedom, the df of
the test's table: (|X| − 1)(|T| − 1) per stratum of the conditioning set (the decision record
states the exact rule, :meth:`camcf.Result.record_table`). So a fixed number of bits is a
different amount of evidence at every n: 0.05 bits is G ≈ 13 at n = 194 but G ≈ 1,116 at
n = 16,105. Read the other way, a significance level α gives the threshold

    δ = χ²₁₋α(df) / (2 · n · ln 2)

which is what ``camcf.run(..., delta1="auto", delta2="auto", significance=α)`` uses
(:func:`suggest_thresholds`). Very small p values are computed as logarithms
(``scipy.stats.chi2.logsf``) and reported as powers of ten, so they never underflow to 0.

>>> ev = p_value_of(0.05, 16105, 1)
>>> ev.exponent  # 0.05 bits at n = 16,105, one degree of freedom: p < 10^-244
-244
>>> round(threshold_for(0.01, 194, 1), 4)  # the bits that are p = 0.01 at n = 194, df = 1
0.0247
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

#: ln 2: G = 2 · n · LN2 · I(bits)
LN2 = math.log(2.0)
_LN10 = math.log(10.0)

#: how δ1 and δ2 are derived from α (what :func:`suggest_thresholds` returns as ``rule``)
RULE = ("δ = χ²₁₋α(df) / (2·n·ln 2), the G-test threshold at level α on n rows; δ1 with the "
        "df of the typical feature × category table, (median over the non-constant features "
        "of their number of levels) − 1, rounded up; δ2 with the df of a category × category "
        "table, 1 (two indicators).")


def g_statistic(value, n):
    """G = 2·n·ln 2·value for a value in bits (an array or a number)."""
    return 2.0 * n * LN2 * np.asarray(value, dtype=float) if np.ndim(value) else \
        2.0 * n * LN2 * float(value)


def threshold_for(significance: float, n: int, df: int) -> float:
    """The threshold in bits that a G test at level ``significance`` with ``df`` degrees of
    freedom on ``n`` rows amounts to: χ²₁₋α(df) / (2·n·ln 2) (0 when df = 0: a constant
    variable carries no information, any positive value exceeds it)."""
    from scipy.stats import chi2

    _check_level(significance)
    if n <= 0:
        raise ValueError(f"n must be positive, got {n}")
    if df <= 0:
        return 0.0
    return float(chi2.isf(significance, df)) / (2.0 * n * LN2)


def p_value(g, df):
    """P(χ²_df ≥ g) (``scipy.special.chdtrc``, what ``scipy.stats.chi2.sf`` computes); 1 where
    df ≤ 0 or g ≤ 0. It underflows to 0 below about 1e-308: use :func:`log10_p` to show such
    values. Arrays or numbers."""
    from scipy.special import chdtrc

    g = np.asarray(g, dtype=float)
    df = np.asarray(df, dtype=float)
    g, df = np.broadcast_arrays(g, df)
    ok = (df > 0) & (g > 0)
    out = np.ones(g.shape)
    out[np.isnan(g)] = np.nan
    if ok.any():
        out[ok] = chdtrc(df[ok], g[ok])
    return float(out) if out.ndim == 0 else out


def _log_upper_gamma_cf(a: np.ndarray, x: np.ndarray) -> np.ndarray:
    """ln Q(a, x), the regularized upper incomplete gamma function, for x > a + 1, by its
    continued fraction evaluated with the modified Lentz method (Press et al., Numerical
    Recipes, 3rd ed., §6.2): Q(a, x) = e^(−x)·x^a / Γ(a) · 1 / (x + 1 − a − 1·(1 − a) /
    (x + 3 − a − 2·(2 − a) / (x + 5 − a − …))). Needed where Q underflows double precision."""
    from scipy.special import gammaln

    tiny = 1e-300
    b = x + 1.0 - a
    c = np.full_like(x, 1.0 / tiny)
    d = 1.0 / b
    h = d.copy()
    done = np.zeros(x.shape, dtype=bool)
    for i in range(1, 500):
        an = -i * (i - a)
        b = b + 2.0
        d = an * d + b
        d = np.where(np.abs(d) < tiny, tiny, d)
        c = b + an / c
        c = np.where(np.abs(c) < tiny, tiny, c)
        d = 1.0 / d
        step = d * c
        h = np.where(done, h, h * step)
        done |= np.abs(step - 1.0) < 1e-15
        if done.all():
            break
    return -x + a * np.log(x) - gammaln(a) + np.log(h)


def log10_p(g, df):
    """log10 of the p value P(χ²_df ≥ g), never −inf for a finite g: from the survival
    function where it is above 1e-280, else from the continued fraction of the upper
    incomplete gamma function (``scipy.stats.chi2.logsf`` underflows there too); 0 (p = 1)
    where df ≤ 0 (a test whose table has a constant variable: G is 0 whatever the data) or
    g ≤ 0. Arrays or numbers."""
    from scipy.special import chdtrc

    g = np.asarray(g, dtype=float)
    df = np.asarray(df, dtype=float)
    g, df = np.broadcast_arrays(g, df)
    out = np.zeros(g.shape)
    ok = (df > 0) & (g > 0) & np.isfinite(g)
    out[np.isnan(g)] = np.nan
    out[(df > 0) & (g == np.inf)] = -np.inf
    if ok.any():
        sf = chdtrc(df[ok], g[ok])
        with np.errstate(divide="ignore"):
            vals = np.log10(sf)
        small = sf < 1e-280
        if small.any():
            vals[small] = _log_upper_gamma_cf(df[ok][small] / 2.0, g[ok][small] / 2.0) / _LN10
        out[ok] = vals
    return float(out) if out.ndim == 0 else out


@dataclass(frozen=True)
class Evidence:
    """What a threshold (or a value) of ``delta`` bits means at ``n`` rows and ``df`` degrees
    of freedom: ``g`` = 2·n·ln 2·delta, ``p_value`` = P(χ²_df ≥ g) (may be 0.0 when tiny),
    ``log10_p`` its base-10 logarithm (never −inf for a finite g)."""

    delta: float
    n: int
    df: int
    g: float
    p_value: float
    log10_p: float

    @property
    def exponent(self) -> int:
        """k such that p < 10^k is the tightest power-of-ten bound (``ceil(log10 p)``)."""
        return int(math.ceil(self.log10_p)) if self.log10_p < 0 else 0

    def p_text(self) -> str:
        """The p value in words: ``p ≈ 0.012`` when it is readable, else ``p < 10⁻²⁴⁴``."""
        if self.log10_p >= -3:
            return f"p ≈ {self.p_value:.2g}"
        return "p < 10" + _superscript(self.exponent)

    def describe(self, symbol: str = "δ") -> str:
        """One sentence, e.g. ``δ1 = 0.05 bits ≈ p < 10⁻²⁴⁴ for df = 1 at n = 16,105``."""
        return (f"{symbol} = {self.delta:g} bits ≈ {self.p_text()} for df = {self.df} at "
                f"n = {self.n:,}")


_SUP = str.maketrans("-0123456789", "⁻⁰¹²³⁴⁵⁶⁷⁸⁹")


def _superscript(k: int) -> str:
    return str(k).translate(_SUP)


def p_value_of(delta: float, n: int, df: int = 1) -> Evidence:
    """The evidence a value of ``delta`` bits on ``n`` rows amounts to with ``df`` degrees of
    freedom (by default 1: a binary feature against a category indicator).

    For a slider's help: ``p_value_of(0.05, 16105, 1).describe("δ1")`` is
    ``"δ1 = 0.05 bits ≈ p < 10⁻²⁴⁴ for df = 1 at n = 16,105"``.
    """
    if n <= 0:
        raise ValueError(f"n must be positive, got {n}")
    g = g_statistic(float(delta), int(n))
    return Evidence(delta=float(delta), n=int(n), df=int(df), g=g,
                    p_value=p_value(g, df), log10_p=log10_p(g, df))


def typical_feature_df(feature_levels) -> int:
    """The df of the typical feature × category table: the median over the features that are
    not constant of (number of levels − 1), rounded up (1 when every feature is constant)."""
    lv = np.asarray(feature_levels, dtype=np.int64)
    lv = lv[lv > 1]
    if lv.size == 0:
        return 1
    return max(1, int(math.ceil(float(np.median(lv - 1)))))


def thresholds_from_levels(feature_levels, n: int, significance: float) -> dict:
    """:func:`suggest_thresholds` from the features' numbers of levels (what
    :func:`camcf.run` has at hand)."""
    _check_level(significance)
    df1 = typical_feature_df(feature_levels)
    df2 = 1
    return {
        "delta1": threshold_for(significance, n, df1),
        "delta2": threshold_for(significance, n, df2),
        "significance": float(significance),
        "n": int(n),
        "df_delta1": df1,
        "df_delta2": df2,
        "rule": RULE,
    }


def suggest_thresholds(X_codes, Y, significance: float = 0.01) -> dict:
    """δ1 and δ2 from a significance level, for these data.

    Parameters
    ----------
    X_codes : array (n, m) of discrete codes, or a ``scipy.sparse`` matrix of them
        The features as Ca-MCF will see them (after :func:`camcf.discretize.discretize`).
    Y : array (n, q) of label codes
        Only its number of rows is used: every category indicator is binary.
    significance : float in (0, 1)
        The level α of a G test.

    Returns
    -------
    dict
        ``delta1``, ``delta2`` (bits), ``significance``, ``n`` (rows), ``df_delta1``,
        ``df_delta2`` (the degrees of freedom used) and ``rule`` (:data:`RULE`, in words):
        δ = χ²₁₋α(df) / (2·n·ln 2) with df the typical feature × category table's
        ((median levels − 1) over the non-constant features, rounded up) for δ1 and 1 (two
        indicators) for δ2.
    """
    from .engine import pool_levels

    n = int(np.shape(X_codes)[0])
    if np.shape(Y)[0] != n:
        raise ValueError(f"X has {n} rows but Y has {np.shape(Y)[0]}")
    levels = pool_levels(X_codes, np.zeros((n, 0), dtype=np.uint8))
    return thresholds_from_levels(levels, n, significance)


def feature_kind(df: int) -> str:
    """How a help text names the typical feature behind ``df`` degrees of freedom against a
    category indicator: ``"a binary feature"`` for df = 1, else ``"a feature with k levels"``
    (k = df + 1)."""
    return "a binary feature" if int(df) == 1 else f"a feature with {int(df) + 1} levels"


def threshold_meaning(name: str, delta: float, n: int, df: int) -> str:
    """What threshold ``name`` ("delta1" or "delta2") of ``delta`` bits means on ``n`` rows, in
    one sentence for an input's help, from :func:`p_value_of`::

        δ1 = 0.05 bits ≈ p < 10⁻²⁴⁴ for a binary feature (df = 1) at n = 16,105

    For δ1 ``df`` is the typical feature × category table's (:func:`typical_feature_df`), for
    δ2 a category × category table's (1)."""
    ev = p_value_of(float(delta), int(n), int(df))
    symbol = {"delta1": "δ1", "delta2": "δ2"}[name]
    what = (f"{feature_kind(df)} against a category" if name == "delta1"
            else "two label categories")
    return (f"{symbol} = {ev.delta:g} bits ≈ {ev.p_text()} for {what} (df = {ev.df}) at "
            f"n = {ev.n:,}")


def typical_table(name: str, df: int) -> str:
    """Which table a suggested threshold's df comes from, in words (for a help text)."""
    if name == "delta1":
        return (f"δ1 uses the df of the typical feature × category table: the median number of "
                f"levels of the non-constant features minus 1 (here {int(df)}, "
                f"{feature_kind(df)})")
    return "δ2 uses the df of a category × category table: 1 (two indicators)"


def _check_level(significance: float) -> None:
    if not 0.0 < float(significance) < 1.0:
        from .errors import ParameterError

        raise ParameterError(f"significance must be in (0, 1), got {significance!r}",
                             name="significance", value=significance, allowed="in (0, 1)")


__all__ = [
    "LN2", "RULE", "Evidence", "feature_kind", "g_statistic", "log10_p", "p_value", "p_value_of",
    "suggest_thresholds", "threshold_for", "threshold_meaning", "thresholds_from_levels",
    "typical_feature_df", "typical_table",
]
