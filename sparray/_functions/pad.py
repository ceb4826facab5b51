"""``pad``: NumPy's ``pad`` for sparse arrays, exact for any fill value.

An extension beyond the array API standard (NumPy, CuPy and pydata/sparse have it; xarray's
``.pad``, ``.shift`` and ``.rolling(...)`` call ``xp.pad``). The signature is NumPy's,
``pad(x, pad_width, mode="constant", **kwargs)``, and ``pad_width`` takes NumPy's forms: an int
(every side), ``(before, after)`` (every dim) or one ``(before, after)`` per dim.

- ``mode="constant"`` (``constant_values=`` in the same forms, default 0): the entries keep their
  values at coordinates shifted by ``before``; a border whose constant is the fill (nan counts as
  nan) adds no entry, any other constant specifies every border element (O(border size)). The
  dims are padded in order, so a corner takes the constant of the last dim, as in NumPy. Along a
  dense dim the value blocks and the fill are padded (the fill becomes a dense-part fill when the
  constant differs from it).
- ``mode="empty"``: the border is left unspecified (the fill).
- ``mode="edge"``, ``"wrap"``, ``"reflect"`` (``reflect_type="even"``) and ``"symmetric"``: one
  ``take`` per padded dim with the index map of the mode (``edge``: the nearest end, ``wrap``:
  periodic, ``reflect`` / ``symmetric``: mirrored without / with the edge element, periodically
  for widths past the length), so the fill is unchanged and the entries are repeated.

The result has the input's layout when its shape allows it (a compressed layout needs 2 non-dense
dims, a blocked one a blocksize that divides the padded matrix dims), else COO; batched and hybrid
arrays keep their dense dims. Dense input goes to its namespace's ``pad``. The other NumPy modes
(``maximum``, ``mean``, ``median``, ``minimum``, ``linear_ramp``, a callable) and
``reflect_type="odd"`` raise ValueError naming what is supported.

>>> import sparray
>>> A = sparray.COO([[0, 1], [1, 0]], [1.0, 2.0], shape=(2, 2), fill_value=0.0)
>>> sparray.pad(A, 1).to_dense().tolist()
[[0.0, 0.0, 0.0, 0.0], [0.0, 0.0, 1.0, 0.0], [0.0, 2.0, 0.0, 0.0], [0.0, 0.0, 0.0, 0.0]]
>>> sparray.pad(A, ((0, 0), (1, 0)), constant_values=9.0).to_dense().tolist()
[[9.0, 0.0, 1.0], [9.0, 2.0, 0.0]]
>>> sparray.pad(A, (1, 0), mode="wrap").to_dense().tolist()
[[0.0, 2.0, 0.0], [1.0, 0.0, 1.0], [0.0, 2.0, 0.0]]
"""

from __future__ import annotations

import math
import operator

from .._array.base import SparseArray
from .._core.fill import same_value
from .._core.keys import index_dtype_for, unravel
from .._core.namespace import namespace_of

__all__ = ["pad"]

_MODES = ("constant", "empty", "edge", "wrap", "reflect", "symmetric")
_OPTIONS = {"constant": ("constant_values",), "empty": (), "edge": (), "wrap": (),
            "reflect": ("reflect_type",), "symmetric": ("reflect_type",)}  # fmt: skip


def _pairs(value, ndim, what, as_index):
    """NumPy's forms of ``pad_width`` / ``constant_values``: a scalar, ``(before, after)`` or one pair
    per dim, as ``ndim`` pairs of Python numbers."""
    import numpy as np

    try:
        arr = np.asarray(value)
    except (TypeError, ValueError):
        raise TypeError(f"pad: {what} must be a number, (before, after) or one pair per dim; got {value!r}") from None
    if arr.dtype == object:
        raise TypeError(f"pad: {what} must be a number, (before, after) or one pair per dim; got {value!r}")
    if as_index:
        if arr.size and arr.dtype.kind not in "iu":
            raise TypeError(f"pad: {what} must hold integers; got {value!r}")
        if arr.size and arr.min() < 0:
            raise ValueError(f"pad: {what} must not be negative; got {value!r}")
    if arr.size == 1:
        v = arr.reshape(()).item()
        return [(v, v)] * ndim
    if arr.size == 2 and arr.shape != (2, 1):
        b, a = arr.reshape(-1).tolist()
        return [(b, a)] * ndim
    try:
        return [tuple(p) for p in np.broadcast_to(arr, (ndim, 2)).tolist()]
    except ValueError:
        raise ValueError(
            f"pad: {what} of shape {arr.shape} does not fit an array of {ndim} dims; expected a number, "
            f"(before, after) or {ndim} pairs"
        ) from None


def pad(x, pad_width, mode="constant", **kwargs):
    """``x`` padded by ``pad_width`` elements on each side of each dim (NumPy's ``pad``).

    See the module docstring for the modes, their cost and the layout of the result.

    >>> import sparray
    >>> A = sparray.COO([[1]], [5.0], shape=(3,), fill_value=-1.0)
    >>> sparray.pad(A, (2, 1), constant_values=-1.0).nse, sparray.pad(A, 1, mode="edge").to_dense().tolist()
    (1, [-1.0, -1.0, 5.0, -1.0, -1.0])
    """
    if not isinstance(x, SparseArray):
        xp = namespace_of(x)
        if not hasattr(xp, "pad"):
            raise TypeError(f"pad: the namespace {xp.__name__} of a dense {type(x).__name__} has no pad")
        return xp.pad(x, pad_width, mode=mode, **kwargs)
    if callable(mode) or mode not in _MODES:
        raise ValueError(
            f"pad: mode={mode!r} is not supported for sparray arrays; supported: {', '.join(map(repr, _MODES))}"
        )
    unknown = sorted(set(kwargs) - set(_OPTIONS[mode]))
    if unknown:
        raise ValueError(f"pad: unsupported keyword arguments for mode {mode!r}: {unknown}")
    widths = [(operator.index(b), operator.index(a)) for b, a in _pairs(pad_width, x.ndim, "pad_width", True)]
    if kwargs.get("reflect_type", "even") != "even":
        raise ValueError(f"pad: reflect_type={kwargs['reflect_type']!r} is not supported for sparray arrays (only 'even')")
    if mode in ("constant", "empty"):
        consts = None if mode == "empty" else _pairs(kwargs.get("constant_values", 0), x.ndim, "constant_values", False)
        out = _pad_constant(x, widths, consts)
    else:
        out = x
        for d, (b, a) in enumerate(widths):
            if b or a:
                n = x.shape[d]
                if n == 0:
                    raise ValueError(f"pad: cannot extend the empty dim {d} with mode={mode!r} (only 'constant' or 'empty')")
                out = _take(out, _index_map(out._xp, mode, n, b, a), d)
    from .._layout.conversion import match_layout

    return match_layout(out, x)


def _index_map(xp, mode, n, b, a):
    """The source coordinate of each coordinate of the padded dim (``-b .. n + a - 1`` relative to
    the array's first element)."""
    p = xp.arange(-b, n + a, dtype=xp.int64)
    if mode == "edge":
        return xp.clip(p, 0, n - 1)
    if mode == "wrap":
        return p % n
    if mode == "reflect":
        if n == 1:
            return xp.zeros_like(p)
        period = 2 * (n - 1)
        q = p % period
        return xp.where(q < n, q, period - q)
    period = 2 * n  # symmetric
    q = p % period
    return xp.where(q < n, q, period - 1 - q)


def _take(x, idx, axis):
    from .take import take

    return take(x, idx, axis=axis)


def _pad_constant(x, widths, consts):
    """Constant (or, with ``consts`` None, empty) padding, dim by dim in order, on the COO form."""
    A = x if x.layout == "coo" else x.to_layout("coo")
    xp = A._xp
    for d, (b, a) in enumerate(widths):
        if not (b or a):
            continue
        cb, ca = (None, None) if consts is None else consts[d]
        if d >= A.sparse_ndim:
            A = _pad_dense_dim(xp, A, d, b, a, cb, ca)
        else:
            A = _pad_sparse_dim(xp, A, d, b, a, cb, ca)
    return A


def _constant(xp, c, A):
    """The constant ``c`` as a 0-d array of ``A``'s dtype (None: the fill, or its first element)."""
    if c is None:
        return A._fill if A._fill.ndim == 0 else xp.reshape(A._fill, (-1,))[0]
    return xp.astype(xp.asarray(c), A.dtype)


def _is_fill(xp, c, A):
    """Whether every element ``c`` would cover is the fill already (nan is nan; -0.0 is not 0.0)."""
    return bool(xp.all(same_value(xp, A._fill, c)))


def _pad_dense_dim(xp, A, d, b, a, cb, ca):
    """COO ``A`` padded along its dense dim ``d``: the value blocks and the fill get the constants."""
    from .._array.coo import COO

    j = d - A.sparse_ndim
    dense = A.dense_shape
    cb, ca = _constant(xp, cb, A), _constant(xp, ca, A)

    def padded(arr, axis):
        pieces = []
        for width, c in ((b, cb), (None, None), (a, ca)):
            if width is None:
                pieces.append(arr)
            elif width:
                shape = list(arr.shape)
                shape[axis] = width
                pieces.append(xp.broadcast_to(c, tuple(shape)))
        return xp.concat(pieces, axis=axis)

    values = padded(A._values, 1 + j)
    fill = A._fill
    if fill.ndim or (b and not _is_fill(xp, cb, A)) or (a and not _is_fill(xp, ca, A)):
        fill = padded(xp.broadcast_to(fill, dense) if fill.ndim == 0 else fill, j)
    shape = list(A.shape)
    shape[d] += b + a
    return COO._from_parts(xp, A._indices, values, tuple(shape), fill, coalesced=A._coalesced)


def _pad_sparse_dim(xp, A, d, b, a, cb, ca):
    """COO ``A`` padded along its sparse dim ``d``: the entries shifted by ``b``; a border whose
    constant is not the fill gets an entry at each of its positions."""
    from .._array.coo import COO

    s = A.sparse_ndim
    n = A.shape[d]
    sparse_shape = list(A.sparse_shape)
    sparse_shape[d] += b + a
    blocks = []  # (indices, values) of each border that holds entries
    for width, c, start in ((b, cb, 0), (a, ca, b + n)):
        if not width or c is None:
            continue
        c = _constant(xp, c, A)
        if _is_fill(xp, c, A):
            continue
        block = list(A.sparse_shape)
        block[d] = width
        count = math.prod(block)
        idx = unravel(xp, xp.arange(count, dtype=xp.int64), tuple(block), xp.int64)
        if start:
            idx = xp.where(_row_mask(xp, s, d), idx + start, idx)
        blocks.append((start, idx, xp.broadcast_to(c, (count, *A.dense_shape))))
    nse = A.nse + sum(idx.shape[1] for _, idx, _ in blocks)
    index_dtype = index_dtype_for(xp, tuple(sparse_shape), nse, A._indices)
    inner = xp.astype(A._indices, index_dtype, copy=False)
    if b:
        inner = xp.where(_row_mask(xp, s, d), inner + xp.asarray(b, dtype=index_dtype), inner)
    parts = [(b, inner, A._values)] + [(start, xp.astype(idx, index_dtype), v) for start, idx, v in blocks]
    parts.sort(key=lambda p: p[0])  # before, the entries, after: row-major along dim 0
    indices = xp.concat([p[1] for p in parts], axis=1)
    values = xp.concat([p[2] for p in parts], axis=0)
    shape = (*sparse_shape, *A.dense_shape)
    coalesced = True if d == 0 and A._coalesced else None
    return COO._from_parts(xp, indices, values, shape, A._fill, coalesced=coalesced)


def _row_mask(xp, s, d):
    return xp.reshape(xp.asarray([k == d for k in range(s)], dtype=xp.bool), (s, 1))
