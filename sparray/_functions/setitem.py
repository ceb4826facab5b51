"""``A[key] = value`` for every layout: NumPy's assignment semantics, the fill value kept.

The key is anything ``A[key]`` accepts (ints, slices with any step, ``...``, ``None``, integer
arrays, boolean masks dense or sparse, 0-d booleans); ``value`` is a Python scalar, a dense array
of A's namespace or a SparseArray, broadcast to the shape ``R`` of ``A[key]`` as NumPy broadcasts
it (leading unit dims of the value are dropped). Where one element is targeted twice (repeated
integer indices) the last assignment in row-major order of ``R`` wins, as in NumPy.

Semantics:

- an element that gets the fill value exactly (``sparray._core.fill.same_value``: ``-0.0`` is not the
  fill ``+0.0``) becomes unspecified: a specified position whose whole dense part (block, for
  BSR/BSC) now holds the fill is removed; positions the key does not touch are left as they are,
  even when they hold the fill;
- any other value overwrites a specified element or adds a position (its other dense-part
  elements hold the fill);
- ``A.dtype``, ``A.shape``, ``A.fill_value``, the layout, the blocksize and the index dtype
  (while it fits) are kept. COO comes out coalesced; compressed arrays keep sorted unique indices
  (a batched one pads its batches to one nse with fill-valued entries, as conversions do).
- Casting: a Python scalar must be compatible with ``A.dtype`` as the standard says (bool for
  bool; int, within range, for integers and floats; int or float for real floats; any for
  complex): else TypeError (ValueError out of range). An array value is cast with NumPy's
  ``same_kind`` rule (the rule of NumPy's in-place operators): ``float64 -> float32`` and
  ``int64 -> int8`` are cast as ``astype`` casts; a float array into an int array, or a
  complex one into a real array, raises TypeError where NumPy's ``a[k] = v`` would truncate or
  drop the imaginary part silently.

Views: assignment is copy-on-write. New components are built and rebound on ``A`` itself, so every
name bound to ``A`` sees the change; arrays that merely shared A's buffers (``A.mT``, a row slice
``A[i:j]`` of a CSR, the results of element-wise functions, which share A's index arrays) keep the
old contents. NumPy writes through views; sparray cannot, since an assignment may add or remove
positions (no fixed-size buffer can take them), and its operations share index buffers freely, so
writing into a buffer in place would change unrelated arrays (docs/array_object.md).

How (``_assign_coo``), on the coalesced COO form of ``A`` with ``m`` elements per dense part:

1. the specified elements the key reaches: ``M[key]`` (``getitem``) of a COO with A's positions
   whose values number A's elements; each of its entries is (output coordinate, element);
2. the unspecified elements the key reaches that may differ from the fill: the value's specified
   elements when its fill equals A's (a scalar fill: none at all), else every element of ``R``
   (the assignment then specifies all of them);
3. repeated targets: the advanced indices' broadcast positions are ranked, and only the last one
   per distinct target is kept (``_KeyMap.last_b``);
4. the new values are read from the value at the output coordinates; the touched rows of A's
   values are rewritten (a gather, no scatter, so every namespace runs it), rows that became all
   fill are dropped, new rows are built over the fill, and both are merged by position.

Cost: O(nse * m) for A's rows, O(|adv index|) for the key, plus the value's specified elements
(or ``prod(R)`` when the value's fill differs from A's fill).

>>> import sparray
>>> A = sparray.asarray([[0.0, 1.0], [2.0, 0.0]])
>>> A[0, 1] = 0.0          # the fill: the entry is removed
>>> A[1] = [5.0, 6.0]
>>> A.nse, A.to_dense().tolist()
(2, [[0.0, 0.0], [5.0, 6.0]])
"""

from __future__ import annotations

import math

from .._array.base import SparseArray
from .bool_keys import split_zero_d_bools
from .._core.dtypes import dtype_name
from .._core.fill import same_value
from .indexing import _Adv, _parse, getitem, int_item
from .._core.keys import index_dtype_for, linear_keys, strides, unravel
from .._core.namespace import is_array, namespace_of

__all__ = ["setitem", "assign"]


def setitem(A, key, value) -> None:
    """``A[key] = value`` (see the module docstring): the new components are rebound on ``A``."""
    from .inplace import rebind

    rebind(A, assign(A, key, value), who="__setitem__")


def assign(x, key, value):
    """A new array of ``x``'s layout equal to ``x`` with ``x[key] = value`` applied (``x`` unchanged)."""
    from .._layout.conversion import match_layout

    units = split_zero_d_bools(key, x.ndim)
    A = x if x.layout == "coo" else x.to_layout("coo")
    if units is not None:  # 0-d booleans: assign on inserted unit axes, then take them out again
        from .manipulation import reshape

        insert, on_units, remove = units
        expanded = _assign_coo(getitem(A, insert), on_units, value, _blocks(x, _original_dims(insert, x.ndim)))
        out = getitem(expanded, remove) if x.ndim else reshape(expanded, ())
    else:
        out = _assign_coo(A, key, value, _blocks(x, list(range(x.ndim))))
    if out.dense_ndim != x.dense_ndim:
        out = out.to_layout("coo", dense_ndim=x.dense_ndim)
    if x.layout == "coo":
        return out
    result = match_layout(out, x)
    if type(result) is not type(x):  # match_layout keeps COO for shapes a layout cannot hold; x's can
        result = out.to_layout(x.layout, blocksize=getattr(x, "blocksize", None) if x._blocked else None)
    return result


def _original_dims(insert, ndim):
    """Where x's dims stand in ``x[insert]`` (``insert``: full slices, Nones and one Ellipsis at most).

    >>> _original_dims((None, Ellipsis, None), 2), _original_dims((None,), 2)
    ([1, 2], [1, 2])
    """
    named = sum(1 for k in insert if k is not None and k is not Ellipsis)
    out, d = [], 0
    for k in insert:
        if k is None:
            d += 1
        elif k is Ellipsis:
            out += list(range(d, d + ndim - named))
            d += ndim - named
        else:
            out.append(d)
            d += 1
    return out + list(range(d, d + ndim - len(out)))  # dims the key leaves out come last


def _blocks(x, dims):
    """For BSR/BSC ``x``: (row dim, column dim, bh, bw) in the COO being assigned (``dims[d]`` is
    where x's dim d stands there); None for the other layouts, whose positions are single."""
    if not getattr(x, "_blocked", False):
        return None
    b = x.batch_ndim
    return dims[b], dims[b + 1], *x.blocksize


# ---- the value --------------------------------------------------------------------------------------


def _compatible_scalar(xp, value, dtype):
    """A Python scalar as a 0-d array of ``dtype``, under the standard's compatibility rule."""
    name = dtype_name(dtype)
    kind = "b" if name == "bool" else "c" if name.startswith("complex") else "f" if name.startswith("float") else "i"
    ok = {
        "b": isinstance(value, bool),
        "i": isinstance(value, int),
        "f": isinstance(value, (int, float)) and not isinstance(value, complex),
        "c": isinstance(value, (int, float, complex)),
    }[kind]
    if not ok:
        raise TypeError(
            f"sparray.__setitem__: a Python {type(value).__name__} cannot be assigned into a {name} array "
            "(the array API's compatible scalars: bool for bool, int for integers, int or float for real "
            "floats, any for complex); cast the value first"
        )
    if kind == "i" and not isinstance(value, bool):
        import numpy as np

        info = np.iinfo(np.dtype(name))
        if not info.min <= value <= info.max:
            raise ValueError(f"sparray.__setitem__: {value} is out of bounds for {name} [{info.min}, {info.max}]")
    try:
        return xp.asarray(value, dtype=dtype)
    except (OverflowError, ValueError) as exc:
        raise ValueError(f"sparray.__setitem__: {value!r} cannot be represented as {name}: {exc}") from None


def _cast_array(xp, v, dtype):
    """An array value cast to ``dtype`` when NumPy's ``same_kind`` rule allows it (TypeError otherwise)."""
    import numpy as np

    src, dst = dtype_name(v.dtype), dtype_name(dtype)
    if src == dst:
        return v
    if not np.can_cast(np.dtype(src), np.dtype(dst), casting="same_kind"):
        raise TypeError(
            f"sparray.__setitem__: a {src} value cannot be assigned into a {dst} array (NumPy's same_kind "
            f"casting rule); cast it first, e.g. value.astype({dst})"
        )
    if isinstance(v, SparseArray):
        return v.astype(dtype)
    return xp.astype(v, dtype)


class _Value:
    """The value broadcast to the indexed shape ``R``: read it at output coordinates (``at``), and
    the elements that may differ from A's fill (``candidates``; None: every element of ``R``).

    ``kind`` is "const" (a 0-d array), "dense" (an array of padded shape ``P``: ``P[d]`` is 1 or
    ``R[d]``) or "sparse" (a coalesced COO of shape ``P``)."""

    def __init__(self, xp, value, dtype, R):
        self.xp, self.R = xp, R
        if isinstance(value, SparseArray):
            if value._xp is not xp:
                raise TypeError(
                    f"sparray.__setitem__: the value holds {value._xp.__name__} arrays, the array {xp.__name__} arrays"
                )
            v = _cast_array(xp, value, dtype)
            if v.ndim == 0:
                self.kind, self.c = "const", v.to_dense()
                return
            self.kind = "sparse"
            self.v = self._padded(v)
            self.v = (self.v if self.v.layout == "coo" else self.v.to_layout("coo")).coalesce()
            return
        if isinstance(value, (bool, int, float, complex)):
            self.kind, self.c = "const", _compatible_scalar(xp, value, dtype)
            return
        if is_array(value):
            try:
                namespace_of(value, xp.asarray(0))
            except TypeError:
                raise TypeError(
                    f"sparray.__setitem__: the value is a {type(value).__module__}.{type(value).__name__}, the array "
                    f"holds {xp.__name__} arrays; convert the value to that namespace"
                ) from None
            v = value
        else:
            try:
                v = xp.asarray(value)
            except (TypeError, ValueError) as exc:
                raise TypeError(f"sparray.__setitem__: cannot use {value!r} as a value: {exc}") from None
        v = _cast_array(xp, v, dtype)
        if v.ndim == 0:
            self.kind, self.c = "const", v
            return
        self.kind = "dense"
        self.v = self._padded(v)

    def _padded(self, v):
        """``v`` reshaped to ``len(R)`` dims (leading unit dims dropped or added), checked against ``R``."""
        from .manipulation import reshape

        R, shape = self.R, tuple(v.shape)
        if R == () and shape != ():
            raise ValueError(f"sparray.__setitem__: setting an array element with a sequence of shape {shape}")
        while len(shape) > len(R) and shape[0] == 1:
            shape = shape[1:]
        pad = (1,) * (len(R) - len(shape)) + shape
        if len(shape) > len(R) or any(p not in (1, r) for p, r in zip(pad, R)):
            raise ValueError(
                f"sparray.__setitem__: could not broadcast the value of shape {tuple(v.shape)} into the indexed shape {R}"
            )
        if pad == tuple(v.shape):
            return v
        return reshape(v, pad) if isinstance(v, SparseArray) else self.xp.reshape(v, pad)

    def at(self, coords):
        """The value at output coordinates ``coords`` (``(len(R), n)`` int64): an ``(n,)`` array."""
        xp = self.xp
        n = coords.shape[1]
        if self.kind == "const":
            return xp.broadcast_to(xp.reshape(self.c, (1,)), (n,))
        shape = tuple(self.v.shape)
        mapped = [coords[d, :] if shape[d] != 1 else xp.zeros((n,), dtype=xp.int64) for d in range(len(shape))]
        if self.kind == "dense":
            flat = xp.reshape(self.v, (-1,))
            key = _linear(xp, mapped, shape, n)
            return xp.take(flat, key) if math.prod(shape) else xp.zeros((n,), dtype=self.v.dtype)
        return _lookup(xp, self.v, mapped, n)

    def candidates(self, fill_const):
        """(coords over R, values) of the elements that may differ from A's fill ``fill_const``
        (a 0-d array, or None when A's fill varies): None means every element of ``R``."""
        xp = self.xp
        if fill_const is None:
            return None
        if self.kind == "const":
            return _empty(xp, len(self.R), self.c.dtype) if bool(same_value(xp, self.c, fill_const)) else None
        if self.kind == "dense":
            full = xp.broadcast_to(self.v, self.R)
            keys = xp.astype(xp.nonzero(xp.reshape(~same_value(xp, full, fill_const), (-1,)))[0], xp.int64)
            coords = unravel(xp, keys, self.R, xp.int64)
            return coords, xp.take(xp.reshape(full, (-1,)), keys)
        V = self.v
        vf = xp.reshape(V._fill, (-1,))
        if math.prod(vf.shape) and not bool(xp.all(same_value(xp, vf, fill_const))):
            return None
        from .manipulation import broadcast_to, move_dense_to_sparse

        W = move_dense_to_sparse(broadcast_to(V, self.R).coalesce(), len(self.R))
        return xp.astype(W._indices, xp.int64), xp.reshape(W._values, (-1,))


def _empty(xp, ndim, dtype):
    return xp.zeros((ndim, 0), dtype=xp.int64), xp.zeros((0,), dtype=dtype)


def _linear(xp, rows, shape, n):
    """Row-major linear index of coordinate rows over ``shape`` (int64, ``(n,)``)."""
    key = xp.zeros((n,), dtype=xp.int64)
    for r, st in zip(rows, strides(shape)):
        key = key + r * st
    return key


def _lookup(xp, V, rows, n):
    """Elements of the coalesced COO ``V`` at coordinate ``rows`` (the fill where unspecified)."""
    s = V.sparse_ndim
    dense_shape = V.dense_shape
    m = math.prod(dense_shape)
    fill_row = xp.reshape(xp.broadcast_to(V._fill, dense_shape), (m,))
    if n == 0 or m == 0:
        return xp.zeros((n,), dtype=V.dtype)
    pos = _linear(xp, rows[:s], V.sparse_shape, n)
    off = _linear(xp, rows[s:], dense_shape, n)
    nse = V.nse
    if nse == 0:
        return xp.take(fill_row, off)
    keys = linear_keys(xp, V._indices, V.sparse_shape)
    at = xp.searchsorted(keys, pos)
    clipped = xp.where(at < nse, at, xp.zeros_like(at))
    found = (at < nse) & (xp.take(keys, clipped) == pos)
    flat = xp.reshape(V._values, (nse * m,))
    return xp.where(found, xp.take(flat, clipped * m + off), xp.take(fill_row, off))


# ---- the key ----------------------------------------------------------------------------------------


class _KeyMap:
    """How a parsed key maps the output coordinates (over ``R``) to A's coordinates.

    ``out``: one entry per output dim, ("b", k) for the k-th dim of the advanced indices'
    broadcast shape ``B``, ("slice", p) or ("new", p) for key item ``p``; the B dims stand in
    place when the advanced items are adjacent in the key (and no empty Ellipsis splits them),
    else first (NumPy's rule, as ``getitem`` places them). ``last_b``: per position of ``B``,
    whether it is the last (row-major) to reach its target, or None without advanced items."""

    def __init__(self, xp, items, split, shape):
        self.xp, self.items, self.shape = xp, items, shape
        dims, d = [], 0
        for it in items:
            dims.append(None if it is None else d)
            d += it is not None
        self.dims = dims
        self.adv = [p for p, it in enumerate(items) if isinstance(it, _Adv)]
        from .manipulation import broadcast_shapes

        self.B = broadcast_shapes(*[tuple(items[p].array.shape) for p in self.adv]) if self.adv else ()
        adjacent = not split and self.adv == list(range(self.adv[0], self.adv[0] + len(self.adv))) if self.adv else True
        out, sizes = [], []
        if self.adv and not adjacent:
            out += [("b", k) for k in range(len(self.B))]
            sizes += list(self.B)
        for p, it in enumerate(items):
            if it is None:
                out.append(("new", p))
                sizes.append(1)
            elif isinstance(it, slice):
                out.append(("slice", p))
                sizes.append(len(range(*it.indices(shape[dims[p]]))))
            elif isinstance(it, _Adv) and adjacent and p == self.adv[0]:
                out += [("b", k) for k in range(len(self.B))]
                sizes += list(self.B)
        self.out, self.R = out, tuple(sizes)
        self.targets = self._targets()
        self.last_b = self._last_b()

    def _targets(self):
        """Per advanced item, its indices broadcast to B, flattened, made non-negative (int64)."""
        xp, nb = self.xp, math.prod(self.B)
        out = {}
        for p in self.adv:
            n = self.shape[self.dims[p]]
            f = xp.reshape(xp.broadcast_to(xp.astype(self.items[p].array, xp.int64), self.B), (nb,))
            out[p] = xp.where(f < 0, f + n, f)
        return out

    def _last_b(self):
        xp = self.xp
        if not self.adv:
            return None
        nb = math.prod(self.B)
        keys = linear_keys(xp, xp.stack([self.targets[p] for p in self.adv]), [self.shape[self.dims[p]] for p in self.adv])
        if keys is None:
            raise ValueError("sparray.__setitem__: the indexed dims have more than 2**63 positions")
        if nb == 0:
            return xp.zeros((0,), dtype=xp.bool)
        order = xp.argsort(keys, stable=True)
        ranked = xp.take(keys, order)
        last_sorted = xp.concat([ranked[1:] != ranked[:-1], xp.ones((1,), dtype=xp.bool)])
        return xp.take(last_sorted, xp.argsort(order))

    def b_index(self, coords):
        """The linear position in B of each output coordinate column."""
        rows = [coords[j, :] for j, (kind, _) in enumerate(self.out) if kind == "b"]
        return _linear(self.xp, rows, self.B, coords.shape[1])

    def keep_last(self, coords):
        """Mask of the output coordinates that are the last to reach their target."""
        if self.last_b is None:
            return None
        return _take(self.xp, self.last_b, self.b_index(coords))

    def to_input(self, coords):
        """A's coordinates ``(ndim, n)`` of output coordinates ``coords`` ``(len(R), n)``."""
        xp = self.xp
        n = coords.shape[1]
        where_out = {("slice", p): j for j, (kind, p) in enumerate(self.out) if kind == "slice"}
        b = self.b_index(coords) if self.adv else None
        rows = []
        for p, it in enumerate(self.items):
            if it is None:
                continue
            size = self.shape[self.dims[p]]
            if isinstance(it, int):
                rows.append(xp.full((n,), it % size, dtype=xp.int64))
            elif isinstance(it, slice):
                start, _, step = it.indices(size)
                rows.append(start + coords[where_out[("slice", p)], :] * step)
            else:
                rows.append(_take(xp, self.targets[p], b))
        return xp.stack(rows) if rows else xp.zeros((0, n), dtype=xp.int64)


def _take(xp, a, idx):
    return xp.take(a, idx) if idx.shape[0] else xp.zeros((0,), dtype=a.dtype)


# ---- the assignment on COO ----------------------------------------------------------------------------


def _assign_coo(A, key, value, blocks=None):
    """COO ``A`` (any) with ``A[key] = value`` applied: a new coalesced COO (see the module docstring).
    ``blocks`` (row dim, column dim, bh, bw): positions are removed block by block (BSR/BSC)."""
    from .._array.coo import COO
    from .manipulation import move_dense_to_sparse

    xp = A._xp
    A._check_contents()  # the indices are trusted below (M shares them)
    A = A.coalesce()
    items, split = _parse(xp, key, A.ndim)
    if any(isinstance(it, _Adv) for it in items):  # NumPy: ints are advanced indices then
        items = [int_item(xp, it) if isinstance(it, int) else it for it in items]
    # the specified elements the key reaches (this also checks the key as A[key] does)
    nse, dense_shape = A.nse, A.dense_shape
    m = math.prod(dense_shape)
    ids = xp.reshape(xp.arange(nse * m, dtype=xp.int64), (nse, *dense_shape))
    M = COO._from_parts(xp, A._indices, ids, A.shape, xp.asarray(-1, dtype=xp.int64), coalesced=True)
    reached = getitem(M, key)
    kmap = _KeyMap(xp, items, split, A.shape)
    R = kmap.R
    V = _Value(xp, value, A.dtype, R)
    if math.prod(R) == 0 or m == 0:
        return A
    if not isinstance(reached, SparseArray):  # every dim indexed by an int: one element
        reached = M[(*(key if isinstance(key, tuple) else (key,)), None)]
        r_coords = xp.zeros((0, reached.nse), dtype=xp.int64)
        r_ids = xp.reshape(reached._values, (-1,))
    else:
        if tuple(reached.shape) != R:
            raise RuntimeError(f"sparray.__setitem__: internal error: A[key] has shape {reached.shape}, the key map {R}")
        full = move_dense_to_sparse(reached, reached.ndim)
        r_coords, r_ids = xp.astype(full._indices, xp.int64), xp.reshape(full._values, (-1,))
    keep = kmap.keep_last(r_coords)
    if keep is not None:
        r_coords, r_ids = _mask_cols(xp, r_coords, keep), _mask(xp, r_ids, keep)
    r_vals = V.at(r_coords)

    fill_row = xp.reshape(xp.broadcast_to(A._fill, dense_shape), (m,))
    constant_fill = bool(xp.all(same_value(xp, fill_row, fill_row[0])))
    found = V.candidates(fill_row[0] if constant_fill else None)
    if found is None:
        c_coords = unravel(xp, xp.arange(math.prod(R), dtype=xp.int64), R, xp.int64)
        c_vals = V.at(c_coords)
    else:
        c_coords, c_vals = found
    keep = kmap.keep_last(c_coords)
    if keep is not None:
        c_coords, c_vals = _mask_cols(xp, c_coords, keep), _mask(xp, c_vals, keep)
    return _rebuild(A, r_ids, r_vals, kmap.to_input(c_coords), c_vals, fill_row, blocks)


def _mask(xp, a, keep):
    return xp.take(a, xp.nonzero(keep)[0]) if a.shape[0] else a


def _mask_cols(xp, a, keep):
    return xp.take(a, xp.nonzero(keep)[0], axis=1) if a.shape[1] else a


def _replace_at(xp, base, where, values):
    """``base`` (1-d) with ``base[where[i]] = values[i]`` (``where`` unique): a gather, no scatter.
    Also returns the mask of replaced positions."""
    n = base.shape[0]
    k = where.shape[0]
    if k == 0 or n == 0:
        return base, xp.zeros((n,), dtype=xp.bool)
    order = xp.argsort(where)
    w, v = xp.take(where, order), xp.take(values, order)
    pos = xp.searchsorted(w, xp.arange(n, dtype=where.dtype))
    clipped = xp.where(pos < k, pos, xp.zeros_like(pos))
    hit = (pos < k) & (xp.take(w, clipped) == xp.arange(n, dtype=where.dtype))
    return xp.where(hit, xp.take(v, clipped), base), hit


def _rebuild(A, r_ids, r_vals, c_in, c_vals, fill_row, blocks=None):
    """The new COO: A's rows with elements ``r_ids`` set to ``r_vals``, plus new rows for the
    candidates ``c_in`` (A's coordinates) that land on unspecified positions with a value other
    than the fill; a touched position (with ``blocks``: a touched block) that holds only the fill
    now is removed."""
    from .._array.coo import COO

    xp = A._xp
    s, nse = A.sparse_ndim, A.nse
    sparse_shape, dense_shape = A.sparse_shape, A.dense_shape
    m = fill_row.shape[0]
    all_keys = linear_keys(xp, A._indices, sparse_shape)
    if all_keys is None:
        raise ValueError(f"sparray.__setitem__: sparse shapes with more than 2**63 positions ({sparse_shape}) are not supported")
    # 1. A's rows, updated
    flat, hit = _replace_at(xp, xp.reshape(A._values, (nse * m,)), r_ids, r_vals)
    rows = xp.reshape(flat, (nse, m))
    touched = xp.any(xp.reshape(hit, (nse, m)), axis=1)
    all_fill = xp.all(same_value(xp, rows, xp.reshape(fill_row, (1, m))), axis=1)
    # 2. new rows: candidates on unspecified positions whose value is not the fill
    n = c_in.shape[1]
    pos = _linear(xp, [c_in[d, :] for d in range(s)], sparse_shape, n)
    off = _linear(xp, [c_in[d, :] for d in range(s, A.ndim)], dense_shape, n)
    if nse and n:
        at = xp.searchsorted(all_keys, pos)
        clipped = xp.where(at < nse, at, xp.zeros_like(at))
        on_specified = (at < nse) & (xp.take(all_keys, clipped) == pos)
    else:
        on_specified = xp.zeros((n,), dtype=xp.bool)
    differs = ~same_value(xp, c_vals, _take(xp, fill_row, off)) if n else on_specified
    new = xp.nonzero(~on_specified & differs)[0]
    pos, off, vals = xp.take(pos, new), xp.take(off, new), xp.take(c_vals, new)
    new_keys, new_rows = _group_rows(xp, pos, off, vals, fill_row)
    # 3. touched positions (blocks) holding only the fill go; the rest merge by position
    keys = xp.concat([all_keys, new_keys])
    values = xp.concat([rows, new_rows], axis=0)
    k_new = new_keys.shape[0]
    if blocks is None:
        drop = xp.concat([touched & all_fill, xp.zeros((k_new,), dtype=xp.bool)])
    else:
        group = _block_keys(xp, keys, sparse_shape, blocks)
        touched = xp.concat([touched, xp.ones((k_new,), dtype=xp.bool)])
        not_fill = xp.concat([~all_fill, xp.ones((k_new,), dtype=xp.bool)])
        drop = _group_any(xp, group, touched) & ~_group_any(xp, group, not_fill)
    kept = xp.nonzero(~drop)[0]
    keys, values = xp.take(keys, kept), xp.take(values, kept, axis=0)
    order = xp.argsort(keys, stable=True)
    keys, values = xp.take(keys, order), xp.take(values, order, axis=0)
    total = keys.shape[0]
    itype = index_dtype_for(xp, A.shape, total, A._indices)
    indices = unravel(xp, keys, sparse_shape, itype)
    return COO._from_parts(xp, indices, xp.reshape(values, (total, *dense_shape)), A.shape, A._fill, coalesced=True)


def _block_keys(xp, keys, sparse_shape, blocks):
    """The block of each position key: its coordinates with the row and column divided by (bh, bw)."""
    row, col, bh, bw = blocks
    coords = unravel(xp, keys, sparse_shape, xp.int64)
    rows = [coords[d, :] // (bh if d == row else bw if d == col else 1) for d in range(len(sparse_shape))]
    shape = [-(-n // (bh if d == row else bw if d == col else 1)) for d, n in enumerate(sparse_shape)]
    return _linear(xp, rows, shape, keys.shape[0])


def _group_any(xp, group, flags):
    """Per element: whether any element of its group (equal ``group`` keys) has its flag set."""
    n = group.shape[0]
    if n == 0:
        return flags
    order = xp.argsort(group, stable=True)
    g = xp.take(group, order)
    counts = xp.cumulative_sum(xp.astype(xp.take(flags, order), xp.int64))
    last = xp.concat([g[1:] != g[:-1], xp.ones((1,), dtype=xp.bool)])
    ends = xp.nonzero(last)[0]  # the last sorted element of each group
    seg = xp.cumulative_sum(xp.astype(xp.concat([xp.zeros((1,), dtype=xp.bool), last[:-1]]), xp.int64))
    totals = xp.take(counts, ends)
    before = xp.concat([xp.zeros((1,), dtype=xp.int64), totals[:-1]])
    any_sorted = xp.take(totals - before, seg) > 0
    return xp.take(any_sorted, xp.argsort(order))


def _group_rows(xp, pos, off, vals, fill_row):
    """Rows over the fill for the distinct positions ``pos`` (sorted keys, ``(k, m)`` rows) with
    ``vals`` written at ``off``."""
    m = fill_row.shape[0]
    n = pos.shape[0]
    if n == 0:
        return xp.zeros((0,), dtype=xp.int64), xp.zeros((0, m), dtype=fill_row.dtype)
    order = xp.argsort(pos, stable=True)
    pos, off, vals = xp.take(pos, order), xp.take(off, order), xp.take(vals, order)
    starts = xp.concat([xp.ones((1,), dtype=xp.bool), pos[1:] != pos[:-1]])
    row_of = xp.cumulative_sum(xp.astype(starts, xp.int64)) - 1
    keys = xp.take(pos, xp.nonzero(starts)[0])
    k = keys.shape[0]
    base = xp.reshape(xp.broadcast_to(xp.reshape(fill_row, (1, m)), (k, m)), (k * m,))
    flat, _ = _replace_at(xp, base, row_of * m + off, vals)
    return keys, xp.reshape(flat, (k, m))
