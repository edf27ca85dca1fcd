"""The README's doctest-style examples run as written (its "Known networks" example)."""

from __future__ import annotations

import doctest
import re
from pathlib import Path

import camcf

README = Path(__file__).resolve().parents[1] / "README.md"


def _blocks() -> list[str]:
    text = README.read_text(encoding="utf-8")
    return [b for b in re.findall(r"```python\n(.*?)```", text, flags=re.S) if ">>> " in b]


def test_the_readme_doctests_run():
    blocks = _blocks()
    assert any("networks.load" in b for b in blocks)  # the networks and truth example
    parser, runner = doctest.DocTestParser(), doctest.DocTestRunner(
        optionflags=doctest.NORMALIZE_WHITESPACE)
    for i, block in enumerate(blocks):
        test = parser.get_doctest(block, {"camcf": camcf}, f"README block {i}", str(README), 0)
        runner.run(test)
    result = runner.summarize(verbose=False)
    assert result.failed == 0 and result.attempted >= 8
