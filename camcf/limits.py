"""Memory limits: estimate before allocating, refuse with a clear message above the limit.

The limit is, in this order: the ``limit`` argument, the environment variable
``CAMCF_MEMORY_LIMIT`` (bytes, or a number with a K/M/G/T suffix, e.g. ``8G``), or 80 % of the
machine's physical memory. Readers and the engine call :func:`check_memory` with their estimate of
what an operation needs before they allocate it.

>>> parse_size("1.5G") == int(1.5 * 2**30)
True
>>> check_memory(10, "a tiny array", limit=100)
>>> check_memory(2 * 2**30, "the dense feature matrix", limit=2**30)
Traceback (most recent call last):
...
camcf.errors.ResourceLimitError: the dense feature matrix would need about 2.0 GiB, more than the memory limit of 1.0 GiB; raise the limit (environment variable CAMCF_MEMORY_LIMIT, e.g. CAMCF_MEMORY_LIMIT=4G) or use a smaller data set
"""

from __future__ import annotations

import os

from .errors import ParameterError, ResourceLimitError

ENV_VAR = "CAMCF_MEMORY_LIMIT"
_UNITS = {"": 1, "B": 1, "K": 2**10, "M": 2**20, "G": 2**30, "T": 2**40}


def parse_size(text: str | int | float) -> int:
    """``"8G"`` → bytes. Accepts a plain number of bytes or K/M/G/T (binary units, optional B)."""
    if isinstance(text, int | float) and not isinstance(text, bool):
        value = float(text)
    else:
        s = str(text).strip().upper().removesuffix("IB").removesuffix("B")
        unit = s[-1:] if s[-1:] in _UNITS else ""
        try:
            value = float(s[: len(s) - len(unit)]) * _UNITS[unit]
        except ValueError:
            raise ParameterError(
                f"cannot read {text!r} as a memory size; write bytes or a number with K, M, G "
                f"or T, e.g. 8G") from None
    if not value > 0:
        raise ParameterError(f"a memory limit must be positive, got {text!r}")
    return int(value)


def physical_memory() -> int | None:
    try:
        return os.sysconf("SC_PHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
    except (ValueError, OSError, AttributeError):
        return None


def memory_limit(limit: str | int | float | None = None) -> int:
    """The limit in bytes (argument, then ``CAMCF_MEMORY_LIMIT``, then 80 % of the RAM)."""
    if limit is not None:
        return parse_size(limit)
    env = os.environ.get(ENV_VAR)
    if env:
        return parse_size(env)
    phys = physical_memory()
    return int(0.8 * phys) if phys else 8 * 2**30


def format_bytes(n: float) -> str:
    for unit in ("B", "KiB", "MiB", "GiB", "TiB"):
        if abs(n) < 1024 or unit == "TiB":
            return f"{n:.0f} {unit}" if unit == "B" else f"{n:.1f} {unit}"
        n /= 1024
    raise AssertionError  # unreachable


def check_memory(nbytes: float, what: str, *, limit: str | int | float | None = None) -> None:
    """Raise :class:`ResourceLimitError` if ``what`` would need more than the memory limit."""
    lim = memory_limit(limit)
    if nbytes > lim:
        raise ResourceLimitError(
            f"{what} would need about {format_bytes(nbytes)}, more than the memory limit of "
            f"{format_bytes(lim)}; raise the limit (environment variable {ENV_VAR}, e.g. "
            f"{ENV_VAR}=4G) or use a smaller data set")
