"""Long work that reports progress and can be stopped.

Every study in camcf (an evaluation, an ablation, a sensitivity grid, a landscape, a tuning
grid, a comparison of methods, the paper's reproduction) is a sequence of units of work (a
selection on one split, one classification, one grid point). Each takes a ``progress``
callable and calls it after every unit it finishes::

    progress(done: int, total: int, message: str) -> None

with ``done`` never decreasing and ``total`` the number of units it plans (it may grow once a
study learns it has more to do, never shrink below ``done``).

**Stopping.** A progress callable may raise :class:`Cancelled`; the study then stops at that
unit's boundary, lets the exception propagate, and leaves nothing half-written (the caller's
state is as before the study started). :class:`StopToken` is the usual way to do that from
another thread or a user interface: :func:`stoppable` wraps a progress callable so that it
raises :class:`Cancelled` once the token is set.

>>> token = StopToken()
>>> seen = []
>>> progress = stoppable(lambda d, t, m: seen.append(d), token)
>>> progress(1, 3, "first")
>>> token.stop()
>>> try:
...     progress(2, 3, "second")
... except Cancelled as e:
...     print(e)
stopped by the user after 1 of 3 steps
>>> seen
[1]
"""

from __future__ import annotations

import threading
from collections.abc import Callable

from .errors import CamcfError

__all__ = ["Cancelled", "Progress", "StopToken", "stoppable"]

#: ``progress(done, total, message)``
Progress = Callable[[int, int, str], None]


class Cancelled(CamcfError):
    """A study was stopped before it finished (by the user, a budget or a closed session).

    Fields: ``done`` and ``total`` (units of work finished and planned when it stopped) and
    ``reason``.
    """


class StopToken:
    """A flag another thread may set to stop a study at its next unit boundary."""

    def __init__(self) -> None:
        self._event = threading.Event()
        self.reason = "stopped by the user"

    def stop(self, reason: str | None = None) -> None:
        if reason:
            self.reason = reason
        self._event.set()

    @property
    def stopped(self) -> bool:
        return self._event.is_set()

    def check(self, done: int = 0, total: int = 0) -> None:
        """Raise :class:`Cancelled` when the token has been set."""
        if self._event.is_set():
            where = f" after {done} of {total} steps" if total else ""
            raise Cancelled(f"{self.reason}{where}", done=done, total=total, reason=self.reason)


def stoppable(progress: Progress | None, token: StopToken) -> Progress:
    """A progress callable that raises :class:`Cancelled` once ``token`` is set, before
    passing the call on to ``progress`` (which may be None)."""

    def report(done: int, total: int, message: str) -> None:
        token.check(done - 1 if done else 0, total)
        if progress is not None:
            progress(done, total, message)

    return report
