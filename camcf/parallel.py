"""Running the target categories on a Dask cluster through joblib's Dask backend.

:func:`camcf.run` hands each target category to joblib (``n_jobs``); inside
:func:`dask_cluster` joblib sends that work to the workers of an existing
``dask.distributed`` scheduler, and the shared arrays (codes, indicators, tables) are scattered
to the workers once per run, not once per task. The workers need camcf installed (the same
version as the client).

>>> with dask_cluster("tcp://10.0.0.5:8786"):            # doctest: +SKIP
...     res = camcf.run(X, Y, n_jobs=-1)
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator

from .errors import CamcfError


@contextlib.contextmanager
def dask_cluster(address: str, *, timeout: float = 20.0) -> Iterator[object]:
    """Connect a ``dask.distributed.Client`` to the scheduler at ``address`` (e.g.
    ``tcp://HOST:8786``) and make joblib's Dask backend the active one; yields the client.

    Raises :class:`CamcfError` when dask.distributed is missing or the scheduler cannot be
    reached within ``timeout`` seconds.
    """
    try:
        import joblib
        from distributed import Client
    except ImportError:  # pragma: no cover - a declared dependency
        raise CamcfError("running on a Dask cluster needs dask[distributed]: "
                         "pip install 'dask[distributed]'") from None
    try:
        client = Client(address, timeout=timeout)
    except (OSError, TimeoutError, ValueError) as e:
        raise CamcfError(f"cannot connect to the Dask scheduler at {address}: {e}; check the "
                         f"address (tcp://HOST:PORT) and that the scheduler is running") from None
    try:
        with joblib.parallel_backend("dask"):
            yield client
    finally:
        client.close()


_BLAS = None  # one threadpoolctl controller per process (finding the libraries takes ms)


def one_blas_thread() -> contextlib.AbstractContextManager:
    """A context in which BLAS runs on one thread: the engine's per-target products are
    small, and more threads would only contend with each other and with joblib's workers."""
    global _BLAS
    if _BLAS is None:
        from threadpoolctl import ThreadpoolController

        _BLAS = ThreadpoolController()
    return _BLAS.limit(limits=1, user_api="blas")
