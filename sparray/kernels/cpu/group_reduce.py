"""Reduction of value rows grouped by an integer key: :func:`group_reduce` (the kernel
behind ``sum``/``prod``/``max``/``min`` along an axis).

Three strategies, chosen by the wrapper:

1. keys already non-decreasing (e.g. row indices of a CSR matrix): segmented reduction,
   no sort and no accumulator arrays;
2. *dense*, when ``nkeys <= 4 * n + 65536 // m`` (the accumulators cost at most a few
   times the input): each of T chunks of the input accumulates into its own
   ``(nkeys, m)`` array and ``nkeys`` counts; the T partial results are then combined per
   key and compressed to the keys present by the segmented reduction of :mod:`._sort`
   (so the only extra compiled code per value dtype is the accumulation loop); T is the thread count, capped at
   ``1 + 2 * n // nkeys`` so the accumulators never dwarf the input;
3. otherwise a stable radix argsort of the keys (from :mod:`._sort`) and a segmented
   reduction through the permutation.

Floating-point sums from the dense path depend (at rounding level) on the number of
chunks, i.e. on the thread count; the other two paths reduce each group left to right in
input order.
"""

import numpy as np
import numba

from .. import KernelDeclined
from ._common import as_index, row_splits
from ._sort import (
    OP_CODES,
    _as_int64_1d,
    _combine_impl,
    _gt,
    _isnan,
    minmax,
    check_values,
    num_chunks,
    radix_argsort,
    segment_reduce,
    segment_starts,
    sortedness,
    threads_for,
    value_view,
)
from . import _cache  # noqa: F401  (compiled kernels go to the per-user cache, see _cache.py)

__all__ = ["group_reduce", "group_reduce_rows", "dense_threshold"]

_PJIT = dict(cache=True, nogil=True, parallel=True)


def dense_threshold(n, m):
    """Largest ``nkeys`` for which :func:`group_reduce` uses dense accumulators."""
    return 4 * n + 65536 // max(m, 1)


@numba.njit(cache=True, nogil=True)
def _accumulate(keys, values, a, ct, op, nkeys, lo, hi):
    """Fold rows lo..hi-1 into a[key] (a: (nkeys, m)), counting them in ct[key].  For
    sum/prod ``a`` arrives holding the identity (0 / 1); for max/min a row is seeded by
    the first value seen (ct == 0).  Keys outside [0, nkeys) are skipped and counted.
    One tight loop per op (the op test is hoisted out of the loop)."""
    m = values.shape[1]
    nb = 0
    if op == 0:
        for i in range(lo, hi):
            k = keys[i]
            if k < 0 or k >= nkeys:
                nb += 1
                continue
            for j in range(m):
                a[k, j] += values[i, j]
            ct[k] += 1
    elif op == 1:
        for i in range(lo, hi):
            k = keys[i]
            if k < 0 or k >= nkeys:
                nb += 1
                continue
            for j in range(m):
                a[k, j] *= values[i, j]
            ct[k] += 1
    else:
        for i in range(lo, hi):
            k = keys[i]
            if k < 0 or k >= nkeys:
                nb += 1
                continue
            if ct[k] == 0:
                for j in range(m):
                    a[k, j] = values[i, j]
            else:
                for j in range(m):
                    a[k, j] = _combine_impl(op, a[k, j], values[i, j])
            ct[k] += 1
    return nb


@numba.njit(**_PJIT)
def _group_dense(keys, values, nkeys, op, nchunks, acc, cnt):
    """Dense per-chunk accumulation: chunk c folds its rows into ``acc[c, key]`` and
    counts them in ``cnt[c, key]`` (acc: (nchunks, nkeys, m), identity-filled for
    sum/prod; cnt: zeros (nchunks, nkeys)).  Keys outside [0, nkeys) are skipped and
    counted (the wrapper raises), so acc/cnt are only indexed in bounds.  Rows whose
    count stays 0 are never read (see _dense_plan).  Returns per-chunk bad-key counts.

    The only value-dtype-specific code of the dense path besides segment_reduce."""
    n = keys.shape[0]
    bad = np.zeros(nchunks, np.int64)
    for c in numba.prange(nchunks):
        bad[c] = _accumulate(
            keys, values, acc[c], cnt[c], op, nkeys, n * c // nchunks, n * (c + 1) // nchunks
        )
    return bad  # summed by the caller (a .sum() here would fuse with the loop)


@numba.njit(**_PJIT)
def _dense_plan(cnt, nr):
    """First pass of the plan (counts per key range, inclusive prefixes).  With
    :func:`_dense_plan_fill`: from per-chunk counts (nchunks, nkeys), the present keys,
    their total counts, and a segmentation (starts, perm) of the rows ``c * nkeys + key`` of the dense partials with
    a non-zero count, grouped by key, chunks in order.  ``segment_reduce`` on it combines
    the partials and compresses to the present keys in one go.  int64 only: compiles once.
    ``nr``: number of key ranges worked on in parallel."""
    nch = cnt.shape[0]
    nkeys = cnt.shape[1]
    pres = np.zeros(nr + 1, np.int64)
    rows = np.zeros(nr + 1, np.int64)
    for r in numba.prange(nr):
        lo = nkeys * r // nr
        hi = nkeys * (r + 1) // nr
        npres = 0
        nrows = 0
        for q in range(lo, hi):
            t = 0
            for c in range(nch):
                if cnt[c, q] > 0:
                    t += 1
            nrows += t
            if t > 0:
                npres += 1
        pres[r + 1] = npres
        rows[r + 1] = nrows
    for r in range(nr):
        pres[r + 1] += pres[r]
        rows[r + 1] += rows[r]
    return pres, rows


@numba.njit(**_PJIT)
def _dense_plan_fill(cnt, pres, rows, ukeys, counts, starts, perm):
    """Second pass of the plan; same key ranges as _dense_plan, so range r writes exactly
    ukeys/counts/starts[pres[r]:pres[r+1]] and perm[rows[r]:rows[r+1]] (the wrapper
    sizes them from pres[-1] and rows[-1])."""
    nch = cnt.shape[0]
    nkeys = cnt.shape[1]
    nr = pres.shape[0] - 1
    nu = pres[nr]
    starts[nu] = rows[nr]
    for r2 in numba.prange(nr):
        lo2 = nkeys * r2 // nr
        hi2 = nkeys * (r2 + 1) // nr
        o = pres[r2]
        w = rows[r2]
        for q2 in range(lo2, hi2):
            tot = 0
            w0 = w
            for c2 in range(nch):
                cc = cnt[c2, q2]
                if cc > 0:
                    tot += cc
                    perm[w] = c2 * nkeys + q2
                    w += 1
            if tot > 0:
                ukeys[o] = q2
                counts[o] = tot
                starts[o] = w0
                o += 1


def group_reduce(keys, values, nkeys, op):
    """Reduce the rows of ``values`` that share a key.

    Parameters
    ----------
    keys : int64[n], values in ``[0, nkeys)``, any order, may repeat.
    values : (n, m) array of a supported dtype; the result keeps this dtype (the core
        casts beforehand, e.g. bool to int64 for a sum).
    nkeys : int, exclusive upper bound of the keys.
    op : ``"sum"``, ``"prod"``, ``"max"`` or ``"min"``.  max/min propagate NaN like
        ``numpy.max`` (a group holding a NaN gives NaN); complex max/min compare
        lexicographically (real, then imaginary) like NumPy.  For bool values max is
        ``any`` and min is ``all``; bool sum/prod raise KernelDeclined.

    Returns
    -------
    ukeys : int64[nu], sorted unique keys present.
    acc : (nu, m) array of ``values.dtype``, the reduction per key.
    counts : int64[nu], the number of rows per key.

    ValueError for a key outside ``[0, nkeys)``, mismatched lengths, a bad ``op``;
    KernelDeclined for an unsupported dtype.  Strategy: see the module docstring.

    >>> group_reduce(np.array([2, 0, 2]), np.array([[1.0], [2.0], [4.0]]), 3, "sum")
    (array([0, 2]), array([[2.],
           [5.]]), array([1, 2]))
    """
    if op not in OP_CODES:
        raise ValueError(f"op must be one of {sorted(OP_CODES)}, got {op!r}")
    keys = _as_int64_1d(keys, "keys")
    n = keys.shape[0]
    values = check_values(values, n)
    nkeys = int(nkeys)
    if nkeys < 0:
        raise ValueError(f"nkeys must be >= 0, got {nkeys}")
    if values.dtype == np.bool_ and op in ("sum", "prod"):
        raise KernelDeclined(
            f"group_reduce does not {op} bool values; cast them to an integer dtype first"
        )
    m = values.shape[1]
    dtype = values.dtype
    vv = value_view(values)
    if n == 0:
        return np.empty(0, np.int64), np.empty((0, m), dtype), np.empty(0, np.int64)
    with threads_for(n * m + nkeys):
        return _group_reduce(keys, vv, nkeys, op, dtype)


def _group_reduce(keys, vv, nkeys, op, dtype):
    n, m = vv.shape
    nondecreasing = sortedness(keys)[1]
    if nondecreasing or nkeys > dense_threshold(n, m):
        if nondecreasing:
            kmin, kmax = keys[0], keys[-1]
        else:
            kmin, kmax = minmax(keys)
        if kmin < 0 or kmax >= nkeys:
            raise ValueError(
                f"keys must lie in [0, nkeys={nkeys}), found values in [{kmin}, {kmax}]"
            )
        if nondecreasing:
            skeys, perm = keys, None
        else:
            skeys, perm = radix_argsort(keys)
        starts = segment_starts(skeys)  # valid segmentation of [0, n) by construction
        ukeys = skeys[starts[:-1]]
        acc = segment_reduce(vv, starts, op, perm)
        return ukeys, acc.view(dtype), np.diff(starts)
    nch = max(1, min(num_chunks(n), 1 + 2 * n // max(nkeys, 1)))
    # acc (nch, nkeys, m) and zeroed counts (nch, nkeys) come from NumPy (huge pages)
    if op == "sum":
        part = np.zeros((nch, nkeys, m), vv.dtype)
    elif op == "prod":
        part = np.ones((nch, nkeys, m), vv.dtype)
    else:
        part = np.empty((nch, nkeys, m), vv.dtype)
    cnt = np.zeros((nch, nkeys), np.int64)
    nbad = _group_dense(keys, vv, nkeys, OP_CODES[op], nch, part, cnt)
    nbad = int(nbad.sum())
    if nbad:
        raise ValueError(f"{nbad} keys lie outside [0, nkeys={nkeys})")
    # starts/perm: a valid segmentation of rows of `part` that were written (count > 0)
    pres, rows = _dense_plan(cnt, num_chunks(nkeys, 4096) * 4)
    nu, nrows = int(pres[-1]), int(rows[-1])
    ukeys = np.empty(nu, np.int64)
    counts = np.empty(nu, np.int64)
    starts = np.empty(nu + 1, np.int64)
    perm = np.empty(nrows, np.int64)
    _dense_plan_fill(cnt, pres, rows, ukeys, counts, starts, perm)
    if nch == 1 and perm.shape[0] == nkeys:
        acc = part[0]  # every key present once-per-chunk: already compressed and in order
    else:
        acc = segment_reduce(part.reshape(nch * nkeys, m), starts, op, perm)
    return ukeys, acc.view(dtype), counts


@numba.njit(**_PJIT)
def _count_runs(offsets, n, splits):
    """Per chunk of runs (splits): the non-empty runs, and 1 where a pointer pair is bad (reversed or
    outside [0, n]); nothing is read through a pointer."""
    nch = splits.shape[0] - 1
    cnt = np.zeros(nch, np.int64)
    bad = np.zeros(nch, np.int64)
    for c in numba.prange(nch):
        k = 0
        b_ = 0
        for g in range(splits[c], splits[c + 1]):
            a = offsets[g]
            b = offsets[g + 1]
            if a < 0 or b < a or b > n:
                b_ = 1
            elif b > a:
                k += 1
        cnt[c] = k
        bad[c] = b_
    return cnt, bad


_U1 = np.uint64(1)


@numba.njit(inline="always")
def _sum_run(values, a, b, j):
    """Column j of rows a..b-1 (a < b, checked pointers) summed left to right. Positions are unsigned,
    so numba adds no negative-index wraparound to each read (10-20% of the loop)."""
    i, end = np.uint64(a), np.uint64(b)
    acc = values[i, j]
    i += _U1
    while i < end:
        acc += values[i, j]
        i += _U1
    return acc


@numba.njit(inline="always")
def _prod_run(values, a, b, j):
    i, end = np.uint64(a), np.uint64(b)
    acc = values[i, j]
    i += _U1
    while i < end:
        acc *= values[i, j]
        i += _U1
    return acc


@numba.njit(inline="always")
def _max_run(values, a, b, j):
    """max of column j over rows a..b-1 with _combine_impl's rules (the first NaN wins): a select per
    element and a NaN flag, so the loop has no data-dependent branch."""
    i, end = np.uint64(a), np.uint64(b)
    acc = values[i, j]
    nan = _isnan(acc)
    i += _U1
    while i < end:
        v = values[i, j]
        acc = v if _gt(v, acc) else acc
        nan |= _isnan(v)
        i += _U1
    if nan:
        return _first_nan(values, a, b, j)
    return acc


@numba.njit(inline="always")
def _min_run(values, a, b, j):
    i, end = np.uint64(a), np.uint64(b)
    acc = values[i, j]
    nan = _isnan(acc)
    i += _U1
    while i < end:
        v = values[i, j]
        acc = v if _gt(acc, v) else acc
        nan |= _isnan(v)
        i += _U1
    if nan:
        return _first_nan(values, a, b, j)
    return acc


@numba.njit(inline="always")
def _first_nan(values, a, b, j):
    for i in range(a, b):
        if _isnan(values[i, j]):
            return values[i, j]
    return values[a, j]


@numba.njit(inline="always")
def _runs_with(run, offsets, values, lo, hi, k, runs, acc, counts):
    """The non-empty runs lo..hi-1 reduced by ``run`` (one of the four above, inlined: one tight loop
    per op, no op test per run) into slots k, k + 1, ..."""
    m = values.shape[1]
    for g in range(lo, hi):
        a = offsets[g]
        b = offsets[g + 1]
        if b > a:
            runs[k] = g
            counts[k] = b - a
            for j in range(m):
                acc[k, j] = run(values, a, b, j)
            k += 1


@numba.njit(**_PJIT)
def _reduce_runs(offsets, values, op, splits, first, runs, acc, counts):
    """The non-empty runs of each chunk, in order, from slot first[c] on (pointers checked before),
    each reduced left to right."""
    for c in numba.prange(splits.shape[0] - 1):
        lo, hi, k = splits[c], splits[c + 1], first[c]
        if op == 0:
            _runs_with(_sum_run, offsets, values, lo, hi, k, runs, acc, counts)
        elif op == 1:
            _runs_with(_prod_run, offsets, values, lo, hi, k, runs, acc, counts)
        elif op == 2:
            _runs_with(_max_run, offsets, values, lo, hi, k, runs, acc, counts)
        else:
            _runs_with(_min_run, offsets, values, lo, hi, k, runs, acc, counts)


def group_reduce_rows(offsets, values, op):
    """Reduce the rows of ``values`` in the runs that CSR-style pointers mark: run g is
    ``values[offsets[g]:offsets[g + 1]]`` (the specified elements of row g of a CSR, or column g of a
    CSC), so a reduction along the plain axis needs no keys at all.

    Parameters
    ----------
    offsets : int32/int64[G + 1], offsets[0] = 0, non-decreasing, offsets[-1] = n.
    values : (n, m) array of a supported dtype (kept; bool sum/prod are declined).
    op : ``"sum"``, ``"prod"``, ``"max"`` or ``"min"``, with :func:`group_reduce`'s rules.

    Returns
    -------
    (runs, acc, counts): the non-empty runs g (int64, increasing), their reductions (nu, m), each
    left to right, and their lengths (int64) -- :func:`group_reduce`'s result for the keys
    ``g`` repeated ``offsets[g + 1] - offsets[g]`` times.

    Two parallel passes over chunks of runs balanced by entries: count (and check) the non-empty
    runs, then reduce each into its slot. ValueError naming the first bad pointer; KernelDeclined for
    an unsupported dtype.

    >>> group_reduce_rows(np.array([0, 2, 2, 3]), np.array([[1.0], [2.0], [4.0]]), "sum")
    (array([0, 2]), array([[3.],
           [4.]]), array([2, 1]))
    """
    if op not in OP_CODES:
        raise ValueError(f"op must be one of {sorted(OP_CODES)}, got {op!r}")
    offsets = as_index(offsets, "offsets", "group_reduce_rows")
    if offsets.shape[0] == 0:
        raise ValueError("group_reduce_rows: offsets must have at least one element (offsets[0] = 0)")
    values = np.asarray(values)
    values = check_values(values, values.shape[0] if values.ndim else 0)
    n, m = values.shape
    if values.dtype == np.bool_ and op in ("sum", "prod"):
        raise KernelDeclined(f"group_reduce does not {op} bool values; cast them to an integer dtype first")
    if offsets[0] != 0 or offsets[-1] != n:
        raise ValueError(f"group_reduce_rows: offsets must run from 0 to len(values) = {n}; got {offsets[0]} to {offsets[-1]}")
    G = offsets.shape[0] - 1
    with threads_for(n * m + G):
        splits = row_splits(offsets, max(1, num_chunks(n + G, 1 << 14) * 4))
        cnt, bad = _count_runs(offsets, n, splits)
        if bad.any():
            g = int(np.flatnonzero(offsets[1:] < offsets[:-1])[0]) + 1
            raise ValueError(f"group_reduce_rows: offsets must be non-decreasing: offsets[{g}] = {offsets[g]} < offsets[{g - 1}] = {offsets[g - 1]}")
        first = np.zeros(cnt.shape[0] + 1, np.int64)
        np.cumsum(cnt, out=first[1:])
        nu = int(first[-1])
        runs = np.empty(nu, np.int64)
        counts = np.empty(nu, np.int64)
        vv = value_view(values)
        acc = np.empty((nu, m), vv.dtype)
        _reduce_runs(offsets, vv, OP_CODES[op], splits, first, runs, acc, counts)
    return runs, acc.view(values.dtype), counts
