"""Parallel runs: shared arrays for local workers, a Dask cluster through its client.

:func:`camcf.run` with ``n_jobs`` > 1 hands its work to joblib: the two unconditional tables in
row blocks, then the target categories in parts sized by an estimate of their cost, the large
ones first. The large read-only arrays (codes, category indicators, tables, the engine's shared
inputs) are put once in files of a :class:`SharedArrays` folder: local process workers map
them (joblib passes a memory-mapped array by file name; :func:`resolve` makes it a plain
ndarray), nothing is pickled per task, and the workers write the tables' rows into such files
(:func:`write_shared`). Workers that see the folder run one task each
(:class:`camcf.tasks.LocalRun`) that takes the table parts, then the target parts, one after
the other (:func:`claim`), and leaves each part's result in a file that the run and the other
tasks read as it appears (:func:`post`, :class:`Posts`): no result waits for joblib or a
scheduler between the steps. Inside :func:`dask_cluster` the tasks go to the workers of a
``dask.distributed`` scheduler through its client (:func:`dask_submit`): workers on this
machine map the same files (:meth:`SharedArrays.refs`) and run the same tasks; remote ones
receive each shared array once (scattered to every worker) and get table tasks, then target
tasks, whose results come back through the scheduler. The workers need camcf installed (the
same version as the client).

>>> with dask_cluster("tcp://10.0.0.5:8786"):            # doctest: +SKIP
...     res = camcf.run(X, Y, n_jobs=-1)
"""

from __future__ import annotations

import contextlib
import contextvars
import gc
import itertools
import mmap
import os
import pickle
import shutil
import sys
import tempfile
import threading
import time
import weakref
from collections.abc import Iterator

import numpy as np

from ._sparse import issparse
from .errors import CamcfError

_CLIENT: contextvars.ContextVar = contextvars.ContextVar("camcf_dask_client", default=None)


@contextlib.contextmanager
def dask_cluster(address, *, timeout: float = 20.0) -> Iterator[object]:
    """Run camcf's parallel work on a Dask cluster inside this context; yields the
    ``dask.distributed.Client``.

    ``address``: the scheduler's address (e.g. ``tcp://HOST:8786``; a client is connected and
    closed at the end), a cluster object (``distributed.LocalCluster``, say; likewise) or a
    ``Client`` already connected (used as it is, not closed). Inside, joblib's Dask backend
    is the active one (the evaluation's tasks use it) and :func:`camcf.run` with ``n_jobs``
    ≠ 1 submits its tasks to the client directly (:func:`dask_submit`): the shared arrays reach
    each worker once per run, and tasks go to whichever worker is free.

    Raises :class:`CamcfError` when dask.distributed is missing or the scheduler cannot be
    reached within ``timeout`` seconds.
    """
    try:
        import joblib
        from distributed import Client
    except ImportError:  # pragma: no cover - a declared dependency
        raise CamcfError("running on a Dask cluster needs dask[distributed]: "
                         "pip install 'dask[distributed]'") from None
    own = not isinstance(address, Client)
    if own:
        try:
            client = Client(address, timeout=timeout)
        except (OSError, TimeoutError, ValueError) as e:
            raise CamcfError(f"cannot connect to the Dask scheduler at {address}: {e}; check "
                             f"the address (tcp://HOST:PORT) and that the scheduler is "
                             f"running") from None
    else:
        client = address
    token = _CLIENT.set(client)
    try:
        with joblib.parallel_backend("dask", client=client):
            yield client
    finally:
        _CLIENT.reset(token)
        if own:
            client.close()


def active_client():
    """The ``distributed.Client`` of the enclosing :func:`dask_cluster`, or None."""
    return _CLIENT.get()


_SEEN: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()  # client -> what its workers saw


def dask_sees(client, store: SharedArrays) -> bool:
    """Whether every worker of the Dask ``client`` sees ``store``'s folder (a cluster on this
    machine): the answer kept in ``store.local_to`` (:func:`camcf.run` asks while it prepares
    its inputs, :func:`dask_submit` when not yet asked). The workers are asked (a round trip
    through the scheduler to each) once per client, set of workers and parent folder: a
    folder beside one they saw is on the same file system; a new worker is asked again."""
    if store.local_to is not client:
        key = (frozenset(client.nthreads()), os.path.dirname(store.folder))
        if _SEEN.get(client) != key:
            seen = client.run(os.path.isdir, store.folder)
            if seen and all(seen.values()) and set(seen) == key[0]:
                _SEEN[client] = key
            else:
                _SEEN.pop(client, None)
        store.local_to = client if _SEEN.get(client) == key else None
    return store.local_to is client


def dask_submit(client, fn, common: tuple, tasks: list[tuple], store: SharedArrays, *,
                ordered: bool = True) -> list:
    """Submit ``fn(*common, *task)`` for each of ``tasks`` to the Dask ``client``: the
    futures, in ``tasks``' order. ``ordered``: each with its own priority, the first highest
    (give them heaviest first); else all in one message (``client.map``: a few ms less here,
    for tasks whose order does not matter). A task may hold futures (of an earlier step,
    say): Dask runs it once they are done and passes their results in their place, with no
    round trip through this process.

    ``common`` (the arguments every task shares) reach each worker once: when every worker
    sees ``store``'s folder (a cluster on this machine), as references to its files
    (:meth:`SharedArrays.refs`; each task maps them, nothing is copied); otherwise scattered
    to every worker at once (``client.scatter(..., broadcast=True)``), so that no worker
    waits for another to pass it the data and the scheduler may start a task on any."""
    if dask_sees(client, store):
        args = [store.refs(a) for a in common]
    else:
        args = client.scatter(list(common), broadcast=True, hash=False)
    if not ordered and tasks:
        n = len(tasks)
        return client.map(fn, *([a] * n for a in args), *map(list, zip(*tasks, strict=True)),
                          pure=False)
    return [client.submit(fn, *args, *task, pure=False, priority=len(tasks) - i)
            for i, task in enumerate(tasks)]


def dask_results(client, futures: list) -> Iterator[object]:
    """The results of the Dask ``futures`` (:func:`dask_submit`) as they finish; the ones not
    taken are cancelled when the iterator closes."""
    from distributed import as_completed

    try:
        for _, result in as_completed(futures, with_results=True):
            yield result
    finally:
        left = [f for f in futures if not f.done()]
        if left:
            client.cancel(left)


_BLAS = None  # one threadpoolctl controller per process (finding the libraries takes ms)


def one_blas_thread() -> contextlib.AbstractContextManager:
    """A context in which BLAS runs on one thread: the engine's per-target products are
    small, and more threads would only contend with each other and with joblib's workers."""
    global _BLAS
    if _BLAS is None:
        from threadpoolctl import ThreadpoolController

        _BLAS = ThreadpoolController()
    return _BLAS.limit(limits=1, user_api="blas")


_SHARE_FROM = 1 << 16  # bytes from which an array is written to a shared file (smaller: pickled)
_SHM = "/dev/shm"  # the RAM-backed folder of Linux; used when it has room, else the temp folder


def _shared_dir(nbytes: int) -> str | None:
    """Where to put shared arrays: ``$JOBLIB_TEMP_FOLDER`` when set (as joblib does), else
    ``/dev/shm`` when it exists and has room for twice ``nbytes`` (at least 256 MB; a
    container's default 64 MB /dev/shm would fail on write), else the system's temporary
    folder (None)."""
    folder = os.environ.get("JOBLIB_TEMP_FOLDER")
    if folder:
        return folder
    if os.path.isdir(_SHM) and hasattr(os, "statvfs") and os.access(_SHM, os.W_OK):
        try:
            st = os.statvfs(_SHM)
        except OSError:
            return None
        if st.f_bavail * st.f_frsize >= max(2 * int(nbytes), 256 << 20):
            return _SHM
    return None


class SharedArrays:
    """Read-only arrays that local worker processes map from a file instead of receiving a
    copy with each task.

    joblib passes an array backed by an ``np.memmap`` to its process workers by file name,
    offset and strides (see joblib's "Working with numerical data in shared memory"): each
    worker maps the file and nothing is pickled, whatever the number of tasks. The files live
    in one folder (``/dev/shm`` when it has room), removed by :meth:`close` — or when the
    object is collected. A Dask backend pickles such arrays by value (it scatters each once).

    >>> import numpy as np
    >>> store = SharedArrays()
    >>> C = store.empty((1000, 100), np.uint8, order="F")
    >>> C[:] = 1
    >>> A = store.share(np.arange(10_000.0))   # a read-only copy, mapped from a file
    >>> store.close()
    """

    def __init__(self, nbytes: int = 0) -> None:
        self.folder = tempfile.mkdtemp(prefix="camcf-shared-", dir=_shared_dir(nbytes))
        self._count = itertools.count(1)  # file numbers (next() is atomic: threads may share)
        self.local_to = None  # the Dask client whose workers all see the folder (dask_sees)
        self._cleanup = weakref.finalize(self, shutil.rmtree, self.folder, ignore_errors=True)

    def close(self) -> None:
        """Remove the folder (workers that still map a file keep their mapping)."""
        self._cleanup()

    def close_later(self, *held, after=None) -> None:
        """:meth:`close` on a thread of its own, after dropping ``held`` (the caller's last
        references to arrays of this folder; the caller drops its own) and calling ``after``
        (when given: waits for the tasks that use the folder to end): unmapping tens of MB
        of shared pages and freeing them took a parallel run's end 10–40 ms that nothing
        waits for. The thread is not a daemon: the interpreter waits for it at exit, so the
        folder goes in any case."""
        box = [held]
        del held

        def drop() -> None:
            try:
                if after is not None:
                    after()
            finally:
                box.clear()
                self.close()

        threading.Thread(target=drop, name="camcf-shared-close").start()

    def __enter__(self) -> SharedArrays:
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def _path(self) -> str:
        return os.path.join(self.folder, f"a{next(self._count)}.npy")

    def empty(self, shape: tuple, dtype, *, order: str = "C") -> np.ndarray:
        """A new writable array (uninitialised) in a file of this folder; fill it, then pass it
        (or :meth:`readonly` of it) to the workers."""
        return np.asarray(np.lib.format.open_memmap(
            self._path(), mode="w+", dtype=dtype, shape=tuple(shape),
            fortran_order=order == "F"))

    @staticmethod
    def path(a: np.ndarray) -> str:
        """The file of an array of :meth:`empty` (for :func:`write_shared` in a worker)."""
        m = _backing_memmap(a)
        if m is None or m.filename is None:
            raise ValueError("path() takes an array made by SharedArrays.empty")
        return m.filename

    @staticmethod
    def keep(a: np.ndarray) -> np.ndarray:
        """An array of :meth:`empty` as an array of its own that outlives :meth:`close`: on
        POSIX a private copy-on-write mapping of its file (the file's pages stay while the
        array does, a write copies the page it touches; no copy of the whole now), elsewhere
        (a mapped file cannot be removed there) a copy."""
        m = _backing_memmap(a)
        if os.name != "posix" or m is None or m.filename is None or m.shape != a.shape:
            return np.array(a)
        return np.asarray(np.lib.format.open_memmap(m.filename, mode="c"))

    @staticmethod
    def readonly(a: np.ndarray) -> np.ndarray:
        """An array of :meth:`empty`, mapped again read-only (workers then map it read-only)."""
        m = _backing_memmap(a)
        if m is None or m.filename is None or m.shape != a.shape:
            raise ValueError("readonly() takes an array made by SharedArrays.empty")
        return np.asarray(np.lib.format.open_memmap(m.filename, mode="r"))

    def _write(self, a: np.ndarray) -> np.memmap:
        """A read-only copy of the contiguous array ``a`` (same order) in a new file, written
        by one call (:func:`write_shared`; not through a mapping, a fault per page)."""
        fortran = a.ndim > 1 and a.flags.f_contiguous and not a.flags.c_contiguous
        path = self._path()
        made = np.lib.format.open_memmap(path, mode="w+", dtype=a.dtype, shape=a.shape,
                                         fortran_order=fortran)
        del made  # (the file with its header, at its size)
        if write_shared(path, a.T if fortran else a) is not None:
            raise OSError(f"cannot write {path}")
        return np.lib.format.open_memmap(path, mode="r")

    def put(self, obj) -> PickleRef:
        """``obj`` pickled once into a file of this folder: a reference a few bytes long that
        workers which see the folder load with :func:`resolve` (for an object every task of a
        step needs, sent so without its bytes in each task)."""
        path = self._path()[:-4] + ".pkl"
        with open(path, "wb") as f:
            pickle.dump(obj, f, protocol=pickle.HIGHEST_PROTOCOL)
        return PickleRef(path)

    def refs(self, a):
        """``a`` (as :meth:`share` takes it) with every array in a file of this folder
        replaced by a :class:`FileRef` (for workers that see the folder but are not joblib's:
        a Dask cluster on this machine); :func:`resolve` undoes it."""
        if isinstance(a, tuple):
            return tuple(self.refs(x) for x in a)
        if issparse(a) and a.format in ("csc", "csr"):
            parts = tuple(_ref(self, x) for x in (a.data, a.indices, a.indptr))
            if any(isinstance(x, FileRef) for x in parts):
                return _SparseRef(type(a), parts, a.shape)
            return a
        return _ref(self, a)

    def share(self, a):
        """``a`` with every large array in a file of this folder: an ndarray (same values,
        shape, dtype and strides, read-only), a ``scipy.sparse`` CSC/CSR matrix (its three
        arrays), a tuple of such, or None. Arrays under 64 KB, other objects and arrays already
        in a file are returned as they are."""
        if a is None:
            return None
        if isinstance(a, tuple):
            return tuple(self.share(x) for x in a)
        if issparse(a):
            if a.format not in ("csc", "csr"):
                return a
            return type(a)((self.share(a.data), self.share(a.indices), self.share(a.indptr)),
                           shape=a.shape, copy=False)
        if not isinstance(a, np.ndarray) or a.nbytes < _SHARE_FROM or a.dtype.hasobject \
                or _backing_memmap(a) is not None:
            return a
        root = a
        while isinstance(root.base, np.ndarray):
            root = root.base
        if root is not a and (root.flags.c_contiguous or root.flags.f_contiguous) \
                and root.nbytes <= 2 * a.nbytes and min(a.strides, default=0) >= 0:
            # a view (a transpose, say) of one contiguous array: that array in the file and
            # the same view of it, so that a worker sees the same layout
            ro = self._write(root)
            return np.ndarray(shape=a.shape, dtype=a.dtype, buffer=ro, strides=a.strides,
                              offset=_address(a) - _address(root))
        if not (a.flags.c_contiguous or a.flags.f_contiguous):
            a = np.ascontiguousarray(a)
        return np.asarray(self._write(a))


class _SparseRef:
    """A CSC/CSR matrix whose arrays are :class:`FileRef` (:meth:`SharedArrays.refs`)."""

    def __init__(self, kind, parts: tuple, shape: tuple) -> None:
        self.kind, self.parts, self.shape = kind, parts, shape

    def open(self):
        return self.kind(tuple(resolve(x) for x in self.parts), shape=self.shape, copy=False)


def claim(ref: PickleRef, keys, done=()):
    """The first of ``keys`` (slot names: 0, 1, …, or strings) that no other task has claimed,
    claimed now for the calling task, or None when all are taken: the order in which tasks
    start decides which part of the work each takes, whatever order they were sent in. A
    claim is a file beside ``ref``'s, made with ``O_EXCL`` (atomic on a local file system:
    the workers that see a :class:`SharedArrays` folder share it) and holding the Dask task's
    key, so that a task run again (its worker lost) takes its own slots again; ``done``: the
    slots the calling task has finished (a task claims slot after slot)."""
    key = ""
    if "distributed" in sys.modules:
        with contextlib.suppress(ImportError, ValueError, KeyError):
            from distributed import get_worker

            key = str(get_worker().get_current_task())
    for k in keys:
        if k in done:
            continue
        path = f"{ref.path}.{k}"
        try:
            fd = os.open(path, os.O_CREAT | os.O_EXCL | os.O_WRONLY)
        except FileNotFoundError:  # (the folder went: the run ended)
            return None
        except FileExistsError:
            if key:
                with open(path) as f:
                    if f.read() == key:
                        return k
            continue
        with os.fdopen(fd, "w") as f:
            f.write(key)
        return k
    return None


class Failed:
    """What a task posts (:func:`post`) in place of a slot's result when its work raised:
    the error (or, when it does not pickle, its text), raised again by the reader."""

    def __init__(self, error: BaseException) -> None:
        try:
            pickle.dumps(error)
            self.error = error
        except Exception:  # (an error that does not pickle)
            self.error = CamcfError(f"a worker's task failed: {error!r}")


def post(ref: PickleRef, k, obj) -> None:
    """Leave ``obj`` pickled beside ``ref`` as the result of slot ``k`` (:func:`claim`),
    for :class:`Posts`: written whole under a name of the caller's, then renamed (a reader
    finds all of it or nothing; tasks that post the same slot leave the same object); then
    a byte to each reader's pipe beside ``ref`` (``.wake.*``), to wake it. Nothing when the
    folder went (the run is over)."""
    path = f"{ref.path}.r{k}"
    part = f"{path}.{os.getpid()}-{threading.get_ident()}.part"  # (two may post one slot)
    try:
        with open(part, "wb") as f:
            pickle.dump(obj, f, protocol=pickle.HIGHEST_PROTOCOL)
        os.replace(part, path)
    except FileNotFoundError:
        return
    wake(ref)


def wake(ref: PickleRef) -> None:
    """A byte to each pipe of a reader of ``ref``'s posts (:class:`Posts`): each looks for
    its results again."""
    folder, name = os.path.split(ref.path)
    prefix = name + ".wake."
    with contextlib.suppress(OSError):
        names = [x for x in os.listdir(folder) if x.startswith(prefix)]
        for x in names:
            with contextlib.suppress(OSError):  # (no reader now: it looks again anyway)
                fd = os.open(os.path.join(folder, x), os.O_WRONLY | os.O_NONBLOCK)
                try:
                    os.write(fd, b".")
                finally:
                    os.close(fd)


_LOOK_AGAIN = 0.05  # seconds after which a reader of posts looks at the tasks and files anyway
_POLL = 0.002  # seconds between looks for posts where there is no pipe to wait on


class Posts:
    """The results that tasks leave beside ``ref`` (:func:`post`), read as they appear
    without passing through a scheduler: made before the posts it waits for (each post
    wakes it), with a named pipe of its own beside ``ref`` (``reader`` names it: this
    process and each worker that waits for the others' posts) that each post writes a byte
    to, so that waiting costs no CPU (looking for the files every half millisecond took 40 %
    of a core here); without one (no ``os.mkfifo``) it looks every 2 ms. :meth:`stop` tells
    every reader of ``ref`` to give up."""

    def __init__(self, ref: PickleRef, reader: str = "run") -> None:
        self.ref = ref
        self._fds: tuple[int, int] | None = None
        if hasattr(os, "mkfifo"):
            path = f"{ref.path}.wake.{reader}"
            with contextlib.suppress(OSError):
                os.mkfifo(path)
                r = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
                # (a writer kept open here: the pipe never reads as ended while waiting)
                self._fds = (r, os.open(path, os.O_WRONLY | os.O_NONBLOCK))

    def _wait(self) -> None:
        if self._fds is None:
            time.sleep(_POLL)
            return
        import select

        if select.select([self._fds[0]], [], [], _LOOK_AGAIN)[0]:
            with contextlib.suppress(BlockingIOError):
                os.read(self._fds[0], 1 << 16)

    def take(self, keys, ended) -> Iterator[tuple[object, object]]:
        """(slot, result) for each of the slots ``keys`` as its result appears; raises what
        a task posted as :class:`Failed`, :class:`CamcfError` when :meth:`stop` was called,
        or when ``ended()`` (asked whenever no result is there: it may raise a task's error
        itself) says the tasks ended without posting them all."""
        path = self.ref.path
        left = list(keys)
        while left:
            found = [k for k in left if os.path.exists(f"{path}.r{k}")]
            for k in found:
                with open(f"{path}.r{k}", "rb") as f:
                    got = pickle.load(f)
                left.remove(k)
                if isinstance(got, Failed):
                    raise got.error
                yield k, got
            if found:
                continue
            if os.path.exists(f"{path}.stop"):
                raise CamcfError("the parallel run was stopped")
            if ended() and not any(os.path.exists(f"{path}.r{k}") for k in left):
                raise CamcfError(f"the parallel tasks ended without {len(left)} of their "
                                 f"results")
            self._wait()

    def stop(self) -> None:
        """Tell every reader of ``ref``'s posts (tasks waiting for each other's) to give up."""
        with contextlib.suppress(OSError):
            open(f"{self.ref.path}.stop", "wb").close()
        wake(self.ref)

    def close(self) -> None:
        for fd in self._fds or ():
            os.close(fd)
        self._fds = None


class PickleRef:
    """An object pickled in a file of a :class:`SharedArrays` (:meth:`SharedArrays.put`);
    :func:`resolve` loads it. ``token``: random, one per object put (a worker may key what
    it derives from the object by it)."""

    __slots__ = ("path", "token")

    def __init__(self, path: str, token: str | None = None) -> None:
        self.path, self.token = path, token or os.urandom(12).hex()

    def __getstate__(self):
        return self.path, self.token

    def __setstate__(self, state) -> None:
        self.path, self.token = state

    def open(self):
        with open(self.path, "rb") as f:
            return pickle.load(f)


class FileRef:
    """An array of a :class:`SharedArrays` file by reference (file, offset, shape, strides,
    dtype): a few bytes to send; :func:`resolve` maps the file and gives the same array."""

    __slots__ = ("path", "offset", "shape", "strides", "dtype")

    def __init__(self, path: str, offset: int, shape: tuple, strides: tuple, dtype) -> None:
        self.path, self.offset, self.shape = path, int(offset), tuple(shape)
        self.strides, self.dtype = tuple(strides), np.dtype(dtype)

    def __getstate__(self):
        return (self.path, self.offset, self.shape, self.strides, self.dtype.str)

    def __setstate__(self, state) -> None:
        self.__init__(*state)

    def open(self) -> np.ndarray:
        """The array, mapped read-only from the file (a plain ndarray over the mapping)."""
        m = np.lib.format.open_memmap(self.path, mode="r")
        return np.ndarray(shape=self.shape, dtype=self.dtype, buffer=m, offset=self.offset,
                          strides=self.strides)


def _ref(store: SharedArrays, a):
    m = _backing_memmap(a) if isinstance(a, np.ndarray) else None
    if m is None or m.filename is None or os.path.dirname(m.filename) != store.folder:
        return a
    return FileRef(m.filename, _address(a) - _address(m), a.shape, a.strides, a.dtype)


def resolve(a):
    """What a worker task does with its shared arguments: a :class:`FileRef` mapped (a
    :class:`PickleRef` loaded), an
    ``np.memmap`` (joblib's process workers receive those) seen as a plain ndarray over the
    same mapping (the subclass adds a Python call to every slice), the same inside a tuple or
    a scipy.sparse matrix; anything else as it is."""
    if isinstance(a, (FileRef, _SparseRef, PickleRef)):
        return a.open()
    if isinstance(a, np.memmap):
        return np.asarray(a)
    if isinstance(a, tuple):
        return tuple(resolve(x) for x in a)
    if issparse(a) and a.format in ("csc", "csr"):
        parts = (a.data, a.indices, a.indptr)
        if any(isinstance(x, np.memmap) for x in parts):
            return type(a)(tuple(np.asarray(x) for x in parts), shape=a.shape, copy=False)
    return a


_GC: list = [0, False]  # tasks of this process inside collection_paused; collector on before
_GC_LOCK = threading.Lock()


@contextlib.contextmanager
def collection_paused() -> Iterator[None]:
    """A worker task's context: Python's cyclic garbage collector paused while the task runs,
    its state before given back when the last such task of the process ends. A task makes
    hundreds of thousands of small objects (records, sets, results) that reference counting
    frees; meanwhile every few hundred of them set off a collection, and now and then a full
    one that walks every object of the process: in a Dask worker (about 80,000 objects of
    its own, against 45,000 in a joblib worker) a full collection took 30–37 ms, one every
    fifth run on delicious's shape, 40 ms of collecting a worker per five runs against 5 in
    a joblib worker. Cycles made meanwhile are collected after the task."""
    with _GC_LOCK:
        if _GC[0] == 0:
            _GC[1] = gc.isenabled()
            gc.disable()
        _GC[0] += 1
    try:
        yield
    finally:
        with _GC_LOCK:
            _GC[0] -= 1
            if _GC[0] == 0 and _GC[1]:
                gc.enable()


_M_TRIM_THRESHOLD, _M_MMAP_THRESHOLD = -1, -3  # mallopt's parameters (glibc's malloc.h)
_MALLOC: list = []  # [glibc's library in a worker process, or None] once asked


def _malloc_lib():
    """glibc's library (for ``mallopt``) in a worker process on Linux, else None."""
    if not _MALLOC:
        lib = None
        if sys.platform.startswith("linux"):
            import multiprocessing

            if multiprocessing.parent_process() is not None:
                try:
                    import ctypes

                    lib = ctypes.CDLL("libc.so.6")
                    lib.mallopt, lib.malloc_trim  # noqa: B018 - both must exist
                except (OSError, AttributeError):
                    lib = None
        _MALLOC.append(lib)
    return _MALLOC[0]


def _env_bytes(name: str, default: int) -> int:
    try:
        return int(os.environ.get(name, default))
    except ValueError:
        return default


_GIVE_BACK_AFTER = 0.5  # seconds without a task after which a Dask worker gives memory back
_TIMER: list = [None, 0]  # the pending give-back of this worker process; tasks running
_TIMER_LOCK = threading.Lock()


@contextlib.contextmanager
def freed_memory_kept() -> Iterator[None]:
    """A worker task's context on glibc: memory the task frees is kept for its next
    allocations instead of being given back to the system at once (``mallopt``: blocks up to
    32 MB from the heap, the heap trimmed above 256 MB free), and the worker keeps the setting
    for its next tasks. The tasks allocate the same tens of MB of temporaries again and
    again; given back, each allocation faulted its pages in anew, which cost the table tasks
    a quarter of their time in system CPU. A Dask worker gets its own setting back and gives
    the memory back once no such task has run for half a second
    (:func:`give_back_freed_memory` on a timer thread: the end of a parallel step waits for
    no round trip to the workers). Nothing happens in the main process or on other C
    libraries."""
    lib = _malloc_lib()
    dask = lib is not None and _in_dask_worker()
    if dask:
        with _TIMER_LOCK:
            if _TIMER[0] is not None:
                _TIMER[0].cancel()
                _TIMER[0] = None
            _TIMER[1] += 1
    if lib is not None:
        lib.mallopt(_M_MMAP_THRESHOLD, 32 << 20)
        lib.mallopt(_M_TRIM_THRESHOLD, 256 << 20)
    try:
        yield
    finally:
        if dask:
            with _TIMER_LOCK:
                _TIMER[1] -= 1
                if _TIMER[1] == 0:  # (the last task running in this worker)
                    _TIMER[0] = threading.Timer(_GIVE_BACK_AFTER, _give_back_later)
                    _TIMER[0].daemon = True
                    _TIMER[0].start()


def _give_back_later() -> None:
    with _TIMER_LOCK:  # (unless a task started meanwhile: it cancelled this timer)
        if _TIMER[0] is threading.current_thread() and _TIMER[1] == 0:
            _TIMER[0] = None
            give_back_freed_memory()


def _in_dask_worker() -> bool:
    """Whether this thread runs a Dask worker's task."""
    if "distributed" not in sys.modules:
        return False
    from distributed import get_worker

    try:
        get_worker()
    except ValueError:
        return False
    return True


def give_back_freed_memory() -> None:
    """On a Dask worker process, after a parallel step of :func:`camcf.run`
    (:func:`freed_memory_kept`'s timer): malloc's trimming as the worker started with (the nanny's
    ``MALLOC_TRIM_THRESHOLD_``, else glibc's 128 KB) and the freed memory given back
    (``malloc_trim``), as Dask means its workers to. Nothing elsewhere."""
    lib = _malloc_lib()
    if lib is None:
        return
    lib.mallopt(_M_TRIM_THRESHOLD, _env_bytes("MALLOC_TRIM_THRESHOLD_", 128 << 10))
    lib.mallopt(_M_MMAP_THRESHOLD, _env_bytes("MALLOC_MMAP_THRESHOLD_", 128 << 10))
    lib.malloc_trim(0)


def _backing_memmap(a) -> np.memmap | None:
    """The ``np.memmap`` at the bottom of ``a``'s chain of bases, or None."""
    while a is not None:
        if isinstance(a, np.memmap) and isinstance(a.base, mmap.mmap):
            return a
        a = getattr(a, "base", None)
    return None


def _address(a: np.ndarray) -> int:
    return int(a.__array_interface__["data"][0])


def write_shared(path: str, value: np.ndarray, start: int = 0) -> np.ndarray | None:
    """Put a worker's result into the array file ``path`` of a :class:`SharedArrays` when this
    process can open it (a local worker or thread) and return None; elsewhere (a remote Dask
    worker, say) return ``value`` for the caller to receive as usual. ``value`` holds rows
    ``start``.. of a row-major file's array, or columns ``start``.. of a column-major one,
    each as a row: a contiguous part of the file, written by one ``write`` call. (Written
    through a mapping instead, each new page of the file cost a page fault: on a table of
    16 MB about three times the CPU of the write.)"""
    from numpy.lib import format as npy

    try:
        f = open(path, "r+b")
    except OSError:
        return value
    with f:
        version = npy.read_magic(f)
        read = npy.read_array_header_1_0 if version == (1, 0) else npy.read_array_header_2_0
        shape, fortran, dtype = read(f)
        if len(shape) > 1 and fortran:
            shape = shape[::-1]  # (its columns are its outer axis)
        if not value.ndim or value.shape[1:] != shape[1:] or value.dtype != dtype \
                or start < 0 or start + value.shape[0] > shape[0]:
            return value
        data = np.ascontiguousarray(value)
        f.seek(f.tell() + start * (data.nbytes // max(data.shape[0], 1)))
        f.write(memoryview(data).cast("B"))
    return None
