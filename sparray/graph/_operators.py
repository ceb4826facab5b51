"""The binary operators and monoids of ``sparray.graph``, by python-graphblas's names, as
element-wise functions of the components' namespace.

A binary operator takes two value arrays (broadcasting) and gives one: ``plus``, ``minus``,
``times``, ``div``, ``min``, ``max``, ``first``, ``second``, ``pair`` (1), ``any`` (either: the
first), ``eq``, ``ne``, ``lt``, ``le``, ``gt``, ``ge``, ``land``, ``lor``, ``lxor``. A monoid is an
associative, commutative operator with an identity: ``plus`` (0), ``times`` (1), ``min`` (+inf or
the dtype's largest), ``max`` (-inf or the dtype's smallest), ``any`` (any element of the group),
``lor`` (False), ``land`` (True).

>>> import numpy as np
>>> binary("minus")(np.array([5.0]), np.array([2.0])).tolist(), MONOIDS["min"].reduce_op
([3.0], 'min')
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["binary", "BINARY_NAMES", "MONOIDS", "Monoid", "monoid"]


def _pair(xp, a, b):
    shape = xp.broadcast_arrays(a, b)[0].shape
    return xp.ones(shape, dtype=xp.result_type(a.dtype, b.dtype) if hasattr(a, "dtype") and hasattr(b, "dtype") else xp.int64)


def _ops(xp):
    return {
        "plus": xp.add, "minus": xp.subtract, "times": xp.multiply, "div": xp.divide,
        "min": xp.minimum, "max": xp.maximum,
        "first": lambda a, b: xp.broadcast_arrays(a, b)[0] if hasattr(b, "shape") else a,
        "second": lambda a, b: xp.broadcast_arrays(a, b)[1] if hasattr(a, "shape") else b,
        "any": lambda a, b: xp.broadcast_arrays(a, b)[0] if hasattr(b, "shape") else a,
        "pair": lambda a, b: _pair(xp, a, b),
        "eq": xp.equal, "ne": xp.not_equal, "lt": xp.less, "le": xp.less_equal, "gt": xp.greater, "ge": xp.greater_equal,
        "land": lambda a, b: xp.logical_and(xp.astype(a, xp.bool), xp.astype(b, xp.bool)),
        "lor": lambda a, b: xp.logical_or(xp.astype(a, xp.bool), xp.astype(b, xp.bool)),
        "lxor": lambda a, b: xp.logical_xor(xp.astype(a, xp.bool), xp.astype(b, xp.bool)),
    }  # fmt: skip


BINARY_NAMES = ("plus", "minus", "times", "div", "min", "max", "first", "second", "any", "pair", "eq", "ne", "lt",
                "le", "gt", "ge", "land", "lor", "lxor")  # fmt: skip


def binary(name, xp=None):
    """The binary operator ``name`` as a function of two arrays of ``xp`` (default: NumPy's)."""
    if name not in BINARY_NAMES:
        raise ValueError(f"sparray.graph: unknown binary operator {name!r}; expected one of {', '.join(BINARY_NAMES)}")
    if xp is None:
        import array_api_compat.numpy as xp
    return _ops(xp)[name]


@dataclass(frozen=True)
class Monoid:
    """A monoid: its name, the grouped reduction that computes it (``reduce_op``: one of the
    engine's sum/prod/max/min, bool: or/and) and its binary operator."""

    name: str
    reduce_op: str
    op: str


MONOIDS = {
    "plus": Monoid("plus", "sum", "plus"), "times": Monoid("times", "prod", "times"),
    "min": Monoid("min", "min", "min"), "max": Monoid("max", "max", "max"), "any": Monoid("any", "max", "any"),
    "lor": Monoid("lor", "sum", "lor"), "land": Monoid("land", "prod", "land"),
}  # fmt: skip


def monoid(name) -> Monoid:
    """The monoid ``name`` (ValueError naming the known ones otherwise)."""
    try:
        return MONOIDS[name]
    except KeyError:
        raise ValueError(f"sparray.graph: unknown monoid {name!r}; expected one of {', '.join(MONOIDS)}") from None
