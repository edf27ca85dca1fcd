"""Readers for multi-label data files: ARFF (dense/sparse, MULAN/MEKA), MATLAB, CSV."""

from .arff import load_arff
from .csv import load_csv
from .load import check_runnable, load, load_bytes, load_train_test, variable_choices_bytes
from .matlab import load_matlab, variable_choices
from .mulan import parse_mulan_xml, read_mulan_xml

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
