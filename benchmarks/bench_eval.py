"""Evaluation of one 70/30 split on data of delicious's shape: old code against new, same run.

The work ``camcf evaluate DATA --protocol holdout`` does for one split: the fold (discretised on
its training rows), then Ca-MCF's ablation restricted to all features and Ca-MCF's selection —
the selection on the training part (its fit time is reported as ``select``), ML-kNN (k = 10,
Hamming, strict) on both feature sets and the seven metrics (the rest of the time,
``classify all+selected``). The data come from
:func:`shapes.delicious_like` (seeded; 16,000 × 500 binary features, 1,000 sparse labels at
``--scale 1``).

Each measurement runs in a fresh subprocess whose ``PYTHONPATH`` is one code tree — the old one
(a detached worktree of commit 41c22b6 by default, created if missing) or this repository — so
its peak RSS (``ru_maxrss``) is its own. Old and new alternate (``--repeat`` rounds), so both
meet the same machine load. The metrics of old and new are compared (they must agree to 1e-12).

    .venv/bin/python benchmarks/bench_eval.py                  # delicious's shape
    .venv/bin/python benchmarks/bench_eval.py --scale 0.2      # 3,200 rows, 200 labels
    .venv/bin/python benchmarks/bench_eval.py --old /tmp/camcf-old --repeat 2
    .venv/bin/python benchmarks/bench_eval.py --new-only       # this tree only
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

REPO = Path(__file__).resolve().parents[1]
OLD_COMMIT = "41c22b6"


def _peak_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def _cpu() -> float:
    """CPU seconds of this process (user + system, all threads): less sensitive to the load of
    a shared machine than wall time."""
    r = resource.getrusage(resource.RUSAGE_SELF)
    return r.ru_utime + r.ru_stime


def worker(scale: float, seed: int) -> dict:
    """One split's evaluation in this process (whichever camcf is on the path)."""
    import warnings

    import numpy as np

    sys.path.insert(0, str(Path(__file__).resolve().parent))
    from shapes import delicious_like

    import camcf
    import camcf.evaluation as ev

    X, Y = delicious_like(scale, seed)
    out: dict = {"camcf": str(Path(camcf.__file__).parent.parent), "shape": [*X.shape,
                                                                              Y.shape[1]],
                 "peak_mb_data": _peak_mb(), "seconds": {}}
    new_api = hasattr(ev, "make_splitter")
    c0 = _cpu()
    t0 = time.perf_counter()
    if new_api:
        folds = ev.make_folds(X, Y, ev.make_splitter("holdout", test_size=0.3, seed=0))
    else:
        from camcf.evaluation import framework as fw

        folds = fw.make_folds(X, Y, fw.make_splits(X.shape[0], "holdout", seed=0),
                              protocol="holdout")
    t1 = time.perf_counter()
    # what `camcf evaluate` runs: Ca-MCF's ablation restricted to all features and the selection
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        if new_api:
            ran = ev.ablation(folds, None, sets=("all", "camcf"))
            frame, selected = ran.frame, ran.sets[0]["camcf"]
        else:
            picked: list = []
            frame = ev.ablation(folds, None, feature_sets=("all", "camcf"), selections=picked)
            selected = picked[0]["camcf"]
    t2 = time.perf_counter()
    select = float(frame.loc[frame["feature_set"] == "camcf", "seconds"].iloc[0])
    values = {name: dict(zip(part["metric"], part["value"], strict=True))
              for name, part in frame.groupby("feature_set", sort=False)}
    out["seconds"] = {"fold": t1 - t0, "select": select, "classify all+selected": t2 - t1 - select,
                      "total": t2 - t0}
    out["metrics"] = {"all": values["all"], "selected": values["camcf"] if selected else None}
    out["cpu"] = _cpu() - c0
    out["n_selected"] = len(selected)
    out["peak_mb"] = _peak_mb()
    out["numpy"] = np.__version__
    return out


def _run(tree: Path, scale: float, seed: int) -> dict:
    env = {**os.environ, "PYTHONPATH": str(tree)}
    cmd = [sys.executable, str(Path(__file__).resolve()), "--worker", "--scale", str(scale),
           "--seed", str(seed)]
    done = subprocess.run(cmd, env=env, capture_output=True, text=True, cwd="/tmp")
    if done.returncode != 0:
        raise SystemExit(f"worker on {tree} failed:\n{done.stderr[-3000:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def _old_tree(path: Path) -> Path:
    if not (path / "camcf" / "__init__.py").is_file():
        print(f"creating a detached worktree of {OLD_COMMIT} at {path}", file=sys.stderr)
        subprocess.run(["git", "-C", str(REPO), "worktree", "add", "--detach", str(path),
                        OLD_COMMIT], check=True, capture_output=True)
    return path


def _agree(a: dict | None, b: dict | None) -> str:
    if a is None or b is None:
        return "n/a (empty set)" if a is None and b is None else "DIFFER (one is empty)"
    worst = max(abs(a[k] - b[k]) for k in a)
    return f"equal (max |diff| {worst:.1e})" if worst <= 1e-12 else f"DIFFER ({worst:.3g})"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--scale", type=float, default=1.0)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--old", type=Path, default=Path(f"/tmp/camcf-{OLD_COMMIT}"),
                    help=f"a checkout of the old code (default: a worktree of {OLD_COMMIT})")
    ap.add_argument("--repeat", type=int, default=1, help="rounds of old + new")
    ap.add_argument("--new-only", action="store_true")
    ap.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.worker:
        print(json.dumps(worker(args.scale, args.seed)))
        return
    trees = {"new": REPO} if args.new_only else {"old": _old_tree(args.old), "new": REPO}
    runs: dict[str, list[dict]] = {name: [] for name in trees}
    for _ in range(args.repeat):
        for name, tree in trees.items():
            runs[name].append(_run(tree, args.scale, args.seed))
    first = runs["new"][0]
    print(f"one 70/30 split, data {first['shape'][0]} × {first['shape'][1]}, "
          f"{first['shape'][2]} labels (delicious_like scale {args.scale}, seed {args.seed}); "
          f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")
    phases = list(first["seconds"])
    print("seconds (wall) per phase; CPU s: the whole split's CPU time (all threads)")
    print(f"{'code':<5}{'':>3}" + "".join(f"{p:>24}" for p in phases)
          + f"{'CPU s':>9}{'peak MB':>10}{'data MB':>9}{'selected':>10}")
    for name, rs in runs.items():
        for r in rs:
            print(f"{name:<8}" + "".join(f"{r['seconds'][p]:>24.2f}" for p in phases)
                  + f"{r['cpu']:>9.1f}{r['peak_mb']:>10.0f}{r['peak_mb_data']:>9.0f}{r['n_selected']:>10}")
    if "old" in runs:
        def best(name: str, phase: str) -> float:
            return min(r["seconds"][phase] for r in runs[name])

        print("speed-up (best old / best new): " + ", ".join(
            f"{p} {best('old', p) / max(best('new', p), 1e-9):.1f}×" for p in phases)
            + f"; CPU time {min(r['cpu'] for r in runs['old']) / min(r['cpu'] for r in runs['new']):.1f}×")
        old, new = runs["old"][0], runs["new"][0]
        print("metrics old vs new: " + "; ".join(
            f"{s}: {_agree(old['metrics'][s], new['metrics'][s])}" for s in ("all",
                                                                               "selected")))


if __name__ == "__main__":
    main()
