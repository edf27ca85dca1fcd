"""The compiled kernels of :class:`camcf.engine.compiled.CompiledEngine` (numba, compiled on
first use and cached on disk).

Every pool column (feature or label-category indicator) is kept *by exception*: its most
frequent code is recoded 0 and not stored; the other rows are stored grouped by recoded value
(1..K−1), rows ascending within a value (:func:`build_pool`), and as bit sets, one per value
(:func:`build_bits`). A conditioning set S splits the rows into strata; a session keeps each
row's stratum and each stratum's 64-bit hash of its values on S (Σ_j a_j·x_j mod 2^64 with a
random odd a_j per column; two different strata share a hash with probability about 2^-63)
in a hash table, so that adding or removing a column moves only that column's exceptions, each
to the stratum of its hash ± a_j·x_j (:func:`move`).

With ``tab[c] = c·log2(c)``, a stratum s with N rows of which N1 have t = 1 carries
``n·H(t|s) = A_s = tab[N] − tab[N1] − tab[N − N1]``, and

    n · I(t; V | S) = Σ_s (A_s − Σ_v A_{s,v})

where only strata in which V takes a value other than its mode contribute (elsewhere the sum
over v is A_s itself), and strata in which t is constant contribute 0. So a test costs the
exceptions of V, not n (:func:`values`; with few strata, the bit sets of V's values ANDed with
those of the strata, when cheaper), and the leave-one-out test I(t; X_f | S − f) of a member
f costs f's exceptions (:func:`without`). Each stratum's term is ≥ 0 and is summed plainly:
its own rounding (a difference of c·log2 c values) is larger than the sum's."""

from __future__ import annotations

import numpy as np
from numba import njit

_JIT = dict(cache=True, nogil=True)
_EMPTY = np.int32(-1)


@njit(**_JIT)
def xlogx(n):
    """``c·log2(c)`` for c = 0..n."""
    out = np.zeros(n + 1)
    for c in range(2, n + 1):
        out[c] = c * np.log2(c)
    return out


# -- the pool, by exception ------------------------------------------------------------------
@njit(**_JIT)
def _number(counts, code_of):
    """Number the codes counted in ``counts`` in ``code_of``: the mode (the smallest most
    frequent code) 0, the others that occur 1..K−1 ascending. Returns (K, the mode)."""
    mode = 0
    for c in range(counts.size):
        if counts[c] > counts[mode]:
            mode = c
    k = 1
    for c in range(counts.size):
        if c != mode and counts[c] > 0:
            code_of[c] = k
            k += 1
        else:
            code_of[c] = 0
    return k, mode


@njit(**_JIT)
def _recode(col, counts, code_of):
    """Count ``col``'s codes into ``counts`` (zeroed) and :func:`_number` them. Returns
    (K, exceptions)."""
    for i in range(col.size):
        counts[col[i]] += 1
    k, mode = _number(counts, code_of)
    return k, col.size - counts[mode]


@njit(**_JIT)
def _fill(col, counts, code_of, k, rows, vals, at, where):
    """Write the exceptions among ``col``'s entries from ``at``: by recoded value, rows
    ascending. ``where``: the row of each entry (rows ascending; empty: entry i is row i)."""
    begin = np.zeros(k + 1, dtype=np.int64)  # where value v's rows start, from begin[1] = 0
    for c in range(counts.size):
        if code_of[c] > 0:
            begin[code_of[c] + 1] = counts[c]
    for v in range(2, k + 1):
        begin[v] += begin[v - 1]
    for i in range(col.size):
        v = code_of[col[i]]
        if v > 0:
            e = at + begin[v]
            rows[e] = where[i] if where.size else i
            vals[e] = v
            begin[v] += 1


@njit(**_JIT)
def _scatter(indptr, indices, data, j, out):
    """Sparse column j of a CSC matrix into the dense ``out``."""
    out[:] = 0
    for e in range(indptr[j], indptr[j + 1]):
        out[indices[e]] = data[e]
    return out


@njit(**_JIT)
def _dense_part(A, top, j0, sizes, card, ptr, rows, vals, fill):
    """Pool columns j0… from the dense codes A (n × k): each column's number of values and
    exceptions (``card``, ``sizes``), or with ``fill`` its exceptions from ``ptr[j]`` on."""
    counts, code_of = np.zeros(top + 1, np.int64), np.zeros(top + 1, np.int64)
    dense = np.empty(0, dtype=np.int64)
    for j in range(A.shape[1]):
        counts[:] = 0
        k, nnz = _recode(A[:, j], counts, code_of)
        if fill:
            _fill(A[:, j], counts, code_of, k, rows, vals, ptr[j0 + j], dense)
        else:
            sizes[j0 + j], card[j0 + j] = nnz, k


@njit(**_JIT)
def _csc_part(indptr, indices, data, n, top, j0, sizes, card, ptr, rows, vals, fill):
    """:func:`_dense_part` for a CSC matrix (canonical: rows ascending, no duplicates). A column
    whose mode is 0 (most sparse columns) is read from its stored entries alone; another is
    made dense first."""
    counts, code_of = np.zeros(top + 1, np.int64), np.zeros(top + 1, np.int64)
    col, dense = np.empty(n, dtype=data.dtype), np.empty(0, dtype=indices.dtype)
    for j in range(indptr.size - 1):
        a, b = indptr[j], indptr[j + 1]
        counts[:] = 0
        counts[0] = n - (b - a)
        for e in range(a, b):
            counts[data[e]] += 1
        k, mode = _number(counts, code_of)
        if not fill:
            sizes[j0 + j], card[j0 + j] = n - counts[mode], k
        elif mode == 0:
            _fill(data[a:b], counts, code_of, k, rows, vals, ptr[j0 + j], indices[a:b])
        else:
            _fill(_scatter(indptr, indices, data, j, col), counts, code_of, k, rows, vals,
                  ptr[j0 + j], dense)


def build_pool(parts: list, n: int) -> tuple[np.ndarray, ...]:
    """(ptr, rows, vals, card) of the columns of ``parts`` in order: each part a dense
    array of small non-negative integer codes (n × k) or a canonical ``(indptr, indices,
    data)`` CSC triple. Column j's exceptions are ``rows[ptr[j]:ptr[j + 1]]`` with recoded
    values ``vals[…]`` (uint8 when every column has at most 256 values, else int32); ``card``
    holds each column's number of distinct values."""
    tops = [int((p[2] if isinstance(p, tuple) else p).max(initial=0)) for p in parts]
    widths = [p[0].size - 1 if isinstance(p, tuple) else p.shape[1] for p in parts]
    sizes, card = np.zeros(sum(widths), np.int64), np.zeros(sum(widths), np.int64)
    ptr, rows, vals = np.zeros(1, np.int64), np.empty(0, np.int32), np.empty(0, np.uint8)
    for fill in (False, True):  # the sizes, then the exceptions
        if fill:
            ptr = np.zeros(sizes.size + 1, dtype=np.int64)
            np.cumsum(sizes, out=ptr[1:])
            rows = np.empty(int(ptr[-1]), dtype=np.int32)
            vals = np.empty(rows.size, dtype=np.uint8 if card.max(initial=1) <= 256 else np.int32)
        j0 = 0
        for part, top, width in zip(parts, tops, widths, strict=True):
            if isinstance(part, tuple):
                _csc_part(*part, n, top, j0, sizes, card, ptr, rows, vals, fill)
            else:
                _dense_part(part, top, j0, sizes, card, ptr, rows, vals, fill)
            j0 += width
    return ptr, rows, vals, card


# -- unconditional tables ------------------------------------------------------------------
@njit(**_JIT)
def _by_row(ptr, rows, vals, lo, hi, n):
    """The exceptions of columns lo..hi − 1 row by row: (row pointers, column − lo, value)."""
    rptr = np.zeros(n + 1, dtype=np.int64)
    for e in range(ptr[lo], ptr[hi]):
        rptr[rows[e] + 1] += 1
    for i in range(n):
        rptr[i + 1] += rptr[i]
    fill = rptr[:-1].copy()
    col = np.empty(ptr[hi] - ptr[lo], dtype=np.int32)
    val = np.empty(ptr[hi] - ptr[lo], dtype=np.int32)
    for j in range(lo, hi):
        for e in range(ptr[j], ptr[j + 1]):
            i = rows[e]
            col[fill[i]] = j - lo
            val[fill[i]] = vals[e]
            fill[i] += 1
    return rptr, col, val


@njit(**_JIT)
def build_bits(ptr, rows, vals, card, n):
    """Each column's rows at each of its values but the mode, as bit sets: (``coff``, where
    column j's values 1..K−1 start, and ``bits``, one row of ⌈n/64⌉ words a (column, value))."""
    m = card.size
    coff = np.zeros(m + 1, dtype=np.int64)
    for j in range(m):
        coff[j + 1] = coff[j] + card[j] - 1
    bits = np.zeros((coff[m], (n + 63) >> 6), dtype=np.uint64)
    for j in range(m):
        for e in range(ptr[j], ptr[j + 1]):
            i = rows[e]
            bits[coff[j] + vals[e] - 1, i >> 6] |= np.uint64(1) << np.uint64(i & 63)
    return coff, bits


@njit(inline="always")
def _popcount(x):
    x = x - ((x >> np.uint64(1)) & np.uint64(0x5555555555555555))
    x = (x & np.uint64(0x3333333333333333)) + ((x >> np.uint64(2)) & np.uint64(0x3333333333333333))
    x = (x + (x >> np.uint64(4))) & np.uint64(0x0F0F0F0F0F0F0F0F)
    return (x * np.uint64(0x0101010101010101)) >> np.uint64(56)


@njit(**_JIT)
def _and_count(bits, a, b):
    """Rows in both bit sets ``bits[a]`` and ``bits[b]``."""
    k = np.uint64(0)
    for w in range(bits.shape[1]):
        k += _popcount(bits[a, w] & bits[b, w])
    return np.int64(k)


@njit(**_JIT)
def mi_block(ptr, rows, vals, card, coff, bits, a_lo, a_hi, b_lo, b_hi, n, tab, by_bits):
    """I(V_a; V_b) in bits for the columns a of a_lo..a_hi − 1 (rows of the result) and b of
    b_lo..b_hi − 1 (columns, at most two values each: categories). The counts of (value of a,
    b's exception) come from a join of the two blocks' exceptions row by row, or (``by_bits``:
    dense columns) from the bit sets of :func:`build_bits`, one AND and popcount a word."""
    na, nb = a_hi - a_lo, b_hi - b_lo
    off = np.zeros(na + 1, dtype=np.int64)
    for a in range(na):
        off[a + 1] = off[a] + card[a_lo + a] - 1
    joint = np.zeros((off[na], nb), dtype=np.int64)
    if by_bits:
        for a in range(na):
            for v in range(card[a_lo + a] - 1):
                for b in range(nb):
                    if card[b_lo + b] > 1:
                        joint[off[a] + v, b] = _and_count(bits, coff[a_lo + a] + v,
                                                          coff[b_lo + b])
    else:
        arp, acol, aval = _by_row(ptr, rows, vals, a_lo, a_hi, n)
        brp, bcol, _ = _by_row(ptr, rows, vals, b_lo, b_hi, n)
        for i in range(n):
            for p in range(arp[i], arp[i + 1]):
                r = off[acol[p]] + aval[p] - 1
                for q in range(brp[i], brp[i + 1]):
                    joint[r, bcol[q]] += 1
    out = np.empty((na, nb))
    for a in range(na):
        j = a_lo + a
        nv = np.zeros(card[j], dtype=np.int64)
        for e in range(ptr[j], ptr[j + 1]):
            nv[vals[e]] += 1
        nv[0] = n - (ptr[j + 1] - ptr[j])
        for b in range(nb):
            n1 = ptr[b_lo + b + 1] - ptr[b_lo + b]
            both = 0
            inner = 0.0
            for v in range(1, card[j]):
                c1 = joint[off[a] + v - 1, b]
                both += c1
                inner += tab[nv[v]] - tab[c1] - tab[nv[v] - c1]
            c1 = n1 - both
            inner += tab[nv[0]] - tab[c1] - tab[nv[0] - c1]
            out[a, b] = ((tab[n] - tab[n1] - tab[n - n1]) - inner) / n
    return out


# -- sessions: a target and a conditioning set -------------------------------------------------
# A session's state: ``zt[i] = 2·stratum + t_i`` per row; per stratum s its hash ``skey[s]`` and
# its rows by t, ``sc[2s]`` (t = 0) and ``sc[2s + 1]`` (t = 1); ``slots`` a hash table of the
# strata (linear probing, at most half full, index = the hash's top bits); ``used`` = [stratum
# ids given out, strata occupied, ids on the ``free`` stack]: a stratum that empties leaves the
# table and its id is given out again. Work space: ``wc``, ``tc`` (2 per stratum), ``acc`` and
# ``dest`` (1 per stratum), all zero (dest −1) between calls; ``seen``, ``touched`` (1 per row).
@njit(**_JIT)
def _find_or_add(key, skey, sc, slots, shift, used, free):
    """The stratum with hash ``key``; a new, empty one if there is none."""
    mask = slots.size - 1
    i = np.int64(key >> shift)
    while True:
        s = slots[i]
        if s < 0:
            if used[2] > 0:
                used[2] -= 1
                s = free[used[2]]
            else:
                s = used[0]
                used[0] += 1
            skey[s] = key
            sc[2 * s] = 0
            sc[2 * s + 1] = 0
            slots[i] = s
            return s
        if skey[s] == key:
            return s
        i = (i + 1) & mask


@njit(**_JIT)
def _drop(s, skey, slots, shift, used, free):
    """Take the (empty) stratum s out of the hash table (moving later entries of its probe run
    back, as deletion from linear probing needs) and put its id on the free stack."""
    mask = slots.size - 1
    i = np.int64(skey[s] >> shift)
    while slots[i] != s:
        i = (i + 1) & mask
    j = i
    while True:
        slots[i] = _EMPTY
        while True:
            j = (j + 1) & mask
            g = slots[j]
            if g < 0:
                free[used[2]] = s
                used[2] += 1
                return
            home = np.int64(skey[g] >> shift)
            # the entry at j stays when its home lies cyclically in (i, j]
            if (home > i and home <= j) if i <= j else (home > i or home <= j):
                continue
            break
        slots[i] = slots[j]
        i = j


@njit(**_JIT)
def start(t_rows, n, zt, skey, sc, slots, shift, used, free):
    """A session for the empty set: t = 1 on ``t_rows``, every row in stratum 0 (hash 0)."""
    zt[:] = 0
    for i in t_rows:
        zt[i] = 1
    slots[:] = _EMPTY
    used[0] = 0
    used[2] = 0
    s = _find_or_add(np.uint64(0), skey, sc, slots, shift, used, free)
    sc[2 * s] = n - t_rows.size
    sc[2 * s + 1] = t_rows.size
    used[1] = 1 if n else 0


@njit(**_JIT)
def move(ptr, rows, vals, j, a, add, zt, skey, sc, slots, shift, used, free, dest, seen):
    """Add column j (hash multiplier ``a``) to the set, or remove it: its exceptions move, a
    value at a time, from their stratum s to the stratum of hash skey[s] ± a·v (found once
    per s and v); the strata left empty are dropped."""
    e, b = ptr[j], ptr[j + 1]
    while e < b:
        v = vals[e]
        d = a * np.uint64(v)
        g = 0
        while e < b and vals[e] == v:
            x = zt[rows[e]]
            s = x >> 1
            to = dest[s]
            if to < 0:
                to = _find_or_add(skey[s] + d if add else skey[s] - d, skey, sc, slots, shift,
                                  used, free)
                dest[s] = to
                seen[g] = s
                g += 1
            sc[x] -= 1
            y = 2 * to + (x & 1)
            if sc[2 * to] + sc[2 * to + 1] == 0:
                used[1] += 1
            sc[y] += 1
            zt[rows[e]] = y
            e += 1
        for q in range(g):
            s = seen[q]
            dest[s] = -1
            if sc[2 * s] + sc[2 * s + 1] == 0:
                used[1] -= 1
                _drop(s, skey, slots, shift, used, free)


@njit(**_JIT)
def move_all(ptr, rows, vals, cols, mult, zt, skey, sc, slots, shift, used, free, dest, seen):
    """:func:`move` adding each column of ``cols`` in turn."""
    for j in cols:
        move(ptr, rows, vals, j, mult[j], True, zt, skey, sc, slots, shift, used, free, dest, seen)


@njit(**_JIT)
def _t2(tab, c0, c1):
    """(c0 + c1)·H(t) in bits of c0 rows with t = 0 and c1 with t = 1."""
    return tab[c0 + c1] - tab[c0] - tab[c1]


# ns per exception a column's count by rows costs (few strata), per row of building the strata's
# bit sets, and per word of two bit sets ANDed and counted (benchmarks/bench_kernels.py): a
# call counts its columns by bit sets when that is cheaper
_ROW_NS, _BUILD_NS, _WORD_NS = 2.0, 2.0, 0.17


@njit(inline="always")
def _term_less(tab, sc, s, acc, tc, q):
    """Stratum s's term less its column's (each value's in ``acc[q]``, their rows by t in
    ``tc``; the mode's: the rest), with ``acc[q]`` and ``tc`` at q set back to zero."""
    n0, n1 = sc[2 * s], sc[2 * s + 1]
    x = _t2(tab, n0, n1) - acc[q] - _t2(tab, n0 - tc[2 * q], n1 - tc[2 * q + 1])
    tc[2 * q] = 0
    tc[2 * q + 1] = 0
    acc[q] = 0.0
    return x


@njit(inline="always")
def _count_rows(rows, e, b, zt, sc, wc, seen):
    """Count the rows ``rows[e:b]`` by (stratum, t) into ``wc``, the strata met listed in
    ``seen`` (returns how many); a stratum in which t is constant is passed over (its term
    is 0)."""
    g = 0
    for q in range(e, b):
        x = zt[rows[q]]
        s = x >> 1
        if sc[2 * s] == 0 or sc[2 * s + 1] == 0:
            continue
        if wc[2 * s] + wc[2 * s + 1] == 0:
            seen[g] = s
            g += 1
        wc[x] += 1
    return g


@njit(inline="always")
def _and_count2(x, a, y, b):
    """Rows in both bit sets ``x[a]`` and ``y[b]``."""
    k = np.uint64(0)
    for w in range(x.shape[1]):
        k += _popcount(x[a, w] & y[b, w])
    return np.int64(k)


@njit(**_JIT)
def values(ptr, rows, vals, card, coff, bits, cols, stop, zt, sc, used, tab, n, out, wc, tc,
           acc, dest, seen, touched, sb, occ):
    """I(t; V_j | S) in bits into ``out`` for the columns ``cols`` in turn; the columns after
    the first whose value rounded to 12 decimals exceeds ``stop`` (``np.inf``: none) are left
    out. Returns how many were measured.

    A column is counted row by row over its exceptions, or — when S has few strata (at most
    ``sb.shape[0] // 2``) and that is cheaper — from bit sets: the rows of each (stratum, t)
    (``sb``, built once per call; ``occ`` lists its strata) ANDed with the column's rows at
    each value (``bits``)."""
    if cols.size == 0:
        return 0
    words = bits.shape[1]
    by_bits = False
    if used[1] <= sb.shape[0] // 2:  # few strata: bit sets if the whole call is cheaper so
        by_rows = by_words = 0.0
        for j in cols:
            by_rows += (ptr[j + 1] - ptr[j]) * _ROW_NS
            by_words += (card[j] - 1) * 2 * used[1] * words * _WORD_NS
        by_bits = n * _BUILD_NS + by_words < by_rows
    nocc = -1  # how many strata ``occ`` lists, once the bit sets are built
    for ci in range(cols.size):
        j = cols[ci]
        e, b = ptr[j], ptr[j + 1]
        total = 0.0
        if by_bits and e < b:
            if nocc < 0:  # the rows of each (stratum, t) as bit sets, strata numbered q
                nocc = 0
                for s in range(used[0]):
                    if sc[2 * s] + sc[2 * s + 1] > 0:
                        dest[s] = nocc
                        occ[nocc] = s
                        nocc += 1
                sb[:2 * nocc] = 0
                for i in range(n):
                    x = zt[i]
                    sb[2 * dest[x >> 1] + (x & 1), i >> 6] |= np.uint64(1) << np.uint64(i & 63)
            for v in range(card[j] - 1):
                c = coff[j] + v
                for q in range(nocc):
                    c0 = _and_count2(bits, c, sb, 2 * q)
                    c1 = _and_count2(bits, c, sb, 2 * q + 1)
                    if c0 + c1 > 0:
                        acc[q] += _t2(tab, c0, c1)
                        tc[2 * q] += c0
                        tc[2 * q + 1] += c1
            for q in range(nocc):
                if tc[2 * q] + tc[2 * q + 1] > 0:
                    total += _term_less(tab, sc, occ[q], acc, tc, q)
        elif e < b and vals[e] == vals[b - 1]:  # one value besides the mode
            g = _count_rows(rows, e, b, zt, sc, wc, seen)
            for q in range(g):
                s = seen[q]
                c0, c1 = wc[2 * s], wc[2 * s + 1]
                n0, n1 = sc[2 * s], sc[2 * s + 1]
                total += _t2(tab, n0, n1) - _t2(tab, c0, c1) - _t2(tab, n0 - c0, n1 - c1)
                wc[2 * s] = 0
                wc[2 * s + 1] = 0
        else:  # a value at a time: its counts per stratum, then its term
            k = 0
            while e < b:
                end = e
                while end < b and vals[end] == vals[e]:
                    end += 1
                g = _count_rows(rows, e, end, zt, sc, wc, seen)
                e = end
                for q in range(g):
                    s = seen[q]
                    if tc[2 * s] + tc[2 * s + 1] == 0:
                        touched[k] = s
                        k += 1
                    acc[s] += _t2(tab, wc[2 * s], wc[2 * s + 1])
                    tc[2 * s] += wc[2 * s]
                    tc[2 * s + 1] += wc[2 * s + 1]
                    wc[2 * s] = 0
                    wc[2 * s + 1] = 0
            for q in range(k):
                total += _term_less(tab, sc, touched[q], acc, tc, touched[q])
        out[ci] = total / n
        if np.rint(out[ci] * 1e12) / 1e12 > stop:
            break
    for q in range(max(nocc, 0)):
        dest[occ[q]] = -1
    return ci + 1


@njit(**_JIT)
def values_moved(ptr, rows, vals, card, coff, bits, j, a, add, cols, zt, skey, sc, slots, shift,
                 used, free, tab, n, out, wc, tc, acc, dest, seen, touched, sb, occ):
    """:func:`values` of ``cols`` given S with column j added (``add``) or removed, then S as
    it was; returns the strata of the set they were measured given."""
    move(ptr, rows, vals, j, a, add, zt, skey, sc, slots, shift, used, free, dest, seen)
    strata = used[1]
    values(ptr, rows, vals, card, coff, bits, cols, np.inf, zt, sc, used, tab, n, out, wc, tc, acc,
           dest, seen, touched, sb, occ)
    move(ptr, rows, vals, j, a, not add, zt, skey, sc, slots, shift, used, free, dest, seen)
    return strata


@njit(**_JIT)
def without(ptr, rows, vals, f, a, zt, skey, sc, slots, shift, used, free, tab, n, wc, tc, acc,
            seen, touched, dest, remove):
    """(I(t; X_f | S − f) in bits, strata of S − f) for a member f of S (multiplier ``a``);
    with ``remove``, f is then removed from S.

    A stratum of S − f is a stratum of S where f is at its mode (hash h) merged with those
    where f = v ≠ 0 (hash h + a·v): whole strata of S, found from f's exceptions (a stratum of
    S − f that S lacks is counted in an empty stratum of its own, dropped again unless f is
    removed: then f's exceptions move into the strata found, and theirs, left empty, go)."""
    nv = 0
    k = 0
    for e in range(ptr[f], ptr[f + 1]):
        s = zt[rows[e]] >> 1
        if wc[2 * s] != 0:
            continue
        wc[2 * s] = 1  # (a mark)
        seen[nv] = s
        nv += 1
        g = _find_or_add(skey[s] - a * np.uint64(vals[e]), skey, sc, slots, shift, used, free)
        dest[s] = g
        if tc[2 * g] + tc[2 * g + 1] == 0:
            touched[k] = g
            k += 1
        tc[2 * g] += sc[2 * s]
        tc[2 * g + 1] += sc[2 * s + 1]
        acc[g] += _t2(tab, sc[2 * s], sc[2 * s + 1])
    total = 0.0
    empty = 0
    for q in range(k):
        g = touched[q]
        c0, c1 = sc[2 * g], sc[2 * g + 1]
        total += _t2(tab, c0 + tc[2 * g], c1 + tc[2 * g + 1]) - (acc[g] + _t2(tab, c0, c1))
        tc[2 * g] = 0
        tc[2 * g + 1] = 0
        acc[g] = 0.0
        if c0 + c1 == 0:
            empty += 1
            if not remove:
                _drop(g, skey, slots, shift, used, free)
    strata = used[1] - nv + empty
    if remove:  # every row of a stratum met holds f = v: each moves to its stratum of S − f
        for e in range(ptr[f], ptr[f + 1]):
            x = zt[rows[e]]
            g = dest[x >> 1]
            sc[x] -= 1
            y = 2 * g + (x & 1)
            sc[y] += 1
            zt[rows[e]] = y
        for q in range(nv):
            _drop(seen[q], skey, slots, shift, used, free)
        used[1] = strata
    for q in range(nv):
        wc[2 * seen[q]] = 0
        dest[seen[q]] = -1
    return total / n, strata


@njit(**_JIT)
def without_each(ptr, rows, vals, fs, mult, zt, skey, sc, slots, shift, used, free, tab, n, wc,
                 tc, acc, dest, seen, touched, out, strata):
    """For each member f of ``fs`` in turn: :func:`without` (into ``out`` and ``strata``), then
    f removed from the set."""
    for k in range(fs.size):
        f = fs[k]
        out[k], strata[k] = without(ptr, rows, vals, f, mult[f], zt, skey, sc, slots, shift, used,
                                    free, tab, n, wc, tc, acc, seen, touched, dest, True)


@njit(**_JIT)
def regrow(zt, skey, sc, used, nskey, nsc, nslots, nshift, nused, nfree):
    """Copy the strata into new (larger) arrays, renumbered in order of their ids, and
    renumber the rows."""
    new = np.full(used[0], _EMPTY, dtype=np.int32)
    nslots[:] = _EMPTY
    nused[:] = 0
    for s in range(used[0]):
        if sc[2 * s] + sc[2 * s + 1] > 0:
            g = _find_or_add(skey[s], nskey, nsc, nslots, nshift, nused, nfree)
            nsc[2 * g] = sc[2 * s]
            nsc[2 * g + 1] = sc[2 * s + 1]
            new[s] = g
    nused[1] = nused[0]
    for i in range(zt.size):
        zt[i] = 2 * new[zt[i] >> 1] + (zt[i] & 1)


@njit(**_JIT)
def strata_of(ptr, rows, vals, cols, mult, n):
    """The number of strata of the set ``cols`` (distinct hashes of the rows)."""
    h = np.zeros(n, dtype=np.uint64)
    for c in cols:
        for e in range(ptr[c], ptr[c + 1]):
            h[rows[e]] += mult[c] * np.uint64(vals[e])
    if n == 0:
        return 0
    h.sort()
    k = 1
    for i in range(1, n):
        k += h[i] != h[i - 1]
    return k
