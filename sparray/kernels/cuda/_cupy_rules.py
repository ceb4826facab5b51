"""CuPy's rules for an operator with a foreign operand and for host index keys, as the simulated
device (``simulated.py``) follows them.

Read from CuPy 14.2.0's source (``cupy/_core/core.pyx``, ``cupy/_core/_routines_indexing.pyx``;
unchanged on CuPy's main branch when checked), not from its documentation:

- **Forward operators** (``x + y``, ``x @ y``, ``x ** y``, ...; ``_ndarray_base.__add__`` and
  its siblings, core.pyx 1564-1716): ``y`` a CuPy array: computed. Else ``_should_use_rop(x, y)``
  (core.pyx 109-119): when ``y`` has an ``__array_ufunc__`` attribute, defer (return
  NotImplemented, so Python asks ``y.__radd__``) exactly when it is None; without one, defer when
  ``x.__array_priority__`` (100, core.pyx 594) is below ``y``'s. Otherwise CuPy calls the NumPy
  ufunc (``numpy.add(x, y)``), whose override protocol (NEP 13) asks ``x.__array_ufunc__`` first
  and then ``y``'s. CuPy's ``__array_ufunc__`` (core.pyx 1969-2020) returns NotImplemented when an
  operand is none of: a Python or NumPy scalar, a CuPy or NumPy array, an object with
  ``__cuda_array_interface__`` or ``__cupy_get_ndarray__``. So an operand with a real
  ``__array_ufunc__`` method (a sparray SparseArray: NumPy's protocols) is reached through
  NumPy, not through its reflected operator; ``__array_priority__`` only matters for objects
  without ``__array_ufunc__`` (cupyx.scipy.sparse's matrices: priority 101, _base.py 43).
- **Comparisons** (``__richcmp__``, core.pyx 1483-1525): the same choice, with NotImplemented
  when deferring (Python then tries the reflected comparison); a 0-d NumPy array is read as its
  item, and ``==`` (``!=``) against None or an object whose type keeps ``object``'s own
  ``__eq__`` (and ``__ne__``) answers all False (all True).
- **Reflected operators**: CuPy builds with ``c_api_binop_methods=True``
  (install/cupy_builder/_command.py), so ``other + x`` calls ``__add__(other, x)``, where the
  second operand is a CuPy array: computed ("cupy's op is the last chance").
- **In-place operators** (``__iadd__``, core.pyx 1718-): the CuPy ufunc with ``out=self``; a
  foreign operand raises TypeError (no deferring).
- **CuPy's functions** (``cupy.add(x, A)``, not an operator) hand a foreign operand the call only
  through ``__cupy_override_elementwise_kernel__`` (_kernel.pyx 1256-1259; reductions:
  ``__cupy_override_reduction_kernel__``, _reduction.pyx 598-599); sparray sets neither, so
  ``sparray.add(x, A)`` is the spelling there.
- **Index keys** (``_prepare_slice_list``, _routines_indexing.pyx 261-322; used by
  ``__getitem__`` and ``__setitem__``): every key item that is not None, ``...``, a slice, a
  CuPy array or a non-boolean scalar (lists, tuples, NumPy arrays, booleans) is copied to the
  device with ``cupy.array``: a host-to-device transfer, no wait.

One difference is deliberate: on CuPy, ``numpy.exp(x)`` works (NumPy hands it to CuPy's
``__array_ufunc__``); the simulated array sets ``__array_ufunc__ = None`` so that sparray code
that calls NumPy on device data fails in CI, and the operators emulate the protocol step above.

>>> class Deferring:
...     __array_ufunc__ = None
>>> class Cupy:
...     __array_priority__ = ARRAY_PRIORITY
>>> should_use_rop(Cupy(), Deferring()), should_use_rop(Cupy(), 2.0), should_use_rop(Cupy(), np.ones(2))
(True, False, False)
>>> copied_key_items((np.array([1, 0]), slice(None), 3, [2]), np.ndarray)[1]  # NumPy stands for the device type
[3]
"""

from __future__ import annotations

import numpy as np

__all__ = ["ARRAY_PRIORITY", "copied_key_items", "cupy_takes", "eq_default", "should_use_rop", "ufunc_call"]

#: ``_ndarray_base.__array_priority__`` (core.pyx 594)
ARRAY_PRIORITY = 100

_NONE = object()  # core.pyx's private "not found" singleton (_HANDLED_TYPES there)

#: ``_scalar.scalar_type_set``: Python's bool, int, float, complex and NumPy's scalar types of the
#: dtypes CuPy has (_scalar.pyx 14-29, 294-296)
SCALAR_TYPES = frozenset({bool, int, float, complex} | {np.dtype(c).type for c in "?bhilqBHILQefdFD"})


def should_use_rop(x, y) -> bool:
    """``_should_use_rop`` (core.pyx 109-119): whether ``x <op> y`` returns NotImplemented."""
    y_ufunc = getattr(y, "__array_ufunc__", _NONE)
    if y_ufunc is not _NONE:
        return y_ufunc is None
    return getattr(x, "__array_priority__", 0) < getattr(y, "__array_priority__", 0)


def cupy_takes(v, device_type) -> bool:
    """Whether CuPy's ``__array_ufunc__`` goes on with operand ``v`` (core.pyx 2002-2013) rather
    than returning NotImplemented."""
    return (
        type(v) in SCALAR_TYPES
        or isinstance(v, (device_type, np.ndarray))
        or hasattr(v, "__cuda_array_interface__")
        or hasattr(v, "__cupy_get_ndarray__")
    )


def ufunc_call(ufunc, x, y, compute, device_type):
    """``numpy.<ufunc>(x, y)`` as CuPy's operators call it, with ``x`` a device array: NumPy's
    override protocol asks ``x`` (CuPy's ``__array_ufunc__``: ``compute()`` unless it returns
    NotImplemented) and then ``y``'s ``__array_ufunc__`` when ``y``'s type overrides NumPy's;
    TypeError as NumPy raises it when every one returns NotImplemented."""
    if cupy_takes(y, device_type):
        return compute()
    handler = getattr(type(y), "__array_ufunc__", None)
    if handler is not None and handler is not np.ndarray.__array_ufunc__:
        out = handler(y, ufunc, "__call__", x, y)
        if out is not NotImplemented:
            return out
    raise TypeError(
        f"operand type(s) all returned NotImplemented from __array_ufunc__({ufunc!r}, '__call__', ...): "
        f"{type(x).__name__!r}, {type(y).__name__!r} (CuPy computes with scalars and device arrays; "
        "other operands must answer NumPy's ufunc protocol)"
    )


def eq_default(other, ne=False) -> bool:
    """``==`` (``ne``: ``!=``) answered without computing (core.pyx 1507, 1514-1517): ``other`` is
    None or its type keeps ``object``'s ``__eq__`` (and ``__ne__``)."""
    if other is None:
        return True
    t = type(other)
    return t.__eq__ is object.__eq__ and (not ne or t.__ne__ is object.__ne__)


def copied_key_items(key, device_type):
    """``_prepare_slice_list`` (_routines_indexing.pyx 261-322): the key's items as a list, with
    the positions CuPy copies to the device (lists, tuples, NumPy arrays, booleans)."""
    items = list(key) if isinstance(key, tuple) else [key]
    copied = []
    for i, s in enumerate(items):
        if s is None or s is Ellipsis or isinstance(s, (slice, device_type)):
            continue
        if np.isscalar(s) and not isinstance(s, (bool, np.bool_)):
            continue  # a scalar int stays a scalar
        copied.append(i)
    return items, copied
