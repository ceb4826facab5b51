"""Shape manipulation of sparse arrays (the array API's manipulation functions but concat/stack).

Every function works on the COO form: a sparse dim is a row of ``indices``, a dense dim an axis
of ``values`` (and of a dense-part fill). Compressed inputs come back in their layout when the
result's shape allows it (``match_layout``), else as COO. Dense inputs go to their namespace.

- ``broadcast_to(x, shape)``: new leading dims and size-1 sparse dims replicate the specified
  elements; dense dims broadcast the values (and a dense-part fill).
- ``matrix_transpose(x)``: swaps the last two dims (index rows for sparse dims, value axes for
  dense dims); CSR <-> CSC and BSR <-> BSC as O(1) views of the same buffers.
- ``permute_dims(x, axes)`` / ``moveaxis``: sparse dims and dense dims are reordered among
  themselves; a dense dim that moves before a sparse dim becomes sparse when the fill does not
  vary along it, otherwise the sparse dims that move behind a dense dim become dense.
- ``reshape(x, shape)``: row-major regrouping of the sparse dims (linear keys); trailing dense
  dims the new shape keeps stay dense, the others become sparse (the fill must not vary there).
- ``expand_dims`` / ``squeeze``: a zero index row or a unit value axis, added or dropped.
- ``flip(x, axis)``: ``i -> n - 1 - i`` on sparse dims, ``xp.flip`` on the values' dense axes.
- ``move_dense_to_sparse(A, sparse_ndim)``: the first dense dims become sparse dims; only when
  the fill does not vary along them (a sparse dim cannot carry a varying fill).
- ``coo_permute(A, perm)`` / ``coo_reshape(A, shape)``: reorder or regroup the dims of a COO
  without dense dims (what ``tensordot`` needs to bring contracted dims together).
"""

from __future__ import annotations

import math
import operator

from .._array.base import SparseArray
from .._core.fill import same_value
from .._core.keys import linear_keys, unravel
from .._core.namespace import namespace_of
from .._core.validation import AxisError, normalize_axes, normalize_shape
from .._layout.compress import _fill_uniform_over, move_dense_to_sparse  # noqa: F401  (here before; the inverse of pack_sparse_dims)

__all__ = [
    "broadcast_shapes", "broadcast_to", "coo_permute", "coo_reshape", "expand_dims", "flip", "matrix_transpose",
    "move_dense_to_sparse", "moveaxis", "permute_dims", "reshape", "squeeze", "transpose",
]


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
    from .._array.coo import COO

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
    if indices.shape[1] == 0:  # a sparse dim broadcast to 0: no element is left
        values = values[:0, ...]
    elif nse and indices.shape[1] > nse:
        # the loop above repeated every column consecutively; repeat the value rows to match
        values = _repeat_rows(xp, values, indices.shape[1] // nse)
    values = xp.broadcast_to(values, (indices.shape[1], *dense_shape))
    fill = A._fill if A._fill.ndim == 0 else xp.broadcast_to(A._fill, dense_shape)
    out = COO._from_parts(xp, indices, values, shape, fill, coalesced=None)
    if x.layout != "coo":
        from .._layout.conversion import match_layout

        return match_layout(out, x)
    return out


def _repeat_rows(xp, values, times):
    """Row ``j`` of the result is ``values[j // times]`` (matches the index replication order)."""
    n = values.shape[0] * times
    return xp.take(values, xp.arange(n, dtype=xp.int64) // times, axis=0)


def align_splits(coos):
    """COOs of one shape brought to one sparse/dense split: the largest ``sparse_ndim`` among them,
    or, when some fill varies along dense dims that would have to turn sparse, the smallest (the
    extra sparse dims of the others become dense dims, which any fill allows). Returns
    ``(coos, sparse_ndim)``."""
    from .._layout.compress import pack_sparse_dims

    s = max(A.sparse_ndim for A in coos)
    if all(_fill_uniform_over(A, s - A.sparse_ndim) for A in coos):
        return [move_dense_to_sparse(A, s) for A in coos], s
    s = min(A.sparse_ndim for A in coos)
    return [pack_sparse_dims(A.coalesce(), A.ndim - s) for A in coos], s


def _as_scalar_fill(A):
    """COO ``A`` with every dim sparse and a 0-d fill (the first element of a dense-part fill); the
    elements that differ from it become specified (through the dense form: O(size))."""
    from .._layout.conversion import from_dense

    xp = A._xp
    first = xp.reshape(A._fill, (-1,))[0] if A._fill.ndim else A._fill
    return from_dense(A.to_dense(), sparse_ndim=A.ndim, fill_value=first)


def matrix_transpose(x, /):
    """Swap the last two dimensions (array API ``matrix_transpose``)."""
    if not isinstance(x, SparseArray):
        return namespace_of(x).matrix_transpose(x)
    from .._array.coo import COO

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
            from .._layout.compress import pack_sparse_dims

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
    from .._layout.compress import LAYOUT_CLASSES
    from .._layout.conversion import match_layout

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
    perm = tuple(int(p) for p in perm)
    if sorted(perm) != list(range(A.ndim)) or A.dense_ndim:
        raise ValueError(f"permute: perm {perm} must order the {A.ndim} dims of a COO without dense dims")
    if perm == tuple(range(A.ndim)):
        return A
    return _permute_coo(A, perm)


def coo_reshape(A, shape):
    """COO ``A`` (no dense dims) reshaped in row-major order (sorted order is kept)."""
    shape = normalize_shape(shape, "reshape")
    if math.prod(shape) != math.prod(A.shape) or A.dense_ndim:
        raise ValueError(f"reshape: cannot reshape a COO of shape {A.shape} (dense_ndim {A.dense_ndim}) to {shape}")
    if shape == A.shape:
        return A
    return _regroup_sparse(A, shape)


def _regroup_sparse(A, sparse_shape, values=None):
    """COO ``A`` with its sparse dims regrouped in row-major order into ``sparse_shape`` (same
    number of positions), its dense dims kept; a coalesced array stays coalesced."""
    from .._core.keys import index_dtype_for

    xp = A._xp
    keys = linear_keys(xp, A._indices, A.sparse_shape)
    if keys is None:
        raise ValueError(f"reshape: shape {A.shape} has more elements than 64-bit linear indices can address")
    indices = unravel(xp, keys, sparse_shape, index_dtype_for(xp, sparse_shape, A.nse, A._indices))
    values = A._values if values is None else values
    return _coo_class()._from_parts(xp, indices, values, (*sparse_shape, *A.dense_shape), A._fill,
                                    coalesced=A._coalesced)


# --- axes -------------------------------------------------------------------------------------------
def _coo_class():
    from .._array.coo import COO  # _coo imports this module

    return COO


def _as_coo(x):
    return x if x.layout == "coo" else x.to_layout("coo")


def _back(out, x):
    """``out`` (a COO computed from ``x``) in ``x``'s layout when its shape allows it."""
    from .._layout.conversion import match_layout

    return match_layout(out, x)


def _on_dense_dims(A, dims, f):
    """Values and fill of COO ``A`` after ``f(array, axes)`` on the dense dims among ``dims``
    (the values' axes are shifted by one for the entry axis; a 0-d fill is left alone)."""
    s = A.sparse_ndim
    dense = tuple(d - s for d in dims if d >= s)
    if not dense:
        return A._values, A._fill
    values = f(A._values, tuple(1 + d for d in dense))
    return values, (f(A._fill, dense) if A._fill.ndim else A._fill)


# --- permute_dims / moveaxis ------------------------------------------------------------------------
def transpose(x, /, axes=None):
    """NumPy's ``transpose`` (beyond the standard, which names it ``permute_dims``): ``x`` with its
    dims reversed, or reordered as ``axes`` says. xarray's ``apply_ufunc`` calls ``xp.transpose``.

    >>> import sparray
    >>> A = sparray.COO([[0, 1], [2, 0]], [1.0, 2.0], shape=(2, 3))
    >>> sparray.transpose(A).shape, sparray.transpose(A, (1, 0)).to_dense()[2].tolist()
    ((3, 2), [1.0, 0.0])
    """
    if axes is None:
        axes = tuple(range(getattr(x, "ndim", 0) - 1, -1, -1))
    return permute_dims(x, tuple(axes))


def permute_dims(x, /, axes):
    """``x`` with its dims reordered: dim ``d`` of the result is dim ``axes[d]`` of ``x``.

    Sparse dims stay sparse and dense dims dense where the permutation keeps the sparse dims in
    front; otherwise dense dims become sparse (when the fill does not vary along them) or sparse
    dims dense. The swap of the last two dims of a compressed array is the O(1) ``matrix_transpose``.

    >>> import sparray
    >>> A = sparray.COO([[0, 1], [2, 0], [1, 1]], [1.0, 2.0], shape=(2, 3, 2), fill_value=-1.0)
    >>> sparray.permute_dims(A, (2, 0, 1)).to_dense()[1].tolist()
    [[-1.0, -1.0, 1.0], [2.0, -1.0, -1.0]]
    """
    if not isinstance(x, SparseArray):
        return namespace_of(x).permute_dims(x, axes)
    n = x.ndim
    perm = normalize_axes(tuple(axes), n, "permute_dims", allow_none=False) if isinstance(axes, (tuple, list)) else None
    if perm is None or len(perm) != n:
        raise ValueError(f"permute_dims: axes must order all {n} dims of an array of shape {x.shape}; got {axes!r}")
    if perm == tuple(range(n)):
        return x
    if x.layout != "coo" and not x.dense_ndim and perm == (*range(n - 2), n - 1, n - 2):
        return matrix_transpose(x)
    return _back(_permute_coo(_split_for(_as_coo(x), perm), perm), x)


def _split_for(A, perm):
    """COO ``A`` with a sparse/dense split that ``perm`` keeps (its first s entries are the dims < s)."""
    n = A.ndim

    def closed(k):
        return set(perm[:k]) == set(range(k))

    s = A.sparse_ndim
    if closed(s):
        return A
    up = next(k for k in range(s, n + 1) if closed(k))
    if _fill_uniform_over(A, up - s):
        return move_dense_to_sparse(A, up)
    from .._layout.compress import pack_sparse_dims

    down = max(k for k in range(s + 1) if closed(k))
    return pack_sparse_dims(A, n - down)


def _permute_coo(A, perm):
    xp = A._xp
    s = A.sparse_ndim
    sparse_perm = perm[:s]
    dense_perm = tuple(p - s for p in perm[s:])
    identity = sparse_perm == tuple(range(s))
    indices = A._indices if identity else xp.take(A._indices, xp.asarray(sparse_perm, dtype=xp.int64), axis=0)
    values, fill = A._values, A._fill
    if dense_perm != tuple(range(len(dense_perm))):
        values = xp.permute_dims(values, (0, *(1 + d for d in dense_perm)))
        if fill.ndim:
            fill = xp.permute_dims(fill, dense_perm)
    shape = tuple(A.shape[p] for p in perm)
    return _coo_class()._from_parts(xp, indices, values, shape, fill, coalesced=A._coalesced if identity else None)


def moveaxis(x, source, destination, /):
    """``x`` with dims ``source`` moved to positions ``destination`` (the others keep their order)."""
    if not isinstance(x, SparseArray):
        return namespace_of(x).moveaxis(x, source, destination)
    n = x.ndim
    src, dst = (normalize_axes(tuple(a) if isinstance(a, list) else a, n, "moveaxis", allow_none=False)
                for a in (source, destination))
    if len(src) != len(dst):
        raise ValueError(f"moveaxis: source {source!r} and destination {destination!r} must have the same number of dims")
    order = [d for d in range(n) if d not in src]
    for d, sdim in sorted(zip(dst, src)):
        order.insert(d, sdim)
    return permute_dims(x, tuple(order))


# --- reshape ----------------------------------------------------------------------------------------
def _target_shape(shape, size, old_shape):
    """``shape`` with its one ``-1`` resolved; ValueError when the sizes do not agree."""
    try:
        shape = (operator.index(shape),) if not isinstance(shape, (tuple, list)) else tuple(operator.index(s) for s in shape)
    except TypeError:
        raise TypeError(f"reshape: shape must be an int or a tuple of ints; got {shape!r}") from None
    unknown = [i for i, s in enumerate(shape) if s == -1]
    if len(unknown) > 1 or any(s < -1 for s in shape):
        raise ValueError(f"reshape: shape {shape} may hold one -1 and otherwise non-negative sizes")
    if unknown:
        known = math.prod(s for s in shape if s != -1)
        if known == 0 or size % known:
            raise ValueError(f"reshape: cannot reshape an array of shape {old_shape} (size {size}) to {shape}")
        shape = tuple(size // known if s == -1 else s for s in shape)
    if math.prod(shape) != size:
        raise ValueError(f"reshape: cannot reshape an array of shape {old_shape} (size {size}) to {shape}")
    return shape


def reshape(x, /, shape, *, copy=None):
    """``x`` reshaped in row-major (C) order, as ``numpy.reshape``.

    The specified elements keep their values; their positions are regrouped through linear
    keys, so a coalesced COO stays coalesced. The trailing dense dims that ``shape`` keeps stay
    dense; dense dims that merge with sparse ones become sparse, which needs a fill that does
    not vary along them (ValueError otherwise). ``copy=True`` copies the values (they are
    shared otherwise; the index arrays are always new unless the shape is unchanged).

    >>> import sparray
    >>> A = sparray.COO([[0, 1], [2, 0]], [1.0, 2.0], shape=(2, 3), fill_value=9.0)
    >>> sparray.reshape(A, (3, 2)).to_dense().tolist()
    [[9.0, 9.0], [1.0, 2.0], [9.0, 9.0]]
    """
    if not isinstance(x, SparseArray):
        xp = namespace_of(x)
        return xp.reshape(x, shape) if copy is None else xp.reshape(x, shape, copy=copy)
    shape = _target_shape(shape, math.prod(x.shape), x.shape)
    if shape == x.shape:
        return x.copy() if copy else x
    A = _as_coo(x)
    xp = A._xp
    n, d = A.ndim, A.dense_ndim
    if math.prod(shape) == 0:
        fill = A._fill if A._fill.ndim == 0 else xp.zeros((), dtype=A.dtype)
        empty = _coo_class()._from_parts(xp, xp.zeros((len(shape), 0), dtype=A._indices.dtype),
                                xp.zeros((0,), dtype=A.dtype), shape, fill, coalesced=True)
        return _back(empty, x)
    keep = next(k for k in range(min(d, len(shape)), -1, -1) if k == 0 or shape[len(shape) - k :] == A.shape[n - k :])
    if not _fill_uniform_over(A, d - keep):
        # dense dims whose fill varies merge with sparse dims: one scalar fill for them all
        A, keep = _as_scalar_fill(A), 0
    A = move_dense_to_sparse(A, n - keep)
    values = xp.asarray(A._values, copy=True) if copy else None
    return _back(_regroup_sparse(A, shape[: len(shape) - keep], values), x)


# --- expand_dims / squeeze --------------------------------------------------------------------------
def expand_dims(x, /, axis=0):
    """``x`` with size-1 dims inserted at ``axis`` (an int or a tuple of ints, positions in the result).

    For an ``N``-d array an int ``axis`` lies in ``[-N-1, N]`` (``-1`` appends a dim); a tuple
    names positions in the ``N + len(axis)``-d result (the 2025.12 form). Out of range: an
    ``AxisError``, both an IndexError (the array API's class) and a ValueError (NumPy's).

    A new dim at or before the last sparse dim of a COO is sparse (a row of zero indices); a new
    dim among the dense dims, or after the last dim of a compressed array, is dense (a unit axis
    of the values and of a dense-part fill).

    >>> import sparray
    >>> sparray.expand_dims(sparray.COO([[0, 2]], [1.0, 2.0], shape=(3,)), axis=-1).shape
    (3, 1)
    """
    if not isinstance(x, SparseArray):
        return namespace_of(x).expand_dims(x, axis=axis)
    out_ndim = x.ndim + (len(axis) if isinstance(axis, tuple) else 1)
    try:
        positions = sorted(normalize_axes(axis, out_ndim, "expand_dims", allow_none=False))
    except AxisError:
        raise AxisError(f"expand_dims: axis {axis!r} is out of range [-{out_ndim}, {out_ndim - 1}] for an array "
                        f"of {x.ndim} dims") from None
    A = _as_coo(x)
    xp = A._xp
    indices, values, fill, shape = A._indices, A._values, A._fill, list(A.shape)
    s = A.sparse_ndim
    last_sparse = s if x.layout == "coo" else s - 1  # a compressed array keeps its trailing dims dense
    for p in positions:
        if p <= last_sparse:
            zeros = xp.zeros((1, indices.shape[1]), dtype=indices.dtype)
            indices = xp.concat([indices[:p, :], zeros, indices[p:, :]], axis=0)
            s += 1
            last_sparse += 1
        else:
            values = xp.expand_dims(values, axis=1 + p - s)
            if fill.ndim:
                fill = xp.expand_dims(fill, axis=p - s)
        shape.insert(p, 1)
    return _back(_coo_class()._from_parts(xp, indices, values, tuple(shape), fill, coalesced=A._coalesced), x)


def squeeze(x, /, axis):
    """``x`` without the size-1 dims ``axis`` (an int or a tuple of ints); ValueError for a dim of
    another size. Squeezing every dim of an array gives a 0-d COO."""
    if not isinstance(x, SparseArray):
        return namespace_of(x).squeeze(x, axis=axis)
    dims = normalize_axes(axis, x.ndim, "squeeze", allow_none=False)
    for dim in dims:
        if x.shape[dim] != 1:
            raise ValueError(f"squeeze: dim {dim} of an array of shape {x.shape} has size {x.shape[dim]}, not 1")
    if not dims:
        return x
    A = _as_coo(x)
    xp = A._xp
    s = A.sparse_ndim
    keep = [d for d in range(s) if d not in dims]
    indices = A._indices if len(keep) == s else xp.take(A._indices, xp.asarray(keep, dtype=xp.int64), axis=0)
    values, fill = _on_dense_dims(A, dims, lambda a, axes: xp.squeeze(a, axis=axes))
    shape = tuple(n for d, n in enumerate(A.shape) if d not in dims)
    return _back(_coo_class()._from_parts(xp, indices, values, shape, fill, coalesced=A._coalesced), x)


# --- flip -------------------------------------------------------------------------------------------
def flip(x, /, *, axis=None):
    """``x`` with the order of elements reversed along ``axis`` (None: every dim), as ``numpy.flip``.

    >>> import sparray
    >>> sparray.flip(sparray.COO([[0, 2]], [1.0, 2.0], shape=(4,), fill_value=5.0)).to_dense().tolist()
    [5.0, 2.0, 5.0, 1.0]
    """
    if not isinstance(x, SparseArray):
        return namespace_of(x).flip(x, axis=axis)
    dims = normalize_axes(axis, x.ndim, "flip")
    if not dims:
        return x
    A = _as_coo(x)
    xp = A._xp
    s = A.sparse_ndim
    sparse = [d for d in dims if d < s]
    indices = A._indices
    if sparse:
        flipped = xp.asarray([d in sparse for d in range(s)], dtype=xp.bool)
        top = xp.asarray([n - 1 for n in A.sparse_shape], dtype=indices.dtype)
        indices = xp.where(flipped[:, None], top[:, None] - indices, indices)
    values, fill = _on_dense_dims(A, dims, lambda a, axes: xp.flip(a, axis=axes))
    return _back(_coo_class()._from_parts(xp, indices, values, A.shape, fill, coalesced=None if sparse else A._coalesced), x)
