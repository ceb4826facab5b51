"""Fill values: normalisation and nan-aware comparison.

Invariant kept by every SparseArray (API.md section 2, RFC points 5-6): ``fill_value`` is an
array of the components' namespace with the array's dtype, either 0-d or shaped exactly like the
dense part ``shape[ndim - dense_ndim:]``.

"The same value as the fill" (``same_value``) is the one rule that decides which elements are
left unspecified, everywhere: ``asarray`` and the creation functions, conversions from dense, the
compressed kernels' ``dense_to_compressed`` (CPU and CUDA), ``A[key] = v``, and every computed
result that prunes its pattern (``multiply``'s intersection, a sparse x dense operation that keeps
one fill, ``outer``, ``softmax``). An element is the fill only when it has the fill's value
exactly, bit for bit but for NaN payloads. Floats: equal and with the same sign of zero (``-0.0``
is not the fill ``+0.0``), and any NaN matches a NaN fill (NumPy's view: a NaN is a NaN, whatever
its payload or sign bit); complex numbers: real and imaginary parts each by the float rule;
integers and booleans: equal. So ``asarray([nan, 1.0], fill_value=nan)`` leaves the nan
unspecified, ``asarray([-0.0])`` keeps the ``-0.0`` as a specified element, and ``outer([-0.0],
[0.0])`` stores its ``-0.0``. ``signed_zeros=False`` (``-0.0`` equal to ``+0.0``, NumPy's ``==``)
is for *comparing* values (``argmax`` ties, sorting), never for dropping one.
"""

from __future__ import annotations

import warnings

import numpy as np

from .dtypes import dtype_name
from .namespace import is_array
from ..kernels._kept import KeptPerArray

__all__ = ["normalize_fill", "same_value", "fill_is_zero", "as_fill_array", "sum_zero", "undefined", "is_undefined"]


class Undefined:
    """The undefined fill (the fill-value RFC's point 13): an unspecified element has no value at
    all, as a missing edge of a graph has none (GraphBLAS's model). ``fill_value=sparray.undefined``
    is accepted wherever a fill is; the array then holds an empty fill of shape ``(0,)`` (the RFC's
    spelling: a fill with a zero-size dim) and ``A.fill_is_defined`` is False. One object, like
    ``None``: compare with ``is``.

    >>> import sparray
    >>> sparray.undefined, sparray.undefined is type(sparray.undefined)()
    (sparray.undefined, True)
    """

    _one = None

    def __new__(cls):
        if cls._one is None:
            cls._one = super().__new__(cls)
        return cls._one

    def __repr__(self) -> str:
        return "sparray.undefined"

    def __reduce__(self):
        return (Undefined, ())

    def __bool__(self):
        raise TypeError("sparray.undefined has no truth value (compare with `is`)")


undefined = Undefined()


def is_undefined(fill, dense_shape=None) -> bool:
    """Whether the fill array ``fill`` is the undefined fill: 1-d of size 0 (RFC point 13), for an
    array whose dense part (``dense_shape``, when known) is not itself ``(0,)`` (then such a fill is
    the ordinary one of an array without elements).

    >>> import numpy as np
    >>> is_undefined(np.empty((0,))), is_undefined(np.zeros(())), is_undefined(np.empty((0,)), (0,))
    (True, False, False)
    """
    shape = fill.shape
    return len(shape) == 1 and shape[0] == 0 and (dense_shape is None or tuple(dense_shape) != (0,))

_KIND_RANK = {"b": 0, "i": 1, "u": 1, "f": 2, "c": 3}


def _kind(xp, dtype) -> str:
    name = dtype_name(dtype)
    return "b" if name == "bool" else name[0] if name[0] in "iu" else "f" if name[0] == "f" else "c"


def normalize_fill(xp, fill_value, dtype, dense_shape, who: str):
    """``fill_value`` (None, a scalar or an array) as an array of ``xp`` of ``dtype``.

    The result is 0-d, or shaped ``dense_shape`` when the given value is not 0-d, or the undefined
    fill ``xp.empty((0,))`` for ``sparray.undefined`` (or an array of that shape, when the dense
    part is not itself ``(0,)``). A value that the
    dtype cannot represent (nan for an int array, 2.5 for an int array, 1j for a real array) raises
    ValueError rather than being truncated.
    """
    if fill_value is None:
        return xp.zeros((), dtype=dtype)
    if fill_value is undefined:
        return xp.empty((0,), dtype=dtype)
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
    if is_undefined(given) and dense_shape != (0,):
        return given
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


def same_value(xp, a, b, *, signed_zeros=True):
    """Element-wise "``a`` is exactly the value ``b``": the fill rule of the module docstring.

    Floats: ``a == b`` with the same sign of zero, or both NaN; complex: both parts so;
    integers and booleans: ``a == b``. ``b`` may be a Python scalar; arrays broadcast.

    ``signed_zeros=False`` compares ``-0.0`` and ``+0.0`` as equal (NaN still matches NaN), as
    NumPy's ``==`` does: the rule for *comparing* values (``argmax`` ties, sorting), never for
    deciding that an element may be left unspecified (docs/fill_value.md).

    >>> import array_api_compat.numpy as xp
    >>> same_value(xp, xp.asarray([0.0, -0.0, float("nan"), 1.0]), xp.asarray(0.0)).tolist()
    [True, False, False, False]
    >>> same_value(xp, xp.asarray([0.0, -0.0]), 0.0, signed_zeros=False).tolist()
    [True, True]
    """
    if not is_array(b):
        b = xp.asarray(b, dtype=a.dtype) if is_array(a) else xp.asarray(b)
    if not is_array(a):
        a = xp.asarray(a, dtype=b.dtype)
    if a.dtype != b.dtype:
        common = xp.result_type(a.dtype, b.dtype)
        a, b = xp.astype(a, common), xp.astype(b, common)
    kind = _kind(xp, a.dtype)
    if kind == "c":
        return _same_float(xp, xp.real(a), xp.real(b), signed_zeros) & _same_float(xp, xp.imag(a), xp.imag(b), signed_zeros)
    if kind == "f":
        return _same_float(xp, a, b, signed_zeros)
    return a == b


def _same_float(xp, a, b, signed_zeros):
    """Real floats: equal (with the same sign, which only a zero can differ in), or both NaN."""
    eq = (a == b) & (xp.signbit(a) == xp.signbit(b)) if signed_zeros else a == b
    return eq | (xp.isnan(a) & xp.isnan(b))


def sum_zero(xp, x, *, in_place=False):
    """``x`` with every ``-0.0`` of a floating (real or complex) array turned into ``+0.0``, every
    other value (NaN included) keeping its bits; integers and booleans as they are.

    The sign of zero a *sum* has in NumPy: its sums start from ``+0.0`` (``np.sum([-0.0])``,
    ``np.full((1, 1), -0.0) @ np.ones((1, 1))`` and ``np.mean`` give ``+0.0``), while sparray's
    kernels add from the first term (``-0.0 + -0.0`` is ``-0.0``). Applied to the results of
    ``sum``, ``mean`` (and ``vecdot``, which sums) and to matrix products' sums, so they read as
    NumPy's, sign of zero included; one pass over the result (``x + 0.0``), never over the input.
    ``in_place=True`` writes into ``x`` (a result the caller just made): no second buffer.

    >>> import array_api_compat.numpy as xp
    >>> sum_zero(xp, xp.asarray([-0.0, 0.0, -2.0, float("nan")])).tolist()
    [0.0, 0.0, -2.0, nan]
    """
    if not xp.isdtype(x.dtype, ("real floating", "complex floating")):
        return x
    if in_place:
        x += 0.0
        return x
    return x + 0.0


def fill_is_zero(xp, fill) -> bool:
    """Whether every element of the fill value is zero (the linear-algebra default); False for the
    undefined fill (no element, so nothing may be taken for 0)."""
    if is_undefined(fill):
        return False
    return bool(xp.all(fill == xp.zeros((), dtype=fill.dtype)))  # same dtype: strict namespaces allow it


def array_fill_is_zero(A) -> bool:
    """:func:`fill_is_zero` of a SparseArray's fill, worked out once per array and kept on it
    (``A._fill_is_zero``), like its validity check: the products and reductions ask on every call,
    and on a GPU each answer is a read from the device that waits for it. An array's fill never
    changes in place (an in-place operator swaps in a new array's state, cache included).

    >>> import sparray, numpy as np
    >>> A = sparray.asarray(np.eye(2), layout="csr")
    >>> array_fill_is_zero(A), array_fill_is_zero(A.astype(np.float32) + 1.5)
    (True, False)
    """
    known = A.__dict__.get("_fill_is_zero")
    if known is None:
        known = _FILL_IS_ZERO.get(A._fill)  # another array with this very fill object (a transpose, a move) knows
        if known is None:
            known = fill_is_zero(A._xp, A._fill)
            _FILL_IS_ZERO.put(A._fill, known)
        A._fill_is_zero = known
    return known


def remember_fill_is_zero(fill, known: bool) -> None:
    """Record that the fill array ``fill`` is (or is not) zero, found without reading it (it was
    read on the host before it moved): arrays that share it never ask the device."""
    _FILL_IS_ZERO.put(fill, bool(known))


#: fill array -> whether it is zero: arrays made from one another share their fill object
_FILL_IS_ZERO = KeptPerArray()


def as_fill_array(xp, value, dtype):
    """A computed fill (NumPy returns scalars for 0-d inputs) as an array of ``xp`` of ``dtype``."""
    if not is_array(value) or isinstance(value, np.generic):
        value = xp.asarray(value)
    if dtype is not None and value.dtype != dtype:
        value = xp.astype(value, dtype)
    return value
