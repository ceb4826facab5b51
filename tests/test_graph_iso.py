"""Iso-valued (structure-only) arrays: ``sparray.graph.structure`` / ``is_iso`` (one value kept for
every entry, a zero-stride broadcast). Every operation on them gives what the same array with its
values written out gives (and what dense NumPy gives), on every layout, with the fills undefined,
0, a non-zero one and nan; nothing writes into the values (NumPy's broadcast is read-only, so a
write would raise); the graph kernels read the one element without copying it out; conversions,
``select``, device moves and GraphBLAS keep it iso; ``nbytes`` counts it once."""

from __future__ import annotations

import io
import pickle

import numpy as np
import pytest

import sparray as sp
import test_kernels_semiring as ref
from cuda_testing import requires_gxx
from sparray.kernels.cpu import semiring as sk
from sparray.kernels.cuda import simulated

U = sp.undefined
LAYOUTS = ["coo", "csr", "csc", "bsr", "bsc"]
FILLS = [U, 0.0, 3.0, float("nan")]
FILL_IDS = ["undefined", "0", "3", "nan"]
ISO = 2.5


def pattern(rng, shape=(6, 8), density=0.4):
    keep = rng.random(shape) < density
    keep[0, :2] = True  # at least two entries
    return keep


def iso_pair(rng, layout, fill, shape=(6, 8), value=ISO):
    """(S, T, D): an iso array of ``layout`` and ``fill`` (``structure`` of a random pattern), the same
    array with its values written out (not iso), and the dense matrix of both (fill 0 where undefined)."""
    keep = pattern(rng, shape)
    if layout in ("bsr", "bsc"):
        base = sp.asarray(np.where(keep, 1.0, 0.0), layout=layout, blocksize=(2, 2))
    else:
        base = sp.COO(np.array(np.nonzero(keep)), np.ones(keep.sum()), shape=shape).to_layout(layout)
    S = sp.graph.structure(base, value, dtype=np.float64)
    assert sp.graph.is_iso(S) and S.layout == layout and not S.fill_is_defined
    T = S._replace_values(np.array(S.values), S.fill_value)  # the same, values written out
    assert not sp.graph.is_iso(T)
    if fill is not U:
        S, T = sp.asarray(S, fill_value=fill), sp.asarray(T, fill_value=fill)
        assert sp.graph.is_iso(S)
    stored = np.zeros(shape, bool)
    H = sp.asarray(T, fill_value=0.0) if fill is U else T
    C = H.to_layout("coo").coalesce()
    stored[tuple(np.asarray(C.indices))] = True
    D = np.where(stored, value, 0.0 if fill is U else fill)
    return S, T, D, stored


def same(a, b):
    """a and b (results of one operation on the iso array and on its twin) hold the same elements."""
    if isinstance(a, tuple):
        assert isinstance(b, tuple) and len(a) == len(b)
        for x, y in zip(a, b):
            same(x, y)
        return
    if isinstance(a, sp.SparseArray):
        assert isinstance(b, sp.SparseArray)
        assert a.shape == b.shape and a.dtype == b.dtype and a.fill_is_defined == b.fill_is_defined
        if a.fill_is_defined:
            np.testing.assert_array_equal(np.asarray(a.to_dense()), np.asarray(b.to_dense()))
            return
        pa, pb = _entries(a), _entries(b)
        np.testing.assert_array_equal(pa[0], pb[0])
        np.testing.assert_array_equal(pa[1], pb[1])
        return
    np.testing.assert_array_equal(np.asarray(a), np.asarray(b))


def _entries(A):
    """(stored mask, dense values) of A's stored elements (its fill not read)."""
    H = sp.asarray(A, fill_value=np.zeros((), A.dtype)[()])
    C = H.to_layout("coo").coalesce()
    if A.ndim == 0:
        return np.array(C.nse > 0), np.asarray(C.values).reshape(-1)
    stored, values = np.zeros(A.shape, bool), np.zeros(A.shape, A.dtype)
    stored[tuple(np.asarray(C.indices))] = True
    values[tuple(np.asarray(C.indices))] = np.asarray(C.values)
    return stored, values


def _setitem(X):
    X = pickle.loads(pickle.dumps(X))
    X[0, 1] = 9.0
    X[2] = 4.0
    return X


def _iadd(X):
    X = pickle.loads(pickle.dumps(X))
    X += 1.0
    X *= X
    return X


def _npz(X):
    buf = io.BytesIO()
    sp.save_npz(buf, X)
    buf.seek(0)
    return sp.load_npz(buf)


#: name -> (the operation on a sparse array, its NumPy twin on the dense matrix or None)
OPERATIONS = {
    "negative": (lambda X: -X, lambda D: -D),
    "add_scalar": (lambda X: X + 1.5, lambda D: D + 1.5),
    "multiply_self": (lambda X: X * X, lambda D: D * D),
    "add_other": (lambda X: X + X.mT.mT * 2, lambda D: D + D * 2),
    "greater": (lambda X: X > 1.0, lambda D: D > 1.0),
    "sin": (lambda X: sp.sin(X), np.sin),
    "where": (lambda X: sp.where(X > 1.0, X, 0.5), lambda D: np.where(D > 1.0, D, 0.5)),
    "sum": (lambda X: sp.sum(X), np.sum),
    "sum_axis0": (lambda X: sp.sum(X, axis=0), lambda D: np.sum(D, axis=0)),
    "max_axis1": (lambda X: sp.max(X, axis=1), lambda D: np.max(D, axis=1)),
    "mean": (lambda X: sp.mean(X), np.mean),
    "count_nonzero": (lambda X: sp.count_nonzero(X), np.count_nonzero),
    "matvec": (lambda X: X @ np.arange(8.0), lambda D: D @ np.arange(8.0)),
    "matmat": (lambda X: X @ np.ones((8, 3)), lambda D: D @ np.ones((8, 3))),
    "spgemm": (lambda X: X @ X.mT, lambda D: D @ D.T),
    "transpose": (lambda X: X.mT, lambda D: D.T),
    "slice": (lambda X: X[1:5, ::2], lambda D: D[1:5, ::2]),
    "take_rows": (lambda X: X[[0, 2, 3]], lambda D: D[[0, 2, 3]]),
    "row": (lambda X: X[2], lambda D: D[2]),
    "reshape": (lambda X: sp.reshape(X, (-1,)), lambda D: D.reshape(-1)),
    "concat": (lambda X: sp.concat([X, X]), lambda D: np.concatenate([D, D])),
    "tril": (lambda X: sp.tril(X), np.tril),
    "astype": (lambda X: X.astype(np.float32), lambda D: D.astype(np.float32)),
    "to_coo": (lambda X: X.to_layout("coo"), lambda D: D),
    "to_csr": (lambda X: X.to_layout("csr"), lambda D: D),
    "to_csc": (lambda X: X.to_layout("csc"), lambda D: D),
    "setitem": (_setitem, None),
    "inplace": (_iadd, lambda D: (D + 1.0) * (D + 1.0)),
    "pickle": (lambda X: pickle.loads(pickle.dumps(X)), lambda D: D),
    "npz": (_npz, lambda D: D),
}


def _run(f, X):
    try:
        return f(X), None
    except (TypeError, ValueError) as e:  # refusals (an undefined fill's rules) must match too
        return None, type(e)


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("fill", FILLS, ids=FILL_IDS)
def test_every_operation_as_on_written_out_values(layout, fill):
    _battery(layout, fill, None)


@pytest.mark.parametrize(("layout", "fill"), [("csr", U), ("bsc", float("nan"))], ids=["csr-undefined", "bsc-nan"])
def test_every_operation_through_the_numba_kernels(layout, fill):
    _battery(layout, fill, "numba")


def _battery(layout, fill, backend):
    rng = np.random.default_rng(LAYOUTS.index(layout) * 5 + (0 if fill is U else 1 + int(np.nan_to_num(fill, nan=7))))
    S, T, D, _ = iso_pair(rng, layout, fill)
    before = np.array(S.values)
    answered = 0
    for name, (f, npf) in OPERATIONS.items():
        if backend is None:
            got, err = _run(f, S)
            want, werr = _run(f, T)
        else:
            with sp.use_backend(backend):
                got, err = _run(f, S)
                want, werr = _run(f, T)
        assert err == werr, (name, err, werr)
        if err is not None:
            continue
        answered += 1
        try:
            same(got, want)
            if npf is not None and fill is not U:
                dense = got.to_dense() if isinstance(got, sp.SparseArray) else got
                np.testing.assert_allclose(np.asarray(dense), npf(D), rtol=1e-6, equal_nan=True)
        except AssertionError as e:
            raise AssertionError(f"{name}: {e}") from None
    np.testing.assert_array_equal(S.values, before)  # nothing was written into the iso values
    assert sp.graph.is_iso(S)
    assert answered >= (12 if fill is U else len(OPERATIONS) - 2)


def test_values_are_read_only_and_counted_once():
    rng = np.random.default_rng(1)
    S, T, _, stored = iso_pair(rng, "csr", U)
    assert not S.values.flags.writeable
    with pytest.raises(ValueError, match="read-only"):
        S.values[0] = 1.0
    index_bytes = S.crow_indices.nbytes + S.col_indices.nbytes
    assert S.nbytes == index_bytes + 8  # one float64; the undefined fill holds nothing
    assert T.nbytes == index_bytes + 8 * stored.sum()
    B, _, _, _ = iso_pair(rng, "bsr", 0.0)
    assert B.nbytes == B.crow_indices.nbytes + B.col_indices.nbytes + 8 + 8  # one element, the fill


def test_structure_constructor():
    rng = np.random.default_rng(2)
    keep = pattern(rng)
    A = sp.COO(np.array(np.nonzero(keep)), rng.random(keep.sum()), shape=keep.shape, fill_value=-1.0)
    S = sp.graph.structure(A)
    assert S.dtype == np.bool_ and sp.graph.is_iso(S) and not S.fill_is_defined
    np.testing.assert_array_equal(S.to_dense(fill_value=False), keep)
    assert sp.graph.structure(A, 3).dtype == np.int64
    assert sp.graph.structure(A, 3, dtype=np.int8).dtype == np.int8
    dup = sp.COO([[0, 0, 1], [1, 1, 0]], [1.0, 2.0, 3.0], shape=(2, 2))  # a duplicate: one position
    assert sp.graph.structure(dup).nse == 2
    hybrid = sp.asarray(rng.random((5, 3)) * (rng.random((5, 1)) < 0.6), layout="coo", sparse_ndim=1)
    H = sp.graph.structure(hybrid, 1.0)
    assert sp.graph.is_iso(H) and H.dense_ndim == 1
    batched = sp.asarray(rng.random((2, 3, 4)), layout="csr")
    Bt = sp.graph.structure(batched, 7.0)
    assert sp.graph.is_iso(Bt) and Bt.batch_ndim == 1
    np.testing.assert_array_equal(Bt.to_dense(fill_value=0.0), np.full((2, 3, 4), 7.0))
    one = sp.COO([[0], [1]], [4.0], shape=(2, 2))
    assert not sp.graph.is_iso(sp.graph.structure(one))  # one entry: nothing to share
    assert not sp.graph.is_iso(sp.asarray(np.ones((3, 3)), layout="csr"))  # equal values stored one by one
    with pytest.raises(TypeError, match="expected a sparse array"):
        sp.graph.structure(np.eye(2))
    with pytest.raises(TypeError, match="scalar"):
        sp.graph.structure(A, np.ones(2))
    with pytest.raises(TypeError, match="expected a sparse array"):
        sp.graph.is_iso(np.eye(2))


def test_conversions_keep_iso_where_they_only_move_entries():
    rng = np.random.default_rng(3)
    for fill in FILLS:
        S, _, D, _ = iso_pair(rng, "coo", fill)
        for layout in ("csr", "csc", "coo"):
            C = S.to_layout(layout)
            assert sp.graph.is_iso(C), (layout, fill)
            same(C, S)
        if fill is not U:  # blocks padded with the fill: correct, no longer iso
            B = S.to_layout("bsr", blocksize=(2, 2))
            same(B, S)
            assert sp.graph.is_iso(B) == bool(np.all(D[np.isfinite(D)] == ISO) and B.nse * 4 == S.nse)
    unco = sp.COO([[0, 0, 1], [1, 1, 0]], np.broadcast_to(np.array([1.0]), (3,)), shape=(2, 2))
    assert unco.to_layout("csr").to_dense().tolist() == [[0.0, 2.0], [1.0, 0.0]]  # duplicates summed


@pytest.mark.parametrize("backend", ["numba", "generic"])
def test_graph_kernels_read_the_one_element(backend, monkeypatch):
    """matmul (mxv, vxm, mxm, masked), reduce, select, apply on iso operands give the dense
    reference's answer, and (numba) the kernels get the one element with the iso index mask."""
    seen = []
    operand = sk._operand

    def spy(values, read, Z):
        out = operand(values, read, Z)
        if values is not None and values.shape[0] > 1 and values.strides[0] == 0:
            seen.append(int(out[1]))
        return out

    monkeypatch.setattr(sk, "_operand", spy)
    rng = np.random.default_rng(4)
    for n, sr in enumerate(["plus_times", "min_plus", "max_first", "any_pair", "plus_second", "lor_land"]):
        layout = ("csr", "coo", "csc")[n % 3]
        Ag = ref.rand_graph(rng, 9, 7, 0.35, ref.F64)
        Bg = ref.rand_graph(rng, 7, 8, 0.35, ref.F64)
        A = sp.graph.structure(_as_sparse(Ag, layout), ISO, dtype=np.float64)
        B = sp.graph.structure(_as_sparse(Bg, "csr"), -1.5, dtype=np.float64)
        Ai, Bi = ref.Graph(Ag.S, np.where(Ag.S, ISO, 0.0)), ref.Graph(Bg.S, np.where(Bg.S, -1.5, 0.0))
        Z = ref.compute_dtype(sr, ref.F64, ref.F64)
        Mg = ref.rand_graph(rng, 9, 8, 0.4, ref.F64)
        Mk = sp.graph.structure(_as_sparse(Mg, "csr"))
        with sp.use_backend(backend):
            _check(sp.graph.matmul(A, B, sr), ref.ref_mxm(Ai, Bi, sr, Z), sr)
            _check(sp.graph.matmul(A, B, sr, mask=Mk), ref.ref_mxm(Ai, Bi, sr, Z, Mg.S, False), sr)
            _check(sp.graph.matmul(A, B, sr, mask=Mk, complement=True), ref.ref_mxm(Ai, Bi, sr, Z, Mg.S, True), sr)
            x = np.arange(7.0) - 2
            y = sp.graph.matmul(A, x, sr)
            rp, rv, _ = ref.ref_mxv(Ai, np.ones(7, bool), x, sr, Z, None, False)
            _check_vector(y, rp, rv, sr)
            xs = sp.graph.structure(sp.COO([[0, 3, 5]], [1.0, 1.0, 1.0], shape=(9,)), 2.0, dtype=np.float64)
            z = sp.graph.matmul(xs, A, sr)
            present = np.zeros(9, bool)
            present[[0, 3, 5]] = True
            rp, rv, _ = ref.ref_mxv(Ai.T(), present, np.full(9, 2.0), sr, Z, None, False, vxm=True)
            _check_vector(z, rp, rv, sr)
    with sp.use_backend(backend):
        for monoid, f in (("plus", np.sum), ("min", np.min), ("lor", np.any), ("times", np.prod)):
            for axis in (0, 1):
                r = sp.graph.reduce(A, monoid, axis=axis)
                stored, vals = _entries(r)
                np.testing.assert_array_equal(stored, Ai.S.any(axis=axis))
                for k in np.flatnonzero(stored):
                    line = (Ai.V[:, k][Ai.S[:, k]] if axis == 0 else Ai.V[k][Ai.S[k]])
                    np.testing.assert_allclose(vals[k], f(line))
            total = sp.graph.reduce(A, monoid)
            assert np.isclose(float(total.to_dense(fill_value=0)), f(Ai.V[Ai.S]))
        L = sp.graph.select(A, "tril")
        assert sp.graph.is_iso(L) or L.nse < 2
        np.testing.assert_array_equal(L.to_dense(fill_value=0.0), np.tril(Ai.V))
        G = sp.graph.select(A, "gt", 1.0)
        assert G.nse == A.nse
        none = sp.graph.select(A, "lt", 1.0)
        assert none.nse == 0
        idx = sp.graph.apply(A, "colindex")
        np.testing.assert_array_equal(_entries(idx)[1][Ai.S], np.nonzero(Ai.S)[1])
        tripled = sp.graph.apply(A, "times", 3.0)
        np.testing.assert_array_equal(tripled.to_dense(fill_value=0.0), 3 * Ai.V)
    if backend == "numba":
        assert seen and set(seen) == {0}  # every iso operand read through the iso index mask, no copy


def _as_sparse(G, layout):
    A = sp.asarray(sp.COO(np.array(np.nonzero(G.S)), np.ones(G.S.sum()), shape=G.S.shape), fill_value=U)
    return A.to_layout(layout)


def _check(X, want, sr):
    stored, vals = _entries(X)
    rS, rV, cands = want
    np.testing.assert_array_equal(stored, rS, err_msg=sr)
    if sr.startswith("any"):
        for (i, j), c in cands.items():
            assert any(vals[i, j] == x for x in c)
    else:
        np.testing.assert_allclose(vals[stored].astype(float), rV[stored].astype(float), rtol=1e-6)


def _check_vector(y, rp, rv, sr):
    stored, vals = _entries(y)
    np.testing.assert_array_equal(stored, rp, err_msg=sr)
    if not sr.startswith("any"):
        np.testing.assert_allclose(vals[stored].astype(float), rv[stored].astype(float), rtol=1e-6)


def test_kernel_entries_take_iso_values_directly():
    """kernels/cpu/semiring.py on raw parts: a zero-stride values array is the same as the values
    written out, and select gives an iso result back."""
    rng = np.random.default_rng(5)
    Ag = ref.rand_graph(rng, 12, 10, 0.3, ref.F64)
    crow, col, _ = Ag.parts()
    iso = np.broadcast_to(np.array([1.5]), (col.shape[0],))
    full = np.full(col.shape[0], 1.5)
    x = rng.random(10)
    for sr in ("plus_times", "min_plus", "max_second"):
        a, b = sk.mxv(crow, col, iso, x, None, sr), sk.mxv(crow, col, full, x, None, sr)
        np.testing.assert_array_equal(a[0], b[0])
        np.testing.assert_array_equal(a[1], b[1])
    out = sk.select(crow, col, iso, "ge", 1.0)
    assert out[2].strides == (0,) and out[2].shape == (col.shape[0],)
    for axis in (None, 0, 1):
        a = sk.reduce(crow, col, iso, "lor", axis, 10)
        b = sk.reduce(crow, col, full, "lor", axis, 10)
        np.testing.assert_array_equal(a[0], b[0])


@requires_gxx
def test_on_the_simulated_device():
    rng = np.random.default_rng(6)
    for fill in (U, 0.0):
        S, T, D, stored = iso_pair(rng, "csr", fill)
        Sd, Td = S.to_device("simulated"), T.to_device("simulated")
        assert sp.graph.is_iso(Sd) and Sd.nbytes == S.nbytes  # moved as one element
        for name in ("add_scalar", "multiply_self", "sum_axis0", "transpose", "slice", "to_csc", "spgemm"):
            f = OPERATIONS[name][0]
            got, err = _run(f, Sd)
            want, werr = _run(f, Td)
            assert err == werr, name
            if err is None:
                same(got.to_device("cpu"), want.to_device("cpu"))
        if fill is not U:
            y = Sd @ simulated.to_simulated(np.arange(8.0))
            np.testing.assert_allclose(y.get(), D @ np.arange(8.0))
        C = sp.graph.matmul(Sd, Sd.mT, "plus_times")
        want = (np.where(stored, ISO, 0) @ np.where(stored, ISO, 0).T)
        np.testing.assert_allclose(C.to_device("cpu").to_dense(fill_value=0.0), want)
        assert sp.graph.is_iso(sp.graph.select(Sd, "tril")) or stored.sum() < 2
        assert sp.graph.is_iso(Sd.to_device("cpu"))
        # the device kernels take the one element (an index mask), as the CPU kernels do
        from sparray.kernels.cuda.simulated import counting

        x, w = np.arange(float(S.shape[1])), np.arange(float(S.shape[0]))
        for sr in ("plus_times", "min_plus"):
            with counting() as c:
                y = sp.graph.matmul(Sd, simulated.to_simulated(x), sr)
                z = sp.graph.matmul(simulated.to_simulated(w), Sd, sr)
            assert sum(src == "semiring.cu" for src, _ in c.launches) >= 2, c.launches
            for got, want in ((y, sp.graph.matmul(T, x, sr)), (z, sp.graph.matmul(w, T, sr))):
                np.testing.assert_allclose(got.to_device("cpu").to_dense(fill_value=-1.0), want.to_dense(fill_value=-1.0))


def test_graphblas_iso_round_trip():
    gb = pytest.importorskip("graphblas")
    rng = np.random.default_rng(7)
    for layout in ("coo", "csr", "csc"):
        S, _, _, stored = iso_pair(rng, layout, U)
        M = sp.graph.to_graphblas(S)
        assert M.ss.is_iso
        back = sp.graph.from_graphblas(M, unpack=True)
        assert sp.graph.is_iso(back) and back.layout == ("csc" if layout == "csc" else "csr")
        assert back.nbytes == sum(c.nbytes for k, c in back._components().items() if k != "values") + 8
        np.testing.assert_array_equal(back.to_dense(fill_value=0.0), np.where(stored, ISO, 0.0))
        assert isinstance(M, gb.Matrix)
