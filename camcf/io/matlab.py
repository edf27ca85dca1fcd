"""MATLAB ``.mat`` reader (``scipy.io.loadmat``; v4 to v7.2 files)."""

from __future__ import annotations

import re
import struct
from pathlib import Path

import numpy as np
import scipy.io
import scipy.sparse

from ..dataset import Dataset
from ..errors import DataFormatError, LabelSpecError
from ..limits import check_memory
from ._common import (
    LabelSpec,
    check_readable,
    encode_labels,
    parse_positional,
    read_bytes,
    resolve_labels,
    source_name,
)

#: (features, labels) variable-name pairs, tried in this order (case-insensitive).
PAIRS: tuple[tuple[str, str], ...] = (
    ("data", "target"),
    ("data", "targets"),
    ("x", "y"),
    ("features", "labels"),
    ("features", "targets"),
    ("train_data", "train_target"),
    ("test_data", "test_target"),
)
#: Single matrices holding features and labels side by side (labels via ``last:K``).
COMBINED: tuple[str, ...] = ("train", "test", "data", "dataset", "x")

_EXPECTED = (
    "a .mat file with a feature matrix and a label matrix (data/target(s), X/Y, "
    "features/labels) or one matrix train/test whose last K columns are labels"
)


def _numeric_vars(raw: dict, shown: str = "data.mat") -> dict[str, np.ndarray]:
    out: dict[str, np.ndarray] = {}
    for key, val in raw.items():
        if key.startswith("__"):
            continue
        if scipy.sparse.issparse(val):
            rows, cols = val.shape
            check_memory(8.0 * rows * cols, f"{shown}: the dense {rows:,} × {cols:,} matrix {key}")
            val = val.toarray()
        if isinstance(val, np.ndarray) and val.dtype.kind in "biuf" and val.size > 0:
            out[key] = val
    return out


def _describe(raw: dict) -> str:
    parts = []
    for key, val in raw.items():
        if key.startswith("__"):
            continue
        shape = "×".join(str(s) for s in getattr(val, "shape", ())) or "?"
        kind = "sparse" if scipy.sparse.issparse(val) else getattr(getattr(val, "dtype", None), "name", type(val).__name__)
        parts.append(f"{key} ({shape}, {kind})")
    return ", ".join(parts) if parts else "none"


def _as_matrix(a: np.ndarray, what: str, shown: str) -> np.ndarray:
    a = np.asarray(a)
    if a.ndim == 1:
        a = a[:, None]
    if a.ndim != 2:
        raise DataFormatError(f"{shown}: variable {what} has {a.ndim} dimensions; expected a matrix")
    return a.astype(float)


_V4_ITEMSIZE = {0: 8, 1: 4, 2: 4, 3: 2, 4: 2, 5: 1}


def _check_v4_headers(data: bytes, shown: str) -> None:
    """A MATLAB v4 file is a sequence of (20-byte header, name, data); refuse one whose header
    declares more bytes than the file holds (the reader would allocate them first)."""
    if len(data) < 20 or 0 not in data[:4]:
        return  # not a v4 file
    first = struct.unpack("<i", data[:4])[0]
    order = ">" if (first < 0 or first > 5000) else "<"  # as scipy guesses the byte order
    pos = 0
    while pos + 20 <= len(data):
        mopt, mrows, ncols, imagf, namlen = struct.unpack(order + "5i", data[pos:pos + 20])
        size = _V4_ITEMSIZE.get((mopt % 100) // 10, 1) if 0 <= mopt <= 5000 else 1
        need = max(namlen, 0) + max(mrows, 0) * max(ncols, 0) * size * (2 if imagf else 1)
        left = len(data) - pos - 20
        if need > left:
            raise DataFormatError(
                f"{shown}: expected a MATLAB .mat file, but it is truncated or corrupt (a "
                f"variable header declares {need:,} bytes where {left:,} remain)")
        if not (0 <= mopt <= 5000 and min(mrows, ncols, namlen) >= 0):
            return  # a malformed header: the reader reports it
        pos += 20 + need


_MI_MATRIX, _MI_COMPRESSED = 14, 15


def _check_v5_elements(data: bytes, shown: str) -> None:
    """A MATLAB v5 file is a 128-byte header and tagged elements (type, byte count, data);
    matrices nest sub-elements and compressed elements hold zlib data. Refuse a file in which
    an element declares more bytes than its container holds (the reader would allocate the
    declared count first), and decompress compressed elements only up to the memory limit."""
    if len(data) < 128 or data[126:128] not in (b"IM", b"MI"):
        return  # not a v5 file (v4, or v7.3/HDF5): handled elsewhere
    _walk_v5(data, 128, len(data), "<" if data[126:128] == b"IM" else ">", shown, 0)


def _walk_v5(data: bytes, pos: int, end: int, order: str, shown: str, depth: int) -> None:
    if depth > 64:
        raise DataFormatError(f"{shown}: the MATLAB file nests its variables too deeply")
    while pos + 8 <= end:
        first = struct.unpack(order + "I", data[pos:pos + 4])[0]
        if first >> 16:  # small data element: 4 bytes of data inside the tag
            pos += 8
            continue
        mtype, nbytes = struct.unpack(order + "Ii", data[pos:pos + 8])
        pos += 8
        if nbytes < 0 or nbytes > end - pos:
            raise DataFormatError(
                f"{shown}: expected a MATLAB .mat file, but it is truncated or corrupt (an "
                f"element declares {nbytes:,} bytes where {end - pos:,} remain)")
        if mtype == _MI_MATRIX:
            _walk_v5(data, pos, pos + nbytes, order, shown, depth + 1)
        elif mtype == _MI_COMPRESSED and depth == 0:
            inner = _inflate(data[pos:pos + nbytes], shown)
            _walk_v5(inner, 0, len(inner), order, shown, depth + 1)
        pos += nbytes if mtype == _MI_COMPRESSED else (nbytes + 7) // 8 * 8


def _inflate(blob: bytes, shown: str) -> bytes:
    """zlib-decompress one compressed element, refusing output above the memory limit."""
    import zlib

    from ..limits import memory_limit

    limit = memory_limit()
    d = zlib.decompressobj()
    try:
        out = d.decompress(blob, limit + 1)
    except zlib.error as exc:
        raise DataFormatError(
            f"{shown}: expected a MATLAB .mat file, but a compressed variable is corrupt "
            f"({exc})") from None
    check_memory(len(out) if len(out) <= limit else limit + 1,
                 f"{shown}: a compressed variable of the MATLAB file")
    return out


def _check_declared_size(p: Path, shown: str) -> None:
    """Refuse, before reading, a file whose variable headers declare more data than the memory
    limit allows (a few bytes of header can declare gigabytes, which the reader would allocate
    before finding that the file is short)."""
    raw = read_bytes(p, shown)
    _check_v4_headers(raw, shown)
    _check_v5_elements(raw, shown)
    try:
        found = scipy.io.whosmat(str(p))
    except NotImplementedError:
        return  # MATLAB v7.3 (HDF5): the reader says how to convert it
    except MemoryError:
        raise
    except Exception as exc:  # noqa: BLE001 - a file whose headers cannot be listed is refused
        # before the reader trusts its byte counts (a corrupt count is allocated as it stands)
        raise DataFormatError(
            f"{shown}: expected a MATLAB .mat file, but its variable headers could not be read "
            f"({type(exc).__name__}: {str(exc)[:120]}); is the file truncated or corrupt?"
        ) from None
    need = 0.0
    for _name, shape, _cls in found:
        cells = 1.0
        for d in shape:
            cells *= max(int(d), 0)
        need += 8.0 * cells
    check_memory(need, f"{shown}: the variables this MATLAB file declares")


def _read(path: str | Path, shown: str) -> dict:
    """The file's variables, after refusing headers that declare more than the memory limit."""
    p = check_readable(path, shown)
    _check_declared_size(p, shown)
    try:
        return scipy.io.loadmat(str(p))
    except MemoryError:
        raise  # a ResourceLimitError from the guard, or the machine's own limit: load() says so
    except NotImplementedError:
        raise DataFormatError(
            f"{shown}: this is a MATLAB v7.3 (HDF5) file, which cannot be read here; save it "
            "again in MATLAB with save(..., '-v7') or export it as CSV"
        ) from None
    except Exception as exc:  # scipy raises ValueError, TypeError, OSError … for non-.mat bytes
        raise DataFormatError(f"{shown}: expected a MATLAB .mat file, but it could not be read ({exc})") from None


def _rows(a: np.ndarray) -> int:
    return int(a.shape[0]) if a.ndim >= 1 else 0


def variable_choices(path: str | Path, *, name: str | None = None) -> list[dict]:
    """What a ``.mat`` file offers to read, best first: every feature/label variable pair of a
    known layout (``train_data``/``train_target``, ``test_data``/``test_target``, ``X``/``Y``, …)
    whose row counts fit, then every other numeric matrix as a single matrix holding features
    and labels side by side (labels then given as ``last:K``).

    Returns a list of ``{"variable": str (what to pass as ``variable=``: ``"fvar/tvar"`` for a
    pair, the name for a matrix), "features": str, "labels": str | None, "shape": (n, m),
    "text": a one-line description}``. Raises :class:`DataFormatError` for a file that is not a
    readable ``.mat`` file.
    """
    shown = source_name(path, name)
    num = _numeric_vars(_read(path, shown), shown)
    lower: dict[str, str] = {}
    for key in num:
        lower.setdefault(key.lower(), key)
    out: list[dict] = []
    used: set[str] = set()
    for f, t in PAIRS:
        if f in lower and t in lower:
            fv, tv = lower[f], lower[t]
            X, L = num[fv], num[tv]
            n = _rows(X)
            if L.ndim == 1 or n in L.shape:
                q = L.shape[1] if L.ndim == 2 and L.shape[0] == n else (
                    L.shape[0] if L.ndim == 2 else 1)
                m = X.shape[1] if X.ndim == 2 else 1
                out.append({"variable": f"{fv}/{tv}", "features": fv, "labels": tv,
                            "shape": (n, m),
                            "text": f"{fv} / {tv}: {n:,} samples, {m:,} features, {q:,} "
                                    f"label{'' if q == 1 else 's'}"})
                used.update((fv, tv))
    for key, a in num.items():
        if key in used or a.ndim != 2 or min(a.shape) < 2:
            continue
        out.append({"variable": key, "features": key, "labels": None, "shape": tuple(a.shape),
                    "text": f"{key}: one {a.shape[0]:,}×{a.shape[1]:,} matrix (labels: "
                            "last:K)"})
    return out


#: (features, labels) of the two parts of a file holding a fixed split, tried in this order
#: (case-insensitive): the file's own names say which rows are for training and which for testing
SPLIT_PARTS: tuple[dict[str, str], ...] = (
    {"train": "train_data/train_target", "test": "test_data/test_target"},
    {"train": "train", "test": "test"},
)
_PART = re.compile(r"^(train|test)", re.IGNORECASE)


def variable_names(path: str | Path) -> set[str]:
    """The names of the variables a ``.mat`` file holds, lower-cased, read from its headers
    only (``scipy.io.whosmat``); empty for a file whose headers cannot be listed (the reader
    then says what is wrong with it)."""
    try:
        return {name.lower() for name, _shape, _cls in scipy.io.whosmat(str(path))}
    except Exception:  # noqa: BLE001 - not a readable .mat file: load() reports it
        return set()


def _holds(names: set[str], variable: str) -> bool:
    return all(v.lower() in names for v in variable.split("/"))


def own_part(path: str | Path, part: str) -> str | None:
    """The variable(s) of ``part`` (``"train"`` or ``"test"``) in a ``.mat`` file that holds
    both parts of a split under its own names (``train_data/train_target`` beside
    ``test_data/test_target``, or ``train`` beside ``test``); None when it does not."""
    names = variable_names(path)
    for parts in SPLIT_PARTS:
        if all(_holds(names, v) for v in parts.values()):
            return parts[part]
    return None


def counterpart(variable: str, part: str, path: str | Path) -> str | None:
    """``variable`` with its leading ``train``/``test`` turned into ``part`` (``train_data`` →
    ``test_data``, ``train_data/train_target`` → ``test_data/test_target``, ``Train`` →
    ``Test``), when the ``.mat`` file at ``path`` holds that; None otherwise."""
    out = []
    for v in variable.split("/"):
        m = _PART.match(v)
        if m is None:
            return None
        word = m.group(1)
        new = part.upper() if word.isupper() else part.capitalize() if word[0].isupper() else part
        out.append(new + v[len(word):])
    other = "/".join(out)
    return other if _holds(variable_names(path), other) else None


def load_matlab(
    path: str | Path,
    *,
    labels: LabelSpec = None,
    variable: str | None = None,
    name: str | None = None,
) -> Dataset:
    """Read a MATLAB ``.mat`` file.

    Recognised layouts (variable names compared case-insensitively, other variables such as
    ``indices`` or ``foldnum`` ignored):

    * a feature matrix and a label matrix: ``data``/``target``, ``data``/``targets``,
      ``X``/``Y``, ``features``/``labels``, ``train_data``/``train_target``, … The label matrix
      may be samples × labels or labels × samples (it is transposed when its second dimension
      equals the number of samples and its first does not);
    * one matrix (``train``, ``test``, ``data``) whose first or last K columns are labels; K is
      never guessed, give ``labels="last:K"`` or ``"first:K"``.

    Parameters
    ----------
    path : str or Path
        The ``.mat`` file.
    labels : str, optional
        ``"last:K"`` / ``"first:K"`` for a single combined matrix. Not allowed when the file has a
        label variable.
    variable : str, optional
        The variable to read when the file holds several candidates (e.g. ``"train"``), the
        feature variable of a known pair (``"train_data"``), or any pair written
        ``"features/labels"`` (``"X_tr/Y_tr"``). :func:`variable_choices` lists what a file
        offers.
    name : str, optional
        Name shown in messages and in ``Dataset.source``.

    Returns
    -------
    Dataset

    Raises
    ------
    DataFormatError
        Not a MATLAB file, a v7.3 (HDF5) file, or no usable variables.
    LabelSpecError
        The labels of a combined matrix were not given, or given in a way that does not fit.
    """
    shown = source_name(path, name)
    raw = _read(path, shown)
    found = _describe(raw)
    num = _numeric_vars(raw, shown)
    lower: dict[str, str] = {}
    for key in num:
        lower.setdefault(key.lower(), key)

    pairs = [(lower[f], lower[t]) for f, t in PAIRS if f in lower and t in lower]
    if variable is not None and "/" in variable:  # an explicit pair "features/labels"
        fv, _, tv = variable.partition("/")
        for v in (fv, tv):
            if v not in num and v.lower() not in lower:
                raise DataFormatError(
                    f"{shown}: no numeric variable {v!r}; variables found: {found}"
                )
        pairs = [(fv if fv in num else lower[fv.lower()], tv if tv in num else lower[tv.lower()])]
        combined = []
    elif variable is not None:
        if variable not in num and variable.lower() not in lower:
            raise DataFormatError(
                f"{shown}: no numeric variable {variable!r}; variables found: {found}"
            )
        var = variable if variable in num else lower[variable.lower()]
        pairs = [pr for pr in pairs if pr[0] == var]
        combined = [] if pairs else [var]
    else:
        combined = [lower[c] for c in COMBINED if c in lower]
    if len(pairs) > 1:
        pairs = pairs[:1] if len({f for f, _ in pairs}) == 1 else pairs
    if len(pairs) > 1:
        options = ", ".join(f"{f}/{t}" for f, t in pairs)
        problem = f"{shown}: several feature/label pairs found ({options})"
        raise DataFormatError(
            f"{problem}; choose one with variable='{pairs[0][0]}' (--variable {pairs[0][0]})",
            problem=problem, fix="variable", choices=[f for f, _ in pairs])

    if pairs:
        fvar, tvar = pairs[0]
        if labels is not None:
            problem = (f"{shown}: the labels are stored in variable {tvar!r}, and a label "
                       f"specification was given too ({labels!r})")
            raise LabelSpecError(
                f"{shown}: the labels are stored in variable {tvar!r}; do not pass a label "
                f"specification (got {labels!r}) for this file", problem=problem, fix="no_labels")
        X = _as_matrix(num[fvar], fvar, shown)
        L = np.asarray(num[tvar])
        if L.ndim == 1:
            L = L[:, None]
        n = X.shape[0]
        transposed = False
        if L.ndim != 2:
            raise DataFormatError(f"{shown}: label variable {tvar} is not a matrix")
        if L.shape[0] != n and L.shape[1] == n:
            L = L.T
            transposed = True
        elif L.shape[0] != n:
            raise DataFormatError(
                f"{shown}: feature variable {fvar} has {n} rows (samples) but label variable "
                f"{tvar} has shape {L.shape[0]}×{L.shape[1]}; neither dimension matches"
            )
        L = L.astype(float)
        q = L.shape[1]
        feature_names = [f"x{j + 1}" for j in range(X.shape[1])]
        label_names = [f"y{i + 1}" for i in range(q)]
        Y, cats, notes = encode_labels(L, label_names, [None] * q, shown)
        how = f"labels: variable {tvar!r}" + (" (stored labels × samples, transposed)" if transposed else "")
        labels_from = f"variable {tvar}"
        layout = f"{fvar}/{tvar}"
    elif combined:
        if len(combined) > 1 and variable is None:
            problem = f"{shown}: several matrices could hold the data ({', '.join(combined)})"
            raise DataFormatError(
                f"{problem}; choose one with variable='{combined[0]}' (--variable {combined[0]})",
                problem=problem, fix="variable", choices=list(combined))
        var = combined[0]
        M = _as_matrix(num[var], var, shown)
        if labels is None:
            problem = (f"{shown}: found variable(s) {found}; the matrix {var!r} "
                       f"({M.shape[0]}×{M.shape[1]}) holds features and labels together, and "
                       "which columns are labels cannot be inferred")
            raise LabelSpecError(f"{problem}; pass labels='last:K' (--labels last:K) or "
                                 "'first:K'", problem=problem, fix="labels_positional")
        if parse_positional(labels) is None:
            problem = (f"{shown}: the columns of {var!r} have no names, so the label columns "
                       f"{labels!r} cannot be matched")
            raise LabelSpecError(
                f"{shown}: the columns of {var!r} have no names, so labels={labels!r} cannot "
                "be matched; pass labels='last:K' or 'first:K'", problem=problem,
                fix="labels_positional")
        cols = [f"c{j + 1}" for j in range(M.shape[1])]
        idx, labels_from, how = resolve_labels(cols, labels, shown=shown)
        feat = [j for j in range(M.shape[1]) if j not in set(idx)]
        X = M[:, feat]
        q = len(idx)
        feature_names = [f"x{j + 1}" for j in range(len(feat))]
        label_names = [f"y{i + 1}" for i in range(q)]
        Y, cats, notes = encode_labels(M[:, idx], label_names, [None] * q, shown)
        layout = var
    else:
        raise DataFormatError(f"{shown}: expected {_EXPECTED}; variables found: {found}")
    if X.shape[0] == 0:
        raise DataFormatError(f"{shown}: the data matrix has no rows")

    meta = {
        "format": "matlab",
        "file": shown,
        "variables": layout,
        "labels_from": labels_from,
        "n_missing": int(np.isnan(X).sum()),
        "notes": notes,
    }
    return Dataset(
        X=X,
        Y=Y,
        feature_names=feature_names,
        label_names=label_names,
        source=f"{shown} (MATLAB, variables {layout}; {how})",
        category_names=cats,
        meta=meta,
    )


__all__ = ["SPLIT_PARTS", "counterpart", "load_matlab", "own_part", "variable_choices",
           "variable_names"]
