"""The discrete Fourier transforms of the fft extension: computed on the dense form.

The transform of a sparse array is dense in general (one non-zero element already spreads over
every frequency), so each function turns a sparse operand dense (``to_dense()``: the fill value
in every unspecified position, exact for any fill) and calls the namespace's own ``fft``
(NumPy, CuPy or array_api_strict through array-api-compat); it returns that dense array, with the
shape and dtype the namespace gives (``sparray.fft``'s functions hand it back as a sparray array
holding it for sparray input: the namespace rule of ``sparray._array.results``). No warning is raised: the result is as large as the dense
input. Dense input goes to the namespace unchanged.

The functions are made from two tables by signature: one axis (``n``, ``axis``, ``norm``) and
several axes (``s``, ``axes``, ``norm``), the standard's keyword-only parameters.

>>> import sparray, numpy as np
>>> x = sparray.asarray(np.array([0.0, 1.0, 0.0, 0.0]))
>>> sparray.fft.fft(x).to_dense().round(6).tolist()
[(1+0j), -1j, (-1+0j), 1j]
"""

from __future__ import annotations

from .._array.base import SparseArray
from ..linalg._checks import array_namespace

ONE_AXIS = ("fft", "ifft", "rfft", "irfft", "hfft", "ihfft")
SEVERAL_AXES = ("fftn", "ifftn", "rfftn", "irfftn")

__all__ = [*ONE_AXIS, *SEVERAL_AXES]


def _dense_operand(name, x):
    """(namespace, dense x): a SparseArray is made dense; anything but an array is a TypeError."""
    xp = array_namespace(f"sparray.fft.{name}", x)
    return xp, (x.to_dense() if isinstance(x, SparseArray) else x)


def _one_axis(name):
    def transform(x, /, *, n=None, axis=-1, norm="backward"):
        xp, d = _dense_operand(name, x)
        return getattr(xp.fft, name)(d, n=n, axis=axis, norm=norm)

    transform.__doc__ = (
        f"``{name}`` along ``axis`` (length ``n``, normalization ``norm``) of the dense form of ``x``: a dense array."
    )
    return transform


def _several_axes(name):
    def transform(x, /, *, s=None, axes=None, norm="backward"):
        xp, d = _dense_operand(name, x)
        return getattr(xp.fft, name)(d, s=s, axes=axes, norm=norm)

    transform.__doc__ = (
        f"``{name}`` over ``axes`` (lengths ``s``, normalization ``norm``) of the dense form of ``x``: a dense array."
    )
    return transform


for _name, _make in [*((n, _one_axis) for n in ONE_AXIS), *((n, _several_axes) for n in SEVERAL_AXES)]:
    _f = _make(_name)
    _f.__name__ = _f.__qualname__ = _name
    _f.__module__ = "sparray.fft"
    globals()[_name] = _f
