"""Baselines benchmark: seconds per method per shared data set (fit on the whole set).

Each data set is discretised as the reproduction does (``camcf.discretize.discretize``, 3 equal-
width bins for continuous columns, integer columns with ≤ 10 values as they are); each method runs
in its own process, stopped after --budget seconds (then printed as "> budget"). Prints the best of
--repeats runs. For reference, BASELINES.md: the authors' D2F (MATLAB, row-looping entropies)
takes about 20 minutes on 593 × 72 with 6 labels (Emotions; the row "emotions-like" is a
synthetic data set of that shape).

    .venv/bin/python benchmarks/bench_baselines.py [--sets flags,yeast] [--methods d2f,fimf]
        [--budget 600] [--repeats 1]
"""

from __future__ import annotations

import argparse
import multiprocessing as mp
import sys
import time

import numpy as np

from camcf.catalog import available, load_shared
from camcf.discretize import discretize


def _methods() -> dict:
    from camcf.baselines import D2F, FIMF, MIMCF

    return {"d2f": D2F, "fimf": FIMF, "mi-mcf": MIMCF}


SYNTHETIC = "emotions-like"  # 593 × 72 codes in {0, 1, 2}, 6 labels (Emotions' shape)


def _data(name: str) -> tuple[np.ndarray, np.ndarray]:
    if name == SYNTHETIC:
        r = np.random.default_rng(0)
        Y = r.integers(0, 2, (593, 6))
        X = r.integers(0, 3, (593, 72))
        X[:, :12] = (X[:, :12] + Y[:, np.arange(12) % 6]) % 3  # some features carry a label
        return X, Y
    ds = load_shared(name)
    return discretize(ds.X)[0], np.asarray(ds.Y)


def _run(name: str, method: str, repeats: int, out) -> None:
    X, Y = _data(name)
    best = float("inf")
    for _ in range(repeats):
        est = _methods()[method]()
        t0 = time.perf_counter()
        est.fit(X, Y)
        best = min(best, time.perf_counter() - t0)
    out.put((best, int(est.get_support().sum())))


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sets", default=None, help="comma-separated shared data sets (default: all)")
    ap.add_argument("--methods", default=None, help="comma-separated methods (default: all)")
    ap.add_argument("--budget", type=float, default=600.0, help="seconds per run before giving up")
    ap.add_argument("--repeats", type=int, default=1)
    a = ap.parse_args(argv)
    sets = a.sets.split(",") if a.sets else [SYNTHETIC] + [
        s for s in available() if s not in ("flags-mat", "yeast-split")]
    methods = a.methods.split(",") if a.methods else list(_methods())
    print(f"{'data set':10} {'n × m, q':>18} " + " ".join(f"{m:>12}" for m in methods))
    for name in sets:
        X, Y = _data(name)
        shape = f"{X.shape[0]} × {X.shape[1]}, {Y.shape[1]}"
        cells = []
        for method in methods:
            q: mp.Queue = mp.Queue()
            p = mp.Process(target=_run, args=(name, method, a.repeats, q))
            p.start()
            p.join(a.budget * a.repeats)
            if p.is_alive():
                p.terminate()
                p.join()
                cells.append(f"> {a.budget:.0f} s")
            elif p.exitcode != 0:
                cells.append("error")
            else:
                secs, _ = q.get()
                cells.append(f"{secs:.2f} s")
        print(f"{name:10} {shape:>18} " + " ".join(f"{c:>12}" for c in cells), flush=True)
    print("\nauthors' D2F (BASELINES.md): about 20 min (1200 s) on 593 × 72 with 6 labels")
    return 0


if __name__ == "__main__":
    sys.exit(main())
