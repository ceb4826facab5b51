"""Kernel workspaces kept between calls: :func:`scratch`, bounded, and let go when memory is short.

A kernel's marks, histograms and accumulators scale with its input; allocated fresh on every call
they cost a page fault per page on first touch, which on a virtual machine whose freed memory goes
back to the host can cost more than the kernel (SpGEMM of the 1e6-row Poisson matrix: 307 ms a call
with its 32 MB of marks and accumulators fresh each time, 112 ms with them kept). So a workspace
is kept under its name for the Python thread that made it, and the next call of that thread
reuses it. What is kept is bounded:

- one buffer up to :data:`SCRATCH_LIMIT` bytes (a larger one is made fresh and not kept);
- all of them together up to :data:`SCRATCH_TOTAL` bytes (the least recently grown go first);
- the buffers of Python threads that have ended go at the next growth;
- when the system is short of memory (``MemAvailable`` in ``/proc/meminfo`` below a tenth of the
  total, or below four times what a growth asks for), every kept buffer goes and the new one is
  not kept: the call still runs, on fresh pages.

:func:`release` drops them all (``sparray.kernels.cpu._scratch.release()``), :func:`kept_bytes`
says how much is kept. A buffer in use by a running kernel stays alive through that kernel's
reference whatever happens to the table. Never hand a scratch array out as a result.

>>> a = scratch("doc.example", (2, 3), np.int64); a.shape, a.dtype.name
((2, 3), 'int64')
>>> kept_bytes() >= 48
True
"""

from __future__ import annotations

import math
import os
import threading
from collections import OrderedDict

import numpy as np

__all__ = ["SCRATCH_LIMIT", "SCRATCH_TOTAL", "kept_bytes", "release", "scratch"]

#: bytes of one scratch buffer kept between calls (per name and Python thread)
SCRATCH_LIMIT = 1 << 26


def _memory_total() -> int:
    try:
        return os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    except (AttributeError, ValueError, OSError):
        return 8 << 30


#: bytes of all kept scratch buffers together: 1 GiB, or an eighth of the memory if that is less
SCRATCH_TOTAL = min(1 << 30, _memory_total() // 8)

_KEPT: OrderedDict[tuple[int, str], np.ndarray] = OrderedDict()  # (thread id, name) -> bytes, oldest first
_LOCK = threading.Lock()


def _available() -> int | None:
    """``MemAvailable`` of ``/proc/meminfo`` in bytes, or None where there is none."""
    try:
        with open("/proc/meminfo", "rb") as f:
            for line in f:
                if line.startswith(b"MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        return None
    return None


def _memory_short(nbytes) -> bool:
    avail = _available()
    return avail is not None and (avail < _memory_total() // 10 or avail < 4 * nbytes)


def kept_bytes() -> int:
    """Bytes of scratch kept now, over every Python thread."""
    return sum(b.nbytes for b in list(_KEPT.values()))


def release() -> None:
    """Let every kept scratch buffer go (a running kernel keeps the one it uses until it returns)."""
    with _LOCK:
        _KEPT.clear()


def _keep(key, buf) -> None:
    with _LOCK:
        if _memory_short(buf.nbytes):
            _KEPT.clear()
            return
        alive = {t.ident for t in threading.enumerate()}
        for k in [k for k in _KEPT if k[0] not in alive]:
            del _KEPT[k]
        _KEPT.pop(key, None)
        _KEPT[key] = buf
        total = sum(b.nbytes for b in _KEPT.values())
        while total > SCRATCH_TOTAL and len(_KEPT) > 1:
            _, old = _KEPT.popitem(last=False)
            total -= old.nbytes


def scratch(name, shape, dtype):
    """An uninitialised ``shape`` array of ``dtype`` for a kernel's scratch (the kernel sets it
    before it reads it), kept for this Python thread under ``name`` (see the module docstring for
    the bounds). The call after the first of the same size or smaller allocates nothing."""
    nbytes = math.prod(shape) * np.dtype(dtype).itemsize
    key = (threading.get_ident(), name)
    buf = _KEPT.get(key)
    if buf is None or buf.nbytes < nbytes:
        buf = np.empty(max(nbytes, 1), np.uint8)
        if nbytes <= SCRATCH_LIMIT:
            _keep(key, buf)
    return buf[:nbytes].view(dtype).reshape(shape)
