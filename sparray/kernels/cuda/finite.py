"""Whether every element of an array is finite, on a GPU: :func:`all_finite`, the CUDA twin of
``kernels/cpu/finite.py`` (the products' check of their dense operand).

One pass, one thread per stretch of elements, a flag stored by any thread that meets inf or NaN (the
same value from every writer, so plain stores suffice) and read back once. Complex arrays are read
as pairs of reals; integer and bool arrays are finite by definition (no launch). Like the numba
kernel, any other dtype or a non-contiguous array is declined (the generic path serves it).

>>> import numpy as np
>>> all_finite(np.array([1.0, 2.0])), all_finite(np.array([1.0, np.inf]))
(True, False)
"""

from __future__ import annotations

import math

import numpy as np

from .. import KernelDeclined
from ._driver import driver_for

__all__ = ["all_finite"]

SOURCE = "finite.cu"
_REALS = {np.dtype(np.float32): "float32", np.dtype(np.float64): "float64",
          np.dtype(np.complex64): "float32", np.dtype(np.complex128): "float64"}  # fmt: skip
NAME_EXPRESSIONS = ("find_nonfinite<float>", "find_nonfinite<double>")


def all_finite(x) -> bool:
    """True when no element of ``x`` is inf or NaN."""
    drv = driver_for(x)
    xp = drv.xp
    x = xp.asarray(x)
    if x.dtype.kind in "biu":
        return True
    if x.dtype not in _REALS:
        raise KernelDeclined(f"all_finite: dtype {x.dtype} (expected float32/64 or complex64/128)")
    if not x.flags.c_contiguous:
        raise KernelDeclined("all_finite: a non-contiguous array")
    real = np.dtype(_REALS[x.dtype])
    n = math.prod(x.shape) * (2 if x.dtype.kind == "c" else 1)
    if n == 0:
        return True
    flat = x.reshape(-1).view(real)
    flag = xp.zeros(1, xp.int32)
    drv.launch(SOURCE, f"find_nonfinite<{'float' if real == np.float32 else 'double'}>", n, (flat, np.int64(n), flag))
    return drv.scalar(flag) == 0
