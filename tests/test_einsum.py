"""sparray.einsum (and np.einsum on sparse operands) against np.einsum on the dense arrays: explicit and
implicit subscripts, ellipsis, diagonals, several operands, size-1 broadcasting, the interleaved form;
every layout, hybrid, batched and uncoalesced operands, sparse and dense operands mixed; fills 0,
1.5 and nan; dtypes; what comes back; errors; the simulated GPU device; xarray's dot and weighted sums."""

import itertools

import numpy as np
import pytest
from cuda_testing import requires_gxx
from sparray_testing import assert_follows_namespace_rule, make_coo, make_sparse

import sparray
from sparray._array.results import plain
from sparray.kernels.cuda import simulated

FILLS = [0.0, 1.5, float("nan")]
FILL_IDS = ["fill0", "fill1.5", "fillnan"]
LAYOUTS = ["coo", "csr", "csc", "bsr", "bsc"]

#: (subscripts, operand shapes)
CASES = [
    ("ij,jk->ik", [(3, 4), (4, 5)]),
    ("ij,jk", [(3, 4), (4, 5)]),  # implicit: the labels that occur once, in order
    ("ij->ji", [(3, 4)]),
    ("ji", [(3, 4)]),  # implicit transpose
    ("ij->", [(3, 4)]),
    ("ij->i", [(3, 4)]),
    ("ii->i", [(4, 4)]),
    ("ii", [(4, 4)]),  # the trace
    ("iij->ij", [(3, 3, 2)]),
    ("iji->ij", [(3, 2, 3)]),
    ("ijk->kji", [(2, 3, 4)]),
    ("ijk,ikl->ijl", [(2, 3, 4), (2, 4, 3)]),  # a batched product
    ("bij,bjk->bik", [(1, 3, 4), (2, 4, 2)]),  # the batch label broadcasts from size 1
    ("...ij,...jk->...ik", [(2, 3, 4), (4, 5)]),
    ("...i,...i->...", [(2, 3, 4), (3, 4)]),
    ("i...->...", [(3, 2, 2)]),
    ("ij,ij->ij", [(3, 4), (3, 4)]),
    ("ij,ij->", [(3, 4), (3, 4)]),
    ("ij,ij->ij", [(1, 4), (3, 4)]),  # size-1 broadcasting of a kept label
    ("ij,jk", [(3, 1), (4, 5)]),  # ... and of a contracted one
    ("i,j->ij", [(3,), (4,)]),
    ("ij,j->i", [(3, 4), (4,)]),
    ("i,i", [(5,), (5,)]),
    ("ij,kj->ik", [(3, 4), (5, 4)]),
    ("ab,ba->a", [(3, 3), (3, 3)]),
    ("ij,jk->ijk", [(3, 4), (4, 2)]),
    ("ii,i->i", [(3, 3), (3,)]),
    ("ijk,jk", [(2, 3, 4), (3, 4)]),
    ("ij,jk,kl->il", [(3, 4), (4, 2), (2, 5)]),
    ("ab,cd,bc->ad", [(2, 3), (4, 5), (3, 4)]),
    ("ij,ik,il->jkl", [(3, 2), (3, 2), (3, 2)]),
]
CASE_IDS = [f"{s}-{'x'.join(map(str, sh[0]))}" for s, sh in CASES]


def _blocksize(shape):
    return tuple(2 if n % 2 == 0 else 1 for n in shape[-2:])


def _operand(rng, layout, shape, fill):
    """A random sparse array of ``layout`` (COO for 1-d) with quarter values, and its dense form."""
    layout = layout if len(shape) >= 2 else "coo"
    dense = np.where(rng.random(shape) < 0.4, np.round(rng.standard_normal(shape) * 4) / 4, fill)
    kw = {"blocksize": _blocksize(shape)} if layout in ("bsr", "bsc") else {}
    return sparray.asarray(dense, layout=layout, fill_value=fill, **kw), dense


def _dense(x):
    if isinstance(x, sparray.SparseArray):
        x = x.to_device("cpu").to_dense() if simulated.is_simulated(x.values) else x.to_dense()
    elif simulated.is_simulated(x):
        x = x.get()
    return np.asarray(x)


def _check(got, want, ctx):
    got = _dense(got)
    assert got.shape == np.shape(want), (got.shape, np.shape(want), ctx)
    np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-12, equal_nan=True, err_msg=str(ctx))


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("fill", FILLS, ids=FILL_IDS)
@pytest.mark.parametrize(("subscripts", "shapes"), CASES, ids=CASE_IDS)
def test_einsum_matches_numpy(subscripts, shapes, fill, layout):
    """Every mix of sparse and dense operands (at least one sparse) gives NumPy's answer."""
    rng = np.random.default_rng(len(subscripts) * 7 + len(shapes))
    pairs = [_operand(rng, layout, s, fill) for s in shapes]
    dense = [d for _, d in pairs]
    with np.errstate(all="ignore"):
        want = np.einsum(subscripts, *dense)
        for kinds in itertools.product((True, False), repeat=len(shapes)):
            if not any(kinds):
                continue
            ops = [A if sparse else d for (A, d), sparse in zip(pairs, kinds)]
            got = sparray.einsum(subscripts, *ops)
            _check(got, want, (subscripts, kinds))
            if all(kinds):
                assert_follows_namespace_rule(got, pairs[0][0], (subscripts, kinds))


@pytest.mark.parametrize("fill", FILLS, ids=FILL_IDS)
@pytest.mark.parametrize("variant", ["hybrid", "hybrid-varying-fill", "duplicates", "batched-csr", "hybrid-csr"])
@pytest.mark.parametrize(
    ("subscripts", "shapes"),
    [("ij,jk->ik", [(3, 4), (4, 2)]), ("ii->i", [(3, 3)]), ("ii", [(3, 3)]), ("ij->j", [(3, 4)]),
     ("ijk,ikl->ijl", [(2, 3, 4), (2, 4, 2)]), ("ijk->kij", [(2, 3, 4)]), ("kii->ki", [(2, 3, 3)]),
     ("iji->ij", [(3, 2, 3)]), ("ijk,jk->i", [(2, 3, 4), (3, 4)]), ("ij,ij->ij", [(3, 4), (3, 4)])],
)  # fmt: skip
def test_einsum_hybrid_batched_and_uncoalesced_operands(subscripts, shapes, variant, fill):
    """Dense dims (also with a fill that varies along them: a diagonal through them goes dense),
    batched CSR, and COO with duplicate positions."""
    rng = np.random.default_rng(len(subscripts) + len(variant))
    ops, dense = [], []
    for shape in shapes:
        nd = len(shape)
        if variant.startswith("hybrid-csr") and nd >= 3:
            A, D = make_sparse(rng, "csr", shape, 2, None, density=0.4, fill=fill, dense_fill=True)
        elif variant.startswith("hybrid") and nd >= 2 and variant != "hybrid-csr":
            A, D = make_coo(rng, shape, nd - 1, density=0.4, fill=fill, dense_fill=variant.endswith("fill"))
        elif variant == "batched-csr" and nd >= 3:
            A, D = make_sparse(rng, "csr", shape, None, None, density=0.4, fill=fill)
        else:
            A, D = make_coo(rng, shape, None, density=0.4, fill=fill, duplicates=variant == "duplicates")
        ops.append(A)
        dense.append(D)
    with np.errstate(all="ignore"):
        want = np.einsum(subscripts, *dense)
        got = sparray.einsum(subscripts, *ops)
    np.testing.assert_allclose(_dense(got), want, rtol=1e-10, atol=1e-10, equal_nan=True)


@pytest.mark.parametrize("layout", LAYOUTS)
def test_what_comes_back(layout):
    """Zero fills: products stay sparse, in the first operand's layout when the result's shape
    allows it; a contraction with a non-zero fill is dense (as matmul); an element-wise product
    or a permutation stays sparse with any fill; a full contraction is 0-d."""
    rng = np.random.default_rng(3)
    E = plain(sparray.einsum)  # without the namespace rule: dense by nature comes back dense
    A0, _ = _operand(rng, layout, (4, 4), 0.0)
    B0, _ = _operand(rng, layout, (4, 4), 0.0)
    for subscripts in ("ij,jk->ik", "ij,ij->ij", "ij->ji", "ij,jk,kl->il"):
        R = E(subscripts, *([A0, B0, A0][: subscripts.count(",") + 1]))
        assert isinstance(R, sparray.SparseArray) and R.layout == layout, (subscripts, type(R))
    assert isinstance(E("ij,jk->ijk", A0, B0), sparray.SparseArray)
    A1, _ = _operand(rng, layout, (4, 4), 1.5)
    B1, _ = _operand(rng, layout, (4, 4), 1.5)
    assert isinstance(E("ij,jk->ik", A1, B1), np.ndarray)
    R = E("ij,ij->ij", A1, B1)
    assert isinstance(R, sparray.SparseArray) and float(R.fill_value) == 2.25
    assert isinstance(E("ij->ji", A1), sparray.SparseArray)
    assert E("ij,ij->", A0, B0).shape == () and E("ii", A1).shape == ()
    assert isinstance(E("ij,jk->ik", A0, np.ones((4, 2))), np.ndarray)  # sparse x dense: dense, as matmul
    # the namespace rule: sparray operands only give sparray arrays; a NumPy operand, NumPy's answer
    assert isinstance(sparray.einsum("ij,jk->ik", A1, B1), sparray.SparseArray)
    assert isinstance(sparray.einsum("ii", A1), sparray.SparseArray)
    assert isinstance(sparray.einsum("ij,j->i", A1, np.ones(4)), np.ndarray)


@pytest.mark.parametrize("subscripts", ["ij,kj->ik", "ii->i", "ij,ij->", "ij,j->i", "ij->ji"])
def test_every_namespace_and_the_generic_backend(subscripts, backend):
    """array_api_strict components (no einsum of their own: dense operands go the same way) and the
    numba and generic backends give NumPy's answer."""
    xs = pytest.importorskip("array_api_strict")
    rng = np.random.default_rng(8)
    for fill in FILLS:
        A, a = _operand(rng, "csr", (3, 3), fill)
        b = np.round(rng.standard_normal(3 if subscripts == "ij,j->i" else (3, 3)) * 4) / 4
        with np.errstate(all="ignore"):
            want = np.einsum(subscripts, *([a, b] if "," in subscripts else [a]))
        n = 2 if "," in subscripts else 1
        _check(sparray.einsum(subscripts, *[A, sparray.asarray(b, fill_value=fill)][:n]), want, "numpy")
        S = sparray.asarray(xs.asarray(a), fill_value=fill, layout="csr")
        for ops in ([S, xs.asarray(b)][:n], [xs.asarray(a), xs.asarray(b)][:n]):
            got = sparray.einsum(subscripts, *ops)
            got = got.to_dense() if isinstance(got, sparray.SparseArray) else got
            np.testing.assert_allclose(np.asarray(got._array), want, rtol=1e-12, equal_nan=True, err_msg=subscripts)


def test_dense_operands_go_to_their_namespace():
    a, b = np.arange(6.0).reshape(2, 3), np.arange(12.0).reshape(3, 4)
    got = sparray.einsum("ij,jk->ik", a, b)
    assert type(got) is np.ndarray
    np.testing.assert_array_equal(got, a @ b)


def test_dtypes():
    """Integers keep their dtype (wrapping as NumPy's sums do), booleans are NumPy's or of ands,
    ``dtype=`` casts the operands first, scalars take part."""
    a = np.array([[100, 0, 100], [0, 7, 0]], dtype=np.int8)
    A = sparray.asarray(a)
    for subscripts in ("ij->", "ij->i", "ij,kj->ik", "ij,ij->j"):
        n = subscripts.count(",") + 1
        got, want = _dense(sparray.einsum(subscripts, *[A] * n)), np.einsum(subscripts, *[a] * n)
        assert got.dtype == want.dtype == np.int8
        np.testing.assert_array_equal(got, want)
    b = np.array([[True, False, True], [False, False, True], [True, False, False]])
    for fill in (False, True):
        B = sparray.asarray(b, fill_value=fill)
        for subscripts in ("ij,jk->ik", "ij->i", "ij->", "ij,ij->ij", "ii"):
            n = subscripts.count(",") + 1
            got, want = _dense(sparray.einsum(subscripts, *[B] * n)), np.einsum(subscripts, *[b] * n)
            assert got.dtype == np.bool_
            np.testing.assert_array_equal(got, want, err_msg=f"{subscripts} fill {fill}")
    assert sparray.einsum("ij,kj->ik", A, A, dtype="float32").dtype == sparray.float32
    np.testing.assert_array_equal(_dense(sparray.einsum("ij,->ij", A, 3)), np.einsum("ij,->ij", a, 3))
    z = np.array([[1 + 2j, 0], [0, 3j]])
    Z = sparray.asarray(z)
    np.testing.assert_allclose(_dense(sparray.einsum("ij,jk->ik", Z, Z)), z @ z)  # no conjugate, as NumPy


def test_the_interleaved_form_and_implicit_order():
    rng = np.random.default_rng(4)
    A, a = _operand(rng, "csr", (3, 4), 1.5)
    B, b = _operand(rng, "coo", (5, 4), 1.5)
    _check(sparray.einsum(A, [0, 1], B, [2, 1], [0, 2]), np.einsum(a, [0, 1], b, [2, 1], [0, 2]), "explicit")
    _check(sparray.einsum(A, [0, 1], B, [2, 1]), np.einsum(a, [0, 1], b, [2, 1]), "implicit")
    _check(sparray.einsum(A, [Ellipsis, 1], [Ellipsis]), np.einsum(a, [Ellipsis, 1], [Ellipsis]), "ellipsis")
    _check(sparray.einsum(A, [26, 0]), np.einsum(a, [26, 0]), "0 is 'A', 26 is 'a'")
    _check(sparray.einsum("aB", A), np.einsum("aB", a), "upper case sorts first")
    _check(sparray.einsum(" i j , k j -> i k ", A, B), np.einsum("ij,kj->ik", a, b), "spaces")


@pytest.mark.parametrize(
    ("args", "error", "match"),
    [
        (("ij,jk->ik", (3, 3), (4, 2)), ValueError, "subscript 'j' has size 3 in operand 0 and 4 in operand 1"),
        (("ij->k", (3, 3)), ValueError, "output subscript 'k' occurs in no operand"),
        (("ij->ii", (3, 3)), ValueError, "name 'i' more than once"),
        (("ii", (2, 3)), ValueError, "repeats subscript 'i' over dims of different sizes"),
        (("i,i,i", (3,)), ValueError, "fewer operands"),
        (("i->", (3,), (3,)), ValueError, "more operands"),
        (("ij", (3,)), ValueError, "operand 0 has 1 dims but its subscripts 'ij' name 2"),
        (("i", (3, 3)), ValueError, "no '...' covers the others"),
        (("i.j", (3, 3)), ValueError, "not part of an ellipsis"),
        (("i->i->", (3,)), ValueError, "more than one '->'"),
        (("i-j", (3, 3)), ValueError, "invalid subscript '-'"),
        (("i2", (3, 3)), ValueError, "invalid subscript '2'"),
        (("...i->i", (2, 3)), ValueError, "no '...' to hold them"),
        (("...i...", (2, 3)), ValueError, "more than one ellipsis"),
        (("ij",), ValueError, "needs at least one operand"),
    ],
)
def test_subscript_errors_name_what_is_wrong(args, error, match):
    ops = [sparray.asarray(np.ones(s)) for s in args[1:]]
    with pytest.raises(error, match=match):
        sparray.einsum(args[0], *ops)


def test_operand_errors():
    A = sparray.asarray(np.eye(3))
    with pytest.raises(TypeError, match="operand 1 must be an array"):
        sparray.einsum("ij,jk", A, "x")
    with pytest.raises(ValueError, match=r"range \[0, 52\)"):
        sparray.einsum(A, [0, 52])
    with pytest.raises(TypeError, match="must be an int in"):
        sparray.einsum(A, [0, "a"])
    with pytest.raises(TypeError, match="one namespace"):
        sparray.einsum("ij,jk", A.to_device("simulated"), np.ones((3, 3)))


def test_numpy_einsum_answers_through_the_protocol():
    rng = np.random.default_rng(5)
    A, a = _operand(rng, "csr", (3, 4), 1.5)
    B, b = _operand(rng, "csc", (4, 2), 0.0)
    _check(np.einsum("ij,jk->ik", A, B), a @ b, "np.einsum")
    _check(np.einsum("ij,jk", A, b, optimize=True), a @ b, "optimize ignored")
    assert isinstance(np.einsum("ii", sparray.asarray(np.eye(3))), np.ndarray)  # NumPy's functions: NumPy's answer
    out = np.zeros((3,))
    assert np.einsum("ij->i", A, out=out) is out
    np.testing.assert_allclose(out, a.sum(axis=1))
    assert np.einsum("ij->ji", A, dtype=np.float32).dtype == np.float32
    _check(np.einsum(A, [0, 1], B, [1, 2]), a @ b, "interleaved")
    with pytest.raises(TypeError, match="order="):
        np.einsum("ij", A, order="F")
    with pytest.raises(TypeError, match="out= must be a dense NumPy array"):
        np.einsum("ij", A, out=A)


@requires_gxx
@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("fill", FILLS, ids=FILL_IDS)
def test_on_the_simulated_device(fill, layout):
    """On the device every piece stays there: sparse x sparse, sparse x dense device arrays,
    diagonals, reductions and permutations."""
    rng = np.random.default_rng(6)
    A, a = _operand(rng, layout, (4, 6), fill)
    B, b = _operand(rng, layout, (6, 2), fill)
    T, t = _operand(rng, layout, (4, 4), fill)
    x = np.round(rng.standard_normal(6) * 4) / 4
    GA, GB, GT = (M.to_device("simulated") for M in (A, B, T))
    gx = simulated.to_simulated(x)
    cases = [("ij,jk->ik", (GA, GB), (a, b)), ("ij,j->i", (GA, gx), (a, x)), ("j,ij->i", (gx, GA), (x, a)),
             ("ij->ji", (GA,), (a,)), ("ii->i", (GT,), (t,)), ("ii", (GT,), (t,)), ("ij,ij->i", (GA, GA), (a, a)),
             ("ij,jk,k->i", (GA, GB, simulated.to_simulated(np.ones(2))), (a, b, np.ones(2)))]  # fmt: skip
    for subscripts, ops, dense in cases:
        with np.errstate(all="ignore"):
            got = sparray.einsum(subscripts, *ops)
            want = np.einsum(subscripts, *dense)
        parts = [got.values] if isinstance(got, sparray.SparseArray) else [got]
        assert all(simulated.is_simulated(p) for p in parts), (subscripts, type(parts[0]))
        _check(got, want, subscripts)


def test_through_xarray():
    """xarray's DataArray.dot and .weighted(w).sum() call xp.einsum on the sparse data."""
    xr = pytest.importorskip("xarray")
    rng = np.random.default_rng(7)
    for fill in FILLS:
        for layout in ("coo", "csr"):
            A, a = _operand(rng, layout, (4, 6), fill)
            w = np.round(rng.random(6) * 4) / 4 + 0.25
            W = sparray.asarray(np.where(w == 0.5, 0.25, w), fill_value=0.25)
            wd = np.asarray(W.to_dense())
            da, dd = xr.DataArray(A, dims=("x", "y")), xr.DataArray(a, dims=("x", "y"))
            wa, ww = xr.DataArray(W, dims=("y",)), xr.DataArray(wd, dims=("y",))
            checks = {
                "dot": lambda arr, wt: arr.dot(wt),
                "dot dense weights": lambda arr, wt, wd=wd: arr.dot(xr.DataArray(wd, dims=("y",))),
                "dot over both": lambda arr, wt: arr.dot(arr, dim=...),
                "weighted sum": lambda arr, wt: arr.weighted(wt).sum("y", skipna=False),
                "weighted mean": lambda arr, wt: arr.weighted(wt).mean("y", skipna=False),
                "weighted sum, skipna": lambda arr, wt: arr.weighted(wt).sum("y"),
                "weighted mean, skipna": lambda arr, wt: arr.weighted(wt).mean("y"),
            }
            for name, f in checks.items():
                with np.errstate(all="ignore"):
                    want = f(dd, ww).values
                    got = f(da, wa).data
                _check(got, want, (name, fill, layout))


def test_docstring_examples():
    import doctest

    from sparray._functions import einsum as mod

    assert doctest.testmod(mod).failed == 0
