"""group_reduce, scatter_sum and nonzero_rows on the CUDA backend (kernels/cuda/group_reduce.cu, scatter.cu),
emulated in CI, on CuPy where a GPU is: compared with the numba kernels and with dense NumPy."""

import numpy as np
import pytest

from cuda_testing import (DEVICES, INDEX_DTYPES, NUMBA_DTYPES, VALUE_DTYPES, random_values, ref_group_reduce_rows,
                          requires_gxx, skewed_keys, to_device, to_host)
from sparray_testing import group_reduce_ref
from sparray.kernels import KernelDeclined
from sparray.kernels.cpu.group_reduce import group_reduce as cpu_group_reduce
from sparray.kernels.cpu.scatter import nonzero_rows as cpu_nonzero_rows
from sparray.kernels.cpu.scatter import scatter_sum as cpu_scatter_sum
from sparray.kernels.cpu.group_reduce import group_reduce_rows as cpu_group_reduce_rows
from sparray.kernels.cuda.group_reduce import group_reduce, group_reduce_rows, reduce_runs
from sparray.kernels.cuda.scatter import DTYPES as SCATTER_DTYPES
from sparray.kernels.cuda.scatter import nonzero_rows, scatter_sum

pytestmark = requires_gxx

OPS = ("sum", "prod", "max", "min")
# (n, nkeys, m, sorted keys): empty, one row, few skewed keys over several blocks of the emulator's
# grid (the numba dense path), many keys (its sort path), keys already sorted (CSR rows), no columns
CASES = [(0, 5, 1, False), (1, 1, 2, False), (257, 9, 2, False), (150, 10**6, 1, False),
         (120, 30, 3, True), (60, 10, 0, False)]  # fmt: skip


def _case_data(rng, n, nkeys, m, is_sorted, dtype, index_dtype):
    keys = skewed_keys(rng, n, nkeys)
    if is_sorted:
        keys = np.sort(keys)
    return keys.astype(index_dtype), random_values(rng, (n, m), dtype)


def _same_errors(fn_a, fn_b, exc=ValueError):
    """Both calls raise ``exc`` with the same message; returns it."""
    with pytest.raises(exc) as a:
        fn_a()
    with pytest.raises(exc) as b:
        fn_b()
    assert str(a.value) == str(b.value)
    return str(a.value)


# ---- group_reduce ------------------------------------------------------------------------------


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("op", OPS)
@pytest.mark.parametrize("dtype", VALUE_DTYPES, ids=str)
def test_group_reduce_matches_numba(device, dtype, op):
    """Bit for bit with the NumPy reference for every dtype, and with the numba kernel for the dtypes
    it is compiled for anyway (compiling its family costs about 35 s per dtype on a CI core)."""
    rng = np.random.default_rng(11)
    for c, (n, nkeys, m, is_sorted) in enumerate(CASES):
        keys, values = _case_data(rng, n, nkeys, m, is_sorted, dtype, INDEX_DTYPES[c % 2])
        if dtype == np.bool_ and op in ("sum", "prod"):
            with pytest.raises(KernelDeclined, match=f"does not {op} bool"):
                group_reduce(to_device(keys, device), to_device(values, device), nkeys, op)
            return
        uk, acc, counts = group_reduce(to_device(keys, device), to_device(values, device), nkeys, op)
        refs = [group_reduce_ref(keys, values, op)]
        if dtype in NUMBA_DTYPES:
            refs.append(cpu_group_reduce(keys, values, nkeys, op))
        for ek, eacc, ecounts in refs:
            np.testing.assert_array_equal(to_host(uk), ek)
            np.testing.assert_array_equal(to_host(counts), ecounts)
            assert to_host(uk).dtype == to_host(counts).dtype == np.int64
            assert to_host(acc).dtype == eacc.dtype and to_host(acc).shape == eacc.shape
            np.testing.assert_array_equal(to_host(acc), eacc)  # the same order of operations


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("dtype", VALUE_DTYPES, ids=str)
def test_group_reduce_rows_matches_numba(device, dtype):
    rng = np.random.default_rng(21)
    for c, (nrows, n) in enumerate([(0, 0), (4, 0), (1, 5), (30, 200)]):
        keys = np.sort(skewed_keys(rng, n, nrows)) if nrows else np.zeros(0, np.int64)
        offsets = np.searchsorted(keys, np.arange(nrows + 1)).astype(INDEX_DTYPES[c % 2])
        values = random_values(rng, (n, 2), dtype)
        for op in OPS:
            if dtype == np.bool_ and op in ("sum", "prod"):
                with pytest.raises(KernelDeclined, match=f"does not {op} bool"):
                    group_reduce_rows(to_device(offsets, device), to_device(values, device), op)
                continue
            got = [to_host(a) for a in group_reduce_rows(to_device(offsets, device), to_device(values, device), op)]
            wants = [ref_group_reduce_rows(offsets, values, op)]
            if dtype in NUMBA_DTYPES:
                wants.append(cpu_group_reduce_rows(offsets, values, op))
            for want in wants:
                for g, w in zip(got, want):
                    assert g.dtype == w.dtype and g.shape == w.shape
                    np.testing.assert_array_equal(g, w)  # each run reduced left to right


@pytest.mark.parametrize("device", DEVICES)
def test_group_reduce_rows_bad_pointers(device):
    v = to_device(np.ones((3, 1)), device)
    for offsets in ([0, 2, 1, 3], [0, 2, 4], [1, 3]):
        msg = _same_errors(lambda: group_reduce_rows(to_device(np.array(offsets), device), v, "sum"),
                           lambda: cpu_group_reduce_rows(np.array(offsets), np.ones((3, 1)), "sum"))  # fmt: skip
        assert "offsets" in msg


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("op", ["sum", "max", "min"])
@pytest.mark.parametrize("dtype", [np.float32, np.float64], ids=str)
@pytest.mark.parametrize("index_dtype", INDEX_DTYPES, ids=str)
@pytest.mark.parametrize("lengths", [[0, 1, 2, 3, 40, 0, 100, 5], "random", [0, 0, 0], [33], []], ids=str)
def test_reduce_runs_matches_numpy(device, op, dtype, index_dtype, lengths):
    """run_reduce (a group of lanes per run, the lean device reductions' kernel) against NumPy:
    runs shorter and longer than a warp, empty runs (value 0), nan propagating through max/min."""
    rng = np.random.default_rng(3)
    lengths = rng.integers(0, 70, size=300) if lengths == "random" else np.array(lengths, dtype=np.int64)
    offsets = np.concatenate([[0], np.cumsum(lengths)]).astype(index_dtype)
    v = rng.standard_normal(int(offsets[-1])).astype(dtype)
    if v.size > 50:
        v[[7, 45]] = np.nan, -np.inf
    got = reduce_runs(to_device(offsets, device), to_device(v, device), op)
    assert got.dtype == dtype and got.shape == (len(offsets) - 1,)
    with np.errstate(invalid="ignore"):
        want = np.array([getattr(np, op)(v[a:b]) if b > a else 0 for a, b in zip(offsets[:-1], offsets[1:])], dtype)
    tol = 1e-5 if dtype == np.float32 else 1e-12
    np.testing.assert_allclose(to_host(got), want, rtol=tol, atol=tol)


@pytest.mark.parametrize("device", DEVICES)
def test_reduce_runs_checks_its_input(device):
    v = to_device(np.ones(3), device)
    for offsets in ([0, 2, 1, 3], [0, 2, 4], [1, 3]):
        with pytest.raises(ValueError, match="offsets"):
            reduce_runs(to_device(np.array(offsets), device), v, "sum")
    with pytest.raises(KernelDeclined):
        reduce_runs(to_device(np.array([0, 3]), device), to_device(np.ones(3, np.int64), device), "sum")
    with pytest.raises(KernelDeclined):
        reduce_runs(to_device(np.array([0, 3]), device), v, "prod")


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("dtype", ["float32", "float64", "complex128"])
def test_group_reduce_dense_reference_with_nan(device, dtype):
    rng = np.random.default_rng(3)
    n, nkeys, m = 230, 17, 2
    keys = skewed_keys(rng, n, nkeys)
    values = random_values(rng, (n, m), dtype)
    values[rng.random((n, m)) < 0.02] = np.nan
    values[5, 0], values[6, 1] = np.inf, -np.inf
    ref = {"sum": np.sum, "prod": np.prod, "max": np.max, "min": np.min}
    for op in OPS:
        uk, acc, counts = group_reduce(to_device(keys, device), to_device(values, device), nkeys, op)
        uk, acc, counts = to_host(uk), to_host(acc), to_host(counts)
        assert uk.tolist() == sorted(set(keys.tolist()))
        for g, k in enumerate(uk):
            rows = values[keys == k]
            assert counts[g] == rows.shape[0]
            with np.errstate(all="ignore"):
                np.testing.assert_allclose(acc[g], ref[op](rows, axis=0), rtol=1e-5, equal_nan=True)


@pytest.mark.parametrize("device", DEVICES)
def test_group_reduce_bool_any_all_and_complex_order(device):
    keys = np.array([1, 1, 0, 0, 2], np.int32)
    b = np.array([[True], [False], [False], [False], [True]])
    assert to_host(group_reduce(to_device(keys, device), to_device(b, device), 3, "max")[1]).ravel().tolist() == [False, True, True]
    assert to_host(group_reduce(to_device(keys, device), to_device(b, device), 3, "min")[1]).ravel().tolist() == [False, False, True]
    z = np.array([[1 + 5j], [1 + 7j], [2 - 1j], [2 + 0j], [np.nan + 0j]])
    _, mx, _ = group_reduce(to_device(keys, device), to_device(z, device), 3, "max")
    _, mn, _ = group_reduce(to_device(keys, device), to_device(z, device), 3, "min")
    assert to_host(mx).ravel()[:2].tolist() == [2 + 0j, 1 + 7j] and np.isnan(to_host(mx)[2, 0])
    assert to_host(mn).ravel()[:2].tolist() == [2 - 1j, 1 + 5j]


@pytest.mark.parametrize("device", DEVICES)
def test_group_reduce_errors(device):
    d = lambda a: to_device(np.asarray(a), device)  # noqa: E731
    ones = np.ones((3, 1))
    for keys in ([-1, 0, 2], [0, 1, 3]):  # sorted: the numba kernel's sorted path words it the same
        msg = _same_errors(lambda: group_reduce(d(keys), d(ones), 3, "sum"), lambda: cpu_group_reduce(np.array(keys), ones, 3, "sum"))
        assert msg.startswith("keys must lie in [0, nkeys=3), found values in [")
    with pytest.raises(ValueError, match=r"found values in \[0, 7\]"):
        group_reduce(d([7, 0, 2]), d(ones), 3, "max")
    with pytest.raises(ValueError, match="op must be one of"):
        group_reduce(d([0]), d([[1.0]]), 1, "mean")
    with pytest.raises(ValueError, match="nkeys must be >= 0, got -1"):
        group_reduce(d([0]), d([[1.0]]), -1, "sum")
    with pytest.raises(ValueError, match=r"values must have shape \(2, m\)"):
        group_reduce(d([0, 1]), d(ones), 2, "sum")
    with pytest.raises(KernelDeclined):
        group_reduce(d([0, 1]), d(np.ones((2, 1), np.float16)), 2, "sum")


# ---- scatter_sum -----------------------------------------------------------------------------------


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("index_dtype", INDEX_DTYPES, ids=str)
@pytest.mark.parametrize("dtype", SCATTER_DTYPES, ids=str)
def test_scatter_sum_matches_numba(device, dtype, index_dtype):
    rng = np.random.default_rng(5)
    for n, nkeys, m, is_sorted in CASES[:3] + [(150, 2000, 1, False), (120, 30, 3, True), (60, 10, 0, False)]:
        keys, values = _case_data(rng, n, nkeys, m, is_sorted, dtype, index_dtype)
        got = scatter_sum(to_device(keys, device), to_device(values, device), nkeys, sorted_keys=is_sorted or n % 2 == 0)
        want = np.zeros((nkeys, m), values.dtype)
        np.add.at(want, keys, values)
        wants = [want] + ([cpu_scatter_sum(keys, values, nkeys, sorted_keys=is_sorted)] if dtype in NUMBA_DTYPES else [])
        for want in wants:
            assert to_host(got).dtype == want.dtype and to_host(got).shape == (nkeys, m)
            np.testing.assert_array_equal(to_host(got), want)  # small quarters: sums exact in any order


@pytest.mark.parametrize("device", DEVICES)
def test_scatter_sum_dense_reference_nan_and_wrapping(device):
    keys = np.array([3, 0, 3, 3, 1, 0])
    values = np.array([[1.0, np.nan], [2.0, 1.0], [np.inf, 2.0], [-np.inf, 0.5], [0.25, -1.0], [-2.0, 4.0]])
    got = to_host(scatter_sum(to_device(keys, device), to_device(values, device), 5))
    want = np.zeros((5, 2))
    with np.errstate(invalid="ignore"):  # inf + -inf
        np.add.at(want, keys, values)
    np.testing.assert_array_equal(got, want)
    assert np.isnan(got[3]).all() and got[0].tolist() == [0.0, 5.0] and got[4].tolist() == [0.0, 0.0]
    big = np.array([[2**62], [2**62], [-(2**63)]], np.int64)  # int64 adds wrap like NumPy's
    wrapped = to_host(scatter_sum(to_device(np.array([0, 0, 1], np.int32), device), to_device(big, device), 2))
    assert wrapped.ravel().tolist() == [-(2**63), -(2**63)]
    u = np.array([[2**64 - 1], [2]], np.uint64)
    assert to_host(scatter_sum(to_device(np.array([0, 0]), device), to_device(u, device), 1)).tolist() == [[1]]


@pytest.mark.parametrize("device", DEVICES)
def test_scatter_sum_errors_match_numba(device):
    d = lambda a: to_device(np.asarray(a), device)  # noqa: E731
    ones = np.ones((3, 2))
    for keys in ([0, 5, -1], [-1, 0, 1]):
        for m in (2, 0):  # with no column, out-of-range keys are still found
            msg = _same_errors(lambda: scatter_sum(d(keys), d(ones[:, :m]), 3),
                               lambda: cpu_scatter_sum(np.array(keys), ones[:, :m], 3))  # fmt: skip
            assert msg.startswith("scatter_sum: ") and "keys outside [0, 3)" in msg
    for keys, vals in (([0, 1], ones), (np.array([0, 1, 2], np.int16), ones), ([[0, 1, 2]], ones), ([0, 1, 2], np.ones(3))):
        _same_errors(lambda: scatter_sum(d(keys), d(vals), 3), lambda: cpu_scatter_sum(np.asarray(keys), vals, 3))
    for dtype in ("bool", "int8", "int16", "uint8", "uint16", "float16"):
        vals = np.ones((3, 1), dtype)
        _same_errors(lambda: scatter_sum(d([0, 1, 2]), d(vals), 3), lambda: cpu_scatter_sum(np.array([0, 1, 2]), vals, 3), KernelDeclined)


# ---- nonzero_rows ----------------------------------------------------------------------------------


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("dtype", SCATTER_DTYPES, ids=str)
def test_nonzero_rows_matches_numba(device, dtype):
    """The rows of a scatter's result with a non-zero element, as the numba kernel keeps them."""
    rng = np.random.default_rng(7)
    for n, nkeys, m, is_sorted in CASES:
        keys, values = _case_data(rng, n, nkeys, m, is_sorted, dtype, np.int64)
        dense = cpu_scatter_sum(keys, values, nkeys)
        dense[::3] = 0
        got_keys, got = nonzero_rows(to_device(dense, device))
        want_keys, want = cpu_nonzero_rows(dense)
        assert to_host(got_keys).dtype == np.int64 and to_host(got).dtype == want.dtype
        np.testing.assert_array_equal(to_host(got_keys), want_keys)
        np.testing.assert_array_equal(to_host(got), want)


@pytest.mark.parametrize("device", DEVICES)
def test_nonzero_rows_errors_match_numba(device):
    for bad, exc in ((np.zeros(3), ValueError), (np.zeros((3, 1), np.float16), KernelDeclined)):
        _same_errors(lambda: nonzero_rows(to_device(bad, device)), lambda: cpu_nonzero_rows(bad), exc)


@pytest.mark.parametrize("op", ["sum", "prod", "max", "min"])
@pytest.mark.parametrize("dtype", [np.dtype(np.float64), np.dtype(np.int64), np.dtype(np.bool_)])
def test_group_reduce_all_registry_rows_agree(op, dtype):
    """The registry's ``group_reduce_all`` [coo] and [csr]: the CUDA launchers (emulated) and the
    generic implementations keep every group (empty ones with the op's identity and count 0) and
    agree with the present-groups reference ``group_reduce_ref``."""
    from sparray._core.namespace import namespace_of
    from sparray._engine.segments import group_reduce_all_generic, group_reduce_rows_all_generic
    from sparray.kernels.cuda.group_reduce import group_reduce_all, group_reduce_rows_all

    if dtype == np.bool_ and op in ("sum", "prod"):
        return
    rng = np.random.default_rng(11)
    nkeys = 9
    keys = np.sort(rng.integers(0, nkeys, 40))
    keys = keys[keys != 4]  # key 4 empty
    values = random_values(rng, (keys.shape[0], 2), dtype, negative=True)
    offsets = np.searchsorted(keys, np.arange(nkeys + 1)).astype(np.int64)
    ref_keys, ref_acc, ref_counts = group_reduce_ref(keys, values, op)
    identity = 1 if op == "prod" or (op == "min" and dtype == np.bool_) else 0
    want = np.full((nkeys, 2), identity, dtype)
    want[ref_keys] = ref_acc
    want_counts = np.zeros(nkeys, np.int64)
    want_counts[ref_keys] = ref_counts
    xp = namespace_of(values)
    shuffled = rng.permutation(keys.shape[0])
    for got in (group_reduce_all(keys[shuffled], values[shuffled], nkeys, op),
                group_reduce_all(keys, values, nkeys, op, sorted_keys=True),
                group_reduce_rows_all(offsets, values, op),
                group_reduce_all_generic(xp, keys[shuffled], values[shuffled], nkeys, op),
                group_reduce_rows_all_generic(xp, offsets, values, op)):
        k, acc, counts = (np.asarray(a) for a in got)
        assert k.tolist() == list(range(nkeys))
        np.testing.assert_array_equal(counts, want_counts)
        np.testing.assert_allclose(acc.astype(np.float64), want.astype(np.float64))
