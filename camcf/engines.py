"""The engines :func:`camcf.run` can use, by name: ``run(..., engine=NAME)``.

Each entry is a class implementing :class:`camcf.info.Engine` with the constructor of
:class:`camcf.info.EngineBase`: ``Engine(X, C, *, tables=None, **shared)``, ``shared`` being
what its :meth:`~camcf.info.EngineBase.shared` returns for the run's codes ``X`` and category
indicators ``C``. An engine added here is accepted by :func:`camcf.run`; its decisions must be
those of :class:`camcf.info.ReferenceEngine` (``tests/test_algorithm.py`` compares them).
"""

from __future__ import annotations

from .fast_engine import FastEngine
from .info import EngineBase, ReferenceEngine

#: name -> engine class
ENGINES: dict[str, type[EngineBase]] = {"fast": FastEngine, "reference": ReferenceEngine}

__all__ = ["ENGINES"]
