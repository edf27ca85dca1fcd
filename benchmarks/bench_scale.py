"""Engine at scale: seconds and peak RSS on synthetic data as rows, features and labels grow.

Every point runs in a fresh subprocess, so its peak RSS (``ru_maxrss``) is its own: ``data`` is
the peak after the data are generated (3-code features as uint8, correlated binary labels),
``peak`` the peak after the run. Both parameter settings: the authors' (0.05, 0.1, 0.7, 1.0)
and the heavier (0.01, 0.02, 1.0, 0.3). A point that passes --timeout is reported as such.

    .venv/bin/python benchmarks/bench_scale.py                       # the whole grid
    .venv/bin/python benchmarks/bench_scale.py --points rows-1e5,labels-1000 --settings authors
    .venv/bin/python benchmarks/bench_scale.py --old /tmp/engine-old  # the same with old code
    .venv/bin/python benchmarks/bench_scale.py --sparse-arff          # 20,000 × 30,000 sparse ARFF

``--old DIR`` puts DIR (a checkout of another commit) first on PYTHONPATH of the subprocesses,
to measure that engine on the same points.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import time
from pathlib import Path

from bench_settings import SETTINGS  # the one declaration, beside this script

# name -> (n, m, q)
POINTS = {
    "rows-1e5": (100_000, 100, 10),
    "rows-3e5": (300_000, 100, 10),
    "rows-1e6": (1_000_000, 100, 10),
    "features-1e4": (2000, 10_000, 10),
    "features-3e4": (2000, 30_000, 10),
    "labels-400": (2000, 200, 400),
    "labels-1000": (2000, 200, 1000),
}


def synthetic(n: int, m: int, q: int, seed: int = 0):
    """3-code features (uint8) and q correlated binary labels (each driven by two features and
    the previous label, with 10 % noise)."""
    import numpy as np

    rng = np.random.default_rng(seed)
    X = rng.integers(0, 3, size=(n, m), dtype=np.uint8)
    Y = np.empty((n, q), dtype=np.uint8)
    for i in range(q):
        a, b = X[:, (2 * i) % m], X[:, (2 * i + 1) % m]
        y = (a.astype(np.int16) + b) > 2
        if i:
            y ^= (Y[:, i - 1] == 1) & (rng.random(n) < 0.3)
        Y[:, i] = y ^ (rng.random(n) < 0.1)
    return X, Y


def _peak_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def point(name: str, setting: str, n_jobs: int | None) -> dict:
    """Run one point here (called in the subprocess)."""
    import warnings

    import camcf

    n, m, q = POINTS[name]
    X, Y = synthetic(n, m, q)
    data_mb = _peak_mb()
    kw = {}
    import inspect

    if "trace" in inspect.signature(camcf.run).parameters:
        kw["trace"] = "decisions"  # what an evaluation loop or the CLI uses
        if n_jobs is not None:
            kw["n_jobs"] = n_jobs
    t0, c0 = time.perf_counter(), time.process_time()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        res = camcf.run(X, Y, **SETTINGS[setting], **kw)
    return {"point": name, "setting": setting, "seconds": time.perf_counter() - t0,
            "cpu": time.process_time() - c0, "data_mb": data_mb, "peak_mb": _peak_mb(),
            "selected": int(len(res.selected_indices))}


def sparse_arff_point(path: str) -> dict:
    import warnings

    import camcf
    from camcf.io import load

    t0 = time.perf_counter()
    ds = load(path)
    load_s = time.perf_counter() - t0
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        res = camcf.run(ds, **SETTINGS["authors"], trace="decisions")
    return {"point": "sparse-arff", "load_seconds": load_s,
            "seconds": time.perf_counter() - t0, "peak_mb": _peak_mb(),
            "shape": list(ds.X.shape), "sparse": bool(hasattr(ds.X, "nnz")),
            "selected": int(len(res.selected_indices))}


def write_sparse_arff(path: Path, n: int = 20_000, m: int = 30_000, q: int = 6) -> None:
    """A MEKA sparse ARFF, mostly zeros (~760 KB at the default size)."""
    import numpy as np

    rng = np.random.default_rng(1)
    with open(path, "w") as fh:
        fh.write(f"@relation 'sparse: -C -{q}'\n")
        for i in range(q):
            fh.write(f"@attribute y{i} {{0,1}}\n")
        for j in range(m):
            fh.write(f"@attribute x{j} {{0,1}}\n")
        fh.write("@data\n")
        for _ in range(n):
            ys = np.flatnonzero(rng.random(q) < 0.2)
            xs = np.sort(rng.choice(m, size=rng.integers(0, 3), replace=False)) + q
            items = [f"{j} 1" for j in ys] + [f"{j} 1" for j in xs]
            fh.write("{" + ",".join(items) + "}\n")


def _sub(args: list[str], old: str | None, timeout: float) -> dict:
    env = dict(os.environ)
    if old:
        env["PYTHONPATH"] = old + os.pathsep + env.get("PYTHONPATH", "")
    try:
        out = subprocess.run([sys.executable, __file__, *args], capture_output=True, text=True,
                             timeout=timeout, env=env)
    except subprocess.TimeoutExpired:
        return {"timeout": timeout}
    if out.returncode != 0:
        return {"error": out.stderr.strip().splitlines()[-1] if out.stderr.strip() else "?"}
    return json.loads(out.stdout.strip().splitlines()[-1])


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--points", default=",".join(POINTS))
    ap.add_argument("--settings", default="authors,heavier")
    ap.add_argument("--n-jobs", type=int, default=None)
    ap.add_argument("--old", help="a checkout of another commit to measure instead")
    ap.add_argument("--timeout", type=float, default=300.0, help="seconds per point")
    ap.add_argument("--sparse-arff", action="store_true",
                    help="the 20,000 × 30,000 sparse ARFF point only")
    ap.add_argument("--_point", nargs=2, help=argparse.SUPPRESS)
    ap.add_argument("--_arff", help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args._point:
        print(json.dumps(point(*args._point, args.n_jobs)))
        return 0
    if args._arff:
        print(json.dumps(sparse_arff_point(args._arff)))
        return 0
    if args.sparse_arff:
        path = Path("/tmp/camcf-bench-sparse.arff")
        if not path.exists():
            write_sparse_arff(path)
        r = _sub(["--_arff", str(path)], args.old, args.timeout)
        print(f"sparse ARFF {path.stat().st_size / 1024:.0f} KB: {r}")
        return 0
    print(f"{'point':<14} {'n × m, q':<22} {'setting':<8} {'seconds':>8} {'cpu s':>7} "
          f"{'data MB':>8} {'peak MB':>8}")
    for name in args.points.split(","):
        n, m, q = POINTS[name]
        for setting in args.settings.split(","):
            extra = ["--n-jobs", str(args.n_jobs)] if args.n_jobs is not None else []
            r = _sub(["--_point", name, setting, *extra], args.old, args.timeout)
            shape = f"{n:,} × {m:,}, {q}"
            if "seconds" in r:
                print(f"{name:<14} {shape:<22} {setting:<8} {r['seconds']:8.2f} {r['cpu']:7.2f} "
                      f"{r['data_mb']:8.0f} {r['peak_mb']:8.0f}", flush=True)
            else:
                print(f"{name:<14} {shape:<22} {setting:<8} {r}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
