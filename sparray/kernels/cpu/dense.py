"""Sparse -> dense on NumPy buffers (a fancy-index scatter; NumPy's own loop is already tight).

``to_dense(indices, values, shape, fill)``: ``indices`` (sparse_ndim, nse) unique and in range
(the core coalesced and range-checked them), ``values`` (nse, *dense), ``fill`` broadcastable to
the dense part. Returns a C-contiguous array of ``shape`` holding the fill everywhere but at the
specified positions.

>>> import numpy as np
>>> to_dense(np.array([[1]]), np.array([5.0]), (3,), np.array(0.0))
array([0., 5., 0.])
"""

import numpy as np


def to_dense(indices, values, shape, fill):
    out = np.empty(shape, dtype=values.dtype)
    out[...] = fill
    if indices.shape[1] and indices.shape[0] == 0:  # 0 sparse dims: one specified dense part
        out[...] = values[0]
    elif indices.shape[1]:
        out[tuple(indices)] = values
    return out
