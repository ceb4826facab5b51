"""Searching functions of the array API for sparse arrays: ``where`` and ``nonzero``.

- ``where(condition, x1, x2)``: element-wise choice, exact with every fill. With sparse operands
  (and Python scalars or 0-d arrays) the result is sparse: its positions are the union of the
  sparse operands' positions, its values ``where(c, a, b)`` read there (each side's fill where it
  has no entry), its fill ``where(c.fill, a.fill, b.fill)``. A dense operand with dims makes
  the result dense (NumPy's ``where`` on the dense forms).
- ``nonzero(x)``: the indices of the elements that are not zero, as one 1-D index array per dim
  in row-major order (NumPy's order). With a zero fill only the specified elements are looked at;
  with any other fill (nan included: nan is not zero) every unspecified element is non-zero and
  the result has about ``x.size`` entries, so it is computed from the dense form. The index
  arrays are dense by nature: ``sparray.nonzero`` hands them back as sparray arrays holding them
  (the namespace rule, ``_results.py``).

>>> import sparray
>>> A = sparray.COO([[0, 2]], [1.0, -1.0], shape=(4,), fill_value=0.0)
>>> sparray.where(A > 0, A, 5.0).to_dense().tolist()
[1.0, 5.0, 5.0, 5.0]
>>> [i.to_dense().tolist() for i in sparray.nonzero(A)]
[[0, 2]]
"""

from __future__ import annotations

import math

from .._engine import dispatch as _dispatch
from .._array.base import SparseArray
from .._layout.coalesce import flat_values, unflat_values
from .._core.fill import array_fill_is_zero, as_fill_array
from .._layout.conversion import match_common_layout
from .._core.keys import index_dtype_for, linear_keys, unravel
from .manipulation import align_splits, broadcast_shapes, broadcast_to
from .._core.namespace import is_array, namespace_of
from .._array.operands import is_scalar

__all__ = ["nonzero", "where"]


def _scalar_operand(xp, x, shape, s):
    """A Python scalar or 0-d array as a COO of ``shape`` (``s`` sparse dims) with no entries."""
    from .._array.coo import COO

    value = xp.asarray(x)
    values = xp.zeros((0, *shape[s:]), dtype=value.dtype)
    return COO._from_parts(xp, xp.zeros((s, 0), dtype=xp.int64), values, shape, value, coalesced=True)


def where(condition, x1, x2, /):
    """``x1`` where ``condition`` is true, else ``x2`` (array API ``where``, broadcasting).

    See the module docstring: sparse operands give a sparse result on the union of their
    positions; a dense operand with dims gives a dense result.
    """
    from .._core.dtypes import result_type

    operands = (condition, x1, x2)
    sparse = [x for x in operands if isinstance(x, SparseArray)]
    if not sparse:
        return namespace_of(*operands).where(condition, x1, x2)
    xp = sparse[0]._xp
    dense = [x for x in operands if is_array(x) and not isinstance(x, SparseArray)]
    namespace_of(*[x._values for x in sparse], *dense)  # one namespace (TypeError naming them otherwise)
    if any(not is_scalar(x) and x.ndim for x in dense):
        d = [x.to_dense() if isinstance(x, SparseArray) else x for x in operands]
        return xp.where(xp.astype(xp.asarray(d[0]), xp.bool), d[1], d[2])
    dtype = result_type(x1, x2)
    shape = broadcast_shapes(*(x.shape for x in sparse), who="sparray.where")
    coos = [broadcast_to(x, shape).to_layout("coo") for x in sparse]
    coos, s = align_splits(coos)
    coos = iter([a.coalesce() for a in coos])
    arrays = [next(coos) if isinstance(x, SparseArray) else _scalar_operand(xp, x, shape, s) for x in operands]
    return match_common_layout(_where_coo(xp, arrays, shape, s, dtype), sparse)


def _where_coo(xp, arrays, shape, s, dtype):
    """where() of three coalesced COOs of one shape and split: gather each on the union pattern."""
    from .._array.coo import COO

    sparse_shape, dense_shape = shape[:s], shape[s:]
    m = math.prod(dense_shape)
    keys = [linear_keys(xp, a._indices, sparse_shape) for a in arrays]
    if any(k is None for k in keys):
        raise ValueError(f"sparray.where: sparse shape {sparse_shape} has more than 2**63 positions")
    counts = [k.shape[0] for k in keys]
    offsets = xp.asarray([0, counts[0], counts[0] + counts[1], sum(counts)], dtype=xp.int64)
    union, positions = _dispatch.call("merge_pattern", "coo", xp, xp.concat(keys), offsets, "union", work=sum(counts))
    gathered = []
    for i, a in enumerate(arrays):
        fill_row = xp.reshape(xp.broadcast_to(a._fill, dense_shape), (m,))
        values = xp.reshape(flat_values(xp, a._values), (a._values.shape[0], m))
        gathered.append(_dispatch.call("gather_with_fill", "coo", xp, values, positions[i, :], fill_row,
                                       work=union.shape[0]))
    cond, g1, g2 = gathered
    values = xp.where(xp.astype(cond, xp.bool), xp.astype(g1, dtype), xp.astype(g2, dtype))
    f0, f1, f2 = (a._fill for a in arrays)
    fill = xp.where(xp.astype(f0, xp.bool), xp.astype(f1, dtype), xp.astype(f2, dtype))
    itype = index_dtype_for(xp, sparse_shape, union.shape[0], *[a._indices for a in arrays if a.nse])
    indices = unravel(xp, union, sparse_shape, itype)
    return COO._from_parts(xp, indices, unflat_values(xp, values, dense_shape), shape,
                           as_fill_array(xp, fill, dtype), coalesced=True)


def nonzero(x, /):
    """The indices of the non-zero elements of ``x``: a tuple of 1-D int64 arrays, one per dim,
    in row-major order (array API ``nonzero``; a 0-d array raises ValueError, as in the standard)."""
    if not isinstance(x, SparseArray):
        return namespace_of(x).nonzero(x)
    if x.ndim == 0:
        raise ValueError("sparray.nonzero: a 0-d array has no dims to index; use bool(x) or x[None]")
    xp = x._xp
    if not array_fill_is_zero(x):
        return tuple(xp.astype(i, xp.int64) for i in xp.nonzero(x.to_dense()))
    A = (x if x.layout == "coo" else x.to_layout("coo")).coalesce()
    zero = xp.zeros((), dtype=A.dtype)  # of the values' dtype: strict namespaces refuse bool != 0
    if A.dense_ndim:
        hits = xp.nonzero(A._values != zero)  # (entry, *dense index), row-major: entries are sorted
        entry = hits[0]
        sparse_idx = [xp.astype(xp.take(A._indices[d, :], entry), xp.int64) for d in range(A.sparse_ndim)]
        return tuple(sparse_idx + [xp.astype(h, xp.int64) for h in hits[1:]])
    keep = A._values != zero
    return tuple(xp.astype(A._indices[d, :][keep], xp.int64) for d in range(A.sparse_ndim))
