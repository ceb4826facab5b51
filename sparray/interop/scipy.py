"""scipy.sparse interop: ``to_scipy(A)`` / ``from_scipy(m)``.

scipy is imported only when these functions run. scipy.sparse has no fill value, so
``to_scipy`` requires a zero fill and raises ValueError otherwise (subtract the fill first,
or use ``A.to_dense()``).

>>> import scipy.sparse as sp, sparray
>>> from sparray.interop.scipy import from_scipy
>>> from_scipy(sp.eye_array(3)).nse
3
"""

from __future__ import annotations

import numpy as np

__all__ = ["to_scipy", "from_scipy"]


def from_scipy(m):
    """COO with the stored entries of any scipy.sparse array or matrix (explicit zeros kept)."""
    from .._coo import COO

    coo = m.tocoo()
    coords = getattr(coo, "coords", None)
    if coords is None:
        coords = (coo.row, coo.col)
    indices = np.stack([np.asarray(c) for c in coords]) if len(coords) else np.zeros((0, coo.nnz), np.int64)
    if indices.dtype not in (np.int32, np.int64):
        indices = indices.astype(np.int64)
    return COO(indices, np.asarray(coo.data), tuple(coo.shape), is_coalesced=bool(getattr(coo, "has_canonical_format", False)))


def to_scipy(A, format="coo"):  # noqa: A002
    """``A`` as a scipy.sparse array (``format`` "coo", "csr" or "csc"); needs a zero fill value."""
    import scipy.sparse as sp

    from .._fill import fill_is_zero

    xp = A._xp
    if not fill_is_zero(xp, A.fill_value):
        raise ValueError(
            "to_scipy: scipy.sparse has no fill value and this array's fill is non-zero; "
            "use A - A.fill_value (then add it back) or A.to_dense()"
        )
    if A.dense_ndim:
        raise ValueError(f"to_scipy: scipy.sparse has no dense (hybrid) dims; got dense_ndim={A.dense_ndim}")
    B = A if A.layout == "coo" else A.to_layout("coo")
    if B.ndim != 2 and format != "coo":
        raise ValueError(f"to_scipy: format {format!r} needs a 2-d array; got shape {B.shape}")
    out = sp.coo_array((np.asarray(B.values), tuple(np.asarray(r) for r in B.indices)), shape=B.shape)
    return out.asformat(format)
