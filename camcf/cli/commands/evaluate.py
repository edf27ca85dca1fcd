"""``camcf evaluate``: classify with ML-kNN on a selection and report the paper's seven metrics.

::

    camcf evaluate (DATA | --train FILE --test FILE [--train-variable NAME]
                   [--test-variable NAME]) [labels] [discretisation]
        [--features i,j,… | Ca-MCF's flags] [--k N] [--distance hamming|euclidean]
        [--neighbours strict|authors] [--protocol holdout|repeated|kfold] [--repeats N]
        [--folds N] [--test-size F] [--seed N] [--truth FILE] [--n-jobs N]
        [--dask-scheduler ADDRESS] [--quiet] --output OUT.json

Protocol: with ``--train``/``--test`` the default (and only) protocol is ``holdout`` on that
pair. MATLAB files: ``--train-variable``/``--test-variable`` name each part's variable(s)
(``--variable`` both); a file holding ``train_*`` and ``test_*`` pairs is split by its own
names (``--variable train_data`` reads the test part from ``test_data``;
:func:`camcf.io.load.split_variables`), and a test part holding the training rows is warned
about. With ``DATA`` the default is ``repeated`` (5 × 70/30, seed 0); ``kfold`` uses ``--folds``
shuffled folds; ``holdout`` on ``DATA`` is one seeded random split of ``--test-size``.
Discretisation is fitted on the training part of each split and applied to its test part.
Selection: with ``--features`` those 0-based column indices on every split; otherwise Ca-MCF
selects on the training part of each split. All features are evaluated too. The JSON is
:func:`camcf.evaluation.reports.evaluation_report`'s; ``--truth OUT.truth.json`` adds ``"truth"``:
every split's selection scored against the true blankets (mean and SD over splits).
"""

from __future__ import annotations

import argparse
import warnings
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from ...errors import CamcfError, ParameterError
from .. import groups
from ..outcome import Outcome
from ..progress import progress_line
from ..words import empty_selection, say_warning

COMMAND = "evaluate"
ORDER = 30
HELP = "ML-kNN on Ca-MCF's selection (or given features): the seven metrics as JSON"
DESCRIPTION = (
    "Classify with ML-kNN on Ca-MCF's selection (made on the training part of each split) or "
    "on given feature indices, and write the paper's seven metrics as JSON. Protocol: holdout "
    "on --train/--test; with DATA, repeated hold-out (5 x 70/30, seed 0) unless --protocol "
    "says otherwise. Discretisation is fitted on each training part and applied to its test "
    "part. All features are evaluated too, for comparison."
)


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


def add_arguments(p: argparse.ArgumentParser, argv: Sequence[str]) -> None:
    groups.add_data(p, nargs="?")
    pair = p.add_argument_group("a fixed split (instead of DATA)")
    pair.add_argument("--train", metavar="FILE", help="training file of a fixed split")
    pair.add_argument("--test", metavar="FILE", help="test file of a fixed split")
    pair.add_argument("--train-variable", metavar="NAME",
                      help="MATLAB: the variable(s) of the training part (default: --variable, "
                           "or the file's own train_* pair when it holds train_* and test_*)")
    pair.add_argument("--test-variable", metavar="NAME",
                      help="MATLAB: the variable(s) of the test part (default: the test_* "
                           "counterpart of the training part's train_* variable when the file "
                           "holds it, else --variable)")
    groups.add_labels(p)
    groups.add_discretization(p)
    sel = p.add_argument_group("selection (either --features or Ca-MCF's parameters)")
    sel.add_argument("--features", type=_int_list,
                     help="evaluate these 0-based feature indices: 0,3,7")
    groups.add_method_params(p, ["camcf"])
    groups.add_classifier(p)
    groups.add_protocol(p, default=None,
                        help="default: holdout with --train/--test, repeated with DATA")
    groups.add_truth(p)
    groups.add_parallel(p, what="selections and classifications")
    groups.add_progress(p)
    groups.add_output(p)


def _check(args: argparse.Namespace) -> dict[str, Any]:
    params = groups.method_values(args, "camcf")
    if args.features is not None and params:
        raise ParameterError(
            "--features evaluates given indices; it cannot be combined with Ca-MCF's "
            f"parameters (got --{next(iter(params)).replace('_', '-')})")
    pair = (args.train is not None, args.test is not None)
    if args.data is not None and any(pair):
        raise ParameterError("give either DATA or --train FILE --test FILE, not both")
    if args.data is None and not all(pair):
        if any(pair):
            raise ParameterError("--train and --test go together; give both files")
        raise ParameterError("give a data file (DATA) or a split (--train FILE --test FILE)")
    if args.data is not None and (args.train_variable or args.test_variable):
        raise ParameterError("--train-variable and --test-variable name the parts of a fixed "
                             "split (--train FILE --test FILE); for DATA use --variable")
    if all(pair) and args.protocol not in (None, "holdout"):
        raise ParameterError(
            f"--protocol {args.protocol} resamples one data set; give DATA, or use the fixed "
            "split of --train/--test with --protocol holdout")
    return params


def _load(args: argparse.Namespace):
    from ...io import load_train_test

    for path in (args.data, args.train, args.test, args.xml):
        if path is not None and not Path(path).is_file():
            raise CamcfError(f"{path}: no such file")
    if args.data is not None:
        return groups.read_data(args), None
    return load_train_test(args.train, args.test, labels=groups.label_spec(args), xml=args.xml,
                           variable=args.train_variable or args.variable,
                           test_variable=args.test_variable)


def run(args: argparse.Namespace) -> Outcome:
    from ...algorithm import CamcfWarning
    from ...evaluation.reports import evaluation_report

    params = _check(args)
    truth = groups.read_truth(args.truth)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", CamcfWarning)
        ds, test = _load(args)
    if test is not None:
        data = {"train": args.train, "test": args.test,
                "train_variable": ds.meta.get("variables"),
                "test_variable": test.meta.get("variables")}
    else:
        data = {"path": args.data}
    data.update(labels=groups.label_spec(args), xml=args.xml, variable=args.variable)
    with groups.parallel(args, workers=True) as n_jobs, progress_line(args.quiet) as progress:
        payload = evaluation_report(
            ds, test, features=args.features,
            params=None if args.features is not None else params,
            **groups.protocol_values(args), **groups.discretization(args),
            knn=groups.knn_values(args), n_jobs=n_jobs, progress=progress, data=data,
            truth=truth)
    notes = [say_warning(w.message) for w in caught]
    empty = payload.get("n_splits_nothing_selected") or 0
    if empty and payload["selection"]["method"] == "camcf":
        notes.append(empty_selection(empty, payload["protocol"]["n_splits"]))
    summary = _summary(payload, args.output)
    if truth is not None:
        summary += "\n" + "\n".join(groups.truth_lines(
            payload["truth"], f"truth ({truth.network}, mean over splits)"))
    return Outcome(path=args.output, payload=payload, summary=summary, warnings=notes)


def _summary(payload: dict[str, Any], output: str) -> str:
    from ...evaluation.metrics import METRICS

    d = payload["data"]
    p = payload["protocol"]
    c = payload["classifier"]
    lines = [
        f"{d['source']}: {d['n_samples']} samples × {d['n_features']} features, "
        f"{d['n_labels']} labels",
        f"protocol: {p['name']}, {p['n_splits']} split(s); ML-kNN k={c['k']}, s={c['s']}, "
        f"{c['distance']}, neighbours={c['neighbours']}",
    ]
    sel = payload["selection"]
    if sel["method"] == "camcf":
        lines.append("Ca-MCF: " + ", ".join(f"{k}={v}" for k, v in sel["params"].items()))
    else:
        lines.append(f"given features: {sel['features']}")
    lines.append(f"{'metric':<20}{'selected':>12}{'all features':>14}")
    for metric, info in METRICS.items():
        a = payload["metrics"][metric]
        b = payload["all_features"]["metrics"][metric]
        arrow = "↑" if info["higher_is_better"] else "↓"
        fa = "n/a" if a is None else f"{a:.4f}"
        fb = "n/a" if b is None else f"{b:.4f}"
        lines.append(f"{info['name'] + ' ' + arrow:<20}{fa:>12}{fb:>14}")
    lines.append(f"{'features':<20}{payload['n_features']:>12.1f}{d['n_features']:>14}")
    empty, n = payload.get("n_splits_nothing_selected") or 0, p["n_splits"]
    if empty:
        rest = payload["n_splits_with_values"]
        lines.append(f"the selection was empty on {empty:,} of {n:,} split"
                     f"{'' if n == 1 else 's'}: " + (
                         "it has no scores" if not rest else
                         f"its means are over the other {rest:,} only"))
    lines.append(f"selection {payload['seconds']['selection_mean']:.3f} s per split, total "
                 f"{payload['seconds']['total']:.2f} s; written to {output}")
    return "\n".join(lines)
