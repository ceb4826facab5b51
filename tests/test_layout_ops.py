"""Element-wise functions, reductions, creation and manipulation on every layout, against dense NumPy.

Results come back in the left sparse operand's layout when their shape allows it (docs/layouts.md).
"""

import warnings

import array_api_compat.numpy as npx
import numpy as np
import pytest
from sparray_testing import (
    COMPRESSED,
    FILLS,
    LAYOUT_SHAPES,
    LAYOUTS,
    assert_matches_dense,
    make_sparse,
)

import sparray

SHAPE_IDS = [f"{'x'.join(map(str, s))}-s{k}" for s, k, _ in LAYOUT_SHAPES]
UNARY = ["exp", "negative", "abs", "isnan", "sqrt", "square", "sign"]
BINARY = ["add", "subtract", "multiply", "divide", "maximum", "less", "hypot", "logaddexp"]  # not pow: NumPy gives (-inf) ** 0.5 as nan for 0-d arrays, inf in its vector loop


@pytest.fixture(autouse=True)
def _quiet():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        yield


def _case(rng, layout, shape, s, block, fill, **kw):
    return make_sparse(rng, layout, shape, s, block, density=0.4, fill=fill, dense_fill=s < len(shape), **kw)


@pytest.mark.parametrize("fill", FILLS, ids=lambda f: f"fill{f}")
@pytest.mark.parametrize("shape,s,block", LAYOUT_SHAPES, ids=SHAPE_IDS)
@pytest.mark.parametrize("layout", COMPRESSED)
def test_unary_keeps_layout_and_pattern(backend, layout, shape, s, block, fill):
    rng = np.random.default_rng(1)
    A, D = _case(rng, layout, shape, s, block, fill)
    for name in UNARY:
        R = getattr(sparray, name)(A)
        assert R.layout == layout and R.nse == A.nse
        assert R.compressed_indices is A.compressed_indices
        assert_matches_dense(R, getattr(npx, name)(D), fill=getattr(npx, name)(np.asarray(A.fill_value)))


@pytest.mark.parametrize("fill", FILLS, ids=lambda f: f"fill{f}")
@pytest.mark.parametrize("shape,s,block", LAYOUT_SHAPES, ids=SHAPE_IDS)
@pytest.mark.parametrize("layout", COMPRESSED)
def test_binary_same_layout(backend, layout, shape, s, block, fill):
    rng = np.random.default_rng(2)
    A, D = _case(rng, layout, shape, s, block, fill)
    B, E = _case(rng, layout, shape, s, block, 0.5)
    for name in BINARY:
        f, ref = getattr(sparray, name), getattr(npx, name)
        R = f(A, B)
        assert R.layout == layout
        assert_matches_dense(R, ref(D, E), fill=ref(np.asarray(A.fill_value), np.asarray(B.fill_value)))
        assert_matches_dense(f(A, 2.0), ref(D, 2.0))
        assert_matches_dense(f(3.0, A), ref(3.0, D))


@pytest.mark.parametrize("right", LAYOUTS)
@pytest.mark.parametrize("left", LAYOUTS)
def test_binary_mixed_layouts(backend, left, right):
    rng = np.random.default_rng(3)
    for shape, s, block in LAYOUT_SHAPES[:4]:
        A, D = _case(rng, left, shape, s, block, 1.5, duplicates=True)
        B, E = _case(rng, right, shape, s, block, np.nan, duplicates=True)
        for op, ref in ((sparray.add, np.add), (sparray.multiply, np.multiply), (sparray.greater, np.greater)):
            R = op(A, B)
            assert R.layout == left
            assert_matches_dense(R, ref(D, E))


@pytest.mark.parametrize("layout", COMPRESSED)
def test_operators_and_dense_operands(backend, layout):
    rng = np.random.default_rng(4)
    A, D = _case(rng, layout, (2, 4, 6), 3, (2, 2), 0.0)
    row = rng.random(6)
    R = A * row  # varies along a sparse dim, zero fill: stays sparse
    assert R.layout == layout
    assert_matches_dense(R, D * row)
    S = A + row  # the unspecified elements take different values: dense, as in PyTorch
    assert not isinstance(S, sparray.SparseArray)
    np.testing.assert_allclose(S, D + row)
    assert_matches_dense(-A + 2 * A, D)
    assert_matches_dense(abs(A) >= 0.5, np.abs(D) >= 0.5)
    assert_matches_dense(sparray.clip(A, 0.1, 0.2), np.clip(D, 0.1, 0.2))


@pytest.mark.parametrize("layout", COMPRESSED)
def test_broadcasting_between_layouts(backend, layout):
    rng = np.random.default_rng(5)
    A, D = _case(rng, layout, (2, 4, 6), 3, (2, 2), 1.0)
    B, E = _case(rng, layout, (4, 6), 2, (2, 2), 2.0)
    R = A + B
    assert R.layout == layout and R.shape == (2, 4, 6)
    assert_matches_dense(R, D + E)
    assert_matches_dense(sparray.broadcast_to(B, (3, 4, 6)), np.broadcast_to(E, (3, 4, 6)))


KINDS = ["sum", "prod", "max", "min", "mean", "var", "any"]


@pytest.mark.parametrize("fill", FILLS, ids=lambda f: f"fill{f}")
@pytest.mark.parametrize("shape,s,block", LAYOUT_SHAPES, ids=SHAPE_IDS)
@pytest.mark.parametrize("layout", COMPRESSED)
def test_reductions(backend, layout, shape, s, block, fill):
    rng = np.random.default_rng(6)
    A, D = _case(rng, layout, shape, s, block, fill)
    for kind in KINDS:
        f, ref = getattr(sparray, kind), getattr(npx, kind)
        axes = [None, *range(len(shape)), (0, len(shape) - 1)]
        for axis in axes:
            for keepdims in (False, True):
                if kind in ("max", "min") and (D.size == 0 or (axis is not None and any(
                        D.shape[a] == 0 for a in (axis if isinstance(axis, tuple) else (axis,))))):
                    continue
                R = f(A, axis=axis, keepdims=keepdims)
                expected = ref(D, axis=axis, keepdims=keepdims)
                assert_matches_dense(R, expected, check_dtype=False, rtol=1e-6, atol=1e-9)
                if isinstance(R, sparray.SparseArray) and R.ndim - R.dense_ndim >= 2:
                    assert R.layout == layout or (layout in ("bsr", "bsc") and R.layout == "coo")


@pytest.mark.parametrize("layout", COMPRESSED)
def test_creation_with_layout(layout):
    block = (2, 2) if layout in ("bsr", "bsc") else None
    for make, value, fill in ((sparray.zeros, 0.0, 0.0), (sparray.ones, 1.0, 1.0)):
        Z = make((2, 4, 6), layout=layout, blocksize=block)
        assert Z.layout == layout and Z.nse == 0 and float(Z.fill_value) == fill
        np.testing.assert_array_equal(Z.to_dense(), np.full((2, 4, 6), value))
    F = sparray.full((4, 6), 2.5, layout=layout, blocksize=block)
    assert F.nse == 0 and float(F.fill_value) == 2.5
    Z = sparray.zeros((4, 6), layout=layout, fill_value=1.0, blocksize=block)  # every element specified
    np.testing.assert_array_equal(Z.to_dense(), np.zeros((4, 6)))
    E = sparray.eye(4, 6, k=1, layout=layout, blocksize=block)
    np.testing.assert_array_equal(E.to_dense(), np.eye(4, 6, k=1))
    L = sparray.zeros_like(E)
    assert L.layout == layout and L.shape == (4, 6)
    if block:
        assert L.blocksize == block
    O = sparray.ones_like(E, dtype=sparray.float32)
    assert O.dtype == np.float32 and O.layout == layout
    R = sparray.random((2, 4, 6), density=0.3, layout=layout, blocksize=block, seed=0, fill_value=-1.0)
    assert R.layout == layout and R.batch_ndim == 1
    assert ((R.to_dense() == -1.0) | (R.to_dense() >= 0)).all()
    H = sparray.zeros((4, 6, 3), layout=layout, sparse_ndim=2, blocksize=block)
    assert H.dense_ndim == 1
    with pytest.raises(ValueError, match="needs 2 sparse dims"):
        sparray.arange(5, layout=layout, blocksize=block)


def test_asarray_of_sparse_to_layout():
    A = sparray.asarray(np.eye(4))
    B = sparray.asarray(A, layout="bsr", blocksize=(2, 2))
    assert B.layout == "bsr" and B.nse == 2
    C = sparray.asarray(B, layout="csc")
    np.testing.assert_array_equal(C.to_dense(), np.eye(4))
    H = sparray.asarray(np.ones((2, 3, 4)), layout="csr", sparse_ndim=2)
    assert H.dense_ndim == 1 and H.shape == (2, 3, 4)
    G = sparray.asarray(H, layout="csr", sparse_ndim=3)
    assert G.layout == "csr" and G.batch_ndim == 1 and G.dense_ndim == 0
