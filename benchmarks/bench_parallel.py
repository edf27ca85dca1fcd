"""Parallel targets: n_jobs 1 vs 2 (joblib) and a two-worker Dask LocalCluster vs serial.

On one shared data set (Enron by default; ``--data delicious_like[:SCALE]`` for the synthetic
data of delicious's shape from :func:`shapes.delicious_like`) at the heavier setting (0.01,
0.02, 1.0, 0.3) or ``--setting authors``, trace "decisions": wall seconds of ``camcf.run``
serial, with ``n_jobs=2`` (loky processes) and inside :func:`camcf.parallel.dask_cluster` on
a ``LocalCluster(n_workers=2, processes=True, threads_per_worker=1)`` (with ``--joblib-dask``
also inside ``joblib.parallel_backend("dask")``, joblib's own route) (pool and cluster started
and warmed by two runs before timing), each the best of ``--repeats``, with the load average
before it, the CPU seconds of this process and of each worker, the run's stages
(``Result.stats["stages"]``: preparation, tables, targets) and its CPU seconds
(``Result.stats["cpu"]``: preparation, each table task, each targets task), from which it
estimates the run on two free cores (the critical path: preparation + the table tasks, then the
target tasks, each placed in order on the first free core, with this process's own work
meanwhile spread over the two cores; transfers waited for are left out), and where the
parallel run's wall went (``Result.stats["timeline"]``: each worker's tasks, its idle time
before, between and after them, the way back of the results). Every parallel
output is checked byte-identical (the JSON with its record) to the serial one. The wall speed-up needs two free cores: read it beside the load. With ``--old DIR``
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

import numpy as np
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


def _load() -> str:
    return f"{os.getloadavg()[0]:.1f}"


def _children_cpu() -> dict[int, float]:
    """CPU seconds (user + system) of every child process of this one (the loky workers), by
    pid; empty without psutil (a dependency of dask.distributed)."""
    try:
        import psutil
    except ImportError:
        return {}
    out = {}
    for p in psutil.Process().children(recursive=True):
        try:
            t = p.cpu_times()
        except psutil.Error:
            continue
        out[p.pid] = t.user + t.system
    return out


def _measure(label, fn, repeats, worker_cpu=None):
    """Best wall of ``repeats`` runs of ``fn`` (a Result), with the load before, this process's
    CPU seconds and each worker's (``worker_cpu()`` → {worker: seconds}) per run, and the run's
    stages (``Result.stats["stages"]``) of the best run; the critical-path estimate is the
    median over the runs (CPU seconds swell under load too)."""
    best = None
    paths = []
    for _ in range(repeats):
        load = _load()
        w0 = worker_cpu() if worker_cpu else {}
        c0, t0 = time.process_time(), time.perf_counter()
        res = fn()
        wall, cpu = time.perf_counter() - t0, time.process_time() - c0
        if "cpu" in res.stats:
            paths.append(_critical_path(res.stats["cpu"]))
        w1 = worker_cpu() if worker_cpu else {}
        workers = {k: w1[k] - w0.get(k, 0.0) for k in w1}
        if best is None or wall < best["wall"]:
            best = {"wall": wall, "cpu": cpu, "load": load, "res": res,
                    "workers": {k: v for k, v in workers.items() if v > 0.005}}
    st = best["res"].stats.get("stages", {})
    stages = ", ".join(f"{k} {v:.2f}" for k, v in st.items())
    workers = " + ".join(f"{v:.2f}" for v in sorted(best["workers"].values(), reverse=True))
    print(f"  {label:<26} wall {best['wall']:6.2f} s  (load {best['load']} before)  "
          f"CPU here {best['cpu']:.2f} s" + (f", workers {workers} s" if workers else "")
          + (f"\n  {'':<26} stages (wall s): {stages}" if stages else ""), flush=True)
    timeline = best["res"].stats.get("timeline")
    if timeline:
        for line in _timeline(timeline, best["res"].stats["stages"]):
            print(f"  {'':<26} {line}", flush=True)
    cpu = best["res"].stats.get("cpu")
    if cpu:
        best["path"] = float(np.median(paths))
        beside = (f" ({cpu['prepare_beside']:.2f} on a second thread)"
                  if "prepare_beside" in cpu else "")
        print(f"  {'':<26} CPU s: prepare {cpu['prepare']:.2f}{beside}, table task(s) "
              f"{' + '.join(f'{c:.2f}' for c in cpu['tables'])}, {len(cpu['targets'])} target "
              f"task(s) {sum(cpu['targets']):.2f} → critical path on 2 free cores "
              f"≈ {best['path']:.2f} s (median of {len(paths)} runs; "
              f"{', '.join(f'{p:.2f}' for p in paths)})", flush=True)
    return best


def _timeline(spans: list[dict], stages: dict) -> list[str]:
    """Where a parallel run's wall went (``Result.stats["timeline"]``, seconds from the run's
    start): each worker's tasks (start–end), then the idle time of the workers (before their
    first task, between tasks, after their last until the run's end) and the wait of this
    process for results (a task's end to its receipt)."""
    end = sum(stages.values())
    by_worker: dict = {}
    for sp in sorted(spans, key=lambda sp: sp["start"]):
        by_worker.setdefault(sp["worker"], []).append(sp)
    lines, before, between, after = [], [], [], []
    for k, (_, tasks) in enumerate(sorted(by_worker.items())):
        lines.append(f"worker {k + 1}: " + ", ".join(
            f"{sp['task'].split(' + ')[0].split()[0]} {sp['start']:.3f}-{sp['end']:.3f}"
            for sp in tasks))
        before.append(tasks[0]["start"])
        between.append(sum(b["start"] - a["end"] for a, b in zip(tasks[:-1], tasks[1:], strict=True)))
        after.append(end - tasks[-1]["end"])
    waits = [sp["received"] - sp["end"] for sp in spans]
    lines.append(f"idle per worker (s): before the first task {_few(before)}, between tasks "
                 f"{_few(between)}, after the last {_few(after)}; a result's way back "
                 f"{min(waits):.3f}-{max(waits):.3f} s; run ends {end:.3f} s")
    return lines


def _few(values: list[float]) -> str:
    return " / ".join(f"{v:.3f}" for v in values)


def _critical_path(cpu: dict, cores: int = 2) -> float:
    """Seconds of a run on ``cores`` free cores from its CPU seconds (``Result.stats["cpu"]``).

    Serial: all of it. Parallel: the preparation (the longer of its two threads': this
    process's main thread and ``prepare_beside``, the work done on a second thread), then
    the table tasks placed in their order on the first free core (the longest core's sum),
    then the targets: the longer of the target tasks so placed and all the work of that stage
    spread over the cores — the tasks plus what this process does meanwhile (receiving and
    assembling the results). Transfers waited for are left out."""
    if len(cpu["tables"]) <= 1 and len(cpu["targets"]) <= 1:
        return cpu["here"]
    beside = cpu.get("prepare_beside", 0.0)

    def placed(tasks):  # the busiest core's seconds, each task on the first free core
        free = [0.0] * cores
        for c in tasks:
            k = free.index(min(free))
            free[k] += c
        return max(free)

    here = cpu["here"] - cpu["prepare"]
    return (max(cpu["prepare"] - beside, beside) + placed(cpu["tables"])
            + max(placed(cpu["targets"]), (sum(cpu["targets"]) + here) / cores))


def parallel(name: str, setting: str, repeats: int, joblib_dask: bool = False) -> None:
    import joblib

    import camcf

    X, Y = _data(name)
    params = SETTINGS[setting]
    warnings.simplefilter("ignore")

    def go(**kw):
        return camcf.run(X, Y, **params, trace="decisions", **kw)

    print(f"{name} {setting}: {X.shape[0]} × {X.shape[1]}, {Y.shape[1]} labels; load average "
          f"{_load()} on {os.cpu_count()} cores at start; best of {repeats}; 'CPU here' counts "
          f"this process's threads, 'workers' each worker process", flush=True)
    s = _measure("serial (n_jobs=1)", go, repeats)
    ref = s["res"].to_json(include_trace=True)
    for _ in range(2):  # start the worker pool; each worker imports what the work needs (pandas
        go(n_jobs=2)    # for the engine's hash-based distinct counts, on its first such target)
    p = _measure("n_jobs=2 (loky processes)", lambda: go(n_jobs=2), repeats, _children_cpu)
    same = p["res"].to_json(include_trace=True) == ref
    print(f"{name} {setting}: serial {s['wall']:.2f} s, n_jobs=2 {p['wall']:.2f} s "
          f"(×{s['wall'] / p['wall']:.2f}), identical: {same}; load {_load()} after"
          + (f"; from CPU seconds: serial {s['path']:.2f} s, n_jobs=2 ≈ {p['path']:.2f} s on two "
             f"free cores (×{s['path'] / p['path']:.2f})" if "path" in s else ""), flush=True)
    try:
        from distributed import Client, LocalCluster
    except ImportError:
        print("dask.distributed not installed: no cluster figure")
        return
    from camcf.parallel import dask_cluster

    with LocalCluster(n_workers=2, processes=True, threads_per_worker=1, host="127.0.0.1",
                      dashboard_address=None) as cluster, Client(cluster) as client:

        def cluster_cpu():
            return client.run(time.process_time)

        routes = [("LocalCluster(2 workers)", lambda: dask_cluster(client))]
        if joblib_dask:
            routes.append(("joblib dask backend", lambda: joblib.parallel_backend("dask")))
        for label, context in routes:
            with context():
                for _ in range(2):
                    go(n_jobs=-1)  # warm the workers (imports)
                d = _measure(label, lambda: go(n_jobs=-1), repeats, cluster_cpu)
            same = d["res"].to_json(include_trace=True) == ref
            print(f"{name} {setting}: {label} {d['wall']:.2f} s "
                  f"(×{s['wall'] / d['wall']:.2f} vs serial), identical: {same}; load {_load()} "
                  f"after" + (f"; from CPU seconds ≈ {d['path']:.2f} s on two free cores "
                              f"(×{s['path'] / d['path']:.2f})" if "path" in s else ""),
                  flush=True)


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
    ap.add_argument("--joblib-dask", action="store_true",
                    help="also time the cluster through joblib's Dask backend (joblib's own "
                         "scattering) beside camcf.parallel.dask_cluster's direct submission")
    ap.add_argument("--_one", nargs=2, help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args._one:
        print(json.dumps(one(*args._one, args.repeats, args.trace)))
        return 0
    if args.versus_old:
        versus_old(args.versus_old, args.repeats, args.trace, args.rounds)
        return 0
    parallel(args.data, args.setting, args.repeats, args.joblib_dask)
    return 0


if __name__ == "__main__":
    sys.exit(main())
