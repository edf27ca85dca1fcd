"""The reference engine: every value from its own contingency table (``np.unique`` joint
codes), the straightforward reading of the definitions. Slow; the oracle the compiled engine is
checked against. It computes both categories of a binary label."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from .._sparse import issparse
from .base import EngineBase
from .measures import conditional_mutual_information, joint_codes, rounded


class ReferenceEngine(EngineBase):
    """One CMI per test from its contingency table."""

    mirrors = False

    def __init__(self, X, C: np.ndarray, *,
                 tables: tuple[np.ndarray, np.ndarray] | None = None) -> None:
        X = X.toarray() if issparse(X) else np.asarray(X)
        super().__init__(X.shape[0], X.shape[1], C.shape[1], tables)
        self.pool = np.hstack([X.astype(np.int64), np.asarray(C).astype(np.int64)])

    def _mi_block(self, lo: int, hi: int) -> np.ndarray:
        out = np.empty((hi - lo, self.n_categories))
        for c in range(self.n_categories):
            t = self.pool[:, self.m + c]
            for j in range(lo, hi):
                out[j - lo, c] = conditional_mutual_information(self.pool[:, j], t)
        return out

    def levels(self) -> np.ndarray:
        return np.array([np.unique(self.pool[:, j]).size for j in range(self.pool.shape[1])])

    def strata(self, cond: Sequence[int]) -> int:
        cols = [int(c) for c in cond]
        return joint_codes(self.pool[:, cols])[1] if cols else 1

    def cmi(self, target: int, j: int, cond: Sequence[int], z: np.ndarray | None = None
            ) -> float:
        """I(t; V_j | cond), counted; ``z``: the joint codes of ``cond`` when known."""
        self.computed += 1
        if z is None and len(cond):
            z = joint_codes(self.pool[:, list(cond)])[0]
        return conditional_mutual_information(self.pool[:, self.m + target], self.pool[:, j], z)

    def given(self, target: int, cond: Sequence[int] = ()) -> ReferenceGiven:
        return ReferenceGiven(self, target, cond)


class ReferenceGiven:
    """A session of :class:`ReferenceEngine`: the set spelled out, every value counted."""

    def __init__(self, engine: ReferenceEngine, target: int, cond: Sequence[int]) -> None:
        self.engine, self.target = engine, target
        self.cond = [int(c) for c in cond]
        self._z = None  # the joint codes of cond, once asked

    def values(self, cols, stop_above: float | None = None) -> np.ndarray:
        if self._z is None and self.cond:
            self._z = joint_codes(self.engine.pool[:, self.cond])[0]
        out = []
        for j in cols:
            out.append(self.engine.cmi(self.target, int(j), self.cond, self._z))
            if stop_above is not None and rounded(out[-1]) > stop_above:
                break
        return np.array(out, dtype=np.float64)

    def values_with(self, cols, *, add: int | None = None, remove: int | None = None
                    ) -> tuple[np.ndarray, int]:
        if (add is None) == (remove is None):
            raise ValueError("values_with takes one of add= and remove=")
        moved = ReferenceGiven(self.engine, self.target, self.cond)
        if add is None:
            moved.remove(remove)
        else:
            moved.add(add)
        return moved.values(cols), moved.strata()

    def without_each(self, cols) -> tuple[np.ndarray, np.ndarray]:
        out, strata = [], []
        for j in cols:
            v, ns = self.without(int(j))
            out.append(v)
            strata.append(ns)
            self.remove(int(j))
        return np.array(out, dtype=np.float64), np.array(strata, dtype=np.int64)

    def without(self, j: int) -> tuple[float, int]:
        rest = [c for c in self.cond if c != j]
        return self.engine.cmi(self.target, j, rest), self.engine.strata(rest)

    def add(self, j: int) -> None:
        self.cond.append(int(j))
        self._z = None

    def add_all(self, cols) -> None:
        for j in cols:
            self.add(j)

    def remove(self, j: int) -> None:
        self.cond.remove(int(j))
        self._z = None

    def strata(self) -> int:
        return self.engine.strata(self.cond)

    def copy(self) -> ReferenceGiven:
        return ReferenceGiven(self.engine, self.target, self.cond)
