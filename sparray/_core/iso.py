"""Iso-valued values: every stored element of an array holds one value, kept once.

An iso array (GraphBLAS's iso matrices: a graph's structure, every edge weight 1) keeps its
values as a zero-stride broadcast of one element, ``xp.broadcast_to(v, shape)``: the standard's
function, a view in NumPy, CuPy and the simulated device, read-only in NumPy. Nothing else marks
it: the strides say it, so every function that only reads values (all of sparray's: arrays never
write into their components) works on it unchanged, and a result computed from the values holds
ordinary (materialised) values.

- :func:`iso_element` -- the one element (shape ``(1,) * ndim``) of values kept this way, or None;
- :func:`iso_values` -- values of a shape holding one element;
- :func:`held_elements` -- how many elements a component holds in memory (an iso one: 1), what
  ``SparseArray.nbytes`` counts.

A namespace whose arrays do not show their strides (array_api_strict, ...) has no iso values:
``iso_element`` is None there and the broadcast is counted in full.

>>> import numpy as np
>>> v = iso_values(np, np.asarray(2.5), (4,))
>>> v.tolist(), iso_element(v).tolist(), held_elements(v)
([2.5, 2.5, 2.5, 2.5], [2.5], 1)
>>> iso_element(np.array([2.5, 2.5])) is None            # equal values stored twice: not iso
True
"""

from __future__ import annotations

import math

__all__ = ["iso_element", "iso_values", "held_elements", "strides_of"]


def strides_of(x):
    """``x``'s strides in elements (NumPy, CuPy, the simulated device: bytes / itemsize; torch:
    ``x.stride()``), or None when its namespace does not show them."""
    strides = getattr(x, "strides", None)
    if strides is None:
        stride = getattr(x, "stride", None)
        if callable(stride):
            try:
                return tuple(int(s) for s in stride())
            except TypeError:
                return None
        return None
    try:
        return tuple(int(s) for s in strides)
    except TypeError:
        return None


def iso_element(values):
    """The one element of ``values`` (as an array of shape ``(1,) * values.ndim``) when every
    element of it is that one in memory (a zero stride along every axis longer than 1) and it has
    at least two; else None."""
    shape = tuple(values.shape)
    if math.prod(shape) < 2:
        return None
    strides = strides_of(values)
    if strides is None or any(s != 0 for s, n in zip(strides, shape) if n > 1):
        return None
    return values[(slice(0, 1),) * len(shape)]


def iso_values(xp, value, shape):
    """Values of ``shape`` holding the one element ``value`` (any array with one element): a
    zero-stride broadcast, no copy."""
    one = xp.reshape(value, (1,) * len(shape))
    return xp.broadcast_to(one, tuple(shape))


def held_elements(x) -> int:
    """The elements ``x`` holds in memory: its size, an axis of stride 0 counted once."""
    shape = tuple(x.shape)
    strides = strides_of(x)
    if strides is None or len(strides) != len(shape) or 0 in shape:
        return math.prod(shape)
    return math.prod(n for n, s in zip(shape, strides) if s != 0)
