"""softmax / log_softmax against dense NumPy for every layout, axis and kind of fill value.

The reference is the dense softmax of the dense array, NumPy's ``exp(x - max) / sum(exp(x - max))``
as it is: with fill -inf a slice holding no specified element, or only -inf, or a nan or +inf,
is nan throughout (torch.sparse.softmax gives 0 there; sparray gives NumPy's answer).
tests/test_softmax_edges.py draws such slices at random on every layout and the simulated device.
"""

import numpy as np
import pytest

import sparray
from sparray_testing import LAYOUT_SHAPES, LAYOUTS, assert_matches_dense, make_sparse

FILLS = [float("-inf"), float("nan"), float("inf"), 0.0, 1.5]


def dense_softmax(x, axis, log):
    if x.shape[axis] == 0:
        return x.copy()
    with np.errstate(all="ignore"):
        m = np.max(x, axis=axis, keepdims=True)
        s = x - m
        z = np.sum(np.exp(s), axis=axis, keepdims=True)
        return s - np.log(z) if log else np.exp(s) / z


def expected(A, D, axis, log):
    return dense_softmax(D, axis, log)


@pytest.mark.parametrize("log", [False, True], ids=["softmax", "log_softmax"])
@pytest.mark.parametrize("fill", FILLS)
@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("case", LAYOUT_SHAPES, ids=lambda c: str(c[0]))
def test_softmax_every_axis(layout, fill, case, log):
    shape, s, block = case
    rng = np.random.default_rng(0)
    A, D = make_sparse(rng, layout, shape, s, block, density=0.4, fill=fill)
    fn = sparray.log_softmax if log else sparray.softmax
    for axis in range(-len(shape), len(shape)):
        R = fn(A, axis=axis)
        exp = expected(A, D, axis, log)
        assert_matches_dense(R, exp, rtol=1e-12, atol=1e-12)
        first_dense = A.ndim - A.dense_ndim
        if isinstance(R, sparray.SparseArray):
            assert R.layout == A.layout or R.layout == "coo"
            if axis % A.ndim < first_dense and not (fill == -np.inf and np.isnan(exp).any()):
                assert R.nse == A.nse  # same pattern (a -inf fill's nan slices are stored: NumPy's nan)
        else:
            assert np.isfinite(fill) and axis % A.ndim < first_dense  # only a finite fill goes dense
            others = [A.shape[d] for d in range(first_dense) if d != axis % A.ndim]
            assert any(n != 1 for n in others)  # ... and only with more than one slice


@pytest.mark.parametrize("log", [False, True], ids=["softmax", "log_softmax"])
@pytest.mark.parametrize("layout", ["coo", "csr", "bsr"])
@pytest.mark.parametrize("fill", [0.0, 1.5, -2.0, float("nan"), float("inf"), float("-inf")])
def test_issue16_one_slice_keeps_the_pattern_with_a_dense_part_fill(layout, fill, log):
    """RFC point 5: softmax along the only sparse dim of a hybrid array is sparse, same indices,
    fill shaped like the dense part (the RFC's own example first)."""
    A = sparray.COO(np.array([[0, 3]]), np.array([[0.11, 0.12], [0.31, 0.32]]), shape=(4, 2))
    fn = sparray.log_softmax if log else sparray.softmax
    R = fn(A, axis=0)
    ref = dense_softmax(A.to_dense(), 0, log)
    assert isinstance(R, sparray.COO) and R.indices.tolist() == [[0, 3]] and R.fill_value.shape == (2,)
    np.testing.assert_allclose(R.fill_value, ref[1], rtol=1e-12)  # rows 1 and 2 are unspecified
    np.testing.assert_allclose(R.to_dense(), ref, rtol=1e-12)
    rng = np.random.default_rng(3)
    shape, block = ((1, 6, 3), (1, 2)) if layout != "coo" else ((6, 3), None)
    B, D = make_sparse(rng, layout, shape, len(shape) - 1, block, density=0.5, fill=fill, dense_fill=True)
    axis = len(shape) - 2
    R = fn(B, axis=axis)
    assert isinstance(R, sparray.SparseArray) and R.layout in (layout, "coo") and R.nse == B.nse
    assert_matches_dense(R, expected(B, D, axis, log), rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("log", [False, True], ids=["softmax", "log_softmax"])
@pytest.mark.parametrize("layout", LAYOUTS)
def test_hybrid_dense_part_fill(layout, log):
    """Along a dense axis the fill becomes the softmax of the fill vector (dense-part shaped)."""
    rng = np.random.default_rng(1)
    A, D = make_sparse(rng, layout, (4, 6, 3), 2, (2, 3), density=0.5, fill=0.0, dense_fill=True)
    fn = sparray.log_softmax if log else sparray.softmax
    R = fn(A, axis=-1)
    assert isinstance(R, sparray.SparseArray) and R.layout == layout
    fill = np.broadcast_to(np.asarray(A.fill_value), (3,))
    assert_matches_dense(R, dense_softmax(D, -1, log), fill=dense_softmax(fill, -1, log), rtol=1e-12)


def test_mixed_fill_per_dense_position():
    """Fill (-inf, nan) per dense position: result fill (0, nan) along a sparse axis."""
    fill = np.array([-np.inf, np.nan])
    A = sparray.COO([[0, 1, 1], [0, 0, 2]], np.arange(6.0).reshape(3, 2), shape=(2, 3, 2), fill_value=fill)
    R = sparray.softmax(A, axis=1)
    D = A.to_dense()
    assert_matches_dense(R, expected(A, D, 1, False), fill=[0.0, np.nan], rtol=1e-12)
    assert R.nse == A.nse  # every slice holds a finite maximum at the -inf position


def test_torch_convention_example():
    """torch.sparse.softmax's setting (fill -inf): the pattern and fill 0 where a row holds a finite
    value; the empty row 1 is all -inf, where NumPy (and sparray) give nan and PyTorch 0."""
    A = sparray.CSR([0, 2, 2, 3], [0, 2, 1], [1.0, 2.0, 5.0], shape=(3, 3), fill_value=-np.inf)
    R = sparray.softmax(A, axis=1)
    e = np.exp([1.0, 2.0]) / np.exp([1.0, 2.0]).sum()
    np.testing.assert_allclose(np.asarray(R.to_dense()), [[e[0], 0, e[1]], [np.nan] * 3, [0, 1.0, 0]])
    assert float(R.fill_value) == 0.0 and R.layout == "csr" and R.nse == 6
    L = sparray.log_softmax(A, axis=1)
    ninf = -np.inf
    np.testing.assert_allclose(np.asarray(L.to_dense()), [[np.log(e[0]), ninf, np.log(e[1])], [np.nan] * 3, [ninf, 0, ninf]])
    assert float(L.fill_value) == -np.inf
    B = sparray.CSR([0, 2, 3, 4], [0, 2, 1, 1], [1.0, 2.0, 5.0, 3.0], shape=(3, 3), fill_value=-np.inf)
    assert sparray.softmax(B, axis=1).nse == B.nse  # no empty row: PyTorch's answer is NumPy's


def test_integer_input_and_errors():
    A = sparray.asarray(np.array([[1, 0], [0, 3]]), fill_value=0)
    R = sparray.softmax(A, axis=0)
    assert R.dtype == np.float64
    np.testing.assert_allclose(R, dense_softmax(np.array([[1.0, 0], [0, 3]]), 0, False))
    with pytest.raises(ValueError, match="out of range"):
        sparray.softmax(A, axis=2)
    with pytest.raises(TypeError, match="one int"):
        sparray.softmax(A, axis=(0, 1))
    with pytest.raises(TypeError, match="real dtype"):
        sparray.softmax(A.astype(np.complex128), axis=0)


def test_uncoalesced_and_large_numba():
    rng = np.random.default_rng(2)
    n, nse = 30000, 120000
    idx = np.concatenate([rng.integers(0, n, (2, nse)), np.tile(np.arange(n), (2, 1))], axis=1)  # no empty row
    nse = idx.shape[1]
    A = sparray.COO(idx, rng.standard_normal(nse), (n, n), fill_value=-np.inf)
    with sparray.use_backend("numba"):
        fast = sparray.softmax(A, axis=1)
    with sparray.use_backend("generic"):
        slow = sparray.softmax(A, axis=1)
    np.testing.assert_allclose(np.asarray(fast.values), np.asarray(slow.values), rtol=1e-12)
    sums = np.asarray(sparray.sum(fast, axis=1).to_dense())
    rows = np.unique(idx[0])
    np.testing.assert_allclose(sums[rows], 1.0, rtol=1e-12)
