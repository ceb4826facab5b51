"""Parts of a compressed array: rows picked by index (``take_major(offsets, minor, values, rows)``)
and a range of minor indices (``slice_minor(offsets, minor, values, start, stop)``).

The rows of a CSR (columns of a CSC) listed in ``rows``, in that order (repeats allowed), as a
new compressed array: its row pointers are the prefix sum of the picked rows' lengths, and each
output row copies its source row's minor indices and values. Parallel over chunks of output
rows balanced by entries; one pass over the output, no pass over the rest of the array.

What is copied is checked first, in O(len(rows)): every ``rows`` element in
``[0, len(offsets) - 1)``, and each picked row's range ``offsets[r]:offsets[r + 1]`` inside
``[0, len(minor)]`` and not reversed; ``values`` with ``len(minor)`` rows. Nothing outside these
arrays is read or written, whatever the input (the rest of ``offsets`` is not looked at).

``slice_minor`` keeps, in every row, the entries whose minor index lies in ``[start, stop)`` and
shifts those indices by ``-start`` (the columns ``start:stop`` of a CSR, the rows of a CSC). The
minor indices of a row are sorted (the layouts' invariant), so two binary searches per row find
its part: O(rows * log(row length) + kept entries), and the rest of the entries is never read.
Each row's range ``offsets[g]:offsets[g + 1]`` is checked to lie inside ``[0, len(minor)]`` and
not be reversed before it is searched.

>>> import numpy as np
>>> o, m, v = take_major(np.array([0, 2, 3]), np.array([0, 2, 1]), np.array([1.0, 2.0, 3.0]), np.array([1, 0, 1]))
>>> o.tolist(), m.tolist(), v.tolist()
([0, 1, 3, 4], [1, 0, 2, 1], [3.0, 1.0, 2.0, 3.0])
>>> o, m, v = slice_minor(np.array([0, 2, 3]), np.array([0, 2, 1]), np.array([1.0, 2.0, 3.0]), 1, 3)
>>> o.tolist(), m.tolist(), v.tolist()
([0, 1, 2], [1, 0], [2.0, 3.0])
"""

import numba
import numpy as np

from .._slice_args import slice_minor_args
from ._common import as_index, row_splits
from ._threads import team
from .compress import _bits, _check_dtype, _move, _scan_inplace
from . import _cache  # noqa: F401  (compiled kernels go to the per-user cache, see _cache.py)

__all__ = ["take_major", "slice_minor"]

_PJIT = dict(cache=True, nogil=True, parallel=True)
_U1 = np.uint64(1)


@numba.njit(**_PJIT)
def _lengths(offsets, rows, nnz, out_offsets, nchunks):
    """out_offsets[r + 1] = the length of row rows[r], after checking that rows[r] is a row and
    its range lies in [0, nnz] and is not reversed. Returns the first failing r, or -1."""
    k = rows.shape[0]
    nmajor = offsets.shape[0] - 1
    first = np.full(nchunks, -1, np.int64)
    for c in numba.prange(nchunks):
        for r in range(k * c // nchunks, k * (c + 1) // nchunks):
            g = rows[r]
            if g < 0 or g >= nmajor:
                first[c] = r
                break
            lo = np.int64(offsets[g])
            hi = np.int64(offsets[g + 1])
            if lo < 0 or hi < lo or hi > nnz:
                first[c] = r
                break
            out_offsets[r + 1] = hi - lo
    for c in range(nchunks):
        if first[c] >= 0:
            return first[c]
    return np.int64(-1)


@numba.njit(cache=True, nogil=True, inline="always")
def _copy_run(minor, values, src, out_minor, out_values, dst, stop, shift):
    """out[dst:stop] = in[src:src + (stop - dst)] for the minor indices (minus ``shift``) and the
    values. Positions are unsigned, so numba adds no negative-index wraparound to the reads and
    writes: cutting 8 column ranges out of a 2.5M-entry, 178k-row R-MAT block (short rows, so the
    per-row work dominates) went 3.8 -> 1.4 ms per range on one thread."""
    src = np.uint64(src)
    dst = np.uint64(dst)
    stop = np.uint64(stop)
    while dst < stop:
        out_minor[dst] = minor[src] - shift
        _move(out_values, dst, values, src)
        dst += _U1
        src += _U1


@numba.njit(**_PJIT)
def _copy_rows(offsets, minor, values, rows, out_offsets, out_minor, out_values, nchunks):
    """Output row r copies source row rows[r] (all inputs validated, out_offsets their lengths' prefix)."""
    splits = row_splits(out_offsets, nchunks)
    for c in numba.prange(nchunks):
        for r in range(splits[c], splits[c + 1]):
            _copy_run(minor, values, offsets[rows[r]], out_minor, out_values, out_offsets[r], out_offsets[r + 1],
                      minor.dtype.type(0))


def _words(a, n):
    """``a`` as unsigned words, one per entry (1-D) when an entry is one word, else (n, words)."""
    if a.ndim == 1 and a.dtype.itemsize <= 8:
        return _bits(a)
    return _bits(a.reshape(n, -1)).reshape(n, -1)


def take_major(offsets, minor, values, rows):
    """Rows ``rows`` of the compressed array (``offsets``, ``minor``, ``values``).

    Parameters
    ----------
    offsets : int32/int64[nmajor + 1], the row pointers (the picked rows' ranges must lie in
        [0, len(minor)] and not be reversed).
    minor : int32/int64[nnz] minor indices (any values: they are copied, not used).
    values : (nnz,) or (nnz, m) array of a supported dtype.
    rows : integer[k], each in [0, nmajor) (negative indices are not wrapped: normalise first).

    Returns
    -------
    (out_offsets int64[k + 1], out_minor of minor's dtype, out_values of values' dtype and trailing shape)

    Raises ValueError for a row out of range, a picked row's range outside the entries or
    reversed, or mismatched lengths; KernelDeclined for an unsupported value dtype.
    """
    offsets = as_index(offsets, "offsets")
    minor = as_index(minor, "minor")
    rows = as_index(rows, "rows").astype(np.int64, copy=False)
    values = np.ascontiguousarray(values)
    _check_dtype(values.dtype, "values")
    nnz = minor.shape[0]
    if values.shape[:1] != (nnz,):
        raise ValueError(f"take_major: values must have len(minor) = {nnz} rows, got shape {values.shape}")
    nmajor = offsets.shape[0] - 1
    if nmajor < 0:
        raise ValueError("take_major: offsets must have at least one element")
    out_offsets = np.zeros(rows.shape[0] + 1, np.int64)
    nchunks = numba.get_num_threads() * 4
    with team(rows.shape[0]):
        bad = int(_lengths(offsets, rows, nnz, out_offsets, nchunks))
        if bad >= 0:
            g = int(rows[bad])
            if not 0 <= g < nmajor:
                raise ValueError(f"take_major: row {g} is out of range for {nmajor} rows")
            raise ValueError(
                f"take_major: row {g} spans offsets[{g}]:offsets[{g + 1}] = {offsets[g]}:{offsets[g + 1]}, "
                f"outside the {nnz} entries or reversed"
            )
        _scan_inplace(out_offsets, nchunks)
    total = int(out_offsets[-1])
    out_minor = np.empty(total, minor.dtype)
    out_values = np.empty((total, *values.shape[1:]), values.dtype)
    if total:
        src, dst = _words(values, nnz), _words(out_values, total)
        with team(total + rows.shape[0]):
            _copy_rows(offsets, minor, src, rows, out_offsets, out_minor, dst, nchunks)
    return out_offsets, out_minor, out_values


# --- slice_minor ------------------------------------------------------------------------------------------
@numba.njit(cache=True, nogil=True, inline="always")
def _lower_bound(minor, lo, hi, value):
    """The first k in [lo, hi) with minor[k] >= value (hi if none); minor sorted on [lo, hi).
    A row wholly before or after ``value`` (most rows, for the first and last column blocks)
    answers from its ends without a search."""
    if lo >= hi or minor[lo] >= value:
        return lo
    if minor[hi - 1] < value:
        return hi
    while lo < hi:
        mid = (lo + hi) >> 1
        if minor[mid] < value:
            lo = mid + 1
        else:
            hi = mid
    return lo


@numba.njit(**_PJIT)
def _minor_bounds(offsets, minor, start, stop, nnz, firsts, out_offsets, nchunks):
    """firsts[g] = the first entry of row g at or after ``start``, out_offsets[g + 1] = the number of
    its entries in [start, stop), after checking the row's range. Returns the first bad row, or -1."""
    nmajor = offsets.shape[0] - 1
    first = np.full(nchunks, -1, np.int64)
    for c in numba.prange(nchunks):
        for g in range(nmajor * c // nchunks, nmajor * (c + 1) // nchunks):
            lo = np.int64(offsets[g])
            hi = np.int64(offsets[g + 1])
            if lo < 0 or hi < lo or hi > nnz:
                first[c] = g
                break
            a = _lower_bound(minor, lo, hi, start)
            firsts[g] = a
            out_offsets[g + 1] = _lower_bound(minor, a, hi, stop) - a  # fits: a and the bound are <= hi
    for c in range(nchunks):
        if first[c] >= 0:
            return first[c]
    return np.int64(-1)


@numba.njit(**_PJIT)
def _copy_ranges(firsts, out_offsets, minor, values, start, out_minor, out_values, nchunks):
    """Output row g copies the entries firsts[g]:firsts[g] + its length, minor indices shifted by -start."""
    splits = row_splits(out_offsets, nchunks)
    for c in numba.prange(nchunks):
        for g in range(splits[c], splits[c + 1]):
            _copy_run(minor, values, firsts[g], out_minor, out_values, out_offsets[g], out_offsets[g + 1], start)


def slice_minor(offsets, minor, values, start, stop):
    """The minor range ``[start, stop)`` of every row of the compressed array (``offsets``, ``minor``, ``values``).

    Parameters
    ----------
    offsets : int32/int64[nmajor + 1], the row pointers (each row's range must lie in
        [0, len(minor)] and not be reversed).
    minor : int32/int64[nnz] minor indices, sorted within each row.
    values : (nnz,) or (nnz, m) array of a supported dtype.
    start, stop : ints with 0 <= start <= stop.

    Returns
    -------
    (out_offsets of offsets' dtype [nmajor + 1], out_minor of minor's dtype (shifted by -start),
    out_values of values' dtype and trailing shape)

    Raises ValueError for a row whose range lies outside the entries or is reversed, a bad range or
    mismatched lengths; KernelDeclined for an unsupported value dtype.
    """
    offsets = as_index(offsets, "offsets")
    minor = as_index(minor, "minor")
    values = np.ascontiguousarray(values)
    _check_dtype(values.dtype, "values")
    nnz = minor.shape[0]
    start, stop, nmajor = slice_minor_args(start, stop, nnz, values.shape, offsets.shape[0])
    # every row's range is checked to lie forward inside the entries, so the pointers grow and
    # every count and position fits the pointers' own dtype (no int64 pass over the rows)
    out_offsets = np.zeros(nmajor + 1, offsets.dtype)
    firsts = np.zeros(nmajor, offsets.dtype)
    nchunks = numba.get_num_threads() * 4
    with team(nmajor * 8):
        bad = int(_minor_bounds(offsets, minor, np.int64(start), np.int64(stop), nnz, firsts, out_offsets, nchunks))
        if bad >= 0:
            raise ValueError(
                f"slice_minor: row {bad} spans offsets[{bad}]:offsets[{bad + 1}] = {offsets[bad]}:{offsets[bad + 1]}, "
                f"outside the {nnz} entries or reversed"
            )
        _scan_inplace(out_offsets, nchunks)
    total = int(out_offsets[-1])
    out_minor = np.empty(total, minor.dtype)
    out_values = np.empty((total, *values.shape[1:]), values.dtype)
    if total:
        src, dst = _words(values, nnz), _words(out_values, total)
        with team(total + nmajor):
            _copy_ranges(firsts, out_offsets, minor, src, minor.dtype.type(start), out_minor, dst, nchunks)
    return out_offsets, out_minor, out_values
