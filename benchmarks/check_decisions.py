"""Decisions unchanged? Dump or compare ``Result.to_json()`` on every shared data set.

For every catalogue data set found and each parameter setting, run Ca-MCF and either save the
decision JSON (``--save DIR``) or compare it with a saved one (``--compare DIR``): every set,
decision and name exactly, the numbers in it (values rounded to 12 decimals for display) to
one unit of their last decimal. The full decision record (every test) is saved and compared too, reported
separately: every row, step, variable, conditioning set, strata count and decision exactly, the
values and thresholds to 1e-12 bits and the G statistic to the same in bits (|ΔG| ≤ 1e-12 ·
2n·ln 2). A change of summation order moves a value by about 1e-15 bits, which a value
rounded to 12 decimals shows whenever it sits on a rounding boundary: such a value is reported
with its difference, not as a changed decision.

    CAMCF_DATA_DIR=/work/shared/datasets .venv/bin/python benchmarks/check_decisions.py \
        --save /tmp/engine-baseline
    ... benchmarks/check_decisions.py --compare /tmp/engine-baseline [--n-jobs 2]
    ... benchmarks/check_decisions.py --save DIR --trace decisions   (the record's level)

Exit code 0 when everything compared equal, 1 otherwise.
"""

from __future__ import annotations

import argparse
import inspect
import json
import sys
import time
import warnings
from pathlib import Path

import numpy as np
from bench_settings import CHECKS  # the one declaration, beside this script

import camcf
from camcf.catalog import available, load_shared
from camcf.discretize import discretize
from camcf.result import compare_json  # the JSON's numbers to one unit of their last decimal

_INT_COLUMNS = ("target", "seq", "step", "a", "b", "decision", "aux", "df")  # df: from strata
TOLERANCE = 1e-12  # bits; values are compared to this, everything else exactly


def record_arrays(res) -> dict[str, np.ndarray]:
    """The decision record as arrays: every row in order; conditioning sets flattened with
    offsets."""
    df = res.to_frame(names=False)
    out = {}
    for c in _INT_COLUMNS:
        arr = df[c].to_numpy()
        out[c] = arr.astype(str) if arr.dtype == object else arr  # names (categorical) as text
    for c in ("value", "threshold", "g"):
        out[c] = df[c].to_numpy(dtype=float)
    out["strata"] = np.concatenate(  # the strata of each row's set, as the run counted them
        [res.cond_sets.strata[t.trace["cond"]] for t in res.targets if t.trace]
        or [np.empty(0, dtype=np.int64)])
    conds = [tuple(c) for c in df["cond"]]
    out["cond_len"] = np.array([len(c) for c in conds], dtype=np.int64)
    out["cond_flat"] = np.array([x for c in conds for x in c], dtype=np.int64)
    return out


def compare_records(old: dict, new: dict, n: int) -> tuple[bool, str]:
    """(same, how): rows, steps, variables, sets and decisions exactly; values to 1e-12 bits
    (the G statistic of ``n`` rows, 2n·ln 2 times a value, to the same in bits)."""
    for c in (*_INT_COLUMNS, "cond_len", "cond_flat", "strata"):
        if c not in old:  # saved by an older version of this script
            continue
        if old[c].shape != new[c].shape or not np.array_equal(old[c], new[c]):
            return False, f"column {c} differs"
    worst = 0.0
    for c in ("value", "threshold", "g"):
        if c not in old:
            continue
        x, y = old[c], new[c]
        if not np.array_equal(np.isnan(x), np.isnan(y)):
            return False, f"{c}: NaN in different rows"
        ok = ~np.isnan(x)
        d = float(np.abs(x[ok] - y[ok]).max()) if ok.any() else 0.0
        worst = max(worst, d / (2 * n * np.log(2)) if c == "g" else d)
    if worst > TOLERANCE:
        return False, f"values differ by up to {worst:.1e}"
    return True, f"max |Δvalue| {worst:.1e}"


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    g = ap.add_mutually_exclusive_group(required=True)
    g.add_argument("--save", metavar="DIR")
    g.add_argument("--compare", metavar="DIR")
    ap.add_argument("--sets", help="comma-separated catalogue names (default: all available)")
    ap.add_argument("--settings", default=",".join(CHECKS),
                    help=f"comma-separated, of {', '.join(CHECKS)} (default: all)")
    ap.add_argument("--n-jobs", type=int, default=None)
    ap.add_argument("--no-record", action="store_true", help="skip the decision record")
    ap.add_argument("--trace", default=None, choices=("full", "decisions", "counters"),
                    help="the record's level (default: camcf.run's, the full record); save and "
                         "compare at the same level")
    args = ap.parse_args(argv)
    folder = Path(args.save or args.compare)
    folder.mkdir(parents=True, exist_ok=True)
    names = args.sets.split(",") if args.sets else available()
    extra = {}
    if args.n_jobs is not None and "n_jobs" in inspect.signature(camcf.run).parameters:
        extra["n_jobs"] = args.n_jobs
    if args.trace is not None:
        extra["trace"] = args.trace
    bad = 0
    for name in names:
        ds = load_shared(name)
        X, _ = discretize(ds.X)
        for setting in args.settings.split(","):
            params = CHECKS[setting]
            t0 = time.perf_counter()
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                res = camcf.run(X, ds.Y, **params, **extra)
            secs = time.perf_counter() - t0
            text = res.to_json()
            record = None if args.no_record else record_arrays(res)
            stem = folder / f"{name}-{setting}"
            if args.save:
                Path(f"{stem}.json").write_text(text, encoding="utf-8")
                if record is not None:
                    np.savez_compressed(f"{stem}.record.npz", **record)
                print(f"{name:<12} {setting:<8} saved   {secs:7.2f} s  "
                      f"{len(res.selected_indices)} selected")
                continue
            old = Path(f"{stem}.json").read_text(encoding="utf-8")
            same, jhow = compare_json(json.loads(old), json.loads(text))
            rec = ""
            if record is not None and Path(f"{stem}.record.npz").exists():
                with np.load(f"{stem}.record.npz") as saved:
                    rec_same, how = compare_records(dict(saved), record, res.n_samples)
                rec = ("record same, " if rec_same else "RECORD DIFFERS: ") + how
                bad += not rec_same
            bad += not same
            print(f"{name:<12} {setting:<8} {'same' if same else 'DECISIONS DIFFER':<16} "
                  f"{secs:7.2f} s  {jhow}; {rec}")
    if args.compare:
        print("all equal" if not bad else f"{bad} difference(s)")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
