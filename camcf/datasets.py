"""A built-in demo: discrete multi-label data sampled from a known causal network.

The app needs a data set that works without any file and on which the answer is known. This
module describes a small causal Bayesian network (a DAG over discrete features and labels) as
plain data, samples from it reproducibly, and derives from the same graph the true Markov
blanket, in features, of every label category (through :mod:`camcf.truth`, as for every known
network of :mod:`camcf.networks`: the demo is one of them, ``camcf.networks.load("demo")``);
:func:`camcf.truth.score` scores a selected feature set against that truth.

The default network (``DEMO_NETWORK``) is built so that every phase of Ca-MCF has something
to do; :data:`DEMO_STORY` names its parts. This docstring states facts about the *network*
only: what Ca-MCF makes of them depends on the sample and the parameters, and the app tells
that part from the run's own record (:func:`camcf.viz.story.demo_story`), so the story and the
"Found vs true" table cannot disagree.

``A`` and ``B``, a common cause and label blocking (Phase 1 and Phase 3)
    ``f00`` is a common cause of both labels. ``A`` is a near-copy of ``f00`` (1–2 % flips);
    ``B`` follows ``f00`` noisily and is pushed up by ``f01``; ``f02`` is a child of ``B``.
    ``A`` and ``B`` are therefore strongly tied, and once ``A`` is conditioned on it can
    screen ``f00`` off from ``B`` although ``f00`` is a true parent of ``B`` — the situation
    Phase 3 (recovery) is for.
``D``, a label → label edge (Phase 1 and Phase 2)
    ``D`` depends on label ``B`` and on ``f03``. ``B``'s parent ``f00`` and child ``f02`` are
    associated with ``D`` only through ``B``: they are not in ``D``'s blanket. (``f03`` is a
    co-parent of ``B``'s child ``D``, so it is in ``B``'s blanket as a spouse.)
``A``'s child with a spouse
    ``f04`` is a noisy OR of ``A`` and ``f05``. ``f05`` is independent of ``A``, but dependent
    on it given ``f04`` (explaining away), so ``f05`` is a true spouse of ``A``.
``M``, a multi-class label (category flattening)
    ``M`` has three categories (``low``, ``mid``, ``high``): the clipped sum of ``f07``
    (ternary) and ``f08`` (binary). ``f06`` is a parent of ``f07``, an ancestor that is not in
    the blanket. ``f09`` is a child of ``M`` (a ternary noisy copy).
``C``, a gated collider
    ``C`` follows ``f10`` when the gate ``f11`` is 0, and follows ``M`` (graded: ``low`` → 0,
    ``mid`` → coin flip, ``high`` → 1) when it is 1. ``f11`` alone says almost nothing about
    ``C`` but a lot once ``f10`` is known: the kind of variable Phase 2's spouse search is
    for. ``M``'s child ``f09`` (which sees all of ``M``) is associated with ``C`` only
    through ``M``: it is not in ``C``'s blanket, and a category of ``M`` tells more about it
    than ``C`` does — the kind of feature Phase 4's redundancy test is for.
``f12`` … ``f23``, noise
    Irrelevant features (two to four states), some of them children of other noise features.

The true blanket of a category indicator: see :func:`true_blankets`.
"""

from __future__ import annotations

import itertools
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Literal

import networkx as nx
import numpy as np

from .dataset import Dataset

__all__ = [
    "DEMO_NETWORK",
    "DEMO_STORY",
    "DemoData",
    "NodeSpec",
    "build_cpts",
    "demo_network",
    "make_causal_multilabel",
    "make_wide",
    "markov_blanket_features",
    "network_graph",
    "StoryPart",
    "sample_from_cpts",
    "true_blankets",
]

Kind = Literal["feature", "label"]
Rule = Literal["prior", "copy", "or", "sum", "table"]


@dataclass(frozen=True)
class NodeSpec:
    """One variable of the network and the rule that makes its conditional probability table.

    Parameters
    ----------
    name : str
        Variable name (a feature or label name in the generated data set).
    kind : {"feature", "label"}
    n_states : int
        Number of discrete states, coded ``0 .. n_states - 1``.
    parents : tuple of str
        Parent names; every parent must come earlier in the network list (topological order).
    rule : {"prior", "copy", "or", "sum", "table"}
        How the CPT is made.

        - ``"prior"`` — a root. ``params["probs"]`` (optional, default uniform) is the centre
          of a Dirichlet draw with concentration ``params.get("concentration", 40)``.
        - ``"copy"`` — noisy copy of the single parent (its code, clipped to ``n_states - 1``).
        - ``"or"`` — noisy OR: 1 if any parent code is non-zero.
        - ``"sum"`` — noisy clipped sum: ``min(n_states - 1, sum of parent codes)``.
        - ``"table"`` — a binary child with explicit ``params["p1"]``: an array indexed by
          the parent codes giving P(child = 1); each entry is jittered by up to
          ``params.get("jitter", 0.03)``.

        For ``copy``, ``or`` and ``sum`` the deterministic value is kept with probability
        ``1 - e`` and replaced by a uniformly chosen other state with probability ``e``,
        where ``e`` is drawn from ``flip`` independently for every parent configuration.
    flip : tuple of float
        Range of the flip probability of noisy functions.
    params : mapping
        Rule-specific parameters (see ``rule``).
    role : str
        One sentence on what the node demonstrates (shown by the app).
    categories : tuple of str, optional
        Display names of the states (labels only).
    """

    name: str
    kind: Kind
    n_states: int
    parents: tuple[str, ...] = ()
    rule: Rule = "prior"
    flip: tuple[float, float] = (0.10, 0.15)
    params: Mapping[str, object] = field(default_factory=dict)
    role: str = ""
    categories: tuple[str, ...] | None = None


def _noise(name: str, n_states: int, parents: tuple[str, ...] = (), rule: Rule = "prior",
           role: str = "irrelevant noise feature") -> NodeSpec:
    return NodeSpec(name, "feature", n_states, parents, rule, flip=(0.15, 0.25), role=role)


#: The default demo network, in topological order (every parent listed before its children).
DEMO_NETWORK: tuple[NodeSpec, ...] = (
    # --- A and B: a common cause, label blocking and recovery ---------------------------------
    NodeSpec("f00", "feature", 2, role="common cause of A and B"),
    NodeSpec("f01", "feature", 2, params={"probs": (0.7, 0.3)}, role="second parent of B"),
    NodeSpec("A", "label", 2, ("f00",), "copy", flip=(0.01, 0.02),
             role="near-copy of f00: a strong proxy of f00"),
    NodeSpec("B", "label", 2, ("f00", "f01"), "table",
             params={"p1": ((0.05, 0.55), (0.90, 0.97))},
             role="follows f00, pushed up by f01; strongly tied to A through f00"),
    NodeSpec("f02", "feature", 2, ("B",), "copy", flip=(0.10, 0.15), role="child of B"),
    # --- D: a label -> label edge ------------------------------------------------------------
    NodeSpec("f03", "feature", 2, role="second parent of D"),
    NodeSpec("D", "label", 2, ("B", "f03"), "table", params={"p1": ((0.05, 0.60), (0.55, 0.95))},
             role="child of label B and f03: B's parents are ancestors, not blanket members"),
    # --- A's child with a spouse ---------------------------------------------------------------
    NodeSpec("f05", "feature", 2, params={"probs": (0.6, 0.4)},
             role="spouse of A: independent of A, co-parent of A's child f04"),
    NodeSpec("f04", "feature", 2, ("A", "f05"), "or", flip=(0.05, 0.10),
             role="child of A (noisy OR of A and f05)"),
    # --- M: a multi-class label ----------------------------------------------------------------
    NodeSpec("f06", "feature", 3, role="grandparent of M (through f07): not in its blanket"),
    NodeSpec("f07", "feature", 3, ("f06",), "copy", flip=(0.15, 0.25), role="parent of M"),
    NodeSpec("f08", "feature", 2, params={"probs": (0.6, 0.4)}, role="parent of M"),
    NodeSpec("M", "label", 3, ("f07", "f08"), "sum", flip=(0.06, 0.10),
             role="three-class label: clipped sum of f07 and f08",
             categories=("low", "mid", "high")),
    NodeSpec("f09", "feature", 3, ("M",), "copy", flip=(0.05, 0.10),
             role="child of M; associated with C only through M"),
    # --- C: a gated collider -------------------------------------------------------------------
    NodeSpec("f10", "feature", 2, role="parent of C (followed when the gate f11 is 0)"),
    NodeSpec("f11", "feature", 2, role="gate parent of C: weak alone, strong given f10"),
    NodeSpec("C", "label", 2, ("f10", "f11", "M"), "table",
             params={"p1": (((0.10, 0.10, 0.10), (0.05, 0.50, 0.95)),
                            ((0.90, 0.90, 0.90), (0.05, 0.50, 0.95)))},
             role="follows f10 when f11 = 0, follows M (graded) when f11 = 1"),
    # --- noise ---------------------------------------------------------------------------------
    _noise("f12", 2),
    _noise("f13", 3),
    _noise("f14", 2, ("f12",), "copy", role="irrelevant (child of noise f12)"),
    _noise("f15", 4),
    _noise("f16", 2),
    _noise("f17", 3, ("f15",), "copy", role="irrelevant (child of noise f15)"),
    _noise("f18", 2),
    _noise("f19", 2, ("f16", "f18"), "or", role="irrelevant (child of noise f16, f18)"),
    _noise("f20", 3),
    _noise("f21", 2),
    _noise("f22", 4),
    _noise("f23", 2, ("f21",), "copy", role="irrelevant (child of noise f21)"),
)

#: Column order of the labels in the generated data set.
DEMO_LABEL_ORDER: tuple[str, ...] = ("A", "B", "M", "C", "D")


@dataclass(frozen=True)
class StoryPart:
    """One part of the demo network, for the app's story of a run.

    ``network`` states facts about the network only (true by construction); ``pairs`` are the
    (label, feature) pairs whose path through the phases the app tells from the run's record
    (see :func:`camcf.viz.story.demo_story`).
    """

    title: str
    network: str
    pairs: tuple[tuple[str, str], ...] = ()


#: The parts of :data:`DEMO_NETWORK` the app's story walks through, in order.
DEMO_STORY: tuple[StoryPart, ...] = (
    StoryPart("A and B: label blocking",
              "`f00` is a common cause of A and B. A is a near-copy of `f00` (1–2 % flips); B "
              "follows `f00` noisily and is pushed up by `f01`; `f02` is a child of B. Once A "
              "is conditioned on, it can screen `f00` off from B — what Phase 3 (recovery) is "
              "for.",
              (("B", "f00"), ("B", "f01"), ("B", "f02"), ("A", "f00"))),
    StoryPart("D: label → label",
              "D depends on label B and on `f03`. B's parent `f00` and child `f02` are "
              "associated with D only through B: they are not in D's blanket.",
              (("D", "f03"), ("D", "f00"), ("D", "f02"))),
    StoryPart("A's spouse",
              "`f04` is a noisy OR of A and `f05`. `f05` is independent of A but dependent on "
              "it given `f04` (explaining away): a true spouse of A.",
              (("A", "f04"), ("A", "f05"))),
    StoryPart("M: three categories",
              "M (low / mid / high) is the clipped sum of `f07` (ternary) and `f08` (binary); "
              "`f09` is a child of M; `f06`, a parent of `f07`, is an ancestor of M outside "
              "its blanket. Each category of M is a target of its own.",
              (("M", "f07"), ("M", "f08"), ("M", "f09"), ("M", "f06"))),
    StoryPart("C: gated collider",
              "C follows `f10` when the gate `f11` is 0 and follows M (graded) when it is 1. "
              "`f11` alone says almost nothing about C but a lot once `f10` is known — what "
              "Phase 2's spouse search is for. M's child `f09` is associated with C only "
              "through M: it is not in C's blanket.",
              (("C", "f10"), ("C", "f11"), ("C", "f09"))),
    StoryPart("Noise",
              "`f12` … `f23` are irrelevant to every label (some are children of other noise "
              "features)."),
)


@dataclass(frozen=True)
class DemoData:
    """A sampled demo data set together with the truth it was sampled from.

    Attributes
    ----------
    dataset : Dataset
        ``X`` holds feature codes (as floats), ``Y`` the label codes; features are named
        ``f00`` … in column order.
    graph : networkx.DiGraph
        The true DAG. Nodes are feature and label names with attributes ``kind``
        (``"feature"``/``"label"``), ``n_states``, ``role`` and ``index`` (column index in
        ``X`` or ``Y``).
    true_blankets : dict of (int, int) to frozenset of int
        For every label index ``i`` and every category code ``c`` observed in ``Y[:, i]``, the
        feature indices of the true Markov blanket (see :func:`true_blankets`).
    seed : int
    """

    dataset: Dataset
    graph: nx.DiGraph
    true_blankets: dict[tuple[int, int], frozenset[int]]
    seed: int


# ------------------------------------------------------------------------------------------------
# Structure
# ------------------------------------------------------------------------------------------------
def network_graph(nodes: Sequence[NodeSpec]) -> nx.DiGraph:
    """The DAG described by ``nodes``.

    Parameters
    ----------
    nodes : sequence of NodeSpec
        In topological order.

    Returns
    -------
    networkx.DiGraph
        One node per spec (attributes ``kind``, ``n_states``, ``role``), one edge per
        parent → child link.

    Raises
    ------
    ValueError
        If a name repeats or a parent is not listed before its child.
    """
    g = nx.DiGraph()
    for spec in nodes:
        if spec.name in g:
            raise ValueError(f"node {spec.name!r} is listed twice")
        missing = [p for p in spec.parents if p not in g]
        if missing:
            raise ValueError(f"node {spec.name!r}: parents {missing} must be listed before it")
        g.add_node(spec.name, kind=spec.kind, n_states=spec.n_states, role=spec.role)
        g.add_edges_from((p, spec.name) for p in spec.parents)
    return g


def markov_blanket_features(graph: nx.DiGraph, node: str) -> set[str]:
    """The feature members of ``node``'s Markov blanket in a DAG.

    The Markov blanket of a node is its parents, its children and the other parents of its
    children (spouses), as :func:`camcf.truth.blanket_of` reads them. Children may be features
    or labels; only the members whose ``kind`` attribute is ``"feature"`` are returned (labels
    are targets, not selectable features). A spouse counts whatever the kind of the child it
    shares: a feature parent of a label child of ``node`` is a member.

    Parameters
    ----------
    graph : networkx.DiGraph
        A DAG whose nodes carry ``kind`` = ``"feature"`` or ``"label"``.
    node : str

    Returns
    -------
    set of str
        Feature names.
    """
    from .truth import blanket_of

    return {m for m in blanket_of(graph, node).blanket
            if graph.nodes[m].get("kind") == "feature"}


def true_blankets(
    graph: nx.DiGraph,
    feature_names: Sequence[str],
    label_names: Sequence[str],
    categories: Sequence[Sequence[int]],
) -> dict[tuple[int, int], frozenset[int]]:
    """True Markov blankets, in feature indices, of every label category indicator.

    For a label ``L`` the blanket is the feature part of its Markov blanket in the DAG
    (:meth:`camcf.truth.Truth.category_blankets`): its feature parents, its feature children,
    and the feature parents of its children (children may be labels or features). For a category indicator ``[L == c]`` this module uses the **same
    feature set as L**. The indicator is a function of ``L``, so this set always shields it from
    the other features; for a particular category a smaller set can suffice (e.g. a parent
    that only moves ``L`` between two other categories), but a category-specific minimal set
    depends on the CPT values, not on the graph, and is not what is scored here.

    Parameters
    ----------
    graph : networkx.DiGraph
    feature_names, label_names : sequence of str
        Column order of ``X`` and ``Y``.
    categories : sequence of sequence of int
        Per label, the category codes to list.

    Returns
    -------
    dict of (int, int) to frozenset of int
        Keyed by ``(label index, category code)``.
    """
    from .truth import truth_of

    truth = truth_of(graph, list(label_names), list(feature_names))
    return truth.category_blankets(feature_names, label_names, categories)


# ------------------------------------------------------------------------------------------------
# Conditional probability tables and sampling
# ------------------------------------------------------------------------------------------------
def _mode(rule: Rule, values: tuple[int, ...], n_states: int) -> int:
    if rule == "copy":
        return min(values[0], n_states - 1)
    if rule == "or":
        return int(any(values))
    if rule == "sum":
        return min(sum(values), n_states - 1)
    raise ValueError(f"rule {rule!r} has no deterministic value")


def build_cpts(nodes: Sequence[NodeSpec], rng: np.random.Generator) -> dict[str, np.ndarray]:
    """Conditional probability tables, drawn reproducibly from ``rng``.

    Parameters
    ----------
    nodes : sequence of NodeSpec
        In topological order.
    rng : numpy.random.Generator

    Returns
    -------
    dict of str to ndarray
        For each node, an array of shape ``(*parent n_states, n_states)``: the distribution of
        the node for every parent configuration (rows sum to 1).
    """
    states = {s.name: s.n_states for s in nodes}
    cpts: dict[str, np.ndarray] = {}
    for s in nodes:
        shape = tuple(states[p] for p in s.parents)
        if s.rule == "prior":
            if s.parents:
                raise ValueError(f"node {s.name!r}: a prior has no parents")
            centre = np.asarray(s.params.get("probs", np.full(s.n_states, 1.0 / s.n_states)))
            conc = float(s.params.get("concentration", 40.0))
            cpts[s.name] = rng.dirichlet(centre * conc)
        elif s.rule == "table":
            if s.n_states != 2:
                raise ValueError(f"node {s.name!r}: a table rule makes a binary child")
            p1 = np.asarray(s.params["p1"], dtype=float)
            if p1.shape != shape:
                raise ValueError(f"node {s.name!r}: table shape {p1.shape}, parents {shape}")
            jitter = float(s.params.get("jitter", 0.03))
            p1 = np.clip(p1 + rng.uniform(-jitter, jitter, size=shape), 0.01, 0.99)
            cpts[s.name] = np.stack([1.0 - p1, p1], axis=-1)
        else:
            table = np.empty(shape + (s.n_states,))
            lo, hi = s.flip
            for config in itertools.product(*(range(k) for k in shape)):
                e = rng.uniform(lo, hi)
                row = np.full(s.n_states, e / (s.n_states - 1))
                row[_mode(s.rule, config, s.n_states)] = 1.0 - e
                table[config] = row
            cpts[s.name] = table
    return cpts


def sample_from_cpts(
    nodes: Sequence[NodeSpec], cpts: Mapping[str, np.ndarray], n: int, rng: np.random.Generator
) -> dict[str, np.ndarray]:
    """Ancestral sampling: every node drawn from its CPT given its sampled parents.

    Parameters
    ----------
    nodes : sequence of NodeSpec
        In topological order.
    cpts : mapping of str to ndarray
        As returned by :func:`build_cpts`.
    n : int
        Number of samples.
    rng : numpy.random.Generator

    Returns
    -------
    dict of str to ndarray of int64, shape (n,)
    """
    values: dict[str, np.ndarray] = {}
    for s in nodes:
        cpt = cpts[s.name]
        probs = cpt[tuple(values[p] for p in s.parents)] if s.parents else np.tile(cpt, (n, 1))
        u = rng.random(n)
        cum = np.cumsum(probs, axis=1)
        values[s.name] = np.minimum((u[:, None] >= cum).sum(axis=1), s.n_states - 1).astype(
            np.int64
        )
    return values


# ------------------------------------------------------------------------------------------------
# The demo
# ------------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class _Rules:
    """A network of :class:`NodeSpec` s as a sampler: CPTs drawn by :func:`build_cpts`, rows
    by :func:`sample_from_cpts`, both from ``numpy.random.default_rng(seed)``."""

    nodes: tuple[NodeSpec, ...]

    def sample_codes(self, n: int, seed: int) -> dict[str, np.ndarray]:
        rng = np.random.default_rng(seed)
        cpts = build_cpts(self.nodes, rng)
        return sample_from_cpts(self.nodes, cpts, n, rng)


def demo_network(nodes: Sequence[NodeSpec] = DEMO_NETWORK):
    """The demo (or another network of :class:`NodeSpec` s) as a
    :class:`camcf.networks.Network` — ``camcf.networks.load("demo")`` — so that it is sampled,
    and its truth read, as every known network is."""
    import hashlib

    from .networks import Network

    nodes = tuple(nodes)
    states = {s.name: tuple(s.categories or (str(k) for k in range(s.n_states))) for s in nodes}
    return Network(name="demo", title="built-in demo", graph=network_graph(nodes),
                   states=states, model=_Rules(nodes),
                   fingerprint=hashlib.sha256(repr(nodes).encode()).hexdigest()[:20])


def make_causal_multilabel(
    n_samples: int = 1000,
    *,
    seed: int = 0,
    nodes: Sequence[NodeSpec] = DEMO_NETWORK,
    label_order: Sequence[str] | None = None,
) -> DemoData:
    """Sample the built-in demo data set from a known causal network.

    The network (``DEMO_NETWORK`` by default; its story is told in the module docstring) has 24
    discrete features and 5 labels, one of them three-class. Every number drawn — the CPTs
    and the samples — comes from ``numpy.random.default_rng(seed)``, so the same arguments give
    identical data. With the default network and n = 1000, Ca-MCF at δ1 = 0.05, δ2 = 0.1,
    k1 = 0.7, k2 = 1.0 has work to do in every phase (label skeleton, PC and spouses, recovery
    of a feature blocked by a correlated label, symmetry and redundancy pruning).

    Parameters
    ----------
    n_samples : int, default 1000
    seed : int, default 0
    nodes : sequence of NodeSpec, optional
        Another network, in topological order.
    label_order : sequence of str, optional
        Column order of the labels; by default ``("A", "B", "M", "C", "D")`` for the default
        network and the order of listing otherwise. Features keep the sorted order of their
        names.

    Returns
    -------
    DemoData
    """
    graph = network_graph(nodes)
    if label_order is None:
        listed = [s.name for s in nodes if s.kind == "label"]
        label_order = DEMO_LABEL_ORDER if set(listed) == set(DEMO_LABEL_ORDER) else listed
    labels = list(label_order)
    if sorted(labels) != sorted(s.name for s in nodes if s.kind == "label"):
        raise ValueError(f"label_order {labels} must list every label exactly once")
    # one sampler and one truth for every known network: the demo is one of them
    dataset = demo_network(nodes).simulate(labels, n_samples, seed)
    for j, name in enumerate(dataset.feature_names):
        graph.nodes[name]["index"] = j
    for i, name in enumerate(labels):
        graph.nodes[name]["index"] = i
    categories = [np.unique(dataset.Y[:, i]) for i in range(len(labels))]
    blankets = dataset.truth.category_blankets(dataset.feature_names, labels, categories)
    return DemoData(dataset=dataset, graph=graph, true_blankets=blankets, seed=seed)


def make_wide(n: int, m: int, q: int, seed: int = 0, *, group_size: int = 6,
              parents_per_label: int = 3) -> Dataset:
    """A seeded wide multi-label data set: ``q`` binary labels (``2q`` label categories) and
    ``m`` ternary features, for exercising the explorer at real sizes (hundreds of label
    categories, thousands of features). It has no known truth; use :func:`make_causal_multilabel`
    when the answer matters.

    The rule: labels come in groups of ``group_size`` that share a hidden binary factor (so their
    categories are tied and enter each other's label skeleton); each label also depends on
    ``parents_per_label`` features of its own (logistic in the centred codes), and each label has
    one child feature (a noisy copy with 15 % flips). Every other feature is uniform noise on
    {0, 1, 2}. Deterministic for a given ``(n, m, q, seed)``.

    Parameters
    ----------
    n : int
        Samples (at least 20).
    m : int
        Features (at least ``parents_per_label + 1``).
    q : int
        Labels (at least 1); the data set has ``2q`` label categories.
    seed : int
        Seed of the generator.

    Returns
    -------
    Dataset
        ``X`` of shape (n, m) holding codes 0..2, ``Y`` of shape (n, q) holding 0/1; features
        ``f00000…``, labels ``L000…``, categories ``"0"``/``"1"``.
    """
    if n < 20 or q < 1 or m < parents_per_label + 1:
        raise ValueError(f"make_wide needs n ≥ 20, q ≥ 1, m ≥ {parents_per_label + 1}; got "
                         f"n={n}, m={m}, q={q}")
    rng = np.random.default_rng(seed)
    X = rng.integers(0, 3, size=(n, m)).astype(np.int64)
    n_groups = max(1, -(-q // max(1, group_size)))
    G = rng.integers(0, 2, size=(n, n_groups)) * 2 - 1  # ±1 hidden factors
    Y = np.zeros((n, q), dtype=np.int64)
    children = rng.permutation(m)
    for i in range(q):
        parents = rng.choice(m, size=parents_per_label, replace=False)
        w = rng.uniform(0.8, 1.6, size=parents_per_label) * rng.choice([-1, 1], parents_per_label)
        logit = 1.4 * G[:, i // max(1, group_size)] + (X[:, parents] - 1) @ w
        logit += rng.normal(0.0, 0.8, size=n) + rng.uniform(-0.6, 0.6)
        Y[:, i] = (logit > 0).astype(np.int64)
        c = int(children[i % m])
        if c not in parents:
            flip = rng.random(n) < 0.15
            X[:, c] = np.where(flip, rng.integers(0, 3, size=n), 2 * Y[:, i])
    wf = max(5, len(str(m - 1)))
    wl = max(3, len(str(q - 1)))
    return Dataset(
        X=X.astype(float), Y=Y,
        feature_names=[f"f{j:0{wf}d}" for j in range(m)],
        label_names=[f"L{i:0{wl}d}" for i in range(q)],
        source=f"make_wide(n={n}, m={m}, q={q}, seed={seed})",
        category_names=[{0: "0", 1: "1"} for _ in range(q)],
    )
