"""Values seen as unsigned words, for the CUDA kernels that only move entries (``dense``, ``take``).

A kernel that copies values does not need their type, only their width: viewing each entry of
``itemsize`` bytes as ``itemsize / w`` unsigned words of ``w`` bytes (the largest of 8, 4, 2, 1
that divides it) lets one instantiation per word width serve every dtype, and moving the bits moves
the values exactly (NaN payloads and signed zeros included). 16-byte items (complex128) are one
word each and keep their own dtype: the kernel reads them as ``sp_word16`` (the drivers check only
the item size).

>>> import numpy as np
>>> w, ctype = value_words(np, np.zeros((2, 3, 2), np.float32), 2)
>>> w.shape, w.dtype.name, ctype
((2, 6), 'uint32', 'unsigned int')
>>> value_words(np, np.zeros(4, np.complex128), 4)[1]
'sp_word16'
"""

from __future__ import annotations

import math

from ._build import word_type

__all__ = ["value_words", "WORD_SIZES"]

#: Word widths the moving kernels are instantiated for (bytes).
WORD_SIZES = (1, 2, 4, 8, 16)


def value_words(xp, values, n, who="", name="values"):
    """``values`` (``n`` entries of any trailing shape) as a C-contiguous ``(n, words)`` array of
    unsigned words, and the C++ word type. KernelDeclined for object dtypes (pointers, not values)."""
    from .. import KernelDeclined

    values = xp.ascontiguousarray(values)
    dtype = values.dtype
    if dtype.hasobject:
        raise KernelDeclined(f"{who}: {name} has dtype {dtype}; the CUDA kernels move plain values only")
    per_entry = math.prod(values.shape[1:])
    rows = values.reshape(n, per_entry)
    if dtype.itemsize == 16:
        size = 16
    else:
        size = next(w for w in (8, 4, 2, 1) if dtype.itemsize % w == 0)
        rows = rows.view(getattr(xp, f"uint{8 * size}"))
    return xp.ascontiguousarray(rows), word_type(size)
