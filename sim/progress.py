"""A small progress bar for long runs: games done, games per second and ETA, on stderr.

It draws nothing until a run has lasted ``delay`` seconds (short runs stay quiet) and redraws
at most every ``interval`` seconds.  ``Progress(enabled=False)`` only counts, so the runner can
use one code path whether or not a bar is shown.

On a terminal the bar is redrawn in place and fits the terminal's width (it is shortened, then
loses the rate and the ETA, rather than wrap onto a new line per redraw).  When the stream is
not a terminal (a log file, CI) it prints a plain line every ``plain_interval`` seconds instead.
"""

from __future__ import annotations

import shutil
import sys
import time


def auto_enabled(stream=None):
    """A bar is shown by default only when ``stream`` (stderr) is a terminal."""
    stream = sys.stderr if stream is None else stream
    try:
        return stream.isatty()
    except (AttributeError, ValueError):
        return False


def _fmt_count(n):
    if n >= 10_000_000:
        return f"{n / 1e6:.0f}M"
    if n >= 1_000_000:
        return f"{n / 1e6:.1f}M"
    if n >= 10_000:
        return f"{n / 1e3:.0f}k"
    return str(int(n))


def _fmt_time(seconds):
    seconds = int(round(seconds))
    h, rest = divmod(seconds, 3600)
    m, s = divmod(rest, 60)
    return f"{h}:{m:02d}:{s:02d}" if h else f"{m:02d}:{s:02d}"


class Progress:
    """Count games towards a total and draw a one-line bar.

    Parameters
    ----------
    enabled : bool
        Draw the bar (otherwise only count).
    stream : file, optional
        Where to draw (default ``sys.stderr``).
    delay : float
        Seconds before the first draw, so runs shorter than that print nothing.
    interval : float
        Minimum seconds between redraws.
    """

    width = 24
    #: Seconds between plain lines when the stream is not a terminal.
    plain_interval = 10.0

    def __init__(self, enabled=True, stream=None, delay=1.0, interval=0.25, label="games", columns=None):
        self.enabled = bool(enabled)
        self.stream = stream
        self.columns = columns  # the terminal's width (default: asked of the terminal)
        self.delay = delay
        self.interval = interval
        self.label = label
        self.total = 0
        self.done = 0  # games counted towards the total (played + skipped)
        self.played = 0  # games played in this process (the rate counts only these)
        self.t0 = time.perf_counter()
        self._last_draw = None
        self._drawn = False

    # -- counting -----------------------------------------------------------------
    def expect(self, n):
        """Add ``n`` games to the total."""
        self.total += int(n)
        self._maybe_draw()

    def skip(self, n):
        """Count ``n`` games already done before this process (resumed chunks)."""
        self.done += int(n)
        self._maybe_draw()

    def advance(self, n):
        """Count ``n`` games just played."""
        self.done += int(n)
        self.played += int(n)
        self._maybe_draw()

    def nested(self):
        """A view for a sub-task whose total the caller has already declared."""
        return _Nested(self)

    @property
    def elapsed(self):
        return time.perf_counter() - self.t0

    def rate(self):
        el = self.elapsed
        return self.played / el if el > 0 else 0.0

    # -- drawing ------------------------------------------------------------------
    def _parts(self):
        total = max(self.total, 1)
        frac = min(self.done / total, 1.0)
        rate = self.rate()
        left = self.total - self.done
        eta = _fmt_time(left / rate) if rate > 0 and left > 0 else "--:--"
        return (
            frac,
            f"{frac * 100:5.1f}%  {_fmt_count(self.done)}/{_fmt_count(self.total)} {self.label}",
            f"  {_fmt_count(rate)} {self.label}/s",
            f"  ETA {eta}",
        )

    def line(self, columns=None):
        """The bar as one line of at most ``columns - 1`` characters (``None``: no limit)."""
        frac, count, rate, eta = self._parts()
        limit = None if columns is None else max(columns - 1, 1)
        for tail in (rate + eta, eta, ""):
            text = count + tail
            room = self.width if limit is None else min(self.width, limit - len(text) - 3)
            if room >= 8 or (limit is not None and tail == "" and room >= 0):
                filled = int(frac * room)
                text = f"[{'#' * filled}{'.' * (room - filled)}] " + text
                break
        return text if limit is None else text[:limit]

    def plain_line(self):
        """The progress as a plain log line (no bar, no carriage return)."""
        _, count, rate, eta = self._parts()
        return (count + rate + eta).strip()

    def _is_terminal(self):
        out = self.stream or sys.stderr
        try:
            return out.isatty()
        except (AttributeError, ValueError):
            return False

    def _maybe_draw(self, force=False):
        if not self.enabled:
            return
        now = time.perf_counter()
        tty = self._is_terminal()
        if not force:
            if now - self.t0 < self.delay:
                return
            gap = self.interval if tty else self.plain_interval
            if self._last_draw is not None and now - self._last_draw < gap:
                return
        self._last_draw = now
        out = self.stream or sys.stderr
        if tty:
            cols = self.columns or shutil.get_terminal_size((80, 24)).columns
            out.write("\r" + self.line(cols) + "\x1b[K")
        else:
            out.write(self.plain_line() + "\n")
        out.flush()
        self._drawn = True

    def close(self):
        """Finish the bar's line (only if something was drawn)."""
        if self.enabled and self._drawn:
            self._maybe_draw(force=True)
            out = self.stream or sys.stderr
            if self._is_terminal():
                out.write("\n")
            out.flush()
            self._drawn = False


class _Nested:
    """Forwards counting to a parent bar; ``expect`` and ``close`` are the parent's business."""

    def __init__(self, parent):
        self.parent = parent

    @property
    def enabled(self):
        return self.parent.enabled

    def expect(self, n):
        pass

    def skip(self, n):
        self.parent.skip(n)

    def advance(self, n):
        self.parent.advance(n)

    def nested(self):
        return self

    def close(self):
        pass


def make_progress(progress):
    """``(bar, owned)`` for a ``progress`` argument: None/False (a silent bar), True (a bar
    drawn on stderr) or a bar of the caller's (``owned`` False: the caller closes it)."""
    if progress is None or progress is False:
        return Progress(enabled=False), True
    if progress is True:
        return Progress(enabled=True), True
    return progress, False
