"""Parameter declarations: each method's parameters are declared once, here-style, as
:class:`Param` objects; validation, CLI flags, app widgets and the exported command all read them.

scikit-learn keeps its ``Interval``/``StrOptions`` in a private module and raises its own error
type, so camcf declares parameters with its own small, public vocabulary and raises
:class:`camcf.ParameterError` (a ``ValueError``), naming the argument, the value received and the
allowed range.

>>> p = Param("k1", 0.7, float, low=0, high=1, low_closed=False, symbol="k1",
...           help="share of the PC candidates kept")
>>> p.validate(0.5)
0.5
>>> p.validate(0)
Traceback (most recent call last):
...
camcf.errors.ParameterError: k1 must be in (0, 1], got 0
>>> p.flag
'--k1'
>>> d = Param("delta1", 0.05, float, low=0, words=("auto",))
>>> d.validate("auto"), d.describe()
('auto', "in [0, inf) or 'auto'")
>>> try:
...     d.validate(-1)
... except ParameterError as e:
...     print(e.name, e.value, e.allowed)
delta1 -1 in [0, inf) or 'auto'
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from numbers import Integral, Real
from typing import Any

from .errors import ParameterError


@dataclass(frozen=True)
class Param:
    """One parameter of one method.

    ``kind`` is ``float``, ``int``, ``str`` or ``bool``. Numbers may have a range
    (``low``/``high``, each closed or open); strings may have ``options``. ``none_ok`` admits
    None (meaning given in ``help``). ``symbol`` is the display name (e.g. ``δ1``); ``help`` one
    sentence for the CLI and the app; ``advanced`` hides it behind an "Advanced" control.
    """

    name: str
    default: Any
    kind: type
    low: float | None = None
    high: float | None = None
    low_closed: bool = True
    high_closed: bool = True
    options: tuple | None = None
    none_ok: bool = False
    help: str = ""
    symbol: str | None = None
    advanced: bool = False
    # also accept numbers of this kind (e.g. an int parameter that may also be a float share)
    also: type | None = None
    # values inside the range that are not allowed (e.g. n_jobs = 0)
    exclude: tuple = ()
    # words a number parameter also accepts, each with its own meaning given in ``help``
    # (e.g. ``"auto"`` for a threshold derived from the data)
    words: tuple[str, ...] = ()
    # (min, max, step) a user interface offers for a number (a slider or number input, the
    # landscape and tuning grids, values read from a link); inside the validation range
    widget: tuple[float, float, float] | None = None

    def __post_init__(self) -> None:
        if self.widget is not None:
            lo, hi, _ = self.widget
            for v in (lo, hi):
                try:
                    self.validate(v)
                except ParameterError:
                    raise ValueError(f"{self.name}: widget bound {v} is outside the declared "
                                     f"range {self.describe()}") from None

    def ui_range(self) -> tuple[float, float, float]:
        """(min, max, step) for a user interface: ``widget`` when declared, else the validation
        range (open ends as 0 and 10,000) with step 1."""
        if self.widget is not None:
            return self.widget
        return (self.low if self.low is not None else 0,
                self.high if self.high is not None else 10_000, 1)

    @property
    def flag(self) -> str:
        return "--" + self.name.replace("_", "-")

    @property
    def label(self) -> str:
        return self.symbol or self.name

    def describe(self) -> str:
        """The allowed values in words, e.g. ``(0, 1]`` or ``one of 'first', 'all'``."""
        if self.options is not None:
            return "one of " + ", ".join(repr(o) for o in self.options)
        if self.low is None and self.high is None:
            return f"a {self.kind.__name__}"
        lo = "-inf" if self.low is None else _num(self.low)
        hi = "inf" if self.high is None else _num(self.high)
        left = "[" if self.low is not None and self.low_closed else "("
        right = "]" if self.high is not None and self.high_closed else ")"
        but = f" except {', '.join(_num(x) for x in self.exclude)}" if self.exclude else ""
        words = "".join(f" or {w!r}" for w in self.words)
        return f"in {left}{lo}, {hi}{right}{but}{words}"

    def _error(self, message: str, value: Any) -> ParameterError:
        return ParameterError(message, name=self.name, value=value, allowed=self.describe())

    def validate(self, value: Any) -> Any:
        """The value, converted to ``kind``; :class:`ParameterError` (with the fields ``name``,
        ``value`` and ``allowed``) if it is not allowed."""
        if value is None:
            if self.none_ok:
                return None
            raise self._error(f"{self.name} is required ({self.describe()}), got None", value)
        if self.words and isinstance(value, str) and value in self.words:
            return value
        if self.kind is bool:
            if isinstance(value, bool):
                return value
            raise self._error(f"{self.name} must be True or False, got {value!r}", value)
        if self.kind is str:
            if not isinstance(value, str):
                raise self._error(f"{self.name} must be a string ({self.describe()}), got "
                                  f"{value!r}", value)
            if self.options is not None and value not in self.options:
                raise self._error(f"{self.name} must be {self.describe()}, got {value!r}", value)
            return value
        kinds = tuple(k for k in (self.kind, self.also) if k is not None)
        if isinstance(value, bool) or not isinstance(value, Real):
            raise self._error(f"{self.name} must be a number ({self.describe()}), got "
                              f"{value!r}", value)
        if float in kinds:
            v: Any = float(value)
        elif isinstance(value, Integral):
            v = int(value)
        else:
            raise self._error(f"{self.name} must be an integer ({self.describe()}), got "
                              f"{value!r}", value)
        if not math.isfinite(v):
            raise self._error(f"{self.name} must be finite, got {value!r}", value)
        if (self.low is not None and (v < self.low or (v == self.low and not self.low_closed))) \
                or (self.high is not None
                    and (v > self.high or (v == self.high and not self.high_closed))) \
                or v in self.exclude:
            raise self._error(f"{self.name} must be {self.describe()}, got {value!r}", value)
        return v


#: significant digits a number keeps where a user interface shows and takes it back (the
#: explorer's inputs show ``%.4g``: the value shown is the value used)
SIGNIFICANT = 4


def round_sig(x: float, digits: int = SIGNIFICANT) -> float:
    """``x`` rounded to ``digits`` significant digits.

    >>> round_sig(0.000312345), round_sig(0.7), round_sig(0.0)
    (0.0003123, 0.7, 0.0)
    """
    if x == 0 or not math.isfinite(x):
        return float(x)
    return float(f"{x:.{digits}g}")


def _num(x: float) -> str:
    return str(int(x)) if float(x).is_integer() else str(x)


def validate(params: Iterable[Param], values: Mapping[str, Any]) -> dict:
    """Validate ``values`` against the declarations; unknown names are an error."""
    decl = {p.name: p for p in params}
    unknown = sorted(set(values) - set(decl))
    if unknown:
        raise ParameterError(f"unknown parameter(s) {unknown}; known: {sorted(decl)}",
                             name=unknown[0], value=values[unknown[0]], allowed=sorted(decl))
    return {name: p.validate(values.get(name, p.default)) for name, p in decl.items()}


def defaults(params: Iterable[Param]) -> dict:
    return {p.name: p.default for p in params}
