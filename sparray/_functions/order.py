"""The order that sorting and searching share: NumPy's (nan after everything), descending its reverse.

Ascending: ``-inf < ... < inf < nan`` (every nan ties with every other nan), as ``numpy.sort``;
descending is the exact reverse (nan first) with ties kept in their original order, as the
array API's ``sort(..., descending=True, stable=True)``. ``argmax`` and ``argmin`` let a nan win
either way (NumPy's rule), which is :func:`beats`.

Booleans are compared as 0/1 (``sortable``): the array API defines ``<`` only on real numbers.
Complex arrays have no order in the array API; the ordering functions reject them
(:func:`check_real`) instead of picking one silently.

>>> import numpy as np
>>> from sparray._core.namespace import namespace_of
>>> xp = namespace_of(np.empty(0))
>>> precedes(xp, np.array([1.0, np.nan, 3.0]), np.array(np.nan), False).tolist()
[True, False, True]
"""

from __future__ import annotations

__all__ = ["beats", "check_real", "is_float", "precedes", "sortable", "stable_argsort"]


def is_float(xp, dtype) -> bool:
    return xp.isdtype(dtype, "real floating")


def check_real(xp, dtype, who):
    """TypeError for a complex dtype: the array API leaves the order of complex numbers unspecified."""
    if xp.isdtype(dtype, "complex floating"):
        raise TypeError(
            f"{who}: expected a real-valued (or bool) array; got {dtype} (complex numbers have no order in "
            "the array API; order by real(x) and imag(x) explicitly)"
        )


def sortable(xp, a):
    """``a`` as an array that ``<`` and ``argsort`` accept everywhere: booleans as uint8."""
    return xp.astype(a, xp.uint8) if a.dtype == xp.bool else a


def precedes(xp, a, b, descending):
    """Whether ``a`` sorts strictly before ``b`` (element-wise, broadcasting): ascending with nan last,
    or descending with nan first."""
    if not is_float(xp, a.dtype):
        return a > b if descending else a < b
    if descending:
        return (a > b) | (xp.isnan(a) & ~xp.isnan(b))
    return (a < b) | (xp.isnan(b) & ~xp.isnan(a))


def beats(xp, a, b, kind):
    """Whether ``a`` is a strictly better ``kind`` ("max" or "min") candidate than ``b``: larger
    (smaller), or nan against a number (NumPy's argmax and argmin return the first nan)."""
    better = a > b if kind == "max" else a < b
    if is_float(xp, a.dtype):
        better = better | (xp.isnan(a) & ~xp.isnan(b))
    return better


def stable_argsort(xp, a, descending=False):
    """Stable argsort of a 1-d array (int64) in the shared order."""
    return xp.astype(xp.argsort(sortable(xp, a), descending=descending, stable=True), xp.int64)
