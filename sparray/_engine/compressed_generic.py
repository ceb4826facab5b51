"""Generic (pure array-API) versions of the compressed-layout kernels: the reference for ``sparray/kernels/cpu/compress.py``.

Arguments are flat: a batched compressed array is seen as ``nbatch * nmajor`` major rows with
GLOBAL offsets (row ``g = b * nmajor + r`` holds entries ``offsets[g]:offsets[g + 1]``), plain
(minor) indices ``(nnz,)`` and values ``(nnz, m)``. Every input has been validated by the caller.

- ``compressed_valid(cidx, pidx, nminor)``: True when the encoding is valid (generic: always
  False, meaning "run the checks that name the offender").
- ``compress_offsets(keys, nbuckets, index_dtype, checked=False)``: ``offsets[k] = #(keys < k)`` for sorted keys.
- ``expand_offsets(offsets, index_dtype)``: the row ``g`` of every entry.
- ``transpose_compressed(offsets, minor, values, nbatch, nmajor, nminor, index_dtype)``: the same
  entries compressed along the other axis (stable: within a new row, by old row).
- ``dense_to_compressed(dense (N, C, m), fill (m,), index_dtype)``: positions whose ``m`` values
  are not all the fill (nan equals nan), row-major.
- ``compressed_to_dense(offsets, minor, values, fill, nminor)``: ``(N, nminor, m)``.
- ``scatter_blocks(block_ids, slots, values, nblocks, nslots, fill)``: ``(nblocks, nslots, m)``,
  the fill everywhere but ``out[block_ids[k], slots[k]] = values[k]``.
- ``unused_minor(minor, nminor)``: the sorted int64 minor indices no entry uses (numba:
  ``sparray/kernels/cpu/occupancy.py``).
- ``take_major(offsets, minor, values, rows)``: the rows ``rows`` (int64, in range, any order,
  repeats allowed) as ``(int64 offsets, minor, values)`` (numba: ``sparray/kernels/cpu/take.py``).
- ``slice_minor(offsets, minor, values, start, stop)``: in every row the entries with a minor
  index in ``[start, stop)``, the indices shifted by ``-start``, as ``(offsets of the input
  offsets' dtype, minor, values)`` (numba: ``sparray/kernels/cpu/take.py``).

No scatter exists in the array API, so the writes are expressed as sorted gathers
(``searchsorted`` on the destination keys).
"""

from __future__ import annotations

from .dispatch import register
from .._core.fill import same_value

__all__ = [
    "compress_offsets", "expand_offsets", "transpose_compressed", "dense_to_compressed",
    "compressed_to_dense", "scatter_blocks", "unused_minor", "take_major", "slice_minor",
]  # fmt: skip


@register("compressed_valid", "csr", "generic")
def compressed_valid(xp, cidx, pidx, nminor):
    """Generic: no fast verdict (False), so the caller runs the full check that names the offender."""
    return False


@register("compress_offsets", "csr", "generic")
def compress_offsets(xp, keys, nbuckets, index_dtype, checked=False):
    # ``checked`` (keys known sorted and in range) changes nothing here: searchsorted never checks
    targets = xp.arange(nbuckets + 1, dtype=xp.int64)
    return xp.astype(xp.searchsorted(xp.astype(keys, xp.int64), targets), index_dtype)


@register("expand_offsets", "csr", "generic")
def expand_offsets(xp, offsets, index_dtype, nnz=None):
    """Each entry's row; ``nnz`` (offsets[-1], when the caller knows it) saves reading it."""
    nnz = int(offsets[-1]) if nnz is None else int(nnz)
    pos = xp.arange(nnz, dtype=xp.int64)
    return xp.astype(xp.searchsorted(xp.astype(offsets, xp.int64), pos, side="right") - 1, index_dtype)


@register("transpose_compressed", "csr", "generic")
def transpose_compressed(xp, offsets, minor, values, nbatch, nmajor, nminor, index_dtype):
    g = expand_offsets(xp, offsets, xp.int64)
    batch = g // max(nmajor, 1)
    bucket = batch * nminor + xp.astype(minor, xp.int64)
    order = xp.argsort(bucket, stable=True)
    t_offsets = compress_offsets(xp, xp.take(bucket, order), nbatch * nminor, index_dtype)
    t_minor = xp.astype(xp.take(g - batch * nmajor, order), index_dtype)
    return t_offsets, t_minor, xp.take(values, order, axis=0)


@register("dense_to_compressed", "csr", "generic")
def dense_to_compressed(xp, dense, fill, index_dtype):
    n, c, m = dense.shape
    differs = ~same_value(xp, dense, xp.reshape(fill, (1, 1, m)))
    specified = xp.any(differs, axis=2) if m else xp.zeros((n, c), dtype=xp.bool)
    keys = xp.astype(xp.nonzero(xp.reshape(specified, (n * c,)))[0], xp.int64)
    rows = keys // max(c, 1)
    offsets = compress_offsets(xp, rows, n, index_dtype)
    minor = xp.astype(keys - rows * c, index_dtype)
    values = xp.take(xp.reshape(dense, (n * c, m)), keys, axis=0)
    return offsets, minor, values


@register("compressed_to_dense", "csr", "generic")
def compressed_to_dense(xp, offsets, minor, values, fill, nminor):
    n = offsets.shape[0] - 1
    g = expand_offsets(xp, offsets, xp.int64)
    keys = g * nminor + xp.astype(minor, xp.int64)
    slots = scatter_blocks(xp, keys, xp.zeros_like(keys), values, n * nminor, 1, fill)
    return xp.reshape(slots, (n, nminor, values.shape[1]))


@register("scatter_blocks", "bsr", "generic")
def scatter_blocks(xp, block_ids, slots, values, nblocks, nslots, fill):
    m = values.shape[1]
    fill_row = xp.reshape(xp.astype(fill, values.dtype), (1, m))
    total = nblocks * nslots
    nnz = block_ids.shape[0]
    if nnz == 0 or total == 0:
        return xp.reshape(xp.asarray(xp.broadcast_to(fill_row, (total, m)), copy=True), (nblocks, nslots, m))
    dest = xp.astype(block_ids, xp.int64) * nslots + xp.astype(slots, xp.int64)
    order = xp.argsort(dest, stable=True)
    dest_sorted = xp.take(dest, order)
    targets = xp.arange(total, dtype=xp.int64)
    pos = xp.searchsorted(dest_sorted, targets)
    clipped = xp.where(pos < nnz, pos, xp.full_like(pos, nnz - 1))
    found = (pos < nnz) & (xp.take(dest_sorted, clipped) == targets)
    src = xp.take(order, clipped)
    out = xp.where(xp.reshape(found, (total, 1)), xp.take(values, src, axis=0), fill_row)
    return xp.reshape(out, (nblocks, nslots, m))


@register("unused_minor", "csr", "generic")
def unused_minor(xp, minor, nminor):
    """The sorted int64 indices in ``[0, nminor)`` that appear nowhere in ``minor``."""
    present = xp.sort(xp.unique_values(xp.astype(minor, xp.int64)))
    every = xp.arange(nminor, dtype=xp.int64)
    if present.shape[0] == 0:
        return every
    pos = xp.searchsorted(present, every)
    clipped = xp.where(pos < present.shape[0], pos, xp.full_like(pos, present.shape[0] - 1))
    return xp.nonzero(xp.take(present, clipped) != every)[0]


@register("take_major", "csr", "generic")
def take_major(xp, offsets, minor, values, rows):
    """Rows ``rows`` of a compressed array: each picked row's entries, in the order asked."""
    offsets = xp.astype(offsets, xp.int64)
    starts = xp.take(offsets, rows)
    lengths = xp.take(offsets, rows + 1) - starts
    out = xp.concat([xp.zeros((1,), dtype=xp.int64), xp.cumulative_sum(lengths)])
    total = int(out[-1])
    # entry q of the result is entry starts[row of q] + (q - out[row of q]) of the input
    owner = expand_offsets(xp, out, xp.int64)
    src = xp.arange(total, dtype=xp.int64) + xp.take(starts - out[:-1], owner)
    return out, xp.take(minor, src), xp.take(values, src, axis=0)


@register("slice_minor", "csr", "generic")
def slice_minor(xp, offsets, minor, values, start, stop):
    """Every row's entries with a minor index in ``[start, stop)``, shifted by ``-start``: one mask
    over the entries, its running count read at the row pointers."""
    keep = (minor >= start) & (minor < stop)
    before = xp.concat([xp.zeros((1,), dtype=xp.int64), xp.cumulative_sum(xp.astype(keep, xp.int64))])
    out_offsets = xp.astype(xp.take(before, xp.astype(offsets, xp.int64)), offsets.dtype)
    picked = xp.nonzero(keep)[0]
    out_minor = xp.take(minor, picked) - xp.asarray(start, dtype=minor.dtype)
    return out_offsets, out_minor, xp.take(values, picked, axis=0)
