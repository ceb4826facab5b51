"""Element-wise functions whose NumPy answers differ from the array API standard's special cases.

``_elementwise._fn(xp, name)`` takes the function from here when ``name`` is in ``FUNCTIONS``,
else ``xp.<name>``; so values, fills and dense operands of the sparray namespace all get the
standard's answer. Each function computes ``xp.<name>`` on the other elements (their accuracy and
their warnings are the namespace's; the special ones are replaced by a harmless input first, so
``inf // 2`` warns nobody) and writes the special cases' answers in, with pure array API code:

- ``floor_divide`` of real floats: NumPy pairs ``//`` with ``%`` (Python's rule) and gives NaN
  for ``+-inf // finite`` and ``-1`` for ``-1 // +inf``; the standard asks for
  ``floor(x1 / x2)`` there: ``+-inf`` and ``+-0`` (signed as the quotient's sign says).
- ``expm1`` of complex numbers: NumPy gives ``inf + nan j`` for ``expm1(inf + 0j)`` and NaN for
  the infinite and NaN rows of the standard's table (``-1 + 0j``, ``inf + nan j``, ``nan + 0j``);
  and ``-0 + 0j`` for ``expm1(-0 + 0j)`` where the standard says ``0 + 0j``.
- ``tanh`` of complex numbers: ``tanh(+-inf + yj)`` for a finite y is ``+-1 + 0j`` with the sign
  of y on the zero (the standard; NumPy follows C99's ``sin(2y)``, so ``tanh(inf + 2j)`` was
  ``1 - 0j``).
- ``sign`` of complex numbers: ``0 + 0j`` for any signed complex zero, ``nan + nan j`` when a
  part is NaN, whatever the namespace's own ``sign`` does with them.

>>> import array_api_compat.numpy as xp
>>> floor_divide(xp, xp.asarray([float("inf"), -1.0, 7.0]), xp.asarray([2.0, float("inf"), 2.0])).tolist()
[inf, -0.0, 3.0]
"""

from __future__ import annotations

import math

from .._core.namespace import is_array

__all__ = ["FUNCTIONS", "standard_function", "floor_divide", "expm1", "tanh", "sign"]


def _kind(xp, dtype) -> str:
    if xp.isdtype(dtype, "complex floating"):
        return "c"
    return "f" if xp.isdtype(dtype, "real floating") else "other"


def _as(xp, x, dtype):
    """``x`` (an array or a Python scalar) as an array of ``dtype``."""
    if not is_array(x):
        return xp.asarray(x, dtype=dtype)
    return x if x.dtype == dtype else xp.astype(x, dtype)


def _const(xp, value, dtype):
    return xp.asarray(value, dtype=dtype)


def floor_divide(xp, x1, x2, /):
    """``xp.floor_divide``, with the standard's ``floor(x1 / x2)`` where exactly one float operand
    is infinite and the other finite (``inf // 2 = inf``, ``-1 // inf = -0``, ``1 // -inf = -0``)."""
    dt = xp.result_type(x1, x2)
    if _kind(xp, dt) != "f":
        return xp.floor_divide(x1, x2)
    a, b = _as(xp, x1, dt), _as(xp, x2, dt)
    special = (xp.isinf(a) & xp.isfinite(b)) | (xp.isfinite(a) & xp.isinf(b))
    zero, one = _const(xp, 0.0, dt), _const(xp, 1.0, dt)
    # the special quotients (inf / finite, finite / inf: no floating-point flag), 0 / 1 elsewhere
    q = xp.floor(xp.where(special, a, zero) / xp.where(special, b, one))
    return xp.where(special, q, xp.floor_divide(xp.where(special, zero, a), xp.where(special, one, b)))


def _patched(xp, f, x, fixes, harmless):
    """``f(x)`` with ``value`` where each ``(mask, value)`` of ``fixes`` holds (later fixes win);
    the masked inputs are replaced by ``harmless`` before ``f`` sees them."""
    special = fixes[0][0]
    for mask, _ in fixes[1:]:
        special = special | mask
    out = f(xp.where(special, _const(xp, harmless, x.dtype), x))
    for mask, value in fixes:
        out = xp.where(mask, value, out)
    return out


def _signed_zero_imag(xp, real, b, dtype):
    """The complex value ``real + 0j`` with the sign of ``b`` on the zero (conj symmetry)."""
    return xp.where(xp.signbit(b), _const(xp, complex(real, -0.0), dtype), _const(xp, complex(real, 0.0), dtype))


def _zero_times_sin(xp, b):
    """An array whose sign bit is that of ``+0 * sin(b)`` (+ for an infinite or NaN ``b``)."""
    finite = xp.isfinite(b)
    return xp.where(finite, xp.sin(xp.where(finite, b, xp.zeros_like(b))), xp.ones_like(b))


def expm1(xp, x, /):
    """``xp.expm1``, with the standard's complex special cases (``a = real(x)``, ``b = imag(x)``):
    ``a = +-0, b = +-0 -> 0 + bj``; ``a = +inf``: ``b = +-0 -> inf + bj``, ``b`` infinite or NaN
    ``-> inf + nan j``; ``a = -inf -> -1 + (+0 * sin(b)) j`` (``-1 + 0j`` for an infinite or NaN
    ``b``; NumPy's complex64 gave ``-0.99999988`` for a finite one); ``a = nan, b = +-0 -> nan + bj``.
    The other cases are the namespace's."""
    if _kind(xp, x.dtype) != "c":
        return xp.expm1(x)
    dt = x.dtype
    a, b = xp.real(x), xp.imag(x)
    zero_b = b == 0
    inf, nan = math.inf, math.nan
    fixes = [
        ((a == 0) & zero_b, _signed_zero_imag(xp, 0.0, b, dt)),
        ((a == inf) & zero_b, _signed_zero_imag(xp, inf, b, dt)),
        ((a == inf) & ~xp.isfinite(b), _const(xp, complex(inf, nan), dt)),
        (a == -inf, _signed_zero_imag(xp, -1.0, _zero_times_sin(xp, b), dt)),
        (xp.isnan(a) & zero_b, _signed_zero_imag(xp, nan, b, dt)),
    ]
    return _patched(xp, xp.expm1, x, fixes, 0j)


def tanh(xp, x, /):
    """``xp.tanh``, with ``tanh(+-inf + yj) = +-1 + 0j`` (the zero signed as y) for a finite y."""
    if _kind(xp, x.dtype) != "c":
        return xp.tanh(x)
    dt = x.dtype
    a, b = xp.real(x), xp.imag(x)
    value = xp.where(a > 0, _signed_zero_imag(xp, 1.0, b, dt), _signed_zero_imag(xp, -1.0, b, dt))
    return _patched(xp, xp.tanh, x, [(xp.isinf(a) & xp.isfinite(b), value)], 0j)


def sign(xp, x, /):
    """``xp.sign``, with ``0 + 0j`` for a complex zero of any signs and ``nan + nan j`` when a part is NaN."""
    if _kind(xp, x.dtype) != "c":
        return xp.sign(x)
    dt = x.dtype
    a, b = xp.real(x), xp.imag(x)
    fixes = [
        ((a == 0) & (b == 0), _const(xp, complex(0.0, 0.0), dt)),
        (xp.isnan(a) | xp.isnan(b), _const(xp, complex(math.nan, math.nan), dt)),
    ]
    return _patched(xp, xp.sign, x, fixes, 1 + 0j)


#: element-wise function name -> the standard-conforming implementation ``f(xp, *args)``
FUNCTIONS = {"floor_divide": floor_divide, "expm1": expm1, "tanh": tanh, "sign": sign}


def standard_function(xp, name):
    """The standard-conforming ``name`` of namespace ``xp`` as a plain function, or None when the
    namespace's own function is used as it is."""
    f = FUNCTIONS.get(name)
    if f is None:
        return None

    def call(*args):
        return f(xp, *args)

    call.__name__ = name
    return call
