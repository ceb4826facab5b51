"""``outer`` and ``cross``: products of vectors that keep sparsity where the values allow it.

``outer(x1, x2)[i, j] = x1[i] * x2[j]`` for 1-d operands (N,) and (M,), in the promoted dtype
(integers wrap as NumPy's do). With two sparse vectors (fills ``a`` and ``b``, specified sets
``S1`` and ``S2``) the result is a sparse COO with fill ``a * b``; specified are the positions
where the product may differ from it:

- ``S1 x S2`` (both values stored);
- the whole row ``i`` of an ``i`` in S1 whose ``x1[i] * b`` differs from ``a * b``, and the whole
  column ``j`` of a ``j`` in S2 whose ``a * x2[j]`` differs from it (with zero fills and finite
  values there is none: the result has ``|S1| * |S2|`` entries).

"Differs" is the fill rule (``sparray._core.fill.same_value``): bit for bit, NaN matching NaN.
So ``0 * inf`` shows up as nan exactly where the dense product has it, and so does the sign of a
zero: with zero fills a negative ``x1[i]`` (or a ``-0.0``) makes row ``i`` hold ``-0.0`` at every
unspecified column, as NumPy's ``outer`` does, and the whole row is stored (M entries; a
``SparrayPerformanceWarning`` says so when such rows and columns are most of a large result).
With one dense vector ``y`` the unspecified rows (columns) of the sparse side hold ``a * y[j]``:
when that is one value for every ``j`` (zero fill, finite ``y`` without negative values or
``-0.0``) the result is sparse with ``|S1| * M`` entries and that fill, otherwise a dense array.

``cross(x1, x2, axis=-1)`` is composed of the element-wise functions on the three components along
``axis`` (``x1[..., 1] * x2[..., 2] - x1[..., 2] * x2[..., 1]``, ...), so it is exact for any fill
and sparse when the operands are (the fill of the result is the cross product of the fills, 0 for
finite fills); a component that comes out dense makes the result dense.

>>> import sparray, numpy as np
>>> u = sparray.asarray(np.array([0.0, 2.0, 0.0]))
>>> v = sparray.asarray(np.array([3.0, 0.0]))
>>> R = sparray.linalg.outer(u, v)
>>> R.nse, R.to_dense().tolist()
(1, [[0.0, 0.0], [6.0, 0.0], [0.0, 0.0]])
"""

from __future__ import annotations

from .._core import dtypes as _dtypes
from .._array.base import SparseArray
from .._array.coo import COO
from .._core.fill import same_value
from .._core.keys import index_dtype_for
from .._products.linalg import _namespace
from .._functions.manipulation import broadcast_shapes, matrix_transpose
from ._checks import check_int, check_not_bool

__all__ = ["cross", "outer"]


def _cast(xp, x, dtype):
    if x.dtype == dtype:
        return x
    return x.astype(dtype) if isinstance(x, SparseArray) else xp.astype(x, dtype)


def _sparse_vector(x):
    """A 1-d SparseArray as a coalesced COO without dense dims, or None when its fill varies along
    its one (dense) dim and no sparse vector holds it."""
    if x.dense_ndim:
        try:
            x = x.to_layout("coo", dense_ndim=0)
        except ValueError:
            return None
    A = x if x.layout == "coo" else x.to_layout("coo")
    return A.coalesce()


def outer(x1, x2, /):
    """Outer product of two vectors, shape ``(N, M)`` (see the module docstring for sparsity)."""
    who = "sparray.linalg.outer"
    xp = _namespace(who, x1, x2)
    for name, x in (("x1", x1), ("x2", x2)):
        if x.ndim != 1:
            raise ValueError(f"{who}: {name} must be 1-d; got shape {tuple(x.shape)}")
        check_not_bool(who, x, name)
    dtype = _dtypes.result_type(x1, x2)
    x1, x2 = _cast(xp, x1, dtype), _cast(xp, x2, dtype)
    A = _sparse_vector(x1) if isinstance(x1, SparseArray) else None
    B = _sparse_vector(x2) if isinstance(x2, SparseArray) else None
    if A is not None and B is not None:
        return _outer_sparse(xp, A, B)
    if A is not None:
        return _outer_sparse_dense(xp, A, _dense(x2))
    if B is not None:
        R = _outer_sparse_dense(xp, B, _dense(x1))
        return matrix_transpose(R) if isinstance(R, SparseArray) else xp.matrix_transpose(R)
    return xp.multiply(_dense(x1)[:, None], _dense(x2)[None, :])


def _dense(x):
    return x.to_dense() if isinstance(x, SparseArray) else x


def _lookup(xp, positions, values, fill, at):
    """The vector's value at each index of ``at``: ``values`` where ``positions`` (sorted) holds it, else ``fill``."""
    n = positions.shape[0]
    if n == 0:
        return xp.broadcast_to(fill, at.shape)
    slot = xp.clip(xp.searchsorted(positions, at), 0, n - 1)
    found = xp.take(positions, slot) == at
    return xp.where(found, xp.take(values, slot), fill)


def _outer_sparse(xp, A, B):
    """Both sparse: the pattern of the module docstring, built from sorted unique linear keys."""
    N, M = A.shape[0], B.shape[0]
    p, u, a = xp.astype(A._indices[0, :], xp.int64), A._values, A._fill
    q, w, b = xp.astype(B._indices[0, :], xp.int64), B._values, B._fill
    fill = a * b
    ub, aw = u * b, a * w  # the value of row i's unspecified columns, of column j's unspecified rows
    row_diff, col_diff = ~same_value(xp, ub, fill), ~same_value(xp, aw, fill)
    full_rows = p[row_diff]  # rows whose unspecified columns differ from the fill
    full_cols = q[col_diff]
    _warn_sign_only(xp, ub, aw, fill, row_diff, col_diff, full_rows.shape[0], full_cols.shape[0], N, M)
    cols_all = xp.arange(M, dtype=xp.int64)
    rows_all = xp.arange(N, dtype=xp.int64)
    parts = [
        xp.reshape(p[:, None] * M + q[None, :], (-1,)),
        xp.reshape(full_rows[:, None] * M + cols_all[None, :], (-1,)),
        xp.reshape(rows_all[:, None] * M + full_cols[None, :], (-1,)),
    ]
    keys = xp.sort(xp.concat(parts))
    if keys.shape[0] > 1:
        keys = keys[xp.concat([xp.ones((1,), dtype=xp.bool), keys[1:] != keys[:-1]])]
    rows, cols = keys // M if M else keys, keys % M if M else keys
    values = _lookup(xp, p, u, a, rows) * _lookup(xp, q, w, b, cols)
    idt = index_dtype_for(xp, (N, M), keys.shape[0])
    indices = xp.astype(xp.stack([rows, cols]), idt)
    return COO._from_parts(xp, indices, values, (N, M), fill, coalesced=True)


SIGN_ONLY_WARNING = 1024  # entries stored only for the sign of a zero, past which outer warns


def _warn_sign_only(xp, row_vals, col_vals, fill, row_diff, col_diff, n_rows, n_cols, N, M):
    """Warn when most of the result's entries are whole rows and columns stored only because they
    hold ``-0.0`` against a ``+0.0`` fill (or the reverse): exact (NumPy's outer has those
    zeros), but a result of ``(rows + columns) * length`` entries where a user may expect
    ``|S1| * |S2|``. Reads two counts from the device, only past the threshold."""
    if (n_rows * M + n_cols * N) < SIGN_ONLY_WARNING:
        return
    sign_rows = int(xp.sum(xp.astype(row_diff & same_value(xp, row_vals, fill, signed_zeros=False), xp.int64)))
    sign_cols = int(xp.sum(xp.astype(col_diff & same_value(xp, col_vals, fill, signed_zeros=False), xp.int64)))
    extra = sign_rows * M + sign_cols * N
    if extra >= SIGN_ONLY_WARNING and 2 * extra > n_rows * M + n_cols * N:
        import warnings

        from .._engine.dispatch import SparrayPerformanceWarning

        warnings.warn(
            f"outer: {sign_rows} rows and {sign_cols} columns ({extra} entries) are stored in full only for the sign "
            "of a zero: a negative value times the other vector's fill +0.0 is -0.0, not the result's fill +0.0, and "
            "NumPy's outer holds those -0.0 (docs/fill_value.md, 'Which elements are the fill')",
            SparrayPerformanceWarning,
            stacklevel=3,
        )


def _outer_sparse_dense(xp, A, y):
    """Sparse ``A`` (N,) times dense ``y`` (M,): sparse rows of A when ``a * y`` is one value, else dense."""
    N, M = A.shape[0], y.shape[0]
    a = A._fill
    row = a * y
    fill = row[0] if M else a
    if M and not bool(xp.all(same_value(xp, row, fill))):
        return xp.multiply(A.to_dense()[:, None], y[None, :])
    nse = A.nse
    values = xp.reshape(A._values[:, None] * y[None, :], (nse * M,))
    rows = xp.reshape(xp.broadcast_to(xp.astype(A._indices[0, :], xp.int64)[:, None], (nse, M)), (nse * M,))
    cols = xp.reshape(xp.broadcast_to(xp.arange(M, dtype=xp.int64)[None, :], (nse, M)), (nse * M,))
    idt = index_dtype_for(xp, (N, M), nse * M)
    indices = xp.astype(xp.stack([rows, cols]), idt)
    return COO._from_parts(xp, indices, values, (N, M), xp.asarray(fill, copy=True), coalesced=True)


def cross(x1, x2, /, *, axis=-1):
    """Cross product of 3-element vectors along ``axis`` (negative, in ``[-min(ndim), -1]``); the other
    dims broadcast. Exact for any fill; see the module docstring for the result's layout."""
    from .._functions.concat import stack
    from .._functions.elementwise import multiply, subtract
    from .._functions.manipulation import expand_dims, squeeze

    who = "sparray.linalg.cross"
    xp = _namespace(who, x1, x2)
    axis = check_int(who, axis, "axis")
    nmin = min(x1.ndim, x2.ndim)
    if nmin == 0:
        raise ValueError(f"{who}: operands must be at least 1-d; got shapes {tuple(x1.shape)} and {tuple(x2.shape)}")
    if not -nmin <= axis <= -1:
        raise ValueError(
            f"{who}: axis must be a negative int in [{-nmin}, -1] for shapes {tuple(x1.shape)} and {tuple(x2.shape)}; "
            f"got {axis}"
        )
    if x1.shape[axis] != 3 or x2.shape[axis] != 3:
        raise ValueError(
            f"{who}: both operands must have size 3 along axis {axis}; got shapes {tuple(x1.shape)} and {tuple(x2.shape)}"
        )
    for name, x in (("x1", x1), ("x2", x2)):
        check_not_bool(who, x, name)
    shape = broadcast_shapes(tuple(x1.shape), tuple(x2.shape), who=who)
    dtype = _dtypes.result_type(x1, x2)
    x1, x2 = _cast(xp, x1, dtype), _cast(xp, x2, dtype)
    if len(shape) == 1:  # a lead dim keeps every component an array (not a 0-d scalar) through the slicing
        x1, x2 = expand_dims(x1, axis=0), expand_dims(x2, axis=0)
    tail = (slice(None),) * (-axis - 1)

    def part(x, k):
        return x[(Ellipsis, k, *tail)]

    def term(i, j):
        return subtract(multiply(part(x1, i), part(x2, j)), multiply(part(x1, j), part(x2, i)))

    parts = [term(1, 2), term(2, 0), term(0, 1)]
    if all(isinstance(c, SparseArray) for c in parts):
        out = stack(parts, axis=axis)
    else:
        out = xp.stack([_dense(c) for c in parts], axis=axis)
    if len(shape) == 1:
        out = squeeze(out, axis=0) if isinstance(out, SparseArray) else out[0, ...]
    return out
