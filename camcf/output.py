"""Every file camcf writes goes through here: strict JSON, written atomically.

The rule: the bytes go to a temporary file in the **same folder** as the target, are flushed and
``fsync``-ed, and only then is the temporary file renamed over the target with
:func:`os.replace` (atomic on POSIX and Windows within one file system). A symbolic link is
followed (the file it points to is replaced, the link stays); a target that is not a regular file
(``/dev/stdout``, a pipe) is written through, never replaced. A kill at any moment
leaves either the old file or the new one, never an empty or truncated file, and a failed write
never touches an existing file at that path.

JSON is strict (``allow_nan=False``): a missing or undefined number (NaN, ±inf) is written as
``null`` by :func:`json_safe`, so every output parses with any JSON reader.

>>> json_text({"a": float("nan"), "b": [1.5, float("inf")]})
'{\\n "a": null,\\n "b": [\\n  1.5,\\n  null\\n ]\\n}\\n'
"""

from __future__ import annotations

import errno
import json
import math
import os
import stat
import tempfile
from pathlib import Path
from typing import Any

import numpy as np

from .errors import FileAccessError


def json_safe(obj: Any) -> Any:
    """A copy of ``obj`` that strict JSON can hold: NaN/±inf → None, numpy scalars/arrays →
    Python numbers/lists, tuples → lists. Dict keys are kept (as str when not already)."""
    if isinstance(obj, dict):
        return {(k if isinstance(k, str) else str(k)): json_safe(v) for k, v in obj.items()}
    if isinstance(obj, list | tuple):
        return [json_safe(v) for v in obj]
    if isinstance(obj, np.ndarray):
        return json_safe(obj.tolist())
    if isinstance(obj, bool | np.bool_):
        return bool(obj)
    if isinstance(obj, int | np.integer):
        return int(obj)
    if isinstance(obj, float | np.floating):
        f = float(obj)
        return f if math.isfinite(f) else None
    return obj


def json_text(payload: Any, *, indent: int | None = 1) -> str:
    """Strict JSON text of ``payload`` (NaN → null), ending with a newline."""
    return json.dumps(json_safe(payload), indent=indent, ensure_ascii=False,
                      allow_nan=False) + "\n"


def _reason(e: OSError) -> str:
    if e.errno == errno.ENOSPC:
        return "the disk is full (no space left on the device); free some space or write elsewhere"
    if e.errno in (errno.EACCES, errno.EPERM, errno.EROFS):
        return "permission denied; choose a folder you can write to"
    if e.errno == errno.ENOENT:
        return "the folder does not exist; create it first or choose another path"
    if e.errno == errno.EISDIR:
        return "it is a folder; give a file name"
    return (e.strerror or type(e).__name__) + "; check the path and the disk"


def _where(path: str | os.PathLike) -> tuple[Path, Path | None]:
    """(the file a write of ``path`` replaces — the one a link points to —, its folder), or
    (``path``, None) for a device or a pipe, which is written through. A folder is refused."""
    target = Path(path)
    try:
        st = os.stat(target)  # follows symlinks
    except OSError:
        st = None
    if st is not None and stat.S_ISDIR(st.st_mode):
        raise FileAccessError(f"cannot write {target}: it is a folder; give a file name")
    if st is not None and not stat.S_ISREG(st.st_mode):
        return target, None
    if target.is_symlink():  # replace the file the link points to, not the link
        target = Path(os.path.realpath(target))
    return target, target.parent if str(target.parent) else Path(".")


def write_bytes(path: str | os.PathLike, data: bytes) -> Path:
    """Write ``data`` to ``path`` atomically (temp file in the same folder, fsync, os.replace).

    Raises
    ------
    FileAccessError
        The folder is missing or not writable, the target is a folder, or the disk is full. The
        target is untouched and no temporary file is left behind.
    """
    target, folder = _where(path)
    if folder is None:
        # a device or a pipe (/dev/stdout, /dev/null, a FIFO): write through; never replace it
        try:
            with open(target, "wb") as fh:
                fh.write(data)
                fh.flush()
        except OSError as e:
            raise FileAccessError(f"cannot write {target}: {_reason(e)}") from None
        return target
    tmp_name: str | None = None
    try:
        fd, tmp_name = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=folder)
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
            fh.flush()
            os.fsync(fh.fileno())
        if target.exists():  # keep the permissions of the file being replaced
            try:
                os.chmod(tmp_name, target.stat().st_mode & 0o7777)
            except OSError:
                pass
        else:
            umask = os.umask(0)
            os.umask(umask)
            os.chmod(tmp_name, 0o666 & ~umask)
        os.replace(tmp_name, target)
        tmp_name = None
        try:  # make the rename itself durable
            dfd = os.open(folder, os.O_RDONLY)
            try:
                os.fsync(dfd)
            finally:
                os.close(dfd)
        except OSError:
            pass
    except OSError as e:
        raise FileAccessError(f"cannot write {target}: {_reason(e)}") from None
    finally:
        if tmp_name is not None:
            try:
                os.unlink(tmp_name)
            except OSError:
                pass
    return target


def check_writable(path: str | os.PathLike) -> Path:
    """Check, before any work, that :func:`write_bytes` could write ``path``: the target is
    not a folder, its folder exists and a file can be created in it (a temporary file is made
    and removed again, exactly as the write would). Nothing at ``path`` is touched.

    Raises
    ------
    FileAccessError
        As :func:`write_bytes` would, naming the path and the way out.
    """
    target, folder = _where(path)
    if folder is None:  # a device or a pipe: written through
        if not os.access(target, os.W_OK):
            raise FileAccessError(f"cannot write {target}: permission denied; choose a "
                                  "file you can write to")
        return target
    try:
        fd, tmp_name = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=folder)
    except OSError as e:
        raise FileAccessError(f"cannot write {target}: {_reason(e)}") from None
    os.close(fd)
    try:
        os.unlink(tmp_name)
    except OSError:
        pass
    return target


def write_text(path: str | os.PathLike, text: str) -> Path:
    """Write UTF-8 ``text`` atomically (see :func:`write_bytes`)."""
    return write_bytes(path, text.encode("utf-8"))


def write_json(path: str | os.PathLike, payload: Any, *, indent: int | None = 1) -> Path:
    """Write ``payload`` as strict JSON (NaN → null) atomically (see :func:`write_bytes`)."""
    return write_text(path, json_text(payload, indent=indent))


__all__ = ["check_writable", "json_safe", "json_text", "write_bytes", "write_json",
           "write_text"]
