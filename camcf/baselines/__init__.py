"""The other feature-selection methods (the paper's baselines) and the references.

The classes are loaded on first use (``camcf.baselines.JFSC``), so importing this package — or
:mod:`camcf.baselines.params`, the methods' parameter declarations — does not import
scikit-learn.
"""

from __future__ import annotations

import importlib
from typing import Any

_LAZY = {"D2F": "d2f", "FIMF": "fimf", "JFSC": "jfsc", "MCLS": "mcls", "MDFS": "mdfs",
         "MIMCF": "mimcf"}

__all__ = sorted(_LAZY)


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'camcf.baselines' has no attribute {name!r}")
    return getattr(importlib.import_module(f".{module}", __name__), name)
