"""Tables the pages show: the data set, the flow of features through the phases, found vs true."""

from __future__ import annotations

import numpy as np
import pandas as pd

FLOW_COLUMNS = [
    "candidates", "cut by k1", "kept by k1", "removed (backward)", "PC", "spouses",
    "recovered", "CMB", "cut by k2", "symmetry", "redundancy", "blanket",
]


def flow_row(t) -> dict[str, int]:
    """Counts of one target's features at every stage (see :data:`FLOW_COLUMNS`).

    They add up: kept = candidates − cut by k1; PC = kept − removed; CMB = PC + spouses +
    recovered; blanket = CMB − cut by k2 − symmetry − redundancy.
    """
    return {
        "candidates": len(t.candidates_all),
        "cut by k1": len(t.candidates_all) - len(t.candidates),
        "kept by k1": len(t.candidates),
        "removed (backward)": len(t.candidates) - len(t.pc),
        "PC": len(t.pc),
        "spouses": len(t.spouses),
        "recovered": len(t.recovered),
        "CMB": len(t.cmb),
        "cut by k2": len(t.cut),
        "symmetry": len(t.symmetry_removed),
        "redundancy": len(t.redundancy_removed),
        "blanket": len(t.blanket),
    }


def flow_counts(result, *, overall: bool = True) -> pd.DataFrame:
    """One row per target category (index: ``label=category``), plus an ``overall`` row (sums
    over the categories that ran: feature–category pairs). Skipped categories have zeros and
    ``skipped`` = True."""
    rows, index = [], []
    for t in result.targets:
        r = flow_row(t)
        r["R size"] = len(t.skeleton)
        r["skipped"] = bool(t.skipped)
        rows.append(r)
        index.append(t.category.display)
    df = pd.DataFrame(rows, index=pd.Index(index, name="category"))
    if overall and len(df):
        tot = df[~df["skipped"]].drop(columns=["skipped"]).sum().to_dict()
        df.loc["overall"] = {**tot, "skipped": False}
    return df


def _imbalance(col: np.ndarray) -> float:
    _, counts = np.unique(col, return_counts=True)
    return float(counts.max() / counts.min()) if counts.size > 1 else float("inf")


def describe_data(dataset, result=None) -> pd.DataFrame:
    """The data set in a few numbers: n, m, labels, categories, cardinality, density, imbalance."""
    Y = dataset.Y
    q = Y.shape[1]
    n_cat = sum(np.unique(Y[:, i]).size for i in range(q))
    card = dataset.label_cardinality
    ir = [_imbalance(Y[:, i]) for i in range(q)]
    finite = [v for v in ir if np.isfinite(v)]
    rows = [
        ("samples (n)", f"{dataset.n_samples:,}"),
        ("features (m)", f"{dataset.n_features:,}"),
        ("labels (q)", f"{q:,}"),
        ("label categories", f"{n_cat:,}"),
        ("label cardinality", "n/a" if card != card else f"{card:.3f}"),
        ("label density", "n/a" if card != card else f"{card / q:.3f}"),
        ("imbalance (mean / max)",
         f"{np.mean(finite):.2f} / {np.max(finite):.2f}" if finite else "n/a"),
    ]
    if result is not None:
        rows.append(("categories skipped (too small)", f"{len(result.skipped):,}"))
        rows.append(("tests performed", f"{result.n_tests:,}"))
        rows.append(("run time", f"{result.stats.get('seconds', float('nan')):.2f} s"))
    return pd.DataFrame(rows, columns=["", "value"]).set_index("")


def label_table(dataset) -> pd.DataFrame:
    """Per label: its categories with their sizes, and the majority:minority ratio."""
    rows = []
    for i, name in enumerate(dataset.label_names):
        vals, counts = np.unique(dataset.Y[:, i], return_counts=True)
        names = dataset.category_names[i] if dataset.category_names else {}
        cats = ", ".join(f"{names.get(int(v), v)}: {c}" for v, c in zip(vals, counts,
                                                                        strict=True))
        rows.append({"label": name, "categories (size)": cats,
                     "imbalance": round(_imbalance(dataset.Y[:, i]), 2)})
    return pd.DataFrame(rows)


def truth_table(result, true_blankets: dict) -> pd.DataFrame:
    """Found vs true blanket per category and overall (union over categories).

    ``true_blankets`` maps (label index, category value) to a set of feature indices, as
    :meth:`camcf.truth.Truth.category_blankets` gives it; scores by :func:`camcf.truth.score`.
    """
    from ..truth import score

    names = result.feature_names
    rows = []
    all_true: set[int] = set()
    for t in result.targets:
        c = t.category
        true = set(true_blankets.get((c.label_index, c.value), set()))
        all_true |= true
        found = set() if t.skipped else set(t.blanket)
        cmp = score(found, true)
        rows.append(_truth_row(c.display, t.skipped, found, true, cmp, names))
    cmp = score(set(result.selected_indices.tolist()), all_true)
    rows.append(_truth_row("overall", False, set(result.selected_indices.tolist()), all_true,
                           cmp, names))
    return pd.DataFrame(rows).set_index("category")


def truth_per_label(result, truth) -> pd.DataFrame:
    """Per label of a run on data with a known truth (:class:`camcf.truth.Truth`): the label's
    found blanket (the union of its categories' blankets) against its true feature blanket —
    precision, recall, F1, distance, found, true, missed, extra — and its label skeleton R
    against its true label blanket (:func:`camcf.truth.score_result`, the one scoring
    function); a last row ``mean over labels``."""
    from ..truth import score, score_result

    got = score_result(result, truth)
    rows = []
    for label, r in got["per_label"].items():
        s = score(r["found"], r["true"])
        rows.append({"label": label, "precision": r["precision"], "recall": r["recall"],
                     "f1": r["f1"], "distance": r["distance"],
                     "found": ", ".join(r["found"]), "true": ", ".join(r["true"]),
                     "missed": ", ".join(s.missed), "extra": ", ".join(s.extra),
                     "R: labels found": ", ".join(r["labels"]["found"]),
                     "R: true labels": ", ".join(r["labels"]["true"]),
                     "R: F1": r["labels"]["f1"]})
    mean = got["mean"]
    rows.append({"label": "mean over labels", **{k: mean[k] for k in
                                                 ("precision", "recall", "f1", "distance")},
                 "found": "", "true": "", "missed": "", "extra": "",
                 "R: labels found": "", "R: true labels": "",
                 "R: F1": float(np.mean([r["labels"]["f1"]
                                         for r in got["per_label"].values()]))})
    return pd.DataFrame(rows).set_index("label")


def _truth_row(name, skipped, found, true, cmp, names) -> dict:
    j = lambda s: ", ".join(names[i] for i in sorted(s))  # noqa: E731
    return {
        "category": name, "skipped": skipped, "found": j(found), "true": j(true),
        "tp": len(cmp.tp), "missed": len(cmp.missed), "extra": len(cmp.extra),
        "true positives": j(cmp.tp), "missed features": j(cmp.missed),
        "extra features": j(cmp.extra),
        "precision": round(cmp.precision, 3), "recall": round(cmp.recall, 3),
        "f1": round(cmp.f1, 3),
    }


def blankets_frame(result) -> pd.DataFrame:
    """One row per (category, blanket feature): with the role it entered by."""
    rows = []
    for t in result.targets:
        if t.skipped:
            continue
        rec = {f: r for f, r in t.recovered}
        for f in t.blanket:
            role = ("PC" if f in t.pc else "spouse" if f in t.spouses else
                    "recovered" if f in rec else "?")
            rows.append({"label": t.category.label, "category": t.category.name,
                         "target": t.category.display, "feature_index": f,
                         "feature": result.feature_names[f], "role": role,
                         "s_f_bits": round(float(result.mi_table[f, t.id]), 6)})
    return pd.DataFrame(rows, columns=["label", "category", "target", "feature_index",
                                       "feature", "role", "s_f_bits"])


def selected_frame(result) -> pd.DataFrame:
    """The selected features (the union of the blankets) and the categories that chose them."""
    chosen: dict[int, list[str]] = {}
    for t in result.targets:
        if not t.skipped:
            for f in t.blanket:
                chosen.setdefault(f, []).append(t.category.display)
    return pd.DataFrame([{"feature_index": int(f), "feature": result.feature_names[f],
                          "categories": ", ".join(chosen.get(int(f), []))}
                         for f in result.selected_indices],
                        columns=["feature_index", "feature", "categories"])


def recovery_frame(result, target) -> pd.DataFrame:
    """Phase 3 competitions of one target: one row per (feature, blocker) comparison."""
    from .explain import bits_values, p_column

    df = result.to_frame(target)
    rec = df[df["step"] == "recovery"]
    return pd.DataFrame({
        "feature": rec["b_name"].to_numpy(),
        "blocker": rec["aux_name"].to_numpy(),
        "I(f; t | S_base)": bits_values(rec["value"]).round(6).to_numpy(),
        "p": p_column(rec),
        "I(blocker; t | S_base)": bits_values(rec["threshold"]).round(6).to_numpy(),
        "decision": rec["decision"].to_numpy(),
        "S_base": rec["cond_names"].to_numpy(),
    })


def recovery_counts(result, target) -> dict:
    """Phase 3 of one target in numbers, from the record. Phase 3 scans the features outside
    PC ∪ SP (``outside``) by ascending index: a feature with s_f < δ1/2 is skipped (``skipped``:
    the ``recovery-skip`` rows), any other competes against the members of R not yet displaced
    (``tried`` features; ``lost`` competitions, ``recovered`` features). The scan ends early
    after a recovery when ``recovery="first"`` (``ended="first"``, the authors' code) or once
    every member of R is displaced (``ended="consumed"``): the ``not_reached`` features after
    the last recovered one are neither skipped nor tried. ``tried`` and ``not_reached`` need
    the full record (None at a lower trace level); the other counts come from the test counts
    and hold at every level. Empty R: Phase 3 does not run (every count 0, ``outside`` aside)."""
    t = result.target(target)
    outside = result.n_features - len(set(t.pc) | set(t.spouses))
    recovered = len(t.recovered)
    counts = t.test_counts
    out = {"outside": outside, "recovered": recovered,
           "lost": int(counts.get("recovery", 0)) - recovered,
           "skipped": int(counts.get("recovery-skip", 0)), "tried": 0, "not_reached": 0,
           "ended": None}
    if not t.skeleton or t.skipped:
        return out
    if recovered and result.params["recovery"] == "first":
        out["ended"] = "first"
    elif recovered and recovered == len(t.skeleton):
        out["ended"] = "consumed"
    if result.stats.get("trace", "full") != "full":
        out["tried"] = out["not_reached"] = None
        return out
    df = result.to_frame(t.id, names=False)
    out["tried"] = int(df.loc[df["step"] == "recovery", "b"].nunique())
    out["not_reached"] = outside - out["skipped"] - out["tried"]
    return out


def s_f_p(result, target) -> dict[int, str]:
    """``{feature: "p = …"}``: the p of s_f = I(X_f; t) for one target, from the record's
    ``feature-mi`` rows (:func:`camcf.viz.explain.p_text`); features without a row are absent."""
    from .explain import p_column

    df = result.to_frame(target)
    fm = df[df["step"] == "feature-mi"]
    return dict(zip(fm["b"].to_numpy().tolist(), p_column(fm), strict=True))


def label_mi_p(result, target) -> dict[int, str]:
    """``{category id: "p = …"}``: the p of I(t; C') for one target, from the record's
    ``label-mi`` rows (categories without a row are absent)."""
    from .explain import p_column

    df = result.to_frame(target)
    lm = df[df["step"] == "label-mi"]
    ids = (lm["b"].to_numpy() - result.n_features).tolist()
    return dict(zip(ids, p_column(lm), strict=True))


def pruning_frame(result, target) -> pd.DataFrame:
    """Every feature that reached Phase 4 for one target, with its fate and the numbers (bits
    with float noise as 0: :func:`camcf.viz.explain.bits`)."""
    from .explain import bits, disagreement_column, p_column

    t = result.target(target)
    s = np.asarray(result.mi_table[:, t.id], dtype=float)
    # the p of s_f (the feature-mi row) and of I(X_f; C_d) (the redundancy row), from the record
    p_s = s_f_p(result, t.id)
    df = result.to_frame(t.id)
    rd = df[df["step"] == "redundancy"]
    p_d = dict(zip(zip(rd["a"].to_numpy().tolist(), rd["b"].to_numpy().tolist(), strict=True),
                   p_column(rd), strict=True))
    sy = df[df["step"] == "symmetry"]  # s_f against δ1 in Phase 4, and its test's p
    dis_s = dict(zip(sy["b"].to_numpy().tolist(), disagreement_column(sy, result),
                     strict=True))
    m = result.n_features
    others = [c.id for c in result.categories if c.label_index != t.category.label_index]
    red = {f: (d, v) for f, d, v, _ in t.redundancy_removed}
    cut, sym = set(t.cut), set(t.symmetry_removed)
    rec = {f: r for f, r in t.recovered}
    g = result.params["gamma"]
    rows = []
    for f in t.cmb:
        best = int(np.argmax(result.mi_table[f, others])) if others else -1
        bv = bits(result.mi_table[f, others][best]) if others else float("nan")
        d = red[f][0] if f in red else (others[best] if others else None)
        sf = bits(s[f])
        vd = bits(result.mi_table[f, d]) if d is not None else float("nan")
        fate = ("cut-k2" if f in cut else "symmetry" if f in sym else
                "redundancy" if f in red else "blanket")
        rows.append({
            "feature_index": int(f), "feature": result.feature_names[f],
            "entered as": "PC" if f in t.pc else "spouse" if f in t.spouses else
            "recovered" if f in rec else "?",
            "s_f": sf, "p (s_f)": p_s.get(int(f), ""),
            "bits vs p (s_f)": dis_s.get(int(f), ""), "fate": fate,
            "explaining category": result.categories[d].display if d is not None else "",
            "I(f; C_d)": vd,
            "p (I(f; C_d))": p_d.get((int(f), m + d), "") if d is not None else "",
            "ratio I(f;C_d)/s_f": (vd / sf if d is not None and sf > 0 else float("inf")),
            "gamma": g, "best other I": bv,
        })
    return pd.DataFrame(rows, columns=["feature_index", "feature", "entered as", "s_f",
                                       "p (s_f)", "bits vs p (s_f)", "fate",
                                       "explaining category", "I(f; C_d)", "p (I(f; C_d))",
                                       "ratio I(f;C_d)/s_f", "gamma", "best other I"])


#: how a target chooser can order the label categories: key -> what the user reads
TARGET_SORTS: dict[str, str] = {
    "order": "flattening order",
    "size": "category size (largest first)",
    "blanket": "blanket size (largest first)",
    "skeleton": "skeleton size |R| (largest first)",
}


def target_order(result, by: str = "order", *, include_skipped: bool = False) -> list[int]:
    """Target ids ordered for a chooser.

    ``by``: ``"order"`` (flattening order), ``"size"`` (samples in the category),
    ``"blanket"`` (final blanket size) or ``"skeleton"`` (|R|), the largest first; ties keep the
    flattening order. Skipped categories are left out unless ``include_skipped``.
    """
    if by not in TARGET_SORTS:
        raise ValueError(f"unknown order {by!r}; one of {', '.join(TARGET_SORTS)}")
    ts = [t for t in result.targets if include_skipped or not t.skipped]
    key = {"order": lambda t: 0, "size": lambda t: -t.category.size,
           "blanket": lambda t: -len(t.blanket), "skeleton": lambda t: -len(t.skeleton)}[by]
    return [t.id for t in sorted(ts, key=lambda t: (key(t), t.id))]


def target_label(result, tid: int) -> str:
    """What a chooser shows for a target: ``label=value — n samples, blanket b, |R| r``."""
    t = result.targets[tid]
    extra = (f", mirror of {result.targets[t.mirror_of].category.display}"
             if t.mirror_of is not None else "")
    return (f"{t.category.display} — {t.category.size:,} samples, blanket "
            f"{len(t.blanket):,}, |R| {len(t.skeleton):,}{extra}")


def page_bounds(n_rows: int, page: int, size: int) -> tuple[int, int, int]:
    """Rows ``[start, stop)`` of 1-based ``page`` with ``size`` rows a page, and the number of
    pages (at least 1). A page beyond the last is clipped to the last."""
    size = max(1, int(size))
    n_pages = max(1, -(-int(n_rows) // size))
    page = min(max(1, int(page)), n_pages)
    start = (page - 1) * size
    return start, min(int(n_rows), start + size), n_pages
