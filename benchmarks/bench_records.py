"""Large decision records out: seconds and size of every record format on one shared data set.

Runs Ca-MCF (full record) on the data set, then times ``Result.write_record`` to Parquet, CSV
and JSON lines and ``Result.to_json(include_trace=True)``, each the best of ``--repeats``.

    CAMCF_DATA_DIR=/work/shared/datasets .venv/bin/python benchmarks/bench_records.py
    ... benchmarks/bench_records.py --data yeast --setting authors --repeats 3
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
import warnings

from bench_settings import SETTINGS  # the one declaration, beside this script


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--data", default="enron")
    ap.add_argument("--setting", default="heavier", choices=list(SETTINGS))
    ap.add_argument("--repeats", type=int, default=2)
    args = ap.parse_args(argv)

    import camcf
    from camcf.catalog import load_shared
    from camcf.discretize import discretize

    ds = load_shared(args.data)
    X, _ = discretize(ds.X)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        res = camcf.run(X, ds.Y, **SETTINGS[args.setting])
    print(f"{args.data} {args.setting}: {res.n_rows:,} rows in the record")
    with tempfile.TemporaryDirectory() as tmp:
        for fmt in ("parquet", "csv", "jsonl", "json"):
            path = os.path.join(tmp, f"record.{fmt}")
            best = float("inf")
            for _ in range(args.repeats):
                t0 = time.perf_counter()
                if fmt == "json":
                    with open(path, "w", encoding="utf-8") as fh:
                        fh.write(res.to_json(include_trace=True))
                else:
                    res.write_record(path)
                best = min(best, time.perf_counter() - t0)
            what = "to_json(include_trace=True)" if fmt == "json" else f"write_record .{fmt}"
            print(f"{what:<30} {best:6.2f} s  {os.path.getsize(path) / 1e6:7.1f} MB", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
