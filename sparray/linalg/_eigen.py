"""A few extreme eigenpairs of a Hermitian operator (``eigsh``) and singular triplets (``svds``).

The method: thick-restart Lanczos with full reorthogonalization.

1. Lanczos extends an orthonormal basis ``V`` (``m + 1`` rows of length ``n``, ``m = ncv``) of the
   Krylov space of the operator from a start vector. Each step is one operator product ``w = A v_j``,
   the three-term recurrence ``w -= alpha_j v_j + beta_{j-1} v_{j-1}``, then one pass of classical
   Gram-Schmidt of ``w`` against all the rows so far (full reorthogonalization: the recurrence was
   the first pass, so this is the second of "twice is enough"), then ``v_{j+1} = w / beta_j``. A
   step whose ``beta_j`` cancelled below ``sqrt(eps) ||A v_j||`` gets one more pass (seen when the
   cycle's coefficients are read; the steps after it are redone). The projected matrix
   ``T = V^H A V`` is real symmetric tridiagonal (``alpha_j`` on the diagonal, ``beta_j`` beside
   it), also for complex Hermitian operators.
2. When ``m`` rows are built, the small ``m x m`` eigenproblem ``T = Y diag(theta) Y^T`` is solved
   on the host with NumPy. The Ritz pair ``(theta_i, V^T y_i)`` has the residual norm
   ``||A x_i - theta_i x_i|| = |beta_m y_{m,i}|`` (no product needed).
3. Unless the ``k`` wanted Ritz pairs (by ``which``) have converged, the basis is restarted
   ("thick restart", Wu & Simon 2000): the ``l`` best Ritz vectors are kept (``k`` plus up to half
   the free room, more as more pairs converge, as ARPACK adjusts its kept count; at least half the
   basis for ``"SM"``), followed by ``v_m``. ``T`` becomes diagonal in its first ``l`` rows plus
   an arrow of couplings ``beta_m y_{m,i}`` to row ``l``, and Lanczos continues from row ``l``. A
   restart keeps the information of the whole previous basis in the Ritz vectors it keeps, like
   ARPACK's implicit restart with exact shifts.
4. Once the ``k`` wanted pairs have converged, a last Rayleigh-Ritz on their ``k`` vectors (``k``
   more products) makes the returned values the Rayleigh quotients of the returned vectors: the
   rounding the restarts accumulate in ``T`` (about ``eps ||A||`` per cycle) stays out of them.

A breakdown (``beta_j`` at rounding level: the basis spans an invariant subspace) sets the coupling
to 0 and continues with a random vector orthogonal to the basis, so a small matrix (``ncv = n``) is
solved exactly in one pass and a start vector inside an invariant subspace cannot stall.

Convergence: pair ``i`` has converged when ``|beta_m y_{m,i}| <= tol * max(|theta_i|, eps**(2/3) *
||A||_est)`` with ``||A||_est`` the largest ``|theta|`` seen; ``tol = 0`` means the machine epsilon
of the working precision (float32 for float32 and complex64 operators). That is ARPACK's test,
with its absolute floor scaled by the operator's size so that a zero eigenvalue converges.
``maxiter`` counts the restart cycles (each builds the basis up to ``m`` rows, the first from
scratch); when they are spent, :class:`NoConvergence` is raised carrying the pairs that did
converge: never an unconverged value.

Everything of size ``n`` lives in the operator's array namespace (NumPy, CuPy, array_api_strict):
the basis, the products, the projections; the code uses only array-API functions. The host reads
one small array of Lanczos coefficients per cycle (not one per product) and sends the ``m x l``
restart rotation back.

>>> import numpy as np, sparray
>>> from sparray.linalg._eigen import eigsh
>>> A = sparray.asarray(np.diag(np.arange(1.0, 31.0)), layout="csr")
>>> w = eigsh(A, k=3, which="SA", return_eigenvectors=False)
>>> np.round(w, 8).tolist()
[1.0, 2.0, 3.0]
"""

from __future__ import annotations

import contextlib
import numbers

import array_api_compat
import numpy as np

from .._core import dtypes as _dtypes
from .._core.namespace import is_array, namespace_of, to_numpy
from ._operator import as_operator, as_vector, check_finite, norm, solver_dtype

__all__ = ["NoConvergence", "eigsh", "svds"]

EIGSH = "sparray.linalg.eigsh"
SVDS = "sparray.linalg.svds"
WHICH = ("LM", "SM", "LA", "SA", "BE")
_SEED = 20240917  # the start vectors and the breakdown vectors: deterministic, like ARPACK's own generator


class NoConvergence(RuntimeError):
    """The eigensolver did not converge within ``maxiter`` restart cycles.

    ``eigenvalues`` (ascending) and ``eigenvectors`` (columns; None when not asked for) hold the
    wanted pairs that did converge, arrays of the operator's namespace (possibly empty). For
    ``svds`` they are the pairs of the Gram operator (``A^H A`` or ``A A^H``): squared singular
    values and the singular vectors of the smaller side."""

    def __init__(self, msg, eigenvalues=None, eigenvectors=None):
        super().__init__(msg)
        self.eigenvalues = eigenvalues
        self.eigenvectors = eigenvectors


@contextlib.contextmanager
def _serial_products(op):
    """numba on one thread (of the calling thread) while Lanczos runs on a NumPy sparray operator.

    Each step's reorthogonalization is a BLAS product against the whole basis, which OpenBLAS
    threads; its threads keep spinning after each call and starve the next parallel sparse
    product of numba's pool (2-D Poisson, 1e4 unknowns, 2 cores: 1.8 s, against 0.4 s with the
    products on one thread). With one numba thread the products take the serial kernels."""
    if op.kind != "sparse" or type(getattr(op.A, "values", None)) is not np.ndarray:
        yield
        return
    from ..kernels.cpu._threads import team

    with team(0):  # no work counts as small: one thread
        yield


def eigsh(
    A,
    k=6,
    M=None,
    sigma=None,
    which="LM",
    v0=None,
    ncv=None,
    maxiter=None,
    tol=0,
    return_eigenvectors=True,
    Minv=None,
    OPinv=None,
    mode="normal",
):
    """``k`` eigenvalues and eigenvectors of the Hermitian operator ``A``, by thick-restart Lanczos.

    ``A``: a square sparray array (any layout, any fill value: the fill is part of the products), a
    dense square array of any array-API namespace, or an operator object with ``shape``, ``dtype``
    and ``@`` (scipy's ``LinearOperator``). It must be Hermitian (not checked).

    ``which``: ``"LM"``/``"SM"`` the largest/smallest magnitude, ``"LA"``/``"SA"`` the largest/
    smallest algebraic value, ``"BE"`` both ends (one more from the high end for odd ``k``). As
    with ARPACK, interior eigenvalues (``"SM"`` of an indefinite operator) converge slowly: use
    shift-invert.

    Shift-invert: with ``sigma`` (a real number) and ``OPinv`` (an operator applying
    ``(A - sigma I)^-1``, e.g. a ``LinearOperator`` around ``scipy.sparse.linalg.splu(...).solve``)
    the method runs on ``OPinv`` and ``which`` applies to ``1 / (w - sigma)``: ``"LM"`` gives the
    eigenvalues nearest ``sigma``. Only ``mode="normal"`` is supported; generalized problems
    (``M``, ``Minv``) are not.

    ``k``: 1 <= k < n. ``ncv`` (the basis size ``m``): k < ncv <= n, default
    ``min(n, max(2k + 1, 20))``; with ``ncv = n`` the basis spans the whole space and the result is
    exact after one cycle (use it for a small ``n``). ``maxiter``: restart cycles, default
    ``max(10 n, 1000)``.
    ``tol``: relative accuracy of the Ritz residuals, ``||A x - w x|| <= tol * |w|`` as Lanczos
    estimates it (0: machine epsilon; the true residual does not go below a few ``eps ||A||``).
    ``v0``: the start vector (length ``n``, not zero), default a fixed pseudo-random one.

    Returns ``(w, v)``: ``w`` the ``k`` eigenvalues in ascending order (real dtype of the working
    precision), ``v`` an ``(n, k)`` array whose orthonormal columns are the eigenvectors; or ``w``
    alone with ``return_eigenvectors=False``. Arrays of the operator's namespace (NumPy for an
    operator object, unless ``v0`` is an array of another namespace). Raises
    :class:`NoConvergence` after ``maxiter`` cycles without convergence.

    >>> import numpy as np, sparray
    >>> n = 50
    >>> D = 2 * np.eye(n) - np.eye(n, k=1) - np.eye(n, k=-1)
    >>> A = sparray.asarray(D, layout="csr")
    >>> w, v = eigsh(A, k=2, which="LA")
    >>> bool(np.allclose(w, np.linalg.eigvalsh(D)[-2:])), v.shape
    (True, (50, 2))
    >>> bool(np.linalg.norm(D @ v - v * w) < 1e-10)
    True
    """
    op = as_operator(EIGSH, A, name="A", square=True)
    n = op.shape[0]
    k = _check_k(EIGSH, k, n)
    which = _check_which(EIGSH, which, WHICH)
    if M is not None or Minv is not None:
        raise ValueError(
            f"{EIGSH}: generalized eigenproblems (M, Minv) are not supported; got "
            f"{'M' if M is not None else 'Minv'} = {type(M if M is not None else Minv).__name__}. Reduce to a "
            "standard problem (e.g. with a Cholesky factor L of M, the operator L^-1 A L^-H) and pass M=None"
        )
    if mode != "normal":
        raise ValueError(f"{EIGSH}: only mode='normal' is supported (no M, so no buckling or cayley modes); got {mode!r}")
    if sigma is not None:
        if isinstance(sigma, bool) or not isinstance(sigma, numbers.Real):
            raise TypeError(f"{EIGSH}: sigma must be a real number (A is Hermitian); got {sigma!r}")
        if OPinv is None:
            raise ValueError(
                f"{EIGSH}: sigma={sigma!r} asks for shift-invert mode, which needs (A - sigma I)^-1 applied to "
                "vectors, i.e. a factorization: pass OPinv=, an operator (shape, dtype, @) applying it, e.g. a "
                "scipy LinearOperator around scipy.sparse.linalg.splu(A - sigma * I).solve. Without it, use "
                "which='SA'/'LA'/'SM'/'LM' on A itself"
            )
        opinv = as_operator(EIGSH, OPinv, name="OPinv", square=True)
        if opinv.shape != op.shape:
            raise ValueError(f"{EIGSH}: OPinv must have A's shape {op.shape}; got {opinv.shape}")
        run = opinv
    else:
        if OPinv is not None:
            raise ValueError(f"{EIGSH}: OPinv is the shift-invert operator (A - sigma I)^-1; pass sigma with it")
        opinv, run = None, op
    xp = _namespace(EIGSH, v0, op, opinv)
    dtype = solver_dtype(xp, op.dtype, None if opinv is None else opinv.dtype, _dtype_of(v0))
    ncv = _check_ncv(EIGSH, ncv, k, n)
    maxiter = _check_maxiter(EIGSH, maxiter, n)
    tol = _check_tol(EIGSH, tol)
    v0 = _start_vector(EIGSH, v0, xp, n, dtype, np.random.default_rng(_SEED))
    with _serial_products(run):
        theta, X, _ = _lanczos(EIGSH, _product(run, xp, dtype), n, xp, dtype, k, which, ncv, v0, tol, maxiter,
                               bool(return_eigenvectors), sigma=sigma)  # fmt: skip
    w = _host_to(xp, theta, _real(xp, dtype), v0)
    if not return_eigenvectors:
        return w
    return w, xp.matrix_transpose(X)


def svds(
    A,
    k=6,
    ncv=None,
    tol=0,
    which="LM",
    v0=None,
    maxiter=None,
    return_singular_vectors=True,
    solver="arpack",
    random_state=None,
    options=None,
):
    """``k`` singular values and vectors of the ``(M, N)`` operator ``A`` (rectangular allowed).

    Runs :func:`eigsh`'s thick-restart Lanczos on the Gram operator of the smaller side (``A^H A``
    when ``N <= M``, else ``A A^H``; each step one product with ``A`` and one with ``A^H``), then
    takes ``s_i = ||A v_i||`` (or ``||A^H u_i||``) and the other side's vectors from one more
    product each, orthonormalized (a QR in descending ``s`` order, so a zero singular value still gets
    an orthonormal vector). Every ``solver`` name of scipy (``"arpack"``, ``"lobpcg"``,
    ``"propack"``) runs this same Lanczos. ``A``: a sparray array (any layout and fill), a dense
    array, or an operator object with ``rmatvec`` or ``H`` for the products with ``A^H``.

    ``which``: ``"LM"`` (largest) or ``"SM"`` (smallest; through the Gram operator a singular value
    near ``eps ||A||`` and below is inaccurate, as with ARPACK). ``k``: 1 <= k < min(M, N).
    ``ncv``, ``tol``, ``maxiter``: as :func:`eigsh`'s on the Gram operator (the relative tolerance
    bears on ``s**2``). ``v0``: length ``min(M, N)``. ``random_state`` seeds the default start vector
    (an int or a ``numpy.random.Generator``); ``options`` must be None or empty.

    Returns ``(u, s, vh)`` as scipy does: ``s`` the ``k`` singular values in ascending order, ``u``
    ``(M, k)`` and ``vh`` ``(k, N)`` with orthonormal columns / rows, ``A @ vh[i].conj() = s[i] *
    u[:, i]``; ``s`` alone with ``return_singular_vectors=False``; ``(u, s, None)`` with ``"u"``
    and ``(None, s, vh)`` with ``"vh"``. Raises :class:`NoConvergence` (carrying the Gram
    operator's converged pairs) after ``maxiter`` cycles.

    >>> import numpy as np, sparray
    >>> D = np.zeros((6, 4)); D[0, 0], D[1, 1], D[2, 2], D[3, 3] = 1.0, 4.0, 2.0, 3.0
    >>> u, s, vh = svds(sparray.asarray(D, layout="csc"), k=2)
    >>> np.round(s, 8).tolist(), u.shape, vh.shape
    ([3.0, 4.0], (6, 2), (2, 4))
    """
    op = as_operator(SVDS, A, name="A", square=False)
    Mrows, Ncols = op.shape
    n = min(Mrows, Ncols)
    if n < 2:
        raise ValueError(f"{SVDS}: A must have at least 2 rows and 2 columns (k < min(M, N)); got shape {op.shape}")
    k = _check_k(SVDS, k, n, bound="min(M, N)")
    which = _check_which(SVDS, which, ("LM", "SM"))
    if not isinstance(solver, str) or solver.lower() not in ("arpack", "lobpcg", "propack"):
        raise ValueError(f"{SVDS}: solver must be 'arpack', 'lobpcg' or 'propack' (all run Lanczos here); got {solver!r}")
    if options is not None and (not isinstance(options, dict) or options):
        raise ValueError(
            f"{SVDS}: options are solver-specific in scipy and this Lanczos takes none; pass None, got {options!r}"
        )
    if return_singular_vectors not in (True, False, "u", "vh"):
        raise ValueError(
            f"{SVDS}: return_singular_vectors must be True, False, 'u' or 'vh'; got {return_singular_vectors!r}"
        )
    xp = _namespace(SVDS, v0, op, None)
    dtype = solver_dtype(xp, op.dtype, _dtype_of(v0))
    ncv = _check_ncv(SVDS, ncv, k, n)
    maxiter = _check_maxiter(SVDS, maxiter, n)
    tol = _check_tol(SVDS, tol)
    if random_state is None or isinstance(random_state, (numbers.Integral, np.random.Generator)):
        rng = np.random.default_rng(_SEED if random_state is None else random_state)
    else:
        raise TypeError(
            f"{SVDS}: random_state must be None, an int or a numpy.random.Generator; got {type(random_state).__name__}"
        )
    v0 = _start_vector(SVDS, v0, xp, n, dtype, rng)
    fwd, back = _product(op, xp, dtype), _product(op, xp, dtype, adjoint=True)
    gram_right = Ncols <= Mrows  # A^H A on N-vectors, else A A^H on M-vectors
    first, second = (fwd, back) if gram_right else (back, fwd)

    def gram(x):
        return second(first(x))

    _, X, _ = _lanczos(SVDS, gram, n, xp, dtype, k, "LA" if which == "LM" else "SA", ncv, v0, tol, maxiter, True, rng=rng)
    # the other side: Y[i] = first(X[i]) = s_i * (unit vector); s_i from it (more accurate than sqrt(theta))
    Y = xp.stack([first(X[i, :]) for i in range(k)])
    s = to_numpy(xp.linalg.vector_norm(Y, axis=1)).astype(np.float64)
    desc = np.argsort(-s, kind="stable")
    Y, X, s = _take_rows(xp, Y, desc, v0), _take_rows(xp, X, desc, v0), s[desc]
    Q, R = xp.linalg.qr(xp.matrix_transpose(Y))  # (len, k): columns in descending s
    d = to_numpy(xp.linalg.diagonal(R))
    mag = np.abs(d)
    phase = np.where(mag > 0, d / np.where(mag > 0, mag, 1), 1).astype(np.dtype(_dtypes.dtype_name(dtype)))
    Q = Q * _host_to(xp, phase, dtype, v0)
    Yu = xp.matrix_transpose(Q)  # rows: unit vectors of the other side
    asc = np.arange(k)[::-1]
    Yu, X, s = _take_rows(xp, Yu, asc, v0), _take_rows(xp, X, asc, v0), s[asc]
    right, left = (X, Yu) if gram_right else (Yu, X)
    s_out = _host_to(xp, s, _real(xp, dtype), v0)
    if return_singular_vectors is False:
        return s_out
    u = xp.matrix_transpose(left)
    vh = xp.conj(right) if _is_complex(dtype) else right
    if return_singular_vectors == "u":
        return u, s_out, None
    if return_singular_vectors == "vh":
        return None, s_out, vh
    return u, s_out, vh


# --------------------------------------------------------------------------------------------
# the engine


def _lanczos(who, matvec, n, xp, dtype, k, which, m, v0, tol, maxiter, want_vectors, *, sigma=None, rng=None):
    """Thick-restart Lanczos: the ``k`` wanted Ritz values (host float64, ascending; mapped to
    ``sigma + 1/theta`` in shift-invert mode), their vectors as the rows of a ``(k, n)`` array of
    ``xp`` (None unless ``want_vectors``) and counts ``{"matvecs", "cycles"}``."""
    rng = np.random.default_rng(_SEED + 1) if rng is None else rng
    np_dtype = np.dtype(_dtypes.dtype_name(dtype))
    cplx = np_dtype.kind == "c"
    eps = float(np.finfo(np_dtype).eps)
    tol = eps if tol == 0 else float(tol)
    floor = eps ** (2.0 / 3.0)
    real = _real(xp, dtype)
    tiny = _host_to(xp, np.asarray(np.finfo(np_dtype).tiny), real, v0)
    V = xp.zeros((m + 1, n), dtype=dtype, device=array_api_compat.device(v0))
    V[0, :] = v0 / xp.astype(xp.linalg.vector_norm(v0), dtype) if cplx else v0 / xp.linalg.vector_norm(v0)
    T = np.zeros((m, m))
    anorm = 0.0
    start, cycles, matvecs = 0, 0, 0
    while True:
        cycles += 1
        # ---- extend the basis from row `start` to row m (redone from a breakdown)
        j, b = start, None  # b: row i's coupling to row i - 1 (None: none; row `start` takes the arrow)
        while True:
            coeffs = []
            for i in range(j, m):
                w = matvec(V[i, :])
                wn = _norm(xp, w, cplx)
                a = xp.vecdot(V[i, :], w)
                a = xp.real(a) if cplx else a
                # the three-term recurrence (the arrow of couplings to the kept Ritz vectors on the first
                # step after a restart), then one pass of classical Gram-Schmidt against the whole basis
                w = w - a * V[i, :]
                if i == start and start > 0:
                    w = w - _host_to(xp, arrow, dtype, v0) @ V[:start, :]
                elif b is not None:
                    w = w - b * V[i - 1, :]
                Vi = V[: i + 1, :]
                h = _project(xp, Vi, w, cplx)
                w = w - h @ Vi
                a = a + (xp.real(h[i]) if cplx else h[i])
                b = _norm(xp, w, cplx)
                V[i + 1, :] = w / (xp.astype(xp.maximum(b, tiny), dtype) if cplx else xp.maximum(b, tiny))
                coeffs += [a, b, wn]
            matvecs += m - j
            c = to_numpy(xp.stack(coeffs)).astype(np.float64).reshape(m - j, 3)
            alpha, beta, wnorm = c[:, 0], c[:, 1], c[:, 2]
            if not (np.all(np.isfinite(c))):
                raise FloatingPointError(f"{who}: the operator products gave nan or inf (is A finite?)")
            idx = np.arange(j, m)
            T[idx, idx] = alpha
            T[idx[:-1] + 1, idx[:-1]] = T[idx[:-1], idx[:-1] + 1] = beta[:-1]
            scale = np.maximum(wnorm, max(anorm, float(np.max(np.abs(alpha)))))
            broken = np.nonzero(beta <= 100 * eps * scale)[0]
            weak = np.nonzero(beta <= np.sqrt(eps) * wnorm)[0]
            if broken.size and broken[0] < m - j - 1:  # an invariant subspace inside the basis: restart it
                b0 = j + int(broken[0])
                T[b0 + 1, b0] = T[b0, b0 + 1] = 0.0
                V[b0 + 1, :] = _random_orthogonal(xp, V[: b0 + 1, :], n, dtype, cplx, rng, v0)
                j, b = b0 + 1, None
                continue
            if weak.size and not (broken.size and broken[0] == weak[0]):
                # a large cancellation: one pass may leave v_{b+1} short of orthogonal. A second pass
                # (v_{b+1} = u + V_b h, u orthogonal to V_b: alpha_b gains beta_b h_b, beta_b becomes
                # beta_b ||u||), then the steps after it again
                b0 = j + int(weak[0])
                Vb = V[: b0 + 1, :]
                h = _project(xp, Vb, V[b0 + 1, :], cplx)
                u = V[b0 + 1, :] - h @ Vb
                nu = xp.linalg.vector_norm(u)
                V[b0 + 1, :] = u / (xp.astype(nu, dtype) if cplx else nu)
                hb, nb = (float(x) for x in to_numpy(xp.stack([xp.real(h[b0]) if cplx else h[b0], nu])))
                T[b0, b0] += beta[b0 - j] * hb
                beta[b0 - j] *= nb
                if b0 < m - 1:
                    T[b0 + 1, b0] = T[b0, b0 + 1] = beta[b0 - j]
                    b = _host_to(xp, np.asarray(beta[b0 - j]), _real(xp, dtype), v0)
                    j = b0 + 1
                    continue
            beta_m = 0.0 if broken.size else float(beta[-1])
            break
        # ---- the projected problem on the host
        theta, Y = np.linalg.eigh(T)
        anorm = max(anorm, float(np.max(np.abs(theta))))
        order = _order(theta, which)
        res = np.abs(beta_m * Y[m - 1, :])
        wanted = order[:k]
        ok = res[wanted] <= tol * np.maximum(np.abs(theta[wanted]), floor * anorm)
        nconv = int(np.count_nonzero(ok))
        if nconv == k or cycles >= maxiter:
            sel = wanted if nconv == k else wanted[ok]
            sel = sel[np.argsort(theta[sel], kind="stable")]
            vals, X = theta[sel], None
            if nconv == k:
                # a last Rayleigh-Ritz on the k vectors with k fresh products: the values become Rayleigh
                # quotients of the returned vectors, free of the rounding the restarts accumulate in T
                X = _host_to(xp, np.ascontiguousarray(Y[:, sel].T), dtype, v0) @ V[:m, :]
                vals, X = _rayleigh_ritz(xp, matvec, X, dtype, cplx, v0)
                matvecs += k
            elif want_vectors:
                X = _host_to(xp, np.ascontiguousarray(Y[:, sel].T), dtype, v0) @ V[:m, :]
            if sigma is not None:
                vals = sigma + 1.0 / vals
                o = np.argsort(vals, kind="stable")
                vals = vals[o]
                if X is not None and sel.size:
                    X = _take_rows(xp, X, o, v0)
            if nconv == k:
                return vals, X if want_vectors else None, {"matvecs": matvecs, "cycles": cycles}
            raise NoConvergence(
                f"{who}: no convergence in maxiter={maxiter} restart cycles ({matvecs} operator products, basis "
                f"size ncv={m}): {nconv} of the k={k} wanted eigenpairs converged to tol={tol:.3g}. Raise maxiter or "
                "ncv, or loosen tol; the error's eigenvalues/eigenvectors attributes hold the converged pairs",
                _host_to(xp, vals, real, v0),
                None if X is None else xp.matrix_transpose(X),
            )
        # ---- thick restart: keep the l best Ritz vectors and the residual direction
        l = _kept(k, m, nconv, which)
        keep = order[:l]
        Yk = _host_to(xp, np.ascontiguousarray(Y[:, keep].T), dtype, v0)
        V[:l, :] = Yk @ V[:m, :]
        if beta_m > 0:
            V[l, :] = V[m, :]
        else:
            V[l, :] = _random_orthogonal(xp, V[:l, :], n, dtype, cplx, rng, v0)
        T[:] = 0.0
        T[np.arange(l), np.arange(l)] = theta[keep]
        arrow = beta_m * Y[m - 1, keep]
        T[l, :l] = T[:l, l] = arrow
        start = l


def _rayleigh_ritz(xp, matvec, X, dtype, cplx, like):
    """The Ritz pairs of the operator on the span of the rows of ``X`` (orthonormal): the values
    (host float64, ascending) and the rotated rows."""
    k = X.shape[0]
    AX = xp.stack([matvec(X[i, :]) for i in range(k)])
    G = to_numpy((xp.conj(X) if cplx else X) @ xp.matrix_transpose(AX))
    G = np.asarray(G, dtype=np.complex128 if cplx else np.float64)
    vals, Z = np.linalg.eigh((G + G.conj().T) / 2)
    return vals, _host_to(xp, np.ascontiguousarray(Z.T), dtype, like) @ X


def _kept(k, m, nconv, which):
    """How many Ritz vectors a restart keeps: ``k`` plus up to half the free room as pairs converge
    (ARPACK's adjustment, half the basis for ``k = 1``); at least half the basis for ``"SM"``, whose
    interior Ritz values are unreliable until the space is rich (measured: keeping fewer misses or
    stalls on the eigenvalues nearest 0)."""
    l = k + min(nconv, (m - k) // 2)
    if k == 1:
        l = max(l, m // 2)
    if which == "SM":
        l = max(l, m // 2)
    return max(k, min(l, m - 1))


def _norm(xp, w, cplx):
    """``||w||`` as ``sqrt(w^H w)``: NumPy's own vector norm of a 1-D array without its wrappers (a
    Lanczos step takes two; at 1e4 unknowns the wrappers cost 10 us each, a fifth of the step)."""
    d = xp.vecdot(w, w)
    return xp.sqrt(xp.real(d) if cplx else d)


def _project(xp, Vi, w, cplx):
    """``Vi^H w`` (the rows of ``Vi`` are the basis vectors)."""
    return xp.conj(Vi @ xp.conj(w)) if cplx else Vi @ w


def _random_orthogonal(xp, Vb, n, dtype, cplx, rng, like):
    """A unit vector orthogonal to the rows of ``Vb`` (a random one, orthogonalized twice)."""
    r = rng.standard_normal(n)
    if cplx:
        r = r + 1j * rng.standard_normal(n)
    w = _host_to(xp, r, dtype, like)
    for _ in range(2):
        w = w - _project(xp, Vb, w, cplx) @ Vb
    nw = xp.linalg.vector_norm(w)
    return w / (xp.astype(nw, dtype) if cplx else nw)


def _order(theta, which):
    """Indices of the ascending Ritz values ``theta``, best first for ``which``."""
    n = theta.shape[0]
    if which == "LA":
        return np.arange(n)[::-1]
    if which == "SA":
        return np.arange(n)
    if which == "LM":
        return np.argsort(-np.abs(theta), kind="stable")
    if which == "SM":
        return np.argsort(np.abs(theta), kind="stable")
    out = np.empty(n, dtype=np.intp)  # BE: high end, low end, high end, ...
    out[0::2] = np.arange(n)[::-1][: (n + 1) // 2]
    out[1::2] = np.arange(n)[: n // 2]
    return out


# --------------------------------------------------------------------------------------------
# helpers


def _product(op, xp, dtype, adjoint=False):
    """``v -> A v`` (or ``A^H v``) giving a vector of ``xp`` and ``dtype`` (checked once)."""
    f = op.rmatvec if adjoint else op.matvec
    checked = []

    def mv(v):
        y = f(v)
        if not checked:
            if not is_array(y) or namespace_of(y) is not xp:
                raise TypeError(
                    f"{op.who}: {op.name} {'^H ' if adjoint else ''}@ v must give an array of {xp.__name__} for a "
                    f"vector of it; got {type(y).__module__}.{type(y).__name__}"
                )
            checked.append(True)
        if y.dtype != dtype:
            y = xp.astype(y, dtype)
        return y

    return mv


def _namespace(who, v0, *ops):
    """The vectors' namespace: the operators' (they must agree), else ``v0``'s, else NumPy."""
    spaces = {o.xp for o in ops if o is not None and o.xp is not None}
    if len(spaces) > 1:
        raise TypeError(f"{who}: A and OPinv hold arrays of different namespaces: {sorted(s.__name__ for s in spaces)}")
    if spaces:
        return spaces.pop()
    if v0 is not None and is_array(v0) and not hasattr(v0, "layout"):
        return namespace_of(v0)
    return namespace_of()


def _dtype_of(v0):
    return getattr(v0, "dtype", None) if v0 is not None and not isinstance(v0, (list, tuple)) else None


def _start_vector(who, v0, xp, n, dtype, rng):
    if v0 is None:
        r = rng.standard_normal(n)
        if np.dtype(_dtypes.dtype_name(dtype)).kind == "c":
            r = r + 1j * rng.standard_normal(n)
        probe = xp.zeros((1,), dtype=dtype)
        return _host_to(xp, r, dtype, probe)
    v = as_vector(who, v0, xp, n, name="v0", dtype=dtype)
    check_finite(who, v, name="v0")
    if norm(xp, v) == 0:
        raise ValueError(f"{who}: v0 must not be the zero vector")
    return v


def _check_k(who, k, n, bound="n"):
    if isinstance(k, bool) or not isinstance(k, numbers.Integral):
        raise TypeError(f"{who}: k must be an integer; got {type(k).__name__}")
    k = int(k)
    if not 1 <= k < n:
        raise ValueError(
            f"{who}: k must satisfy 1 <= k < {bound} = {n}; got k={k} (for all eigenpairs of a small matrix "
            "use eigh)"
        )
    return k


def _check_which(who, which, allowed):
    if not isinstance(which, str) or which.upper() not in allowed:
        raise ValueError(f"{who}: which must be one of {', '.join(repr(a) for a in allowed)}; got {which!r}")
    return which.upper()


def _check_ncv(who, ncv, k, n):
    if ncv is None:
        return min(n, max(2 * k + 1, 20))
    if isinstance(ncv, bool) or not isinstance(ncv, numbers.Integral):
        raise TypeError(f"{who}: ncv must be an integer; got {type(ncv).__name__}")
    if not k < int(ncv) <= n:
        raise ValueError(f"{who}: ncv must satisfy k < ncv <= n, here {k} < ncv <= {n}; got ncv={int(ncv)}")
    return int(ncv)


def _check_maxiter(who, maxiter, n):
    if maxiter is None:
        return max(10 * n, 1000)
    if isinstance(maxiter, bool) or not isinstance(maxiter, numbers.Integral):
        raise TypeError(f"{who}: maxiter must be an integer; got {type(maxiter).__name__}")
    if int(maxiter) < 1:
        raise ValueError(f"{who}: maxiter must be at least 1 (restart cycles); got {int(maxiter)}")
    return int(maxiter)


def _check_tol(who, tol):
    if isinstance(tol, bool) or not isinstance(tol, numbers.Real):
        raise TypeError(f"{who}: tol must be a real number; got {type(tol).__name__}")
    if not tol >= 0:
        raise ValueError(f"{who}: tol must be >= 0 (0: machine precision); got {tol}")
    return float(tol)


def _real(xp, dtype):
    name = np.dtype(_dtypes.dtype_name(dtype)).name
    return getattr(xp, {"complex64": "float32", "complex128": "float64"}.get(name, name))


def _is_complex(dtype):
    return np.dtype(_dtypes.dtype_name(dtype)).kind == "c"


def _host_to(xp, a, dtype, like):
    """The host array ``a`` as an array of ``xp`` with ``dtype`` on ``like``'s device."""
    a = np.asarray(a, dtype=np.dtype(_dtypes.dtype_name(dtype)))
    return xp.asarray(a, device=array_api_compat.device(like))


def _take_rows(xp, X, idx, like):
    return xp.take(X, _host_to(xp, np.asarray(idx, dtype=np.int64), xp.int64, like), axis=0)
