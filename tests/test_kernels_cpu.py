"""Tests of the numba CPU kernels (sparray.kernels.cpu) against plain NumPy references."""

import numpy as np
import pytest

from sparray.kernels import KernelDeclined
from sparray.kernels.cpu import _sort, coalesce as co, group_reduce as gr, merge as mg
from sparray.kernels.cpu.binary import MODES as FUSED_MODES
from sparray.kernels.cpu.binary import OPS as FUSED_OPS
from sparray.kernels.cpu.binary import merge_apply
from sparray.kernels.cpu.binary_rows import merge_apply_rows
from sparray.kernels.cpu.scatter import nonzero_rows, scatter_sum
from sparray_testing import group_reduce_ref

DTYPES = [np.bool_, np.int32, np.int64, np.uint8, np.float32, np.float64, np.complex128]
ALL_DTYPES = DTYPES + [np.int8, np.int16, np.uint16, np.uint32, np.uint64, np.complex64]


def rand_values(rng, n, m, dtype, nan=False):
    dtype = np.dtype(dtype)
    if dtype == np.bool_:
        v = rng.random((n, m)) < 0.3
    elif dtype.kind in "iu":
        v = rng.integers(0, 5, (n, m)).astype(dtype)
    elif dtype.kind == "f":
        v = rng.standard_normal((n, m)).astype(dtype)
    else:
        v = (rng.standard_normal((n, m)) + 1j * rng.standard_normal((n, m))).astype(dtype)
        # equal real parts exercise the lexicographic comparison
        v.real[rng.random((n, m)) < 0.3] = 0.5
    if nan and n and dtype.kind in "fc":
        v[rng.random((n, m)) < 0.05] = np.nan
    return v


def assert_same(actual, expected):
    assert actual.dtype == expected.dtype
    assert actual.shape == expected.shape
    if actual.dtype.kind in "fc":
        np.testing.assert_allclose(actual, expected, rtol=1e-5, atol=1e-5, equal_nan=True)
    else:
        np.testing.assert_array_equal(actual, expected)


# ---------------------------------------------------------------------------------------
# _sort
# ---------------------------------------------------------------------------------------


@pytest.mark.parametrize("nchunks", [None, 1, 3])
@pytest.mark.parametrize(
    "n,hi", [(0, 1), (1, 5), (50, 10), (40000, 7), (70000, 1 << 40), (40000, 1 << 62)]
)
def test_radix_argsort(n, hi, nchunks):
    rng = np.random.default_rng(n + hi % 1000)
    keys = rng.integers(0, hi, n)
    sk, perm = _sort.radix_argsort(keys, nchunks=nchunks)
    ref = np.argsort(keys, kind="stable")
    np.testing.assert_array_equal(perm, ref)
    np.testing.assert_array_equal(sk, keys[ref])


def test_radix_argsort_constant_and_negative():
    keys = np.full(40000, 123, np.int64)
    sk, perm = _sort.radix_argsort(keys)
    np.testing.assert_array_equal(perm, np.arange(40000))
    with pytest.raises(ValueError):
        _sort.radix_argsort(np.array([3, -1, 2]))


def test_sortedness():
    assert _sort.sortedness(np.array([], np.int64)) == (True, True)
    assert _sort.sortedness(np.array([4])) == (True, True)
    assert _sort.sortedness(np.array([1, 2, 2])) == (False, True)
    assert _sort.sortedness(np.array([1, 3, 2])) == (False, False)
    big = np.arange(200000)
    assert _sort.sortedness(big) == (True, True)
    big[150000] = big[150001]
    assert _sort.sortedness(big) == (False, True)
    big[100] = 10**9
    assert _sort.sortedness(big) == (False, False)
    assert _sort.sortedness(big.astype(np.int32)) == (False, False)
    assert _sort.sortedness(np.arange(200000, dtype=np.int32)) == (True, True)
    assert co.is_strictly_increasing(np.arange(5))
    assert not co.is_strictly_increasing(np.array([0, 0]))


# ---------------------------------------------------------------------------------------
# coalesce
# ---------------------------------------------------------------------------------------


def check_coalesce(keys, values):
    uk, uv = co.coalesce(keys, values)
    rk, rv, _ = group_reduce_ref(keys, values, "sum") if len(keys) else (
        np.empty(0, np.int64), values[:0], None)
    np.testing.assert_array_equal(uk, rk)
    assert uk.dtype == np.int64
    assert_same(uv, rv)
    assert np.all(np.diff(uk) > 0)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("m", [1, 3])
@pytest.mark.parametrize("n", [0, 1, 37])
def test_coalesce_small(n, m, dtype):
    rng = np.random.default_rng(n * 7 + m)
    keys = rng.integers(0, max(n // 2, 1), n)
    check_coalesce(keys, rand_values(rng, n, m, dtype))


@pytest.mark.parametrize("dtype", [np.float64, np.int64, np.bool_])
@pytest.mark.parametrize("m", [1, 3])
def test_coalesce_large(m, dtype):
    rng = np.random.default_rng(m)
    n = 60000
    keys = rng.integers(0, 10**11, n)
    keys[rng.integers(0, n, 3000)] = keys[rng.integers(0, n, 3000)]  # some duplicates
    check_coalesce(keys, rand_values(rng, n, m, dtype))


@pytest.mark.parametrize("n", [5, 50000])
def test_coalesce_orders(n):
    rng = np.random.default_rng(n)
    v = rand_values(rng, n, 2, np.float64)
    inc = np.arange(n, dtype=np.int64) * 3
    check_coalesce(inc, v)  # strictly increasing: copies
    uk, uv = co.coalesce(inc, v)
    assert not np.shares_memory(uk, inc) and not np.shares_memory(uv, v)
    check_coalesce(inc[::-1].copy(), v)  # reverse-sorted
    check_coalesce(np.sort(rng.integers(0, n // 2 + 1, n)), v)  # sorted with duplicates
    check_coalesce(np.full(n, 7, np.int64), v)  # all duplicates


def test_coalesce_deterministic_order():
    # the sum runs in input order: compare exactly with a sequential reference
    rng = np.random.default_rng(0)
    n = 50000
    keys = rng.integers(0, 100, n)
    v = (rng.standard_normal((n, 1)) * 10.0 ** rng.integers(-8, 8, (n, 1)))
    uk, uv = co.coalesce(keys, v)
    for t, k in enumerate(uk[:5]):
        s = 0.0
        for x in v[keys == k, 0]:
            s += x
        assert uv[t, 0] == s


def test_coalesce_errors():
    with pytest.raises(ValueError):
        co.coalesce(np.array([1, 2]), np.ones((3, 1)))
    with pytest.raises(ValueError):
        co.coalesce(np.array([1, 2]), np.ones(2))
    with pytest.raises(ValueError):
        co.coalesce(np.array([-1, 2]), np.ones((2, 1)))
    with pytest.raises(ValueError):
        co.coalesce(np.array([3, -1, 2]), np.ones((3, 1)))
    with pytest.raises(KernelDeclined):
        co.coalesce(np.array([1, 2]), np.ones((2, 1), np.float16))
    with pytest.raises(KernelDeclined):
        co.coalesce(np.array([1, 2]), np.ones((2, 1), object))


# ---------------------------------------------------------------------------------------
# merge_pattern / gather_with_fill
# ---------------------------------------------------------------------------------------


def merge_ref(ops, mode):
    if mode == "union":
        out = np.unique(np.concatenate(ops)) if ops else np.empty(0, np.int64)
    elif mode == "intersection":
        out = ops[0]
        for o in ops[1:]:
            out = np.intersect1d(out, o)
    else:
        out = ops[0]
    out = out.astype(np.int64)
    pos = np.full((len(ops), len(out)), -1, np.int64)
    for i, o in enumerate(ops):
        j = np.searchsorted(o, out)
        hit = j < len(o)
        hit[hit] = o[j[hit]] == out[hit]
        pos[i, hit] = j[hit]
    return out, pos


def make_ops(rng, sizes, space):
    return [np.unique(rng.integers(0, space, s)).astype(np.int64) for s in sizes]


def check_merge(ops, mode):
    offsets = np.concatenate([[0], np.cumsum([len(o) for o in ops])]).astype(np.int64)
    keys = np.concatenate(ops).astype(np.int64) if ops else np.empty(0, np.int64)
    out, pos = mg.merge_pattern(keys, offsets, mode)
    rout, rpos = merge_ref(ops, mode)
    np.testing.assert_array_equal(out, rout)
    np.testing.assert_array_equal(pos, rpos)
    assert out.dtype == np.int64 and pos.dtype == np.int64
    assert pos.shape == (len(ops), len(out))


@pytest.mark.parametrize("mode", ["union", "intersection", "left"])
@pytest.mark.parametrize(
    "sizes",
    [(0,), (5,), (0, 0), (10, 0), (0, 10), (20, 30), (0, 7, 9), (15, 40, 25), (3, 3, 3, 3)],
)
def test_merge_small(sizes, mode):
    rng = np.random.default_rng(sum(sizes) + len(sizes))
    check_merge(make_ops(rng, sizes, 60), mode)


@pytest.mark.parametrize("mode", ["union", "intersection", "left"])
@pytest.mark.parametrize("sizes", [(200000,), (150000, 120000), (100000, 5000, 90000)])
def test_merge_large(sizes, mode):
    rng = np.random.default_rng(len(sizes))
    check_merge(make_ops(rng, sizes, 400000), mode)


def test_merge_identical_and_disjoint():
    a = np.arange(0, 100000, 2, dtype=np.int64)
    for mode in ["union", "intersection", "left"]:
        check_merge([a, a.copy()], mode)
        check_merge([a, a + 1], mode)
        check_merge([a + 1, a, a[10:20]], mode)


def test_merge_errors():
    keys = np.array([1, 2, 3], np.int64)
    with pytest.raises(ValueError):
        mg.merge_pattern(keys, np.array([0, 3]), "xor")
    with pytest.raises(ValueError):
        mg.merge_pattern(keys, np.array([0, 2]), "union")  # does not end at len
    with pytest.raises(ValueError):
        mg.merge_pattern(keys, np.array([0]), "union")  # no operand
    with pytest.raises(ValueError):
        mg.merge_pattern(keys, np.array([0, 3, 2, 3]), "union")  # decreasing
    # unsorted operands: unspecified result, but it must return without crashing
    bad = np.random.default_rng(0).integers(0, 1000, 100000)
    mg.merge_pattern(bad, np.array([0, 50000, 100000]), "union")
    mg.merge_pattern(bad, np.array([0, 30000, 60000, 100000]), "intersection")


@pytest.mark.parametrize("dtype", ALL_DTYPES)
@pytest.mark.parametrize("m", [1, 3])
@pytest.mark.parametrize("n", [0, 1, 40])
def test_gather_with_fill(n, m, dtype):
    rng = np.random.default_rng(n + m)
    nse = max(n // 2, 1)
    values = rand_values(rng, nse, m, dtype)
    pos = rng.integers(-1, nse, n)
    fill = rand_values(rng, 1, m, dtype)[0]
    out = mg.gather_with_fill(values, pos, fill)
    ref = np.where((pos >= 0)[:, None], values[np.maximum(pos, 0)], fill[None, :])
    assert out.dtype == values.dtype and out.shape == (n, m)
    np.testing.assert_array_equal(out, ref)


def test_gather_large_and_nan_fill():
    rng = np.random.default_rng(1)
    values = rng.standard_normal((70000, 1))
    pos = rng.integers(-1, 70000, 100000)
    out = mg.gather_with_fill(values, pos, np.array([np.nan]))
    ref = np.where((pos >= 0)[:, None], values[np.maximum(pos, 0)], np.nan)
    np.testing.assert_array_equal(out, ref)
    out = mg.gather_with_fill(values.astype(np.float32), pos, 0.0)  # scalar fill
    assert out.dtype == np.float32


def test_gather_errors():
    v = np.ones((4, 2))
    with pytest.raises(ValueError):
        mg.gather_with_fill(v, np.array([0, 4]), np.zeros(2))
    with pytest.raises(ValueError):
        mg.gather_with_fill(v, np.array([0, -2]), np.zeros(2))
    with pytest.raises(ValueError):
        mg.gather_with_fill(v, np.array([0, 1]), np.zeros(3))
    with pytest.raises(ValueError):
        mg.gather_with_fill(v[0], np.array([0, 1]), np.zeros(2))
    with pytest.raises(ValueError):
        mg.gather_with_fill(np.ones((0, 2)), np.array([0]), np.zeros(2))
    with pytest.raises(KernelDeclined):
        mg.gather_with_fill(v.astype(np.float16), np.array([0]), np.zeros(2, np.float16))


# ---------------------------------------------------------------------------------------
# group_reduce
# ---------------------------------------------------------------------------------------


def check_group(keys, values, nkeys, op):
    """group_reduce against the reference, with the keys as given and, where they fit, as int32
    (the dense path reads int32 keys as they are)."""
    if len(keys):
        rk, racc, rcnt = group_reduce_ref(keys, values, op)
    else:
        rk, racc, rcnt = (np.empty(0, np.int64), values[:0], np.empty(0, np.int64))
    fits = not len(keys) or int(np.max(keys)) < 2**31
    for k in (keys, keys.astype(np.int32)) if fits else (keys,):
        uk, acc, cnt = gr.group_reduce(k, values, nkeys, op)
        np.testing.assert_array_equal(uk, rk)
        np.testing.assert_array_equal(cnt, rcnt)
        assert uk.dtype == np.int64 and cnt.dtype == np.int64
        assert_same(acc, racc)


OPS = ["sum", "prod", "max", "min"]


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("m", [1, 3])
@pytest.mark.parametrize("n", [0, 1, 50])
@pytest.mark.parametrize("nkeys", [7, 10**12])  # dense path / sort path
def test_group_reduce_small(nkeys, n, m, dtype):
    rng = np.random.default_rng(n + m)
    keys = rng.integers(0, min(nkeys, 9), n)
    values = rand_values(rng, n, m, dtype, nan=True)
    for op in OPS:
        if dtype == np.bool_ and op in ("sum", "prod"):
            with pytest.raises(KernelDeclined):
                gr.group_reduce(keys, values, nkeys, op)
            continue
        check_group(keys, values, nkeys, op)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("nrows,n", [(0, 0), (5, 0), (1, 7), (9, 40), (3000, 70000)])
def test_group_reduce_rows_equals_keyed_reduction(nrows, n, dtype):
    """Runs between CSR-style pointers give group_reduce's result for the expanded keys, bit for
    bit (both reduce each run left to right), empty runs left out; and the generic twin agrees."""
    import array_api_compat.numpy as xnp

    from sparray._engine.segments import group_reduce_rows_generic

    rng = np.random.default_rng(nrows + n)
    keys = np.sort(rng.integers(0, max(nrows, 1), n)) if nrows else np.zeros(0, np.int64)
    offsets = np.searchsorted(keys, np.arange(nrows + 1)).astype(np.int32 if nrows % 2 else np.int64)
    values = rand_values(rng, n, 2, dtype, nan=True)
    for op in OPS:
        if dtype == np.bool_ and op in ("sum", "prod"):
            with pytest.raises(KernelDeclined):
                gr.group_reduce_rows(offsets, values, op)
            continue
        runs, acc, cnt = gr.group_reduce_rows(offsets, values, op)
        uk, racc, rcnt = gr.group_reduce(keys, values, max(nrows, 1), op)
        np.testing.assert_array_equal(runs, uk)
        np.testing.assert_array_equal(cnt, rcnt)
        assert runs.dtype == cnt.dtype == np.int64 and acc.dtype == values.dtype
        assert_same(acc, racc)
        g = group_reduce_rows_generic(xnp, offsets, values, op)
        np.testing.assert_array_equal(g[0], runs)
        assert_same(g[1], acc)


def test_group_reduce_rows_bad_pointers():
    v = np.ones((3, 1))
    with pytest.raises(ValueError, match="non-decreasing: offsets\\[2\\] = 1 < offsets\\[1\\] = 2"):
        gr.group_reduce_rows(np.array([0, 2, 1, 3]), v, "sum")
    with pytest.raises(ValueError, match="from 0 to len\\(values\\) = 3"):
        gr.group_reduce_rows(np.array([0, 2, 4]), v, "sum")
    with pytest.raises(ValueError, match="at least one element"):
        gr.group_reduce_rows(np.zeros(0, np.int64), v, "sum")
    with pytest.raises(ValueError, match="op must be one of"):
        gr.group_reduce_rows(np.array([0, 3]), v, "mean")


@pytest.mark.parametrize("op", OPS)
@pytest.mark.parametrize("nkeys", [1000, 10**12])
def test_group_reduce_large(nkeys, op):
    rng = np.random.default_rng(3)
    n = 60000
    keys = rng.integers(0, min(nkeys, 10**9), n)
    values = rand_values(rng, n, 1, np.float64, nan=op in ("max", "min"))
    if op == "prod":
        values = 1.0 + 0.01 * values
    check_group(keys, values, nkeys, op)


@pytest.mark.parametrize("op", ["sum", "max"])
def test_group_reduce_int64_m3_large(op):
    rng = np.random.default_rng(4)
    n = 50000
    keys = rng.integers(0, 3000, n)
    check_group(keys, rand_values(rng, n, 3, np.int64), 3000, op)


@pytest.mark.parametrize("op", ["sum", "min"])
def test_group_reduce_orders(op):
    rng = np.random.default_rng(5)
    n = 40000
    v = rand_values(rng, n, 2, np.float64, nan=True)
    for keys in [
        np.sort(rng.integers(0, 5000, n)),  # sorted
        np.sort(rng.integers(0, 5000, n))[::-1].copy(),  # reverse-sorted
        np.full(n, 17, np.int64),  # all duplicates
        np.arange(n, dtype=np.int64),  # strictly increasing
    ]:
        check_group(keys, v, 10**6, op)
        check_group(keys, v, 10**13, op)


def test_group_reduce_complex_lexicographic():
    keys = np.array([0, 0, 0, 1, 1, 2, 2])
    v = np.array([[1 + 5j], [2 + 0j], [2 - 1j], [3 + 1j], [3 + 2j], [1j], [complex(np.nan, 0)]])
    for op, uf in [("max", np.maximum), ("min", np.minimum)]:
        for nkeys in (3, 10**12):
            uk, acc, _ = gr.group_reduce(keys, v, nkeys, op)
            ref = np.array([[uf.reduce(v[keys == k, 0])] for k in range(3)])
            np.testing.assert_array_equal(acc, ref)


@pytest.mark.parametrize("dtype", [np.float64, np.int64, np.uint64, np.complex128])
@pytest.mark.parametrize("op", OPS)
@pytest.mark.parametrize("nch,outliers", [(2, 0), (3, 7), (5, 300)])
def test_group_reduce_banded_owned_windows(dtype, op, nch, outliers):
    """Banded keys through the dense path's owned windows (one accumulator, overlaps through
    scratch, stray keys through the spill list or, with room for 16, the rescan), on 2-5 chunks
    whatever the thread count: the present keys, counts and results of the reference; and
    through group_reduce itself, int32 and int64 keys."""
    from sparray.kernels.cpu import _banded

    rng = np.random.default_rng(nch + outliers)
    n = 200_000
    nkeys = n // 5
    keys = np.clip(np.arange(n) // 5 + rng.integers(-40, 41, n), 0, nkeys - 1)
    keys[rng.choice(n, outliers, replace=False)] = rng.integers(0, nkeys, outliers)
    values = rand_values(rng, n, 1, dtype, nan=op in ("max", "min"))
    if op == "prod" and values.dtype.kind in "fc":
        values = 1.0 + 0.01 * values
    rk, racc, rcnt = group_reduce_ref(keys, values, op)
    zones, size = _banded.banded_plan(keys, nkeys, nch)
    vv = gr.value_view(values)
    for spill in (4096, 16):
        part = np.full((nkeys, 2), 7, vv.dtype)  # the kernel sets every cell itself
        bad = gr._dense_fold_owned(keys.astype(np.int32), vv.reshape(n), nkeys, gr.OP_CODES[op], part, zones,
                                   np.empty((max(size, 1), 2), vv.dtype), np.empty((nch, spill), np.int64),
                                   gr._identity(op, vv.dtype, values.dtype))
        assert bad == 0
        counts = part[:, 1].real.astype(np.int64)
        np.testing.assert_array_equal(np.flatnonzero(counts), rk)
        np.testing.assert_array_equal(counts[rk], rcnt)
        assert_same(part[rk, :1], racc)
    check_group(keys, values, nkeys, op)


def test_group_reduce_banded_counts_bad_keys(monkeypatch):
    """Out-of-range keys in a banded pattern (negative ones wrap past every window) are counted
    by the owned-window fold and raise from group_reduce, never used as addresses: through the
    kernel directly, and through group_reduce on keys shuffled within blocks of 1000 rows (banded
    but unsorted, so the public call takes the banded path; a spy on the plan checks it did)."""
    import numba

    from sparray.kernels.cpu import _banded

    n, nkeys = 200_000, 40_000
    keys = np.clip(np.arange(n) // 5, 0, nkeys - 1)
    zones, size = _banded.banded_plan(keys, nkeys, 3)
    shuffled = keys.reshape(-1, 1000)[:, np.random.default_rng(8).permutation(1000)].ravel()
    plans = []
    monkeypatch.setattr(gr, "banded_plan", lambda *a: plans.append(_banded.banded_plan(*a)) or plans[-1])
    threads = min(2, numba.config.NUMBA_NUM_THREADS)
    old = numba.get_num_threads()
    numba.set_num_threads(threads)
    try:
        for where in (0, 66_666, n - 1):
            for bad in (-1, nkeys, -(2**40), 2**62):
                k = keys.copy()
                k[where] = bad
                part = np.empty((nkeys, 2))
                count = gr._dense_fold_owned(k, np.ones(n), nkeys, 2, part, zones, np.empty((max(size, 1), 2)),
                                             np.empty((3, 4096), np.int64), -np.inf)
                assert count == 1
                k = shuffled.copy()
                k[where] = bad
                plans.clear()
                with pytest.raises(ValueError, match="outside|must lie"):
                    gr.group_reduce(k, np.ones((n, 1)), nkeys, "max")
                if threads > 1:
                    assert plans and plans[0] is not None, (where, bad)
    finally:
        numba.set_num_threads(old)


def test_group_reduce_errors():
    with pytest.raises(ValueError):
        gr.group_reduce(np.array([0, 5]), np.ones((2, 1)), 5, "sum")  # dense path
    with pytest.raises(ValueError):
        gr.group_reduce(np.array([5, 0]), np.ones((2, 1)), 5, "sum")
    with pytest.raises(ValueError):
        gr.group_reduce(np.array([0, 5]), np.ones((2, 1)), 5, "sum")  # sorted path
    with pytest.raises(ValueError):
        gr.group_reduce(np.array([-1, 2]), np.ones((2, 1)), 10**12, "sum")
    for bad in (-1, 5, 2**31 - 1, -(2**31)):  # int32 keys: negative ones never wrap to an address
        for n in (2, 100_000):
            keys = np.zeros(n, np.int32)
            keys[n // 2] = bad
            with pytest.raises(ValueError, match="outside|must lie"):
                gr.group_reduce(keys, np.ones((n, 1)), 5, "max")
    with pytest.raises(ValueError):
        gr.group_reduce(np.array([0, 1]), np.ones((3, 1)), 5, "sum")
    with pytest.raises(ValueError):
        gr.group_reduce(np.array([0, 1]), np.ones((2, 1)), 5, "mean")
    with pytest.raises(KernelDeclined):
        gr.group_reduce(np.array([0, 1]), np.ones((2, 1), np.float16), 5, "sum")
    with pytest.raises(KernelDeclined):
        gr.group_reduce(np.array([0, 1]), np.ones((2, 1), bool), 5, "sum")


# ---- binary.merge_apply (fused merge + op) and scatter.scatter_sum ---------------------------


def _ref_merge_apply(ka, va, fa, kb, vb, fb, mode, op):
    f = {"add": np.add, "subtract": np.subtract, "multiply": np.multiply, "divide": np.divide,
         "maximum": np.maximum, "minimum": np.minimum}[op]  # fmt: skip
    keys = {"union": np.union1d(ka, kb), "intersection": np.intersect1d(ka, kb), "left": ka, "right": kb}[mode]

    def gathered(k, v, fill):  # v at the keys present in k, fill elsewhere
        pos = np.minimum(np.searchsorted(k, keys), max(len(k) - 1, 0))
        present = (k[pos] == keys)[:, None] if len(k) else np.zeros((len(keys), 1), bool)
        return np.where(present, v[pos] if len(k) else fill, fill)

    return keys, f(gathered(ka, va, fa), gathered(kb, vb, fb))


@pytest.mark.parametrize("mode", list(FUSED_MODES))
@pytest.mark.parametrize("op", list(FUSED_OPS))
@pytest.mark.parametrize("na,nb", [(0, 0), (0, 5), (7, 0), (40, 30), (3000, 2000), (40000, 50000)])
@pytest.mark.parametrize("shape,m", [((60, 70), 2), ((60, 70), 1), ((4200,), 1), ((6, 10, 70), 1)])
def test_merge_apply_matches_reference(mode, op, na, nb, shape, m):
    """Scalar values over 1 or 2 sparse dims take the specialised 2-d kernels, the rest the generic
    ones; 90000 entries split into several interleaved chunks."""
    rng = np.random.default_rng(na * 7 + nb)
    size = max(4200, 2 * (na + nb))
    shape = shape if size == 4200 else tuple(d * (size // 4200) if k == 0 else d for k, d in enumerate(shape))
    size = int(np.prod(shape))
    ka = np.sort(rng.choice(size, size=na, replace=False)).astype(np.int64)
    kb = np.sort(rng.choice(size, size=nb, replace=False)).astype(np.int64)
    kb[: nb // 3] = np.sort(rng.choice(ka, size=min(na, nb // 3), replace=False)) if na else kb[: nb // 3]
    kb = np.unique(kb)
    nb = len(kb)
    va, vb = rng.standard_normal((na, m)), rng.standard_normal((nb, m))
    va[::5, 0] = np.nan
    fa, fb = np.array([0.5, np.nan])[:m], np.array([2.0, -1.0])[:m]
    idx_a = np.array(np.unravel_index(ka, shape), dtype=np.int32).reshape(len(shape), na)
    idx_b = np.array(np.unravel_index(kb, shape), dtype=np.int32).reshape(len(shape), nb)
    with np.errstate(all="ignore"):
        out_idx, out_vals = merge_apply(idx_a, va, fa, idx_b, vb, fb, shape, mode, op)
        keys, ref = _ref_merge_apply(ka, va, fa, kb, vb, fb, mode, op)
    assert out_idx.dtype == np.int32 and out_idx.shape == (len(shape), len(keys))
    np.testing.assert_array_equal(np.ravel_multi_index(tuple(out_idx), shape) if len(keys) else keys, keys)
    np.testing.assert_array_equal(out_vals, ref)


@pytest.mark.parametrize("dtype", ["int32", "int64", "float32", "float64"])
def test_merge_apply_dtypes_and_mixed_index_widths(dtype):
    idx_a = np.array([[0, 2, 5]], dtype=np.int32)
    idx_b = np.array([[2, 3]], dtype=np.int64)
    va = np.array([[1], [2], [3]], dtype=dtype)
    vb = np.array([[10], [20]], dtype=dtype)
    out_idx, out_vals = merge_apply(idx_a, va, np.zeros(1, dtype), idx_b, vb, np.ones(1, dtype), (6,), "union", "add")
    assert out_idx.dtype == np.int64 and out_vals.dtype == np.dtype(dtype)
    assert out_idx.tolist() == [[0, 2, 3, 5]] and out_vals.ravel().tolist() == [2, 12, 20, 4]


def test_merge_apply_declines_and_rejects():
    idx = np.array([[0, 1]])
    with pytest.raises(KernelDeclined):
        merge_apply(idx, np.ones((2, 1), bool), np.ones(1, bool), idx, np.ones((2, 1), bool), np.ones(1, bool), (2,), "union", "add")
    with pytest.raises(KernelDeclined):
        merge_apply(idx, np.ones((2, 1), np.int64), np.ones(1, np.int64), idx, np.ones((2, 1), np.int64), np.ones(1, np.int64), (2,), "union", "divide")
    with pytest.raises(KernelDeclined):
        merge_apply(idx, np.ones((2, 1)), np.ones(1), idx, np.ones((2, 1)), np.ones(1), (2,), "union", "atan2")
    with pytest.raises(KernelDeclined):
        c = np.ones((2, 1), complex)
        merge_apply(idx, c, np.ones(1, complex), idx, c, np.ones(1, complex), (2,), "union", "add")
    with pytest.raises(ValueError):
        merge_apply(idx, np.ones((3, 1)), np.ones(1), idx, np.ones((2, 1)), np.ones(1), (2,), "union", "add")


def _random_compressed(rng, nmajor, nminor, density, share=None):
    """Row pointers and sorted plain indices; with ``share`` (ptr, minor), about a third of the
    entries are taken from it, so that two operands overlap."""
    mask = rng.random((nmajor, nminor)) < density
    if share is not None:
        ptr, minor = share
        rows = np.repeat(np.arange(nmajor), np.diff(ptr))
        keep = rng.random(len(minor)) < 0.33
        mask[rows[keep], minor[keep]] = True
    counts = mask.sum(axis=1)
    ptr = np.zeros(nmajor + 1, np.int64)
    np.cumsum(counts, out=ptr[1:])
    return ptr, np.nonzero(mask)[1].astype(np.int64)


@pytest.mark.parametrize("mode", list(FUSED_MODES))
@pytest.mark.parametrize("op", list(FUSED_OPS))
@pytest.mark.parametrize("nmajor,nminor,density", [(0, 5, 0.5), (1, 1, 1.0), (7, 0, 0.5), (30, 40, 0.2),
                                                   (300, 1000, 0.15), (3, 120000, 0.3)])
@pytest.mark.parametrize("m", [1, 2])
def test_merge_apply_rows_matches_generic(mode, op, nmajor, nminor, density, m):
    """The row-by-row kernel against the registry's generic path (COO merge + compress); the large
    cases split into several chunks, the last one into chunks of fewer rows than chunks."""
    from sparray._functions.elementwise import _merge_apply_rows_general

    rng = np.random.default_rng(nmajor * 31 + nminor + m)
    ptr_a, minor_a = _random_compressed(rng, nmajor, nminor, density)
    ptr_b, minor_b = _random_compressed(rng, nmajor, nminor, density, share=(ptr_a, minor_a))
    va, vb = rng.standard_normal((len(minor_a), m)), rng.standard_normal((len(minor_b), m))
    va[::7, 0] = np.nan
    fa, fb = np.array([0.5, np.nan])[:m], np.array([2.0, -1.0])[:m]
    for idt_a, idt_b in ((np.int32, np.int32), (np.int64, np.int32)):
        args = (ptr_a.astype(idt_a), minor_a.astype(idt_a), va, fa, ptr_b.astype(idt_b), minor_b.astype(idt_b), vb, fb,
                nminor, mode, op)
        with np.errstate(all="ignore"):
            ptr, minor, vals = merge_apply_rows(*args)
            rptr, rminor, rvals = _merge_apply_rows_general(np, *args)
        want = np.int32 if idt_a == idt_b == np.int32 else np.int64
        assert ptr.dtype == minor.dtype == rptr.dtype == want
        np.testing.assert_array_equal(ptr, rptr)
        np.testing.assert_array_equal(minor, rminor)
        np.testing.assert_array_equal(vals, rvals)


def test_merge_apply_rows_declines_and_rejects():
    ptr, minor = np.array([0, 2]), np.array([0, 1])
    ones = np.ones((2, 1))
    with pytest.raises(KernelDeclined):
        merge_apply_rows(ptr, minor, ones.astype(bool), True, ptr, minor, ones.astype(bool), True, 2, "union", "add")
    with pytest.raises(KernelDeclined):
        merge_apply_rows(ptr, minor, ones, 0.0, ptr, minor, ones, 0.0, 2, "union", "atan2")
    with pytest.raises(KernelDeclined):
        i64 = ones.astype(np.int64)
        merge_apply_rows(ptr, minor, i64, 0, ptr, minor, i64, 0, 2, "union", "divide")
    with pytest.raises(ValueError, match="compressed indices"):
        merge_apply_rows(ptr, minor, ones, 0.0, np.array([0, 1, 2]), minor, ones, 0.0, 2, "union", "add")
    with pytest.raises(ValueError, match="do not match"):
        merge_apply_rows(ptr, minor, np.ones((3, 1)), 0.0, ptr, minor, ones, 0.0, 2, "union", "add")


@pytest.mark.parametrize("dtype", ["int64", "float64", "complex128", "float32"])
@pytest.mark.parametrize("n,nkeys,m", [(0, 5, 1), (1, 1, 1), (100, 7, 3), (200_000, 1000, 1), (200_000, 1000, 2), (50_000, 200_000, 2)])
def test_scatter_sum_matches_add_at(dtype, n, nkeys, m):
    rng = np.random.default_rng(n + nkeys)
    keys = rng.integers(0, nkeys, size=n)
    values = rng.integers(-5, 5, size=(n, m)).astype(dtype)
    expected = np.zeros((nkeys, m), dtype=dtype)
    np.add.at(expected, keys, values)
    np.testing.assert_allclose(scatter_sum(keys, values, nkeys), expected)
    np.testing.assert_allclose(scatter_sum(keys.astype(np.int32), values, nkeys), expected)


@pytest.mark.parametrize("m", [1, 3])
def test_scatter_sum_counts_bad_keys_anywhere(m):
    """Out-of-range keys (huge, negative) at the start, the end, chunk edges and inside the
    prefetch distance are reported, never used as addresses."""
    rng = np.random.default_rng(5)
    n = 200_000
    keys = rng.integers(0, 1000, n)
    for p, bad in ((0, -1), (n - 1, 10**15), (n // 2, 1000), (n - 5, -(10**12)), (n // 2 - 1, 2**62)):
        k = keys.copy()
        k[p] = bad
        with pytest.raises(ValueError, match="1 keys outside"):
            scatter_sum(k, np.ones((n, m)), 1000)


@pytest.mark.parametrize("dtype", ["int64", "float64", "complex128"])
@pytest.mark.parametrize(
    "n,nkeys,maxrun",
    [(1, 1, 1), (3, 10, 2), (7, 3, 7), (200_003, 50_000, 9), (200_000, 7, 200_000), (300_001, 10**6, 1)],
)
def test_scatter_sum_sorted_hint_matches_add_at(dtype, n, nkeys, maxrun):
    """Sorted keys (runs of 1..maxrun, so runs cross every stream and chunk edge; one key for the
    whole input in one case) through the streaming pass, with int32 and int64 keys."""
    rng = np.random.default_rng(n + nkeys)
    runs = rng.integers(1, maxrun + 1, size=n)
    keys = np.sort(rng.choice(nkeys, size=min(n, nkeys), replace=False))
    keys = np.repeat(keys, runs[: keys.size])[:n]
    keys = np.concatenate([keys, np.full(n - keys.size, keys[-1])]) if keys.size < n else keys
    values = rng.integers(-5, 5, size=(n, 1)).astype(dtype)
    expected = np.zeros((nkeys, 1), dtype=dtype)
    np.add.at(expected, keys, values)
    for k in (keys, keys.astype(np.int32)):
        np.testing.assert_array_equal(scatter_sum(k, values, nkeys, sorted_keys=True), expected)


@pytest.mark.parametrize("where", [0, 1, 49_999, 50_000, 100_000, 199_999])
def test_scatter_sum_sorted_hint_wrong_or_bad_keys(where):
    """A wrong hint (a decrease anywhere, at stream and chunk edges too) still gives the right
    sums; an out-of-range key still raises, never used as an address."""
    n, nkeys = 200_000, 1000
    keys = np.sort(np.random.default_rng(where).integers(0, nkeys, n))
    values = np.ones((n, 1))
    k = keys.copy()
    k[where] = (k[where] + 500) % nkeys if where else nkeys - 1  # out of order
    expected = np.bincount(k, minlength=nkeys).reshape(nkeys, 1).astype(float)
    np.testing.assert_array_equal(scatter_sum(k, values, nkeys, sorted_keys=True), expected)
    for bad in (-1, nkeys, 2**62):
        k = keys.copy()
        k[where] = bad
        with pytest.raises(ValueError, match="1 keys outside"):
            scatter_sum(k, values, nkeys, sorted_keys=True)


def _stencil_keys(n, rng):
    """The column indices of a banded matrix, row after row (five a row, within 40 of the diagonal)."""
    rows = np.arange(n) // 5
    return np.clip(rows + rng.integers(-40, 41, n), 0, n // 5 - 1)


def _scatter_banded(keys, values, nkeys, nchunks, spill=4096):
    """The banded kernel on ``nchunks`` chunks (whatever the thread count), each setting aside up
    to ``spill`` keys outside its window: (sums, bad-key count)."""
    from sparray.kernels.cpu import _banded, scatter

    plan = _banded.banded_plan(keys, nkeys, nchunks)
    assert plan is not None, "a banded pattern should get owned windows"
    zones, size = plan
    assert (zones[:, 0] <= zones[:, 1]).all() and (zones[:, 1] <= zones[:, 2]).all() and (zones[:, 2] <= zones[:, 3]).all()
    owned = sorted((int(lo), int(hi)) for lo, hi in zones[:, 1:3] if hi > lo)
    assert all(a[1] <= b[0] for a, b in zip(owned, owned[1:])), f"owned parts overlap: {owned}"
    cells = zones[:, 5:7]
    assert cells[0, 0] == 0 and cells[-1, 1] == nkeys and (cells[1:, 0] == cells[:-1, 1]).all(), f"cells {cells.tolist()}"
    assert ((zones[:, 1] == zones[:, 2]) | ((cells[:, 0] <= zones[:, 1]) & (zones[:, 2] <= cells[:, 1]))).all()
    out = np.full(nkeys, 7, values.dtype)  # the kernel zeroes it, cell by cell
    spill = np.empty((nchunks, spill), np.int64)
    bad = scatter._scatter_banded(keys, values, nkeys, out, zones, np.empty(max(size, 1), values.dtype), spill)
    return out, bad


@pytest.mark.parametrize("dtype", ["int64", "float64", "complex128"])
@pytest.mark.parametrize("nchunks", [2, 3, 5])
@pytest.mark.parametrize("outliers", [0, 7, 300])
def test_scatter_sum_banded_owned_windows(dtype, nchunks, outliers):
    """Banded keys through chunks that own disjoint windows: keys in the overlaps go through
    scratch, stray keys far outside their chunk's window through the spill list or, with room
    for only 16 set aside, through the rescan of the chunk; every way matches np.add.at, int32
    and int64 keys."""
    rng = np.random.default_rng(nchunks + outliers)
    n = 200_000
    keys = _stencil_keys(n, rng)
    nkeys = n // 5
    where = rng.choice(n, outliers, replace=False)
    keys[where] = rng.integers(0, nkeys, outliers)
    values = rng.integers(-5, 5, n).astype(dtype)
    expected = np.zeros(nkeys, dtype)
    np.add.at(expected, keys, values)
    for k in (keys, keys.astype(np.int32)):
        for spill in (4096, 16):
            out, bad = _scatter_banded(k, values, nkeys, nchunks, spill)
            assert bad == 0
            np.testing.assert_array_equal(out, expected)
        np.testing.assert_array_equal(scatter_sum(k, values.reshape(n, 1), nkeys).ravel(), expected)


@pytest.mark.parametrize("where", [0, 1, 66_666, 100_000, 199_999])
def test_scatter_sum_banded_counts_bad_keys(where):
    """Out-of-range keys in a banded pattern are counted by the banded kernel, never used as
    addresses (negative ones wrap past every window), and scatter_sum raises."""
    keys = _stencil_keys(200_000, np.random.default_rng(where))
    for bad in (-1, 40_000, -(2**40), 2**62):
        k = keys.copy()
        k[where] = bad
        _, count = _scatter_banded(k, np.ones(k.size), 40_000, 3)
        assert count == 1
        with pytest.raises(ValueError, match="1 keys outside"):
            scatter_sum(k, np.ones((k.size, 1)), 40_000)


def test_scatter_sum_banded_plan_declines_spread_keys():
    """Keys spread over the whole range give every chunk the whole window: no banded plan."""
    from sparray.kernels.cpu import _banded

    keys = np.random.default_rng(0).integers(0, 100_000, 200_000)
    assert _banded.banded_plan(keys, 100_000, 2) is None
    assert _banded.banded_plan(np.sort(keys), 100_000, 2) is not None  # sorted: each chunk its own half


def test_scatter_sum_rejects_out_of_range_keys():
    with pytest.raises(ValueError, match="outside"):
        scatter_sum(np.array([0, 5]), np.ones((2, 1)), 5)
    with pytest.raises(ValueError, match="outside"):
        scatter_sum(np.array([-1]), np.ones((1, 1)), 5)
    with pytest.raises(KernelDeclined):
        scatter_sum(np.array([0]), np.ones((1, 1), bool), 5)


# ---- scatter.nonzero_rows --------------------------------------------------------------------------


@pytest.mark.parametrize("dtype", ["float64", "float32", "int64", "uint32", "complex128", "bool"])
@pytest.mark.parametrize("n,m,zero_share", [(0, 1, 0.5), (1, 1, 1.0), (7, 3, 0.5), (5, 0, 0.0), (300_000, 1, 0.8),
                                            (300_000, 1, 0.97), (300_000, 1, 0.9999), (300_000, 1, 1e-4),
                                            (300_001, 2, 0.3), (200_000, 1, 0.0)])
def test_nonzero_rows_matches_numpy(dtype, n, m, zero_share):
    """Zero rows anywhere (runs across the kernel's slices, a few or most of them: 0.97 and more
    send slices through the gather's branch per element); a row stays if any of its values is
    non-zero; with none to drop, the input itself comes back."""
    rng = np.random.default_rng(n + m)
    dense = rng.integers(1, 5, size=(n, m)).astype(dtype)
    zero = rng.random(n) < zero_share
    zero[n // 3 : n // 3 + 1000] = zero_share > 0.5  # a run of zero rows, or of kept ones
    dense[zero] = 0
    if m > 1:
        dense[::7, 0] = 0  # a row with one zero value is still non-zero
    keep = np.flatnonzero((dense != 0).any(axis=1))
    keys, rows = nonzero_rows(dense)
    assert keys.dtype == np.int64 and rows.dtype == dense.dtype and rows.shape == (len(keep), m)
    np.testing.assert_array_equal(keys, keep)
    np.testing.assert_array_equal(rows, dense[keep])
    if len(keep) == n:
        assert rows is dense or n == 0


def test_nonzero_rows_nan_and_signed_zero():
    dense = np.array([[0.0], [np.nan], [-0.0], [np.inf], [0.0]])
    keys, rows = nonzero_rows(dense)
    assert keys.tolist() == [1, 3] and np.isnan(rows[0, 0]) and rows[1, 0] == np.inf
    c = np.array([[0j], [1j], [0 + 0j]])
    assert nonzero_rows(c)[0].tolist() == [1]


def test_nonzero_rows_rejects_bad_input():
    with pytest.raises(ValueError, match="2-d"):
        nonzero_rows(np.zeros(3))
    with pytest.raises(KernelDeclined):
        nonzero_rows(np.zeros((3, 1), np.float16))


# ---- finite.all_finite ------------------------------------------------------------------------


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.complex64, np.complex128])
@pytest.mark.parametrize("n", [1, 3, 17, 1000, 100_003])
def test_all_finite_finds_every_position(dtype, n):
    """inf, -inf and nan (in the real or the imaginary part) at the first, last and chunk-edge
    positions; huge finite values whose sum overflows still count as finite."""
    from sparray.kernels.cpu.finite import all_finite

    x = np.full(n, np.finfo(np.float32).max / 2, dtype=dtype)
    assert all_finite(x) and all_finite(x.reshape(n, 1))
    edges = {0, n - 1, n // 16, n // 2, 15 * n // 16}
    for p in sorted(edges):
        for bad in (np.inf, -np.inf, np.nan):
            y = x.copy()
            y[p] = bad
            assert not all_finite(y), (p, bad)
            if np.dtype(dtype).kind == "c":
                y = x.copy()
                y[p] = complex(1.0, bad)
                assert not all_finite(y), (p, bad, "imag")


def test_all_finite_other_dtypes_and_layouts():
    from sparray.kernels import KernelDeclined
    from sparray.kernels.cpu.finite import all_finite

    assert all_finite(np.arange(5)) and all_finite(np.ones(3, bool))
    with pytest.raises(KernelDeclined):
        all_finite(np.ones((4, 4))[:, ::2])
    with pytest.raises(KernelDeclined):
        all_finite(np.ones(3, np.float16))


def test_merge_apply_rows_cuts_long_rows_by_entries():
    """A row holding most entries (a power-law hub) is cut into chunks of about equal work on the
    merge path, no boundary between equal keys of A and B; the result equals the generic path in
    every mode, with one run of chunks per thread."""
    from sparray._functions.elementwise import _merge_apply_rows_general
    from sparray.kernels.cpu.binary_rows import _merge_splits

    rng = np.random.default_rng(8)
    nmajor, nminor = 40, 300_000

    def operand(hub):
        counts = rng.integers(0, 5, nmajor)
        counts[3] = hub
        minor = np.concatenate([np.sort(rng.choice(nminor, c, replace=False)) for c in counts])
        ptr = np.zeros(nmajor + 1, np.int64)
        np.cumsum(counts, out=ptr[1:])
        return ptr, minor.astype(np.int64)

    pa, ma = operand(120_000)
    pb, mb = operand(90_000)
    a, b, r = _merge_splits(pa.astype(np.int32), ma.astype(np.int32), pb.astype(np.int32), mb.astype(np.int32), 8)
    work = np.diff(a) + np.diff(b)
    assert work.sum() == len(ma) + len(mb) and work.max() <= (len(ma) + len(mb)) / 8 * 1.01 + 2
    assert (r[1:-1] == 3).sum() >= 6  # most boundaries fall inside the hub row
    for c in range(1, 8):  # no key of A equal to a key of B across a boundary
        rows_a, rows_b = np.searchsorted(pa, a[c], "right") - 1, np.searchsorted(pb, b[c], "right") - 1
        if 0 < a[c] < len(ma) and 0 < b[c] < len(mb):
            assert (rows_a, ma[a[c]]) != (rows_b, mb[b[c] - 1]) and (rows_b, mb[b[c]]) != (rows_a, ma[a[c] - 1])
    va, vb = rng.standard_normal((len(ma), 1)), rng.standard_normal((len(mb), 1))
    for mode in ("union", "intersection", "left"):
        args = (pa.astype(np.int32), ma.astype(np.int32), va, np.zeros(1), pb.astype(np.int32), mb.astype(np.int32), vb,
                np.ones(1), nminor, mode, "subtract")
        got, want = merge_apply_rows(*args), _merge_apply_rows_general(np, *args)
        for g, w in zip(got, want):
            np.testing.assert_array_equal(g, w)
