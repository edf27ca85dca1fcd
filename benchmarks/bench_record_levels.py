"""The decision record's cost: a run at trace "full" against the same run at "decisions".

Two points: Enron with the heavier setting (δ1 0.01, δ2 0.02, k1 1.0, k2 0.3) and a synthetic
point with 1,000 label categories (2,000 × 200, 500 binary labels; ``bench_scale.synthetic``,
seeded) at the authors' setting. Each (code, point, level) runs in a fresh subprocess, best of
``--repeats``; printed: wall and CPU seconds of ``camcf.run``, peak RSS, rows kept, and the ratio
full / decisions (CPU) per code. With ``--old DIR`` (a checkout of another commit, e.g.
``git worktree add --detach /tmp/engine-41c 41c22b6``) the same points run with that code too,
interleaved with the new code so both see the same machine load.

    CAMCF_DATA_DIR=/work/shared/datasets .venv/bin/python benchmarks/bench_record_levels.py \\
        --old /tmp/engine-41c [--repeats 3] [--points enron,labels-1000]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
POINTS = {"enron": ("enron", "heavier"), "labels-1000": ("synthetic", "authors")}


def point(name: str, level: str) -> dict:
    """Run one point here (in the subprocess)."""
    import resource
    import time
    import warnings

    sys.path.insert(0, str(HERE))
    from bench_settings import SETTINGS

    import camcf

    data, setting = POINTS[name]
    if data == "synthetic":
        from bench_scale import synthetic

        X, Y = synthetic(2000, 200, 500)
    else:
        from camcf.catalog import load_shared
        from camcf.discretize import discretize

        ds = load_shared(data)
        X, _ = discretize(ds.X)
        Y = ds.Y
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        camcf.run(X, Y, trace="counters", **SETTINGS[setting])  # warm caches and imports
        t0, c0 = time.perf_counter(), time.process_time()
        res = camcf.run(X, Y, trace=level, **SETTINGS[setting])
        wall, cpu = time.perf_counter() - t0, time.process_time() - c0
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    return {"wall": wall, "cpu": cpu, "peak_mb": peak, "rows": res.n_rows,
            "sets": len(res.cond_sets), "tests": res.n_tests}


def measure(code: str | None, name: str, level: str) -> dict:
    env = dict(os.environ)
    if code:
        env["PYTHONPATH"] = code + os.pathsep + env.get("PYTHONPATH", "")
    env["OMP_NUM_THREADS"] = env.get("OMP_NUM_THREADS", "1")
    out = subprocess.run([sys.executable, __file__, "--child", name, level], env=env,
                         capture_output=True, text=True, check=True, cwd=code or None)
    return json.loads(out.stdout.strip().splitlines()[-1])


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--old", help="a checkout of the code to compare with")
    ap.add_argument("--points", default=",".join(POINTS))
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--child", nargs=2, help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.child:
        print(json.dumps(point(*args.child)))
        return 0
    codes = [("new", None)] + ([("old", args.old)] if args.old else [])
    print(f"{'point':<12} {'code':<4} {'level':<10} {'wall s':>7} {'cpu s':>7} {'peak MB':>8} "
          f"{'rows':>10} {'sets':>7}")
    for name in args.points.split(","):
        best: dict = {}
        for _ in range(args.repeats):
            for label, code in codes:  # interleaved: old and new see the same load
                for level in ("decisions", "full"):
                    r = measure(code, name, level)
                    key = (label, level)
                    if key not in best or r["cpu"] < best[key]["cpu"]:
                        best[key] = r
        for label, _ in codes:
            for level in ("decisions", "full"):
                r = best[(label, level)]
                print(f"{name:<12} {label:<4} {level:<10} {r['wall']:7.2f} {r['cpu']:7.2f} "
                      f"{r['peak_mb']:8.0f} {r['rows']:>10,} {r['sets']:>7,}")
            ratio = best[(label, "full")]["cpu"] / best[(label, "decisions")]["cpu"]
            print(f"{name:<12} {label:<4} full / decisions (cpu): {ratio:.2f}")
        if args.old:
            for level in ("decisions", "full"):
                r = best[("old", level)]["cpu"] / best[("new", level)]["cpu"]
                print(f"{name:<12} old / new at {level} (cpu): {r:.2f}")
        sys.stdout.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main())
