"""Plain-language explanations of the decision record, generated from its fields only.

``explain_test(test, result)`` reads one :class:`camcf.trace.Test` (its step, ``a``, ``b``,
``cond``, ``value``, ``threshold``, ``decision``, ``aux``) and returns an :class:`Explanation`:
the variable the decision is about (its *subject*: the removed feature for a redundancy
removal, the tested feature or category otherwise), the quantity measured with its conditioning
set, what the value was compared with, the outcome, one sentence, and the rows of the step
through's "This decision" table. :func:`explain` is the sentence alone::

    f12 stays in PC: I(f12; A=0 | 3 features, 1 label category) = 0.071 bits > δ1 = 0.050.

Every sentence and table row comes from the same :class:`Explanation`, so a test can check each
one against the record (tests/test_explain.py does, on several runs).

Values are shown in bits with three significant digits and at least three decimals, a
parameter with all its digits, each number the same wherever it appears (more digits when
that would hide the difference between a value and what it is compared with: :func:`_pair`).
A measured value is written by :func:`measured` alone: when the record gains a significance
column (``p_value``, with ``g`` and ``df``), that one function shows it beside the bits.

The module also writes the summaries the pages need beyond single rows: a run of routine rows
(:func:`routine_summary`, :func:`step_items`), the redundancy tests of one feature
(:func:`redundancy_summary`), and a feature's path through the phases (:func:`feature_story`).
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass, field

import numpy as np

from ..trace import DECISIONS, STEP_NAMES, STEPS, SUBJECT_IS_A, TARGET, Test, subject_of

_SMALL_COND = 3  # conditioning sets up to this size are listed by name
_PREC = 12  # the algorithm compares values rounded to 12 decimals (SPEC)
#: a measured information whose magnitude is below this is float noise (a plug-in estimate that
#: is exactly 0 comes out as ±4.5e-16 from terms that cancel): it is shown as 0
NOISE = 1e-12

#: the optional significance columns of a record row that :func:`measured` shows
SIGNIFICANCE_FIELDS = ("n", "g", "df", "p_value", "log10_p")

#: (step, decision) pairs the step-through groups as routine: the common outcome that leaves
#: every set as it was and leads to no further test of that variable (not a skeleton
#: candidate, not a PC candidate, a feature that passes the spouse screen but is no spouse,
#: not a spouse, not tried for recovery, a category that does not make a feature redundant)
ROUTINE: frozenset[tuple[str, str]] = frozenset({
    ("label-mi", "not-candidate"),
    ("feature-mi", "below-delta1"),
    ("spouse-screen", "not-tested"),
    ("spouse-screen", "tested"),
    ("spouse", "not-spouse"),
    ("recovery-skip", "skipped"),
    ("redundancy", "does-not-dominate"),
})

#: step -> decisions whose value must be greater than the threshold ("the yes side"); the
#: other decisions of the step have value ≤ threshold (``recovery-skip``: <, ``k2-cut``: rank)
_ABOVE: dict[str, frozenset[str]] = {
    "label-mi": frozenset({"candidate"}),
    "label-cmi": frozenset({"accepted"}),
    "feature-mi": frozenset({"kept", "cut-k1"}),
    "backward": frozenset({"stays"}),
    "spouse-screen": frozenset({"not-tested"}),
    "spouse": frozenset({"spouse"}),
    "recovery": frozenset({"recovered"}),
    "symmetry": frozenset({"stays"}),
    "redundancy": frozenset({"dominates"}),
}


def plural(k: int, word: str, many: str | None = None) -> str:
    """A count and its noun, the one way the explanations and pages write one: ``1 category``,
    ``1,966 categories`` (thousands separated; ``many``: an irregular plural)."""
    many = many or (word[:-1] + "ies" if word.endswith("y") and word[-2:-1] not in "aeiou"
                    else word + "s")
    return f"{k:,} {word if k == 1 else many}"


def bits(x: float) -> float:
    """A measured information as it is shown: 0 where its magnitude is below :data:`NOISE`
    (float noise such as −4.529e-16), else the value."""
    x = float(x)
    return 0.0 if abs(x) < NOISE else x


def bits_values(values):
    """:func:`bits` of every element of an array, a list or a pandas Series (a Series stays a
    Series with its index; NaN stays NaN)."""
    if hasattr(values, "index") and hasattr(values, "mask"):  # a pandas Series
        return values.mask(values.abs() < NOISE, 0.0)
    a = np.asarray(values, dtype=float)
    return np.where(np.abs(a) < NOISE, 0.0, a)


def _decimals(x: float) -> int:
    """The decimals a number is shown with on its own: a number written with few digits (a
    parameter such as δ1 = 0.002749 or 0.05, or δ1/2) exactly those digits, as the sidebar
    shows it; any other three significant digits, at least three decimals and at most twelve
    (the precision of the algorithm's comparisons). A number so shown is the same wherever it
    appears."""
    if x == 0 or not math.isfinite(x):
        return 3
    short = repr(float(x))  # the shortest text that reads back as x
    if "e" not in short and "." in short:
        digits = short.split(".")[1]
        if len(digits.lstrip("0")) <= 7:
            return min(_PREC, len(digits))
    return min(_PREC, max(3, 2 - math.floor(math.log10(abs(x)))))


def number(x: float) -> str:
    """One number in bits as the explanations write it (:func:`_decimals`; "n/a" for NaN;
    float noise as 0: :func:`bits`)."""
    if x != x:
        return "n/a"
    x = bits(x)
    return f"{x:.{_decimals(x)}f}"


def _pair(v: float, thr: float) -> tuple[str, str]:
    """Format a value and its threshold (:func:`_decimals` each) so that they differ on
    screen when they differ, in the order the algorithm sees them (both get more decimals
    until they do)."""
    if v != v or thr != thr:
        return number(v), number(thr)
    v, thr = bits(v), bits(thr)
    dv, dt = _decimals(v), _decimals(thr)
    rv, rt = round(v, _PREC), round(thr, _PREC)
    for extra in (0, 1, 2, 3, 6, 9):
        a, b = f"{v:.{min(_PREC, dv + extra)}f}", f"{thr:.{min(_PREC, dt + extra)}f}"
        fa, fb = float(a), float(b)
        if (fa > fb) == (rv > rt) and (fa < fb) == (rv < rt):
            return a, b
    return f"{v:.{_PREC}f}", f"{thr:.{_PREC}f}"


def _times(g: float, s: float, product: str) -> str:
    """``s`` written so that ``g`` × it, rounded as ``product`` is shown, gives ``product``
    (γ·s = 1.2 × 0.003885 = 0.00466, not 1.2 × 0.00389 = 0.00466): its own digits
    (:func:`number`), more when the product needs them."""
    if s != s or product == "n/a":
        return number(s)
    s = bits(s)
    dp = len(product.split(".")[1]) if "." in product else 0
    for d in range(_decimals(s), _PREC + 1):
        if f"{g * float(f'{s:.{d}f}'):.{dp}f}" == product:
            return f"{s:.{d}f}"
    return f"{s:.{_PREC}f}"


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
        parts.append(plural(nf, "feature"))
    if nc:
        parts.append(plural(nc, "label category"))
    return ", ".join(parts)


def _I(x: str, t: str, given: str) -> str:
    return f"I({x}; {t} | {given})" if given else f"I({x}; {t})"


def p_text(p_value: float, log10_p: float | None = None) -> str:
    """A record row's p value in words, the one way every page writes it: ``p = 0.00312``
    (three significant digits) while p is a readable double, ``p < 10⁻²⁴⁴`` (from
    ``log10_p``, the tightest power of ten above it) once p has underflowed or is below
    1e-300; "" when there is no finite p.

    >>> p_text(0.003121), p_text(0.0, -243.6), p_text(float("nan"))
    ('p = 0.00312', 'p < 10⁻²⁴³', '')
    """
    lg = float(log10_p) if log10_p is not None else float("nan")
    p = float(p_value) if p_value is not None else float("nan")
    if np.isfinite(p) and p >= 1e-300:
        return f"p = {p:.3g}"
    if np.isfinite(lg):
        return "p < 10" + str(int(math.ceil(lg))).translate(_SUP)
    if np.isfinite(p):  # 0 with no logarithm at hand
        return "p < 10⁻³⁰⁰"
    return ""


_SUP = str.maketrans("-0123456789", "⁻⁰¹²³⁴⁵⁶⁷⁸⁹")


def p_column(frame) -> list[str]:
    """:func:`p_text` of every row of a record frame (its ``p_value`` and ``log10_p``
    columns): the "p" column the pages' tables show beside the bits."""
    lg = frame["log10_p"] if "log10_p" in frame else [None] * len(frame)
    return [p_text(p, g) for p, g in zip(frame["p_value"], lg, strict=True)]


def measured(value: str, fields: Mapping | None = None) -> str:
    """A measured value as the sentences write it: ``0.071 bits``.

    This is the one place that formats a measured quantity. ``fields`` are the record row's
    optional significance columns (:data:`SIGNIFICANCE_FIELDS`); when the row has a finite
    ``p_value`` it is shown beside the bits (``0.071 bits, p = 0.003``; :func:`p_text`), with
    the G statistic and its degrees of freedom when those are there too."""
    out = f"{value} bits"
    if not fields:
        return out
    p = fields.get("p_value")
    if p is None or not np.isfinite(p):
        return out
    g, df = fields.get("g"), fields.get("df")
    stat = (f"G = {round(float(g), 2) or 0.0:.2f}, df = {int(df):,}, " if g is not None
            and df is not None and np.isfinite(g) and np.isfinite(df) else "")
    return f"{out} ({stat}{p_text(p, fields.get('log10_p'))})"


#: the level at which a decision by bits is set against its test's p when the run records no
#: significance level of its own (thresholds given as numbers): the usual 5 %
ALPHA = 0.05
#: step -> the threshold its decision compares the value with (the steps decided by bits
#: against δ: a value above it means "dependent", as p ≤ α does)
DELTA_OF: dict[str, str] = {"label-mi": "δ2", "label-cmi": "δ2", "feature-mi": "δ1",
                            "backward": "δ1", "spouse-screen": "δ1", "spouse": "δ1",
                            "symmetry": "δ1"}


def alpha_of(result) -> float:
    """The level :func:`disagreement` uses for ``result``: the run's own significance level
    when it recorded one (a threshold given as ``"auto"``), else :data:`ALPHA`."""
    return float(result.params.get("significance", ALPHA))


@dataclass(frozen=True)
class Disagreement:
    """A decision by bits against δ that the G test of the same value would take the other
    way at level ``alpha`` (from the record row's ``n``, ``g``, ``df``, ``p_value``).

    ``above``: the value was above δ (kept, accepted, a candidate, a spouse, …) while
    ``p > alpha``; otherwise it was at or below δ while ``p ≤ alpha``. ``needed`` is the value
    in bits at which the test reaches p = alpha with these ``n`` and ``df``
    (:func:`camcf.significance.threshold_for`), ``g_needed`` the G it amounts to."""

    above: bool
    reference: str
    alpha: float
    p: str
    n: int
    df: int
    g: float
    needed: float
    g_needed: float

    def sentence(self) -> str:
        """Why they disagree, in words."""
        if self.above:
            return (f"The G test of this value disagrees: {self.p} > α = {self.alpha:g}. "
                    f"Ca-MCF decides by the bits against {self.reference}, not by p: with "
                    f"df = {self.df:,} degrees of freedom on n = {self.n:,} rows, G = 2·n·ln 2·I "
                    f"= {self.g:,.2f} stays below the G = {self.g_needed:,.2f} the test needs "
                    f"for p ≤ {self.alpha:g}, that is I > {number(self.needed)} bits.")
        return (f"The G test of this value disagrees: {self.p} ≤ α = {self.alpha:g}. Ca-MCF "
                f"decides by the bits against {self.reference}, not by p: on n = {self.n:,} "
                f"rows with df = {self.df:,}, G = 2·n·ln 2·I = {self.g:,.2f} already reaches "
                f"the G = {self.g_needed:,.2f} the test needs for p ≤ {self.alpha:g}, that is "
                f"only I > {number(self.needed)} bits.")

    def short(self) -> str:
        """The same in a few words, for a table cell."""
        at = f"at df = {self.df:,}, n = {self.n:,}, p ≤ {self.alpha:g} needs"
        if self.above:
            return (f"p > {self.alpha:g} yet above {self.reference}: {at} "
                    f"I > {number(self.needed)} bits")
        return (f"p ≤ {self.alpha:g} yet not above {self.reference}: {at} only "
                f"I > {number(self.needed)} bits")


def disagreement(step: str, decision: str, fields: Mapping | None,
                 alpha: float = ALPHA) -> Disagreement | None:
    """Whether a record row's decision by bits and its G test disagree at level ``alpha``
    (None when they agree, when the step is not decided against δ — :data:`DELTA_OF` —, or
    when the row has no finite p). ``fields``: the row's ``n``, ``g``, ``df``, ``p_value``
    (and ``log10_p``)."""
    from ..significance import LN2, threshold_for

    if step not in DELTA_OF or not fields:
        return None
    p, df, n, g = (fields.get(k) for k in ("p_value", "df", "n", "g"))
    if p is None or df is None or n is None or g is None:
        return None
    p, df, n, g = float(p), int(df), int(n), float(g)
    if not (np.isfinite(p) and np.isfinite(g)) or df <= 0 or n <= 0:
        return None
    above = decision in _ABOVE[step]
    if above == (p <= alpha):
        return None
    needed = threshold_for(alpha, n, df)
    return Disagreement(above=above, reference=DELTA_OF[step], alpha=alpha,
                        p=p_text(p, fields.get("log10_p")), n=n, df=df,
                        g=round(g, 2) or 0.0, needed=needed, g_needed=2.0 * n * LN2 * needed)


def disagreement_column(frame, result) -> list[str]:
    """Per row of a record frame (``step``, ``decision`` and the significance columns): the
    short words of its :func:`disagreement` at :func:`alpha_of` ``result``, "" where the
    decision by bits and the test agree: the "bits vs p" column of the pages' tables."""
    alpha = alpha_of(result)
    out = [""] * len(frame)
    if not len(frame) or "p_value" not in frame:
        return out
    steps, decs = frame["step"].to_numpy(), frame["decision"].to_numpy()
    above = np.fromiter((d in _ABOVE.get(s, ()) for s, d in zip(steps, decs, strict=True)),
                        dtype=bool, count=len(frame))
    p = frame["p_value"].to_numpy(dtype=float)
    maybe = np.flatnonzero(np.isin(steps, list(DELTA_OF)) & np.isfinite(p)
                           & (above != (p <= alpha)))  # the rows that can disagree
    cols = {k: frame[k].to_numpy() for k in SIGNIFICANCE_FIELDS if k in frame}
    for i in maybe:
        d = disagreement(steps[i], decs[i], {k: v[i] for k, v in cols.items()}, alpha)
        if d is not None:
            out[i] = d.short()
    return out


@dataclass(frozen=True)
class Explanation:
    """One decision of the record, in words, with the fields the words came from.

    Attributes
    ----------
    step, decision : str
        As in the record.
    subject : int
        Pool index of the variable the decision is about (the removed, kept, accepted or
        tested variable): ``b`` for every step but ``redundancy``, where it is ``a`` (the
        feature) and ``b`` is the category that explains it.
    subject_name : str
    quantity : str
        The measured quantity written out, e.g. ``I(f00; B=0 | A=0)``.
    value : float
        The record's value (bits).
    op : str or None
        How the value relates to the reference: ``">"``, ``"≤"``, ``"<"``, ``"≥"`` (a rank
        within the k2 cut), or None (a measurement without a comparison: ``blocker``).
    reference : str
        What the value was compared with, e.g. ``δ1``, ``γ·s``, ``I(A=0; B=0 | f02)``.
    reference_value : float
        The record's threshold.
    given : tuple of int
        The conditioning set (pool indices), empty when none.
    given_text : str
        How the sentence names it ("" when empty).
    other : int or None
        The second variable a decision names: the category that makes a feature redundant,
        the blocker a feature competes with, the PC member that induces a spouse.
    outcome : str
        What followed, in words.
    text : str
        The sentence.
    fields : dict
        The record row's optional significance columns (see :func:`measured`).
    """

    step: str
    decision: str
    subject: int
    subject_name: str
    quantity: str
    value: float
    op: str | None
    reference: str
    reference_value: float
    given: tuple[int, ...]
    given_text: str
    other: int | None
    other_name: str
    outcome: str
    text: str
    fields: dict = field(default_factory=dict)
    disagreement: Disagreement | None = None

    def table(self) -> dict[str, list[str]]:
        """The rows of the "This decision" table (two columns: what, value)."""
        v, thr = _pair(self.value, self.reference_value)
        rows = [
            ("step", f"{self.step} (phase {STEPS[self.step][0]})"),
            ("decided about", self.subject_name),
            ("measured", self.quantity),
            ("given", self.given_text or "∅ (nothing)"),
            ("value", measured(v, self.fields)),
        ]
        if self.op is not None:
            rows.append(("compared with", f"{self.op} {self.reference} = {thr}"))
        if self.other is not None:
            rows.append((_OTHER_ROLE.get(self.step, "other variable"), self.other_name))
        rows.append(("decision", f"{self.decision}: {self.outcome}"))
        if self.disagreement is not None:
            rows.append(("bits vs p", self.disagreement.sentence()))
        return {"": [a for a, _ in rows], "value": [b for _, b in rows]}


_OTHER_ROLE = {"redundancy": "explained by", "recovery": "blocker", "spouse": "induced by"}



def subject_indices(frame):
    """Per row of a record frame: the pool index of the variable it decides about."""
    return frame["b"].where(~frame["step"].isin(SUBJECT_IS_A), frame["a"])


def subject_names(frame):
    """Per row of a named record frame (``result.to_frame()``): the name of the variable the
    row decides about (:func:`subject_of`)."""
    return frame["b_name"].where(~frame["step"].isin(SUBJECT_IS_A), frame["a_name"])


def explain_test(test: Test, result, fields: Mapping | None = None) -> Explanation:
    """The :class:`Explanation` of one record row (``fields``: its optional significance
    columns; read from ``test`` itself when it has them)."""
    if fields is None:
        fields = {k: getattr(test, k) for k in SIGNIFICANCE_FIELDS if hasattr(test, k)}
    fields = dict(fields)
    tr = result.targets[test.target]
    tname = tr.category.display
    name = lambda p: result.var_name(p, test.target) if p != TARGET else tname  # noqa: E731
    step, dec = test.step, test.decision
    subj = subject_of(step, test.a, test.b)
    s_name = name(subj)
    given = describe_cond(test.cond, result, test.target)
    v, thr = _pair(test.value, test.threshold)
    val = measured(v, fields)
    p = result.params
    other = None
    other_name = ""
    op: str | None
    q = _I(s_name, tname, given)
    ref, outcome = "", ""
    above = dec in _ABOVE.get(step, ())

    if step == "label-mi":
        op, ref = (">" if above else "≤"), "δ2"
        if above:
            outcome = "a skeleton candidate"
            text = f"{s_name} is a skeleton candidate for {tname}: {q} = {val} > δ2 = {thr}."
        else:
            outcome = "not a skeleton candidate"
            text = f"{s_name} is not a skeleton candidate for {tname}: {q} = {val} ≤ δ2 = {thr}."
    elif step == "label-cmi":
        op, ref = (">" if above else "≤"), "δ2"
        if not test.cond:
            outcome = "accepted into R first"
            text = (f"{s_name} enters the label skeleton R of {tname} first: {q} = {val} > "
                    f"δ2 = {thr}, the highest of all skeleton candidates.")
        elif above:
            outcome = "accepted into R"
            text = (f"{s_name} is accepted into the label skeleton R of {tname}: {q} = {val} > "
                    f"δ2 = {thr}.")
        else:
            outcome = "not accepted into R"
            text = (f"{s_name} is not accepted into R: {q} = {val} ≤ δ2 = {thr} (given the "
                    f"categories accepted before it, {given}, it tells little more about "
                    f"{tname}).")
    elif step == "feature-mi":
        op, ref = (">" if above else "≤"), "δ1"
        q = f"s = {_I(s_name, tname, '')}"
        n, keep = len(tr.candidates_all), len(tr.candidates)
        if dec == "kept":
            outcome = "a PC candidate"
            text = (f"{s_name} is a PC candidate: {q} = {val} > δ1 = {thr}, and it ranks within "
                    f"the first ⌈k1·n⌉ = ⌈{p['k1']:g}·{n:,}⌉ = {keep:,} of the "
                    f"{plural(n, 'feature')} above δ1.")
        elif dec == "cut-k1":
            outcome = "cut by k1"
            text = (f"{s_name} is cut by k1: {q} = {val} > δ1 = {thr}, but it ranks below the "
                    f"first ⌈k1·n⌉ = ⌈{p['k1']:g}·{n:,}⌉ = {keep:,} of the {plural(n, 'feature')} "
                    f"above δ1.")
        else:
            outcome = "not a PC candidate"
            text = f"{s_name} is not a PC candidate: {q} = {val} ≤ δ1 = {thr}."
    elif step == "backward":
        op, ref = (">" if above else "≤"), "δ1"
        if above:
            outcome = "stays in PC"
            text = f"{s_name} stays in PC: {q} = {val} > δ1 = {thr}."
        else:
            outcome = "removed from PC"
            why = (f" ({given} screen it off from {tname})" if test.cond else
                   " (with nothing to condition on, the test is s_f itself)")
            text = f"{s_name} is removed from PC: {q} = {val} ≤ δ1 = {thr}{why}."
    elif step == "spouse-screen":
        op, ref = (">" if above else "≤"), "δ1"
        ctx = f"given {given}" if given else "on its own"
        if not above:
            outcome = "passes the spouse screen (tested against each PC member)"
            text = (f"{s_name} passes the spouse screen: {q} = {val} ≤ δ1 = {thr} (no "
                    f"dependence on {tname} {ctx}), so it is tested as a spouse with each PC "
                    f"member.")
        else:
            outcome = "not tested as a spouse"
            text = (f"{s_name} is not tested as a spouse: {q} = {val} > δ1 = {thr} (it depends "
                    f"on {tname} {ctx}, yet it is not in PC).")
    elif step == "spouse":
        op, ref = (">" if above else "≤"), "δ1"
        other, other_name = test.aux, name(test.aux)
        if above:
            outcome = f"a spouse induced by {other_name}"
            text = (f"{s_name} is a spouse induced by {other_name}: {q} = {val} > δ1 = {thr} "
                    f"(given {other_name}, {s_name} becomes informative about {tname}).")
        else:
            outcome = f"not a spouse via {other_name}"
            text = f"{s_name} is not a spouse via {other_name}: {q} = {val} ≤ δ1 = {thr}."
    elif step == "recovery-skip":
        op, ref = "<", "δ1/2"
        q = f"s = {_I(s_name, tname, '')}"
        outcome = "not tried for recovery"
        text = f"{s_name} is not tried for recovery: {q} = {val} < δ1/2 = {thr}."
    elif step == "blocker":
        op, ref = None, ""
        outcome = "the blocker's strength, measured"
        text = (f"{s_name}, as a blocker: {q} = {val} — a feature outside the blanket must "
                f"beat this value, given the same set, to displace it.")
    elif step == "recovery":
        other, other_name = test.aux, name(test.aux)
        ref = _I(other_name, tname, given)
        op = ">" if above else "≤"
        if above:
            outcome = f"recovered, displacing {other_name}"
            text = (f"{s_name} is recovered, displacing {other_name}: {q} = {val} > {ref} = "
                    f"{measured(thr)}.")
        else:
            outcome = f"loses against {other_name}"
            text = f"{s_name} loses against {other_name}: {q} = {val} ≤ {ref} = {measured(thr)}."
    elif step == "k2-cut":
        q = f"s = {_I(s_name, tname, '')}"
        n, keep = len(tr.cmb), len(tr.after_cut)
        ref = "s of the last feature kept"
        if dec == "kept":
            op, outcome = "≥", "survives the k2 cut"
            text = (f"{s_name} survives the k2 cut: {q} = {val} ≥ {thr}, the s of the last "
                    f"feature kept; it ranks within the first ⌈k2·|CMB|⌉ = "
                    f"⌈{p['k2']:g}·{n:,}⌉ = {keep:,} of the blanket.")
        else:
            op, outcome = "≤", "cut by k2"
            text = (f"{s_name} is cut by k2: {q} = {val} ≤ {thr}, the s of the last feature "
                    f"kept; it ranks below the first ⌈k2·|CMB|⌉ = ⌈{p['k2']:g}·{n:,}⌉ = {keep:,} "
                    f"of the blanket (ties keep the sorted order).")
    elif step == "symmetry":
        op, ref = (">" if above else "≤"), "δ1"
        q = f"s = {_I(s_name, tname, '')}"
        if above:
            outcome = "passes the symmetry check"
            text = f"{s_name} passes the symmetry check: {q} = {val} > δ1 = {thr}."
        else:
            outcome = "removed by the symmetry check"
            text = f"{s_name} is removed by the symmetry check: {q} = {val} ≤ δ1 = {thr}."
    elif step == "redundancy":
        other, other_name = test.b, name(test.b)
        sf = float(result.mi_table[test.a, test.target]) if test.a >= 0 else math.nan
        q = f"I({s_name}; {other_name})"
        sv = _times(p["gamma"], sf, thr)
        ref = f"γ·s = {p['gamma']:g} × {sv}"
        op = ">" if above else "≤"
        if above:
            outcome = f"removed as redundant ({other_name} explains it)"
            text = (f"{s_name} is removed as redundant: {other_name}, a category of another "
                    f"label, explains it more than γ times as well as {tname} does: {q} = {val} "
                    f"> γ·s = {p['gamma']:g} × {sv} = {thr} bits (s = I({s_name}; {tname})).")
        else:
            outcome = f"{other_name} does not make it redundant"
            text = (f"{s_name} is not made redundant by {other_name}: {q} = {val} ≤ γ·s = "
                    f"{p['gamma']:g} × {sv} = {thr} bits (s = I({s_name}; {tname})).")
    else:  # pragma: no cover - a step the record does not have
        op, outcome = None, dec
        text = f"{step}: {s_name}, value {val}, threshold {thr}, {dec}."
    dis = disagreement(step, dec, fields, alpha_of(result))
    if dis is not None:
        text = f"{text} {dis.sentence()}"
    return Explanation(step=step, decision=dec, subject=subj, subject_name=s_name, quantity=q,
                       value=float(test.value), op=op, reference=ref,
                       reference_value=float(test.threshold), given=tuple(test.cond),
                       given_text=given, other=other, other_name=other_name, outcome=outcome,
                       text=text, fields=fields, disagreement=dis)


def explain(test: Test, result) -> str:
    """A sentence saying what ``test`` computed and what it decided (values in bits)."""
    return explain_test(test, result).text


def row_test(row) -> tuple[Test, dict]:
    """A record row (a Series or namedtuple of :meth:`camcf.Result.to_frame`, names or not)
    as a :class:`~camcf.trace.Test` and its optional significance columns."""
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
    keys = row.index if hasattr(row, "index") and not isinstance(row, tuple) else getattr(
        row, "_fields", ())
    fields = {k: get(k) for k in SIGNIFICANCE_FIELDS if k in keys}
    return test, fields


def explain_row_full(row, result) -> Explanation:
    """:func:`explain_test` for one row of ``result.to_frame()``."""
    test, fields = row_test(row)
    return explain_test(test, result, fields)


def explain_row(row, result) -> str:
    """:func:`explain` for one row of ``result.to_frame(names=False)`` (a Series or a tuple)."""
    return explain_row_full(row, result).text


# -- more than one row -------------------------------------------------------------------------
def is_routine(step: str, decision: str) -> bool:
    """Whether the step-through groups a row as routine (see :data:`ROUTINE`)."""
    return (step, decision) in ROUTINE


def routine_mask(frame) -> np.ndarray:
    """Per row of a record frame (columns ``step``, ``decision``): routine or not."""
    steps = frame["step"].to_numpy()
    decs = frame["decision"].to_numpy()
    return np.fromiter(((s, d) in ROUTINE for s, d in zip(steps, decs, strict=True)),
                       dtype=bool, count=len(frame))


@dataclass(frozen=True)
class Item:
    """One position of the step-through: a single row, or a run of routine rows
    (``rows``: positions in the frame given to :func:`step_items`)."""

    rows: tuple[int, ...]
    routine_group: bool

    @property
    def first(self) -> int:
        return self.rows[0]


def step_items(frame, *, group_routine: bool = True) -> list[Item]:
    """The positions the step-through moves over, for ``frame`` (record rows in trace order).

    With ``group_routine``, every maximal run of consecutive routine rows (:data:`ROUTINE`) of
    one phase becomes one item (a run of a single row stays a row); every other row is an
    item of its own. Nothing is left out: the items cover every row, in order."""
    n = len(frame)
    if not group_routine:
        return [Item((i,), False) for i in range(n)]
    routine = routine_mask(frame)
    phase = frame["phase"].to_numpy()
    items: list[Item] = []
    i = 0
    while i < n:
        if not routine[i]:
            items.append(Item((i,), False))
            i += 1
            continue
        j = i
        while j + 1 < n and routine[j + 1] and phase[j + 1] == phase[i]:
            j += 1
        items.append(Item(tuple(range(i, j + 1)), j > i))
        i = j + 1
    return items


_ROUTINE_WORDS = {
    ("label-mi", "not-candidate"): ("not a skeleton candidate", "I(t; C') ≤ δ2"),
    ("feature-mi", "below-delta1"): ("not a PC candidate", "s_f ≤ δ1"),
    ("spouse-screen", "not-tested"): ("not tested as a spouse", "I(t; X_z | R) > δ1"),
    ("spouse-screen", "tested"): ("passed the spouse screen", "I(t; X_z | R) ≤ δ1"),
    ("spouse", "not-spouse"): ("not a spouse", "I(t; X_z | X_x ∪ R) ≤ δ1"),
    ("recovery-skip", "skipped"): ("not tried for recovery", "s_f < δ1/2"),
    ("redundancy", "does-not-dominate"): ("no redundancy", "I(X_f; C_d) ≤ γ·s_f"),
}


def routine_summary(frame, result, limit: int = 6) -> str:
    """One sentence for a run of routine rows (a record frame with ``b_name``/``a_name``):
    how many, of which kind, with the rule each kind satisfied, and the first names."""
    n = len(frame)
    kinds = Counter(zip(frame["step"], frame["decision"], strict=True))
    parts = []
    for (step, dec), k in kinds.items():
        what, rule = _ROUTINE_WORDS.get((step, dec), (dec, step))
        sub = frame[(frame["step"] == step) & (frame["decision"] == dec)]
        names = list(dict.fromkeys(subject_names(sub).astype(str)))
        shown = ", ".join(names[:limit]) + (f", … (+{len(names) - limit:,})"
                                            if len(names) > limit else "")
        parts.append(f"{k:,} {what} ({rule}): {shown}")
    phase = int(frame["phase"].iloc[0]) if n else 0
    return (f"{plural(n, 'routine test')} of phase {phase}, none of which changed a set — "
            + "; ".join(parts) + ".")


def redundancy_summary(result, target, feature: int) -> str | None:
    """What the redundancy tests of ``feature`` for ``target`` say as a whole (None when the
    record has no such test).

    The test compares I(X_f; C_d) for each category d of the other labels, in flattened order,
    with the one bound γ·s_f and stops at the first d above it. The sentence says how many
    categories stayed at or under that bound before (or, for a feature that stays, in all),
    which came closest, and — for a removed feature — which one exceeded it."""
    t = result.target(target)
    tests = [x for x in result.tests(t.id) if x.step == "redundancy"
             and subject_of(x.step, x.a, x.b) == feature]
    if not tests:
        return None
    fname = result.feature_names[feature]
    tname = t.category.display
    g = result.params["gamma"]
    sf = float(result.mi_table[feature, t.id])
    bound = tests[0].threshold
    under = [x for x in tests if x.decision == "does-not-dominate"]
    over = [x for x in tests if x.decision == "dominates"]
    bt = _pair(sf, bound)[1]
    bound_txt = (f"the same bound γ·s = {g:g} × {_times(g, sf, bt)} = {bt} bits "
                 f"(s = I({fname}; {tname}))")
    closest = ""
    if under:
        c = max(under, key=lambda x: round(x.value, _PREC))
        cv, cb = _pair(c.value, c.threshold)
        closest = (f"; the closest, {result.var_name(c.b)}, has I({fname}; "
                   f"{result.var_name(c.b)}) = {cv} ≤ {cb} bits")
    if over:
        d = over[0]
        dv, db = _pair(d.value, d.threshold)
        before = (f"The {plural(len(under), 'category')} tested before it, in flattened order, "
                  f"stayed at or under {bound_txt}{closest}. " if under else
                  "It was the first category tested. ")
        return (f"{fname} is removed as redundant by {result.var_name(d.b)}: "
                f"I({fname}; {result.var_name(d.b)}) = {dv} > γ·s = {db} bits, the first "
                f"category of another label above the bound. " + before +
                "The test stops at the first category above the bound.")
    n = len(under)
    return (f"{fname} is not redundant: all {plural(n, 'category')} of the other labels "
            f"stayed at or under {bound_txt}{closest}.")


def feature_path(result, target, feature: int) -> list[Explanation]:
    """Every record row about ``feature`` for ``target`` (its subject, see :func:`subject_of`),
    as explanations in trace order, except the routine passes of Phase 4 (``k2-cut`` kept,
    ``symmetry`` stays, ``redundancy`` does-not-dominate: :func:`feature_story` sums those up)."""
    t = result.target(target)
    quiet = {("k2-cut", "kept"), ("symmetry", "stays"), ("redundancy", "does-not-dominate")}
    return [explain_test(x, result) for x in result.tests(t.id)
            if subject_of(x.step, x.a, x.b) == feature and (x.step, x.decision) not in quiet]


def brief(e: Explanation) -> str:
    """An explanation in a few words: the outcome and its comparison (``removed from PC:
    I(f00; B=0 | f02, A=0) = 0.003 bits ≤ δ1 = 0.050``)."""
    v, thr = _pair(e.value, e.reference_value)
    if e.op is None:
        return f"{e.outcome}: {e.quantity} = {measured(v, e.fields)}"
    tail = f" ({e.disagreement.short()})" if e.disagreement is not None else ""
    return (f"{e.outcome}: {e.quantity} = {measured(v, e.fields)} {e.op} {e.reference} = "
            f"{thr}{tail}")


def feature_steps(result, target, feature: int) -> tuple[list[str], str]:
    """(the decisions about ``feature`` for ``target`` in a few words each — :func:`brief` of
    :func:`feature_path`, with the redundancy passes summed up —, and the end: ``in`` or
    ``not in the final blanket of …``)."""
    t = result.target(target)
    tname = t.category.display
    fname = result.feature_names[feature]
    if t.skipped:
        return [], f"not in any blanket: {tname} was skipped ({t.skip_reason})"
    in_blanket = feature in set(t.blanket)
    end = (f"in the final blanket of {tname}" if in_blanket
           else f"not in the final blanket of {tname}")
    path = feature_path(result, t.id, feature)
    if not path:  # a record kept at a lower trace level: say the fate from the sets
        fate = result.feature_fates(t.id).get(feature)
        return [], end + (f" ({fate})" if fate else "") + (
            "; the record keeps no row about it at this trace level")
    passed = [x for x in result.tests(t.id) if x.step == "redundancy" and x.a == feature
              and x.decision == "does-not-dominate"]
    steps = [brief(e) for e in path]
    if passed and not any(e.step == "redundancy" for e in path):
        g = result.params["gamma"]
        steps.append(f"not redundant: I({fname}; C_d) ≤ γ·s = {g:g} × s for all "
                     f"{plural(len(passed), 'category')} of the other labels")
    return steps, end


def feature_story(result, target, feature: int, *, named: bool = True) -> str:
    """A feature's path through the phases for one target, from the record: every decision
    about it (:func:`feature_steps`, each with its numbers, joined by →) and where it ended
    (in the final blanket of the target or not). ``named``: start with the feature's name."""
    steps, end = feature_steps(result, target, feature)
    head = f"{result.feature_names[feature]}: " if named else ""
    return head + (" → ".join(steps) + ". " if steps else "") + f"So it is {end}."
