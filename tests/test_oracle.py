"""The phases against an independence oracle on a known DAG (no estimation involved).

The oracle answers I(A; B | S) = 1 bit when A and B are d-connected given S in the DAG, else 0,
so every decision below follows from the graph alone (δ1 = δ2 = 0.5).
"""

from __future__ import annotations

import networkx as nx
import numpy as np

from camcf.algorithm import check_params
from camcf.info import Engine, EngineBase
from camcf.phases import run_target
from camcf.result import Category


class OracleEngine(EngineBase):
    """The engine interface of :mod:`camcf.info` (:class:`camcf.info.Engine`), answered by
    d-separation: the public base supplies the rest."""

    def __init__(self, dag: nx.DiGraph, features: list[str], categories: list[str]):
        super().__init__(0, len(features), len(categories))
        self.dag = dag
        self.names = features + categories  # pool index → node

    def _dep(self, a: str, b: str, cond) -> float:
        z = {self.names[c] for c in cond} - {a, b}
        return 0.0 if nx.is_d_separator(self.dag, {a}, {b}, z) else 1.0

    def _feature_table(self):
        return np.array([[self._dep(f, c, []) for c in self.names[self.m:]]
                         for f in self.names[: self.m]])

    def _category_table(self):
        cats = self.names[self.m:]
        return np.array([[1.0 if a == b else self._dep(a, b, []) for b in cats] for a in cats])

    def cmi_many(self, target, variables, cond):
        t = self.names[self.m + target]
        self._counted(computed=len(variables))
        return np.array([self._dep(t, self.names[v], cond) for v in variables])

    def strata(self, cond):
        return 1  # no rows: the record's degrees of freedom mean nothing here


def test_phases_recover_the_markov_blanket_of_a_known_dag():
    #   e → a → T → c ← d        T → L      (T and L are labels; a, c, d, e features)
    dag = nx.DiGraph([("e", "a"), ("a", "T"), ("T", "c"), ("d", "c"), ("T", "L")])
    features = ["a", "c", "d", "e"]
    eng = OracleEngine(dag, features, ["T", "L"])
    assert isinstance(eng, Engine)
    params = check_params(0.5, 0.5, 1.0, 1.0, 1.2, 1, "first")
    cat = Category(id=0, label_index=0, label="T", value=1, name="1", size=10)
    t = run_target(eng, cat, [1], params)
    assert t.skeleton == (1,)  # L is T's child
    assert t.candidates == (0, 1, 3)  # a, c, e are marginally dependent on T; d is not
    assert t.pc == (0, 1)  # e is screened off by a
    assert t.spouses == {2: (1,)}  # d, through the collider c
    assert t.recovered == ()  # e loses against L given {a, c}: it adds nothing
    assert t.symmetry_removed == (2,)  # s_d = 0: the spouse falls to the symmetry check
    assert t.blanket == (0, 1)


def test_oracle_shows_label_blocking():
    #   f → L1 → T : given L1, f says nothing about T, but f is tried in Phase 3
    dag = nx.DiGraph([("f", "L1"), ("L1", "T"), ("g", "T")])
    eng = OracleEngine(dag, ["f", "g"], ["T", "L1"])
    params = check_params(0.5, 0.5, 1.0, 1.0, 1.2, 1, "first")
    cat = Category(id=0, label_index=0, label="T", value=1, name="1", size=10)
    t = run_target(eng, cat, [1], params)
    assert t.skeleton == (1,)
    assert t.pc == (1,)  # g stays; f is removed given L1
    # Phase 3: I(T; f | g) = 1 is not > I(T; L1 | g) = 1 — ties go to the blocker
    assert t.recovered == ()
