"""The graph kernels of sparray.kernels.cpu.semiring (semiring products with masks, monoid
reductions, select, apply_index) against a dense NumPy reference that implements each
semiring with the structure kept apart from the values (explicit zeros are edges), and against
python-graphblas (SuiteSparse:GraphBLAS) for a handful of cases when it is installed.

The semirings rotate across the cases (each (semiring, dtype) compiles once): the pull product's
cases meet every monoid, every multiply op and every dtype; the push, matrix and reduction
kernels share those op definitions (``_semiring_ops.py``), so their cases are a spread of monoids,
multiplies and dtypes over each kernel's own paths (CI pays a compile per case; the generic
references' tests, test_graph_generic.py, run every semiring)."""

import numpy as np
import pytest

from sparray.kernels import KernelDeclined
from sparray.kernels import semirings as table
from sparray.kernels.cpu import semiring as sk

BOOL, I32, I64, F32, F64 = (np.dtype(t) for t in (np.bool_, np.int32, np.int64, np.float32, np.float64))

# ---------------------------------------------------------------------------------------
# the dense reference: ops written from GraphBLAS's definitions, independent of the kernels
# ---------------------------------------------------------------------------------------

_BOOL_RENAME = {"plus": "lor", "times": "land", "min": "land", "max": "lor", "minus": "lxor", "div": "first"}


def _kind(Z):
    return {"b": "b", "i": "i", "f": "f"}[np.dtype(Z).kind]


def ref_mul(name, a, b, i, k, j, Z):
    if name.rstrip("1") in ("firsti", "firstj", "secondi", "secondj"):
        base = {"firsti": i, "firstj": k, "secondi": k, "secondj": j}[name.rstrip("1")]
        return np.int64(base + (1 if name.endswith("1") else 0))
    kind = _kind(Z)
    if kind == "b":
        name = _BOOL_RENAME.get(name, name)
    T = np.dtype(Z).type
    with np.errstate(all="ignore"):
        if name == "first":
            return a
        if name == "second":
            return b
        if name == "pair":
            return T(1)
        if name == "lxor":
            return T(bool(a) != bool(b))
        if name == "land":
            return T(bool(a) and bool(b))
        if name == "lor":
            return T(bool(a) or bool(b))
        if name == "times":
            return T(a * b)
        if name == "plus":
            return T(a + b)
        if name == "minus":
            return T(a - b)
        if name == "min":
            return T(np.fmin(a, b))
        if name == "max":
            return T(np.fmax(a, b))
        assert name == "div"
        if kind == "f":
            return T(a / b)
        info = np.iinfo(Z)
        a, b = int(a), int(b)
        if b == 0:
            return T(0 if a == 0 else (info.max if a > 0 else info.min))
        q = abs(a) // abs(b) * (1 if (a < 0) == (b < 0) else -1)  # truncation toward zero
        return np.array(q).astype(np.int64).astype(Z)[()]  # wraps (min // -1)


def ref_add(name, a, b, Z):
    kind = _kind(Z)
    if kind == "b":
        name = _BOOL_RENAME.get(name, name)
    T = np.dtype(Z).type
    with np.errstate(all="ignore"):
        return {
            "any": lambda: a,
            "plus": lambda: T(a + b),
            "times": lambda: T(a * b),
            "min": lambda: T(np.fmin(a, b)),
            "max": lambda: T(np.fmax(a, b)),
            "lor": lambda: T(bool(a) or bool(b)),
            "land": lambda: T(bool(a) and bool(b)),
        }[name]()


def ref_reduce(monoid, cands, Z):
    acc = cands[0]
    for v in cands[1:]:
        acc = ref_add(monoid, acc, v, Z)
    return acc


def compute_dtype(sr, a_dtype, b_dtype, dtype=None):
    mul = sr.split("_", 1)[1]
    if mul.rstrip("1") in ("firsti", "firstj", "secondi", "secondj"):
        return np.dtype(dtype or np.int64)
    if sr.split("_", 1)[0] in ("lor", "land"):
        return BOOL
    reads = {"first": (a_dtype,), "second": (b_dtype,), "pair": ()}.get(mul, (a_dtype, b_dtype))
    found = [d for d in reads if d is not None]
    return np.dtype(found[0]) if found else np.dtype(dtype or np.int64)


def as_z(values, Z):
    """An operand's values as the reference reads them (lor/land monoids: value != 0)."""
    if values is None:
        return None
    return (values != 0) if Z == BOOL and values.dtype != BOOL else values.astype(Z)


class Graph:
    """A matrix as its structure S (bool) and values V (iso: None), with its CSR parts."""

    def __init__(self, S, V):
        self.S, self.V = S, V
        self.crow = np.concatenate([[0], np.cumsum(S.sum(axis=1))]).astype(np.int64)
        self.col = np.nonzero(S)[1].astype(np.int64)
        self.values = None if V is None else np.ascontiguousarray(V[S])

    @property
    def shape(self):
        return self.S.shape

    def parts(self, idx=np.int64):
        return self.crow.astype(idx), self.col.astype(idx), self.values

    def value(self, i, k, Z):
        """A(i, k) as the semiring reads it in dtype Z (bool: value != 0)."""
        if self.V is None:
            return np.dtype(Z).type(1)
        with np.errstate(all="ignore"):
            v = self.V[i, k]
            return np.bool_(v != 0) if np.dtype(Z) == BOOL else np.array(v).astype(Z)[()]

    def T(self):
        return Graph(self.S.T.copy(), None if self.V is None else self.V.T.copy())


def rand_values(rng, shape, dtype, special=False):
    dtype = np.dtype(dtype)
    if dtype == BOOL:
        return rng.random(shape) < 0.5
    v = rng.integers(-3, 4, shape)  # zeros included: explicit zeros are edges
    if dtype.kind == "f":
        v = v * 0.5  # halves: sums and products stay exact
        if special:
            v = np.where(rng.random(shape) < 0.1, np.nan, v)
            v = np.where(rng.random(shape) < 0.05, -np.inf, v)
            v = np.where(rng.random(shape) < 0.05, np.inf, v)
    return v.astype(dtype)


def rand_graph(rng, M, N, density, dtype, iso=False, special=False):
    S = rng.random((M, N)) < density
    S[rng.choice(M, max(1, M // 5), replace=False)] = False  # empty rows
    d = rng.choice(min(M, N), max(1, min(M, N) // 3), replace=False)
    S[d, d] = True  # self-loops
    V = None if iso else np.where(S, rand_values(rng, (M, N), dtype, special), 0).astype(dtype)
    if V is not None and dtype != BOOL:
        V[S & (rng.random((M, N)) < 0.2)] = 0  # more explicit zeros
    return Graph(S, V)


def rand_bitmap(rng, n, dtype, full=False, iso=False, special=False):
    present = np.ones(n, bool) if full else rng.random(n) < 0.6
    values = None if iso else rand_values(rng, n, dtype, special)
    return present, values


def assert_result(y, yp, ref_p, ref_v, cands, monoid, Z):
    np.testing.assert_array_equal(yp, ref_p)
    assert y.dtype == Z, (y.dtype, Z)
    assert (y[~yp] == 0).all()
    got, want = y[yp], ref_v[yp]
    if monoid == "any":
        for g, c in zip(got, [c for c, p in zip(cands, ref_p) if p]):
            assert any(g == x or (g != g and x != x) for x in c), (g, c)
    elif Z.kind == "f" and monoid in ("plus", "times"):
        np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5, equal_nan=True)
    else:
        np.testing.assert_array_equal(got, want)


# ---------------------------------------------------------------------------------------
# references of the operations
# ---------------------------------------------------------------------------------------


def ref_mxv(A, xp, xv, sr, Z, mbits, comp, vxm=False):
    monoid, mul = sr.split("_", 1)
    M, K = A.shape
    ref_p, ref_v, cands = np.zeros(M, bool), np.zeros(M, Z), []
    with np.errstate(all="ignore"):
        xz = None if xv is None else as_z(xv, Z)
    for i in range(M):
        c = []
        if mbits is None or mbits[i] != comp:
            for k in range(K):
                if A.S[i, k] and xp[k]:
                    xk = np.dtype(Z).type(1) if xz is None else xz[k]
                    ak = A.value(i, k, Z)
                    if vxm:  # y = x @ A as A.T @ x: x's value first, j the output index
                        c.append(ref_mul(mul, xk, ak, 0, k, i, Z))
                    else:
                        c.append(ref_mul(mul, ak, xk, i, k, 0, Z))
        cands.append(c)
        if c:
            ref_p[i] = True
            ref_v[i] = ref_reduce(monoid, c, Z)
    return ref_p, ref_v, cands


def ref_mxm(A, B, sr, Z, mask=None, comp=False):
    monoid, mul = sr.split("_", 1)
    M, K = A.shape
    N = B.shape[1]
    S, V, cands = np.zeros((M, N), bool), np.zeros((M, N), Z), {}
    for i in range(M):
        for j in range(N):
            if mask is not None and mask[i, j] == comp:
                continue
            c = [ref_mul(mul, A.value(i, k, Z), B.value(k, j, Z), i, k, j, Z) for k in range(K) if A.S[i, k] and B.S[k, j]]
            if c:
                S[i, j], V[i, j], cands[(i, j)] = True, ref_reduce(monoid, c, Z), c
    return S, V, cands


def csr_dense(crow, col, values, shape, Z):
    S = np.zeros(shape, bool)
    V = np.zeros(shape, Z)
    rows = np.repeat(np.arange(shape[0]), np.diff(crow))
    assert (np.diff(crow) >= 0).all()
    for r in range(shape[0]):  # strictly increasing columns in every row
        seg = col[crow[r]:crow[r + 1]]
        assert (np.diff(seg) > 0).all(), seg
    S[rows, col] = True
    V[rows, col] = values
    return S, V


def assert_matrix(out, shape, ref, sr, Z):
    crow, col, values = out
    assert values.dtype == Z, (values.dtype, Z)
    S, V = csr_dense(crow, col, values, shape, Z)
    rS, rV, cands = ref
    np.testing.assert_array_equal(S, rS)
    monoid = sr.split("_", 1)[0]
    if monoid == "any":
        for (i, j), c in cands.items():
            g = V[i, j]
            assert any(g == x or (g != g and x != x) for x in c)
    elif Z.kind == "f" and monoid in ("plus", "times"):
        np.testing.assert_allclose(V[S], rV[S], rtol=1e-5, atol=1e-5, equal_nan=True)
    else:
        np.testing.assert_array_equal(V[S], rV[S])


@pytest.fixture(params=["serial", "parallel"])
def threads(request, monkeypatch):
    """Run each case on the calling thread and, with the grain at 0, on every thread numba has
    (the parallel paths: claimed chunks, per-thread bitmaps and their merge)."""
    if request.param == "parallel":
        monkeypatch.setattr(sk, "_GRAIN", 0)
    return request.param


# ---------------------------------------------------------------------------------------
# y = A @ x
# ---------------------------------------------------------------------------------------

MXV_CASES = [
    ("plus_times", F64), ("min_plus", F64), ("max_plus", I32), ("min_times", F32), ("max_times", I64),
    ("plus_pair", BOOL), ("any_pair", F64), ("min_first", I64), ("min_second", F64), ("plus_second", I32),
    ("lor_land", BOOL), ("land_lor", F64), ("min_secondi", F64), ("any_secondi", BOOL), ("max_firsti", I32),
    ("min_firstj1", F64), ("plus_secondj", I64), ("plus_minus", I32), ("times_div", I64), ("max_div", F64),
    ("min_max", F32), ("max_min", BOOL), ("plus_plus", BOOL), ("times_times", BOOL), ("any_first", I32),
    ("plus_land", I64), ("max_lor", F32), ("lor_pair", I32), ("min_minus", BOOL), ("times_div", BOOL),
]  # fmt: skip


def _mask_modes(rng, n):
    present = rng.random(n) < 0.6
    values = rand_values(rng, n, F64)
    return [
        (None, None, False, True), (present, None, False, True), (present, None, True, True),
        (present, values, False, False), (present, values, True, False), (None, None, True, True),
    ]  # fmt: skip


def _mbits(mask, mvals, structural):
    if mask is None:
        return None
    return mask if structural else mask & (mvals != 0)


@pytest.mark.parametrize("sr,dtype", MXV_CASES, ids=[f"{s}-{d.name}" for s, d in MXV_CASES])
def test_mxv_against_reference(sr, dtype, threads):
    rng = np.random.default_rng(abs(hash((sr, dtype.name))) % 2**32)
    M, K = 23, 19
    special = dtype.kind == "f" and sr.split("_")[0] in ("min", "max")
    for iso_a, full, iso_x in ((False, False, False), (True, True, False), (False, True, True)):
        A = rand_graph(rng, M, K, 0.3, dtype, iso=iso_a, special=special)
        xp, xv = rand_bitmap(rng, K, dtype, full=full, iso=iso_x, special=special)
        Z = compute_dtype(sr, None if iso_a else dtype, None if iso_x else dtype)
        for mask, mvals, comp, structural in _mask_modes(rng, M):
            y, yp = sk.mxv(*A.parts(), xv, None if full else xp, sr, mask, mvals, comp, structural, ncols=K)
            mb = _mbits(mask, mvals, structural)
            if mask is None and comp:
                ref = (np.zeros(M, bool), np.zeros(M, Z), [[]] * M)
            else:
                ref = ref_mxv(A, xp, xv, sr, Z, mb, comp)
            assert_result(y, yp, *ref, sr.split("_")[0], Z)


def test_mxv_int32_indices_and_wrapping():
    rng = np.random.default_rng(1)
    A = rand_graph(rng, 17, 13, 0.5, I32)
    A.V[A.S] = rng.integers(40_000, 60_000, A.S.sum())  # products and sums wrap in int32
    A.values = np.ascontiguousarray(A.V[A.S])
    x = rng.integers(40_000, 60_000, 13).astype(np.int32)
    y, yp = sk.mxv(*A.parts(np.int32), x, None, "plus_times")
    ref = ref_mxv(A, np.ones(13, bool), x, "plus_times", I32, None, False)
    assert_result(y, yp, *ref, "plus", I32)


# ---------------------------------------------------------------------------------------
# y = x @ A (push)
# ---------------------------------------------------------------------------------------

VXM_CASES = [
    ("plus_times", F32), ("min_plus", F64), ("max_plus", I64), ("any_pair", BOOL), ("any_secondi", F64),
    ("min_first", I64), ("lor_land", I32), ("plus_pair", F64),
]  # fmt: skip


@pytest.mark.parametrize("sr,dtype", VXM_CASES, ids=[f"{s}-{d.name}" for s, d in VXM_CASES])
def test_vxm_against_reference(sr, dtype, threads):
    rng = np.random.default_rng(abs(hash((sr, dtype.name, "vxm"))) % 2**32)
    M, N = 21, 25
    special = dtype.kind == "f" and sr.split("_")[0] in ("min", "max")
    for iso_a, iso_x, sparse in ((False, False, True), (True, False, False), (False, True, True), (False, False, False)):
        A = rand_graph(rng, M, N, 0.3, dtype, iso=iso_a, special=special)
        xp, xv = rand_bitmap(rng, M, dtype, iso=iso_x, special=special)
        Z = compute_dtype(sr, None if iso_x else dtype, None if iso_a else dtype)
        At = A.T()
        for mask, mvals, comp, structural in _mask_modes(rng, N):
            if sparse:
                idx = rng.permutation(np.flatnonzero(xp))  # any order
                kw = dict(x_indices=idx)
                args = (None if xv is None else xv[idx], None)
            else:
                kw = {}
                args = (xv, xp)
            y, yp = sk.vxm(*A.parts(), N, *args, sr, mask, mvals, comp, structural, **kw)
            mb = _mbits(mask, mvals, structural)
            if mask is None and comp:
                ref = (np.zeros(N, bool), np.zeros(N, Z), [[]] * N)
            else:
                ref = ref_mxv(At, xp, xv, sr, Z, mb, comp, vxm=True)
            assert_result(y, yp, *ref, sr.split("_")[0], Z)


def test_vxm_bfs_levels_and_parents():
    """Push BFS on a random graph: frontier<not visited> = frontier @ A (any_secondi gives a
    parent), against scipy's breadth-first order."""
    scipy_csgraph = pytest.importorskip("scipy.sparse.csgraph")
    import scipy.sparse as sp

    rng = np.random.default_rng(7)
    A = rand_graph(rng, 60, 60, 0.04, F64)
    A = Graph(A.S | A.S.T, None)
    crow, col, _ = A.parts()
    visited = np.zeros(60, bool)
    parent = np.full(60, -1)
    frontier = np.array([0])
    visited[0], parent[0] = True, 0
    while frontier.size:
        y, yp = sk.vxm(crow, col, None, 60, None, None, "any_secondi", visited, complement=True, x_indices=frontier)
        frontier = np.flatnonzero(yp)
        assert not visited[frontier].any()
        assert A.S[y[frontier], frontier].all()  # each parent is a neighbour in the last frontier
        visited[frontier], parent[frontier] = True, y[frontier]
    order = scipy_csgraph.breadth_first_order(sp.csr_matrix(A.S.astype(float)), 0, directed=False)[0]
    np.testing.assert_array_equal(np.sort(order), np.flatnonzero(visited))


# ---------------------------------------------------------------------------------------
# C<M> = A @ B
# ---------------------------------------------------------------------------------------

MXM_CASES = [
    ("plus_times", F64), ("min_plus", I32), ("plus_pair", BOOL), ("any_pair", I64),
    ("min_second", F64), ("lor_land", BOOL), ("max_firstj", I32),
]  # fmt: skip


@pytest.mark.parametrize("sr,dtype", MXM_CASES, ids=[f"{s}-{d.name}" for s, d in MXM_CASES])
def test_mxm_against_reference(sr, dtype, threads):
    rng = np.random.default_rng(abs(hash((sr, dtype.name, "mxm"))) % 2**32)
    M, K, N = 19, 15, 17
    special = dtype.kind == "f" and sr.split("_")[0] in ("min", "max")
    for iso_a, iso_b in ((False, False), (True, False), (False, True)):
        A = rand_graph(rng, M, K, 0.3, dtype, iso=iso_a, special=special)
        B = rand_graph(rng, K, N, 0.3, dtype, iso=iso_b, special=special)
        Z = compute_dtype(sr, None if iso_a else dtype, None if iso_b else dtype)
        Mk = rand_graph(rng, M, N, 0.4, F64)
        mvals = Mk.values
        valued = Mk.S & (Mk.V != 0)
        out = sk.mxm(*A.parts(), *B.parts(), N, sr)
        assert_matrix(out, (M, N), ref_mxm(A, B, sr, Z), sr, Z)
        for mask, comp, structural, dense in (
            ((Mk.crow, Mk.col), False, True, Mk.S), ((Mk.crow, Mk.col), True, True, Mk.S),
            ((Mk.crow, Mk.col, mvals), False, False, valued), ((Mk.crow, Mk.col, mvals), True, False, valued),
        ):  # fmt: skip
            out = sk.mxm(*A.parts(), *B.parts(), N, sr, mask, comp, structural)
            assert_matrix(out, (M, N), ref_mxm(A, B, sr, Z, dense, comp), sr, Z)
            if not comp:  # dot products with B.T's rows
                Bt = B.T()
                out = sk.mxm(*A.parts(), *Bt.parts(), N, sr, mask, comp, structural, b_transposed=True, a_ncols=K)
                assert_matrix(out, (M, N), ref_mxm(A, B, sr, Z, dense, comp), sr, Z)
            out = sk.mxm(*A.parts(), *B.parts(), N, sr, mask, comp, structural, sorted_rows=False)
            assert_matrix(out, (M, N), ref_mxm(A, B, sr, Z, dense, comp), sr, Z)
        crow, col, values = sk.mxm(*A.parts(), *B.parts(), N, sr, None, True)  # no mask, complemented: empty
        assert crow.tolist() == [0] * (M + 1) and col.size == 0 and values.dtype == Z


def test_triangle_count_masked_plus_pair(threads):
    """(L @ L.T)<L> with plus_pair summed is the triangle count, by masked Gustavson (B = L.T
    given) and by dot products (L itself as B.T)."""
    rng = np.random.default_rng(3)
    S = rng.random((80, 80)) < 0.12
    S = (S | S.T) & ~np.eye(80, dtype=bool)
    L = Graph(np.tril(S), None)
    U = L.T()
    expected = int(np.trace(np.linalg.matrix_power(S.astype(np.int64), 3))) // 6
    Lp = L.parts()
    c1 = sk.mxm(*Lp, *U.parts(), 80, "plus_pair", mask=(L.crow, L.col))
    c2 = sk.mxm(*Lp, *Lp, 80, "plus_pair", mask=(L.crow, L.col), b_transposed=True, a_ncols=80)
    for crow, col, values in (c1, c2):
        assert values.dtype == I64
        assert int(values.sum()) == expected
        s, present = sk.reduce_all(crow, col, values, "plus")
        assert int(s) == expected and present
    np.testing.assert_array_equal(c1[1], c2[1])
    np.testing.assert_array_equal(c1[2], c2[2])


def test_mxm_int32_indices_and_large_rows():
    """int32 parts, and rows long enough for the rank sort and the bitmap read-back."""
    rng = np.random.default_rng(11)
    A = rand_graph(rng, 30, 40, 0.6, F64)
    B = rand_graph(rng, 40, 300, 0.3, F64)
    out = sk.mxm(*A.parts(np.int32), *B.parts(np.int32), 300, "min_plus")
    assert_matrix(out, (30, 300), ref_mxm(A, B, "min_plus", F64), "min_plus", F64)
    assert out[0].dtype == np.int32 and out[1].dtype == np.int32


# ---------------------------------------------------------------------------------------
# reductions
# ---------------------------------------------------------------------------------------

REDUCE_CASES = [
    ("plus", F64), ("plus", I32), ("times", I64), ("min", F32), ("max", BOOL), ("any", I64), ("lor", F64),
    ("land", BOOL),
]  # fmt: skip


@pytest.mark.parametrize("monoid,dtype", REDUCE_CASES, ids=[f"{m}-{d.name}" for m, d in REDUCE_CASES])
def test_reductions_against_reference(monoid, dtype, threads):
    rng = np.random.default_rng(abs(hash((monoid, dtype.name, "reduce"))) % 2**32)
    for iso in (False, True):
        A = rand_graph(rng, 27, 22, 0.3, dtype, iso=iso, special=monoid in ("min", "max"))
        A.S[:, 3] = False  # an empty column too
        A = Graph(A.S, None if iso else np.where(A.S, A.V, 0).astype(dtype))
        Z = BOOL if monoid in ("lor", "land") else (I64 if iso else dtype)
        vals = None if iso else as_z(A.V, Z)

        def ref(lines_s, lines_v):
            p = lines_s.any(axis=1)
            v = np.zeros(len(p), Z)
            cands = []
            for r in range(len(p)):
                c = [Z.type(1) if vals is None else lines_v[r, k] for k in np.flatnonzero(lines_s[r])]
                cands.append(c)
                if c:
                    v[r] = ref_reduce(monoid, c, Z)
            return p, v, cands

        y, yp = sk.reduce_rows(*A.parts(), monoid)
        assert_result(y, yp, *ref(A.S, vals), monoid, Z)
        y, yp = sk.reduce(*A.parts(), monoid, axis=0, ncols=22)
        assert_result(y, yp, *ref(A.S.T, None if vals is None else vals.T), monoid, Z)
        s, present = sk.reduce_all(*A.parts(), monoid)
        flat = [Z.type(1) if vals is None else vals[i, k] for i, k in zip(*np.nonzero(A.S))]
        assert present and s.dtype == Z
        assert_result(np.array([s]), np.array([True]), np.array([True]), np.array([ref_reduce(monoid, flat, Z)]),
                      [flat], monoid, Z)
    s, present = sk.reduce_all(np.zeros(4, np.int64), np.zeros(0, np.int64), np.zeros(0, dtype), monoid)
    assert not present and s == 0


def test_reduce_rejects_a_bad_axis():
    with pytest.raises(ValueError, match="axis"):
        sk.reduce(np.array([0, 1]), np.array([0]), np.array([1.0]), "plus", axis=2)
    with pytest.raises(ValueError, match="ncols"):
        sk.reduce(np.array([0, 1]), np.array([0]), np.array([1.0]), "plus", axis=0)


# ---------------------------------------------------------------------------------------
# select and apply_index
# ---------------------------------------------------------------------------------------


def ref_keep(rule, i, j, v, thunk):
    if rule in table.POSITIONAL_RULES:
        k = 0 if thunk is None else thunk
        return {"tril": j <= i + k, "triu": j >= i + k, "diag": j == i + k, "offdiag": j != i + k,
                "rowle": i <= k, "rowgt": i > k, "colle": j <= k, "colgt": j > k}[rule]
    return {"lt": v < thunk, "le": v <= thunk, "gt": v > thunk, "ge": v >= thunk, "eq": v == thunk, "ne": v != thunk}[rule]


SELECT_CASES = [(r, t) for r in ("tril", "triu", "diag", "offdiag") for t in (None, -2, 3)] + [
    ("rowle", 7), ("rowgt", 7), ("colle", 4), ("colgt", 4), ("lt", 0), ("le", 0.5), ("gt", -1), ("ge", 1),
    ("eq", 0), ("ne", 0),
]  # fmt: skip


@pytest.mark.parametrize("dtype", [F64, I32, BOOL], ids=lambda d: d.name)
def test_select_against_reference(dtype, threads):
    rng = np.random.default_rng(5)
    A = rand_graph(rng, 20, 24, 0.4, dtype, special=True)
    for rule, thunk in SELECT_CASES:
        t = thunk if rule in table.POSITIONAL_RULES else dtype.type(thunk)
        keep = np.zeros_like(A.S)
        for i, j in zip(*np.nonzero(A.S)):
            keep[i, j] = ref_keep(rule, i, j, A.V[i, j], t)
        for sorted_rows in (True, False):
            out = sk.select(*A.parts(), rule, thunk, sorted_rows=sorted_rows)
            S, V = csr_dense(*out, A.shape, dtype)
            np.testing.assert_array_equal(S, keep, err_msg=f"{rule} {thunk}")
            np.testing.assert_array_equal(V[S], A.V[keep])
            assert out[1].dtype == A.col.dtype and out[2].dtype == dtype
    crow, col, values = sk.select(*Graph(A.S, None).parts(), "triu", 1)  # iso stays iso
    assert values is None
    np.testing.assert_array_equal(csr_dense(crow, col, np.ones(col.size), A.shape, F64)[0], np.triu(A.S, 1))


def test_select_unsorted_rows():
    crow, col, values = np.array([0, 3, 5]), np.array([2, 0, 1, 1, 0]), np.array([1.0, 2.0, 3.0, 4.0, 5.0])
    c, j, v = sk.select(crow, col, values, "tril", sorted_rows=False)
    assert c.tolist() == [0, 1, 3] and j.tolist() == [0, 1, 0] and v.tolist() == [2.0, 4.0, 5.0]


@pytest.mark.parametrize("op", ["rowindex", "colindex", "diagindex"])
def test_apply_index(op, threads):
    rng = np.random.default_rng(9)
    A = rand_graph(rng, 20, 30, 0.3, F64)
    rows, cols = np.nonzero(A.S)
    want = {"rowindex": rows, "colindex": cols, "diagindex": cols - rows}[op] + 5
    got = sk.apply_index(*A.parts(), op, 5)
    assert got.dtype == I64
    np.testing.assert_array_equal(got, want)
    got = sk.apply_index(*A.parts(np.int32), op, 5, dtype=np.int32)
    assert got.dtype == I32
    np.testing.assert_array_equal(got, want)


# ---------------------------------------------------------------------------------------
# the table, bad input
# ---------------------------------------------------------------------------------------


def test_table():
    assert set(table.MONOIDS) == {"plus", "times", "min", "max", "any", "lor", "land"}
    for name in ("plus_times", "min_plus", "max_plus", "min_times", "max_times", "plus_pair", "any_pair", "min_first",
                 "min_second", "plus_second", "lor_land", "land_lor", "min_secondi", "any_secondi"):
        assert name in table.SEMIRINGS
    codes = [m.code for m in table.MULTIPLIES.values()]
    assert len(set(codes)) == len(codes)
    assert table.identity("plus", F32) == 0 and table.identity("max", I32) == np.iinfo(np.int32).min
    assert table.identity("min", BOOL) and not table.identity("lor", BOOL)
    assert table.terminal("times", I64) == 0 and table.terminal("times", F64) is None
    assert table.terminal("any", F64) == "any" and table.terminal("lor", BOOL)
    with pytest.raises(ValueError, match="monoid"):
        table.semiring("sum_times")
    assert table.result_dtype("plus_pair", None, None, np.int32) == I32
    with pytest.raises(ValueError, match="cast"):
        table.result_dtype("plus_times", F32, F64)


def test_bad_input():
    crow, col, w = np.array([0, 2, 3]), np.array([0, 1, 1]), np.array([1.0, 2.0, 3.0])
    x = np.ones(2)
    with pytest.raises(ValueError, match=r"\(2, 2\).*\(3,\)"):
        sk.mxv(crow, col, w, np.ones(3), None, "plus_times", ncols=2)
    for bad in ([0, 5, 1], [5, 0, 1], [0, 1, 7]):  # an index out of range first, inside or at the end of a row
        with pytest.raises(ValueError, match="out of range"):
            sk.mxv(crow, np.array(bad), w, x, None, "plus_times")  # a dense x, no mask: the plain row loop
        with pytest.raises(ValueError, match="out of range"):
            sk.mxv(crow, np.array(bad), w, x, np.ones(2, bool), "plus_times")  # x a bitmap: the general loop
    with pytest.raises(ValueError, match="non-decreasing"):
        sk.mxv(np.array([0, 3, 2]), col, w, x, None, "plus_times")
    with pytest.raises(ValueError, match="exceeds"):
        sk.mxv(np.array([0, 2, 4]), col, w, x, None, "plus_times")
    with pytest.raises(ValueError, match="out of range"):
        sk.vxm(crow, np.array([0, 9, 1]), w, 2, None, None, "min_plus", x_indices=np.array([0]))
    with pytest.raises(ValueError, match="x_indices"):
        sk.vxm(crow, col, w, 2, None, None, "min_plus", x_indices=np.array([2]))
    with pytest.raises(ValueError, match="non-decreasing"):
        sk.vxm(np.array([0, 3, 2]), col, w, 2, None, None, "min_plus")
    with pytest.raises(KernelDeclined, match="complex"):
        sk.mxv(crow, col, w.astype(complex), x, None, "plus_times")
    with pytest.raises(KernelDeclined, match="cast"):
        sk.mxv(crow, col, w, x.astype(np.float32), None, "plus_times")
    with pytest.raises(ValueError, match="unknown semiring"):
        sk.mxv(crow, col, w, x, None, "plus_bogus")
    with pytest.raises(ValueError, match=r"\(2, 3\).*\(2, 2\)"):
        sk.mxm(crow, col, w, crow, col, w, 2, "plus_times", a_ncols=3)
    with pytest.raises(ValueError, match="out of range"):
        sk.mxm(crow, np.array([0, 7, 1]), w, crow, col, w, 2, "plus_times")
    with pytest.raises(ValueError, match="out of range"):
        sk.mxm(crow, col, w, crow, np.array([0, 7, 1]), w, 2, "plus_times", mask=(crow, col))
    with pytest.raises(ValueError, match="m_col"):
        sk.mxm(crow, col, w, crow, col, w, 2, "plus_times", mask=(crow, np.array([0, 7, 1])))
    with pytest.raises(ValueError, match="m_col"):
        sk.mxm(crow, col, w, crow, col, w, 2, "plus_times", mask=(crow, np.array([0, 7, 1])), complement=True)
    with pytest.raises(ValueError, match="mask"):
        sk.mxm(crow, col, w, crow, col, w, 2, "plus_times", mask=(np.array([0, 3]), col))
    with pytest.raises(ValueError, match="needs a mask"):
        sk.mxm(crow, col, w, crow, col, w, 2, "plus_times", b_transposed=True, a_ncols=2)
    with pytest.raises(ValueError, match="rule"):
        sk.select(crow, col, w, "upper")
    with pytest.raises(ValueError, match="thunk"):
        sk.select(crow, col, w, "gt")
    with pytest.raises(ValueError, match="non-decreasing"):
        sk.select(np.array([0, 3, 2]), col, w, "tril")
    with pytest.raises(ValueError, match="non-decreasing"):
        sk.reduce_rows(np.array([0, 3, 2]), col, w, "plus")
    with pytest.raises(ValueError, match="op"):
        sk.apply_index(crow, col, w, "index")
    with pytest.raises(KernelDeclined):
        sk.reduce_rows(crow, col, w.astype(np.float16), "plus")


# ---------------------------------------------------------------------------------------
# against python-graphblas (SuiteSparse:GraphBLAS), when installed
# ---------------------------------------------------------------------------------------


def _gb():
    return pytest.importorskip("graphblas")


def _to_gb(gb, G, dtype):
    values = np.ones(G.col.size, dtype) if G.values is None else G.values
    return gb.Matrix.from_csr(G.crow, G.col, values, nrows=G.shape[0], ncols=G.shape[1])


def _vec(gb, present, values, n):
    idx = np.flatnonzero(present)
    return gb.Vector.from_coo(idx, values[idx], size=n)


def _same_vector(y, yp, v):
    idx, vals = v.to_coo()
    np.testing.assert_array_equal(np.flatnonzero(yp), idx)
    np.testing.assert_allclose(y[yp], vals, rtol=1e-12)


def test_against_graphblas_vectors():
    gb = _gb()
    from graphblas import semiring

    rng = np.random.default_rng(21)
    A = rand_graph(rng, 40, 40, 0.15, F64)
    xp, xv = rand_bitmap(rng, 40, F64)
    GA, gx = _to_gb(gb, A, F64), _vec(gb, xp, xv, 40)
    y, yp = sk.mxv(*A.parts(), xv, xp, "min_plus")
    _same_vector(y, yp, GA.mxv(gx, semiring.min_plus).new())
    y, yp = sk.mxv(*A.parts(), xv, xp, "plus_times")
    _same_vector(y, yp, GA.mxv(gx, semiring.plus_times).new())
    visited = rng.random(40) < 0.3
    mask = _vec(gb, visited, np.ones(40, bool), 40)
    idx = np.flatnonzero(xp)
    y, yp = sk.vxm(*A.parts(), 40, xv[idx], None, "min_plus", visited, complement=True, x_indices=idx)
    _same_vector(y, yp, gx.vxm(GA, semiring.min_plus).new(mask=~mask.S))
    y, yp = sk.mxv(*A.parts(), xv, xp, "min_secondi")
    _same_vector(y, yp, GA.mxv(gx, semiring.ss.min_secondi).new())
    y, yp = sk.reduce_rows(*A.parts(), "plus")
    _same_vector(y, yp, GA.reduce_rowwise(gb.monoid.plus).new())
    y, yp = sk.reduce_cols(*A.parts(), 40, "max")
    _same_vector(y, yp, GA.reduce_columnwise(gb.monoid.max).new())


def test_against_graphblas_matrices():
    gb = _gb()
    from graphblas import select, semiring

    rng = np.random.default_rng(22)
    S = rng.random((50, 50)) < 0.15
    S = (S | S.T) & ~np.eye(50, dtype=bool)
    L = Graph(np.tril(S), None)
    GL = _to_gb(gb, L, np.bool_)
    want = GL.mxm(GL.T, semiring.plus_pair["INT64"]).new(mask=GL.S)
    got = sk.mxm(*L.parts(), *L.parts(), 50, "plus_pair", mask=(L.crow, L.col), b_transposed=True, a_ncols=50)
    ref_crow, ref_col, ref_val = want.to_csr()
    np.testing.assert_array_equal(got[0], ref_crow)
    np.testing.assert_array_equal(got[1], ref_col)
    np.testing.assert_array_equal(got[2], ref_val)
    A = rand_graph(rng, 30, 30, 0.2, F64)
    B = rand_graph(rng, 30, 30, 0.2, F64)
    GA, GB = _to_gb(gb, A, F64), _to_gb(gb, B, F64)
    for name in ("plus_times", "min_plus", "max_second"):
        c = sk.mxm(*A.parts(), *B.parts(), 30, name)
        r = GA.mxm(GB, getattr(semiring, name)).new().to_csr()
        for g, w in zip(c, r):
            np.testing.assert_allclose(g, w, rtol=1e-12)
    for rule, thunk, gbsel in (("tril", 0, select.tril), ("offdiag", 0, select.offdiag), ("gt", 0.0, select.valuegt)):
        c = sk.select(*A.parts(), rule, thunk)
        r = gbsel(GA, thunk).new().to_csr()
        for g, w in zip(c, r):
            np.testing.assert_array_equal(g, w)
