"""Command-line flags generated from parameter declarations (:class:`camcf.params.Param`).

One rule: every declared parameter ``name`` becomes the flag ``--name-with-dashes`` with the
declaration's type, choices, help and default, so a parameter added to a method's ``params``
appears in ``camcf select``/``evaluate``/``compare`` without touching the CLI. Flags may be
generated with no default (``argparse.SUPPRESS``): then only the values the user typed reach
the method, and the method's own default applies to the rest.
"""

from __future__ import annotations

import argparse
from collections.abc import Iterable
from typing import Any

from .params import Param

__all__ = ["add_param_flags", "flag_values", "method_params"]


def _number(p: Param):
    def convert(text: str):
        if p.none_ok and text.lower() in ("none", "null"):
            return None
        if text in p.words:
            return text
        try:
            if p.kind is int and p.also is float and "." in text:
                return float(text)
            return p.kind(text) if p.kind in (int, float) else text
        except ValueError:
            raise argparse.ArgumentTypeError(
                f"{p.flag} expects {p.describe()}, got {text!r}") from None

    convert.__name__ = p.kind.__name__ + "".join(f" or {w}" for w in p.words)
    return convert


def _bool(text: str) -> bool:
    if text.lower() in ("true", "yes", "1", "on"):
        return True
    if text.lower() in ("false", "no", "0", "off"):
        return False
    raise argparse.ArgumentTypeError(f"expected true or false, got {text!r}")


def add_param_flags(parser, params: Iterable[Param], *, with_defaults: bool = True,
                    skip: Iterable[str] = ()) -> list[str]:
    """Add one flag per parameter to ``parser`` (or an argument group); returns the ``dest``
    names added. ``with_defaults=False``: absent flags leave no attribute (SUPPRESS).
    Parameters in ``skip`` or whose flag the parser already has are left out."""
    skip = set(skip)
    added = []
    for p in params:
        if p.name in skip:
            continue
        kw: dict[str, Any] = {"dest": p.name}
        default_text = "none" if p.default is None else p.default
        if p.options is not None:
            kw["choices"] = list(p.options)
        elif p.kind is bool:
            kw["type"] = _bool
            kw["metavar"] = "true|false"
        elif p.kind in (int, float):
            kw["type"] = _number(p)
            kw["metavar"] = ("N" if p.kind is int else "X") + "".join(f"|{w}" for w in p.words)
        label = f"{p.symbol}: " if p.symbol and p.symbol != p.name else ""
        kw["help"] = f"{label}{p.help or p.describe()} ({default_text})".replace("%", "%%")
        kw["default"] = p.default if with_defaults else argparse.SUPPRESS
        try:
            parser.add_argument(p.flag, **kw)
        except argparse.ArgumentError:  # the parser already has this flag
            continue
        added.append(p.name)
    return added


def flag_values(args: argparse.Namespace, params: Iterable[Param]) -> dict[str, Any]:
    """``{name: value}`` for the declared parameters present in ``args``."""
    return {p.name: getattr(args, p.name) for p in params if hasattr(args, p.name)}


def method_params(names: Iterable[str]) -> list[Param]:
    """The declared parameters of the named, available methods (one per name, first wins)."""
    from . import methods

    seen: dict[str, Param] = {}
    for name in names:
        try:
            cls = methods.get(name)
        except methods.MethodUnavailableError:
            continue
        for p in getattr(cls, "params", ()):
            seen.setdefault(p.name, p)
    return list(seen.values())
