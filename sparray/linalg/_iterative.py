"""Krylov solvers for ``A x = b``: :func:`cg`, :func:`minres`, :func:`gmres` (restarted) and :func:`bicgstab`.

They take scipy.sparse.linalg's arguments and return what it returns, ``(x, info)``, with its
iteration structure and convergence tests, so that a solve takes as many iterations as scipy's
(within one) for the same tolerance:

- ``info == 0``: converged, ``||b - A x|| <= max(atol, rtol * ||b||)`` (minres: scipy's own tests of
  ``||r|| / (||A|| ||x||)`` and ``||A r|| / (||A|| ||r||)`` against ``rtol``; gmres: the true
  residual checked after each restart cycle);
- ``info > 0``: ``maxiter`` reached without convergence (the value is that iteration count);
- ``info < 0``: a breakdown (-10: ``rho`` breakdown of bicgstab, -11: a zero or non-finite
  denominator, so ``x`` holds the last good iterate or, for cg, is non-finite); bad arguments raise.
- ``b == 0`` gives ``x == 0`` and ``info == 0``.

Design
------
**One code path for every array namespace.** ``A`` and the preconditioner ``M`` are whatever
``sparray.linalg._operator.as_operator`` accepts: a sparray matrix of any layout and any fill (its
``A @ v`` with a dense ``v`` is exact for any fill value: the fill is a dense rank-one part that
the product already adds, so the solvers never see it), a dense 2-D array, or an object with
``shape``, ``dtype`` and ``@`` (scipy's ``LinearOperator``). The vectors are dense 1-d arrays of
one namespace ``xp``: the operator's (a sparray matrix's component namespace, a dense matrix's),
or the right-hand side's when the operator is an object. NumPy, CuPy and array_api_strict vectors
run the same loops; only the few vector kernels of :class:`_Vectors` know which one they have.

**One host read per iteration.** Scalars that steer the recurrence (``alpha``, ``beta``, ``omega``,
Gram-Schmidt coefficients) stay 0-d device arrays for non-NumPy namespaces, so a CuPy solve does not
wait for the GPU inside an iteration except once: when it reads the residual norm of the convergence
test. Where the algorithm needs more host scalars in one iteration (breakdown tests, minres'
Lanczos scalars and ``||x||``, gmres' Hessenberg column), they are stacked into one small array and
copied to the host together with that norm (gmres adds two reads per restart cycle: the norms of
the new residual and of its preconditioned form). bicgstab computes its second half-step before
reading, so both of scipy's residual tests come from one read (when the half-step has converged,
that extra matvec is discarded: the iterates and counts are scipy's); minres tests iteration
``k``'s convergence with the read of iteration ``k + 1`` on non-NumPy namespaces (one discarded
matvec at the end). NumPy vectors read their scalars directly (NumPy scalars, BLAS dots) and are
updated in place: by BLAS ``axpy``/``scal`` from 2048 elements (:data:`BLAS_MIN_N`), else by
ufuncs through one preallocated buffer, never a temporary per update. Real vectors of more than
10000 elements take numba's kernels (``sparray.kernels.cpu.vector``) for their dots and updates
instead of BLAS: OpenBLAS threads them there, and its spinning threads starve the parallel sparse
product that comes next (cg on 1e5 unknowns: 29 s with BLAS, 0.4 s without, on 2 cores).

**Dtypes.** The solve runs in ``solver_dtype(A.dtype, b.dtype)``: float32 and complex64 stay single
precision, integer and bool inputs compute in float64. ``x0`` and ``b`` are cast to it; a sparray
or dense ``A`` of another dtype is cast once (so its products stay on the fast paths).

**Returned x.** A new dense 1-d array of ``xp`` (never ``b`` or ``x0`` itself); the public wrappers of
``sparray.linalg`` turn it into a sparray array when every input is one.

The arrays must be mutable (NumPy, CuPy, array_api_strict): the iterate is updated in place.

>>> import numpy as np, sparray
>>> A = sparray.asarray(np.array([[4.0, 1.0], [1.0, 3.0]]), layout="csr")
>>> x, info = cg(A, np.array([1.0, 2.0]), rtol=1e-10)
>>> info, np.allclose(A @ x, [1.0, 2.0])
(0, True)
"""

from __future__ import annotations

import math
import operator as _operator_module

import numpy as np
from array_api_compat import is_numpy_namespace

from .._core import dtypes as _dtypes
from .._array.base import SparseArray
from .._core.namespace import namespace_of, to_numpy
from ._operator import as_operator, as_vector, check_finite, solver_dtype

__all__ = ["bicgstab", "cg", "gmres", "minres"]


#: From this length real NumPy vectors go through ``sparray.kernels.cpu.vector`` (numba's thread
#: pool; OpenBLAS starts threads of its own there, which spin and starve the parallel sparse
#: products: cg on 1e5 unknowns 29 s -> 0.4 s on 2 cores); ``vector.MIN_N``, kept here so that
#: importing this module does not import numba.
VECTOR_MIN_N = 10_001

#: NumPy vectors of this length and more are updated by BLAS ``axpy``/``scal`` (scipy.linalg.blas,
#: imported on first use; without SciPy, NumPy ufuncs through a buffer): one pass over memory per
#: update instead of two, measured 5.2 -> 2.2 us per ``y += a * x`` at 1e4 float64 elements. Below
#: it the ufuncs are as fast and a small solve never imports SciPy.
BLAS_MIN_N = 2048

_BLAS: dict = {}


def _blas(dtype):
    """SciPy's BLAS ``(axpy, scal)`` for ``dtype``, or ``(None, None)`` without SciPy (kept)."""
    got = _BLAS.get(dtype)
    if got is None:
        try:
            from scipy.linalg.blas import get_blas_funcs

            got = tuple(get_blas_funcs(("axpy", "scal"), dtype=dtype))
        except Exception:  # no SciPy, or one without these wrappers: NumPy ufuncs
            got = (None, None)
        _BLAS[dtype] = got
    return got


# --- the vectors of one solve -----------------------------------------------------------------------
class _Vectors:
    """The vector kernels of one solve in namespace ``xp`` and dtype ``dtype`` (length ``n``).

    NumPy: BLAS dots returning NumPy scalars, in-place updates (BLAS ``axpy``/``scal`` from
    :data:`BLAS_MIN_N` elements, else ufuncs through one preallocated buffer), scalars read as they
    are. Other namespaces: ``xp`` calls only, dots as 0-d arrays (on the
    device), and :meth:`read` copies a stack of 0-d arrays to the host in one transfer."""

    __slots__ = ("xp", "dtype", "np_dtype", "n", "numpy", "complex", "eps", "_tmp", "_axpy", "_scal", "_vk")

    def __init__(self, xp, dtype, n):
        self.xp, self.dtype, self.n = xp, dtype, n
        self.np_dtype = np.dtype(_dtypes.dtype_name(dtype))
        self.numpy = is_numpy_namespace(xp)
        self.complex = self.np_dtype.kind == "c"
        self.eps = float(np.finfo(self.np_dtype).eps)
        self._tmp = np.empty(n, self.np_dtype) if self.numpy else None
        self._axpy = self._scal = self._vk = None
        if self.numpy and n >= VECTOR_MIN_N and self.np_dtype.kind == "f":
            from ..kernels.cpu import vector  # long real vectors: numba's pool, not BLAS's threads

            self._vk = vector
        elif self.numpy and n >= BLAS_MIN_N:
            self._axpy, self._scal = _blas(self.np_dtype)

    def dot(self, a, b):
        """``sum(conj(a) * b)``: a NumPy scalar or a 0-d array of ``xp``."""
        if self.numpy:
            if self._vk is not None:
                return self._vk.dot(a, b)
            return np.vdot(a, b) if self.complex else np.dot(a, b)
        return self.xp.vecdot(a, b)

    def sqnorm(self, a):
        """``||a||**2`` (real): a NumPy scalar or a real 0-d array of ``xp``."""
        if self.numpy:
            if self._vk is not None:
                return self._vk.dot(a, a)
            return np.vdot(a, a).real if self.complex else np.dot(a, a)
        d = self.xp.vecdot(a, a)
        return self.xp.real(d) if self.complex else d

    def rdot(self, a, b):
        """The real part of :meth:`dot` (Hermitian forms, where it is real)."""
        d = self.dot(a, b)
        if not self.complex:
            return d
        return d.real if self.numpy else self.xp.real(d)

    def axpy(self, y, a, x):
        """``y += a * x`` in place (``a`` a scalar or 0-d array; ``y`` one of the solve's own
        vectors: C-contiguous, of the solve's dtype)."""
        if self.numpy:
            if self._vk is not None and x.dtype == y.dtype and x.flags.c_contiguous:
                self._vk.axpy(y, a, x)
                return
            if self._axpy is not None:
                out = self._axpy(x, y, a=a)  # in place: y is contiguous and of the routine's dtype
                if out is not y:
                    y[...] = out
                return
            tmp = self._tmp
            np.multiply(x, a, out=tmp)
            np.add(y, tmp, out=y)
        else:
            y += a * x

    def aypx(self, y, a, x):
        """``y = a * y + x`` in place."""
        if self.numpy:
            if self._vk is not None and x.dtype == y.dtype and x.flags.c_contiguous:
                self._vk.aypx(y, a, x)
                return
            if self._axpy is not None:
                out = self._axpy(x, self._scal(a, y), a=1.0)
                if out is not y:
                    y[...] = out
                return
            np.multiply(y, a, out=y)
            np.add(y, x, out=y)
        else:
            y *= a
            y += x

    def copy(self, a):
        return a.copy() if self.numpy else self.xp.asarray(a, copy=True)

    def zeros(self):
        return self.xp.zeros(self.n, dtype=self.dtype)

    def norm(self, a) -> float:
        """``||a||`` as a Python float (a host read)."""
        return math.sqrt(self.read(self.sqnorm(a))[0])

    def read(self, *values):
        """The scalars ``values`` as Python numbers: one copy to the host for device arrays."""
        if self.numpy:
            return [v.item() for v in values]
        xp = self.xp
        kinds = {str(v.dtype) for v in values}
        if len(kinds) > 1:  # real and complex: one stack of the solve's dtype
            values = [xp.astype(v, self.dtype) for v in values]
        return to_numpy(xp.stack(values)).tolist()


# --- arguments --------------------------------------------------------------------------------------
def _nonneg(who, name, value):
    try:
        value = float(value)
    except (TypeError, ValueError):
        raise TypeError(f"{who}: {name} must be a real number; got {type(value).__name__}") from None
    if not value >= 0 or math.isinf(value):
        raise ValueError(f"{who}: {name} must be a finite number >= 0; got {value}")
    return value


def _count(who, name, value, default):
    if value is None:
        return default
    try:
        value = _operator_module.index(value)
    except TypeError:
        raise TypeError(f"{who}: {name} must be an integer; got {type(value).__name__}") from None
    if value < 1:
        raise ValueError(f"{who}: {name} must be >= 1; got {value}")
    return value


def _product(op, vec):
    """``v -> op @ v`` as a function: a vector of the solve's dtype that the loops may update in
    place (sparray and dense products are new arrays; an operator object's is checked)."""
    dtype = vec.dtype
    if op.kind == "sparse":
        A = op.A
        if op.dtype != vec.np_dtype:
            A = A.astype(dtype)  # once: the products then stay on the matrix's fast paths
        return A.__matmul__
    if op.kind == "dense":
        A = op.A if op.dtype == vec.np_dtype else vec.xp.astype(op.A, dtype)
        return A.__matmul__
    # an operator object may hand back its input or a view of it (an identity; scipy's
    # LinearOperator reshapes what its matvec returns), which the loops would then update in place
    # behind their own back: such a product is copied (NumPy: when it shares memory with the input,
    # is read-only or strided; other namespaces, which have no such test: always), as is one of
    # another dtype
    matvec = op.matvec
    xp, numpy = vec.xp, vec.numpy

    def product(v):
        out = matvec(v)
        if numpy:
            if out.dtype != dtype:
                return out.astype(dtype)
            flags = out.flags
            if not (flags.writeable and flags.c_contiguous) or np.may_share_memory(out, v):
                return out.copy()
            return out
        return xp.astype(out, dtype, copy=True)

    return product


class _System:
    """The validated arguments of one solve: ``vec`` (:class:`_Vectors`), ``matvec``, ``psolve``
    (None: no preconditioner), ``b``, ``x`` (a fresh copy of ``x0`` or zeros; ``x_nonzero``), ``n``."""

    __slots__ = ("vec", "matvec", "psolve", "b", "x", "x_nonzero", "n")

    def __init__(self, who, A, b, x0, M):
        op = as_operator(who, A, name="A")
        n = op.shape[0]
        if op.xp is not None:
            xp = op.xp
        elif isinstance(b, SparseArray):
            xp = b._xp
        else:
            xp = namespace_of(b) if not isinstance(b, (list, tuple)) else namespace_of(np.empty(0))
        b_dtype = xp.asarray(b).dtype if isinstance(b, (list, tuple)) else getattr(b, "dtype", None)
        if b_dtype is None:
            raise TypeError(f"{who}: b must be a vector (a sparse or dense array); got {type(b).__name__}")
        dtype = solver_dtype(xp, op.dtype, b_dtype)
        self.vec = vec = _Vectors(xp, dtype, n)
        self.n = n
        self.b = as_vector(who, b, xp, n, name="b", dtype=dtype)
        check_finite(who, self.b, name="b")
        if x0 is None:
            self.x = vec.zeros()
            self.x_nonzero = False
        else:
            x = as_vector(who, x0, xp, n, name="x0", dtype=dtype)
            check_finite(who, x, name="x0")
            self.x = vec.copy(x)
            self.x_nonzero = bool(xp.any(self.x != 0))
        self.matvec = _product(op, vec)
        if M is None:
            self.psolve = None
        else:
            mop = as_operator(who, M, name="M")
            if mop.shape != (n, n):
                raise ValueError(f"{who}: M must have shape ({n}, {n}) to match A; got {mop.shape}")
            if mop.xp is not None and mop.xp is not xp:
                raise TypeError(
                    f"{who}: M is an array of {mop.xp.__name__}, but the vectors are arrays of {xp.__name__}; "
                    "pass arrays of one namespace"
                )
            self.psolve = _product(mop, vec)

    def residual(self):
        """``b - A x`` (a new array), or a copy of ``b`` when ``x`` is zero."""
        if not self.x_nonzero:
            return self.vec.copy(self.b)
        return self.b - self.matvec(self.x)


def _start(who, A, b, x0, M, rtol, atol, maxiter, callback):
    """The common start of cg, bicgstab and gmres: the checked arguments as a :class:`_System`, the
    iteration limit (default ``10 n``), ``||b||`` and the stopping bound ``max(atol, rtol ||b||)`` on the
    residual norm, None for ``b == 0`` (the answer is zero)."""
    rtol = _nonneg(who, "rtol", rtol)
    atol = _nonneg(who, "atol", atol)
    _check_callback(who, callback)
    system = _System(who, A, b, x0, M)
    maxiter = _count(who, "maxiter", maxiter, 10 * system.n)
    bnrm = system.vec.norm(system.b)
    return system, maxiter, bnrm, (None if bnrm == 0.0 else max(atol, rtol * bnrm))


def _check_callback(who, callback):
    if callback is not None and not callable(callback):
        raise TypeError(f"{who}: callback must be callable or None; got {type(callback).__name__}")


# --- conjugate gradients ------------------------------------------------------------------------------
def cg(A, b, x0=None, *, rtol=1e-5, atol=0.0, maxiter=None, M=None, callback=None):
    """Solve ``A x = b`` by conjugate gradients, for a Hermitian positive definite ``A``.

    As ``scipy.sparse.linalg.cg``: ``A`` a sparray matrix (any layout, any fill), a dense matrix or
    a linear operator; ``M`` a Hermitian positive definite preconditioner approximating ``A^{-1}``
    (applied as ``M @ r``); ``x0`` the starting guess (default zeros). Iterates until
    ``||b - A x|| <= max(atol, rtol * ||b||)`` (the recursively updated residual, as scipy), for at
    most ``maxiter`` iterations (default ``10 * n``); ``callback(xk)`` after each iteration.

    Returns ``(x, info)``: ``x`` a new dense 1-d array of the vectors' namespace, of dtype
    ``solver_dtype(A.dtype, b.dtype)``; ``info`` 0 converged, ``maxiter`` when not converged, -11
    when the residual became non-finite (a zero ``p^H A p``: ``A`` is not positive definite).

    One host read per iteration: ``||r||`` (with no preconditioner, ``||r||**2`` is also ``rho``).

    >>> import numpy as np, sparray
    >>> A = sparray.asarray(np.array([[4.0, 1.0, 0.0], [1.0, 3.0, 1.0], [0.0, 1.0, 2.0]]), layout="csr")
    >>> x, info = cg(A, np.ones(3), rtol=1e-10)
    >>> info, np.allclose(A @ x, np.ones(3))
    (0, True)
    """
    system, maxiter, _, tol = _start("sparray.linalg.cg", A, b, x0, M, rtol, atol, maxiter, callback)
    vec, matvec, psolve, x = system.vec, system.matvec, system.psolve, system.x
    if tol is None:
        return vec.zeros(), 0
    dot, sqnorm, axpy, aypx, read = vec.dot, vec.sqnorm, vec.axpy, vec.aypx, vec.read
    numpy = vec.numpy
    sqrt = math.sqrt
    r = system.residual()
    p = None
    rho_prev = None
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        for it in range(maxiter):
            rr = sqnorm(r)
            rnorm = sqrt(float(rr) if numpy else read(rr)[0])
            if rnorm <= tol:
                return x, 0
            if not rnorm < math.inf:  # nan or inf: a zero or non-finite denominator
                return x, -11
            if psolve is None:
                z, rho = r, rr
            else:
                z = psolve(r)
                rho = dot(r, z)
            if it:
                aypx(p, rho / rho_prev, z)
            else:
                p = vec.copy(z)
            q = matvec(p)
            alpha = rho / dot(p, q)
            axpy(x, alpha, p)
            axpy(r, -alpha, q)
            rho_prev = rho
            if callback is not None:
                callback(x)
    return x, maxiter


# --- BiCGSTAB ------------------------------------------------------------------------------------------
def bicgstab(A, b, x0=None, *, rtol=1e-5, atol=0.0, maxiter=None, M=None, callback=None):
    """Solve ``A x = b`` by the biconjugate gradient stabilized method (any square ``A``).

    As ``scipy.sparse.linalg.bicgstab`` (right preconditioning by ``M``, which approximates
    ``A^{-1}``): converged when the updated residual satisfies ``||r|| <= max(atol, rtol * ||b||)``,
    tested at the start of each iteration and after its first half-step; at most ``maxiter``
    iterations (default ``10 * n``); ``callback(xk)`` after each full iteration.

    Returns ``(x, info)``: ``info`` 0 converged, ``maxiter`` not converged, -10 when
    ``|rtilde^H r|`` falls below ``eps**2`` (rho breakdown), -11 when ``omega`` does (or a
    denominator is zero or non-finite); ``x`` then holds the last iterate computed with finite
    scalars.

    One host read per iteration: the second half-step is computed before reading, so both
    residual norms, ``rho`` and ``omega`` come to the host together. When the half-step converges
    (scipy returns there) the extra matvec is discarded and ``x`` is scipy's half-step iterate.

    >>> import numpy as np, sparray
    >>> A = sparray.asarray(np.array([[4.0, 1.0, 0.0], [-1.0, 3.0, 1.0], [0.0, -2.0, 5.0]]), layout="csc")
    >>> x, info = bicgstab(A, np.ones(3), rtol=1e-10)
    >>> info, np.allclose(A @ x, np.ones(3))
    (0, True)
    """
    who = "sparray.linalg.bicgstab"
    system, maxiter, _, tol = _start(who, A, b, x0, M, rtol, atol, maxiter, callback)
    vec, matvec, psolve, x = system.vec, system.matvec, system.psolve, system.x
    if tol is None:
        return vec.zeros(), 0
    rhotol = vec.eps**2
    omegatol = rhotol
    dot, sqnorm, axpy, read = vec.dot, vec.sqnorm, vec.axpy, vec.read
    xp = vec.xp
    absolute = abs if vec.numpy else xp.abs
    sqrt = math.sqrt
    r = system.residual()
    rtilde = vec.copy(r)
    rho = dot(rtilde, r)
    rr, rho_abs = read(sqnorm(r), absolute(rho))
    omega_abs = None
    p = v = omega = alpha = rho_prev = None
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        for it in range(maxiter):
            if sqrt(rr) <= tol:
                return x, 0
            if rho_abs < rhotol:
                return x, -10
            if it:
                if not omega_abs >= omegatol:  # tiny, zero or nan
                    return x, -11
                beta = (rho / rho_prev) * (alpha / omega)
                axpy(p, -omega, v)
                vec.aypx(p, beta, r)
            else:
                p = vec.copy(r)
            phat = p if psolve is None else psolve(p)
            v = matvec(phat)
            rv = dot(rtilde, v)
            alpha = rho / rv
            axpy(r, -alpha, v)  # r is now s
            ss = sqnorm(r)
            shat = r if psolve is None else psolve(r)
            t = matvec(shat)
            tt = sqnorm(t)
            omega = dot(t, r) / tt
            if psolve is None:
                shat = vec.copy(shat)  # r changes next; x still needs s
            axpy(r, -omega, t)
            rho_prev = rho
            rho = dot(rtilde, r)
            rv_abs, ss, omega_abs, rr, rho_abs = read(absolute(rv), ss, absolute(omega), sqnorm(r), absolute(rho))
            if rv_abs == 0.0 or not math.isfinite(rv_abs):
                return x, -11
            if sqrt(ss) <= tol:  # converged at the half-step: scipy's exit there
                axpy(x, alpha, phat)
                return x, 0
            axpy(x, alpha, phat)
            if not math.isfinite(omega_abs):  # t == 0 with s != 0: keep the half-step
                return x, -11
            axpy(x, omega, shat)
            if callback is not None:
                callback(x)
    return x, maxiter


# --- MINRES --------------------------------------------------------------------------------------------
def minres(A, b, x0=None, *, shift=0.0, rtol=1e-5, maxiter=None, M=None, callback=None, show=False, check=False):
    """Solve ``(A - shift I) x = b`` by MINRES, for a Hermitian (real symmetric) ``A``, maybe indefinite.

    As ``scipy.sparse.linalg.minres`` (Paige and Saunders' algorithm and stopping tests):
    ``M`` a Hermitian positive definite preconditioner approximating ``A^{-1}``; stops when
    ``||r|| / (||A|| ||x||) <= rtol`` or ``||A r|| / (||A|| ||r||) <= rtol`` (estimates from the
    Lanczos recurrence), when ``x`` is accurate to machine precision, or when ``cond(A)``
    exceeds ``0.1 / eps``, all with ``info`` 0; after ``maxiter`` iterations (default ``5 * n``)
    with ``info = maxiter``. ``callback(xk)`` after each iteration. ``check=True`` tests first that
    ``A`` and ``M`` look symmetric (ValueError otherwise); ``show`` is accepted and ignored (no
    printed report). Complex Hermitian systems are supported (scipy's takes real ones).

    Raises ValueError when ``M`` is not positive definite (or ``A``, ``M`` not symmetric) as the
    iteration finds out. One host read per iteration: the two Lanczos scalars with ``||x||``
    (on non-NumPy namespaces the stopping test of iteration k is evaluated with the read of
    iteration k + 1; the discarded half-made iteration costs one matvec at the end).

    >>> import numpy as np, sparray
    >>> D = np.array([[1.0, 2.0, 0.5], [2.0, -1.0, 1.0], [0.5, 1.0, 3.0]])  # indefinite
    >>> A = sparray.asarray(D, layout="bsr", blocksize=(1, 1), fill_value=0.5)  # the 0.5s unstored
    >>> x, info = minres(A, np.ones(3), rtol=1e-10)
    >>> info, np.allclose(A @ x, np.ones(3))
    (0, True)
    """
    who = "sparray.linalg.minres"
    rtol = _nonneg(who, "rtol", rtol)
    try:
        shift = float(shift)
    except (TypeError, ValueError):
        raise TypeError(f"{who}: shift must be a real number; got {type(shift).__name__}") from None
    if not math.isfinite(shift):
        raise ValueError(f"{who}: shift must be finite; got {shift}")
    _check_callback(who, callback)
    system = _System(who, A, b, x0, M)
    vec, matvec, psolve, x = system.vec, system.matvec, system.psolve, system.x
    n = system.n
    maxiter = _count(who, "maxiter", maxiter, 5 * n)
    eps = vec.eps
    rdot, read, sqrt, hypot = vec.rdot, vec.read, math.sqrt, math.hypot
    # the products are read-only to the loop (an operator object may hand back a buffer it reuses):
    # y is rebuilt out of place, as scipy does
    r1 = system.residual() if x0 is not None else vec.copy(system.b)
    y = r1 if psolve is None else psolve(r1)
    beta1, bb = read(rdot(r1, y), vec.sqnorm(system.b))
    if beta1 < 0:
        raise ValueError(f"{who}: M must be positive definite; r^H M r = {beta1} < 0 for the initial residual r")
    if beta1 == 0:
        return x, 0
    if bb == 0:
        return vec.zeros(), 0
    beta1 = sqrt(beta1)

    if check:
        _minres_check(who, vec, matvec, psolve, r1, y, eps)

    oldb, beta, dbar, epsln, phibar = 0.0, beta1, 0.0, 0.0, beta1
    rhs1, rhs2, tnorm2, gmax, gmin = beta1, 0.0, 0.0, 0.0, float(np.finfo(vec.np_dtype).max)
    cs, sn = -1.0, 0.0
    w = vec.zeros()
    w2 = vec.zeros()
    r2 = r1
    defer = not vec.numpy  # evaluate iteration k's stop test with iteration k+1's read
    pending = None
    istop = 0
    itn = 0

    def stop_test(state, ynorm):
        k, Anorm, rnorm, root, Acond = state
        epsx = Anorm * ynorm * eps
        test1 = math.inf if ynorm == 0 or Anorm == 0 else rnorm / (Anorm * ynorm)
        test2 = math.inf if Anorm == 0 else root / Anorm
        code = 0
        if 1 + test2 <= 1:
            code = 2
        if 1 + test1 <= 1:
            code = 1
        if k >= maxiter:
            code = 6
        if Acond >= 0.1 / eps:
            code = 4
        if epsx >= beta1:
            code = 3
        if test2 <= rtol:
            code = 2
        if test1 <= rtol:
            code = 1
        return code

    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        while itn < maxiter:
            itn += 1
            v = y * (1.0 / beta)
            y = matvec(v)
            if shift != 0.0:
                y = y - shift * v
            if itn >= 2:
                y = y - (beta / oldb) * r1
            alfa = rdot(v, y)
            y = y - (alfa / beta) * r2
            r1 = r2
            r2 = y
            y = r2 if psolve is None else psolve(r2)
            oldb = beta
            beta2 = rdot(r2, y)
            if pending is not None:
                alfa, beta2, xx = read(alfa, beta2, vec.sqnorm(x))
                istop = stop_test(pending, sqrt(xx))
                if istop != 0:
                    itn -= 1
                    break
            else:
                alfa, beta2 = read(alfa, beta2)
            if beta2 < 0:
                raise ValueError(f"{who}: A and M must be Hermitian and M positive definite; the Lanczos process met r^H M r < 0")
            beta = sqrt(beta2)
            tnorm2 += alfa**2 + oldb**2 + beta**2
            first_stop = itn == 1 and beta / beta1 <= 10 * eps  # b and x are eigenvectors

            oldeps = epsln
            delta = cs * dbar + sn * alfa
            gbar = sn * dbar - cs * alfa
            epsln = sn * beta
            dbar = -cs * beta
            root = hypot(gbar, dbar)
            gamma = max(hypot(gbar, beta), eps)
            cs = gbar / gamma
            sn = beta / gamma
            phi = cs * phibar
            phibar = sn * phibar

            denom = 1.0 / gamma
            w1 = w2
            w2 = w
            w = (v - oldeps * w1 - delta * w2) * denom
            vec.axpy(x, phi, w)

            gmax = max(gmax, gamma)
            gmin = min(gmin, gamma)
            z = rhs1 / gamma
            rhs1 = rhs2 - delta * z
            rhs2 = -epsln * z
            state = (itn, sqrt(tnorm2), phibar, root, gmax / gmin)

            if callback is not None:
                callback(x)
            if first_stop:
                istop = -1
                break
            if defer and itn < maxiter:
                pending = state
                continue
            istop = stop_test(state, vec.norm(x))
            if istop != 0:
                break
    return x, (maxiter if istop == 6 else 0)


def _minres_check(who, vec, matvec, psolve, r1, y, eps):
    """scipy's ``check=True``: ``A`` and ``M`` symmetric to about ``eps**(1/3)`` on the start vectors."""
    w = matvec(y)
    r2 = matvec(w)
    s, t = vec.read(vec.rdot(w, w), vec.rdot(y, r2))
    if abs(s - t) > (s + eps) * eps ** (1.0 / 3.0):
        raise ValueError(f"{who}: A must be symmetric (Hermitian); check=True found (Ay)^H (Ay) != y^H A (Ay)")
    if psolve is not None:
        r2 = psolve(y)
        s, t = vec.read(vec.rdot(y, y), vec.rdot(r1, r2))
        if abs(s - t) > (s + eps) * eps ** (1.0 / 3.0):
            raise ValueError(f"{who}: M must be symmetric (Hermitian); check=True found y^H y != r^H M y")


# --- GMRES ---------------------------------------------------------------------------------------------
def _givens(f, g):
    """``(c, s, r)`` with real ``c >= 0``: ``[[c, s], [-conj(s), c]] @ [f, g] == [r, 0]``."""
    if g == 0:
        return 1.0, 0.0 * g, f
    if f == 0:
        ag = abs(g)
        return 0.0, g.conjugate() / ag, ag + 0.0 * g
    af, ag = abs(f), abs(g)
    d = math.hypot(af, ag)
    u = f / af
    return af / d, u * g.conjugate() / d, u * d


def gmres(A, b, x0=None, *, rtol=1e-5, atol=0.0, restart=None, maxiter=None, M=None, callback=None, callback_type=None):
    """Solve ``A x = b`` by restarted GMRES (any square ``A``).

    As ``scipy.sparse.linalg.gmres``: left preconditioning by ``M`` (approximating ``A^{-1}``),
    modified Gram-Schmidt Arnoldi with Givens rotations; ``restart`` inner iterations per cycle
    (default ``min(20, n)``), at most ``maxiter`` cycles (default ``10 * n``). An inner cycle
    stops when the preconditioned residual estimate meets scipy's adaptive inner tolerance; after
    each cycle the true residual is computed and the solve has converged when
    ``||b - A x|| <= max(atol, rtol * ||b||)``.

    ``callback_type``: ``'pr_norm'`` calls ``callback(||M r|| / ||b||)`` (the preconditioned
    residual estimate relative to ``||b||``) after every inner iteration; ``'x'`` calls
    ``callback(xk)`` after every restart cycle; ``'legacy'`` is ``'pr_norm'`` with ``maxiter``
    counting inner iterations. ``None`` means ``'pr_norm'`` (scipy's None means ``'legacy'``
    with a DeprecationWarning announcing this change).

    Returns ``(x, info)``: ``info`` 0 converged, else ``maxiter`` (also when an Arnoldi breakdown
    ends the solve short of the tolerance, as scipy).

    One host read per inner iteration: the new Hessenberg column, with ``||w||`` before and after
    Gram-Schmidt, in one copy (plus the true residual's norm per restart cycle, and its
    preconditioned form's with ``M``); the Givens rotations and the small triangular solve run on
    the host.

    >>> import numpy as np, sparray
    >>> A = sparray.asarray(np.array([[4.0, 1.0, 0.0], [-1.0, 3.0, 1.0], [0.0, -2.0, 5.0]]), layout="coo")
    >>> x, info = gmres(A, np.ones(3), rtol=1e-10)
    >>> info, np.allclose(A @ x, np.ones(3))
    (0, True)
    """
    who = "sparray.linalg.gmres"
    if callback_type is None:
        callback_type = "pr_norm"
    if callback_type not in ("x", "pr_norm", "legacy"):
        raise ValueError(f"{who}: callback_type must be 'x', 'pr_norm', 'legacy' or None; got {callback_type!r}")
    if callback is None:
        callback_type = None
    system, maxiter, bnrm, tol = _start(who, A, b, x0, M, rtol, atol, maxiter, callback)
    vec, matvec, psolve, x = system.vec, system.matvec, system.psolve, system.x
    n = system.n
    restart = min(_count(who, "restart", restart, 20), n)
    if tol is None:
        return vec.zeros(), 0
    eps = vec.eps
    dot, sqnorm, axpy, read, sqrt = vec.dot, vec.sqnorm, vec.axpy, vec.read, math.sqrt
    host = np.complex128 if vec.complex else np.float64
    Mb_nrm = bnrm if psolve is None else vec.norm(psolve(system.b))
    ptol_max_factor = 1.0
    ptol = Mb_nrm * min(ptol_max_factor, tol / bnrm)
    presid = 0.0
    inner_iter = 0
    rnorm = math.inf
    r = None

    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        for iteration in range(maxiter):
            if iteration == 0:
                r = system.residual()
                rnorm = vec.norm(r)
                if rnorm <= tol:
                    return x, 0
            z = r if psolve is None else psolve(r)
            znrm = rnorm if psolve is None else vec.norm(z)  # ||r||, read already
            V = [z * (1.0 / znrm)]
            H = np.zeros((restart, restart + 1), dtype=host)  # H[j, :] is column j of the Hessenberg matrix
            S = np.zeros(restart + 1, dtype=host)
            S[0] = znrm
            givens = []
            breakdown = False
            col = 0
            for col in range(restart):
                av = matvec(V[col])
                w = av if psolve is None else psolve(av)  # not a view of V[col]: see _product
                h0sq = sqnorm(w)
                hs = []
                for k in range(col + 1):
                    hk = dot(V[k], w)
                    hs.append(hk)
                    axpy(w, -hk, V[k])
                vals = read(*hs, h0sq, sqnorm(w))
                h0 = sqrt(abs(vals[-2]))
                h1 = sqrt(abs(vals[-1]))
                hcol = vals[:-2]
                if h1 <= eps * h0:
                    hcol.append(0.0)
                    breakdown = True
                    V.append(w)
                else:
                    hcol.append(h1)
                    V.append(w * (1.0 / h1))
                for k, (c, s) in enumerate(givens):  # the past rotations
                    n0, n1 = hcol[k], hcol[k + 1]
                    hcol[k], hcol[k + 1] = c * n0 + s * n1, -s.conjugate() * n0 + c * n1
                c, s, mag = _givens(hcol[col], hcol[col + 1])
                givens.append((c, s))
                hcol[col], hcol[col + 1] = mag, 0.0
                H[col, : col + 2] = hcol
                tmp = -s.conjugate() * S[col]
                S[col] = c * S[col]
                S[col + 1] = tmp
                presid = abs(tmp)
                inner_iter += 1
                if callback_type in ("legacy", "pr_norm"):
                    callback(presid / bnrm)
                if callback_type == "legacy" and inner_iter == maxiter:
                    break
                if presid <= ptol or breakdown:
                    break

            # back substitution with the upper triangular H[:col+1, :col+1] (transposed storage),
            # a zero last pivot giving a zero last coefficient (the singular case)
            if H[col, col] == 0:
                S[col] = 0
            y = S[: col + 1].copy()
            for k in range(col, 0, -1):
                if y[k] != 0:
                    y[k] /= H[k, k]
                    y[:k] -= y[k] * H[k, :k]
            if y[0] != 0:
                y[0] /= H[0, 0]
            for k in range(col + 1):
                yk = y[k].item()
                if yk != 0:
                    axpy(x, yk, V[k])

            r = system.b - matvec(x)
            rnorm = vec.norm(r)
            if callback_type == "legacy" and inner_iter == maxiter:
                return x, (0 if rnorm <= tol else maxiter)
            if callback_type == "x":
                callback(x)
            if rnorm <= tol:
                break
            if breakdown:  # an exact solution of the preconditioned system, yet b - A x is too large
                break
            if presid <= ptol:  # the inner loop met its tolerance, the true residual did not
                ptol_max_factor = max(eps, 0.25 * ptol_max_factor)
            else:
                ptol_max_factor = min(1.0, 1.5 * ptol_max_factor)
            ptol = presid * min(ptol_max_factor, tol / rnorm)
    return x, (0 if rnorm <= tol else maxiter)
