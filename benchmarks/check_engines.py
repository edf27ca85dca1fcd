"""The compiled engine takes the reference engine's decisions: every shared data set, every
setting of ``bench_settings.CHECKS``, all columns and rows.

For every catalogue data set found and each setting, run Ca-MCF with ``engine="fast"`` (the
compiled engine) and ``engine="reference"`` (every value from its own contingency table,
``np.unique``) and compare:

* the decisions: ``Result.to_json()`` by :func:`camcf.result.compare_json` (everything exactly,
  the numbers, rounded to 12 decimals, to one unit of their last decimal), ``mirror_of`` left
  out (the compiled engine mirrors a binary label's second category, the reference computes
  it);
* the decision record (every test): rows, steps, variables, conditioning sets, strata and
  decisions exactly, values to 1e-12 bits (``check_decisions.compare_records``).

The tests (``tests/test_engine_decisions.py``) do the same on a seeded subset of each wide
set's columns, rows and labels: the whole comparison took 58 minutes (2-core machine, shared),
50 of them the reference engine on Enron (92 to 1,110 s a setting) and 5.5 on PlantGO.

    CAMCF_DATA_DIR=/work/shared/datasets .venv/bin/python benchmarks/check_engines.py \
        [--sets flags,enron] [--settings authors,suggested]

Prints a line per run and "all equal" or "N difference(s)"; exit code 0 when all are equal.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
import warnings

from bench_settings import CHECKS  # the one declaration, beside this script
from check_decisions import compare_records, record_arrays

import camcf
from camcf.catalog import available, load_shared
from camcf.discretize import discretize
from camcf.result import compare_json


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--sets", help="comma-separated catalogue names (default: all available)")
    ap.add_argument("--settings", default=",".join(CHECKS),
                    help=f"comma-separated, of {', '.join(CHECKS)} (default: all)")
    args = ap.parse_args(argv)
    names = args.sets.split(",") if args.sets else available()
    if not names:
        print("no shared data set found: set CAMCF_DATA_DIR to the folder holding them")
        return 1
    bad = 0
    t_all = time.perf_counter()
    for name in names:
        ds = load_shared(name)
        X, _ = discretize(ds.X)
        for setting in args.settings.split(","):
            params = CHECKS[setting]
            runs, secs = {}, {}
            for engine in ("fast", "reference"):
                t0 = time.perf_counter()
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    runs[engine] = camcf.run(X, ds.Y, **params, engine=engine)
                secs[engine] = time.perf_counter() - t0
            fast, ref = runs["fast"], runs["reference"]
            same, how = compare_json(json.loads(ref.to_json()), json.loads(fast.to_json()),
                                     ignore=("mirror_of",))
            rec_same, rec_how = compare_records(record_arrays(ref), record_arrays(fast),
                                                fast.n_samples)
            bad += (not same) + (not rec_same)
            print(f"{name:<12} {setting:<13} {'same' if same else 'DECISIONS DIFFER':<16} "
                  f"fast {secs['fast']:7.2f} s  reference {secs['reference']:8.2f} s  "
                  f"{fast.n_tests:>9,} tests  {how}; "
                  f"{'record same' if rec_same else 'RECORD DIFFERS'}, {rec_how}", flush=True)
    print(f"{time.perf_counter() - t_all:.0f} s in all")
    print("all equal" if not bad else f"{bad} difference(s)")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
