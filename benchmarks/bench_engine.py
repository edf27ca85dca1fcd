"""Engine benchmark: every shared data set, two parameter settings, fast vs straightforward.

Prints per data set and setting: seconds (best of --repeats), peak traced memory, tests
(the record's rows at level "full"), conditional quantities the engine computed by counting
(speculative ones included), values read from the unconditional tables, and the speed-up over the
straightforward engine (``engine="reference"``: one CMI per test with ``np.unique(axis=0)``,
no batching, no caching, both categories of a binary label computed). The straightforward run
is stopped after --budget seconds; the speed-up is then a lower bound ("≥").

    .venv/bin/python benchmarks/bench_engine.py [--sets yeast,plantgo] [--budget 120]
"""

from __future__ import annotations

import argparse
import sys
import time
import tracemalloc
import warnings

import numpy as np
from bench_settings import SETTINGS  # the one declaration, beside this script

import camcf
from camcf.catalog import available, data_dir, load_shared
from camcf.discretize import discretize


class _Stop(Exception):
    pass


def reference_seconds(X, Y, params, budget):
    """Seconds of the straightforward run, or (elapsed, share done) when the budget runs out."""
    t0 = time.perf_counter()
    share = [0.0]

    def progress(done, total, _msg):
        share[0] = done / total
        if time.perf_counter() - t0 > budget:
            raise _Stop

    try:
        camcf.run(X, Y, **params, engine="reference", progress=progress)
    except _Stop:
        return time.perf_counter() - t0, share[0]
    return time.perf_counter() - t0, 1.0


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--sets", help="comma-separated catalogue names (default: all available)")
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--budget", type=float, default=60.0,
                    help="seconds allowed to the straightforward run per data set and setting")
    ap.add_argument("--no-reference", action="store_true")
    args = ap.parse_args(argv)
    names = args.sets.split(",") if args.sets else [
        n for n in available() if n not in ("yeast-split",)]
    if not names:
        print(f"no data sets found in {data_dir()} (set CAMCF_DATA_DIR)", file=sys.stderr)
        return 1
    warnings.simplefilter("ignore", camcf.CamcfWarning)
    print(f"{'data set':<10} {'n×m':>11} {'setting':<8} {'seconds':>8} {'peak MB':>8} "
          f"{'tests':>10} {'computed':>10} {'lookups':>8} {'selected':>8} "
          f"{'straightforward':>16} {'speed-up':>9}")
    for name in names:
        ds = load_shared(name)
        X, _ = discretize(ds.X)
        Y = ds.Y
        for sname, params in SETTINGS.items():
            times = []
            for _ in range(args.repeats):
                t0 = time.perf_counter()
                res = camcf.run(X, Y, **params)
                times.append(time.perf_counter() - t0)
            best = min(times)
            tracemalloc.start()
            camcf.run(X, Y, **params)
            _, peak = tracemalloc.get_traced_memory()
            tracemalloc.stop()
            if args.no_reference:
                ref_txt, speed = "-", "-"
            else:
                ref, share = reference_seconds(X, Y, params, args.budget)
                if share < 1.0:
                    ref_txt = f">{ref:.0f}s ({share:.0%})"
                    speed = f"≥{ref / best:.0f}×"
                else:
                    ref_txt = f"{ref:.2f}s"
                    speed = f"{ref / best:.0f}×"
            print(f"{name:<10} {f'{X.shape[0]}×{X.shape[1]}':>11} {sname:<8} {best:8.3f} "
                  f"{peak / 2**20:8.1f} {res.n_tests:>10} {res.stats['computed']:>10} "
                  f"{res.stats['lookups']:>8} {len(res.selected_indices):>8} "
                  f"{ref_txt:>16} {speed:>9}", flush=True)
    print(f"numpy {np.__version__}; python {sys.version.split()[0]}; best of {args.repeats}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
