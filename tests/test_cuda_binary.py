"""merge_apply (COO) and merge_apply_rows (CSR/CSC) on the CUDA backend (kernels/cuda/binary.cu,
binary_rows.cu), emulated in CI, on CuPy where a GPU is: compared bit for bit with the numba kernels
and with the op applied by NumPy to dense operands, declines and errors included."""

import math

import numpy as np
import pytest

from cuda_testing import DEVICES, INDEX_DTYPES, requires_gxx, to_device, to_host
from sparray.kernels import KernelDeclined
from sparray.kernels.cpu.binary import merge_apply as cpu_merge_apply
from sparray.kernels.cpu.binary_rows import merge_apply_rows as cpu_merge_apply_rows
from sparray.kernels.cuda.binary import merge_apply
from sparray.kernels.cuda.binary_rows import merge_apply_rows

pytestmark = requires_gxx

MODES = ("union", "intersection", "left", "right")
OPS = ("add", "subtract", "multiply", "divide", "maximum", "minimum")
DTYPES = tuple(np.dtype(t) for t in ("float32", "float64", "int32", "int64"))


def _values(rng, n, m, dtype, extreme=False):
    """Small values, plus NaN, +-inf and -0.0 (floats), or with ``extreme`` integers that overflow
    when combined or pass 2**53."""
    dtype = np.dtype(dtype)
    v = rng.integers(-3, 4, size=(n, m)).astype(dtype)
    if n and dtype.kind == "f":
        special = np.array([np.nan, np.inf, -np.inf, -0.0, 0.0], dtype)
        pick = rng.random((n, m)) < 0.3
        v[pick] = rng.choice(special, size=int(pick.sum()))
    elif n and extreme:
        info = np.iinfo(dtype)
        pick = rng.random((n, m)) < 0.3
        v[pick] = rng.choice(np.array([info.max, info.min, info.max - 1, min(info.max, 2**53 + 1)], dtype), size=int(pick.sum()))
    return v


def _coo(rng, sparse_shape, n, idt, keys=None):
    """A coalesced COO index array (s, n): unique keys, row-major order."""
    size = math.prod(sparse_shape)
    if keys is None:
        keys = rng.choice(size, size=min(n, size), replace=False) if size < 2**40 else rng.integers(0, size, n)
    keys = np.unique(np.asarray(keys, np.int64))
    return np.array(np.unravel_index(keys, sparse_shape), dtype=idt).reshape(len(sparse_shape), keys.size)


def _check_dense(idx_a, va, fa, idx_b, vb, fb, sparse_shape, mode, op, idx, vals):
    """The output pattern is the mode's set of positions, in row-major order, and every value is
    NumPy's op on the two operands' values there (an operand's fill where it has no entry)."""

    def keys(i):
        if not sparse_shape:  # no sparse dim: one position
            return list(range(i.shape[1]))
        return np.ravel_multi_index(tuple(i.astype(np.int64)), sparse_shape).tolist() if i.shape[1] else []

    ka, kb, k = keys(idx_a), keys(idx_b), keys(idx)
    expect = {"union": set(ka) | set(kb), "intersection": set(ka) & set(kb), "left": set(ka), "right": set(kb)}[mode]
    assert k == sorted(expect)
    where_a, where_b = {key: i for i, key in enumerate(ka)}, {key: i for i, key in enumerate(kb)}
    fa, fb = np.broadcast_to(fa, vals.shape[1:]), np.broadcast_to(fb, vals.shape[1:])
    rows_a = np.array([va[where_a[key]] if key in where_a else fa for key in k], va.dtype).reshape(vals.shape)
    rows_b = np.array([vb[where_b[key]] if key in where_b else fb for key in k], vb.dtype).reshape(vals.shape)
    with np.errstate(all="ignore"):
        np.testing.assert_array_equal(vals, getattr(np, op)(rows_a, rows_b))


def _run_coo(device, idx_a, va, fa, idx_b, vb, fb, sparse_shape, mode, op, numba=True):
    args = [to_device(x, device) for x in (idx_a, va, fa, idx_b, vb, fb)]
    got = merge_apply(*args[:3], *args[3:], sparse_shape, mode, op)
    idx, vals = to_host(got[0]), to_host(got[1])
    expected = cpu_merge_apply(idx_a, va, fa, idx_b, vb, fb, sparse_shape, mode, op) if numba else ()
    for g, e in zip((idx, vals), expected):
        assert g.dtype == e.dtype and g.shape == e.shape
        np.testing.assert_array_equal(g, e)
    _check_dense(idx_a, va, fa, idx_b, vb, fb, sparse_shape, mode, op, idx, vals)


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("op", OPS)
@pytest.mark.parametrize("dtype", DTYPES, ids=str)
def test_merge_apply_every_op_and_dtype(device, dtype, op):
    rng = np.random.default_rng(5)
    shape = (30, 17)
    idx_a, idx_b = _coo(rng, shape, 120, np.int64), _coo(rng, shape, 90, np.int64)
    va, vb = _values(rng, idx_a.shape[1], 1, dtype), _values(rng, idx_b.shape[1], 1, dtype)
    fa = np.array([np.nan if dtype.kind == "f" else 2], dtype)
    if op == "divide" and dtype.kind == "i":  # no integer division kernel, as in numba
        args = (idx_a, va, fa, idx_b, vb, np.zeros(1, dtype), shape, "union", op)
        _same_error(cpu_merge_apply, merge_apply, args, device, KernelDeclined)
        return
    _run_coo(device, idx_a, va, fa, idx_b, vb, np.zeros(1, dtype), shape, "union", op)


def _coo_cases(rng, idt):
    """(idx_a, idx_b, sparse_shape, m): empty operands, identical and disjoint patterns, skew, m > 1,
    one and three sparse dims, no sparse dim, keys past 2**31."""
    s2 = (12, 9)
    same = _coo(rng, s2, 40, idt)
    return {
        "both_empty": (_coo(rng, s2, 0, idt), _coo(rng, s2, 0, idt), s2, 1),
        "a_empty": (_coo(rng, s2, 0, idt), _coo(rng, s2, 30, idt), s2, 1),
        "b_empty": (_coo(rng, s2, 25, idt), _coo(rng, s2, 0, idt), s2, 2),
        "identical": (same, same.copy(), s2, 1),
        "disjoint": (_coo(rng, s2, 0, idt, keys=range(0, 108, 2)), _coo(rng, s2, 0, idt, keys=range(1, 108, 2)), s2, 1),
        "overlap": (_coo(rng, s2, 60, idt), _coo(rng, s2, 50, idt), s2, 1),
        "skewed": (_coo(rng, (3000,), 700, idt), _coo(rng, (3000,), 0, idt, keys=[5, 2999]), (3000,), 1),
        "columns": (_coo(rng, (40,), 25, idt), _coo(rng, (40,), 30, idt), (40,), 3),
        "three_dims": (_coo(rng, (4, 5, 6), 50, idt), _coo(rng, (4, 5, 6), 40, idt), (4, 5, 6), 2),
        "no_sparse_dim": (np.zeros((0, 1), idt), np.zeros((0, 1), idt), (), 2),
        "big_keys": (_coo(rng, (2**20, 2**20), 40, idt), _coo(rng, (2**20, 2**20), 30, idt), (2**20, 2**20), 1),
    }


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("mode", MODES)
def test_merge_apply_modes_and_edge_cases(device, mode):
    # every case under each mode, with int32 and int64 indices in turn (keys past 2**31 with both)
    rng = np.random.default_rng(17)
    cases = [(k, idt, case) for idt in INDEX_DTYPES for k, case in enumerate(_coo_cases(rng, idt).items())]
    for k, idt, (name, (idx_a, idx_b, shape, m)) in cases:
        if k % 2 != (idt == np.int64) and name != "big_keys":
            continue
        va, vb = _values(rng, idx_a.shape[1], m, np.float64), _values(rng, idx_b.shape[1], m, np.float64)
        fa, fb = np.full(m, np.nan), np.array([np.inf, -1.0, -np.inf][:m])
        op = "subtract" if name != "overlap" else "maximum"
        _run_coo(device, idx_a, va, fa, idx_b, vb, fb, shape, mode, op)
    # int32 values and finite fills: the op's argument order per side
    for idt in INDEX_DTYPES:
        idx_a, idx_b = _coo(rng, (50,), 30, idt), _coo(rng, (50,), 30, idt)
        va, vb = _values(rng, 30, 1, np.int32), _values(rng, 30, 1, np.int32)
        _run_coo(device, idx_a, va, np.array([7], np.int32), idx_b, vb, np.array([-4], np.int32), (50,), mode, "subtract")


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("dtype", (np.dtype(np.int32), np.dtype(np.int64)), ids=str)
def test_integer_ops_wrap_like_numpy(device, dtype):
    # NumPy's integer semantics (wrap-around, exact past 2**53), checked against NumPy only: the
    # numba kernels compute integer ops through float64 (their _apply unifies with divide's
    # result type), so they saturate on overflow and round int64 values past 2**53
    rng = np.random.default_rng(31)
    idx_a, idx_b = _coo(rng, (6, 7), 30, np.int32), _coo(rng, (6, 7), 30, np.int32)
    va, vb = _values(rng, 30, 1, dtype, extreme=True), _values(rng, 30, 1, dtype, extreme=True)
    rows_a, rows_b = _csr(rng, 6, 7, 30, np.int64), _csr(rng, 6, 7, 30, np.int64)
    fa, fb = np.array([np.iinfo(dtype).max], dtype), np.array([3], dtype)
    for op in ("add", "subtract", "multiply", "maximum", "minimum"):
        _run_coo(device, idx_a, va, fa, idx_b, vb, fb, (6, 7), "union", op, numba=False)
    _run_rows(device, rows_a, va, fa, rows_b, vb, fb, (6, 7), "union", "multiply", numba=False)


@pytest.mark.parametrize("device", DEVICES)
def test_merge_apply_mixed_index_dtypes_and_scalar_fills(device):
    rng = np.random.default_rng(2)
    idx_a, idx_b = _coo(rng, (8, 8), 20, np.int32), _coo(rng, (8, 8), 20, np.int64)
    va, vb = _values(rng, 20, 1, np.float32), _values(rng, 20, 1, np.float32)
    _run_coo(device, idx_a, va, np.float32(1.5), idx_b, vb, np.float32(-2), (8, 8), "union", "multiply")
    idx, _ = merge_apply(to_device(idx_a, device), to_device(va, device), 0.0, to_device(idx_b, device),
                         to_device(vb, device), 0.0, (8, 8), "union", "add")
    assert to_host(idx).dtype == np.int64


def _same_error(cpu_fn, cuda_fn, args, device, exc=ValueError):
    with pytest.raises(exc) as expected:
        cpu_fn(*args)
    with pytest.raises(exc) as got:
        cuda_fn(*[to_device(a, device) if isinstance(a, np.ndarray) else a for a in args])
    assert str(got.value) == str(expected.value)
    return str(got.value)


@pytest.mark.parametrize("device", DEVICES)
def test_merge_apply_declines_like_numba(device):
    idx = np.array([[0, 2]])
    v64, f = np.array([[1.0], [2.0]]), np.zeros(1)

    def args(va=v64, vb=v64, mode="union", op="add", idx_a=idx, shape=(4,)):
        return (idx_a, va, f.astype(va.dtype), idx, vb, f.astype(vb.dtype), shape, mode, op)

    for bad in (args(op="power"), args(va=v64.astype(np.complex128), vb=v64.astype(np.complex128)),
                args(va=v64.astype(np.int64), vb=v64.astype(np.int64), op="divide"), args(va=v64.astype(np.float32)),
                args(va=v64.astype(np.int16), vb=v64.astype(np.int16))):  # fmt: skip
        _same_error(cpu_merge_apply, merge_apply, bad, device, KernelDeclined)
    assert "mode must be one of" in _same_error(cpu_merge_apply, merge_apply, args(mode="outer"), device)
    assert "index arrays must be (2, n)" in _same_error(cpu_merge_apply, merge_apply, args(shape=(4, 4)), device)
    assert "do not match" in _same_error(cpu_merge_apply, merge_apply, args(idx_a=np.array([[0, 1, 2]])), device)
    assert "one m" in _same_error(cpu_merge_apply, merge_apply, args(vb=np.ones((2, 2))), device)


# ---- compressed rows ---------------------------------------------------------------------------


def _csr(rng, nmajor, nminor, n, idt, skew=False):
    """Compressed and plain indices of a random (nmajor, nminor) pattern with n entries (most of
    them in one row with ``skew``)."""
    keys = rng.choice(nmajor * nminor, size=min(n, nmajor * nminor), replace=False) if nmajor * nminor else []
    keys = np.unique(np.asarray(keys, np.int64))
    if skew and keys.size:
        keys = np.unique(np.concatenate([keys[: keys.size // 4], nminor + rng.choice(nminor, nminor * 3 // 4, replace=False)]))
    rows, cols = keys // max(nminor, 1), keys % max(nminor, 1)
    ptr = np.concatenate([[0], np.cumsum(np.bincount(rows, minlength=nmajor))]).astype(idt)
    return ptr, cols.astype(idt)


def _run_rows(device, a, va, fa, b, vb, fb, shape, mode, op, numba=True):
    (ptr_a, minor_a), (ptr_b, minor_b) = a, b
    args = (ptr_a, minor_a, va, fa, ptr_b, minor_b, vb, fb, shape[1], mode, op)
    got = merge_apply_rows(*[to_device(x, device) if isinstance(x, np.ndarray) else x for x in args])
    got = [to_host(g) for g in got]
    expected = cpu_merge_apply_rows(*args) if numba else ()
    for g, e in zip(got, expected):
        assert g.dtype == e.dtype and g.shape == e.shape
        np.testing.assert_array_equal(g, e)
    ptr, minor, vals = got

    def pairs(p, mi):
        return np.stack([np.repeat(np.arange(shape[0]), np.diff(p.astype(np.int64))), mi.astype(np.int64)])

    _check_dense(pairs(ptr_a, minor_a), va, fa, pairs(ptr_b, minor_b), vb, fb, shape, mode, op, pairs(ptr, minor), vals)


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("op", OPS)
def test_merge_apply_rows_every_op(device, op):
    # the writers are binary.cu's (every op and dtype tested above): each op once, dtypes in turn
    dtype = DTYPES[(OPS.index(op) + 1) % len(DTYPES)]
    idt = INDEX_DTYPES[OPS.index(op) % 2]
    rng = np.random.default_rng(8)
    shape = (25, 14)
    a, b = _csr(rng, *shape, 110, idt), _csr(rng, *shape, 80, idt)
    va, vb = _values(rng, a[1].shape[0], 1, dtype), _values(rng, b[1].shape[0], 1, dtype)
    fb = np.array([np.nan if dtype.kind == "f" else -3], dtype)
    _run_rows(device, a, va, np.ones(1, dtype), b, vb, fb, shape, "union", op)


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("index_dtype", INDEX_DTYPES, ids=str)
@pytest.mark.parametrize("mode", MODES)
def test_merge_apply_rows_modes_and_edge_cases(device, mode, index_dtype):
    rng = np.random.default_rng(23)
    same = _csr(rng, 10, 8, 35, index_dtype)
    cases = {
        "both_empty": (_csr(rng, 6, 5, 0, index_dtype), _csr(rng, 6, 5, 0, index_dtype), (6, 5), 1),
        "no_rows": (_csr(rng, 0, 5, 0, index_dtype), _csr(rng, 0, 5, 0, index_dtype), (0, 5), 1),
        "a_empty": (_csr(rng, 6, 5, 0, index_dtype), _csr(rng, 6, 5, 12, index_dtype), (6, 5), 1),
        "b_empty": (_csr(rng, 6, 5, 14, index_dtype), _csr(rng, 6, 5, 0, index_dtype), (6, 5), 2),
        "identical": (same, tuple(x.copy() for x in same), (10, 8), 1),
        "overlap": (_csr(rng, 20, 15, 120, index_dtype), _csr(rng, 20, 15, 90, index_dtype), (20, 15), 1),
        "skewed_rows": (_csr(rng, 9, 400, 60, index_dtype, skew=True), _csr(rng, 9, 400, 50, index_dtype, skew=True), (9, 400), 1),
        "columns": (_csr(rng, 7, 6, 20, index_dtype), _csr(rng, 7, 6, 18, index_dtype), (7, 6), 3),
    }
    evens, odds = np.arange(0, 60, 2, dtype=index_dtype), np.arange(1, 60, 2, dtype=index_dtype)
    cases["disjoint"] = ((np.array([0, 30], index_dtype), evens), (np.array([0, 30], index_dtype), odds), (1, 60), 1)
    for case, (a, b, shape, m) in cases.items():
        va, vb = _values(rng, a[1].shape[0], m, np.float64), _values(rng, b[1].shape[0], m, np.float64)
        fa, fb = np.full(m, -np.inf), np.full(m, np.nan) if case != "overlap" else np.full(m, 2.5)
        op = "maximum" if case in ("overlap", "skewed_rows") else "subtract"
        _run_rows(device, a, va, fa, b, vb, fb, shape, mode, op)
    a, b = _csr(rng, 12, 12, 50, index_dtype), _csr(rng, 12, 12, 40, index_dtype)
    va, vb = _values(rng, 50, 1, np.int64), _values(rng, 40, 1, np.int64)
    _run_rows(device, a, va, np.array([5]), b, vb, np.array([-1]), (12, 12), mode, "subtract")


@pytest.mark.parametrize("device", DEVICES)
def test_merge_apply_rows_index_dtypes_and_errors(device):
    rng = np.random.default_rng(4)
    (pa, ma), (pb, mb) = _csr(rng, 5, 5, 10, np.int32), _csr(rng, 5, 5, 9, np.int32)
    va, vb = _values(rng, 10, 1, np.float32), _values(rng, 9, 1, np.float32)
    _run_rows(device, (pa, ma.astype(np.int64)), va, np.float32(0), (pb, mb), vb, np.float32(1), (5, 5), "union", "add")
    args = (pa, ma, va, np.zeros(1, np.float32), pb, mb, vb, np.zeros(1, np.float32), 5, "union", "add")

    def bad(i, value):
        return args[:i] + (value,) + args[i + 1:]

    assert "1-D of one length" in _same_error(cpu_merge_apply_rows, merge_apply_rows, bad(4, pb[:-1]), device)
    assert "do not match" in _same_error(cpu_merge_apply_rows, merge_apply_rows, bad(2, va[:-1]), device)
    assert "mode must be one of" in _same_error(cpu_merge_apply_rows, merge_apply_rows, bad(9, "xor"), device)
    _same_error(cpu_merge_apply_rows, merge_apply_rows, bad(10, "hypot"), device, KernelDeclined)
    _same_error(cpu_merge_apply_rows, merge_apply_rows, bad(6, vb.astype(np.float64)), device, KernelDeclined)
    ints = bad(2, np.ones((10, 1), np.int32))[:6] + (np.ones((9, 1), np.int32),) + args[7:10] + ("divide",)
    _same_error(cpu_merge_apply_rows, merge_apply_rows, ints, device, KernelDeclined)
