"""Ground truth: the true Markov blankets of the labels in a known DAG, and the one scoring
function every answer is judged by.

A known causal network (a :mod:`camcf.networks` network, the built-in demo of
:mod:`camcf.datasets`) is a DAG over variables; some of them are the labels, every other one a
feature. For a label ``L`` the DAG gives (:func:`blanket_of`):

* its **parents** and **children**;
* its **spouses**: the other parents of its children that are neither parents nor children of
  ``L`` themselves (so the three lists are disjoint);
* its **Markov blanket**: the union of the three (what ``pgmpy``'s
  ``DiscreteBayesianNetwork.get_markov_blanket`` returns).

The blanket splits into its **features** — what a feature selection should find for ``L`` — and
its **labels** — what Ca-MCF's label skeleton R should find. Each category ``[L = c]`` of a label
is scored against its label's feature blanket (:meth:`Truth.category_blankets`; a category
indicator is a function of ``L``, so ``L``'s blanket shields it from every other feature).

**Scores** (:func:`score`, the one function the library, the command line, the explorer, the
benchmark and the tests use): precision, recall, F1 and the distance
``√((1 − P)² + (1 − R)²)`` of a found set against a true set, with pyCausalFS's conventions for
empty sets (Yu et al. 2020, pyCausalFS ``CBD/evaluation_MBalgorithm.py``, function
``evaluation``: when the true blanket is empty, an empty answer scores P = R = F1 = 1 and any
other answer P = R = F1 = 0; when the true blanket is not empty, an empty answer scores
P = R = F1 = 0; F1 is 0 when no true member was found). :func:`score_blankets` scores per label
(the label's found feature blanket — for Ca-MCF the union of its categories' blankets —
against its true feature blanket, and the found label blanket against the true one) and overall
(the selection against the union of the true feature blankets); the mean over labels is
pyCausalFS's figure (it averages the per-target scores).

>>> s = score({"a", "b", "c"}, {"b", "c", "d", "e"})
>>> round(s.precision, 3), s.recall, round(s.f1, 3), round(s.distance, 3)
(0.667, 0.5, 0.571, 0.601)
>>> score(set(), set()).f1, score({"x"}, set()).f1, score(set(), {"x"}).recall
(1.0, 0.0, 0.0)
"""

from __future__ import annotations

import json
import math
from collections.abc import Hashable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .errors import DataFormatError, LabelSpecError

__all__ = ["LabelTruth", "Score", "Truth", "blanket_of", "check_names", "found_in_result",
           "found_indices", "mean_scores", "score", "score_blankets", "score_result",
           "score_selection", "truth_of"]


# ---------------------------------------------------------------------------- scores
@dataclass(frozen=True)
class Score:
    """One found set scored against one true set (see :func:`score`).

    ``found`` and ``true`` are sorted; ``tp`` (in both), ``missed`` (true, not found) and
    ``extra`` (found, not true) are sorted too.
    """

    precision: float
    recall: float
    f1: float
    distance: float
    found: tuple
    true: tuple

    @property
    def tp(self) -> tuple:
        return tuple(v for v in self.found if v in set(self.true))

    @property
    def missed(self) -> tuple:
        return tuple(v for v in self.true if v not in set(self.found))

    @property
    def extra(self) -> tuple:
        return tuple(v for v in self.found if v not in set(self.true))

    def to_dict(self) -> dict[str, Any]:
        """``{"precision", "recall", "f1", "distance", "found", "true"}`` (lists)."""
        return {"precision": self.precision, "recall": self.recall, "f1": self.f1,
                "distance": self.distance, "found": list(self.found), "true": list(self.true)}


def _sorted(values: Iterable[Hashable]) -> tuple:
    return tuple(sorted(set(values), key=lambda v: (str(type(v)), v)))


def score(found: Iterable[Hashable], true: Iterable[Hashable]) -> Score:
    """Precision, recall, F1 and distance of ``found`` against ``true``.

    ``P = |found ∩ true| / |found|``, ``R = |found ∩ true| / |true|``, ``F1 = 2PR / (P + R)``
    (0 when ``P + R = 0``), distance ``√((1 − P)² + (1 − R)²)`` (0 is perfect, √2 the worst).
    Empty sets follow pyCausalFS (``CBD/evaluation_MBalgorithm.py``, ``evaluation``): both
    empty → P = R = F1 = 1, distance 0; exactly one of them empty → P = R = F1 = 0,
    distance √2 (an empty answer is not "precise", and a non-empty answer where nothing is
    true finds nothing true).

    Parameters
    ----------
    found, true : iterables of hashable
        Feature names or indices (repeats are ignored).

    Returns
    -------
    Score
    """
    f, t = set(found), set(true)
    if not t or not f:
        p = r = 1.0 if (not t and not f) else 0.0
    else:
        hits = len(f & t)
        p, r = hits / len(f), hits / len(t)
    f1 = 2 * p * r / (p + r) if p + r > 0 else 0.0
    return Score(precision=p, recall=r, f1=f1, distance=math.hypot(1 - p, 1 - r),
                 found=_sorted(f), true=_sorted(t))


# ---------------------------------------------------------------------------- the truth
@dataclass(frozen=True)
class LabelTruth:
    """One label's place in the DAG: node names, sorted; the three lists are disjoint."""

    label: str
    parents: tuple[str, ...]
    children: tuple[str, ...]
    spouses: tuple[str, ...]

    @property
    def blanket(self) -> tuple[str, ...]:
        """The Markov blanket: parents ∪ children ∪ spouses, sorted."""
        return tuple(sorted({*self.parents, *self.children, *self.spouses}))

    def role(self, node: str) -> str | None:
        """``"parent"``, ``"child"``, ``"spouse"`` or None (not in the blanket)."""
        for name, members in (("parent", self.parents), ("child", self.children),
                              ("spouse", self.spouses)):
            if node in members:
                return name
        return None

    def to_dict(self) -> dict[str, list[str]]:
        return {"parents": list(self.parents), "children": list(self.children),
                "spouses": list(self.spouses), "blanket": list(self.blanket)}


def blanket_of(graph, node: str) -> LabelTruth:
    """The parents, children and spouses of ``node`` in the DAG ``graph``
    (a ``networkx.DiGraph``; spouses: co-parents of its children that are not adjacent to it).
    """
    parents = set(graph.predecessors(node))
    children = set(graph.successors(node))
    co_parents = {p for c in children for p in graph.predecessors(c)}
    spouses = co_parents - parents - children - {node}
    return LabelTruth(label=node, parents=tuple(sorted(parents)),
                      children=tuple(sorted(children)), spouses=tuple(sorted(spouses)))


@dataclass(frozen=True, eq=False)
class Truth:
    """The true blankets of the labels of a data set sampled from a known DAG.

    Attributes
    ----------
    network : str
        Its name (``"alarm"``, a file's name, ``"demo"``).
    labels, features : tuple of str
        The labels and the features, in the data set's column order.
    blankets : dict of str to LabelTruth
        Per label.
    graph : networkx.DiGraph or None
        The DAG (None when read back from a JSON file).
    """

    network: str
    labels: tuple[str, ...]
    features: tuple[str, ...]
    blankets: dict[str, LabelTruth]
    graph: Any = field(default=None, repr=False)

    def feature_blanket(self, label: str) -> tuple[str, ...]:
        """The features of ``label``'s blanket (what a selection should find), sorted."""
        feats = set(self.features)
        return tuple(v for v in self.blankets[label].blanket if v in feats)

    def label_blanket(self, label: str) -> tuple[str, ...]:
        """The labels of ``label``'s blanket (what the label skeleton R should find), sorted."""
        labs = set(self.labels)
        return tuple(v for v in self.blankets[label].blanket if v in labs)

    def selection(self) -> tuple[str, ...]:
        """The union of the labels' feature blankets, sorted (what the whole selection should
        be)."""
        return tuple(sorted({f for lab in self.labels for f in self.feature_blanket(lab)}))

    def role(self, label: str, feature: str) -> str | None:
        """``feature``'s place in ``label``'s blanket (parent, child, spouse) or None."""
        return self.blankets[label].role(feature)

    def category_blankets(self, feature_names: Sequence[str], label_names: Sequence[str],
                          categories: Sequence[Iterable[int]]) -> dict[tuple[int, int],
                                                                        frozenset[int]]:
        """Per label category, the true blanket in feature column indices.

        Parameters
        ----------
        feature_names, label_names : sequence of str
            The data set's columns (every label must be one of :attr:`labels`).
        categories : sequence of iterables of int
            Per label, the category codes to list.

        Returns
        -------
        dict of (label index, category code) to frozenset of feature indices
            A category has its label's feature blanket.
        """
        index = {name: j for j, name in enumerate(feature_names)}
        out: dict[tuple[int, int], frozenset[int]] = {}
        for i, label in enumerate(label_names):
            members = frozenset(index[f] for f in self.feature_blanket(label) if f in index)
            for c in categories[i]:
                out[(i, int(c))] = members
        return out

    def to_dict(self) -> dict[str, Any]:
        """The JSON form (``camcf simulate``'s ``OUT.truth.json``): ``network``, ``labels``,
        ``features`` (sorted names) and per label its ``parents``, ``children``, ``spouses``
        and ``blanket``."""
        return {"network": self.network, "labels": sorted(self.labels),
                "features": sorted(self.features),
                "blankets": {lab: self.blankets[lab].to_dict() for lab in sorted(self.labels)}}

    def write(self, path: str | Path) -> Path:
        """Write :meth:`to_dict` as JSON (atomically)."""
        from .output import write_json

        return write_json(path, self.to_dict())

    @classmethod
    def from_dict(cls, d: Mapping[str, Any], *, where: str = "the truth") -> Truth:
        """Read :meth:`to_dict`'s form back (a :class:`camcf.DataFormatError` naming what is
        missing)."""
        try:
            labels = tuple(str(v) for v in d["labels"])
            features = tuple(str(v) for v in d["features"])
            blankets = {}
            for lab in labels:
                b = d["blankets"][lab]
                blankets[lab] = LabelTruth(lab, tuple(b["parents"]), tuple(b["children"]),
                                           tuple(b["spouses"]))
        except (KeyError, TypeError) as e:
            raise DataFormatError(
                f"{where} is not a camcf truth file: {type(e).__name__} {e} (expected "
                "{\"network\", \"labels\", \"features\", \"blankets\": {LABEL: {\"parents\", "
                "\"children\", \"spouses\", \"blanket\"}}}, as camcf simulate writes it)"
            ) from None
        return cls(network=str(d.get("network", "")), labels=labels, features=features,
                   blankets=blankets)

    @classmethod
    def read(cls, path: str | Path) -> Truth:
        """Read a truth JSON file (``camcf simulate``'s ``OUT.truth.json``)."""
        from .errors import FileAccessError

        p = Path(path)
        if not p.is_file():
            raise DataFormatError(f"{path}: no such truth file; camcf simulate writes one "
                                  "beside its ARFF (OUT.truth.json)")
        try:
            text = p.read_text(encoding="utf-8")
        except OSError as e:
            raise FileAccessError(f"{path}: cannot be read ({e.strerror or e})") from None
        try:
            d = json.loads(text)
        except ValueError as e:
            raise DataFormatError(f"{path} is not JSON ({e}); give the OUT.truth.json that "
                                  "camcf simulate wrote") from None
        return cls.from_dict(d, where=str(path))


def truth_of(graph, labels: Sequence[str], features: Sequence[str] | None = None, *,
             network: str = "") -> Truth:
    """The :class:`Truth` of ``labels`` in the DAG ``graph`` (``features``: default every
    other node, sorted)."""
    missing = [lab for lab in labels if lab not in graph]
    if missing:
        raise LabelSpecError(f"label(s) {missing} are not nodes of the network {network!r}",
                             labels=list(labels))
    if features is None:
        chosen = set(labels)
        features = sorted(n for n in graph.nodes if n not in chosen)
    return Truth(network=network, labels=tuple(labels), features=tuple(features),
                 blankets={lab: blanket_of(graph, lab) for lab in labels}, graph=graph)


# ---------------------------------------------------------------------------- per label
def check_names(truth: Truth, feature_names: Sequence[str], label_names: Sequence[str]
                ) -> None:
    """Refuse data whose labels are not the truth's labels, or whose features are not among
    its features (a :class:`camcf.LabelSpecError` naming them and the way out): a truth holds
    for one choice of labels only."""
    if set(label_names) != set(truth.labels):
        raise LabelSpecError(
            f"the data's labels ({', '.join(label_names)}) are not the truth's labels "
            f"({', '.join(truth.labels)}; network {truth.network}); give the truth file "
            "written with these data (camcf simulate … --output OUT.arff writes "
            "OUT.truth.json)", labels=list(label_names))
    unknown = sorted(set(feature_names) - set(truth.features))
    if unknown:
        raise LabelSpecError(
            f"the data's feature(s) {', '.join(unknown[:5])} are not features of the truth "
            f"(network {truth.network}); give the truth file written with these data",
            labels=list(label_names))


def score_blankets(truth: Truth, features: Mapping[str, Iterable[str]], *,
                   labels: Mapping[str, Iterable[str]] | None = None,
                   selection: Iterable[str] | None = None) -> dict[str, Any]:
    """Every label's found blanket, and the selection, scored against the truth.

    Parameters
    ----------
    truth : Truth
    features : dict of label to feature names
        Per label, the features found for it (every label of ``truth`` that is missing here
        counts as an empty answer).
    labels : dict of label to label names, optional
        Per label, the labels found in its blanket (Ca-MCF: the labels of the label skeleton
        R of its categories). Scored under ``"labels"`` of each label when given.
    selection : feature names, optional
        The whole selection (default: the union of ``features``).

    Returns
    -------
    dict
        ``{"per_label": {LABEL: {precision, recall, f1, distance, found, true[, labels]}},
        "overall": {…} (the selection against the union of the true feature blankets),
        "mean": {precision, recall, f1, distance} (the mean over labels)}``.
    """
    per_label: dict[str, Any] = {}
    for lab in truth.labels:
        row = score(features.get(lab, ()), truth.feature_blanket(lab)).to_dict()
        if labels is not None:
            row["labels"] = score(labels.get(lab, ()), truth.label_blanket(lab)).to_dict()
        per_label[lab] = row
    chosen = (selection if selection is not None
              else {f for v in features.values() for f in v})
    keys = ("precision", "recall", "f1", "distance")
    n = len(per_label)
    mean = {k: (sum(r[k] for r in per_label.values()) / n if n else math.nan) for k in keys}
    return {"per_label": per_label, "overall": score(chosen, truth.selection()).to_dict(),
            "mean": mean}


def found_indices(result) -> tuple[tuple[tuple[int, ...], ...], tuple[tuple[int, ...], ...]]:
    """Per label of a :class:`camcf.Result` (in its label order): the feature indices found
    (the union of its categories' blankets) and the label indices found (the labels of its
    categories' label skeleton R, itself excluded). Skipped categories contribute nothing."""
    q = len(result.label_names)
    feats: list[set[int]] = [set() for _ in range(q)]
    labs: list[set[int]] = [set() for _ in range(q)]
    cats = result.categories
    for t in result.targets:
        if t.skipped:
            continue
        i = t.category.label_index
        feats[i].update(int(f) for f in t.blanket)
        labs[i].update(cats[c].label_index for c in t.skeleton)
    for i in range(q):
        labs[i].discard(i)
    return (tuple(tuple(sorted(v)) for v in feats), tuple(tuple(sorted(v)) for v in labs))


def found_in_result(result) -> tuple[dict[str, list[str]], dict[str, list[str]]]:
    """:func:`found_indices` by name: ``({label: features}, {label: labels})``."""
    feats, labs = found_indices(result)
    fn, ln = result.feature_names, result.label_names
    return ({ln[i]: [fn[j] for j in v] for i, v in enumerate(feats)},
            {ln[i]: [ln[j] for j in v] for i, v in enumerate(labs)})


def score_result(result, truth: Truth) -> dict[str, Any]:
    """:func:`score_blankets` of a Ca-MCF :class:`camcf.Result` (per label its categories'
    blankets and label skeletons; overall its selection)."""
    feats, labs = found_indices(result)
    return score_selection(truth, result.feature_names, result.label_names,
                           selection=result.selected_indices.tolist(), blankets=feats,
                           label_blankets=labs)


def score_selection(truth: Truth, feature_names: Sequence[str], label_names: Sequence[str], *,
                    selection: Iterable[int], blankets: Sequence[Iterable[int]] | None = None,
                    label_blankets: Sequence[Iterable[int]] | None = None) -> dict[str, Any]:
    """:func:`score_blankets` of an answer given in column indices of data whose columns are
    ``feature_names`` and ``label_names`` (checked against the truth: :func:`check_names`).

    ``selection``: the selected feature indices; ``blankets`` (optional): per label (in
    ``label_names`` order) the feature indices found for it — without them, or when their
    number is not the number of labels, ``per_label`` and ``mean`` are None (the method
    answered for the whole selection only); ``label_blankets`` (optional): per label the label
    indices found in its blanket."""
    check_names(truth, feature_names, label_names)
    chosen = [feature_names[j] for j in selection]
    if blankets is None or len(blankets) != len(label_names):
        return {"per_label": None, "overall": score(chosen, truth.selection()).to_dict(),
                "mean": None}
    feats = {label_names[i]: [feature_names[j] for j in v] for i, v in enumerate(blankets)}
    labs = None
    if label_blankets is not None and len(label_blankets) == len(label_names):
        labs = {label_names[i]: [label_names[j] for j in v]
                for i, v in enumerate(label_blankets)}
    return score_blankets(truth, feats, labels=labs, selection=chosen)


_KEYS = ("precision", "recall", "f1", "distance")


def mean_scores(scores: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    """Several answers' scores (each :func:`score_blankets`'s dict, e.g. one per split or per
    seed) summed up: the mean and the sample SD (None for one answer) of precision, recall,
    F1 and distance, overall, per label and of the mean over labels (``per_label`` and
    ``mean`` are None when an answer has none)."""
    import statistics

    def stats(values: list[float]) -> dict[str, float | None]:
        return {"mean": statistics.fmean(values) if values else math.nan,
                "sd": statistics.stdev(values) if len(values) >= 2 else None}

    def block(rows: list[Mapping[str, Any]]) -> dict[str, Any]:
        return {k: stats([float(r[k]) for r in rows]) for k in _KEYS}

    out: dict[str, Any] = {"n": len(scores), "overall": block([s["overall"] for s in scores])}
    if scores and all(s.get("per_label") for s in scores):
        labels = list(scores[0]["per_label"])
        out["per_label"] = {lab: block([s["per_label"][lab] for s in scores])
                            for lab in labels}
        out["mean"] = block([s["mean"] for s in scores])
    else:
        out["per_label"] = out["mean"] = None
    return out
