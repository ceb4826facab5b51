"""The merge-path CSR SpMV (kernels/cuda/spmm.cu: csr_merge_search, csr_merge_mv, csr_merge_fix),
emulated in CI and on CuPy where a GPU is: against dense NumPy on skewed patterns (one huge row,
long runs of empty rows, power-law rows, one row, fewer entries than lanes, rows ending exactly on
tile edges), every value dtype the launcher serves, int32/int64 indices, several items per lane
(small ones make many tiles and several fix-up levels out of small matrices), non-finite values and
the finite flag, bad pointers and columns (flagged, never used as addresses: outputs outside y are
never written), bitwise determinism across grid and block sizes, and the public ``A @ x`` on the
simulated device (the lean path, no sync)."""

import numpy as np
import pytest

import sparray as sp
from cuda_testing import DEVICES, INDEX_DTYPES, random_values, requires_gxx, to_device, to_host
from sparray.kernels.cuda import spmm
from sparray.kernels.cuda._driver import EmulatorDriver, driver_for
from sparray.kernels.cuda._operands import new_stats, numeric, read_stats
from sparray.kernels.cuda.simulated import counting, to_simulated

pytestmark = requires_gxx

NUMERIC = tuple(np.dtype(t) for t in ("int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
                                      "float32", "float64", "complex64", "complex128"))  # fmt: skip
BAD_POINTER, BAD_INDEX, NONFINITE = 1, 2, 4


def _crow(counts, idx=np.int64):
    return np.concatenate([[0], np.cumsum(counts)]).astype(idx)


def _pattern(name, rng):
    """(row counts, K) of a named skewed pattern."""
    if name == "huge-row":  # one row holding most entries, among short ones
        counts = rng.integers(0, 3, 50)
        counts[20] = 900
        return counts, 1000
    if name == "empty-runs":  # long runs of empty rows around a few full ones
        counts = np.zeros(1500, np.int64)
        counts[[0, 700, 701, 1499]] = [40, 300, 5, 60]
        return counts, 400
    if name == "power-law":  # R-MAT-like: row lengths from a Zipf law
        counts = np.minimum(rng.zipf(1.6, 400), 600)
        return counts, 700
    if name == "one-row":
        return np.array([333]), 400
    if name == "few-entries":  # nse below one tile's lanes
        counts = np.zeros(9, np.int64)
        counts[4] = 5
        return counts, 10
    if name == "tile-edges":  # every row ends exactly on a lane's and a tile's edge (ipt 7: 7 items a lane)
        return np.full(64, 6), 10  # 6 entries + 1 row end = 7 items per row
    raise KeyError(name)


PATTERNS = ("huge-row", "empty-runs", "power-law", "one-row", "few-entries", "tile-edges")


def _random_csr(counts, K, rng, dtype, idx=np.int64):
    crow = _crow(counts, idx)
    col = np.concatenate([np.sort(rng.choice(K, c, replace=False)) for c in counts] or [np.zeros(0)]).astype(idx)
    vals = random_values(rng, col.shape[0], dtype, negative=True)
    return crow, col, vals


def _dense(crow, col, vals, K):
    M = crow.shape[0] - 1
    D = np.zeros((M, K), vals.dtype)
    D[np.repeat(np.arange(M), np.diff(crow.astype(np.int64))), col] = vals
    return D


def _merge(crow, col, vals, x, ipt=spmm.MERGE_IPT, fix_ipt=spmm.FIX_IPT, y=None):
    """The merge kernels launched directly (any ipt), as csr_matmul_dense launches them: (y, stats)."""
    drv = driver_for(crow, col, vals, x)
    xp = drv.xp
    vals, x = numeric(xp, vals, "values", "t"), numeric(xp, x, "x", "t")
    M, K, nse = crow.shape[0] - 1, x.shape[0], col.shape[0]
    y = xp.empty(M, vals.dtype) if y is None else y
    stats = new_stats(xp, M + 1)
    part = spmm.merge_partition(drv, crow, M, nse, ipt)
    scratch = spmm.merge_scratch(xp, M, nse, vals.dtype, ipt, fix_ipt)
    spmm.launch_merge_mv(drv, spmm.merge_names(crow.dtype, vals.dtype), crow, col, vals, x, y, M, K, nse, part, scratch,
                         stats, ipt, fix_ipt)  # fmt: skip
    return y, read_stats(stats)


def _close(got, want):
    got = to_host(got)
    if want.dtype.kind in "iu":
        np.testing.assert_array_equal(got.view(want.dtype), want)
    else:
        tol = 1e-5 if want.dtype in (np.float32, np.complex64) else 1e-12
        np.testing.assert_allclose(got, want, rtol=tol, atol=tol, equal_nan=True)


@pytest.fixture
def skewed(monkeypatch):
    """csr_matmul_dense takes the merge path for every SpMV."""
    monkeypatch.setattr(spmm, "SKEW_MIN", 0)
    monkeypatch.setattr(spmm, "SKEW_FACTOR", 0)


def test_the_plan_is_sized_on_the_host():
    assert spmm.merge_plan(10, 0) == (1, (), 1)  # one tile: no fix-up
    assert spmm.merge_plan(0, 224) == (1, (), 1)
    ntiles, levels, total = spmm.merge_plan(10**6, 10**7)  # R-MAT scale: two fix-up levels
    assert ntiles == -(-(11 * 10**6) // 224) and len(levels) == 2 and levels[-1][3] == 1
    assert total == ntiles + sum(lv[3] for lv in levels)
    assert [lv[1] for lv in levels] == [ntiles, levels[0][3]]


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("pattern", PATTERNS)
@pytest.mark.parametrize("idx", INDEX_DTYPES, ids=str)
def test_patterns_match_dense(device, pattern, idx, skewed):
    """Through the launcher (report_finite on: the status is read), float64 and int64 values."""
    rng = np.random.default_rng(PATTERNS.index(pattern))
    counts, K = _pattern(pattern, rng)
    for dtype in (np.float64, np.int64):
        crow, col, vals = _random_csr(counts, K, rng, dtype, idx)
        x = random_values(rng, K, dtype, negative=True)
        y, finite = spmm.csr_matmul_dense(*(to_device(a, device) for a in (crow, col, vals, x)), report_finite=True)
        _close(y, _dense(crow, col, vals, K) @ x)
        assert finite is True


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("dtype", NUMERIC, ids=str)
def test_every_value_dtype(device, dtype, skewed):
    rng = np.random.default_rng(int(dtype.num))
    counts, K = _pattern("huge-row", rng)
    for idx in INDEX_DTYPES:
        crow, col, vals = _random_csr(counts, K, rng, dtype, idx)
        x = random_values(rng, K, dtype, negative=True)
        y = spmm.csr_matmul_dense(*(to_device(a, device) for a in (crow, col, vals, x)))
        assert to_host(y).dtype == dtype and y.shape == (50,)
        _close(y, _dense(crow, col, vals, K) @ x)
        y2 = spmm.csr_matmul_dense(*(to_device(a, device) for a in (crow, col, vals, x[:, None])))  # (K, 1): also merge
        _close(y2, (_dense(crow, col, vals, K) @ x)[:, None])


def test_integers_wrap_across_tiles(skewed):
    """A row of int8 maxima summed over many tiles and fix-up levels wraps as NumPy's does."""
    for dtype in ("int8", "uint8", "int16", "int32", "int64", "uint64"):
        info = np.iinfo(dtype)
        crow, col = np.array([0, 1, 3001, 3001]), np.concatenate([[4], np.arange(3000)])
        vals, x = np.full(3001, info.max, dtype), (np.arange(3000) % 5 + 3).astype(dtype)
        want = _dense(crow, col, vals, 3000) @ x
        got, stats = _merge(crow, col, vals, x, ipt=1, fix_ipt=1)
        _close(got, want)


@pytest.mark.parametrize("ipt,fix_ipt", [(1, 1), (2, 1), (3, 2), (5, 8), (7, 1), (7, 8)])
@pytest.mark.parametrize("pattern", PATTERNS)
def test_items_per_lane_and_fixup_levels(pattern, ipt, fix_ipt):
    """Small ipt: many tiles and up to three fix-up levels on small matrices, every tile edge case."""
    rng = np.random.default_rng(7)
    counts, K = _pattern(pattern, rng)
    crow, col, vals = _random_csr(counts, K, rng, np.float64)
    x = random_values(rng, K, np.float64, negative=True)
    y, stats = _merge(crow, col, vals, x, ipt, fix_ipt)
    _close(y, _dense(crow, col, vals, K) @ x)
    assert stats[2] == 0


def test_three_fixup_levels():
    rng = np.random.default_rng(3)
    counts = rng.integers(0, 4, 20000)
    counts[5000] = 3000
    crow, col, vals = _random_csr(counts, 3000, rng, np.float64)
    x = random_values(rng, 3000, np.float64, negative=True)
    assert len(spmm.merge_plan(crow.shape[0] - 1, col.shape[0], 1, 1)[1]) == 3
    y, stats = _merge(crow, col, vals, x, 1, 1)
    _close(y, _dense(crow, col, vals, 3000) @ x)


@pytest.mark.parametrize("block,max_blocks", [(32, 1), (64, 3), (96, 2), (320, 1)])
def test_bitwise_the_same_on_every_grid(block, max_blocks, monkeypatch):
    """The sums' order is fixed by ipt and the data: one warp, several blocks, 3 warps a block, or
    10 warps of which 8 take tiles give the same bits (floats whose order matters)."""
    rng = np.random.default_rng(11)
    counts, K = _pattern("power-law", rng)
    crow, col, _ = _random_csr(counts, K, rng, np.float64)
    vals = rng.standard_normal(col.shape[0]) * 10.0 ** rng.integers(-8, 8, col.shape[0])
    x = rng.standard_normal(K)
    want = [_merge(crow, col, vals, x, ipt)[0] for ipt in (7, 2)]
    monkeypatch.setattr(EmulatorDriver, "block", block)
    monkeypatch.setattr(EmulatorDriver, "max_blocks", max_blocks)
    for ipt, w in zip((7, 2), want):
        got = _merge(crow, col, vals, x, ipt)[0]
        assert got.tobytes() == w.tobytes()


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("where", ["short-row", "huge-row", "x"])
@pytest.mark.parametrize("value", [np.inf, -np.inf, np.nan])
def test_nonfinite_values_and_the_flag(device, where, value, skewed):
    rng = np.random.default_rng(4)
    counts, K = _pattern("huge-row", rng)
    crow, col, vals = _random_csr(counts, K, rng, np.float64)
    x = random_values(rng, K, np.float64, negative=True)
    if where == "x":
        x[col[crow[20] + 500]] = value  # read by the huge row (and maybe others)
    else:
        r = 20 if where == "huge-row" else int(np.flatnonzero(counts[:20])[0])
        vals[crow[r] + counts[r] // 2] = value
    want = np.zeros(crow.shape[0] - 1)  # the stored entries' products only (a zero fill's unread NaN is not the kernel's)
    with np.errstate(all="ignore"):
        np.add.at(want, np.repeat(np.arange(want.shape[0]), counts), vals * x[col])
    y, finite = spmm.csr_matmul_dense(*(to_device(a, device) for a in (crow, col, vals, x)), report_finite=True)
    _close(y, want)
    assert finite is False


def test_overflow_only_in_the_fixup_is_flagged(skewed):
    """Each tile's partial sum is finite, their total is not: the fix-up's write raises the flag."""
    crow, col = np.array([0, 2000, 2000]), np.arange(2000)
    vals, x = np.full(2000, 1e306), np.ones(2000)
    y, finite = spmm.csr_matmul_dense(crow, col, vals, x, report_finite=True)
    assert np.isposinf(y[0]) and y[1] == 0 and finite is False
    y, finite = spmm.csr_matmul_dense(crow, col, vals * 1e-10, x, report_finite=True)
    assert finite is True and y[0] == pytest.approx(2e299)


def test_empty_rows_are_written_not_assumed():
    """y arrives full of garbage: every row, empty ones included, is written."""
    rng = np.random.default_rng(9)
    counts, K = _pattern("empty-runs", rng)
    crow, col, vals = _random_csr(counts, K, rng, np.float64)
    x = random_values(rng, K, np.float64, negative=True)
    y, _ = _merge(crow, col, vals, x, 3, 1, y=np.full(crow.shape[0] - 1, np.nan))
    _close(y, _dense(crow, col, vals, K) @ x)


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("case", ["decreasing", "start", "end", "beyond", "column", "negative-column"])
def test_bad_input_raises_like_numba(device, case, skewed):
    from sparray.kernels.cpu import spmm as cpu

    crow, col = np.array([0, 1, 2, 3]), np.array([0, 1, 2])
    if case == "decreasing":
        crow = np.array([0, 2, 1, 3])
    elif case == "start":
        crow = np.array([1, 2, 3, 3])
    elif case == "end":
        crow = np.array([0, 1, 2, 2])
    elif case == "beyond":
        crow = np.array([0, 5, 2, 3])
    elif case == "column":
        col = np.array([0, 9, 2])
    else:
        col = np.array([0, -1, 2])
    vals, x = np.ones(3), np.ones(3)
    with pytest.raises(ValueError) as want:
        cpu.csr_matmul_dense(crow, col, vals, x)
    with pytest.raises(ValueError) as got:
        spmm.csr_matmul_dense(*(to_device(a, device) for a in (crow, col, vals, x)))
    assert str(got.value) == str(want.value)


def _guarded(n, dtype, fill):
    """An array of n items inside a larger buffer of ``fill`` (its guard zones) and the buffer."""
    buf = np.full(n + 2 * 64, fill, dtype)
    return buf[64:-64], buf


@pytest.mark.parametrize("seed", range(40))
def test_bad_pointers_are_flagged_and_never_used(seed):
    """Random row pointers (out of order, out of range, huge, negative): the kernels flag them, and
    write nothing outside y and the carries (guard zones around every output stay untouched); the
    pointers reach only bounded searches and walks, so no read leaves the inputs either (the loads
    are bounded by the same boxes; compute-sanitizer checks it on a GPU)."""
    rng = np.random.default_rng(seed)
    M, K = int(rng.integers(1, 300)), 20
    nse = int(rng.integers(0, 600))
    good = _crow(rng.multinomial(nse, np.ones(M) / M))
    crow = good.copy()
    kind = seed % 4
    if kind == 0:  # a few pointers moved anywhere
        for i in rng.integers(0, M + 1, 3):
            crow[i] = rng.integers(-5, nse + 10)
    elif kind == 1:  # wholly random
        crow = rng.integers(-3, nse + 3, M + 1)
    elif kind == 2:  # huge values
        crow[rng.integers(0, M + 1)] = 2**62
    else:  # reversed
        crow = crow[::-1].copy()
    if np.array_equal(crow, good):
        crow[-1] += 1
    col = rng.integers(0, K, nse)
    vals, x = rng.standard_normal(nse), rng.standard_normal(K)
    y, ybuf = _guarded(M, np.float64, 7.5)
    for ipt, fix_ipt in ((7, 8), (1, 1), (2, 1)):
        y, ybuf = _guarded(M, np.float64, 7.5)
        y[:] = 0
        _, stats = _merge(crow, col, vals, x, ipt, fix_ipt, y=y)
        assert stats[2] & BAD_POINTER, (crow.tolist(), stats)
        assert (ybuf[:64] == 7.5).all() and (ybuf[-64:] == 7.5).all()


def test_bad_columns_are_flagged_and_skipped():
    crow, col = np.array([0, 2, 2, 5]), np.array([0, 99, 1, -4, 2])
    vals, x = np.ones(5), np.array([1.0, 10.0, 100.0])
    y, stats = _merge(crow, col, vals, x)
    assert stats[2] & BAD_INDEX and not stats[2] & BAD_POINTER
    assert y.tolist() == [1.0, 0.0, 110.0]  # the bad ones count as zero


# ---- the public A @ x on the simulated device ---------------------------------------------------


def _skewed_dense(rng, M=400, K=300):
    dense = np.where(rng.random((M, K)) < 0.01, rng.standard_normal((M, K)), 0.0)
    dense[M // 3, :] = rng.standard_normal(K)  # a hub: 300 entries, the mean about 4
    dense[M // 2 : M // 2 + 120] = 0.0  # a run of empty rows
    return dense


@pytest.fixture
def small_skew(monkeypatch):
    monkeypatch.setattr(spmm, "SKEW_MIN", 64)


@pytest.mark.parametrize("nonfinite", [False, True], ids=["finite-x", "inf-nan-x"])
@pytest.mark.parametrize("dtype", ["float64", "float32"])
def test_public_skewed_matmul_takes_the_lean_merge_path(nonfinite, dtype, small_skew):
    rng = np.random.default_rng(5)
    dense = _skewed_dense(rng).astype(dtype)
    A = sp.asarray(dense, layout="csr").to_device("simulated")
    xh = rng.standard_normal(dense.shape[1]).astype(dtype)
    if nonfinite:
        xh[3], xh[7] = np.inf, np.nan
    x = to_simulated(xh)
    with counting() as c:
        y = A @ x  # facts carried from the host: no sync at the first call either
    assert c.syncs == 0, c.sites
    with counting() as c:
        y = A @ x
    assert c.syncs == 0, c.sites
    names = [name.split("<")[0] for _, name in c.launches]
    assert names == ["csr_merge_mv", "csr_merge_fix", "count_nonfinite", "csr_unread_nan"]
    assert A._lean_device and A._lean_device.merge
    with np.errstate(all="ignore"):
        want = dense @ xh
    tol = 1e-5 if dtype == "float32" else 1e-12
    np.testing.assert_allclose(y.get(), want, rtol=tol, atol=tol, equal_nan=True)


def test_public_skewed_general_path_agrees(small_skew):
    """Inside check_invariants() the general path serves the call (the status read): same values."""
    rng = np.random.default_rng(6)
    dense = _skewed_dense(rng)
    A = sp.asarray(dense, layout="csr").to_device("simulated")
    x = to_simulated(rng.standard_normal(dense.shape[1]))
    fast = (A @ x).get()
    with sp.check_invariants():
        slow = (A @ x).get()
    np.testing.assert_array_equal(fast, slow)
    np.testing.assert_allclose(fast, dense @ x.get(), rtol=1e-12, atol=1e-12)
