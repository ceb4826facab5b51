"""Compressed (CSR/CSC/BSR-style) layouts on a GPU: the CUDA twin of ``kernels/cpu/compress.py``.

Same functions, arguments, results and errors as the numba kernels (see their docstrings for the
full contract):

- :func:`compress_offsets` -- sorted keys -> bucket offsets: one binary search per bucket
  (``bucket_starts``) next to a parallel check of the keys (``check_keys``).
- :func:`expand_offsets` -- offsets -> the row of every entry: one binary search per entry, so a
  single huge row is spread over the whole grid.
- :func:`transpose_compressed` -- every entry's new bucket (``transpose_keys``), a stable radix
  argsort of the buckets (CUB through CuPy), then gathers: within a bucket, entries keep their
  input order, exactly as the CPU's stable counting sort orders them.
- :func:`dense_to_compressed` -- a flag per position (``specified_flags``: sparray's fill rule,
  bit equality with any NaN matching a NaN fill),
  ``flatnonzero``, then gathers and a binary search per row for the offsets.
- :func:`compressed_to_dense` -- fill, then one thread per (entry, word) scatter; when some row is
  not strictly increasing (a position may repeat) the scatter goes through a stable sort of the
  destinations and only the last entry of each run writes, so the later entry wins.
- :func:`scatter_blocks` -- fill, then the same scatter (a repeated position: some entry wins).

Index inputs are 1-D int32/int64 (other integer dtypes become int64); ``index_dtype`` is
np.int32 or np.int64 (or its dtype). Values (and dense input) are bool, (u)int8..64, float32/64 or
complex64/128 (anything else raises KernelDeclined); kernels that only move values see them as
unsigned words of their item size (complex128 as 16-byte words), so they compile once per width.
A bad index is never used as an address: kernels record it (count, first position) and the
launcher raises the numba kernel's ValueError naming it. The only values read back to the host
are those verdicts and sizes (one to three scalars a call; more only to word an error). Called by
the registry (``_trust.inputs_proven()``: the indices were validated once already) a launcher
leaves its verdicts unread and reads only sizes: ``transpose_compressed`` (CSR <-> CSC) and
``compress_offsets(checked=True)`` then read nothing, ``expand_offsets`` the entry count.

>>> import numpy as np
>>> off = compress_offsets(np.array([0, 0, 2]), 4, np.int64)  # NumPy input: emulated
>>> off.tolist(), expand_offsets(off, np.int32).tolist()
([0, 2, 2, 3, 3], [0, 0, 2])
>>> t_off, t_minor, t_val = transpose_compressed(off, np.array([1, 3, 1]), np.array([[1.0], [2.0], [3.0]]),
...                                              1, 4, 4, np.int64)
>>> t_off.tolist(), t_minor.tolist(), t_val.ravel().tolist()
([0, 0, 2, 2, 3], [0, 2, 0], [1.0, 3.0, 2.0])
"""

from __future__ import annotations

import numpy as np

from ._arrays import stable_argsort
from ._build import VALUE_DTYPES, WORD_TYPES, c_type, index_type
from ._driver import driver_for
from ._trust import inputs_proven

__all__ = [
    "compress_offsets", "expand_offsets", "transpose_compressed", "dense_to_compressed",
    "compressed_to_dense", "scatter_blocks",
]  # fmt: skip

SOURCE = "compress.cu"

_IDX = ("int", "long long")
_WORDS = tuple(WORD_TYPES.values())
#: dense_to_compressed compares words (floats as the words of their real parts, with NaN flags)
_COMPARE = _WORDS[:4]
NAME_EXPRESSIONS = (
    tuple(f"check_keys<{k}>" for k in _IDX)
    + tuple(f"bucket_starts<{k}, {o}>" for k in _IDX for o in _IDX)
    + ("check_offsets",)
    + tuple(f"expand_rows<{o}>" for o in _IDX)
    + tuple(f"transpose_keys<{i}, {o}>" for i in _IDX for o in _IDX)
    + tuple(f"gather_rows<{w}>" for w in _WORDS)
    + tuple(f"specified_flags<{t}>" for t in _COMPARE)
    + tuple(f"fill_rows<{w}>" for w in _WORDS)
    + tuple(f"entry_dest<{i}>" for i in _IDX)
    + tuple(f"block_dest<{i}, {j}>" for i in _IDX for j in _IDX)
    + tuple(f"scatter_rows<{w}>" for w in _WORDS)
    + tuple(f"scatter_last<{w}>" for w in _WORDS)
)

_INDEX_DTYPES = (np.dtype(np.int32), np.dtype(np.int64))
_UINT_OF_SIZE = {1: np.uint8, 2: np.uint16, 4: np.uint32, 8: np.uint64}


# ---- argument checks (the numba kernels' wording) ---------------------------------------------


def _index(xp, a, name):
    """``a`` as a 1-D C-contiguous int32/int64 array (other integer dtypes become int64)."""
    a = xp.asarray(a)
    if a.ndim != 1:
        raise ValueError(f"{name} must be 1-D, got shape {a.shape}")
    if a.dtype not in _INDEX_DTYPES:
        if a.dtype.kind not in "iu" and a.size:
            raise ValueError(f"{name} must hold integers, got dtype {a.dtype}")
        a = a.astype(xp.int64)
    return xp.ascontiguousarray(a)


def _index_dtype(index_dtype):
    dt = np.dtype(index_dtype)
    if dt not in _INDEX_DTYPES:
        raise ValueError(f"index_dtype must be int32 or int64, not {dt}")
    return dt


def _fits(dt, value, what):
    if value > np.iinfo(dt).max:
        raise ValueError(f"{what} = {value} does not fit in index_dtype {dt}; use int64")


def _count(n, name):
    n = int(n)
    if n < 0:
        raise ValueError(f"{name} must be >= 0, got {n}")
    return n


def _check_dtype(dtype, name):
    from .. import KernelDeclined

    if dtype not in VALUE_DTYPES:
        raise KernelDeclined(
            f"{name} has dtype {dtype}, which the CUDA kernels do not support "
            "(supported: bool, (u)int8..64, float32/64, complex64/128); cast first or use "
            "the generic implementation"
        )


def _fill_vector(xp, fill, dtype, m):
    """``fill`` cast to ``dtype`` (as NumPy's astype casts) and broadcast to a contiguous (m,) row."""
    fill = xp.asarray(fill)
    if fill.dtype != dtype:
        fill = fill.astype(dtype)
    return xp.ascontiguousarray(xp.broadcast_to(fill, (m,)))


def _words(a):
    """``a`` seen as unsigned words of its item size (16-byte items stay as they are: the kernels'
    sp_word16 has their size, and only the size is checked)."""
    size = a.dtype.itemsize
    return a if size == 16 else a.view(_UINT_OF_SIZE[size])


def _stats(xp, n):
    """Cells for a kernel's bad-entry record: [count, first position (sentinel n), flag]."""
    return xp.asarray(np.array([0, n, 0], np.uint64))


# ---- offsets validation ------------------------------------------------------------------------


def _launch_offsets_check(drv, offsets, total):
    """Launch ``check_offsets`` (nothing is read back yet); returns its result cell."""
    n = offsets.shape[0]
    bad = drv.xp.full(1, n + 1, drv.xp.uint64)
    drv.launch(SOURCE, "check_offsets", n, (offsets, np.int64(n), np.int64(total), bad))
    return bad


def _raise_bad_offsets(drv, offsets, bad, name="offsets", total=None):
    """ValueError with the numba kernel's message, unless the check found nothing."""
    n = offsets.shape[0]
    g = int(drv.scalar(bad))
    if g == n + 1:
        return
    if g == 0:
        raise ValueError(f"{name}[0] must be 0, got {drv.scalar(offsets[0])}")
    if g < n:
        a, b = drv.scalar(offsets[g]), drv.scalar(offsets[g - 1])
        raise ValueError(f"{name} must be non-decreasing: {name}[{g}] = {a} < {name}[{g - 1}] = {b}")
    raise ValueError(f"{name}[-1] = {drv.scalar(offsets[n - 1])} but there are {total} entries")


def _offsets64(xp, offsets, name="offsets"):
    offsets = _index(xp, offsets, name).astype(xp.int64, copy=False)
    if offsets.shape[0] == 0:
        raise ValueError(f"{name} must have at least one element (offsets[0] = 0)")
    return offsets


def _raise_bad_minor(drv, who, minor, stats, nminor):
    nbad = int(drv.scalar(stats[0:1]))
    if nbad:
        k = int(drv.scalar(stats[1:2]))
        raise ValueError(
            f"{who}: {nbad} minor indices outside [0, nminor = {nminor}); first minor[{k}] = {drv.scalar(minor[k])}"
        )


# ---- compress_offsets / expand_offsets ---------------------------------------------------------


def compress_offsets(keys, nbuckets, index_dtype, checked=False):
    """Bucket offsets of sorted keys: COO row indices (sorted) -> CSR row pointers.

    keys: int32/int64[n], non-decreasing, each in [0, nbuckets); returns index_dtype[nbuckets + 1]
    with offsets[k] = number of keys < k. ValueError naming the first position whose key is out of
    range or smaller than its predecessor, unless ``checked`` (the caller has checked the keys:
    the checking launch is skipped; the binary searches read only inside ``keys`` either way).

    >>> compress_offsets(np.array([1, 1, 3]), 5, np.int32).tolist()
    [0, 0, 2, 2, 3, 3]
    """
    drv = driver_for(keys)
    xp = drv.xp
    keys = _index(xp, keys, "keys")
    nbuckets = _count(nbuckets, "nbuckets")
    dt = _index_dtype(index_dtype)
    n = keys.shape[0]
    _fits(dt, n, "len(keys)")
    out = xp.empty(nbuckets + 1, dt)
    if n == 0:
        out[:] = 0
        return out
    first = xp.full(1, n, xp.uint64)
    if not checked:
        drv.launch(SOURCE, f"check_keys<{index_type(keys.dtype)}>", n, (keys, np.int64(n), np.int64(nbuckets), first))
    name = f"bucket_starts<{index_type(keys.dtype)}, {index_type(dt)}>"
    drv.launch(SOURCE, name, nbuckets + 1, (keys, np.int64(n), np.int64(1), np.int64(nbuckets + 1), out))
    bad = n if checked else int(drv.scalar(first))
    if bad < n:
        k = int(drv.scalar(keys[bad]))
        if k < 0 or k >= nbuckets:
            why = f"outside [0, nbuckets = {nbuckets})"
        else:
            why = f"smaller than keys[{bad - 1}] = {drv.scalar(keys[bad - 1])}"
        raise ValueError(
            f"compress_offsets: keys must be non-decreasing and in [0, {nbuckets}); keys[{bad}] = {k} is {why}"
        )
    return out


def expand_offsets(offsets, index_dtype, nnz=None):
    """The bucket of every entry: CSR row pointers -> COO rows (index_dtype[offsets[-1]]).

    ValueError if offsets[0] != 0 or offsets decrease somewhere (or offsets[-1] != ``nnz``). With
    ``nnz`` (the entry count, known to the caller) and proven offsets, nothing is read back.

    >>> expand_offsets(np.array([0, 2, 2, 3]), np.int64).tolist()
    [0, 0, 2]
    """
    drv = driver_for(offsets)
    xp = drv.xp
    offsets = _offsets64(xp, offsets)
    dt = _index_dtype(index_dtype)
    total = -1 if nnz is None else int(nnz)
    if not inputs_proven():  # the registry's offsets were proven valid: no wait for the report
        _raise_bad_offsets(drv, offsets, _launch_offsets_check(drv, offsets, total), total=total)
    G = offsets.shape[0] - 1
    _fits(dt, max(G - 1, 0), "the largest row index")
    nnz = int(drv.scalar(offsets[G])) if nnz is None else total
    rows = xp.empty(nnz, dt)
    if nnz:
        drv.launch(SOURCE, f"expand_rows<{index_type(dt)}>", nnz, (offsets, np.int64(G), np.int64(nnz), rows))
    return rows


# ---- transpose_compressed ----------------------------------------------------------------------


def transpose_compressed(offsets, minor, values, nbatch, nmajor, nminor, index_dtype):
    """Re-compress a batched compressed array along its other axis (CSR -> CSC), per batch.

    offsets: int32/int64[nbatch * nmajor + 1] (global, valid, ending at nnz); minor: [nnz] in
    [0, nminor); values: (nnz, m). Returns (t_offsets index_dtype[nbatch * nminor + 1], t_minor
    index_dtype[nnz] (the major index within its batch), t_values (nnz, m)), entries ordered by
    (batch, minor) bucket and, within a bucket, by input position.

    >>> t = transpose_compressed(np.array([0, 1, 3]), np.array([2, 0, 2]), np.arange(3.0)[:, None],
    ...                          1, 2, 3, np.int64)
    >>> [a.ravel().tolist() for a in t]
    [[0, 1, 1, 3], [1, 0, 1], [1.0, 0.0, 2.0]]
    """
    drv = driver_for(offsets, minor, values)
    xp = drv.xp
    offsets = _index(xp, offsets, "offsets").astype(xp.int64, copy=False)
    minor = _index(xp, minor, "minor")
    values = xp.asarray(values)
    _check_dtype(values.dtype, "values")
    nbatch = _count(nbatch, "nbatch")
    nmajor = _count(nmajor, "nmajor")
    nminor = _count(nminor, "nminor")
    dt = _index_dtype(index_dtype)
    nnz = minor.shape[0]
    if values.ndim != 2 or values.shape[0] != nnz:
        raise ValueError(f"transpose_compressed: values must be (nnz, m) with nnz = len(minor) = {nnz}; got {values.shape}")
    nrows = nbatch * nmajor
    if offsets.shape[0] != nrows + 1:
        raise ValueError(
            f"transpose_compressed: offsets must have nbatch * nmajor + 1 = {nrows + 1} elements, got {offsets.shape[0]}"
        )
    proven = inputs_proven()  # the registry's offsets and minor indices were proven valid
    bad_offsets = None if proven else _launch_offsets_check(drv, offsets, nnz)
    NB = nbatch * nminor
    m = values.shape[1]
    if nnz and nrows:  # memory-safe whatever the offsets: launched before their check is read
        bucket = xp.empty(nnz, xp.int64)
        major = xp.empty(nnz, dt)
        stats = _stats(xp, nnz)
        name = f"transpose_keys<{index_type(minor.dtype)}, {index_type(dt)}>"
        args = (offsets, np.int64(nrows), np.int64(nmajor), np.int64(nminor), minor, np.int64(nnz), bucket, major, stats)
        drv.launch(SOURCE, name, nnz, args)
    if not proven:
        _raise_bad_offsets(drv, offsets, bad_offsets, total=nnz)
    _fits(dt, nnz, "nnz")
    _fits(dt, max(nmajor - 1, 0), "nmajor - 1")
    if nnz == 0:
        return xp.zeros(NB + 1, dt), xp.empty(0, dt), xp.empty(values.shape, values.dtype)
    if NB == 0:
        raise ValueError(f"transpose_compressed: minor[0] = {drv.scalar(minor[0])} is outside [0, nminor = {nminor})")
    if not proven:
        _raise_bad_minor(drv, "transpose_compressed", minor, stats, nminor)
    perm = stable_argsort(xp, bucket)
    sorted_bucket = _gather(drv, perm, bucket)
    t_minor = _gather(drv, perm, major)
    t_values = _gather(drv, perm, xp.ascontiguousarray(values))
    t_offsets = xp.empty(NB + 1, dt)
    name = f"bucket_starts<long long, {index_type(dt)}>"
    drv.launch(SOURCE, name, NB + 1, (sorted_bucket, np.int64(nnz), np.int64(1), np.int64(NB + 1), t_offsets))
    return t_offsets, t_minor, t_values


def _gather(drv, perm, src):
    """``src[perm]`` for a 1-D or (n, m) C-contiguous ``src``, moved as words."""
    out = drv.xp.empty((perm.shape[0],) + src.shape[1:], src.dtype)
    w = src.shape[1] if src.ndim == 2 else 1
    if out.size:
        name = f"gather_rows<{WORD_TYPES[src.dtype.itemsize]}>"
        drv.launch(SOURCE, name, out.size, (perm, np.int64(perm.shape[0]), _words(src), np.int64(w), _words(out)))
    return out


# ---- dense_to_compressed / compressed_to_dense / scatter_blocks --------------------------------


def dense_to_compressed(dense, fill, index_dtype):
    """The specified positions of a dense (N, C, m) array, compressed by row (dense -> CSR).

    fill: (m,) or broadcastable, cast to dense.dtype. Returns (offsets index_dtype[N + 1], minor
    index_dtype[nse] (increasing within each row), values (nse, m)): position (r, c) is specified
    when some dense[r, c, t] is not the same as fill[t] (``sparray._core.fill.same_value``: equal with
    the same sign of zero, or NaN on both sides; complex numbers part by part).

    >>> off, mi, va = dense_to_compressed(np.array([[[0.0], [5.0]], [[np.nan], [-0.0]]]), np.array([0.0]), np.int32)
    >>> off.tolist(), mi.tolist(), va.ravel().tolist()
    ([0, 1, 3], [1, 0, 1], [5.0, nan, -0.0])
    """
    drv = driver_for(dense)
    xp = drv.xp
    dense = xp.asarray(dense)
    _check_dtype(dense.dtype, "dense")
    if dense.ndim != 3:
        raise ValueError(f"dense_to_compressed: dense must be (N, C, m), got shape {dense.shape}")
    dt = _index_dtype(index_dtype)
    N, C, m = dense.shape
    fill = _fill_vector(xp, fill, dense.dtype, m)
    _fits(dt, max(C - 1, 0), "C - 1")
    if N * C * m == 0:  # nothing can be specified
        return xp.zeros(N + 1, dt), xp.empty(0, dt), xp.empty((0, m), dense.dtype)
    dense = xp.ascontiguousarray(dense)
    npos = N * C
    flags = xp.empty(npos, xp.uint8)
    d, f, fnan, nan_mask, inf_bits = _compare_words(xp, dense, fill)
    t = WORD_TYPES[d.dtype.itemsize]
    args = (d, np.int64(npos), np.int64(f.shape[0]), f, fnan, nan_mask, inf_bits, flags)
    drv.launch(SOURCE, f"specified_flags<{t}>", npos, args)
    pos = xp.flatnonzero(flags).astype(xp.int64, copy=False)
    nse = pos.shape[0]
    _fits(dt, nse, "the number of specified positions")
    offsets = xp.empty(N + 1, dt)
    name = f"bucket_starts<long long, {index_type(dt)}>"
    drv.launch(SOURCE, name, N + 1, (pos, np.int64(nse), np.int64(C), np.int64(N + 1), offsets))
    minor = (pos % C).astype(dt)
    return offsets, minor, _gather(drv, pos, dense.reshape(npos, m))


def _compare_words(xp, dense, fill):
    """dense (N, C, m) and fill (m,) as the words ``specified_flags`` compares: floats as the
    unsigned words of their real parts (complex: 2m per position), so bit equality is "same value
    and same sign of zero"; the NaN flags of the fill words and the word type's NaN mask and inf
    bits. Other dtypes: their own words, no NaN (the numba kernel's rule, kernels/cpu/compress.py)."""
    if dense.dtype.kind in "fc":
        real = np.empty(0, dense.dtype).real.dtype
        words = np.dtype(_UINT_OF_SIZE[real.itemsize])
        f_real = xp.ascontiguousarray(fill).view(real)
        fnan = xp.isnan(f_real).astype(xp.uint8)
        nan_mask = words.type(np.iinfo(words).max >> 1)
        inf_bits = np.array(np.inf, real).view(words)[()]
        return dense.view(real).view(words), f_real.view(words), fnan, nan_mask, inf_bits
    d, f = _words(dense), _words(fill)
    zero = d.dtype.type(0)
    return d, f, xp.zeros(f.shape[0], xp.uint8), zero, zero


def _fill_out(drv, out, fill):
    """Every (m,) row of ``out`` (viewed as (rows, m)) set to ``fill``."""
    m = fill.shape[0]
    nrows = out.size // m if m else 0
    if nrows:
        word = WORD_TYPES[out.dtype.itemsize]
        drv.launch(SOURCE, f"fill_rows<{word}>", nrows * m, (_words(out), np.int64(nrows), np.int64(m), _words(fill)))


def _scatter(drv, dest, values, out, *, later_wins):
    """out row dest[k] = values row k where dest[k] >= 0; with ``later_wins``, through a stable sort
    of dest so that only the last entry of each repeated destination writes."""
    xp = drv.xp
    n, m = values.shape
    if n == 0 or m == 0:
        return
    src, word = _words(xp.ascontiguousarray(values)), WORD_TYPES[values.dtype.itemsize]
    if later_wins:
        perm = stable_argsort(xp, dest)
        sdest = xp.ascontiguousarray(dest[perm])
        drv.launch(SOURCE, f"scatter_last<{word}>", n * m, (perm, sdest, np.int64(n), src, np.int64(m), _words(out)))
    else:
        drv.launch(SOURCE, f"scatter_rows<{word}>", n * m, (dest, np.int64(n), src, np.int64(m), _words(out)))


def compressed_to_dense(offsets, minor, values, fill, nminor):
    """Densify a compressed array (CSR -> dense): (N, nminor, m), fill everywhere, values[k] at
    (row of k, minor[k]); for a repeated position the later entry wins. ValueError for invalid
    offsets or a minor index outside [0, nminor) (never written).

    >>> compressed_to_dense(np.array([0, 1, 1]), np.array([2]), np.array([[7]]), 0, 3)[..., 0].tolist()
    [[0, 0, 7], [0, 0, 0]]
    """
    drv = driver_for(offsets, minor, values)
    xp = drv.xp
    offsets = _index(xp, offsets, "offsets").astype(xp.int64, copy=False)
    minor = _index(xp, minor, "minor")
    values = xp.asarray(values)
    _check_dtype(values.dtype, "values")
    nminor = _count(nminor, "nminor")
    nnz = minor.shape[0]
    if values.ndim != 2 or values.shape[0] != nnz:
        raise ValueError(f"compressed_to_dense: values must be (nnz, m) with nnz = len(minor) = {nnz}; got {values.shape}")
    if offsets.shape[0] == 0:
        raise ValueError("offsets must have at least one element (offsets[0] = 0)")
    proven = inputs_proven()
    bad_offsets = None if proven else _launch_offsets_check(drv, offsets, nnz)
    m = values.shape[1]
    N = offsets.shape[0] - 1
    if nnz and N:  # memory-safe whatever the offsets: launched before their check is read
        dest = xp.empty(nnz, xp.int64)
        stats = _stats(xp, nnz)
        args = (offsets, np.int64(N), minor, np.int64(nnz), np.int64(nminor), dest, stats)
        drv.launch(SOURCE, f"entry_dest<{index_type(minor.dtype)}>", nnz, args)
    if not proven:
        _raise_bad_offsets(drv, offsets, bad_offsets, total=nnz)
    fill = _fill_vector(xp, fill, values.dtype, m)
    out = xp.empty((N, nminor, m), values.dtype)
    if nnz and not proven:
        _raise_bad_minor(drv, "compressed_to_dense", minor, stats, nminor)
    _fill_out(drv, out, fill)
    if nnz:
        _scatter(drv, dest, values, out, later_wins=bool(drv.scalar(stats[2:3])))
    return out


def scatter_blocks(block_ids, slots, values, nblocks, nslots, fill):
    """Pack entries into blocks over a fill (COO -> BSR block data): (nblocks, nslots, m) with
    out[block_ids[k], slots[k]] = values[k], fill elsewhere. A repeated position is memory-safe
    but which entry wins is unspecified. ValueError for an id out of range (never written).

    >>> scatter_blocks(np.array([1]), np.array([0]), np.array([[9]]), 2, 2, -1)[..., 0].tolist()
    [[-1, -1], [9, -1]]
    """
    drv = driver_for(block_ids, slots, values)
    xp = drv.xp
    block_ids = _index(xp, block_ids, "block_ids")
    slots = _index(xp, slots, "slots")
    values = xp.asarray(values)
    _check_dtype(values.dtype, "values")
    nblocks = _count(nblocks, "nblocks")
    nslots = _count(nslots, "nslots")
    n = block_ids.shape[0]
    if slots.shape[0] != n or values.ndim != 2 or values.shape[0] != n:
        raise ValueError(
            f"scatter_blocks: block_ids {block_ids.shape}, slots {slots.shape} and values {values.shape} "
            "must be (n,), (n,), (n, m)"
        )
    m = values.shape[1]
    fill = _fill_vector(xp, fill, values.dtype, m)
    out = xp.empty((nblocks, nslots, m), values.dtype)
    if n:
        dest = xp.empty(n, xp.int64)
        stats = _stats(xp, n)
        name = f"block_dest<{index_type(block_ids.dtype)}, {index_type(slots.dtype)}>"
        drv.launch(SOURCE, name, n, (block_ids, slots, np.int64(n), np.int64(nblocks), np.int64(nslots), dest, stats))
        nbad = 0 if inputs_proven() else int(drv.scalar(stats[0:1]))  # ids from proven indices: no wait
        if nbad:
            k = int(drv.scalar(stats[1:2]))
            raise ValueError(
                f"scatter_blocks: {nbad} entries outside [0, {nblocks}) x [0, {nslots}); "
                f"first block_ids[{k}] = {drv.scalar(block_ids[k])}, slots[{k}] = {drv.scalar(slots[k])}"
            )
    _fill_out(drv, out, fill)
    if n:
        _scatter(drv, dest, values, out, later_wins=False)
    return out
