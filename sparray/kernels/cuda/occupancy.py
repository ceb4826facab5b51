"""Which minor indices a compressed pattern never uses, on a GPU: :func:`unused_minor`, the CUDA twin
of ``kernels/cpu/occupancy.py`` (the products skip the finiteness check of the rows of X that no
stored element reads).

``mark_used`` stores 1 in a byte map for every index (many threads may store the same 1), counting
indices out of range instead of using them; the array library's ``flatnonzero`` lists the zeros.
Same result (sorted int64) and error as the numba kernel.

>>> import numpy as np
>>> unused_minor(np.array([3, 0, 3]), 5).tolist()
[1, 2, 4]
"""

from __future__ import annotations

import numpy as np

from ._build import INDEX_TYPES, index_type
from ._driver import driver_for
from ._operands import index_of

__all__ = ["unused_minor"]

SOURCE = "occupancy.cu"
NAME_EXPRESSIONS = tuple(f"mark_used<{i}>" for i in INDEX_TYPES)


def unused_minor(minor, nminor):
    """The sorted int64 indices in ``[0, nminor)`` that appear nowhere in ``minor`` (int[n]).
    ValueError when some index lies outside that range."""
    drv = driver_for(minor)
    xp = drv.xp
    minor = index_of(xp, minor, "minor", "unused_minor")
    nminor = int(nminor)
    used = xp.zeros(nminor, xp.uint8)
    n = minor.shape[0]
    if n:
        nbad = xp.zeros(1, xp.uint64)
        drv.launch(SOURCE, f"mark_used<{index_type(minor.dtype)}>", n, (minor, np.int64(n), np.int64(nminor), used, nbad))
        bad = drv.scalar(nbad)
        if bad:
            raise ValueError(f"unused_minor: {bad} indices outside [0, {nminor})")
    return xp.flatnonzero(used == 0).astype(xp.int64, copy=False)
