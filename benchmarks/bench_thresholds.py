"""Thresholds from a significance level: features selected at the paper's defaults against
``delta1="auto", delta2="auto"`` (α = 0.01 by default), with seconds.

Data: every shared data set found, and seeded synthetic data of three public files' shapes
(generated here, nothing downloaded):

* ``delicious-shape`` — 16,000 × 500 sparse binary features (≈ 8 % ones), 1,000 sparse binary
  labels (≈ 2 % positive each; each label a noisy function of three of the first 100 features,
  every fifth one a noisy copy of another label);
* ``continuous-shape`` — 5,000 × 460 continuous features (Gaussian), 26 labels (each a
  thresholded noisy sum of five of the first 60 features), discretised with the defaults
  (3 equal-width bins);
* ``corel16k-shape`` — 13,766 × 500 sparse binary features, 153 labels (≈ 2 % positive; drivers
  among the first 100 features).

The other features are noise, so the synthetic rows also say how many of the selected features
are informative ("inf.": selected features among the drivers).

* ``delicious-like`` — :func:`shapes.delicious_like` (16,000 × 500 binary, 1,000 Zipf-like
  labels, each made more likely by two parent features; no "inf." column: its parents are
  anywhere among the 500).

Each (data, setting) runs in its own subprocess with ``trace="counters"`` (the decisions, not
the record) and is stopped after ``--timeout`` seconds (reported as such).

    CAMCF_DATA_DIR=/work/shared/datasets .venv/bin/python benchmarks/bench_thresholds.py \\
        [--sets flags,yeast,delicious-shape] [--significance 0.01] [--timeout 1800]

With ``--cli DIR`` each run is instead the command a user types, printed before its row:
``.venv/bin/camcf select DATA --labels … [--delta1 auto --delta2 auto --significance A]
--trace-level counters -q -o OUT`` (a synthetic set is first written to ``DIR`` as a CSV whose
last columns are the labels; seconds are the command's wall time, reading the file included).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
SYNTHETIC = ("delicious-shape", "continuous-shape", "corel16k-shape", "delicious-like")
DEFAULTS = dict(delta1=0.05, delta2=0.1, k1=0.7, k2=1.0)


INFORMATIVE = {"delicious-shape": 100, "corel16k-shape": 100, "continuous-shape": 60}


def _sparse_labels(rng, F, q: int, rate: float, informative: int):
    """q labels, each a noisy function of three of the first ``informative`` binary features
    (positive ≈ ``rate``); every fifth label a noisy copy of the one before (label–label
    dependence)."""
    import numpy as np

    n, m = F.shape
    Y = np.zeros((n, q), dtype=np.uint8)
    for j in range(q):
        if j % 5 == 4:
            Y[:, j] = Y[:, j - 1] ^ (rng.random(n) < rate / 4)
            continue
        cols = rng.choice(informative, size=3, replace=False)
        score = F[:, cols].sum(axis=1) + rng.normal(0, 0.7, n)
        Y[:, j] = score > np.quantile(score, 1 - rate)
    return Y


def synthetic(name: str, seed: int = 0):
    import numpy as np

    rng = np.random.default_rng(seed)
    if name == "delicious-shape":
        F = (rng.random((16_000, 500)) < 0.08).astype(np.uint8)
        return F, _sparse_labels(rng, F, 1000, 0.02, INFORMATIVE[name])
    if name == "corel16k-shape":
        F = (rng.random((13_766, 500)) < 0.08).astype(np.uint8)
        return F, _sparse_labels(rng, F, 153, 0.02, INFORMATIVE[name])
    if name == "delicious-like":
        sys.path.insert(0, str(HERE))
        from shapes import delicious_like

        return delicious_like(1.0, seed=seed)
    if name == "continuous-shape":
        n, m, q = 5000, 460, 26
        F = rng.normal(size=(n, m))
        Y = np.zeros((n, q), dtype=np.uint8)
        for j in range(q):
            cols = rng.choice(INFORMATIVE[name], size=5, replace=False)
            score = F[:, cols].sum(axis=1) + rng.normal(0, 1.5, n)
            Y[:, j] = score > np.quantile(score, 1 - rng.uniform(0.05, 0.3))
        return F, Y
    raise ValueError(name)


def one(name: str, setting: str, significance: float) -> dict:
    """One run here (the subprocess)."""
    import resource
    import warnings

    import camcf
    from camcf.discretize import discretize

    if name in SYNTHETIC:
        F, Y = synthetic(name)
    else:
        from camcf.catalog import load_shared

        ds = load_shared(name)
        F, Y = ds.X, ds.Y
    X, _ = discretize(F)
    params = dict(DEFAULTS)
    if setting == "auto":
        params.update(delta1="auto", delta2="auto", significance=significance)
    t0 = time.perf_counter()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        res = camcf.run(X, Y, trace="counters", **params)
    secs = time.perf_counter() - t0
    n_pc = [len(t.pc) for t in res.targets if not t.skipped and t.mirror_of is None]
    n_cand = [len(t.candidates) for t in res.targets if not t.skipped and t.mirror_of is None]
    inf = INFORMATIVE.get(name)
    return {"n": X.shape[0], "m": X.shape[1], "labels": Y.shape[1],
            "informative": None if inf is None else int((res.selected_indices < inf).sum()),
            "categories": len(res.categories), "delta1": res.params["delta1"],
            "delta2": res.params["delta2"], "selected": int(res.selected_indices.size),
            "seconds": secs, "tests": res.n_tests,
            "mean_candidates": sum(n_cand) / max(len(n_cand), 1),
            "mean_pc": sum(n_pc) / max(len(n_pc), 1),
            "peak_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}


def data_file(name: str, folder: Path) -> tuple[str, list[str]]:
    """(path, label flags) of data set ``name`` as a file ``camcf select`` reads: a shared
    set's own file (``--labels`` or ``--xml`` as the catalog says), a synthetic set written
    once to ``folder`` as CSV (labels last)."""
    from camcf.catalog import CATALOG, data_dir

    if name not in SYNTHETIC:
        e = CATALOG[name]
        flags = (["--labels", e.labels] if e.labels else []) + (
            ["--xml", str(data_dir() / e.xml)] if e.xml else [])
        return str(data_dir() / e.path), flags
    import numpy as np

    path = folder / f"{name}.csv"
    F, Y = synthetic(name)
    if not path.exists():
        folder.mkdir(parents=True, exist_ok=True)
        head = [f"x{j}" for j in range(F.shape[1])] + [f"y{j}" for j in range(Y.shape[1])]
        fmt = "%d" if F.dtype.kind in "iub" else "%.6g"
        np.savetxt(path, np.column_stack([F, Y]), delimiter=",", fmt=fmt,
                   header=",".join(head), comments="")
    return str(path), ["--labels", f"last:{Y.shape[1]}"]


def cli_row(name: str, setting: str, significance: float, folder: Path, timeout: float):
    """Run one ``camcf select`` command; returns (command, result dict or None, seconds)."""
    import shlex

    folder.mkdir(parents=True, exist_ok=True)
    path, labels = data_file(name, folder)
    out = folder / f"{name}-{setting}.json"
    camcf = str(Path(sys.executable).with_name("camcf"))
    cmd = [camcf, "select", path, *labels]
    if setting == "auto":
        cmd += ["--delta1", "auto", "--delta2", "auto", "--significance", f"{significance:g}"]
    cmd += ["--trace-level", "counters", "-q", "-o", str(out)]
    shown = " ".join(shlex.quote(c) for c in [".venv/bin/camcf", *cmd[1:]])
    t0 = time.perf_counter()
    try:
        subprocess.run(cmd, capture_output=True, text=True, check=True, timeout=timeout)
    except (subprocess.TimeoutExpired, subprocess.CalledProcessError):
        return shown, None, time.perf_counter() - t0
    secs = time.perf_counter() - t0
    return shown, json.loads(out.read_text()), secs


def main_cli(names, args) -> int:
    folder = Path(args.cli)
    print(f"{'data':<17} {'setting':<8} {'δ1':>9} {'δ2':>9} {'selected':>8} {'seconds':>8}")
    for name in names:
        for setting in ("defaults", "auto"):
            shown, r, secs = cli_row(name, setting, args.significance, folder, args.timeout)
            print(f"$ {shown}", flush=True)
            if r is None:
                print(f"{name:<17} {setting:<8} failed or stopped after {secs:.0f} s",
                      flush=True)
                continue
            p = r.get("params", {})
            sel = r.get("selected_indices", r.get("selected", []))
            print(f"{name:<17} {setting:<8} {p.get('delta1', float('nan')):9.5f} "
                  f"{p.get('delta2', float('nan')):9.5f} {len(sel):>8} {secs:8.1f}",
                  flush=True)
    return 0


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--sets", help="comma-separated names (default: every shared set, then the "
                                   "synthetic shapes)")
    ap.add_argument("--significance", type=float, default=0.01)
    ap.add_argument("--timeout", type=float, default=1800.0)
    ap.add_argument("--child", nargs=3, help=argparse.SUPPRESS)
    ap.add_argument("--cli", metavar="DIR", help="run the camcf select commands instead "
                    "(synthetic sets are written to DIR as CSV)")
    args = ap.parse_args(argv)
    if args.child:
        name, setting, alpha = args.child
        print(json.dumps(one(name, setting, float(alpha))))
        return 0
    if args.sets:
        names = args.sets.split(",")
    else:
        sys.path.insert(0, str(HERE.parent))
        from camcf.catalog import available

        names = [n for n in available() if n not in ("yeast-split", "flags-mat")]
        names += list(SYNTHETIC)
    if args.cli:
        sys.path.insert(0, str(HERE.parent))
        return main_cli(names, args)
    print(f"{'data':<17} {'n × m, labels':<20} {'setting':<8} {'δ1':>9} {'δ2':>9} "
          f"{'selected':>8} {'inf.':>5} {'cand.':>6} {'PC':>5} {'seconds':>8} {'peak MB':>8}")
    for name in names:
        for setting in ("defaults", "auto"):
            cmd = [sys.executable, __file__, "--child", name, setting, str(args.significance)]
            try:
                out = subprocess.run(cmd, capture_output=True, text=True, check=True,
                                     timeout=args.timeout, env=dict(os.environ))
            except subprocess.TimeoutExpired:
                print(f"{name:<17} {'':<20} {setting:<8} stopped after {args.timeout:.0f} s",
                      flush=True)
                continue
            except subprocess.CalledProcessError as e:
                print(f"{name:<17} {setting:<8} failed: {e.stderr.strip()[-300:]}", flush=True)
                continue
            r = json.loads(out.stdout.strip().splitlines()[-1])
            shape = f"{r['n']} × {r['m']}, {r['labels']}"
            print(f"{name:<17} {shape:<20} {setting:<8} {r['delta1']:9.5f} {r['delta2']:9.5f} "
                  f"{r['selected']:>8} {'-' if r['informative'] is None else r['informative']:>5} "
                  f"{r['mean_candidates']:6.1f} {r['mean_pc']:5.1f} "
                  f"{r['seconds']:8.1f} {r['peak_mb']:8.0f}", flush=True)
    print(f"α = {args.significance}; defaults δ1 0.05, δ2 0.1, k1 0.7, k2 1.0 (auto: same k1, "
          f"k2); cand. and PC: mean per computed target")
    return 0


if __name__ == "__main__":
    sys.exit(main())
