"""Arrays broadcast against each other: ``broadcast_arrays`` and ``meshgrid`` (array API).

Both are ``broadcast_to`` (``sparray._functions.manipulation``) applied to every operand: a sparse operand
stays sparse (its entries are replicated along the new and the size-1 dims, O(result nse), with
its fill), a dense operand is broadcast by its own namespace. Operands may mix sparse arrays and
dense arrays; each output keeps its operand's kind, dtype and (where the shape allows it) layout.

>>> import sparray
>>> x = sparray.COO([[1]], [2.0], shape=(3,), fill_value=-1.0)
>>> X, Y = sparray.meshgrid(x, sparray.COO([[0]], [5.0], shape=(2,)))
>>> X.shape, X.to_dense().tolist()
((2, 3), [[-1.0, 2.0, -1.0], [-1.0, 2.0, -1.0]])
>>> Y.to_dense().tolist()
[[5.0, 5.0, 5.0], [0.0, 0.0, 0.0]]
"""

from __future__ import annotations

from .._array.base import SparseArray
from .manipulation import (
    _as_coo,
    _fill_uniform_over,
    broadcast_shapes,
    broadcast_to,
    expand_dims,
    move_dense_to_sparse,
)
from .._core.namespace import is_array, namespace_of

__all__ = ["broadcast_arrays", "meshgrid"]


def _check_arrays(arrays, who):
    for i, a in enumerate(arrays):
        if not (isinstance(a, SparseArray) or is_array(a)):
            raise TypeError(f"{who}: every argument must be an array; got {type(a).__name__} at position {i}")


def broadcast_arrays(*arrays):
    """The ``arrays`` broadcast to their common shape (array API rules), as a list.

    Sparse arrays stay sparse (``broadcast_to``), dense arrays are broadcast by their namespace;
    shapes that do not broadcast raise a ValueError naming them all.

    >>> import sparray, numpy as np
    >>> A = sparray.COO([[0]], [1.0], shape=(3,))
    >>> a, b = sparray.broadcast_arrays(A, np.zeros((2, 1)))
    >>> a.shape, type(a).__name__, b.shape
    ((2, 3), 'COO', (2, 3))
    """
    _check_arrays(arrays, "broadcast_arrays")
    if not arrays:
        return []
    shape = broadcast_shapes(*[tuple(a.shape) for a in arrays], who="broadcast_arrays")
    return [broadcast_to(a, shape) for a in arrays]


def meshgrid(*arrays, indexing="xy"):
    """Coordinate matrices from 1-d coordinate arrays, as a list (``numpy.meshgrid``).

    With ``N`` arrays of lengths ``n1, n2, ...`` every output has shape ``(n1, n2, ...)`` for
    ``indexing="ij"`` and ``(n2, n1, ...)`` for ``"xy"`` (the default). Output ``i`` is array ``i``
    laid along its dim and broadcast along the others: sparse for a sparse input (its entries
    replicated, ``nse * prod(other lengths)`` of them, and its fill), dense for a dense one.
    Every input must be 1-d (ValueError otherwise; the standard leaves others undefined).

    >>> import sparray
    >>> x, y = sparray.COO([[0]], [1.0], shape=(2,)), sparray.COO([[2]], [3.0], shape=(3,))
    >>> X, Y = sparray.meshgrid(x, y, indexing="ij")
    >>> X.nse, Y.nse, X.shape
    (3, 2, (2, 3))
    """
    if indexing not in ("xy", "ij"):
        raise ValueError(f"meshgrid: indexing must be 'xy' or 'ij'; got {indexing!r}")
    _check_arrays(arrays, "meshgrid")
    for i, a in enumerate(arrays):
        if a.ndim != 1:
            raise ValueError(f"meshgrid: every array must be 1-d; got shape {tuple(a.shape)} at position {i}")
    n = len(arrays)
    if not any(isinstance(a, SparseArray) for a in arrays):
        return list(namespace_of(*arrays).meshgrid(*arrays, indexing=indexing)) if arrays else []
    dims = list(range(n))
    if indexing == "xy" and n > 1:
        dims[0], dims[1] = 1, 0  # Cartesian: the first array runs along the columns
    shape = [0] * n
    for a, d in zip(arrays, dims):
        shape[d] = a.shape[0]
    shape = tuple(shape)
    out = []
    for a, d in zip(arrays, dims):
        others = tuple(e for e in range(n) if e != d)
        if isinstance(a, SparseArray):
            A = _as_coo(a)
            if A.dense_ndim and _fill_uniform_over(A, A.dense_ndim):
                A = move_dense_to_sparse(A, 1)  # the new dims go in front of the sparse dim: all sparse
            out.append(broadcast_to(expand_dims(A, axis=others) if others else A, shape))
        else:
            xp = namespace_of(a)
            line = xp.reshape(a, tuple(-1 if e == d else 1 for e in range(n)))
            out.append(xp.asarray(xp.broadcast_to(line, shape), copy=True))
    return out
