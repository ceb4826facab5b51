"""The lean path of ``sum``, ``max`` and ``min`` along one axis of a 2-D CSR or CSC on a GPU.

The general path of a reduction (``sparray._reductions``) normalizes the axes, builds the groups,
casts, permutes and reshapes the values, reduces, combines each group with its fill positions and
builds the result: some twenty-five array operations, each a few microseconds of Python on the
host and, on CuPy, most of them a launch. What those steps work out from the pattern (the groups,
each group's count, the result's indices, its fill) does not change between calls, so the first
call on an array keeps it per (op, axis) on the array (``A._lean_device_reduce``), and a call then
allocates the result's values and makes one launch (two for ``max``/``min`` with unspecified
elements: the kernel, then the merge with the zero fill). Nothing is read from the device.

Along the compressed axis's runs (a CSR's rows, ``axis=1``) each run is reduced by a group of
lanes (``run_reduce``, as the SpMV's row kernel: sums in the lanes' tree order). Across it (a CSR's columns, ``axis=0``) ``sum`` adds the
entries into a zeroed column accumulator (``scatter_add``), and ``max``/``min`` reduce through the
entries' order by column (a stable sort of the column indices, made on the first call and kept).

It serves a 2-D CSR or CSC without batch or dense dims, with a zero fill and at least one entry,
float32 or float64 values, on CuPy or the simulated device; anything else, and every call inside
``check_invariants()`` or ``use_backend``, returns None and the general path serves it. Results
are the general path's: a 1-D COO over the kept axis holding every row (column), fill 0.

>>> import sparray, numpy as np
>>> A = sparray.asarray(np.array([[1.0, 0.0], [-2.0, 3.0]]), layout="csr").to_device("simulated")
>>> sparray.max(A, axis=1).to_device("cpu").to_dense().tolist()
[1.0, 3.0]
"""

from __future__ import annotations

import numpy as np

from .._core.validation import invariant_checks_on
from .._engine.dispatch import forced_backend

__all__ = ["reduce_axis"]

KINDS = ("sum", "max", "min")


class _State:
    """What one array keeps for one (op, axis) of its lean device reductions (module docstring)."""

    __slots__ = ("drv", "launch", "indices", "fill", "shape", "missing", "coo")


def reduce_axis(A, kind, axis):
    """``kind(A, axis=axis)`` (``kind`` in :data:`KINDS`, no keepdims, no dtype) by the lean device
    path, or None when the general path must serve the call."""
    if invariant_checks_on() or forced_backend() is not None:
        return None  # inside check_invariants() or a forced backend the general path serves every call
    kept = A.__dict__.get("_lean_device_reduce")
    if kept is None:
        kept = A._lean_device_reduce = {}
    key = (kind, axis)
    st = kept.get(key)
    if st is None:
        st = kept[key] = _state_of(A, kind, axis)
    if not st:
        return None
    acc = st.launch()
    if kind == "sum":  # a zero sum is +0.0, as NumPy's (``_core.fill.sum_zero``; no wait)
        acc = acc + 0.0
    if axis is None:  # every axis: a 0-d array (the public function wraps it by the namespace rule)
        if st.missing:  # some element is unspecified: it meets the zero fill
            acc = (st.drv.xp.maximum if kind == "max" else st.drv.xp.minimum)(acc, st.fill)
        return acc
    if st.missing is not None:  # the zero fill of rows (columns) with unspecified elements
        xp = st.drv.xp
        acc = xp.where(st.missing, (xp.maximum if kind == "max" else xp.minimum)(acc, st.fill), acc)
    return st.coo._from_parts(A._xp, st.indices, acc, st.shape, st.fill, coalesced=True)


def _state_of(A, kind, axis):
    """The array's :class:`_State` for (kind, axis), or False when the lean path cannot serve it."""
    from .._core.fill import array_fill_is_zero
    from .._core.namespace import backend_kind

    if (axis is not None and (type(axis) is not int or not -2 <= axis < 2)) or kind not in KINDS:
        return False
    if (A.layout not in ("csr", "csc") or A.batch_ndim or A.dense_ndim or backend_kind(A._xp) != "cupy"
            or A.dtype not in (np.float32, np.float64) or A.nse == 0 or 0 in A.shape):  # fmt: skip
        return False
    A._check_contents()
    if not array_fill_is_zero(A):
        return False
    return _build_all(A, kind) if axis is None else _build(A, kind, axis % 2)


def _build(A, kind, axis):
    from .._array.coo import COO
    from .._core.fill import remember_fill_is_zero
    from .._engine.facts import remember_all_finite
    from ..kernels.cuda import group_reduce, scatter
    from ..kernels.cuda._build import c_type, index_type
    from ..kernels.cuda._driver import driver_for

    ptr, idx, values = A._cidx, A._pidx, A._values
    drv = driver_for(ptr, idx, values)
    xp = drv.xp
    n = idx.shape[0]
    nmajor, nminor = (A.shape[0], A.shape[1]) if A.layout == "csr" else (A.shape[1], A.shape[0])
    runs = axis != A._major  # the reduced axis is the minor one: groups are the runs between pointers
    nkeys, n_red = (nmajor, nminor) if runs else (nminor, nmajor)
    vals = xp.ascontiguousarray(values).reshape(n, 1)
    T = c_type(values.dtype)
    st = _State()
    st.drv, st.coo = drv, COO
    st.shape = (nkeys,)
    idt = ptr.dtype if nkeys <= np.iinfo(np.int32).max else np.int64
    st.indices = xp.arange(nkeys, dtype=idt).reshape(1, nkeys)
    st.fill = xp.zeros((), values.dtype)
    remember_fill_is_zero(st.fill, True)
    remember_all_finite(st.fill, True)
    if kind == "sum" and not runs:
        keys = xp.ascontiguousarray(idx)
        name = f"scatter_add<{index_type(keys.dtype)}, {T}>"
        nbad = xp.zeros(1, xp.uint64)  # the kernel's count of bad keys: never read (the indices are proven)
        args = (keys, np.int64(n), vals, np.int64(1), np.int64(nkeys))

        def launch():
            out = xp.zeros((nkeys, 1), values.dtype)
            drv.launch(scatter.SOURCE, name, n, (*args, out, nbad))
            return out.reshape(nkeys)

        st.launch, st.missing = launch, None
        return st
    if runs:  # a group of lanes per run (run_reduce), straight from the pointers
        bounds = ptr
        name, threads, (nseg, nn, lanes) = group_reduce.run_reduce_launch(kind, ptr.dtype, values.dtype, nkeys, n)
        args = (xp.ascontiguousarray(ptr), nseg, nn, values.reshape(n), lanes)
    else:  # through the entries in column order (a stable sort, once), a thread per column
        perm, bounds = _groups(A, xp, nkeys)
        name, threads = f"segment_reduce<sp_{kind}, {T}>", nkeys
        args = (perm, bounds, np.int64(nkeys), vals, np.int64(1))

    def launch():
        acc = xp.zeros(nkeys, values.dtype)  # the value of an empty group (the *_all launchers' identity)
        drv.launch(group_reduce.SOURCE, name, threads, (*args, acc))
        return acc

    st.launch = launch
    # sum: a zero fill adds nothing; max/min: a group with an unspecified element meets the fill
    st.missing = None if kind == "sum" else (bounds[1:] - bounds[:-1]) < n_red
    return st


def _build_all(A, kind):
    """The state of ``kind`` over every axis: the array library's reduction of the stored values
    (a 0-d device array, as the general path's one-group route makes it), then for max/min the
    zero fill when some element is unspecified."""
    from ..kernels.cuda._driver import driver_for

    values = A._values
    st = _State()
    st.drv, st.shape = driver_for(values), ()
    xp = st.drv.xp
    reduce = {"sum": xp.sum, "max": xp.max, "min": xp.min}[kind]
    rows = values.reshape(values.shape[0], 1)
    st.launch = lambda: reduce(rows, axis=0).reshape(())
    st.fill = xp.zeros((), values.dtype)
    st.missing = None if kind == "sum" else A.nse < A.shape[0] * A.shape[1]
    return st


def _groups(A, xp, nkeys):
    """(perm int64[n], bounds int64[nkeys + 1]): the entries in the order of their plain indices (a
    stable sort on the device, made once) and each index's run in that order, kept on the array
    for every op across the pointers' runs."""
    from ..kernels.cuda._arrays import stable_argsort

    kept = A._lean_device_reduce
    hit = kept.get("by_plain_index")
    if hit is None:
        idx = A._pidx
        perm = stable_argsort(xp, idx)
        keys = idx[perm].astype(xp.int64)
        hit = kept["by_plain_index"] = perm, xp.searchsorted(keys, xp.arange(nkeys + 1, dtype=xp.int64), side="left")
    return hit
