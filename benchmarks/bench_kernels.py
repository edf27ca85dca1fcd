"""The compiled engine's unit costs, which its choices between counting methods rely on: a
column counted row by row (ns per exception), from bit sets (ns per 64-row word of a (stratum,
value) pair), and a table block by its row join (ns per pair of exceptions met in a row).

Sessions on seeded binary data (n rows, 300 columns of density 0.3): the conditioning set is
built up column by column until it has the strata wanted; every column is then measured given
it (``Given.values``). With > 64 strata a column is counted row by row; with few strata and
dense columns, from bit sets. Printed: the strata, the ns per unit, and the constants in
``camcf/engine/kernels.py`` (``_ROW_NS``, ``_WORD_NS``) and ``compiled.py`` (``_JOIN_NS``,
``_WORD_NS``) to compare with.

    .venv/bin/python benchmarks/bench_kernels.py [--n 16000] [--repeats 5]
"""

from __future__ import annotations

import argparse
import sys
import time

import numpy as np

from camcf.engine import ENGINES


def session(eng, target: int, strata: int):
    """A session whose set has at least ``strata`` strata (columns added one by one)."""
    g = eng.given(target)
    j = 0
    while g.strata() < strata and j < eng.m - 1:
        g.add(j)
        j += 1
    return g, j


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--n", type=int, default=16000)
    ap.add_argument("--repeats", type=int, default=5)
    args = ap.parse_args(argv)
    rng = np.random.default_rng(0)
    n, m = args.n, 300
    X = (rng.random((n, m)) < 0.3).astype(np.uint8, order="F")
    C = np.asfortranarray(np.column_stack([X[:, 0] ^ (rng.random(n) < 0.2)] * 2).astype(np.uint8))
    C[:, 1] = 1 - C[:, 0]
    eng = ENGINES["fast"](X, C)
    eng.mi_table()
    words = (n + 63) // 64
    for want in (4, 16, 5000):
        g, used = session(eng, 0, want)
        cols = np.arange(used, m)
        exc = sum(eng.exceptions(j) for j in cols)
        best = min(_timed(g.values, cols) for _ in range(args.repeats))
        per_exc = best / exc * 1e9
        per_word = best / (cols.size * 2 * g.strata() * words) * 1e9
        print(f"{g.strata():6,} strata: {best * 1e3:8.2f} ms for {cols.size} columns: "
              f"{per_exc:6.2f} ns per exception, {per_word:6.3f} ns per (stratum, t, value) word")
    t0 = time.perf_counter()
    for _ in range(args.repeats):
        eng.table_part("features", 0, m)
    secs = (time.perf_counter() - t0) / args.repeats
    print(f"MI table {m} × 2 on n = {n:,}: {secs * 1e3:.2f} ms")
    from camcf.engine import compiled, kernels

    print(f"constants: kernels._ROW_NS {kernels._ROW_NS}, kernels._WORD_NS {kernels._WORD_NS}, "
          f"compiled._JOIN_NS {compiled._JOIN_NS}, compiled._WORD_NS {compiled._WORD_NS}")
    return 0


def _timed(fn, cols) -> float:
    t0 = time.perf_counter()
    fn(cols)
    return time.perf_counter() - t0


if __name__ == "__main__":
    sys.exit(main())
