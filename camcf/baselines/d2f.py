"""D2F — Lee & Kim 2015, "Mutual information-based multi-label feature selection using
interaction information" (Expert Systems with Applications 42), as the authors' ``d2f.m`` runs it.

The rule (entropies in bits of merged rows, plug-in; features and labels are discrete codes):

* relevance of feature f: ``rel(f) = Σ_l [H(f) − H(f, l)]``; the first feature is its maximum;
* interaction term of a candidate m with a selected feature s and a label a:
  ``t(m, s, a) = −H(m) − H(s) + H(m, s) + H(m, a) − H(m, s, a)``;
* **accumulating, as the authors' code does**: at every later step each remaining candidate's
  score grows by the terms of *all* features selected so far,
  ``scr(m) += Σ_{s selected} Σ_a t(m, s, a)``, so by the k-th selection the term of the i-th
  selected feature has been added k − i times; the maximum is selected and drops out.
* The greedy loop makes any shorter request a prefix of the full ranking, so the full ranking is
  computed; ``n_features_to_select`` cuts it. ``scores_[f]`` is the score with which f was chosen
  (for the first feature its relevance).

Ties go to the lowest index. Two scores count as equal when they differ by less than the
rounding error their sums can carry (see :func:`camcf.baselines._discrete.tie_tolerance`): the
authors' MATLAB sums in another order, and rounding noise must not decide.

Speed: the authors' code recomputes every 3-way entropy by looping over the rows (about 20 minutes
on 593 × 72 with 6 labels). Here every entropy of one step — ``H(m, s)`` and ``H(m, s, a)`` for
every candidate m and label a, given the newly selected s — comes from one sparse count product
(:class:`camcf.baselines._discrete.JointEntropies`), and the accumulated terms are kept as a running
sum, so a step costs one product instead of a pass over every selected feature.
"""

from __future__ import annotations

from typing import ClassVar

import numpy as np

from ..params import Param
from . import params as _declared
from ._base import N_FEATURES_TO_SELECT, RankingSelector
from ._discrete import JointEntropies, compact_columns, label_codes, tie_tolerance


def d2f_ranking(X: np.ndarray, Y: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """D2F's full ranking of the features of X (n × m codes) for labels Y (n × q codes).

    Returns (ranking: m feature indices, best first; scores: m floats, the score with which each
    feature was selected).
    """
    codes, cards = compact_columns(X)
    L = label_codes(Y)
    n, m = codes.shape
    q = L.shape[1]
    je = JointEntropies(codes, cards)
    ones = np.zeros(n, dtype=np.int64)
    base = je.entropies([ones] + [L[:, a] for a in range(q)])
    h_f = base[:, 0]  # H(f)
    h_fl = base[:, 1:]  # H(f, l)
    rel = (h_f[:, None] - h_fl).sum(axis=1)
    log2n = np.log2(max(n, 1))
    kl = L.max(axis=0) + 1 if q else np.zeros(0, dtype=np.int64)  # label code ranges
    # the candidate-dependent part of the score and the part common to every candidate (−H(s)
    # terms) are kept apart, so that ties are judged on the part that differs
    scr = rel.copy()
    common = 0.0
    acc = np.zeros(m)  # Σ over selected s, labels a of the candidate-dependent term
    acc_common = 0.0
    w_acc, w_scr = 0.0, 2.0 * q * log2n  # size of the sums, for the tie tolerance
    replay = _Replay(np.asarray(X), np.asarray(Y))
    remaining = np.ones(m, dtype=bool)
    ranking = np.empty(m, dtype=np.int64)
    scores = np.empty(m)
    for step in range(m):
        if step > 0:
            s = ranking[step - 1]
            z = codes[:, s]
            ent = je.entropies([z] + [z * kl[a] + L[:, a] for a in range(q)])
            h_ms = ent[:, 0]
            h_msa = ent[:, 1:]
            acc += (-h_f[:, None] + h_ms[:, None] + h_fl - h_msa).sum(axis=1)
            acc_common += -q * h_f[s]
            scr += acc
            common += acc_common
            w_acc += 4.0 * q * log2n
            w_scr += w_acc
        cand = np.flatnonzero(remaining)
        best = scr[cand].max()
        tied = cand[scr[cand] >= best - tie_tolerance(w_scr)]
        pick = int(tied[0]) if tied.size == 1 else replay.pick(tied, ranking[:step])
        ranking[step] = pick
        scores[pick] = scr[pick] + common
        remaining[pick] = False
    return ranking, scores


class _Replay:
    """Break a tie as the authors' MATLAB breaks it: by its floating-point rounding.

    Scores that are mathematically equal (e.g. when a selected feature determines the label,
    every candidate's step score is −H(s)) differ in MATLAB by the rounding of its summation
    order, and ``max`` takes the largest. For the tied candidates only, the score is recomputed
    in the code's order: each entropy as ``−(p'·log2 p)`` over the distinct rows in sorted order
    (summed left to right, as the reference BLAS ``ddot`` does), the relevance summed over the
    labels left to right, then for every step, every feature selected before it and every label,
    ``scr = scr − H(m) − H(s) + H(m,s) + H(m,a) − H(m,s,a)``, one operation at a time. Identical
    columns give identical bits there as here, so only the lowest-indexed copy competes. When the
    recomputation would exceed :data:`REPLAY_BUDGET` entropies or :data:`REPLAY_OPS` replayed
    terms for one tie, or the ranking has already spent :data:`REPLAY_TOTAL` entropies or ten times
    ``REPLAY_OPS`` terms (sparse data such as VirusGO or Enron tie very often), the
    lowest index wins — there the ranking may differ from MATLAB's among exactly tied features.
    """

    def __init__(self, X: np.ndarray, Y: np.ndarray) -> None:
        # rank codes keep each column's order, so merged keys sort as MATLAB's unique(·,'rows')
        self.X, self.Y = compact_columns(X)[0], label_codes(Y)
        self._h: dict[tuple, float] = {}
        self.spent = 0  # entropies computed so far
        self.ops = 0.0  # terms replayed so far

    def h(self, *cols: tuple[str, int]) -> float:
        if cols not in self._h:
            self.spent += 1
            key = np.zeros(self.X.shape[0], dtype=np.int64)
            for k, i in cols:  # mixed radix, first column most significant
                col = self.X[:, i] if k == "x" else self.Y[:, i]
                key = key * (int(col.max()) + 1) + col
            _, counts = np.unique(key, return_counts=True)
            p = counts / key.size
            self._h[cols] = -float(np.add.accumulate(p * np.log2(p))[-1])
        return self._h[cols]

    def score(self, c: int, feat: np.ndarray) -> float:
        q = self.Y.shape[1]
        rel = [self.h(("x", c)) - self.h(("x", c), ("y", a)) for a in range(q)]
        # the five terms of each (selected s, label a), in the code's order
        T = np.array([[[-self.h(("x", c)), -self.h(("x", int(s))),
                        self.h(("x", c), ("x", int(s))), self.h(("x", c), ("y", a)),
                        -self.h(("x", c), ("x", int(s)), ("y", a))] for a in range(q)]
                      for s in feat]).reshape(len(feat), -1) if len(feat) else np.zeros((0, 0))
        # every step j adds the terms of the first j selected features again
        seq = np.concatenate([np.asarray(rel, dtype=np.float64)]
                             + [T[:j].ravel() for j in range(1, len(feat) + 1)])
        return float(np.add.accumulate(seq)[-1]) if seq.size else 0.0

    def pick(self, tied: np.ndarray, feat: np.ndarray) -> int:
        distinct, seen = [], set()
        for c in tied.tolist():
            key = self.X[:, c].tobytes()
            if key not in seen:
                seen.add(key)
                distinct.append(c)
        q = self.Y.shape[1]
        ops = len(distinct) * 2.5 * q * len(feat) * (len(feat) + 1)
        if (len(distinct) == 1 or len(distinct) * len(feat) * (q + 1) > REPLAY_BUDGET
                or self.spent > REPLAY_TOTAL or ops > REPLAY_OPS or self.ops > 10 * REPLAY_OPS):
            return distinct[0]
        self.ops += ops
        scores = [self.score(c, feat) for c in distinct]
        return distinct[int(np.argmax(scores))]  # the first maximum, as MATLAB's max


REPLAY_BUDGET = 20000  # entropies one tie may recompute
REPLAY_TOTAL = 50000  # entropies all ties of one ranking may recompute (a few seconds)
REPLAY_OPS = 2e6  # terms one tie may replay (all ties of a ranking: ten times this)


class D2F(RankingSelector):
    """D2F feature ranking (Lee & Kim 2015), the authors' accumulating variant.

    Parameters
    ----------
    n_features_to_select : int, float or None
        Where the ranking is cut for ``transform`` (see :class:`RankingSelector`).

    Attributes
    ----------
    ranking_ : ndarray (n_features,)
        Every feature, 0-based, best first.
    scores_ : ndarray (n_features,)
        The accumulated score with which each feature was selected (bits).
    """

    params: ClassVar[tuple[Param, ...]] = _declared.D2F

    def __init__(self, n_features_to_select: int | float | None = N_FEATURES_TO_SELECT.default):
        self.n_features_to_select = n_features_to_select

    def fit(self, X, Y) -> D2F:
        """Rank the features of X (n_samples × n_features, discrete codes) for Y."""
        self._checked_params()
        X, Y = self._validate_xy(X, Y)
        self.ranking_, self.scores_ = d2f_ranking(X, Y)
        return self
