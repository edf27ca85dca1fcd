"""PC (Spirtes, Glymour & Scheines 2000) as pgmpy runs it, as a multi-label feature selector:
a whole-graph constraint-based learner, each label's blanket read off the graph it learns.

The graph is learnt over every column, features and labels alike, by pgmpy's
``pgmpy.causal_discovery.PC`` (the order-independent ``"stable"`` variant, one process) with
pgmpy's G² test (``pgmpy.ci_tests.GSq``) at level ``alpha``, conditioning sets of at most
``max_cond_vars`` variables (a bound on the cost: PC's tests grow with the size of the sets
tried), returning the pattern (a PDAG: some edges directed, the others undirected).

**The blanket of label L read off the PDAG**: its parents (directed edges into L), its children
(directed edges out of L), its undirected neighbours (an undirected edge counts as an
adjacency: parent or child, whichever it is), and the spouses — the other parents (directed
edges in) of its directed children; an undirected neighbour of a child is not counted as a
spouse. The features of that set are ``blankets_[L]``, its labels ``label_blankets_[L]``; the
selection is the union of the labels' feature blankets. ``n_tests_`` counts the distinct
(X, Y, conditioning set) G² tests PC asked for.

Columns are coded 0..k−1 by their sorted distinct values first (labels too), so any integer or
float codes work. pgmpy is the extra ``camcf[networks]``; without it ``fit`` raises
:class:`camcf.errors.MissingDependencyError`.
"""

from __future__ import annotations

import warnings
from typing import ClassVar

import numpy as np

from ..errors import MissingDependencyError
from ..params import Param
from . import params as _declared
from ._base import SubsetSelector

__all__ = ["PCBlanket", "blanket_in_pdag"]


def blanket_in_pdag(directed: set[tuple], undirected: set[tuple], node) -> set:
    """The blanket of ``node`` in a PDAG given by its ``directed`` (u → v) and ``undirected``
    edges (either order): parents, children, undirected neighbours, and the other parents of
    its directed children (see the module docstring)."""
    parents = {u for u, v in directed if v == node}
    children = {v for u, v in directed if u == node}
    neighbours = {v for u, v in undirected if u == node} | {u for u, v in undirected if v == node}
    spouses = {u for u, v in directed if v in children and u != node}
    return parents | children | neighbours | spouses


class _CountingTest:
    """pgmpy's G² test, counting the distinct tests asked for."""

    def __init__(self, data) -> None:
        from pgmpy.ci_tests import GSq

        self.test = GSq(data=data)
        self.asked: set = set()

    def __call__(self, X, Y, Z=(), significance_level=0.05):
        self.asked.add((frozenset((X, Y)), frozenset(Z)))
        return self.test(X, Y, list(Z), significance_level=significance_level)


class PCBlanket(SubsetSelector):
    """PC (pgmpy) over features and labels; each label's blanket read off the learnt PDAG.

    Parameters
    ----------
    alpha : float in (0, 1), default 0.01
        Significance level of the G² tests.
    max_cond_vars : int in 0..10, default 3
        The largest conditioning set tried.

    Attributes
    ----------
    support_ : ndarray of bool (n_features,)
    blankets_ : tuple of tuple of int
        Per label (column of Y), the features of its blanket in the PDAG.
    label_blankets_ : tuple of tuple of int
        Per label, the other labels in its blanket.
    n_tests_ : int
        Distinct G² tests PC asked for.
    graph_ : tuple of (set, set)
        The PDAG's directed and undirected edges over column names ``x0…`` (features) and
        ``y0…`` (labels).
    """

    params: ClassVar[tuple[Param, ...]] = _declared.PC

    def __init__(self, alpha: float = 0.01, max_cond_vars: int = 3) -> None:
        self.alpha = alpha
        self.max_cond_vars = max_cond_vars

    def fit(self, X, Y) -> PCBlanket:
        """Learn the PDAG over the columns of X (n × m) and Y (n × q, or a 1-D y)."""
        prm = self._checked_params()
        X, Y = self._validate_xy(X, Y)
        try:
            import pandas as pd

            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                from pgmpy.causal_discovery import PC
        except ImportError:
            raise MissingDependencyError(
                "the PC method needs pgmpy, which is not installed; pip install "
                "'camcf[networks]'", package="pgmpy") from None
        m, q = X.shape[1], Y.shape[1]
        codes = {f"x{j}": np.unique(X[:, j], return_inverse=True)[1].ravel() for j in range(m)}
        codes.update({f"y{i}": np.unique(Y[:, i], return_inverse=True)[1].ravel()
                      for i in range(q)})
        data = pd.DataFrame(codes)
        test = _CountingTest(data)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            pc = PC(variant="stable", ci_test=test, return_type="pdag",
                    significance_level=prm["alpha"], max_cond_vars=prm["max_cond_vars"],
                    n_jobs=1, show_progress=False).fit(data)
        pdag = pc.causal_graph_
        directed, undirected = set(pdag.directed_edges), set(pdag.undirected_edges)
        blankets, label_blankets = [], []
        for i in range(q):
            got = blanket_in_pdag(directed, undirected, f"y{i}")
            blankets.append(tuple(sorted(int(v[1:]) for v in got if v[0] == "x")))
            label_blankets.append(tuple(sorted(int(v[1:]) for v in got if v[0] == "y")))
        self.blankets_ = tuple(blankets)
        self.label_blankets_ = tuple(label_blankets)
        self.n_tests_ = len(test.asked)
        self.graph_ = (directed, undirected)
        self.support_ = np.zeros(m, dtype=bool)
        for b in blankets:
            self.support_[list(b)] = True
        return self
