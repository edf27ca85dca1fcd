"""How the command line words the library's warnings: from their structured fields, naming its
own flags (the explorer words the same fields with its controls, ``pages/_words.py``).

A library warning may carry ``problem`` (the facts) and ``fix`` (a code of :data:`FIX`) beside
its message (:class:`camcf.CamcfWarning`); one without them is printed as its message.
"""

from __future__ import annotations

#: ``fix`` code -> what to do on the command line
FIX = {
    "thresholds": "try --delta1 auto --delta2 auto (the thresholds a G test at --significance "
                  "α amounts to on these data), a lower --delta1, or a higher --k1 / --k2",
    "test_part": "give the test part with --test-variable (e.g. test_data) or another --test "
                 "file",
}


def say_warning(w: Warning) -> str:
    """A library warning as the command line says it (from its fields when it has them)."""
    fields = getattr(w, "fields", None) or {}
    problem, fix = fields.get("problem"), fields.get("fix")
    if not problem or fix not in FIX:
        return str(w)
    return f"{problem}; {FIX[fix]}"


def empty_selection(n_empty: int, n_splits: int) -> str:
    """The warning for a selection that was empty on ``n_empty`` of ``n_splits`` splits."""
    split = "split" if n_splits == 1 else "splits"
    return (f"Ca-MCF selected no feature on {n_empty:,} of {n_splits:,} {split}; "
            f"{FIX['thresholds']}")
