"""What a subcommand returns: the files to write and the lines to print (``main`` does both)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

__all__ = ["Outcome"]


@dataclass
class Outcome:
    """The result of one subcommand's ``run(args)``.

    ``main`` writes ``payload`` as strict JSON (or ``text``, JSON already built) to ``path``
    and each of ``files`` (``{path: text}``), every one atomically (:mod:`camcf.output`), then
    prints ``summary`` on stdout unless ``--quiet`` and each of ``warnings`` on stderr.
    """

    path: str | None = None
    payload: Any = None
    text: str | None = None
    files: dict[str, str] = field(default_factory=dict)
    summary: str = ""
    warnings: list[str] = field(default_factory=list)
