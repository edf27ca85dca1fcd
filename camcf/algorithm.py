"""Ca-MCF: label-category flattening and the four phases per target category (SPEC.md).

Every label is flattened into its categories (Algorithm 1): for label i in column order and each
distinct value c of Y[:, i] in ascending order, the target is the indicator t = [Y_i == c]. A
target with fewer than ``min_category_size`` positive samples is skipped (and the result says
so). For each remaining target, the phases run in order:

1. :func:`camcf.phases.label_skeleton` — R, the label categories that explain t;
2. :func:`camcf.phases.parents_children` and :func:`camcf.phases.spouses` — PC and SP;
3. :func:`camcf.phases.recover_blocked` — features masked by members of R;
4. :func:`camcf.phases.symmetry_and_redundancy` — the k2 cut, symmetry and redundancy.

The selected features are the sorted union of the final blankets. The two categories of a binary
label are complements and give identical results in every phase: the second is a mirror of the
first (``TargetResult.mirror_of``), with its own trace rows.

Example
-------
>>> import numpy as np, camcf
>>> rng = np.random.default_rng(0)
>>> X = rng.integers(0, 2, size=(200, 4))
>>> Y = np.column_stack([X[:, 0] ^ (rng.random(200) < 0.1), X[:, 1]])
>>> res = camcf.run(X, Y, delta1=0.05, delta2=0.1, k1=0.7, k2=1.0)
>>> res.selected_indices.tolist()
[0, 1]
"""

from __future__ import annotations

import dataclasses
import time
import warnings
from collections.abc import Callable

import numpy as np

from .algorithm_params import ALGORITHM_PARAMS
from .errors import InvalidDataError, ParameterError
from .info import FastEngine, ReferenceEngine
from .params import defaults as _param_defaults
from .params import validate as _validate_params
from .phases import (
    label_skeleton,
    parents_children,
    recover_blocked,
    spouses,
    symmetry_and_redundancy,
)
from .result import Category, Result, TargetResult
from .trace import CondSets, TraceBuilder

#: Ca-MCF's defaults, from the one declaration in :mod:`camcf.algorithm_params`.
DEFAULTS = _param_defaults(ALGORITHM_PARAMS)

Progress = Callable[[int, int, str], None]


class CamcfWarning(UserWarning):
    """Something in the data the user should know about (a label skipped, nothing selected)."""


def check_params(delta1, delta2, k1, k2, gamma, min_category_size, recovery) -> dict:
    """Validate parameters against :data:`camcf.algorithm_params.ALGORITHM_PARAMS`; raise
    :class:`ParameterError` naming the argument, the value and the allowed range."""
    return _validate_params(ALGORITHM_PARAMS, {
        "delta1": delta1, "delta2": delta2, "k1": k1, "k2": k2, "gamma": gamma,
        "min_category_size": min_category_size, "recovery": recovery})


def _as_codes(X, what: str = "X") -> np.ndarray:
    try:
        A = np.asarray(X, dtype=float)
    except (TypeError, ValueError) as e:
        raise InvalidDataError(f"{what} must be numeric: {e}") from None
    if A.ndim != 2:
        raise InvalidDataError(f"{what} must be a 2-D array (samples × columns), got shape "
                               f"{A.shape}")
    if np.isnan(A).any():
        cols = np.nonzero(np.isnan(A).any(axis=0))[0][:5].tolist()
        raise InvalidDataError(f"{what} has missing values (NaN) in column(s) {cols}; impute or "
                               f"drop them first")
    if not np.all(A == np.round(A)):
        cols = np.nonzero((A != np.round(A)).any(axis=0))[0][:5].tolist()
        raise InvalidDataError(
            f"{what} must hold discrete codes; column(s) {cols} have non-integer values: "
            f"discretise first (camcf.discretize) or pass a camcf.Dataset")
    return A.astype(np.int64)


def _prepare_labels(Y) -> np.ndarray:
    Y = _as_codes(Y, "Y")
    Y = Y.copy()
    for i in range(Y.shape[1]):
        vals = set(np.unique(Y[:, i]).tolist())
        if vals <= {-1, 1} and -1 in vals:
            Y[:, i] = (Y[:, i] == 1).astype(np.int64)  # −1/+1 is read as 0/1
        elif min(vals) < 0:
            raise InvalidDataError(
                f"label column {i} has negative codes {sorted(v for v in vals if v < 0)}; labels "
                f"must be 0/1, −1/+1 or non-negative category codes")
    return Y


def _recode_features(X: np.ndarray) -> np.ndarray:
    """Map each feature column's values to 0..k−1 (keeps order; makes the codes compact)."""
    if X.size == 0:
        return X
    if X.min() >= 0 and X.max() < 64:
        return X
    out = np.empty_like(X)
    for j in range(X.shape[1]):
        out[:, j] = np.unique(X[:, j], return_inverse=True)[1].ravel()
    return out


def flatten_labels(Y: np.ndarray, label_names: list[str],
                   category_names: list[dict] | None = None) -> list[Category]:
    """Algorithm 1: one :class:`Category` per (label, distinct value), labels in column order."""
    cats = []
    for i in range(Y.shape[1]):
        values, counts = np.unique(Y[:, i], return_counts=True)
        for v, k in zip(values, counts, strict=True):
            name = str(v)
            if category_names is not None and i < len(category_names):
                name = category_names[i].get(int(v), name)
            cats.append(Category(id=len(cats), label_index=i, label=label_names[i],
                                 value=int(v), name=name, size=int(k)))
    return cats


def run(X, Y=None, *, delta1: float = 0.05, delta2: float = 0.1, k1: float = 0.7,
        k2: float = 1.0, gamma: float = 1.2, min_category_size: int = 5,
        recovery: str = "first", feature_names: list[str] | None = None,
        label_names: list[str] | None = None, category_names: list[dict] | None = None,
        engine: str = "fast", progress: Progress | None = None) -> Result:
    """Run Ca-MCF and record every decision.

    Parameters
    ----------
    X : array (n_samples, n_features) of non-negative integer codes, or a :class:`camcf.Dataset`
        A Dataset is discretised with :func:`camcf.discretize.discretize` defaults and supplies
        ``Y`` and the names.
    Y : array (n_samples, n_labels) of label codes (0/1, −1/+1 or category codes)
    delta1, delta2 : float ≥ 0
        Feature–category and category–category thresholds, in bits.
    k1, k2 : float in (0, 1]
        Share of the Phase 2 candidates kept; share of the blanket kept in Phase 4.
    gamma : float > 0
        Redundancy margin (Phase 4).
    min_category_size : int ≥ 1
        Categories with fewer positive samples are skipped.
    recovery : {"first", "all"}
        "first" stops Phase 3 after the first recovered feature (the authors' code), "all"
        tries every feature (the paper's Algorithm 4).
    engine : {"fast", "reference"}
        "reference" computes every quantity separately and both categories of a binary label
        (the straightforward implementation; slow, for checking and benchmarks).
    progress : callable(done, total, message), optional

    Returns
    -------
    Result
    """
    params = check_params(delta1, delta2, k1, k2, gamma, min_category_size, recovery)
    from .dataset import Dataset

    if isinstance(X, Dataset):
        from .discretize import discretize

        ds = X
        codes, _ = discretize(ds.X)
        X, Y = codes, ds.Y
        feature_names = feature_names or list(ds.feature_names)
        label_names = label_names or list(ds.label_names)
        category_names = category_names or ds.category_names
    if Y is None:
        raise InvalidDataError("Y (the label matrix) is required when X is an array")
    X = _recode_features(_as_codes(X, "X"))
    Y = _prepare_labels(Y)
    if Y.ndim == 1:
        Y = Y[:, None]
    n, m = X.shape
    if Y.shape[0] != n:
        raise InvalidDataError(f"X has {n} rows but Y has {Y.shape[0]}; give one label row per "
                               f"sample")
    if n == 0:
        raise InvalidDataError("the data has no rows")
    if Y.shape[1] == 0:
        raise InvalidDataError("Y has no label columns; name the label columns of the data")
    feature_names = list(feature_names) if feature_names is not None else [
        f"f{j}" for j in range(m)]
    label_names = list(label_names) if label_names is not None else [
        f"label{i}" for i in range(Y.shape[1])]
    if len(feature_names) != m or len(label_names) != Y.shape[1]:
        raise InvalidDataError(
            f"got {len(feature_names)} feature names for {m} columns and {len(label_names)} "
            f"label names for {Y.shape[1]} labels")

    t0 = time.perf_counter()
    cats = flatten_labels(Y, label_names, category_names)
    C = np.column_stack([(Y[:, c.label_index] == c.value) for c in cats]).astype(np.int64)
    if engine not in ("fast", "reference"):
        raise ParameterError(f"engine must be 'fast' or 'reference', got {engine!r}")
    eng = (ReferenceEngine if engine == "reference" else FastEngine)(X, C)

    constant = [i for i in range(Y.shape[1]) if np.unique(Y[:, i]).size < 2]
    if len(constant) == Y.shape[1]:
        raise InvalidDataError(
            "every label has one category only (each label column is constant); Ca-MCF needs at "
            "least one label with two or more categories")
    if constant:
        warnings.warn(
            f"label(s) {[label_names[i] for i in constant]} have one category only and are "
            f"skipped; remove them or check the label columns", CamcfWarning, stacklevel=2)

    mi = eng.mi_table()
    cat_mi = eng.category_mi_table()
    cond_sets = CondSets()
    targets: list[TargetResult | None] = [None] * len(cats)
    by_label: dict[int, list[Category]] = {}
    for c in cats:
        by_label.setdefault(c.label_index, []).append(c)

    total = len(cats)
    done = 0
    for c in cats:
        done += 1
        if progress is not None:
            progress(done - 1, total, f"target {c.display}")
        label_cats = by_label[c.label_index]
        if len(label_cats) < 2:
            targets[c.id] = TargetResult(c, skipped=True,
                                         skip_reason="its label has one category only")
            continue
        if c.size < params["min_category_size"]:
            targets[c.id] = TargetResult(
                c, skipped=True,
                skip_reason=f"{c.size} positive samples < min_category_size = "
                            f"{params['min_category_size']}")
            continue
        if len(label_cats) == 2 and engine == "fast":
            other = label_cats[1] if label_cats[0].id == c.id else label_cats[0]
            prev = targets[other.id]
            if prev is not None and not prev.skipped and prev.mirror_of is None:
                # complementary category of a binary label: identical decisions (SPEC.md)
                targets[c.id] = dataclasses.replace(prev, category=c, mirror_of=other.id)
                continue
        others = [d.id for d in cats if d.label_index != c.label_index]
        targets[c.id] = _run_target(eng, c, others, mi[:, c.id], params, cond_sets)
        eng.reset_target_cache() if hasattr(eng, "reset_target_cache") else None
    if progress is not None:
        progress(total, total, "done")

    final: set[int] = set()
    for t in targets:
        if not t.skipped:
            final.update(t.blanket)
    selected = np.array(sorted(final), dtype=np.int64)
    seconds = time.perf_counter() - t0
    stats = dict(eng.stats())
    stats["seconds"] = seconds
    stats["engine"] = engine
    res = Result(
        params=params, feature_names=feature_names, label_names=label_names, categories=cats,
        targets=targets, selected_indices=selected, mi_table=mi, category_mi=cat_mi,
        cond_sets=cond_sets.sets, n_samples=n, stats=stats)
    if selected.size == 0:
        warnings.warn("Ca-MCF selected no feature with these parameters; try lower delta1 or "
                      "higher k1/k2", CamcfWarning, stacklevel=2)
    return res


def _run_target(eng, c: Category, others: list[int], s: np.ndarray, params: dict,
                cond_sets: CondSets) -> TargetResult:
    tb = TraceBuilder(cond_sets)
    d1, d2 = params["delta1"], params["delta2"]
    R, sk_cands = label_skeleton(eng, c.id, others, d2, tb)
    cands_all, kept, pc = parents_children(eng, c.id, s, R, d1, params["k1"], tb)
    sp = spouses(eng, c.id, s, pc, R, d1, tb)
    cmb = sorted(set(pc) | set(sp))
    rec = recover_blocked(eng, c.id, s, pc, cmb, R, d1, params["recovery"], tb)
    cmb_full = cmb + [f for f, _ in rec]
    p4 = symmetry_and_redundancy(eng, c.id, s, cmb_full, others, d1, params["k2"],
                                 params["gamma"], tb)
    return TargetResult(
        category=c,
        skeleton=tuple(R),
        skeleton_candidates=tuple(sk_cands),
        candidates_all=tuple(cands_all),
        candidates=tuple(kept),
        pc=tuple(pc),
        spouses={z: tuple(xs) for z, xs in sp.items()},
        recovered=tuple(rec),
        cmb=tuple(p4["cmb"]),
        after_cut=tuple(p4["after_cut"]),
        cut=tuple(p4["cut"]),
        symmetry_removed=tuple(p4["symmetry_removed"]),
        after_symmetry=tuple(p4["after_symmetry"]),
        redundancy_removed=tuple(p4["redundancy_removed"]),
        blanket=tuple(p4["blanket"]),
        trace=tb.freeze(),
    )
