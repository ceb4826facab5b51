"""The CUDA emulator (kernels/cuda/_emulate.h) against NumPy: block barriers with early-exited
threads, warp shuffles and votes, grid-stride atomics across blocks, the launch-argument checks,
and the self-test source compiled by NVRTC too (so it is real CUDA)."""

import pathlib

import numpy as np
import pytest

from cuda_testing import DEVICES, requires_gxx, requires_nvrtc, to_device, to_host
from sparray.kernels.cuda import _build
from sparray.kernels.cuda._driver import LaunchError, driver_for

SELFTEST = _build.register_source(
    pathlib.Path(__file__).parent / "cuda" / "emulator_selftest.cu", ("block_sums", "warp_ops", "atomics")
)

pytestmark = requires_gxx


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("n", [1, 63, 64, 130, 192])
def test_block_barrier_with_exited_threads(device, n):
    x = np.arange(n, dtype=np.float64) + 0.25
    drv = driver_for(to_device(x, device))
    nblocks = -(-n // drv.block)
    out = to_device(np.zeros(nblocks), device)
    drv.launch(SELFTEST, "block_sums", n, (to_device(x, device), np.int64(n), out))
    expect = [x[b * drv.block: (b + 1) * drv.block].sum() for b in range(nblocks)]
    got = to_host(out)
    # the emulator caps the grid; blocks it did not run keep 0 (a GPU runs them all)
    ran = min(nblocks, getattr(drv, "max_blocks", nblocks))
    np.testing.assert_allclose(got[:ran], expect[:ran])


@pytest.mark.parametrize("device", DEVICES)
def test_warp_shuffles_and_votes(device):
    rng = np.random.default_rng(3)
    drv = driver_for(to_device(np.zeros(1), device))
    n = drv.block  # one block, whole warps
    v = rng.integers(0, 8, size=n).astype(np.int32)
    v[:32] = np.arange(32) % 5  # first warp: no value above 5, all >= 0
    outs = [to_device(np.zeros(k, dt), device) for k, dt in
            [(n // 32, np.int32), (n, np.int32), (n, np.int32), (n // 32, np.uint32), (n, np.int32), (n, np.int32)]]
    drv.launch(SELFTEST, "warp_ops", n, (to_device(v, device), *outs))
    sums, scans, swapped, ballots, lane0, votes = map(to_host, outs)
    w = v.reshape(-1, 32)
    np.testing.assert_array_equal(sums, w.sum(axis=1))
    np.testing.assert_array_equal(scans, np.cumsum(w, axis=1).ravel())
    np.testing.assert_array_equal(swapped, w[:, np.arange(32) ^ 1].ravel())
    bits = ((w & 1).astype(np.uint64) << np.arange(32, dtype=np.uint64)).sum(axis=1)
    np.testing.assert_array_equal(ballots, bits.astype(np.uint32))
    np.testing.assert_array_equal(lane0, np.repeat(w[:, 0], 32))
    np.testing.assert_array_equal(votes, np.repeat(2 * (w > 5).any(axis=1) + (w >= 0).all(axis=1), 32))


@pytest.mark.parametrize("device", DEVICES)
def test_atomics_across_blocks(device):
    rng = np.random.default_rng(5)
    n, nk = 1000, 7
    keys = rng.integers(0, nk, size=n).astype(np.int64)
    dsum, counts = np.zeros(nk), np.zeros(nk, np.uint64)
    imax, first = np.full(nk, -1, np.int32), np.array([1 << 62], np.int64)
    args = [to_device(a, device) for a in (keys, dsum, counts, imax, first)]
    driver_for(args[0]).launch(SELFTEST, "atomics", n, (args[0], np.int64(n), *args[1:]))
    np.testing.assert_array_equal(to_host(args[2]), np.bincount(keys, minlength=nk))
    np.testing.assert_array_equal(to_host(args[1]), 0.5 * np.bincount(keys, minlength=nk))
    np.testing.assert_array_equal(to_host(args[3]), [np.flatnonzero(keys == k).max() for k in range(nk)])
    assert to_host(args[4])[0] == (keys * 1000 + np.arange(n)).min()


def test_launch_arguments_are_checked():
    drv = driver_for(np.zeros(1))
    x, out = np.ones(4), np.zeros(1)
    with pytest.raises(LaunchError, match="argument 1 is a Python int"):
        drv.launch(SELFTEST, "block_sums", 4, (x, 4, out))
    with pytest.raises(LaunchError, match="argument 1 is a int32 scalar; the kernel takes a 8-byte scalar"):
        drv.launch(SELFTEST, "block_sums", 4, (x, np.int32(4), out))
    with pytest.raises(LaunchError, match="argument 0 has 4-byte items"):
        drv.launch(SELFTEST, "block_sums", 4, (x.astype(np.float32), np.int64(4), out))
    with pytest.raises(LaunchError, match="must be C-contiguous"):
        drv.launch(SELFTEST, "block_sums", 4, (np.ones(8)[::2], np.int64(4), out))
    with pytest.raises(LaunchError, match="takes 3 arguments, got 2"):
        drv.launch(SELFTEST, "block_sums", 4, (x, np.int64(4)))
    with pytest.raises(LaunchError, match="not in its launcher's NAME_EXPRESSIONS"):
        drv.launch(SELFTEST, "no_such_kernel", 4, ())


@requires_nvrtc
@pytest.mark.parametrize("arch", ["sm_80", "sm_90"])
def test_selftest_is_real_cuda(arch):
    log, lowered = _build.nvrtc_compile(SELFTEST, arch)
    assert log == ""
    assert set(lowered) == {"block_sums", "warp_ops", "atomics"}
