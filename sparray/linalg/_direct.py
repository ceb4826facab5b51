"""Sparse direct solves: ``spsolve(A, b)`` and ``splu(A)``, through SciPy's SuperLU and CuPy's cupyx.

No sparse LU is implemented here: the factorizations are the well-kept libraries'.

- NumPy data (and other CPU namespaces, array_api_strict say): ``scipy.sparse.linalg.spsolve`` /
  ``splu`` (SuperLU) on ``A`` handed over by ``sparray.interop.scipy.to_scipy`` -- a CSR or CSC
  shares its buffers with the SciPy array (no copy when the dtype is already the one solved in;
  SciPy solves a CSR as the transpose of a CSC), other layouts are converted to CSC. Results are
  arrays of the components' namespace (converted back from NumPy for a namespace other than NumPy).
- CuPy data: ``cupyx.scipy.sparse.linalg.spsolve`` (cuSOLVER's sparse QR, on the GPU) and
  ``cupyx.scipy.sparse.linalg.splu`` (SuperLU on the host, the triangular solves on the GPU), on
  a ``cupyx`` CSR matrix built from ``A``'s CSR components (int32 indices, as cuSPARSE needs).
- A missing library is an ImportError that names what to install: ``pip install scipy`` (the
  ``scipy`` extra) for NumPy data, the ``cuda`` extra (``pip install 'sparray[cuda]'``) for CuPy
  data.

The non-zero fill rule. A sparray matrix with a non-zero fill value is dense everywhere (every
unspecified element holds the fill), so it has no sparse factorization. ``spsolve`` then solves
the dense form with the namespace's ``linalg.solve`` (LAPACK for NumPy) and ``splu`` factorizes
the dense form with SuperLU (every non-zero element an entry); both turn the matrix dense with
``sparray.linalg._dense_fallback.densify``, which issues a ``SparrayDensifyWarning`` above the
densify threshold (``sparray.linalg.densify_threshold``; 4096 * 4096 elements by default). A
nan or inf fill is a non-finite matrix: a ValueError, as below.

Dtypes. The solve runs in the floating dtype of ``A`` and ``b`` promoted together (integer and
bool data in float64; float32 and complex64 stay single precision, as in SciPy). ``splu``'s
factors have ``A``'s floating dtype; ``lu.solve(b)`` runs in that dtype (b is cast to it; a
complex ``b`` with real factors is solved as its real and imaginary parts).

Errors. ``A``: a 2-D sparray array (any layout, no dense dims) that is square (ValueError
otherwise) and holds finite values (ValueError); a TypeError for anything else. ``b``: a dense
``(n,)`` or ``(n, k)`` array of ``A``'s namespace or a sparray array (its dense form: the result is
dense), finite (ValueError), its length matching ``A`` (ValueError). A singular matrix raises
``numpy.linalg.LinAlgError``: SuperLU finds an exactly zero pivot (SciPy's ``MatrixRankWarning`` of
``spsolve`` and ``RuntimeError`` of ``splu`` are turned into it), and a solution that is not
finite (a matrix singular to working precision that overflows, or cuSOLVER's QR on CuPy data,
which does not report singularity itself) is one too. A matrix that is merely ill-conditioned
gives an inaccurate solution without an error, as in SciPy.

>>> import numpy as np, sparray
>>> from sparray.linalg._direct import splu, spsolve
>>> A = sparray.asarray(np.array([[4.0, 1.0, 0.0], [1.0, 3.0, 0.0], [0.0, 0.0, 2.0]]), layout="csr")
>>> spsolve(A, np.array([5.0, 4.0, 2.0])).tolist()
[1.0, 1.0, 1.0]
>>> lu = splu(A)
>>> np.allclose(lu.solve(np.array([5.0, 4.0, 2.0])), 1.0), np.allclose(lu @ np.array([4.0, 1.0, 2.0]), [1.0, 0.0, 1.0])
(True, True)
"""

from __future__ import annotations

import warnings

import array_api_compat
import numpy as np

from .._core import dtypes as _dtypes
from .._array.base import SparseArray
from .._core.fill import fill_is_zero
from .._core.namespace import is_array, namespace_of, to_numpy
from ._dense_fallback import densify
from ._operator import solver_dtype

__all__ = ["SparseLU", "splu", "spsolve"]

_SOLVE_DTYPES = tuple(np.dtype(t) for t in (np.float32, np.float64, np.complex64, np.complex128))


# --- libraries ------------------------------------------------------------------------------------------
def _scipy_linalg(who):
    """``scipy.sparse.linalg``, or an ImportError saying how to install SciPy."""
    try:
        import scipy.sparse.linalg as spla
    except ImportError as e:
        raise ImportError(
            f"{who}: NumPy data is solved by SciPy's SuperLU (scipy.sparse.linalg), which could not be imported "
            f"({e}); install SciPy: pip install scipy (or the scipy extra: pip install 'sparray[scipy]')"
        ) from e
    return spla


def _cupyx(who):
    """``(cupyx.scipy.sparse, cupyx.scipy.sparse.linalg)``, or an ImportError naming the cuda extra."""
    try:
        import cupyx.scipy.sparse as csp
        import cupyx.scipy.sparse.linalg as cspla
    except ImportError as e:
        raise ImportError(
            f"{who}: CuPy data is solved by cupyx.scipy.sparse.linalg, which could not be imported ({e}); "
            "install CuPy with its CUDA libraries: the cuda extra, pip install 'sparray[cuda]'"
        ) from e
    return csp, cspla


def _is_cupy(xp) -> bool:
    return array_api_compat.is_cupy_namespace(xp)


# --- checks -----------------------------------------------------------------------------------------------
def _check_matrix(who, A):
    """A's namespace and order n, after the checks of the module docstring (one host read: finiteness)."""
    if not isinstance(A, SparseArray):
        raise TypeError(
            f"{who}: A must be a sparray array (any layout); got {type(A).__name__} "
            "(for a dense matrix use sparray.linalg.solve or the namespace's linalg.solve)"
        )
    if A.ndim != 2 or A.dense_ndim:
        raise ValueError(f"{who}: A must be a 2-D sparse matrix with no dense dims; got shape {A.shape} (dense_ndim={A.dense_ndim})")
    if A.shape[0] != A.shape[1]:
        raise ValueError(f"{who}: A must be square; got shape {A.shape}")
    xp = A._xp
    if not xp.isdtype(A.dtype, ("bool", "numeric")):
        raise TypeError(f"{who}: A must have a numeric dtype; got {_dtypes.dtype_name(A.dtype)}")
    for part, what in ((A._values, "values"), (A._fill, "fill value")):
        if xp.isdtype(part.dtype, ("real floating", "complex floating")) and not bool(xp.all(xp.isfinite(part))):
            raise ValueError(f"{who}: A must hold finite values only; its {what} has nan or inf")
    return xp, A.shape[0]


def _check_rhs(who, b, xp, n):
    """``b`` as a dense ``(n,)`` or ``(n, k)`` array of ``xp``, finite."""
    if isinstance(b, SparseArray):
        if b._xp is not xp:
            raise TypeError(f"{who}: b's components are arrays of {b._xp.__name__}, A's of {xp.__name__}; pass one namespace")
        b = b.to_dense()
    elif not is_array(b):
        raise TypeError(f"{who}: b must be a dense array or a sparray array; got {type(b).__name__}")
    elif namespace_of(b) is not xp:
        raise TypeError(f"{who}: b is an array of {namespace_of(b).__name__}, but A's components are arrays of {xp.__name__}")
    if b.ndim not in (1, 2) or b.shape[0] != n:
        raise ValueError(f"{who}: b must have shape ({n},) or ({n}, k) to match A of shape ({n}, {n}); got {tuple(b.shape)}")
    if not xp.isdtype(b.dtype, ("bool", "numeric")):
        raise TypeError(f"{who}: b must have a numeric dtype; got {b.dtype}")
    if xp.isdtype(b.dtype, ("real floating", "complex floating")) and not bool(xp.all(xp.isfinite(b))):
        raise ValueError(f"{who}: b must hold finite values only; it has nan or inf")
    return b


def _solve_dtype(who, *dtypes):
    """The NumPy dtype the solve runs in (see the module docstring)."""
    out = np.dtype(solver_dtype(np, *dtypes))
    if out not in _SOLVE_DTYPES:
        raise TypeError(f"{who}: cannot solve in {out}; expected float32, float64, complex64 or complex128 data")
    return out


def _check_finite_result(who, xp, x, shape):
    if not bool(xp.all(xp.isfinite(x))):
        raise np.linalg.LinAlgError(
            f"{who}: the solution is not finite: A of shape {shape} is singular (or singular to working precision)"
        )
    return x


# --- spsolve ----------------------------------------------------------------------------------------------
def spsolve(A, b, permc_spec=None, use_umfpack=False):
    """The solution ``x`` of ``A @ x = b`` for a square sparse ``A``, by a sparse direct solver.

    ``A``: a 2-D sparray array of any layout (see the module docstring for the routes: SciPy's
    SuperLU for NumPy data, cupyx for CuPy data, the dense solve for a non-zero fill). ``b``:
    ``(n,)`` or ``(n, k)``, a dense array of A's namespace or a sparray array. Returns a dense
    array of A's namespace with b's shape, in the promoted floating dtype of A and b.
    ``permc_spec`` ("COLAMD" by default, "NATURAL", "MMD_ATA", "MMD_AT_PLUS_A") and
    ``use_umfpack`` go to ``scipy.sparse.linalg.spsolve`` (NumPy data only). Errors: see the
    module docstring (a singular A raises ``numpy.linalg.LinAlgError``).

    >>> import numpy as np, sparray
    >>> A = sparray.asarray(np.array([[2.0, 0.0], [1.0, 1.0]]), layout="coo")
    >>> spsolve(A, np.array([[2.0, 4.0], [3.0, 3.0]])).tolist()
    [[1.0, 2.0], [2.0, 1.0]]
    """
    who = "sparray.linalg.spsolve"
    xp, n = _check_matrix(who, A)
    b = _check_rhs(who, b, xp, n)
    dtype = _solve_dtype(who, A.dtype, b.dtype)
    xdt = getattr(xp, dtype.name)
    if b.dtype != xdt:
        b = xp.astype(b, xdt)
    if n == 0 or b.shape[-1] == 0:
        return xp.zeros(tuple(b.shape), dtype=xdt)
    if not fill_is_zero(xp, A._fill):
        D = densify(who, A, "A")
        if D.dtype != xdt:
            D = xp.astype(D, xdt)
        try:
            x = xp.linalg.solve(D, b)
        except np.linalg.LinAlgError:
            raise np.linalg.LinAlgError(f"{who}: A of shape {A.shape} (dense: non-zero fill) is singular") from None
        return _check_finite_result(who, xp, x, A.shape)
    if _is_cupy(xp):
        return _cupy_spsolve(who, xp, A, b, dtype)
    spla = _scipy_linalg(who)
    from ..interop.scipy import to_scipy

    M = to_scipy(A if A.layout in ("csr", "csc") else A.to_layout("csc"))
    if M.dtype != dtype:
        M = M.astype(dtype)
    rhs = to_numpy(b)
    with warnings.catch_warnings():
        warnings.simplefilter("error", spla.MatrixRankWarning)
        try:
            x = spla.spsolve(M, rhs, permc_spec=permc_spec, use_umfpack=use_umfpack)
        except spla.MatrixRankWarning:
            raise np.linalg.LinAlgError(f"{who}: A of shape {A.shape} is singular (SuperLU found a zero pivot)") from None
    x = np.reshape(np.asarray(x, dtype=dtype), rhs.shape)
    _check_finite_result(who, np, x, A.shape)
    return x if xp is namespace_of(x) else xp.asarray(x)


def _cupy_csr(who, xp, A, dtype, csp):
    """A as a ``cupyx.scipy.sparse.csr_matrix`` of ``dtype`` with int32 indices."""
    B = A if A.layout == "csr" else A.to_layout("csr")
    if B.nse >= 2**31:
        raise ValueError(f"{who}: A has {B.nse} entries; cuSPARSE takes int32 indices (fewer than 2**31 entries)")
    crow, col = xp.astype(B.crow_indices, xp.int32), xp.astype(B.col_indices, xp.int32)
    return csp.csr_matrix((xp.astype(B.values, getattr(xp, dtype.name)), col, crow), shape=A.shape)


def _cupy_spsolve(who, xp, A, b, dtype):
    csp, cspla = _cupyx(who)
    M = _cupy_csr(who, xp, A, dtype, csp)
    x = xp.reshape(cspla.spsolve(M, b), tuple(b.shape))
    return _check_finite_result(who, xp, x, A.shape)


# --- splu -------------------------------------------------------------------------------------------------
class SparseLU:
    """The LU factorization of a square sparse matrix (:func:`splu`): ``Pr @ A @ Pc = L @ U``.

    A thin wrapper of SciPy's (or cupyx's) ``SuperLU`` object: ``solve(b, trans="N")`` solves
    ``A @ x = b`` ("T": ``A^T``, "H": ``A^H``); ``M @ b`` is ``solve(b)``, so the factorization is
    also an operator (a preconditioner: ``M=`` of the iterative solvers). ``shape``, ``dtype``
    (the factors'), ``nnz`` (entries of L and U); ``L`` (unit lower triangular) and ``U`` (upper
    triangular) as sparray arrays, CSC from SciPy (NumPy components), CSR from cupyx (CuPy
    components); ``perm_r`` and ``perm_c``, arrays of the same library (NumPy or CuPy), as in
    SciPy: ``Pr[perm_r[i], i] = 1`` and ``Pc[i, perm_c[i]] = 1``, so ``L @ U`` is ``A`` with its rows
    taken in the order ``argsort(perm_r)`` and its columns in ``argsort(perm_c)``. ``lu`` is the
    library's object.
    """

    def __init__(self, lu, xp, dtype, shape):
        self.lu, self.xp, self.dtype, self.shape = lu, xp, dtype, shape
        self.perm_r, self.perm_c = lu.perm_r, lu.perm_c
        self._L = self._U = None

    @property
    def nnz(self):
        return int(self.lu.nnz) if hasattr(self.lu, "nnz") else int(self.lu.L.nnz + self.lu.U.nnz)

    @property
    def L(self):
        if self._L is None:
            self._L = self._factor(self.lu.L)
        return self._L

    @property
    def U(self):
        if self._U is None:
            self._U = self._factor(self.lu.U)
        return self._U

    def _factor(self, m):
        if _is_cupy(self.xp):
            from .._array.compressed import CSR

            m = m.tocsr()
            return CSR(m.indptr, m.indices, m.data, shape=tuple(m.shape))
        from ..interop.scipy import from_scipy

        return from_scipy(m)

    def solve(self, b, trans="N"):
        """``x`` with ``A @ x = b`` (``trans="T"``: ``A^T @ x = b``; "H": ``A^H @ x = b``); ``b``
        ``(n,)`` or ``(n, k)``, a dense array of the factor's namespace or a sparray array;
        a dense result of b's shape."""
        who = "sparray.linalg.splu: solve"
        if trans not in ("N", "T", "H"):
            raise ValueError(f"{who}: trans must be 'N', 'T' or 'H'; got {trans!r}")
        xp, n = self.xp, self.shape[0]
        b = _check_rhs(who, b, xp, n)
        real = self.dtype.kind == "f"
        if xp.isdtype(b.dtype, "complex floating") and real:
            cdt = getattr(xp, np.result_type(self.dtype, np.complex64).name)
            re, im = self._solve(xp.real(b), trans), self._solve(xp.imag(b), trans)
            return xp.astype(re, cdt) + 1j * xp.astype(im, cdt)
        return self._solve(b, trans)

    def _solve(self, b, trans):
        xp = self.xp
        xdt = getattr(xp, self.dtype.name)
        if b.dtype != xdt:
            b = xp.astype(b, xdt)
        if self.shape[0] == 0 or b.shape[-1] == 0:
            return xp.zeros(tuple(b.shape), dtype=xdt)
        if _is_cupy(xp):
            x = self.lu.solve(b, trans=trans)
        else:
            x = np.asarray(self.lu.solve(to_numpy(b), trans=trans))
            if xp is not namespace_of(x):
                x = xp.asarray(x)
        x = xp.reshape(x, tuple(b.shape))
        return _check_finite_result("sparray.linalg.splu: solve", xp, x, self.shape)

    def __matmul__(self, b):
        return self.solve(b)

    matvec = __matmul__

    def __repr__(self):
        return f"<SparseLU of a {self.shape[0]}x{self.shape[1]} matrix, dtype {self.dtype}, {self.nnz} entries in L and U>"


def splu(A, permc_spec=None, diag_pivot_thresh=None, relax=None, panel_size=None, options=None):
    """The sparse LU factorization of the square sparse matrix ``A`` (SuperLU): a :class:`SparseLU`.

    ``A``: a 2-D sparray array of any layout with finite values, converted to CSC for SciPy
    (NumPy data; a CSC shares its buffers when no cast is needed) or to a cupyx CSR (CuPy data:
    SuperLU runs on the host, the solves on the GPU). With a non-zero fill the dense form is
    factorized (see the module docstring; a ``SparrayDensifyWarning`` above the threshold).
    The factors have A's floating dtype (float64 for integer and bool data). The keyword
    arguments go to ``scipy.sparse.linalg.splu`` (those left None take SciPy's defaults). A
    singular ``A`` raises ``numpy.linalg.LinAlgError``; see the module docstring for the rest.

    >>> import numpy as np, sparray
    >>> A = sparray.asarray(np.array([[0.0, 2.0], [1.0, 1.0]]), layout="csc")
    >>> lu = splu(A)
    >>> lu.solve(np.array([2.0, 2.0])).tolist(), lu.L.layout, lu.perm_r.tolist()
    ([1.0, 1.0], 'csc', [1, 0])
    """
    who = "sparray.linalg.splu"
    xp, n = _check_matrix(who, A)
    dtype = _solve_dtype(who, A.dtype)
    kwargs = {
        k: v
        for k, v in (("permc_spec", permc_spec), ("diag_pivot_thresh", diag_pivot_thresh), ("relax", relax),
                     ("panel_size", panel_size), ("options", options))
        if v is not None
    }  # fmt: skip
    dense = not fill_is_zero(xp, A._fill)
    if _is_cupy(xp):
        csp, cspla = _cupyx(who)
        _scipy_linalg(who)  # cupyx's splu factorizes with SciPy on the host
        if dense:
            D = xp.astype(densify(who, A, "A"), getattr(xp, dtype.name))
            M = csp.csr_matrix(D)
        else:
            M = _cupy_csr(who, xp, A, dtype, csp)
        try:
            lu = cspla.splu(M, **kwargs)
        except RuntimeError as e:
            raise _singular(who, A, e) from None
        return SparseLU(lu, xp, dtype, A.shape)
    spla = _scipy_linalg(who)
    if dense:
        import scipy.sparse as sp

        M = sp.csc_array(to_numpy(densify(who, A, "A")).astype(dtype))
    else:
        from ..interop.scipy import to_scipy

        M = to_scipy(A, format="csc")
        if M.dtype != dtype:
            M = M.astype(dtype)
    try:
        lu = spla.splu(M, **kwargs)
    except RuntimeError as e:
        raise _singular(who, A, e) from None
    return SparseLU(lu, xp, dtype, A.shape)


def _singular(who, A, e):
    """SuperLU's RuntimeError as LinAlgError when it says the matrix is singular, else as it is."""
    if "singular" in str(e).lower():
        return np.linalg.LinAlgError(f"{who}: A of shape {A.shape} is singular ({e})")
    return e
