"""``sparray.graph.matmul``: GraphBLAS's ``mxm``, ``mxv`` and ``vxm`` over a semiring, with
masks, an accumulator and replace.

``matmul(A, B, semiring="plus_times", *, mask=None, complement=False, structural=True,
accumulate=None, replace=False, out=None)`` computes ``T = A ⊕.⊗ B`` over the stored entries
(an entry of T exists where some A(i, k) meets some B(k, j); its value is the monoid ⊕ over the
products ⊗; ``kernels/semirings.py`` has every monoid and multiply op), then writes
``C<mask, accumulate, replace> = T`` as GraphBLAS does, C being ``out`` (None: empty):

- the mask (a sparse array: its stored entries; with ``structural=False`` those whose value is
  non-zero; a dense array: its non-zero elements; ``complement=True``: the other positions)
  decides which entries of T are computed at all: the kernels skip the rest;
- inside the mask, C's entry becomes T's (deleted where T has none), or with ``accumulate`` (a
  binary operator's name) ``accumulate(C, T)`` where both exist and the lone one where one does;
- outside the mask C's entries stay, unless ``replace=True`` (then they go).

Operands: A and B sparse matrices (any layout, any fill: it is never read), a dense or sparse
vector on either side, or a dense matrix on one side (every element an entry). A product with a
vector runs in one of two directions (``direction="auto"``, or ``"push"``/``"pull"`` to force
one): *push* scatters each entry of x along A's row (``x @ A``) or column (``A @ x``) it names,
reading only those; *pull* computes each output element as one dot product. ``auto`` pushes a
sparse x holding at most 1/16 of its elements (a BFS frontier) and pulls a denser or dense one
(Beamer's switch). A form the matrix's layout does not hold (a CSR's columns, a CSC's rows)
comes from its transpose, built on first use and kept while A's arrays live (one more copy of
the matrix in memory: ``_parts.row_parts``); multiply ops with no swapped twin (``minus``, ``div``,
positional ops) keep the direction their product is written in. Results: a CSR (matrices) or a 1-d COO (vectors)
with an undefined fill. Values of two operands that the multiply op reads are cast to one dtype.

>>> import numpy as np, sparray
>>> U = sparray.undefined
>>> W = sparray.asarray(sparray.asarray(np.array([[0, 1.0, 4.0], [0, 0, 2.0], [0, 0, 0]])), fill_value=U)
>>> d = sparray.COO([[0]], [0.0], shape=(3,), fill_value=U)          # distance 0 at node 0, the rest unknown
>>> matmul(d, W, "min_plus").to_dense(fill_value=np.inf).tolist()        # one relaxation from node 0
[inf, 1.0, 4.0]
"""

from __future__ import annotations

from .._array.base import SparseArray
from .._core import dtypes as _dtypes
from .._core.namespace import is_array, namespace_of
from .._engine import dispatch as _dispatch
from ..kernels import semirings as T
from ._ewise import ewise_add
from ._parts import (
    csr_result, dense_matrix_parts, mask_matrix, mask_vector, matrix_parts, row_parts, vector_parts, vector_result,
)  # fmt: skip

__all__ = ["matmul"]


def matmul(A, B, semiring="plus_times", *, mask=None, complement=False, structural=True, accumulate=None, replace=False,
           out=None, direction="auto"):
    sr = T.semiring(semiring)
    sa, sb = isinstance(A, SparseArray), isinstance(B, SparseArray)
    for name, x in (("A", A), ("B", B)):
        if not (isinstance(x, SparseArray) or is_array(x)):
            raise TypeError(f"sparray.graph.matmul: {name} must be an array (sparse or dense); got {type(x).__name__}")
    if not (sa or sb):
        raise TypeError("sparray.graph.matmul: at least one operand must be sparse (for two dense ones use the semiring "
                        "on sparse arrays of them)")
    xp = (A if sa else B)._xp
    if A.ndim == 2 and B.ndim == 2:
        Tm = _mxm(xp, sr, A, B, mask, complement, structural)
    elif A.ndim == 2 and B.ndim == 1:
        Tm = _mxv(xp, sr, A, B, mask, complement, structural, direction)
    elif A.ndim == 1 and B.ndim == 2:
        Tm = _vxm(xp, sr, A, B, mask, complement, structural, direction)
    else:
        raise ValueError(f"sparray.graph.matmul: operands must be matrices or a matrix and a vector; got shapes "
                         f"{tuple(A.shape)} and {tuple(B.shape)}")
    if out is None and accumulate is None and not replace:
        return Tm
    return _write(Tm, out, mask, complement, structural, accumulate, replace)


def _values_for(sr, a, b):
    """The two operands' values cast to one dtype when the multiply op reads both."""
    if sr.multiply.reads == "both" and a is not None and b is not None and a.dtype != b.dtype:
        xp = namespace_of(a, b)
        common = _dtypes.result_type(a.dtype, b.dtype)
        return xp.astype(a, common), xp.astype(b, common)
    return a, b


def _mxm(xp, sr, A, B, mask, complement, structural):
    if A.shape[1] != B.shape[0]:
        raise ValueError(f"sparray.graph.matmul: shapes {tuple(A.shape)} and {tuple(B.shape)} are not aligned")
    a = matrix_parts(A) if isinstance(A, SparseArray) else dense_matrix_parts(xp, A)
    shape = (int(A.shape[0]), int(B.shape[1]))
    m = mask_matrix(mask, shape)
    if m is not None and structural:
        m = m[:2]
    if m is not None and not complement and isinstance(B, SparseArray) and B.layout == "csc":
        # B's CSC is B.T's CSR: every masked entry a dot product of two rows, no transpose of B
        bt = matrix_parts(B.mT, name="B")
        av, bv = _values_for(sr, a[2], bt[2])
        crow, col, values = _dispatch.call("semiring_mxm_dot", "csr", xp, a[0], a[1], av, bt[0], bt[1], bv,
                                           int(A.shape[1]), shape[1], sr.name, m, structural, None,
                                           work=int(a[1].shape[0]) + int(bt[1].shape[0]))
        return csr_result(xp, crow, col, values, shape)
    b = matrix_parts(B, name="B") if isinstance(B, SparseArray) else dense_matrix_parts(xp, B)
    av, bv = _values_for(sr, a[2], b[2])
    work = int(a[1].shape[0]) + int(b[1].shape[0])
    crow, col, values = _dispatch.call("semiring_mxm", "csr", xp, a[0], a[1], av, b[0], b[1], bv, shape[1], sr.name, m,
                                       complement, structural, None, work=work)
    return csr_result(xp, crow, col, values, shape)


#: a sparse frontier with at most 1/PUSH_RATIO of the vector's elements is pushed (scattered
#: along the rows it names), a denser one or a dense vector pulled (one dot product per output
#: element): Beamer's direction switch (GAP's BFS switches at a ratio of 14-24)
PUSH_RATIO = 16


def _direction(direction, x, n):
    if direction not in ("auto", "push", "pull"):
        raise ValueError(f"sparray.graph.matmul: direction must be 'auto', 'push' or 'pull'; got {direction!r}")
    if direction != "auto":
        return direction
    if isinstance(x, SparseArray) and x.nse * PUSH_RATIO <= n:
        return "push"
    return "pull"


def _mxv(xp, sr, A, x, mask, complement, structural, direction):
    if not isinstance(A, SparseArray):
        raise TypeError("sparray.graph.matmul: a dense matrix times a vector has no sparse operand")
    M, K = (int(s) for s in A.shape)
    flip = T.flipped(sr)
    way = _direction(direction, x, K)
    if flip is None and way == "push":
        way = "pull"  # no swapped op (minus, div, positional): the pull form only
    if way == "push":  # A @ x = x @ A.T with the operands swapped
        return _push(xp, flip, x, row_parts(A, True), K, M, mask, complement, structural)
    return _pull(xp, sr, row_parts(A, False), x, M, K, mask, complement, structural)


def _vxm(xp, sr, x, A, mask, complement, structural, direction):
    if not isinstance(A, SparseArray):
        raise TypeError("sparray.graph.matmul: a vector times a dense matrix has no sparse operand")
    M, N = (int(s) for s in A.shape)
    flip = T.flipped(sr)
    way = _direction(direction, x, M)
    if flip is None and way == "pull":
        way = "push"
    if way == "pull":  # x @ A = A.T @ x with the operands swapped
        return _pull(xp, flip, row_parts(A, True), x, N, M, mask, complement, structural)
    return _push(xp, sr, x, row_parts(A, False), M, N, mask, complement, structural)


def _pull(xp, sr, parts, x, M, K, mask, complement, structural):
    """``y = A @ x`` (A's CSR ``parts``, M x K) by one dot product per row."""
    crow, col, values = parts
    if isinstance(x, SparseArray):  # a sparse x in a pull product: its bitmap and values (0 where absent)
        x_present, xv = mask_vector(x, K, True)
    else:
        xv, x_present, _ = vector_parts(x, K)
    mp, mv = mask_vector(mask, M, structural)
    av, xv = _values_for(sr, values, xv)
    y, present = _dispatch.call("semiring_mxv", "csr", xp, crow, col, av, xv, x_present, sr.name, mp, mv, complement,
                                structural, K, None, work=int(col.shape[0]) + M)
    return vector_result(xp, y, present)


def _push(xp, sr, x, parts, M, N, mask, complement, structural):
    """``y = x @ A`` (A's CSR ``parts``, M x N) by scattering x's entries along A's rows."""
    crow, col, values = parts
    xv, x_present, x_indices = vector_parts(x, M)
    mp, mv = mask_vector(mask, N, structural)
    xv, av = _values_for(sr, xv, values)
    y, present = _dispatch.call("semiring_vxm", "csr", xp, crow, col, av, N, xv, x_present, sr.name, mp, mv, complement,
                                structural, x_indices, None, work=int(col.shape[0]) + M)
    return vector_result(xp, y, present)


def _write(Tm, out, mask, complement, structural, accumulate, replace):
    """``C<mask, accumulate, replace> = T`` (see the module docstring)."""
    from ._select import keep_where

    if out is None:
        out = _empty_like(Tm)
    if tuple(out.shape) != tuple(Tm.shape):
        raise ValueError(f"sparray.graph.matmul: out has shape {tuple(out.shape)}; the product has shape {tuple(Tm.shape)}")
    inside, outside = keep_where(out, mask, complement, structural)
    new = ewise_add(inside, Tm, accumulate) if accumulate is not None else Tm
    if replace or outside.nse == 0:
        return new
    return ewise_add(outside, new, "second")


def _empty_like(Tm):
    xp = Tm._xp
    from .._array.coo import COO
    from .._functions.undefined import undefined_fill

    return COO._from_parts(xp, xp.zeros((Tm.ndim, 0), dtype=xp.int64), xp.zeros((0,), dtype=Tm.dtype), Tm.shape,
                           undefined_fill(xp, Tm.dtype), coalesced=True)
