"""The layout door: how a layout that the functions do not know meets every public function.

The functions are written for COO and the compressed layouts. A layout that stands apart from
them (the 2:4 layout, ``SemiStructured``) declares a *hub*: an array of a known layout with the same
elements, which it can give at no cost (``A.as_hub()``: for 2:4, the CSR whose entries are its kept
positions). Every public function passes through :func:`through_layouts`, which, when an argument
is of such a layout:

1. calls the layout's native implementation of the function when it has one (``NATIVE``; it may
   answer ``NotImplemented`` for arguments it does not serve, e.g. a product with a non-finite
   fill), else
2. calls the function with each such argument replaced by its hub, and
3. gives the result back in the layout when the function kept the hub's pattern: a compressed
   result that holds the hub's very index arrays (element-wise functions, operators with a
   scalar, ``where`` with scalars, ``astype``...) is the same pattern with new values, so
   ``sin(A)`` and ``A * 2`` of a 2:4 array are 2:4 arrays. Any other result is what the function
   gives for the hub (a CSR, a COO, a dense result).

An argument with an undefined fill (``sparray.undefined``) takes that fill's rules first
(``sparray._functions.undefined``), which call the function back with defined fills.

A call with no argument of such a layout or fill costs one look at the arguments.

>>> import sparray, numpy as np
>>> A = sparray.asarray(np.array([[0.0, 1.0, 0.0, 2.0]]), layout="2:4")
>>> sparray.exp(A).layout, sparray.sum(A, axis=1).layout, (A * 2).values.tolist()
('2:4', 'coo', [[2.0, 4.0]])
"""

from __future__ import annotations

import functools

from .._array.base import SparseArray
from .._array.semi_structured import SemiStructured

__all__ = ["through_layouts", "NATIVE", "hub_args"]

#: the layouts with a hub, by class
HUB_LAYOUTS = (SemiStructured,)


def _native_table():
    """``{layout: {function name: implementation}}``, loaded on the first call that needs it."""
    global NATIVE
    from . import semi_structured as semi_functions
    from .._products import semi_structured as semi_products

    NATIVE = {"2:4": {**semi_functions.NATIVE, **semi_products.NATIVE}}
    return NATIVE


NATIVE = None


def _has_hub_layout(args, kwargs) -> bool:
    """Whether an argument is of a hub layout or has an undefined fill (a 1-d fill of size 0)."""
    for a in (*args, *kwargs.values()) if kwargs else args:
        if isinstance(a, SparseArray):
            if isinstance(a, HUB_LAYOUTS) or a._fill.shape == (0,):
                return True
        elif type(a) in (list, tuple) and any(isinstance(x, SparseArray) and (isinstance(x, HUB_LAYOUTS) or x._fill.shape == (0,)) for x in a):
            return True
    return False


def _has_undefined(args, kwargs) -> bool:
    return any(isinstance(a, SparseArray) and not a.fill_is_defined for a in _flat(args, kwargs))


def hub_args(args, kwargs):
    """``(args, kwargs, hubs)``: every argument of a hub layout (also inside a list or tuple)
    replaced by its hub; ``hubs`` lists ``(array, hub)`` pairs in order."""
    hubs = []

    def swap(a):
        if isinstance(a, HUB_LAYOUTS):
            h = a.as_hub()
            hubs.append((a, h))
            return h
        if type(a) in (list, tuple) and any(isinstance(x, HUB_LAYOUTS) for x in a):
            return type(a)(swap(x) for x in a)
        return a

    return tuple(swap(a) for a in args), {k: swap(v) for k, v in kwargs.items()}, hubs


def _back_in_layout(out, hubs):
    """``out`` as the hub layout's array when it kept a hub's pattern (see the module docstring)."""
    if not hasattr(out, "_pidx") or getattr(out, "_blocked", True):
        return out
    for A, hub in hubs:
        if out._pidx is hub._pidx and out._cidx is hub._cidx and out.shape == A.shape and type(out) is type(hub):
            return A._same_pattern(out._values, out._fill)
    return out


def through_layouts(func, name):
    """``func`` (the public function ``name``) behind the layout door (see the module docstring).
    One door per function, so that names shared by two namespaces stay the same object."""
    door = _DOORS.get(func)
    if door is not None:
        return door

    @functools.wraps(func)
    def door(*args, **kwargs):
        if not _has_hub_layout(args, kwargs):
            return func(*args, **kwargs)
        if _has_undefined(args, kwargs):  # the undefined fill's rules first (sparray._functions.undefined)
            from .undefined import call

            return call(name, door_again, args, kwargs)
        table = NATIVE if NATIVE is not None else _native_table()
        layout = next((a.layout for a in _flat(args, kwargs) if isinstance(a, HUB_LAYOUTS)), None)
        native = table.get(layout, {}).get(name)
        if native is not None:
            out = native(*args, **kwargs)
            if out is not NotImplemented:
                return out
        hub_in, hub_kw, hubs = hub_args(args, kwargs)
        return _back_in_layout(func(*hub_in, **hub_kw), hubs)

    def door_again(*args, **kwargs):  # the undefined fill's rules call the function back with defined fills
        return door(*args, **kwargs)

    door.__through_layouts__ = True
    _DOORS[func] = door
    return door


def _flat(args, kwargs):
    for a in (*args, *kwargs.values()):
        if type(a) in (list, tuple):
            yield from a
        else:
            yield a


_DOORS: dict = {}
