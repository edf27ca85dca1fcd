"""Reports of evaluations and comparisons as data: the JSON documents and tables that the
command line writes and the app offers for download.

* :func:`evaluation_report` — ML-kNN on Ca-MCF's selection (made on each training part) or on
  given features, against all features: the payload of ``camcf evaluate``;
* :func:`comparison_report` — several methods on the same splits of one or more data sets: the
  payload and the summary table of ``camcf compare``;
* :func:`comparison_payload`, :func:`comparison_frame` — those two from
  :func:`camcf.evaluation.compare_data_sets`'s result (the Compare page uses them too);
* :func:`method_table` — registry names → fresh selectors.

Every setting a report states is the one that was used: the ML-kNN settings are validated and
completed with their defaults (:func:`knn_settings`, i.e. :func:`camcf.evaluation.check_knn`)
and passed in full, and a comparison's are read back from each
:class:`~camcf.evaluation.Comparison`. The protocol's keywords are those of
:data:`camcf.evaluation.settings.EVAL_PARAMS` (:func:`camcf.evaluation.make_splitter`).
"""

from __future__ import annotations

import math
import time
import warnings
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd

from ..algorithm_params import DISCRETIZE_PARAMS
from ..errors import ParameterError
from ..output import json_safe
from ..params import defaults
from .metrics import METRICS
from .settings import EVAL_DEFAULTS as _E

_D = defaults(DISCRETIZE_PARAMS)

__all__ = ["comparison_frame", "comparison_payload", "comparison_report", "data_about",
           "evaluation_report", "knn_settings", "method_table", "truth_scores"]

Progress = Callable[[int, int, str], None]

#: what the evaluation's discretisation does, in the reports' words
FITTED_ON = ("the training part of each split; test rows are coded with the training part's "
             "bin edges (unseen values get a code of their own)")


def knn_settings(knn: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """ML-kNN's four settings (``k``, ``s``, ``distance``, ``neighbours``): ``knn`` validated
    over the declared defaults (:func:`camcf.evaluation.check_knn`). Passed in full to the
    evaluation, so the report states what ran."""
    from .settings import check_knn

    return check_knn(knn)


def truth_scores(truth, feature_names: Sequence[str], label_names: Sequence[str],
                 splits: Sequence[tuple[Sequence[int], Any]],
                 columns: Sequence[int] | None = None) -> dict[str, Any]:
    """A method's answers on several splits scored against a known network's truth
    (:mod:`camcf.truth`): per split ``(selected feature indices, Selection or None)``
    (:class:`camcf.evaluation.Selection`: its per-label ``blankets`` and ``label_blankets``
    when the method gives them) → :func:`camcf.truth.mean_scores` of the splits' scores (mean
    and SD over splits), with each split's scores under ``"splits"``.

    ``columns``: the label of each binary label column (:func:`camcf.evaluation.folds.
    label_of_columns`) for methods that were given the binary columns of multi-class labels
    (every method but Ca-MCF): their per-column blankets are merged per label (a label's
    features: the union over its columns; its labels: those of the columns found, itself
    left out)."""
    from ..truth import mean_scores, score_selection

    def per_label(sel):
        if sel is None or sel.blankets is None:
            return None, None
        feats, labs = sel.blankets, sel.label_blankets
        if columns is None or len(feats) != len(columns) or len(feats) == len(label_names):
            return feats, labs
        q = len(label_names)
        merged = [set() for _ in range(q)]
        owners = [set() for _ in range(q)]
        for c, owner in enumerate(columns):
            merged[owner].update(feats[c])
            if labs is not None and len(labs) == len(columns):
                owners[owner].update(columns[k] for k in labs[c])
        return ([tuple(sorted(v)) for v in merged],
                None if labs is None else [tuple(sorted(v - {i})) for i, v in enumerate(owners)])

    scores = []
    for chosen, sel in splits:
        feats, labs = per_label(sel)
        scores.append(score_selection(truth, feature_names, label_names, selection=list(chosen),
                                      blankets=feats, label_blankets=labs))
    return {**mean_scores(scores), "splits": scores}


# ---------------------------------------------------------------------------- evaluate
def evaluation_report(
    train,
    test=None,
    *,
    features: Sequence[int] | None = None,
    params: Mapping[str, Any] | None = None,
    protocol: str | None = None,
    n_repeats: int = _E["n_repeats"],
    n_folds: int = _E["n_folds"],
    test_size: float = _E["test_size"],
    seed: int = _E["seed"],
    discretize: str = _D["discretize"],
    bins: int = _D["bins"],
    strategy: str = _D["strategy"],
    knn: Mapping[str, Any] | None = None,
    n_jobs: int = 1,
    progress: Progress | None = None,
    data: Mapping[str, Any] | None = None,
    truth=None,
) -> dict[str, Any]:
    """ML-kNN on a selection against all features, on every split of a protocol.

    Parameters
    ----------
    train, test : camcf.Dataset
        The data (``test`` None) or a fixed train/test pair (the ``holdout`` protocol).
    features : 0-based feature indices, optional
        Evaluate these on every split; otherwise Ca-MCF selects on each training part with
        ``params`` (its defaults for the others).
    protocol : {"holdout", "repeated", "kfold"}, optional
        Default ``holdout`` with ``test``, else ``repeated``; ``n_repeats``, ``n_folds``,
        ``test_size`` and ``seed`` as :func:`camcf.evaluation.make_splitter`.
    discretize, bins, strategy
        Fitted on each training part, applied to its test part.
    knn : mapping, optional
        ML-kNN settings (:func:`knn_settings`).
    n_jobs, progress
        As :func:`camcf.evaluation.evaluate` takes them.
    data : mapping, optional
        What the caller knows about the data (paths, label options), copied into ``"data"``.
    truth : camcf.truth.Truth, optional
        A known network's truth: the selection of every split is scored against it
        (:func:`truth_scores`, under ``"truth"``; per label for Ca-MCF's selections, overall
        only for given features).

    Returns
    -------
    dict
        Strict-JSON-ready: ``metrics`` and ``sd`` (mean and sample SD over splits of the seven
        metrics for the selection), ``selected_indices`` (for several splits the features
        selected in at least half of them), ``n_features``, ``n_splits_with_values``,
        ``n_splits_nothing_selected``, ``seconds``, ``selection``, ``all_features``,
        ``protocol``, ``classifier``, ``discretization``, ``selection_counts``, ``data`` and
        ``splits`` (per-split values).
    """
    from .folds import binarize_labels, make_folds
    from .running import KnnCache, evaluate
    from .splits import make_splitter
    from .studies import ablation
    from .summaries import summarise

    t0 = time.perf_counter()
    if truth is not None:
        from ..truth import check_names

        check_names(truth, train.feature_names, train.label_names)
    if test is not None and protocol not in (None, "holdout"):
        raise ParameterError(f"protocol {protocol!r} resamples one data set; a given train/test "
                             "pair is the 'holdout' protocol", name="protocol", value=protocol)
    protocol = protocol or ("holdout" if test is not None else _E["protocol"])
    disc = {"discretize": discretize, "bins": bins, "strategy": strategy}
    if test is not None:
        folds = make_folds(train.X, train.Y, X_test=test.X, Y_test=test.Y, **disc)
        n_rows = train.n_samples + test.n_samples
        Y_all = np.concatenate([train.Y, test.Y])
    else:
        cv = make_splitter(protocol, n_repeats=n_repeats, test_size=test_size,
                           n_folds=n_folds, seed=seed)
        folds = make_folds(train.X, train.Y, cv, **disc)
        n_rows = train.n_samples
        Y_all = train.Y
    m = train.n_features
    knn = knn_settings(knn)
    fewest = min(f.X_train.shape[0] for f in folds)
    if knn["k"] >= fewest:
        raise ParameterError(f"k = {knn['k']} neighbours must be smaller than the number of "
                             f"training rows ({fewest})", name="k", value=knn["k"])
    cache = KnnCache()
    if features is not None:
        bad = [i for i in features if not 0 <= i < m]
        if bad:
            raise ParameterError(f"feature index {bad[0]} is out of range; the data has {m} "
                                 f"features (0..{m - 1})", name="features", value=bad[0])
        chosen = [{"all": tuple(range(m)), "selected": tuple(sorted(set(features)))}] * len(folds)
        frame = evaluate(folds, sets=chosen[0], knn=knn, cache=cache, n_jobs=n_jobs,
                         progress=progress).frame
        used_params = None
        picks = [None] * len(folds)
    else:
        from ..algorithm_params import ALGORITHM_PARAMS
        from ..params import defaults

        used_params = {**defaults(ALGORITHM_PARAMS), **dict(params or {})}
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            ev = ablation(folds, used_params, sets=("all", "camcf"), knn=knn, cache=cache,
                          n_jobs=n_jobs, progress=progress)
        frame = ev.frame.replace({"feature_set": {"camcf": "selected"}})
        chosen = [{"all": sets["all"], "selected": sets["camcf"]} for sets in ev.sets]
        picks = [ev.selections[("camcf", fi)] for fi in range(len(folds))]
    split_rows = []
    for fold, sets in zip(folds, chosen, strict=True):
        part = frame[frame["split"] == fold.split]
        sel = part[part["feature_set"] == "selected"]
        base = part[part["feature_set"] == "all"]
        split_rows.append({
            "split": fold.split,
            "n_train": int(fold.train.size),
            "n_test": int(fold.test.size),
            "n_features": int(sel["n_features"].iloc[0]),
            "seconds": float(sel["seconds"].iloc[0]),
            "metrics": dict(zip(sel["metric"], sel["value"], strict=True)),
            "all_features": dict(zip(base["metric"], base["value"], strict=True)),
            "selected_indices": list(sets["selected"]),
        })
    counts = np.zeros(m, dtype=np.int64)
    for row in split_rows:
        counts[row["selected_indices"]] += 1
    if len(folds) == 1:
        selected = split_rows[0]["selected_indices"]
    else:
        selected = [int(j) for j in np.flatnonzero(2 * counts >= len(folds))]
    by = summarise(frame).set_index(["feature_set", "metric"])

    def mean_sd(name: str) -> tuple[dict[str, float], dict[str, float | None]]:
        means = {k: float(by.loc[(name, k), "mean"]) for k in METRICS}
        sds = {k: (None if math.isnan(by.loc[(name, k), "sd"]) else float(by.loc[(name, k), "sd"]))
               for k in METRICS}
        return means, sds

    metrics, sd = mean_sd("selected")
    base_metrics, base_sd = mean_sd("all")
    first = next(iter(METRICS))
    _, label_columns = binarize_labels(Y_all, train.label_names)
    proto: dict[str, Any] = {"name": protocol, "n_splits": len(folds)}
    if test is None:
        proto["seed"] = seed
        if protocol == "kfold":
            proto["folds"] = n_folds
        elif protocol == "repeated":
            proto["repeats"] = n_repeats
            proto["test_size"] = test_size
        else:
            proto["test_size"] = test_size
    else:
        proto["split"] = "the given train/test pair"
    payload = {
        "metrics": metrics,
        "sd": sd,
        "selected_indices": selected,
        "selected_features": [train.feature_names[j] for j in selected],
        "selected_rule": (
            "the selection on the training part" if len(folds) == 1
            else "features selected in at least half of the splits (per split: splits[i])"),
        "n_features": float(np.mean([row["n_features"] for row in split_rows])),
        "n_splits_with_values": int(by.loc[("selected", first), "n"]),
        "n_splits_nothing_selected": int(by.loc[("selected", first), "n_empty"]),
        "seconds": {
            "selection_mean": float(np.mean([row["seconds"] for row in split_rows])),
            "total": time.perf_counter() - t0,
        },
        "selection": ({"method": "given", "features": sorted(set(features))}
                      if features is not None else {"method": "camcf", "params": used_params}),
        "all_features": {"metrics": base_metrics, "sd": base_sd, "n_features": m},
        "protocol": proto,
        "classifier": {"name": "ML-kNN", **knn},
        "discretization": {**disc, "fitted_on": FITTED_ON},
        "selection_counts": [int(c) for c in counts],
        "data": {**dict(data or {}), "source": train.source, "n_samples": n_rows,
                 "n_features": m, "n_labels": train.n_labels, "label_columns": label_columns},
        "splits": split_rows,
    }
    if truth is not None:
        payload["truth"] = {"network": truth.network, **truth_scores(
            truth, train.feature_names, train.label_names,
            [(sets["selected"], pick) for sets, pick in zip(chosen, picks, strict=True)])}
    return json_safe(payload)


# ---------------------------------------------------------------------------- compare
def data_about(train, test=None) -> dict[str, Any]:
    """What a comparison's report says about one data set (:class:`camcf.Dataset`, and the
    test part of a fixed split): ``source``, ``n_samples`` (both parts), ``n_features``,
    ``n_labels``, ``fixed_split``."""
    return {"source": train.source,
            "n_samples": train.n_samples + (test.n_samples if test is not None else 0),
            "n_features": train.n_features, "n_labels": train.n_labels,
            "fixed_split": test is not None}


def method_table(names: Sequence[str], ca_params: Mapping[str, Any] | None = None,
                 params: Mapping[str, Mapping[str, Any]] | None = None) -> dict[str, Any]:
    """Registry names → fresh selectors: Ca-MCF with ``ca_params``, method ``name`` with
    ``params[name]`` (each method's defaults for what is not given)."""
    from .. import methods

    params = dict(params or {})
    if ca_params is not None:
        params["camcf"] = {**dict(ca_params), **dict(params.get("camcf", {}))}
    return {name: methods.make(name, **dict(params.get(name, {}))) for name in names}


def comparison_frame(comparisons: Mapping[str, Any]) -> pd.DataFrame:
    """Every data set's summary in one table: ``data_set, method, method_name, kind, metric,
    mean, sd, n, n_splits, n_empty, n_features, seconds``."""
    from .. import methods

    parts = []
    for ds_name, cmp in comparisons.items():
        s = cmp.summary.rename(columns={"feature_set": "method"}).copy()
        s.insert(0, "data_set", ds_name)
        s.insert(2, "method_name", s["method"].map(
            lambda n: methods.display(n) if n in methods.METHODS else n))
        s.insert(3, "kind", s["method"].map(cmp.kinds))
        parts.append(s)
    return pd.concat(parts, ignore_index=True)


def comparison_payload(comparisons: Mapping[str, Any], methods_used: Mapping[str, Any],
                       settings: Mapping[str, Any], data: Mapping[str, Any]) -> dict:
    """The JSON document of a comparison (no NaN: missing values are null). Each data set
    carries the settings its comparison ran with (``"settings"``: ML-kNN's, the cut, the
    protocol and the number of splits), read from the comparison itself."""
    from .. import methods
    from .summaries import friedman_over_data_sets

    out: dict[str, Any] = {
        "methods": [{"name": n, "display": methods.display(n) if n in methods.METHODS else n,
                     "kind": next(iter(comparisons.values())).kinds.get(n),
                     "params": dict(est.get_params(deep=False))}
                    for n, est in methods_used.items()],
        "settings": dict(settings),
        "data_sets": {},
    }
    for name, cmp in comparisons.items():
        ranks = {metric: cmp.split_ranks(metric).mean(axis=0).to_dict() for metric in METRICS}
        out["data_sets"][name] = {
            "data": data.get(name, {}),
            "settings": dict(cmp.settings),
            "summary": cmp.summary.rename(columns={"feature_set": "method"}).to_dict("records"),
            "mean_rank_over_splits": ranks,
            "friedman_over_splits": (
                {metric: {**cmp.friedman_over_splits(metric).to_dict(), "note": (
                    "splits as blocks: indicative only (splits share rows)")}
                 for metric in METRICS} if len(cmp.sets) >= 2 else None),
            "failures": {k: [{"split": s, "message": m} for s, m in v]
                         for k, v in cmp.failures.items()},
            "splits": cmp.frame.rename(columns={"feature_set": "method"}).to_dict("records"),
            "selected": [{k: list(v) for k, v in sets.items()} for sets in cmp.sets],
        }
    if len(comparisons) >= 2:
        out["friedman"] = friedman_over_data_sets(comparisons).to_dict("records")
    return json_safe(out)


def comparison_report(
    data: Mapping[str, tuple],
    selectors: Mapping[str, Any],
    *,
    protocol: str = _E["protocol"],
    n_repeats: int = _E["n_repeats"],
    n_folds: int = _E["n_folds"],
    test_size: float = _E["test_size"],
    seed: int = _E["seed"],
    discretize: str = _D["discretize"],
    bins: int = _D["bins"],
    strategy: str = _D["strategy"],
    n_features: int | float | str = "match",
    knn: Mapping[str, Any] | None = None,
    n_jobs: int = 1,
    progress: Progress | None = None,
    about: Mapping[str, Any] | None = None,
    truths: Mapping[str, Any] | None = None,
) -> tuple[dict, pd.DataFrame]:
    """Every selector on the same splits of each data set (:func:`camcf.evaluation.
    compare_data_sets`): the JSON payload and the summary table (:func:`comparison_frame`).

    ``data``: ``{name: (X, Y)}`` or ``{name: (X, Y, X_test, Y_test)}``; ``discretize="none"``:
    X holds integer codes, used as they are. ``knn``: ML-kNN settings (:func:`knn_settings`).
    ``about``: what the caller knows about each data set, copied under ``"data"``.
    ``truths``: ``{name: (Truth, feature names, label names)}`` for data sets sampled from a
    known network: every method's selections there are scored against the truth
    (:func:`truth_scores`, under the data set's ``"truth"``, per method).
    """
    from .splits import make_splitter
    from .studies import compare_data_sets

    t0 = time.perf_counter()
    comparisons = compare_data_sets(
        data, selectors, make_splitter(protocol, n_repeats=n_repeats, test_size=test_size,
                                       n_folds=n_folds, seed=seed),
        discretize=None if discretize == "none" else discretize, bins=bins, strategy=strategy,
        n_features=n_features, knn=knn_settings(knn), n_jobs=n_jobs, progress=progress)
    first = next(iter(comparisons.values())).settings
    proto: dict[str, Any] = {"name": protocol, "seed": seed}
    if protocol == "kfold":
        proto["folds"] = n_folds
    elif protocol == "repeated":
        proto.update(repeats=n_repeats, test_size=test_size)
    else:
        proto["test_size"] = test_size
    settings = {
        "protocol": proto,
        "n_features": n_features,
        "classifier": {"name": "ML-kNN",
                       **{key: first[key] for key in ("k", "s", "distance", "neighbours")}},
        "discretization": {"discretize": discretize, "bins": bins, "strategy": strategy,
                           "fitted_on": "the training part of each split"},
        "n_jobs": n_jobs,
        "seconds_total": time.perf_counter() - t0,
    }
    payload = comparison_payload(comparisons, selectors, settings, dict(about or {}))
    for name, (truth, features, labels) in dict(truths or {}).items():
        from .folds import label_of_columns

        cmp = comparisons[name]
        columns = label_of_columns(np.asarray(data[name][1]))
        payload["data_sets"][name]["truth"] = json_safe({"network": truth.network, **{
            method: truth_scores(truth, features, labels,
                                 [(cmp.sets[fi][method], cmp.selections.get((method, fi)))
                                  for fi in range(len(cmp.sets))], columns)
            for method in selectors}})
    return payload, comparison_frame(comparisons)
