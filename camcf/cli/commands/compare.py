"""``camcf compare``: several methods on the same splits of one or more data sets.

::

    camcf compare DATA [DATA …] [labels] [discretisation] [--methods camcf,mi-mcf,d2f,…]
        [each method's flags] [--n-features match|K] [--k N] [--neighbours strict|authors]
        [--protocol repeated|kfold|holdout] [--repeats N] [--folds N] [--test-size F]
        [--seed N] [--truth FILE …] [--n-jobs N] [--dask-scheduler ADDRESS] [--quiet]
        --output OUT.json

DATA is a file (.arff, .mat, .csv) or the name of a shared data set (``camcf.catalog``; a
shared set with a fixed split uses it under ``--protocol holdout``). Every method selects on the
training part of each split (discretised on that part only) and ML-kNN classifies the test part.
Ranking methods keep as many features as Ca-MCF selected on the same split (``--n-features
match``, the paper's protocol) or ``--n-features K``. Method flags: Ca-MCF's as ``--delta1`` …,
another method's as ``--METHOD-PARAM`` (``--mi-mcf-k1``, ``--jfsc-variant``).

``--truth OUT.truth.json`` (once per DATA, in order; ``camcf simulate`` writes it) scores every
method's selections against the data set's true blankets (under the data set's ``"truth"``).

Written (each atomically): ``OUT.json`` (:func:`camcf.evaluation.reports.comparison_report`)
and ``OUT.csv`` (the summary table, one row per data set × method × metric).
"""

from __future__ import annotations

import argparse
import math
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from ... import methods
from ...errors import ParameterError
from ...evaluation.settings import parse_n_features
from .. import groups
from ..outcome import Outcome
from ..progress import progress_line

COMMAND = "compare"
ORDER = 40
HELP = "several methods on the same splits: metrics, ranks, Friedman test (JSON + CSV)"
DESCRIPTION = (
    "Compare feature selection methods on the same splits: each selects on the training part, "
    "ML-kNN classifies the test part, the paper's seven metrics as mean ± SD; with two or more "
    "data sets, the Friedman test and the critical difference. Writes OUT.json and OUT.csv."
)


def add_arguments(p: argparse.ArgumentParser, argv: Sequence[str]) -> None:
    groups.add_data(p, nargs="+",
                    help="data file(s) (.arff, .mat, .csv) or shared data set name(s)")
    groups.add_labels(p)
    groups.add_discretization(p)
    m = groups.add_methods(p)
    m.add_argument("--n-features", default="match",
                   help="ranking methods keep: 'match' (as many as Ca-MCF selected on the same "
                        "split; default) or a number K")
    groups.add_method_params(p, methods.METHODS, shown=groups.named_methods(argv, "--methods"))
    groups.add_classifier(p, settings=("k", "neighbours"))
    groups.add_protocol(p, help="repeated: --repeats random splits; kfold: --folds folds, every "
                                "row tested once; holdout: one random split (or a shared set's "
                                "fixed split)")
    groups.add_truth(p, many=True)
    groups.add_parallel(p, what="methods × splits")
    groups.add_progress(p)
    groups.add_output(p, what="the JSON (and the CSV table beside it, same name .csv)")


def run(args: argparse.Namespace) -> Outcome:
    from ...evaluation.reports import comparison_report, method_table

    names = groups.method_list(args)
    if names is None:
        names = methods.check_names(None)
    groups.check_method_flags(args, names)
    n_features = parse_n_features(args.n_features, name="--n-features")
    if n_features == "match" and "camcf" not in names and any(
            methods.kind(n) == "ranking" for n in names):
        raise ParameterError("--n-features match cuts rankings to Ca-MCF's selection size; add "
                             "camcf to --methods or give --n-features K")
    used = method_table(names, params={n: groups.method_values(args, n) for n in names})
    if args.truth and len(args.truth) != len(args.data):
        raise ParameterError(f"{len(args.truth)} --truth file(s) for {len(args.data)} data "
                             "set(s); give one --truth per DATA, in the same order",
                             name="truth")
    loaded, about, sets = groups.load_all(args, args.protocol, keep=True)
    truths = {}
    for (name, ds), path in zip(sets.items(), args.truth or (), strict=False):
        from ...truth import check_names

        truth = groups.read_truth(path)
        check_names(truth, ds.feature_names, ds.label_names)
        truths[name] = (truth, ds.feature_names, ds.label_names)
    with groups.parallel(args, workers=True) as n_jobs, progress_line(args.quiet) as progress:
        payload, table = comparison_report(
            loaded, used, **groups.protocol_values(args), **groups.discretization(args),
            n_features=n_features, knn=groups.knn_values(args), n_jobs=n_jobs,
            progress=progress, about=about, truths=truths)
    out = Path(args.output)
    csv = out.with_suffix(".csv")
    lines = [_summary_text(table)]
    if "friedman" in payload:
        from ...evaluation.metrics import METRICS

        for row in payload["friedman"]:
            lines.append(f"{METRICS[row['metric']]['name']:<20} F_F = "
                         f"{row['iman_davenport'] or 0:.4f} (critical "
                         f"{row['critical_value']:.4f}), CD = {row['cd']:.3f}")
    for name in truths:
        for method, scores in payload["data_sets"][name]["truth"].items():
            if method != "network":
                lines += groups.truth_lines(scores, f"{name}, {methods.display(method)}")
    lines.append(f"written to {out} and {csv}")
    return Outcome(path=str(out), payload=payload, files={str(csv): table.to_csv(index=False)},
                   summary="\n".join(lines))


def _summary_text(table: Any) -> str:
    from ...evaluation.metrics import METRICS

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
            lines.append(f"  {rows['method_name'].iloc[0]:<16}"
                         + "".join(f"{c:>16}" for c in cells)
                         + f"{r['n_features'].iloc[0]:>10.1f}{r['seconds'].iloc[0]:>9.3f}"
                         + (f"  (nothing selected on {empty} split(s))" if empty else ""))
    lines.append("mean±SD over splits; *n: mean over only n splits (the method selected nothing "
                 "or failed on the others)")
    return "\n".join(lines)
