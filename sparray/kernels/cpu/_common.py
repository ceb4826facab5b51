"""Pieces shared by the CPU kernels (``spmm``, ``spgemm``, ``sddmm``, ``compress``).

- :data:`NUMERIC_DTYPES`: the value dtypes they compute in (bool is left out: its "sum" is or).
- :data:`SIGNED_OF`: unsigned dtype -> the signed one of the same width. Products and sums wrap
  identically in both, so unsigned data is viewed as signed and one compiled kernel serves both.
- :func:`as_index` / :func:`as_values`: index and value arguments checked and made contiguous.
- :func:`prefetch_read` / :func:`prefetch_write`: cache prefetches of ``arr[i]`` inside numba
  code (LLVM's prefetch intrinsic).
- :func:`claim`: an atomic counter's next value inside numba code: chunks of a parallel loop
  handed to whichever thread is free (late threads do not hold a call back).
- :func:`row_splits`: rows cut into chunks of equal work (entries + a cost per row).
- :func:`chunk_bounds`: the unsigned positions ``[lo, hi)`` of slice c of n elements cut in
  ``nchunks`` equal slices (the loop bounds of a ``prange`` body, see "No gathers").
- :func:`scratch`: a kernel's uninitialised scratch array, kept between calls (no fresh pages;
  :mod:`._scratch` bounds what is kept and lets it go when memory is short).

No gathers: numba adds a negative-index wraparound select to every access through a signed
integer, so a loop over ``range(lo, hi)`` with signed ``lo`` reads ``a[i]`` at an address LLVM
cannot prove consecutive, and where it vectorises the loop anyway it emits AVX-512 gathers. On
the Xeon (Cascade Lake) VM these benchmarks ran on, a gather is 2-3x slower than the scalar loop
(1e7 int64 keys, 2 threads: min/max 14 -> 4 ms, counting runs 27 -> 4.5 ms once the positions
were unsigned). Hot loops therefore run over ``np.uint64`` positions (:func:`chunk_bounds`); a loop that reads through
an index array (``b[a[i]]``) and must not be vectorised gets an early exit (a ``break`` on bad
input), which LLVM does not vectorise.
"""


import numba
import numpy as np
from llvmlite import ir
from numba import types
from numba.core import cgutils
from numba.extending import intrinsic
from . import _cache  # noqa: F401  (compiled kernels go to the per-user cache, see _cache.py)

__all__ = [
    "EXPECTED_DTYPES", "INDEX_DTYPES", "NUMERIC_DTYPES", "SERIAL_WORK", "SIGNED_OF",
    "as_index", "as_values", "chunk_bounds", "claim", "prefetch_read", "prefetch_write", "row_splits", "scratch",
]  # fmt: skip

INDEX_DTYPES = (np.dtype(np.int32), np.dtype(np.int64))
NUMERIC_DTYPES = tuple(
    np.dtype(t)
    for t in (
        np.int8, np.int16, np.int32, np.int64,
        np.uint8, np.uint16, np.uint32, np.uint64,
        np.float32, np.float64, np.complex64, np.complex128,
    )
)  # fmt: skip
#: Below this much work (entries plus rows, times the columns) a product of the lean paths
#: (``spmm.csr_matmul_into``) runs on the calling thread: waking numba's thread pool for a
#: parallel region costs 3-8 us, more than such calls take on one core. ``benchmarks/crossover.py``
#: on this project's 2-core VM: SpMV 2 threads faster from 2**15 entries, SpMM of 8 columns from
#: 2**13 entries (work 2**16). The other lean kernels have constants of their own, measured the same way.
SERIAL_WORK = 1 << 15
EXPECTED_DTYPES = "one of " + ", ".join(d.name for d in NUMERIC_DTYPES)
SIGNED_OF = {np.dtype(u): np.dtype(s) for u, s in ((np.uint8, np.int8), (np.uint16, np.int16),
                                                   (np.uint32, np.int32), (np.uint64, np.int64))}


@numba.njit(inline="always")
def chunk_bounds(n, c, nchunks):
    """``(lo, hi)``, both ``np.uint64``: slice ``c`` of ``nchunks`` equal slices of ``n`` elements.

    >>> [tuple(int(b) for b in chunk_bounds(10, c, 3)) for c in range(3)]
    [(0, 3), (3, 6), (6, 10)]
    """
    return np.uint64(n * c // nchunks), np.uint64(n * (c + 1) // nchunks)


def middle_sample(keys, size=4096):
    """``size`` consecutive keys from the middle of ``keys`` (all of them when shorter): what the
    wrappers look at to pick a kernel's strategy for sorted or clustered keys, in O(size).

    >>> middle_sample(np.arange(10), 4).tolist()
    [3, 4, 5, 6]
    """
    n = keys.shape[0]
    return keys[max(0, n // 2 - size // 2) : n // 2 + size // 2]


def as_index(a, name, who=None):
    """``a`` as a 1-D C-contiguous int32/int64 array (other integer dtypes become int64).

    ValueError (naming ``who``, when given, and ``name``) for another rank or a non-integer dtype.
    """
    prefix = f"{who}: " if who else ""
    a = np.asarray(a)
    if a.ndim != 1:
        raise ValueError(f"{prefix}{name} must be 1-D, got shape {a.shape}")
    if a.dtype not in INDEX_DTYPES:
        if a.dtype.kind not in "iu" and a.size:
            raise ValueError(f"{prefix}{name} must hold integers, got dtype {a.dtype}")
        a = a.astype(np.int64)
    return np.ascontiguousarray(a)


def as_values(x, name, who):
    """``x`` as a C-contiguous array of one of :data:`NUMERIC_DTYPES`, unsigned data viewed as
    signed (see :data:`SIGNED_OF`). KernelDeclined for any other dtype (the generic path serves it)."""
    from .. import KernelDeclined

    x = np.asarray(x)
    if x.dtype not in NUMERIC_DTYPES:
        raise KernelDeclined(
            f"{who}: {name} has dtype {x.dtype}; expected {EXPECTED_DTYPES} "
            "(cast first or use the generic implementation)"
        )
    x = np.ascontiguousarray(x)
    return x.view(SIGNED_OF[x.dtype]) if x.dtype in SIGNED_OF else x


def _address(context, builder, signature, args, offset_bytes):
    """The byte address of ``arr[i]`` plus ``offset_bytes`` (an LLVM i64) inside an intrinsic."""
    aryty, ity = signature.args[0], signature.args[1]
    ary = context.make_array(aryty)(context, builder, args[0])
    i64 = ir.IntType(64)
    idx = context.cast(builder, args[1], ity, types.int64)
    stride = cgutils.unpack_tuple(builder, ary.strides, 1)[0]
    addr = builder.add(builder.ptrtoint(ary.data, i64), builder.add(builder.mul(idx, stride), offset_bytes))
    return builder.inttoptr(addr, ir.IntType(8).as_pointer())


def _prefetch_call(builder, addr, write):
    """``llvm.prefetch(addr, rw, locality=3 (keep in all levels), data cache)``: never faults."""
    i32 = ir.IntType(32)
    fnty = ir.FunctionType(ir.VoidType(), [ir.IntType(8).as_pointer(), i32, i32, i32])
    fn = cgutils.get_or_insert_function(builder.module, fnty, "llvm.prefetch.p0i8")
    builder.call(fn, [addr, ir.Constant(i32, 1 if write else 0), ir.Constant(i32, 3), ir.Constant(i32, 1)])


@intrinsic
def prefetch_read(typingctx, arr, i):
    """Hint the CPU to load ``arr[i]`` (first axis, integer index) into every cache level."""
    sig = types.void(arr, i)

    def codegen(context, builder, signature, args):
        _prefetch_call(builder, _address(context, builder, signature, args, ir.Constant(ir.IntType(64), 0)), False)
        return context.get_dummy_value()

    return sig, codegen


@intrinsic
def prefetch_write(typingctx, arr, i, nbytes):
    """Prefetch, for writing, the cache line holding the byte ``nbytes`` past ``&arr[i]`` (i along
    the first axis). Never faults: an address past the end is just not fetched."""
    sig = types.void(arr, i, nbytes)

    def codegen(context, builder, signature, args):
        off = context.cast(builder, args[2], signature.args[2], types.int64)
        _prefetch_call(builder, _address(context, builder, signature, args, off), True)
        return context.get_dummy_value()

    return sig, codegen


@intrinsic
def claim(typingctx, counter):
    """``counter[0]``'s value before adding 1 to it, atomically (one ``lock xadd``): each thread of a
    parallel region that calls it gets a different number. ``counter`` is a 1-D int64 array.

    Work handed out by a counter instead of by ``prange``'s fixed split (each thread its 1/T of the
    iterations) goes to whichever thread is free: a thread whose core is busy elsewhere takes the
    chunks it gets to and the others take the rest, so a late thread does not hold the call back
    by more than the chunk it is on. The pattern (a claim loop)::

        counter = np.zeros(1, np.int64)
        for _ in numba.prange(numba.get_num_threads()):   # one worker per thread
            c = claim(counter)
            while c < nchunks:
                ...work on chunk c...
                c = claim(counter)

    Every chunk goes to exactly one worker; which one depends on timing, so a kernel that wants
    the same bits on every run writes each chunk's result to the chunk's own place (no sums across
    chunks in the order they were claimed).
    """
    if not (isinstance(counter, types.Array) and counter.dtype == types.int64 and counter.ndim == 1):
        return None
    sig = types.int64(counter)

    def codegen(context, builder, signature, args):
        ary = context.make_array(signature.args[0])(context, builder, args[0])
        return builder.atomic_rmw("add", ary.data, ir.Constant(ir.IntType(64), 1), "monotonic")

    return sig, codegen


@numba.njit(cache=True, nogil=True)
def row_splits(offsets, nchunks, rowcost=1):
    """Chunk boundaries over the rows, balancing entries + ``rowcost`` per row:
    ``splits[c]`` = first g with ``offsets[g] + rowcost * g >= c * (nnz + rowcost * nrows) / nchunks``.

    Binary searches; on invalid (decreasing) offsets the result is still a non-decreasing
    cover of ``[0, nrows]``, so callers may split before they validate.
    """
    nrows = offsets.shape[0] - 1
    w = np.int64(offsets[nrows]) + rowcost * nrows
    splits = np.empty(nchunks + 1, np.int64)
    splits[0] = 0
    splits[nchunks] = nrows
    for c in range(1, nchunks):
        target = w * c // nchunks
        lo = splits[c - 1]
        hi = nrows
        while lo < hi:
            mid = (lo + hi) // 2
            if np.int64(offsets[mid]) + rowcost * mid < target:
                lo = mid + 1
            else:
                hi = mid
        splits[c] = lo
    return splits


from ._scratch import SCRATCH_LIMIT, scratch  # noqa: E402,F401  (kernels import it from here)

