"""``camcf truth``: every method against the true Markov blankets of known networks, over
sample sizes and seeds.

::

    camcf truth NETWORK|FILE.bif [NETWORK …] [--labels A,B,C|auto:K …] [--n 500,1000,5000]
        [--seeds K] [--methods camcf,camcf-auto,…] [--variant NAME:PARAM=V,…]
        [--oracle-grid NAME=V1,V2 …] [--mi-mcf-… / --pc-alpha …] [--cache DIR] [--plan]
        [--n-jobs N] [--dask-scheduler tcp://HOST:PORT] [--quiet] --output REP

Everything is :func:`camcf.evaluation.truth_study.truth_study`; writes ``REP.json``, ``REP.md``
and ``REP.html`` (F1 ± SD per method and n, precision, recall, distance, the selection's and
the label skeleton's F1, tests, seconds; F1 against n drawn). Finished cells are kept in
``--cache`` (default ``REP.cache/``): the same command after a stop continues where it was;
Ctrl-C writes the report of what finished and exits 130.
"""

from __future__ import annotations

import argparse
import shlex
import sys
from collections.abc import Sequence
from pathlib import Path

from ...errors import ParameterError
from .. import groups
from ..outcome import Outcome
from ..progress import progress_line

COMMAND = "truth"
ORDER = 47
HELP = "every method against the true blankets of known networks, over n and seeds (JSON, " \
       "Markdown, HTML)"


def _description() -> str:
    from ...networks import AUTO_RULE, DEFAULT_LABELS

    return (
        "Sample known networks (pgmpy's alarm, child, insurance, hailfinder, …, a BIF file, "
        "the demo) at every n with seeds 0 … K−1, run every method on every sample and score "
        "its answer against the true Markov blankets: per label its found feature blanket "
        "against the true one (precision, recall, F1, distance), averaged over the labels, "
        "then mean ± SD over seeds. Methods: camcf (the paper's defaults), camcf-auto (auto "
        "thresholds), camcf-adequacy (auto + the test-adequacy rule at h = 5), camcf-oracle "
        "(tuned against the truth: the best F1 over a grid that holds the other variants, an "
        "upper bound, not a method), mi-mcf, pc (pgmpy's PC, G² at α = 0.01, at "
        "most 3 conditioning variables; a label's blanket read off the PDAG: parents, "
        "children, undirected neighbours counted as adjacencies, other parents of its "
        "directed children), all (every feature) and random (per label a seeded random "
        "subset as large as its true blanket: the floor). Labels: names, or auto:K "
        f"({AUTO_RULE}); default {DEFAULT_LABELS}. Resumable (--cache), parallel (--n-jobs, "
        "--dask-scheduler); --plan prints the estimate and computes nothing.")


DESCRIPTION = _description()


def _ints(text: str) -> list[int]:
    try:
        values = [int(v) for v in text.replace(" ", "").split(",") if v]
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"expected comma-separated whole numbers like 500,1000,5000; got {text!r}") from None
    if not values or min(values) < 1:
        raise argparse.ArgumentTypeError(f"every n must be at least 1; got {text!r}")
    return values


def _positive(text: str) -> int:
    try:
        v = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a whole number; got {text!r}") from None
    if v < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1; got {v}")
    return v


def add_arguments(p: argparse.ArgumentParser, argv: Sequence[str]) -> None:
    from ...evaluation.truth_study import METHODS, ORACLE_GRID
    from ...networks import AUTO_RULE, DEFAULT_LABELS

    p.add_argument("networks", metavar="NETWORK", nargs="+",
                   help="networks pgmpy ships (alarm, child, insurance, hailfinder, …), demo, "
                        "or .bif / .bif.gz files")
    g = p.add_argument_group("samples")
    g.add_argument("--labels", action="append", metavar="A,B,C|auto:K",
                   help=f"the labels: once for every network, or once per NETWORK in the same "
                        f"order; names or auto:K ({AUTO_RULE}); default {DEFAULT_LABELS}")
    g.add_argument("--n", type=_ints, default=[500, 1000, 5000], metavar="N1,N2,…",
                   help="sample sizes (default 500,1000,5000)")
    g.add_argument("--seeds", type=_positive, default=10, metavar="K",
                   help="samples per size, seeds 0 … K−1 (default 10)")
    m = p.add_argument_group("methods")
    m.add_argument("--methods", metavar="NAMES",
                   help=f"comma-separated, among {', '.join(METHODS)} and the --variant names "
                        "(default: all of them)")
    m.add_argument("--variant", action="append", metavar="NAME:PARAM=V,…",
                   help="a further Ca-MCF variant over the defaults, e.g. "
                        "strict:delta1=0.01,delta2=0.05 (repeat for several); name it in "
                        "--methods or leave --methods out")
    grid = " ".join(f"{k}={','.join(str(v) for v in vs)}" for k, vs in ORACLE_GRID.items())
    m.add_argument("--oracle-grid", action="append", metavar="NAME=V1,V2",
                   help=f"the oracle's grid, one Ca-MCF parameter per flag (default: {grid})")
    groups.add_method_params(p, ["mi-mcf", "pc"])
    p.add_argument("--cache", metavar="DIR",
                   help="folder of finished cells, so that a stopped run continues (default: "
                        "REP.cache beside the output)")
    p.add_argument("--plan", action="store_true",
                   help="print the estimate (cells to compute, expected time) and stop")
    groups.add_parallel(p, what="cells: one method on one sample")
    groups.add_progress(p)
    groups.add_output(p, what="the report: REP.json, REP.md and REP.html",
                      suffixes=(".json", ".md", ".html"), make_folder=True)
    p.set_defaults(argv=list(argv))


def _variants(items: Sequence[str] | None) -> dict[str, dict]:
    from ...algorithm_params import ALGORITHM_PARAMS
    from .tune import _value

    algo = {p.name: p for p in ALGORITHM_PARAMS}
    out: dict[str, dict] = {}
    for item in items or ():
        name, sep, rest = item.partition(":")
        name = name.strip()
        if not sep or not name:
            raise ParameterError(f"--variant {item!r}: expected NAME:PARAM=V,… such as "
                                 "strict:delta1=0.01,delta2=0.05", name="variant", value=item)
        params = {}
        for part in (x for x in rest.split(",") if x.strip()):
            key, eq, value = part.partition("=")
            key = key.strip().replace("-", "_")
            if not eq or key not in algo:
                raise ParameterError(f"--variant {item!r}: {part!r} is not PARAM=VALUE with a "
                                     f"Ca-MCF parameter ({', '.join(algo)})", name="variant",
                                     value=item)
            try:
                params[key] = _value(algo[key], value.strip())
            except ParameterError as e:
                raise ParameterError(f"--variant {item!r}: {e}".replace(" --grid", ""),
                                     name=key, value=value) from None
        if name in out:
            raise ParameterError(f"--variant {name} is given twice", name="variant", value=item)
        out[name] = params
    return out


def run(args: argparse.Namespace) -> Outcome:
    from ...evaluation.truth_study import Stopped, report_files, truth_study
    from .tune import parse_grid

    labels = args.labels or [None]
    if len(labels) not in (1, len(args.networks)):
        raise ParameterError(f"{len(labels)} --labels for {len(args.networks)} networks; give "
                             "one for all of them or one per NETWORK", name="labels")
    if len(labels) == 1:
        labels = labels * len(args.networks)
    names = [n.strip() for n in args.methods.split(",") if n.strip()] if args.methods else None
    grid = parse_grid(args.oracle_grid) if args.oracle_grid else None
    params = {m: groups.method_values(args, m) for m in ("mi-mcf", "pc")}
    out = Path(args.output)
    cache = Path(args.cache) if args.cache else out.with_suffix(".cache")
    from ... import networks as nets

    loaded = {}
    for spec in args.networks:
        net = nets.load(spec)
        key = net.name if net.name not in loaded else spec
        loaded[key] = net
    command = shlex.join(["camcf", *args.argv])
    common = dict(labels=dict(zip(loaded, labels, strict=True)), ns=args.n, seeds=args.seeds,
                  methods=names, variants=_variants(args.variant), oracle_grid=grid,
                  params=params, cache_dir=cache, command=command)
    plan = truth_study(loaded, **common, plan_only=True)
    line = (f"{plan['to_compute']} cells to compute, {plan['cached']} in {cache}; estimate: "
            f"{plan['described']}")
    if args.plan:
        return Outcome(summary=line)
    if not args.quiet:
        print(line, file=sys.stderr)
    try:
        with groups.parallel(args, workers=True) as n_jobs, \
                progress_line(args.quiet) as progress:
            payload = truth_study(loaded, **common, progress=progress, n_jobs=n_jobs)
    except Stopped as stop:
        from ...output import write_text

        for path, text in report_files(stop.payload, out).items():
            write_text(path, text)
        done = len(stop.payload["cells"])
        print(f"camcf truth: stopped; {done} finished cells are in {cache} and in the report "
              f"{out.with_suffix('.md')}; run the same command again to finish",
              file=sys.stderr)
        raise KeyboardInterrupt from None
    files = report_files(payload, out)
    lines = [f"{payload['cache']['computed']} cells computed, {payload['cache']['reused']} "
             f"reused from {cache}"]
    from ...evaluation.truth_study import _findings

    lines += [f.replace("**", "") for f in _findings(payload)]
    lines.append("written to " + ", ".join(files))
    return Outcome(files=files, summary="\n".join(lines))
