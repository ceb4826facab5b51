"""Sorted-pattern merging for element-wise operations between sparse operands.

- :func:`merge_pattern` -- one k-way pass over k strictly increasing key lists giving the
  output pattern (union, intersection, or the left operand's pattern) and, for every
  operand, where each output key sits in it (or -1).
- :func:`gather_with_fill` -- pull the rows of one operand's values onto the output
  pattern, writing a fill row where the operand has no entry.

A binary ``A + B`` is then ``merge_pattern`` once, ``gather_with_fill`` per operand and one
NumPy ufunc call on the gathered arrays.

Parallelism: the key range is cut into chunks by splitters taken at quantiles of the
largest operand (binary searches place them in the other operands); every chunk is merged
twice, once to count its output and once, after a prefix sum, to fill it.
"""

import numba
import numpy as np

from ._sort import _as_int64_1d, check_values, num_chunks
from ._threads import team
from . import _cache  # noqa: F401  (compiled kernels go to the per-user cache, see _cache.py)

__all__ = ["merge_pattern", "gather_with_fill", "MODES"]

_PJIT = dict(cache=True, nogil=True, parallel=True)

#: Accepted ``mode`` strings and their kernel codes.
MODES = {"union": 0, "intersection": 1, "left": 2}


@numba.njit(cache=True, nogil=True)
def _merge_chunk(keys, offsets, lo, hi, mode, write, o, o_end, out_keys, positions):
    """Merge the sub-ranges ``[lo[i], hi[i])`` (absolute indices into ``keys``) of the k
    operands; return the number of output keys.  With ``write``, output key number t goes
    to ``out_keys[o + t]`` / ``positions[:, o + t]``; writes stop at ``o_end`` (they never
    pass it: the count pass and the fill pass run this same code on the same data, so
    they agree, and the guard makes that a certainty rather than an argument).

    Each step advances at least the operand holding the smallest head, so it ends."""
    k = lo.shape[0]
    ptr = lo.copy()
    cnt = 0
    if k == 2 and mode == 0:
        # fast path: binary union
        p0 = ptr[0]
        p1 = ptr[1]
        e0 = hi[0]
        e1 = hi[1]
        b0 = offsets[0]
        b1 = offsets[1]
        while p0 < e0 and p1 < e1:
            a = keys[p0]
            b = keys[p1]
            if write and o + cnt < o_end:
                t = o + cnt
                if a < b:
                    out_keys[t] = a
                    positions[0, t] = p0 - b0
                    positions[1, t] = -1
                elif b < a:
                    out_keys[t] = b
                    positions[0, t] = -1
                    positions[1, t] = p1 - b1
                else:
                    out_keys[t] = a
                    positions[0, t] = p0 - b0
                    positions[1, t] = p1 - b1
            if a <= b:
                p0 += 1
            if b <= a:
                p1 += 1
            cnt += 1
        while p0 < e0:
            if write and o + cnt < o_end:
                t = o + cnt
                out_keys[t] = keys[p0]
                positions[0, t] = p0 - b0
                positions[1, t] = -1
            p0 += 1
            cnt += 1
        while p1 < e1:
            if write and o + cnt < o_end:
                t = o + cnt
                out_keys[t] = keys[p1]
                positions[0, t] = -1
                positions[1, t] = p1 - b1
            p1 += 1
            cnt += 1
        return cnt
    while True:
        have = False
        mn = np.int64(0)
        alive = 0
        for i in range(k):
            if ptr[i] < hi[i]:
                alive += 1
                v = keys[ptr[i]]
                if not have or v < mn:
                    mn = v
                    have = True
        if not have:
            break
        if mode == 1 and alive < k:
            break  # intersection: an operand is exhausted in this chunk
        if mode == 2 and ptr[0] >= hi[0]:
            break  # left: operand 0 exhausted in this chunk
        nmatch = 0
        for i in range(k):
            if ptr[i] < hi[i] and keys[ptr[i]] == mn:
                nmatch += 1
        if mode == 0:
            emit = True
        elif mode == 1:
            emit = nmatch == k
        else:
            emit = keys[ptr[0]] == mn
        if emit:
            if write and o + cnt < o_end:
                t = o + cnt
                out_keys[t] = mn
                for i in range(k):
                    if ptr[i] < hi[i] and keys[ptr[i]] == mn:
                        positions[i, t] = ptr[i] - offsets[i]
                    else:
                        positions[i, t] = -1
            cnt += 1
        for i in range(k):
            if ptr[i] < hi[i] and keys[ptr[i]] == mn:
                ptr[i] += 1
    return cnt


@numba.njit(**_PJIT)
def _merge_count(keys, offsets, splitters, mode):
    """Chunk bounds and the inclusive prefix of per-chunk output counts."""
    k = offsets.shape[0] - 1
    nch = splitters.shape[0] + 1
    # bounds[i, c]: first index (absolute) of operand i in chunk c.  searchsorted results
    # lie in [0, len_i]; the running max keeps them non-decreasing in c even if an
    # operand is (against the contract) unsorted, so every range lies inside operand i.
    bounds = np.empty((k, nch + 1), np.int64)
    for i in range(k):
        a = offsets[i]
        b = offsets[i + 1]
        seg = keys[a:b]
        bounds[i, 0] = a
        bounds[i, nch] = b
        for c in range(1, nch):
            q = a + np.searchsorted(seg, splitters[c - 1])
            bounds[i, c] = min(max(q, bounds[i, c - 1]), b)
    counts = np.zeros(nch + 1, np.int64)
    dummy_k = np.empty(0, np.int64)
    dummy_p = np.empty((k, 0), np.int64)
    for c in numba.prange(nch):
        lo = bounds[:, c].copy()
        hi = bounds[:, c + 1].copy()
        counts[c + 1] = _merge_chunk(
            keys, offsets, lo, hi, mode, False, 0, 0, dummy_k, dummy_p
        )
    for c in range(nch):
        counts[c + 1] += counts[c]
    return bounds, counts


@numba.njit(**_PJIT)
def _merge_fill(keys, offsets, bounds, counts, mode, out_keys, positions):
    """Second pass: chunk c writes out_keys/positions[:, counts[c]:counts[c+1]]
    (out_keys has counts[-1] entries, positions shape (k, counts[-1]))."""
    nch = bounds.shape[1] - 1
    for c in numba.prange(nch):
        lo = bounds[:, c].copy()
        hi = bounds[:, c + 1].copy()
        _merge_chunk(
            keys, offsets, lo, hi, mode, True, counts[c], counts[c + 1], out_keys, positions
        )


def merge_pattern(keys_concat, offsets, mode):
    """Merge k sorted key lists into one output pattern.

    Parameters
    ----------
    keys_concat : int64[total]; operand i's keys are
        ``keys_concat[offsets[i]:offsets[i + 1]]``, each strictly increasing.
    offsets : int64[k + 1], k >= 1, ``offsets[0] == 0``, non-decreasing,
        ``offsets[k] == total``.
    mode : ``"union"`` (keys in any operand), ``"intersection"`` (keys in every operand)
        or ``"left"`` (exactly operand 0's keys).

    Returns
    -------
    out_keys : int64[n_out], strictly increasing.
    positions : int64[k, n_out]; ``positions[i, j]`` is the index *within operand i* of
        ``out_keys[j]``, or -1 if operand i lacks it.

    One k-way pass, O(total * k), parallel over key-range chunks.  ValueError for bad
    offsets or mode.  Operands that are not strictly increasing are not detected: the
    result is then unspecified, but nothing is read or written out of bounds.

    >>> keys = np.array([1, 4, 6, 4, 5])  # operands [1, 4, 6] and [4, 5]
    >>> merge_pattern(keys, np.array([0, 3, 5]), "union")
    (array([1, 4, 5, 6]), array([[ 0,  1, -1,  2],
           [-1,  0,  1, -1]]))
    """
    if mode not in MODES:
        raise ValueError(f"mode must be one of {sorted(MODES)}, got {mode!r}")
    keys = _as_int64_1d(keys_concat, "keys_concat")
    offsets = _as_int64_1d(offsets, "offsets")
    k = offsets.shape[0] - 1
    if k < 1:
        raise ValueError("offsets must have length k + 1 >= 2 (at least one operand)")
    if offsets[0] != 0 or offsets[-1] != keys.shape[0]:
        raise ValueError(
            f"offsets must start at 0 and end at len(keys_concat)={keys.shape[0]}, "
            f"got {offsets[0]} .. {offsets[-1]}"
        )
    lens = np.diff(offsets)
    if (lens < 0).any():
        raise ValueError("offsets must be non-decreasing")
    # splitters: quantiles of operand 0 for "left" (the output follows it), otherwise
    # of the largest operand
    big = 0 if mode == "left" else int(np.argmax(lens))
    nbig = int(lens[big])
    nch = num_chunks(int(keys.shape[0]), 1 << 15) * 4 if keys.shape[0] >= (1 << 16) else 1
    nch = max(1, min(nch, nbig))
    src = keys[offsets[big]: offsets[big + 1]]
    splitters = src[(np.arange(1, nch, dtype=np.int64) * nbig) // nch]
    with team(int(keys.shape[0])):
        code = MODES[mode]
        bounds, counts = _merge_count(keys, offsets, np.ascontiguousarray(splitters), code)
        n_out = int(counts[-1])
        out_keys = np.empty(n_out, np.int64)
        positions = np.empty((k, n_out), np.int64)
        _merge_fill(keys, offsets, bounds, counts, code, out_keys, positions)
    return out_keys, positions


# ---------------------------------------------------------------------------------------
# gather
# ---------------------------------------------------------------------------------------


@numba.njit(cache=True, nogil=True)
def _gather_range(values, positions, fill, out, lo, hi):
    nse = values.shape[0]
    m = values.shape[1]
    nb = 0
    for j in range(lo, hi):
        p = positions[j]
        if p >= 0 and p < nse:
            for q in range(m):
                out[j, q] = values[p, q]
        else:
            if p != -1:
                nb += 1
            for q in range(m):
                out[j, q] = fill[q]
    return nb


@numba.njit(**_PJIT)
def _gather(values, positions, fill, out, nchunks):
    """out[j] = values[positions[j]] or fill (out: (len(positions), m)).  Every position
    is tested against [0, nse) before use; entries other than -1 outside it are counted
    (the wrapper raises) and get the fill row."""
    n = positions.shape[0]
    bad = np.zeros(nchunks, np.int64)
    for c in numba.prange(nchunks):
        bad[c] = _gather_range(
            values, positions, fill, out, n * c // nchunks, n * (c + 1) // nchunks
        )
    return bad  # summed by the caller (a .sum() here would fuse with the loop)


def _bits_view(a, lastdim):
    """Reinterpret a C-contiguous array as unsigned ints of its item size (so the gather
    compiles once per item size, not once per dtype), with the last axis scaled."""
    isz = a.dtype.itemsize
    if isz <= 8:
        return a.view(np.dtype(f"u{isz}"))
    # complex128: two uint64 per item
    return a.view(np.uint64).reshape(a.shape[:-1] + (lastdim * 2,))


def gather_with_fill(values, positions, fill):
    """Rows of ``values`` at ``positions``, with ``fill`` where a position is -1.

    Parameters
    ----------
    values : (nse, m) array of a supported dtype.
    positions : int64[n]; every entry is -1 or in ``[0, nse)``.
    fill : (m,) array (or a scalar, broadcast) of ``values.dtype`` (same-kind casts are
        accepted).

    Returns
    -------
    out : (n, m) array of ``values.dtype``: ``out[j] = values[positions[j]]`` if
        ``positions[j] >= 0`` else ``fill``.

    Parallel, one pass.  Every position is range-checked inside the kernel; any entry
    outside ``{-1} U [0, nse)`` raises ValueError (nothing is read out of bounds).

    >>> gather_with_fill(np.array([[1.0], [2.0]]), np.array([1, -1, 0]), np.array([0.0]))
    array([[2.],
           [0.],
           [1.]])
    """
    positions = _as_int64_1d(positions, "positions")
    values = np.asarray(values)
    if values.ndim != 2:
        raise ValueError(f"values must be 2-D (nse, m), got shape {values.shape}")
    values = check_values(values, values.shape[0])
    m = values.shape[1]
    fill = np.asarray(fill)
    if fill.dtype != values.dtype:
        if not np.can_cast(fill.dtype, values.dtype, casting="same_kind"):
            raise ValueError(
                f"fill has dtype {fill.dtype}, which does not cast to {values.dtype}"
            )
        fill = fill.astype(values.dtype)
    if fill.ndim == 0:
        fill = np.full(m, fill, dtype=values.dtype)
    if fill.shape != (m,):
        raise ValueError(f"fill must have shape ({m},), got {fill.shape}")
    fill = np.ascontiguousarray(fill)
    n = positions.shape[0]
    out = np.empty((n, m), values.dtype)
    with team(n * m):
        nbad = _gather(
            _bits_view(values, m),
            positions,
            _bits_view(fill, m),
            _bits_view(out, m),
            num_chunks(n, 1 << 15),
        )
    nbad = int(nbad.sum())
    if nbad:
        raise ValueError(
            f"positions has {nbad} entries outside -1 and [0, {values.shape[0]})"
        )
    return out
