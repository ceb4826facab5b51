"""``softmax`` and ``log_softmax`` along one axis, exact with the fill value.

Along a **dense** (hybrid) axis every specified element is a full vector: its values get the
softmax directly, and so does the fill, which becomes dense-part shaped (RFC point 5): the
pattern is kept.

Along a **sparse** axis each slice mixes specified values ``v`` with ``u`` unspecified elements
equal to the fill ``f``: with ``m = max(v, f)`` and ``Z = sum exp(v - m) + u * exp(f - m)`` the
result is ``exp(v - m) / Z`` at specified elements and ``exp(f - m) / Z`` at unspecified ones.

- ``f = -inf`` (PyTorch's assumption in ``torch.sparse.softmax``): unspecified elements add
  nothing and the result keeps the pattern with fill 0 (``log_softmax``: fill -inf), as long as
  the slice holds a finite maximum. A slice with no finite maximum (every element -inf, counting
  the unspecified ones, so every slice with no specified element; or a slice holding a nan or
  +inf) is nan throughout, as NumPy's ``exp(x - max) / sum(exp(x - max))`` gives it (``-inf -
  -inf`` is nan): its unspecified elements are stored as nan (the whole slice; a
  ``SparrayPerformanceWarning`` says so when they are most of a large result), or, when every
  slice is such a slice, the result's fill is nan. PyTorch leaves those slices 0.
- ``f = nan`` or ``+inf``: every slice with an unspecified element is nan, the fill of the result.
- a finite ``f`` and one slice (``axis`` is the only non-dense dim longer than 1, as in the
  RFC's hybrid example): the unspecified value ``exp(f - m) / Z`` is one per dense position, so
  the pattern is kept and that becomes the (dense-part) fill (RFC point 5);
- a finite ``f`` and several slices: the unspecified value differs from slice to slice, so the
  result is dense in fact and a dense array comes back.

A hybrid array may mix these per dense position; the result's fill is then dense-part shaped.
Integer and bool input is computed in the default float dtype (as ``scipy.special.softmax``
does); complex input is a TypeError.

>>> import sparray, numpy as np
>>> A = sparray.asarray(np.array([[1.0, -np.inf], [2.0, 2.0]]), fill_value=-np.inf, layout="csr")
>>> sparray.softmax(A, axis=1).to_dense().tolist()
[[1.0, 0.0], [0.5, 0.5]]
"""

from __future__ import annotations

import operator

import numpy as np

from .._engine import dispatch as _dispatch
from .._array.base import SparseArray
from .._layout.conversion import match_layout
from .._core.namespace import namespace_of

__all__ = ["log_softmax", "softmax"]


def softmax(x, /, axis):
    """Softmax of ``x`` along ``axis``: ``exp(x - max) / sum(exp(x - max))``, exact with the fill.

    See the module docstring for what comes back with each kind of fill value.
    """
    return _softmax(x, axis, log=False, who="softmax")


def log_softmax(x, /, axis):
    """``log(softmax(x, axis))``, computed as ``x - max - log(sum(exp(x - max)))``."""
    return _softmax(x, axis, log=True, who="log_softmax")


def _dense_softmax(xp, x, axis, log):
    if x.shape[axis] == 0:  # nothing to normalise (and max has no identity)
        return xp.asarray(x, copy=True)
    with np.errstate(all="ignore"):
        m = xp.max(x, axis=axis, keepdims=True)
        shifted = x - m
        z = xp.sum(xp.exp(shifted), axis=axis, keepdims=True)
        return shifted - xp.log(z) if log else xp.exp(shifted) / z


def _float_input(who, xp, x):
    dt = x.dtype
    if xp.isdtype(dt, "complex floating"):
        raise TypeError(f"{who}: expected a real dtype; got {dt} (softmax has no complex meaning)")
    if not xp.isdtype(dt, "real floating"):
        default = xp.asarray(0.0).dtype
        x = x.astype(default) if isinstance(x, SparseArray) else xp.astype(x, default)
    return x


def _softmax(x, axis, *, log, who):
    if isinstance(axis, tuple) or axis is None:
        raise TypeError(f"{who}: axis must be one int; got {axis!r}")
    try:
        axis = operator.index(axis)
    except TypeError:
        raise TypeError(f"{who}: axis must be an int; got {axis!r}") from None
    if not -x.ndim <= axis < x.ndim:
        raise ValueError(f"{who}: axis {axis} is out of range for shape {tuple(x.shape)}")
    axis %= x.ndim
    if not isinstance(x, SparseArray):
        xp = namespace_of(x)
        return _dense_softmax(xp, _float_input(who, xp, x), axis, log)
    xp = x._xp
    x = _float_input(who, xp, x)
    first_dense = x.ndim - x.dense_ndim
    if axis >= first_dense:
        return _along_dense(xp, x, axis - first_dense, log)
    return _along_sparse(xp, x, axis, log)


def _along_dense(xp, x, d, log):
    """Softmax over dense dim ``d``: the values of each specified element and the fill, same pattern."""
    A = x.coalesce() if x.layout == "coo" else x
    lead = 1 if A.layout == "coo" else A._values_lead
    values = _dense_softmax(xp, A._values, lead + d, log)
    fill = _dense_softmax(xp, xp.broadcast_to(A._fill, A.dense_shape), d, log)
    return A._replace_values(values, fill)


def _one_slice(x, axis) -> bool:
    """Whether ``axis`` is the only non-dense dim longer than 1 (every other one has size 1)."""
    return all(x.shape[d] == 1 for d in range(x.ndim - x.dense_ndim) if d != axis)


def _one_slice_softmax(xp, x, axis, fill_dense, log):
    """Softmax along the one slice of ``x`` (see ``_one_slice``): the pattern is kept and the fill
    becomes ``exp(f - m) / Z`` per dense position (RFC point 5's hybrid example), with ``m`` the
    slice's max over its values and, when any position is unspecified, the fill, and ``Z`` the sum
    of ``exp(v - m)`` plus ``exp(f - m)`` per unspecified position: NumPy's formula on the dense
    slice, for every fill (a -inf fill in a slice with no finite maximum gives nan, as NumPy)."""
    A = x.to_layout("coo").coalesce()
    unspecified = A.shape[axis] - A.nse  # one slice: every entry is its own position along axis
    vals = A._values
    f = xp.reshape(fill_dense, (1, *A.dense_shape))
    with np.errstate(all="ignore"):
        if A.nse:
            m = xp.max(vals, axis=0, keepdims=True)
            m = xp.maximum(m, f) if unspecified else m
        else:
            m = f
        shifted, fshift = vals - m, f - m
        z = xp.sum(xp.exp(shifted), axis=0, keepdims=True)
        if unspecified:  # (0 * exp(nan) would be nan)
            z = z + unspecified * xp.exp(fshift)
        if log:
            values, fill = shifted - xp.log(z), fshift - xp.log(z)
        else:
            values, fill = xp.exp(shifted) / z, xp.exp(fshift) / z
    out = A._replace_values(values, xp.reshape(fill, A.dense_shape))
    return match_layout(out, x)


def _along_sparse(xp, x, axis, log):
    from .._functions.reductions import _Groups

    fill_dense = xp.broadcast_to(x._fill, x.dense_shape)
    if bool(xp.any(xp.isfinite(fill_dense))):
        if _one_slice(x, axis):  # one slice per dense position: its unspecified values are uniform
            return _one_slice_softmax(xp, x, axis, fill_dense, log)
        return _dense_softmax(xp, x.to_dense(), axis, log)  # they differ per slice: dense result
    A = x.to_layout("coo").coalesce()
    A._check_contents()
    n = A.shape[axis]
    nse = A.nse
    m = 1
    for s in A.dense_shape:
        m *= s
    vals = xp.reshape(A._values, (nse, m))
    f = xp.reshape(fill_dense, (1, m))
    minus_inf = f == -xp.inf
    if log:
        out_fill = xp.where(minus_inf, f, xp.full_like(f, xp.nan))
    else:
        out_fill = xp.where(minus_inf, xp.zeros_like(f), xp.full_like(f, xp.nan))
    if nse == 0 or n == 0:  # every slice (if any element) is unspecified: all -inf gives nan, as NumPy
        if n:
            out_fill = xp.full_like(out_fill, xp.nan)
        return match_layout(A._replace_values(A._values, xp.reshape(out_fill, A.dense_shape)), x)
    groups = _Groups(xp, A, [axis])
    ukeys, vmax, counts = _dispatch.call("group_reduce", "coo", xp, groups.keys, vals, groups.nkeys, "max", work=nse)
    g = xp.searchsorted(ukeys, xp.astype(groups.keys, ukeys.dtype))
    unspec = xp.reshape(xp.astype(n - counts, vals.dtype), (-1, 1))
    has_unspec = unspec > 0
    with np.errstate(all="ignore"):
        mg = xp.where(has_unspec, xp.maximum(vmax, f), vmax)
        shifted = vals - xp.take(mg, g, axis=0)
        e = xp.exp(shifted)
        _, s, _ = _dispatch.call("group_reduce", "coo", xp, groups.keys, e, groups.nkeys, "sum", work=nse)
        z = s + xp.where(has_unspec, unspec * xp.exp(f - mg), xp.zeros_like(s))
        out = shifted - xp.take(xp.log(z), g, axis=0) if log else e / xp.take(z, g, axis=0)
    # a slice with an unspecified -inf and no finite maximum is nan throughout (its values already are)
    nan_slices = has_unspec & minus_inf & xp.logical_not(xp.isfinite(mg))
    out = xp.reshape(out, A._values.shape)
    return match_layout(_with_nan_slices(xp, A, axis, groups, ukeys, nan_slices, out, out_fill, minus_inf), x)


NAN_SLICES_WARNING = 1024  # unspecified elements stored as nan, past which softmax warns


def _with_nan_slices(xp, A, axis, groups, ukeys, nan_slices, values, out_fill, minus_inf):
    """The result COO (``A``'s pattern, ``values``, fill ``out_fill`` (1, m)) with the unspecified
    elements of every slice that NumPy gives nan stored as nan: the slices whose (G, m) row of
    ``nan_slices`` (present slices, keys ``ukeys``) holds True at some dense position, and, where
    the fill is -inf at some position, every slice with no specified element. Where every slice is
    nan at a dense position the fill becomes nan there instead and nothing is stored for it."""
    from .._array.coo import COO
    from .._core.keys import index_dtype_for, linear_keys, unravel

    nlines = groups.nkeys
    n_present = ukeys.shape[0]
    n_empty = nlines - n_present
    empty_nan = minus_inf  # (1, m): an empty slice is all -inf where the fill is -inf
    count = xp.sum(xp.astype(nan_slices, xp.int64), axis=0, keepdims=True) + n_empty * xp.astype(empty_nan, xp.int64)
    everywhere = count == nlines
    fill = xp.where(everywhere, xp.full_like(out_fill, xp.nan), out_fill)
    need = nan_slices & xp.logical_not(everywhere)
    need_empty = n_empty > 0 and bool(xp.any(empty_nan & xp.logical_not(everywhere)))
    present = xp.any(need, axis=1)
    fill_out = xp.reshape(fill, A.dense_shape)
    if not (need_empty or bool(xp.any(present))):
        return A._replace_values(values, fill_out)
    keys = xp.astype(ukeys[present], xp.int64)
    rows = need[present]
    if need_empty:
        every = xp.arange(nlines, dtype=xp.int64)
        at = xp.clip(xp.searchsorted(xp.astype(ukeys, xp.int64), every), 0, max(n_present - 1, 0))
        empty = every[xp.take(xp.astype(ukeys, xp.int64), at) != every] if n_present else every
        keys = xp.concat([keys, empty])
        rows = xp.concat([rows, xp.broadcast_to(empty_nan & xp.logical_not(everywhere), (empty.shape[0], rows.shape[1]))])
    n = A.shape[axis]
    k = keys.shape[0]
    s = A.sparse_ndim
    kept = [d for d in range(s) if d != axis]
    kept_idx = unravel(xp, keys, tuple(A.shape[d] for d in kept), xp.int64) if kept else None
    along = xp.reshape(xp.broadcast_to(xp.arange(n, dtype=xp.int64)[None, :], (k, n)), (k * n,))
    index_rows = []
    for d in range(s):
        if d == axis:
            index_rows.append(along)
        else:
            r = kept_idx[kept.index(d), :]
            index_rows.append(xp.reshape(xp.broadcast_to(r[:, None], (k, n)), (k * n,)))
    sparse_shape = A.shape[:s]
    full = xp.stack(index_rows)
    full_keys = linear_keys(xp, full, sparse_shape)
    old_keys = linear_keys(xp, xp.astype(A._indices, xp.int64), sparse_shape)  # sorted: A is coalesced
    slot = xp.clip(xp.searchsorted(old_keys, full_keys), 0, old_keys.shape[0] - 1)
    new = xp.take(old_keys, slot) != full_keys
    m = rows.shape[1]
    new_rows = xp.reshape(xp.broadcast_to(rows[:, None, :], (k, n, m)), (k * n, m))[new]
    new_vals = xp.where(new_rows, xp.full_like(new_rows, xp.nan, dtype=values.dtype),
                        xp.broadcast_to(xp.astype(fill, values.dtype), new_rows.shape))
    new_keys = full_keys[new]
    _warn_nan_slices(k, new_keys.shape[0], A.nse)
    all_keys = xp.concat([old_keys, new_keys])
    order = xp.argsort(all_keys)
    all_keys = xp.take(all_keys, order)
    flat = xp.concat([xp.reshape(values, (A.nse, m)), new_vals])
    all_vals = xp.reshape(xp.take(flat, order, axis=0), (all_keys.shape[0], *A.dense_shape))
    idt = index_dtype_for(xp, sparse_shape, all_keys.shape[0], A._indices)
    return COO._from_parts(xp, unravel(xp, all_keys, sparse_shape, idt), all_vals, A.shape, fill_out, coalesced=True)


def _warn_nan_slices(k, added, nse):
    if added >= NAN_SLICES_WARNING and added > nse:
        import warnings

        from .._engine.dispatch import SparrayPerformanceWarning

        warnings.warn(
            f"softmax: {k} slices have no finite maximum (every element -inf, or a nan or +inf among them), so "
            f"NumPy's softmax is nan throughout them; their {added} unspecified elements are stored as nan "
            "(torch.sparse.softmax leaves them 0: give each slice a finite entry, or drop the empty slices, to keep "
            "the result's pattern)",
            SparrayPerformanceWarning,
            stacklevel=4,
        )
