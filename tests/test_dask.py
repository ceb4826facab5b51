"""sparray arrays as Dask chunks (``sparray.interop.dask``) under the threaded and the processes
schedulers, checked against the same Dask operations on dense NumPy chunks: fills 0, 1.5 and nan,
COO and CSR chunks for everything, every layout for the cheap checks. The LocalCluster runs are in
test_dask_distributed.py; the NumPy protocols Dask relies on in test_numpy_protocols.py."""

import concurrent.futures
import multiprocessing
import os
import subprocess
import sys

import numpy as np
import pytest

da = pytest.importorskip("dask.array")
dask = pytest.importorskip("dask")

from dask_testing import CHEAP, OPS, aux_for, check, dense_of  # noqa: E402
from sparray_testing import make_sparse  # noqa: E402

import sparray  # noqa: E402
from sparray.interop.dask import from_dask_dense, from_sparray, to_sparray  # noqa: E402

FILLS = [0.0, 1.5, float("nan")]
SHAPE, CHUNKS = (9, 9), (4, 5)  # uneven blocks: 3 x 2 of sizes (4, 4, 1) x (5, 4)
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def _case(layout, fill, seed=0, shape=SHAPE, blocksize=None, **kw):
    rng = np.random.default_rng(seed)
    A, D = make_sparse(rng, layout, shape, 2, blocksize, density=0.35, fill=fill, **kw)
    return A, D


@pytest.mark.parametrize("layout", ["coo", "csr"])
@pytest.mark.parametrize("fill", FILLS, ids=["fill0", "fill1.5", "nan"])
def test_threaded_scheduler_every_operation(layout, fill):
    A, D = _case(layout, fill)
    X, Y = from_sparray(A, chunks=CHUNKS), da.from_array(D, chunks=CHUNKS)
    aux = aux_for(SHAPE)
    for name in OPS:
        got = check(name, X, Y, aux, scheduler="threads")
        if name in ("x*2+1", "T", "slice", "rechunk", "persist"):
            assert isinstance(got, sparray.SparseArray), name
            assert got.layout == ("csc" if name == "T" and layout == "csr" else layout), name
    # fills of the results: f(fill) element-wise, n * fill for a sum over n elements (blocks of one
    # size along the reduced axis; with sizes 4, 4, 1 the partial sums have different fills, and
    # every element of the result is specified, see docs/dask.md)
    with np.errstate(invalid="ignore"):
        assert np.isclose(float((X * 2 + 1).compute().fill_value), fill * 2 + 1, equal_nan=True)
        s0 = from_sparray(A[:8], chunks=CHUNKS).sum(axis=0).compute()
        assert isinstance(s0, sparray.SparseArray) and np.isclose(float(s0.fill_value), 8 * fill, equal_nan=True)


@pytest.mark.parametrize("layout", ["csc", "bsr", "bsc"])
def test_threaded_scheduler_other_layouts(layout):
    for fill in FILLS:
        A, D = _case(layout, fill, shape=(8, 8), blocksize=(2, 2))
        X, Y = from_sparray(A, chunks=(4, 6 if layout == "coo" else 4)), da.from_array(D, chunks=4)
        assert X._meta.layout == layout
        aux = aux_for((8, 8))
        for name in CHEAP:
            check(name, X, Y, aux, scheduler="threads")
        B = to_sparray(X * 2)
        assert B.layout == layout and B.index_dtype == A.index_dtype
        np.testing.assert_allclose(B.to_dense(), 2 * D, equal_nan=True)


def test_hybrid_batched_and_1d_chunks():
    rng = np.random.default_rng(4)
    for layout, shape, s, chunks, kw in [("coo", (6, 5, 2), 2, (4, 2, 1), {"dense_fill": True}),
                                         ("csr", (3, 6, 4), 3, (2, 4, 3), {}), ("coo", (11,), 1, (4,), {}),
                                         ("coo", (4, 3, 5), 3, (2, 2, 5), {"dtype": "int64", "fill": 3})]:
        kw.setdefault("fill", 1.5)
        A, D = make_sparse(rng, layout, shape, s, density=0.4, **kw)
        X, Y = from_sparray(A, chunks=chunks), da.from_array(D, chunks=chunks)
        for f in (lambda x: x.sum(axis=0), lambda x: x * 2, lambda x: x.max(axis=-1), lambda x: x[1:], lambda x: x.rechunk(2)):
            got, want = f(X).compute(), f(Y).compute()
            np.testing.assert_allclose(dense_of(got), want, equal_nan=True)
        B = to_sparray(X)
        assert B.layout == layout and B.shape == A.shape and B.index_dtype == A.index_dtype
        np.testing.assert_allclose(B.to_dense(), D, equal_nan=True)


@pytest.fixture(scope="module")
def process_pool():
    """One pool of two spawned processes for the module (each process imports sparray once)."""
    ctx = multiprocessing.get_context("spawn")
    with concurrent.futures.ProcessPoolExecutor(2, mp_context=ctx) as pool:
        yield pool


@pytest.mark.parametrize("layout", ["coo", "csr"])
def test_processes_scheduler(layout, process_pool):
    names = ["x*2+1", "x-x.T", "x+row", "sum0", "mean1", "max", "var0", "x@v", "x@V", "T", "slice", "rechunk", "map_blocks"]
    for fill in FILLS:
        A, D = _case(layout, fill, seed=1)
        X, Y = from_sparray(A, chunks=CHUNKS), da.from_array(D, chunks=CHUNKS)
        aux = aux_for(SHAPE, seed=1)
        for name in names:
            check(name, X, Y, aux, scheduler="processes", pool=process_pool)
        B = to_sparray(X + 1, scheduler="processes", pool=process_pool)
        assert B.layout == layout and np.isclose(float(B.fill_value), fill + 1, equal_nan=True)


def test_meta_is_an_empty_array_of_the_layout_dtype_and_fill():
    A, _ = _case("csr", 1.5, dtype="float32", index_dtype="int32")
    X = from_sparray(A, chunks=CHUNKS)
    meta = X._meta
    assert isinstance(meta, sparray.CSR) and meta.shape == (0, 0) and meta.dtype == np.float32
    assert float(meta.fill_value) == 1.5 and meta.index_dtype == np.int32
    assert (X + 1)._meta.fill_value == 2.5 and X.T._meta.layout == "csc"
    assert X.dtype == np.float32 and X.chunks == ((4, 4, 1), (5, 4))
    assert all(isinstance(b, sparray.CSR) for b in dask.compute(*X.to_delayed().ravel()))
    from dask.sizeof import sizeof

    assert sizeof(A) >= A.nbytes > 0  # what Dask (and distributed's memory limits) count for a chunk


def test_from_sparray_shares_row_blocks_and_checks_its_arguments():
    A, _ = _case("csr", 0.0, shape=(12, 5))
    X = from_sparray(A, chunks=(4, 5))
    (first,) = dask.compute(X.to_delayed()[0, 0])
    assert np.shares_memory(first.values, A.values)  # a row block of a CSR is a view
    with pytest.raises(TypeError, match="from_sparray: A must be a sparray array"):
        from_sparray(np.eye(3), chunks=2)
    B, _ = _case("bsr", 0.0, shape=(8, 8), blocksize=(2, 2))
    with pytest.raises(ValueError, match="multiples of the blocksize"):
        from_sparray(B, chunks=(3, 4))
    auto = from_sparray(A)
    assert auto.chunks[1] == (5,) and to_sparray(auto).nse == A.nse


@pytest.mark.parametrize("layout,blocksize", [("csr", None), ("csc", None), ("coo", None), ("bsr", (2, 2)), ("bsc", (2, 2))])
def test_from_sparray_nblocks_cuts_at_equal_entries(layout, blocksize):
    """``nblocks`` and "auto" cut the compressed dim (rows; columns of CSC/BSC) where the blocks
    hold about equal entries: a matrix with all its entries in its first rows gets short first
    blocks, every block is non-empty, and the blocks join back to the matrix."""
    n = 24
    D = np.full((n, n), -1.5)  # the fill: unspecified
    D[:4, :] = np.arange(1.0, n + 1)  # 96 entries in the first 4 rows (columns for CSC/BSC), 24 after
    D[np.arange(4, n), np.arange(4, n)] = 7.0
    if layout in ("csc", "bsc"):
        D = D.T
    A = sparray.asarray(D, layout=layout, blocksize=blocksize, fill_value=-1.5)
    dim = 1 if layout in ("csc", "bsc") else 0
    X = from_sparray(A, nblocks=4)
    sizes = X.chunks[dim]
    assert len(sizes) == 4 and sum(sizes) == n and all(c > 0 for c in sizes)
    assert X.chunks[1 - dim] == (n,)
    assert sizes[0] < sizes[-1]  # the heavy rows come first: the first block is the shortest
    if blocksize:
        assert all(c % 2 == 0 for c in sizes)
    entries = [int(np.count_nonzero(np.take(D, np.arange(a, a + c), axis=dim) != -1.5)) for a, c in zip(np.cumsum((0,) + sizes[:-1]), sizes)]
    assert max(entries) <= sum(entries) / 4 + n + 1, entries  # a block is off its share by at most one row
    np.testing.assert_array_equal(to_sparray(X).to_dense(), D)
    assert len(from_sparray(A, nblocks=1000).chunks[dim]) == (n // 2 if blocksize else n)
    with dask.config.set({"array.chunk-size": "256B"}):
        auto = from_sparray(A)
    assert len(auto.chunks[dim]) > 1 and auto.chunks[1 - dim] == (n,)
    np.testing.assert_array_equal(to_sparray(auto).to_dense(), D)


def test_from_sparray_nblocks_checks_its_arguments():
    A, _ = _case("csr", 0.0, shape=(12, 5))
    with pytest.raises(ValueError, match="give chunks or nblocks, not both"):
        from_sparray(A, chunks=(4, 5), nblocks=2)
    for bad in (0, -1, 2.5, True, "2"):
        with pytest.raises(ValueError, match="nblocks must be an integer >= 1"):
            from_sparray(A, nblocks=bad)
    batched = sparray.asarray(np.ones((6, 3, 3)), layout="csr")  # dim 0 is a batch dim: equal sizes
    assert from_sparray(batched, nblocks=3).chunks == ((2, 2, 2), (3,), (3,))


def test_from_dask_dense_converts_block_by_block():
    rng = np.random.default_rng(2)
    D = rng.standard_normal((8, 6))
    D[rng.random(D.shape) < 0.6] = np.nan
    Y = da.from_array(D, chunks=(4, 3))
    for layout, kw in [("coo", {}), ("csr", {}), ("csc", {}), ("bsr", {"blocksize": (2, 3)}), ("bsc", {"blocksize": (2, 1)})]:
        X = from_dask_dense(Y, fill_value=np.nan, layout=layout, **kw)
        assert X._meta.layout == layout and np.isnan(float(X._meta.fill_value))
        blocks = dask.compute(*X.to_delayed().ravel())
        assert all(b.layout == layout and np.isnan(float(b.fill_value)) for b in blocks)
        assert all(b.nse < b.size for b in blocks if b.layout in ("coo", "csr", "csc"))
        np.testing.assert_allclose(to_sparray(X).to_dense(), D, equal_nan=True)
        np.testing.assert_allclose(dense_of(X.sum(axis=1).compute()), D.sum(axis=1), equal_nan=True)
    X = from_dask_dense(Y, layout="csr", index_dtype="int64")
    assert dask.compute(X.to_delayed()[0, 0])[0].index_dtype == np.int64
    # wrong arguments fail when the graph is built
    with pytest.raises(ValueError, match="needs blocksize"):
        from_dask_dense(Y, layout="bsr")
    with pytest.raises(ValueError, match="multiples of the blocksize"):
        from_dask_dense(Y, layout="bsr", blocksize=(3, 3))
    with pytest.raises(ValueError, match="cannot be represented"):
        from_dask_dense(da.zeros((4, 4), dtype=np.int64, chunks=2), fill_value=0.5)
    with pytest.raises(TypeError, match="dask.array.Array"):
        from_dask_dense(D)


def test_different_fills_raise_when_the_graph_is_built_and_when_gathered():
    A, D = _case("csr", 0.0)
    B, E = _case("csr", 1.5, seed=3)
    X, Y = from_sparray(A, chunks=CHUNKS), from_sparray(B, chunks=CHUNKS)
    for join in (lambda: da.concatenate([X, Y]), lambda: da.block([[X], [Y]])):
        with pytest.raises(ValueError, match=r"different fill values.*0\.0 and 1\.5"):
            join()
    same = da.concatenate([X, X * 1.0])  # one fill: fine, and nan equals nan
    assert to_sparray(same).shape == (18, 9)
    assert np.isnan(float(to_sparray(da.concatenate([X * np.nan, X * np.nan])).fill_value))
    stacked = da.stack([X, Y])  # Dask's stack joins metas without the dispatch: checked at the gather
    with pytest.raises(ValueError, match=r"to_sparray: chunks \(0, 0, 0\) and \(1, 0, 0\) have different fill"):
        to_sparray(stacked)
    C = to_sparray(stacked, fill_value=1.5)  # or expressed with one fill, exactly
    assert float(C.fill_value) == 1.5
    np.testing.assert_allclose(C.to_dense(), np.stack([D, E]), equal_nan=True)
    # fills that differ inside Dask's own algorithms are joined exactly: partial sums of blocks
    # of 4, 4 and 1 rows have fills 6.0, 6.0 and 1.5
    np.testing.assert_allclose(dense_of(Y.sum(axis=0).compute()), E.sum(axis=0))


def test_a_bare_sparray_array_beside_a_dask_array():
    A, D = _case("csr", 1.5)
    X = from_sparray(A, chunks=CHUNKS)
    for got, want in [(X + A, D + D), (A + X, D + D), (X * A, D * D), (A - X, D - D)]:
        assert isinstance(got, da.Array) and isinstance(got._meta, sparray.SparseArray)
        np.testing.assert_allclose(dense_of(got.compute()), want, equal_nan=True)


def test_registration_is_lazy_and_automatic():
    """import sparray imports no dask; Dask finds sparray registered without sparray.interop.dask."""
    code = (
        "import sys, numpy as np, sparray\n"
        "A = sparray.asarray(np.eye(6), layout='csr', fill_value=0.0)\n"
        "np.sum(A); A + A; np.concatenate([A, A])\n"
        "assert not any(m == 'dask' or m.startswith('dask.') for m in sys.modules), 'dask imported'\n"
        "import dask.array as da\n"
        "from dask.array.chunk_types import is_valid_chunk_type\n"
        "X = da.from_array(A, chunks=3)  # tokenizing A registers sparray\n"
        "assert is_valid_chunk_type(sparray.CSR) and 'sparray.interop.dask' in sys.modules\n"
        "assert type(X._meta) is sparray.CSR and (X.sum(axis=0).compute().to_dense() == 1).all()\n"
        "print('ok')\n"
    )
    env = dict(os.environ, PYTHONPATH=ROOT + os.pathsep + os.environ.get("PYTHONPATH", ""))
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, cwd=ROOT, timeout=120)
    assert out.returncode == 0 and out.stdout.strip() == "ok", out.stderr[-2000:]


def test_tokens_are_deterministic_and_follow_the_contents():
    from dask.base import tokenize

    A, _ = _case("csr", 1.5)
    assert tokenize(A) == tokenize(A.copy())
    assert tokenize(A) != tokenize(A * 2) != tokenize(sparray.asarray(A, fill_value=0.0, layout="csr"))
    assert tokenize(A) != tokenize(A.to_layout("csc"))


def test_docstring_examples_run():
    import doctest

    import sparray.interop.dask as mod

    assert doctest.testmod(mod).failed == 0


def test_percentile_of_sparse_chunks_without_densifying():
    from sparray.interop.dask import percentile_chunk

    rng = np.random.default_rng(8)
    q = np.array([0, 5, 25, 50, 62.5, 90, 100.0])
    for fill in [0.0, 1.5, -3.0, 10.0, float("nan")]:
        for density in [0.0, 0.3, 1.0]:
            D = rng.standard_normal(37)
            D[rng.random(37) > density] = fill
            A = sparray.asarray(D, fill_value=fill, layout="coo")
            for method in ["linear", "lower", "higher", "midpoint", "nearest"]:
                got, n = percentile_chunk(A, q, method)
                np.testing.assert_array_equal(got, np.percentile(D, q, method=method))
                assert n == 37
            X, Y = from_sparray(A, chunks=10), da.from_array(D, chunks=10)
            np.testing.assert_allclose(da.percentile(X, [10, 50, 90]).compute(), da.percentile(Y, [10, 50, 90]).compute())
    for D in (np.array([3, 0, 0, 7, 1, 0, 2]), (rng.standard_normal(20) * (rng.random(20) < 0.5)).astype(np.float32)):
        for method in ["linear", "lower", "higher", "midpoint", "nearest"]:
            got, want = percentile_chunk(sparray.asarray(D), q, method)[0], np.percentile(D, q, method=method)
            assert got.dtype == want.dtype
            np.testing.assert_array_equal(got, want)
