"""Backward elimination on the fast engine: :class:`FastLeaveOneOut`, the leave-one-out session
:meth:`camcf.fast_engine.FastEngine.leave_one_out` returns (speculative batches of steps, each
batch's values and strata from one sort of its rows' hashes)."""

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
    _run_width,
    _sort_rows,
    _sorted_rows,
)

_TALL = 1 << 15  # rows from which a batch's strata come from one hash factorisation per set
_RADIX_STATES = 1 << 12  # joint states up to which single values number strata by a code
_PACK_ROWS = 1 << 12  # rows up to which a batch sorts packed keys (see _chain_counts)
_ARGSORT_CELLS = 1536  # ... from this many rows × sets (below, an argsort takes fewer calls)
_WALK_BATCH = 64  # most backward-elimination steps computed together (see FastLeaveOneOut)
_LOOP_ROWS = 256  # rows from which _hashes subtracts set by set


_WORD_BITS = 52  # bits of codes packed into one sort key (exact in a float64's mantissa)


def _suffix_distinct(s: np.ndarray, W: np.ndarray, K: int) -> np.ndarray:
    """For j = 0..B−1, the number of distinct rows (s, W[j + 1], …, W[B − 1]) among the r
    rows (``s``: a stratum code per row, ``W``: B × r codes below ``K``): the strata of every
    S_j of a backward batch, S_j being S_B (the strata ``s``) with the members after j.

    The rows are sorted by s, then by the codes from the last member down (packed into keys
    of at most 52 bits, with s in the bits above the first key's when they fit in 64): rows
    that agree on (s, W[j + 1:]) are then adjacent for every j, so each count is 1 plus the
    adjacent pairs that differ there (where two neighbours first differ is read from the
    highest bit of their keys' XOR)."""
    B, r = W.shape
    bpc = max(1, (K - 1).bit_length())  # bits per code
    per = max(1, _WORD_BITS // bpc)  # codes per key
    Wf = W.astype(np.float64)
    place = np.ldexp(1.0, bpc * np.arange(min(per, B)))  # code i of a key at bit bpc·i
    s_bits = max(1, int(s.max()).bit_length()) if r else 1
    if B <= per and s_bits <= 64 - _WORD_BITS:  # one key: s above the codes, one plain sort
        key = (place @ Wf).astype(np.uint64)  # Σ code·2^(bpc·i) < 2^52: exact in float64
        key |= s.astype(np.uint64) << np.uint64(_WORD_BITS)
        key = _sorted_rows(key[None, :])[0]
        # the highest differing bit of neighbours (bit length e, exact below 2^53): in s
        # (e > 52) for every j, else at member (e − 1) // bpc; e = 0: the same row
        e = np.frexp((key[1:] ^ key[:-1]).astype(np.float64))[1]
        first = np.minimum((e - 1) // bpc, B)
    else:
        keys = []  # the most significant first: the last members
        for hi in range(B, 0, -per):
            lo = max(0, hi - per)
            keys.append(((place[:hi - lo] @ Wf[lo:hi]).astype(np.uint64), lo))
        first = np.full(r - 1, -1, dtype=np.int64)  # per pair: the highest differing i
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
    # a pair differs on (s, W[j + 1:]) when its highest differing member is after j
    hist = np.bincount(first + 1, minlength=B + 2)  # first = −1: the same row
    after = np.cumsum(hist[::-1])[::-1]  # after[i + 1]: pairs differing at i or later
    return 1 + after[2:B + 2]


def _starts(Hs: np.ndarray) -> np.ndarray:
    """Where each row of sorted hashes (B × r) starts a new value (the first always does)."""
    new = np.empty(Hs.shape, dtype=bool)
    new[:, 0] = True
    np.not_equal(Hs[:, 1:], Hs[:, :-1], out=new[:, 1:])
    return new


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


def _strata_cells(H: np.ndarray, W: np.ndarray, t: np.ndarray, K2: int
                  ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The strata of each set of a batch from its row hashes ``H`` (B × r): (each row's
    stratum, numbered across the sets, the sets in turn and each set's strata in the order of
    their hashes; each row's cell code·2 + t (``W`` B × r codes, 2·code + 1 < ``K2``), both
    B × r int64 in any order of the rows within a set; each set's number of strata).

    Short data: one sort of keys per set, the hash's high bits above the cell and the row's
    flat position (a plain sort is several times faster than an argsort, and the cell comes
    back without a gather). The keys order the rows by their hash's high bits; where two
    different hashes share them (about 2^-40 a pair), the rows of the two strata could
    interleave, so the whole hashes are compared and such a batch is sorted by the argsort
    below (the strata stay those of the 64-bit hashes, and in their order). Tall data: one
    hash factorisation per set (strata numbered by first appearance)."""
    B, r = H.shape
    size = B * r
    if r >= _TALL:
        g = np.empty((B, r), dtype=np.int64)
        ns = np.empty(B, dtype=np.int64)
        for j in range(B):
            g[j], ns[j] = _compact(H[j], sort=False)
        g += (np.cumsum(ns) - ns)[:, None]
        cells = np.multiply(W, 2, dtype=np.int64)
        cells += t
        return g, cells, ns
    new = None
    if _ARGSORT_CELLS <= size and r <= _PACK_ROWS:
        bits = (size - 1).bit_length()  # the flat position
        cb = (K2 - 1).bit_length()  # the cell
        block = np.empty((B, _run_width(r)), dtype=np.uint64)
        block[:, r:] = np.iinfo(np.uint64).max  # after every key (see _sort_rows)
        keys = block[:, :r]
        np.left_shift(W, bits + 1, out=keys, dtype=np.uint64, casting="unsafe")  # codes ≥ 0
        keys |= np.arange(size, dtype=np.uint64).reshape(B, r)
        keys |= (t.astype(np.uint64) << np.uint64(bits))[None, :]
        keys |= H & np.uint64(((1 << 64) - 1) ^ ((1 << (bits + cb)) - 1))
        _sort_rows(block)
        at = (keys & np.uint64((1 << bits) - 1)).view(np.int64)
        new = _starts(np.take(H.ravel(), at))
        keys >>= np.uint64(bits)
        cells = (keys & np.uint64((1 << cb) - 1)).view(np.int64)
        keys >>= np.uint64(cb)
        if np.any((keys[:, 1:] == keys[:, :-1]) & new[:, 1:]):
            new = None  # high bits shared by two hashes
    if new is None:
        at = np.argsort(H, axis=1)  # the row positions in each set's hash order
        at += (np.arange(B) * r)[:, None]  # flat positions
        new = _starts(np.take(H.ravel(), at))
        cells = np.multiply(np.take(W.ravel(), at), 2, dtype=np.int64)
        cells += np.take(t, at % r)
    # strata numbered across the sets at once: each set's first row starts one (the sum
    # in place: numpy's cumsum of bools into int64 goes through a slow cast)
    g = new.astype(np.int64)
    np.cumsum(g.ravel(), out=g.ravel())
    ns = g[:, -1].copy()
    ns[1:] -= g[:-1, -1]
    g -= 1
    return g, cells, ns


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
        each S_j among those rows come from its row hash (the running total minus the terms of
        the members removed so far): one sort of the B × rows hash block for short data, one
        hash factorisation per S_j for tall data. The counts of (stratum, code, t) come from one
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
        if nr:
            if nr < n:
                Wr, Tr, tr, total = W[:, rows], terms[:, rows], t[rows], self.total[rows]
            else:
                Wr, Tr, tr, total = W, terms, t, self.total
            out, ns = self._chain_counts(Wr, Tr, tr, total, K)
        if self._want_strata:
            # every S_j's strata: those among the live rows, plus those of the rows of S_B's
            # other strata of two rows or more (a stratum of one row in S_B stays one; a
            # stratum of S_j lies in one of S_B)
            size = c_last[0::2] + c_last[1::2]
            multi = size > 1
            single = ns_last - int(np.count_nonzero(multi))
            dead = np.flatnonzero((multi & ~live_s)[s_last])
            if dead.size * B > _PACK_ROWS:  # one sort of the rows (see _suffix_distinct)
                ns = ns + _suffix_distinct(s_last[dead], W[:, dead], K)
            elif dead.size:  # few: one sort of the B × rows hashes (fewer calls)
                ns = ns + _n_distinct_rows(_hashes(terms[:, dead], self.total[dead]))
            r0 = self._removed
            self._known.update(zip(batch, zip(range(r0, r0 + B), (ns + single).tolist(),
                                              strict=True), strict=True))
        empty = left == 0
        if empty.any():  # nothing to condition on: the unconditional table
            for j in np.flatnonzero(empty).tolist():
                out[j] = eng._table_value(batch[j], self.target)
        return out, empty

    def _chain_counts(self, W: np.ndarray, terms: np.ndarray, t: np.ndarray,
                      total: np.ndarray, K: int) -> tuple[np.ndarray, np.ndarray]:
        """The batch values from the live rows: codes ``W`` (B × r), hash terms of the removed
        members (B × r, 0 where not a member), ``t`` and the running hash total of those rows;
        and each S_j's number of strata among those rows.

        The strata of every S_j, numbered across the sets (:func:`_strata_cells`), and each
        row's cell (code·2 + t) give the counts of (cell, stratum) from one ``bincount``. A
        stratum where t is constant contributes exactly 0: only the informative strata's
        terms are computed, each in its place among the set's strata (zeros elsewhere), so
        the sums over the strata add the same numbers in the same order as over every
        stratum."""
        B = W.shape[0]
        K2 = 2 * K
        g, cells, ns = _strata_cells(_hashes(terms, total), W, t, K2)
        NS = int(ns.sum())
        off = np.cumsum(ns) - ns
        cells *= NS  # cell-major: the counts of a cell are one array over the strata
        g += cells
        c = np.bincount(g.ravel(), minlength=K2 * NS).reshape(K2, NS)
        t0, t1 = c[0].copy(), c[1].copy()  # counts of (stratum, t)
        for v in range(1, K):
            t0 += c[2 * v]
            t1 += c[2 * v + 1]
        live = np.flatnonzero((t0 > 0) & (t1 > 0))
        if live.size == 0:
            return np.zeros(B), ns
        c, t0, t1 = c[:, live], t0[live], t1[live]
        tab = self.engine._tab
        # per informative stratum, the terms of cmi_from_counts in its order: S(t, code, S),
        # S(S), S(t, S), S(code, S), each stratum's cells added in cmi_from_counts's order
        per = np.zeros((4, NS))
        per[0, live] = _row_sums(tab[c].T)
        per[1, live] = tab[t0 + t1]
        per[2, live] = tab[t0] + tab[t1]
        per[3, live] = _row_sums(tab[c[0::2] + c[1::2]].T)
        s = [np.add.reduceat(p, off) for p in per]
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
