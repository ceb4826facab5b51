"""``A[key]`` for sparse arrays, with NumPy's rules for basic and advanced indexing.

A key item is an int, a slice (any step), ``...``, ``None``, an integer array (or list), or a
boolean array (a dense one, or a boolean SparseArray: its ``nonzero()`` is used). A 0-d boolean
(``A[True]``, ``A[False]``) adds an axis of length 1 or 0 as in NumPy (``sparray._functions.bool_keys``). The result is
what NumPy gives on ``A.to_dense()``, with the fill value kept; a compressed array comes back in
its layout when the result's shape allows it, else as COO. When every dim is indexed by an int
the element comes back as a 0-d sparray array (the array API's rule, and the namespace rule's
form of a dense result: ``sparray._array.results.holding_dense``): ``float(A[i, j])``,
``int(...)``, ``bool(...)``, ``operator.index(...)`` and ``np.asarray(...)`` read it.

How (on the COO form, one vectorised pass over the entries per indexed dim):

- an int keeps the entries whose coordinate equals it; a slice keeps those in its range and on
  its step and maps ``c -> (c - start) // step``; ``None`` adds a coordinate row of zeros;
- advanced indices (integer arrays, booleans as their ``nonzero``, and ints when an array is
  present) are broadcast to one shape ``B`` and joined with the entries on their linear keys
  (sorted entries, two ``searchsorted``): every (element of B, matching entry) pair is an output
  entry, so repeated indices repeat entries. The ``B`` dims replace the indexed dims in place
  when the advanced indices are adjacent, else they come first (NumPy's rule);
- items on dense dims index the values (and a dense-part fill) directly, adjacent advanced
  indices among them included (the basic items as one basic key, the advanced block by one
  ``xp.take`` over its dims merged: the standard takes no index array beside a slice); an
  advanced block that also touches a sparse dim turns the dense dims up to its last one into
  sparse dims first (the fill must not vary along them, else a ValueError says so).

A key on the compressed dim alone of an unbatched compressed array (rows of a CSR: ``A[i:j]``,
``A[::2]``, ``A[[5, 1, 5]]``, ``A[i]``) is cut straight from the components instead: O(rows +
their entries), views for a step-1 range; so is a step-1 range on both sparse dims (``A[i:j,
k:l]``, the blocks of a Dask rechunk): the row range as views, then in each row the column range
by binary search (block-aligned ranges for BSR/BSC). Uncoalesced arrays keep their duplicates (they still
sum to the indexed element). Out-of-range indices raise IndexError naming the index, the dim
and its size, as NumPy does.

>>> import sparray
>>> A = sparray.COO([[0, 1, 2], [1, 0, 2]], [1.0, 2.0, 3.0], shape=(3, 3), fill_value=-1.0)
>>> A[1:, ::-1].to_dense().tolist()
[[-1.0, -1.0, 2.0], [3.0, -1.0, -1.0]]
>>> A[[2, 0], 1].to_dense().tolist()
[-1.0, 1.0]
"""

from __future__ import annotations

import math
import operator

import numpy as np

from .._engine import dispatch as _dispatch
from .._array.base import SparseArray
from .._array.results import holding_dense
from .bool_keys import split_zero_d_bools
from .host_keys import host_key_parts, is_host_key
from .._core.keys import index_dtype_for, linear_keys, unravel
from .._core.namespace import is_array

__all__ = ["getitem"]


class _Adv:
    """An advanced index on one dim: an integer array (from an array, a boolean's nonzero, or an int).

    ``bool_shape``: on the first dim of a boolean index, the mask's shape; ``from_int``: the
    item was an int (NumPy checks its bounds even when the broadcast index is empty); ``host``:
    a NumPy copy of ``array`` when the key came from the host (its bounds are read there, with
    no wait for a device; ``host_keys``)."""

    def __init__(self, array, bool_shape=None, from_int=False, host=None):
        self.array = array
        self.bool_shape = bool_shape
        self.from_int = from_int
        self.host = host


def _parse(xp, key, ndim):
    """The key as a list of items covering every dim: ints, slices, None and _Adv (booleans split
    into one _Adv per dim they cover), and whether an Ellipsis that spans no dim separates two
    advanced items (NumPy then puts the broadcast dims first, as for any separator)."""
    if not isinstance(key, tuple):
        key = (key,)
    items = []
    ellipses = 0
    ellipsis_at = None  # index in items where the Ellipsis stood
    for k in key:
        if k is None or isinstance(k, slice):
            items.append(k)
        elif k is Ellipsis:
            ellipses += 1
            ellipsis_at = len(items)
            items.append(k)
        elif isinstance(k, bool) or (is_array(k) and getattr(k, "ndim", 1) == 0 and str(k.dtype) == "bool"):
            raise IndexError("sparray: 0-d boolean indices are not supported; use None to add a dim")
        elif isinstance(k, SparseArray):
            if k.dtype == xp.bool:
                from .searching import nonzero

                items.extend(_Adv(a) for a in nonzero(k))
            else:
                items.append(_Adv(k.to_dense()))
        else:
            try:
                items.append(operator.index(k))
                continue
            except TypeError:
                pass
            if is_host_key(xp, k):  # a NumPy array or a list on device components: copied over
                items.extend(_Adv(a, bool_shape=shape, host=h) for a, h, shape in host_key_parts(xp, k))
                continue
            a = k if is_array(k) else _as_index_array(xp, k)
            if a.dtype == xp.bool:
                if a.ndim == 0:
                    raise IndexError("sparray: 0-d boolean indices are not supported; use None to add a dim")
                hits = xp.nonzero(a)
                items.append(_Adv(hits[0], bool_shape=tuple(a.shape)))
                items.extend(_Adv(i) for i in hits[1:])
            elif xp.isdtype(a.dtype, "integral"):
                items.append(_Adv(a))
            elif not is_array(k) and math.prod(a.shape) == 0:  # [] or [[]]: an empty integer index, as in NumPy
                items.append(_Adv(xp.astype(a, xp.int64)))
            else:
                raise IndexError(
                    "sparray: only integers, slices (`:`), ellipsis (`...`), None and integer or boolean "
                    f"arrays are valid indices; got {k!r}"
                )
    if ellipses > 1:
        raise IndexError("sparray: an index can only have a single ellipsis ('...')")
    consumed = sum(1 for it in items if it is not None and it is not Ellipsis)
    if consumed > ndim:
        raise IndexError(f"too many indices for array: array is {ndim}-dimensional, but {consumed} were indexed")
    fill = [slice(None)] * (ndim - consumed)
    split = False
    if ellipses:
        at = ellipsis_at
        has_array = any(isinstance(it, _Adv) for it in items)
        advanced = lambda it: isinstance(it, _Adv) or (has_array and isinstance(it, int))  # noqa: E731
        split = not fill and any(map(advanced, items[:at])) and any(map(advanced, items[at + 1 :]))
        items = items[:at] + fill + items[at + 1 :]
    else:
        items = items + fill
    return items, split


def _as_index_array(xp, k):
    try:
        return xp.asarray(k)
    except (TypeError, ValueError) as exc:
        raise IndexError(f"sparray: cannot use {k!r} as an index: {exc}") from None


def getitem(x, key):
    """``x[key]`` (see the module docstring)."""
    from .._layout.conversion import match_layout

    if isinstance(key, tuple) and not key:
        return x
    units = split_zero_d_bools(key, x.ndim)
    if units is not None:  # 0-d booleans: integer indices on inserted unit axes (NumPy's reading)
        insert, on_units, _ = units
        return getitem(getitem(x, insert), on_units)
    xp = x._xp
    items, split = _parse(xp, key, x.ndim)
    direct = _major_pick(x, items)
    if direct is None:
        direct = _range_pick(x, items)
    if direct is not None:
        return direct
    if any(isinstance(it, _Adv) for it in items):  # NumPy: ints are advanced indices then
        items = [int_item(xp, it) if isinstance(it, int) else it for it in items]
    A = x if x.layout == "coo" else x.to_layout("coo")
    out = _index_coo(A, items, split)
    if out.ndim == 0:  # every dim indexed by an int: the element, held as the namespace rule holds dense results
        return holding_dense(out.to_dense())
    return match_layout(out, x)


def int_item(xp, i):
    """An int of a key that holds index arrays: an advanced index of its own (NumPy's rule), its
    bounds read from the host copy."""
    return _Adv(xp.asarray(i, dtype=xp.int64), from_int=True, host=np.asarray(i, dtype=np.int64))


def _major_pick(x, items):
    """Rows of an unbatched CSR/BSR (columns of a CSC/BSC) picked by a parsed key that indexes the
    compressed dim alone, cut straight from the components instead of going through COO. None
    for any other key (which takes the general path).

    - ``i:j`` (step 1, block aligned for BSR/BSC): new pointers for the range and views of its
      entries, O(range);
    - a slice with another step, or a 1-d integer array (CSR/CSC): the rows' entries gathered
      in the order asked, O(rows + their entries);
    - an int (CSR/CSC): that row's entries as a 1-d COO over the other dim."""
    if x.layout == "coo" or x.batch_ndim or None in items:
        return None
    major = x._major
    if any(not (isinstance(it, slice) and it.indices(x.shape[d]) == (0, x.shape[d], 1)) for d, it in enumerate(items) if d != major):
        return None  # another dim is indexed too (a full range, slice(0, n), counts as untouched)
    k = items[major]
    n = x.shape[major]
    if isinstance(k, slice):
        start, stop, step = k.indices(n)
        if step == 1:
            return _major_slice(x, start, max(stop, start))
        return None if x._blocked else _major_take(x, x._xp.arange(start, stop, step, dtype=x._xp.int64))
    if x._blocked:
        return None
    if isinstance(k, int):
        if not -n <= k < n:
            raise IndexError(f"index {k} is out of bounds for axis {major} with size {n}")
        return _major_row(x, k % n)
    if isinstance(k, _Adv) and k.bool_shape is None and k.array.ndim == 1:
        xp = x._xp
        _check_bounds(xp, k, major, n)
        rows = xp.astype(k.array, xp.int64)
        return _major_take(x, xp.where(rows < 0, rows + n, rows))
    return None


def _major_slice(x, start, stop):
    b = x._block[x._major]
    if start % b or stop % b:
        return None
    x._check_contents()  # the pointers are trusted below
    m0, m1 = start // b, stop // b
    cidx = x._cidx
    lo, hi = int(cidx[m0]), int(cidx[m1])
    shape = list(x.shape)
    shape[x._major] = stop - start
    return type(x)._from_parts(x._xp, cidx[m0 : m1 + 1] - cidx[m0], x._pidx[lo:hi], x._values[lo:hi],
                               tuple(shape), x._fill)


def _major_row(x, i):
    from .._array.coo import COO

    x._check_contents()
    xp = x._xp
    lo, hi = int(x._cidx[i]), int(x._cidx[i + 1])
    shape = (x.shape[1 - x._major], *x.shape[2:])
    return COO._from_parts(xp, xp.reshape(x._pidx[lo:hi], (1, hi - lo)), x._values[lo:hi], shape, x._fill,
                           coalesced=None)


def _range_pick(x, items):
    """``x[i:j, k:l]`` (step 1 on both sparse dims, the dense dims whole) of an unbatched compressed
    array, cut from the components: the major range as views (``_major_slice``), then in every row
    the minor range by two binary searches (registry op ``slice_minor``), O(rows * log + kept
    entries). Blocked layouts need block-aligned ranges. None for any other key."""
    if x.layout == "coo" or x.batch_ndim or None in items or len(items) != x.ndim:
        return None
    spans = []
    for d, it in enumerate(items):
        if not isinstance(it, slice):
            return None
        start, stop, step = it.indices(x.shape[d])
        if step != 1 or (d >= 2 and (start, stop) != (0, x.shape[d])):
            return None
        spans.append((start, max(stop, start)))
    major, minor = x._major, 1 - x._major
    bmajor, bminor = x._block[major], x._block[minor]
    (m0, m1), (n0, n1) = spans[major], spans[minor]
    if m0 % bmajor or m1 % bmajor or n0 % bminor or n1 % bminor:
        return None
    part = x if (m0, m1) == (0, x.shape[major]) else _major_slice(x, m0, m1)
    if (n0, n1) == (0, x.shape[minor]):
        return part
    part._check_contents()
    xp = part._xp
    offsets, pidx, values = _dispatch.call("slice_minor", "csr", xp, part._cidx, part._pidx, part._values,
                                           n0 // bminor, n1 // bminor, work=part._cidx.shape[0] + part.nse // 8)
    shape = list(part.shape)
    shape[minor] = n1 - n0
    return type(x)._from_parts(xp, offsets, pidx, values, tuple(shape), x._fill)


def _major_take(x, rows):
    """CSR/CSC ``x`` with its compressed dim replaced by ``rows`` (int64, in range, any order)."""
    x._check_contents()
    xp = x._xp
    offsets, minor, values = _dispatch.call("take_major", "csr", xp, x._cidx, x._pidx, x._values, rows,
                                            work=rows.shape[0] * (1 + x.nse // max(x._grid[0], 1)))
    shape = list(x.shape)
    shape[x._major] = rows.shape[0]
    total = minor.shape[0]
    itype = x._cidx.dtype if total <= 2**31 - 1 or x._cidx.dtype == xp.int64 else xp.int64
    return type(x)._from_parts(xp, xp.astype(offsets, itype), minor, values, tuple(shape), x._fill)


def _dims_of(items):
    """The input dim each item consumes (None for a None item)."""
    dims, d = [], 0
    for it in items:
        if it is None:
            dims.append(None)
        else:
            dims.append(d)
            d += 1
    return dims


def _check_bounds(xp, adv, dim, size):
    a = adv.array if adv.host is None else adv.host
    if math.prod(a.shape) == 0:
        return
    lo, hi = (int(xp.min(a)), int(xp.max(a))) if adv.host is None else (int(a.min()), int(a.max()))
    if lo < -size or hi >= size:
        raise IndexError(f"index {lo if lo < -size else hi} is out of bounds for axis {dim} with size {size}")


def _check_key(xp, A, items, dims, adv_pos):
    """Bounds and boolean shapes of the advanced items; their broadcast shape (IndexError otherwise).

    NumPy's rules: a mask dim matches the indexed dim of the same size, and a mask dim of size 0
    matches any (the mask selects nothing either way); index arrays are checked against their
    dims only when the broadcast index is not empty, ints always."""
    for p in adv_pos:
        mask_shape = items[p].bool_shape
        if mask_shape is None:
            continue
        covered = tuple(A.shape[dims[p] : dims[p] + len(mask_shape)])
        for k, (m, n) in enumerate(zip(mask_shape, covered)):
            if m not in (0, n):
                raise IndexError(
                    f"boolean index did not match indexed array along axis {dims[p] + k}; size of axis is {n} "
                    f"but size of corresponding boolean axis is {m}"
                )
    bshape = _broadcast_shape([tuple(items[p].array.shape) for p in adv_pos]) if adv_pos else ()
    empty = math.prod(bshape) == 0
    for p in adv_pos:
        if items[p].from_int or not empty:
            _check_bounds(xp, items[p], dims[p], A.shape[dims[p]])
    return bshape


class _Basic:
    """The basic items applied to the sparse dims of COO ``A``: which entries stay (``keep``),
    the output coordinate row and size of each item that makes a dim (``coords``, ``sizes``;
    a None row is all zeros), the items left for the dense dims, and whether row-major order
    survives (``ordered``)."""

    def __init__(self, A, items, dims):
        xp = A._xp
        s = A.sparse_ndim
        self.idx = idx = xp.astype(A._indices, xp.int64)
        self.keep = xp.ones((A.nse,), dtype=xp.bool)
        self.coords, self.sizes, self.sparse_items, self.dense_key = {}, {}, [], []
        self.ordered = True
        for p, it in enumerate(items):
            d = dims[p]
            if d is not None:
                in_sparse = d < s
            else:  # a new dim: sparse among the sparse dims, or after them when there are no dense dims
                before = sum(1 for e in dims[:p] if e is not None)
                in_sparse = before < s or (before == s and A.dense_ndim == 0)
            if not in_sparse:
                self.dense_key.append(_in_bounds(it, A.shape[d]) if isinstance(it, slice) else it)
                continue
            self.sparse_items.append(p)
            if it is None:
                self.sizes[p], self.coords[p] = 1, None
            elif isinstance(it, int):
                n = A.shape[d]
                if not -n <= it < n:
                    raise IndexError(f"index {it} is out of bounds for axis {d} with size {n}")
                self.keep = self.keep & (idx[d, :] == it % n)
            elif isinstance(it, slice):
                self._slice(A.shape[d], idx[d, :], it, p)

    def _slice(self, n, c, it, p):
        start, stop, step = it.indices(n)
        if step > 0:
            inside = (c >= start) & (c < stop) & ((c - start) % step == 0)
            self.coords[p] = (c - start) // step
        else:
            inside = (c <= start) & (c > stop) & ((start - c) % (-step) == 0)
            self.coords[p] = (start - c) // (-step)
            self.ordered = False
        if (start, stop, step) != (0, n, 1):
            self.keep = self.keep & inside
        self.sizes[p] = len(range(start, stop, step))


def _advanced(xp, A, items, dims, adv, bshape, entry_rows):
    """Join the kept entries (their coordinates ``entry_rows[d]``) with the advanced indices:
    (position in B, kept entry) for every match, and B's coordinate rows of each pair."""
    nb = math.prod(bshape)
    adv_dims = [dims[p] for p in adv]
    adv_shape = tuple(A.shape[d] for d in adv_dims)
    wanted = []
    for p, d in zip(adv, adv_dims):
        f = xp.reshape(xp.broadcast_to(xp.astype(items[p].array, xp.int64), bshape), (nb,))
        wanted.append(xp.where(f < 0, f + A.shape[d], f))
    entry_keys = linear_keys(xp, xp.stack([entry_rows[d] for d in adv_dims]), adv_shape)
    wanted_keys = linear_keys(xp, xp.stack(wanted), adv_shape)
    if entry_keys is None or wanted_keys is None:
        raise IndexError(f"sparray: the indexed dims {adv_shape} have more than 2**63 positions")
    b_of, e_of = _join(xp, entry_keys, wanted_keys)
    b_coords = unravel(xp, b_of, bshape, xp.int64) if bshape else xp.zeros((0, b_of.shape[0]), dtype=xp.int64)
    return e_of, [b_coords[k, :] for k in range(len(bshape))]


def _index_coo(A, items, split=False):
    """``A[items]`` for COO ``A`` and a parsed key (one item per dim, plus Nones); ``split``: an
    empty Ellipsis stood between advanced items (their broadcast dims then come first)."""
    from .._array.coo import COO
    from .manipulation import move_dense_to_sparse

    xp = A._xp
    dims = _dims_of(items)
    adv_pos = [p for p, it in enumerate(items) if isinstance(it, _Adv)]
    bshape = _check_key(xp, A, items, dims, adv_pos)  # the whole key is checked before anything moves
    adjacent = adv_pos == list(range(adv_pos[0], adv_pos[0] + len(adv_pos))) if adv_pos else True
    adjacent = adjacent and not split
    if adv_pos and not (adjacent and min(dims[p] for p in adv_pos) >= A.sparse_ndim):
        # an advanced block with a sparse dim: every dim it touches becomes sparse
        A = move_dense_to_sparse(A, max(max(dims[p] for p in adv_pos) + 1, A.sparse_ndim))
    basic = _Basic(A, items, dims)
    sel = xp.nonzero(basic.keep)[0]
    whole = sel.shape[0] == A.nse
    values = A._values if whole else xp.take(A._values, sel, axis=0)
    rows = {p: (c if whole or c is None else xp.take(c, sel)) for p, c in basic.coords.items()}
    nout = sel.shape[0]
    adv = [p for p in basic.sparse_items if isinstance(items[p], _Adv)]  # (all of adv_pos unless dense)
    adv_rows = []
    if adv:
        entry_rows = {dims[p]: (basic.idx[dims[p], :] if whole else xp.take(basic.idx[dims[p], :], sel)) for p in adv}
        e_of, adv_rows = _advanced(xp, A, items, dims, adv, bshape, entry_rows)
        values = xp.take(values, e_of, axis=0)
        rows = {p: (xp.take(r, e_of) if r is not None else None) for p, r in rows.items()}
        nout = e_of.shape[0]
    # the output's sparse dims: basic items in key order, the advanced block in place when its
    # items are adjacent in the key, else in front (NumPy's rule)
    out_rows, out_sizes = ([], []) if adjacent or not adv else (list(adv_rows), list(bshape))
    for p in sorted(set(basic.sizes) | set(adv)):
        if p in adv:
            if adjacent and p == adv[0]:
                out_rows += adv_rows
                out_sizes += list(bshape)
            continue
        out_rows.append(rows[p] if rows[p] is not None else xp.zeros((nout,), dtype=xp.int64))
        out_sizes.append(basic.sizes[p])
    values, fill = _index_dense(xp, values, A._fill, basic.dense_key)
    sparse_shape = tuple(out_sizes)
    itype = index_dtype_for(xp, sparse_shape, nout, A._indices)
    indices = xp.stack([xp.astype(r, itype) for r in out_rows]) if out_rows else xp.zeros((0, nout), dtype=itype)
    ordered = basic.ordered and not adv
    return COO._from_parts(xp, indices, values, sparse_shape + tuple(values.shape[1:]), fill,
                           coalesced=A._coalesced if ordered else None)


def _in_bounds(k, n):
    """Slice ``k`` of a dim of ``n`` elements with its bounds inside the dim, as NumPy clips them (the
    standard leaves out-of-bounds starts unspecified; array_api_strict rejects them)."""
    if k == slice(None):
        return k
    start, stop, step = k.indices(n)
    if not len(range(start, stop, step)):
        return slice(0, 0)
    return slice(start, stop if stop >= 0 else None, step)


def _index_dense(xp, values, fill, dense_key):
    """The dense-dim items applied to the values' dense axes (after the entry axis) and to a
    dense-part fill: the basic items (slices, ints, None) as one basic key, then an advanced block
    (its index arrays are adjacent here, or the block would have made its dims sparse) through
    :func:`take_block`. Pure array API: the standard's indexing takes no index array beside a
    slice, and array_api_strict refuses one."""
    if not dense_key or all(isinstance(k, slice) and k == slice(None) for k in dense_key):
        return values, fill
    adv = [j for j, k in enumerate(dense_key) if isinstance(k, _Adv)]
    basic = tuple(slice(None) if isinstance(k, _Adv) else k for k in dense_key)
    if any(not (isinstance(k, slice) and k == slice(None)) for k in basic):
        values = values[(slice(None), *basic)]
        fill = fill[basic] if fill.ndim else fill
    if adv:  # no ints before the block (with an index array they are advanced too): it sits at adv[0]
        arrays = [dense_key[j].array for j in adv]
        values = take_block(xp, values, arrays, 1 + adv[0])
        fill = take_block(xp, fill, arrays, adv[0]) if fill.ndim else fill
    return values, fill


def take_block(xp, x, arrays, axis):
    """``x`` with its dims ``axis, ..., axis + len(arrays) - 1`` indexed by the integer ``arrays``
    (any shapes that broadcast together, negative entries counting from the end, in range):
    those dims give way to the broadcast shape, as NumPy's ``x[:, ..., *arrays]`` does. One
    ``xp.take`` along the block's dims merged into one (linear positions), so it is pure array API.

    >>> import array_api_compat.numpy as xp
    >>> take_block(xp, xp.reshape(xp.arange(6), (2, 3)), [xp.asarray([[-1], [0]])], 1).tolist()
    [[[2], [0]], [[5], [3]]]
    """
    k = len(arrays)
    sizes = tuple(x.shape[axis : axis + k])
    bshape = _broadcast_shape([tuple(a.shape) for a in arrays])
    nb = math.prod(bshape)
    linear = xp.zeros((nb,), dtype=xp.int64)
    for a, n in zip(arrays, sizes):
        i = xp.reshape(xp.broadcast_to(xp.astype(a, xp.int64), bshape), (nb,))
        linear = linear * n + xp.where(i < 0, i + n, i)
    before, after = tuple(x.shape[:axis]), tuple(x.shape[axis + k :])
    merged = xp.reshape(x, (*before, math.prod(sizes), *after))
    return xp.reshape(xp.take(merged, linear, axis=axis), (*before, *bshape, *after))


def _broadcast_shape(shapes):
    from .manipulation import broadcast_shapes

    try:
        return broadcast_shapes(*shapes)
    except ValueError:
        raise IndexError(f"shape mismatch: indexing arrays could not be broadcast together with shapes {shapes}") from None


def _join(xp, entry_keys, wanted):
    """Every pair (b, e) with ``wanted[b] == entry_keys[e]``, b ascending (then e in entry order)."""
    order = xp.argsort(entry_keys, stable=True)
    sorted_keys = xp.take(entry_keys, order)
    lo = xp.searchsorted(sorted_keys, wanted, side="left")
    hi = xp.searchsorted(sorted_keys, wanted, side="right")
    count = hi - lo
    ends = xp.cumulative_sum(count)
    total = int(ends[-1]) if ends.shape[0] else 0
    q = xp.arange(total, dtype=xp.int64)
    b = xp.searchsorted(ends, q, side="right")
    starts = ends - count
    e = xp.take(order, xp.take(lo, b) + (q - xp.take(starts, b)))
    return b, e
