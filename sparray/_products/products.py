"""The product engine behind ``matmul``: sparse @ dense and sparse @ sparse, exact for any fill value.

Operands reach this module as *matrix operands*: compressed arrays (CSR/CSC/BSR/BSC) with no
dense dims and a 0-d fill, shaped ``(*batch, M, K)``. Batches are flattened into one
block-diagonal matrix (global rows, minor indices shifted by batch), so one kernel call serves
every batch.

Fill values (RFC point 10). Write ``A = A0 + a`` where ``A0`` holds ``values - a`` on A's pattern
and 0 elsewhere. Then for a dense ``X`` (K x N)::

    A @ X = A0 @ X + a * (1 @ X)        # 1 @ X: the column sums of X, one row

and for a sparse ``B = B0 + b`` (inner size K)::

    A @ B = A0 @ B0 + b * rowsum(A0) + a * colsum(B0) + a * b * K

so a non-zero fill costs one extra row or column sum, never a dense operand. These identities
hold in exact arithmetic; in floating point they are used only when the fills, the stored values
and ``X`` are finite. Otherwise the unspecified elements' contribution is computed the way the
dense product computes it (``0 * inf`` is nan, ``inf - inf`` is nan): per output element, the
finite part of ``sum over unspecified k of a * X[k, j]`` plus counts of the nan, +inf and -inf
products among them, all obtained from products of A's *pattern* with indicator matrices.
Complex operands with non-finite fills or operands take the dense product instead.

>>> import sparray, numpy as np
>>> A = sparray.asarray(np.array([[1.0, 5.0], [5.0, 2.0]]), fill_value=5.0, layout="csr")
>>> (A @ np.ones(2)).tolist()
[6.0, 7.0]
"""

from __future__ import annotations

import math

import numpy as np

from .._engine import dispatch as _dispatch
from .._layout.compress import CSR, _build, _equalize_batches, _Parts, _parts_of
from .._core.fill import array_fill_is_zero, remember_fill_is_zero
from .._core.namespace import backend_kind
from .._engine.facts import all_finite, remember_all_finite, values_all_finite
from .._functions.manipulation import broadcast_shapes, broadcast_to

__all__ = [
    "MatrixOperand", "all_finite", "sparse_times_dense", "sparse_times_sparse", "spgemm_zero_fill", "unused_rows_of_x",
]  # fmt: skip

_COLUMN_MAJOR = {"csc": True, "bsc": True, "csr": False, "bsr": False}


def unused_rows_of_x(A, x_size):
    """Rows of a dense ``X`` that no stored element of the unbatched row-compressed ``A`` reads in
    ``A @ X`` (its columns without entries; for BSR every row of an empty block column), or None.

    Derived from the pattern (one pass over the column indices) and kept on the array
    (``A._unused_x_rows``), like the validity check: the products use it to skip a finiteness
    pass over all of X. The pass is made when it costs less than checking an X of ``x_size``
    elements, or on the array's second product (it will likely see more); else None.
    """
    rows = getattr(A, "_unused_x_rows", None)
    if rows is None and x_size < A.nse:
        A._unused_x_rows = False  # seen once; computed if A comes back
        return None
    if rows is None or rows is False:
        xp = A._xp
        A._check_contents()
        bw = A._block[1] if A.layout == "bsr" else 1
        nminor = A.shape[-1] // bw
        unused = _dispatch.call("unused_minor", "csr", xp, A._pidx, nminor, work=A._pidx.shape[0])
        if bw > 1:
            unused = xp.reshape(xp.reshape(unused * bw, (-1, 1)) + xp.arange(bw, dtype=xp.int64), (-1,))
        rows = A._unused_x_rows = unused
    return rows


class MatrixOperand:
    """A compressed array ``(*batch, M, K)`` without dense dims, flattened for the product kernels.

    ``parts`` is the flat view (global major offsets); ``minor_global`` shifts plain indices by
    batch so the batches form one block-diagonal matrix ``(nbatch * M, nbatch * K)``.
    """

    def __init__(self, A):
        self.A = A
        self.xp = A._xp
        self.layout = A.layout
        self.batch_shape = A.batch_shape
        self.nbatch = math.prod(self.batch_shape)
        self.M, self.K = A.shape[-2], A.shape[-1]
        self.block = A._block
        self.fill = A._fill
        self.parts = _parts_of(A)

    @property
    def column_major(self) -> bool:
        return _COLUMN_MAJOR[self.layout]

    def flat_values(self, values=None):
        """Values as the kernels take them: (nnz,) or blocks (nnz, bh, bw)."""
        xp = self.xp
        v = self.parts.values if values is None else values
        n = v.shape[0]
        return xp.reshape(v, (n, *self.block)) if self.layout in ("bsr", "bsc") else xp.reshape(v, (n,))

    def _indices(self, shifted: bool):
        """(offsets, minor) of one dtype; ``shifted``: minor indices offset per batch (block-diagonal)."""
        xp, parts = self.xp, self.parts
        offsets, minor = parts.offsets, parts.minor
        if shifted and self.nbatch > 1:
            nse = parts.nnz // self.nbatch
            base = xp.reshape(xp.arange(self.nbatch, dtype=xp.int64) * parts.nminor, (self.nbatch, 1))
            minor = xp.reshape(xp.reshape(xp.astype(minor, xp.int64), (self.nbatch, nse)) + base, (parts.nnz,))
        if minor.dtype != offsets.dtype:
            offsets, minor = xp.astype(offsets, xp.int64), xp.astype(minor, xp.int64)
        return offsets, minor

    def apply(self, x2, values=None, *, shifted=True, report_finite=False):
        """The block-diagonal matrix (with ``values`` on the pattern) times the dense 2-d ``x2``.

        ``x2`` has ``nbatch * K`` rows when ``shifted`` (batch b reads rows b*K...), else ``K``
        rows shared by every batch (row-compressed layouts only). Returns (nbatch * M, N), and
        with ``report_finite`` (row-compressed layouts) ``(result, whether it is all finite)``.
        """
        xp = self.xp
        offsets, minor = self._indices(shifted)
        vals = self.flat_values(values)
        x = xp.reshape(x2, (x2.shape[0],)) if x2.shape[1] == 1 else x2
        work = self.parts.nnz + offsets.shape[0]
        if self.column_major:
            y = _dispatch.call("matmul_dense", self.layout, xp, offsets, minor, vals, x, self.nbatch * self.M, work=work)
        elif report_finite:
            y, finite = _dispatch.call("matmul_dense", self.layout, xp, offsets, minor, vals, x, True, work=work)
            return xp.reshape(y, (y.shape[0], x2.shape[1])), finite
        else:
            y = _dispatch.call("matmul_dense", self.layout, xp, offsets, minor, vals, x, work=work)
        return xp.reshape(y, (y.shape[0], x2.shape[1]))

    def times(self, X, values=None):
        """``(*batch, M, K) @ X`` for a dense X ``(*bX, K, N)``: dense ``(*broadcast batch, M, N)``."""
        xp = self.xp
        M, K, N = self.M, self.K, X.shape[-1]
        bX = tuple(X.shape[:-2])
        nbX = math.prod(bX)
        bshape = broadcast_shapes(self.batch_shape, bX, who="matmul")
        if self.nbatch == 1:
            # every batch of X against the one matrix: X's batches side by side as columns
            Xs = xp.reshape(X, (nbX, K, N))
            X2 = xp.reshape(xp.permute_dims(Xs, (1, 0, 2)), (K, nbX * N)) if nbX > 1 else xp.reshape(Xs, (K, N))
            Y = self.apply(X2, values)
            if nbX > 1:
                Y = xp.permute_dims(xp.reshape(Y, (M, nbX, N)), (1, 0, 2))
            Y = xp.reshape(Y, (*bX, M, N))
            return xp.broadcast_to(Y, (*bshape, M, N)) if bX != bshape else Y
        if bshape != self.batch_shape:
            raise ValueError("internal: the sparse operand must carry the full batch shape")  # see sparse_times_dense
        if nbX == 1 and not self.column_major:
            Y = self.apply(xp.reshape(X, (K, N)), values, shifted=False)
        else:
            Xb = xp.reshape(xp.broadcast_to(X, (*bshape, K, N)), (self.nbatch * K, N))
            Y = self.apply(Xb, values)
        return xp.reshape(Y, (*bshape, M, N))

    def pattern_times(self, X):
        """The pattern (1 at every specified element, 0 elsewhere) times X, in X's dtype."""
        xp = self.xp
        ones = xp.ones(self.parts.values.shape, dtype=X.dtype)
        return self.times(X, ones)


def sparse_times_dense(A, X):
    """``A @ X`` for a matrix operand A ``(*bA, M, K)`` and a dense X ``(*bX, K, N)`` of A's dtype.

    Exact for any fill (see the module docstring); returns a dense array ``(*batch, M, N)``.
    """
    xp = A._xp
    bshape = broadcast_shapes(A.batch_shape, tuple(X.shape[:-2]), who="matmul")
    out_shape = (*bshape, A.shape[-2], X.shape[-1])
    if math.prod(out_shape) == 0:  # no output element (an empty batch, M or N): nothing to compute
        return xp.zeros(out_shape, dtype=X.dtype)
    if math.prod(A.batch_shape) > 1 and A.batch_shape != bshape:
        A = broadcast_to(A, (*bshape, *A.shape[-2:]))
    op = MatrixOperand(A)
    a = op.fill
    zero_fill = array_fill_is_zero(A)
    if backend_kind(xp) == "cupy" and xp.isdtype(X.dtype, ("real floating", "complex floating")):
        # on a GPU the non-finite elements of X are found on the device, not asked about (no wait
        # for the host): a zero fill takes the product, then NaN where an unspecified element met
        # one; a finite non-zero fill (real) the product plus the unspecified elements' exact term
        if zero_fill:
            return _unread_nan(op, X, op.times(X))
        if values_all_finite(xp, a) and xp.isdtype(X.dtype, "real floating"):
            return op.times(X) + _unspecified_term(op, a, X)
    Y = None
    unread = None
    if zero_fill and not op.batch_shape and X.ndim == 2 and op.layout in ("csr", "bsr"):
        unread = unused_rows_of_x(A, X.shape[0] * X.shape[1])
    if unread is not None:
        # A finite product has read only finite rows of X (inf or nan times anything stored is
        # not finite, and stays so through the sum): only X's unread rows need a check then.
        Y, finite = op.apply(X, report_finite=True)
        # when most rows of X are unread (a row block of a wide matrix, a Dask chunk), one
        # contiguous pass over X costs less than gathering them; it decides when X is finite
        if finite and unread.shape[0] * 4 > X.shape[0] and all_finite(xp, X):
            return Y
        if finite and all_finite(xp, xp.take(X, unread, axis=0)):
            return Y
    if all_finite(xp, X):
        if zero_fill:
            return op.times(X) if Y is None else Y
        if all_finite(xp, a):
            colsum = xp.sum(X, axis=-2, keepdims=True, dtype=X.dtype)  # integers wrap as the product does
            return op.times(X, op.parts.values - a) + a * colsum  # A0 @ X + a * (1 @ X)
    if xp.isdtype(X.dtype, "complex floating"):
        return xp.matmul(A.to_dense(), X)
    return (op.times(X) if Y is None else Y) + _unspecified_term(op, a, X)


def _unread_nan(op: MatrixOperand, X, Y):
    """``Y = A0 @ X`` of a zero-fill ``A`` made exact without a read to the host: NaN where column j
    of X holds a non-finite element in a row that row i of A does not store (an unspecified 0 times
    inf or nan), found on the device. Real floating X. An unbatched CSR takes the registry's
    ``unread_nan`` (a kernel that leaves at once for a finite column); other layouts count the
    stored non-finite reads with one more product of the pattern. Complex X: an unspecified 0 times
    a non-finite element is nan + nan j, as the dense product's; the counts are real."""
    xp = op.xp
    if xp.isdtype(X.dtype, "complex floating"):
        bad = xp.astype(~xp.isfinite(X), xp.float32 if X.dtype == xp.complex64 else xp.float64)
        column = xp.sum(bad, axis=-2, keepdims=True)
        return xp.where(column > op.pattern_times(bad), xp.asarray(complex(np.nan, np.nan), dtype=Y.dtype), Y)
    if op.layout == "csr" and op.nbatch == 1 and X.ndim == 2:
        offsets, minor = op._indices(False)
        return _dispatch.call("unread_nan", "csr", xp, offsets, minor, X, Y, work=op.parts.nnz + offsets.shape[0])
    bad = xp.astype(~xp.isfinite(X), X.dtype)
    column = xp.sum(bad, axis=-2, keepdims=True)
    return xp.where(column > op.pattern_times(bad), xp.asarray(xp.nan, dtype=Y.dtype), Y)


@_dispatch.register("unread_nan", "csr", "generic")
def _unread_nan_generic(xp, crow, col, X, Y):
    """The registry's ``unread_nan`` [csr] on any namespace: column counts of X's non-finite
    elements against those the row's stored columns read (a product with the pattern)."""
    bad = xp.astype(~xp.isfinite(X), X.dtype)
    ones = xp.ones(col.shape, dtype=X.dtype)
    seen = xp.reshape(_dispatch.call("matmul_dense", "csr", xp, crow, col, ones, bad, work=col.shape[0]), Y.shape)
    return xp.where(xp.sum(bad, axis=-2, keepdims=True) > seen, xp.asarray(xp.nan, dtype=Y.dtype), Y)


def _unspecified_term(op: MatrixOperand, a, X):
    """``sum over unspecified k of a * X[k, j]`` per output element, with IEEE nan/inf semantics.

    Real dtypes. The finite products are summed as ``a * (colsum(F) - P @ F)`` where F is X with
    the non-finite products zeroed and P the pattern; the nan, +inf and -inf products are counted
    the same way (column counts minus the pattern's counts), and any of them overrides the sum.
    """
    xp = op.xp
    with np.errstate(all="ignore"):  # nan and inf products are what is being counted
        prod = a * X
    nan_p = xp.isnan(prod)
    pos_p = prod == xp.inf
    neg_p = prod == -xp.inf
    N = X.shape[-1]
    cats = xp.astype(xp.concat([nan_p, pos_p, neg_p], axis=-1), xp.int64)
    counts = xp.sum(cats, axis=-2, keepdims=True) - op.pattern_times(cats)
    n_nan, n_pos, n_neg = counts[..., :N], counts[..., N : 2 * N], counts[..., 2 * N :]
    if values_all_finite(xp, a):
        F = xp.where(xp.isfinite(prod), X, xp.zeros((), dtype=X.dtype))
        term = a * (xp.sum(F, axis=-2, keepdims=True) - op.pattern_times(F))
    else:
        term = xp.zeros(n_nan.shape, dtype=X.dtype)
    nan, inf = xp.asarray(xp.nan, dtype=X.dtype), xp.asarray(xp.inf, dtype=X.dtype)
    term = xp.where(n_neg > 0, -inf, term)
    term = xp.where(n_pos > 0, inf, term)
    return xp.where((n_nan > 0) | ((n_pos > 0) & (n_neg > 0)), nan, term)


def spgemm_zero_fill(A, B, out_index_dtype=None):
    """``A0 @ B0`` of two CSR matrix operands with their values taken as is (fills ignored): a CSR.

    Batches must agree (the caller broadcasts). The result holds every structurally reachable
    position; batches with fewer entries are padded with explicit zeros (PyTorch's equal-nse rule).
    """
    return _spgemm(MatrixOperand(A), MatrixOperand(B), out_index_dtype)


def _spgemm(opA, opB, out_index_dtype=None, a_values=None, b_values=None):
    """SpGEMM of two matrix operands (optionally with other values on their patterns): a CSR."""
    xp = opA.xp
    a_off, a_minor = opA._indices(shifted=True)  # A's columns index B's global rows
    b_off, b_minor = opB._indices(shifted=False)
    M, N = opA.M, opB.K
    av = opA.flat_values(a_values)
    bv = opB.flat_values(b_values)
    work = opA.parts.nnz + opB.parts.nnz
    crow, col, vals = _dispatch.call("spgemm", "csr", xp, a_off, a_minor, av, b_off, b_minor, bv, N, work=work)
    nbatch = opA.nbatch
    parts = _Parts(xp, crow, col, xp.reshape(vals, (vals.shape[0], 1)), nbatch, M, N)
    nnz = col.shape[0]  # the kernels return exactly the entries (no read of crow[-1])
    if out_index_dtype is None:
        out_index_dtype = xp.int32 if max(M, N, nnz) < 2**31 else xp.int64
    parts = _equalize_batches(parts, xp.zeros((1,), dtype=vals.dtype), out_index_dtype)
    zero = xp.zeros((), dtype=vals.dtype)
    remember_fill_is_zero(zero, True)  # made here: the result's products never ask the device about it
    remember_all_finite(zero, True)
    return _build(CSR, parts, (*opA.batch_shape, M, N), zero, opA.batch_shape, (), out_index_dtype)


def sparse_times_sparse(A, B):
    """``A @ B`` for CSR matrix operands of one dtype with equal batch shapes.

    Zero fills and finite values: a sparse CSR (SpGEMM). Finite fills and values: the dense result
    from one SpGEMM of the zero-fill parts plus a row sum, a column sum and a constant. Anything
    non-finite: the exact sparse @ dense path with B densified.
    """
    xp = A._xp
    a, b = A._fill, B._fill
    # A @ A (and A @ A.mT) hold one values array: check it once
    values = (A._values,) if B._values is A._values else (A._values, B._values)
    finite = all(values_all_finite(xp, t) for t in (a, b, *values))
    if not finite:
        return sparse_times_dense(A, B.to_dense())
    if array_fill_is_zero(A) and array_fill_is_zero(B):
        return spgemm_zero_fill(A, B)
    opA, opB = MatrixOperand(A), MatrixOperand(B)
    av, bv = opA.parts.values - a, opB.parts.values - b  # the zero-fill parts A0, B0
    C0 = _spgemm(opA, opB, None, av, bv).to_dense()
    K = A.shape[-1]
    ones_k = xp.ones((K, 1), dtype=A.dtype)
    row_sums = opA.times(ones_k, av)  # (*batch, M, 1)
    from .._functions.manipulation import matrix_transpose

    opBT = MatrixOperand(matrix_transpose(B))  # CSC view of B: its "rows" are B's columns
    col_sums = xp.matrix_transpose(opBT.times(ones_k, bv))  # (*batch, 1, N)
    k = xp.astype(xp.asarray(K), A.dtype)  # wraps for small integer dtypes, as the dense product does
    return C0 + b * row_sums + a * col_sums + a * b * k
