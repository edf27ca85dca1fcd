"""``camcf compare``: several methods on the same splits of one or more data sets.

::

    camcf compare DATA [DATA …] [--methods camcf,mi-mcf,d2f,…] [--protocol repeated|kfold|holdout]
        [--repeats N] [--folds N] [--test-size F] [--seed N] [--n-features match|K]
        [--labels …] [--xml FILE] [--discretize auto|none] [--bins N] [--strategy …]
        [Ca-MCF's flags] [--k N] [--neighbours strict|authors] [--n-jobs N] --output OUT.json

DATA is a file (.arff, .mat, .csv) or the name of a shared data set (``camcf.catalog``; a
shared set with a fixed split uses it under ``--protocol holdout``). Every method selects on the
training part of each split (discretised on that part only) and ML-kNN classifies the test part
(:func:`camcf.evaluation.compare`). Ranking methods keep as many features as Ca-MCF selected on
the same split (``--n-features match``, the paper's protocol) or ``--n-features K``.

Written: ``OUT.json`` (settings, per data set the summary — mean ± SD over splits, the number of
splits with a value and of splits where the method selected nothing, features, seconds —, the
per-split values, the per-split ranks, failures; with ≥ 2 data sets the Friedman/Iman–Davenport
statistics and the critical difference per metric) and ``OUT.csv`` (the summary table).
Errors: one line on stderr, exit code 2.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import time
from pathlib import Path
from typing import Any

import pandas as pd

from ..errors import CamcfError, ParameterError
from ..output import json_safe
from .metrics import METRICS

__all__ = ["add_parser", "comparison_frame", "comparison_payload", "run"]

DESCRIPTION = (
    "Compare feature selection methods on the same splits: each selects on the training part, "
    "ML-kNN classifies the test part, the paper's seven metrics as mean ± SD; with two or more "
    "data sets, the Friedman test and the critical difference. Writes OUT.json and OUT.csv."
)


def add_parser(subparsers: Any) -> argparse.ArgumentParser:
    p = subparsers.add_parser("compare", help="several methods on the same splits: metrics, "
                                              "ranks, Friedman test (JSON + CSV)",
                              description=DESCRIPTION)
    add_arguments(p)
    p.set_defaults(func=run)
    return p


def add_arguments(p: argparse.ArgumentParser) -> None:
    from .. import methods
    from ..algorithm_params import ALGORITHM_PARAMS, DISCRETIZE_PARAMS
    from ..cli_params import add_param_flags

    data = p.add_argument_group("data")
    data.add_argument("data", metavar="DATA", nargs="+",
                      help="data file(s) (.arff, .mat, .csv) or shared data set name(s)")
    data.add_argument("--labels", help="label columns: comma-separated names, last:K or first:K")
    data.add_argument("--xml", help="MULAN XML file naming the label attributes")
    add_param_flags(data, DISCRETIZE_PARAMS)
    m = p.add_argument_group("methods")
    m.add_argument("--methods", default=None,
                   help="comma-separated names among " + ", ".join(methods.METHODS)
                        + " (default: every available method)")
    m.add_argument("--n-features", default="match",
                   help="ranking methods keep: 'match' (as many as Ca-MCF selected on the same "
                        "split; default) or a number K")
    add_param_flags(p.add_argument_group("Ca-MCF"), ALGORITHM_PARAMS)
    knn = p.add_argument_group("classifier (ML-kNN)")
    knn.add_argument("--k", type=int, default=10, help="neighbours (10)")
    knn.add_argument("--neighbours", choices=["strict", "authors"], default="strict",
                     help="training neighbours: strict (Zhang & Zhou) or authors (paper's code)")
    proto = p.add_argument_group("protocol")
    proto.add_argument("--protocol", choices=["repeated", "kfold", "holdout"],
                       default="repeated",
                       help="repeated: --repeats random 70/30 splits; kfold: --folds folds, every "
                            "row tested once; holdout: one random split (or a shared set's "
                            "fixed split)")
    proto.add_argument("--repeats", type=int, default=5, help="repeated hold-out: splits (5)")
    proto.add_argument("--folds", type=int, default=5, help="k-fold: folds (5)")
    proto.add_argument("--test-size", type=float, default=0.3, help="share of test rows (0.3)")
    proto.add_argument("--seed", type=int, default=0, help="random seed of the splits (0)")
    p.add_argument("--n-jobs", type=int, default=1, help="processes (joblib) (1)")
    p.add_argument("--output", "-o", required=True, help="where to write the JSON (and .csv)")


def _n_features(text: str):
    if text == "match":
        return "match"
    try:
        v = float(text)
    except ValueError:
        raise ParameterError(f"--n-features must be 'match' or a number, got {text!r}") from None
    if v <= 0:
        raise ParameterError(f"--n-features must be positive, got {text}")
    return int(v) if v >= 1 and v.is_integer() else v


def _load_one(spec: str, args, protocol: str):
    """(name, train Dataset, test Dataset or None)."""
    from .. import catalog
    from ..io import load

    if Path(spec).is_file():
        return Path(spec).stem, load(spec, labels=args.labels, xml=args.xml), None
    if spec in catalog.CATALOG:
        got = catalog.load_shared(spec, split=protocol == "holdout")
        if isinstance(got, tuple):
            return spec, got[0], got[1]
        return spec, got, None
    raise CamcfError(f"{spec}: no such file, and not a shared data set name (known: "
                     f"{', '.join(catalog.CATALOG)})")


def method_table(names: list[str], ca_params: dict) -> dict[str, Any]:
    """Registry names → fresh selectors (Ca-MCF with ``ca_params``)."""
    from .. import methods

    out = {}
    for name in names:
        out[name] = methods.make(name, **ca_params) if name == "camcf" else methods.make(name)
    return out


def comparison_frame(comparisons: dict) -> pd.DataFrame:
    """Every data set's summary in one table: ``data_set, method, method_name, kind, metric,
    mean, sd, n, n_splits, n_empty, n_features, seconds``."""
    from .. import methods

    parts = []
    for ds_name, cmp in comparisons.items():
        s = cmp.summary.rename(columns={"feature_set": "method"}).copy()
        s.insert(0, "data_set", ds_name)
        s.insert(2, "method_name", s["method"].map(
            lambda n: methods.display(n) if n in methods.METHODS else n))
        s.insert(3, "kind", s["method"].map(cmp.kinds))
        parts.append(s)
    return pd.concat(parts, ignore_index=True)


_clean = json_safe  # strict JSON: NaN/inf → null, numpy → Python (camcf.output)


def comparison_payload(comparisons: dict, methods_used: dict, settings: dict,
                       data: dict) -> dict:
    """The JSON document of a comparison (no NaN: missing values are null)."""
    from .. import methods
    from .framework import friedman_over_data_sets

    out: dict[str, Any] = {
        "methods": [{"name": n, "display": methods.display(n) if n in methods.METHODS else n,
                     "kind": next(iter(comparisons.values())).kinds.get(n),
                     "params": {k: v for k, v in est.get_params(deep=False).items()}}
                    for n, est in methods_used.items()],
        "settings": settings,
        "data_sets": {},
    }
    for name, cmp in comparisons.items():
        ranks = {metric: cmp.split_ranks(metric).mean(axis=0).to_dict() for metric in METRICS}
        out["data_sets"][name] = {
            "data": data.get(name, {}),
            "summary": cmp.summary.rename(columns={"feature_set": "method"}).to_dict("records"),
            "mean_rank_over_splits": ranks,
            "friedman_over_splits": (
                {metric: {**cmp.friedman_over_splits(metric).to_dict(), "note": (
                    "splits as blocks: indicative only (splits share rows)")}
                 for metric in METRICS} if len(cmp.sets) >= 2 else None),
            "failures": {k: [{"split": s, "message": m} for s, m in v]
                         for k, v in cmp.failures.items()},
            "splits": cmp.frame.rename(columns={"feature_set": "method"}).to_dict("records"),
            "selected": [{k: list(v) for k, v in sets.items()} for sets in cmp.sets],
        }
    if len(comparisons) >= 2:
        out["friedman"] = friedman_over_data_sets(comparisons).to_dict("records")
    return _clean(out)


def compare_command(args: argparse.Namespace) -> tuple[dict, pd.DataFrame]:
    """Do the work of ``camcf compare``: (JSON payload, summary table)."""
    from .. import methods
    from ..algorithm_params import ALGORITHM_PARAMS
    from ..cli_params import flag_values
    from .framework import compare_data_sets

    t0 = time.perf_counter()
    names = ([n.strip() for n in args.methods.split(",") if n.strip()] if args.methods
             else methods.available())
    for n in names:
        methods.spec(n)
        methods.get(n)  # a clear message for a method missing here
    if len(set(names)) != len(names):
        raise ParameterError(f"--methods names a method twice: {args.methods}")
    n_features = _n_features(args.n_features)
    if n_features == "match" and "camcf" not in names and any(
            methods.kind(n) == "ranking" for n in names):
        raise ParameterError("--n-features match cuts rankings to Ca-MCF's selection size; add "
                             "camcf to --methods or give --n-features K")
    if args.n_jobs < 1:
        raise ParameterError(f"--n-jobs must be at least 1, got {args.n_jobs}")
    ca_params = flag_values(args, ALGORITHM_PARAMS)
    used = method_table(names, ca_params)
    loaded, data = {}, {}
    for spec in args.data:
        name, ds, test = _load_one(spec, args, args.protocol)
        if args.discretize == "none":
            from ..discretize import discretize

            discretize(ds.X, discretize="none")  # integer codes, handed over as they are
            if test is not None:
                discretize(test.X, discretize="none")
        loaded[name] = (ds.X, ds.Y) if test is None else (ds.X, ds.Y, test.X, test.Y)
        data[name] = {"source": ds.source, "n_samples": ds.n_samples + (
            test.n_samples if test is not None else 0), "n_features": ds.n_features,
            "n_labels": ds.n_labels, "fixed_split": test is not None}

    def progress(done: int, total: int, msg: str) -> None:
        if sys.stderr.isatty():
            print(f"\r{done}/{total} {msg[:70]:<70}", end="", file=sys.stderr, flush=True)

    comparisons = compare_data_sets(
        loaded, used, protocol=args.protocol, n_repeats=args.repeats, test_size=args.test_size,
        n_folds=args.folds, seed=args.seed,
        discretize=None if args.discretize == "none" else args.discretize, bins=args.bins,
        strategy=args.strategy, n_features=n_features, k=args.k, neighbours=args.neighbours,
        n_jobs=args.n_jobs, progress=progress)
    if sys.stderr.isatty():
        print(file=sys.stderr)
    settings = {"protocol": args.protocol, "repeats": args.repeats, "folds": args.folds,
                "test_size": args.test_size, "seed": args.seed, "n_features": n_features,
                "classifier": {"name": "ML-kNN", "k": args.k, "s": 1.0, "distance": "hamming",
                               "neighbours": args.neighbours},
                "discretization": {"discretize": args.discretize, "bins": args.bins,
                                   "strategy": args.strategy,
                                   "fitted_on": "the training part of each split"},
                "seconds_total": time.perf_counter() - t0}
    payload = comparison_payload(comparisons, used, settings, data)
    return payload, comparison_frame(comparisons)


def _summary_text(table: pd.DataFrame) -> str:
    lines = []
    for ds_name, part in table.groupby("data_set", sort=False):
        lines.append(f"{ds_name}:")
        lines.append(f"  {'method':<16}" + "".join(f"{METRICS[m]['short']:>16}" for m in METRICS)
                     + f"{'features':>10}{'s/split':>9}")
        for _method, rows in part.groupby("method", sort=False):
            r = rows.set_index("metric")
            cells = []
            for m in METRICS:
                mean, sd, n, n_splits = r.loc[m, ["mean", "sd", "n", "n_splits"]]
                if n == 0:
                    cells.append("–")
                    continue
                txt = f"{mean:.4f}" + (f"±{sd:.4f}" if not math.isnan(sd) else "")
                cells.append(txt + ("" if n == n_splits else f"*{int(n)}"))
            empty = int(r["n_empty"].iloc[0])
            lines.append(f"  {rows['method_name'].iloc[0]:<16}" + "".join(f"{c:>16}"
                                                                          for c in cells)
                         + f"{r['n_features'].iloc[0]:>10.1f}{r['seconds'].iloc[0]:>9.3f}"
                         + (f"  (nothing selected on {empty} split(s))" if empty else ""))
    lines.append("mean±SD over splits; *n: mean over only n splits (the method selected nothing "
                 "or failed on the others)")
    return "\n".join(lines)


def run(args: argparse.Namespace) -> int:
    """Entry point: write OUT.json and OUT.csv, print the table, return the exit code."""
    try:
        payload, table = compare_command(args)
        out = Path(args.output)
        try:
            out.write_text(json.dumps(payload, indent=1, ensure_ascii=False, allow_nan=False)
                           + "\n", encoding="utf-8")
            table.to_csv(out.with_suffix(".csv"), index=False)
        except OSError as e:
            raise CamcfError(f"cannot write {out}: {e.strerror}") from None
    except CamcfError as e:
        print(f"camcf compare: error: {e}", file=sys.stderr)
        return 2
    print(_summary_text(table))
    if "friedman" in payload:
        for row in payload["friedman"]:
            print(f"{METRICS[row['metric']]['name']:<20} F_F = {row['iman_davenport'] or 0:.4f} "
                  f"(critical {row['critical_value']:.4f}), CD = {row['cd']:.3f}")
    print(f"written to {out} and {out.with_suffix('.csv')}")
    return 0
