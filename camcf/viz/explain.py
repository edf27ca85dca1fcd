"""One plain-language sentence per decision in the trace (the step-through view).

``explain(test, result)`` reads one :class:`camcf.trace.Test` and says what was computed, the
value, what it was compared with, and what followed, e.g.::

    f12 stays in PC: I(f12; A=0 | 3 features, 1 label category) = 0.071 bits > δ1 = 0.050

Values are shown in bits with three decimals (more when three would hide the difference).
"""

from __future__ import annotations

import math

import numpy as np

from ..trace import DECISIONS, STEP_NAMES, STEPS, TARGET, Test

_SMALL_COND = 3  # conditioning sets up to this size are listed by name


def _plural(k: int, word: str) -> str:
    return f"{k} {word}{'' if k == 1 else 's'}"


def _pair(v: float, thr: float) -> tuple[str, str]:
    """Format a value and its threshold so that they differ on screen when they differ."""
    if v != v:
        return "n/a", f"{thr:.3f}"
    if thr != thr:
        return f"{v:.3f}", "n/a"
    for d in (3, 4, 6, 9, 12):
        a, b = f"{v:.{d}f}", f"{thr:.{d}f}"
        if a != b or round(v, 12) == round(thr, 12):
            return a, b
    return f"{v:.12f}", f"{thr:.12f}"


def describe_cond(cond, result, target: int) -> str:
    """``f01, B=1`` for small sets, else ``3 features, 1 label category``; "" when empty."""
    if not cond:
        return ""
    if len(cond) <= _SMALL_COND:
        return ", ".join(result.var_name(p, target) for p in cond)
    m = result.n_features
    nf = sum(1 for p in cond if p < m)
    nc = len(cond) - nf
    parts = []
    if nf:
        parts.append(_plural(nf, "feature"))
    if nc:
        parts.append(_plural(nc, "label category"))
    return ", ".join(parts)


def _I(x: str, t: str, given: str) -> str:
    return f"I({x}; {t} | {given})" if given else f"I({x}; {t})"


def explain(test: Test, result) -> str:
    """A sentence saying what ``test`` computed and what it decided (values in bits)."""
    tr = result.targets[test.target]
    tname = tr.category.display
    name = lambda p: result.var_name(p, test.target)  # noqa: E731
    a = name(test.a) if test.a != TARGET else tname
    b = name(test.b) if test.b != TARGET else tname
    given = describe_cond(test.cond, result, test.target)
    v, thr = _pair(test.value, test.threshold)
    p = result.params
    d1 = _pair(test.value, p["delta1"])[1]
    d2 = _pair(test.value, p["delta2"])[1]
    step, dec = test.step, test.decision
    q = _I(b, tname, given)

    if step == "label-mi":
        if dec == "candidate":
            return (f"{b} is a skeleton candidate for {tname}: I({tname}; {b}) = {v} bits "
                    f"> δ2 = {d2}.")
        return f"{b} is not a skeleton candidate: I({tname}; {b}) = {v} bits ≤ δ2 = {d2}."
    if step == "label-cmi":
        if not test.cond:
            return (f"{b} enters the label skeleton R of {tname} first: it has the highest "
                    f"I({tname}; {b}) = {v} bits of all candidates.")
        if dec == "accepted":
            return (f"{b} is accepted into R: I({tname}; {b} | {given}) = {v} bits > "
                    f"δ2 = {d2}.")
        return (f"{b} is rejected from R: I({tname}; {b} | {given}) = {v} bits ≤ δ2 = {d2} "
                f"(the accepted categories already explain it).")
    if step == "feature-mi":
        n = len(tr.candidates_all)
        keep = len(tr.candidates)
        if dec == "kept":
            return (f"{b} is a PC candidate: s = I({b}; {tname}) = {v} bits > δ1 = {d1}, and it "
                    f"ranks within the first ⌈k1·{n}⌉ = {keep} candidates.")
        if dec == "cut-k1":
            return (f"{b} is cut by k1: s = {v} bits > δ1 = {d1}, but it ranks below the first "
                    f"⌈{p['k1']:g}·{n}⌉ = {keep} candidates.")
        return f"{b} is not a candidate: s = I({b}; {tname}) = {v} bits ≤ δ1 = {d1}."
    if step == "backward":
        if dec == "stays":
            return f"{b} stays in PC: {q} = {v} bits > δ1 = {d1}."
        why = (" (the other PC members and R screen it off)" if test.cond else "")
        return f"{b} is removed from PC: {q} = {v} bits ≤ δ1 = {d1}{why}."
    if step == "spouse-screen":
        if dec == "tested":
            return (f"{b} is tested as a spouse: {q} = {v} bits ≤ δ1 = {d1} (not dependent on "
                    f"{tname} on its own).")
        return (f"{b} is not tested as a spouse: {q} = {v} bits > δ1 = {d1} (dependent on "
                f"{tname} without a co-parent, yet not in PC).")
    if step == "spouse":
        via = name(test.aux)
        if dec == "spouse":
            return (f"{b} is a spouse induced by {via}: {q} = {v} bits > δ1 = {d1} "
                    f"(knowing {via} makes {b} informative about {tname}).")
        return f"{b} is not a spouse via {via}: {q} = {v} bits ≤ δ1 = {d1}."
    if step == "recovery-skip":
        return (f"{b} is not tried for recovery: s = {v} bits < δ1/2 = "
                f"{_pair(test.value, test.threshold)[1]}.")
    if step == "blocker":
        return (f"Blocker strength of {b}: {_I(b, tname, given)} = {v} bits (the value a "
                f"feature must beat to take its place).")
    if step == "recovery":
        blocker = name(test.aux)
        if dec == "recovered":
            return (f"{b} is recovered, displacing {blocker}: {q} = {v} bits > "
                    f"{_I(blocker, tname, given)} = {thr} bits.")
        return (f"{b} loses against {blocker}: {q} = {v} bits ≤ "
                f"{_I(blocker, tname, given)} = {thr} bits.")
    if step == "k2-cut":
        n = len(tr.cmb)
        keep = len(tr.after_cut)
        if dec == "kept":
            return (f"{b} survives the k2 cut: s = {v} bits ranks within the first "
                    f"⌈{p['k2']:g}·{n}⌉ = {keep} of the blanket.")
        return (f"{b} is cut by k2: s = {v} bits ranks below the first ⌈{p['k2']:g}·{n}⌉ = "
                f"{keep} of the blanket (the last kept has {thr} bits).")
    if step == "symmetry":
        if dec == "removed":
            return (f"{b} is removed by the symmetry check: s = I({b}; {tname}) = {v} bits "
                    f"≤ δ1 = {d1}.")
        return f"{b} passes the symmetry check: s = I({b}; {tname}) = {v} bits > δ1 = {d1}."
    if step == "redundancy":
        sf = float(result.mi_table[test.a, test.target]) if test.a >= 0 else math.nan
        g = p["gamma"]
        if dec == "dominates":
            return (f"{a} is removed as redundant: {b} explains it better, I({a}; {b}) = {v} "
                    f"bits > γ·s = {g:g} × {sf:.3f} = {thr} bits.")
        return (f"{b} does not explain {a} better: I({a}; {b}) = {v} bits ≤ γ·s = "
                f"{g:g} × {sf:.3f} = {thr} bits.")
    return f"{step}: {a}, {b}, value {v}, threshold {thr}, {dec}."  # pragma: no cover


def explain_row(row, result) -> str:
    """:func:`explain` for one row of ``result.to_frame(names=False)`` (a Series or a tuple)."""
    get = row.__getitem__ if hasattr(row, "__getitem__") and not isinstance(row, tuple) else (
        lambda k: getattr(row, k))
    step = get("step")
    step = STEP_NAMES[int(step)] if isinstance(step, int | np.integer) else str(step)
    dec = get("decision")
    dec = DECISIONS[int(dec)] if isinstance(dec, int | np.integer) else str(dec)
    test = Test(seq=int(get("seq")), phase=STEPS[step][0], step=step, quantity=STEPS[step][1],
                target=int(get("target")), a=int(get("a")), b=int(get("b")),
                cond=tuple(get("cond")), value=float(get("value")),
                threshold=float(get("threshold")), decision=dec, aux=int(get("aux")))
    return explain(test, result)
