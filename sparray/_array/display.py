"""Pictures of a sparsity pattern, for people: ``A._repr_html_()`` (Jupyter) and ``sparray.spy``; the text of dense results.

The pattern is drawn over the array's *index dims* (batch and sparse dims; a stored dense part
counts as one element of the picture): the last index dim runs across, every other index dim is
stacked down (a batched CSR shows its batches one under the other, a 1-d array is one row).
Specified elements are binned into at most ``max_pixels`` x ``max_pixels`` pixels straight from
the indices (one ``bincount``, O(nse)); nothing is densified, so a 1e7-entry array takes a
fraction of a second. An uncoalesced COO counts a duplicate twice, which only darkens a pixel.
While every pixel is one cell, a specified cell is black; once a pixel stands for many cells the
picture is a density map (the share of its cells that hold entries, on a log scale: one entry is
light gray, a full pixel black), so a large uniformly sparse array reads light gray, not black.

Arrays that hold dense values (0-d results, the namespace rule's dense results) print as their
value instead of their components (:func:`dense_text`), and Jupyter shows them as that text.

>>> import numpy as np, sparray
>>> counts = pattern_counts(sparray.asarray(np.eye(4)), max_pixels=2)
>>> counts.tolist()
[[2, 0], [0, 2]]
"""

from __future__ import annotations

import base64
import html
import math
import struct
import zlib

import numpy as np

__all__ = ["dense_text", "dense_value", "pattern_counts", "pattern_density", "pattern_png", "pixel_cells", "repr_html", "spy"]


def _to_numpy(x) -> np.ndarray:
    """A NumPy copy of an array of any namespace (CuPy arrays through ``.get()``)."""
    if hasattr(x, "get") and not isinstance(x, np.ndarray):
        return x.get()
    return np.asarray(x)


# ---- arrays that hold dense values (0-d results, the namespace rule's dense results) ---------------------
def _host_edges(dense) -> np.ndarray:
    """A NumPy copy of ``dense`` that prints as ``dense`` does: the whole array when NumPy would print
    it whole; for a larger array of a device namespace only what NumPy's summary shows (per axis the
    first and last ``edgeitems``, one middle item to keep the ``...``), so a large GPU result is not
    copied to the host to be printed."""
    if isinstance(dense, np.ndarray):
        return dense
    opts = np.get_printoptions()
    size = math.prod(dense.shape)
    if size <= opts["threshold"]:
        return _to_numpy(dense)
    import array_api_compat

    xp, edge = array_api_compat.array_namespace(dense), opts["edgeitems"]
    device = array_api_compat.device(dense)
    for axis, n in enumerate(dense.shape):
        if n > 2 * edge + 1:
            keep = [*range(edge), n // 2, *range(n - edge, n)]
            dense = xp.take(dense, xp.asarray(keep, dtype=xp.int64, device=device), axis=axis)
    return _to_numpy(dense)


def _dense_of(A):
    """The dense form of an array that holds dense values, in its namespace: the held values
    themselves where they are one stored element (no computation, no device read), else ``to_dense``."""
    from .implicit import held_values

    held = held_values(A)
    return A.to_dense() if held is None else held


def dense_value(A) -> np.ndarray:
    """The dense values of an array that holds them, as a NumPy array on the host (for printing)."""
    return _to_numpy(_dense_of(A))


def dense_text(A, style: str = "repr") -> str:
    """How an array that holds dense values prints (``sparray._array.implicit.holds_dense``).

    ``"repr"``: ``sparray.asarray(<value>, dtype=<dtype>, device=<device>)``, the value as NumPy's
    repr writes it (continuation lines aligned under it); ``"str"``: the value alone, as NumPy's
    ``str`` writes it (``3.0``, ``[0. 2. 5.]``). NumPy's print options apply (threshold, precision).

    >>> import numpy as np, sparray
    >>> A = sparray.asarray(np.array([[0.0, 2.0], [3.0, 0.0]]))
    >>> print(repr(sparray.max(A)), str(sparray.max(A)))
    sparray.asarray(3.0, dtype=float64, device=cpu) 3.0
    >>> print(repr(sparray.unique_values(A)))
    sparray.asarray([0., 2., 3.], dtype=float64, device=cpu)
    """
    from .base import _dtype_str

    full = _dense_of(A)
    summarized = math.prod(full.shape) > np.get_printoptions()["threshold"]
    host = _host_edges(full)
    if host.ndim == 0:
        text = str(host[()])
    else:
        opts = {"threshold": 0} if summarized else {}
        sep = ", " if style == "repr" else " "
        head = "sparray.asarray(" if style == "repr" else ""
        text = np.array2string(host, separator=sep, prefix=head, **opts)
    if style == "str":
        return text
    return f"sparray.asarray({text}, dtype={_dtype_str(A.dtype)}, device={A.device})"


def _index_grid(A) -> tuple[int, int]:
    """(rows, columns) of the picture: the last index dim across, the others stacked down."""
    index_shape = A.shape[: A.ndim - A.dense_ndim]
    if not index_shape:
        return 1, 1
    return math.prod(index_shape[:-1]), index_shape[-1]


def _index_rows_cols(A) -> tuple[np.ndarray, np.ndarray]:
    """Row and column (in the picture's grid) of every specified element, as int64 arrays."""
    coo = A if A.layout == "coo" else A.to_layout("coo")
    idx = _to_numpy(coo.indices).astype(np.int64, copy=False)
    index_shape = A.shape[: A.ndim - A.dense_ndim]
    if idx.shape[0] == 0:  # 0-d index part: one cell, specified or not
        n = coo.values.shape[0] if coo.values.ndim else 0
        return np.zeros(n, np.int64), np.zeros(n, np.int64)
    if idx.shape[0] <= 2:
        return (idx[0] if idx.shape[0] == 2 else np.zeros(idx.shape[1], np.int64)), idx[-1]
    rows = idx[0].copy()
    for d in range(1, idx.shape[0] - 1):  # row-major over the leading index dims
        rows *= index_shape[d]
        rows += idx[d]
    return rows, idx[-1]


def _bins(n: int, max_pixels: int) -> tuple[int, int]:
    """(elements per pixel, pixels) along one side: ``ceil(n / max_pixels)`` per pixel."""
    per = max(1, -(-n // max_pixels))
    return per, max(1, -(-n // per))


def pattern_counts(A, *, max_pixels: int = 64) -> np.ndarray:
    """Specified elements per pixel: an int64 array of at most ``max_pixels`` on each side.

    With ``(R, C)`` the grid of ``_index_grid``, a pixel covers ``ceil(R / max_pixels)`` rows and
    ``ceil(C / max_pixels)`` columns (one element per pixel when the grid is small enough).
    """
    if not isinstance(max_pixels, int) or max_pixels < 1:
        raise ValueError(f"pattern_counts: max_pixels must be a positive integer; got {max_pixels!r}")
    R, C = _index_grid(A)
    (rper, h), (cper, w) = _bins(R, max_pixels), _bins(C, max_pixels)
    if R == 0 or C == 0:
        return np.zeros((h if R else 0, w if C else 0), np.int64)
    rows, cols = _index_rows_cols(A)
    key = rows // rper if rper > 1 else rows.copy()
    key *= w
    key += cols // cper if cper > 1 else cols
    return np.bincount(key, minlength=h * w).reshape(h, w)


def _png(gray: np.ndarray) -> bytes:
    """A grayscale 8-bit PNG of ``gray`` (uint8, 2-d), written with the standard library only."""
    h, w = gray.shape
    raw = b"".join(b"\x00" + gray[i].tobytes() for i in range(h))  # filter type 0 per row

    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)

    header = struct.pack(">IIBBBBB", w, h, 8, 0, 0, 0, 0)
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", zlib.compress(raw, 9)) + chunk(b"IEND", b"")


def pixel_cells(A, *, max_pixels: int = 64) -> np.ndarray:
    """Cells (elements of the index grid) each pixel of :func:`pattern_counts` stands for: an int64
    array of its shape; ``rows per pixel * columns per pixel``, less in the last row and column
    of pixels when the grid does not divide evenly."""
    R, C = _index_grid(A)
    (rper, h), (cper, w) = _bins(R, max_pixels), _bins(C, max_pixels)
    if R == 0 or C == 0:
        return np.zeros((h if R else 0, w if C else 0), np.int64)
    rows = np.full(h, rper, np.int64)
    rows[-1] = R - rper * (h - 1)
    cols = np.full(w, cper, np.int64)
    cols[-1] = C - cper * (w - 1)
    return np.outer(rows, cols)


def pattern_density(A, *, max_pixels: int = 64) -> np.ndarray:
    """The share of each pixel's cells that hold a stored element: float64 in [0, 1], the density
    map of :func:`pattern_counts` over :func:`pixel_cells` (an uncoalesced COO's duplicates are
    clipped at 1). One cell per pixel: 1 where the element is specified, 0 elsewhere.

    >>> import numpy as np, sparray
    >>> pattern_density(sparray.asarray(np.eye(4)), max_pixels=2).tolist()
    [[0.5, 0.0], [0.0, 0.5]]
    """
    counts = pattern_counts(A, max_pixels=max_pixels)
    cells = pixel_cells(A, max_pixels=max_pixels)
    return np.minimum(counts / np.maximum(cells, 1), 1.0)


_LIGHTEST = 220  # the gray of a pixel holding one entry among the most cells (white, 255, is none)


def _shade(counts: np.ndarray, cells: np.ndarray | None = None) -> np.ndarray:
    """Pixels as gray levels, white (255) where nothing is specified.

    One cell per pixel (``cells`` None or all 1): black for a specified element (darker with the
    count where an uncoalesced COO repeats a position). Many cells per pixel: a density map on a
    fixed log scale, the same for every array of that grid: ``log(density)`` from one entry in
    the largest pixel (gray ``_LIGHTEST``, still visible) to every cell specified (black), so a
    uniformly sparse array reads light and evenly, and dense regions stand out dark.
    """
    if counts.size == 0:
        return np.full((1, 1), 255, np.uint8)
    most = 1 if cells is None else int(cells.max())
    if most <= 1:
        top = max(int(counts.max()), 1)
        level = np.log1p(counts) / math.log1p(top)  # 0 .. 1
        gray = np.where(counts > 0, 200 - 200 * level, 255.0)  # a single element is still clearly visible
        return gray.astype(np.uint8)
    density = np.minimum(counts / np.maximum(cells, 1), 1.0)
    with np.errstate(divide="ignore"):
        level = np.clip(np.log(density * most) / math.log(most), 0.0, 1.0)  # 0: one entry in `most` cells, 1: full
    gray = np.where(counts > 0, _LIGHTEST * (1.0 - level), 255.0)
    return np.round(gray).astype(np.uint8)


def pattern_png(A, *, max_pixels: int = 64) -> bytes:
    """The sparsity pattern of ``A`` as PNG bytes: one cell per pixel, or a density map when each
    pixel stands for many cells (see :func:`_shade`)."""
    return _png(_shade(pattern_counts(A, max_pixels=max_pixels), pixel_cells(A, max_pixels=max_pixels)))


def _fmt_bytes(n: float) -> str:
    from .implicit import bytes_text

    return bytes_text(n)


def _fill_text(A) -> str:
    fill = _to_numpy(A.fill_value)
    if fill.ndim == 0:
        return repr(fill.item())
    text = np.array2string(fill, threshold=8, edgeitems=2, separator=", ")
    return f"{text} (per dense element)"


def summary_rows(A) -> list[tuple[str, str]]:
    """(name, value) rows of the HTML table: what a person checks first about a sparse array."""
    from .base import _dtype_str, _itemsize

    dense_bytes = A.size * _itemsize(A.dtype)
    rows = [
        ("layout", A.layout.upper()),
        ("shape", str(A.shape)),
        ("dtype", _dtype_str(A.dtype)),
        ("device", str(A.device)),
        ("nse", f"{A.nse:,}"),
        ("density", f"{A.density:.3g}"),
        ("fill value", _fill_text(A)),
        ("index dtype", _dtype_str(A.index_dtype)),
        ("dims (batch, sparse, dense)", f"{A.batch_ndim}, {A.sparse_ndim}, {A.dense_ndim}"),
    ]
    if A.layout in ("bsr", "bsc"):
        rows.append(("blocksize", str(A.blocksize)))
    if A.layout == "coo":
        rows.append(("coalesced", str(A.is_coalesced)))
    if A.layout == "2:4":
        rows.append(("metadata", f"{tuple(A.metadata.shape)} uint16: a 4-bit code (the 2 kept positions) per group of 4"))
        rows.append(("transposed", "True (the groups of 4 run down the columns)" if A.transposed else "False"))
    ratio = f" ({A.nbytes / dense_bytes:.2%} of dense {_fmt_bytes(dense_bytes)})" if dense_bytes else ""
    if A.layout == "2:4" and dense_bytes:
        ratio = ratio[:-1] + f"; values and metadata: {_semi_fraction(A, dense_bytes)} of it)"
    rows.append(("memory", _fmt_bytes(A.nbytes) + ratio))
    return rows


def _semi_fraction(A, dense_bytes) -> str:
    """The share of the dense bytes a 2:4 array's components take, as a fraction: 9/16 for float16
    and 17/32 for float32 when the columns are a multiple of 16 (half the values plus 4 bits a group)."""
    from fractions import Fraction

    from .base import _itemsize

    parts = sum(math.prod(c.shape) * _itemsize(c.dtype) for c in A._components().values())
    return str(Fraction(parts, dense_bytes))


def repr_html(A, *, max_pixels: int = 64) -> str:
    """A table of :func:`summary_rows` beside a picture of the pattern (an inline PNG)."""
    R, C = _index_grid(A)
    cells = "".join(
        f"<tr><th style='text-align:left;padding-right:1em'>{html.escape(k)}</th>"
        f"<td style='text-align:left'>{html.escape(v)}</td></tr>"
        for k, v in summary_rows(A)
    )
    png = base64.b64encode(pattern_png(A, max_pixels=max_pixels)).decode("ascii")
    counts_shape = (_bins(R, max_pixels)[1], _bins(C, max_pixels)[1])
    scale = max(1, 160 // max(counts_shape))
    width, height = counts_shape[1] * scale, counts_shape[0] * scale
    caption = f"pattern: {R:,} x {C:,} index grid in {counts_shape[0]} x {counts_shape[1]} pixels"
    rper, cper = _bins(R, max_pixels)[0], _bins(C, max_pixels)[0]
    if R and C and rper * cper > 1:
        caption += (
            f" of {rper:,} x {cper:,} cells; shade: the share of a pixel's cells holding entries "
            "(log scale, white: none, black: all)"
        )
    picture = (
        f"<figure style='margin:0 0 0 1.5em'><img alt='sparsity pattern' src='data:image/png;base64,{png}' "
        f"width='{width}' height='{height}' style='image-rendering:pixelated;border:1px solid #888'/>"
        f"<figcaption style='font-size:smaller'>{html.escape(caption)}</figcaption></figure>"
    )
    title = f"<b>sparray.{type(A).__name__}</b>"
    return (
        f"<div class='sparray-repr'>{title}<div style='display:flex;align-items:flex-start'>"
        f"<table>{cells}</table>{picture}</div></div>"
    )


def spy(A, ax=None, *, max_pixels: int = 512, **imshow_kwargs):
    """Plot the sparsity pattern of ``A`` with matplotlib, as MATLAB's and scipy's ``spy`` do.

    Elements are binned into at most ``max_pixels`` per side (see :func:`pattern_counts`); a
    pixel is dark when any element in it is specified. Returns matplotlib's ``AxesImage``.

    >>> import numpy as np, sparray  # doctest: +SKIP
    >>> sparray.spy(sparray.asarray(np.eye(100)))  # doctest: +SKIP
    """
    from .base import SparseArray

    if not isinstance(A, SparseArray):
        raise TypeError(f"spy: expected a sparray SparseArray; got {type(A).__name__}")
    try:
        import matplotlib.pyplot as plt
    except ImportError as exc:
        raise ImportError("spy needs matplotlib: pip install matplotlib") from exc
    counts = pattern_counts(A, max_pixels=max_pixels)
    R, C = _index_grid(A)
    if ax is None:
        ax = plt.gca()
    opts = {"cmap": "Greys", "interpolation": "nearest", "aspect": "equal", "vmin": 0, "vmax": 1}
    opts.update(imshow_kwargs)
    image = ax.imshow((counts > 0).astype(np.float64), extent=(-0.5, C - 0.5, R - 0.5, -0.5), **opts)
    ax.set_title(f"{A.layout.upper()} {A.shape}, nse={A.nse:,}")
    return image
