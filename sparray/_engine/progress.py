"""A terminal progress bar for long file reads and writes (no dependency).

``Progress(total, label, progress=None)``:

- ``progress=None`` (auto): drawn on standard error only when it is a terminal and the work has
  already run for ``delay`` seconds (2 s), so quick calls print nothing;
- ``progress=True``: drawn from the start, terminal or not (a log file gets one line per
  redraw);
- ``progress=False``: silent.

``update(n)`` adds ``n`` units of done work (bytes, lines), ``stage(text)`` names the current
step when the work has no finer measure (``"parsing"``), ``close()`` draws the final state and a
newline. The bar redraws at most ten times a second.

>>> import io
>>> out = io.StringIO()
>>> with Progress(100, "mmwrite", progress=True, stream=out) as bar:
...     bar.update(100)
>>> "100%" in out.getvalue()
True
"""

from __future__ import annotations

import sys
import time

__all__ = ["Progress", "check_progress"]

_WIDTH = 30


def check_progress(who: str, progress) -> None:
    """``progress`` must be None, True or False (a clear TypeError otherwise)."""
    if progress is not None and not isinstance(progress, bool):
        raise TypeError(f"{who}: progress must be None (auto), True or False; got {progress!r}")


class Progress:
    """A one-line bar on ``stream`` (standard error by default); see the module docstring."""

    def __init__(self, total, label: str, *, progress=None, unit: str = "B", delay: float = 2.0, stream=None):
        check_progress(label, progress)
        self.total = None if total is None else max(int(total), 0)
        self.label, self.unit = label, unit
        self.done = 0
        self._stage = ""
        self._stream = sys.stderr if stream is None else stream
        if progress is None:
            isatty = getattr(self._stream, "isatty", None)
            self._enabled = bool(isatty and isatty())
            self._delay = delay
        else:
            self._enabled, self._delay = progress, 0.0
        self._start = time.perf_counter()
        self._last = -1.0
        self._drawn = False
        self._width = 0

    def __enter__(self):
        self._draw()
        return self

    def __exit__(self, *exc):
        self.close()
        return False

    def update(self, n: int) -> None:
        self.done += int(n)
        self._draw()

    def stage(self, text: str) -> None:
        self._stage = text
        self._draw(force=True)

    def close(self) -> None:
        if self.total is not None and self._stage == "":
            self.done = max(self.done, self.total)
        if self._drawn or (self._enabled and self._delay == 0.0):
            self._draw(force=True)
            self._stream.write("\n")
            self._stream.flush()
        self._enabled = False

    def _text(self, elapsed: float) -> str:
        amount = _human(self.done, self.unit)
        if self.total:
            frac = min(self.done / self.total, 1.0)
            filled = int(frac * _WIDTH)
            bar = "#" * filled + "." * (_WIDTH - filled)
            amount = f"[{bar}] {frac:4.0%} {amount} / {_human(self.total, self.unit)}"
        stage = f" {self._stage}" if self._stage else ""
        return f"\r{self.label}: {amount}{stage} ({elapsed:.1f} s)"

    def _draw(self, force: bool = False) -> None:
        if not self._enabled:
            return
        now = time.perf_counter()
        elapsed = now - self._start
        if elapsed < self._delay or (not force and now - self._last < 0.1):
            return
        self._last = now
        self._drawn = True
        text = self._text(elapsed)
        self._width = max(self._width, len(text))
        self._stream.write(text.ljust(self._width))  # spaces wipe a longer earlier line
        self._stream.flush()


def _human(n: int, unit: str) -> str:
    if unit != "B":
        return f"{n:,} {unit}"
    value = float(n)
    for suffix in ("B", "kB", "MB", "GB", "TB"):
        if value < 1000 or suffix == "TB":
            return f"{value:.0f} {suffix}" if suffix == "B" else f"{value:.1f} {suffix}"
        value /= 1000
    return f"{n} B"
