"""The information engine of Ca-MCF, behind one door.

* :class:`Engine` and :class:`Given` — what the phases (:mod:`camcf.phases`) ask: the two
  unconditional tables and sessions that measure I(t; V | S) while S grows and shrinks;
* :data:`ENGINES` — the engines :func:`camcf.run` accepts by name: ``"fast"``, the compiled
  engine (:class:`camcf.engine.compiled.CompiledEngine`, numba kernels compiled on first use
  and cached on disk) and ``"reference"`` (:class:`ReferenceEngine`, every value from its own
  contingency table with ``np.unique``: the oracle);
* the measures themselves (:func:`conditional_mutual_information`, :func:`cmi_from_counts`,
  :func:`rounded`, …) in plain numpy.

Nothing here imports numba until the compiled engine is first used (:func:`warm_up` compiles,
or loads from the disk cache, every kernel at once).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping

from .base import Engine, EngineBase, Given
from .measures import (
    DECIMALS,
    cmi_from_counts,
    conditional_mutual_information,
    contingency,
    entropy,
    joint_codes,
    mutual_information,
    pool_levels,
    rounded,
    smallest_uint,
)
from .reference import ReferenceEngine


class _Engines(Mapping):
    """Engine name → class; the compiled engine's module (and numba) load on first access."""

    _where = {"fast": ("camcf.engine.compiled", "CompiledEngine"),
              "reference": ("camcf.engine.reference", "ReferenceEngine")}

    def __getitem__(self, name: str) -> type[EngineBase]:
        import importlib

        module, cls = self._where[name]
        return getattr(importlib.import_module(module), cls)

    def __iter__(self) -> Iterator[str]:
        return iter(self._where)

    def __len__(self) -> int:
        return len(self._where)


#: name -> engine class (``run(..., engine=NAME)``)
ENGINES: Mapping[str, type[EngineBase]] = _Engines()


_READY: list[float] = []  # seconds the warm-up of this process took, once it is done


def is_ready() -> bool:
    """Whether :func:`warm_up` has run in this process (the kernels are loaded)."""
    return bool(_READY)


def warm_up(progress: Callable[[int, int, str], None] | None = None) -> float:
    """Compile (or load from numba's disk cache) the kernels of the compiled engine by running
    each on a tiny problem, dense and sparse; returns the seconds it took.
    ``progress(done, total, message)`` is called before each step. The first call after an
    install compiles (8.5 s on a clean clone on a 2-core machine); later processes load the
    cache (a few tenths of a second)."""
    import time

    import numpy as np

    t0 = time.perf_counter()
    steps = ["loading numba", "the pool", "the tables", "the sessions", "a sparse pool"]

    def say(i: int) -> None:
        if progress is not None:
            progress(i, len(steps), steps[i] if i < len(steps) else "ready")

    say(0)
    from . import compiled

    rng = np.random.default_rng(0)
    X = rng.integers(0, 3, size=(40, 4)).astype(np.uint8, order="F")
    C = np.asfortranarray(np.column_stack([X[:, 0] == 1, X[:, 0] != 1]).astype(np.uint8))
    say(1)
    eng = compiled.CompiledEngine(X, C)
    say(2)
    eng.mi_table()
    eng.category_mi_table()
    say(3)
    g = eng.given(0, [1, 2])
    g.values([3, 4], stop_above=0.0)
    g.values_with([3], add=0)
    g.without(1)
    g.remove(1)
    g.copy()._room(1 << 12)  # (a session that grows)
    eng.strata([1, 2])
    say(4)
    import scipy.sparse as sp

    compiled.CompiledEngine(sp.csc_matrix(X), C).given(0, [0]).values([1])
    say(5)
    _READY.append(time.perf_counter() - t0)
    return _READY[-1]


__all__ = [
    "DECIMALS", "ENGINES", "Engine", "EngineBase", "Given", "ReferenceEngine",
    "cmi_from_counts", "conditional_mutual_information", "contingency", "entropy",
    "is_ready", "joint_codes", "mutual_information", "pool_levels", "rounded",
    "smallest_uint", "warm_up",
]
