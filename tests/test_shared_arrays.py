"""camcf.parallel.SharedArrays and write_shared: arrays that local joblib workers map from a file
(same values and layout, read-only), results written back in place, the folder removed."""

from __future__ import annotations

import os
import pickle
import sys

import numpy as np
import pytest
import scipy.sparse as sp
from joblib import Parallel, delayed

from camcf.parallel import SharedArrays, write_shared


def _is_mapped(a) -> bool:
    while a is not None:
        if isinstance(a, np.memmap):
            return True
        a = getattr(a, "base", None)
    return False


def _layout(a):
    return a.shape, a.dtype, a.strides


def test_share_keeps_values_and_layout_read_only():
    rng = np.random.default_rng(0)
    base = rng.random((50, 3, 200)).astype(np.float32)
    view = base.transpose(1, 0, 2)  # a strided view, as the engine's indicators are
    fortran = np.asfortranarray(rng.integers(0, 5, (1000, 70)).astype(np.uint8))
    small = np.arange(10)
    with SharedArrays() as store:
        for a in (view, fortran, base):
            s = store.share(a)
            assert _is_mapped(s) and _layout(s) == _layout(a)
            np.testing.assert_array_equal(s, a)
            assert not s.flags.writeable
            assert store.share(s) is s  # already in a file: as it is
        assert store.share(small) is small and store.share(None) is None
        X = sp.random(400, 300, density=0.2, format="csc", random_state=0, dtype=np.float64)
        Xs = store.share(X)
        assert Xs.format == "csc" and _is_mapped(Xs.data) and _is_mapped(Xs.indices)
        assert (Xs != X).nnz == 0
        pair = store.share((fortran, None))
        assert _is_mapped(pair[0]) and pair[1] is None
        folder = store.folder
        assert os.listdir(folder)
    assert not os.path.exists(folder)


def test_empty_then_readonly_and_path():
    with SharedArrays() as store:
        C = store.empty((1000, 40), np.uint8, order="F")
        C[:] = 3
        ro = store.readonly(C)
        assert ro.flags.f_contiguous and not ro.flags.writeable and int(ro.sum()) == 3 * 40_000
        assert os.path.dirname(SharedArrays.path(C)) == store.folder
        with pytest.raises(ValueError, match="SharedArrays.empty"):
            store.readonly(np.zeros(3))


def _fill(path, value):
    return write_shared(path, value)


def test_process_workers_map_the_files_and_write_results_in_place():
    with SharedArrays() as store:
        a = store.share(np.arange(100_000, dtype=np.float64))
        # a memory-mapped array pickles by file (joblib's reducer), not by value
        outs = [store.empty((200, 100), np.float64) for _ in range(2)]
        got = Parallel(n_jobs=2, max_nbytes=None)(
            delayed(_fill)(SharedArrays.path(o), np.full((200, 100), float(k)) + a[k])
            for k, o in enumerate(outs))
        assert got == [None, None]
        for k, o in enumerate(outs):
            assert (store.readonly(o) == k + k).all()
        # where the file is not there (a remote worker) the value comes back
        v = np.ones((2, 2))
        assert write_shared(os.path.join(store.folder, "missing.npy"), v) is v
        assert len(pickle.dumps(a)) > a.nbytes  # plain pickle still copies (no file tricks)


def test_write_shared_puts_rows_at_their_offset_and_returns_what_does_not_fit():
    """A table task writes its block of rows into the rows it covers (of a column-major file,
    its columns); a block that does not fit the file (other width or type, beyond its rows)
    comes back to the caller."""
    with SharedArrays() as store:
        out = store.empty((6, 3), np.float64)
        out[:] = -1.0
        path = SharedArrays.path(out)
        assert write_shared(path, np.full((2, 3), 7.0), 2) is None
        assert write_shared(path, np.full((2, 3), 9.0), 4) is None
        got = np.array(store.readonly(out))
        assert (got[:2] == -1).all() and (got[2:4] == 7).all() and (got[4:] == 9).all()
        for bad, start in ((np.ones((2, 4)), 0), (np.ones((2, 3), np.float32), 0),
                           (np.ones((2, 3)), 5)):
            assert write_shared(path, bad, start) is bad
        assert (np.array(store.readonly(out))[4:] == 9).all()  # nothing was written
        # a column-major file takes columns, each given as a row (its contiguous part)
        cols = store.empty((4, 6), np.float64, order="F")
        cols[:] = -1.0
        part = np.arange(8.0).reshape(2, 4)
        assert write_shared(SharedArrays.path(cols), part, 3) is None
        got = np.array(store.readonly(cols))
        assert np.array_equal(got[:, 3:5], part.T) and (np.delete(got, [3, 4], 1) == -1).all()
        assert write_shared(SharedArrays.path(cols), part, 5) is part  # beyond its columns


def test_refs_travel_as_a_few_bytes_and_resolve_to_the_same_arrays():
    """SharedArrays.refs replaces each array of a file by a FileRef (a Dask worker on this
    machine maps it); resolve gives back the same values, shape, strides and dtype as a plain
    ndarray over the mapping, inside tuples and sparse matrices too; np.memmap (what joblib's
    workers receive) resolves to a plain ndarray; anything else stays as it is."""
    from camcf.parallel import FileRef, resolve

    rng = np.random.default_rng(1)
    view = rng.random((40, 3, 600)).astype(np.float32).transpose(1, 0, 2)
    fortran = np.asfortranarray(rng.integers(0, 5, (2000, 40)).astype(np.uint8))
    X = sp.random(500, 300, density=0.2, format="csc", random_state=1, dtype=np.float64)
    with SharedArrays() as store:
        shared = (store.share(view), store.share(fortran), store.share(X), np.arange(5), None)
        refs = store.refs(shared)
        assert isinstance(refs[0], FileRef) and isinstance(refs[1], FileRef)
        assert refs[3] is shared[3] and refs[4] is None
        blob = pickle.dumps(refs)
        assert len(blob) < 2_000  # no array data travels
        got = resolve(pickle.loads(blob))
        for a, b in zip((view, fortran), got[:2], strict=True):
            assert type(b) is np.ndarray and _is_mapped(b) and _layout(b) == _layout(a)
            np.testing.assert_array_equal(a, b)
        assert got[2].format == "csc" and (got[2] != X).nnz == 0
        assert type(got[2].data) is np.ndarray and _is_mapped(got[2].data)
        assert store.refs(fortran) is fortran  # not in a file of this store: as it is
        m = np.lib.format.open_memmap(SharedArrays.path(store.empty((3, 4), np.int64)))
        assert type(resolve(m)) is np.ndarray and type(m) is np.memmap


def test_keep_outlives_close_and_writes_stay_private():
    """keep gives the array with its own life: still readable after the folder is removed,
    writeable, and a write neither reaches the file nor another kept copy."""
    with SharedArrays() as store:
        out = store.empty((300, 200), np.float64)
        out[:] = np.arange(200.0)
        ro = store.readonly(out)
        a, b = SharedArrays.keep(ro), SharedArrays.keep(ro)
        assert type(a) is np.ndarray and a.flags.writeable and a.shape == (300, 200)
    assert not os.path.exists(store.folder)
    a[0, 0] = -1.0
    assert b[0, 0] == 0.0 and a[0, 0] == -1.0 and a[1, 5] == 5.0
    c = SharedArrays.keep(np.ones(3))  # not of a file: a copy
    assert type(c) is np.ndarray and c.sum() == 3


def _faults_of_reallocation(keep: bool) -> tuple[int, int, int]:
    """In a fresh worker process: minor page faults of allocating and touching 8 × 8 MB again
    after the same was freed twice, with or without freed_memory_kept around; after it, of
    the same again (the setting stays for a joblib worker's next task); and after
    give_back_freed_memory."""
    import resource

    from camcf.parallel import freed_memory_kept, give_back_freed_memory

    def faults() -> int:
        for _ in range(3):
            before = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
            blocks = [np.ones(1 << 20) for _ in range(8)]
            del blocks
        return resource.getrusage(resource.RUSAGE_SELF).ru_minflt - before

    if not keep:
        return faults(), faults(), faults()
    with freed_memory_kept():
        inside = faults()
    after = faults()
    give_back_freed_memory()  # what a Dask worker does after a parallel step
    return inside, after, faults()


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="glibc's mallopt only")
def test_workers_keep_freed_memory_for_the_next_task():
    """freed_memory_kept makes a worker reuse the memory its task freed: the same allocations
    again fault (almost) no page in, where glibc's default gave tens of MB back and faulted
    them in anew; a joblib worker keeps it for the next task, a Dask worker gives it back
    after the step; the main process is left as it is."""
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor

    from camcf.parallel import _malloc_lib

    assert _malloc_lib() is None  # the main process: nothing changes here
    ctx = multiprocessing.get_context("spawn")
    got = {}
    for keep in (False, True):
        with ProcessPoolExecutor(1, mp_context=ctx) as pool:
            got[keep] = pool.submit(_faults_of_reallocation, keep).result()
    # (4,088 and 0 here, of 16,384 pages)
    assert min(got[False]) > 2_000 and max(got[True][:2]) < 200, got
    assert got[True][2] > 2_000  # given back: glibc's default again


def test_claims_give_each_slot_once_in_order(tmp_path):
    """claim: the tasks that ask first get the first slots, each slot once, then None."""
    from camcf.parallel import SharedArrays, claim

    with SharedArrays() as store:
        ref = store.put(["a", "b"])
        assert [claim(ref, range(3)) for _ in range(4)] == [0, 1, 2, None]
        assert claim(store.put(None), []) is None
        assert [claim(ref, ["t0", "t1"]) for _ in range(3)] == ["t0", "t1", None]
        from camcf.parallel import resolve

        assert resolve(ref) == ["a", "b"]


def test_a_task_claims_slot_after_slot_and_posts_results_read_as_they_appear(monkeypatch):
    """claim with the slots a task has done gives it the next free one (a task that claims
    slot after slot); post leaves a result that each reader (Posts) reads as the results
    appear (woken by its own pipe), and raises what a task posted as Failed, when the tasks
    ended without posting every result (or what ended() raises), or once stopped; a claim
    in a folder that went is None."""
    from camcf import parallel
    from camcf.errors import CamcfError
    from camcf.parallel import Failed, Posts, SharedArrays, claim, post

    monkeypatch.setattr(parallel, "_LOOK_AGAIN", 0.0)
    with SharedArrays() as store:
        ref = store.put(None)
        assert claim(ref, range(3)) == 0
        assert claim(ref, range(3), {0}) == 1 and claim(ref, range(3), {0, 1}) == 2
        assert claim(ref, range(3), {0, 1, 2}) is None
        posts, other = Posts(ref), Posts(ref, "w1")
        assert (posts._fds is not None) == hasattr(os, "mkfifo")
        post(ref, 1, "b")
        post(ref, 0, ("a", 1))
        if posts._fds is not None:  # two posts, two bytes to wake each reader
            assert os.read(posts._fds[0], 16) == b".."
            assert os.read(other._fds[0], 16) == b".."
        assert list(posts.take(range(2), lambda: True)) == [(0, ("a", 1)), (1, "b")]
        assert dict(other.take([1], lambda: False)) == {1: "b"}
        posts.close()
        assert posts._fds is None
        with pytest.raises(CamcfError, match="without 1 of their results"):
            list(Posts(ref).take(range(3), lambda: True))

        def boom():
            raise ValueError("boom")

        with pytest.raises(ValueError, match="boom"):
            list(Posts(ref).take(range(3), boom))
        post(ref, 2, Failed(KeyError("lost")))
        with pytest.raises(KeyError, match="lost"):
            list(Posts(ref).take([2], lambda: False))
        Posts(ref, "w2").stop()
        with pytest.raises(CamcfError, match="stopped"):
            list(Posts(ref).take(["x"], lambda: False))
        folder = store.folder
    assert not os.path.exists(folder)
    assert claim(ref, range(5)) is None


def test_close_later_drops_the_arrays_and_removes_the_folder_on_a_thread():
    """close_later: the folder goes on a thread of its own, after the arrays handed to it are
    dropped (no mapping of the folder's files is left in this process)."""
    import threading

    from camcf.parallel import SharedArrays

    store = SharedArrays()
    a = store.empty((300, 300), np.float64)
    a[:] = 1.0
    ro = store.readonly(a)
    folder = store.folder
    store.close_later(a, ro)
    del a, ro
    for t in threading.enumerate():
        if t.name == "camcf-shared-close":
            t.join(10)
    assert not os.path.exists(folder)
    if sys.platform.startswith("linux"):
        with open("/proc/self/maps") as f:
            assert folder not in f.read()


def test_collection_paused_while_any_task_runs_then_as_before():
    """collection_paused turns the garbage collector off while a task runs, keeps it off
    until the last of two overlapping tasks (threads of one worker) ends, and gives back the
    state it found: on again, or off when it was off."""
    import gc
    import threading

    from camcf.parallel import collection_paused

    assert gc.isenabled()
    first_in, second_out = threading.Event(), threading.Event()
    seen = []

    def second():
        first_in.wait()
        with collection_paused():
            seen.append(gc.isenabled())
        second_out.set()

    t = threading.Thread(target=second)
    t.start()
    with collection_paused():
        seen.append(gc.isenabled())
        first_in.set()
        second_out.wait()
        seen.append(gc.isenabled())  # the other task ended: still off for this one
    t.join()
    assert seen == [False, False, False] and gc.isenabled()
    gc.disable()
    try:
        with collection_paused():
            pass
        assert not gc.isenabled()  # off before, off after
    finally:
        gc.enable()
