"""MI-MCF — Ma et al. 2025, "Mutual information-based multi-label causal feature selection",
as the authors' Python code (malinjlu/MI-MCF, ``MI_MCF_discrete``) runs it.

Where the code departs from the paper, ``variant="code"`` (the default) reproduces the code, since
it produced the published numbers; ``variant="paper"`` replaces the code's two "conditional
mutual information" computations by true plug-in CMIs (see below) and keeps everything else.

The data matrix is ``[X | Y]``: columns 0..f−1 the features, f..p−1 the labels. Mutual
information ``mi(a, b)`` is scikit-learn's ``mutual_info_score`` (nats; computed here from the
contingency table by the same operations, which gives the same bits); ``h(a)`` is the plug-in entropy in
bits; ``SU(a, b) = 2·mi(a, b) / (h(a) + h(b))`` mixes the two units, as the code does.

**PC of a target column t** (the code's ``MI_G2``), over every other column (labels included):

1. SU of each column with t; sort the (SU, index) pairs in reverse — descending SU, the higher
   index first among equal SUs. The columns with SU > 0.05 (a hard-coded threshold, not α) are
   the candidates; those with SU < 0.05 form the list ``t`` (an SU of exactly 0.05 is in neither).
   No candidate: the PC is empty.
2. FCBF-style redundancy removal: a candidate j after candidate c is dropped when
   SU(c, j) > SU(j, t).
3. Spouse search over the below-threshold list — **with the code's index quirk**: the scan of
   ``t`` starts at position ``selected.index(last selected) + 1``, i.e. at the position equal to
   the number of selected columns, so the first that-many entries of ``t`` (the strongest of the
   weak columns) are never examined. For each selected c and each unvisited ``t[a]``: if
   SU(c, t[a]) > SU(t[a], target) + 0.13 and ``cmi(target, t[a], c) > mi(target, t[a])`` then
   t[a] joins the PC. ``cmi`` in the code is ``scipy.stats.entropy`` of the raveled joint
   **codes** (target, t[a], c) minus that of (target, t[a]), i.e. the codes taken as if they were
   probabilities (natural log); ``variant="paper"`` uses the true I(target; t[a] | c) in nats.

**Phase 1**: the PC of every label. ``min_dep[l]``: the smallest G² dependency (``dep``: |G²| when
p ≤ α, else 0; starting from 1) between label l and its PC members. ``record``: the labels
whose PC holds another label. For each recorded label j, the features not in PC(j) with p ≤ α and
dep ≥ min_dep[j] in the G² test of (j, feature), sorted by dep descending (stable), and the first
``int(len · k1)`` of them kept as candidates. Conditioning subsets: all subsets of PC(j) of sizes
0, 1, 2 (``itertools.combinations`` order).

**Phase 2** (recorded labels j, labels i ∈ PC(j) in index order): for each candidate feature,
each stored subset s is extended by i when ``len(s) < len(PC(j))`` and i ∉ s — **the code appends
to the stored subset itself (a list alias), so the change persists**: the empty subset becomes
[i] for good, and later labels keep piling on. The test ``mutual_information_test(j, fk, s)``:
with ``mi_xy = mi(j, fk)``, the code computes, column by column of ``[x | s]`` and ``[y | s]``,
``entropy(first) + entropy(second) − entropy(vstack(first, second))`` with
``scipy.stats.entropy`` of the raw values as probabilities, and declares independence (p = 1) when
any element is ≤ ``mi_xy``; ``variant="paper"``: p = 1 when I(j; fk | s) ≤ mi_xy (nats). If
independent, i is removed from the subset (again in place) and the test is repeated on the rest
(an empty rest means independent); independent twice: the candidate is discarded. A candidate not
discarded by any subset joins PC(j) (again for every such label, duplicates included); then i
leaves PC(j). Afterwards every label's PC goes through ``list(set(...))`` and loses its labels.

**Phase 3**: for each label, its PC features ordered by G² dep (feature, label) ascending (stable,
so the ``list(set(...))`` order breaks ties); for the first ``int(len · k2)`` of them, the PC of
the feature is learnt; a feature whose PC lacks the label is removed, and the scan stops at the
first feature whose PC has it.

The G² test (pcalg's, as the code has it): levels = column max + 1 over the whole data matrix,
dof = (levels_x − 1)(levels_y − 1); p = 1 and dep = 0 when n < 10·dof; G² = Σ 2·n_xy·ln(n_xy·n /
(n_x·n_y)); p = χ²_dof survival; dof = 0 gives p = 1.

The output is the union of the labels' PCs (features only).

Inputs: features should be non-negative integer codes (the code's quirks — codes as
probabilities, levels = max + 1 — depend on the code values); any other column is first coded
0..k−1 by its sorted distinct values. Labels: 0/1 as they are, −1/+1 → 0/1, anything else coded
0..k−1 by sorted distinct values.
"""

from __future__ import annotations

import copy
import math
from itertools import combinations
from typing import ClassVar

import numpy as np
from scipy.stats import chi2
from scipy.stats import entropy as scipy_entropy

from ..params import Param
from . import params as _declared
from ._base import SubsetSelector
from ._discrete import label_codes

SU_THRESHOLD = 0.05  # hard-coded in the authors' MI_G2 (not α)
SPOUSE_MARGIN = 0.13  # hard-coded in the authors' MI_G2

# declared once in camcf.baselines.params (read without importing this module)
ALPHA, K1, K2, VARIANT = _declared.MIMCF


class _MIMCF:
    """One run of MI-MCF on the data matrix ``data`` (n × p int codes, last q columns labels)."""

    def __init__(self, data: np.ndarray, n_labels: int, alpha: float, k1: float, k2: float,
                 variant: str) -> None:
        self.data = data
        self.n, self.p = data.shape
        self.f = self.p - n_labels
        self.alpha, self.k1, self.k2, self.variant = alpha, k1, k2, variant
        self.levels = data.max(axis=0) + 1 if self.n else np.ones(self.p, dtype=np.int64)
        comp = [np.unique(data[:, c], return_inverse=True) for c in range(self.p)]
        self.codes = [inv.ravel() for _, inv in comp]
        self.card = [u.size for u, _ in comp]
        self._h: dict[int, float] = {}
        self._mi: dict[tuple[int, int], float] = {}
        self._pc: dict[int, list[int]] = {}
        self._ent: dict[tuple[int, int | None], float] = {}

    # ---- the code's measures -------------------------------------------------------------
    def h(self, a: int) -> float:
        """Entropy in bits of column a (np.unique counts, scipy's entropy base 2)."""
        if a not in self._h:
            counts = np.bincount(self.codes[a])
            self._h[a] = scipy_entropy(counts / self.n, base=2)
        return self._h[a]

    def mi(self, a: int, b: int) -> float:
        """scikit-learn's ``mutual_info_score(col a, col b)`` in nats (order kept: rows = a)."""
        key = (a, b)
        if key not in self._mi:
            ka, kb = self.card[a], self.card[b]
            table = np.bincount(self.codes[a] * kb + self.codes[b],
                                minlength=ka * kb).reshape(ka, kb)
            self._mi[key] = mi_from_table(table)
        return self._mi[key]

    def su(self, a: int, b: int) -> float:
        with np.errstate(divide="ignore", invalid="ignore"):
            return (2 * self.mi(a, b)) / (np.float64(self.h(a)) + self.h(b))

    def g2(self, x: int, y: int) -> tuple[float, float]:
        """The code's unconditional G² test of columns x, y: (p value, dep)."""
        lx, ly = int(self.levels[x]), int(self.levels[y])
        dof = (lx - 1) * (ly - 1)
        if self.n < 10 * dof:
            return 1, 0
        nij = np.bincount(self.data[:, x] * ly + self.data[:, y],
                          minlength=lx * ly).reshape(lx, ly).astype(np.float64)
        with np.errstate(divide="ignore", invalid="ignore"):
            tdij = nij.sum(axis=1)[:, None].dot(nij.sum(axis=0)[None, :])
            tlog = nij * self.n / tdij
            g2 = np.nansum(2 * nij * np.log(tlog))
        if dof == 0:
            p, g2 = 1, 0
        else:
            p = chi2.sf(g2, dof)
        return p, (0 if p > self.alpha else abs(g2))

    def _cmi_spouse(self, target: int, t: int, c: int) -> float:
        """The code's ``cmi(target, t, c)``; the paper variant: I(target; t | c) in nats."""
        d = self.data
        if self.variant == "paper":
            return _true_cmi_nats(d[:, target], d[:, t], d[:, [c]])
        lab, f1, f2 = d[:, target], d[:, t], d[:, c]
        joint = np.ravel_multi_index((lab, f1, f2), (lab.max() + 1, f1.max() + 1, f2.max() + 1))
        pair = np.ravel_multi_index((lab, f1), (lab.max() + 1, f1.max() + 1))
        with np.errstate(divide="ignore", invalid="ignore"):
            return scipy_entropy(joint) - scipy_entropy(pair)

    def independent(self, x: int, y: int, s: list[int]) -> bool:
        """The code's ``mutual_information_test``: True when it returns p = 1."""
        mi_xy = self.mi(x, y)
        if not s:
            return True
        d = self.data
        if self.variant == "paper":
            return bool(mi_xy >= _true_cmi_nats(d[:, x], d[:, y], d[:, s]))
        # element 0: E(x) + E(y) − E([x; y]); element of a conditioning column c:
        # E(c) + E(c) − E([c; c]) — each cached, computed exactly as inside the code's matrices
        first = [self._code_entropy(x)] + [self._code_entropy(c) for c in s]
        second = [self._code_entropy(y)] + [self._code_entropy(c) for c in s]
        stacked = [self._code_entropy(x, y)] + [self._code_entropy(c, c) for c in s]
        cmi = (np.array(first) + np.array(second)) - np.array(stacked)
        return bool((mi_xy >= cmi).any())

    def _code_entropy(self, a: int, b: int | None = None) -> float:
        """``scipy.stats.entropy`` of column a (or of a stacked over b) taken as probabilities,
        as one column of a 2-D array: numpy sums a 2-D array down its columns one row at a
        time, which gives other bits than a 1-D sum, so the column is paired with itself."""
        key = (a, b)
        if key not in self._ent:
            col = self.data[:, a] if b is None else np.concatenate((self.data[:, a],
                                                                    self.data[:, b]))
            with np.errstate(divide="ignore", invalid="ignore"):
                self._ent[key] = scipy_entropy(np.column_stack((col, col)))[0]
        return self._ent[key]

    # ---- the code's MI_G2 ----------------------------------------------------------------
    def pc(self, target: int) -> list[int]:
        """The PC list of column ``target`` (original column indices, in the code's order)."""
        if target not in self._pc:
            self._pc[target] = self._learn_pc(target)
        return list(self._pc[target])

    def _learn_pc(self, target: int) -> list[int]:
        others = [c for c in range(self.p) if c != target]  # feature-matrix position → column
        scores = [self.su(c, target) for c in others]
        # reverse sort of (score, position) pairs: descending score, higher position first on ties
        ranked = sorted(zip(scores, range(len(others)), strict=True), reverse=True)
        weak = [i for s, i in ranked if s < SU_THRESHOLD]
        weak_su = [s for s, _ in ranked if s < SU_THRESHOLD]
        sel = [i for s, i in ranked if s > SU_THRESHOLD]
        sel_su = [s for s, _ in ranked if s > SU_THRESHOLD]
        if not sel:
            return []
        cur = 0
        while cur < len(sel):
            j = cur + 1
            while j < len(sel):
                if self.su(others[sel[cur]], others[sel[j]]) > sel_su[j]:
                    sel.pop(j)
                    sel_su.pop(j)
                else:
                    j += 1
            cur += 1
        pc = [others[i] for i in sel]
        visited = set(sel)
        # The code starts its scan of the weak list at selected.index(last) + 1; the selected
        # list does not change inside the loop (the weak and selected lists are disjoint, so the
        # code's "remove from selected" never fires), hence the start is len(sel).
        start = len(sel)
        for c in sel:
            for a in range(start, len(weak)):
                w = weak[a]
                if w in visited:
                    continue
                if self.su(others[c], others[w]) > weak_su[a] + SPOUSE_MARGIN:
                    if self._cmi_spouse(target, others[w], others[c]) > self.mi(target, others[w]):
                        pc.append(others[w])
                        visited.add(w)
        return pc

    def phase2(self, PC: list[list[int]], record: list[int], candidates: dict[int, list[int]],
               subsets: dict[int, list[list[int]]]) -> None:
        """Phase 2, in place on ``PC`` and on the stored ``subsets`` (the code's list alias)."""
        for j in record:
            for i in range(self.f, self.p):
                if i not in PC[j]:
                    continue
                for fk in candidates[j]:
                    discarded = False
                    for s in subsets[j]:  # s is the stored list itself: changes persist
                        if len(s) < len(PC[j]) and i not in s:
                            s.append(i)
                        if i not in s:
                            continue
                        if self.independent(j, fk, s):
                            s.remove(i)
                            # list(set(s)) only reorders; the test does not depend on the order
                            if self.independent(j, fk, dedupe(s)):
                                discarded = True
                                break
                    if not discarded:
                        PC[j].append(fk)
                PC[j].remove(i)

    # ---- the three phases ----------------------------------------------------------------
    def run(self) -> list[int]:
        f, p = self.f, self.p
        labels = range(f, p)
        PC: list[list[int]] = [[] for _ in range(p)]
        for t in labels:
            PC[t] = [int(c) for c in self.pc(t)]

        min_dep = [1] * p
        for i in labels:
            for j in PC[i]:
                dep = self.g2(i, j)[1]
                if dep < min_dep[i]:
                    min_dep[i] = dep

        record = sorted({i for i in labels if any(j in PC[i] for j in labels)})

        candidates: dict[int, list[int]] = {}
        subsets: dict[int, list[list[int]]] = {}
        for j in record:
            dep_list = []
            for k in range(f):
                if k in PC[j]:
                    continue
                pval, dep = self.g2(j, k)
                if pval <= self.alpha and dep >= min_dep[j]:
                    dep_list.append((k, dep))
            dep_list = sorted(dep_list, key=lambda e: e[1], reverse=True)  # stable
            candidates[j] = [k for k, _ in dep_list[: int(len(dep_list) * self.k1)]]
        for j in record:
            subsets[j] = [list(s) for size in range(3) for s in combinations(PC[j], size)]

        self.phase2(PC, record, candidates, subsets)

        for i in labels:
            PC[i] = dedupe(PC[i])
        for i in labels:
            for j in labels:
                if j in PC[i]:
                    PC[i].remove(j)

        snapshot = copy.deepcopy(PC)
        for i in labels:
            deps = sorted(((j, self.g2(j, i)[1]) for j in snapshot[i]), key=lambda e: e[1])
            found = 0
            for target, _ in deps[: int(len(deps) * self.k2)]:
                if i not in self.pc(target):
                    PC[i].remove(target)
                else:
                    found += 1
                if found >= 1:
                    break

        return sorted({c for i in labels for c in PC[i]})


def mi_from_table(table: np.ndarray) -> float:
    """scikit-learn's ``mutual_info_score(contingency=table)`` in nats, without its per-call
    argument validation (milliseconds a call, the bulk of MI-MCF's time otherwise).

    ``table``: (ka, kb) int64 counts with no empty row or column. The operations are scikit-learn's
    own, in its order, so the bits agree (tests/test_baselines_info.py checks this against
    ``mutual_info_score`` itself); the code's comparisons of SU values are exact, so bits matter.
    """
    if table.shape[0] == 1 or table.shape[1] == 1:
        return 0.0  # a single state on either side: no information
    rows, cols = np.nonzero(table)
    nz = table[rows, cols]
    total = table.sum()
    pi = table.sum(axis=1)
    pj = table.sum(axis=0)
    p_nz = nz / total
    outer = pi.take(rows).astype(np.int64, copy=False) * pj.take(cols).astype(np.int64, copy=False)
    log_outer = -np.log(outer) + math.log(pi.sum()) + math.log(pj.sum())
    terms = p_nz * (np.log(nz) - math.log(total)) + p_nz * log_outer
    terms = np.where(np.abs(terms) < np.finfo(terms.dtype).eps, 0.0, terms)
    return float(np.clip(terms.sum(), 0.0, None))


def dedupe(values: list[int]) -> list[int]:
    """The code's ``list(set(values))``, whose order it relies on (phase 3 breaks ties by it).

    CPython hashes an int to itself, so the order is deterministic: by value modulo the hash
    table's size, collisions in insertion order (e.g. ``[9, 1]`` stays ``[9, 1]``, ``[1, 9]``
    stays ``[1, 9]``, ``[3, 1]`` becomes ``[1, 3]``). Reproduced by doing the same.
    """
    return list(set(int(v) for v in values))


def _true_cmi_nats(x: np.ndarray, y: np.ndarray, s: np.ndarray) -> float:
    """Plug-in I(x; y | s) in nats (s: n × k, k ≥ 1)."""
    from ..info import conditional_mutual_information

    return conditional_mutual_information(x, y, s) * math.log(2)


def _feature_codes(X: np.ndarray) -> np.ndarray:
    """Non-negative integer columns as they are; any other column coded 0..k−1."""
    X = np.asarray(X)
    out = np.empty(X.shape, dtype=np.int64)
    for j in range(X.shape[1]):
        col = X[:, j]
        if np.all(col >= 0) and np.all(np.mod(col, 1) == 0):
            out[:, j] = col.astype(np.int64)
        else:
            out[:, j] = np.unique(col, return_inverse=True)[1].ravel()
    return out


def mimcf_select(X: np.ndarray, Y: np.ndarray, *, alpha: float = 0.05, k1: float = 0.7,
                 k2: float = 0.1, variant: str = "code") -> list[int]:
    """MI-MCF's subset (sorted 0-based feature indices) of X (n × f codes) for Y (n × q)."""
    data = np.hstack([_feature_codes(X), label_codes(Y)])
    return _MIMCF(data, np.asarray(Y).shape[1], alpha, k1, k2, variant).run()


class MIMCF(SubsetSelector):
    """MI-MCF (Ma et al. 2025) as the authors' code runs it (``variant="code"``).

    Parameters
    ----------
    alpha : float, default 0.05
        Significance level of the G² tests.
    k1 : float, default 0.7
        Share of the label-dependent features kept as phase-2 candidates.
    k2 : float, default 0.1
        Share of each label's weakest PC features re-checked in phase 3.
    variant : {"code", "paper"}, default "code"
        "paper" computes true conditional mutual information where the code does not.

    Attributes
    ----------
    support_ : ndarray of bool (n_features,)
        The selected features.
    selected_ : list of int
        Their 0-based indices, ascending.
    """

    params: ClassVar[tuple[Param, ...]] = _declared.MIMCF

    def __init__(self, alpha: float = ALPHA.default, k1: float = K1.default,
                 k2: float = K2.default, variant: str = VARIANT.default):
        self.alpha = alpha
        self.k1 = k1
        self.k2 = k2
        self.variant = variant

    def fit(self, X, Y) -> MIMCF:
        """Select features of X (n_samples × n_features, integer codes) for Y."""
        prm = self._checked_params()
        X, Y = self._validate_xy(X, Y)
        self.selected_ = mimcf_select(X, Y, **prm)
        self.support_ = np.zeros(X.shape[1], dtype=bool)
        self.support_[self.selected_] = True
        return self
