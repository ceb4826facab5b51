"""Argument checks shared by the ``sparray.linalg`` functions.

Each check raises with the function's public name first (``sparray.linalg.inv: ...``): a
TypeError for what is not an array or has a dtype the function does not take, a ValueError for
shapes. They read only metadata (shape, dtype), never the values.

>>> import sparray
>>> from sparray.linalg._checks import check_matrices
>>> check_matrices("sparray.linalg.det", sparray.zeros((2, 3)), square=True)
Traceback (most recent call last):
...
ValueError: sparray.linalg.det: x must be a square matrix or a stack of them, shape (..., M, M); got shape (2, 3)
"""

from __future__ import annotations

import operator

from .._core import dtypes as _dtypes
from .._array.base import SparseArray
from .._core.namespace import is_array, namespace_of
from .._array.operands import is_scalar

__all__ = ["array_namespace", "check_matrices", "check_not_bool", "check_int", "real_float_dtype"]


def array_namespace(who, x, name="x"):
    """The array-api-compat namespace of ``x`` (a SparseArray or a dense array); TypeError otherwise."""
    if isinstance(x, SparseArray):
        return x._xp
    if is_scalar(x) or not is_array(x):
        raise TypeError(f"{who}: {name} must be an array (sparse or dense); got {type(x).__name__}")
    return namespace_of(x)


def check_matrices(who, x, *, square=False, name="x"):
    """``x`` is at least 2-d (a matrix or a stack of them), and square when asked."""
    shape = tuple(x.shape)
    if len(shape) < 2:
        raise ValueError(f"{who}: {name} must be a matrix or a stack of them, shape (..., M, N); got shape {shape}")
    if square and shape[-1] != shape[-2]:
        raise ValueError(f"{who}: {name} must be a square matrix or a stack of them, shape (..., M, M); got shape {shape}")


def check_not_bool(who, x, name="x"):
    """The standard's linalg functions take numeric dtypes; bool is a TypeError (as for matmul)."""
    if _dtypes.dtype_name(x.dtype) == "bool":
        raise TypeError(f"{who}: {name} must have a numeric dtype; got bool")


def check_int(who, value, name):
    """``value`` as a Python int (``operator.index``); bools and floats are a TypeError."""
    if isinstance(value, bool):
        raise TypeError(f"{who}: {name} must be an int; got bool")
    try:
        return operator.index(value)
    except TypeError:
        raise TypeError(f"{who}: {name} must be an int; got {type(value).__name__}") from None


def real_float_dtype(xp, dtype):
    """The real floating dtype a norm of ``dtype`` has: float32 for float32/complex64, float64 for
    float64/complex128, the default floating dtype (float64) for integers and bool (as NumPy's norms)."""
    name = _dtypes.dtype_name(dtype)
    if name in ("float32", "complex64"):
        return xp.float32
    return xp.float64
