"""``cumulative_sum`` and ``cumulative_prod`` of sparse arrays, exact with any fill.

A running sum along an axis is dense in general: past the first specified element of a line,
every unspecified position holds ``prefix + k * fill``, a different value at each step. So the
result is SPARSE only where it truly is, and otherwise DENSE (handed back by
``sparray.cumulative_sum`` as a sparray array holding the dense values: the namespace rule,
``_results.py``):

- ``axis`` a dense dim (a hybrid array): each specified dense part is summed on its own, and so
  is the fill (a dense-part fill comes back): sparse, same pattern and layout, O(nse * m).
- ``axis`` a sparse dim and a fill that absorbs the running value, so that every position from a
  line's first unspecified one on holds the fill: nan (``nan + v`` and ``nan * v`` are nan) for
  both functions, and 0 for ``cumulative_prod`` of an integer or bool result (``0 * v == 0``; a
  float zero is not absorbing, ``0 * inf`` is nan). Sparse with the same fill: only each line's
  leading run of specified positions (a segmented scan of it) stays specified, plus the initial
  value of every line for ``include_initial=True``. O(nse log nse).
- otherwise DENSE: ``xp.cumulative_sum(x.to_dense(), ...)``, O(size), the cost of writing the
  result anyway; it adds in NumPy's order, so the result is NumPy's to the bit. Empty and 0-d
  input is dense too.

``dtype`` and ``include_initial`` follow the standard (the result dtype is the namespace's own
``cumulative_sum`` dtype for the input). ``axis`` may be left out only for 1-d input.

>>> import sparray
>>> A = sparray.COO([[1, 3]], [2.0, 5.0], shape=(5,), fill_value=1.0)
>>> sparray.cumulative_sum(A).to_dense().tolist()
[1.0, 3.0, 4.0, 9.0, 10.0]
>>> B = sparray.COO([[0, 1, 3]], [2.0, 5.0, 7.0], shape=(5,), fill_value=float("nan"))
>>> P = sparray.cumulative_prod(B)
>>> P.to_dense().tolist()[:2], P.nse
([2.0, 10.0], 2)
"""

from __future__ import annotations


from .._array.base import SparseArray
from .._layout.conversion import match_layout
from .lines import coo_of, lines_of
from .._core.namespace import namespace_of
from .._engine.segments import segment_scan_sorted
from .._core.validation import normalize_axis

__all__ = ["cumulative_prod", "cumulative_sum"]


def cumulative_sum(x, /, *, axis=None, dtype=None, include_initial=False):
    """Cumulative sum along ``axis``: see the module docstring for the layout that comes back."""
    return _cumulative(x, axis, dtype, include_initial, "sum")


def cumulative_prod(x, /, *, axis=None, dtype=None, include_initial=False):
    """Cumulative product along ``axis``: see the module docstring for the layout that comes back."""
    return _cumulative(x, axis, dtype, include_initial, "prod")


def _cumulative(x, axis, dtype, include_initial, kind):
    who = f"sparray.cumulative_{kind}"
    name = f"cumulative_{kind}"
    if not isinstance(x, SparseArray):
        return getattr(namespace_of(x), name)(x, axis=axis, dtype=dtype, include_initial=include_initial)
    xp = x._xp
    if dtype is not None:
        from .._core.dtypes import resolve_dtype

        dtype = resolve_dtype(xp, dtype)
    if not isinstance(include_initial, bool):
        raise TypeError(f"{who}: include_initial must be a bool; got {include_initial!r}")
    if axis is None:
        if x.ndim > 1:
            raise ValueError(f"{who}: axis is required for an array of {x.ndim} dims (shape {x.shape})")
    else:
        axis = normalize_axis(axis, x.ndim, who, none_allowed=True)
    f = getattr(xp, name)
    if x.ndim == 0 or x.size == 0:
        dense = x.to_dense()
        if x.ndim == 0:  # NumPy's rule: one element in a 1-d array (the compat wrapper fails on 0-d)
            dense = xp.reshape(dense, (1,))
        if dense.dtype == xp.bool:
            dense = xp.astype(dense, xp.int64 if dtype is None else dtype)
        return f(dense, axis=axis, dtype=dtype, include_initial=include_initial)
    axis = 0 if axis is None else axis
    if x.dtype == xp.bool:  # not numeric in the array API: counted as the default integer (NumPy's result)
        x = x.astype(xp.int64 if dtype is None else dtype)
    out_dtype = f(xp.zeros((1,), dtype=x.dtype), dtype=dtype).dtype
    if axis >= x.ndim - x.dense_ndim:
        return match_layout(_along_dense(xp, coo_of(x), axis, out_dtype, include_initial, f), x)
    fill = xp.astype(x.fill_value, out_dtype)
    if _absorbs(xp, fill, kind):
        return match_layout(_leading_runs(xp, lines_of(x, axis), fill, out_dtype, include_initial, kind), x)
    return f(x.to_dense(), axis=axis, dtype=dtype, include_initial=include_initial)


def _absorbs(xp, fill, kind) -> bool:
    """Whether ``op(running, fill) == fill`` for every running value (see the module docstring)."""
    if xp.isdtype(fill.dtype, "real floating"):
        return bool(xp.all(xp.isnan(fill)))
    return kind == "prod" and xp.isdtype(fill.dtype, "integral") and bool(xp.all(fill == 0))


def _along_dense(xp, A, axis, out_dtype, include_initial, f):
    """The axis is a dense dim: every specified dense part and the fill run on their own."""
    from .._array.coo import COO

    d = axis - A.sparse_ndim
    # dtype passed on: a running sum of booleans is the default integer unless bool is asked for
    values = f(xp.astype(A._values, out_dtype), axis=1 + d, dtype=out_dtype, include_initial=include_initial)
    fill = xp.astype(xp.broadcast_to(A._fill, A.dense_shape), out_dtype)
    fill = f(fill, axis=d, dtype=out_dtype, include_initial=include_initial)
    shape = (*A.shape[:axis], A.shape[axis] + include_initial, *A.shape[axis + 1 :])
    return COO._from_parts(xp, A._indices, values, shape, fill, coalesced=True)


def _leading_runs(xp, L, fill, out_dtype, include_initial, kind):
    """An absorbing fill along a sparse axis: each line's leading run of specified positions,
    scanned; everything after it holds the fill."""
    lead = xp.nonzero(L.pos == L.rank())[0]
    rows = xp.astype(xp.take(L.rows, lead, axis=0), out_dtype)
    line_keys = xp.take(L.keys, xp.take(L.line, lead))
    pos = xp.take(L.pos, lead)
    if rows.shape[0]:
        rows, _, _ = segment_scan_sorted(xp, pos == 0, rows, kind)
    if include_initial:
        every = xp.arange(L.nlines, dtype=xp.int64)
        identity = xp.full((L.nlines, L.m), 0 if kind == "sum" else 1, dtype=out_dtype)
        line_keys = xp.concat([every, line_keys])
        pos = xp.concat([xp.zeros_like(every), pos + 1])
        rows = xp.concat([identity, rows], axis=0)
    from .._array.coo import COO

    shape = list(L.shape)
    shape[L.axis] += include_initial
    values = xp.reshape(rows, (rows.shape[0], *L.dense_shape))
    return COO._from_parts(xp, L.indices_at(line_keys, pos), values, tuple(shape), fill, coalesced=None)
