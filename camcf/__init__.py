"""camcf: Ca-MCF (category-level multi-label causal feature selection) with a full decision trace."""

from .algorithm import DEFAULTS, CamcfWarning, run
from .dataset import Dataset
from .errors import (
    CamcfError,
    DataFormatError,
    FileAccessError,
    InvalidDataError,
    LabelSpecError,
    NotFittedError,
    ParameterError,
    ResourceLimitError,
)
from .estimator import CaMCF
from .evaluation.mlknn import MLkNN
from .result import Result

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
    "NotFittedError",
    "ParameterError",
    "ResourceLimitError",
]
__version__ = "0.1.0"
