"""``camcf evaluate``: classify with ML-kNN on a selection and report the paper's seven metrics.

::

    camcf evaluate (DATA | --train FILE --test FILE) [--labels …] [--xml FILE]
        [--discretize auto|none] [--bins N] [--strategy uniform|quantile]
        [--features i,j,… | --delta1 F --delta2 F --k1 F --k2 F --gamma F
                            --min-category-size N --recovery first|all]
        [--distance hamming|euclidean] [--k N] [--neighbours strict|authors]
        [--protocol holdout|repeated|kfold] [--repeats N] [--folds N] [--test-size F]
        [--seed N] --output OUT.json

Protocol: with ``--train``/``--test`` the default (and only) protocol is ``holdout`` on that
pair. With ``DATA`` the default is ``repeated`` (5 × 70/30, seed 0); ``kfold`` uses ``--folds``
shuffled folds; ``holdout`` on ``DATA`` is one seeded random split of ``--test-size``.

Discretisation is fitted on the training part of each split and applied to its test part
(bin edges from the training rows only; see :class:`camcf.evaluation.Discretizer`), so no
test row influences the codes, the selection or the classifier. The JSON says so under
``"discretization"``.

Selection: with ``--features`` those 0-based column indices are evaluated on every split;
otherwise Ca-MCF selects on the training part of each split with the given parameters. All
features are always evaluated too, for comparison (``"all_features"``).

JSON written to ``--output``: ``metrics`` (the mean over splits of each of the seven metrics for
the selection), ``sd`` (sample SD over splits; null with one split), ``selected_indices`` (the
selection; for several splits, the features selected in at least half of them, with per-split
lists under ``splits``), ``n_features``, ``n_splits_with_values`` and
``n_splits_nothing_selected`` (the means are over the splits with values only), ``seconds``, ``all_features``, ``splits`` (per-split
values) and the settings. Errors: one line on stderr, exit code 2.
"""

from __future__ import annotations

import argparse
import math
import sys
import time
import warnings
from pathlib import Path
from typing import Any

import numpy as np

from ..algorithm_params import ALGORITHM_PARAMS
from ..errors import CamcfError, ParameterError
from ..output import json_safe
from .metrics import METRICS

__all__ = ["add_parser", "evaluate", "run"]

DESCRIPTION = (
    "Classify with ML-kNN on Ca-MCF's selection (made on the training part of each split) or "
    "on given feature indices, and write the paper's seven metrics as JSON. Protocol: holdout "
    "on --train/--test; with DATA, repeated hold-out (5 x 70/30, seed 0) unless --protocol "
    "says otherwise. Discretisation is fitted on each training part and applied to its test "
    "part. All features are evaluated too, for comparison."
)
_PARAMS = tuple(p.name for p in ALGORITHM_PARAMS)


class _Parser(argparse.ArgumentParser):
    """One-line errors and exit code 2 (when this module builds its own parser)."""

    def error(self, message: str):  # type: ignore[override]
        sys.stderr.write(f"camcf evaluate: error: {message}\n")
        raise SystemExit(2)


def _int_list(text: str) -> list[int]:
    try:
        values = [int(v) for v in text.replace(" ", "").split(",") if v != ""]
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"expected comma-separated 0-based feature indices like 0,3,7; got {text!r}"
        ) from None
    if not values:
        raise argparse.ArgumentTypeError("--features needs at least one index")
    return values


def add_parser(subparsers: Any) -> argparse.ArgumentParser:
    """Register ``evaluate`` on ``subparsers`` (from ``ArgumentParser.add_subparsers``)."""
    p = subparsers.add_parser(
        "evaluate",
        help="ML-kNN on Ca-MCF's selection (or given features): the seven metrics as JSON",
        description=DESCRIPTION,
    )
    add_arguments(p)
    p.set_defaults(func=run)
    return p


def add_arguments(p: argparse.ArgumentParser) -> None:
    """The options of ``camcf evaluate`` (method flags generated from the declarations)."""
    from ..algorithm_params import ALGORITHM_PARAMS, DISCRETIZE_PARAMS
    from ..cli_params import add_param_flags

    data = p.add_argument_group("data")
    data.add_argument("data", metavar="DATA", nargs="?", help="data file: .arff, .mat or .csv")
    data.add_argument("--train", metavar="FILE", help="training file of a fixed split")
    data.add_argument("--test", metavar="FILE", help="test file of a fixed split")
    data.add_argument("--labels", help="label columns: comma-separated names, last:K or first:K")
    data.add_argument("--xml", help="MULAN XML file naming the label attributes")
    add_param_flags(data, DISCRETIZE_PARAMS)
    sel = p.add_argument_group("selection (either --features or Ca-MCF's parameters)")
    sel.add_argument(
        "--features", type=_int_list, help="evaluate these 0-based feature indices: 0,3,7"
    )
    add_param_flags(sel, ALGORITHM_PARAMS, with_defaults=False)
    knn = p.add_argument_group("classifier (ML-kNN)")
    knn.add_argument("--k", type=int, default=10, help="neighbours (10)")
    knn.add_argument("--distance", choices=["hamming", "euclidean"], default="hamming")
    knn.add_argument(
        "--neighbours",
        choices=["strict", "authors"],
        default="strict",
        help="training neighbours: strict (Zhang & Zhou) or authors (the paper's code)",
    )
    proto = p.add_argument_group("protocol")
    proto.add_argument(
        "--protocol",
        choices=["holdout", "repeated", "kfold"],
        help="default: holdout with --train/--test, repeated with DATA",
    )
    proto.add_argument("--repeats", type=int, default=5, help="repeated hold-out: splits (5)")
    proto.add_argument("--folds", type=int, default=5, help="k-fold: folds (5)")
    proto.add_argument("--test-size", type=float, default=0.3, help="share of test rows (0.3)")
    proto.add_argument("--seed", type=int, default=0, help="random seed of the splits (0)")
    p.add_argument("--output", "-o", required=True, help="where to write the JSON result")


# ---------------------------------------------------------------------------- helpers
_clean = json_safe  # strict JSON: NaN/inf → null, numpy → Python (camcf.output)


def _check_args(args: argparse.Namespace) -> None:
    given = [name for name in _PARAMS if getattr(args, name, None) is not None]
    if args.features is not None and given:
        raise ParameterError(
            "--features evaluates given indices; it cannot be combined with Ca-MCF's "
            f"parameters (got --{given[0].replace('_', '-')})"
        )
    pair = (args.train is not None, args.test is not None)
    if args.data is not None and any(pair):
        raise ParameterError("give either DATA or --train FILE --test FILE, not both")
    if args.data is None and not all(pair):
        if any(pair):
            raise ParameterError("--train and --test go together; give both files")
        raise ParameterError("give a data file (DATA) or a split (--train FILE --test FILE)")
    if all(pair) and args.protocol not in (None, "holdout"):
        raise ParameterError(
            f"--protocol {args.protocol} resamples one data set; give DATA, or use the fixed "
            "split of --train/--test with --protocol holdout"
        )
    if args.repeats < 1:
        raise ParameterError(f"--repeats must be at least 1; got {args.repeats}")
    if args.folds < 2:
        raise ParameterError(f"--folds must be at least 2; got {args.folds}")
    if not 0 < args.test_size < 1:
        raise ParameterError(f"--test-size must be in (0, 1); got {args.test_size}")
    if args.k < 1:
        raise ParameterError(f"--k must be at least 1; got {args.k}")
    if args.bins < 2:
        raise ParameterError(f"--bins must be at least 2; got {args.bins}")


def _load(args: argparse.Namespace):
    from ..io import load, load_train_test

    for path in (args.data, args.train, args.test, args.xml):
        if path is not None and not Path(path).is_file():
            raise CamcfError(f"{path}: no such file")
    if args.data is not None:
        return load(args.data, labels=args.labels, xml=args.xml), None
    return load_train_test(args.train, args.test, labels=args.labels, xml=args.xml)


def evaluate(args: argparse.Namespace) -> dict[str, Any]:
    """Do the work of ``camcf evaluate`` and return the JSON payload (no printing, no file)."""
    from ..algorithm import DEFAULTS
    from .framework import (
        KnnCache,
        ablation,
        binarize_labels,
        evaluate_feature_sets,
        make_folds,
        make_splits,
        summarise,
    )

    _check_args(args)
    t0 = time.perf_counter()
    ds, test = _load(args)
    protocol = args.protocol or ("holdout" if test is not None else "repeated")
    disc = {"discretize": args.discretize, "bins": args.bins, "strategy": args.strategy}
    if test is not None:
        folds = make_folds(ds.X, ds.Y, X_test=test.X, Y_test=test.Y, **disc)
        n_rows = ds.n_samples + test.n_samples
        Y_all = np.concatenate([ds.Y, test.Y])
    else:
        splits = make_splits(
            ds.n_samples,
            protocol,
            n_repeats=args.repeats,
            test_size=args.test_size,
            n_folds=args.folds,
            seed=args.seed,
        )
        folds = make_folds(ds.X, ds.Y, splits, protocol=protocol, **disc)
        n_rows = ds.n_samples
        Y_all = ds.Y
    m = ds.n_features
    knn = {"k": args.k, "distance": args.distance, "neighbours": args.neighbours}
    if args.k >= min(f.X_train.shape[0] for f in folds):
        raise ParameterError(
            f"--k {args.k} must be smaller than the number of training rows "
            f"({min(f.X_train.shape[0] for f in folds)})"
        )
    cache = KnnCache()
    if args.features is not None:
        bad = [i for i in args.features if not 0 <= i < m]
        if bad:
            raise ParameterError(
                f"--features: index {bad[0]} is out of range; the data has {m} features "
                f"(0..{m - 1})"
            )
        params: dict[str, Any] | None = None
        chosen = [{"all": tuple(range(m)), "selected": tuple(sorted(set(args.features)))}] * len(
            folds
        )
        frame = evaluate_feature_sets(folds, chosen[0], cache=cache, **knn)
    else:
        params = {name: getattr(args, name, DEFAULTS[name]) for name in _PARAMS}
        picked: list[dict[str, tuple[int, ...]]] = []
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            frame = ablation(
                folds, params, feature_sets=("all", "camcf"), cache=cache, selections=picked, **knn
            ).replace({"feature_set": {"camcf": "selected"}})
        chosen = [{"all": sets["all"], "selected": sets["camcf"]} for sets in picked]
    # per split
    split_rows = []
    for fold in folds:
        part = frame[frame["split"] == fold.split]
        sel = part[part["feature_set"] == "selected"]
        base = part[part["feature_set"] == "all"]
        split_rows.append(
            {
                "split": fold.split,
                "n_train": int(fold.train.size),
                "n_test": int(fold.test.size),
                "n_features": int(sel["n_features"].iloc[0]),
                "seconds": float(sel["seconds"].iloc[0]),
                "metrics": dict(zip(sel["metric"], sel["value"], strict=True)),
                "all_features": dict(zip(base["metric"], base["value"], strict=True)),
            }
        )
    for row, sets in zip(split_rows, chosen, strict=True):
        row["selected_indices"] = list(sets["selected"])
    counts = np.zeros(m, dtype=np.int64)
    for row in split_rows:
        counts[row["selected_indices"]] += 1
    if len(folds) == 1:
        selected = split_rows[0]["selected_indices"]
    else:
        selected = [int(j) for j in np.flatnonzero(2 * counts >= len(folds))]

    by = summarise(frame).set_index(["feature_set", "metric"])

    def mean_sd(name: str) -> tuple[dict[str, float], dict[str, float | None]]:
        """Mean and sample SD over splits (camcf.evaluation.summarise; NaN = no value)."""
        means = {m: float(by.loc[(name, m), "mean"]) for m in METRICS}
        sds = {m: (None if math.isnan(by.loc[(name, m), "sd"]) else float(by.loc[(name, m), "sd"]))
               for m in METRICS}
        return means, sds

    metrics, sd = mean_sd("selected")
    base_metrics, base_sd = mean_sd("all")
    empty = int(by.loc[("selected", next(iter(METRICS))), "n_empty"])
    _, label_columns = binarize_labels(Y_all, ds.label_names)
    if test is not None:
        data = {"train": args.train, "test": args.test}
    else:
        data = {"path": args.data}
    data.update(
        {
            "source": ds.source,
            "n_samples": n_rows,
            "n_features": m,
            "n_labels": ds.n_labels,
            "label_columns": label_columns,
            "labels": args.labels,
            "xml": args.xml,
        }
    )
    proto: dict[str, Any] = {"name": protocol, "n_splits": len(folds)}
    if test is None:
        proto["seed"] = args.seed
        if protocol == "kfold":
            proto["folds"] = args.folds
        else:
            proto["test_size"] = args.test_size
    else:
        proto["split"] = "the given --train/--test files"
    payload = {
        "metrics": metrics,
        "sd": sd,
        "selected_indices": selected,
        "selected_features": [ds.feature_names[j] for j in selected],
        "selected_rule": (
            "the selection on the training part"
            if len(folds) == 1
            else "features selected in at least half of the splits (per split: splits[i])"
        ),
        "n_features": float(np.mean([row["n_features"] for row in split_rows])),
        "n_splits_with_values": int(by.loc[("selected", next(iter(METRICS))), "n"]),
        "n_splits_nothing_selected": empty,
        "seconds": {
            "selection_mean": float(np.mean([row["seconds"] for row in split_rows])),
            "total": time.perf_counter() - t0,
        },
        "selection": (
            {"method": "given", "features": sorted(set(args.features))}
            if args.features is not None
            else {"method": "camcf", "params": params}
        ),
        "all_features": {"metrics": base_metrics, "sd": base_sd, "n_features": m},
        "protocol": proto,
        "classifier": {"name": "ML-kNN", "s": 1.0, **knn},
        "discretization": {
            **disc,
            "fitted_on": "the training part of each split; test rows are coded with the "
            "training part's bin edges (unseen values get a code of their own)",
        },
        "selection_counts": [int(c) for c in counts],
        "data": data,
        "splits": split_rows,
    }
    return _clean(payload)


def _summary(payload: dict[str, Any], output: str) -> str:
    d = payload["data"]
    p = payload["protocol"]
    lines = [
        f"{d['source']}: {d['n_samples']} samples × {d['n_features']} features, "
        f"{d['n_labels']} labels",
        f"protocol: {p['name']}, {p['n_splits']} split(s); ML-kNN k={payload['classifier']['k']}"
        f", {payload['classifier']['distance']}, neighbours={payload['classifier']['neighbours']}",
    ]
    sel = payload["selection"]
    if sel["method"] == "camcf":
        lines.append("Ca-MCF: " + ", ".join(f"{k}={v}" for k, v in sel["params"].items()))
    else:
        lines.append(f"given features: {sel['features']}")
    n_sel = payload["n_features"]
    lines.append(f"{'metric':<20}{'selected':>12}{'all features':>14}")
    for metric, info in METRICS.items():
        a = payload["metrics"][metric]
        b = payload["all_features"]["metrics"][metric]
        arrow = "↑" if info["higher_is_better"] else "↓"
        fa = "n/a" if a is None else f"{a:.4f}"
        fb = "n/a" if b is None else f"{b:.4f}"
        lines.append(f"{info['name'] + ' ' + arrow:<20}{fa:>12}{fb:>14}")
    lines.append(f"{'features':<20}{n_sel:>12.1f}{d['n_features']:>14}")
    if payload.get("n_splits_nothing_selected"):
        lines.append(f"the selection was empty on {payload['n_splits_nothing_selected']} of "
                     f"{p['n_splits']} splits: its means are over the other "
                     f"{payload['n_splits_with_values']} only")
    lines.append(
        f"selection {payload['seconds']['selection_mean']:.3f} s per split, total "
        f"{payload['seconds']['total']:.2f} s; written to {output}"
    )
    return "\n".join(lines)


def _write(path: str, payload: dict[str, Any]) -> None:
    from ..output import write_json

    write_json(path, payload)  # strict JSON, atomic: a failed run leaves an old file as it was


def run(args: argparse.Namespace) -> int:
    """Entry point of ``camcf evaluate``: write the JSON, print a summary, return the exit code."""
    try:
        payload = evaluate(args)
        _write(args.output, payload)
    except (Exception, KeyboardInterrupt) as e:  # noqa: BLE001 - one line and an exit code
        from ..cli import error_exit

        return error_exit(e, "camcf evaluate")
    print(_summary(payload, args.output))
    return 0


def main(argv: list[str] | None = None) -> int:
    """``python -m camcf.evaluation.command …`` (the same as ``camcf evaluate …``)."""
    parser = _Parser(prog="camcf evaluate")
    add_arguments(parser)
    args = parser.parse_args(argv)
    return run(args)


if __name__ == "__main__":
    raise SystemExit(main())
