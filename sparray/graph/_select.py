"""``select`` and ``apply``: the stored entries kept by a rule, or their values replaced, over
their positions and values (GraphBLAS's ``select`` and ``apply``); and the split of an array's
entries by a mask that ``matmul``'s ``out=`` writes with.

>>> import numpy as np, sparray
>>> A = sparray.asarray(np.array([[1.0, 2.0], [3.0, 4.0]]), layout="csr")
>>> select(A, "tril").to_dense(fill_value=0).tolist(), select(A, "gt", 2.5).nse
([[1.0, 0.0], [3.0, 4.0]], 2)
>>> apply(A, "diagindex").to_dense(fill_value=9).tolist()
[[0, 1], [-1, 0]]
"""

from __future__ import annotations

from .._array.base import SparseArray
from .._core.iso import iso_element, iso_values
from .._engine import dispatch as _dispatch
from ..kernels import semirings as T
from ._operators import BINARY_NAMES, binary
from ._parts import csr_result, entry_keys, matrix_parts

__all__ = ["select", "apply", "keep_where", "UNARY_NAMES"]

#: unary operators of ``apply`` (python-graphblas's names): their element-wise function
UNARY_NAMES = ("identity", "ainv", "minv", "abs", "lnot", "one", "sqrt", "exp", "log", "floor", "ceil", "round")


def select(A, rule, thunk=None):
    """The entries of the matrix A that ``rule`` keeps (GraphBLAS's select): positional ``tril``
    (j <= i + thunk), ``triu``, ``diag``, ``offdiag``, ``rowle`` (i <= thunk), ``rowgt``,
    ``colle``, ``colgt``; by value ``lt``, ``le``, ``gt``, ``ge``, ``eq``, ``ne`` against ``thunk``
    (cast to A's dtype). A CSR with an undefined fill; iso when A is (``sparray.graph.is_iso``)."""
    if rule not in T.SELECT_RULES:
        raise ValueError(f"sparray.graph.select: unknown rule {rule!r}; expected one of {', '.join(T.SELECT_RULES)}")
    if rule not in T.POSITIONAL_RULES and thunk is None:
        raise ValueError(f"sparray.graph.select: the value rule {rule!r} needs a thunk (the value to compare with)")
    crow, col, values = matrix_parts(A, "select")
    xp = A._xp
    out = _dispatch.call("graph_select", "csr", xp, crow, col, values, rule, thunk, work=int(col.shape[0]))
    one = iso_element(values)
    if one is not None:  # an iso A keeps its one value (whichever backend ran)
        out = (out[0], out[1], iso_values(xp, one, (int(out[1].shape[0]),)))
    return csr_result(xp, *out, A.shape)


def apply(A, op, thunk=None):
    """A's stored entries with new values, its pattern kept: an index op (``rowindex`` i + thunk,
    ``colindex`` j + thunk, ``diagindex`` j - i + thunk), a unary op (``identity``, ``ainv`` -x,
    ``minv`` 1/x, ``abs``, ``lnot``, ``one``, ``sqrt``, ``exp``, ``log``, ``floor``, ``ceil``,
    ``round``) or a binary op with ``thunk`` as its second operand (``apply(A, "times", 2)``).
    A CSR with an undefined fill."""
    crow, col, values = matrix_parts(A, "apply")
    xp = A._xp
    if op in T.INDEX_OPS:
        new = _dispatch.call("graph_apply_index", "csr", xp, crow, col, values, op, 0 if thunk is None else thunk, None,
                             work=int(col.shape[0]))
    elif op in UNARY_NAMES:
        new = _unary(xp, op, values)
    elif op in BINARY_NAMES:
        if thunk is None:
            raise ValueError(f"sparray.graph.apply: the binary op {op!r} needs a thunk (its second operand)")
        new = binary(op, xp)(values, xp.asarray(thunk, dtype=values.dtype))
    else:
        raise ValueError(f"sparray.graph.apply: unknown op {op!r}; expected an index op ({', '.join(T.INDEX_OPS)}), a "
                         f"unary op ({', '.join(UNARY_NAMES)}) or a binary op with a thunk ({', '.join(BINARY_NAMES)})")
    return csr_result(xp, crow, col, new, A.shape)


def _unary(xp, op, v):
    if op == "one":
        return xp.ones_like(v)
    if op == "lnot":
        return ~xp.astype(v, xp.bool)
    if op == "ainv":
        return -v
    if op == "minv":
        return 1 / v
    if op == "identity":
        return v
    return getattr(xp, op)(v)


def keep_where(C, mask, complement, structural):
    """``(inside, outside)``: C's entries where the mask lets a result through and the rest (the
    mask as ``matmul`` reads it), each with an undefined fill."""
    from .._array.coo import COO
    from .._functions.undefined import undefined_fill

    keys, B = entry_keys(C)
    xp = B._xp

    def part(keep):
        return COO._from_parts(xp, B._indices[:, keep], B._values[keep], B.shape, undefined_fill(xp, B.dtype), coalesced=True)

    if mask is None:
        everything = xp.ones(keys.shape, dtype=xp.bool)
        inside = ~everything if complement else everything
        return part(inside), part(~inside)
    if isinstance(mask, SparseArray):
        mkeys, Mb = entry_keys(mask)
        if not structural:
            mkeys = mkeys[Mb._values != 0]
    else:
        from .._core.keys import linear_keys

        nz = xp.nonzero(mask)
        mkeys = linear_keys(xp, xp.stack([xp.astype(i, xp.int64) for i in nz]), tuple(mask.shape))
    if mkeys.shape[0] == 0 or keys.shape[0] == 0:
        member = xp.zeros(keys.shape, dtype=xp.bool)
    else:
        pos = xp.clip(xp.searchsorted(mkeys, keys), 0, mkeys.shape[0] - 1)
        member = xp.take(mkeys, pos) == keys
    inside = ~member if complement else member
    return part(inside), part(~inside)
