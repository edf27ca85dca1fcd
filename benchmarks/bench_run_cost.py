"""What one Ca-MCF run costs, for the cost model :data:`camcf.estimates.RUN_COST` (the estimate
the explorer shows before a run, and the landscape's and Tune's per grid point).

Run from the repository root::

    .venv/bin/python benchmarks/bench_run_cost.py            # the default cases, one line each
    .venv/bin/python benchmarks/bench_run_cost.py --fit      # and the coefficients that fit them
    .venv/bin/python benchmarks/bench_run_cost.py --scales 0.1,0.3,1 --sets yeast,enron --fit

Each case is one ``camcf.run(..., trace="counters")`` in this process (one core) on a seeded
synthetic data set of delicious's shape (:func:`shapes.delicious_like`, rows and labels × the
scale) or of Corel16k's (:func:`shapes.corel16k_like`), or on a shared data set
(``$CAMCF_DATA_DIR``; discretised with the defaults), at δ1 = δ2 = the suggested thresholds
(α = 0.01) times each factor of ``--factors``, the other parameters at their defaults. Per case it
prints what the model reads — n, m, Q (categories computed), Q_all, K (Phase 2 candidates kept,
counted from the run) and K_pred (K predicted from δ1 without the run, as the model does
before a first run) — the measured seconds, the model's seconds (with K counted) and their
ratio, and the tests of each step (what the seconds are made of).

``--fit`` prints the coefficients of :data:`~camcf.estimates.RUN_COST` that fit the cases:
``feature``, ``label`` and ``candidate`` by the least mean squared log error (model / measured;
``fixed`` as it is, cases under 0.1 s left out: their time is the fixed part), and ``dependent`` as the
median over the shared data sets' cases of the share of features that passed δ1 beyond what
independence explains, times δ1 / δ_α where δ1 is above the α = 0.01 threshold δ_α (the
model's decay). Paste them into camcf/estimates.py when the engine changes.
"""

from __future__ import annotations

import argparse
import math
import sys
import time
import warnings
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "benchmarks"))

import camcf  # noqa: E402
from camcf.estimates import RUN_COST, RunShape, run_seconds  # noqa: E402
from camcf.significance import suggest_thresholds  # noqa: E402


def cases(scales, sets, factors):
    from shapes import corel16k_like, delicious_like

    for scale in scales:
        yield f"delicious-like×{scale:g}", *delicious_like(scale)
    for scale in scales:
        if scale < 1:
            yield f"corel16k-like×{scale:g}", *corel16k_like(scale)
    if sets:
        from camcf.catalog import available, load_shared
        from camcf.discretize import discretize

        for name in sets:
            if name not in available():
                print(f"{name}: not in $CAMCF_DATA_DIR, left out")
                continue
            ds = load_shared(name)
            yield name, discretize(ds.X)[0], np.asarray(ds.Y)


def measure(name, X, Y, factor):
    sug = suggest_thresholds(X, Y, 0.01)
    params = {**camcf.DEFAULTS, "delta1": sug["delta1"] * factor,
              "delta2": sug["delta2"] * factor}
    t0 = time.perf_counter()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        res = camcf.run(X, Y, **params, trace="counters")
    seconds = time.perf_counter() - t0
    shape = RunShape.of_result(res, df=sug["df_delta1"])
    blind = RunShape.of(X, Y, min_category_size=params["min_category_size"])
    steps: dict[str, int] = {}
    for t in res.targets:
        if not t.skipped and t.mirror_of is None:
            for k, v in t.test_counts.items():
                steps[k] = steps.get(k, 0) + v
    return {"name": name, "factor": factor, "params": params, "seconds": seconds,
            "shape": shape, "K": shape.candidates(params["delta1"], params["k1"]),
            "K_pred": blind.candidates(params["delta1"], params["k1"]),
            "model": run_seconds(shape, params), "steps": steps,
            "p_indep": _p_indep(shape, params["delta1"])}


def _p_indep(shape: RunShape, delta1: float) -> float:
    from scipy.stats import chi2

    return float(chi2.sf(2 * shape.n * math.log(2) * delta1, shape.df))


def _terms(r) -> list[float]:
    s = r["shape"]
    return [s.n * s.categories * s.m, s.n * s.categories * s.all_categories, s.n * r["K"] * s.m]


def fit(rows, shared: set[str]) -> dict:
    from scipy.optimize import minimize

    used = [r for r in rows if r["seconds"] >= 0.1]
    A = np.asarray([_terms(r) for r in used])
    y = np.log([r["seconds"] for r in used])

    def loss(theta: np.ndarray) -> float:
        return float(np.mean((np.log(RUN_COST["fixed"] + A @ np.exp(theta)) - y) ** 2))

    start = np.log([RUN_COST["feature"], RUN_COST["label"], RUN_COST["candidate"]])
    coef = np.exp(minimize(loss, start, method="Nelder-Mead",
                           options={"maxiter": 4000, "xatol": 1e-4, "fatol": 1e-8}).x)
    from camcf.significance import threshold_for

    dep = []
    for r in rows:
        if r["name"] in shared:
            s = r["shape"]
            share = r["K"] / max(1, s.categories) / (r["params"]["k1"] * s.m)
            decay = max(1.0, r["params"]["delta1"] / threshold_for(0.01, s.n, s.df))
            dep.append(max(0.0, (share - r["p_indep"]) / (1 - r["p_indep"])) * decay)
    return {"fixed": RUN_COST["fixed"], "feature": float(coef[0]), "label": float(coef[1]),
            "candidate": float(coef[2]),
            "dependent": float(np.median(dep)) if dep else RUN_COST["dependent"]}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--scales", default="0.1,0.2,0.3",
                    help="sizes of the synthetic data sets (rows and labels × scale)")
    ap.add_argument("--sets", default="flags,yeast,image,enron",
                    help="shared data sets (empty: none)")
    ap.add_argument("--factors", default="4,1,0.5",
                    help="δ1 and δ2 as these multiples of the suggested thresholds")
    ap.add_argument("--fit", action="store_true", help="print the coefficients that fit")
    args = ap.parse_args()
    scales = [float(v) for v in args.scales.split(",") if v.strip()]
    sets = [v.strip() for v in args.sets.split(",") if v.strip()]
    factors = [float(v) for v in args.factors.split(",") if v.strip()]
    rows = []
    print(f"{'case':24} {'δ1':>9} {'n':>6} {'m':>5} {'Q':>5} {'Q_all':>5} {'K':>7} "
          f"{'K_pred':>7} {'seconds':>8} {'model':>8} {'ratio':>6}")
    for name, X, Y in cases(scales, sets, factors):
        for factor in factors:
            r = measure(name, X, Y, factor)
            rows.append(r)
            s = r["shape"]
            print(f"{name:24} {r['params']['delta1']:9.3g} {s.n:6} {s.m:5} {s.categories:5} "
                  f"{s.all_categories:5} {r['K']:7.0f} {r['K_pred']:7.0f} "
                  f"{r['seconds']:8.2f} {r['model']:8.2f} "
                  f"{r['seconds'] / r['model']:6.2f}", flush=True)
            print("    tests:", ", ".join(f"{k} {v:,}" for k, v in r["steps"].items()))
    if args.fit:
        coef = fit(rows, set(sets))
        print("\nRUN_COST fitted to these cases:")
        print("RUN_COST = {" + ", ".join(f'"{k}": {v:.3g}' for k, v in coef.items()) + "}")
        old, new = [], []
        for r in rows:
            s = r["shape"]
            model = coef["fixed"] + s.n * (coef["feature"] * s.categories * s.m
                                           + coef["label"] * s.categories * s.all_categories
                                           + coef["candidate"] * r["K"] * s.m)
            new.append(abs(math.log(model / max(r["seconds"], 1e-3))))
            old.append(abs(math.log(r["model"] / max(r["seconds"], 1e-3))))
        print(f"mean |log(model / measured)|: {np.mean(old):.2f} with RUN_COST as it is, "
              f"{np.mean(new):.2f} with the fit")


if __name__ == "__main__":
    main()
