"""Command-line flags generated from parameter declarations (:class:`camcf.params.Param`).

One rule: a declared parameter ``name`` becomes the flag ``--name-with-dashes`` with the
declaration's type, choices, help and default, so a parameter added to a declaration appears
in every subcommand that shows it without touching the command line.

Method parameters cannot collide. Ca-MCF (the default method) keeps its flags as they are
(``--delta1``, ``--k1``); every other method's flags carry the method's registry name
(``--mi-mcf-k1``, ``--jfsc-gamma``, ``--jfsc-variant``), so ``k1`` of MI-MCF and ``k1`` of Ca-MCF
are two flags with two helps. A flag that is already on the parser is **refused** when it is
registered (:class:`FlagCollision`), never silently skipped.

Flags may be generated with no default (``argparse.SUPPRESS``): then only the values the user
typed reach the method, and the method's own default applies to the rest.
"""

from __future__ import annotations

import argparse
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from ..errors import ParameterError
from ..params import Param

__all__ = ["DEFAULT_METHOD", "FlagCollision", "add_param_flags", "dest", "flag", "flag_values"]

#: the method whose flags carry no prefix (``camcf select``'s default method)
DEFAULT_METHOD = "camcf"


class FlagCollision(ValueError):
    """Two declarations would produce the same flag (a programming error, raised when the
    parser is built)."""


def flag(p: Param, method: str | None = None) -> str:
    """The flag of parameter ``p`` of ``method`` (None or the default method: no prefix)."""
    if method is None or method == DEFAULT_METHOD:
        return p.flag
    return f"--{method}-{p.name.replace('_', '-')}"


def dest(p: Param, method: str | None = None) -> str:
    """Where argparse stores the value of :func:`flag` (``args.<dest>``)."""
    if method is None or method == DEFAULT_METHOD:
        return p.name
    return f"{method}:{p.name}"


def _number(p: Param, shown: str, check: bool = False):
    def convert(text: str):
        if p.none_ok and text.lower() in ("none", "null"):
            return None
        if text in p.words:
            return text
        try:
            if p.kind is int and p.also is float and "." in text:
                value = float(text)
            else:
                value = p.kind(text) if p.kind in (int, float) else text
        except ValueError:
            raise argparse.ArgumentTypeError(
                f"{shown} expects {p.describe()}, got {text!r}") from None
        if check:
            try:
                p.validate(value)
            except ParameterError:
                raise argparse.ArgumentTypeError(
                    f"{shown} must be {p.describe()}, got {text}") from None
        return value

    convert.__name__ = p.kind.__name__ + "".join(f" or {w}" for w in p.words)
    return convert


def _bool(text: str) -> bool:
    if text.lower() in ("true", "yes", "1", "on"):
        return True
    if text.lower() in ("false", "no", "0", "off"):
        return False
    raise argparse.ArgumentTypeError(f"expected true or false, got {text!r}")


def add_param_flags(parser, params: Iterable[Param], *, method: str | None = None,
                    with_defaults: bool = True, shown: bool = True, check: bool = False,
                    aliases: Mapping[str, Sequence[str]] | None = None) -> list[str]:
    """Add one flag per parameter to ``parser`` (or an argument group); returns the ``dest``
    names added.

    ``method``: whose parameters these are (their flags get its prefix unless it is the default
    method). ``with_defaults=False``: absent flags leave no attribute (SUPPRESS). ``shown=False``:
    the flags work but ``--help`` does not list them. ``check=True``: a number outside the
    declared range is refused when the command line is parsed (else where it is used).
    ``aliases``: ``{parameter name: further flags}`` that set the same value (e.g. a flag's
    older spelling).

    Raises
    ------
    FlagCollision
        A flag is already on the parser.
    """
    added = []
    for p in params:
        name = flag(p, method)
        kw: dict[str, Any] = {"dest": dest(p, method)}
        default_text = "none" if p.default is None else p.default
        if p.options is not None:
            kw["choices"] = list(p.options)
        elif p.kind is bool:
            kw["type"] = _bool
            kw["metavar"] = "true|false"
        elif p.kind in (int, float):
            kw["type"] = _number(p, name, check)
            kw["metavar"] = ("N" if p.kind is int else "X") + "".join(f"|{w}" for w in p.words)
        label = f"{p.symbol}: " if p.symbol and p.symbol != p.name else ""
        kw["help"] = (f"{label}{p.help or p.describe()} ({default_text})".replace("%", "%%")
                      if shown else argparse.SUPPRESS)
        kw["default"] = p.default if with_defaults else argparse.SUPPRESS
        try:
            parser.add_argument(name, *(aliases or {}).get(p.name, ()), **kw)
        except argparse.ArgumentError as e:
            raise FlagCollision(
                f"{name} ({p.name} of {method or DEFAULT_METHOD}) is already a flag of this "
                f"command: rename the parameter or register it under another method") from e
        added.append(kw["dest"])
    return added


def flag_values(args: argparse.Namespace, params: Iterable[Param], *,
                method: str | None = None) -> dict[str, Any]:
    """``{name: value}`` for the declared parameters of ``method`` present in ``args``."""
    out = {}
    for p in params:
        key = dest(p, method)
        if hasattr(args, key):
            out[p.name] = getattr(args, key)
    return out
