"""Inputs for the reference tests of the manipulation functions (tril/triu, repeat/tile/roll,
take/take_along_axis/unstack, broadcast_arrays/meshgrid).

``all_cases(rng)`` yields ``(layout, A, D)`` with ``A.to_dense() == D``: every layout of
``sparray_testing.layout_cases`` over its plain, batched, hybrid, empty and size-1 shapes with
the float fills 0, 1.5, nan and -inf (dense-part fills on hybrid shapes), then uncoalesced COO
with int32 indices, then int64 (fill 3) and bool (fill True) arrays of every layout with int32
indices. ``result_layout_ok`` is the rule every result follows: the input's layout, or COO when
the result's shape does not allow it.
"""

from __future__ import annotations

import numpy as np
from sparray_testing import FILLS, LAYOUT_SHAPES, LAYOUTS, layout_cases, make_sparse

import sparray


def all_cases(rng, fills=FILLS, extra=True):
    yield from layout_cases(rng, fills=fills)
    if not extra:
        return
    for shape, s, _ in LAYOUT_SHAPES:
        for fill in fills[:2]:
            A, D = make_sparse(rng, "coo", shape, s, density=0.5, fill=fill, duplicates=True, index_dtype="int32",
                               dense_fill=s < len(shape))  # fmt: skip
            yield "coo", A, D
    for layout in LAYOUTS:
        for shape, s, block in LAYOUT_SHAPES[:4]:
            for dtype, fill in (("int64", 3), ("bool", True)):
                A, D = make_sparse(rng, layout, shape, s, block, density=0.4, fill=fill, dtype=dtype,
                                   index_dtype="int32")  # fmt: skip
                yield layout, A, D


def result_layout_ok(R, A):
    return isinstance(R, sparray.SparseArray) and R.layout in (A.layout, "coo")


def same_fill(R, A):
    """``R``'s fill equals ``A``'s (0-d fills; nan equals nan)."""
    r, a = np.asarray(R.fill_value), np.asarray(A.fill_value)
    if r.shape != a.shape:
        return False
    return bool(np.all((r == a) | (np.isnan(r) & np.isnan(a)))) if r.dtype.kind == "f" else bool(np.all(r == a))
