"""Shape manipulation of sparse arrays: broadcasting and matrix transpose.

- ``broadcast_to(x, shape)``: new leading dims and size-1 sparse dims replicate the specified
  elements; dense dims broadcast the values (and a dense-part fill).
- ``matrix_transpose(x)``: swaps the last two dims (index rows for sparse dims, value axes for
  dense dims); CSR <-> CSC and BSR <-> BSC as O(1) views of the same buffers.
- ``move_dense_to_sparse(A, sparse_ndim)``: the first dense dims become sparse dims; only when
  the fill does not vary along them (a sparse dim cannot carry a varying fill).
- ``coo_permute(A, perm)`` / ``coo_reshape(A, shape)``: reorder or regroup the dims of a COO
  without dense dims (what ``tensordot`` needs to bring contracted dims together).
"""

from __future__ import annotations

import math

from ._base import SparseArray
from ._fill import same_value
from ._keys import linear_keys, unravel
from ._namespace import namespace_of
from ._validation import normalize_shape

__all__ = ["broadcast_to", "matrix_transpose", "move_dense_to_sparse", "broadcast_shapes", "coo_permute", "coo_reshape"]


def broadcast_shapes(*shapes, who="broadcast"):
    """The array API broadcast of ``shapes``; ValueError naming every shape when they do not fit."""
    ndim = max((len(s) for s in shapes), default=0)
    out = []
    for i in range(ndim):
        sizes = {s[len(s) - ndim + i] for s in shapes if len(s) - ndim + i >= 0} - {1}
        if len(sizes) > 1:
            raise ValueError(f"{who}: shapes {', '.join(str(tuple(s)) for s in shapes)} cannot be broadcast together")
        out.append(sizes.pop() if sizes else 1)
    return tuple(out)


def broadcast_to(x, /, shape):
    """``x`` broadcast to ``shape`` (array API rules); a SparseArray stays sparse."""
    if not isinstance(x, SparseArray):
        return namespace_of(x).broadcast_to(x, shape)
    shape = normalize_shape(shape, "broadcast_to")
    if shape == x.shape:
        return x
    try:
        fits = len(shape) >= x.ndim and broadcast_shapes(x.shape, shape) == shape
    except ValueError:
        fits = False
    if not fits:
        raise ValueError(f"broadcast_to: cannot broadcast an array of shape {x.shape} to shape {shape}")
    from ._coo import COO

    A = x if x.layout == "coo" else x.to_layout("coo")
    xp = A._xp
    extra = len(shape) - A.ndim
    s = A.sparse_ndim
    indices = A._indices
    nse = A.nse
    if extra:
        indices = xp.concat([xp.zeros((extra, nse), dtype=indices.dtype), indices], axis=0)
    src_sparse = (1,) * extra + A.sparse_shape
    new_sparse = shape[: extra + s]
    for d, (old, new) in enumerate(zip(src_sparse, new_sparse)):
        if old == new:
            continue
        n = indices.shape[1]
        rep = xp.arange(n * new, dtype=xp.int64)
        cols = xp.take(indices, rep // new, axis=1)
        row = xp.astype(rep % new, indices.dtype)
        indices = xp.concat([cols[:d, :], xp.reshape(row, (1, n * new)), cols[d + 1 :, :]], axis=0)
    dense_shape = shape[extra + s :]
    values = A._values
    if nse and indices.shape[1] > nse:
        # the loop above repeated every column consecutively; repeat the value rows to match
        values = _repeat_rows(xp, values, indices.shape[1] // nse)
    values = xp.broadcast_to(values, (indices.shape[1], *dense_shape))
    fill = A._fill if A._fill.ndim == 0 else xp.broadcast_to(A._fill, dense_shape)
    out = COO._from_parts(xp, indices, values, shape, fill, coalesced=None)
    if x.layout != "coo":
        from ._conversion import match_layout

        return match_layout(out, x)
    return out


def _repeat_rows(xp, values, times):
    """Row ``j`` of the result is ``values[j // times]`` (matches the index replication order)."""
    n = values.shape[0] * times
    return xp.take(values, xp.arange(n, dtype=xp.int64) // times, axis=0)


def move_dense_to_sparse(A, sparse_ndim):
    """COO ``A`` with its first ``sparse_ndim - A.sparse_ndim`` dense dims turned into sparse dims."""
    from ._coo import COO

    k = sparse_ndim - A.sparse_ndim
    if k <= 0:
        return A
    xp = A._xp
    moved = A.dense_shape[:k]
    rest = A.dense_shape[k:]
    fill = A._fill
    if fill.ndim:
        first = fill[(0,) * k]
        if not bool(xp.all(same_value(xp, fill, xp.broadcast_to(first, fill.shape)))):
            raise ValueError(
                f"COO: cannot turn dense dims {moved} into sparse dims: the fill value varies along them "
                "(a sparse dimension needs one fill per dense part); use to_dense()"
            )
        fill = first
    p = math.prod(moved)
    nse = A.nse
    values = xp.reshape(A._values, (nse * p, *rest))
    rep = xp.arange(nse * p, dtype=xp.int64)
    old = xp.take(A._indices, rep // max(p, 1), axis=1) if p else A._indices[:, :0]
    new = unravel(xp, rep % p if p else rep, moved, A._indices.dtype)
    indices = xp.concat([old, new], axis=0)
    return COO._from_parts(xp, indices, values, A.sparse_shape + moved + rest, fill, coalesced=A._coalesced)


def matrix_transpose(x, /):
    """Swap the last two dimensions (array API ``matrix_transpose``)."""
    if not isinstance(x, SparseArray):
        return namespace_of(x).matrix_transpose(x)
    from ._coo import COO

    if x.ndim < 2:
        raise ValueError(f"matrix_transpose: needs an array of at least 2 dims; got shape {x.shape}")
    if x.layout != "coo":
        return _compressed_transpose(x)
    A = x
    xp = A._xp
    shape = (*A.shape[:-2], A.shape[-1], A.shape[-2])
    if A.dense_ndim >= 2:
        values = xp.matrix_transpose(A._values)
        fill = A._fill if A._fill.ndim == 0 else xp.matrix_transpose(A._fill)
        return COO._from_parts(xp, A._indices, values, shape, fill, coalesced=A._coalesced)
    if A.dense_ndim == 1:
        if A._fill.ndim and not bool(xp.all(same_value(xp, A._fill, xp.reshape(A._fill, (-1,))[:1]))):
            # the fill varies along the dense dim: bring the last sparse dim into the dense part instead
            from ._compress import pack_sparse_dims

            return matrix_transpose(pack_sparse_dims(A, 2))
        A = move_dense_to_sparse(A, A.sparse_ndim + 1)
    s = A.sparse_ndim
    idx = A._indices
    indices = xp.concat([idx[: s - 2, :], idx[s - 1 : s, :], idx[s - 2 : s - 1, :]], axis=0)
    return COO._from_parts(xp, indices, A._values, shape, A._fill, coalesced=None)


_TRANSPOSED_LAYOUT = {"csr": "csc", "csc": "csr", "bsr": "bsc", "bsc": "bsr"}


def _compressed_transpose(X):
    """CSR <-> CSC and BSR <-> BSC transposes as views: the same index buffers, O(1).

    The compressed axis of ``X`` becomes the compressed axis of the result, now along the other
    dimension; blocks are transposed as strided views. A hybrid array (dense dims last) swaps
    dense dims instead, through COO.
    """
    from ._compress import LAYOUT_CLASSES
    from ._conversion import match_layout

    if X.dense_ndim:
        coo = matrix_transpose(X.to_layout("coo"))
        return match_layout(coo, X)
    xp = X._xp
    values = X._values
    if X._blocked:
        b = X.batch_ndim
        axes = list(range(values.ndim))
        axes[b + 1], axes[b + 2] = axes[b + 2], axes[b + 1]
        values = xp.permute_dims(values, tuple(axes))
    shape = (*X.shape[:-2], X.shape[-1], X.shape[-2])
    cls = LAYOUT_CLASSES[_TRANSPOSED_LAYOUT[X.layout]]
    return cls._from_parts(xp, X._cidx, X._pidx, values, shape, X._fill, checked=X._checked)


def coo_permute(A, perm):
    """COO ``A`` (no dense dims) with its dims reordered: dim ``d`` of the result is ``A``'s ``perm[d]``.

    The index rows are permuted; the result is no longer known to be sorted (unless ``perm`` is
    the identity).
    """
    from ._coo import COO

    perm = tuple(int(p) for p in perm)
    if sorted(perm) != list(range(A.ndim)) or A.dense_ndim:
        raise ValueError(f"permute: perm {perm} must order the {A.ndim} dims of a COO without dense dims")
    if perm == tuple(range(A.ndim)):
        return A
    xp = A._xp
    indices = xp.take(A._indices, xp.asarray(perm, dtype=xp.int64), axis=0)
    shape = tuple(A.shape[p] for p in perm)
    return COO._from_parts(xp, indices, A._values, shape, A._fill, coalesced=None)


def coo_reshape(A, shape):
    """COO ``A`` (no dense dims) reshaped in row-major order (sorted order is kept)."""
    from ._coo import COO

    shape = normalize_shape(shape, "reshape")
    if math.prod(shape) != math.prod(A.shape) or A.dense_ndim:
        raise ValueError(f"reshape: cannot reshape a COO of shape {A.shape} (dense_ndim {A.dense_ndim}) to {shape}")
    if shape == A.shape:
        return A
    xp = A._xp
    keys = linear_keys(xp, A._indices, A.shape)
    if keys is None:
        raise ValueError(f"reshape: shape {A.shape} has more elements than 64-bit linear indices can address")
    from ._keys import index_dtype_for

    indices = unravel(xp, keys, shape, index_dtype_for(xp, shape, A.nse, A._indices))
    return COO._from_parts(xp, indices, A._values, shape, A._fill, coalesced=A._coalesced)
