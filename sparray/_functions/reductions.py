"""Reductions (sum, prod, max, min, mean, var, std, any, all) that count the unspecified elements.

How a reduction over ``axis`` of a COO array works:

1. Reduced dense axes are reduced inside each specified dense part (and inside the fill).
2. Specified elements are grouped by their position in the kept sparse dims (registry op
   ``group_reduce``: dense accumulators or a radix sort in numba; sort-and-scan generically).
3. Each group holds ``cnt`` specified positions out of ``n_red`` (the number of positions along
   the reduced sparse axes); the other ``n_red - cnt`` positions hold the fill. So
   ``sum = seg_sum + (n_red - cnt) * fill``, ``prod = seg_prod * fill ** (n_red - cnt)``,
   ``max = max(seg_max, fill)`` when ``cnt < n_red``, and ``var`` is two-pass: the group mean first,
   then squared deviations of the specified values and ``(n_red - cnt)`` times the fill's.
4. The result's fill is the same formula for an empty group (``cnt = 0``).

Reducing every sparse dim gives a dense array (as in PyTorch); otherwise a COO over the kept
sparse dims. On a GPU (CuPy or simulated data) every group is kept, the empty ones too (their
value is the empty group's: explicit elements that may equal the result's fill), so no size is
read back from the device (``keeps_all_groups`` in ``_reductions_compressed.py``); the fill
shortcuts of ``_finish`` are then taken from what the host knows, not from a ``bool()``. ``keepdims`` keeps size-1 dims in place. NaN propagates as in NumPy.

>>> import sparray
>>> A = sparray.COO([[0, 2]], [5.0, 7.0], shape=(4,), fill_value=1.0)
>>> float(sparray.sum(A))
14.0
"""

from __future__ import annotations

import builtins  # any, min, max... are this module's reductions
import math

from .._engine import dispatch as _dispatch
from .._products import lean as _lean
from .._array.base import SparseArray
from .._layout.conversion import match_layout
from .._core.fill import array_fill_is_zero, sum_zero
from .._core.keys import linear_keys, unravel
from .._core.namespace import namespace_of
from .reductions_compressed import keeps_all_groups, reduce_all_groups
from .._core.validation import normalize_axes

__all__ = ["sum", "prod", "max", "min", "mean", "var", "std", "any", "all"]


def _normalize_axis(axis, ndim, who):
    return tuple(sorted(normalize_axes(axis, ndim, who)))


def _result_dtype(xp, kind, dtype, given):
    probe = xp.zeros((1,), dtype=dtype)
    if kind in ("sum", "prod"):
        return getattr(xp, kind)(probe, dtype=given).dtype
    if kind in ("mean", "var", "std"):
        return getattr(xp, kind)(probe).dtype
    if kind in ("any", "all"):
        return xp.bool
    return dtype


class _Groups:
    """Specified elements of a COO grouped by their position in the kept sparse dims: keys from its
    index rows (compressed arrays group their entries in ``_reductions_compressed.py``).
    ``sorted``: the keys are non-decreasing (a hint for the scatter kernel)."""

    def __init__(self, xp, A, sparse_axes):
        s = A.sparse_ndim
        self.kept = [d for d in range(s) if d not in sparse_axes]
        self.kept_shape = tuple(A.shape[d] for d in self.kept)
        self.n_red = math.prod(A.shape[d] for d in sparse_axes)
        self.index_dtype = A._indices.dtype
        self.sorted = self.kept == [0]  # the first index row of a row-major COO
        # runs of a coalesced COO's rows: keyed by row pointers like a CSR's (no keys to sort or
        # scan), when the pointers are not much longer than the entries
        self._runs = self.sorted and A._coalesced is True and A.shape[0] <= 4 * A.nse + 65536
        self.identity = not sparse_axes  # each specified element is its own group
        self.by_plain = False  # (a compressed array's plain indices as keys: CompressedGroups)
        self.all_groups = False  # set by the reduction: keep every group (see keeps_all_groups)
        self._coalesced = A._coalesced is True
        if self.identity:
            self.keys = None
        elif not self.kept:
            self.keys = xp.zeros((A.nse,), dtype=xp.int64)
        elif len(self.kept) == 1:
            self.keys = A._indices[self.kept[0], :]  # a view: the kernels take int32 or int64 keys
        else:
            kept_rows = A._indices if len(self.kept) == s else xp.take(A._indices, xp.asarray(self.kept, dtype=xp.int64), axis=0)
            self.keys = linear_keys(xp, kept_rows, self.kept_shape)
            if self.keys is None:
                raise NotImplementedError("reductions over sparse shapes with more than 2**63 positions")
        self.nkeys = math.prod(self.kept_shape)

    def entry_keys(self, xp):
        """Every specified element's group key."""
        return self.keys

    def reduce(self, xp, rows, op):
        """(present keys or None, per-group (G, m) result, counts (G,)) for ``rows`` (nse, m)."""
        if self.identity:
            return None, rows, xp.ones((rows.shape[0],), dtype=xp.int64)
        n = rows.shape[0]
        if self.all_groups:
            # the first index row of a coalesced COO is sorted; a single group's keys are all 0
            sorted_keys = (self.sorted and self._coalesced) or not self.kept
            return reduce_all_groups(xp, rows, op, keys=self.keys, nkeys=self.nkeys, sorted_keys=sorted_keys)
        if self._runs:
            offsets = _dispatch.call("compress_offsets", "csr", xp, self.keys, self.nkeys, xp.int64, work=n)
            return _dispatch.call("group_reduce", "csr", xp, offsets, rows, op, work=n)
        return _dispatch.call("group_reduce", "coo", xp, self.keys, rows, self.nkeys, op, work=n)


class _CooSource:
    """What a reduction over ``axes`` of the COO ``A`` reads: ``values`` ``(nse, *dense)``, the fill
    broadcast to the dense shape, the reduced dense axes (``local_reduced``) and the groups."""

    def __init__(self, xp, A, axes):
        A._check_contents()
        self.A = A
        s = A.sparse_ndim
        self.sparse_axes = [a for a in axes if a < s]
        self.dense_axes = [a - s for a in axes if a >= s]
        self.local_shape = A.dense_shape
        self.local_reduced = self.dense_axes
        self.values = A._values
        self.fill = xp.broadcast_to(A._fill, A.dense_shape)
        self.groups = _Groups(xp, A, self.sparse_axes)

    def output(self, xp, keys, result, empty_result, keepdims):
        from .._array.coo import COO

        A, groups, sparse_axes, dense_axes = self.A, self.groups, self.sparse_axes, self.dense_axes
        s = A.sparse_ndim
        dense_shape = A.dense_shape
        out_dense = tuple(
            1 if d in dense_axes else n for d, n in enumerate(dense_shape) if keepdims or d not in dense_axes
        )
        if not groups.kept and sparse_axes:
            dense = result if result.shape[0] else empty_result
            if keepdims:
                # every sparse dim is now size 1 and holds one value per dense part: a sparse array
                # with no specified element whose (dense-part) fill is that value (RFC point 5)
                fill_out = xp.reshape(dense, out_dense)
                indices = xp.zeros((s, 0), dtype=groups.index_dtype)
                values_out = xp.zeros((0, *out_dense), dtype=fill_out.dtype)
                return COO._from_parts(xp, indices, values_out, (1,) * s + out_dense, fill_out, coalesced=True)
            return xp.reshape(dense, out_dense)
        nu = result.shape[0]
        if groups.identity:
            indices = A._indices
            out_sparse = A.sparse_shape
        else:
            kept_idx = unravel(xp, keys, groups.kept_shape, groups.index_dtype)
            if keepdims:
                rows, it = [], 0
                for d in range(s):
                    if d in sparse_axes:
                        rows.append(xp.zeros((1, nu), dtype=groups.index_dtype))
                    else:
                        rows.append(kept_idx[it : it + 1, :])
                        it += 1
                indices = xp.concat(rows, axis=0) if rows else kept_idx
                out_sparse = tuple(1 if d in sparse_axes else A.shape[d] for d in range(s))
            else:
                indices = kept_idx
                out_sparse = groups.kept_shape
        values_out = xp.reshape(result, (nu, *out_dense))
        fill_out = xp.reshape(empty_result, out_dense)
        coalesced = A._coalesced if groups.identity else True  # identity groups keep A's (maybe duplicate) positions
        return COO._from_parts(xp, indices, values_out, out_sparse + out_dense, fill_out, coalesced=coalesced)


def _reduce(x, axis, keepdims, kind, dtype=None, correction=0.0):
    who = f"sparray.{kind}"
    if not isinstance(x, SparseArray):
        xp = namespace_of(x)
        kw = {"axis": axis, "keepdims": keepdims}
        if kind in ("sum", "prod") and dtype is not None:
            kw["dtype"] = dtype
        if kind in ("var", "std"):
            kw["correction"] = correction
        return getattr(xp, kind)(x, **kw)
    xp = x._xp
    axes = _normalize_axis(axis, x.ndim, who)
    given = None
    if dtype is not None:
        from .._core.dtypes import resolve_dtype

        given = resolve_dtype(xp, dtype)
    out_dt = _result_dtype(xp, kind, x.dtype, given)
    compute_dt = out_dt if kind not in ("any", "all", "max", "min") else x.dtype
    if kind in ("var", "std") and xp.isdtype(x.dtype, "complex floating"):
        compute_dt = x.dtype  # deviations are complex; only |dev|**2 (and so the result) is real
    zero_fill = array_fill_is_zero(x)
    if x.layout == "coo":
        A = x
        if not (kind == "sum" and zero_fill and compute_dt == A.dtype and A.dtype != xp.bool):
            # counts of unspecified positions need unique positions; so does a sum whose cast is
            # not linear (bool duplicates or together, a cast to int truncates the summed element)
            A = A.coalesce()
        src = _CooSource(xp, A, axes)
    else:  # compressed entries are unique by construction: no coalescing, no COO on the way
        from .reductions_compressed import CompressedSource, merges_few_major, sum_few_major

        if merges_few_major(xp, x, axes, kind, compute_dt):
            x._check_contents()
            return sum_few_major(xp, x, keepdims)
        src = CompressedSource(xp, x, axes)
    groups = src.groups
    device = keeps_all_groups(xp)  # every group kept, no host read (see the module docstring)
    groups.all_groups = device and not groups.identity
    local_shape = src.local_shape
    reduced = src.local_reduced
    kept_local = [d for d in range(len(local_shape)) if d not in reduced]
    rd = math.prod(local_shape[d] for d in reduced)
    m = math.prod(local_shape[d] for d in kept_local)
    total = groups.n_red * rd
    if kind in ("max", "min") and total == 0:
        raise ValueError(f"{who}: zero-size reduction along axis {axis!r} of shape {x.shape} has no identity")

    values, fill = src.values, src.fill
    if kind in ("any", "all"):
        if values.dtype != xp.bool:  # strict namespaces do not compare bool arrays with 0
            values, fill = values != 0, fill != 0
    elif values.dtype != compute_dt:
        values, fill = xp.astype(values, compute_dt), xp.astype(fill, compute_dt)
    n = values.shape[0]
    perm_v = [0] + [1 + d for d in kept_local] + [1 + d for d in reduced]
    perm_f = kept_local + reduced
    entries = _Entries(xp, values, perm_v, m, rd)
    fills = xp.reshape(xp.permute_dims(fill, tuple(perm_f)) if perm_f else fill, (1, m, rd))

    dense_anyway = groups.by_plain  # the grouped route of a CSR's column sums scatters into nkeys rows too
    if kind == "sum" and zero_fill and rd and groups.keys is not None and groups.kept and (
        groups.all_groups or groups.nkeys <= 4 * n + 65536 or dense_anyway
    ):
        # zero fill: no counts needed; one dense scatter-add, then keep the non-zero sums
        # keys from the first sparse dim are sorted in any row-major COO (the kernel checks,
        # and an unsorted input costs it a few steps): a streaming pass, no private accumulators.
        # Reduced local axes are folded after the scatter, on nkeys rows rather than n
        dense = _dispatch.call(
            "scatter_sum", "coo", xp, groups.keys, xp.reshape(values, (n, m * rd)), groups.nkeys, groups.sorted, work=n
        )
        if rd > 1 or perm_v != sorted(perm_v):
            dense = _local(xp, kind, entries.like(dense))
        if groups.all_groups:  # every group is kept (a device): the scatter's rows are the result
            keys, result = xp.arange(groups.nkeys, dtype=xp.int64), dense
        else:  # the non-zero sums and their keys (no gather when every key has one)
            keys, result = _dispatch.call("nonzero_rows", "dense", xp, dense, work=groups.nkeys)
    else:
        keys, result, _ = _grouped(xp, kind, groups, entries, fills, total, correction, zero_fill, device)
    empty_result = _finish(
        xp, kind, *_empty_group(xp, kind, fills), xp.zeros((1, 1), dtype=xp.int64), groups.n_red, fills, total, correction,
        zero_fill=zero_fill, device=device,
    )  # fmt: skip

    if kind in ("mean", "var", "std", "sum", "prod") and result.dtype != out_dt:
        result, empty_result = xp.astype(result, out_dt), xp.astype(empty_result, out_dt)
    if kind in ("sum", "mean"):  # NumPy's sums start from +0.0: a zero sum reads +0.0
        result, empty_result = sum_zero(xp, result), sum_zero(xp, empty_result)
    return src.output(xp, keys, result, empty_result, keepdims)


def _local(xp, kind, block):
    """Reduce the last axis (the reduced dense axes, a block's reduced rows or columns) of ``block``
    (..., rd). A short axis (up to 16) is folded slice by slice: a reduction along a length-4 last
    axis costs NumPy about five times as much (a 1e7-element BSR 4x4 block sum: 55 -> 12 ms)."""
    rd = block.shape[-1]
    if rd == 1:
        return block[..., 0]  # nothing to reduce: a view, not a copy
    boolean = block.dtype == xp.bool
    if kind in ("sum", "mean", "var", "std"):
        fold, whole = xp.add, xp.sum
    elif kind == "prod":
        fold, whole = xp.multiply, xp.prod
    elif kind in ("max", "any"):
        fold, whole = (xp.logical_or, xp.any) if boolean else (xp.maximum, xp.max)
    else:
        fold, whole = (xp.logical_and, xp.all) if boolean else (xp.minimum, xp.min)
    if rd > 16 or (boolean and kind in ("sum", "prod")):
        return whole(block, axis=-1)
    out = block[..., 0]
    for t in range(1, rd):
        out = fold(out, block[..., t])
    return out


_GROUP_OP = {"sum": "sum", "mean": "sum", "var": "sum", "std": "sum", "prod": "prod", "max": "max", "any": "max", "min": "min", "all": "min"}


def _empty_group(xp, kind, fills):
    m = fills.shape[1]
    if kind == "prod":
        return (xp.ones((1, m), dtype=fills.dtype),)
    if kind in ("any", "all", "max", "min"):
        return (fills[:, :, 0] if fills.shape[2] else xp.zeros((1, m), dtype=fills.dtype),)
    return (xp.zeros((1, m), dtype=fills.dtype),)


class _Entries:
    """The values of the specified elements (entries) as ``vals`` ``(n, m, rd)``: the kept local axes,
    then the reduced ones (``values`` ``(n, *local_shape)`` permuted by ``perm``, a copy formed on
    first use only)."""

    def __init__(self, xp, values, perm, m, rd):
        self.xp, self.values, self.perm, self.m, self.rd = xp, values, tuple(perm), m, rd
        self._vals = None

    @property
    def vals(self):
        if self._vals is None:
            n = self.values.shape[0]
            self._vals = self.xp.reshape(self.xp.permute_dims(self.values, self.perm), (n, self.m, self.rd))
        return self._vals

    def like(self, rows):
        """Rows ``(G, *local_shape)`` flattened (e.g. per-group sums of whole entries) as ``(G, m, rd)``."""
        xp = self.xp
        g = rows.shape[0]
        return xp.reshape(xp.permute_dims(xp.reshape(rows, (g, *self.values.shape[1:])), self.perm), (g, self.m, self.rd))

    def group_then_fold(self, kind, groups):
        """(keys, per-group rows (G, m), counts): each group's entries reduced whole (every local
        position), then the local reduced axes folded on the G group rows, not the n entries (the
        same result for the associative kinds, so not for var/std, whose deviations need the mean)."""
        xp, values = self.xp, self.values
        n = values.shape[0]
        keys, seg, counts = groups.reduce(xp, xp.reshape(values, (n, self.m * self.rd)), _GROUP_OP[kind])
        return keys, _local(xp, kind, self.like(seg)), counts


def _grouped(xp, kind, groups, entries, fills, total, correction, zero_fill=False, device=False):
    if entries.rd > 1 and not groups.identity and kind not in ("var", "std"):
        keys, seg, counts = entries.group_then_fold(kind, groups)
    else:
        vals = entries.vals
        rows = _local(xp, kind, vals) if vals.shape[2] else _empty_rows(xp, kind, vals)
        keys, seg, counts = groups.reduce(xp, rows, _GROUP_OP[kind])
    counts = xp.reshape(counts, (counts.shape[0], 1))
    every = groups.all_groups  # every group, empty ones too (keys: arange(nkeys)); not only the present ones
    fin = {"zero_fill": zero_fill, "device": device}
    if kind not in ("var", "std"):
        return keys, _finish(xp, kind, seg, counts, groups.n_red, fills, total, correction, present=not every, **fin), counts
    mean = _finish(xp, "mean", seg, counts, groups.n_red, fills, total, correction, **fin)
    # second pass: squared deviations from each group's mean
    if groups.identity:
        entry_mean = mean
    elif every:  # group g is row g
        entry_mean = xp.take(mean, groups.entry_keys(xp), axis=0)
    else:
        gid = xp.searchsorted(keys, groups.entry_keys(xp))
        entry_mean = xp.take(mean, gid, axis=0)
    dev = vals - xp.reshape(entry_mean, (*entry_mean.shape, 1))  # vals: set above (var/std take that path)
    sq = xp.real(dev * xp.conj(dev)) if xp.isdtype(dev.dtype, "complex floating") else dev * dev
    _, seg_dev, _ = groups.reduce(xp, xp.sum(sq, axis=-1), "sum")
    fdev = fills - xp.reshape(mean, (*mean.shape, 1))
    fsq = xp.real(fdev * xp.conj(fdev)) if xp.isdtype(fdev.dtype, "complex floating") else fdev * fdev
    missing = xp.astype(groups.n_red - counts, seg_dev.dtype)
    ss = xp.where(missing > 0, seg_dev + missing * xp.sum(fsq, axis=-1), seg_dev)  # 0 * inf is no term
    return keys, _spread(xp, kind, ss, total, correction), counts


def _empty_rows(xp, kind, vals):
    n, m, _ = vals.shape
    if kind in ("prod", "all"):
        return xp.ones((n, m), dtype=vals.dtype)
    return xp.zeros((n, m), dtype=vals.dtype)


def _spread(xp, kind, ss, total, correction):
    # array API: the variance is nan when N - correction <= 0 (not inf, nor negative)
    var = ss / (total - correction) if total - correction > 0 else ss * float("nan")
    return xp.sqrt(var) if kind == "std" else var


def _finish(xp, kind, seg, counts, n_red, fills, total, correction, present=False, zero_fill=False, device=False):
    """Combine a group's reduced specified part with its ``n_red - counts`` fill positions.
    ``present``: every group has ``counts >= 1`` (the groups the kernels return; not the empty group).
    ``zero_fill``: the array's fill is known to be zero (so is ``fr``). ``device``: no ``bool()``
    of device data: the shortcuts that would read one are skipped for the always-correct ``where``."""
    fr = _local(xp, kind, fills) if fills.shape[2] else _empty_rows(xp, kind, fills)
    missing = n_red - counts
    if kind in ("sum", "mean") and (zero_fill or (not device and bool(xp.all(fr == 0)))):
        out = seg  # a zero fill adds nothing (fr is one row: a cheap test that saves passes over seg)
        return out / total if kind == "mean" else out
    if kind in ("sum", "mean", "var", "std"):
        some = missing > 0
        out = seg + xp.astype(missing, seg.dtype) * fr
        if device or not bool(xp.all(some)):  # a full group takes no fill term (0 * nan would be one)
            out = xp.where(some, out, seg)
        if kind == "mean":
            out = out / total
        elif kind in ("var", "std"):  # only reached for the empty group: all positions hold the fill
            mean = out / total
            dev = fills - xp.reshape(mean, (*mean.shape, 1))
            sq = xp.real(dev * xp.conj(dev)) if xp.isdtype(dev.dtype, "complex floating") else dev * dev
            return _spread(xp, kind, xp.astype(xp.asarray(n_red), sq.dtype) * xp.sum(sq, axis=-1), total, correction)
        return out
    if kind == "prod":
        return seg * xp.pow(fr, xp.astype(missing, fr.dtype))
    combine = {"max": xp.maximum, "min": xp.minimum, "any": xp.logical_or, "all": xp.logical_and}[kind]
    if present:  # every group holds a specified element: no group of fill only, fewer passes
        # (a where over (G, 1) counts costs 4x the combine: skipped when no group is full)
        full = counts >= n_red
        return xp.where(full, seg, combine(seg, fr)) if device or bool(xp.any(full)) else combine(seg, fr)
    some_missing = missing > 0
    none_specified = counts == 0
    identity = xp.full_like(fr, kind == "all") if kind in ("any", "all") else fr  # max/min: total > 0 here
    only_fill = xp.where(some_missing, fr, identity)
    return xp.where(none_specified, only_fill, xp.where(some_missing, combine(seg, fr), seg))


def _make(kind):
    if kind == "sum":

        def func(x, /, *, axis=None, dtype=None, keepdims=False):
            if dtype is None and not keepdims and isinstance(x, SparseArray) and (type(axis) is int or axis is None):
                lean = _lean.sum_axis(x, axis)  # a 2-D CSR or CSC: straight to the kernel
                if lean is not None:
                    return lean
            return match_layout(_reduce(x, axis, keepdims, kind, dtype=dtype), x)

    elif kind == "prod":

        def func(x, /, *, axis=None, dtype=None, keepdims=False):
            return match_layout(_reduce(x, axis, keepdims, kind, dtype=dtype), x)

    elif kind in ("var", "std"):

        def func(x, /, *, axis=None, correction=0.0, keepdims=False):
            return match_layout(_reduce(x, axis, keepdims, kind, correction=correction), x)

    elif kind in ("max", "min"):

        def func(x, /, *, axis=None, keepdims=False):
            if not keepdims and isinstance(x, SparseArray) and (type(axis) is int or axis is None):
                lean = _lean.reduce_axis_device(x, kind, axis)  # a 2-D CSR or CSC on a GPU: straight to the kernel
                if lean is not None:
                    return lean
            return match_layout(_reduce(x, axis, keepdims, kind), x)

    else:

        def func(x, /, *, axis=None, keepdims=False):
            return match_layout(_reduce(x, axis, keepdims, kind), x)

    func.__name__ = func.__qualname__ = kind
    func.__doc__ = (
        f"``{kind}`` over ``axis`` (int, tuple or None), unspecified elements counted through the fill value.\n\n"
        "Returns a dense array when every sparse (or batch) dim is reduced, else a sparse array over the kept\n"
        "dims: in the input's layout when the result has at least two non-dense dims, else COO."
    )
    return func


for _kind in __all__:
    globals()[_kind] = _make(_kind)
