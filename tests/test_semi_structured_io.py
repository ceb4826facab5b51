"""The 2:4 layout where arrays leave sparray or meet people: save_npz / load_npz, Matrix Market,
binsparse, scipy, the repr and the HTML view, spy, pickle (protocol 5 buffers), Dask tokens and
Dask arrays of 2:4 chunks. Checked against dense NumPy and against the kept positions decoded here,
independently, from the metadata as docs/layouts.md describes it: fills 0, 1.5 (3 for int8) and
nan, float16 (where sparray holds float16 values), float32, int8, batched, transposed, and on the
simulated device where the item has a device side."""

import copy
import io
import math
import pickle

import numpy as np
import pytest
from places_testing import dense_on_host, on_place, to_place

import sparray
from sparray._array.display import pattern_counts, summary_rows

NAN = float("nan")


def _float16_ok():
    try:
        sparray.asarray(np.zeros((1, 4), np.float16), layout="2:4")
    except TypeError:
        return False
    return True


NO_F16 = pytest.mark.skipif(not _float16_ok(), reason="this sparray holds no float16 values")
F16 = pytest.param("float16", marks=NO_F16)
DTYPES = [F16, "float32", "int8"]
SHAPES = [(6, 16), (5, 20), (2, 3, 8)]  # full metadata words, a part-used last word, batched


def _fills(dtype):
    return [0, 3] if dtype == "int8" else [0.0, 1.5, NAN]


def _case(shape, dtype, fill, seed=0):
    """A random dense array in 2:4 form (some groups with fewer than 2 non-fill elements) and its 2:4 array."""
    rng = np.random.default_rng(seed)
    if dtype == "int8":
        x = rng.integers(-9, 10, size=shape).astype(np.int8)
    else:
        x = rng.standard_normal(shape).astype(dtype)
    x[rng.random(shape) < 0.3] = fill  # groups with 1 or 0 elements other than the fill
    x = sparray.prune_2_4(x, fill_value=fill)
    return x, sparray.asarray(x, layout="2:4", fill_value=fill)


def kept_mask(metadata, cols):
    """The kept positions of the stored matrix, decoded from the uint16 words: group g's code at bits
    4 * (g % 4) of word g // 4, kept positions code & 3 and code >> 2."""
    m = np.asarray(metadata).astype(np.int64)
    g = np.arange(cols // 4)
    codes = (m[..., g // 4] >> (4 * (g % 4))) & 0xF
    mask = np.zeros((*m.shape[:-1], cols), bool)
    for pos in (codes & 3, codes >> 2):
        np.put_along_axis(mask, 4 * g + pos, True, axis=-1)
    return mask


def _logical_mask(A):
    mask = kept_mask(dense_on_host(A.metadata), A._stored_shape[-1])
    return np.swapaxes(mask, -1, -2) if A.transposed else mask


def _same_semi(B, A):
    """B and A are the same 2:4 array: components, fill (nan-aware), flags, shape, dtype."""
    assert B.layout == "2:4" and B.shape == A.shape and B.dtype == A.dtype and B.transposed == A.transposed
    np.testing.assert_array_equal(dense_on_host(B.values), dense_on_host(A.values))
    np.testing.assert_array_equal(dense_on_host(B.metadata), dense_on_host(A.metadata))
    assert B.metadata.dtype == np.uint16
    np.testing.assert_array_equal(dense_on_host(B.fill_value), dense_on_host(A.fill_value))


def _arrays_for(dtype):
    for shape in SHAPES:
        for fill in _fills(dtype):
            x, A = _case(shape, dtype, fill)
            yield x, A
            yield np.swapaxes(x, -1, -2), A.mT


# --- save_npz / load_npz ---------------------------------------------------------------------------------
@pytest.mark.parametrize("dtype", DTYPES)
def test_npz_round_trip_keeps_the_2_4_components(dtype, tmp_path):
    n = 0
    for x, A in _arrays_for(dtype):
        for compressed in (True, False):
            buf = io.BytesIO()
            sparray.save_npz(buf, A, compressed=compressed)
            buf.seek(0)
            B = sparray.load_npz(buf)
            _same_semi(B, A)
            np.testing.assert_array_equal(B.to_dense(), x)
            n += 1
    assert n == len(SHAPES) * len(_fills(dtype)) * 4
    path = tmp_path / "w"  # a path: .npz appended, as numpy.savez does
    sparray.save_npz(path, A)
    _same_semi(sparray.load_npz(tmp_path / "w.npz"), A)


def test_npz_archive_holds_the_components_as_named():
    x, A = _case((4, 24), "float32", 1.5)
    buf = io.BytesIO()
    sparray.save_npz(buf, A.mT)
    buf.seek(0)
    with np.load(buf, allow_pickle=False) as z:
        assert sorted(z.files) == ["fill_value", "layout", "metadata", "shape", "sparray_format", "transposed", "values"]
        assert str(z["layout"]) == "2:4" and bool(z["transposed"]) and tuple(z["shape"]) == (24, 4)
        assert z["metadata"].dtype == np.uint16 and z["metadata"].shape == (4, 2) and z["values"].shape == (4, 12)
        np.testing.assert_array_equal(z["metadata"], A.metadata)


def _archive(A, **change):
    buf = io.BytesIO()
    sparray.save_npz(buf, A, compressed=False)
    buf.seek(0)
    with np.load(buf) as z:
        arrays = {k: z[k] for k in z.files}
    arrays.update(change)
    for k in [k for k, v in change.items() if v is None]:
        del arrays[k]
    out = io.BytesIO()
    np.savez(out, **arrays)
    out.seek(0)
    return out


def test_npz_broken_2_4_archives_raise_naming_the_rule():
    x, A = _case((3, 16), "float32", 0.0)
    bad_code = np.asarray(A.metadata).copy()
    bad_code[1, 0] = (bad_code[1, 0] & 0xFFF0) | 0x5  # positions (1, 1): not i0 < i1
    cases = [
        ({"metadata": bad_code}, r"row 1, group 0 holds the code 0x5"),
        ({"metadata": np.asarray(A.metadata).astype(np.int64)}, "metadata must be uint16"),
        ({"metadata": np.asarray(A.metadata)[:, :0]}, r"metadata.shape=\(3, 0\)"),
        ({"shape": np.asarray([3, 14])}, "multiple of 4"),
        ({"transposed": None}, r"missing \['transposed'\]"),
        ({"transposed": np.asarray(1)}, "'transposed' must be a 0-d array of kind 'b'"),
        ({"indices": np.zeros((2, 0), np.int64)}, r"unexpected \['indices'\]"),
    ]
    for change, match in cases:
        with pytest.raises(ValueError, match=match) as info:
            sparray.load_npz(_archive(A, **change))
        assert "load_npz" in str(info.value)


@pytest.mark.parametrize("fill", [0.0, NAN])
def test_npz_of_a_simulated_device_array(fill):
    x, A = _case((2, 4, 16), "float32", fill)
    S = to_place(A, "simulated").mT
    assert on_place(S, "simulated")
    buf = io.BytesIO()
    sparray.save_npz(buf, S)
    buf.seek(0)
    B = sparray.load_npz(buf)
    _same_semi(B, A.mT)
    buf.seek(0)
    C = sparray.load_npz(buf, device="simulated")
    assert on_place(C, "simulated") and C.layout == "2:4" and C.transposed
    np.testing.assert_array_equal(dense_on_host(C), np.swapaxes(x, -1, -2))


# --- Matrix Market, binsparse, scipy ----------------------------------------------------------------------
@pytest.mark.parametrize("dtype", ["float32", "int8"])
def test_mmwrite_writes_every_kept_position(dtype):
    x, A = _case((5, 12), dtype, 0)
    for B, want in ((A, x), (A.mT, x.T)):
        f = io.BytesIO()
        sparray.io.mmwrite(f, B)
        header = f.getvalue().decode().splitlines()
        assert header[0].startswith("%%MatrixMarket matrix coordinate " + ("integer" if dtype == "int8" else "real"))
        size = next(line for line in header[1:] if not line.startswith("%"))
        assert size.split() == [str(B.shape[0]), str(B.shape[1]), str(5 * 12 // 2)]  # a kept 0 is an entry
        f.seek(0)
        back = sparray.io.mmread(f)
        np.testing.assert_array_equal(np.asarray(back.to_dense()), want)
    _, F = _case((2, 8), "float32", 1.5)
    with pytest.raises(ValueError, match="Matrix Market has no fill value"):
        sparray.io.mmwrite(io.BytesIO(), F)


@pytest.mark.parametrize("dtype", ["float32", "int8"])
def test_binsparse_exports_the_hub_and_from_binsparse_rebuilds_2_4_exactly(dtype):
    for x, A in _arrays_for(dtype):
        desc = A.__binsparse_descriptor__()
        arrays = A.__binsparse__()
        assert desc["sparray"] == {"layout": "2:4"}
        b = desc["binsparse"]
        if A.ndim == 2:
            assert b["format"] == ("CSC" if A.transposed else "CSR")
        else:
            assert b["format"]["level"] == "dense" and ("swizzle" in b) == A.transposed
        assert b["number_of_stored_values"] == math.prod(A.values.shape) == arrays["values"].shape[0]
        assert np.shares_memory(arrays["values"], A.values)  # shared, not copied
        level = A.ndim - 1
        np.testing.assert_array_equal(np.diff(arrays[f"pointers_to_{level}"]), A._stored_shape[-1] // 2)
        fill = np.asarray(A.fill_value)
        assert b.get("fill", False) == bool(fill != 0)
        for B in (sparray.from_binsparse(A), sparray.from_binsparse((arrays, desc))):
            _same_semi(B, A)
            np.testing.assert_array_equal(B.to_dense(), x)
        plain = {"binsparse": b}  # without sparray's tag: the CSR of the pattern, same elements
        C = sparray.from_binsparse((arrays, plain))
        assert C.layout in ("csr", "csc", "coo")
        np.testing.assert_array_equal(np.asarray(C.to_dense()), x)


def test_binsparse_tagged_arrays_not_in_hub_order_go_through_the_dense_form():
    x = np.array([[0.0, 2.0, 0.0, 0.0, 1.0, 0.0, 0.0, 3.0]])
    C = sparray.asarray(x, layout="csr")  # 3 entries, not 2 per group
    arrays, desc = C.__binsparse__(), C.__binsparse_descriptor__()
    B = sparray.from_binsparse((arrays, {**desc, "sparray": {"layout": "2:4"}}))
    assert B.layout == "2:4" and B.to_dense().tolist() == x.tolist()
    too_many = sparray.asarray(np.array([[1.0, 2.0, 3.0, 0.0]]), layout="csr")
    with pytest.raises(ValueError, match="group 0"):
        sparray.from_binsparse((too_many.__binsparse__(), {**too_many.__binsparse_descriptor__(), "sparray": {"layout": "2:4"}}))


def test_to_scipy_is_the_csr_of_the_pattern():
    sp = pytest.importorskip("scipy.sparse")
    from sparray.interop.scipy import from_scipy, to_scipy

    x, A = _case((6, 16), "float32", 0.0)
    for B, want, fmt in ((A, x, "csr"), (A.mT, x.T, "csc")):
        S = to_scipy(B)
        assert S.format == fmt and S.nnz == 6 * 16 // 2 and S.dtype == np.float32  # kept zeros are explicit
        np.testing.assert_array_equal(S.toarray(), want)
        assert np.shares_memory(S.data, A.values)
        np.testing.assert_array_equal(to_scipy(B, format="coo").toarray(), want)
        np.testing.assert_array_equal(from_scipy(S).to_dense(), want)
    xb, Ab = _case((2, 3, 8), "int8", 0)
    Sb = to_scipy(Ab)
    assert isinstance(Sb, sp.coo_array) and Sb.shape == (2, 3, 8)
    np.testing.assert_array_equal(Sb.toarray(), xb)
    with pytest.raises(ValueError, match="fill is non-zero"):
        to_scipy(_case((2, 8), "float32", 1.5)[1])


# --- display ----------------------------------------------------------------------------------------------
def test_repr_names_the_components_and_the_flag():
    x, A = _case((2, 8), "float32", 1.5)
    text = repr(A)
    assert text.startswith("sparray.SemiStructured(values=[[") and "metadata=[[" in text
    assert "shape=(2, 8), dtype=float32, nse=8, fill_value=1.5, device=cpu)" in text and "transposed" not in text
    assert "shape=(8, 2), dtype=float32, nse=8, fill_value=1.5, transposed=True, device=cpu)" in repr(A.mT)
    assert str(A) == text
    _, Ab = _case((2, 3, 8), "int8", 3)
    assert "batch_ndim=1" in repr(Ab) and "fill_value=3" in repr(Ab)
    S = to_place(A, "simulated").mT
    assert "transposed=True, device=simulated)" in repr(S)


@pytest.mark.parametrize("dtype, share", [pytest.param("float16", "9/16", marks=NO_F16), ("float32", "17/32"), ("int8", "5/8")])
def test_html_view_memory_and_flags(dtype, share):
    x, A = _case((2, 32, 64), dtype, 0)
    for B in (A, A.mT):
        rows = dict(summary_rows(B))
        assert rows["layout"] == "2:4" and rows["nse"] == f"{32 * 32:,}" and rows["density"] == "0.5"
        assert rows["index dtype"] == "uint16" and rows["dims (batch, sparse, dense)"] == "1, 2, 0"
        assert rows["metadata"].startswith("(2, 32, 4) uint16")
        assert rows["transposed"].startswith(str(B.transposed))
        assert f"values and metadata: {share} of it" in rows["memory"]
        html = B._repr_html_()
        assert "<b>sparray.SemiStructured</b>" in html and f"{share} of it" in html and "sparsity pattern" in html
    itemsize = np.dtype(dtype).itemsize
    assert A.nbytes - itemsize == 2 * 32 * (64 // 2 * itemsize + 64 // 16 * 2)  # values + 4 bits a group, + the fill


def test_html_view_of_a_simulated_array_and_a_part_word():
    x, A = _case((3, 20), "float32", NAN)  # 5 groups: 2 words a row, the last one 1/4 used
    rows = dict(summary_rows(to_place(A, "simulated")))
    assert rows["device"] == "simulated" and rows["fill value"] == "nan"
    assert "values and metadata: 11/20 of it" in rows["memory"]  # (10 * 4 + 2 * 2) / (20 * 4)


@pytest.mark.parametrize("shape", [(6, 16), (2, 3, 8)])
def test_pattern_picture_and_spy_show_the_kept_positions(shape):
    x, A = _case(shape, "float32", 1.5)
    for B in (A, A.mT):
        mask = _logical_mask(B)
        grid = mask.reshape(-1, mask.shape[-1])  # batches stacked down
        np.testing.assert_array_equal(pattern_counts(B, max_pixels=64), grid.astype(np.int64))
        assert grid.sum() == math.prod(B.shape) // 2
    matplotlib = pytest.importorskip("matplotlib")
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots()
    try:
        image = sparray.spy(A.mT, ax=ax)
        np.testing.assert_array_equal(np.asarray(image.get_array()), _logical_mask(A.mT).reshape(-1, shape[-2]))
        assert ax.get_title() == f"2:4 {A.mT.shape}, nse={A.nse:,}"
    finally:
        plt.close(fig)


# --- pickle and Dask tokens -------------------------------------------------------------------------------
@pytest.mark.parametrize("dtype", ["float32", "int8"])
def test_pickle_protocol_5_out_of_band_buffers(dtype):
    for x, A in _arrays_for(dtype):
        bufs = []
        data = pickle.dumps(A, protocol=5, buffer_callback=bufs.append)
        assert len(bufs) == 3  # values, metadata, fill: out of the stream
        assert len(data) < 1000
        B = pickle.loads(data, buffers=bufs)
        _same_semi(B, A)
        assert np.shares_memory(B.values, A.values) and np.shares_memory(B.metadata, A.metadata)  # no copy
        np.testing.assert_array_equal(B.to_dense(), x)
        for C in (pickle.loads(pickle.dumps(A, protocol=2)), copy.deepcopy(A), copy.copy(A)):
            _same_semi(C, A)
            np.testing.assert_array_equal(C.to_dense(), x)
        assert not np.shares_memory(copy.deepcopy(A).values, A.values)


def test_pickle_of_a_simulated_array():
    x, A = _case((4, 16), "float32", NAN)
    S = to_place(A, "simulated").mT
    B = pickle.loads(pickle.dumps(S, protocol=5))
    assert on_place(B, "simulated") and B.transposed
    np.testing.assert_array_equal(dense_on_host(B), x.T)


def test_dask_tokens_see_values_metadata_fill_and_the_flag():
    tokenize = pytest.importorskip("dask.base").tokenize
    x, A = _case((8, 8), "float32", 0.0)
    assert tokenize(A) == tokenize(A.copy()) == tokenize(pickle.loads(pickle.dumps(A)))
    assert tokenize(A) != tokenize(A.mT)  # square: same shape and components, transposed differs
    codes = np.asarray(A.metadata).copy()
    first = int(codes[0, 0]) & 0xF  # the first group's code, swapped for another valid one
    codes[0, 0] = (codes[0, 0] & 0xFFF0) | (0x8 if first != 0x8 else 0x4)
    other = sparray.SemiStructured(A.values, codes, A.shape, fill_value=0.0)
    assert not np.array_equal(other.to_dense(), x)
    assert tokenize(other) != tokenize(A)  # same values, other metadata
    assert tokenize(sparray.SemiStructured(A.values, A.metadata, A.shape, fill_value=1.5)) != tokenize(A)


# --- Dask arrays of 2:4 chunks ----------------------------------------------------------------------------
da = pytest.importorskip("dask.array")

from dask_testing import SEMI_OPS, aux_for, check  # noqa: E402

from sparray.interop.dask import from_dask_dense, from_sparray, semi_block, semi_concat, to_sparray  # noqa: E402


def _blocks(X):
    import dask

    (blocks,) = dask.compute(X.to_delayed().ravel().tolist(), scheduler="sync")
    return blocks


@pytest.mark.parametrize("fill", [0.0, 1.5, NAN], ids=["fill0", "fill1.5", "nan"])
def test_dask_array_of_2_4_chunks_against_dense_dask(fill):
    x, A = _case((9, 16), "float32", fill, seed=2)
    for B, D, chunks in ((A, x, (4, 8)), (A.mT, x.T, (8, 4))):  # the groups' dim cut at multiples of 4
        X, Y = from_sparray(B, chunks=chunks), da.from_array(D, chunks=chunks)
        blocks = _blocks(X)
        assert all(b.layout == "2:4" and b.transposed == B.transposed for b in blocks)
        aux = aux_for(D.shape, seed=3)
        for name in SEMI_OPS:
            got = check(name, X, Y, aux, scheduler="threads")
            if name in ("x*2+1", "exp", "astype", "T"):
                assert got.layout == "2:4", name  # element-wise results and transposes keep the layout
        R = to_sparray(X * 2)
        assert R.layout == "2:4" and R.transposed == B.transposed
        np.testing.assert_array_equal(R.to_dense(), 2 * D)
        _same_semi(to_sparray(X), B)


def test_dask_2_4_chunks_batched_auto_and_refusals():
    x, A = _case((3, 5, 32), "int8", 3, seed=4)
    X = from_sparray(A, chunks=(2, 5, 16))
    assert [b.shape for b in _blocks(X)] == [(2, 5, 16), (2, 5, 16), (1, 5, 16), (1, 5, 16)]
    np.testing.assert_array_equal(X.sum(axis=(0, 2)).compute().to_dense(), x.astype(np.int64).sum(axis=(0, 2)))
    _same_semi(to_sparray(X), A)
    xa, Aa = _case((12, 16), "float32", 0.0)
    assert from_sparray(Aa, nblocks=3).chunks == ((4, 4, 4), (16,))
    assert from_sparray(Aa.mT, nblocks=2).chunks == ((16,), (6, 6))  # cut along the stored rows
    with pytest.raises(ValueError, match="chunks along dim 1 must be multiples of 4"):
        from_sparray(Aa, chunks=(6, 6))
    with pytest.raises(ValueError, match="chunks along dim 0 must be multiples of 4"):
        from_sparray(Aa.mT, chunks=(6, 6))
    Y = from_dask_dense(da.from_array(xa, chunks=(5, 8)), layout="2:4")
    assert all(b.layout == "2:4" for b in _blocks(Y))
    _same_semi(to_sparray(Y), Aa)
    with pytest.raises(ValueError, match="multiples of 4"):
        from_dask_dense(da.from_array(xa, chunks=(5, 6)), layout="2:4")
    with pytest.raises(ValueError, match="no index arrays"):
        from_dask_dense(da.from_array(xa, chunks=(5, 8)), layout="2:4", index_dtype="int32")


def test_semi_block_and_semi_concat_are_exact():
    x, A = _case((2, 6, 40), "float32", 1.5, seed=5)  # 10 groups: 3 words a row, the last half used
    for B, D in ((A, x), (A.mT, np.swapaxes(x, -1, -2))):
        gdim = 1 if B.transposed else 2
        pieces = [(0, 8), (8, 20), (20, 40)]  # 8 and 20: inside a metadata word (codes packed again)
        parts = []
        for a, b in pieces:
            key = [slice(None)] * 3
            key[gdim] = slice(a, b)
            P = semi_block(B, tuple(key))
            assert P.layout == "2:4" and P.transposed == B.transposed
            P._check_contents()  # unused nibbles 0x4, every code valid
            np.testing.assert_array_equal(P.to_dense(), D[tuple(key)])
            parts.append(P)
        _same_semi(semi_concat(parts, axis=gdim), B)
        other = 2 if B.transposed else 1  # the other matrix dim and the batch dim: components joined as they are
        for axis, cut in ((other, 3), (0, 1)):
            halves = [semi_block(B, tuple(slice(0, cut) if d == axis else slice(None) for d in range(3))),
                      semi_block(B, tuple(slice(cut, None) if d == axis else slice(None) for d in range(3)))]
            _same_semi(semi_concat(halves, axis=axis), B)
    assert semi_concat([A, _case((2, 6, 40), "float32", 0.0)[1]], axis=0) is None  # fills differ: sparray.concat's job
    assert semi_concat([A, A.mT.mT.astype(np.float64)], axis=0) is None  # dtypes differ
    with pytest.raises(ValueError, match="group of 4"):
        semi_block(A, (slice(None), slice(None), slice(2, 8)))


def test_dask_pickles_2_4_chunks_between_processes():
    pytest.importorskip("dask")
    x, A = _case((8, 16), "float32", 1.5, seed=6)
    X = from_sparray(A, chunks=(4, 16))
    v = np.arange(16, dtype=np.float32)
    got = (X @ v).compute(scheduler="processes", num_workers=2)
    np.testing.assert_allclose(got, x @ v, rtol=1e-5)


def test_docstring_examples_of_the_changed_modules_run():
    import doctest
    import importlib

    for name in ("sparray._array.display", "sparray.io._npz", "sparray._layout.binsparse", "sparray.interop.scipy"):
        mod = importlib.import_module(name)
        assert doctest.testmod(mod).failed == 0, name
