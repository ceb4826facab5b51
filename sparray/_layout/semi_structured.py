"""Conversions of the 2:4 layout: dense <-> 2:4, 2:4 -> CSR/CSC (the hub), any layout <-> 2:4.

Pure array API (sort, take_along_axis, where, bit operations: no scatter), so the same code serves
NumPy, CuPy and the simulated device; the registry may name faster kernels for ``semi_encode`` and
``semi_decode`` (``kernels/cpu/semi_structured.py``). The component layout is the class's
(``sparray._array.semi_structured``).

- **Encoding** keeps, in each group of 4, the elements that differ from the fill (``same_value``:
  nan-aware, -0.0 differs from +0.0), at most 2 of them, else ValueError naming the first row and
  group; a group with fewer keeps its lowest free positions (an all-fill group: 0x4).
- **Decoding** writes each kept value at its position and the fill elsewhere (four ``where``\\ s).
- **The hub**: every kept position an entry of a CSR (row pointers ``r * cols / 2``, column
  indices ``4g + i``; a CSC of the same arrays when ``transposed``), kept on the array (``A._hub``)
  while its components are the same objects.
- **Other layouts -> 2:4** go through the dense form: a 2:4 array holds half the dense elements
  anyway, so it costs at most twice the result's memory.

>>> import numpy as np, array_api_compat.numpy as xp
>>> v, m = encode(xp, np.array([[0.0, 3.0, 0.0, 4.0]]), xp.asarray(0.0))
>>> v.tolist(), hex(int(m[0, 0]))         # code 0xD (positions 1, 3); unused nibbles 0x4
([[3.0, 4.0]], '0x444d')
>>> decode(xp, v, m, xp.asarray(-1.0), 4).tolist()
[[-1.0, 3.0, -1.0, 4.0]]
"""

from __future__ import annotations

import math

from .._array.semi_structured import GROUP, WORD_GROUPS, SemiStructured, metadata_columns
from .._core.fill import normalize_fill, same_value
from .._core.namespace import namespace_of
from .._engine import dispatch as _dispatch
from ..kernels._kept import KeptPerArray

__all__ = ["encode", "decode", "check_metadata", "from_dense", "to_dense", "to_compressed", "to_layout"]

_EMPTY_CODE = 0x4  #: positions (0, 1): what an all-fill group and an unused nibble hold


def encode(xp, x, fill, who="asarray"):
    """``(values, metadata)`` of the dense ``x`` (``(*batch, rows, cols)``, ``cols % 4 == 0``) against
    the 0-d ``fill`` (see the module docstring); ValueError past 2 non-fill elements in a group."""
    return _dispatch.call("semi_encode", "2:4", xp, x, fill, who, work=math.prod(x.shape) // GROUP)


@_dispatch.register("semi_encode", "2:4", "generic")
def _encode_generic(xp, x, fill, who):
    *lead, cols = (int(s) for s in x.shape)
    ngroups = cols // GROUP
    groups = xp.reshape(x, (*lead, ngroups, GROUP))
    other = ~same_value(xp, groups, fill)
    count = xp.sum(xp.astype(other, xp.int8), axis=-1, dtype=xp.int8)
    too_many = count > 2
    if math.prod(too_many.shape) and bool(xp.any(too_many)):
        _raise_too_many(xp, too_many, count, lead, who)
    pos = xp.arange(GROUP, dtype=xp.int8)
    key = xp.where(other, pos, pos + GROUP)  # the non-fill positions first, then the free ones, by position
    first2 = xp.sort(key, axis=-1)[..., :2] % GROUP
    i0 = xp.minimum(first2[..., 0], first2[..., 1])
    i1 = xp.maximum(first2[..., 0], first2[..., 1])
    kept = xp.stack([i0, i1], axis=-1)
    values = xp.take_along_axis(groups, xp.astype(kept, xp.int64), axis=-1)
    values = xp.reshape(values, (*lead, cols // 2))
    codes = xp.astype(i0, xp.uint16) | (xp.astype(i1, xp.uint16) << 2)
    return values, pack_codes(xp, codes)


def pack_codes(xp, codes):
    """uint16 words of 4 codes each (``(*lead, ngroups)`` -> ``(*lead, ceil(ngroups / 4))``), unused
    nibbles 0x4."""
    *lead, ngroups = codes.shape
    words = -(-ngroups // WORD_GROUPS)
    extra = words * WORD_GROUPS - ngroups
    if extra:
        pad = xp.full((*lead, extra), _EMPTY_CODE, dtype=xp.uint16, device=_device(codes))
        codes = xp.concat([codes, pad], axis=-1)
    c = xp.reshape(codes, (*lead, words, WORD_GROUPS))
    return c[..., 0] | (c[..., 1] << 4) | (c[..., 2] << 8) | (c[..., 3] << 12)


def unpack_codes(xp, metadata, ngroups):
    """The 4-bit codes ``(*lead, ngroups)`` of the words ``metadata``, as uint16."""
    *lead, words = metadata.shape
    shifts = xp.asarray([0, 4, 8, 12], dtype=xp.uint16, device=_device(metadata))
    codes = (metadata[..., None] >> shifts) & xp.asarray(0xF, dtype=xp.uint16)
    return xp.reshape(codes, (*lead, words * WORD_GROUPS))[..., :ngroups]


def _raise_too_many(xp, too_many, count, lead, who):
    import numpy as np

    from .._core.namespace import to_numpy

    bad = np.asarray(to_numpy(too_many))
    where = np.unravel_index(int(np.flatnonzero(bad.reshape(-1))[0]), bad.shape)
    *batch, row, group = (int(i) for i in where)
    n = int(np.asarray(to_numpy(count))[where])
    at = f"batch {tuple(batch)}, " if batch else ""
    raise ValueError(
        f"{who}: a 2:4 array holds at most 2 elements other than the fill in each group of 4 along a row; "
        f"{at}row {row}, group {group} (columns {GROUP * group}..{GROUP * group + 3}) has {n} "
        "(sparray.prune_2_4(x) keeps the 2 largest magnitudes of every group)"
    )


def decode(xp, values, metadata, fill, cols):
    """The dense ``(*batch, rows, cols)`` array of the stored matrix of these components."""
    return _dispatch.call("semi_decode", "2:4", xp, values, metadata, fill, cols, work=math.prod(values.shape) // 2)


@_dispatch.register("semi_decode", "2:4", "generic")
def _decode_generic(xp, values, metadata, fill, cols):
    *lead, half = (int(s) for s in values.shape)
    ngroups = cols // GROUP
    codes = unpack_codes(xp, metadata, ngroups)
    i0, i1 = codes & 3, codes >> 2
    pairs = xp.reshape(values, (*lead, ngroups, 2))
    v0, v1 = pairs[..., 0], pairs[..., 1]
    f = xp.astype(fill, values.dtype)
    parts = [xp.where(i0 == p, v0, xp.where(i1 == p, v1, f)) for p in range(GROUP)]
    return xp.reshape(xp.stack(parts, axis=-1), (*lead, cols))


def check_metadata(xp, metadata, cols, who="SemiStructured"):
    """ValueError naming the first row and group whose code is not one of the six valid ones (or
    an unused nibble that is not 0x4); one read of the result on a GPU."""
    ngroups = cols // GROUP
    if not math.prod(metadata.shape):
        return
    codes = unpack_codes(xp, metadata, metadata.shape[-1] * WORD_GROUPS)
    used = codes[..., :ngroups]
    bad_used = (used & 3) >= (used >> 2)  # i0 < i1 holds for exactly the six valid codes
    bad_unused = codes[..., ngroups:] != _EMPTY_CODE
    if not (bool(xp.any(bad_used)) or bool(xp.any(bad_unused))):
        return
    import numpy as np

    from .._core.namespace import to_numpy

    bad = np.concatenate([np.asarray(to_numpy(bad_used)), np.asarray(to_numpy(bad_unused))], axis=-1)
    where = np.unravel_index(int(np.flatnonzero(bad.reshape(-1))[0]), bad.shape)
    *batch, row, group = (int(i) for i in where)
    code = int(np.asarray(to_numpy(codes))[where])
    at = f"batch {tuple(batch)}, " if batch else ""
    if group < ngroups:
        raise ValueError(f"{who}: metadata {at}row {row}, group {group} holds the code {code:#x}; a code is i0 | i1 << 2 "
                         f"with kept positions i0 < i1, one of 0x4, 0x8, 0xc, 0x9, 0xd, 0xe")
    raise ValueError(f"{who}: metadata {at}row {row} holds {code:#x} in the unused nibble {group} (past the "
                     f"{ngroups} groups of {cols} columns); unused nibbles must hold 0x4")


def from_dense(x, fill_value=None, who="asarray"):
    """The 2:4 array of the dense ``x`` (at least 2-d; the dims before the last two are batch dims)."""
    xp = namespace_of(x)
    if x.ndim < 2:
        raise ValueError(f"{who}: layout='2:4' needs at least 2 dims (*batch, rows, cols); got shape {tuple(x.shape)}")
    shape = tuple(int(s) for s in x.shape)
    if shape[-1] % GROUP:
        raise ValueError(f"{who}: layout='2:4' needs a number of columns that is a multiple of {GROUP}; got shape {shape} "
                         f"(pad the columns first: sparray.pad(x, [(0, 0), (0, {-shape[-1] % GROUP})]))")
    fill = normalize_fill(xp, fill_value, x.dtype, (), who)
    if fill.ndim == 1 and fill.shape[0] == 0:
        raise ValueError(f"{who}: layout='2:4' stores 2 of every 4 elements of a dense array and needs a fill value for "
                         "the other 2; the undefined fill has none (give a fill, e.g. fill_value=0)")
    if fill.ndim:
        raise ValueError(f"{who}: layout='2:4' takes one fill value (0-d); got shape {tuple(fill.shape)}")
    values, metadata = encode(xp, x, fill, who)
    return SemiStructured._from_parts(xp, values, metadata, shape, fill, checked=True)


def to_dense(A):
    """The dense array ``A`` stands for (the stored matrix decoded, then transposed if ``A`` is)."""
    xp = A._xp
    A._check_contents()
    dense = decode(xp, A._values, A._metadata, A._fill, A._stored_shape[-1])
    return xp.matrix_transpose(dense) if A._transposed else dense


def to_compressed(A):
    """The CSR (``A.transposed``: CSC) whose entries are A's kept positions, with A's values (a view)."""
    from .._array.compressed import CSC, CSR

    kept = A.__dict__.get("_hub")  # (values, metadata, transposed, fill, hub) of the last call
    if kept is not None and kept[0] is A._values and kept[1] is A._metadata and kept[2] == A._transposed and kept[3] is A._fill:
        return kept[4]
    xp = A._xp
    *batch, rows, cols = A._stored_shape
    nse = rows * (cols // 2)
    ptr, minor = _pattern(A)
    values = xp.reshape(A._values, (*batch, nse))
    cls = CSC if A._transposed else CSR
    hub = cls._from_parts(xp, ptr, minor, values, A._shape, A._fill, checked=True)
    A._hub = (A._values, A._metadata, A._transposed, A._fill, hub)
    return hub


_PATTERNS = KeptPerArray()  # metadata -> (row pointers, column indices) of its CSR


def _pattern(A):
    """The hub's index arrays for A's metadata, kept per metadata object: arrays that share their
    metadata (``sin(A)``, ``A > 0``, ``A.mT``) share their hubs' indices, so the functions see one
    pattern (``A + sin(A)`` merges nothing, ``where(A > 0, A, 0)`` stays 2:4)."""
    kept = _PATTERNS.get(A._metadata)
    if kept is not None:
        return kept
    xp = A._xp
    A._check_contents()
    *batch, rows, cols = A._stored_shape
    half, ngroups = cols // 2, cols // GROUP
    nse = rows * half
    idt = xp.int32 if nse < 2**31 else xp.int64
    dev = _device(A._values)
    ptr = xp.arange(rows + 1, dtype=idt, device=dev) * half
    codes = unpack_codes(xp, A._metadata, ngroups)
    base = xp.arange(ngroups, dtype=idt, device=dev) * GROUP
    cols_kept = xp.stack([base + xp.astype(codes & 3, idt), base + xp.astype(codes >> 2, idt)], axis=-1)
    minor = xp.reshape(cols_kept, (*batch, nse))
    if batch:
        ptr = xp.asarray(xp.broadcast_to(ptr, (*batch, rows + 1)), copy=True)
    _PATTERNS.put(A._metadata, (ptr, minor))
    return ptr, minor


def to_layout(A, layout, blocksize=None, dense_ndim=None):
    """``A`` (of any layout) in the layout "2:4" (``layout``; the other way is ``A.as_hub()`` and
    the hub's conversions)."""
    if layout != "2:4":
        raise ValueError(f"to_layout: expected layout '2:4' here; got {layout!r}")
    if blocksize is not None:
        raise ValueError(f"to_layout: blocksize is only meaningful for layout 'bsr' or 'bsc'; got {blocksize!r} for '2:4'")
    if dense_ndim not in (None, 0):
        raise ValueError(f"to_layout: a 2:4 array has no dense dims; got dense_ndim={dense_ndim}")
    if A.layout == "2:4":
        return A
    if A.ndim < 2:
        raise ValueError(f"to_layout: layout '2:4' needs at least 2 dims (*batch, rows, cols); got shape {A.shape}")
    fill = A._fill
    if fill.ndim:
        xp = A._xp
        first = xp.reshape(fill, (-1,))[:1]
        if not bool(xp.all(same_value(xp, fill, xp.reshape(first, ())))):
            raise ValueError(f"to_layout: layout '2:4' holds one fill value; this array's fill varies along its dense dims "
                             f"(shape {tuple(fill.shape)})")
        fill = xp.reshape(first, ())
    return from_dense(A.to_dense(), fill, who="to_layout")


def _device(x):
    import array_api_compat

    return array_api_compat.device(x)
