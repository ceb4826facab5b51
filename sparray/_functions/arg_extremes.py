"""``argmax`` and ``argmin`` of sparse arrays, from the sparse pattern (never the dense form).

NumPy's rule: the first occurrence of the extreme wins, and a nan beats every number (the first
nan wins, for ``argmax`` and ``argmin`` alike). The unspecified elements take part through the
fill: when the extreme of a slice is the fill, the answer is the slice's first *unspecified*
position, unless a specified element equal to it comes earlier.

How, per kind of axis:

- ``axis`` a sparse dim: the specified entries are grouped into lines (``_lines.py``); per line and
  dense column, the extreme of the specified values (registry op ``group_reduce``), the first
  position holding it (a second ``group_reduce``, ``min`` of the matching positions), and the
  first unspecified position (the end of the line's leading run of specified positions) are
  compared with the column's fill. Lines with no entry hold the fill only: their answer is 0.
  O(nse log nse).
- ``axis`` a dense dim: ``argmax`` of every specified dense part and of the fill.
- ``axis=None``: the flat index (NumPy's C order) of the extreme: the best specified element
  against the best fill element at the first unspecified position.

The result is dense int64 (one index per kept position: it has no fill to leave unspecified);
the namespace's ``sparray.argmax`` hands it back as a sparray array holding those dense values,
these module functions as an array of the components' namespace (``_results.py``). Complex input raises TypeError (no order in the array API);
a zero-size reduction raises ValueError, as NumPy's.

>>> import sparray
>>> A = sparray.COO([[0, 1, 1], [1, 0, 2]], [-2.0, 4.0, 4.0], shape=(2, 3), fill_value=0.0)
>>> sparray.argmax(A, axis=1).to_dense().tolist(), sparray.argmin(A, axis=1).to_dense().tolist()
([0, 0], [1, 1])
>>> int(sparray.argmax(A)), int(sparray.argmin(A))
(3, 1)
"""

from __future__ import annotations

import math

from .._engine import dispatch as _dispatch
from .._array.base import SparseArray
from .._core.fill import same_value
from .._core.keys import linear_keys, unravel
from .lines import coo_of, lines_of
from .._core.namespace import namespace_of
from .order import beats, check_real, is_float, sortable
from .._core.validation import normalize_axis

__all__ = ["argmax", "argmin"]


def argmax(x, /, *, axis=None, keepdims=False):
    """Index of the first maximum along ``axis`` (None: flat index), nan first; see the module docstring."""
    return _arg_extreme(x, axis, keepdims, "max")


def argmin(x, /, *, axis=None, keepdims=False):
    """Index of the first minimum along ``axis`` (None: flat index), nan first; see the module docstring."""
    return _arg_extreme(x, axis, keepdims, "min")


def _arg_extreme(x, axis, keepdims, kind):
    who = f"sparray.arg{kind}"
    if not isinstance(x, SparseArray):
        f = getattr(namespace_of(x), f"arg{kind}")
        return f(x, axis=axis, keepdims=keepdims)
    xp = x._xp
    check_real(xp, x.dtype, who)
    if axis is not None:
        axis = normalize_axis(axis, x.ndim, who, none_allowed=True)
    if (x.size if axis is None else x.shape[axis]) == 0:
        raise ValueError(f"{who}: attempt to get arg{kind} of an empty sequence (shape {x.shape}, axis {axis})")
    if axis is None:
        out = _flat(xp, coo_of(x), kind)
        return xp.reshape(out, (1,) * x.ndim) if keepdims else out
    out_shape = tuple(n for d, n in enumerate(x.shape) if d != axis)
    if math.prod(out_shape) == 0:
        out = xp.zeros(out_shape, dtype=xp.int64)
    elif axis < x.ndim - x.dense_ndim:
        out = _along_sparse(xp, lines_of(x, axis), kind)
    else:
        out = _along_dense(xp, coo_of(x), axis, kind)
    return xp.expand_dims(out, axis=axis) if keepdims else out


def dense_arg_extreme(xp, a, axis, kind):
    """NumPy's ``argmax``/``argmin`` of a dense array along ``axis`` (first nan wins), as int64."""
    a = sortable(xp, a)
    f = xp.argmax if kind == "max" else xp.argmin
    out = f(a, axis=axis)
    if is_float(xp, a.dtype):
        nan = xp.isnan(a)
        out = xp.where(xp.any(nan, axis=axis), xp.argmax(xp.astype(nan, xp.uint8), axis=axis), out)
    return xp.astype(out, xp.int64)


def _along_dense(xp, A, axis, kind):
    """The axis is a dense dim: every specified dense part, and the fill, answer for themselves."""
    from .._array.coo import COO

    s = A.sparse_ndim
    d = axis - s
    values = dense_arg_extreme(xp, A._values, 1 + d, kind)
    fill = dense_arg_extreme(xp, xp.broadcast_to(A._fill, A.dense_shape), d, kind)
    shape = A.sparse_shape + tuple(n for i, n in enumerate(A.dense_shape) if i != d)
    return COO._from_parts(xp, A._indices, values, shape, fill, coalesced=True).to_dense()


def _along_sparse(xp, L, kind):
    """The axis is a sparse dim: compare each line's specified extreme with its fill (module docstring)."""
    from .._array.coo import COO

    dense_shape, m, n = L.dense_shape, L.m, L.n
    if L.nse == 0:
        return xp.zeros((*L.kept_shape, *dense_shape), dtype=xp.int64)
    rows = sortable(xp, L.rows)
    fill = xp.reshape(sortable(xp, L.fill_row), (1, m))
    _, ext, counts = _dispatch.call("group_reduce", "csr", xp, L.offsets, rows, kind, work=L.nse)
    hit = same_value(xp, rows, xp.take(ext, L.line, axis=0), signed_zeros=False)  # -0.0 ties with 0.0
    at = xp.where(hit, xp.reshape(L.pos, (L.nse, 1)), xp.asarray(n, dtype=xp.int64))
    _, first, _ = _dispatch.call("group_reduce", "csr", xp, L.offsets, at, "min", work=L.nse)
    gap = xp.reshape(L.first_gaps(), (-1, 1))
    full = xp.reshape(xp.astype(counts, xp.int64) == n, (-1, 1))
    answer = xp.where(
        full | beats(xp, ext, fill, kind),
        first,
        xp.where(beats(xp, fill, ext, kind), gap, xp.minimum(first, gap)),
    )
    answer = xp.reshape(answer, (answer.shape[0], *dense_shape))
    if not L.kept_shape:  # one line: it is present (nse > 0)
        return answer[0, ...]
    indices = unravel(xp, L.keys, L.kept_shape, L.index_dtype)
    out = COO._from_parts(xp, indices, answer, (*L.kept_shape, *dense_shape), xp.zeros((), dtype=xp.int64),
                          coalesced=True)
    return out.to_dense()


def _flat(xp, A, kind):
    """``axis=None``: the flat index of the first extreme, specified elements against the fill
    (whose first element sits at the first unspecified position; ``A.size > 0``)."""
    m = math.prod(A.dense_shape)
    nse = A.nse
    keys = linear_keys(xp, A._indices, A.sparse_shape)  # sorted and unique: A is coalesced
    if keys is None:
        raise NotImplementedError(f"sparray.arg{kind}: sparse shape {A.sparse_shape} has more than 2**63 positions")
    best = best_at = None
    if nse:
        flat = xp.reshape(sortable(xp, A._values), (nse * m,))
        i = dense_arg_extreme(xp, flat, 0, kind)
        best, best_at = flat[i], keys[i // m] * m + i % m
    if math.prod(A.sparse_shape) > nse:  # some position is unspecified
        gap = xp.sum(xp.astype(keys == xp.arange(nse, dtype=xp.int64), xp.int64))
        fill = xp.reshape(sortable(xp, xp.broadcast_to(A._fill, A.dense_shape)), (m,))
        j = dense_arg_extreme(xp, fill, 0, kind)
        fill_at = gap * m + j
        if best is None:
            return fill_at
        f = fill[j]
        best_at = xp.where(
            beats(xp, best, f, kind), best_at, xp.where(beats(xp, f, best, kind), fill_at, xp.minimum(best_at, fill_at))
        )
    return xp.astype(best_at, xp.int64)
