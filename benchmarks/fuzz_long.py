"""Long fuzz run (not part of the test suite): many more mutated files and hostile arguments.

1. Runs tests/test_fuzz.py with ``CAMCF_FUZZ_EXAMPLES`` examples per test (default 500) and
   randomised hypothesis seeds;
2. runs the real ``camcf`` command (a subprocess per case, as a user would) on mutated seed files
   and checks: exit code 0, 2 or 3; on failure exactly one line on stderr and no traceback; an
   existing output file untouched by a failed run, and valid strict JSON after a successful one.

Prints the figures (cases, outcomes by exit code and error kind, seconds). Usage::

    .venv/bin/python benchmarks/fuzz_long.py [--examples 500] [--cli-cases 150]
"""

from __future__ import annotations

import argparse
import collections
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))


def run_property_suite(examples: int) -> float:
    env = dict(os.environ, CAMCF_FUZZ_EXAMPLES=str(examples), CAMCF_FUZZ_RANDOM="1")
    t0 = time.perf_counter()
    rc = subprocess.call([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
                          str(ROOT / "tests" / "test_fuzz.py")], env=env, cwd=ROOT)
    if rc != 0:
        raise SystemExit(f"the fuzz suite failed with {examples} examples per test (exit {rc})")
    return time.perf_counter() - t0


def run_cli_cases(n_cases: int) -> tuple[collections.Counter, float]:
    import test_fuzz  # the seeds and the mutation strategy of the test suite

    counts: collections.Counter = collections.Counter()
    seeds = sorted(test_fuzz.SEEDS)
    tmp = Path(tempfile.mkdtemp(prefix="camcf-fuzz-"))
    t0 = time.perf_counter()

    @settings(max_examples=n_cases, deadline=None, database=None,
              suppress_health_check=list(HealthCheck))
    @given(st.data())
    def case(data):
        name = data.draw(st.sampled_from(seeds))
        raw, filename, labels = test_fuzz.SEEDS[name]
        blob = data.draw(test_fuzz.mutated(raw))
        cmd = data.draw(st.sampled_from(["info", "select"]))
        f = tmp / filename
        f.write_bytes(blob)
        out = tmp / "out.json"
        out.write_text("previous\n")
        argv = [sys.executable, "-m", "camcf", cmd, str(f), "-o", str(out)]
        if labels:
            argv += ["--labels", str(labels)]
        p = subprocess.run(argv, capture_output=True, text=True, timeout=600,
                           env=dict(os.environ, CAMCF_MEMORY_LIMIT="512M"))
        err = p.stderr.strip()
        assert p.returncode in (0, 2, 3), (p.returncode, err[-2000:])
        assert "Traceback" not in p.stderr, p.stderr[-2000:]
        if p.returncode == 0:
            json.loads(out.read_text(), parse_constant=lambda c: 1 / 0)
            counts["exit 0"] += 1
        else:
            assert err.count("\n") == 0, err
            assert out.read_text() == "previous\n"
            kind = err.split(":")[2].strip() if err.count(":") >= 2 else err
            counts[f"exit {p.returncode}"] += 1
            counts[f"  {kind[:40]}"] += 0  # the file name varies; count by exit code only

    case()
    return counts, time.perf_counter() - t0


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--examples", type=int, default=500)
    ap.add_argument("--cli-cases", type=int, default=150)
    args = ap.parse_args()
    s1 = run_property_suite(args.examples)
    print(f"property suite: {args.examples} examples per test, green, {s1:.1f} s")
    counts, s2 = run_cli_cases(args.cli_cases)
    print(f"CLI on mutated files: {args.cli_cases} cases in {s2:.1f} s "
          f"({s2 / max(args.cli_cases, 1):.2f} s per case)")
    for k in ("exit 0", "exit 2", "exit 3"):
        print(f"  {k}: {counts.get(k, 0)}")
    print("every case: a result or one line and exit 2/3, no traceback, no output lost")


if __name__ == "__main__":
    main()
