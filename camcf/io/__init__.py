"""Readers for multi-label data files: ARFF (dense/sparse, MULAN/MEKA), MATLAB, CSV.

Each reader's own names are imported on first use (PEP 562), so that reading one kind of file
loads only its reader (the MATLAB reader needs scipy.io and scipy.sparse, the CSV reader pandas).
"""

from __future__ import annotations

import importlib
from typing import Any

from .load import check_runnable, load, load_bytes, load_train_test, variable_choices_bytes
from .mulan import parse_mulan_xml, read_mulan_xml

_LAZY = {
    "load_arff": "arff",
    "load_csv": "csv",
    "load_matlab": "matlab",
    "variable_choices": "matlab",
}

__all__ = [
    "check_runnable",
    "load",
    "load_arff",
    "load_bytes",
    "load_csv",
    "load_matlab",
    "load_train_test",
    "parse_mulan_xml",
    "read_mulan_xml",
    "variable_choices",
    "variable_choices_bytes",
]


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        return getattr(importlib.import_module(f"{__name__}.{_LAZY[name]}"), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))
