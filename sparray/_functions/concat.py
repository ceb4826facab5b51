"""Joining sparse arrays: ``concat`` and ``stack`` (array API), exact with any fill value.

The arrays are joined in COO form: along the joined dim the indices of each array are shifted
by the sizes of the arrays before it, and indices and values are concatenated. The result has
one fill, the first array's: an array with another fill (nan counts as equal to nan) has its
elements that differ from it specified first, through its dense form, so any arrays join
exactly, as in NumPy; arrays that share a fill never densify. Values are promoted to the
common dtype. Unbatched compressed arrays of one layout and fill joined along their compressed
axis (row blocks of a CSR) skip the COO form: their pointers are shifted and stacked. Dense operands are taken as sparse
arrays with the common fill. The result has the sparse inputs' layout when they all share one
(and its shape allows it), else COO.

>>> import sparray
>>> A = sparray.COO([[0, 1], [1, 0]], [1.0, 2.0], shape=(2, 2), fill_value=-1.0)
>>> sparray.concat([A, A], axis=1).to_dense().tolist()
[[-1.0, 1.0, -1.0, 1.0], [2.0, -1.0, 2.0, -1.0]]
>>> sparray.stack([A, A]).shape
(2, 2, 2)
"""

from __future__ import annotations

from .._array.base import SparseArray
from .._layout.conversion import match_common_layout
from .._core.fill import same_value
from .._core.keys import index_dtype_for
from .manipulation import _fill_uniform_over, expand_dims, move_dense_to_sparse, reshape
from .._core.namespace import namespace_of
from .._core.validation import normalize_axes

__all__ = ["concat", "stack"]


def _as_sparse_operands(arrays, who):
    """Every operand as a SparseArray of one dtype; dense ones take the first sparse one's fill."""
    from .._layout.conversion import astype
    from .creation import asarray
    from .._core.dtypes import result_type

    arrays = list(arrays)
    if not arrays:
        raise ValueError(f"{who}: needs at least one array")
    first = next(a for a in arrays if isinstance(a, SparseArray))
    dense_fill = None if first._fill.ndim else first._fill
    out = []
    for a in arrays:
        if not isinstance(a, SparseArray):
            if dense_fill is None:
                raise ValueError(
                    f"{who}: a dense operand of shape {tuple(a.shape)} cannot join sparse arrays whose fill "
                    "varies along their dense dims; convert it with sparray.asarray(..., fill_value=...) first"
                )
            a = asarray(a, fill_value=dense_fill)
        out.append(a)
    dtype = result_type(*out)
    return [a if a.dtype == dtype else astype(a, dtype) for a in out]


def _share_fill(coos):
    """The COOs (of one sparse/dense split) with the first one's fill (nan equal to nan): an array
    with another fill has its elements that differ from the first fill specified (through its
    dense form: O(its size), the price of one fill for the result)."""
    from .creation import _refill

    ref = coos[0]
    xp = ref._xp
    f0 = xp.broadcast_to(ref._fill, ref.dense_shape)
    out = [ref]
    for A in coos[1:]:
        f1 = xp.broadcast_to(A._fill, A.dense_shape)
        out.append(A if bool(xp.all(same_value(xp, f0, f1))) else _refill(A, ref._fill).to_layout("coo"))
    return out


def concat(arrays, /, *, axis=0):
    """Join ``arrays`` along the existing dim ``axis`` (None: flatten every array first).

    Shapes must agree except along ``axis``. See the module docstring for fills and layouts.
    """
    arrays = list(arrays) if isinstance(arrays, (tuple, list)) else arrays
    if not isinstance(arrays, list):
        raise TypeError(f"concat: arrays must be a tuple or list of arrays; got {type(arrays).__name__}")
    if not any(isinstance(a, SparseArray) for a in arrays):
        return namespace_of(*arrays).concat(arrays, axis=axis)
    like = [a for a in arrays if isinstance(a, SparseArray)]  # the layout comes from the sparse inputs
    arrays = _as_sparse_operands(arrays, "concat")
    namespace_of(*[a._values for a in arrays])  # one namespace (TypeError naming them otherwise)
    if axis is None:
        arrays = [reshape(a, (-1,)) for a in arrays]
        axis = 0
    n = arrays[0].ndim
    shapes = [a.shape for a in arrays]
    if any(a.ndim != n for a in arrays) or n == 0:
        raise ValueError(f"concat: arrays must have the same number of dims (at least 1); got shapes {shapes}")
    (axis,) = normalize_axes(axis, n, "concat", allow_none=False)
    if any(s[:axis] + s[axis + 1 :] != shapes[0][:axis] + shapes[0][axis + 1 :] for s in shapes):
        raise ValueError(f"concat: shapes must agree except along axis {axis}; got shapes {shapes}")
    if len(arrays) == 1:
        # a new array on the same components (assignment never writes into shared buffers): Dask's
        # rechunk joins each single piece along every axis, and a copy there cost as much as the cut
        (a,) = arrays
        return a._replace_values(a._values, a._fill)
    joined = _join_compressed(arrays, axis)
    if joined is not None:
        return joined
    coos = _common_split([a if a.layout == "coo" else a.to_layout("coo") for a in arrays], axis)
    return match_common_layout(_join(_share_fill(coos), axis), like)


def _join_compressed(arrays, axis):
    """Unbatched CSR/BSR (CSC/BSC) arrays of one layout, blocksize, dense shape and fill joined
    along their compressed axis (row blocks of a CSR stacked): the pointers of each array shifted
    by the entries before it, indices and values concatenated, O(nse) with no conversion. None
    when the arrays do not qualify."""
    first = arrays[0]
    if first.layout == "coo" or axis != first._major:
        return None
    xp = first._xp
    for a in arrays:
        if (a.layout != first.layout or a.batch_ndim or a._block != first._block or a.dense_shape != first.dense_shape
                or a._fill.shape != first._fill.shape or not bool(xp.all(same_value(xp, a._fill, first._fill)))):
            return None
    nse = sum(a.nse for a in arrays)
    shape = list(first.shape)
    shape[axis] = sum(a.shape[axis] for a in arrays)
    idt = first._cidx.dtype
    if any(a._cidx.dtype != idt for a in arrays) or max(nse, *shape[:2]) >= 2**31:
        idt = xp.int64
    for a in arrays:
        a._check_contents()
    pointers, offset = [xp.zeros((1,), dtype=idt)], 0
    for a in arrays:
        pointers.append(xp.astype(a._cidx[1:], idt) + xp.asarray(offset, dtype=idt))
        offset += a.nse
    cidx = xp.concat(pointers)
    pidx = xp.concat([xp.astype(a._pidx, idt, copy=False) for a in arrays])
    values = xp.concat([a._values for a in arrays], axis=0)
    return type(first)._from_parts(xp, cidx, pidx, values, tuple(shape), first._fill)


def _common_split(coos, axis):
    """The COOs with one sparse/dense split, ``axis`` among the sparse dims (dense dims that must
    become sparse need a fill that does not vary along them)."""
    s = max(max(A.sparse_ndim for A in coos), axis + 1)
    out = []
    for A in coos:
        if not _fill_uniform_over(A, s - A.sparse_ndim):
            # the fill varies along dense dims that must become sparse: one fill value (the first
            # element of the fill) for those dims, the elements that differ from it specified
            from .._layout.conversion import from_dense

            xp = A._xp
            first = xp.reshape(A._fill, (-1,))[0]
            A = from_dense(A.to_dense(), sparse_ndim=s, fill_value=xp.broadcast_to(first, A.dense_shape[s - A.sparse_ndim :]))
            out.append(A)
            continue
        out.append(move_dense_to_sparse(A, s))
    return out


def _join(coos, axis):
    from .._array.coo import COO

    xp = coos[0]._xp
    shape = list(coos[0].shape)
    shape[axis] = sum(A.shape[axis] for A in coos)
    shape = tuple(shape)
    nse = sum(A.nse for A in coos)
    s = coos[0].sparse_ndim
    index_dtype = index_dtype_for(xp, shape[:s], nse, *[A._indices for A in coos])
    parts = []
    offset = 0
    row = xp.reshape(xp.asarray([d == axis for d in range(s)], dtype=xp.bool), (s, 1))
    for A in coos:
        idx = xp.astype(A._indices, index_dtype, copy=False)
        if offset:
            idx = xp.where(row, idx + xp.asarray(offset, dtype=index_dtype), idx)
        parts.append(idx)
        offset += A.shape[axis]
    indices = xp.concat(parts, axis=1)
    values = xp.concat([A._values for A in coos], axis=0)
    # joining along the first dim keeps row-major order: coalesced inputs give a coalesced result
    coalesced = True if axis == 0 and all(A._coalesced for A in coos) else None
    fill = coos[0]._fill
    return COO._from_parts(xp, indices, values, shape, fill, coalesced=coalesced)


def stack(arrays, /, *, axis=0):
    """Join ``arrays`` (all of one shape) along a new dim ``axis`` of the result."""
    arrays = list(arrays) if isinstance(arrays, (tuple, list)) else arrays
    if not isinstance(arrays, list):
        raise TypeError(f"stack: arrays must be a tuple or list of arrays; got {type(arrays).__name__}")
    if not any(isinstance(a, SparseArray) for a in arrays):
        return namespace_of(*arrays).stack(arrays, axis=axis)
    arrays = _as_sparse_operands(arrays, "stack")
    shapes = [a.shape for a in arrays]
    if len(set(shapes)) != 1:
        raise ValueError(f"stack: arrays must all have one shape; got shapes {shapes}")
    (axis,) = normalize_axes(axis, arrays[0].ndim + 1, "stack", allow_none=False)
    return concat([expand_dims(a, axis=axis) for a in arrays], axis=axis)
