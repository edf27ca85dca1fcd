"""One progress line on stderr for long commands (the ``progress(done, total, message)``
contract of :mod:`camcf.jobs`).

On a terminal the line is redrawn in place (``\\r``, at most ten times a second, as tqdm does)::

    target y12=1  37%  731/1966  4.1 s, about 7 s left

Anywhere else (a file, a pipe, CI) one line is written each time another tenth of the work is
done, so a log holds at most ten lines. ``--quiet`` turns the line off (:func:`progress_line`
yields None). The line is always ended (a newline) when the work stops, also on an error or
Ctrl-C, so the message that follows starts on a line of its own.
"""

from __future__ import annotations

import contextlib
import shutil
import sys
import time
from collections.abc import Callable, Iterator
from typing import TextIO

__all__ = ["ProgressLine", "progress_line"]


def _seconds(s: float) -> str:
    if s < 60:
        return f"{s:.1f} s" if s < 10 else f"{s:.0f} s"
    m, s = divmod(int(round(s)), 60)
    if m < 60:
        return f"{m} min {s:02d} s"
    h, m = divmod(m, 60)
    return f"{h} h {m:02d} min"


class ProgressLine:
    """A ``progress(done, total, message)`` callable that draws one line on ``stream``.

    Parameters
    ----------
    stream : text stream, default ``sys.stderr``
    tty : bool, optional
        Redraw in place (a terminal) or write a line per tenth; default ``stream.isatty()``.
    clock : callable, default ``time.monotonic``
    min_interval : float
        Seconds between two redraws on a terminal (the last one is always drawn).
    """

    def __init__(self, stream: TextIO | None = None, *, tty: bool | None = None,
                 clock: Callable[[], float] = time.monotonic, min_interval: float = 0.1) -> None:
        self.stream = stream if stream is not None else sys.stderr
        if tty is None:
            isatty = getattr(self.stream, "isatty", None)
            tty = bool(isatty and isatty())
        self.tty = tty
        self.clock = clock
        self.min_interval = min_interval
        self.start = clock()
        self._drawn_at: float | None = None
        self._width = 0  # characters of the line on screen (terminal)
        self._tenth = 0  # tenths reported (elsewhere)
        self.lines = 0   # lines written (elsewhere) or redraws (terminal)

    def _text(self, done: int, total: int, message: str) -> str:
        elapsed = self.clock() - self.start
        pct = 100 * done // total if total > 0 else 100
        text = f"{message}  {pct:3d}%  {done}/{total}  {_seconds(elapsed)}"
        if 0 < done < total and elapsed > 0:
            text += f", about {_seconds(elapsed * (total - done) / done)} left"
        return text

    def __call__(self, done: int, total: int, message: str) -> None:
        total = max(int(total), int(done), 0)
        if self.tty:
            now = self.clock()
            last = done >= total
            if (not last and self._drawn_at is not None
                    and now - self._drawn_at < self.min_interval):
                return
            self._drawn_at = now
            width = shutil.get_terminal_size((100, 20)).columns - 1
            text = self._text(done, total, message)[:width]
            pad = max(0, self._width - len(text))
            self.stream.write("\r" + text + " " * pad)
            self.stream.flush()
            self._width = len(text)
            self.lines += 1
            return
        tenth = 10 * done // total if total > 0 else 10
        if tenth > self._tenth:
            self._tenth = tenth
            self.stream.write(self._text(done, total, message) + "\n")
            self.stream.flush()
            self.lines += 1

    def close(self) -> None:
        """End the line on a terminal (the next output starts on a fresh line)."""
        if self.tty and self._width:
            self.stream.write("\n")
            self.stream.flush()
            self._width = 0


@contextlib.contextmanager
def progress_line(quiet: bool = False, stream: TextIO | None = None,
                  tty: bool | None = None) -> Iterator[ProgressLine | None]:
    """A :class:`ProgressLine` for the duration of the block (None when ``quiet``), closed on
    the way out whatever happens."""
    if quiet:
        yield None
        return
    line = ProgressLine(stream, tty=tty)
    try:
        yield line
    finally:
        line.close()
