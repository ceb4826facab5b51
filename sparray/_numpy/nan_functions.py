"""NumPy's ``nan*`` functions, and ``median`` / ``quantile`` / ``percentile``, on sparray arrays.

The third part of the NumPy protocol (``protocols.py`` holds the rules, ``extras.py`` the 2024.12
functions): ``np.nanmean(A, axis=1)`` and the rest answer with NumPy's arguments and NumPy's
semantics, exact with any fill (a nan fill too: then every unspecified element is a nan that is
skipped), never densifying. How:

- ``nansum``, ``nanprod``, ``nancumsum``, ``nancumprod``: the plain function of
  ``where(isnan(A), neutral, A)`` (0 or 1; the fill is replaced the same way);
- ``nanmax``, ``nanmin``, ``nanargmax``, ``nanargmin``: the same with -inf / inf, and the slices
  whose every element is nan (``all(isnan(A), axis)``): nan for ``nanmax``/``nanmin`` with NumPy's
  RuntimeWarning "All-NaN slice encountered", NumPy's ValueError for the arg functions;
- ``nanmean``: ``nansum`` over the count of non-nan elements (``sum(~isnan(A))``), nan with the
  warning "Mean of empty slice" where that count is 0;
- ``nanvar``, ``nanstd`` and the order statistics: ``sparray._functions.line_statistics`` (each
  line from its stored values plus the count of its fill elements), warning as NumPy does
  ("Degrees of freedom <= 0 for slice.", "All-NaN slice encountered").

Arrays with no nan in their dtype (integers, booleans) are answered as NumPy answers them, by the
function without ``nan`` (``np.nanmean`` of ints is ``np.mean``). Results have the usual form of
the protocol (``np.sum(A)``'s): an array of the components' namespace when every sparse dim is
reduced, else a sparse array over the kept dims. ``out=`` is refused as for every reduction, and
so are ``where=``, ``initial=``, ``mean=`` and ``weights=`` (TypeError naming them).
``np.quantile``'s 13 methods are all answered; ``overwrite_input`` is accepted and changes nothing.

>>> import numpy as np, sparray
>>> A = sparray.asarray(np.array([[1.0, np.nan, 0.0], [np.nan, 4.0, 2.0]]))
>>> np.nanmean(A, axis=1).to_dense().tolist(), float(np.nansum(A)), int(np.nanargmax(A))
([0.5, 3.0], 7.0, 4)
>>> np.nanmedian(A, axis=0).to_dense().tolist()
[1.0, 4.0, 1.0]
"""

from __future__ import annotations

import math
import warnings

import numpy as np

from .._array.base import SparseArray
from .._core.validation import normalize_axes
from .._functions import line_statistics as _stats
from .extras import _flat, _ns
from .protocols import _REDUCTIONS, _UNSET, _no_out, _unsupported, implements

__all__: list[str] = []

_STACK = 4  # the warning points at the caller of the NumPy function (adapter, array_function, __array_function__)


def _inexact(a) -> bool:
    """Whether ``a``'s dtype holds nan (real or complex floats)."""
    return a._xp.isdtype(a.dtype, ("real floating", "complex floating"))


def _quiet():
    """NumPy's own nan functions divide 0 by 0 without a word (the warnings they give are theirs)."""
    return np.errstate(invalid="ignore", divide="ignore")


def _replaced(a, value):
    sp = _ns()
    return sp.where(sp.isnan(a), value, a)


def _any(r) -> bool:
    return bool(_ns().any(r))


# --- sums, products and running ones: nan is the neutral element --------------------------------------
def _sum_like(kind, neutral):
    who = f"numpy.nan{kind}"

    def adapter(a, axis=None, dtype=None, out=None, keepdims=False, initial=_UNSET, where=_UNSET):
        _no_out(who, out)
        _unsupported(who, initial=initial, where=where)
        if not isinstance(a, SparseArray):
            return NotImplemented
        if _inexact(a):
            a = _replaced(a, neutral)
        return _REDUCTIONS[kind](a, axis=axis, dtype=dtype, keepdims=bool(keepdims))

    adapter.__name__ = f"nan{kind}"
    return adapter


implements(np.nansum)(_sum_like("sum", 0.0))
implements(np.nanprod)(_sum_like("prod", 1.0))


def _running(name, neutral):
    who = f"numpy.{name}"
    plain = {"nancumsum": "cumulative_sum", "nancumprod": "cumulative_prod"}[name]

    def adapter(a, axis=None, dtype=None, out=None):
        _no_out(who, out)
        if not isinstance(a, SparseArray):
            return NotImplemented
        if _inexact(a):
            a = _replaced(a, neutral)
        if axis is None:
            a, axis = _flat(a), 0
        return getattr(_ns(), plain)(a, axis=axis, dtype=dtype)

    adapter.__name__ = name
    return adapter


implements(np.nancumsum)(_running("nancumsum", 0.0))
implements(np.nancumprod)(_running("nancumprod", 1.0))


# --- extremes and where they are -------------------------------------------------------------------------
def _extreme(kind):
    who = f"numpy.nan{kind}"
    bound = -math.inf if kind == "max" else math.inf

    def adapter(a, axis=None, out=None, keepdims=False, initial=_UNSET, where=_UNSET):
        _no_out(who, out)
        _unsupported(who, initial=initial, where=where)
        if not isinstance(a, SparseArray):
            return NotImplemented
        keepdims = bool(keepdims)
        if not _inexact(a):
            return _REDUCTIONS[kind](a, axis=axis, keepdims=keepdims)
        sp = _ns()
        nan = sp.isnan(a)
        with _quiet():
            result = _REDUCTIONS[kind](sp.where(nan, bound, a), axis=axis, keepdims=keepdims)
            all_nan = sp.all(nan, axis=axis, keepdims=keepdims)
            if _any(all_nan):
                warnings.warn("All-NaN slice encountered", RuntimeWarning, stacklevel=_STACK)
                result = sp.where(all_nan, math.nan, result)
        return result

    adapter.__name__ = f"nan{kind}"
    return adapter


implements(np.nanmax)(_extreme("max"))
implements(np.nanmin)(_extreme("min"))


def _arg_extreme(kind):
    who = f"numpy.nanarg{kind}"
    bound = -math.inf if kind == "max" else math.inf

    def adapter(a, axis=None, out=None, *, keepdims=False):
        _no_out(who, out)
        if not isinstance(a, SparseArray):
            return NotImplemented
        sp = _ns()
        f = getattr(sp, f"arg{kind}")
        keepdims = bool(keepdims)
        if not _inexact(a):
            return f(a, axis=axis, keepdims=keepdims)
        nan = sp.isnan(a)
        if (a.size if axis is None else a.shape[axis]) and _any(sp.all(nan, axis=axis)):  # (empty: argmax's error)
            raise ValueError("All-NaN slice encountered")
        return f(sp.where(nan, bound, a), axis=axis, keepdims=keepdims)

    adapter.__name__ = f"nanarg{kind}"
    return adapter


implements(np.nanargmax)(_arg_extreme("max"))
implements(np.nanargmin)(_arg_extreme("min"))


# --- mean, variance, standard deviation ------------------------------------------------------------------
@implements(np.nanmean)
def _nanmean(a, axis=None, dtype=None, out=None, keepdims=False, *, where=_UNSET):
    _no_out("numpy.nanmean", out)
    _unsupported("numpy.nanmean", where=where)
    if not isinstance(a, SparseArray):
        return NotImplemented
    keepdims = bool(keepdims)
    if not _inexact(a):
        return _REDUCTIONS["mean"](a, axis=axis, dtype=dtype, keepdims=keepdims)
    sp = _ns()
    nan = sp.isnan(a)
    with _quiet():
        total = sp.sum(sp.where(nan, 0.0, a), axis=axis, dtype=dtype, keepdims=keepdims)
        count = sp.sum(sp.logical_not(nan), axis=axis, dtype=a._xp.int64, keepdims=keepdims)
        if _any(count == 0):
            warnings.warn("Mean of empty slice", RuntimeWarning, stacklevel=_STACK)
        return sp.divide(total, sp.astype(count, total.dtype))


def _spread(kind):
    who = f"numpy.nan{kind}"

    def adapter(a, axis=None, dtype=None, out=None, ddof=0, keepdims=False, *, where=_UNSET, mean=_UNSET,
                correction=_UNSET):
        _no_out(who, out)
        _unsupported(who, where=where, mean=mean)
        if not isinstance(a, SparseArray):
            return NotImplemented
        keepdims = bool(keepdims)
        if not _inexact(a):
            kw = {} if correction is _UNSET else {"correction": correction}
            return _REDUCTIONS[kind](a, axis=axis, dtype=dtype, ddof=ddof, keepdims=keepdims, **kw)
        if correction is not _UNSET and ddof != 0:
            raise ValueError(f"{who}: ddof and correction cannot both be given")
        c = ddof if correction is _UNSET else correction
        with _quiet():
            var, bad = _stats.nanvar(a, axis=axis, correction=c, keepdims=keepdims, dtype=dtype)
            if bad:
                warnings.warn("Degrees of freedom <= 0 for slice.", RuntimeWarning, stacklevel=_STACK)
            return _ns().sqrt(var) if kind == "std" else var

    adapter.__name__ = f"nan{kind}"
    return adapter


implements(np.nanvar)(_spread("var"))
implements(np.nanstd)(_spread("std"))


# --- medians, quantiles, percentiles ----------------------------------------------------------------------
def _q_array(who, a, q, percent):
    """``q`` as an array of ``a``'s namespace (percent / 100), checked as NumPy checks it, and
    whether it came as a Python number (NumPy's weak promotion of the result)."""
    weak = type(q) in (int, float)
    if isinstance(q, SparseArray):
        q = q.to_dense()
    xp = a._xp
    if isinstance(q, (np.ndarray, np.generic, int, float, list, tuple)):
        qn = np.asanyarray(q)
        if percent:
            qn = np.true_divide(qn, 100)
        if qn.dtype.kind not in "iuf":
            raise TypeError(f"{who}: q must be real numbers; got dtype {qn.dtype}")
        qx = qn if isinstance(a._values, np.ndarray) else xp.asarray(qn)
    else:  # an array of the components' namespace (CuPy ...)
        qx = xp.asarray(q)
        if percent:
            qx = qx / 100
    if qx.ndim > 2:
        raise ValueError(f"{who}: q must be a scalar or 1d")
    with _quiet():
        valid = bool(xp.all((qx >= 0) & (qx <= 1))) if math.prod(qx.shape) else True
    if not valid:
        raise ValueError("Percentiles must be in the range [0, 100]" if percent else "Quantiles must be in the range [0, 1]")
    return qx, weak


def _order_statistic(who, a, q, axis, out, method, keepdims, weights, *, skip, median=False, percent=False):
    _no_out(who, out)
    if weights is not None:
        raise TypeError(f"{who}: the argument weights= is not supported for sparray arrays")
    if not isinstance(a, SparseArray):
        return NotImplemented
    xp = a._xp
    if xp.isdtype(a.dtype, "complex floating"):
        raise TypeError(f"{who}: a must be an array of real numbers; got {a.dtype}")
    if method not in _stats.QUANTILE_METHODS:
        raise ValueError(f"{who}: {method!r} is not a valid method; use one of {_stats.QUANTILE_METHODS}")
    keepdims = bool(keepdims)
    if isinstance(axis, list):  # NumPy's order statistics take any sequence of axes (Dask's nanmedian passes a list)
        axis = tuple(axis)
    axes = normalize_axes(axis, a.ndim, who)
    qx, weak = (None, False) if median else _q_array(who, a, q, percent)
    skip = skip and _inexact(a)
    if math.prod(a.shape[d] for d in axes) == 0:
        return _empty_reduction(who, a, qx, axes, keepdims, median or skip)
    with _quiet():
        result, empty = _stats.quantiles(a, qx, axis=axis, keepdims=keepdims, method=method, skip_nan=skip,
                                         median=median, weak_q=weak)
    if empty and skip:
        warnings.warn("All-NaN slice encountered", RuntimeWarning, stacklevel=_STACK + 1)
    return result


def _empty_reduction(who, a, qx, axes, keepdims, as_mean):
    """Slices of no element: NumPy's median (and the nan functions) give nan as the mean of an
    empty slice does; its quantile has no element to take."""
    if not as_mean:
        raise IndexError(f"{who}: no element to take a quantile of: axis {axes} of shape {a.shape} is empty")
    warnings.warn("Mean of empty slice", RuntimeWarning, stacklevel=_STACK + 1)
    xp = a._xp
    shape = tuple(1 if d in axes else n for d, n in enumerate(a.shape)) if keepdims else tuple(
        n for d, n in enumerate(a.shape) if d not in axes)
    dtype = a.dtype if xp.isdtype(a.dtype, "real floating") else xp.float64
    q_shape = () if qx is None else tuple(qx.shape)
    return xp.full((*q_shape, *shape), math.nan, dtype=dtype, device=a.device)


@implements(np.median)
def _median(a, axis=None, out=None, overwrite_input=False, keepdims=False):
    return _order_statistic("numpy.median", a, None, axis, out, "linear", keepdims, None, skip=False, median=True)


@implements(np.nanmedian)
def _nanmedian(a, axis=None, out=None, overwrite_input=False, keepdims=False):
    return _order_statistic("numpy.nanmedian", a, None, axis, out, "linear", keepdims, None, skip=True, median=True)


def _quantile_like(name, skip, percent):
    who = f"numpy.{name}"

    def adapter(a, q, axis=None, out=None, overwrite_input=False, method="linear", keepdims=False, *, weights=None):
        return _order_statistic(who, a, q, axis, out, method, keepdims, weights, skip=skip, percent=percent)

    adapter.__name__ = name
    return adapter


implements(np.quantile)(_quantile_like("quantile", False, False))
implements(np.nanquantile)(_quantile_like("nanquantile", True, False))
implements(np.percentile)(_quantile_like("percentile", False, True))
implements(np.nanpercentile)(_quantile_like("nanpercentile", True, True))
