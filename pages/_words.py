"""How the explorer words the library's errors and warnings: from their structured fields,
never by rewriting the message text.

Library errors carry fields beside their command-line message (:class:`camcf.CamcfError`):
:class:`camcf.ParameterError` has ``name``, ``value`` and ``allowed``; an error whose way out
depends on the front end has ``problem`` (the facts, in words any front end can show) and
``fix`` (what to change, as a code from :data:`FIX`), sometimes ``choices``; the app may add
``source`` (the data set's name) when the library did not know it. The command line
prints ``str(e)`` (with its flags); the explorer says ``problem`` and its own way out, naming
its own controls. An error without these fields is shown as its message, which then names no
flag or keyword of another front end.
"""

from __future__ import annotations

from camcf.algorithm_params import by_name
from camcf.errors import CamcfError, ParameterError

#: ``fix`` code -> what to do in the explorer
FIX = {
    "labels": "pick them under Label columns (column names, or last:K / first:K), or upload a "
              "MULAN XML file listing the labels",
    "labels_positional": "type last:K or first:K under Label columns",
    "no_labels": "leave Label columns empty",
    "variable": "choose one under Variables",
    "check_labels": "check which columns are the labels (Label columns) and that the label "
                    "values vary",
    "complete_data": "fill in or remove those cells, rows or columns in the file",
    "discretize": "choose Discretisation auto (sidebar, Discretisation)",
    "thresholds": "try a lower δ1 or a higher k1 / k2",
}


def _label(name: str) -> str:
    p = by_name().get(name)
    return p.label if p is not None else name


def _fielded(fields: dict, fallback: str) -> str:
    problem, fix = fields.get("problem"), fields.get("fix")
    if not problem or fix not in FIX:
        return fallback
    choices = fields.get("choices")
    tail = f" ({', '.join(str(c) for c in choices)})" if choices else ""
    source = fields.get("source")
    if source and not str(problem).startswith(str(source)):
        problem = f"{source}: {problem}"
    return f"{problem}; {FIX[fix]}{tail}"


def say(e: BaseException) -> str:
    """An error as the explorer says it (from its fields; its message when it has none)."""
    if isinstance(e, ParameterError) and getattr(e, "name", None) and e.allowed is not None:
        if isinstance(e.allowed, list | tuple):
            return f"{e.name!r} is not a parameter here (known: {', '.join(e.allowed)})"
        return f"{_label(e.name)} must be {e.allowed}, got {e.value!r}"
    if isinstance(e, CamcfError):
        return _fielded(e.fields, str(e))
    return str(e)


def say_warning(w: Warning) -> str:
    """A library warning as the explorer says it (from its fields when it has them)."""
    return _fielded(getattr(w, "fields", {}) or {}, str(w))
