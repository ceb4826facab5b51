"""Pieces shared by the arithmetic kernels (``spmm``, ``spgemm``, ``sddmm``).

- :data:`NUMERIC_DTYPES`: the value dtypes they compute in (bool is left out: its "sum" is or).
- :data:`SIGNED_OF`: unsigned dtype -> the signed one of the same width. Products and sums wrap
  identically in both, so unsigned data is viewed as signed and one compiled kernel serves both.
- :func:`as_index`: an index argument as a 1-D C-contiguous int32/int64 array.
- :func:`prefetch_read`: a read prefetch of ``arr[i]`` inside numba code (LLVM's prefetch).
"""

import numpy as np
from llvmlite import ir
from numba import types
from numba.core import cgutils
from numba.extending import intrinsic

__all__ = ["EXPECTED_DTYPES", "INDEX_DTYPES", "NUMERIC_DTYPES", "SIGNED_OF", "as_index", "prefetch_read"]

INDEX_DTYPES = (np.dtype(np.int32), np.dtype(np.int64))
NUMERIC_DTYPES = tuple(
    np.dtype(t)
    for t in (
        np.int8, np.int16, np.int32, np.int64,
        np.uint8, np.uint16, np.uint32, np.uint64,
        np.float32, np.float64, np.complex64, np.complex128,
    )
)  # fmt: skip
EXPECTED_DTYPES = "one of " + ", ".join(d.name for d in NUMERIC_DTYPES)
SIGNED_OF = {np.dtype(u): np.dtype(s) for u, s in ((np.uint8, np.int8), (np.uint16, np.int16),
                                                   (np.uint32, np.int32), (np.uint64, np.int64))}


def as_index(a, name, who):
    """``a`` as a 1-D C-contiguous int32/int64 array (other integer dtypes become int64).

    ValueError (naming ``who`` and ``name``) for another rank or a non-integer dtype.
    """
    a = np.asarray(a)
    if a.ndim != 1:
        raise ValueError(f"{who}: {name} must be 1-D, got shape {a.shape}")
    if a.dtype not in INDEX_DTYPES:
        if a.dtype.kind not in "iu" and a.size:
            raise ValueError(f"{who}: {name} must hold integers, got dtype {a.dtype}")
        a = a.astype(np.int64)
    return np.ascontiguousarray(a)


@intrinsic
def prefetch_read(typingctx, arr, i):
    """Hint the CPU to load ``arr[i]`` (1-D array, integer index) into every cache level."""
    sig = types.void(arr, i)

    def codegen(context, builder, signature, args):
        aryty, ity = signature.args
        ary = context.make_array(aryty)(context, builder, args[0])
        i64 = ir.IntType(64)
        idx = context.cast(builder, args[1], ity, types.uint64)
        stride = cgutils.unpack_tuple(builder, ary.strides, 1)[0]
        addr = builder.add(builder.ptrtoint(ary.data, i64), builder.mul(idx, stride))
        addr = builder.inttoptr(addr, ir.IntType(8).as_pointer())
        i32 = ir.IntType(32)
        fnty = ir.FunctionType(ir.VoidType(), [ir.IntType(8).as_pointer(), i32, i32, i32])
        fn = cgutils.get_or_insert_function(builder.module, fnty, "llvm.prefetch.p0i8")
        # rw = 0 (read), locality = 3 (keep in all levels), data cache
        builder.call(fn, [addr, ir.Constant(i32, 0), ir.Constant(i32, 3), ir.Constant(i32, 1)])
        return context.get_dummy_value()

    return sig, codegen
