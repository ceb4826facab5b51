"""sparray arrays as Dask array chunks: ``from_sparray``, ``to_sparray``, ``from_dask_dense``.

Importing this module registers sparray with ``dask.array`` (it happens by itself too, see below):

- ``SparseArray`` is a chunk type (``dask.array.chunk_types.register_chunk_type``), so a Dask
  array and a bare sparray array combine (``X + A``) and Dask defers to sparray in mixed calls;
- Dask's per-chunk dispatch for ``SparseArray``: ``concatenate_lookup`` (exact, any fills;
  :func:`concatenate_chunks`), ``tensordot_lookup`` (``sparray.tensordot``), ``take_lookup``
  (integer-array indexing), ``percentile_lookup`` (1-d chunks, without densifying:
  :func:`percentile_chunk`) and ``to_numpy_dispatch`` (``to_dense``). Everything else Dask does on
  chunks it does through NumPy's functions and ufuncs, which sparray answers
  (``sparray._numpy.protocols``): ``np.sum(chunk, axis, keepdims=True)``, ``np.add``,
  ``np.matmul``, ``np.transpose``, slicing, ...

``import sparray`` never imports Dask. The registration also happens without this import: the first
time Dask tokenizes a sparray array or calls a NumPy function on a sparray chunk while
``dask.array`` is loaded (``sparray.interop._dask_hooks``). Importing this module makes it certain
before any graph is built, and is what ``from_sparray`` / ``from_dask_dense`` users do anyway.

2:4 chunks. ``from_sparray`` of a 2:4 array cuts its components (a row block shares them; a
column block starts at a group of 4: chunk sizes along the dim the groups run along must be
multiples of 4), so every chunk, and the meta, is a 2:4 array; Dask's operations then meet 2:4
chunks as any function does (``sparray._functions.layout_door``): ``np.matmul`` and element-wise
functions natively (element-wise results stay 2:4), everything else on the CSR of the same
pattern. Joining 2:4 chunks (``concatenate_lookup``, ``to_sparray``) joins their components into
one 2:4 array when they share a fill and a ``transposed`` flag (:func:`semi_concat`).

Fill values. A Dask array of sparray chunks has one fill value: ``from_sparray`` slices one array,
``from_dask_dense`` converts every block with one fill, and the array's ``_meta`` (an empty sparray
array of the chunks' layout, dtype and fill) carries it. Joining arrays whose fills differ
(``da.concatenate``, ``da.block``) raises ValueError when the graph is built, from the meta
concatenation; ``to_sparray`` checks the computed chunks again (a ``map_blocks`` function may
change fills per block). Inside Dask's own algorithms chunks with different fills are normal
(the partial sums of a tree reduction over blocks of different sizes) and are joined exactly.

>>> import numpy as np, sparray
>>> from sparray.interop.dask import from_sparray, to_sparray
>>> A = sparray.asarray(np.arange(12.0).reshape(4, 3) % 4, layout="csr", fill_value=0.0)
>>> X = from_sparray(A, chunks=(2, 3))
>>> X.sum(axis=0).compute().to_dense().tolist()
[6.0, 6.0, 6.0]
>>> to_sparray(X * 2).layout, float((X @ np.ones(3)).sum().compute())
('csr', 18.0)
"""

from __future__ import annotations

import math
from itertools import product

import dask
import dask.array as da
import numpy as np
from dask.array.chunk_types import register_chunk_type
from dask.array.dispatch import (
    concatenate_lookup,
    percentile_lookup,
    take_lookup,
    tensordot_lookup,
    to_numpy_dispatch,
)

import sparray
from sparray._array.base import SparseArray
from sparray._array.semi_structured import GROUP, WORD_GROUPS, SemiStructured
from sparray._core.dtypes import dtype_name
from sparray._core.fill import same_value
from sparray._core.namespace import to_numpy

__all__ = ["from_sparray", "to_sparray", "from_dask_dense", "concatenate_chunks", "percentile_chunk", "register",
           "semi_block", "semi_concat"]


# --- registration ---------------------------------------------------------------------------------------
def _same_fill(A, B) -> bool:
    xp = A._xp
    fa, fb = A.fill_value, B.fill_value
    if fa.shape != fb.shape:
        return False
    return bool(xp.all(same_value(xp, fa, fb)))


def _fill_text(A) -> str:
    f = A.fill_value
    return repr(f.item()) if f.ndim == 0 else f"array of shape {tuple(f.shape)}"


def concatenate_chunks(arrays, axis=0):
    """Dask's ``concatenate_lookup`` for sparray chunks: ``sparray.concat``, exact for any fills.

    Dask calls it on the arrays' metas when a graph joins arrays (``da.concatenate``, ``da.block``):
    metas are empty arrays (every dim of size 0) that carry the fill, and metas with different
    fills raise ValueError there, before anything runs. On computed chunks (rechunking, the
    partial results of a reduction) fills may differ and the join is exact.
    """
    arrays = list(arrays)
    sparse = [a for a in arrays if isinstance(a, SparseArray)]
    metas = all(len(getattr(a, "shape", ())) and not any(a.shape) for a in arrays)  # every dim 0
    if sparse and metas:
        ref = sparse[0]
        for a in sparse[1:]:
            if not _same_fill(ref, a):
                raise ValueError(
                    "dask.array.concatenate: sparray chunks with different fill values cannot be joined into one "
                    f"array; got fills {_fill_text(ref)} and {_fill_text(a)}. Give them one fill first, e.g. "
                    "X.map_blocks(lambda b: sparray.asarray(b, fill_value=f), meta=...) or sparray arrays with one fill"
                )
    joined = semi_concat(arrays, axis)
    return joined if joined is not None else sparray.concat(arrays, axis=axis)


# --- 2:4 chunks: blocks of the components, and joins of them ------------------------------------------
def _stored_axis(ndim, axis, transposed):
    """The dim of the stored matrix that the logical dim ``axis`` is (the last two swap when transposed)."""
    return (2 * ndim - 3 - axis) if transposed and axis >= ndim - 2 else axis


def semi_block(A, key):
    """The block ``A[key]`` of a 2:4 array as a 2:4 array: ``key`` one slice of step 1 per dim, the
    one along the groups (the stored matrix's columns) starting and ending at multiples of 4 (or
    its end). Values and metadata are sliced (views), except that a column block that does not
    start and end on a metadata word (16 columns) gets its codes packed again.

    >>> import numpy as np, sparray
    >>> A = sparray.asarray(np.array([[0.0, 1.0, 0.0, 2.0, 3.0, 0.0, 4.0, 0.0]]), layout="2:4")
    >>> B = semi_block(A, (slice(0, 1), slice(4, 8)))
    >>> B.layout, B.to_dense().tolist(), hex(int(B.metadata[0, 0]))
    ('2:4', [[3.0, 0.0, 4.0, 0.0]], '0x4448')
    """
    from sparray._layout.semi_structured import pack_codes, unpack_codes

    n = A.ndim
    stored = [slice(None)] * n
    for axis, k in enumerate(key):
        start, stop, step = k.indices(A.shape[axis])
        if step != 1:
            raise ValueError(f"semi_block: expected slices of step 1; got {k!r} along dim {axis}")
        stored[_stored_axis(n, axis, A.transposed)] = slice(start, max(start, stop))
    cols = A._stored_shape[-1]
    c = stored[-1]
    c0, c1 = c.start, c.stop
    if c0 % GROUP or (c1 % GROUP and c1 != cols):
        raise ValueError(f"semi_block: a block of a 2:4 array starts and ends at a group of {GROUP} along the "
                         f"{'rows' if A.transposed else 'columns'}; got {c0}:{c1}")
    lead = tuple(stored[:-1])
    values = A._values[(*lead, slice(c0 // 2, c1 // 2))]
    word = GROUP * WORD_GROUPS
    xp = A._xp
    if c0 % word == 0 and (c1 % word == 0 or c1 == cols):
        metadata = A._metadata[(*lead, slice(c0 // word, -(-c1 // word)))]
    else:
        codes = unpack_codes(xp, A._metadata[lead], cols // GROUP)[..., c0 // GROUP : c1 // GROUP]
        metadata = pack_codes(xp, codes)
    shape = tuple(len(range(*k.indices(A.shape[axis]))) for axis, k in enumerate(key))
    return SemiStructured._from_parts(xp, values, metadata, shape, A._fill, checked=A._checked, transposed=A.transposed)


def semi_concat(arrays, axis=0):
    """The 2:4 ``arrays`` joined along ``axis`` as one 2:4 array, their components joined (groups
    never straddle two arrays), or None when they cannot be (not all 2:4 arrays of one namespace,
    dtype, fill and ``transposed`` flag, or shapes that do not fit: ``sparray.concat`` then joins
    them, or says why not). Along the groups the metadata words are joined as they are when every
    array but the last fills its words (columns a multiple of 16), else the codes are packed again."""
    from sparray._layout.semi_structured import pack_codes, unpack_codes

    arrays = list(arrays)
    if not arrays or not all(isinstance(a, SemiStructured) for a in arrays):
        return None
    first = arrays[0]
    n, t, xp = first.ndim, first.transposed, first._xp
    if any(a.ndim != n or a.transposed != t or a._xp is not xp or a.dtype != first.dtype for a in arrays):
        return None
    if not all(_same_fill(first, a) for a in arrays[1:]):
        return None
    try:
        axis = int(axis)
    except TypeError:
        return None
    if not -n <= axis < n:
        return None
    axis %= n
    if any(a.shape[:axis] + a.shape[axis + 1 :] != first.shape[:axis] + first.shape[axis + 1 :] for a in arrays):
        return None
    if len(arrays) == 1:
        return first
    sa = _stored_axis(n, axis, t)
    values = xp.concat([a._values for a in arrays], axis=sa)
    word = GROUP * WORD_GROUPS
    if sa < n - 1 or all(a._stored_shape[-1] % word == 0 for a in arrays[:-1]):
        metadata = xp.concat([a._metadata for a in arrays], axis=sa)
    else:
        codes = [unpack_codes(xp, a._metadata, a._stored_shape[-1] // GROUP) for a in arrays]
        metadata = pack_codes(xp, xp.concat(codes, axis=-1))
    shape = list(first.shape)
    shape[axis] = sum(a.shape[axis] for a in arrays)
    return SemiStructured._from_parts(xp, values, metadata, tuple(shape), first._fill,
                                      checked=all(a._checked for a in arrays), transposed=t)


def _tensordot_chunks(a, b, axes=2):
    return sparray.tensordot(a, b, axes=axes)


def _take_chunk(a, indices, axis=0):
    return np.take(a, indices, axis=axis)


def _to_numpy_chunk(x, **kwargs):
    return np.asarray(to_numpy(x.to_dense()), **kwargs)


def percentile_chunk(a, q, method="linear"):
    """Dask's ``percentile_lookup`` for a 1-d sparray chunk: ``(np.percentile(a, q, method), len(a))``
    without densifying. The sorted elements are the sorted specified values with the fill value
    repeated ``size - nse`` times at its place among them, so every order statistic is a lookup;
    NumPy's interpolation rules (linear, lower, higher, midpoint, nearest) are applied to them.
    Any nan (a value, or the fill of an unspecified element) gives nan, as in NumPy."""
    n = a.shape[0] if a.ndim == 1 else None
    if n is None:
        raise ValueError(f"dask.array.percentile: needs a 1-d array; got a sparray chunk of shape {a.shape}")
    if n == 0:
        return None, 0
    A = a.to_layout("coo").coalesce()
    values = np.sort(np.asarray(to_numpy(A.values)))
    fill = np.asarray(to_numpy(A.fill_value))[()]
    m = n - values.shape[0]  # unspecified elements, each the fill
    if not np.issubdtype(values.dtype, np.number):
        method = "nearest"
    q = np.asarray(q, dtype=np.float64)
    out_dtype = np.result_type(values.dtype, q.dtype) if np.issubdtype(values.dtype, np.number) else values.dtype
    if (values.shape[0] and np.isnan(values[-1] if values.dtype.kind in "fc" else 0.0)) or (
        m and values.dtype.kind in "fc" and np.isnan(fill)
    ):
        return np.full(q.shape, np.nan, dtype=out_dtype), n
    before = int(np.searchsorted(values, fill, side="left"))  # values smaller than the fill

    def element(k):
        k = np.asarray(k, dtype=np.int64)
        v = values[np.clip(np.where(k < before, k, k - m), 0, max(values.shape[0] - 1, 0))] if values.shape[0] else fill
        return np.where((k >= before) & (k < before + m), fill, v).astype(values.dtype)

    quantiles = q / 100
    pos = (n - 1) * quantiles
    if method == "lower":
        return element(np.floor(pos)), n
    if method == "higher":
        return element(np.ceil(pos)), n
    if method == "nearest":
        return element(np.around(pos)), n
    if method not in ("linear", "midpoint"):
        raise ValueError(f"dask.array.percentile: method {method!r} is not supported for sparray chunks")
    lo = np.floor(pos)  # NumPy's neighbours of the virtual index, and its weight
    a_lo = element(np.minimum(lo, n - 1)).astype(out_dtype)
    a_hi = element(np.minimum(lo + 1, n - 1)).astype(out_dtype)
    t = pos - lo if method == "linear" else np.where(pos % 1 == 0, 0.0, 0.5)
    with np.errstate(invalid="ignore"):
        diff = a_hi - a_lo
        return np.where(t >= 0.5, a_hi - diff * (1 - t), a_lo + diff * t).astype(out_dtype), n  # NumPy's _lerp


def register() -> None:
    """Register ``SparseArray`` with ``dask.array`` (chunk type and per-chunk dispatch); idempotent."""
    from dask.array.chunk_types import is_valid_chunk_type

    if not is_valid_chunk_type(SparseArray):
        register_chunk_type(SparseArray)
    concatenate_lookup.register(SparseArray, concatenate_chunks)
    tensordot_lookup.register(SparseArray, _tensordot_chunks)
    take_lookup.register(SparseArray, _take_chunk)
    to_numpy_dispatch.register(SparseArray, _to_numpy_chunk)
    percentile_lookup.register(SparseArray, percentile_chunk)


register()


# --- building Dask arrays -----------------------------------------------------------------------------
def meta_of(A):
    """Dask's meta of a sparray chunk: an empty array (every dim 0) of ``A``'s layout, dtype and fill."""
    key = tuple(slice(0, 0) for _ in range(A.ndim))
    return semi_block(A, key) if isinstance(A, SemiStructured) else A[key]


def _block(A, key):
    return semi_block(A, key) if isinstance(A, SemiStructured) else A[key]


def _check_block_aligned(A, chunks):
    if A.layout == "2:4":
        dim = A.ndim - 2 if A.transposed else A.ndim - 1  # the dim the groups of 4 run along
        bad = [c for c in chunks[dim] if c % GROUP]
        if bad:
            raise ValueError(
                f"from_sparray: chunks along dim {dim} must be multiples of {GROUP} for a 2:4 array (its groups of "
                f"{GROUP} run along that dim, and its chunks keep the layout); got chunk sizes {chunks[dim]}"
            )
        return
    if A.layout not in ("bsr", "bsc"):
        return
    b = A.batch_ndim
    for dim, step in zip((b, b + 1), A.blocksize):
        bad = [c for c in chunks[dim] if c % step]
        if bad:
            raise ValueError(
                f"from_sparray: chunks along dim {dim} must be multiples of the blocksize {A.blocksize} of a "
                f"{A.layout.upper()} array (its chunks keep the layout); got chunk sizes {chunks[dim]}"
            )


def from_sparray(A, chunks="auto", *, nblocks=None, name=None):
    """A Dask array whose chunks are slices of ``A`` in ``A``'s layout (no densifying).

    ``chunks`` as in ``dask.array.from_array`` (a block shape, per-dim sizes), or "auto": blocks
    along the compressed dim (rows; columns of a CSC/BSC), the other dims whole, as many as it takes
    for about Dask's ``array.chunk-size`` bytes of components each, cut where they hold about equal
    numbers of stored entries rather than equal numbers of rows (a power-law graph keeps most of its
    entries in a few rows: equal rows would leave one task with most of the work).
    ``nblocks=k`` (with ``chunks`` left "auto") asks for ``k`` such blocks instead (fewer only when
    the dim is shorter). ``A`` is cut on the client: a row block of a CSR/BSR (a column block of a
    CSC/BSC) shares ``A``'s buffers, any other block is a new array; the chunks enter the graph as
    data, so a distributed cluster receives each chunk once. BSR/BSC chunk sizes along the sparse
    dims must be multiples of the blocksize; a 2:4 array's chunks are 2:4 arrays (:func:`semi_block`:
    row blocks share its components), their sizes along its groups multiples of 4. The Dask array's meta carries ``A``'s layout, dtype and
    fill.

    >>> import numpy as np, sparray
    >>> A = sparray.asarray(np.triu(np.ones((8, 8))), layout="csr")   # rows hold 8, 7, ..., 1 entries
    >>> from_sparray(A, nblocks=2).chunks
    ((3, 5), (8,))
    """
    if not isinstance(A, SparseArray):
        raise TypeError(f"from_sparray: A must be a sparray array; got {type(A).__name__}")
    auto = isinstance(chunks, str) and chunks == "auto"
    if nblocks is not None:
        if not auto:
            raise ValueError(f"from_sparray: give chunks or nblocks, not both; got chunks={chunks!r}, nblocks={nblocks!r}")
        if isinstance(nblocks, bool) or not isinstance(nblocks, (int, np.integer)) or nblocks < 1:
            raise ValueError(f"from_sparray: nblocks must be an integer >= 1; got {nblocks!r}")
    if auto:
        chunks = _auto_chunks(A, nblocks)
    dtype = np.dtype(dtype_name(A.dtype))
    chunks = da.core.normalize_chunks(chunks, A.shape, dtype=dtype)
    _check_block_aligned(A, chunks)
    name = name or f"from-sparray-{dask.base.tokenize(A, chunks)}"
    offsets = [np.concatenate([[0], np.cumsum(c)]).tolist() for c in chunks]
    graph = {}
    for idx in product(*(range(len(c)) for c in chunks)):
        key = tuple(slice(offsets[d][i], offsets[d][i + 1]) for d, i in enumerate(idx))
        graph[(name, *idx)] = _block(A, key) if A.ndim else A
    return da.Array(graph, name, chunks, dtype=dtype, meta=meta_of(A))


def _auto_chunks(A, nblocks=None):
    """Blocks along the compressed dim (rows; columns of a CSC/BSC, which are then views), the
    other dims whole: ``nblocks`` of them, or enough for about Dask's ``array.chunk-size`` bytes of
    components each, cut at about equal stored entries (:func:`_entry_counts`)."""
    if A.ndim == 0:
        return ()
    dim = 1 if A.layout in ("csc", "bsc") and A.batch_ndim == 0 else 0
    if A.layout == "2:4" and A.batch_ndim == 0 and A.transposed:
        dim = 1  # the stored rows: any cut keeps the groups whole
    n = A.shape[dim]
    if nblocks is None:
        limit = dask.utils.parse_bytes(dask.config.get("array.chunk-size"))
        nblocks = math.ceil(A.nbytes / max(limit, 1))
    step = A.blocksize[dim] if A.layout in ("bsr", "bsc") and A.batch_ndim == 0 else 1
    sizes = _balanced_sizes(_entry_counts(A, dim, step), max(1, int(nblocks)))
    return tuple(tuple(c * step for c in sizes) if d == dim else -1 for d in range(A.ndim))


def _entry_counts(A, dim, step):
    """Stored entries in each group of ``step`` consecutive indices along ``dim`` (NumPy int64):
    from the pointers along the compressed dim of an unbatched compressed array (blocks of a
    BSR/BSC: ``step`` is its blocksize there), from the index row of a COO, and the same count per
    index otherwise (a batch dim holds the same number of entries in every batch)."""
    n = A.shape[dim] // step
    if A.layout == "2:4":  # every stored row holds cols / 2 entries
        return np.ones(n, np.int64)
    if A.layout == "coo" and dim < A.sparse_ndim:
        return np.bincount(np.asarray(to_numpy(A.indices[dim])) // step, minlength=n).astype(np.int64)
    if A.layout != "coo" and A.batch_ndim == 0 and dim == (1 if A.layout in ("csc", "bsc") else 0):
        ptr = np.asarray(to_numpy(A._cidx)).astype(np.int64)
        return np.diff(ptr)
    return np.ones(n, np.int64)


def _balanced_sizes(counts, parts):
    """Sizes of ``min(parts, len(counts))`` consecutive runs of ``counts`` (each at least one
    long) whose sums of ``counts + 1`` are about equal (the 1 is a row's own cost: empty rows still
    split evenly): each cut goes after the row whose running sum is nearest its share.

    >>> _balanced_sizes(np.array([8, 7, 6, 5, 4, 3, 2, 1]), 2)
    (3, 5)
    >>> _balanced_sizes(np.array([0, 0, 0, 0]), 4), _balanced_sizes(np.array([100, 0, 0]), 3)
    ((1, 1, 1, 1), (1, 1, 1))
    """
    n = counts.shape[0]
    if n == 0:
        return (0,)
    parts = min(parts, n)
    cost = np.cumsum(counts + 1)
    target = cost[-1] * np.arange(1, parts) / parts
    # a cut after row c - 1 leaves cost[c - 1] before it: the c whose prefix is nearest the target
    c = np.searchsorted(cost, target, side="left")  # cost[c] >= target > cost[c - 1]
    below = np.where(c > 0, cost[np.maximum(c - 1, 0)], 0)
    cuts = np.where(cost[np.minimum(c, n - 1)] - target <= target - below, c + 1, c)
    bounds = [0]
    for i, cut in enumerate(cuts.tolist()):  # every run at least one row long
        bounds.append(min(max(cut, bounds[-1] + 1), n - (parts - 1 - i)))
    bounds.append(n)
    return tuple(int(b) for b in np.diff(bounds))


def from_dask_dense(X, *, fill_value=None, layout="coo", blocksize=None, sparse_ndim=None, index_dtype=None):
    """The dense Dask array ``X`` with every block converted by ``sparray.asarray`` (one fill for all).

    Elements equal to ``fill_value`` (default 0; nan matches nan) are left unspecified. Wrong
    arguments (a layout the block shape cannot take, a fill the dtype cannot hold) fail when the
    graph is built, on the meta.
    """
    if not isinstance(X, da.Array):
        raise TypeError(f"from_dask_dense: X must be a dask.array.Array; got {type(X).__name__}")
    kw = {"layout": layout, "fill_value": fill_value, "blocksize": blocksize, "sparse_ndim": sparse_ndim}
    if layout == "2:4":
        if X.ndim < 2:
            raise ValueError(f"from_dask_dense: layout '2:4' needs at least 2 dims (*batch, rows, cols); got shape {X.shape}")
        if any(c % GROUP for c in X.chunks[-1]):
            raise ValueError(f"from_dask_dense: layout '2:4' needs chunks along the last dim that are multiples of "
                             f"{GROUP} (each block is a 2:4 array); got {X.chunks[-1]}")
        if index_dtype is not None:
            raise ValueError(f"from_dask_dense: a 2:4 array has no index arrays (its metadata is uint16); "
                             f"got index_dtype={index_dtype!r}")
    if layout in ("bsr", "bsc"):
        if blocksize is None:
            raise ValueError("from_dask_dense: layout 'bsr'/'bsc' needs blocksize=(bh, bw)")
        nondense = X.ndim if sparse_ndim is None else sparse_ndim
        b = nondense - 2  # the batch dims come first, then the two sparse dims
        for dim, step in zip((b, b + 1), blocksize):
            if any(c % step for c in X.chunks[dim]):
                raise ValueError(
                    f"from_dask_dense: chunks along dim {dim} must be multiples of the blocksize {tuple(blocksize)}; "
                    f"got {X.chunks[dim]}"
                )
    meta_block = np.empty((0,) * X.ndim, dtype=X.dtype)
    meta = _convert_block(meta_block, kw, index_dtype)
    return X.map_blocks(_convert_block, kw, index_dtype, dtype=X.dtype, meta=meta)


def _convert_block(block, kw, index_dtype):
    A = sparray.asarray(np.asarray(block), **{k: v for k, v in kw.items() if v is not None or k == "fill_value"})
    if index_dtype is not None and dtype_name(A.index_dtype) != np.dtype(index_dtype).name:
        A = _as_index_dtype(A, np.dtype(index_dtype).name)
    return A


def _as_index_dtype(A, name):
    """``A`` with its index components cast to ``name`` ("int32" or "int64"); values and fill shared.
    Built through the pickle form (``sparray._array.pickle``): every layout's components in order, the
    values last."""
    from sparray._array.pickle import reduce_array

    rebuild, (cls, comps, shape, fill, flags) = reduce_array(A, 5)
    xp = A._xp
    idt = getattr(xp, name)
    return rebuild(cls, tuple(xp.astype(c, idt) for c in comps[:-1]) + (comps[-1],), shape, fill, flags)


# --- gathering -----------------------------------------------------------------------------------------
def to_sparray(X, *, fill_value=None, **compute_kwargs):
    """Compute ``X`` and join its chunks into one sparray array (in the chunks' layout when they share
    one, else COO).

    Every sparse chunk must have one fill (nan equal to nan); ValueError otherwise, naming two
    chunks, unless ``fill_value`` is given: then every chunk is expressed with that fill first
    (elements that differ from it become specified: O(size) for a chunk whose fill differs).
    Dense chunks (a NumPy block among sparse ones) take the common fill. ``compute_kwargs`` go to
    ``dask.compute`` (``scheduler=...``).
    """
    if isinstance(X, SparseArray):
        return X
    if not isinstance(X, da.Array):
        raise TypeError(f"to_sparray: X must be a dask.array.Array; got {type(X).__name__}")
    (blocks,) = dask.compute(X.to_delayed().ravel().tolist(), **compute_kwargs)
    grid = np.empty(X.numblocks, dtype=object)
    for flat, block in enumerate(blocks):
        grid[np.unravel_index(flat, X.numblocks)] = block
    sparse = [(i, b) for i, b in enumerate(blocks) if isinstance(b, SparseArray)]
    if fill_value is not None:
        for idx in np.ndindex(*X.numblocks):
            grid[idx] = _with_fill(grid[idx], fill_value)
    else:
        _check_one_fill(sparse, X.numblocks)
    if not sparse and fill_value is None:
        grid = np.vectorize(lambda b: sparray.asarray(np.asarray(b)), otypes=[object])(grid)
    out = _join_grid(grid)
    index_dtypes = {dtype_name(b.index_dtype) for _, b in sparse if b.layout != "2:4"}  # 2:4: uint16 metadata
    if len(index_dtypes) == 1 and out.layout != "2:4":  # the chunks' index dtype, where the joined array allows it
        (idt,) = index_dtypes
        if dtype_name(out.index_dtype) != idt and (idt == "int64" or max(out.shape + (out.nse,)) < 2**31):
            out = _as_index_dtype(out, idt)
    return out


def _check_one_fill(sparse, numblocks):
    """ValueError unless the sparse chunks share one fill; a dense-part fill is compared between
    chunks at the same block position along the dense dims (each holds its slice of the fill)."""
    first = {}
    for i, b in sparse:
        idx = np.unravel_index(i, numblocks)
        key = tuple(int(k) for k in idx[b.ndim - b.dense_ndim :]) if b.fill_value.ndim else ()
        i0, ref = first.setdefault(key, (i, b))
        if not _same_fill(ref, b):
            where = [tuple(int(k) for k in np.unravel_index(j, numblocks)) for j in (i0, i)]
            raise ValueError(
                f"to_sparray: chunks {where[0]} and {where[1]} have different fill values ({_fill_text(ref)} and "
                f"{_fill_text(b)}); pass fill_value= to express every chunk with one fill"
            )


def _with_fill(block, fill_value):
    """A chunk expressed with ``fill_value`` (itself when its fill is that already)."""
    if isinstance(block, SparseArray):
        return sparray.asarray(block, fill_value=fill_value, layout=block.layout)
    return sparray.asarray(np.asarray(block), fill_value=fill_value)


def _join_grid(grid):
    """The blocks of an n-d object grid joined along the last grid dim first, then outwards."""
    if grid.ndim == 0:
        return grid[()]
    while grid.ndim > 1:
        axis = grid.ndim - 1
        out = np.empty(grid.shape[:-1], dtype=object)
        for idx in np.ndindex(*grid.shape[:-1]):
            out[idx] = _join(list(grid[idx]), axis)
        grid = out
    return _join(list(grid), 0)


def _join(blocks, axis):
    if len(blocks) == 1:
        b = blocks[0]
        return b if isinstance(b, SparseArray) else sparray.asarray(np.asarray(b))
    joined = semi_concat(blocks, axis)
    return joined if joined is not None else sparray.concat(blocks, axis=axis)
