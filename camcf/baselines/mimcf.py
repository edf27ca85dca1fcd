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
import time
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
ALPHA, K1, K2, VARIANT, MAX_SECONDS = _declared.MIMCF


class _MIMCF:
    """One run of MI-MCF on the data matrix ``data`` (n × p int codes, last q columns labels).

    ``deadline`` (a :func:`time.perf_counter` value) bounds the run: past it, the next check
    between two targets raises :class:`camcf.jobs.TimeBudgetExceeded`.
    """

    def __init__(self, data: np.ndarray, n_labels: int, alpha: float, k1: float, k2: float,
                 variant: str, deadline: float | None = None, budget: float | None = None
                 ) -> None:
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
        self._d0: dict[tuple[int, int], float] = {}
        self._cc: dict[int, float] = {}
        self._binary: np.ndarray | None = None  # columns holding 0/1 only
        self._ones: np.ndarray | None = None
        self._ent_of_ones: dict[int, float] = {}
        # vectorised measures of one column against every column (see _PairCounts)
        self._mi_from: dict[int, np.ndarray] = {}  # [a][b] = mi(a, b)
        self._mi_to: dict[int, np.ndarray] = {}  # [a][b] = mi(b, a)
        self._su_from: dict[int, np.ndarray] = {}  # [a][b] = su(a, b)
        self._su_to: dict[int, np.ndarray] = {}  # [a][b] = su(b, a)
        self._code_tables: _PairCounts | None = None
        self._level_tables: _PairCounts | None = None
        self._h_all: np.ndarray | None = None
        self.deadline, self.budget = deadline, budget
        self.t0 = time.perf_counter()
        self.where = "starting"

    def check_time(self, where: str) -> None:
        """Raise TimeBudgetExceeded when the deadline has passed (called between targets)."""
        self.where = where
        if self.deadline is not None and time.perf_counter() > self.deadline:
            from ..jobs import TimeBudgetExceeded

            spent = time.perf_counter() - self.t0
            raise TimeBudgetExceeded(
                f"MI-MCF stopped after {spent:.0f} s, over its time budget of "
                f"{self.budget:g} s, on {self.n:,} rows × {self.f:,} features × "
                f"{self.p - self.f:,} labels ({where}); raise max_seconds, use fewer rows or "
                f"labels, or leave MI-MCF out", method="MI-MCF", seconds=spent,
                budget=self.budget, where=where)

    # ---- the code's measures -------------------------------------------------------------
    def h(self, a: int) -> float:
        """Entropy in bits of column a (np.unique counts, scipy's entropy base 2)."""
        if a not in self._h:
            counts = np.bincount(self.codes[a])
            self._h[a] = scipy_entropy(counts / self.n, base=2)
        return self._h[a]

    def mi(self, a: int, b: int) -> float:
        """scikit-learn's ``mutual_info_score(col a, col b)`` in nats (order kept: rows = a)."""
        if a in self._mi_from:
            return float(self._mi_from[a][b])
        if b in self._mi_to:
            return float(self._mi_to[b][a])
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

    # ---- the same measures, one column against every column at once ------------------------
    # The code computes each value pair by pair with scikit-learn; here one column's tables
    # against all columns come from one sparse product (_PairCounts) and every value is then
    # computed by the same floating-point operations in the same order as mi_from_table and g2
    # (tests/test_baselines_info.py checks the bits), so every comparison the code makes comes
    # out the same.
    def _vectors(self, a: int) -> None:
        """Fill mi/SU of column a against every column, in both orders (rows = a and b)."""
        if a in self._su_from:
            return
        if self._code_tables is None:
            self._code_tables = _PairCounts(self.codes, np.asarray(self.card))
            self._h_all = np.array([self.h(c) for c in range(self.p)])
        tables = self._code_tables
        mi_from = np.empty(self.p)
        mi_to = np.empty(self.p)
        if tables.ok[a]:
            T = tables.against(a, self.codes[a])
            cols = tables.cols
            single = (self.card[a] == 1) | (tables.sizes[cols] == 1)
            mi_from[cols] = np.where(single, 0.0, _mi_of_tables(T, self.n))
            mi_to[cols] = np.where(single, 0.0, _mi_of_tables(
                np.ascontiguousarray(T.transpose(0, 2, 1)), self.n))
            rest = np.flatnonzero(~tables.ok)
        else:
            rest = np.arange(self.p)
        for b in rest:  # columns with many states: pair by pair, as the code
            mi_from[b] = self._pair_mi(a, b)
            mi_to[b] = self._pair_mi(b, a)
        self._mi_from[a], self._mi_to[a] = mi_from, mi_to
        h = self._h_all
        with np.errstate(divide="ignore", invalid="ignore"):
            self._su_from[a] = (2 * mi_from) / (np.float64(h[a]) + h)
            self._su_to[a] = (2 * mi_to) / (h + np.float64(h[a]))

    def _pair_mi(self, a: int, b: int) -> float:
        ka, kb = self.card[a], self.card[b]
        table = np.bincount(self.codes[a] * kb + self.codes[b],
                            minlength=ka * kb).reshape(ka, kb)
        return mi_from_table(table)

    def su_from(self, a: int) -> np.ndarray:
        """``su(a, b)`` for every column b."""
        self._vectors(a)
        return self._su_from[a]

    def su_to(self, t: int) -> np.ndarray:
        """``su(c, t)`` for every column c."""
        self._vectors(t)
        return self._su_to[t]

    def g2_many(self, fixed: int, others, *, fixed_is_x: bool = True
                ) -> tuple[np.ndarray, np.ndarray]:
        """The code's ``g2(fixed, o)`` (or ``g2(o, fixed)`` when not ``fixed_is_x``) for every o
        in ``others``: (p values, deps), each as :meth:`g2` computes it."""
        if self._level_tables is None:
            self._level_tables = _PairCounts(self.data, np.asarray(self.levels))
        tables = self._level_tables
        others = np.asarray(others, dtype=np.int64)
        pvals = np.ones(others.size)
        deps = np.zeros(others.size)

        def one(o: int) -> tuple[float, float]:
            return self.g2(fixed, o) if fixed_is_x else self.g2(o, fixed)

        if not tables.ok[fixed]:
            for i, o in enumerate(others):
                pvals[i], deps[i] = one(int(o))
            return pvals, deps
        lf = int(self.levels[fixed])
        T = tables.against(fixed, self.data[:, fixed])
        pos = np.full(self.p, -1)
        pos[tables.cols] = np.arange(tables.cols.size)
        lo_all = self.levels[others].astype(np.int64)
        dof = (lf - 1) * (lo_all - 1)
        tested = (self.n >= 10 * dof) & (dof != 0)
        for i in np.flatnonzero(tested & (pos[others] < 0)):  # many levels: one by one
            pvals[i], deps[i] = one(int(others[i]))
        fast = tested & (pos[others] >= 0)
        for lo in np.unique(lo_all[fast]):
            idx = np.flatnonzero(fast & (lo_all == lo))
            nij = T[pos[others[idx]], :, :lo]  # rows: the fixed column's levels
            if not fixed_is_x:
                nij = nij.transpose(0, 2, 1)
            g2 = _g2_of_tables(np.ascontiguousarray(nij, dtype=np.float64), self.n)
            p = chi2.sf(g2, (lf - 1) * (lo - 1))
            pvals[idx] = p
            deps[idx] = np.where(p > self.alpha, 0.0, np.abs(g2))
        return pvals, deps

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
        # The code's vector: element 0 is E(x) + E(y) − E([x; y]), the element of a
        # conditioning column c is E(c) + E(c) − E([c; c]); "independent" when any element is
        # ≤ mi_xy. Each element is cached (the same float operations, one at a time).
        if mi_xy >= self._pair_element(x, y):
            return True
        return any(mi_xy >= self._self_element(c) for c in s)

    def _pair_element(self, x: int, y: int) -> float:
        key = (x, y)
        if key not in self._d0:
            self._d0[key] = ((np.float64(self._code_entropy(x)) + self._code_entropy(y))
                             - self._code_entropy(x, y))
        return self._d0[key]

    def _self_element(self, c: int) -> float:
        if c not in self._cc:
            e = np.float64(self._code_entropy(c))
            self._cc[c] = (e + e) - self._code_entropy(c, c)
        return self._cc[c]

    def _code_entropy(self, a: int, b: int | None = None) -> float:
        """``scipy.stats.entropy`` of column a (or of a stacked over b) taken as probabilities,
        as one column of a 2-D array: numpy sums a 2-D array down its columns one row at a
        time, which gives other bits than a 1-D sum, so the column is paired with itself."""
        key = (a, b)
        if key in self._ent:
            return self._ent[key]
        if self._binary is None:
            self._binary = np.all(self.data <= 1, axis=0) & np.all(self.data >= 0, axis=0)
            self._ones = self.data.sum(axis=0)
        if self._binary[a] and (b is None or self._binary[b]):
            # 0/1 columns: every 1 contributes the same term −(1/m)·ln(1/m) (m: the number of
            # 1s) and every 0 contributes 0, and the sum runs one row at a time, so the value
            # depends on m alone: computed once per m, on a column of m ones, by the same call
            # (m = 0, no 1 at all, gives 0/0 terms: computed directly below)
            m = int(self._ones[a] + (0 if b is None else self._ones[b]))
            if m:
                if m not in self._ent_of_ones:
                    self._ent_of_ones[m] = _stacked_entropy(np.ones(m, dtype=self.data.dtype))
                self._ent[key] = self._ent_of_ones[m]
                return self._ent[key]
        col = self.data[:, a] if b is None else np.concatenate((self.data[:, a], self.data[:, b]))
        self._ent[key] = _stacked_entropy(col)
        return self._ent[key]

    # ---- the code's MI_G2 ----------------------------------------------------------------
    def pc(self, target: int) -> list[int]:
        """The PC list of column ``target`` (original column indices, in the code's order)."""
        if target not in self._pc:
            self._pc[target] = self._learn_pc(target)
        return list(self._pc[target])

    def _learn_pc(self, target: int) -> list[int]:
        others = [c for c in range(self.p) if c != target]  # feature-matrix position → column
        scores = self.su_to(target)[others].tolist()  # su(c, target) for every other c
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
            row = self.su_from(others[sel[cur]])  # su(sel[cur], ·)
            j = cur + 1
            while j < len(sel):
                if row[others[sel[j]]] > sel_su[j]:
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
        if start >= len(weak):
            return pc
        cols = np.asarray(others)[np.asarray(weak[start:], dtype=np.int64)]
        bars = np.asarray(weak_su[start:], dtype=np.float64) + SPOUSE_MARGIN
        for c in sel:
            # the code's test su(c, w) > su(w, target) + 0.13 for every weak w at once; the
            # CMI test then runs in the code's order on the hits not yet visited
            for a in np.flatnonzero(self.su_from(others[c])[cols] > bars):
                w = weak[start + a]
                if w in visited:
                    continue
                if self._cmi_spouse(target, others[w], others[c]) > self.mi(target, others[w]):
                    pc.append(others[w])
                    visited.add(w)
        return pc

    def phase2(self, PC: list[list[int]], record: list[int], candidates: dict[int, list[int]],
               subsets: dict[int, list[list[int]]]) -> None:
        """Phase 2, in place on ``PC`` and on the stored ``subsets`` (the code's list alias)."""
        for n_done, j in enumerate(record):
            self.check_time(f"phase 2, label {n_done + 1} of {len(record)} with label parents")
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
            self.check_time(f"phase 1, label {t - f + 1} of {p - f}")
            PC[t] = [int(c) for c in self.pc(t)]

        min_dep = [1] * p
        for i in labels:
            for dep in self.g2_many(i, PC[i])[1].tolist() if PC[i] else ():
                if dep < min_dep[i]:
                    min_dep[i] = dep

        record = sorted({i for i in labels if any(j in PC[i] for j in labels)})
        # the labels in each label's phase-1 PC (phase 2 takes them out again)
        self.label_pcs = [sorted({j - f for j in PC[i] if j in labels}) for i in labels]

        candidates: dict[int, list[int]] = {}
        subsets: dict[int, list[list[int]]] = {}
        features = np.arange(f)
        for j in record:
            self.check_time(f"phase 1, candidates of label {j - f + 1} of {p - f}")
            dep_list = []
            pvals, deps = self.g2_many(j, features)  # the code's g2(j, k) for every feature k
            for k in range(f):
                if k in PC[j]:
                    continue
                pval, dep = pvals[k], deps[k]
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
            self.check_time(f"phase 3, label {i - f + 1} of {p - f}")
            dep_of = self.g2_many(i, snapshot[i], fixed_is_x=False)[1].tolist()  # g2(j, i)
            deps = sorted(zip(snapshot[i], dep_of, strict=True), key=lambda e: e[1])
            found = 0
            for target, _ in deps[: int(len(deps) * self.k2)]:
                if i not in self.pc(target):
                    PC[i].remove(target)
                else:
                    found += 1
                if found >= 1:
                    break

        self.label_features = [sorted(PC[i]) for i in labels]  # per label: its features
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


#: columns with more states than this are counted pair by pair (one column's tables against
#: every column use an indicator matrix of n × Σ(states − 1) cells)
_MAX_STATES = 32


class _PairCounts:
    """Contingency tables of one column against every column at once.

    ``values``: n × p non-negative integers (a list of columns or a matrix); ``sizes``: the
    number of states per column (every value < its size). Columns with at most
    :data:`_MAX_STATES` states (``ok``; their indices ``cols``) are one-hot coded without state
    0 in one sparse matrix; the table of column a against column b, ``N[i, j]`` = rows with
    a = i and b = j, has its cells i, j ≥ 1 as sums of that matrix over the rows where a = i, and
    the other cells from the margins. Counts are exact integers.
    """

    def __init__(self, values, sizes: np.ndarray) -> None:
        import scipy.sparse as sp

        columns = [np.asarray(v) for v in (values.T if isinstance(values, np.ndarray)
                                            else values)]
        self.n = columns[0].size if columns else 0
        self.sizes = np.asarray(sizes, dtype=np.int64)
        self.ok = self.sizes <= _MAX_STATES
        self.cols = np.flatnonzero(self.ok)
        widths = np.where(self.ok, self.sizes - 1, 0)
        self.off = np.concatenate([[0], np.cumsum(widths)[:-1]]).astype(np.int64)
        rows, idx = [], []
        for c in self.cols:
            v = columns[c]
            r = np.flatnonzero(v)
            rows.append(r)
            idx.append(self.off[c] + v[r].astype(np.int64) - 1)
        rows_a = np.concatenate(rows) if rows else np.zeros(0, np.int64)
        idx_a = np.concatenate(idx) if idx else np.zeros(0, np.int64)
        self.ind = sp.csr_matrix((np.ones(rows_a.size, dtype=np.int64), (rows_a, idx_a)),
                                 shape=(self.n, int(widths.sum())))
        self.K = int(self.sizes[self.cols].max()) if self.cols.size else 1
        self.margins = np.zeros((self.cols.size, self.K), dtype=np.int64)
        for i, c in enumerate(self.cols):
            self.margins[i, : self.sizes[c]] = np.bincount(columns[c], minlength=self.sizes[c])
        jj = np.arange(1, self.K)
        self.valid = jj[None, :] < self.sizes[self.cols][:, None]
        self.gather = np.where(self.valid, self.off[self.cols][:, None] + jj[None, :] - 1, 0)

    def against(self, a: int, values_a: np.ndarray) -> np.ndarray:
        """Tables ``T[i_b, x, y]`` (rows: the states of a, columns: those of ``cols[i_b]``,
        padded with zero columns to :attr:`K`) of column a, whose values are ``values_a``."""
        ka = int(self.sizes[a])
        marg_a = np.bincount(values_a, minlength=ka)
        T = np.zeros((self.cols.size, ka, self.K), dtype=np.int64)
        for x in range(1, ka):
            counts = np.asarray(self.ind[np.flatnonzero(values_a == x)].sum(axis=0)).ravel()
            if counts.size:
                T[:, x, 1:] = np.where(self.valid, counts[self.gather], 0)
            T[:, x, 0] = marg_a[x] - T[:, x, 1:].sum(axis=1)
        T[:, 0, 1:] = self.margins[:, 1:] - T[:, 1:, 1:].sum(axis=1)
        T[:, 0, 0] = marg_a[0] - T[:, 0, 1:].sum(axis=1)
        return T


def _segment_sums(terms: np.ndarray, lengths: np.ndarray) -> np.ndarray:
    """``terms[start_b : start_b + lengths[b]].sum()`` for every b, with numpy's own summation
    order: a run of fewer than 8 values is added one by one from 0 (numpy's pairwise sum does
    that below 8 values), a longer run is summed by numpy itself."""
    starts = np.concatenate([[0], np.cumsum(lengths)[:-1]]).astype(np.int64)
    out = np.zeros(lengths.size)
    short = lengths < 8
    for k in range(int(lengths[short].max()) if short.any() else 0):
        m = short & (lengths > k)
        out[m] += terms[starts[m] + k]
    for b in np.flatnonzero(~short):
        out[b] = np.array(terms[starts[b] : starts[b] + lengths[b]]).sum()
    return out


def _mi_of_tables(T: np.ndarray, n: int) -> np.ndarray:
    """:func:`mi_from_table` of every table ``T[b]`` (rows: the first variable; each table
    sums to n), by the same operations in the same order (without its one-state shortcut)."""
    if T.shape[0] == 0:
        return np.zeros(0)
    b, r, c = np.nonzero(T)  # per table, the cells in row-major order, as np.nonzero(table)
    nz = T[b, r, c]
    pi = T.sum(axis=2)
    pj = T.sum(axis=1)
    p_nz = nz / n
    outer = pi[b, r] * pj[b, c]
    log_n = math.log(n)
    log_outer = -np.log(outer) + log_n + log_n
    terms = p_nz * (np.log(nz) - log_n) + p_nz * log_outer
    terms = np.where(np.abs(terms) < np.finfo(terms.dtype).eps, 0.0, terms)
    lengths = np.bincount(b, minlength=T.shape[0])
    return np.clip(_segment_sums(terms, lengths), 0.0, None)


def _g2_of_tables(nij: np.ndarray, n: int) -> np.ndarray:
    """The G² statistic of :meth:`_MIMCF.g2` for every table ``nij[b]`` (float64 counts of
    the real lx × ly shape), by the same operations in the same order."""
    with np.errstate(divide="ignore", invalid="ignore"):
        tdij = nij.sum(axis=2)[:, :, None] * nij.sum(axis=1)[:, None, :]
        tlog = nij * n / tdij
        terms = 2 * nij * np.log(tlog)
    terms = np.where(np.isnan(terms), 0.0, terms).reshape(nij.shape[0], -1)
    L = terms.shape[1]
    return _segment_sums(terms.ravel(), np.full(nij.shape[0], L, dtype=np.int64))


def dedupe(values: list[int]) -> list[int]:
    """The code's ``list(set(values))``, whose order it relies on (phase 3 breaks ties by it).

    CPython hashes an int to itself, so the order is deterministic: by value modulo the hash
    table's size, collisions in insertion order (e.g. ``[9, 1]`` stays ``[9, 1]``, ``[1, 9]``
    stays ``[1, 9]``, ``[3, 1]`` becomes ``[1, 3]``). Reproduced by doing the same.
    """
    return list(set(int(v) for v in values))


def _stacked_entropy(col: np.ndarray) -> float:
    """``scipy.stats.entropy`` of ``col`` as one column of a 2-D array (see _code_entropy)."""
    with np.errstate(divide="ignore", invalid="ignore"):
        return scipy_entropy(np.column_stack((col, col)))[0]


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
                 k2: float = 0.1, variant: str = "code",
                 max_seconds: float | None = None) -> list[int]:
    """MI-MCF's subset (sorted 0-based feature indices) of X (n × f codes) for Y (n × q).

    ``max_seconds``: a time budget; past it the run stops between two targets with
    :class:`camcf.jobs.TimeBudgetExceeded` (a :class:`camcf.CamcfError` naming the method, the
    time spent, where it was and the way out). None: no limit.
    """
    return _mimcf_run(X, Y, alpha=alpha, k1=k1, k2=k2, variant=variant,
                      max_seconds=max_seconds).selected


def _mimcf_run(X: np.ndarray, Y: np.ndarray, *, alpha: float, k1: float, k2: float,
               variant: str, max_seconds: float | None) -> _MIMCF:
    """:func:`mimcf_select`'s run, kept: its ``label_features`` and ``label_pcs`` (per label,
    the features and the labels of its final PC) besides the selection."""
    t0 = time.perf_counter()
    data = np.hstack([_feature_codes(X), label_codes(Y)])
    deadline = None if max_seconds is None else t0 + float(max_seconds)
    run = _MIMCF(data, np.asarray(Y).shape[1], alpha, k1, k2, variant, deadline=deadline,
                 budget=max_seconds)
    run.t0 = t0
    run.selected = run.run()
    return run


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
    max_seconds : float or None, default None
        A time budget: past it ``fit`` raises :class:`camcf.jobs.TimeBudgetExceeded` (checked
        between two targets; no limit when None). It never changes a finished result.

    Attributes
    ----------
    support_ : ndarray of bool (n_features,)
        The selected features.
    selected_ : list of int
        Their 0-based indices, ascending.
    blankets_ : tuple of tuple of int
        Per label (column of Y), the features of its final PC (the selection is their union).
    label_blankets_ : tuple of tuple of int
        Per label, the labels in its phase-1 PC (the code's label–label relations, which
        phase 2 takes out of every PC again).
    """

    params: ClassVar[tuple[Param, ...]] = _declared.MIMCF

    def __init__(self, alpha: float = ALPHA.default, k1: float = K1.default,
                 k2: float = K2.default, variant: str = VARIANT.default,
                 max_seconds: float | None = MAX_SECONDS.default):
        self.alpha = alpha
        self.k1 = k1
        self.k2 = k2
        self.variant = variant
        self.max_seconds = max_seconds

    def fit(self, X, Y) -> MIMCF:
        """Select features of X (n_samples × n_features, integer codes) for Y."""
        prm = self._checked_params()
        X, Y = self._validate_xy(X, Y)
        run = _mimcf_run(X, Y, **prm)
        self.selected_ = run.selected
        self.blankets_ = tuple(tuple(v) for v in run.label_features)
        self.label_blankets_ = tuple(tuple(v) for v in run.label_pcs)
        self.support_ = np.zeros(X.shape[1], dtype=bool)
        self.support_[self.selected_] = True
        return self
