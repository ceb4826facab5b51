"""Element-wise combinations over the stored entries: GraphBLAS's ``eWiseAdd`` (union),
``eWiseMult`` (intersection) and SuiteSparse's ``eWiseUnion`` (union with defaults).

Only the stored entries of each operand take part (its fill, defined or not, is never read), and
the result's fill is undefined: a position neither operand stores has no element.

>>> import sparray, numpy as np
>>> U = sparray.undefined
>>> A = sparray.asarray(sparray.asarray(np.array([[1.0, 0.0, 2.0]])), fill_value=U)
>>> B = sparray.asarray(sparray.asarray(np.array([[0.0, 5.0, 7.0]])), fill_value=U)
>>> ewise_add(A, B).to_dense(fill_value=0).tolist(), ewise_mult(A, B).nse
([[1.0, 5.0, 9.0]], 1)
>>> ewise_union(A, B, "minus", 0.0, 0.0).to_dense(fill_value=np.nan).tolist()   # missing - 5 is 0 - 5 here
[[1.0, -5.0, -5.0]]
"""

from __future__ import annotations

import math

from .._array.base import SparseArray
from .._array.coo import COO
from .._core.keys import index_dtype_for, linear_keys, unravel
from .._engine import dispatch as _dispatch
from .._functions.manipulation import broadcast_shapes, broadcast_to
from .._functions.undefined import undefined_fill
from .._layout.conversion import match_common_layout
from ._operators import binary

__all__ = ["ewise_add", "ewise_mult", "ewise_union", "entries"]


def entries(A):
    """``A`` as a coalesced COO of its stored entries with a zero stand-in fill (the fill is never read)."""
    xp = A._xp
    B = A._replace_values(A._values, xp.zeros((), dtype=A.dtype))
    B = B if B.layout == "coo" else B.to_layout("coo")
    return B.coalesce()


def _operands(who, A, B):
    for name, x in (("A", A), ("B", B)):
        if not isinstance(x, SparseArray):
            raise TypeError(f"sparray.graph.{who}: {name} must be a sparse array; got {type(x).__name__}")
    shape = broadcast_shapes(tuple(A.shape), tuple(B.shape), who=f"sparray.graph.{who}")
    a, b = (entries(x) for x in (A, B))
    a, b = (y if tuple(y.shape) == shape else broadcast_to(y, shape).coalesce() for y in (a, b))
    if a.sparse_ndim != b.sparse_ndim:
        raise ValueError(f"sparray.graph.{who}: A and B must split their dims alike (sparse_ndim {a.sparse_ndim} and "
                         f"{b.sparse_ndim}); convert one with to_layout(..., dense_ndim=...)")
    return shape, a, b


def _merged(who, A, B, mode):
    """(xp, shape, keys, va, vb, in_a, in_b) over the union or intersection of the stored positions."""
    shape, a, b = _operands(who, A, B)
    xp = a._xp
    s = a.sparse_ndim
    sparse_shape, dense_shape = shape[:s], shape[s:]
    ka, kb = linear_keys(xp, a._indices, sparse_shape), linear_keys(xp, b._indices, sparse_shape)
    if ka is None or kb is None:
        raise ValueError(f"sparray.graph.{who}: sparse shape {sparse_shape} has more than 2**63 positions")
    cat = xp.concat([ka, kb])
    offsets = xp.asarray([0, ka.shape[0], cat.shape[0]], dtype=xp.int64)
    keys, (pa, pb) = _dispatch.call("merge_pattern", "coo", xp, cat, offsets, mode, work=cat.shape[0])
    m, n = math.prod(dense_shape), keys.shape[0]

    def gather(y, pos):
        flat = xp.reshape(y._values, (y._values.shape[0], m))
        got = _dispatch.call("gather_with_fill", "coo", xp, flat, pos, xp.zeros((m,), dtype=y.dtype), work=n)
        return xp.reshape(got, (n, *dense_shape))

    in_a = xp.reshape(pa >= 0, (n, *(1,) * len(dense_shape)))
    in_b = xp.reshape(pb >= 0, (n, *(1,) * len(dense_shape)))
    return xp, shape, s, keys, gather(a, pa), gather(b, pb), in_a, in_b


def _result(xp, shape, s, keys, values, inputs):
    indices = unravel(xp, keys, shape[:s], index_dtype_for(xp, shape, keys.shape[0]))
    out = COO._from_parts(xp, indices, values, shape, undefined_fill(xp, values.dtype), coalesced=True)
    return match_common_layout(out, list(inputs))


def ewise_mult(A, B, op="times"):
    """``op(a, b)`` where both A and B store an entry (the intersection), python-graphblas's
    ``A.ewise_mult(B, op)``; the result's fill is undefined."""
    xp, shape, s, keys, va, vb, _, _ = _merged("ewise_mult", A, B, "intersection")
    return _result(xp, shape, s, keys, binary(op, xp)(va, vb), (A, B))


def ewise_add(A, B, op="plus"):
    """The union of A's and B's entries: ``op(a, b)`` where both store one, the lone entry where one
    does (python-graphblas's ``A.ewise_add(B, op)``: "missing - 7 = 7"; see :func:`ewise_union`)."""
    xp, shape, s, keys, va, vb, in_a, in_b = _merged("ewise_add", A, B, "union")
    both = binary(op, xp)(va, vb)
    dtype = both.dtype
    values = xp.where(in_a & in_b, both, xp.where(in_a, xp.astype(va, dtype), xp.astype(vb, dtype)))
    return _result(xp, shape, s, keys, values, (A, B))


def ewise_union(A, B, op, left_default, right_default):
    """The union of A's and B's entries, each lone entry combined with the other side's default:
    ``op(a, b)``, ``op(a, right_default)``, ``op(left_default, b)`` (SuiteSparse's ``eWiseUnion``)."""
    xp, shape, s, keys, va, vb, in_a, in_b = _merged("ewise_union", A, B, "union")
    left = xp.where(in_a, va, xp.asarray(left_default, dtype=va.dtype))
    right = xp.where(in_b, vb, xp.asarray(right_default, dtype=vb.dtype))
    return _result(xp, shape, s, keys, binary(op, xp)(left, right), (A, B))
