"""The Ca-MCF paper's published results, as data (facts and figures, cited).

Source: the paper's LaTeX (``paper/ca-mcf-paper.tex``), its seven result tables (eight methods
× seven data sets; captions "HAMMING LOSS FOR EIGHT ALGORITHMS ON SEVEN DATASETS" …) and its
Table "Friedman statistics". ``benchmarks/paper_friedman.py`` recomputes the Friedman statistics
from these tables. Nothing here is computed: a test checks the values against the LaTeX source
when it is present.
"""

from __future__ import annotations

from typing import Any

__all__ = ["DEFAULTS_ROW", "PAPER_COLUMNS", "PAPER_DATA_SETS", "PAPER_GRID", "PAPER_KNN",
           "PAPER_PARAMS", "TUNE_METRIC", "PAPER_CRITICAL_VALUE", "PAPER_FRIEDMAN", "PAPER_NAME",
           "PAPER_TABLES", "paper_column", "paper_value"]

#: The paper's data set columns, in its order.
PAPER_COLUMNS = ("Flags", "VirusGO", "CHD_49", "PlantGO", "Enron", "Image", "Yeast")

#: ``{metric: {method: values in PAPER_COLUMNS order}}`` (method: :mod:`camcf.methods` names;
#: the LaTeX label of each table in the comment).
PAPER_TABLES: dict[str, dict[str, tuple[float, ...]]] = {
    "hamming_loss": {  # \label{tab:hl}
        "camcf": (0.2481, 0.0373, 0.2727, 0.0318, 0.0470, 0.1740, 0.1919),
        "mi-mcf": (0.2926, 0.0482, 0.3065, 0.0429, 0.0492, 0.2056, 0.2035),
        "m2lc": (0.3041, 0.0658, 0.3042, 0.0499, 0.0506, 0.1912, 0.1934),
        "d2f": (0.2981, 0.0571, 0.3235, 0.0471, 0.1097, 0.2243, 0.2301),
        "mdfs": (0.2788, 0.0570, 0.3051, 0.0456, 0.0505, 0.1827, 0.1908),
        "jfsc": (0.3221, 0.0593, 0.2877, 0.0395, 0.0482, 0.2034, 0.1946),
        "fimf": (0.2794, 0.0752, 0.3436, 0.0804, 0.0833, 0.2129, 0.2416),
        "mcls": (0.2707, 0.0855, 0.3095, 0.0473, 0.0544, 0.2620, 0.2167),
    },
    "subset_accuracy": {  # \label{tab:oe}
        "camcf": (0.2105, 0.8290, 0.2000, 0.7526, 0.2468, 0.4600, 0.2066),
        "mi-mcf": (0.1290, 0.7500, 0.1654, 0.6647, 0.2305, 0.3427, 0.1612),
        "m2lc": (0.0645, 0.6711, 0.1475, 0.5958, 0.2377, 0.4589, 0.1688),
        "d2f": (0.1256, 0.6964, 0.1873, 0.7015, 0.1763, 0.2157, 0.0711),
        "mdfs": (0.1935, 0.7500, 0.1420, 0.6107, 0.2250, 0.3967, 0.1814),
        "jfsc": (0.1359, 0.7205, 0.1637, 0.6481, 0.2761, 0.4796, 0.1671),
        "fimf": (0.1418, 0.6635, 0.0996, 0.4500, 0.1925, 0.3505, 0.0982),
        "mcls": (0.1053, 0.6053, 0.1250, 0.5567, 0.2232, 0.2850, 0.1240),
    },
    "average_precision": {  # \label{tab:ap}
        "camcf": (0.8158, 0.9605, 0.8001, 0.8746, 0.4169, 0.7978, 0.7877),
        "mi-mcf": (0.7934, 0.9599, 0.7778, 0.8574, 0.4153, 0.7319, 0.7494),
        "m2lc": (0.7783, 0.8846, 0.7808, 0.8509, 0.4114, 0.7636, 0.7593),
        "d2f": (0.8026, 0.8997, 0.7841, 0.9013, 0.3877, 0.6135, 0.7112),
        "mdfs": (0.8186, 0.9313, 0.7855, 0.8416, 0.4899, 0.7637, 0.7637),
        "jfsc": (0.7961, 0.9339, 0.8094, 0.8665, 0.3723, 0.8019, 0.7512),
        "fimf": (0.7990, 0.8976, 0.7474, 0.7268, 0.2459, 0.7178, 0.6962),
        "mcls": (0.7554, 0.9248, 0.7912, 0.8249, 0.3875, 0.6290, 0.7632),
    },
    "coverage": {  # \label{tab:cv}
        "camcf": (0.5000, 0.0474, 0.5273, 0.0487, 0.2892, 0.2250, 0.4507),
        "mi-mcf": (0.6479, 0.0500, 0.5440, 0.0523, 0.2880, 0.3021, 0.5011),
        "m2lc": (0.5737, 0.0724, 0.4763, 0.0479, 0.2768, 0.2124, 0.4583),
        "d2f": (0.6034, 0.0569, 0.4322, 0.0432, 0.6011, 0.3129, 0.5532),
        "mdfs": (0.5438, 0.0482, 0.4599, 0.0501, 0.2847, 0.2092, 0.4527),
        "jfsc": (0.5489, 0.0718, 0.4677, 0.0567, 0.2459, 0.2010, 0.4502),
        "fimf": (0.5348, 0.1019, 0.4927, 0.1185, 0.4446, 0.2502, 0.5100),
        "mcls": (0.5351, 0.0658, 0.5679, 0.0712, 0.2975, 0.4013, 0.4647),
    },
    "ranking_loss": {  # \label{tab:rl}
        "camcf": (0.1474, 0.0214, 0.1702, 0.0403, 0.1395, 0.1700, 0.1435),
        "mi-mcf": (0.2352, 0.0230, 0.2159, 0.0471, 0.1376, 0.2348, 0.1789),
        "m2lc": (0.2432, 0.0595, 0.2289, 0.0465, 0.1762, 0.1969, 0.1714),
        "d2f": (0.2115, 0.0497, 0.2310, 0.0375, 0.2217, 0.3825, 0.1974),
        "mdfs": (0.2191, 0.0319, 0.2155, 0.0489, 0.1758, 0.1967, 0.1669),
        "jfsc": (0.2231, 0.0348, 0.2098, 0.0467, 0.1582, 0.2105, 0.1772),
        "fimf": (0.2654, 0.0796, 0.2959, 0.1645, 0.3815, 0.2838, 0.2712),
        "mcls": (0.2097, 0.0382, 0.2093, 0.0627, 0.1432, 0.3454, 0.1605),
    },
    "macro_f1": {  # \label{tab:macrof1}
        "camcf": (0.6751, 0.9012, 0.5705, 0.6777, 0.6671, 0.6089, 0.4870),
        "mi-mcf": (0.5955, 0.7277, 0.5359, 0.5513, 0.6312, 0.5257, 0.3457),
        "m2lc": (0.5404, 0.6796, 0.3517, 0.5228, 0.6258, 0.5465, 0.3729),
        "d2f": (0.5101, 0.5269, 0.4484, 0.5762, 0.6078, 0.2559, 0.2792),
        "mdfs": (0.6119, 0.7168, 0.4458, 0.6585, 0.6294, 0.5738, 0.3923),
        "jfsc": (0.4827, 0.5955, 0.4550, 0.5185, 0.6017, 0.5157, 0.3416),
        "fimf": (0.5997, 0.5779, 0.4550, 0.3715, 0.2205, 0.5025, 0.3020),
        "mcls": (0.3389, 0.5238, 0.3056, 0.3898, 0.5741, 0.4262, 0.4173),
    },
    "micro_f1": {  # \label{tab:microf1}
        "camcf": (0.7180, 0.9061, 0.7321, 0.8103, 0.6686, 0.6063, 0.7027),
        "mi-mcf": (0.6983, 0.8721, 0.6935, 0.7433, 0.6479, 0.5174, 0.6235),
        "m2lc": (0.6959, 0.8256, 0.6354, 0.6951, 0.6383, 0.5400, 0.6428),
        "d2f": (0.6592, 0.8493, 0.6014, 0.7293, 0.3211, 0.2519, 0.7083),
        "mdfs": (0.7125, 0.8433, 0.6557, 0.7320, 0.6321, 0.5698, 0.6572),
        "jfsc": (0.7147, 0.8049, 0.6648, 0.7129, 0.6035, 0.5161, 0.6274),
        "fimf": (0.7156, 0.8191, 0.6263, 0.5546, 0.2644, 0.5046, 0.5672),
        "mcls": (0.6786, 0.7417, 0.6177, 0.6857, 0.5970, 0.4564, 0.6694),
    },
}

#: The paper's Table "Friedman statistics" (Iman–Davenport F_F, k = 8 methods, N = 7 data sets).
PAPER_FRIEDMAN = {"hamming_loss": 9.0954, "subset_accuracy": 6.7741,
                  "average_precision": 5.4545, "coverage": 2.4924, "ranking_loss": 7.3060,
                  "macro_f1": 9.7903, "micro_f1": 6.2988}
#: The critical value printed with it (α = 0.05).
PAPER_CRITICAL_VALUE = 2.2371

#: Which paper column each shared data set (:data:`camcf.catalog.CATALOG`) stands for.
PAPER_NAME = {"flags": "Flags", "flags-mat": "Flags", "virusgo": "VirusGO", "chd49": "CHD_49",
              "plantgo": "PlantGO", "enron": "Enron", "image": "Image", "yeast": "Yeast",
              "yeast-split": "Yeast"}


# The reproduction's settings, as the paper states them ("Parameter Settings"); here, not in
# camcf.evaluation.reproduction, so that `camcf reproduce --help` loads no numpy stack.
#: The shared data sets standing for the paper's seven columns (Image: a 600-row subset).
PAPER_DATA_SETS = ("flags", "virusgo", "chd49", "plantgo", "enron", "image", "yeast")
#: The paper's grid: "a grid search within the range [0.1, 1]" for k1 and k2.
PAPER_GRID: dict[str, list[float]] = {"k1": [0.1, 0.4, 0.7, 1.0], "k2": [0.1, 0.4, 0.7, 1.0]}
#: δ1 and δ2 "adaptively tuned based on the category-specific mutual information scores".
PAPER_PARAMS: dict[str, Any] = {"delta1": "auto", "delta2": "auto"}
#: ML-kNN as the paper ran it: k = 10, s = 1, Hamming distance, the authors' neighbours.
PAPER_KNN: dict[str, Any] = {"k": 10, "s": 1.0, "distance": "hamming", "neighbours": "authors"}
#: The row of Ca-MCF at its declared defaults (the tuned Ca-MCF is the row ``camcf``).
DEFAULTS_ROW = "camcf-defaults"
#: How the tuner scores a grid point (:func:`camcf.tuning.tune`'s default).
TUNE_METRIC = "micro_f1"


def paper_column(name: str) -> str | None:
    """The paper's column for a data set name (a shared set's name, or a file stem such as
    ``CHD_49`` or ``yeast-train``: compared without case, ``_`` and ``-``), or None."""
    if name in PAPER_NAME:
        return PAPER_NAME[name]
    plain = "".join(c for c in name.lower() if c.isalnum())
    for col in PAPER_COLUMNS:
        key = "".join(c for c in col.lower() if c.isalnum())
        if plain == key or plain.startswith(key):
            return col
    return None


def paper_value(metric: str, method: str, column: str) -> float | None:
    """The paper's value of ``metric`` for ``method`` on data set ``column`` (None when the
    paper has none: another method, another data set)."""
    row = PAPER_TABLES.get(metric, {}).get(method)
    if row is None or column not in PAPER_COLUMNS:
        return None
    return row[PAPER_COLUMNS.index(column)]
