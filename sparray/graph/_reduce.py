"""``reduce``: a monoid over a matrix's stored entries, by rows, by columns or all of them
(GraphBLAS's reduce); an empty line gives an absent element of the result.

>>> import numpy as np, sparray
>>> A = sparray.asarray(np.array([[1.0, 0.0], [0.0, 0.0], [2.0, 5.0]]), layout="csr")
>>> reduce(A, "max", axis=1).to_dense(fill_value=-1).tolist(), float(reduce(A, "plus").to_dense(fill_value=0))
([1.0, -1.0, 5.0], 8.0)
"""

from __future__ import annotations

from .._array.coo import COO
from .._engine import dispatch as _dispatch
from .._functions.undefined import undefined_fill
from ..kernels import semirings as T
from ._parts import matrix_parts, row_parts, vector_parts, vector_result

__all__ = ["reduce"]


def reduce(A, monoid="plus", axis=None):
    """The monoid ``plus``, ``times``, ``min``, ``max``, ``any``, ``lor`` or ``land`` over A's
    stored entries: ``axis=1`` one element per row, ``axis=0`` per column (absent where the line
    has no entry), None a 0-d result (absent when A stores nothing). A 1-d sparse vector reduces
    with ``axis=None`` or 0. Results have undefined fills."""
    if monoid not in T.MONOIDS:
        raise ValueError(f"sparray.graph.reduce: unknown monoid {monoid!r}; expected one of {', '.join(T.MONOIDS)}")
    xp = A._xp
    if A.ndim == 1:
        if axis not in (None, 0, -1):
            raise ValueError(f"sparray.graph.reduce: a vector reduces with axis None or 0; got {axis!r}")
        values, _, indices = vector_parts(A, A.shape[0], "reduce")
        n = int(indices.shape[0])
        crow = xp.asarray([0, n], dtype=xp.int64)
        col = xp.zeros((n,), dtype=xp.int64)
        return _scalar(xp, *_dispatch.call("graph_reduce", "csr", xp, crow, col, values, monoid, None, 1, None, work=n))
    if axis is None:
        crow, col, values = matrix_parts(A, "reduce")
        return _scalar(xp, *_dispatch.call("graph_reduce", "csr", xp, crow, col, values, monoid, None, A.shape[1], None,
                                           work=int(col.shape[0])))
    if axis not in (0, 1, -1, -2):
        raise ValueError(f"sparray.graph.reduce: axis must be None, 0 or 1 for a matrix; got {axis!r}")
    # both axes as rows: A's own (axis 1) or its columns' (axis 0, A.T's rows, kept after a first transpose)
    crow, col, values = row_parts(A, transposed=axis in (0, -2), who="reduce")
    y, present = _dispatch.call("graph_reduce", "csr", xp, crow, col, values, monoid, 1, int(crow.shape[0]) - 1, None,
                                work=int(col.shape[0]))
    return vector_result(xp, y, present)


def _scalar(xp, value, present):
    v = xp.reshape(xp.asarray(value), (1,))
    n = 1 if bool(present) else 0
    return COO._from_parts(xp, xp.zeros((0, n), dtype=xp.int64), v[:n], (), undefined_fill(xp, v.dtype), coalesced=True)
