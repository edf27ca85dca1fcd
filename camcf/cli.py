"""The ``camcf`` command line: ``select``, ``info`` and ``evaluate``.

Bad arguments and bad files end with a one-line message on stderr and exit code 2, never a
traceback.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import numpy as np

from .algorithm import DEFAULTS
from .errors import CamcfError


class _Parser(argparse.ArgumentParser):
    def error(self, message: str):  # one line, exit 2 (argparse prints usage first otherwise)
        sys.stderr.write(f"camcf: error: {message}\n")
        raise SystemExit(2)


def add_data_args(p: argparse.ArgumentParser, *, data_required: bool = True) -> None:
    """DATA and the options that say how to read and discretise it (shared by subcommands)."""
    if data_required:
        p.add_argument("data", metavar="DATA", help="data file: .arff, .mat or .csv")
    p.add_argument("--labels", help="label columns: comma-separated names, last:K or first:K")
    p.add_argument("--xml", help="MULAN XML file naming the label attributes")
    p.add_argument("--variable", metavar="NAME",
                   help="MATLAB .mat: the variable(s) to read when the file holds several, e.g. "
                        "train_data (its pair train_target), X/Y, or train (one matrix, labels "
                        "last:K); without it, a file with several pairs is refused with a "
                        "message listing them")
    p.add_argument("--discretize", choices=["auto", "none"], default="auto",
                   help="auto: bin continuous columns (SPEC.md); none: data is already coded")
    p.add_argument("--bins", type=int, default=3, help="bins for continuous columns (3)")
    p.add_argument("--strategy", choices=["uniform", "quantile"], default="uniform",
                   help="binning strategy (uniform = equal width)")


def add_param_args(p: argparse.ArgumentParser) -> None:
    """Ca-MCF's parameters."""
    p.add_argument("--delta1", type=float, default=DEFAULTS["delta1"],
                   help="δ1, feature–category threshold in bits (0.05)")
    p.add_argument("--delta2", type=float, default=DEFAULTS["delta2"],
                   help="δ2, category–category threshold in bits (0.1)")
    p.add_argument("--k1", type=float, default=DEFAULTS["k1"],
                   help="share of Phase 2 candidates kept, in (0, 1] (0.7)")
    p.add_argument("--k2", type=float, default=DEFAULTS["k2"],
                   help="share of the blanket kept in Phase 4, in (0, 1] (1.0)")
    p.add_argument("--gamma", type=float, default=DEFAULTS["gamma"],
                   help="redundancy margin (1.2)")
    p.add_argument("--min-category-size", type=int, default=DEFAULTS["min_category_size"],
                   help="skip categories with fewer positive samples (5)")
    p.add_argument("--recovery", choices=["first", "all"], default=DEFAULTS["recovery"],
                   help="Phase 3: stop after the first recovered feature (authors' code) or "
                        "try all (paper)")


def params_from_args(args) -> dict:
    return {
        "delta1": args.delta1, "delta2": args.delta2, "k1": args.k1, "k2": args.k2,
        "gamma": args.gamma, "min_category_size": args.min_category_size,
        "recovery": args.recovery,
    }


def read_data(args, path: str | None = None):
    """Load DATA with the label options in ``args``."""
    from .io import load

    path = path or args.data
    if not Path(path).exists():
        raise CamcfError(f"{path}: no such file")
    return load(path, labels=args.labels, xml=args.xml, variable=getattr(args, "variable", None))


def codes_of(ds, args) -> np.ndarray:
    from .discretize import discretize

    codes, _ = discretize(ds.X, bins=args.bins, strategy=args.strategy, mode=args.discretize)
    return codes


def _write(path: str, payload: dict | str) -> None:
    text = payload if isinstance(payload, str) else json.dumps(payload, indent=1,
                                                               ensure_ascii=False)
    try:
        Path(path).write_text(text + ("\n" if not text.endswith("\n") else ""), encoding="utf-8")
    except OSError as e:
        raise CamcfError(f"cannot write {path}: {e.strerror}") from None


def cmd_select(args) -> int:
    import warnings

    from .algorithm import CamcfWarning, run

    ds = read_data(args)
    codes = codes_of(ds, args)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", CamcfWarning)
        res = run(codes, ds.Y, feature_names=ds.feature_names, label_names=ds.label_names,
                  category_names=ds.category_names, **params_from_args(args))
    payload = res.to_dict(include_trace=args.trace)
    payload["data"] = {"path": str(args.data), "source": ds.source,
                       "labels": args.labels, "xml": args.xml, "variable": args.variable,
                       "discretize": args.discretize, "bins": args.bins,
                       "strategy": args.strategy}
    _write(args.output, payload)
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
    print(f"{ds.source}: {ds.n_samples} samples × {ds.n_features} features, {ds.n_labels} "
          f"labels, cardinality {ds.label_cardinality:.3f}")
    for lab in labels:
        cats = ", ".join(f"{n}:{k}" for n, k in zip(lab["category_names"], lab["counts"],
                                                     strict=True))
        print(f"  {lab['name']}: {cats}")
    return 0


def build_parser() -> argparse.ArgumentParser:
    p = _Parser(prog="camcf", description="Ca-MCF: category-level multi-label causal feature "
                                          "selection, with every decision recorded.")
    sub = p.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    sub.required = True

    s = sub.add_parser("select", help="run Ca-MCF and write the selection and blankets as JSON")
    add_data_args(s)
    add_param_args(s)
    s.add_argument("--trace", action="store_true", help="include every test in the JSON")
    s.add_argument("--output", "-o", required=True, help="where to write the JSON result")
    s.set_defaults(func=cmd_select)

    i = sub.add_parser("info", help="describe a data set (shapes, labels, categories)")
    add_data_args(i)
    i.add_argument("--output", "-o", required=True, help="where to write the JSON description")
    i.set_defaults(func=cmd_info)

    try:
        from .evaluation import command as evaluation_command
    except ImportError:  # the evaluate command is optional while it is being written
        evaluation_command = None
    if evaluation_command is not None and hasattr(evaluation_command, "add_parser"):
        evaluation_command.add_parser(sub)
    return p


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        return int(args.func(args) or 0)
    except CamcfError as e:
        print(f"camcf: error: {e}", file=sys.stderr)
        return 2
    except BrokenPipeError:  # e.g. piped into head
        return 0
    except KeyboardInterrupt:
        print("camcf: interrupted", file=sys.stderr)
        return 130
