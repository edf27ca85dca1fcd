"""The ``camcf`` command line: ``select``, ``info``, ``evaluate`` and ``compare``.

Method flags are generated from the parameter declarations (:mod:`camcf.cli_params`):
Ca-MCF's from :mod:`camcf.algorithm_params`, every other method's from its class's ``params``.

Every failure ends with one line on stderr and a documented exit code, never a traceback:

* 0 — success;
* 2 — bad input: bad arguments, a file that is not a readable data set, labels that do not fit,
  parameters out of range (:class:`camcf.CamcfError`);
* 3 — environment failure: a file that cannot be read or written (permissions, missing folder),
  not enough memory (:class:`camcf.ResourceLimitError`, ``MemoryError``), the disk is full;
* 4 — an internal error (a bug in camcf; set ``CAMCF_DEBUG=1`` to see the traceback);
* 130 — interrupted (Ctrl-C).

Outputs are written atomically (:mod:`camcf.output`): a failed or killed run leaves an existing
output file as it was.
"""

from __future__ import annotations

import argparse
import errno
import os
import sys
from pathlib import Path

import numpy as np

from .algorithm import DEFAULTS
from .algorithm_params import ALGORITHM_PARAMS, DISCRETIZE_PARAMS
from .cli_params import add_param_flags, flag_values, method_params
from .errors import CamcfError, FileAccessError, ParameterError, ResourceLimitError
from .output import json_text, write_json, write_text

#: exit codes (documented in the module docstring, ``camcf --help`` and the README)
EXIT_OK, EXIT_INPUT, EXIT_ENVIRONMENT, EXIT_INTERNAL, EXIT_INTERRUPTED = 0, 2, 3, 4, 130
EPILOG = ("exit codes: 0 success; 2 bad input (arguments, data file, labels, parameters); "
          "3 environment failure (file unreadable or unwritable, out of memory, disk full); "
          "4 internal error (set CAMCF_DEBUG=1 for the traceback); 130 interrupted. "
          "Outputs are written atomically: a failed run leaves an existing output untouched.")


class _Parser(argparse.ArgumentParser):
    def error(self, message: str):  # one line, exit 2 (argparse prints usage first otherwise)
        sys.stderr.write(f"camcf: error: {message}\n")
        raise SystemExit(2)


def add_data_args(p: argparse.ArgumentParser, *, data_required: bool = True) -> None:
    """DATA and the options that say how to read and discretise it (shared by subcommands)."""
    if data_required:
        p.add_argument("data", metavar="DATA", help="data file: .arff, .mat or .csv")
    p.add_argument("--labels", help="label columns: comma-separated names, last:K or first:K, "
                                     "or a JSON list of names (for names with commas: "
                                     "'[\"a,b\", \"c\"]')")
    p.add_argument("--label", action="append", metavar="NAME", dest="label_list",
                   help="one label column by its exact name (repeat for several; for names "
                        "containing commas)")
    p.add_argument("--xml", help="MULAN XML file naming the label attributes")
    p.add_argument("--variable", metavar="NAME",
                   help="MATLAB .mat: the variable(s) to read when the file holds several, e.g. "
                        "train_data (its pair train_target), X/Y, or train (one matrix, labels "
                        "last:K); without it, a file with several pairs is refused with a "
                        "message listing them")
    add_param_flags(p, DISCRETIZE_PARAMS)


def add_param_args(p: argparse.ArgumentParser, *, with_defaults: bool = True) -> None:
    """Ca-MCF's parameters (generated from :data:`camcf.algorithm_params.ALGORITHM_PARAMS`)."""
    add_param_flags(p, ALGORITHM_PARAMS, with_defaults=with_defaults)


def params_from_args(args) -> dict:
    """Ca-MCF's parameters from ``args`` (defaults for those not given)."""
    return {**DEFAULTS, **flag_values(args, ALGORITHM_PARAMS)}


def label_spec(args):
    """The label specification from ``--labels`` / repeated ``--label`` (not both)."""
    many = getattr(args, "label_list", None)
    if many and args.labels is not None:
        raise CamcfError("give the label columns either with --labels or with repeated --label, "
                         "not both")
    return list(many) if many else args.labels


def read_data(args, path: str | None = None):
    """Load DATA with the label options in ``args``."""
    from .io import load

    path = path or args.data
    if not Path(path).exists():
        raise CamcfError(f"{path}: no such file")
    return load(path, labels=label_spec(args), xml=args.xml,
                variable=getattr(args, "variable", None))


def codes_of(ds, args) -> np.ndarray:
    """The data's codes: ``--discretize none`` hands the values over as they are (they must be
    integers); ``auto`` bins continuous columns."""
    from .discretize import discretize

    if args.discretize == "none":
        discretize(ds.X, discretize="none")  # checks that every value is an integer code
        return np.asarray(ds.X).astype(np.int64)
    codes, _ = discretize(ds.X, bins=args.bins, strategy=args.strategy,
                          discretize=args.discretize)
    return codes


def _write(path: str, payload: dict) -> None:
    write_json(path, payload)  # strict JSON (NaN → null), atomic


def cmd_select(args) -> int:
    if args.method != "camcf":
        return _select_other(args)
    import warnings

    from .algorithm import CamcfWarning, run

    ds = read_data(args)
    codes = codes_of(ds, args)
    level = args.trace_level or ("full" if args.trace or args.record else "decisions")
    with warnings.catch_warnings(record=True) as caught, _backend(args) as n_jobs:
        warnings.simplefilter("always", CamcfWarning)
        res = run(codes, ds.Y, feature_names=ds.feature_names, label_names=ds.label_names,
                  category_names=ds.category_names, **params_from_args(args), n_jobs=n_jobs,
                  trace=level)
    if args.record:
        rows = res.write_record(args.record)
        print(f"decision record: {rows} rows written to {args.record}")
    data = {"path": str(args.data), "source": ds.source, "labels": label_spec(args),
            "xml": args.xml, "variable": getattr(args, "variable", None),
            "discretize": args.discretize, "bins": args.bins, "strategy": args.strategy}
    payload = {"method": "camcf", **res.to_dict()}
    text = None
    if args.trace:  # the decision record's text is built column-wise, then put in its place
        text = res.fill_trace(json_text({**payload, "trace": [], "data": data}), 1)
        if text is None:
            payload["trace"] = res.trace_records()
    if text is None:
        text = json_text({**payload, "data": data})
    write_text(args.output, text)
    print(f"{ds.source}: {ds.n_samples} samples × {ds.n_features} features, "
          f"{ds.n_labels} labels, {len(res.categories)} label categories")
    print("parameters: " + ", ".join(f"{k}={v}" for k, v in res.params.items()))
    for t in res.targets:
        c = t.category
        if t.skipped:
            print(f"  {c.display:<24} skipped: {t.skip_reason}")
            continue
        print(f"  {c.display:<24} R={len(t.skeleton)} PC={len(t.pc)} SP={len(t.spouses)} "
              f"recovered={len(t.recovered)} blanket={len(t.blanket)}")
    print(f"selected {len(res.selected_indices)} of {ds.n_features} features: "
          + ", ".join(res.selected_features[:30])
          + (" …" if len(res.selected_features) > 30 else ""))
    print(f"{res.n_tests} tests in {res.stats['seconds']:.3f} s; written to {args.output}")
    for w in caught:
        print(f"warning: {w.message}", file=sys.stderr)
    return 0


def _select_other(args) -> int:
    """``camcf select --method NAME`` for a method other than Ca-MCF."""
    import time
    import warnings

    from . import methods

    name = args.method
    cls = methods.get(name)
    own = {p.name for p in getattr(cls, "params", ())}
    given = flag_values(args, method_params(methods.available()) + list(ALGORITHM_PARAMS))
    given.pop("n_jobs", None)  # the engine's --n-jobs (Ca-MCF only)
    for dp in DISCRETIZE_PARAMS:  # data handling, not the method's
        given.pop(dp.name, None)
    foreign = sorted(set(given) - own)
    if foreign:
        flag = "--" + foreign[0].replace("_", "-")
        raise ParameterError(f"{flag} is not a parameter of method {name!r}; its parameters: "
                             f"{', '.join('--' + n.replace('_', '-') for n in sorted(own)) or 'none'}")
    if args.trace:
        raise ParameterError("--trace is Ca-MCF's decision record; other methods have none")
    ds = read_data(args)
    codes = codes_of(ds, args)
    est = methods.make(name, **given)
    t0 = time.perf_counter()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        est.fit(codes, ds.Y)
    seconds = time.perf_counter() - t0
    selected = [int(i) for i in np.flatnonzero(est.get_support())]
    payload = {
        "method": name, "method_name": methods.display(name), "kind": methods.kind(name),
        "params": {k: v for k, v in est.get_params(deep=False).items()},
        "selected_indices": selected,
        "selected_features": [ds.feature_names[i] for i in selected],
        "n_features": ds.n_features, "seconds": seconds,
    }
    ranking = getattr(est, "ranking_", None)
    if ranking is not None:
        payload["ranking"] = [int(i) for i in ranking]
        scores = getattr(est, "scores_", None)
        if scores is not None:
            payload["scores"] = [None if not np.isfinite(v) else float(v) for v in scores]
    payload["data"] = {"path": str(args.data), "source": ds.source, "labels": args.labels,
                       "xml": args.xml, "discretize": args.discretize, "bins": args.bins,
                       "strategy": args.strategy}
    _write(args.output, payload)
    print(f"{ds.source}: {ds.n_samples} samples × {ds.n_features} features, "
          f"{ds.n_labels} labels")
    print(f"{methods.display(name)} ({methods.kind(name)}): selected {len(selected)} of "
          f"{ds.n_features} features in {seconds:.3f} s; written to {args.output}")
    for w in caught:
        print(f"warning: {w.message}", file=sys.stderr)
    return 0


def _backend(args):
    """The engine's parallel backend: ``--dask-scheduler`` (a Dask cluster; all its workers
    unless --n-jobs says otherwise) or local joblib workers (``--n-jobs``)."""
    import contextlib

    if getattr(args, "dask_scheduler", None):
        from .parallel import dask_cluster

        @contextlib.contextmanager
        def on_cluster():
            with dask_cluster(args.dask_scheduler):
                yield args.n_jobs if args.n_jobs is not None else -1

        return on_cluster()
    return contextlib.nullcontext(args.n_jobs)


def cmd_info(args) -> int:
    ds = read_data(args)
    labels = []
    for i, name in enumerate(ds.label_names):
        vals, counts = np.unique(ds.Y[:, i], return_counts=True)
        labels.append({
            "name": name,
            "categories": [int(v) for v in vals],
            "category_names": [ds.category_names[i].get(int(v), str(v)) for v in vals],
            "counts": [int(k) for k in counts],
        })
    payload = {
        "source": ds.source,
        "n_samples": ds.n_samples,
        "n_features": ds.n_features,
        "n_labels": ds.n_labels,
        "label_cardinality": ds.label_cardinality,
        "n_categories": int(sum(len(lab["categories"]) for lab in labels)),
        "labels": labels,
        "feature_names": list(ds.feature_names),
    }
    _write(args.output, payload)
    card = ds.label_cardinality
    print(f"{ds.source}: {ds.n_samples} samples × {ds.n_features} features, {ds.n_labels} "
          f"labels, cardinality " + (f"{card:.3f}" if card == card else "n/a (no binary label)"))
    for lab in labels:
        cats = ", ".join(f"{n}:{k}" for n, k in zip(lab["category_names"], lab["counts"],
                                                     strict=True))
        print(f"  {lab['name']}: {cats}")
    return 0


def build_parser() -> argparse.ArgumentParser:
    p = _Parser(prog="camcf", description="Ca-MCF: category-level multi-label causal feature "
                                          "selection, with every decision recorded.",
                epilog=EPILOG)
    sub = p.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    sub.required = True

    s = sub.add_parser("select", help="run Ca-MCF (or another method) and write the selection "
                                      "as JSON")
    add_data_args(s)
    from . import methods

    s.add_argument("--method", default=methods.DEFAULT, choices=list(methods.METHODS),
                   metavar="NAME",
                   help="the method: " + ", ".join(methods.METHODS) + " (camcf); a ranking "
                        "method also writes 'ranking' (every feature, 0-based, best first)")
    add_param_args(s, with_defaults=False)
    others = [n for n in methods.available() if n != "camcf"]
    add_param_flags(s.add_argument_group("other methods' parameters"), method_params(others),
                    with_defaults=False)
    s.add_argument("--trace", action="store_true", help="include every test in the JSON")
    s.add_argument("--trace-level", choices=["full", "decisions", "counters"],
                   help="how much of the decision record to keep: full with --trace or "
                        "--record, else decisions (only the tests that changed a set)")
    s.add_argument("--record", metavar="FILE",
                   help="write the decision record to FILE (.parquet, .csv or .jsonl), "
                        "streamed target by target")
    s.add_argument("--n-jobs", type=int, default=None,
                   help="target categories in parallel (joblib); -1 = all cores (default 1)")
    s.add_argument("--dask-scheduler", metavar="ADDRESS",
                   help="run the target categories on a Dask cluster, e.g. tcp://HOST:8786")
    s.add_argument("--output", "-o", required=True, help="where to write the JSON result")
    s.set_defaults(func=cmd_select)

    i = sub.add_parser("info", help="describe a data set (shapes, labels, categories)")
    add_data_args(i)
    i.add_argument("--output", "-o", required=True, help="where to write the JSON description")
    i.set_defaults(func=cmd_info)

    from .evaluation import command as evaluation_command  # a broken import must fail loudly
    from .evaluation import compare_command

    evaluation_command.add_parser(sub)
    compare_command.add_parser(sub)
    return p


def error_exit(exc: BaseException, prog: str = "camcf") -> int:
    """Print one line for ``exc`` on stderr and return its exit code (see the module docstring).

    Environment failures (3): :class:`FileAccessError`, :class:`ResourceLimitError`,
    ``MemoryError``, ``OSError`` (permissions, missing files, disk full). Bad input (2): any other
    :class:`CamcfError`. Anything else is a bug (4).
    """
    if isinstance(exc, KeyboardInterrupt):
        print(f"{prog}: interrupted", file=sys.stderr)
        return EXIT_INTERRUPTED
    if isinstance(exc, FileAccessError | ResourceLimitError):
        print(f"{prog}: error: {exc}", file=sys.stderr)
        return EXIT_ENVIRONMENT
    if isinstance(exc, CamcfError):
        print(f"{prog}: error: {exc}", file=sys.stderr)
        return EXIT_INPUT
    if isinstance(exc, MemoryError):
        print(f"{prog}: error: out of memory ({exc or 'an allocation failed'}); use a smaller "
              f"data set or a machine with more memory", file=sys.stderr)
        return EXIT_ENVIRONMENT
    if isinstance(exc, OSError):
        where = f" {exc.filename}" if getattr(exc, "filename", None) else ""
        if exc.errno == errno.ENOSPC:
            why = "the disk is full; free some space"
        elif isinstance(exc, PermissionError):
            why = "permission denied; check the file's permissions"
        else:
            why = (exc.strerror or str(exc) or type(exc).__name__) + "; check the path"
        print(f"{prog}: error: cannot access{where}: {why}", file=sys.stderr)
        return EXIT_ENVIRONMENT
    line = str(exc).splitlines()[0] if str(exc) else ""
    print(f"{prog}: internal error: {type(exc).__name__}: {line} (a bug in camcf; set "
          f"CAMCF_DEBUG=1 to see the traceback)", file=sys.stderr)
    return EXIT_INTERNAL


def main(argv: list[str] | None = None) -> int:
    """Run the command line; every failure is one line on stderr and an exit code."""
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        return int(args.func(args) or 0)
    except BrokenPipeError:  # e.g. piped into head
        try:
            sys.stdout = open(os.devnull, "w")  # noqa: SIM115 - silence the flush at exit
        except OSError:
            pass
        return EXIT_OK
    except (Exception, KeyboardInterrupt) as e:  # noqa: BLE001 - one line, never a traceback
        if os.environ.get("CAMCF_DEBUG") and not isinstance(e, CamcfError | KeyboardInterrupt):
            raise
        return error_exit(e)
