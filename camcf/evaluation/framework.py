"""The evaluation API as it was before it was split by concern — kept only for its last callers.

``camcf/evaluation/command.py`` and ``camcf/evaluation/compare_command.py`` (being moved into the
CLI package) still call these signatures (four ML-kNN keywords, protocol keywords, an
``ablation`` that returns a frame and fills a ``selections`` list). Each function here is a thin
translation to the current API (:mod:`camcf.evaluation`): a splitter object
(:func:`~camcf.evaluation.make_splitter`), one ``knn`` mapping, :func:`~camcf.evaluation.evaluate`.
Delete this module when those callers use the current API.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import pandas as pd

from ..algorithm_params import DISCRETIZE_PARAMS, by_name
from ..discretizer import Discretizer
from .folds import Fold, binarize_labels
from .folds import make_folds as _make_folds
from .running import KnnCache, evaluate
from .settings import EVAL_DEFAULTS as _E
from .settings import KNN_DEFAULTS as _K
from .splits import make_splits, make_splitter
from .studies import ABLATION_SETS
from .studies import ablation as _ablation
from .studies import compare_data_sets as _compare_data_sets
from .summaries import friedman_over_data_sets, summarise

_DISC = by_name(DISCRETIZE_PARAMS)

__all__ = ["Discretizer", "KnnCache", "ablation", "binarize_labels", "compare_data_sets",
           "evaluate_feature_sets", "folds_for", "friedman_over_data_sets", "make_folds",
           "make_splits", "summarise"]


class _Given:
    """A given list of ``(train, test)`` pairs as a splitter named ``protocol``."""

    def __init__(self, splits, protocol: str) -> None:
        self.splits, self.protocol = list(splits), protocol

    def split(self, X=None, y=None, groups=None):
        return iter(self.splits)

    def get_n_splits(self, X=None, y=None, groups=None) -> int:
        return len(self.splits)


def make_folds(X, Y, splits=None, *, protocol: str = _E["protocol"], **kwargs: Any
               ) -> list[Fold]:
    """``make_folds(X, Y, cv)`` with a list of splits named by ``protocol``."""
    return _make_folds(X, Y, None if splits is None else _Given(splits, protocol), **kwargs)


def _knn(**knn: Any) -> dict:
    return {**_K, **knn}


def ablation(folds: Sequence[Fold], params: Mapping[str, Any] | None = None, *,
             feature_sets: Sequence[str] = ABLATION_SETS, k: int = _K["k"],
             s: float = _K["s"], distance: str = _K["distance"],
             neighbours: str = _K["neighbours"],
             cache: KnnCache | None = None, n_jobs: int = 1, progress=None,
             selections: list | None = None) -> pd.DataFrame:
    """The frame of :func:`camcf.evaluation.ablation`; ``selections`` is extended with its
    ``sets``."""
    ev = _ablation(folds, params, sets=feature_sets,
                   knn=_knn(k=k, s=s, distance=distance, neighbours=neighbours),
                   cache=cache, n_jobs=n_jobs, progress=progress)
    if selections is not None:
        selections.extend(dict(named) for named in ev.sets)
    return ev.frame


def evaluate_feature_sets(folds: Sequence[Fold], feature_sets: Mapping[str, Sequence[int]], *,
                          cache: KnnCache | None = None, n_jobs: int = 1, progress=None,
                          **knn: Any) -> pd.DataFrame:
    """The frame of ``evaluate(folds, sets=feature_sets, knn=...)``."""
    return evaluate(folds, sets=feature_sets, knn=_knn(**knn), cache=cache, n_jobs=n_jobs,
                    progress=progress).frame


def _cv(protocol: str, n_repeats: int, test_size: float, n_folds: int, seed: int):
    return make_splitter(protocol, n_repeats=n_repeats, test_size=test_size, n_folds=n_folds,
                         seed=seed)


def folds_for(X, Y, *, protocol: str = _E["protocol"], n_repeats: int = _E["n_repeats"],
              test_size: float = _E["test_size"], n_folds: int = _E["n_folds"],
              seed: int = _E["seed"], X_test=None, Y_test=None,
              discretize: str | None = _DISC["discretize"].default,
              bins: int = _DISC["bins"].default,
              strategy: str = _DISC["strategy"].default) -> list[Fold]:
    """``make_folds(X, Y, make_splitter(protocol, ...))`` (or the given pair)."""
    disc = {"discretize": discretize, "bins": bins, "strategy": strategy}
    if X_test is not None or Y_test is not None:
        from ..errors import ParameterError

        if protocol not in ("holdout", None):
            raise ParameterError(f"protocol {protocol!r} resamples one data set; a given "
                                 "train/test pair is the 'holdout' protocol")
        return _make_folds(X, Y, X_test=X_test, Y_test=Y_test, **disc)
    return _make_folds(X, Y, _cv(protocol, n_repeats, test_size, n_folds, seed), **disc)


def compare_data_sets(data: Mapping[str, tuple], methods, *, protocol: str = _E["protocol"],
                      n_repeats: int = _E["n_repeats"], test_size: float = _E["test_size"],
                      n_folds: int = _E["n_folds"], seed: int = _E["seed"], discretize: str | None = _DISC["discretize"].default,
                      bins: int = _DISC["bins"].default,
                      strategy: str = _DISC["strategy"].default, n_features="match",
                      reference: str = "camcf",
                      k: int = _K["k"], neighbours: str = _K["neighbours"], n_jobs: int = 1,
                      progress=None):
    """:func:`camcf.evaluation.compare_data_sets` with protocol and ML-kNN keywords."""
    return _compare_data_sets(
        data, methods, _cv(protocol, n_repeats, test_size, n_folds, seed),
        discretize=discretize, bins=bins, strategy=strategy, n_features=n_features,
        reference=reference, knn={"k": k, "neighbours": neighbours}, n_jobs=n_jobs,
        progress=progress)


