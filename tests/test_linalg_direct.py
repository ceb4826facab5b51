"""Sparse direct solves of sparray.linalg (``_direct.py``: spsolve, splu) against numpy.linalg.solve
on the dense matrix: every layout, fills 0 and non-zero (the dense rule and its densify warning),
float32 / float64 / complex128, 1-d and 2-d right-hand sides, splu's factors and operator use,
array_api_strict components, bad input (shapes, singular matrices, non-finite data) and the
ImportError when SciPy (or cupyx) is missing.

The CuPy routes (cupyx.scipy.sparse.linalg) need a GPU and are not run here; only their
ImportError message is checked, through the helper that imports cupyx.
"""

import sys
import warnings

import numpy as np
import pytest

import sparray
from sparray.linalg import SparrayDensifyWarning, densify_threshold
from sparray.linalg._direct import SparseLU, _cupyx, splu, spsolve
from sparray_testing import make_coo

pytest.importorskip("scipy.sparse.linalg")

LAYOUTS = ["coo", "csr", "csc", "bsr", "bsc"]
DTYPES = ["float32", "float64", "complex128"]
RTOL = {"float32": 1e-4, "float64": 1e-10, "complex64": 1e-4, "complex128": 1e-10}


def random_matrix(rng, n, dtype, density=0.3):
    """A random well-conditioned sparse matrix (dense), not symmetric."""
    dt = np.dtype(dtype)
    V = rng.standard_normal((n, n))
    if dt.kind == "c":
        V = V + 1j * rng.standard_normal((n, n))
    D = np.where(rng.random((n, n)) < density, V, 0)
    np.fill_diagonal(D, np.abs(D).sum(axis=1) + 1.0)
    return D.astype(dt)


def make(D, layout, fill=0.0):
    kw = {"blocksize": (2, 2)} if layout in ("bsr", "bsc") else {}
    return sparray.asarray(D, layout=layout, fill_value=fill, **kw)


def coo_with_duplicates(D):
    r, c = np.nonzero(D)
    v = D[r, c]
    idx = np.concatenate([np.stack([r, c]), np.stack([r, c])], axis=1)
    return sparray.COO(idx, np.concatenate([v / 4, 3 * v / 4]).astype(D.dtype), shape=D.shape)


def rhs(rng, n, dtype, k=None):
    shape = (n,) if k is None else (n, k)
    b = rng.standard_normal(shape)
    if np.dtype(dtype).kind == "c":
        b = b + 1j * rng.standard_normal(shape)
    return b.astype(dtype)


# --- spsolve -----------------------------------------------------------------------------------------
@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("dtype", DTYPES)
def test_spsolve_every_layout_and_dtype(layout, dtype):
    rng = np.random.default_rng(1)
    D = random_matrix(rng, 12, dtype)
    A = make(D, layout)
    for k in (None, 1, 3):
        b = rhs(rng, 12, dtype, k)
        x = spsolve(A, b)
        assert isinstance(x, np.ndarray) and x.shape == b.shape and x.dtype == np.dtype(dtype)
        np.testing.assert_allclose(x, np.linalg.solve(D, b), rtol=RTOL[dtype], atol=RTOL[dtype])


def test_spsolve_dtypes_promote():
    rng = np.random.default_rng(2)
    D = random_matrix(rng, 8, "float32")
    A = make(D, "csr")
    b64 = rng.standard_normal(8)
    x = spsolve(A, b64)
    assert x.dtype == np.float64  # float32 A with a float64 b: float64, as numpy.linalg.solve
    np.testing.assert_allclose(x, np.linalg.solve(D.astype(np.float64), b64), rtol=1e-10)
    assert spsolve(A, np.ones(8, np.float32)).dtype == np.float32
    assert spsolve(A, b64 + 1j).dtype == np.complex128
    assert spsolve(A.astype(np.complex64), np.ones(8, np.float32)).dtype == np.complex64
    Ai = sparray.asarray(np.array([[2, 1], [0, 4]]), layout="csc")
    xi = spsolve(Ai, np.array([3, 4]))  # integers solve in float64
    assert xi.dtype == np.float64 and xi.tolist() == [1.0, 1.0]
    Ab = sparray.asarray(np.eye(3, dtype=bool), layout="csr")
    assert spsolve(Ab, np.array([True, False, True])).tolist() == [1.0, 0.0, 1.0]


def test_spsolve_duplicates_sparse_rhs_and_options():
    rng = np.random.default_rng(3)
    D = random_matrix(rng, 10, "float64")
    A = coo_with_duplicates(D)
    b = rng.standard_normal(10)
    expected = np.linalg.solve(D, b)
    np.testing.assert_allclose(spsolve(A, b), expected, rtol=1e-10)
    np.testing.assert_allclose(spsolve(A, sparray.asarray(b)), expected, rtol=1e-10)  # a sparray b: dense result
    B = sparray.asarray(np.stack([b, 0 * b], 1), layout="csr")
    X = spsolve(A, B)
    assert isinstance(X, np.ndarray) and X.shape == (10, 2)
    np.testing.assert_allclose(X[:, 0], expected, rtol=1e-10)
    for spec in ("NATURAL", "MMD_ATA", "MMD_AT_PLUS_A", "COLAMD"):
        np.testing.assert_allclose(spsolve(make(D, "csc"), b, permc_spec=spec), expected, rtol=1e-10)
    np.testing.assert_allclose(spsolve(make(D, "csc"), b, use_umfpack=True), expected, rtol=1e-10)
    # an empty system, and no right-hand side columns
    E = sparray.CSR([0], np.zeros(0, np.int64), np.zeros(0), shape=(0, 0))
    assert spsolve(E, np.zeros(0)).shape == (0,)
    assert spsolve(make(D, "csr"), np.zeros((10, 0))).shape == (10, 0)


@pytest.mark.parametrize("layout", LAYOUTS)
def test_spsolve_non_zero_fill_is_the_dense_solve(layout):
    rng = np.random.default_rng(4)
    D = random_matrix(rng, 8, "float64")
    D[D == 0] = 1.5
    A = make(D, layout, fill=1.5)
    assert A.nse < 64 or layout in ("bsr", "bsc")
    b = rng.standard_normal((8, 2))
    with warnings.catch_warnings():
        warnings.simplefilter("error", SparrayDensifyWarning)  # below the threshold: no warning
        x = spsolve(A, b)
    np.testing.assert_allclose(x, np.linalg.solve(D, b), rtol=1e-10)
    with densify_threshold(10), pytest.warns(SparrayDensifyWarning, match="sparray.linalg.spsolve: densifies the sparse A"):
        spsolve(A, b[:, 0])
    with densify_threshold(10), pytest.warns(SparrayDensifyWarning, match="sparray.linalg.splu: densifies"):
        lu = splu(A)
    np.testing.assert_allclose(lu.solve(b), np.linalg.solve(D, b), rtol=1e-10)


# --- splu --------------------------------------------------------------------------------------------
@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("dtype", DTYPES)
def test_splu_every_layout_and_dtype(layout, dtype):
    rng = np.random.default_rng(5)
    D = random_matrix(rng, 12, dtype)
    lu = splu(make(D, layout))
    assert isinstance(lu, SparseLU) and lu.shape == (12, 12) and lu.dtype == np.dtype(dtype)
    for k in (None, 2):
        b = rhs(rng, 12, dtype, k)
        x = lu.solve(b)
        assert x.shape == b.shape and x.dtype == np.dtype(dtype)
        np.testing.assert_allclose(x, np.linalg.solve(D, b), rtol=RTOL[dtype], atol=RTOL[dtype])
        np.testing.assert_allclose(lu @ b, x)
        np.testing.assert_allclose(lu.solve(b, trans="T"), np.linalg.solve(D.T, b), rtol=RTOL[dtype], atol=RTOL[dtype])
        np.testing.assert_allclose(lu.solve(b, trans="H"), np.linalg.solve(D.conj().T, b), rtol=RTOL[dtype], atol=RTOL[dtype])
    # Pr A Pc = L U with Pr[perm_r[i], i] = Pc[i, perm_c[i]] = 1 (SciPy's convention), the factors
    # as sparray CSC arrays
    L, U = lu.L, lu.U
    assert L.layout == U.layout == "csc" and isinstance(lu.perm_r, np.ndarray) and isinstance(lu.perm_c, np.ndarray)
    Ld, Ud = L.to_dense(), U.to_dense()
    n = 12
    Pr = np.zeros((n, n))
    Pr[lu.perm_r, np.arange(n)] = 1
    Pc = np.zeros((n, n))
    Pc[np.arange(n), lu.perm_c] = 1
    tol = RTOL[dtype] * np.abs(D).max()
    np.testing.assert_allclose(Pr @ D @ Pc, Ld @ Ud, rtol=RTOL[dtype], atol=tol)
    np.testing.assert_allclose(D[np.argsort(lu.perm_r)][:, np.argsort(lu.perm_c)], Ld @ Ud, rtol=RTOL[dtype], atol=tol)
    assert np.allclose(np.diag(Ld), 1) and np.allclose(np.triu(Ld, 1), 0) and np.allclose(np.tril(Ud, -1), 0)
    assert lu.nnz >= L.nse and "SparseLU of a 12x12 matrix" in repr(lu)


def test_splu_rhs_dtypes_and_preconditioner_use():
    rng = np.random.default_rng(6)
    D = random_matrix(rng, 10, "float64")
    lu = splu(make(D, "csr"), permc_spec="NATURAL", diag_pivot_thresh=0.5, options={"SymmetricMode": False})
    b = rng.standard_normal(10) + 1j * rng.standard_normal(10)
    x = lu.solve(b)  # a complex b with real factors: real and imaginary parts
    assert x.dtype == np.complex128
    np.testing.assert_allclose(x, np.linalg.solve(D, b), rtol=1e-10)
    assert lu.solve(np.arange(10)).dtype == np.float64
    np.testing.assert_allclose(lu.solve(sparray.asarray(b.real)), np.linalg.solve(D, b.real), rtol=1e-10)
    assert lu.solve(np.zeros((10, 0))).shape == (10, 0)
    lu32 = splu(make(D.astype(np.float32), "csc"))
    assert lu32.dtype == np.float32 and lu32.solve(b.real).dtype == np.float32  # solved in the factors' dtype
    assert lu32.solve(b).dtype == np.complex64
    assert splu(sparray.asarray(np.array([[2, 0], [0, 4]]), layout="coo")).dtype == np.float64
    # as a preconditioner: the exact inverse, so gmres converges at once
    spla = pytest.importorskip("scipy.sparse.linalg")
    M = spla.LinearOperator(lu.shape, matvec=lambda v: lu @ v, dtype=np.float64)
    count = [0]
    _, info = spla.gmres(D, b.real, M=M, rtol=1e-10, callback=lambda _: count.__setitem__(0, count[0] + 1),
                         callback_type="pr_norm")  # fmt: skip
    assert info == 0 and count[0] <= 2
    # the empty matrix
    E = splu(sparray.CSR([0], np.zeros(0, np.int64), np.zeros(0), shape=(0, 0)))
    assert E.solve(np.zeros(0)).shape == (0,)


def test_array_api_strict_components():
    xp = pytest.importorskip("array_api_strict")
    A = sparray.COO(xp.asarray([[0, 1, 2, 0], [0, 1, 2, 2]]), xp.asarray([4.0, 5.0, 6.0, 1.0]), shape=(3, 3))
    D = np.array([[4.0, 0.0, 1.0], [0.0, 5.0, 0.0], [0.0, 0.0, 6.0]])
    b = xp.asarray([1.0, 2.0, 3.0])
    x = spsolve(A, b)
    assert type(x).__module__.startswith("array_api_strict")
    np.testing.assert_allclose(np.asarray(x._array), np.linalg.solve(D, [1.0, 2.0, 3.0]))
    lu = splu(A)
    y = lu.solve(b)
    assert type(y).__module__.startswith("array_api_strict")
    np.testing.assert_allclose(np.asarray(y._array), np.linalg.solve(D, [1.0, 2.0, 3.0]))
    F = sparray.COO(xp.asarray([[0, 1, 2], [0, 1, 2]]), xp.asarray([4.0, 5.0, 6.0]), shape=(3, 3), fill_value=xp.asarray(1.0))
    z = spsolve(F, b)  # non-zero fill: the namespace's own dense solve
    assert type(z).__module__.startswith("array_api_strict")
    np.testing.assert_allclose(np.asarray(z._array), np.linalg.solve(np.where(np.eye(3) > 0, np.diag([4.0, 5, 6]), 1.0), [1, 2, 3]))
    with pytest.raises(TypeError, match="b is an array of array_api_strict, but A's components are arrays of"):
        spsolve(sparray.asarray(D, layout="csr"), b)


# --- errors ------------------------------------------------------------------------------------------
@pytest.mark.parametrize("fn", ["spsolve", "splu"])
def test_bad_matrices(fn):
    who = f"sparray.linalg.{fn}"
    call = (lambda A: spsolve(A, np.ones(A.shape[0]))) if fn == "spsolve" else splu
    with pytest.raises(ValueError, match=rf"{who}: A must be square; got shape \(2, 3\)"):
        call(sparray.asarray(np.ones((2, 3)), layout="csr"))
    with pytest.raises(TypeError, match=f"{who}: A must be a sparray array"):
        call(np.eye(2))
    with pytest.raises(ValueError, match=f"{who}: A must hold finite values only; its values has nan or inf"):
        call(sparray.asarray(np.array([[1.0, np.nan], [0.0, 1.0]]), layout="csc"))
    with pytest.raises(ValueError, match="its fill value has nan or inf"):
        call(sparray.COO([[0, 1], [0, 1]], [1.0, 1.0], shape=(2, 2), fill_value=np.inf))
    with pytest.raises(np.linalg.LinAlgError, match=f"{who}: A of shape \\(2, 2\\) is singular"):
        call(sparray.asarray(np.array([[1.0, 2.0], [2.0, 4.0]]), layout="csr"))
    with pytest.raises(np.linalg.LinAlgError, match="is singular"):
        call(sparray.asarray(np.array([[1.0, 0.0, 0.0], [0.0, 0.0, 0.0], [0.0, 0.0, 2.0]]), layout="coo"))  # a zero row
    with pytest.raises(np.linalg.LinAlgError, match="is singular"):
        call(sparray.COO([[0], [0]], [1.0], shape=(2, 2), fill_value=1.0))  # dense: all ones
    with pytest.raises(ValueError, match="2-D sparse matrix with no dense dims"):
        call(make_coo(np.random.default_rng(0), (2, 2, 2), 2)[0])  # a hybrid matrix


def test_bad_right_hand_sides():
    A = sparray.asarray(np.eye(3) * 2, layout="csr")
    lu = splu(A)
    for who, solve in (("sparray.linalg.spsolve", lambda b: spsolve(A, b)), ("sparray.linalg.splu: solve", lu.solve)):
        with pytest.raises(ValueError, match=rf"{who}: b must have shape \(3,\) or \(3, k\) to match A of shape \(3, 3\); got \(4,\)"):
            solve(np.ones(4))
        with pytest.raises(ValueError, match="b must have shape"):
            solve(np.ones((3, 2, 1)))
        with pytest.raises(ValueError, match=f"{who}: b must hold finite values only"):
            solve(np.array([1.0, np.nan, 0.0]))
        with pytest.raises(TypeError, match="b must be a dense array or a sparray array; got list"):
            solve([1.0, 2.0, 3.0])
        with pytest.raises(TypeError, match="b must have a numeric dtype"):
            solve(np.array(["a", "b", "c"]))
    with pytest.raises(ValueError, match="trans must be 'N', 'T' or 'H'; got 'X'"):
        lu.solve(np.ones(3), trans="X")
    with pytest.raises(ValueError):
        spsolve(A, np.ones(3), permc_spec="BOGUS")  # SciPy's own check


def test_missing_scipy_names_what_to_install(monkeypatch):
    A = sparray.asarray(np.eye(2), layout="csc")
    monkeypatch.setitem(sys.modules, "scipy.sparse.linalg", None)
    with pytest.raises(ImportError, match=r"sparray.linalg.spsolve: NumPy data is solved by SciPy's SuperLU .*pip install scipy"):
        spsolve(A, np.ones(2))
    with pytest.raises(ImportError, match=r"sparray.linalg.splu: .*pip install scipy \(or the scipy extra: pip install 'sparray\[scipy\]'\)"):
        splu(A)


def test_missing_cupyx_names_the_cuda_extra(monkeypatch):
    monkeypatch.setitem(sys.modules, "cupyx.scipy.sparse.linalg", None)
    monkeypatch.setitem(sys.modules, "cupyx.scipy.sparse", None)
    with pytest.raises(ImportError, match=r"sparray.linalg.spsolve: CuPy data is solved by cupyx.*the cuda extra, pip install 'sparray\[cuda\]'"):
        _cupyx("sparray.linalg.spsolve")


def test_doctests():
    import doctest

    from sparray.linalg import _direct

    assert doctest.testmod(_direct).failed == 0
