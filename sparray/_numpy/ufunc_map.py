"""Unary NumPy ufuncs that sparray has no function for (``scipy.special.erf``, ``np.cbrt``,
``np.deg2rad``, ``np.modf``, ...), on a sparse array: mapped over the values and the fill value.

Every element of a sparse array is either a stored value or the fill, so ``ufunc(A)`` is exactly
the array with the same positions, values ``ufunc(A.values)`` and fill ``ufunc(A.fill_value)``
(sparray's rule for its own element-wise functions): nothing is densified, whatever the size,
and ``ufunc(A).to_dense() == ufunc(A.to_dense())``. An uncoalesced COO is coalesced first (its
duplicates stand for their sum). A ufunc with several outputs (``np.modf``, ``np.frexp``) gives a
tuple of such arrays. The result dtype is the ufunc's, computed in float32 where it would be
float16 (sparray has no float16, as for its own functions).

Not served (NumPy raises its TypeError, as for every call sparray does not answer): ufuncs of
two or more inputs (a merge of patterns needs sparray's own function), methods other than a call
(``ufunc.outer``, ``ufunc.at``, ...), keywords other than ``dtype``, ``casting``, ``order`` and
``subok`` at their defaults, and arrays whose components are not NumPy arrays (a NumPy ufunc
does not run on device data: CuPy answers the same way).

>>> import numpy as np, scipy.special, sparray
>>> A = sparray.asarray(np.array([0.0, 0.5, 0.0, 2.0]))
>>> E = scipy.special.erf(A)
>>> E.nse, np.allclose(E.to_dense(), scipy.special.erf(A.to_dense()))
(2, True)
"""

from __future__ import annotations

import numpy as np

from .._array.base import SparseArray

__all__ = ["map_unary"]

_DEFAULTS = {"casting": ("same_kind",), "order": ("K",), "subok": (True,)}


def _servable(ufunc, method, inputs, kwargs) -> bool:
    if method != "__call__" or ufunc.nin != 1 or len(inputs) != 1 or not isinstance(inputs[0], SparseArray):
        return False
    A = inputs[0]
    if not all(isinstance(c, np.ndarray) for c in (*A._components().values(), A._fill)):
        return False  # device data (CuPy, the simulated device) or another namespace
    for key, value in kwargs.items():
        if key == "dtype":
            continue
        if key not in _DEFAULTS or not any(value == v for v in _DEFAULTS[key]):
            return False
    return True


def map_unary(ufunc, method, inputs, kwargs):
    """``ufunc(A)`` as the module docstring says, or NotImplemented when it does not serve the call."""
    if not _servable(ufunc, method, inputs, kwargs):
        return NotImplemented
    from .._core.fill import as_fill_array
    from .._core.namespace import _numpy_namespace
    from .._functions.elementwise import _no_float16

    (A,) = inputs
    if A.layout == "coo":
        A = A.coalesce()
    xp = _numpy_namespace()
    dtype = kwargs.get("dtype")
    extra = {} if dtype is None else {"dtype": dtype}

    def f(x):
        out = ufunc(x, **extra)
        return out if isinstance(out, tuple) else (out,)

    single = _no_float16(xp, lambda x: f(x)[0]) if ufunc.nout == 1 else None
    values = (single(A.values),) if single else f(A.values)
    fills = (single(A.fill_value),) if single else f(A.fill_value)
    results = tuple(
        A._replace_values(np.asarray(v), as_fill_array(xp, np.asarray(fl), v.dtype)) for v, fl in zip(values, fills)
    )
    return results[0] if ufunc.nout == 1 else results
