"""Products of a 2:4 semi-structured matrix with dense operands on a GPU: the CUDA twins of
``kernels/cpu/semi_structured.py``, with its names, arguments and results.

The components (the layout every part of sparray shares; the array class keeps them):

- ``values`` ``(*batch, rows, cols // 2)``: group ``g`` of row ``r`` (columns ``4g .. 4g + 3``) keeps
  two positions ``i0 < i1``; ``values[..., r, 2g]`` is the element at column ``4g + i0``,
  ``values[..., r, 2g + 1]`` the one at ``4g + i1``;
- ``metadata`` ``(*batch, rows, ceil(cols / 16))`` uint16: group ``g``'s code ``i0 | i1 << 2`` at bits
  ``4 (g % 4)`` of word ``g // 4`` (the valid codes: 0x4, 0x8, 0x9, 0xC, 0xD, 0xE);
- ``cols`` a multiple of 4; every element off the kept positions is the fill ``f``.

With ``S'`` the stored values minus ``f`` on their kept positions (0 elsewhere), so that the dense
matrix is ``A = S' + f J``:

- :func:`semi_matmul_dense` ``(values, metadata, x, fill, cols)`` -> ``A @ x = S' @ x + f colsum(x)``;
- :func:`dense_matmul_semi` ``(x, values, metadata, fill, cols)`` -> ``x @ A = x @ S' + f rowsum(x)``.

Shapes (the batch dims of ``values``, ``*batch``, may be none): ``semi_matmul_dense`` takes ``x``
``(*batch, cols)`` (a vector per matrix: the result is ``(*batch, rows)``) or ``(*batch, cols, N)``
(result ``(*batch, rows, N)``): ``x.ndim == values.ndim - 1`` means vectors. ``dense_matmul_semi``
takes ``x`` ``(*batch, rows)`` (result ``(*batch, cols)``) or ``(*batch, M, rows)`` (result
``(*batch, M, cols)``). The batch dims must be equal (the caller broadcasts). ``values`` and ``x``
have one dtype, the result's: float16 (products and sums in float32, rounded once at the end),
float32, float64, complex64, complex128, signed and unsigned integers (wrapping as NumPy's do;
unsigned data viewed as signed). bool, or two dtypes: KernelDeclined (the registry runs the generic
path). ``fill`` is a host scalar (a device 0-d array is read once). Results are freshly allocated.
With ``fill == 0`` only the stored values are multiplied (a non-finite element of ``x`` under an
unstored position is the caller's to handle); with a non-zero fill the inputs are taken as finite.

Kernels (``semi_structured.cu``):

- CUDA cores, every dtype (``semi_rows``, ``semi_vm``): ``S @ X`` gives each (row, block of 8
  columns of X) a group of 1 to 32 lanes (from the row's metadata words), which read the row's
  words and values coalesced, ``X @ S`` a thread per group of 4 columns and slice of rows of S, the
  slices' partial sums added in a fixed order (``SPLIT_*``). Both read S once per block of 8
  columns (rows) of X: the skinny products (1 to 16 columns) are bandwidth-bound.
- Sparse tensor cores, float16 ``S @ X`` (``semi_mma``): ``mma.sp`` m16n8k32 (``::ordered_metadata``
  on NVRTC 12.5+), sm_80 and newer, float32 accumulators, X staged in shared memory by 64 x 128
  tiles; the metadata in the tensor cores' own layout (:func:`tensor_core_metadata`, built once
  and kept by the caller). A non-zero fill adds a second mma with A all ones (``M @ X``), so every
  product is exact in float32. Rows, columns and N need no padding in memory (loads are guarded).

**Which kernel** (:func:`choose_method`): tensor cores for float16 values when X has more than
``CUDA_CORE_MAX_N`` (16) columns and the device passed the check below; CUDA cores otherwise (every
other dtype, and skinny X, where the product is bandwidth-bound and the tensor cores would idle on
padding: N is padded to 128 per block). ``X @ S`` always runs on CUDA cores (the tensor cores take
the sparse operand on the left only).

On a GPU, the first tensor-core product per device runs one ``mma.sp`` on a known 16 x 32 x 8 case
for both sparsity selectors (``semi_mma_probe``, one read) and compares it with NumPy: the PTX ISA
gives the metadata's thread mapping only as a figure, and a device that reads it otherwise would
give wrong sums; then a RuntimeWarning says so and the CUDA cores serve. The source holds mma.sp
inline PTX, which needs compute capability 8.0: older GPUs are declined (the generic path runs).
In CI the emulator runs the same source with a reference implementation of mma.sp
(``_emulate_mma.h``); see docs/gpu.md for what only a GPU can confirm.

>>> import numpy as np
>>> values = np.array([[1.0, 2.0, 3.0, 4.0]])          # one row [0, 0, 1, 2 | 3, 0, 0, 4]
>>> metadata = np.array([[0xCE]], np.uint16)            # codes 0xE (2, 3) and 0xC (0, 3)
>>> semi_matmul_dense(values, metadata, np.arange(8.0), 0.0, 8).tolist()
[48.0]
>>> dense_matmul_semi(np.array([2.0]), values, metadata, 1.5, 8).tolist()
[3.0, 3.0, 2.0, 4.0, 6.0, 3.0, 3.0, 8.0]
"""

from __future__ import annotations

import math
import operator
import warnings

import numpy as np

from .. import KernelDeclined
from ._driver import driver_for
from ._operands import lanes_for
from ._trust import inputs_proven
from .._kept import KeptPerArray

__all__ = [
    "CUDA_CORE_MAX_N", "choose_method", "dense_matmul_semi", "mma_fragments", "mma_probe", "semi_matmul_dense",
    "tensor_core_metadata",
]  # fmt: skip

SOURCE = "semi_structured.cu"

# storage dtype (unsigned already viewed as signed) -> (C++ type, the dtype sums are computed in)
_TYPES = {
    np.dtype(np.float16): ("sp_half", np.dtype(np.float32)),
    np.dtype(np.int8): ("signed char", np.dtype(np.uint32)),
    np.dtype(np.int16): ("short", np.dtype(np.uint32)),
    np.dtype(np.int32): ("int", np.dtype(np.uint32)),
    np.dtype(np.int64): ("long long", np.dtype(np.uint64)),
    np.dtype(np.float32): ("float", np.dtype(np.float32)),
    np.dtype(np.float64): ("double", np.dtype(np.float64)),
    np.dtype(np.complex64): ("sp_complex<float>", np.dtype(np.complex64)),
    np.dtype(np.complex128): ("sp_complex<double>", np.dtype(np.complex128)),
}
_SIGNED_OF = {np.dtype(f"u{n}"): np.dtype(f"i{n}") for n in (1, 2, 4, 8)}
_TAKEN = "float16, float32, float64, complex64, complex128 and the signed and unsigned integers"

NAME_EXPRESSIONS = (
    tuple(f"{k}<{t}>" for k in ("semi_rows", "semi_vm", "semi_sum_parts", "semi_line_sums") for t, _ in _TYPES.values())
    + ("semi_tc_metadata", "semi_mma<2, 0>", "semi_mma<1, 1>", "semi_mma_probe")
)

#: S @ X with float16 values runs on CUDA cores up to this many columns of X, on tensor cores above
CUDA_CORE_MAX_N = 16
#: X @ S: rows of S are cut into slices until about SPLIT_TARGET threads run (at most SPLIT_MAX
#: slices, each of at least SPLIT_MIN_ROWS rows, partial sums of at most PART_BYTES)
SPLIT_TARGET, SPLIT_MAX, SPLIT_MIN_ROWS, PART_BYTES = 1 << 16, 64, 32, 1 << 28
#: the tensor-core kernel's tiles (semi_structured.cu): N per block, k per chunk
MMA_BN, MMA_KC = 128, 64
METHODS = ("auto", "cuda_cores", "tensor_cores")
VALID_CODES = (0x4, 0x8, 0x9, 0xC, 0xD, 0xE)

_AGREE: dict[int, bool] = {}  # device id -> its mma.sp matched the layout (semi_mma_probe)


# ---- operands ----------------------------------------------------------------------------------


def _value_operand(xp, a, name, who):
    """(a C-contiguous array of a kernel dtype, unsigned viewed as signed; its own dtype)."""
    a = xp.asarray(a)
    dtype = a.dtype
    sig = _SIGNED_OF.get(dtype, dtype)
    if sig not in _TYPES:
        raise KernelDeclined(f"{who}: {name} has dtype {dtype}; the 2:4 kernels take {_TAKEN} (cast first)")
    a = xp.ascontiguousarray(a)
    return (a.view(sig) if sig != dtype else a), dtype


def _matrix(xp, who, values, metadata, cols):
    """The checked components: (values (nb, rows, cols/2), metadata (nb, rows, W), batch, rows,
    cols, dtype of the values)."""
    cols = operator.index(cols)
    if cols < 0 or cols % 4:
        raise ValueError(f"{who}: cols must be a non-negative multiple of 4 (2:4 groups), got {cols}")
    values, dtype = _value_operand(xp, values, "values", who)
    metadata = xp.asarray(metadata)
    if values.ndim < 2:
        raise ValueError(f"{who}: values must be (*batch, rows, cols // 2), got shape {values.shape}")
    *batch, rows, half = values.shape
    batch = tuple(batch)
    if half != cols // 2:
        raise ValueError(f"{who}: values has shape {values.shape}; {cols} columns keep {cols // 2} values per row")
    words = -(-cols // 16)
    if metadata.shape != (*batch, rows, words):
        raise ValueError(f"{who}: metadata must have shape {(*batch, rows, words)} (values {values.shape}, "
                         f"{cols} columns: 4 groups per word), got {metadata.shape}")  # fmt: skip
    if metadata.dtype != np.uint16:
        raise ValueError(f"{who}: metadata must be uint16 (a 4-bit code per group of 4 columns), got {metadata.dtype}")
    nb = math.prod(batch)
    values = values.reshape(nb, rows, cols // 2)
    metadata = xp.ascontiguousarray(metadata).reshape(nb, rows, words)
    return values, metadata, batch, rows, cols, dtype


def _dense_operand(xp, who, x, dtype):
    x, xdtype = _value_operand(xp, x, "x", who)
    if xdtype != dtype:
        raise KernelDeclined(f"{who}: values ({dtype}) and x ({xdtype}) must have the same dtype; cast one of them")
    return x


def _fill_scalars(drv, who, fill, dtype, sig):
    """(fill, -fill) as scalars of the compute dtype, and whether the fill is zero."""
    f = fill
    if not isinstance(f, (bool, int, float, complex, np.generic, np.ndarray)):
        if getattr(f, "size", 1) != 1:
            raise ValueError(f"{who}: fill must be a scalar, got shape {f.shape}")
        f = drv.scalar(f)  # a device array: one read
    f = np.asarray(f)
    if f.size != 1:
        raise ValueError(f"{who}: fill must be a scalar, got shape {f.shape}")
    if f.dtype.kind in "iu" and dtype.kind in "iu":  # an integer fill of any integer dtype that holds it
        info = np.iinfo(dtype)
        if not info.min <= int(f.reshape(())) <= info.max:
            raise ValueError(f"{who}: fill {int(f.reshape(()))} is out of range for the values' {dtype}")
    elif not np.can_cast(f.dtype, dtype, casting="same_kind"):
        raise ValueError(f"{who}: fill has dtype {f.dtype}, which does not cast to the values' {dtype}")
    fv = f.reshape(()).astype(dtype).view(sig)
    ctype = _TYPES[sig][1]
    if sig.kind == "i":
        iv, mod = int(fv), 1 << (8 * ctype.itemsize)
        return ctype.type(iv % mod), ctype.type(-iv % mod), iv == 0
    value = ctype.type(fv)
    return value, ctype.type(-value), bool(fv == 0)


def _address(a):
    """The device or host address of an array's first element."""
    if isinstance(a, np.ndarray):
        return a.ctypes.data
    inner = getattr(a, "_a", None)  # a SimulatedArray's NumPy buffer
    return inner.ctypes.data if isinstance(inner, np.ndarray) else a.data.ptr


def _device(drv, a):
    """The CuPy device of array ``a``."""
    return drv.xp.cuda.Device(a.device.id)


def _require_sm80(drv, who, a):
    """On a GPU: the source holds mma.sp (sm_80+), so an older device cannot build it."""
    if drv.name == "cupy":
        cc = int(_device(drv, a).compute_capability)
        if cc < 80:
            raise KernelDeclined(f"{who}: the 2:4 CUDA kernels need compute capability 8.0 or newer "
                                 f"(their source holds mma.sp); this device has {cc // 10}.{cc % 10}")  # fmt: skip


def _line_lanes(nlines, length):
    """Lanes per line of semi_line_sums: enough for about 65536 threads (a warp per line for few
    lines, one lane per line, coalesced across adjacent lines, for 65536 lines and more)."""
    return lanes_for(min(length, max(1, 65536 // max(nlines, 1))))


def _colsum(drv, x3, nb, cols, N, tname, ctype):
    out = drv.xp.empty(nb * N, ctype)
    lanes = _line_lanes(nb * N, cols)
    nlines = nb * N
    drv.launch(SOURCE, f"semi_line_sums<{tname}>", -(-nlines // (32 // lanes)) * 32,
               (x3, np.int64(nlines), np.int64(N), np.int64(cols * N), np.int64(1), np.int64(N), np.int64(cols),
                np.int32(lanes), out))  # fmt: skip
    return out


# ---- the tensor cores' metadata -------------------------------------------------------------------


def tensor_core_metadata(metadata, rows, cols, *, check=True):
    """The metadata in the layout ``mma.sp`` m16n8k32 reads (float16), made once per matrix:
    ``(*batch, ceil(rows / 16), ceil(cols / 64), 32)`` uint32, word ``[..., i, p, lane]`` the register
    of ``lane`` for rows ``16 i .. 16 i + 15`` and columns ``64 p .. 64 p + 63`` (two k-steps of 32:
    selector 0 reads the lanes with ``lane % 4`` in (0, 1), selector 1 those in (2, 3)):

        tc[..., i, p, 4 q + t] = metadata[..., 16 i + q, 4 p + t] | metadata[..., 16 i + q + 8, 4 p + t] << 16

    (PTX ISA, Figure 122), with 0x4444 past the last row or word, code 0x4 in the groups past the last
    column, and code 0x4 for an invalid code (``i0 >= i1``: undefined behaviour on the hardware);
    with ``check`` (and inputs not proven, ``_trust``) an invalid code raises ValueError naming it
    (one read). One launch, no other read.

    >>> import numpy as np
    >>> tc = tensor_core_metadata(np.full((9, 2), 0xCE84, np.uint16), 9, 32)
    >>> tc.shape, hex(int(tc[0, 0, 0])), hex(int(tc[0, 0, 1])), hex(int(tc[0, 0, 2]))
    ((1, 1, 32), '0xce84ce84', '0xce84ce84', '0x44444444')
    """
    who = "tensor_core_metadata"
    drv = driver_for(metadata)
    xp = drv.xp
    metadata = xp.asarray(metadata)
    _require_sm80(drv, who, metadata)
    rows, cols = operator.index(rows), operator.index(cols)
    if cols < 0 or cols % 4:
        raise ValueError(f"{who}: cols must be a non-negative multiple of 4 (2:4 groups), got {cols}")
    words = -(-cols // 16)
    if metadata.ndim < 2 or metadata.shape[-2:] != (rows, words):
        raise ValueError(f"{who}: metadata must have shape (*batch, {rows}, {words}) for {rows} rows and {cols} "
                         f"columns, got {metadata.shape}")  # fmt: skip
    if metadata.dtype != np.uint16:
        raise ValueError(f"{who}: metadata must be uint16, got {metadata.dtype}")
    batch = tuple(metadata.shape[:-2])
    nb, RT, P, G = math.prod(batch), -(-rows // 16), -(-cols // 64), cols // 4
    tc = xp.empty((nb, RT, P, 32), np.uint32)
    if tc.size == 0:
        return tc.reshape(*batch, RT, P, 32)
    meta3 = xp.ascontiguousarray(metadata).reshape(nb, rows, words)
    none = nb * rows * G
    first = xp.asarray(np.array([none], np.int64))
    drv.launch(SOURCE, "semi_tc_metadata", tc.size, (meta3, np.int64(nb), np.int64(rows), np.int64(cols), tc, first))
    if check and not inputs_proven():
        bad = int(drv.scalar(first))
        if bad < none:
            b, rest = divmod(bad, rows * G)
            r, g = divmod(rest, G)
            word = int(drv.scalar(meta3[b, r, g // 4 : g // 4 + 1]))
            where = f" of batch {tuple(int(i) for i in np.unravel_index(b, batch))}" if batch else ""
            raise ValueError(f"{who}: group {g} (columns {4 * g}..{4 * g + 3}) of row {r}{where} has code "
                             f"0x{(word >> 4 * (g % 4)) & 15:X}; the valid codes are 0x4, 0x8, 0x9, 0xC, 0xD, 0xE "
                             "(i0 | i1 << 2 with i0 < i1)")  # fmt: skip
    return tc.reshape(*batch, RT, P, 32)


# ---- the hardware check ------------------------------------------------------------------------------


def mma_fragments(values, codes, b, c, sel):
    """The registers of one ``mma.sp`` m16n8k32 (float16 in, float32 out) as the PTX ISA lays them
    out, on the host: ``values`` (16, 16) float16 (the kept pair of chunk ``j`` of row ``r`` at
    ``[r, 2j]``, ``[r, 2j + 1]``), ``codes`` (16, 8) (code of chunk ``j`` of row ``r``), ``b`` (32, 8)
    float16, ``c`` (16, 8) float32, ``sel`` 0 or 1. Returns (a, b, c, e) per lane: (32, 4) uint32,
    (32, 4) uint32, (32, 4) float32, (32,) uint32. The lanes that the selector does not name get
    valid codes of another pattern (a device that read them would give other sums)."""
    bits = np.ascontiguousarray(values, np.float16).view(np.uint16).astype(np.uint32)
    bbits = np.ascontiguousarray(b, np.float16).view(np.uint16).astype(np.uint32)
    codes = np.asarray(codes, np.uint32)
    lane = np.arange(32)
    gid, tid = lane // 4, lane % 4
    pair = bits[:, 0::2] | bits[:, 1::2] << 16  # (16, 8): the b32 register of (row, chunk)
    a = np.stack([pair[gid, tid], pair[gid + 8, tid], pair[gid, tid + 4], pair[gid + 8, tid + 4]], axis=1)
    rows_b = 2 * tid[:, None] + 8 * np.arange(4)[None, :]
    breg = bbits[rows_b, gid[:, None]] | bbits[rows_b + 1, gid[:, None]] << 16
    cc = np.asarray(c, np.float32)
    creg = np.stack([cc[gid, 2 * tid], cc[gid, 2 * tid + 1], cc[gid + 8, 2 * tid], cc[gid + 8, 2 * tid + 1]], axis=1)
    shifts = 4 * np.arange(4, dtype=np.uint32)
    half = tid % 2
    chunks = 4 * half[:, None] + np.arange(4)[None, :]  # (32, 4): the chunks a lane's 16 bits cover
    lo = (codes[gid[:, None], chunks] << shifts).sum(axis=1)
    hi = (codes[gid[:, None] + 8, chunks] << shifts).sum(axis=1)
    e = np.where(tid // 2 == sel, lo | hi << 16, 0xE4C8E4C8).astype(np.uint32)
    return a.astype(np.uint32), breg.astype(np.uint32), creg, e


def mma_probe(a, b, c, e, sel):
    """``d`` (32, 4) float32: one ``mma.sp`` m16n8k32 by a warp on registers given per lane (see
    :func:`mma_fragments`): on a GPU the instruction itself, in the emulator its reference."""
    drv = driver_for(a, b, c, e)
    xp = drv.xp
    args = [xp.ascontiguousarray(xp.asarray(v, dt)) for v, dt in ((a, np.uint32), (b, np.uint32), (c, np.float32))]
    e = xp.ascontiguousarray(xp.asarray(e, np.uint32))
    if [v.shape for v in args] != [(32, 4)] * 3 or e.shape != (32,) or sel not in (0, 1):
        raise ValueError("mma_probe: a, b, c must be (32, 4), e (32,), sel 0 or 1")
    d = xp.empty((32, 4), np.float32)
    drv.launch(SOURCE, "semi_mma_probe", 32, (*args, e, np.int32(sel), d))
    return d


def _probe_case():
    """A 16 x 32 2:4 matrix using all six codes, a 32 x 8 B and a 16 x 8 C of small integers (every
    sum exact in float32): (values, codes, b, c, the expected D)."""
    rng = np.random.default_rng(24)
    codes = np.array(VALID_CODES)[(np.arange(16)[:, None] + 5 * np.arange(8)[None, :]) % 6]
    values = rng.integers(-7, 8, size=(16, 16)).astype(np.float16)
    dense = np.zeros((16, 32))
    for j in range(8):
        dense[np.arange(16), 4 * j + (codes[:, j] & 3)] = values[:, 2 * j]
        dense[np.arange(16), 4 * j + (codes[:, j] >> 2)] = values[:, 2 * j + 1]
    b = rng.integers(-3, 4, size=(32, 8)).astype(np.float16)
    c = rng.integers(-5, 6, size=(16, 8)).astype(np.float32)
    return values, codes, b, c, dense @ b.astype(np.float64) + c


def _unpack_d(d):
    d = np.asarray(d)
    out = np.empty((16, 8), np.float32)
    lane = np.arange(32)
    gid, tid = lane // 4, lane % 4
    for q in range(4):
        out[gid + 8 * (q >> 1), 2 * tid + (q & 1)] = d[:, q]
    return out


def _tensor_cores_ok(drv, a) -> bool:
    """Whether the mma.sp of the device of array ``a`` reads the fragments and metadata as laid out
    here (a GPU: the probe once per device and process; the emulators implement the layout as
    documented)."""
    if drv.name != "cupy":
        return True
    device = _device(drv, a)
    if device.id not in _AGREE:
        values, codes, b, c, want = _probe_case()
        ok = True
        with device:
            for sel in (0, 1):
                frags = [drv.xp.asarray(v) for v in mma_fragments(values, codes, b, c, sel)]
                ok = ok and np.array_equal(_unpack_d(mma_probe(*frags, sel).get()), want)
        if not ok:
            warnings.warn("sparray: this GPU's mma.sp does not read the 2:4 metadata as the PTX ISA's figure is read "
                          "here (kernels/cuda/semi_structured.cu); float16 2:4 products run on CUDA cores instead. "
                          "Please report it.", RuntimeWarning, stacklevel=3)  # fmt: skip
        _AGREE[device.id] = ok
    return _AGREE[device.id]


def choose_method(dtype, ncols, tensor_cores_ok=True) -> str:
    """The kernel of ``S @ X``: ``"tensor_cores"`` for float16 values when X has more than
    ``CUDA_CORE_MAX_N`` columns (and the device's mma.sp passed its check), else ``"cuda_cores"``.

    >>> choose_method(np.float16, 64), choose_method(np.float16, 8), choose_method(np.float32, 512)
    ('tensor_cores', 'cuda_cores', 'cuda_cores')
    """
    if np.dtype(dtype) == np.float16 and ncols > CUDA_CORE_MAX_N and tensor_cores_ok:
        return "tensor_cores"
    return "cuda_cores"


# ---- S @ X ---------------------------------------------------------------------------------------


#: metadata object -> its tensor_core_metadata (made on the first tensor-core product)
_KEPT_TC = KeptPerArray()


def semi_matmul_dense(values, metadata, x, fill, cols, *, tc_metadata=None, method="auto"):
    """``A @ x = S' @ x + fill * colsum(x)`` for the 2:4 matrix ``A`` of ``cols`` columns stored as
    ``values``, ``metadata`` (see the module docstring for shapes and dtypes). ``tc_metadata``: the
    :func:`tensor_core_metadata` of ``metadata`` (made on the first tensor-core product without it
    and kept for that metadata object while it lives). ``method``: ``"auto"`` (:func:`choose_method`), ``"cuda_cores"`` or
    ``"tensor_cores"`` (float16 only). ValueError for bad shapes or codes, KernelDeclined for a
    dtype without a kernel."""
    who = "semi_matmul_dense"
    if method not in METHODS:
        raise ValueError(f"{who}: method must be one of {', '.join(METHODS)}, got {method!r}")
    drv = driver_for(values, metadata, x, *(() if tc_metadata is None else (tc_metadata,)))
    xp = drv.xp
    v3, m3, batch, rows, cols, dtype = _matrix(xp, who, values, metadata, cols)
    _require_sm80(drv, who, v3)
    x = _dense_operand(xp, who, x, dtype)
    nd = len(batch)
    if x.ndim == nd + 1 and x.shape == (*batch, cols):
        vector, N = True, 1
    elif x.ndim == nd + 2 and x.shape[: nd + 1] == (*batch, cols):
        vector, N = False, x.shape[-1]
    else:
        raise ValueError(f"{who}: x must have shape {(*batch, cols)} or {(*batch, cols)[:-1] + (cols, 'N')} for values "
                         f"of shape {tuple(values.shape)} ({cols} columns), got {tuple(x.shape)}")  # fmt: skip
    sig = v3.dtype
    tname, ctype = _TYPES[sig]
    fill_c, nfill_c, zero = _fill_scalars(drv, who, fill, dtype, sig)
    if method == "tensor_cores" and sig != np.float16:
        raise ValueError(f"{who}: the tensor cores take float16 values, got {dtype}")
    nb = v3.shape[0]
    shape = (*batch, rows) if vector else (*batch, rows, N)
    if nb == 0 or rows == 0 or N == 0 or cols == 0:
        return xp.zeros(shape, dtype)
    x3 = x.reshape(nb, cols, N)
    colsum = _colsum(drv, x3, nb, cols, N, tname, ctype) if not zero else xp.zeros(1, ctype)
    if method == "auto":
        method = choose_method(sig, N, drv.block % 64 == 0 and _tensor_cores_ok(drv, v3))
    elif method == "tensor_cores" and not (drv.block % 64 == 0 and _tensor_cores_ok(drv, v3)):
        raise KernelDeclined(f"{who}: this device's tensor cores did not pass the mma.sp check")
    if method == "tensor_cores":
        if tc_metadata is None:  # made once per metadata object and kept while it lives
            tc_metadata = _KEPT_TC.get(metadata)
            if tc_metadata is None:
                tc_metadata = tensor_core_metadata(m3, rows, cols).reshape(*batch, -(-rows // 16), -(-cols // 64), 32)
                _KEPT_TC.put(metadata, tc_metadata)
        y = _mma(drv, v3, m3, x3, tc_metadata, batch, rows, cols, N, fill_c, zero, colsum)
    else:
        y = xp.empty((nb * rows, N), sig)
        W = m3.shape[-1]
        lanes = lanes_for(W)
        items = nb * rows * -(-N // 8)
        drv.launch(SOURCE, f"semi_rows<{tname}>", -(-items // (32 // lanes)) * 32,
                   (v3, m3, x3, np.int64(nb * rows), np.int64(rows), np.int64(cols), np.int64(N), nfill_c, fill_c,
                    np.int32(not zero), colsum, np.int32(lanes), y))  # fmt: skip
    return y.view(dtype).reshape(shape)


def _mma(drv, v3, m3, x3, tc, batch, rows, cols, N, fill_c, zero, colsum):
    """The tensor-core launch of :func:`semi_matmul_dense`: y (nb, rows, N) float16."""
    xp = drv.xp
    nb = v3.shape[0]
    RT, P = -(-rows // 16), -(-cols // 64)
    if tc is None:
        tc = tensor_core_metadata(m3, rows, cols).reshape(*batch, RT, P, 32)
    tc = xp.asarray(tc)
    if tc.dtype != np.uint32 or tc.shape != (*batch, RT, P, 32):
        raise ValueError(f"semi_matmul_dense: tc_metadata must be the uint32 {(*batch, RT, P, 32)} of "
                         f"tensor_core_metadata, got {tc.dtype} {tuple(tc.shape)}")  # fmt: skip
    tc = xp.ascontiguousarray(tc).reshape(nb, RT, P, 32)
    if _address(v3) % 4:
        v3 = v3.copy()  # pairs of values are read as aligned 32-bit words
    words = v3.reshape(nb, rows, cols // 2).view(np.uint32)
    y = xp.empty((nb, rows, N), np.uint16)
    mt, fill_flag = (2, 0) if zero else (1, 1)
    mrows = 16 * mt * (drv.block // 64)
    ntiles = nb * -(-rows // mrows) * -(-N // MMA_BN)
    drv.launch(SOURCE, f"semi_mma<{mt}, {fill_flag}>", ntiles * drv.block,
               (words, tc, x3.view(np.uint16), np.int64(nb), np.int64(rows), np.int64(cols), np.int64(N),
                np.float32(fill_c), colsum, y))  # fmt: skip
    return y.view(np.float16)


# ---- X @ S ---------------------------------------------------------------------------------------


def _splits(rows, items, nout, csize, split):
    """(slices, rows per slice) of semi_vm."""
    if split is not None:
        s = max(1, min(operator.index(split), rows))
    else:
        s = min(SPLIT_MAX, -(-SPLIT_TARGET // max(items, 1)), -(-rows // SPLIT_MIN_ROWS))
        s = max(1, min(s, PART_BYTES // max(1, nout * csize)))
    chunk = -(-rows // s)
    return -(-rows // chunk), chunk


def dense_matmul_semi(x, values, metadata, fill, cols, *, split=None):
    """``x @ A = x @ S' + fill * rowsum(x)`` for the 2:4 matrix ``A`` of ``cols`` columns stored as
    ``values``, ``metadata`` (see the module docstring). ``split``: the number of row slices whose
    partial sums are added in order (default: from the sizes, ``SPLIT_*``). Errors as
    :func:`semi_matmul_dense`."""
    who = "dense_matmul_semi"
    drv = driver_for(x, values, metadata)
    xp = drv.xp
    v3, m3, batch, rows, cols, dtype = _matrix(xp, who, values, metadata, cols)
    _require_sm80(drv, who, v3)
    x = _dense_operand(xp, who, x, dtype)
    nd = len(batch)
    if x.ndim == nd + 1 and x.shape == (*batch, rows):
        vector, M = True, 1
    elif x.ndim == nd + 2 and x.shape[:nd] == batch and x.shape[-1] == rows:
        vector, M = False, x.shape[-2]
    else:
        raise ValueError(f"{who}: x must have shape {(*batch, rows)} or {(*batch, 'M', rows)} for values of shape "
                         f"{tuple(values.shape)} ({rows} rows), got {tuple(x.shape)}")  # fmt: skip
    sig = v3.dtype
    tname, ctype = _TYPES[sig]
    fill_c, nfill_c, zero = _fill_scalars(drv, who, fill, dtype, sig)
    nb = v3.shape[0]
    shape = (*batch, cols) if vector else (*batch, M, cols)
    if nb == 0 or rows == 0 or M == 0 or cols == 0:
        return xp.zeros(shape, dtype)
    x3 = x.reshape(nb, M, rows)
    G, nmb, nout = cols // 4, -(-M // 8), nb * M * cols
    nsplit, chunk = _splits(rows, nb * nmb * G, nout, ctype.itemsize, split)
    y = xp.empty(nout, sig)
    part = xp.empty(nsplit * nout if nsplit > 1 else 1, ctype)
    drv.launch(SOURCE, f"semi_vm<{tname}>", nb * nmb * nsplit * G,
               (v3, m3, x3, np.int64(nb), np.int64(rows), np.int64(cols), np.int64(M), nfill_c, fill_c,
                np.int32(not zero), np.int64(nsplit), np.int64(chunk), y, part))  # fmt: skip
    if nsplit > 1:
        drv.launch(SOURCE, f"semi_sum_parts<{tname}>", nout, (part, np.int64(nsplit), np.int64(nout), y))
    return y.view(dtype).reshape(shape)
