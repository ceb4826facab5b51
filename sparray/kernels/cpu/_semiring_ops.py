"""The semiring table's operators inside numba code: ``sr_add``, ``sr_mul``, ``sr_term``.

Each takes the operator's integer code (``kernels/semirings.py``) as its first argument. A
kernel specialised on a semiring holds the codes as constants of its closure (ints only, so
numba caches it: the cache key hashes the closure's cell contents), which numba types as
integer literals; these overloads then pick the one implementation for that code and the
value type at compile time, so the kernels' loops contain the operator and nothing else.

- ``sr_add(code, a, b)``: the monoid, a result of a's type (bool renames as in the table);
- ``sr_term(code, a)``: whether ``a`` is the monoid's terminal value (folds to False where there
  is none: floating plus and times);
- ``sr_mul(code, a, b, i, k, j)``: the multiply op on a = first operand's value, b = second's,
  for the product ``A(i, k) * B(k, j)``; a result of a's type, or int64 for positional ops.

a and b have the dtype the semiring computes in (the wrappers pass operands that are not read,
or iso-valued, as ones of that dtype).
"""

import numpy as np
from numba import types
from numba.extending import overload
from numba.np.numpy_support import as_dtype

from ..semirings import MONOIDS, MULTIPLIES
from . import _cache  # noqa: F401  (compiled kernels go to the per-user cache, see _cache.py)

__all__ = ["sr_add", "sr_mul", "sr_term"]

_OPTS = dict(jit_options=dict(cache=True, nogil=True, error_model="numpy"), prefer_literal=True)
_MONOID = {m.code: m for m in MONOIDS.values()}
_MULTIPLY = {m.code: m for m in MULTIPLIES.values()}


def _kind(t):
    if isinstance(t, types.Boolean):
        return "b"
    if isinstance(t, types.Integer):
        return "i"
    if isinstance(t, types.Float):
        return "f"
    return None


def _bounds(t):
    info = np.iinfo(as_dtype(t))
    return info.min, info.max


def sr_add(code, a, b):  # pragma: no cover - replaced by the overload inside numba
    raise NotImplementedError("sr_add runs inside numba kernels only")


def sr_term(code, a):  # pragma: no cover
    raise NotImplementedError("sr_term runs inside numba kernels only")


def sr_mul(code, a, b, i, k, j):  # pragma: no cover
    raise NotImplementedError("sr_mul runs inside numba kernels only")


@overload(sr_add, **_OPTS)
def _ov_add(code, a, b):
    if not isinstance(code, types.IntegerLiteral) or code.literal_value not in _MONOID:
        return None
    kind = _kind(a)
    if kind is None:
        return None
    m = _MONOID[code.literal_value]
    name = m.on_bool if kind == "b" else m.name
    if name == "any":
        return lambda code, a, b: a
    if kind == "b":
        if name == "lor":
            return lambda code, a, b: a | b
        return lambda code, a, b: a & b  # land
    T = as_dtype(a).type
    if name == "plus":
        return lambda code, a, b: T(a + b)
    if name == "times":
        return lambda code, a, b: T(a * b)
    if name == "min":
        if kind == "f":  # fmin: NaN only when both are (no short-circuit "or": one select, no branch)
            return lambda code, a, b: a if ((a <= b) | (b != b)) else T(b)
        return lambda code, a, b: a if a <= b else T(b)
    if name == "max":
        if kind == "f":
            return lambda code, a, b: a if ((a >= b) | (b != b)) else T(b)
        return lambda code, a, b: a if a >= b else T(b)
    if name == "lor":
        return lambda code, a, b: T((a != 0) | (b != 0))
    return lambda code, a, b: T((a != 0) & (b != 0))  # land


@overload(sr_term, **_OPTS)
def _ov_term(code, a):
    if not isinstance(code, types.IntegerLiteral) or code.literal_value not in _MONOID:
        return None
    kind = _kind(a)
    if kind is None:
        return None
    m = _MONOID[code.literal_value]
    name = m.on_bool if kind == "b" else m.name
    if name == "any":
        return lambda code, a: True
    if kind == "b":
        if name == "lor":
            return lambda code, a: a
        return lambda code, a: not a  # land
    if name == "plus" or (name == "times" and kind == "f"):
        return lambda code, a: False
    if name == "times":
        return lambda code, a: a == 0
    if name in ("min", "max"):
        if kind == "f":
            edge = -np.inf if name == "min" else np.inf
        else:
            edge = _bounds(a)[0 if name == "min" else 1]
        return lambda code, a: a == edge
    if name == "lor":
        return lambda code, a: a != 0
    return lambda code, a: a == 0  # land


@overload(sr_mul, **_OPTS)
def _ov_mul(code, a, b, i, k, j):
    if not isinstance(code, types.IntegerLiteral) or code.literal_value not in _MULTIPLY:
        return None
    kind = _kind(a)
    if kind is None:
        return None
    m = _MULTIPLY[code.literal_value]
    if m.positional:
        base = {"firsti": 0, "firstj": 1, "secondi": 1, "secondj": 2}[m.name.rstrip("1")]
        one = 1 if m.name.endswith("1") else 0
        if base == 0:
            return lambda code, a, b, i, k, j: np.int64(i) + one
        if base == 1:
            return lambda code, a, b, i, k, j: np.int64(k) + one
        return lambda code, a, b, i, k, j: np.int64(j) + one
    name = m.on_bool if kind == "b" else m.name
    if name == "first":
        return lambda code, a, b, i, k, j: a
    if name == "second":
        return lambda code, a, b, i, k, j: b
    T = as_dtype(a).type
    if name == "pair":
        return lambda code, a, b, i, k, j: T(1)
    if kind == "b":
        if name == "land":
            return lambda code, a, b, i, k, j: a & b
        if name == "lor":
            return lambda code, a, b, i, k, j: a | b
        return lambda code, a, b, i, k, j: a ^ b  # lxor
    if name == "times":
        return lambda code, a, b, i, k, j: T(a * b)
    if name == "plus":
        return lambda code, a, b, i, k, j: T(a + b)
    if name == "minus":
        return lambda code, a, b, i, k, j: T(a - b)
    if name == "land":
        return lambda code, a, b, i, k, j: T((a != 0) & (b != 0))
    if name == "lor":
        return lambda code, a, b, i, k, j: T((a != 0) | (b != 0))
    if name == "min":
        if kind == "f":
            return lambda code, a, b, i, k, j: a if ((a <= b) | (b != b)) else T(b)
        return lambda code, a, b, i, k, j: a if a <= b else T(b)
    if name == "max":
        if kind == "f":
            return lambda code, a, b, i, k, j: a if ((a >= b) | (b != b)) else T(b)
        return lambda code, a, b, i, k, j: a if a >= b else T(b)
    # div
    if kind == "f":
        return lambda code, a, b, i, k, j: T(a / b)
    lo, hi = _bounds(a)

    def cdiv(code, a, b, i, k, j):
        if b == 0:
            if a == 0:
                return T(0)
            return T(hi) if a > 0 else T(lo)
        if b == -1:
            return T(-np.int64(a))
        q = a // b
        if (a % b != 0) and ((a < 0) != (b < 0)):
            q += 1
        return T(q)

    return cdiv
