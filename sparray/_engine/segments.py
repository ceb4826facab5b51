"""Generic (pure array-API) sort-and-segment primitives, the reference for the numba kernels.

The array API has no scatter-add, so grouped reductions sort rows by key and reduce each run of
equal keys with a segmented inclusive scan (Hillis-Steele doubling: ``log2(longest run)`` passes
of ``where(same_segment, op(x[i], x[i-d]), x[i])``). It is exact (no prefix-sum differences) and
works on every namespace.

Registered in the device registry as the ``"generic"`` implementations of

- ``coalesce(keys, values) -> (ukeys, uvalues)``: duplicates summed (bool: or);
- ``group_reduce(keys, values, nkeys, op) -> (ukeys, acc, counts)``, op in sum/prod/max/min;
- ``scatter_sum(keys, values, nkeys) -> acc``: the per-key sums as a dense ``(nkeys, m)`` array;
- ``nonzero_rows(dense) -> (keys, rows)`` [dense]: the rows of such an array with a non-zero (or
  nan) element and their indices (a sum's sparse result);
- ``group_reduce`` [csr] ``(offsets, values, op) -> (runs, acc, counts)``: the same grouped by
  CSR-style pointers (run g is ``values[offsets[g]:offsets[g + 1]]``), the non-empty runs only.

``values`` are always 2-d ``(n, m)``; keys int64 in ``[0, nkeys)``.
"""

from __future__ import annotations

from .dispatch import register

__all__ = ["segment_reduce_sorted", "segment_scan_sorted", "coalesce_generic", "group_reduce_generic", "group_reduce_rows_generic",
           "scatter_sum_generic", "nonzero_rows_generic", "OPS"]

OPS = ("sum", "prod", "max", "min")


def _combine(xp, op, dtype):
    if dtype == xp.bool:
        return {"sum": xp.logical_or, "max": xp.logical_or, "prod": xp.logical_and, "min": xp.logical_and}[op]
    return {"sum": xp.add, "prod": xp.multiply, "max": xp.maximum, "min": xp.minimum}[op]


def segment_scan_sorted(xp, starts, values, op):
    """Inclusive scan of each contiguous run of rows of ``values`` (n, m) (``starts[i]`` marks the
    first row of a run): row ``i`` of the result combines the rows of its run up to ``i``.

    Returns ``(acc, start_pos, end_pos)``: the scanned rows and each run's first and last row.
    """
    n = values.shape[0]
    combine = op if callable(op) else _combine(xp, op, values.dtype)  # a callable: ``combine(later, earlier)``
    seg = xp.cumulative_sum(xp.astype(starts, xp.int64)) - 1
    start_pos = xp.nonzero(starts)[0]
    end_pos = xp.concat([start_pos[1:] - 1, xp.asarray([n - 1], dtype=start_pos.dtype)])
    longest = int(xp.max(end_pos - start_pos + 1))
    acc = values
    d = 1
    while d < longest:
        same = xp.reshape(seg[d:] == seg[:-d], (n - d, 1))
        acc = xp.concat([acc[:d, ...], xp.where(same, combine(acc[d:, ...], acc[:-d, ...]), acc[d:, ...])], axis=0)
        d *= 2
    return acc, start_pos, end_pos


def segment_reduce_sorted(xp, starts, values, op):
    """Reduce contiguous runs of rows of ``values`` (n, m); ``starts[i]`` marks the first row of a run.

    Returns ``(acc, counts)``: one row per run, in order, and the run lengths.
    """
    if values.shape[0] == 0:
        return values[:0, ...], xp.zeros((0,), dtype=xp.int64)
    acc, start_pos, end_pos = segment_scan_sorted(xp, starts, values, op)
    return xp.take(acc, end_pos, axis=0), xp.astype(end_pos - start_pos + 1, xp.int64)


def _sorted_runs(xp, keys, values):
    if keys.shape[0] == 0:  # slicing an empty array ([1:]) is an error in some namespaces
        return keys, values, xp.zeros((0,), dtype=xp.bool)
    perm = xp.argsort(keys, stable=True)
    sk = xp.take(keys, perm)
    sv = xp.take(values, perm, axis=0)
    n = sk.shape[0]
    starts = xp.concat([xp.ones((min(n, 1),), dtype=xp.bool), sk[1:] != sk[:-1]])
    return sk, sv, starts


@register("coalesce", "coo", "generic")
def coalesce_generic(xp, keys, values):
    """Sort by key and sum the values of equal keys (bool: logical or)."""
    sk, sv, starts = _sorted_runs(xp, keys, values)
    acc, _ = segment_reduce_sorted(xp, starts, sv, "sum")
    return sk[starts], acc


@register("group_reduce", "coo", "generic")
def group_reduce_generic(xp, keys, values, nkeys, op):
    """Reduce the rows of ``values`` grouped by ``keys``: (sorted present keys, per-key result, counts)."""
    if op not in OPS:
        raise ValueError(f"group_reduce: op must be one of {OPS}; got {op!r}")
    sk, sv, starts = _sorted_runs(xp, keys, values)
    acc, counts = segment_reduce_sorted(xp, starts, sv, op)
    return sk[starts], acc, counts


@register("group_reduce", "csr", "generic")
def group_reduce_rows_generic(xp, offsets, values, op):
    """Runs marked by pointers: each entry's run from the pointers, then :func:`group_reduce_generic`."""
    from .compressed_generic import expand_offsets

    return group_reduce_generic(xp, expand_offsets(xp, offsets, xp.int64), values, offsets.shape[0] - 1, op)


@register("group_reduce_all", "coo", "generic")
def group_reduce_all_generic(xp, keys, values, nkeys, op, sorted_keys=False):
    """:func:`group_reduce_generic` keeping every key in ``[0, nkeys)``: (arange(nkeys), per-key
    result, counts), an absent key's row the op's identity (1 for prod and the bool min, else 0)
    and its count 0. ``sorted_keys`` is the kernels' hint; the sort here does not need it."""
    ukeys, acc, counts = group_reduce_generic(xp, xp.astype(keys, xp.int64), values, nkeys, op)
    every = xp.arange(nkeys, dtype=xp.int64)
    if ukeys.shape[0] == 0:
        pos, present = xp.zeros((nkeys,), dtype=xp.int64), xp.zeros((nkeys,), dtype=xp.bool)
    else:
        pos = xp.clip(xp.searchsorted(ukeys, every), 0, ukeys.shape[0] - 1)
        present = xp.take(ukeys, pos) == every
    one = op == "prod" or (op == "min" and values.dtype == xp.bool)
    identity = xp.ones if one else xp.zeros
    empty_row = identity((1, *values.shape[1:]), dtype=values.dtype)
    taken = xp.take(acc, pos, axis=0) if ukeys.shape[0] else xp.zeros((nkeys, *values.shape[1:]), dtype=values.dtype)
    mask = xp.reshape(present, (nkeys, *([1] * (values.ndim - 1))))
    all_counts = xp.where(present, xp.take(counts, pos), xp.zeros((), dtype=xp.int64)) if ukeys.shape[0] else pos
    return every, xp.where(mask, taken, empty_row), all_counts


@register("group_reduce_all", "csr", "generic")
def group_reduce_rows_all_generic(xp, offsets, values, op):
    """Runs marked by pointers, every run kept (empty ones too): see :func:`group_reduce_all_generic`."""
    from .compressed_generic import expand_offsets

    keys = expand_offsets(xp, offsets, xp.int64, values.shape[0])
    return group_reduce_all_generic(xp, keys, values, offsets.shape[0] - 1, op, True)


@register("scatter_sum", "coo", "generic")
def scatter_sum_generic(xp, keys, values, nkeys, sorted_keys=False):
    """Dense per-key sums: group_reduce, then a searchsorted gather (the array API has no scatter).
    ``sorted_keys`` is the kernels' hint; the sort here does not need it."""
    ukeys, acc, _ = group_reduce_generic(xp, xp.astype(keys, xp.int64), values, nkeys, "sum")
    m = values.shape[1]
    if ukeys.shape[0] == 0:
        return xp.zeros((nkeys, m), dtype=values.dtype)
    targets = xp.arange(nkeys, dtype=xp.int64)
    pos = xp.searchsorted(ukeys, targets)
    clipped = xp.where(pos < ukeys.shape[0], pos, xp.full_like(pos, ukeys.shape[0] - 1))
    found = xp.reshape(xp.take(ukeys, clipped) == targets, (nkeys, 1))
    return xp.where(found, xp.take(acc, clipped, axis=0), xp.zeros((1, m), dtype=values.dtype))


@register("nonzero_rows", "dense", "generic")
def nonzero_rows_generic(xp, dense):
    """(keys int64 ascending, rows) of the rows of ``dense`` (n, m) with a non-zero (or nan)
    element; ``dense`` itself (no gather) with ``arange(n)`` when every row has one."""
    n, m = dense.shape
    nonzero = dense[:, 0] != 0 if m == 1 else xp.any(dense != 0, axis=1)
    if int(xp.count_nonzero(nonzero)) == n:
        return xp.arange(n, dtype=xp.int64), dense
    keys = xp.astype(xp.nonzero(nonzero)[0], xp.int64, copy=False)
    return keys, xp.take(dense, keys, axis=0)
