"""Sparse @ sparse on a GPU: :func:`spgemm`, the CUDA twin of ``kernels/cpu/spgemm.py`` (same
arguments, results, index dtypes and error messages).

``spgemm(a_crow, a_col, a_values, b_crow, b_col, b_values, ncols) -> (crow, col, values)``: C = A @ B
in CSR, columns strictly increasing within each row, every structurally reached position stored.
Two phases over per-row accumulators (see ``spgemm.cu``):

1. checks and sizes: B's pointers (``check_offsets``) and columns (``check_range``), then
   ``spgemm_work`` checks A's and gives each row its products and its table: a hash table of the
   next power of two >= 2 x products, or a dense one of ``ncols`` slots once that is as large. One
   read-back gives the flags, the table total and both operands' longest rows (kept per pointer
   array). Called by the library (inputs proven) with both longest rows known, nothing is read:
   the tables go in a pool sized from them (:func:`_pool_slots`), so a product reads the device
   once, for the result's size (with its longest row, kept for the next product, and whether a
   hashed row needs the sort below).
2. symbolic, then numeric: ``spgemm_insert`` puts each row's products in its table (one warp per
   row, lanes over the B rows it reaches), counting the distinct columns; a prefix sum gives ``crow``;
   the numeric pass adds the values into the tables (in the same pass when every table fits in one
   batch), ``spgemm_gather`` compacts each row in slot order and ``spgemm_order`` sorts the hashed
   rows by rank (dense rows come out sorted). Hashed rows longer than ``RANK_MAX`` entries are
   sorted by a stable two-key sort of CuPy's (CUB) afterwards.

Tables live in global memory; when they would pass ``TABLE_BUDGET`` slots, the rows are cut into
batches of about that many slots (a row is never cut), each batch counted and then filled in turn.
Values are accumulated with atomics in ``sp_acc<T>`` (integers wrap as in NumPy; float sums in the
order the atomics land, last bits apart from the numba kernel's sequential order).

>>> import numpy as np
>>> crow, col, val = spgemm(np.array([0, 2, 3]), np.array([1, 0, 1]), np.array([1.0, 2.0, 3.0]),
...                         np.array([0, 1, 3]), np.array([2, 0, 2]), np.array([4.0, 5.0, 6.0]), 3)
>>> crow.tolist(), col.tolist(), val.tolist()
([0, 2, 4], [0, 2, 0, 2], [5.0, 14.0, 15.0, 18.0])
"""

from __future__ import annotations

import numpy as np

from .. import KernelDeclined
from ._arrays import stable_argsort
from ._build import INDEX_TYPES, c_type, index_type
from ._driver import driver_for
from ._trust import inputs_proven
from .spmm import _LONGEST, remember_longest_row
from ._operands import ACC_DTYPES, EXPECTED, PRODUCT_TYPES, host, index_of, new_stats, numeric, read_stats

__all__ = ["spgemm"]

SOURCE = "spgemm.cu"
NAME_EXPRESSIONS = (
    tuple(f"check_offsets<{i}>" for i in INDEX_TYPES)
    + tuple(f"check_range<{i}>" for i in INDEX_TYPES)
    + tuple(f"spgemm_work<{i}>" for i in INDEX_TYPES)
    + tuple(f"spgemm_insert<{i}, {t}>" for i in INDEX_TYPES for t in PRODUCT_TYPES)
    + tuple(f"{k}<{t}, {j}>" for k in ("spgemm_gather", "spgemm_order") for t in PRODUCT_TYPES for j in INDEX_TYPES)
)

#: hashed rows of up to this many entries are sorted in the kernel (by rank), longer ones afterwards
RANK_MAX = 256
#: table slots per batch of rows (keys int64 + values: 16 to 24 bytes a slot)
TABLE_BUDGET = 1 << 26
_INT32_MAX = np.iinfo(np.int32).max
# the numba kernel's flags (kernels/cpu/spgemm.py)
_BAD_A_CROW, _BAD_A_COL, _BAD_B_CROW, _BAD_B_COL, _UNSORTED = 1, 2, 4, 8, 16


def _values(xp, v, n, name):
    v = numeric(xp, v, name, "spgemm")
    if v.ndim != 1 or v.shape[0] != n:
        raise ValueError(f"spgemm: {name} must be 1-D with the length of its column indices ({n}), got shape {v.shape}")
    return v


def _ends(xp, a_crow, a_col, b_crow, b_col):
    """(a0, aN, b0, bN): both pointer arrays' ends, read in one copy, checked as the numba kernel does."""
    from ..cpu.spgemm import _check_ends

    for crow, name, col_name in ((a_crow, "a_crow", "a_col"), (b_crow, "b_crow", "b_col")):
        if crow.shape[0] == 0:
            _check_ends(np.zeros(0, np.int64), 0, name, col_name)
    ends = [int(v) for v in xp.stack([a_crow[0], a_crow[-1], b_crow[0], b_crow[-1]]).astype(xp.int64).tolist()]
    _check_ends(np.array(ends[:2]), a_col.shape[0], "a_crow", "a_col")
    _check_ends(np.array(ends[2:]), b_col.shape[0], "b_crow", "b_col")
    return ends


def _batches(xp, toff, total, M):
    """Row cuts [0, ..., M] so that each batch's tables take about TABLE_BUDGET slots (a row is
    never cut), and the table offset at each cut."""
    if total <= TABLE_BUDGET:
        return [0, M], [0, total]
    marks = xp.arange(1, -(-total // TABLE_BUDGET), dtype=xp.int64) * TABLE_BUDGET
    inner = [int(r) for r in xp.searchsorted(toff, marks, side="right").tolist()]
    cuts = sorted({0, M, *(min(max(r - 1, 0), M) for r in inner)})
    return cuts, [int(v) for v in toff[xp.asarray(cuts)].tolist()]


def spgemm(a_crow, a_col, a_values, b_crow, b_col, b_values, ncols):
    """C = A @ B for CSR A (a_crow int[M + 1], a_col int[nnzA] in [0, K), a_values) and CSR B
    (b_crow int[K + 1], b_col in [0, ncols), b_values of A's dtype). Returns (crow, col, values) of
    C: crow int32 when nnzC < 2**31 (else int64), col int32 when ncols < 2**31. ValueError for bad
    shapes, pointers or indices (naming the first); KernelDeclined for another value dtype or
    operands of different dtypes."""
    drv = driver_for(a_crow, a_col, a_values, b_crow, b_col, b_values)
    xp = drv.xp
    idx = [index_of(xp, a, n, "spgemm") for a, n in ((a_crow, "a_crow"), (a_col, "a_col"), (b_crow, "b_crow"), (b_col, "b_col"))]
    a_values, b_values = xp.asarray(a_values), xp.asarray(b_values)
    if a_values.dtype != b_values.dtype:
        raise KernelDeclined(
            f"spgemm: a_values ({a_values.dtype}) and b_values ({b_values.dtype}) must have the same dtype; "
            f"expected {EXPECTED} for both (cast first)"
        )
    dtype = a_values.dtype
    av, bv = _values(xp, a_values, idx[1].shape[0], "a_values"), _values(xp, b_values, idx[3].shape[0], "b_values")
    ncols = int(ncols)
    if ncols < 0:
        raise ValueError(f"spgemm: ncols must be >= 0, got {ncols}")
    given = idx  # the caller's arrays: their longest rows are kept per object
    cast = len({a.dtype for a in idx}) > 1
    a_crow, a_col, b_crow, b_col = idx
    if inputs_proven() and a_crow.shape[0] and b_crow.shape[0]:
        a0, aN, b0, bN = 0, a_col.shape[0], 0, b_col.shape[0]  # valid pointers start at 0 and end at nnz
    else:
        a0, aN, b0, bN = _ends(xp, a_crow, a_col, b_crow, b_col)
    M, K = a_crow.shape[0] - 1, b_crow.shape[0] - 1
    J = "int" if ncols <= _INT32_MAX else "long long"
    col_dtype = np.int32 if J == "int" else np.int64

    # 1. checks and sizes: each row's products and table size. The tables' total is read back with
    # the checks' report, unless the inputs are proven and both operands' longest rows are known:
    # then the tables are laid out in a pool sized from those (no wait; see _pool_slots)
    pool = _pool_slots(a_crow, b_crow, M, a_col.shape[0], ncols) if inputs_proven() else None
    if cast:
        a_crow, a_col, b_crow, b_col = idx = [a.astype(xp.int64) for a in idx]
    I, T = index_type(a_crow.dtype), c_type(av.dtype)
    stats = xp.concatenate([new_stats(xp, K + 1), new_stats(xp, M + 1)])
    stats_b, stats_a = stats[:3], stats[3:]
    if pool is None:
        drv.launch(SOURCE, f"check_offsets<{I}>", K + 1, (b_crow, np.int64(K), np.int64(b0), np.int64(bN), np.int32(0), stats_b))
        if bN > b0:
            drv.launch(SOURCE, f"check_range<{I}>", bN - b0, (b_col, np.int64(b0), np.int64(bN), np.int64(ncols), stats_b))
    work = xp.zeros(M, xp.int64)
    tsize = xp.zeros(M, xp.int64)
    if M:
        drv.launch(SOURCE, f"spgemm_work<{I}>", M,
                   (a_crow, a_col, b_crow, np.int64(M), np.int64(K), np.int64(a0), np.int64(aN), np.int64(ncols),
                    work, tsize, stats_a))  # fmt: skip
    toff = xp.concatenate([xp.zeros(1, xp.int64), xp.cumsum(tsize)])
    if pool is not None:
        total = pool  # every row's table lies inside the pool (toff[-1] <= pool)
    else:
        longest_a = xp.max(a_crow[1:] - a_crow[:-1]) if M else xp.zeros((), a_crow.dtype)
        longest_b = xp.max(b_crow[1:] - b_crow[:-1]) if K else xp.zeros((), b_crow.dtype)
        sizes = xp.stack([v.astype(xp.int64) for v in (toff[-1], longest_a, longest_b)])
        report = read_stats(xp.concatenate([stats, sizes]))
        flags = report[5] | (_BAD_B_CROW if report[0] <= K else 0) | (_BAD_B_COL if report[2] else 0)
        if flags:
            from ..cpu.spgemm import _raise_invalid

            _raise_invalid(flags, *(host(a) for a in idx), K, ncols)
            raise AssertionError("spgemm: the kernel reported invalid input that was not found")
        total = report[6]
        for ptr, longest in ((given[0], report[7]), (given[2], report[8])):  # the next product reads nothing
            remember_longest_row(ptr, longest)

    # 2. symbolic: distinct columns per row; numeric in the same pass when there is one batch
    cuts, edges = _batches(xp, toff, total, M)
    batches = [(cuts[b], cuts[b + 1], edges[b + 1] - edges[b]) for b in range(len(cuts) - 1)]
    acc = ACC_DTYPES.get(av.dtype, av.dtype)
    counts = xp.zeros(M, xp.int64)
    fused = len(batches) == 1
    tables = None
    for r0, r1, slots in batches:
        tables = _insert(drv, I, T, idx, av, bv, r0, r1, slots, ncols, toff, acc, counts, with_values=fused)
    crow = xp.concatenate([xp.zeros(1, xp.int64), xp.cumsum(counts)])
    # one read: the result's size, its longest row (kept for the next product) and whether a hashed
    # row is too long for spgemm_order's sort by rank (then sorted afterwards)
    if M:
        long_hashed = xp.any((tsize != ncols) & (counts > RANK_MAX))
        nnz, longest, unsorted = read_stats(xp.stack([crow[-1], xp.max(counts), long_hashed.astype(xp.int64)]))
    else:
        nnz = longest = unsorted = 0
    col = xp.empty(nnz, col_dtype)
    val = xp.empty(nnz, av.dtype)
    if nnz == 0:
        return xp.zeros(M + 1, xp.int32), col, val.view(dtype)

    # 3. numeric (one batch: the tables are filled already), gather and order the rows
    tcol, tval = xp.empty(nnz, col_dtype), xp.empty(nnz, av.dtype)
    order_flags = xp.zeros(3, xp.int64)
    for r0, r1, slots in batches:
        if not fused:
            tables = _insert(drv, I, T, idx, av, bv, r0, r1, slots, ncols, toff, acc, None, with_values=True)
        keys, tvals = tables
        drv.launch(SOURCE, f"spgemm_gather<{T}, {J}>", (r1 - r0) * 32,
                   (np.int64(r0), np.int64(r1), toff, keys, tvals, crow, tcol, tval))  # fmt: skip
        drv.launch(SOURCE, f"spgemm_order<{T}, {J}>", (r1 - r0) * 32,
                   (np.int64(r0), np.int64(r1), toff, np.int64(ncols), crow, tcol, tval, np.int64(RANK_MAX), col, val,
                    order_flags))  # fmt: skip
    # long hashed rows come out unsorted (spgemm_order flags them too): a stable sort by (row, column)
    if unsorted:
        rows = xp.searchsorted(crow, xp.arange(nnz, dtype=xp.int64), side="right") - 1
        perm = stable_argsort(xp, col)
        perm = perm[stable_argsort(xp, rows[perm])]
        col, val = col[perm], val[perm]
    crow_out = crow.astype(xp.int32) if nnz <= _INT32_MAX else crow
    remember_longest_row(crow_out, longest)
    return crow_out, col, _plus_zero(val.view(dtype))


def _plus_zero(values):
    """``values`` with each -0.0 made +0.0, in place: the kernels add from the first product, NumPy's
    sums start from +0.0 (``_core.fill.sum_zero``; one element-wise pass, no wait)."""
    if values.dtype.kind in "fc":
        values += 0
    return values


def _pool_slots(a_crow, b_crow, M, nnz_a, ncols):
    """Table slots enough for every row of A @ B without reading the device, or None.

    Known when both pointer arrays' longest rows are kept (``spmm``'s facts: an array moved from the
    host, or read by an earlier product). Row i makes w_i <= len_i * LB products (LB: B's longest
    row) and takes a table of min(ncols, the power of two >= 2 w_i) < 4 w_i slots, so all rows
    take at most min(M * ncols, 4 nnzA LB) and M * min(ncols, pow2(2 LA LB)) slots (LA: A's longest
    row; the second bound is tight for rows of even length). None when the bound passes
    TABLE_BUDGET (the tables are then sized by a read and cut into batches).
    """
    la, lb = _LONGEST.get(a_crow), _LONGEST.get(b_crow)
    if lb is None:
        return None
    bound = min(M * ncols, 4 * nnz_a * lb)
    if la is not None:
        most = la * lb
        bound = min(bound, M * min(ncols, 1 << (2 * most - 1).bit_length() if most else 0))
    return bound if bound <= TABLE_BUDGET else None


def _insert(drv, I, T, idx, av, bv, r0, r1, slots, ncols, toff, acc, counts, *, with_values):
    """Fresh tables (``slots`` of them) for rows [r0, r1) with their products inserted (values too
    with ``with_values``); ``counts`` (or a scratch array when None) gains each row's distinct
    columns. Returns (keys, values)."""
    xp = drv.xp
    a_crow, a_col, b_crow, b_col = idx
    keys = xp.full(max(slots, 1), -1, xp.int64)
    tvals = xp.zeros(max(slots, 1), acc)
    if counts is None:
        counts = xp.zeros(toff.shape[0] - 1, xp.int64)
    if r1 > r0:
        drv.launch(SOURCE, f"spgemm_insert<{I}, {T}>", (r1 - r0) * 32,
                   (a_crow, a_col, av, b_crow, b_col, bv, np.int64(r0), np.int64(r1), np.int64(ncols), toff, keys, tvals,
                    np.int32(1 if with_values else 0), counts))  # fmt: skip
    return keys, tvals
