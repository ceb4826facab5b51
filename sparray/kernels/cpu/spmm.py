"""Products of a sparse matrix with a dense vector or matrix: ``y = A @ x``.

- :func:`csr_matmul_dense` -- A in CSR (row pointers, column indices, values).
- :func:`csc_matmul_dense` -- A in CSC (column pointers, row indices, values).
- :func:`bsr_matmul_dense` -- A in BSR (block-row pointers, block columns, (nse, bh, bw) blocks).
- :func:`bsc_matmul_dense` -- A in BSC (block-column pointers, block rows, (nse, bh, bw) blocks).

Conventions.  Index inputs are 1-D int32 or int64 arrays; the pointer and index arrays of one
call share a dtype (other integer dtypes, or two different ones, are converted to int64).
``values`` (or ``blocks``) and ``x`` have the same dtype, one of (u)int8..64, float32/64 or
complex64/128 (anything else, bool included, raises KernelDeclined).  ``x`` is ``(K,)`` (SpMV)
or ``(K, N)`` (SpMM); the result ``y`` is freshly allocated with x's dtype and shape ``(M,)`` or
``(M, N)``, accumulated in that dtype (integers wrap around as in NumPy; a floating product may be
fused into its sum, as CUDA does), every element written.
A 1-D ``x`` is handled as a ``(K, 1)`` view, so each kernel compiles once per (value dtype,
index dtype); ``N == 1`` takes the scalar (SpMV) path.

Parallel scheme.  CSR/BSR: rows are cut into chunks balanced by entries + rows (power-law rows
do not starve a thread), 2 to 16 per thread (one per ``CHUNK_WORK``), which the threads claim one
at a time (:func:`._common.claim`): a thread that starts late or whose core another process keeps
busy takes fewer, and since each chunk writes only its own rows the bits do not depend on who took
it.  Each row (or block row) is accumulated in registers (SpMV, which prefetches its streams
ahead, or on short rows checks a block of rows' indices before it sums them and prefetches 4 KiB
ahead at every row; eight columns of x as one vector, :func:`_vec_row`; BSR/BSC unroll 4x4
blocks) or in a small padded buffer over column tiles of ``x`` of ``_TILE_BYTES`` (other SpMM
widths) and written once.
CSC/BSC: the *output* rows are cut into one range per thread; every thread walks all columns
and finds the run of each column's entries that falls into its range (row indices are sorted
within a column: a binary search, or for the last range a backward scan), so it writes only its
own rows of ``y`` (allocated zeroed): no atomics, no per-thread copies of ``y``.  On one thread
that is a plain scatter, which also serves columns whose rows turn out unsorted.  Small inputs
run on the calling thread alone (:func:`._threads.team`).  Each operation calls one
parallel kernel; its per-chunk loops are plain ``njit`` helpers compiled into it.  Loops index
with uint64 (numba adds no negative-index wraparound code for unsigned indices).

Safety.  No index or pointer is used as an address before it is checked: a pointer outside
``[0, nse]`` or smaller than its predecessor, or a minor index outside its range, stops the
chunk and the wrapper raises ValueError naming the first offending position (found with NumPy
on that error path).  Shape mismatches raise ValueError with both shapes.

>>> import numpy as np
>>> csr_matmul_dense(np.array([0, 2, 2, 3]), np.array([0, 2, 1]), np.array([1.0, 2.0, 3.0]),
...                  np.array([1.0, 10.0, 100.0])).tolist()
[201.0, 0.0, 30.0]
>>> csc_matmul_dense(np.array([0, 1, 2, 3]), np.array([0, 2, 0]), np.array([1.0, 3.0, 2.0]),
...                  np.array([1.0, 10.0, 100.0]), 3).tolist()
[201.0, 0.0, 30.0]
"""

import numba
import numpy as np
from llvmlite import ir
from numba import types
from numba.core import cgutils
from numba.extending import intrinsic, overload

from .. import KernelDeclined
from .._spmm_args import as_blocks, bsc_rows, bsr_block_cols, csc_rows, diagnose, ends
from ._common import (
    EXPECTED_DTYPES,
    NUMERIC_DTYPES,
    SERIAL_WORK,
    as_index,
    claim,
    prefetch_read,
    row_splits,
)
from . import _cache  # noqa: F401  (compiled kernels go to the per-user cache, see _cache.py)
from ._threads import team

__all__ = ["bsc_matmul_dense", "bsr_matmul_dense", "csc_matmul_dense", "csr_matmul_dense", "csr_matmul_into",
           "csr_matmul_serial", "csr_spmv_serial", "tile_of"]

# "contract": a product and the sum it goes into may be fused (FMA, one rounding instead of two);
# nan, inf and the order of the sums stay as written. Poisson SpMV, 1e7 entries, Xeon VM: 2 threads
# 8.5 -> 7.8-8.0 ms, 1 thread 16.6 -> 15.3 ms.
_JIT = dict(cache=True, nogil=True, fastmath={"contract"})
_PJIT = dict(cache=True, nogil=True, parallel=True, fastmath={"contract"})

# SpMM accumulates an output row over tiles of this many bytes of columns of x.
_TILE_BYTES = 256
# The row-split (CSR/BSR) kernels cut their rows into chunks of about CHUNK_WORK units of work
# (entries + rows, times the columns of x), at least _MIN and at most _MAX of them per thread,
# which the threads claim one at a time.
CHUNK_WORK = 1 << 16
_MIN_CHUNKS_PER_THREAD = 2
_MAX_CHUNKS_PER_THREAD = 16
#: from this much work (entries + rows, times the columns of x) a CSR/BSR product keeps a thread on
#: a core that another process keeps busy (``team(shared=)``): its chunks are claimed, so that
#: thread holds the call back by one chunk at most
SHARED_WORK = 1 << 22

# kernel status codes (per chunk / thread)
_OK, _BAD_POINTER, _BAD_INDEX = 0, 1, 2
# added to _OK by the CSR/BSR row loops when a written element of y is not finite
_NONFINITE = 4


# ---------------------------------------------------------------------------------------
# argument checks (Python)
# ---------------------------------------------------------------------------------------


def _indices(fname, ptr, pname, idx, iname):
    """(ptr, idx) as C-contiguous 1-D arrays of one dtype, int32 or int64."""
    ptr = as_index(ptr, pname, fname)
    idx = as_index(idx, iname, fname)
    if ptr.dtype != idx.dtype:
        ptr = ptr.astype(np.int64)
        idx = idx.astype(np.int64)
    if ptr.shape[0] == 0:
        raise ValueError(f"{fname}: {pname} must have at least one element ({pname}[0] = 0)")
    return np.ascontiguousarray(ptr), np.ascontiguousarray(idx)


def _operands(fname, values, vname, x):
    """(values, x2, is_vector): values C-contiguous, x as a C-contiguous 2-D (K, N) array."""
    values = np.asarray(values)
    x = np.asarray(x)
    expected = EXPECTED_DTYPES
    if values.dtype != x.dtype:
        raise KernelDeclined(
            f"{fname}: {vname} ({values.dtype}) and x ({x.dtype}) must have the same dtype, "
            f"{expected}; cast one of them or use the generic implementation"
        )
    if values.dtype not in NUMERIC_DTYPES:
        raise KernelDeclined(
            f"{fname}: {vname} and x have dtype {values.dtype}; expected {expected}; "
            "cast them or use the generic implementation"
        )
    if x.ndim == 1:
        return np.ascontiguousarray(values), np.ascontiguousarray(x).reshape(x.shape[0], 1), True
    if x.ndim != 2:
        raise ValueError(f"{fname}: x must be 1-D (K,) or 2-D (K, N), got shape {x.shape}")
    return np.ascontiguousarray(values), np.ascontiguousarray(x), False


def _tile(dtype):
    return max(1, _TILE_BYTES // dtype.itemsize)


def tile_of(dtype):
    """Elements of ``dtype`` in one SpMM column tile (the ``tile`` of :func:`csr_matmul_serial`)."""
    return _tile(np.dtype(dtype))


def _result(y2, vector, report_finite=False, finite=True):
    y = y2.reshape(y2.shape[0]) if vector else y2
    return (y, bool(finite)) if report_finite else y


# ---------------------------------------------------------------------------------------
# shared jitted helpers
# ---------------------------------------------------------------------------------------

# Loops index with uint64 (numba adds no negative-index wraparound for unsigned indices);
# every index is range-checked before it is used.
(_U0, _U1, _U2, _U3, _U4, _U5, _U6, _U7, _U8,
 _U9, _U10, _U11, _U12, _U13, _U14, _U15, _U16) = (np.uint64(v) for v in range(17))
# padding (elements) around the per-chunk SpMM accumulators, so that two threads' buffers
# never share a cache line
_PAD = 64
# BSR/BSC SpMV prefetch the blocks this many elements ahead (measured: 4x4 SpMV ~1.3x faster
# on 2 threads; a core alone does not keep enough misses in flight on that stream).
_AHEAD = np.uint64(1024)
# CSR SpMV prefetches, this many entries ahead, a row's column indices and every cache line of
# its values. Measured on a Zen 5 VM, 2 threads, 1e7-entry kernels: Poisson 4.7 -> 3.2 ms,
# uniform random 8.8 -> 6.6 ms, the 4x4-block stencil (20 entries a row) 2.6 -> 2.3 ms, R-MAT
# unchanged. (On the Xeon VM of earlier sessions a prefetch-free loop was faster.)
_MV_AHEAD = np.uint64(256)
# CSR SpMV on rows of fewer than this many entries on average takes _csr_mv_short_rows, which
# checks a block of _SHORT_BLOCK rows at a time (Xeon VM, 2 threads, against _csr_mv_rows: Poisson
# (5 a row) 1.5x faster, uniform (10) 1.1x faster, the 4x4-block stencil (20) 1.1x slower).
_SHORT_ROWS = 12
SHORT_ROWS = _SHORT_ROWS  # for callers of csr_matmul_serial
_SHORT_BLOCK = np.uint64(64)
# How far ahead (bytes) the short-row CSR SpMV asks, at every row, for the values and column
# indices, and the 4x4 BSR SpMV for the block columns (the hardware's streamer stops at each 4 KiB
# page). Xeon VM, 2 threads, 1e7 entries, with FMA: Poisson 7.9-8.1 -> 6.1-6.3 ms (torch's MKL
# 7.1-7.3 ms); uniform and R-MAT, whose time goes to gathering x, unchanged (prefetching x through
# the column indices ahead made them 10-20% slower).
_AHEAD_BYTES = 4096


@numba.njit(inline="always", **_JIT)
def _finite(v):
    """Whether ``v`` is finite (inf - inf and nan - nan are nan; always True for integers)."""
    return (v - v) == 0


# ---------------------------------------------------------------------------------------
# one output row over eight columns of x, as one vector (SpMM with N == 8)
# ---------------------------------------------------------------------------------------

# numba leaves LLVM's SLP vectoriser off (NUMBA_SLP_VECTORIZE=0), so eight sums in eight scalar
# variables stay eight scalar FMAs per entry (vfmadd231sd, checked with inspect_asm), and eight
# loads of x; a loop over the eight columns is unrolled and scalarised the same way. The row
# loop below is therefore written in LLVM IR: the eight sums are one <8 x T> value, each entry
# one vector load of its row of x and one vector FMA (float) or multiply-add (integers), the
# same operations per column and in the same order as the scalar loop (the same bits).
_VEC = 8


def _vec_row_codegen(context, builder, signature, args):
    """IR of :func:`_vec_row`: see its docstring."""
    colt, valt, xt, yt = signature.args[:4]
    col = context.make_array(colt)(context, builder, args[0])
    vals = context.make_array(valt)(context, builder, args[1])
    xa = context.make_array(xt)(context, builder, args[2])
    ya = context.make_array(yt)(context, builder, args[3])
    i, t0, k0, uhi, uK = args[4:]
    i64 = ir.IntType(64)
    i32 = ir.IntType(32)
    floating = isinstance(valt.dtype, types.Float)
    T = context.get_value_type(valt.dtype)
    size = context.get_abi_sizeof(T)
    V = ir.VectorType(T, _VEC)
    xs = cgutils.unpack_tuple(builder, xa.strides, 2)
    ys = cgutils.unpack_tuple(builder, ya.strides, 2)
    xbase = builder.add(builder.ptrtoint(xa.data, i64), builder.mul(t0, xs[1]))
    zero = ir.Constant(V, [ir.Constant(T, 0.0 if floating else 0)] * _VEC)
    splat_mask = ir.Constant(ir.VectorType(i32, _VEC), [0] * _VEC)
    if floating:
        name = f"llvm.fma.v{_VEC}f{8 * size}"
        fma = cgutils.get_or_insert_function(builder.module, ir.FunctionType(V, [V, V, V]), name)

    fn = builder.function
    entry = builder.block
    head = fn.append_basic_block("vrow.head")
    body = fn.append_basic_block("vrow.body")
    step = fn.append_basic_block("vrow.step")
    done = fn.append_basic_block("vrow.done")
    bad = fn.append_basic_block("vrow.bad")
    out = fn.append_basic_block("vrow.out")
    builder.branch(head)

    builder.position_at_end(head)  # k < uhi ?
    k = builder.phi(i64)
    acc = builder.phi(V)
    k.add_incoming(k0, entry)
    acc.add_incoming(zero, entry)
    builder.cbranch(builder.icmp_unsigned("<", k, uhi), body, done)

    builder.position_at_end(body)  # j = col[k], checked before it is used
    c = builder.load(builder.gep(col.data, [k]))
    j = builder.sext(c, i64) if c.type.width < 64 else c
    builder.cbranch(builder.icmp_unsigned(">=", j, uK), bad, step)

    builder.position_at_end(step)  # acc += values[k] * x[j, t0 : t0 + 8]
    v = builder.load(builder.gep(vals.data, [k]))
    vv = builder.shuffle_vector(builder.insert_element(ir.Constant(V, ir.Undefined), v, ir.Constant(i32, 0)),
                                ir.Constant(V, ir.Undefined), splat_mask)
    xv = builder.load(builder.inttoptr(builder.add(xbase, builder.mul(j, xs[0])), V.as_pointer()), align=size)
    nxt = builder.call(fma, [vv, xv, acc]) if floating else builder.add(acc, builder.mul(vv, xv))
    k.add_incoming(builder.add(k, ir.Constant(i64, 1)), step)
    acc.add_incoming(nxt, step)
    builder.branch(head)

    builder.position_at_end(done)  # y[i, t0 : t0 + 8] = acc; finite: acc - acc == 0 in every lane
    yaddr = builder.add(builder.ptrtoint(ya.data, i64), builder.add(builder.mul(i, ys[0]), builder.mul(t0, ys[1])))
    builder.store(acc, builder.inttoptr(yaddr, V.as_pointer()), align=size)
    if floating:
        lanes = builder.fcmp_ordered("==", builder.fsub(acc, acc), ir.Constant(V, [ir.Constant(T, 0.0)] * _VEC))
        every = builder.icmp_unsigned("==", builder.bitcast(lanes, ir.IntType(_VEC)), ir.Constant(ir.IntType(_VEC), -1))
        status = builder.select(every, ir.Constant(i64, _OK), ir.Constant(i64, _NONFINITE))
    else:
        status = ir.Constant(i64, _OK)
    builder.branch(out)

    builder.position_at_end(bad)
    builder.branch(out)

    builder.position_at_end(out)
    result = builder.phi(i64)
    result.add_incoming(status, done)
    result.add_incoming(ir.Constant(i64, _BAD_INDEX), bad)
    return result


@intrinsic
def _vec_row(typingctx, col, values, x, y, i, t0, k, uhi, uK):
    """``y[i, t0 : t0 + 8] = sum over entries k .. uhi - 1 of values[k] * x[col[k], t0 : t0 + 8]``
    for real (float, integer) values, the eight sums one vector: each entry one vector load and
    one FMA (floats; integers a multiply and an add), entries in order, so every column is summed
    as the scalar loop sums it. Each ``col[k]`` is checked against ``uK`` before it is used: the
    status is ``_BAD_INDEX`` then (y untouched), else ``_OK``, or ``_NONFINITE`` when one of the
    eight sums is not finite. ``x`` and ``y`` are 2-D arrays with at least ``t0 + 8`` columns; all
    positions are uint64."""
    if not all(isinstance(a, types.Array) for a in (col, values, x, y)):
        return None
    if not isinstance(values.dtype, (types.Float, types.Integer)) or values.dtype != x.dtype or x.dtype != y.dtype:
        return None
    return types.int64(col, values, x, y, i, t0, k, uhi, uK), _vec_row_codegen


# ---------------------------------------------------------------------------------------
# CSR / BSR: rows split into chunks balanced by entries
# ---------------------------------------------------------------------------------------


@numba.njit(**_JIT)
def _csr_mv_rows(crow, col, values, xv, yv, r0, r1, lo):
    """Rows [r0, r1) of y = A @ x for one column (N == 1), x and y given as 1-D views ``xv``,
    ``yv``; lo = crow[r0] >= 0.  Returns a status.

    Each row is summed in four independent
    accumulators (four entries per step), so the additions do not wait on each other (measured:
    ~10-15% faster on the 1e7-entry Poisson matrix, 2 threads). The result differs from a
    left-to-right sum by rounding only."""
    nse = np.int64(col.shape[0])
    uK = np.uint64(xv.shape[0])
    zero = yv.dtype.type(0)
    ok = True
    for i in range(r0, r1):
        hi = np.int64(crow[i + _U1])
        if hi < lo or hi > nse:
            return _BAD_POINTER
        k = np.uint64(lo)
        uhi = np.uint64(hi)
        prefetch_read(col, k + _MV_AHEAD)
        p = k + _MV_AHEAD
        while p <= uhi + _MV_AHEAD:
            prefetch_read(values, p)
            p += _U8
        s0 = zero
        s1 = zero
        s2 = zero
        s3 = zero
        while k + _U3 < uhi:
            j0 = np.uint64(col[k])
            j1 = np.uint64(col[k + _U1])
            j2 = np.uint64(col[k + _U2])
            j3 = np.uint64(col[k + _U3])
            if j0 >= uK or j1 >= uK or j2 >= uK or j3 >= uK:
                return _BAD_INDEX
            s0 += values[k] * xv[j0]
            s1 += values[k + _U1] * xv[j1]
            s2 += values[k + _U2] * xv[j2]
            s3 += values[k + _U3] * xv[j3]
            k += _U4
        while k < uhi:
            j0 = np.uint64(col[k])
            if j0 >= uK:
                return _BAD_INDEX
            s0 += values[k] * xv[j0]
            k += _U1
        t = (s0 + s1) + (s2 + s3)
        yv[i] = t
        ok &= _finite(t)
        lo = hi
    return _OK if ok else _NONFINITE


@numba.njit(**_JIT)
def _csr_mv_short_rows(crow, col, values, xv, yv, r0, r1, lo):
    """``_csr_mv_rows`` for short rows (a few entries each): rows go in blocks of
    ``_SHORT_BLOCK``, and each block's pointers and column indices are checked first, in two
    loops of their own that vectorise (a pairwise comparison, a min and a max), so the loop over
    the entries reads and multiplies with no test per entry; each row is summed in two
    accumulators, and the block's sums are tested for finiteness in one more loop. Each row
    prefetches the values and column indices 4 KiB ahead of it. On a row of
    five entries the tests beside each entry and the four-accumulator set-up were most of the
    work: Poisson, 1e7 entries, 2 threads, on an Intel Xeon VM 1.6-2.0x torch's (MKL) time ->
    1.15-1.3x; rows of 20 entries run faster through ``_csr_mv_rows``."""
    nse = np.uint64(col.shape[0])
    uK = np.uint64(xv.shape[0])
    zero = yv.dtype.type(0)
    ahead_values = np.uint64(_AHEAD_BYTES // values.itemsize)
    ahead_col = np.uint64(_AHEAD_BYTES // col.itemsize)
    ok = True
    i0 = r0
    ulo = np.uint64(lo)
    while i0 < r1:
        i1 = min(i0 + _SHORT_BLOCK, r1)
        # crow[i0] = ulo was checked (>= 0, or the end of the block before); the rest of the
        # block's pointers must not decrease, and the last must be at most nse
        up = True
        for i in range(i0, i1):
            up &= crow[i + _U1] >= crow[i]
        hi = np.int64(crow[i1])
        if not up or hi > np.int64(nse):
            return _BAD_POINTER
        uhi = np.uint64(hi)
        if uhi > ulo:
            cmin = col[ulo]
            cmax = col[ulo]
            for k in range(ulo, uhi):
                c = col[k]
                cmin = min(cmin, c)
                cmax = max(cmax, c)
            if cmin < 0 or np.uint64(cmax) >= uK:
                return _BAD_INDEX
        k = ulo
        for i in range(i0, i1):
            h = np.uint64(crow[i + _U1])
            prefetch_read(values, k + ahead_values)  # a hint: never faults, even past the end
            prefetch_read(col, k + ahead_col)
            s0 = zero
            s1 = zero
            while k + _U1 < h:
                s0 += values[k] * xv[np.uint64(col[k])]
                s1 += values[k + _U1] * xv[np.uint64(col[k + _U1])]
                k += _U2
            if k < h:
                s0 += values[k] * xv[np.uint64(col[k])]
                k += _U1
            yv[i] = s0 + s1
        fin = True
        for i in range(i0, i1):
            fin &= _finite(yv[i])
        ok &= fin
        ulo = uhi
        i0 = i1
    return _OK if ok else _NONFINITE


@numba.njit(inline="always", **_JIT)
def _csr_mm8_row_scalar(col, values, x, y, i, t0, k, uhi, uK):
    """:func:`_vec_row` for complex values: eight sums held in eight variables, every entry added
    in order. (A buffer indexed by a run-time width makes the compiler load and store the sums at
    every step: 1e4 entries, 8 columns, one thread 39.5 -> 31 us.)"""
    zero = y.dtype.type(0)
    a0 = a1 = a2 = a3 = a4 = a5 = a6 = a7 = zero
    while k < uhi:
        j = np.uint64(col[k])
        if j >= uK:
            return _BAD_INDEX
        v = values[k]
        a0 += v * x[j, t0]
        a1 += v * x[j, t0 + _U1]
        a2 += v * x[j, t0 + _U2]
        a3 += v * x[j, t0 + _U3]
        a4 += v * x[j, t0 + _U4]
        a5 += v * x[j, t0 + _U5]
        a6 += v * x[j, t0 + _U6]
        a7 += v * x[j, t0 + _U7]
        k += _U1
    y[i, t0] = a0
    y[i, t0 + _U1] = a1
    y[i, t0 + _U2] = a2
    y[i, t0 + _U3] = a3
    y[i, t0 + _U4] = a4
    y[i, t0 + _U5] = a5
    y[i, t0 + _U6] = a6
    y[i, t0 + _U7] = a7
    ok = _finite(a0) & _finite(a1) & _finite(a2) & _finite(a3)
    ok &= _finite(a4) & _finite(a5) & _finite(a6) & _finite(a7)
    return _OK if ok else _NONFINITE


def _csr_mm8_row(col, values, x, y, i, t0, k, uhi, uK):
    """Row ``i`` of ``y = A @ x`` over the eight columns ``t0 .. t0 + 8`` of x (entries ``k ..
    uhi``), inside numba code: :func:`_vec_row` for real values, :func:`_csr_mm8_row_scalar` for
    complex ones. Returns ``_OK``, ``_NONFINITE`` (a sum is not finite) or ``_BAD_INDEX``."""
    raise NotImplementedError("_csr_mm8_row is called from numba code only")


@overload(_csr_mm8_row, jit_options=dict(nogil=True, fastmath={"contract"}))
def _csr_mm8_row_typed(col, values, x, y, i, t0, k, uhi, uK):
    if isinstance(values.dtype, types.Complex):
        return lambda col, values, x, y, i, t0, k, uhi, uK: _csr_mm8_row_scalar(col, values, x, y, i, t0, k, uhi, uK)
    return lambda col, values, x, y, i, t0, k, uhi, uK: _vec_row(col, values, x, y, i, t0, k, uhi, uK)


@numba.njit(**_JIT)
def _csr_mm_rows(crow, col, values, x, y, r0, r1, lo, tile):
    """Rows [r0, r1) of y = A @ x for N > 1 columns: each output row is accumulated over column
    tiles of x in a (padded) buffer and written once. Entries go four at a time: one pass over
    the tile adds four rows of x (their four sums first), so four rows of x are read at once and
    the buffer is loaded and stored once per four entries (R-MAT x32 268 -> 228 ms, uniform
    -9 to -22%, 2 threads; two at a time gained nothing, eight less than four)."""
    nse = np.int64(col.shape[0])
    K, N = x.shape
    uK = np.uint64(K)
    uN = np.uint64(N)
    utile = np.uint64(tile)
    zero = y.dtype.type(0)
    buf = np.empty(tile + 2 * _PAD, y.dtype)
    acc = buf[_PAD : _PAD + tile]
    ok = True
    for i in range(r0, r1):
        hi = np.int64(crow[i + _U1])
        if hi < lo or hi > nse:
            return _BAD_POINTER
        uhi = np.uint64(hi)
        for t0 in range(_U0, uN, utile):
            tw = min(utile, uN - t0)
            if tw == _U8:  # eight columns: the sums live in registers (one vector), not in the buffer
                status = _csr_mm8_row(col, values, x, y, i, t0, np.uint64(lo), uhi, uK)
                if status == _BAD_INDEX:
                    return status
                ok &= status == _OK
                continue
            for q in range(tw):
                acc[q] = zero
            k = np.uint64(lo)
            while k + _U4 <= uhi:
                j0, j1 = np.uint64(col[k]), np.uint64(col[k + _U1])
                j2, j3 = np.uint64(col[k + _U2]), np.uint64(col[k + _U3])
                if j0 >= uK or j1 >= uK or j2 >= uK or j3 >= uK:
                    return _BAD_INDEX
                v0, v1, v2, v3 = values[k], values[k + _U1], values[k + _U2], values[k + _U3]
                for q in range(tw):
                    c = t0 + q
                    acc[q] += v0 * x[j0, c] + v1 * x[j1, c] + v2 * x[j2, c] + v3 * x[j3, c]
                k += _U4
            for k in range(k, uhi):
                j = np.uint64(col[k])
                if j >= uK:
                    return _BAD_INDEX
                v = values[k]
                for q in range(tw):
                    acc[q] += v * x[j, t0 + q]
            for q in range(tw):
                y[i, t0 + q] = acc[q]
                ok &= _finite(acc[q])
        lo = hi
    return _OK if ok else _NONFINITE


@numba.njit(**_JIT)
def _csr_chunk(crow, col, values, x, y, r0, r1, tile, short):
    """Rows [r0, r1) of y = A @ x (one chunk of :func:`_csr`, or every row on one thread); returns
    the row loop's status."""
    lo = np.int64(crow[r0])
    if lo < 0:
        return _BAD_POINTER
    if x.shape[1] == 1:  # SpMV, through 1-D views of x and y
        xv = x.reshape(x.shape[0])
        yv = y.reshape(y.shape[0])
        if short:
            return _csr_mv_short_rows(crow, col, values, xv, yv, r0, r1, lo)
        return _csr_mv_rows(crow, col, values, xv, yv, r0, r1, lo)
    return _csr_mm_rows(crow, col, values, x, y, r0, r1, lo, tile)


@numba.njit(**_PJIT)
def _csr(crow, col, values, x, y, nw, nchunks, tile, short):
    """y = A @ x for CSR A (nse > 0), x (K, N), y (M, N), the rows cut by :func:`row_splits` into
    ``nchunks`` chunks that the threads claim one at a time (a thread whose core is busy
    elsewhere takes fewer; each chunk writes only its own rows, so the bits do not depend on who
    took it). Returns the statuses of all chunks or-ed together.  ``short``: SpMV through
    ``_csr_mv_short_rows`` (the wrapper picks it by the mean row length)."""
    splits = row_splits(crow, nchunks)
    status = np.zeros(nw, np.int64)
    counter = np.zeros(1, np.int64)
    for w in numba.prange(nw):
        s = _OK
        c = claim(counter)
        while c < nchunks:
            s |= _csr_chunk(crow, col, values, x, y, np.uint64(splits[c]), np.uint64(splits[c + 1]), tile, short)
            c = claim(counter)
        status[w] = s
    out = _OK
    for w in range(nw):
        out |= status[w]
    return out


@numba.njit(**_JIT)
def csr_matmul_serial(crow, col, values, x, y, tile, short):
    """``_csr`` on the calling thread, every row in one chunk (the same row loops, so the same
    result to the bit); one status, not an array: no parallel region to wake for small products.
    ``tile``: :func:`tile_of` the dtype; ``short``: ``nse < SHORT_ROWS * M`` (the SpMV loop for
    short rows). For callers that keep those per array (the lean paths); else :func:`csr_matmul_into`."""
    return _csr_chunk(crow, col, values, x, y, _U0, np.uint64(crow.shape[0] - 1), tile, short)


@numba.njit(**_JIT)
def csr_spmv_serial(crow, col, values, xv, yv, short):
    """:func:`csr_matmul_serial` for one column, on 1-D ``xv`` (K,) and ``yv`` (M,): the same row
    loops, so the same bits; the vector needs no reshaping on the way (the lean paths' SpMV)."""
    lo = np.int64(crow[0])
    if lo < 0:
        return _BAD_POINTER
    r1 = np.uint64(crow.shape[0] - 1)
    if short:
        return _csr_mv_short_rows(crow, col, values, xv, yv, _U0, r1, lo)
    return _csr_mv_rows(crow, col, values, xv, yv, _U0, r1, lo)


def _nchunks(work):
    """Chunks for the claim loops of ``_csr``/``_bsr`` (inside a team): one chunk per
    ``CHUNK_WORK`` units of work, at least ``_MIN_CHUNKS_PER_THREAD`` and at most
    ``_MAX_CHUNKS_PER_THREAD`` per thread."""
    nt = numba.get_num_threads()
    if nt == 1:
        return 1
    return max(nt * _MIN_CHUNKS_PER_THREAD, min(nt * _MAX_CHUNKS_PER_THREAD, work // CHUNK_WORK))


def csr_matmul_into(crow, col, values, x2, y, serial=None):
    """``y[...] = A @ x2`` for a CSR A whose operands are already in the kernels' form: ``crow``
    and ``col`` 1-D C-contiguous of one dtype (int32/int64), ``crow[0] == 0``, ``crow[-1] ==
    nse``, at least one row and one entry; ``values`` (nse,) and ``x2`` (K, N) C-contiguous of one
    dtype of :data:`NUMERIC_DTYPES`; ``y`` (M, N) C-contiguous. No conversion and no argument
    check beyond the kernel's own (each pointer and column index is still checked before use):
    the entry of the lean paths (``sparray._products.lean``), which prove these once per array.

    Runs on the calling thread below ``SERIAL_WORK`` entries and rows times columns (the
    crossover measured in ``benchmarks/crossover.py``), else in parallel (``serial`` True or False
    forces one: the two give the same bits, each row being summed by the same loop). Returns the kernel's
    status: 0 (or ``_NONFINITE``, set when some element of y is not finite) when every index was
    valid; anything else means a bad pointer or index (call :func:`csr_matmul_dense` or
    ``diagnose`` for the message)."""
    M, N = y.shape
    nse = col.shape[0]
    short = nse < _SHORT_ROWS * M
    work = (nse + M) * N
    if work < SERIAL_WORK if serial is None else serial:
        _SERIAL_RAN.add((values.dtype, crow.dtype, N == 1))
        return csr_matmul_serial(crow, col, values, x2, y, max(1, _TILE_BYTES // x2.itemsize), short)
    with team(work, 0, SHARED_WORK) as threads:  # parallel-sized (or forced): the threads this call may have
        if threads == 1 and (values.dtype, crow.dtype, N == 1) in _SERIAL_RAN:
            # the serial twin (the same row loops, the same bits) without a parallel region's start;
            # only once it ran in this process, so that a busy core never makes a call compile it
            return csr_matmul_serial(crow, col, values, x2, y, max(1, _TILE_BYTES // x2.itemsize), short)
        return _csr(crow, col, values, x2, y, numba.get_num_threads(), _nchunks(work), _tile(x2.dtype), short)


_SERIAL_RAN: set = set()  # (values dtype, index dtype, one column) for which csr_matmul_serial ran


def csr_matmul_dense(crow, col, values, x, report_finite=False):
    """``A @ x`` for a CSR matrix A and a dense vector or matrix x.

    Parameters
    ----------
    crow : int32/int64[M + 1] row pointers (crow[0] = 0, non-decreasing, crow[-1] = nse).
    col : int32/int64[nse] column indices, each in [0, K).
    values : (nse,) values, same dtype as x.
    x : (K,) or (K, N) dense array.

    report_finite : also return whether every element of y is finite (checked as y is written).

    Returns
    -------
    y : (M,) or (M, N) array of x's dtype, y = A @ x; ``(y, finite)`` with ``report_finite``.

    Parallel over chunks of rows balanced by entries.  Raises ValueError for a bad pointer, a
    column index out of range or mismatched shapes; KernelDeclined for an unsupported dtype.

    >>> csr_matmul_dense(np.array([0, 1, 3]), np.array([1, 0, 1]), np.array([2, 3, 4]),
    ...                  np.array([[1, 2], [10, 20]])).tolist()
    [[20, 40], [43, 86]]
    """
    fname = "csr_matmul_dense"
    crow, col = _indices(fname, crow, "crow", col, "col")
    values, x2, vector = _operands(fname, values, "values", x)
    nse = col.shape[0]
    if values.shape != (nse,):
        raise ValueError(f"{fname}: values has shape {values.shape} but col has shape {col.shape}")
    M = crow.shape[0] - 1
    K, N = x2.shape
    ends(fname, crow, "crow", nse)
    y = np.empty((M, N), x2.dtype)
    if M == 0 or N == 0 or nse == 0 or K == 0:
        diagnose(fname, crow, "crow", col, "col", K, "columns")
        y[...] = 0
        return _result(y, vector, report_finite, True)
    status = csr_matmul_into(crow, col, values, x2, y)
    if status & ~_NONFINITE:
        diagnose(fname, crow, "crow", col, "col", K, "columns")
        raise AssertionError(f"{fname}: the kernel reported invalid input that was not found")
    return _result(y, vector, report_finite, not status & _NONFINITE)


@numba.njit(**_JIT)
def _bsr_mv4_rows(crow, col, blocks, x, y, r0, r1, lo):
    """Block rows [r0, r1) of y = A @ x, 4x4 blocks, one column.  The blocks are read through a
    flat view (constant offsets from each block's start, so LLVM can vectorise the loads).
    Every cache line of a block is prefetched _AHEAD elements ahead, and each block row asks for
    the block columns 4 KiB ahead (Xeon VM, 2 threads, 1e7 entries, float64: one line of each
    block prefetched 4.5 ms, both lines 3.7 ms, torch's MKL 4.5 ms)."""
    nse = np.int64(col.shape[0])
    uKB = np.uint64(x.shape[0] // 4)
    zero = y.dtype.type(0)
    bf = blocks.reshape(blocks.size)
    line = np.uint64(max(1, 64 // blocks.itemsize))  # elements per 64-byte cache line
    ahead_col = np.uint64(_AHEAD_BYTES // col.itemsize)
    ok = True
    for i in range(r0, r1):
        hi = np.int64(crow[i + _U1])
        if hi < lo or hi > nse:
            return _BAD_POINTER
        prefetch_read(col, np.uint64(lo) + ahead_col)
        s0 = zero
        s1 = zero
        s2 = zero
        s3 = zero
        for k in range(np.uint64(lo), np.uint64(hi)):
            jb = np.uint64(col[k])
            if jb >= uKB:
                return _BAD_INDEX
            j = jb * _U4
            x0 = x[j, _U0]
            x1 = x[j + _U1, _U0]
            x2 = x[j + _U2, _U0]
            x3 = x[j + _U3, _U0]
            o = k * _U16
            for q in range(_U0, _U16, line):  # every cache line of the block _AHEAD ahead
                prefetch_read(bf, o + _AHEAD + q)
            s0 += (bf[o] * x0 + bf[o + _U1] * x1) + (bf[o + _U2] * x2 + bf[o + _U3] * x3)
            s1 += (bf[o + _U4] * x0 + bf[o + _U5] * x1) + (bf[o + _U6] * x2 + bf[o + _U7] * x3)
            s2 += (bf[o + _U8] * x0 + bf[o + _U9] * x1) + (bf[o + _U10] * x2 + bf[o + _U11] * x3)
            s3 += (bf[o + _U12] * x0 + bf[o + _U13] * x1) + (bf[o + _U14] * x2 + bf[o + _U15] * x3)
        o = i * _U4
        y[o, _U0] = s0
        y[o + _U1, _U0] = s1
        y[o + _U2, _U0] = s2
        y[o + _U3, _U0] = s3
        ok &= _finite(s0) & _finite(s1) & _finite(s2) & _finite(s3)
        lo = hi
    return _OK if ok else _NONFINITE


@numba.njit(**_JIT)
def _bsr_mv_rows(crow, col, blocks, x, y, r0, r1, lo):
    """Block rows [r0, r1) of y = A @ x, any block shape, one column."""
    nse, bh, bw = blocks.shape
    ubh = np.uint64(bh)
    ubw = np.uint64(bw)
    uKB = np.uint64(x.shape[0] // bw)
    zero = y.dtype.type(0)
    bsize = ubh * ubw
    bf = blocks.reshape(blocks.size)
    buf = np.empty(bh + 2 * _PAD, y.dtype)
    acc = buf[_PAD : _PAD + bh]
    ok = True
    for i in range(r0, r1):
        hi = np.int64(crow[i + _U1])
        if hi < lo or hi > nse:
            return _BAD_POINTER
        for p in range(ubh):
            acc[p] = zero
        for k in range(np.uint64(lo), np.uint64(hi)):
            jb = np.uint64(col[k])
            if jb >= uKB:
                return _BAD_INDEX
            prefetch_read(bf, k * bsize + _AHEAD)
            prefetch_read(col, k + _AHEAD)
            j = jb * ubw
            for p in range(ubh):
                s = acc[p]
                for q in range(ubw):
                    s += blocks[k, p, q] * x[j + q, _U0]
                acc[p] = s
        for p in range(ubh):
            y[i * ubh + p, _U0] = acc[p]
            ok &= _finite(acc[p])
        lo = hi
    return _OK if ok else _NONFINITE


@numba.njit(**_JIT)
def _bsr_mm4_rows(crow, col, blocks, x, y, r0, r1, lo, tile):
    """Block rows [r0, r1) of y = A @ x, 4x4 blocks, N > 1 columns (tiles of x, four
    accumulator rows)."""
    nse = np.int64(col.shape[0])
    K, N = x.shape
    uKB = np.uint64(K // 4)
    uN = np.uint64(N)
    utile = np.uint64(tile)
    zero = y.dtype.type(0)
    buf = np.empty(4 * tile + 2 * _PAD, y.dtype)
    a0 = buf[_PAD : _PAD + tile]
    a1 = buf[_PAD + tile : _PAD + 2 * tile]
    a2 = buf[_PAD + 2 * tile : _PAD + 3 * tile]
    a3 = buf[_PAD + 3 * tile : _PAD + 4 * tile]
    ok = True
    for i in range(r0, r1):
        hi = np.int64(crow[i + _U1])
        if hi < lo or hi > nse:
            return _BAD_POINTER
        for t0 in range(_U0, uN, utile):
            tw = min(utile, uN - t0)
            for t in range(tw):
                a0[t] = zero
                a1[t] = zero
                a2[t] = zero
                a3[t] = zero
            for k in range(np.uint64(lo), np.uint64(hi)):
                jb = np.uint64(col[k])
                if jb >= uKB:
                    return _BAD_INDEX
                j = jb * _U4
                b = blocks[k]
                _axpy4(a0, b[_U0], x, j, t0, tw)
                _axpy4(a1, b[_U1], x, j, t0, tw)
                _axpy4(a2, b[_U2], x, j, t0, tw)
                _axpy4(a3, b[_U3], x, j, t0, tw)
            o = i * _U4
            for t in range(tw):
                y[o, t0 + t] = a0[t]
                y[o + _U1, t0 + t] = a1[t]
                y[o + _U2, t0 + t] = a2[t]
                y[o + _U3, t0 + t] = a3[t]
                ok &= _finite(a0[t]) & _finite(a1[t]) & _finite(a2[t]) & _finite(a3[t])
        lo = hi
    return _OK if ok else _NONFINITE


@numba.njit(inline="always", **_JIT)
def _axpy4(acc, b, x, j, t0, tw):
    """acc[t] += b[0] x[j, t0 + t] + ... + b[3] x[j + 3, t0 + t] for t < tw."""
    b0 = b[_U0]
    b1 = b[_U1]
    b2 = b[_U2]
    b3 = b[_U3]
    for t in range(tw):
        tt = t0 + t
        acc[t] += (b0 * x[j, tt] + b1 * x[j + _U1, tt]) + (b2 * x[j + _U2, tt] + b3 * x[j + _U3, tt])


@numba.njit(**_JIT)
def _bsr_mm_rows(crow, col, blocks, x, y, r0, r1, lo, tile):
    """Block rows [r0, r1) of y = A @ x, any block shape, N > 1 columns."""
    nse, bh, bw = blocks.shape
    K, N = x.shape
    ubh = np.uint64(bh)
    ubw = np.uint64(bw)
    uKB = np.uint64(K // bw)
    uN = np.uint64(N)
    utile = np.uint64(tile)
    zero = y.dtype.type(0)
    buf = np.empty(bh * tile + 2 * _PAD, y.dtype)
    acc = buf[_PAD : _PAD + bh * tile]
    ok = True
    for i in range(r0, r1):
        hi = np.int64(crow[i + _U1])
        if hi < lo or hi > nse:
            return _BAD_POINTER
        for t0 in range(_U0, uN, utile):
            tw = min(utile, uN - t0)
            for t in range(ubh * utile):
                acc[t] = zero
            for k in range(np.uint64(lo), np.uint64(hi)):
                jb = np.uint64(col[k])
                if jb >= uKB:
                    return _BAD_INDEX
                j = jb * ubw
                for p in range(ubh):
                    a = p * utile
                    for q in range(ubw):
                        v = blocks[k, p, q]
                        for t in range(tw):
                            acc[a + t] += v * x[j + q, t0 + t]
            for p in range(ubh):
                a = p * utile
                for t in range(tw):
                    y[i * ubh + p, t0 + t] = acc[a + t]
                    ok &= _finite(acc[a + t])
        lo = hi
    return _OK if ok else _NONFINITE


@numba.njit(**_JIT)
def _bsr_chunk(crow, col, blocks, x, y, r0, r1, tile):
    """Block rows [r0, r1) of y = A @ x (one chunk of :func:`_bsr`); returns the row loop's status."""
    _, bh, bw = blocks.shape
    lo = np.int64(crow[r0])
    if lo < 0:
        return _BAD_POINTER
    four = bh == 4 and bw == 4
    if x.shape[1] == 1:
        if four:
            return _bsr_mv4_rows(crow, col, blocks, x, y, r0, r1, lo)
        return _bsr_mv_rows(crow, col, blocks, x, y, r0, r1, lo)
    if four:
        return _bsr_mm4_rows(crow, col, blocks, x, y, r0, r1, lo, tile)
    return _bsr_mm_rows(crow, col, blocks, x, y, r0, r1, lo, tile)


@numba.njit(**_PJIT)
def _bsr(crow, col, blocks, x, y, nw, nchunks, tile):
    """y = A @ x for BSR A (blocks (nse, bh, bw), nse > 0), x (KB * bw, N), y (MB * bh, N): block
    rows in ``nchunks`` chunks claimed as in :func:`_csr`. Returns the chunks' statuses or-ed."""
    splits = row_splits(crow, nchunks)
    status = np.zeros(nw, np.int64)
    counter = np.zeros(1, np.int64)
    for w in numba.prange(nw):
        s = _OK
        c = claim(counter)
        while c < nchunks:
            s |= _bsr_chunk(crow, col, blocks, x, y, np.uint64(splits[c]), np.uint64(splits[c + 1]), tile)
            c = claim(counter)
        status[w] = s
    out = _OK
    for w in range(nw):
        out |= status[w]
    return out


def bsr_matmul_dense(crow, col, blocks, x, report_finite=False):
    """``A @ x`` for a BSR matrix A and a dense vector or matrix x.

    Parameters
    ----------
    crow : int32/int64[MB + 1] block-row pointers (crow[0] = 0, non-decreasing, crow[-1] = nse).
    col : int32/int64[nse] block-column indices, each in [0, K // bw).
    blocks : (nse, bh, bw) blocks, same dtype as x: blocks[k, p, q] = A[i * bh + p, col[k] * bw + q]
        for the block row i of entry k.
    x : (K,) or (K, N) dense array, K a multiple of bw.
    report_finite : also return whether every element of y is finite (checked as y is written).

    Returns
    -------
    y : (MB * bh,) or (MB * bh, N) array of x's dtype, y = A @ x; ``(y, finite)`` with ``report_finite``.

    Parallel over chunks of block rows balanced by blocks; 4x4 blocks have unrolled paths.
    Raises ValueError for a bad pointer, a block column out of range or mismatched shapes;
    KernelDeclined for an unsupported dtype.

    >>> bsr_matmul_dense(np.array([0, 1]), np.array([1]), np.arange(4.0).reshape(1, 2, 2),
    ...                  np.array([0.0, 0.0, 1.0, 10.0])).tolist()
    [10.0, 32.0]
    """
    fname = "bsr_matmul_dense"
    crow, col = _indices(fname, crow, "crow", col, "col")
    blocks, x2, vector = _operands(fname, blocks, "blocks", x)
    nse = col.shape[0]
    blocks = as_blocks(fname, blocks, nse, "col")
    _, bh, bw = blocks.shape
    MB = crow.shape[0] - 1
    K, N = x2.shape
    KB = bsr_block_cols(fname, K, bw, x.shape, blocks.shape)
    ends(fname, crow, "crow", nse)
    y = np.empty((MB * bh, N), x2.dtype)
    if MB == 0 or N == 0 or nse == 0 or K == 0:
        diagnose(fname, crow, "crow", col, "col", KB, "block columns")
        y[...] = 0
        return _result(y, vector, report_finite, True)
    work = (nse * bh * bw + MB * bh) * N
    with team(work, shared=SHARED_WORK):
        status = _bsr(crow, col, blocks, x2, y, numba.get_num_threads(), _nchunks(work), _tile(x2.dtype))
    if status & ~_NONFINITE:
        diagnose(fname, crow, "crow", col, "col", KB, "block columns")
        raise AssertionError(f"{fname}: the kernel reported invalid input that was not found")
    return _result(y, vector, report_finite, not status & _NONFINITE)


# ---------------------------------------------------------------------------------------
# CSC / BSC: output rows split into one range per thread
# ---------------------------------------------------------------------------------------


@numba.njit(**_JIT)
def _run_start(row, lo, hi, r0, last):
    """Start of the run of entries lo..hi - 1 (rows sorted) with rows >= r0 > 0: a backward
    linear scan for the last thread (whose run is the column's tail), else a binary search."""
    if last:
        k = hi
        while k > lo and np.int64(row[k - _U1]) >= r0:
            k -= _U1
        return k
    while lo < hi:
        mid = (lo + hi) >> _U1
        if np.int64(row[mid]) < r0:
            lo = mid + _U1
        else:
            hi = mid
    return lo


@numba.njit(**_JIT)
def _csc_range(ccol, row, values, x, y, r0, r1):
    """Adds to y (zeroed by the caller) the part of A @ x in output rows [r0, r1): in each
    column, the run of entries with rows in [r0, r1) that starts at the first row >= r0 (found
    by :func:`_run_start` when r0 > 0).  Writes no other row.  Returns (status, number of
    entries handled)."""
    nse = np.int64(row.shape[0])
    K, N = x.shape
    last = r1 == y.shape[0]
    uN = np.uint64(N)
    ur0 = np.uint64(r0)
    span = np.uint64(r1 - r0)
    n = 0
    lo = np.int64(ccol[0])
    if lo < 0:
        return _BAD_POINTER, n
    for j in range(np.uint64(min(K, ccol.shape[0] - 1))):
        hi = np.int64(ccol[j + _U1])
        if hi < lo or hi > nse:
            return _BAD_POINTER, n
        k = np.uint64(lo)
        uhi = np.uint64(hi)
        lo = hi
        if k == uhi:
            continue
        if r0 > 0:
            if np.int64(row[uhi - _U1]) < r0:
                continue
            k = _run_start(row, k, uhi, r0, last)
        k0 = k
        if N == 1:
            xj = x[j, _U0]
            while k < uhi:
                r = np.uint64(np.int64(row[k]) - r0)
                if r >= span:
                    break
                y[r + ur0, _U0] += values[k] * xj
                k += _U1
        else:
            while k < uhi:
                r = np.uint64(np.int64(row[k]) - r0)
                if r >= span:
                    break
                r += ur0
                v = values[k]
                for q in range(uN):
                    y[r, q] += v * x[j, q]
                k += _U1
        n += np.int64(k - k0)
    return _OK, n


@numba.njit(**_PJIT)
def _csc(ccol, row, values, x, y, nthreads):
    """y = A @ x for CSC A (nse > 0), x (K, N), y (M, N); thread t owns the output rows
    [M t / T, M (t + 1) / T).  Returns (status, entries handled) per thread: every entry was
    handled exactly once iff all statuses are _OK and the counts add up to nse."""
    M = y.shape[0]
    status = np.zeros(nthreads, np.int64)
    done = np.zeros(nthreads, np.int64)
    for t in numba.prange(nthreads):
        status[t], done[t] = _csc_range(ccol, row, values, x, y, M * t // nthreads, M * (t + 1) // nthreads)
    return status, done


@numba.njit(**_JIT)
def _bsc_range(ccol, row, blocks, x, y, r0, r1):
    """:func:`_csc_range` over the block rows [r0, r1)."""
    nse, bh, bw = blocks.shape
    K, N = x.shape
    ubh = np.uint64(bh)
    ubw = np.uint64(bw)
    uN = np.uint64(N)
    ur0 = np.uint64(r0)
    span = np.uint64(r1 - r0)
    four = bh == 4 and bw == 4
    last = r1 * bh == y.shape[0]
    bf = blocks.reshape(blocks.size)
    n = 0
    lo = np.int64(ccol[0])
    if lo < 0:
        return _BAD_POINTER, n
    for jb in range(np.uint64(min(K // bw, ccol.shape[0] - 1))):
        hi = np.int64(ccol[jb + _U1])
        if hi < lo or hi > nse:
            return _BAD_POINTER, n
        k = np.uint64(lo)
        uhi = np.uint64(hi)
        lo = hi
        if k == uhi:
            continue
        if r0 > 0:
            if np.int64(row[uhi - _U1]) < r0:
                continue
            k = _run_start(row, k, uhi, r0, last)
        k0 = k
        j = jb * ubw
        if N == 1 and four:
            x0 = x[j, _U0]
            x1 = x[j + _U1, _U0]
            x2 = x[j + _U2, _U0]
            x3 = x[j + _U3, _U0]
            while k < uhi:
                r = np.uint64(np.int64(row[k]) - r0)
                if r >= span:
                    break
                o = (r + ur0) * _U4
                b = k * _U16
                prefetch_read(bf, b + _AHEAD)
                y[o, _U0] += (bf[b] * x0 + bf[b + _U1] * x1) + (bf[b + _U2] * x2 + bf[b + _U3] * x3)
                y[o + _U1, _U0] += (bf[b + _U4] * x0 + bf[b + _U5] * x1) + (bf[b + _U6] * x2 + bf[b + _U7] * x3)
                y[o + _U2, _U0] += (bf[b + _U8] * x0 + bf[b + _U9] * x1) + (bf[b + _U10] * x2 + bf[b + _U11] * x3)
                y[o + _U3, _U0] += (bf[b + _U12] * x0 + bf[b + _U13] * x1) + (bf[b + _U14] * x2 + bf[b + _U15] * x3)
                k += _U1
        elif four:
            while k < uhi:
                r = np.uint64(np.int64(row[k]) - r0)
                if r >= span:
                    break
                o = (r + ur0) * _U4
                b = blocks[k]
                _axpy4(y[o], b[_U0], x, j, _U0, uN)
                _axpy4(y[o + _U1], b[_U1], x, j, _U0, uN)
                _axpy4(y[o + _U2], b[_U2], x, j, _U0, uN)
                _axpy4(y[o + _U3], b[_U3], x, j, _U0, uN)
                k += _U1
        else:
            while k < uhi:
                r = np.uint64(np.int64(row[k]) - r0)
                if r >= span:
                    break
                o = (r + ur0) * ubh
                for p in range(ubh):
                    for q in range(ubw):
                        v = blocks[k, p, q]
                        for s in range(uN):
                            y[o + p, s] += v * x[j + q, s]
                k += _U1
        n += np.int64(k - k0)
    return _OK, n


@numba.njit(**_PJIT)
def _bsc(ccol, row, blocks, x, y, nthreads):
    """y = A @ x for BSC A (blocks (nse, bh, bw), nse > 0), x (KB * bw, N), y (MB * bh, N):
    :func:`_csc` over block rows."""
    MB = y.shape[0] // blocks.shape[1]
    status = np.zeros(nthreads, np.int64)
    done = np.zeros(nthreads, np.int64)
    for t in numba.prange(nthreads):
        status[t], done[t] = _bsc_range(ccol, row, blocks, x, y, MB * t // nthreads, MB * (t + 1) // nthreads)
    return status, done


def _csc_like(fname, kernel, ptr, idx, vals, x2, y, nse, work, bound, what, per):
    """Run a row-split kernel on y = 0; on an inconsistency name the bad input, or (rows
    unsorted within a column) redo it on one thread, where the scatter needs no order."""
    with team(work):
        nt = numba.get_num_threads()
        status, done = kernel(ptr, idx, vals, x2, y, nt)
    if status.any() or int(done.sum()) != nse:
        diagnose(fname, ptr, per[0], idx, per[1], bound, what)
        y[...] = 0
        with team(0):
            status, done = kernel(ptr, idx, vals, x2, y, 1)
        if status.any() or int(done.sum()) != nse:
            raise AssertionError(f"{fname}: the kernel reported invalid input that was not found")


def csc_matmul_dense(ccol, row, values, x, nrows):
    """``A @ x`` for a CSC matrix A of ``nrows`` rows and a dense vector or matrix x.

    Parameters
    ----------
    ccol : int32/int64[K + 1] column pointers (ccol[0] = 0, non-decreasing, ccol[-1] = nse).
    row : int32/int64[nse] row indices, each in [0, nrows), sorted within each column (for
        the parallel split; unsorted columns are still handled, on one thread).
    values : (nse,) values, same dtype as x.
    x : (K,) or (K, N) dense array.
    nrows : int >= 0, M.

    Returns
    -------
    y : (M,) or (M, N) array of x's dtype.

    Each thread owns a range of output rows and binary-searches its entries in every column
    (no atomics, no private copies of y).  Raises ValueError for a bad pointer, a row index out
    of range or mismatched shapes; KernelDeclined for an unsupported dtype.

    >>> csc_matmul_dense(np.array([0, 1, 3]), np.array([1, 0, 1]), np.array([2, 3, 4]),
    ...                  np.array([1, 10]), 2).tolist()
    [30, 42]
    """
    fname = "csc_matmul_dense"
    ccol, row = _indices(fname, ccol, "ccol", row, "row")
    values, x2, vector = _operands(fname, values, "values", x)
    nse = row.shape[0]
    if values.shape != (nse,):
        raise ValueError(f"{fname}: values has shape {values.shape} but row has shape {row.shape}")
    K = ccol.shape[0] - 1
    M = csc_rows(fname, nrows, K, ccol.shape, x2.shape[0], x.shape)
    N = x2.shape[1]
    ends(fname, ccol, "ccol", nse)
    y = np.zeros((M, N), x2.dtype)  # calloc: pages are zeroed on first touch, in parallel
    if M == 0 or N == 0 or nse == 0 or K == 0:
        diagnose(fname, ccol, "ccol", row, "row", M, "rows")
        y[:] = 0
        return _result(y, vector)
    _csc_like(fname, _csc, ccol, row, values, x2, y, nse, (nse + M + K) * N, M, "rows", ("ccol", "row"))
    return _result(y, vector)


def bsc_matmul_dense(ccol, row, blocks, x, nrows):
    """``A @ x`` for a BSC matrix A of ``nrows`` rows and a dense vector or matrix x.

    Parameters
    ----------
    ccol : int32/int64[KB + 1] block-column pointers (ccol[0] = 0, non-decreasing, ccol[-1] = nse).
    row : int32/int64[nse] block-row indices, each in [0, nrows // bh), sorted within each block
        column (unsorted columns are handled on one thread).
    blocks : (nse, bh, bw) blocks, same dtype as x, each in the matrix's own orientation:
        blocks[k, p, q] = A[row[k] * bh + p, jb * bw + q] for the block column jb of entry k.
    x : (KB * bw,) or (KB * bw, N) dense array.
    nrows : int >= 0, M, a multiple of bh.

    Returns
    -------
    y : (M,) or (M, N) array of x's dtype.

    Same scheme as :func:`csc_matmul_dense` over block rows.  Raises ValueError for a bad
    pointer, a block row out of range or mismatched shapes; KernelDeclined for an unsupported
    dtype.

    >>> bsc_matmul_dense(np.array([0, 0, 1]), np.array([0]), np.arange(4.0).reshape(1, 2, 2),
    ...                  np.array([0.0, 0.0, 1.0, 10.0]), 2).tolist()
    [10.0, 32.0]
    """
    fname = "bsc_matmul_dense"
    ccol, row = _indices(fname, ccol, "ccol", row, "row")
    blocks, x2, vector = _operands(fname, blocks, "blocks", x)
    nse = row.shape[0]
    blocks = as_blocks(fname, blocks, nse, "row")
    _, bh, bw = blocks.shape
    KB = ccol.shape[0] - 1
    M = bsc_rows(fname, nrows, bh, KB, bw, ccol.shape, blocks.shape, x2.shape[0], x.shape)
    N = x2.shape[1]
    ends(fname, ccol, "ccol", nse)
    y = np.zeros((M, N), x2.dtype)  # calloc: pages are zeroed on first touch, in parallel
    MB = M // bh
    if MB == 0 or N == 0 or nse == 0 or KB == 0:
        diagnose(fname, ccol, "ccol", row, "row", MB, "block rows")
        y[:] = 0
        return _result(y, vector)
    work = (nse * bh * bw + M + KB) * N
    _csc_like(fname, _bsc, ccol, row, blocks, x2, y, nse, work, MB, "block rows", ("ccol", "row"))
    return _result(y, vector)
