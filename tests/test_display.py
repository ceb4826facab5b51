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
