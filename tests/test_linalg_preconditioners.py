"""The preconditioners of sparray.linalg (``_preconditioners.py``: jacobi, ilu0, ichol0) and their
numba kernels (``sparray/kernels/cpu/ilu.py``).

ILU(0) and IC(0) factors are checked against dense reference implementations written here (loops
over the pattern, no shared code) on random diagonally dominant matrices of every layout and of
float32 / float64 / complex128; a tridiagonal matrix has no fill-in, so there ILU(0) and IC(0) are
exact (``M @ (A @ x) == x``). The end-to-end test runs SciPy's cg on a 2-D Poisson matrix with and
without the preconditioners (iteration counts), beside SciPy's spilu. Errors: non-square, non-zero
fill, missing diagonal, zero / non-positive pivots, non-finite data, other namespaces; the kernels'
checks of corrupt encodings (no index is used before it is checked).
"""

import numpy as np
import pytest

import sparray
from sparray.kernels.cpu import ilu as K
from sparray.linalg._preconditioners import IChol0, ILU0, Jacobi, ichol0, ilu0, jacobi
from sparray_testing import make_coo

LAYOUTS = ["coo", "csr", "csc", "bsr", "bsc"]
DTYPES = ["float32", "float64", "complex128"]
TOL = {"float32": 2e-4, "float64": 1e-11, "complex64": 2e-4, "complex128": 1e-11}


# --- references ------------------------------------------------------------------------------------
def ilu0_ref(D, P):
    """Dense ILU(0) (IKJ Gaussian elimination, updates kept on the pattern ``P`` only): the factors
    packed in one matrix (L's strictly lower part, U with the diagonal)."""
    n = D.shape[0]
    LU = np.where(P, D, 0).astype(np.complex128 if D.dtype.kind == "c" else np.float64)
    for i in range(1, n):
        for k in range(i):
            if not P[i, k]:
                continue
            LU[i, k] /= LU[k, k]
            for j in range(k + 1, n):
                if P[i, j]:
                    LU[i, j] -= LU[i, k] * LU[k, j]
    return LU


def ic0_ref(D, P):
    """Dense IC(0) (right-looking Cholesky, updates kept on the lower pattern only): L."""
    n = D.shape[0]
    P = np.tril(P)
    L = np.where(P, D, 0).astype(np.complex128 if D.dtype.kind == "c" else np.float64)
    for k in range(n):
        L[k, k] = np.sqrt(L[k, k].real)
        for i in range(k + 1, n):
            if P[i, k]:
                L[i, k] /= L[k, k]
        for j in range(k + 1, n):
            for i in range(j, n):
                if P[i, j]:
                    L[i, j] -= L[i, k] * np.conj(L[j, k])
    return L


def random_dd(rng, n, dtype, density=0.15, hermitian=False):
    """A random diagonally dominant matrix (dense) with every diagonal entry non-zero."""
    dt = np.dtype(dtype)
    mask = rng.random((n, n)) < density
    V = rng.standard_normal((n, n))
    if dt.kind == "c":
        V = V + 1j * rng.standard_normal((n, n))
    D = np.where(mask, V, 0)
    if hermitian:
        D = np.tril(D, -1)
        D = D + D.conj().T
    np.fill_diagonal(D, np.abs(D).sum(axis=1) + 1.0)
    return D.astype(dt)


def make(D, layout, *, duplicates=False, rng=None):
    """``D`` as a sparray array of ``layout`` (zero fill); a COO with ``duplicates`` splits some
    entries into two parts, in shuffled order."""
    if layout == "coo" and duplicates:
        r, c = np.nonzero(D)
        v = D[r, c]
        half = v / 2
        idx = np.concatenate([np.stack([r, c]), np.stack([r[::3], c[::3]])], axis=1)
        vals = np.concatenate([np.where(np.arange(len(v)) % 3 == 0, half, v), half[::3]]).astype(D.dtype)
        perm = rng.permutation(idx.shape[1])
        return sparray.COO(idx[:, perm], vals[perm], shape=D.shape)
    if layout in ("bsr", "bsc"):
        return sparray.asarray(D, layout=layout, blocksize=(2, 2), fill_value=0)
    return sparray.asarray(D, layout=layout, fill_value=0)


def pattern(A):
    """The specified positions of the sparse ``A`` (its CSR conversion, duplicates merged)."""
    B = A.to_layout("csr")
    P = np.zeros(A.shape, bool)
    crow, col = np.asarray(B.crow_indices), np.asarray(B.col_indices)
    for i in range(A.shape[0]):
        P[i, col[crow[i] : crow[i + 1]]] = True
    return P


def dense(x):
    return x.to_dense() if isinstance(x, sparray.SparseArray) else np.asarray(x)


def poisson2d(m):
    import scipy.sparse as sp

    T = sp.diags_array([-np.ones(m - 1), 2 * np.ones(m), -np.ones(m - 1)], offsets=[-1, 0, 1])
    I = sp.eye_array(m)
    return (sp.kron(I, T) + sp.kron(T, I)).tocsr()


# --- ILU(0) ----------------------------------------------------------------------------------------
@pytest.mark.parametrize("dtype", DTYPES)
def test_ilu0_factors_match_reference(dtype):
    rng = np.random.default_rng(1)
    D = random_dd(rng, 24, dtype)
    A = make(D, "csr")
    M = ilu0(A)
    assert isinstance(M, ILU0) and M.shape == (24, 24) and M.dtype == np.dtype(dtype)
    ref = ilu0_ref(D, D != 0)
    L, U = dense(M.L), dense(M.U)
    tol = TOL[dtype] * np.abs(ref).max()
    np.testing.assert_allclose(L, np.tril(ref, -1) + np.eye(24), atol=tol)
    np.testing.assert_allclose(U, np.triu(ref), atol=tol)
    assert M.L.layout == "csr" and M.L.dtype == M.U.dtype
    # M @ v solves L U x = v
    v = rng.standard_normal(24).astype(dtype)
    x = M @ v
    assert x.dtype == np.dtype(dtype) and x.shape == (24,)
    np.testing.assert_allclose(L @ (U @ x), v, atol=TOL[dtype] * 10)
    assert (M.L.nse, M.U.nse) == (np.count_nonzero(np.tril(D, -1)) + 24, np.count_nonzero(np.triu(D)))


@pytest.mark.parametrize("layout", LAYOUTS)
def test_ilu0_every_layout(layout):
    rng = np.random.default_rng(2)
    D = random_dd(rng, 20, "float64")
    A = make(D, layout, duplicates=True, rng=rng)
    np.testing.assert_allclose(dense(A), D, atol=1e-14)
    P = pattern(A)  # block layouts specify every element of a block: a larger pattern
    ref = ilu0_ref(D, P)
    M = ilu0(A)
    np.testing.assert_allclose(dense(M.L), np.tril(ref, -1) + np.eye(20), atol=1e-12)
    np.testing.assert_allclose(dense(M.U), np.triu(ref), atol=1e-12)
    B = rng.standard_normal((20, 3))
    X = M @ B  # several columns at once
    np.testing.assert_allclose(dense(M.L) @ dense(M.U) @ X, B, atol=1e-10)
    np.testing.assert_allclose(X[:, 1], M @ B[:, 1], atol=1e-14)


@pytest.mark.parametrize("dtype", DTYPES)
def test_ilu0_tridiagonal_is_exact(dtype):
    rng = np.random.default_rng(3)
    n = 40
    D = np.diag(rng.standard_normal(n - 1), -1) + np.diag(rng.standard_normal(n - 1), 1)
    if np.dtype(dtype).kind == "c":
        D = D + 1j * np.diag(rng.standard_normal(n - 1), 1)
    np.fill_diagonal(D, 4.0)
    D = D.astype(dtype)
    A = make(D, "csr")
    M = ilu0(A)
    x = rng.standard_normal(n).astype(dtype)
    np.testing.assert_allclose(M @ dense(A @ x), x, rtol=TOL[dtype] * 10, atol=TOL[dtype] * 10)
    np.testing.assert_allclose(dense(M.L) @ dense(M.U), D, atol=TOL[dtype] * 10)


def test_ilu0_integer_data_and_explicit_zeros():
    D = np.array([[4, 1, 0], [1, 4, 1], [0, 1, 4]])
    M = ilu0(sparray.asarray(D, layout="csr"))
    assert M.dtype == np.float64
    np.testing.assert_allclose(M @ (D @ np.array([1.0, 2.0, 3.0])), [1.0, 2.0, 3.0])
    # an explicit zero is part of the pattern: fill-in at (2, 0) is kept there
    A = sparray.CSR([0, 3, 5, 8], [0, 1, 2, 0, 1, 0, 1, 2], [4.0, 1.0, 1.0, 1.0, 4.0, 0.0, 1.0, 4.0], shape=(3, 3))
    P = pattern(A)
    assert P[2, 0] and not P[1, 2]
    ref = ilu0_ref(dense(A), P)
    np.testing.assert_allclose(dense(ilu0(A).U), np.triu(ref))
    np.testing.assert_allclose(dense(ilu0(A).L), np.tril(ref, -1) + np.eye(3))


# --- IC(0) -----------------------------------------------------------------------------------------
@pytest.mark.parametrize("dtype", DTYPES)
def test_ichol0_factor_matches_reference(dtype):
    rng = np.random.default_rng(4)
    D = random_dd(rng, 24, dtype, hermitian=True)
    A = make(D, "csr")
    M = ichol0(A)
    assert isinstance(M, IChol0) and M.dtype == np.dtype(dtype)
    ref = ic0_ref(D, D != 0)
    L = dense(M.L)
    np.testing.assert_allclose(L, ref, atol=TOL[dtype] * np.abs(ref).max())
    assert np.all(np.diag(L).real > 0) and np.all(np.diag(L).imag == 0)
    v = rng.standard_normal(24).astype(dtype)
    x = M @ v
    np.testing.assert_allclose(L @ (L.conj().T @ x), v, atol=TOL[dtype] * 10)


@pytest.mark.parametrize("layout", LAYOUTS)
def test_ichol0_every_layout_reads_the_lower_triangle(layout):
    rng = np.random.default_rng(5)
    D = random_dd(rng, 20, "float64", hermitian=True)
    A = make(D, layout, duplicates=True, rng=rng)
    ref = ic0_ref(D, pattern(A))
    M = ichol0(A)
    np.testing.assert_allclose(dense(M.L), ref, atol=1e-12)
    # the upper triangle is not read
    G = np.tril(D) + np.triu(rng.standard_normal(D.shape), 1) * (D != 0)
    np.testing.assert_allclose(dense(ichol0(make(G, "csr")).L), ic0_ref(D, D != 0), atol=1e-12)
    B = rng.standard_normal((20, 2))
    X = M @ B
    np.testing.assert_allclose(ref @ (ref.T @ X), B, atol=1e-10)


@pytest.mark.parametrize("dtype", ["float64", "complex128"])
def test_ichol0_tridiagonal_is_exact(dtype):
    rng = np.random.default_rng(6)
    n = 30
    off = rng.standard_normal(n - 1) + (1j * rng.standard_normal(n - 1) if dtype == "complex128" else 0)
    D = (np.diag(off, -1) + np.diag(np.conj(off), 1) + 4 * np.eye(n)).astype(dtype)
    A = make(D, "csc")
    M = ichol0(A)
    x = rng.standard_normal(n).astype(dtype)
    np.testing.assert_allclose(M @ dense(A @ x), x, atol=1e-12)
    L = dense(M.L)
    np.testing.assert_allclose(L @ L.conj().T, D, atol=1e-12)


# --- applying ----------------------------------------------------------------------------------------
def test_apply_dtypes_and_vectors():
    rng = np.random.default_rng(7)
    D = random_dd(rng, 10, "float32", hermitian=True)
    for M in (ilu0(make(D, "csr")), ichol0(make(D, "csr"))):
        v64 = rng.standard_normal(10)
        v32 = v64.astype(np.float32)
        kept = v32.copy()
        M @ v32
        assert (v32 == kept).all()  # the solve works on a copy
        assert (M @ v64).dtype == np.float64  # promoted: the factors are cast once, then kept
        np.testing.assert_allclose(M @ v64, M @ v64.astype(np.float32), rtol=1e-4)
        vc = v64 + 1j * rng.standard_normal(10)
        xc = M @ vc
        assert xc.dtype == np.complex128
        np.testing.assert_allclose(xc, (M @ vc.real) + 1j * (M @ vc.imag), rtol=1e-10)
        assert (M @ np.arange(10)).dtype == np.float32
        np.testing.assert_allclose(M @ list(v64), M @ v64)
        np.testing.assert_allclose(M @ sparray.asarray(v64), M @ v64)  # a sparray vector: its dense form
        np.testing.assert_allclose(M.matvec(v64), M @ v64)
        assert (M @ np.zeros((10, 0))).shape == (10, 0)
        with pytest.raises(ValueError, match=r"v must have shape \(10,\) or \(10, k\); got \(9,\)"):
            M @ np.ones(9)
        with pytest.raises(ValueError, match="v must have shape"):
            M @ np.ones((10, 2, 2))
        with pytest.raises(TypeError, match="needs a dense array"):
            M @ "abc"
        with pytest.raises(TypeError, match="v has dtype"):
            M @ np.array(["a"] * 10)
        assert "preconditioner 10x10" in repr(M)
    xp = pytest.importorskip("array_api_strict")
    with pytest.raises(TypeError, match="the factors are NumPy arrays"):
        ilu0(make(D, "csr")) @ xp.ones(10)


def test_scipy_cg_converges_faster_with_ilu0_and_ichol0():
    spla = pytest.importorskip("scipy.sparse.linalg")
    from sparray.interop.scipy import from_scipy

    S = poisson2d(24)
    A = from_scipy(S)
    n = S.shape[0]
    b = np.random.default_rng(8).standard_normal(n)

    def iterations(M=None):
        count = [0]

        def cb(_):
            count[0] += 1

        op = None if M is None else spla.LinearOperator(M.shape, matvec=lambda v: M @ v, dtype=M.dtype)
        x, info = spla.cg(S, b, rtol=1e-8, M=op, maxiter=1000, callback=cb)
        assert info == 0
        assert np.linalg.norm(S @ x - b) <= 1e-7 * np.linalg.norm(b)
        return count[0]

    plain, with_ilu, with_ic = iterations(), iterations(ilu0(A)), iterations(ichol0(A))
    assert with_ilu < 0.6 * plain and with_ic < 0.6 * plain, (plain, with_ilu, with_ic)
    assert abs(with_ilu - with_ic) <= 2  # IC(0) and ILU(0) of a symmetric matrix give one preconditioner
    # SciPy's incomplete LU without drop tolerance and no extra fill (SuperLU's ILUTP: pivoting and a
    # column order, so not ILU(0) and not symmetric: cg stalls with it), compared under gmres
    ilu = spla.spilu(S.tocsc(), drop_tol=0, fill_factor=1)

    def gmres_iterations(solve):
        count = [0]

        def cb(_):
            count[0] += 1

        op = spla.LinearOperator(S.shape, matvec=solve, dtype=np.float64)
        _, info = spla.gmres(S, b, rtol=1e-8, M=op, restart=200, maxiter=5, callback=cb, callback_type="pr_norm")
        assert info == 0
        return count[0]

    ours, theirs = gmres_iterations(ilu0(A).__matmul__), gmres_iterations(ilu.solve)
    assert ours <= 1.5 * theirs + 5, (ours, theirs)
    # the products agree with the dense reference of ILU(0) on this pattern (symmetric: U = D L^T)
    M = ilu0(A)
    L, U = dense(M.L), dense(M.U)
    np.testing.assert_allclose(U, np.diag(np.diag(U)) @ L.T, atol=1e-12)
    # Jacobi on Poisson (constant diagonal) is a scaling: the same iterations
    assert abs(iterations(jacobi(A)) - plain) <= 1


# --- errors ----------------------------------------------------------------------------------------
@pytest.mark.parametrize("factory,what", [(ilu0, "ILU(0)"), (ichol0, "IC(0)")])
def test_ilu_ic_errors(factory, what):
    who = f"sparray.linalg.{factory.__name__}"
    with pytest.raises(ValueError, match=f"{who}: A must be square; got shape \\(2, 3\\)"):
        factory(sparray.asarray(np.ones((2, 3)), layout="csr"))
    for fill in (1.5, float("nan")):
        A = sparray.COO([[0, 1], [0, 1]], [2.0, 3.0], shape=(2, 2), fill_value=fill)
        with pytest.raises(ValueError, match=f"non-zero fill value.*dense everywhere and {what.replace('(', '.').replace(')', '.')} on its pattern would be a full .dense. LU"):
            factory(A)
    missing = sparray.CSR([0, 1, 2, 3], [0, 0, 2], [1.0, 0.5, 1.0], shape=(3, 3))
    with pytest.raises(ValueError, match=f"{who}: row 1 has no diagonal entry"):
        factory(missing)
    with pytest.raises(ValueError, match="must hold finite values"):
        factory(sparray.asarray(np.array([[1.0, np.inf], [np.inf, 1.0]]), layout="csr"))
    with pytest.raises(TypeError, match="must be a sparray array of a sparse layout"):
        factory(np.eye(3))
    with pytest.raises(ValueError, match="2-D sparse matrix with no dense dims"):
        factory(make_coo(np.random.default_rng(0), (3, 3, 2), 2)[0])  # a hybrid matrix
    xp = pytest.importorskip("array_api_strict")
    A = sparray.COO(xp.asarray([[0, 1], [0, 1]]), xp.asarray([2.0, 3.0]), shape=(2, 2))
    M = factory(A)  # another namespace: factored on the host, applied in that namespace
    with pytest.raises(TypeError, match="v is an array of .*numpy, but the preconditioner's are arrays of array_api_strict"):
        M @ np.ones(2)


@pytest.mark.parametrize("factory", [ilu0, ichol0])
@pytest.mark.parametrize("dtype", DTYPES)
def test_level_scheduled_apply_in_another_namespace(factory, dtype):
    """Factors of an array_api_strict matrix are applied by level schedules in that namespace (array
    API calls only): the same result as the numba solves of the NumPy factors, for one vector and for
    columns, and the input is not written."""
    xs = pytest.importorskip("array_api_strict")
    rng = np.random.default_rng(4)
    n = 40
    D = np.where(rng.random((n, n)) < 0.12, rng.standard_normal((n, n)), 0.0)
    if dtype.startswith("complex"):
        D = D + np.where(D != 0, 1j * rng.standard_normal((n, n)), 0)
    D = D + D.conj().T + 2 * n * np.eye(n) if factory is ichol0 else D + n * np.eye(n)
    H = sparray.asarray(D.astype(dtype), layout="csr")
    A = sparray.CSR(xs.asarray(H.crow_indices), xs.asarray(H.col_indices), xs.asarray(H.values), shape=H.shape)
    M, Mh = factory(A), factory(H)
    assert M._device is not None and M._device.levels[0] > 2
    for shape in ((n,), (n, 3)):
        v = rng.standard_normal(shape).astype(dtype)
        vx = xs.asarray(v)
        y = M @ vx
        assert type(y).__module__.startswith("array_api_strict") and y.shape == shape
        np.testing.assert_allclose(np.asarray(y), Mh @ v, rtol=TOL[dtype], atol=TOL[dtype])
        np.testing.assert_array_equal(np.asarray(vx), v)
    # sparray vectors, and a real vector to complex factors (promoted)
    y = M @ sparray.asarray(xs.asarray(np.ones(n, dtype)))
    np.testing.assert_allclose(np.asarray(y), Mh @ np.ones(n, dtype), rtol=TOL[dtype], atol=TOL[dtype])


def test_zero_and_non_positive_pivots():
    with pytest.raises(ValueError, match=r"sparray.linalg.ilu0: zero pivot in row 1"):
        ilu0(sparray.asarray(np.array([[1.0, 1.0], [1.0, 1.0]]), layout="csr"))
    explicit = sparray.CSR([0, 2, 4], [0, 1, 0, 1], [0.0, 1.0, 1.0, 1.0], shape=(2, 2))  # A[0, 0] stored as 0
    with pytest.raises(ValueError, match=r"zero pivot in row 0"):
        ilu0(explicit)
    with pytest.raises(ValueError, match=r"sparray.linalg.ichol0: non-positive pivot in row 1; the matrix is not positive definite"):
        ichol0(sparray.asarray(np.array([[1.0, 2.0], [2.0, 1.0]]), layout="csr"))
    with pytest.raises(ValueError, match=r"non-positive pivot in row 0"):
        ichol0(sparray.asarray(np.array([[-1.0, 0.0], [0.0, 1.0]]), layout="csr"))
    with pytest.raises(ValueError, match=r"A\[1, 1\] has a non-zero imaginary part"):
        ichol0(sparray.asarray(np.array([[2.0, 0.0], [0.0, 1.0 + 1j]]), layout="csr"))


def test_empty_and_one_by_one():
    E = sparray.CSR([0], np.zeros(0, np.int64), np.zeros(0), shape=(0, 0))
    for M in (ilu0(E), ichol0(E), jacobi(E)):
        assert M.shape == (0, 0) and (M @ np.zeros(0)).shape == (0,)
    one = sparray.asarray(np.array([[4.0]]), layout="csr")
    assert (ilu0(one) @ np.array([2.0])).tolist() == [0.5]
    assert (ichol0(one) @ np.array([2.0])).tolist() == [0.5]
    assert dense(ichol0(one).L).tolist() == [[2.0]]


# --- kernels ---------------------------------------------------------------------------------------
def test_kernel_canonical_csr():
    p, i, v = K.canonical_csr([0, 3, 5], [2, 0, 2, 1, 1], np.array([1.0, 2.0, 3.0, 4.0, 5.0]), 3)
    assert (p.tolist(), i.tolist(), v.tolist()) == ([0, 2, 3], [0, 2, 1], [2.0, 4.0, 9.0])
    assert p.dtype == i.dtype == np.int64
    # canonical input comes back as is (no copy), int32 indices kept; sorting makes int64
    p32, i32, v32 = np.array([0, 1, 3], np.int32), np.array([0, 0, 1], np.int32), np.array([1.0, 2.0, 3.0], np.float32)
    p2, i2, v2 = K.canonical_csr(p32, i32, v32, 2)
    assert p2 is p32 and i2 is i32 and v2 is v32
    p3, i3, v3 = K.canonical_csr(p32, i32[::-1].copy(), v32, 2)  # row 1 repeats column 0
    assert p3.dtype == i3.dtype == np.int64 and (p3.tolist(), i3.tolist(), v3.tolist()) == ([0, 1, 2], [1, 0], [1.0, 5.0])
    p4, i4, _ = K.canonical_csr(p32, i32.astype(np.int64), v32, 2)  # mixed: int64
    assert p4.dtype == i4.dtype == np.int64
    with pytest.raises(ValueError, match=r"indptr must start at 0, end at nse = 2 and not decrease"):
        K.canonical_csr([0, 3, 2], [0, 1], np.ones(2), 2)
    with pytest.raises(ValueError, match=r"indptr must start at 0"):
        K.canonical_csr([0, 1], [0, 1], np.ones(2), 2)
    with pytest.raises(ValueError, match=r"a column index of row 1 is outside \[0, 2\)"):
        K.canonical_csr([0, 1, 2], [0, -1], np.ones(2), 2)
    with pytest.raises(TypeError, match="cast first"):
        K.canonical_csr([0, 1], [0], np.ones(1, np.int64), 1)


def test_kernels_check_every_index():
    indptr, indices, values = np.array([0, 2, 4]), np.array([1, 0, 0, 1]), np.array([1.0, 4.0, 1.0, 4.0])
    with pytest.raises(ValueError, match="ilu0_factor: row 0 has a column index out of range or out of order"):
        K.ilu0_factor(indptr, indices, values)  # unsorted: canonical_csr first
    with pytest.raises(ValueError, match="row 1 has a column index out of range"):
        K.ilu0_factor(indptr, np.array([0, 1, 0, 7]), values)
    with pytest.raises(ValueError, match="invalid CSR pointers"):
        K.ilu0_factor(np.array([0, 5, 4]), np.array([0, 1, 0, 1]), values)
    good, values = np.array([0, 1, 0, 1]), np.array([4.0, 1.0, 1.0, 4.0])
    lu, diag = K.ilu0_factor(indptr, good, values)
    with pytest.raises(ValueError, match="diagonal positions do not fit"):
        K.ilu0_solve(indptr, good, lu, np.array([0, 9]), np.ones(2))
    with pytest.raises(ValueError, match="row 1 has a column index out of range"):
        K.ilu0_solve(indptr, np.array([0, 1, 5, 1]), lu, diag, np.ones(2))
    with pytest.raises(TypeError, match="b has dtype float32"):
        K.ilu0_solve(indptr, good, lu, diag, np.ones(2, np.float32))
    with pytest.raises(ValueError, match="row 0 has an entry above the diagonal"):
        K.ic0_factor(indptr, good, values)
    lp, li, lv = K.tril_csr(indptr, good, values)
    l = K.ic0_factor(lp, li, lv)
    with pytest.raises(ValueError, match="diagonal positions do not fit"):
        K.ic0_solve(lp, np.array([0, 0, 0]), l, np.ones(2))  # row 1's last entry is not its diagonal
    with pytest.raises(ValueError, match="row 1 has a column index out of range"):
        K.ic0_solve(lp, np.array([0, 3, 1]), l, np.ones(2))
    with pytest.raises(ValueError, match="the pivot of row 1 is not finite"):
        K.ilu0_factor(indptr, good, np.array([1.0, 4.0, 1.0, np.nan]))


def test_tril_csr_kernel():
    rng = np.random.default_rng(24)
    indptr, indices, values, D = random_packed(rng, 23, "complex128", density=0.3)
    for itype in (np.int64, np.int32):
        p, i, v = K.tril_csr(indptr.astype(itype), indices.astype(itype), values)
        assert p.dtype == i.dtype == np.dtype(itype) and v.dtype == values.dtype
        rows = np.repeat(np.arange(23), np.diff(p))
        T = np.zeros_like(D)
        T[rows, i] = v
        assert np.array_equal(T, np.tril(D)) and np.all(np.diff(p) == np.count_nonzero(np.tril(D), axis=1))
    with pytest.raises(ValueError, match="tril_csr: invalid CSR pointers"):
        K.tril_csr(np.array([0, 3, 2, 4]), np.array([0, 0, 1, 2]), np.ones(4))
    with pytest.raises(ValueError, match="tril_csr: invalid CSR pointers"):
        K.tril_csr(np.array([0, 1, 9]), np.array([0, 0, 1]), np.ones(3))


@pytest.mark.parametrize("dtype", ["float64", "complex128"])
def test_int32_indices_give_the_same_bits(dtype):
    """int32 indices (SciPy's) are kept through the factorizations (the solve-ready form is
    int64), and give bit for bit what int64 indices give; IC(0)'s ``L^H`` built straight from ``L`` is the
    Triangle of the explicit conjugate transpose."""
    sp = pytest.importorskip("scipy.sparse")
    rng = np.random.default_rng(25)
    D = random_dd(rng, 40, dtype, hermitian=True)
    S = sp.csr_array(D)
    S32 = sp.csr_array((S.data, S.indices.astype(np.int32), S.indptr.astype(np.int32)), shape=S.shape)
    S64 = sp.csr_array((S.data, S.indices.astype(np.int64), S.indptr.astype(np.int64)), shape=S.shape)
    A32, A64 = sparray.asarray(S32, layout="csr"), sparray.asarray(S64, layout="csr")
    assert A32.col_indices.dtype == np.int32 and A64.col_indices.dtype == np.int64
    b = rng.standard_normal(40).astype(dtype)
    for factory in (ilu0, ichol0):
        M32, M64 = factory(A32), factory(A64)
        pair32, pair64 = M32._host._pairs[M32.dtype], M64._host._pairs[M64.dtype]
        for t32, t64 in zip(pair32, pair64):
            assert t32.indices.dtype == t64.indices.dtype == np.int64  # int64 solves measured faster
            for a32, a64 in zip(t32[:6], t64[:6]):
                assert np.array_equal(a32, a64)
        assert np.array_equal(M32 @ b, M64 @ b)
        for F32, F64 in ((M32.L, M64.L),) + (((M32.U, M64.U),) if factory is ilu0 else ()):
            assert F32.col_indices.dtype == F64.col_indices.dtype == np.int64  # M.L / M.U as before
            assert np.array_equal(dense(F32), dense(F64))
    # L^H's Triangle against the form builder on an explicit conjugate transpose
    M = ichol0(A64)
    lp, li, lv = M._indptr, M._indices, M._l
    n = 40
    last = lp[1:] - 1
    strict = np.ones(li.size, bool)
    strict[last] = False
    rows = np.repeat(np.arange(n), np.diff(lp))
    cols, trows, tvals = li[strict], rows[strict], np.conj(lv[strict])
    order = np.lexsort((trows, cols))
    tptr = np.zeros(n + 1, np.int64)
    np.cumsum(np.bincount(cols, minlength=n), out=tptr[1:])
    _, _, *ref = K._triangle(trows[order], tvals[order], tptr[:-1], tptr[1:], np.conj(lv[last]), False)
    for got, want in zip(M._host._pairs[M.dtype][1][:6], ref):
        assert np.array_equal(got, want)


def test_setup_allocates_about_its_output():
    """A count, not a time: ``ichol0(A)`` and ``ilu0(A)`` on a 2-D Poisson matrix with SciPy's
    int32 indices allocate (tracemalloc's peak, which sees NumPy's and numba's arrays) little
    beyond what the preconditioner keeps, and keep (the factor and its two solve-ready
    triangles, A's own index arrays left out) about 25 bytes per entry of ``A``: now a peak of
    28.6 (IC) and 29.4 (ILU) bytes per entry, 24.5 and 26.1 kept; before the setup kept int32
    indices and built tril and ``L^H`` without nse-sized temporaries, 45.4 and 39.0 (27.7 and
    35.7 kept)."""
    import tracemalloc

    sp = pytest.importorskip("scipy.sparse")
    k = 120
    T = sp.diags_array([-1.0, 2.0, -1.0], offsets=[-1, 0, 1], shape=(k, k))
    S = sp.csr_array(sp.kron(T, sp.eye_array(k)) + sp.kron(sp.eye_array(k), T))
    S.sort_indices()
    A = sparray.asarray(S, layout="csr")
    assert A.col_indices.dtype == np.int32
    nse = S.nnz
    ichol0(A), ilu0(A)  # compiled and loaded before counting
    own = (A.crow_indices, A.col_indices, A.values)
    for factory in (ichol0, ilu0):
        tracemalloc.start()
        try:
            M = factory(A)
            peak = tracemalloc.get_traced_memory()[1]
        finally:
            tracemalloc.stop()
        kept = [a for t in M._host._pairs[M.dtype] for a in t[:6]]
        kept += [M._indptr, M._indices, M._l] if factory is ichol0 else [M._indptr, M._indices, M._lu, M._diag]
        kept = sum(a.nbytes for a in kept if not any(np.may_share_memory(a, c) for c in own))
        assert kept < (26 if factory is ichol0 else 28) * nse, (factory.__name__, kept / nse)
        assert peak < min(kept + 6 * nse, 32 * nse), (factory.__name__, peak / nse, kept / nse)


# --- the solve-ready triangles ---------------------------------------------------------------------
ALL_DTYPES = ["float32", "float64", "complex64", "complex128"]


def random_packed(rng, n, dtype, density=0.2):
    """A random square CSR pattern with every diagonal entry (some rows without their first
    sub- or super-diagonal neighbour) and random values: ``(indptr, indices, values, D)``, ``D``
    dense. Read as packed ILU factors (unit ``L`` below the diagonal, ``U`` from it) or, through
    its lower triangle, as an IC factor."""
    dt = np.dtype(dtype)
    mask = rng.random((n, n)) < density
    np.fill_diagonal(mask, True)
    mask[np.arange(1, n, 3), np.arange(0, n - 1, 3)] = False  # rows missing x[i - 1]
    mask[np.arange(0, n - 1, 4), np.arange(1, n, 4)] = False  # rows missing x[i + 1]
    V = rng.standard_normal((n, n)) * 0.3
    if dt.kind == "c":
        V = V + 0.3j * rng.standard_normal((n, n))
    V[np.arange(n), np.arange(n)] = 2.0 + rng.random(n)
    D = np.where(mask, V, 0).astype(dt)
    rows, cols = np.nonzero(mask)
    indptr = np.zeros(n + 1, np.int64)
    np.cumsum(np.bincount(rows, minlength=n), out=indptr[1:])
    return indptr, cols.astype(np.int64), D[rows, cols], D


def right_hand_sides(rng, n, dtype):
    """``b`` as 1-d, a strided 1-d view, ``(n, k)`` C-ordered and a transposed (non-contiguous) one."""
    def draw(*shape):
        z = rng.standard_normal(shape)
        return (z + 1j * rng.standard_normal(shape) if np.dtype(dtype).kind == "c" else z).astype(dtype)
    return [draw(n), draw(2 * n)[::2], draw(n, 3), draw(4, n).T]


@pytest.mark.parametrize("dtype", ALL_DTYPES)
def test_triangles_against_scipy_triangular_solves(dtype):
    sla = pytest.importorskip("scipy.linalg")
    spla = pytest.importorskip("scipy.sparse.linalg")
    sp = pytest.importorskip("scipy.sparse")
    rng = np.random.default_rng(21)
    n = 37
    indptr, indices, values, D = random_packed(rng, n, dtype)
    tol = TOL[dtype] * 10
    # ILU(0)'s packed factors: unit L below the diagonal, U from it
    diag = indptr[:-1] + np.array([np.searchsorted(indices[indptr[i] : indptr[i + 1]], i) for i in range(n)])
    L, U = K.ilu0_triangles(indptr, indices, values, diag)
    assert L.lower and not U.lower and L.dtype == U.dtype == np.dtype(dtype)
    # the neighbour entries are kept apart, every other strict entry stays in the CSR
    assert L.indices.size + L.has_near.sum() == np.count_nonzero(np.tril(D, -1))
    assert U.indices.size + U.has_near.sum() == np.count_nonzero(np.triu(D, 1))
    assert L.has_near.tolist() == [i > 0 and D[i, i - 1] != 0 for i in range(n)]
    assert U.has_near.tolist() == [i < n - 1 and D[i, i + 1] != 0 for i in range(n)]
    np.testing.assert_allclose(U.inv_diag, 1 / np.diag(D), rtol=tol)
    Ld = np.tril(D, -1) + np.eye(n, dtype=dtype)
    Ud = np.triu(D)
    Lsp = sp.csr_array(Ld.astype(np.complex128 if D.dtype.kind == "c" else np.float64))
    for b in right_hand_sides(rng, n, dtype):
        x = K.solve_triangles(L, U, b)
        assert x.shape == b.shape and x.dtype == b.dtype
        bb = b.astype(Lsp.dtype)
        ref = sla.solve_triangular(Ud, spla.spsolve_triangular(Lsp, bb, lower=True, unit_diagonal=True), lower=False)
        np.testing.assert_allclose(x, ref, rtol=tol, atol=tol * np.abs(ref).max())
        np.testing.assert_allclose(K.ilu0_solve(indptr, indices, values, diag, b), x, rtol=1e-6 if tol > 1e-6 else 1e-14)
    # IC(0)'s factor: the lower triangle (diagonal last in each row), L^H stored by rows
    lp, li, lv = K.tril_csr(indptr, indices, values)
    Lc = np.tril(D)
    np.fill_diagonal(Lc, np.diag(D).real)
    lv = Lc[np.repeat(np.arange(n), np.diff(lp)), li]
    F, B = K.ic0_triangles(lp, li, lv)
    assert F.lower and not B.lower
    assert F.indices.size + F.has_near.sum() == B.indices.size + B.has_near.sum() == np.count_nonzero(np.tril(D, -1))
    for b in right_hand_sides(rng, n, dtype):
        x = K.ic0_solve(lp, li, lv, b)
        ref = np.linalg.solve(Lc.conj().T.astype(np.complex128), np.linalg.solve(Lc.astype(np.complex128), b.astype(np.complex128)))
        np.testing.assert_allclose(x, ref, rtol=tol, atol=tol * np.abs(ref).max())
        np.testing.assert_allclose(K.solve_triangles(F, B, b), x, rtol=1e-14, atol=0)


def test_triangles_follow_the_pattern_with_non_finite_values():
    """A row without the neighbour entry does not read the row solved before it: a nan in b
    reaches exactly the rows that depend on it through the pattern (as a sparse solve)."""
    n = 6
    # unit lower bidiagonal, except that row 3 has no entry (3, 2)
    indptr = np.array([0, 1, 3, 5, 6, 8, 10])
    indices = np.array([0, 0, 1, 1, 2, 3, 3, 4, 4, 5])
    values = np.array([1.0, 0.5, 1.0, 0.5, 1.0, 1.0, 0.5, 1.0, 0.5, 1.0])
    diag = np.array([0, 2, 4, 5, 7, 9])
    L, U = K.ilu0_triangles(indptr, indices, values, diag)
    assert L.has_near.tolist() == [False, True, True, False, True, True]
    b = np.ones(n)
    b[1] = np.nan
    # the ILU's U is the identity here: L's solve only
    x = K.solve_triangles(L, U, b)
    assert np.isnan(x).tolist() == [False, True, True, False, False, False]
    np.testing.assert_allclose(x[[0, 3, 4, 5]], [1.0, 1.0, 0.5, 0.75])


def test_triangle_kernels_check_corrupt_forms():
    """Every array of a Triangle is checked by the solve kernels: a corrupt one is a ValueError
    naming the row, never a read or write outside an array."""
    rng = np.random.default_rng(22)
    indptr, indices, values, _ = random_packed(rng, 12, "float64", density=0.4)
    lp, li, lv = K.tril_csr(indptr, indices, values)
    F, B = K.ic0_triangles(lp, li, lv)
    assert F.indices.size > 2 and B.indices.size > 2
    b = np.ones(12)
    bad = [
        (F._replace(indices=np.full_like(F.indices, 50)), B, "column index out of range"),
        (F._replace(indices=np.full_like(F.indices, -3)), B, "column index out of range"),
        (F, B._replace(indices=np.zeros_like(B.indices)), "column index out of range"),  # not above the row
        (F._replace(indptr=F.indptr + 1), B, "invalid CSR pointers"),
        (F, B._replace(indptr=np.concatenate([B.indptr[:-1], [10**6]])), "invalid CSR pointers"),
        (F, B._replace(indptr=B.indptr[::-1].copy()), "invalid CSR pointers"),
        (F._replace(values=F.values[:1]), B, "do not fit one another"),
        (F, B._replace(near=B.near[:-1]), "do not fit one another"),
        (F, B._replace(inv_diag=np.ones(13)), "do not fit one another"),
        (F._replace(has_near=np.ones(12, bool)), B, "invalid CSR pointers"),  # row 0 has no row before it
        (F, B._replace(has_near=np.ones(12, bool)), "invalid CSR pointers"),
    ]
    for lower, upper, msg in bad:
        with pytest.raises(ValueError, match=msg):
            K.solve_triangles(lower, upper, b)
    with pytest.raises(ValueError, match="a lower and an upper Triangle"):
        K.solve_triangles(B, F, b)
    with pytest.raises(TypeError, match="dtypes float64 and float32"):
        K.solve_triangles(F, B.astype(np.float32), b)
    with pytest.raises(TypeError, match="b has dtype complex128"):
        K.solve_triangles(F, B, b.astype(np.complex128))
    # the builders check the factors they are given
    diag = indptr[:-1] + np.array([np.searchsorted(indices[indptr[i] : indptr[i + 1]], i) for i in range(12)])
    with pytest.raises(ValueError, match="ilu0_triangles: the diagonal positions do not fit the rows of the factor \\(row 0"):
        K.ilu0_triangles(indptr, indices, values, diag + 1)
    with pytest.raises(ValueError, match="zero pivot in row 2"):
        K.ilu0_triangles(indptr, indices, np.where(np.arange(values.size) == diag[2], 0.0, values), diag)
    with pytest.raises(ValueError, match="ic0_triangles: the diagonal positions do not fit"):
        K.ic0_triangles(indptr, indices, values)  # the full pattern: a row's last entry is above its diagonal
    with pytest.raises(ValueError, match="invalid CSR pointers"):
        K.ic0_triangles(lp[::-1].copy(), li, lv)


def test_preconditioner_keeps_one_solve_form_per_dtype():
    rng = np.random.default_rng(23)
    D = random_dd(rng, 15, "float64", hermitian=True)
    for M in (ilu0(make(D, "csr")), ichol0(make(D, "csr"))):
        v = rng.standard_normal(15)
        x = M @ v
        assert list(M._host._pairs) == [np.dtype(np.float64)]
        xc = M @ (v + 0j)
        assert list(M._host._pairs) == [np.dtype(np.float64), np.dtype(np.complex128)]
        np.testing.assert_allclose(xc, x, rtol=1e-14)
        M @ (2 * v + 1j)  # the complex pair is kept, not rebuilt
        assert len(M._host._pairs) == 2
        np.testing.assert_allclose(M @ v[::1].repeat(2)[::2], x, rtol=0, atol=0)  # a strided v: the same result


# --- Jacobi ------------------------------------------------------------------------------------------
@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("fill", [0.0, 1.5])
def test_jacobi_every_layout_and_fill(layout, fill):
    rng = np.random.default_rng(9)
    D = np.where(rng.random((6, 6)) < 0.4, rng.standard_normal((6, 6)), fill)
    np.fill_diagonal(D, [1.0, 2.0, fill, -4.0, fill, 0.5])  # diagonal positions held by the fill too
    if fill == 0.0:
        D[2, 2] = D[4, 4] = 3.0
    kw = {"blocksize": (2, 3)} if layout in ("bsr", "bsc") else {}
    A = sparray.asarray(D, layout=layout, fill_value=fill, **kw)
    M = jacobi(A)
    assert isinstance(M, Jacobi) and M.shape == (6, 6) and M.dtype == np.float64
    v = rng.standard_normal(6)
    np.testing.assert_allclose(M @ v, v / np.diag(D))
    np.testing.assert_allclose(M @ np.stack([v, 2 * v], 1), np.stack([v, 2 * v], 1) / np.diag(D)[:, None])
    np.testing.assert_allclose(M.matvec(sparray.asarray(v)), v / np.diag(D))


def test_jacobi_dense_dtypes_and_namespaces():
    D = np.array([[2, 1], [0, 4]])
    M = jacobi(D)  # a dense NumPy matrix; integer data in float64
    assert M.dtype == np.float64 and (M @ np.array([1, 1])).tolist() == [0.5, 0.25]
    assert (M @ np.array([1j, 1.0])).dtype == np.complex128
    M32 = jacobi(sparray.asarray(D.astype(np.float32), layout="csr"))
    assert M32.dtype == np.float32 and (M32 @ np.ones(2, np.float32)).dtype == np.float32
    assert (M32 @ np.ones(2)).dtype == np.float64
    Mc = jacobi(np.array([[2j, 0], [0, 1]]))
    np.testing.assert_allclose(Mc @ np.ones(2), [-0.5j, 1.0])
    # COO duplicates on the diagonal are summed
    A = sparray.COO([[0, 0, 1], [0, 0, 1]], [1.0, 3.0, 2.0], shape=(2, 2))
    assert (jacobi(A) @ np.ones(2)).tolist() == [0.25, 0.5]
    xp = pytest.importorskip("array_api_strict")
    S = sparray.COO(xp.asarray([[0, 1], [0, 1]]), xp.asarray([2.0, 4.0]), shape=(2, 2), fill_value=xp.asarray(1.0))
    Ms = jacobi(S)
    out = Ms @ xp.asarray([1.0, 1.0])
    assert type(out).__module__.startswith("array_api_strict")
    np.testing.assert_allclose(np.asarray(out._array), [0.5, 0.25])
    out2 = jacobi(xp.asarray([[2.0, 1.0], [1.0, 8.0]])) @ xp.asarray([1, 1])  # integer v: cast, not mixed
    np.testing.assert_allclose(np.asarray(out2._array), [0.5, 0.125])
    with pytest.raises(TypeError, match="v is an array of array_api_strict, but the preconditioner's are arrays of"):
        jacobi(D) @ xp.asarray([1.0, 1.0])


def test_jacobi_errors():
    who = "sparray.linalg.jacobi"
    with pytest.raises(ValueError, match=rf"{who}: the diagonal entry A\[1, 1\] is zero"):
        jacobi(sparray.asarray(np.array([[1.0, 2.0], [3.0, 0.0]]), layout="csr"))
    with pytest.raises(ValueError, match=r"the diagonal entry A\[0, 0\] is zero"):
        jacobi(sparray.COO([[1], [0]], [1.0], shape=(2, 2)))  # unspecified: the fill 0
    with pytest.raises(ValueError, match=r"A\[1, 1\] is not finite"):
        jacobi(sparray.COO([[0], [0]], [1.0], shape=(2, 2), fill_value=np.nan))
    with pytest.raises(ValueError, match=f"{who}: A must be square"):
        jacobi(np.ones((2, 3)))
    spla = pytest.importorskip("scipy.sparse.linalg")
    with pytest.raises(TypeError, match="its diagonal is read"):
        jacobi(spla.aslinearoperator(np.eye(2)))
    with pytest.raises(ValueError, match=r"v must have shape \(2,\)"):
        jacobi(np.eye(2)) @ np.ones(3)


def test_doctests():
    import doctest

    from sparray.linalg import _preconditioners

    for mod in (_preconditioners, K):
        assert doctest.testmod(mod).failed == 0, mod.__name__
