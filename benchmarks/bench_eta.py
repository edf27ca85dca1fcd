"""How good is ``camcf reproduce``'s estimate of the time left? A replay of a finished run.

Run from the repository root, on the output of a finished ``camcf reproduce … -o DIR/r``::

    .venv/bin/python benchmarks/bench_eta.py /tmp/repro/m-all/r
    .venv/bin/python benchmarks/bench_eta.py /tmp/repro/m-all/r --fit   # refit the cost model

A run's cell cache (``r.cache``, one JSON file per finished cell, written the moment the cell
was done) holds its timeline: each file's modification time is when its unit finished. The
replay takes, in finishing order, the wall time between one unit and the next (a tuning cell's
time spread evenly over the ``tune_units`` units it reports; the files of one split's
classification task as one unit), puts the units in the order the current code runs them
(tuning; per data set each method's splits together; classifications) and feeds the same
timeline to two estimators:

* **old**: every unit equal, ``elapsed × total / done`` (what the equal-unit counter gave the
  progress line before);
* **new**: :class:`camcf.estimates.CostProgress` over :func:`camcf.studies.reproduction_estimate`
  with a fake clock — exactly what ``camcf reproduce`` passes to its progress line, read back
  as the line reads it (``elapsed × (total − done) / done``).

At 10, 25, 50 and 75 % of the run's wall time it prints each one's estimated total (elapsed +
time left, as shown at the last unit before that moment) beside the actual total. The run
start is ``--start`` or the ``start`` file beside ``r`` (its modification time), else the
first unit's end (the time before the first unit, loading the data and cutting the splits, is elapsed
time but no unit's). ``--fit`` prints, per method, the exponents and factor of
:data:`camcf.estimates.SELECTION_COST` that fit this run's per-split seconds best.
"""

from __future__ import annotations

import argparse
import itertools
import json
import math
import os
import re
import sys
from collections import defaultdict
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from camcf.estimates import OVERHEAD, TUNE_POINT_COST, CostProgress  # noqa: E402
from camcf.studies import reproduction_estimate  # noqa: E402

MOMENTS = (0.10, 0.25, 0.50, 0.75)


def _fmt(s: float) -> str:
    m, s = divmod(int(round(s)), 60)
    return f"{m} min {s:02d} s" if m else f"{s} s"


def load(out: Path, start: float | None = None) -> dict:
    """The run's plan and its units in the current code's order, each with its wall seconds."""
    payload = json.loads(out.with_suffix(".json").read_text())
    order = list(payload["data_sets"])
    methods = [m["name"] for m in payload["methods"]]
    shapes, n_splits = {}, {}
    for ds, v in payload["data_sets"].items():
        a = v["data"]
        n_splits[ds] = v["settings"]["n_splits"]
        rows = {t["n_rows"] for t in payload["tuning"][ds]}
        n_train = max(rows)
        shapes[ds] = (n_train, a["n_samples"] - n_train, a["n_features"], a["n_labels"])
    tuning = payload["settings"]["tuning"]
    inner = int(re.match(r"(\d+)", tuning["inner"]).group(1))
    points = math.prod(len(v) for v in tuning["grid"].values())
    by_rows = {}
    cells = []
    for f in out.with_suffix(".cache").rglob("*.json"):
        d = json.loads(f.read_text())
        cells.append((f.stat().st_mtime, d["key"], d["value"]))
        if d["key"]["kind"] == "tune":
            by_rows[d["key"]["data"]] = d["value"]["n_rows"]
    name_of = {h: next(ds for ds in order if n == shapes[ds][0]) for h, n in by_rows.items()}
    # one event per unit, in finishing order (a classification task writes several files)
    events: dict[tuple, float] = {}
    for t, key, _ in cells:
        ds = name_of[key["data"]]
        ident = (key["kind"], ds, key["split"], key.get("method"))
        events[ident] = max(events.get(ident, 0.0), t)
    start_file = out.parent / "start"
    finished = sorted(events.items(), key=lambda kv: kv[1])
    if start is None:
        start = start_file.stat().st_mtime if start_file.is_file() else finished[0][1]
    # before its first unit a run loads every data set and cuts its splits: elapsed time that
    # is no unit's (the first unit, a tuning cell, says how long it took itself)
    first = next(v for t, k, v in sorted(cells, key=lambda c: c[0]) if k["kind"] == "tune")
    lead = max(0.0, finished[0][1] - start - first["seconds"])
    wall, prev = {}, start + lead
    for ident, t in finished:
        wall[ident] = t - prev
        prev = t
    tune = [i for i, _ in finished if i[0] == "tune"]
    select = [("select", ds, s, m) for ds in order for m in methods for s in range(n_splits[ds])
              if ("select", ds, s, m) in wall]
    classify = [("classify", ds, s, None) for ds in order for s in range(n_splits[ds])
                if ("classify", ds, s, None) in wall]
    return {"payload": payload, "shapes": shapes, "order": order, "inner": inner,
            "points": points, "units": tune + select + classify, "wall": wall, "lead": lead}


def replay(run: dict) -> list[tuple[float, float, float]]:
    """``(time, old estimated total, new estimated total)`` after every unit."""
    from camcf.evaluation.studies import sensitivity

    grid = run["payload"]["settings"]["tuning"]["grid"]
    params = run["payload"]["settings"]["tuning"]["params"]
    tune_units = 1 + sensitivity.plan(run["inner"], grid, params).units
    units = run["units"]
    counts: dict[str, dict[str, int]] = defaultdict(dict)
    for kind, ds, _s, m in units:
        if kind == "select":
            counts[ds][m] = counts[ds].get(m, 0) + 1
    est = reproduction_estimate(
        run["shapes"], tune_cells={ds: sum(1 for u in units if u[:2] == ("tune", ds))
                                   for ds in run["order"]},
        tune_units=tune_units, grid_points=run["points"], inner_folds=run["inner"],
        selections=counts, classifications={ds: sum(1 for u in units if u[:2] == ("classify",
                                                                                  ds))
                                            for ds in run["order"]},
        n_jobs=run["payload"]["settings"]["n_jobs"])
    clock = [run["lead"]]
    seen: list[tuple[int, int]] = []
    tracker = CostProgress(lambda d, n, m: seen.append((d, n)), est, clock=lambda: clock[0],
                           start=0.0)
    total_units = est.units
    done = 0
    out = []
    for u in units:
        secs = run["wall"][u]
        n = tune_units if u[0] == "tune" else 1
        for _ in range(n):
            clock[0] += secs / n
            done += 1
            tracker.tick("unit")
            d, t = seen[-1]
            new = clock[0] + (clock[0] * (t - d) / d if d > 0 else math.nan)
            out.append((clock[0], clock[0] * total_units / done, new))
    return out


def table(run: dict, rows: list[tuple[float, float, float]]) -> list[str]:
    actual = rows[-1][0]
    lines = [f"actual total {_fmt(actual)} ({actual:.0f} s), {len(run['units'])} units "
             f"({len(rows)} progress steps)",
             "| wall time | elapsed | old: estimated total | new: estimated total | actual |",
             "|---|---|---|---|---|"]
    for p in MOMENTS:
        at = max((r for r in rows if r[0] <= p * actual), default=rows[0], key=lambda r: r[0])
        lines.append(f"| {p:.0%} | {_fmt(at[0])} | {_fmt(at[1])} ({at[1] / actual:.2f}×) | "
                     f"{_fmt(at[2])} ({at[2] / actual:.2f}×) | {_fmt(actual)} |")
    return lines


def fit(payload: dict) -> list[str]:
    """Per method: exponents (n, m, q) in {0, ½, 1, 1½, 2} and the factor b of
    ``OVERHEAD + b·n^a·m^c·q^e`` with the least mean |log error| over the data sets."""
    obs = defaultdict(list)
    for v in payload["data_sets"].values():
        a = v["data"]
        n = a["n_samples"] - math.ceil(0.3 * a["n_samples"])
        secs = defaultdict(list)
        first = v["splits"][0]["metric"]
        for r in v["splits"]:
            if r["metric"] == first:
                secs[r["method"]].append(r["seconds"])
        for k, s in secs.items():
            obs[k].append((n, a["n_features"], a["n_labels"], sum(s) / len(s)))
    steps = (0, 0.5, 1, 1.5, 2)
    lines = []
    for method, rows in obs.items():
        best = None
        for e in itertools.product(steps, repeat=3):
            term = [n ** e[0] * m ** e[1] * q ** e[2] for n, m, q, _ in rows]
            ratios = sorted((s - OVERHEAD) / x for x, (*_, s) in zip(term, rows, strict=True)
                            if s > 2 * OVERHEAD)
            if not ratios:
                continue
            b = ratios[len(ratios) // 2]
            err = sum(abs(math.log((OVERHEAD + b * x) / max(s, 1e-3)))
                      for x, (*_, s) in zip(term, rows, strict=True)) / len(rows)
            if best is None or err < best[0] - 1e-9:
                best = (err, e, b)
        if best is None:
            lines.append(f"{method}: at most {2 * OVERHEAD} s everywhere (overhead only)")
        else:
            lines.append(f"{method}: b = {best[2]:.2g}, exponents (n, m, q) = {best[1]}, mean "
                         f"|log error| {best[0]:.2f}")
    # a tuning point on an inner fold: fixed + b·n²·√(m·q) (n the outer training rows), from the
    # tuning cells' wall seconds × the workers they ran on, over grid points × inner folds
    tuning = payload["settings"]["tuning"]
    per_cell = math.prod(len(v) for v in tuning["grid"].values()) * int(
        re.match(r"(\d+)", tuning["inner"]).group(1))
    workers = payload["settings"]["n_jobs"]
    fixed = TUNE_POINT_COST[1] if workers == 1 else TUNE_POINT_COST[2]
    rows = []
    for ds, cells in payload["tuning"].items():
        a = payload["data_sets"][ds]["data"]
        n = cells[0]["n_rows"]
        secs = sum(c["seconds"] for c in cells) / len(cells) * workers
        rows.append((n * n * math.sqrt(a["n_features"] * a["n_labels"]), secs / per_cell))
    ratios = sorted((s - fixed) / x for x, s in rows if s > 2 * fixed)
    if ratios:
        b = ratios[len(ratios) // 2]
        err = sum(abs(math.log((fixed + b * x) / s)) for x, s in rows) / len(rows)
        lines.append(f"tuning point: b = {b:.2g} (fixed part {fixed} s), mean |log error| "
                     f"{err:.2f}")
    return lines


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("output", help="the -o of a finished camcf reproduce (DIR/r: DIR/r.json, "
                                  "DIR/r.cache)")
    p.add_argument("--fit", action="store_true", help="print the cost model's fit instead")
    p.add_argument("--start", help="when the run started, e.g. '2026-11-24 01:14:43' (UTC; "
                                   "default: the start file's time)")
    args = p.parse_args(argv)
    out = Path(args.output)
    if args.fit:
        print("\n".join(fit(json.loads(out.with_suffix(".json").read_text()))))
        return 0
    start = None
    if args.start:
        from datetime import UTC, datetime

        start = datetime.fromisoformat(args.start).replace(tzinfo=UTC).timestamp()
    run = load(out, start)
    print(f"{out}: data sets {', '.join(run['order'])}; n_jobs "
          f"{run['payload']['settings']['n_jobs']}; load now {os.getloadavg()[0]:.2f}")
    print("\n".join(table(run, replay(run))))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
