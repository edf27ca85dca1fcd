"""The phases against an independence oracle on a known DAG (no estimation involved).

The oracle answers I(A; B | S) = 1 bit when A and B are d-connected given S in the DAG, else 0,
so every decision below follows from the graph alone (δ1 = δ2 = 0.5).
"""

from __future__ import annotations

import networkx as nx
import numpy as np

from camcf.algorithm import _run_target, check_params
from camcf.info import _EngineBase, _LeaveOneOut
from camcf.result import Category
from camcf.trace import CondSets


class OracleEngine:
    """The engine interface of :mod:`camcf.info`, answered by d-separation."""

    def __init__(self, dag: nx.DiGraph, features: list[str], categories: list[str]):
        self.dag = dag
        self.names = features + categories  # pool index → node
        self.m = len(features)
        self.n_categories = len(categories)
        self.n_tests = self.n_hits = 0

    def _dep(self, a: str, b: str, cond) -> float:
        z = {self.names[c] for c in cond} - {a, b}
        return 0.0 if nx.is_d_separator(self.dag, {a}, {b}, z) else 1.0

    def mi_table(self):
        return np.array([[self._dep(f, c, []) for c in self.names[self.m:]]
                         for f in self.names[: self.m]])

    def category_mi_table(self):
        cats = self.names[self.m:]
        return np.array([[1.0 if a == b else self._dep(a, b, []) for b in cats] for a in cats])

    def cmi_many(self, target, variables, cond):
        t = self.names[self.m + target]
        self.n_tests += len(variables)
        return np.array([self._dep(t, self.names[v], cond) for v in variables])

    def leave_one_out(self, target, members, fixed):
        return _LeaveOneOut(self, target, members, fixed)

    cmi_each_extra = _EngineBase.cmi_each_extra


def test_phases_recover_the_markov_blanket_of_a_known_dag():
    #   e → a → T → c ← d        T → L      (T and L are labels; a, c, d, e features)
    dag = nx.DiGraph([("e", "a"), ("a", "T"), ("T", "c"), ("d", "c"), ("T", "L")])
    features = ["a", "c", "d", "e"]
    eng = OracleEngine(dag, features, ["T", "L"])
    params = check_params(0.5, 0.5, 1.0, 1.0, 1.2, 1, "first")
    cat = Category(id=0, label_index=0, label="T", value=1, name="1", size=10)
    t = _run_target(eng, cat, [1], eng.mi_table()[:, 0], params, CondSets())
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
    t = _run_target(eng, cat, [1], eng.mi_table()[:, 0], params, CondSets())
    assert t.skeleton == (1,)
    assert t.pc == (1,)  # g stays; f is removed given L1
    # Phase 3: I(T; f | g) = 1 is not > I(T; L1 | g) = 1 — ties go to the blocker
    assert t.recovered == ()
