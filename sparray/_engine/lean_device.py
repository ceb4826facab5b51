"""The lean path of ``A @ x`` on a GPU (CuPy or the simulated device): straight to the launches.

The general path of a product composes the product engine, the registry and the launcher's
argument checks: about thirty array operations around two kernels, each a few microseconds of
Python on the host (and, for CuPy, its own launch). Everything those steps establish about ``A``
does not change between calls, so the first call works it out once and keeps it on the array
(``A._lean_device``): the driver, the kernel names, the lanes per row, a scratch status array,
valid indices, a zero fill, the longest row. A call then checks ``x`` (type, dtype, shape,
contiguity: attributes only, no read of the device), allocates y and the column counts, and makes
three launches: the SpMV, the count of x's non-finite elements, and the fix-up that turns an
element of y into NaN where an unspecified zero met one (exact as the general path is). No wait
for the device.

A skewed matrix (the longest row over ``SKEW_FACTOR`` x the mean and over ``SKEW_MIN``: power-law
graphs) takes the merge-path kernels instead of the row kernel, as the general path does: the merge
SpMV and its fix-up levels (none up to 224 rows + entries, one up to 57,344, two up to 14.7 million:
a number fixed by the matrix's size), then the same two NaN launches. Its tile starts (a search of the row pointers)
are found at the first call and kept, as are its carry arrays (their size is fixed by the matrix);
a call on another CuPy stream than the one they were made on goes the general way (which makes its
own).

It serves a 2-d CSR with a zero fill and real floating values, times a 1-d ``x`` of its dtype and
device; anything else (and any call inside ``check_invariants()`` or ``use_backend``) returns None
and the general path serves it.

>>> import sparray, numpy as np
>>> from sparray.kernels.cuda.simulated import to_simulated
>>> A = sparray.asarray(np.eye(3), layout="csr").to_device("simulated")
>>> (A @ to_simulated(np.arange(3.0))).get().tolist()
[0.0, 1.0, 2.0]
"""

from __future__ import annotations

import numpy as np

from .dispatch import forced_backend
from .._core.validation import invariant_checks_on

__all__ = ["matmul"]


class _State:
    """What one CSR array keeps for its lean device products (see the module docstring)."""

    __slots__ = ("drv", "array_type", "dtype", "ptr", "idx", "values", "M", "K", "nse", "mv", "mv_threads", "lanes",
                 "stats", "scalars", "source", "unread_nan", "merge", "part", "scratch", "stream", "launch_merge", "launch_stream")  # fmt: skip


def _state_of(A):
    """The array's :class:`_State`, or False when the lean path cannot serve it (kept either way)."""
    from .._core.fill import array_fill_is_zero
    from .._core.namespace import backend_kind

    st = False
    if (A.layout == "csr" and A.batch_ndim == 0 and A.dense_ndim == 0 and backend_kind(A._xp) == "cupy"
            and A.dtype in (np.float32, np.float64) and A.shape[0] > 0 and A.nse > 0):  # fmt: skip
        A._check_contents()
        if array_fill_is_zero(A):
            st = _build(A)
    A._lean_device = st
    return st


def _build(A):
    from ..kernels.cuda import spmm
    from ..kernels.cuda._build import c_type, index_type
    from ..kernels.cuda._driver import driver_for
    from ..kernels.cuda._operands import lanes_for, new_stats

    ptr, idx, values = A._cidx, A._pidx, A._values
    if ptr.dtype != idx.dtype or not (ptr.flags.c_contiguous and idx.flags.c_contiguous and values.flags.c_contiguous):
        return False
    drv = driver_for(ptr, idx, values)
    M, K, nse = A.shape[0], A.shape[1], idx.shape[0]
    longest = spmm.longest_row(ptr, nse)
    mean = nse / M
    if longest < 0:
        return False  # bad pointers: the general path names them
    st = _State()
    st.drv, st.array_type, st.dtype = drv, type(values), values.dtype
    st.ptr, st.idx, st.values = ptr, idx, values
    st.M, st.K, st.nse = M, K, nse
    st.stats = new_stats(drv.xp, M + 1)  # written by the kernels, never read (the indices are proven)
    st.source, st.unread_nan = spmm.SOURCE, spmm.launch_unread_nan
    st.merge = longest > spmm.SKEW_MIN and longest > spmm.SKEW_FACTOR * mean
    if st.merge:  # the merge path: its tile starts (one launch, no read) and carries kept here
        st.mv = spmm.merge_names(ptr.dtype, values.dtype)
        st.part = spmm.merge_partition(drv, ptr, M, nse)
        st.scratch = spmm.merge_scratch(drv.xp, M, nse, values.dtype)
        st.launch_merge, st.launch_stream = spmm.launch_merge_mv, spmm.launch_stream
        st.stream = st.launch_stream(drv)
    else:
        st.lanes = lanes_for(mean)
        st.mv = f"csr_mv_rows<{index_type(ptr.dtype)}, {c_type(values.dtype)}>"
        st.mv_threads = -(-M // (32 // st.lanes)) * 32
        st.scalars = (np.int64(M), np.int64(K), np.int64(nse), np.int32(st.lanes))
    return st


def matmul(A, x):
    """``A @ x`` by the lean device path, or None when the general path must serve the call."""
    st = A.__dict__.get("_lean_device")
    if st is None:
        st = _state_of(A)
    if not st or type(x) is not st.array_type or x.dtype != st.dtype or x.ndim != 1 or x.shape[0] != st.K:
        return None
    if not x.flags.c_contiguous or invariant_checks_on() or forced_backend() is not None:
        return None  # inside check_invariants() or a forced backend the general path serves every call
    drv = st.drv
    if st.merge and st.stream is not None and st.launch_stream(drv) != st.stream:
        return None  # the kept tile starts and carries belong to another CuPy stream
    y = drv.xp.empty(st.M, st.dtype)
    if st.merge:
        st.launch_merge(drv, st.mv, st.ptr, st.idx, st.values, x, y, st.M, st.K, st.nse, st.part, st.scratch, st.stats)
    else:
        M, K, nse, lanes = st.scalars
        drv.launch(st.source, st.mv, st.mv_threads, (st.ptr, st.idx, st.values, x, M, K, nse, lanes, y, st.stats))
    st.unread_nan(drv, st.ptr, st.idx, x, y, st.M, st.K, 1)
    return y
