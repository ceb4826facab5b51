"""A scipy.sparse user's first lines with a 2-D sparray array and no conversion call (issue 49, item 7).

scipy.sparse.linalg's solvers and ``aslinearoperator`` take the array as it is (``matvec``,
``rmatvec``, ``rmatmat``: sparray's products, exact for any fill); operators with a scipy.sparse
array or matrix work in both orders and give sparray arrays equal to the dense answer; scipy's and
pydata/sparse's conversion names exist (``tocsr``/``tocsc``/``tocoo``: scipy objects sharing the
buffers; ``toarray``/``todense``: dense). Every layout, fills 0, 1.5 and nan where the operation is
meaningful, random inputs, each result checked against NumPy (or scipy on the dense matrix).
See ``sparray/_array/scipy_protocol.py``.
"""

from __future__ import annotations

import operator
import warnings

import numpy as np
import pytest
from cuda_testing import DEVICES
from sparray_testing import LAYOUTS, assert_matches_dense, make_sparse

import sparray
from sparray._array import forward
from sparray.kernels.cuda import simulated

sp = pytest.importorskip("scipy.sparse")
spla = pytest.importorskip("scipy.sparse.linalg")

FILLS = [0.0, 1.5, float("nan")]
SHAPE = (6, 9)
BLOCK = (2, 3)
#: the 2-D arrays: every layout, and a hybrid COO (one sparse dim, one dense dim)
CASES = [(layout, 2) for layout in LAYOUTS] + [("coo", 1)]
CASE_IDS = [f"{layout}-s{s}" for layout, s in CASES]
FORMATS = ["csr", "csc", "coo", "bsr", "dia", "lil", "dok"]


def _array(layout, sparse_ndim=2, *, shape=SHAPE, fill=0.0, dtype="float64", seed=0, density=0.4):
    rng = np.random.default_rng(seed)
    blocksize = (BLOCK if shape == SHAPE else (1, 1)) if layout in ("bsr", "bsc") else None
    return make_sparse(rng, layout, shape, sparse_ndim, blocksize, density=density, fill=fill, dtype=dtype)


def _scipy_operand(fmt, kind, shape, seed, dtype="float64"):
    rng = np.random.default_rng(seed)
    dense = np.where(rng.random(shape) < 0.35, rng.standard_normal(shape), 0.0).astype(dtype)
    if fmt == "bsr":
        m = sp.bsr_array(dense, blocksize=(3, 3)) if kind == "array" else sp.bsr_matrix(dense, blocksize=(3, 3))
    else:
        m = getattr(sp, f"{fmt}_{kind}")(dense)
    return m, dense


def _spd(layout, fill, n=12, seed=0, dtype="float64"):
    """A symmetric positive definite 2-D array (dominant diagonal, plus the fill everywhere else) and its dense form."""
    rng = np.random.default_rng(seed)
    R = np.where(rng.random((n, n)) < 0.3, rng.standard_normal((n, n)), 0.0)
    if np.dtype(dtype).kind == "c":
        R = R + 1j * np.where(R != 0, rng.standard_normal((n, n)), 0.0)
    D = R + R.conj().T + 3 * n * np.eye(n)
    D = np.where(D == 0, fill, D).astype(dtype)
    blocksize = (3, 2) if layout in ("bsr", "bsc") else None
    return sparray.asarray(D, layout=layout, fill_value=fill, blocksize=blocksize), D


def _general(layout, fill, n=12, seed=1):
    """A non-symmetric, well-conditioned square array and its dense form."""
    rng = np.random.default_rng(seed)
    D = np.where(rng.random((n, n)) < 0.3, rng.standard_normal((n, n)), 0.0) + 2 * n * np.eye(n)
    D = np.where(D == 0, fill, D)
    blocksize = (2, 3) if layout in ("bsr", "bsc") else None
    return sparray.asarray(D, layout=layout, fill_value=fill, blocksize=blocksize), D


# --- the names: tocsr / tocsc / tocoo, toarray / todense ------------------------------------------------------
@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("name", ["tocsr", "tocsc", "tocoo", "tobsr"])
def test_scipy_conversion_names_give_scipy_arrays(layout, name):
    A, D = _array(layout)
    m = getattr(A, name)()
    assert sp.issparse(m) and isinstance(m, sp.sparray) and m.format == name[2:]
    np.testing.assert_array_equal(m.toarray(), D)
    agree = {"csr": "tocsr", "csc": "tocsc", "coo": "tocoo", "bsr": "tobsr"}.get(layout)
    if agree == name:  # the layouts agree: scipy holds sparray's own buffers
        assert np.shares_memory(m.data, A.values)
    c = getattr(A, name)(copy=True)
    np.testing.assert_array_equal(c.toarray(), D)
    assert not np.shares_memory(c.data, A.values)


@pytest.mark.parametrize("layout", LAYOUTS)
def test_tobsr_takes_scipy_blocksize(layout):
    A, D = _array(layout)
    m = A.tobsr(blocksize=(3, 3))
    assert m.format == "bsr" and m.blocksize == (3, 3)
    np.testing.assert_array_equal(m.toarray(), D)


def test_tocoo_of_an_nd_array_is_an_nd_coo_array():
    A, D = _array("csr", 3, shape=(2, 4, 6))  # batched CSR
    m = A.tocoo()
    assert m.format == "coo" and m.shape == (2, 4, 6)
    np.testing.assert_array_equal(m.toarray(), D)
    with pytest.raises(ValueError, match="2-d only"):
        A.tocsr()


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("fill", [1.5, float("nan")])
@pytest.mark.parametrize("name", ["tocsr", "tocsc", "tocoo", "tobsr"])
def test_scipy_conversions_refuse_a_non_zero_fill(layout, fill, name):
    A, _ = _array(layout, fill=fill)
    with pytest.raises(ValueError, match="no fill value"):
        getattr(A, name)()


def test_scipy_conversions_refuse_dense_dims():
    A, _ = _array("coo", 1)
    with pytest.raises(ValueError, match="dense"):
        A.tocsr()


@pytest.mark.parametrize("case", CASES, ids=CASE_IDS)
@pytest.mark.parametrize("fill", FILLS)
@pytest.mark.parametrize("name", ["toarray", "todense"])
def test_toarray_and_todense_are_the_dense_array(case, fill, name):
    A, D = _array(*case, fill=fill)
    got = getattr(A, name)()
    assert type(got) is np.ndarray  # NumPy components: an ndarray, never an np.matrix
    assert_matches_dense(got, D, rtol=0, atol=0)
    f = getattr(A, name)(order="F")
    assert f.flags.f_contiguous
    assert_matches_dense(f, D, rtol=0, atol=0)
    out = np.empty(A.shape, A.dtype)
    assert getattr(A, name)(out=out) is out
    assert_matches_dense(out, D, rtol=0, atol=0)


def test_toarray_checks_its_arguments():
    A, _ = _array("csr")
    with pytest.raises(ValueError, match="shape"):
        A.toarray(out=np.empty((2, 2)))
    with pytest.raises(ValueError, match="dtype"):
        A.toarray(out=np.empty(A.shape, np.float32))
    with pytest.raises(ValueError, match="order"):
        A.toarray(order="K")
    with pytest.raises(ValueError, match="not both"):
        A.toarray(order="C", out=np.empty(A.shape))


def test_toarray_of_an_nd_array():
    A, D = _array("bsr", 3, shape=(2, 4, 6))
    assert_matches_dense(A.toarray(), D, rtol=0, atol=0)
    assert_matches_dense(A.todense(), D, rtol=0, atol=0)


# --- the linear operator --------------------------------------------------------------------------------------
@pytest.mark.parametrize("case", CASES, ids=CASE_IDS)
@pytest.mark.parametrize("fill", FILLS)
@pytest.mark.parametrize("dtype", ["float64", "complex128"])
def test_matvec_rmatvec_rmatmat_are_exact_with_the_fill(case, fill, dtype):
    A, D = _array(*case, fill=fill, dtype=dtype)
    rng = np.random.default_rng(3)
    x, y = rng.standard_normal(SHAPE[1]), rng.standard_normal(SHAPE[0])
    X, Y = rng.standard_normal((SHAPE[1], 3)), rng.standard_normal((SHAPE[0], 4))
    if dtype == "complex128":
        y = y + 1j * rng.standard_normal(SHAPE[0])
    H = D.conj().T
    with np.errstate(invalid="ignore"):
        assert_matches_dense(A.matvec(x), D @ x)
        assert_matches_dense(A.matvec(x[:, None]), D @ x[:, None])
        assert_matches_dense(A.rmatvec(y), H @ y)
        assert_matches_dense(A.rmatmat(Y), H @ Y)
        L = spla.aslinearoperator(A)
        assert L.shape == A.shape and L.dtype == D.dtype
        assert_matches_dense(L.matvec(x), D @ x)
        assert_matches_dense(L.rmatvec(y), H @ y)
        assert_matches_dense(L.matmat(X), D @ X)
        assert_matches_dense(L.rmatmat(Y), H @ Y)
        assert_matches_dense(L @ x, D @ x)
        assert_matches_dense(L.H @ y, H @ y)
        assert_matches_dense(L.T @ y, D.T @ y)
    if np.isnan(fill):  # a nan fill reaches the products where the dense matrix's nan does (compared above)
        assert np.isnan(A.matvec(x)).any() and np.isnan(A.rmatvec(y)).any()


def test_the_operator_methods_need_a_2d_array():
    A, _ = _array("coo", 3, shape=(3, 4, 5))
    for name in ("matvec", "rmatvec", "rmatmat"):
        with pytest.raises(ValueError, match="2-D"):
            getattr(A, name)(np.ones(5))


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("fill", [0.0, 1.5])
def test_scipy_symmetric_solvers_take_the_array(layout, fill):
    A, D = _spd(layout, fill)
    b = np.random.default_rng(5).standard_normal(D.shape[0])
    exact = np.linalg.solve(D, b)
    for solve in (spla.cg, spla.minres, spla.bicgstab, spla.gmres, spla.lgmres, spla.cgs, spla.qmr):
        x, info = solve(A, b, rtol=1e-12)
        assert info == 0, solve.__name__
        np.testing.assert_allclose(x, exact, rtol=1e-8, atol=1e-10, err_msg=solve.__name__)
    for lsq in (spla.lsqr, spla.lsmr):
        x = lsq(A, b, atol=1e-14, btol=1e-14)[0]
        np.testing.assert_allclose(x, exact, rtol=1e-8, atol=1e-10, err_msg=lsq.__name__)
    vals = spla.eigsh(A, k=3, return_eigenvectors=False)
    np.testing.assert_allclose(np.sort(vals), np.linalg.eigvalsh(D)[-3:], rtol=1e-10)
    low = spla.eigsh(A, k=2, which="SA", return_eigenvectors=False)
    np.testing.assert_allclose(np.sort(low), np.linalg.eigvalsh(D)[:2], rtol=1e-10)
    s = spla.svds(A, k=3, return_singular_vectors=False)
    np.testing.assert_allclose(np.sort(s), np.sort(np.linalg.svd(D, compute_uv=False))[-3:], rtol=1e-10)


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("fill", [0.0, 1.5])
def test_scipy_general_solvers_take_the_array(layout, fill):
    A, D = _general(layout, fill)
    b = np.random.default_rng(6).standard_normal(D.shape[0])
    exact = np.linalg.solve(D, b)
    for solve in (spla.gmres, spla.bicgstab, spla.gcrotmk, spla.tfqmr):
        x, info = solve(A, b, rtol=1e-12)
        assert info == 0, solve.__name__
        np.testing.assert_allclose(x, exact, rtol=1e-8, atol=1e-10, err_msg=solve.__name__)
    vals = spla.eigs(A, k=3, which="LM", return_eigenvectors=False)
    dense = np.linalg.eigvals(D)
    np.testing.assert_allclose(np.sort_complex(vals), np.sort_complex(dense[np.argsort(-np.abs(dense))[:3]]), rtol=1e-8)
    s = spla.svds(A, k=2, return_singular_vectors=False)
    np.testing.assert_allclose(np.sort(s), np.sort(np.linalg.svd(D, compute_uv=False))[-2:], rtol=1e-10)


def test_scipy_eigsh_of_a_complex_hermitian_array():
    A, D = _spd("csr", 0.0, dtype="complex128")
    vals = spla.eigsh(A, k=3, return_eigenvectors=False)
    np.testing.assert_allclose(np.sort(vals), np.linalg.eigvalsh(D)[-3:], rtol=1e-10)
    s = spla.svds(A, k=3, return_singular_vectors=False)
    np.testing.assert_allclose(np.sort(s), np.sort(np.linalg.svd(D, compute_uv=False))[-3:], rtol=1e-10)


# --- operators with a scipy.sparse operand, both orders -------------------------------------------------------
OPS = {
    "@": operator.matmul, "*": operator.mul, "/": operator.truediv, "+": operator.add, "-": operator.sub,
    "==": operator.eq, "!=": operator.ne, "<": operator.lt, "<=": operator.le, ">": operator.gt, ">=": operator.ge,
}  # fmt: skip


def _dense_op(name, kind, left, right):
    """The dense answer: NumPy's, with ``*`` a matrix product when a scipy matrix class is involved (as np.matrix's)."""
    if name == "*" and kind == "matrix":
        return left @ right
    with np.errstate(divide="ignore", invalid="ignore"):
        return OPS[name](left, right)


@pytest.mark.parametrize("case", CASES, ids=CASE_IDS)
@pytest.mark.parametrize("fill", FILLS)
@pytest.mark.parametrize("kind", ["array", "matrix"])
def test_operators_with_a_scipy_operand_in_both_orders(case, fill, kind):
    A, D = _array(*case, shape=(6, 6), fill=fill, seed=7)
    for i, fmt in enumerate(FORMATS):
        S, E = _scipy_operand(fmt, kind, (6, 6), seed=10 + i)
        for name, f in OPS.items():
            for order in ("A op S", "S op A"):
                ctx = f"{fmt}_{kind} {order} with {name}"
                with warnings.catch_warnings(), np.errstate(divide="ignore", invalid="ignore"):
                    warnings.simplefilter("ignore", RuntimeWarning)
                    got = f(A, S) if order == "A op S" else f(S, A)
                expected = _dense_op(name, kind, D, E) if order == "A op S" else _dense_op(name, kind, E, D)
                assert isinstance(got, sparray.SparseArray), (ctx, type(got))
                try:
                    assert_matches_dense(got, expected, rtol=1e-12, atol=1e-12)
                except AssertionError as e:
                    raise AssertionError(ctx) from e


INPLACE = {"+=": operator.iadd, "-=": operator.isub, "*=": operator.imul, "/=": operator.itruediv, "@=": operator.imatmul}


@pytest.mark.parametrize("case", CASES, ids=CASE_IDS)
@pytest.mark.parametrize("fill", FILLS)
@pytest.mark.parametrize("kind", ["array", "matrix"])
def test_inplace_operators_with_a_scipy_operand_change_the_array_itself(case, fill, kind):
    for i, fmt in enumerate(["csr", "coo", "bsr", "dia"]):
        for name, f in INPLACE.items():
            A, D = _array(*case, shape=(6, 6), fill=fill, seed=20 + i)
            S, E = _scipy_operand(fmt, kind, (6, 6), seed=30 + i)
            B = A
            with warnings.catch_warnings(), np.errstate(divide="ignore", invalid="ignore"):
                warnings.simplefilter("ignore", RuntimeWarning)
                A = f(A, S)
                expected = D @ E if name == "@=" or (name == "*=" and kind == "matrix") else OPS[name[0]](D, E)
            assert A is B, (fmt, kind, name)  # the same object, as with every in-place operand
            assert_matches_dense(B, expected, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("layout", LAYOUTS)
def test_operators_broadcast_and_promote_as_sparray_does(layout):
    A, D = _array(layout, shape=(6, 6), fill=1.5)
    S = sp.coo_array(np.arange(6.0)[None, :])  # a (1, 6) row
    assert_matches_dense(A + S, D + S.toarray())
    assert_matches_dense(S * A, S.toarray() * D)
    Si, Ei = _scipy_operand("csr", "array", (6, 6), seed=2, dtype="int64")
    assert_matches_dense(A - Si, D - Ei)
    assert_matches_dense(Si @ A, Ei @ D)
    v = sp.coo_array(np.array([0.0, 2.0, 0.0, 1.0, 0.0, 3.0]))  # 1-d
    assert_matches_dense(A @ v, D @ v.toarray())


@pytest.mark.parametrize("fmt", ["csr", "csc", "coo", "bsr"])
@pytest.mark.parametrize("order", ["A op S", "S op A"])
def test_a_scipy_operand_is_taken_without_a_copy(monkeypatch, fmt, order):
    A, D = _array("csr", shape=(6, 6), fill=1.5)
    S, E = _scipy_operand(fmt, "array", (6, 6), seed=3)
    S.sum_duplicates() if fmt == "coo" else None  # canonical: from_scipy shares every buffer
    seen = []
    from sparray.interop.scipy import from_scipy as real

    def spy(m):
        B = real(m)
        seen.append((m, B))
        return B

    monkeypatch.setattr(forward, "from_scipy", spy)
    got = A @ S if order == "A op S" else S @ A
    assert_matches_dense(got, D @ E if order == "A op S" else E @ D)
    (m, B), = seen
    assert m is S and np.shares_memory(B.values, S.data)


def test_outside_scipy_operators_asarray_keeps_its_rule():
    """Only scipy's operators see the 0-d object array: np.asarray(A), a direct S.multiply(A) and scipy's
    constructors meet ``__array__``'s own rule (a refusal that names the sharing calls, or the dense form)."""
    A, D = _array("csr", shape=(6, 6), fill=1.5)
    S, E = _scipy_operand("csr", "array", (6, 6), seed=4)
    for convert in (np.asarray, np.asanyarray, np.array):
        try:
            d = convert(A)
        except TypeError:
            continue
        assert d.dtype != object
        assert_matches_dense(d, D)
    try:
        got = S.multiply(A)
    except TypeError:
        pass
    else:
        assert got is not NotImplemented
        assert_matches_dense(np.asarray(got.toarray() if sp.issparse(got) else got), E * D)
    B, DB = _array("csr", shape=(6, 6), fill=0.0)
    for ctor in (sp.csr_array, sp.coo_array, sp.csc_matrix):
        try:
            m = ctor(B)
        except (TypeError, ValueError) as e:
            text = str(e) + str(e.__cause__ or "")
            assert "A.tocsr()" in text, text  # the refusal names the calls that share the buffers
        else:
            np.testing.assert_array_equal(m.toarray(), DB)
    assert not sp.issparse(A)  # scipy's SparseABC is not claimed (see scipy_protocol's docstring)


def test_scipy_constructors_and_spsolve_with_the_sharing_conversions():
    A, D = _spd("csr", 0.0)
    m = sp.csr_array(A.tocsr())
    assert np.shares_memory(m.data, A.values)
    np.testing.assert_array_equal(sp.csc_matrix(A.tocsc()).toarray(), D)
    np.testing.assert_array_equal(sp.coo_array(A.tocoo()).toarray(), D)
    b = np.random.default_rng(8).standard_normal(D.shape[0])
    np.testing.assert_allclose(spla.spsolve(A.tocsc(), b), np.linalg.solve(D, b), rtol=1e-10)
    np.testing.assert_allclose(spla.spsolve(A.tocsr(), b), np.linalg.solve(D, b), rtol=1e-10)


# --- on a device: the simulated one (every run) and a GPU where there is one ----------------------------------
PLACES = ["simulated"] + (["cuda"] if "cupy" in DEVICES else [])


def _to_place(x, place):
    if place == "simulated":
        return simulated.to_simulated(x)
    import cupy

    return cupy.asarray(x)


def _is_on(x, place):
    return simulated.is_simulated(x) if place == "simulated" else type(x).__module__.startswith("cupy")


@pytest.mark.parametrize("place", PLACES)
@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("fill", FILLS)
def test_on_a_device(place, layout, fill):
    A, D = _array(layout, shape=(6, 6), fill=fill)
    Ad = A.to_device(place)
    S, E = _scipy_operand("csr", "array", (6, 6), seed=9)
    for f in (lambda: Ad + S, lambda: S @ Ad, lambda: Ad * S, lambda: operator.iadd(Ad, S)):
        with pytest.raises(TypeError, match="to_device"):
            f()
    B = sparray.asarray(S, device=Ad.device, layout="csr")
    got = B @ Ad
    assert _is_on(got.values, place)
    assert_matches_dense(got.to_device("cpu"), E @ D)
    x = np.random.default_rng(1).standard_normal(6)
    with np.errstate(invalid="ignore"):
        y = Ad.matvec(_to_place(x, place))
        assert _is_on(y, place)
        assert_matches_dense(y.get(), D @ x)
        z = Ad.rmatvec(_to_place(x, place))
        assert_matches_dense(z.get(), D.T @ x)
    dense = Ad.toarray()
    assert _is_on(dense, place) and _is_on(Ad.todense(), place)
    assert_matches_dense(dense.get(), D, rtol=0, atol=0)
    with pytest.raises(TypeError, match="NumPy components"):
        Ad.toarray(order="C")


@pytest.mark.skipif("cupy" not in DEVICES, reason="needs a GPU")
@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("fill", [0.0, 1.5])
def test_cupyx_solvers_take_a_gpu_array(layout, fill):
    """cupyx.scipy.sparse.linalg.aslinearoperator reads shape and matvec as scipy's does."""
    import cupy
    import cupyx.scipy.sparse.linalg as cla

    A, D = _spd(layout, fill)
    Ad = A.to_device("cuda")
    b = np.random.default_rng(5).standard_normal(D.shape[0])
    x, info = cla.cg(Ad, cupy.asarray(b), rtol=1e-12)
    assert info == 0
    np.testing.assert_allclose(x.get(), np.linalg.solve(D, b), rtol=1e-8, atol=1e-10)
