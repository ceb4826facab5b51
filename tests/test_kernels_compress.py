"""Tests of the compressed-layout kernels (sparray.kernels.cpu.compress) against NumPy references."""

import contextlib

import numba
import numpy as np
import pytest

from sparray.kernels import KernelDeclined
from sparray.kernels.cpu import compress as cp

INDEX = [np.int32, np.int64]
VALUE_DTYPES = [np.bool_, np.int8, np.int32, np.uint16, np.int64, np.float32, np.float64, np.complex64, np.complex128]


def rand_values(rng, shape, dtype, nan=False):
    dtype = np.dtype(dtype)
    if dtype == np.bool_:
        v = rng.random(shape) < 0.3
    elif dtype.kind in "iu":
        v = rng.integers(0, 5, shape).astype(dtype)
    elif dtype.kind == "f":
        v = rng.standard_normal(shape).astype(dtype)
    else:
        v = (rng.standard_normal(shape) + 1j * rng.standard_normal(shape)).astype(dtype)
    if nan and dtype.kind in "fc" and v.size:
        v[rng.random(shape) < 0.1] = np.nan
    return v


def rand_compressed(rng, nrows, ncols, nnz, idx=np.int64):
    """Random (offsets, minor) with nnz entries over nrows rows; minor unordered within rows
    (so the stability of the transpose is visible)."""
    rows = np.sort(rng.integers(0, nrows, nnz)) if nrows else np.zeros(0, np.int64)
    offsets = np.concatenate([[0], np.cumsum(np.bincount(rows, minlength=nrows))]).astype(idx)
    minor = rng.integers(0, ncols, nnz).astype(idx) if ncols else np.zeros(0, idx)
    return offsets, minor


def assert_same(actual, expected):
    assert actual.dtype == expected.dtype, (actual.dtype, expected.dtype)
    assert actual.shape == expected.shape, (actual.shape, expected.shape)
    # exact, with nan == nan (also nan-ish complex, compared through the bits)
    if actual.dtype.kind in "fc":
        np.testing.assert_array_equal(actual.view(np.uint8), expected.view(np.uint8))
    else:
        np.testing.assert_array_equal(actual, expected)


# ---------------------------------------------------------------------------------------
# NumPy references
# ---------------------------------------------------------------------------------------


@contextlib.contextmanager
def numba_threads(n):
    """Run the block with ``n`` numba threads, restoring the count after."""
    old = numba.get_num_threads()
    numba.set_num_threads(n)
    try:
        yield
    finally:
        numba.set_num_threads(old)


def ref_compress_offsets(keys, nbuckets):
    return np.searchsorted(keys, np.arange(nbuckets + 1), side="left")


def ref_expand(offsets):
    return np.repeat(np.arange(len(offsets) - 1), np.diff(offsets))


def ref_transpose(offsets, minor, values, nbatch, nmajor, nminor):
    rows = ref_expand(offsets)
    b, r = (rows // nmajor, rows % nmajor) if nmajor else (rows, rows)
    bucket = b * nminor + minor
    order = np.argsort(bucket, kind="stable")
    counts = np.bincount(bucket, minlength=nbatch * nminor)
    return np.concatenate([[0], np.cumsum(counts)]), r[order], values[order]


def ref_same(dense, fill):
    """sparray's fill rule: equal with the same sign of zero, or both NaN (complex: per part)."""
    dense = np.asarray(dense)
    fill = np.broadcast_to(np.asarray(fill, dense.dtype), dense.shape)
    if dense.dtype.kind == "c":
        return ref_same(dense.real, fill.real) & ref_same(dense.imag, fill.imag)
    same = dense == fill
    if dense.dtype.kind == "f":
        same = (same & (np.signbit(dense) == np.signbit(fill))) | (np.isnan(dense) & np.isnan(fill))
    return same


def ref_dense_to_compressed(dense, fill):
    spec = ~ref_same(dense, fill).all(axis=2)
    r, c = np.nonzero(spec)
    offsets = np.concatenate([[0], np.cumsum(spec.sum(axis=1))])
    return offsets, c, dense[r, c]


def ref_compressed_to_dense(offsets, minor, values, fill, nminor):
    out = np.empty((len(offsets) - 1, nminor, values.shape[1]), values.dtype)
    out[...] = fill
    out[ref_expand(offsets), minor] = values
    return out


# ---------------------------------------------------------------------------------------
# compress_offsets / expand_offsets
# ---------------------------------------------------------------------------------------


@pytest.mark.parametrize("kdt", INDEX)
@pytest.mark.parametrize("idt", INDEX)
@pytest.mark.parametrize("n,nbuckets", [(0, 0), (0, 5), (1, 1), (7, 3), (100, 1000), (200_000, 1000), (200_000, 3_000_000)])
def test_compress_expand_roundtrip(n, nbuckets, kdt, idt):
    rng = np.random.default_rng(n + nbuckets)
    keys = np.sort(rng.integers(0, max(nbuckets, 1), n)).astype(kdt)
    off = cp.compress_offsets(keys, nbuckets, idt)
    assert off.dtype == idt and off.shape == (nbuckets + 1,)
    np.testing.assert_array_equal(off, ref_compress_offsets(keys, nbuckets))
    np.testing.assert_array_equal(cp.compress_offsets(keys, nbuckets, idt, True), off)  # keys known sorted
    rows = cp.expand_offsets(off, idt)
    assert rows.dtype == idt
    np.testing.assert_array_equal(rows, keys)


def test_compress_offsets_extremes():
    assert cp.compress_offsets(np.zeros(50_000, np.int32), 4, np.int64).tolist() == [0, 50_000] + [50_000] * 3
    assert cp.compress_offsets(np.full(50_000, 3), 4, np.int32).tolist() == [0, 0, 0, 0, 50_000]
    keys = np.arange(100_000) * 7
    np.testing.assert_array_equal(cp.compress_offsets(keys, 700_001, np.int64), ref_compress_offsets(keys, 700_001))


@pytest.mark.parametrize("threads", [1, 2, numba.config.NUMBA_NUM_THREADS])
def test_compress_offsets_runs_across_chunks(threads):
    """Chunks start where a run starts: a run longer than a chunk, runs cut at every chunk boundary,
    and empty buckets just before a boundary and after the last key all give the reference."""
    rng = np.random.default_rng(threads)
    lengths = [70_000, 1, 0, 0, 90_000, 3, 0, 40_000] + list(rng.integers(0, 4, 5000))
    keys = np.repeat(np.arange(len(lengths)), lengths)
    with numba_threads(threads):
        for nbuckets in (len(lengths), len(lengths) + 7):
            np.testing.assert_array_equal(cp.compress_offsets(keys, nbuckets, np.int64), ref_compress_offsets(keys, nbuckets))


@pytest.mark.parametrize("way", ["gap_branch", "fill_gaps", "checked", "checked_gappy"])
@pytest.mark.parametrize("threads", [1, 2, numba.config.NUMBA_NUM_THREADS])
def test_compress_offsets_every_way_of_writing_empty_buckets(way, threads, monkeypatch):
    """The store loop with a branch per gap, the gap-filling pass, and the unchecked loop for keys
    the caller has checked (``checked=True``: stores first, the filling pass only for a chunk
    whose run count shows empty buckets, or from the start when sampled keys look gappy) give
    the same pointers: empty buckets at the start,
    between runs, at chunk boundaries and after the last key, runs longer than a chunk, int32 and
    int64 keys and pointers; bad keys are still reported at their position when not checked."""
    monkeypatch.setattr(cp, "_gappy", lambda keys: way in ("fill_gaps", "checked_gappy"))
    checked = way.startswith("checked")
    rng = np.random.default_rng(threads)
    lengths = [0, 0, 70_000, 0, 1, 0, 0, 90_000, 3, 0, 40_000] + list(rng.integers(0, 3, 20_000) * rng.integers(0, 2, 20_000))
    keys = np.repeat(np.arange(len(lengths)), lengths)
    with numba_threads(threads):
        for kdt, idt in [(np.int64, np.int64), (np.int32, np.int32), (np.int32, np.int64)]:
            for nbuckets in (len(lengths), len(lengths) + 9):
                got = cp.compress_offsets(keys.astype(kdt), nbuckets, idt, checked)
                assert got.dtype == idt
                np.testing.assert_array_equal(got, ref_compress_offsets(keys, nbuckets))
        bad = keys.copy()
        bad[len(keys) // 2] = -1
        if not checked:
            with pytest.raises(ValueError, match=rf"keys\[{len(keys) // 2}\] = -1 is outside"):
                cp.compress_offsets(bad, len(lengths), np.int64)


@pytest.mark.parametrize("threads", [1, 2])
def test_compress_offsets_checked_keys_that_break_the_promise_stay_in_bounds(threads):
    """Keys passed as checked that are not (out of range, negative, decreasing) give wrong offsets
    but no access outside the output: the kernel writes into a view with guard elements on both
    sides, which keep their value. The public function on the same keys returns offsets of the
    right length, and refuses them unchecked."""
    rng = np.random.default_rng(5)
    nbuckets = 1000
    with numba_threads(threads):
        for keys in (rng.integers(-2**40, 2**40, 100_000), np.full(100_000, 2**62), np.full(100_000, -3),
                     np.arange(100_000)[::-1].copy(), np.concatenate([np.arange(50_000), np.full(50_000, 10**9)])):
            for gappy in (False, True):
                buf = np.full(64 + nbuckets + 1 + 64, 12345, np.int64)
                out = buf[64 : 64 + nbuckets + 1]
                cp._compress_sorted(keys, nbuckets, out, threads * 4, gappy)
                assert (buf[:64] == 12345).all() and (buf[64 + nbuckets + 1 :] == 12345).all()
            assert cp.compress_offsets(keys, nbuckets, np.int64, True).shape == (nbuckets + 1,)
            with pytest.raises(ValueError, match="keys must be non-decreasing"):
                cp.compress_offsets(keys, nbuckets, np.int64)


def test_gappy_tells_power_law_rows_from_full_rows():
    rng = np.random.default_rng(0)
    full = np.sort(rng.integers(0, 100_000, 1_000_000))  # ten per bucket: no empty ones
    sparse_rows = np.sort(rng.integers(0, 1_000_000, 300_000))  # most buckets empty
    assert not cp._gappy(full)
    assert cp._gappy(sparse_rows)
    assert not cp._gappy(np.zeros(10, np.int64)) and not cp._gappy(np.array([3]))


@pytest.mark.parametrize("n", [10, 200_000])
def test_compress_offsets_bad_keys(n):
    rng = np.random.default_rng(1)
    keys = np.sort(rng.integers(10, 50, n))
    for pos, val, what in [(n - 3, 0, "smaller than"), (n // 2 + 1, -1, "outside"), (n // 2, 50, "outside")]:
        bad = keys.copy()
        bad[pos] = val
        if val == 50:
            bad[pos + 1 :] = 49  # keys after it are smaller: the out-of-range one is still first
        with pytest.raises(ValueError, match=rf"keys\[{pos}\] = {val} is {what}"):
            cp.compress_offsets(bad, 50, np.int64)
    with pytest.raises(ValueError, match=r"keys\[0\] = 1\d is outside"):
        cp.compress_offsets(keys, 0, np.int64)


@pytest.mark.parametrize("idt", INDEX)
def test_expand_offsets_skewed_and_empty_rows(idt):
    off = np.array([0, 0, 0, 150_000, 150_000, 150_001, 200_000, 200_000], idt)
    np.testing.assert_array_equal(cp.expand_offsets(off, np.int64), ref_expand(off))
    assert cp.expand_offsets(np.array([0], idt), idt).shape == (0,)
    assert cp.expand_offsets(np.zeros(10, idt), idt).shape == (0,)


@pytest.mark.parametrize("n", [10, 100_000])
def test_expand_offsets_bad(n):
    off = np.arange(n + 1) * 3
    bad = off.copy()
    bad[n // 2] = 10**12
    with pytest.raises(ValueError, match=rf"offsets\[{n // 2 + 1}\] = {3 * (n // 2 + 1)} < offsets\[{n // 2}\]"):
        cp.expand_offsets(bad, np.int64)
    with pytest.raises(ValueError, match=r"offsets\[0\] must be 0"):
        cp.expand_offsets(off + 1, np.int64)
    with pytest.raises(ValueError, match="at least one"):
        cp.expand_offsets(np.zeros(0, np.int64), np.int64)


def test_index_dtype_checks():
    with pytest.raises(ValueError, match="index_dtype"):
        cp.compress_offsets(np.zeros(3, np.int64), 2, np.float64)
    with pytest.raises(ValueError, match="does not fit"):
        cp.transpose_compressed(np.zeros(1, np.int64), np.zeros(0), np.zeros((0, 1)), 0, 2**31 + 1, 3, np.int32)
    with pytest.raises(ValueError, match="does not fit"):
        cp.dense_to_compressed(np.zeros((0, 2**31 + 1, 1)), 0, np.int32)


# ---------------------------------------------------------------------------------------
# transpose_compressed
# ---------------------------------------------------------------------------------------

TRANSPOSE_CASES = [
    # nbatch, nmajor, nminor, nnz
    (1, 0, 5, 0),
    (0, 3, 5, 0),
    (1, 4, 0, 0),
    (1, 1, 1, 1),
    (1, 7, 5, 20),
    (3, 7, 5, 60),
    (1, 300, 200, 200_000),  # per-thread histograms
    (4, 200, 300, 200_000),  # per-thread histograms, batches straddling the chunks
    (2, 5000, 400_000, 60_000),  # few entries, many buckets
    (1, 3, 5000, 200_000),  # long rows: the chunks cut rows
    (4, 2, 3000, 200_000),  # ... in later batches too
]


# the transpose's paths: default (one level up to 2**_QBITS buckets or for banded input, else two
# levels); two levels from 8 buckets on (never the banded rule); one level with per-thread
# counters over all buckets; the banded rule taken for every input of more than one entry
PATHS = {
    "default": {},
    "two-level": {"_QBITS": 3, "_BAND_CACHE_BYTES": -1},
    "one-level": {"_SUB_BITS": -1},
    "banded": {"_QBITS": 3, "_BAND_SAMPLES": 2, "_BAND_CACHE_BYTES": 1 << 62},
}


@pytest.fixture(params=list(PATHS))
def transpose_path(request, monkeypatch):
    for name, value in PATHS[request.param].items():
        monkeypatch.setattr(cp, name, value)
    return request.param


@pytest.mark.parametrize("case", TRANSPOSE_CASES)
@pytest.mark.parametrize("idt", INDEX)
def test_transpose_compressed(case, idt, transpose_path):
    nbatch, nmajor, nminor, nnz = case
    rng = np.random.default_rng(nnz + nminor)
    in_idt = np.int64 if idt == np.int32 else np.int32  # mixed input/output index dtypes
    offsets, minor = rand_compressed(rng, nbatch * nmajor, nminor, nnz, in_idt)
    values = rand_values(rng, (nnz, 2), np.float64)
    out = cp.transpose_compressed(offsets, minor, values, nbatch, nmajor, nminor, idt)
    ref = ref_transpose(offsets, minor, values, nbatch, nmajor, nminor)
    for a, e in zip(out[:2], ref[:2]):
        assert a.dtype == idt
        np.testing.assert_array_equal(a, e)
    assert_same(out[2], ref[2])


@pytest.mark.parametrize("dtype", VALUE_DTYPES)
@pytest.mark.parametrize("m", [1, 3, 0])
def test_transpose_compressed_values(dtype, m, transpose_path):
    rng = np.random.default_rng(m)
    nnz = 50_000 if dtype in (np.float64, np.complex128) else 500
    offsets, minor = rand_compressed(rng, 2 * 60, 70, nnz)
    values = rand_values(rng, (nnz, m), dtype)
    out = cp.transpose_compressed(offsets, minor, values, 2, 60, 70, np.int64)
    ref = ref_transpose(offsets, minor, values, 2, 60, 70)
    np.testing.assert_array_equal(out[0], ref[0])
    np.testing.assert_array_equal(out[1], ref[1])
    assert_same(out[2], ref[2])
    # transposing back restores the input (sorted by row, then column: a stable sort of each row)
    back = cp.transpose_compressed(out[0], out[1], out[2], 2, 70, 60, np.int64)
    order = np.lexsort((minor, ref_expand(offsets)))
    np.testing.assert_array_equal(back[0], offsets)
    np.testing.assert_array_equal(back[1], minor[order])
    assert_same(back[2], values[order])


@pytest.mark.parametrize("nchunks", [1, 2, 3, 7])
def test_entry_splits(nchunks):
    rng = np.random.default_rng(nchunks)
    for offsets in [np.array([0]), np.array([0, 0, 0]), np.array([0, 100]), rand_compressed(rng, 50, 10, 300)[0],
                    np.array([0, 0, 40, 40, 41, 90, 90])]:
        gs, ks = cp._entry_splits(offsets, nchunks)
        nrows = len(offsets) - 1
        assert gs[0] == 0 and ks[0] == 0 and gs[-1] == nrows and ks[-1] == offsets[-1]
        assert (np.diff(gs) >= 0).all() and (np.diff(ks) >= 0).all()
        for g, k in zip(gs[:-1], ks[:-1]):  # each chunk starts inside (or at an end of) its row
            assert offsets[g] <= k and (g == nrows or k <= offsets[g + 1])
        # balanced: the walk (a step per row and per entry) is cut into equal parts
        np.testing.assert_array_equal(gs + ks, (offsets[-1] + nrows) * np.arange(nchunks + 1) // nchunks)


def test_transpose_compressed_thread_counts(transpose_path):
    rng = np.random.default_rng(5)
    offsets, minor = rand_compressed(rng, 3000, 2000, 200_000)
    values = rand_values(rng, (200_000, 1), np.complex128)
    ref = ref_transpose(offsets, minor, values, 1, 3000, 2000)
    old = numba.get_num_threads()
    try:
        for nt in range(1, old + 1):
            numba.set_num_threads(nt)
            out = cp.transpose_compressed(offsets, minor, values, 1, 3000, 2000, np.int32)
            for a, e in zip(out, ref):
                np.testing.assert_array_equal(a, e)
    finally:
        numba.set_num_threads(old)


@pytest.mark.parametrize("nnz,nminor", [(30, 10), (200_000, 1000), (60_000, 400_000)])
def test_transpose_compressed_bad(nnz, nminor, transpose_path):
    rng = np.random.default_rng(3)
    offsets, minor = rand_compressed(rng, 500, nminor, nnz)
    values = np.ones((nnz, 1))
    for k, val in [(nnz - 1, nminor), (nnz // 2, -1), (3, 2**40)]:
        bad = minor.copy()
        bad[-1] = nminor + 5  # a second one, after the first
        bad[k] = val
        nbad = 1 if k == nnz - 1 else 2
        msg = rf"{nbad} minor indices outside \[0, nminor = {nminor}\); first minor\[{k}\] = {val}"
        with pytest.raises(ValueError, match=msg):
            cp.transpose_compressed(offsets, bad, values, 1, 500, nminor, np.int64)
    bad = offsets.copy()
    bad[200] = bad[201] + 1
    with pytest.raises(ValueError, match=r"offsets\[201\] = .* < offsets\[200\]"):
        cp.transpose_compressed(bad, minor, values, 1, 500, nminor, np.int64)
    with pytest.raises(ValueError, match=r"offsets\[-1\]"):
        cp.transpose_compressed(offsets, minor[:-1], values[:-1], 1, 500, nminor, np.int64)
    with pytest.raises(ValueError, match="nbatch \\* nmajor \\+ 1"):
        cp.transpose_compressed(offsets, minor, values, 2, 500, nminor, np.int64)
    with pytest.raises(ValueError, match="outside"):
        cp.transpose_compressed(offsets, minor, values, 1, 500, 0, np.int64)
    with pytest.raises(ValueError, match=r"\(nnz, m\)"):
        cp.transpose_compressed(offsets, minor, values[:, 0], 1, 500, nminor, np.int64)
    with pytest.raises(KernelDeclined):
        cp.transpose_compressed(offsets, minor, values.astype(np.float16), 1, 500, nminor, np.int64)


# ---------------------------------------------------------------------------------------
# dense_to_compressed / compressed_to_dense
# ---------------------------------------------------------------------------------------


@pytest.mark.parametrize("dtype", VALUE_DTYPES)
@pytest.mark.parametrize("shape", [(0, 4, 1), (3, 0, 1), (5, 4, 0), (1, 1, 1), (40, 30, 1), (40, 30, 3), (300, 700, 1)])
def test_dense_compressed_roundtrip(dtype, shape):
    rng = np.random.default_rng(sum(shape))
    dense = rand_values(rng, shape, dtype, nan=True)
    m = shape[2]
    fill = rand_values(rng, (m,), dtype)
    dense[rng.random(shape[:2]) < 0.6] = fill  # most positions unspecified ...
    mask = rng.random(shape) < 0.7
    dense[mask] = np.broadcast_to(fill, shape)[mask]  # ... and partially equal to the fill
    idt = np.int32 if shape[1] % 2 else np.int64
    off, minor, values = cp.dense_to_compressed(dense, fill, idt)
    ref = ref_dense_to_compressed(dense, fill)
    assert off.dtype == idt and minor.dtype == idt
    np.testing.assert_array_equal(off, ref[0])
    np.testing.assert_array_equal(minor, ref[1])
    assert_same(values, ref[2])
    back = cp.compressed_to_dense(off, minor, values, fill, shape[1])
    assert_same(back, ref_compressed_to_dense(off, minor, values, fill, shape[1]))
    assert_same(back, np.where(ref_same(dense, fill).all(axis=2, keepdims=True), np.broadcast_to(fill, shape), dense))


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.complex64, np.complex128])
@pytest.mark.parametrize("m", [1, 2])
def test_dense_to_compressed_nan(dtype, m):
    rng = np.random.default_rng(m)
    shape = (120, 500, m)
    dense = rand_values(rng, shape, dtype, nan=True)
    dense[rng.random(shape) < 0.5] = 0
    dense[rng.random(shape) < 0.1] = -0.0  # a signed zero is not the fill +0.0
    nanish = [np.nan, complex(0, np.nan), complex(np.nan, 1), complex(1, np.nan)] if np.dtype(dtype).kind == "c" else [np.nan]
    dense.ravel()[rng.integers(0, dense.size, 2000)] = rng.choice(nanish, 2000)
    fills = [np.zeros(m, dtype), np.full(m, -0.0, dtype), np.full(m, np.nan, dtype), np.array([np.nan, 0][:m], dtype)]
    if np.dtype(dtype).kind == "c":
        fills.append(np.full(m, complex(1, np.nan), dtype))  # each part by the float rule: only 1 + nan j matches
    for fill in fills:
        off, minor, values = cp.dense_to_compressed(dense, fill, np.int64)
        ref = ref_dense_to_compressed(dense, fill)
        np.testing.assert_array_equal(off, ref[0])
        np.testing.assert_array_equal(minor, ref[1])
        assert_same(values, ref[2])


def test_dense_to_compressed_fill_broadcast_and_checks():
    dense = np.array([[[1], [0]], [[0], [2]]], np.int16)
    off, minor, values = cp.dense_to_compressed(dense, 0, np.int32)
    assert off.tolist() == [0, 1, 2] and minor.tolist() == [0, 1] and values.ravel().tolist() == [1, 2]
    with pytest.raises(ValueError, match=r"\(N, C, m\)"):
        cp.dense_to_compressed(dense[..., 0], 0, np.int32)
    with pytest.raises(KernelDeclined):
        cp.dense_to_compressed(dense.astype(np.float16), 0, np.int32)


@pytest.mark.parametrize("dtype", [np.bool_, np.int16, np.float64, np.complex128])
@pytest.mark.parametrize("m", [1, 2])
def test_compressed_to_dense(dtype, m):
    rng = np.random.default_rng(7)
    N, nminor, nnz = 500, 600, 100_000
    offsets, minor = rand_compressed(rng, N, nminor, nnz, np.int32)
    # unique positions per row
    keys = np.unique(ref_expand(offsets).astype(np.int64) * nminor + minor)
    offsets = np.concatenate([[0], np.cumsum(np.bincount(keys // nminor, minlength=N))])
    minor = keys % nminor
    values = rand_values(rng, (len(keys), m), dtype, nan=True)
    fill = rand_values(rng, (m,), dtype)
    out = cp.compressed_to_dense(offsets, minor, values, fill, nminor)
    assert_same(out, ref_compressed_to_dense(offsets, minor, values, fill, nminor))


@pytest.mark.parametrize("nnz", [5, 100_000])
def test_compressed_to_dense_bad(nnz):
    rng = np.random.default_rng(2)
    offsets, minor = rand_compressed(rng, 400, 300, nnz)
    values = np.ones((nnz, 1))
    for k, val in [(nnz - 1, 300), (0, -1)]:
        bad = minor.copy()
        bad[k] = val
        with pytest.raises(ValueError, match=rf"1 minor indices outside \[0, nminor = 300\); first minor\[{k}\] = {val}"):
            cp.compressed_to_dense(offsets, bad, values, 0.0, 300)
    with pytest.raises(ValueError, match="outside"):
        cp.compressed_to_dense(offsets, minor, values, 0.0, 0)
    bad = offsets.copy()
    bad[5] = -1
    with pytest.raises(ValueError, match=r"offsets\[5\] = -1 < offsets\[4\]"):
        cp.compressed_to_dense(bad, minor, values, 0.0, 300)
    with pytest.raises(ValueError, match=r"offsets\[-1\]"):
        cp.compressed_to_dense(offsets, minor[:-1], values[:-1], 0.0, 300)


# ---------------------------------------------------------------------------------------
# scatter_blocks
# ---------------------------------------------------------------------------------------


@pytest.mark.parametrize("dtype", [np.bool_, np.uint8, np.int32, np.float64, np.complex64, np.complex128])
@pytest.mark.parametrize(
    "nblocks,nslots,n,m", [(0, 4, 0, 1), (3, 0, 0, 2), (4, 4, 0, 2), (5, 4, 3, 0), (10, 6, 20, 1), (3000, 64, 100_000, 2)]
)
def test_scatter_blocks(dtype, nblocks, nslots, n, m):
    rng = np.random.default_rng(n + m)
    pos = rng.choice(nblocks * nslots, n, replace=False)
    ids, slots = (pos // nslots).astype(np.int32), pos % nslots
    values = rand_values(rng, (n, m), dtype, nan=True)
    fill = rand_values(rng, (m,), dtype)
    out = cp.scatter_blocks(ids, slots, values, nblocks, nslots, fill)
    ref = np.empty((nblocks, nslots, m), values.dtype)
    ref[...] = fill
    ref[ids, slots] = values
    assert_same(out, ref)


def test_scatter_blocks_duplicates_and_bad():
    n = 100_000
    ids = np.zeros(n, np.int64)
    slots = np.arange(n) % 3
    out = cp.scatter_blocks(ids, slots, np.ones((n, 1)), 2, 4, 0.0)  # repeated positions: memory-safe
    assert out[..., 0].tolist() == [[1, 1, 1, 0], [0, 0, 0, 0]]
    for k, b, s in [(n - 1, 2, 0), (7, 0, 4), (n // 2, -1, 0), (n // 2 + 1, 0, -3)]:
        bi, sl = ids.copy(), slots.copy()
        bi[k], sl[k] = b, s
        with pytest.raises(ValueError, match=rf"1 entries outside .*block_ids\[{k}\] = {b}, slots\[{k}\] = {s}"):
            cp.scatter_blocks(bi, sl, np.ones((n, 1)), 2, 4, 0.0)
    with pytest.raises(ValueError, match="outside"):
        cp.scatter_blocks(ids[:3], slots[:3], np.ones((3, 0)), 0, 4, 0.0)
    with pytest.raises(ValueError, match=r"\(n,\), \(n,\), \(n, m\)"):
        cp.scatter_blocks(ids, slots[:-1], np.ones((n, 1)), 2, 4, 0.0)


def test_near_diagonal_tells_banded_from_scattered():
    rng = np.random.default_rng(11)
    n = 20_000
    # tridiagonal plus a far band (a 2-d stencil on a 100-wide grid): banded
    rows = np.repeat(np.arange(n), 5)
    cols = np.clip(rows + np.tile([-100, -1, 0, 1, 100], n), 0, n - 1)
    offsets = np.arange(0, 5 * n + 1, 5, dtype=np.int64)
    assert cp._near_diagonal(offsets, cols, n, n, 12)
    # two batches of it: the band is judged within each batch
    assert cp._near_diagonal(np.arange(0, 10 * n + 1, 5, dtype=np.int64), np.concatenate([cols, cols]), n, n, 12)
    # a rectangular band (n x n / 2 with columns r / 2): banded after scaling
    assert cp._near_diagonal(offsets, rows // 2, n, n // 2, 12)
    # uniformly random columns: not banded; too few entries to judge: not banded
    assert not cp._near_diagonal(offsets, rng.integers(0, n, 5 * n), n, n, 12)
    assert not cp._near_diagonal(offsets[:3], cols[:10], 2, n, 12)


@pytest.mark.parametrize("dtype", [np.float64, np.complex128, np.int32, np.bool_])
@pytest.mark.parametrize("m", [None, 3])
def test_take_major_matches_generic(dtype, m):
    from sparray._engine.compressed_generic import take_major as generic_take
    from sparray.kernels.cpu.take import take_major

    rng = np.random.default_rng(12)
    nrows, nnz = 400, 3000
    offsets = np.concatenate([[0], np.sort(rng.integers(0, nnz + 1, nrows - 1)), [nnz]]).astype(np.int32)
    minor = rng.integers(0, 50, nnz).astype(np.int32)
    values = rng.standard_normal((nnz,) if m is None else (nnz, m)).astype(dtype)
    if np.dtype(dtype).kind == "c":
        values = values + 1j * rng.standard_normal(values.shape)
    rows = rng.integers(0, nrows, 1000)  # repeats and any order
    got = take_major(offsets, minor, values, rows)
    ref = generic_take(np, offsets, minor, values, rows.astype(np.int64))
    for g, r in zip(got, ref):
        np.testing.assert_array_equal(g, r)
    assert got[1].dtype == np.int32 and got[2].dtype == values.dtype
    empty = take_major(offsets, minor, values, np.zeros(0, np.int64))
    assert empty[0].tolist() == [0] and empty[1].shape == (0,) and empty[2].shape[1:] == values.shape[1:]


def test_take_major_checks_what_it_copies():
    from sparray.kernels.cpu.take import take_major

    offsets, minor, values = np.array([0, 2, 3]), np.array([0, 2, 1]), np.ones(3)
    with pytest.raises(ValueError, match="row 2 is out of range for 2 rows"):
        take_major(offsets, minor, values, np.array([2]))
    with pytest.raises(ValueError, match="row -1 is out of range"):
        take_major(offsets, minor, values, np.array([-1]))
    with pytest.raises(ValueError, match=r"row 0 spans offsets\[0\]:offsets\[1\] = 0:5, outside the 3 entries"):
        take_major(np.array([0, 5, 3]), minor, values, np.array([0]))
    with pytest.raises(ValueError, match="reversed"):
        take_major(np.array([0, 3, 1]), minor, values, np.array([1]))
    with pytest.raises(ValueError, match="len\\(minor\\) = 3 rows"):
        take_major(offsets, minor, np.ones(4), np.array([0]))


@pytest.mark.parametrize("dtype", [np.float64, np.complex128, np.int32, np.bool_])
@pytest.mark.parametrize("m", [None, 3])
def test_slice_minor_matches_generic_and_a_brute_force(dtype, m):
    from sparray._engine.compressed_generic import slice_minor as generic_slice
    from sparray.kernels.cpu.take import slice_minor

    rng = np.random.default_rng(13)
    nrows, ncols = 300, 80
    rows = [np.flatnonzero(rng.random(ncols) < p) for p in rng.random(nrows) * 0.4]
    rows[7] = np.arange(ncols)  # one full row
    offsets = np.concatenate([[0], np.cumsum([len(r) for r in rows])]).astype(np.int32)
    minor = np.concatenate(rows).astype(np.int32)
    nnz = minor.shape[0]
    values = rng.standard_normal((nnz,) if m is None else (nnz, m)).astype(dtype)
    for start, stop in [(0, ncols), (10, 30), (0, 1), (79, 80), (40, 40), (70, 500), (200, 300)]:
        got = slice_minor(offsets, minor, values, start, stop)
        ref = generic_slice(np, offsets, minor, values, start, stop)
        for g, r in zip(got, ref):
            np.testing.assert_array_equal(g, r)
        keep = (minor >= start) & (minor < stop)
        np.testing.assert_array_equal(got[1], minor[keep] - start)
        np.testing.assert_array_equal(got[2], values[keep])
        np.testing.assert_array_equal(np.diff(got[0]), [np.count_nonzero((r >= start) & (r < stop)) for r in rows])
        assert got[0].dtype == np.int32 and got[1].dtype == np.int32 and got[2].dtype == values.dtype


def test_slice_minor_checks_what_it_reads():
    from sparray.kernels.cpu.take import slice_minor

    minor, values = np.array([0, 2, 1]), np.ones(3)
    with pytest.raises(ValueError, match=r"row 0 spans offsets\[0\]:offsets\[1\] = 0:5, outside the 3 entries"):
        slice_minor(np.array([0, 5, 3]), minor, values, 0, 2)
    with pytest.raises(ValueError, match="reversed"):
        slice_minor(np.array([0, 3, 1]), minor, values, 0, 2)
    with pytest.raises(ValueError, match="0 <= start <= stop"):
        slice_minor(np.array([0, 2, 3]), minor, values, 2, 1)
    with pytest.raises(ValueError, match="len\\(minor\\) = 3 rows"):
        slice_minor(np.array([0, 2, 3]), minor, values[:2], 0, 2)


@pytest.mark.parametrize("threads", [1, 2])
def test_compress_offsets_checked_finds_empty_buckets_it_did_not_expect(threads, monkeypatch):
    """Checked keys that sampled as full (so no bucket is zeroed first) with a few empty buckets
    anywhere: before the first key, right at a chunk's first key, in the middle of a chunk, at
    the end. The run count of each chunk catches them, the chunk is redone with the filling
    pass, and the stale values of a reused output buffer never leak into the result."""
    monkeypatch.setattr(cp, "_gappy", lambda keys: False)
    rng = np.random.default_rng(threads)
    base = np.repeat(np.arange(40_000), 5)
    with numba_threads(threads):
        for skip in ([], [0], [1], [20_000], [19_999, 20_000], [39_999], list(rng.integers(0, 40_000, 30))):
            keys = base[~np.isin(base, skip)]
            for nbuckets in (40_000, 40_003):
                got = cp.compress_offsets(keys, nbuckets, np.int64, checked=True)
                np.testing.assert_array_equal(got, ref_compress_offsets(keys, nbuckets))
                stale = np.full(nbuckets + 1, -7, np.int64)  # the kernel itself, on a dirty buffer
                stale[0] = 0
                cp._compress_sorted(keys, nbuckets, stale, threads * 4, False)
                stale[int(keys[-1]) + 1 :] = keys.size
                np.testing.assert_array_equal(stale, ref_compress_offsets(keys, nbuckets))
