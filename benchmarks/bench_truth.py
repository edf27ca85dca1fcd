"""``camcf truth`` benchmark: seconds per method and n on known networks, beside the cost model
(``camcf.evaluation.truth_study.CELL_COST``), and the full report's estimate.

Runs :func:`camcf.evaluation.truth_study.truth_study` on the networks (default: the four of
``reports/truth.md``) with ``--seeds`` seeds (default 1) and prints, per network, method and n,
the measured seconds of the cell(s), the model's prediction and the ratio; then the total and
the estimate of the full report (10 seeds) from the measured seconds (× seeds) and from the
model (``--plan`` of ``camcf truth``). This is how CELL_COST was fitted.

    .venv/bin/python benchmarks/bench_truth.py [--networks alarm,child,insurance,hailfinder]
        [--n 500,1000,5000,20000] [--seeds 1] [--methods camcf,camcf-auto,…] [--cache DIR]
"""

from __future__ import annotations

import argparse
import time

from camcf import networks
from camcf.estimates import format_seconds
from camcf.evaluation import truth_study as ts


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--networks", default="alarm,child,insurance,hailfinder")
    ap.add_argument("--labels", default="auto:5")
    ap.add_argument("--n", default="500,1000,5000,20000")
    ap.add_argument("--seeds", type=int, default=1)
    ap.add_argument("--methods", default=None)
    ap.add_argument("--cache", default=None, help="keep the cells (resume a stopped run)")
    ap.add_argument("--full-seeds", type=int, default=10, help="seeds of the full report")
    args = ap.parse_args(argv)
    names = [n for n in args.networks.split(",") if n]
    ns = [int(v) for v in args.n.split(",") if v]
    methods = [m for m in args.methods.split(",") if m] if args.methods else None
    loaded = {n: networks.load(n) for n in names}
    t0 = time.perf_counter()
    payload = ts.truth_study(loaded, labels=args.labels, ns=ns, seeds=args.seeds,
                             methods=methods, cache_dir=args.cache)
    wall = time.perf_counter() - t0
    chosen = {m["name"]: ts.METHODS.get(m["name"]) for m in payload["methods"]}
    print(f"{'network':<11} {'method':<14} {'n':>6} {'seconds':>9} {'model':>9} {'ratio':>6}")
    total = 0.0
    for r in payload["summary"]:
        m = chosen[r["method"]]
        secs = r["seconds"]["mean"] or 0.0
        total += secs * r["seeds"]
        model = ts._cost(m, r["n"], len(payload["networks"][r["network"]]["features"]))
        ratio = secs / model if model > 0 else float("nan")
        print(f"{r['network']:<11} {r['method']:<14} {r['n']:>6} {secs:>9.2f} {model:>9.2f} "
              f"{ratio:>6.2f}")
    print(f"cells: {total:.0f} s; wall {wall:.0f} s ({args.seeds} seed(s), "
          f"{payload['cache']['computed']} computed, {payload['cache']['reused']} reused)")
    per_seed = total / args.seeds
    print(f"the full report ({args.full_seeds} seeds) from these cells: about "
          f"{format_seconds(per_seed * args.full_seeds)} in one process")
    plan = ts.truth_study(loaded, labels=args.labels, ns=ns, seeds=args.full_seeds,
                          methods=methods, plan_only=True)
    print(f"the full report from the cost model: {plan['described']}")
    for why in plan["skipped"].values():
        print(f"note: {why}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
