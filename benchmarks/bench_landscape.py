"""Time the threshold landscape (camcf.landscape) on a shared data set: a δ1 × k1 and a δ2 × k2
grid of 5 × 5 by default, the other parameters at their defaults. Prints figures, asserts none.

    .venv/bin/python benchmarks/bench_landscape.py [--dataset yeast] [--size 5] [--n-jobs 1]
"""

from __future__ import annotations

import argparse
import os
import time

from camcf import catalog
from camcf.landscape import PRESETS, default_values, landscape


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--dataset", default="yeast")
    ap.add_argument("--size", type=int, default=5)
    ap.add_argument("--n-jobs", type=int, default=1)
    ap.add_argument("--repeats", type=int, default=1)
    args = ap.parse_args()
    ds = catalog.load_shared(args.dataset, catalog.data_dir())
    print(f"{args.dataset}: {ds.n_samples} × {ds.n_features}, {ds.n_labels} labels; "
          f"{os.cpu_count()} cores, load average {os.getloadavg()[0]:.1f}")
    for x, y in PRESETS:
        xs, ys = default_values(x, args.size), default_values(y, args.size)
        for r in range(args.repeats):
            t = time.perf_counter()
            L = landscape(ds, x, xs, y, ys, n_jobs=args.n_jobs)
            s = time.perf_counter() - t
            print(f"{x} × {y} ({len(xs)} × {len(ys)}): {s:.2f} s wall, {L.full_runs} full runs, "
                  f"{L.phase4_only} Phase-4-only cells, {L.k1_reused} k1-reused cells; counts {L.counts.min()}–{L.counts.max()}"
                  f" (repeat {r + 1})")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
