"""Study functions for the job runner's tests (module level, so a worker process can import
them)."""

from __future__ import annotations

import os
import subprocess
import sys
import time

from camcf.errors import CamcfError


def count(n: int, seconds: float, progress=None) -> dict:
    """n units of ``seconds`` each."""
    for i in range(n):
        time.sleep(seconds)
        progress(i + 1, n, f"unit {i + 1}")
    return {"units": n, "pid": os.getpid()}


def fail(progress=None):
    progress(1, 3, "first unit")
    raise CamcfError("the labels are all zero: give at least one positive label")


def crash(progress=None):
    raise ValueError("an unexpected bug")


def burn(seconds: float, pid_file: str | None = None, progress=None) -> int:
    """A long unit that never calls progress: a Python loop on one core (and, with
    ``pid_file``, a child process burning another core, its pid written to the file)."""
    if pid_file:
        child = subprocess.Popen([sys.executable, "-c", "while True: pass"])
        with open(pid_file, "w") as fh:
            fh.write(str(child.pid))
    t0 = time.time()
    x = 0
    while time.time() - t0 < seconds:
        x += 1
    return x


def slow_selection(X, Y, *, params, progress=None, **names):
    """``camcf.studies.run_selection`` after 40 units of 0.25 s each (reported as its progress
    over 40 steps): a main run long enough to be watched and stopped."""
    from camcf.studies import run_selection

    for i in range(40):
        time.sleep(0.25)
        progress(i + 1, 40, f"unit {i + 1}")
    return run_selection(X, Y, params=params, **names)


def cells(n: int, seconds: float, last: float = 0.0, progress=None) -> dict:
    """n cells of ``seconds`` each, every finished one handed over (``camcf.jobs.checkpoint``)
    before its progress; the last one lasts ``last`` seconds more without calling back."""
    from camcf.jobs import checkpoint

    done = {}
    for i in range(n):
        time.sleep(seconds + (last if i == n - 1 else 0.0))
        done[i] = i * i
        checkpoint(progress, dict(done))
        progress(i + 1, n, f"cell {i + 1}")
    return done
