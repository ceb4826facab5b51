"""Layout conversions of iso arrays (``sparray._core.iso``) that keep them iso.

A conversion moves stored elements; when each stored element of the result is one of the input's,
an iso input gives an iso result. :func:`to_layout_iso` converts the pattern alone (one-byte
stand-in values, never the values themselves) and, when the result holds as many stored elements
as the input (no fill-valued padding of blocks or batches, no duplicates summed), gives it the
input's one element again; otherwise it answers None and the ordinary conversion runs, which
materialises the values (correct, no longer iso).

>>> import numpy as np, sparray
>>> from sparray._core.iso import iso_element, iso_values
>>> A = sparray.asarray(np.array([[0.0, 1.0], [1.0, 1.0]]), layout="csr")
>>> A = A._replace_values(iso_values(np, np.asarray(7.0), (A.nse,)), A.fill_value)
>>> B = A.to_layout("csc")                     # conversion.to_layout calls to_layout_iso first
>>> B.layout, iso_element(B.values).tolist(), B.to_dense().tolist()
('csc', [7.0], [[0.0, 7.0], [7.0, 7.0]])
"""

from __future__ import annotations

import math

from .._core.iso import iso_element, iso_values

__all__ = ["to_layout_iso", "is_iso_array"]


def is_iso_array(A) -> bool:
    """Whether A's stored elements are one element kept once (``sparray.graph.is_iso``)."""
    return iso_element(A._values) is not None


def to_layout_iso(A, layout, blocksize, dense_ndim, convert):
    """``convert(A, layout, blocksize=..., dense_ndim=...)`` (``conversion.to_layout``) as an iso
    array when A is iso and the conversion only moves its stored elements; None otherwise (A not
    iso, an uncoalesced COO whose duplicates would be summed, a conversion that pads with the fill,
    2:4)."""
    one = iso_element(A._values)
    if one is None or layout == "2:4" or A.layout == "2:4" or (A.layout == "coo" and not A._coalesced):
        return None
    if dense_ndim not in (None, A.dense_ndim) and A.fill_is_defined and A._fill.ndim:
        return None  # a fill shaped like the dense part is reshaped by the ordinary conversion
    xp = A._xp
    ones = xp.ones(tuple(A._values.shape), dtype=xp.int8, device=A.device)  # not iso itself: no recursion
    stand = A._replace_values(ones, xp.zeros((), dtype=xp.int8, device=A.device))  # the pattern: a byte an element
    out = convert(stand, layout, blocksize=blocksize, dense_ndim=dense_ndim)
    if math.prod(out._values.shape) != math.prod(A._values.shape):
        return None  # blocks or batches padded with the fill: not every element is A's one
    values = iso_values(xp, xp.reshape(one, (1,)), tuple(out._values.shape))
    return out._replace_values(values, A._fill, dense_shape=out.dense_shape)
