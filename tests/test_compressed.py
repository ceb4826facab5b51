"""CSR, CSC, BSR, BSC classes: construction, shape inference, validation, and the seed docs' examples."""

import numpy as np
import pytest
from sparray_testing import assert_matches_dense

import sparray

# --- the worked examples of the compressed-layout sections of PyTorch's sparse docs (seeds) -------------


def test_seed_csr_construction():
    csr = sparray.CSR([0, 2, 4], [0, 1, 0, 1], [1, 2, 3, 4], dtype=sparray.float64)
    assert csr.shape == (2, 2) and csr.nse == 4 and csr.dtype == np.float64
    np.testing.assert_array_equal(csr.to_dense(), [[1.0, 2.0], [3.0, 4.0]])


def test_seed_csr_from_dense():
    a = np.array([[0, 0, 1, 0], [1, 2, 0, 0], [0, 0, 0, 0]], dtype=np.float64)
    sp = sparray.asarray(a, layout="csr")
    assert sp.crow_indices.tolist() == [0, 1, 3, 3]
    assert sp.col_indices.tolist() == [2, 0, 1]
    assert sp.values.tolist() == [1.0, 1.0, 2.0]
    assert sp.shape == (3, 4) and sp.nse == 3


def test_seed_csc_construction():
    csc = sparray.CSC([0, 2, 4], [0, 1, 0, 1], [1, 2, 3, 4], dtype=sparray.float64)
    np.testing.assert_array_equal(csc.to_dense(), [[1.0, 3.0], [2.0, 4.0]])


def test_seed_csc_from_dense():
    a = np.array([[0, 0, 1, 0], [1, 2, 0, 0], [0, 0, 0, 0]], dtype=np.float64)
    sp = sparray.asarray(a, layout="csc")
    assert sp.ccol_indices.tolist() == [0, 1, 2, 3, 3]
    assert sp.row_indices.tolist() == [1, 1, 0]
    assert sp.values.tolist() == [1.0, 2.0, 1.0]


SEED_BLOCKS = [[[0, 1, 2], [6, 7, 8]], [[3, 4, 5], [9, 10, 11]], [[12, 13, 14], [18, 19, 20]], [[15, 16, 17], [21, 22, 23]]]


def test_seed_bsr_construction():
    bsr = sparray.BSR([0, 2, 4], [0, 1, 0, 1], SEED_BLOCKS, dtype=sparray.float64)
    assert bsr.shape == (4, 6) and bsr.nse == 4 and bsr.blocksize == (2, 3)
    np.testing.assert_array_equal(bsr.to_dense(), np.arange(24.0).reshape(4, 6))


def test_seed_bsr_from_dense():
    dense = np.arange(24).reshape(4, 6)
    bsr = sparray.asarray(dense, layout="bsr", blocksize=(2, 3))
    assert bsr.crow_indices.tolist() == [0, 2, 4]
    assert bsr.col_indices.tolist() == [0, 1, 0, 1]
    assert bsr.values.tolist() == SEED_BLOCKS
    # the seed's dense starts with a 0: that element is specified, because its block is


def test_seed_bsc_construction():
    bsc = sparray.BSC([0, 2, 4], [0, 1, 0, 1], SEED_BLOCKS, dtype=sparray.float64)
    assert bsc.shape == (4, 6)
    expected = np.zeros((4, 6))
    expected[0:2, 0:3], expected[2:4, 0:3] = SEED_BLOCKS[0], SEED_BLOCKS[1]
    expected[0:2, 3:6], expected[2:4, 3:6] = SEED_BLOCKS[2], SEED_BLOCKS[3]
    np.testing.assert_array_equal(bsc.to_dense(), expected)
    back = sparray.asarray(expected, layout="bsc", blocksize=(2, 3))
    assert back.ccol_indices.tolist() == [0, 2, 4] and back.row_indices.tolist() == [0, 1, 0, 1]
    assert back.values.tolist() == SEED_BLOCKS


def test_seed_batched_csr():
    t = np.array([[[1.0, 0], [2.0, 3.0]], [[4.0, 0], [5.0, 6.0]]])
    A = sparray.asarray(t, layout="csr")
    assert A.crow_indices.tolist() == [[0, 1, 3], [0, 1, 3]]
    assert A.col_indices.tolist() == [[0, 0, 1], [0, 0, 1]]
    assert A.values.tolist() == [[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]
    assert A.shape == (2, 2, 2) and A.nse == 3


def test_seed_sin_keeps_pattern():
    b = np.array([[0, 0, 1, 2, 3, 0], [4, 5, 0, 6, 0, 0]])
    s = sparray.sin(sparray.asarray(b, layout="csr"))
    assert s.layout == "csr" and s.crow_indices.tolist() == [0, 3, 6]
    assert s.col_indices.tolist() == [2, 3, 4, 0, 1, 3]
    np.testing.assert_allclose(s.values, np.sin([1, 2, 3, 4, 5, 6]))
    c = sparray.cos(sparray.asarray(b, layout="csr"))  # torch refuses; the fill makes it exact
    assert float(c.fill_value) == 1.0
    np.testing.assert_allclose(c.to_dense(), np.cos(b))


# --- construction ------------------------------------------------------------------------------------------


def test_hybrid_and_batched_shapes():
    A = sparray.CSR([[0, 1, 2], [0, 2, 2]], [[1, 0], [0, 2]], np.arange(12.0).reshape(2, 2, 3), fill_value=[1.0, 2.0, 3.0])
    assert A.shape == (2, 2, 3, 3) and A.batch_ndim == 1 and A.dense_ndim == 1 and A.sparse_ndim == 2
    assert A.fill_value.shape == (3,)
    D = A.to_dense()
    assert D.shape == (2, 2, 3, 3)
    np.testing.assert_array_equal(D[0, 0, 1], [0.0, 1.0, 2.0])
    np.testing.assert_array_equal(D[1, 0, 2], [9.0, 10.0, 11.0])
    np.testing.assert_array_equal(D[1, 1, 0], [1.0, 2.0, 3.0])
    B = sparray.BSC([0, 1], [2], np.ones((1, 2, 2, 3)), shape=(6, 2, 3))
    assert B.blocksize == (2, 2) and B.dense_ndim == 1 and B.shape == (6, 2, 3)
    assert B.to_dense()[4:6].sum() == 12 and B.to_dense()[:4].sum() == 0


def test_shape_inference_and_empty():
    A = sparray.CSR([0, 0, 0], [], [])
    assert A.shape == (2, 0) and A.nse == 0
    assert A.to_dense().shape == (2, 0)
    B = sparray.CSC([0], [], [], shape=(3, 0))
    assert B.to_dense().shape == (3, 0)
    C = sparray.BSR([0, 1], [2], np.ones((1, 2, 3)))
    assert C.shape == (2, 9)
    E = sparray.CSR(np.zeros((0, 3), dtype=np.int64), np.zeros((0, 0), dtype=np.int64), np.zeros((0, 0)), shape=(0, 2, 5))
    assert E.to_dense().shape == (0, 2, 5)
    assert E.to_layout("coo").nse == 0


def test_int32_indices_kept():
    A = sparray.CSR(np.array([0, 1], dtype=np.int32), np.array([3], dtype=np.int32), [1.0], shape=(1, 5))
    assert A.index_dtype == np.int32
    assert (A + A).index_dtype == np.int32
    assert A.to_layout("csc").index_dtype == np.int32
    B = sparray.CSR([0, 1], [3], [1.0], shape=(1, 5), index_dtype="int32")
    assert B.crow_indices.dtype == np.int32 and B.col_indices.dtype == np.int32


@pytest.mark.parametrize("layout", ["csr", "csc", "bsr", "bsc"])
def test_copy_astype_to_device(layout):
    rng = np.random.default_rng(0)
    D = rng.random((4, 6))
    D[D < 0.5] = 0
    A = sparray.asarray(D, layout=layout, blocksize=(2, 3) if layout[0] == "b" else None, fill_value=0.0)
    C = A.copy()
    assert C.layout == layout and C.values is not A.values
    np.testing.assert_array_equal(C.to_dense(), D)
    F = A.astype(sparray.float32)
    assert F.dtype == np.float32 and F.fill_value.dtype == np.float32 and F.layout == layout
    H = A.to_device("cpu")
    np.testing.assert_array_equal(H.to_dense(), D)
    assert A.__array_namespace__() is sparray


# --- validation --------------------------------------------------------------------------------------------


def test_structural_errors():
    with pytest.raises(ValueError, match=r"crow_indices.shape\[-1\] = 4 must be nrows \+ 1 = 3"):
        sparray.CSR([0, 1, 2, 2], [0, 1], [1.0, 2.0], shape=(2, 2))
    with pytest.raises(ValueError, match="must have the same dtype"):
        sparray.CSR(np.array([0, 1], np.int32), np.array([0], np.int64), [1.0])
    with pytest.raises(TypeError, match="int32 or int64"):
        sparray.CSR(np.array([0.0, 1.0]), np.array([0.0]), [1.0])
    with pytest.raises(ValueError, match="values.shape"):
        sparray.CSR([0, 1], [0], [1.0, 2.0])
    with pytest.raises(ValueError, match="values.shape"):
        sparray.BSR([0, 1], [0], [1.0])  # blocks need (nse, bh, bw)
    with pytest.raises(ValueError, match="same nse"):
        sparray.CSR([[0, 1], [0, 2]], [[0], [0, 1]], [[1.0], [1.0, 2.0]])
    with pytest.raises(ValueError, match=r"blocksize \(2, 2\) must divide"):
        sparray.BSR([0, 1], [0], np.ones((1, 2, 2)), shape=(2, 3))
    with pytest.raises(ValueError, match="batch part"):
        sparray.CSR([[0, 1]], [[0]], [[1.0]], shape=(2, 1, 1))
    with pytest.raises(ValueError, match="entries"):
        sparray.CSR([0, 1], [0], [1.0], shape=(1, 1, 1))
    with pytest.raises(ValueError, match="is negative"):
        sparray.CSR([0, 1], [-1], [1.0])


@pytest.mark.parametrize(
    "crow,col,message",
    [
        ([1, 2], [0, 1], r"crow_indices\[0\] = 1 must be 0"),
        ([0, 1], [0, 1], r"crow_indices\[1\] = 1 must equal nse = 2"),
        ([0, 2, 1, 2], [0, 1], r"must be non-decreasing; crow_indices\[2\] = 1 < crow_indices\[1\] = 2"),
        ([0, 1, 2], [0, 5], r"col_indices\[1\] = 5 is out of range for 4 columns"),
        ([0, 2, 2], [2, 1], r"strictly increasing within each compressed row.*col_indices\[1\] = 1"),
        ([0, 2, 2], [1, 1], r"strictly increasing"),
    ],
)
def test_content_errors_name_component_and_position(backend, crow, col, message):
    n = len(crow) - 1
    with pytest.raises(ValueError, match=message):
        sparray.CSR(crow, col, np.ones(len(col)), shape=(n, 4), check_invariants=True)
    with sparray.check_invariants(), pytest.raises(ValueError, match=message):
        sparray.CSR(crow, col, np.ones(len(col)), shape=(n, 4))
    # without the checks the array is built, and the checks run before any kernel reads it
    A = sparray.CSR(crow, col, np.ones(len(col)), shape=(n, 4))
    with pytest.raises(ValueError, match=message):
        A.to_dense()


def test_batched_error_positions(backend):
    with pytest.raises(ValueError, match=r"ccol_indices\[1, 2\] = 3 must equal nse = 2"):
        sparray.CSC([[0, 1, 2], [0, 1, 3]], [[0, 1], [0, 1]], np.ones((2, 2)), shape=(2, 2, 2), check_invariants=True)
    with pytest.raises(ValueError, match=r"row_indices\[1, 0\] = 4 is out of range for 2 rows"):
        sparray.CSC([[0, 1, 2], [0, 1, 2]], [[0, 1], [4, 1]], np.ones((2, 2)), shape=(2, 2, 2), check_invariants=True)


def test_unsorted_columns_are_caught_before_conversion(backend):
    A = sparray.CSR([0, 2], [3, 1], [1.0, 2.0], shape=(1, 4))
    for op in (lambda: A.to_layout("coo"), lambda: A.to_layout("csc"), lambda: A + A, lambda: sparray.sum(A, axis=0)):
        with pytest.raises(ValueError, match="strictly increasing"):
            op()


def test_generic_validation_matches_on_strict_arrays():
    xps = pytest.importorskip("array_api_strict")
    with pytest.raises(ValueError, match=r"col_indices\[1\] = 9 is out of range"):
        sparray.CSR(xps.asarray([0, 2]), xps.asarray([0, 9]), xps.asarray([1.0, 2.0]), shape=(1, 4), check_invariants=True)


def test_dense_result_equals_scipy():
    sp = pytest.importorskip("scipy.sparse")
    rng = np.random.default_rng(1)
    m = sp.random_array((50, 40), density=0.1, rng=rng, format="csr")
    m.sort_indices()
    A = sparray.CSR(m.indptr, m.indices, m.data, shape=m.shape, check_invariants=True)
    np.testing.assert_array_equal(A.to_dense(), m.toarray())
    C = A.to_layout("csc")
    mc = m.tocsc()
    mc.sort_indices()
    np.testing.assert_array_equal(C.ccol_indices, mc.indptr)
    np.testing.assert_array_equal(C.row_indices, mc.indices)
    np.testing.assert_array_equal(C.values, mc.data)
    assert_matches_dense(sparray.asarray(m.toarray(), layout="csr"), m.toarray())


def test_validity_kernel_agrees_with_generic_check():
    """The numba validity pass accepts exactly the encodings the generic check accepts."""
    from sparray.kernels.cpu.validate import compressed_valid

    rng = np.random.default_rng(0)
    for _ in range(300):
        nmajor, nminor, nse = rng.integers(0, 5), rng.integers(1, 5), rng.integers(0, 6)
        crow = np.sort(rng.integers(0, nse + 1, size=nmajor + 1))
        if rng.random() < 0.7 and nmajor >= 0:
            crow[0], crow[-1] = 0, nse
        if rng.random() < 0.2:
            crow = rng.integers(-2, nse + 3, size=nmajor + 1)
        col = rng.integers(-1, nminor + 1, size=nse)
        try:
            sparray.CSR(crow, col, np.ones(nse), shape=(nmajor, nminor), check_invariants=True)
            ok = True
        except ValueError:
            ok = False
        assert compressed_valid(crow, col, nminor) == ok, (crow, col, nminor)


@pytest.mark.parametrize("layout", ["csr", "csc", "bsr", "bsc", "coo"])
def test_issue16_elementwise_between_different_splits_of_one_shape(layout, backend):
    """Operands of one shape whose batch/sparse/dense split differs (was a TypeError in expand_offsets)."""
    import operator

    rng = np.random.default_rng(9)
    kw = {"blocksize": (1, 1)} if layout[0] == "b" else {}
    a = np.arange(8.0).reshape(2, 4, 1)
    A = sparray.asarray(a, layout="csr").to_layout("csr", dense_ndim=1)  # the issue's reproducer
    B = sparray.asarray(np.ones((2, 4, 1)), layout="csr")
    for op in (operator.add, operator.gt, operator.mul):
        np.testing.assert_array_equal(op(A, B).to_dense(), op(a, np.ones((2, 4, 1))))
    for shape in [(3, 4, 2), (2, 3, 4, 2)]:
        for sa in range(2, len(shape) + 1):
            for sb in range(2, len(shape) + 1):
                for fa, fb in [(0.0, 0.0), (1.5, float("nan"))]:
                    Da = np.where(rng.random(shape) < 0.4, rng.standard_normal(shape), fa)
                    Db = np.where(rng.random(shape) < 0.4, rng.standard_normal(shape), fb)
                    A = sparray.asarray(Da, layout=layout, sparse_ndim=sa, fill_value=fa, **kw)
                    B = sparray.asarray(Db, layout=layout, sparse_ndim=sb, fill_value=fb, **kw)
                    for op in (operator.add, operator.gt, operator.mul, sparray.maximum):
                        R = op(A, B)
                        assert R.layout in (layout, "coo") and R.shape == shape
                        np.testing.assert_allclose(R.to_dense(), op(Da, Db), equal_nan=True)
