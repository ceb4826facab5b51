"""In-place operators: the array object itself changes (every name bound to it sees it), the result
keeps the dtype, shape, layout and fill rules of the standard, checked against NumPy's in-place ops."""

import operator

import array_api_compat.numpy as npx
import numpy as np
import pytest
from sparray_testing import make_sparse

import sparray
from sparray._functions.special_values import standard_function

FLOAT_OPS = ["iadd", "isub", "imul", "itruediv", "ifloordiv", "imod", "ipow"]
INT_OPS = ["iadd", "isub", "imul", "ifloordiv", "imod", "iand", "ior", "ixor", "ilshift", "irshift"]
LAYOUTS = [("coo", None), ("csr", None), ("csc", None), ("bsr", (2, 3)), ("bsc", (2, 1))]


def operands(rng, A, D):
    """(sparray operand, numpy operand) pairs of A's dtype: a scalar, a sparse and a dense array, a row."""
    other, E = make_sparse(rng, "coo", D.shape, density=0.5, fill=float(np.asarray(A.fill_value).flat[0]) if D.dtype.kind == "f" else 0, dtype=D.dtype.name)
    row = E[0]
    return [(2 if D.dtype.kind in "iu" else 1.5, 2 if D.dtype.kind in "iu" else 1.5), (other, E), (E, E), (row, row)]


@pytest.mark.parametrize("layout,block", LAYOUTS)
@pytest.mark.parametrize("dtype", ["float64", "int64"])
def test_inplace_matches_numpy(layout, block, dtype):
    rng = np.random.default_rng(5)
    ops = FLOAT_OPS if dtype == "float64" else INT_OPS
    for fill in ([0.0, 1.5, float("nan"), float("-inf")] if dtype == "float64" else [0, 3]):
        for name in ops:
            A, D = make_sparse(rng, layout, (4, 6), blocksize=block, density=0.4, fill=fill, dtype=dtype)
            if dtype == "int64":
                A, D = abs(A) % 5, np.abs(D) % 5  # small non-negative values: shifts and powers stay defined
            for x, y in operands(rng, A, D):
                if dtype == "int64" and name in ("ifloordiv", "imod"):
                    x, y = (x + 1, y + 1) if not isinstance(x, sparray.SparseArray) else (x % 3 + 1, y % 3 + 1)
                B = A.copy()
                alias = B
                E = D.copy()
                with np.errstate(all="ignore"):
                    if name == "ifloordiv":  # the standard's floor_divide (test_special_values.py)
                        E[...] = standard_function(npx, "floor_divide")(E, y)
                    else:
                        getattr(operator, name)(E, y)  # NumPy in place
                    out = getattr(operator, name)(B, x)
                ctx = f"{layout} {dtype} fill={fill} {name} {type(x).__name__}"
                assert out is alias and B is alias, ctx
                assert type(B) is type(A) and B.dtype == A.dtype and B.shape == A.shape, ctx
                assert getattr(B, "blocksize", None) == getattr(A, "blocksize", None), ctx
                np.testing.assert_allclose(B.to_dense(), E, rtol=1e-12, equal_nan=True, err_msg=ctx)


def test_imatmul():
    rng = np.random.default_rng(6)
    for layout, block in LAYOUTS:
        A, D = make_sparse(rng, layout, (4, 4), blocksize=(2, 2) if block else None, density=0.5)
        S, E = make_sparse(rng, "csr", (4, 4), density=0.5)
        alias = A
        A @= S
        assert alias is A and type(A).__name__ == layout.upper()
        np.testing.assert_allclose(A.to_dense(), D @ E, rtol=1e-12)
        A @= E  # a dense right operand: the dense product comes back in A's layout
        assert type(A).__name__ == layout.upper()
        np.testing.assert_allclose(A.to_dense(), D @ E @ E, rtol=1e-12)
    A = sparray.asarray(np.ones((2, 3)))
    with pytest.raises(ValueError, match="shape"):
        A @= sparray.asarray(np.ones((3, 4)))


def test_dtype_and_shape_rules():
    A = sparray.asarray(np.array([1, 0, 2]))
    with pytest.raises(TypeError, match="dtype"):
        A += 1.5  # as NumPy raises for int_array += 1.5
    with pytest.raises(TypeError, match="dtype"):
        A /= 2  # true division of integers is float
    F = sparray.asarray(np.array([1.0, 0.0], np.float32))
    with pytest.raises(TypeError, match="dtype"):
        F += np.array([1.0, 2.0])  # float32 + float64 promotes: the standard's rule refuses it
    F += np.float32(2.0)
    assert F.dtype == sparray.float32
    V = sparray.asarray([1.0, 0.0, 2.0])
    with pytest.raises(ValueError, match="shape"):
        V += np.ones((2, 3))  # broadcasting would grow V
    np.testing.assert_array_equal(A.to_dense(), [1, 0, 2])  # unchanged by the failed operations
    np.testing.assert_array_equal(V.to_dense(), [1.0, 0.0, 2.0])


def test_dense_result_keeps_layout_and_fill():
    D = np.array([[0.0, 1.0], [2.0, 0.0]])
    A = sparray.asarray(D, layout="csr", fill_value=0.0)
    plus = np.array([[1.0, 2.0], [3.0, 4.0]])
    A += plus  # sparse + a varying dense array is dense: back into CSR with the fill 0
    assert isinstance(A, sparray.CSR) and float(A.fill_value) == 0.0
    np.testing.assert_array_equal(A.to_dense(), D + plus)


def test_views_keep_the_old_contents():
    A = sparray.asarray(np.array([[1.0, 0.0], [0.0, 2.0]]), layout="csr")
    T = A.mT
    alias = A
    A *= 10
    np.testing.assert_array_equal(alias.to_dense(), [[10.0, 0.0], [0.0, 20.0]])
    np.testing.assert_array_equal(T.to_dense(), [[1.0, 0.0], [0.0, 2.0]])
