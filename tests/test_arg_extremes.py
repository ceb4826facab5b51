"""argmax and argmin against NumPy: every layout, hybrid and batched shapes, fills 0, 1.5, nan and
-inf (dense-part fills too), int and bool dtypes, ties between specified values and the fill
(the first unspecified position must win), nans, uncoalesced COO, int32 indices, both backends.
The indices are dense by nature and follow the namespace rule (sparray in, sparray out): a sparray
array holding the dense int64 indices (no sparse dims, fill 0, components in the input's
namespace); a NumPy input still gets NumPy indices."""

import array_api_strict
import numpy as np
import pytest
from sparray_testing import LAYOUTS, assert_holds_dense, assert_sparray_result, layout_cases, make_coo, make_sparse, to_numpy

import sparray

KINDS = [("max", sparray.argmax, np.argmax), ("min", sparray.argmin, np.argmin)]


def check(A, D):
    for _, f, nf in KINDS:
        for i, axis in enumerate([None, *range(A.ndim), -1]):
            keepdims = bool(i % 2)
            try:
                expected = nf(D, axis=axis, keepdims=keepdims)
            except ValueError:
                with pytest.raises(ValueError, match="empty sequence"):
                    f(A, axis=axis, keepdims=keepdims)
                continue
            ctx = f"{A.layout} {A.shape} axis={axis} keepdims={keepdims}"
            R = f(A, axis=axis, keepdims=keepdims)
            assert_holds_dense(R, A, ctx)
            got = to_numpy(R)
            assert got.dtype == np.int64 and got.shape == np.shape(expected), ctx
            np.testing.assert_array_equal(got, expected, err_msg=ctx)


def test_every_layout(backend):
    rng = np.random.default_rng(0)
    for _, A, D in layout_cases(rng):
        check(A, D)


@pytest.mark.parametrize("dtype, fill", [("int64", 3), ("int32", 0), ("bool", True), ("bool", False), ("float32", 2.0)])
def test_ties_with_the_fill(dtype, fill):
    """Values drawn from a few numbers that include the fill: ties decide every answer."""
    rng = np.random.default_rng(1)
    pool = np.array([0, 1, 2, 3, 5], dtype=dtype) if dtype != "bool" else np.array([True, False])
    for shape, s in [((9,), 1), ((4, 5), 2), ((3, 4, 2), 2), ((2, 3, 4), 3), ((3, 4, 2), 1)]:
        for _ in range(3):
            D = rng.choice(pool, size=shape)
            check(sparray.asarray(D, fill_value=fill, sparse_ndim=s), D)


def test_nans_and_nan_fill(backend):
    """NumPy's rule: the first nan wins for argmax and argmin, a nan fill at its first unspecified position."""
    rng = np.random.default_rng(2)
    pool = np.array([0.0, 1.0, -1.0, np.nan, np.inf])
    for shape, s in [((8,), 1), ((4, 5), 2), ((3, 4, 2), 3), ((3, 4, 2), 2)]:
        for fill in [0.0, np.nan, 1.0, np.inf]:
            D = rng.choice(pool, size=shape)
            for layout in ("coo", "csr", "csc"):
                if layout != "coo" and s < 2:
                    continue
                check(sparray.asarray(D, fill_value=fill, sparse_ndim=s, layout=layout), D)


def test_uncoalesced_int32_indices():
    rng = np.random.default_rng(3)
    for shape, s in [((6,), 1), ((4, 5), 2), ((3, 4, 2), 2)]:
        for fill in [0, 4]:
            A, D = make_coo(rng, shape, s, density=0.6, fill=fill, dtype="int64", duplicates=True, index_dtype="int32")
            assert not A.is_coalesced
            check(A, D)


def test_full_and_empty_lines():
    # row 0 full (no unspecified position), row 1 empty (fill only), row 2 a fill tie before the max
    A = sparray.COO([[0, 0, 0, 2], [0, 1, 2, 2]], [1.0, 7.0, 3.0, 5.0], shape=(3, 3), fill_value=5.0)
    D = A.to_dense()
    for f, nf in [(sparray.argmax, np.argmax), (sparray.argmin, np.argmin)]:
        for axis in (1, 0, None):
            R = f(A, axis=axis)
            assert_holds_dense(R, A, axis)
            np.testing.assert_array_equal(to_numpy(R), nf(D, axis=axis))
    assert to_numpy(sparray.argmax(A, axis=1)).tolist() == [1, 0, 0]
    assert int(sparray.argmax(A)) == np.argmax(D) == 1 and int(sparray.argmin(A)) == np.argmin(D) == 0


def test_array_api_strict_components():
    rng = np.random.default_rng(4)
    for fill in [1.5, float("nan")]:
        A, D = make_coo(rng, (4, 5, 2), 2, density=0.4, fill=fill, xp=array_api_strict, dense_fill=True)
        check(A, D)


def test_dense_input_goes_to_its_namespace():
    D = np.array([[1.0, 3.0], [4.0, 2.0]])
    got = sparray.argmax(D, axis=0)
    assert isinstance(got, np.ndarray)
    np.testing.assert_array_equal(got, np.argmax(D, axis=0))
    got = sparray.argmin(D)
    assert not isinstance(got, sparray.SparseArray)
    np.testing.assert_array_equal(got, np.argmin(D))


def test_errors():
    A = sparray.COO([[0]], [1.0], shape=(3,))
    with pytest.raises(ValueError, match="axis 1 is out of range"):
        sparray.argmax(A, axis=1)
    with pytest.raises(TypeError, match="axis must be an int or None"):
        sparray.argmax(A, axis=(0,))
    with pytest.raises(ValueError, match="empty sequence"):
        sparray.argmin(sparray.COO([[]], [], shape=(0,)))
    with pytest.raises(TypeError, match="real-valued"):
        sparray.argmax(sparray.COO([[0]], [1j], shape=(2,)))
    E = sparray.COO([[], []], np.zeros(0), shape=(0, 3))
    R = sparray.argmax(E, axis=1)
    assert_holds_dense(R, E)
    assert R.shape == (0,) and to_numpy(R).shape == (0,)
    with pytest.raises(ValueError, match="empty sequence"):
        sparray.argmax(E, axis=0)


@pytest.mark.parametrize("layout", LAYOUTS)
def test_batched_blocks(layout):
    rng = np.random.default_rng(5)
    A, D = make_sparse(rng, layout, (2, 4, 6), 3, (2, 3), density=0.3, fill=0.5)
    check(A, D)
