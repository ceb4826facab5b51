"""Data types of the sparray namespace and the dtype functions of the array API.

sparray's dtype objects are NumPy's (``sparray.float64 is numpy.dtype("float64")``). A dtype
given to an array of another namespace is translated by name (``sparray.float64`` ->
``array_api_strict.float64``), so array-API code can pass ``xp.float64`` with ``xp = sparray``.

>>> import sparray
>>> sparray.result_type(sparray.int32, sparray.float32)
dtype('float64')
"""

from __future__ import annotations

import numpy as np

from .namespace import namespace_of

DTYPE_NAMES = (
    "bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
    "float32", "float64", "complex64", "complex128",
)  # fmt: skip

bool = np.dtype("bool")  # noqa: A001  (the array API name)
int8 = np.dtype("int8")
int16 = np.dtype("int16")
int32 = np.dtype("int32")
int64 = np.dtype("int64")
uint8 = np.dtype("uint8")
uint16 = np.dtype("uint16")
uint32 = np.dtype("uint32")
uint64 = np.dtype("uint64")
float32 = np.dtype("float32")
float64 = np.dtype("float64")
complex64 = np.dtype("complex64")
complex128 = np.dtype("complex128")
float16 = np.dtype("float16")

#: dtypes beyond the standard's, as NumPy, CuPy and PyTorch have them: float16, what the 2:4 layout
#: and sparse tensor cores are for (``__array_namespace_info__().dtypes()`` lists the standard's only)
EXTRA_DTYPE_NAMES = ("float16",)
_KNOWN = DTYPE_NAMES + EXTRA_DTYPE_NAMES

__all__ = [*DTYPE_NAMES, *EXTRA_DTYPE_NAMES, "EXTRA_DTYPE_NAMES", "dtype_name", "resolve_dtype", "result_type", "can_cast", "finfo", "iinfo", "isdtype"]


def dtype_name(dtype) -> str:
    """The array API name of a dtype of any namespace ("float64", "bool", ...)."""
    try:
        name = np.dtype(dtype).name
    except TypeError:
        name = str(dtype).rsplit(".", 1)[-1].strip("'>")
        if name not in _KNOWN:
            name = getattr(dtype, "name", name)
    if name not in _KNOWN:
        raise TypeError(f"sparray: unsupported dtype {dtype!r}; expected one of {', '.join(_KNOWN)}")
    return name


_RESOLVED: dict = {}  # (xp, type(dtype), dtype) -> the dtype of xp: a few dozen entries at most


def resolve_dtype(xp, dtype):
    """``dtype`` (any namespace's object, a NumPy dtype or a name) as a dtype of namespace ``xp``.

    Answers are remembered per ``(xp, type(dtype), dtype)`` (every operation resolves its dtypes, and
    the search below took about 4 us a call); the type in the key keeps a NumPy dtype and another
    namespace's dtype that compare or hash alike apart."""
    if dtype is None:
        return None
    try:
        key = (xp, type(dtype), dtype)
        return _RESOLVED[key]
    except TypeError:  # an unhashable dtype object: resolve it every time
        return _resolve_dtype(xp, dtype)
    except KeyError:
        pass
    out = _resolve_dtype(xp, dtype)
    if len(_RESOLVED) < 4096:
        _RESOLVED[key] = out
    return out


def _resolve_dtype(xp, dtype):
    for name in _KNOWN:
        candidate = getattr(xp, name, None)
        if candidate is not None and candidate is dtype:
            return candidate
    return getattr(xp, dtype_name(dtype))


def _operand_dtype(x):
    if hasattr(x, "layout") and hasattr(x, "_xp"):  # a SparseArray (this layer knows no array class)
        return x.dtype, x._xp
    if hasattr(x, "dtype") and hasattr(x, "shape") and not isinstance(x, type):  # np.float32 is a dtype spec
        return x.dtype, namespace_of(x)
    return x, None


def result_type(*arrays_and_dtypes):
    """The dtype the array API promotion rules give for the operands (arrays, SparseArrays, dtypes)."""
    items = [_operand_dtype(x) for x in arrays_and_dtypes]
    xps = [xp for _, xp in items if xp is not None]
    xp = xps[0] if xps else namespace_of()
    dts = []
    for d, _ in items:
        if isinstance(d, (int, float, complex)) and not isinstance(d, np.dtype):
            dts.append(d)
        else:
            dts.append(resolve_dtype(xp, d))
    return xp.result_type(*dts)


def can_cast(from_, to, /):
    """Whether ``from_`` (a dtype or an array) can be cast to ``to`` under the rules of the data's
    namespace (NumPy's for NumPy data, the array API's for array_api_strict)."""
    d, xp = _operand_dtype(from_)
    xp = xp or namespace_of()
    return xp.can_cast(resolve_dtype(xp, d), resolve_dtype(xp, to))


class finfo_object:
    """Machine limits of a floating dtype with Python values, as the array API asks: ``bits``
    (int), ``eps``, ``max``, ``min``, ``smallest_normal`` (floats) and ``dtype`` (the real dtype:
    float32 for complex64)."""

    def __init__(self, info):
        self.bits = int(info.bits)
        self.eps = float(info.eps)
        self.max = float(info.max)
        self.min = float(info.min)
        self.smallest_normal = float(info.smallest_normal)
        self.dtype = np.dtype(info.dtype)

    def __repr__(self) -> str:
        return (f"sparray.finfo(bits={self.bits}, eps={self.eps!r}, max={self.max!r}, min={self.min!r}, "
                f"smallest_normal={self.smallest_normal!r}, dtype={self.dtype.name})")


class iinfo_object:
    """Machine limits of an integer dtype with Python values: ``bits``, ``max``, ``min`` (ints), ``dtype``."""

    def __init__(self, info):
        self.bits = int(info.bits)
        self.max = int(info.max)
        self.min = int(info.min)
        self.dtype = np.dtype(info.dtype)

    def __repr__(self) -> str:
        return f"sparray.iinfo(bits={self.bits}, max={self.max}, min={self.min}, dtype={self.dtype.name})"


def finfo(type, /):  # noqa: A002  (array API argument name)
    """Machine limits of a floating dtype (a dtype, a dtype name or an array), Python floats in its
    fields; a complex dtype gives its real part's limits (``finfo(complex64).bits == 32``).

    >>> finfo(float32).eps
    1.1920928955078125e-07
    """
    d, _ = _operand_dtype(type)
    return finfo_object(np.finfo(np.dtype(dtype_name(d))))


def iinfo(type, /):  # noqa: A002
    """Machine limits of an integer dtype (a dtype, a dtype name or an array), Python ints in its fields."""
    d, _ = _operand_dtype(type)
    return iinfo_object(np.iinfo(np.dtype(dtype_name(d))))


_KINDS = {
    "bool": ("bool",),
    "signed integer": ("int8", "int16", "int32", "int64"),
    "unsigned integer": ("uint8", "uint16", "uint32", "uint64"),
    "integral": ("int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64"),
    "real floating": ("float16", "float32", "float64"),
    "complex floating": ("complex64", "complex128"),
    "numeric": (*DTYPE_NAMES[1:], "float16"),
}


def isdtype(dtype, kind):
    """Whether ``dtype`` is of ``kind`` (a dtype, a kind name, or a tuple of those), as in the array API."""
    if isinstance(kind, tuple):
        return any(isdtype(dtype, k) for k in kind)
    name = dtype_name(dtype)
    if isinstance(kind, str):
        if kind not in _KINDS:
            raise ValueError(f"isdtype: kind must be one of {sorted(_KINDS)}; got {kind!r}")
        return name in _KINDS[kind]
    return name == dtype_name(kind)
