"""Wall time of the paper's reproduction (:func:`camcf.evaluation.reproduce`, the library behind
``camcf reproduce``), serially and with local workers, and where we agree with the paper.

Run from the repository root::

    .venv/bin/python benchmarks/reproduce.py                         # every paper data set found
    .venv/bin/python benchmarks/reproduce.py --datasets flags,chd49 --n-jobs 1,2
    .venv/bin/python benchmarks/reproduce.py --grid k1=0.1,0.7 --output reports/reproduction

For each ``--n-jobs`` value the whole reproduction runs from an empty cell cache (a fresh
temporary folder, so nothing is reused) and its wall time is printed; the payloads of all runs
must be equal apart from timings (checked and printed). The report of the last run is written
with :func:`camcf.evaluation.reproduction.write_reproduction` (``OUT.json``, ``.csv``, ``.md``,
``.html``), and a table printed: per data set and metric, the tuned Ca-MCF's mean beside the
paper's Ca-MCF value, the difference, and whether the paper's value lies within one SD over
our splits ("agree") or not. Everything it computes is the library's; this script only times.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from camcf.cli.commands.tune import parse_grid  # noqa: E402
from camcf.cli.progress import ProgressLine  # noqa: E402
from camcf.evaluation.metrics import METRICS  # noqa: E402
from camcf.evaluation.reproduction import reproduce, untimed, write_reproduction  # noqa: E402


def agreement(payload: dict, method: str = "camcf") -> list[str]:
    """Per data set × metric: ours (mean ± SD) vs the paper, the difference, agree/differ."""
    lines = ["| data set | metric | ours | paper | ours − paper | within 1 SD | ours better |",
             "|---|---|---|---|---|---|---|"]
    for r in payload["paper"]:
        if r["method"] != method or r["paper"] is None:
            continue
        within = r["sd"] is not None and abs(r["difference"]) <= r["sd"]
        lines.append(f"| {r['data_set']} | {METRICS[r['metric']]['short']} | {r['mean']:.4f} ± "
                     f"{(r['sd'] or 0):.4f} | {r['paper']:.4f} | {r['difference']:+.4f} | "
                     f"{'agree' if within else 'differ'} | {'yes' if r['ours_better'] else 'no'} |")
    return lines


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--datasets", help="comma-separated shared data set names (default: the "
                                      "paper's found in $CAMCF_DATA_DIR)")
    p.add_argument("--methods", help="comma-separated methods (default: every available)")
    p.add_argument("--n-jobs", default="1,2", help="comma-separated n_jobs values to time (1,2)")
    p.add_argument("--grid", action="append", metavar="NAME=V1,V2",
                   help="Ca-MCF's tuning grid (default: the paper's k1, k2 grid)")
    p.add_argument("--output", default=str(REPO / "reports" / "reproduction_run"))
    args = p.parse_args(argv)
    data = args.datasets.split(",") if args.datasets else None
    methods = args.methods.split(",") if args.methods else None
    grid = parse_grid(args.grid) if args.grid else None
    runs = []
    for n_jobs in [int(v) for v in args.n_jobs.split(",")]:
        with tempfile.TemporaryDirectory() as cache:
            t0 = time.perf_counter()
            line = ProgressLine()
            payload = reproduce(data, methods=methods, grid=grid, cache_dir=cache,
                                n_jobs=n_jobs, progress=line)
            line.close()
            wall = time.perf_counter() - t0
        runs.append((n_jobs, wall, payload))
        print(f"n_jobs = {n_jobs}: {wall:.1f} s wall, {payload['cache']['computed']} cells, "
              f"data sets {', '.join(payload['data_sets'])}", flush=True)
    same = all(untimed(r[2]) == untimed(runs[0][2]) for r in runs[1:])
    print(f"payloads equal apart from timings: {same}")
    paths = write_reproduction(runs[-1][2], args.output)
    print("written:", ", ".join(str(x) for x in paths))
    print("\n".join(agreement(runs[-1][2])))
    return 0 if same else 1


if __name__ == "__main__":
    raise SystemExit(main())
