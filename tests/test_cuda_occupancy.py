"""unused_minor on the CUDA backend (kernels/cuda/occupancy.cu), emulated in CI and on CuPy where a
GPU is: against the numba kernel and NumPy on random, repeated and empty indices, int32 and int64,
and the same error for an index out of range."""

import numpy as np
import pytest

from cuda_testing import DEVICES, INDEX_DTYPES, requires_gxx, to_device, to_host
from sparray.kernels.cpu.occupancy import unused_minor as cpu_unused_minor
from sparray.kernels.cuda.occupancy import unused_minor

pytestmark = requires_gxx


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("index_dtype", INDEX_DTYPES, ids=str)
@pytest.mark.parametrize("n,nminor", [(0, 4), (5, 1), (1000, 300), (40, 0)])
def test_unused_minor_matches_numba(device, index_dtype, n, nminor):
    rng = np.random.default_rng(n)
    minor = rng.integers(0, max(nminor, 1), n).astype(index_dtype) if nminor else np.zeros(0, index_dtype)
    got = to_host(unused_minor(to_device(minor, device), nminor))
    want = np.setdiff1d(np.arange(nminor), minor)
    assert got.dtype == np.int64
    np.testing.assert_array_equal(got, want)
    np.testing.assert_array_equal(got, cpu_unused_minor(minor, nminor))


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("bad", [-1, 5, 2**40])
def test_unused_minor_out_of_range(device, bad):
    minor = np.array([0, bad, 2], np.int64)
    with pytest.raises(ValueError) as want:
        cpu_unused_minor(minor, 5)
    with pytest.raises(ValueError) as got:
        unused_minor(to_device(minor, device), 5)
    assert str(got.value) == str(want.value)
