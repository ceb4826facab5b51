"""How much CPU time the hypervisor took from this virtual machine while a benchmark row ran.

On a shared host a vCPU can stop for milliseconds while the host runs another tenant. Linux counts
that time as ``steal`` in ``/proc/stat``. It hits a parallel kernel harder than a serial one: a
kernel that splits its work into one share per thread waits for the slowest share, so one stalled
vCPU of two can double its time while a single-threaded peer loses only the stalls of its own vCPU.
On this project's 2-core VM, ``A + B`` on the R-MAT pair (2 threads) read 180 ms in one run and
91-104 ms in the runs minutes before and after, with scipy's time (1 thread) unchanged: the kind of
swing this record is there to tell from a change in the code.

So every row of the benchmark records the share of CPU time stolen while its runs were timed,
and the table flags rows where the host took a noticeable share: their ratios are not the code's.

>>> s = Stopwatch()
>>> share = s.share()
>>> share is None or 0.0 <= share <= 1.0
True
"""

from __future__ import annotations

__all__ = ["NOTICEABLE", "Stopwatch", "cpu_ticks"]

# a share of stolen CPU time above which a row's timings are flagged
NOTICEABLE = 0.02

_STAT = "/proc/stat"


def cpu_ticks() -> tuple[int, int] | None:
    """``(steal, total)`` clock ticks of all CPUs since boot, or None where ``/proc/stat`` is not
    there (not Linux) or has no steal field (a kernel older than 2.6.11)."""
    try:
        with open(_STAT) as f:
            fields = f.readline().split()
    except OSError:
        return None
    if len(fields) < 9 or fields[0] != "cpu":
        return None
    # user nice system idle iowait irq softirq steal [guest guest_nice: already inside user/nice]
    ticks = [int(v) for v in fields[1:9]]
    return ticks[7], sum(ticks)


class Stopwatch:
    """Stolen share of CPU time between its creation and :meth:`share`."""

    def __init__(self) -> None:
        self.start = cpu_ticks()

    def share(self) -> float | None:
        """Stolen ticks / all ticks since the start (0 when no tick passed), or None when unknown."""
        end = cpu_ticks()
        if self.start is None or end is None:
            return None
        steal, total = end[0] - self.start[0], end[1] - self.start[1]
        return steal / total if total > 0 else 0.0
