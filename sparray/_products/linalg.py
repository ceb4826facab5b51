"""Linear algebra: ``matmul`` (``@``), ``tensordot``, ``vecdot``, ``addmm`` and ``sampled_addmm``.

Every product is exact for any fill value (API.md section 2, RFC point 10; ``_products.py``
holds the decomposition): the result equals the dense product of the dense arrays, nan and inf
included. What comes back:

- sparse @ dense, dense @ sparse: a dense array of the operands' namespace;
- sparse @ sparse: a sparse array in the left operand's layout when both fills are zero and
  every stored value is finite (SpGEMM; BSR keeps ``(A's bh, B's bw)`` blocks when they divide
  the result), else a dense array (a non-zero fill makes every output element a sum that
  involves it);
- batches (leading dims) broadcast as in the array API; 1-d operands are promoted and the added
  dim removed again, as ``numpy.matmul`` does.

Hybrid operands (dense dims) take part with their dense dims as ordinary dims: the last two
dims of an array are the matrix dims whatever its layout, so a hybrid operand is first turned
into one without dense dims (``to_layout(..., dense_ndim=0)``), or made dense when its fill
varies along the dense dims.

>>> import sparray, numpy as np
>>> A = sparray.asarray(np.array([[0.0, 2.0], [3.0, 0.0]]), layout="csr")
>>> (A @ np.array([1.0, 1.0])).tolist()
[2.0, 3.0]
>>> (A @ A).layout, (A @ A).to_dense().tolist()
('csr', [[6.0, 0.0], [0.0, 6.0]])
"""

from __future__ import annotations

import math

from .._core import dtypes as _dtypes
from . import lean as _lean
from .._array.base import SparseArray
from .._array.coo import COO
from .._layout.conversion import carry_product_facts
from .._functions.manipulation import (
    broadcast_shapes,
    broadcast_to,
    coo_permute,
    coo_reshape,
    matrix_transpose,
)
from .._core.namespace import device_of, is_array, namespace_of
from .._array.operands import is_scalar
from .products import sparse_times_dense, sparse_times_sparse

__all__ = ["addmm", "matmul", "sampled_addmm", "tensordot", "vecdot"]


# --- operands -------------------------------------------------------------------------------------
def _namespace(who, x1, x2):
    """The shared namespace of two operands, with errors for scalars, mixed libraries and devices."""
    for name, x in (("x1", x1), ("x2", x2)):
        if is_scalar(x) or not (isinstance(x, SparseArray) or is_array(x)):
            raise TypeError(f"{who}: {name} must be an array (sparse or dense); got {type(x).__name__}")
    comps = [x._values if isinstance(x, SparseArray) else x for x in (x1, x2)]
    try:
        xp = namespace_of(*comps)
    except TypeError:
        kinds = [f"{type(c).__module__}.{type(c).__name__}" for c in comps]
        raise TypeError(f"{who}: both operands must hold arrays of one namespace; got {kinds[0]} and {kinds[1]}") from None
    d1, d2 = device_of(comps[0]), device_of(comps[1])
    if d1 != d2:
        raise ValueError(
            f"{who}: operands of shapes {tuple(x1.shape)} and {tuple(x2.shape)} are on different devices "
            f"({d1} and {d2}); move one with to_device"
        )
    return xp


def _product_dtype(who, xp, x1, x2):
    dtype = _dtypes.result_type(x1, x2)
    if dtype == xp.bool:
        raise TypeError(f"{who}: expected numeric operands; got {_dtypes.dtype_name(x1.dtype)} and {_dtypes.dtype_name(x2.dtype)}")
    return dtype


def _cast(xp, x, dtype):
    if x.dtype == dtype:
        return x
    return x.astype(dtype) if isinstance(x, SparseArray) else xp.astype(x, dtype)


def _matrix_operand(A, dtype):
    """``A`` as a compressed array without dense dims (COO -> CSR), or None when it must go dense."""
    if A.dense_ndim:
        try:
            A = A.to_layout(A.layout, dense_ndim=0)
        except ValueError:  # the fill varies along the dense dims: no sparse matrix holds it
            return None
    if A.layout == "coo":
        A = carry_product_facts(A, A.to_layout("csr"))
    return A if A.dtype == dtype else A.astype(dtype)


def _add_unit_axis(x, axis):
    """``x`` with a new size-1 dim at ``axis`` (0: in front, -1: at the end), sparse or dense."""
    if not isinstance(x, SparseArray):
        return x[None, :] if axis == 0 else x[:, None]
    xp = x._xp
    A = x.to_layout("coo", dense_ndim=0) if x.dense_ndim else x.to_layout("coo")
    zeros = xp.zeros((1, A.nse), dtype=A._indices.dtype)
    if axis == 0:
        indices, shape = xp.concat([zeros, A._indices], axis=0), (1, *A.shape)
    else:
        indices, shape = xp.concat([A._indices, zeros], axis=0), (*A.shape, 1)
    return COO._from_parts(xp, indices, A._values, shape, A._fill, coalesced=A._coalesced)


def _drop_unit_axis(R, axis):
    """Remove the size-1 dim ``axis`` (negative) that a 1-d operand added."""
    if not isinstance(R, SparseArray):
        return R[..., 0, :] if axis == -2 else R[..., 0]
    A = R.to_layout("coo")
    xp = A._xp
    ax = A.ndim + axis
    shape = A.shape[:ax] + A.shape[ax + 1 :]
    if len(shape) == 0:
        return A.to_dense()[(0,) * A.ndim]
    keep = [d for d in range(A.ndim) if d != ax]
    indices = xp.take(A._indices, xp.asarray(keep, dtype=xp.int64), axis=0)
    return COO._from_parts(xp, indices, A._values, shape, A._fill, coalesced=A._coalesced)


# --- matmul -----------------------------------------------------------------------------------------
def matmul(x1, x2, /):
    """Matrix product ``x1 @ x2`` (array API ``matmul``), exact for any fill value.

    Operands may be sparse (any layout) or dense arrays of the same namespace; see the module
    docstring for what comes back. Shapes follow the array API: ``(..., M, K) @ (..., K, N)``
    with broadcast batch dims; a 1-d operand is promoted to a matrix and the added dim dropped.

    >>> import sparray, numpy as np
    >>> A = sparray.asarray(np.eye(3), fill_value=0.0, layout="coo")
    >>> (A @ np.arange(3.0)).tolist()
    [0.0, 1.0, 2.0]
    """
    s1, s2 = isinstance(x1, SparseArray), isinstance(x2, SparseArray)
    if s1 and not s2:
        lean = _lean.matmul(x1, x2)  # a 2-D NumPy CSR times a NumPy array: straight to the kernel
        if lean is not None:
            return lean
    if not (s1 or s2):
        return namespace_of(x1, x2).matmul(x1, x2)
    xp = _namespace("matmul", x1, x2)
    if x1.ndim == 0 or x2.ndim == 0:
        raise ValueError(f"matmul: operands must be at least 1-d; got shapes {tuple(x1.shape)} and {tuple(x2.shape)}")
    dtype = _product_dtype("matmul", xp, x1, x2)
    a = _add_unit_axis(x1, 0) if x1.ndim == 1 else x1
    b = _add_unit_axis(x2, -1) if x2.ndim == 1 else x2
    if a.shape[-1] != b.shape[-2]:
        raise ValueError(
            f"matmul: shapes {tuple(x1.shape)} and {tuple(x2.shape)} are not aligned: the last dim of x1 "
            f"({a.shape[-1]}) must equal the {'only' if x2.ndim == 1 else 'second-to-last'} dim of x2 ({b.shape[-2]})"
        )
    try:
        broadcast_shapes(a.shape[:-2], b.shape[:-2])
    except ValueError:
        raise ValueError(
            f"matmul: the batch dims of shapes {tuple(x1.shape)} and {tuple(x2.shape)} do not broadcast"
        ) from None
    R = _matmul(xp, a, b, dtype)
    if x2.ndim == 1:
        R = _drop_unit_axis(R, -1)
    if x1.ndim == 1:
        R = _drop_unit_axis(R, -1 if x2.ndim == 1 else -2)
    return R


def _matmul(xp, a, b, dtype):
    sa, sb = isinstance(a, SparseArray), isinstance(b, SparseArray)
    if not (sa or sb):
        return xp.matmul(_cast(xp, a, dtype), _cast(xp, b, dtype))
    A = _matrix_operand(a, dtype) if sa else None
    B = _matrix_operand(b, dtype) if sb else None
    if sa and A is None:  # a hybrid operand whose fill varies along its dense dims: only that one goes dense
        return _matmul(xp, _cast(xp, a.to_dense(), dtype), b, dtype)
    if sb and B is None:
        return _matmul(xp, a, _cast(xp, b.to_dense(), dtype), dtype)
    if sa and not sb:
        return sparse_times_dense(A, _cast(xp, b, dtype))
    if sb and not sa:
        Y = sparse_times_dense(matrix_transpose(B), xp.matrix_transpose(_cast(xp, a, dtype)))
        return xp.matrix_transpose(Y)
    A, B = carry_product_facts(A, A.to_layout("csr")), carry_product_facts(B, B.to_layout("csr"))
    bshape = broadcast_shapes(A.batch_shape, B.batch_shape)
    if A.batch_shape != bshape:
        A = broadcast_to(A, (*bshape, *A.shape[-2:])).to_layout("csr")
    if B.batch_shape != bshape:
        B = broadcast_to(B, (*bshape, *B.shape[-2:])).to_layout("csr")
    R = sparse_times_sparse(A, B)
    return _in_layout_of(R, a, b) if isinstance(R, SparseArray) else R


def _in_layout_of(R, a, b):
    """The SpGEMM result (CSR) in the left operand's layout (blocked: (a's bh, b's bw) if they divide)."""
    layout = a.layout
    if layout in ("bsr", "bsc"):
        bh = a.blocksize[0]
        bw = b.blocksize[1] if b.layout in ("bsr", "bsc") else a.blocksize[1]
        if R.shape[-2] % bh or R.shape[-1] % bw:
            return R
        return R.to_layout(layout, blocksize=(bh, bw))
    return R.to_layout(layout)


# --- tensordot, vecdot --------------------------------------------------------------------------------
def _normalize_axes(axes, x1, x2):
    if isinstance(axes, int):
        if axes < 0 or axes > min(x1.ndim, x2.ndim):
            raise ValueError(f"tensordot: axes={axes} must be in [0, {min(x1.ndim, x2.ndim)}] for shapes {x1.shape} and {x2.shape}")
        return list(range(x1.ndim - axes, x1.ndim)), list(range(axes))
    try:
        a1, a2 = (list(a) for a in axes)
    except (TypeError, ValueError):
        raise ValueError(f"tensordot: axes must be an int or a pair of sequences of ints; got {axes!r}") from None
    if len(a1) != len(a2):
        raise ValueError(f"tensordot: axes {axes!r} must name as many dims of x1 as of x2")
    out = []
    for a, x, name in ((a1, x1, "x1"), (a2, x2, "x2")):
        norm = []
        for d in a:
            if not -x.ndim <= d < x.ndim:
                raise ValueError(f"tensordot: axis {d} is out of range for {name} of shape {x.shape}")
            norm.append(d % x.ndim)
        if len(set(norm)) != len(norm):
            raise ValueError(f"tensordot: axes {a} of {name} repeat a dim")
        out.append(norm)
    return out


def _permute_reshape(xp, x, perm, shape):
    """``x`` with dims ``perm`` in that order, reshaped to the matrix ``shape``: sparse (COO) when it
    can be, dense when ``x`` is a hybrid array whose fill varies along its dense dims (no sparse
    matrix holds such a fill; ``matmul`` makes the same choice)."""
    if isinstance(x, SparseArray):
        try:
            A = x.to_layout("coo", dense_ndim=0) if x.dense_ndim else x.to_layout("coo")
        except ValueError:
            x = x.to_dense()
        else:
            return coo_reshape(coo_permute(A, perm), shape)
    return xp.reshape(xp.permute_dims(x, tuple(perm)), shape)


def tensordot(x1, x2, /, *, axes=2):
    """Contract ``axes`` of ``x1`` with ``axes`` of ``x2`` (array API ``tensordot``), via one ``matmul``.

    >>> import sparray, numpy as np
    >>> A = sparray.asarray(np.arange(6.0).reshape(2, 3), fill_value=0.0)
    >>> sparray.tensordot(A, np.ones((3, 2)), axes=1).tolist()
    [[3.0, 3.0], [12.0, 12.0]]
    """
    xp = _namespace("tensordot", x1, x2)
    a1, a2 = _normalize_axes(axes, x1, x2)
    for d1, d2 in zip(a1, a2):
        if x1.shape[d1] != x2.shape[d2]:
            raise ValueError(
                f"tensordot: shapes {tuple(x1.shape)} and {tuple(x2.shape)} do not match along the contracted "
                f"axes: x1 dim {d1} has {x1.shape[d1]}, x2 dim {d2} has {x2.shape[d2]}"
            )
    f1 = [d for d in range(x1.ndim) if d not in a1]
    f2 = [d for d in range(x2.ndim) if d not in a2]
    k = math.prod(x1.shape[d] for d in a1)
    m = math.prod(x1.shape[d] for d in f1)
    n = math.prod(x2.shape[d] for d in f2)
    left = _permute_reshape(xp, x1, f1 + a1, (m, k))
    right = _permute_reshape(xp, x2, a2 + f2, (k, n))
    R = matmul(left, right)
    shape = tuple(x1.shape[d] for d in f1) + tuple(x2.shape[d] for d in f2)
    if isinstance(R, SparseArray):
        if not shape:
            return xp.reshape(R.to_dense(), ())
        return coo_reshape(R.to_layout("coo"), shape)
    return xp.reshape(R, shape)


def vecdot(x1, x2, /, *, axis=-1):
    """``sum(conj(x1) * x2, axis=axis)`` over broadcast operands (array API ``vecdot``).

    >>> import sparray, numpy as np
    >>> A = sparray.asarray(np.array([[1.0, 0.0], [0.0, 2.0]]), fill_value=0.0)
    >>> sparray.vecdot(A, np.array([3.0, 4.0])).tolist()
    [3.0, 8.0]
    """
    from .._functions.elementwise import conj, multiply
    from .._functions.reductions import sum as sparse_sum

    xp = _namespace("vecdot", x1, x2)
    if x1.ndim == 0 or x2.ndim == 0:
        raise ValueError(f"vecdot: operands must be at least 1-d; got shapes {tuple(x1.shape)} and {tuple(x2.shape)}")
    dtype = _product_dtype("vecdot", xp, x1, x2)
    ndim = max(x1.ndim, x2.ndim)
    if not -ndim <= axis < 0:
        raise ValueError(f"vecdot: axis {axis} must be negative and at least -{ndim} for shapes {x1.shape} and {x2.shape}")
    n1 = x1.shape[axis] if axis >= -x1.ndim else 1
    n2 = x2.shape[axis] if axis >= -x2.ndim else 1
    if n1 != n2:
        raise ValueError(f"vecdot: shapes {tuple(x1.shape)} and {tuple(x2.shape)} differ along axis {axis} ({n1} and {n2})")
    broadcast_shapes(tuple(x1.shape), tuple(x2.shape), who="vecdot")
    c1 = conj(x1) if isinstance(x1, SparseArray) else (xp.conj(x1) if xp.isdtype(x1.dtype, "complex floating") else x1)
    prod = multiply(c1, x2)
    # the sum keeps the promoted dtype (uint8 . uint8 is uint8, wrapping as NumPy's products do),
    # where a plain sum would widen small integers to the default integer dtype
    if isinstance(prod, SparseArray):
        return sparse_sum(prod, axis=axis, dtype=dtype)
    return xp.sum(prod, axis=axis, dtype=dtype)


# --- addmm, sampled_addmm -------------------------------------------------------------------------------
def addmm(C, A, B, *, beta=1, alpha=1):
    """``beta * C + alpha * (A @ B)``, PyTorch's ``addmm`` for any layouts and fill values.

    As in PyTorch, ``beta == 0`` ignores C's values (nan and inf in C do not propagate) but C still
    takes part in broadcasting. The result is sparse when ``beta * C`` and the product both are.

    >>> import sparray, numpy as np
    >>> A = sparray.asarray(np.eye(2), layout="csr")
    >>> sparray.addmm(np.ones((2, 2)), A, np.full((2, 2), 3.0), beta=2.0).tolist()
    [[5.0, 5.0], [5.0, 5.0]]
    """
    xp = _namespace("addmm", A, B)
    if not (is_array(C) or isinstance(C, SparseArray)):
        raise TypeError(f"addmm: C must be an array (sparse or dense); got {type(C).__name__}")
    return add_product(xp, C, matmul(A, B), beta=beta, alpha=alpha)


def add_product(xp, C, P, *, beta=1, alpha=1):
    """``beta * C + alpha * P``, ``P`` a product already computed: ``addmm``'s rules (``beta == 0``
    ignores C's values, C still broadcasts)."""
    from .._functions.elementwise import add, multiply

    if alpha != 1:
        P = multiply(P, alpha)
    try:
        shape = broadcast_shapes(tuple(C.shape), tuple(P.shape), who="addmm")
    except ValueError:
        raise ValueError(f"addmm: C of shape {tuple(C.shape)} does not broadcast with A @ B of shape {tuple(P.shape)}") from None
    if beta == 0:
        dtype = _dtypes.result_type(C, P)
        P = _cast(xp, P, dtype)
        return broadcast_to(P, shape) if isinstance(P, SparseArray) else xp.broadcast_to(P, shape)
    scaled = C if beta == 1 else multiply(C, beta)
    return add(scaled, P)


def sampled_addmm(C, A, B, *, beta=1, alpha=1):
    """SDDMM: ``alpha * (A @ B) * spy(C) + beta * C``: only C's specified elements are computed.

    ``C`` is sparse (any layout, batch dims allowed, no dense dims) ``(*batch, M, N)``; ``A``
    ``(*batch, M, K)`` and ``B`` ``(*batch, K, N)`` are dense (sparse ones are densified), their
    batch dims broadcasting to C's. The result has C's layout and pattern: at a specified element
    ``alpha * (A @ B)[i, j] + beta * C[i, j]``, and fill ``beta * C.fill_value`` (``spy(C)`` is 0 at
    unspecified elements, as in PyTorch, whose ``sampled_addmm`` this generalises). ``beta == 0``
    ignores C's values and fill (nan does not propagate).

    >>> import sparray, numpy as np
    >>> C = sparray.asarray(np.eye(2), layout="csr")
    >>> R = sparray.sampled_addmm(C, np.ones((2, 3)), np.ones((3, 2)), beta=0.5)
    >>> R.to_dense().tolist()
    [[3.5, 0.0], [0.0, 3.5]]
    """
    from .._engine import dispatch as _dispatch

    if not isinstance(C, SparseArray):
        raise TypeError(f"sampled_addmm: C must be a SparseArray (its pattern is sampled); got {type(C).__name__}")
    xp = C._xp
    _namespace("sampled_addmm", C, A)
    _namespace("sampled_addmm", C, B)
    if C.dense_ndim:
        raise ValueError(
            f"sampled_addmm: C must have no dense dims (C.shape={C.shape}, dense_ndim={C.dense_ndim}); "
            "convert it with C.to_layout(C.layout, dense_ndim=0)"
        )
    Ad = A.to_dense() if isinstance(A, SparseArray) else A
    Bd = B.to_dense() if isinstance(B, SparseArray) else B
    if C.ndim < 2 or Ad.ndim < 2 or Bd.ndim < 2:
        raise ValueError(f"sampled_addmm: C, A and B must be at least 2-d; got shapes {C.shape}, {tuple(Ad.shape)}, {tuple(Bd.shape)}")
    M, N, K = C.shape[-2], C.shape[-1], Ad.shape[-1]
    if Ad.shape[-2] != M or Bd.shape[-2] != K or Bd.shape[-1] != N:
        raise ValueError(
            f"sampled_addmm: shapes do not fit C (..., M, N) = {C.shape}, A (..., M, K) = {tuple(Ad.shape)}, "
            f"B (..., K, N) = {tuple(Bd.shape)}"
        )
    batch = C.shape[:-2]
    try:
        if broadcast_shapes(batch, tuple(Ad.shape[:-2]), tuple(Bd.shape[:-2])) != batch:
            raise ValueError
    except ValueError:
        raise ValueError(
            f"sampled_addmm: the batch dims of A {tuple(Ad.shape)} and B {tuple(Bd.shape)} must broadcast to C's {batch}"
        ) from None
    dtype = _product_dtype("sampled_addmm", xp, Ad, Bd)
    dtype = _dtypes.result_type(dtype, C.dtype)
    nb = math.prod(batch)
    a2 = xp.reshape(xp.broadcast_to(xp.astype(Ad, dtype), (*batch, M, K)), (nb * M, K))
    bt2 = xp.reshape(xp.broadcast_to(xp.matrix_transpose(xp.astype(Bd, dtype)), (*batch, N, K)), (nb * N, K))
    R = C.coalesce() if C.layout == "coo" else C.to_layout("csr")
    if R.dtype != dtype:
        R = R.astype(dtype)
    offsets, cols, old = _sampling_pattern(xp, R, nb)
    dots = _dispatch.call("sddmm", "csr", xp, offsets, cols, a2, bt2, work=cols.shape[0] + offsets.shape[0])
    values = dots if alpha == 1 else dots * alpha
    if beta == 0:
        fill = xp.zeros((), dtype=dtype)
    else:
        values = values + (old if beta == 1 else beta * old)
        fill = R._fill if beta == 1 else xp.astype(xp.asarray(beta * R._fill), dtype)
    out = R._replace_values(xp.reshape(values, R._values.shape), fill)
    if C.layout in ("csr", "coo"):
        return out
    blocksize = C.blocksize if C.layout in ("bsr", "bsc") else None
    return out.to_layout(C.layout, blocksize=blocksize)


def _sampling_pattern(xp, R, nbatch):
    """C's pattern as one CSR over ``nbatch * M`` rows with columns shifted by ``batch * N``.

    ``R`` is a coalesced COO or a CSR; returns (offsets, columns, flat values), in R's order (a
    COO is used directly: converting a batched COO to CSR would pad batches with extra entries).
    """
    from .._engine import dispatch as _dispatch
    from .._core.keys import linear_keys
    from .products import MatrixOperand

    M, N = R.shape[-2], R.shape[-1]
    if R.layout == "csr":
        op = MatrixOperand(R)
        offsets, cols = op._indices(shifted=True)
        return offsets, cols, xp.reshape(op.parts.values, (op.parts.nnz,))
    idx = xp.astype(R._indices, xp.int64)
    batch = linear_keys(xp, idx[:-2, :], R.shape[:-2]) if R.ndim > 2 else xp.zeros((R.nse,), dtype=xp.int64)
    rows = batch * M + idx[-2, :]
    offsets = _dispatch.call("compress_offsets", "csr", xp, rows, nbatch * M, xp.int64, work=R.nse)
    return offsets, batch * N + idx[-1, :], R._values
