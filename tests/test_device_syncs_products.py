"""Host syncs and launches of the products on the simulated CUDA device (issue GPU-speed).

Per call, on an array that has been used once: ``A @ x`` and ``A @ X`` make no transfer to the host
for every layout with a finite fill (what the array proved, it keeps; non-finite elements of x are
found on the device); SDDMM makes none; SpGEMM (output sized by the data) makes one read (the
result's size; its tables are sized from the operands' longest rows). Every result is checked against dense NumPy, with inf and nan in x.
"""

from __future__ import annotations

import numpy as np
import pytest

import sparray as sp
from cuda_testing import requires_gxx
from sparray.kernels.cuda.simulated import counting, is_simulated, to_simulated

pytestmark = requires_gxx

LAYOUTS = ["coo", "csr", "csc", "bsr", "bsc"]


def _matrix(layout, fill, seed=0, shape=(12, 10)):
    rng = np.random.default_rng(seed)
    dense = np.where(rng.random(shape) < 0.3, np.round(rng.standard_normal(shape) * 4) / 4, fill)
    kw = {"blocksize": (2, 2)} if layout in ("bsr", "bsc") else {}
    return dense, sp.asarray(dense, layout=layout, fill_value=fill, **kw).to_device("simulated")


def _x(k, n=None, *, nonfinite=False, seed=1):
    rng = np.random.default_rng(seed)
    x = rng.standard_normal(k if n is None else (k, n))
    if nonfinite:
        x[3] = np.inf
        x[7] = np.nan
    return x


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("fill", [0.0, 1.5])
@pytest.mark.parametrize("ncols", [None, 4])
@pytest.mark.parametrize("nonfinite", [False, True], ids=["finite-x", "inf-nan-x"])
def test_matmul_makes_no_sync(layout, fill, ncols, nonfinite):
    dense, A = _matrix(layout, fill)
    xh = _x(dense.shape[1], ncols, nonfinite=nonfinite)
    x = to_simulated(xh)
    A @ x  # the first use may learn what the array keeps
    with counting() as c:
        y = A @ x
    assert c.syncs == 0, c.sites
    assert is_simulated(y) and len(c.launches) >= 1
    with np.errstate(all="ignore"):
        want = dense @ xh
    np.testing.assert_allclose(y.get(), want, rtol=1e-12, atol=1e-12, equal_nan=True)


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("dtype", [np.complex128, np.complex64], ids=str)
@pytest.mark.parametrize("ncols", [None, 3])
def test_complex_matmul_makes_no_sync(layout, dtype, ncols):
    """Complex x with a zero fill: an unspecified 0 times inf or nan is nan + nan j, found on the
    device by a pattern product of the non-finite elements; the same answer as the host path."""
    rng = np.random.default_rng(4)
    dense = np.where(rng.random((8, 6)) < 0.4, rng.standard_normal((8, 6)) + 1j * rng.standard_normal((8, 6)), 0)
    kw = {"blocksize": (2, 2)} if layout in ("bsr", "bsc") else {}
    host = sp.asarray(dense.astype(dtype), layout=layout, **kw)
    A = host.to_device("simulated")
    xh = (rng.standard_normal(6 if ncols is None else (6, ncols)) + 1j).astype(dtype)
    xh[2], xh[4] = complex(np.inf, 0), complex(1, np.nan)
    x = to_simulated(xh)
    A @ x
    with counting() as c:
        y = A @ x
    assert c.syncs == 0, c.sites
    tol = 1e-5 if dtype == np.complex64 else 1e-12
    np.testing.assert_allclose(y.get(), host @ xh, rtol=tol, atol=tol, equal_nan=True)


def test_an_array_moved_to_the_device_needs_no_first_sync():
    dense, A = _matrix("csr", 0.0)
    x = to_simulated(_x(10))
    with counting() as c:
        y = A @ x  # valid indices, zero fill, longest row: learned on the host before the move
    assert c.syncs == 0, c.sites
    np.testing.assert_allclose(y.get(), dense @ x.get())


def test_the_lean_device_path_launches_three_kernels():
    dense, A = _matrix("csr", 0.0)
    x = to_simulated(_x(10))
    A @ x
    with counting() as c:
        A @ x
    names = [name.split("<")[0] for _, name in c.launches]
    assert names == ["csr_mv_rows", "count_nonfinite", "csr_unread_nan"]
    assert A._lean_device  # kept on the array


def test_nan_fill_products_stay_exact():
    dense, A = _matrix("csr", np.nan)
    xh = _x(10)
    with counting() as c:
        y = A @ to_simulated(xh)
    assert c.syncs <= 2, c.sites  # a non-finite fill: the general exact path, which asks
    np.testing.assert_allclose(y.get(), dense @ xh, equal_nan=True)


def test_sddmm_makes_no_sync():
    dense, A = _matrix("csr", 0.0)
    rng = np.random.default_rng(3)
    B, C = rng.standard_normal((12, 5)), rng.standard_normal((5, 10))
    Bs, Cs = to_simulated(B), to_simulated(C)
    sp.sampled_addmm(A, Bs, Cs)
    with counting() as c:
        r = sp.sampled_addmm(A, Bs, Cs)
    assert c.syncs == 0, c.sites
    np.testing.assert_allclose(r.to_device("cpu").to_dense(), dense + np.where(dense != 0, B @ C, 0))


def test_spgemm_reads_its_sizes_only():
    """Operands moved from the host bring their longest rows: one read from the first call on."""
    dense, A = _matrix("csr", 0.0)
    dense_b, B = _matrix("csr", 0.0, seed=5, shape=(10, 8))
    for _ in range(2):
        with counting() as c:
            C = A @ B
        assert c.syncs == 1, c.sites
        assert "read_stats" in c.sites[0], c.sites
        np.testing.assert_allclose(C.to_device("cpu").to_dense(), dense @ dense_b)


@pytest.mark.parametrize("layout", ["coo", "csr"])
def test_device_built_operands_read_their_facts_once(layout):
    """Arrays made on the device (a product, a conversion) learn their longest row at their first
    product (one more read), then SpGEMM and SpMV of them read only what the data decides."""
    dense, A = _matrix("csr", 0.0)
    dense_b, B = _matrix("csr", 0.0, seed=5, shape=(10, 8))
    C = (A @ B).to_layout(layout)  # built on the device: its values' finiteness and rows unknown
    dense_c = dense @ dense_b
    first = []
    for _ in range(2):
        with counting() as c:
            D = C @ B.mT
        first.append(c.syncs)
        np.testing.assert_allclose(D.to_device("cpu").to_dense(), dense_c @ dense_b.T)
    assert first[1] == 1 and first[0] <= 4, first
    x = to_simulated(_x(8))
    C @ x
    with counting() as c:
        y = C @ x
    assert c.syncs == 0, c.sites
    np.testing.assert_allclose(y.get(), dense_c @ x.get())


def test_spgemm_sorts_long_hashed_rows_without_another_read(monkeypatch):
    """Whether a hashed row is too long for the kernel's sort is read with the result's size."""
    from sparray.kernels.cuda import spgemm

    monkeypatch.setattr(spgemm, "RANK_MAX", 1)
    dense, A = _matrix("csr", 0.0, shape=(12, 40))
    dense_b, B = _matrix("csr", 0.0, seed=5, shape=(40, 64))
    with counting() as c:
        C = A @ B
    assert c.syncs == 1, c.sites
    np.testing.assert_allclose(C.to_device("cpu").to_dense(), dense @ dense_b)
    H = C.to_device("cpu")  # every row's columns strictly increasing (the long hashed rows were sorted)
    crow, col = np.asarray(H.crow_indices), np.asarray(H.col_indices)
    assert all(np.all(np.diff(col[a:b]) > 0) for a, b in zip(crow[:-1], crow[1:]))
    assert max(np.diff(crow)) > 1  # some row was long enough to be sorted after the kernel


def test_bad_indices_still_raise_at_first_use():
    """An array built on the device is checked once, at its first use (one read), then trusted."""
    crow, col = to_simulated(np.array([0, 1, 2])), to_simulated(np.array([0, 5]))  # 5: out of range for 3 columns
    A = sp.CSR(crow, col, to_simulated(np.array([1.0, 2.0])), shape=(2, 3))
    with pytest.raises(ValueError, match="5"):
        A @ to_simulated(np.ones(3))


@pytest.mark.parametrize("ncols", [1, 3])
def test_unread_nan_registry_rows_agree_with_dense(ncols):
    """The registry's ``unread_nan`` [csr]: the CUDA launcher (emulated) and the generic
    implementation turn a zero-fill product into the dense one when x holds inf and nan."""
    from sparray._core.namespace import namespace_of
    from sparray._products.products import _unread_nan_generic
    from sparray.kernels.cuda.spmm import csr_matmul_dense, csr_unread_nan

    dense, A = _matrix("csr", 0.0)
    A = A.to_device("cpu")
    crow, col, values = A.crow_indices, A.col_indices, A.values
    X = _x(10, ncols, nonfinite=True)
    with np.errstate(all="ignore"):
        want = dense @ X
    for fix in (lambda y: csr_unread_nan(crow, col, X, y),
                lambda y: _unread_nan_generic(namespace_of(X), crow, col, X, y)):
        y = csr_matmul_dense(crow, col, values, X).reshape(want.shape)
        np.testing.assert_array_equal(np.asarray(fix(y.copy())), want)
