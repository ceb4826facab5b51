"""The namespace rule (``sparray/_array/results.py``, docs/array_object.md): sparray arrays in, sparray
arrays out, also for results that are dense by nature; a dense array of another namespace among
the arguments, or NumPy's own functions, keep the old answer. Values against dense NumPy, fills
0 / 1.5 / nan, NumPy and array_api_strict components."""

import array_api_compat
import numpy as np
import pytest
from sparray_testing import assert_sparray_result, to_numpy

import sparray
from sparray._array.results import holding_dense

FILLS = [0.0, 1.5, float("nan")]


def _pair(rng, fill, shape=(5, 4)):
    D = np.where(rng.random(shape) < 0.4, rng.integers(0, 4, shape).astype(float), fill)
    return sparray.asarray(D, fill_value=fill, layout="csr"), D


# (name, sparray call, NumPy call) on a 2-d float array A / its dense form D
DENSE_BY_NATURE = [
    ("sum", lambda A: sparray.sum(A), lambda D: np.sum(D)),
    ("max axis=0 of a hybrid", lambda A: sparray.max(sparray.asarray(A.to_dense(), sparse_ndim=1), axis=0),
     lambda D: np.max(D, axis=0)),
    ("mean", lambda A: sparray.mean(A), lambda D: np.mean(D)),
    ("argmax", lambda A: sparray.argmax(A, axis=1), lambda D: np.argmax(D, axis=1)),
    ("count_nonzero", lambda A: sparray.count_nonzero(A), lambda D: np.count_nonzero(D)),
    ("argsort", lambda A: sparray.argsort(A, axis=1, stable=True), lambda D: np.argsort(D, axis=1, stable=True)),
    ("unique_values", lambda A: sparray.unique_values(A), lambda D: np.unique_values(D)),
    ("unique_counts.counts", lambda A: sparray.unique_counts(A).counts, lambda D: np.unique_counts(D).counts),
    ("nonzero[1]", lambda A: sparray.nonzero(A)[1], lambda D: np.nonzero(D)[1]),
    ("searchsorted", lambda A: sparray.searchsorted(sparray.sort(sparray.reshape(A, (-1,))), A[0]),
     lambda D: np.searchsorted(np.sort(D.ravel()), D[0])),
    ("cumulative_sum", lambda A: sparray.cumulative_sum(sparray.where(A == A, A, 0.0) + 1.0, axis=1),
     lambda D: np.cumulative_sum(np.where(D == D, D, 0.0) + 1.0, axis=1)),  # a nan fill would absorb: sparse
    ("linalg.svdvals", lambda A: sparray.linalg.svdvals(A), lambda D: np.linalg.svdvals(D)),
    ("linalg.pinv", lambda A: sparray.linalg.pinv(A), lambda D: np.linalg.pinv(D)),
    ("fft.rfftn", lambda A: sparray.fft.rfftn(A), lambda D: np.fft.rfftn(D)),
]


@pytest.mark.parametrize("fill", FILLS, ids=str)
@pytest.mark.parametrize("case", DENSE_BY_NATURE, ids=lambda c: c[0])
def test_dense_by_nature_results_are_sparray_arrays(case, fill):
    name, ours, theirs = case
    if fill != 0.0 and name.startswith("linalg"):
        fill = 1.5  # LAPACK on nan input: NumPy's own behaviour, checked in test_linalg_ext_*
    rng = np.random.default_rng(3)
    A, D = _pair(rng, fill)
    with np.errstate(all="ignore"):
        got, expected = ours(A), theirs(D)
    assert_sparray_result(got, A, name)
    assert got.sparse_ndim == 0 and got.nse == 1  # the dense values as they are, no index per element
    np.testing.assert_allclose(to_numpy(got), expected, rtol=1e-10, atol=1e-12, equal_nan=True)
    assert array_api_compat.array_namespace(got) is sparray


def test_held_values_are_the_dense_result_itself():
    dense = np.arange(6.0).reshape(2, 3)
    r = holding_dense(dense)
    assert np.shares_memory(r.values, dense) and r.values.shape == (1, 2, 3)
    assert r.shape == (2, 3) and r.indices.shape == (0, 1) and float(r.fill_value) == 0.0
    b = holding_dense(np.array([True, False]))
    assert b.dtype == sparray.bool and bool(b.fill_value) is False
    z = holding_dense(np.float32(2.5) * np.ones(()))
    assert z.shape == () and float(z) == 2.5


def test_held_results_work_on_as_any_sparray_array():
    A = sparray.asarray(np.array([[0.0, 2.0, 0.0], [3.0, 0.0, 5.0]]), layout="csr")
    s = sparray.sum(A)
    assert float(s) == 10.0 and int(sparray.argmax(A)) == 5 and bool(s > 9)
    u = sparray.unique_values(A)
    np.testing.assert_array_equal(to_numpy(u[u > 1.0]), [2.0, 3.0, 5.0])  # indexed by its own mask
    np.testing.assert_array_equal(to_numpy(A - sparray.mean(A, axis=None)), A.to_dense() - 10.0 / 6)
    rows, cols = sparray.nonzero(A)
    np.testing.assert_array_equal(to_numpy(A[rows, cols]), [2.0, 3.0, 5.0])  # sparray index arrays index A
    sparse = sparray.sort(A, axis=1)  # sparse results are untouched by the rule
    assert sparse.sparse_ndim == 2 and sparse.layout == "csr"


@pytest.mark.parametrize("fill", FILLS, ids=str)
def test_results_stay_sparse_where_they_were(fill):
    rng = np.random.default_rng(4)
    A, D = _pair(rng, fill)
    S = sparray.sum(A, axis=0)  # over a kept sparse dim: sparse, the fill of an all-fill column
    assert S.sparse_ndim == 1
    np.testing.assert_allclose(to_numpy(S), D.sum(axis=0), equal_nan=True)
    inv = sparray.unique_inverse(A).inverse_indices
    assert isinstance(inv, sparray.SparseArray)


@pytest.mark.parametrize("dtype", [np.float32, np.dtype("float32"), "float32", sparray.float32])
def test_a_dtype_in_any_spelling_is_no_array(dtype):
    """np.float32 (a class with ``__array_namespace__``) is a dtype here, not a dense operand."""
    A = sparray.asarray(np.array([[0.0, 2.0], [3.0, 0.0]]))
    got = sparray.sum(A, dtype=dtype)
    assert_sparray_result(got, A)
    assert got.dtype == sparray.float32 and float(got) == 5.0


def test_a_dense_argument_of_another_namespace_keeps_its_namespace():
    A = sparray.asarray(np.array([[4.0, 1.0], [1.0, 3.0]]), layout="csr")
    x = np.array([1.0, 2.0])
    assert type(sparray.matmul(A, x)) is np.ndarray and type(A @ x) is np.ndarray
    assert type(sparray.linalg.solve(A, x)) is np.ndarray
    assert type(sparray.unique_values(np.array([2, 1, 2]))) is np.ndarray
    np.testing.assert_allclose(sparray.linalg.solve(A, x), np.linalg.solve(A.to_dense(), x))


def test_numpy_functions_answer_numpy_arrays():
    A = sparray.asarray(np.array([[0.0, 2.0], [3.0, 0.0]]))
    D = A.to_dense()
    for got, expected in [(np.sum(A), np.sum(D)), (np.argmax(A), np.argmax(D)), (np.unique(A), np.unique(D)),
                          (np.linalg.det(A), np.linalg.det(D)), (np.nonzero(A)[0], np.nonzero(D)[0])]:  # fmt: skip
        assert not isinstance(got, sparray.SparseArray)
        np.testing.assert_allclose(got, expected)


def test_array_api_strict_components_stay_in_their_namespace():
    xp = pytest.importorskip("array_api_strict")
    A = sparray.COO(xp.asarray([[0, 1, 2], [1, 0, 2]]), xp.asarray([4.0, 5.0, 6.0]), shape=(3, 3), fill_value=1.5)
    D = to_numpy(A)
    for got, expected in [(sparray.sum(A), D.sum()), (sparray.argmin(A, axis=0), D.argmin(axis=0)),
                          (sparray.unique_values(A), np.unique(D)), (sparray.linalg.det(A), np.linalg.det(D))]:  # fmt: skip
        assert_sparray_result(got, A)
        np.testing.assert_allclose(to_numpy(got), expected)


def test_wrapped_functions_keep_their_name_signature_and_doc():
    import inspect

    for f in (sparray.sum, sparray.unique_all, sparray.linalg.det, sparray.fft.fftn):
        plain = f.__wrapped__
        assert f.__name__ == plain.__name__ and f.__doc__ == plain.__doc__
        assert inspect.signature(f) == inspect.signature(plain)


# array-API code that uses only ``xp``: array_api_extra's functions on sparray input
@pytest.mark.parametrize("fill", FILLS, ids=str)
def test_array_api_extra_functions_on_sparray_input(fill):
    xpx = pytest.importorskip("array_api_extra")
    x1 = np.array([0.0, 1.0, 2.0, 3.0, 3.0, fill])
    x2 = np.array([1.0, 0.0, 7.0])
    a, b = sparray.asarray(x1, fill_value=fill), sparray.asarray(x2)
    got = xpx.setdiff1d(a, b)  # unique_values, then its values indexed by an isin mask
    assert isinstance(got, sparray.SparseArray)
    np.testing.assert_array_equal(to_numpy(got), np.setdiff1d(x1, x2))
    rng = np.random.default_rng(5)
    A, D = _pair(rng, fill)
    assert int(xpx.nunique(A)) == np.unique(D).size + max(int(np.isnan(D).sum()) - 1, 0)
    with np.errstate(all="ignore"):
        np.testing.assert_allclose(to_numpy(xpx.cov(A)), np.cov(D), rtol=1e-10, atol=1e-12, equal_nan=True)
        np.testing.assert_allclose(to_numpy(xpx.kron(A[:2, :2], A[:2, :2])), np.kron(D[:2, :2], D[:2, :2]),
                                   equal_nan=True)  # fmt: skip
    np.testing.assert_array_equal(to_numpy(xpx.isclose(A, A + 1e-12)), np.isclose(D, D + 1e-12))
    got = xpx.apply_where(A > 1, A, lambda v: v * 2, fill_value=-1.0)
    np.testing.assert_array_equal(to_numpy(got), np.where(D > 1, D * 2, -1.0))


@pytest.mark.parametrize("fill", [0.0, 0.01], ids=str)
def test_solvers_follow_the_rule(fill):
    """sparray A and b: x a sparray array holding the solution; a NumPy b: a NumPy x."""
    n = 6
    D = np.where(np.eye(n, dtype=bool) | (np.abs(np.subtract.outer(range(n), range(n))) == 1),
                 4.0 * np.eye(n) - (1 - np.eye(n)), fill)  # fmt: skip
    A = sparray.asarray(D, fill_value=fill, layout="csr")
    b = np.arange(1.0, n + 1)
    expected = np.linalg.solve(D, b)
    for solve in (sparray.linalg.cg, sparray.linalg.gmres, sparray.linalg.bicgstab, sparray.linalg.minres):
        x, info = solve(A, sparray.asarray(b), rtol=1e-12)
        assert info == 0 and isinstance(info, int)
        assert_sparray_result(x, A, solve.__name__)
        np.testing.assert_allclose(to_numpy(x), expected, rtol=1e-9)
        x, info = solve(A, b, rtol=1e-12)
        assert type(x) is np.ndarray and info == 0
        np.testing.assert_allclose(x, expected, rtol=1e-9)
    w = sparray.linalg.eigsh(A, k=2, which="LA", return_eigenvectors=False)
    assert_sparray_result(w, A)
    np.testing.assert_allclose(np.sort(to_numpy(w)), np.linalg.eigvalsh(D)[-2:], rtol=1e-9)
