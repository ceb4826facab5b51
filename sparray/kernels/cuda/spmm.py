"""Products of a sparse matrix with a dense vector or matrix on a GPU, ``y = A @ x``: the CUDA twins
of ``kernels/cpu/spmm.py``, with its names, arguments, results and error messages.

- :func:`csr_matmul_dense` -- kernels picked by the longest row (a statistic kept per row
  pointer array, see :func:`longest_row`):
  ``csr_mv_rows`` (SpMV) / ``csr_mm_rows`` (SpMM) give each row a group of lanes (SpMV: 1 to 32
  lanes from the mean row length and a shuffle tree; SpMM: a thread per output element, the reads of
  a row of x coalesced). When the longest row is over ``SKEW_FACTOR`` times the mean and over
  ``SKEW_MIN`` entries (power-law graphs) the work is balanced by entries instead. SpMV: the merge
  path (``csr_merge_search`` / ``csr_merge_mv`` / ``csr_merge_fix``, see spmm.cu): rows and entries
  cut into equal tiles of ``32 * MERGE_IPT`` items, a warp each, carries added by fix-up levels in a
  fixed order (no atomics, bitwise repeatable, y not zeroed); the tile starts kept per pointer array
  (:func:`merge_partition`). SpMM: ``csr_split``: each thread takes ``CHUNK`` entries of one column
  of x, finds its first row by a binary search and flushes the rows it finishes (a plain store for
  a row wholly its own, an atomic add for a row shared with a neighbour chunk); kept for SpMM, where
  it already beats cuSPARSE on R-MAT (the merge path would walk each tile once per column of x).
- :func:`bsr_matmul_dense` -- ``bsr_rows``: a thread per output element, a block row's blocks
  multiplied row by row from registers.
- :func:`csc_matmul_dense`, :func:`bsc_matmul_dense` -- ``csc_scatter`` / ``bsc_scatter``: a thread
  per (entry, column of x), the entry's column found by a binary search in the column pointers, its
  product added to y with an atomic add (no transposed copy of A).

Results have x's dtype; integers wrap as in NumPy (computed in the unsigned twin, accumulated in at
least 32 bits and cut back); float sums follow the kernels' order (the atomic kernels' last bits
depend on the order the atomics land in). ``report_finite`` (CSR, BSR) comes from the same kernels.

Every kernel checks what it reads: pointers (inline, or by ``check_offsets`` before the entry-split
and column kernels; the merge kernels check every row they finish and that their walks join) and
indices; nothing bad is used as an address. The kernels report into one int64[3]
array read back once per call; on a bad input the launcher names the first offender with the numba
kernels' own message (copying the indices to the host on that error path only).

>>> import numpy as np
>>> csr_matmul_dense(np.array([0, 2, 2, 3]), np.array([0, 2, 1]), np.array([1.0, 2.0, 3.0]),
...                  np.array([1.0, 10.0, 100.0])).tolist()
[201.0, 0.0, 30.0]
"""

from __future__ import annotations

import functools
import numpy as np

from .. import KernelDeclined
from .._kept import KeptPerArray
from .._spmm_args import as_blocks, bsc_rows, bsr_block_cols, csc_rows, diagnose
from ._build import INDEX_TYPES, c_type, index_type
from ._driver import driver_for
from ._trust import inputs_proven
from ._operands import ACC_DTYPES, EXPECTED, PRODUCT_TYPES, host, index_pair, lanes_for, new_stats, numeric, read_stats

__all__ = ["bsc_matmul_dense", "bsr_matmul_dense", "csc_matmul_dense", "csr_matmul_dense", "csr_unread_nan", "longest_row",
           "remember_longest_row"]

SOURCE = "spmm.cu"
_KERNELS = ("csr_mv_rows", "csr_mm_rows", "csr_split", "csr_merge_mv", "bsr_rows", "csc_scatter", "bsc_scatter")
NAME_EXPRESSIONS = (
    tuple(f"check_offsets<{i}>" for i in INDEX_TYPES)
    + tuple(f"check_range<{i}>" for i in INDEX_TYPES)
    + tuple(f"csr_merge_search<{i}>" for i in INDEX_TYPES)
    + tuple(f"csr_merge_fix<{t}>" for t in PRODUCT_TYPES)
    + tuple(f"{k}<{i}, {t}>" for k in _KERNELS for i in INDEX_TYPES for t in PRODUCT_TYPES)
    + tuple(f"csr_unread_nan<{i}, {t}>" for i in INDEX_TYPES for t in ("float", "double"))
    + tuple(f"count_nonfinite<{t}>" for t in ("float", "double"))
)

#: csr_split takes over when the longest row is over SKEW_FACTOR x the mean and over SKEW_MIN entries
SKEW_FACTOR, SKEW_MIN = 16, 1024
#: entries per thread of csr_split
CHUNK = 32
#: merge items per lane of csr_merge_mv (1 to 7: its shared memory holds 7; CUB's DeviceSpmv takes
#: 7 per thread on every architecture since sm_50), and carries per lane of csr_merge_fix
MERGE_IPT, FIX_IPT = 7, 8

_BAD_POINTER, _BAD_INDEX, _NONFINITE = 1, 2, 4
_LONGEST = KeptPerArray()  # pointer array -> its longest row
_PARTITION = KeptPerArray()  # pointer array -> ((nse, ipt, stream), the merge path's tile starts)


def _operands(xp, fname, values, vname, x):
    """(values, x2 (K, N), is_vector, result dtype), as the numba kernels check them."""
    values, x = xp.asarray(values), xp.asarray(x)
    if values.dtype != x.dtype:
        raise KernelDeclined(
            f"{fname}: {vname} ({values.dtype}) and x ({x.dtype}) must have the same dtype, "
            f"{EXPECTED}; cast one of them or use the generic implementation"
        )
    dtype = x.dtype
    values, x = numeric(xp, values, vname, fname), numeric(xp, x, "x", fname)
    if x.ndim == 1:
        return values, x.reshape(x.shape[0], 1), True, dtype
    if x.ndim != 2:
        raise ValueError(f"{fname}: x must be 1-D (K,) or 2-D (K, N), got shape {x.shape}")
    return values, x, False, dtype


def _indices(xp, fname, ptr, pname, idx, iname):
    ptr, idx = index_pair(xp, ptr, idx, pname, iname, fname)
    if ptr.shape[0] == 0:
        raise ValueError(f"{fname}: {pname} must have at least one element ({pname}[0] = 0)")
    return ptr, idx


def _check_pointers(drv, ptr, nse, stats):
    drv.launch(SOURCE, f"check_offsets<{index_type(ptr.dtype)}>", ptr.shape[0],
               (ptr, np.int64(ptr.shape[0] - 1), np.int64(0), np.int64(nse), np.int32(1), stats))  # fmt: skip


def _check_indices(drv, idx, bound, stats):
    if idx.shape[0]:
        drv.launch(SOURCE, f"check_range<{index_type(idx.dtype)}>", idx.shape[0],
                   (idx, np.int64(0), np.int64(idx.shape[0]), np.int64(bound), stats))  # fmt: skip


def _raise_bad(report, fname, ptr, pname, idx, iname, bound, what):
    """Raise ValueError naming the first bad pointer or index when the kernels' report (the stats
    read back) says there is one; else return the report's flags."""
    first_bad, _, flags = report
    if first_bad < ptr.shape[0] or flags & (_BAD_POINTER | _BAD_INDEX):
        diagnose(fname, host(ptr), pname, host(idx), iname, bound, what)  # numba's words, on host copies
        raise AssertionError(f"{fname}: the kernel reported invalid input that was not found")
    return flags


def longest_row(ptr, nse) -> int:
    """The length of the longest row of pointers ``ptr`` (checked on the way: ValueError for bad
    ones), kept per pointer array for as long as the array lives, so a matrix multiplied many times
    pays the pass (and its read-back) once."""
    hit = _LONGEST.get(ptr)
    if hit is not None:
        return hit
    drv = driver_for(ptr)
    stats = new_stats(drv.xp, ptr.shape[0])
    _check_pointers(drv, ptr, nse, stats)
    first_bad, longest, _ = read_stats(stats)
    if first_bad < ptr.shape[0]:
        return -1
    _LONGEST.put(ptr, longest)
    return longest


def remember_longest_row(ptr, longest: int) -> None:
    """Keep ``longest`` (measured elsewhere: on the host before the array moved to the device) as
    the longest row of pointers ``ptr``, so its first product makes no pass and no read for it."""
    _LONGEST.put(ptr, int(longest))


def merge_plan(M, nse, ipt=MERGE_IPT, fix_ipt=FIX_IPT):
    """The launches of the merge-path SpMV of an M-row matrix of nse entries, all sizes known on the
    host: (tiles of csr_merge_mv, the fix-up levels as (input offset, carries, output offset,
    tiles), length of the carry arrays). Level 0's carries are [0, tiles); each level reads its
    input slice and writes the next one, until one carry is left."""
    ntiles = -(-(M + nse) // (32 * ipt))
    levels, off, n = [], 0, ntiles
    while n > 1:
        out = -(-n // (32 * fix_ipt))
        levels.append((off, n, off + n, out))
        off, n = off + n, out
    return ntiles, tuple(levels), off + n


def merge_partition(drv, crow, M, nse, ipt=MERGE_IPT):
    """The merge path's tile starts of pointers ``crow`` (int64[tiles + 1], csr_merge_search), kept
    per pointer array (and per CuPy stream: a stream would not wait for another's search): a matrix
    multiplied many times searches once. A launch, no read."""
    stream = launch_stream(drv)
    hit = _PARTITION.get(crow)
    if hit is not None and hit[0] == (nse, ipt, stream):
        return hit[1]
    ntiles = -(-(M + nse) // (32 * ipt))
    part = drv.xp.empty(ntiles + 1, np.int64)
    drv.launch(SOURCE, f"csr_merge_search<{index_type(crow.dtype)}>", ntiles + 1,
               (crow, np.int64(M), np.int64(nse), np.int64(32 * ipt), np.int64(ntiles), part))  # fmt: skip
    _PARTITION.put(crow, ((nse, ipt, stream), part))
    return part


def launch_stream(drv):
    """The CuPy stream launches go to now (None for the emulated drivers: they have one)."""
    return drv.xp.cuda.get_current_stream().ptr if drv.name == "cupy" else None


def merge_scratch(xp, M, nse, dtype, ipt=MERGE_IPT, fix_ipt=FIX_IPT):
    """The carry arrays of the merge-path SpMV of an M-row matrix of nse entries and values of
    ``dtype`` (keys int64, sums in its sp_acc dtype), sliced for the launches of
    :func:`launch_merge_mv`: (level 0's keys and sums, tiles, then per fix-up level (keys in, sums
    in, carries, keys out, sums out, tiles)). Two allocations; its size is fixed per matrix."""
    ntiles, levels, total = merge_plan(M, nse, ipt, fix_ipt)
    keys, sums = xp.empty(total, np.int64), xp.empty(total, ACC_DTYPES.get(np.dtype(dtype), dtype))
    fixes = tuple((keys[o:o + n], sums[o:o + n], np.int64(n), keys[p:p + k], sums[p:p + k], k) for o, n, p, k in levels)
    return keys[:ntiles], sums[:ntiles], ntiles, fixes


def merge_names(index_dtype, dtype):
    """(csr_merge_mv, csr_merge_fix) instantiations for these index and value dtypes (values as
    :func:`~._operands.numeric` leaves them: unsigned viewed as signed)."""
    T = c_type(dtype)
    return f"csr_merge_mv<{index_type(index_dtype)}, {T}>", f"csr_merge_fix<{T}>"


def launch_merge_mv(drv, names, crow, col, values, x, y, M, K, nse, part, scratch, stats, ipt=MERGE_IPT,
                    fix_ipt=FIX_IPT):
    """The launches of the merge-path SpMV ``y = A @ x`` (y (M,) or (M, 1), x (K,) or (K, 1), all
    checked and C-contiguous): csr_merge_mv, then one csr_merge_fix per fix-up level. No allocation
    (``part`` from :func:`merge_partition`, ``scratch`` from :func:`merge_scratch` for the same
    ipt), no read."""
    mv, fix = names
    keys, sums, ntiles, fixes = scratch
    m, fix_ipt = np.int64(M), np.int64(fix_ipt)
    drv.launch(SOURCE, mv, ntiles * 32,
               (crow, col, values, x, m, np.int64(K), np.int64(nse), np.int64(ipt), part, y, keys, sums, stats))  # fmt: skip
    for kin, vin, n, kout, vout, nout in fixes:
        drv.launch(SOURCE, fix, nout * 32, (kin, vin, n, m, fix_ipt, y, kout, vout, stats))

def csr_unread_nan(crow, col, x, y):
    """``y`` (the product of the zero-fill CSR matrix (crow, col) with x, (M,) or (M, N), float32
    or float64) with NaN where the dense product has one that the stored elements did not make:
    column j of x holds a non-finite element under a column that row i does not store (0 * inf).
    Decided on the device (no read to the host): a count per column of x, then one thread per
    element of y that leaves at once when its column of x is finite. Returns y (written in place)."""
    drv = driver_for(crow, col, x, y)
    xp = drv.xp
    crow, col = index_pair(xp, crow, col, "crow", "col", "csr_unread_nan")
    x2 = x.reshape(x.shape[0], 1) if x.ndim == 1 else x
    M, (K, N) = crow.shape[0] - 1, x2.shape
    if y.dtype not in (np.float32, np.float64) or x2.dtype != y.dtype or y.shape[0] != M or y.size != M * N:
        raise ValueError(f"csr_unread_nan: y {y.shape} {y.dtype} does not fit A ({M} rows) @ x {x.shape} {x.dtype}")
    if M == 0 or N == 0:
        return y
    x2 = xp.ascontiguousarray(x2)
    launch_unread_nan(drv, crow, col, x2, y, M, K, N)
    return y


def launch_unread_nan(drv, crow, col, x2, y, M, K, N):
    """The two launches of :func:`csr_unread_nan` on checked C-contiguous operands (x2 (K, N), y
    (M, N) or (M,)): the column counts of x's non-finite elements, then the fix-up."""
    colbad = drv.xp.zeros(N, np.uint64)
    count, fix = _unread_nan_kernels(y.dtype, crow.dtype)
    drv.launch(SOURCE, count, K * N, (x2, np.int64(K), np.int64(N), colbad))
    drv.launch(SOURCE, fix, M * N,
               (crow, col, x2, colbad, np.int64(M), np.int64(K), np.int64(N), np.int64(col.shape[0]),
                y.dtype.type(np.nan), y))  # fmt: skip


@functools.cache
def _unread_nan_kernels(dtype, index_dtype):
    """The names of the two kernels of :func:`launch_unread_nan` (worked out once per dtype pair:
    the lean path calls it on every product)."""
    T = c_type(dtype)
    return f"count_nonfinite<{T}>", f"csr_unread_nan<{index_type(index_dtype)}, {T}>"


def _finish(y, acc_dtype, t, dtype, vector, report_finite, flags):
    """The result from y (values' signed dtype t) or from the atomic kernels' accumulator
    (``acc_dtype``: uint32/uint64 for integers, cut back to t): x's dtype and shape."""
    if acc_dtype is not None:
        y = y.view(t) if acc_dtype.itemsize == t.itemsize else y.astype(t)
    y = y.view(dtype)
    y = y.reshape(y.shape[0]) if vector else y
    return (y, not flags & _NONFINITE) if report_finite else y


def _accumulator(xp, shape, t):
    """A zeroed accumulator for the atomic kernels (sp_acc of values of dtype t) and its dtype
    (None when it is t itself)."""
    acc = ACC_DTYPES.get(t)
    return xp.zeros(shape, acc or t), acc


def csr_matmul_dense(crow, col, values, x, report_finite=False):
    """``A @ x`` for a CSR matrix A (crow int[M + 1], col int[nse] in [0, K), values (nse,)) and a
    dense x (K,) or (K, N) of the values' dtype; with ``report_finite`` also whether every element
    of y is finite. ValueError for a bad pointer, column or shape; KernelDeclined for a dtype
    without a kernel (bool, or values and x of different dtypes)."""
    fname = "csr_matmul_dense"
    drv = driver_for(crow, col, values, x)
    xp = drv.xp
    crow, col = _indices(xp, fname, crow, "crow", col, "col")
    values, x2, vector, dtype = _operands(xp, fname, values, "values", x)
    nse = col.shape[0]
    if values.shape != (nse,):
        raise ValueError(f"{fname}: values has shape {values.shape} but col has shape {col.shape}")
    M = crow.shape[0] - 1
    K, N = x2.shape
    stats = new_stats(xp, M + 1)
    bad = (fname, crow, "crow", col, "col", K, "columns")
    if M == 0 or N == 0 or nse == 0 or K == 0:
        _check_pointers(drv, crow, nse, stats)
        _check_indices(drv, col, K, stats)
        _raise_bad(read_stats(stats), *bad)
        return _finish(xp.zeros((M, N), values.dtype), None, values.dtype, dtype, vector, report_finite, 0)
    longest = longest_row(crow, nse)
    if longest < 0:
        _raise_bad([0, 0, _BAD_POINTER], *bad)
    I, T = index_type(crow.dtype), c_type(values.dtype)
    mean = nse / M
    acc_dtype = None
    skewed = longest > SKEW_MIN and longest > SKEW_FACTOR * mean
    if skewed and N == 1:
        y = xp.empty((M, 1), values.dtype)
        part, scratch = merge_partition(drv, crow, M, nse), merge_scratch(xp, M, nse, values.dtype)
        launch_merge_mv(drv, merge_names(crow.dtype, values.dtype), crow, col, values, x2, y, M, K, nse, part,
                        scratch, stats)  # fmt: skip
    elif skewed:
        _check_pointers(drv, crow, nse, stats)
        y, acc_dtype = _accumulator(xp, (M, N), values.dtype)
        drv.launch(SOURCE, f"csr_split<{I}, {T}>", -(-nse // CHUNK) * N,
                   (crow, col, values, x2, np.int64(M), np.int64(K), np.int64(N), np.int64(nse), np.int64(CHUNK), y, stats))  # fmt: skip
    elif N == 1:
        y = xp.empty((M, 1), values.dtype)
        lanes = lanes_for(mean)
        drv.launch(SOURCE, f"csr_mv_rows<{I}, {T}>", -(-M // (32 // lanes)) * 32,
                   (crow, col, values, x2, np.int64(M), np.int64(K), np.int64(nse), np.int32(lanes), y, stats))  # fmt: skip
    else:
        y = xp.empty((M, N), values.dtype)
        drv.launch(SOURCE, f"csr_mm_rows<{I}, {T}>", M * N,
                   (crow, col, values, x2, np.int64(M), np.int64(K), np.int64(N), np.int64(nse), y, stats))  # fmt: skip
    if inputs_proven() and not report_finite:
        return _finish(y, acc_dtype, values.dtype, dtype, vector, False, 0)  # the report is for errors only
    flags = _raise_bad(read_stats(stats), *bad)
    return _finish(y, acc_dtype, values.dtype, dtype, vector, report_finite, flags)


def bsr_matmul_dense(crow, col, blocks, x, report_finite=False):
    """``A @ x`` for a BSR matrix A (crow int[MB + 1], col int[nse] in [0, K // bw), blocks
    (nse, bh, bw)) and a dense x (K,) or (K, N), K a multiple of bw; with ``report_finite`` also
    whether every element of y is finite. Errors as :func:`csr_matmul_dense`."""
    fname = "bsr_matmul_dense"
    drv = driver_for(crow, col, blocks, x)
    xp = drv.xp
    crow, col = _indices(xp, fname, crow, "crow", col, "col")
    blocks, x2, vector, dtype = _operands(xp, fname, blocks, "blocks", x)
    nse = col.shape[0]
    blocks = as_blocks(fname, blocks, nse, "col")
    _, bh, bw = blocks.shape
    MB = crow.shape[0] - 1
    K, N = x2.shape
    KB = bsr_block_cols(fname, K, bw, x.shape, blocks.shape)
    stats = new_stats(xp, MB + 1)
    bad = (fname, crow, "crow", col, "col", KB, "block columns")
    if MB == 0 or N == 0 or nse == 0 or K == 0:
        _check_pointers(drv, crow, nse, stats)
        _check_indices(drv, col, KB, stats)
        _raise_bad(read_stats(stats), *bad)
        return _finish(xp.zeros((MB * bh, N), blocks.dtype), None, blocks.dtype, dtype, vector, report_finite, 0)
    y = xp.empty((MB * bh, N), blocks.dtype)
    name = f"bsr_rows<{index_type(crow.dtype)}, {c_type(blocks.dtype)}>"
    drv.launch(SOURCE, name, MB * bh * N,
               (crow, col, blocks, x2, np.int64(MB), np.int64(KB), np.int64(bh), np.int64(bw), np.int64(N),
                np.int64(nse), y, stats))  # fmt: skip
    if inputs_proven() and not report_finite:
        return _finish(y, None, blocks.dtype, dtype, vector, False, 0)
    flags = _raise_bad(read_stats(stats), *bad)
    return _finish(y, None, blocks.dtype, dtype, vector, report_finite, flags)


def csc_matmul_dense(ccol, row, values, x, nrows):
    """``A @ x`` for a CSC matrix A of ``nrows`` rows (ccol int[K + 1], row int[nse] in [0, nrows),
    values (nse,)) and a dense x (K,) or (K, N). Errors as :func:`csr_matmul_dense`."""
    fname = "csc_matmul_dense"
    drv = driver_for(ccol, row, values, x)
    xp = drv.xp
    ccol, row = _indices(xp, fname, ccol, "ccol", row, "row")
    values, x2, vector, dtype = _operands(xp, fname, values, "values", x)
    nse = row.shape[0]
    if values.shape != (nse,):
        raise ValueError(f"{fname}: values has shape {values.shape} but row has shape {row.shape}")
    K = ccol.shape[0] - 1
    M = csc_rows(fname, nrows, K, ccol.shape, x2.shape[0], x.shape)
    N = x2.shape[1]
    stats = new_stats(xp, K + 1)
    bad = (fname, ccol, "ccol", row, "row", M, "rows")
    if not inputs_proven():  # the scatter kernels clamp what they find; the check is for the report
        _check_pointers(drv, ccol, nse, stats)
    if M == 0 or N == 0 or nse == 0 or K == 0:
        _check_indices(drv, row, M, stats)
        _raise_bad(read_stats(stats), *bad)
        return _finish(xp.zeros((M, N), values.dtype), None, values.dtype, dtype, vector, False, 0)
    y, acc_dtype = _accumulator(xp, (M, N), values.dtype)
    drv.launch(SOURCE, f"csc_scatter<{index_type(ccol.dtype)}, {c_type(values.dtype)}>", nse * N,
               (ccol, row, values, x2, np.int64(M), np.int64(K), np.int64(N), np.int64(nse), y, stats))  # fmt: skip
    if not inputs_proven():
        _raise_bad(read_stats(stats), *bad)
    return _finish(y, acc_dtype, values.dtype, dtype, vector, False, 0)


def bsc_matmul_dense(ccol, row, blocks, x, nrows):
    """``A @ x`` for a BSC matrix A of ``nrows`` rows (ccol int[KB + 1], row int[nse] in
    [0, nrows // bh), blocks (nse, bh, bw) in the matrix's orientation) and a dense x (KB * bw,) or
    (KB * bw, N). Errors as :func:`csr_matmul_dense`."""
    fname = "bsc_matmul_dense"
    drv = driver_for(ccol, row, blocks, x)
    xp = drv.xp
    ccol, row = _indices(xp, fname, ccol, "ccol", row, "row")
    blocks, x2, vector, dtype = _operands(xp, fname, blocks, "blocks", x)
    nse = row.shape[0]
    blocks = as_blocks(fname, blocks, nse, "row")
    _, bh, bw = blocks.shape
    KB = ccol.shape[0] - 1
    M = bsc_rows(fname, nrows, bh, KB, bw, ccol.shape, blocks.shape, x2.shape[0], x.shape)
    N = x2.shape[1]
    MB = M // bh
    stats = new_stats(xp, KB + 1)
    bad = (fname, ccol, "ccol", row, "row", MB, "block rows")
    if not inputs_proven():
        _check_pointers(drv, ccol, nse, stats)
    if MB == 0 or N == 0 or nse == 0 or KB == 0:
        _check_indices(drv, row, MB, stats)
        _raise_bad(read_stats(stats), *bad)
        return _finish(xp.zeros((M, N), blocks.dtype), None, blocks.dtype, dtype, vector, False, 0)
    y, acc_dtype = _accumulator(xp, (M, N), blocks.dtype)
    drv.launch(SOURCE, f"bsc_scatter<{index_type(ccol.dtype)}, {c_type(blocks.dtype)}>", nse * bh * N,
               (ccol, row, blocks, x2, np.int64(MB), np.int64(KB), np.int64(bh), np.int64(bw), np.int64(N),
                np.int64(nse), y, stats))  # fmt: skip
    if not inputs_proven():
        _raise_bad(read_stats(stats), *bad)
    return _finish(y, acc_dtype, blocks.dtype, dtype, vector, False, 0)
