"""Generic (pure array-API) references of the graph kernels: semiring products, monoid
reductions, select and index-apply on CSR parts, for every namespace (CuPy without its own
kernels, the simulated device, array_api_strict) and as the cross-check of the numba kernels.

The registry's positional contract (the numba entries in ``kernels/cpu/semiring.py`` have it):

- ``semiring_mxv(crow, col, values, x, x_present, semiring, mask, mask_values, complement,
  structural, ncols, dtype) -> (y, present)``: ``y<mask> = A @ x``;
- ``semiring_vxm(crow, col, values, ncols, x, x_present, semiring, mask, mask_values, complement,
  structural, x_indices, dtype) -> (y, present)``: ``y<mask> = x @ A``;
- ``semiring_mxm_dot(a_crow, a_col, a_values, bt_crow, bt_col, bt_values, inner, ncols, semiring,
  mask, structural, dtype)``: the same product from B.T's CSR (B's CSC, B inner x ncols), the
  mask given and not complemented (each entry a dot product of two rows);
- ``semiring_mxm(a_crow, a_col, a_values, b_crow, b_col, b_values, ncols, semiring, mask,
  complement, structural, dtype) -> (crow, col, values)``: ``C<M> = A @ B``;
- ``graph_reduce(crow, col, values, monoid, axis, ncols, dtype) -> (y, present)``;
- ``graph_select(crow, col, values, rule, thunk) -> (crow, col, values)``;
- ``graph_apply_index(crow, col, values, op, thunk, dtype) -> values``;
- ``bitmap_compact(y, present, index_dtype) -> (positions, values)`` (layout "dense"): a bitmap
  vector's present positions, increasing, and y there.

Semantics are the table's (``kernels/semirings.py``): an output entry exists where a product
exists; its value is the monoid over its products (floating min/max ignore NaN as ``fmin``/
``fmax``; on bool values the operators are renamed as GraphBLAS does; lor/land read values as
``!= 0``); positional multiply ops give indices. The products are formed explicitly (one per
pair of entries that meet) and reduced by key with a segmented scan: work and memory of the
number of products, which the kernels avoid; masks filter the products (the kernels skip them).

>>> import numpy as np, array_api_compat.numpy as xp
>>> y, p = mxv_generic(xp, np.array([0, 2, 3, 3]), np.array([1, 2, 2]), np.array([1.0, 5.0, 1.0]),
...                    np.zeros(3), None, "min_plus", None, None, False, True, None, None)
>>> y.tolist(), p.tolist()
([1.0, 1.0, 0.0], [True, True, False])
"""

from __future__ import annotations

import array_api_compat
import numpy as np

from ..kernels import semirings as T
from .compressed_generic import expand_offsets
from .dispatch import register
from .segments import segment_scan_sorted

__all__ = ["mxv_generic", "vxm_generic", "mxm_generic", "reduce_generic", "select_generic", "apply_index_generic"]


def _dt(xp, dtype):
    return getattr(xp, np.dtype(dtype).name if np.dtype(dtype).name != "bool" else "bool")


def _dev(x):
    return array_api_compat.device(x)


# --- the operators -------------------------------------------------------------------------------------
def _fminmax(xp, which):
    pick = xp.minimum if which == "min" else xp.maximum

    def f(a, b):
        if not xp.isdtype(a.dtype, "real floating"):
            return pick(a, b)
        return xp.where(xp.isnan(a), b, xp.where(xp.isnan(b), a, pick(a, b)))

    return f


def _combine(xp, monoid, dtype):
    """``combine(later, earlier)`` of the monoid on values of ``dtype``, for the segmented scan."""
    name = monoid.on_bool if np.dtype(dtype).kind == "b" else monoid.name
    return {
        "plus": xp.add, "times": xp.multiply, "min": _fminmax(xp, "min"), "max": _fminmax(xp, "max"),
        "any": lambda later, earlier: earlier, "lor": xp.logical_or, "land": xp.logical_and,
    }[name]  # fmt: skip


def _int_div(xp, a, b, dtype):
    """GraphBLAS's integer division: toward zero; x / 0 is 0 for x == 0, else the type's max or min."""
    info = np.iinfo(np.dtype(dtype))
    safe = xp.where(b == 0, xp.ones_like(b), b)
    q = a // safe  # floor; toward zero differs where the remainder is non-zero and the signs differ
    if np.dtype(dtype).kind == "i":
        q = xp.where((a % safe != 0) & ((a < 0) != (safe < 0)), q + 1, q)
    big, small = xp.asarray(info.max, dtype=a.dtype), xp.asarray(info.min, dtype=a.dtype)
    by_zero = xp.where(a == 0, xp.zeros_like(a), xp.where(a > 0, big, small))
    return xp.where(b == 0, by_zero, q)


def _multiply(xp, mul, a, b, i, k, j, dtype):
    """The products ``a * b`` (per entry pair) of the multiply op in ``dtype``; ``i, k, j`` the
    pairs' indices (positional ops). Silent on NumPy data as the kernels are (``inf * 0`` is nan,
    ``x / 0`` inf: GraphBLAS's values, no RuntimeWarning)."""
    with np.errstate(all="ignore"):
        return _products(xp, mul, a, b, i, k, j, dtype)


def _products(xp, mul, a, b, i, k, j, dtype):
    if mul.positional:
        idx = {"firsti": i, "firstj": k, "secondi": k, "secondj": j}[mul.name.rstrip("1")]
        out = xp.astype(idx, _dt(xp, dtype))
        return out + 1 if mul.name.endswith("1") else out
    Z = _dt(xp, dtype)
    name = mul.on_bool if np.dtype(dtype).kind == "b" else mul.name
    n = (a if a is not None else b if b is not None else i).shape[0]
    ones = xp.ones((n,), dtype=Z, device=_dev(i))
    a = ones if a is None else xp.astype(a, Z)
    b = ones if b is None else xp.astype(b, Z)
    if name in ("land", "lor", "lxor"):
        f = {"land": xp.logical_and, "lor": xp.logical_or, "lxor": xp.logical_xor}[name]
        return xp.astype(f(a != 0, b != 0), Z)
    if name == "div":
        return _int_div(xp, a, b, dtype) if np.dtype(dtype).kind in "iu" else a / b
    return {
        "times": lambda: a * b, "plus": lambda: a + b, "first": lambda: a, "second": lambda: b, "pair": lambda: ones,
        "min": lambda: _fminmax(xp, "min")(a, b), "max": lambda: _fminmax(xp, "max")(a, b), "minus": lambda: a - b,
    }[name]()  # fmt: skip


def _reduce_by_key(xp, keys, values, monoid, dtype):
    """(unique keys, reduced values) of ``values`` grouped by ``keys`` (any order; stable)."""
    if keys.shape[0] == 0:
        return keys, values
    if monoid.name in ("lor", "land"):
        values = values != 0 if values.dtype != xp.bool else values
    perm = xp.argsort(keys, stable=True)
    sk, sv = xp.take(keys, perm), xp.take(values, perm)
    starts = xp.concat([xp.ones((1,), dtype=xp.bool, device=_dev(sk)), sk[1:] != sk[:-1]])
    acc, _, end_pos = segment_scan_sorted(xp, starts, sv[:, None], _combine(xp, monoid, sv.dtype))
    return xp.take(sk, end_pos), xp.take(acc[:, 0], end_pos)


def _scatter(xp, n, keys, values, dtype):
    """``(y, present)`` of length n from sorted unique ``keys`` and their ``values`` (a gather:
    the array API has no scatter)."""
    Z = _dt(xp, dtype)
    every = xp.arange(n, dtype=xp.int64, device=_dev(keys))
    if keys.shape[0] == 0:
        return xp.zeros((n,), dtype=Z, device=_dev(keys)), xp.zeros((n,), dtype=xp.bool, device=_dev(keys))
    pos = xp.clip(xp.searchsorted(keys, every), 0, keys.shape[0] - 1)
    present = xp.take(keys, pos) == every
    y = xp.where(present, xp.astype(xp.take(values, pos), Z), xp.zeros((), dtype=Z))
    return y, present


def _vector_mask(xp, n, mask, mask_values, complement, structural):
    """The bool (n,) of output elements the mask lets through (None: all)."""
    if mask is None:
        return xp.zeros((n,), dtype=xp.bool) if complement else None
    ok = xp.astype(mask, xp.bool)
    if not structural and mask_values is not None:
        ok = ok & (mask_values != 0)
    return ~ok if complement else ok


def _kept(xp, arrays, keep):
    return [None if a is None else a[keep] for a in arrays]


def _out_dtype(sr, a, b, dtype):
    return T.result_dtype(sr, None if a is None else np.dtype(str(a.dtype).split(".")[-1]),
                          None if b is None else np.dtype(str(b.dtype).split(".")[-1]), dtype)


# --- products --------------------------------------------------------------------------------------------
@register("semiring_mxv", "csr", "generic")
def mxv_generic(xp, crow, col, values, x, x_present, semiring, mask, mask_values, complement, structural, ncols, dtype):
    sr = T.semiring(semiring)
    M = crow.shape[0] - 1
    Z = _out_dtype(sr, values, x, dtype)
    rows = expand_offsets(xp, crow, xp.int64)
    k = xp.astype(col, xp.int64)
    keep = None
    row_ok = _vector_mask(xp, M, mask, mask_values, complement, structural)
    if row_ok is not None:
        keep = xp.take(row_ok, rows)
    if x_present is not None:
        here = xp.take(xp.astype(x_present, xp.bool), k)
        keep = here if keep is None else keep & here
    a = values
    if keep is not None:
        rows, k, a = _kept(xp, [rows, k, a], keep)
    b = None if x is None else xp.take(x, k)
    prod = _multiply(xp, sr.multiply, a if sr.multiply.reads in ("both", "first") else None,
                     b if sr.multiply.reads in ("both", "second") else None, rows, k, xp.zeros_like(k), Z)
    keys, acc = _reduce_by_key(xp, rows, prod, sr.monoid, Z)
    return _scatter(xp, M, keys, acc, Z)


@register("semiring_vxm", "csr", "generic")
def vxm_generic(xp, crow, col, values, ncols, x, x_present, semiring, mask, mask_values, complement, structural, x_indices, dtype):
    sr = T.semiring(semiring)
    M = crow.shape[0] - 1
    Z = _out_dtype(sr, x, values, dtype)
    rows = expand_offsets(xp, crow, xp.int64)
    j = xp.astype(col, xp.int64)
    if x_indices is not None:  # a sparse x: its value per row of A (rows it does not name dropped)
        idx = xp.astype(x_indices, xp.int64)
        order = xp.argsort(idx, stable=True)
        sidx = xp.take(idx, order)
        if sidx.shape[0]:
            pos = xp.clip(xp.searchsorted(sidx, rows), 0, sidx.shape[0] - 1)
            here = xp.take(sidx, pos) == rows
        else:  # an empty x: no row is read (a value of 0 stands in for the dropped products)
            pos, here = xp.zeros_like(rows), xp.zeros(rows.shape, dtype=xp.bool)
            x = None if x is None else xp.zeros((1,), dtype=x.dtype)
            order = xp.zeros((1,), dtype=xp.int64)
        xv = None if x is None else xp.take(xp.take(x, order), pos)
    else:
        here = None if x_present is None else xp.take(xp.astype(x_present, xp.bool), rows)
        xv = None if x is None else xp.take(x, rows)
    keep = here
    col_ok = _vector_mask(xp, ncols, mask, mask_values, complement, structural)
    if col_ok is not None:
        ok = xp.take(col_ok, j)
        keep = ok if keep is None else keep & ok
    a = values
    if keep is not None:
        rows, j, a, xv = _kept(xp, [rows, j, a, xv], keep)
    prod = _multiply(xp, sr.multiply, xv if sr.multiply.reads in ("both", "first") else None,
                     a if sr.multiply.reads in ("both", "second") else None, xp.zeros_like(rows), rows, j, Z)
    keys, acc = _reduce_by_key(xp, j, prod, sr.monoid, Z)
    return _scatter(xp, ncols, keys, acc, Z)


@register("semiring_mxm", "csr", "generic")
def mxm_generic(xp, a_crow, a_col, a_values, b_crow, b_col, b_values, ncols, semiring, mask, complement, structural, dtype):
    sr = T.semiring(semiring)
    M = a_crow.shape[0] - 1
    Z = _out_dtype(sr, a_values, b_values, dtype)
    rows = expand_offsets(xp, a_crow, xp.int64)
    k = xp.astype(a_col, xp.int64)
    bc = xp.astype(b_crow, xp.int64)
    lengths = xp.take(bc[1:] - bc[:-1], k)
    total = int(xp.sum(lengths)) if lengths.shape[0] else 0
    entry = xp.repeat(xp.arange(k.shape[0], dtype=xp.int64, device=_dev(k)), lengths) if total else xp.zeros((0,), dtype=xp.int64)
    first = xp.cumulative_sum(lengths) - lengths
    offset = xp.arange(total, dtype=xp.int64, device=_dev(k)) - xp.take(first, entry)
    b_pos = xp.take(xp.take(bc, k), entry) + offset
    i, kk = xp.take(rows, entry), xp.take(k, entry)
    j = xp.astype(xp.take(b_col, b_pos), xp.int64)
    keys = i * ncols + j
    if mask is not None or complement:  # no mask, complemented: nothing is let through
        keep = _in_mask(xp, keys, mask, ncols, structural)
        keep = ~keep if complement and mask is not None else keep
        entry, b_pos, i, kk, j, keys = _kept(xp, [entry, b_pos, i, kk, j, keys], keep)
    a = None if a_values is None else xp.take(a_values, entry)
    b = None if b_values is None else xp.take(b_values, b_pos)
    prod = _multiply(xp, sr.multiply, a if sr.multiply.reads in ("both", "first") else None,
                     b if sr.multiply.reads in ("both", "second") else None, i, kk, j, Z)
    ukeys, acc = _reduce_by_key(xp, keys, prod, sr.monoid, Z)
    out_rows = ukeys // ncols if ncols else ukeys
    idt = xp.int32 if max(M, ncols, ukeys.shape[0]) < 2**31 else xp.int64
    crow = xp.astype(xp.searchsorted(out_rows, xp.arange(M + 1, dtype=xp.int64, device=_dev(ukeys))), idt)
    return crow, xp.astype(ukeys % ncols if ncols else ukeys, idt), xp.astype(acc, _dt(xp, Z))


@register("semiring_mxm_dot", "csr", "generic")
def mxm_dot_generic(xp, a_crow, a_col, a_values, bt_crow, bt_col, bt_values, inner, ncols, semiring, mask, structural,
                    dtype):
    """``C<mask> = A @ B`` from A's CSR and B.T's CSR (B's CSC), mask not complemented: B's CSR by
    one stable sort of B.T's entries, then :func:`mxm_generic`."""
    rows = expand_offsets(xp, bt_crow, xp.int64)  # B.T's rows: B's columns
    k = xp.astype(bt_col, xp.int64)
    perm = xp.argsort(k * max(int(ncols), 1) + rows, stable=True)
    b_col = xp.take(rows, perm)
    b_values = None if bt_values is None else xp.take(bt_values, perm)
    b_crow = xp.searchsorted(xp.take(k, perm), xp.arange(int(inner) + 1, dtype=xp.int64, device=_dev(k)))
    return mxm_generic(xp, a_crow, a_col, a_values, b_crow, b_col, b_values, ncols, semiring, mask, False, structural,
                       dtype)


def _in_mask(xp, keys, mask, ncols, structural):
    if mask is None:
        return xp.zeros(keys.shape, dtype=xp.bool)
    m_crow, m_col = mask[0], mask[1]
    m_values = mask[2] if len(mask) > 2 else None
    m_rows = expand_offsets(xp, m_crow, xp.int64)
    m_keys = m_rows * ncols + xp.astype(m_col, xp.int64)
    if not structural and m_values is not None:
        m_keys = m_keys[m_values != 0]
    if m_keys.shape[0] == 0:
        return xp.zeros(keys.shape, dtype=xp.bool)
    m_keys = xp.sort(m_keys)
    pos = xp.clip(xp.searchsorted(m_keys, keys), 0, m_keys.shape[0] - 1)
    return xp.take(m_keys, pos) == keys


# --- reductions, select, apply ----------------------------------------------------------------------------
@register("graph_reduce", "csr", "generic")
def reduce_generic(xp, crow, col, values, monoid, axis, ncols, dtype):
    m = T.MONOIDS[monoid] if isinstance(monoid, str) else monoid
    if m.name in ("lor", "land"):
        Z = np.dtype(np.bool_)
    else:
        Z = np.dtype(str(values.dtype).split(".")[-1]) if values is not None else np.dtype(dtype or np.int64)
    M = crow.shape[0] - 1
    nse = col.shape[0]
    v = xp.ones((nse,), dtype=_dt(xp, Z), device=_dev(col)) if values is None else xp.astype(values, _dt(xp, Z))
    if axis is None:
        keys, acc = _reduce_by_key(xp, xp.zeros((nse,), dtype=xp.int64, device=_dev(col)), v, m, Z)
        if keys.shape[0] == 0:
            return np.dtype(Z).type(0), False
        return acc[0], True
    if axis in (1, -1):
        keys, acc = _reduce_by_key(xp, expand_offsets(xp, crow, xp.int64), v, m, Z)
        return _scatter(xp, M, keys, acc, Z)
    if axis in (0, -2):
        keys, acc = _reduce_by_key(xp, xp.astype(col, xp.int64), v, m, Z)
        return _scatter(xp, ncols, keys, acc, Z)
    raise ValueError(f"graph reduce: axis must be None, 0 or 1 (or -1, -2) for a matrix, got {axis!r}")


@register("graph_select", "csr", "generic")
def select_generic(xp, crow, col, values, rule, thunk):
    if rule not in T.SELECT_RULES:
        raise ValueError(f"graph select: unknown rule {rule!r}; expected one of {list(T.SELECT_RULES)}")
    i = expand_offsets(xp, crow, xp.int64)
    j = xp.astype(col, xp.int64)
    if rule in T.POSITIONAL_RULES:
        t = 0 if thunk is None else int(thunk)
        keep = {"tril": lambda: j <= i + t, "triu": lambda: j >= i + t, "diag": lambda: j == i + t,
                "offdiag": lambda: j != i + t, "rowle": lambda: i <= t, "rowgt": lambda: i > t,
                "colle": lambda: j <= t, "colgt": lambda: j > t}[rule]()  # fmt: skip
    else:
        v = xp.ones(j.shape, dtype=xp.int64) if values is None else values
        t = xp.asarray(thunk, dtype=v.dtype)
        keep = {"lt": xp.less, "le": xp.less_equal, "gt": xp.greater, "ge": xp.greater_equal, "eq": xp.equal,
                "ne": xp.not_equal}[rule](v, t)  # fmt: skip
    prefix = xp.concat([xp.zeros((1,), dtype=xp.int64, device=_dev(j)), xp.cumulative_sum(xp.astype(keep, xp.int64))])
    new_crow = xp.astype(xp.take(prefix, xp.astype(crow, xp.int64)), crow.dtype)
    return new_crow, col[keep], None if values is None else values[keep]


@register("graph_apply_index", "csr", "generic")
def apply_index_generic(xp, crow, col, values, op, thunk, dtype):
    if op not in T.INDEX_OPS:
        raise ValueError(f"graph apply_index: unknown op {op!r}; expected one of {list(T.INDEX_OPS)}")
    i = expand_offsets(xp, crow, xp.int64)
    j = xp.astype(col, xp.int64)
    out = {"rowindex": i, "colindex": j, "diagindex": j - i}[op] + int(thunk or 0)
    return xp.astype(out, xp.int64 if dtype is None else _dt(xp, dtype))


@register("bitmap_compact", "dense", "generic")
def bitmap_compact_generic(xp, y, present, index_dtype):
    """The present positions of the bitmap vector (y, present), increasing, and y's values there."""
    keys = xp.nonzero(present)[0]
    return xp.astype(keys, index_dtype), xp.take(y, keys)
