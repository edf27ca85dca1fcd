"""``camcf select``: run Ca-MCF (or another registered method) and write the selection as JSON.

::

    camcf select DATA [labels] [discretisation] [--method NAME] [that method's flags]
        [--n-features K] [--trace] [--trace-level …] [--record FILE] [--truth FILE]
        [--n-jobs N] [--dask-scheduler ADDRESS] [--quiet] --output OUT.json

``--truth OUT.truth.json`` (``camcf simulate``'s) adds ``"truth"``: per label precision, recall,
F1, distance, found and true (:func:`camcf.truth.score_result`; another method: per label when
it answers per label, :func:`camcf.truth.score_selection`) and overall.

Ca-MCF's flags are ``--delta1``, ``--k1``…; another method's carry its name
(``--method mi-mcf --mi-mcf-k1 0.5``); ``camcf select --method NAME --help`` lists them.
"""

from __future__ import annotations

import argparse
import time
import warnings
from collections.abc import Sequence

from ... import methods
from ...algorithm_params import ALGORITHM_PARAMS
from ...errors import ParameterError
from ...params import defaults
from .. import groups
from ..outcome import Outcome
from ..progress import progress_line
from ..words import say_warning

COMMAND = "select"
ORDER = 10
HELP = "run Ca-MCF (or another method) and write the selection as JSON"
DESCRIPTION = ("Run Ca-MCF (or, with --method, another registered method) on DATA and write the "
               "selection as JSON. A ranking method also writes 'ranking' (every feature, "
               "0-based, best first). Method flags: Ca-MCF's as --delta1 …, another method's "
               "as --METHOD-PARAM (camcf select --method NAME --help lists them).")

#: categories listed one per line in the summary; more are summed up in one line
LISTED = 20


def add_arguments(p: argparse.ArgumentParser, argv: Sequence[str]) -> None:
    groups.add_data(p)
    groups.add_labels(p)
    groups.add_discretization(p)
    m = p.add_argument_group("method")
    m.add_argument("--method", default=methods.DEFAULT, choices=list(methods.METHODS),
                   metavar="NAME",
                   help="the method: " + ", ".join(methods.METHODS) + f" ({methods.DEFAULT})")
    m.add_argument("--n-features", type=int, metavar="K",
                   help="a ranking method keeps its K best features (default: half of them)")
    chosen = groups.named_methods(argv, "--method")
    groups.add_method_params(p, methods.METHODS, shown=chosen or None)
    rec = p.add_argument_group("Ca-MCF's decision record")
    rec.add_argument("--trace", action="store_true", help="include every test in the JSON")
    rec.add_argument("--trace-level", choices=["full", "decisions", "counters"],
                     help="how much of the decision record to keep: full with --trace or "
                          "--record, else decisions (only the tests that changed a set)")
    rec.add_argument("--record", metavar="FILE",
                     help="write the decision record to FILE (.parquet, .csv or .jsonl), "
                          "streamed target by target")
    groups.add_truth(p)
    groups.add_parallel(p, what="Ca-MCF's target categories")
    groups.add_progress(p)
    groups.add_output(p)


def run(args: argparse.Namespace) -> Outcome:
    groups.check_method_flags(args, [args.method], where="--method")
    if args.method != methods.DEFAULT:
        return _other(args)
    if args.n_features is not None:
        raise ParameterError("--n-features cuts a ranking; Ca-MCF selects a subset (use "
                             "--method with a ranking method)", name="n_features")
    from ...algorithm import CamcfWarning
    from ...algorithm import run as camcf_run
    from ...output import json_text

    params = {**defaults(ALGORITHM_PARAMS), **groups.method_values(args, "camcf")}
    truth = groups.read_truth(args.truth)
    ds = groups.read_data(args)
    if truth is not None:
        from ...truth import check_names

        check_names(truth, ds.feature_names, ds.label_names)
    codes = groups.codes_of(ds, args)
    Y, source, feature_names = ds.Y, ds.source, ds.feature_names
    label_names, category_names = ds.label_names, ds.category_names
    del ds  # the raw feature values are not needed past their codes (on delicious's shape,
    # 64 MB of float64 freed before the run)
    (n_samples, n_features), n_labels = codes.shape, Y.shape[1]
    level = args.trace_level or ("full" if args.trace or args.record else "decisions")
    with warnings.catch_warnings(record=True) as caught, \
            groups.parallel(args) as n_jobs, progress_line(args.quiet) as progress:
        warnings.simplefilter("always", CamcfWarning)
        res = camcf_run(codes, Y, feature_names=feature_names, label_names=label_names,
                        category_names=category_names, **params, n_jobs=n_jobs, trace=level,
                        progress=progress)
    lines = []
    if args.record:
        rows = res.write_record(args.record)
        lines.append(f"decision record: {rows} rows written to {args.record}")
    data = {"path": str(args.data), "source": source, "labels": groups.label_spec(args),
            "xml": args.xml, "variable": args.variable, **groups.discretization(args)}
    payload = {"method": "camcf", **res.to_dict()}
    if truth is not None:
        from ...truth import score_result

        payload["truth"] = score_result(res, truth)
    text = None
    if args.trace:  # the decision record's text is built column-wise, then put in its place
        text = res.fill_trace(json_text({**payload, "trace": [], "data": data}), 1)
        if text is None:
            payload["trace"] = res.trace_records()
    if text is None:
        text = json_text({**payload, "data": data})
    lines.append(f"{source}: {n_samples} samples × {n_features} features, "
                 f"{n_labels} labels, {len(res.categories)} label categories")
    lines.append("parameters: " + ", ".join(f"{k}={v}" for k, v in res.params.items()))
    skipped = [t for t in res.targets if t.skipped]
    if len(res.targets) <= LISTED:
        for t in res.targets:
            c = t.category
            if t.skipped:
                lines.append(f"  {c.display:<24} skipped: {t.skip_reason}")
                continue
            lines.append(f"  {c.display:<24} R={len(t.skeleton)} PC={len(t.pc)} "
                         f"SP={len(t.spouses)} recovered={len(t.recovered)} "
                         f"blanket={len(t.blanket)}")
    else:
        lines.append(f"  {len(res.targets)} target categories ({len(skipped)} skipped); each "
                     f"one's sets are under 'targets' in {args.output}")
    lines.append(f"selected {len(res.selected_indices)} of {n_features} features: "
                 + ", ".join(res.selected_features[:30])
                 + (" …" if len(res.selected_features) > 30 else ""))
    if truth is not None:
        lines += groups.truth_lines(payload["truth"], f"truth ({truth.network})")
    lines.append(f"{res.n_tests} tests in {res.stats['seconds']:.3f} s; written to "
                 f"{args.output}")
    return Outcome(path=args.output, text=text, summary="\n".join(lines),
                   warnings=[say_warning(w.message) for w in caught])


def _other(args: argparse.Namespace) -> Outcome:
    """``camcf select --method NAME`` for a method other than Ca-MCF."""
    import numpy as np

    name = args.method
    if args.trace or args.record or args.trace_level:
        raise ParameterError("--trace, --trace-level and --record are Ca-MCF's decision record; "
                             f"{methods.display(name)} has none", name="trace")
    if args.n_jobs is not None or args.dask_scheduler:
        raise ParameterError(f"--n-jobs and --dask-scheduler run Ca-MCF's target categories in "
                             f"parallel; {methods.display(name)} runs in one process",
                             name="n_jobs")
    given = groups.method_values(args, name)
    if args.n_features is not None:
        if methods.kind(name) != "ranking":
            raise ParameterError(f"--n-features cuts a ranking; {methods.display(name)} selects "
                                 "a subset", name="n_features")
        given["n_features_to_select"] = args.n_features
    est = methods.make(name, **given)
    truth = groups.read_truth(args.truth)
    ds = groups.read_data(args)
    if truth is not None:
        from ...truth import check_names

        check_names(truth, ds.feature_names, ds.label_names)
    codes = groups.codes_of(ds, args)
    t0 = time.perf_counter()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        est.fit(codes, ds.Y)
    seconds = time.perf_counter() - t0
    selected = [int(i) for i in np.flatnonzero(est.get_support())]
    payload = {
        "method": name, "method_name": methods.display(name), "kind": methods.kind(name),
        "params": dict(est.get_params(deep=False)),
        "selected_indices": selected,
        "selected_features": [ds.feature_names[i] for i in selected],
        "n_features": ds.n_features, "seconds": seconds,
    }
    ranking = getattr(est, "ranking_", None)
    if ranking is not None:
        payload["ranking"] = [int(i) for i in ranking]
        scores = getattr(est, "scores_", None)
        if scores is not None:
            payload["scores"] = [float(v) for v in scores]  # NaN/inf → null when written
    lines = []
    if truth is not None:
        from ...truth import score_selection

        payload["truth"] = score_selection(
            truth, ds.feature_names, ds.label_names, selection=selected,
            blankets=getattr(est, "blankets_", None),
            label_blankets=getattr(est, "label_blankets_", None))
        lines = groups.truth_lines(payload["truth"], f"truth ({truth.network})")
    payload["data"] = {"path": str(args.data), "source": ds.source,
                       "labels": groups.label_spec(args), "xml": args.xml,
                       "variable": args.variable, **groups.discretization(args)}
    summary = (f"{ds.source}: {ds.n_samples} samples × {ds.n_features} features, "
               f"{ds.n_labels} labels\n"
               f"{methods.display(name)} ({methods.kind(name)}): selected {len(selected)} of "
               f"{ds.n_features} features in {seconds:.3f} s; written to {args.output}")
    summary = "\n".join([summary, *lines])
    return Outcome(path=args.output, payload=payload, summary=summary,
                   warnings=[say_warning(w.message) for w in caught])
