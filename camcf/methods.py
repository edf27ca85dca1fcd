"""The method registry: every feature selector camcf can run, by name.

``name → (class, kind, display name)``. Names: ``camcf`` (the default), ``mi-mcf``, ``d2f``,
``fimf``, ``mdfs``, ``jfsc``, ``mcls``, ``m2lc`` (the paper's baselines), ``all`` and
``random`` (references), ``pc`` (pgmpy's PC, a whole-graph learner whose label blankets are read
off the graph it learns; not among the defaults: its cost grows fast with the features). Classes are registered by import path and imported only when asked for,
so the registry works without the baseline modules: a method whose module is missing is
*unavailable* — :func:`available` leaves it out and :func:`get` raises
:class:`MethodUnavailableError` (a :class:`camcf.CamcfError`) saying why, never an ImportError.

Every class is a scikit-learn selector (:mod:`camcf.baselines._base`) with its parameters
declared once (Ca-MCF's in :mod:`camcf.algorithm_params`, the others' in
:mod:`camcf.baselines.params`) and read from the registry without importing the class
(:func:`params`; the class's ``params`` attribute is the same tuple); ``kind`` is ``"subset"`` (the method returns a set)
or ``"ranking"`` (it orders every feature; the comparison cuts the order at k).

>>> import camcf.methods as m
>>> m.get("all").__name__
'AllFeatures'
>>> m.make("random", n_features_to_select=3).n_features_to_select
3
"""

from __future__ import annotations

import importlib
import inspect
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from .algorithm_params import CAMCF_PARAMS
from .baselines import params as _declared
from .errors import CamcfError, ParameterError
from .params import Param

__all__ = ["METHODS", "MethodSpec", "MethodUnavailableError", "available", "defaults", "get",
           "make", "params", "spec", "unavailable"]

DEFAULT = "camcf"


class MethodUnavailableError(CamcfError):
    """A registered method whose implementation cannot be imported here."""


@dataclass(frozen=True)
class MethodSpec:
    """One registered method. ``target`` is ``"module:Class"``."""

    name: str
    display: str
    kind: str  # "subset" or "ranking"
    target: str
    reference: str = ""  # the paper it comes from (or "reference")
    #: the method's parameters, declared once (the class's ``params`` is this tuple)
    params: tuple[Param, ...] = ()
    #: run when no methods are named (``camcf compare``, ``camcf reproduce``): :func:`defaults`
    by_default: bool = True

    @property
    def module(self) -> str:
        return self.target.split(":")[0]

    @property
    def class_name(self) -> str:
        return self.target.split(":")[1]


METHODS: dict[str, MethodSpec] = {s.name: s for s in (
    MethodSpec("camcf", "Ca-MCF", "subset", "camcf.estimator:CaMCF",
               "category-level multi-label causal feature selection", CAMCF_PARAMS),
    MethodSpec("mi-mcf", "MI-MCF", "subset", "camcf.baselines.mimcf:MIMCF",
               "Ma et al. 2025", _declared.MIMCF),
    MethodSpec("m2lc", "M2LC", "subset", "camcf.baselines.m2lc:M2LC", "Yu et al. 2021",
               _declared.M2LC),
    MethodSpec("d2f", "D2F", "ranking", "camcf.baselines.d2f:D2F", "Lee & Kim 2015",
               _declared.D2F),
    MethodSpec("mdfs", "MDFS", "ranking", "camcf.baselines.mdfs:MDFS", "Zhang et al. 2019",
               _declared.MDFS),
    MethodSpec("jfsc", "JFSC", "ranking", "camcf.baselines.jfsc:JFSC", "Huang et al. 2018",
               _declared.JFSC),
    MethodSpec("fimf", "FIMF", "ranking", "camcf.baselines.fimf:FIMF", "Lee & Kim 2015",
               _declared.FIMF),
    MethodSpec("mcls", "MCLS", "ranking", "camcf.baselines.mcls:MCLS", "Huang et al. 2018",
               _declared.MCLS),
    MethodSpec("all", "All features", "subset", "camcf.baselines.reference:AllFeatures",
               "reference", _declared.ALL),
    MethodSpec("random", "Random subset", "ranking", "camcf.baselines.reference:RandomSubset",
               "reference", _declared.RANDOM),
    MethodSpec("pc", "PC (pgmpy)", "subset", "camcf.baselines.pc:PCBlanket",
               "Spirtes et al. 2000, as pgmpy runs it", _declared.PC, by_default=False),
)}
#: The paper's comparison, in its tables' order.
PAPER_METHODS = ("camcf", "mi-mcf", "m2lc", "d2f", "mdfs", "jfsc", "fimf", "mcls")

_CACHE: dict[str, Any] = {}


def spec(name: str) -> MethodSpec:
    """The registry entry of ``name``; :class:`ParameterError` for an unknown name."""
    try:
        return METHODS[name]
    except KeyError:
        raise ParameterError(f"unknown method {name!r}; known: {', '.join(METHODS)}") from None


def _load(s: MethodSpec):
    from .baselines._base import MultiLabelSelector

    if s.name in _CACHE:
        return _CACHE[s.name]
    try:
        module = importlib.import_module(s.module)
    except ImportError as e:
        msg = (f"method {s.name!r} ({s.display}) is not available in this installation: its "
               f"module {s.module} cannot be imported ({e}); choose another method "
               "(camcf.methods.available() lists those that are)")
        _CACHE[s.name] = MethodUnavailableError(msg)
        return _CACHE[s.name]
    cls = getattr(module, s.class_name, None)
    if not (inspect.isclass(cls) and issubclass(cls, MultiLabelSelector)):
        # the module may name its class differently: its one selector class defined there
        found = [c for _, c in inspect.getmembers(module, inspect.isclass)
                 if issubclass(c, MultiLabelSelector) and c.__module__ == module.__name__
                 and not inspect.isabstract(c) and not c.__name__.startswith("_")]
        cls = found[0] if len(found) == 1 else None
    if cls is None:
        _CACHE[s.name] = MethodUnavailableError(
            f"method {s.name!r} ({s.display}) is not available in this installation: "
            f"{s.module} has no selector class {s.class_name}; choose another method")
    else:
        _CACHE[s.name] = cls
    return _CACHE[s.name]


def get(name: str) -> type:
    """The selector class of ``name``; :class:`MethodUnavailableError` when it is missing."""
    got = _load(spec(name))
    if isinstance(got, MethodUnavailableError):
        raise got
    return got


def make(name: str, **params: Any):
    """A new, unfitted selector of method ``name`` with ``params`` set (validated at fit)."""
    cls = get(name)
    known = {p.name for p in getattr(cls, "params", ())} | set(cls().get_params())
    unknown = sorted(set(params) - known)
    if unknown:
        raise ParameterError(f"method {name!r} has no parameter(s) {unknown}; its parameters: "
                             f"{sorted(known) or 'none'}")
    return cls(**params)


def params(name: str) -> tuple[Param, ...]:
    """The declared parameters of method ``name`` (without importing its implementation)."""
    return spec(name).params


def kind(name: str) -> str:
    """``"subset"`` or ``"ranking"`` (from the class where it is importable)."""
    try:
        return getattr(get(name), "kind", spec(name).kind)
    except MethodUnavailableError:
        return spec(name).kind


def display(name: str) -> str:
    return spec(name).display


def check_names(names: Sequence[str] | None, *, what: str = "methods") -> list[str]:
    """``names`` checked (each registered and importable here, none twice), or the
    :func:`defaults` for None. ``what`` names the choice in the messages."""
    names = list(defaults() if names is None else names)
    for n in names:
        spec(n)
        get(n)  # a clear message for a method missing here
    if len(set(names)) != len(names):
        raise ParameterError(f"{what} names a method twice: {','.join(names)}", name=what,
                             value=names)
    return names


def available() -> list[str]:
    """The registered names whose implementation imports, in registry order."""
    return [n for n, s in METHODS.items() if not isinstance(_load(s), MethodUnavailableError)]


def defaults() -> list[str]:
    """The :func:`available` methods run when none are named (``by_default``; PC is not)."""
    return [n for n in available() if METHODS[n].by_default]


def unavailable() -> dict[str, str]:
    """``{name: why}`` for the registered methods that cannot be imported here."""
    out = {}
    for n, s in METHODS.items():
        got = _load(s)
        if isinstance(got, MethodUnavailableError):
            out[n] = str(got)
    return out
