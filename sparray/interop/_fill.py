"""The explicit fill of the exports whose format has an implicit 0 (``to_scipy``, ``to_torch``).

An array with an undefined fill (``sparray.undefined``) has gaps with no value, and scipy.sparse
and torch sparse tensors read every gap as 0; ``fill_value=0`` says so explicitly
(docs/graphs.md). :func:`explicit_fill` gives the gaps that value; for an array whose fill is
defined, ``fill_value`` may only repeat it (another value would change its elements: not a
conversion).

>>> import numpy as np, sparray
>>> G = sparray.asarray(sparray.asarray(np.eye(2)), fill_value=sparray.undefined)
>>> explicit_fill(G, 0, "to_scipy").fill_value.tolist()
0.0
"""

from __future__ import annotations

from .._core.fill import normalize_fill, same_value, undefined

__all__ = ["explicit_fill"]


def explicit_fill(A, fill_value, who):
    """``A`` with ``fill_value`` as its fill when A's fill is undefined; ``A`` itself when
    ``fill_value`` is None or repeats A's defined fill; ValueError otherwise."""
    if fill_value is None:
        return A
    if fill_value is undefined:
        raise ValueError(f"{who}: fill_value=sparray.undefined gives the gaps no value; pass one (0)")
    xp = A._xp
    fill = normalize_fill(xp, fill_value, A.dtype, A.dense_shape, who)
    if not A.fill_is_defined:
        return A._replace_values(A._values, fill)
    if not bool(xp.all(same_value(xp, fill, A._fill))):
        shown = A._fill.tolist() if hasattr(A._fill, "tolist") else A._fill
        raise ValueError(f"{who}: fill_value= gives a value to the gaps of an array whose fill is undefined; this "
                         f"array's fill is {shown!r}, and fill_value={fill_value!r} would change its elements "
                         "(convert A - A.fill_value, or drop fill_value=)")
    return A
