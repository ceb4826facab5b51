"""Hypothesis strategies for the differential test: sparse arrays paired with the dense NumPy array
they stand for, and the extra arguments of an operation (axes, keys, shapes, scalars).

:func:`sparse_cases` draws a :class:`Case`: ``A`` (a SparseArray) and ``D`` (a NumPy array) with
``A.to_dense() == D``. The dense array is drawn first, independently of sparray: random values
on a random mask, the fill everywhere else (a dense-part fill broadcast over the index dims). The
sparse array is then built from explicit components, never from sparray's own dense conversion:

- COO: the specified positions as ``indices`` (every dense part that differs from the fill, plus
  a few that equal it: specified elements may hold the fill value), optionally *uncoalesced*
  (some entries split in two duplicates whose sum is exact: ``v/2 + v/2``, ``(v - 1) + 1``,
  ``v or False``) and shuffled;
- CSR/CSC/BSR/BSC: pointers and indices computed here with NumPy from the same positions
  (blocks for BSR/BSC), batch dims included.

Shapes: 0 to 3 dims (0-d only as COO), sizes 0 to 5; layouts that fit the shape; dtypes
float64, float32, int64, bool; fills 0, 1.5, -2, nan, +-inf (those the dtype holds) or a
dense-part fill; int32 or int64 indices.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from hypothesis import strategies as st

import sparray

DTYPES = ("float64", "float32", "int64", "bool")
FLOAT_FILLS = (0.0, 1.5, -2.0, float("nan"), float("inf"), float("-inf"))
INT_FILLS = (0, -2, 3)
BOOL_FILLS = (False, True)


@dataclass
class Case:
    """A sparse array and the dense NumPy array it stands for (``A.to_dense() == D``)."""

    A: object
    D: np.ndarray
    label: str

    def __repr__(self) -> str:
        return f"Case({self.label}: {self.A!r})"


def _fills_for(dtype):
    if dtype == "bool":
        return BOOL_FILLS
    if dtype.startswith("int"):
        return INT_FILLS
    return FLOAT_FILLS


def _random_values(rng, shape, dtype):
    if dtype == "bool":
        return rng.random(shape) < 0.5
    if dtype.startswith("int"):
        return rng.integers(-4, 5, size=shape).astype(dtype)
    v = rng.integers(-8, 9, size=shape) / 4.0  # quarters: sums and halves stay exact
    special = rng.random(shape)
    v = np.where(special < 0.03, np.nan, np.where(special < 0.05, np.inf, v))
    return v.astype(dtype)


@st.composite
def sparse_cases(draw, dtypes=DTYPES, layouts=("coo", "csr", "csc", "bsr", "bsc"), max_ndim=3, max_side=5,
                 allow_uncoalesced=True, shape=None, dtype=None, min_ndim=0):  # fmt: skip
    """A :class:`Case` (see the module docstring); ``shape`` / ``dtype`` fix those when given."""
    if shape is None:
        ndim = draw(st.integers(min_ndim, max_ndim))
        shape = tuple(draw(st.lists(st.integers(0, max_side), min_size=ndim, max_size=ndim)))
    shape = tuple(shape)
    ndim = len(shape)
    fitting = [lay for lay in layouts if lay == "coo" or ndim >= 2]
    layout = draw(st.sampled_from(fitting))
    dtype = draw(st.sampled_from(dtypes)) if dtype is None else dtype
    seed = draw(st.integers(0, 2**32 - 1))
    rng = np.random.default_rng(seed)
    index_dtype = draw(st.sampled_from(["int64", "int32"]))
    if layout == "coo":
        sparse_ndim = draw(st.integers(0 if ndim == 0 else 1, ndim)) if ndim else 0
        batch = 0
    else:
        dense_ndim = draw(st.integers(0, ndim - 2))
        sparse_ndim = ndim - dense_ndim  # batch + 2 compressed dims
        batch = sparse_ndim - 2
    dense_shape = shape[sparse_ndim:]
    dense_part_fill = bool(dense_shape) and draw(st.booleans()) and math.prod(dense_shape) > 0
    fills = _fills_for(dtype)
    if dense_part_fill:
        fill = np.asarray(rng.choice(np.asarray(fills, dtype=object), size=dense_shape).astype(dtype))
    else:
        fill = np.asarray(draw(st.sampled_from(fills)), dtype=dtype)
    blocksize = None
    if layout in ("bsr", "bsc"):
        rows, cols = shape[batch], shape[batch + 1]
        bh = draw(st.sampled_from([d for d in (1, 2, 3) if rows % d == 0] or [1]))
        bw = draw(st.sampled_from([d for d in (1, 2, 3) if cols % d == 0] or [1]))
        blocksize = (bh, bw)
    density = draw(st.sampled_from([0.0, 0.2, 0.5, 1.0]))

    # the dense array: values on a mask of index positions (whole dense parts), the fill elsewhere
    grid = shape[:sparse_ndim]
    if layout in ("bsr", "bsc"):  # blocks are specified whole
        bgrid = shape[:batch] + (shape[batch] // blocksize[0], shape[batch + 1] // blocksize[1])
        bmask = rng.random(bgrid) < density
        mask = np.repeat(np.repeat(bmask, blocksize[0], axis=batch), blocksize[1], axis=batch + 1)
    else:
        mask = rng.random(grid) < density
    full_mask = mask.reshape(mask.shape + (1,) * len(dense_shape))
    values = _random_values(rng, shape, dtype)
    D = np.where(full_mask, values, np.broadcast_to(fill, shape)).astype(dtype)

    uncoalesced = layout == "coo" and allow_uncoalesced and draw(st.booleans())
    A = _build(layout, D, mask, fill, sparse_ndim, batch, blocksize, index_dtype, uncoalesced, rng)
    label = (f"{layout} shape={shape} dtype={dtype} sparse_ndim={sparse_ndim} fill={fill.tolist()} "
             f"index={index_dtype} block={blocksize} uncoalesced={uncoalesced} seed={seed}")  # fmt: skip
    return Case(A, D, label)


def _build(layout, D, mask, fill, sparse_ndim, batch, blocksize, index_dtype, uncoalesced, rng):
    if layout == "coo":
        return _build_coo(D, mask, fill, sparse_ndim, index_dtype, uncoalesced, rng)
    return _build_compressed(layout, D, mask, fill, batch, blocksize, index_dtype)


def _split(v, rng):
    """Two arrays whose sum is exactly ``v`` (for duplicates)."""
    if v.dtype == np.bool_:
        return v, np.zeros_like(v)
    if v.dtype.kind == "i":
        return v - 1, np.ones_like(v)
    finite = np.isfinite(v)
    with np.errstate(invalid="ignore"):
        half = np.where(finite, v / 2, v)
        return half, np.where(finite, v - half, np.zeros_like(v))


def _build_coo(D, mask, fill, sparse_ndim, index_dtype, uncoalesced, rng):
    if mask.ndim == 0:  # no index dims: one entry or none
        n = int(bool(mask))
        indices = np.zeros((0, n), dtype=index_dtype)
        values = D[None][:n]
    else:
        pos = np.nonzero(mask)
        indices = np.stack(pos).astype(index_dtype)
        values = D[pos]
    if uncoalesced and indices.shape[1]:
        dup = rng.random(indices.shape[1]) < 0.5
        a, b = _split(values[dup], rng)
        values = np.concatenate([values[~dup], a, b])
        indices = np.concatenate([indices[:, ~dup], indices[:, dup], indices[:, dup]], axis=1)
        order = rng.permutation(indices.shape[1])
        indices, values = indices[:, order], values[order]
    return sparray.COO(indices, values, shape=D.shape, fill_value=fill)


def _build_compressed(layout, D, mask, fill, batch, blocksize, index_dtype):
    """Pointers and indices with NumPy; every batch gets the same nse (PyTorch's rule): batches
    with fewer stored elements (blocks) get some fill-valued ones specified."""
    column = layout in ("csc", "bsc")
    bh, bw = blocksize or (1, 1)
    bshape = D.shape[:batch]
    R, C = D.shape[batch], D.shape[batch + 1]
    nb = math.prod(bshape)
    grid = mask.reshape((nb, R, C))[:, ::bh, ::bw]
    if column:
        grid = grid.transpose(0, 2, 1)
    counts = grid.reshape(nb, -1).sum(axis=1) if grid.size else np.zeros(nb, np.int64)
    nse = int(counts.max()) if nb else 0
    grid = grid.copy()
    for b in range(nb):  # pad every batch to nse with fill-valued positions (first free ones)
        free = np.flatnonzero(~grid[b].ravel())[: nse - int(counts[b])]
        grid[b].ravel()[free] = True
    major = grid.shape[1]
    ptr = np.zeros((nb, major + 1), dtype=index_dtype)
    idx = np.zeros((nb, nse), dtype=index_dtype)
    Db = D.reshape((nb, R, C) + D.shape[batch + 2 :])
    block_dims = (bh, bw) if layout in ("bsr", "bsc") else ()
    vals = np.zeros((nb, nse) + block_dims + D.shape[batch + 2 :], dtype=D.dtype)
    for b in range(nb):
        rows, cols = np.nonzero(grid[b])
        ptr[b, 1:] = np.cumsum(np.bincount(rows, minlength=major))
        idx[b] = cols
        for e, (i, j) in enumerate(zip(rows, cols)):
            r, c = (j, i) if column else (i, j)
            blk = Db[b, r * bh : (r + 1) * bh, c * bw : (c + 1) * bw]
            vals[b, e] = blk if block_dims else blk[0, 0]
    ptr = ptr.reshape(bshape + (major + 1,))
    idx = idx.reshape(bshape + (nse,))
    vals = vals.reshape(bshape + vals.shape[1:])
    cls = {"csr": sparray.CSR, "csc": sparray.CSC, "bsr": sparray.BSR, "bsc": sparray.BSC}[layout]
    return cls(ptr, idx, vals, shape=D.shape, fill_value=fill)


# --- arguments of operations ---------------------------------------------------------------------
def axes_for(ndim):
    """An axis argument: None, an int (maybe negative) or a tuple of distinct ints."""
    if ndim == 0:
        return st.sampled_from([None, ()])
    single = st.integers(-ndim, ndim - 1)
    several = st.lists(st.integers(0, ndim - 1), unique=True, max_size=ndim).map(tuple)
    return st.one_of(st.none(), single, several)


def scalars_for(dtype):
    """A Python scalar operand the dtype can meet (NumPy's weak-scalar rules decide the result)."""
    if dtype == "bool":
        return st.sampled_from([True, False, 0, 2])
    if dtype.startswith("int"):
        return st.sampled_from([0, 1, -3, 2, True])
    return st.sampled_from([0.0, 1.5, -2.0, 0, 3, float("inf"), float("nan"), True])


@st.composite
def index_keys(draw, shape):
    """A key for ``A[key]``: ints, slices with any step, None, Ellipsis, integer and boolean arrays."""
    items = []
    for n in shape:
        kind = draw(st.sampled_from(["int", "slice", "slice", "array", "mask", "empty"] if n else ["slice", "mask", "empty"]))
        if kind == "int":
            items.append(draw(st.integers(-n, n - 1)))
        elif kind == "slice":
            bound = st.one_of(st.none(), st.integers(-n - 2, n + 2))
            items.append(slice(draw(bound), draw(bound), draw(st.sampled_from([None, 1, 2, -1, -2, 3]))))
        elif kind == "array":
            items.append(np.asarray(draw(st.lists(st.integers(-n, n - 1), max_size=4)), dtype=np.int64))
        elif kind == "mask":
            items.append(np.asarray(draw(st.lists(st.booleans(), min_size=n, max_size=n)), dtype=bool))
        else:
            items.append([])
        if draw(st.integers(0, 9)) == 0:
            items.append(None)
    cut = draw(st.integers(0, len(items)))
    style = draw(st.sampled_from(["full", "prefix", "ellipsis_end", "ellipsis_inside"]))
    if style == "prefix":
        items = items[:cut]
    elif style == "ellipsis_end":
        items = items[:cut] + [Ellipsis]
    elif style == "ellipsis_inside":
        items = items[:cut] + [Ellipsis] + items[cut:]
    return tuple(items)
