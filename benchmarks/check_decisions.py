"""Decisions unchanged? Dump or compare ``Result.to_json()`` on every shared data set.

For every catalogue data set found and both parameter settings (the authors' and the heavier
one), run Ca-MCF and either save the decision JSON (``--save DIR``) or compare it byte for byte
with a saved one (``--compare DIR``). A digest of the full decision record (every test, values
rounded to 12 decimals) is saved and compared too; a record difference is reported separately
from a decision difference.

    CAMCF_DATA_DIR=/work/shared/datasets .venv/bin/python benchmarks/check_decisions.py \
        --save /tmp/engine-baseline
    ... benchmarks/check_decisions.py --compare /tmp/engine-baseline [--n-jobs 2]

Exit code 0 when everything compared equal, 1 otherwise.
"""

from __future__ import annotations

import argparse
import hashlib
import inspect
import sys
import time
import warnings
from pathlib import Path

import numpy as np

import camcf
from camcf.catalog import available, load_shared
from camcf.discretize import discretize

SETTINGS = {
    "authors": dict(delta1=0.05, delta2=0.1, k1=0.7, k2=1.0),
    "heavier": dict(delta1=0.01, delta2=0.02, k1=1.0, k2=0.3),
}


def record_digest(res) -> str:
    """SHA-256 of the decision record (rows in order, values rounded to 12 decimals)."""
    h = hashlib.sha256()
    df = res.to_frame(names=False)
    for col in ("target", "seq", "step", "a", "b", "decision", "aux"):
        h.update(col.encode())
        h.update(np.asarray(df[col].astype(str)).astype("U").tobytes())
    for col in ("value", "threshold"):
        h.update(col.encode())
        h.update((np.round(df[col].to_numpy(dtype=float), 12) + 0.0).tobytes())  # −0 → 0
    h.update(repr(list(df["cond"])).encode())
    return h.hexdigest()


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    g = ap.add_mutually_exclusive_group(required=True)
    g.add_argument("--save", metavar="DIR")
    g.add_argument("--compare", metavar="DIR")
    ap.add_argument("--sets", help="comma-separated catalogue names (default: all available)")
    ap.add_argument("--settings", default="authors,heavier")
    ap.add_argument("--n-jobs", type=int, default=None)
    ap.add_argument("--no-record", action="store_true", help="skip the decision-record digest")
    args = ap.parse_args(argv)
    folder = Path(args.save or args.compare)
    folder.mkdir(parents=True, exist_ok=True)
    names = args.sets.split(",") if args.sets else available()
    extra = {}
    if args.n_jobs is not None and "n_jobs" in inspect.signature(camcf.run).parameters:
        extra["n_jobs"] = args.n_jobs
    bad = 0
    for name in names:
        ds = load_shared(name)
        X, _ = discretize(ds.X)
        for setting in args.settings.split(","):
            params = SETTINGS[setting]
            t0 = time.perf_counter()
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                res = camcf.run(X, ds.Y, **params, **extra)
            secs = time.perf_counter() - t0
            text = res.to_json()
            digest = "" if args.no_record else record_digest(res)
            stem = folder / f"{name}-{setting}"
            if args.save:
                Path(f"{stem}.json").write_text(text, encoding="utf-8")
                if digest:
                    Path(f"{stem}.record").write_text(digest, encoding="utf-8")
                print(f"{name:<12} {setting:<8} saved   {secs:7.2f} s  "
                      f"{len(res.selected_indices)} selected")
                continue
            old = Path(f"{stem}.json").read_text(encoding="utf-8")
            same = old == text
            rec = ""
            if digest and Path(f"{stem}.record").exists():
                rec_same = Path(f"{stem}.record").read_text(encoding="utf-8") == digest
                rec = "record same" if rec_same else "RECORD DIFFERS"
                bad += not rec_same
            bad += not same
            print(f"{name:<12} {setting:<8} {'same' if same else 'DECISIONS DIFFER':<16} "
                  f"{rec:<15} {secs:7.2f} s")
    if args.compare:
        print("all equal" if not bad else f"{bad} difference(s)")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
