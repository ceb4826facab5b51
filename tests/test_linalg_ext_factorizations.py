"""The densified functions of sparray.linalg (cholesky, det, slogdet, eigh, eigvalsh, inv, pinv, qr,
svd, svdvals, matrix_rank, solve) against numpy.linalg on the dense arrays, for every layout,
stacks, hybrid matrices, empty and 1x1 matrices and fills 0 / 1.5 / nan / -inf; the densify
warning and its threshold; solve's SuperLU route; bad input.

The results follow the namespace rule (sparray._array.results): called with sparray arrays only, a
function returns sparray arrays, its dense results held by a COO with no sparse dims (fill 0,
components in the input's namespace); given a NumPy (or other dense) operand it returns dense
arrays of that namespace, as before."""

import warnings

import numpy as np
import pytest

import sparray
from linalg_ext_cases import SQUARE_SHAPES, dense, is_sparse, layout_matrix_params, make_matrix, MATRIX_SHAPES
from sparray_testing import assert_holds_dense, make_coo

L = sparray.linalg
pytestmark = pytest.mark.filterwarnings("ignore::RuntimeWarning")  # LAPACK on nan/inf input


def numpy_result(result, ctx=""):
    """``result`` of a call given a NumPy operand: a NumPy array (or scalar), as before the namespace rule."""
    assert isinstance(result, (np.ndarray, np.generic)), (type(result), ctx)


def _same_as_numpy(ours, theirs, like=None):
    """``ours()`` equals ``theirs()`` (NumPy on the dense form), or both raise the same kind of error.

    ``like``: the sparray operand when every operand is a sparray array (each result is then held
    dense, ``assert_holds_dense``), None when a NumPy operand is among them (NumPy results)."""
    try:
        expected = theirs()
    except (np.linalg.LinAlgError, ValueError) as e:  # singular, no convergence, or an empty min/max
        with pytest.raises(type(e)):
            ours()
        return None
    got = ours()
    if isinstance(expected, tuple):
        assert isinstance(got, tuple) and len(got) == len(expected)
    for g, e in zip(got, expected) if isinstance(expected, tuple) else [(got, expected)]:
        assert_holds_dense(g, like) if like is not None else numpy_result(g)
        assert tuple(g.shape) == e.shape and g.dtype == e.dtype
        np.testing.assert_allclose(dense(g), e, rtol=1e-9, atol=1e-12, equal_nan=True)
    return got


@pytest.mark.parametrize("layout, case, fill", layout_matrix_params(SQUARE_SHAPES))
def test_square_functions_match_numpy(layout, case, fill):
    rng = np.random.default_rng(41)
    A, D = make_matrix(rng, layout, case, fill, density=0.6)
    _same_as_numpy(lambda: L.det(A), lambda: np.linalg.det(D), A)
    _same_as_numpy(lambda: tuple(L.slogdet(A)), lambda: tuple(np.linalg.slogdet(D)), A)
    _same_as_numpy(lambda: L.inv(A), lambda: np.linalg.inv(D), A)
    b = rng.standard_normal(D.shape[-1])
    _same_as_numpy(lambda: L.solve(A, b), lambda: np.linalg.solve(D, b[:, None])[..., 0])  # NumPy b: NumPy out
    _same_as_numpy(lambda: L.solve(A, A), lambda: np.linalg.solve(D, D), A)
    # symmetric and positive definite matrices built with sparse operations from A
    S = A + sparray.matrix_transpose(A)
    DS = D + np.swapaxes(D, -1, -2)
    _same_as_numpy(lambda: L.eigvalsh(S), lambda: np.linalg.eigvalsh(DS), A)
    if np.isfinite(DS).all():
        w, Q = L.eigh(S)
        assert_holds_dense(w, A, "eigh eigenvalues")
        assert_holds_dense(Q, A, "eigh eigenvectors")
        Dw, DQ = dense(w), dense(Q)
        np.testing.assert_allclose((DQ * Dw[..., None, :]) @ np.swapaxes(DQ, -1, -2), DS, atol=1e-10)
        # the held results take part in sparse arithmetic like any sparray array
        np.testing.assert_allclose(dense((Q * w[..., None, :]) @ sparray.matrix_transpose(Q)), DS, atol=1e-10)
        shift = 4.0 * D.shape[-1] * (np.abs(DS).max(initial=0) + 1)
        P = S + sparray.asarray(np.broadcast_to(shift * np.eye(D.shape[-1]), D.shape), layout="coo")
        DP = DS + shift * np.eye(D.shape[-1])
        for upper in (False, True):
            _same_as_numpy(lambda: L.cholesky(P, upper=upper), lambda: np.linalg.cholesky(DP, upper=upper), A)


@pytest.mark.parametrize("layout, case, fill", layout_matrix_params(MATRIX_SHAPES))
def test_rectangular_functions_match_numpy(layout, case, fill):
    rng = np.random.default_rng(42)
    A, D = make_matrix(rng, layout, case, fill, density=0.6)
    _same_as_numpy(lambda: L.svdvals(A), lambda: np.linalg.svdvals(D), A)
    if not np.isfinite(D).all() or 0 in D.shape:  # LAPACK on nan/inf, or nothing to factorize: as NumPy above
        return
    _same_as_numpy(lambda: L.pinv(A), lambda: np.linalg.pinv(D), A)
    _same_as_numpy(lambda: L.pinv(A, rtol=0.3), lambda: np.linalg.pinv(D, rtol=0.3), A)
    _same_as_numpy(lambda: L.matrix_rank(A), lambda: np.linalg.matrix_rank(D), A)
    _same_as_numpy(lambda: L.matrix_rank(A, rtol=0.5), lambda: np.linalg.matrix_rank(D, rtol=0.5), A)
    for full in (True, False):
        U, S, Vh = L.svd(A, full_matrices=full)
        eU, eS, eVh = np.linalg.svd(D, full_matrices=full)
        for got, exp, what in ((U, eU, "U"), (S, eS, "S"), (Vh, eVh, "Vh")):
            assert_holds_dense(got, A, what)
            assert tuple(got.shape) == exp.shape and got.dtype == exp.dtype, what
        DU, DS, DVh = dense(U), dense(S), dense(Vh)
        k = DS.shape[-1]
        np.testing.assert_allclose(DS, eS, rtol=1e-9, atol=1e-12)
        np.testing.assert_allclose((DU[..., :k] * DS[..., None, :]) @ DVh[..., :k, :], D, atol=1e-10)
    for mode in ("reduced", "complete"):
        Q, R = L.qr(A, mode=mode)
        eQ, eR = np.linalg.qr(D, mode=mode)
        assert_holds_dense(Q, A, "Q")
        assert_holds_dense(R, A, "R")
        assert Q.shape == eQ.shape and R.shape == eR.shape
        DQ, DR = dense(Q), dense(R)
        np.testing.assert_allclose(DQ @ DR, D, atol=1e-10)
        np.testing.assert_array_equal(DR, np.triu(DR))


@pytest.mark.parametrize("dtype", ["float32", "complex128", "int64"])
def test_dtypes_follow_numpy(dtype):
    rng = np.random.default_rng(43)
    A, _ = make_coo(rng, (2, 3, 3), density=0.8, fill=0, dtype=dtype)
    A = A + sparray.asarray(np.broadcast_to(20 * np.eye(3, dtype=dtype), (2, 3, 3)))  # invertible
    D = dense(A)
    rtol = 1e-4 if dtype == "float32" else 1e-10
    for ours, theirs in [(L.inv, np.linalg.inv), (L.det, np.linalg.det), (L.svdvals, np.linalg.svdvals),
                         (L.eigvalsh, np.linalg.eigvalsh)]:  # fmt: skip
        got, expected = ours(A), theirs(D)
        assert_holds_dense(got, A, ours.__name__)
        assert got.dtype == expected.dtype and dense(got).dtype == expected.dtype
        np.testing.assert_allclose(dense(got), expected, rtol=rtol, atol=1e-5)


def test_named_tuples():
    A = sparray.asarray(np.array([[2.0, 1.0], [1.0, 3.0]]), layout="csr")
    assert L.eigh(A)._fields == ("eigenvalues", "eigenvectors")
    assert L.qr(A)._fields == ("Q", "R")
    assert L.slogdet(A)._fields == ("sign", "logabsdet")
    assert L.svd(A)._fields == ("U", "S", "Vh")
    for result in (L.eigh(A), L.qr(A), L.slogdet(A), L.svd(A)):
        for name, item in zip(result._fields, result):
            assert_holds_dense(item, A, name)  # the named tuple's items follow the namespace rule
    sign, logabsdet = L.slogdet(A)
    assert float(sign) == 1.0 and L.slogdet(A).sign == 1.0  # 0-d results take float() and ==
    np.testing.assert_allclose(float(logabsdet), np.log(5.0))
    for item in L.slogdet(A.to_dense()):  # NumPy in: NumPy's results
        numpy_result(item)


# --- solve -------------------------------------------------------------------------------------------
SOLVE_SHAPES = [((4, 4), (4,)), ((4, 4), (4, 2)), ((2, 4, 4), (4,)), ((2, 4, 4), (3, 1, 4, 2)), ((1, 4, 4), (2, 4, 1)),
                ((0, 0), (0,)), ((3, 3), (3, 0))]  # fmt: skip


@pytest.mark.parametrize("shapes", SOLVE_SHAPES, ids=str)
@pytest.mark.parametrize("layout", ["coo", "csc", "bsr"])
def test_solve_shapes(shapes, layout):
    rng = np.random.default_rng(44)
    s1, s2 = shapes
    A, D = make_coo(rng, s1, density=0.5, fill=0.5)
    A = A + sparray.asarray(np.broadcast_to(5.0 * np.eye(s1[-1]), s1))
    A = A.to_layout(layout, blocksize=(1, 1) if layout == "bsr" else None) if A.ndim >= 2 else A
    D = dense(A)
    b = rng.standard_normal(s2)
    expected = np.linalg.solve(D, b[:, None])[..., 0] if b.ndim == 1 else np.linalg.solve(D, b)
    for x2 in (b, sparray.asarray(b, fill_value=0.0)):
        got = L.solve(A, x2)
        assert_holds_dense(got, A) if is_sparse(x2) else numpy_result(got)  # a NumPy x2: a NumPy result
        assert tuple(got.shape) == expected.shape
        np.testing.assert_allclose(dense(got), expected, rtol=1e-10, atol=1e-12)


def test_solve_large_zero_fill_uses_superlu_without_densifying():
    pytest.importorskip("scipy")
    rng = np.random.default_rng(45)
    A, D = make_coo(rng, (30, 30), density=0.1, fill=0.0)
    A = (A + sparray.asarray(10.0 * np.eye(30))).to_layout("csr")
    D = dense(A)
    b = rng.standard_normal((2, 30, 3))
    with L.densify_threshold(100), warnings.catch_warnings():
        warnings.simplefilter("error", L.SparrayDensifyWarning)  # x1 is never made dense
        for x2 in (b, b[0, :, 0]):  # NumPy x2: NumPy results
            got = L.solve(A, x2)
            numpy_result(got)
            np.testing.assert_allclose(got, np.linalg.solve(D, x2), rtol=1e-10)
        got = L.solve(A, sparray.asarray(b[0], fill_value=0.0))  # sparse x2: a held dense result
        assert_holds_dense(got, A)
        np.testing.assert_allclose(dense(got), np.linalg.solve(D, b[0]), rtol=1e-10)
        assert L.solve(A.astype(sparray.float32), b[0].astype(np.float32)).dtype == np.float32
        with pytest.raises(np.linalg.LinAlgError, match="sparray.linalg.solve: x1 of shape \\(30, 30\\) is singular"):
            L.solve(sparray.zeros((30, 30), layout="csr"), b[0])


# --- the densify warning -------------------------------------------------------------------------------
def test_densify_warning_above_the_threshold():
    A = sparray.eye(5, layout="csr")
    assert L.DENSIFY_THRESHOLD == 4096 * 4096 == L.get_densify_threshold()
    assert issubclass(L.SparrayDensifyWarning, sparray.SparrayPerformanceWarning)
    with L.densify_threshold(24):
        assert L.get_densify_threshold() == 24
        message = r"sparray.linalg.inv: densifies .* \(5, 5\) \(25 elements per matrix, above the threshold of 24\)"
        with pytest.warns(L.SparrayDensifyWarning, match=message) as rec:
            L.inv(A)
        assert rec[0].filename == __file__, "the warning points at the caller's line"
        for call in (lambda: L.det(A), lambda: L.svd(A), lambda: L.matrix_norm(A, ord=2), lambda: L.matrix_power(A, -1),
                     lambda: L.solve(sparray.broadcast_to(A, (2, 5, 5)), np.ones(5))):  # fmt: skip
            with pytest.warns(L.SparrayDensifyWarning):
                call()
    with L.densify_threshold(25), warnings.catch_warnings():
        warnings.simplefilter("error")
        L.inv(A)  # at the threshold: no warning
        L.inv(sparray.broadcast_to(A, (9, 5, 5)))  # the threshold counts one matrix of a stack
        L.matrix_norm(A, ord=1)  # stays sparse: nothing densified
    assert L.get_densify_threshold() == L.DENSIFY_THRESHOLD
    previous = L.set_densify_threshold(3)
    try:
        assert previous == L.DENSIFY_THRESHOLD
        with pytest.warns(L.SparrayDensifyWarning):
            L.det(sparray.eye(2))
    finally:
        L.set_densify_threshold(previous)
    with pytest.raises(ValueError, match="elements must be >= 0; got -1"):
        L.set_densify_threshold(-1)


# --- bad input -------------------------------------------------------------------------------------------
@pytest.mark.parametrize("name", ["inv", "det", "slogdet", "cholesky", "eigh", "eigvalsh"])
def test_square_functions_reject_other_shapes(name):
    f = getattr(L, name)
    with pytest.raises(ValueError, match=rf"sparray.linalg.{name}: x must be a square matrix .* got shape \(3, 4\)"):
        f(sparray.zeros((3, 4)))
    with pytest.raises(ValueError, match=rf"sparray.linalg.{name}: x must be a matrix .* got shape \(3,\)"):
        f(sparray.zeros((3,)))
    with pytest.raises(TypeError, match=rf"sparray.linalg.{name}: x must be an array"):
        f([[1.0]])


def test_bad_input():
    A = sparray.eye(3)
    with pytest.raises(ValueError, match=r"sparray.linalg.solve: x2 of shape \(4,\) must have M = 3 elements"):
        L.solve(A, np.ones(4))
    with pytest.raises(ValueError, match=r"sparray.linalg.solve: x2 of shape \(2, 4, 1\) must have M = 3 rows"):
        L.solve(A, np.ones((2, 4, 1)))
    with pytest.raises(ValueError, match="cannot be broadcast"):
        L.solve(sparray.broadcast_to(A, (2, 3, 3)), np.ones((3, 3, 1)))
    with pytest.raises(ValueError, match=r"sparray.linalg.solve: x1 must be a square matrix"):
        L.solve(sparray.zeros((3, 2)), np.ones(3))
    with pytest.raises(ValueError, match="sparray.linalg.qr: mode must be 'reduced' or 'complete'; got 'r'"):
        L.qr(A, mode="r")
    with pytest.raises(ValueError, match=r"sparray.linalg.svd: x must be a matrix"):
        L.svd(sparray.zeros((3,)))
    with pytest.raises(np.linalg.LinAlgError):
        L.inv(sparray.zeros((3, 3)))  # singular: NumPy's error on the dense form


def test_array_api_strict_components():
    xp = pytest.importorskip("array_api_strict")
    A = sparray.COO(xp.asarray([[0, 1, 2, 0], [0, 1, 2, 2]]), xp.asarray([4.0, 5.0, 6.0, 1.0]), shape=(3, 3))
    D = dense(A)
    for what, got, expected in [("inv", L.inv(A), np.linalg.inv(D)), ("det", L.det(A), np.linalg.det(D)),
                                ("matrix_power", L.matrix_power(A, -2), np.linalg.matrix_power(D, -2))]:  # fmt: skip
        assert_holds_dense(got, A, what)  # components of array_api_strict
        assert type(got.values).__module__.startswith("array_api_strict"), what
        np.testing.assert_allclose(dense(got), expected, err_msg=what)
    x = L.solve(A, xp.ones((3,)))  # a dense operand of array_api_strict: a result of its namespace
    assert type(x).__module__.startswith("array_api_strict")
    np.testing.assert_allclose(dense(x), np.linalg.solve(D, np.ones(3)))
