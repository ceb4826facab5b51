"""Changing an array object in place: ``A[k] = v`` and the in-place operators ``A += B`` ...

A SparseArray never writes into its component buffers (other arrays share them: ``A.mT``, the
results of element-wise functions, row slices). An in-place operation computes a new array and
*rebinds* its components, shape, fill and flags on the same object (``rebind``): every name bound
to ``A`` sees the change, as in NumPy, and arrays that shared the old buffers keep the old values
(copy-on-write; docs/array_object.md explains why views do not see the write).

In-place operators follow the standard: ``A op= B`` is ``A = A op B`` on the same object, and the
result must have A's dtype and A's shape, else the operation raises (TypeError for the dtype, as
NumPy raises for ``int_array += 1.5``; ValueError for the shape) and ``A`` is left unchanged.
The result keeps A's layout (and blocksize); a dense result (``A += D`` with a dense ``D`` that
varies along the sparse dims) is turned back into A's layout with A's fill value, the elements
that differ from it specified.

>>> import sparray
>>> A = sparray.asarray([1.0, 0.0, 2.0])
>>> B = A
>>> A *= 3
>>> B.to_dense().tolist()
[3.0, 0.0, 6.0]
"""

from __future__ import annotations

from .._array.base import SparseArray

__all__ = ["rebind", "inplace", "INPLACE_OPERATORS"]

#: in-place dunder stem -> the namespace function it applies
INPLACE_OPERATORS = {
    "add": "add", "sub": "subtract", "mul": "multiply", "truediv": "divide", "floordiv": "floor_divide",
    "mod": "remainder", "pow": "pow", "and": "bitwise_and", "or": "bitwise_or", "xor": "bitwise_xor",
    "lshift": "bitwise_left_shift", "rshift": "bitwise_right_shift", "matmul": "matmul",
}  # fmt: skip


def _in_layout(A, R):
    """``R`` (a SparseArray or a dense array of A's shape and dtype) as an array of A's class."""
    from .creation import asarray

    blocksize = A.blocksize if getattr(A, "_blocked", False) else None
    if not isinstance(R, SparseArray):
        return asarray(R, layout=A.layout, fill_value=A._fill, sparse_ndim=A.ndim - A.dense_ndim, blocksize=blocksize)
    if type(R) is type(A) and R.dense_ndim == A.dense_ndim and getattr(R, "blocksize", None) == getattr(A, "blocksize", None):
        return R
    return R.to_layout(A.layout, blocksize=blocksize, dense_ndim=A.dense_ndim)


def rebind(A, new, *, who: str) -> None:
    """Make ``A`` hold ``new``'s state (``new`` is converted to A's class first; ``A`` keeps its identity)."""
    if new is A:
        return
    new = _in_layout(A, new)
    if type(new) is not type(A):
        raise TypeError(f"sparray.{who}: internal error: a {type(new).__name__} cannot replace a {type(A).__name__}")
    state = dict(new.__dict__)
    A.__dict__.clear()
    A.__dict__.update(state)


def inplace(A, stem: str, other):
    """``A <op>= other`` for the dunder ``__i<stem>__``: computed, checked, rebound; returns ``A``."""
    from .._array import forward
    from .._core.dtypes import dtype_name
    from .._array.operands import is_operand

    if not is_operand(other):
        return NotImplemented
    who = f"__i{stem}__"
    result = forward.function(INPLACE_OPERATORS[stem])(A, other)
    if tuple(result.shape) != A.shape:
        raise ValueError(
            f"sparray.{who}: the result has shape {tuple(result.shape)}, but an in-place operation keeps the array's "
            f"shape {A.shape}; use A = A {_SYMBOL.get(stem, stem)} other"
        )
    if dtype_name(result.dtype) != dtype_name(A.dtype):
        raise TypeError(
            f"sparray.{who}: the result has dtype {dtype_name(result.dtype)}, but an in-place operation keeps the "
            f"array's dtype {dtype_name(A.dtype)} (the array API's rule); use A = A {_SYMBOL.get(stem, stem)} other"
        )
    rebind(A, result, who=who)
    return A


_SYMBOL = {
    "add": "+", "sub": "-", "mul": "*", "truediv": "/", "floordiv": "//", "mod": "%", "pow": "**", "and": "&",
    "or": "|", "xor": "^", "lshift": "<<", "rshift": ">>", "matmul": "@",
}  # fmt: skip
