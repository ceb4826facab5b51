"""to_dense, compressed_valid, take_major and slice_minor on the CUDA backend (kernels/cuda/dense.cu,
validate.cu, take.cu), emulated in CI, on CuPy where a GPU is: compared with the numba kernels and
with dense NumPy, errors included."""

import numpy as np
import pytest

from cuda_testing import DEVICES, INDEX_DTYPES, VALUE_DTYPES, random_values, requires_gxx, to_device, to_host
from sparray.kernels import KernelDeclined
from sparray.kernels.cpu.dense import to_dense as cpu_to_dense
from sparray.kernels.cpu.take import slice_minor as cpu_slice_minor
from sparray.kernels.cpu.take import take_major as cpu_take_major
from sparray.kernels.cpu.validate import compressed_valid as cpu_compressed_valid
from sparray.kernels.cuda.dense import to_dense
from sparray.kernels.cuda.take import slice_minor, take_major
from sparray.kernels.cuda.validate import compressed_valid

pytestmark = requires_gxx


def _bits_equal(got, want):
    """Same dtype, shape and bytes (NaN payloads and signed zeros included: values are moved)."""
    got = to_host(got)
    assert got.dtype == want.dtype and got.shape == want.shape
    assert got.tobytes() == np.ascontiguousarray(want).tobytes()


def _random_csr(rng, nmajor, nminor, density, long_row=None):
    """Offsets and sorted unique minor indices per row; ``long_row`` gets every minor position."""
    rows = [np.flatnonzero(rng.random(nminor) < density) for _ in range(nmajor)]
    if long_row is not None:
        rows[long_row] = np.arange(nminor)
    offsets = np.concatenate([[0], np.cumsum([len(r) for r in rows])]).astype(np.int64)
    minor = np.concatenate(rows + [np.zeros(0, np.int64)]).astype(np.int64)
    return offsets, minor


# ---- to_dense ------------------------------------------------------------------------------------

# (shape, sparse ndim, nse): one dense part per entry, a dense part, no entry, no sparse dim, an
# empty shape, one full row, more entries than the emulator's grid has threads
DENSE_CASES = [((5, 4), 2, 7), ((3, 4, 2), 2, 5), ((6,), 1, 0), ((2, 3), 0, 1), ((0, 3), 1, 0),
               ((1, 50), 2, 50), ((40, 30), 2, 300), ((7, 3, 2, 2), 1, 4)]  # fmt: skip


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("dtype", VALUE_DTYPES, ids=str)
def test_to_dense_matches_numba(device, dtype):
    rng = np.random.default_rng(17)
    for c, (shape, s, nse) in enumerate(DENSE_CASES):
        sparse_shape, dense_shape = shape[:s], shape[s:]
        npos = int(np.prod(sparse_shape))
        flat = np.sort(rng.choice(npos, size=nse, replace=False))
        indices = np.array(np.unravel_index(flat, sparse_shape) if s else (), dtype=INDEX_DTYPES[c % 2]).reshape(s, nse)
        values = random_values(rng, (nse, *dense_shape), dtype)
        fill = random_values(rng, dense_shape if c % 3 else (), dtype)
        if dtype.kind in "fc" and c % 2:
            fill = np.full_like(fill, np.nan)
        got = to_dense(to_device(indices, device), to_device(values, device), shape, to_device(fill, device))
        want = cpu_to_dense(indices, values, shape, fill)
        _bits_equal(got, want)
        ref = np.empty(shape, dtype)
        ref[...] = fill
        for e in range(nse):
            ref[tuple(indices[:, e])] = values[e]
        _bits_equal(got, ref)


@pytest.mark.parametrize("device", DEVICES)
def test_to_dense_signed_zero_nan_and_errors(device):
    d = lambda a: to_device(np.asarray(a), device)  # noqa: E731
    got = to_host(to_dense(d([[0, 2]]), d([-0.0, np.nan]), (3,), d(1.5)))
    assert np.signbit(got[0]) and got[1] == 1.5 and np.isnan(got[2])
    with pytest.raises(IndexError, match=r"index 4 is out of bounds for axis 1 with size 4 \(entry 1\)"):
        to_dense(d([[0, 1, 2], [1, 4, 0]]), d([1.0, 2.0, 3.0]), (3, 4), d(0.0))
    with pytest.raises(IndexError, match=r"index -1 is out of bounds for axis 0 with size 3 \(entry 2\)"):
        to_dense(d([[0, 1, -1]]), d(np.ones((3, 2))), (3, 2), d(0.0))
    with pytest.raises(IndexError, match="out of bounds for axis 0 with size 0"):
        to_dense(d([[0]]), d([1.0]), (0,), d(0.0))
    with pytest.raises(ValueError, match="do not fit"):
        to_dense(d([[0, 1]]), d(np.ones((2, 3))), (3, 2), d(0.0))


# ---- compressed_valid ---------------------------------------------------------------------------


def _validity_variants(rng):
    """(cidx, pidx, nminor) encodings, valid and broken in every way the contract names."""
    nb, nmajor, nminor, nse = 3, 6, 9, 30
    cs, ps = [], []
    for _ in range(nb):  # nse distinct positions per batch, row-major: a valid encoding
        pos = np.sort(rng.choice(nmajor * nminor, size=nse, replace=False))
        cs.append(np.searchsorted(pos // nminor, np.arange(nmajor + 1)))
        ps.append(pos % nminor)
    c, p = np.stack(cs), np.stack(ps)
    out = [(c, p, nminor), (c[0], p[0], nminor), (c.reshape(nb, 1, nmajor + 1), p.reshape(nb, 1, nse), nminor)]

    def broken(fn):
        c2, p2 = c.copy(), p.copy()
        fn(c2, p2)
        out.append((c2, p2, nminor))

    b, r = next((b, r) for b in range(nb) for r in range(nmajor) if c[b, r + 1] - c[b, r] >= 3)
    k = int(c[b, r])  # a row of at least 3 entries
    broken(lambda c2, p2: c2.__setitem__((1, 0), 1))  # does not start at 0
    broken(lambda c2, p2: c2.__setitem__((2, -1), nse - 1))  # does not end at nse
    broken(lambda c2, p2: c2.__setitem__((0, 3), c2[0, 4] + 1))  # decreasing pointers
    broken(lambda c2, p2: c2.__setitem__((1, 2), nse + 3))  # a pointer past the entries
    broken(lambda c2, p2: c2.__setitem__((1, 2), -2))  # a negative pointer
    broken(lambda c2, p2: p2.__setitem__((2, 0), nminor))  # minor index out of range
    broken(lambda c2, p2: p2.__setitem__((0, 1), -1))  # negative minor index
    broken(lambda c2, p2: p2.__setitem__((b, k + 1), p2[b, k]))  # repeated within a row
    broken(lambda c2, p2: p2.__setitem__((b, slice(k, k + 3)), p2[b, k : k + 3][::-1]))  # decreasing within a row
    out.append((np.array([0, 2, 2, 4]), np.array([3, 5, 0, 1]), 6))  # decreasing across rows: valid
    out.append((np.array([0, 0, 0]), np.zeros(0, np.int64), 4))  # no entry
    out.append((np.zeros((0, 4), np.int64), np.zeros((0, 2), np.int64), 4))  # no batch
    out.append((np.array([0]), np.zeros(0, np.int64), 0))  # no row
    out.append((np.array([0, 1]), np.array([0]), 0))  # no minor position, one entry
    out.append((np.array([1]), np.array([0]), 3))  # no row but an entry
    return out


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("cdtype", INDEX_DTYPES, ids=str)
@pytest.mark.parametrize("pdtype", INDEX_DTYPES, ids=str)
def test_compressed_valid_matches_numba(device, cdtype, pdtype):
    variants = _validity_variants(np.random.default_rng(23))
    verdicts = []
    for c, p, nminor in variants:
        c, p = c.astype(cdtype), p.astype(pdtype)
        got = compressed_valid(to_device(c, device), to_device(p, device), nminor)
        assert isinstance(got, bool) and got == cpu_compressed_valid(c, p, nminor), (c, p, nminor)
        verdicts.append(got)
    assert verdicts == [True] * 3 + [False] * 9 + [True] * 4 + [False] * 2


# ---- take_major --------------------------------------------------------------------------------


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("dtype", VALUE_DTYPES, ids=str)
def test_take_major_matches_numba(device, dtype):
    rng = np.random.default_rng(29)
    offsets, minor = _random_csr(rng, 20, 300, 0.05, long_row=7)  # one row far longer than the rest
    nnz = minor.shape[0]
    picks = [rng.integers(0, 20, size=40), np.array([7, 7, 3, 7]), np.array([], np.int64),
             np.array([19]), np.flatnonzero(np.diff(offsets) == 0)[:3]]  # fmt: skip
    for c, (rows, trailing) in enumerate(zip(picks, [(), (2, 3), (), (1,), ()])):
        odt, mdt = INDEX_DTYPES[c % 2], INDEX_DTYPES[(c // 2) % 2]
        values = random_values(rng, (nnz, *trailing), dtype)
        args = (offsets.astype(odt), minor.astype(mdt), values, rows)
        got = take_major(*(to_device(a, device) for a in args))
        want = cpu_take_major(*args)
        for g, w in zip(got, want):
            _bits_equal(g, w)
        keep = [np.arange(offsets[r], offsets[r + 1]) for r in rows]
        src = np.concatenate(keep + [np.zeros(0, np.int64)]).astype(np.int64)
        _bits_equal(got[1], minor.astype(mdt)[src])
        _bits_equal(got[2], values[src])
    empty = take_major(*(to_device(a, device) for a in (np.array([0, 0]), np.zeros(0, np.int32), np.zeros((0, 2), dtype), np.array([0, 0]))))
    assert to_host(empty[0]).tolist() == [0, 0, 0] and to_host(empty[1]).dtype == np.int32 and to_host(empty[2]).shape == (0, 2)


@pytest.mark.parametrize("device", DEVICES)
def test_take_major_errors_match_numba(device):
    offsets, minor, values = np.array([0, 2, 1, 3, 9]), np.array([0, 2, 1]), np.array([1.0, 2.0, 3.0])

    def both(o, m, v, r, exc=ValueError):
        with pytest.raises(exc) as a:
            take_major(*(to_device(np.asarray(x), device) for x in (o, m, v, r)))
        with pytest.raises(exc) as b:
            cpu_take_major(o, m, v, np.asarray(r))
        if exc is ValueError:
            assert str(a.value) == str(b.value)
        return str(a.value)

    assert both(offsets, minor, values, [0, 4, -1]) == "take_major: row 4 is out of range for 4 rows"
    assert both(offsets, minor, values, [0, -1]) == "take_major: row -1 is out of range for 4 rows"
    msg = both(offsets, minor, values, [0, 0, 1, 3])
    assert msg == "take_major: row 1 spans offsets[1]:offsets[2] = 2:1, outside the 3 entries or reversed"
    assert both(offsets, minor, values, [3]).endswith("= 3:9, outside the 3 entries or reversed")
    assert both(np.array([-1, 2]), minor, values, [0]).endswith("= -1:2, outside the 3 entries or reversed")
    both(offsets, minor, values[:2], [0])
    both(np.zeros(0, np.int64), minor, values, [0])
    both(offsets, minor, values.astype(np.float16), [0], KernelDeclined)
    # only the picked rows are checked: the broken rows 1 and 3 are not looked at
    got = take_major(*(to_device(a, device) for a in (offsets, minor, values, np.array([0, 0]))))
    assert to_host(got[0]).tolist() == [0, 2, 4] and to_host(got[2]).tolist() == [1.0, 2.0, 1.0, 2.0]


# ---- slice_minor -------------------------------------------------------------------------------


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("dtype", VALUE_DTYPES, ids=str)
def test_slice_minor_matches_numba(device, dtype):
    rng = np.random.default_rng(31)
    offsets, minor = _random_csr(rng, 20, 300, 0.05, long_row=7)
    nnz = minor.shape[0]
    ranges = [(0, 300), (40, 200), (7, 8), (150, 150), (290, 400), (500, 600)]
    for c, ((start, stop), trailing) in enumerate(zip(ranges, [(), (2, 3), (), (1,), (), (2,)])):
        odt, mdt = INDEX_DTYPES[c % 2], INDEX_DTYPES[(c // 2) % 2]
        values = random_values(rng, (nnz, *trailing), dtype)
        args = (offsets.astype(odt), minor.astype(mdt), values)
        got = slice_minor(*(to_device(a, device) for a in args), start, stop)
        want = cpu_slice_minor(*args, start, stop)
        for g, w in zip(got, want):
            _bits_equal(g, w)
        keep = (minor >= start) & (minor < stop)
        _bits_equal(got[1], (minor[keep] - start).astype(mdt))
        _bits_equal(got[2], values[keep])
    empty = slice_minor(*(to_device(a, device) for a in (np.array([0]), np.zeros(0, np.int32), np.zeros((0, 2), dtype))), 0, 5)
    assert to_host(empty[0]).tolist() == [0] and to_host(empty[1]).dtype == np.int32 and to_host(empty[2]).shape == (0, 2)


@pytest.mark.parametrize("device", DEVICES)
def test_slice_minor_errors_match_numba(device):
    minor, values = np.array([0, 2, 1]), np.array([1.0, 2.0, 3.0])

    def both(o, m, v, start, stop, exc=ValueError):
        with pytest.raises(exc) as a:
            slice_minor(*(to_device(np.asarray(x), device) for x in (o, m, v)), start, stop)
        with pytest.raises(exc) as b:
            cpu_slice_minor(np.asarray(o), m, v, start, stop)
        if exc is ValueError:
            assert str(a.value) == str(b.value)
        return str(a.value)

    assert both([0, 5, 3], minor, values, 0, 2) == "slice_minor: row 0 spans offsets[0]:offsets[1] = 0:5, outside the 3 entries or reversed"
    assert both([0, 3, 1], minor, values, 0, 2).endswith("= 3:1, outside the 3 entries or reversed")
    assert both([-1, 2, 3], minor, values, 0, 2).endswith("= -1:2, outside the 3 entries or reversed")
    assert both([0, 2, 3], minor, values, 2, 1) == "slice_minor: the range must satisfy 0 <= start <= stop; got 2:1"
    both([0, 2, 3], minor, values[:2], 0, 1)
    both(np.zeros(0, np.int64), minor, values, 0, 1)
    both([0, 2, 3], minor, values.astype(np.float16), 0, 1, KernelDeclined)
