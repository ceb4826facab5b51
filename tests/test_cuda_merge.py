"""merge_pattern and gather_with_fill on the CUDA backend (kernels/cuda/merge.cu), emulated in CI, on
CuPy where a GPU is: compared with the numba kernels and a plain-Python reference, errors included."""

import numpy as np
import pytest

from cuda_testing import DEVICES, INDEX_DTYPES, VALUE_DTYPES, random_values, requires_gxx, to_device, to_host
from sparray.kernels import KernelDeclined
from sparray.kernels.cpu.merge import gather_with_fill as cpu_gather
from sparray.kernels.cpu.merge import merge_pattern as cpu_merge_pattern
from sparray.kernels.cuda.merge import gather_with_fill, merge_pattern

pytestmark = requires_gxx

MODES = ("union", "intersection", "left")


def _sorted_unique(rng, n, high):
    return np.sort(rng.choice(high, size=min(n, high), replace=False)).astype(np.int64)


def _operand_sets():
    rng = np.random.default_rng(3)
    a = _sorted_unique(rng, 120, 400)
    return {
        "all_empty": [[], []],
        "first_empty": [[], [1, 5, 9]],
        "second_empty": [[0, 3, 4], []],
        "identical": [a, a],
        "disjoint": [[0, 2, 4, 6], [1, 3, 5, 7, 9]],
        "one_operand": [[1, 4, 6]],
        "three": [_sorted_unique(rng, 50, 90), _sorted_unique(rng, 60, 90), _sorted_unique(rng, 5, 90)],
        "random": [_sorted_unique(rng, 300, 1000), _sorted_unique(rng, 500, 1000)],
        "skewed": [_sorted_unique(rng, 700, 5000), [2, 4999]],
        "large_keys": [np.array([0, 2**40, 2**62 + 7]), np.array([5, 2**62 + 7, 2**62 + 9])],
    }


OPERANDS = _operand_sets()


def _reference(parts, mode):
    """Plain-Python merge: output keys and, per operand, each key's index or -1."""
    parts = [list(map(int, p)) for p in parts]
    if mode == "union":
        out = sorted(set().union(*parts))
    elif mode == "intersection":
        out = sorted(set(parts[0]).intersection(*parts[1:]))
    else:
        out = parts[0]
    where = [{k: i for i, k in enumerate(p)} for p in parts]
    return np.array(out, np.int64), np.array([[w.get(k, -1) for k in out] for w in where], np.int64).reshape(len(parts), len(out))


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("case", list(OPERANDS))
def test_merge_pattern_matches_numba_and_reference(device, mode, case):
    parts = [np.asarray(p, np.int64) for p in OPERANDS[case]]
    keys = np.concatenate(parts)
    offsets = np.concatenate([[0], np.cumsum([len(p) for p in parts])]).astype(np.int64)
    dtypes = INDEX_DTYPES if keys.size == 0 or keys.max() < 2**31 else (np.dtype(np.int64),)
    ek, ep = cpu_merge_pattern(keys, offsets, mode)
    rk, rp = _reference(parts, mode)
    np.testing.assert_array_equal(ek, rk)
    np.testing.assert_array_equal(ep, rp)
    for dt in dtypes:
        ok, op = merge_pattern(to_device(keys.astype(dt), device), to_device(offsets.astype(dt), device), mode)
        ok, op = to_host(ok), to_host(op)
        assert ok.dtype == np.int64 and op.dtype == np.int64 and op.shape == (len(parts), ok.shape[0])
        np.testing.assert_array_equal(ok, ek)
        np.testing.assert_array_equal(op, ep)


@pytest.mark.parametrize("device", DEVICES)
def test_merge_pattern_unsorted_operands_stay_in_range(device):
    # against the contract (operands not increasing): unspecified result, but every position is
    # inside its operand (the searches are bounded by the operand's range)
    keys = np.array([9, 1, 5, 5, 3, 7, 2, 8, 0])
    offsets = np.array([0, 4, 4, 9])
    for mode in MODES:
        _, pos = merge_pattern(to_device(keys, device), to_device(offsets, device), mode)
        pos = to_host(pos)
        for i, n in enumerate(np.diff(offsets)):
            assert ((pos[i] >= -1) & (pos[i] < n)).all()


def _same_error(cpu_fn, cuda_fn, args, device, exc=ValueError):
    with pytest.raises(exc) as expected:
        cpu_fn(*args)
    with pytest.raises(exc) as got:
        cuda_fn(*[to_device(a, device) if isinstance(a, np.ndarray) else a for a in args])
    assert str(got.value) == str(expected.value)
    return str(got.value)


@pytest.mark.parametrize("device", DEVICES)
def test_merge_pattern_errors_match_numba(device):
    keys, offsets = np.array([1, 4, 2]), np.array([0, 2, 3])
    assert "mode must be one of" in _same_error(cpu_merge_pattern, merge_pattern, (keys, offsets, "outer"), device)
    assert "must be 1-D" in _same_error(cpu_merge_pattern, merge_pattern, (keys.reshape(1, 3), offsets, "union"), device)
    assert "must hold integers" in _same_error(cpu_merge_pattern, merge_pattern, (keys * 1.0, offsets, "union"), device)
    assert "at least one operand" in _same_error(cpu_merge_pattern, merge_pattern, (keys, np.array([0]), "union"), device)
    for bad in ([1, 2, 3], [0, 2, 4]):
        msg = _same_error(cpu_merge_pattern, merge_pattern, (keys, np.array(bad), "left"), device)
        assert "offsets must start at 0 and end at len(keys_concat)=3" in msg
    assert "non-decreasing" in _same_error(cpu_merge_pattern, merge_pattern, (keys, np.array([0, 3, 1, 3]), "union"), device)


def _positions(rng, n, nse, dt):
    pos = rng.integers(-1, max(nse, 1), size=n) if nse else np.full(n, -1)
    return pos.astype(dt)


def _fills(dtype, m):
    """Fill rows: a plain value per column, and NaN / inf ones for floating dtypes."""
    dtype = np.dtype(dtype)
    rows = [np.arange(m).astype(dtype)]
    if dtype.kind in "fc":
        rows.append(np.array([np.nan, np.inf, -np.inf][:m] + [np.nan] * max(0, m - 3), dtype))
    return rows


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("index_dtype", INDEX_DTYPES, ids=str)
@pytest.mark.parametrize("dtype", VALUE_DTYPES, ids=str)
def test_gather_with_fill_matches_numba(device, dtype, index_dtype):
    rng = np.random.default_rng(11)
    for n, nse, m in [(0, 4, 2), (50, 0, 1), (200, 37, 1), (90, 13, 3), (40, 5, 0)]:
        values = random_values(rng, (nse, m), dtype)
        if np.dtype(dtype).kind in "fc" and nse:
            values[0, :] = np.nan
        pos = _positions(rng, n, nse, index_dtype)
        for fill in _fills(dtype, m):
            got = to_host(gather_with_fill(to_device(values, device), to_device(pos, device), to_device(fill, device)))
            expected = cpu_gather(values, pos, fill)
            assert got.dtype == expected.dtype and got.shape == (n, m)
            np.testing.assert_array_equal(got, expected)
            dense = np.where((pos >= 0)[:, None], values[np.maximum(pos, 0)] if nse else fill, fill)
            np.testing.assert_array_equal(got, dense)
    # a scalar fill (0-d), same-kind cast, broadcast to every column
    values = random_values(rng, (6, 2), dtype)
    pos = np.array([5, -1, 0], index_dtype)
    fill = np.asarray(True if np.dtype(dtype) == np.bool_ else 3, dtype)
    got = to_host(gather_with_fill(to_device(values, device), to_device(pos, device), to_device(fill, device)))
    np.testing.assert_array_equal(got, cpu_gather(values, pos, fill))


@pytest.mark.parametrize("device", DEVICES)
def test_gather_with_fill_bad_positions_and_arguments(device):
    values = np.arange(6.0).reshape(3, 2)
    fill = np.zeros(2)
    msg = _same_error(cpu_gather, gather_with_fill, (values, np.array([0, -2, 3, -1, 2, 7]), fill), device)
    assert msg == "positions has 3 entries outside -1 and [0, 3)"
    msg = _same_error(cpu_gather, gather_with_fill, (np.zeros((3, 0)), np.array([5, -1]), np.zeros(0)), device)
    assert msg == "positions has 1 entries outside -1 and [0, 3)"  # checked even with no value columns
    msg = _same_error(cpu_gather, gather_with_fill, (np.zeros((0, 1)), np.array([0]), np.zeros(1)), device)
    assert msg == "positions has 1 entries outside -1 and [0, 0)"
    assert "must be 2-D" in _same_error(cpu_gather, gather_with_fill, (values.ravel(), np.array([0]), fill), device)
    assert "fill must have shape (2,)" in _same_error(cpu_gather, gather_with_fill, (values, np.array([0]), np.zeros(3)), device)
    assert "does not cast" in _same_error(cpu_gather, gather_with_fill, (values, np.array([0]), np.ones(2, complex)), device)
    assert "must be 1-D" in _same_error(cpu_gather, gather_with_fill, (values, np.zeros((1, 1), int), fill), device)
    half = values.astype(np.float16)
    with pytest.raises(KernelDeclined):
        gather_with_fill(to_device(half, device), to_device(np.array([0]), device), to_device(fill.astype(np.float16), device))
