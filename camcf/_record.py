"""The decision record as Arrow columns, built straight from the targets' trace arrays.

:meth:`camcf.Result.write_record` and :meth:`camcf.Result.to_json` use this instead of
:meth:`camcf.Result.to_frame` for the bulk of a large record: no Python object per row. Every
string column is a small vocabulary (pool names, step names, one text per distinct conditioning
set) plus an index per row, so each text is encoded (CSV-quoted, JSON-escaped) once and the rows
are gathered by Arrow's ``take``; rows are joined by Arrow's string kernels. The texts are the
same, byte for byte, as pandas' ``to_csv`` / ``to_json`` of :meth:`camcf.Result.to_frame` (CSV,
JSON lines) and as ``json.dumps`` of :meth:`camcf.Result.trace_records` (``to_json``).
"""

from __future__ import annotations

import csv
import io
import json
import math
from dataclasses import dataclass, replace
from itertools import chain

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc

from .trace import DECISIONS, STEP_NAMES, STEPS, TARGET

_PHASE = np.array([STEPS[s][0] for s in STEP_NAMES])  # int64, as to_frame has it
_QUANTITY = [STEPS[s][1] for s in STEP_NAMES]


@dataclass
class Coded:
    """A string column as a vocabulary and one index per row (``key`` names a shared
    vocabulary whose encodings are cached)."""

    values: list[str]
    idx: np.ndarray
    key: str | None = None


class Columns(dict):
    """Column name → numpy array, :class:`Coded` or :class:`CondColumn`; :attr:`coded` gives
    some numeric columns as :class:`Coded` too, for the text formats."""

    coded: dict


@dataclass
class CondColumn:
    """The conditioning sets of one target: each distinct set once (offsets into ``vals``,
    pool indices) and one index per row."""

    offsets: np.ndarray  # int32, len = distinct + 1
    vals: np.ndarray  # int32
    inv: np.ndarray


def _string_bytes(arr: pa.Array) -> memoryview:
    """The concatenated bytes of a string array without nulls."""
    arr = arr.combine_chunks() if isinstance(arr, pa.ChunkedArray) else arr
    if arr.type == pa.large_string():
        arr = arr.cast(pa.string())
    off = np.frombuffer(arr.buffers()[1], dtype=np.int32)[arr.offset:arr.offset + len(arr) + 1]
    data = arr.buffers()[2]
    if data is None:
        return memoryview(b"")
    return memoryview(data)[int(off[0]):int(off[-1])]


def _csv_quote(values: list[str]) -> list[str]:
    """Each text as a field of pandas' to_csv (Python's csv writer, QUOTE_MINIMAL, lines ended
    by "\\n"): asked of the csv module itself, whose rules vary with the Python version."""
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n", quoting=csv.QUOTE_MINIMAL)
    out = []
    for s in values:
        buf.seek(0)
        buf.truncate()
        w.writerow([s, ""])
        out.append(buf.getvalue()[:-2])
    return out


def _pd_json_values(values) -> list[str]:
    """pandas' JSON text (to_json, lines) of each value of a column."""
    if len(values) == 0:
        return []
    text = pd.DataFrame({"v": values}).to_json(orient="records", lines=True,
                                               force_ascii=False)
    return [line[5:-1] for line in text.split("\n")[:len(values)]]


def _distinct_floats(v: np.ndarray):
    """Distinct float64 values by bit pattern (−0.0 and 0.0 apart, NaNs by payload) and the
    index of each row's value."""
    bits, inv = np.unique(np.ascontiguousarray(v, dtype=np.float64).view(np.int64),
                          return_inverse=True)
    return bits.view(np.float64), inv.ravel()


class RecordColumns:
    """Per target, the columns of :meth:`camcf.Result.to_frame` (names included or not)."""

    def __init__(self, res, *, names: bool = True) -> None:
        self.res = res
        self.names = names
        sets = res.cond_sets
        self.lens = np.fromiter(map(len, sets), dtype=np.int64, count=len(sets))
        self.starts = np.zeros(len(sets) + 1, dtype=np.int64)
        np.cumsum(self.lens, out=self.starts[1:])
        self.flat = np.fromiter(chain.from_iterable(sets), dtype=np.int32,
                                count=int(self.starts[-1]))
        self.m = res.n_features
        pool = list(res.feature_names) + [c.display for c in res.categories]
        self.n_pool = len(pool)
        # pool index p → p; TARGET in b/aux → ""; TARGET in a set → "t"; a == TARGET → the
        # target's name (after these, by target id)
        self.vocab = pool + ["", "t"] + [t.category.display for t in res.targets]
        self._cache: dict = {}

    def _float_text(self, v: np.ndarray, how: str) -> pa.Array:
        """Text of each float (``how``: csv, json, py), each distinct value of the whole
        record's value and threshold columns formatted once."""
        got = self._cache.get(("float", how))
        if got is None:
            vals = [t.trace[c] for t in self.res.targets if t.trace for c in ("value", "threshold")]
            vals, _ = _distinct_floats(np.concatenate(vals) if vals else np.empty(0))
            if how == "csv":
                s = vals.astype(str)
                s[np.isnan(vals)] = ""
                txt = s.tolist()
            elif how == "json":
                txt = _pd_json_values(vals)
            else:  # json.dumps of round(v, 12), non-finite as null (Result.trace_records)
                txt = [repr(round(x, 12)) if math.isfinite(x) else "null" for x in vals.tolist()]
            got = (vals.view(np.int64), pa.array(txt, pa.string()))
            self._cache[("float", how)] = got
        bits, txt = got
        return txt.take(pa.array(np.searchsorted(
            bits, np.ascontiguousarray(v, dtype=np.float64).view(np.int64))))

    # -- columns ------------------------------------------------------------------------------
    def columns(self, t) -> dict:
        cols = t.trace
        k = cols["step"].size
        step = cols["step"].astype(np.intp)
        out = Columns({
            "target": np.full(k, t.id),
            "label": Coded([t.category.label], np.zeros(k, dtype=np.intp)),
            "category": Coded([t.category.name], np.zeros(k, dtype=np.intp)),
            "seq": cols["seq"] if "seq" in cols else np.arange(k),
            "phase": _PHASE[step],
            "step": Coded(STEP_NAMES, step, "step"),
            "quantity": Coded(_QUANTITY, step, "quantity"),
            "a": cols["a"],
            "b": cols["b"],
            "cond": self._cond(cols["cond"]),
            "value": cols["value"],
            "threshold": cols["threshold"],
            "decision": Coded(DECISIONS, cols["decision"].astype(np.intp), "decision"),
            "aux": cols["aux"],
        })
        # for the text formats: columns that are functions of an index they share with others
        out.coded = {"target": Coded([t.id], np.zeros(k, dtype=np.intp)),
                     "phase": Coded(_PHASE.tolist(), step, "phase")}
        if not self.names:
            return out
        cc = out["cond"]
        a = cols["a"].astype(np.intp)
        out["a_name"] = Coded(self.vocab, np.where(a == TARGET, self.n_pool + 2 + t.id, a),
                              "vocab")
        for c in ("b", "aux"):
            p = cols[c].astype(np.intp)
            out[c + "_name"] = Coded(self.vocab, np.where(p == TARGET, self.n_pool, p), "vocab")
        names = pa.array(self.vocab, pa.string()).take(
            pa.array(np.where(cc.vals == TARGET, self.n_pool + 1, cc.vals)))
        joined = pc.binary_join(pa.ListArray.from_arrays(pa.array(cc.offsets), names), ", ")
        out["cond_names"] = Coded(joined.to_pylist(), cc.inv)
        is_feat = np.zeros(cc.vals.size + 1, dtype=np.int64)
        np.cumsum(cc.vals < self.m, out=is_feat[1:])
        n_feat = is_feat[cc.offsets[1:]] - is_feat[cc.offsets[:-1]]
        n_all = np.diff(cc.offsets).astype(np.int64)
        out["cond_size_features"] = n_feat[cc.inv]
        out["cond_size_labels"] = (n_all - n_feat)[cc.inv]
        out.coded["cond_size_features"] = Coded(n_feat.tolist(), cc.inv)
        out.coded["cond_size_labels"] = Coded((n_all - n_feat).tolist(), cc.inv)
        return out

    def _cond(self, cond_id: np.ndarray) -> CondColumn:
        ids, inv = np.unique(cond_id, return_inverse=True)
        lens = self.lens[ids]
        off = np.zeros(ids.size + 1, dtype=np.int64)
        np.cumsum(lens, out=off[1:])
        gather = np.repeat(self.starts[ids] - off[:-1], lens) + np.arange(off[-1])
        return CondColumn(off.astype(np.int32), self.flat[gather], inv.ravel())

    def _vocab_text(self, col: Coded, how: str) -> list[str]:
        """The column's vocabulary encoded (``how``: raw, csv, json, py)."""
        key = (col.key, how)
        enc = self._cache.get(key) if col.key else None
        if enc is None:
            vals = col.values
            if vals and not isinstance(vals[0], str):
                enc = [str(v) for v in vals]
            elif how == "csv":
                enc = _csv_quote(vals)
            elif how == "json":
                enc = _pd_json_values(pd.Series(vals, dtype=object))
            elif how == "py":
                enc = [json.dumps(v, ensure_ascii=False) for v in vals]
            else:
                enc = list(vals)
            if col.key:
                self._cache[key] = enc
        return enc

    def _encoded(self, col: Coded, how: str) -> pa.Array:
        return pa.array(self._vocab_text(col, how), pa.string()).take(pa.array(col.idx))

    # -- parquet ------------------------------------------------------------------------------
    def parquet_schema(self, t) -> pa.Schema:
        """The schema the pandas route gives the record (pandas metadata included), taken from
        a one-row frame of ``t``: ``cond`` a list of int32."""
        one = replace(t, trace={c: v[:1] for c, v in t.trace.items()})
        df = self.res._frame([one], names=self.names)
        has = bool((self.lens[np.unique(t.trace["cond"])] > 0).any())
        schema = pa.Table.from_pandas(df.assign(cond=[[0] if has else []]),
                                      preserve_index=False).schema
        return schema.set(schema.get_field_index("cond"), pa.field("cond", pa.list_(pa.int32())))

    def table(self, cols: dict, schema: pa.Schema) -> pa.Table:
        arrays = []
        for f in schema:
            c = cols[f.name]
            if isinstance(c, Coded):
                arr = self._encoded(c, "raw")
            elif isinstance(c, CondColumn):
                arr = pa.ListArray.from_arrays(pa.array(c.offsets), pa.array(c.vals)).take(
                    pa.array(c.inv))
            else:
                arr = pa.array(c)
            arrays.append(arr.cast(f.type))
        return pa.Table.from_arrays(arrays, schema=schema)

    # -- text ---------------------------------------------------------------------------------
    def _cond_text(self, c: CondColumn, sep: str, left: str = "", right: str = "",
                   empty: str = "") -> list[str]:
        """The text of each distinct set: its indices joined by ``sep`` between ``left`` and
        ``right`` (``empty`` for an empty set when given)."""
        items = pa.ListArray.from_arrays(pa.array(c.offsets),
                                         pc.cast(pa.array(c.vals), pa.string()))
        joined = pc.binary_join(items, sep)
        if left or right:
            joined = pc.binary_join_element_wise(pa.scalar(left), joined, pa.scalar(right), "")
        if empty:
            joined = pc.if_else(pc.equal(pc.list_value_length(items), 0), pa.scalar(empty),
                                joined)
        return joined.to_pylist()

    def _rows(self, cols: Columns, keys, how: str, before, end: str, cond) -> pa.Array:
        """Each row's text: for column ``keys[i]``, the literal ``before(i, name)`` then the
        value's text; ``end`` after the last. Literals and columns that share one index (a
        column constant over the target, the step's phase/name/quantity, a set's names and
        sizes) are put together in their small vocabularies, so that rows are gathered with
        few ``take`` and joined once."""
        parts: list = []  # str | (list of texts, index per row) | pa.Array
        for i, name in enumerate(keys):
            parts.append(before(i, name))
            c = cols.coded.get(name, cols[name])
            if isinstance(c, Coded):
                vocab = self._vocab_text(c, how)
                parts.append(vocab[0] if len(vocab) == 1 else (vocab, c.idx))
            elif isinstance(c, CondColumn):
                parts.append((self._cond_text(c, *cond), c.inv))
            elif c.dtype.kind == "f":
                parts.append(self._float_text(c, how))
            else:
                parts.append(pc.cast(pa.array(c), pa.string()))
        parts.append(end)
        merged: list = []
        for p in parts:
            last = merged[-1] if merged else None
            if isinstance(p, str):
                if isinstance(last, str):
                    merged[-1] = last + p
                elif isinstance(last, tuple):
                    merged[-1] = ([v + p for v in last[0]], last[1])
                else:
                    merged.append(p)
            elif isinstance(p, tuple):
                if isinstance(last, str):
                    merged[-1] = ([last + v for v in p[0]], p[1])
                elif isinstance(last, tuple) and last[1] is p[1]:
                    merged[-1] = ([a + b for a, b in zip(last[0], p[0], strict=True)], p[1])
                else:
                    merged.append(p)
            else:
                merged.append(p)
        arrays = [pa.scalar(p) if isinstance(p, str) else
                  pa.array(p[0], pa.string()).take(pa.array(p[1])) if isinstance(p, tuple)
                  else p for p in merged]
        if len(arrays) == 1:
            return arrays[0]
        return pc.binary_join_element_wise(*arrays, "")

    def csv_bytes(self, cols: Columns) -> memoryview:
        """The rows as pandas' ``to_csv(index=False, header=False)`` writes them."""
        return _string_bytes(self._rows(cols, list(cols), "csv",
                                        lambda i, _: "" if i == 0 else ",", "\n", (" ",)))

    def jsonl_bytes(self, cols: Columns) -> memoryview:
        """The rows as pandas' ``to_json(orient="records", lines=True, force_ascii=False)``
        writes them (each line ended by a newline)."""
        return _string_bytes(self._rows(
            cols, list(cols), "json", lambda i, name: ("{" if i == 0 else ",")
            + json.dumps(name) + ":", "}\n", (",", "[", "]")))

    def trace_json(self, indent: int | None) -> str:
        """``json.dumps(trace_records(), indent=indent, ensure_ascii=False)`` for a trace
        nested one level in a dict (as :meth:`camcf.Result.to_json` has it)."""
        if indent is None:
            nl = [""] * 5
            item, empty_list = ", ", "[]"
        else:
            nl = ["\n" + " " * (indent * k) for k in range(5)]
            item, empty_list = ",", "[]"
        keys = ("target", "seq", "phase", "step", "quantity", "a", "b", "cond", "value",
                "threshold", "decision", "aux")
        parts = []
        for t in self.res.targets:
            if not t.trace or t.trace["step"].size == 0:
                continue
            rows = self._rows(self.columns(t), keys, "py",
                              lambda i, name: ("{" if i == 0 else item) + nl[3]
                              + json.dumps(name) + ": ", nl[2] + "}",
                              (item + nl[4], "[" + nl[4], nl[3] + "]", empty_list))
            parts.append(_string_bytes(pc.binary_join(
                pa.ListArray.from_arrays(pa.array([0, len(rows)], pa.int32()), rows),
                item + nl[2])))
        if not parts:
            return empty_list
        body = (item + nl[2]).encode().join(parts).decode("utf-8")
        return "[" + nl[2] + body + nl[1] + "]"
