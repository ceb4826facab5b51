"""Reduction of value rows grouped by an integer key on a GPU: :func:`group_reduce`, the CUDA twin
of ``kernels/cpu/group_reduce.py`` (the kernel behind ``sum``/``prod``/``max``/``min`` along an axis).

``key_stats`` finds the key range (checked against ``[0, nkeys)``) and whether the keys are already
non-decreasing, in one pass; unsorted keys are ordered by CuPy's stable radix argsort (CUB);
``run_heads`` marks the start of each run of equal keys and ``segment_reduce<Op, T>`` reduces each
run left to right in input order, one thread per (run, column). That is the order of the numba
kernel's sorted and sort paths, so results agree with them bit for bit (its dense path, taken for
few keys, differs only in the sign of a zero sum: it starts from +0). No accumulator of ``nkeys``
rows is ever allocated.

:func:`group_reduce_rows` takes the runs from CSR-style pointers instead of keys (the reductions
along the plain axis of a CSR/CSC): the non-empty runs by the array library's ``flatnonzero`` over
the pointers' differences, then the same ``segment_reduce``.

:func:`group_reduce_all` and :func:`group_reduce_rows_all` keep *every* group (``nkeys`` rows, or
one per run of the pointers), empty ones too: their output size comes from the shapes, so they
read nothing back to the host (the reductions along an axis of device data, whose result has one
value per row or column anyway). The bounds of every group are a ``searchsorted`` of the sorted
keys (or the pointers themselves); an empty group's row holds the op's identity (0 for a sum, 1
for a product, 0 / False for max and min, True for the bool min): its ``counts`` entry, 0, tells
it apart. The key-range and pointer checks are read back only outside ``proven_inputs()``.

>>> import numpy as np
>>> k, acc, counts = group_reduce(np.array([2, 0, 2]), np.array([[1.0], [2.0], [4.0]]), 3, "sum")
>>> k.tolist(), acc.ravel().tolist(), counts.tolist()
([0, 2], [2.0, 5.0], [1, 2])
"""

from __future__ import annotations

import numpy as np

from .. import KernelDeclined
from ._arrays import index_array, stable_argsort, value_rows
from ._build import INDEX_TYPES, VALUE_DTYPES, c_type, index_type
from ._operands import lanes_for
from ._driver import driver_for
from ._trust import inputs_proven

__all__ = ["group_reduce", "group_reduce_rows", "group_reduce_all", "group_reduce_rows_all", "reduce_runs"]

SOURCE = "group_reduce.cu"
OPS = ("sum", "prod", "max", "min")
NAME_EXPRESSIONS = ("key_stats", "run_heads") + tuple(
    f"segment_reduce<sp_{op}, {c_type(d)}>"
    for op in OPS
    for d in VALUE_DTYPES
    if not (d == np.bool_ and op in ("sum", "prod"))
) + tuple(f"run_reduce<sp_{op}, {i}, {t}>" for op in ("sum", "max", "min") for i in INDEX_TYPES for t in ("float", "double"))


def _key_operands(keys, values, nkeys, op):
    """``group_reduce``'s arguments checked: (driver, keys int64, values (n, m), nkeys)."""
    if op not in OPS:
        raise ValueError(f"op must be one of {sorted(OPS)}, got {op!r}")
    drv = driver_for(keys, values)
    xp = drv.xp
    keys = index_array(xp, keys, "keys", "group_reduce")
    values = value_rows(xp, values, keys.shape[0], "group_reduce")
    nkeys = int(nkeys)
    if nkeys < 0:
        raise ValueError(f"nkeys must be >= 0, got {nkeys}")
    _no_bool_sum(values, op)
    return drv, keys, values, nkeys


def _no_bool_sum(values, op):
    if values.dtype == np.bool_ and op in ("sum", "prod"):
        raise KernelDeclined(f"group_reduce does not {op} bool values; cast them to an integer dtype first")


def _key_order(drv, keys, nkeys, check_sorted=True):
    """``key_stats``: ValueError for a key outside ``[0, nkeys)``; returns whether the keys are
    non-decreasing (read in the same copy; with ``check_sorted=False`` not asked: False)."""
    xp, n = drv.xp, keys.shape[0]
    big = np.iinfo(np.int64).max
    stats = xp.asarray(np.array([big, -big - 1, 0], np.int64))
    drv.launch(SOURCE, "key_stats", n, (keys, np.int64(n), stats))
    kmin, kmax, descents = (int(v) for v in stats.tolist())
    if kmin < 0 or kmax >= nkeys:
        raise ValueError(f"keys must lie in [0, nkeys={nkeys}), found values in [{kmin}, {kmax}]")
    return check_sorted and descents == 0


def _sorted_by_key(drv, keys, already_sorted):
    """(perm, keys[perm]): the stable order of the keys (the identity when already sorted)."""
    xp = drv.xp
    if already_sorted:  # non-decreasing (e.g. the rows of a CSR): no sort
        return xp.arange(keys.shape[0], dtype=xp.int64), keys
    perm = stable_argsort(xp, keys)
    return perm, keys[perm]


def group_reduce(keys, values, nkeys, op):
    """Reduce the rows of ``values`` that share a key (contract: ``kernels/cpu/group_reduce.py``).

    keys: integer[n] in ``[0, nkeys)``, any order; values: (n, m) of a supported dtype (kept);
    op: ``"sum"``, ``"prod"``, ``"max"`` or ``"min"`` (max/min propagate NaN; complex compares
    lexicographically; bool max/min are any/all). Returns (ukeys int64[nu] increasing,
    acc (nu, m), counts int64[nu]). ValueError for a key out of range, a bad ``op``, ``nkeys < 0``
    or mismatched lengths; KernelDeclined for bool sum/prod and unsupported dtypes.
    """
    drv, keys, values, nkeys = _key_operands(keys, values, nkeys, op)
    xp = drv.xp
    n, m = values.shape
    if n == 0:
        return xp.empty(0, xp.int64), xp.empty((0, m), values.dtype), xp.empty(0, xp.int64)
    perm, skeys = _sorted_by_key(drv, keys, _key_order(drv, keys, nkeys))
    heads = xp.empty(n, xp.uint8)
    drv.launch(SOURCE, "run_heads", n, (skeys, np.int64(n), heads))
    starts = xp.flatnonzero(heads).astype(xp.int64, copy=False)
    nseg = starts.shape[0]
    bounds = xp.concatenate([starts, xp.asarray([n], dtype=xp.int64)])
    acc = xp.empty((nseg, m), values.dtype)
    name = f"segment_reduce<sp_{op}, {c_type(values.dtype)}>"
    drv.launch(SOURCE, name, nseg * m, (perm, bounds, np.int64(nseg), values, np.int64(m), acc))
    return skeys[starts], acc, xp.diff(bounds)


def _row_operands(offsets, values, op, check=True):
    """``group_reduce_rows``'s arguments checked: (driver, offsets int64, values (n, m)); with
    ``check`` the pointers too (one read: their ends; a second only to word an error)."""
    if op not in OPS:
        raise ValueError(f"op must be one of {sorted(OPS)}, got {op!r}")
    drv = driver_for(offsets, values)
    xp = drv.xp
    offsets = index_array(xp, offsets, "offsets", "group_reduce_rows")
    if offsets.shape[0] == 0:
        raise ValueError("group_reduce_rows: offsets must have at least one element (offsets[0] = 0)")
    values = xp.asarray(values)
    n = values.shape[0] if values.ndim else 0
    values = value_rows(xp, values, n, "group_reduce_rows")
    _no_bool_sum(values, op)
    if check:
        ends = [int(v) for v in xp.stack([offsets[0], offsets[-1]]).tolist()]
        if ends != [0, n]:
            raise ValueError(f"group_reduce_rows: offsets must run from 0 to len(values) = {n}; got {ends[0]} to {ends[1]}")
        bad = xp.flatnonzero(xp.diff(offsets) < 0)
        if bad.shape[0]:
            g = int(bad[0]) + 1
            lo, hi = drv.scalar(offsets[g - 1 : g]), drv.scalar(offsets[g : g + 1])
            raise ValueError(f"group_reduce_rows: offsets must be non-decreasing: offsets[{g}] = {hi} < offsets[{g - 1}] = {lo}")
    return drv, offsets, values


def group_reduce_rows(offsets, values, op):
    """Reduce the runs ``values[offsets[g]:offsets[g + 1]]`` (contract: ``group_reduce_rows`` of
    ``kernels/cpu/group_reduce.py``): (non-empty runs int64, acc (nu, m), counts int64)."""
    drv, offsets, values = _row_operands(offsets, values, op)
    xp = drv.xp
    n, m = values.shape
    lengths = xp.diff(offsets)
    runs = xp.flatnonzero(lengths).astype(xp.int64, copy=False)
    nseg = runs.shape[0]
    bounds = xp.concatenate([offsets[runs], xp.asarray([n], dtype=xp.int64)])  # non-empty runs of [0, n)
    acc = xp.empty((nseg, m), values.dtype)
    if nseg:
        perm = xp.arange(n, dtype=xp.int64)
        name = f"segment_reduce<sp_{op}, {c_type(values.dtype)}>"
        drv.launch(SOURCE, name, nseg * m, (perm, bounds, np.int64(nseg), values, np.int64(m), acc))
    return runs, acc, lengths[runs].astype(xp.int64, copy=False)


def _identity_rows(xp, op, shape, dtype):
    """The rows an empty group gets in the ``*_all`` launchers: 1 for prod and the bool min, else 0."""
    one = op == "prod" or (op == "min" and np.dtype(dtype) == np.bool_)
    return xp.ones(shape, dtype) if one else xp.zeros(shape, dtype)


def _segments_all(drv, perm, bounds, nseg, values, op):
    """(acc, counts) of ``segment_reduce`` over ``nseg`` segments ``bounds`` (nseg + 1, some maybe
    empty) through ``perm``: ``acc`` starts as the op's identity, which the kernel leaves in the
    rows of empty segments."""
    xp = drv.xp
    m = values.shape[1]
    acc = _identity_rows(xp, op, (nseg, m), values.dtype)
    if nseg and values.shape[0]:
        name = f"segment_reduce<sp_{op}, {c_type(values.dtype)}>"
        drv.launch(SOURCE, name, nseg * m, (perm, bounds, np.int64(nseg), values, np.int64(m), acc))
    return acc, xp.diff(bounds)


def group_reduce_all(keys, values, nkeys, op, sorted_keys=False):
    """:func:`group_reduce` keeping every key: ``(arange(nkeys) int64, acc (nkeys, m), counts
    int64[nkeys])``, an empty group's row the op's identity (see the module docstring), and no
    read-back inside ``proven_inputs()``. ``sorted_keys``: the keys are known non-decreasing (no
    sort; outside ``proven_inputs()`` the claim is checked with the key range). Errors as
    :func:`group_reduce`."""
    drv, keys, values, nkeys = _key_operands(keys, values, nkeys, op)
    xp = drv.xp
    if keys.shape[0] and not inputs_proven():
        sorted_keys = _key_order(drv, keys, nkeys, check_sorted=sorted_keys)
    perm, skeys = _sorted_by_key(drv, keys, sorted_keys)
    bounds = xp.ascontiguousarray(xp.searchsorted(skeys, xp.arange(nkeys + 1, dtype=xp.int64), side="left").astype(xp.int64, copy=False))
    acc, counts = _segments_all(drv, perm, bounds, nkeys, values, op)
    return xp.arange(nkeys, dtype=xp.int64), acc, counts


def group_reduce_rows_all(offsets, values, op):
    """:func:`group_reduce_rows` keeping every run, empty ones too: ``(arange(len(offsets) - 1)
    int64, acc, counts int64)``, an empty run's row the op's identity, and no read-back inside
    ``proven_inputs()`` (outside it, the pointers are checked as :func:`group_reduce_rows` does)."""
    drv, offsets, values = _row_operands(offsets, values, op, check=not inputs_proven())
    xp = drv.xp
    nseg = offsets.shape[0] - 1
    acc, counts = _segments_all(drv, xp.arange(values.shape[0], dtype=xp.int64), offsets, nseg, values, op)
    return xp.arange(nseg, dtype=xp.int64), acc, counts


def reduce_runs(offsets, values, op):
    """The sum, max or min of each run ``values[offsets[r]:offsets[r + 1]]`` of 1-D float32/float64
    ``values`` (the rows of a CSR), a group of lanes per run (``run_reduce``; sums in the group's
    tree order): ``(nseg,)`` of the values' dtype, an empty run's value 0 (as the ``*_all``
    launchers leave it). Pointers checked as :func:`group_reduce_rows` does outside
    ``proven_inputs()``; KernelDeclined for another dtype or op.

    >>> reduce_runs(np.array([0, 2, 2, 3]), np.array([1.0, -4.0, 2.5]), "max").tolist()
    [1.0, 0.0, 2.5]
    """
    if op not in ("sum", "max", "min") or np.dtype(getattr(values, "dtype", None)) not in (np.float32, np.float64):
        raise KernelDeclined(f"reduce_runs takes sum/max/min of float32/float64 values, not {op!r} of {getattr(values, 'dtype', type(values))}")
    if getattr(values, "ndim", None) != 1:
        raise ValueError(f"reduce_runs: values must be 1-D, got shape {getattr(values, 'shape', None)}")
    drv, offsets64, rows = _row_operands(offsets, values.reshape(-1, 1), op, check=not inputs_proven())
    xp = drv.xp
    offsets = xp.asarray(offsets)
    if offsets.dtype not in (np.int32, np.int64):
        offsets = offsets64
    nseg, n = offsets.shape[0] - 1, rows.shape[0]
    out = xp.zeros(nseg, values.dtype)
    name, threads, scalars = run_reduce_launch(op, offsets.dtype, values.dtype, nseg, n)
    drv.launch(SOURCE, name, threads, (xp.ascontiguousarray(offsets), *scalars[:2], rows, scalars[2], out))
    return out


def run_reduce_launch(op, index_dtype, dtype, nseg, n):
    """(kernel name, threads, (nseg, n, lanes) as the kernel's scalars) of ``run_reduce`` for runs
    of mean length n / nseg (the lean device reductions keep them per array)."""
    lanes = lanes_for(n / nseg) if nseg else 1
    name = f"run_reduce<sp_{op}, {index_type(index_dtype)}, {c_type(dtype)}>"
    return name, -(-nseg // (32 // lanes)) * 32, (np.int64(nseg), np.int64(n), np.int32(lanes))
