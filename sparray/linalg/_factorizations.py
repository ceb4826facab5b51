"""The factorizations and solvers of the linalg extension, computed on the dense form.

``cholesky``, ``det``, ``slogdet``, ``eigh``, ``eigvalsh``, ``inv``, ``pinv``, ``qr``, ``svd``,
``svdvals``, ``matrix_rank`` and ``solve`` have dense results in general (the inverse of a sparse
matrix is dense, its factors fill in). On sparse input each one checks the shapes, turns the
operands dense (``_dense_fallback.densify``: a :class:`SparrayDensifyWarning` above the
threshold) and calls the namespace's own ``linalg`` (NumPy, CuPy or array_api_strict through
array-api-compat). So results are exact with any fill value (nan and inf fills included: they are
in the dense matrix) and have the dtypes that namespace gives; these module functions give dense
arrays back (``sparray.linalg``'s hand them back as sparray arrays holding them for sparray input:
the namespace rule of ``sparray._array.results``), and tuple results are the named tuples below. Dense
input goes to the namespace unchanged.

``solve`` has one sparse route: a 2-d sparse ``x1`` with a zero fill, finite values, NumPy data
and more elements than the densify threshold is factorized by ``scipy.sparse.linalg.spsolve``
(SuperLU) without densifying it, when SciPy is installed (a singular matrix raises
``numpy.linalg.LinAlgError``, as NumPy's ``solve`` does).

>>> import sparray, numpy as np
>>> A = sparray.asarray(np.array([[2.0, 0.0], [0.0, 4.0]]), layout="csr")
>>> sparray.linalg.inv(A).to_dense().tolist()
[[0.5, 0.0], [0.0, 0.25]]
>>> round(float(sparray.linalg.slogdet(A).logabsdet), 4)
2.0794
"""

from __future__ import annotations

import importlib.util
import math
from typing import NamedTuple

from .._array.base import SparseArray
from .._core.fill import fill_is_zero
from .._functions.manipulation import broadcast_shapes
from ._checks import array_namespace, check_matrices
from ._dense_fallback import densify, get_densify_threshold

__all__ = [
    "EighResult", "QRResult", "SVDResult", "SlogdetResult",
    "cholesky", "det", "eigh", "eigvalsh", "inv", "matrix_rank", "pinv", "qr", "slogdet", "solve", "svd", "svdvals",
]  # fmt: skip


class EighResult(NamedTuple):
    eigenvalues: object
    eigenvectors: object


class QRResult(NamedTuple):
    Q: object
    R: object


class SlogdetResult(NamedTuple):
    sign: object
    logabsdet: object


class SVDResult(NamedTuple):
    U: object
    S: object
    Vh: object


def _dense(who, x, *, square=False):
    """(namespace, dense x) after the shape check; sparse ``x`` is densified (with the size warning)."""
    xp = array_namespace(who, x)
    check_matrices(who, x, square=square)
    return xp, densify(who, x)


def _tolerance(who, xp, rtol):
    """``rtol`` as the namespace takes it: None, a Python float, or a dense array (sparse ones densified)."""
    if rtol is None or isinstance(rtol, (int, float)) and not isinstance(rtol, bool):
        return rtol
    array_namespace(who, rtol, "rtol")
    return densify(who, rtol, "rtol")


def cholesky(x, /, *, upper=False):
    """Cholesky factor of each Hermitian positive-definite matrix: lower ``L`` (``x = L L^H``) or upper."""
    xp, d = _dense("sparray.linalg.cholesky", x, square=True)
    return xp.linalg.cholesky(d, upper=bool(upper))


def det(x, /):
    """Determinant of each square matrix, shape ``x.shape[:-2]``."""
    xp, d = _dense("sparray.linalg.det", x, square=True)
    return xp.linalg.det(d)


def slogdet(x, /):
    """``(sign, logabsdet)`` of the determinant of each square matrix (a named tuple)."""
    xp, d = _dense("sparray.linalg.slogdet", x, square=True)
    return SlogdetResult(*xp.linalg.slogdet(d))


def eigh(x, /):
    """``(eigenvalues, eigenvectors)`` of each Hermitian (real symmetric) matrix (a named tuple)."""
    xp, d = _dense("sparray.linalg.eigh", x, square=True)
    return EighResult(*xp.linalg.eigh(d))


def eigvalsh(x, /):
    """Eigenvalues of each Hermitian (real symmetric) matrix, shape ``(..., M)``, real."""
    xp, d = _dense("sparray.linalg.eigvalsh", x, square=True)
    return xp.linalg.eigvalsh(d)


def inv(x, /):
    """Inverse of each square matrix (dense)."""
    xp, d = _dense("sparray.linalg.inv", x, square=True)
    return xp.linalg.inv(d)


def pinv(x, /, *, rtol=None):
    """Moore-Penrose pseudo-inverse of each matrix, shape ``(..., N, M)``."""
    who = "sparray.linalg.pinv"
    xp, d = _dense(who, x)
    return xp.linalg.pinv(d, rtol=_tolerance(who, xp, rtol))


def matrix_rank(x, /, *, rtol=None):
    """Rank of each matrix (singular values above ``rtol * largest``), default integer dtype."""
    who = "sparray.linalg.matrix_rank"
    xp, d = _dense(who, x)
    return xp.linalg.matrix_rank(d, rtol=_tolerance(who, xp, rtol))


def qr(x, /, *, mode="reduced"):
    """``(Q, R)`` of each matrix (a named tuple); ``mode`` "reduced" or "complete"."""
    if mode not in ("reduced", "complete"):
        raise ValueError(f"sparray.linalg.qr: mode must be 'reduced' or 'complete'; got {mode!r}")
    xp, d = _dense("sparray.linalg.qr", x)
    return QRResult(*xp.linalg.qr(d, mode=mode))


def svd(x, /, *, full_matrices=True):
    """``(U, S, Vh)`` of each matrix (a named tuple), singular values in descending order."""
    xp, d = _dense("sparray.linalg.svd", x)
    return SVDResult(*xp.linalg.svd(d, full_matrices=bool(full_matrices)))


def svdvals(x, /):
    """Singular values of each matrix in descending order, shape ``(..., min(M, N))``, real."""
    xp, d = _dense("sparray.linalg.svdvals", x)
    return xp.linalg.svdvals(d)


# --- solve ----------------------------------------------------------------------------------------------
def solve(x1, x2, /):
    """The solution ``X`` of ``x1 @ X = x2`` for each square ``x1`` (array API semantics).

    ``x2`` of shape ``(M,)`` is one right-hand side for every matrix of the stack (result
    ``x1.shape[:-2] + (M,)``); ``x2`` of shape ``(..., M, K)`` broadcasts its batch dims with
    x1's. See the module docstring for the sparse (SuperLU) route.
    """
    who = "sparray.linalg.solve"
    xp = array_namespace(who, x1, "x1")
    xp2 = array_namespace(who, x2, "x2")
    if xp2 is not xp:
        raise TypeError(f"{who}: x1 and x2 must hold arrays of one namespace; got {xp.__name__} and {xp2.__name__}")
    check_matrices(who, x1, square=True, name="x1")
    M = x1.shape[-1]
    if x2.ndim == 0:
        raise ValueError(f"{who}: x2 must have shape (M,) or (..., M, K); got a 0-d array")
    if x2.ndim == 1 and x2.shape[0] != M:
        raise ValueError(f"{who}: x2 of shape {tuple(x2.shape)} must have M = {M} elements to match x1 of shape {x1.shape}")
    if x2.ndim > 1:
        if x2.shape[-2] != M:
            raise ValueError(
                f"{who}: x2 of shape {tuple(x2.shape)} must have M = {M} rows (shape (..., M, K)) "
                f"to match x1 of shape {tuple(x1.shape)}"
            )
        broadcast_shapes(tuple(x1.shape[:-2]), tuple(x2.shape[:-2]), who=f"{who}: the batch dims of x1 and x2")
    if _sparse_route(xp, x1):
        return _spsolve(xp, x1, x2)
    return xp.linalg.solve(densify(who, x1, "x1"), densify(who, x2, "x2"))


def _sparse_route(xp, x1) -> bool:
    """Whether ``x1`` goes to SuperLU: 2-d sparse, no dense dims, zero fill, finite values, NumPy
    data, above the densify threshold, and SciPy importable."""
    import array_api_compat

    if not isinstance(x1, SparseArray) or x1.ndim != 2 or x1.dense_ndim or not array_api_compat.is_numpy_namespace(xp):
        return False
    if math.prod(x1.shape) <= get_densify_threshold() or not fill_is_zero(xp, x1._fill):
        return False
    if xp.isdtype(x1.dtype, "bool") or importlib.util.find_spec("scipy") is None:
        return False
    from .._products.products import all_finite

    return all_finite(xp, x1._values)


def _spsolve(xp, x1, x2):
    """``solve`` through ``scipy.sparse.linalg.spsolve`` on x1 as CSC; x2's batches become columns."""
    import warnings

    import numpy as np
    import scipy.sparse.linalg as spla

    from ..interop.scipy import to_scipy

    who = "sparray.linalg.solve"
    b = densify(who, x2, "x2")
    # the dtype NumPy's solve gives these operands (its own promotion: integers solve in float64)
    dtype = np.linalg.solve(np.ones((1, 1), dtype=x1.dtype), np.ones((1,), dtype=b.dtype)).dtype
    A = to_scipy(x1.to_layout("csc")).astype(dtype)
    M = x1.shape[-1]
    if b.ndim == 1:
        rhs = b
    else:
        bshape = b.shape[:-2]
        K = b.shape[-1]
        rhs = np.reshape(np.moveaxis(np.reshape(b, (-1, M, K)), 1, 0), (M, -1))  # batches side by side
    rhs = rhs.astype(dtype)
    if rhs.size == 0:
        out = np.zeros(rhs.shape, dtype=dtype)
    else:
        with warnings.catch_warnings():
            warnings.simplefilter("error", spla.MatrixRankWarning)
            try:
                out = spla.spsolve(A, rhs)
            except spla.MatrixRankWarning:
                raise np.linalg.LinAlgError(f"{who}: x1 of shape {x1.shape} is singular") from None
        out = np.reshape(np.asarray(out, dtype=dtype), rhs.shape)
    if b.ndim == 1:
        return out
    out = np.moveaxis(np.reshape(out, (M, -1, K)), 0, 1)
    return np.reshape(out, (*bshape, M, K))
