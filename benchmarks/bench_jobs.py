"""The Evaluation study as a job on data of delicious's shape: its estimate before it starts
against what it then took (seconds, peak memory of the worker), and the remaining-time estimate
along the way against the time that really remained.

    python benchmarks/bench_jobs.py --scale 0.5       # n, m, q × 0.5 (default)
    python benchmarks/bench_jobs.py --scale 1 --repeats 5

Prints the estimate (stages, memory parts), then a line every ``--every`` seconds (done/total,
the remaining time the job shows, and at the end the time that actually remained at each
line), and the worker's peak resident memory (sampled with psutil every 0.2 s, children
included).
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import psutil

sys.path.insert(0, str(Path(__file__).resolve().parent))
from shapes import DELICIOUS_FILE as DELICIOUS  # noqa: E402
from shapes import delicious_topics  # noqa: E402


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--scale", type=float, default=0.5)
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--every", type=float, default=5.0)
    ap.add_argument("--delta1", type=float, default=0.01,
                    help="Ca-MCF's δ1 (the default 0.05 selects nothing on these data)")
    args = ap.parse_args()

    import camcf
    from camcf import studies
    from camcf.discretize import discretize
    from camcf.estimates import format_bytes, format_seconds
    from camcf.jobs import JobRunner

    n, m, q = (max(2, round(v * args.scale)) for v in DELICIOUS)
    X, Y = delicious_topics(n, m, q)
    X = X.astype(float)
    disc = {"discretize": "auto", "bins": 3, "strategy": "uniform"}
    settings = {"protocol": "repeated", "n_repeats": args.repeats, "n_folds": 5, "test_size": 0.3,
                "seed": 0, "k": 10, "neighbours": "strict"}
    print(f"data: {n:,} × {m:,}, {q:,} labels; evaluation with {args.repeats} repeats × 30 % test")

    t0 = time.perf_counter()
    codes, _ = discretize(X)
    params = {"delta1": args.delta1}
    res = camcf.run(codes, Y, **params)
    run_seconds = time.perf_counter() - t0
    print(f"the current run (as the app has it): {run_seconds:.1f} s, "
          f"{res.selected_indices.size} features selected")
    t0 = time.perf_counter()
    times = studies.measure_classification(X, Y, disc=disc, few=max(1, res.selected_indices.size))
    print(f"ML-kNN timed on a sample in {time.perf_counter() - t0:.1f} s: {times}")
    current = tuple(int(i) for i in res.selected_indices)
    est = studies.evaluation_estimate(
        X, Y, settings=settings, run_seconds=run_seconds,
        feature_sets={**{p: tuple(res.selected_after(p).tolist()) for p in ("phase2", "phase3",
                                                                             "phase4")},
                      "camcf": current}, times=times, current=len(current))
    print("estimate:", est.describe())
    for name, size in est.memory_parts:
        print(f"  {name}: {format_bytes(size)}")

    runner = JobRunner(max_jobs=1)
    job = runner.submit(studies.run_evaluation, kwargs={
        "X": X, "Y": Y, "disc": disc, "params": params, "settings": settings,
        "current": current},
        title="evaluation", estimate=est)
    peak, lines, last = 0, [], 0.0
    t0 = time.monotonic()
    while not job.status().finished:
        if job.pid:
            try:
                p = psutil.Process(job.pid)
                rss = p.memory_info().rss + sum(c.memory_info().rss for c in p.children(True))
                peak = max(peak, rss)
            except psutil.NoSuchProcess:
                pass
        now = time.monotonic() - t0
        if now - last >= args.every:
            s = job.status()
            lines.append((now, s.done, s.total, s.remaining))
            last = now
        time.sleep(0.2)
    s = job.status()
    total = time.monotonic() - t0
    print(f"state: {s.state} {s.error or ''}")
    for now, done, tot, rem in lines:
        print(f"  at {now:6.1f} s: {done}/{tot}, shown remaining "
              f"{format_seconds(rem) if rem is not None else 'unknown':>10}, "
              f"actually remained {format_seconds(total - now)}")
    print(f"took {total:.1f} s (estimate {est.seconds:.1f} s); worker peak RSS "
          f"{format_bytes(peak)} (estimate {format_bytes(est.memory_bytes)})")


if __name__ == "__main__":
    main()
