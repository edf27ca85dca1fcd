"""JFSC's ``variant="reproduction"`` against the public code it follows, run under Octave.

Needs Octave with its statistics package (``pdist2``) and a checkout of the public code
(GitHub ``Sasworld/JFSC``; nothing of it is in this repository). For each seeded problem
(integer feature codes, 0/1 labels, the public driver's settings: a column of ones appended, the
Flags and Yeast parameter rows) it runs that code's ``JFSC.m`` and
:func:`camcf.baselines.jfsc.jfsc_solve` and prints the largest difference of W, whether the
rankings (squared row norms, bias row dropped) are equal, and the top-10 overlap — and, beside
them, how much W moves in camcf's own run when X is scaled by 1 + 10⁻¹⁵ ("rounding"): where that
is large the public code's iteration amplifies rounding (its step 1/Lip is fixed from the first
D while D = 1/‖residual‖ grows), so no two implementations agree there beyond that size.

    .venv/bin/python benchmarks/check_jfsc_octave.py --code PATH/TO/JFSC [--problems 6]
"""

from __future__ import annotations

import argparse
import shutil
import subprocess
import tempfile
from pathlib import Path

import numpy as np
import scipy.io

from camcf.baselines.jfsc import jfsc_solve

ROWS = {"flags": (1.0, 2.0 ** -8, 2.0, 1.0), "yeast": (2.0 ** -2, 2.0 ** -8, 2.0 ** -1, 10.0)}

DRIVER = """
pkg load statistics
addpath('{code}');
load('{data}');
opt.lambda1 = {l1}; opt.lambda2 = {l2}; opt.lambda3 = {l3}; opt.gamma = {g};
opt.maxIter = 100; opt.minimumLossMargin = 0.0001;
W = JFSC([X, ones(size(X, 1), 1)], Y, opt);
save('-mat7-binary', '{out}', 'W');
"""


KINDS = ("tall", "wide (n < m)", "sparse (≤ 10 % non-zero)", "a constant label")


def problem(seed: int) -> tuple[np.ndarray, np.ndarray]:
    """Seed mod 4 picks the kind: tall, wide (n < m: the n × n route), sparse (the CSR route),
    or with a label that is 1 everywhere (NaN in the public code's S_k)."""
    rng = np.random.default_rng(seed)
    kind = KINDS[seed % 4]
    n = int(rng.integers(60, 200)) if kind != KINDS[1] else int(rng.integers(30, 60))
    m = int(rng.integers(8, 40)) if kind != KINDS[1] else int(rng.integers(70, 120))
    q = int(rng.integers(2, 7))
    X = rng.integers(0, 3, size=(n, m)).astype(float)
    if kind == KINDS[2]:
        m = 150
        X = rng.integers(1, 3, size=(n, m)) * (rng.random((n, m)) < 0.06)
    Y = np.zeros((n, q))
    for i in range(q):
        a, b = rng.choice(m, size=2, replace=False)
        Y[:, i] = ((X[:, a] + X[:, b]) >= 2 + (i % 2)) ^ (rng.random(n) < 0.1)
    if kind == KINDS[3]:
        Y[:, -1] = 1
    return X.astype(float), Y


def ranking(W: np.ndarray) -> np.ndarray:
    scores = np.einsum("ij,ij->i", W[:-1], W[:-1])
    return np.argsort(-scores, kind="stable")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--code", type=Path, required=True, help="checkout of Sasworld/JFSC")
    ap.add_argument("--problems", type=int, default=6)
    args = ap.parse_args()
    octave = shutil.which("octave") or shutil.which("octave-cli")
    if octave is None:
        raise SystemExit("octave not found: apt-get install octave octave-statistics")
    print(f"{'problem':<22}{'row':<7}{'max |ΔW|':>12}{'rounding':>11}{'max |W|':>10}"
          f"{'same ranking':>14}{'top-10':>8}")
    with tempfile.TemporaryDirectory(prefix="camcf-jfsc-") as tmp:
        tmp = Path(tmp)
        for seed in range(args.problems):
            X, Y = problem(seed)
            data = tmp / f"p{seed}.mat"
            scipy.io.savemat(data, {"X": X, "Y": Y})
            for row, (l1, l2, l3, g) in ROWS.items():
                out = tmp / f"w{seed}{row}.mat"
                script = DRIVER.format(code=args.code.resolve(), data=data, out=out, l1=l1,
                                       l2=l2, l3=l3, g=g)
                p = subprocess.run([octave, "--no-gui", "--quiet", "--eval", script],
                                   capture_output=True, text=True)
                if p.returncode != 0 or not out.exists():
                    raise SystemExit(f"octave failed on problem {seed}:\n{p.stderr}")
                W_oct = scipy.io.loadmat(out)["W"]
                W, _ = jfsc_solve(X, Y, lambda1=l1, lambda2=l2, lambda3=l3, gamma=g,
                                  variant="reproduction")
                W_eps, _ = jfsc_solve(X * (1 + 1e-15), Y, lambda1=l1, lambda2=l2, lambda3=l3,
                                      gamma=g, variant="reproduction")
                ra, rb = ranking(W_oct), ranking(W)
                top = len(set(ra[:10]) & set(rb[:10]))
                name = f"{seed}: {X.shape[0]}×{X.shape[1]}, q={Y.shape[1]}"
                if row == "flags":
                    print(f"# problem {seed}: {KINDS[seed % 4]}")
                print(f"{name:<22}{row:<7}{np.nanmax(np.abs(W - W_oct)):>12.2e}"
                      f"{np.nanmax(np.abs(W - W_eps)):>11.2e}{np.abs(W_oct).max():>10.3f}{str(bool((ra == rb).all())):>14}"
                      f"{top:>8}")


if __name__ == "__main__":
    main()
