"""The phases against an independence oracle on a known DAG (no estimation involved).

The oracle answers I(A; B | S) = 1 bit when A and B are d-connected given S in the DAG, else 0,
so every decision below follows from the graph alone (δ1 = δ2 = 0.5). It implements the
:class:`camcf.engine.Engine` and :class:`camcf.engine.Given` protocols from scratch: they are
all the phases ask of an engine.
"""

from __future__ import annotations

import networkx as nx
import numpy as np

from camcf.algorithm import check_params
from camcf.engine import Engine, Given
from camcf.phases import run_target
from camcf.result import Category
from camcf.trace import DECISIONS, STEP_NAMES


class OracleEngine:
    """An :class:`camcf.engine.Engine` answered by d-separation. Pool indices: the features,
    then the categories (nodes named in ``features`` and ``categories``)."""

    mirrors = False

    def __init__(self, dag: nx.DiGraph, features: list[str], categories: list[str]):
        self.dag = dag
        self.names = features + categories  # pool index → node
        self.n, self.m, self.n_categories = 0, len(features), len(categories)
        self.computed = self.lookups = 0

    def dep(self, a: int, b: int, cond) -> float:
        """1 bit when pool variables a and b are d-connected given ``cond``, else 0."""
        z = {self.names[c] for c in cond} - {self.names[a], self.names[b]}
        return 0.0 if nx.is_d_separator(self.dag, {self.names[a]}, {self.names[b]}, z) else 1.0

    def mi_table(self) -> np.ndarray:
        return np.array([[self.dep(f, self.m + c, []) for c in range(self.n_categories)]
                         for f in range(self.m)])

    def category_mi_table(self) -> np.ndarray:
        q = self.n_categories
        return np.array([[1.0 if a == b else self.dep(self.m + a, self.m + b, [])
                          for b in range(q)] for a in range(q)])

    def lookup(self, target: int, cols) -> np.ndarray:
        self.lookups += len(cols)
        return np.array([self.dep(self.m + target, int(j), []) for j in cols])

    def given(self, target: int, cond=()) -> OracleGiven:
        return OracleGiven(self, target, cond)

    def strata(self, cond) -> int:
        return 1  # no rows: the record's degrees of freedom mean nothing here

    def levels(self) -> np.ndarray:
        return np.full(self.m + self.n_categories, 2)  # (binary variables)

    def stats(self) -> dict:
        return {"computed": self.computed, "lookups": self.lookups}


class OracleGiven:
    """A :class:`camcf.engine.Given` session of :class:`OracleEngine`."""

    def __init__(self, engine: OracleEngine, target: int, cond=()):
        self.engine, self.target, self.cond = engine, target, [int(c) for c in cond]

    def _t(self) -> int:
        return self.engine.m + self.target

    def values(self, cols, stop_above=None) -> np.ndarray:
        out = []
        for j in cols:
            self.engine.computed += 1
            out.append(self.engine.dep(self._t(), int(j), self.cond))
            if stop_above is not None and out[-1] > stop_above:
                break
        return np.array(out)

    def values_with(self, cols, *, add=None, remove=None) -> tuple[np.ndarray, int]:
        moved = self.copy()
        if add is not None:
            moved.add(add)
        if remove is not None:
            moved.remove(remove)
        return moved.values(cols), 1

    def without(self, j: int) -> tuple[float, int]:
        self.engine.computed += 1
        return self.engine.dep(self._t(), j, [c for c in self.cond if c != j]), 1

    def without_each(self, cols) -> tuple[np.ndarray, np.ndarray]:
        out = []
        for j in cols:
            out.append(self.without(int(j))[0])
            self.remove(int(j))
        return np.array(out), np.ones(len(out), dtype=np.int64)

    def add(self, j: int) -> None:
        self.cond.append(int(j))

    def add_all(self, cols) -> None:
        for j in cols:
            self.add(j)

    def remove(self, j: int) -> None:
        self.cond.remove(int(j))

    def strata(self) -> int:
        return 1

    def copy(self) -> OracleGiven:
        return OracleGiven(self.engine, self.target, self.cond)


PARAMS = check_params(0.5, 0.5, 1.0, 1.0, 1.2, 1, "first")
T = Category(id=0, label_index=0, label="T", value=1, name="1", size=10)


def test_phases_recover_the_markov_blanket_of_a_known_dag():
    #   e → a → T → c ← d        T → L      (T and L are labels; a, c, d, e features)
    dag = nx.DiGraph([("e", "a"), ("a", "T"), ("T", "c"), ("d", "c"), ("T", "L")])
    features = ["a", "c", "d", "e"]
    eng = OracleEngine(dag, features, ["T", "L"])
    assert isinstance(eng, Engine) and isinstance(eng.given(0), Given)
    t = run_target(eng, T, [1], PARAMS)
    assert t.skeleton == (1,)  # L is T's child
    assert t.candidates == (0, 1, 3)  # a, c, e are marginally dependent on T; d is not
    assert t.pc == (0, 1)  # e is screened off by a
    assert t.spouses == {2: (1,)}  # d, through the collider c
    assert t.recovered == ()  # e loses against L given {a, c}: it adds nothing
    assert t.symmetry_removed == (2,)  # s_d = 0: the spouse falls to the symmetry check
    assert t.blanket == (0, 1)
    # the phases asked the engine for every conditional value the record holds (a backward
    # walk may ask for some twice: those measured, each assumed removed, after a member stays)
    conditional = ("backward", "spouse-screen", "spouse", "blocker", "recovery")
    assert eng.stats()["computed"] >= sum(t.test_counts.get(s, 0) for s in conditional) > 0


def test_oracle_shows_label_blocking():
    #   f → L1 → T : given L1, f says nothing about T, but f is tried in Phase 3
    dag = nx.DiGraph([("f", "L1"), ("L1", "T"), ("g", "T")])
    eng = OracleEngine(dag, ["f", "g"], ["T", "L1"])
    t = run_target(eng, T, [1], PARAMS)
    assert t.skeleton == (1,)
    assert t.pc == (1,)  # g stays; f is removed given L1
    # Phase 3: I(T; f | g) = 1 is not > I(T; L1 | g) = 1 — ties go to the blocker
    assert t.recovered == ()
    step = [STEP_NAMES[k] for k in t.trace["step"]]
    tried = [i for i, s in enumerate(step) if s == "recovery"]
    assert len(tried) == 1  # f, against L1 given PC = {g}
    i = tried[0]
    assert t.trace["b"][i] == 0 and t.trace["aux"][i] == 2 + 1  # f; blocker L1 (pool index)
    assert t.trace["value"][i] == t.trace["threshold"][i] == 1.0
    assert DECISIONS[t.trace["decision"][i]] == "lost"
