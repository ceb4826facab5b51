"""Inputs for the tests of ``sparray.linalg`` (tests/test_linalg_ext_*.py): random matrices and
stacks of them in every layout, with their dense NumPy reference (``sparray_testing.make_sparse``).

``matrix_cases`` covers, for each layout, plain, batched, hybrid (the last matrix dim dense, or
both), empty and 1x1 matrices with the fills 0, 1.5, nan and -inf (dense-part fills for hybrid
shapes), uncoalesced COO and both index dtypes; ``square=True`` keeps the square shapes.
"""

from __future__ import annotations

import numpy as np

import sparray
from sparray_testing import FILLS, LAYOUTS, make_sparse, to_numpy

# (shape, sparse_ndim, blocksize, layouts): the last two dims are the matrix dims
MATRIX_SHAPES = [
    ((4, 6), 2, (2, 3), LAYOUTS),
    ((2, 4, 4), 3, (2, 2), LAYOUTS),  # a stack of two 4x4 matrices (a batch dim for CSR & co)
    ((4, 6, 2), 2, (2, 3), LAYOUTS),  # hybrid: matrices (6, 2), the last dim dense
    ((3, 4, 4), 1, None, ("coo",)),  # hybrid: both matrix dims dense
    ((0, 4), 2, (1, 2), LAYOUTS),
    ((1, 1), 2, (1, 1), LAYOUTS),
    ((3, 0, 0), 3, (1, 1), LAYOUTS),
]
SQUARE_SHAPES = [case for case in MATRIX_SHAPES if case[0][-1] == case[0][-2]]


def case_id(case) -> str:
    shape, s, _, _ = case
    return f"{'x'.join(map(str, shape))}s{s}"


def make_matrix(rng, layout, case, fill, dtype="float64", density=0.4):
    """(A, D): a random sparse ``case`` in ``layout`` and its dense NumPy array."""
    shape, s, block, _ = case
    hybrid = s < len(shape)
    return make_sparse(
        rng, layout, shape, s, block if layout in ("bsr", "bsc") else None, density=density, fill=fill, dtype=dtype,
        duplicates=layout == "coo", index_dtype="int32" if len(shape) % 2 else "int64", dense_fill=hybrid,
    )  # fmt: skip


def layout_matrix_params(shapes=MATRIX_SHAPES, fills=FILLS):
    """pytest params (layout, case, fill) for every layout that fits each shape."""
    import pytest

    return [
        pytest.param(lay, case, fill, id=f"{lay}-{case_id(case)}-{fill}")
        for case in shapes for lay in case[3] for fill in fills
    ]  # fmt: skip


def dense(x):
    """A NumPy array from a result of any kind (sparse, NumPy, array_api_strict)."""
    return to_numpy(x)


def is_sparse(x) -> bool:
    return isinstance(x, sparray.SparseArray)


def ref_matmul(a, b):
    """The dense product element by element, so nan and inf follow IEEE rules exactly (``0 * inf`` is nan)."""
    with np.errstate(all="ignore"):
        return np.sum(a[..., :, :, None] * b[..., None, :, :], axis=-2)
