"""Baseline benchmark (MDFS, JFSC, MCLS): seconds per method on every shared data set.

Each method runs with its published defaults on the discretised codes (camcf's default
discretisation, as the CLI hands them over) and all labels; prints seconds (best of --repeats),
iterations where the method iterates, and the top five features.

    CAMCF_DATA_DIR=../shared/datasets .venv/bin/python benchmarks/bench_baselines_opt.py \
        [--sets flags,enron] [--methods mdfs,jfsc,mcls] [--repeats 1]
"""

from __future__ import annotations

import argparse
import sys
import time
import warnings

import numpy as np

import camcf
from camcf.baselines.jfsc import JFSC
from camcf.baselines.mcls import MCLS
from camcf.baselines.mdfs import MDFS
from camcf.catalog import available, data_dir, load_shared
from camcf.discretize import discretize

METHODS = {"mdfs": MDFS, "jfsc": JFSC, "mcls": MCLS}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--sets", help="comma-separated catalogue names (default: all available)")
    ap.add_argument("--methods", default=",".join(METHODS))
    ap.add_argument("--repeats", type=int, default=1)
    args = ap.parse_args(argv)
    names = args.sets.split(",") if args.sets else [
        n for n in available() if n not in ("yeast-split",)]
    if not names:
        print(f"no data sets found in {data_dir()} (set CAMCF_DATA_DIR)", file=sys.stderr)
        return 1
    warnings.simplefilter("ignore", camcf.CamcfWarning)
    print(f"{'data set':<10} {'n×m':>11} {'q':>3} {'method':<6} {'seconds':>8} {'iter':>5} "
          f"{'top 5 features':<30}")
    for name in names:
        ds = load_shared(name)
        X, _ = discretize(ds.X)
        Y = ds.Y
        for mname in args.methods.split(","):
            times = []
            for _ in range(args.repeats):
                t0 = time.perf_counter()
                est = METHODS[mname]().fit(X, Y)
                times.append(time.perf_counter() - t0)
            extra = getattr(est, "n_iter_", "-")
            print(f"{name:<10} {f'{X.shape[0]}×{X.shape[1]}':>11} {Y.shape[1]:>3} {mname:<6} "
                  f"{min(times):8.2f} {extra!s:>5} {str([int(i) for i in est.ranking_[:5]]):<30}",
                  flush=True)
    print(f"numpy {np.__version__}; python {sys.version.split()[0]}; best of {args.repeats}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
