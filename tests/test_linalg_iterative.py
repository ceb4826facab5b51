"""The Krylov solvers of sparray.linalg._iterative (cg, minres, gmres, bicgstab) against
scipy.sparse.linalg: the same iteration counts (callback counts within one), the same info, and
solutions that agree with scipy.sparse.linalg.spsolve to the tolerance asked.

Systems: SPD (2-D Poisson, random SPD), nonsymmetric (convection-diffusion, random diagonally
dominant) and symmetric indefinite (shifted Poisson; minres and gmres). Every layout with fill 0
and with a non-zero fill (the matrix is then D + 0.01 wherever D has no entry, and scipy solves
that dense matrix); float32 / float64 / complex128; dense-matrix and LinearOperator operators;
Jacobi preconditioners given as a dense diagonal matrix, a sparray matrix or a LinearOperator;
x0; array_api_strict vectors; bad input; non-convergence and breakdown."""

import warnings

import numpy as np
import pytest
import scipy.sparse as sp
import scipy.sparse.linalg as sla

import sparray
from sparray.linalg._iterative import bicgstab, cg, gmres, minres
from sparray_testing import LAYOUTS

SOLVERS = {"cg": cg, "minres": minres, "gmres": gmres, "bicgstab": bicgstab}
FILL = 0.01


# --- systems ----------------------------------------------------------------------------------------
def poisson(m):
    """The 2-D Poisson matrix on an m x m grid (dense, SPD)."""
    T = 2.0 * np.eye(m) - np.eye(m, k=1) - np.eye(m, k=-1)
    return np.kron(np.eye(m), T) + np.kron(T, np.eye(m))


def convection_diffusion(m, c=0.4):
    """Upwind-free central differences of -u'' + c u' in 2-D (dense, nonsymmetric)."""
    T = 2.0 * np.eye(m) - (1.0 + c) * np.eye(m, k=-1) - (1.0 - c) * np.eye(m, k=1)
    return np.kron(np.eye(m), T) + np.kron(T, np.eye(m))


def random_spd(rng, n=30, density=0.15):
    B = np.where(rng.random((n, n)) < density, rng.standard_normal((n, n)), 0.0)
    return B @ B.T + n * 0.1 * np.eye(n)


def random_dd(rng, n=30, density=0.15):
    """Random, sparse, nonsymmetric and diagonally dominant."""
    B = np.where(rng.random((n, n)) < density, rng.standard_normal((n, n)), 0.0)
    np.fill_diagonal(B, 0.0)
    return B + np.diag(np.abs(B).sum(axis=1) + 1.0 + rng.random(n))


def indefinite(m=6):
    """Shifted Poisson: symmetric with eigenvalues of both signs."""
    return poisson(m) - 2.5 * np.eye(m * m)


PROBLEMS = {
    # name: (builder, which solvers take it)
    "poisson": (lambda rng: poisson(6), ("cg", "minres", "gmres", "bicgstab")),
    "random_spd": (random_spd, ("cg", "minres", "gmres", "bicgstab")),
    "convdiff": (lambda rng: convection_diffusion(6), ("gmres", "bicgstab")),
    "random_dd": (random_dd, ("gmres", "bicgstab")),
    "indefinite": (lambda rng: indefinite(6), ("minres", "gmres")),
}
CASES = [(p, s) for p, (_, solvers) in PROBLEMS.items() for s in solvers]


def with_fill(D, fill):
    """The dense matrix a sparray array of D's entries and fill ``fill`` stands for."""
    return D if fill == 0 else np.where(D == 0, fill, D)


def as_sparray(D, layout, fill=0.0, xp=None):
    """``D`` (its zeros the unspecified positions) as a sparray matrix of ``layout`` whose fill is
    ``fill``, and the dense matrix it stands for."""
    ref = with_fill(D, fill)
    kw = {"blocksize": (3, 3) if D.shape[0] % 3 == 0 else (2, 2)} if layout in ("bsr", "bsc") else {}
    A = sparray.asarray(ref, layout=layout, fill_value=fill, **kw)
    if fill:
        assert A.nse < D.size  # the fill really is implicit
    return A, ref


def counted(solver, *args, **kw):
    """(x, info, number of callback calls)."""
    calls = []
    x, info = solver(*args, callback=lambda *a: calls.append(1), **kw)
    return x, info, len(calls)


def scipy_counted(name, *args, **kw):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        return counted(getattr(sla, name), *args, **kw)


def extra(name):
    return {"callback_type": "pr_norm"} if name == "gmres" else {}


def assert_solution(x, ref, b, rtol, *, slack=100.0):
    """``x`` solves ``ref x = b`` as accurately as the tolerance asks: its residual, and its distance
    to spsolve's solution relative to the condition number."""
    ref_sp = sp.csr_array(ref)
    exact = sla.spsolve(ref_sp.tocsc(), b)
    x = np.asarray(x)
    res = np.linalg.norm(b - ref @ x) / np.linalg.norm(b)
    cond = np.linalg.cond(ref)
    assert res <= slack * rtol, res
    assert np.linalg.norm(x - exact) <= slack * rtol * cond * np.linalg.norm(exact)


# --- against scipy: every layout, fill 0 and non-zero ---------------------------------------------
@pytest.mark.parametrize("problem, name", CASES)
@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("fill", [0.0, FILL])
def test_matches_scipy(problem, name, layout, fill):
    rng = np.random.default_rng(7)
    D = PROBLEMS[problem][0](rng)
    A, ref = as_sparray(D, layout, fill)
    if name in ("cg",):
        assert np.linalg.eigvalsh(ref).min() > 0
    b = rng.standard_normal(D.shape[0])
    rtol = 1e-8
    x, info, k = counted(SOLVERS[name], A, b, rtol=rtol, **extra(name))
    xs, info_s, ks = scipy_counted(name, sp.csr_array(ref), b, rtol=rtol, **extra(name))
    assert type(x) is np.ndarray and x.dtype == np.float64 and x.shape == b.shape
    assert info == info_s == 0
    assert abs(k - ks) <= 1, (k, ks)
    assert_solution(x, ref, b, rtol)


# --- dtypes -------------------------------------------------------------------------------------------
def hermitian_pd(n=25):
    rng = np.random.default_rng(3)
    D = poisson(5).astype(complex)
    S = np.where(np.abs(D) > 0, 0.3j * rng.standard_normal((n, n)), 0)
    return D + np.triu(S, 1) + np.triu(S, 1).conj().T


def complex_nonsym(n=25):
    rng = np.random.default_rng(4)
    return convection_diffusion(5) + np.where(convection_diffusion(5) != 0, 0.2j * rng.standard_normal((n, n)), 0)


@pytest.mark.parametrize("name", list(SOLVERS))
@pytest.mark.parametrize("dtype", ["float32", "float64", "complex128"])
def test_dtypes(name, dtype):
    rng = np.random.default_rng(11)
    if dtype == "complex128":
        D = hermitian_pd() if name in ("cg", "minres") else complex_nonsym()
        b = rng.standard_normal(25) + 1j * rng.standard_normal(25)
    else:
        D = (poisson(5) if name in ("cg", "minres") else convection_diffusion(5)).astype(dtype)
        b = rng.standard_normal(25).astype(dtype)
    A = sparray.asarray(D, layout="csr")
    rtol = 1e-4 if dtype == "float32" else 1e-9
    x, info, k = counted(SOLVERS[name], A, b, rtol=rtol, **extra(name))
    assert x.dtype == np.dtype(dtype) and info == 0
    if not (name == "minres" and dtype == "complex128"):  # scipy's minres takes real systems only
        xs, info_s, ks = scipy_counted(name, sp.csr_array(D), b, rtol=rtol, **extra(name))
        assert info_s == 0 and abs(k - ks) <= 1, (k, ks)
        assert xs.dtype == x.dtype or name == "minres"  # scipy's minres returns float64 for float32
    assert_solution(x.astype(np.complex128), D.astype(np.complex128), b.astype(np.complex128), rtol, slack=1e3)


def test_integer_inputs_compute_in_float64():
    D = poisson(4).astype(np.int64)
    b = np.arange(16)
    for name, solve in SOLVERS.items():
        x, info = solve(sparray.asarray(D, layout="csr"), b, rtol=1e-10)
        assert x.dtype == np.float64 and info == 0, name
        np.testing.assert_allclose(D @ x, b, atol=1e-7)


# --- operators, preconditioners, x0 -------------------------------------------------------------------
def operator_problem(name):
    rng = np.random.default_rng(5)
    D = poisson(6) if name in ("cg", "minres") else convection_diffusion(6)
    D = D + np.diag(rng.random(D.shape[0]) * 4)  # a diagonal worth a Jacobi preconditioner
    return D, rng.standard_normal(D.shape[0])


@pytest.mark.parametrize("name", list(SOLVERS))
@pytest.mark.parametrize("kind", ["dense", "linear_operator", "sparray_fill"])
def test_operator_kinds(name, kind):
    D, b = operator_problem(name)
    if kind == "dense":
        A, ref = D, D
    elif kind == "linear_operator":
        A, ref = sla.aslinearoperator(sp.csr_array(D)), D
    else:
        A, ref = as_sparray(D, "csc", FILL)
    x, info, k = counted(SOLVERS[name], A, b, rtol=1e-8, **extra(name))
    _, info_s, ks = scipy_counted(name, sp.csr_array(ref), b, rtol=1e-8, **extra(name))
    assert type(x) is np.ndarray and info == info_s == 0 and abs(k - ks) <= 1, (k, ks)
    assert_solution(x, ref, b, 1e-8)


@pytest.mark.parametrize("name", list(SOLVERS))
@pytest.mark.parametrize("kind", ["dense_diag", "linear_operator", "sparray_diag"])
def test_jacobi_preconditioner(name, kind):
    D, b = operator_problem(name)
    inv_diag = 1.0 / np.diag(D)
    Md = np.diag(inv_diag)
    if kind == "dense_diag":
        M = Md
    elif kind == "linear_operator":
        M = sla.LinearOperator(D.shape, matvec=lambda v: inv_diag * np.ravel(v), dtype=np.float64)
    else:
        M = sparray.asarray(Md, layout="csr")
    A, ref = as_sparray(D, "csr", FILL)
    x, info, k = counted(SOLVERS[name], A, b, rtol=1e-8, M=M, **extra(name))
    _, info_s, ks = scipy_counted(name, sp.csr_array(ref), b, rtol=1e-8, M=sp.csr_array(Md), **extra(name))
    _, _, k_plain = counted(SOLVERS[name], A, b, rtol=1e-8, **extra(name))
    assert info == info_s == 0 and abs(k - ks) <= 1, (k, ks)
    assert_solution(x, ref, b, 1e-8)
    if name == "cg":
        assert k < k_plain  # the preconditioner is applied


def test_identity_operators_returning_their_input():
    """An operator object may hand back its input (an identity): the solvers do not update it in place."""
    D, b = operator_problem("gmres")
    ident = sla.LinearOperator(D.shape, matvec=lambda v: v, dtype=np.float64)
    for name, solve in SOLVERS.items():
        if name in ("cg", "minres"):
            Dn, bn = operator_problem("cg")
        else:
            Dn, bn = D, b
        x, info, k = counted(solve, sparray.asarray(Dn, layout="csr"), bn, rtol=1e-9, M=ident, **extra(name))
        _, _, ks = scipy_counted(name, sp.csr_array(Dn), bn, rtol=1e-9, M=ident, **extra(name))
        assert info == 0 and abs(k - ks) <= 1, (name, k, ks)
        np.testing.assert_allclose(Dn @ x, bn, atol=1e-6)
        x, info = solve(ident, bn, rtol=1e-9)
        np.testing.assert_allclose(x, bn)


@pytest.mark.parametrize("name", list(SOLVERS))
def test_x0(name):
    D, b = operator_problem(name)
    A, ref = as_sparray(D, "bsr", 0.0)
    x0 = np.random.default_rng(9).standard_normal(b.shape[0])
    x0_copy = x0.copy()
    x, info, k = counted(SOLVERS[name], A, b, x0, rtol=1e-8, **extra(name))
    _, info_s, ks = scipy_counted(name, sp.csr_array(ref), b, x0, rtol=1e-8, **extra(name))
    np.testing.assert_array_equal(x0, x0_copy)  # x0 is not written
    assert info == info_s == 0 and abs(k - ks) <= 1, (k, ks)
    assert_solution(x, ref, b, 1e-8)
    # the exact solution as x0: no iteration (minres: at most its one Lanczos step)
    exact = np.linalg.solve(ref, b)
    x, info, k = counted(SOLVERS[name], A, b, exact, rtol=1e-6, **extra(name))
    assert info == 0 and k <= (1 if name == "minres" else 0)
    np.testing.assert_allclose(x, exact, rtol=1e-6)


@pytest.mark.parametrize("name", list(SOLVERS))
def test_zero_rhs_gives_zero(name):
    D, _ = operator_problem(name)
    x, info = SOLVERS[name](sparray.asarray(D, layout="coo"), np.zeros(D.shape[0]), np.ones(D.shape[0]))
    assert info == 0 and not np.any(x)


def test_column_rhs_and_sparray_rhs():
    D, b = operator_problem("cg")
    A = sparray.asarray(D, layout="csr")
    x1, _ = cg(A, b.reshape(-1, 1), rtol=1e-10)
    x2, _ = cg(A, sparray.asarray(b), rtol=1e-10)
    x3, _ = cg(A, list(b), rtol=1e-10)
    assert x1.shape == x2.shape == x3.shape == b.shape
    np.testing.assert_allclose(x1, x2)
    np.testing.assert_allclose(x1, x3)


def test_minres_shift_and_check():
    D, b = operator_problem("minres")
    A = sparray.asarray(D, layout="csr")
    x, info, k = counted(minres, A, b, shift=1.5, rtol=1e-10)
    _, info_s, ks = counted(sla.minres, sp.csr_array(D), b, shift=1.5, rtol=1e-10)
    assert info == info_s == 0 and abs(k - ks) <= 1
    np.testing.assert_allclose((D - 1.5 * np.eye(len(b))) @ x, b, atol=1e-6)
    x, info = minres(A, b, check=True, show=True)
    assert info == 0
    with pytest.raises(ValueError, match=r"sparray\.linalg\.minres: A must be symmetric"):
        minres(sparray.asarray(convection_diffusion(6, 1.5), layout="csr"), b, check=True)
    with pytest.raises(ValueError, match=r"sparray\.linalg\.minres: M must be positive definite"):
        minres(A, b, M=-np.eye(len(b)))


# --- gmres' callback types and restarts --------------------------------------------------------------
@pytest.mark.parametrize("callback_type", ["x", "pr_norm", "legacy"])
@pytest.mark.parametrize("restart", [None, 5])
def test_gmres_callback_types(callback_type, restart):
    D = convection_diffusion(6)
    b = np.random.default_rng(2).standard_normal(36)
    A = sparray.asarray(D, layout="csr", fill_value=0.0)
    got, want = [], []
    x, info = gmres(A, b, rtol=1e-9, restart=restart, callback=got.append, callback_type=callback_type)
    xs, info_s = sla.gmres(sp.csr_array(D), b, rtol=1e-9, restart=restart, callback=want.append, callback_type=callback_type)
    assert info == info_s == 0 and abs(len(got) - len(want)) <= 1
    if callback_type != "x":
        n = min(len(got), len(want))
        np.testing.assert_allclose(got[:n], want[:n], rtol=1e-6, atol=1e-12)
    else:
        assert all(type(v) is np.ndarray and v.shape == b.shape for v in got)
    np.testing.assert_allclose(x, xs, rtol=1e-6, atol=1e-9)
    # legacy: maxiter counts inner iterations
    got = []
    x, info = gmres(A, b, rtol=1e-12, restart=restart, maxiter=7, callback=got.append, callback_type="legacy")
    assert len(got) == 7 and info == 7


def test_gmres_default_callback_type_is_pr_norm():
    D = convection_diffusion(6)
    b = np.ones(36)
    got, want = [], []
    gmres(sparray.asarray(D, layout="csr"), b, rtol=1e-8, callback=got.append)
    sla.gmres(sp.csr_array(D), b, rtol=1e-8, callback=want.append, callback_type="pr_norm")
    assert len(got) == len(want)


# --- array_api_strict vectors ----------------------------------------------------------------------------
@pytest.mark.parametrize("name", list(SOLVERS))
def test_array_api_strict(name):
    xs = pytest.importorskip("array_api_strict")
    D0, b = operator_problem(name)
    S, D = as_sparray(D0, "csr", FILL)  # a non-zero fill: D is D0 + 0.01 off its pattern
    A = sparray.CSR(xs.asarray(S.crow_indices), xs.asarray(S.col_indices), xs.asarray(S.values), shape=S.shape,
                    fill_value=xs.asarray(FILL))  # fmt: skip
    seen = []
    x, info = SOLVERS[name](A, xs.asarray(b), rtol=1e-9, M=xs.asarray(np.diag(1.0 / np.diag(D))),
                            callback=seen.append, **extra(name))  # fmt: skip
    assert type(x).__module__.startswith("array_api_strict") and x.dtype == xs.float64 and info == 0
    _, info_s, ks = scipy_counted(name, sp.csr_array(D), b, rtol=1e-9, M=sp.diags_array(1.0 / np.diag(D)), **extra(name))
    assert abs(len(seen) - ks) <= 1
    if name != "gmres":
        assert all(type(v).__module__.startswith("array_api_strict") for v in seen)
    assert_solution(np.asarray(x._array), D, b, 1e-9)
    # float32 stays float32; x0 in the same namespace
    A32 = sparray.CSR(A.crow_indices, A.col_indices, xs.astype(A.values, xs.float32), shape=A.shape,
                      fill_value=xs.asarray(FILL, dtype=xs.float32))  # fmt: skip
    x, info = SOLVERS[name](A32, xs.asarray(b, dtype=xs.float32), xs.zeros(len(b), dtype=xs.float32), rtol=1e-4)
    assert x.dtype == xs.float32 and info == 0
    with pytest.raises(TypeError, match=rf"sparray\.linalg\.{name}: b is an array of .*numpy, but the operator's vectors are arrays of array_api_strict"):
        SOLVERS[name](A, b)


# --- bad input, non-convergence, breakdown -------------------------------------------------------------
@pytest.mark.parametrize("name", list(SOLVERS))
def test_bad_input(name):
    solve = SOLVERS[name]
    who = rf"sparray\.linalg\.{name}: "
    D, b = operator_problem(name)
    A = sparray.asarray(D, layout="csr")
    n = len(b)
    with pytest.raises(ValueError, match=who + r"A must be square; got shape \(36, 35\)"):
        solve(sparray.asarray(D[:, :-1], layout="csr"), b)
    with pytest.raises(ValueError, match=who + r"b must have shape \(36,\) or \(36, 1\) to match the operator; got \(35,\)"):
        solve(A, b[:-1])
    with pytest.raises(ValueError, match=who + r"x0 must have shape \(36,\).*got \(36, 2\)"):
        solve(A, b, np.zeros((n, 2)))
    with pytest.raises(ValueError, match=who + r"M must have shape \(36, 36\) to match A; got \(35, 35\)"):
        solve(A, b, M=np.eye(n - 1))
    with pytest.raises(ValueError, match=who + "M must be square"):
        solve(A, b, M=np.ones((n, n - 1)))
    bad = b.copy()
    bad[3] = np.nan
    with pytest.raises(ValueError, match=who + "b must hold finite values only"):
        solve(A, bad)
    with pytest.raises(ValueError, match=who + "x0 must hold finite values only"):
        solve(A, b, np.full(n, np.inf))
    with pytest.raises(TypeError, match=who + "A must be a sparray array"):
        solve("matrix", b)
    with pytest.raises(TypeError, match=who + "b must be a vector"):
        solve(A, "b")
    with pytest.raises(ValueError, match=who + "rtol must be a finite number >= 0; got -1.0"):
        solve(A, b, rtol=-1)
    with pytest.raises(ValueError, match=who + "maxiter must be >= 1; got 0"):
        solve(A, b, maxiter=0)
    with pytest.raises(TypeError, match=who + "callback must be callable"):
        solve(A, b, callback=3)
    if name == "gmres":
        with pytest.raises(ValueError, match=who + "callback_type must be"):
            solve(A, b, callback_type="residual")
        with pytest.raises(ValueError, match=who + "restart must be >= 1"):
            solve(A, b, restart=0)


@pytest.mark.parametrize("name", list(SOLVERS))
def test_not_converged_reports_maxiter(name):
    D = poisson(8) if name in ("cg", "minres") else convection_diffusion(8)
    b = np.random.default_rng(1).standard_normal(64)
    kw = {"restart": 2} if name == "gmres" else {}
    x, info, k = counted(SOLVERS[name], sparray.asarray(D, layout="csr", fill_value=0.0), b, rtol=1e-10, maxiter=2,
                         **kw, **extra(name))  # fmt: skip
    _, info_s, ks = scipy_counted(name, sp.csr_array(D), b, rtol=1e-10, maxiter=2, **kw, **extra(name))
    assert info == info_s == 2
    assert k == ks
    assert np.all(np.isfinite(x))


def test_breakdowns_are_reported():
    # cg on a zero operator: p^H A p == 0
    with np.errstate(all="ignore"):
        _, info = cg(np.zeros((3, 3)), np.ones(3))
    assert info < 0
    # bicgstab on a skew matrix with r0 = b: rtilde^H A p == 0
    skew = np.array([[0.0, 1.0], [-1.0, 0.0]])
    x, info = bicgstab(sparray.asarray(skew, layout="csr"), np.array([1.0, 2.0]))
    assert info == -11 and np.all(np.isfinite(x))
    with np.errstate(all="ignore"):
        _, info_s = sla.bicgstab(skew, np.array([1.0, 2.0]))
    assert info_s == -11


def test_callback_sees_the_iterate():
    D, b = operator_problem("cg")
    A = sparray.asarray(D, layout="csr")
    res = []
    x, info = cg(A, b, rtol=1e-10, callback=lambda xk: res.append(np.linalg.norm(b - D @ xk)))
    assert info == 0 and res[-1] <= 1e-9 * np.linalg.norm(b) * 10
    assert res[0] > res[-1]


@pytest.mark.parametrize("name", list(SOLVERS))
def test_one_host_read_per_iteration(name, monkeypatch):
    """With array_api_strict vectors the loops convert no array to a Python scalar themselves, and
    copy scalars to the host once per iteration (:meth:`_Vectors.read`), plus a few times per solve
    (gmres: per restart cycle)."""
    import sys

    from sparray.linalg import _iterative

    xs = pytest.importorskip("array_api_strict")
    D, b = operator_problem(name)
    S = sparray.asarray(D, layout="csr")
    A = sparray.CSR(xs.asarray(S.crow_indices), xs.asarray(S.col_indices), xs.asarray(S.values), shape=S.shape)
    direct, reads = [], []
    Arr = type(xs.asarray(1.0))
    for meth in ("__float__", "__bool__", "__int__", "__index__", "__complex__", "item", "tolist"):
        orig = getattr(Arr, meth, None)
        if orig is None:
            continue

        def conversion(self, *a, _orig=orig, **k):
            if sys._getframe(1).f_code.co_filename == _iterative.__file__:
                direct.append(sys._getframe(1).f_code.co_name)
            return _orig(self, *a, **k)

        monkeypatch.setattr(Arr, meth, conversion)
    read = _iterative._Vectors.read
    monkeypatch.setattr(_iterative._Vectors, "read", lambda self, *v: reads.append(1) or read(self, *v))
    calls = []
    restart = 8
    kw = {"restart": restart, "callback_type": "pr_norm"} if name == "gmres" else {}
    x, info = SOLVERS[name](A, xs.asarray(b), rtol=1e-10, callback=calls.append, **kw)
    assert info == 0 and direct == []
    k = len(calls)
    cycles = -(-k // restart) if name == "gmres" else 0
    assert k + 1 <= len(reads) <= k + 2 * cycles + 3, (len(reads), k)


@pytest.mark.parametrize("dtype", ["float32", "float64", "complex128"])
def test_blas_updates_match_ufunc_updates(dtype, monkeypatch):
    """NumPy vectors of BLAS_MIN_N elements and more are updated by BLAS axpy/scal: the same
    iterations and solutions as the ufunc updates of short vectors."""
    from sparray.linalg import _iterative

    rng = np.random.default_rng(8)
    for name, solve in SOLVERS.items():
        D = (hermitian_pd() if name in ("cg", "minres") else complex_nonsym()) if dtype == "complex128" else (
            poisson(5) if name in ("cg", "minres") else convection_diffusion(5))  # fmt: skip
        D = D.astype(dtype)
        b = rng.standard_normal(25).astype(dtype)
        A = sparray.asarray(D, layout="csr")
        M = np.diag(1.0 / np.diag(D)).astype(dtype)
        rtol = 1e-4 if dtype == "float32" else 1e-9
        runs = []
        for min_n in (10**9, 1):
            monkeypatch.setattr(_iterative, "BLAS_MIN_N", min_n)
            x, info, k = counted(solve, A, b, rtol=rtol, M=M, **extra(name))
            assert info == 0 and x.dtype == np.dtype(dtype)
            runs.append((x, k))
        (x1, k1), (x2, k2) = runs
        assert abs(k1 - k2) <= 1, (name, k1, k2)
        np.testing.assert_allclose(x1, x2, rtol=50 * rtol)


def test_cg_poisson_2500_matches_scipy():
    """A larger Poisson system (BLAS updates, the matrix built by scipy and converted)."""
    from sparray.interop.scipy import from_scipy

    m = 50
    T = sp.diags_array([-1.0, 2.0, -1.0], offsets=[-1, 0, 1], shape=(m, m))
    As = (sp.kron(sp.eye_array(m), T) + sp.kron(T, sp.eye_array(m))).tocsr()
    b = np.random.default_rng(0).standard_normal(m * m)
    for name in ("cg", "minres"):
        x, info, k = counted(SOLVERS[name], from_scipy(As), b, rtol=1e-8)
        xs, info_s, ks = scipy_counted(name, As, b, rtol=1e-8)
        assert info == info_s == 0 and abs(k - ks) <= 1, (name, k, ks)
        np.testing.assert_allclose(x, xs, rtol=1e-6, atol=1e-8 * np.abs(xs).max())


@pytest.mark.parametrize("m", [12, 40])
def test_bicgstab_is_scipys_algorithm_bit_for_bit(m):
    """Given scipy's product (a LinearOperator around the scipy CSR) and scipy's vector arithmetic
    (below BLAS_MIN_N elements the updates are NumPy ufuncs through a buffer: ``a * x`` rounded, then
    added, as scipy's ``x += a * p``; the dots BLAS's), bicgstab repeats scipy's iterates bit for bit:
    same order of operations, stopping tests and breakdown tests. What moves the iteration counts on
    the benchmark's Poisson problem is rounding alone (benchmarks/solvers.py --drift, docs/linalg.md)."""
    from sparray.linalg._iterative import BLAS_MIN_N

    D = convection_diffusion(m, c=0.3) if m < 20 else poisson(m)
    assert D.shape[0] < BLAS_MIN_N
    S = sp.csr_array(D)
    op = sla.LinearOperator(S.shape, matvec=lambda v: S @ v, dtype=S.dtype)
    b = np.random.default_rng(2).standard_normal(D.shape[0])
    iterates, iterates_s = [], []
    x, info = bicgstab(op, b, rtol=1e-10, callback=lambda xk: iterates.append(xk.copy()))
    xs, info_s = sla.bicgstab(op, b, rtol=1e-10, callback=lambda xk: iterates_s.append(xk.copy()))
    assert info == info_s == 0 and len(iterates) == len(iterates_s) > 5
    for a, c in zip(iterates, iterates_s):
        np.testing.assert_array_equal(a, c)
    np.testing.assert_array_equal(x, xs)
