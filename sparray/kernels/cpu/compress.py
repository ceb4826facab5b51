"""Compressed (CSR/CSC/BSR-style) layouts: building, expanding, transposing and densifying them.

- :func:`compress_offsets` -- sorted keys (COO rows) -> bucket offsets (CSR row pointers).
- :func:`expand_offsets` -- offsets -> the bucket of every entry (the inverse).
- :func:`transpose_compressed` -- re-compress a batched compressed array along its other axis
  (CSR -> CSC), a stable parallel counting sort.
- :func:`dense_to_compressed` -- the positions of a dense (N, C, m) array that differ from the
  fill, in row-major order.
- :func:`compressed_to_dense` -- the reverse.
- :func:`scatter_blocks` -- pack entries into (nblocks, nslots, m) blocks over a fill (BSR).

Conventions.  Index inputs are 1-D int32 or int64 (other integer dtypes are converted to
int64); ``index_dtype`` (np.int32 or np.int64) is the dtype of every index array returned, and
it must be able to hold every value written (else ValueError).  Values are C-contiguous (n, m)
or (N, C, m) arrays of bool, (u)int8..64, float32/64 or complex64/128 (anything else raises
KernelDeclined).  Kernels that only move values see them as unsigned integers of the same width
(complex128 as two uint64), so they compile once per width, not per dtype.  An index that is out
of range, or offsets that are not a valid segmentation, are never used as addresses: they are
detected (counted, with the first bad position) and the wrapper raises ValueError naming it.
Small inputs run on the calling thread alone (:func:`._threads.team`).

>>> import numpy as np
>>> off = compress_offsets(np.array([0, 0, 2]), 4, np.int64)
>>> off.tolist(), expand_offsets(off, np.int32).tolist()
([0, 2, 2, 3, 3], [0, 0, 2])
>>> t_off, t_minor, t_val = transpose_compressed(off, np.array([1, 3, 1]), np.array([[1.0], [2.0], [3.0]]),
...                                              1, 4, 4, np.int64)
>>> t_off.tolist(), t_minor.tolist(), t_val.ravel().tolist()
([0, 0, 2, 2, 3], [0, 2, 0], [1.0, 3.0, 2.0])
"""

import numba
import numpy as np
from numba import types
from numba.extending import overload

from .. import KernelDeclined
from ._common import as_index, chunk_bounds, claim, middle_sample, prefetch_write, row_splits, scratch
from ._sort import SUPPORTED_DTYPES
from ._threads import team
from . import _cache  # noqa: F401  (compiled kernels go to the per-user cache, see _cache.py)

__all__ = [
    "compress_offsets",
    "expand_offsets",
    "transpose_compressed",
    "dense_to_compressed",
    "compressed_to_dense",
    "scatter_blocks",
    "coo_to_csr_into",
    "to_dense_into",
    "transpose_into",
]

_JIT = dict(cache=True, nogil=True)
_PJIT = dict(cache=True, nogil=True, parallel=True)
#: the lean CSR <-> CSC transpose runs on the calling thread below this many entries plus rows plus
#: columns (benchmarks/crossover.py), in two levels over slices of rows handed out by claim above ...
TRANSPOSE_SERIAL_WORK = 1 << 18
#: ... and from this much work on with a thread on a core another process keeps busy too
TRANSPOSE_SHARED_WORK = 1 << 21
#: the lean COO -> CSR runs on the calling thread below this many entries plus rows
#: (benchmarks/crossover.py)
COO_SERIAL_WORK = 1 << 13
_U1 = np.uint64(1)
_U2 = np.uint64(2)

_INDEX_DTYPES = (np.dtype(np.int32), np.dtype(np.int64))
_UINT_OF_SIZE = {1: np.uint8, 2: np.uint16, 4: np.uint32, 8: np.uint64, 16: np.uint64}


# ---------------------------------------------------------------------------------------
# argument checks (Python)
# ---------------------------------------------------------------------------------------


def _index_dtype(index_dtype):
    dt = np.dtype(index_dtype)
    if dt not in _INDEX_DTYPES:
        raise ValueError(f"index_dtype must be int32 or int64, not {dt}")
    return dt


def _fits(dt, value, what):
    if value > np.iinfo(dt).max:
        raise ValueError(f"{what} = {value} does not fit in index_dtype {dt}; use int64")


def _count(n, name):
    n = int(n)
    if n < 0:
        raise ValueError(f"{name} must be >= 0, got {n}")
    return n


def _check_dtype(dtype, name):
    if dtype not in SUPPORTED_DTYPES:
        raise KernelDeclined(
            f"{name} has dtype {dtype}, which the numba CPU kernels do not support "
            "(supported: bool, (u)int8..64, float32/64, complex64/128); cast first or use "
            "the generic implementation"
        )


def _bits(a):
    """View of a C-contiguous array as unsigned integers of its itemsize (complex128: two
    uint64 per element, so the last axis doubles).  Moving bits moves values exactly."""
    return a.view(_UINT_OF_SIZE[a.dtype.itemsize])


def _width(dtype, m):
    """Number of bit-view elements per (m values of dtype)."""
    return 2 * m if dtype.itemsize == 16 else m


def _fill_vector(fill, dtype, m):
    fill = np.asarray(fill)
    if fill.dtype != dtype:
        fill = fill.astype(dtype)
    return np.ascontiguousarray(np.broadcast_to(fill, (m,)))


def _threads():
    return numba.get_num_threads()


def _check_offsets(offsets, name, total=None):
    """Raise ValueError unless ``offsets`` is non-empty, starts at 0, is non-decreasing and
    (if given) ends at ``total``.  After this every offsets[g] lies in [0, offsets[-1]]."""
    n = offsets.shape[0]
    if n == 0:
        raise ValueError(f"{name} must have at least one element (offsets[0] = 0)")
    if offsets[0] != 0:
        raise ValueError(f"{name}[0] must be 0, got {offsets[0]}")
    if n > 1:
        with team(n):
            g = int(_first_decrease(offsets, _threads()))
        if g < n:
            raise ValueError(
                f"{name} must be non-decreasing: {name}[{g}] = {offsets[g]} < {name}[{g - 1}] = {offsets[g - 1]}"
            )
    if total is not None and offsets[n - 1] != total:
        raise ValueError(f"{name}[-1] = {offsets[n - 1]} but there are {total} entries")


# ---------------------------------------------------------------------------------------
# shared jitted helpers
# ---------------------------------------------------------------------------------------


@numba.njit(**_PJIT)
def _first_decrease(offsets, nchunks):
    """Smallest g >= 1 with offsets[g] < offsets[g - 1], or len(offsets) if none."""
    n = offsets.shape[0]
    first = np.full(nchunks, n, np.int64)
    for c in numba.prange(nchunks):
        lo = max(1, n * c // nchunks)
        hi = n * (c + 1) // nchunks
        for g in range(lo, hi):
            if offsets[g] < offsets[g - 1]:
                first[c] = g
                break
    return first.min()


@numba.njit(**_JIT)
def _entry_splits(offsets, nchunks):
    """Split the walk over valid offsets (each row costs 1 + its entries) into nchunks equal
    parts, cutting inside a row if need be: chunk c covers entries ks[c]:ks[c + 1], starting in
    row gs[c] (offsets[gs[c]] <= ks[c] <= offsets[gs[c] + 1]) and ending in row gs[c + 1]."""
    nrows = offsets.shape[0] - 1
    nnz = np.int64(offsets[nrows])
    w = nnz + nrows
    gs = np.empty(nchunks + 1, np.int64)
    ks = np.empty(nchunks + 1, np.int64)
    gs[0] = 0
    ks[0] = 0
    gs[nchunks] = nrows
    ks[nchunks] = nnz
    for c in range(1, nchunks):
        target = w * c // nchunks
        lo = gs[c - 1]  # largest g with offsets[g] + g <= target
        hi = nrows
        while lo < hi:
            mid = (lo + hi + 1) // 2
            if offsets[mid] + mid <= target:
                lo = mid
            else:
                hi = mid - 1
        gs[c] = lo
        ks[c] = nnz if lo == nrows else min(target - lo, np.int64(offsets[lo + 1]))
        ks[c] = max(ks[c], ks[c - 1])
    return gs, ks


@numba.njit(**_PJIT)
def _scan_inplace(a, nchunks):
    """Inclusive prefix sum of ``a`` in place (two parallel passes over chunks)."""
    n = a.shape[0]
    tot = np.zeros(nchunks + 1, np.int64)
    for c in numba.prange(nchunks):
        s = 0
        # unsigned positions: no gathers (see _common.py)
        for i in range(*chunk_bounds(n, c, nchunks)):
            s += a[i]
        tot[c + 1] = s
    for c in range(nchunks):
        tot[c + 1] += tot[c]
    for c in numba.prange(nchunks):
        run = tot[c]
        for i in range(n * c // nchunks, n * (c + 1) // nchunks):
            run += a[i]
            a[i] = run


# ---------------------------------------------------------------------------------------
# compress_offsets / expand_offsets
# ---------------------------------------------------------------------------------------


@numba.njit(inline="always")
def _run_start(keys, p):
    """The first position at or after ``p`` that starts a run of equal keys (or ``len(keys)``)."""
    n = keys.shape[0]
    if p == 0:
        return p
    while p < n and keys[p] == keys[p - 1]:
        p += 1
    return p


@numba.njit(**_PJIT)
def _compress(keys, nbuckets, out, nchunks, fill_gaps):
    """out[b] = first i with keys[i] >= b, for 1 <= b <= keys[-1] + 1 (out[0] and the tail are the
    wrapper's). Each key stores one past its position into its bucket's end, ``out[k + 1]``, with
    no branch on where a run ends (that branch mispredicts once per row of a uniform matrix). The
    buckets no key ends (empty rows) are written one of two ways: ``fill_gaps`` False, a key that
    skips buckets takes a branch that writes them (cheap when empty rows are rare); ``fill_gaps``
    True (``out`` zeroed by the wrapper), the store loop has no such branch and a second pass over
    the chunk's buckets carries the running maximum into the unwritten ones (cheap when empty rows
    are common, as in a power-law graph, where the branch mispredicts at every gap). Each chunk
    starts where a run starts and owns the buckets after its first key's predecessor + 1, so no
    two chunks write one bucket of a sorted input. A key that is negative, >= nbuckets or smaller
    than its predecessor stops the chunk before it is used as an address and is recorded. Returns
    the first bad position per chunk (n: none)."""
    n = keys.shape[0]
    bad = np.full(nchunks, n, np.int64)
    ub = np.uint64(nbuckets)
    for c in numba.prange(nchunks):
        # unsigned positions and buckets: numba adds no negative-index wraparound to the reads and
        # writes, and the loop runs at one speed whether freshly compiled or loaded from the cache
        lo = np.uint64(_run_start(keys, n * c // nchunks))
        hi = np.uint64(_run_start(keys, n * (c + 1) // nchunks))
        first_prev = max(np.int64(keys[lo - _U1]), np.int64(-1)) if lo > 0 else np.int64(-1)
        prev = first_prev
        i = lo
        if fill_gaps:
            while i < hi:
                k = np.int64(keys[i])
                if k < prev or np.uint64(k) >= ub:  # never taken on valid input
                    bad[c] = i
                    break
                out[np.uint64(k) + _U1] = i + _U1
                prev = k
                i += _U1
            if bad[c] == n:  # empty buckets hold 0: they take the end of the run before them
                top = lo
                b = np.uint64(first_prev + 2)
                end = np.uint64(prev + 1)
                while b <= end:
                    top = max(top, np.uint64(out[b]))
                    out[b] = top
                    b += _U1
            continue
        while i < hi:
            k = np.int64(keys[i])
            if k < prev or np.uint64(k) >= ub:  # never taken on valid input
                bad[c] = i
                break
            if k > prev + 1:  # empty buckets prev + 2 .. k start (and end) here
                b = np.uint64(prev + 2)
                uk = np.uint64(k)
                while b <= uk:
                    out[b] = i
                    b += _U1
            out[np.uint64(k) + _U1] = i + _U1
            prev = k
            i += _U1
    return bad


_BLOCK = 4096  # keys per block whose run count is checked for empty buckets (stores-first way)


@numba.njit(inline="always")
def _clamped(keys, i, top):
    return np.int64(min(np.uint64(keys[i]), top))


@numba.njit(inline="always")
def _store_run_ends(keys, out, lo, hi, top):
    """out[k + 1] = one past the position of each key k in ``keys[lo:hi]`` (the last store of a run
    wins), keys clamped to ``top``."""
    for i in range(lo, hi):
        out[min(np.uint64(keys[i]), top) + _U1] = i + _U1


@numba.njit(inline="always")
def _stores_first(keys, out, lo, hi, top):
    """The stores of ``keys[lo:hi]`` block by block, each block's new keys counted on the way: a
    block whose new keys are fewer than the buckets it spans left some empty, and a second pass
    over it (its keys still in cache) gives each empty bucket the position of the key after it.
    That pass writes no bucket a key ends in, so the blocks never overwrite each other's stores,
    and a bucket is filled at most once per chunk whatever the keys (``filled``)."""
    filled = np.int64(-1)
    s = lo
    while s < hi:
        e = min(s + np.uint64(_BLOCK), hi)
        before = _clamped(keys, s - _U1, top) if s > 0 else np.int64(-1)
        prev = before
        new = 0
        for i in range(s, e):
            k = _clamped(keys, i, top)
            new += k != prev
            prev = k
            out[np.uint64(k) + _U1] = i + _U1
        if new != prev - before:  # empty buckets among (before + 1, prev]: fill them
            prev = before
            for i in range(s, e):
                k = _clamped(keys, i, top)
                for b in range(max(prev + 2, filled + 1), k + 1):
                    out[b] = i
                filled = max(filled, k)
                prev = k
        s = e


@numba.njit(**_PJIT)
def _compress_sorted(keys, nbuckets, out, nchunks, gappy):
    """:func:`_compress` for keys the caller has checked (non-decreasing, in ``[0, nbuckets)``): each
    chunk stores one past each key's position into the key's bucket end with no check and no
    branch. Empty buckets are found by counting each block's runs on the way (``_stores_first``),
    or, when ``gappy`` (the sampled keys showed many), by zeroing the chunk's buckets first and
    giving those no key ends the end before them afterwards. A chunk owns the buckets after its
    predecessor's last key + 1 up to its own last key + 1 (out[0] and the tail are the
    wrapper's). Measured on 1e7 keys, 2 threads: the checks of :func:`_compress` cost about a
    third (Poisson 10.5 -> 7.4 ms, uniform 13.7 -> 7.1 ms); on keys with few empty buckets the
    zeroing and filling passes another quarter. Every bucket touched is clamped into
    ``[1, nbuckets]``, so keys that break the promise give wrong offsets, never an access out
    of bounds."""
    n = keys.shape[0]
    top = np.uint64(nbuckets - 1)
    for c in numba.prange(nchunks):
        lo = np.uint64(_run_start(keys, n * c // nchunks))
        hi = np.uint64(_run_start(keys, n * (c + 1) // nchunks))
        if lo >= hi:
            continue
        if not gappy:
            _stores_first(keys, out, lo, hi, top)
            continue
        first = (min(np.uint64(keys[lo - _U1]), top) + _U2) if lo > 0 else _U1
        end = min(np.uint64(keys[hi - _U1]), top) + _U1
        for b in range(first, end + _U1):
            out[b] = 0
        _store_run_ends(keys, out, lo, hi, top)
        run = lo
        for b in range(first, end + _U1):
            run = max(run, np.uint64(out[b]))
            out[b] = run


def _nchunks(n):
    """Chunks of a pass over ``n`` sorted keys: one per thread (read inside ``team``), at
    least 4096 keys each."""
    return min(_threads(), max(1, n >> 12))


def _gappy(keys):
    """Whether empty buckets are common among sorted ``keys``: over 4096 keys from the middle, more
    than one bucket in 20 of the span they cover is skipped. A gap costs a mispredicted branch
    (about 20 cycles) in the store loop, a bucket about one cycle in the gap-filling pass."""
    probe = middle_sample(keys)
    if probe.shape[0] < 2:
        return False
    span = int(probe[-1]) - int(probe[0])
    if span <= 0:
        return False
    runs = int(np.count_nonzero(probe[1:] != probe[:-1]))
    return (span - runs) * 20 > span


def compress_offsets(keys, nbuckets, index_dtype, checked=False):
    """Bucket offsets of sorted keys: COO row indices (sorted) -> CSR row pointers.

    Parameters
    ----------
    keys : int32/int64[n], non-decreasing, every key in [0, nbuckets).
    nbuckets : int >= 0.
    index_dtype : np.int32 or np.int64, the dtype of the result (must hold n).
    checked : the caller has checked that keys are non-decreasing and in range (the rows of a
        coalesced COO whose indices were range-checked): the kernel does not check them again.
        It still never writes out of bounds; keys that break the promise give wrong offsets.

    Returns
    -------
    offsets : index_dtype[nbuckets + 1] with offsets[k] = number of keys < k, so
        offsets[0] = 0, offsets[-1] = n and keys[offsets[k]:offsets[k + 1]] all equal k.

    One parallel pass over chunks of keys, a store per key (plus a pass over the buckets when
    sampled keys show many empty ones). Raises ValueError naming the first position whose key is
    out of range or smaller than its predecessor (nothing is written out of bounds).

    >>> compress_offsets(np.array([1, 1, 3]), 5, np.int32).tolist()
    [0, 0, 2, 2, 3, 3]
    """
    keys = as_index(keys, "keys")
    nbuckets = _count(nbuckets, "nbuckets")
    dt = _index_dtype(index_dtype)
    n = keys.shape[0]
    _fits(dt, n, "len(keys)")
    if n == 0:
        return np.zeros(nbuckets + 1, dt)
    if checked and nbuckets > 0:
        out = np.empty(nbuckets + 1, dt)
        out[0] = 0
        with team(n + nbuckets):
            _compress_sorted(keys, nbuckets, out, _nchunks(n), _gappy(keys))
        out[min(max(int(keys[n - 1]), 0), nbuckets - 1) + 1 :] = n
        return out
    fill_gaps = _gappy(keys)
    out = np.zeros(nbuckets + 1, dt) if fill_gaps else np.empty(nbuckets + 1, dt)
    out[0] = 0
    with team(n + nbuckets):
        bad = int(_compress(keys, nbuckets, out, _nchunks(n), fill_gaps).min())
    if bad < n:
        k = int(keys[bad])
        if k < 0 or k >= nbuckets:
            why = f"outside [0, nbuckets = {nbuckets})"
        else:
            why = f"smaller than keys[{bad - 1}] = {keys[bad - 1]}"
        raise ValueError(
            f"compress_offsets: keys must be non-decreasing and in [0, {nbuckets}); keys[{bad}] = {k} is {why}"
        )
    out[int(keys[n - 1]) + 1 :] = n
    return out


@numba.njit(**_PJIT)
def _expand(offsets, splits, rows):
    nchunks = splits.shape[0] - 1
    for c in numba.prange(nchunks):
        for g in range(splits[c], splits[c + 1]):
            for k in range(offsets[g], offsets[g + 1]):
                rows[k] = g


def expand_offsets(offsets, index_dtype, nnz=None):
    """The bucket of every entry of a compressed layout: CSR row pointers -> COO rows.

    Parameters
    ----------
    offsets : int32/int64[G + 1], offsets[0] = 0, non-decreasing.
    index_dtype : np.int32 or np.int64 (must hold G - 1).
    nnz : the entry count when the caller knows it (it must equal offsets[-1]; the GPU launcher
        then reads nothing back).

    Returns
    -------
    rows : index_dtype[offsets[-1]], rows[k] = g for offsets[g] <= k < offsets[g + 1]
        (non-decreasing; the inverse of :func:`compress_offsets`).

    Parallel over chunks of rows balanced by rows + entries.  Raises ValueError (before
    writing anything) if offsets[0] != 0 or offsets decrease somewhere.

    >>> expand_offsets(np.array([0, 2, 2, 3]), np.int64).tolist()
    [0, 0, 2]
    """
    offsets = as_index(offsets, "offsets")
    dt = _index_dtype(index_dtype)
    _check_offsets(offsets, "offsets")
    G = offsets.shape[0] - 1
    _fits(dt, max(G - 1, 0), "the largest row index")
    if nnz is not None and int(nnz) != int(offsets[G]):
        raise ValueError(f"offsets[-1] = {int(offsets[G])} but nnz = {int(nnz)}")
    nnz = int(offsets[G])
    rows = np.empty(nnz, dt)
    if nnz == 0:
        return rows
    with team(nnz + G):
        splits = row_splits(offsets, _threads())
        _expand(offsets, splits, rows)
    return rows


# ---------------------------------------------------------------------------------------
# transpose_compressed
# ---------------------------------------------------------------------------------------


# how far ahead of its write a scatter stream prefetches (bytes), and how many entries ahead
# the in-cache second level prefetches its destinations
_AHEAD_BYTES = 256
_AHEAD_ENTRIES = 16


# Two-level counting sort: buckets are grouped into superbuckets of 2**shift buckets with
# shift = max(0, bit_length(NB - 1) - _QBITS), so there are at most 2**_QBITS of them.  The
# two-level path is used while shift <= _SUB_BITS (a bucket within its superbucket fits in a
# uint16); beyond that (more than 2**24 buckets), the direct counting sort.
_QBITS = 8
_SUB_BITS = 16
# A banded array (entries within a narrow band around the diagonal) takes the one-level sort
# when its band's write streams fit in this many bytes (judged on this many sampled entries):
# measured on the 2e6-row Poisson matrix, 2 threads, one level 39-58 ms, two levels 74-86 ms.
_BAND_CACHE_BYTES = 1 << 20
_BAND_SAMPLES = 4096


def _near_diagonal(offsets, minor, nmajor, nminor, entry_bytes):
    """Whether the entries lie close enough to the (scaled) diagonal of each batch that a
    one-level scatter keeps its active write streams in cache (banded matrices: stencils, FEM).

    Judged on ``_BAND_SAMPLES`` entries spread over the array: the 99th percentile of
    ``|c - r * nminor / nmajor|`` gives a band of width 2 * bw buckets; the rows of one window
    write within that band, ~2 * bw * (entries per bucket) * entry_bytes bytes, which must fit
    in ``_BAND_CACHE_BYTES``."""
    nnz = minor.shape[0]
    nrows = offsets.shape[0] - 1
    if nnz < _BAND_SAMPLES or nmajor == 0:
        return False
    k = np.linspace(0, nnz - 1, _BAND_SAMPLES).astype(np.int64)
    rows = np.searchsorted(offsets, k, side="right") - 1
    r = (rows % nmajor).astype(np.float64)
    c = minor[k].astype(np.float64)
    bw = float(np.percentile(np.abs(c - r * (nminor / nmajor)), 99))
    per_bucket = nnz / max(nrows // nmajor * nminor, 1)
    return 2 * (bw + 1) * per_bucket * entry_bytes <= _BAND_CACHE_BYTES


@numba.njit(**_PJIT)
def _tr_count(offsets, minor, nmajor, nminor, shift, gs, ks, hist):
    """hist[t, (b * nminor + c) >> shift] += 1 for each entry of chunk t (entries ks[t]:ks[t + 1],
    batch b, minor c).  Minor indices outside [0, nminor) are counted, not used; returns
    (number bad, first bad entry or -1) per chunk."""
    T = gs.shape[0] - 1
    nrows = offsets.shape[0] - 1
    nbad = np.zeros(T, np.int64)
    first = np.full(T, -1, np.int64)
    unminor = np.uint64(nminor)
    for t in numba.prange(T):
        h = hist[t]
        k = ks[t]
        kend = ks[t + 1]
        b = gs[t] // nmajor
        nb = 0
        fb = np.int64(-1)
        while k < kend:  # one batch at a time: k < nnz, so batch b exists
            e = min(kend, np.int64(offsets[min((b + 1) * nmajor, nrows)]))
            base = b * nminor
            for i in range(k, e):
                c = np.int64(minor[i])
                if np.uint64(c) >= unminor:
                    if nb == 0:
                        fb = i
                    nb += 1
                else:
                    h[(base + c) >> shift] += 1
            k = max(k, e)
            b += 1
        nbad[t] = nb
        first[t] = fb
    return nbad, first


@numba.njit(**_PJIT)
def _tr_prefix(hist, toff, nchunks):
    """Exclusive prefix of hist (T, Q) in (bucket, thread) order, in place: hist[t, q] becomes
    thread t's first position in bucket q, toff[q] the start of bucket q, toff[Q] the total."""
    T, Q = hist.shape
    tot = np.zeros(nchunks + 1, np.int64)
    for c in numba.prange(nchunks):
        s = 0
        for j in range(Q * c // nchunks, Q * (c + 1) // nchunks):
            for t in range(T):
                s += hist[t, j]
        tot[c + 1] = s
    for c in range(nchunks):
        tot[c + 1] += tot[c]
    for c in numba.prange(nchunks):
        run = tot[c]
        for j in range(Q * c // nchunks, Q * (c + 1) // nchunks):
            toff[j] = run
            for t in range(T):
                x = hist[t, j]
                hist[t, j] = run
                run += x
    toff[Q] = tot[nchunks]


def _move(dst, p, src, k):  # pragma: no cover - replaced by the overload inside numba
    dst[p] = src[k]


@overload(_move, jit_options=_JIT)
def _ov_move(dst, p, src, k):
    """dst[p] = src[k] for a row of 1-D (one value per entry) or 2-D value arrays."""
    if dst.ndim == 1:
        return lambda dst, p, src, k: _set(dst, p, src[k])

    def impl(dst, p, src, k):
        for s in range(src.shape[1]):
            dst[p, s] = src[k, s]

    return impl


def _set(dst, p, v):  # pragma: no cover - replaced by the overload inside numba
    dst[p] = v


@overload(_set, jit_options=_JIT)
def _ov_set(dst, p, v):
    """dst[p] = v; nothing when dst is None."""
    if isinstance(dst, types.NoneType):
        return lambda dst, p, v: None

    def impl(dst, p, v):
        dst[p] = v

    return impl


def _prefetch(arr, p, nbytes):  # pragma: no cover - replaced by the overload inside numba
    pass


@overload(_prefetch, jit_options=_JIT)
def _ov_prefetch(arr, p, nbytes):
    """prefetch_write(arr, p, nbytes); nothing when arr is None."""
    if isinstance(arr, types.NoneType):
        return lambda arr, p, nbytes: None
    return lambda arr, p, nbytes: prefetch_write(arr, p, nbytes)


@numba.njit(**_PJIT)
def _tr_scatter(offsets, minor, values, nmajor, nminor, shift, gs, ks, hist, sub, tminor, tvalues, prefetch):
    """Chunk t moves each of its entries (ks[t]:ks[t + 1], rows from gs[t]) to the running
    position hist[t, q] of its (super)bucket q = bucket >> shift and records the bucket within
    the superbucket in sub (None: one level).  values/tvalues are (nnz,) for one value (or bit
    word) per entry, else (nnz, mw).  With ``prefetch`` (few, long streams) the lines ahead of
    each write are prefetched.  Runs on validated input only: every position is in [0, nnz),
    written once."""
    T = gs.shape[0] - 1
    mask = (np.int64(1) << shift) - 1
    for t in numba.prange(T):
        h = hist[t]
        g = gs[t]
        k = ks[t]
        kend = ks[t + 1]
        b = g // nmajor
        r = g - b * nmajor
        base = b * nminor
        while k < kend:  # row g (k < nnz, so g < nrows)
            e = min(kend, np.int64(offsets[g + 1]))
            if prefetch:
                for i in range(k, e):
                    j = base + minor[i]
                    q = j >> shift
                    p = h[q]
                    h[q] = p + 1
                    _set(sub, p, j & mask)
                    tminor[p] = r
                    _move(tvalues, p, values, i)
                    _prefetch(sub, p, _AHEAD_BYTES)
                    prefetch_write(tminor, p, _AHEAD_BYTES)
                    prefetch_write(tvalues, p, _AHEAD_BYTES)
            else:
                for i in range(k, e):
                    q = (base + minor[i]) >> shift
                    p = h[q]
                    h[q] = p + 1
                    tminor[p] = r
                    _move(tvalues, p, values, i)
            k = max(k, e)
            g += 1
            r += 1
            if r == nmajor:
                r = 0
                base += nminor


@numba.njit(**_PJIT)
def _tr_finish(region, qsplits, shift, NB, sub, toff, tminor, tvalues):
    """Second level, per superbucket q (its entries fill region[q]:region[q + 1], the range
    they occupy in the result): count its buckets, write their offsets, copy the range aside
    and scatter it back in bucket order (range, counters and copy stay in cache).  Entries of a
    bucket keep their order in the range: by thread, then input order."""
    nchunks = qsplits.shape[0] - 1
    S = np.int64(1) << shift
    for ch in numba.prange(nchunks):
        q0 = qsplits[ch]
        q1 = qsplits[ch + 1]
        big = 0
        for q in range(q0, q1):
            big = max(big, region[q + 1] - region[q])
        h = np.empty(S, toff.dtype)  # counts <= nnz fit the index dtype
        br = np.empty(big, tminor.dtype)
        bv = np.empty((big,) + tvalues.shape[1:], tvalues.dtype)
        for q in range(q0, q1):
            lo = region[q]
            hi = region[q + 1]
            j0 = q * S
            nj = min(S, NB - j0)
            h[:nj] = 0
            for i in range(lo, hi):
                h[sub[i]] += 1
            run = lo
            for u in range(nj):
                toff[j0 + u] = run
                x = h[u]
                h[u] = run
                run += x
            n = hi - lo
            for i in range(n):
                br[i] = tminor[lo + i]
                _move(bv, i, tvalues, lo + i)
            for i in range(n):
                if i + _AHEAD_ENTRIES < n:  # the destination of a later entry (almost always exact)
                    pa = h[sub[lo + i + _AHEAD_ENTRIES]]
                    prefetch_write(tminor, pa, 0)
                    prefetch_write(tvalues, pa, 0)
                u = sub[lo + i]
                p = h[u]
                h[u] = p + 1
                tminor[p] = br[i]
                _move(tvalues, p, bv, i)
    toff[NB] = region[region.shape[0] - 1]


def transpose_compressed(offsets, minor, values, nbatch, nmajor, nminor, index_dtype):
    """Re-compress a batched compressed array along its other axis (CSR -> CSC), per batch.

    Parameters
    ----------
    offsets : int32/int64[nbatch * nmajor + 1], global: row g = b * nmajor + r (batch b, major
        index r) holds entries offsets[g]:offsets[g + 1]; offsets[0] = 0, offsets[-1] = nnz.
    minor : int32/int64[nnz], each in [0, nminor) (any order within a row).
    values : (nnz, m) array of a supported dtype.
    nbatch, nmajor, nminor : ints >= 0.
    index_dtype : np.int32 or np.int64 (must hold nnz and nmajor - 1).

    Returns
    -------
    t_offsets : index_dtype[nbatch * nminor + 1], global over buckets b * nminor + c.
    t_minor : index_dtype[nnz], the major index r (within its batch) of each entry.
    t_values : (nnz, m) of ``values.dtype``, the values moved along.

    Entries are ordered by bucket (b, c) and, within a bucket, by input position (so by
    increasing r when the input is ordered by row): a stable parallel counting sort.  The
    entries are split into per-thread chunks (balanced by entries + rows, a long row may be
    cut); each thread counts its entries per
    bucket, an exclusive prefix over (bucket, thread) gives each thread its start in every
    bucket, then each thread moves its entries there.

    With many buckets that scatter would miss the cache on nearly every write, so it runs in
    two levels: the first sorts by superbucket (at most 2**_QBITS of them, so few write streams,
    prefetched) straight into the result arrays, remembering each entry's bucket within its
    superbucket (uint16); the second sorts each superbucket's range in cache.  Per-thread
    counters then cost threads * 2**_QBITS.  Past 2**(_QBITS + 16) buckets it is one level with
    per-thread counters over all buckets; their number is kept within ~2 * nnz by using fewer
    threads.  Raises ValueError for invalid offsets or a minor index out of range (detected
    before anything is moved).

    >>> t = transpose_compressed(np.array([0, 1, 3]), np.array([2, 0, 2]), np.arange(3.0)[:, None],
    ...                          1, 2, 3, np.int64)
    >>> [a.ravel().tolist() for a in t]
    [[0, 1, 1, 3], [1, 0, 1], [1.0, 0.0, 2.0]]
    """
    # offsets are O(rows): int64 always (fewer compiled variants); minor is O(nnz): as given
    offsets = as_index(offsets, "offsets").astype(np.int64, copy=False)
    minor = as_index(minor, "minor")
    values = np.asarray(values)
    _check_dtype(values.dtype, "values")
    nbatch = _count(nbatch, "nbatch")
    nmajor = _count(nmajor, "nmajor")
    nminor = _count(nminor, "nminor")
    dt = _index_dtype(index_dtype)
    nnz = minor.shape[0]
    if values.ndim != 2 or values.shape[0] != nnz:
        raise ValueError(f"transpose_compressed: values must be (nnz, m) with nnz = len(minor) = {nnz}; got {values.shape}")
    nrows = nbatch * nmajor
    if offsets.shape[0] != nrows + 1:
        raise ValueError(
            f"transpose_compressed: offsets must have nbatch * nmajor + 1 = {nrows + 1} elements, got {offsets.shape[0]}"
        )
    _check_offsets(offsets, "offsets", nnz)
    _fits(dt, nnz, "nnz")
    _fits(dt, max(nmajor - 1, 0), "nmajor - 1")
    values = np.ascontiguousarray(values)
    NB = nbatch * nminor
    t_minor = np.empty(nnz, dt)
    t_values = np.empty(values.shape, values.dtype)
    if nnz == 0:
        return np.zeros(NB + 1, dt), t_minor, t_values
    if NB == 0:
        raise ValueError(f"transpose_compressed: minor[0] = {minor[0]} is outside [0, nminor = {nminor})")
    vb, tb = _bits(values), _bits(t_values)
    if vb.shape[1] == 1:  # one word per entry: 1-D loops
        vb, tb = vb.reshape(nnz), tb.reshape(nnz)
    shift = max(0, (NB - 1).bit_length() - _QBITS)
    if shift and _near_diagonal(offsets, minor, nmajor, nminor, t_minor.itemsize + t_values[:1].nbytes):
        shift = _SUB_BITS + 1  # one level: its write streams stay in cache
    with team(nnz + NB):
        nt = _threads()
        if shift <= _SUB_BITS:
            T, Q = nt, ((NB - 1) >> shift) + 1
        else:  # one level over all buckets, per-thread counters within ~2 * nnz
            T, Q, shift = max(1, min(nt, (2 * nnz) // NB)), NB, 0
        gs, ks = _entry_splits(offsets, T)
        hist = np.zeros((T, Q), dt)
        nbad, first = _tr_count(offsets, minor, nmajor, nminor, shift, gs, ks, hist)
        nbad = int(nbad.sum())
        if nbad:
            k = int(first[first >= 0].min())
            raise ValueError(
                f"transpose_compressed: {nbad} minor indices outside [0, nminor = {nminor}); first minor[{k}] = {minor[k]}"
            )
        t_offsets = np.empty(NB + 1, dt)
        if shift == 0:  # one level: the buckets are the superbuckets
            _tr_prefix(hist, t_offsets, nt)
            _tr_scatter(offsets, minor, vb, nmajor, nminor, 0, gs, ks, hist, None, t_minor, tb, Q <= (1 << _QBITS))
        else:
            region = np.empty(Q + 1, np.int64)
            _tr_prefix(hist, region, 1)
            sub = np.empty(nnz, np.uint16)
            _tr_scatter(offsets, minor, vb, nmajor, nminor, shift, gs, ks, hist, sub, t_minor, tb, True)
            # second level: chunks of superbuckets balanced by entries + buckets
            qsplits = row_splits(region, nt, 1 << shift)
            _tr_finish(region, qsplits, shift, NB, sub, t_offsets, t_minor, tb)
    return t_offsets, t_minor, t_values


# ---------------------------------------------------------------------------------------
# dense_to_compressed / compressed_to_dense / scatter_blocks
# ---------------------------------------------------------------------------------------


@numba.njit(**_JIT)
def _is_nan_word(v, nanw):
    """Is the float whose bits are the word v a NaN?  nanw = (exponent + mantissa mask, bits of inf)."""
    return (v & nanw[0]) > nanw[1]


@numba.njit(**_JIT)
def _specified(row, o, fill, fnan, nanw, m):
    """Is the position whose m words start at row[o] specified (some word t not "the same" as
    fill[t])?  Words are compared as bits; where fnan[t] (fill[t] is a NaN) any NaN is the same."""
    for t in range(m):
        v = row[o + t]
        if fnan[t]:
            if not _is_nan_word(v, nanw):
                return True
        elif v != fill[t]:
            return True
    return False


@numba.njit(**_PJIT)
def _d2c_count(dense, fill, fnan, nanw, cnt):
    """cnt[r + 1] = number of specified positions in row r of dense (N, C * m) words."""
    N = dense.shape[0]
    m = fill.shape[0]
    C = dense.shape[1] // m
    for r in numba.prange(N):
        row = dense[r]
        s = 0
        if m == 1:
            f = fill[0]
            if fnan[0]:
                for c in range(C):
                    s += not _is_nan_word(row[c], nanw)
            else:
                for c in range(C):
                    s += row[c] != f
        else:
            for c in range(C):
                s += _specified(row, c * m, fill, fnan, nanw, m)
        cnt[r + 1] = s


@numba.njit(**_PJIT)
def _d2c_write(dense, fill, fnan, nanw, cnt, minor, values):
    """Write row r's specified positions at cnt[r]:cnt[r + 1].  For m == 1 the write is
    branch-free (every column is written at the cursor, which advances only when specified);
    it stops as soon as the row's slots are full, so it never touches another row's."""
    N = dense.shape[0]
    m = fill.shape[0]
    C = dense.shape[1] // m
    for r in numba.prange(N):
        row = dense[r]
        pos = cnt[r]
        end = cnt[r + 1]
        if m == 1:
            f = fill[0]
            nan = fnan[0]
            for c in range(C):
                if pos >= end:
                    break
                v = row[c]
                minor[pos] = c
                values[pos, 0] = v
                if nan:
                    pos += not _is_nan_word(v, nanw)
                else:
                    pos += v != f
        else:
            for c in range(C):
                if pos >= end:
                    break
                if _specified(row, c * m, fill, fnan, nanw, m):
                    minor[pos] = c
                    for t in range(m):
                        values[pos, t] = row[c * m + t]
                    pos += 1


def _compare_words(dense, fill):
    """dense (N, C, m) and fill (m,) as the words the specified test compares, with the NaN
    flags: floats as the bits of their real parts (complex: 2m words per position), so bit
    equality is "same value and same sign of zero"; fnan marks NaN fill words (any NaN word
    matches those); nanw = (exponent + mantissa mask, bits of inf) of the word type."""
    N, C, m = dense.shape
    if dense.dtype.kind in "fc":
        real = np.empty(0, dense.dtype).real.dtype
        words = _UINT_OF_SIZE[real.itemsize]
        d2 = dense.view(real).view(words).reshape(N, -1)
        f2 = np.ascontiguousarray(fill).view(real)
        fnan = np.isnan(f2)
        nanw = np.array([np.iinfo(words).max >> 1, np.array(np.inf, real).view(words)], words)
        return d2, f2.view(words), fnan, nanw
    d2, f2 = _bits(dense).reshape(N, C * m), _bits(fill)  # equality is bit equality: one compile per width
    return d2, f2, np.zeros(f2.shape[0], np.bool_), np.zeros(2, d2.dtype)


def dense_to_compressed(dense, fill, index_dtype):
    """The specified positions of a dense array, compressed by row (dense -> CSR).

    Parameters
    ----------
    dense : (N, C, m) array of a supported dtype.
    fill : (m,) (or broadcastable) fill values, cast to ``dense.dtype``.
    index_dtype : np.int32 or np.int64.

    Returns
    -------
    offsets : index_dtype[N + 1], minor : index_dtype[nse] (column indices, increasing within
        each row), values : (nse, m) of ``dense.dtype``.  Position (r, c) is specified iff some
        t has dense[r, c, t] not "the same" as fill[t] (``sparray._core.fill.same_value``): floats
        equal with the same sign of zero, or both NaN; complex: both parts so; bool and
        integers: equal.  Row-major order.

    Two passes parallel over rows: count, prefix, write.

    >>> off, mi, va = dense_to_compressed(np.array([[[0.0], [5.0]], [[np.nan], [-0.0]]]), np.array([0.0]), np.int32)
    >>> off.tolist(), mi.tolist(), va.ravel().tolist()
    ([0, 1, 3], [1, 0, 1], [5.0, nan, -0.0])
    """
    dense = np.asarray(dense)
    _check_dtype(dense.dtype, "dense")
    if dense.ndim != 3:
        raise ValueError(f"dense_to_compressed: dense must be (N, C, m), got shape {dense.shape}")
    dt = _index_dtype(index_dtype)
    N, C, m = dense.shape
    fill = _fill_vector(fill, dense.dtype, m)
    _fits(dt, max(C - 1, 0), "C - 1")
    if N * C * m == 0:  # nothing can be specified
        return np.zeros(N + 1, dt), np.empty(0, dt), np.empty((0, m), dense.dtype)
    dense = np.ascontiguousarray(dense)
    d2, f2, fnan, nanw = _compare_words(dense, fill)
    cnt = np.zeros(N + 1, np.int64)
    with team(N * C * m):
        _d2c_count(d2, f2, fnan, nanw, cnt)
        _scan_inplace(cnt[1:], _threads())
        nse = int(cnt[N])
        _fits(dt, nse, "the number of specified positions")
        minor = np.empty(nse, dt)
        values = np.empty((nse, f2.shape[0]), d2.dtype)
        if nse:
            _d2c_write(d2, f2, fnan, nanw, cnt, minor, values)
    offsets = cnt if dt == np.int64 else cnt.astype(dt)
    return offsets, minor, values.view(dense.dtype)


@numba.njit(**_PJIT)
def _c2d(offsets, minor, values, fill, nminor, out, nchunks):
    """Row r of out (N, nminor * mw): fill, then the entries offsets[r]:offsets[r + 1] at
    their minor index (outside [0, nminor): counted, skipped).  Offsets are validated."""
    N = out.shape[0]
    mw = fill.shape[0]
    unminor = np.uint64(nminor)
    nbad = np.zeros(nchunks, np.int64)
    first = np.full(nchunks, -1, np.int64)
    for ch in numba.prange(nchunks):
        nb = 0
        fb = np.int64(-1)
        for r in range(N * ch // nchunks, N * (ch + 1) // nchunks):
            row = out[r]
            if mw == 1:
                row[:] = fill[0]
            else:
                for c in range(nminor):
                    for t in range(mw):
                        row[c * mw + t] = fill[t]
            for k in range(offsets[r], offsets[r + 1]):
                c = np.int64(minor[k])
                if np.uint64(c) >= unminor:
                    if nb == 0:
                        fb = k
                    nb += 1
                else:
                    for t in range(mw):
                        row[c * mw + t] = values[k, t]
        nbad[ch] = nb
        first[ch] = fb
    return nbad, first


def compressed_to_dense(offsets, minor, values, fill, nminor):
    """Densify a compressed array (CSR -> dense).

    Parameters
    ----------
    offsets : int32/int64[N + 1], valid (offsets[0] = 0, non-decreasing, offsets[-1] = nnz).
    minor : int32/int64[nnz] in [0, nminor).
    values : (nnz, m) of a supported dtype.
    fill : (m,) (or broadcastable), cast to ``values.dtype``.
    nminor : int >= 0.

    Returns
    -------
    dense : (N, nminor, m) of ``values.dtype``: fill everywhere, values[k] at (row of k,
        minor[k]) (for a repeated position the later entry wins).

    Parallel over rows; each row is filled and scattered while in cache.  Raises ValueError for
    invalid offsets or a minor index out of range (never written).

    >>> compressed_to_dense(np.array([0, 1, 1]), np.array([2]), np.array([[7]]), 0, 3)[..., 0].tolist()
    [[0, 0, 7], [0, 0, 0]]
    """
    offsets = as_index(offsets, "offsets").astype(np.int64, copy=False)
    minor = as_index(minor, "minor")
    values = np.asarray(values)
    _check_dtype(values.dtype, "values")
    nminor = _count(nminor, "nminor")
    nnz = minor.shape[0]
    if values.ndim != 2 or values.shape[0] != nnz:
        raise ValueError(f"compressed_to_dense: values must be (nnz, m) with nnz = len(minor) = {nnz}; got {values.shape}")
    _check_offsets(offsets, "offsets", nnz)
    m = values.shape[1]
    N = offsets.shape[0] - 1
    fill = _fill_vector(fill, values.dtype, m)
    out = np.empty((N, nminor, m), values.dtype)
    vb = _bits(np.ascontiguousarray(values))
    ob = _bits(out).reshape(N, nminor * _width(values.dtype, m))
    with team(out.size + nnz):
        nbad, first = _c2d(offsets, minor, vb, _bits(fill), nminor, ob, _threads())
    nbad = int(nbad.sum())
    if nbad:
        k = int(first[first >= 0].min())
        raise ValueError(
            f"compressed_to_dense: {nbad} minor indices outside [0, nminor = {nminor}); first minor[{k}] = {minor[k]}"
        )
    return out


@numba.njit(**_PJIT)
def _scatter_blocks(block_ids, slots, values, nblocks, nslots, fill, out, nchunks):
    """out (nblocks * nslots, mw): fill, then values[k] at block_ids[k] * nslots + slots[k]
    (ids out of range: counted, skipped)."""
    P = out.shape[0]
    mw = fill.shape[0]
    n = block_ids.shape[0]
    for ch in numba.prange(nchunks):
        for p in range(P * ch // nchunks, P * (ch + 1) // nchunks):
            for t in range(mw):
                out[p, t] = fill[t]
    nbad = np.zeros(nchunks, np.int64)
    first = np.full(nchunks, -1, np.int64)
    ub = np.uint64(nblocks)
    us = np.uint64(nslots)
    for ch in numba.prange(nchunks):
        nb = 0
        fb = np.int64(-1)
        for k in range(n * ch // nchunks, n * (ch + 1) // nchunks):
            b = np.int64(block_ids[k])
            s = np.int64(slots[k])
            if np.uint64(b) >= ub or np.uint64(s) >= us:
                if nb == 0:
                    fb = k
                nb += 1
            else:
                p = b * nslots + s
                for t in range(mw):
                    out[p, t] = values[k, t]
        nbad[ch] = nb
        first[ch] = fb
    return nbad, first


def scatter_blocks(block_ids, slots, values, nblocks, nslots, fill):
    """Pack entries into blocks over a fill (COO -> BSR block data).

    Parameters
    ----------
    block_ids : int32/int64[n] in [0, nblocks); slots : int32/int64[n] in [0, nslots).
    values : (n, m) of a supported dtype.
    nblocks, nslots : ints >= 0.
    fill : (m,) (or broadcastable), cast to ``values.dtype``.

    Returns
    -------
    out : (nblocks, nslots, m) of ``values.dtype``: fill[t] everywhere but
        out[block_ids[k], slots[k], t] = values[k, t].

    Positions should be unique; a repeated one is memory-safe but which entry wins is
    unspecified.  Parallel fill, then parallel over entries.  Raises ValueError for an id out
    of range (never written).

    >>> scatter_blocks(np.array([1]), np.array([0]), np.array([[9]]), 2, 2, -1)[..., 0].tolist()
    [[-1, -1], [9, -1]]
    """
    block_ids = as_index(block_ids, "block_ids")
    slots = as_index(slots, "slots")
    values = np.asarray(values)
    _check_dtype(values.dtype, "values")
    nblocks = _count(nblocks, "nblocks")
    nslots = _count(nslots, "nslots")
    n = block_ids.shape[0]
    if slots.shape[0] != n or values.ndim != 2 or values.shape[0] != n:
        raise ValueError(
            f"scatter_blocks: block_ids {block_ids.shape}, slots {slots.shape} and values {values.shape} "
            "must be (n,), (n,), (n, m)"
        )
    m = values.shape[1]
    fill = _fill_vector(fill, values.dtype, m)
    out = np.empty((nblocks, nslots, m), values.dtype)
    vb = _bits(np.ascontiguousarray(values))
    ob = _bits(out).reshape(nblocks * nslots, _width(values.dtype, m))
    with team(out.size + n * m):
        nbad, first = _scatter_blocks(block_ids, slots, vb, nblocks, nslots, _bits(fill), ob, _threads())
    nbad = int(nbad.sum())
    if nbad:
        k = int(first[first >= 0].min())
        raise ValueError(
            f"scatter_blocks: {nbad} entries outside [0, {nblocks}) x [0, {nslots}); "
            f"first block_ids[{k}] = {block_ids[k]}, slots[{k}] = {slots[k]}"
        )
    return out


# ---------------------------------------------------------------------------------------
# entries of the lean paths (sparray._products.lean): one unbatched 2-D array with scalar values,
# components proven once (1-D, C-contiguous, one index dtype). Each index and pointer is still
# checked before it is used as an address; a bad one makes the entry return -1.
# ---------------------------------------------------------------------------------------


@numba.njit(**_JIT)
def _transpose_serial(offsets, minor, values, nminor, t_off, t_minor, t_values):
    """CSR -> CSC (or back) on the calling thread: the count of each minor index, their prefix
    sums, then every entry moved in major order, so each new row lists its entries in the old
    major order (sorted): :func:`transpose_compressed`'s result. Returns 0, or -1 for a minor index
    out of range or pointers that do not cut ``[0, n)`` into rows (no slot is written twice)."""
    n = minor.shape[0]
    nmajor = offsets.shape[0] - 1
    um = np.uint64(nminor)
    t_off[:] = 0
    for k in range(n):
        j = np.uint64(minor[k])
        if j >= um:
            return -1
        t_off[j + _U1] += 1
    for j in range(nminor):
        t_off[j + 1] += t_off[j]
    cursor = t_off[:nminor].astype(np.uint64)
    lo = np.int64(offsets[0])
    if lo != 0:
        return -1
    for i in range(nmajor):
        hi = np.int64(offsets[i + 1])
        if hi < lo or hi > n:
            return -1
        for k in range(np.uint64(lo), np.uint64(hi)):
            j = np.uint64(minor[k])
            p = cursor[j]
            cursor[j] = p + _U1
            t_minor[p] = i
            t_values[p] = values[k]
        lo = hi
    return 0 if lo == n else -1


def transpose_into(offsets, minor, values, nminor, serial=None):
    """``(t_offsets, t_minor, t_values)``: :func:`transpose_compressed` of one unbatched array with
    1-D values, in ``offsets``' index dtype, for callers that proved their operands (the lean
    paths): each new row lists its entries in the old major order (sorted). On the calling thread
    below ``TRANSPOSE_SERIAL_WORK`` entries plus rows plus columns, else in two levels
    (:func:`_transpose_two_level`) with slices handed out by claim, from ``TRANSPOSE_SHARED_WORK``
    on a busy core's thread too (``serial`` True or False forces one; the same result).
    ValueError for a bad pointer or index, before any is used as an address.

    >>> t = transpose_into(np.array([0, 1, 3]), np.array([2, 0, 2]), np.array([1.0, 2.0, 3.0]), 3)
    >>> [a.tolist() for a in t]
    [[0, 1, 1, 3], [1, 0, 1], [2.0, 1.0, 3.0]]
    """
    n = minor.shape[0]
    nmajor = offsets.shape[0] - 1
    work = n + nmajor + nminor
    out = None
    if not (serial or (serial is None and work < TRANSPOSE_SERIAL_WORK)):
        if nmajor < 0 or int(offsets[0]) != 0 or int(offsets[nmajor]) != n:
            out = False
        else:
            with team(work if serial is None else 1 << 62, 1, shared=TRANSPOSE_SHARED_WORK) as T:
                out = _transpose_two_level(offsets, minor, values, nminor, T) or False
    if out is None:  # on the calling thread
        out = (np.empty(nminor + 1, offsets.dtype), np.empty(n, offsets.dtype), np.empty(n, values.dtype))
        if _transpose_serial(offsets, minor, values, nminor, *out) < 0:
            out = False
    if out is False:
        raise ValueError("transpose_into: offsets must cut [0, nse) into rows and every minor index lie in [0, nminor)")
    return out


@numba.njit(**_JIT)
def _to_dense_serial(offsets, minor, values, fill, out, by_rows):
    """Entry k of major row i (``offsets``) written to ``out[i, minor[k]]`` (``by_rows``: a CSR, each
    row of ``out`` set to ``fill`` first, one pass over the result) or ``out[minor[k], i]`` (a CSC's
    columns; ``out`` holds the fill already). Returns 0, or -1 for a bad pointer or index (never
    used as an address)."""
    n = np.int64(minor.shape[0])
    nmajor = offsets.shape[0] - 1
    um = np.uint64(out.shape[1] if by_rows else out.shape[0])
    lo = np.int64(offsets[0])
    if lo < 0:
        return -1
    for i in range(nmajor):
        hi = np.int64(offsets[i + 1])
        if hi < lo or hi > n:
            return -1
        if by_rows:
            row = out[i]
            row[:] = fill
            for k in range(np.uint64(lo), np.uint64(hi)):
                j = np.uint64(minor[k])
                if j >= um:
                    return -1
                row[j] = values[k]
        else:
            for k in range(np.uint64(lo), np.uint64(hi)):
                j = np.uint64(minor[k])
                if j >= um:
                    return -1
                out[j, i] = values[k]
        lo = hi
    return 0


@numba.njit(**_PJIT)
def _to_dense_rows_parallel(offsets, minor, values, fill, out, nchunks, write_fill):
    """:func:`_to_dense_serial` for a CSR (``by_rows``) over ``nchunks`` slices of rows, one per
    thread: each row set to the fill (``write_fill``; else ``out`` holds it already) and given its
    entries while in cache. Returns 0, or -1 for a bad pointer or index (rows before it may be
    written, none outside ``out``)."""
    n = np.int64(minor.shape[0])
    M = out.shape[0]
    um = np.uint64(out.shape[1])
    bad = np.zeros(nchunks, np.int64)
    for c in numba.prange(nchunks):
        r0, r1 = chunk_bounds(M, c, nchunks)
        for i in range(r0, r1):
            lo, hi = np.int64(offsets[i]), np.int64(offsets[i + _U1])
            if lo < 0 or hi < lo or hi > n:
                bad[c] = 1
                break
            row = out[i]
            if write_fill:
                row[:] = fill
            for k in range(np.uint64(lo), np.uint64(hi)):
                j = np.uint64(minor[k])
                if j >= um:
                    bad[c] = 1
                    break
                row[j] = values[k]
            if bad[c]:
                break
    return -1 if bad.any() else 0


#: the lean CSR -> dense runs on the calling thread below this many dense elements, else over one
#: slice of rows per thread (benchmarks/crossover.py)
DENSE_SERIAL_WORK = 1 << 16
#: a zero-fill dense result of this many bytes or more starts from pages the system zeroes (glibc
#: maps every block above 32 MB fresh): writing only the entries touches a fraction of them (a
#: 1e4 x 1e4 result of 1e5 entries: 105 ms with every row written, 65 ms with only the entries)
DENSE_FRESH_BYTES = 1 << 25


def to_dense_into(offsets, minor, values, fill, shape, by_rows, serial=None):
    """The dense ``shape`` array of one unbatched CSR (``by_rows``) or CSC with 1-D values and a 0-d
    ``fill`` (the lean paths). A CSR's rows are each set to the fill and then get their entries,
    one pass over the result: on the calling thread below ``DENSE_SERIAL_WORK`` elements, else one
    slice of rows per thread (``serial`` True or False forces one); a CSC's entries
    are written on the calling thread into an array filled first. ValueError for a bad pointer or
    index."""
    M, N = shape
    fill_v = values.dtype.type(fill)
    if by_rows and not (M * N < DENSE_SERIAL_WORK if serial is None else serial):
        # a zero fill over more bytes than glibc ever recycles: fresh pages the system hands out
        # zeroed, of which only those holding an entry are touched (scipy's toarray does the same);
        # smaller results come from recycled memory, where filling each row first is one pass
        fresh = M * N * values.itemsize >= DENSE_FRESH_BYTES and fill_v == 0 and not np.signbit(np.real(fill_v))
        out = np.zeros(shape, values.dtype) if fresh else np.empty(shape, values.dtype)
        with team(1 << 62) as T:  # parallel-sized: the threads this call may have (maybe one)
            status = _to_dense_rows_parallel(offsets, minor, values, fill_v, out, T, not fresh)
    else:
        out = np.empty(shape, values.dtype) if by_rows else np.full(shape, fill_v, values.dtype)
        status = _to_dense_serial(offsets, minor, values, fill_v, out, by_rows)
    if status < 0:
        raise ValueError("to_dense_into: offsets must be non-decreasing within [0, nse] and indices in range")
    return out


#: rows of at most this many entries are sorted by rank (below), longer ones by a merge sort
_RANK_SORT_MAX = 32


@numba.njit(**_JIT)
def _merge_sort_run(cols, vals, lo, hi):
    """Sort ``cols[lo:hi]`` (and ``vals`` alongside) by a stable merge argsort (long runs; kept out
    of line, so that the short runs' loop stays small)."""
    order = np.argsort(cols[lo:hi], kind="mergesort")
    c2 = cols[lo:hi][order]
    v2 = vals[lo:hi][order]
    cols[lo:hi] = c2
    vals[lo:hi] = v2


@numba.njit(inline="always")
def _sort_dedup_run(cols, vals, lo, hi, o, tc, tv):
    """The run ``cols[lo:hi]`` (``vals`` alongside) sorted by column stably, equal columns summed
    left to right (input order) into one entry, and the distinct entries written from ``o <= lo``
    on (a write never passes a read still to come). Returns how many remain.

    A short run is sorted by rank: each entry's place is the number of entries before it whose
    column is at most its own plus those after it whose column is smaller (two branch-free
    loops); the entries go to their places in ``tc``/``tv`` (``_RANK_SORT_MAX`` slots each) and
    come back summed. Rows of 11 random columns: 4.9 ns an entry, insertion sort 12.3 (its loop
    exit mispredicts once per entry). A long run: a stable merge argsort in place, then summed."""
    k = np.uint64(hi - lo)
    if k == 0:
        return 0
    ulo = np.uint64(lo)
    if k <= np.uint64(_RANK_SORT_MAX):
        for i in range(k):
            ci = cols[ulo + i]
            r = 0
            for j in range(i):
                r += cols[ulo + j] <= ci
            for j in range(i + _U1, k):
                r += cols[ulo + j] < ci
            tc[r] = ci
            tv[r] = vals[ulo + i]
        src_c, src_v, base = tc, tv, np.uint64(0)
    else:
        _merge_sort_run(cols, vals, lo, hi)
        src_c, src_v, base = cols, vals, ulo
    uo = np.uint64(o)
    m = np.uint64(0)
    c = src_c[base]
    v = src_v[base]
    for i in range(base + _U1, base + k):
        ci = src_c[i]
        if ci == c:
            v += src_v[i]
        else:
            cols[uo + m] = c
            vals[uo + m] = v
            m += _U1
            c = ci
            v = src_v[i]
    cols[uo + m] = c
    vals[uo + m] = v
    return np.int64(m + _U1)


# --- COO -> CSR (the lean path): is it in row order already? ----------------------------------
#: what :func:`coo_row_order` found: every row's columns strictly increasing in row order (the
#: COO is coalesced), rows in order but some row's columns not (unsorted within it, or repeated),
#: rows out of order
COALESCED, ROWS_SORTED, UNSORTED = 0, 1, 2
_OUT_OF_RANGE = 3
#: the pass over the indices runs on the calling thread below this many entries (its work is one
#: read of both index arrays; benchmarks/crossover.py)
ORDER_SERIAL_WORK = 1 << 15
#: ... and from this many on it takes a thread on a core another process keeps busy too (its chunks
#: go to whichever thread is free, see ``_threads.team``)
ORDER_SHARED_WORK = 1 << 18


@numba.njit(inline="always")
def _order_first_bad(rows, cols, s, e, ur, uc, before):
    """``(kind, position)`` of the first entry of ``[s, e)`` with an index out of range
    (``_OUT_OF_RANGE``) or a row smaller than the one before it (``UNSORTED``)."""
    pr = before
    for i in range(s, e):
        r = np.int64(rows[i])
        if np.uint64(r) >= ur or np.uint64(np.int64(cols[i])) >= uc:
            return _OUT_OF_RANGE, np.int64(i)
        if r < pr:
            return UNSORTED, np.int64(i)
        pr = r
    return UNSORTED, np.int64(s)  # not reached: the block failed a test that this loop repeats


@numba.njit(inline="always")
def _order_chunk(rows, cols, out, lo, hi, ur, uc):
    """One read of entries ``[lo, hi)`` (``lo`` starts a run of equal rows, or is 0): each index
    checked against its size, the order checked, and each row's end stored into ``out[row + 1]``
    (one past its last entry: the CSR's row pointers if the rows are in order), block by block as
    :func:`_stores_first` stores keys. The tests are folded into flags without a branch per
    entry; a block that fails one is read again to find where. Returns ``(kind, position)``:
    ``COALESCED``; ``ROWS_SORTED`` (some row's columns do not strictly increase; every entry read);
    ``UNSORTED`` or ``_OUT_OF_RANGE`` at ``position`` (the chunk stopped there). A stored row is
    clamped into ``[0, nrows)``: nothing is written out of bounds whatever the indices."""
    top = ur - _U1
    filled = np.int64(-1)
    kind = COALESCED
    s = lo
    while s < hi:
        e = min(s + np.uint64(_BLOCK), hi)
        before = np.int64(-1)
        pc = np.int64(-1)
        if s > 0:
            before = np.int64(rows[s - _U1])
            pc = np.int64(cols[s - _U1])
        pr = before
        ok = True
        strict = True
        new = 0
        for i in range(s, e):
            r = np.int64(rows[i])
            c = np.int64(cols[i])
            ok = ok & (np.uint64(r) < ur) & (np.uint64(c) < uc) & (r >= pr)
            strict = strict & ((r > pr) | (c > pc))
            new += r != pr
            out[min(np.uint64(r), top) + _U1] = i + _U1
            pr = r
            pc = c
        if not ok:
            return _order_first_bad(rows, cols, s, e, ur, uc, before)
        if not strict:
            kind = ROWS_SORTED
        if new != pr - before:  # empty rows in (before, pr]: each ends where the next entry is
            prev = before
            for i in range(s, e):
                k = np.int64(rows[i])
                for b in range(max(prev + 2, filled + 1), k + 1):
                    out[b] = i
                filled = max(filled, k)
                prev = k
        s = e
    return kind, np.int64(hi)


@numba.njit(**_JIT)
def _run_bounds(keys, nchunks):
    """``nchunks + 1`` cuts of ``[0, n)``, each at the first run start (of equal keys) at or after
    ``n * c / nchunks`` and never before the cut before it, so the scans for run starts read each
    key at most once together (one row of all the entries costs one pass, not one per chunk)."""
    n = keys.shape[0]
    b = np.empty(nchunks + 1, np.int64)
    b[0] = 0
    p = 0
    for c in range(1, nchunks):
        p = _run_start(keys, max(p, n * c // nchunks))
        b[c] = p
    b[nchunks] = n
    return b


@numba.njit(**_JIT)
def _order_serial(rows, cols, nrows, ncols, out):
    """:func:`_order_chunk` over every entry on the calling thread."""
    return _order_chunk(rows, cols, out, np.uint64(0), np.uint64(rows.shape[0]), np.uint64(nrows), np.uint64(ncols))


@numba.njit(**_PJIT)
def _order_parallel(rows, cols, nrows, ncols, out, bounds, kinds, where, workers):
    """:func:`_order_chunk` over the chunks that ``bounds`` cuts (at run starts, so no two chunks
    store one row's end), handed to whichever of ``workers`` is free (:func:`._common.claim`)."""
    nchunks = bounds.shape[0] - 1
    ur, uc = np.uint64(nrows), np.uint64(ncols)
    counter = np.zeros(1, np.int64)
    for _ in numba.prange(workers):
        c = claim(counter)
        while c < nchunks:
            k, p = _order_chunk(rows, cols, out, np.uint64(bounds[c]), np.uint64(bounds[c + 1]), ur, uc)
            kinds[c] = k
            where[c] = p
            c = claim(counter)


def _claim_chunks(n, threads, least=1 << 12):
    """Chunks to hand out by claim for a pass over ``n`` items: about four per thread, more for
    long passes (2**16 items each at most, so a late thread holds a call back by little), at
    least ``least`` items each."""
    return max(1, min(max(4 * threads, n >> 16), n // least))


def coo_row_order(rows, cols, nrows, ncols, index_dtype, serial=None):
    """``(order, offsets)``: whether a 2-D COO's entries (``rows``, ``cols``: 1-D int32/int64 of one
    length) are in row order, found in the one read of both index arrays that checks them against
    ``nrows`` and ``ncols``. ``order`` is ``COALESCED`` (rows non-decreasing and columns strictly
    increasing within each row: the COO's column and value arrays are already a CSR's),
    ``ROWS_SORTED`` (rows non-decreasing, some row's columns not strictly increasing) or
    ``UNSORTED``; ``offsets`` are the CSR's row pointers (``index_dtype``) for the first two and
    None for ``UNSORTED`` (whose pass stops early: it checked only part of the indices). On the
    calling thread below ``ORDER_SERIAL_WORK`` entries, else in chunks handed to whichever thread
    is free (``serial`` True or False forces one; the same result). ValueError names the first
    index out of range it met (never used as an address).

    >>> order, ptr = coo_row_order(np.array([0, 0, 2]), np.array([1, 3, 0]), 3, 4, np.int32)
    >>> order == COALESCED, ptr.tolist()
    (True, [0, 2, 2, 3])
    >>> coo_row_order(np.array([1, 0]), np.array([0, 0]), 2, 1, np.int32)[0] == UNSORTED
    True
    """
    n = rows.shape[0]
    out = np.empty(nrows + 1, index_dtype)
    if n == 0:
        out[:] = 0
        return COALESCED, out
    work = n if serial is None else (0 if serial else 1 << 62)
    with team(work, ORDER_SERIAL_WORK, shared=ORDER_SHARED_WORK) as T:
        if serial or (T == 1 and serial is None):
            kind, where = _order_serial(rows, cols, nrows, ncols, out)
        else:
            bounds = _run_bounds(rows, _claim_chunks(n, T))
            kinds = np.empty(bounds.shape[0] - 1, np.int64)
            wheres = np.empty(bounds.shape[0] - 1, np.int64)
            _order_parallel(rows, cols, nrows, ncols, out, bounds, kinds, wheres, T)
            kind = int(kinds.max())
            where = int(wheres[kinds == kind].min())
    if kind == _OUT_OF_RANGE:
        raise ValueError(
            f"coo_row_order: every row must lie in [0, {nrows}) and every column in [0, {ncols}); entry {where} is "
            f"({int(rows[where])}, {int(cols[where])})"
        )
    if kind == UNSORTED:
        return UNSORTED, None
    out[0] = 0
    out[int(rows[n - 1]) + 1 :] = n
    return kind, out


# --- COO -> CSR: bucketing, sorting each row, summing duplicates --------------------------------
@numba.njit(**_JIT)
def _bucket_rows_serial(rows, cols, values, nrows, ncols, ptr, t_cols, t_vals):
    """A COO's entries bucketed by row on the calling thread: a count, its prefix sums in ``ptr``,
    a stable move into ``t_cols``/``t_vals``. Returns 0, or -1 for an index out of range (nothing
    moved then)."""
    n = rows.shape[0]
    ur, uc = np.uint64(nrows), np.uint64(ncols)
    ptr[:] = 0
    for k in range(n):
        r = np.uint64(np.int64(rows[k]))
        if r >= ur or np.uint64(np.int64(cols[k])) >= uc:
            return -1
        ptr[r + _U1] += 1
    for r in range(nrows):
        ptr[r + 1] += ptr[r]
    cursor = ptr[:nrows].astype(np.int64)
    for k in range(n):
        r = np.uint64(rows[k])
        p = cursor[r]
        cursor[r] = p + 1
        t_cols[p] = cols[k]
        t_vals[p] = values[k]
    return 0


@numba.njit(**_PJIT)
def _bucket_rows_parallel(rows, cols, values, nrows, ncols, ptr, t_cols, t_vals, hist):
    """:func:`_bucket_rows_serial` over ``len(hist)`` slices of the entries: a row histogram per
    slice (``hist``, scratch: zeroed here), each slice's start in every row from the histograms of
    the slices before it (so the move is stable), the moves in parallel. Returns 0, or -1 for an
    index out of range (nothing moved then)."""
    nchunks = hist.shape[0]
    n = rows.shape[0]
    if _group_count(rows, cols, nrows, ncols, 0, hist) < 0:  # groups of one row: the row histograms
        return -1
    _tr_prefix(hist, ptr, nchunks)  # hist[c, r]: slice c's first slot in row r
    for c in numba.prange(nchunks):
        lo, hi = chunk_bounds(n, c, nchunks)
        h = hist[c]
        for k in range(lo, hi):
            r = np.uint64(rows[k])
            p = h[r]
            h[r] = p + 1
            t_cols[p] = cols[k]
            t_vals[p] = values[k]
    return 0


@numba.njit(**_JIT)
def _sort_rows_serial(ptr, t_cols, t_vals):
    """Each row ``ptr[r]:ptr[r + 1]`` of ``t_cols``/``t_vals`` sorted by column stably and its
    duplicates summed left to right, the distinct entries packed row after row from the start
    (writes never pass reads) and ``ptr`` rewritten to their row pointers. Returns how many
    remain."""
    nrows = ptr.shape[0] - 1
    tc = np.empty(_RANK_SORT_MAX, t_cols.dtype)
    tv = np.empty(_RANK_SORT_MAX, t_vals.dtype)
    o = np.int64(0)
    lo = np.int64(ptr[0])
    for r in range(nrows):
        hi = np.int64(ptr[r + 1])
        o += _sort_dedup_run(t_cols, t_vals, lo, hi, o, tc, tv)
        ptr[r + 1] = o
        lo = hi
    return o


@numba.njit(**_PJIT)
def _sort_rows_parallel(ptr, t_cols, t_vals, uniq, splits, kept, workers):
    """:func:`_sort_rows_serial` over the chunks of rows that ``splits`` cuts, handed out by claim:
    chunk q packs its rows' distinct entries from its own first slot on (``uniq[r]``: how many row
    r kept; ``kept[q]``: how many chunk q kept), by ``workers`` threads. ``ptr`` is left as it was."""
    nchunks = splits.shape[0] - 1
    counter = np.zeros(1, np.int64)
    for _ in numba.prange(workers):
        tc = np.empty(_RANK_SORT_MAX, t_cols.dtype)
        tv = np.empty(_RANK_SORT_MAX, t_vals.dtype)
        q = claim(counter)
        while q < nchunks:
            r0, r1 = splits[q], splits[q + 1]
            start = np.int64(ptr[r0])
            o = start
            for r in range(r0, r1):
                lo, hi = np.int64(ptr[r]), np.int64(ptr[r + 1])
                u = _sort_dedup_run(t_cols, t_vals, lo, hi, o, tc, tv)
                uniq[r] = u
                o += u
            kept[q] = o - start
            q = claim(counter)


@numba.njit(**_JIT)
def _close_ranks(ptr, t_cols, t_vals, uniq, starts, kept):
    """After the chunks of rows each packed their distinct entries from their first slot on
    (``starts[q]``, ``kept[q]`` of them): those moved down one chunk after the other (in chunk
    order, so a move never overwrites entries still to be moved) and ``ptr`` rewritten to the
    rows' new pointers (``uniq[r]`` entries in row r). Returns how many entries remain."""
    nchunks = kept.shape[0]
    dst = np.int64(kept[0])
    for q in range(1, nchunks):
        src = np.int64(starts[q])
        m = kept[q]
        if src != dst:
            for t in range(m):
                t_cols[dst + t] = t_cols[src + t]
                t_vals[dst + t] = t_vals[src + t]
        dst += m
    nrows = ptr.shape[0] - 1
    ptr[0] = 0
    run = np.int64(0)
    for r in range(nrows):
        run += uniq[r]
        ptr[r + 1] = run
    return run


def _shrink(t_cols, t_vals, total):
    """The packed arrays cut to their first ``total`` entries in place (``ndarray.resize``: glibc's
    realloc keeps the block where it is and returns the tail; nothing is copied)."""
    if total < t_cols.shape[0]:
        t_cols.resize((total,), refcheck=False)
        t_vals.resize((total,), refcheck=False)
    return t_cols, t_vals


# Two levels for many rows, as transpose_compressed does: the entries first bucketed by group of
# 2**shift rows (at most 2**_QBITS groups: few write streams, prefetched), each remembering its row
# within the group, then each group's range (in cache) bucketed by row, each row sorted and its
# duplicates summed while the range is still in cache.
#: rows from which the counting path buckets the entries in two levels (uniform random, 10 a row,
#: 2 threads: 1e6 rows 83 against 111 ms, 4e5 rows 39 against 41 ms, 1e5 rows 9.8 against 9.1 ms)
COO_TWO_LEVEL_ROWS = 1 << 18


@numba.njit(**_PJIT)
def _group_count(rows, cols, nrows, ncols, shift, hist):
    """``hist[t, g]``: the entries of slice t (of ``len(hist)`` equal slices) in row group
    ``g = row >> shift``. Returns 0, or -1 for an index out of range (counted no further)."""
    nchunks = hist.shape[0]
    n = rows.shape[0]
    ur, uc = np.uint64(nrows), np.uint64(ncols)
    ushift = np.uint64(shift)
    bad = np.zeros(nchunks, np.int64)
    for t in numba.prange(nchunks):
        lo, hi = chunk_bounds(n, t, nchunks)
        h = hist[t]
        h[:] = 0
        for k in range(lo, hi):
            r = np.uint64(np.int64(rows[k]))
            if r >= ur or np.uint64(np.int64(cols[k])) >= uc:
                bad[t] = 1
                break
            h[r >> ushift] += 1
    return -1 if bad.any() else 0


@numba.njit(**_PJIT)
def _group_scatter(rows, cols, values, shift, hist, sub, t_cols, t_vals):
    """Slice t moves each of its entries to the running position ``hist[t, g]`` of its row group
    (stable: slices in order, each in input order), recording its row within the group in ``sub``
    and prefetching the lines ahead of each of the (few) write streams. Validated input only."""
    nchunks = hist.shape[0]
    n = rows.shape[0]
    ushift = np.uint64(shift)
    mask = (_U1 << ushift) - _U1
    for t in numba.prange(nchunks):
        lo, hi = chunk_bounds(n, t, nchunks)
        h = hist[t]
        for k in range(lo, hi):
            r = np.uint64(rows[k])
            g = r >> ushift
            p = h[g]
            h[g] = p + 1
            sub[p] = r & mask
            t_cols[p] = cols[k]
            t_vals[p] = values[k]
            prefetch_write(sub, p, _AHEAD_BYTES)
            prefetch_write(t_cols, p, _AHEAD_BYTES)
            prefetch_write(t_vals, p, _AHEAD_BYTES)


@numba.njit(**_PJIT)
def _group_finish(region, gsplits, shift, nrows, sub, t_cols, t_vals, uniq, kept, big, workers):
    """Second level, chunk by chunk of row groups (``gsplits``, handed out by claim): each group's
    range ``region[g]:region[g + 1]`` copied aside (``big`` entries at most) and moved back
    bucketed by row (stable), then each row sorted, its duplicates summed left to right and its
    distinct entries packed from the chunk's first slot on (``uniq[r]`` per row, ``kept[c]`` per
    chunk), all while the range is in cache."""
    nchunks = gsplits.shape[0] - 1
    S = np.int64(1) << shift
    counter = np.zeros(1, np.int64)
    for _ in numba.prange(workers):
        h = np.empty(S, np.int64)
        bc = np.empty(big, t_cols.dtype)
        bv = np.empty(big, t_vals.dtype)
        tc = np.empty(_RANK_SORT_MAX, t_cols.dtype)
        tv = np.empty(_RANK_SORT_MAX, t_vals.dtype)
        c = claim(counter)
        while c < nchunks:
            g0, g1 = gsplits[c], gsplits[c + 1]
            o = region[g0]
            for g in range(g0, g1):
                lo, hi = region[g], region[g + 1]
                j0 = g * S
                nj = min(S, nrows - j0)
                h[:nj] = 0
                for i in range(np.uint64(lo), np.uint64(hi)):
                    h[sub[i]] += 1
                run = lo
                for u in range(nj):
                    x = h[u]
                    h[u] = run
                    run += x
                m = np.uint64(hi - lo)
                ulo = np.uint64(lo)
                for i in range(m):
                    bc[i] = t_cols[ulo + i]
                    bv[i] = t_vals[ulo + i]
                for i in range(m):
                    u = sub[ulo + i]
                    p = h[u]
                    h[u] = p + 1
                    t_cols[p] = bc[i]
                    t_vals[p] = bv[i]
                start = lo  # h[u] now ends row j0 + u
                for u in range(nj):
                    end = h[u]
                    k = _sort_dedup_run(t_cols, t_vals, start, end, o, tc, tv)
                    uniq[j0 + u] = k
                    o += k
                    start = end
            kept[c] = o - region[g0]
            c = claim(counter)


def _two_level(rows, cols, values, nrows, ncols, idt, threads):
    """The counting path in two levels (see above): ``(ptr, t_cols, t_vals)``, or None for an
    index out of range."""
    n = rows.shape[0]
    shift = max(0, (nrows - 1).bit_length() - _QBITS)
    G = ((nrows - 1) >> shift) + 1
    hist = scratch("coo_to_csr.ghist", (threads, G), np.int64)
    if _group_count(rows, cols, nrows, ncols, shift, hist) < 0:
        return None
    region = np.empty(G + 1, np.int64)
    _tr_prefix(hist, region, 1)
    t_cols = np.empty(n, idt)
    t_vals = np.empty(n, values.dtype)
    sub = scratch("coo_to_csr.sub", (n,), np.uint16 if shift <= 16 else np.uint32)
    _group_scatter(rows, cols, values, shift, hist, sub, t_cols, t_vals)
    gsplits = row_splits(region, _claim_chunks(n + nrows, threads), 1 << shift)
    uniq = scratch("coo_to_csr.uniq", (nrows,), np.int64)
    kept = np.empty(gsplits.shape[0] - 1, np.int64)
    big = int(np.diff(region).max())
    _group_finish(region, gsplits, shift, nrows, sub, t_cols, t_vals, uniq, kept, big, threads)
    ptr = np.empty(nrows + 1, idt)
    total = _close_ranks(ptr, t_cols, t_vals, uniq, region[gsplits[:-1]], kept)
    return (ptr, *_shrink(t_cols, t_vals, total))


def _sorted_rows(ptr, t_cols, t_vals, serial, threads):
    """Every row of the bucketed ``t_cols``/``t_vals`` sorted and its duplicates summed, packed in
    place (``ptr`` rewritten); the arrays shrunk to the entries kept (``ndarray.resize``: glibc's
    realloc keeps the block where it is, nothing is copied). Returns them."""
    n = total = t_cols.shape[0]
    if serial or threads == 1:
        total = _sort_rows_serial(ptr, t_cols, t_vals)
    else:
        nrows = ptr.shape[0] - 1
        splits = row_splits(ptr, _claim_chunks(n + nrows, threads))
        uniq = scratch("coo_to_csr.uniq", (nrows,), np.int64)
        kept = np.empty(splits.shape[0] - 1, np.int64)
        _sort_rows_parallel(ptr, t_cols, t_vals, uniq, splits, kept, threads)
        if int(kept.sum()) < n:
            total = _close_ranks(ptr, t_cols, t_vals, uniq, ptr[splits[:-1]], kept)
    return (ptr, *_shrink(t_cols, t_vals, total))


@numba.njit(**_JIT)
def _coo_to_csr_serial(rows, cols, values, nrows, ncols, ptr, t_cols, t_vals):
    """The whole of :func:`coo_to_csr_into` on the calling thread in one call (small inputs: each
    call into numba costs about a microsecond): the order pass, then, unless the entries are
    coalesced, the columns and values copied (rows in order) or bucketed by row into
    ``t_cols``/``t_vals``, each row sorted and its duplicates summed. Returns ``(kind, where,
    total)``: :func:`_order_chunk`'s kind and position (``where`` -1: an index out of range that
    the bucketing found) and the entries kept."""
    n = rows.shape[0]
    kind, where = _order_chunk(rows, cols, ptr, np.uint64(0), np.uint64(n), np.uint64(nrows), np.uint64(ncols))
    if kind == _OUT_OF_RANGE:
        return kind, where, 0
    if kind == UNSORTED:
        if _bucket_rows_serial(rows, cols, values, nrows, ncols, ptr, t_cols, t_vals) < 0:
            return _OUT_OF_RANGE, np.int64(-1), 0
    else:
        ptr[0] = 0
        ptr[min(np.uint64(rows[n - 1]), np.uint64(nrows - 1)) + _U1 :] = n
        if kind == COALESCED:
            return kind, where, n
        t_cols[:] = cols
        t_vals[:] = values
    return kind, where, _sort_rows_serial(ptr, t_cols, t_vals)


def _coo_to_csr_small(rows, cols, values, nrows, ncols, idt):
    """:func:`coo_to_csr_into` on the calling thread (:func:`_coo_to_csr_serial`)."""
    n = rows.shape[0]
    ptr = np.empty(nrows + 1, idt)
    t_cols = np.empty(n, idt)
    t_vals = np.empty(n, values.dtype)
    if n == 0:
        ptr[:] = 0
        return ptr, t_cols, t_vals
    kind, where, total = _coo_to_csr_serial(rows, cols, values, nrows, ncols, ptr, t_cols, t_vals)
    if kind == _OUT_OF_RANGE:
        at = f"; entry {where} is ({int(rows[where])}, {int(cols[where])})" if where >= 0 else ""
        raise ValueError(f"coo_to_csr_into: every row must lie in [0, {nrows}) and every column in [0, {ncols}){at}")
    if kind == COALESCED:
        return ptr, cols if cols.dtype == idt else cols.astype(idt), values
    return (ptr, *_shrink(t_cols, t_vals, total))


def coo_to_csr_into(rows, cols, values, nrows, ncols, index_dtype, serial=None):
    """``(crow, col, values)``: the CSR of a 2-D COO given as ``rows``, ``cols`` (1-D int32/int64,
    any order, duplicates allowed) and 1-D ``values``; index arrays in ``index_dtype``.

    First the one read of both index arrays that checks them (:func:`coo_row_order`). Entries in
    row order with strictly increasing columns (a coalesced COO: what ``csr.tocoo()`` gives, or a
    COO built row by row) are a CSR already: ``col`` and ``values`` ARE ``cols`` and ``values``
    (no copy; ``cols`` converted when its dtype is not ``index_dtype``) and ``crow`` came from that
    read. Rows in order but columns not: copies of both, each row sorted. Otherwise a counting
    pass over the rows buckets the entries (stable), then each row is sorted by column
    (insertion sort, or a stable merge sort for long rows). Duplicates are summed left to right in
    input order, as ``coalesce`` sums them, and the entries kept are packed in place (the arrays
    shrunk to them): no comparison sort over all entries, no second array of the entries.

    On the calling thread below ``COO_SERIAL_WORK`` entries plus rows (``ORDER_SERIAL_WORK`` for
    the first read), else in parallel (``serial`` True or False forces one; the same result).
    ValueError for an index out of range, before any is used as an address.

    >>> crow, col, val = coo_to_csr_into(np.array([1, 0, 1]), np.array([2, 1, 2]), np.array([1.0, 2.0, 3.0]),
    ...                                  2, 3, np.int64)
    >>> crow.tolist(), col.tolist(), val.tolist()
    ([0, 1, 2], [1, 2], [2.0, 4.0])
    """
    idt = np.dtype(index_dtype)
    n = rows.shape[0]
    if serial or (serial is None and n + nrows < COO_SERIAL_WORK):
        return _coo_to_csr_small(rows, cols, values, nrows, ncols, idt)
    order, ptr = coo_row_order(rows, cols, nrows, ncols, idt, serial)
    if order == COALESCED:
        return ptr, cols if cols.dtype == idt else cols.astype(idt), values
    with team(0 if serial else 1 << 62) as T:  # parallel-sized: the threads this call may have (maybe one)
        if order == ROWS_SORTED:
            return _sorted_rows(ptr, cols.astype(idt), values.copy(), serial, T)
        if not serial and T > 1 and nrows >= COO_TWO_LEVEL_ROWS:
            out = _two_level(rows, cols, values, nrows, ncols, idt, T)
            if out is None:
                raise ValueError(f"coo_to_csr_into: every row index must lie in [0, {nrows}) and every column in [0, {ncols})")
            return out
        ptr = np.empty(nrows + 1, idt)
        t_cols = np.empty(n, idt)
        t_vals = np.empty(n, values.dtype)
        if serial or T == 1:
            status = _bucket_rows_serial(rows, cols, values, nrows, ncols, ptr, t_cols, t_vals)
        else:
            hist = scratch("coo_to_csr.hist", (T, nrows), np.int64)
            status = _bucket_rows_parallel(rows, cols, values, nrows, ncols, ptr, t_cols, t_vals, hist)
        if status < 0:
            raise ValueError(f"coo_to_csr_into: every row index must lie in [0, {nrows}) and every column in [0, {ncols})")
        return _sorted_rows(ptr, t_cols, t_vals, serial, T)


@numba.njit(**_PJIT)
def _transpose_parallel(offsets, minor, values, nminor, splits, t_off, t_minor, t_values, hist):
    """:func:`_transpose_serial` over the slices of major rows that ``splits`` marks (balanced by
    entries): a count of each minor index per slice (``hist``, scratch: zeroed here), every slice's
    start in each new row from the
    counts of the slices before it (so the move stays in major order: sorted rows), then the
    slices moved side by side. Returns 0, or -1 for a bad pointer or index (nothing moved then)."""
    n = np.int64(minor.shape[0])
    nch = splits.shape[0] - 1
    um = np.uint64(nminor)
    bad = np.zeros(nch, np.int64)
    if np.int64(offsets[0]) != 0 or np.int64(offsets[offsets.shape[0] - 1]) != n:
        return -1
    for c in numba.prange(nch):
        h = hist[c]
        h[:] = 0
        lo = np.int64(offsets[splits[c]])
        for i in range(splits[c], splits[c + 1]):
            hi = np.int64(offsets[i + 1])
            if hi < lo or hi > n:
                bad[c] = 1
                break
            for k in range(np.uint64(lo), np.uint64(hi)):
                j = np.uint64(minor[k])
                if j >= um:
                    bad[c] = 1
                    break
                h[j] += 1
            if bad[c]:
                break
            lo = hi
    if bad.any():
        return -1
    _tr_prefix(hist, t_off, max(1, nch))  # hist[c, j]: slice c's first slot in new row j
    for c in numba.prange(nch):
        h = hist[c]
        for i in range(splits[c], splits[c + 1]):
            for k in range(np.uint64(offsets[i]), np.uint64(offsets[i + 1])):
                j = np.uint64(minor[k])
                p = np.uint64(h[j])
                h[j] = p + 1
                t_minor[p] = i
                t_values[p] = values[k]
    return 0


# The lean transpose in two levels: the entries first bucketed by group of 2**shift minor indices
# (at most 2**_QBITS groups: few write streams, prefetched), each remembering its minor index within
# the group, then each group's range (in cache) bucketed by minor index. With one level and few
# entries per new row (a random 1e6 x 1e5 CSR has 10 a column) the two threads' write positions in
# a new row share its cache lines, which then move between the cores on every write; with two
# levels every group's range belongs to one thread in the second. Both levels hand their slices out
# by claim: a late thread takes fewer.
@numba.njit(**_PJIT)
def _tr2_count(offsets, minor, nminor, shift, splits, hist, bad, workers):
    """``hist[c, g]``: the entries of slice c (major rows ``splits[c]:splits[c + 1]``) whose minor
    index lies in group ``g = minor >> shift``; ``bad[c]`` 1 for a pointer that does not cut
    ``[0, nse)`` into rows or a minor index outside ``[0, nminor)`` (counted no further)."""
    nch = splits.shape[0] - 1
    n = np.int64(minor.shape[0])
    um = np.uint64(nminor)
    ushift = np.uint64(shift)
    counter = np.zeros(1, np.int64)
    for _ in numba.prange(workers):
        c = claim(counter)
        while c < nch:
            h = hist[c]
            h[:] = 0
            lo = np.int64(offsets[splits[c]])
            if lo < 0:
                bad[c] = 1
            for i in range(splits[c], splits[c + 1]):
                if bad[c]:
                    break
                hi = np.int64(offsets[i + 1])
                if hi < lo or hi > n:
                    bad[c] = 1
                    break
                for k in range(np.uint64(lo), np.uint64(hi)):
                    j = np.uint64(minor[k])
                    if j >= um:
                        bad[c] = 1
                        break
                    h[j >> ushift] += 1
                lo = hi
            c = claim(counter)


@numba.njit(**_PJIT)
def _tr2_scatter(offsets, minor, values, shift, splits, hist, sub, t_minor, t_values, workers):
    """Slice c moves each of its entries to the running position ``hist[c, g]`` of its group (in
    major order: slices in order, each in row order), with its major index and, when ``sub`` is
    given (two levels), its minor index within the group; the lines ahead of each of the (few)
    write streams are prefetched. Validated input only (:func:`_tr2_count` passed)."""
    nch = splits.shape[0] - 1
    ushift = np.uint64(shift)
    mask = (_U1 << ushift) - _U1
    counter = np.zeros(1, np.int64)
    for _ in numba.prange(workers):
        c = claim(counter)
        while c < nch:
            h = hist[c]
            for i in range(splits[c], splits[c + 1]):
                for k in range(np.uint64(offsets[i]), np.uint64(offsets[i + 1])):
                    j = np.uint64(minor[k])
                    g = j >> ushift
                    p = np.uint64(h[g])
                    h[g] = p + _U1
                    _set(sub, p, j & mask)
                    t_minor[p] = i
                    t_values[p] = values[k]
                    _prefetch(sub, p, _AHEAD_BYTES)
                    prefetch_write(t_minor, p, _AHEAD_BYTES)
                    prefetch_write(t_values, p, _AHEAD_BYTES)
            c = claim(counter)


@numba.njit(**_PJIT)
def _tr2_finish(region, gsplits, shift, nminor, sub, t_off, t_minor, t_values, big, workers):
    """Second level, chunk by chunk of groups (``gsplits``, handed out by claim): each group's range
    ``region[g]:region[g + 1]`` (``big`` entries at most) copied aside and moved back bucketed by
    its minor index within the group (stable: major order kept), the new rows' pointers written."""
    nch = gsplits.shape[0] - 1
    S = np.int64(1) << shift
    counter = np.zeros(1, np.int64)
    for _ in numba.prange(workers):
        h = np.empty(S, np.int64)
        bm = np.empty(big, t_minor.dtype)
        bv = np.empty(big, t_values.dtype)
        c = claim(counter)
        while c < nch:
            for g in range(gsplits[c], gsplits[c + 1]):
                lo, hi = region[g], region[g + 1]
                j0 = g * S
                nj = min(S, nminor - j0)
                h[:nj] = 0
                ulo, m = np.uint64(lo), np.uint64(hi - lo)
                for i in range(ulo, ulo + m):
                    h[sub[i]] += 1
                run = lo
                for u in range(nj):
                    t_off[j0 + u] = run
                    x = h[u]
                    h[u] = run
                    run += x
                for i in range(m):
                    bm[i] = t_minor[ulo + i]
                    bv[i] = t_values[ulo + i]
                for i in range(m):
                    u = sub[ulo + i]
                    p = np.uint64(h[u])
                    h[u] = p + _U1
                    t_minor[p] = bm[i]
                    t_values[p] = bv[i]
            c = claim(counter)


def _transpose_two_level(offsets, minor, values, nminor, threads):
    """:func:`transpose_into`'s parallel path (see above): ``(t_off, t_minor, t_values)``, or None
    for a bad pointer or index (nothing moved then)."""
    n = minor.shape[0]
    nmajor = offsets.shape[0] - 1
    idt = offsets.dtype
    shift = max(0, (nminor - 1).bit_length() - _QBITS)
    G = ((nminor - 1) >> shift) + 1
    splits = row_splits(offsets, _claim_chunks(n + nmajor, threads, 1 << 14))
    nch = splits.shape[0] - 1
    hist = scratch("transpose.ghist", (nch, G), np.int64)
    bad = np.zeros(nch, np.int64)
    _tr2_count(offsets, minor, nminor, shift, splits, hist, bad, threads)
    if bad.any():
        return None
    t_off = np.empty(nminor + 1, idt)
    t_minor = np.empty(n, idt)
    t_values = np.empty(n, values.dtype)
    if shift == 0:  # one level: the groups are the new rows
        _tr_prefix(hist, t_off, 1)
        _tr2_scatter(offsets, minor, values, 0, splits, hist, None, t_minor, t_values, threads)
        return t_off, t_minor, t_values
    region = np.empty(G + 1, np.int64)
    _tr_prefix(hist, region, 1)
    sub = scratch("transpose.sub", (n,), np.uint16 if shift <= 16 else np.uint32)
    _tr2_scatter(offsets, minor, values, shift, splits, hist, sub, t_minor, t_values, threads)
    gsplits = row_splits(region, _claim_chunks(n + nminor, threads), 1 << shift)
    big = int(np.diff(region).max())
    _tr2_finish(region, gsplits, shift, nminor, sub, t_off, t_minor, t_values, big, threads)
    t_off[nminor] = n
    return t_off, t_minor, t_values
