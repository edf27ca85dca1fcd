"""The paper's defaults against thresholds from a significance level against a tuned point, each
judged on held-out rows it never saw (issue 14's table).

For every shared data set (or ``--sets``): the rows are cut by a seeded repeated hold-out
(``--repeats`` × 70/30, seed 0). On each split's training rows only,

* ``defaults`` — Ca-MCF at the paper's defaults (δ1 0.05, δ2 0.1, k1 0.7, k2 1.0);
* ``auto`` — δ1 = δ2 = "auto" at α = ``--significance`` (resolved on that split's training
  rows), k1, k2 at their defaults;
* ``tuned`` — δ1 = δ2 = "auto" and (k1, k2) chosen by :func:`camcf.tuning.tune` from the grid
  ``--k1`` × ``--k2`` by 3 inner folds of that training part (the paper: k1, k2 grid-searched in
  [0.1, 1], δ from the data);

then ML-kNN (k = 10) is scored on the split's held-out rows. Printed per data set and set:
mean selected features, the seven metrics' means, and the seconds (``defaults``: its
selections and classifications on all splits; ``tuned``: the whole tuning with its nested
estimate, which includes ``auto``'s selections). The tuned row comes from ``tune(..., held_out=True)``: its "tuned" and "defaults" (here
= ``auto``) rows are the nested estimate; ``defaults`` is evaluated on the same outer splits by
:func:`camcf.evaluation.evaluate`.

    CAMCF_DATA_DIR=/work/shared/datasets .venv/bin/python benchmarks/bench_tuned.py \\
        [--sets flags,yeast] [--repeats 3] [--k1 0.1,0.4,0.7,1.0] [--k2 0.4,1.0] \\
        [--json OUT.json]
"""

from __future__ import annotations

import argparse
import json
import sys
import time

METRICS = ("hamming_loss", "ranking_loss", "coverage", "average_precision", "micro_f1",
           "macro_f1", "subset_accuracy")


def floats(text: str) -> list[float]:
    return [float(v) for v in text.split(",") if v]


def one(name: str, args) -> list[dict]:
    import numpy as np

    from camcf.catalog import load_shared
    from camcf.evaluation import evaluate, make_folds, make_splitter
    from camcf.evaluation.studies import _camcf
    from camcf.tuning import tune

    ds = load_shared(name)
    X, Y = ds.X, ds.Y
    cv = make_splitter("repeated", n_repeats=args.repeats, test_size=0.3, seed=0)
    auto = {"delta1": "auto", "delta2": "auto", "significance": args.significance}
    t0 = time.perf_counter()
    T = tune(X, Y, {"k1": args.k1, "k2": args.k2}, params=auto, cv=cv, held_out=True)
    t_tune = time.perf_counter() - t0
    t0 = time.perf_counter()
    ev = evaluate(make_folds(X, Y, cv), {"defaults": _camcf({})})
    t_def = time.perf_counter() - t0
    rows = []
    held = T.held_out
    frames = {"defaults": ev.frame.rename(columns={"feature_set": "set"}),
              "auto": held[held["set"] == "defaults"], "tuned": held[held["set"] == "tuned"]}
    for label, f in frames.items():
        row = {"data": name, "set": label, "n": X.shape[0], "m": X.shape[1],
               "features": float(f.groupby("metric")["n_features"].mean().iloc[0])}
        for metric in METRICS:
            vals = f.loc[f["metric"] == metric, "value"].astype(float)
            row[metric] = float(np.nanmean(vals)) if len(vals) else float("nan")
        # auto's selections are part of the tuning run (its nested "defaults"): no own time
        row["seconds"] = {"defaults": t_def, "auto": None, "tuned": t_tune}[label]
        if label == "tuned":
            chosen = held[held["set"] == "tuned"].drop_duplicates("outer")
            row["k1,k2 per split"] = ";".join(f"{a:g},{b:g}" for a, b in
                                               zip(chosen["k1"], chosen["k2"], strict=True))
        rows.append(row)
    return rows


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--sets", help="comma-separated shared data sets (default: all found)")
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--significance", type=float, default=0.01)
    ap.add_argument("--k1", type=floats, default=[0.1, 0.4, 0.7, 1.0])
    ap.add_argument("--k2", type=floats, default=[0.4, 1.0])
    ap.add_argument("--json", help="also write the rows here")
    args = ap.parse_args(argv)
    from camcf.catalog import available

    names = args.sets.split(",") if args.sets else available()
    if not names:
        print("no shared data sets found (set CAMCF_DATA_DIR)")
        return 1
    head = ["data", "set", "features", *METRICS, "seconds"]
    short = ["data", "set", "feat", "HL↓", "RL↓", "Cov↓", "AP↑", "miF1↑", "maF1↑", "SA↑", "s"]
    print(" | ".join(short))
    out = []
    for name in names:
        try:
            rows = one(name, args)
        except Exception as e:  # a data set that fails is reported, the others still run
            print(f"{name} | failed: {type(e).__name__}: {e}")
            continue
        for r in rows:
            out.append(r)
            cells = [r["data"], r["set"], f"{r['features']:.1f}",
                     *[f"{r[m]:.3f}" for m in METRICS],
                     "(in tuned)" if r["seconds"] is None else f"{r['seconds']:.1f}"]
            extra = f" (k1,k2: {r['k1,k2 per split']})" if "k1,k2 per split" in r else ""
            print(" | ".join(cells) + extra, flush=True)
    if args.json:
        with open(args.json, "w") as fh:
            json.dump(out, fh, indent=1)
    return 0 if out and len(head) else 1


if __name__ == "__main__":
    sys.exit(main())
