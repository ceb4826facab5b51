"""What may stand beside a SparseArray in an operation: Python scalars, arrays, other SparseArrays."""

from __future__ import annotations

from .._core.namespace import is_array

__all__ = ["is_operand", "is_scalar"]


def is_scalar(x) -> bool:
    """A Python scalar (bool, int, float, complex)."""
    return isinstance(x, (bool, int, float, complex))


def is_operand(x) -> bool:
    """What a SparseArray operator computes with; anything else gets NotImplemented, and so does a
    Dask collection (``A + X`` with a Dask array ``X`` is ``X.__radd__(A)``: Dask holds sparray
    arrays as chunks and answers itself)."""
    from .base import SparseArray

    if hasattr(type(x), "__dask_graph__"):
        return False
    return isinstance(x, SparseArray) or is_scalar(x) or is_array(x)
