"""The 2:4 layout's CPU kernels, on its raw components: products, encoding, decoding, validation.

The components (the 2:4 layout of issue 50; ``sparray.SemiStructured`` holds them): a stored matrix
S of ``rows x cols`` (``cols % 4 == 0``) is ``values`` ``(*batch, rows, cols // 2)`` and ``metadata``
``(*batch, rows, ceil(cols / 16))`` uint16. Group g of a row is the columns ``4g .. 4g + 3``; it keeps
two positions ``i0 < i1``, ``values[..., 2g]`` at column ``4g + i0`` and ``values[..., 2g + 1]`` at
``4g + i1``; its code ``i0 | i1 << 2`` sits at bits ``4 * (g % 4)`` of ``metadata[..., g // 4]``. Only
0x4, 0x8, 0xC, 0x9, 0xD and 0xE are valid; the unused nibbles of a row's last word hold 0x4. Every
other element equals the fill f.

- :func:`semi_matmul_dense` ``(values, metadata, x, fill, cols)``: ``S' @ x + f * colsum(x)``;
- :func:`dense_matmul_semi` ``(x, values, metadata, fill, cols)``: ``x @ S' + f * rowsum(x)``;
- :func:`semi_encode` / :func:`semi_decode`: dense <-> components, for NumPy data;
- :func:`semi_metadata_valid`: the first (batch, row, group) holding a bad code, or -1.

Here ``S' = S - f`` on the kept positions and 0 elsewhere, so that with A the dense matrix
(f everywhere else) ``A @ x = S' @ x + f * colsum(x)``. With ``f == 0`` no correction is added:
the kernels then compute ``S @ x`` over the kept positions only, as written, whatever x holds
(inf or nan at a position that is not kept is never read). With ``f != 0`` the caller guarantees
finite values, fill and x (the product module takes an exact path otherwise).

Conventions of the products. ``values`` and ``metadata`` are 2-D (one matrix) or 3-D (a batch
``B``); ``x`` is a vector when ``x.ndim == values.ndim - 1`` (``(cols,)``, or ``(B, cols)`` for a
batch), else a matrix ``(cols, N)`` / ``(B, cols, N)`` (3-D values), or ``(B, cols, N)`` with 2-D
values (one matrix times each of a batch). Batch sizes are equal, or one of them is 1 (that side is
used for every batch: a batch axis of stride 0, as ``np.broadcast_to`` makes, is read without a
copy). The result is fresh, of its exact size, of values' dtype: ``(B, rows)`` / ``(B, rows, N)``
(no batch axis when neither operand has one). ``dense_matmul_semi`` mirrors it: x ``(rows,)`` /
``(B, rows)`` (vectors) or ``(M, rows)`` / ``(B, M, rows)``; result ``(..., cols)`` / ``(..., M, cols)``.
values and x share one dtype: float16 (accumulated in float32 and rounded once, at the end),
float32, float64, (u)int8..64 (wrapping as NumPy's integers do: 8- and 16-bit values are summed in
int32, whose low bits are the same), complex64/128; others raise KernelDeclined (the generic
path serves them). Bad shapes raise ValueError naming both shapes.

How the products read S. Never through a dense or CSR copy: each 16-column word of metadata is
decoded with shifts and masks inside the loop (LLVM IR written here: numba keeps the SLP
vectoriser off, so a loop over 16 lanes would stay scalar).

- ``S @ x`` (SpMV), bandwidth-bound: each row streams its values and metadata once. Where the CPU
  has AVX-512 (``SV_PERMUTE``), two words (16 values, 32 columns of x) are one step: a 16-lane
  index vector ``4 * (l // 2) + ((m >> 2l) & 3)`` from the two words ``m`` (one variable shift,
  one and, one add), ``vpermi2ps`` picks the 16 kept elements of x out of its 32, one FMA
  (4-byte values; 8-byte ones one word a step, ``vpermi2pd``). Elsewhere each word's 8 values
  are spread over its 16 columns by two constant shuffles and a select on ``i0 == column % 4``,
  and a masked FMA with the 16 contiguous elements of x adds the kept lanes only: plain LLVM
  vectors, any CPU. The AVX-512 form was 2x faster on a matrix in cache (Zen 5), 1-1.3x on one
  streamed from memory; both sum in lanes, so they round differently (each is deterministic).
- ``S @ X`` (SpMM, N > 1 columns): each output row is accumulated over column tiles of X in
  vector registers, never in memory: tiles of 4 x 64 bytes of columns (64 float32) with 2 chains
  of sums, and for the last columns one of 32 or 64 bytes (8 chains) or 2 x 64 (4 chains), its
  last vector masked. Each kept value is one broadcast (a load, where values are of the sum type)
  and one FMA per vector of the tile, its column ``16w + 4(j // 2) + ((m >> 2j) & 3)`` decoded
  from the word. Tiles are the outer loop over a chunk's rows, so a tile's slab of X stays in
  cache; with more than one wide tile X is packed tile by tile first (with N a power of two a
  tile's rows fall into a few cache sets), and wide tiles go by blocks of words whose rows of X
  fit the L1 cache (``SM_BLOCK_BYTES``), each block adding to y. N = 1 is the SpMV.
- ``x @ S`` with up to 4 rows of x (a vector included): the rows of S are cut into chunks (fixed by
  the shapes), each adding its rows times x into a partial y of its own, and the partials are
  summed in chunk order at the end (the columns split among the threads): each chunk streams
  whole rows of S, no two write the same element (no atomics), and the bits do not depend on the
  threads. With more rows of x, each thread owns tiles of the output, 4 rows of x times 4 words
  (64 columns), whose 16 vectors of sums stay in registers over all the rows of S (x read
  transposed, one broadcast per row of S and row of x), the tiles of one slab of columns one after
  another so that its slab of S stays in L2. Either way each word's 8 values (times ``x[m, r]``)
  are spread over its 16 columns with a select (products of kept positions only) and added with a
  masked FMA: 16 lanes for 8 products, so a matrix x on the left runs at about half NumPy's dense
  rate (4096 x 4096 float32, one thread: 8 rows of x 7.9 ms against 5.9, 512 rows 299 against
  149 ms), where a vector or a few rows run faster than dense.
- All three prefetch the values 2 KiB ahead (``_AHEAD_BYTES``: the hardware's streamer alone left
  a 4096 x 4096 times 8 columns product 1.65x slower); rows (or tiles) go in chunks the threads
  claim (:func:`._common.claim`), each writing only its own part of the result.
- The last word of a row when ``cols % 16 != 0`` (1-3 groups) is summed by plain numba code.

Safety. A nibble is decoded into two positions ``code & 3`` and ``(code >> 2) & 3``, each in
0..3, of a group that exists (the unused nibbles are never read by the products), so no code,
valid or not, makes a read or write outside the arrays: a bad code gives a wrong but in-bounds
result. :func:`semi_metadata_valid` finds them (the class's validator calls it).

Threads. Work below a crossover runs on the calling thread (``*_SERIAL_WORK``, measured with
``benchmarks/bench.py --semi --crossover`` on the 2-core VM); above it the kernel runs inside
``with team(work, 0, SHARED_WORK)`` (:mod:`._threads`), on the serial twin (the same row loops,
the same bits) when the team grants one thread.

>>> import numpy as np
>>> v, m, bad = semi_encode(np.array([[0.0, 0.0, 1.0, 2.0, 3.0, 0.0, 0.0, 4.0]]), 0.0)
>>> v.tolist(), [hex(w) for w in m[0]], bad
([[1.0, 2.0, 3.0, 4.0]], ['0x44ce'], -1)
>>> semi_matmul_dense(v, m, np.arange(8.0), 0.0, 8).tolist()
[48.0]
>>> dense_matmul_semi(np.array([2.0]), v, m, 0.5, 8).tolist()
[1.0, 1.0, 2.0, 4.0, 6.0, 1.0, 1.0, 8.0]
"""

from __future__ import annotations

import math
import operator
import warnings

import numba
import numpy as np
from llvmlite import ir
from numba import types
from numba.core import cgutils
from numba.extending import intrinsic, overload

from .. import KernelDeclined
from . import _cache  # noqa: F401  (compiled kernels go to the per-user cache, see _cache.py)
from ._common import claim
from ._scratch import scratch
from ._threads import team

__all__ = [
    "PAD_CODE", "SV_PERMUTE", "VALID_CODES", "dense_matmul_semi", "semi_decode", "semi_encode",
    "semi_matmul_dense", "semi_metadata_valid",
]  # fmt: skip

_JIT = dict(cache=True, nogil=True, fastmath={"contract"})
_PJIT = dict(cache=True, nogil=True, parallel=True, fastmath={"contract"})

#: the six codes ``i0 | i1 << 2`` with ``i0 < i1``
VALID_CODES = (0x4, 0x8, 0xC, 0x9, 0xD, 0xE)
#: what an all-fill group and an unused nibble hold: positions (0, 1)
PAD_CODE = 0x4
_VALID_MASK = sum(1 << c for c in VALID_CODES)  # 0x7310: bit c set for each valid code c

#: Below this much work (kept values, times the columns of X or the rows of x) a product runs on
#: the calling thread: ``python benchmarks/bench.py --semi --crossover`` on the 2-core Zen 5 VM,
#: float32, 256 columns, the parallel call 10-11 us at the least: SpMV 2 threads faster from 2**17
#: values (1.08x; 2**16: 0.88x), S @ X (8 columns) from 2**18 (1.05x), x @ S from 2**19 (1.02x).
SV_SERIAL_WORK = 1 << 17
MM_SERIAL_WORK = 1 << 18
XS_SERIAL_WORK = 1 << 19
#: encode/decode/validate: elements of the dense matrix below which one thread does it
CODEC_SERIAL_WORK = 1 << 18
#: from this much work a product keeps a thread on a core another process keeps busy
#: (``team(shared=)``): its chunks are claimed, so such a thread holds the call back by one chunk,
#: but the call still waits at the end for that thread to get the core back (a time slice, 4-8 ms
#: on this VM). These products run 3-10x as many values a second as a CSR product runs entries
#: (the spmm kernels share from 2**22), so they share only from about 20 ms of one thread's work:
#: with another process on one core, x @ S of 4096 x 4096 took 24 ms on two threads, 1.7 on one
SHARED_WORK = 1 << 26
#: the row-split products cut their rows into chunks of about this much work, 2 to 16 per thread
CHUNK_WORK = 1 << 16
#: x @ S with up to 4 rows of x is split by rows of S into at most this many chunks a batch, each
#: about _XR_CHUNK_WORK values times rows of x (and at least 16 rows): each chunk's partial y is
#: cols elements a row of x, summed in chunk order afterwards
_XR_MAX_CHUNKS = 64
_XR_CHUNK_WORK = 1 << 18


def _l1d_bytes(default=32 << 10) -> int:
    """The first CPU's L1 data cache in bytes (Linux sysfs), else ``default``."""
    try:
        with open("/sys/devices/system/cpu/cpu0/cache/index0/size") as f:
            text = f.read().strip().upper()
        return int(text[:-1]) << 10 if text.endswith("K") else int(text)
    except (OSError, ValueError):
        return default


#: bytes of X one block of words of S @ X gathers from (16 rows of X a word, times the tile's 256
#: bytes of columns) for the wide tiles: the L1 data cache. 4096 x 4096 float32 times 512
#: columns, one thread, Zen 5 (48 KiB L1): blocks of 48 KiB 82 ms, 64 KiB 90 ms, 32 KiB 165 ms,
#: 512 KiB (L2) 179 ms, none 270 ms. Narrower tiles take whole rows (their X is small; blocking
#: them gained nothing).
SM_BLOCK_BYTES = _l1d_bytes()
#: the products prefetch the values this many bytes ahead of the one they read (and the metadata
#: of those values): the hardware's streamer alone left S @ X of 8 columns at 5.3 ms (1 thread)
#: and 2.9 ms (2 threads) for 4096 x 4096 float32; 2 KiB ahead: 3.3 and 1.75 ms (1 and 4 KiB:
#: 2.2-2.3 ms on 2 threads; Zen 5 VM)
_AHEAD_BYTES = 2048


def _host_features() -> set:
    try:
        import llvmlite.binding as ll

        return {k for k, v in ll.get_host_cpu_features().items() if v}
    except Exception:  # noqa: BLE001  (no feature list: the portable code everywhere)
        return set()


#: 1 where the SpMV may take its AVX-512 permute form (the host has avx512f), else 0. Tests set 0
#: to run the portable form on an AVX-512 machine: the kernels compile both there, the wrapper
#: passes this.
SV_PERMUTE = 1 if "avx512f" in _host_features() else 0
#: None: float16 values are widened by the CPU's instruction where it has one (x86 F16C, ARMv8),
#: else by integer operations; True forces the integer form (for tests, read when a kernel compiles)
SOFT_HALF = None


# ---------------------------------------------------------------------------------------------------
# dtypes: what each values dtype is handed to numba as, and what it is summed in
# ---------------------------------------------------------------------------------------------------

# values dtype -> (dtype of the array numba sees, dtype of the sums). float16 goes in as its uint16
# bits (numba has no float16) and is widened inside the kernels; unsigned integers go in as the
# signed type of their width (the same bits, and the low bits of sums and products agree).
_KERNEL_TYPES = {
    np.dtype(np.float16): (np.dtype(np.uint16), np.dtype(np.float32)),
    np.dtype(np.float32): (np.dtype(np.float32), np.dtype(np.float32)),
    np.dtype(np.float64): (np.dtype(np.float64), np.dtype(np.float64)),
    np.dtype(np.int8): (np.dtype(np.int8), np.dtype(np.int32)),
    np.dtype(np.uint8): (np.dtype(np.int8), np.dtype(np.int32)),
    np.dtype(np.int16): (np.dtype(np.int16), np.dtype(np.int32)),
    np.dtype(np.uint16): (np.dtype(np.int16), np.dtype(np.int32)),
    np.dtype(np.int32): (np.dtype(np.int32), np.dtype(np.int32)),
    np.dtype(np.uint32): (np.dtype(np.int32), np.dtype(np.int32)),
    np.dtype(np.int64): (np.dtype(np.int64), np.dtype(np.int64)),
    np.dtype(np.uint64): (np.dtype(np.int64), np.dtype(np.int64)),
    np.dtype(np.complex64): (np.dtype(np.complex64), np.dtype(np.complex64)),
    np.dtype(np.complex128): (np.dtype(np.complex128), np.dtype(np.complex128)),
}
_EXPECTED = "one of " + ", ".join(d.name for d in _KERNEL_TYPES)
# the dtypes encode/decode take: the product dtypes and bool (compared and copied, never summed)
_CODEC_DTYPES = set(_KERNEL_TYPES) | {np.dtype(np.bool_)}


def _raw(a):
    """``a`` as numba takes it: float16 as its uint16 bits, unsigned integers as signed ones."""
    return a.view(_KERNEL_TYPES[a.dtype][0]) if a.dtype in _KERNEL_TYPES else a


def _in_sum_dtype(a, dtype):
    """``a`` (of dtype ``dtype``) in the dtype the kernels sum ``dtype`` in: float16 widened
    (exact), unsigned integers as the signed type of their width, then widened (the low bits,
    which are all the result keeps, are the same)."""
    raw, acc = _KERNEL_TYPES[dtype]
    if dtype.kind == "u":
        a = a.view(raw)
    return a.astype(acc, copy=False)


def _codec_raw(dtype):
    """What encode/decode hand numba: float16 as its uint16 bits (compared nan-aware as halves),
    uint16 integers as int16 (compared as integers), every other dtype as it is."""
    return {np.dtype(np.float16): np.dtype(np.uint16), np.dtype(np.uint16): np.dtype(np.int16)}.get(dtype, dtype)


# ---------------------------------------------------------------------------------------------------
# LLVM IR pieces
# ---------------------------------------------------------------------------------------------------

_I1, _I16, _I32, _I64 = ir.IntType(1), ir.IntType(16), ir.IntType(32), ir.IntType(64)


def _cvec(ty, items):
    """A constant vector of ``ty`` (an LLVM type) holding ``items``."""
    return ir.Constant(ir.VectorType(ty, len(items)), [ir.Constant(ty, v) for v in items])


def _splat(builder, value, n):
    """``value`` (a scalar) in each of ``n`` lanes."""
    V = ir.VectorType(value.type, n)
    v = builder.insert_element(ir.Constant(V, ir.Undefined), value, ir.Constant(_I32, 0))
    return builder.shuffle_vector(v, ir.Constant(V, ir.Undefined), ir.Constant(ir.VectorType(_I32, n), [0] * n))


def _lanes(builder, v, picks):
    """The lanes ``picks`` of the vector ``v`` (a constant shuffle)."""
    return builder.shuffle_vector(v, ir.Constant(v.type, ir.Undefined), _cvec(_I32, picks))


def _native_half(context) -> bool:
    """Whether the target widens float16 in one instruction (x86 with F16C, AArch64): else the
    kernels widen it with integer operations (an ``fpext`` there would call a runtime function
    numba's linker may not have)."""
    if SOFT_HALF:
        return False
    try:
        features = context.codegen()._tm_features or ""
        triple = context.codegen()._llvm_module.triple or ""
    except AttributeError:
        return False
    return "+f16c" in features or triple.startswith(("aarch64", "arm64"))


def _half_to_float(builder, h, native):
    """float32 of the float16 bits ``h`` (an i16 or a vector of them), exactly. The integer form:
    the exponent and mantissa bits moved to float32's places read as a float that is 2**-112 of
    the value (normal and subnormal halves alike), times 2**112; inf and nan keep all ones."""
    n = h.type.count if isinstance(h.type, ir.VectorType) else None

    def const(ty, v):
        return _cvec(ty, [v] * n) if n else ir.Constant(ty, v)

    def vt(ty):
        return ir.VectorType(ty, n) if n else ty

    if native:
        return builder.fpext(builder.bitcast(h, vt(ir.HalfType())), vt(ir.FloatType()))
    u = builder.zext(h, vt(_I32))
    sign = builder.shl(builder.and_(u, const(_I32, 0x8000)), const(_I32, 16))
    em = builder.and_(u, const(_I32, 0x7FFF))
    scaled = builder.fmul(builder.bitcast(builder.shl(em, const(_I32, 13)), vt(ir.FloatType())),
                          const(ir.FloatType(), 2.0**112))
    special = builder.or_(builder.shl(em, const(_I32, 13)), const(_I32, 0x7F800000))
    bits = builder.select(builder.icmp_unsigned(">=", em, const(_I32, 0x7C00)), special,
                          builder.bitcast(scaled, vt(_I32)))
    return builder.bitcast(builder.or_(bits, sign), vt(ir.FloatType()))


class _Ops:
    """The arithmetic of one compute type (float: fsub/FMA; integer: sub, mul + add)."""

    def __init__(self, context, builder, sum_type, raw_type):
        self.b = builder
        self.floating = isinstance(sum_type, types.Float)
        self.T = context.get_value_type(sum_type)
        self.size = context.get_abi_sizeof(self.T)
        self.raw = raw_type
        self.R = context.get_value_type(raw_type)
        self.rsize = context.get_abi_sizeof(self.R)
        self.half = raw_type == types.uint16  # float16 bits
        self.native_half = self.half and _native_half(context)
        self.suffix = ("f" if self.floating else "i") + str(8 * self.size)

    def zero(self, n):
        return ir.Constant(ir.VectorType(self.T, n), [ir.Constant(self.T, 0.0 if self.floating else 0)] * n)

    def sub(self, a, b):
        return self.b.fsub(a, b) if self.floating else self.b.sub(a, b)

    def add(self, a, b):
        return self.b.fadd(a, b) if self.floating else self.b.add(a, b)

    def madd(self, a, b, c):
        """``a * b + c`` (one FMA for floats: the rounding the ``contract`` kernels allow)."""
        if not self.floating:
            return self.b.add(self.b.mul(a, b), c)
        V = a.type
        fn = cgutils.get_or_insert_function(self.b.module, ir.FunctionType(V, [V, V, V]), f"llvm.fma.v{V.count}{self.suffix}")
        return self.b.call(fn, [a, b, c])

    def hsum(self, v):
        """The lanes of ``v`` summed pairwise (a fixed tree: the same bits every call)."""
        n = v.type.count
        while n > 1:
            h = n // 2
            v = self.add(_lanes(self.b, v, range(h)), _lanes(self.b, v, range(h, n)))
            n = h
        return self.b.extract_element(v, ir.Constant(_I32, 0))

    def widen(self, raw):
        """Raw values (a scalar or vector of the array's type) in the compute type."""
        if self.half:
            return _half_to_float(self.b, raw, self.native_half)
        if self.rsize < self.size and not self.floating:
            n = raw.type.count if isinstance(raw.type, ir.VectorType) else None
            return self.b.sext(raw, ir.VectorType(self.T, n) if n else self.T)
        return raw

    def load_values(self, data, index, n):
        """``n`` consecutive raw values from ``data[index]``, widened: a vector of the compute type."""
        V = ir.VectorType(self.R, n)
        ptr = self.b.bitcast(self.b.gep(data, [index]), V.as_pointer())
        return self.widen(self.b.load(ptr, align=self.rsize))

    def load(self, data, index, n, mask=None):
        """``n`` elements of the compute type from ``data[index]`` (masked lanes read 0)."""
        V = ir.VectorType(self.T, n)
        ptr = self.b.bitcast(self.b.gep(data, [index]), V.as_pointer())
        if mask is None:
            return self.b.load(ptr, align=self.size)
        fn = cgutils.get_or_insert_function(
            self.b.module, ir.FunctionType(V, [V.as_pointer(), _I32, mask.type, V]), f"llvm.masked.load.v{n}{self.suffix}.p0")
        return self.b.call(fn, [ptr, ir.Constant(_I32, self.size), mask, self.zero(n)])

    def store(self, value, data, index, mask=None):
        V = value.type
        ptr = self.b.bitcast(self.b.gep(data, [index]), V.as_pointer())
        if mask is None:
            self.b.store(value, ptr, align=self.size)
            return
        fn = cgutils.get_or_insert_function(
            self.b.module, ir.FunctionType(ir.VoidType(), [V, V.as_pointer(), _I32, mask.type]),
            f"llvm.masked.store.v{V.count}{self.suffix}.p0")
        self.b.call(fn, [value, ptr, ir.Constant(_I32, self.size), mask])


def _word(builder, metadata, index, ty=_I32):
    """The metadata word ``metadata[index]`` zero-extended to ``ty``."""
    return builder.zext(builder.load(builder.gep(metadata, [index]), align=2), ty)


def _prefetch(builder, data, index):
    """Ask for the cache line of ``data[index]`` (a hint: an address past the end never faults)."""
    i8p = ir.IntType(8).as_pointer()
    fn = cgutils.get_or_insert_function(builder.module, ir.FunctionType(ir.VoidType(), [i8p, _I32, _I32, _I32]),
                                        "llvm.prefetch.p0i8")
    ptr = builder.bitcast(builder.gep(data, [index]), i8p)
    builder.call(fn, [ptr, ir.Constant(_I32, 0), ir.Constant(_I32, 3), ir.Constant(_I32, 1)])


def _prefetch_ahead(ops, vdata, mdata, v0, m0):
    """Prefetch the values ``_AHEAD_BYTES`` ahead of ``vdata[v0]`` and the metadata of those values
    (one line of each per call: callers call it once per 64 bytes of values or less)."""
    b = ops.b
    ahead = _AHEAD_BYTES // ops.rsize  # values
    _prefetch(b, vdata, b.add(v0, ir.Constant(_I64, ahead)))
    _prefetch(b, mdata, b.add(m0, ir.Constant(_I64, ahead // 8)))


def _spread(ops, m, v8):
    """The 16 lanes of a word's columns: ``(lane's value, the lane is i0, the lane is kept)`` from
    the word ``m`` (i32) and its 8 values ``v8``: lane j (group j // 4, position j % 4) takes the
    group's first value where ``i0 == j % 4``, else its second, and is kept where ``i0`` or ``i1``
    is ``j % 4``. Only constant shuffles, shifts and compares: any LLVM target."""
    b = ops.b
    code = b.lshr(_splat(b, m, 16), _cvec(_I32, [4 * (j // 4) for j in range(16)]))
    three = _cvec(_I32, [3] * 16)
    pos = _cvec(_I32, [j % 4 for j in range(16)])
    is0 = b.icmp_unsigned("==", b.and_(code, three), pos)
    is1 = b.icmp_unsigned("==", b.and_(b.lshr(code, _cvec(_I32, [2] * 16)), three), pos)
    first = _lanes(b, v8, [2 * (j // 4) for j in range(16)])
    second = _lanes(b, v8, [2 * (j // 4) + 1 for j in range(16)])
    return b.select(is0, first, second), b.or_(is0, is1)


def _arrays(context, builder, sig, args, n):
    return [context.make_array(sig.args[k])(context, builder, args[k]).data for k in range(n)]


def _permute_form(context, ops) -> bool:
    try:
        features = context.codegen()._tm_features or ""
    except AttributeError:
        return False
    return "+avx512f" in features and ops.size in (4, 8)


def _sv_dot_codegen(context, builder, sig, args):
    """IR of :func:`_sv_dot`."""
    vdata, mdata, xdata = _arrays(context, builder, sig, args, 3)
    vo, mo, xo, nw, f, level = args[3:]
    ops = _Ops(context, builder, sig.return_type, sig.args[0].dtype)
    b = ops.b
    i64 = lambda v: ir.Constant(_I64, v)  # noqa: E731
    parts = []
    done = i64(0)
    if _permute_form(context, ops):
        four = ops.size == 4
        n = 16 if four else 8  # values (lanes) per permute; 4-byte: two words, 8-byte: one
        words = 2 if four else 1
        unroll = 4
        step = words * unroll
        V = ir.VectorType(ops.T, n)
        fv = _splat(b, f, n)
        if four:
            pname, IT, FT = "llvm.x86.avx512.vpermi2var.ps.512", ir.VectorType(_I32, 16), ir.VectorType(ir.FloatType(), 16)
        else:
            pname, IT, FT = "llvm.x86.avx512.vpermi2var.pd.512", ir.VectorType(_I64, 8), ir.VectorType(ir.DoubleType(), 8)
        perm = cgutils.get_or_insert_function(b.module, ir.FunctionType(FT, [FT, IT, FT]), pname)
        lane_t = _I32 if four else _I64
        shifts = _cvec(lane_t, [2 * j for j in range(n)])
        bases = _cvec(lane_t, [4 * (j // 2) for j in range(n)])
        three = _cvec(lane_t, [3] * n)
        accs = [cgutils.alloca_once_value(b, ops.zero(n)) for _ in range(unroll)]
        nit = b.select(b.icmp_signed(">", level, ir.Constant(level.type, 0)), b.udiv(nw, i64(step)), i64(0))
        with cgutils.for_range(b, nit) as loop:
            for u in range(unroll):
                w = b.add(b.mul(loop.index, i64(step)), i64(words * u))
                if four:  # two words as one i32 (little-endian: word w in the low half)
                    mptr = b.bitcast(b.gep(mdata, [b.add(mo, w)]), _I32.as_pointer())
                    m = b.load(mptr, align=2)
                else:
                    m = _word(b, mdata, b.add(mo, w), _I64)
                idx = b.add(b.and_(b.lshr(_splat(b, m, n), shifts), three), bases)
                _prefetch_ahead(ops, vdata, mdata, b.add(vo, b.mul(w, i64(8))), b.add(mo, w))
                v = ops.sub(ops.load_values(vdata, b.add(vo, b.mul(w, i64(8))), n), fv)
                xb = b.add(xo, b.mul(w, i64(16)))
                lo = b.bitcast(ops.load(xdata, xb, n), FT)
                hi = b.bitcast(ops.load(xdata, b.add(xb, i64(n)), n), FT)
                xs = b.bitcast(b.call(perm, [lo, idx, hi]), V)
                b.store(ops.madd(v, xs, b.load(accs[u])), accs[u])
        done = b.mul(nit, i64(step))
        tot = b.load(accs[0])
        for a in accs[1:]:
            tot = ops.add(tot, b.load(a))
        parts.append(ops.hsum(tot))
    # the portable form, two words a step, then the last odd word
    f8 = _splat(b, f, 8)
    gen = [cgutils.alloca_once_value(b, ops.zero(16)) for _ in range(2)]

    def word_step(w, acc):
        _prefetch_ahead(ops, vdata, mdata, b.add(vo, b.mul(w, i64(8))), b.add(mo, w))
        m = _word(b, mdata, b.add(mo, w))
        v8 = ops.sub(ops.load_values(vdata, b.add(vo, b.mul(w, i64(8))), 8), f8)
        v16, kept = _spread(ops, m, v8)
        x16 = ops.load(xdata, b.add(xo, b.mul(w, i64(16))), 16)
        a = b.load(acc)
        b.store(b.select(kept, ops.madd(v16, x16, a), a), acc)

    rest = b.sub(nw, done)
    with cgutils.for_range(b, b.udiv(rest, i64(2))) as loop:
        w = b.add(done, b.mul(loop.index, i64(2)))
        word_step(w, gen[0])
        word_step(b.add(w, i64(1)), gen[1])
    with b.if_then(b.icmp_unsigned("!=", b.urem(rest, i64(2)), i64(0))):
        word_step(b.sub(nw, i64(1)), gen[0])
    parts.append(ops.hsum(ops.add(b.load(gen[0]), b.load(gen[1]))))
    total = parts[0]
    for p in parts[1:]:
        total = ops.add(total, p)
    return total


def _sum_type(raw):
    """The numba type sums of raw values of numba type ``raw`` are taken in (None: not served)."""
    if raw == types.uint16:
        return types.float32
    if raw in (types.int8, types.int16):
        return types.int32
    if raw in (types.int32, types.int64, types.float32, types.float64):
        return raw
    return None


@intrinsic
def _sv_dot(typingctx, values, metadata, x, vo, mo, xo, nw, f, level):
    """``sum over the words w < nw of row (vo, mo) of (S' row) . x[xo + 16w ...]``: the SpMV of one
    row over its full words, in the sum type (see the module docstring for the two forms; ``level``
    0 forces the portable one). values/metadata/x are 1-D (flat), offsets in elements."""
    acc = _sum_type(values.dtype)
    if acc is None or x.dtype != acc or metadata.dtype != types.uint16:
        return None
    return acc(values, metadata, x, vo, mo, xo, nw, f, level), _sv_dot_codegen


def _sm_codegen(vbytes, units, chains, masked):
    """IR of an SpMM tile kernel: ``units`` vectors of ``vbytes`` bytes of columns, ``chains``
    independent sums per vector (values j of a word go to chain ``j % chains``), the last
    vector(s) masked to ``tw`` columns when ``masked``. Values already of the sum type are
    broadcast straight from memory, then ``- f`` (one subtraction each: a copy of the loop without
    it for ``f == 0`` measured no faster); float16 and 8/16-bit values are widened 8 at a time,
    then broadcast."""

    def codegen(context, builder, sig, args):
        vdata, mdata, xdata, ydata, cdata = _arrays(context, builder, sig, args, 5)
        vo, mo, xo, ldx, yo, co, nw, tw, f = args[5:]
        ops = _Ops(context, builder, sig.args[3].dtype, sig.args[0].dtype)
        b = ops.b
        i64 = lambda v: ir.Constant(_I64, v)  # noqa: E731
        L = vbytes // ops.size
        masks = [None] * units
        if masked:
            lanes = _cvec(_I64, list(range(L)))
            tws = _splat(b, tw, L)
            masks = [b.icmp_unsigned("<", b.add(lanes, _cvec(_I64, [u * L] * L)), tws) for u in range(units)]
        accs = [[cgutils.alloca_once_value(b, ops.zero(L)) for _ in range(units)] for _ in range(chains)]
        direct = ops.R == ops.T  # no widening: each value one broadcast load
        fL = _splat(b, f, L)
        f8 = _splat(b, f, 8)
        with cgutils.for_range(b, nw) as words:
            w = words.index
            m = _word(b, mdata, b.add(mo, w), _I64)
            v0 = b.add(vo, b.mul(w, i64(8)))
            _prefetch_ahead(ops, vdata, mdata, v0, b.add(mo, w))
            if not direct:
                v8 = ops.sub(ops.load_values(vdata, v0, 8), f8)
            base = b.mul(w, i64(16))
            for j in range(8):
                c = b.add(b.add(base, i64(4 * (j // 2))), b.and_(b.lshr(m, i64(2 * j)), i64(3)))
                row = b.add(xo, b.mul(c, ldx))
                if direct:
                    vb = ops.sub(_splat(b, b.load(b.gep(vdata, [b.add(v0, i64(j))]), align=ops.size), L), fL)
                else:
                    vb = _lanes(b, v8, [j] * L)
                for u in range(units):
                    xv = ops.load(xdata, b.add(row, i64(u * L)), L, masks[u])
                    a = accs[j % chains][u]
                    b.store(ops.madd(vb, xv, b.load(a)), a)
        for u in range(units):
            s = [b.load(accs[k][u]) for k in range(chains)]
            while len(s) > 1:
                s = [ops.add(s[i], s[i + 1]) for i in range(0, len(s), 2)]
            total = ops.add(s[0], ops.load(cdata, b.add(co, i64(u * L)), L, masks[u]))
            ops.store(total, ydata, b.add(yo, i64(u * L)), masks[u])
        return context.get_dummy_value()

    return codegen


def _sm_intrinsic(vbytes, units, chains, masked):
    codegen = _sm_codegen(vbytes, units, chains, masked)

    def typer(typingctx, values, metadata, x, y, corr, vo, mo, xo, ldx, yo, co, nw, tw, f):
        acc = _sum_type(values.dtype)
        if acc is None or x.dtype != acc or y.dtype != acc or corr.dtype != acc or metadata.dtype != types.uint16:
            return None
        return types.void(values, metadata, x, y, corr, vo, mo, xo, ldx, yo, co, nw, tw, f), codegen

    typer.__name__ = f"_sm_{vbytes}x{units}{'m' if masked else ''}"
    return intrinsic(typer)


# ``y[yo : yo + tw] = sum over the full words of row (vo, mo) of (v - f) * x[xo + c * ldx : ... + tw]
# + corr[co : co + tw]``: one row of S @ X over one column tile (flat arrays, offsets in elements)
_sm_wide = _sm_intrinsic(64, 4, 2, False)  # 4 x 64 bytes of columns (64 float32), full
_sm_wide_m = _sm_intrinsic(64, 4, 2, True)  # up to 4 x 64 bytes, the rest masked
_sm_two_m = _sm_intrinsic(64, 2, 4, True)  # up to 2 x 64 bytes
_sm_one_m = _sm_intrinsic(64, 1, 8, True)  # up to 64 bytes
_sm_half = _sm_intrinsic(32, 1, 8, False)  # exactly 32 bytes (8 float32)
_sm_half_m = _sm_intrinsic(32, 1, 8, True)  # up to 32 bytes


def _xs_codegen(nrows_x):
    """IR of an ``x @ S`` span kernel for ``nrows_x`` rows of x (see :func:`_xs_one`)."""

    def codegen(context, builder, sig, args):
        vdata, mdata, xdata, ydata = _arrays(context, builder, sig, args, 4)
        vo, mo, ldv, ldm, xo, ldx, yo, ldy, nrows, w0, w1, f = args[4:]
        ops = _Ops(context, builder, sig.args[3].dtype, sig.args[0].dtype)
        b = ops.b
        i64 = lambda v: ir.Constant(_I64, v)  # noqa: E731
        f8 = _splat(b, f, 8)
        with cgutils.for_range(b, nrows) as rows:
            r = rows.index
            xs = [_splat(b, b.load(b.gep(xdata, [b.add(b.add(xo, b.mul(i64(k), ldx)), r)])), 16) for k in range(nrows_x)]
            vrow = b.add(vo, b.mul(r, ldv))
            mrow = b.add(mo, b.mul(r, ldm))
            with cgutils.for_range(b, b.sub(w1, w0)) as words:
                w = b.add(w0, words.index)
                _prefetch_ahead(ops, vdata, mdata, b.add(vrow, b.mul(w, i64(8))), b.add(mrow, w))
                m = _word(b, mdata, b.add(mrow, w))
                v8 = ops.sub(ops.load_values(vdata, b.add(vrow, b.mul(w, i64(8))), 8), f8)
                v16, kept = _spread(ops, m, v8)
                col = b.mul(w, i64(16))
                for k in range(nrows_x):
                    at = b.add(b.add(yo, b.mul(i64(k), ldy)), col)
                    yv = ops.load(ydata, at, 16)
                    ops.store(b.select(kept, ops.madd(v16, xs[k], yv), yv), ydata, at)
        return context.get_dummy_value()

    return codegen


def _xs_intrinsic(nrows_x):
    codegen = _xs_codegen(nrows_x)

    def typer(typingctx, values, metadata, x, y, vo, mo, ldv, ldm, xo, ldx, yo, ldy, nrows, w0, w1, f):
        acc = _sum_type(values.dtype)
        if acc is None or x.dtype != acc or y.dtype != acc or metadata.dtype != types.uint16:
            return None
        return types.void(values, metadata, x, y, vo, mo, ldv, ldm, xo, ldx, yo, ldy, nrows, w0, w1, f), codegen

    typer.__name__ = f"_xs_{nrows_x}"
    return intrinsic(typer)


# ``y[yo + k * ldy + 16w ...] += x[xo + k * ldx + r] * (S' row r, word w)`` for the rows r < nrows of S
# (row r at values vo + r * ldv, metadata mo + r * ldm), the words w0 <= w < w1 and k < 1 or 4 rows of x
_xs_one = _xs_intrinsic(1)
_xs_four = _xs_intrinsic(4)


def _xb_codegen(mrows, words):
    """IR of an ``x @ S`` block kernel: ``mrows`` rows of x times ``words`` words (16 columns each)
    of S, the ``mrows * words`` sums held in vector registers over all the rows of S, stored once."""

    def codegen(context, builder, sig, args):
        vdata, mdata, xdata, ydata = _arrays(context, builder, sig, args, 4)
        vo, mo, ldv, ldm, xo, ldx, yo, ldy, nrows, w0, f = args[4:]
        ops = _Ops(context, builder, sig.args[3].dtype, sig.args[0].dtype)
        b = ops.b
        i64 = lambda v: ir.Constant(_I64, v)  # noqa: E731
        f8 = _splat(b, f, 8)
        accs = [[cgutils.alloca_once_value(b, ops.zero(16)) for _ in range(words)] for _ in range(mrows)]
        with cgutils.for_range(b, nrows) as rows:
            r = rows.index
            xrow = b.add(xo, b.mul(r, ldx))  # x transposed: row r holds x[m0 + k, r] at k
            xs = [_splat(b, b.load(b.gep(xdata, [b.add(xrow, i64(k))])), 16) for k in range(mrows)]
            vrow = b.add(vo, b.mul(r, ldv))
            mrow = b.add(mo, b.mul(r, ldm))
            for j in range(words):
                w = b.add(w0, i64(j))
                m = _word(b, mdata, b.add(mrow, w))
                v8 = ops.sub(ops.load_values(vdata, b.add(vrow, b.mul(w, i64(8))), 8), f8)
                v16, kept = _spread(ops, m, v8)
                for k in range(mrows):
                    a = b.load(accs[k][j])
                    b.store(b.select(kept, ops.madd(v16, xs[k], a), a), accs[k][j])
        for k in range(mrows):
            for j in range(words):
                ops.store(b.load(accs[k][j]), ydata, b.add(b.add(yo, b.mul(i64(k), ldy)), b.mul(b.add(w0, i64(j)), i64(16))))
        return context.get_dummy_value()

    return codegen


def _xb_intrinsic(mrows, words):
    codegen = _xb_codegen(mrows, words)

    def typer(typingctx, values, metadata, x, y, vo, mo, ldv, ldm, xo, ldx, yo, ldy, nrows, w0, f):
        acc = _sum_type(values.dtype)
        if acc is None or x.dtype != acc or y.dtype != acc or metadata.dtype != types.uint16:
            return None
        return types.void(values, metadata, x, y, vo, mo, ldv, ldm, xo, ldx, yo, ldy, nrows, w0, f), codegen

    typer.__name__ = f"_xb_{mrows}x{words}"
    return intrinsic(typer)


# ``y[yo + k * ldy + 16 (w0 + j) ...] = sum over r < nrows of xT[xo + r * ldx + k] * (S' row r, word w0 + j)``
# for k < 4 (or 1) rows of x and j < 4 (or 1) words: x @ S with x given transposed (rows, M)
_xb_4x4 = _xb_intrinsic(4, 4)
_xb_4x1 = _xb_intrinsic(4, 1)
_xb_1x4 = _xb_intrinsic(1, 4)
_xb_1x1 = _xb_intrinsic(1, 1)


def _value_codegen(context, builder, sig, args):
    data = context.make_array(sig.args[0])(context, builder, args[0]).data
    ops = _Ops(context, builder, sig.return_type, sig.args[0].dtype)
    return ops.widen(builder.load(builder.gep(data, [args[1]])))


@intrinsic
def _value(typingctx, values, k):
    """``values[k]`` (1-D, no bounds check: callers index inside the row) in the sum type."""
    acc = _sum_type(values.dtype)
    if acc is None:
        return None
    return acc(values, k), _value_codegen


# ---------------------------------------------------------------------------------------------------
# the product kernels (numba): rows and tiles, the last word's groups, threads
# ---------------------------------------------------------------------------------------------------


@numba.njit(inline="always", **_JIT)
def _operand_rows(i, rows, Bv, Bx):
    """(batch of y, row, batch of values, batch of x) of the flat output row ``i``."""
    b = i // rows
    return b, i - b * rows, b if Bv > 1 else 0, b if Bx > 1 else 0


@numba.njit(**_JIT)
def _sv_chunk(vf, mf, xf, y, corr, f, rows, nv, nwr, nwf, ngl, cols, Bv, Bx, lo, hi, level):
    """Flat output rows [lo, hi) of the SpMV: ``y[i] = S'_row . x + corr``."""
    zero = y.dtype.type(0)
    for i in range(lo, hi):
        b, r, bv, bx = _operand_rows(i, rows, Bv, Bx)
        vrow = (bv * rows + r) * nv
        mrow = (bv * rows + r) * nwr
        xo = bx * cols
        s = _sv_dot(vf, mf, xf, vrow, mrow, xo, nwf, f, level)
        if ngl:  # the last word's 1-3 groups
            m = np.int64(mf[mrow + nwf])
            t = zero
            for q in range(ngl):
                code = (m >> (4 * q)) & 15
                c = xo + 16 * nwf + 4 * q
                k = vrow + 8 * nwf + 2 * q
                t += (_value(vf, k) - f) * xf[c + (code & 3)] + (_value(vf, k + 1) - f) * xf[c + ((code >> 2) & 3)]
            s += t
        y[i] = s + corr[bx]


@numba.njit(**_PJIT)
def _sv_parallel(vf, mf, xf, y, corr, f, rows, nv, nwr, nwf, ngl, cols, Bv, Bx, total, nchunks, level, nthreads):
    counter = np.zeros(1, np.int64)
    for _ in numba.prange(nthreads):
        c = claim(counter)
        while c < nchunks:
            _sv_chunk(vf, mf, xf, y, corr, f, rows, nv, nwr, nwf, ngl, cols, Bv, Bx,
                      total * c // nchunks, total * (c + 1) // nchunks, level)
            c = claim(counter)


@numba.njit(**_JIT)
def _sv_serial(vf, mf, xf, y, corr, f, rows, nv, nwr, nwf, ngl, cols, Bv, Bx, total, level):
    _sv_chunk(vf, mf, xf, y, corr, f, rows, nv, nwr, nwf, ngl, cols, Bv, Bx, 0, total, level)


@numba.njit(**_JIT)
def _sm_chunk(vf, mf, xf, xp, yf, cf, f, rows, nv, nwr, nwf, ngl, cols, N, Bv, Bx, block_bytes, lo, hi):
    """Flat output rows [lo, hi) of S @ X (X (cols, N) per batch, y (rows, N)), blocked for the
    cache: one column tile of X at a time over all the chunk's rows, and for the wide tiles one
    block of words (rows of X) at a time, so that the slab of X they gather from
    (``SM_BLOCK_BYTES``) stays in L1; each block adds its sums to the row's tile of y (the
    first block to the fill's term). The blocks are fixed by cols, not by the chunks: the same
    bits on any number of threads. Then the last word's groups row by row.

    ``xp`` is X again (N up to one wide tile) or X packed tile by tile (:func:`_pack_tiles`):
    with N a power of two the rows of a tile's slab are N * itemsize bytes apart, so they
    all fall into a few cache sets and the slab does not stay in cache (N = 512 float32: 320 ms a
    4096 x 4096 product on one thread unpacked)."""
    half = 32 // yf.itemsize
    one = 64 // yf.itemsize
    wide = 4 * one
    for t0 in range(0, N, wide):
        tw = min(wide, N - t0)
        kb = max(1, block_bytes // (16 * tw * yf.itemsize)) if tw > 2 * one else max(nwf, 1)
        for w0 in range(0, nwf, kb):
            nw = min(kb, nwf - w0)
            for i in range(lo, hi):
                b, r, bv, bx = _operand_rows(i, rows, Bv, Bx)
                vrow = (bv * rows + r) * nv + 8 * w0
                mrow = (bv * rows + r) * nwr + w0
                if N > wide:  # packed: the tile's (cols, tw) block at cols * t0
                    xo = bx * cols * N + cols * t0 + 16 * w0 * tw
                    ldx = tw
                else:
                    xo = bx * cols * N + t0 + 16 * w0 * N
                    ldx = N
                yo = i * N + t0
                # the sums go on top of the fill's term (first block) or of the blocks before
                base, bo = (cf, bx * N + t0) if w0 == 0 else (yf, yo)
                if tw == wide:
                    _sm_wide(vf, mf, xp, yf, base, vrow, mrow, xo, ldx, yo, bo, nw, tw, f)
                elif tw == half:
                    _sm_half(vf, mf, xp, yf, base, vrow, mrow, xo, ldx, yo, bo, nw, tw, f)
                elif tw < half:
                    _sm_half_m(vf, mf, xp, yf, base, vrow, mrow, xo, ldx, yo, bo, nw, tw, f)
                elif tw <= one:
                    _sm_one_m(vf, mf, xp, yf, base, vrow, mrow, xo, ldx, yo, bo, nw, tw, f)
                elif tw <= 2 * one:
                    _sm_two_m(vf, mf, xp, yf, base, vrow, mrow, xo, ldx, yo, bo, nw, tw, f)
                else:
                    _sm_wide_m(vf, mf, xp, yf, base, vrow, mrow, xo, ldx, yo, bo, nw, tw, f)
        if nwf == 0:  # no full word: y's tile is the fill's term
            for i in range(lo, hi):
                bx = (i // rows) if Bx > 1 else 0
                for t in range(tw):
                    yf[i * N + t0 + t] = cf[bx * N + t0 + t]
    if ngl:
        for i in range(lo, hi):
            b, r, bv, bx = _operand_rows(i, rows, Bv, Bx)
            vrow = (bv * rows + r) * nv
            m = np.int64(mf[(bv * rows + r) * nwr + nwf])
            xo = bx * cols * N
            yo = i * N
            for q in range(ngl):
                code = (m >> (4 * q)) & 15
                k = vrow + 8 * nwf + 2 * q
                for h in range(2):
                    c = 16 * nwf + 4 * q + ((code >> (2 * h)) & 3)
                    v = _value(vf, k + h) - f
                    xr = xo + c * N
                    for t in range(N):
                        yf[yo + t] += v * xf[xr + t]


@numba.njit(**_PJIT)
def _sm_parallel(vf, mf, xf, xp, yf, cf, f, rows, nv, nwr, nwf, ngl, cols, N, Bv, Bx, block_bytes, total, nchunks, nthreads):
    counter = np.zeros(1, np.int64)
    for _ in numba.prange(nthreads):
        c = claim(counter)
        while c < nchunks:
            _sm_chunk(vf, mf, xf, xp, yf, cf, f, rows, nv, nwr, nwf, ngl, cols, N, Bv, Bx, block_bytes,
                      total * c // nchunks, total * (c + 1) // nchunks)
            c = claim(counter)


@numba.njit(**_JIT)
def _sm_serial(vf, mf, xf, xp, yf, cf, f, rows, nv, nwr, nwf, ngl, cols, N, Bv, Bx, block_bytes, total):
    _sm_chunk(vf, mf, xf, xp, yf, cf, f, rows, nv, nwr, nwf, ngl, cols, N, Bv, Bx, block_bytes, 0, total)


def _pack_tiles(xs, wide):
    """X ``(Bx, cols, N)`` tile by tile (kept scratch): batch b's tile at ``t0`` (width ``tw``) is
    the ``(cols, tw)`` C-ordered block at ``b * cols * N + cols * t0``."""
    Bx, cols, N = xs.shape
    xp = scratch("semi_structured.pack", (Bx, cols * N), xs.dtype)
    for t0 in range(0, N, wide):
        tw = min(wide, N - t0)
        xp[:, cols * t0 : cols * (t0 + tw)].reshape(Bx, cols, tw)[...] = xs[:, :, t0 : t0 + tw]
    return xp.reshape(-1)


@numba.njit(**_JIT)
def _xs_chunk(vf, mf, xt, yf, cf, f, rows, nv, nwr, nwf, ngl, cols, M, Bv, Bx, nmb, ncb, lo, hi):
    """Tiles [lo, hi) of y = x @ S' + corr for more than 4 rows of x (``xt``: x transposed, (Bx,
    rows, M)): tile t is (batch, block of 4 words of columns, block of 4 rows of x), the row block
    fastest, so that tiles claimed one after another share their slab of S (rows x 64 columns:
    about rows * 136 bytes for float32, in L2). Each tile's 4 x 4 words of sums stay in registers
    over all the rows of S (:func:`_xb_4x4`); the last block of rows or words may be smaller."""
    for t in range(lo, hi):
        mb = t % nmb
        rest = t // nmb
        cb = rest % ncb
        b = rest // ncb
        bv = b if Bv > 1 else 0
        bx = b if Bx > 1 else 0
        m0 = 4 * mb
        mc = min(4, M - m0)
        w0 = 4 * cb
        wc = min(4, nwf - w0)
        last = cb == ncb - 1
        yo = (b * M + m0) * cols
        xo = bx * rows * M + m0
        vo = bv * rows * nv
        mo = bv * rows * nwr
        if mc == 4:
            if wc == 4:
                _xb_4x4(vf, mf, xt, yf, vo, mo, nv, nwr, xo, M, yo, cols, rows, w0, f)
            else:
                for j in range(wc):
                    _xb_4x1(vf, mf, xt, yf, vo, mo, nv, nwr, xo, M, yo, cols, rows, w0 + j, f)
        else:
            for k in range(mc):
                if wc == 4:
                    _xb_1x4(vf, mf, xt, yf, vo, mo, nv, nwr, xo + k, M, yo + k * cols, cols, rows, w0, f)
                else:
                    for j in range(wc):
                        _xb_1x1(vf, mf, xt, yf, vo, mo, nv, nwr, xo + k, M, yo + k * cols, cols, rows, w0 + j, f)
        c0 = 16 * w0
        c1 = cols if last else 16 * (w0 + 4)
        if last and ngl:  # the last word's 1-3 groups
            zero = yf.dtype.type(0)
            for k in range(mc):
                for c in range(16 * nwf, cols):
                    yf[yo + k * cols + c] = zero
            _tail_groups(vf, mf, xt, yf, f, vo, mo, nv, nwr, nwf, ngl, xo, M, 1, yo, cols, rows, mc)
        for k in range(mc):
            cc = cf[bx * M + m0 + k]
            if cc != 0:
                for c in range(yo + k * cols + c0, yo + k * cols + c1):
                    yf[c] += cc


@numba.njit(**_JIT)
def _tail_groups(vf, mf, x, y, f, vo, mo, nv, nwr, nwf, ngl, xo, xr, xk, yo, cols, nrows, mk):
    """``y[yo + k cols + c] += x[xo + r xr + k xk] * (S(r, c) - f)`` for the kept positions c of
    the last metadata word's ``ngl`` (1-3) groups of rows r < nrows, k < mk rows of x: the tail of
    both ``x @ S`` forms (x read row-major or transposed through its strides)."""
    for r in range(nrows):
        m = np.int64(mf[mo + r * nwr + nwf])
        for q in range(ngl):
            code = (m >> (4 * q)) & 15
            kv = vo + r * nv + 8 * nwf + 2 * q
            for h in range(2):
                c = 16 * nwf + 4 * q + ((code >> (2 * h)) & 3)
                v = _value(vf, kv + h) - f
                for k in range(mk):
                    y[yo + k * cols + c] += x[xo + r * xr + k * xk] * v


@numba.njit(**_PJIT)
def _xs_parallel(vf, mf, xt, yf, cf, f, rows, nv, nwr, nwf, ngl, cols, M, Bv, Bx, nmb, ncb, ntiles, nthreads):
    counter = np.zeros(1, np.int64)
    for _ in numba.prange(nthreads):
        c = claim(counter)
        while c < ntiles:
            _xs_chunk(vf, mf, xt, yf, cf, f, rows, nv, nwr, nwf, ngl, cols, M, Bv, Bx, nmb, ncb, c, c + 1)
            c = claim(counter)


@numba.njit(**_JIT)
def _xs_serial(vf, mf, xt, yf, cf, f, rows, nv, nwr, nwf, ngl, cols, M, Bv, Bx, nmb, ncb, ntiles):
    _xs_chunk(vf, mf, xt, yf, cf, f, rows, nv, nwr, nwf, ngl, cols, M, Bv, Bx, nmb, ncb, 0, ntiles)


@numba.njit(**_JIT)
def _xr_chunk(vf, mf, xf, pf, f, rows, nv, nwr, nwf, ngl, cols, M, Bv, Bx, R, nck, lo, hi):
    """Items [lo, hi) of x @ S' split by rows (M <= 4 rows of x): item (b, c) adds the rows
    [c R, c R + R) of batch b of S, times x, into its own partial ``P[b, c]`` ``(M, cols)``
    (zeroed first): each item streams whole rows of S, and no two write the same element."""
    zero = pf.dtype.type(0)
    for t in range(lo, hi):
        b = t // nck
        r0 = (t - b * nck) * R
        nr = min(R, rows - r0)
        bv = b if Bv > 1 else 0
        bx = b if Bx > 1 else 0
        po = t * M * cols
        for k in range(po, po + M * cols):
            pf[k] = zero
        vo = (bv * rows + r0) * nv
        mo = (bv * rows + r0) * nwr
        xo = bx * M * rows + r0
        if nwf:
            if M == 4:
                _xs_four(vf, mf, xf, pf, vo, mo, nv, nwr, xo, rows, po, cols, nr, 0, nwf, f)
            else:
                for k in range(M):
                    _xs_one(vf, mf, xf, pf, vo, mo, nv, nwr, xo + k * rows, rows, po + k * cols, cols, nr, 0, nwf, f)
        if ngl:  # the last word's 1-3 groups
            _tail_groups(vf, mf, xf, pf, f, vo, mo, nv, nwr, nwf, ngl, xo, 1, rows, po, cols, nr, M)


@numba.njit(**_JIT)
def _xr_reduce(pf, yf, cf, B, M, cols, nck, Bx, lo, hi):
    """Columns [lo, hi) of ``y[b, m] = sum over c of P[b, c, m] + corr[b, m]``, c in order."""
    for b in range(B):
        bx = b if Bx > 1 else 0
        for m in range(M):
            yo = (b * M + m) * cols
            p0 = (b * nck * M + m) * cols
            for j in range(lo, hi):
                yf[yo + j] = pf[p0 + j]
            for c in range(1, nck):
                pc = ((b * nck + c) * M + m) * cols
                for j in range(lo, hi):
                    yf[yo + j] += pf[pc + j]
            cc = cf[bx * M + m]
            if cc != 0:
                for j in range(lo, hi):
                    yf[yo + j] += cc


@numba.njit(**_PJIT)
def _xr_parallel(vf, mf, xf, pf, yf, cf, f, rows, nv, nwr, nwf, ngl, cols, M, B, Bv, Bx, R, nck, nthreads):
    counter = np.zeros(1, np.int64)
    items = B * nck
    for _ in numba.prange(nthreads):
        c = claim(counter)
        while c < items:
            _xr_chunk(vf, mf, xf, pf, f, rows, nv, nwr, nwf, ngl, cols, M, Bv, Bx, R, nck, c, c + 1)
            c = claim(counter)
    for t in numba.prange(nthreads):  # after every item: the partials summed, columns split
        _xr_reduce(pf, yf, cf, B, M, cols, nck, Bx, cols * t // nthreads, cols * (t + 1) // nthreads)


@numba.njit(**_JIT)
def _xr_serial(vf, mf, xf, pf, yf, cf, f, rows, nv, nwr, nwf, ngl, cols, M, B, Bv, Bx, R, nck):
    _xr_chunk(vf, mf, xf, pf, f, rows, nv, nwr, nwf, ngl, cols, M, Bv, Bx, R, nck, 0, B * nck)
    _xr_reduce(pf, yf, cf, B, M, cols, nck, Bx, 0, cols)


# complex values: the same loops in plain numba code (no vector IR), one kept value at a time


@numba.njit(inline="always", **_JIT)
def _kept_column(mf, mrow, g, h):
    """Column within the row of the ``h``-th (0 or 1) kept value of group ``g``."""
    code = (np.int64(mf[mrow + (g >> 2)]) >> (4 * (g & 3))) & 15
    return 4 * g + ((code >> (2 * h)) & 3)


@numba.njit(**_JIT)
def _mm_complex(vf, mf, xf, yf, cf, f, rows, nv, nwr, cols, N, Bv, Bx, lo, hi):
    """Flat output rows [lo, hi) of S @ X for complex values (N = 1 included)."""
    for i in range(lo, hi):
        b, r, bv, bx = _operand_rows(i, rows, Bv, Bx)
        vrow = (bv * rows + r) * nv
        mrow = (bv * rows + r) * nwr
        xo = bx * cols * N
        yo = i * N
        for t in range(N):
            yf[yo + t] = cf[bx * N + t]
        for k in range(nv):
            v = vf[vrow + k] - f
            xr = xo + _kept_column(mf, mrow, k >> 1, k & 1) * N
            for t in range(N):
                yf[yo + t] += v * xf[xr + t]


@numba.njit(**_PJIT)
def _mm_complex_parallel(vf, mf, xf, yf, cf, f, rows, nv, nwr, cols, N, Bv, Bx, total, nchunks, nthreads):
    counter = np.zeros(1, np.int64)
    for _ in numba.prange(nthreads):
        c = claim(counter)
        while c < nchunks:
            _mm_complex(vf, mf, xf, yf, cf, f, rows, nv, nwr, cols, N, Bv, Bx, total * c // nchunks, total * (c + 1) // nchunks)
            c = claim(counter)


@numba.njit(**_JIT)
def _xs_complex(vf, mf, xf, yf, cf, f, rows, nv, nwr, cols, M, Bv, Bx, lo, hi):
    """Output rows [lo, hi) of the flat (B * M) rows of y = x @ S' + corr for complex values."""
    for i in range(lo, hi):
        b = i // M
        mm = i - b * M
        bv = b if Bv > 1 else 0
        bx = b if Bx > 1 else 0
        yo = i * cols
        for c in range(cols):
            yf[yo + c] = cf[bx * M + mm]
        xo = (bx * M + mm) * rows
        for r in range(rows):
            xr = xf[xo + r]
            vrow = (bv * rows + r) * nv
            mrow = (bv * rows + r) * nwr
            for k in range(nv):
                yf[yo + _kept_column(mf, mrow, k >> 1, k & 1)] += xr * (vf[vrow + k] - f)


@numba.njit(**_PJIT)
def _xs_complex_parallel(vf, mf, xf, yf, cf, f, rows, nv, nwr, cols, M, Bv, Bx, total, nchunks, nthreads):
    counter = np.zeros(1, np.int64)
    for _ in numba.prange(nthreads):
        c = claim(counter)
        while c < nchunks:
            _xs_complex(vf, mf, xf, yf, cf, f, rows, nv, nwr, cols, M, Bv, Bx, total * c // nchunks, total * (c + 1) // nchunks)
            c = claim(counter)


# ---------------------------------------------------------------------------------------------------
# argument checks (Python)
# ---------------------------------------------------------------------------------------------------


def _unbroadcast(a):
    """``a`` with a leading batch axis of stride 0 (``np.broadcast_to``) cut to length 1 (no copy)."""
    if a.ndim >= 2 and a.shape[0] > 1 and a.strides[0] == 0:
        return a[:1]
    return a


def _components(fname, values, metadata, cols):
    """(values 3-D, metadata 3-D uint16, batched, cols) after the checks every kernel shares."""
    values = np.asarray(values)
    metadata = np.asarray(metadata)
    try:
        cols = operator.index(cols)
    except TypeError:
        raise ValueError(f"{fname}: cols must be an integer; got {cols!r}") from None
    if cols < 0 or cols % 4:
        raise ValueError(f"{fname}: cols must be a non-negative multiple of 4; got {cols}")
    if values.ndim not in (2, 3):
        raise ValueError(f"{fname}: values must be (rows, cols // 2) or (B, rows, cols // 2); got shape {values.shape}")
    words = -(-cols // 16)
    want = (*values.shape[:-1], words)
    if values.shape[-1] != cols // 2 or metadata.shape != want:
        raise ValueError(f"{fname}: values {values.shape} and metadata {metadata.shape} do not fit cols={cols}: "
                         f"expected values (..., rows, {cols // 2}) and metadata {want}")
    if metadata.dtype == np.int16:
        metadata = metadata.view(np.uint16)
    if metadata.dtype != np.uint16:
        raise ValueError(f"{fname}: metadata must be uint16; got dtype {metadata.dtype}")
    batched = values.ndim == 3
    if not batched:
        values, metadata = values[None], metadata[None]
    return values, metadata, batched, cols


def _operand_dtypes(fname, values, x):
    if values.dtype != x.dtype:
        raise KernelDeclined(f"{fname}: values ({values.dtype}) and x ({x.dtype}) must have the same dtype, "
                             f"{_EXPECTED}; cast one of them or use the generic implementation")
    if values.dtype not in _KERNEL_TYPES:
        raise KernelDeclined(f"{fname}: values and x have dtype {values.dtype}; expected {_EXPECTED}; "
                             "cast them or use the generic implementation")


def _fill_value(fname, fill, dtype):
    """The fill in the sum dtype (a NumPy scalar), and whether it is zero (:func:`_fill_of`)."""
    f = _fill_of(fname, fill, dtype)
    fc = _in_sum_dtype(f.reshape(1), dtype)[0]
    return fc, bool(fc == 0)


def _fill_of(fname, fill, dtype):
    """The 0-d ``fill`` as a ``dtype`` array: rounded to a floating dtype; ValueError where an
    integer or boolean dtype cannot hold it exactly or a real dtype would drop an imaginary part."""
    f = np.asarray(fill)
    if f.ndim:
        raise ValueError(f"{fname}: fill must be a scalar (0-d); got shape {f.shape}")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the casts below are checked
        fd = f.astype(dtype)
        if dtype.kind in "iub":
            lost = f.dtype.kind in "fc" and not np.isfinite(f) or not bool(fd == f)
        else:
            lost = dtype.kind == "f" and f.dtype.kind == "c" and bool(f.imag != 0)
    if lost:
        raise ValueError(f"{fname}: the fill {f.item()!r} is not a value of the dtype {dtype}")
    return fd


def _batches(fname, Bv, Bx, vshape, xshape):
    if Bv != Bx and Bv != 1 and Bx != 1:
        raise ValueError(f"{fname}: batch sizes of values {vshape} and x {xshape} differ ({Bv} and {Bx}); "
                         "they must be equal or one of them 1")
    return max(Bv, Bx)


def _nchunks(work, total):
    nt = numba.get_num_threads()
    return int(min(total, max(2 * nt, min(16 * nt, work // CHUNK_WORK))))


def _finish(y, dtype):
    """The result in values' dtype: float16 rounded once, small and unsigned integers' low bits."""
    if y.dtype == dtype:
        return y
    if y.dtype.itemsize == dtype.itemsize and dtype.kind in "iu":
        return y.view(dtype)
    return y.astype(dtype)


# ---------------------------------------------------------------------------------------------------
# the products (Python)
# ---------------------------------------------------------------------------------------------------


def semi_matmul_dense(values, metadata, x, fill, cols):
    """``S' @ x + fill * colsum(x)``: the product of the dense matrix of the 2:4 components
    (values, metadata, fill) and a dense vector or matrix x (shapes: the module docstring).

    Reads the values and the 4-bit codes directly (no dense or CSR copy); parallel from
    ``SV_SERIAL_WORK`` (a vector) / ``MM_SERIAL_WORK`` (a matrix) kept values times columns.
    With ``fill == 0`` the result is ``S @ x`` over the kept positions only. KernelDeclined for
    dtypes it does not serve, ValueError for shapes that do not fit (both shapes named).

    >>> v, m, _ = semi_encode(np.array([[1.0, 0.0, 2.0, 0.0]]), 0.0)
    >>> semi_matmul_dense(v, m, np.array([[1.0, 2.0], [0.0, 0.0], [3.0, 4.0], [0.0, 0.0]]), 0.0, 4).tolist()
    [[7.0, 10.0]]
    """
    fname = "semi_matmul_dense"
    values, metadata, batched, cols = _components(fname, values, metadata, cols)
    x = np.asarray(x)
    _operand_dtypes(fname, values, x)
    vector = x.ndim == (2 if batched else 1)
    if vector:
        x3 = x if batched else x[None]  # (Bx, cols)
        if x3.shape[-1] != cols:
            raise ValueError(f"{fname}: x has shape {x.shape}; expected (..., {cols}) to multiply values {values.shape[-2:]} "
                             f"of a {values.shape[-2]} x {cols} matrix")
    else:
        if x.ndim == 2 and not batched:
            x3 = x[None]
        elif x.ndim == 3:
            x3 = x
        else:
            raise ValueError(f"{fname}: x must be {'(B, cols) or (B, cols, N)' if batched else '(cols,), (cols, N) or (B, cols, N)'}"
                             f"; got shape {x.shape} with values of shape {values.shape if batched else values.shape[1:]}")
        if x3.shape[1] != cols:
            raise ValueError(f"{fname}: x has shape {x.shape}; its rows ({x3.shape[1]}) must equal cols ({cols})")
    dtype = values.dtype
    values, metadata, x3 = _unbroadcast(values), _unbroadcast(metadata), _unbroadcast(x3)
    if values.shape[0] != metadata.shape[0]:  # one of them was broadcast, the other not
        values = np.broadcast_to(values, (max(values.shape[0], metadata.shape[0]), *values.shape[1:]))
        metadata = np.broadcast_to(metadata, values.shape[:2] + metadata.shape[2:])
    Bv, rows = values.shape[0], values.shape[1]
    B = _batches(fname, Bv, x3.shape[0], values.shape, x.shape)
    N = 1 if vector else x3.shape[2]
    out_batched = batched or (not vector and x.ndim == 3)
    shape = ((B,) if out_batched else ()) + (rows,) + (() if vector else (N,))
    fc, zero_fill = _fill_value(fname, fill, dtype)
    acc = _KERNEL_TYPES[dtype][1]
    if B * rows * N == 0 or cols == 0:  # nothing to sum: S' @ x and colsum(x) are 0
        return np.zeros(shape, dtype)
    xs = np.ascontiguousarray(_in_sum_dtype(x3, dtype))
    Bx = xs.shape[0]
    if zero_fill:
        corr = np.zeros(Bx * N, acc)
    else:
        corr = (np.asarray(fc, acc) * xs.sum(axis=1, dtype=acc)).astype(acc).reshape(-1)
    vf = _raw(np.ascontiguousarray(values)).reshape(-1)
    mf = np.ascontiguousarray(metadata).reshape(-1)
    xf = xs.reshape(-1)
    y = np.empty(B * rows * N, acc)
    nv, nwr = cols // 2, metadata.shape[2]
    nwf, ngl = cols // 16, (cols % 16) // 4
    total = B * rows
    work = total * nv * N
    complex_ = dtype.kind == "c"
    if complex_:
        args = (vf, mf, xf, y, corr, fc, rows, nv, nwr, cols, N, Bv, Bx, total)
        if work < MM_SERIAL_WORK:
            _mm_complex(*args[:-1], 0, total)
        else:
            with team(work, 0, SHARED_WORK) as threads:
                if threads == 1:
                    _mm_complex(*args[:-1], 0, total)
                else:
                    _mm_complex_parallel(*args, _nchunks(work, total), threads)
    elif N == 1:
        args = (vf, mf, xf, y, corr, fc, rows, nv, nwr, nwf, ngl, cols, Bv, Bx, total)
        if work < SV_SERIAL_WORK:
            _sv_serial(*args, SV_PERMUTE)
        else:
            with team(work, 0, SHARED_WORK) as threads:
                if threads == 1:
                    _sv_serial(*args, SV_PERMUTE)
                else:
                    _sv_parallel(*args, _nchunks(work, total), SV_PERMUTE, threads)
    else:
        wide = 4 * (64 // np.dtype(acc).itemsize)
        xp = _pack_tiles(xs, wide) if N > wide else xf
        args = (vf, mf, xf, xp, y, corr, fc, rows, nv, nwr, nwf, ngl, cols, N, Bv, Bx, SM_BLOCK_BYTES, total)
        if work < MM_SERIAL_WORK:
            _sm_serial(*args)
        else:
            with team(work, 0, SHARED_WORK) as threads:
                if threads == 1:
                    _sm_serial(*args)
                else:
                    _sm_parallel(*args, _nchunks(work, total), threads)
    return _finish(y, dtype).reshape(shape)


def dense_matmul_semi(x, values, metadata, fill, cols):
    """``x @ S' + fill * rowsum(x)``: a dense vector or matrix x times the dense matrix of the 2:4
    components (values, metadata, fill); x ``(rows,)``, ``(B, rows)`` (vectors, as values has a
    batch or not), ``(M, rows)`` or ``(B, M, rows)``; the result ``(..., cols)`` / ``(..., M, cols)``.

    Each thread owns tiles of y (module docstring): no atomics and no reduction. With ``fill ==
    0`` the result is ``x @ S`` over the kept positions only.

    >>> v, m, _ = semi_encode(np.array([[1.0, 0.0, 2.0, 0.0], [0.0, 3.0, 0.0, 0.0]]), 0.0)
    >>> dense_matmul_semi(np.array([1.0, 10.0]), v, m, 0.0, 4).tolist()
    [1.0, 30.0, 2.0, 0.0]
    """
    fname = "dense_matmul_semi"
    values, metadata, batched, cols = _components(fname, values, metadata, cols)
    x = np.asarray(x)
    _operand_dtypes(fname, values, x)
    rows = values.shape[1]
    vector = x.ndim == (2 if batched else 1)
    if vector:
        x3 = x[:, None, :] if batched else x[None, None, :]
    elif x.ndim == 2 and not batched:
        x3 = x[None]
    elif x.ndim == 3:
        x3 = x
    else:
        raise ValueError(f"{fname}: x must be {'(B, rows) or (B, M, rows)' if batched else '(rows,), (M, rows) or (B, M, rows)'}"
                         f"; got shape {x.shape} with values of shape {values.shape if batched else values.shape[1:]}")
    if x3.shape[2] != rows:
        raise ValueError(f"{fname}: x has shape {x.shape}; its last dim must equal the rows of the 2:4 matrix "
                         f"(values {values.shape if batched else values.shape[1:]}: {rows})")
    dtype = values.dtype
    values, metadata, x3 = _unbroadcast(values), _unbroadcast(metadata), _unbroadcast(x3)
    if values.shape[0] != metadata.shape[0]:
        values = np.broadcast_to(values, (max(values.shape[0], metadata.shape[0]), *values.shape[1:]))
        metadata = np.broadcast_to(metadata, values.shape[:2] + metadata.shape[2:])
    Bv = values.shape[0]
    B = _batches(fname, Bv, x3.shape[0], values.shape, x.shape)
    M = x3.shape[1]
    out_batched = batched or (not vector and x.ndim == 3)
    shape = ((B,) if out_batched else ()) + (() if vector else (M,)) + (cols,)
    fc, zero_fill = _fill_value(fname, fill, dtype)
    acc = _KERNEL_TYPES[dtype][1]
    if B * M * cols == 0 or rows == 0:
        return np.zeros(shape, dtype)
    xc = _in_sum_dtype(x3, dtype)
    Bx = xc.shape[0]
    if zero_fill:
        corr = np.zeros(Bx * M, acc)
    else:
        corr = (np.asarray(fc, acc) * xc.sum(axis=2, dtype=acc)).astype(acc).reshape(-1)
    vf = _raw(np.ascontiguousarray(values)).reshape(-1)
    mf = np.ascontiguousarray(metadata).reshape(-1)
    xf = np.ascontiguousarray(xc).reshape(-1) if M <= 4 or dtype.kind == "c" else None
    y = np.empty(B * M * cols, acc)
    nv, nwr = cols // 2, metadata.shape[2]
    nwf, ngl = cols // 16, (cols % 16) // 4
    work = B * rows * nv * M
    if dtype.kind == "c":
        total = B * M
        args = (vf, mf, xf, y, corr, fc, rows, nv, nwr, cols, M, Bv, Bx, total)
        if work < XS_SERIAL_WORK:
            _xs_complex(*args[:-1], 0, total)
        else:
            with team(work, 0, SHARED_WORK) as threads:
                if threads == 1:
                    _xs_complex(*args[:-1], 0, total)
                else:
                    _xs_complex_parallel(*args, _nchunks(work, total), threads)
        return _finish(y, dtype).reshape(shape)
    if M <= 4:  # split by rows into partials of y, summed in order (the same bits on any threads)
        nck = min(-(-rows // 16), _XR_MAX_CHUNKS, max(1, work // (B * _XR_CHUNK_WORK)))
        R = -(-rows // nck)
        nck = -(-rows // R)
        part = scratch("semi_structured.partials", (B * nck * M * cols,), acc)
        args = (vf, mf, xf, part, y, corr, fc, rows, nv, nwr, nwf, ngl, cols, M, B, Bv, Bx, R, nck)
        if work < XS_SERIAL_WORK:
            _xr_serial(*args)
        else:
            with team(work, 0, SHARED_WORK) as threads:
                if threads == 1:
                    _xr_serial(*args)
                else:
                    _xr_parallel(*args, threads)
        return _finish(y, dtype).reshape(shape)
    # more rows of x: tiles of 4 rows of x times 4 words, x transposed (a view's copy; free
    # where x is itself the transpose of a C-ordered array, as A.mT @ X hands it over)
    xt = np.ascontiguousarray(np.swapaxes(xc, 1, 2)).reshape(-1)
    nmb, ncb = -(-M // 4), max(1, -(-nwf // 4))
    ntiles = B * nmb * ncb
    args = (vf, mf, xt, y, corr, fc, rows, nv, nwr, nwf, ngl, cols, M, Bv, Bx, nmb, ncb, ntiles)
    if work < XS_SERIAL_WORK:
        _xs_serial(*args)
    else:
        with team(work, 0, SHARED_WORK) as threads:
            if threads == 1:
                _xs_serial(*args)
            else:
                _xs_parallel(*args, threads)
    return _finish(y, dtype).reshape(shape)


# ---------------------------------------------------------------------------------------------------
# encode, decode, validate
# ---------------------------------------------------------------------------------------------------


def _same_value(a, f):
    """Whether ``a`` is exactly the fill ``f`` (inside numba code; see ``_core/fill.same_value``)."""
    raise NotImplementedError("_same_value is called from numba code only")


@numba.njit(inline="always", **_JIT)
def _same_float(a, f):
    if a != a:
        return f != f
    return a == f and (a != 0 or math.copysign(1.0, a) == math.copysign(1.0, f))


@overload(_same_value, jit_options=dict(nogil=True))
def _same_value_typed(a, f):
    if isinstance(a, types.Float):
        return lambda a, f: _same_float(a, f)
    if isinstance(a, types.Complex):
        return lambda a, f: _same_float(a.real, f.real) and _same_float(a.imag, f.imag)
    if a == types.uint16:  # float16 bits: the same bits, or both nan (exponent all ones, mantissa not 0)
        return lambda a, f: a == f or ((a & 0x7C00) == 0x7C00 and (a & 0x3FF) != 0 and (f & 0x7C00) == 0x7C00 and (f & 0x3FF) != 0)
    return lambda a, f: a == f


@numba.njit(**_JIT)
def _encode_rows(d, f, vals, meta, cols, nwr, lo, hi):
    """Rows [lo, hi) of the flat (rows, cols) dense ``d``: their values and metadata. Returns the
    flat group index (row * cols // 4 + group) of the first group with more than 2 elements that
    are not the fill, or -1 (such a group keeps its first two; the caller raises)."""
    ngroups = cols // 4
    nv = cols // 2
    bad = -1
    for r in range(lo, hi):
        drow = r * cols
        word = 0
        for g in range(ngroups):
            p0 = -1
            p1 = -1
            count = 0
            for p in range(4):
                if not _same_value(d[drow + 4 * g + p], f):
                    count += 1
                    if p0 < 0:
                        p0 = p
                    elif p1 < 0:
                        p1 = p
            if count > 2 and bad < 0:
                bad = r * ngroups + g
            if p0 < 0:  # all fill: (0, 1)
                p0, p1 = 0, 1
            elif p1 < 0:  # one: it and the lowest other position
                p1 = 1 if p0 == 0 else 0
                if p1 < p0:
                    p0, p1 = p1, p0
            vals[r * nv + 2 * g] = d[drow + 4 * g + p0]
            vals[r * nv + 2 * g + 1] = d[drow + 4 * g + p1]
            word |= (p0 | (p1 << 2)) << (4 * (g & 3))
            if g & 3 == 3:
                meta[r * nwr + (g >> 2)] = np.uint16(word)
                word = 0
        if ngroups & 3:
            for g in range(ngroups, 4 * nwr):
                word |= PAD_CODE << (4 * (g & 3))
            meta[r * nwr + nwr - 1] = np.uint16(word)
    return bad


@numba.njit(**_PJIT)
def _encode_parallel(d, f, vals, meta, cols, nwr, total, nchunks, nthreads):
    bad = np.full(nchunks, -1, np.int64)
    counter = np.zeros(1, np.int64)
    for _ in numba.prange(nthreads):
        c = claim(counter)
        while c < nchunks:
            bad[c] = _encode_rows(d, f, vals, meta, cols, nwr, total * c // nchunks, total * (c + 1) // nchunks)
            c = claim(counter)
    for c in range(nchunks):
        if bad[c] >= 0:
            return bad[c]
    return -1


@numba.njit(**_JIT)
def _decode_rows(vals, meta, f, out, cols, nwr, lo, hi):
    """Rows [lo, hi) of the dense (rows, cols) ``out``: the fill, then each kept value at its
    position (an invalid code with i0 == i1 writes its second value there: in bounds)."""
    nv = cols // 2
    for r in range(lo, hi):
        orow = r * cols
        out[orow : orow + cols] = f
        for g in range(cols // 4):
            code = (np.int64(meta[r * nwr + (g >> 2)]) >> (4 * (g & 3))) & 15
            out[orow + 4 * g + (code & 3)] = vals[r * nv + 2 * g]
            out[orow + 4 * g + ((code >> 2) & 3)] = vals[r * nv + 2 * g + 1]


@numba.njit(**_PJIT)
def _decode_parallel(vals, meta, f, out, cols, nwr, total, nchunks, nthreads):
    counter = np.zeros(1, np.int64)
    for _ in numba.prange(nthreads):
        c = claim(counter)
        while c < nchunks:
            _decode_rows(vals, meta, f, out, cols, nwr, total * c // nchunks, total * (c + 1) // nchunks)
            c = claim(counter)


@numba.njit(**_JIT)
def _first_bad_code(meta, total, nwr, ngroups):
    """Flat index (row * 4 * nwr + nibble) of the first nibble that is not a valid code (a used
    group) or not ``PAD_CODE`` (an unused nibble of a row's last word), or -1."""
    valid = np.int64(_VALID_MASK)
    for r in range(total):
        for w in range(nwr):
            word = np.int64(meta[r * nwr + w])
            for q in range(4):
                g = 4 * w + q
                code = (word >> (4 * q)) & 15
                if (code != PAD_CODE) if g >= ngroups else ((valid >> code) & 1) == 0:
                    return r * 4 * nwr + g
    return -1


def _codec_chunks(total, cols):
    nt = numba.get_num_threads()
    return int(min(total, max(2 * nt, min(16 * nt, total * cols // CHUNK_WORK))))


def _where(flat_row, group, shape):
    """``(*batch, row, group)`` of the flat row ``flat_row`` of the rows of ``shape`` (``(*batch, rows)``)."""
    return (*(int(i) for i in np.unravel_index(int(flat_row), shape)), int(group))


def semi_encode(dense, fill):
    """``(values, metadata, bad)`` of the dense ``(*batch, rows, cols)`` NumPy array against the
    scalar ``fill`` (``cols % 4 == 0``): the elements that are not the fill (nan-aware: nan is
    nan's fill; -0.0 and +0.0 differ) at most 2 per group; a group with fewer keeps the lowest free
    positions (all fill: (0, 1), code 0x4; one at p: p and the lowest other position). ``bad`` is
    -1, or ``(*batch, row, group)`` of the first group with more than 2 (the arrays are then not
    a valid encoding: the caller raises). KernelDeclined for a dtype numba does not hold.

    >>> v, m, bad = semi_encode(np.array([[5, 5, 7, 5, 1, 2, 3, 5]]), 5)
    >>> v.tolist(), hex(int(m[0, 0])), bad
    ([[5, 7, 1, 2]], '0x4448', (0, 1))
    """
    fname = "semi_encode"
    dense = np.asarray(dense)
    if dense.ndim < 2:
        raise ValueError(f"{fname}: dense must be (*batch, rows, cols); got shape {dense.shape}")
    if dense.dtype not in _CODEC_DTYPES:
        raise KernelDeclined(f"{fname}: dense has dtype {dense.dtype}; expected bool or {_EXPECTED} "
                             "(use the generic implementation)")
    *lead, rows, cols = dense.shape
    if cols % 4:
        raise ValueError(f"{fname}: the columns ({cols}, shape {dense.shape}) must be a multiple of 4")
    f = _fill_of(fname, fill, dense.dtype)
    raw = _codec_raw(dense.dtype)
    nwr = -(-cols // 16)
    values = np.empty((*lead, rows, cols // 2), dense.dtype)
    metadata = np.empty((*lead, rows, nwr), np.uint16)
    total = math.prod(lead) * rows
    if total == 0 or cols == 0:
        return values, metadata, -1
    d = np.ascontiguousarray(dense).view(raw).reshape(-1)
    fr = f.reshape(1).view(raw)[0]
    vf, mf = values.view(raw).reshape(-1), metadata.reshape(-1)
    work = total * cols
    if work < CODEC_SERIAL_WORK:
        bad = _encode_rows(d, fr, vf, mf, cols, nwr, 0, total)
    else:
        with team(work, 0) as threads:
            if threads == 1:
                bad = _encode_rows(d, fr, vf, mf, cols, nwr, 0, total)
            else:
                bad = _encode_parallel(d, fr, vf, mf, cols, nwr, total, _codec_chunks(total, cols), threads)
    bad = int(bad)
    if bad < 0:
        return values, metadata, -1
    return values, metadata, _where(bad // (cols // 4), bad % (cols // 4), (*lead, rows))


def semi_decode(values, metadata, fill, cols):
    """The dense ``(*batch, rows, cols)`` array of the components: the fill everywhere, each kept
    value at its position. Any code stays in bounds (an invalid one gives a wrong array, never a
    bad access). KernelDeclined for a dtype numba does not hold.

    >>> semi_decode(np.array([[3.0, 4.0]]), np.array([[0x444D]], np.uint16), -1.0, 4).tolist()
    [[-1.0, 3.0, -1.0, 4.0]]
    """
    fname = "semi_decode"
    values = np.asarray(values)
    metadata = np.asarray(metadata)
    if values.dtype not in _CODEC_DTYPES:
        raise KernelDeclined(f"{fname}: values have dtype {values.dtype}; expected bool or {_EXPECTED} "
                             "(use the generic implementation)")
    try:
        cols = operator.index(cols)
    except TypeError:
        raise ValueError(f"{fname}: cols must be an integer; got {cols!r}") from None
    if cols < 0 or cols % 4:
        raise ValueError(f"{fname}: cols must be a non-negative multiple of 4; got {cols}")
    if values.ndim < 2:
        raise ValueError(f"{fname}: values must be (*batch, rows, cols // 2); got shape {values.shape}")
    nwr = -(-cols // 16)
    want = (*values.shape[:-1], nwr)
    if values.shape[-1] != cols // 2 or metadata.shape != want:
        raise ValueError(f"{fname}: values {values.shape} and metadata {metadata.shape} do not fit cols={cols}: "
                         f"expected values (..., rows, {cols // 2}) and metadata {want}")
    if metadata.dtype == np.int16:
        metadata = metadata.view(np.uint16)
    if metadata.dtype != np.uint16:
        raise ValueError(f"{fname}: metadata must be uint16; got dtype {metadata.dtype}")
    f = _fill_of(fname, fill, values.dtype)
    raw = _codec_raw(values.dtype)
    out = np.empty((*values.shape[:-1], cols), values.dtype)
    total = math.prod(values.shape[:-1])
    if total == 0 or cols == 0:
        return out
    vf = np.ascontiguousarray(values).view(raw).reshape(-1)
    mf = np.ascontiguousarray(metadata).reshape(-1)
    fr = f.reshape(1).view(raw)[0]
    of = out.view(raw).reshape(-1)
    work = total * cols
    if work < CODEC_SERIAL_WORK:
        _decode_rows(vf, mf, fr, of, cols, nwr, 0, total)
    else:
        with team(work, 0) as threads:
            if threads == 1:
                _decode_rows(vf, mf, fr, of, cols, nwr, 0, total)
            else:
                _decode_parallel(vf, mf, fr, of, cols, nwr, total, _codec_chunks(total, cols), threads)
    return out


def semi_metadata_valid(metadata, cols):
    """-1 when every used nibble of ``metadata`` (``(*batch, rows, ceil(cols / 16))`` uint16) is one
    of the six valid codes and every unused one (past ``cols // 4`` groups) is ``PAD_CODE``; else
    ``(*batch, row, group)`` of the first that is not (``group >= cols // 4``: an unused nibble).

    >>> semi_metadata_valid(np.array([[0x44CE]], np.uint16), 8), semi_metadata_valid(np.array([[0x4405]], np.uint16), 8)
    (-1, (0, 0))
    """
    fname = "semi_metadata_valid"
    metadata = np.asarray(metadata)
    try:
        cols = operator.index(cols)
    except TypeError:
        raise ValueError(f"{fname}: cols must be an integer; got {cols!r}") from None
    if metadata.dtype == np.int16:
        metadata = metadata.view(np.uint16)
    if metadata.dtype != np.uint16 or metadata.ndim < 2:
        raise ValueError(f"{fname}: metadata must be uint16 (*batch, rows, words); got {metadata.dtype} {metadata.shape}")
    nwr = metadata.shape[-1]
    if cols < 0 or cols % 4 or nwr != -(-cols // 16):
        raise ValueError(f"{fname}: metadata {metadata.shape} does not fit cols={cols} (a multiple of 4, "
                         f"{-(-cols // 16) if cols >= 0 else '?'} words a row)")
    total = math.prod(metadata.shape[:-1])
    if total == 0 or nwr == 0:
        return -1
    bad = int(_first_bad_code(np.ascontiguousarray(metadata).reshape(-1), total, nwr, cols // 4))
    if bad < 0:
        return -1
    flat_row, group = divmod(bad, 4 * nwr)
    return _where(flat_row, group, metadata.shape[:-1])
