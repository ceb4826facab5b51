"""sparray.graph's public functions (matmul with semirings, masks, accumulate and replace;
reduce; select; apply; ewise_add/mult/union) against the dense reference of
``test_kernels_semiring.py`` (structure apart from values), for every layout and fill (the fill is
never read), on the simulated device too, and against python-graphblas when it is installed."""

from __future__ import annotations

import numpy as np
import pytest

import sparray as sp
import test_kernels_semiring as ref
from cuda_testing import requires_gxx
from sparray.kernels.cuda import simulated

U = sp.undefined
LAYOUTS = ["coo", "csr", "csc"]
FILLS = [U, 0.0, float("nan")]
SEMIRINGS = ["plus_times", "min_plus", "max_plus", "min_times", "max_times", "plus_pair", "any_pair", "min_first",
             "min_second", "plus_second", "lor_land", "land_lor", "any_secondi"]  # fmt: skip


def as_sparse(G, layout, fill, dtype):
    """The reference graph G as a sparray array of ``layout`` whose stored entries are G's edges."""
    idx = np.nonzero(G.S)
    values = np.ones(len(idx[0]), dtype) if G.V is None else G.V[G.S].astype(dtype)
    A = sp.asarray(sp.COO(np.array(idx), values, shape=G.S.shape), fill_value=U)
    A = A.to_layout(layout)
    if fill is not U:
        A = sp.asarray(A, fill_value=fill)
    return A


def structure(X):
    """(present, values) of a result: its stored entries (an undefined fill)."""
    assert not X.fill_is_defined
    H = X.to_device("cpu") if X.device != "cpu" else X
    C = H.to_layout("coo").coalesce()
    S = np.zeros(X.shape, bool)
    V = np.zeros(X.shape, np.asarray(C.values).dtype)
    S[tuple(np.asarray(C.indices))] = True
    V[tuple(np.asarray(C.indices))] = np.asarray(C.values)
    return S, V


def check_matrix(X, want, sr, Z):
    S, V = structure(X)
    rS, rV, cands = want
    np.testing.assert_array_equal(S, rS)
    if sr.split("_")[0] == "any":
        for (i, j), c in cands.items():
            assert any(V[i, j] == x for x in c)
    else:
        np.testing.assert_allclose(V[S].astype(np.float64), rV[S].astype(np.float64), rtol=1e-6, equal_nan=True)


@pytest.mark.parametrize("n", range(len(SEMIRINGS)), ids=SEMIRINGS)
def test_matmul_semirings_masks_layouts(n):
    sr = SEMIRINGS[n]
    layout = LAYOUTS[n % 3]
    dtype = ref.BOOL if sr.startswith(("lor", "land")) else (ref.F64, ref.I64, ref.F32)[n % 3]
    fill = FILLS[n % 3] if dtype.kind == "f" else (U, 0, 1)[n % 3]
    rng = np.random.default_rng(n)
    Ag = ref.rand_graph(rng, 9, 7, 0.35, dtype)
    Bg = ref.rand_graph(rng, 7, 8, 0.35, dtype)
    Mg = ref.rand_graph(rng, 9, 8, 0.4, ref.F64)
    A, B, Mk = as_sparse(Ag, layout, fill, dtype), as_sparse(Bg, LAYOUTS[(n + 1) % 3], fill, dtype), as_sparse(Mg, "csr", U, np.float64)
    Z = ref.compute_dtype(sr, dtype, dtype)
    check_matrix(sp.graph.matmul(A, B, sr), ref.ref_mxm(Ag, Bg, sr, Z), sr, Z)
    check_matrix(sp.graph.matmul(A, B, sr, mask=Mk), ref.ref_mxm(Ag, Bg, sr, Z, Mg.S, False), sr, Z)
    check_matrix(sp.graph.matmul(A, B, sr, mask=Mk, complement=True), ref.ref_mxm(Ag, Bg, sr, Z, Mg.S, True), sr, Z)
    valued = Mg.S & (Mg.V != 0)
    check_matrix(sp.graph.matmul(A, B, sr, mask=Mk, structural=False), ref.ref_mxm(Ag, Bg, sr, Z, valued, False), sr, Z)
    # vectors: A @ x (a dense x: every element present) and x @ A with a sparse x
    x = ref.rand_values(rng, 7, dtype)
    y = sp.graph.matmul(A, x, sr)
    rp, rv, cands = ref.ref_mxv(Ag, np.ones(7, bool), x, sr, Z, None, False)
    S, V = structure(y)
    np.testing.assert_array_equal(S, rp)
    if not sr.startswith("any"):
        np.testing.assert_allclose(V[S].astype(float), rv[S].astype(float), rtol=1e-6, equal_nan=True)
    xs_present = rng.random(9) < 0.5
    xs_values = ref.rand_values(rng, 9, dtype)
    xs = sp.asarray(sp.COO(np.array([np.flatnonzero(xs_present)]), xs_values[xs_present], shape=(9,)), fill_value=U)
    z = sp.graph.matmul(xs, A, sr)
    rp, rv, _ = ref.ref_mxv(Ag.T(), xs_present, xs_values, sr, Z, None, False, vxm=True)
    S, V = structure(z)
    np.testing.assert_array_equal(S, rp)
    if not sr.startswith("any"):
        np.testing.assert_allclose(V[S].astype(float), rv[S].astype(float), rtol=1e-6, equal_nan=True)


@pytest.mark.parametrize("layout,fill", [(lay, f) for lay in LAYOUTS for f in (U, 1.5)])
def test_push_and_pull_give_the_same_vector(layout, fill):
    """Each direction of a matrix-vector product (forced, and picked by the frontier's density)
    against the dense reference of the stored entries (a defined fill is never read), a sparse and
    a dense x, masked; the transpose a layout lacks is built once and kept."""
    from sparray.graph import _parts

    rng = np.random.default_rng(31)
    Ag = ref.rand_graph(rng, 40, 33, 0.15, ref.F64)
    A = as_sparse(Ag, layout, fill, np.float64)
    for sr in ("plus_times", "min_first", "any_secondi", "plus_minus"):
        Z = ref.compute_dtype(sr, ref.F64, ref.F64)
        for side, n_in, n_out in (("mxv", 33, 40), ("vxm", 40, 33)):
            G = Ag if side == "mxv" else Ag.T()
            for density in (0.02, 0.5, None):  # a sparse frontier, a dense-ish one, a dense x
                present = np.ones(n_in, bool) if density is None else rng.random(n_in) < density
                values = ref.rand_values(rng, n_in, ref.F64)
                x = values if density is None else sp.asarray(
                    sp.COO(np.array([np.flatnonzero(present)]), values[present], shape=(n_in,)), fill_value=U)
                mask = rng.random(n_out) < 0.6
                want = ref.ref_mxv(G, present, values, sr, Z, mask, False, vxm=side == "vxm")
                for direction in ("auto", "push", "pull"):
                    call = (lambda: sp.graph.matmul(A, x, sr, mask=mask, direction=direction)) if side == "mxv" else (
                        lambda: sp.graph.matmul(x, A, sr, mask=mask, direction=direction))
                    S, V = structure(call())
                    np.testing.assert_array_equal(S, want[0], err_msg=f"{sr} {side} {density} {direction}")
                    if not sr.startswith("any"):
                        np.testing.assert_allclose(V[S], want[1][S], rtol=1e-12, err_msg=f"{sr} {side} {direction}")
    if layout in ("csr", "csc"):
        assert _parts._TRANSPOSED.get(A.col_indices if layout == "csr" else A.row_indices) is not None
    with pytest.raises(ValueError, match="direction"):
        sp.graph.matmul(A, np.ones(33), direction="sideways")


def test_accumulate_replace_and_out():
    rng = np.random.default_rng(20)
    Ag, Bg, Cg, Mg = (ref.rand_graph(rng, 6, 6, 0.4, ref.F64) for _ in range(4))
    A, B, C, Mk = (as_sparse(g, "csr", U, np.float64) for g in (Ag, Bg, Cg, Mg))
    Tv = ref.ref_mxm(Ag, Bg, "plus_times", ref.F64)
    Ts, Tvals = Tv[0], Tv[1]
    for accumulate in (None, "plus", "min"):
        for replace in (False, True):
            got = sp.graph.matmul(A, B, mask=Mk, accumulate=accumulate, replace=replace, out=C)
            S, V = structure(got)
            inside = Mg.S
            want_S = np.zeros((6, 6), bool)
            want_V = np.zeros((6, 6))
            for i in range(6):
                for j in range(6):
                    c, t = Cg.S[i, j], Ts[i, j]
                    if inside[i, j]:
                        if accumulate is None:
                            want_S[i, j], want_V[i, j] = t, Tvals[i, j]
                        elif c and t:
                            f = np.add if accumulate == "plus" else np.minimum
                            want_S[i, j], want_V[i, j] = True, f(Cg.V[i, j], Tvals[i, j])
                        elif c or t:
                            want_S[i, j], want_V[i, j] = True, Cg.V[i, j] if c else Tvals[i, j]
                    elif c and not replace:
                        want_S[i, j], want_V[i, j] = True, Cg.V[i, j]
            np.testing.assert_array_equal(S, want_S, err_msg=f"{accumulate} {replace}")
            np.testing.assert_allclose(V[S], want_V[S])


@pytest.mark.parametrize("layout", LAYOUTS)
def test_reduce_select_apply_ewise(layout):
    rng = np.random.default_rng(len(layout))
    Ag = ref.rand_graph(rng, 8, 7, 0.4, ref.F64)
    Bg = ref.rand_graph(rng, 8, 7, 0.4, ref.F64)
    A, B = as_sparse(Ag, layout, U, np.float64), as_sparse(Bg, layout, 1.5, np.float64)
    for monoid, f in (("plus", np.sum), ("max", np.max), ("min", np.min), ("times", np.prod)):
        for axis in (0, 1):
            S, V = structure(sp.graph.reduce(A, monoid, axis=axis))
            np.testing.assert_array_equal(S, Ag.S.any(axis=axis))
            for k in np.flatnonzero(S):
                line = Ag.V[:, k][Ag.S[:, k]] if axis == 0 else Ag.V[k][Ag.S[k]]
                np.testing.assert_allclose(V[k], f(line))
        total = sp.graph.reduce(A, monoid)
        assert total.nse == 1 and np.isclose(float(total.to_dense(fill_value=0)), f(Ag.V[Ag.S]))
    S, V = structure(sp.graph.select(A, "triu", 1))
    np.testing.assert_array_equal(S, np.triu(Ag.S, 1))
    S, V = structure(sp.graph.select(A, "gt", 0.0))
    np.testing.assert_array_equal(S, Ag.S & (Ag.V > 0))
    S, V = structure(sp.graph.apply(A, "rowindex", 1))
    np.testing.assert_array_equal(V[S], (np.nonzero(Ag.S)[0] + 1))
    S, V = structure(sp.graph.apply(A, "times", 3.0))
    np.testing.assert_allclose(V[S], 3 * Ag.V[Ag.S])
    S, V = structure(sp.graph.ewise_add(A, B))
    np.testing.assert_array_equal(S, Ag.S | Bg.S)
    np.testing.assert_allclose(V[S], np.where(Ag.S & Bg.S, Ag.V + Bg.V, np.where(Ag.S, Ag.V, Bg.V))[S])
    S, V = structure(sp.graph.ewise_mult(A, B, "minus"))
    np.testing.assert_array_equal(S, Ag.S & Bg.S)
    S, V = structure(sp.graph.ewise_union(A, B, "minus", 10.0, 20.0))
    np.testing.assert_allclose(V[S], (np.where(Ag.S, Ag.V, 10.0) - np.where(Bg.S, Bg.V, 20.0))[S])


def test_bad_input():
    A = sp.asarray(np.eye(3), layout="csr")
    with pytest.raises(ValueError, match="unknown semiring"):
        sp.graph.matmul(A, A, "plus_sideways")
    with pytest.raises(ValueError, match="not aligned"):
        sp.graph.matmul(A, sp.asarray(np.eye(2), layout="csr"))
    with pytest.raises(ValueError, match="mask has shape"):
        sp.graph.matmul(A, A, mask=sp.asarray(np.eye(2)))
    with pytest.raises(ValueError, match="unknown rule"):
        sp.graph.select(A, "sideways")
    with pytest.raises(ValueError, match="needs a thunk"):
        sp.graph.select(A, "gt")
    with pytest.raises(ValueError, match="unknown monoid"):
        sp.graph.reduce(A, "median")


@requires_gxx
def test_on_the_simulated_device():
    rng = np.random.default_rng(30)
    Ag, Bg = ref.rand_graph(rng, 8, 8, 0.35, ref.F64), ref.rand_graph(rng, 8, 8, 0.35, ref.F64)
    A, B = (as_sparse(g, "csr", U, np.float64).to_device("simulated") for g in (Ag, Bg))
    C = sp.graph.matmul(A, B, "min_plus", mask=A)
    assert simulated.is_simulated(C.values)
    check_matrix(C, ref.ref_mxm(Ag, Bg, "min_plus", ref.F64, Ag.S, False), "min_plus", ref.F64)
    y = sp.graph.matmul(A, simulated.to_simulated(np.ones(8)), "plus_times")
    S, _ = structure(y)
    np.testing.assert_array_equal(S, Ag.S.any(axis=1))
    r = sp.graph.reduce(A, "max", axis=0)
    np.testing.assert_array_equal(structure(r)[0], Ag.S.any(axis=0))


def test_against_python_graphblas():
    gb = pytest.importorskip("graphblas")
    rng = np.random.default_rng(40)
    Ag, Bg = ref.rand_graph(rng, 10, 10, 0.3, ref.F64), ref.rand_graph(rng, 10, 10, 0.3, ref.F64)
    A, B = as_sparse(Ag, "csr", U, np.float64), as_sparse(Bg, "csr", U, np.float64)

    def to_gb(G):
        r, c = np.nonzero(G.S)
        return gb.Matrix.from_coo(r, c, G.V[G.S], nrows=10, ncols=10)

    for sr in ("min_plus", "plus_times", "max_second"):
        C = getattr(gb.semiring, sr)(to_gb(Ag) @ to_gb(Bg)).new()
        r, c, v = C.to_coo()
        S, V = structure(sp.graph.matmul(A, B, sr))
        assert S.sum() == len(r) and S[r, c].all()
        np.testing.assert_allclose(V[r, c], v)
