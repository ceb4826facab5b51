"""Pictures of the pattern (``sparray._array.display``): pixel counts against a dense count, the HTML
repr's table and PNG, and ``spy`` (when matplotlib is installed)."""

import base64
import math
import re
import struct
import zlib

import numpy as np
import pytest
from sparray_testing import FILLS, LAYOUTS, layout_cases, make_coo

import sparray
from sparray._array import display as _display


def _specified_grid(A):
    """A boolean grid over the index dims: which (batch, sparse) positions hold a stored element.

    Built from the COO form of ``A``'s *indices*, independently of the binning code.
    """
    coo = A if A.layout == "coo" else A.to_layout("coo")
    index_shape = A.shape[: A.ndim - A.dense_ndim]
    grid = np.zeros(index_shape, np.int64)
    idx = np.asarray(coo.indices)
    np.add.at(grid, tuple(idx), 1)
    rows = math.prod(index_shape[:-1]) if index_shape else 1
    return grid.reshape(rows, index_shape[-1] if index_shape else 1)


def _expected_counts(grid, max_pixels):
    R, C = grid.shape
    rper, cper = max(1, -(-R // max_pixels)), max(1, -(-C // max_pixels))
    h, w = max(1, -(-R // rper)), max(1, -(-C // cper))
    out = np.zeros((h, w), np.int64)
    for i in range(R):
        for j in range(C):
            out[i // rper, j // cper] += grid[i, j]
    return out


@pytest.mark.parametrize("max_pixels", [1, 2, 3, 64])
def test_counts_match_a_dense_count_for_every_layout(max_pixels):
    rng = np.random.default_rng(3)
    for layout, A, _ in layout_cases(rng, fills=[0.0, float("nan")]):
        got = _display.pattern_counts(A, max_pixels=max_pixels)
        if A.size == 0:
            assert got.sum() == 0
            continue
        np.testing.assert_array_equal(got, _expected_counts(_specified_grid(A), max_pixels), err_msg=f"{layout} {A}")


def test_uncoalesced_duplicates_count_per_entry_and_batches_stack_down():
    A = sparray.COO([[0, 0, 2], [1, 1, 0]], [1.0, 2.0, 3.0], shape=(3, 2))
    assert _display.pattern_counts(A).tolist() == [[0, 2], [0, 0], [1, 0]]
    batched = sparray.asarray(np.array([[[1.0, 0], [2, 3]], [[4, 0], [5, 6]]]), layout="csr")
    assert _display.pattern_counts(batched).tolist() == [[1, 0], [1, 1], [1, 0], [1, 1]]


def test_zero_d_and_empty_arrays():
    assert _display.pattern_counts(sparray.asarray(np.float64(3.0))).tolist() == [[1]]
    assert _display.pattern_counts(sparray.zeros((0, 5))).shape == (0, 5)
    with pytest.raises(ValueError, match="max_pixels must be a positive integer"):
        _display.pattern_counts(sparray.zeros((2, 2)), max_pixels=0)


def _decode_png(data):
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    w, h = struct.unpack(">II", data[16:24])
    pos, idat = 8, b""
    while pos < len(data):
        (n,) = struct.unpack(">I", data[pos : pos + 4])
        kind = data[pos + 4 : pos + 8]
        body = data[pos + 8 : pos + 8 + n]
        assert struct.unpack(">I", data[pos + 8 + n : pos + 12 + n])[0] == zlib.crc32(kind + body) & 0xFFFFFFFF
        if kind == b"IDAT":
            idat += body
        pos += 12 + n
    raw = np.frombuffer(zlib.decompress(idat), np.uint8).reshape(h, w + 1)
    assert (raw[:, 0] == 0).all()
    return raw[:, 1:]


def test_png_shows_specified_pixels_dark_and_the_rest_white():
    A = sparray.asarray(np.eye(5), fill_value=0.0)
    gray = _decode_png(_display.pattern_png(A))
    assert gray.shape == (5, 5)
    assert (np.diag(gray) < 255).all() and (gray[~np.eye(5, dtype=bool)] == 255).all()


@pytest.mark.parametrize("layout", LAYOUTS)
def test_html_repr_has_the_table_and_the_picture(layout):
    rng = np.random.default_rng(0)
    A, _ = make_coo(rng, (4, 6, 2), 2, density=0.5, fill=FILLS[1], dense_fill=True)
    if layout != "coo":
        A = A.to_layout(layout, blocksize=(2, 3) if layout in ("bsr", "bsc") else None)
    text = A._repr_html_()
    for field in ("layout", "shape", "dtype", "device", "nse", "density", "fill value", "index dtype", "memory"):
        assert f">{field}</th>" in text, field
    assert f">{layout.upper()}</td>" in text and "(4, 6, 2)" in text and "per dense element" in text
    png = re.search(r"data:image/png;base64,([A-Za-z0-9+/=]+)", text).group(1)
    assert _decode_png(base64.b64decode(png)).shape == (4, 6)


def test_html_repr_escapes_and_reports_memory_against_dense():
    A = sparray.COO([[0, 999]], [1.0, 2.0], shape=(1000,), fill_value=float("nan"))
    text = A._repr_html_()
    assert ">nan</td>" in text and "of dense 7.8 KiB" in text and "1,000" in text


def test_spy_plots_the_binned_pattern():
    mpl = pytest.importorskip("matplotlib")
    mpl.use("Agg")
    import matplotlib.pyplot as plt

    A = sparray.asarray(np.eye(1000), layout="csr")
    fig, ax = plt.subplots()
    image = sparray.spy(A, ax=ax, max_pixels=100)
    data = image.get_array()
    assert data.shape == (100, 100) and (np.diag(data) == 1).all() and data.sum() == 100
    plt.close(fig)
    with pytest.raises(TypeError, match="expected a sparray SparseArray"):
        sparray.spy(np.eye(3))


# ---- density maps: a pixel that stands for many cells is shaded by the share of them that hold entries ----
def _expected_density(grid, max_pixels):
    """Share of each pixel's cells that hold an entry, from the dense count grid (loops, no binning code)."""
    R, C = grid.shape
    rper, cper = max(1, -(-R // max_pixels)), max(1, -(-C // max_pixels))
    h, w = max(1, -(-R // rper)), max(1, -(-C // cper))
    counts, cells = np.zeros((h, w)), np.zeros((h, w))
    for i in range(R):
        for j in range(C):
            counts[i // rper, j // cper] += grid[i, j]
            cells[i // rper, j // cper] += 1
    return np.minimum(counts / cells, 1.0), cells


@pytest.mark.parametrize("max_pixels", [2, 3, 64])
def test_density_map_matches_a_dense_count_for_every_layout(max_pixels):
    rng = np.random.default_rng(5)
    for layout, A, _ in layout_cases(rng, fills=[0.0, 1.5, float("nan")]):
        if A.size == 0:
            continue
        density, cells = _expected_density(_specified_grid(A), max_pixels)
        np.testing.assert_array_equal(_display.pixel_cells(A, max_pixels=max_pixels), cells, err_msg=layout)
        np.testing.assert_allclose(_display.pattern_density(A, max_pixels=max_pixels), density, err_msg=layout)


def test_a_large_uniformly_sparse_array_reads_light_not_black():
    rng = np.random.default_rng(6)
    n, nse = 10**6, 10**6
    A = sparray.COO(rng.integers(0, n, (2, nse)), np.ones(nse), shape=(n, n))
    gray = _decode_png(_display.pattern_png(A))
    assert gray.shape == (64, 64)
    # ~244 entries per pixel of 15,625 x 15,625 cells: density 1e-6, a light even gray on the log scale
    assert 120 < gray.min() and gray.max() < 200 and gray.max() - gray.min() < 20, (gray.min(), gray.max())
    text = A._repr_html_()
    assert "64 x 64 pixels of 15,625 x 15,625 cells" in text
    assert "shade: the share of a pixel&#x27;s cells holding entries (log scale, white: none, black: all)" in text


def test_density_map_shades_full_pixels_black_and_single_entries_light():
    D = np.zeros((200, 200))
    D[:50, :50] = 1.0  # a dense block: full pixels
    D[150, 150] = 1.0  # one entry in its pixel
    for layout in ("coo", "csr", "bsc"):
        A = sparray.asarray(D, layout=layout, **({"blocksize": (2, 2)} if layout == "bsc" else {}))
        gray = _decode_png(_display.pattern_png(A))  # 64 pixels of 4 x 4 cells (the last ones 4 x 4 too: 200 = 50 * 4)
        assert gray.shape == (50, 50)
        assert (gray[:12, :12] == 0).all()  # 12 full pixels of the 50-cell block on each side: black
        if layout == "bsc":  # its stored 2 x 2 block counts in full: 4 of the pixel's 16 cells, half-way on the log scale
            assert gray[37, 37] == round(_display._LIGHTEST * (1 - math.log(4) / math.log(16)))
        else:
            assert gray[37, 37] == _display._LIGHTEST  # one entry among 16 cells: the lightest gray, visible
        untouched = np.ones((50, 50), bool)
        untouched[:13, :13] = False
        untouched[37, 37] = False
        assert (gray[untouched] == 255).all()
        assert "shade:" in A._repr_html_()


def test_small_arrays_keep_one_cell_per_pixel_and_their_caption():
    A = sparray.asarray(np.eye(5), fill_value=0.0, layout="csr")
    assert (_display.pixel_cells(A) == 1).all()
    np.testing.assert_array_equal(_display.pattern_density(A), np.eye(5))
    gray = _decode_png(_display.pattern_png(A))
    assert (np.diag(gray) == 0).all()
    text = A._repr_html_()
    assert "5 x 5 index grid in 5 x 5 pixels<" in text and "shade" not in text


# ---- arrays that hold dense values print as their value -----------------------------------------------------
@pytest.mark.parametrize("fill", [0.0, 1.5, float("nan")], ids=str)
@pytest.mark.parametrize("layout", LAYOUTS)
def test_zero_d_results_read_as_their_value(layout, fill):
    D = np.array([[fill, 3.0, fill], [1.0, fill, -2.5]])
    A = sparray.asarray(D, fill_value=fill, layout=layout, **({"blocksize": (1, 1)} if layout in ("bsr", "bsc") else {}))
    with np.errstate(all="ignore"):
        m, s, k, e = sparray.max(A), sparray.sum(A), sparray.argmin(A), A[1, 2]
    top = float(np.max(D))
    assert repr(m) == f"sparray.asarray({top!r}, dtype=float64, device=cpu)" and str(m) == str(top)
    assert repr(s) == f"sparray.asarray({float(np.sum(D))!r}, dtype=float64, device=cpu)"
    assert repr(k) == f"sparray.asarray({int(np.argmin(D))}, dtype=int64, device=cpu)" and str(k) == str(np.argmin(D))
    assert repr(e) == "sparray.asarray(-2.5, dtype=float64, device=cpu)" and f"{e}" == "-2.5" and f"{e:+.2f}" == "-2.50"
    assert repr(sparray.any(A > 2)) == "sparray.asarray(True, dtype=bool, device=cpu)"
    assert m._repr_html_() is None  # Jupyter falls back to the text


def test_zero_d_of_every_dtype_and_form():
    assert repr(sparray.asarray(np.float32(0.1))) == "sparray.asarray(0.1, dtype=float32, device=cpu)"
    assert repr(sparray.asarray(np.complex128(1 - 2j))) == "sparray.asarray((1-2j), dtype=complex128, device=cpu)"
    assert repr(sparray.asarray(np.uint8(7))) == "sparray.asarray(7, dtype=uint8, device=cpu)"
    fill_only = sparray.COO(np.zeros((0, 0), np.int64), np.zeros((0,)), shape=(), fill_value=float("nan"))
    assert repr(fill_only) == "sparray.asarray(nan, dtype=float64, device=cpu)" and str(fill_only) == "nan"


def test_dense_results_of_any_shape_read_as_numpy_prints_them():
    A = sparray.asarray(np.array([[0.0, 2.0, 0.0], [5.0, 0.0, 7.5]]))
    u = sparray.unique_values(A)
    assert repr(u) == "sparray.asarray([0. , 2. , 5. , 7.5], dtype=float64, device=cpu)"
    assert str(u) == str(np.array([0.0, 2.0, 5.0, 7.5]))
    P = sparray.linalg.pinv(A)
    expected = np.array2string(np.linalg.pinv(A.to_dense()), separator=", ", prefix="sparray.asarray(")
    assert repr(P) == f"sparray.asarray({expected}, dtype=float64, device=cpu)" and "\n" in repr(P)
    assert repr(P).split("\n")[1].startswith(" " * len("sparray.asarray(["))  # continuation lines aligned
    big = sparray.unique_values(sparray.asarray(np.arange(5000.0)))
    assert "..." in repr(big)
    assert repr(big) == f"sparray.asarray({np.array2string(np.arange(5000.0), separator=', ', prefix='sparray.asarray(')}, dtype=float64, device=cpu)"
    with pytest.raises(TypeError, match="unsupported format string"):
        f"{u:.2f}"


def test_sparse_arrays_keep_their_repr():
    A = sparray.asarray(np.array([[0.0, 2.0], [5.0, 0.0]]), layout="csr")
    assert repr(A).startswith("sparray.CSR(crow_indices=") and str(A) == repr(A) and f"{A}" == repr(A)
    row = A[1]  # 1-d, sparse: the components
    assert repr(row).startswith("sparray.") and "indices=" in repr(row)
    hybrid_all_fill = sparray.COO(np.zeros((0, 0), np.int64), np.zeros((0, 3)), shape=(3,), fill_value=1.0)
    assert "nse=0" in repr(hybrid_all_fill)  # stores nothing: not a dense result
    assert A._repr_html_() is not None


def test_device_results_read_as_their_value_and_copy_only_the_summary():
    from sparray.kernels.cuda import simulated

    A = sparray.asarray(np.array([[0.0, 3.0], [1.0, 0.0]]), layout="csr").to_device("simulated")
    m = sparray.max(A)
    with simulated.counting() as c:
        text = repr(m)
    assert text == "sparray.asarray(3.0, dtype=float64, device=simulated)" and c.syncs >= 1
    big = sparray.asarray(np.arange(40000.0).reshape(200, 200), sparse_ndim=0).to_device("simulated")
    assert big.sparse_ndim == 0 and big.nse == 1
    with simulated.counting() as c:
        text = repr(big)
    host = np.arange(40000.0).reshape(200, 200)
    expected = np.array2string(host, separator=", ", prefix="sparray.asarray(")
    assert text == f"sparray.asarray({expected}, dtype=float64, device=simulated)"
    assert c.syncs == 1 and "get()" in c.sites[0]  # one copy of the 7 x 7 corners, not of the 40,000 values
