"""unique_values, unique_counts, unique_inverse and unique_all against NumPy 2's unique_all: every
layout, hybrid and batched shapes, fills 0, 1.5, nan (every nan distinct) and -inf, dense-part
fills, int/bool/complex dtypes, -0.0 against 0.0, empty arrays, uncoalesced COO, both backends.
The inverse must be sparse with x's pattern and the fill's index as its fill, unless the fill is nan
(then it is dense by nature). Dense-by-nature results (values, counts, indices, a nan fill's
inverse) follow the namespace rule (sparray in, sparray out): sparray arrays holding the dense
1-d arrays (no sparse dims, fill 0, components in the input's namespace); a NumPy input still gets
NumPy results."""

import array_api_strict
import numpy as np
import pytest
from sparray_testing import assert_holds_dense, assert_sparray_result, layout_cases, make_coo, to_numpy

import sparray


def check(A, D):
    ctx = f"{A.layout} {A.shape} fill={A.fill_value}"
    expected = np.unique_all(D)  # stable: every nan in flat-index order, as sparray gives them
    r = sparray.unique_all(A)
    assert r._fields == ("values", "indices", "inverse_indices", "counts")
    for name in ("values", "indices", "counts"):
        assert_holds_dense(getattr(r, name), A, f"{name} {ctx}")
    assert to_numpy(r.values).dtype == D.dtype
    np.testing.assert_allclose(to_numpy(r.values), expected.values, rtol=1e-12, equal_nan=True)
    for got, want in ((r.indices, expected.indices), (r.counts, expected.counts)):
        assert to_numpy(got).dtype == np.int64
        np.testing.assert_array_equal(to_numpy(got), want)
    inverse = r.inverse_indices
    np.testing.assert_array_equal(to_numpy(inverse), expected.inverse_indices.reshape(D.shape))
    C = A.to_layout("coo").coalesce()
    unspecified = np.prod(C.shape[: C.sparse_ndim]) > C.nse
    nan_fill = np.isnan(np.asarray(to_numpy(A.fill_value), dtype=complex)).any() and unspecified
    if nan_fill:  # every unspecified nan is its own value: a dense inverse, held by a sparray array
        assert_holds_dense(inverse, A, f"inverse {ctx}")
    else:  # sparse with x's pattern (empty arrays included), the fill's index as its fill
        assert isinstance(inverse, sparray.SparseArray) and inverse.sparse_ndim > 0, ctx
        assert inverse.layout in (A.layout, "coo") and to_numpy(inverse.fill_value).dtype == np.int64, ctx
    values = sparray.unique_values(A)
    assert_holds_dense(values, A, f"unique_values {ctx}")
    np.testing.assert_allclose(to_numpy(values), expected.values, rtol=1e-12, equal_nan=True)
    counts = sparray.unique_counts(A)
    assert counts._fields == ("values", "counts")
    for got in counts:
        assert_holds_dense(got, A, f"unique_counts {ctx}")
    np.testing.assert_allclose(to_numpy(counts.values), expected.values, rtol=1e-12, equal_nan=True)
    np.testing.assert_array_equal(to_numpy(counts.counts), expected.counts)
    inv = sparray.unique_inverse(A)
    assert inv._fields == ("values", "inverse_indices")
    assert_holds_dense(inv.values, A, f"unique_inverse {ctx}")
    np.testing.assert_allclose(to_numpy(inv.values), expected.values, rtol=1e-12, equal_nan=True)
    np.testing.assert_array_equal(to_numpy(inv.inverse_indices), expected.inverse_indices.reshape(D.shape))


def test_every_layout(backend):
    rng = np.random.default_rng(0)
    for _, A, D in layout_cases(rng):
        check(A, D)


@pytest.mark.parametrize("dtype, fill", [("int64", 3), ("int32", 0), ("bool", True), ("complex128", 0), ("float32", -0.0)])
def test_dtypes_and_ties(dtype, fill):
    rng = np.random.default_rng(1)
    pool = {"bool": [True, False], "complex128": [0, 1j, 1 + 1j, complex(np.nan, 0), 2],
            "float32": [0.0, -0.0, 1.0, np.nan]}.get(dtype, [0, 1, 3, 5])
    for shape, s in [((9,), 1), ((4, 5), 2), ((3, 4, 2), 2), ((3, 4, 2), 1)]:
        D = rng.choice(np.array(pool, dtype=dtype), size=shape)
        check(sparray.asarray(D, fill_value=fill, sparse_ndim=s), D)


def test_fill_value_semantics():
    A = sparray.COO([[1, 3]], [2.0, 0.0], shape=(5,), fill_value=0.0)  # [0, 2, 0, 0, 0]
    r = sparray.unique_all(A)
    assert to_numpy(r.values).tolist() == [0.0, 2.0] and to_numpy(r.counts).tolist() == [4, 1]
    assert to_numpy(r.indices).tolist() == [0, 1]
    assert int(r.inverse_indices.fill_value) == 0 and r.inverse_indices.nse == 2
    # a nan fill with 3 unspecified elements gives 3 nans, each with count 1
    B = sparray.COO([[1]], [2.0], shape=(4,), fill_value=np.nan)
    r = sparray.unique_all(B)
    values = to_numpy(r.values)
    assert values[0] == 2.0 and np.isnan(values[1:]).all() and values.shape == (4,)
    assert to_numpy(r.counts).tolist() == [1, 1, 1, 1] and to_numpy(r.indices).tolist() == [1, 0, 2, 3]
    assert_holds_dense(r.inverse_indices, B)  # a nan fill: the inverse is dense
    assert to_numpy(r.inverse_indices).tolist() == [1, 0, 2, 3]
    # every position specified: the fill is not an element
    F = sparray.COO([[0, 1]], [4.0, 4.0], shape=(2,), fill_value=1.0)
    values = sparray.unique_values(F)
    assert_holds_dense(values, F)
    assert to_numpy(values).tolist() == [4.0]


def test_uncoalesced_int32_and_empty():
    rng = np.random.default_rng(2)
    A, D = make_coo(rng, (4, 5), 2, density=0.6, fill=2, dtype="int64", duplicates=True, index_dtype="int32")
    check(A, D)
    E = sparray.COO([[], []], np.zeros(0), shape=(0, 3), fill_value=1.0)
    check(E, np.zeros((0, 3)))


def test_array_api_strict_components():
    rng = np.random.default_rng(3)
    for fill in [1.5, float("nan")]:
        A, D = make_coo(rng, (4, 5, 2), 2, density=0.4, fill=fill, xp=array_api_strict, dense_fill=True)
        check(A, D)


def test_dense_input_goes_to_its_namespace():
    D = np.array([3, 1, 3, 2])
    r = sparray.unique_all(D)
    assert all(isinstance(x, np.ndarray) for x in r)
    assert r.counts.tolist() == np.unique_all(D).counts.tolist()
    values = sparray.unique_values(D)
    assert isinstance(values, np.ndarray) and sorted(values.tolist()) == [1, 2, 3]
