"""Why a run selected nothing or almost nothing: which step removed the most candidates.

:func:`diagnose` reads a :class:`camcf.Result` only (its targets' sets, its parameters, the
levels of its columns) and counts, over the feature–category pairs of the categories that ran,
how many each step of Ca-MCF removed: never a candidate (s_f ≤ δ1), cut by k1, removed by the
backward elimination (a conditional test ≤ δ1), cut by k2, removed by symmetry (s_f ≤ δ1),
removed by redundancy (γ); and how many entered as spouses or were recovered. The counts are
those of :func:`camcf.viz.summary.flow_row` (the Overview's flow, one way of counting), and
"below δ1" is the number of a target's ``feature-mi`` record rows with decision
``below-delta1``. The suggested thresholds are :func:`camcf.significance.thresholds_from_levels`
on the run's own levels and rows, so a click that applies them runs exactly those numbers.

>>> import camcf
>>> from camcf.datasets import make_causal_multilabel
>>> ds = make_causal_multilabel(300, seed=0).dataset
>>> d = diagnose(camcf.run(ds.X, ds.Y, delta1=0.9))
>>> d.selected, d.poor, d.worst.key
(0, True, 'below-delta1')
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

#: a run is poor when it selects fewer than this share of the features (or none)
POOR_SHARE = 0.02


@dataclass(frozen=True)
class StepCount:
    """One step's removals, summed over the categories that ran (feature–category pairs).

    ``key`` names the step (``below-delta1``, ``cut-k1``, ``backward``, ``cut-k2``,
    ``symmetry``, ``redundancy``), ``parameter`` the threshold that decides it (``delta1``,
    ``k1``, ``k2``, ``gamma``), ``removed`` the pairs it removed, ``entering`` the pairs that
    reached it, ``text`` the count in words."""

    key: str
    parameter: str
    removed: int
    entering: int
    text: str


@dataclass(frozen=True)
class Diagnosis:
    """What :func:`diagnose` found (every count from the result's sets).

    Attributes
    ----------
    selected, n_features : int
        Features selected, features in the data.
    poor : bool
        Nothing or almost nothing was selected (fewer than :data:`POOR_SHARE` of the features).
    categories_run, categories_skipped : int
        Label categories that ran / were skipped (minimum category size).
    empty_skeleton : int
        Categories that ran with an empty skeleton R (no category passed δ2).
    pairs : int
        Feature–category pairs of the categories that ran (n_features × categories_run).
    steps : tuple of StepCount
        The removing steps in the order Ca-MCF runs them.
    spouses, recovered : int
        Pairs that entered as spouses (Phase 2) or were recovered (Phase 3).
    worst : StepCount or None
        The step that removed the most pairs (None when no category ran).
    suggestion : dict or None
        :func:`camcf.significance.thresholds_from_levels` for the run's data at
        ``significance`` (None when the result has no levels).
    sentences : tuple of str
        The explanation, one sentence an item.
    """

    selected: int
    n_features: int
    poor: bool
    categories_run: int
    categories_skipped: int
    empty_skeleton: int
    pairs: int
    steps: tuple[StepCount, ...]
    spouses: int
    recovered: int
    worst: StepCount | None
    suggestion: dict | None
    sentences: tuple[str, ...] = field(default=())

    @property
    def counts(self) -> dict[str, int]:
        """``{step key: pairs removed}``."""
        return {s.key: s.removed for s in self.steps}

    def suggested_params(self) -> dict:
        """The suggested ``{"delta1": …, "delta2": …}`` (empty when there is no suggestion)."""
        if not self.suggestion:
            return {}
        return {"delta1": self.suggestion["delta1"], "delta2": self.suggestion["delta2"]}


def _pct(k: int, of: int) -> str:
    return f"{100.0 * k / of:.1f} %" if of else "—"


def diagnose(result, significance: float | None = None) -> Diagnosis:
    """Count what each step of ``result``'s run removed and say which removed the most.

    Parameters
    ----------
    result : camcf.Result
    significance : float, optional
        The level α of the suggested thresholds; by default the run's own
        (``result.params["significance"]`` when it was recorded, else 0.01).

    Returns
    -------
    Diagnosis
    """
    from .algorithm_params import by_name
    from .significance import thresholds_from_levels
    from .viz.explain import plural
    from .viz.summary import flow_row

    def were(k: int) -> str:
        return "was" if k == 1 else "were"

    p = result.params
    m = int(result.n_features)
    alpha = float(significance if significance is not None else
                  p.get("significance", by_name()["significance"].default))
    ran = [t for t in result.targets if not t.skipped]
    tot = dict.fromkeys(("candidates", "cut by k1", "kept by k1", "removed (backward)", "PC",
                         "spouses", "recovered", "CMB", "cut by k2", "symmetry", "redundancy",
                         "blanket"), 0)
    for t in ran:
        for k, v in flow_row(t).items():
            tot[k] += v
    pairs = m * len(ran)
    below = pairs - tot["candidates"]
    d1, d2 = p["delta1"], p["delta2"]
    steps = (
        StepCount("below-delta1", "delta1", below, pairs,
                  f"{below:,} of {pairs:,} feature–category pairs ({_pct(below, pairs)}) had "
                  f"s_f = I(t; X_f) ≤ δ1 = {d1:g} bits and "
                  + ("was never a candidate" if below == 1 else "were never candidates")),
        StepCount("cut-k1", "k1", tot["cut by k1"], tot["candidates"],
                  f"{tot['cut by k1']:,} of {tot['candidates']:,} candidates "
                  f"{were(tot['cut by k1'])} cut by k1 = {p['k1']:g}"),
        StepCount("backward", "delta1", tot["removed (backward)"], tot["kept by k1"],
                  f"{tot['removed (backward)']:,} of {tot['kept by k1']:,} kept candidates "
                  f"{were(tot['removed (backward)'])} removed by the backward elimination (a "
                  f"conditional test ≤ δ1)"),
        StepCount("cut-k2", "k2", tot["cut by k2"], tot["CMB"],
                  f"{tot['cut by k2']:,} of {tot['CMB']:,} that reached pruning "
                  f"{were(tot['cut by k2'])} cut by k2 = {p['k2']:g}"),
        StepCount("symmetry", "delta1", tot["symmetry"], tot["CMB"] - tot["cut by k2"],
                  f"{tot['symmetry']:,} {were(tot['symmetry'])} removed by symmetry (s_f ≤ δ1)"),
        StepCount("redundancy", "gamma", tot["redundancy"],
                  tot["CMB"] - tot["cut by k2"] - tot["symmetry"],
                  f"{tot['redundancy']:,} {were(tot['redundancy'])} removed as redundant "
                  f"(γ = {p['gamma']:g})"),
    )
    worst = max(steps, key=lambda s: s.removed) if ran else None
    selected = int(result.selected_indices.size)
    poor = selected == 0 or selected < POOR_SHARE * m
    suggestion = None
    if result.levels is not None and m:
        suggestion = thresholds_from_levels(result.levels[:m], int(result.n_samples), alpha)
    empty_r = sum(1 for t in ran if not t.skeleton)
    skipped = len(result.targets) - len(ran)

    said = [f"The run selected {selected:,} of {m:,} features."]
    if not ran:
        said.append(("The only label category was" if skipped == 1 else
                     f"Every one of the {skipped:,} label categories was")
                    + f" skipped (fewer positive samples than the minimum category size "
                    f"{p['min_category_size']:,}).")
    else:
        said.append(f"Over the {len(ran):,} label categories that ran, the step that removed "
                    f"the most was {_NAMES[worst.key]}: "
                    f"{plural(worst.removed, 'feature–category pair')}.")
        said.extend(f"{s.text[0].upper()}{s.text[1:]}." for s in steps)
        said.append(f"{tot['spouses']:,} entered as "
                    f"{'a spouse' if tot['spouses'] == 1 else 'spouses'} and "
                    f"{tot['recovered']:,} {were(tot['recovered'])} recovered.")
        if empty_r:
            said.append(f"{empty_r:,} of {len(ran):,} categories had an empty label skeleton R "
                        f"(no category of another label passed δ2 = {d2:g} bits).")
        if skipped:
            said.append(f"{plural(skipped, 'category')} {were(skipped)} skipped (minimum "
                        f"category size {p['min_category_size']:,}).")
    if suggestion is not None:
        said.append(f"At significance α = {alpha:g} on these n = {int(result.n_samples):,} rows "
                    f"the G test suggests δ1 = {suggestion['delta1']:.4g} bits (df "
                    f"{suggestion['df_delta1']:,}) and δ2 = {suggestion['delta2']:.4g} bits "
                    f"(df 1); this run used δ1 = {d1:g}, δ2 = {d2:g}.")
    return Diagnosis(selected=selected, n_features=m, poor=poor, categories_run=len(ran),
                     categories_skipped=skipped, empty_skeleton=empty_r, pairs=pairs,
                     steps=steps, spouses=tot["spouses"], recovered=tot["recovered"],
                     worst=worst, suggestion=suggestion, sentences=tuple(said))


_NAMES = {
    "below-delta1": "the feature–category threshold δ1 (Phase 2 candidates)",
    "cut-k1": "the k1 cut of the candidates",
    "backward": "the backward elimination (conditional tests at δ1)",
    "cut-k2": "the k2 cut (Phase 4)",
    "symmetry": "the symmetry check (s_f ≤ δ1, Phase 4)",
    "redundancy": "the redundancy check (γ, Phase 4)",
}


def is_close(a: float, b: float) -> bool:
    """Whether two thresholds are the same number as an input shows it (4 significant
    digits)."""
    return math.isclose(float(a), float(b), rel_tol=1e-3, abs_tol=1e-12)


__all__ = ["POOR_SHARE", "Diagnosis", "StepCount", "diagnose", "is_close"]
