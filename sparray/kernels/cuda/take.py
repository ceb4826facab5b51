"""Parts of a compressed array on a GPU: :func:`take_major` (rows picked by index) and
:func:`slice_minor` (a range of minor indices), the CUDA twins of ``kernels/cpu/take.py``.

The rows of a CSR (columns of a CSC) listed in ``rows``, in that order (repeats allowed), as a new
compressed array: its row pointers are the prefix sum of the picked rows' lengths, and each output
row copies its source row's minor indices and values.

``take_lengths`` checks each picked row (in ``[0, nmajor)``, its range ``offsets[r]:offsets[r + 1]``
inside ``[0, len(minor)]`` and not reversed; the first failing position kept with ``atomicMin``)
and writes its length; the array library's cumulative sum turns the lengths into the new pointers;
``take_copy`` then runs one thread per (output entry, value word): it finds its output row by a
binary search in the new pointers and copies from the source row, values moved as unsigned words of
their width (:mod:`._words`). Nothing outside the arrays is read or written, whatever the input
(the rest of ``offsets`` is not looked at). Same ValueError messages as the numba twin.

``slice_bounds`` (one thread per row) checks the row's range and finds, by two bounded binary
searches in its sorted minor indices, its first entry at or after ``start`` and how many lie in
``[start, stop)``; a cumulative sum gives the new pointers and ``slice_copy`` (one thread per
(output entry, value word), as ``take_copy``) moves the entries, minor indices shifted by ``-start``.

>>> import numpy as np
>>> o, m, v = take_major(np.array([0, 2, 3]), np.array([0, 2, 1]), np.array([1.0, 2.0, 3.0]), np.array([1, 0, 1]))
>>> o.tolist(), m.tolist(), v.tolist()
([0, 1, 3, 4], [1, 0, 2, 1], [3.0, 1.0, 2.0, 3.0])
"""

from __future__ import annotations

import numpy as np

from .. import KernelDeclined
from ._arrays import index_array
from ._build import INDEX_TYPES, VALUE_DTYPES, index_type, word_type
from ._driver import driver_for
from ._words import WORD_SIZES, value_words
from .._slice_args import slice_minor_args

__all__ = ["take_major", "slice_minor"]

SOURCE = "take.cu"
NAME_EXPRESSIONS = (
    tuple(f"take_lengths<{o}>" for o in INDEX_TYPES)
    + tuple(f"take_copy<{o}, {j}, {word_type(w)}>" for o in INDEX_TYPES for j in INDEX_TYPES for w in WORD_SIZES)
    + tuple(f"slice_bounds<{o}, {j}>" for o in INDEX_TYPES for j in INDEX_TYPES)
    + tuple(f"slice_copy<{o}, {j}, {word_type(w)}>" for o in INDEX_TYPES for j in INDEX_TYPES for w in WORD_SIZES)
)


def take_major(offsets, minor, values, rows):
    """Rows ``rows`` of the compressed array (``offsets``, ``minor``, ``values``).

    offsets: int32/int64[nmajor + 1]; minor: int32/int64[nnz] (copied, not used); values: (nnz,)
    or (nnz, *dense) of a supported dtype; rows: integer[k], each in ``[0, nmajor)`` (not wrapped).
    Returns (out_offsets int64[k + 1], out_minor of minor's dtype, out_values of values' dtype and
    trailing shape). ValueError for a row out of range, a picked row's range outside the entries or
    reversed, or mismatched lengths; KernelDeclined for an unsupported value dtype.
    """
    drv = driver_for(offsets, minor, values, rows)
    xp = drv.xp
    offsets = index_array(xp, offsets, "offsets", "take_major", int64=False)
    minor = index_array(xp, minor, "minor", "take_major", int64=False)
    rows = index_array(xp, rows, "rows", "take_major")
    values = xp.ascontiguousarray(values)
    if values.dtype not in VALUE_DTYPES:
        raise KernelDeclined(
            f"values has dtype {values.dtype}, which the CUDA kernels do not support (supported: bool, "
            "(u)int8..64, float32/64, complex64/128); cast first or use the generic implementation"
        )
    nnz = minor.shape[0]
    if values.shape[:1] != (nnz,):
        raise ValueError(f"take_major: values must have len(minor) = {nnz} rows, got shape {values.shape}")
    nmajor = offsets.shape[0] - 1
    if nmajor < 0:
        raise ValueError("take_major: offsets must have at least one element")
    k = rows.shape[0]
    lengths = xp.zeros(k + 1, xp.int64)
    if k:
        first = xp.asarray(np.array([k], np.int64))
        drv.launch(SOURCE, f"take_lengths<{index_type(offsets.dtype)}>", k,
                   (offsets, np.int64(nmajor), rows, np.int64(k), np.int64(nnz), lengths, first))  # fmt: skip
        bad = drv.scalar(first)
        if bad < k:
            g = drv.scalar(rows[bad : bad + 1])
            if not 0 <= g < nmajor:
                raise ValueError(f"take_major: row {g} is out of range for {nmajor} rows")
            lo, hi = drv.scalar(offsets[g : g + 1]), drv.scalar(offsets[g + 1 : g + 2])
            raise ValueError(
                f"take_major: row {g} spans offsets[{g}]:offsets[{g + 1}] = {lo}:{hi}, "
                f"outside the {nnz} entries or reversed"
            )
    out_offsets = xp.cumsum(lengths)
    total = drv.scalar(out_offsets[k:])
    out_minor = xp.empty(total, minor.dtype)
    out_values = xp.empty((total, *values.shape[1:]), values.dtype)
    if total:
        src, wtype = value_words(xp, values, nnz, "take_major")
        m = src.shape[1]
        dst = out_values.reshape(-1).view(src.dtype)  # the same bytes, as words
        name = f"take_copy<{index_type(offsets.dtype)}, {index_type(minor.dtype)}, {wtype}>"
        drv.launch(SOURCE, name, total * max(m, 1),
                   (offsets, rows, np.int64(k), out_offsets, np.int64(total), minor, src, np.int64(m), out_minor, dst))  # fmt: skip
    return out_offsets, out_minor, out_values


def slice_minor(offsets, minor, values, start, stop):
    """The minor range ``[start, stop)`` of every row of the compressed array (``offsets``, ``minor``, ``values``).

    offsets: int32/int64[nmajor + 1]; minor: int32/int64[nnz], sorted within each row; values: (nnz,)
    or (nnz, *dense) of a supported dtype; ``0 <= start <= stop``. Returns (out_offsets of offsets' dtype
    [nmajor + 1], out_minor of minor's dtype shifted by -start, out_values of values' dtype and trailing shape).
    ValueError for a row whose range lies outside the entries or is reversed, a bad range or
    mismatched lengths; KernelDeclined for an unsupported value dtype.
    """
    drv = driver_for(offsets, minor, values)
    xp = drv.xp
    offsets = index_array(xp, offsets, "offsets", "slice_minor", int64=False)
    minor = index_array(xp, minor, "minor", "slice_minor", int64=False)
    values = xp.ascontiguousarray(values)
    if values.dtype not in VALUE_DTYPES:
        raise KernelDeclined(
            f"values has dtype {values.dtype}, which the CUDA kernels do not support (supported: bool, "
            "(u)int8..64, float32/64, complex64/128); cast first or use the generic implementation"
        )
    nnz = minor.shape[0]
    start, stop, nmajor = slice_minor_args(start, stop, nnz, values.shape, offsets.shape[0])
    lengths = xp.zeros(nmajor + 1, offsets.dtype)  # counts and positions fit: checked rows lie forward
    firsts = xp.zeros(max(nmajor, 1), offsets.dtype)
    if nmajor:
        first = xp.asarray(np.array([nmajor], np.int64))
        name = f"slice_bounds<{index_type(offsets.dtype)}, {index_type(minor.dtype)}>"
        drv.launch(SOURCE, name, nmajor,
                   (offsets, np.int64(nmajor), minor, np.int64(nnz), np.int64(start), np.int64(stop), firsts, lengths, first))  # fmt: skip
        bad = drv.scalar(first)
        if bad < nmajor:
            lo, hi = drv.scalar(offsets[bad : bad + 1]), drv.scalar(offsets[bad + 1 : bad + 2])
            raise ValueError(
                f"slice_minor: row {bad} spans offsets[{bad}]:offsets[{bad + 1}] = {lo}:{hi}, "
                f"outside the {nnz} entries or reversed"
            )
    out_offsets = xp.cumsum(lengths, dtype=offsets.dtype)
    total = drv.scalar(out_offsets[nmajor:])
    out_minor = xp.empty(total, minor.dtype)
    out_values = xp.empty((total, *values.shape[1:]), values.dtype)
    if total:
        src, wtype = value_words(xp, values, nnz, "slice_minor")
        m = src.shape[1]
        dst = out_values.reshape(-1).view(src.dtype)
        name = f"slice_copy<{index_type(offsets.dtype)}, {index_type(minor.dtype)}, {wtype}>"
        drv.launch(SOURCE, name, total * max(m, 1),
                   (firsts, np.int64(nmajor), out_offsets, np.int64(total), minor, np.int64(start), src, np.int64(m), out_minor, dst))  # fmt: skip
    return out_offsets, out_minor, out_values
