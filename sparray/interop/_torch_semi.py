"""2:4 arrays and torch's ``SparseSemiStructuredTensor``: CUTLASS's metadata order, both ways.

Two parts. The **format functions** (``cutlass_reorder``, ``cutlass_unreorder``, ``to_cutlass``,
``from_cutlass``) are plain array-API code on the components (NumPy, CuPy, the simulated device)
and never import torch. The **glue** (``semi_structured_tensor``, ``from_semi_structured``) builds
and reads torch's tensors; ``sparray.interop.torch`` calls it for ``to_torch`` / ``from_torch``.

What torch's CUTLASS backend stores (``torch/sparse/_semi_structured_conversions.py``, a port of
CUTLASS's ``reorder_meta()`` in ``tools/util/include/cutlass/util/host_reorder.h`` into the
``ColumnMajorInterleaved<2>`` layout), for a sparse matrix of shape ``(m, k)``:

- ``packed``: ``(m, k // 2)`` in the value dtype, in sparray's order (group g's two kept values
  at ``2g`` and ``2g + 1``, the lower position first): the two layouts agree, so values are shared.
- ``meta``: the groups' 4-bit codes ``i0 | i1 << 2`` (sparray's code), packed little-endian into
  words, then **reordered**. The words, before the reordering:

  - float16, bfloat16: int16 words of 4 codes, ``(m, k // 16)``: sparray's uint16 ``metadata``
    bit for bit;
  - int8: int32 words of 8 codes, ``(m, k // 32)``: two of sparray's words, the first in the low
    half;
  - float32: **1:2**, not 2:4. Each pair of elements keeps one; its nibble is 0x4 (the first) or
    0xE (the second), as if the pair's 8 bytes were four halves. int16 words of 4 nibbles,
    ``(m, k // 8)``. A 2:4 group keeping (0, 1) or (2, 3) fits only when one of its two kept
    values is zero (``to_cutlass`` then moves it; any other group has one element in each pair).

- The reordering moves word ``(r, c)`` of the ``(m, words)`` natural matrix in three steps:
  (1) rows permuted in blocks of ``G`` = 32 rows (16-bit words) or 16 (32-bit words):
  ``R = r // G * G + (r % 8) * I + (r % G) // 8`` with ``I`` = 4 or 2; (2) in each 2 x 2 block of
  ``(R, c)`` the (even R, odd c) word and the (odd R, even c) word trade places; (3) the word goes
  to the flat offset ``(c // 2) * 2m + 2R + c % 2`` (pairs of columns, column major). It needs
  ``m % G == 0`` and an even number of words per row, which torch's minimum shapes imply.

The cuSPARSELt backend's buffer is opaque (values, then metadata in cuSPARSELt's own order, with no
public decoder), so both directions go through the dense matrix there.

>>> import numpy as np, sparray
>>> x = sparray.prune_2_4(np.random.default_rng(0).standard_normal((32, 64)).astype(np.float32))
>>> A = sparray.asarray(x, layout="2:4")
>>> packed, meta = to_cutlass(A.values, A.metadata, "float16")
>>> packed is A.values, meta.shape, meta.dtype
(True, (32, 4), dtype('uint16'))
>>> back = from_cutlass(packed, meta, "float16")[1]
>>> bool(np.all(back == A.metadata))
True
"""

from __future__ import annotations

import array_api_compat

from .._array.semi_structured import GROUP, SemiStructured
from .._core.namespace import namespace_of
from .._layout.semi_structured import pack_codes, unpack_codes

__all__ = [
    "WORD_BITS",
    "cutlass_reorder",
    "cutlass_unreorder",
    "from_cutlass",
    "from_semi_structured",
    "semi_structured_tensor",
    "to_cutlass",
]

#: CUTLASS metadata word size in bits, per torch value dtype (float32: 1:2 pairs, 16-bit words)
WORD_BITS = {"float16": 16, "bfloat16": 16, "int8": 32, "float32": 16}
_PAIR_FIRST, _PAIR_SECOND = 0x4, 0xE  # a 1:2 pair's nibble: halves (0, 1) or (2, 3)


# --- the reordering --------------------------------------------------------------------------------
def _row_block(word_bits):
    """``(G, I)``: rows per permuted block and the interweave of the row permutation."""
    if word_bits == 16:
        return 32, 4
    if word_bits == 32:
        return 16, 2
    raise ValueError(f"cutlass_reorder: CUTLASS metadata words are 16 or 32 bits; got {word_bits}")


def _word_bits(words, who):
    name = str(words.dtype).rsplit(".", 1)[-1]
    bits = {"uint16": 16, "int16": 16, "uint32": 32, "int32": 32}.get(name)
    if bits is None:
        raise TypeError(f"{who}: expected metadata words of dtype uint16/int16 or uint32/int32; got {words.dtype}")
    return bits


def _check_words(words, who):
    if words.ndim != 2:
        raise ValueError(f"{who}: expected a 2-D (rows, words) metadata matrix; got shape {tuple(words.shape)}")
    bits = _word_bits(words, who)
    rows, ncols = (int(s) for s in words.shape)
    group, _ = _row_block(bits)
    if rows % group or ncols % 2:
        raise ValueError(f"{who}: CUTLASS's metadata order needs rows a multiple of {group} and an even number of "
                         f"{bits}-bit words per row; got shape {(rows, ncols)}")
    return bits


def _swap(xp, row, col):
    """Step 2 (its own inverse): (even row, odd col) and (odd row, even col) trade places in 2 x 2 blocks."""
    shift = xp.astype((row % 2 == 0) & (col % 2 == 1), xp.int64) - xp.astype((row % 2 == 1) & (col % 2 == 0), xp.int64)
    return row + shift, col - shift


def _scatter_offsets(xp, rows, ncols, word_bits, device):
    """Flat offset in CUTLASS's order of every word of the natural ``(rows, ncols)`` matrix, C order
    (torch's ``_calculate_meta_reordering_scatter_offsets``)."""
    group, inter = _row_block(word_bits)
    r = xp.reshape(xp.arange(rows, dtype=xp.int64, device=device), (rows, 1))
    c = xp.reshape(xp.arange(ncols, dtype=xp.int64, device=device), (1, ncols))
    big_r = r // group * group + (r % 8) * inter + (r % group) // 8
    big_r, col = _swap(xp, xp.broadcast_to(big_r, (rows, ncols)), xp.broadcast_to(c, (rows, ncols)))
    return xp.reshape((col // 2) * (2 * rows) + 2 * big_r + col % 2, (-1,))


def _gather_offsets(xp, rows, ncols, word_bits, device):
    """The inverse permutation: for each flat offset in CUTLASS's order, the natural word's flat index."""
    group, inter = _row_block(word_bits)
    o = xp.arange(rows * ncols, dtype=xp.int64, device=device)
    big_r, col = _swap(xp, (o % (2 * rows)) // 2, (o // (2 * rows)) * 2 + o % 2)
    r = big_r // group * group + 8 * (big_r % inter) + (big_r % group) // inter
    return r * ncols + col


def cutlass_reorder(words):
    """The natural ``(rows, words)`` metadata matrix in CUTLASS's order (same shape and dtype).

    ``words``: uint16/int16 (float16, bfloat16, float32 values) or uint32/int32 (int8 values),
    ``rows`` a multiple of 32 (16-bit words) or 16 (32-bit words), an even number of words per
    row. Exactly what torch's ``sparse_semi_structured_from_dense_cutlass`` does after packing its
    words; ``cutlass_unreorder`` is the inverse.

    >>> import numpy as np
    >>> w = np.arange(32 * 2, dtype=np.uint16).reshape(32, 2)
    >>> cutlass_reorder(w)[:2].tolist(), bool(np.all(cutlass_unreorder(cutlass_reorder(w)) == w))
    ([[0, 16], [1, 17]], True)
    """
    xp = namespace_of(words)
    bits = _check_words(words, "cutlass_reorder")
    rows, ncols = (int(s) for s in words.shape)
    src = _gather_offsets(xp, rows, ncols, bits, array_api_compat.device(words))
    return xp.reshape(xp.take(xp.reshape(words, (-1,)), src), (rows, ncols))


def cutlass_unreorder(words):
    """The natural ``(rows, words)`` metadata matrix of CUTLASS-ordered ``words`` (inverse of
    ``cutlass_reorder``; torch's ``sparse_semi_structured_to_dense_cutlass`` starts with it)."""
    xp = namespace_of(words)
    bits = _check_words(words, "cutlass_unreorder")
    rows, ncols = (int(s) for s in words.shape)
    dst = _scatter_offsets(xp, rows, ncols, bits, array_api_compat.device(words))
    return xp.reshape(xp.take(xp.reshape(words, (-1,)), dst), (rows, ncols))


# --- sparray's components <-> CUTLASS's -------------------------------------------------------------
def _torch_dtype_name(dtype, who):
    name = str(dtype).rsplit(".", 1)[-1]
    if name not in WORD_BITS:
        raise ValueError(f"{who}: torch's CUTLASS semi-structured format holds {', '.join(WORD_BITS)} values; got {name}")
    return name


def to_cutlass(values, metadata, dtype, *, _who="to_cutlass"):
    """``(packed, meta)`` in torch's CUTLASS format for ``dtype`` (the torch value dtype's name:
    "float16", "bfloat16", "int8" or "float32") from a 2-D 2:4 array's ``values`` and ``metadata``.

    ``packed`` is ``values`` itself (the same object; cast it to ``dtype`` on the torch side), except
    for float32 when a group keeps positions (0, 1) or (2, 3): the 1:2 format then needs new values
    (the group's one non-zero moved into its pair). ``meta``: uint16 ``(rows, cols // 16)``
    (``cols // 8`` for float32) or uint32 ``(rows, cols // 32)`` (int8), reordered; view it as
    int16 / int32 for torch. ValueError for float32 when a pair of columns holds two non-zeros,
    naming the first row and columns, and when the shape misses what the reordering needs.
    """
    who = _who
    name = _torch_dtype_name(dtype, who)
    xp = namespace_of(values, metadata)
    if values.ndim != 2:
        raise ValueError(f"{who}: torch's semi-structured tensors are 2-D; got values of shape {tuple(values.shape)}")
    rows, cols = int(values.shape[0]), 2 * int(values.shape[1])
    ngroups = cols // GROUP
    if name == "float32":
        values, choice = _one_of_two(xp, values, unpack_codes(xp, metadata, ngroups), who)
        nibbles = xp.astype(choice, xp.uint16) * (_PAIR_SECOND - _PAIR_FIRST) + _PAIR_FIRST
        words = pack_codes(xp, xp.reshape(nibbles, (rows, 2 * ngroups)))
    elif name == "int8":
        if metadata.shape[-1] % 2:
            raise ValueError(f"{who}: int8 metadata words hold 8 groups (32 columns); got {cols} columns")
        pairs = xp.astype(xp.reshape(metadata, (rows, -1, 2)), xp.uint32)
        words = pairs[..., 0] | (pairs[..., 1] << 16)
    else:
        words = metadata
    _check_words(words, who)
    return values, cutlass_reorder(words)


def _one_of_two(xp, values, codes, who):
    """float32's 1:2 form: ``(values, choice)``, ``choice`` ``(rows, groups, 2)`` the kept element
    (0 or 1) of each pair. ``values`` comes back as it came when every group already has one kept
    position in each pair."""
    rows, ngroups = (int(s) for s in codes.shape)
    i0, i1 = codes & 3, codes >> 2
    split = (i0 < 2) & (i1 >= 2)  # 0x8, 0xC, 0x9, 0xD: one element from each pair
    if bool(xp.all(split)):
        return values, xp.stack([i0, i1 - 2], axis=-1)
    pairs = xp.reshape(values, (rows, ngroups, 2))
    v0, v1 = pairs[..., 0], pairs[..., 1]
    nz0, nz1 = v0 != 0, v1 != 0
    low, high = codes == 0x4, codes == 0xE  # both kept positions in pair 0 / pair 1
    bad = (low | high) & nz0 & nz1
    if bool(xp.any(bad)):
        import numpy as np

        from .._core.namespace import to_numpy

        row, group = (int(i) for i in np.unravel_index(int(np.flatnonzero(np.asarray(to_numpy(bad)))[0]), bad.shape))
        first = GROUP * group + (0 if bool(np.asarray(to_numpy(low))[row, group]) else 2)
        raise ValueError(
            f"{who}: torch's float32 semi-structured format (CUTLASS) is 1:2: each pair of columns holds at most one "
            f"non-zero; row {row}, columns {first} and {first + 1} hold two. Export as float16/bfloat16 "
            "(to_torch(A, dtype=torch.float16), 2:4) or as the CSR of the pattern (to_torch(A.as_hub()))"
        )
    second = ~nz0 & nz1  # the group's one non-zero is its second kept value
    one = xp.where(second, v1, v0)
    zero = xp.zeros_like(v0)
    new0 = xp.where(split, v0, xp.where(low, one, zero))
    new1 = xp.where(split, v1, xp.where(high, one, zero))
    c0 = xp.where(split, i0, xp.where(low, xp.astype(second, codes.dtype), xp.zeros_like(i0)))
    c1 = xp.where(split, i1 - 2, xp.where(high, xp.astype(second, codes.dtype), xp.zeros_like(i1)))
    values = xp.reshape(xp.stack([new0, new1], axis=-1), (rows, 2 * ngroups))
    return values, xp.stack([c0, c1], axis=-1)


def from_cutlass(packed, meta, dtype):
    """``(values, metadata)`` of a 2:4 array from torch's CUTLASS ``packed`` ``(rows, cols // 2)``
    and reordered ``meta`` (int16/uint16 or int32/uint32 words) for the value dtype ``dtype``.

    ``values`` is ``packed`` itself; ``metadata`` is sparray's natural uint16 ``(rows, cols // 16)``
    (the codes as torch wrote them: any valid code is legal in sparray). ValueError when the shapes
    disagree, or (float32) when a nibble is neither 0x4 nor 0xE.
    """
    who = "from_cutlass"
    name = _torch_dtype_name(dtype, who)
    xp = namespace_of(packed, meta)
    if packed.ndim != 2:
        raise ValueError(f"{who}: expected 2-D packed values; got shape {tuple(packed.shape)}")
    rows, cols = int(packed.shape[0]), 2 * int(packed.shape[1])
    per_word = WORD_BITS[name] // 4 * (2 if name == "float32" else GROUP)  # columns per word
    want = (rows, cols // per_word)
    if cols % per_word or tuple(meta.shape) != want:
        raise ValueError(f"{who}: {name} values of shape {tuple(packed.shape)} ({rows} x {cols}) need meta of shape "
                         f"{want}; got {tuple(meta.shape)}")
    words = cutlass_unreorder(meta)
    if WORD_BITS[name] == 32:
        words = xp.astype(words, xp.uint32) if str(words.dtype).endswith("int32") else words
        halves = xp.stack([words & 0xFFFF, words >> 16], axis=-1)
        return packed, xp.reshape(xp.astype(halves, xp.uint16), (rows, cols // 16))
    words = xp.astype(words, xp.uint16)
    if name != "float32":
        return packed, words
    nibbles = unpack_codes(xp, words, cols // 2)
    bad = (nibbles != _PAIR_FIRST) & (nibbles != _PAIR_SECOND)
    if bool(xp.any(bad)):
        import numpy as np

        from .._core.namespace import to_numpy

        row, pair = (int(i) for i in np.unravel_index(int(np.flatnonzero(np.asarray(to_numpy(bad)))[0]), bad.shape))
        nib = int(np.asarray(to_numpy(nibbles))[row, pair])
        raise ValueError(f"{who}: float32 (1:2) metadata must hold 0x4 or 0xe for each pair of columns; row {row}, "
                         f"columns {2 * pair} and {2 * pair + 1} hold {nib:#x}")
    choice = xp.reshape(xp.astype(nibbles == _PAIR_SECOND, xp.uint16), (rows, cols // GROUP, 2))
    codes = choice[..., 0] | ((choice[..., 1] + 2) << 2)
    return packed, pack_codes(xp, codes)


# --- torch's tensors ----------------------------------------------------------------------------------
def _torch():
    import torch

    return torch


def semi_structured_tensor(A, *, dtype=None, backend=None, export, _host_ok=False):
    """torch's ``SparseSemiStructuredTensor`` for the zero-fill 2:4 array ``A`` (checked by the
    caller), its data on a CUDA device; ``export(component, name)`` is the DLPack export.

    ``backend``: "cutlass" (values shared when ``dtype`` is A's own, metadata reordered here),
    "cusparselt" (through the dense matrix: torch compresses it), or None: CUTLASS when torch's
    ``SparseSemiStructuredTensor._FORCE_CUTLASS`` is set or the device is compute capability 8.x
    (CUTLASS's sparse kernels run there only), cuSPARSELt otherwise. ``A.mT`` gives the stored
    matrix's tensor ``.t()``: torch multiplies it as the right operand, as any transposed one.
    ``_host_ok``: build a CUTLASS tensor of CPU tensors (for tests; torch cannot multiply it).
    """
    torch = _torch()
    from torch.sparse import SparseSemiStructuredTensor, SparseSemiStructuredTensorCUSPARSELT, SparseSemiStructuredTensorCUTLASS

    who = "to_torch"
    if A.ndim != 2:
        raise ValueError(f"{who}: torch's semi-structured tensors are 2-D; this 2:4 array has shape {A.shape}. Export "
                         "each matrix (to_torch(A[i])) or the batched CSR of the pattern (to_torch(A.as_hub()))")
    target = getattr(torch, str(A.dtype).rsplit(".", 1)[-1]) if dtype is None else as_torch_dtype(torch, dtype, who)
    values = export(A.values, "values")
    if values.device.type != "cuda" and not _host_ok:
        raise ValueError(f"{who}: torch's semi-structured tensors live on CUDA devices; A's data is on {values.device} "
                         "(there to_torch(A) without backend= gives the CSR of the kept positions)")
    if backend is None:
        backend = _default_backend(torch, SparseSemiStructuredTensor, values.device)
    classes = {"cutlass": SparseSemiStructuredTensorCUTLASS, "cusparselt": SparseSemiStructuredTensorCUSPARSELT}
    cls = classes.get(backend)
    if cls is None:
        raise ValueError(f"{who}: backend must be 'cutlass', 'cusparselt' or None; got {backend!r}")
    stored = A.mT if A.transposed else A  # the matrix whose rows hold the groups
    m, k = stored.shape
    limits = cls._DTYPE_SHAPE_CONSTRAINTS.get(target)
    if limits is None:
        have = ", ".join(str(d).removeprefix("torch.") for d in cls._DTYPE_SHAPE_CONSTRAINTS)
        raise ValueError(f"{who}: torch's {backend} semi-structured tensors hold {have}; got {target}. Pass dtype= "
                         "(e.g. dtype=torch.float16: the values are cast), or export the CSR of the pattern "
                         "(to_torch(A.as_hub()))")
    r0, c0 = limits.sparse_min_rows, limits.sparse_min_cols
    if m < r0 or m % r0 or k < c0 or k % c0:
        side = " (of A.mT's stored matrix)" if A.transposed else ""
        raise ValueError(f"{who}: torch's {backend} {str(target).removeprefix('torch.')} semi-structured tensors need rows "
                         f"a multiple of {r0} and columns a multiple of {c0}; got {m} x {k}{side}. Pad with sparray.pad, "
                         "or export the CSR of the pattern (to_torch(A.as_hub()))")
    if backend == "cusparselt":
        dense = export(stored.to_dense(), "values").to(target).contiguous()
        t = cls.from_dense(dense)  # cuSPARSELt's format is opaque: torch compresses the dense matrix
    else:
        name = str(target).removeprefix("torch.")
        packed, meta = to_cutlass(stored.values, stored.metadata, name, _who=who)
        packed = (values if packed is stored.values else export(packed, "values")).to(target).contiguous()
        meta = export(meta, "metadata").view(torch.int32 if WORD_BITS[name] == 32 else torch.int16)
        t = cls(torch.Size((m, k)), packed=packed, meta=meta, packed_t=None, meta_t=None, compressed_swizzled_bitmask=None)
    return t.t() if A.transposed else t


def as_torch_dtype(torch, dtype, who):
    d = getattr(torch, dtype, None) if isinstance(dtype, str) else dtype
    if not isinstance(d, torch.dtype):
        raise TypeError(f"{who}: dtype must be a torch.dtype (or its name); got {dtype!r}")
    return d


def _default_backend(torch, base, device):
    if base._FORCE_CUTLASS:
        return "cutlass"
    if device.type == "cuda" and torch.version.hip is None and torch.cuda.get_device_capability(device)[0] == 8:
        return "cutlass"
    return "cusparselt"


def from_semi_structured(t, xp, import_):
    """The 2:4 array (fill 0) of torch's ``SparseSemiStructuredTensor`` ``t``; ``import_(tensor, xp)``
    is the DLPack import. CUTLASS: the values shared (bfloat16 widened to float32, a copy:
    sparray has no bfloat16) and the metadata un-reordered; cuSPARSELt, or a CUTLASS tensor whose meta
    is not the 2-D natural-size matrix: through ``t.to_dense()`` (a product on the device). A tensor
    holding only its transpose's form (``packed`` None: what ``t()`` gives) comes back as the
    transpose's array ``.mT``."""
    from .._core.dtypes import DTYPE_NAMES, EXTRA_DTYPE_NAMES

    torch = _torch()
    if t.requires_grad:
        t = t.detach()
    if t.packed is None:
        if t.packed_t is None:
            raise ValueError("from_torch: this SparseSemiStructuredTensor holds neither packed nor packed_t")
        return from_semi_structured(t.t(), xp, import_).mT
    m, k = (int(s) for s in t.shape)
    name = str(t.dtype).removeprefix("torch.")
    wide = name not in DTYPE_NAMES + EXTRA_DTYPE_NAMES  # bfloat16 (and float8): widened to float32, exactly
    if name not in WORD_BITS and wide:
        raise TypeError(f"from_torch: sparray has no {name} dtype, and torch's {name} semi-structured tensors have no "
                        f"to_dense (their mm is refused); expected {', '.join(WORD_BITS)} values")
    meta = t.meta
    natural = (getattr(t, "BACKEND", "") == "cutlass" and meta is not None and meta.ndim == 2 and name in WORD_BITS
               and t.packed.shape == (m, k // 2))
    if not natural:
        dense = t.to_dense()
        if wide:
            dense = dense.to(torch.float32)
        from .._layout.semi_structured import from_dense

        return from_dense(import_(dense.contiguous(), xp), 0, who="from_torch")
    packed = t.packed.to(torch.float32) if wide else t.packed
    unsigned = torch.uint32 if meta.dtype == torch.int32 else torch.uint16
    values, metadata = from_cutlass(import_(packed, xp), import_(meta.contiguous().view(unsigned), xp), name)
    ns = namespace_of(values)
    fill = ns.zeros((), dtype=values.dtype, device=array_api_compat.device(values))
    return SemiStructured._from_parts(ns, values, metadata, (m, k), fill, checked=name == "float32")


def on_host(A) -> bool:
    """Whether ``A``'s data is in host memory (DLPack device type kDLCPU), where torch has no
    semi-structured tensor."""
    dev = getattr(A.values, "__dlpack_device__", None)
    return dev is None or int(dev()[0]) == 1
