"""Facts about arrays that the products ask on every call, kept per array object: whether values
are finite.

``A @ x`` with a non-zero fill, SpGEMM and the finiteness shortcuts of the CPU products ask whether
stored values (or a fill) are all finite; on a GPU each answer is a read that waits for the device.
The values of a sparse array never change in place behind its back, so the answer is kept per
values object (``kernels/_kept.py``) while it lives; conversions that move values without summing
them carry it to their result (``_layout/conversion.py``), and ``to_device`` learns it on the host.

>>> import numpy as np
>>> v = np.array([1.0, np.inf])
>>> values_all_finite(np, v), known_all_finite(v)
(False, False)
"""

from __future__ import annotations

import math

from .._core.iso import iso_element
from ..kernels._kept import KeptPerArray
from . import dispatch as _dispatch

__all__ = ["all_finite", "known_all_finite", "remember_all_finite", "values_all_finite"]


def all_finite(xp, x) -> bool:
    """Whether every element of ``x`` is finite (the registry's ``all_finite``: a parallel pass for
    NumPy data, one sum elsewhere)."""
    if not xp.isdtype(x.dtype, ("real floating", "complex floating")):
        return True
    one = iso_element(x)  # iso values (sparray/_core/iso.py): their one element says it
    if one is not None:
        x = one
    size = math.prod(x.shape)
    if size == 0:
        return True
    return bool(_dispatch.call("all_finite", "dense", xp, x, work=size))


def values_all_finite(xp, values) -> bool:
    """:func:`all_finite` of an array's stored values (or fill), kept per values object while it
    lives: the values of a sparse array never change in place behind its back, so ``A @ A`` in a
    loop asks the device once. Arrays moved with ``to_device`` learn it on the host."""
    answer = _FINITE.get(values)
    if answer is None:
        answer = all_finite(xp, values)
        _FINITE.put(values, answer)
    return answer


def remember_all_finite(values, answer: bool) -> None:
    """Record whether ``values`` holds only finite elements (for :func:`values_all_finite`)."""
    _FINITE.put(values, bool(answer))


_FINITE = KeptPerArray()


@_dispatch.register("all_finite", "dense", "generic")
def _all_finite_generic(xp, x) -> bool:
    """One sum: finite unless some element is inf or nan (an overflowing sum also says no, so a
    finite array may take the exact slow route, never the reverse)."""
    return bool(xp.isfinite(xp.sum(x)))


def known_all_finite(values):
    """What is kept about ``values`` (True, False), or None when nothing is (nothing is computed)."""
    return _FINITE.get(values)
