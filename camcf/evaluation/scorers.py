"""The paper's seven metrics as scikit-learn scorers.

Each scorer is ``sklearn.metrics.make_scorer`` of the metric in :mod:`camcf.evaluation.metrics`,
with the sign scikit-learn expects (``greater_is_better=False`` for Hamming loss, coverage and
ranking loss: the scorer returns minus the loss, so that higher is better everywhere) and the
classifier output the metric reads (``response_method``: ``"predict"`` for Hamming loss, subset
accuracy and the F1s, ``"predict_proba"`` — ML-kNN's posteriors, SPEC's confidence scores — for
average precision, coverage and ranking loss).

>>> from sklearn.model_selection import cross_val_score  # doctest: +SKIP
>>> cross_val_score(pipeline, X, Y, scoring=get_scorer("micro_f1"))  # doctest: +SKIP
>>> cross_validate(pipeline, X, Y, scoring=SCORERS)  # all seven  # doctest: +SKIP

They score multi-label 0/1 label matrices (the metrics' input); an estimator's
``predict_proba`` must return the (n, q) posteriors, as :class:`camcf.evaluation.MLkNN` does.
"""

from __future__ import annotations

from typing import Any

from sklearn.metrics import make_scorer

from ..errors import ParameterError
from . import metrics as _m

__all__ = ["RESPONSE_METHODS", "SCORERS", "get_scorer"]

#: The classifier output each metric reads.
RESPONSE_METHODS: dict[str, str] = {
    "hamming_loss": "predict",
    "subset_accuracy": "predict",
    "average_precision": "predict_proba",
    "coverage": "predict_proba",
    "ranking_loss": "predict_proba",
    "macro_f1": "predict",
    "micro_f1": "predict",
}

#: ``{metric name: scorer}`` for the seven metrics (the keys of :data:`METRICS`), usable as
#: ``scoring=`` in ``cross_validate`` (all of them) or one by one.
SCORERS: dict[str, Any] = {
    name: make_scorer(getattr(_m, name), greater_is_better=info["higher_is_better"],
                      response_method=RESPONSE_METHODS[name])
    for name, info in _m.METRICS.items()
}


def get_scorer(name: str) -> Any:
    """The scikit-learn scorer of one of the seven metrics.

    Parameters
    ----------
    name : str
        A key of :data:`camcf.evaluation.METRICS` (``"hamming_loss"``, …, ``"micro_f1"``).

    Returns
    -------
    scorer
        Higher is better (a loss is negated), as scikit-learn's model selection expects.
    """
    try:
        return SCORERS[name]
    except KeyError:
        raise ParameterError(f"unknown metric {name!r}; known: {', '.join(SCORERS)}",
                             name="scoring", value=name, allowed=list(SCORERS)) from None
