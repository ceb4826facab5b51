"""sparray chunks on a dask.distributed LocalCluster: two worker processes on this machine, loopback
only, started once for the module. Checked against the same operations on dense chunks; chunks
travel between the processes pickled (protocol 5, components out of band) and keep their layout,
fill and index dtype."""

import numpy as np
import pytest

da = pytest.importorskip("dask.array")
distributed = pytest.importorskip("distributed")

from dask_testing import OPS, aux_for, check, dense_of  # noqa: E402
from sparray_testing import make_sparse  # noqa: E402

import sparray  # noqa: E402
from sparray.interop.dask import from_dask_dense, from_sparray, to_sparray  # noqa: E402

FILLS = [0.0, 1.5, float("nan")]
SHAPE, CHUNKS = (9, 9), (4, 5)


@pytest.fixture(scope="module")
def client():
    cluster = distributed.LocalCluster(
        n_workers=2, threads_per_worker=1, processes=True, host="127.0.0.1", dashboard_address=None
    )
    with cluster, distributed.Client(cluster) as c:
        yield c


@pytest.mark.parametrize("layout", ["coo", "csr"])
def test_operations_on_the_cluster(layout, client):
    names = ["x*2+1", "x-x.T", "x+row", "where", "sum0", "sum1", "max", "mean1", "var0", "x@v", "x@V", "T",
             "slice", "take", "rechunk", "map_blocks"]  # fmt: skip
    rng = np.random.default_rng(5)
    for fill in FILLS:
        A, D = make_sparse(rng, layout, SHAPE, 2, density=0.35, fill=fill, index_dtype="int32")
        X, Y = from_sparray(A, chunks=CHUNKS), da.from_array(D, chunks=CHUNKS)
        aux = aux_for(SHAPE, seed=2)
        for name in names:
            check(name, X, Y, aux)  # the client is the default scheduler
        Z = (X * 2).persist()  # chunks computed and kept on the workers
        distributed.wait(Z)
        assert len(client.who_has(Z)) == len(Z.__dask_keys__()) * len(Z.__dask_keys__()[0])
        B = to_sparray(Z)
        assert B.layout == layout and B.index_dtype == np.int32
        assert np.isclose(float(B.fill_value), 2 * fill, equal_nan=True)
        np.testing.assert_allclose(B.to_dense(), 2 * D, equal_nan=True)


def test_chunks_come_back_with_layout_fill_and_index_dtype(client):
    rng = np.random.default_rng(6)
    for layout, block in [("coo", None), ("csr", None), ("csc", None), ("bsr", (2, 2)), ("bsc", (2, 2))]:
        A, D = make_sparse(rng, layout, (8, 8), 2, block, density=0.4, fill=-1.5, index_dtype="int32")
        X = from_sparray(A, chunks=4).persist()
        blocks = client.gather(client.compute(X.to_delayed().ravel().tolist()))
        for b in blocks:
            assert b.layout == layout and b.index_dtype == np.int32 and float(b.fill_value) == -1.5
        np.testing.assert_allclose(dense_of(X.sum(axis=1).compute()), D.sum(axis=1))
        # the workers built the chunks' sums themselves: sparray is registered there without an import
        assert all(client.run(lambda: __import__("sys").modules.get("sparray.interop.dask") is not None).values())


def test_from_dask_dense_on_the_cluster(client):
    rng = np.random.default_rng(7)
    D = rng.standard_normal((12, 6))
    D[rng.random(D.shape) < 0.7] = 0.0
    X = from_dask_dense(da.from_array(D, chunks=(4, 6)), layout="csr")
    np.testing.assert_allclose((X @ np.ones(6)).compute(), D @ np.ones(6))
    np.testing.assert_allclose(to_sparray(X.T).to_dense(), D.T)
