"""coalesce on the CUDA backend (kernels/cuda/coalesce.cu), emulated in CI, on CuPy where a GPU is."""

import numpy as np
import pytest

from cuda_testing import DEVICES, VALUE_DTYPES, random_values, requires_gxx, skewed_keys, to_device, to_host
from sparray.kernels.cpu.coalesce import coalesce as cpu_coalesce
from sparray.kernels.cuda.coalesce import coalesce

pytestmark = requires_gxx


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("dtype", VALUE_DTYPES, ids=str)
def test_coalesce_matches_numba(device, dtype):
    rng = np.random.default_rng(7)
    for n, nkeys, m in [(0, 5, 1), (1, 1, 2), (200, 40, 1), (300, 1000, 3), (257, 9, 2)]:
        keys = skewed_keys(rng, n, nkeys)
        values = random_values(rng, (n, m), dtype)
        uk, uv = coalesce(to_device(keys, device), to_device(values, device))
        ek, ev = cpu_coalesce(keys, values)
        np.testing.assert_array_equal(to_host(uk), ek)
        assert to_host(uv).dtype == ev.dtype
        np.testing.assert_array_equal(to_host(uv), ev)  # same order of additions: bit for bit


@pytest.mark.parametrize("device", DEVICES)
def test_coalesce_dense_reference_and_errors(device):
    keys = np.array([5, 2, 5, 5, 0])
    values = np.array([1.0, 2.0, np.inf, -np.inf, 3.0])
    uk, uv = coalesce(to_device(keys, device), to_device(values, device))
    assert to_host(uk).tolist() == [0, 2, 5]
    assert np.isnan(to_host(uv)[2, 0]) and to_host(uv)[:2, 0].tolist() == [3.0, 2.0]
    with pytest.raises(ValueError, match="keys must be >= 0, found -1"):
        coalesce(to_device(np.array([1, -1]), device), to_device(np.ones(2), device))
    with pytest.raises(ValueError, match=r"values must have shape \(2, m\)"):
        coalesce(to_device(np.array([1, 0]), device), to_device(np.ones(3), device))
