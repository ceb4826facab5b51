"""Reductions of CSR, CSC, BSR and BSC arrays straight from their components (issue 20): every
kind, over the compressed axis, the plain axis, both, batch and dense axes, with keepdims, fills
0 / 1.5 / nan / -inf (integer and bool fills too), empty and full rows and columns, hybrid dense
dims, batches padded with fill-valued entries, blocks; against NumPy on the dense array, through
the numba kernels and the generic path; and without a COO form of the input on the way."""

import numpy as np
import pytest

import sparray
import sparray._layout.compress
from sparray_testing import FILLS, LAYOUT_SHAPES, assert_matches_dense, make_sparse

pytestmark = pytest.mark.filterwarnings("ignore::RuntimeWarning")  # NumPy on empty slices

KINDS = ("sum", "prod", "max", "min", "mean", "var", "std", "any", "all")
AXES = (0, 1, None, (0, 1), -1, (1, -1), (0, -1))


def _dense(rng, shape, dtype, fill):
    """A dense array of ``shape``: a random pattern holding random values, the fill elsewhere, one
    empty row and column, one full row and column (so some groups have no unspecified element)."""
    mask = rng.random(shape[:2]) < 0.4
    if shape[0] > 2 and shape[1] > 2:
        mask[1, :], mask[:, 2] = False, False
        mask[0, :], mask[:, 0] = True, True
    values = rng.integers(-3, 4, shape) if dtype.kind in "iub" else rng.standard_normal(shape) * 2
    if dtype.kind == "c":
        values = values + 1j * rng.standard_normal(shape)
    if dtype == np.bool_:
        values = values > 0
    D = np.full(shape, fill, dtype)
    m = mask.reshape(mask.shape + (1,) * (len(shape) - 2))
    D = np.where(np.broadcast_to(m, shape), values.astype(dtype), D)
    return D, mask


CASES = [
    ("float64", 0.0), ("float64", 1.5), ("float64", np.nan), ("float64", -np.inf),
    ("int64", 0), ("int64", 3), ("bool", False), ("bool", True), ("complex128", 0.0), ("float32", -2.0),
]  # fmt: skip


def _check(got, want, kind):
    got = got.to_dense() if hasattr(got, "to_dense") else np.asarray(got)
    assert got.shape == want.shape, (kind, got.shape, want.shape)
    if want.dtype.kind in "biu":
        np.testing.assert_array_equal(got, want)
    else:
        rtol = 1e-5 if want.dtype in (np.float32, np.complex64) else 1e-10
        np.testing.assert_allclose(got, want, rtol=rtol, atol=1e-6, equal_nan=True)


@pytest.mark.parametrize("layout", ["csr", "csc"])
@pytest.mark.parametrize("shape", [(7, 9), (6, 5, 2), (0, 4), (5, 0)], ids=str)
@pytest.mark.parametrize("dtype,fill", CASES, ids=[f"{d}-{f}" for d, f in CASES])
def test_every_kind_and_axis_against_numpy(backend, layout, shape, dtype, fill):
    dtype = np.dtype(dtype)
    rng = np.random.default_rng(len(shape) * 7 + shape[0])
    D, _ = _dense(rng, shape, dtype, fill)
    A = sparray.asarray(D, layout=layout, fill_value=np.asarray(fill, dtype), sparse_ndim=2)
    with np.errstate(all="ignore"):
        for kind in KINDS:
            if dtype == np.bool_ and kind in ("mean", "var", "std"):
                continue
            for axis in AXES:
                if axis is not None and -1 in np.atleast_1d(axis) and len(shape) == 2:
                    continue
                for keepdims in (False, True):
                    try:
                        want = getattr(np, kind)(D, axis=axis, keepdims=keepdims)
                    except ValueError:  # max/min of no element
                        with pytest.raises(ValueError, match="zero-size"):
                            getattr(sparray, kind)(A, axis=axis, keepdims=keepdims)
                        continue
                    _check(getattr(sparray, kind)(A, axis=axis, keepdims=keepdims), np.asarray(want), (kind, axis))


@pytest.mark.parametrize("layout", ["csr", "csc"])
@pytest.mark.parametrize("kind", KINDS)
def test_sparse_axes_reduce_without_a_coo(layout, kind, monkeypatch):
    rng = np.random.default_rng(3)
    D, _ = _dense(rng, (30, 40), np.dtype(np.float64), 1.5)
    A = sparray.asarray(D, layout=layout, fill_value=1.5)

    def no_coo(self, *a, **k):
        raise AssertionError("a CSR/CSC reduction went through the COO form")

    monkeypatch.setattr(type(A), "to_layout", no_coo)
    with sparray.use_backend("numba"):
        for axis in (0, 1, None):
            _check(getattr(sparray, kind)(A, axis=axis), np.asarray(getattr(np, kind)(D, axis=axis)), kind)


def test_large_compressed_reductions_match_numpy():
    """Sizes past the JIT threshold with the automatic backend choice, and every strategy: runs
    between pointers, a scatter of sums and counts, and the transposed pattern for max. The
    references come from the entries (a dense copy would be 640 MB): every value is positive, so a
    line's max is its largest entry, or the fill -1 where it has none (no line is full)."""
    import scipy.sparse as sps

    rng = np.random.default_rng(11)
    n, m, nse = 40_000, 2000, 300_000
    S = sps.coo_array((rng.random(nse), (rng.integers(0, n, nse), rng.integers(0, m, nse))), shape=(n, m)).tocsr()
    S.sum_duplicates()
    rows, cols = np.repeat(np.arange(n), np.diff(S.indptr)), S.indices
    for layout in ("csr", "csc"):
        T = S if layout == "csr" else S.tocsc()
        A = sparray.asarray(T)
        cls = sparray.CSR if layout == "csr" else sparray.CSC
        B = cls(T.indptr, T.indices, T.data, T.shape, fill_value=-1.0)  # the same entries, the gaps -1
        for axis in (0, 1):
            line = cols if axis == 0 else rows
            size, other = (m, n) if axis == 0 else (n, m)
            sums = np.bincount(line, weights=S.data, minlength=size)
            count = np.bincount(line, minlength=size)
            top = np.full(size, -1.0)
            np.maximum.at(top, line, S.data)
            _check(sparray.sum(A, axis=axis), sums, "sum")
            _check(sparray.max(B, axis=axis), top, "max")
            _check(sparray.mean(B, axis=axis), (sums - (other - count)) / other, "mean")


# --- batched and blocked arrays (CSR/CSC with batch dims, BSR/BSC with or without) -----------------
def _axes_for(ndim, nonsparse):
    """None, every single axis, the two sparse axes together, a batch axis with each sparse axis,
    a sparse axis with a dense one, and all but the last axis (batch dims are the first
    ``nonsparse - 2``)."""
    b = nonsparse - 2
    axes = [None, *range(ndim), (b, b + 1)]
    if b:
        axes += [(0, b), (0, b + 1), tuple(range(b))]
    if ndim > nonsparse:
        axes += [(b + 1, nonsparse), (b, ndim - 1)]
    if ndim > 2:
        axes.append(tuple(range(ndim - 1)))
    return list(dict.fromkeys(axes))


def _compare_all(A, D, kinds=KINDS):
    nonsparse = A.ndim - A.dense_ndim
    tol = 1e-5 if D.dtype in (np.float32, np.complex64) else 1e-9
    with np.errstate(all="ignore"):
        for i, kind in enumerate(kinds):
            if D.dtype == np.bool_ and kind in ("mean", "var", "std"):
                continue
            for axis in _axes_for(D.ndim, nonsparse):
                keepdims = bool(i % 2)
                try:
                    want = np.asarray(getattr(np, kind)(D, axis=axis, keepdims=keepdims))
                except ValueError:
                    with pytest.raises(ValueError, match="zero-size"):
                        getattr(sparray, kind)(A, axis=axis, keepdims=keepdims)
                    continue
                assert_matches_dense(getattr(sparray, kind)(A, axis=axis, keepdims=keepdims), want, rtol=tol, atol=tol)


@pytest.mark.parametrize("layout", ["csr", "csc", "bsr", "bsc"])
@pytest.mark.parametrize("case", LAYOUT_SHAPES, ids=[str(c[0]) for c in LAYOUT_SHAPES])
def test_batched_and_blocked_against_numpy(backend, layout, case, monkeypatch):
    """Every kind over single axes, the sparse pair, batch + sparse, sparse + dense and all but the
    last axis, fills 0 / 1.5 / nan / -inf (dense-part fills for hybrid shapes), short batches
    padded with fill-valued entries, blocks holding the fill: exact against NumPy, and no COO form
    of the input on the way (the result may be converted back to the input's layout). The numba
    kernels see two of the fills per shape, in turn (their paths do not depend on the fill but
    through the kernels' inputs), the generic path all four."""
    shape, nonsparse, block = case
    rng = np.random.default_rng(sum(shape) + len(layout))
    k = LAYOUT_SHAPES.index(case)
    fills = FILLS if backend == "generic" else [FILLS[k % 4], FILLS[(k + 2) % 4]]

    def no_coo(X):
        raise AssertionError("a compressed reduction went through the COO form")

    for fill in fills:
        A, D = make_sparse(rng, layout, shape, nonsparse, block, density=0.4, fill=fill, dense_fill=nonsparse < len(shape))
        with monkeypatch.context() as mp:
            mp.setattr(sparray._layout.compress, "compressed_to_coo", no_coo)
            _compare_all(A, D)


@pytest.mark.parametrize("dtype,fill", [("int64", 3), ("bool", True), ("complex128", 1.5), ("float32", -2.0)])
@pytest.mark.parametrize("layout", ["csr", "bsc"])
def test_batched_and_blocked_other_dtypes(layout, dtype, fill):
    """Integer, bool, complex and float32 values (int32 indices) on a batched hybrid array, numba kernels."""
    rng = np.random.default_rng(5)
    A, D = make_sparse(rng, layout, (2, 4, 6, 2), 3, (2, 3), density=0.5, fill=fill, dtype=dtype, index_dtype="int32")
    with sparray.use_backend("numba"):
        _compare_all(A, D)


def test_batched_reductions_large():
    """Past the JIT threshold with the automatic choice: runs over all batches' pointers, the
    transposed pattern per batch, and merged batches (a batch axis reduced, both sparse axes kept)."""
    rng = np.random.default_rng(17)
    D = np.where(rng.random((3, 300, 200)) < 0.3, rng.random((3, 300, 200)), 0.0)
    for layout, blocksize in (("csr", None), ("bsc", (2, 4))):
        A = sparray.asarray(D, layout=layout, sparse_ndim=3, blocksize=blocksize)
        for axis in (0, 1, 2, (1, 2)):
            assert_matches_dense(sparray.sum(A, axis=axis), D.sum(axis=axis), rtol=1e-12, atol=1e-12)
            assert_matches_dense(sparray.max(A, axis=axis), D.max(axis=axis))
        merged = sparray.mean(A, axis=0)
        assert merged.layout == layout
        assert_matches_dense(merged, D.mean(axis=0), rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("layout", ["csr", "csc"])
@pytest.mark.parametrize("k", [2, 3, 7, 16])
@pytest.mark.parametrize("dtype,fill", [("float64", 0.0), ("float64", 1.5), ("float64", np.nan), ("float64", -np.inf),
                                        ("complex128", 0.0), ("float32", -2.0)], ids=str)
def test_sum_of_few_wide_major_rows_merges_pairwise(layout, k, dtype, fill, monkeypatch):
    """A sum over the major axis of 2..16 wide rows (the partial sums of a Dask reduction over row
    blocks) adds the rows pairwise (merges) instead of scattering into a dense accumulator: same
    values as NumPy with any fill, inf - inf included, keepdims in the input's layout."""
    import sparray._functions.reductions_compressed as rc

    calls = []
    real = rc.sum_few_major
    monkeypatch.setattr(rc, "sum_few_major", lambda *a, **kw: calls.append(1) or real(*a, **kw))
    rng = np.random.default_rng(k)
    shape = (k, 300) if layout == "csr" else (300, k)
    D, _ = _dense(rng, shape, np.dtype(dtype), fill)
    D[rng.random(shape) < 0.03] = np.inf
    D[rng.random(shape) < 0.03] = -np.inf
    A = sparray.asarray(D, layout=layout, fill_value=fill)
    axis = 0 if layout == "csr" else 1
    for keepdims in (False, True):
        got = sparray.sum(A, axis=axis, keepdims=keepdims)
        assert got.layout == (layout if keepdims else "coo")
        with np.errstate(invalid="ignore"):
            want = np.sum(D, axis=axis, keepdims=keepdims)
        got = np.asarray(got.to_dense())
        assert got.dtype == want.dtype
        for part in (np.real, np.imag):  # an infinite real part makes |got - want| nan for any imaginary rounding
            _check(part(got), part(want), "sum")
    assert len(calls) == 2
    # not taken: another kind, a cast, the other axis, too many rows, narrow rows with many entries
    sparray.mean(A, axis=axis), sparray.sum(A, axis=1 - axis)
    sparray.sum(sparray.asarray(np.ones((17, 3) if layout == "csr" else (3, 17)), layout=layout), axis=axis)
    sparray.sum(sparray.asarray(np.ones((2, 3) if layout == "csr" else (3, 2)), layout=layout), axis=axis, dtype=np.complex128)
    assert len(calls) == 2
    wide = sparray.asarray(np.ones((2, 3)), layout="csr")  # 6 entries, 3 columns: 8 * 3 >= 6 still merges
    np.testing.assert_array_equal(sparray.sum(wide, axis=0).to_dense(), [2.0, 2.0, 2.0])


def _banded(rng, n_rows, n_cols, width, fill):
    """A banded CSR: row i holds ``width`` consecutive columns starting near ``i * n_cols /
    n_rows`` (so each thread's slice of the column indices covers a narrow window), random
    values with a few infinities, the fill elsewhere."""
    starts = (np.arange(n_rows) * (n_cols - width)) // n_rows + rng.integers(-3, 4, n_rows)
    starts = np.clip(starts, 0, n_cols - width)
    cols = (starts[:, None] + np.arange(width)).ravel()
    indptr = np.arange(n_rows + 1, dtype=np.int32) * width
    data = rng.standard_normal(cols.size) * 2
    data[rng.random(cols.size) < 1e-4] = np.inf
    data[rng.random(cols.size) < 1e-4] = -np.inf
    return sparray.CSR(indptr, cols.astype(np.int32), data, shape=(n_rows, n_cols), fill_value=fill)


def _dense_rows(A, lo, hi):
    """Rows ``lo:hi`` of the CSR ``A`` as a dense NumPy block (the fill where unspecified)."""
    indptr, cols, data = (np.asarray(x) for x in (A.crow_indices, A.col_indices, A.values))
    block = np.full((hi - lo, A.shape[1]), float(A.fill_value))
    rows = np.repeat(np.arange(hi - lo), np.diff(indptr[lo : hi + 1]))
    block[rows, cols[indptr[lo] : indptr[hi]]] = data[indptr[lo] : indptr[hi]]
    return block


@pytest.mark.parametrize("fill", [0.0, 1.5, np.nan, -np.inf], ids=str)
def test_banded_column_reductions_against_numpy(fill, monkeypatch):
    """Axis-0 sum/max/min/prod/mean of a banded CSR large enough (2.4e5 entries, 4000 columns) for
    the banded paths of ``scatter_sum`` and ``group_reduce`` (chunks owning disjoint windows of one
    accumulator), against NumPy reducing the dense array block by block over the rows."""
    import numba

    import sparray.kernels.cpu.group_reduce as gr
    import sparray.kernels.cpu.scatter as sc

    plans = []
    for mod in (sc, gr):
        real = mod.banded_plan
        monkeypatch.setattr(mod, "banded_plan", lambda *a, _real=real: plans.append(_real(*a)) or plans[-1])
    rng = np.random.default_rng(20)
    A = _banded(rng, 3000, 4000, 80, fill)
    fold = {"sum": np.add, "max": np.maximum, "min": np.minimum, "prod": np.multiply}
    want = {}
    with np.errstate(all="ignore"):
        for lo in range(0, A.shape[0], 500):
            block = _dense_rows(A, lo, min(lo + 500, A.shape[0]))
            for kind, ufunc in fold.items():
                part = getattr(np, kind)(block, axis=0)
                want[kind] = part if kind not in want else ufunc(want[kind], part)
        want["mean"] = want["sum"] / A.shape[0]
        threads = min(2, numba.config.NUMBA_NUM_THREADS)
        old = numba.get_num_threads()
        numba.set_num_threads(threads)
        try:
            # the registry's kernels first (the lean path stepped aside), then the lean path of
            # a zero-fill sum (sparray._products.lean: its own serial scatter below a crossover)
            for lean in (False, True):
                monkeypatch.setattr(sparray._products.lean, "ENABLED", lean)
                for kind in ("sum", "max", "min", "prod", "mean"):
                    plans.clear()
                    _check(getattr(sparray, kind)(A, axis=0), want[kind], kind)
                    # the banded path was taken: scatter_sum's for a zero-fill sum, group_reduce's for the rest
                    if not lean and threads > 1 and (kind in ("max", "min", "prod") or (kind == "sum" and fill == 0)):
                        assert plans and all(p is not None for p in plans), (kind, plans)
        finally:
            numba.set_num_threads(old)
