"""Parallel targets: n_jobs 1 vs 2 (joblib) and a two-worker Dask LocalCluster vs serial.

On one shared data set (Enron by default; ``--data delicious_like[:SCALE]`` for the synthetic
data of delicious's shape from :func:`shapes.delicious_like`) at the heavier setting (0.01, 0.02, 1.0, 0.3), trace
"decisions": wall seconds of the serial run, of ``n_jobs=2`` (loky processes; the pool is
started once before timing) and of ``joblib.parallel_backend("dask")`` with a
``LocalCluster(n_workers=2, processes=True, threads_per_worker=1)`` (cluster started before
timing). Every parallel output is checked byte-identical to the serial one. With ``--old DIR``
it also times the engine of another checkout (serial) on every shared data set at both
settings, side by side with this one, each in a fresh subprocess, old and new interleaved
``--rounds`` times (trace ``--trace``, "decisions" by default): wall and CPU seconds per run,
their ratio old / new, and the sums over every run.

    CAMCF_DATA_DIR=/work/shared/datasets .venv/bin/python benchmarks/bench_parallel.py
    ... benchmarks/bench_parallel.py --data delicious_like --setting authors --repeats 1
    ... benchmarks/bench_parallel.py --versus-old /tmp/engine-old --repeats 3
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
import warnings

from bench_settings import SETTINGS  # the one declaration, beside this script


def _data(name):
    if name.startswith("delicious_like"):  # delicious_like or delicious_like:SCALE
        from shapes import delicious_like

        scale = float(name.split(":")[1]) if ":" in name else 1.0
        return delicious_like(scale, 0)
    from camcf.catalog import load_shared
    from camcf.discretize import discretize

    ds = load_shared(name)
    X, _ = discretize(ds.X)
    return X, ds.Y


def _best(fn, repeats):
    best = float("inf")
    out = None
    for _ in range(repeats):
        t0 = time.perf_counter()
        out = fn()
        best = min(best, time.perf_counter() - t0)
    return best, out


def parallel(name: str, setting: str, repeats: int) -> None:
    import joblib

    import camcf

    X, Y = _data(name)
    params = SETTINGS[setting]
    warnings.simplefilter("ignore")

    def go(**kw):
        return camcf.run(X, Y, **params, trace="decisions", **kw).to_json()

    print(f"{name} {setting}: load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores "
          f"before timing", flush=True)
    t1, ref = _best(go, repeats)
    go(n_jobs=2)  # start the worker pool
    t2, out2 = _best(lambda: go(n_jobs=2), repeats)
    print(f"{name} {setting}: serial {t1:.2f} s, n_jobs=2 {t2:.2f} s "
          f"(×{t1 / t2:.2f}), identical: {out2 == ref}", flush=True)
    try:
        from distributed import Client, LocalCluster
    except ImportError:
        print("dask.distributed not installed: no cluster figure")
        return
    with LocalCluster(n_workers=2, processes=True, threads_per_worker=1, host="127.0.0.1",
                      dashboard_address=None) as cluster, Client(cluster):
        with joblib.parallel_backend("dask"):
            go(n_jobs=-1)  # warm the workers (imports)
            td, outd = _best(lambda: go(n_jobs=-1), repeats)
    print(f"{name} {setting}: LocalCluster(2 workers) {td:.2f} s (×{t1 / td:.2f} vs serial), "
          f"identical: {outd == ref}; load average {os.getloadavg()[0]:.1f} after", flush=True)


def one(name: str, setting: str, repeats: int, trace: str = "decisions") -> dict:
    import inspect

    import camcf

    X, Y = _data(name)
    warnings.simplefilter("ignore")
    kw = {}
    if "trace" in inspect.signature(camcf.run).parameters:
        kw["trace"] = trace
    try:  # warm: imports, caches
        camcf.run(X[:100], Y[:100], **SETTINGS[setting], **kw)
    except camcf.CamcfError:  # e.g. constant labels in those rows
        pass
    best = cpu = float("inf")
    res = None
    for _ in range(repeats):
        t0, c0 = time.perf_counter(), time.process_time()
        res = camcf.run(X, Y, **SETTINGS[setting], **kw)
        best = min(best, time.perf_counter() - t0)
        cpu = min(cpu, time.process_time() - c0)
    return {"seconds": best, "cpu": cpu, "selected": [int(i) for i in res.selected_indices]}


def versus_old(old: str, repeats: int, trace: str = "decisions", rounds: int = 2) -> None:
    """Every shared data set × both settings, old and new each in a fresh subprocess, the two
    interleaved ``rounds`` times (best of ``repeats`` runs per process, best over rounds)."""
    from camcf.catalog import available

    print(f"trace={trace}, best of {repeats} × {rounds} interleaved rounds; load average "
          f"{os.getloadavg()[0]:.1f} on {os.cpu_count()} cores at the start", flush=True)
    print(f"{'data set':<12} {'setting':<8} {'old s':>7} {'new s':>7} {'speed-up':>8} "
          f"{'old cpu':>8} {'new cpu':>8} {'cpu ×':>6}  same selection")
    tot = {"old": [0.0, 0.0], "new": [0.0, 0.0]}
    for name in available():
        for setting in SETTINGS:
            r: dict[str, dict] = {}
            for _ in range(rounds):
                for tag, path in (("old", old), ("new", None)):
                    env = dict(os.environ)
                    if path:
                        env["PYTHONPATH"] = path + os.pathsep + env.get("PYTHONPATH", "")
                    out = subprocess.run([sys.executable, __file__, "--_one", name, setting,
                                          "--repeats", str(repeats), "--trace", trace],
                                         capture_output=True, text=True, env=env)
                    got = json.loads(out.stdout.strip().splitlines()[-1])
                    if tag in r:
                        got["seconds"] = min(got["seconds"], r[tag]["seconds"])
                        got["cpu"] = min(got["cpu"], r[tag]["cpu"])
                    r[tag] = got
            o, n = r["old"], r["new"]
            for tag in tot:
                tot[tag][0] += r[tag]["seconds"]
                tot[tag][1] += r[tag]["cpu"]
            print(f"{name:<12} {setting:<8} {o['seconds']:7.3f} {n['seconds']:7.3f} "
                  f"{o['seconds'] / n['seconds']:7.2f}× {o['cpu']:8.3f} {n['cpu']:8.3f} "
                  f"{o['cpu'] / n['cpu']:5.2f}×  {o['selected'] == n['selected']}", flush=True)
    (ow, oc), (nw, nc) = tot["old"], tot["new"]
    print(f"{'sum':<21} {ow:7.3f} {nw:7.3f} {ow / nw:7.2f}× {oc:8.3f} {nc:8.3f} "
          f"{oc / nc:5.2f}×; load average {os.getloadavg()[0]:.1f} at the end", flush=True)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--data", default="enron")
    ap.add_argument("--setting", default="heavier", choices=list(SETTINGS))
    ap.add_argument("--repeats", type=int, default=2)
    ap.add_argument("--versus-old", metavar="DIR")
    ap.add_argument("--trace", default="decisions", help="record level of --versus-old runs")
    ap.add_argument("--rounds", type=int, default=2,
                    help="interleaved old/new rounds of --versus-old (best over the rounds)")
    ap.add_argument("--_one", nargs=2, help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args._one:
        print(json.dumps(one(*args._one, args.repeats, args.trace)))
        return 0
    if args.versus_old:
        versus_old(args.versus_old, args.repeats, args.trace, args.rounds)
        return 0
    parallel(args.data, args.setting, args.repeats)
    return 0


if __name__ == "__main__":
    sys.exit(main())
