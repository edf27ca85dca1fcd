"""What changed between two Ca-MCF runs on the same data, and the first decision that flipped.

:func:`diff_results` compares a pinned run (``before``) with a new one (``after``), category by
category:

* the sets each phase produced — the final blanket, R (label skeleton), PC, spouses and the
  recovered features — as *entered* (in ``after`` only) and *left* (in ``before`` only);
* the **first decision that flipped**. The two decision records of a category are aligned by
  the identity of each test: (phase, step, quantity, variables ``a``/``b``/``aux``, conditioning
  set). Two rows with the same identity computed the same quantity on the same data, so their
  values agree unless the data or the discretisation changed; when their decisions differ, the
  decision *flipped* (typically because a threshold moved across the value). The first flip is
  the earliest such row in the ``before`` record's order (the order the algorithm took its
  decisions);
* the **first point of structural divergence**: the earliest test that one run performed and
  the other did not (e.g. backward elimination conditions on a smaller PC once a member was
  removed). A divergence without any flip means a count moved (k1, k2 shares) or the runs
  differ in their data.

A category that one run skipped and the other ran is reported with ``skipped_before`` /
``skipped_after`` and no alignment. The parameter changes are listed as (before, after).

The comparison is pure: the same two results give the same :class:`RunDiff`.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from .errors import CamcfError
from .result import Result, TargetResult
from .trace import DECISIONS, STEP_NAMES, STEPS, Test, subject_of

__all__ = ["CategoryDiff", "Divergence", "Flip", "RunDiff", "diff_results"]

#: the sets compared per category (attribute of TargetResult or a function of it)
SETS = ("blanket", "skeleton", "pc", "spouses", "recovered")
SET_TITLES = {"blanket": "blanket", "skeleton": "R", "pc": "PC", "spouses": "spouses",
              "recovered": "recovered"}


@dataclass(frozen=True)
class Flip:
    """One test both runs performed, with different decisions (``before.decision !=
    after.decision``); values in bits."""

    before: Test
    after: Test

    @property
    def step(self) -> str:
        return self.before.step


@dataclass(frozen=True)
class Divergence:
    """The first test present in one run's record only (``None`` on the side that has none)."""

    before: Test | None
    after: Test | None


@dataclass(frozen=True)
class CategoryDiff:
    """The changes of one target category. Feature sets are sorted column indices; ``skeleton``
    changes are category ids."""

    target: int
    entered: dict[str, tuple[int, ...]]
    left: dict[str, tuple[int, ...]]
    size_before: int
    size_after: int
    skipped_before: bool = False
    skipped_after: bool = False
    first_flip: Flip | None = None
    divergence: Divergence | None = None
    n_flips: int = 0

    @property
    def changed(self) -> bool:
        """True when any set, the skip status or any decision differs."""
        return (any(self.entered.values()) or any(self.left.values())
                or self.skipped_before != self.skipped_after or self.first_flip is not None
                or self.divergence is not None)


@dataclass(frozen=True, eq=False)
class RunDiff:
    """The outcome of :func:`diff_results`."""

    before: Result
    after: Result
    params: dict[str, tuple]  # name -> (before, after), changed parameters only
    categories: list[CategoryDiff]
    entered: tuple[int, ...]  # selected features new in ``after``
    left: tuple[int, ...]  # selected features no longer selected
    same_scores: bool = True  # False: the MI tables differ (other data or discretisation)
    notes: list[str] = field(default_factory=list)

    @property
    def changed(self) -> list[CategoryDiff]:
        return [c for c in self.categories if c.changed]

    def explain(self, cd: CategoryDiff) -> str:
        """Plain words for one category: the first flipped decision (both values and
        thresholds), else the first divergence, else the skip change, else "no change"."""
        tname = self.after.categories[cd.target].display
        if cd.skipped_before != cd.skipped_after:
            t_b, t_a = self.before.targets[cd.target], self.after.targets[cd.target]
            if cd.skipped_after:
                return f"{tname} is skipped now ({t_a.skip_reason}); it ran before."
            return f"{tname} runs now; it was skipped before ({t_b.skip_reason})."
        if cd.first_flip is not None:
            from .viz.explain import explain

            f = cd.first_flip
            return (f"First flipped decision (phase {f.before.phase}, {f.step}). "
                    f"Before: {explain(f.before, self.before)} "
                    f"Now: {explain(f.after, self.after)}")
        if cd.divergence is not None:
            from .viz.explain import explain

            d = cd.divergence
            parts = ["No decision flipped; the runs first differ in which tests they made."]
            if d.before is not None:
                parts.append(f"Only before (phase {d.before.phase}, {d.before.step}): "
                             f"{explain(d.before, self.before)}")
            if d.after is not None:
                parts.append(f"Only now (phase {d.after.phase}, {d.after.step}): "
                             f"{explain(d.after, self.after)}")
            return " ".join(parts)
        return "No change."

    def to_frame(self, *, changed_only: bool = False) -> pd.DataFrame:
        """One row per category: sizes, the sets that entered/left (names), the first flip.

        Columns: ``target``, ``category``, ``label``, ``size`` (positive samples),
        ``blanket_before``, ``blanket_after``, then for each of blanket, R, PC, spouses,
        recovered ``<set> +`` and ``<set> −`` (names, comma-separated), ``flips`` (number of
        flipped decisions), ``first_flip_phase``, ``first_flip_step``, ``first_flip_variable``,
        ``value_before``, ``threshold_before``, ``decision_before``, ``value_after``,
        ``threshold_after``, ``decision_after`` (bits) and ``explanation``.
        """
        rows = []
        res = self.after
        for cd in self.categories:
            if changed_only and not cd.changed:
                continue
            c = res.categories[cd.target]
            row = {"target": cd.target, "category": c.display, "label": c.label,
                   "size": c.size, "blanket_before": cd.size_before,
                   "blanket_after": cd.size_after}
            for s in SETS:
                title = SET_TITLES[s]
                row[f"{title} +"] = self._names(s, cd.entered[s])
                row[f"{title} −"] = self._names(s, cd.left[s])
            row["flips"] = cd.n_flips
            f = cd.first_flip
            row["first_flip_phase"] = f.before.phase if f else None
            row["first_flip_step"] = f.step if f else None
            # the variable decided about (a redundancy row's feature is ``a``)
            row["first_flip_variable"] = (res.var_name(subject_of(f.step, f.before.a,
                                                                  f.before.b), cd.target)
                                          if f else None)
            for side in ("before", "after"):
                t = getattr(f, side) if f else None
                row[f"value_{side}"] = t.value if t else np.nan
                row[f"threshold_{side}"] = t.threshold if t else np.nan
                row[f"decision_{side}"] = t.decision if t else None
            row["explanation"] = self.explain(cd)
            rows.append(row)
        cols = ["target", "category", "label", "size", "blanket_before", "blanket_after"]
        for s in SETS:
            cols += [f"{SET_TITLES[s]} +", f"{SET_TITLES[s]} −"]
        cols += ["flips", "first_flip_phase", "first_flip_step", "first_flip_variable",
                 "value_before", "threshold_before", "decision_before", "value_after",
                 "threshold_after", "decision_after", "explanation"]
        return pd.DataFrame(rows, columns=cols)

    def _names(self, which: str, idx) -> str:
        if which == "skeleton":
            return ", ".join(self.after.categories[q].display for q in idx)
        return ", ".join(self.after.feature_names[i] for i in idx)

    def summary(self) -> dict:
        """Counts for a headline: categories changed, with a flip, features entered/left."""
        ch = self.changed
        return {"categories": len(self.categories), "changed": len(ch),
                "with_flip": sum(1 for c in ch if c.first_flip is not None),
                "selected_before": int(self.before.selected_indices.size),
                "selected_after": int(self.after.selected_indices.size),
                "entered": len(self.entered), "left": len(self.left)}


# ------------------------------------------------------------------------------------------------
def _set_of(t: TargetResult, which: str) -> set[int]:
    if t.skipped:
        return set()
    if which == "spouses":
        return set(t.spouses)
    if which == "recovered":
        return {f for f, _ in t.recovered}
    return set(getattr(t, which))


def _check_same_data(before: Result, after: Result) -> None:
    if (before.feature_names != after.feature_names or before.n_samples != after.n_samples
            or [c.display for c in before.categories] != [c.display for c in after.categories]):
        raise CamcfError(
            "the two runs are on different data (features, samples or label categories differ); "
            "pin a run on the current data and compare again")


def _cond_map(before: Result, after: Result) -> np.ndarray:
    """Ids of ``after``'s conditioning sets in ``before``'s numbering (new sets get new ids)."""
    b, a = before.cond_sets, after.cond_sets
    ids = {b.array(i).tobytes(): i for i in range(len(b))}
    out = np.empty(len(a), dtype=np.int64)
    nxt = len(b)
    for j in range(len(a)):
        key = a.array(j).tobytes()
        i = ids.get(key)
        if i is None:
            i = ids[key] = nxt
            nxt += 1
        out[j] = i
    return out


def _keys(tr: dict, cond_ids: np.ndarray | None) -> np.ndarray:
    """(rows × 6) int64 identity of every test: step, a+1, b+1, cond, aux+1, occurrence."""
    k = tr["step"].size
    if k == 0:
        return np.empty((0, 6), dtype=np.int64)
    cond = tr["cond"].astype(np.int64)
    if cond_ids is not None:
        cond = cond_ids[cond]
    base = np.column_stack([tr["step"].astype(np.int64), tr["a"].astype(np.int64) + 1,
                            tr["b"].astype(np.int64) + 1, cond, tr["aux"].astype(np.int64) + 1])
    # occurrence number among equal identities (0 for all in practice: identities are unique)
    code = _encode(base, base.max(axis=0) + 1)
    occ = np.zeros(k, dtype=np.int64)
    if code is not None:
        order = np.argsort(code, kind="stable")
        sc = code[order]
        dup = np.r_[False, sc[1:] == sc[:-1]]
        if dup.any():
            starts = np.r_[0, np.nonzero(~dup[1:])[0] + 1]
            run_start = np.repeat(starts, np.diff(np.r_[starts, k]))
            occ[order] = np.arange(k) - run_start
    return np.column_stack([base, occ])


def _encode(keys: np.ndarray, sizes: np.ndarray) -> np.ndarray | None:
    """Mixed-radix code of each row (one int64), or None when it would not fit in 62 bits."""
    sizes = np.maximum(np.asarray(sizes, dtype=np.int64), 1)
    if float(np.prod(sizes.astype(float))) >= 2.0 ** 62:
        return None
    code = np.zeros(keys.shape[0], dtype=np.int64)
    for c in range(keys.shape[1]):
        code = code * sizes[c] + keys[:, c]
    return code


def _match(ka: np.ndarray, kb: np.ndarray) -> np.ndarray:
    """For each row of ``ka``, the row of ``kb`` with the same identity, or −1."""
    if ka.shape[0] == 0 or kb.shape[0] == 0:
        return np.full(ka.shape[0], -1, dtype=np.int64)
    sizes = np.maximum(ka.max(axis=0), kb.max(axis=0)) + 1
    ca, cb = _encode(ka, sizes), _encode(kb, sizes)
    if ca is None:  # very wide identities: compare rows as wholes
        both = np.vstack([ka, kb])
        _, inv = np.unique(both, axis=0, return_inverse=True)
        inv = inv.ravel()
        ca, cb = inv[: ka.shape[0]], inv[ka.shape[0]:]
    order = np.argsort(cb, kind="stable")
    sb = cb[order]
    pos = np.clip(np.searchsorted(sb, ca), 0, sb.size - 1)
    return np.where(sb[pos] == ca, order[pos], -1)


def _test(res: Result, t: TargetResult, i: int) -> Test:
    from ._record import significance

    tr = t.trace
    step = STEP_NAMES[int(tr["step"][i])]
    phase, quantity, _ = STEPS[step]
    sig = significance(res, t)
    return Test(seq=i, phase=phase, step=step, quantity=quantity, target=t.id,
                a=int(tr["a"][i]), b=int(tr["b"][i]), cond=res.cond_sets[int(tr["cond"][i])],
                value=float(tr["value"][i]), threshold=float(tr["threshold"][i]),
                decision=DECISIONS[int(tr["decision"][i])], aux=int(tr["aux"][i]),
                **{k: v[i].item() for k, v in sig.items()})


def _align(before: Result, after: Result, tb: TargetResult, ta: TargetResult,
           cond_ids: np.ndarray) -> tuple[Flip | None, Divergence | None, int]:
    ka = _keys(tb.trace, None) if tb.trace else np.empty((0, 6), dtype=np.int64)
    kb = _keys(ta.trace, cond_ids) if ta.trace else np.empty((0, 6), dtype=np.int64)
    da = tb.trace["decision"] if tb.trace else np.empty(0, dtype=np.int8)
    db = ta.trace["decision"] if ta.trace else np.empty(0, dtype=np.int8)
    # fast path: identical records (the common case for untouched categories)
    if ka.shape == kb.shape and np.array_equal(ka, kb) and np.array_equal(da, db):
        return None, None, 0
    m_ab = _match(ka, kb)
    m_ba = _match(kb, ka)
    both = np.nonzero(m_ab >= 0)[0]
    flipped = both[da[both] != db[m_ab[both]]]
    flip = None
    if flipped.size:
        i = int(flipped[0])
        flip = Flip(_test(before, tb, i), _test(after, ta, int(m_ab[i])))
    only_b = np.nonzero(m_ab < 0)[0]
    only_a = np.nonzero(m_ba < 0)[0]
    div = None
    if only_b.size or only_a.size:
        div = Divergence(_test(before, tb, int(only_b[0])) if only_b.size else None,
                         _test(after, ta, int(only_a[0])) if only_a.size else None)
    return flip, div, int(flipped.size)


def diff_results(before: Result, after: Result) -> RunDiff:
    """Compare two runs on the same data, category by category.

    Parameters
    ----------
    before, after : Result
        Two runs of :func:`camcf.run` on the same data (same features, samples and label
        categories); typically the pinned run and the current one.

    Returns
    -------
    RunDiff
        Parameter changes, per-category :class:`CategoryDiff` (flattened order) and the
        features that entered or left the selection.

    Raises
    ------
    CamcfError
        When the runs are on different data.
    """
    _check_same_data(before, after)
    params = {k: (before.params.get(k), after.params.get(k))
              for k in sorted(set(before.params) | set(after.params))
              if before.params.get(k) != after.params.get(k)}
    same_scores = (before.mi_table.shape == after.mi_table.shape
                   and np.array_equal(before.mi_table, after.mi_table))
    notes = [] if same_scores else [
        "the feature–category MI values differ: the runs used other data or another "
        "discretisation, so values of the same test may differ too"]
    cond_ids = _cond_map(before, after)
    cats = []
    for tb, ta in zip(before.targets, after.targets, strict=True):
        entered, left = {}, {}
        for s in SETS:
            sb, sa = _set_of(tb, s), _set_of(ta, s)
            entered[s] = tuple(sorted(sa - sb))
            left[s] = tuple(sorted(sb - sa))
        flip = div = None
        n_flips = 0
        if not tb.skipped and not ta.skipped:
            flip, div, n_flips = _align(before, after, tb, ta, cond_ids)
        cats.append(CategoryDiff(
            target=ta.id, entered=entered, left=left,
            size_before=0 if tb.skipped else len(tb.blanket),
            size_after=0 if ta.skipped else len(ta.blanket),
            skipped_before=tb.skipped, skipped_after=ta.skipped,
            first_flip=flip, divergence=div, n_flips=n_flips))
    sb, sa = set(before.selected_indices.tolist()), set(after.selected_indices.tolist())
    return RunDiff(before=before, after=after, params=params, categories=cats,
                   entered=tuple(sorted(sa - sb)), left=tuple(sorted(sb - sa)),
                   same_scores=same_scores, notes=notes)
