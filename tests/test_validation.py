"""Bad input gets a clear error naming the argument and the rule (API.md section 6)."""

import numpy as np
import pytest

import sparray


def test_structural_errors_always_checked():
    with pytest.raises(ValueError, match=r"indices must be 2-d"):
        sparray.COO([0, 1], [1.0, 2.0], shape=(3,))
    with pytest.raises(ValueError, match=r"values.shape\[0\] = 3 must equal nse = indices.shape\[1\] = 2"):
        sparray.COO([[0, 1]], [1.0, 2.0, 3.0], shape=(3,))
    with pytest.raises(ValueError, match=r"shape \(3, 4\) must have sparse_ndim \+ dense_ndim = 1 \+ 0 = 1 entries"):
        sparray.COO([[0, 1]], [1.0, 2.0], shape=(3, 4))
    with pytest.raises(ValueError, match=r"dense part"):
        sparray.COO([[0, 1]], np.ones((2, 3)), shape=(3, 4))
    with pytest.raises(TypeError, match=r"indices must have dtype int32 or int64; got float64"):
        sparray.COO(np.array([[0.0, 1.0]]), [1.0, 2.0], shape=(3,))
    with pytest.raises(TypeError, match=r"int32 or int64; got uint8"):
        sparray.COO(np.array([[0, 1]], dtype=np.uint8), [1.0, 2.0], shape=(3,))
    with pytest.raises(ValueError, match=r"non-negative"):
        sparray.COO([[0, 1]], [1.0, 2.0], shape=(-3,))
    with pytest.raises(TypeError, match=r"shape must be a tuple of ints"):
        sparray.COO([[0, 1]], [1.0, 2.0], shape=(3.5,))
    with pytest.raises(ValueError, match="at least 1-d"):
        sparray.COO(np.zeros((0, 1), np.int64), np.float64(1.0), shape=())


def test_negative_index_is_caught_when_shape_is_inferred():
    with pytest.raises(ValueError, match=r"indices\[0, 1\] = -2 is negative"):
        sparray.COO([[0, -2]], [1.0, 2.0])


def test_range_checks_under_check_invariants():
    with pytest.raises(ValueError, match=r"COO: indices\[1, 3\] = 7 is out of range for dimension 1 of size 5"):
        sparray.COO([[0, 1, 2, 3], [0, 1, 2, 7]], [1.0] * 4, shape=(4, 5), check_invariants=True)
    with sparray.check_invariants():
        with pytest.raises(ValueError, match=r"indices\[0, 0\] = -1 is negative"):
            sparray.COO([[-1]], [1.0], shape=(4,))
        with pytest.raises(ValueError, match="is_coalesced=True but"):
            sparray.COO([[2, 1]], [1.0, 2.0], shape=(4,), is_coalesced=True)
    # outside the context, construction is O(1) beyond the structural checks...
    A = sparray.COO([[0, 9]], [1.0, 2.0], shape=(4,))
    # ...but no index reaches a kernel unchecked: the first operation reports it
    for op in (lambda: A.coalesce(), lambda: A.to_dense(), lambda: sparray.sum(A), lambda: A + A, lambda: sparray.exp(A)):
        with pytest.raises(ValueError, match=r"indices\[0, 1\] = 9 is out of range for dimension 0 of size 4"):
            op()


@pytest.mark.parametrize("backend_name", ["generic", "numba"])
def test_out_of_range_never_reaches_kernels(backend_name):
    bad = sparray.COO(np.array([[0, 2**40]]), [1.0, 2.0], shape=(4,))
    with sparray.use_backend(backend_name), pytest.raises(ValueError, match="out of range"):
        bad.coalesce()


def test_mismatched_shapes_name_both():
    A = sparray.zeros((3, 4))
    B = sparray.zeros((5, 4))
    with pytest.raises(ValueError, match=r"\(3, 4\), \(5, 4\) cannot be broadcast"):
        A + B


def test_reduction_axis_errors():
    A = sparray.zeros((3, 4))
    with pytest.raises(ValueError, match="axis 2 is out of range"):
        sparray.sum(A, axis=2)
    with pytest.raises(ValueError, match="repeated axis"):
        sparray.sum(A, axis=(0, -2))
    with pytest.raises(TypeError, match="axis must be"):
        sparray.sum(A, axis="rows")


def test_unknown_backend_and_op():
    with pytest.raises(ValueError, match="backend must be one of"):
        with sparray.use_backend("tpu"):
            pass
    from sparray._engine import dispatch as _dispatch

    with pytest.raises(NotImplementedError, match="no implementation of 'frobnicate'.*known: .*coalesce\[coo\]"):
        _dispatch.call("frobnicate", "coo", sparray.COO([[0]], [1.0])._xp)
