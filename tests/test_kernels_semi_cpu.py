"""The 2:4 layout's CPU kernels (``sparray.kernels.cpu.semi_structured``) against dense NumPy.

The components are built here from the spec, independently of the kernels: a random pattern (one
of the six codes per group of 4), random values at the kept positions (some equal to the fill),
the codes packed four to a uint16 word, unused nibbles 0x4. The dense matrix is the fill with the
values scattered in; products are checked against NumPy's in float64 / int64 / complex128.

Each values dtype compiles every product kernel once (seconds): the grid is a few shapes that
meet every code path (rows 1, cols 4 (no full word), 20 and 100 (a last word of 1 group), 48 (an
odd number of words), 272 (17 words: the AVX-512 steps of 8 and 4 words plus the rest)), and the
parallel kernels for a few dtypes only.
"""

import ctypes
import mmap
import sys

import numba
import numpy as np
import pytest

from sparray.kernels import KernelDeclined
from sparray.kernels.cpu import _threads
from sparray.kernels.cpu import semi_structured as ss

CODES = np.array([0x4, 0x8, 0xC, 0x9, 0xD, 0xE])
PAIRS = {0x4: (0, 1), 0x8: (0, 2), 0xC: (0, 3), 0x9: (1, 2), 0xD: (1, 3), 0xE: (2, 3)}
DTYPES = [np.float16, np.float32, np.float64, np.int8, np.int16, np.int32, np.int64, np.uint8,
          np.complex64, np.complex128]
SHAPES = [(1, 4), (5, 20), (3, 48), (2, 100), (6, 272)]
NS = [None, 1, 3, 8, 9, 17, 70]  # None: a vector; 70 crosses a 64-float32 (32-float64) tile


def nonzero_fill(dtype):
    return {"f": 1.5, "c": 1.5 - 0.5j}.get(np.dtype(dtype).kind, 3)


def rand(rng, shape, dtype):
    dtype = np.dtype(dtype)
    if dtype.kind == "u":
        return rng.integers(0, 9, shape).astype(dtype)
    if dtype.kind == "i":
        return rng.integers(-6, 7, shape).astype(dtype)
    if dtype.kind == "f":
        return (2 * rng.standard_normal(shape)).astype(dtype)
    return (rng.standard_normal(shape) + 1j * rng.standard_normal(shape)).astype(dtype)


def pack(codes):
    """uint16 words of the codes ``(..., ngroups)``: little-endian nibbles, unused ones 0x4."""
    *lead, ng = codes.shape
    words = -(-ng // 4)
    full = np.full((*lead, 4 * words), 0x4, np.uint16)
    full[..., :ng] = codes
    full = full.reshape(*lead, words, 4)
    return (full[..., 0] | full[..., 1] << 4 | full[..., 2] << 8 | full[..., 3] << 12).astype(np.uint16)


def components(rng, lead, rows, cols, dtype, fill):
    """(values, metadata, dense) of a random 2:4 matrix (stack), built from the spec."""
    ng = cols // 4
    codes = CODES[rng.integers(0, 6, (*lead, rows, ng))]
    values = rand(rng, (*lead, rows, cols // 2), dtype)
    values[rng.random(values.shape) < 0.15] = fill  # a kept position may hold the fill
    dense = np.full((*lead, rows, cols), fill, dtype)
    i0, i1 = codes & 3, codes >> 2
    base = 4 * np.arange(ng)
    np.put_along_axis(dense, base + i0, values[..., 0::2], axis=-1)
    np.put_along_axis(dense, base + i1, values[..., 1::2], axis=-1)
    return values, pack(codes), dense


def wide(a):
    kind = a.dtype.kind
    return a.astype({"f": np.float64, "c": np.complex128}.get(kind, np.int64))


def check(actual, dense_ref, absolute, dtype, k):
    """``actual`` (the kernel's) against ``dense_ref`` (wide). ``absolute`` = (|A| + |f|) @ |x|, the
    scale of the rounding errors of a sum of ``k`` products (the fill's term included): each may
    move it by an epsilon of the sum dtype; float16 then rounds once (half an ulp of float16)."""
    dtype = np.dtype(dtype)
    assert actual.dtype == dtype and actual.shape == dense_ref.shape, (actual.dtype, actual.shape, dense_ref.shape)
    if dtype.kind in "iu":
        np.testing.assert_array_equal(actual, dense_ref.astype(dtype))  # wraps around as NumPy's ints do
        return
    eps = np.finfo(np.float32 if dtype in (np.float16, np.float32, np.complex64) else np.float64).eps
    err = np.abs(wide(actual) - dense_ref)
    bound = (k + 2) * eps * absolute
    if dtype == np.float16:
        bound = bound + 2.0**-11 * np.abs(dense_ref) + 2.0**-24
    assert (err <= bound).all(), f"max error {err.max():.3g}, at {np.unravel_index(np.argmax(err - bound), err.shape)}"


def products(values, metadata, dense, x_right, x_left, fill, cols, dtype):
    """Both products against the dense ones."""
    a = np.abs(wide(dense)) + abs(fill)
    got = ss.semi_matmul_dense(values, metadata, x_right, fill, cols)
    check(got, wide(dense) @ wide(x_right), a @ np.abs(wide(x_right)), dtype, cols)
    got = ss.dense_matmul_semi(x_left, values, metadata, fill, cols)
    check(got, wide(x_left) @ wide(dense), np.abs(wide(x_left)) @ a, dtype, dense.shape[-2])


# every dtype meets every product in the tests below; these seven compile the products here (CI time)
PRODUCT_DTYPES = [np.float16, np.float32, np.float64, np.int8, np.int64, np.uint8, np.complex128]


@pytest.mark.parametrize("dtype", PRODUCT_DTYPES, ids=lambda d: np.dtype(d).name)
@pytest.mark.parametrize("fill_kind", ["zero", "nonzero"])
def test_products_match_dense(dtype, fill_kind):
    rng = np.random.default_rng(1)
    fill = 0 if fill_kind == "zero" else nonzero_fill(dtype)
    for rows, cols in SHAPES:
        values, metadata, dense = components(rng, (), rows, cols, dtype, fill)
        for n in NS if cols == 272 else [None, 3, 8]:
            xr = rand(rng, (cols,) if n is None else (cols, n), dtype)
            xl = rand(rng, (rows,) if n is None else (n, rows), dtype)
            products(values, metadata, dense, xr, xl, fill, cols, dtype)


@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.int16, np.complex64], ids=lambda d: np.dtype(d).name)
def test_batched_and_broadcast(dtype):
    rng = np.random.default_rng(2)
    B, rows, cols = 3, 4, 52
    fill = nonzero_fill(dtype)
    values, metadata, dense = components(rng, (B,), rows, cols, dtype, fill)
    for n in (None, 5):
        xr = rand(rng, (B, cols) if n is None else (B, cols, n), dtype)
        xl = rand(rng, (B, rows) if n is None else (B, n, rows), dtype)
        if n is None:  # batched vectors: one per batch
            a = np.abs(wide(dense)) + abs(fill)
            ref_r, ref_l = np.einsum("bij,bj->bi", wide(dense), wide(xr)), np.einsum("bi,bij->bj", wide(xl), wide(dense))
            abs_r = np.einsum("bij,bj->bi", a, np.abs(wide(xr)))
            abs_l = np.einsum("bi,bij->bj", np.abs(wide(xl)), a)
            check(ss.semi_matmul_dense(values, metadata, xr, fill, cols), ref_r, abs_r, dtype, cols)
            check(ss.dense_matmul_semi(xl, values, metadata, fill, cols), ref_l, abs_l, dtype, rows)
        else:
            products(values, metadata, dense, xr, xl, fill, cols, dtype)
        # one side of batch 1, as np.broadcast_to makes it (stride 0: read without a copy)
        v1, m1, d1 = values[:1], metadata[:1], dense[:1]
        vb, mb = np.broadcast_to(v1, values.shape), np.broadcast_to(m1, metadata.shape)
        db = np.broadcast_to(d1, dense.shape)
        if n is None:
            check(ss.semi_matmul_dense(vb, mb, xr, fill, cols), np.einsum("bij,bj->bi", wide(db), wide(xr)),
                  np.einsum("bij,bj->bi", np.abs(wide(db)) + abs(fill), np.abs(wide(xr))), dtype, cols)
            x1 = np.broadcast_to(xr[:1], xr.shape)
            check(ss.semi_matmul_dense(values, metadata, x1, fill, cols), np.einsum("bij,bj->bi", wide(dense), wide(x1)),
                  np.einsum("bij,bj->bi", np.abs(wide(dense)) + abs(fill), np.abs(wide(x1))), dtype, cols)
        else:
            products(vb, mb, db, xr, xl, fill, cols, dtype)
            products(values, metadata, dense, np.broadcast_to(xr[:1], xr.shape), np.broadcast_to(xl[:1], xl.shape),
                     fill, cols, dtype)
            # a single matrix times a batch of them
            products(values[0], metadata[0], np.broadcast_to(dense[0], dense.shape), xr, xl, fill, cols, dtype)


def test_shapes_of_results():
    rng = np.random.default_rng(3)
    values, metadata, _ = components(rng, (), 3, 20, np.float64, 0.0)
    assert ss.semi_matmul_dense(values, metadata, np.ones(20), 0.0, 20).shape == (3,)
    assert ss.semi_matmul_dense(values, metadata, np.ones((20, 2)), 0.0, 20).shape == (3, 2)
    assert ss.semi_matmul_dense(values, metadata, np.ones((4, 20, 2)), 0.0, 20).shape == (4, 3, 2)
    assert ss.dense_matmul_semi(np.ones(3), values, metadata, 0.0, 20).shape == (20,)
    assert ss.dense_matmul_semi(np.ones((2, 3)), values, metadata, 0.0, 20).shape == (2, 20)
    assert ss.dense_matmul_semi(np.ones((4, 2, 3)), values, metadata, 0.0, 20).shape == (4, 2, 20)
    assert ss.semi_matmul_dense(values[None], metadata[None], np.ones((1, 20)), 0.0, 20).shape == (1, 3)
    # empty operands: zeros of the exact shape
    assert ss.semi_matmul_dense(values, metadata, np.ones((20, 0)), 1.5, 20).shape == (3, 0)
    e = ss.semi_matmul_dense(np.ones((2, 0)), np.ones((2, 0), np.uint16), np.ones(0), 1.5, 0)
    assert e.tolist() == [0.0, 0.0]
    assert ss.dense_matmul_semi(np.ones(0), np.ones((0, 10)), np.ones((0, 2), np.uint16), 1.5, 20).tolist() == [0.0] * 20


def test_bad_arguments_say_what_was_expected():
    rng = np.random.default_rng(4)
    values, metadata, _ = components(rng, (), 3, 20, np.float64, 0.0)
    with pytest.raises(ValueError, match=r"\(3, 10\).*\(3, 1\).*cols=20"):
        ss.semi_matmul_dense(values, metadata[:, :1], np.ones(20), 0.0, 20)
    with pytest.raises(ValueError, match="multiple of 4"):
        ss.semi_matmul_dense(values, metadata, np.ones(20), 0.0, 18)
    with pytest.raises(ValueError, match=r"\(16,\).*20"):
        ss.semi_matmul_dense(values, metadata, np.ones(16), 0.0, 20)
    with pytest.raises(ValueError, match=r"\(7, 2\)"):
        ss.semi_matmul_dense(values, metadata, np.ones((7, 2)), 0.0, 20)
    with pytest.raises(ValueError, match=r"\(4,\).*rows.*3"):
        ss.dense_matmul_semi(np.ones(4), values, metadata, 0.0, 20)
    with pytest.raises(ValueError, match=r"batch sizes.*\(2, 3, 10\).*\(3, 20\)"):
        ss.semi_matmul_dense(np.stack([values] * 2), np.stack([metadata] * 2), np.ones((3, 20)), 0.0, 20)
    with pytest.raises(ValueError, match="uint16"):
        ss.semi_matmul_dense(values, metadata.astype(np.int32), np.ones(20), 0.0, 20)
    with pytest.raises(KernelDeclined, match="float64.*float32"):
        ss.semi_matmul_dense(values, metadata, np.ones(20, np.float32), 0.0, 20)
    with pytest.raises(KernelDeclined, match="bool"):
        ss.dense_matmul_semi(np.ones(3, bool), values.astype(bool), metadata, False, 20)
    with pytest.raises(KernelDeclined, match="object"):
        ss.semi_encode(np.ones((2, 4), object), 0)
    iv, im, _ = components(rng, (), 3, 20, np.int16, 0)
    with pytest.raises(ValueError, match="fill 1.5 is not a value of the dtype int16"):
        ss.semi_matmul_dense(iv, im, np.ones(20, np.int16), 1.5, 20)
    with pytest.raises(ValueError, match="0-d"):
        ss.semi_decode(values, metadata, np.zeros(2), 20)


@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.float64, np.int32, np.int64], ids=lambda d: np.dtype(d).name)
def test_portable_form_where_the_permute_form_runs(dtype, monkeypatch):
    """SV_PERMUTE 0: the SpMV's portable form on an AVX-512 machine (elsewhere it is the only one)."""
    monkeypatch.setattr(ss, "SV_PERMUTE", 0)
    rng = np.random.default_rng(5)
    for rows, cols in [(3, 272), (2, 100)]:
        values, metadata, dense = components(rng, (), rows, cols, dtype, nonzero_fill(dtype))
        x = rand(rng, cols, dtype)
        check(ss.semi_matmul_dense(values, metadata, x, nonzero_fill(dtype), cols), wide(dense) @ wide(x),
              (np.abs(wide(dense)) + abs(nonzero_fill(dtype))) @ np.abs(wide(x)), dtype, cols)


@pytest.mark.parametrize("dtype", [np.float32, np.complex128], ids=lambda d: np.dtype(d).name)
def test_parallel_kernels_give_the_serial_bits(dtype, monkeypatch):
    """The parallel kernels run the serial ones' row loops (dtype-independent scheduling: two
    dtypes, one through the vector IR, one through plain numba code), so the same bits."""
    rng = np.random.default_rng(6)
    rows, cols = 67, 272
    fill = nonzero_fill(dtype)
    values, metadata, dense = components(rng, (2,), rows, cols, dtype, fill)
    cases = [(rand(rng, (2, cols), dtype), rand(rng, (2, rows), dtype)),
             (rand(rng, (2, cols, 9), dtype), rand(rng, (2, 6, rows), dtype))]
    serial = [(ss.semi_matmul_dense(values, metadata, xr, fill, cols), ss.dense_matmul_semi(xl, values, metadata, fill, cols))
              for xr, xl in cases]
    for name in ("SV_SERIAL_WORK", "MM_SERIAL_WORK", "XS_SERIAL_WORK"):
        monkeypatch.setattr(ss, name, 0)
    for (xr, xl), (yr, yl) in zip(cases, serial):
        pr = ss.semi_matmul_dense(values, metadata, xr, fill, cols)
        pl = ss.dense_matmul_semi(xl, values, metadata, fill, cols)
        np.testing.assert_array_equal(pr, yr)
        np.testing.assert_array_equal(pl, yl)
    products(values, metadata, dense, cases[1][0], cases[1][1], fill, cols, dtype)


def test_float16_sums_in_float32_and_rounds_once():
    """float16 values and x: the result is the float32 product of the same (widened) inputs rounded
    to float16: within one float16 ulp of it (half an ulp for the rounding, the rest for float32
    sums in another order than NumPy's), far closer than a float16 accumulation would be."""
    rng = np.random.default_rng(7)
    rows, cols, n = 40, 1024, 8
    values, metadata, dense = components(rng, (), rows, cols, np.float16, 0.25)
    x = rand(rng, (cols, n), np.float16)
    ref32 = dense.astype(np.float32) @ x.astype(np.float32)
    got = ss.semi_matmul_dense(values, metadata, x, 0.25, cols)
    ulp = np.spacing(np.abs(ref32).astype(np.float16)).astype(np.float32)
    assert (np.abs(got.astype(np.float32) - ref32) <= ulp + 1e-6 * (np.abs(dense.astype(np.float32)) @ np.abs(x.astype(np.float32)))).all()
    xv = rand(rng, cols, np.float16)
    ref32 = dense.astype(np.float32) @ xv.astype(np.float32)
    got = ss.semi_matmul_dense(values, metadata, xv, 0.25, cols)
    assert (np.abs(got.astype(np.float32) - ref32) <= np.spacing(np.abs(ref32).astype(np.float16)).astype(np.float32) + 1e-4).all()


def test_soft_float16_widening_is_exact(monkeypatch):
    """The integer form of the float16 -> float32 widening (CPUs without F16C), compiled here
    into kernels of its own: every one of the 65536 bit patterns, scalar and 8 at a time."""
    monkeypatch.setattr(ss, "SOFT_HALF", True)
    bits = np.arange(1 << 16, dtype=np.uint16)
    ref = bits.view(np.float16).astype(np.float32)

    @numba.njit(cache=False)
    def scalar(b):
        out = np.empty(b.shape[0], np.float32)
        for i in range(b.shape[0]):
            out[i] = ss._value(b, i)
        return out

    @numba.njit(cache=False)
    def vector(b, meta, y, nwords):
        # one row of S (every value kept at positions (0, 1)) times x = 1: y[4g + p] = value
        one = np.ones(1, np.float32)
        ss._xs_one(b, meta, one, y, 0, 0, 0, 0, 0, 1, 0, 0, 1, 0, nwords, np.float32(0))

    got = scalar(bits)
    both_nan = np.isnan(got) & np.isnan(ref)
    assert (both_nan | (got.view(np.uint32) == ref.view(np.uint32))).all()
    meta = np.full(bits.size // 8, 0x4444, np.uint16)
    y = np.full(2 * bits.size, -0.0, np.float32)  # v * 1 + (-0.0) is v, -0.0 included
    vector(bits, meta, y, bits.size // 8)
    got = y.reshape(-1, 4)[:, :2].reshape(-1)
    both_nan = np.isnan(got) & np.isnan(ref)
    assert (both_nan | (got.view(np.uint32) == ref.view(np.uint32))).all()


def _reference_first_bad(metadata, cols):
    ng = cols // 4
    words = metadata.shape[-1]
    nib = (metadata[..., None] >> (4 * np.arange(4)).astype(np.uint16)) & 15
    nib = nib.reshape(*metadata.shape[:-1], 4 * words)
    bad = np.zeros(nib.shape, bool)
    bad[..., :ng] = ~np.isin(nib[..., :ng], CODES)
    bad[..., ng:] = nib[..., ng:] != 4
    if not bad.any():
        return -1
    return tuple(int(i) for i in np.unravel_index(np.flatnonzero(bad)[0], bad.shape))


def _guarded(a):
    """A copy of ``a`` whose last byte is the last one before a page the process may not read
    (Linux): a kernel that reads one element past the end dies of SIGSEGV. The array holds the
    mapping (its buffer) alive."""
    page = mmap.PAGESIZE
    n = a.nbytes
    size = -(-n // page) * page + page
    buf = mmap.mmap(-1, size, prot=mmap.PROT_READ | mmap.PROT_WRITE)
    start = size - page - n
    out = np.frombuffer(buf, dtype=a.dtype, count=a.size, offset=start).reshape(a.shape)
    out[...] = a
    addr = ctypes.addressof(ctypes.c_char.from_buffer(buf)) + size - page
    libc = ctypes.CDLL(None, use_errno=True)
    assert libc.mprotect(ctypes.c_void_p(addr), ctypes.c_size_t(page), 0) == 0
    return out


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="guard pages through mprotect (Linux)")
@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.float16, np.complex128], ids=lambda d: np.dtype(d).name)
def test_any_code_stays_in_bounds_and_the_validator_finds_the_bad_ones(dtype):
    """Random metadata (all 16 nibble values, unused nibbles too): every product and decode runs
    without reading past the operands (each placed against a guard page), and
    ``semi_metadata_valid`` names the first bad (batch, row, group) as NumPy finds it."""
    rng = np.random.default_rng(8)
    for lead, rows, cols in [((), 3, 20), ((2,), 2, 272), ((), 1, 4), ((2,), 3, 100)]:
        values = _guarded(rand(rng, (*lead, rows, cols // 2), dtype))
        metadata = _guarded(rng.integers(0, 1 << 16, (*lead, rows, -(-cols // 16))).astype(np.uint16))
        assert ss.semi_metadata_valid(metadata, cols) == _reference_first_bad(metadata, cols)
        for n in (None, 9):
            xr = _guarded(rand(rng, (*lead, cols) if n is None else (*lead, cols, n), dtype))
            xl = _guarded(rand(rng, (*lead, rows) if n is None else (*lead, n, rows), dtype))
            assert np.isfinite(ss.semi_matmul_dense(values, metadata, xr, 1.5, cols)).all()
            assert np.isfinite(ss.dense_matmul_semi(xl, values, metadata, 1.5, cols)).all()
        ss.semi_decode(values, metadata, 1.5, cols)
    good = pack(CODES[rng.integers(0, 6, (2, 3, 5))])
    assert ss.semi_metadata_valid(good, 20) == -1
    bad_used = good.copy()
    bad_used[1, 2, 0] = (bad_used[1, 2, 0] & 0xFF0F) | 0x0050  # group 1: code 5 (1, 1)
    assert ss.semi_metadata_valid(bad_used, 20) == (1, 2, 1)
    bad_unused = good.copy()
    bad_unused[0, 1, 1] = (bad_unused[0, 1, 1] & 0x0FFF) | 0xE000  # nibble 7 of 5 groups: must be 0x4
    assert ss.semi_metadata_valid(bad_unused, 20) == (0, 1, 7)


def same_value(a, b):
    """sparray's fill rule element-wise: equal with the same sign of zero, or both nan (complex:
    both parts so); integers and booleans equal."""
    b = np.asarray(b, a.dtype)

    def real(p, q):
        return ((p == q) & (np.signbit(p) == np.signbit(q))) | (np.isnan(p) & np.isnan(q))

    if a.dtype.kind == "f":
        return real(a, b)
    if a.dtype.kind == "c":
        return real(a.real, b.real) & real(a.imag, b.imag)
    return a == b


def reference_encode(dense, fill):
    """The spec's encoding in NumPy: per group the non-fill positions (``same_value``: nan-aware,
    signed zeros differ), padded with the lowest free positions; the first bad group or -1."""
    *lead, rows, cols = dense.shape
    g = dense.reshape(*lead, rows, cols // 4, 4)
    other = ~same_value(g, fill)
    count = other.sum(-1)
    flat = np.flatnonzero(count > 2)
    bad = -1 if flat.size == 0 else tuple(int(i) for i in np.unravel_index(flat[0], count.shape))
    key = np.where(other, 0, 4) + np.arange(4)
    first2 = np.sort(np.argsort(key, axis=-1, kind="stable")[..., :2], axis=-1)
    values = np.take_along_axis(g, first2, axis=-1).reshape(*lead, rows, cols // 2)
    codes = (first2[..., 0] | first2[..., 1] << 2).astype(np.uint16)
    return values, pack(codes), bad


def _same_bits(a, b):
    return a.shape == b.shape and np.array_equal(np.ascontiguousarray(a).view(np.uint8), np.ascontiguousarray(b).view(np.uint8))


@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.float64, np.int8, np.uint16, np.complex64, np.bool_],
                         ids=lambda d: np.dtype(d).name)
def test_encode_decode_round_trip(dtype):
    rng = np.random.default_rng(9)
    kind = np.dtype(dtype).kind
    fills = {"f": [0.0, -0.0, 1.5, np.nan], "c": [0.0, 1.5 - 0.5j, complex(np.nan, 0)], "b": [False, True]}.get(kind, [0, 3])
    for fill in fills:
        for lead, rows, cols in [((), 1, 4), ((2, 3), 3, 20), ((), 5, 272)]:
            _, _, dense = components(rng, lead, rows, cols, dtype, fill) if kind != "b" else (None, None, rng.random((*lead, rows, cols)) < 0.3)
            if kind == "b":  # at most 2 of each group differ from the fill
                g = dense.reshape(*lead, rows, cols // 4, 4)
                g[..., 2:] = fill
            if kind == "f":
                flat = dense.reshape(-1)
                if fill == 0:  # some elements the other zero: not the fill, so kept
                    other = ~same_value(flat, fill) & (rng.random(flat.size) < 0.3)
                    flat[other] = -fill
                if np.isnan(fill):  # nan of another sign is the fill nan all the same
                    flat[np.isnan(flat)] = -np.nan
            values, metadata, bad = ss.semi_encode(dense, fill)
            rv, rm, rbad = reference_encode(dense, fill)
            assert bad == rbad == -1
            assert _same_bits(values, rv) and np.array_equal(metadata, rm)
            back = ss.semi_decode(values, metadata, fill, cols)
            assert back.dtype == dense.dtype and same_value(back, dense).all()
            assert _same_bits(back[~same_value(dense, fill)], dense[~same_value(dense, fill)])
            assert ss.semi_metadata_valid(metadata, cols) == -1
    # too many in a group: the first (batch, row, group), and the encoding of the rest still made
    dense = np.zeros((2, 3, 8), dtype)
    dense[1, 2, 4:7] = 1
    dense[1, 2, 1] = 1
    assert ss.semi_encode(dense, 0)[2] == (1, 2, 1)
    assert ss.semi_encode(dense[1, 2:], 0)[2] == (0, 1)


def test_encode_rules():
    """Fewer than two non-fill elements keep the lowest free positions; -0.0 is not the fill 0.0;
    nan is nan's fill whatever its payload; uint16 data are integers, not float16 bits."""
    d = np.array([[0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 7.0, 0.0, 0.0, -0.0, 0.0, 0.0, 0.0, 5.0, 0.0, 6.0]])
    values, metadata, bad = ss.semi_encode(d, 0.0)
    assert bad == -1
    assert values.tolist() == [[0.0, 0.0, 0.0, 7.0, 0.0, -0.0, 5.0, 6.0]] and np.signbit(values[0, 5])
    assert hex(int(metadata[0, 0])) == hex(0x4 | 0x8 << 4 | 0x4 << 8 | 0xD << 12)
    nan2 = np.array([np.nan]).view(np.uint64) ^ np.uint64(1)
    d = np.array([[np.nan, nan2.view(np.float64)[0], 2.0, np.nan]])
    values, metadata, bad = ss.semi_encode(d, np.nan)
    assert bad == -1 and values[0, 1] == 2.0 and int(metadata[0, 0]) & 0xF == 0x8
    u = np.array([[0x7C02, 0x7C02, 0x7C01, 0x7C02]], np.uint16)  # as float16 bits all nan; as integers one differs
    values, metadata, _ = ss.semi_encode(u, 0x7C02)
    assert int(metadata[0, 0]) & 0xF == 0x8 and values.tolist() == [[0x7C02, 0x7C01]]
    values, metadata, _ = ss.semi_encode(u.view(np.float16), u.view(np.float16)[0, 0])
    assert int(metadata[0, 0]) & 0xF == 0x4 and values.view(np.uint16).tolist() == [[0x7C02, 0x7C02]]


def test_every_parallel_kernel_runs_inside_a_team(monkeypatch):
    """The rule of tests/test_threads.py for this module's kernels: each parallel dispatcher is
    launched inside a team (with every crossover forced to 0)."""
    outside = set()
    for name, obj in list(vars(ss).items()):
        if isinstance(obj, numba.core.registry.CPUDispatcher) and obj.targetoptions.get("parallel"):

            def guarded(*args, _kernel=obj, _name=name):
                if not getattr(_threads._LOCAL, "depth", 0):
                    outside.add(_name)
                return _kernel(*args)

            monkeypatch.setattr(ss, name, guarded)
    for name in ("SV_SERIAL_WORK", "MM_SERIAL_WORK", "XS_SERIAL_WORK", "CODEC_SERIAL_WORK"):
        monkeypatch.setattr(ss, name, 0)
    rng = np.random.default_rng(10)
    for dtype in (np.float32, np.complex128):
        values, metadata, dense = components(rng, (), 40, 64, dtype, 0)
        ss.semi_matmul_dense(values, metadata, rand(rng, 64, dtype), 0, 64)
        ss.semi_matmul_dense(values, metadata, rand(rng, (64, 8), dtype), 0, 64)
        ss.dense_matmul_semi(rand(rng, 40, dtype), values, metadata, 0, 64)
        ss.semi_encode(dense, 0)
        ss.semi_decode(values, metadata, 0, 64)
    assert not outside, f"parallel kernels launched outside a team: {sorted(outside)}"


def test_benchmark_inputs_and_calls_agree_with_dense():
    """``benchmarks/semi.py`` (``bench.py --semi``) at a tiny size: its matrix is 2:4 and each of its
    columns computes the dense product (the benchmark itself checks the large sizes)."""
    import importlib.util
    import pathlib

    path = pathlib.Path(__file__).resolve().parents[1] / "benchmarks" / "semi.py"
    spec = importlib.util.spec_from_file_location("_bench_semi", path)
    semi = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(semi)
    D = semi.random_2_4(64)
    assert ((D.reshape(64, 16, 4) != 0).sum(-1) == 2).all()
    _, A = semi.semi_array(D)
    xs = semi.operands(64, np.random.default_rng(0))
    for op in semi.OPS:
        x = xs[op]
        ref = x.astype(np.float64) @ D if op == "x @ A" else D.astype(np.float64) @ x
        got = semi.calls(op, {"2:4": A, "dense": D}, x)
        for fn in got.values():
            np.testing.assert_allclose(semi.as_numpy(fn()), ref, rtol=1e-4, atol=1e-4)
