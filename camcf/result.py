"""What a Ca-MCF run returns: per target category, every set each phase produced, and the trace."""

from __future__ import annotations

import json
import math
import threading
import weakref
from dataclasses import dataclass, field

import numpy as np

from .errors import ParameterError
from .lru import BoundedLRU
from .trace import TARGET, CondSetList, Test, iter_tests

PHASE_SETS = ("phase2", "phase3", "phase4")
_TESTS_KEPT = 8  # targets whose tests Result.tests keeps, the most recently asked
_TESTS: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()  # Result -> BoundedLRU
_TESTS_LOCK = threading.Lock()


@dataclass(frozen=True)
class Category:
    """One flattened label category: the indicator [Y_label == value]."""

    id: int
    label_index: int
    label: str
    value: int
    name: str
    size: int

    @property
    def display(self) -> str:
        return f"{self.label}={self.name}"


@dataclass(frozen=True)
class TargetResult:
    """Everything Ca-MCF decided for one target category (feature lists are column indices)."""

    category: Category
    skipped: bool = False
    skip_reason: str | None = None
    mirror_of: int | None = None  # id of the complementary category whose run was reused
    skeleton: tuple[int, ...] = ()  # R: category ids, acceptance order
    skeleton_candidates: tuple[int, ...] = ()  # sorted by DCSMI
    candidates_all: tuple[int, ...] = ()  # s_f > δ1, sorted by s_f
    candidates: tuple[int, ...] = ()  # the first ⌈k1·n⌉ of them
    pc: tuple[int, ...] = ()
    spouses: dict[int, tuple[int, ...]] = field(default_factory=dict)  # z -> inducing x's
    recovered: tuple[tuple[int, int], ...] = ()  # (feature, blocking category id)
    cmb: tuple[int, ...] = ()  # Phase 4 input: sorted(PC ∪ SP) + recovered
    after_cut: tuple[int, ...] = ()  # kept by k2, in s_f order
    cut: tuple[int, ...] = ()
    symmetry_removed: tuple[int, ...] = ()
    after_symmetry: tuple[int, ...] = ()
    redundancy_removed: tuple[tuple[int, int, float, float], ...] = ()  # (f, d, I(X_f;C_d), s_f)
    blanket: tuple[int, ...] = ()
    trace: dict[str, np.ndarray] = field(default_factory=dict, repr=False)
    test_counts: dict[str, int] = field(default_factory=dict, repr=False)  # step -> tests

    @property
    def n_tests(self) -> int:
        """Tests this target's run performed (at every trace level)."""
        return int(sum(self.test_counts.values()))

    @property
    def id(self) -> int:
        return self.category.id

    @property
    def after_phase2(self) -> tuple[int, ...]:
        return tuple(sorted(set(self.pc) | set(self.spouses)))

    @property
    def after_phase3(self) -> tuple[int, ...]:
        return self.cmb

    def features_after(self, phase: str) -> tuple[int, ...]:
        if phase == "phase2":
            return self.after_phase2
        if phase == "phase3":
            return tuple(sorted(self.cmb))
        if phase == "phase4":
            return self.blanket
        raise ValueError(f"phase must be one of {PHASE_SETS}, got {phase!r}")


@dataclass(frozen=True, eq=False)
class Result:
    """The outcome of :func:`camcf.run`.

    Attributes
    ----------
    selected_indices : ndarray of int
        Sorted union of every category's final blanket (0-based feature columns).
    targets : list of TargetResult
        One per flattened category, skipped ones included (with the reason).
    categories : list of Category
        The flattened categories (pool index of category ``c`` is ``n_features + c``).
    mi_table : ndarray (n_features × n_categories)
        I(X_f; C_c) in bits, for every feature and category.
    category_mi : ndarray (n_categories × n_categories)
        I(C_a; C_b) in bits.
    trace_level : {"full", "decisions", "counters"}
        How much of the decision record the targets' ``trace`` keeps (see :mod:`camcf.trace`);
        decisions, sets and :attr:`n_tests` are the same at every level.
    params : dict
        The parameters the run used, thresholds as numbers (a threshold given as "auto" is
        recorded resolved, with ``significance``); ``camcf.run(X, Y, **params)`` repeats it.
    cond_sets : camcf.trace.CondSetList
        The record's conditioning sets (set 0 is the empty set), with their strata.
    levels : ndarray of int (n_features + n_categories), optional
        Levels that occur in each pool column (features, then category indicators): the
        record's degrees of freedom come from them.
    thresholds : dict, optional
        When a threshold was "auto": how it was derived (``significance``, ``n``, ``rule``,
        and per derived threshold its value and ``df_delta1`` / ``df_delta2``;
        :func:`camcf.significance.suggest_thresholds`). None otherwise.
    """

    params: dict
    feature_names: list[str]
    label_names: list[str]
    categories: list[Category]
    targets: list[TargetResult]
    selected_indices: np.ndarray
    mi_table: np.ndarray
    category_mi: np.ndarray
    cond_sets: CondSetList
    n_samples: int
    stats: dict
    trace_level: str = "full"
    levels: np.ndarray | None = None
    thresholds: dict | None = None
    _cache: dict = field(default_factory=dict, repr=False, compare=False)

    def __post_init__(self) -> None:
        if not isinstance(self.cond_sets, CondSetList):  # a list of sets, as before
            object.__setattr__(self, "cond_sets", CondSetList.of(self.cond_sets))

    # -- names ---------------------------------------------------------------------------------
    @property
    def n_features(self) -> int:
        return len(self.feature_names)

    @property
    def selected_features(self) -> list[str]:
        return [self.feature_names[i] for i in self.selected_indices]

    def var_name(self, p: int, target: int | None = None) -> str:
        """Display name of a pool index (feature, category, or the target category itself)."""
        if p == TARGET:
            return self.categories[target].display if target is not None else "t"
        if p < self.n_features:
            return self.feature_names[p]
        return self.categories[p - self.n_features].display

    def target(self, key) -> TargetResult:
        """A target by flattened id, by (label index or name, category value), or "label=name"."""
        if isinstance(key, int | np.integer) and not isinstance(key, bool):
            if not -len(self.targets) <= int(key) < len(self.targets):
                raise _no_target(self, key)
            return self.targets[int(key)]
        if isinstance(key, str):
            for t in self.targets:
                if t.category.display == key:
                    return t
            raise _no_target(self, key)
        try:
            label, value = key
        except (TypeError, ValueError):
            raise _no_target(self, key) from None
        for t in self.targets:
            c = t.category
            if (c.label_index == label or c.label == label) and c.value == value:
                return t
        raise _no_target(self, key)

    @property
    def skipped(self) -> list[TargetResult]:
        return [t for t in self.targets if t.skipped]

    def selected_after(self, phase: str) -> np.ndarray:
        """Union over categories of the features present after ``phase`` (phase2/3/4)."""
        sel: set[int] = set()
        for t in self.targets:
            if not t.skipped:
                sel.update(t.features_after(phase))
        return np.array(sorted(sel), dtype=np.int64)

    # -- the trace -----------------------------------------------------------------------------
    def tests(self, target) -> list[Test]:
        """Every decision for one target category, in the order the algorithm took them (with
        the significance of each value, see :meth:`record_table`)."""
        from ._record import significance

        t = self.target(target)
        if not t.trace:
            return []
        # the last few targets' tests are kept (beside the result, not pickled with it):
        # explaining a target's features one by one asks for them again and again
        with _TESTS_LOCK:
            kept = _TESTS.get(self)
            if kept is None:
                kept = _TESTS[self] = BoundedLRU(_TESTS_KEPT)
        hit = kept.get(t.id)
        if hit is None or hit[0] is not t.trace:
            hit = (t.trace, tuple(iter_tests(t.trace, t.id, self.cond_sets,
                                             significance(self, t))))
            kept.put(t.id, hit)
        return list(hit[1])

    @property
    def n_tests(self) -> int:
        """Tests performed over all targets (mirrored ones count as their own), at every level."""
        return int(sum(t.n_tests for t in self.targets))

    @property
    def n_rows(self) -> int:
        """Rows the decision record keeps (:attr:`n_tests` at level "full")."""
        return int(sum(t.trace["step"].size for t in self.targets if t.trace))

    def record_table(self, target, *, names: bool = True):
        """One target's decision record as a ``pyarrow.Table``, one row a test: the table every
        other form of the record (:meth:`to_frame`, :meth:`write_record`, :meth:`to_json`,
        :meth:`trace_records`) is derived from.

        Columns: ``target``, ``label``, ``category`` (the target), ``seq`` (position among the
        target's tests), ``phase``, ``step``, ``quantity``, ``a``, ``b`` (pool indices of the
        two variables; −1 is the target), ``cond`` (the conditioning set, list of pool
        indices), ``value`` (bits), ``threshold``, ``decision``, ``aux`` (a pool index: the
        inducing x of a spouse, the blocker of a recovery row; −1 otherwise), then the
        significance of the value as a G test:

        * ``n`` — the rows the test counted: every test of Ca-MCF is a plug-in estimate on all
          the samples, so n is the number of samples;
        * ``g`` = 2·n·ln 2·value, the G (log-likelihood ratio) statistic of the value's table;
        * ``df`` = (|A| − 1)(|B| − 1) × (strata of the conditioning set that occur), A and B
          the row's two variables (the target when ``a`` is −1, and ``b``), |·| the number of
          levels that occur among the n rows, per variable (a category indicator has 2, or 1
          when it is constant), and the strata that occur the distinct joint rows of the
          conditioning set's columns among the n rows (1 when the set is empty) — each set's
          count is computed once, when the run interns it;
        * ``p_value`` = ``scipy.stats.chi2.sf(g, df)`` (0.0 once it underflows) and
          ``log10_p`` its base-10 logarithm, exact also where p underflows
          (:func:`camcf.significance.log10_p`).

        Every row's value is a plug-in (conditional) mutual information of its two variables
        given its set, so every row gets these columns, including rows whose decision is not a
        test of independence at a threshold: ``k2-cut`` (the value s_f ranks f), ``symmetry``
        and ``recovery-skip`` (s_f against δ1 or δ1/2), ``blocker`` (I(t; r | S_base), the
        blocker's strength), ``recovery`` (I(t; X_f | S_base) against the blocker's value) and
        ``redundancy`` (I(X_f; C_d) with ``a`` = f and ``b`` = C_d, against γ·s_f). There the p
        value says how far the value itself is from independence, not the level of the
        decision. A variable that is constant among the rows makes df = 0: its value is 0
        whatever the data, and the row has p_value 1 and log10_p 0. df is −1 (p NaN) only
        for a result built without the levels or a set without its strata.

        With ``names``: ``a_name``, ``b_name``, ``aux_name`` (display names; "" for −1 in b and
        aux), ``cond_names`` (the set's names joined by ", ", the target as "t"),
        ``cond_size_features`` and ``cond_size_labels``.
        """
        from . import _record

        t = self.target(target)
        if not t.trace or t.trace["step"].size == 0:
            return _record.empty_table(names)
        return _record.target_table(self, t, names=names)

    def _tables(self, sel, *, names: bool = True):
        from . import _record

        return _record.tables(self, sel, names=names)

    def to_frame(self, target=None, *, names: bool = True):
        """The decision record as a pandas DataFrame, one row a test: pandas' conversion of
        :meth:`record_table` (of every target, or of one), ``cond`` as tuples."""
        import pyarrow as pa

        from . import _record

        sel = self.targets if target is None else [self.target(target)]
        tables = list(self._tables(sel, names=names))
        table = pa.concat_tables(tables) if tables else _record.empty_table(names)
        return _record.to_pandas(table)

    # -- the decision record, streamed -------------------------------------------------------
    RECORD_FORMATS = ("parquet", "csv", "jsonl")

    def iter_record(self, *, names: bool = True):
        """The decision record target by target (one DataFrame each, :meth:`to_frame`'s
        columns), so that writers never hold the whole record as one table."""
        from . import _record

        for table in self._tables(self.targets, names=names):
            yield _record.to_pandas(table)

    def record_bytes(self, fmt: str = "parquet", *, names: bool = True) -> bytes:
        """The decision record as file contents (for a download): see :meth:`write_record`."""
        import io

        buf = io.BytesIO()
        self.write_record(buf, fmt, names=names)
        return buf.getvalue()

    def write_record(self, dest, fmt: str | None = None, *, names: bool = True) -> int:
        """Write the decision record to ``dest`` (a path or a binary file object), streamed
        target by target; return the number of rows.

        ``fmt``: "parquet" (``pyarrow.parquet``; ``cond`` a list of int32), "csv"
        (``pyarrow.csv``; ``cond`` as its indices joined by spaces, strings quoted; read it back
        with ``keep_default_na=False`` so that empty names stay empty) or "jsonl" (pandas'
        ``to_json``, one object a line, 15 significant digits); from the file name's suffix
        when omitted. The rows and columns are those of :meth:`record_table`.
        """
        import pyarrow as pa
        import pyarrow.csv as pcsv
        import pyarrow.parquet as pq

        from . import _record

        if fmt is None:
            fmt = str(getattr(dest, "name", dest)).rsplit(".", 1)[-1].lower()
        if fmt not in self.RECORD_FORMATS:
            raise ParameterError(f"the decision record is written as parquet, csv or jsonl; got "
                                 f"{fmt!r} (name the file .parquet, .csv or .jsonl)",
                                 name="fmt", value=fmt, allowed=list(self.RECORD_FORMATS))
        own = isinstance(dest, str) or hasattr(dest, "__fspath__")
        fh = open(dest, "wb") if own else dest  # noqa: SIM115 - closed below
        rows = 0
        writer = None
        sch = _record.schema(names)
        try:
            if fmt == "parquet":
                writer = pq.ParquetWriter(fh, sch)
            elif fmt == "csv":
                writer = pcsv.CSVWriter(fh, _record.csv_table(sch.empty_table()).schema)
            pending: list = []  # parquet: targets' tables, written as row groups of ≥ 2^17 rows
            for table in self._tables(self.targets, names=names):
                rows += table.num_rows
                if fmt == "parquet":
                    pending.append(table)
                    if sum(len(p) for p in pending) >= 1 << 17:
                        writer.write_table(pa.concat_tables(pending))
                        pending = []
                elif fmt == "csv":
                    writer.write_table(_record.csv_table(table))
                else:
                    fh.write(_record.json_lines(table))
            if pending:
                writer.write_table(pa.concat_tables(pending))
        finally:
            if writer is not None:
                writer.close()
            if own:
                fh.close()
        return rows

    def feature_fates(self, target) -> dict[int, str]:
        """Fate of every feature the target's run touched: ``blanket``, ``cut-k2``,
        ``symmetry``, ``redundancy``, ``removed`` (backward elimination) or ``cut-k1``."""
        t = self.target(target)
        fate: dict[int, str] = {}
        for f in t.candidates_all:
            fate[f] = "cut-k1"
        for f in t.candidates:
            fate[f] = "removed"
        for f in t.cmb:
            fate[f] = "blanket"
        for f in t.cut:
            fate[f] = "cut-k2"
        for f in t.symmetry_removed:
            fate[f] = "symmetry"
        for f, *_ in t.redundancy_removed:
            fate[f] = "redundancy"
        return fate

    def to_networkx(self, target):
        """The target's local graph: t, PC, spouses (edge to their inducing x), recovered
        features (edge from their blocker), skeleton categories; pruned features marked.

        Node attributes: ``kind`` (target, label-category, pc, spouse, recovered) and ``status``
        (blanket, cut-k2, symmetry, redundancy, removed-backward); edge attribute ``kind``.
        """
        import networkx as nx

        t = self.target(target)
        g = nx.DiGraph(target=t.category.display)
        m = self.n_features
        tname = t.category.display
        g.add_node(tname, kind="target", pool=TARGET)
        for q in t.skeleton:
            g.add_node(self.categories[q].display, kind="label-category", pool=m + q)
            g.add_edge(self.categories[q].display, tname, kind="skeleton")
        status = self.feature_fates(t.id)
        for f in t.pc:
            g.add_node(self.feature_names[f], kind="pc", pool=f, status=status[f])
            g.add_edge(self.feature_names[f], tname, kind="pc")
        for z, xs in t.spouses.items():
            g.add_node(self.feature_names[z], kind="spouse", pool=z, status=status[z])
            for x in xs:
                g.add_edge(self.feature_names[z], self.feature_names[x], kind="spouse")
        for f, r in t.recovered:
            g.add_node(self.feature_names[f], kind="recovered", pool=f, status=status[f])
            g.add_edge(self.feature_names[f], tname, kind="recovered")
            rn = self.categories[r].display
            if rn in g:
                g.add_edge(rn, self.feature_names[f], kind="blocked-by")
        return g

    # -- export -------------------------------------------------------------------------------
    def target_dict(self, t: TargetResult) -> dict:
        c = t.category
        cat_ref = [{"label_index": self.categories[q].label_index,
                    "label": self.categories[q].label,
                    "category": self.categories[q].value} for q in t.skeleton]
        return {
            "label": c.label,
            "label_index": c.label_index,
            "category": c.value,
            "category_name": c.name,
            "size": c.size,
            "skipped": t.skipped,
            "skip_reason": t.skip_reason,
            "mirror_of": t.mirror_of,
            "skeleton": cat_ref,
            "candidates": list(t.candidates),
            "candidates_all": list(t.candidates_all),
            "pc": list(t.pc),
            "spouses": sorted(t.spouses),
            "spouse_inducers": {str(z): list(xs) for z, xs in t.spouses.items()},
            "recovered": [f for f, _ in t.recovered],
            "recovered_blockers": [
                {"feature": f, "label_index": self.categories[r].label_index,
                 "category": self.categories[r].value} for f, r in t.recovered],
            "after_phase2": list(t.after_phase2),
            "after_phase3": list(t.cmb),
            "after_cut": list(t.after_cut),
            "cut": list(t.cut),
            "symmetry_removed": list(t.symmetry_removed),
            "after_symmetry": list(t.after_symmetry),
            "redundancy_removed": [
                {"feature": f, "label_index": self.categories[d].label_index,
                 "category": self.categories[d].value, "mi_with_category": round(v, 12),
                 "s_f": round(sf, 12)} for f, d, v, sf in t.redundancy_removed],
            "blanket": list(t.blanket),
        }

    def to_dict(self, *, include_trace: bool = False) -> dict:
        d = {
            "selected_indices": [int(i) for i in self.selected_indices],
            "selected_features": self.selected_features,
            "params": dict(self.params),
            "n_samples": self.n_samples,
            "n_features": self.n_features,
            "labels": list(self.label_names),
            "categories": [
                {"id": c.id, "label_index": c.label_index, "label": c.label, "category": c.value,
                 "name": c.name, "size": c.size} for c in self.categories],
            "targets": [self.target_dict(t) for t in self.targets],
            "n_tests": self.n_tests,
        }
        if self.thresholds is not None:
            d["thresholds"] = dict(self.thresholds)
        if include_trace:
            d["trace"] = self.trace_records()
        return d

    def trace_records(self) -> list[dict]:
        """The whole decision record as plain dicts (for JSON): the rows of
        :meth:`record_table` without names (keys ``target``, ``seq``, ``phase``, ``step``,
        ``quantity``, ``a``, ``b``, ``cond`` (a list), ``value``, ``threshold``, ``decision``,
        ``aux``, ``n``, ``g``, ``df``, ``p_value``, ``log10_p``); NaN and infinities as None."""
        from . import _record

        out: list[dict] = []
        for table in self._tables(self.targets, names=False):
            for row in table.select(list(_record.TRACE_KEYS)).to_pylist():
                for k in ("value", "threshold", "g", "p_value", "log10_p"):
                    v = row[k]
                    if v is not None and not math.isfinite(v):
                        row[k] = None
                out.append(row)
        return out

    def fill_trace(self, text: str, indent: int | None) -> str | None:
        """``text`` (``json.dumps(..., indent=indent, ensure_ascii=False)`` of a dict whose
        top-level ``"trace"`` is an empty list) with that list replaced by the decision record:
        the rows of :meth:`trace_records` as pandas' ``to_json`` writes them (the same content
        as ``json.dumps`` of them, numbers to 15 significant digits). None when the place is
        not found once (then dump the dict with :meth:`trace_records` in it)."""
        if not (indent is None or type(indent) is int):
            return None
        needle = '"trace": []' if indent is None else "\n" + " " * indent + '"trace": []'
        if text.count(needle) != 1:
            return None
        from . import _record

        parts = [_record.json_records(t, _record.TRACE_KEYS, indent)[1:-1]
                 for t in self._tables(self.targets, names=False)]
        parts = [p for p in parts if p.strip()]
        body = ("[" + ",".join(parts) + "]") if parts else "[]"
        return text.replace(needle, needle[:-2] + body)

    def to_json(self, *, include_trace: bool = False, indent: int | None = 1) -> str:
        """JSON text; the same input and parameters give the same text byte for byte."""
        from .output import json_safe

        if include_trace and (indent is None or type(indent) is int):
            d = self.to_dict()
            d["trace"] = []
            text = self.fill_trace(json.dumps(json_safe(d), indent=indent, ensure_ascii=False,
                                              sort_keys=False, allow_nan=False), indent)
            if text is not None:
                return text
        return json.dumps(json_safe(self.to_dict(include_trace=include_trace)), indent=indent,
                          ensure_ascii=False, sort_keys=False, allow_nan=False)


def _no_target(result: Result, key) -> ParameterError:
    shown = ", ".join(t.category.display for t in result.targets[:8])
    more = ", …" if len(result.targets) > 8 else ""
    return ParameterError(
        f"no target category {key!r}; give an id 0..{len(result.targets) - 1}, a "
        f"(label, value) pair or a name such as {shown}{more}")




#: how far two numbers of :meth:`Result.to_json` may differ in :func:`compare_json`: the JSON
#: rounds values to 12 decimals, so one unit of the last (and a hair for the float steps)
JSON_TOLERANCE = 1.5e-12


def compare_json(old, new, *, tolerance: float = JSON_TOLERANCE, ignore=()) -> tuple[bool, str]:
    """Whether two decoded decision JSONs (``json.loads`` of :meth:`Result.to_json`) hold the
    same decisions: every key, list, string and integer exactly, floats to ``tolerance`` (a
    change of summation order moves a value by about 1e-15 bits, which a value rounded to 12
    decimals shows whenever it sits on a rounding boundary). Keys named in ``ignore`` are left
    out at every depth (e.g. ``"mirror_of"``: an engine that computes both categories of a
    binary label mirrors none). Returns (same, how): ``how`` names the first difference by its
    path, or the largest float difference.

    >>> compare_json({"a": [1, 0.5]}, {"a": [1, 0.5 + 1e-13]})
    (True, 'numbers within 1e-13')
    >>> compare_json({"a": [1, 2]}, {"a": [1, 3]})
    (False, 'differs at .a[1]')
    """
    worst = [0.0]
    skip = frozenset(ignore)

    def walk(a, b, at: str) -> str | None:
        if isinstance(a, float) or isinstance(b, float):
            if not isinstance(a, int | float) or not isinstance(b, int | float):
                return at
            worst[0] = max(worst[0], abs(a - b))
            return None if abs(a - b) <= tolerance else at
        if type(a) is not type(b):
            return at
        if isinstance(a, dict):
            keys = [k for k in a if k not in skip]
            if keys != [k for k in b if k not in skip]:
                return at
            return next((w for k in keys if (w := walk(a[k], b[k], f"{at}.{k}"))), None)
        if isinstance(a, list):
            if len(a) != len(b):
                return at
            return next((w for i, (x, y) in enumerate(zip(a, b, strict=True))
                         if (w := walk(x, y, f"{at}[{i}]"))), None)
        return None if a == b else at

    where = walk(old, new, "")
    if where is not None:
        return False, f"differs at {where}"
    return True, f"numbers within {worst[0]:.0e}" if worst[0] else "identical"
