"""camcf: Ca-MCF (category-level multi-label causal feature selection) with a full decision trace.

Importing camcf is light: the names below are loaded on first use (PEP 562 module
``__getattr__``), so ``import camcf`` — and ``camcf --help`` — load none of scikit-learn, pandas,
pyarrow, Dask, Streamlit, plotly or pyvis until a function that needs them is used.
"""

from __future__ import annotations

import importlib
import importlib.util
from typing import Any

from .errors import (
    CamcfError,
    DataFormatError,
    FileAccessError,
    InvalidDataError,
    LabelSpecError,
    MissingDependencyError,
    ParameterError,
    ResourceLimitError,
)

#: public name → the module that defines it (imported when the name is first used)
_LAZY = {
    "DEFAULTS": "camcf.algorithm",
    "CamcfWarning": "camcf.algorithm",
    "run": "camcf.algorithm",
    "CaMCF": "camcf.estimator",
    "MLkNN": "camcf.evaluation.mlknn",
    "Dataset": "camcf.dataset",
    "Result": "camcf.result",
    "NotFittedError": "camcf.errors",
}

__all__ = [
    "DEFAULTS",
    "CaMCF",
    "MLkNN",
    "CamcfWarning",
    "Result",
    "run",
    "CamcfError",
    "DataFormatError",
    "Dataset",
    "FileAccessError",
    "InvalidDataError",
    "LabelSpecError",
    "MissingDependencyError",
    "NotFittedError",
    "ParameterError",
    "ResourceLimitError",
]
__version__ = "0.1.0"


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:  # a submodule (camcf.io, camcf.methods, …), imported when first used
        if not name.startswith("_") and importlib.util.find_spec(f"{__name__}.{name}"):
            return importlib.import_module(f"{__name__}.{name}")
        raise AttributeError(f"module 'camcf' has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value  # later look-ups skip this function
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))
