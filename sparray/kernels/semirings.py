"""The semiring table of sparray's graph kernels (GraphBLAS's model), shared by every backend.

Plain Python and NumPy, no numba: the CPU kernels (``cpu/semiring.py``) and a CUDA version
specialise on the integer codes below, so one table names what each code means everywhere.

A **monoid** ``(+, identity)`` reduces the products that meet at one output entry; a
**multiply** op ``*`` combines one entry of each operand; a **semiring** is a pair, named
``"<monoid>_<multiply>"`` as GraphBLAS does (``"min_plus"``, ``"any_secondi"``). Every pair of
the two tables is a semiring (:func:`semiring` parses any of them); :data:`SEMIRINGS` lists the
ones graph algorithms use by name.

Semantics (SuiteSparse:GraphBLAS's, checked against python-graphblas):

- an output entry exists only where at least one product exists; the first product found is
  its value and each later one is combined into it (no identity is ever added, so a single
  NaN or -0.0 product stays as it is). The identity is listed for callers that need one.
- floating ``min``/``max`` ignore NaN as C's ``fmin``/``fmax`` do (NaN only when both are NaN).
- on bool values ``plus`` is ``lor``, ``times``/``min`` are ``land``, ``max`` is ``lor``,
  ``minus`` is ``lxor`` and ``div`` is ``first`` (GraphBLAS's renames).
- the ``lor``/``land`` monoids compute in bool: operand values are read as ``value != 0``
  (python-graphblas's ``lor_land`` casts every input type to BOOL the same way).
- integer ``div`` truncates toward zero; ``x / 0`` is 0 for ``x == 0``, else the type's max
  (x > 0) or min (x < 0); ``x / -1`` is ``-x`` wrapping. Integer arithmetic wraps.
- a **terminal** value ends a reduction early (``any``: the first value; ``lor``: True;
  ``min``: -inf or the type's min; ``times`` on integers: 0); floating ``plus``/``times`` have none.
- **positional** multiply ops (``firsti``, ``firstj``, ``secondi``, ``secondj`` and their
  ``...1`` one-based twins) ignore both values and give an index of the product
  ``A(i, k) * B(k, j)``: ``firsti`` = i, ``firstj`` = ``secondi`` = k, ``secondj`` = j.
  In ``y = A @ x`` (x a column) that is i, k, k, 0; in ``y = x @ A`` (x a row) 0, k, k, j. Their
  result is int64 (LAGraph's BFS parents use ``any_secondi``, FastSV ``min_secondi``).

>>> sr = semiring("min_plus"); sr.monoid.name, sr.multiply.name, sr.multiply.reads
('min', 'plus', 'both')
>>> float(identity("min", np.float64)), int(terminal("min", np.int32)), terminal("plus", np.float64)
(inf, -2147483648, None)
>>> result_dtype("plus_pair", None, None), result_dtype("any_secondi", np.float32, None)
(dtype('int64'), dtype('int64'))
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

__all__ = [
    "INDEX_OPS", "MONOIDS", "MULTIPLIES", "POSITIONAL_RULES", "SELECT_RULES", "SEMIRINGS", "VALUE_DTYPES",
    "Monoid", "Multiply", "Semiring",
    "COMMUTATIVE", "flipped", "identity", "result_dtype", "semiring", "terminal",
]  # fmt: skip

#: value dtypes the graph kernels compute in
VALUE_DTYPES = tuple(np.dtype(t) for t in (np.bool_, np.int32, np.int64, np.float32, np.float64))


class Monoid(NamedTuple):
    name: str
    code: int  #: the integer the kernels specialise on
    on_bool: str  #: what it is on bool values


class Multiply(NamedTuple):
    name: str
    code: int
    reads: str  #: whose values it reads: "both", "first", "second" or "none"
    positional: bool  #: result is an index (int64), not a value
    on_bool: str


class Semiring(NamedTuple):
    name: str
    monoid: Monoid
    multiply: Multiply


MONOIDS = {
    m.name: m
    for m in (
        Monoid("plus", 0, "lor"),
        Monoid("times", 1, "land"),
        Monoid("min", 2, "land"),
        Monoid("max", 3, "lor"),
        Monoid("any", 4, "any"),
        Monoid("lor", 5, "lor"),
        Monoid("land", 6, "land"),
    )
}

MULTIPLIES = {
    m.name: m
    for m in (
        Multiply("times", 0, "both", False, "land"),
        Multiply("plus", 1, "both", False, "lor"),
        Multiply("first", 2, "first", False, "first"),
        Multiply("second", 3, "second", False, "second"),
        Multiply("pair", 4, "none", False, "pair"),
        Multiply("land", 5, "both", False, "land"),
        Multiply("lor", 6, "both", False, "lor"),
        Multiply("min", 7, "both", False, "land"),
        Multiply("max", 8, "both", False, "lor"),
        Multiply("minus", 9, "both", False, "lxor"),
        Multiply("div", 10, "both", False, "first"),
        Multiply("firsti", 11, "none", True, "firsti"),
        Multiply("firsti1", 12, "none", True, "firsti1"),
        Multiply("firstj", 13, "none", True, "firstj"),
        Multiply("firstj1", 14, "none", True, "firstj1"),
        Multiply("secondi", 15, "none", True, "secondi"),
        Multiply("secondi1", 16, "none", True, "secondi1"),
        Multiply("secondj", 17, "none", True, "secondj"),
        Multiply("secondj1", 18, "none", True, "secondj1"),
    )
}


def semiring(name) -> Semiring:
    """The semiring ``"<monoid>_<multiply>"`` (any pair of :data:`MONOIDS` and :data:`MULTIPLIES`),
    or a ``Semiring`` given back as it is; ValueError naming the known parts otherwise."""
    if isinstance(name, Semiring):
        return name
    if isinstance(name, str):
        head, _, tail = name.partition("_")
        if head in MONOIDS and tail in MULTIPLIES:
            return Semiring(name, MONOIDS[head], MULTIPLIES[tail])
    raise ValueError(
        f"unknown semiring {name!r}: expected '<monoid>_<multiply>' with a monoid among {sorted(MONOIDS)} "
        f"and a multiply op among {sorted(MULTIPLIES)} (e.g. 'min_plus', 'plus_pair', 'any_secondi')"
    )


#: the semirings graph algorithms use, by name (every other monoid_multiply pair works too)
SEMIRINGS = {
    n: semiring(n)
    for n in (
        "plus_times", "min_plus", "max_plus", "min_times", "max_times", "plus_pair", "any_pair",
        "min_first", "min_second", "max_first", "max_second", "plus_second", "plus_first", "lor_land",
        "land_lor", "any_first", "any_second", "min_secondi", "any_secondi", "min_firsti", "any_firsti",
        "min_firstj", "any_firstj", "min_secondj", "any_secondj", "plus_min", "max_min", "min_max",
    )
}  # fmt: skip


def _monoid(m) -> Monoid:
    if isinstance(m, Monoid):
        return m
    if m in MONOIDS:
        return MONOIDS[m]
    raise ValueError(f"unknown monoid {m!r}: expected one of {sorted(MONOIDS)}")


def _limits(dtype):
    dtype = np.dtype(dtype)
    if dtype.kind == "f":
        return dtype.type(-np.inf), dtype.type(np.inf)
    if dtype.kind == "b":
        return np.False_, np.True_
    info = np.iinfo(dtype)
    return dtype.type(info.min), dtype.type(info.max)


def identity(monoid, dtype):
    """The monoid's identity as a scalar of ``dtype`` (``any``: 0, any value would do)."""
    m = _monoid(monoid)
    dtype = np.dtype(dtype)
    lo, hi = _limits(dtype)
    name = m.on_bool if dtype.kind == "b" else m.name
    table = {"plus": 0, "times": 1, "min": hi, "max": lo, "any": 0, "lor": 0, "land": 1}
    return dtype.type(table[name])


def terminal(monoid, dtype):
    """The value that ends a reduction early, as a scalar of ``dtype``, or None (no such value;
    for ``any`` every value is terminal and the first one is returned: None is not used there,
    the string ``"any"`` is)."""
    m = _monoid(monoid)
    dtype = np.dtype(dtype)
    name = m.on_bool if dtype.kind == "b" else m.name
    if name == "any":
        return "any"
    lo, hi = _limits(dtype)
    if name == "plus" or (name == "times" and dtype.kind == "f"):
        return None
    table = {"times": 0, "min": lo, "max": hi, "lor": 1, "land": 0}
    return dtype.type(table[name])


#: multiply ops whose operands may be swapped (a * b = b * a)
COMMUTATIVE = frozenset({"times", "plus", "pair", "min", "max", "land", "lor"})
_SWAPPED = {"first": "second", "second": "first"}


def flipped(sr):
    """The semiring whose multiply takes its operands the other way round (``a (x)' b = b (x) a``):
    what a product computed through the transpose needs (``A @ x`` as ``x @ A.T``); None where
    no op of the table is that (``minus``, ``div``, the positional ops).

    >>> flipped("min_first").name, flipped("plus_times").name, flipped("plus_minus")
    ('min_second', 'plus_times', None)
    """
    sr = semiring(sr)
    name = sr.multiply.name
    if name in COMMUTATIVE:
        return sr
    if name in _SWAPPED:
        return semiring(f"{sr.monoid.name}_{_SWAPPED[name]}")
    return None


def result_dtype(sr, first_dtype, second_dtype, dtype=None) -> np.dtype:
    """The dtype the semiring computes in and returns, from the dtypes of the two operands'
    values (None for an iso-valued operand, every stored value 1) and an explicit ``dtype``:

    - positional multiply ops: int64 (``dtype`` may ask for int32);
    - ``lor``/``land`` monoids: bool;
    - else the dtype of the operands whose values the multiply reads (two read operands must
      agree, else ValueError: cast first); when none is read (``pair``) or those are iso,
      ``dtype``, by default int64 (GraphBLAS's ``plus_pair`` counts in INT64).

    The result must be one of :data:`VALUE_DTYPES` (ValueError otherwise).
    """
    sr = semiring(sr)
    mul = sr.multiply
    want = None if dtype is None else np.dtype(dtype)
    if mul.positional:
        out = want or np.dtype(np.int64)
        if out not in (np.dtype(np.int32), np.dtype(np.int64)):
            raise ValueError(f"semiring {sr.name!r} gives indices: dtype must be int32 or int64, got {out}")
        return out
    if sr.monoid.name in ("lor", "land"):
        return np.dtype(np.bool_)
    read = {"both": (first_dtype, second_dtype), "first": (first_dtype,), "second": (second_dtype,), "none": ()}[mul.reads]
    found = {np.dtype(d) for d in read if d is not None}
    if len(found) > 1:
        a, b = (np.dtype(d) for d in read)
        raise ValueError(f"semiring {sr.name!r}: the operands' values have dtypes {a} and {b}; cast them to one dtype first")
    out = found.pop() if found else (want or np.dtype(np.int64))
    if want is not None and out != want:
        raise ValueError(f"semiring {sr.name!r}: the operands' values are {out}, not the dtype={want} asked for; cast them first")
    if out not in VALUE_DTYPES:
        raise ValueError(f"semiring {sr.name!r}: dtype {out} is not one of {[d.name for d in VALUE_DTYPES]}")
    return out


#: ``select`` rules: positional ones keep A(i, j) when (thunk k, default 0) tril: j <= i + k,
#: triu: j >= i + k, diag: j == i + k, offdiag: j != i + k, rowle: i <= k, rowgt: i > k,
#: colle: j <= k, colgt: j > k; value ones when ``A(i, j) <op> thunk`` (the thunk cast to the
#: values' dtype, as GraphBLAS's VALUE* ops do)
SELECT_RULES = {
    n: c
    for c, n in enumerate(("tril", "triu", "diag", "offdiag", "rowle", "rowgt", "colle", "colgt",
                           "lt", "le", "gt", "ge", "eq", "ne"))
}  # fmt: skip
#: the positional rules among :data:`SELECT_RULES`
POSITIONAL_RULES = frozenset(("tril", "triu", "diag", "offdiag", "rowle", "rowgt", "colle", "colgt"))
#: ``apply_index`` ops: the value of A(i, j) becomes i + thunk, j + thunk or j - i + thunk
INDEX_OPS = {"rowindex": 0, "colindex": 1, "diagindex": 2}
