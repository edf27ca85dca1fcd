"""``camcf tune``: choose Ca-MCF's parameters from a grid by inner cross-validation.

::

    camcf tune DATA --grid delta1=0.01,0.05 --grid k1=0.3,0.7 [--grid NAME=V,…]
        [--metric NAME] [labels] [discretisation] [Ca-MCF's flags: fixed parameters]
        [--protocol holdout|repeated|kfold] [--repeats N] [--folds N] [--test-size F]
        [--seed N] [--inner-folds N] [--k N] [--distance …] [--neighbours …]
        [--n-jobs N] [--dask-scheduler ADDRESS] [--quiet] --output T.json

Every combination of the ``--grid`` values is scored by :func:`camcf.tuning.tune`: the
protocol cuts the rows into training and held-out parts, each training part alone is cut
into ``--inner-folds`` shuffled folds, and the point's score is the mean over all inner folds
of ``--metric`` oriented so that lower is better (1 − micro-F1; a loss as it is). The held-out
rows are never read. The JSON holds ``best`` (δ1, δ2, k1, k2 as a run uses them: an ``auto``
threshold resolved on all rows) and ``grid`` (one row per point: its parameters, ``score``,
``sd``, ``value``, ``n_features``, ``n_splits``, ``n_empty``).
"""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from typing import Any

from ...algorithm_params import ALGORITHM_PARAMS, by_name
from ...errors import ParameterError
from ...params import Param
from .. import groups
from ..outcome import Outcome
from ..progress import progress_line

COMMAND = "tune"
ORDER = 35
HELP = "choose Ca-MCF's parameters from a grid by inner cross-validation (JSON)"
DESCRIPTION = (
    "Score every combination of the --grid values by ML-kNN's --metric under inner "
    "cross-validation on the training rows of each split of the protocol (the held-out rows "
    "are never read), and write the best point (delta1, delta2, k1, k2 as a run uses them) and "
    "the whole grid as JSON. Scores are oriented so that lower is better: 1 - the metric for "
    "F1, subset accuracy and average precision; Hamming loss, ranking loss and coverage as "
    "they are. Ca-MCF's flags fix the parameters the grid does not vary."
)
#: the metric scored when --metric is not given
DEFAULT_METRIC = "micro_f1"

_ALGO = by_name(ALGORITHM_PARAMS)


def _value(p: Param, text: str) -> Any:
    """One grid value as the declaration reads it (validated)."""
    if text in p.words or p.kind is str:
        value: Any = text
    else:
        try:
            value = float(text) if p.kind is float else int(text)
        except ValueError:
            raise ParameterError(f"--grid {p.name}: {text!r} is not {p.describe()}",
                                 name=p.name, value=text, allowed=p.describe()) from None
    try:
        return p.validate(value)
    except ParameterError as e:
        raise ParameterError(f"--grid {p.name}: {e}", name=p.name, value=text,
                             allowed=p.describe()) from None


def parse_grid(items: Sequence[str]) -> dict[str, list[Any]]:
    """``["delta1=0.01,0.05", "k1=0.3,0.7"]`` → ``{"delta1": [0.01, 0.05], "k1": [0.3, 0.7]}``;
    a bad item (no ``=``, an unknown parameter, a repeated name, a bad value) is a
    :class:`camcf.ParameterError` naming it."""
    grid: dict[str, list[Any]] = {}
    for item in items:
        name, sep, values = item.partition("=")
        name = name.strip().lstrip("-").replace("-", "_")
        if not sep or not name:
            raise ParameterError(f"--grid {item!r}: expected NAME=V1,V2,… such as "
                                 "delta1=0.01,0.05", name="grid", value=item)
        if name not in _ALGO:
            raise ParameterError(f"--grid {item!r}: unknown parameter {name!r}; Ca-MCF's "
                                 f"parameters are {', '.join(_ALGO)}", name=name, value=item,
                                 allowed=list(_ALGO))
        if name in grid:
            raise ParameterError(f"--grid {name} is given twice; list all its values in one "
                                 f"--grid {name}=V1,V2,…", name=name, value=item)
        texts = [v.strip() for v in values.split(",") if v.strip()]
        if not texts:
            raise ParameterError(f"--grid {item!r}: no values after '='", name=name, value=item)
        grid[name] = [_value(_ALGO[name], t) for t in texts]
    return grid


def add_arguments(p: argparse.ArgumentParser, argv: Sequence[str]) -> None:
    groups.add_data(p)
    g = p.add_argument_group("tuning")
    g.add_argument("--grid", action="append", required=True, metavar="NAME=V1,V2",
                   help="a Ca-MCF parameter and its values to try, e.g. delta1=0.01,0.05 or "
                        "delta2=auto,0.1 (repeat for each parameter; every combination is a "
                        f"grid point); parameters: {', '.join(_ALGO)}")
    g.add_argument("--metric", default=DEFAULT_METRIC, metavar="NAME",
                   help="what is scored, one of the seven metrics of `camcf evaluate`: "
                        "hamming_loss, subset_accuracy, average_precision, coverage, "
                        f"ranking_loss, macro_f1, micro_f1 ({DEFAULT_METRIC})")
    g.add_argument("--inner-folds", type=int, default=3, metavar="N",
                   help="shuffled folds each training part is cut into (3; seed --seed)")
    g.add_argument("--held-out", action="store_true",
                   help="also estimate the tuning on the held-out rows (nested): per split, "
                        "the point best on its training rows against the defaults (the fixed "
                        "flags), all seven metrics; only this estimate reads held-out rows")
    groups.add_labels(p)
    groups.add_discretization(p)
    groups.add_method_params(p, ["camcf"])
    groups.add_classifier(p)
    groups.add_protocol(p, help="how the rows are split into training parts (where the grid is "
                                "scored) and held-out parts (never read): repeated (default), "
                                "kfold or holdout")
    groups.add_parallel(p, what="selections and classifications")
    groups.add_progress(p)
    groups.add_output(p)


def run(args: argparse.Namespace) -> Outcome:
    from ...evaluation.splits import make_splitter
    from ...tuning import oriented, tune

    grid = parse_grid(args.grid)
    oriented(args.metric, 0.0)  # an unknown metric: a ParameterError naming it
    if args.inner_folds < 2:
        raise ParameterError(f"--inner-folds must be at least 2, got {args.inner_folds}",
                             name="inner_folds", value=args.inner_folds, allowed=">= 2")
    params = groups.method_values(args, "camcf")
    protocol = groups.protocol_values(args)
    cv = make_splitter(**protocol)
    inner = make_splitter("kfold", n_folds=args.inner_folds, seed=protocol["seed"])
    ds = groups.read_data(args)
    with groups.parallel(args, workers=True) as n_jobs, progress_line(args.quiet) as progress:
        result = tune(ds.X, ds.Y, grid, metric=args.metric, params=params, cv=cv, inner=inner,
                      held_out=args.held_out, **groups.discretization(args),
                      knn=groups.knn_values(args), n_jobs=n_jobs, progress=progress)
    out = result.to_dict()
    settings = out.pop("settings")
    n, m = ds.X.shape
    payload = {
        "data": {"path": args.data, "source": ds.source, "n_samples": int(n),
                 "n_features": int(m), "n_labels": int(ds.Y.shape[1])},
        "metric": settings["metric"],
        "score": settings["score"],
        **out,
        "params": settings["params"],
        "auto": settings["auto"],
        "protocol": {**protocol, "n_splits": settings["n_outer"]},
        "inner": {"protocol": "kfold", "n_folds": args.inner_folds, "seed": protocol["seed"],
                  "n_splits": settings["n_splits"]},
        "classifier": settings["knn"],
        "discretization": groups.discretization(args),
        "seconds": settings["seconds"],
    }
    return Outcome(path=args.output, payload=payload, summary=_summary(payload, grid,
                                                                       args.output))


def _fmt(v: Any) -> str:
    return f"{v:g}" if isinstance(v, float) else str(v)


def _summary(payload: dict[str, Any], grid: dict[str, list[Any]], output: str) -> str:
    d = payload["data"]
    keys = list(grid)
    lines = [
        f"{d['source'] or d['path']}: {d['n_samples']} samples × {d['n_features']} features, "
        f"{d['n_labels']} labels",
        f"{len(payload['grid'])} grid points × {payload['inner']['n_splits']} inner splits "
        f"({payload['protocol']['n_splits']} training part(s) × "
        f"{payload['inner']['n_folds']} folds); score = {payload['score']} (lower is better)",
        "  " + "".join(f"{k:>10}" for k in keys)
        + f"{'score':>10}{'sd':>9}{'features':>10}{'empty':>7}",
    ]
    for i, row in enumerate(payload["grid"]):
        mark = "* " if i == payload["best_index"] else "  "
        score = "n/a" if row["score"] is None else f"{row['score']:.4f}"
        sd = "n/a" if row["sd"] is None else f"{row['sd']:.4f}"
        lines.append(mark + "".join(f"{_fmt(row[k]):>10}" for k in keys)
                     + f"{score:>10}{sd:>9}{row['n_features']:>10.1f}{row['n_empty']:>7}")
    best = payload["best"]
    lines.append("best: " + ", ".join(f"{k}={_fmt(v)}" for k, v in best.items())
                 + (" ('auto' resolved on all rows)" if payload["auto"] else ""))
    if "held_out" in payload:
        lines += _held_out_lines(payload["held_out"]["summary"])
    lines.append(f"{payload['seconds']:.1f} s; written to {output}")
    return "\n".join(lines)


def _held_out_lines(summary: list[dict[str, Any]]) -> list[str]:
    from ...evaluation.metrics import METRICS

    if not summary:
        return ["held-out estimate: no split had a tuned point"]
    by = {(r["set"], r["metric"]): r for r in summary}
    lines = [f"held-out rows (mean over splits): {'metric':<20}{'tuned':>10}{'defaults':>10}"]
    pad = " " * len("held-out rows (mean over splits): ")
    for metric, info in METRICS.items():
        arrow = "↑" if info["higher_is_better"] else "↓"
        vals = [by.get((s, metric), {}).get("mean") for s in ("tuned", "defaults")]
        text = ["n/a" if v is None else f"{v:.4f}" for v in vals]
        lines.append(f"{pad}{info['name'] + ' ' + arrow:<20}{text[0]:>10}{text[1]:>10}")
    feats = [by.get((s, "micro_f1"), {}).get("n_features") for s in ("tuned", "defaults")]
    lines.append(f"{pad}{'features':<20}" + "".join(
        f"{'n/a' if v is None else f'{v:.1f}':>10}" for v in feats))
    for s in ("tuned", "defaults"):
        row = by.get((s, "micro_f1"))
        if row and row["n_empty"]:
            lines.append(f"{pad}{s}: nothing selected on {row['n_empty']} split(s); its means "
                         f"are over the other {row['n']}")
    return lines
