"""The undefined fill (``sparray.undefined``): what every public function does with it.

An array whose fill is undefined stands for its stored entries only: an unspecified element has no
value (a graph's missing edge), and an explicit 0 is an entry like any other. The rules, decided
once (docs/graphs.md has the table), follow GraphBLAS's and NumPy's masked arrays':

- **Structure-only functions** (shapes, indexing, ``take``, ``concat``, ``tril``, conversions,
  ``astype``, devices) move entries and keep the fill undefined; every operand's fill must be
  undefined (a defined and an undefined fill cannot share one result).
- **Element-wise functions of one array and operators with a scalar** map the stored entries
  only: ``sin(A)``, ``A + 1``, ``A > 0`` keep A's pattern.
- **Element-wise functions of two arrays** (``+``, ``*``, ``==``, ``maximum``, ...): an undefined
  element combined with anything is undefined, so the result holds the entries where every
  operand with an undefined fill has one (both undefined: the intersection; with a defined fill
  or a dense operand: the undefined side's pattern, the other side's element there, stored or
  fill). Unions are explicit: ``sparray.graph.ewise_add`` / ``ewise_union``.
- **Reductions** (``sum``, ``prod``, ``max``, ``min``, ``any``, ``all``, ``mean``) run over the
  stored entries; a line without one gives an undefined element of the result, so
  ``sum(A, axis=1)`` is sparse where rows are empty. ``count_nonzero`` and ``nonzero`` count and
  find the stored non-zero entries.
- ``to_dense()`` refuses unless given a fill: ``to_dense(fill_value=v)``; ``asarray(A,
  fill_value=v)`` gives the same entries with a defined fill (and ``asarray(B,
  fill_value=sparray.undefined)`` a defined-fill array's entries with none).
- Everything else refuses with a TypeError naming the function and the way out: none silently
  treats undefined as 0.

>>> import sparray, numpy as np
>>> A = sparray.asarray(sparray.asarray(np.array([[0.0, 2.0], [0.0, 0.0]])), fill_value=sparray.undefined)
>>> A.fill_is_defined, sparray.sum(A, axis=1).nse, (A + 1).to_dense(fill_value=-1.0).tolist()
(False, 1, [[-1.0, 3.0], [-1.0, -1.0]])
"""

from __future__ import annotations

import math

from .._array.base import SparseArray
from .._core.fill import normalize_fill, undefined
from .._array.operands import is_scalar
from .._core.namespace import is_array

__all__ = ["call", "dense_with_fill", "with_fill", "undefined_fill", "getitem", "STRUCTURAL", "REDUCTIONS"]


def undefined_fill(xp, dtype):
    """The undefined fill of ``dtype`` in namespace ``xp``: an empty array of shape ``(0,)``."""
    return xp.empty((0,), dtype=dtype)


def has_undefined(a) -> bool:
    return isinstance(a, SparseArray) and not a.fill_is_defined


def with_fill(A, fill):
    """``A``'s entries (the same components) with the fill array ``fill``."""
    return A._replace_values(A._values, fill)


def dense_with_fill(A, fill_value):
    """``A.to_dense(fill_value=...)``: the dense array with ``fill_value`` at the unspecified elements."""
    if fill_value is None:
        raise ValueError(
            "to_dense: this array's fill is undefined (sparray.undefined): its unspecified elements have no value; "
            "say which to write there: A.to_dense(fill_value=0.0)"
        )
    if fill_value is undefined:
        raise ValueError("to_dense: fill_value=sparray.undefined gives no dense array; pass a value")
    fill = normalize_fill(A._xp, fill_value, A.dtype, A.dense_shape, "to_dense")
    return with_fill(A, fill).to_dense()


def _stand_in(A, value=0):
    xp = A._xp
    return with_fill(A, xp.asarray(value, dtype=A.dtype) if not isinstance(value, str) else _extreme(xp, A.dtype, value))


def _extreme(xp, dtype, which):
    """The identity of max ("lowest") or min ("highest") for ``dtype``: -inf/inf, the int limits, False/True."""
    import numpy as np

    from .._core.dtypes import dtype_name

    name = dtype_name(dtype)
    if name == "bool":
        return xp.asarray(which == "highest", dtype=dtype)
    if name.startswith(("int", "uint")):
        info = np.iinfo(name)
        return xp.asarray(int(info.min if which == "lowest" else info.max), dtype=dtype)
    if name.startswith("complex"):
        raise TypeError(f"max/min: complex values have no order; got {name}")
    return xp.asarray(-math.inf if which == "lowest" else math.inf, dtype=dtype)


def _undefine(out):
    """``out`` (a result computed with stand-in fills) with undefined fills, inside tuples and lists too."""
    if isinstance(out, SparseArray):
        return with_fill(out, undefined_fill(out._xp, out.dtype))
    if isinstance(out, tuple):
        items = [_undefine(o) for o in out]
        return type(out)(*items) if hasattr(out, "_fields") else tuple(items)
    if isinstance(out, list):
        return [_undefine(o) for o in out]
    return out


def _operands(args, kwargs):
    for a in (*args, *kwargs.values()):
        if isinstance(a, (list, tuple)):
            yield from a
        else:
            yield a


def _swap(args, kwargs, fn):
    def one(a):
        if isinstance(a, SparseArray):
            return fn(a)
        if type(a) in (list, tuple):
            return type(a)(one(x) for x in a)
        return a

    return tuple(one(a) for a in args), {k: one(v) for k, v in kwargs.items()}


# --- the families -----------------------------------------------------------------------------------
def _structural(func, name, args, kwargs):
    """Entries moved, none made or dropped from a value: every sparse operand's fill must be undefined."""
    sparse = [a for a in _operands(args, kwargs) if isinstance(a, SparseArray)]
    if any(a.fill_is_defined for a in sparse):
        raise ValueError(f"sparray.{name}: the operands mix undefined and defined fills, which one result cannot hold; "
                         "give the undefined ones a fill (sparray.asarray(A, fill_value=v)) or the defined ones none "
                         "(sparray.asarray(B, fill_value=sparray.undefined))")
    a, k = _swap(args, kwargs, _stand_in)
    return _undefine(func(*a, **k))


def _entries_only(func, name, args, kwargs):
    """An element-wise function of one array (scalars beside it): the stored entries mapped."""
    a, k = _swap(args, kwargs, _stand_in)
    return _undefine(func(*a, **k))


def _elementwise(func, name, args, kwargs):
    """Element-wise functions: one array (and scalars) maps its entries; two arrays combine on the
    entries every undefined operand has (see the module docstring)."""
    arrays = [a for a in args[:2] if not _scalar_like(a)]
    if len(arrays) < 2:
        return _entries_only(func, name, args, kwargs)
    return _combine(func, name, args[:2])


def _where(func, name, args, kwargs):
    """``where(condition, x1, x2)``: element-wise over the three, so defined where every
    undefined-fill operand has an entry (an undefined condition or operand gives an undefined
    element, as for every element-wise function)."""
    if len(args) != 3 or kwargs:
        return _refuse(func, name, args, kwargs)
    if sum(not _scalar_like(a) for a in args) == 1:
        return _entries_only(func, name, args, kwargs)
    return _combine(func, name, args)


def _scalar_like(a) -> bool:
    return is_scalar(a) or (is_array(a) and not isinstance(a, SparseArray) and a.ndim == 0)


def _combine(func, name, operands):
    """``func(*operands)`` element-wise, on the entries every undefined-fill operand has (their
    intersection), each other operand read there (a dense one's element, a defined-fill sparse
    one's element or fill, a scalar as it is). The result's fill is undefined."""
    from .._array.coo import COO
    from .._core.keys import index_dtype_for, linear_keys, unravel
    from .._engine import dispatch as _dispatch
    from .._layout.conversion import match_common_layout
    from .manipulation import broadcast_shapes, broadcast_to

    arrays = [x for x in operands if not _scalar_like(x)]
    shape = broadcast_shapes(*(tuple(x.shape) for x in arrays), who=f"sparray.{name}")
    und = [x for x in arrays if has_undefined(x)]
    xp = und[0]._xp
    s = len(shape) - und[0].dense_ndim
    sparse_shape, dense_shape = shape[:s], shape[s:]
    if any(isinstance(x, SparseArray) and len(shape) - x.dense_ndim != s for x in arrays):
        raise ValueError(f"sparray.{name}: sparse operands beside an undefined fill must split their dims into sparse "
                         "and dense parts alike; convert one with to_layout(..., dense_ndim=...)")

    def coo(x):
        B = _undefine(broadcast_to(_stand_in(x), shape)) if has_undefined(x) else broadcast_to(x, shape)
        B = B if B.layout == "coo" else B.to_layout("coo")
        return B.coalesce()

    parts = [coo(x) if isinstance(x, SparseArray) else x for x in operands]
    keys_of = {}
    for i, p in enumerate(parts):
        if isinstance(p, SparseArray):
            keys_of[i] = linear_keys(xp, p._indices, sparse_shape)
            if keys_of[i] is None:
                raise ValueError(f"sparray.{name}: sparse shape {sparse_shape} has more than 2**63 positions")
    undefined_ids = [i for i, p in enumerate(parts) if has_undefined(p)]
    if len(undefined_ids) > 1:
        keys_cat = xp.concat([keys_of[i] for i in undefined_ids])
        bounds = [0]
        for i in undefined_ids:
            bounds.append(bounds[-1] + keys_of[i].shape[0])
        offsets = xp.asarray(bounds, dtype=xp.int64)
        keys, found = _dispatch.call("merge_pattern", "coo", xp, keys_cat, offsets, "intersection", work=keys_cat.shape[0])
        positions = dict(zip(undefined_ids, found))
    else:
        keys, positions = keys_of[undefined_ids[0]], None
    m, n = math.prod(dense_shape), keys.shape[0]
    values = []
    for i, p in enumerate(parts):
        if _scalar_like(p):
            values.append(p)
        elif not isinstance(p, SparseArray):
            dense = xp.reshape(xp.broadcast_to(p, shape), (math.prod(sparse_shape), *dense_shape))
            values.append(xp.take(dense, keys, axis=0))
        elif has_undefined(p) and positions is None:
            values.append(p._values)
        else:
            pos = positions[i] if has_undefined(p) else _positions_of(xp, keys_of[i], keys)
            fill = xp.zeros((), dtype=p.dtype) if has_undefined(p) else p._fill
            flat = xp.reshape(p._values, (p._values.shape[0], m))
            got = _dispatch.call("gather_with_fill", "coo", xp, flat, pos, xp.reshape(xp.broadcast_to(fill, dense_shape), (m,)), work=n)
            values.append(xp.reshape(got, (n, *dense_shape)))
    out_values = func(*values)
    indices = unravel(xp, keys, sparse_shape, index_dtype_for(xp, shape, n))
    out = COO._from_parts(xp, indices, out_values, shape, undefined_fill(xp, out_values.dtype), coalesced=True)
    return match_common_layout(out, [x for x in arrays if isinstance(x, SparseArray)])


def _positions_of(xp, part_keys, keys):
    """Where each of ``keys`` sits in the sorted ``part_keys`` (-1 where absent)."""
    n = part_keys.shape[0]
    if n == 0:
        return xp.full((keys.shape[0],), -1, dtype=xp.int64)
    pos = xp.astype(xp.searchsorted(part_keys, keys), xp.int64)
    clipped = xp.where(pos < n, pos, xp.full_like(pos, n - 1))
    found = (pos < n) & (xp.take(part_keys, clipped) == keys)
    return xp.where(found, clipped, xp.full_like(clipped, -1))


_IDENTITY = {"sum": 0, "prod": 1, "max": "lowest", "min": "highest", "any": False, "all": True, "mean": 0}


def _reduction(func, name, args, kwargs):
    """A reduction over the stored entries; lines without one give undefined elements."""
    from . import reductions

    x = args[0]
    rest = dict(kwargs)
    axis = rest.pop("axis", args[1] if len(args) > 1 else None)
    keepdims = rest.pop("keepdims", False)
    xp = x._xp
    if name == "mean":
        if not xp.isdtype(x.dtype, ("real floating", "complex floating")):
            raise TypeError(f"sparray.mean: expected a floating dtype; got {x.dtype}")
        total = reductions.sum(_stand_in(x, 0), axis=axis, keepdims=keepdims)
    else:
        total = func(_stand_in(x, _IDENTITY[name]), axis=axis, keepdims=keepdims, **rest)
    ones = x._replace_values(xp.ones(x._values.shape, dtype=xp.int64), xp.zeros((), dtype=xp.int64))
    counts = reductions.sum(ones, axis=axis, keepdims=keepdims)
    dense_total = total.to_dense() if isinstance(total, SparseArray) else total
    dense_counts = counts.to_dense() if isinstance(counts, SparseArray) else counts
    if name == "mean":
        dense_total = dense_total / xp.astype(xp.where(dense_counts > 0, dense_counts, 1), dense_total.dtype)
    return _present(xp, dense_total, dense_counts > 0)


def _arg_extreme(func, name, args, kwargs):
    """``argmax``/``argmin`` over the stored entries: with the fill standing in as the lowest
    (highest) value, the answer is a stored position unless every stored entry of the line is that
    value, and then it is the line's first stored position."""
    from . import reductions

    x = args[0]
    axis, keepdims = kwargs.get("axis"), kwargs.get("keepdims", False)
    xp = x._xp
    extreme = "lowest" if name == "argmax" else "highest"
    pick = func(_stand_in(x, extreme), axis=axis, keepdims=keepdims)
    best = (reductions.max if name == "argmax" else reductions.min)(_stand_in(x, extreme), axis=axis, keepdims=keepdims)
    ones = x._replace_values(xp.ones(x._values.shape, dtype=xp.int8), xp.zeros((), dtype=xp.int8))
    first = func(ones, axis=axis, keepdims=keepdims)  # the first stored position of each line
    counts = reductions.sum(x._replace_values(xp.ones(x._values.shape, dtype=xp.int64), xp.zeros((), dtype=xp.int64)),
                            axis=axis, keepdims=keepdims)
    pick, best, first, counts = (v.to_dense() if isinstance(v, SparseArray) else v for v in (pick, best, first, counts))
    at_extreme = best == _extreme(xp, x.dtype, extreme)
    return _present(xp, xp.where(at_extreme, first, pick), counts > 0)


def _variance(func, name, args, kwargs):
    """``var``/``std`` over the stored entries (two passes: each line's mean, then the squared
    deviations of its entries); a line with no entry is undefined, one with no more than
    ``correction`` entries nan (as NumPy's)."""
    from . import reductions
    from .._core.keys import linear_keys

    x = args[0]
    axis = kwargs.get("axis")
    correction = kwargs.get("correction", 0.0)
    keepdims = kwargs.get("keepdims", False)
    xp = x._xp
    if not xp.isdtype(x.dtype, ("real floating", "complex floating")):
        raise TypeError(f"sparray.{name}: expected a floating dtype; got {x.dtype}")
    A = x if x.layout == "coo" else x.to_layout("coo")
    A = A.coalesce()
    ndim, s = A.ndim, A.sparse_ndim
    axes = tuple(range(ndim)) if axis is None else tuple(a % ndim for a in ((axis,) if isinstance(axis, int) else axis))
    if any(a >= s for a in axes):
        return _refuse(func, name, args, kwargs)
    kept = [d for d in range(s) if d not in axes]
    ones = A._replace_values(xp.ones(A._values.shape, dtype=xp.int64), xp.zeros((), dtype=xp.int64))
    counts = reductions.sum(ones, axis=axes).to_dense()
    total = reductions.sum(_stand_in(A, 0), axis=axes).to_dense()
    mean = total / xp.astype(xp.where(counts > 0, counts, 1), total.dtype)
    kept_shape = tuple(A.shape[d] for d in kept)
    if kept:
        line = linear_keys(xp, xp.stack([A._indices[d] for d in kept]), kept_shape)
        per_entry = xp.take(xp.reshape(mean, (math.prod(kept_shape), *A.dense_shape)), line, axis=0)
    else:
        per_entry = xp.reshape(mean, (1, *A.dense_shape))
    dev = A._values - per_entry
    sq = xp.real(dev * xp.conj(dev)) if xp.isdtype(dev.dtype, "complex floating") else dev * dev
    squares = A._replace_values(sq, xp.zeros((), dtype=sq.dtype))
    ss = reductions.sum(squares, axis=axes).to_dense()
    with _quiet():
        out = ss / (xp.astype(counts, ss.dtype) - correction)
        if name == "std":
            out = xp.sqrt(out)
    present = counts > 0
    if keepdims:
        shape = tuple(1 if d in axes else n for d, n in enumerate(A.shape))
        out, present = xp.reshape(out, shape), xp.reshape(present, shape)
    return _present(xp, out, present)


def _quiet():
    import numpy as np

    return np.errstate(divide="ignore", invalid="ignore")


def _softmax(func, name, args, kwargs):
    """``softmax``/``log_softmax`` over the stored entries of each line (the unspecified elements
    are absent, as ``torch.sparse.softmax`` reads them): the fill stands in as -inf, the result's
    entries are A's."""
    x = args[0]
    out = func(_stand_in(x, "lowest"), *args[1:], **kwargs)
    return _combine(lambda _, y: y, name, (x, out))  # read at x's entries only (an all-absent line stays absent)


def _matmul(func, name, args, kwargs):
    """``A @ X`` with an undefined fill: the plus-times product over stored entries (GraphBLAS's
    ``mxm``/``mxv``): a result element exists where a stored entry meets an element of the other
    operand; with a dense operand, every row of A with an entry (column, for ``X @ A``). Both
    operands sparse: both fills undefined."""
    from . import reductions

    x1, x2 = args[:2]
    sparse = [x for x in (x1, x2) if isinstance(x, SparseArray)]
    if any(x.fill_is_defined for x in sparse):
        raise ValueError("sparray.matmul: one operand's fill is undefined and the other's is defined; give both the "
                         "same kind (sparray.asarray(A, fill_value=...)), or use sparray.graph.matmul")
    out = func(*(_stand_in(x) if isinstance(x, SparseArray) else x for x in (x1, x2)))
    if len(sparse) == 2:
        return _undefine(out)
    A = sparse[0]
    xp = A._xp
    ones = A._replace_values(xp.ones(A._values.shape, dtype=xp.int64), xp.zeros((), dtype=xp.int64))
    if A.ndim < 2:
        raise ValueError("sparray.matmul: an undefined-fill vector times a dense operand has no rule yet; use sparray.graph.matmul")
    along = -1 if A is x1 else -2  # the dim the product sums over: a line present when it holds an entry
    counts = reductions.sum(ones, axis=along).to_dense()
    dense = out.to_dense() if isinstance(out, SparseArray) else out
    present = counts > 0
    other = x2 if A is x1 else x1
    if other.ndim >= 2:  # a matrix operand: the presence of each line spreads along its columns (rows)
        present = xp.expand_dims(present, axis=-1 if A is x1 else -2)
    return _present(xp, dense, xp.broadcast_to(present, tuple(dense.shape)))


def _present(xp, dense, present):
    """A COO of ``dense``'s elements where ``present``, fill undefined (0-d: one entry or none)."""
    from .._array.coo import COO
    from .._core.keys import index_dtype_for, unravel

    shape = tuple(int(s) for s in dense.shape)
    flat = xp.reshape(dense, (-1,))
    keys = xp.astype(xp.nonzero(xp.reshape(present, (-1,)))[0], xp.int64)
    values = xp.take(flat, keys)
    indices = unravel(xp, keys, shape, index_dtype_for(xp, shape, keys.shape[0]))
    return COO._from_parts(xp, indices, values, shape, undefined_fill(xp, dense.dtype), coalesced=True)


def _dense_answer(func, name, args, kwargs):
    """Functions whose answer counts or finds stored non-zero entries (stand-in 0 is never non-zero)."""
    a, k = _swap(args, kwargs, lambda x: _stand_in(x, 0) if has_undefined(x) else x)
    return func(*a, **k)


def _asarray(func, name, args, kwargs):
    x = args[0]
    fill_value = kwargs.get("fill_value")
    rest = {k: v for k, v in kwargs.items() if k != "fill_value"}
    if isinstance(x, SparseArray) and has_undefined(x) and fill_value is not None and fill_value is not undefined:
        x = with_fill(x, normalize_fill(x._xp, fill_value, x.dtype, x.dense_shape, "asarray"))
        return func(x, *args[1:], **rest)  # the entries kept; the new fill at the unspecified elements
    out = func(_stand_in(x), *args[1:], **rest)
    return _undefine(out)


def getitem(A, key):
    """``A[key]`` of an undefined-fill array: its entries indexed; an index that lands on an
    unspecified element gives an undefined element."""
    from .indexing import getitem as general

    return _undefine(general(_stand_in(A), key))


def _refuse(func, name, args, kwargs):
    raise TypeError(
        f"sparray.{name}: an undefined fill (sparray.undefined) has no meaning here yet (docs/graphs.md lists what "
        f"takes one); give the array a fill first (sparray.asarray(A, fill_value=v)), or use sparray.graph's "
        f"functions, which read only the stored entries"
    )


STRUCTURAL = (
    "reshape", "permute_dims", "matrix_transpose", "moveaxis", "expand_dims", "squeeze", "flip", "roll",
    "broadcast_to", "broadcast_arrays", "concat", "stack", "take", "tile", "repeat", "tril", "triu", "unstack",
    "astype", "transpose",
)  # fmt: skip
REDUCTIONS = ("sum", "prod", "max", "min", "any", "all", "mean")

_RULES = {
    **{n: _structural for n in STRUCTURAL},
    **{n: _reduction for n in REDUCTIONS},
    "asarray": _asarray,
    "count_nonzero": _dense_answer,
    "argmax": _arg_extreme,
    "argmin": _arg_extreme,
    "var": _variance,
    "std": _variance,
    "softmax": _softmax,
    "log_softmax": _softmax,
    "matmul": _matmul,
    "where": _where,
    "nonzero": _dense_answer,
    "clip": _entries_only,
    "save_npz": None,  # io keeps the fill array as it is (empty)
}


def _family(name):
    rule = _RULES.get(name)
    if rule is not None or name in _RULES:
        return rule
    from .elementwise import BINARY, UNARY

    if name in UNARY:
        return _entries_only
    if name in BINARY:
        return _elementwise
    return _refuse


def call(name, func, args, kwargs):
    """``func`` (the public function ``name``) called with an undefined-fill array among its arguments."""
    rule = _family(name)
    if rule is None:
        return func(*args, **kwargs)
    return rule(func, name, args, kwargs)
