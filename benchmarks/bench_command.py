"""The whole ``camcf select`` command on a file of delicious's shape: wall seconds and peak RSS.

Writes (once, seeded) a MULAN sparse ARFF + XML of :func:`shapes.delicious_like` (16,000 × 500
binary features, 1,000 sparse binary labels; ``--scale`` shrinks it) to ``--dir``, or with
``--format mat`` a MULAN ``.mat`` of :func:`shapes.delicious_tags` in the layout of the public
delicious file (``data`` 16,105 × 500 float64, ``target`` 983 × 16,105 double ±1), then runs
``camcf select FILE [--xml FILE.xml] --output OUT.json --quiet [ARGS]`` under ``/usr/bin/time
-v`` for the new code and, with ``--old DIR`` (a checkout of another commit), for the old code,
interleaved repeat by repeat so that both see the same load. ``--args`` adds options (e.g.
``"--delta1 auto --delta2 auto"``). Printed per code: best wall seconds, best peak RSS (MB),
the number of tests and whether the selections of old and new are identical.

    .venv/bin/python benchmarks/bench_command.py --old /tmp/perf-old [--repeats 2]
    .venv/bin/python benchmarks/bench_command.py --format mat --old /tmp/perf-old
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent


def write_file(path: Path, scale: float) -> None:
    """The delicious-shaped data as a MULAN sparse ARFF (features first, labels last) + XML."""
    import numpy as np

    sys.path.insert(0, str(HERE))
    from shapes import delicious_like

    X, Y = delicious_like(scale=scale, seed=0)
    n, m = X.shape
    q = Y.shape[1]
    A = np.hstack([X, Y])
    with open(path, "w") as fh:
        fh.write("@relation delicious_like\n")
        for j in range(m):
            fh.write(f"@attribute w{j} {{0,1}}\n")
        for j in range(q):
            fh.write(f"@attribute tag{j} {{0,1}}\n")
        fh.write("@data\n")
        for i in range(n):
            nz = np.flatnonzero(A[i])
            fh.write("{" + ",".join(f"{j} 1" for j in nz.tolist()) + "}\n")
    with open(path.with_suffix(".xml"), "w") as fh:
        fh.write('<?xml version="1.0" encoding="utf-8"?>\n'
                 '<labels xmlns="http://mulan.sourceforge.net/labels">\n')
        for j in range(q):
            fh.write(f'<label name="tag{j}"></label>\n')
        fh.write("</labels>\n")


def write_mat(path: Path, scale: float) -> None:
    """The delicious file's shape as MULAN's .mat holds it: ``data`` (n × m float64) and
    ``target`` (labels × samples, double −1/+1)."""
    import numpy as np
    import scipy.io

    sys.path.insert(0, str(HERE))
    from shapes import delicious_tags

    X, Y = delicious_tags(scale)
    scipy.io.savemat(str(path), {"data": X.astype(np.float64),
                                 "target": np.where(Y.T == 1, 1.0, -1.0)})


def _has_quiet(code: str | None) -> bool:
    """Whether this code's ``camcf select`` takes ``--quiet``."""
    env = dict(os.environ)
    if code:
        env["PYTHONPATH"] = code + os.pathsep + env.get("PYTHONPATH", "")
    p = subprocess.run([sys.executable, "-m", "camcf", "select", "--help"], env=env,
                       capture_output=True, text=True, cwd=tempfile.gettempdir())
    return "--quiet" in p.stdout


def run_once(code: str | None, data: Path, out: Path, extra: list[str]) -> dict:
    env = dict(os.environ)
    if code:
        env["PYTHONPATH"] = code + os.pathsep + env.get("PYTHONPATH", "")
    env.setdefault("OMP_NUM_THREADS", "1")
    cmd = ["/usr/bin/time", "-v", sys.executable, "-m", "camcf", "select", str(data),
           "--output", str(out), *extra]
    if data.suffix == ".arff":
        cmd += ["--xml", str(data.with_suffix(".xml"))]
    if _has_quiet(code):  # (older code, e.g. 41c22b6, has no --quiet: it printed no progress)
        cmd.append("--quiet")
    # run outside any checkout, so that PYTHONPATH (old) or the installed package (new) decides
    p = subprocess.run(cmd, env=env, capture_output=True, text=True, cwd=out.parent)
    if p.returncode != 0:
        raise RuntimeError(p.stderr[-2000:])
    wall = re.search(r"Elapsed \(wall clock\) time \(h:mm:ss or m:ss\): (\S+)", p.stderr)
    parts = [float(x) for x in wall.group(1).split(":")]
    secs = sum(v * 60 ** i for i, v in enumerate(reversed(parts)))
    rss = int(re.search(r"Maximum resident set size \(kbytes\): (\d+)", p.stderr).group(1))
    cpu = sum(float(re.search(rf"{k} time \(seconds\): (\S+)", p.stderr).group(1))
              for k in ("User", "System"))
    res = json.loads(out.read_text())
    return {"wall": secs, "cpu": cpu, "rss_mb": rss / 1024, "tests": res.get("n_tests"),
            "selected": res.get("selected_indices")}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--old", help="a checkout of the code to compare with")
    ap.add_argument("--repeats", type=int, default=2)
    ap.add_argument("--scale", type=float, default=1.0)
    ap.add_argument("--dir", default=os.path.join(tempfile.gettempdir(), "camcf-bench-command"))
    ap.add_argument("--format", choices=("arff", "mat"), default="arff")
    ap.add_argument("--args", default="", help="more options for camcf select, one string")
    args = ap.parse_args(argv)
    folder = Path(args.dir)
    folder.mkdir(parents=True, exist_ok=True)
    if args.format == "mat":
        data = folder / f"delicious_tags-{args.scale:g}.mat"
        if not data.exists():
            write_mat(data, args.scale)
    else:
        data = folder / f"delicious_like-{args.scale:g}.arff"
        if not data.exists():
            write_file(data, args.scale)
    codes = {"new": None} if not args.old else {"old": args.old, "new": None}
    best: dict[str, dict] = {}
    for _ in range(args.repeats):
        for name, code in codes.items():
            r = run_once(code, data, folder / f"out-{name}.json", args.args.split())
            b = best.setdefault(name, dict(r))
            for k in ("wall", "cpu", "rss_mb"):
                b[k] = min(b[k], r[k])
    print(f"camcf select {data.name} ({args.args or 'defaults'}, --quiet); best of {args.repeats}; load "
          f"average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores (wall is noisy under load; "
          f"peak RSS is not)")
    for name, r in best.items():
        print(f"  {name:<4} wall {r['wall']:6.2f} s  cpu {r['cpu']:6.2f} s  peak RSS "
              f"{r['rss_mb']:7.1f} MB  {r['tests']:,} tests, {len(r['selected'])} selected")
    if "old" in best:
        o, w = best["old"], best["new"]
        print(f"  old/new wall ×{o['wall'] / w['wall']:.2f}  cpu ×{o['cpu'] / w['cpu']:.2f}  "
              f"RSS ×{o['rss_mb'] / w['rss_mb']:.2f}; selections "
              f"{'identical' if o['selected'] == w['selected'] else 'DIFFER'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
