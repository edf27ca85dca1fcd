"""What one selection of each method costs, for :data:`camcf.estimates.SELECTION_COST` (the
Compare page's per-method estimate and default method set, ``camcf reproduce``'s progress).

Run from the repository root::

    .venv/bin/python benchmarks/bench_selection_cost.py            # measure and fit
    .venv/bin/python benchmarks/bench_selection_cost.py --methods fimf,mi-mcf --budget 60
    .venv/bin/python benchmarks/bench_selection_cost.py --methods fimf --check 6000,500,400

One factor at a time on a data set (``--data``: a seeded one of delicious's kind,
:func:`shapes.delicious_like` at scale 0.4 — 6,400 × 500 binary features, 400 labels —, or a
shared data set by name, discretised with the defaults; its first rows, features and
labels): a base case of N rows × M features × Q labels (default 1,500 × 250 × 50; with a shared
data set a quarter of its rows, half its features, an eighth of its labels), then the rows × 4,
the features × 2 and the labels × 8 — wide steps, so that timing noise on a shared machine
weighs little in the exponents. What a method searching until no candidate passes costs
depends on the data's dependencies: on the synthetic data the baselines cost far less than on
real files (mi-mcf 1.5 s at 1,500 × 250 with 400 labels, 154 s on Enron's training rows), so
fit on real data of the sizes the app meets. One fit of each method per case (as the Compare page makes it:
:func:`camcf.methods.make` with its defaults, on the binary label columns; Ca-MCF on the label
codes), each in its own process, stopped after ``--budget`` seconds. Per method it prints the
four seconds, then the exponents ``(a, c, e)`` of ``OVERHEAD + b · n^a · m^c · q^e`` — each
log(t(factor · x) / t(x)) / log(factor), rounded to the nearest ½ in [0, 3] — and ``b``, the
geometric mean of the cases' (t − OVERHEAD) / (n^a · m^c · q^e), with the mean |log error|
over the cases. The last lines are the ``SELECTION_COST`` entries to paste into
camcf/estimates.py. A method that ran past the budget in some case is not fitted (said so).

``--check n,m,q`` instead measures each method once at that size and prints it beside what
the cost model in camcf/estimates.py (:func:`camcf.estimates.selection_seconds`) predicts: how
well the fit extrapolates to a larger case.
"""

from __future__ import annotations

import argparse
import math
import multiprocessing as mp
import sys
import time
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "benchmarks"))

from camcf.estimates import OVERHEAD  # noqa: E402

METHODS = ("mi-mcf", "m2lc", "d2f", "mdfs", "jfsc", "fimf", "mcls", "camcf")
#: how far each factor is stepped from the base case: rows, features, labels
STEPS = (4, 2, 8)


SYNTHETIC = "delicious-like"


def _data(name: str):
    """Feature codes and labels (binary columns: what the baselines get; Ca-MCF the codes)."""
    if name == SYNTHETIC:
        from shapes import delicious_like

        return delicious_like(0.4)
    from camcf.catalog import load_shared
    from camcf.discretize import discretize

    ds = load_shared(name)
    return discretize(ds.X)[0], np.asarray(ds.Y)


def _fit_one(method: str, n: int, m: int, q: int, data: str, out) -> None:
    from camcf import methods
    from camcf.evaluation import binarize_labels

    X, Y = _data(data)
    X, Y = X[:n, :m], Y[:n, :q]
    est = methods.make(method)
    if not getattr(est, "accepts_label_codes", False):
        Y = binarize_labels(Y)[0]
    t0 = time.perf_counter()
    est.fit(X, Y)
    out.put(time.perf_counter() - t0)


def measure(method: str, n: int, m: int, q: int, budget: float,
            data: str = SYNTHETIC) -> float | None:
    ctx = mp.get_context("spawn")
    out = ctx.Queue()
    p = ctx.Process(target=_fit_one, args=(method, n, m, q, data, out))
    p.start()
    p.join(budget)
    if p.is_alive():
        p.kill()
        p.join()
        return None
    return out.get() if p.exitcode == 0 else math.nan


def fit(times: dict[tuple[int, int, int], float | None], base: tuple[int, int, int]
        ) -> list[float] | None:
    """The exponents (a, c, e) from the base case and the three stepped ones."""
    t0 = times.get(base)
    if not t0:
        return None
    exps = []
    for axis, step in enumerate(STEPS):
        case = tuple(v * step if i == axis else v for i, v in enumerate(base))
        t = times.get(case)
        if not t:
            return None
        e = math.log(max(t, OVERHEAD) / max(t0, OVERHEAD)) / math.log(step)
        exps.append(min(3.0, max(0.0, round(2 * e) / 2)))
    return exps


def main() -> None:
    from camcf import methods as registry

    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--methods", default=",".join(METHODS))
    ap.add_argument("--data", default=SYNTHETIC, help="delicious-like, or a shared data set")
    ap.add_argument("--n", type=int, default=None)
    ap.add_argument("--m", type=int, default=None)
    ap.add_argument("--q", type=int, default=None)
    ap.add_argument("--budget", type=float, default=120.0, help="seconds per fit")
    ap.add_argument("--check", default=None, help="n,m,q: measure there, beside the model")
    args = ap.parse_args()
    if args.data == SYNTHETIC:
        sizes = (1500, 250, 50)
    else:
        X, Y = _data(args.data)
        sizes = (X.shape[0] // 4, X.shape[1] // 2, max(1, Y.shape[1] // 8))
    args.n, args.m, args.q = (given or size for given, size in
                              zip((args.n, args.m, args.q), sizes, strict=True))
    if args.check:
        from camcf.estimates import selection_seconds

        n, m, q = (int(v) for v in args.check.split(","))
        for method in [m_.strip() for m_ in args.methods.split(",") if m_.strip()]:
            t = measure(method, n, m, q, args.budget, args.data)
            shown = f"> {args.budget:g} s" if t is None else f"{t:.2f} s"
            print(f"{method:8} at {n} × {m}, {q} labels: measured {shown}, model "
                  f"{selection_seconds(method, n, m, q):.1f} s", flush=True)
        return
    base = (args.n, args.m, args.q)
    cases = [base] + [tuple(v * step if i == axis else v for i, v in enumerate(base))
                      for axis, step in enumerate(STEPS)]
    print("cases (n, m, q): " + ", ".join(map(str, cases)))
    available = set(registry.available())
    entries = {}
    for method in [m.strip() for m in args.methods.split(",") if m.strip()]:
        if method not in available:
            print(f"{method:8} not available in this installation, left out")
            continue
        times = {case: measure(method, *case, args.budget, args.data) for case in cases}
        shown = " ".join("  > budget" if t is None else f"{t:10.2f}" for t in times.values())
        print(f"{method:8} {shown}", flush=True)
        exps = fit(times, base)
        if exps is None:
            print(f"{method:8} not fitted: a case ran past the budget or failed")
            continue
        a, c, e = exps
        bs = [(t - OVERHEAD) / (n ** a * m ** c * q ** e)
              for (n, m, q), t in times.items() if t and t > 2 * OVERHEAD]
        b = float(math.exp(np.mean(np.log(bs)))) if bs else 0.0
        errs = [abs(math.log((OVERHEAD + b * n ** a * m ** c * q ** e) / t))
                for (n, m, q), t in times.items() if t]
        entries[method] = (b, (a, c, e))
        print(f"{method:8} b = {b:.3g}, (a, c, e) = ({a:g}, {c:g}, {e:g}); mean |log error| "
              f"{np.mean(errs):.2f}", flush=True)
    print("SELECTION_COST entries:")
    for method, (b, (a, c, e)) in entries.items():
        print(f'    "{method}": ({b:.2g}, ({a:g}, {c:g}, {e:g})),')


if __name__ == "__main__":
    main()
