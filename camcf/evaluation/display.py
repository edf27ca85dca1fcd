"""Honest tables of evaluation summaries, for the app and reports (no Streamlit here).

The rule: every cell is ``mean ± SD`` over the splits that have a value; when a method has no
value on some splits (it selected nothing there, or failed) the cell says over how many
splits the mean was taken (``… (n = 3 of 5)``) and never compares silently with a mean over
other splits; a method without any value shows "nothing selected". ``n_empty`` counts the splits
where the method selected nothing.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence

import pandas as pd

from .metrics import METRICS

__all__ = ["cell", "metrics_table"]


def cell(mean: float, sd: float, n: int, n_splits: int, digits: int = 4) -> str:
    """``0.1234 ± 0.0100``; ``(n = 3 of 5)`` appended when some splits have no value;
    ``± n/a`` with one value; ``nothing selected`` with none."""
    if n == 0 or mean is None or (isinstance(mean, float) and math.isnan(mean)):
        return "nothing selected"
    text = f"{mean:.{digits}f} ± " + ("n/a" if sd is None or math.isnan(sd) else
                                      f"{sd:.{digits}f}")
    if n < n_splits:
        text += f" (n = {int(n)} of {int(n_splits)})"
    return text


def metrics_table(summary: pd.DataFrame, sets: Sequence[str],
                  names: Mapping[str, str] | None = None, *, n_total: int | None = None
                  ) -> pd.DataFrame:
    """Metrics as rows, feature sets (methods) as columns, plus rows for the number of
    features (mean ± SD is not kept: mean over splits), splits where nothing was selected, and
    seconds per split. ``summary`` is :func:`camcf.evaluation.summarise`'s frame."""
    names = dict(names or {})
    by = summary.set_index(["feature_set", "metric"])
    rows = []
    for metric, info in METRICS.items():
        row = {"metric": f"{info['name']} {'↑' if info['higher_is_better'] else '↓'}"}
        for s in sets:
            r = by.loc[(s, metric)]
            row[names.get(s, s)] = cell(r["mean"], r["sd"], int(r["n"]), int(r["n_splits"]))
        rows.append(row)
    first = next(iter(METRICS))
    of = f" of {n_total}" if n_total else ""
    rows.append({"metric": "Features (mean over splits)",
                 **{names.get(s, s): f"{by.loc[(s, first), 'n_features']:.1f}{of}"
                    for s in sets}})
    rows.append({"metric": "Splits with nothing selected",
                 **{names.get(s, s): f"{int(by.loc[(s, first), 'n_empty'])} of "
                                     f"{int(by.loc[(s, first), 'n_splits'])}" for s in sets}})
    rows.append({"metric": "Seconds per split (selection)",
                 **{names.get(s, s): f"{by.loc[(s, first), 'seconds']:.3f}" for s in sets}})
    return pd.DataFrame(rows)
