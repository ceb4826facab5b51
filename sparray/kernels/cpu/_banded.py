"""Owned windows for folds of banded keys: the plan and the pieces shared by ``scatter_sum``'s and
``group_reduce``'s banded paths (a banded CSR's columns summed, or reduced, along axis 0).

A fold of rows into per-key slots usually gives each thread a private copy of every slot, to fill
and merge after. When each chunk of the keys keeps to a narrow window (as a banded matrix's
columns do), the chunks can instead own disjoint parts of one accumulator:

- :func:`banded_plan` samples each chunk for its window ``[a, b)`` and cuts ``[0, nkeys)`` into
  cells, one per chunk; the part of a chunk's window inside its own cell is its *owned* part;
- :func:`banded_start` sets a chunk's cell of the accumulator and its scratch to the fold's
  identity (so the threads share the zeroing and the page faults of a new accumulator);
- :func:`banded_chunk` folds a chunk's rows: a key in the owned part straight into the
  accumulator, one elsewhere in the window into the chunk's scratch, one outside the window but
  in range is *spilled* (its position kept, up to a capacity), one outside ``[0, nkeys)`` is
  counted and never used as an address;
- :func:`banded_rest`, after the parallel pass, folds the scratch (the windows' overlaps) and
  the spilled keys in (a chunk that spilled more than fit is rescanned), so no key is lost.

The pieces are inlined into each kernel with the fold (:func:`add_fold`, max, ...) and the slot kind as
functions: *value* slots, one per key in a 1-d array (``scatter_sum``), or *counted* slots, a
value and a row count per key in an ``(nkeys, 2)`` array (``group_reduce``). The 1-d kind is not
a ``(nkeys, 1)`` array on purpose: the 2-d indexing cost the Poisson column sum 20-30%. The
pieces only hand ``fold`` on to ``put`` and ``join``, so it may also be an op code that they
interpret (``group_reduce``'s serial post-pass does that: one copy of it instead of one per op).
"""

import numba
import numpy as np

from ._sort import heapsort
from ._common import chunk_bounds
from . import _cache  # noqa: F401  (compiled kernels go to the per-user cache, see _cache.py)

__all__ = [
    "SPILL", "banded_plan", "banded_start", "banded_chunk", "banded_rest",
    "put_value", "join_value", "reset_value", "put_counted", "reset_counted",
]

_WINDOW_PROBES = 5  # evenly spaced probes of a chunk's keys that estimate its window
_WINDOW_PROBE = np.uint64(512)  # keys per probe
SPILL = 64  # a chunk keeps the positions of up to 1 in 64 of its keys (4096 at least) found outside its window
_U1 = np.uint64(1)


@numba.njit(cache=True, nogil=True)
def _windows(keys, nkeys, nchunks):
    """``w[c] = (a, b)``: the keys of chunk c are expected in ``[a, b)`` (``0 <= a <= b <= nkeys``).
    From ``_WINDOW_PROBES`` probes of ``_WINDOW_PROBE`` keys spread over the chunk: the lowest
    and highest of each probe once its 64th smallest and 64th largest are set aside (so a few
    stray keys do not widen the window to everything), widened by a 32nd of their span and 64
    keys each way. An estimate: keys found outside it later are spilled, never lost."""
    n = keys.shape[0]
    w = np.zeros((nchunks, 2), np.int64)
    last = np.uint64(_WINDOW_PROBES - 1)
    probe = np.empty(_WINDOW_PROBE, np.int64)
    for c in range(nchunks):
        lo, hi = chunk_bounds(n, c, nchunks)
        kmin = np.int64(nkeys)
        kmax = np.int64(-1)
        for s in range(_WINDOW_PROBES):
            mid = lo + (hi - lo) * np.uint64(s) // last
            q0 = max(lo, mid - _WINDOW_PROBE // np.uint64(2)) if mid >= _WINDOW_PROBE else lo
            q1 = min(hi, q0 + _WINDOW_PROBE)
            if q1 <= q0:
                continue
            m = np.int64(q1 - q0)
            for i in range(m):  # clipped: out-of-range keys are the kernel's to count
                probe[i] = min(max(np.int64(keys[q0 + np.uint64(i)]), np.int64(0)), np.int64(nkeys) - 1)
            heapsort(probe, 0, m)  # in place: numba's np.sort allocates, here once per probe and chunk
            kept = probe
            trim = m // 64
            kmin = min(kmin, kept[trim])
            kmax = max(kmax, kept[m - 1 - trim])
        if kmax >= kmin:
            margin = (kmax - kmin) // 32 + 64
            w[c, 0] = max(np.int64(0), kmin - margin)
            w[c, 1] = min(np.int64(nkeys), kmax + 1 + margin)
    return w


def banded_plan(keys, nkeys, nchunks):
    """The zones of a banded fold for keys whose chunks each cover a narrow window (a banded
    matrix's columns), or None when the windows overlap too much for it to pay (their
    overlaps, which go through scratch, over an eighth of ``nkeys``).

    Returns ``zones`` int64 (nchunks, 7): ``(a, olo, ohi, b, s, plo, phi)`` per chunk, its
    window ``[a, b)``, the part ``[olo, ohi)`` of it the chunk owns, the offset ``s`` of its
    scratch rows, which hold ``[a, olo)`` then ``[ohi, b)``, and its cell ``[plo, phi)`` of
    ``[0, nkeys)`` (the cells partition it; the owned part lies in the cell, so a chunk sets its
    cell and folds into it with no other thread writing there); and the total scratch length.
    The boundary between cells c - 1 and c is the equal split of the keys, moved into the
    overlap of the two windows (or the gap between them).

    >>> zones, size = banded_plan(np.repeat(np.arange(4096), 64), 4096, 2)
    >>> zones[:, 5:].tolist(), size <= 4096 // 8
    ([[0, 2048], [2048, 4096]], True)
    """
    w = _windows(keys, nkeys, nchunks)
    bounds = [0]
    for c in range(1, nchunks):
        lo, hi = sorted((int(w[c, 0]), int(w[c - 1, 1])))
        bounds.append(max(bounds[-1], min(max(nkeys * c // nchunks, lo), hi)))
    bounds.append(nkeys)
    zones = np.empty((nchunks, 7), np.int64)
    size = 0
    for c in range(nchunks):
        a, b = int(w[c, 0]), int(w[c, 1])
        olo, ohi = max(bounds[c], a), min(bounds[c + 1], b)
        if olo >= ohi:
            olo = ohi = a
        zones[c] = (a, olo, ohi, b, size, bounds[c], bounds[c + 1])
        size += (olo - a) + (b - ohi)
    return (zones, size) if size * 8 <= nkeys else None


@numba.njit(inline="always")
def add_fold(acc, v):
    """The sum fold, shared by ``scatter_sum`` and ``group_reduce``'s sums: ``acc + v``."""
    return acc + v


@numba.njit(inline="always")
def put_value(fold, acc, k, v):
    """Slots that keep a value only, ``acc`` (nkeys,): one row's value folded into slot k."""
    acc[k] = fold(acc[k], v)


@numba.njit(inline="always")
def join_value(fold, acc, k, src, t):
    """Slot t of ``src`` folded into slot k of ``acc`` (value-only slots)."""
    acc[k] = fold(acc[k], src[t])


@numba.njit(inline="always")
def reset_value(acc, lo, hi, ident):
    """Slots lo..hi-1 set to ``ident`` (value-only slots)."""
    acc[lo:hi] = ident


@numba.njit(inline="always")
def put_counted(fold, acc, k, v):
    """Slots that keep a value and a row count, ``acc`` (nkeys, 2): one row folded into slot k."""
    acc[k, 0] = fold(acc[k, 0], v)
    acc[k, 1] += 1


@numba.njit(inline="always")
def reset_counted(acc, lo, hi, ident):
    """Slots lo..hi-1 set to (``ident``, 0) (counted slots)."""
    for k in range(lo, hi):
        acc[k, 0] = ident
        acc[k, 1] = 0


@numba.njit(inline="always")
def banded_start(reset, acc, scratch, zone, ident):
    """Chunk ``zone``'s cell of ``acc`` and its scratch rows set to the identity by ``reset``."""
    reset(scratch, zone[4], zone[4] + (zone[1] - zone[0]) + (zone[3] - zone[2]), ident)
    reset(acc, zone[5], zone[6], ident)


@numba.njit(inline="always")
def banded_chunk(fold, put, keys, vf, acc, scratch, spill, c, lo, hi, zone, uk):
    """Rows lo..hi-1 of chunk c (value ``vf[i]``) folded by ``fold`` into slots of ``acc`` or of
    the chunk's scratch (``put`` writes a slot), or spilled (position into ``spill[c]`` while it
    has room); returns (keys outside [0, uk), keys spilled)."""
    a, olo, ohi, b, s = (np.uint64(zone[0]), np.uint64(zone[1]), np.uint64(zone[2]),
                         np.uint64(zone[3]), np.uint64(zone[4]))
    owned = ohi - olo
    left = olo - a
    width = b - a
    cap = np.uint64(spill.shape[1])
    nb = 0
    ns = np.uint64(0)
    for i in range(lo, hi):
        k = np.uint64(np.int64(keys[i]))  # a negative key (int32 or int64) wraps past every window and uk
        if k - olo < owned:  # unsigned: also false below olo
            put(fold, acc, k, vf[i])
        elif k - a < width:
            put(fold, scratch, s + (k - a if k < olo else left + (k - ohi)), vf[i])
        elif k < uk:
            if ns < cap:
                spill[c, ns] = i
            ns += _U1
        else:
            nb += 1
    return nb, ns


@numba.njit(inline="always")
def banded_rest(fold, put, join, keys, vf, acc, scratch, spill, spilled, zones, uk):
    """After the parallel pass: each chunk's scratch slots joined into ``acc`` (chunk after chunk;
    a slot still at the identity changes nothing), then its spilled keys, or, when it spilled
    more than ``spill`` holds, every key of it outside its window, found again."""
    n = keys.shape[0]
    nch = zones.shape[0]
    for c in range(nch):  # the windows' overlaps
        a, olo, ohi, b, s = zones[c, 0], zones[c, 1], zones[c, 2], zones[c, 3], zones[c, 4]
        for k in range(a, olo):
            join(fold, acc, k, scratch, s + k - a)
        for k in range(ohi, b):
            join(fold, acc, k, scratch, s + (olo - a) + k - ohi)
    for c in range(nch):  # the keys found outside their chunk's window
        if spilled[c] <= spill.shape[1]:
            for j in range(spilled[c]):
                i = spill[c, j]
                put(fold, acc, np.int64(keys[i]), vf[i])
        else:
            a = np.uint64(zones[c, 0])
            width = np.uint64(zones[c, 3]) - a
            lo, hi = chunk_bounds(n, c, nch)
            for i in range(lo, hi):
                k = np.uint64(np.int64(keys[i]))
                if k - a >= width and k < uk:
                    put(fold, acc, k, vf[i])
