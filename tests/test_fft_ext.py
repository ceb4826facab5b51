"""sparray.fft against numpy.fft on the dense arrays: every layout, stacks, hybrid arrays, empty dims,
fills 0 / 1.5 / nan / -inf; fftshift / ifftshift stay sparse; fftfreq / rfftfreq; the signatures.

The transforms follow the namespace rule (sparray._array.results): the transform of a sparray array,
dense by nature, is held by a COO with no sparse dims (fill 0, components in the input's
namespace); the transform of a NumPy array is NumPy's. fftfreq / rfftfreq return sparray arrays."""

import inspect

import numpy as np
import pytest

import sparray
from linalg_ext_cases import dense, is_sparse, layout_matrix_params, make_matrix
from sparray_testing import assert_matches_dense, assert_sparray_result, make_coo

F = sparray.fft
pytestmark = pytest.mark.filterwarnings("ignore::RuntimeWarning")  # transforms of nan / inf


def _close(got, expected, like):
    """``got``, the transform of the sparray array ``like``, is held dense (the namespace rule) and
    equals NumPy's ``expected``."""
    assert_sparray_result(got, like)
    assert got.layout == "coo" and got.sparse_ndim == 0 and got.nse == 1, (got.layout, got.sparse_ndim)
    assert tuple(got.shape) == expected.shape and dense(got).dtype == expected.dtype
    np.testing.assert_allclose(dense(got), expected, rtol=1e-10, atol=1e-10, equal_nan=True)


@pytest.mark.parametrize("layout, case, fill", layout_matrix_params())
def test_transforms_match_numpy(layout, case, fill):
    rng = np.random.default_rng(61)
    A, D = make_matrix(rng, layout, case, fill)
    if D.size == 0:
        with pytest.raises(ValueError):  # NumPy has no transform of length 0 either
            F.fft(A, axis=list(D.shape).index(0))
        return
    _close(F.fft(A), np.fft.fft(D), A)
    _close(F.ifft(A, n=5, axis=0, norm="ortho"), np.fft.ifft(D, n=5, axis=0, norm="ortho"), A)
    _close(F.rfft(A, axis=-2, norm="forward"), np.fft.rfft(D, axis=-2, norm="forward"), A)
    _close(F.ihfft(A), np.fft.ihfft(D), A)
    _close(F.fftn(A), np.fft.fftn(D), A)
    _close(F.ifftn(A, axes=(0, -1), s=(3, 4)), np.fft.ifftn(D, axes=(0, -1), s=(3, 4)), A)
    _close(F.rfftn(A, axes=(-1, 0)), np.fft.rfftn(D, axes=(-1, 0)), A)
    C, DC = A.astype(sparray.complex128), D.astype(complex)
    _close(F.irfft(C, n=6), np.fft.irfft(DC, n=6), C)
    if D.shape[0] > 1 and D.shape[-1] > 1:  # the default output length 2 * (m - 1) must be positive
        _close(F.hfft(C, axis=0), np.fft.hfft(DC, axis=0), C)
        _close(F.irfftn(C, axes=(-2, -1)), np.fft.irfftn(DC, axes=(-2, -1)), C)


@pytest.mark.parametrize("layout, case, fill", layout_matrix_params())
def test_shifts_keep_sparsity(layout, case, fill):
    rng = np.random.default_rng(62)
    A, D = make_matrix(rng, layout, case, fill)
    for axes in (None, 0, (-1,), (0, -1), [1, 1]):
        for ours, theirs in ((F.fftshift, np.fft.fftshift), (F.ifftshift, np.fft.ifftshift)):
            R = ours(A, axes=axes)
            assert is_sparse(R) and R.layout == A.layout and R.nse == A.nse
            # the fill is kept (a dense-part fill rolls with its dims: to_dense checks it there)
            assert_matches_dense(R, theirs(D, axes=axes), fill=None if A.dense_ndim else dense(A.fill_value))
    roundtrip = F.ifftshift(F.fftshift(A))
    assert_matches_dense(roundtrip, D)


def test_shift_of_uncoalesced_coo_and_dense_input():
    A = sparray.COO([[4, 0, 4]], [1.0, 2.0, 3.0], shape=(5,), fill_value=-1.0)
    assert not A.is_coalesced
    assert_matches_dense(F.fftshift(A), np.fft.fftshift(dense(A)))
    D = np.arange(12.0).reshape(3, 4)
    got = F.fftshift(D, axes=1)
    assert isinstance(got, np.ndarray)  # NumPy in: NumPy out
    np.testing.assert_array_equal(got, np.fft.fftshift(D, axes=1))
    got = F.fft(D[0])
    assert isinstance(got, np.ndarray)
    np.testing.assert_allclose(got, np.fft.fft(D[0]))


@pytest.mark.parametrize("dtype", [None, "float32", "float64"])
def test_frequencies(dtype):
    want = np.dtype(dtype or "float64")
    for n in (1, 4, 7):
        f, r = F.fftfreq(n, d=0.5, dtype=dtype), F.rfftfreq(n, d=0.5, dtype=dtype)
        for got, expected in ((f, np.fft.fftfreq(n, d=0.5)), (r, np.fft.rfftfreq(n, d=0.5))):
            assert_sparray_result(got, None)  # no array input: sparray arrays of NumPy components (device None)
            assert got.dtype == want and dense(got).dtype == want and tuple(got.shape) == expected.shape
            np.testing.assert_allclose(dense(got), expected, rtol=1e-6 if want == np.float32 else 1e-15)


def test_array_api_strict_components():
    xp = pytest.importorskip("array_api_strict")
    A, D = make_coo(np.random.default_rng(63), (4, 6), density=0.4, fill=1.5, dtype="complex128", xp=xp)
    _close(F.fftn(A), np.fft.fftn(D), A)  # array_api_strict's fftn takes complex input only
    assert type(F.fftn(A).values).__module__.startswith("array_api_strict")
    assert_matches_dense(F.fftshift(A), np.fft.fftshift(D))


def test_signatures_and_bad_input():
    assert set(F.STANDARD_NAMES) == set(F.__all__) and len(F.STANDARD_NAMES) == 14
    assert str(inspect.signature(F.fft)) == "(x, /, *, n=None, axis=-1, norm='backward')"
    assert str(inspect.signature(F.rfftn)) == "(x, /, *, s=None, axes=None, norm='backward')"
    assert str(inspect.signature(F.fftshift)) == "(x, /, *, axes=None)"
    with pytest.raises(TypeError, match="sparray.fft.fft: x must be an array"):
        F.fft([1.0, 2.0])
    with pytest.raises(ValueError, match="sparray.fft.fftshift: axis 2 is out of range for an array of 2 dims"):
        F.fftshift(sparray.zeros((2, 3)), axes=2)
    with pytest.raises(TypeError, match="sparray.fft.ifftshift: axes must be None, an int or a sequence of ints"):
        F.ifftshift(sparray.zeros((2, 3)), axes=1.5)


def test_doctests():
    import doctest

    from sparray.fft import _frequencies, _shift, _transforms

    for mod in (F, _frequencies, _shift, _transforms):
        assert doctest.testmod(mod).failed == 0, mod.__name__
