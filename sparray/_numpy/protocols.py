"""NumPy's dispatch protocols on SparseArray: NumPy functions and ufuncs answered by sparray.

``np.sum(A)``, ``np.add(A, B)``, ``np.concatenate([A, B])``, ``np.tensordot(A, x)`` ... on a
SparseArray call the sparray function of the same meaning (``__array_function__`` and
``__array_ufunc__``), so libraries that call NumPy on their chunks (Dask, xarray) hold sparray
arrays unchanged. The rules:

- A NumPy function or ufunc with an array-API counterpart in the ``sparray`` namespace is answered
  by it; the tables below (``UFUNCS``, the ``@implements`` adapters) map NumPy's names and
  arguments to sparray's (``np.power`` -> ``sparray.pow``, ``np.transpose(a, axes)`` ->
  ``sparray.permute_dims``, ``np.var(a, ddof=1)`` -> ``sparray.var(a, correction=1)`` ...).
  Results, layouts and fill values are sparray's: ``np.f(A).to_dense() == np.f(A.to_dense())``.
- Arguments that sparray cannot honour raise TypeError naming them (``where=``, ``initial=``,
  ``order="F"``, ``np.round(A, decimals=2)``). ``out=`` is accepted only as a dense NumPy array
  of the result's shape (the result is written into it, as ``D += A`` does); a sparse ``out``
  is a TypeError, since sparray results are new arrays.
- Array creation with ``like=A`` (``np.array(x, like=A)``, ``np.arange(n, like=A)``, ...) gives a
  dense array of ``A``'s namespace: sparse arrays are made explicitly (``sparray.asarray``).
- A unary ufunc without a counterpart (``scipy.special.erf``, ``np.cbrt``) maps the values and the
  fill value, positions kept (``ufunc_map.py``): exact, nothing densified.
- Every other NumPy function returns NotImplemented, so NumPy raises its TypeError ("no
  implementation found for 'numpy.cumsum' on types that implement __array_function__"). So does
  a call that involves another array type with its own protocol (a Dask array): that type
  answers instead. CuPy arrays (and the simulated device's) are the exception: CuPy never answers
  for a SparseArray, so sparray does (``_device_array_type``).
- ``np_array + A`` keeps working: NumPy calls ``A.__array_ufunc__(np.add, ...)`` and gets
  ``sparray.add(np_array, A)``, as the reflected operator gave before. So does ``cupy_x + A``
  (``cupy_x @ A``, ``cupy_x > A``, ...) with ``A`` on the GPU: CuPy's operator calls the NumPy
  ufunc, which reaches ``A.__array_ufunc__``.

The NumPy-named methods (``A.sum(axis=0)``, ``A.reshape(2, 3)``, ``A.transpose()``; see
``METHODS``) call the NumPy function, so they take NumPy's arguments.

>>> import numpy as np, sparray
>>> A = sparray.COO([[0, 2]], [5.0, 7.0], shape=(4,), fill_value=1.0)
>>> float(np.sum(A)), np.exp(A).fill_value.item() == np.e
(14.0, True)
>>> np.concatenate([A, A]).shape, (np.ones(4) + A).to_dense().tolist()
((8,), [6.0, 2.0, 8.0, 2.0])
"""

from __future__ import annotations

import operator
import sys

import numpy as np

from .._array.base import SparseArray
from .._array.forward import METHODS, numpy_method  # noqa: F401  (the NumPy-named methods: defined with the class's doors)
from ..interop import _dask_hooks
from .ufunc_map import map_unary

__all__ = ["array_function", "array_ufunc", "numpy_method", "METHODS", "UFUNCS"]

# NumPy ufunc name (ufunc.__name__) -> sparray element-wise function of the same meaning
UFUNCS = {
    "add": "add", "subtract": "subtract", "multiply": "multiply", "divide": "divide",
    "floor_divide": "floor_divide", "remainder": "remainder", "power": "pow",
    "bitwise_and": "bitwise_and", "bitwise_or": "bitwise_or", "bitwise_xor": "bitwise_xor",
    "left_shift": "bitwise_left_shift", "right_shift": "bitwise_right_shift", "invert": "bitwise_invert",
    "equal": "equal", "not_equal": "not_equal", "less": "less", "less_equal": "less_equal",
    "greater": "greater", "greater_equal": "greater_equal",
    "logical_and": "logical_and", "logical_or": "logical_or", "logical_xor": "logical_xor", "logical_not": "logical_not",
    "maximum": "maximum", "minimum": "minimum", "arctan2": "atan2", "copysign": "copysign", "hypot": "hypot",
    "logaddexp": "logaddexp", "nextafter": "nextafter",
    "absolute": "abs", "negative": "negative", "positive": "positive", "sign": "sign", "sqrt": "sqrt",
    "square": "square", "exp": "exp", "expm1": "expm1", "log": "log", "log1p": "log1p", "log2": "log2",
    "log10": "log10", "sin": "sin", "cos": "cos", "tan": "tan", "arcsin": "asin", "arccos": "acos",
    "arctan": "atan", "sinh": "sinh", "cosh": "cosh", "tanh": "tanh", "arcsinh": "asinh", "arccosh": "acosh",
    "arctanh": "atanh", "floor": "floor", "ceil": "ceil", "trunc": "trunc", "rint": "round",
    "isfinite": "isfinite", "isinf": "isinf", "isnan": "isnan", "signbit": "signbit", "conjugate": "conj",
    "reciprocal": "reciprocal", "matmul": "matmul", "vecdot": "vecdot",
}  # fmt: skip

# ufunc.reduce -> the sparray reduction it is
UFUNC_REDUCE = {"add": "sum", "multiply": "prod", "maximum": "max", "minimum": "min",
                "logical_and": "all", "logical_or": "any"}  # fmt: skip

# NumPy-named methods of SparseArray: each calls the NumPy function of its name

_UNSET = object()  # "not given" for NumPy arguments sparray cannot honour
_FUNCTIONS: dict = {}  # NumPy function -> adapter taking NumPy's arguments


# --- the protocols ---------------------------------------------------------------------------------
def _foreign(types) -> bool:
    """Whether a type other than SparseArray, a NumPy array, a NumPy scalar or a CUDA device array
    takes part (``_device_array_type``)."""
    return not all(issubclass(t, (SparseArray, np.ndarray, np.generic)) or _device_array_type(t) for t in types)


def _device_array_type(t) -> bool:
    """A CuPy array type, or the simulated device's. sparray answers for them: CuPy never does
    for a SparseArray operand (its ``__array_ufunc__`` and ``__array_function__`` return
    NotImplemented for types it does not know, cupy/_core/core.pyx 2002-2013 and 2038-2043 in
    CuPy 14.2), and ``cupy_x + A``, ``cupy_x @ A``, ``cupy_x > A`` reach ``A`` only through
    NumPy's ufunc (``_should_use_rop`` defers to the reflected operator only for an operand whose
    ``__array_ufunc__`` is None; ``sparray/kernels/cuda/_cupy_rules.py``). sparray's functions
    then check that every operand holds arrays of one namespace."""
    if t.__name__ == "SimulatedArray" and t.__module__ == "sparray.kernels.cuda.simulated":
        return True
    cupy = sys.modules.get("cupy")
    return cupy is not None and isinstance(getattr(cupy, "ndarray", None), type) and issubclass(t, cupy.ndarray)


def array_function(self, func, types, args, kwargs):
    """``SparseArray.__array_function__``: the adapter of ``func``, else NotImplemented. Creation with
    ``like=self`` (``np.array(x, like=A)``) gives a dense array of ``self``'s namespace."""
    _register_with_dask()
    if func in _LIKE_CREATION:
        return _dense_like(self, func, args, kwargs)
    adapter = _FUNCTIONS.get(func)
    if adapter is None or _foreign(types):
        return NotImplemented
    return adapter(*args, **kwargs)


def array_ufunc(ufunc, method, inputs, kwargs):
    """``SparseArray.__array_ufunc__``: ``ufunc(...)`` and ``ufunc.reduce`` through sparray."""
    _register_with_dask()
    out = kwargs.pop("out", None)
    out = out[0] if isinstance(out, tuple) and len(out) == 1 else out
    operands = [*inputs] + ([out] if out is not None else [])
    if _foreign(type(x) for x in operands if hasattr(type(x), "__array_ufunc__")):
        return NotImplemented
    name = ufunc.__name__
    who = f"numpy.{name}" + ("" if method == "__call__" else f".{method}")
    if method == "reduce" and name in UFUNC_REDUCE:
        (a,) = inputs
        kwargs.setdefault("axis", 0)
        result = _REDUCTIONS[UFUNC_REDUCE[name]](a, **kwargs)
    elif method == "__call__" and name in UFUNCS:
        result = _call_ufunc(who, UFUNCS[name], inputs, kwargs)
    else:  # a unary ufunc sparray has no function for (scipy.special.erf): over values and fill (ufunc_map.py)
        result = map_unary(ufunc, method, inputs, kwargs)
        if result is NotImplemented or (out is not None and isinstance(result, tuple)):
            return NotImplemented
    return result if out is None else _write_out(who, result, out)


def _plain(name):
    """``sparray.<name>`` without the namespace rule's wrapper (``sparray._array.results``): NumPy's
    functions on sparse arrays answer as they always have (a dense result in the components'
    namespace); the rule is the array API namespace's."""
    import sparray

    from .._array.results import plain

    return plain(getattr(sparray, name))


def _call_ufunc(who, fname, inputs, kwargs):
    import sparray

    dtype = kwargs.pop("dtype", None)
    axis = kwargs.pop("axis", _UNSET) if fname == "vecdot" else _UNSET
    _check_defaults(who, kwargs, casting=("same_kind", "unsafe", "safe", "equiv", "no"), order=("K", "C", "A"),
                    subok=(True,), where=(True,))
    if dtype is not None:
        inputs = [_cast(x, dtype) for x in inputs]
    f = _plain(fname)
    return f(*inputs) if axis is _UNSET else f(*inputs, axis=axis)


def _cast(x, dtype):
    if isinstance(x, SparseArray):
        return x.astype(np.dtype(dtype))
    return np.asarray(x, dtype=dtype)


def _check_defaults(who, kwargs, **allowed):
    """TypeError for a keyword sparray cannot honour: one not in ``allowed``, or with another value."""
    for key, value in kwargs.items():
        if key not in allowed:
            raise TypeError(f"{who}: the argument {key}= is not supported for sparray arrays")
        if not any(value is v or (type(value) is type(v) and value == v) for v in allowed[key]):
            raise TypeError(f"{who}: {key}={value!r} is not supported for sparray arrays; allowed: {allowed[key]}")


def _write_out(who, result, out):
    """``out=``: a dense NumPy array receives the (densified) result, as ``D += A`` does."""
    if not isinstance(out, np.ndarray):
        raise TypeError(
            f"{who}: out= must be a dense NumPy array; got {type(out).__name__} (sparray arrays are not written "
            "in place by NumPy: use the returned array)"
        )
    dense = result.to_dense() if isinstance(result, SparseArray) else np.asarray(result)
    if dense.shape != out.shape:
        raise ValueError(f"{who}: out= has shape {out.shape}; the result has shape {dense.shape}")
    np.copyto(out, dense, casting="same_kind")
    return out


def _no_out(who, out):
    if out is not None:
        raise TypeError(
            f"{who}: out= is not supported for sparray arrays (results are new arrays); use the returned array"
        )


def _unsupported(who, **given):
    for key, value in given.items():
        if value is not _UNSET:
            raise TypeError(f"{who}: the argument {key}= is not supported for sparray arrays")


def implements(*funcs):
    """Register the decorated adapter as the answer to each NumPy function in ``funcs`` (None skipped)."""

    def deco(adapter):
        for f in funcs:
            if f is not None:
                _FUNCTIONS[f] = adapter
        return adapter

    return deco


def _register_with_dask():
    """When ``dask.array`` is loaded, register sparray with it (``sparray.interop._dask_hooks``)."""
    if not _dask_hooks._registered:
        _dask_hooks.register_if_loaded()


# --- reductions --------------------------------------------------------------------------------------
def _reduction(kind):
    who = f"numpy.{kind}"

    def adapter(a, axis=None, dtype=None, out=None, keepdims=False, ddof=0, *, initial=_UNSET, where=_UNSET,
                correction=_UNSET, mean=_UNSET):
        import sparray

        f = _plain(kind)
        _no_out(who, out)
        _unsupported(who, initial=initial, where=where, mean=mean)
        if kind in ("var", "std"):
            if correction is not _UNSET and ddof != 0:
                raise ValueError(f"{who}: ddof and correction cannot both be given")
            c = ddof if correction is _UNSET else correction
            if dtype is not None:
                a = _cast(a, dtype)
            return f(a, axis=axis, keepdims=bool(keepdims), correction=c)
        if kind in ("sum", "prod"):
            return f(a, axis=axis, dtype=dtype, keepdims=bool(keepdims))
        if dtype is not None:
            if kind != "mean":
                raise TypeError(f"{who}: dtype= is not an argument of numpy.{kind}")
            a = _cast(a, dtype)
        return f(a, axis=axis, keepdims=bool(keepdims))

    return adapter


# NumPy's arguments of each reduction, positional ones in order
_REDUCTION_ARGS = {
    "sum": ("axis", "dtype", "out", "keepdims", "initial", "where"),
    "prod": ("axis", "dtype", "out", "keepdims", "initial", "where"),
    "mean": ("axis", "dtype", "out", "keepdims", "where"),
    "var": ("axis", "dtype", "out", "ddof", "keepdims", "where", "mean", "correction"),
    "std": ("axis", "dtype", "out", "ddof", "keepdims", "where", "mean", "correction"),
    "max": ("axis", "out", "keepdims", "initial", "where"),
    "min": ("axis", "out", "keepdims", "initial", "where"),
    "any": ("axis", "out", "keepdims", "where"),
    "all": ("axis", "out", "keepdims", "where"),
}  # fmt: skip
_POSITIONAL = {"sum": 6, "prod": 6, "max": 5, "min": 5, "var": 5, "std": 5, "mean": 4, "any": 3, "all": 3}


def _positional(kind):
    """The reduction ``kind`` with NumPy's signature: its positional order, and TypeError for an
    argument NumPy's function does not have."""
    names = _REDUCTION_ARGS[kind]
    npos = _POSITIONAL[kind]  # NumPy's later arguments are keyword-only
    inner = _reduction(kind)

    def adapter(a, *args, **kwargs):
        if len(args) > npos:
            raise TypeError(f"numpy.{kind}: takes at most {npos + 1} positional arguments")
        for key, value in zip(names, args):
            if key in kwargs:
                raise TypeError(f"numpy.{kind}: got multiple values for argument {key!r}")
            kwargs[key] = value
        unknown = [k for k in kwargs if k not in names]
        if unknown:
            raise TypeError(f"numpy.{kind}: got an unexpected keyword argument {unknown[0]!r}")
        return inner(a, **kwargs)

    return adapter


_REDUCTIONS = {kind: _positional(kind) for kind in _REDUCTION_ARGS}
for _kind, _adapter in _REDUCTIONS.items():
    implements(getattr(np, _kind), getattr(np, "a" + _kind, None) if _kind in ("max", "min") else None)(_adapter)


# --- joining, shape and axes ---------------------------------------------------------------------------
@implements(np.concatenate, getattr(np, "concat", None))
def _concatenate(arrays, axis=0, out=None, *, dtype=None, casting="same_kind"):
    import sparray

    _no_out("numpy.concatenate", out)
    arrays = list(arrays)
    if dtype is not None:
        arrays = [_cast(x, dtype) for x in arrays]
    return sparray.concat(arrays, axis=axis)


@implements(np.stack)
def _stack(arrays, axis=0, out=None, *, dtype=None, casting="same_kind"):
    import sparray

    _no_out("numpy.stack", out)
    arrays = list(arrays)
    if dtype is not None:
        arrays = [_cast(x, dtype) for x in arrays]
    return sparray.stack(arrays, axis=axis)


@implements(np.transpose, getattr(np, "permute_dims", None))
def _transpose(a, axes=None):
    import sparray

    axes = tuple(range(a.ndim))[::-1] if axes is None else tuple(operator.index(x) for x in axes)
    return sparray.permute_dims(a, axes)


@implements(getattr(np, "matrix_transpose", None))
def _matrix_transpose(x):
    import sparray

    return sparray.matrix_transpose(x)


@implements(np.swapaxes)
def _swapaxes(a, axis1, axis2):
    import sparray

    perm = list(range(a.ndim))
    i, j = (operator.index(x) % max(a.ndim, 1) for x in (axis1, axis2))
    perm[i], perm[j] = perm[j], perm[i]
    return sparray.permute_dims(a, tuple(perm))


@implements(np.moveaxis)
def _moveaxis(a, source, destination):
    import sparray

    return sparray.moveaxis(a, source, destination)


@implements(np.reshape)
def _reshape(a, shape=_UNSET, order="C", *, newshape=_UNSET, copy=None):
    import sparray

    if order != "C":
        raise TypeError(f"numpy.reshape: order={order!r} is not supported for sparray arrays (row-major 'C' only)")
    if shape is _UNSET:
        shape = newshape
    if shape is _UNSET:
        raise TypeError("numpy.reshape: the shape argument is missing")
    shape = (shape,) if isinstance(shape, int) else tuple(shape)
    return sparray.reshape(a, shape, copy=copy)


@implements(np.ravel)
def _ravel(a, order="C"):
    return _reshape(a, (-1,), order)


@implements(np.squeeze)
def _squeeze(a, axis=None):
    import sparray

    if axis is None:
        axis = tuple(d for d, n in enumerate(a.shape) if n == 1)
    return sparray.squeeze(a, axis=axis)


@implements(np.expand_dims)
def _expand_dims(a, axis):
    import sparray

    return sparray.expand_dims(a, axis=tuple(axis) if isinstance(axis, (list, tuple)) else axis)


@implements(np.broadcast_to)
def _broadcast_to(array, shape, subok=False):
    import sparray

    return sparray.broadcast_to(array, (shape,) if isinstance(shape, int) else tuple(shape))


@implements(np.flip)
def _flip(m, axis=None):
    import sparray

    return sparray.flip(m, axis=axis)


@implements(np.take)
def _take(a, indices, axis=None, out=None, mode="raise"):
    """``np.take``: the integer-array index along ``axis`` (the flattened array for None)."""
    _no_out("numpy.take", out)
    if mode != "raise":
        raise TypeError(f"numpy.take: mode={mode!r} is not supported for sparray arrays (only 'raise')")
    if axis is None:
        a, axis = _reshape(a, (-1,)), 0
    axis = operator.index(axis) % max(a.ndim, 1)
    idx = indices if isinstance(indices, int) else np.asarray(indices)
    return a[(slice(None),) * axis + (idx,)]


# --- products, selection, element-wise functions that are not ufuncs --------------------------------------
@implements(np.tensordot)
def _tensordot(a, b, axes=2):
    import sparray

    return _plain("tensordot")(a, b, axes=axes)


@implements(np.dot)
def _dot(a, b, out=None):
    """``np.dot``: a product for 0-d operands, ``matmul`` up to 2-d, else ``tensordot`` over
    (the last dim of a, the second-to-last of b)."""
    import sparray

    _no_out("numpy.dot", out)
    if np.ndim(a) == 0 or np.ndim(b) == 0:
        return sparray.multiply(a, b)
    if a.ndim <= 2 and b.ndim <= 2:
        return _plain("matmul")(a, b)
    return _plain("tensordot")(a, b, axes=([a.ndim - 1], [max(b.ndim - 2, 0)]))


@implements(np.einsum)
def _einsum(*operands, out=None, dtype=None, order="K", casting="safe", optimize=False):
    """``np.einsum``: ``sparray.einsum`` (``optimize`` ignored; ``casting`` as NumPy's cast to ``dtype``)."""
    _check_defaults("numpy.einsum", {"order": order}, order=("K", "C", "A"))
    result = _plain("einsum")(*operands, dtype=dtype, optimize=optimize)
    return result if out is None else _write_out("numpy.einsum", result, out)


@implements(np.pad)
def _pad(array, pad_width, mode="constant", **kwargs):
    import sparray

    return sparray.pad(array, pad_width, mode, **kwargs)


@implements(np.lib.stride_tricks.sliding_window_view)
def _sliding_window_view(x, window_shape, axis=None, *, subok=False, writeable=False):
    import sparray

    return sparray.lib.stride_tricks.sliding_window_view(x, window_shape, axis, subok=subok, writeable=writeable)


@implements(np.where)
def _where(condition, x=_UNSET, y=_UNSET):
    import sparray

    if x is _UNSET and y is _UNSET:
        return _plain("nonzero")(condition)
    if x is _UNSET or y is _UNSET:
        raise ValueError("numpy.where: either both or neither of x and y must be given")
    return _plain("where")(condition, x, y)


@implements(np.nonzero)
def _nonzero(a):
    import sparray

    return _plain("nonzero")(a)


@implements(np.clip)
def _clip(a, a_min=_UNSET, a_max=_UNSET, out=None, *, min=_UNSET, max=_UNSET, **kwargs):  # noqa: A002
    import sparray

    _no_out("numpy.clip", out)
    _check_defaults("numpy.clip", kwargs, casting=("same_kind", "unsafe"), order=("K",), where=(True,))
    lo = a_min if a_min is not _UNSET else (None if min is _UNSET else min)
    hi = a_max if a_max is not _UNSET else (None if max is _UNSET else max)
    return sparray.clip(a, min=lo, max=hi)


@implements(np.real)
def _real(val):
    import sparray

    return sparray.real(val)


@implements(np.imag)
def _imag(val):
    import sparray

    return sparray.imag(val)


@implements(np.round, getattr(np, "around", None))
def _round(a, decimals=0, out=None):
    import sparray

    _no_out("numpy.round", out)
    if decimals != 0:
        raise TypeError(f"numpy.round: decimals={decimals} is not supported for sparray arrays (the array API rounds to integers)")
    return sparray.round(a)


@implements(getattr(np, "astype", None))
def _astype(x, dtype, /, *, copy=True, device=None):
    import sparray

    return sparray.astype(x, dtype, copy=copy, device=device)


@implements(np.copy)
def _copy(a, order="K", subok=False):
    return a.copy() if isinstance(a, SparseArray) else np.copy(a, order=order)


@implements(np.result_type)
def _result_type(*arrays_and_dtypes):
    import sparray

    return sparray.result_type(*arrays_and_dtypes)


@implements(np.shape)
def _shape(a):
    return a.shape


@implements(np.ndim)
def _ndim(a):
    return a.ndim


@implements(np.size)
def _size(a, axis=None):
    return a.size if axis is None else a.shape[axis]


# --- creation: *_like --------------------------------------------------------------------------------
def _new_like(who, a, value, dtype, order, subok, shape):
    """``np.*_like(a, ...)``: every element ``value`` (``empty_like``: ``a``'s fill, so nothing is
    specified), ``a``'s layout where the shape allows it."""
    import sparray

    _check_defaults(who, {"order": order, "subok": subok}, order=("K", "C", "A"), subok=(True, False))
    if not isinstance(a, SparseArray):
        return NotImplemented
    dtype = a.dtype if dtype is None else np.dtype(dtype)
    if value is None:
        value = a.fill_value if (shape is None or a.fill_value.ndim == 0) else 0
    if shape is None:
        return sparray.full_like(a, value, dtype=dtype)
    shape = (shape,) if isinstance(shape, int) else tuple(shape)
    layout = a.layout if a.layout in ("csr", "csc") and len(shape) >= 2 else "coo"
    return sparray.full(shape, value, dtype=dtype, layout=layout)


@implements(np.empty_like)
def _empty_like(prototype, dtype=None, order="K", subok=True, shape=None, *, device=None):
    return _new_like("numpy.empty_like", prototype, None, dtype, order, subok, shape)


@implements(np.zeros_like)
def _zeros_like(a, dtype=None, order="K", subok=True, shape=None, *, device=None):
    return _new_like("numpy.zeros_like", a, 0, dtype, order, subok, shape)


@implements(np.ones_like)
def _ones_like(a, dtype=None, order="K", subok=True, shape=None, *, device=None):
    return _new_like("numpy.ones_like", a, 1, dtype, order, subok, shape)


@implements(np.full_like)
def _full_like(a, fill_value, dtype=None, order="K", subok=True, shape=None, *, device=None):
    return _new_like("numpy.full_like", a, fill_value, dtype, order, subok, shape)


# --- NumPy's like= (NEP 35): creation "like" a sparray array gives a dense array of its namespace -------
_LIKE_CREATION = {getattr(np, f) for f in ("array", "asarray", "asanyarray", "ascontiguousarray", "arange", "empty",
                                           "zeros", "ones", "full", "eye", "identity")}


def _dense_like(prototype, func, args, kwargs):
    """``func(*args, like=prototype)``: NumPy's array, in the prototype's namespace when that is not NumPy
    (sparse arrays are made explicitly, with ``sparray.asarray``)."""
    dense = func(*args, **kwargs)
    if isinstance(prototype._values, np.ndarray):
        return dense
    return prototype._xp.asarray(dense)

