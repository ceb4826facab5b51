"""The compress family on the CUDA backend (kernels/cuda/compress.cu), emulated in CI, on CuPy where a
GPU is: every function against the numba kernel (bit for bit: each result is a permutation, gather
or scatter of the input, so there is nothing to round) and a dense NumPy reference, and every bad
input against the numba kernel's error message."""

import re

import numpy as np
import pytest

from cuda_testing import DEVICES, INDEX_DTYPES, VALUE_DTYPES, random_values, requires_gxx, skewed_keys, to_device, to_host
from sparray.kernels import KernelDeclined
from sparray.kernels.cpu import compress as cpu
from sparray.kernels.cuda import compress as gpu

pytestmark = requires_gxx


def assert_same(actual, expected):
    """Same dtype, shape and bits (NaN payloads included)."""
    actual = to_host(actual)
    assert actual.dtype == expected.dtype, (actual.dtype, expected.dtype)
    assert actual.shape == expected.shape, (actual.shape, expected.shape)
    np.testing.assert_array_equal(actual.view(np.uint8), np.ascontiguousarray(expected).view(np.uint8))


def assert_same_error(cuda_call, cpu_call, pattern=None):
    """Both raise ValueError with the same message (which matches ``pattern`` when given)."""
    with pytest.raises(ValueError, match=pattern) as expected:
        cpu_call()
    with pytest.raises(ValueError, match=re.escape(str(expected.value))):
        cuda_call()


def compressed(rng, nrows, nminor, nnz, idt, *, huge_row=False):
    """Random (offsets, minor): rows skewed (a third of the entries in one row, or all of them with
    ``huge_row``), empty rows, minor unordered within rows (so a transpose's stability shows)."""
    rows = np.sort(skewed_keys(rng, nnz, nrows)) if nrows else np.zeros(0, np.int64)
    if huge_row and nrows:
        rows[:] = nrows // 2
    offsets = np.concatenate([[0], np.cumsum(np.bincount(rows, minlength=nrows))]).astype(idt)
    minor = rng.integers(0, max(nminor, 1), nnz).astype(idt)
    return offsets, minor


def dense_ref(offsets, minor, values, fill, nminor):
    out = np.empty((len(offsets) - 1, nminor, values.shape[1]), values.dtype)
    out[...] = fill
    out[np.repeat(np.arange(len(offsets) - 1), np.diff(offsets)), minor] = values  # later entries win
    return out


# ---- compress_offsets / expand_offsets ---------------------------------------------------------


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("kdt", INDEX_DTYPES, ids=str)
@pytest.mark.parametrize("idt", INDEX_DTYPES, ids=str)
def test_compress_expand_match_numba(device, kdt, idt):
    rng = np.random.default_rng(3)
    # (n, nbuckets): empty, one key, skewed, sparse keys over many buckets, one bucket holding all
    for n, nbuckets in [(0, 0), (0, 5), (1, 1), (7, 3), (300, 40), (200, 5000), (500, 1)]:
        keys = np.sort(skewed_keys(rng, n, nbuckets)).astype(kdt)
        off = gpu.compress_offsets(to_device(keys, device), nbuckets, idt)
        expected = cpu.compress_offsets(keys, nbuckets, idt)
        assert_same(off, expected)
        # keys the caller has checked (a coalesced COO's rows): no checking launch, same pointers
        assert_same(gpu.compress_offsets(to_device(keys, device), nbuckets, idt, True), expected)
        assert_same(cpu.compress_offsets(keys, nbuckets, idt, True), expected)
        np.testing.assert_array_equal(expected, np.searchsorted(keys, np.arange(nbuckets + 1)))
        rows = gpu.expand_offsets(off, idt)
        assert_same(rows, cpu.expand_offsets(expected, idt))
        np.testing.assert_array_equal(to_host(rows), keys)


@pytest.mark.parametrize("device", DEVICES)
def test_compress_offsets_bad_keys(device):
    keys = np.sort(np.random.default_rng(1).integers(10, 50, 300))
    for pos, val in [(297, 0), (151, -1), (150, 50), (0, 60)]:
        bad = keys.copy()
        bad[pos] = val
        if val == 50:
            bad[pos + 1 :] = 49  # keys after it are smaller: the out-of-range one is still first
        assert_same_error(lambda: gpu.compress_offsets(to_device(bad, device), 50, np.int64),
                          lambda: cpu.compress_offsets(bad, 50, np.int64), rf"keys\[{pos}\] = {val} is ")
    assert_same_error(lambda: gpu.compress_offsets(to_device(keys, device), 0, np.int32),
                      lambda: cpu.compress_offsets(keys, 0, np.int32), r"keys\[0\] = 1\d is outside")
    for nbuckets, idt, pattern in [(50, np.float64, "index_dtype must be int32 or int64"),
                                   (-1, np.int64, "nbuckets must be >= 0")]:
        assert_same_error(lambda: gpu.compress_offsets(to_device(keys, device), nbuckets, idt),
                          lambda: cpu.compress_offsets(keys, nbuckets, idt), pattern)


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("odt", INDEX_DTYPES, ids=str)
def test_expand_offsets_skewed_empty_and_bad(device, odt):
    off = np.array([0, 0, 0, 1500, 1500, 1501, 2000, 2000], odt)
    rows = gpu.expand_offsets(to_device(off, device), np.dtype(np.int64))
    np.testing.assert_array_equal(to_host(rows), np.repeat(np.arange(7), np.diff(off)))
    assert to_host(gpu.expand_offsets(to_device(np.array([0], odt), device), odt)).shape == (0,)
    assert to_host(gpu.expand_offsets(to_device(np.zeros(10, odt), device), odt)).shape == (0,)
    good = np.arange(101, dtype=odt) * 3
    bad = good.copy()
    bad[50] = 2**30
    for offsets, pattern in [(bad, r"offsets\[51\] = 153 < offsets\[50\]"), (good + 1, r"offsets\[0\] must be 0"),
                             (np.zeros(0, odt), "at least one")]:
        assert_same_error(lambda: gpu.expand_offsets(to_device(offsets, device), np.int64),
                          lambda: cpu.expand_offsets(offsets, np.int64), pattern)


# ---- transpose_compressed ----------------------------------------------------------------------

TRANSPOSE_CASES = [
    # nbatch, nmajor, nminor, nnz, options
    (1, 0, 5, 0, {}),
    (0, 3, 5, 0, {}),
    (1, 4, 0, 0, {}),
    (1, 1, 1, 1, {}),
    (1, 1, 40, 300, {}),  # one row
    (3, 7, 5, 60, {}),
    (2, 30, 20, 400, {"huge_row": True}),  # every entry in one row
    (4, 25, 90, 500, {}),
]


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("in_idt", INDEX_DTYPES, ids=str)
@pytest.mark.parametrize("idt", INDEX_DTYPES, ids=str)
def test_transpose_matches_numba(device, in_idt, idt):
    rng = np.random.default_rng(11)
    for nbatch, nmajor, nminor, nnz, opts in TRANSPOSE_CASES:
        offsets, minor = compressed(rng, nbatch * nmajor, nminor, nnz, in_idt, **opts)
        values = random_values(rng, (nnz, 2), np.float64)
        args = (nbatch, nmajor, nminor, idt)
        out = gpu.transpose_compressed(*(to_device(a, device) for a in (offsets, minor, values)), *args)
        expected = cpu.transpose_compressed(offsets, minor, values, *args)
        for a, e in zip(out, expected):
            assert_same(a, e)
        # dense reference: row g, minor c -> bucket (batch, c), stable within a bucket
        rows = np.repeat(np.arange(nbatch * nmajor), np.diff(offsets))
        bucket = rows // max(nmajor, 1) * nminor + minor
        order = np.argsort(bucket, kind="stable")
        np.testing.assert_array_equal(to_host(out[0]), np.searchsorted(bucket[order], np.arange(nbatch * nminor + 1)))
        np.testing.assert_array_equal(to_host(out[1]), (rows % max(nmajor, 1))[order])


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("dtype", VALUE_DTYPES, ids=str)
def test_transpose_values_and_back(device, dtype):
    rng = np.random.default_rng(5)
    for m in (1, 3, 0):
        offsets, minor = compressed(rng, 2 * 12, 15, 200, np.int64)
        values = random_values(rng, (200, m), dtype)
        out = gpu.transpose_compressed(to_device(offsets, device), to_device(minor, device), to_device(values, device),
                                       2, 12, 15, np.int32)
        expected = cpu.transpose_compressed(offsets, minor, values, 2, 12, 15, np.int32)
        for a, e in zip(out, expected):
            assert_same(a, e)
        # and back: each row sorted by minor index, stably
        back = gpu.transpose_compressed(*out, 2, 15, 12, np.int64)
        order = np.lexsort((minor, np.repeat(np.arange(24), np.diff(offsets))))
        np.testing.assert_array_equal(to_host(back[0]), offsets)
        np.testing.assert_array_equal(to_host(back[1]), minor[order])
        assert_same(back[2], values[order])


@pytest.mark.parametrize("device", DEVICES)
def test_transpose_bad(device):
    rng = np.random.default_rng(3)
    nnz, nminor = 300, 40
    offsets, minor = compressed(rng, 50, nminor, nnz, np.int64)
    values = np.ones((nnz, 1))

    def both(off, mi, va, nbatch=1, nmajor=50, nmin=nminor, idt=np.int64, pattern=None):
        d = [to_device(a, device) for a in (off, mi, va)]
        assert_same_error(lambda: gpu.transpose_compressed(*d, nbatch, nmajor, nmin, idt),
                          lambda: cpu.transpose_compressed(off, mi, va, nbatch, nmajor, nmin, idt), pattern)

    for k, val in [(nnz - 1, nminor), (nnz // 2, -1), (3, 2**40)]:
        bad = minor.copy()
        bad[-1] = nminor + 5  # a second one, after the first
        bad[k] = val
        nbad = 1 if k == nnz - 1 else 2
        both(offsets, bad, values, pattern=rf"{nbad} minor indices outside \[0, nminor = {nminor}\); first minor\[{k}\] = {val}")
    bad = offsets.copy()
    bad[20] = bad[21] + 1
    both(bad, minor, values, pattern=r"offsets\[21\] = .* < offsets\[20\]")
    both(offsets + 1, minor, values, pattern=r"offsets\[0\] must be 0")
    both(offsets, minor[:-1], values[:-1], pattern=r"offsets\[-1\] = 300 but there are 299 entries")
    both(offsets, minor, values, nbatch=2, pattern=r"nbatch \* nmajor \+ 1")
    both(offsets, minor, values, nmin=0, pattern=r"minor\[0\] = \d+ is outside \[0, nminor = 0\)")
    both(offsets, minor, values[:, 0], pattern=r"\(nnz, m\)")
    both(np.zeros(1, np.int64), np.zeros(0), np.zeros((0, 1)), nbatch=0, nmajor=2**31 + 1, idt=np.int32, pattern="does not fit")
    both(np.zeros(1, np.int64), np.zeros(0, np.float64), np.zeros((0, 1)), nbatch=0, nmajor=3, idt=np.int16, pattern="index_dtype")
    with pytest.raises(KernelDeclined):
        gpu.transpose_compressed(*(to_device(a, device) for a in (offsets, minor, values.astype(np.float16))),
                                 1, 50, nminor, np.int64)


# ---- dense_to_compressed / compressed_to_dense -------------------------------------------------


def dense_with_fill(rng, shape, dtype):
    """A dense array mostly equal to a random fill (whole positions and single values), with NaN."""
    dense = random_values(rng, shape, dtype)
    fill = random_values(rng, (shape[2],), dtype)
    if np.dtype(dtype).kind in "fc" and dense.size:
        dense[rng.random(shape) < 0.1] = np.nan
    dense[rng.random(shape[:2]) < 0.5] = fill
    mask = rng.random(shape) < 0.5
    dense[mask] = np.broadcast_to(fill, shape)[mask]
    return dense, fill


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("dtype", VALUE_DTYPES, ids=str)
def test_dense_compressed_roundtrip(device, dtype):
    rng = np.random.default_rng(9)
    for shape in [(0, 4, 1), (3, 0, 1), (5, 4, 0), (1, 1, 1), (1, 90, 1), (20, 15, 1), (10, 12, 3)]:
        dense, fill = dense_with_fill(rng, shape, dtype)
        idt = np.int32 if shape[1] % 2 else np.int64
        out = gpu.dense_to_compressed(to_device(dense, device), to_device(fill, device), idt)
        expected = cpu.dense_to_compressed(dense, fill, idt)
        for a, e in zip(out, expected):
            assert_same(a, e)
        back = gpu.compressed_to_dense(*out, to_device(fill, device), shape[1])
        assert_same(back, cpu.compressed_to_dense(*expected, fill, shape[1]))
        assert_same(back, dense_ref(*expected, fill, shape[1]))


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.complex64, np.complex128], ids=str)
def test_dense_to_compressed_nan_fills(device, dtype):
    rng = np.random.default_rng(2)
    m = 2
    dense = random_values(rng, (30, 40, m), dtype)
    dense[rng.random(dense.shape) < 0.5] = 0
    dense[rng.random(dense.shape) < 0.1] = -0.0  # not the same as a +0 fill (sparray's fill rule)
    nanish = [np.nan, complex(0, np.nan), complex(np.nan, 1), complex(1, np.nan)] if np.dtype(dtype).kind == "c" else [np.nan]
    dense.ravel()[rng.integers(0, dense.size, 600)] = rng.choice(nanish, 600)
    fills = [np.zeros(m, dtype), np.full(m, -0.0, dtype), np.full(m, np.nan, dtype), np.array([np.nan, 0], dtype)]
    if np.dtype(dtype).kind == "c":
        fills.append(np.full(m, complex(1, np.nan), dtype))  # complex parts each by the float rule
    for fill in fills:
        out = gpu.dense_to_compressed(to_device(dense, device), to_device(fill, device), np.int64)
        for a, e in zip(out, cpu.dense_to_compressed(dense, fill, np.int64)):
            assert_same(a, e)


@pytest.mark.parametrize("device", DEVICES)
def test_dense_to_compressed_fill_broadcast_and_checks(device):
    dense = np.array([[[1], [0]], [[0], [2]]], np.uint16)
    off, minor, values = gpu.dense_to_compressed(to_device(dense, device), 0, np.dtype(np.int32))
    assert to_host(off).tolist() == [0, 1, 2] and to_host(minor).tolist() == [0, 1]
    assert to_host(values).ravel().tolist() == [1, 2] and to_host(values).dtype == np.uint16
    # a fill of another dtype is cast as NumPy casts it (-1 wraps to 65535), as the numba kernel does
    wrapped = np.array([[[65535], [3]]], np.uint16)
    out = gpu.dense_to_compressed(to_device(wrapped, device), -1, np.int64)
    for a, e in zip(out, cpu.dense_to_compressed(wrapped, -1, np.int64)):
        assert_same(a, e)
    assert_same_error(lambda: gpu.dense_to_compressed(to_device(dense[..., 0], device), 0, np.int32),
                      lambda: cpu.dense_to_compressed(dense[..., 0], 0, np.int32), r"\(N, C, m\)")
    big = np.zeros((0, 2**31 + 1, 1))
    assert_same_error(lambda: gpu.dense_to_compressed(to_device(big, device), 0, np.int32),
                      lambda: cpu.dense_to_compressed(big, 0, np.int32), "does not fit")
    with pytest.raises(KernelDeclined):
        gpu.dense_to_compressed(to_device(dense.astype(np.float16), device), 0, np.int32)


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("dtype", VALUE_DTYPES, ids=str)
@pytest.mark.parametrize("idt", INDEX_DTYPES, ids=str)
def test_compressed_to_dense_repeats_and_unordered(device, dtype, idt, monkeypatch):
    """Rows with repeated positions (the later entry wins) and unordered rows, through the stable
    sort, and ordered rows (the direct scatter), on skewed rows with one huge row."""
    rng = np.random.default_rng(4)
    paths = []
    scatter = gpu._scatter
    monkeypatch.setattr(gpu, "_scatter", lambda *a, later_wins: paths.append(later_wins) or scatter(*a, later_wins=later_wins))
    for nrows, nminor, nnz, m, opts in [(30, 20, 400, 1, {}), (8, 50, 300, 2, {"huge_row": True}), (1, 5, 40, 1, {})]:
        offsets, minor = compressed(rng, nrows, nminor, nnz, idt, **opts)
        values = random_values(rng, (nnz, m), dtype)
        fill = random_values(rng, (m,), dtype)
        out = gpu.compressed_to_dense(to_device(offsets, device), to_device(minor, device), to_device(values, device),
                                      to_device(fill, device), nminor)
        assert_same(out, cpu.compressed_to_dense(offsets, minor, values, fill, nminor))
        assert_same(out, dense_ref(offsets, minor, values, fill, nminor))
        # the same entries, each row strictly increasing: no sort needed
        rows = np.repeat(np.arange(nrows), np.diff(offsets))
        keys, first = np.unique(rows.astype(np.int64) * nminor + minor, return_index=True)
        off2 = np.concatenate([[0], np.cumsum(np.bincount(keys // nminor, minlength=nrows))]).astype(idt)
        mi2, va2 = (keys % nminor).astype(idt), values[first]
        out = gpu.compressed_to_dense(to_device(off2, device), to_device(mi2, device), to_device(va2, device), fill, nminor)
        assert_same(out, cpu.compressed_to_dense(off2, mi2, va2, fill, nminor))
    assert paths == [True, False] * 3  # unordered rows: sorted scatter; ordered: direct


@pytest.mark.parametrize("device", DEVICES)
def test_compressed_to_dense_bad(device):
    rng = np.random.default_rng(2)
    offsets, minor = compressed(rng, 40, 30, 200, np.int32)
    values = np.ones((200, 1))

    def both(off, mi, va, nminor=30, pattern=None):
        d = [to_device(a, device) for a in (off, mi, va)]
        assert_same_error(lambda: gpu.compressed_to_dense(*d, 0.0, nminor),
                          lambda: cpu.compressed_to_dense(off, mi, va, 0.0, nminor), pattern)

    for k, val in [(199, 30), (0, -1)]:
        bad = minor.copy()
        bad[k] = val
        both(offsets, bad, values, pattern=rf"1 minor indices outside \[0, nminor = 30\); first minor\[{k}\] = {val}")
    both(offsets, minor, values, nminor=0, pattern=r"200 minor indices outside \[0, nminor = 0\); first minor\[0\]")
    bad = offsets.copy()
    bad[5] = -1
    both(bad, minor, values, pattern=r"offsets\[5\] = -1 < offsets\[4\]")
    both(offsets, minor[:-1], values[:-1], pattern=r"offsets\[-1\]")
    both(np.array([0]), minor, values, pattern=r"offsets\[-1\] = 0 but there are 200 entries")
    both(offsets, minor, values[:-1], pattern=r"\(nnz, m\)")
    with pytest.raises(ValueError, match="at least one element"):
        gpu.compressed_to_dense(to_device(np.zeros(0, np.int64), device), to_device(minor[:0], device),
                                to_device(values[:0], device), 0.0, 3)


# ---- scatter_blocks ----------------------------------------------------------------------------


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("dtype", VALUE_DTYPES, ids=str)
def test_scatter_blocks_matches_numba(device, dtype):
    rng = np.random.default_rng(6)
    for nblocks, nslots, n, m, bdt, sdt in [(0, 4, 0, 1, np.int64, np.int64), (3, 0, 0, 2, np.int32, np.int64),
                                            (4, 4, 0, 2, np.int64, np.int32), (5, 4, 3, 0, np.int32, np.int32),
                                            (1, 300, 250, 1, np.int32, np.int64), (40, 9, 300, 3, np.int64, np.int32)]:
        pos = rng.choice(nblocks * nslots, n, replace=False)  # unique positions
        block_ids, slots = (pos // max(nslots, 1)).astype(bdt), (pos % max(nslots, 1)).astype(sdt)
        values = random_values(rng, (n, m), dtype)
        fill = random_values(rng, (m,), dtype)
        out = gpu.scatter_blocks(to_device(block_ids, device), to_device(slots, device), to_device(values, device),
                                 nblocks, nslots, to_device(fill, device))
        expected = cpu.scatter_blocks(block_ids, slots, values, nblocks, nslots, fill)
        assert_same(out, expected)
        ref = np.empty((nblocks, nslots, m), values.dtype)
        ref[...] = fill
        ref[block_ids, slots] = values
        assert_same(out, ref)


@pytest.mark.parametrize("device", DEVICES)
def test_scatter_blocks_repeats_scalar_fill_and_bad(device):
    # a repeated position: one of its entries wins, whole (one word per value)
    out = to_host(gpu.scatter_blocks(to_device(np.array([1, 1, 0]), device), to_device(np.array([0, 0, 1]), device),
                                     to_device(np.array([[5], [6], [7]], np.int8), device), 2, 2, -1))
    assert out[1, 0, 0] in (5, 6) and out[0, 1, 0] == 7 and (out[[0, 1], [0, 1], 0] == -1).all()
    block_ids, slots = np.array([0, 1, 2, 1]), np.array([0, 1, 1, 2], np.int32)
    values = np.ones((4, 2))
    first = r"1 entries outside \[0, 3\) x \[0, 2\); first block_ids\[3\] = 1, slots\[3\] = 2"
    for b, s, pattern in [(block_ids, slots, first),
                          (block_ids - 1, slots, r"first block_ids\[0\] = -1, slots\[0\] = 0"),
                          (block_ids, slots[:3], r"must be \(n,\), \(n,\), \(n, m\)")]:
        assert_same_error(lambda: gpu.scatter_blocks(*(to_device(a, device) for a in (b, s, values)), 3, 2, 0.0),
                          lambda: cpu.scatter_blocks(b, s, values, 3, 2, 0.0), pattern)
    with pytest.raises(KernelDeclined):
        gpu.scatter_blocks(*(to_device(a, device) for a in (block_ids, slots, values.astype(np.float16))), 3, 3, 0)
