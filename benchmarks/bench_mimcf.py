"""MI-MCF on data of delicious's shape (16,105 × 500 binary features, 983 sparse labels).

The public delicious set is not in the shared data folder, so the data are generated, seeded:
binary bag-of-words features and sparse binary labels, both driven by two latent topics per row
(each label and each word belongs to one of 60 topics), so labels co-occur as tags do (label
cardinality ≈ 15 at full size, delicious's is 19).

    python benchmarks/bench_mimcf.py --scale 0.25            # n, m, q each × 0.25
    python benchmarks/bench_mimcf.py --scale 1 --max-seconds 900
    python benchmarks/bench_mimcf.py --scale 0.25 --save sel.json   # then, on other code:
    PYTHONPATH=/path/to/other/tree python benchmarks/bench_mimcf.py --scale 0.25 --compare sel.json

Prints the shape, the seconds, the peak memory of the process and the number of features
selected; ``--compare`` checks that the selection is identical to a saved one.
"""

from __future__ import annotations

import argparse
import resource
import sys
import time

from shapes import DELICIOUS_FILE, delicious_topics, keep_selection

DELICIOUS = DELICIOUS_FILE


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--scale", type=float, default=0.25,
                    help="fraction of delicious's n, m and q (default 0.25)")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--max-seconds", type=float, default=None,
                    help="MI-MCF's time budget (default: none)")
    ap.add_argument("--save", help="write the selection to this JSON file")
    ap.add_argument("--compare", help="check the selection against this JSON file")
    args = ap.parse_args()

    import camcf
    from camcf.baselines.mimcf import mimcf_select

    n, m, q = (max(2, round(v * args.scale)) for v in DELICIOUS)
    X, Y = delicious_topics(n, m, q, seed=args.seed)
    print(f"camcf from {camcf.__file__}")
    print(f"data: {n:,} × {m:,} binary features, {q:,} labels (cardinality "
          f"{Y.sum(axis=1).mean():.1f}), seed {args.seed}")
    t0 = time.perf_counter()
    try:
        kw = {} if args.max_seconds is None else {"max_seconds": args.max_seconds}
        sel = mimcf_select(X, Y, **kw)
    except camcf.CamcfError as e:
        print(f"stopped: {e}")
        sys.exit(2)
    secs = time.perf_counter() - t0
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 2**10
    print(f"MI-MCF: {secs:.1f} s, peak RSS {peak:.0f} MiB, {len(sel)} features selected")
    if not keep_selection(sel, args.save, args.compare):
        sys.exit(1)


if __name__ == "__main__":
    main()
