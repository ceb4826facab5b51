"""Exchange of graphs: python-graphblas (``sparray.graph.to_graphblas`` / ``from_graphblas``),
networkx (``to_networkx`` / ``from_networkx``), and the explicit fill of ``to_scipy`` / ``to_torch``
for an undefined fill. Checked against dense NumPy and round trips, on every layout, with the
fills undefined, 0, a non-zero one and nan; each library's tests skip where it is missing."""

from __future__ import annotations

import numpy as np
import pytest

import sparray as sp
from cuda_testing import requires_gxx

pytestmark = pytest.mark.filterwarnings("ignore:Sparse (CSR|CSC|BSR|BSC) tensor support is in beta state")

U = sp.undefined
LAYOUTS = ["coo", "csr", "csc", "bsr", "bsc"]
FILLS = [U, 0.0, 3.0, float("nan")]


def _dense(rng, shape, fill, density=0.35, dtype=np.float64):
    """A dense matrix whose stored elements (the non-fill ones) are random, explicit zeros among them."""
    shape = tuple(shape)
    keep = rng.random(shape) < density
    v = rng.integers(-3, 4, shape).astype(dtype) if np.dtype(dtype).kind != "b" else rng.random(shape) < 0.5
    f = 0 if fill is U else fill
    return np.where(keep, v, np.asarray(f, dtype=dtype)), keep


def make(rng, layout, fill, shape=(6, 8), dtype=np.float64):
    """(A, stored, D): a sparse array of ``layout`` and ``fill``, its stored mask (BSR/BSC: the
    blocks' elements, padding included) and its dense values at those positions."""
    D, keep = _dense(rng, shape, fill, dtype=dtype)
    if layout in ("bsr", "bsc"):
        base = 0.0 if fill is U else fill
        A = sp.asarray(np.where(keep, D, base), layout=layout, blocksize=(2, 2), fill_value=base)
        if fill is U:
            A = sp.asarray(A, fill_value=U)
    else:
        A = sp.COO(np.array(np.nonzero(keep)), D[keep], shape=shape, fill_value=0 if fill is U else fill)
        A = A.to_layout(layout)
        if fill is U:
            A = sp.asarray(A, fill_value=U)
    stored, values = entries(A)
    return A, stored, values


def entries(A):
    """(stored mask, dense values) of a sparse array's stored elements (its fill not read)."""
    H = A if A.fill_is_defined else sp.asarray(A, fill_value=np.zeros((), A.dtype)[()])
    C = H.to_layout("coo").coalesce()
    idx = tuple(np.asarray(C.indices))
    stored = np.zeros(A.shape, bool)
    values = np.zeros(A.shape, A.dtype)
    stored[idx] = True
    values[idx] = np.asarray(C.values)
    return stored, values


def gb_entries(M):
    """(stored mask, dense values) of a graphblas Matrix or Vector."""
    if M.ndim == 1:
        idx, v = M.to_coo()
        stored, values = np.zeros(M.size, bool), np.zeros(M.size, M.dtype.np_type)
        stored[idx], values[idx] = True, v
        return stored, values
    r, c, v = M.to_coo()
    stored, values = np.zeros(M.shape, bool), np.zeros(M.shape, M.dtype.np_type)
    stored[r, c], values[r, c] = True, v
    return stored, values


# --- python-graphblas -------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def gb():
    return pytest.importorskip("graphblas")


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("fill", FILLS, ids=["undefined", "0", "3", "nan"])
def test_graphblas_round_trip(gb, layout, fill):
    rng = np.random.default_rng(LAYOUTS.index(layout) * 7 + FILLS.index(fill))
    A, stored, values = make(rng, layout, fill)
    M = sp.graph.to_graphblas(A)
    assert isinstance(M, gb.Matrix) and M.shape == A.shape and M.dtype.np_type == A.dtype
    S, V = gb_entries(M)
    np.testing.assert_array_equal(S, stored)  # entries = stored elements, explicit zeros kept, fill dropped
    np.testing.assert_array_equal(V[S], values[stored])
    B = sp.graph.from_graphblas(M)
    assert not B.fill_is_defined and B.layout == ("csc" if layout in ("csc", "bsc") else "csr")
    np.testing.assert_array_equal(entries(B)[0], stored)
    np.testing.assert_array_equal(entries(B)[1], values)
    if fill is not U:  # the fill given back: the same array, element by element
        C = sp.graph.from_graphblas(M, fill_value=fill)
        np.testing.assert_array_equal(C.to_dense(), A.to_dense())


@pytest.mark.parametrize("dtype", ["bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
                                   "float32", "float64", "complex64", "complex128"])
def test_graphblas_dtypes(gb, dtype):
    if dtype.startswith("complex") and not gb.dtypes._supports_complex:
        pytest.skip("this SuiteSparse build has no complex types")
    rng = np.random.default_rng(3)
    D, keep = _dense(rng, (5, 4), 0, dtype=np.dtype(dtype) if dtype != "bool" else np.bool_)
    A = sp.asarray(sp.COO(np.array(np.nonzero(keep)), D[keep], shape=D.shape), fill_value=U)
    M = sp.graph.to_graphblas(A)
    assert M.dtype.np_type == np.dtype(dtype)
    B = sp.graph.from_graphblas(M, fill_value=np.zeros((), dtype)[()])
    assert B.dtype == np.dtype(dtype)
    np.testing.assert_array_equal(B.to_dense(), np.where(keep, D, np.zeros((), dtype)))


@pytest.mark.parametrize("fmt", ["csr", "csc", "hypercsr", "hypercsc", "bitmapr", "bitmapc", "fullr", "fullc"])
def test_graphblas_every_storage_format(gb, fmt):
    rng = np.random.default_rng(5)
    full = fmt.startswith("full")
    D, keep = _dense(rng, (7, 6), 0, density=1.0 if full else 0.3)
    M0 = gb.Matrix.from_coo(*np.nonzero(keep), D[keep], nrows=7, ncols=6)
    M = gb.Matrix.ss.import_any(**M0.ss.export(fmt))
    assert M.ss.format == fmt
    A = sp.graph.from_graphblas(M)
    assert A.layout == ("csr" if fmt.endswith("r") else "csc")
    np.testing.assert_array_equal(A.to_dense(fill_value=np.nan), np.where(keep, D, np.nan))
    assert M.nvals == keep.sum()  # kept
    for layout in ("coo", "csr", "csc"):
        B = sp.graph.from_graphblas(M, layout=layout)
        assert B.layout == layout
        np.testing.assert_array_equal(B.to_dense(fill_value=np.nan), np.where(keep, D, np.nan))


def test_graphblas_unpack_is_zero_copy_and_empties_the_matrix(gb):
    rng = np.random.default_rng(6)
    D, keep = _dense(rng, (9, 9), 0)
    M = gb.Matrix.from_coo(*np.nonzero(keep), D[keep], nrows=9, ncols=9)
    M.wait()
    A = sp.graph.from_graphblas(M, unpack=True)
    assert M.nvals == 0 and M.shape == (9, 9)
    np.testing.assert_array_equal(A.to_dense(fill_value=0), np.where(keep, D, 0))
    assert A.index_dtype == np.int64
    # the buffers came from GraphBLAS (owned by NumPy now, nothing else holds them): writeable, not views of a copy
    assert A.values.base is None or A.values.base.flags.owndata


def test_graphblas_vectors(gb):
    rng = np.random.default_rng(7)
    for fill in FILLS:
        D, keep = _dense(rng, (11,), 0 if fill is U else fill)
        x = sp.COO(np.array([np.flatnonzero(keep)]), D[keep], shape=(11,), fill_value=0 if fill is U else fill)
        if fill is U:
            x = sp.asarray(x, fill_value=U)
        v = sp.graph.to_graphblas(x)
        assert isinstance(v, gb.Vector) and v.size == 11
        S, V = gb_entries(v)
        np.testing.assert_array_equal(S, keep)
        np.testing.assert_array_equal(V[S], D[keep])
        y = sp.graph.from_graphblas(v)
        assert y.layout == "coo" and y.shape == (11,) and not y.fill_is_defined
        np.testing.assert_array_equal(y.to_dense(fill_value=-7.0), np.where(keep, D, -7.0))
    uncoalesced = sp.COO([[3, 1, 3]], [1.0, 2.0, 4.0], shape=(5,))  # duplicates stand for their sum
    S, V = gb_entries(sp.graph.to_graphblas(uncoalesced))
    np.testing.assert_array_equal(V, [0, 2, 0, 5, 0])
    w = sp.graph.from_graphblas(gb.Vector.from_coo([0, 4], [1.5, 2.5], size=6), unpack=True)
    np.testing.assert_array_equal(w.to_dense(fill_value=0), [1.5, 0, 0, 0, 2.5, 0])


def test_graphblas_iso_in_and_out(gb):
    M = gb.Matrix.from_coo([0, 1, 2, 2], [1, 2, 0, 2], 4.0, nrows=3, ncols=3)  # a scalar value: iso
    assert M.ss.is_iso
    for unpack in (False, True):
        N = M.dup()
        A = sp.graph.from_graphblas(N, unpack=unpack)
        assert sp.graph.is_iso(A) and A.values.strides == (0,)
        np.testing.assert_array_equal(A.to_dense(fill_value=0), [[0, 4, 0], [0, 0, 4], [4, 0, 4]])
        back = sp.graph.to_graphblas(A)
        assert back.ss.is_iso and back.isequal(M)
    rng = np.random.default_rng(8)
    for layout in ("coo", "csr", "csc"):
        A, stored, _ = make(rng, layout, U)
        S = sp.graph.structure(A, 2.5)
        M = sp.graph.to_graphblas(S)
        assert M.ss.is_iso and M.nvals == stored.sum()
        np.testing.assert_array_equal(gb_entries(M)[1], np.where(stored, 2.5, 0))
    x = sp.graph.structure(sp.COO([[0, 3, 4]], [1.0, 1.0, 1.0], shape=(6,)), 7)
    v = sp.graph.to_graphblas(x)
    assert v.ss.is_iso and sp.graph.is_iso(sp.graph.from_graphblas(v))


def test_graphblas_products_agree(gb):
    """The exported matrix computes in GraphBLAS what sparray.graph computes (min_plus, plus_times)."""
    rng = np.random.default_rng(9)
    A, stored, values = make(rng, "csr", U, shape=(8, 8))
    xd = rng.random(8)
    x = sp.asarray(sp.asarray(xd), fill_value=U)
    for sr in ("min_plus", "plus_times"):
        mine = sp.graph.matmul(A, x, sr)
        theirs = getattr(gb.semiring, sr)(sp.graph.to_graphblas(A) @ sp.graph.to_graphblas(x)).new()
        back = sp.graph.from_graphblas(theirs)
        np.testing.assert_allclose(back.to_dense(fill_value=np.inf), mine.to_dense(fill_value=np.inf))


def test_graphblas_two_four(gb):
    D = np.array([[1.0, 0, 2, 0, 0, 0, 3, 4], [0, 5, 0, 6, 7, 0, 0, 8]])
    A = sp.asarray(D, layout="2:4")
    S, V = gb_entries(sp.graph.to_graphblas(A))
    np.testing.assert_array_equal(V, D)
    assert S.sum() == 8  # the kept positions


def test_graphblas_refusals(gb):
    rng = np.random.default_rng(10)
    with pytest.raises(TypeError, match="expected a sparray SparseArray"):
        sp.graph.to_graphblas(np.eye(2))
    with pytest.raises(ValueError, match="batch_ndim 1"):
        sp.graph.to_graphblas(sp.asarray(rng.random((2, 3, 4)), layout="csr"))
    with pytest.raises(ValueError, match="dense_ndim 1"):
        sp.graph.to_graphblas(sp.asarray(rng.random((3, 4)), layout="coo", sparse_ndim=1))
    with pytest.raises(ValueError, match="shape \\(2, 3, 4\\)"):
        sp.graph.to_graphblas(sp.asarray(rng.random((2, 3, 4)), layout="coo"))
    with pytest.raises(TypeError, match="no float16"):
        sp.graph.to_graphblas(sp.asarray(np.eye(2, dtype=np.float16), layout="csr"))
    with pytest.raises(TypeError, match="expected a graphblas.Matrix"):
        sp.graph.from_graphblas(np.eye(2))
    M = gb.Matrix.from_coo([0], [1], [1.0], nrows=2, ncols=2)
    with pytest.raises(TypeError, match="new\\(\\) first"):
        sp.graph.from_graphblas(M @ M)
    with pytest.raises(ValueError, match="needs a blocksize"):
        sp.graph.from_graphblas(M, layout="bsr")
    with pytest.raises(ValueError, match="layout must be"):
        sp.graph.from_graphblas(M, layout="dia")


@requires_gxx
def test_graphblas_and_networkx_refuse_device_data(gb):
    pytest.importorskip("networkx")
    A = sp.asarray(sp.asarray(np.eye(3), layout="csr"), fill_value=U).to_device("simulated")
    with pytest.raises(ValueError, match="to_device\\('cpu'\\)"):
        sp.graph.to_graphblas(A)
    with pytest.raises(ValueError, match="to_device\\('cpu'\\)"):
        sp.graph.to_networkx(A)
    M = sp.graph.to_graphblas(A.to_device("cpu"))  # the fix the message names
    assert M.nvals == 3


# --- networkx --------------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def nx():
    return pytest.importorskip("networkx")


def _graphs(nx):
    rng = np.random.default_rng(11)
    D = nx.gnp_random_graph(12, 0.25, seed=1, directed=True)
    for u, v in D.edges:
        D[u][v]["w"] = float(rng.integers(-2, 3))  # zeros among them: edges of weight 0
    D.add_edge(4, 4, w=1.5)
    D.add_node(99)  # isolated
    G = nx.gnp_random_graph(10, 0.3, seed=2)
    for u, v in G.edges:
        G[u][v]["w"] = float(rng.integers(1, 5))
    G.add_edge(3, 3, w=2.0)
    u, v = next(iter(G.edges))
    del G[u][v]["w"]  # an edge without the attribute weighs 1
    MG = nx.MultiDiGraph([(0, 1, {"w": 2.0}), (0, 1, {"w": 3.0}), (1, 2, {"w": 1.0})])
    MU = nx.MultiGraph([(0, 1), (0, 1), (1, 1)])
    return {"digraph": D, "graph": G, "multidigraph": MG, "multigraph": MU}


@pytest.mark.parametrize("kind", ["digraph", "graph", "multidigraph", "multigraph"])
def test_from_networkx_against_to_scipy_sparse_array(nx, kind):
    G = _graphs(nx)[kind]
    nodes = list(G)
    rng = np.random.default_rng(12)
    orders = [None, [nodes[i] for i in rng.permutation(len(nodes))], nodes[: max(2, len(nodes) // 2)]]
    for nodelist in orders:
        for weight in ("w", None):
            for layout in ("coo", "csr", "csc"):
                want = nx.to_scipy_sparse_array(G, nodelist=nodelist, weight=weight)
                A = sp.graph.from_networkx(G, nodelist, weight=weight, layout=layout)
                assert A.layout == layout and not A.fill_is_defined
                np.testing.assert_array_equal(A.to_dense(fill_value=0), want.toarray())
                if not G.is_multigraph():  # the stored positions are the edges (an edge of weight 0 is one)
                    H = G if nodelist is None else G.subgraph(nodelist)
                    edges, loops = H.number_of_edges(), nx.number_of_selfloops(H)
                    assert A.nse == (edges if G.is_directed() else 2 * edges - loops)
    A = sp.graph.from_networkx(G, weight="w", dtype=np.float32, fill_value=0.0)
    assert A.dtype == np.float32 and A.fill_value == 0


def test_from_networkx_structure_is_iso(nx):
    G = nx.path_graph(6)
    A = sp.graph.from_networkx(G, weight=None)
    assert sp.graph.is_iso(A) and A.dtype == np.int64
    B = sp.graph.from_networkx(G, weight=None, dtype=bool)
    assert sp.graph.is_iso(B) and B.dtype == np.bool_
    np.testing.assert_array_equal(B.to_dense(fill_value=False), nx.to_numpy_array(G) != 0)
    counted = sp.graph.from_networkx(nx.MultiGraph([(0, 1), (0, 1)]), weight=None)  # parallel edges add up
    assert not sp.graph.is_iso(counted) and counted.to_dense(fill_value=0).tolist() == [[0, 2], [2, 0]]
    empty = sp.graph.from_networkx(nx.empty_graph(3))
    assert empty.shape == (3, 3) and empty.nse == 0 and empty.dtype == np.float64


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("fill", FILLS, ids=["undefined", "0", "3", "nan"])
def test_to_networkx_edges_are_stored_elements(nx, layout, fill):
    rng = np.random.default_rng(13 + LAYOUTS.index(layout))
    A, stored, values = make(rng, layout, fill, shape=(8, 8))
    labels = [f"n{i}" for i in rng.permutation(8)]
    G = sp.graph.to_networkx(A, nodelist=labels)
    assert isinstance(G, nx.DiGraph) and list(G.nodes) == labels
    want = {(labels[i], labels[j]): values[i, j] for i, j in zip(*np.nonzero(stored))}
    got = {(u, v): w for u, v, w in G.edges(data="weight")}
    assert sorted(got) == sorted(want)
    np.testing.assert_array_equal([got[k] for k in sorted(want)], [want[k] for k in sorted(want)])  # nan == nan
    assert all(type(w) is float for w in got.values())  # Python scalars
    back = sp.graph.from_networkx(G, labels, layout="csr")
    np.testing.assert_array_equal(entries(back)[0], stored)
    np.testing.assert_array_equal(entries(back)[1], values)
    plain = sp.graph.to_networkx(A, weight=None)
    assert all(not d for _, _, d in plain.edges(data=True)) and plain.number_of_edges() == stored.sum()


def test_to_networkx_undirected(nx):
    rng = np.random.default_rng(14)
    D, keep = _dense(rng, (7, 7), 0)
    sym = np.triu(D) + np.triu(D, 1).T
    sym_keep = np.triu(keep) | np.triu(keep, 1).T
    A = sp.asarray(sp.COO(np.array(np.nonzero(sym_keep)), sym[sym_keep], shape=(7, 7)), fill_value=U)
    G = sp.graph.to_networkx(A, directed=False, weight="cost")
    assert isinstance(G, nx.Graph) and not G.is_directed()
    np.testing.assert_array_equal(nx.to_numpy_array(G, nodelist=range(7), weight="cost", nonedge=np.nan),
                                  np.where(sym_keep, sym, np.nan))
    one_sided = sp.asarray(sp.COO([[0], [2]], [5.0], shape=(3, 3)), fill_value=U)  # an entry on one side: the edge
    assert list(sp.graph.to_networkx(one_sided, directed=False).edges(data="weight")) == [(0, 2, 5.0)]
    bad = sp.COO([[0, 2], [2, 0]], [5.0, 6.0], shape=(3, 3))
    with pytest.raises(ValueError, match=r"A\[0, 2\] = 5.0 and A\[2, 0\] = 6.0"):
        sp.graph.to_networkx(bad, directed=False)
    nan_pair = sp.COO([[0, 2], [2, 0]], [np.nan, np.nan], shape=(3, 3))  # nan equals nan here
    assert sp.graph.to_networkx(nan_pair, directed=False).number_of_edges() == 1


def test_networkx_round_trips(nx):
    for kind, G in _graphs(nx).items():
        if G.is_multigraph():
            continue
        A = sp.graph.from_networkx(G, weight="w")
        H = sp.graph.to_networkx(A, directed=G.is_directed(), weight="w", nodelist=list(G))
        want = {(u, v): d.get("w", 1) for u, v, d in G.edges(data=True)}
        got = {(u, v): w for u, v, w in H.edges(data="w")}
        if not G.is_directed():
            want = {frozenset(e): w for e, w in want.items()}
            got = {frozenset(e): w for e, w in got.items()}
        assert got == want and list(H.nodes) == list(G.nodes), kind


def test_networkx_refusals(nx):
    G = nx.path_graph(3)
    with pytest.raises(TypeError, match="expected a networkx graph"):
        sp.graph.from_networkx(np.eye(3))
    with pytest.raises(ValueError, match="not in G"):
        sp.graph.from_networkx(G, [0, 7])
    with pytest.raises(ValueError, match="twice"):
        sp.graph.from_networkx(G, [0, 0, 1])
    with pytest.raises(ValueError, match="layout must be"):
        sp.graph.from_networkx(G, layout="bsr")
    with pytest.raises(ValueError, match="square"):
        sp.graph.to_networkx(sp.asarray(np.ones((2, 3))))
    with pytest.raises(ValueError, match="nodelist has 2 nodes"):
        sp.graph.to_networkx(sp.asarray(np.eye(3)), nodelist=["a", "b"])
    with pytest.raises(TypeError, match="expected a sparray SparseArray"):
        sp.graph.to_networkx(np.eye(2))


# --- scipy and torch: an explicit fill for the unspecified ------------------------------------------
@pytest.mark.parametrize("layout", LAYOUTS)
def test_to_scipy_explicit_fill(layout):
    pytest.importorskip("scipy")
    from sparray.interop.scipy import to_scipy

    rng = np.random.default_rng(15 + LAYOUTS.index(layout))
    A, stored, values = make(rng, layout, U)
    with pytest.raises(ValueError, match="fill_value=0"):
        to_scipy(A)
    m = to_scipy(A, fill_value=0)
    np.testing.assert_array_equal(m.toarray(), np.where(stored, values, 0))
    assert m.nnz == stored.sum()  # explicit zeros stay entries
    with pytest.raises(ValueError, match="non-zero"):
        to_scipy(A, fill_value=1.0)
    with pytest.raises(ValueError, match="non-zero"):
        to_scipy(A, fill_value=np.nan)
    with pytest.raises(ValueError, match="gives the gaps no value"):
        to_scipy(A, fill_value=U)
    Z, _, _ = make(rng, layout, 0.0)
    np.testing.assert_array_equal(to_scipy(Z, fill_value=0.0).toarray(), Z.to_dense())  # repeats the fill: fine
    T, _, _ = make(rng, layout, 3.0)
    with pytest.raises(ValueError, match="fill is 3.0"):
        to_scipy(T, fill_value=0)


@pytest.mark.parametrize("layout", LAYOUTS)
def test_to_torch_explicit_fill(layout):
    pytest.importorskip("torch")
    from sparray.interop.torch import to_torch

    rng = np.random.default_rng(16 + LAYOUTS.index(layout))
    A, stored, values = make(rng, layout, U)
    with pytest.raises(ValueError, match="fill_value=0"):
        to_torch(A)
    t = to_torch(A, fill_value=0)
    np.testing.assert_array_equal(t.to_dense().numpy(), np.where(stored, values, 0))
    with pytest.raises(ValueError, match="implicit zero fill"):
        to_torch(A, fill_value=2.0)
    N, _, _ = make(rng, layout, np.nan)
    with pytest.raises(ValueError, match="fill is nan"):
        to_torch(N, fill_value=0)


def test_scipy_and_torch_take_iso_arrays():
    pytest.importorskip("scipy")
    pytest.importorskip("torch")
    from sparray.interop.scipy import to_scipy
    from sparray.interop.torch import to_torch

    rng = np.random.default_rng(17)
    for layout in ("coo", "csr", "csc"):
        A, stored, _ = make(rng, layout, U)
        S = sp.graph.structure(A, 2.0, dtype=np.float64)
        m = to_scipy(S, fill_value=0)
        np.testing.assert_array_equal(m.toarray(), np.where(stored, 2.0, 0.0))
        assert m.data.flags.writeable and m.data.strides == (8,)  # written out: scipy may write into it
        m.data[:] = 1.0  # and writing does not reach S
        assert float(S.values[0]) == 2.0
        t = to_torch(S, fill_value=0)
        np.testing.assert_array_equal(t.to_dense().numpy(), np.where(stored, 2.0, 0.0))
