"""sparray.linalg.amg (issue 53): smoothed-aggregation multigrid against dense NumPy solves and pyamg.

- the hierarchy is pyamg's (same levels, sizes and operator complexity; pyamg when installed);
- as ``M=`` of cg / minres / gmres / bicgstab and alone (``solve``): every layout, fills 0 and 0.01
  (the Sherman-Morrison term), float32 / float64 / complex, nonsymmetric, blocks with candidates;
- on the simulated device: Chebyshev smoothing in the device namespace, the same iterates as on the
  host, no host read inside a cycle, a cg's syncs at most its iterations plus a constant;
- the errors: what was expected and what came.
"""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as ss
from cuda_testing import requires_gxx

import sparray

LAYOUTS = ["coo", "csr", "csc", "bsr", "bsc"]


def poisson2d(m, dtype="float64"):
    T = ss.diags([-1.0, 2.0, -1.0], [-1, 0, 1], shape=(m, m))
    I = ss.identity(m)
    return (ss.kron(I, T) + ss.kron(T, I)).astype(dtype).tocsr()


def poisson3d(m):
    T = ss.diags([-1.0, 2.0, -1.0], [-1, 0, 1], shape=(m, m))
    I = ss.identity(m)
    return (ss.kron(ss.kron(I, I), T) + ss.kron(ss.kron(I, T), I) + ss.kron(ss.kron(T, I), I)).tocsr()


def convection(m, c=0.4):
    T = ss.diags([-(1.0 + c), 2.0, -(1.0 - c)], [-1, 0, 1], shape=(m, m))
    I = ss.identity(m)
    return (ss.kron(I, T) + ss.kron(T, I)).tocsr()


def as_sparray(S, layout, fill=0.0):
    """``S`` (scipy) as a sparray array of ``layout`` whose unspecified elements hold ``fill``, and the
    dense matrix it stands for."""
    D = S.toarray()
    ref = np.where(D == 0, np.asarray(fill, D.dtype), D)
    kw = {"blocksize": (2, 2)} if layout in ("bsr", "bsc") else {}
    return sparray.asarray(ref, layout=layout, fill_value=fill, **kw), ref


def rhs(n, dtype="float64", seed=0):
    b = np.random.default_rng(seed).standard_normal(n)
    if np.dtype(dtype).kind == "c":
        b = b + 1j * np.random.default_rng(seed + 1).standard_normal(n)
    return b.astype(dtype)


def iterations(solve):
    calls = []
    x, info = solve(lambda *a: calls.append(1))
    return x, info, len(calls)


# --- the hierarchy is pyamg's -------------------------------------------------------------------------
@pytest.mark.parametrize("problem", ["poisson2d", "poisson3d", "elasticity", "anisotropic"])
def test_hierarchy_and_iterations_are_pyamgs(problem):
    pyamg = pytest.importorskip("pyamg")
    B = None
    if problem == "poisson2d":
        S = poisson2d(40)
    elif problem == "poisson3d":
        S = poisson3d(12)
    elif problem == "elasticity":
        S, B = pyamg.gallery.linear_elasticity((16, 16))
    else:
        stencil = pyamg.gallery.diffusion_stencil_2d(epsilon=0.001, theta=np.pi / 8, type="FE")
        S = pyamg.gallery.stencil_grid(stencil, (40, 40), format="csr")
    A = sparray.asarray(S, layout="bsr", blocksize=(2, 2)) if problem == "elasticity" else sparray.asarray(S, layout="csr")
    ml = sparray.linalg.amg(A, B=B)
    theirs = pyamg.smoothed_aggregation_solver(S, B=B)
    assert [lv.n for lv in ml.levels] == [lv.A.shape[0] for lv in theirs.levels]
    assert [lv.nse for lv in ml.levels] == [lv.A.nnz for lv in theirs.levels]
    assert ml.operator_complexity() == pytest.approx(theirs.operator_complexity(), rel=1e-12)
    assert ml.grid_complexity() == pytest.approx(theirs.grid_complexity(), rel=1e-12)
    # without the smoothing (whose rho estimate starts from a random vector) the first prolongator and
    # coarse operator are pyamg's to rounding (deeper, pyamg's aggregation meets the neighbours in the
    # unsorted order of SciPy's BSR products, ours in column order: the same rules, other ties)
    flat = sparray.linalg.amg(A, B=B, smooth=None)
    flat_theirs = pyamg.smoothed_aggregation_solver(S, B=B, smooth=None)
    np.testing.assert_allclose(flat.levels[0].P.to_dense(), flat_theirs.levels[0].P.toarray(), rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(flat.levels[1].A.to_dense(), flat_theirs.levels[1].A.toarray(), rtol=1e-10, atol=1e-12)
    b = rhs(S.shape[0])
    ours, res_theirs = [], []
    x = ml.solve(b, tol=1e-8, accel="cg", residuals=ours)
    theirs.solve(b, tol=1e-8, accel="cg", residuals=res_theirs)
    assert len(ours) - 1 <= 1.3 * (len(res_theirs) - 1)
    assert np.linalg.norm(b - S @ x) <= 1e-8 * np.linalg.norm(b) * 1.01
    np.testing.assert_allclose(ours[0], np.linalg.norm(b))


# --- as a preconditioner: every layout, both fills, the Krylov methods -----------------------------------
@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("fill", [0.0, 0.01])
def test_cg_with_amg_on_every_layout_and_fill(layout, fill):
    S = poisson2d(16) + ss.diags(np.linspace(0.0, 1.0, 256))
    A, ref = as_sparray(S, layout, fill)
    b = rhs(256)
    M = sparray.linalg.amg(A, max_coarse=8)
    x, info, its = iterations(lambda cb: sparray.linalg.cg(A, b, rtol=1e-10, M=M, callback=cb))
    _, _, plain = iterations(lambda cb: sparray.linalg.cg(A, b, rtol=1e-10, callback=cb))
    assert info == 0
    np.testing.assert_allclose(np.asarray(x), np.linalg.solve(ref, b), rtol=1e-7, atol=1e-9)
    assert its < plain / 2
    assert len(M.levels) >= 3


def test_the_fill_is_the_rank_one_term():
    """M @ v for a fill f is (S + f 1 1^T)^-1 applied exactly when the cycle is exact: a two-level
    hierarchy whose coarsest level is the whole matrix (max_levels=1) solves S by pinv."""
    S = poisson2d(6) + 2 * ss.identity(36)  # minus the fill on the pattern: still diagonally dominant
    A, ref = as_sparray(S, "csr", 0.25)
    M = sparray.linalg.amg(A, max_levels=1)
    v = rhs(36)
    np.testing.assert_allclose(np.asarray(M @ v), np.linalg.solve(ref, v), rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("name", ["minres", "gmres", "bicgstab"])
def test_other_krylov_methods(name):
    S = poisson2d(16)
    A, ref = as_sparray(S, "csr")
    b = rhs(256)
    M = sparray.linalg.amg(A, max_coarse=8)
    x, info = getattr(sparray.linalg, name)(A, b, rtol=1e-10, M=M)
    assert info == 0
    np.testing.assert_allclose(np.asarray(x), np.linalg.solve(ref, b), rtol=1e-6, atol=1e-8)


@pytest.mark.parametrize("symmetry", ["hermitian", "nonsymmetric"])
def test_nonsymmetric_matrix(symmetry):
    S = convection(16)
    A, ref = as_sparray(S, "csr")
    b = rhs(256)
    ml = sparray.linalg.amg(A, symmetry=symmetry, max_coarse=8)
    x, info = ml.solve(b, tol=1e-10, accel="gmres", return_info=True)
    assert info == 0
    np.testing.assert_allclose(np.asarray(x), np.linalg.solve(ref, b), rtol=1e-7, atol=1e-9)
    if symmetry == "nonsymmetric":
        lv = ml.levels[0]
        assert not np.allclose(lv.R.to_dense(), lv.P.to_dense().T)  # R is smoothed with A^T


@pytest.mark.parametrize("dtype", ["float32", "float64", "complex64", "complex128"])
def test_dtypes(dtype):
    S = poisson2d(16)
    if np.dtype(dtype).kind == "c":
        S = S + 0.3j * ss.diags(np.linspace(0.0, 1.0, 256))
    A = sparray.asarray(S.astype(dtype), layout="csr")
    b = rhs(256, dtype)
    ml = sparray.linalg.amg(A, max_coarse=8)
    assert ml.levels[1].A.dtype == A.dtype and ml.levels[0].P.dtype == A.dtype
    y = ml @ b
    assert y.dtype == np.dtype(dtype)
    single = np.dtype(dtype) in (np.float32, np.complex64)
    x = ml.solve(b, tol=1e-5 if single else 1e-10, accel="gmres" if np.dtype(dtype).kind == "c" else "cg")
    assert x.dtype == np.dtype(dtype)
    want = np.linalg.solve(S.toarray().astype(np.complex128), b.astype(np.complex128))
    np.testing.assert_allclose(x, want, rtol=1e-3 if single else 1e-8, atol=1e-3 if single else 1e-9)


def test_integer_matrix_computes_in_float64():
    A = sparray.asarray(poisson2d(8).astype(np.int64), layout="csr")
    ml = sparray.linalg.amg(A, max_coarse=4)
    assert ml.dtype == np.float64 and (ml @ np.ones(64)).dtype == np.float64


# --- solve() alone --------------------------------------------------------------------------------------
@pytest.mark.parametrize("cycle", ["V", "W", "F"])
def test_stationary_cycles(cycle):
    S = poisson2d(20)
    A, ref = as_sparray(S, "csr")
    b = rhs(400)
    ml = sparray.linalg.amg(A, max_coarse=8)
    res = []
    x, info = ml.solve(b, tol=1e-9, maxiter=60, cycle=cycle, residuals=res, return_info=True)
    assert info == 0
    assert all(r1 < r0 for r0, r1 in zip(res, res[1:]))  # each cycle reduces the residual
    assert res[-1] <= 1e-9 * np.linalg.norm(b)
    np.testing.assert_allclose(x, np.linalg.solve(ref, b), rtol=1e-6, atol=1e-8)
    assert ml.aspreconditioner(cycle).cycle == cycle


def test_solve_from_x0_and_callback_and_maxiter():
    S = poisson2d(12)
    A, ref = as_sparray(S, "csr")
    b = rhs(144)
    ml = sparray.linalg.amg(A, max_coarse=4)
    seen = []
    x0 = np.linalg.solve(ref, b)
    x, info = ml.solve(b, x0=x0, tol=1e-8, callback=seen.append, return_info=True)
    assert info == 0 and not seen  # the start already meets the tolerance
    np.testing.assert_allclose(x, x0)
    _, info = ml.solve(b, tol=1e-14, maxiter=2, return_info=True)
    assert info == 2


@pytest.mark.parametrize("pre", [("jacobi", {"omega": 2.0 / 3.0, "iterations": 2}), ("chebyshev", {"degree": 2}), ("gauss_seidel", {"sweep": "forward"})])
def test_smoother_options(pre):
    S = poisson2d(16)
    A, ref = as_sparray(S, "csr")
    b = rhs(256)
    post = pre if pre[0] != "gauss_seidel" else ("gauss_seidel", {"sweep": "backward"})
    ml = sparray.linalg.amg(A, presmoother=pre, postsmoother=post, max_coarse=8)
    x, info = sparray.linalg.cg(A, b, rtol=1e-10, M=ml, maxiter=100)
    assert info == 0
    np.testing.assert_allclose(np.asarray(x), np.linalg.solve(ref, b), rtol=1e-7, atol=1e-9)
    assert pre[0] in repr(ml)


def test_unsmoothed_aggregation_and_per_level_options():
    S = poisson2d(16)
    A, _ = as_sparray(S, "csr")
    plain = sparray.linalg.amg(A, smooth=None, max_coarse=8)
    lv = plain.levels[0]
    P = lv.P.to_dense()
    assert (np.count_nonzero(P, axis=1) <= 1).all()  # the tentative prolongator: one aggregate a row
    ml = sparray.linalg.amg(A, strength=[("symmetric", {"theta": 0.0}), ("symmetric", {"theta": 0.25})], max_coarse=8)
    assert len(ml.levels) >= 2


def test_small_and_degenerate_matrices():
    amg = sparray.linalg.amg
    empty = amg(sparray.asarray(ss.csr_matrix((0, 0)), layout="csr"))
    assert (empty @ np.zeros(0)).shape == (0,)
    one = amg(sparray.asarray(np.array([[4.0]]), layout="csr"))
    np.testing.assert_allclose(one @ np.array([2.0]), [0.5])
    # two disconnected grids, and a Dirichlet row (an isolated node: in no aggregate)
    S = ss.block_diag([poisson2d(10), poisson2d(10)]).tolil()
    S[5, :] = 0
    S[:, 5] = 0
    S[5, 5] = 1.0
    S = S.tocsr()
    A = sparray.asarray(S, layout="csr")
    b = rhs(200)
    x = amg(A, max_coarse=4).solve(b, tol=1e-10, accel="cg")
    np.testing.assert_allclose(x, np.linalg.solve(S.toarray(), b), rtol=1e-8, atol=1e-10)
    # a diagonal matrix has no strong connections: one level; its dense inverse is refused above
    # COARSE_DENSE_MAX unknowns, and coarse_solver="relax" sweeps it instead (exact for a diagonal)
    n = sparray.linalg._amg.solver.COARSE_DENSE_MAX + 1
    D = sparray.asarray(ss.diags(np.arange(1.0, n + 1)).tocsr(), layout="csr")
    with pytest.raises(ValueError, match="coarse_solver='relax'"):
        amg(D)
    ml = amg(D, coarse_solver="relax")
    assert len(ml.levels) == 1 and "relax" in repr(ml)
    np.testing.assert_allclose(ml @ np.ones(n), 1 / np.arange(1.0, n + 1), rtol=1e-12)
    with pytest.raises(ValueError, match="max_levels"):
        amg(sparray.asarray(poisson2d(80), layout="csr"), max_levels=1)


# --- the simulated device ---------------------------------------------------------------------------------
@requires_gxx
@pytest.mark.parametrize("layout,fill", [("bsr", 0.01)])  # (CI time: the emulator; every layout runs on the host above)
def test_on_the_simulated_device(layout, fill):
    from sparray.kernels.cuda.simulated import counting, is_simulated, to_simulated

    S = poisson2d(10) + ss.diags(np.linspace(0.0, 1.0, 100))
    A, ref = as_sparray(S, layout, fill)
    Ad = A.to_device("simulated")
    b = rhs(100)
    bd = to_simulated(b)
    ml = sparray.linalg.amg(Ad, max_coarse=8)
    assert "chebyshev" in repr(ml) and ml.host_setup["bytes_to_device"] > 0
    host = sparray.linalg.amg(A, presmoother=("chebyshev", {}), postsmoother=("chebyshev", {}), max_coarse=8)
    with counting() as c:
        y = ml @ bd
    assert is_simulated(y) and c.syncs == 0  # a cycle reads nothing back
    np.testing.assert_allclose(y.get(), host @ b, rtol=1e-10, atol=1e-12)
    calls = []
    with counting() as c:
        x, info = sparray.linalg.cg(Ad, bd, rtol=1e-10, M=ml, callback=lambda xk: calls.append(1))
    assert info == 0 and is_simulated(x)
    assert c.syncs <= len(calls) + 3  # the solver's one read per iteration and its start
    np.testing.assert_allclose(x.get(), np.linalg.solve(ref, b), rtol=1e-7, atol=1e-9)
    with pytest.raises(ValueError, match="NumPy data only"):
        sparray.linalg.amg(Ad, presmoother="gauss_seidel")


def test_in_a_strict_namespace():
    """array_api_strict data: the levels and the cycle in that namespace (array API calls only), the
    same results as the host hierarchy with the same (Chebyshev) smoother."""
    xs = pytest.importorskip("array_api_strict")
    H = sparray.asarray(poisson2d(12), layout="csr")
    A = sparray.CSR(xs.asarray(H.crow_indices), xs.asarray(H.col_indices), xs.asarray(H.values), shape=H.shape)
    ml = sparray.linalg.amg(A, max_coarse=8)
    host = sparray.linalg.amg(H, presmoother="chebyshev", postsmoother="chebyshev", max_coarse=8)
    b = rhs(144)
    y = ml @ xs.asarray(b)
    assert type(y).__module__.startswith("array_api_strict")
    np.testing.assert_allclose(np.asarray(y), host @ b, rtol=1e-12, atol=1e-14)
    x = ml.solve(xs.asarray(b), tol=1e-10, accel="cg")
    np.testing.assert_allclose(np.asarray(x), np.linalg.solve(poisson2d(12).toarray(), b), rtol=1e-8, atol=1e-10)


# --- errors -------------------------------------------------------------------------------------------------
def test_errors():
    A = sparray.asarray(poisson2d(4), layout="csr")
    amg = sparray.linalg.amg
    with pytest.raises(ValueError, match="square"):
        amg(sparray.asarray(np.ones((3, 4)), layout="csr"))
    with pytest.raises(TypeError, match="sparray array"):
        amg(np.eye(3))
    with pytest.raises(ValueError, match="kind"):
        amg(A, kind="classical")
    with pytest.raises(ValueError, match="strength"):
        amg(A, strength="evolution")
    with pytest.raises(ValueError, match="theta"):
        amg(A, strength=("symmetric", {"theta": -1.0}))
    with pytest.raises(TypeError, match="options"):
        amg(A, smooth=("jacobi", {"weight": 1.0}))
    with pytest.raises(ValueError, match="presmoother"):
        amg(A, presmoother="sor")
    with pytest.raises(ValueError, match="coarse_solver"):
        amg(A, coarse_solver="splu")
    with pytest.raises(ValueError, match=r"B must have shape \(16, K\)"):
        amg(A, B=np.ones((5, 1)))
    with pytest.raises(ValueError, match="cycle"):
        amg(A).solve(np.ones(16), cycle="X")
    with pytest.raises(ValueError, match="accel"):
        amg(A).solve(np.ones(16), accel="lsqr")
    with pytest.raises(ValueError, match="finite fill"):
        amg(sparray.asarray(np.eye(4), layout="csr", fill_value=np.nan))
    with pytest.raises(ValueError, match="finite values"):
        amg(sparray.COO([[0, 1], [0, 1]], [np.inf, 1.0], shape=(2, 2)))
    with pytest.raises(ValueError, match="positive definite"):
        amg(as_sparray(poisson2d(4), "csr", -1.0)[0])  # S = 5 I on the pattern: 1 - sum(S^-1 1) < 0
    with pytest.raises(ValueError, match="shape"):
        amg(A) @ np.ones(5)
