"""eigsh and svds (sparray/linalg/_eigen.py): thick-restart Lanczos on any operator.

Checked against numpy.linalg.eigh / numpy.linalg.svd of the dense matrix and against
scipy.sparse.linalg.eigsh: 2-D Poisson (smallest and largest, a square grid with double eigenvalues
too), random symmetric sparse matrices on every layout with fill 0 and a non-zero fill, float32,
float64, complex64 and complex128 Hermitian, dense arrays, scipy LinearOperators and sparse
matrices as operators, array_api_strict components (the results stay array_api_strict arrays),
shift-invert through OPinv, breakdowns (identity, zero, a start vector inside an invariant
subspace), svds on both orientations, the bad inputs and NoConvergence; the module doctests. On a
machine with a GPU the same solver runs on CuPy data and its results stay on the GPU.
"""

from __future__ import annotations

import doctest

import array_api_strict as xps
import numpy as np
import pytest
import scipy.sparse as sps
import scipy.sparse.linalg as spla
from cuda_testing import DEVICES
from sparray_testing import LAYOUTS, to_numpy

import sparray
from sparray.interop.scipy import from_scipy
from sparray.linalg import _eigen
from sparray.linalg._eigen import NoConvergence, eigsh, svds


def poisson2d(nx, ny):
    """The 5-point Laplacian on an nx x ny grid (Dirichlet), a scipy CSR matrix."""

    def lap(m):
        return sps.diags([-np.ones(m - 1), 2 * np.ones(m), -np.ones(m - 1)], [-1, 0, 1])

    return (sps.kron(lap(ny), sps.identity(nx)) + sps.kron(sps.identity(ny), lap(nx))).tocsr()


def random_symmetric(n, density, seed, dtype="float64"):
    rng = np.random.default_rng(seed)
    R = sps.random(n, n, density=density, random_state=rng).toarray()
    if np.dtype(dtype).kind == "c":
        R = R + 1j * (sps.random(n, n, density=density, random_state=rng).toarray())
    return (R + R.conj().T).astype(dtype)


def expected(e, k, which):
    """The k eigenvalues of the ascending ``e`` that ``which`` picks, ascending."""
    if which == "LA":
        return e[-k:]
    if which == "SA":
        return e[:k]
    if which == "LM":
        return np.sort(e[np.argsort(-np.abs(e), kind="stable")[:k]])
    if which == "SM":
        return np.sort(e[np.argsort(np.abs(e), kind="stable")[:k]])
    return np.sort(np.r_[e[: k // 2], e[len(e) - (k - k // 2) :]])  # BE


def check_pairs(D, w, v, k, *, rtol=1e-10):
    """Eigenvalues and vectors of the dense Hermitian D: residuals, orthonormality, shapes."""
    w, v = to_numpy(w), to_numpy(v)
    assert w.shape == (k,) and v.shape == (D.shape[0], k)
    scale = np.abs(np.linalg.eigvalsh(D)).max()
    res = np.linalg.norm(D @ v - v * w, axis=0)
    assert res.max() <= rtol * scale, res
    np.testing.assert_allclose(v.conj().T @ v, np.eye(k), atol=rtol * 10)
    assert np.all(np.diff(w) >= 0)


# --- 2-D Poisson ------------------------------------------------------------------------------


@pytest.mark.parametrize("grid", [(12, 10), (11, 11)])  # 11 x 11: double eigenvalues
@pytest.mark.parametrize("which", ["SA", "LA", "LM"])
def test_poisson_2d(grid, which):
    S = poisson2d(*grid)
    A = from_scipy(S)
    e = np.linalg.eigvalsh(S.toarray())
    w, v = eigsh(A, k=6, which=which)
    np.testing.assert_allclose(w, expected(e, 6, which), rtol=1e-11, atol=1e-11)
    check_pairs(S.toarray(), w, v, 6)
    ws = spla.eigsh(S, k=6, which=which, return_eigenvectors=False)
    np.testing.assert_allclose(w, np.sort(ws), rtol=1e-10)


# --- layouts and fills ------------------------------------------------------------------------


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("fill", [0.0, 0.01])
def test_layouts_and_fills(layout, fill):
    D = random_symmetric(48, 0.08, seed=3)
    D_filled = np.where(D != 0, D, fill)
    kw = {"blocksize": (4, 4)} if layout in ("bsr", "bsc") else {}
    A = sparray.asarray(D_filled, fill_value=fill, layout=layout, **kw)
    assert A.layout == layout
    e = np.linalg.eigvalsh(D_filled)
    for which in ("LA", "SA"):
        w, v = eigsh(A, k=4, which=which)
        np.testing.assert_allclose(w, expected(e, 4, which), rtol=1e-10, atol=1e-10)
        check_pairs(D_filled, w, v, 4)


def test_backends(backend):
    # the numba kernels and the generic array-API products give the same pairs (a non-zero fill)
    D = random_symmetric(40, 0.1, seed=6)
    Df = np.where(D != 0, D, -0.02)
    w, v = eigsh(sparray.asarray(Df, fill_value=-0.02, layout="csr"), k=3, which="BE")
    np.testing.assert_allclose(w, expected(np.linalg.eigvalsh(Df), 3, "BE"), rtol=1e-10)
    check_pairs(Df, w, v, 3)
    u, s, vh = svds(sparray.asarray(Df[:, :30], fill_value=-0.02, layout="csr"), k=2)
    np.testing.assert_allclose(s, np.linalg.svd(Df[:, :30], compute_uv=False)[:2][::-1], rtol=1e-10)


@pytest.mark.parametrize("which", ["LM", "SM", "LA", "SA", "BE"])
@pytest.mark.parametrize("k", [1, 5])
def test_every_which_against_scipy(which, k):
    D = random_symmetric(60, 0.1, seed=7)
    A = sparray.asarray(D, layout="csr")
    w, v = eigsh(A, k=k, which=which)
    np.testing.assert_allclose(w, expected(np.linalg.eigvalsh(D), k, which), rtol=1e-10, atol=1e-10)
    check_pairs(D, w, v, k)
    if (which, k) != ("BE", 1):  # ARPACK refuses BE with k = 1 (here: the largest)
        ws = spla.eigsh(D, k=k, which=which, return_eigenvectors=False)
        np.testing.assert_allclose(w, np.sort(ws), rtol=1e-9, atol=1e-10)
    only = eigsh(A, k=k, which=which, return_eigenvectors=False)
    np.testing.assert_allclose(only, w, rtol=1e-12, atol=1e-12)


# --- dtypes -----------------------------------------------------------------------------------


@pytest.mark.parametrize("dtype", ["float32", "float64", "complex64", "complex128"])
def test_dtypes(dtype):
    D = random_symmetric(50, 0.1, seed=11, dtype=dtype)
    A = sparray.asarray(D, layout="csr")
    w, v = eigsh(A, k=4, which="LA")
    single = dtype in ("float32", "complex64")
    assert w.dtype == (np.float32 if single else np.float64)
    assert v.dtype == np.dtype(dtype)
    e = np.linalg.eigvalsh(D.astype("complex128" if "complex" in dtype else "float64"))
    np.testing.assert_allclose(w, e[-4:], rtol=1e-4 if single else 1e-11)
    wide = "complex128" if "complex" in dtype else "float64"
    check_pairs(D.astype(wide), w.astype("float64"), v.astype(wide), 4, rtol=1e-4 if single else 1e-10)


def test_complex_hermitian_against_scipy():
    D = random_symmetric(70, 0.1, seed=5, dtype="complex128")
    w, v = eigsh(sparray.asarray(D, layout="bsr", blocksize=(7, 7)), k=5, which="SA")
    ws = spla.eigsh(D, k=5, which="SA", return_eigenvectors=False)
    np.testing.assert_allclose(w, np.sort(ws), rtol=1e-10, atol=1e-10)
    check_pairs(D, w, v, 5)


# --- operators --------------------------------------------------------------------------------


def test_dense_array_operator():
    D = random_symmetric(40, 0.2, seed=1)
    w, v = eigsh(D, k=3, which="LM")
    assert type(w) is np.ndarray and type(v) is np.ndarray
    np.testing.assert_allclose(w, expected(np.linalg.eigvalsh(D), 3, "LM"), rtol=1e-10)
    check_pairs(D, w, v, 3)


def test_linear_operator_and_scipy_sparse():
    S = poisson2d(9, 8)
    D = S.toarray()
    L = spla.LinearOperator(S.shape, matvec=lambda x: S @ x, dtype=S.dtype)
    for op in (L, S, spla.aslinearoperator(S)):
        w, v = eigsh(op, k=4, which="SA")
        assert type(w) is np.ndarray
        np.testing.assert_allclose(w, np.linalg.eigvalsh(D)[:4], rtol=1e-11)
        check_pairs(D, w, v, 4)


def test_array_api_strict_components():
    D = random_symmetric(40, 0.12, seed=9)
    S = sps.csr_matrix(D)
    crow, col = S.indptr.astype(np.int64), S.indices.astype(np.int64)
    A = sparray.CSR(xps.asarray(crow), xps.asarray(col), xps.asarray(S.data), shape=S.shape)
    w, v = eigsh(A, k=3, which="LA")
    assert type(w).__module__.startswith("array_api_strict") and type(v).__module__.startswith("array_api_strict")
    assert v.shape == (40, 3)
    np.testing.assert_allclose(to_numpy(w), np.linalg.eigvalsh(D)[-3:], rtol=1e-10)
    check_pairs(D, w, v, 3)
    # a strict start vector, the vectors only
    w2 = eigsh(A, k=3, which="LA", v0=xps.ones(40, dtype=xps.float64), return_eigenvectors=False)
    assert type(w2).__module__.startswith("array_api_strict")
    np.testing.assert_allclose(to_numpy(w2), to_numpy(w), rtol=1e-10)
    # svds on strict components
    u, s, vh = svds(A, k=2)
    assert all(type(x).__module__.startswith("array_api_strict") for x in (u, s, vh))
    np.testing.assert_allclose(to_numpy(s), np.sort(np.abs(np.linalg.eigvalsh(D)))[-2:], rtol=1e-10)


@pytest.mark.skipif("cupy" not in DEVICES, reason="needs a GPU with CuPy")
def test_cupy_stays_on_device():
    import cupy

    D = random_symmetric(64, 0.1, seed=2)
    Dc = np.where(D != 0, D, 0.01)
    A = sparray.asarray(Dc, fill_value=0.01, layout="csr").to_device("cuda")
    w, v = eigsh(A, k=4, which="LA")
    assert isinstance(w, cupy.ndarray) and isinstance(v, cupy.ndarray)
    np.testing.assert_allclose(w.get(), np.linalg.eigvalsh(Dc)[-4:], rtol=1e-10)
    check_pairs(Dc, w, v, 4)
    u, s, vh = svds(sparray.asarray(Dc[:, :40], fill_value=0.01, layout="csc").to_device("cuda"), k=3)
    assert isinstance(s, cupy.ndarray) and isinstance(u, cupy.ndarray)
    np.testing.assert_allclose(s.get(), np.linalg.svd(Dc[:, :40], compute_uv=False)[:3][::-1], rtol=1e-10)


# --- shift-invert, start vectors, small and degenerate problems --------------------------------


def test_shift_invert():
    D = random_symmetric(80, 0.06, seed=4)
    sigma = 0.25
    lu = spla.splu(sps.csc_matrix(D - sigma * np.eye(80)))
    OPinv = spla.LinearOperator(D.shape, matvec=lu.solve, dtype=float)
    w, v = eigsh(sparray.asarray(D, layout="csc"), k=4, sigma=sigma, OPinv=OPinv)
    e = np.linalg.eigvalsh(D)
    np.testing.assert_allclose(w, np.sort(e[np.argsort(np.abs(e - sigma))[:4]]), rtol=1e-10)
    check_pairs(D, w, v, 4)
    ws = spla.eigsh(D, k=4, sigma=sigma, return_eigenvectors=False)
    np.testing.assert_allclose(w, np.sort(ws), rtol=1e-10)


def test_v0_forms_and_ncv():
    D = random_symmetric(50, 0.1, seed=12)
    A = sparray.asarray(D, layout="coo")
    ref = np.linalg.eigvalsh(D)[-3:]
    rng = np.random.default_rng(0)
    x = rng.standard_normal(50)
    for v0 in (x, list(x), x.reshape(50, 1), sparray.asarray(x)):
        np.testing.assert_allclose(eigsh(A, k=3, which="LA", v0=v0, return_eigenvectors=False), ref, rtol=1e-10)
    for ncv in (4, 10, 50):
        np.testing.assert_allclose(eigsh(A, k=3, which="LA", ncv=ncv, return_eigenvectors=False), ref, rtol=1e-10)


def test_small_and_degenerate():
    # ncv = n: the basis spans the space, exact after one cycle
    D = random_symmetric(6, 0.6, seed=1) + np.diag(np.arange(6.0))
    w, v = eigsh(D, k=5, which="LA")
    np.testing.assert_allclose(w, np.linalg.eigvalsh(D)[1:], rtol=1e-12)
    check_pairs(D, w, v, 5)
    w = eigsh(np.array([[2.0, 1.0], [1.0, 2.0]]), k=1, which="SA", return_eigenvectors=False)
    np.testing.assert_allclose(w, [1.0])
    # breakdowns: every vector is an eigenvector, A = 0, a start vector inside an invariant subspace
    w, v = eigsh(np.eye(30), k=3)
    np.testing.assert_allclose(w, 1.0)
    check_pairs(np.eye(30), w, v, 3)
    w, v = eigsh(np.zeros((30, 30)), k=3)
    np.testing.assert_allclose(w, 0.0)
    np.testing.assert_allclose(v.T @ v, np.eye(3), atol=1e-12)
    Dg = np.diag(np.arange(1.0, 101.0))
    e1 = np.zeros(100)
    e1[0] = 1.0
    w, v = eigsh(sparray.asarray(Dg, layout="csr"), k=3, which="LA", v0=e1)
    np.testing.assert_allclose(w, [98.0, 99.0, 100.0])
    check_pairs(Dg, w, v, 3)
    # three tight clusters: the Krylov space is nearly invariant after 3 steps, beta cancels to ~1e-9 ||A v||
    # (the extra Gram-Schmidt pass and the redone steps)
    rng = np.random.default_rng(0)
    Q, _ = np.linalg.qr(rng.standard_normal((60, 60)))
    C = (Q * (np.repeat([1.0, 2.0, 3.0], 20) + 1e-9 * rng.standard_normal(60))) @ Q.T
    C = (C + C.T) / 2
    for which in ("LA", "SA"):
        w, v = eigsh(sparray.asarray(C, layout="csr"), k=4, which=which)
        np.testing.assert_allclose(w, expected(np.linalg.eigvalsh(C), 4, which), rtol=1e-13)
        check_pairs(C, w, v, 4, rtol=1e-13)
    # a multiple eigenvalue among the wanted ones (block diagonal)
    B = sps.block_diag([poisson2d(5, 4)] * 3).tocsr()
    w, v = eigsh(from_scipy(B), k=5, which="SA")
    np.testing.assert_allclose(w, np.linalg.eigvalsh(B.toarray())[:5], rtol=1e-10)
    check_pairs(B.toarray(), w, v, 5)


def test_tolerance():
    S = poisson2d(20, 15)
    D = S.toarray()
    w, v = eigsh(from_scipy(S), k=4, which="SA", tol=1e-6)
    res = np.linalg.norm(D @ v - v * w, axis=0)
    assert np.all(res <= 1e-5 * np.abs(w)), res
    np.testing.assert_allclose(w, np.linalg.eigvalsh(D)[:4], rtol=1e-7)


def test_no_convergence():
    S = poisson2d(20, 20)
    A = from_scipy(S)
    e = np.linalg.eigvalsh(S.toarray())
    with pytest.raises(NoConvergence, match="sparray.linalg.eigsh: no convergence in maxiter=2") as info:
        eigsh(A, k=6, which="SA", maxiter=2)
    err = info.value
    assert isinstance(err, RuntimeError)
    assert err.eigenvectors.shape == (400, err.eigenvalues.shape[0]) and err.eigenvalues.shape[0] < 6
    for x in np.asarray(err.eigenvalues):  # what converged is right
        assert np.min(np.abs(e - x)) <= 1e-10 * e[-1]
    with pytest.raises(NoConvergence) as info:
        eigsh(A, k=6, which="SA", maxiter=1, return_eigenvectors=False)
    assert info.value.eigenvectors is None
    with pytest.raises(NoConvergence, match="sparray.linalg.svds"):
        svds(A, k=6, which="SM", maxiter=1)


# --- svds -------------------------------------------------------------------------------------


def check_svd(B, u, s, vh, k):
    u, s, vh = to_numpy(u), to_numpy(s), to_numpy(vh)
    assert u.shape == (B.shape[0], k) and s.shape == (k,) and vh.shape == (k, B.shape[1])
    np.testing.assert_allclose(u.conj().T @ u, np.eye(k), atol=1e-10)
    np.testing.assert_allclose(vh @ vh.conj().T, np.eye(k), atol=1e-10)
    np.testing.assert_allclose(B @ vh.conj().T, u * s, atol=1e-10 * max(1.0, s.max()))
    assert np.all(np.diff(s) >= 0)


@pytest.mark.parametrize("shape", [(50, 30), (30, 50)])
@pytest.mark.parametrize("which", ["LM", "SM"])
@pytest.mark.parametrize("layout,fill", [("csr", 0.0), ("csc", 0.01), ("coo", 0.0), ("bsr", 0.01)])
def test_svds(shape, which, layout, fill):
    rng = np.random.default_rng(sum(shape) + len(layout))
    B = rng.standard_normal(shape)
    B[np.abs(B) < 1.2] = fill
    kw = {"blocksize": (5, 5)} if layout == "bsr" else {}
    A = sparray.asarray(B, fill_value=fill, layout=layout, **kw)
    u, s, vh = svds(A, k=4, which=which)
    sv = np.linalg.svd(B, compute_uv=False)
    np.testing.assert_allclose(s, np.sort(sv[:4] if which == "LM" else sv[-4:]), rtol=1e-9)
    check_svd(B, u, s, vh, 4)


def test_svds_complex_operator_and_options():
    rng = np.random.default_rng(3)
    B = rng.standard_normal((35, 20)) + 1j * rng.standard_normal((35, 20))
    sv = np.linalg.svd(B, compute_uv=False)
    for A in (B, spla.aslinearoperator(B), sparray.asarray(B, layout="csr")):
        u, s, vh = svds(A, k=3)
        np.testing.assert_allclose(s, sv[:3][::-1], rtol=1e-10)
        check_svd(B, u, s, vh, 3)
    for solver in ("arpack", "lobpcg", "propack"):
        np.testing.assert_allclose(svds(B, k=2, solver=solver, return_singular_vectors=False), sv[:2][::-1], rtol=1e-10)
    u, s, none = svds(B, k=2, return_singular_vectors="u")
    assert none is None and u.shape == (35, 2)
    none, s, vh = svds(B, k=2, return_singular_vectors="vh", random_state=5)
    assert none is None and vh.shape == (2, 20)
    # scipy agrees
    np.testing.assert_allclose(s, spla.svds(B, k=2, return_singular_vectors=False), rtol=1e-10)


def test_svds_rank_deficient():
    rng = np.random.default_rng(8)
    B = rng.standard_normal((40, 3)) @ rng.standard_normal((3, 25))
    u, s, vh = svds(sparray.asarray(B, layout="csr"), k=5)
    np.testing.assert_allclose(s[2:], np.linalg.svd(B, compute_uv=False)[:3][::-1], rtol=1e-10)
    assert np.all(s[:2] <= 1e-10 * s[-1])
    check_svd(B, u, s, vh, 5)


# --- bad input --------------------------------------------------------------------------------


def test_bad_input():
    D = random_symmetric(20, 0.2, seed=0)
    A = sparray.asarray(D, layout="csr")
    cases = [
        (lambda: eigsh(sparray.asarray(np.ones((4, 5)), layout="csr")), ValueError, "square; got shape \\(4, 5\\)"),
        (lambda: eigsh(A, k=0), ValueError, "1 <= k < n = 20; got k=0"),
        (lambda: eigsh(A, k=20), ValueError, "1 <= k < n = 20; got k=20"),
        (lambda: eigsh(A, k=2.5), TypeError, "k must be an integer"),
        (lambda: eigsh(A, which="XX"), ValueError, "which must be one of 'LM', 'SM', 'LA', 'SA', 'BE'; got 'XX'"),
        (lambda: eigsh(A, v0=np.ones(7)), ValueError, "v0 must have shape \\(20,\\) or \\(20, 1\\).*got \\(7,\\)"),
        (lambda: eigsh(A, v0=np.zeros(20)), ValueError, "v0 must not be the zero vector"),
        (lambda: eigsh(A, v0=np.full(20, np.nan)), ValueError, "v0 must hold finite values"),
        (lambda: eigsh(A, v0=xps.ones(20)), TypeError, "v0 is an array of"),
        (lambda: eigsh(A, k=3, ncv=3), ValueError, "k < ncv <= n, here 3 < ncv <= 20; got ncv=3"),
        (lambda: eigsh(A, k=3, ncv=21), ValueError, "got ncv=21"),
        (lambda: eigsh(A, tol=-1.0), ValueError, "tol must be >= 0"),
        (lambda: eigsh(A, maxiter=0), ValueError, "maxiter must be at least 1"),
        (lambda: eigsh(A, M=A), ValueError, "generalized eigenproblems"),
        (lambda: eigsh(A, sigma=1.0), ValueError, "shift-invert mode.*pass OPinv="),
        (lambda: eigsh(A, OPinv=A), ValueError, "pass sigma with it"),
        (lambda: eigsh(A, sigma=1.0, OPinv=np.eye(3)), ValueError, "OPinv must have A's shape"),
        (lambda: eigsh(A, sigma=1j, OPinv=A), TypeError, "sigma must be a real number"),
        (lambda: eigsh(A, mode="cayley"), ValueError, "only mode='normal'"),
        (lambda: eigsh("A"), TypeError, "A must be a sparray array"),
    ]
    for call, exc, msg in cases:
        with pytest.raises(exc, match="sparray.linalg.eigsh: .*" + msg):
            call()
    B = sparray.asarray(np.ones((6, 4)), layout="csr")
    svd_cases = [
        (lambda: svds(B, k=4), ValueError, "1 <= k < min\\(M, N\\) = 4; got k=4"),
        (lambda: svds(B, k=2, which="LA"), ValueError, "which must be one of 'LM', 'SM'"),
        (lambda: svds(B, k=2, solver="magic"), ValueError, "solver must be"),
        (lambda: svds(B, k=2, options={"x": 1}), ValueError, "options"),
        (lambda: svds(B, k=2, v0=np.ones(6)), ValueError, "v0 must have shape \\(4,\\)"),
        (lambda: svds(B, k=2, return_singular_vectors="x"), ValueError, "return_singular_vectors"),
        (lambda: svds(sparray.asarray(np.ones((1, 4)), layout="csr"), k=1), ValueError, "at least 2 rows"),
    ]
    for call, exc, msg in svd_cases:
        with pytest.raises(exc, match="sparray.linalg.svds: .*" + msg):
            call()


def test_doctests():
    assert doctest.testmod(_eigen).failed == 0
