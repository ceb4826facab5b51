"""Lean paths: the common calls on a 2-D NumPy CSR or CSC, from the public function straight to a kernel.

The general path (``_linalg``, ``_reductions``, ``_elementwise``, ``_conversion`` through the
registry) works out on every call what it needs: the operands' namespace and dtype, the fill's
value, the array's flat parts, the kernel for those types, the threads to wake. On a matrix of a
thousand entries that is 100-500 us of Python around a microsecond of work. What an array proves
once, it keeps: :class:`LeanMatrix` (the array's components in the kernels' form, whether its fill
is zero, its validity, which columns no entry reads) is worked out on the first lean call and
kept on the array (``A._lean``), as its validity check and its zero fill are kept. An in-place
operator or ``A[key] = v`` rebinds the array's state, and the kept answer goes with it.

A lean path serves a call when all of these hold, and otherwise returns None so that the caller
takes the general path, which computes the same result:

- the array is an unbatched 2-D CSR or CSC of NumPy data without dense dims, with at least one
  entry, a dtype the kernels compute in, and a zero fill (non-zero fills take the general path);
- the other operand is what the call needs in the same dtype (a C-ordered NumPy array of the
  array's dtype for a product, the same layout, shape and dtype for a sum of two arrays, a Python
  scalar for scaling);
- no backend is forced (``use_backend``, ``SPARRAY_BACKEND``: they ask for the general path) and
  invariant checks are off (``with sparray.check_invariants():`` re-validates every array it uses);
- the kernel has already run in this process for these types (see :func:`_warm`): a first small
  call never loads numba for a few microseconds of work, as the registry's small-call rule says.

Results are the general path's, to the bit where the general path runs the same kernel (the row
loops are shared; a serial and a parallel run of them give the same bits). Kernels run on the
calling thread below ``kernels.cpu._common.SERIAL_WORK`` (the crossover, measured) and in
parallel above it.

>>> import sparray, numpy as np
>>> A = sparray.asarray(np.array([[0.0, 2.0], [3.0, 0.0]]), layout="csr")
>>> (A @ np.ones(2)).tolist()     # served by the general path or this one: the same answer
[2.0, 3.0]
"""

from __future__ import annotations

import functools

import numpy as np

from .._engine import dispatch as _dispatch
from .._engine import jit as _jit
from .._core.fill import array_fill_is_zero
from .._core.validation import invariant_checks_on

__all__ = ["LeanMatrix", "lean_of", "matmul"]

_VALUE_DTYPES = frozenset(
    np.dtype(t).str
    for t in (np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16, np.uint32, np.uint64,
              np.float32, np.float64, np.complex64, np.complex128)
)  # fmt: skip
_INDEX_DTYPES = frozenset((np.dtype(np.int32).str, np.dtype(np.int64).str))
_BAD_STATUS = ~4  # kernels.cpu.spmm: status bits other than _NONFINITE mean a bad pointer or index


class LeanMatrix:
    """What an unbatched 2-D CSR or CSC of NumPy data has proven, for the lean paths.

    ``ptr``, ``idx``, ``values``: the components (1-D, C-contiguous, indices of one dtype);
    ``nmajor``, ``nminor``: rows and columns of the compressed grid (CSC: columns, rows);
    ``shape``, ``dtype``; ``zero_fill``; ``present``: the minor indices that hold an entry (a
    column that ``A @ x`` never reads is missing; a column sum exists for each one present; None
    until a second product or a large column sum asks); ``warm``: the lean ops whose kernel ran
    for these types; ``products``: products made so far.
    """

    __slots__ = ("ptr", "idx", "values", "nmajor", "nminor", "shape", "dtype", "zero_fill", "present",
                 "unread", "warm", "products", "layout", "mv")  # fmt: skip

    def __init__(self, A):
        self.layout = A.layout
        self.ptr, self.idx, self.values = A._cidx, A._pidx, A._values
        self.nmajor, self.nminor = A._grid
        self.shape = A._shape
        self.dtype = A._values.dtype
        self.zero_fill = array_fill_is_zero(A)
        self.present = None
        self.unread = None  # the columns that hold no entry: kept once a second product asks
        self.mv = None
        self.warm = set()
        self.products = 0


def _eligible(A) -> bool:
    """Whether ``A`` may take the lean paths (see the module docstring)."""
    if A.layout not in ("csr", "csc") or A._cidx.ndim != 1 or A._values.ndim != 1:
        return False
    comps = (A._cidx, A._pidx, A._values)
    if any(type(c) is not np.ndarray or not c.flags.c_contiguous for c in comps):
        return False
    if A._cidx.dtype != A._pidx.dtype or A._cidx.dtype.str not in _INDEX_DTYPES:
        return False
    if A._values.dtype.str not in _VALUE_DTYPES or A._values.shape[0] == 0:
        return False
    nmajor, nminor = A._grid
    return nmajor > 0 and nminor > 0


def lean_of(A):
    """The :class:`LeanMatrix` of ``A``, worked out once and kept (``A._lean``), or None when ``A``
    does not qualify. Its first use validates ``A`` (once per array, as every first use of its
    indices does): a ValueError names a bad index then.

    The lean ops read the kept ``A.__dict__.get("_lean")`` themselves and call this only when it is
    missing: a call saved on every product and sum (measured 0.1-0.5 us of a 3-10 us call at 1e3
    entries)."""
    state = A.__dict__.get("_lean")
    if state is None:
        if _eligible(A):
            A._check_contents()
            state = LeanMatrix(A)
        else:
            state = False
        A._lean = state
    return state or None


def _invalid(*arrays):
    """A kernel met a pointer or index that the arrays' validity check had passed: a component was
    written in place since. Forget what the arrays proved and check them again, which raises the
    validation's ValueError naming the first bad entry; returns None (the general path's turn)
    when they pass."""
    for A in arrays:
        A.__dict__.pop("_lean", None)
        A.__dict__.pop("_lean_warm", None)
        A._checked = False
        A._check_contents()


#: False sends every call to the general path (tests of the registry's own rules switch it off)
ENABLED = True


def _forced() -> bool:
    """Whether the lean paths step aside: switched off, a backend forced, or invariant checks on
    (inside ``with sparray.check_invariants():`` every use of an array re-validates it: the
    general path's)."""
    return not ENABLED or _dispatch.forced_backend() is not None or invariant_checks_on()


#: In the eager JIT mode (``SPARRAY_JIT=eager``: kernels compile in the caller's process on first
#: use, as the benchmarks ask) a lean path runs its kernel at any size; the test suite turns this
#: off (tests/conftest.py) so that its small cases keep the registry's rule below.
EAGER_ANY_SIZE = True


def _warm_now(general_keys, work) -> bool:
    """Whether a lean kernel may run now: the registry's kernel for an equivalent general call
    (``general_keys()``, its JIT keys) ran in this process (it is loaded; the registry's own rule
    for small calls, see ``_dispatch.SMALL_GENERIC_BUDGET``), or the JIT mode is eager and the
    call is large enough for the registry to compile its kernel too (``SMALL_WORK``), or any size
    with :data:`EAGER_ANY_SIZE`. A first small call of a process never loads numba here."""
    if _jit.mode() == "eager" and (EAGER_ANY_SIZE or work >= _dispatch.SMALL_WORK):
        return True
    return any(_jit.ran_here(k) for k in general_keys())


def _warm(st, op, general_keys, work) -> bool:
    """:func:`_warm_now` for lean op ``op`` of the array ``st`` stands for (callers test ``op in
    st.warm`` first); once true it is kept in ``st.warm``."""
    ok = _warm_now(general_keys, work)
    if ok:
        st.warm.add(op)
    return ok


# --- A @ x -----------------------------------------------------------------------------------------
_KERNELS: dict = {}
_SERIAL_WORK = []  # kernels.cpu._common.SERIAL_WORK, read once the kernels are loaded


def _kernels(name):
    """The kernel module ``sparray.kernels.cpu.<name>`` (imported on first use, then kept)."""
    mod = _KERNELS.get(name)
    if mod is None:
        import importlib

        mod = _KERNELS[name] = importlib.import_module(f"sparray.kernels.cpu.{name}")
        if not _SERIAL_WORK:
            _SERIAL_WORK.append(importlib.import_module("sparray.kernels.cpu._common").SERIAL_WORK)
            _THREADS.append(_thread_count_reader())
    return mod


_THREADS = []  # a function answering numba's current thread count (set_num_threads), read once loaded


def _thread_count_reader():
    """numba's thread count of the calling thread: its threading layer's own C getter (0.25 us)
    where numba has one, else ``numba.get_num_threads`` (2.2 us). With one thread the serial
    kernels serve every size: a parallel region on one thread only adds its start (SpMV of 1e4
    entries: 49-53 us parallel on one thread, 39 us serial)."""
    import numba
    from numba.np.ufunc import parallel

    _kernels("_threads").layer()  # starts numba's pool the way sparray starts it (layer, spin)
    getter = getattr(parallel, "_get_num_threads", None)
    return getter if callable(getter) else numba.get_num_threads


def _product_keys(st, x):
    """The registry's JIT keys of the general path's call for this product (with and without the
    finiteness report)."""
    args = (st.ptr, st.idx, st.values, x)
    return (_jit.key_of("matmul_dense", "csr", args), _jit.key_of("matmul_dense", "csr", (*args, True)))


def _present_minor(st):
    """The minor indices (a CSR's columns) that hold at least one entry, increasing (int64): a
    property of the pattern, found by one pass over the plain indices and kept."""
    if st.present is None:
        st.present = _kernels("occupancy").used_minor(st.idx, st.nminor)  # a parallel pass
    return st.present


def _unread_minor(st):
    """The columns of the CSR that hold no entry, increasing (int64; ``A @ x`` never reads those
    rows of x), kept: the complement of :func:`_present_minor` (one parallel pass) for arrays of
    at least :data:`UNREAD_FIRST` entries, else of a NumPy mask (no kernel to load: 10-20 us at
    1e4 entries)."""
    if st.unread is None:
        if st.present is None and st.values.shape[0] < UNREAD_FIRST:
            mask = np.ones(st.nminor, dtype=bool)
            mask[st.idx] = False
            st.unread = np.flatnonzero(mask)
            return st.unread
        present = _present_minor(st)
        if present.shape[0] == st.nminor:
            st.unread = present[:0]
        else:
            mask = np.ones(st.nminor, dtype=bool)
            mask[present] = False
            st.unread = np.flatnonzero(mask)
    return st.unread


#: An array of at least this many entries finds its unread columns (:func:`_unread_minor`) on its
#: first product, a smaller one on its second: that pass is once per array, and from here on it
#: costs less than the product it comes with, so the calls after the first all cost the same (at
#: 1e5 entries the second SpMV took 6.6 ms against 0.04 ms for the others); a one-off small
#: product checks x instead (cheaper than a pass over the columns).
UNREAD_FIRST = 1 << 15


@functools.cache
def _device_matmul():
    """``_lean_device.matmul``, imported on the first product with a non-NumPy operand."""
    from .._engine.lean_device import matmul

    return matmul


def matmul(A, x):
    """``A @ x`` for a CSR ``A`` and a dense NumPy ``x`` (``(K,)`` or ``(K, N)``) of A's dtype, or
    None when the general path must serve the call (see the module docstring).

    Exact as the general path is: with a zero fill, an element of ``A @ x`` is the dense product's
    whenever the rows of x that no entry reads are finite. The kernel reports whether y is all
    finite; a finite y of an array whose every column holds an entry is the answer, and otherwise
    the rows of x that no entry reads are checked for finiteness (once the array has kept which
    they are; a one-off product checks all of x), the general path taking over when one is not."""
    if type(x) is not np.ndarray:
        if type(x).__module__ == "builtins" or A.__dict__.get("_lean_device") is False:
            return None
        return _device_matmul()(A, x)  # x on a GPU (or the simulated device)
    st = A.__dict__.get("_lean")
    if st is None:
        st = lean_of(A)
    if not st or st.layout != "csr" or not st.zero_fill:
        return None
    if x.dtype != st.dtype or not x.flags.c_contiguous:
        return None
    K = st.nminor
    if x.ndim == 1:
        if x.shape[0] != K:
            return None
        x2, N = x, 1  # reshaped to (K, 1) only for the parallel kernel
    elif x.ndim == 2:
        if x.shape[0] != K or x.shape[1] == 0:
            return None
        x2, N = x, x.shape[1]
    else:
        return None
    if _forced():
        return None
    M = st.nmajor
    if "matmul" not in st.warm and not _warm(st, "matmul", lambda: _product_keys(st, x), (st.values.shape[0] + M) * N):
        return None
    spmm = _kernels("spmm")
    if st.mv is None:  # kept: the SpMV loop (short rows or not), the SpMM tile, the work of one column
        nse = st.values.shape[0]
        st.mv = (nse < spmm.SHORT_ROWS * M, spmm.tile_of(st.dtype), nse + M)
    short, tile, work = st.mv
    if work * N >= _SERIAL_WORK[0] and _THREADS[0]() > 1:
        y = np.empty((M, N), st.dtype)
        status = spmm.csr_matmul_into(st.ptr, st.idx, st.values, x2.reshape(K, N), y, serial=False)
        out = y.reshape(M) if x.ndim == 1 else y
    elif x.ndim == 1:
        out = np.empty(M, st.dtype)
        status = spmm.csr_spmv_serial(st.ptr, st.idx, st.values, x, out, short)
    else:
        out = np.empty((M, N), st.dtype)
        status = spmm.csr_matmul_serial(st.ptr, st.idx, st.values, x2, out, tile, short)
    if status & _BAD_STATUS:
        return _invalid(A)
    st.products += 1
    if status == 0:  # a finite product: every row of x it read was finite
        unread = st.unread
        if unread is None and (st.products > 1 or x.size > st.values.shape[0] or st.values.shape[0] >= UNREAD_FIRST):
            unread = _unread_minor(st)  # one pass over the columns, once per array
        if unread is not None:
            if unread.shape[0] == 0:
                return out
            if 4 * unread.shape[0] < K:  # only the rows of x that no entry reads remain to check
                return out if _finite(x.take(unread, axis=0)) else None
    # the rows of x no entry reads (or, for a non-finite y, all of x) must be finite: a one-off
    # product checks x (a pass over x costs less than one over the columns)
    return out if _finite(x) else None


def _finite(x) -> bool:
    """Whether every element of ``x`` is finite (integers always are)."""
    if x.dtype.kind in "iu":
        return True
    if x.size <= 4096:  # a short test without the errstate's cost (isfinite never warns)
        return bool(np.isfinite(x).all())
    with np.errstate(all="ignore"):  # one pass, no temporary: inf - inf or an overflow reads nan/inf
        return bool(np.isfinite(x.sum()))


# --- sum(A, axis=0 or 1) ----------------------------------------------------------------------------
#: sums over the major axis (a CSR's column sums) of this many entries plus columns and more go
#: through the general path's parallel scatter (benchmarks/crossover.py); below, one thread adds
#: them in entry order and keeps the columns that hold an entry on the way
MAJOR_SUM_SERIAL_MAX = 1 << 18

_COO = []


def _coo_class():
    if not _COO:
        from .._array.coo import COO

        _COO.append(COO)
    return _COO[0]


def reduce_axis_device(A, kind, axis):
    """``lean_device_reduce.reduce_axis`` (sum, max or min along one axis on a GPU), imported on
    the first such call, or None for the general path (at once for NumPy data)."""
    if type(A._values) is np.ndarray:
        return None
    if not _DEVICE_REDUCE:
        from .lean_device_reduce import reduce_axis

        _DEVICE_REDUCE.append(reduce_axis)
    return _DEVICE_REDUCE[0](A, kind, axis)


_DEVICE_REDUCE = []


def sum_axis(A, axis):
    """``sparray.sum(A, axis=axis)`` (no dtype, no keepdims) of a 2-D CSR or CSC with a zero fill
    and a floating or complex dtype, for ``axis`` 0 or 1 (or -2, -1), or None for the general path.

    The result is the general path's: a 1-D COO over the kept axis holding the sum of every row
    (column) with at least one entry, in order, the others unspecified with fill 0. Along the
    compressed axis's runs (a CSR's rows, axis=1) each run is summed left to right
    (``group_reduce_rows``' order); across it (a CSR's columns, axis=0) the entries are added in
    order into a zeroed accumulator, as the general path's scatter adds them on one thread."""
    if type(A._values) is not np.ndarray:
        return reduce_axis_device(A, "sum", axis)
    st = A.__dict__.get("_lean")
    if st is None:
        st = lean_of(A)
    if not st or not st.zero_fill or st.dtype.kind not in "fc" or type(axis) is not int:
        return None
    if axis < 0:
        axis += 2
    if axis not in (0, 1) or _forced():
        return None
    n = st.values.shape[0]
    if (axis == 1) == (st.layout == "csr"):  # the minor axis: runs between the pointers
        if "sum_runs" not in st.warm and not _warm(st, "sum_runs", lambda: _sum_runs_keys(st), n + st.nmajor):
            return None
        try:
            keys, sums = _kernels("group_reduce").sum_runs_into(st.ptr, st.values)
        except ValueError:
            return _invalid(A)
        kept = st.nmajor
    else:
        if 2 * st.nmajor <= _FEW_MAJOR_ROWS and 8 * st.nminor >= n and _few_wide_rows(A):
            return None  # the general path adds a few wide rows pairwise, with no dense accumulator
        if "sum_by_key" not in st.warm and not _warm(st, "sum_by_key", lambda: _sum_by_key_keys(st), n + st.nminor):
            return None
        scatter = _kernels("scatter")
        try:
            if n + st.nminor < MAJOR_SUM_SERIAL_MAX:
                keys, sums = scatter.sum_by_key_into(st.idx, st.values, st.nminor)
            else:  # the general path's parallel scatter; the columns with entries are the pattern's, kept
                keys = _present_minor(st)
                sums = scatter.scatter_sum(st.idx, st.values.reshape(n, 1), st.nminor).reshape(st.nminor)[keys]
        except ValueError:
            return _invalid(A)
        kept = st.nminor
    np.add(sums, 0.0, out=sums)  # a zero sum is +0.0, as NumPy's (``_core.fill.sum_zero``, in place)
    indices = keys.astype(st.ptr.dtype).reshape(1, keys.shape[0])
    return _coo_class()._from_parts(A._xp, indices, sums, (kept,), np.zeros((), st.dtype), coalesced=True)


_FEW_MAJOR_ROWS = 32  # twice _reductions_compressed._FEW_MAJOR: a cheap test before the exact one


def _few_wide_rows(A) -> bool:
    """Whether the general path sums ``A`` over its major axis by pairwise merges of its rows
    (``_reductions_compressed.merges_few_major``: a Dask reduction's partial sums)."""
    from .._functions.reductions_compressed import merges_few_major

    return merges_few_major(A._xp, A, (A._major,), "sum", A.dtype)


def _sum_runs_keys(st):
    """The general path's key: ``group_reduce`` [csr] of the pointers and the values as (n, 1)."""
    return (_jit.key_of("group_reduce", "csr", (st.ptr, st.values.reshape(-1, 1), "sum")),)


def _sum_by_key_keys(st):
    """The general path's key: ``scatter_sum`` [coo] of the plain indices, the values with a column
    of ones beside them (n, 2), the number of keys and the sortedness hint."""
    both = np.empty((0, 2), st.dtype)
    return (_jit.key_of("scatter_sum", "coo", (st.idx, both, st.nminor, False)),)


# --- A + B, A * s -------------------------------------------------------------------------------------
_FUSED = frozenset(np.dtype(t).str for t in (np.float32, np.float64, np.int32, np.int64))


def add(A, B):
    """``A + B`` for two CSR (or two CSC) arrays of one shape and dtype (float32/64, int32/64), or None
    for the general path. The union of the two patterns, each value plus the other's fill where the
    other has no entry, the fill ``fa + fb``: the general path's merge, through the same row loop.
    Two arrays that share their index arrays add their values entry by entry."""
    if type(B) is not type(A):
        return None
    sa = A.__dict__.get("_lean")
    if sa is None:
        sa = lean_of(A)
    sb = B.__dict__.get("_lean")
    if sb is None:
        sb = lean_of(B)
    if not sa or not sb or sa.shape != sb.shape or sa.dtype != sb.dtype or sa.ptr.dtype != sb.ptr.dtype:
        return None
    if sa.dtype.str not in _FUSED or _forced():
        return None
    fill = A._fill + B._fill
    if type(fill) is not np.ndarray:
        fill = np.asarray(fill)
    if sa.ptr is sb.ptr and sa.idx is sb.idx:  # one pattern: values meet entry for entry
        return A._replace_values(sa.values + sb.values, fill)
    n = sa.values.shape[0] + sb.values.shape[0]
    if "add" not in sa.warm and not _warm(sa, "add", lambda: _add_keys(sa, sb), n):
        return None
    try:
        ptr, minor, vals = _kernels("binary_rows").union_into(sa.ptr, sa.idx, sa.values, A._fill, sb.ptr, sb.idx,
                                                             sb.values, B._fill, "add")
    except ValueError:
        return _invalid(A, B)
    return type(A)._from_parts(A._xp, ptr, minor, vals, sa.shape, fill)


def _add_keys(sa, sb):
    """The general path's key: ``merge_apply`` [csr] of two arrays with (n, 1) values and (1,) fills."""
    v = sa.values.reshape(-1, 1)
    f = np.empty(1, sa.dtype)
    args = (sa.ptr, sa.idx, v, f, sb.ptr, sb.idx, v, f, sa.nminor, "union", "add")
    return (_jit.key_of("merge_apply", "csr", args),)


_SCALARS = (float, int)


def multiply(A, s):
    """``A * s`` for a 2-D NumPy CSR or CSC of a floating or complex dtype and a Python ``float`` or
    ``int`` ``s``, or None for the general path: the same index arrays, ``values * s`` and the fill
    ``fill * s`` (NumPy's rules for a Python scalar: the array's dtype is kept)."""
    if type(s) not in _SCALARS:
        return None
    st = A.__dict__.get("_lean")
    if st is None:
        st = lean_of(A)
    if not st or st.dtype.kind not in "fc" or _forced():
        return None
    fill = A._fill * s
    return A._replace_values(st.values * s, fill if type(fill) is np.ndarray else np.asarray(fill, st.dtype))


# --- conversions --------------------------------------------------------------------------------------
def to_dense(A):
    """``A.to_dense()`` of a 2-D NumPy CSR or CSC (any 0-d fill), or None for the general path: a
    CSR's rows each set to the fill and given their entries in one pass over the result (in
    parallel for large results), a CSC's entries written into a filled array on one thread."""
    st = A.__dict__.get("_lean")
    if st is None:
        st = lean_of(A)
    if not st or _forced():
        return None
    M, N = st.shape
    if st.layout == "csc" and M * N >= _CSC_DENSE_SERIAL_MAX:
        return None  # the general path's rows in parallel, then its transpose
    if "to_dense" not in st.warm and not _warm(st, "to_dense", lambda: _to_dense_keys(st), M * N + st.values.shape[0]):
        return None
    try:
        return _kernels("compress").to_dense_into(st.ptr, st.idx, st.values, A._fill, st.shape, st.layout == "csr")
    except ValueError:
        return _invalid(A)


_CSC_DENSE_SERIAL_MAX = 1 << 22  # a CSC's dense result above this many elements: the general path


def _to_dense_keys(st):
    args = (st.ptr, st.idx, st.values.reshape(-1, 1), np.empty(1, st.dtype), st.nminor)
    return (_jit.key_of("compressed_to_dense", "csr", args),)


def to_layout(A, layout):
    """``A.to_layout(layout)`` from a 2-D NumPy CSR to CSC or back (the counting-sort transpose), or
    from a 2-D NumPy COO to CSR (see :func:`coo_to_csr`), or None for the general path."""
    if A.layout == "coo":
        return coo_to_csr(A) if layout == "csr" else None
    st = A.__dict__.get("_lean")
    if st is None:
        st = lean_of(A)
    if not st or layout not in ("csr", "csc") or layout == st.layout or _forced():
        return None
    n = st.values.shape[0]
    if "transpose" not in st.warm and not _warm(st, "transpose", lambda: _transpose_keys(st), n):
        return None
    try:
        t_off, t_minor, t_values = _kernels("compress").transpose_into(st.ptr, st.idx, st.values, st.nminor)
    except ValueError:
        return _invalid(A)
    from .._layout.compress import LAYOUT_CLASSES

    return LAYOUT_CLASSES[layout]._from_parts(A._xp, t_off, t_minor, t_values, st.shape, A._fill)


def _transpose_keys(st):
    args = (st.ptr, st.idx, st.values.reshape(-1, 1), 1, st.nmajor, st.nminor, st.ptr.dtype)
    return (_jit.key_of("transpose_compressed", "csr", args),)


def coo_to_csr(A):
    """The CSR of a 2-D NumPy COO without dense dims (in any order, duplicates allowed), or None for
    the general path. The general path's result: duplicates summed left to right in input order
    (as ``coalesce`` sums them), columns sorted within each row, the index dtype of
    ``index_dtype_for``.

    One read of both index arrays checks them (the COO's validation, when it has not run) and
    finds out whether they are in row order (``compress.coo_row_order``). A COO in row order with
    strictly increasing columns in each row (coalesced: what ``csr.tocoo()`` gives, or a COO built
    row by row) becomes a CSR that SHARES its column indices (a view of row 1 of ``A.indices``) and
    its values with ``A``, as torch's ``to_sparse_csr`` does: only the row pointers are new; ``A``
    is then known to be coalesced. Otherwise a counting pass over the rows, and each row sorted
    (``compress.coo_to_csr_into``): new buffers."""
    if A.__dict__.get("_lean") is False:
        return None
    ind, values = A._indices, A._values
    if (type(ind) is not np.ndarray or ind.shape[0] != 2 or values.ndim != 1 or values.shape[0] == 0
            or ind.dtype.str not in _INDEX_DTYPES or values.dtype.str not in _VALUE_DTYPES or 0 in A._shape):
        A._lean = False
        return None
    if _forced():
        return None
    n = values.shape[0]
    if not A.__dict__.get("_lean_warm"):
        if not _warm_now(lambda: (_coalesce_key(A),), n):
            return None
        A._lean_warm = True
    if _CSR_CLASS is None:
        _load_csr()
    idt = _index_dtype_for(A._xp, A._shape, n, ind)
    rows, cols = ind[0], ind[1]
    if not ind.flags.c_contiguous:
        rows, cols = np.ascontiguousarray(rows), np.ascontiguousarray(cols)
    if not values.flags.c_contiguous:
        values = np.ascontiguousarray(values)
    nrows, ncols = A._shape
    compress = _kernels("compress")
    try:
        ptr, col, vals = compress.coo_to_csr_into(rows, cols, values, nrows, ncols, idt)
    except ValueError:
        return _invalid(A)  # names the first index out of range (the COO's own check)
    A._checked = True  # every index was checked against the shape on the way
    if vals is values:  # the entries were in row order, each once: A is coalesced
        A._coalesced = True
    return _CSR_CLASS._from_parts(A._xp, ptr, col, vals, A._shape, A._fill)


_CSR_CLASS = None
_index_dtype_for = None


def _load_csr():
    global _CSR_CLASS, _index_dtype_for
    from .._layout.compress import CSR
    from .._core.keys import index_dtype_for

    _CSR_CLASS, _index_dtype_for = CSR, index_dtype_for


def _coalesce_key(A):
    """The general path's key: ``coalesce`` [coo] of int64 linear keys and (n, 1) values."""
    return _jit.key_of("coalesce", "coo", (np.empty(0, np.int64), A._values.reshape(-1, 1)))
