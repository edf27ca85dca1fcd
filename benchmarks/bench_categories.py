"""Many label categories: ``camcf.run`` on 2,000 × 200 with 500 binary labels (1,000 categories).

The synthetic point of ``bench_scale`` (``labels-1000``: 3-code features, correlated binary
labels, seeded) at the authors' setting, at trace levels "decisions" and "full". Each
(code, level) runs in a fresh subprocess (imports and a small warm-up run before the clock
starts); with ``--old DIR`` (a checkout of another commit) the old and the new code run
interleaved, repeat by repeat, so that both see the same machine load. Printed: best wall and
best CPU seconds of the run, and the ratio old / new.

    .venv/bin/python benchmarks/bench_categories.py --old /tmp/perf-old [--repeats 3]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
SHAPE = (2000, 200, 500)  # rows, features, binary labels


def child(level: str) -> dict:
    """One run here (in the subprocess)."""
    import time
    import warnings

    sys.path.insert(0, str(HERE))
    from bench_scale import synthetic
    from bench_settings import SETTINGS

    import camcf

    X, Y = synthetic(*SHAPE)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        camcf.run(X[:300], Y[:300, :20], trace="counters")  # imports, caches
        t0, c0 = time.perf_counter(), time.process_time()
        res = camcf.run(X, Y, trace=level, **SETTINGS["authors"])
        wall, cpu = time.perf_counter() - t0, time.process_time() - c0
    return {"wall": wall, "cpu": cpu, "tests": res.n_tests,
            "selected": len(res.selected_indices)}


def measure(code: str | None, level: str) -> dict:
    env = dict(os.environ)
    if code:
        env["PYTHONPATH"] = code + os.pathsep + env.get("PYTHONPATH", "")
    env.setdefault("OMP_NUM_THREADS", "1")
    out = subprocess.run([sys.executable, __file__, "--child", level], env=env,
                         capture_output=True, text=True, check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--old", help="a checkout of the code to compare with")
    ap.add_argument("--levels", default="decisions,full")
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--child", help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.child:
        print(json.dumps(child(args.child)))
        return 0
    codes = {"new": None} if not args.old else {"old": args.old, "new": None}
    n, m, q = SHAPE
    print(f"{n} × {m}, {q} binary labels ({2 * q} categories), authors' setting; best of "
          f"{args.repeats} (OMP_NUM_THREADS={os.environ.get('OMP_NUM_THREADS', '1')})")
    for level in args.levels.split(","):
        best: dict[str, dict] = {}
        for _ in range(args.repeats):
            for name, code in codes.items():  # interleaved: the same load for both
                r = measure(code, level)
                b = best.setdefault(name, dict(r))
                b["wall"], b["cpu"] = min(b["wall"], r["wall"]), min(b["cpu"], r["cpu"])
        for name, r in best.items():
            print(f"  {level:<10} {name:<4} wall {r['wall']:6.2f} s  cpu {r['cpu']:6.2f} s  "
                  f"{r['tests']:,} tests, {r['selected']} selected")
        if "old" in best:
            o, w = best["old"], best["new"]
            print(f"  {level:<10} old/new wall ×{o['wall'] / w['wall']:.2f}  "
                  f"cpu ×{o['cpu'] / w['cpu']:.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
