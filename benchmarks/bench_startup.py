"""Start-up benchmark: ``import camcf``, ``camcf --help`` and a small file's whole ``camcf
select``, old code against new in the same run.

The old code is a detached worktree of commit 41c22b6 (made here in a temporary folder unless
``--old DIR`` names one); both run with this interpreter, each from its own tree
(``python -m camcf`` with the tree first on ``sys.path``). The small file is birds-sized and
generated here, seeded: 645 × 258 binary features, 19 labels that depend on a few features, as
CSV and as dense ARFF (the CSV reader needs pandas, the ARFF reader does not).
Each command runs ``--repeats`` times alternating old and new; the median and the minimum wall
time are printed (the minimum is the least disturbed by other load on the machine).

    .venv/bin/python benchmarks/bench_startup.py [--repeats 7] [--old DIR] [--commit 41c22b6]
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parents[1]


def small_file(folder: Path, seed: int = 0) -> Path:
    rng = np.random.default_rng(seed)
    n, m, q = 645, 258, 19
    X = rng.integers(0, 2, size=(n, m))
    Y = np.empty((n, q), dtype=int)
    for i in range(q):
        a, b = rng.choice(m, size=2, replace=False)
        Y[:, i] = (X[:, a] & X[:, b]) ^ (rng.random(n) < 0.05)
    path = folder / "birds_like.csv"
    header = ",".join([f"f{j}" for j in range(m)] + [f"y{i}" for i in range(q)])
    np.savetxt(path, np.column_stack([X, Y]), fmt="%d", delimiter=",", header=header,
               comments="")
    return path


def as_arff(csv: Path) -> Path:
    """The same data as a dense ARFF file (MULAN's birds is an ARFF file), binary attributes."""
    names = csv.read_text().splitlines()[0].split(",")
    rows = csv.read_text().splitlines()[1:]
    path = csv.with_suffix(".arff")
    head = ["@relation birds_like", *[f"@attribute {a} {{0,1}}" for a in names], "@data"]
    path.write_text("\n".join(head + rows) + "\n")
    return path


def timed(argv: list[str], tree: Path) -> float:
    env = {**os.environ, "PYTHONPATH": str(tree)}
    t0 = time.perf_counter()
    p = subprocess.run(argv, cwd=tree, env=env, capture_output=True, text=True)
    seconds = time.perf_counter() - t0
    if p.returncode != 0:
        raise SystemExit(f"{' '.join(argv)} failed in {tree}:\n{p.stderr}")
    return seconds


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--repeats", type=int, default=7)
    ap.add_argument("--old", type=Path, help="a checkout of the old code (default: a detached "
                                             "worktree of --commit, made and removed here)")
    ap.add_argument("--commit", default="41c22b6")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory(prefix="camcf-startup-") as tmp:
        tmp = Path(tmp)
        old = args.old
        made = False
        if old is None:
            old = tmp / "old"
            subprocess.run(["git", "-C", str(REPO), "worktree", "add", "--detach", "--quiet",
                            str(old), args.commit], check=True)
            made = True
        try:
            data = small_file(tmp)
            out = tmp / "out.json"
            py = sys.executable
            cases = {
                "import camcf": [py, "-c", "import camcf"],
                "camcf --help": [py, "-m", "camcf", "--help"],
                "camcf select (645 × 258, 19 labels)": [
                    py, "-m", "camcf", "select", str(data), "--labels", "last:19", "-o",
                    str(out)],
                "the same, an ARFF file": [
                    py, "-m", "camcf", "select", str(as_arff(data)), "--labels", "last:19",
                    "-o", str(out)],
            }
            load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
            print(f"load average at start: {load:.1f} on {os.cpu_count()} cores "
                  f"(figures under load are inflated; compare old and new of this run)")
            print(f"{'command':<40}{'old median':>12}{'new median':>12}{'old min':>10}"
                  f"{'new min':>10}{'speed-up':>10}")
            for name, argv in cases.items():
                times: dict[str, list[float]] = {"old": [], "new": []}
                for _ in range(args.repeats):
                    times["old"].append(timed(argv, old))
                    times["new"].append(timed(argv, REPO))
                mo, mn = statistics.median(times["old"]), statistics.median(times["new"])
                print(f"{name:<40}{mo:>11.3f}s{mn:>11.3f}s{min(times['old']):>9.3f}s"
                      f"{min(times['new']):>9.3f}s{mo / mn:>9.1f}×")
        finally:
            if made:
                subprocess.run(["git", "-C", str(REPO), "worktree", "remove", "--force",
                                str(old)], check=False)


if __name__ == "__main__":
    main()
