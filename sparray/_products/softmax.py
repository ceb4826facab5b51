"""``softmax`` and ``log_softmax`` along one axis, exact with the fill value.

Along a **dense** (hybrid) axis every specified element is a full vector: its values get the
softmax directly, and so does the fill, which becomes dense-part shaped (RFC point 5): the
pattern is kept.

Along a **sparse** axis each slice mixes specified values ``v`` with ``u`` unspecified elements
equal to the fill ``f``: with ``m = max(v, f)`` and ``Z = sum exp(v - m) + u * exp(f - m)`` the
result is ``exp(v - m) / Z`` at specified elements and ``exp(f - m) / Z`` at unspecified ones.

- ``f = -inf`` (PyTorch's assumption in ``torch.sparse.softmax``): unspecified elements add
  nothing and the result keeps the pattern with fill 0 (``log_softmax``: fill -inf). A slice
  with no specified element has no softmax (dense NumPy gives ``0/0 = nan``); like PyTorch,
  sparray leaves it unspecified (0, or -inf for ``log_softmax``).
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

import math
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


def _specified_mask(xp, x):
    """A dense boolean array of ``x``'s shape: True at specified elements (whole dense parts)."""
    from .._core.keys import linear_keys

    A = x.to_layout("coo")
    index_shape = A.shape[: A.sparse_ndim]
    n = math.prod(index_shape)
    if A.nse == 0 or n == 0:
        flat = xp.zeros((n,), dtype=xp.bool)
    else:  # membership of every position in the sorted keys (no scatter: any array-API namespace)
        keys = xp.sort(linear_keys(xp, A._indices, index_shape))
        positions = xp.arange(n, dtype=xp.int64)
        at = xp.clip(xp.searchsorted(keys, positions), 0, keys.shape[0] - 1)
        flat = xp.take(keys, at) == positions
    mask = xp.reshape(flat, index_shape + (1,) * A.dense_ndim)
    return xp.broadcast_to(mask, A.shape)


def _one_slice(x, axis) -> bool:
    """Whether ``axis`` is the only non-dense dim longer than 1 (every other one has size 1)."""
    return all(x.shape[d] == 1 for d in range(x.ndim - x.dense_ndim) if d != axis)


def _one_slice_softmax(xp, x, axis, fill_dense, log):
    """Softmax along the one slice of ``x`` (see ``_one_slice``): the pattern is kept and the fill
    becomes ``exp(f - m) / Z`` per dense position (RFC point 5's hybrid example), with ``m`` the
    slice's max over its values and, when any position is unspecified, the fill, and ``Z`` the sum
    of ``exp(v - m)`` plus ``exp(f - m)`` per unspecified position: NumPy's formula on the dense
    slice. A dense position whose fill is -inf keeps the rule of the module docstring (fill 0, or
    -inf for ``log_softmax``, even in an empty slice)."""
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
    minus_inf = f == -xp.inf
    fill = xp.where(minus_inf, xp.full_like(fill, -xp.inf if log else 0.0), fill)
    out = A._replace_values(values, xp.reshape(fill, A.dense_shape))
    return match_layout(out, x)


def _along_sparse(xp, x, axis, log):
    from .._functions.reductions import _Groups

    fill_dense = xp.broadcast_to(x._fill, x.dense_shape)
    if bool(xp.any(xp.isfinite(fill_dense))):
        if _one_slice(x, axis):  # one slice per dense position: its unspecified values are uniform
            return _one_slice_softmax(xp, x, axis, fill_dense, log)
        out = _dense_softmax(xp, x.to_dense(), axis, log)  # they differ per slice: dense result
        minus_inf = fill_dense == -xp.inf
        if bool(xp.any(minus_inf)):  # dense positions with fill -inf keep their rule (module docstring)
            unspecified_minus_inf = xp.logical_and(xp.logical_not(_specified_mask(xp, x)), minus_inf)
            out = xp.where(unspecified_minus_inf, xp.asarray(-xp.inf if log else 0.0, dtype=out.dtype), out)
        return out
    A = x.to_layout("coo").coalesce()
    A._check_contents()
    n = A.shape[axis]
    nse = A.nse
    m = 1
    for s in A.dense_shape:
        m *= s
    vals = xp.reshape(A._values, (nse, m))
    f = xp.reshape(fill_dense, (1, m))
    if log:
        out_fill = xp.where(f == -xp.inf, f, xp.full_like(f, xp.nan))
    else:
        out_fill = xp.where(f == -xp.inf, xp.zeros_like(f), xp.full_like(f, xp.nan))
    out_fill = xp.reshape(out_fill, A.dense_shape)
    if nse == 0:
        return match_layout(A._replace_values(A._values, out_fill), x)
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
    values = xp.reshape(out, A._values.shape)
    return match_layout(A._replace_values(values, out_fill), x)
