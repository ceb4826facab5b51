"""matmul / @, tensordot, vecdot, addmm and sampled_addmm against dense NumPy, for every layout and fill.

The reference product is the dense one computed element by element (``sum(a[..., :, :, None] *
b[..., None, :, :], axis=-2)``), so nan and inf follow IEEE rules exactly (``0 * inf`` is nan),
whatever BLAS would do.
"""

import numpy as np
import pytest

import sparray
from sparray_testing import FILLS, LAYOUTS, assert_matches_dense, assert_sparray_result, make_coo, make_sparse

BACKENDS = ["generic", "numba"]
BLOCK = {"coo": None, "csr": None, "csc": None, "bsr": (2, 2), "bsc": (2, 2)}


def ref_matmul(a, b):
    a, b = np.asarray(a), np.asarray(b)
    va, vb = a.ndim == 1, b.ndim == 1
    a2 = a[None, :] if va else a
    b2 = b[:, None] if vb else b
    with np.errstate(all="ignore"):
        r = np.sum(a2[..., :, :, None] * b2[..., None, :, :], axis=-2)
    if vb:
        r = r[..., 0]
    if va:
        r = r[..., 0, :] if not vb else r[..., 0]
    return r


def sparse(rng, layout, shape, fill=0.0, sparse_ndim=None, **kw):
    kw.setdefault("density", 0.4)
    return make_sparse(rng, layout, shape, sparse_ndim, BLOCK[layout], fill=fill, **kw)


def dense(rng, shape, dtype="float64"):
    x = rng.standard_normal(shape)
    if np.dtype(dtype).kind == "c":
        x = x + 1j * rng.standard_normal(shape)
    return x.astype(dtype)


@pytest.fixture(params=BACKENDS)
def backend(request):
    with sparray.use_backend(request.param):
        yield request.param


# --- sparse @ dense ------------------------------------------------------------------------------------
SD_SHAPES = [  # (sparse shape, dense shape)
    ((6, 8), (8, 3)),
    ((6, 8), (8,)),
    ((4, 6, 8), (8, 3)),
    ((4, 6, 8), (4, 8, 5)),
    ((6, 8), (3, 8, 2)),
    ((1, 6, 8), (3, 8, 2)),
    ((0, 8), (8, 2)),
    ((6, 0), (0, 2)),
    ((2, 2), (2, 0)),
]


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("fill", FILLS)
@pytest.mark.parametrize("shapes", SD_SHAPES, ids=str)
def test_sparse_times_dense(backend, layout, fill, shapes):
    rng = np.random.default_rng(1)
    sshape, xshape = shapes
    A, D = sparse(rng, layout, sshape, fill)
    X = dense(rng, xshape)
    R = A @ X
    assert isinstance(R, np.ndarray)
    assert_matches_dense(R, ref_matmul(D, X), rtol=1e-10, atol=1e-10)


@pytest.mark.parametrize("fill", [0.0, 1.5, np.nan, -np.inf])
@pytest.mark.parametrize("density", [0.1, 0.9])
def test_csr_times_vector_short_and_long_rows(backend, fill, density):
    """A CSR times a vector with rows of about 4 entries (the numba kernel's short-row loop) and of
    about 36 (its unrolled loop), with a zero, non-zero, nan and -inf fill, against dense NumPy."""
    from sparray.kernels.cpu import spmm

    rng = np.random.default_rng(9)
    A, D = sparse(rng, "csr", (30, 40), fill, density=density)
    assert (A.nse < spmm._SHORT_ROWS * 30) == (density < 0.5)
    x = dense(rng, (40,))
    assert_matches_dense(A @ x, ref_matmul(D, x), rtol=1e-10, atol=1e-10)


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("fill", FILLS)
@pytest.mark.parametrize("shapes", [((3, 6), (6, 8)), ((6,), (6, 8)), ((2, 3, 6), (2, 6, 8)), ((3, 6), (4, 6, 8))], ids=str)
def test_dense_times_sparse(backend, layout, fill, shapes):
    rng = np.random.default_rng(2)
    xshape, sshape = shapes
    A, D = sparse(rng, layout, sshape, fill)
    X = dense(rng, xshape)
    assert_matches_dense(X @ A, ref_matmul(X, D), rtol=1e-10, atol=1e-10)
    assert_matches_dense(sparray.matmul(X, A), ref_matmul(X, D), rtol=1e-10, atol=1e-10)


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("fill", [0.0, 2.0, np.nan, -np.inf, np.inf])
def test_non_finite_dense_operand(backend, layout, fill):
    """inf and nan in X meet the unspecified elements as in the dense product (0 * inf = nan)."""
    rng = np.random.default_rng(3)
    A, D = sparse(rng, layout, (8, 10), fill, density=0.5)
    X = dense(rng, (10, 6))
    X[rng.random(X.shape) < 0.15] = np.inf
    X[rng.random(X.shape) < 0.1] = -np.inf
    X[rng.random(X.shape) < 0.05] = np.nan
    X[rng.random(X.shape) < 0.1] = 0.0
    assert_matches_dense(A @ X, ref_matmul(D, X), rtol=1e-10, atol=1e-10)
    assert_matches_dense(X.T @ A.mT, ref_matmul(X.T, D.T), rtol=1e-10, atol=1e-10)


@pytest.mark.parametrize("layout", ["csr", "bsr"])
@pytest.mark.parametrize("where", ["read", "unread", "both", "none"])
@pytest.mark.parametrize("ncols", [1, 3, 40])
def test_zero_fill_shortcut_sees_every_non_finite_row(backend, layout, where, ncols):
    """With a zero fill, A @ X skips the finiteness pass over X when the product comes out finite,
    checking only the rows of X that no stored element reads (empty columns, for BSR empty block
    columns). An inf or nan in a read row, an unread row or both must still give the dense
    product's nan/inf; the shortcut runs from the array's second product on, so each case runs
    three times on one array."""
    rng = np.random.default_rng(11)
    D = rng.standard_normal((8, 12))
    D[rng.random(D.shape) < 0.5] = 0.0
    D[:, 4:6] = 0.0  # block column 2 (2x2 blocks) is empty: X rows 4 and 5 are never read
    D[0, 0] = 1.0  # column 0 is read
    A = sparray.asarray(D, layout=layout, blocksize=BLOCK[layout])
    for _ in range(3):
        X = dense(rng, (12, ncols))
        if where in ("read", "both"):
            X[0, ncols // 2] = np.inf
        if where in ("unread", "both"):
            X[5, 0] = np.nan if ncols > 1 else -np.inf
        assert_matches_dense(A @ X, ref_matmul(D, X), rtol=1e-10, atol=1e-10)
        assert_matches_dense(A @ X[:, 0], ref_matmul(D, X[:, 0]), rtol=1e-10, atol=1e-10)


@pytest.mark.parametrize("layout", ["csr", "bsr"])
@pytest.mark.parametrize("where", ["read", "unread", "none"])
def test_zero_fill_shortcut_when_most_rows_of_x_are_unread(backend, layout, where):
    """A row block of a wide matrix (a Dask chunk) reads few rows of X: the shortcut then checks all
    of X in one pass instead of gathering the unread rows; a non-finite row, read or not, still
    gives the dense product's nan/inf."""
    rng = np.random.default_rng(12)
    D = np.zeros((4, 40))
    D[:, :4] = rng.standard_normal((4, 4))  # columns 4.. are never read
    A = sparray.asarray(D, layout=layout, blocksize=BLOCK[layout])
    for _ in range(3):
        X = dense(rng, (40, 2))
        if where == "read":
            X[1, 0] = np.inf
        elif where == "unread":
            X[30, 1] = np.nan
        assert_matches_dense(A @ X, ref_matmul(D, X), rtol=1e-10, atol=1e-10)
        assert_matches_dense(A @ X[:, 0], ref_matmul(D, X[:, 0]), rtol=1e-10, atol=1e-10)


@pytest.mark.parametrize("layout", ["csr", "bsr"])
@pytest.mark.parametrize("where", ["read", "none"])
def test_zero_fill_shortcut_when_every_row_of_x_is_read(backend, layout, where, monkeypatch):
    """No column of A is empty, so a finite product has read every row of X and X is finite: from
    the array's second product on, A @ X makes no finiteness pass at all (the gather of the unread
    rows is empty, and all_finite answers an empty array without a pass; on a GPU a pass is a
    read-back that waits for the device); an inf in X still gives the dense product's inf/nan."""
    from sparray._engine import dispatch as _dispatch

    rng = np.random.default_rng(13)
    D = rng.standard_normal((8, 12))
    D[rng.random(D.shape) < 0.5] = 0.0
    D[0, :] = 1.0  # every column read
    A = sparray.asarray(D, layout=layout, blocksize=BLOCK[layout])
    A @ dense(rng, (12, 3))  # the first product leaves the pattern's unread rows to the second
    ops = []
    real_call = _dispatch.call

    def spy(op, *args, **kwargs):
        ops.append(op)
        return real_call(op, *args, **kwargs)

    monkeypatch.setattr(_dispatch, "call", spy)
    for ncols in (1, 3):
        X = dense(rng, (12, ncols))
        if where == "read":
            X[7, 0] = np.inf
        ops.clear()
        assert_matches_dense(A @ X, ref_matmul(D, X), rtol=1e-10, atol=1e-10)
        if where == "none":
            assert "matmul_dense" in ops and "all_finite" not in ops, ops


@pytest.mark.parametrize("layout", LAYOUTS)
def test_non_finite_stored_values(backend, layout):
    rng = np.random.default_rng(4)
    A, D = sparse(rng, layout, (6, 8), 1.5, density=0.5)
    Dv = np.where(D != 1.5, D, 1.5)
    coo = A.to_layout("coo").coalesce()
    vals = np.array(coo.values)
    vals[:3] = [np.inf, -np.inf, np.nan]
    B = sparray.COO(coo.indices, vals, coo.shape, fill_value=1.5)
    Dv = B.to_dense()
    B = B.to_layout(layout, blocksize=BLOCK[layout])
    X = dense(rng, (8, 3))
    X[0, 0] = 0.0
    assert_matches_dense(B @ X, ref_matmul(Dv, X), rtol=1e-10, atol=1e-10)


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("dtype", ["float32", "complex128", "int64"])
@pytest.mark.parametrize("fill", [0, 2])
def test_dtypes(backend, layout, dtype, fill):
    rng = np.random.default_rng(5)
    A, D = sparse(rng, layout, (6, 8), fill, dtype=dtype)
    X = dense(rng, (8, 4), "float64" if dtype == "int64" else dtype)
    if dtype == "int64":
        X = rng.integers(-3, 4, (8, 4)).astype(np.int64)
    R = A @ X
    tol = 1e-4 if dtype == "float32" else 1e-10
    assert_matches_dense(R, ref_matmul(D, X), rtol=tol, atol=tol)


def test_mixed_dtypes_promote(backend):
    rng = np.random.default_rng(6)
    A, D = sparse(rng, "csr", (6, 8), 1.0, dtype="float32")
    X = dense(rng, (8, 2))
    R = A @ X
    assert R.dtype == np.float64
    assert_matches_dense(R, ref_matmul(D.astype(np.float64), X), rtol=1e-6, atol=1e-6)


@pytest.mark.parametrize("index_dtype", ["int32", "int64"])
@pytest.mark.parametrize("layout", ["coo", "csr", "csc"])
def test_index_dtypes_and_duplicates(backend, index_dtype, layout):
    rng = np.random.default_rng(7)
    A, D = make_coo(rng, (7, 9), density=0.4, fill=0.5, index_dtype=index_dtype, duplicates=True)
    if layout != "coo":
        A = A.to_layout(layout)
    X = dense(rng, (9, 3))
    assert_matches_dense(A @ X, ref_matmul(D, X), rtol=1e-10, atol=1e-10)
    assert_matches_dense(A @ X[:, 0], ref_matmul(D, X[:, 0]), rtol=1e-10, atol=1e-10)


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("dense_fill", [False, True])
def test_hybrid_operand(backend, layout, dense_fill):
    """A hybrid (M, K, d) array's last two dims (K, d) are its matrix dims, as for any array."""
    rng = np.random.default_rng(8)
    A, D = sparse(rng, layout, (4, 6, 2), 0.5, sparse_ndim=2, dense_fill=dense_fill)
    X = dense(rng, (2, 3))
    assert_matches_dense(A @ X, ref_matmul(D, X), rtol=1e-10, atol=1e-10)
    Y = dense(rng, (5, 2))
    assert_matches_dense(Y @ A.mT, ref_matmul(Y, np.swapaxes(D, -1, -2)), rtol=1e-10, atol=1e-10)


@pytest.mark.parametrize("layout", ["coo", "csr"])
def test_hybrid_varying_fill_times_sparse(backend, layout):
    """A hybrid operand whose fill varies along its dense dim goes dense; the other stays sparse."""
    rng = np.random.default_rng(22)
    A, DA = sparse(rng, layout, (4, 6, 3), 0.5, sparse_ndim=2, dense_fill=True)
    B, DB = sparse(rng, layout, (3, 5), 1.5)
    assert_matches_dense(A @ B, ref_matmul(DA, DB), rtol=1e-10, atol=1e-10)
    assert_matches_dense(B.mT @ A.mT, ref_matmul(DB.T, np.swapaxes(DA, -1, -2)), rtol=1e-10, atol=1e-10)


# --- sparse @ sparse -------------------------------------------------------------------------------------
FILL_PAIRS = [(0.0, 0.0), (0.0, 1.5), (2.0, 0.0), (1.5, -0.5), (np.nan, 0.0), (0.0, -np.inf), (-np.inf, 1.0)]


@pytest.mark.parametrize("left", LAYOUTS)
@pytest.mark.parametrize("right", ["coo", "csr", "bsc"])
@pytest.mark.parametrize("fills", FILL_PAIRS, ids=str)
def test_sparse_times_sparse(backend, left, right, fills):
    rng = np.random.default_rng(9)
    A, DA = sparse(rng, left, (6, 8), fills[0])
    B, DB = sparse(rng, right, (8, 4), fills[1])
    R = A @ B
    expected = ref_matmul(DA, DB)
    if fills == (0.0, 0.0):
        assert isinstance(R, sparray.SparseArray)
        assert R.layout == left
        assert_matches_dense(R, expected, fill=0.0, rtol=1e-10, atol=1e-10)
    else:  # a non-zero fill makes the product dense: its values in a sparray array (sparray in, sparray out)
        assert_sparray_result(R, A)
        assert_matches_dense(R, expected, rtol=1e-10, atol=1e-10)


@pytest.mark.parametrize("shapes", [((3, 4, 6), (3, 6, 5)), ((3, 4, 6), (6, 5)), ((4, 6), (2, 6, 5)), ((6,), (6, 5)), ((4, 6), (6,)), ((6,), (6,))], ids=str)
@pytest.mark.parametrize("fills", [(0.0, 0.0), (1.0, 0.5)], ids=str)
def test_sparse_times_sparse_batched_and_vectors(backend, shapes, fills):
    rng = np.random.default_rng(10)
    A, DA = sparse(rng, "coo" if len(shapes[0]) == 1 else "csr", shapes[0], fills[0])
    B, DB = sparse(rng, "coo" if len(shapes[1]) == 1 else "csr", shapes[1], fills[1])
    R = sparray.matmul(A, B)
    assert_matches_dense(R, ref_matmul(DA, DB), rtol=1e-10, atol=1e-10)


def test_spgemm_keeps_explicit_zeros_and_pads_batches(backend):
    A = sparray.CSR([[0, 2, 2], [0, 1, 2]], [[0, 1], [0, 1]], [[1.0, 1.0], [1.0, 0.0]], shape=(2, 2, 2))
    B = sparray.CSR([[0, 1, 2], [0, 1, 2]], [[0, 0], [1, 1]], [[1.0, -1.0], [2.0, 3.0]], shape=(2, 2, 2))
    R = A @ B
    assert R.layout == "csr" and R.batch_shape == (2,)
    assert_matches_dense(R, ref_matmul(A.to_dense(), B.to_dense()), fill=0.0)
    assert R.crow_indices.shape == (2, 3)


def test_zero_fill_with_inf_value_is_dense(backend):
    A = sparray.asarray(np.array([[1.0, 0.0], [0.0, 2.0]]), layout="csr")
    B = sparray.asarray(np.array([[np.inf, 0.0], [0.0, 1.0]]), layout="csr")
    R = A @ B
    assert_matches_dense(R, ref_matmul(A.to_dense(), B.to_dense()))
    assert np.isnan(_dense(R)[1, 0])  # 0 * inf, as in the dense product


def test_blocked_result_layout(backend):
    rng = np.random.default_rng(11)
    A, DA = make_sparse(rng, "bsr", (4, 6), None, (2, 3), density=0.5)
    B, DB = make_sparse(rng, "bsr", (6, 8), None, (3, 4), density=0.5)
    R = A @ B
    assert R.layout == "bsr" and R.blocksize == (2, 4)
    assert_matches_dense(R, ref_matmul(DA, DB), fill=0.0, rtol=1e-10)


# --- errors ---------------------------------------------------------------------------------------------
def test_errors():
    rng = np.random.default_rng(12)
    A, _ = sparse(rng, "csr", (4, 6))
    with pytest.raises(ValueError, match=r"\(4, 6\) and \(5, 2\) are not aligned"):
        A @ np.ones((5, 2))
    with pytest.raises(ValueError, match=r"\(4, 6\) and \(5,\) are not aligned"):
        sparray.matmul(A, np.ones(5))
    with pytest.raises(ValueError, match="batch dims"):
        sparray.matmul(sparse(rng, "coo", (2, 4, 6))[0], np.ones((3, 6, 2)))
    with pytest.raises(ValueError, match="at least 1-d"):
        sparray.matmul(A, np.zeros(()))
    with pytest.raises(TypeError, match="numeric"):
        sparray.matmul(A.astype(bool), np.ones((6, 2), dtype=bool))
    with pytest.raises(TypeError, match="must be an array"):
        sparray.matmul(A, 2.0)
    xps = pytest.importorskip("array_api_strict")
    with pytest.raises(TypeError, match="one namespace"):
        sparray.matmul(A, xps.ones((6, 2)))


def test_array_api_strict_components():
    xps = pytest.importorskip("array_api_strict")
    rng = np.random.default_rng(13)
    for fill in (0.0, 1.5, float("nan")):
        A, D = make_coo(rng, (5, 7), density=0.4, fill=fill, xp=xps)
        X = dense(rng, (7, 3))
        for layout in ("coo", "csr", "csc", "bsr"):
            B = A.to_layout(layout, blocksize=(1, 7) if layout == "bsr" else None)
            R = B @ xps.asarray(X)
            assert type(R).__module__.startswith("array_api_strict")
            assert_matches_dense(R, ref_matmul(D, X), rtol=1e-10, atol=1e-10)
        S = A.to_layout("csr") @ A.to_layout("csr").mT
        assert_matches_dense(S, ref_matmul(D, D.T), rtol=1e-10, atol=1e-10)


# --- numba against generic on inputs large enough for the threaded kernels -------------------------------
@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("fill", [0.0, -1.0])
def test_numba_matches_generic(layout, fill):
    rng = np.random.default_rng(14)
    m, k, nse = 40_000, 30_000, 200_000
    rows, cols = rng.integers(0, m, nse), rng.integers(0, k, nse)
    A = sparray.COO(np.stack([rows, cols]), rng.standard_normal(nse), (m, k), fill_value=fill)
    A = A.to_layout(layout, blocksize=(2, 2) if layout in ("bsr", "bsc") else None)
    X = dense(rng, (k, 5))
    x = dense(rng, (k,))
    B = sparray.COO(np.stack([cols, rows]), rng.standard_normal(nse), (k, m)).to_layout("csr")
    with sparray.use_backend("numba"):
        fast = (A @ X, A @ x, (A.to_layout("csr") @ B) if fill == 0 else None)
    with sparray.use_backend("generic"):
        slow = (A @ X, A @ x, (A.to_layout("csr") @ B) if fill == 0 else None)
    np.testing.assert_allclose(fast[0], slow[0], rtol=1e-10, atol=1e-9)
    np.testing.assert_allclose(fast[1], slow[1], rtol=1e-10, atol=1e-9)
    if fill == 0:
        assert np.array_equal(np.asarray(fast[2].crow_indices), np.asarray(slow[2].crow_indices))
        assert np.array_equal(np.asarray(fast[2].col_indices), np.asarray(slow[2].col_indices))
        np.testing.assert_allclose(fast[2].values, slow[2].values, rtol=1e-10, atol=1e-12)


# --- tensordot, vecdot ---------------------------------------------------------------------------------------
@pytest.mark.parametrize("fill", FILLS)
@pytest.mark.parametrize("axes", [1, 2, ([0], [1]), ([2, 0], [0, 2]), 0])
def test_tensordot(backend, fill, axes):
    rng = np.random.default_rng(15)
    A, DA = sparse(rng, "coo", (3, 4, 5), fill)
    xs = {"1": (5, 2), "2": (4, 5, 2), "0": (2,), "([0], [1])": (2, 3), "([2, 0], [0, 2])": (5, 2, 3)}[str(axes)]
    X = dense(rng, xs)
    with np.errstate(all="ignore"):
        expected = np.tensordot(DA, X, axes=axes)
    if not np.all(np.isfinite(DA)) or fill != 0:
        # the reference in IEEE terms: move the axes and use the element-wise product
        a1, a2 = ((list(range(3 - axes, 3)), list(range(axes))) if isinstance(axes, int) else axes)
        f1 = [d for d in range(3) if d not in [a % 3 for a in a1]]
        f2 = [d for d in range(X.ndim) if d not in [a % X.ndim for a in a2]]
        left = np.transpose(DA, f1 + list(a1)).reshape(int(np.prod([DA.shape[d] for d in f1])), -1)
        right = np.transpose(X, list(a2) + f2).reshape(left.shape[1], -1)
        expected = ref_matmul(left, right).reshape([DA.shape[d] for d in f1] + [X.shape[d] for d in f2])
    assert_matches_dense(sparray.tensordot(A, X, axes=axes), expected, rtol=1e-10, atol=1e-10)


def test_tensordot_sparse_sparse_and_errors(backend):
    rng = np.random.default_rng(16)
    A, DA = sparse(rng, "coo", (3, 4, 5))
    B, DB = sparse(rng, "coo", (4, 5, 2))
    R = sparray.tensordot(A, B, axes=2)
    assert isinstance(R, sparray.SparseArray) and R.shape == (3, 2)
    assert_matches_dense(R, np.tensordot(DA, DB, axes=2), fill=0.0, rtol=1e-10)
    with pytest.raises(ValueError, match="do not match"):
        sparray.tensordot(A, B, axes=([0], [0]))
    with pytest.raises(ValueError, match="axes"):
        sparray.tensordot(A, B, axes=4)


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("fill", FILLS)
def test_vecdot(backend, layout, fill):
    rng = np.random.default_rng(17)
    A, DA = sparse(rng, layout, (6, 4), fill)
    x = dense(rng, (4,))
    with np.errstate(all="ignore"):
        expected = np.sum(DA * x, axis=-1)
    assert_matches_dense(sparray.vecdot(A, x), expected, rtol=1e-10, atol=1e-10)
    B, DB = sparse(rng, layout, (6, 4), 0.0)
    with np.errstate(all="ignore"):
        expected = np.sum(DA * DB, axis=0)
    assert_matches_dense(sparray.vecdot(A, B, axis=-2), expected, rtol=1e-10, atol=1e-10)


def test_vecdot_complex_conjugates_first():
    rng = np.random.default_rng(18)
    A, DA = sparse(rng, "csr", (3, 5), 0, dtype="complex128")
    y = dense(rng, (5,), "complex128")
    assert_matches_dense(sparray.vecdot(A, y), np.sum(np.conj(DA) * y, axis=-1), rtol=1e-12)
    with pytest.raises(ValueError, match="differ along axis"):
        sparray.vecdot(A, np.ones(4))


# --- addmm, sampled_addmm ------------------------------------------------------------------------------------
@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("fill", [0.0, 1.5, np.nan])
@pytest.mark.parametrize("coeffs", [(1, 1), (0.5, -2.0), (0, 3.0)], ids=str)
def test_addmm(backend, layout, fill, coeffs):
    beta, alpha = coeffs
    rng = np.random.default_rng(19)
    A, DA = sparse(rng, layout, (6, 8), fill)
    X = dense(rng, (8, 4))
    C = dense(rng, (6, 4))
    C[0, 0] = np.nan
    R = sparray.addmm(C, A, X, beta=beta, alpha=alpha)
    prod = alpha * ref_matmul(DA, X)
    expected = prod if beta == 0 else beta * C + prod
    assert_matches_dense(R, expected, rtol=1e-10, atol=1e-10)
    S, DS = sparse(rng, layout, (6, 4), 0.0)
    B, DB = sparse(rng, layout, (8, 4), 0.0)
    A0, DA0 = sparse(rng, layout, (6, 8), 0.0)
    R = sparray.addmm(S, A0, B, beta=beta, alpha=alpha)
    assert isinstance(R, sparray.SparseArray)
    assert_matches_dense(R, beta * DS + alpha * ref_matmul(DA0, DB), rtol=1e-10, atol=1e-10)


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("fill", [0.0, 1.5, np.nan])
@pytest.mark.parametrize("coeffs", [(1, 1), (0.5, -2.0), (0, 3.0)], ids=str)
@pytest.mark.parametrize("batch", [(), (3,)], ids=str)
def test_sampled_addmm(backend, layout, fill, coeffs, batch):
    beta, alpha = coeffs
    rng = np.random.default_rng(20)
    C, DC = sparse(rng, layout, (*batch, 6, 4), fill, density=0.5)
    A = dense(rng, (*batch, 6, 5))
    B = dense(rng, (5, 4))
    R = sparray.sampled_addmm(C, A, B, beta=beta, alpha=alpha)
    assert isinstance(R, sparray.SparseArray) and R.layout == layout
    coo = C.to_layout("coo")
    mask = np.zeros(C.shape, dtype=bool)
    mask[tuple(np.asarray(coo.indices))] = True
    with np.errstate(all="ignore"):
        full = alpha * ref_matmul(A, B) + (0 if beta == 0 else beta * DC)
        out_fill = 0.0 if beta == 0 else beta * fill
    expected = np.where(mask, full, out_fill)
    assert_matches_dense(R, expected, fill=out_fill, rtol=1e-10, atol=1e-10)
    assert R.nse == C.nse


def test_sampled_addmm_errors():
    rng = np.random.default_rng(21)
    C, _ = sparse(rng, "csr", (6, 4))
    with pytest.raises(ValueError, match="do not fit"):
        sparray.sampled_addmm(C, np.ones((6, 5)), np.ones((4, 4)))
    with pytest.raises(TypeError, match="SparseArray"):
        sparray.sampled_addmm(np.ones((6, 4)), np.ones((6, 5)), np.ones((5, 4)))
    H, _ = sparse(rng, "coo", (6, 4, 2), sparse_ndim=2)
    with pytest.raises(ValueError, match="no dense dims"):
        sparray.sampled_addmm(H, np.ones((6, 5)), np.ones((5, 4)))


@pytest.mark.parametrize("axes", [0, 1, 2])
@pytest.mark.parametrize("layout2", ["coo", "csc", "csr"])
def test_issue16_tensordot_with_a_fill_that_varies_along_dense_dims(axes, layout2, backend):
    """A hybrid operand whose fill varies along its dense dims goes dense in tensordot, as in matmul
    (it was a ValueError from the COO conversion)."""
    A = sparray.COO(np.array([[0]]), np.array([[[2.712, -2.0, 3.273, -1.692]]]), (5, 1, 4),
                    fill_value=np.array([[1.5, -2.0, 1.5, 1.5]]))  # fmt: skip
    B = sparray.asarray(np.ones((1, 4, 2)), layout="csc", fill_value=1.5)
    np.testing.assert_allclose(_dense(sparray.tensordot(A, B, axes=2)), np.tensordot(A.to_dense(), B.to_dense(), axes=2))
    rng = np.random.default_rng(11)
    for fill in (np.array([1.5, -2.0]), np.array([np.nan, 0.0])):
        D = np.where(rng.random((3, 4, 2)) < 0.4, rng.standard_normal((3, 4, 2)), fill)
        H = sparray.asarray(D, sparse_ndim=2, fill_value=fill)
        shape2 = (3, 4, 2)[3 - axes :] + (3,)
        E = sparray.asarray(np.where(rng.random(shape2) < 0.5, rng.standard_normal(shape2), 0.5), fill_value=0.5,
                            layout=layout2 if len(shape2) >= 2 else "coo")  # fmt: skip
        R = sparray.tensordot(H, E, axes=axes)
        got = R.to_dense() if isinstance(R, sparray.SparseArray) else np.asarray(R)
        np.testing.assert_allclose(got, np.tensordot(D, E.to_dense(), axes=axes), rtol=1e-12, equal_nan=True)
        v = sparray.vecdot(H, np.ones(2))
        np.testing.assert_allclose(v.to_dense() if isinstance(v, sparray.SparseArray) else v, D @ np.ones(2), equal_nan=True)


@pytest.mark.parametrize("layout", LAYOUTS)
def test_issue16_beta_zero_ignores_nan_and_inf_in_C(layout, backend):
    """PyTorch's rule, documented in docs/linalg.md: beta == 0 reads neither C's values nor its fill."""
    rng = np.random.default_rng(23)
    A, DA = make_sparse(rng, layout, (4, 6), None, (2, 2) if layout[0] == "b" else None, density=0.5, fill=1.5)
    X = rng.standard_normal((6, 4))
    DC = np.where(rng.random((4, 4)) < 0.5, np.nan, np.inf)
    C = sparray.asarray(DC, fill_value=np.nan, layout="coo")
    for c in (DC, C):
        R = sparray.addmm(c, A, X, beta=0, alpha=2.0)
        got = R.to_dense() if isinstance(R, sparray.SparseArray) else np.asarray(R)
        np.testing.assert_allclose(got, 2.0 * (DA @ X), rtol=1e-12)
        assert np.isfinite(got).all()
    R = sparray.addmm(DC, A, X, beta=1e-300)  # any other beta multiplies C: nan and inf propagate
    assert np.array_equal(np.isnan(np.asarray(R)), np.isnan(DC + DA @ X))
    S = sparray.asarray(np.where(rng.random((4, 4)) < 0.5, np.nan, 0.0), fill_value=np.inf, layout="csr")
    R = sparray.sampled_addmm(S, np.ones((4, 3)), np.ones((3, 4)), beta=0)
    assert R.nse == S.nse and float(R.fill_value) == 0.0 and np.all(R.values == 3.0)


def _dense(r):
    return r.to_dense() if hasattr(r, "to_dense") else np.asarray(r)


@pytest.mark.parametrize("layout", ["coo", "csr", "csc"])
def test_products_and_sums_after_an_in_place_change_of_the_fill(layout):
    """Whether an array's fill is zero is worked out once and kept on the array
    (``array_fill_is_zero``); an in-place operator that changes the fill must not leave the old
    answer behind for the products, the reductions or ``nonzero``."""
    D = np.array([[0.0, 2.0, 0.0], [3.0, 0.0, 0.0]])
    x = np.array([1.0, 10.0, 100.0])
    A = sparray.asarray(D, layout=layout)
    B = sparray.asarray(D.T.copy(), layout="csr")
    assert np.array_equal(A @ x, D @ x)  # the zero fill is now known
    assert np.array_equal(_dense(sparray.sum(A, axis=0)), D.sum(axis=0))
    assert np.array_equal(_dense(A @ B), D @ D.T)
    assert [_dense(i).tolist() for i in sparray.nonzero(A)] == [i.tolist() for i in np.nonzero(D)]
    A += 1.5
    assert float(A.fill_value) == 1.5
    E = D + 1.5
    assert np.array_equal(A @ x, E @ x)
    assert np.array_equal(_dense(sparray.sum(A, axis=0)), E.sum(axis=0))
    assert np.allclose(_dense(A @ B), E @ D.T)
    assert [_dense(i).tolist() for i in sparray.nonzero(A)] == [i.tolist() for i in np.nonzero(E)]
