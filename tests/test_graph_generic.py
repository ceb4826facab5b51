"""The generic (array-API) references of the graph kernels (``_engine/graph_generic.py``) against
the dense reference of ``tests/test_kernels_semiring.py`` (written from GraphBLAS's definitions,
the structure kept apart from the values), on the same cases the kernels meet and more: every
semiring named in the table, every mask mode, monoid, select rule and index op; with no numba
compile. Then the same calls on the simulated device."""

from __future__ import annotations

import numpy as np
import pytest

import array_api_compat.numpy as xnp
import test_kernels_semiring as ref
from sparray._engine import graph_generic as g
from sparray.kernels import semirings as T

DTYPES = (ref.F64, ref.I32, ref.I64, ref.F32, ref.BOOL)
CASES = [(sr, DTYPES[n % len(DTYPES)]) for n, sr in enumerate(sorted(T.SEMIRINGS))] + ref.MXV_CASES


@pytest.mark.parametrize("sr,dtype", CASES, ids=[f"{s}-{d.name}" for s, d in CASES])
def test_generic_products_against_the_reference(sr, dtype):
    rng = np.random.default_rng(abs(hash((sr, dtype.name, "generic"))) % 2**32)
    M, K, N = 13, 11, 9
    special = dtype.kind == "f" and sr.split("_")[0] in ("min", "max")
    monoid = sr.split("_")[0]
    A = ref.rand_graph(rng, M, K, 0.3, dtype, special=special)
    Z = ref.compute_dtype(sr, dtype, dtype)
    xp_, xv = ref.rand_bitmap(rng, K, dtype, special=special)
    for mask, mvals, comp, structural in ref._mask_modes(rng, M):
        y, yp = g.mxv_generic(xnp, *A.parts(), xv, xp_, sr, mask, mvals, comp, structural, K, None)
        if mask is None and comp:
            want = (np.zeros(M, bool), np.zeros(M, Z), [[]] * M)
        else:
            want = ref.ref_mxv(A, xp_, xv, sr, Z, ref._mbits(mask, mvals, structural), comp)
        ref.assert_result(y, yp, *want, monoid, Z)
    xp2, xv2 = ref.rand_bitmap(rng, M, dtype, special=special)
    y, yp = g.vxm_generic(xnp, *A.parts(), K, xv2, xp2, sr, None, None, False, True, None, None)
    ref.assert_result(y, yp, *ref.ref_mxv(A.T(), xp2, xv2, sr, Z, None, False, vxm=True), monoid, Z)
    idx = np.flatnonzero(xp2)
    y, yp = g.vxm_generic(xnp, *A.parts(), K, xv2[idx], None, sr, None, None, False, True, idx, None)
    ref.assert_result(y, yp, *ref.ref_mxv(A.T(), xp2, xv2, sr, Z, None, False, vxm=True), monoid, Z)
    B = ref.rand_graph(rng, K, N, 0.3, dtype, special=special)
    Mk = ref.rand_graph(rng, M, N, 0.4, ref.F64)
    ref.assert_matrix(g.mxm_generic(xnp, *A.parts(), *B.parts(), N, sr, None, False, True, None), (M, N),
                      ref.ref_mxm(A, B, sr, Z), sr, Z)
    valued = Mk.S & (Mk.V != 0)
    for mask, comp, structural, dense in (((Mk.crow, Mk.col), False, True, Mk.S), ((Mk.crow, Mk.col), True, True, Mk.S),
                                          ((Mk.crow, Mk.col, Mk.values), False, False, valued)):
        out = g.mxm_generic(xnp, *A.parts(), *B.parts(), N, sr, mask, comp, structural, None)
        ref.assert_matrix(out, (M, N), ref.ref_mxm(A, B, sr, Z, dense, comp), sr, Z)
    crow, col, values = g.mxm_generic(xnp, *A.parts(), *B.parts(), N, sr, None, True, True, None)
    assert int(crow[-1]) == 0 and col.size == 0


@pytest.mark.parametrize("monoid,dtype", ref.REDUCE_CASES, ids=[f"{m}-{d.name}" for m, d in ref.REDUCE_CASES])
def test_generic_reductions_select_apply(monoid, dtype):
    rng = np.random.default_rng(abs(hash((monoid, dtype.name, "generic"))) % 2**32)
    A = ref.rand_graph(rng, 12, 10, 0.3, dtype, special=monoid in ("min", "max"))
    Z = ref.BOOL if monoid in ("lor", "land") else dtype
    y, yp = g.reduce_generic(xnp, *A.parts(), monoid, 1, 10, None)
    cands = [[A.value(i, k, Z) for k in range(10) if A.S[i, k]] for i in range(12)]
    want_v = np.array([ref.ref_reduce(monoid, c, Z) if c else Z.type(0) for c in cands], dtype=Z)
    ref.assert_result(y, yp, A.S.any(axis=1), want_v, cands, monoid, Z)
    y, yp = g.reduce_generic(xnp, *A.parts(), monoid, 0, 10, None)
    cands = [[A.value(i, k, Z) for i in range(12) if A.S[i, k]] for k in range(10)]
    want_v = np.array([ref.ref_reduce(monoid, c, Z) if c else Z.type(0) for c in cands], dtype=Z)
    ref.assert_result(y, yp, A.S.any(axis=0), want_v, cands, monoid, Z)
    s, present = g.reduce_generic(xnp, *A.parts(), monoid, None, 10, None)
    everything = [v for c in cands for v in c]
    assert bool(present) == bool(everything)
    if monoid != "any" and everything:
        np.testing.assert_allclose(float(s), float(ref.ref_reduce(monoid, everything, Z)), rtol=1e-5, equal_nan=True)
    for rule, thunk in ref.SELECT_CASES:
        crow, col, values = g.select_generic(xnp, *A.parts(), rule, thunk)
        i = np.repeat(np.arange(12), np.diff(A.crow))
        t = thunk if rule in T.POSITIONAL_RULES else dtype.type(thunk)  # the thunk in the values' dtype
        keep = ref.ref_keep(rule, i, A.col, A.values, t)
        np.testing.assert_array_equal(col, A.col[keep])
        np.testing.assert_array_equal(values, A.values[keep])
        np.testing.assert_array_equal(crow, np.concatenate([[0], np.cumsum(np.bincount(i[keep], minlength=12))]))
    for op in T.INDEX_OPS:
        i = np.repeat(np.arange(12), np.diff(A.crow))
        want = {"rowindex": i, "colindex": A.col, "diagindex": A.col - i}[op] + 2
        np.testing.assert_array_equal(g.apply_index_generic(xnp, *A.parts(), op, 2, None), want)


def test_generic_runs_on_the_simulated_device():
    from sparray.kernels.cuda import simulated

    rng = np.random.default_rng(1)
    A = ref.rand_graph(rng, 12, 10, 0.3, ref.F64)
    B = ref.rand_graph(rng, 10, 8, 0.3, ref.F64)
    sim = simulated.array_api
    dev = [simulated.to_simulated(a) for a in (*A.parts(), *B.parts())]
    host = g.mxm_generic(xnp, *A.parts(), *B.parts(), 8, "min_plus", None, False, True, None)
    on_device = g.mxm_generic(sim, *dev, 8, "min_plus", None, False, True, None)
    for a, b in zip(host, on_device):
        np.testing.assert_array_equal(a, b.get())
    y1 = g.mxv_generic(xnp, *A.parts(), np.ones(10), None, "plus_times", None, None, False, True, None, None)
    y2 = g.mxv_generic(sim, *dev[:3], simulated.to_simulated(np.ones(10)), None, "plus_times", None, None, False, True, None, None)
    np.testing.assert_allclose(y1[0], y2[0].get(), equal_nan=True)
    np.testing.assert_array_equal(y1[1], y2[1].get())
