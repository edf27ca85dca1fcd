"""What a Ca-MCF run returns: per target category, every set each phase produced, and the trace."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from itertools import chain

import numpy as np
import pandas as pd

from .errors import ParameterError
from .trace import DECISIONS, STEP_NAMES, STEPS, TARGET, Test, iter_tests

PHASE_SETS = ("phase2", "phase3", "phase4")


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
    """

    params: dict
    feature_names: list[str]
    label_names: list[str]
    categories: list[Category]
    targets: list[TargetResult]
    selected_indices: np.ndarray
    mi_table: np.ndarray
    category_mi: np.ndarray
    cond_sets: list[tuple[int, ...]]
    n_samples: int
    stats: dict
    trace_level: str = "full"

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
        """Every decision for one target category, in the order the algorithm took them."""
        t = self.target(target)
        return list(iter_tests(t.trace, t.id, self.cond_sets))

    @property
    def n_tests(self) -> int:
        """Tests performed over all targets (mirrored ones count as their own), at every level."""
        return int(sum(t.n_tests for t in self.targets))

    @property
    def n_rows(self) -> int:
        """Rows the decision record keeps (:attr:`n_tests` at level "full")."""
        return int(sum(t.trace["step"].size for t in self.targets if t.trace))

    def to_frame(self, target=None, *, names: bool = True) -> pd.DataFrame:
        """The decision record as a table, one row a test.

        Columns: target, label, category, seq, phase, step, quantity, a, b, cond (tuple of pool
        indices), value, threshold, decision, aux; with ``names`` also a_name, b_name,
        cond_names and aux_name.
        """
        return self._frame(self.targets if target is None else [self.target(target)],
                           names=names)

    def _frame(self, sel: list[TargetResult], *, names: bool = True) -> pd.DataFrame:
        frames = []
        for t in sel:
            cols = t.trace
            if not cols or cols["step"].size == 0:
                continue
            k = cols["step"].size
            steps = np.asarray(STEP_NAMES, dtype=object)[cols["step"]]
            df = pd.DataFrame({
                "target": np.full(k, t.id),
                "label": t.category.label,
                "category": t.category.name,
                "seq": cols["seq"] if "seq" in cols else np.arange(k),
                "phase": np.array([STEPS[s][0] for s in STEP_NAMES])[cols["step"]],
                "step": steps,
                "quantity": np.array([STEPS[s][1] for s in STEP_NAMES], dtype=object)[
                    cols["step"]],
                "a": cols["a"],
                "b": cols["b"],
                "cond_id": cols["cond"],
                "value": cols["value"],
                "threshold": cols["threshold"],
                "decision": np.asarray(DECISIONS, dtype=object)[cols["decision"]],
                "aux": cols["aux"],
            })
            frames.append(df)
        if not frames:
            return pd.DataFrame(columns=["target", "label", "category", "seq", "phase", "step",
                                         "quantity", "a", "b", "cond", "value", "threshold",
                                         "decision", "aux"])
        out = pd.concat(frames, ignore_index=True)
        conds = np.empty(len(self.cond_sets), dtype=object)
        conds[:] = self.cond_sets
        cond_id = out.pop("cond_id").to_numpy()
        out.insert(9, "cond", conds[cond_id])
        if names:
            out = self._name_frame(out, cond_id)
        return out

    def _name_frame(self, df: pd.DataFrame, cond_id: np.ndarray) -> pd.DataFrame:
        m = self.n_features
        names = np.array(self.feature_names + [c.display for c in self.categories] + ["t"],
                         dtype=object)  # index −1 → "t"

        def lookup(col: pd.Series) -> np.ndarray:
            idx = col.to_numpy()
            out = names[idx]
            out[idx == TARGET] = ""
            return out

        tgt_names = np.array([t.category.display for t in self.targets], dtype=object)
        a_names = lookup(df["a"])
        a_names[df["a"].to_numpy() == TARGET] = tgt_names[df["target"].to_numpy()[
            df["a"].to_numpy() == TARGET]]
        df["a_name"] = a_names
        df["b_name"] = lookup(df["b"])
        df["aux_name"] = lookup(df["aux"])
        # per distinct conditioning set, not per row; the sets' elements counted and named
        # by numpy / Arrow over one flat array of them
        ids, inv = np.unique(cond_id, return_inverse=True)
        sets = [self.cond_sets[i] for i in ids.tolist()]
        off = np.zeros(len(sets) + 1, dtype=np.int64)
        np.cumsum(np.fromiter(map(len, sets), dtype=np.int64, count=len(sets)), out=off[1:])
        flat = np.fromiter(chain.from_iterable(sets), dtype=np.int64, count=int(off[-1]))
        cond_names = np.empty(len(sets), dtype=object)
        if flat.size:
            import pyarrow as pa
            import pyarrow.compute as pc

            named = pa.array(names.tolist(), pa.string()).take(  # −1 → "t", the last name
                pa.array(np.where(flat < 0, names.size - 1, flat)))
            cond_names[:] = pc.binary_join(pa.ListArray.from_arrays(
                pa.array(off.astype(np.int32)), named), ", ").to_pylist()
        else:
            cond_names[:] = ""
        is_feat = np.zeros(flat.size + 1, dtype=np.int64)
        np.cumsum(flat < m, out=is_feat[1:])
        n_feat = is_feat[off[1:]] - is_feat[off[:-1]]
        n_lab = np.diff(off) - n_feat
        df["cond_names"] = cond_names[inv.ravel()] if ids.size else np.empty(0, dtype=object)
        df["cond_size_features"] = n_feat[inv.ravel()]
        df["cond_size_labels"] = n_lab[inv.ravel()]
        return df

    # -- the decision record, streamed -------------------------------------------------------
    RECORD_FORMATS = ("parquet", "csv", "jsonl")

    def iter_record(self, *, names: bool = True):
        """The decision record target by target (one DataFrame each, :meth:`to_frame`'s
        columns), so that writers never hold the whole record as one table."""
        for t in self.targets:
            if t.trace and t.trace["step"].size:
                yield self.to_frame(t.id, names=names)

    def record_bytes(self, fmt: str = "parquet", *, names: bool = True) -> bytes:
        """The decision record as file contents (for a download): see :meth:`write_record`."""
        import io

        buf = io.BytesIO()
        self.write_record(buf, fmt, names=names)
        return buf.getvalue()

    def write_record(self, dest, fmt: str | None = None, *, names: bool = True) -> int:
        """Write the decision record to ``dest`` (a path or a binary file object), streamed
        target by target; return the number of rows.

        ``fmt``: "parquet" (pyarrow; ``cond`` is a list of int32 pool indices), "csv" or
        "jsonl" (one JSON object a line); from the file name's suffix when omitted. The rows
        are the rows of :meth:`to_frame`, built as Arrow columns straight from the trace arrays
        (each distinct conditioning set once), never as Python objects per row.
        """
        import pyarrow as pa
        import pyarrow.parquet as pq

        from .errors import ParameterError

        if fmt is None:
            fmt = str(getattr(dest, "name", dest)).rsplit(".", 1)[-1].lower()
        if fmt not in self.RECORD_FORMATS:
            raise ParameterError(f"the decision record is written as parquet, csv or jsonl; got "
                                 f"{fmt!r} (name the file .parquet, .csv or .jsonl)")
        own = isinstance(dest, str) or hasattr(dest, "__fspath__")
        fh = open(dest, "wb") if own else dest  # noqa: SIM115 - closed below
        rows = 0
        writer = None
        try:
            from ._record import RecordColumns

            rc = RecordColumns(self, names=names)
            first = True
            pending: list = []  # parquet: targets' tables, written as row groups of ≥ 2^17 rows
            for t in self.targets:
                if not t.trace or t.trace["step"].size == 0:
                    continue
                cols = rc.columns(t)
                rows += t.trace["step"].size
                if fmt == "parquet":
                    if writer is None:
                        writer = pq.ParquetWriter(fh, rc.parquet_schema(t))
                    pending.append(rc.table(cols, writer.schema))
                    if sum(len(p) for p in pending) >= 1 << 17:
                        writer.write_table(pa.concat_tables(pending))
                        pending = []
                elif fmt == "csv":
                    if first:
                        fh.write((",".join(cols) + "\n").encode())
                    fh.write(rc.csv_bytes(cols))
                else:
                    fh.write(rc.jsonl_bytes(cols))
                first = False
            if pending:
                writer.write_table(pa.concat_tables(pending))
            if fmt == "parquet" and writer is None:  # an empty record still has a schema
                writer = pq.ParquetWriter(fh, pa.Table.from_pandas(
                    self.to_frame(names=names), preserve_index=False).schema)
            elif fmt == "csv" and first:
                fh.write((",".join(self.to_frame(names=names).columns) + "\n").encode())
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
        if include_trace:
            d["trace"] = self.trace_records()
        return d

    def trace_records(self) -> list[dict]:
        """The whole decision record as plain dicts (for JSON)."""
        phases = [STEPS[s][0] for s in STEP_NAMES]
        quantities = [STEPS[s][1] for s in STEP_NAMES]
        sets = self.cond_sets
        out = []
        for t in self.targets:
            cols = t.trace
            if not cols or cols["step"].size == 0:
                continue
            k = cols["step"].size
            seq = cols["seq"] if "seq" in cols else np.arange(k)
            for s, st, a, b, c, v, th, d, x in zip(
                    seq.tolist(), cols["step"].tolist(), cols["a"].tolist(),
                    cols["b"].tolist(), cols["cond"].tolist(), cols["value"].tolist(),
                    cols["threshold"].tolist(), cols["decision"].tolist(), cols["aux"].tolist(),
                    strict=True):
                out.append({
                    "target": t.id, "seq": s, "phase": phases[st], "step": STEP_NAMES[st],
                    "quantity": quantities[st], "a": a, "b": b, "cond": list(sets[c]),
                    "value": _num(v), "threshold": _num(th), "decision": DECISIONS[d],
                    "aux": x,
                })
        return out

    def fill_trace(self, text: str, indent: int | None) -> str | None:
        """``text`` (``json.dumps(..., indent=indent, ensure_ascii=False)`` of a dict whose
        top-level ``"trace"`` is an empty list) with that list replaced by the decision record,
        as ``json.dumps`` writes :meth:`trace_records` there; the record's text is built
        column-wise (see :mod:`camcf._record`). None when the place is not found once (then
        dump the dict with the records in it)."""
        if not (indent is None or type(indent) is int):
            return None
        needle = '"trace": []' if indent is None else "\n" + " " * indent + '"trace": []'
        if text.count(needle) != 1:
            return None
        from ._record import RecordColumns

        trace = RecordColumns(self, names=False).trace_json(indent)
        return text.replace(needle, needle[:-2] + trace)

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


def _num(v: float):
    return None if v != v else round(float(v), 12)  # NaN → null
