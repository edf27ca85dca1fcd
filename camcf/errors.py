"""Typed errors. Every message names the problem and the way out."""

from __future__ import annotations


class CamcfError(Exception):
    """Base class of every error camcf raises on purpose."""


class DataFormatError(CamcfError, ValueError):
    """A file could not be read as a data set: names the file, what was expected, what was found."""


class LabelSpecError(CamcfError, ValueError):
    """The label columns were not given, or given in a way that does not fit the data."""


class InvalidDataError(CamcfError, ValueError):
    """Arrays that cannot be used as they are (NaN, negative codes, wrong shape, one category)."""


class ParameterError(CamcfError, ValueError):
    """A parameter is out of its range; the message names the parameter and the value received."""
