"""Lines of code of the counting engine: non-blank, non-comment lines (tokenize), with and
without docstrings, of files at a git revision (issue 32's "≤ 1,500 lines" figure).

    python benchmarks/count_lines.py                      # camcf/engine/*.py at HEAD
    python benchmarks/count_lines.py --rev 4ec1067 camcf/info.py camcf/fast_engine.py ...
"""

from __future__ import annotations

import argparse
import ast
import io
import subprocess
import tokenize
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
_SKIP = {tokenize.COMMENT, tokenize.NL, tokenize.NEWLINE, tokenize.INDENT, tokenize.DEDENT,
         tokenize.ENDMARKER}


def count(src: str) -> tuple[int, int]:
    """(lines holding code or docstrings, lines holding code) of a Python source."""
    lines: set[int] = set()
    for tok in tokenize.generate_tokens(io.StringIO(src).readline):
        if tok.type not in _SKIP:
            lines.update(range(tok.start[0], tok.end[0] + 1))
    docs: set[int] = set()
    for node in ast.walk(ast.parse(src)):
        body = getattr(node, "body", None)
        if isinstance(node, ast.Module | ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef) \
                and body and isinstance(body[0], ast.Expr) \
                and isinstance(body[0].value, ast.Constant) and isinstance(body[0].value.value, str):
            docs.update(range(body[0].lineno, body[0].end_lineno + 1))
    return len(lines), len(lines - docs)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rev", default="HEAD")
    ap.add_argument("files", nargs="*")
    args = ap.parse_args()
    files = args.files or subprocess.run(
        ["git", "ls-tree", "--name-only", args.rev, "camcf/engine/"], cwd=REPO,
        capture_output=True, text=True, check=True).stdout.split()
    total = [0, 0]
    for f in (f for f in files if f.endswith(".py")):
        src = subprocess.run(["git", "show", f"{args.rev}:{f}"], cwd=REPO, capture_output=True,
                             text=True, check=True).stdout
        a, b = count(src)
        total[0], total[1] = total[0] + a, total[1] + b
        print(f"{f}: {a:,} ({b:,} without docstrings)")
    print(f"total at {args.rev}: {total[0]:,} lines ({total[1]:,} without docstrings)")


if __name__ == "__main__":
    main()
