"""Summaries of evaluation frames: mean and SD over splits, sensitivity matrices, tables over
data sets and the Friedman analysis of the paper.

Summaries are honest: each says over how many splits a mean was taken (``n`` of ``n_splits``)
and counts the splits where a feature set was empty (``n_empty``) instead of hiding them.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np
import pandas as pd

from ..errors import InvalidDataError, ParameterError
from .metrics import METRICS

#: The columns of an evaluation's tidy frame: one row per (split, feature set, metric).
COLUMNS = ["protocol", "split", "feature_set", "n_features", "metric", "value", "seconds"]
#: The columns of a study's result frame beside its grid or method columns.
RESULT_COLUMNS = ("split", "metric", "value", "n_features", "seconds")

__all__ = [
    "friedman_over_data_sets",
    "mean_sd",
    "mean_table",
    "sensitivity_matrix",
    "sensitivity_summary",
    "summarise",
]


def mean_sd(frame: pd.DataFrame, keys: list[str]) -> pd.DataFrame:
    """Per group of ``keys`` (in order of appearance): mean, sample SD and count of ``value``
    (NaN skipped), ``n_splits`` (rows in the group), ``n_empty`` (rows with
    ``n_features = 0``) and the means of ``n_features`` and ``seconds``."""
    f = frame.assign(_empty=(frame["n_features"] == 0).astype(int))
    return (
        f.groupby(keys, sort=False)
        .agg(mean=("value", "mean"), sd=("value", "std"), n=("value", "count"),
             n_splits=("value", "size"), n_empty=("_empty", "sum"),
             n_features=("n_features", "mean"), seconds=("seconds", "mean"))
        .reset_index()
    )


def summarise(frame: pd.DataFrame) -> pd.DataFrame:
    """Mean and sample SD over splits per (feature set, metric).

    Returns
    -------
    DataFrame
        Columns ``feature_set, metric, mean, sd, n, n_splits, n_empty, n_features, seconds``:
        ``sd`` is the sample SD (ddof = 1; NaN with one value); ``n`` the splits with a value,
        ``n_splits`` all splits, ``n_empty`` the splits where the set was empty (no value: the
        mean is over ``n`` of ``n_splits`` splits); ``n_features`` and ``seconds`` means over
        all splits. Feature sets keep their order of appearance, metrics that of
        :data:`METRICS`.
    """
    missing = set(COLUMNS) - set(frame.columns)
    if missing:
        raise InvalidDataError(f"not an evaluation frame: missing columns {sorted(missing)}")
    out = mean_sd(frame, ["feature_set", "metric"])
    set_order = {name: i for i, name in enumerate(dict.fromkeys(frame["feature_set"]))}
    metric_order = {name: i for i, name in enumerate(METRICS)}
    out = out.sort_values(
        ["feature_set", "metric"],
        key=lambda col: col.map(set_order if col.name == "feature_set" else metric_order),
        kind="stable",
    )
    return out.reset_index(drop=True)


def _grid_keys(frame: pd.DataFrame) -> list[str]:
    keys = [c for c in frame.columns if c not in RESULT_COLUMNS]
    if not keys or any(c not in frame.columns for c in RESULT_COLUMNS):
        raise InvalidDataError("not a sensitivity frame (see camcf.evaluation.sensitivity)")
    return keys


def sensitivity_summary(frame: pd.DataFrame) -> pd.DataFrame:
    """Mean and sample SD over folds per (grid point, metric): grid columns, then
    ``metric, mean, sd, n, n_splits, n_empty, n_features, seconds`` (grid order kept)."""
    keys = _grid_keys(frame)
    return mean_sd(frame, [*keys, "metric"])


def sensitivity_matrix(
    frame: pd.DataFrame, metric: str, rows: str, columns: str, *, value: str = "mean"
) -> pd.DataFrame:
    """One metric's fold mean (or ``"n_features"``) as a ``rows`` × ``columns`` matrix of a
    :func:`camcf.evaluation.sensitivity` frame with exactly those two grid parameters."""
    keys = _grid_keys(frame)
    if sorted(keys) != sorted([rows, columns]):
        raise ParameterError(
            f"the frame's grid parameters are {keys}; pass rows and columns naming two of them "
            "(filter the frame down to two grid parameters first)"
        )
    if metric not in set(frame["metric"]):
        raise ParameterError(f"metric {metric!r} is not in this frame")
    summary = sensitivity_summary(frame[frame["metric"] == metric])
    return summary.pivot(index=rows, columns=columns, values=value)


def mean_table(comparisons: Mapping[str, Any], metric: str) -> pd.DataFrame:
    """Data sets × methods: each method's mean ``metric`` over the splits of each data set
    (NaN where it had no value on any split)."""
    rows = {}
    for name, cmp in comparisons.items():
        s = cmp.summary[cmp.summary["metric"] == metric].set_index("feature_set")["mean"]
        rows[name] = s
    return pd.DataFrame(rows).T


def friedman_over_data_sets(
    comparisons: Mapping[str, Any],
    *,
    alpha: float = 0.05,
    test: str = "bonferroni-dunn",
) -> pd.DataFrame:
    """Friedman / Iman–Davenport and the CD per metric over data sets (the paper's analysis).

    The score of a method on a data set is its mean over that data set's splits. A method
    without a value on a data set (it selected nothing or failed on every split) is ranked last
    there; ``filled`` counts such cells. Needs the same methods on every data set and ≥ 2 data
    sets.

    Returns
    -------
    DataFrame
        One row per metric: ``metric, chi2, iman_davenport, critical_value, p_value,
        significant, cd, filled`` and one ``rank:<method>`` column per method.
    """
    from .. import stats

    if len(comparisons) < 2:
        raise ParameterError("the Friedman test over data sets needs at least 2 data sets; "
                             "on one data set compare the per-split ranks instead")
    method_sets = {tuple(c.kinds) for c in comparisons.values()}
    if len(method_sets) != 1:
        raise ParameterError("every data set must be compared with the same methods")
    names = list(next(iter(method_sets)))
    rows = []
    for metric, info in METRICS.items():
        table = mean_table(comparisons, metric)[names].to_numpy(dtype=float)
        lower = not info["higher_is_better"]
        filled = int(np.isnan(table).sum())
        table = np.where(np.isnan(table), np.inf if lower else -np.inf, table)
        table = np.nan_to_num(table, posinf=1e300, neginf=-1e300)
        fr = stats.friedman(table, lower_is_better=lower, alpha=alpha)
        cd = stats.critical_difference(len(names), len(comparisons), alpha, test)
        rows.append({"metric": metric, "chi2": fr.chi2, "iman_davenport": fr.iman_davenport,
                     "critical_value": fr.critical_value, "p_value": fr.p_value,
                     "significant": fr.significant, "cd": cd, "filled": filled,
                     **{f"rank:{n}": r for n, r in zip(names, fr.average_ranks, strict=True)}})
    return pd.DataFrame(rows)
