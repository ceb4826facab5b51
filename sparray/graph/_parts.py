"""Operands of ``sparray.graph``'s functions as the kernels take them: CSR parts of a matrix's
stored entries, bitmaps or index lists of a vector's, masks; and results back as sparse arrays
with undefined fills.

>>> import sparray, numpy as np
>>> A = sparray.asarray(np.array([[0.0, 2.0], [3.0, 0.0]]), layout="csc")
>>> crow, col, values = matrix_parts(A)
>>> crow.tolist(), col.tolist(), values.tolist()
([0, 1, 2], [1, 0], [2.0, 3.0])
"""

from __future__ import annotations

import math

from .._array.base import SparseArray
from .._array.coo import COO
from .._array.compressed import CSR
from .._core.iso import iso_element
from .._core.keys import index_dtype_for, linear_keys
from .._core.namespace import backend_kind, is_array, namespace_of
from .._engine import dispatch as _dispatch
from .._functions.undefined import undefined_fill
from ..kernels._kept import KeptPerArray

__all__ = ["matrix_parts", "row_parts", "vector_parts", "csr_result", "vector_result", "dense_matrix_parts", "mask_matrix", "mask_vector"]


def _check_matrix(who, A, name="A"):
    if not isinstance(A, SparseArray):
        raise TypeError(f"sparray.graph.{who}: {name} must be a sparse matrix; got {type(A).__name__}")
    if A.ndim != 2 or A.dense_ndim:
        raise ValueError(f"sparray.graph.{who}: {name} must be a 2-d sparse matrix without dense dims; got shape "
                         f"{A.shape} (dense_ndim {A.dense_ndim})")


def matrix_parts(A, who="matmul", name="A"):
    """``(crow, col, values)`` of the CSR of A's stored entries (its fill never read)."""
    _check_matrix(who, A, name)
    xp = A._xp
    if A.layout == "2:4":
        A = A.as_hub()
    if A.layout == "csr":  # its own parts: checked once per array (the check is kept on A)
        A._check_contents()
        return A._cidx, A._pidx, A._values
    B = A._replace_values(A._values, xp.zeros((), dtype=A.dtype))  # a stand-in fill: conversions read none
    if B.layout != "csr":
        B = B.to_layout("csr")
    B._check_contents()
    return B._cidx, B._pidx, B._values


#: the other orientation of a matrix, kept while its arrays live: per minor index array the CSR
#: pattern of the transpose and the permutation that takes values there, per values array the
#: permuted values (one more copy of the matrix in memory, built on first use)
_TRANSPOSED = KeptPerArray()
_TRANSPOSED_VALUES = KeptPerArray()


def row_parts(A, transposed=False, who="matmul"):
    """CSR parts ``(crow, col, values)`` of A's rows (``transposed``: of A.T's rows, i.e. A's
    columns): a CSR's own and a CSC's transpose's come as they are; the other orientation from
    the transpose kept for A's arrays (the first call transposes). Other layouts: converted to CSR."""
    _check_matrix(who, A)
    if A.layout == "csc":
        own, nminor, own_is_transposed = matrix_parts(A.mT, who), int(A.shape[0]), True
    else:
        own, nminor, own_is_transposed = matrix_parts(A, who), int(A.shape[1]), False
    if own_is_transposed == transposed:
        return own
    xp = A._xp
    crow, col, values = own
    kept = _TRANSPOSED.get(col)
    if kept is None:
        nmajor = int(crow.shape[0]) - 1
        positions = xp.reshape(xp.arange(int(col.shape[0]), dtype=xp.int64), (-1, 1))
        t_crow, t_col, perm = _dispatch.call("transpose_compressed", "csr", xp, crow, col, positions, 1, nmajor, nminor,
                                             col.dtype, work=int(col.shape[0]) + nmajor)
        kept = (t_crow, t_col, perm[:, 0])
        _TRANSPOSED.put(col, kept)
    if values is None or iso_element(values) is not None:  # iso values: the same one element everywhere
        return kept[0], kept[1], values
    t_values = _TRANSPOSED_VALUES.get(values)
    if t_values is None or t_values[0] is not kept:
        t_values = (kept, xp.take(values, kept[2]))
        _TRANSPOSED_VALUES.put(values, t_values)
    return kept[0], kept[1], t_values[1]


def dense_matrix_parts(xp, X):
    """A dense matrix as CSR parts with every element stored."""
    m, n = (int(s) for s in X.shape)
    import array_api_compat

    dev = array_api_compat.device(X)
    idt = xp.int32 if m * n < 2**31 else xp.int64
    crow = xp.arange(m + 1, dtype=idt, device=dev) * n
    col = xp.reshape(xp.broadcast_to(xp.arange(n, dtype=idt, device=dev), (m, n)), (m * n,))
    return crow, col, xp.reshape(X, (m * n,))


def vector_parts(x, n, who="matmul"):
    """``(values, present, indices)`` of a vector: a dense array is full (present None); a sparse
    1-d array gives its stored entries as indices and values (present None)."""
    if isinstance(x, SparseArray):
        if x.ndim != 1 or x.dense_ndim:
            raise ValueError(f"sparray.graph.{who}: a sparse vector must be 1-d without dense dims; got shape {x.shape}")
        if x.shape[0] != n:
            raise ValueError(f"sparray.graph.{who}: the vector has {x.shape[0]} elements, the matrix needs {n}")
        xp = x._xp
        B = x._replace_values(x._values, xp.zeros((), dtype=x.dtype))
        B = (B if B.layout == "coo" else B.to_layout("coo")).coalesce()
        return B._values, None, xp.astype(B._indices[0], xp.int64)
    if not is_array(x) or x.ndim != 1:
        raise TypeError(f"sparray.graph.{who}: a vector must be a 1-d array (dense or sparse); got {type(x).__name__}")
    if x.shape[0] != n:
        raise ValueError(f"sparray.graph.{who}: the vector has {x.shape[0]} elements, the matrix needs {n}")
    return x, None, None


def mask_vector(mask, n, structural, who="matmul"):
    """``(present, values)`` bool/values bitmaps of a vector mask (sparse: its entries; dense: its
    truth, or with ``structural`` every element), or (None, None)."""
    if mask is None:
        return None, None
    if isinstance(mask, SparseArray):
        if mask.shape != (n,):
            raise ValueError(f"sparray.graph.{who}: the mask has shape {mask.shape}; the result has shape {(n,)}")
        values, _, indices = vector_parts(mask, n, who)
        xp = mask._xp
        keys = xp.arange(n, dtype=xp.int64)
        if indices.shape[0] == 0:
            return xp.zeros((n,), dtype=xp.bool), xp.zeros((n,), dtype=values.dtype)
        pos = xp.clip(xp.searchsorted(indices, keys), 0, indices.shape[0] - 1)
        present = xp.take(indices, pos) == keys
        return present, xp.where(present, xp.take(values, pos), xp.zeros((), dtype=values.dtype))
    xp = namespace_of(mask)
    if tuple(mask.shape) != (n,):
        raise ValueError(f"sparray.graph.{who}: the mask has shape {tuple(mask.shape)}; the result has shape {(n,)}")
    truth = xp.astype(mask, xp.bool)
    return truth, None


def mask_matrix(mask, shape, who="matmul"):
    """CSR parts ``(crow, col, values)`` of a matrix mask (a sparse array's entries; a dense
    array: its non-zero elements), or None."""
    if mask is None:
        return None
    if tuple(mask.shape) != tuple(shape):
        raise ValueError(f"sparray.graph.{who}: the mask has shape {tuple(mask.shape)}; the result has shape {tuple(shape)}")
    if isinstance(mask, SparseArray):
        return matrix_parts(mask, who, "mask")
    from .._functions.creation import asarray

    return matrix_parts(asarray(mask, layout="csr", fill_value=False if mask.dtype == namespace_of(mask).bool else 0), who, "mask")


def csr_result(xp, crow, col, values, shape):
    """A CSR of these parts with an undefined fill."""
    return CSR._from_parts(xp, crow, col, values, tuple(shape), undefined_fill(xp, values.dtype), checked=True)


def vector_result(xp, y, present):
    """A 1-d COO of ``y`` where ``present``, fill undefined."""
    n = int(y.shape[0])
    if backend_kind(xp) == "numba" and n and bool(xp.all(present)):  # full (a dense x's pull): y as it is
        idt = index_dtype_for(xp, (n,), n)
        return COO._from_parts(xp, xp.reshape(xp.arange(n, dtype=idt), (1, n)), y, (n,), undefined_fill(xp, y.dtype),
                               coalesced=True)
    idt = index_dtype_for(xp, (n,), n)
    keys, values = _dispatch.call("bitmap_compact", "dense", xp, y, present, idt, work=n)
    return COO._from_parts(xp, xp.reshape(keys, (1, keys.shape[0])), values, (n,), undefined_fill(xp, y.dtype),
                           coalesced=True)


def entry_keys(A):
    """Sorted linear keys and values of a sparse array's stored entries (COO order)."""
    xp = A._xp
    B = A._replace_values(A._values, xp.zeros((), dtype=A.dtype))
    B = (B if B.layout == "coo" else B.to_layout("coo")).coalesce()
    return linear_keys(xp, B._indices, B.shape[: B.sparse_ndim]), B


def positions(n) -> int:
    return math.prod(n)
