"""Fill values: normalisation and nan-aware comparison.

Invariant kept by every SparseArray (API.md section 2, RFC points 5-6): ``fill_value`` is an
array of the components' namespace with the array's dtype, either 0-d or shaped exactly like the
dense part ``shape[ndim - dense_ndim:]``. "Equal to the fill" treats nan as equal to nan, so
``asarray([nan, 1.0], fill_value=nan)`` leaves the nan unspecified.
"""

from __future__ import annotations

import warnings

import numpy as np

from ._dtypes import dtype_name
from ._namespace import is_array

__all__ = ["normalize_fill", "same_value", "fill_is_zero", "as_fill_array"]

_KIND_RANK = {"b": 0, "i": 1, "u": 1, "f": 2, "c": 3}


def _kind(xp, dtype) -> str:
    name = dtype_name(dtype)
    return "b" if name == "bool" else name[0] if name[0] in "iu" else "f" if name[0] == "f" else "c"


def normalize_fill(xp, fill_value, dtype, dense_shape, who: str):
    """``fill_value`` (None, a scalar or an array) as an array of ``xp`` of ``dtype``.

    The result is 0-d, or shaped ``dense_shape`` when the given value is not 0-d. A value that the
    dtype cannot represent (nan for an int array, 2.5 for an int array, 1j for a real array) raises
    ValueError rather than being truncated.
    """
    if fill_value is None:
        return xp.zeros((), dtype=dtype)
    try:
        given = fill_value if is_array(fill_value) else xp.asarray(fill_value)
    except (TypeError, ValueError) as e:
        raise TypeError(f"{who}: fill_value must be a scalar or an array; got {fill_value!r}") from e
    if dtype_name(given.dtype) != dtype_name(dtype):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            cast = xp.astype(given, dtype)
            if _KIND_RANK[_kind(xp, dtype)] < _KIND_RANK[_kind(xp, given.dtype)]:
                back = xp.astype(cast, given.dtype)
                if not bool(xp.all(same_value(xp, back, given))):
                    raise ValueError(
                        f"{who}: fill_value {fill_value!r} cannot be represented exactly as {dtype_name(dtype)}"
                    )
        given = cast
    if given.ndim == 0:
        return given
    dense_shape = tuple(dense_shape)
    if given.ndim > len(dense_shape):
        raise ValueError(
            f"{who}: fill_value of shape {tuple(given.shape)} must be broadcastable to the dense part "
            f"{dense_shape}; it has more dimensions"
        )
    try:
        return xp.broadcast_to(given, dense_shape)
    except ValueError:
        raise ValueError(
            f"{who}: fill_value of shape {tuple(given.shape)} must be broadcastable to the dense part {dense_shape}"
        ) from None


def same_value(xp, a, b):
    """Element-wise equality that treats nan as equal to nan (and nan+nanj likewise)."""
    eq = a == b
    try:
        kind = _kind(xp, a.dtype) if is_array(a) else "f"
    except TypeError:
        return eq
    if kind in "fc":
        eq = eq | (xp.isnan(a) & xp.isnan(b))
    return eq


def fill_is_zero(xp, fill) -> bool:
    """Whether every element of the fill value is zero (the linear-algebra default)."""
    return bool(xp.all(fill == xp.zeros((), dtype=fill.dtype)))  # same dtype: strict namespaces allow it


def as_fill_array(xp, value, dtype):
    """A computed fill (NumPy returns scalars for 0-d inputs) as an array of ``xp`` of ``dtype``."""
    if not is_array(value) or isinstance(value, np.generic):
        value = xp.asarray(value)
    if dtype is not None and value.dtype != dtype:
        value = xp.astype(value, dtype)
    return value
