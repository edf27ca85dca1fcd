"""Ca-MCF on data of the delicious file's shape at the thresholds the app suggests: seconds,
CPU seconds, tests, peak memory and the selection, serial and in parallel.

The data are :func:`shapes.delicious_tags` (16,105 × 500 binary features, 983 sparse labels
that co-occur as tags: large label skeletons, thousands of strata; seeded) or, with
``--shape topics``, :func:`shapes.delicious_topics` (two topics a row, one a label). The
thresholds are those the Overview's "Suggest from the data" gives: a G test at α = 0.01
(``delta1 = delta2 = "auto"``, 0.0002972 bits at n = 16,105), k1 0.7, k2 1. Runs are
in this process, each ``--repeats`` times after a small run with the same ``n_jobs`` (the
compiled kernels loaded, the parallel workers started); printed: the best wall and CPU seconds of each
``n_jobs``, the tests, the number selected and a digest of the selection. ``--save`` writes
the selection, ``--compare`` checks it against a saved one (old code: run this script with
``PYTHONPATH=/path/to/old/tree``; the data and thresholds do not depend on the code).

    .venv/bin/python benchmarks/bench_delicious.py [--n-jobs 1,2] [--repeats 1] [--save F]
    PYTHONPATH=/tmp/old .venv/bin/python benchmarks/bench_delicious.py --compare F
"""

from __future__ import annotations

import argparse
import hashlib
import json
import resource
import sys
import time
import warnings

import numpy as np
from shapes import DELICIOUS_FILE, delicious_tags, delicious_topics, keep_selection

import camcf


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--shape", choices=("tags", "topics"), default="tags")
    ap.add_argument("--scale", type=float, default=1.0)
    ap.add_argument("--n-jobs", default="1,2", help="comma-separated (default 1,2)")
    ap.add_argument("--repeats", type=int, default=1)
    ap.add_argument("--trace", default="decisions", choices=("full", "decisions", "counters"))
    ap.add_argument("--save", help="write the selection (JSON) here")
    ap.add_argument("--compare", help="check the selection against this file")
    args = ap.parse_args(argv)
    if args.shape == "tags":
        X, Y = delicious_tags(args.scale)
    else:
        n, m, q = (max(2, round(v * args.scale)) for v in DELICIOUS_FILE)
        X, Y = (a.astype(np.uint8) for a in delicious_topics(n, m, q))
    print(f"camcf from {camcf.__file__}")
    print(f"data: {args.shape}, {X.shape[0]:,} × {X.shape[1]:,} binary features, "
          f"{Y.shape[1]:,} labels (cardinality {Y.sum(axis=1).mean():.1f})")
    params = dict(delta1="auto", delta2="auto", significance=0.01, k1=0.7, k2=1.0)
    selection = None
    for n_jobs in [int(v) for v in args.n_jobs.split(",")]:
        with warnings.catch_warnings():  # (the compiled kernels loaded; the workers started)
            warnings.simplefilter("ignore", camcf.CamcfWarning)
            camcf.run(X[:300], Y[:300, :20], delta1=0.05, delta2=0.1, n_jobs=n_jobs)
        best = None
        for _ in range(args.repeats):
            t0, c0 = time.perf_counter(), time.process_time()
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", camcf.CamcfWarning)
                res = camcf.run(X, Y, **params, n_jobs=n_jobs, trace=args.trace)
            wall, cpu = time.perf_counter() - t0, time.process_time() - c0
            best = (wall, cpu) if best is None else (min(best[0], wall), min(best[1], cpu))
        sel = res.selected_indices.tolist()
        if selection is not None and sel != selection:
            print("SELECTIONS OF THE n_jobs DIFFER")
            return 1
        selection = sel
        digest = hashlib.sha256(json.dumps(sel).encode()).hexdigest()[:12]
        print(f"n_jobs {n_jobs}: wall {best[0]:7.2f} s  CPU here {best[1]:7.2f} s  "
              f"{res.n_tests:,} tests  {len(sel)} selected (sha {digest})  δ1 = δ2 = "
              f"{res.params['delta1']:.7g}", flush=True)
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"peak RSS of this process {peak:.0f} MB")
    if not keep_selection(selection, args.save, args.compare):
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
