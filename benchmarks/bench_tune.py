"""Tuner benchmark: wall time of camcf.tuning.tune on shared data sets, and the best point
against the defaults.

Per data set: a δ1 × k1 grid (3 × 3 by default) scored by micro-F1 under the default protocol
(5 × 70/30 repeated hold-out) with 3 inner folds per training part, plus the nested held-out
estimate. Prints seconds, the number of Ca-MCF selections and ML-kNN classifications done
(progress units), the best point, its inner score beside the defaults' (when the defaults are a
grid point), and micro-F1 and feature counts on the held-out rows, tuned vs defaults.

    .venv/bin/python benchmarks/bench_tune.py [--sets flags,chd49] [--delta1 0.01,0.05,0.1]
        [--k1 0.3,0.7,1.0] [--n-jobs 1]
"""

from __future__ import annotations

import argparse
import sys
import time

from camcf.algorithm_params import ALGORITHM_PARAMS, by_name
from camcf.catalog import available, data_dir, load_shared
from camcf.tuning import tune

_ALGO = by_name(ALGORITHM_PARAMS)


def _floats(text: str) -> list[float]:
    return [float(v) for v in text.split(",") if v.strip()]


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sets", default="flags", help="comma-separated shared data set names")
    ap.add_argument("--delta1", type=_floats, default=[0.01, 0.05, 0.1])
    ap.add_argument("--k1", type=_floats, default=[0.3, 0.7, 1.0])
    ap.add_argument("--n-jobs", type=int, default=1)
    args = ap.parse_args(argv)
    have = available()
    names = [s for s in args.sets.split(",") if s]
    missing = [s for s in names if s not in have]
    if missing:
        print(f"not found in {data_dir()}: {missing} (set CAMCF_DATA_DIR)", file=sys.stderr)
        names = [s for s in names if s in have]
    grid = {"delta1": args.delta1, "k1": args.k1}
    defaults = {k: _ALGO[k].default for k in grid}
    for name in names:
        ds = load_shared(name)
        units = [0]
        t0 = time.perf_counter()
        r = tune(ds.X, ds.Y, grid, metric="micro_f1", held_out=True, n_jobs=args.n_jobs,
                 progress=lambda d, t, m, _u=units: _u.__setitem__(0, t))
        secs = time.perf_counter() - t0
        g = r.grid
        at_default = g[(g["delta1"] == defaults["delta1"]) & (g["k1"] == defaults["k1"])]
        best = g.loc[r.best_index]
        s = r.held_out_summary().set_index(["set", "metric"])
        print(f"{name}: {ds.X.shape[0]} × {ds.X.shape[1]}, {ds.Y.shape[1]} labels; "
              f"{len(g)} points × {r.settings['n_splits']} inner splits; {secs:.1f} s "
              f"({units[0]} progress units)")
        print(f"  best {r.best}: inner 1 − micro-F1 {best['score']:.4f} ± {best['sd']:.4f}, "
              f"{best['n_features']:.1f} features")
        if not at_default.empty:
            d = at_default.iloc[0]
            print(f"  defaults {defaults}: inner 1 − micro-F1 {d['score']:.4f} ± {d['sd']:.4f}, "
                  f"{d['n_features']:.1f} features")
        for which in ("tuned", "defaults"):
            row = s.loc[(which, "micro_f1")]
            print(f"  held-out micro-F1 {which}: {row['mean']:.4f} ± {row['sd']:.4f}, "
                  f"{row['n_features']:.1f} features, empty on {int(row['n_empty'])} split(s)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
