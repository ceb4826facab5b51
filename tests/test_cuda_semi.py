"""2:4 semi-structured products on the CUDA backend (kernels/cuda/semi_structured.cu): S @ X on CUDA
cores and on sparse tensor cores (mma.sp, emulated in CI by _emulate_mma.h's reference), X @ S on
CUDA cores, and the tensor cores' metadata layout, on the emulator, the simulated device and CuPy
where a GPU is, against dense NumPy on random 2:4 matrices encoded here from the spec
(/work/notes/semi_spec.md: values (*batch, rows, cols/2), uint16 metadata, a code i0 | i1 << 2 per
group of 4 columns, spare nibbles 0x4).

Tolerances: integer dtypes are compared exactly (they wrap as NumPy's int8 @ int8 does); float16
data made of small integers (sums exact in float32) exactly, both kernels bit for bit against the
exact sum rounded once to float16, so the final rounding (ties included) is checked; float16
quarters against the float32 product rounded to float16 within one float16 ulp of the result plus
2^-12 of its largest magnitude (the kernel and the reference each round once, and their float32
sums may differ in order: k 2^-24 relative); float32 rtol 1e-5, float64 and complex128 rtol 1e-12."""

import ctypes
import mmap

import numpy as np
import pytest

from cuda_testing import DEVICES, random_values, requires_gxx
from sparray.kernels import KernelDeclined
from sparray.kernels.cuda import semi_structured as semi
from sparray.kernels.cuda import simulated
from sparray.kernels.cuda._driver import driver_for

pytestmark = requires_gxx

PLACES = ("emulator", "simulated") + tuple(d for d in DEVICES if d != "emulator")
VALID = np.array([0x4, 0x8, 0x9, 0xC, 0xD, 0xE])
DTYPES = tuple(np.dtype(t) for t in ("float16", "float32", "float64", "int8"))


def _put(a, place):
    a = np.ascontiguousarray(a)
    if place == "simulated":
        return simulated.to_simulated(a)
    if place == "cupy":
        import cupy

        return cupy.asarray(a)
    return a


def _host(a):
    return a.get() if hasattr(a, "get") else np.asarray(a)


def _fill_for(dtype, nonzero):
    """The test fills: 0 and 1.5 (3 for integers, which 1.5 does not cast to)."""
    if not nonzero:
        return 0
    return 3 if np.dtype(dtype).kind in "iu" else 1.5


def _words(codes):
    """The metadata words of codes (..., rows, G): group g at bits 4 (g % 4) of word g // 4, spare
    nibbles of the last word 0x4 (the spec's packing)."""
    G = codes.shape[-1]
    W = -(-G // 4)
    full = np.full((*codes.shape[:-1], 4 * W), 4, np.uint64)
    full[..., :G] = codes
    return (full.reshape(*codes.shape[:-1], W, 4) << (4 * np.arange(4, dtype=np.uint64))).sum(-1).astype(np.uint16)


def _scatter(values, codes, cols, fill, dtype):
    """The dense matrix of values and per-group codes as written: value 2g at column 4g + (code & 3),
    2g + 1 at 4g + (code >> 2), added together when both name one column; the fill elsewhere."""
    *lead, rows, G = codes.shape
    dense = np.zeros((*lead, rows, cols), np.result_type(dtype, np.float64) if dtype.kind == "f" else dtype)
    base = 4 * np.arange(G)
    i0, i1 = base + (codes & 3), base + (codes >> 2)
    hit = np.zeros(dense.shape, bool)
    for idx, src in ((i0, values[..., 0::2]), (i1, values[..., 1::2])):
        np.put_along_axis(hit, idx, True, axis=-1)
        plus = np.take_along_axis(dense, idx, axis=-1) + src
        np.put_along_axis(dense, idx, plus, axis=-1)
    dense[~hit] = fill
    return dense


def random_semi(rng, batch, rows, cols, dtype, fill, integers=False):
    """(values, metadata, dense) of a random 2:4 matrix: a random valid code per group, random
    values (small integers with ``integers``; some equal to the fill, which is legal)."""
    dtype = np.dtype(dtype)
    codes = VALID[rng.integers(0, 6, size=(*batch, rows, cols // 4))]
    shape = (*batch, rows, cols // 2)
    if integers:  # small integers from -integers to integers (True: 8)
        values = rng.integers(-int(integers), int(integers) + 1, size=shape).astype(dtype)
    else:
        values = random_values(rng, shape, dtype, negative=True)
    if values.size:
        values.reshape(-1)[:: 7] = fill
    return values, _words(codes), _scatter(values, codes, cols, fill, dtype).astype(dtype)


def _x(rng, shape, dtype, integers=False):
    if integers:
        return rng.integers(-int(integers), int(integers) + 1, size=shape).astype(dtype)
    return random_values(rng, shape, dtype, negative=True)


def _product(left, right, dtype):
    """NumPy's dense product: exact (float64 / complex128) then cast once, or wrapping integers."""
    dtype = np.dtype(dtype)
    if dtype.kind in "iu":
        return np.matmul(left.astype(dtype), right.astype(dtype))
    wide = np.complex128 if dtype.kind == "c" else np.float64
    return np.matmul(left.astype(wide), right.astype(wide)).astype(dtype)


def _check(got, want, dtype, exact=False, ref32=None):
    got = _host(got)
    assert got.dtype == want.dtype and got.shape == want.shape, (got.dtype, got.shape, want.dtype, want.shape)
    if exact or dtype.kind in "iu":
        np.testing.assert_array_equal(got, want)
    elif dtype == np.float16:
        ref = ref32.astype(np.float32)
        tol = np.abs(ref) * 2.0**-10 + 2.0**-12 * max(1.0, float(np.abs(ref).max(initial=0)))
        assert (np.abs(got.astype(np.float32) - ref) <= tol).all(), np.abs(got.astype(np.float32) - ref).max()
    else:
        np.testing.assert_allclose(got, want, rtol=1e-5 if dtype in (np.float32, np.complex64) else 1e-12)


def _float32_ref(left, right):
    return np.matmul(left.astype(np.float32), right.astype(np.float32))


# (batch, rows, cols, N or None for vectors): rows not a multiple of 16, cols 4 and not a multiple of
# 32 (spare nibbles in the last word), N 1, 3, 8, 9
CASES = (((), 37, 36, None), ((2,), 17, 4, 3), ((), 20, 68, 9), ((2,), 5, 100, 8), ((), 3, 8, 1))


@pytest.mark.parametrize("place", PLACES)
@pytest.mark.parametrize("dtype", DTYPES, ids=str)
def test_semi_matmul_dense_on_cuda_cores(place, dtype):
    rng = np.random.default_rng(int(dtype.num) + 7)
    for c, (batch, rows, cols, N) in enumerate(CASES):
        fill = _fill_for(dtype, c % 2)
        values, meta, dense = random_semi(rng, batch, rows, cols, dtype, fill)
        x = _x(rng, (*batch, cols) if N is None else (*batch, cols, N), dtype)
        got = semi.semi_matmul_dense(_put(values, place), _put(meta, place), _put(x, place), fill, cols,
                                     method="cuda_cores")  # fmt: skip
        right = x[..., None] if N is None else x
        want, ref = _product(dense, right, dtype), _float32_ref(dense, right)
        if N is None:
            want, ref = want[..., 0], ref[..., 0]
        _check(got, want, dtype, ref32=ref)


@pytest.mark.parametrize("place", PLACES)
@pytest.mark.parametrize("dtype", DTYPES, ids=str)
def test_dense_matmul_semi(place, dtype):
    rng = np.random.default_rng(int(dtype.num) + 11)
    for c, (batch, rows, cols, M) in enumerate(CASES):
        fill = _fill_for(dtype, (c + 1) % 2)
        values, meta, dense = random_semi(rng, batch, rows, cols, dtype, fill)
        x = _x(rng, (*batch, rows) if M is None else (*batch, M, rows), dtype)
        left = x[..., None, :] if M is None else x
        want, ref = _product(left, dense, dtype), _float32_ref(left, dense)
        if M is None:
            want, ref = want[..., 0, :], ref[..., 0, :]
        for split in (None, 3):  # the sizes' choice (one slice here, or two), and partial sums forced
            got = semi.dense_matmul_semi(_put(x, place), _put(values, place), _put(meta, place), fill, cols,
                                         split=split)  # fmt: skip
            _check(got, want, dtype, ref32=ref)


@pytest.mark.parametrize("place", PLACES)
def test_other_dtypes(place):
    """complex128, uint8 (viewed as int8: the same bits) and int64, both products, fills 0 and non-zero."""
    rng = np.random.default_rng(3)
    for dtype, fill in ((np.complex128, 1.5 - 0.5j), (np.uint8, 200), (np.int64, 0)):
        dtype = np.dtype(dtype)
        values, meta, dense = random_semi(rng, (2,), 19, 44, dtype, fill)
        x = _x(rng, (2, 44, 5), dtype)
        got = semi.semi_matmul_dense(_put(values, place), _put(meta, place), _put(x, place), fill, 44)
        _check(got, _product(dense, x, dtype), dtype)
        xl = _x(rng, (2, 4, 19), dtype)
        got = semi.dense_matmul_semi(_put(xl, place), _put(values, place), _put(meta, place), fill, 44)
        _check(got, _product(xl, dense, dtype), dtype)


# (batch, rows, cols, N, integers up to): one warp's two row tiles and a partial one, a partial
# k-pair, batches, N below and above one column tile, tiny and 4-column matrices; the last one's
# sums go past 2048, where float16 rounds
MMA_CASES = (((), 40, 96, 24, 8), ((2,), 17, 36, 8, 8), ((), 5, 4, 1, 8), ((), 17, 68, 130, 30))


@pytest.mark.parametrize("place", PLACES)
@pytest.mark.parametrize("fill", [0, 1.5])
def test_tensor_cores_exactly(place, fill):
    """Small integers: every sum is exact in float32, so the tensor cores (the emulator's mma.sp
    reference in CI) and the CUDA cores both give the exact product rounded once to float16."""
    rng = np.random.default_rng(5 if fill else 6)
    f16 = np.dtype(np.float16)
    rounded = False
    for batch, rows, cols, N, top in MMA_CASES:
        values, meta, dense = random_semi(rng, batch, rows, cols, f16, fill, integers=top)
        x = _x(rng, (*batch, cols, N), f16, integers=top)
        exact = np.matmul(dense.astype(np.float64), x.astype(np.float64))
        want = exact.astype(f16)
        rounded |= bool((want != exact).any())
        args = [_put(a, place) for a in (values, meta, x)]
        tc = semi.tensor_core_metadata(args[1], rows, cols)
        mma = semi.semi_matmul_dense(*args, fill, cols, tc_metadata=tc, method="tensor_cores")
        _check(mma, want, f16, exact=True)
        _check(semi.semi_matmul_dense(*args, fill, cols, method="cuda_cores"), want, f16, exact=True)
    assert rounded  # some sums needed float16's rounding


@pytest.mark.parametrize("place", PLACES)
def test_tensor_cores_on_quarters(place):
    """Random quarters, fill 1.5: within the stated float16 tolerance of the float32 product."""
    rng = np.random.default_rng(8)
    f16 = np.dtype(np.float16)
    values, meta, dense = random_semi(rng, (2,), 21, 72, f16, 1.5)
    x = _x(rng, (2, 72, 40), f16)
    got = semi.semi_matmul_dense(_put(values, place), _put(meta, place), _put(x, place), 1.5, 72,
                                 method="tensor_cores")  # fmt: skip
    _check(got, _product(dense, x, f16), f16, ref32=_float32_ref(dense, x))


def test_auto_picks_tensor_cores_above_sixteen_columns():
    rng = np.random.default_rng(9)
    colsum = "semi_line_sums<sp_half>"
    for N, fill, kernels in ((16, 0.0, ["semi_rows<sp_half>"]), (17, 0.0, ["semi_mma<2, 0>"]),
                             (17, 1.5, [colsum, "semi_mma<1, 1>"]), (16, 1.5, [colsum, "semi_rows<sp_half>"])):
        values, meta, dense = random_semi(rng, (), 16, 32, np.float16, fill, integers=True)
        args = [simulated.to_simulated(a) for a in (values, meta)]
        tc = semi.tensor_core_metadata(args[1], 16, 32)
        x = _x(rng, (32, N), np.float16, integers=True)
        with simulated.counting() as c:  # one launch (two with a fill) and no read
            got = semi.semi_matmul_dense(*args, simulated.to_simulated(x), fill, 32, tc_metadata=tc)
        assert [name for _, name in c.launches] == kernels
        assert c.syncs == 0
        _check(got, _product(dense, x, np.dtype(np.float16)), np.dtype(np.float16), exact=True)
    assert semi.choose_method(np.float32, 512) == "cuda_cores"


def test_tensor_cores_with_four_warps_a_block(monkeypatch):
    """The emulator's blocks have 2 warps (one row of warps); with 4 the second row of warps (warp
    // 2 = 1) takes the next rows, as the 8 warps of a GPU block do."""
    drv = driver_for(np.zeros(1))
    monkeypatch.setattr(drv, "block", 128)
    rng = np.random.default_rng(10)
    f16 = np.dtype(np.float16)
    for fill in (0, 1.5):
        values, meta, dense = random_semi(rng, (), 70, 68, f16, fill, integers=True)
        x = _x(rng, (68, 140), f16, integers=True)
        got = semi.semi_matmul_dense(values, meta, x, fill, 68, method="tensor_cores")
        _check(got, _product(dense, x, f16), f16, exact=True)


# ---- the tensor cores' metadata, from the PTX ISA's figure ------------------------------------------


def _tc_from_figure(meta, rows, cols):
    """tensor_core_metadata rendered cell by cell from the PTX ISA's Figure 122 ("Sparse MMA
    .m16n8k32 metadata layout for .f16/.bf16"): in the 16 x 8 grid of 4-column chunks of one k-step,
    cell [x][y..y+3] (y = 0 or 4) reads "T(4 (x % 8) + 2 sel + y / 4): [15..0]" for x < 8 and
    "[31..16]" for x >= 8, chunk y + j in bits 4j (of that half); k-step 2p + sel of k-pair p is
    selector sel. Codes as written, but invalid ones (i0 >= i1) and groups or rows past the edge: 0x4."""
    *batch, _, W = meta.shape
    nb, G, RT, P = int(np.prod(batch)), cols // 4, -(-rows // 16), -(-cols // 64)
    m = meta.reshape(nb, rows, W).astype(np.uint32)
    out = np.zeros((nb, RT, P, 32), np.uint32)
    for b in range(nb):
        for i in range(RT):
            for p in range(P):
                for sel in (0, 1):
                    for x in range(16):
                        for y in (0, 4):
                            lane, shift = 4 * (x % 8) + 2 * sel + y // 4, 16 * (x >= 8)
                            for j in range(4):
                                row, group = 16 * i + x, 16 * p + 8 * sel + y + j
                                code = 4
                                if row < rows and group < G:
                                    code = int(m[b, row, group // 4] >> (4 * (group % 4))) & 15
                                    code = code if (code & 3) < (code >> 2) else 4
                                out[b, i, p, lane] |= np.uint32(code << (shift + 4 * j))
    return out.reshape(*batch, RT, P, 32)


@pytest.mark.parametrize("place", PLACES)
def test_tensor_core_metadata_follows_the_ptx_figure(place):
    rng = np.random.default_rng(12)
    for batch, rows, cols in (((), 16, 64), ((2,), 20, 100), ((), 37, 4)):
        codes = VALID[rng.integers(0, 6, size=(*batch, rows, cols // 4))]
        meta = _words(codes)
        tc = semi.tensor_core_metadata(_put(meta, place), rows, cols)
        assert tc.dtype == np.uint32 and tc.shape == (*batch, -(-rows // 16), -(-cols // 64), 32)
        np.testing.assert_array_equal(_host(tc), _tc_from_figure(meta, rows, cols))
    codes = VALID[rng.integers(0, 6, size=(37, 9))]
    bad = _words(codes)
    bad[30, 0] = 0x05C4  # row 30: groups 0, 1 valid (0x4, 0xC), group 2 0x5 (i0 == i1), group 3 0x0
    with pytest.raises(ValueError, match=r"group 2 \(columns 8..11\) of row 30 has code 0x5"):
        semi.tensor_core_metadata(_put(bad, place), 37, 36)
    tc = semi.tensor_core_metadata(_put(bad, place), 37, 36, check=False)  # invalid codes become 0x4
    np.testing.assert_array_equal(_host(tc), _tc_from_figure(bad, 37, 36))


# ---- the emulator's mma.sp against the PTX ISA's fragment text ---------------------------------------


def _fragments_from_ptx(values, codes, b, c, sel):
    """The registers of mma.sp m16n8k32 (.f16, f32 accumulators), lane by lane from the PTX ISA's
    text: A a[i] (pairs, low half first): rows groupID for a0, a1, a4, a5 (registers 0 and 2),
    groupID + 8 for the others; chunk tid for registers 0, 1 and tid + 4 for 2, 3. B b[i]: rows
    2 tid + 8 i and + 1 of column groupID. C: c0, c1 row groupID, c2, c3 row groupID + 8, columns
    2 tid and 2 tid + 1. Metadata: Figure 122 as in _tc_from_figure; other lanes get 0x44444444."""
    vbits = np.asarray(values, np.float16).view(np.uint16).astype(np.uint64)
    bbits = np.asarray(b, np.float16).view(np.uint16).astype(np.uint64)
    a_r, b_r = np.zeros((32, 4), np.uint32), np.zeros((32, 4), np.uint32)
    c_r, e_r = np.zeros((32, 4), np.float32), np.full(32, 0x44444444, np.uint32)
    for lane in range(32):
        gid, tid = lane // 4, lane % 4
        for reg, (row, chunk) in enumerate(((gid, tid), (gid + 8, tid), (gid, tid + 4), (gid + 8, tid + 4))):
            a_r[lane, reg] = vbits[row, 2 * chunk] | vbits[row, 2 * chunk + 1] << 16
        for i in range(4):
            k = 2 * tid + 8 * i
            b_r[lane, i] = bbits[k, gid] | bbits[k + 1, gid] << 16
        for q in range(4):
            c_r[lane, q] = c[gid + 8 * (q // 2), 2 * tid + q % 2]
        if tid // 2 == sel:
            word = 0
            for x, shift in ((gid, 0), (gid + 8, 16)):
                for j in range(4):
                    word |= int(codes[x, 4 * (tid % 2) + j]) << (shift + 4 * j)
            e_r[lane] = word
    return a_r, b_r, c_r, e_r


def _d_matrix(d):
    d = _host(d)
    out = np.zeros((16, 8), np.float32)
    for lane in range(32):
        for q in range(4):
            out[lane // 4 + 8 * (q // 2), 2 * (lane % 4) + q % 2] = d[lane, q]
    return out


@pytest.mark.parametrize("place", PLACES)
def test_mma_follows_the_ptx_fragments(place):
    """One mma.sp on registers packed lane by lane from the PTX ISA's text (independently of the
    launcher's packing, which must agree) equals A @ B + C. In CI this checks the emulator's
    reference; on a GPU (place cupy) the instruction itself."""
    rng = np.random.default_rng(13)
    codes = VALID[rng.integers(0, 6, size=(16, 8))]
    values = rng.integers(-7, 8, size=(16, 16)).astype(np.float16)
    dense = _scatter(values, codes, 32, 0, np.dtype(np.float64))
    b = rng.integers(-4, 5, size=(32, 8)).astype(np.float16)
    c = rng.integers(-9, 10, size=(16, 8)).astype(np.float32)
    for sel in (0, 1):
        frags = _fragments_from_ptx(values, codes, b, c, sel)
        mine = semi.mma_fragments(values, codes, b, c, sel)
        for f, g in zip(frags[:3], mine[:3]):
            np.testing.assert_array_equal(f, g)
        lanes = np.arange(32) % 4 // 2 == sel
        np.testing.assert_array_equal(frags[3][lanes], mine[3][lanes])
        d = semi.mma_probe(*(_put(f, place) for f in frags), sel)
        np.testing.assert_array_equal(_d_matrix(d), dense @ b.astype(np.float64) + c)
    if place == "emulator":  # an unordered code is undefined behaviour: the reference poisons its rows
        codes[3, 5] = 0x5
        d = _d_matrix(semi.mma_probe(*_fragments_from_ptx(values, codes, b, c, 1), 1))
        assert np.isnan(d[3]).all() and not np.isnan(np.delete(d, 3, axis=0)).any()


# ---- codes as written, never out of bounds -------------------------------------------------------------

_KEEP = []  # the guarded buffers live as long as the test session


def _at_page_end(a):
    """A copy of ``a`` whose last byte is followed by an unreadable page: a read past the end of
    the array faults (the emulator runs the kernels in this process)."""
    a = np.ascontiguousarray(a)
    page = mmap.PAGESIZE
    pages = max(1, -(-a.nbytes // page))
    buf = mmap.mmap(-1, (pages + 1) * page)
    base = ctypes.addressof(ctypes.c_char.from_buffer(buf))
    libc = ctypes.CDLL(None, use_errno=True)
    assert libc.mprotect(ctypes.c_void_p(base + pages * page), ctypes.c_size_t(page), 0) == 0
    out = np.frombuffer(buf, a.dtype, a.size, pages * page - a.nbytes).reshape(a.shape)
    out[...] = a
    _KEEP.append(buf)
    return out


@pytest.mark.parametrize("dtype", [np.float32, np.float16], ids=str)
def test_any_codes_are_read_as_written_and_never_out_of_bounds(dtype):
    """Random 16-bit metadata words (invalid codes such as 0x0 or 0x5, and garbage in the spare
    nibbles of the last word): the CUDA-core kernels add value 2g at column 4g + (code & 3) and
    2g + 1 at 4g + (code >> 2) whatever the code, the tensor cores read an invalid code as 0x4 and
    no kernel reads past any operand (each ends at an unreadable page)."""
    rng = np.random.default_rng(14)
    dtype = np.dtype(dtype)
    rows, cols, N, M = 19, 36, 20, 3
    meta = rng.integers(0, 1 << 16, size=(rows, 3), dtype=np.uint64).astype(np.uint16)
    codes = (meta[..., None].astype(np.uint64) >> (4 * np.arange(4, dtype=np.uint64))).reshape(rows, 12)[:, :9] & 15
    values = _x(rng, (rows, cols // 2), dtype, integers=True)
    dense = _scatter(values, codes.astype(np.int64), cols, 0, np.dtype(np.float64))
    x, xl = _x(rng, (cols, N), dtype, integers=True), _x(rng, (M, rows), dtype, integers=True)
    v, m = _at_page_end(values), _at_page_end(meta)
    got = semi.semi_matmul_dense(v, m, _at_page_end(x), 0, cols, method="cuda_cores")
    _check(got, _product(dense, x, dtype), dtype, exact=True)
    got = semi.dense_matmul_semi(_at_page_end(xl), v, m, 0, cols, split=2)
    _check(got, _product(xl, dense, dtype), dtype, exact=True)
    if dtype == np.float16:
        tc = semi.tensor_core_metadata(m, rows, cols, check=False)
        sane = np.where((codes & 3) < (codes >> 2), codes, 4).astype(np.int64)
        got = semi.semi_matmul_dense(v, m, _at_page_end(x), 0, cols, tc_metadata=_at_page_end(tc), method="tensor_cores")
        _check(got, _product(_scatter(values, sane, cols, 0, np.dtype(np.float64)), x, dtype), dtype, exact=True)


@pytest.mark.parametrize("place", PLACES)
def test_zero_fill_multiplies_the_stored_values_only(place):
    """With a zero fill the kernels compute S @ X and X @ S as stored: inf and nan in x under a kept
    value spread (inf * 0 is nan), under an unstored position they are not read (the caller's
    unread-NaN rule decides those), as in CSR's kernels. Tensor cores: the emulator's mma.sp
    multiplies kept values only; on a GPU this case asks the hardware the same."""
    rng = np.random.default_rng(15)
    rows, cols, N = 18, 40, 20
    for dtype in (np.dtype(np.float32), np.dtype(np.float16)):
        codes = VALID[rng.integers(0, 6, size=(rows, cols // 4))]
        values = _x(rng, (rows, cols // 2), dtype, integers=True)
        values[0, :4] = 0  # some kept zeros meet an inf
        meta = _words(codes)
        kept = (4 * np.arange(cols // 4)[:, None] + np.stack([codes & 3, codes >> 2], axis=-1)).reshape(rows, cols // 2)
        x = _x(rng, (cols, N), dtype, integers=True)
        x[kept[0, 0], 0], x[kept[1, 3], 1] = np.inf, np.nan  # under kept values
        unstored = np.setdiff1d(np.arange(cols), kept[2])[0]
        x[unstored, 2] = np.inf  # under nothing row 2 keeps (other rows may keep it)
        want = np.einsum("rk,rkn->rn", values.astype(np.float64), x.astype(np.float64)[kept]).astype(dtype)
        methods = ("cuda_cores", "tensor_cores") if dtype == np.float16 else ("cuda_cores",)
        with np.errstate(invalid="ignore"):
            for method in methods:
                got = semi.semi_matmul_dense(_put(values, place), _put(meta, place), _put(x, place), 0, cols,
                                             method=method)  # fmt: skip
                np.testing.assert_array_equal(_host(got), want)
            xl = _x(rng, (3, rows), dtype, integers=True)
            xl[0, 0], xl[1, 5] = np.inf, np.nan
            want = np.zeros((3, cols))
            for r in range(rows):
                np.add.at(want, (slice(None), kept[r]), xl[:, r : r + 1].astype(np.float64) * values[r].astype(np.float64))
            got = semi.dense_matmul_semi(_put(xl, place), _put(values, place), _put(meta, place), 0, cols)
            np.testing.assert_array_equal(_host(got), want.astype(dtype))


def test_fill_as_a_device_scalar():
    """A fill held on the device is read once (the launchers want it on the host)."""
    rng = np.random.default_rng(16)
    values, meta, dense = random_semi(rng, (), 9, 12, np.float64, 1.5)
    x = _x(rng, (12, 2), np.float64)
    args = [simulated.to_simulated(a) for a in (values, meta, x)]
    fill = simulated.to_simulated(np.array(1.5))
    with simulated.counting() as c:
        got = semi.semi_matmul_dense(*args, fill, 12)
    assert c.syncs == 1
    _check(got, _product(dense, x, np.dtype(np.float64)), np.dtype(np.float64))


# ---- shapes and errors -------------------------------------------------------------------------------------


@pytest.mark.parametrize("place", ["emulator", "simulated"])
def test_empty_operands(place):
    f32 = np.float32
    cases = [((0, 8), (0, 1), (16, 3), (0, 3)), ((2, 0), (2, 0), (0, 3), (2, 3)), ((4, 2), (4, 1), (4, 0), (4, 0))]
    for vshape, mshape, xshape, yshape in cases:
        cols = 2 * vshape[1]
        v, m = _put(np.ones(vshape, f32), place), _put(np.full(mshape, 0x4444, np.uint16), place)
        y = semi.semi_matmul_dense(v, m, _put(np.ones(xshape, f32), place), 1.5, cols)
        assert y.shape == yshape and y.dtype == f32 and not _host(y).any()
    y = semi.dense_matmul_semi(_put(np.ones((3, 0), f32), place), _put(np.ones((0, 4), f32), place),
                               _put(np.zeros((0, 1), np.uint16), place), 1.5, 8)  # fmt: skip
    assert y.shape == (3, 8) and not _host(y).any()


def test_bad_operands():
    f32 = np.float32
    v, m, x = np.ones((4, 4), f32), np.full((4, 1), 0x4444, np.uint16), np.ones((8, 2), f32)
    with pytest.raises(ValueError, match="cols must be a non-negative multiple of 4"):
        semi.semi_matmul_dense(v, m, x, 0, 6)
    with pytest.raises(ValueError, match="8 columns keep 4 values per row"):
        semi.semi_matmul_dense(np.ones((4, 5), f32), m, x, 0, 8)
    with pytest.raises(ValueError, match=r"metadata must have shape \(4, 1\)"):
        semi.semi_matmul_dense(v, np.zeros((4, 2), np.uint16), x, 0, 8)
    with pytest.raises(ValueError, match="metadata must be uint16"):
        semi.semi_matmul_dense(v, m.astype(np.int16), x, 0, 8)
    with pytest.raises(ValueError, match=r"x must have shape \(8,\) or \(8, 'N'\)"):
        semi.semi_matmul_dense(v, m, np.ones((7, 2), f32), 0, 8)
    with pytest.raises(ValueError, match=r"x must have shape \(4,\) or \('M', 4\)"):
        semi.dense_matmul_semi(np.ones((2, 5), f32), v, m, 0, 8)
    with pytest.raises(KernelDeclined, match="must have the same dtype"):
        semi.semi_matmul_dense(v, m, x.astype(np.float64), 0, 8)
    with pytest.raises(KernelDeclined, match="the 2:4 kernels take float16"):
        semi.dense_matmul_semi(np.ones(4, bool), v.astype(bool), m, 0, 8)
    with pytest.raises(ValueError, match="does not cast to the values' int8"):
        semi.semi_matmul_dense(v.astype(np.int8), m, x.astype(np.int8), 1.5, 8)
    with pytest.raises(ValueError, match="tensor cores take float16"):
        semi.semi_matmul_dense(v, m, x, 0, 8, method="tensor_cores")
    with pytest.raises(ValueError, match="method must be one of"):
        semi.semi_matmul_dense(v, m, x, 0, 8, method="fast")
    with pytest.raises(ValueError, match="tc_metadata must be the uint32"):
        semi.semi_matmul_dense(v.astype(np.float16), m, np.ones((8, 20), np.float16), 0, 8,
                               tc_metadata=np.zeros((1, 1, 32), np.uint16), method="tensor_cores")  # fmt: skip
