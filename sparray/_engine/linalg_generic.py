"""Generic (pure array-API) product kernels: the reference for ``sparray.kernels.cpu.spmm/spgemm/sddmm``.

Registered in the device registry as the ``"generic"`` implementations of

- ``matmul_dense`` for ``csr`` ``(crow, col, values, x, report_finite=False)``, ``csc`` ``(ccol, row, values, x, nrows)``,
  ``bsr`` ``(crow, col, blocks, x, report_finite=False)`` and ``bsc`` ``(ccol, row, blocks, x, nrows)``: ``A @ x``
  for a dense ``x`` of shape ``(K,)`` or ``(K, N)``; the result has x's dtype and shape ``(M,)`` / ``(M, N)``,
  and with ``report_finite`` comes as ``(y, whether every element of y is finite)``;
- ``spgemm`` for ``csr``: ``(a_crow, a_col, a_values, b_crow, b_col, b_values, ncols)`` ->
  ``(crow, col, values)`` of ``A @ B``, columns sorted and unique in every row, int64 indices,
  every structurally reachable position kept (exact zeros from cancellation too);
- ``sddmm`` for ``csr``: ``(crow, col, a, bt)`` -> ``out[e] = a[row(e), :] . bt[col[e], :]``.

The array API has no scatter-add, so products are formed per specified element and summed per
output row with the sort-and-segment ``scatter_sum`` of ``_segments.py`` (exact, no prefix-sum
differences). These run on every namespace (array_api_strict included); they are the
correctness reference, not the fast path.
"""

from __future__ import annotations

from .compressed_generic import expand_offsets
from .dispatch import register
from .segments import coalesce_generic, scatter_sum_generic

__all__ = ["bsc_matmul_dense", "bsr_matmul_dense", "csc_matmul_dense", "csr_matmul_dense", "sddmm", "spgemm"]


def _as_2d(xp, x):
    return (xp.reshape(x, (x.shape[0], 1)), True) if x.ndim == 1 else (x, False)


def _finish(xp, y, was_vector, report_finite=False):
    """y as the caller passed x (1-d or 2-d); with ``report_finite`` also whether y is all finite."""
    y = xp.reshape(y, (y.shape[0],)) if was_vector else y
    if not report_finite:
        return y
    inexact = xp.isdtype(y.dtype, ("real floating", "complex floating"))
    return y, (not inexact or bool(xp.all(xp.isfinite(y))))


def _sum_rows(xp, keys, contributions, nrows):
    """Per-row sums of ``contributions`` (n, w) grouped by ``keys``: a dense (nrows, w) array, its
    zero sums +0.0 as NumPy's products give them (``_core.fill.sum_zero``)."""
    from .._core.fill import sum_zero

    return sum_zero(xp, scatter_sum_generic(xp, xp.astype(keys, xp.int64), contributions, nrows))


@register("matmul_dense", "csr", "generic")
def csr_matmul_dense(xp, crow, col, values, x, report_finite=False):
    x2, vec = _as_2d(xp, x)
    rows = expand_offsets(xp, crow, xp.int64)
    contrib = xp.reshape(values, (values.shape[0], 1)) * xp.take(x2, xp.astype(col, xp.int64), axis=0)
    return _finish(xp, _sum_rows(xp, rows, contrib, crow.shape[0] - 1), vec, report_finite)


@register("matmul_dense", "csc", "generic")
def csc_matmul_dense(xp, ccol, row, values, x, nrows):
    x2, vec = _as_2d(xp, x)
    cols = expand_offsets(xp, ccol, xp.int64)
    contrib = xp.reshape(values, (values.shape[0], 1)) * xp.take(x2, cols, axis=0)
    return _finish(xp, _sum_rows(xp, row, contrib, nrows), vec)


def _block_contributions(xp, blocks, x2, block_cols):
    """``blocks[e] @ x2[block_cols[e]*bw : +bw]`` for every block e, flattened to (nse, bh * N)."""
    nse, bh, bw = blocks.shape
    n = x2.shape[1]
    xb = xp.reshape(x2, (x2.shape[0] // bw, bw, n))
    prod = xp.matmul(blocks, xp.take(xb, xp.astype(block_cols, xp.int64), axis=0))  # (nse, bh, N)
    return xp.reshape(prod, (nse, bh * n))


@register("matmul_dense", "bsr", "generic")
def bsr_matmul_dense(xp, crow, col, blocks, x, report_finite=False):
    x2, vec = _as_2d(xp, x)
    bh = blocks.shape[1]
    mb = crow.shape[0] - 1
    rows = expand_offsets(xp, crow, xp.int64)
    y = _sum_rows(xp, rows, _block_contributions(xp, blocks, x2, col), mb)
    return _finish(xp, xp.reshape(y, (mb * bh, x2.shape[1])), vec, report_finite)


@register("matmul_dense", "bsc", "generic")
def bsc_matmul_dense(xp, ccol, row, blocks, x, nrows):
    x2, vec = _as_2d(xp, x)
    bh = blocks.shape[1]
    mb = nrows // bh
    cols = expand_offsets(xp, ccol, xp.int64)
    y = _sum_rows(xp, row, _block_contributions(xp, blocks, x2, cols), mb)
    return _finish(xp, xp.reshape(y, (mb * bh, x2.shape[1])), vec)


@register("spgemm", "csr", "generic")
def spgemm(xp, a_crow, a_col, a_values, b_crow, b_col, b_values, ncols):
    """Every product a[i, k] * b[k, j] formed explicitly, then summed per (i, j) by sort-and-segment."""
    m = a_crow.shape[0] - 1
    a_rows = expand_offsets(xp, a_crow, xp.int64)
    k = xp.astype(a_col, xp.int64)
    b_ptr = xp.astype(b_crow, xp.int64)
    starts = xp.take(b_ptr, k)
    lengths = xp.take(b_ptr, k + 1) - starts
    total = int(xp.sum(lengths)) if lengths.shape[0] else 0
    if total == 0:
        return xp.zeros((m + 1,), dtype=xp.int64), xp.zeros((0,), dtype=xp.int64), xp.zeros((0,), dtype=a_values.dtype)
    # product p of A entry e (its run starts at first[e] among the products) reads B entry
    # starts[e] + p - first[e]; runs are expanded with repeat, cheaper than gathers by owner
    first = xp.cumulative_sum(lengths) - lengths
    b_pos = xp.repeat(starts - first, lengths) + xp.arange(total, dtype=xp.int64)
    j = xp.astype(xp.take(b_col, b_pos), xp.int64)
    keys = xp.repeat(a_rows * max(ncols, 1), lengths) + j
    products = xp.repeat(a_values, lengths) * xp.take(b_values, b_pos)
    ukeys, sums = coalesce_generic(xp, keys, xp.reshape(products, (total, 1)))
    out_rows = ukeys // max(ncols, 1)
    crow = xp.searchsorted(out_rows, xp.arange(m + 1, dtype=xp.int64))
    from .._core.fill import sum_zero

    sums = sum_zero(xp, xp.reshape(sums, (sums.shape[0],)))  # NumPy's sums start from +0.0
    return xp.astype(crow, xp.int64), ukeys - out_rows * ncols, sums


@register("sddmm", "csr", "generic")
def sddmm(xp, crow, col, a, bt):
    rows = expand_offsets(xp, crow, xp.int64)
    ar = xp.take(a, rows, axis=0)
    br = xp.take(bt, xp.astype(col, xp.int64), axis=0)
    return xp.sum(ar * br, axis=1, dtype=a.dtype)
