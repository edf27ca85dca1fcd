"""The study pages' protocol and ML-kNN widgets, drawn from the evaluation's declarations.

Each widget is one declared setting (:data:`camcf.evaluation.settings.EVAL_PARAMS`,
:data:`~camcf.evaluation.settings.KNN_PARAMS`): a choice offers the declaration's options, a
number the range every user interface offers (:meth:`camcf.params.Param.ui_range`); the help is
the declaration's. The values come back as one mapping named as the studies take them
(:mod:`camcf.studies`).
"""

from __future__ import annotations

from typing import Any

import streamlit as st

from camcf.evaluation.settings import EVAL_PARAMS, KNN_PARAMS, PROTOCOL_SETTINGS, PROTOCOLS
from camcf.params import Param
from pages import _state as S
from pages._common import number_field

#: the labels the pages show (the declarations' names are the studies' keys)
LABELS = {"protocol": "Protocol", "n_repeats": "Repeats (repeated hold-out)",
          "n_folds": "Folds (k-fold)", "test_size": "Test share", "seed": "Seed",
          "k": "ML-kNN k", "s": "ML-kNN smoothing s", "distance": "ML-kNN distance",
          "neighbours": "Training neighbours"}
#: how a choice's options are shown
SHOWN = {"protocol": PROTOCOLS.get}
#: the declarations by name
DECLARED: dict[str, Param] = {p.name: p for p in (*EVAL_PARAMS, *KNN_PARAMS)}


def setting_widget(p: Param, key: S.Key, *, where=None, label: str | None = None) -> Any:
    """One widget for setting ``p``, its value under ``key``."""
    where = where or st
    label = label or LABELS.get(p.name, p.label)
    if p.options is not None:
        key.init()
        return where.selectbox(label, list(p.options), key=key.name, help=p.help,
                               format_func=SHOWN.get(p.name, str))
    return number_field(p, key, label=label, where=where)


def study_settings(keys: dict[str, S.Key], columns: list) -> dict[str, Any]:
    """The widgets of the settings in ``keys`` (``{setting name: Key}``), spread over
    ``columns`` in pairs (the protocol and its settings first, ML-kNN's last); returns
    ``{setting name: value}``. Only the chosen protocol's settings are offered
    (:data:`camcf.evaluation.settings.PROTOCOL_SETTINGS`); the others keep the value they
    last had (else their default)."""
    out: dict[str, Any] = {}
    protocol_settings = {p.name for p in EVAL_PARAMS} - {"protocol"}
    i = 0
    for name, key in keys.items():
        if name in protocol_settings and name not in PROTOCOL_SETTINGS[out["protocol"]]:
            value = key.get()
            if value is not None:  # kept: Streamlit drops the state of a widget not drawn
                key.set(value)
            out[name] = DECLARED[name].validate(DECLARED[name].default if value is None
                                                else value)
            continue
        where = columns[min(len(columns) - 1, (i + 1) // 2)]
        value = setting_widget(DECLARED[name], key, where=where)
        out[name] = DECLARED[name].validate(value)
        i += 1
    return out
