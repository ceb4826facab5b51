"""all_finite on the CUDA backend (kernels/cuda/finite.cu), emulated in CI and on CuPy where a GPU
is: against the numba kernel for every dtype, inf/nan anywhere (first, last, in a complex part),
empty arrays, and the same declines."""

import numpy as np
import pytest

from cuda_testing import DEVICES, VALUE_DTYPES, requires_gxx, to_device
from sparray.kernels import KernelDeclined
from sparray.kernels.cpu.finite import all_finite as cpu_all_finite
from sparray.kernels.cuda.finite import all_finite

pytestmark = requires_gxx


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("dtype", VALUE_DTYPES, ids=str)
def test_all_finite_matches_numba(device, dtype):
    for n in (0, 1, 7, 1000):
        x = np.ones(n, dtype)
        assert all_finite(to_device(x, device)) is True
        if dtype.kind not in "fc" or n == 0:
            continue
        for pos in {0, n // 2, n - 1}:
            for bad in (np.inf, -np.inf, np.nan):
                y = x.copy()
                y[pos] = bad
                assert all_finite(to_device(y, device)) is cpu_all_finite(y) is False
                if dtype.kind == "c":
                    y[pos] = complex(1.0, bad)  # a non-finite imaginary part alone
                    assert all_finite(to_device(y, device)) is False


@pytest.mark.parametrize("device", DEVICES)
def test_all_finite_shapes_and_declines(device):
    x = np.ones((4, 5, 6))
    x[3, 4, 5] = np.nan
    assert all_finite(to_device(x, device)) is False
    assert all_finite(to_device(np.ones((0, 3)), device)) is True
    with pytest.raises(KernelDeclined, match="non-contiguous"):
        all_finite(to_device(np.ones((4, 4)), device)[:, ::2])
    with pytest.raises(KernelDeclined, match="float16"):
        all_finite(to_device(np.ones(3, np.float16), device))
