"""What may stand beside a SparseArray in an operation: Python scalars, arrays, other SparseArrays."""

from __future__ import annotations

from ._namespace import is_array

__all__ = ["is_operand", "is_scalar"]


def is_scalar(x) -> bool:
    """A Python scalar (bool, int, float, complex)."""
    return isinstance(x, (bool, int, float, complex))


def is_operand(x) -> bool:
    from ._base import SparseArray

    return isinstance(x, SparseArray) or is_scalar(x) or is_array(x)
