"""Give every timed run the same memory to allocate from: recently used pages, not ones the host took back.

On a virtual machine whose balloon device has free page reporting (Firecracker, QEMU with
``free-page-reporting=on``), memory the guest frees is reported to the host every couple of
seconds and dropped there; the next guest allocation that lands on it faults in the host as well.
Touching 200 MB freshly allocated with NumPy on this project's 2-core VM:

- right after 200 MB were freed: 24-30 ms;
- after a 3 s pause (the freed pages reported and dropped): 300-600 ms, 10-20x slower;
- after the pause, but right after allocating and touching 400 MB and freeing them: 23 ms.

A benchmark whose libraries take turns meets this at random: a library whose run comes right
after another one freed its buffers allocates warm pages, one that comes after a reporting pass
allocates cold ones. SpGEMM ``A @ A`` on the 1e6-row Poisson matrix took 63 ms back to back and
225 ms with 3 s between calls (scipy 108 and 384 ms), so one full run could read 0.62x where the
same code reads 1.7x.

So before each timed run the harness allocates and touches as many bytes as the call needed at
its peak (measured on its warm-up) and frees them: the run then allocates recently used pages,
as it would on bare metal (where every free page is backed) or in a loop. The guest's own cost of
a new page (the fault and the zeroing) is still paid inside the run, by every library alike.

>>> base = reset_peak()
>>> x = np.ones(1 << 20); peak = peak_above(base); del x
>>> peak is None or peak >= 0
True
>>> warm(1 << 20)
"""

from __future__ import annotations

import functools

import numpy as np

__all__ = ["peak_above", "reset_peak", "warm"]

_PAGE = 4096
_STATUS = "/proc/self/status"


def _status_bytes(field: str) -> int | None:
    try:
        with open(_STATUS) as f:
            for line in f:
                if line.startswith(field + ":"):
                    return int(line.split()[1]) * 1024  # the kernel writes kB
    except OSError:
        return None
    return None


def reset_peak() -> int | None:
    """Reset the process's peak resident size to the current one (Linux ``clear_refs`` 5) and
    return the current resident bytes; None where the kernel offers neither."""
    try:
        with open("/proc/self/clear_refs", "w") as f:
            f.write("5")
    except OSError:
        return None
    return _status_bytes("VmRSS")


def peak_above(base: int | None) -> int | None:
    """Resident bytes at the peak since :func:`reset_peak` returned ``base``, above it."""
    if base is None:
        return None
    hwm = _status_bytes("VmHWM")
    return None if hwm is None else max(0, hwm - base)


def warm(nbytes: int) -> None:
    """Allocate ``nbytes``, write one byte per page (so each page is backed, on the host too) and
    free them: the next allocations of up to that size reuse those pages.

    The pages are written from every thread of numba's pool at once (one thread without numba): a
    kernel on several threads allocates from each CPU, and the guest kernel gives each CPU pages
    of its own lists first. Written from the main thread alone, the pages did not serve the other
    CPU: in a round of scipy, sparray and torch, ``A + B`` of two uniform CSR matrices (2 threads)
    took 178-183 ms in 8 of 9 runs, its process CPU time 90 ms above the 88-92 ms runs' (a thread
    stalled, most likely on pages the host had dropped); written from both threads, 88-93 ms in 7
    of 9, and torch's own ``A + B`` (1 thread) 0.71 s instead of 1.25 s.
    """
    if nbytes <= 0:
        return
    buf = np.empty(int(nbytes), np.uint8)
    touch = _parallel_touch()
    if touch is None:
        buf[::_PAGE] = 1
    else:
        touch(buf, _PAGE)
    del buf


@functools.cache
def _parallel_touch():
    """A numba loop writing one byte per page over the pool's threads, as ``buf[::page] = 1`` does
    (compiled on first use), or None without numba."""
    try:
        import numba
    except ImportError:
        return None

    @numba.njit(parallel=True, cache=False)
    def touch(buf, page):
        for i in numba.prange((buf.shape[0] + page - 1) // page):
            buf[i * page] = 1

    return touch
