"""Conversions between COO, the compressed layouts (CSR, CSC, BSR, BSC) and dense arrays.

Every conversion keeps the fill value and the batch/dense split. The work is done on a flat view
of a compressed array, its *parts*: ``nbatch * nmajor`` major rows with GLOBAL offsets, the
plain indices ``(nnz,)`` and the values ``(nnz, m)`` (``m`` = block size times dense size). The
registry's kernels (``compress_offsets``, ``expand_offsets``, ``transpose_compressed``,
``dense_to_compressed``, ``compressed_to_dense``, ``scatter_blocks``; numba on NumPy data,
``_compressed_generic.py`` elsewhere) do the O(nse) passes.

- COO -> CSR: coalesce (usually a no-op), row pointers by one pass over the sorted rows; column
  indices and values are the COO's own buffers when no batch padding is needed (no copy).
- COO -> CSC: via CSR, then a counting-sort transpose (no comparison sort).
- CSR <-> CSC, BSR <-> BSC: the counting-sort transpose of the parts.
- COO -> BSR/BSC: unique blocks (sorted block keys), then the entries scattered into fill-valued
  blocks; every element of a specified block is specified.
- dense -> CSR/CSC/BSR/BSC: one count pass and one write pass over major rows (blocks are
  compared whole), no COO in between.
- batches: PyTorch requires the same nse in every batch. When the data give different counts,
  the short batches are padded with specified elements holding the fill value (at their first
  unspecified positions), which leaves the array's value unchanged.

>>> import sparray, numpy as np
>>> A = sparray.asarray(np.array([[[1, 0], [2, 3]], [[4, 0], [5, 6]]]), layout="csr")
>>> A.crow_indices.tolist()
[[0, 1, 3], [0, 1, 3]]
"""

from __future__ import annotations

import math

from .._engine import compressed_generic as _compressed_generic
from .._engine import dispatch as _dispatch
from .._array.blocked import BSC, BSR
from .coalesce import flat_values
from .._array.compressed import CSC, CSR
from .._core.fill import is_undefined, normalize_fill, same_value
from .._core.keys import INT32_MAX, index_dtype_for, linear_keys, unravel
from .._core.namespace import backend_kind, namespace_of

__all__ = [
    "LAYOUT_CLASSES", "compressed_to_coo", "coo_to_compressed", "dense_to_compressed", "compressed_to_dense",
    "recompress", "pack_sparse_dims", "move_dense_to_sparse",
]  # fmt: skip

LAYOUT_CLASSES = {"csr": CSR, "csc": CSC, "bsr": BSR, "bsc": BSC}


class _Parts:
    """A compressed array flattened: ``nbatch * nmajor`` rows, global ``offsets``, ``minor`` (nnz,), ``values`` (nnz, m)."""

    def __init__(self, xp, offsets, minor, values, nbatch, nmajor, nminor):
        self.xp, self.offsets, self.minor, self.values = xp, offsets, minor, values
        self.nbatch, self.nmajor, self.nminor = nbatch, nmajor, nminor

    @property
    def nnz(self) -> int:
        return self.minor.shape[0]

    def transposed(self, index_dtype) -> _Parts:
        xp = self.xp
        t_off, t_minor, t_values = _dispatch.call(
            "transpose_compressed", "csr", xp, self.offsets, self.minor, self.values,
            self.nbatch, self.nmajor, self.nminor, index_dtype, work=self.nnz,
        )  # fmt: skip
        return _Parts(xp, t_off, t_minor, t_values, self.nbatch, self.nminor, self.nmajor)

    def rows(self, index_dtype):
        """The global major row of every entry (the entry count is known: no read of offsets[-1])."""
        return _dispatch.call("expand_offsets", "csr", self.xp, self.offsets, index_dtype, self.nnz, work=self.nnz)


def _parts_of(X) -> _Parts:
    xp = X._xp
    X._check_contents()
    nbatch = math.prod(X.batch_shape)
    nmajor, nminor = X._grid
    nse = X.nse
    cidx = X._cidx
    if X.batch_ndim == 0:
        offsets = cidx
    else:
        c = xp.reshape(xp.astype(cidx, xp.int64), (nbatch, nmajor + 1))
        base = xp.reshape(xp.arange(nbatch, dtype=xp.int64) * nse, (nbatch, 1))
        offsets = xp.concat([xp.reshape(c[:, :-1] + base, (nbatch * nmajor,)), xp.asarray([nbatch * nse], dtype=xp.int64)])
    minor = xp.reshape(X._pidx, (nbatch * nse,))
    values = xp.reshape(X._values, (nbatch * nse, math.prod(X._values.shape[X.batch_ndim + 1 :])))
    return _Parts(xp, offsets, minor, values, nbatch, nmajor, nminor)


def _batched_offsets(xp, offsets, nbatch, nmajor, nse, batch_shape, index_dtype):
    """Per-batch pointers ``(*batch, nmajor + 1)`` from global offsets (every batch holds ``nse``)."""
    if not batch_shape:
        return offsets if offsets.dtype == index_dtype else xp.astype(offsets, index_dtype)
    o = xp.astype(offsets, xp.int64)
    base = xp.reshape(xp.arange(nbatch, dtype=xp.int64) * nse, (nbatch, 1))
    head = xp.reshape(o[:-1], (nbatch, nmajor)) - base if nmajor else xp.zeros((nbatch, 0), dtype=xp.int64)
    last = xp.full((nbatch, 1), nse, dtype=xp.int64)
    return xp.astype(xp.reshape(xp.concat([head, last], axis=1), (*batch_shape, nmajor + 1)), index_dtype)


def _build(cls, parts: _Parts, shape, fill, batch_shape, value_tail, index_dtype):
    """The compressed array of ``cls`` holding ``parts`` (every batch must hold the same count)."""
    xp = parts.xp
    nse = parts.nnz // parts.nbatch if parts.nbatch else 0
    cidx = _batched_offsets(xp, parts.offsets, parts.nbatch, parts.nmajor, nse, batch_shape, index_dtype)
    minor = parts.minor if parts.minor.dtype == index_dtype else xp.astype(parts.minor, index_dtype)
    pidx = xp.reshape(minor, (*batch_shape, nse))
    values = xp.reshape(parts.values, (*batch_shape, nse, *value_tail))
    return cls._from_parts(xp, cidx, pidx, values, shape, fill)


def _batch_counts(parts: _Parts):
    xp = parts.xp
    o = xp.astype(parts.offsets, xp.int64)
    ends = xp.take(o, xp.arange(1, parts.nbatch + 1, dtype=xp.int64) * parts.nmajor)
    starts = xp.concat([xp.zeros((1,), dtype=xp.int64), ends[:-1]])
    return ends - starts


def _equalize_batches(parts: _Parts, pad_row, index_dtype) -> _Parts:
    """``parts`` with every batch padded to the largest count by fill-valued entries.

    The ``j``-th unspecified position of a batch whose sorted local keys are ``k_i`` is
    ``j + #{i : k_i - i <= j}``; all are found with one ``searchsorted``.
    """
    xp = parts.xp
    if parts.nbatch <= 1:
        return parts
    counts = _batch_counts(parts)
    if backend_kind(xp) == "cupy":  # one read (a GPU's wait) for both
        most, least = (int(v) for v in xp.stack([xp.max(counts), xp.min(counts)]).tolist())
    else:  # (array_api_strict arrays have no tolist)
        most, least = int(xp.max(counts)), int(xp.min(counts))
    if least == most:
        return parts
    nmajor, nminor, nbatch = parts.nmajor, parts.nminor, parts.nbatch
    npos = nmajor * nminor
    g = xp.astype(parts.rows(xp.int64), xp.int64)
    batch = g // nmajor
    local = (g - batch * nmajor) * nminor + xp.astype(parts.minor, xp.int64)
    starts = xp.concat([xp.zeros((1,), dtype=xp.int64), xp.cumulative_sum(counts)[:-1]])
    rank = xp.arange(parts.nnz, dtype=xp.int64) - xp.take(starts, batch)
    gaps = batch * (npos + 1) + (local - rank)  # non-decreasing: within a batch k_i - i never decreases
    need = most - counts
    need_end = xp.cumulative_sum(need)
    total = int(need_end[-1])
    q = xp.arange(total, dtype=xp.int64)
    q_batch = xp.searchsorted(need_end, q, side="right")
    j = q - (xp.take(need_end, q_batch) - xp.take(need, q_batch))
    before = xp.searchsorted(gaps, q_batch * (npos + 1) + j, side="right") - xp.take(starts, q_batch)
    pad_keys = q_batch * npos + j + before
    keys = xp.concat([batch * npos + local, pad_keys])
    order = xp.argsort(keys, stable=True)
    keys = xp.take(keys, order)
    pad_values = xp.broadcast_to(xp.reshape(pad_row, (1, parts.values.shape[1])), (total, parts.values.shape[1]))
    values = xp.take(xp.concat([parts.values, xp.astype(pad_values, parts.values.dtype)], axis=0), order, axis=0)
    rows = keys // max(nminor, 1)
    offsets = _dispatch.call("compress_offsets", "csr", xp, rows, nbatch * nmajor, xp.int64, work=keys.shape[0])
    minor = xp.astype(keys - rows * nminor, index_dtype)
    return _Parts(xp, offsets, minor, values, nbatch, nmajor, nminor)


def _fill_row(xp, fill, dense_shape, repeat, dtype):
    """The fill as one flat row ``(repeat * prod(dense_shape),)`` (a block's worth for BSR/BSC)."""
    m = math.prod(dense_shape)
    row = xp.reshape(xp.astype(xp.broadcast_to(fill, dense_shape), dtype), (1, m))
    return xp.reshape(xp.broadcast_to(row, (repeat, m)), (repeat * m,))


# --- COO -> compressed ------------------------------------------------------------------------------
def coo_to_compressed(A, layout: str, blocksize=None):
    """COO ``A`` (at least 2 sparse dims) as a ``layout`` array; the leading sparse dims become batch dims."""
    cls = LAYOUT_CLASSES[layout]
    s = A.sparse_ndim
    if s < 2:
        raise ValueError(
            f"to_layout: a {layout.upper()} array needs 2 sparse dims (plus batch dims); got a COO with "
            f"sparse_ndim={s} and shape {A.shape}; use to_layout({layout!r}, dense_ndim=...) with fewer dense dims"
        )
    blocksize = _check_blocksize(cls, A.shape[s - 2 : s], blocksize, layout)
    xp = A._xp
    A = A.coalesce()
    A._check_contents()
    batch_shape = A.sparse_shape[:-2]
    nbatch = math.prod(batch_shape)
    rows, cols = A.sparse_shape[-2:]
    dense_shape = A.dense_shape
    idt = index_dtype_for(xp, A.shape, A.nse, A._indices)
    if cls._blocked:
        return _coo_to_blocked(A, cls, blocksize, idt)
    if s == 2:
        major = A._indices[0, :]
    else:
        major = linear_keys(xp, A._indices[:-1, :], A.sparse_shape[:-1])
        if major is None:
            raise ValueError(f"to_layout: batch x rows = {nbatch * rows} does not fit in int64 for shape {A.shape}")
    off_dt = idt if not batch_shape else xp.int64
    # A is coalesced and range-checked: its major keys are sorted and in range
    offsets = _dispatch.call("compress_offsets", "csr", xp, major, nbatch * rows, off_dt, True, work=A.nse)
    parts = _Parts(xp, offsets, A._indices[-1, :], flat_values(xp, A._values), nbatch, rows, cols)
    parts = _equalize_batches(parts, _fill_row(xp, A._fill, dense_shape, 1, A.dtype), idt)
    if cls._major == 1:
        parts = parts.transposed(idt)
    return _build(cls, parts, A.shape, A._fill, batch_shape, dense_shape, idt)


def _check_blocksize(cls, sparse_shape, blocksize, layout):
    if not cls._blocked:
        if blocksize is not None and tuple(blocksize) != (1, 1):
            raise ValueError(f"to_layout: blocksize is only meaningful for layout 'bsr' or 'bsc'; got {blocksize} for {layout!r}")
        return None
    if blocksize is None:
        raise ValueError(f"to_layout: layout {layout!r} needs blocksize=(bh, bw)")
    try:
        bh, bw = (int(b) for b in blocksize)
    except (TypeError, ValueError):
        raise ValueError(f"to_layout: blocksize must be a pair of positive ints; got {blocksize!r}") from None
    if bh < 1 or bw < 1:
        raise ValueError(f"to_layout: blocksize must be positive; got {(bh, bw)}")
    rows, cols = sparse_shape
    if rows % bh or cols % bw:
        raise ValueError(f"to_layout: blocksize {(bh, bw)} must divide the sparse shape {(rows, cols)}")
    return bh, bw


def _coo_to_blocked(A, cls, blocksize, idt):
    xp = A._xp
    bh, bw = blocksize
    batch_shape = A.sparse_shape[:-2]
    nbatch = math.prod(batch_shape)
    rows, cols = A.sparse_shape[-2:]
    nbr, nbc = rows // bh, cols // bw
    nmajor, nminor = (nbr, nbc) if cls._major == 0 else (nbc, nbr)
    r = xp.astype(A._indices[-2, :], xp.int64)
    c = xp.astype(A._indices[-1, :], xp.int64)
    batch = linear_keys(xp, A._indices[:-2, :], batch_shape) if batch_shape else xp.zeros_like(r)
    br, bc = r // bh, c // bw
    bmajor, bminor = (br, bc) if cls._major == 0 else (bc, br)
    bkey = (batch * nmajor + bmajor) * nminor + bminor
    ukeys, _ = _dispatch.call(
        "coalesce", "coo", xp, bkey, xp.zeros((bkey.shape[0], 0), dtype=xp.float64), work=bkey.shape[0]
    )
    block_ids = xp.searchsorted(ukeys, bkey)
    slots = (r - br * bh) * bw + (c - bc * bw)
    dense_shape = A.dense_shape
    m = math.prod(dense_shape)
    fill_row = _fill_row(xp, A._fill, dense_shape, 1, A.dtype)
    nblocks = ukeys.shape[0]
    blocks = _dispatch.call(
        "scatter_blocks", "bsr", xp, block_ids, slots, flat_values(xp, A._values), nblocks, bh * bw, fill_row,
        work=A.nse,
    )  # fmt: skip
    grows = ukeys // max(nminor, 1)  # sorted (ukeys are) and in range (A's indices were checked)
    offsets = _dispatch.call("compress_offsets", "csr", xp, grows, nbatch * nmajor, xp.int64, True, work=nblocks)
    parts = _Parts(xp, offsets, ukeys - grows * nminor, xp.reshape(blocks, (nblocks, bh * bw * m)), nbatch, nmajor, nminor)
    parts = _equalize_batches(parts, _fill_row(xp, A._fill, dense_shape, bh * bw, A.dtype), idt)
    return _build(cls, parts, A.shape, A._fill, batch_shape, (bh, bw, *dense_shape), idt)


# --- compressed -> COO ------------------------------------------------------------------------------
def compressed_to_coo(X):
    """The COO holding the same elements (batch dims become leading sparse dims)."""
    from .._array.coo import COO

    xp = X._xp
    parts = _parts_of(X)
    if X._major == 1:  # visit entries row by row: the COO comes out sorted
        parts = parts.transposed(xp.int64)
    batch_shape = X.batch_shape
    b = len(batch_shape)
    bh, bw = X._block
    nbr = parts.nmajor
    dense_shape = X.dense_shape
    nse = parts.nnz * bh * bw
    idt = index_dtype_for(xp, X.shape, nse, X._cidx)
    if not batch_shape and (bh, bw) == (1, 1):  # plain 2-d: rows straight from the pointers, one copy
        row = parts.rows(idt)
        col = parts.minor if parts.minor.dtype == idt else xp.astype(parts.minor, idt)
        values = xp.reshape(parts.values, (nse, *dense_shape))
        return COO._from_parts(xp, xp.stack([row, col], axis=0), values, X.shape, X._fill, coalesced=True)
    if (bh, bw) != (1, 1) and backend_kind(xp) == "cupy":
        return _blocked_to_sorted_coo(X, parts, idt)
    g = xp.astype(parts.rows(xp.int64), xp.int64)
    batch = g // max(nbr, 1)
    brow = g - batch * nbr
    bcol = xp.astype(parts.minor, xp.int64)
    if (bh, bw) != (1, 1):
        i = xp.reshape(xp.arange(bh, dtype=xp.int64), (1, bh, 1))
        j = xp.reshape(xp.arange(bw, dtype=xp.int64), (1, 1, bw))
        shape3 = (parts.nnz, bh, bw)
        row = xp.reshape(xp.broadcast_to(xp.reshape(brow, (-1, 1, 1)) * bh + i, shape3), (nse,))
        col = xp.reshape(xp.broadcast_to(xp.reshape(bcol, (-1, 1, 1)) * bw + j, shape3), (nse,))
        batch = xp.reshape(xp.broadcast_to(xp.reshape(batch, (-1, 1, 1)), shape3), (nse,))
    else:
        row, col = brow, bcol
    lead = [unravel(xp, batch, batch_shape, idt)] if b else []
    indices = xp.concat([*lead, xp.reshape(xp.astype(row, idt), (1, nse)), xp.reshape(xp.astype(col, idt), (1, nse))], axis=0)
    values = xp.reshape(parts.values, (nse, *dense_shape))
    return COO._from_parts(xp, indices, values, X.shape, X._fill, coalesced=True if bh == 1 else None)


def _blocked_to_sorted_coo(X, parts, idt):
    """The coalesced (row-major sorted) COO of blocked ``X`` from its block-row-ordered ``parts``,
    with no sort and no wait (the GPU path: a COO in block order would need a coalescing sort,
    whose result size is read back, before it could be compressed by rows again).

    The elements of block row ``g`` (blocks ``s_g <= k < e_g``, ``c_g = e_g - s_g`` of them) fill
    output slots ``[s_g * bh * bw, e_g * bh * bw)`` ordered by element row ``i``, then block, then
    element column ``j``: output slot ``s_g * bh * bw + i * c_g * bw + (k - s_g) * bw + j`` holds
    element ``(k, i, j)``, so each slot finds its source with one gather."""
    from .._array.coo import COO

    xp = parts.xp
    bh, bw = X._block
    bb = bh * bw
    nbr = parts.nmajor
    batch_shape, dense_shape = X.batch_shape, X.dense_shape
    nse = parts.nnz * bb
    p = xp.arange(nse, dtype=xp.int64)
    k0 = p // bb  # a block of the same block row as slot p (slots of row g span its blocks' range)
    g = xp.astype(xp.take(parts.rows(xp.int64), k0), xp.int64) if nse else k0
    off = xp.astype(parts.offsets, xp.int64)
    start = xp.take(off, g) if nse else k0
    count = xp.take(off, g + 1) - start if nse else k0
    q = p - start * bb
    width = xp.where(count > 0, count * bw, xp.ones_like(count))
    i = q // width
    rem = q - i * width
    kk = rem // bw
    j = rem - kk * bw
    k = start + kk
    src = k * bb + i * bw + j
    batch = g // max(nbr, 1)
    row = (g - batch * nbr) * bh + i
    col = xp.astype(xp.take(parts.minor, k), xp.int64) * bw + j if nse else k0
    lead = [unravel(xp, batch, batch_shape, idt)] if batch_shape else []
    indices = xp.concat([*lead, xp.reshape(xp.astype(row, idt), (1, nse)), xp.reshape(xp.astype(col, idt), (1, nse))], axis=0)
    m = math.prod(dense_shape)
    flat = xp.reshape(parts.values, (nse, m))
    values = xp.reshape(xp.take(flat, src, axis=0), (nse, *dense_shape))
    return COO._from_parts(xp, indices, values, X.shape, X._fill, coalesced=True)


# --- compressed <-> compressed ----------------------------------------------------------------------
def recompress(X, layout: str):
    """CSR <-> CSC or BSR <-> BSC: the same elements compressed along the other axis (a real conversion)."""
    cls = LAYOUT_CLASSES[layout]
    idt = X._cidx.dtype
    parts = _parts_of(X).transposed(idt)
    b = X.batch_ndim
    tail = tuple(X._values.shape[b + 1 :])
    return _build(cls, parts, X.shape, X._fill, X.batch_shape, tail, idt)


# --- dense <-> compressed ---------------------------------------------------------------------------
def dense_to_compressed(x, layout: str, *, blocksize=None, fill_value=None, dense_ndim=0, index_dtype=None):
    """``layout`` array of dense ``x``: elements (blocks) equal to the fill are left unspecified."""
    cls = LAYOUT_CLASSES[layout]
    xp = namespace_of(x)
    shape = tuple(int(s) for s in x.shape)
    s = len(shape) - dense_ndim
    if dense_ndim < 0 or s < 2:
        raise ValueError(
            f"asarray: a {layout.upper()} array needs 2 sparse dims after the batch dims; got shape {shape} with "
            f"dense_ndim={dense_ndim}"
        )
    blocksize = _check_blocksize(cls, shape[s - 2 : s], blocksize, layout)
    bh, bw = blocksize or (1, 1)
    batch_shape, (rows, cols), dense_shape = shape[: s - 2], shape[s - 2 : s], shape[s:]
    nbatch, m = math.prod(batch_shape), math.prod(dense_shape)
    fill = normalize_fill(xp, fill_value, x.dtype, dense_shape, "asarray")
    if is_undefined(fill, dense_shape):
        raise ValueError("dense_to_compressed: every element of a dense array is an entry under an undefined fill: "
                         "build the COO (from_dense) and convert it")
    nbr, nbc = rows // bh, cols // bw
    grid = xp.reshape(x, (nbatch, nbr, bh, nbc, bw, m))
    if cls._major == 0:
        grid = xp.permute_dims(grid, (0, 1, 3, 2, 4, 5))
        nmajor, nminor = nbr, nbc
    else:
        grid = xp.permute_dims(grid, (0, 3, 1, 2, 4, 5))
        nmajor, nminor = nbc, nbr
    width = bh * bw * m
    grid = xp.reshape(grid, (nbatch * nmajor, nminor, width))
    positions = nmajor * nminor
    if index_dtype is None:
        idt = xp.int32 if max(shape, default=0) <= INT32_MAX and positions <= INT32_MAX else xp.int64
    else:
        idt = index_dtype
    fill_row = _fill_row(xp, fill, dense_shape, bh * bw, x.dtype)
    off_dt = idt if not batch_shape else xp.int64
    offsets, minor, values = _dispatch.call(
        "dense_to_compressed", "csr", xp, grid, fill_row, off_dt, work=nbatch * positions * bh * bw
    )
    parts = _Parts(xp, offsets, minor, values, nbatch, nmajor, nminor)
    parts = _equalize_batches(parts, fill_row, idt)
    tail = (bh, bw, *dense_shape) if cls._blocked else dense_shape
    return _build(cls, parts, shape, fill, batch_shape, tail, idt)


def compressed_to_dense(X):
    """The dense array of compressed ``X`` (of the components' namespace)."""
    xp = X._xp
    parts = _parts_of(X)
    bh, bw = X._block
    dense_shape = X.dense_shape
    m = math.prod(dense_shape)
    fill_row = _fill_row(xp, X._fill, dense_shape, bh * bw, X.dtype)
    flat = _dispatch.call(
        "compressed_to_dense", "csr", xp, parts.offsets, parts.minor, parts.values, fill_row, parts.nminor,
        work=parts.nbatch * parts.nmajor * parts.nminor,
    )  # fmt: skip
    grid = xp.reshape(flat, (parts.nbatch, parts.nmajor, parts.nminor, bh, bw, m))
    perm = (0, 1, 3, 2, 4, 5) if X._major == 0 else (0, 2, 3, 1, 4, 5)
    return xp.reshape(xp.permute_dims(grid, perm), X.shape)


# --- moving sparse dims into the dense part -------------------------------------------------------
def pack_sparse_dims(A, dense_ndim: int):
    """COO ``A`` with its last sparse dims turned into dense dims so that it has ``dense_ndim`` of them.

    Each distinct position of the remaining sparse dims becomes one specified element whose
    dense part holds the values there and the fill elsewhere.
    """
    from .._array.coo import COO

    xp = A._xp
    k = dense_ndim - A.dense_ndim
    if k <= 0:
        return A
    if k > A.sparse_ndim:
        raise ValueError(f"to_layout: dense_ndim={dense_ndim} exceeds ndim={A.ndim}")
    A = A.coalesce()
    A._check_contents()
    s = A.sparse_ndim - k
    outer_shape, inner_shape = A.sparse_shape[:s], A.sparse_shape[s:]
    outer = linear_keys(xp, A._indices[:s, :], outer_shape)
    inner = linear_keys(xp, A._indices[s:, :], inner_shape)
    if outer is None or inner is None:
        raise ValueError(f"to_layout: sparse shape {A.sparse_shape} is too large to regroup")
    n = outer.shape[0]
    # (slicing an empty array with [1:] is an error in some namespaces: array_api_strict)
    starts = xp.concat([xp.ones((1,), dtype=xp.bool), outer[1:] != outer[:-1]]) if n else outer < 0
    groups = outer[starts]
    block_ids = xp.searchsorted(groups, outer)
    dense_shape = A.dense_shape
    slots = math.prod(inner_shape)
    fill_row = _fill_row(xp, A._fill, dense_shape, 1, A.dtype)
    blocks = _dispatch.call(
        "scatter_blocks", "bsr", xp, block_ids, inner, flat_values(xp, A._values), groups.shape[0], slots, fill_row,
        work=n,
    )  # fmt: skip
    values = xp.reshape(blocks, (groups.shape[0], *inner_shape, *dense_shape))
    fill = A._fill if A._fill.ndim == 0 else xp.broadcast_to(A._fill, (*inner_shape, *dense_shape))
    indices = unravel(xp, groups, outer_shape, A._indices.dtype)
    return COO._from_parts(xp, indices, values, A.shape, fill, coalesced=True)


def move_dense_to_sparse(A, sparse_ndim):
    """COO ``A`` with its first ``sparse_ndim - A.sparse_ndim`` dense dims turned into sparse dims
    (the inverse of :func:`pack_sparse_dims`)."""
    from .._array.coo import COO

    k = sparse_ndim - A.sparse_ndim
    if k <= 0:
        return A
    xp = A._xp
    moved = A.dense_shape[:k]
    rest = A.dense_shape[k:]
    if not _fill_uniform_over(A, k):
        raise ValueError(
            f"COO: cannot turn dense dims {moved} into sparse dims: the fill value varies along them "
            "(a sparse dimension needs one fill per dense part); use to_dense()"
        )
    fill = A._fill
    if fill.ndim:  # one fill along the moved dims (none at all when one of them is empty)
        fill = xp.zeros(rest, dtype=fill.dtype) if 0 in moved else fill[(0,) * k]
    p = math.prod(moved)
    nse = A.nse
    values = xp.reshape(A._values, (nse * p, *rest))
    rep = xp.arange(nse * p, dtype=xp.int64)
    old = xp.take(A._indices, rep // max(p, 1), axis=1) if p else A._indices[:, :0]
    new = unravel(xp, rep % p if p else rep, moved, A._indices.dtype)
    indices = xp.concat([old, new], axis=0)
    return COO._from_parts(xp, indices, values, A.sparse_shape + moved + rest, fill, coalesced=A._coalesced)


def _fill_uniform_over(A, k):
    """Whether the fill of COO ``A`` is the same along its first ``k`` dense dims."""
    xp = A._xp
    fill = A._fill
    if k <= 0 or fill.ndim == 0 or 0 in A.dense_shape[:k]:
        return True
    first = fill[(0,) * k]
    return bool(xp.all(same_value(xp, fill, xp.broadcast_to(first, fill.shape))))
