"""The bitmap-vector compaction (registry op "bitmap_compact", layout "dense"): the numba kernel
(kernels/cpu/bitmap.py) and the generic twin (_engine/graph_generic.py) against NumPy, at sizes
on one thread and on several, every density, int32 and int64 positions, float and bool values."""

import doctest

import numpy as np
import pytest

import array_api_compat.numpy as anp
from sparray._engine.graph_generic import bitmap_compact_generic
from sparray.kernels.cpu import bitmap
from sparray.kernels.cpu.bitmap import CHUNK, PARALLEL_FROM, bitmap_compact


@pytest.mark.parametrize("n", [0, 1, CHUNK - 1, CHUNK + 3, PARALLEL_FROM + 5 * CHUNK + 7])
@pytest.mark.parametrize("density", [0.0, 0.01, 0.5, 1.0])
def test_numba_and_generic_match_numpy(n, density):
    rng = np.random.default_rng(n + int(density * 100))
    present = rng.random(n) < density
    # the value and index dtypes in pairs (each pair one compile of the kernel): every dtype once
    for dtype, index_dtype in ((np.float64, np.int32), (np.float64, np.int64), (np.bool_, np.int32)):
        y = (rng.random(n) * 100).astype(dtype)
        want = np.flatnonzero(present)
        for idx, vals in (bitmap_compact(y, present, index_dtype), bitmap_compact_generic(anp, y, present, index_dtype)):
            assert idx.dtype == index_dtype and vals.dtype == y.dtype
            np.testing.assert_array_equal(idx, want)
            np.testing.assert_array_equal(vals, y[want])


def test_signed_zeros_and_nan_values_are_kept_bit_for_bit():
    y = np.array([-0.0, np.nan, 0.0, -np.inf])
    idx, vals = bitmap_compact(y, np.array([True, True, False, True]), np.int64)
    assert idx.tolist() == [0, 1, 3] and np.signbit(vals[0]) and np.isnan(vals[1]) and vals[2] == -np.inf


def test_bad_input():
    with pytest.raises(ValueError, match="one length"):
        bitmap_compact(np.zeros(3), np.zeros(4, bool), np.int64)
    with pytest.raises(ValueError, match="int32 or int64"):
        bitmap_compact(np.zeros(3), np.zeros(3, bool), np.int16)


def test_docstring_examples():
    assert doctest.testmod(bitmap).failed == 0
