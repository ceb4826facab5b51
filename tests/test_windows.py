"""sparray.lib.stride_tricks.sliding_window_view (what xarray's rolling reads) and NumPy's on sparse
arrays, against NumPy's windows of the dense arrays: every layout with batched and hybrid shapes,
fills 0, 1.5, nan and -inf, several and repeated axes, errors, the simulated GPU device."""

import numpy as np
import pytest
from cuda_testing import requires_gxx
from sparray_testing import FILLS, LAYOUT_SHAPES, make_sparse

import sparray
from sparray.kernels.cuda import simulated

swv = np.lib.stride_tricks.sliding_window_view
LAYOUTS = ["coo", "csr", "csc", "bsr", "bsc"]


@pytest.mark.parametrize("fill", FILLS, ids=["fill0", "fill1.5", "fillnan", "fill-inf"])
@pytest.mark.parametrize("layout", LAYOUTS)
def test_windows_match_numpy(layout, fill):
    rng = np.random.default_rng(LAYOUTS.index(layout))
    for shape, s, block in LAYOUT_SHAPES:
        A, D = make_sparse(rng, layout, shape, s, block, density=0.4, fill=fill, dense_fill=s < len(shape))
        cases = [(tuple(int(rng.integers(0, n + 1)) for n in shape), None)]
        for _ in range(3):
            axes = [int(a) for a in rng.integers(0, len(shape), size=int(rng.integers(1, 3)))]  # repeats allowed
            left, window = list(shape), []
            for ax in axes:
                window.append(int(rng.integers(0, left[ax] + 1)))
                left[ax] -= window[-1] - 1
            cases.append((tuple(window), tuple(axes)))
        for window, axes in cases:
            want = swv(D, window, axis=axes)
            for got in (sparray.lib.stride_tricks.sliding_window_view(A, window, axis=axes), swv(A, window, axis=axes)):
                assert isinstance(got, sparray.SparseArray) and got.shape == want.shape, (window, axes)
                np.testing.assert_array_equal(got.to_dense(), want, err_msg=f"{shape} {window} {axes}")


def test_one_int_window_and_layout():
    A = sparray.asarray(np.array([[1.0, 0.0, 2.0, 0.0], [0.0, 3.0, 0.0, 0.0]]), layout="csr")
    R = sparray.lib.stride_tricks.sliding_window_view(A, 2, axis=-1)
    assert R.shape == (2, 3, 2) and R.layout == "csr"
    np.testing.assert_array_equal(R.to_dense(), swv(A.to_dense(), 2, axis=-1))
    assert type(sparray.lib.stride_tricks.sliding_window_view(np.ones(4), 2)) is np.ndarray


@pytest.mark.parametrize(
    ("args", "kwargs", "error", "match"),
    [
        ((2,), {}, ValueError, "one size per dim"),
        (((2, 2), 0), {}, ValueError, "same length"),
        (((4,), 0), {}, ValueError, "longer than dim 0"),
        (((-1,), 0), {}, ValueError, "negative"),
        ((("a",), 0), {}, TypeError, "window_shape must be an int"),
        (((2,), 5), {}, ValueError, "axis"),
        (((2,), 0), {"writeable": True}, ValueError, "writeable=True"),
    ],
)
def test_errors(args, kwargs, error, match):
    A = sparray.asarray(np.eye(3))
    with pytest.raises(error, match=match):
        sparray.lib.stride_tricks.sliding_window_view(A, *args, **kwargs)


@requires_gxx
@pytest.mark.parametrize("fill", [0.0, 1.5, float("nan")], ids=["fill0", "fill1.5", "fillnan"])
def test_on_the_simulated_device(fill):
    rng = np.random.default_rng(9)
    A, D = make_sparse(rng, "csr", (4, 6), None, None, density=0.4, fill=fill)
    R = sparray.lib.stride_tricks.sliding_window_view(A.to_device("simulated"), (2, 3))
    assert simulated.is_simulated(R.values)
    np.testing.assert_array_equal(R.to_device("cpu").to_dense(), swv(D, (2, 3)))


def test_docstring_examples():
    import doctest

    from sparray._functions import windows as mod

    assert doctest.testmod(mod).failed == 0
