"""Sparse -> dense on a GPU: :func:`to_dense`, the CUDA twin of ``kernels/cpu/dense.py``.

``to_dense(indices, values, shape, fill)``: ``indices`` (sparse_ndim, nse) unique and in range (the
core coalesced and range-checked them), ``values`` (nse, *dense), ``fill`` broadcastable to the
dense part. Returns a C-contiguous array of ``shape`` and the values' dtype holding the fill
everywhere but at the specified positions.

The result is filled by the array library (``out[...] = fill``), then ``scatter_entries`` copies
each entry's values, as unsigned words of their width (:mod:`._words`: one instantiation per width
serves every dtype), to the row-major position of its indices, one thread per (entry, word).
An index outside its dim is never used as an address: the first such entry raises IndexError,
as NumPy's fancy assignment does in the numba twin (which also wraps negative indices: here a
negative index is out of range). With no sparse dim, the one specified dense part is the first
entry's, as in the numba twin. Duplicate positions are outside the contract (one of them wins).

>>> import numpy as np
>>> to_dense(np.array([[1]]), np.array([5.0]), (3,), np.array(0.0)).tolist()
[0.0, 5.0, 0.0]
"""

from __future__ import annotations

import numpy as np

from ._build import INDEX_TYPES, index_type, word_type
from ._driver import driver_for
from ._words import WORD_SIZES, value_words

__all__ = ["to_dense"]

SOURCE = "dense.cu"
NAME_EXPRESSIONS = tuple(f"scatter_entries<{i}, {word_type(w)}>" for i in INDEX_TYPES for w in WORD_SIZES)


def to_dense(indices, values, shape, fill):
    """Dense array of ``shape`` with ``values`` at ``indices`` and ``fill`` elsewhere (see the
    module docstring). ValueError for mismatched shapes, IndexError for an index out of range."""
    drv = driver_for(indices, values)
    xp = drv.xp
    indices, values = xp.asarray(indices), xp.asarray(values)
    shape = tuple(int(s) for s in shape)
    if indices.ndim != 2:
        raise ValueError(f"to_dense: indices must be 2-D (sparse_ndim, nse), got shape {indices.shape}")
    ndim, nse = indices.shape
    if ndim > len(shape) or values.shape != (nse, *shape[ndim:]):
        raise ValueError(f"to_dense: values of shape {values.shape} do not fit indices {indices.shape} and shape {shape}")
    if indices.dtype not in (np.int32, np.int64):
        indices = indices.astype(xp.int64)
    out = xp.empty(shape, dtype=values.dtype)
    out[...] = fill
    if ndim == 0:
        nse = min(nse, 1)  # no sparse dim: one dense part, the first entry's
        indices, values = indices[:, :nse], values[:nse]
    if nse == 0:
        return out
    indices = xp.ascontiguousarray(indices)
    words, wtype = value_words(xp, values, nse, "to_dense")
    m = words.shape[1]
    flat = out.reshape(-1).view(words.dtype)  # the same bytes, as words
    first = xp.asarray(np.array([nse], np.int64))
    sizes = xp.asarray(np.array(shape[:ndim], np.int64))
    name = f"scatter_entries<{index_type(indices.dtype)}, {wtype}>"
    drv.launch(SOURCE, name, nse * max(m, 1), (indices, np.int64(ndim), np.int64(nse), sizes, words, np.int64(m), flat, first))
    bad = drv.scalar(first)
    if bad < nse:
        for d in range(ndim):
            v = drv.scalar(indices[d, bad : bad + 1])
            if not 0 <= v < shape[d]:
                raise IndexError(f"to_dense: index {v} is out of bounds for axis {d} with size {shape[d]} (entry {bad})")
    return out
