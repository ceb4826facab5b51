"""``matrix_power(x, n)``: repeated products, sparse as long as the products are.

- ``n == 0``: the identity of each matrix, sparse (fill 0) in ``x``'s layout, whatever ``x`` holds
  (NumPy's ``matrix_power(x, 0)`` is the identity even for nan input);
- ``n >= 1``: binary powering with ``sparray.matmul``: about ``2 * log2(n)`` products. A product
  of two sparse operands with zero fills and finite values is a sparse SpGEMM (in ``x``'s layout);
  any other fill makes it dense, exactly (see docs/linalg.md), and later products take the
  sparse @ dense route. ``n == 1`` is a copy of ``x``.
- ``n < 0``: ``inv(x)`` (dense, with the densify warning above the threshold), then its ``-n``-th
  power by the namespace's ``matrix_power``.

Integer matrices keep their dtype for ``n >= 0`` (products wrap as NumPy's do); bool is a
TypeError, as for ``matmul``.

>>> import sparray, numpy as np
>>> A = sparray.asarray(np.array([[0.0, 1.0], [0.0, 0.0]]), layout="csr")
>>> P = sparray.linalg.matrix_power(A, 2)
>>> P.layout, P.nse
('csr', 0)
"""

from __future__ import annotations

from .._array.base import SparseArray
from .._layout.conversion import match_layout
from .._array.coo import COO
from .._core.keys import index_dtype_for
from .._products.linalg import matmul
from .._functions.manipulation import broadcast_to
from ._checks import array_namespace, check_int, check_matrices, check_not_bool

__all__ = ["matrix_power"]


def matrix_power(x, n, /):
    """``x`` (``(..., M, M)``) raised to the integer power ``n`` (see the module docstring)."""
    who = "sparray.linalg.matrix_power"
    xp = array_namespace(who, x)
    n = check_int(who, n, "n")
    check_matrices(who, x, square=True)
    if not isinstance(x, SparseArray):
        return xp.linalg.matrix_power(x, n)
    check_not_bool(who, x)
    if n < 0:
        from ._factorizations import inv

        return xp.linalg.matrix_power(inv(x), -n)
    if n == 0:
        return _identity(x)
    result, base = None, x
    while True:
        if n & 1:
            result = base if result is None else matmul(result, base)
        n >>= 1
        if not n:
            break
        base = matmul(base, base)
    return result.copy() if result is x else result


def _identity(x):
    """Identity matrices shaped like ``x`` (a sparse COO broadcast over the batch dims), x's layout."""
    xp = x._xp
    M = x.shape[-1]
    diag = xp.arange(M, dtype=index_dtype_for(xp, (M, M), M))
    eye = COO._from_parts(
        xp, xp.stack([diag, diag]), xp.ones((M,), dtype=x.dtype), (M, M), xp.zeros((), dtype=x.dtype), coalesced=True
    )
    if x.ndim > 2:
        eye = broadcast_to(eye, x.shape)
    return match_layout(eye, x)
