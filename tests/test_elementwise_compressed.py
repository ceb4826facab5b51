"""Binary element-wise ops between compressed arrays (issue 20): CSR, CSC, BSR and BSC, batched,
hybrid, blocked, empty and size-1 dims, with operands of different patterns, of the same pattern
(values only) and of the other orientation (CSC with CSR: converted by the transpose), fills
0 / 1.5 / nan / -inf; against dense NumPy through the numba kernels and the generic path, in the
left operand's layout, with valid components and no COO form of either operand on the way."""

import numpy as np
import pytest

import sparray
import sparray._layout.compress
from sparray_testing import LAYOUT_SHAPES, assert_matches_dense, make_sparse

OPS = ("add", "subtract", "multiply", "divide", "maximum", "equal", "logical_and")
FILL_PAIRS = [(0.0, 0.0), (1.5, float("nan")), (float("-inf"), 0.0), (0.0, 1.5)]
OTHER = {"csr": "csc", "csc": "csr", "bsr": "bsc", "bsc": "bsr"}


def _no_coo(X):
    raise AssertionError("a compressed binary op went through the COO form")


@pytest.mark.parametrize("layout", ["csr", "csc", "bsr", "bsc"])
@pytest.mark.parametrize("case", LAYOUT_SHAPES, ids=[str(c[0]) for c in LAYOUT_SHAPES])
def test_compressed_pairs_against_numpy(backend, layout, case, monkeypatch):
    shape, nonsparse, block = case
    k = LAYOUT_SHAPES.index(case)
    rng = np.random.default_rng(k * 13 + len(layout))
    hybrid = nonsparse < len(shape)
    for fa, fb in (FILL_PAIRS[k % 4], FILL_PAIRS[(k + 1) % 4]):
        A, DA = make_sparse(rng, layout, shape, nonsparse, block, density=0.4, fill=fa, dense_fill=hybrid)
        others = {
            "different": make_sparse(rng, layout, shape, nonsparse, block, density=0.4, fill=fb, dense_fill=hybrid),
            "transposed": make_sparse(rng, OTHER[layout], shape, nonsparse, block, density=0.4, fill=fb),
        }
        same = A._replace_values(A._values * 2 - 1, np.asarray(fb, A.dtype))
        others["same"] = (same, same.to_dense())
        for how, (B, DB) in others.items():
            for op in OPS:
                with np.errstate(all="ignore"):
                    want = getattr(np, op)(DA, DB)
                    with monkeypatch.context() as mp:
                        mp.setattr(sparray._layout.compress, "compressed_to_coo", _no_coo)
                        got = getattr(sparray, op)(A, B)
                assert got.layout == layout, (how, op)
                assert_matches_dense(got, want, rtol=1e-12, atol=1e-12)
                if how == "same":  # values only: A's index arrays are kept
                    assert got.compressed_indices is A.compressed_indices
                got._checked = False
                got._check_contents()  # valid pointers and indices, every batch one nse


@pytest.mark.parametrize("index_dtype", ["int32", "int64"])
def test_batched_merge_pads_short_batches(backend, index_dtype):
    """Batches whose merged counts differ: the short ones get fill-valued entries (equal nse)."""
    D1 = np.zeros((2, 3, 4))
    D2 = np.zeros((2, 3, 4))
    D1[0, 0, 1], D1[1, 2, 3] = 1.0, 2.0
    D2[0, 1, 2], D2[0, 2, 0], D2[1, 2, 3] = 3.0, 4.0, 5.0
    A, B = (sparray.asarray(D, layout="csr", sparse_ndim=3) for D in (D1, D2))
    A, B = (sparray.CSR(X.crow_indices, X.col_indices, X.values, X.shape, index_dtype=index_dtype) for X in (A, B))
    C = A + B
    assert C.nse == 3 and C.index_dtype == A.index_dtype
    assert_matches_dense(C, D1 + D2)
    assert_matches_dense(A * B, D1 * D2)


def test_large_pairs_take_the_kernels():
    """Past the JIT threshold with the automatic choice: a power-law row next to short ones, the
    other orientation, and a batched pair."""
    rng = np.random.default_rng(3)
    D1 = np.where(rng.random((400, 500)) < 0.1, rng.random((400, 500)), 0.0)
    D1[7, :] = rng.random(500) + 0.5  # one full row
    D2 = np.where(rng.random((400, 500)) < 0.1, rng.random((400, 500)), 0.0)
    A, B = sparray.asarray(D1, layout="csr"), sparray.asarray(D2, layout="csc")
    assert_matches_dense(A + B, D1 + D2)
    assert_matches_dense(sparray.maximum(B, A), np.maximum(D2, D1))
    A3 = sparray.asarray(np.stack([D1, D2]), layout="bsr", sparse_ndim=3, blocksize=(2, 5))
    B3 = sparray.asarray(np.stack([D2, D1 * 3]), layout="bsr", sparse_ndim=3, blocksize=(2, 5))
    assert_matches_dense(A3 - B3, np.stack([D1 - D2, D2 - D1 * 3]))
