"""``camcf reproduce``: the paper's comparison in one command.

::

    camcf reproduce [DATA …] [labels] [discretisation] [--methods camcf,mi-mcf,…]
        [--grid k1=0.1,0.4,0.7,1 --grid k2=…] [--metric micro_f1] [--inner-folds 3]
        [--k 10] [--neighbours authors|strict] [--protocol …] [--n-repeats N] [--seed N]
        [--cache DIR] [--n-jobs N] [--dask-scheduler tcp://HOST:PORT] [--quiet] --output OUT

DATA: files (.arff, .mat, .csv) or shared data set names; default, the paper's data sets found
in ``$CAMCF_DATA_DIR`` (:data:`camcf.evaluation.reproduction.PAPER_DATA_SETS`). Everything is
:func:`camcf.evaluation.reproduction.reproduce`: Ca-MCF tuned on each split's training rows (k1, k2
grid, δ1/δ2 "auto") and at its defaults, every other method at its published defaults, ranking
methods cut at the tuned Ca-MCF's size, ML-kNN k = 10 with the authors' neighbours; the paper's
values beside ours. Writes ``OUT.json``, ``OUT.csv``, ``OUT.md`` and ``OUT.html`` (atomically).
Finished cells are kept in ``--cache`` (default ``OUT.cache/``): run the same command again after
a stop and it continues where it was.
"""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from pathlib import Path

from ...errors import ParameterError
from .. import groups
from ..outcome import Outcome
from ..progress import progress_line

COMMAND = "reproduce"
ORDER = 45
HELP = "the paper's comparison: tuned Ca-MCF, defaults, baselines, beside the paper (JSON, CSV, " \
       "Markdown, HTML)"
DESCRIPTION = (
    "Run the Ca-MCF paper's comparison on the shared data sets (or given files): every method "
    "on the same splits, Ca-MCF tuned on training rows only and at its defaults, ML-kNN k = 10, "
    "the seven metrics beside the paper's values, Friedman test, CD diagrams and radars. "
    "Resumable (--cache) and parallel (--n-jobs, --dask-scheduler)."
)


def add_arguments(p: argparse.ArgumentParser, argv: Sequence[str]) -> None:
    from ...evaluation.paper import PAPER_DATA_SETS, PAPER_GRID, PAPER_KNN, TUNE_METRIC

    groups.add_data(p, nargs="*",
                    help="data file(s) or shared data set name(s) (default: the paper's data "
                         f"sets found in $CAMCF_DATA_DIR: {', '.join(PAPER_DATA_SETS)})")
    groups.add_labels(p)
    groups.add_discretization(p)
    groups.add_methods(p, note="; camcf is required")
    t = p.add_argument_group("Ca-MCF's tuning (on each split's training rows)")
    grid = " ".join(f"--grid {k}={','.join(f'{v:g}' for v in vs)}" for k, vs in PAPER_GRID.items())
    t.add_argument("--grid", action="append", metavar="NAME=V1,V2",
                   help=f"a Ca-MCF parameter and its values (repeat; default the paper's: {grid}; "
                        "delta1 and delta2 'auto')")
    t.add_argument("--metric", default=TUNE_METRIC, metavar="NAME",
                   help=f"what the tuner scores, one of the seven metrics ({TUNE_METRIC})")
    t.add_argument("--inner-folds", type=int, default=3, metavar="N",
                   help="shuffled folds each training part is cut into for tuning (3)")
    groups.add_classifier(p, settings=("k", "neighbours"),
                          defaults={k: PAPER_KNN[k] for k in ("k", "neighbours")})
    groups.add_protocol(p)
    groups.add_parallel(p, what="methods × data sets × splits × grid points")
    p.add_argument("--cache", metavar="DIR",
                   help="folder of finished cells, so that a stopped run continues (default: "
                        "OUT.cache beside the output)")
    groups.add_progress(p)
    groups.add_output(p, what="the report: OUT.json, OUT.csv, OUT.md and OUT.html",
                      suffixes=(".json", ".csv", ".md", ".html"), make_folder=True)


def run(args: argparse.Namespace) -> Outcome:
    from ...evaluation.reproduction import (
        reproduce,
        reproduction_html,
        reproduction_markdown,
        reproduction_table,
    )
    from .tune import parse_grid

    names = groups.method_list(args)
    grid = parse_grid(args.grid) if args.grid else None
    if args.inner_folds < 2:
        raise ParameterError(f"--inner-folds must be at least 2; got {args.inner_folds}",
                             name="inner_folds", value=args.inner_folds)
    protocol = groups.protocol_values(args)
    data, about = groups.load_all(args, protocol.get("protocol")) if args.data else (None, {})
    out = Path(args.output)
    cache = Path(args.cache) if args.cache else out.with_suffix(".cache")
    with groups.parallel(args, workers=True) as n_jobs, progress_line(args.quiet) as progress:
        payload = reproduce(data, methods=names, **protocol, **groups.discretization(args),
                            knn=groups.knn_values(args), grid=grid, metric=args.metric,
                            inner_folds=args.inner_folds, cache_dir=cache, progress=progress,
                            n_jobs=n_jobs, about=about)
    json_path = out.with_suffix(".json")
    files = {str(out.with_suffix(".csv")): reproduction_table(payload).to_csv(index=False),
             str(out.with_suffix(".md")): reproduction_markdown(payload),
             str(out.with_suffix(".html")): reproduction_html(payload)}
    summary = [f"{payload['cache']['computed']} cells computed, {payload['cache']['reused']} "
               f"reused from {cache}",
               f"written to {json_path}, " + ", ".join(files)]
    return Outcome(path=str(json_path), payload=payload, files=files,
                   summary="\n".join(summary))
