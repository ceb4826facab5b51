"""The CUDA graph kernels (kernels/cuda/semiring.cu and its launcher semiring.py), emulated in CI
and on CuPy where a GPU is, against the dense reference of ``test_kernels_semiring.py`` (structure
apart from values, written from GraphBLAS's definitions) and the generic references of
``_engine/graph_generic.py``: every monoid on every value type the kernels are built for, every
multiply op, every mask mode (structural, valued, complemented), iso operands, empty rows, NaN and
infinities under min and max, int32 and int64 indices; the Gustavson products' hash and dense
tables, their sort after the kernel and their batches; reductions, select and apply_index; bad
input with the numba kernels' messages. Then sparray.graph's public functions on the simulated
device, their syncs counted.

NVRTC compiles every instantiation of semiring.cu in test_cuda_nvrtc.py (one call per source);
:func:`test_the_cases_launch_every_instantiation` checks that the cases here run each of them."""

from __future__ import annotations

import numpy as np
import pytest

import array_api_compat.numpy as xnp
import sparray as sp
import test_kernels_semiring as ref
from cuda_testing import DEVICES, requires_gxx, to_device, to_host
from sparray._engine import graph_generic as g
from sparray.kernels import KernelDeclined
from sparray.kernels import semirings as T
from sparray.kernels.cuda import semiring as cu
from sparray.kernels.cuda import spgemm as cuda_spgemm
from sparray.kernels.cuda.simulated import counting, to_simulated

pytestmark = requires_gxx

BOOL, I32, I64, F32, F64 = ref.BOOL, ref.I32, ref.I64, ref.F32, ref.F64


def _product_cases():
    """Each (monoid, value type) the kernels are built for, with the multiply ops that read values in
    turn; each positional op (integer results) and ``pair`` with a monoid in turn; the issue's ones."""
    reading = [m for m, op in T.MULTIPLIES.items() if op.reads != "none"]
    cases = []
    for dtype in (F64, I32, F32, I64):
        for monoid in ("plus", "times", "min", "max", "any"):
            cases.append((f"{monoid}_{reading[len(cases) % len(reading)]}", dtype))
    cases += [(f"{m}_{op}", BOOL) for m, op in (("lor", "plus"), ("land", "minus"), ("any", "div"), ("plus", "min"))]
    others = [m for m, op in T.MULTIPLIES.items() if op.reads == "none"]
    monoids = ("min", "any", "plus", "max", "times")
    cases += [(f"{monoids[n % 5]}_{op}", (F64, I32, BOOL)[n % 3]) for n, op in enumerate(others)]
    cases += [("lor_land", I32), ("land_lor", F64), ("min_plus", F32), ("plus_pair", F64), ("any_secondi", F64)]
    return cases


PRODUCT_CASES = _product_cases()


def test_the_cases_launch_every_instantiation():
    """The cases below reach every (monoid functor, value type) pair of NAME_EXPRESSIONS, and every
    multiply op: each compiled instantiation (test_cuda_nvrtc) is also run here."""
    reached, ops = set(), set()
    for sr, dtype in PRODUCT_CASES:
        s = T.semiring(sr)
        Z = T.result_dtype(s, dtype, dtype)
        reached.add((cu._monoid("test", s.monoid, Z), cu.c_type(Z)))
        ops.add(s.multiply.name)
    assert reached == set(cu.MONOID_TYPES)
    assert ops == set(T.MULTIPLIES)
    names = cu.NAME_EXPRESSIONS
    assert len(names) == len(set(names)) and all(f"sr_push<{m}, {t}>" in names for m, t in cu.MONOID_TYPES)


def _d(device, *arrays):
    return [None if a is None else to_device(a, device) for a in arrays]


def _h(*arrays):
    return [to_host(a) for a in arrays]


def _parts(G, device, idx):
    crow, col, values = G.parts(idx)
    return _d(device, crow, col, values)


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("sr,dtype", PRODUCT_CASES, ids=[f"{s}-{d.name}" for s, d in PRODUCT_CASES])
def test_products_against_the_reference(device, sr, dtype):
    rng = np.random.default_rng(abs(hash((sr, dtype.name, "cuda"))) % 2**32)
    monoid = sr.split("_")[0]
    special = dtype.kind == "f" and monoid in ("min", "max")
    idx = (np.int32, np.int64)[len(sr) % 2]
    M, K, N = 13, 11, 9
    A = ref.rand_graph(rng, M, K, 0.3, dtype, special=special)
    A_iso = ref.rand_graph(rng, M, K, 0.3, dtype, iso=True)
    Z = ref.compute_dtype(sr, dtype, dtype)
    # y<mask> = A @ x, pull: every mask mode, x with absent elements; an iso A with a full x
    x_present, x = ref.rand_bitmap(rng, K, dtype, special=special)
    for mask, mvals, comp, structural in ref._mask_modes(rng, M):
        y, yp = _h(*cu.semiring_mxv(*_parts(A, device, idx), *_d(device, x, x_present), sr, *_d(device, mask, mvals), comp,
                                    structural, K, None))
        if mask is None and comp:
            want = (np.zeros(M, bool), np.zeros(M, Z), [[]] * M)
        else:
            want = ref.ref_mxv(A, x_present, x, sr, Z, ref._mbits(mask, mvals, structural), comp)
        ref.assert_result(y, yp, *want, monoid, Z)
    Z_iso = ref.compute_dtype(sr, None, dtype)
    y, yp = _h(*cu.semiring_mxv(*_parts(A_iso, device, idx), *_d(device, x, None), sr, None, None, False, True, None, None))
    ref.assert_result(y, yp, *ref.ref_mxv(A_iso, np.ones(K, bool), x, sr, Z_iso, None, False), monoid, Z_iso)
    # y<mask> = x @ A, push: a sparse x in any order, and a bitmap x; masks checked before each product
    x2_present, x2 = ref.rand_bitmap(rng, M, dtype, special=special)
    frontier = rng.permutation(np.flatnonzero(x2_present))
    for mask, mvals, comp, structural in ref._mask_modes(rng, K)[1:5]:
        mb = ref._mbits(mask, mvals, structural)
        want = ref.ref_mxv(A.T(), x2_present, x2, sr, Z, mb, comp, vxm=True)
        y, yp = _h(*cu.semiring_vxm(*_parts(A, device, idx), K, *_d(device, x2[frontier], None), sr, *_d(device, mask, mvals),
                                    comp, structural, to_device(frontier, device), None))
        ref.assert_result(y, yp, *want, monoid, Z)
        y, yp = _h(*cu.semiring_vxm(*_parts(A, device, idx), K, *_d(device, x2, x2_present), sr, *_d(device, mask, mvals),
                                    comp, structural, None, None))
        ref.assert_result(y, yp, *want, monoid, Z)
    # C<M> = A @ B: tables (no mask, complement) and the mask's slots (structural, valued); an iso B
    B = ref.rand_graph(rng, K, N, 0.3, dtype, special=special)
    Mk = ref.rand_graph(rng, M, N, 0.4, F64)
    valued = Mk.S & (Mk.V != 0)
    m2, m3 = _d(device, Mk.crow, Mk.col), _d(device, Mk.crow, Mk.col, Mk.values)
    for mask, comp, structural, dense in ((None, False, True, None), (m2, False, True, Mk.S), (m2, True, True, Mk.S),
                                          (m3, False, False, valued), (m3, True, False, valued)):
        out = _h(*cu.semiring_mxm(*_parts(A, device, idx), *_parts(B, device, idx), N, sr, mask, comp, structural, None))
        ref.assert_matrix(out, (M, N), ref.ref_mxm(A, B, sr, Z, dense, comp), sr, Z)
        assert out[0].dtype == np.int32 and out[1].dtype == np.int32
    B_iso = ref.rand_graph(rng, K, N, 0.3, dtype, iso=True)
    Z_iso = ref.compute_dtype(sr, dtype, None)
    out = _h(*cu.semiring_mxm(*_parts(A, device, idx), *_parts(B_iso, device, idx), N, sr, m2, False, True, None))
    ref.assert_matrix(out, (M, N), ref.ref_mxm(A, B_iso, sr, Z_iso, Mk.S, False), sr, Z_iso)


@pytest.mark.parametrize("device", DEVICES)
def test_products_match_the_generic_references(device):
    """Bit for bit where the order of the products cannot matter (integers, min/max, the bool
    monoids), mixed index dtypes (int64 pointers, int32 columns), pointers that start after 0."""
    rng = np.random.default_rng(11)
    for sr, dtype in (("min_plus", I64), ("plus_times", I32), ("max_second", F64), ("lor_land", F64), ("min_firstj", F32)):
        A = ref.rand_graph(rng, 17, 12, 0.3, dtype, special=dtype.kind == "f")
        B = ref.rand_graph(rng, 12, 10, 0.3, dtype, special=dtype.kind == "f")
        crow, col, values = A.crow.astype(np.int64), A.col.astype(np.int32), A.values
        x = ref.rand_values(rng, 12, dtype)
        want = g.mxv_generic(xnp, crow, col, values, x, None, sr, None, None, False, True, 12, None)
        got = _h(*cu.semiring_mxv(*_d(device, crow, col, values, x), None, sr, None, None, False, True, 12, None))
        for a, b in zip(got, want):
            np.testing.assert_array_equal(a, b)
        frontier = np.array([5, 0, 16, 3])
        want = g.vxm_generic(xnp, crow, col, values, 12, x[:4].copy(), None, sr, None, None, False, True, frontier, None)
        got = _h(*cu.semiring_vxm(*_d(device, crow, col, values), 12, *_d(device, x[:4].copy()), None, sr, None, None,
                                  False, True, to_device(frontier, device), None))
        for a, b in zip(got, want):
            np.testing.assert_array_equal(a, b)
        want = g.mxm_generic(xnp, crow, col, values, *B.parts(np.int32), 10, sr, None, False, True, None)
        got = _h(*cu.semiring_mxm(*_d(device, crow, col, values), *_parts(B, device, np.int32), 10, sr, None, False, True,
                                  None))
        for a, b in zip(got, want):
            np.testing.assert_array_equal(a, b)
    # pointers need not start at 0 (entries outside crow[0]:crow[-1] are not read), as numba's
    crow, col, values = np.array([1, 2, 4]), np.array([9, 0, 1, 2, 9]), np.array([5.0, 1.0, 2.0, 3.0, 5.0])
    y, yp = _h(*cu.semiring_mxv(*_d(device, crow, col, values, np.array([1.0, 10.0, 100.0])), None, "plus_times", None,
                                None, False, True, None, None))
    assert y.tolist() == [1.0, 320.0] and yp.all()


def _dense_min_plus(A, B):
    """(structure, values) of A @ B over min_plus in NumPy (broadcast over k), NaN as fmin has it."""
    prod = np.where(A.S[:, :, None] & B.S[None, :, :], A.V[:, :, None] + B.V[None, :, :], np.nan)
    return (A.S.astype(int) @ B.S.astype(int)) > 0, np.fmin.reduce(prod, axis=1)


@pytest.mark.parametrize("device", DEVICES)
def test_gustavson_tables_sorting_and_batches(device, monkeypatch):
    """Rows whose tables are dense (many products over few columns) next to hashed ones, a hub row;
    rows sorted in the kernel (by rank) and after it (RANK_SLOTS = 4), tables cut into batches
    (TABLE_BUDGET = 64: a first pass counts, a second one fills), masks on each; every one the same."""
    rng = np.random.default_rng(9)
    M, K = 30, 40
    A = ref.rand_graph(rng, M, K, 0.1, F64)
    A.S[M // 3, :30] = True  # a hub row of A
    A = ref.Graph(A.S, np.where(A.S, ref.rand_values(rng, (M, K), F64), 0))
    for N, density in ((500, 0.02), (12, 0.5)):
        B = ref.rand_graph(rng, K, N, density, F64)
        Mk = ref.rand_graph(rng, M, N, 0.3, F64)
        S, V = _dense_min_plus(A, B)
        runs = []
        for rank, budget in ((cu.RANK_SLOTS, cuda_spgemm.TABLE_BUDGET), (4, cuda_spgemm.TABLE_BUDGET), (4, 64)):
            monkeypatch.setattr(cu, "RANK_SLOTS", rank)
            monkeypatch.setattr(cuda_spgemm, "TABLE_BUDGET", budget)
            outs = [_h(*cu.semiring_mxm(*_parts(A, device, np.int64), *_parts(B, device, np.int32), N, "min_plus", mask,
                                        comp, True, None))
                    for mask, comp in ((None, False), (_d(device, Mk.crow, Mk.col), True))]  # fmt: skip
            for out, keep in zip(outs, (np.ones((M, N), bool), ~Mk.S)):
                got_S, got_V = ref.csr_dense(*out, (M, N), F64)
                np.testing.assert_array_equal(got_S, S & keep)
                np.testing.assert_array_equal(got_V[got_S], V[got_S])
            runs.append(outs)
        for outs in runs[1:]:
            for got, want in zip(outs, runs[0]):
                for a, b in zip(got, want):
                    np.testing.assert_array_equal(a, b)


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("monoid,dtype", ref.REDUCE_CASES, ids=[f"{m}-{d.name}" for m, d in ref.REDUCE_CASES])
def test_reductions_against_the_reference(device, monoid, dtype):
    rng = np.random.default_rng(abs(hash((monoid, dtype.name, "cuda-reduce"))) % 2**32)
    for iso in (False, True):
        A = ref.rand_graph(rng, 27, 22, 0.3, dtype, iso=iso, special=monoid in ("min", "max"))
        A.S[:, 3] = False  # an empty column too (and empty rows)
        A = ref.Graph(A.S, None if iso else np.where(A.S, A.V, 0).astype(dtype))
        Z = BOOL if monoid in ("lor", "land") else (I64 if iso else dtype)
        parts = _parts(A, device, (np.int32, np.int64)[iso])
        for axis, lines in ((1, [[A.value(i, k, Z) for k in range(22) if A.S[i, k]] for i in range(27)]),
                            (0, [[A.value(i, k, Z) for i in range(27) if A.S[i, k]] for k in range(22)])):
            y, yp = _h(*cu.graph_reduce(*parts, monoid, axis, 22, None))
            want = np.array([ref.ref_reduce(monoid, c, Z) if c else Z.type(0) for c in lines], dtype=Z)
            ref.assert_result(y, yp, np.array([bool(c) for c in lines]), want, lines, monoid, Z)
        s, present = _h(*cu.graph_reduce(*parts, monoid, None, 22, None))
        everything = [v for c in lines for v in c]
        assert s.dtype == Z and bool(present) == bool(everything)
        ref.assert_result(s.reshape(1), present.reshape(1), np.array([True]),
                          np.array([ref.ref_reduce(monoid, everything, Z)], Z), [everything], monoid, Z)
    # a reduction of everything over several partials (ALL_CHUNK entries each), and of nothing
    Z = BOOL if monoid in ("lor", "land") else dtype
    v = ref.rand_values(rng, 3 * cu.ALL_CHUNK + 5, dtype)
    crow, col = np.array([0, v.shape[0]]), np.zeros(v.shape[0], np.int64)
    s, present = _h(*cu.graph_reduce(*_d(device, crow, col, v), monoid, None, 1, None))
    vz = v if Z == dtype else v != 0
    ref.assert_result(s.reshape(1), present.reshape(1), np.array([True]), np.array([ref.ref_reduce(monoid, list(vz), Z)], Z),
                      [list(vz)], monoid, Z)
    s, present = _h(*cu.graph_reduce(*_d(device, np.zeros(4, np.int64), np.zeros(0, np.int64), v[:0]), monoid, None, 3, None))
    assert not present and s == 0


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("dtype", [F64, I32, BOOL, F32, I64], ids=lambda d: d.name)
def test_select_and_apply_index(device, dtype):
    rng = np.random.default_rng(5 + dtype.num)
    A = ref.rand_graph(rng, 12, 10, 0.35, dtype)
    if dtype == F64:
        A.V[A.S & (rng.random(A.S.shape) < 0.2)] = np.nan
        A = ref.Graph(A.S, A.V)
    idx = (np.int32, np.int64)[dtype.itemsize % 2]
    parts = _parts(A, device, idx)
    i = np.repeat(np.arange(12), np.diff(A.crow))
    for rule, thunk in ref.SELECT_CASES:
        crow, col, values = _h(*cu.graph_select(*parts, rule, thunk))
        t = thunk if rule in T.POSITIONAL_RULES else dtype.type(thunk)
        with np.errstate(invalid="ignore"):
            keep = ref.ref_keep(rule, i, A.col, A.values, t)
        assert crow.dtype == col.dtype == idx
        np.testing.assert_array_equal(crow, np.concatenate([[0], np.cumsum(np.bincount(i[keep], minlength=12))]))
        np.testing.assert_array_equal(col, A.col[keep])
        np.testing.assert_array_equal(values, A.values[keep])
    crow, col, values = cu.graph_select(*parts[:2], None, "eq", 1)  # iso: every value 1
    assert values is None and to_host(col).tolist() == A.col.tolist()
    for op, want in (("rowindex", i), ("colindex", A.col), ("diagindex", A.col - i)):
        for out_dtype in (None, np.int32):
            got = to_host(cu.graph_apply_index(*parts, op, -3, out_dtype))
            assert got.dtype == (out_dtype or np.int64)
            np.testing.assert_array_equal(got, want - 3)


#: (crow, col, numba's message, its message for A in A @ B); 3 columns, 3 rows of B
BAD_CSR = [
    ([0, 2, 1, 3], [0, 1, 2], "crow must be non-decreasing: crow[2] = 1 < crow[1] = 2",
     "a_crow must be non-decreasing: a_crow[2] = 1 < a_crow[1] = 2"),
    ([0, 1, 2, 5], [0, 1, 2], "crow[-1] = 5 exceeds len(col) = 3", "a_crow[-1] = 5 exceeds len(a_col) = 3"),
    ([-1, 1, 2, 3], [0, 1, 2], "crow[0] = -1 is negative", "a_crow[0] = -1 is negative"),
    ([0, 1, 2, 3], [0, 7, 2], "col[1] = 7 is out of range for 3 columns", "a_col[1] = 7 is out of range for 3 rows of B"),
]  # fmt: skip


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("case", range(len(BAD_CSR)))
def test_bad_input_raises_numbas_messages(device, case):
    import re

    crow, col, message, a_message = BAD_CSR[case]
    crow, col, v, x = _d(device, np.array(crow), np.array(col), np.ones(3), np.ones(3))
    calls = [("semiring mxv", message, lambda: cu.semiring_mxv(crow, col, v, x, None, "plus_times", None, None, False, True,
                                                                None, None)),
             ("semiring vxm", message, lambda: cu.semiring_vxm(crow, col, v, 3, x, None, "plus_times", None, None, False,
                                                                True, None, None)),
             ("semiring mxm", a_message, lambda: cu.semiring_mxm(crow, col, v, *_d(device, np.arange(4), np.arange(3), v), 3,
                                                                  "plus_times", None, False, True, None))]  # fmt: skip
    if "col[1]" not in message:  # reductions by rows, select and apply_index read no column as an index
        calls += [("graph reduce_rows", message, lambda: cu.graph_reduce(crow, col, v, "plus", 1, 3, None)),
                  ("graph select", message, lambda: cu.graph_select(crow, col, v, "tril", None)),
                  ("graph apply_index", message, lambda: cu.graph_apply_index(crow, col, v, "rowindex", 0, None))]
    for who, text, call in calls:
        with pytest.raises(ValueError, match=re.escape(f"{who}: {text}")):
            call()
    with pytest.raises(ValueError, match=re.escape("semiring vxm: x_indices[1] = 5 is out of range for the 3 rows of A")):
        cu.semiring_vxm(*_d(device, np.arange(4), np.arange(3)), v, 3, x[:2], None, "plus_times", None, None, False, True,
                        to_device(np.array([0, 5]), device), None)


@pytest.mark.parametrize("device", DEVICES)
def test_declines_and_argument_errors(device):
    crow, col, v = _d(device, np.array([0, 1]), np.array([0]), np.ones(1))
    with pytest.raises(KernelDeclined, match="complex128"):
        cu.semiring_mxv(crow, col, to_device(np.ones(1, np.complex128), device), None, None, "plus_times", None, None, False,
                        True, 1, None)
    with pytest.raises(KernelDeclined, match="cast them to one dtype"):
        cu.semiring_mxv(crow, col, v, to_device(np.ones(1, np.float32), device), None, "plus_times", None, None, False, True,
                        None, None)
    with pytest.raises(KernelDeclined, match="lor monoid over int64"):
        cu.semiring_mxv(crow, col, v, None, None, "lor_secondi", None, None, False, True, 1, None)
    with pytest.raises(ValueError, match="unknown semiring"):
        cu.semiring_mxm(crow, col, v, crow, col, v, 1, "plus_sideways", None, False, True, None)
    with pytest.raises(ValueError, match="the mask must have the shape of y"):
        cu.semiring_mxv(crow, col, v, None, None, "plus_times", to_device(np.ones(3, bool), device), None, False, True, 1,
                        None)
    with pytest.raises(ValueError, match="shapes do not match: the mask is"):
        cu.semiring_mxm(crow, col, v, crow, col, v, 1, "plus_times", _d(device, np.array([0, 0, 0]), np.zeros(0, int)),
                        False, True, None)
    with pytest.raises(ValueError, match="needs m_values"):
        cu.semiring_mxm(crow, col, v, crow, col, v, 1, "plus_times", (crow, col), False, False, None)
    with pytest.raises(ValueError, match="unknown rule"):
        cu.graph_select(crow, col, v, "sideways", None)
    with pytest.raises(ValueError, match="integer thunk"):
        cu.graph_select(crow, col, v, "tril", 0.5)
    with pytest.raises(KernelDeclined, match="int32 or int64"):
        cu.graph_apply_index(crow, col, v, "rowindex", 0, np.float64)
    with pytest.raises(ValueError, match="axis must be None, 0 or 1"):
        cu.graph_reduce(crow, col, v, "plus", 2, 1, None)
    # no mask, complemented: nothing is computed (and nothing launched)
    y, yp = _h(*cu.semiring_mxv(crow, col, v, None, None, "plus_times", None, None, True, True, 1, None))
    assert not yp.any()
    c = _h(*cu.semiring_mxm(crow, col, v, crow, col, v, 1, "plus_times", None, True, True, None))
    assert c[0].tolist() == [0, 0] and c[1].size == 0


# ---- the public path on the simulated device -------------------------------------------------------

U = sp.undefined


def _sparse(G, layout, fill, dtype):
    """The reference graph G as a sparray array of ``layout`` (its stored entries are G's edges)."""
    values = np.ones(int(G.S.sum()), dtype) if G.V is None else G.V[G.S].astype(dtype)
    A = sp.asarray(sp.COO(np.array(np.nonzero(G.S)), values, shape=G.S.shape), fill_value=U).to_layout(layout)
    return A if fill is U else sp.asarray(A, fill_value=fill)


def _stored(X):
    """(present, values) of an array's stored entries, on the host."""
    C = X.to_device("cpu").to_layout("coo").coalesce()
    S, V = np.zeros(X.shape, bool), np.zeros(X.shape, np.asarray(C.values).dtype)
    S[tuple(np.asarray(C.indices))] = True
    V[tuple(np.asarray(C.indices))] = np.asarray(C.values)
    return S, V


def _entries(X):
    """:func:`_stored` of a result that stayed on the simulated device, with an undefined fill."""
    assert not X.fill_is_defined and type(X.values).__name__ == "SimulatedArray"
    return _stored(X)


def _check(X, want, monoid):
    S, V = _entries(X)
    rS, rV, cands = want
    np.testing.assert_array_equal(S, rS)
    if monoid == "any":
        items = cands.items() if isinstance(cands, dict) else ((i, c) for i, c in enumerate(cands) if c)
        assert all(any(V[i] == c for c in cs) for i, cs in items)
    else:
        np.testing.assert_allclose(V[S].astype(float), rV[S].astype(float), rtol=1e-12, equal_nan=True)


#: the host reads one call makes with CSR operands on the simulated device (after a first call): an
#: unmasked product and the ones with a mask read the result's size, a vector or a reduction's result
#: its entries (sparray.graph's vector_result, _scalar), select the result's size; apply none
SYNCS = {"mxm": 1, "masked": 1, "masked_bt": 1, "complement": 1, "valued": 1, "mxv": 1, "vxm": 1, "reduce": 1, "select": 1, "apply": 0}


#: every semiring on CSR operands (their syncs counted), two of them on the other layouts, with fills
#: (never read by sparray.graph: undefined, 0, NaN, 1.5)
PUBLIC_CASES = [("min_plus", F64, "csr", U), ("plus_pair", F32, "csr", 0.0), ("lor_land", BOOL, "csr", U),
                ("any_secondi", I64, "csr", U), ("min_plus", F64, "csc", np.nan), ("plus_pair", F32, "coo", 1.5)]  # fmt: skip


@pytest.mark.parametrize("sr,dtype,layout,fill", PUBLIC_CASES, ids=[f"{c[0]}-{c[2]}" for c in PUBLIC_CASES])
def test_public_graph_functions_on_the_simulated_device(sr, dtype, layout, fill):
    rng = np.random.default_rng(abs(hash((layout, sr, "public"))) % 2**32)
    monoid = sr.split("_")[0]
    Ag, Bg, Mg = (ref.rand_graph(rng, m, n, 0.35, dtype) for m, n in ((9, 7), (7, 8), (9, 8)))
    A, B = (_sparse(G, layout, fill, dtype).to_device("simulated") for G in (Ag, Bg))
    Mk = _sparse(Mg, "csr", U, dtype).to_device("simulated")
    Bt = _sparse(Bg, "coo", fill, dtype).mT.to_layout("csr").to_device("simulated")
    Z = ref.compute_dtype(sr, dtype, dtype)
    valued = Mg.S & (Mg.V != 0)
    x_present, x = ref.rand_bitmap(rng, 7, dtype, full=True)
    frontier = sp.graph.matmul(A, to_simulated(x), "any_first")  # a sparse vector (of A's dtype) from a graph op
    f_present, f_values = _entries(frontier)
    calls = {
        "mxm": (lambda: sp.graph.matmul(A, B, sr), ref.ref_mxm(Ag, Bg, sr, Z)),
        "masked": (lambda: sp.graph.matmul(A, B, sr, mask=Mk), ref.ref_mxm(Ag, Bg, sr, Z, Mg.S, False)),
        "complement": (lambda: sp.graph.matmul(A, B, sr, mask=Mk, complement=True), ref.ref_mxm(Ag, Bg, sr, Z, Mg.S, True)),
        "valued": (lambda: sp.graph.matmul(A, B, sr, mask=Mk, structural=False), ref.ref_mxm(Ag, Bg, sr, Z, valued, False)),
        # B held as the transpose of a CSR (a CSC view), under a mask: semiring_mxm_dot
        "masked_bt": (lambda: sp.graph.matmul(A, Bt.mT, sr, mask=Mk), ref.ref_mxm(Ag, Bg, sr, Z, Mg.S, False)),
        "mxv": (lambda: sp.graph.matmul(A, to_simulated(x), sr), ref.ref_mxv(Ag, x_present, x, sr, Z, None, False)),
        "vxm": (lambda: sp.graph.matmul(frontier, A, sr), ref.ref_mxv(Ag.T(), f_present, f_values, sr, Z, None, False, vxm=True)),
    }  # fmt: skip
    for name, (call, want) in calls.items():
        call()  # a first call learns what the arrays keep
        with counting() as c:
            out = call()
        _check(out, want, monoid)
        assert any(src == "semiring.cu" for src, _ in c.launches), c.launches
        if layout == "csr":
            assert c.syncs == SYNCS[name], (name, c.sites)
    # reduce, select, apply
    for axis in (0, 1):
        with counting() as c:
            r = sp.graph.reduce(A, "max" if dtype != BOOL else "lor", axis=axis)
        lines = Ag.S.any(axis=axis)
        S, V = _entries(r)
        np.testing.assert_array_equal(S, lines)
        dense = np.where(Ag.S, Ag.V, -np.inf if dtype.kind == "f" else (False if dtype == BOOL else np.iinfo(dtype).min))
        np.testing.assert_array_equal(V[S], dense.max(axis=axis)[S])
        if layout == "csr":
            assert c.syncs == SYNCS["reduce"], c.sites
    with counting() as c:
        total = sp.graph.reduce(A, "plus" if dtype != BOOL else "lor")
    want = Ag.V[Ag.S].any() if dtype == BOOL else Ag.V[Ag.S].sum()
    assert total.nse == 1 and float(total.to_dense(fill_value=0)) == pytest.approx(float(want), rel=1e-6)
    assert c.syncs == 1 or layout != "csr", c.sites
    with counting() as c:
        s = sp.graph.select(A, "tril", 1)
    np.testing.assert_array_equal(_entries(s)[0], np.tril(Ag.S, 1))
    if layout == "csr":
        assert c.syncs == SYNCS["select"], c.sites
    with counting() as c:
        a = sp.graph.apply(A, "diagindex", 2)
    S, V = _entries(a)
    rows, cols = np.nonzero(Ag.S)
    np.testing.assert_array_equal(V[rows, cols], cols - rows + 2)
    if layout == "csr":
        assert c.syncs == SYNCS["apply"], c.sites


@pytest.mark.parametrize("layout", ["bsr", "bsc"])
def test_public_block_layouts_match_the_host(layout):
    """BSR and BSC operands on the simulated device give what the host gives (sparray.graph reads
    every element of a stored block as an entry, padding included, on either device)."""
    rng = np.random.default_rng(len(layout))
    Ag, Bg, Mg = (ref.rand_graph(rng, 8, 8, 0.3, F64) for _ in range(3))
    A, B, Mk = (sp.asarray(_sparse(G, "coo", 0.5, F64), layout=layout, blocksize=(2, 2)) for G in (Ag, Bg, Mg))
    x = ref.rand_values(rng, 8, F64)
    calls = [lambda A, B, Mk, x: sp.graph.matmul(A, B, "min_plus"),
             lambda A, B, Mk, x: sp.graph.matmul(A, B, "max_times", mask=Mk),
             lambda A, B, Mk, x: sp.graph.matmul(A, x, "min_plus"),
             lambda A, B, Mk, x: sp.graph.reduce(A, "min", axis=0),
             lambda A, B, Mk, x: sp.graph.select(A, "offdiag")]  # fmt: skip
    for call in calls:
        host = call(A, B, Mk, x)
        device = call(*(v.to_device("simulated") for v in (A, B, Mk)), to_simulated(x))
        (hS, hV), (dS, dV) = _stored(host), _entries(device)
        np.testing.assert_array_equal(dS, hS)
        np.testing.assert_array_equal(dV, hV)

