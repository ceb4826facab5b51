"""Shared pieces of the CUDA kernel tests (tests/test_cuda_*.py).

The launchers in ``sparray.kernels.cuda`` run on NumPy arrays through the emulator (CI) and on
CuPy arrays on a GPU. ``DEVICES`` lists what is here: always "emulator", plus "cupy" when a GPU
is. ``to_device(a, device)`` and ``to_host(a)`` move test data; ``requires_gxx`` skips when the
host build cannot run (no g++), ``requires_nvrtc`` when CuPy's NVRTC binding is missing.
"""

from __future__ import annotations

import importlib.util
import shutil

import numpy as np
import pytest
from sparray_testing import group_reduce_ref


def _gpu() -> bool:
    if importlib.util.find_spec("cupy") is None:
        return False
    try:
        import cupy

        return bool(cupy.is_available())
    except Exception:
        return False


DEVICES = ("emulator", "cupy") if _gpu() else ("emulator",)

requires_gxx = pytest.mark.skipif(shutil.which("g++") is None, reason="the CUDA emulator needs g++")


def _has_nvrtc() -> bool:
    if importlib.util.find_spec("cupy") is None:
        return False
    try:
        from cupy.cuda import nvrtc

        nvrtc.getVersion()
        return True
    except Exception:
        return False


requires_nvrtc = pytest.mark.skipif(not _has_nvrtc(), reason="needs cupy-cuda13x and nvidia-cuda-nvrtc (the cuda extra)")

#: Value dtypes every kernel family is tested with.
VALUE_DTYPES = tuple(
    np.dtype(t)
    for t in ("bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
              "float32", "float64", "complex64", "complex128")
)  # fmt: skip
INDEX_DTYPES = (np.dtype(np.int32), np.dtype(np.int64))


def to_device(a, device):
    """A NumPy array on ``device`` ("emulator": unchanged; "cupy": copied to the GPU)."""
    if device == "cupy":
        import cupy

        return cupy.asarray(a)
    return np.asarray(a)


def to_host(a):
    """Any array (NumPy or CuPy) as NumPy."""
    if type(a).__module__.startswith("cupy"):
        return a.get()
    return np.asarray(a)


def random_values(rng, shape, dtype, negative=False):
    """Random values of ``dtype``: small integers (so sums stay exact; from -9 for signed integers
    with ``negative``), and quarters for floats and complex."""
    dtype = np.dtype(dtype)
    if dtype == np.bool_:
        return rng.random(shape) < 0.5
    if dtype.kind in "iu":
        low = -9 if negative and dtype.kind == "i" else 0
        return rng.integers(low, 7, size=shape).astype(dtype)
    v = rng.integers(-4, 5, size=shape).astype(np.float64) / 4
    if dtype.kind == "c":
        v = v + 1j * rng.integers(-4, 5, size=shape) / 4
    return v.astype(dtype)


def skewed_keys(rng, n, nkeys):
    """Keys with one very popular key, a few empty keys and the rest uniform."""
    keys = rng.integers(0, max(nkeys, 1), size=n)
    keys[: n // 3] = nkeys // 2
    return rng.permutation(keys)


def emulate_cuda_registry():
    """Point every ``(op, layout, "numba")`` registry row that has a ``"cupy"`` twin at the CUDA
    launcher, so NumPy data runs the CUDA kernels through the emulator (``pytest --cuda-emulated``).
    Returns the rows swapped. For tests only: the emulator is orders of magnitude slower than numba."""
    from sparray._engine import dispatch as _dispatch
    from sparray._engine.registry_table import KERNELS

    swapped = []
    for op, layout, backend, target in KERNELS:
        if backend == "cupy" and (op, layout, "numba") in _dispatch._REGISTRY:
            _dispatch._REGISTRY[(op, layout, "numba")] = target
            _dispatch._TARGETS[(op, layout, "numba")] = target
            swapped.append((op, layout))
    return swapped


#: value dtypes whose CUDA results are also compared with the numba kernels (the dtypes the core's own
#: tests compile those kernels for); every dtype is compared with sparray_testing.group_reduce_ref
NUMBA_DTYPES = (np.dtype(np.float64), np.dtype(np.int64))


def ref_group_reduce_rows(offsets, values, op):
    """What ``group_reduce_rows`` returns, in plain NumPy: the shared ``group_reduce_ref`` of the keys
    ``g`` repeated ``offsets[g + 1] - offsets[g]`` times."""
    offsets = np.asarray(offsets).astype(np.int64)
    return group_reduce_ref(np.repeat(np.arange(offsets.shape[0] - 1), np.diff(offsets)), values, op)
