"""Shared CPU helpers: stable parallel radix argsort of int64 keys, sortedness checks,
segment boundaries and segmented reductions.

Everything here works on plain NumPy arrays.  The ``_``-prefixed functions are
``numba.njit(cache=True, nogil=True)`` kernels; the public wrappers check what the kernels
rely on (lengths, dtypes, ranges) so that no kernel can index out of bounds.

Public helpers (used by :mod:`.coalesce` and :mod:`.group_reduce`):

- :func:`radix_argsort` -- stable argsort of non-negative int64 keys, also returns the
  sorted keys.
- :func:`sortedness` -- one O(n) parallel pass telling "strictly increasing" and
  "non-decreasing".
- :func:`segment_starts` -- start index of each run of equal keys in a sorted key array.
- :func:`segment_reduce` -- reduce rows of a 2-D value array over such runs (optionally
  through a permutation), with ``sum``/``prod``/``max``/``min``.
- :func:`value_view` / :func:`OP_CODES` -- how value dtypes are mapped onto the compiled
  specialisations (bool travels as uint8, so ``max``/``min`` are ``any``/``all``).

Specialisation policy: the sort kernels only ever see int64/uint64, so they compile once;
the reduction kernels compile once per value dtype (the operation is a runtime integer,
not a compile-time constant).  Nothing is compiled at import time.
"""

import numba
import numpy as np
from numba import types
from numba.extending import overload

from .. import KernelDeclined
from ._common import as_index, chunk_bounds
from ._threads import team
from . import _cache  # noqa: F401  (compiled kernels go to the per-user cache, see _cache.py)

__all__ = [
    "OP_CODES",
    "SUPPORTED_DTYPES",
    "check_values",
    "value_view",
    "radix_argsort",
    "sortedness",
    "segment_starts",
    "segment_reduce",
    "num_chunks",
    "SORT_STACK",
    "heapsort",
    "sort_range",
    "minmax",
]

_JIT = dict(cache=True, nogil=True)
_U1 = np.uint64(1)
_PJIT = dict(cache=True, nogil=True, parallel=True)

#: Value dtypes the kernels accept (anything else raises KernelDeclined).
SUPPORTED_DTYPES = tuple(
    np.dtype(t)
    for t in (
        np.bool_, np.int8, np.int16, np.int32, np.int64,
        np.uint8, np.uint16, np.uint32, np.uint64,
        np.float32, np.float64, np.complex64, np.complex128,
    )
)

#: Runtime operation codes understood by :func:`segment_reduce` and the group kernels.
OP_CODES = {"sum": 0, "prod": 1, "max": 2, "min": 3}

# Below this many keys the numpy stable sort beats starting threads.
_SMALL_SORT = 1 << 15
# Largest radix digit (bits); digits are balanced so every pass sorts the same width.
_MAX_DIGIT_BITS = 10


def num_chunks(n, grain=1 << 16):
    """Number of parallel work chunks for ``n`` items: the thread count, but no chunk
    smaller than ``grain`` items (at least 1)."""
    nt = numba.get_num_threads()
    return int(max(1, min(nt, n // grain if grain > 0 else nt)))


def check_values(values, n, name="values"):
    """Return ``values`` as a C-contiguous 2-D array with ``n`` rows of a supported dtype.

    Raises ValueError if the rank or the number of rows is wrong, KernelDeclined if the
    dtype is not supported."""
    values = np.asarray(values)
    if values.dtype not in SUPPORTED_DTYPES:
        raise KernelDeclined(
            f"{name} has dtype {values.dtype}, which the numba CPU kernels do not support "
            "(supported: bool, (u)int8..64, float32/64, complex64/128); cast the values "
            "to a supported dtype or use the generic implementation"
        )
    if values.ndim != 2:
        raise ValueError(f"{name} must be 2-D (n, m), got shape {values.shape}")
    if values.shape[0] != n:
        raise ValueError(
            f"{name} has {values.shape[0]} rows but the keys have length {n}"
        )
    return np.ascontiguousarray(values)


def value_view(values):
    """The array the reduction kernels actually see: bool becomes a uint8 view (so
    max/min are any/all), everything else is returned unchanged."""
    if values.dtype == np.bool_:
        return values.view(np.uint8)
    return values


def _as_int64_1d(a, name):
    a = np.asarray(a)
    if a.ndim != 1:
        raise ValueError(f"{name} must be 1-D, got shape {a.shape}")
    if a.dtype != np.int64:
        if a.dtype.kind not in "iu" and not (a.size == 0):
            raise ValueError(f"{name} must hold integers, got dtype {a.dtype}")
        a = a.astype(np.int64)
    return np.ascontiguousarray(a)


# ---------------------------------------------------------------------------------------
# scalar helpers with per-type implementations (NaN-propagating, complex lexicographic)
# ---------------------------------------------------------------------------------------


def _isnan(a):  # pragma: no cover - replaced by the overload inside numba
    return a != a


@overload(_isnan, jit_options=_JIT)
def _ov_isnan(a):
    if isinstance(a, types.Complex):
        return lambda a: (a.real != a.real) or (a.imag != a.imag)
    if isinstance(a, types.Float):
        return lambda a: a != a
    return lambda a: False


def _gt(a, b):  # pragma: no cover
    return a > b


@overload(_gt, jit_options=_JIT)
def _ov_gt(a, b):
    if isinstance(a, types.Complex):
        return lambda a, b: (a.real > b.real) or (a.real == b.real and a.imag > b.imag)
    return lambda a, b: a > b


@numba.njit(**_JIT)
def _combine_impl(op, acc, v):
    """acc <op> v, numpy semantics: max/min propagate NaN (first NaN wins)."""
    if op == 0:
        return acc + v
    elif op == 1:
        return acc * v
    elif op == 2:
        if _isnan(acc):
            return acc
        if _isnan(v) or _gt(v, acc):
            return v
        return acc
    else:
        if _isnan(acc):
            return acc
        if _isnan(v) or _gt(acc, v):
            return v
        return acc


# ---------------------------------------------------------------------------------------
# sortedness / min-max
# ---------------------------------------------------------------------------------------


@numba.njit(**_PJIT)
def _sortedness(keys, nchunks):
    n = keys.shape[0]
    desc = np.zeros(nchunks, np.int64)
    eq = np.zeros(nchunks, np.int64)
    for c in numba.prange(nchunks):
        lo = np.uint64(max(1, n * c // nchunks))
        hi = np.uint64(n * (c + 1) // nchunks)
        d = 0
        e = 0
        for i in range(lo, hi):  # unsigned positions: no gathers (see _minmax)
            a = keys[i - _U1]
            b = keys[i]
            if a > b:  # not sorted: the equality count no longer matters
                d = 1
                break
            e += a == b
        desc[c] = d
        eq[c] = e
    return desc, eq


def sortedness(keys):
    """``(strictly_increasing, non_decreasing)`` for a 1-D int32 or int64 array (other integer
    dtypes are cast to int64), in one parallel O(n) pass.  Empty and length-1 arrays are
    strictly increasing.

    >>> sortedness(np.array([1, 2, 2, 5]))
    (False, True)
    """
    keys = as_index(keys, "keys", "sortedness")
    n = keys.shape[0]
    if n < 2:
        return True, True
    with team(n, 1 << 16):
        desc, eq = _sortedness(keys, num_chunks(n))
    desc, eq = desc.sum(), eq.sum()
    return bool(desc == 0 and eq == 0), bool(desc == 0)


@numba.njit(**_PJIT)
def _minmax(keys, nchunks):
    n = keys.shape[0]
    mins = np.empty(nchunks, np.int64)
    maxs = np.empty(nchunks, np.int64)
    for c in numba.prange(nchunks):
        # unsigned positions: with signed ones numba's negative-index select turns the vectorised
        # loop into gathers, 2-3x slower than plain loads on an AVX-512 Xeon (see _common.py)
        lo, hi = chunk_bounds(n, c, nchunks)
        mn = keys[lo]
        mx = keys[lo]
        for i in range(lo + _U1, hi):
            k = keys[i]
            if k < mn:
                mn = k
            if k > mx:
                mx = k
        mins[c] = mn
        maxs[c] = mx
    return mins, maxs


def minmax(keys, nchunks=None):
    """``(min, max)`` of a non-empty int64 array (parallel), as Python ints."""
    with team(keys.shape[0], 1 << 16):
        if nchunks is None:
            nchunks = num_chunks(keys.shape[0])
        mins, maxs = _minmax(keys, nchunks)
    return int(mins.min()), int(maxs.max())


# ---------------------------------------------------------------------------------------
# in-place sorts of short ranges (no allocation)
# ---------------------------------------------------------------------------------------

#: rows of the stack :func:`sort_range` needs (its depth stays below 2 log2(n) + 2)
SORT_STACK = 64


@numba.njit(**_JIT)
def _insertion_sort(a, lo, hi):
    one = np.uint64(1)
    for x in range(lo + one, hi):
        key = a[x]
        y = x
        while y > lo and a[y - one] > key:
            a[y] = a[y - one]
            y -= one
        a[y] = key


@numba.njit(**_JIT)
def _sift_down(a, lo, root, n):
    while True:
        child = 2 * root + 1
        if child >= n:
            return
        if child + 1 < n and a[lo + child + 1] > a[lo + child]:
            child += 1
        if a[lo + root] >= a[lo + child]:
            return
        t = a[lo + root]
        a[lo + root] = a[lo + child]
        a[lo + child] = t
        root = child


@numba.njit(**_JIT)
def heapsort(a, lo, hi):
    """Sort a[lo:hi] in place by heapsort: no allocation, O(n log n) always."""
    n = hi - lo
    for root in range(n // 2 - 1, -1, -1):
        _sift_down(a, lo, root, n)
    for end in range(n - 1, 0, -1):
        t = a[lo]
        a[lo] = a[lo + end]
        a[lo + end] = t
        _sift_down(a, lo, 0, end)


@numba.njit(**_JIT)
def sort_range(a, lo, hi, stack):
    """Sort a[lo:hi] in place, allocating nothing: introsort (median-of-3 quicksort on the
    caller's explicit ``stack``, a (SORT_STACK, 3) int64 array, the smaller side first so it stays
    shallow, heapsort past 2 log2(n) levels, insertion sort for short ranges). For kernels that
    sort many short ranges (a row at a time), where numba's own sorts allocate on every call."""
    depth = 2 * int(np.log2(hi - lo + 1)) + 2
    stack[0, 0] = lo
    stack[0, 1] = hi
    stack[0, 2] = depth
    sp = 1
    while sp > 0:
        sp -= 1
        l = stack[sp, 0]
        h = stack[sp, 1]
        d = stack[sp, 2]
        while h - l > 24:
            if d == 0:
                heapsort(a, l, h)
                l = h
                break
            d -= 1
            m = l + (h - l) // 2
            if a[m] < a[l]:
                a[m], a[l] = a[l], a[m]
            if a[h - 1] < a[l]:
                a[h - 1], a[l] = a[l], a[h - 1]
            if a[h - 1] < a[m]:
                a[h - 1], a[m] = a[m], a[h - 1]
            piv = a[m]
            i = l - 1
            j = h
            while True:
                i += 1
                while a[i] < piv:
                    i += 1
                j -= 1
                while a[j] > piv:
                    j -= 1
                if i >= j:
                    break
                a[i], a[j] = a[j], a[i]
            # [l, j + 1) <= piv <= [j + 1, h), both non-empty
            if j + 1 - l < h - j - 1:
                stack[sp, 0] = j + 1
                stack[sp, 1] = h
                stack[sp, 2] = d
                h = j + 1
            else:
                stack[sp, 0] = l
                stack[sp, 1] = j + 1
                stack[sp, 2] = d
                l = j + 1
            sp += 1
        if h - l > 1:
            _insertion_sort(a, np.uint64(l), np.uint64(h))



# ---------------------------------------------------------------------------------------
# radix argsort
# ---------------------------------------------------------------------------------------


@numba.njit(**_JIT)
def _hist_range(a, sh, mask, h, lo, hi):
    """Digit histogram of a[lo:hi] into h (digits are masked: always in range)."""
    h[:] = 0
    for i in range(lo, hi):
        h[(a[i] >> sh) & mask] += 1


@numba.njit(**_JIT)
def _scatter_range(a, b, sh, mask, h, lo, hi):
    """Stable scatter of a[lo:hi] to b at the running offsets h[digit]."""
    for i in range(lo, hi):
        w = a[i]
        d = (w >> sh) & mask
        p = h[d]
        h[d] = p + 1
        b[p] = w


@numba.njit(inline="always")
def _digit_offsets(hist, n):
    """Turn per-chunk digit counts ``hist`` (nchunks, ndigits) into exclusive scatter offsets,
    ordered by (digit, chunk) so the pass is stable. Returns True (``hist`` then half-done and
    unused) when one digit holds all ``n`` keys: that pass would move nothing and is skipped."""
    nchunks, nb = hist.shape
    run = 0
    for d in range(nb):
        tot = 0
        for c in range(nchunks):
            tot += hist[c, d]
        if tot == n:
            return True
        for c in range(nchunks):
            t = hist[c, d]
            hist[c, d] = run
            run += t
    return False


@numba.njit(**_PJIT)
def _radix_packed(keys, kmin, ib, nbits, dbits, nchunks, a, b, skeys, perm):
    """LSD radix sort of words ``(key - kmin) << ib | index`` (fits in 64 bits: the
    wrapper guarantees ``nbits + ib <= 64``), using the uint64 buffers a, b (length n);
    writes the sorted keys and the permutation to skeys, perm.

    Bounds: every digit is masked to [0, 2**dbits); per-chunk offsets are exclusive
    prefix sums of the same chunk's counts, so scatter positions stay in [0, n).
    (All large arrays come from NumPy: its allocations use transparent huge pages, which
    makes first touch several times cheaper than numba's allocator here.)"""
    n = keys.shape[0]
    nb = 1 << dbits
    mask = np.uint64(nb - 1)
    ub = np.uint64(ib)
    for c in numba.prange(nchunks):
        # unsigned positions in the two streaming loops: no gathers (see _minmax)
        for i in range(*chunk_bounds(n, c, nchunks)):
            a[i] = (np.uint64(keys[i] - kmin) << ub) | i
    hist = np.zeros((nchunks, nb), np.int64)
    shift = 0
    while shift < nbits:
        sh = np.uint64(ib + shift)
        for c in numba.prange(nchunks):
            _hist_range(a, sh, mask, hist[c], n * c // nchunks, n * (c + 1) // nchunks)
        if not _digit_offsets(hist, n):
            for c in numba.prange(nchunks):
                _scatter_range(a, b, sh, mask, hist[c], n * c // nchunks, n * (c + 1) // nchunks)
            a, b = b, a
        shift += dbits
    imask = np.uint64((1 << ib) - 1)  # ib = bit_length(n - 1) < 64
    for c in numba.prange(nchunks):
        for i in range(*chunk_bounds(n, c, nchunks)):
            w = a[i]
            perm[i] = np.int64(w & imask)
            skeys[i] = np.int64(w >> ub) + kmin


@numba.njit(**_PJIT)
def _radix_pairs(kmin, nbits, dbits, nchunks, ka, ia, kb, ib_):
    """LSD radix sort carrying (key, index) pairs in (ka, ia), with scratch (kb, ib_);
    used when key bits + index bits > 64.  Returns True if the result ended up in
    (kb, ib_).  Same bound argument as :func:`_radix_packed`."""
    n = ka.shape[0]
    nb = 1 << dbits
    mask = nb - 1
    hist = np.zeros((nchunks, nb), np.int64)
    swapped = False
    shift = 0
    while shift < nbits:
        for c in numba.prange(nchunks):
            lo = n * c // nchunks
            hi = n * (c + 1) // nchunks
            h = hist[c]
            h[:] = 0
            for i in range(lo, hi):
                h[((ka[i] - kmin) >> shift) & mask] += 1
        if not _digit_offsets(hist, n):
            for c in numba.prange(nchunks):
                lo = n * c // nchunks
                hi = n * (c + 1) // nchunks
                h = hist[c]
                for i in range(lo, hi):
                    k = ka[i]
                    d = ((k - kmin) >> shift) & mask
                    p = h[d]
                    h[d] = p + 1
                    kb[p] = k
                    ib_[p] = ia[i]
            ka, kb = kb, ka
            ia, ib_ = ib_, ia
            swapped = not swapped
        shift += dbits
    return swapped


def _bit_length(x):
    return int(x).bit_length()


def radix_argsort(keys, nchunks=None):
    """Stable argsort of non-negative int64 ``keys``; returns ``(sorted_keys, perm)`` with
    ``sorted_keys == keys[perm]`` and equal keys kept in input order.

    Parallel LSD radix sort: only ``bit_length(max - min)`` bits are sorted, in balanced
    digits of at most ``_MAX_DIGIT_BITS`` (10) bits, with per-thread histograms; passes in which all keys share
    the digit are skipped.  When key bits + index bits fit in 64 the key and the index
    travel packed in one word.  Small inputs use NumPy's stable sort.

    Raises ValueError if a key is negative.

    >>> radix_argsort(np.array([5, 1, 5, 0]))
    (array([0, 1, 5, 5]), array([3, 1, 0, 2]))
    """
    keys = _as_int64_1d(keys, "keys")
    n = keys.shape[0]
    if n == 0:
        return keys.copy(), np.empty(0, np.int64)
    with team(n, 1 << 16):
        return _radix_argsort(keys, n, nchunks)


def _radix_argsort(keys, n, nchunks):
    if nchunks is None:
        nchunks = num_chunks(n)
    kmin, kmax = minmax(keys, nchunks)
    if kmin < 0:
        raise ValueError(f"keys must be >= 0, found {kmin}")
    if n < _SMALL_SORT:
        perm = np.argsort(keys, kind="stable")
        return keys[perm], perm
    nbits = _bit_length(kmax - kmin)
    if nbits == 0:
        return keys.copy(), np.arange(n, dtype=np.int64)
    npass = -(-nbits // _MAX_DIGIT_BITS)
    dbits = -(-nbits // npass)
    ib = _bit_length(n - 1)
    if nbits + ib <= 64:
        skeys = np.empty(n, np.int64)
        perm = np.empty(n, np.int64)
        _radix_packed(
            keys, kmin, ib, nbits, dbits, nchunks,
            np.empty(n, np.uint64), np.empty(n, np.uint64), skeys, perm,
        )
        return skeys, perm
    ka = keys.copy()
    ia = np.arange(n, dtype=np.int64)
    kb = np.empty(n, np.int64)
    ib_ = np.empty(n, np.int64)
    if _radix_pairs(kmin, nbits, dbits, nchunks, ka, ia, kb, ib_):
        return kb, ib_
    return ka, ia


# ---------------------------------------------------------------------------------------
# segments
# ---------------------------------------------------------------------------------------


@numba.njit(**_PJIT)
def _segment_count(skeys, nchunks):
    """cnt[c + 1] = number of i in chunk c with i == 0 or skeys[i] != skeys[i-1];
    returned as an inclusive prefix (cnt[nchunks] = number of segments)."""
    n = skeys.shape[0]
    cnt = np.zeros(nchunks + 1, np.int64)
    for c in numba.prange(nchunks):
        lo = n * c // nchunks
        hi = n * (c + 1) // nchunks
        s = np.int64(lo == 0 and hi > 0)
        # unsigned positions (no gathers, see _minmax); position 0 counted above
        for i in range(np.uint64(max(lo, 1)), np.uint64(hi)):
            s += np.int64(skeys[i] != skeys[i - _U1])
        cnt[c + 1] = s
    for c in range(nchunks):
        cnt[c + 1] += cnt[c]
    return cnt


@numba.njit(**_PJIT)
def _segment_fill(skeys, cnt, nchunks, starts):
    """Write the segment starts (same test as _segment_count, same chunks, so chunk c
    writes exactly starts[cnt[c]:cnt[c+1]]; len(starts) == cnt[nchunks] + 1)."""
    n = skeys.shape[0]
    nu = cnt[nchunks]
    starts[nu] = n
    for c in numba.prange(nchunks):
        lo = n * c // nchunks
        hi = n * (c + 1) // nchunks
        o = cnt[c]
        for i in range(lo, hi):
            if i == 0 or skeys[i] != skeys[i - 1]:
                starts[o] = i
                o += 1


def segment_starts(skeys):
    """Start of each run of equal keys in a (sorted) int64 array, with ``n`` appended:
    int64[nu + 1].  ``[]`` gives ``[0]``.

    >>> segment_starts(np.array([1, 1, 4, 7, 7]))
    array([0, 2, 3, 5])
    """
    skeys = _as_int64_1d(skeys, "skeys")
    n = skeys.shape[0]
    if n == 0:
        return np.zeros(1, np.int64)
    with team(n, 1 << 14):
        nch = num_chunks(n, 1 << 14)
        cnt = _segment_count(skeys, nch)
        starts = np.empty(int(cnt[nch]) + 1, np.int64)
        _segment_fill(skeys, cnt, nch, starts)
    return starts


@numba.njit(**_PJIT)
def _segment_reduce(values, perm, starts, op, out):
    """out[s] = reduce(values[perm[starts[s]:starts[s+1]]]) in index order.  ``perm`` of
    length 0 means identity.  Bounds: starts is non-decreasing from 0 to len(perm) (or
    len(values)) and perm lies in [0, len(values)) -- by construction (segment_starts,
    radix_argsort, _dense_plan); out has len(starts) - 1 rows."""
    nu = starts.shape[0] - 1
    m = values.shape[1]
    useperm = perm.shape[0] > 0
    for s in numba.prange(nu):
        a = starts[s]
        b = starts[s + 1]
        r = perm[a] if useperm else a
        for j in range(m):
            out[s, j] = values[r, j]
        for i in range(a + 1, b):
            r = perm[i] if useperm else i
            for j in range(m):
                out[s, j] = _combine_impl(op, out[s, j], values[r, j])


def segment_reduce(values, starts, op, perm=None):
    """Reduce ``values`` (2-D, rows) over the segments given by ``starts`` (int64[nu+1],
    from :func:`segment_starts`), reading rows through ``perm`` if given.  ``op`` is one of
    ``"sum"``, ``"prod"``, ``"max"``, ``"min"``; each segment is reduced left to right, so
    the result does not depend on the thread count.  The caller guarantees ``starts`` is
    a valid segmentation of ``len(perm)`` (or ``len(values)``) rows and ``perm`` holds
    indices in ``[0, len(values))`` (true for the output of :func:`radix_argsort`).

    >>> segment_reduce(np.array([[1.], [2.], [4.]]), np.array([0, 2, 3]), "sum")
    array([[3.],
           [4.]])
    """
    if perm is None:
        perm = np.empty(0, np.int64)
    out = np.empty((starts.shape[0] - 1, values.shape[1]), values.dtype)
    with team(values.shape[0] * values.shape[1]):
        _segment_reduce(values, perm, starts, OP_CODES[op], out)
    return out
