"""The decision record as one Arrow table per target, and every format derived from it.

:func:`target_table` builds a target's rows as Arrow columns straight from its trace arrays
(every string column a small vocabulary gathered by ``take``, each distinct conditioning set
once); :meth:`camcf.Result.to_frame` is pandas' conversion of those tables, and the files are
written by the libraries' own writers: Parquet by ``pyarrow.parquet``, CSV by ``pyarrow.csv``
(the conditioning set as its indices joined by spaces), JSON lines and the trace of
:meth:`camcf.Result.to_json` by pandas' ``to_json`` of the same tables. The formats hold the same
content (numbers as exactly as each format writes them: CSV and Parquet exactly, JSON with
15 significant digits).
"""

from __future__ import annotations

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from .significance import LN2, log10_p, p_value
from .trace import DECISIONS, STEP_NAMES, STEPS, TARGET

_PHASE = np.array([STEPS[s][0] for s in STEP_NAMES], dtype=np.int64)
_QUANTITY = [STEPS[s][1] for s in STEP_NAMES]

#: the record's columns, in order (``names=False`` leaves out :data:`NAME_COLUMNS`)
COLUMNS = ("target", "label", "category", "seq", "phase", "step", "quantity", "a", "b", "cond",
           "value", "threshold", "decision", "aux", "n", "g", "df", "p_value", "log10_p")
NAME_COLUMNS = ("a_name", "b_name", "aux_name", "cond_names", "cond_size_features",
                "cond_size_labels")
#: the significance of each row's value (see :meth:`camcf.Result.record_table`)
SIGNIFICANCE = ("n", "g", "df", "p_value", "log10_p")
#: the keys of :meth:`camcf.Result.trace_records` (and of ``to_json``'s trace)
TRACE_KEYS = ("target", "seq", "phase", "step", "quantity", "a", "b", "cond", "value",
              "threshold", "decision", "aux", *SIGNIFICANCE)

SCHEMA = pa.schema([
    ("target", pa.int64()), ("label", pa.string()), ("category", pa.string()),
    ("seq", pa.int32()), ("phase", pa.int64()), ("step", pa.string()),
    ("quantity", pa.string()), ("a", pa.int32()), ("b", pa.int32()),
    ("cond", pa.list_(pa.int32())), ("value", pa.float64()), ("threshold", pa.float64()),
    ("decision", pa.string()), ("aux", pa.int32()), ("n", pa.int64()), ("g", pa.float64()),
    ("df", pa.int64()), ("p_value", pa.float64()), ("log10_p", pa.float64()),
])
NAMES_SCHEMA = pa.schema([
    *SCHEMA, ("a_name", pa.string()), ("b_name", pa.string()), ("aux_name", pa.string()),
    ("cond_names", pa.string()), ("cond_size_features", pa.int64()),
    ("cond_size_labels", pa.int64()),
])


def schema(names: bool = True) -> pa.Schema:
    return NAMES_SCHEMA if names else SCHEMA


def significance(res, t) -> dict[str, np.ndarray]:
    """n, g, df, p_value and log10_p of every row of target ``t``'s record (cached on the
    result per trace: a record written several times computes them once)."""
    cols = t.trace
    cache = res._cache
    hit = cache.get(("sig", t.id))
    if hit is not None and hit[0] is cols:
        return hit[1]
    k = cols["step"].size
    n = int(res.n_samples)
    value = cols["value"]
    g = 2.0 * n * LN2 * value
    levels = getattr(res, "levels", None)
    strata = res.cond_sets.strata
    if levels is None or levels.size == 0:
        df = np.full(k, -1, dtype=np.int64)
    else:
        m = res.n_features
        lv = np.append(np.asarray(levels, dtype=np.int64), levels[m + t.id])  # −1 → the target
        la = lv[cols["a"]]
        lb = lv[cols["b"]]
        s = strata[cols["cond"]]
        df = (la - 1) * (lb - 1) * s
        df[s < 0] = -1
    known = df >= 0
    p = np.full(k, np.nan)
    lp = np.full(k, np.nan)
    if known.any():
        p[known] = p_value(g[known], df[known])
        lp[known] = log10_p(g[known], df[known])
    out = {"n": np.full(k, n, dtype=np.int64), "g": g, "df": df, "p_value": p, "log10_p": lp}
    cache[("sig", t.id)] = (cols, out)
    return out


def _strings(vocab: list[str], idx: np.ndarray) -> pa.Array:
    return pa.array(vocab, pa.string()).take(pa.array(np.asarray(idx, dtype=np.int64)))


def target_table(res, t, *, names: bool = True) -> pa.Table:
    """Target ``t``'s record (``t.trace`` non-empty) as an Arrow table of :func:`schema`."""
    cols = t.trace
    k = cols["step"].size
    step = cols["step"].astype(np.int64)
    zeros = np.zeros(k, dtype=np.int64)
    ids, inv = np.unique(cols["cond"], return_inverse=True)
    inv = inv.ravel()
    sets = res.cond_sets
    starts, ends = sets.offsets[ids], sets.offsets[ids + 1]
    lens = ends - starts
    off = np.zeros(ids.size + 1, dtype=np.int64)
    np.cumsum(lens, out=off[1:])
    gather = np.repeat(starts - off[:-1], lens) + np.arange(off[-1])
    vals = sets.values[gather]
    distinct = pa.ListArray.from_arrays(pa.array(off.astype(np.int32)), pa.array(vals))
    sig = significance(res, t)
    arrays = {
        "target": pa.array(np.full(k, t.id, dtype=np.int64)),
        "label": _strings([t.category.label], zeros),
        "category": _strings([t.category.name], zeros),
        "seq": pa.array(cols["seq"].astype(np.int32, copy=False) if "seq" in cols
                        else np.arange(k, dtype=np.int32)),
        "phase": pa.array(_PHASE[step]),
        "step": _strings(STEP_NAMES, step),
        "quantity": _strings(_QUANTITY, step),
        "a": pa.array(cols["a"].astype(np.int32, copy=False)),
        "b": pa.array(cols["b"].astype(np.int32, copy=False)),
        "cond": distinct.take(pa.array(inv)),
        "value": pa.array(cols["value"]),
        "threshold": pa.array(cols["threshold"]),
        "decision": _strings(DECISIONS, cols["decision"].astype(np.int64)),
        "aux": pa.array(cols["aux"].astype(np.int32, copy=False)),
        **{c: pa.array(sig[c]) for c in SIGNIFICANCE},
    }
    if names:
        m = res.n_features
        pool = list(res.feature_names) + [c.display for c in res.categories]
        # pool index p → p; TARGET in b/aux → ""; TARGET in a set → "t"; a == TARGET → the
        # target's name
        vocab = pool + ["", "t", t.category.display]
        n_pool = len(pool)
        a = cols["a"].astype(np.int64)
        arrays["a_name"] = _strings(vocab, np.where(a == TARGET, n_pool + 2, a))
        for c in ("b", "aux"):
            p = cols[c].astype(np.int64)
            arrays[c + "_name"] = _strings(vocab, np.where(p == TARGET, n_pool, p))
        named = _strings(vocab, np.where(vals == TARGET, n_pool + 1, vals))
        joined = pc.binary_join(pa.ListArray.from_arrays(pa.array(off.astype(np.int32)), named),
                                ", ")
        arrays["cond_names"] = joined.take(pa.array(inv))
        is_feat = np.zeros(vals.size + 1, dtype=np.int64)
        np.cumsum((vals >= 0) & (vals < m), out=is_feat[1:])
        n_feat = is_feat[off[1:]] - is_feat[off[:-1]]
        arrays["cond_size_features"] = pa.array(n_feat[inv])
        arrays["cond_size_labels"] = pa.array((lens - n_feat)[inv])
    sch = schema(names)
    return pa.Table.from_arrays([arrays[f.name].cast(f.type) for f in sch], schema=sch)


def empty_table(names: bool = True) -> pa.Table:
    return schema(names).empty_table()


def tables(res, targets, *, names: bool = True):
    """The record tables of ``targets`` that have rows, in order."""
    for t in targets:
        if t.trace and t.trace["step"].size:
            yield target_table(res, t, names=names)


def to_pandas(table: pa.Table):
    """pandas' conversion of a record table, with ``cond`` as tuples of ints (each distinct set
    made a tuple once)."""
    df = table.to_pandas()
    if len(df):
        cond = table.column("cond").combine_chunks()
        flat = cond.flatten().to_numpy(zero_copy_only=False).astype(np.int64).tolist()
        off = cond.offsets.to_numpy().tolist()
        df["cond"] = [tuple(flat[a:b]) for a, b in zip(off[:-1], off[1:], strict=True)]
    return df


def csv_table(table: pa.Table) -> pa.Table:
    """The table with ``cond`` as text (its pool indices joined by spaces): CSV holds no
    lists."""
    i = table.schema.get_field_index("cond")
    cond = table.column("cond")
    text = pc.binary_join(pc.cast(cond, pa.list_(pa.string())), " ")
    return table.set_column(i, pa.field("cond", pa.string()), text)


def json_lines(table: pa.Table, columns=None) -> bytes:
    """pandas' JSON lines of a record table (one object a row, 15 significant digits, NaN and
    infinities as null)."""
    df = table.select(list(columns)).to_pandas() if columns else table.to_pandas()
    if not len(df):
        return b""
    text = df.to_json(orient="records", lines=True, force_ascii=False, double_precision=15)
    return (text if text.endswith("\n") else text + "\n").encode("utf-8")


def json_records(table: pa.Table, columns, indent: int | None) -> str:
    """pandas' JSON array of the rows of a record table (``columns`` only)."""
    df = table.select(list(columns)).to_pandas()
    return df.to_json(orient="records", force_ascii=False, double_precision=15,
                      indent=indent)
