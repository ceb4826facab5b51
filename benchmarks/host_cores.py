"""How many cores this machine gives the benchmark's threads right now, read with a compute-bound loop.

A kernel split over every thread waits for its slowest share, so when the threads do not each
get a core (other work on the machine, or the hypervisor running two vCPUs on one core) it takes
up to twice its time, while a single-threaded peer (scipy) loses much less. The table then reads
a ratio that says more about the machine than about the code. On 2026-11-28 a second benchmark
process ran by mistake beside the measurements on this 2-vCPU VM: the reading fell to 0.63-0.66
and SpGEMM ``A @ A`` on the 1e6-row Poisson matrix took 165-172 ms (0.81x scipy) against 87 ms
(1.61x) alone, scipy at 138-140 ms both times; ``/proc/stat`` counted almost no stolen time, so
it cannot tell the same from the hypervisor either.

:func:`effective_cores` times one fixed chain of floating-point operations on one thread, then one
such chain on each of ``threads`` threads at once, and returns ``threads * t1 / tn``: about
``threads`` when each thread has a core of its own, about 1 or less when they share one (waking a
waiting thread costs too). The loop touches no memory, so the figure is the cores' share alone,
not bandwidth. A reading takes 5-20 ms.

>>> c = effective_cores(1, iters=1000)
>>> c == 1.0
True
"""

from __future__ import annotations

import functools
import statistics
import time

import numpy as np

__all__ = ["SHORT_OF", "effective_cores", "short"]

# a row whose measured cores fall below this share of its threads is marked in the table
SHORT_OF = 0.8


def short(cores: float | None, threads: int) -> bool:
    """Whether a reading is below ``SHORT_OF`` of the threads (the rows the table marks).

    >>> short(1.97, 2), short(1.59, 2), short(None, 1)
    (False, True, False)
    """
    return cores is not None and cores < SHORT_OF * threads


@functools.cache
def _kernel():
    """The compiled chain (numba, compiled on first use and not cached: about 1 s once a run)."""
    import numba

    @numba.njit(parallel=True, cache=False)
    def spin(nchains, iters):
        out = np.empty(nchains)
        for c in numba.prange(nchains):
            x = 1.0 + c
            for _ in range(iters):  # each step waits for the last: no vectors, no memory
                x = x * 0.999999 + 1e-6
            out[c] = x
        return out

    return spin


def effective_cores(threads: int, iters: int = 1_000_000, repeat: int = 3) -> float:
    """``threads`` times the time of one chain on one thread over the time of ``threads`` chains
    on ``threads`` threads (medians of ``repeat`` runs each): the cores the threads really got.
    1.0 for ``threads`` <= 1."""
    if threads <= 1:
        return 1.0
    import numba

    spin = _kernel()
    old = numba.get_num_threads()
    try:
        numba.set_num_threads(1)
        spin(1, 10)  # compiled and warm
        one = []
        for _ in range(repeat):
            t0 = time.perf_counter()
            spin(1, iters)
            one.append(time.perf_counter() - t0)
        numba.set_num_threads(min(threads, numba.config.NUMBA_NUM_THREADS))
        many = []
        for _ in range(repeat):
            t0 = time.perf_counter()
            spin(threads, iters)
            many.append(time.perf_counter() - t0)
    finally:
        numba.set_num_threads(old)
    return threads * statistics.median(one) / statistics.median(many)
