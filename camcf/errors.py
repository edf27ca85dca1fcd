"""Typed errors. Every message names the problem and the way out."""

from __future__ import annotations

import threading


class CamcfError(Exception):
    """Base class of every error camcf raises on purpose.

    The message (``str(e)``) is complete English for a command line. Errors may also carry
    structured ``fields`` (keyword arguments of the constructor, readable as attributes and as
    ``e.fields``) so that another front end (the app) can word the problem itself instead of
    rewriting the message.

    >>> e = ParameterError("k1 must be in (0, 1], got 0", name="k1", value=0, allowed="(0, 1]")
    >>> e.name, e.value, e.allowed, e.fields["name"]
    ('k1', 0, '(0, 1]', 'k1')
    """

    def __init__(self, *args, **fields) -> None:
        super().__init__(*args)
        self.fields: dict = dict(fields)
        for key, value in fields.items():
            setattr(self, key, value)


class DataFormatError(CamcfError, ValueError):
    """A file could not be read as a data set: names the file, what was expected, what was found."""


class LabelSpecError(CamcfError, ValueError):
    """The label columns were not given, or given in a way that does not fit the data."""


class InvalidDataError(CamcfError, ValueError):
    """Arrays that cannot be used as they are (NaN, negative codes, wrong shape, one category)."""


class ParameterError(CamcfError, ValueError):
    """A parameter is out of its range; the message names the parameter and the value received.

    Raised by :meth:`camcf.params.Param.validate` with the fields ``name`` (the parameter),
    ``value`` (what was received) and ``allowed`` (the allowed values in words, as
    :meth:`~camcf.params.Param.describe` gives them).
    """

    name: str | None = None
    value: object = None
    allowed: str | None = None


class ResourceLimitError(CamcfError, MemoryError):
    """A data set or a run would need more memory than the limit allows (see camcf.limits).

    Raised before anything large is allocated; the message says how much would be needed, what
    the limit is and how to raise it.
    """


def _not_fitted_error() -> type:
    """:class:`NotFittedError`, made on first use so that importing camcf does not import
    scikit-learn: it subclasses scikit-learn's ``NotFittedError`` (itself a ``ValueError`` and
    an ``AttributeError``), so ``except sklearn.exceptions.NotFittedError`` and scikit-learn's
    estimator checks catch it."""
    from sklearn.exceptions import NotFittedError as _SkNotFitted

    class NotFittedError(CamcfError, _SkNotFitted):
        """A selector was used before ``fit``; the message says which and to call fit first."""

    NotFittedError.__module__ = __name__
    NotFittedError.__qualname__ = "NotFittedError"  # pickled by reference (joblib workers)
    return NotFittedError


_LOCK = threading.Lock()


def __getattr__(name: str):  # PEP 562: NotFittedError is created when first asked for
    if name == "NotFittedError":
        with _LOCK:
            if "NotFittedError" not in globals():
                globals()["NotFittedError"] = _not_fitted_error()
        return globals()["NotFittedError"]
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


class FileAccessError(CamcfError, OSError):
    """A file could not be read or written for a reason outside the data: it is unreadable
    (permissions), its folder is missing, or the disk is full. The message names the file and
    the way out. The CLI exits with code 3 (an environment failure) for it."""


class MissingDependencyError(CamcfError, ImportError):
    """An optional dependency a feature needs is not installed (e.g. pgmpy for the known
    networks: ``pip install 'camcf[networks]'``). The message names the package and the extra
    to install; the CLI exits with code 3 (an environment failure)."""
