"""The decision record: every test Ca-MCF performs, as data.

A row says which phase and step asked, for which target category, which quantity was computed
between which two variables given which conditioning set, its value (bits), the threshold it was
compared with, and the decision taken. Rows are stored column-wise (numpy arrays) because a run
on a wide data set performs hundreds of thousands of tests; :class:`Test` is the frozen,
row-wise view of one of them.

Variables are *pool indices*: ``0..m−1`` are features, ``m..m+C−1`` are label categories in
flattened order, and ``TARGET`` (−1) stands for the target category itself.

Trace levels (:data:`TRACE_LEVELS`) say how much is kept; the tests and decisions are the same at
every level, and every level counts the tests of each step:

* ``"full"``: every test (the explorer's record);
* ``"decisions"``: only the tests whose decision changed a set (:data:`DECISION_ROWS`: a category
  accepted into R, a candidate cut by k1, a feature removed by backward elimination (or kept
  there because its test was untrusted, :func:`camcf.run`'s ``adequacy``), a spouse
  found, a feature recovered, a feature cut by k2 or removed by symmetry or redundancy); each row
  keeps its position ``seq`` in the full sequence;
* ``"counters"``: no rows, only the number of tests per step.

Conditioning sets are interned per target (:class:`CondSets`) as int32 arrays keyed by their
bytes, each with the number of strata it has in the data (:attr:`CondSetList.strata`, asked of
the engine once per distinct set), and frozen into one :class:`CondSetList` (flat values and
offsets): no Python tuple per set.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass

import numpy as np

TARGET = -1

# step name -> (phase, quantity, what the value is compared with)
STEPS: dict[str, tuple[int, str, str]] = {
    "label-mi": (1, "DCSMI", "I(t; C') > δ2 makes C' a skeleton candidate"),
    "label-cmi": (1, "DCSMI", "I(t; C' | accepted) > δ2 accepts C' into R"),
    "feature-mi": (2, "SCSMI", "s_f = I(t; X_f) > δ1 makes f a candidate; the first ⌈k1·n⌉ stay"),
    "backward": (2, "SCSMI", "I(t; X_f | PC−f ∪ R) ≤ δ1 removes f from PC (unless the test is "
                             "untrusted: fewer than h rows per cell)"),
    "spouse-screen": (2, "SCSMI", "I(t; X_z | R) ≤ δ1 lets z be tested as a spouse"),
    "spouse": (2, "SCSMI", "I(t; X_z | X_x ∪ R) > δ1 makes z a spouse induced by x"),
    "recovery-skip": (3, "SCSMI", "s_f < δ1/2: f is not tried for recovery"),
    "blocker": (3, "DCSMI", "I(t; r | S_base): the blocker's strength"),
    "recovery": (3, "SCSMI", "I(t; X_f | S_base) > I(t; r | S_base) recovers f, consuming r"),
    "k2-cut": (4, "SCSMI", "rank of s_f within the blanket; the first ⌈k2·|CMB|⌉ stay"),
    "symmetry": (4, "SCSMI", "s_f ≤ δ1 removes f"),
    "redundancy": (4, "SCSMI", "I(X_f; C_d) > γ·s_f removes f (another label explains it)"),
}
STEP_NAMES = list(STEPS)
STEP_CODE = {s: i for i, s in enumerate(STEP_NAMES)}

DECISIONS = [
    "candidate", "not-candidate",  # label-mi
    "accepted", "rejected",  # label-cmi
    "kept", "cut-k1", "below-delta1",  # feature-mi
    "stays", "removed",  # backward, symmetry
    "tested", "not-tested",  # spouse-screen
    "spouse", "not-spouse",  # spouse
    "skipped",  # recovery-skip
    "measured",  # blocker
    "recovered", "lost",  # recovery
    "cut-k2",  # k2-cut ("kept" too)
    "dominates", "does-not-dominate",  # redundancy
    "untrusted",  # backward: too few rows per cell for the test (the adequacy rule); f stays
]
DECISION_CODE = {d: i for i, d in enumerate(DECISIONS)}

TRACE_LEVELS = ("full", "decisions", "counters")
# step -> the decisions kept at level "decisions" (those that change a set)
DECISION_ROWS: dict[str, frozenset[str]] = {
    "label-cmi": frozenset({"accepted"}),
    "feature-mi": frozenset({"cut-k1"}),
    "backward": frozenset({"removed", "untrusted"}),
    "spouse": frozenset({"spouse"}),
    "recovery": frozenset({"recovered"}),
    "k2-cut": frozenset({"cut-k2"}),
    "symmetry": frozenset({"removed"}),
    "redundancy": frozenset({"dominates"}),
}

# _KEEP[step code, decision code]: the row is kept at level "decisions"
_KEEP = np.zeros((len(STEP_NAMES), len(DECISIONS)), dtype=bool)
for _step, _kept in DECISION_ROWS.items():
    for _d in _kept:
        _KEEP[STEP_CODE[_step], DECISION_CODE[_d]] = True
del _step, _kept, _d
_KEEP_ANY = _KEEP.any(axis=1).tolist()  # per step: does level "decisions" keep any row?
# per step: the one decision code level "decisions" keeps, if it keeps exactly one
_KEEP_ONE = [int(np.flatnonzero(row)[0]) if row.sum() == 1 else None for row in _KEEP]


#: steps whose row decides about ``a`` (the feature a redundancy test may remove; ``b`` is the
#: category tested against it); every other step decides about ``b``
SUBJECT_IS_A = frozenset({"redundancy"})


def subject_of(step: str, a: int, b: int) -> int:
    """Pool index of the variable a record row decides about (see :data:`SUBJECT_IS_A`)."""
    return a if step in SUBJECT_IS_A else b


def decide(mask, yes: str, no: str) -> np.ndarray:
    """Decision codes (int8) for :meth:`TraceBuilder.add`: ``yes`` where ``mask``, else ``no``."""
    y, n = DECISION_CODE[yes], DECISION_CODE[no]
    return np.asarray(mask, dtype=bool).view(np.int8) * np.int8(y - n) + np.int8(n)


_COLUMNS = ("seq", "step", "a", "b", "cond", "value", "threshold", "decision", "aux")
_DTYPES = (np.int32, np.int8, np.int32, np.int32, np.int32, np.float64, np.float64, np.int8,
           np.int32)


@dataclass(frozen=True)
class Test:
    """One decision. ``a``/``b``/``aux`` are pool indices (−1 = the target category).

    ``n``, ``g``, ``df``, ``p_value`` and ``log10_p`` are the significance of the value as a
    G statistic (:mod:`camcf.significance`, :meth:`camcf.Result.record_table` states the rule);
    they have defaults so that a Test can be built without them (then unknown: −1 / NaN).
    """

    seq: int
    phase: int
    step: str
    quantity: str
    target: int
    a: int
    b: int
    cond: tuple[int, ...]
    value: float
    threshold: float
    decision: str
    aux: int
    n: int = -1
    g: float = float("nan")
    df: int = -1
    p_value: float = float("nan")
    log10_p: float = float("nan")


_FEW_ROWS = 16  # rows of one add() kept as tuples rather than as a chunk of arrays


def _few(x, idx, sel, n_out: int) -> list:
    """Rows ``idx`` (``sel``, or all when None) of an argument of :meth:`TraceBuilder.add`
    (a scalar or a sequence of one value per row), as a list."""
    if isinstance(x, np.ndarray):
        if x.ndim == 0:
            return [x[()]] * n_out
        return (x if sel is None else x[sel]).tolist()
    if isinstance(x, list | tuple):
        return [x[i] for i in idx]
    return [x] * n_out


_FILLED: dict[tuple, np.ndarray] = {}  # (dtype, value) -> a read-only array of that value
_FILLED_MOST = 256  # values kept, at most
_FILLED_ROWS = 1 << 12  # rows of a column made from the kept arrays, at most


def _filled(x, n: int, dtype) -> np.ndarray:
    """``n`` copies of the integer ``x`` as ``dtype``: a read-only view of a kept array for a
    short column (a chunk's column is copied when the record is frozen), else a new one."""
    if n > _FILLED_ROWS:
        return np.full(n, x, dtype=dtype)
    key = (dtype, int(x))
    arr = _FILLED.get(key)
    if arr is None:
        if len(_FILLED) >= _FILLED_MOST:
            return np.full(n, x, dtype=dtype)
        arr = np.full(_FILLED_ROWS, x, dtype=dtype)
        arr.flags.writeable = False
        _FILLED[key] = arr
    return arr[:n]


def _column(x, dtype, n_out: int, sel: np.ndarray | None) -> np.ndarray:
    """A record column of ``n_out`` rows from ``x``: a scalar repeated, or an array's rows
    ``sel`` (None: all of them)."""
    if type(x) is int and dtype is not np.float64:
        return _filled(x, n_out, dtype)
    arr = np.asarray(x)
    if arr.ndim == 0:
        return np.full(n_out, arr, dtype=dtype)
    if sel is not None:
        arr = arr[sel]
    return arr.astype(dtype, copy=False)


class TraceBuilder:
    """Collects one target's rows in bulk, then freezes them into column arrays.

    ``level`` is one of :data:`TRACE_LEVELS`; :attr:`counts` (tests per step) is kept at every
    level. A ``cond`` may be given as a zero-argument callable: it is called only when the row
    is kept, so that a level without rows never materialises a conditioning set.

    ``strata`` (the engine's :meth:`~camcf.engine.Engine.strata`) gives the number of strata of a
    conditioning set the first time the set is interned; a row may bring its own (an int or a
    zero-argument callable, e.g. a leave-one-out session's), used the same way.
    """

    def __init__(self, cond_sets: CondSets, level: str = "full",
                 strata: Callable[[np.ndarray], int] | None = None) -> None:
        # chunks of column arrays, and lists of single rows (made arrays at freeze, at once)
        self._chunks: list[tuple | list] = []
        self._rows: list[tuple] = []  # single rows since the last chunk
        self._conds = cond_sets
        self._strata = strata
        self.level = level
        self.n = 0  # tests so far (the next row's seq)
        self._counts = [0] * len(STEP_NAMES)

    @property
    def counts(self) -> dict[str, int]:
        """Number of tests per step (steps with none left out), in step order."""
        return {s: c for s, c in zip(STEP_NAMES, self._counts, strict=True) if c}

    def _cond_id(self, cond, strata) -> int:
        if callable(cond):
            cond = cond()
        if strata is None:
            return self._conds.id(cond, self._strata)
        if callable(strata):  # a row's own: called without arguments
            if type(cond) is bytes and cond:
                return self._conds.id_of_bytes(cond, strata)
            return self._conds.id(cond, lambda _set: strata())
        return self._conds.id(cond, strata)

    def add_one(self, step: str, a: int, b: int, cond, value: float, threshold: float,
                decision: str, aux: int = -1, *, strata=None) -> None:
        """Add one row (cheaper than :meth:`add` for rows taken one at a time)."""
        code = STEP_CODE[step]
        seq = self.n
        self.n += 1
        self._counts[code] += 1
        if self.level != "full" and (self.level == "counters"
                                     or decision not in DECISION_ROWS.get(step, ())):
            return
        self._rows.append((seq, code, a, b, self._cond_id(cond, strata), value, threshold,
                           DECISION_CODE[decision], aux))

    def _park(self) -> None:
        """Put the single rows since the last chunk in their place among the chunks, as they
        are (:meth:`freeze` makes every parked row arrays at once)."""
        if self._rows:
            self._chunks.append(self._rows)
            self._rows = []

    def keeps(self, step: str, decision: str) -> bool:
        """Whether rows of ``step`` with ``decision`` are recorded at this level."""
        if self.level == "full":
            return True
        return self.level == "decisions" and bool(_KEEP[STEP_CODE[step], DECISION_CODE[decision]])

    def add(self, step: str, a, b, cond, value, threshold, decision, aux=-1, *, at=None,
            n: int | None = None, strata=None) -> None:
        """Add rows; every argument may be a scalar or an array of one common length.

        ``cond`` is a sequence of pool indices (the same for all rows added) and ``decision``
        a decision name, an integer array of decision codes (:func:`decide` builds one from a
        boolean mask) or an array of names.

        With ``n`` and ``at``, the call stands for ``n`` tests of which only the rows at
        positions ``at`` (ascending, in ``range(n)``) are given: the others are counted, not
        recorded. A caller uses it for rows it knows this level does not keep (:meth:`keeps`).
        """
        value = np.asarray(value, dtype=np.float64)
        if value.ndim == 0:
            value = value.reshape(1)
        k = value.size
        total = k if n is None else int(n)
        if total == 0:
            return
        code = STEP_CODE[step]
        seq0 = self.n
        self.n += total
        self._counts[code] += total
        level = self.level
        if level == "counters" or k == 0:
            return
        sel = None  # positions of the rows kept among the k given (None: all of them)
        if isinstance(decision, str):
            dcode = DECISION_CODE[decision]
            if level == "decisions" and not _KEEP[code, dcode]:
                return
            dec = None
        else:
            if level == "decisions" and not _KEEP_ANY[code]:
                return
            dec = np.asarray(decision)
            if dec.dtype.kind not in "iu":  # names → codes per distinct name, not per row
                names, inv = np.unique(dec, return_inverse=True)
                dec = np.array([DECISION_CODE[str(d)] for d in names], dtype=np.int8)[inv.ravel()]
            if dec.shape != (k,):
                dec = np.broadcast_to(dec, (k,))
            if level == "decisions":
                one = _KEEP_ONE[code]
                sel = np.flatnonzero(dec == one if one is not None else _KEEP[code][dec])
                if sel.size == 0:
                    return
                if sel.size == k:
                    sel = None
            dcode = None
        n_out = k if sel is None else sel.size
        cond_id = self._cond_id(cond, strata)
        if n_out <= _FEW_ROWS:  # a few rows: kept as tuples, made arrays in bulk (freeze)
            idx = range(k) if sel is None else sel.tolist()
            if at is None:
                seqs = [seq0 + i for i in idx]
            else:
                at_l = np.asarray(at).tolist()
                seqs = [seq0 + at_l[i] for i in idx]
            self._rows.extend(zip(
                seqs, [code] * n_out, _few(a, idx, sel, n_out), _few(b, idx, sel, n_out),
                [cond_id] * n_out, (value if sel is None else value[sel]).tolist(),
                _few(threshold, idx, sel, n_out),
                [dcode] * n_out if dec is None else _few(dec, idx, sel, n_out),
                _few(aux, idx, sel, n_out), strict=True))
            return
        seq = (np.arange(seq0, seq0 + k, dtype=np.int32) if at is None
               else np.asarray(at, dtype=np.int64) + seq0)

        def column(x, dtype):
            return _column(x, dtype, n_out, sel)

        self._park()
        self._chunks.append((
            column(seq, np.int32),
            _filled(code, n_out, np.int8),
            column(a, np.int32),
            column(b, np.int32),
            _filled(cond_id, n_out, np.int32),
            value if sel is None else value[sel],
            column(threshold, np.float64),
            _filled(dcode, n_out, np.int8) if dec is None else column(dec, np.int8),
            column(aux, np.int32),
        ))

    def add_block(self, step, a, b, conds: Sequence | Callable, which, value, threshold,
                  decision, aux=-1, *, strata: Sequence | Callable | None = None) -> None:
        """Add rows of several steps and conditioning sets at once, in the order given: the
        same rows as one :meth:`add_one` each, at a fraction of the cost.

        ``step`` and ``decision`` are arrays of step and decision codes (:data:`STEP_CODE`,
        :data:`DECISION_CODE`) or one name each; ``conds`` lists the sets the rows condition
        on (as :meth:`CondSets.id` takes them, or zero-argument callables giving one, called
        only if a row on the set is kept) and ``which`` (an integer array) each row's
        position in ``conds``; ``strata``, one entry per set of ``conds``, gives a set's
        number of strata as :meth:`add_one`'s ``strata`` does (None: the builder's).
        ``conds`` and ``strata`` may also be functions of the position, called only for a
        set that a kept row uses (``strata`` only when that set is new). The other arguments are scalars or arrays of one value per row. The
        sets are interned in the order of the first kept row on each, as row-by-row calls
        would intern them.
        """
        which = np.asarray(which, dtype=np.int64)
        k = which.size
        if k == 0:
            return
        seq0 = self.n
        self.n += k
        one_step = isinstance(step, str)
        if one_step:
            code = STEP_CODE[step]
            self._counts[code] += k
        else:
            codes = np.asarray(step, dtype=np.int8)
            for c, cnt in enumerate(np.bincount(codes, minlength=len(STEP_NAMES)).tolist()):
                self._counts[c] += cnt
        level = self.level
        if level == "counters" or (level == "decisions" and one_step and not _KEEP_ANY[code]):
            return
        if isinstance(decision, str):
            dcode = DECISION_CODE[decision]
            if level == "decisions" and one_step and not _KEEP[code, dcode]:
                return
            dec = np.full(k, dcode, dtype=np.int8)
        else:
            dec = np.asarray(decision, dtype=np.int8)
        if level == "full":
            sel = None
        elif one_step:
            sel = (np.flatnonzero(dec == _KEEP_ONE[code]) if _KEEP_ONE[code] is not None
                   else np.flatnonzero(_KEEP[code][dec]))
        else:
            sel = np.flatnonzero(_KEEP[codes, dec])
        if sel is not None and sel.size == 0:
            return
        rows = which if sel is None else which[sel]
        # intern each set at its first kept row, in row order
        ids: dict[int, int] = {}
        intern, by_bytes = self._conds.id, self._conds.id_of_bytes
        for ci in rows.tolist():
            if ci in ids:
                continue
            cond = conds(ci) if callable(conds) else conds[ci]
            if callable(cond):
                cond = cond()
            if callable(strata):  # asked only if the set is new
                ids[ci] = (by_bytes(cond, functools.partial(strata, ci))
                           if type(cond) is bytes and cond
                           else intern(cond, lambda _set, ci=ci: strata(ci)))
            elif strata is None:
                ids[ci] = intern(cond, self._strata)
            else:
                ids[ci] = self._cond_id(cond, strata[ci])
        id_of = np.zeros(max(ids) + 1, dtype=np.int32)
        id_of[list(ids)] = list(ids.values())
        if one_step:
            codes = np.int8(code)

        def column(x, dtype):
            return _column(x, dtype, k if sel is None else sel.size, sel)

        self._park()
        self._chunks.append((
            column(np.arange(seq0, seq0 + k), np.int32), column(codes, np.int8),
            column(a, np.int32), column(b, np.int32), id_of[rows],
            column(value, np.float64), column(threshold, np.float64), column(dec, np.int8),
            column(aux, np.int32),
        ))

    def freeze(self) -> dict[str, np.ndarray]:
        self._park()
        chunks = self._chunks
        if not chunks:
            return {c: np.empty(0, dtype=d) for c, d in zip(_COLUMNS, _DTYPES, strict=True)}
        parked = [ch for ch in chunks if type(ch) is list]
        if parked:  # every parked row at once: one array per column
            rows = parked[0] if len(parked) == 1 else [r for p in parked for r in p]
            made = [np.asarray(c, dtype=d)
                    for c, d in zip(zip(*rows, strict=True), _DTYPES, strict=True)]
            if len(parked) == len(chunks):  # (new arrays: no copy needed)
                return dict(zip(_COLUMNS, made, strict=True))
            at, whole = 0, []
            for ch in chunks:
                if type(ch) is list:  # its rows' slice of the made arrays
                    k = len(ch)
                    ch = tuple(col[at:at + k] for col in made)
                    at += k
                whole.append(ch)
            chunks = whole
        return {
            c: np.concatenate([ch[i] for ch in chunks]).astype(d, copy=False)
            for i, (c, d) in enumerate(zip(_COLUMNS, _DTYPES, strict=True))
        }


_EMPTY = np.empty(0, dtype=np.int32)


class CondSetList:
    """Interned conditioning sets, frozen: set ``i`` is ``values[offsets[i]:offsets[i + 1]]``
    (pool indices, int32) and has ``strata[i]`` strata in the data (−1: not known).

    A read-only sequence: ``sets[i]`` is the set as a tuple of ints, ``len(sets)``, iteration;
    :meth:`array` gives one set as an array without building a tuple.
    """

    __slots__ = ("values", "offsets", "strata")

    def __init__(self, values=None, offsets=None, strata=None) -> None:
        self.values = np.asarray(values if values is not None else [], dtype=np.int32)
        self.offsets = np.asarray(offsets if offsets is not None else [0], dtype=np.int64)
        self.strata = np.asarray(strata if strata is not None else [], dtype=np.int64)
        if self.strata.size != self.offsets.size - 1:
            raise ValueError("one strata count per set")

    @classmethod
    def of(cls, sets, strata=None) -> CondSetList:
        """From a sequence of sets (each a sequence of pool indices)."""
        arrays = [np.asarray(c, dtype=np.int32).ravel() for c in sets]
        offsets = np.zeros(len(arrays) + 1, dtype=np.int64)
        np.cumsum([a.size for a in arrays], out=offsets[1:])
        values = np.concatenate(arrays) if arrays else np.empty(0, dtype=np.int32)
        if strata is None:
            strata = [1 if a.size == 0 else -1 for a in arrays]
        return cls(values, offsets, strata)

    def __len__(self) -> int:
        return self.offsets.size - 1

    def array(self, i: int) -> np.ndarray:
        """Set ``i`` as an int32 array (a view)."""
        return self.values[self.offsets[i]:self.offsets[i + 1]]

    def __getitem__(self, i):
        if isinstance(i, slice):
            return [self[j] for j in range(*i.indices(len(self)))]
        i = int(i)
        if i < 0:
            i += len(self)
        if not 0 <= i < len(self):
            raise IndexError(f"conditioning set {i} of {len(self)}")
        return tuple(self.array(i).tolist())

    def __iter__(self) -> Iterator[tuple[int, ...]]:
        flat = self.values.tolist()
        off = self.offsets.tolist()
        for a, b in zip(off[:-1], off[1:], strict=True):
            yield tuple(flat[a:b])

    @property
    def lengths(self) -> np.ndarray:
        return np.diff(self.offsets)

    def __eq__(self, other) -> bool:
        if not isinstance(other, CondSetList):
            return NotImplemented
        return (np.array_equal(self.offsets, other.offsets)
                and np.array_equal(self.values, other.values)
                and np.array_equal(self.strata, other.strata))

    __hash__ = None  # mutable arrays inside

    def __repr__(self) -> str:
        return f"CondSetList({len(self)} sets, {self.values.size} elements)"

    def __reduce__(self):
        return (CondSetList, (self.values, self.offsets, self.strata))


class CondSets:
    """Interns conditioning sets: each distinct set (an ordered sequence of pool indices) gets
    an id, in order of first use, and its number of strata.

    One per target while it runs; :func:`camcf.run` merges the targets' sets into one run-wide
    interner in flattening order (:meth:`merge`), so ids do not depend on how the work was
    scheduled. A set is kept as int32 and found by its bytes: no Python tuple per set.
    """

    def __init__(self) -> None:
        self._ids: dict[bytes, int] = {}
        self._keys: list[bytes] = []  # each set's int32 values as bytes, in id order
        self._strata: list[int] = []

    def __len__(self) -> int:
        return len(self._keys)

    def id(self, cond, strata=None) -> int:
        """The id of ``cond`` (a sequence or array of pool indices, or the bytes of its int32
        values), added if new.

        ``strata`` is the set's number of strata: an int or a callable taking the set (an int32
        array), asked only when the set is new and not empty (the empty set has 1); None
        records −1 (not known)."""
        arr = None
        if type(cond) is bytes:
            key = cond
        else:
            if type(cond) is np.ndarray and cond.dtype == np.int32:
                arr = cond
            elif len(cond) == 0:
                arr = _EMPTY
            else:
                arr = np.asarray(cond, dtype=np.int32)
            key = arr.tobytes()
        i = self._ids.get(key)
        if i is not None:
            return i
        i = len(self._keys)
        self._ids[key] = i
        self._keys.append(key)
        if not key:
            k = 1
        elif strata is None:
            k = -1
        elif callable(strata):
            k = strata(np.frombuffer(key, dtype=np.int32) if arr is None else arr.ravel())
        else:
            k = strata
        self._strata.append(int(k))
        return i

    def id_of_bytes(self, key: bytes, strata: Callable[[], int]) -> int:
        """:meth:`id` of a non-empty set given as the bytes of its int32 values, with its
        strata from a zero-argument callable asked only when the set is new (no array is made
        for the set)."""
        i = self._ids.get(key)
        if i is None:
            i = len(self._keys)
            self._ids[key] = i
            self._keys.append(key)
            self._strata.append(int(strata()))
        return i

    def freeze(self) -> CondSetList:
        """The sets so far as a :class:`CondSetList`."""
        keys = self._keys
        offsets = np.zeros(len(keys) + 1, dtype=np.int64)
        np.cumsum(np.fromiter(map(len, keys), dtype=np.int64, count=len(keys)) // 4,
                  out=offsets[1:])
        values = np.frombuffer(bytearray().join(keys), dtype=np.int32)  # one copy, writable
        return CondSetList(values, offsets, np.asarray(self._strata, dtype=np.int64))

    @property
    def sets(self) -> CondSetList:
        return self.freeze()

    def merge(self, sets: CondSetList) -> np.ndarray:
        """The ids of another interner's frozen ``sets`` in this one (new ones added in their
        order, with their strata)."""
        ids = self._ids
        buf = np.ascontiguousarray(sets.values, dtype=np.int32).tobytes()  # keys are slices
        off = (4 * sets.offsets).tolist()
        keys = [buf[a:b] for a, b in zip(off[:-1], off[1:], strict=True)]
        out = [ids.get(key, -1) for key in keys]
        new = [j for j, i in enumerate(out) if i < 0]
        strata = sets.strata.tolist()
        added = [keys[j] for j in new]
        if len(set(added)) < len(added):  # a set listed twice: one at a time
            for j in new:
                i = ids.get(keys[j])
                if i is None:
                    i = ids[keys[j]] = len(self._keys)
                    self._keys.append(keys[j])
                    self._strata.append(strata[j])
                out[j] = i
        elif new:  # (the sets of one interner are distinct: the new ones get the next ids)
            first = len(self._keys)
            ids.update(zip(added, range(first, first + len(new)), strict=True))
            self._keys.extend(added)
            self._strata.extend(strata[j] for j in new)
            for i, j in enumerate(new, first):
                out[j] = i
        return np.array(out, dtype=np.int32)


def iter_tests(cols: dict[str, np.ndarray], target: int, cond_sets,
               significance: dict[str, np.ndarray] | None = None):
    """Yield :class:`Test` rows of one target's column arrays, in the order they were taken;
    ``significance`` (columns n, g, df, p_value, log10_p of those rows) fills the Tests'
    significance fields."""
    seqs = cols["seq"] if "seq" in cols else np.arange(cols["step"].size)
    sig = {k: v.tolist() for k, v in (significance or {}).items()}
    for i in range(cols["step"].size):
        step = STEP_NAMES[int(cols["step"][i])]
        phase, quantity, _ = STEPS[step]
        yield Test(
            seq=int(seqs[i]),
            phase=phase,
            step=step,
            quantity=quantity,
            target=target,
            a=int(cols["a"][i]),
            b=int(cols["b"][i]),
            cond=cond_sets[int(cols["cond"][i])],
            value=float(cols["value"][i]),
            threshold=float(cols["threshold"][i]),
            decision=DECISIONS[int(cols["decision"][i])],
            aux=int(cols["aux"][i]),
            **{k: v[i] for k, v in sig.items()},
        )
