"""The lean paths (sparray._products.lean): the common calls on a 2-D NumPy CSR or CSC straight to a kernel.

Each lean result is compared with the general path's (the same call under ``use_backend("numba")``,
which the lean paths leave to the registry) and with dense NumPy, on random inputs small enough for
the serial kernels and large enough for the parallel ones, CSR and CSC, int32 and int64 indices.
The kernels' serial and parallel runs are compared with each other, and the validity state is
checked with spies: validated once per array, again after ``A[key] = v``, and a bad index written
into a component in place still raises.
"""

import numpy as np
import pytest
import scipy.sparse as sp

import sparray
from random_testing import random_scipy
from sparray._engine import dispatch as _dispatch
from sparray._products import lean as _lean
from sparray.kernels.cpu import binary_rows, compress, group_reduce, scatter, spmm


@pytest.fixture(autouse=True)
def eager_lean(monkeypatch):
    """The benchmarks' rule: in eager JIT mode a lean path runs its kernel at any size."""
    monkeypatch.setattr(_lean, "EAGER_ANY_SIZE", True)


def _csr(n, m, per_row, dtype, idt, seed, layout="csr"):
    rng = np.random.default_rng(seed)
    S = random_scipy(n, m, min(1.0, per_row / m), seed=seed, format=layout)
    S.data = (rng.standard_normal(S.nnz) * 4).astype(dtype) if dtype != np.complex128 else (
        rng.standard_normal(S.nnz) + 1j * rng.standard_normal(S.nnz))
    cls = sparray.CSR if layout == "csr" else sparray.CSC
    return cls(S.indptr.astype(idt), S.indices.astype(idt), S.data, S.shape)


def _triples(A):
    """(rows, cols, values) of a CSR or CSC's stored entries."""
    major = np.repeat(np.arange(len(A._cidx) - 1), np.diff(A._cidx))
    minor = np.asarray(A._pidx)
    return (major, minor, A._values) if A.layout == "csr" else (minor, major, A._values)


def _same(a, b, exact=True):
    """Same type, layout, shape, dtype, components (index dtypes too) and fill (values to rounding
    when not ``exact``)."""
    if isinstance(a, np.ndarray):
        assert isinstance(b, np.ndarray) and a.shape == b.shape and a.dtype == b.dtype
        if exact:
            np.testing.assert_array_equal(a, b)
        else:
            np.testing.assert_allclose(a, b, rtol=_rtol(a.dtype), atol=_rtol(a.dtype))
        return
    assert type(a) is type(b) and a.shape == b.shape and a.dtype == b.dtype
    ca, cb = a._components(), b._components()
    for name in ca:
        assert ca[name].dtype == cb[name].dtype, name
        if name == "values" and not exact:
            np.testing.assert_allclose(ca[name], cb[name], rtol=_rtol(a.dtype), atol=_rtol(a.dtype))
        else:
            np.testing.assert_array_equal(ca[name], cb[name], err_msg=name)
    np.testing.assert_array_equal(a.fill_value, b.fill_value)


def _rtol(dtype):
    return 1e-5 if dtype in (np.float32, np.complex64) else 1e-12


def _general(f, *args):
    with sparray.use_backend("numba"):  # a forced backend: the lean paths step aside
        return f(*args)


SIZES = [(40, 37, 4), (3000, 2900, 12)]  # serial kernels; parallel ones for the larger products and merges


@pytest.mark.parametrize("n,m,per_row", SIZES)
@pytest.mark.parametrize("dtype,idt", [(np.float64, np.int32), (np.int64, np.int32), (np.float32, np.int64),
                                       (np.complex128, np.int64)])
def test_matmul_matches_general_and_dense(n, m, per_row, dtype, idt):
    A = _csr(n, m, per_row, dtype, idt, seed=1)
    rng = np.random.default_rng(2)
    for x in (rng.standard_normal(m).astype(dtype), rng.standard_normal((m, 5)).astype(dtype)):
        got = A @ x
        assert A._lean and "matmul" in A._lean.warm  # the lean path served it
        _same(_general(lambda: A @ x), got)
        np.testing.assert_allclose(got, A.to_dense() @ x, rtol=1e-4 if dtype == np.float32 else 1e-10, atol=1e-3)
        _same(sparray.matmul(A, x), got)


@pytest.mark.filterwarnings("ignore:invalid value")
def test_matmul_exact_with_non_finite_x():
    """A zero fill: an inf or nan in a row of x that no entry reads still reaches every element, as
    in the dense product; the lean path hands such calls to the general path."""
    A = sparray.CSR(np.array([0, 1, 2], np.int32), np.array([0, 0], np.int32), np.array([1.0, 2.0]), (2, 3))
    for bad in (np.inf, np.nan):
        x = np.array([1.0, bad, 1.0])
        np.testing.assert_array_equal(A @ x, A.to_dense() @ x)  # [nan, nan]: 0 * inf in the dense product
    x = np.array([np.inf, 1.0, 1.0])  # a read row: the kernel itself sees it
    np.testing.assert_array_equal(A @ x, A.to_dense() @ x)
    y = A @ np.array([1.0, 2.0, 3.0])
    np.testing.assert_array_equal(y, [1.0, 2.0])


def test_matmul_leaves_other_calls_to_the_general_path():
    A = _csr(30, 30, 3, np.float64, np.int32, seed=3)
    x = np.random.default_rng(0).standard_normal(30)
    assert _lean.matmul(A, x.astype(np.float32)) is None  # another dtype: promotion is the general path's
    assert _lean.matmul(A, np.asfortranarray(np.ones((30, 2)))) is None
    assert _lean.matmul(A, np.ones(29)) is None
    B = sparray.CSR(A.crow_indices, A.col_indices, A.values, A.shape, fill_value=1.5)
    assert _lean.matmul(B, x) is None  # a non-zero fill
    np.testing.assert_allclose(B @ x, B.to_dense() @ x)
    with sparray.use_backend("generic"):
        assert _lean.matmul(A, x) is None
    C = sparray.asarray(np.arange(8.0).reshape(2, 2, 2), layout="csr")  # batched
    assert _lean.lean_of(C) is None


@pytest.mark.parametrize("layout", ["csr", "csc"])
@pytest.mark.parametrize("n,m,per_row,dtype", [(n, m, r, dt) for n, m, r in SIZES for dt in (np.float64, np.float32, np.complex128)]
                         + [(20000, 21000, 10, np.float64)])  # the parallel kernels: one dtype (compile time)
def test_sums_match_general_and_dense(layout, n, m, per_row, dtype):
    A = _csr(n, m, per_row, dtype, np.int32, seed=4, layout=layout)
    # the reference: the sums of the stored values by row and by column (a dense copy of the large
    # case would be 3.4 GB of fresh memory)
    rows, cols, vals = _triples(A)
    wide = np.complex128 if dtype == np.complex128 else np.float64
    want = {1: np.zeros(n, wide), 0: np.zeros(m, wide)}
    np.add.at(want[1], rows, vals)
    np.add.at(want[0], cols, vals)
    for axis in (0, 1, -1, -2):
        got = sparray.sum(A, axis=axis)
        # the general path's scatter folds per-thread sums on large inputs: the same up to rounding
        _same(_general(lambda: sparray.sum(A, axis=axis)), got, exact=n < 10000)
        np.testing.assert_allclose(got.to_dense(), want[axis % 2], rtol=1e-4 if dtype == np.float32 else 1e-10, atol=1e-4)
    assert {"sum_runs", "sum_by_key"} <= A._lean.warm


def test_sums_keep_rows_with_entries_and_leave_the_rest():
    A = sparray.CSR(np.array([0, 2, 2, 3], np.int32), np.array([0, 2, 2], np.int32), np.array([1.0, -1.0, 4.0]), (3, 4))
    r = sparray.sum(A, axis=1)
    assert r.layout == "coo" and r.indices.tolist() == [[0, 2]] and r.values.tolist() == [0.0, 4.0]
    c = sparray.sum(A, axis=0)
    assert c.indices.tolist() == [[0, 2]] and c.values.tolist() == [1.0, 3.0] and c.is_coalesced
    assert _lean.sum_axis(A, None) is None and _lean.sum_axis(A, 2) is None
    assert _lean.sum_axis(A.astype(np.int64), 0) is None  # an integer sum changes dtype: general path
    B = sparray.CSR(A.crow_indices, A.col_indices, A.values, A.shape, fill_value=2.0)
    assert _lean.sum_axis(B, 0) is None
    np.testing.assert_allclose(sparray.sum(B, axis=0).to_dense(), B.to_dense().sum(axis=0))


@pytest.mark.parametrize("layout", ["csr", "csc"])
@pytest.mark.parametrize("n,m,per_row", SIZES)
@pytest.mark.parametrize("dtype", [np.float64, np.float32, np.int64])
@pytest.mark.parametrize("fills", [(0, 0), (1, -2)])
def test_add_matches_general_and_dense(layout, n, m, per_row, dtype, fills):
    A = _csr(n, m, per_row, dtype, np.int32, seed=5, layout=layout)
    B = _csr(n, m, per_row, dtype, np.int32, seed=6, layout=layout)
    cls = type(A)
    A = cls(A._cidx, A._pidx, A._values, A.shape, fill_value=fills[0])
    B = cls(B._cidx, B._pidx, B._values, B.shape, fill_value=fills[1])
    got = A + B
    _same(_general(lambda: A + B), got)
    np.testing.assert_array_equal(got.to_dense(), A.to_dense() + B.to_dense())
    _same(sparray.add(A, B), got)
    A2 = A._replace_values(A._values * 2, A._fill)
    same = A + A2  # one pattern: the values meet entry for entry
    assert same._cidx is A._cidx
    np.testing.assert_array_equal(same.to_dense(), A.to_dense() + A2.to_dense())


def test_add_leaves_mixed_operands_to_the_general_path():
    A = _csr(30, 30, 3, np.float64, np.int32, seed=7)
    B = _csr(30, 30, 3, np.float64, np.int64, seed=8)
    assert _lean.add(A, B) is None  # index dtypes differ
    assert _lean.add(A, B.astype(np.float32)) is None
    assert _lean.add(A, A.to_layout("csc")) is None
    np.testing.assert_array_equal((A + B).to_dense(), A.to_dense() + B.to_dense())


@pytest.mark.parametrize("dtype", [np.float64, np.float32, np.complex128])
@pytest.mark.parametrize("scalar", [2.5, -3, 0.0, float("inf")])
def test_scale_matches_general_and_dense(dtype, scalar):
    A = _csr(50, 40, 4, dtype, np.int32, seed=9)
    with np.errstate(invalid="ignore"):
        ref = _general(lambda: A * scalar)
        for got in (A * scalar, scalar * A, sparray.multiply(A, scalar)):
            _same(ref, got)
            assert got._cidx is A._cidx and got.dtype == A.dtype
            np.testing.assert_array_equal(got.to_dense(), A.to_dense() * scalar)


@pytest.mark.parametrize("layout", ["csr", "csc"])
@pytest.mark.parametrize("fill", [0.0, -0.0, 1.5, float("nan")])
def test_to_dense_matches_general(layout, fill):
    A = _csr(60, 45, 5, np.float64, np.int32, seed=10, layout=layout)
    A = type(A)(A._cidx, A._pidx, A._values, A.shape, fill_value=fill)
    got = A.to_dense()
    _same(_general(A.to_dense), got)
    assert np.signbit(got[np.isnan(got) | (got == 0)]).all() == (np.signbit(fill) and fill == 0) or fill != 0
    big = _csr(3000, 2000, 3, np.float64, np.int32, seed=11, layout=layout)  # above DENSE_SERIAL_MAX: zeroed pages
    _same(_general(big.to_dense), big.to_dense())


@pytest.mark.parametrize("layout", ["csr", "csc"])
@pytest.mark.parametrize("n,m,per_row", SIZES)
@pytest.mark.parametrize("idt", [np.int32, np.int64])
@pytest.mark.parametrize("fill", [0.0, 1.5, float("nan")])
def test_transpose_layout_matches_general(layout, n, m, per_row, idt, fill):
    A = _csr(n, m, per_row, np.float64, idt, seed=12, layout=layout)
    A = type(A)(A._cidx, A._pidx, A._values, A.shape, fill_value=fill)
    other = "csc" if layout == "csr" else "csr"
    got = A.to_layout(other)
    _same(_general(lambda: A.to_layout(other)), got)
    S = sp.csr_array((A._values, A._pidx, A._cidx), shape=A.shape) if layout == "csr" else \
        sp.csc_array((A._values, A._pidx, A._cidx), shape=A.shape)
    held = np.zeros(A.shape, bool)
    held[tuple(np.asarray(S.tocoo().coords))] = True
    want = np.where(held, S.toarray(), fill)
    np.testing.assert_array_equal(np.asarray(got.to_dense()), want)


@pytest.mark.parametrize("n,per_row", [(40, 4), (3000, 10)])
@pytest.mark.parametrize("idt", [np.int32, np.int64])
@pytest.mark.parametrize("dtype,fill", [(np.float64, 0), (np.int64, 0), (np.complex128, 0), (np.float64, -2.5),
                                        (np.float64, float("nan")), (np.int64, 7)])
def test_coo_to_csr_counting_matches_general(n, per_row, idt, dtype, fill):
    """Shuffled entries with duplicates, rows longer than the insertion sort's 32 among them; the
    fill carried to the CSR (the positions with no entry hold it in the dense reference)."""
    rng = np.random.default_rng(13)
    nse = n * per_row
    rows = rng.integers(0, n, nse)
    rows[: 3 * 64] = 0  # a long row: the merge sort
    cols = rng.integers(0, n + 5, nse)
    vals = (rng.standard_normal(nse) * 8).astype(dtype)
    C = sparray.COO(np.stack([rows, cols]).astype(idt), vals, (n, n + 5), fill_value=fill)
    got = C.to_layout("csr")
    assert C._lean_warm
    _same(_general(lambda: C.to_layout("csr")), got, exact=dtype != np.complex128)
    held = np.zeros((n, n + 5), bool)
    held[rows, cols] = True
    ref = np.where(held, sp.coo_array((vals, (rows, cols)), shape=(n, n + 5)).toarray(), fill)
    np.testing.assert_allclose(got.to_dense(), ref, rtol=1e-12, atol=1e-12)


# --- the kernels' serial and parallel runs --------------------------------------------------------
def _parts(n, per_row, seed):
    A = _csr(n, n + 3, per_row, np.float64, np.int32, seed=seed)
    return A._cidx, A._pidx, A._values, n + 3


def test_kernel_serial_and_parallel_runs_agree():
    ptr, idx, val, K = _parts(500, 7, 14)
    x = np.random.default_rng(0).standard_normal((K, 3))
    ys, yp = np.empty((500, 3)), np.empty((500, 3))
    assert spmm.csr_matmul_into(ptr, idx, val, x, ys, serial=True) == spmm.csr_matmul_into(ptr, idx, val, x, yp, serial=False) == 0
    np.testing.assert_array_equal(ys, yp)
    for a, b in zip(group_reduce.sum_runs_into(ptr, val, serial=True), group_reduce.sum_runs_into(ptr, val, serial=False)):
        np.testing.assert_array_equal(a, b)
    for a, b in zip(compress.transpose_into(ptr, idx, val, K, serial=True), compress.transpose_into(ptr, idx, val, K, serial=False)):
        np.testing.assert_array_equal(a, b)
    p2, i2, v2, _ = _parts(500, 5, 15)
    z = np.zeros(())
    for a, b in zip(binary_rows.union_into(ptr, idx, val, z, p2, i2, v2, z, "add", serial=True),
                    binary_rows.union_into(ptr, idx, val, z, p2, i2, v2, z, "add", serial=False)):
        np.testing.assert_array_equal(a, b)
    rows = np.repeat(np.arange(500), np.diff(ptr))
    order = np.random.default_rng(1).permutation(rows.shape[0])
    args = (rows[order], idx[order], val[order], 500, K, np.int32)
    for a, b in zip(compress.coo_to_csr_into(*args, serial=True), compress.coo_to_csr_into(*args, serial=False)):
        np.testing.assert_array_equal(a, b)


@pytest.mark.parametrize("bad", [-1, 10**6, 2**31 - 1])
def test_kernels_refuse_bad_indices(bad):
    """An index written in place after validation: every lean kernel refuses it, none reads it."""
    ptr, idx, val, K = _parts(60, 4, 16)
    idx = idx.copy()
    idx[len(idx) // 2] = bad
    y = np.empty((60, 1))
    for serial in (True, False):
        assert spmm.csr_matmul_into(ptr, idx, val, np.ones((K, 1)), y, serial=serial) & ~4
        with pytest.raises(ValueError):
            compress.transpose_into(ptr, idx, val, K, serial=serial)
        rows = np.repeat(np.arange(60), np.diff(ptr))
        with pytest.raises(ValueError):
            compress.coo_to_csr_into(rows, idx, val, 60, K, np.int32, serial=serial)
    with pytest.raises(ValueError):
        scatter.sum_by_key_into(idx, val, K)
    with pytest.raises(ValueError):
        compress.to_dense_into(ptr, idx, val, np.zeros(()), (60, K), True)
    bad_ptr = ptr.copy()
    bad_ptr[5] = bad
    with pytest.raises(ValueError):
        group_reduce.sum_runs_into(bad_ptr, val, serial=True)
    with pytest.raises(ValueError):
        binary_rows.union_into(bad_ptr, idx, val, np.zeros(()), ptr, idx, val, np.zeros(()), "add", serial=True)


# --- validity: once per array ------------------------------------------------------------------------
class _Spy:
    """Records the registry ops called while installed."""

    def __init__(self, monkeypatch):
        self.ops = []
        real = _dispatch.call

        def call(op, layout, xp, *args, **kw):
            self.ops.append(op)
            return real(op, layout, xp, *args, **kw)

        monkeypatch.setattr(_dispatch, "call", call)


def test_a_validated_product_runs_no_validation_or_finiteness_pass(monkeypatch):
    A = _csr(200, 200, 6, np.float64, np.int32, seed=17)
    x = np.ones(200)
    spy = _Spy(monkeypatch)
    A @ x
    A @ x
    assert spy.ops.count("compressed_valid") == 1  # the first use validates the indices, once
    spy.ops.clear()
    for _ in range(3):
        A @ x
        sparray.sum(A, axis=0)
        A + A
    assert spy.ops == []  # no validation, finiteness or other registry pass: straight to the kernels


def test_setitem_rebinds_the_proven_state(monkeypatch):
    A = _csr(50, 50, 3, np.float64, np.int32, seed=18)
    x = np.ones(50)
    A @ x
    old = A._lean
    A[0, 49] = 7.0  # new components (valid by construction): the state proven for the old ones goes
    assert "_lean" not in A.__dict__
    np.testing.assert_allclose(A @ x, A.to_dense() @ x)
    assert A._lean is not old and A._lean.idx is A.col_indices
    B = _csr(50, 50, 3, np.float64, np.int32, seed=18)
    B @ x
    B += B  # an in-place operator swaps in the result's state
    assert "_lean" not in B.__dict__ or B._lean.values is B.values
    np.testing.assert_allclose(B @ x, B.to_dense() @ x)


def test_an_index_written_in_place_still_raises():
    A = _csr(50, 50, 3, np.float64, np.int32, seed=19)
    x = np.ones(50)
    A @ x
    A.col_indices[3] = 50  # past the last column, behind the array's back
    with pytest.raises(ValueError, match="col"):
        A @ x
    with pytest.raises(ValueError):
        A.to_dense()


def test_check_invariants_revalidates_on_request(monkeypatch):
    """Inside ``check_invariants()`` an array's kept answer is not trusted: an in-range index that
    breaks the order within its row, written in place, is found (outside, it is not looked for)."""
    A = sparray.CSR(np.array([0, 2, 3], np.int32), np.array([0, 2, 1], np.int32), np.array([1.0, 2.0, 3.0]), (2, 3))
    x = np.ones(3)
    A @ x
    A.col_indices[0] = 2  # row 0 now lists column 2 twice
    A @ x  # not looked for: the kept answer stands
    spy = _Spy(monkeypatch)
    with sparray.check_invariants(), pytest.raises(ValueError, match="strictly increasing"):
        A @ x
    assert "compressed_valid" in spy.ops


def test_a_small_call_waits_for_the_registry_kernel(monkeypatch):
    """Without the eager rule a lean path takes a small call only once the registry's kernel ran for
    its types (the registry's small-call rule decides when numba loads)."""
    monkeypatch.setattr(_lean, "EAGER_ANY_SIZE", False)
    A = _csr(30, 30, 3, np.float64, np.int32, seed=20)
    x = np.arange(30.0)
    monkeypatch.setattr(sparray._engine.jit, "ran_here", lambda key: False)
    assert _lean.matmul(A, x) is None
    monkeypatch.setattr(sparray._engine.jit, "ran_here", lambda key: key[0] == "matmul_dense")
    np.testing.assert_allclose(_lean.matmul(A, x), A.to_dense() @ x)


def test_one_numba_thread_takes_the_serial_spmv(monkeypatch):
    """With numba on one thread (``numba.set_num_threads(1)``) a product above the serial
    crossover runs the serial kernel: a parallel region on one thread only adds its start."""
    import numba

    A = _csr(3000, 2900, 12, np.float64, np.int32, 5)
    x = np.random.default_rng(2).standard_normal(2900)
    expected = A.to_dense() @ x
    np.testing.assert_allclose(A @ x, expected, rtol=1e-12, atol=1e-12)  # loads the kernels and the thread reader
    calls = []
    parallel = spmm.csr_matmul_into
    monkeypatch.setattr(spmm, "csr_matmul_into", lambda *a, **k: calls.append(k) or parallel(*a, **k))
    old = numba.get_num_threads()
    try:
        numba.set_num_threads(1)
        np.testing.assert_allclose(A @ x, expected, rtol=1e-12, atol=1e-12)
        assert calls == []
        if numba.config.NUMBA_NUM_THREADS > 1:
            numba.set_num_threads(2)
            np.testing.assert_allclose(A @ x, expected, rtol=1e-12, atol=1e-12)
            assert calls == [{"serial": False}]
    finally:
        numba.set_num_threads(old)


@pytest.mark.parametrize("dtype", [np.float64, np.float32, np.int64, np.int32, np.uint8, np.complex128])
@pytest.mark.parametrize("empty", [0.0, 0.1, 0.6])
def test_row_sums_are_each_rows_left_to_right_sum(dtype, empty):
    """``sum_runs_into`` sums four rows at a time as four chains: every row's sum keeps the bits of
    summing it alone, left to right from its first element (-0.0 and nan included), on the
    calling thread and over claimed chunks alike, with empty rows anywhere."""
    rng = np.random.default_rng(int(100 * empty) + np.dtype(dtype).itemsize)
    for G in (0, 3, 5, 2_000, 40_000):
        lens = rng.integers(0, 14, G) * (rng.random(G) >= empty)
        ptr = np.zeros(G + 1, np.int32 if G % 2 else np.int64)
        np.cumsum(lens, out=ptr[1:])
        n = int(ptr[-1])
        if np.dtype(dtype).kind == "c":
            val = (rng.standard_normal(n) + 1j * rng.standard_normal(n)).astype(dtype)
        else:
            val = (rng.standard_normal(n) * 1e3).astype(dtype)
        if np.dtype(dtype).kind == "f" and n:
            val[rng.integers(0, n, 5)] = -0.0
            val[rng.integers(0, n, 1)] = np.nan
        want_runs, want, _ = group_reduce.group_reduce_rows(ptr, val.reshape(n, 1), "sum")
        for serial in (True, False):
            runs, sums = group_reduce.sum_runs_into(ptr, val, serial=serial)
            np.testing.assert_array_equal(runs, want_runs)
            assert sums.dtype == val.dtype
            np.testing.assert_array_equal(sums.view(np.uint8), want.reshape(-1).view(np.uint8))
    bad = np.array([0, 3, 2, 5])
    for serial in (True, False):
        with pytest.raises(ValueError, match="never decrease"):
            group_reduce.sum_runs_into(bad, np.ones(5), serial=serial)


@pytest.mark.parametrize("fill", [0.0, 1.5, np.nan])
@pytest.mark.parametrize("shape", [(40, 30), (30_000, 60)])  # the second past RUNS_SERIAL_WORK: the claimed chunks
def test_row_sums_match_dense_numpy(fill, shape):
    """``sparray.sum(A, axis=1)`` of a CSR with empty rows, against NumPy's sum of the dense array
    (the fill counted for every unspecified element), on every call: with a zero fill the calls
    after the first take the lean row sums (``sum_runs_into``: on the calling thread, or over the
    claimed chunks for the larger shape), other fills the general path."""
    rng = np.random.default_rng(5)
    M, N = shape
    lengths = rng.integers(1, 20, M)
    lengths[M // 4: M // 2] = 0  # a run of empty rows, and empty rows here and there
    lengths[rng.random(M) < 0.1] = 0
    ptr = np.zeros(M + 1, np.int32)
    np.cumsum(np.minimum(lengths, N), out=ptr[1:])
    idx = np.concatenate([np.sort(rng.choice(N, n, replace=False)) for n in np.diff(ptr)]).astype(np.int32)
    nse = int(ptr[-1])
    assert (nse >= group_reduce.RUNS_SERIAL_WORK) == (M > 1000)
    A = sparray.CSR(ptr, idx, rng.standard_normal(nse), shape, fill_value=fill)
    want = A.to_dense().sum(axis=1)
    for _ in range(3):
        np.testing.assert_allclose(np.asarray(sparray.sum(A, axis=1).to_dense()), want, rtol=1e-12, atol=1e-9)
