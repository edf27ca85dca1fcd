"""The demo's story, told from the run: what the network has, and what this run did with it.

The network's facts come from the true DAG (parents, children, spouses); what Ca-MCF did comes
from the run's record (:func:`camcf.viz.explain.feature_story`); the verdict for each feature
(true positive, missed, extra, correctly left out) is computed exactly as
:func:`camcf.viz.summary.truth_table` computes "Found vs true". So the story changes with the
sample and the parameters, and it cannot contradict the table.
"""

from __future__ import annotations

from dataclasses import dataclass

import networkx as nx

from .explain import feature_steps, feature_story

#: verdict key -> words (the same four outcomes as Found vs true)
VERDICTS = {
    "tp": "found: a true positive",
    "missed": "**missed**: Found vs true lists it under missed features",
    "extra": "**extra**: Found vs true lists it under extra features",
    "left-out": "correctly left out",
}


def true_role(graph: nx.DiGraph, label: str, feature: str) -> str:
    """What ``feature`` is to ``label`` in the true DAG: ``parent``, ``child``, ``spouse
    (co-parent of X)``, or, outside the blanket, ``ancestor``, ``descendant``, ``related``
    (connected only through other variables) or ``unrelated``."""
    if graph.has_edge(feature, label):
        return "parent"
    if graph.has_edge(label, feature):
        return "child"
    shared = [c for c in graph.successors(label) if graph.has_edge(feature, c)]
    if shared:
        return f"spouse (co-parent of {', '.join(sorted(shared))})"
    if nx.has_path(graph, feature, label):
        return "ancestor"
    if nx.has_path(graph, label, feature):
        return "descendant"
    if nx.has_path(graph.to_undirected(as_view=True), feature, label):
        return "related"
    return "unrelated"


_OUTSIDE = {"ancestor": "an ancestor of {L}", "descendant": "a descendant of {L}",
            "related": "related to {L} only through other variables",
            "unrelated": "unrelated to {L}"}


def role_text(role: str, label: str) -> str:
    """A :func:`true_role` in words: ``a true parent of B``, ``not in D's true blanket (an
    ancestor of D)``."""
    if in_true_blanket(role):
        kind, _, rest = role.partition(" ")
        return f"a true {kind} of {label}" + (f" {rest}" if rest else "")
    return f"not in {label}'s true blanket ({_OUTSIDE[role].format(L=label)})"


def in_true_blanket(role: str) -> bool:
    """Whether a :func:`true_role` makes the feature a member of the true blanket."""
    return role in ("parent", "child") or role.startswith("spouse")


@dataclass(frozen=True)
class StoryLine:
    """One (target category, feature) of the story."""

    target: int  # target id
    category: str  # its display name
    feature: int
    feature_name: str
    role: str  # true_role of the feature for the category's label
    path: str  # feature_story: the record's decisions about it
    found: bool  # in the category's final blanket
    true: bool  # in the category's true blanket (the truth dict of the run)
    verdict: str  # a key of VERDICTS
    steps: tuple[str, ...] = ()  # feature_steps: each decision, in a few words
    end: str = ""  # where it ended ("in / not in the final blanket of …")
    same_as: tuple[str, ...] = ()  # other categories (complements) with the same decisions

    @property
    def text(self) -> str:
        """The line as Markdown: the feature, its true role and the category, then one
        indented bullet per decision, then the verdict."""
        also = (f" ({', '.join(self.same_as)}, its complement, gives the same result)"
                if self.same_as else "")
        label = self.category.split("=")[0]
        out = [f"**{self.feature_name}**, {role_text(self.role, label)} — for "
               f"{self.category}{also}:"]
        out += [f"    - {s}" for s in self.steps]
        out.append(f"    - so it is {self.end}. Verdict: {VERDICTS[self.verdict]}.")
        return "\n".join(out)


@dataclass(frozen=True)
class StorySection:
    title: str
    network: str
    lines: tuple[StoryLine, ...]
    note: str = ""


def verdict(found: bool, true: bool) -> str:
    """The Found-vs-true outcome of one feature for one category."""
    return {(True, True): "tp", (False, True): "missed", (True, False): "extra",
            (False, False): "left-out"}[(found, true)]


def _line(result, truth: dict, graph, tid: int, feature: int) -> StoryLine:
    t = result.targets[tid]
    c = t.category
    true_set = set(truth.get((c.label_index, c.value), ()))
    found = (not t.skipped) and feature in set(t.blanket)
    true = feature in true_set
    fname = result.feature_names[feature]
    steps, end = feature_steps(result, tid, feature)
    return StoryLine(target=tid, category=c.display, feature=feature, feature_name=fname,
                     role=true_role(graph, c.label, fname),
                     path=feature_story(result, tid, feature, named=False), found=found,
                     true=true, verdict=verdict(found, true), steps=tuple(steps), end=end)


def demo_story(result, truth: dict, graph, parts=None) -> list[StorySection]:
    """The story of a run on the demo, one section per part of the network.

    Parameters
    ----------
    result : camcf.Result
        A run on :func:`camcf.datasets.make_causal_multilabel` data (any sample, any
        parameters).
    truth : dict
        (label index, category value) -> true blanket feature indices (the run's
        ``true_blankets``).
    graph : networkx.DiGraph
        The true DAG (``DemoData.graph``).
    parts : sequence of camcf.datasets.StoryPart, optional
        Default :data:`camcf.datasets.DEMO_STORY`.
    """
    from ..datasets import DEMO_STORY

    parts = DEMO_STORY if parts is None else parts
    fidx = {n: j for j, n in enumerate(result.feature_names)}
    sections = []
    for part in parts:
        lines: list[StoryLine] = []
        for label, fname in part.pairs:
            if fname not in fidx or label not in result.label_names:
                continue
            f = fidx[fname]
            cats = [t for t in result.targets if t.category.label == label]
            shown: dict[int, StoryLine] = {}
            for t in cats:
                # a binary label's two categories are complements and get the same decisions:
                # tell one and name the other
                if t.mirror_of is not None and t.mirror_of in shown:
                    m = shown[t.mirror_of]
                    mine = _line(result, truth, graph, t.id, f)
                    if (mine.found, mine.true) == (m.found, m.true):
                        shown[t.mirror_of] = StoryLine(**{**m.__dict__,
                                                          "same_as": m.same_as +
                                                          (t.category.display,)})
                        continue
                shown[t.id] = _line(result, truth, graph, t.id, f)
            lines.extend(shown.values())
        note = ""
        if not part.pairs:  # the noise: which of it, if any, this run selected
            noise = [n for n in result.feature_names
                     if n in graph and all(true_role(graph, lab, n) == "unrelated"
                                           for lab in result.label_names if lab in graph)]
            chosen = [result.feature_names[j] for j in result.selected_indices
                      if result.feature_names[j] in set(noise)]
            note = ("This run selects none of them." if not chosen else
                    "This run selects " + ", ".join(f"`{n}`" for n in chosen)
                    + " (extra features in Found vs true).")
        sections.append(StorySection(part.title, part.network, tuple(lines), note))
    return sections


def story_intro(result) -> str:
    """The sentence above the story: the parameters of the run it tells."""
    p = result.params
    return (f"What this run (δ1 = {p['delta1']:g}, δ2 = {p['delta2']:g}, k1 = {p['k1']:g}, "
            f"k2 = {p['k2']:g}) did with each part of the network, decision by decision, from "
            "its record. Change a parameter and the story changes with the run.")


def section_markdown(section: StorySection) -> str:
    """One section as Markdown: the network, then one bullet per (category, feature)."""
    out = [section.network, ""]
    out.extend(f"- {line.text}" for line in section.lines)
    if section.note:
        out.append(f"- {section.note}")
    return "\n".join(out)


def story_markdown(result, truth: dict, graph, sections=None) -> str:
    """:func:`demo_story` as one Markdown text (intro, then every section with its title)."""
    sections = demo_story(result, truth, graph) if sections is None else sections
    return "\n\n".join([story_intro(result)] + [f"**{s.title}.** " + section_markdown(s)
                                                  for s in sections])
