"""Backward elimination on the fast engine: :class:`FastLeaveOneOut`, the leave-one-out session
:meth:`camcf.fast_engine.FastEngine.leave_one_out` returns (speculative batches of steps, each
batch's strata from one sort of its rows by their codes, its values summed in hash order)."""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

from .info import (
    _CELL_BUDGET,
    _ELEM_BUDGET,
    _JOINT_CACHE_BYTES,
    LeaveOneOut,
    _compact,
    _first_appearance,
    _n_distinct,
    _n_distinct_rows,
    _row_sums,
    _sorted_rows,
)

_RADIX_STATES = 1 << 12  # joint states up to which single values number strata by a code
_WALK_BATCH = 64  # most backward-elimination steps computed together (see FastLeaveOneOut)
_LOOP_ROWS = 256  # rows from which _hashes subtracts set by set


_WORD_BITS = 52  # bits of codes packed into one sort key (exact in a float64's mantissa)


def _suffix_order(s: np.ndarray, W: np.ndarray, K: int) -> tuple[np.ndarray, np.ndarray]:
    """The r rows (``s``: a stratum code per row, ``W``: B × r codes below ``K``) sorted by
    s, then by the codes from the last member down: (the order; per adjacent pair of sorted
    rows, the highest member i at which they differ, B where their s differ, −1 for equal
    rows). The rows of one stratum of every S_j = (s, W[j + 1:]) (S_B with the members after
    j: the sets of a backward batch) are then adjacent, and a pair starts a new stratum of
    S_j exactly where it differs after j.

    The codes are packed into keys of at most 52 bits (exact in a float64's mantissa), with
    s in the bits above the first key's when they fit in 64, and the row's place below them
    when that fits too (a plain sort, in runs, instead of an argsort); where two neighbours
    first differ is read from the highest bit of their keys' XOR."""
    B, r = W.shape
    bpc = max(1, (K - 1).bit_length())  # bits per code
    per = max(1, _WORD_BITS // bpc)  # codes per key
    Wf = W.astype(np.float64)
    place = np.ldexp(1.0, bpc * np.arange(min(per, B)))  # code i of a key at bit bpc·i
    s_bits = max(1, int(s.max()).bit_length()) if r else 1
    cb, pb = B * bpc, max(1, (r - 1).bit_length())  # bits of the codes, of a row's place
    if B <= per and s_bits + cb + pb <= 64:  # one key with the row: s, codes, row; a sort
        key = (place @ Wf).astype(np.uint64)  # Σ code·2^(bpc·i) < 2^52: exact in float64
        key <<= np.uint64(pb)
        key |= s.astype(np.uint64) << np.uint64(cb + pb)
        key |= np.arange(r, dtype=np.uint64)
        key = _sorted_rows(key[None, :])[0]
        order = (key & np.uint64((1 << pb) - 1)).view(np.int64)
        key >>= np.uint64(pb)
        e = np.frexp((key[1:] ^ key[:-1]).astype(np.float64))[1]  # as below
        return order, np.minimum((e - 1) // bpc, B)
    if B <= per and s_bits <= 64 - _WORD_BITS:  # one key: s above the codes, one argsort
        key = (place @ Wf).astype(np.uint64)  # Σ code·2^(bpc·i) < 2^52: exact in float64
        key |= s.astype(np.uint64) << np.uint64(_WORD_BITS)
        order = np.argsort(key)
        key = key[order]
        # the highest differing bit of neighbours (bit length e, exact below 2^53): in s
        # (e > 52) for every j, else at member (e − 1) // bpc; e = 0: the same row
        e = np.frexp((key[1:] ^ key[:-1]).astype(np.float64))[1]
        return order, np.minimum((e - 1) // bpc, B)
    keys = []  # the most significant first: the last members
    for hi in range(B, 0, -per):
        lo = max(0, hi - per)
        keys.append(((place[:hi - lo] @ Wf[lo:hi]).astype(np.uint64), lo))
    first = np.full(max(r - 1, 0), -1, dtype=np.int64)  # per pair: the highest differing i
    if s_bits <= 64 - _WORD_BITS:  # s above the last members' codes: one key fewer
        keys[0] = (keys[0][0] | s.astype(np.uint64) << np.uint64(_WORD_BITS), keys[0][1])
        order = np.lexsort([k for k, _ in reversed(keys)])
    else:
        order = np.lexsort([k for k, _ in reversed(keys)] + [s])
        ss = s[order]
        first[ss[1:] != ss[:-1]] = B  # another stratum of S_B: differs for every j
    for key, lo in keys:
        ks = key[order]
        x = ks[1:] ^ ks[:-1]
        here = (x != 0) & (first < 0)
        if here.any():  # a bit of s (the first key's bits from 52): B
            first[here] = np.minimum(
                lo + (np.frexp(x[here].astype(np.float64))[1] - 1) // bpc, B)
    return order, first


def _suffix_distinct(first: np.ndarray, B: int) -> np.ndarray:
    """For j = 0..B−1, the number of strata of S_j (see :func:`_suffix_order`) among rows
    whose adjacent pairs (in that order) first differ at ``first`` (r − 1 values, r ≥ 1):
    1 plus the pairs that differ after j."""
    hist = np.bincount(first + 1, minlength=B + 2)  # first = −1: the same row
    after = np.cumsum(hist[::-1])[::-1]  # after[i + 1]: pairs differing at i or later
    return 1 + after[2:B + 2]


def _hash_ranks(h: np.ndarray, ns: np.ndarray) -> np.ndarray:
    """For strata listed set after set (``ns[j]`` of set j, ``h`` each one's hash), each
    stratum's position when every set's strata are sorted by hash (the sets in turn).

    One sort of keys: the set above the hash's high bits above the stratum's index (a plain
    sort, rows in runs, see :func:`camcf.info._sorted_rows`); where two strata of one set
    share those high bits (about 2^-40 a pair) the keys could misorder them, so such strata
    are sorted by a lexsort of the whole hashes."""
    B, NS = ns.size, h.size
    sb, kb = max(1, (B - 1).bit_length()), max(1, (NS - 1).bit_length())
    index = np.arange(NS, dtype=np.int64)
    at = None
    if sb + kb <= 24:  # 40 bits of hash or more
        key = h >> np.uint64(sb)
        key &= np.uint64(((1 << 64) - 1) ^ ((1 << kb) - 1))
        key |= np.repeat(np.arange(B, dtype=np.uint64) << np.uint64(64 - sb), ns)
        key |= index.view(np.uint64)
        key = _sorted_rows(key[None, :])[0]
        at = (key & np.uint64((1 << kb) - 1)).view(np.int64)
        key >>= np.uint64(kb)
        if np.any(key[1:] == key[:-1]):  # two strata of a set (two hashes) share high bits
            at = None
    if at is None:
        at = np.lexsort((h, np.repeat(np.arange(B), ns)))
    rank = np.empty(NS, dtype=np.int64)
    rank[at] = index
    return rank


def _hashes(terms: np.ndarray, total: np.ndarray) -> np.ndarray:
    """H[j] = total − Σ_{i ≤ j} terms[i] (mod 2^64) of a batch's B × r terms: a cumulative sum
    down the sets for short rows, else one subtraction per set (numpy accumulates down axis 0
    of a row-major block a column at a time, several times slower over long rows)."""
    B, r = terms.shape
    if r < _LOOP_ROWS:
        H = np.cumsum(terms, axis=0, dtype=np.uint64)
        np.subtract(total[None, :], H, out=H)
        return H
    H = np.empty_like(terms)
    np.subtract(total, terms[0], out=H[0])
    for j in range(1, B):
        np.subtract(H[j - 1], terms[j], out=H[j])
    return H


class FastLeaveOneOut(LeaveOneOut):
    """Keeps the row hash of members ∪ fixed; "without f" is one subtraction, its strata one
    hash factorisation, and the value one ``bincount`` (no conditioning set is materialised)."""

    def __init__(self, engine, target, members, fixed) -> None:
        super().__init__(engine, target, members, fixed)
        k = len(self.members)
        # the members' codes (k × n) and hash terms, read once, while they fit the budget:
        # the batches of walk() and the single values take their rows from these
        self._pos: dict[int, int] | None = None
        if k and k * engine.n * 9 <= _JOINT_CACHE_BYTES:
            mem = np.asarray(self.members, dtype=np.int64)
            self._W = engine.rows_of(mem)
            self._T = np.multiply(self._W, engine._mult[mem][:, None], dtype=np.uint64,
                                  casting="unsafe")  # codes ≥ 0: the same as astype, then ×
            self._pos = {f: i for i, f in enumerate(self.members)}
            # Σ (mod 2^64) in any order: the same total as engine._hash(members + fixed)
            self.total = self._T.sum(axis=0, dtype=np.uint64)
            if self.fixed:
                self.total += engine._hash(self.fixed)
        else:
            self.total = engine._hash(self.members + self.fixed)
        self._in = set(self.members) | set(self.fixed)
        # few joint states (a short PC and R): the exact mixed-radix code of members ∪ fixed
        # beside the hash, from which a single value numbers its strata without hashing
        self._radix: tuple[np.ndarray, dict[int, int], int] | None = None
        cols = self.members + self.fixed
        cards = engine.card[cols].tolist() if len(cols) <= _RADIX_STATES.bit_length() else []
        if self._pos is not None and cards and math.prod(cards) <= _RADIX_STATES:
            code = np.zeros(engine.n, dtype=np.int64)
            step: dict[int, int] = {}  # each column's place value
            place = 1
            for c, k_c in zip(cols, cards, strict=True):
                step[c] = place
                code += (self._W[self._pos[c]] if c in self._pos
                         else engine.column(c)).astype(np.int64) * place
                place *= k_c
            self._radix = (code, step, place)
        # the members' columns as int64 and their hash terms, kept while they fit the budget
        self._keep = k * engine.n * 16 <= _JOINT_CACHE_BYTES
        self._cols: dict[int, tuple[np.ndarray, np.ndarray]] = {}
        self._terms: dict[int, np.ndarray] = {}  # hash terms of the last batch of walk()
        self._removed = 0  # removals so far: the members' state a known strata count is for
        self._known: dict[int, tuple[int, int]] = {}  # f -> (state, strata of its set)
        self._batch: tuple | None = None  # the last batch of walk(), see _chain
        self._after: tuple | None = None  # (batch, state, total without it), see _chain
        self._want_strata = False  # walk(strata=True): count the batch's strata with values
        self._given: tuple | None = None  # (f, state, codes, states) of values_given's last set

    def _col(self, f: int) -> tuple[np.ndarray, np.ndarray]:
        hit = self._cols.get(f)
        if hit is None and self._pos is not None and f in self._pos:
            i = self._pos[f]
            return self._W[i].astype(np.int64), self._T[i]
        if hit is None:
            col = self.engine.column(f).astype(np.int64)
            hit = (col, col.astype(np.uint64) * self.engine._mult[f])
            if self._keep:
                self._cols[f] = hit
        return hit

    def value(self, f: int) -> float:
        v, from_table = self._single(int(f))
        self.engine._counted(computed=not from_table, lookups=from_table)
        return v

    def _single(self, f: int) -> tuple[float, bool]:
        """value(f) without counting it, and whether it was read from the tables."""
        eng = self.engine
        if len(self._in) - (f in self._in) == 0:  # nothing to condition on
            return eng._table_value(f, self.target), True
        col, term = self._col(f)
        if self._radix is not None:  # the same numbering (first appearance) from exact codes
            code, step, bound = self._radix
            s, ns = _first_appearance(code - col * step[f] if f in self._in else code, bound)
        else:
            s, ns = _compact(self.total - term if f in self._in else self.total, sort=False)
        self._known[f] = (self._removed, ns)
        return eng._cmi_one(eng._target(self.target), col, int(eng.card[f]), s, ns), False

    def values_given(self, cols, f: int) -> np.ndarray:
        """I(t; V_j | (members − f) ∪ fixed) for the pool columns ``cols``: what
        :meth:`~camcf.info.Engine.cmi_many` gives for that set (the same joint code: the
        distinct row hashes in their order, here the running hash minus f's term rather than
        the set hashed again), counted the same way; the set's strata are kept for
        :meth:`strata`."""
        eng, f = self.engine, int(f)
        cols = np.asarray(cols, dtype=np.int64)
        size = len(self._in) - (f in self._in)
        if size <= 1:  # empty or one column: the engine's own joint code
            cond = self.cond(f)
            if size == 1:
                self._known[f] = (self._removed, eng.joint(cond)[1])
            return eng.cmi_many(self.target, cols, cond)
        hit = self._given
        if hit is None or hit[:2] != (f, self._removed):  # the last set's code is kept
            term = self._terms.get(f)
            if term is None:
                term = self._col(f)[1]
            hit = self._given = (f, self._removed,
                                 *_compact(self.total - term if f in self._in else self.total))
        s, ns = hit[2], hit[3]
        self._known[f] = (self._removed, ns)
        eng._counted(computed=len(cols))
        return eng._cmi_given_codes(eng._target(self.target), cols, s, ns)

    def strata(self, f: int) -> int:
        """Strata of (members − f) ∪ fixed: from the value's own factorisation when it had
        one, else the distinct values of the set's row hash (one pass over the rows)."""
        f = int(f)
        if len(self._in) - (f in self._in) == 0:
            return 1
        known = self._known.get(f)
        if known is not None and known[0] == self._removed:
            return known[1]
        if self._batch is not None and f in self._batch[0]:
            batch, start, terms, s_last, ns_last = self._batch
            j = batch.index(f)
            if self._removed == start + j:  # the members before f were removed as guessed
                self._batch = None
                # each set of the batch refines the last one, S_B: a stratum of one row there
                # stays one stratum, so only the rows of S_B's larger strata are sorted
                size = np.bincount(s_last, minlength=ns_last)
                multi = np.flatnonzero(size[s_last] > 1)
                single = int(np.count_nonzero(size == 1))
                H = _hashes(terms[j:, multi], self.total[multi])
                for i, k in enumerate(_n_distinct_rows(H).tolist()):
                    self._known[batch[j + i]] = (start + j + i, k + single)
                return self._known[f][1]
        if f not in self._in:
            return _n_distinct(self.total)
        term = self._terms.get(f)
        if term is None:
            term = self._col(f)[1]
        return _n_distinct(self.total - term)

    def walk(self, order: Sequence[int], strata: bool = False):
        """Backward elimination in speculative batches, with exact values: :meth:`runs` one
        value at a time (the caller removes each f it prunes before taking the next).

        The values of the next B members are computed together assuming that each is removed
        in turn (the j-th conditions on S − {f_1, …, f_j}), which is what backward elimination
        does while it prunes. When the caller keeps a member instead, the batch ends there (the
        later values assumed its removal) and is taken again from the next member with the
        true conditioning set. A batch doubles while the guess holds and shrinks to what was
        used when it does not, so the waste is at most the work done. Every yielded value is
        I(t; V_f | (members − f) ∪ fixed) for the members at the time it is taken.

        With ``strata`` (the caller will ask :meth:`strata` of the values), each batch counts
        the strata of its sets with its values, from the same sort of the rows.
        """
        for batch, values, _ in self.runs(order, strata):
            for f, v in zip(batch, values.tolist(), strict=True):
                yield f, v
                if f in self._in:  # kept: the later values assumed its removal
                    break

    def runs(self, order: Sequence[int], strata: bool = False):
        """The batches of :meth:`walk` as they are computed: yields ``(fs, values, strata_of)``
        where ``values[j]`` is I(t; V_fs[j] | S_j), S_j = (members − fs[:j + 1]) ∪ fixed for
        the members at the time of the yield, and ``strata_of(j)`` the number of strata of S_j
        (to be asked before the caller removes anything). The caller then removes a prefix of
        ``fs`` (:meth:`remove_many`): the values up to the first member it keeps are those of
        backward elimination, and the next run starts after that member."""
        self._want_strata = bool(strata)
        order = [int(f) for f in order]
        eng = self.engine
        K = int(eng.card[order].max()) if order else 1
        cap = max(1, min(_WALK_BATCH, _ELEM_BUDGET // max(eng.n, 1),
                         _CELL_BUDGET // (2 * K * eng.n)))
        i, size = 0, 1
        while i < len(order):
            batch = order[i:i + size]
            values, from_table = self._chain(batch)
            start = self._removed
            yield batch, values, (lambda j, b=batch, e=from_table, s=start:
                                  self._run_strata(b, e, s, j))
            used = 0
            for f in batch:
                used += 1
                if f in self._in:  # kept: the later values assumed its removal
                    break
            hits = int(np.count_nonzero(from_table[:used])) if used > 1 else int(from_table[0])
            eng._counted(computed=used - hits, lookups=hits)
            i += used
            size = min(2 * size, cap) if used == len(batch) else used

    def _run_strata(self, batch: list[int], empty: np.ndarray, start: int, j: int) -> int:
        """Strata of S_j of a run (see :meth:`runs`), before any of its members is removed:
        counted with the batch's values when it counted strata, else from the row hash."""
        if empty[j]:
            return 1
        f = batch[j]
        known = self._known.get(f)
        if known is not None and known[0] == start + j:
            return known[1]
        h = self.total
        for g in batch[:j + 1]:
            if g in self._in:
                term = self._terms.get(g)
                h = h - (self._col(g)[1] if term is None else term)
        return _n_distinct(h)

    def _chain(self, batch: list[int]) -> tuple[np.ndarray, np.ndarray]:
        """I(t; V_j | S_j) for the columns ``batch`` with S_j = (members ∪ fixed) − {batch[:j+1]},
        and which of them were read from the unconditional tables (S_j empty).

        A stratum in which t is constant contributes exactly 0, and every stratum of S_j lies
        inside one of the last, smallest set S_B: so only the rows of the strata of S_B where
        both t = 0 and t = 1 occur are counted (one hash factorisation of n rows finds them;
        often a few per cent of the rows), and a batch with none gives exactly 0. The strata of
        every S_j among those rows come from one sort of the rows by S_B's stratum, then the
        members' codes from the last down (:func:`_suffix_order`): each S_j's strata are runs
        of that order, numbered in it. The counts of (stratum, code, t) come from one
        ``bincount``; the sums keep the full n in the denominator.
        """
        eng = self.engine
        n, B = eng.n, len(batch)
        if B == 1:  # one step: the plain leave-one-out value (fewer calls than a batch)
            v, from_table = self._single(batch[0])
            return np.array([v]), np.array([from_table])
        cols = np.asarray(batch, dtype=np.int64)
        inset = np.array([f in self._in for f in batch])
        if self._pos is not None and all(f in self._pos for f in batch):
            at = [self._pos[f] for f in batch]
            if at[-1] - at[0] == B - 1 and at == list(range(at[0], at[0] + B)):
                # consecutive members (the walk's order): views, no copy of B × n
                W, terms = self._W[at[0]:at[0] + B], self._T[at[0]:at[0] + B]
                if not inset.all():
                    terms = terms.copy()
            else:
                W, terms = self._W[at], self._T[at]  # B × n codes and their terms (copies)
        else:
            W = eng.rows_of(cols)  # B × n codes
            terms = W.astype(np.uint64)
            terms *= eng._mult[cols][:, None]
        terms[~inset] = 0
        self._terms = dict(zip(batch, terms, strict=True))  # for remove()
        left = len(self._in) - np.cumsum(inset)  # |S_j|
        t = eng._target(self.target)
        after = self.total - terms.sum(axis=0, dtype=np.uint64)  # the hash of S_B
        s_last, ns_last = _compact(after, sort=False)
        # removing the whole batch (what the walk mostly does) leaves ``after`` as the total
        self._after = (batch, self._removed, after) if inset.all() else None
        if inset.all():  # the last set's strata, valid once the others were removed as guessed
            self._known[batch[-1]] = (self._removed + B - 1, ns_last)
        # for strata(): the sets of this batch over all rows, counted when first asked
        self._batch = (batch, self._removed, terms, s_last, ns_last)
        c_last = np.bincount(s_last * 2 + t, minlength=2 * ns_last)
        live_s = (c_last[0::2] > 0) & (c_last[1::2] > 0)  # per stratum of S_B
        rows = np.flatnonzero(live_s[s_last])
        K = int(eng.card[cols].max())
        out = np.zeros(B)
        ns = np.zeros(B, dtype=np.int64)  # strata of each S_j among the live rows
        nr = rows.size
        if self._want_strata:
            # every S_j's strata: those among the live rows, plus those of the rows of S_B's
            # other strata of two rows or more (a stratum of one row in S_B stays one; a
            # stratum of S_j lies in one of S_B), sorted with the live rows, after them
            size = c_last[0::2] + c_last[1::2]
            multi = size > 1
            single = ns_last - int(np.count_nonzero(multi))
            dead = np.flatnonzero((multi & ~live_s)[s_last])
            if dead.size:
                rows = np.concatenate([rows, dead])
        if rows.size:
            Wr = W[:, rows] if nr < n else W  # nr = n: every row, in order
            Wk = Wr  # the codes of the sets' members (a column that is not one: 0)
            if not inset.all():
                Wk = Wr.copy()
                Wk[~inset] = 0
            sk = s_last[rows]
            if self._want_strata and dead.size:
                sk[nr:] += ns_last  # the dead strata after the live ones
            order, first = _suffix_order(sk, Wk, K)
            if nr:
                live_order = order[:nr]
                at = rows[live_order]
                out, ns = self._chain_counts(Wr[:, live_order], t[at], first[:nr - 1],
                                             terms[:, at], self.total[at], K)
            if self._want_strata and dead.size:  # the pairs after the live rows' last
                ns = ns + _suffix_distinct(first[nr:], B)
        if self._want_strata:
            r0 = self._removed
            self._known.update(zip(batch, zip(range(r0, r0 + B), (ns + single).tolist(),
                                              strict=True), strict=True))
        empty = left == 0
        if empty.any():  # nothing to condition on: the unconditional table
            for j in np.flatnonzero(empty).tolist():
                out[j] = eng._table_value(batch[j], self.target)
        return out, empty

    def _chain_counts(self, W: np.ndarray, t: np.ndarray, first: np.ndarray,
                      terms: np.ndarray, total: np.ndarray, K: int
                      ) -> tuple[np.ndarray, np.ndarray]:
        """The batch values from the live rows in the order of :func:`_suffix_order`: their
        codes ``W`` (B × r, each S_j's strata runs of rows), ``t``, ``first`` (per pair of
        neighbours, the highest member at which they differ), the hash terms of the removed
        members (B × r, 0 where not a member) and the running hash total of those rows; and
        each S_j's number of strata among those rows.

        The strata of every S_j (runs of the rows) and each row's cell (code·2 + t) give the
        counts of (cell, stratum) from one ``bincount``. A stratum where t is constant
        contributes exactly 0: only the informative strata's terms are computed, each in its
        place among the set's strata in the order of their hashes (:func:`_hash_ranks`, the
        hash of a stratum's first row; zeros elsewhere), so the sums over the strata add the
        same numbers in the same order as over every stratum of the set in hash order."""
        B, r = W.shape
        K2 = 2 * K
        new = np.empty((B, r), dtype=bool)  # where a row starts a stratum of S_j
        new[:, 0] = True
        np.greater(first, np.arange(B)[:, None], out=new[:, 1:])
        # strata numbered from 1 across the sets at once (the sum in place: numpy's cumsum
        # of bools into int64 goes through a slow cast)
        g = new.astype(np.int64)
        np.cumsum(g.ravel(), out=g.ravel())
        ns = g[:, -1].copy()
        ns[1:] -= g[:-1, -1]
        NS = int(g[-1, -1])
        off = np.cumsum(ns) - ns
        # cell-major: the counts of a cell are one array over the strata (index 0 unused)
        g += np.multiply(W, 2 * NS, dtype=np.int64)
        g += np.multiply(t, NS, dtype=np.int64)
        c = np.bincount(g.ravel(), minlength=K2 * NS + 1)[1:].reshape(K2, NS)
        t0, t1 = c[0].copy(), c[1].copy()  # counts of (stratum, t)
        for v in range(1, K):
            t0 += c[2 * v]
            t1 += c[2 * v + 1]
        live = np.flatnonzero((t0 > 0) & (t1 > 0))
        if live.size == 0:
            return np.zeros(B), ns
        c, t0, t1 = c[:, live], t0[live], t1[live]
        # each informative stratum's place: its rank by hash among its set's strata
        place = _hash_ranks(_hashes(terms, total).ravel()[np.flatnonzero(new)], ns)[live]
        tab = self.engine._tab
        # per informative stratum, the terms of cmi_from_counts in its order: S(t, code, S),
        # S(S), S(t, S), S(code, S), each stratum's cells added in cmi_from_counts's order
        vals = np.empty((4, live.size))
        vals[0] = _row_sums(tab[c].T)
        vals[1] = tab[t0 + t1]
        np.add(tab[t0], tab[t1], out=vals[2])
        vals[3] = _row_sums(tab[c[0::2] + c[1::2]].T)
        per = np.zeros((4, NS))
        per[:, place] = vals
        s = np.add.reduceat(per, off, axis=1)  # each row's segments as that row's alone
        return (s[0] + s[1] - s[2] - s[3]) / self.engine.n, ns

    def remove(self, f: int) -> None:
        self.remove_many([f])

    def remove_many(self, fs: Sequence[int]) -> None:
        """Remove the members ``fs`` (in that order): one update of the row hash for all."""
        fs = [int(f) for f in fs]
        if not fs:
            return
        gone = set(fs)
        self.members = [g for g in self.members if g not in gone]
        radix = self._radix
        pos = self._pos
        at = [pos.get(f, -1) for f in fs] if pos is not None and len(fs) > 2 else []
        bulk = (bool(at) and at == list(range(at[0], at[0] + len(fs))) and at[0] >= 0
                and gone <= self._in)
        after = self._after
        if bulk and after is not None and after[1] == self._removed and after[0] == fs:
            self.total = after[2]  # the last batch, removed whole: its S_B's hash
        elif bulk:  # consecutive members (a walk's run): their terms summed at once (mod 2^64)
            self.total = self.total - self._T[at[0]:at[-1] + 1].sum(axis=0, dtype=np.uint64)
        self._after = None
        for i, f in enumerate(fs):
            if f not in self.fixed:
                self._in.discard(f)
            term = self._terms.pop(f, None)
            if bulk:
                pass
            elif i == 0:  # a new array (others may hold the old one), then updated in place
                self.total = self.total - (self._col(f)[1] if term is None else term)
            else:
                self.total -= self._col(f)[1] if term is None else term
            if radix is not None and f in radix[1]:
                code, step, bound = radix
                radix = (code - self._col(f)[0] * step[f], step, bound)
            self._cols.pop(f, None)
        self._radix = radix
        self._removed += len(fs)


__all__ = ["FastLeaveOneOut"]
