"""The solvers of sparray.linalg on the simulated CUDA device (issue 41): GPU data end to end.

The operator is a sparray array moved to ``"simulated"`` (every layout, fill 0 and a non-zero fill)
and ``b`` a simulated vector, so every vector of the solve is a ``SimulatedArray`` (CuPy's behaviour:
host arrays and implicit conversions refused) and the products run the CUDA kernels in the emulator.
Each solve is checked against

- scipy.sparse.linalg on the dense matrix the array stands for: the solution to the tolerance asked,
  the iteration count within one;
- the same sparray solve on the host (NumPy vectors, numba kernels): the same iteration count;
- the device: the result is a simulated array of the device's namespace (a sparray array holding one
  when ``b`` is a sparray array too);
- the host syncs: the solvers read one small stack of scalars per iteration (the convergence test;
  gmres adds two per restart cycle), so ``syncs <= iterations + a constant`` over a whole solve,
  and the products themselves make none (counted apart by a nested window around each product).

Complex data: the products on the device serve complex vectors correctly but ask the host whether
the vector is finite (``all_finite``) on each product; the solvers' own reads stay one per
iteration (asserted apart from the products' syncs; docs/linalg.md says why).

``python -m pytest tests/test_linalg_simulated.py -s -k syncs_table`` prints the table of syncs per
solve.
"""

from __future__ import annotations

import contextlib
import warnings

import array_api_compat
import numpy as np
import pytest
import scipy.sparse as ss
import scipy.sparse.linalg as sla

import sparray
from cuda_testing import requires_gxx
from sparray.kernels.cuda import simulated
from sparray.kernels.cuda.simulated import counting, is_simulated, to_simulated
from sparray.linalg import _eigen, _iterative

pytestmark = requires_gxx

LAYOUTS = ["coo", "csr", "csc", "bsr", "bsc"]
FILLS = [0.0, 0.01]
SOLVERS = ["cg", "minres", "gmres", "bicgstab"]
#: host reads of a solve beside its one per iteration: the check of b, the start's reads, the last
#: test (gmres: two per restart cycle on top, counted apart)
SLACK = {"cg": 3, "minres": 3, "gmres": 4, "bicgstab": 4}
RESTART = 20


# --- systems ------------------------------------------------------------------------------------------
def _grid(m, c=0.0):
    T = 2.0 * np.eye(m) - (1.0 + c) * np.eye(m, k=-1) - (1.0 - c) * np.eye(m, k=1)
    return np.kron(np.eye(m), T) + np.kron(T, np.eye(m))


def system(name, dtype="float64", m=6):
    """``(D, b)``: 2-D Poisson (cg, minres) or convection-diffusion (gmres, bicgstab) on an m x m
    grid plus a varying diagonal (so that Jacobi changes the iterates); complex: a Hermitian or
    nonsymmetric imaginary part on the pattern."""
    rng = np.random.default_rng(5)
    sym = name in ("cg", "minres", "eigsh")
    D = _grid(m, 0.0 if sym else 0.4)
    n = D.shape[0]
    D = D + np.diag(rng.random(n) * 4)
    b = rng.standard_normal(n)
    if np.dtype(dtype).kind == "c":
        S = np.where(D != 0, 0.2j * rng.standard_normal((n, n)), 0)
        np.fill_diagonal(S, 0)
        D = D + (np.triu(S, 1) + np.triu(S, 1).conj().T if sym else S)
        b = b + 1j * rng.standard_normal(n)
    return D.astype(dtype), b.astype(dtype)


def on_device(D, layout, fill):
    """``D`` (its zeros unspecified) as a sparray array of ``layout`` and fill ``fill`` on the simulated
    device, and the dense matrix it stands for."""
    ref = np.where(D == 0, np.asarray(fill, D.dtype), D)
    kw = {"blocksize": (2, 2)} if layout in ("bsr", "bsc") else {}
    A = sparray.asarray(ref, layout=layout, fill_value=fill, **kw)
    if fill:
        assert A.nse < D.size
    return A.to_device("simulated"), A, ref


def host(a):
    """A device result (a simulated array, or a sparray array holding one) as NumPy: one copy."""
    if isinstance(a, sparray.SparseArray):
        a = a.to_dense()
    assert is_simulated(a), type(a)
    return a.get()


# --- counting the solvers' reads apart from the products' ----------------------------------------------
@contextlib.contextmanager
def counted_solve(monkeypatch):
    """A window over a solve, with ``products``: the syncs made inside the operator products and
    preconditioner applications (each run in a nested window), and ``nproducts``."""
    outer = {"products": 0, "nproducts": 0}
    make = _iterative._product

    def product(op, vec):
        f = make(op, vec)

        def counted(v):
            with counting() as c:
                out = f(v)
            outer["products"] += c.syncs
            outer["nproducts"] += 1
            return out

        return counted

    monkeypatch.setattr(_iterative, "_product", product)
    with counting() as c:
        yield c, outer


def solve(name, A, b, **kw):
    """(x, info, iterations): scipy's callback counts (gmres: inner iterations)."""
    calls = []
    if name == "gmres":
        kw = {"restart": RESTART, "callback_type": "pr_norm", **kw}
    fn = getattr(sparray.linalg, name) if not isinstance(A, ss.sparray) else getattr(sla, name)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        x, info = fn(A, b, callback=lambda *a: calls.append(1), **kw)
    return x, info, len(calls)


def allowed_syncs(name, iterations):
    cycles = -(-iterations // RESTART) if name == "gmres" else 0
    return iterations + 2 * cycles + SLACK[name]


RECORD: dict = {}


# --- the Krylov solvers: every layout, both fills, with and without Jacobi ------------------------------
@pytest.mark.parametrize("name", SOLVERS)
@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("fill", FILLS)
@pytest.mark.parametrize("precond", [False, True], ids=["plain", "jacobi"])
def test_krylov_on_the_device(name, layout, fill, precond, monkeypatch):
    D, bh = system(name)
    A, A_host, ref = on_device(D, layout, fill)
    b = to_simulated(bh)
    rtol = 1e-8
    M = sparray.linalg.jacobi(A) if precond else None
    M_host = sparray.linalg.jacobi(A_host) if precond else None
    with counted_solve(monkeypatch) as (c, prod):
        x, info, k = solve(name, A, b, rtol=rtol, M=M)
    # on the device, in its namespace
    assert is_simulated(x) and array_api_compat.array_namespace(x) is simulated.array_api
    assert x.dtype == np.float64 and x.shape == bh.shape and info == 0
    # the host run: the same iterations
    xh, info_h, k_h = solve(name, A_host, bh, rtol=rtol, M=M_host)
    assert info_h == 0 and k == k_h, (k, k_h)
    # scipy on the dense matrix the array stands for
    Ms = ss.csr_array(np.diag(1 / np.diag(ref))) if precond else None
    xs, info_s, k_s = solve(name, ss.csr_array(ref), bh, rtol=rtol, M=Ms)
    assert info_s == 0 and abs(k - k_s) <= 1, (k, k_s)
    xd = x.get()
    assert np.linalg.norm(ref @ xd - bh) <= 10 * rtol * np.linalg.norm(bh)
    np.testing.assert_allclose(xd, np.linalg.solve(ref, bh), rtol=1e-5, atol=1e-6 * np.abs(xd).max())
    np.testing.assert_allclose(xd, xh, rtol=1e-6, atol=1e-9)
    # the syncs: none in the products, one read per iteration in the solver
    assert prod["products"] == 0, c.sites
    assert c.syncs <= allowed_syncs(name, k), (c.syncs, k, c.sites)
    RECORD[(name, layout, fill, precond)] = (k, c.syncs, prod["nproducts"])


@pytest.mark.parametrize("name", SOLVERS)
@pytest.mark.parametrize("dtype", ["float32", "complex128"])
def test_dtypes_on_the_device(name, dtype, monkeypatch):
    D, bh = system(name, dtype)
    A, A_host, ref = on_device(D, "csr", 0.0)
    rtol = 1e-4 if dtype == "float32" else 1e-9
    with counted_solve(monkeypatch) as (c, prod):
        x, info, k = solve(name, A, to_simulated(bh), rtol=rtol)
    assert is_simulated(x) and x.dtype == np.dtype(dtype) and info == 0
    xh, info_h, k_h = solve(name, A_host, bh, rtol=rtol)
    assert info_h == 0 and abs(k - k_h) <= (1 if dtype == "float32" else 0), (k, k_h)
    if not (name == "minres" and dtype == "complex128"):  # scipy's minres takes real systems only
        _, info_s, k_s = solve(name, ss.csr_array(ref), bh, rtol=rtol)
        assert info_s == 0 and abs(k - k_s) <= 1, (k, k_s)
    xd = x.get().astype(np.complex128)
    exact = np.linalg.solve(ref.astype(np.complex128), bh.astype(np.complex128))
    assert np.linalg.norm(xd - exact) <= (1e-2 if dtype == "float32" else 1e-6) * np.linalg.norm(exact)
    own = c.syncs - prod["products"]
    assert own <= allowed_syncs(name, k), (own, k, c.sites)
    if dtype == "float32":
        assert prod["products"] == 0, c.sites
    else:
        # the known limit (docs/linalg.md): a complex product on the device asks all_finite (and the
        # zero-fill CSR path its unread rows) each time; a few reads per product, never more
        assert prod["products"] <= 4 * prod["nproducts"], c.sites


def test_sparray_vectors_give_a_sparray_result():
    """b (and x0) given as sparray arrays on the device: x is a sparray array holding the dense
    solution on the device (the namespace rule), computed with no more reads."""
    D, bh = system("cg")
    A, _, ref = on_device(D, "csr", 0.01)
    b = sparray.asarray(bh).to_device("simulated")
    x0 = sparray.asarray(np.ones_like(bh)).to_device("simulated")
    with counting() as c:
        x, info = sparray.linalg.cg(A, b, x0, rtol=1e-10)
    assert isinstance(x, sparray.SparseArray) and info == 0
    xd = host(x)
    np.testing.assert_allclose(ref @ xd, bh, atol=1e-8)
    assert c.syncs <= 40, c.sites


def test_syncs_table(capsys):
    """A longer solve (12 x 12 grid, 144 unknowns) per solver: the syncs grow with the iterations by
    one each; printed as the table docs/linalg.md quotes."""
    rows = []
    for name in SOLVERS:
        D, bh = system(name, m=12)
        A, _, _ = on_device(D, "csr", 0.0)
        b = to_simulated(bh)
        for precond in (False, True):
            M = sparray.linalg.jacobi(A) if precond else None
            with counting() as c:
                x, info, k = solve(name, A, b, rtol=1e-8, M=M)
            assert info == 0 and k >= 10
            assert c.syncs <= allowed_syncs(name, k), (c.syncs, k, c.sites)
            rows.append(f"{name:9s} {'jacobi' if precond else 'none':7s} iterations {k:4d}  syncs {c.syncs:4d}")
    with capsys.disabled():
        print("\nsimulated device, 144 unknowns, csr, fill 0, rtol 1e-8:\n" + "\n".join(rows))


# --- eigsh and svds -----------------------------------------------------------------------------------
@contextlib.contextmanager
def counted_lanczos(monkeypatch):
    info = {}
    run = _eigen._lanczos

    def lanczos(*a, **kw):
        out = run(*a, **kw)
        info.update(out[2])
        return out

    monkeypatch.setattr(_eigen, "_lanczos", lanczos)
    with counting() as c:
        yield c, info


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("fill", FILLS)
def test_eigsh_on_the_device(layout, fill, monkeypatch):
    D, _ = system("eigsh", m=8)
    A, A_host, ref = on_device(D, layout, fill)
    with counted_lanczos(monkeypatch) as (c, info):
        w, v = sparray.linalg.eigsh(A, k=3, which="LA", tol=1e-10)
    wd, vd = host(w), host(v)
    want = np.linalg.eigvalsh(ref)[-3:]
    np.testing.assert_allclose(wd, want, rtol=1e-9)
    np.testing.assert_allclose(ref @ vd, vd * wd, atol=1e-7)
    # one read of the cycle's coefficients per cycle, a few at the end (the Rayleigh-Ritz, the values)
    assert c.syncs <= info["cycles"] + 4, (c.syncs, info, c.sites)
    w_host = sparray.linalg.eigsh(A_host, k=3, which="LA", tol=1e-10, return_eigenvectors=False)
    np.testing.assert_allclose(wd, w_host.to_dense(), rtol=1e-12)
    ws = sla.eigsh(ss.csr_array(ref), k=3, which="LA", tol=1e-10, return_eigenvectors=False)
    np.testing.assert_allclose(wd, np.sort(ws), rtol=1e-9)


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("fill", FILLS)
def test_svds_on_the_device(layout, fill, monkeypatch):
    rng = np.random.default_rng(8)
    D = np.where(rng.random((30, 20)) < 0.2, rng.standard_normal((30, 20)), 0.0)
    A, _, ref = on_device(D, layout, fill)
    with counted_lanczos(monkeypatch) as (c, info):
        u, s, vh = sparray.linalg.svds(A, k=3)
    ud, sd, vhd = host(u), host(s), host(vh)
    np.testing.assert_allclose(sd, np.linalg.svd(ref, compute_uv=False)[:3][::-1], rtol=1e-9)
    np.testing.assert_allclose(ref @ vhd.T, ud * sd, atol=1e-8)
    assert c.syncs <= info["cycles"] + 6, (c.syncs, info, c.sites)


def test_eigsh_float32_and_complex_on_the_device():
    for dtype, rtol in (("float32", 1e-4), ("complex128", 1e-9)):
        D, _ = system("eigsh", dtype, m=6)
        A, _, ref = on_device(D, "csr", 0.0)
        w, v = sparray.linalg.eigsh(A, k=2, which="SA")
        assert w.dtype == (np.float32 if dtype == "float32" else np.float64)
        np.testing.assert_allclose(host(w), np.linalg.eigvalsh(ref.astype(np.complex128))[:2], rtol=rtol)
        assert host(v).dtype == np.dtype(dtype)


# --- ILU(0) and IC(0) on the device ----------------------------------------------------------------------
@pytest.mark.parametrize("factory", ["ilu0", "ichol0"])
@pytest.mark.parametrize("layout", LAYOUTS)
def test_incomplete_factors_apply_on_the_device(factory, layout):
    """Factored on the host from one copy of the components (the setup's reads), applied on the device
    by level schedules: the NumPy factors' result, no sync per application."""
    D, _ = system("cg" if factory == "ichol0" else "bicgstab", m=8)
    A, A_host, ref = on_device(D, layout, 0.0)
    with counting() as setup:
        M = getattr(sparray.linalg, factory)(A)
    assert setup.syncs <= 6, setup.sites
    Mh = getattr(sparray.linalg, factory)(A_host)
    rng = np.random.default_rng(3)
    for shape in ((64,), (64, 3)):
        v = rng.standard_normal(shape)
        vd = to_simulated(v)
        with counting() as c:
            y = M @ vd
        assert c.syncs == 0, c.sites
        assert is_simulated(y) and y.shape == shape
        np.testing.assert_allclose(y.get(), Mh @ v, rtol=1e-12, atol=1e-14)
    # 2k - 1 levels per triangle on the 8 x 8 grid (a block layout's pattern holds whole blocks: more)
    assert M._device.levels == (15, 15) if layout in ("coo", "csr", "csc") else min(M._device.levels) > 15


@pytest.mark.parametrize("name, factory", [("cg", "ichol0"), ("minres", "ichol0"), ("gmres", "ilu0"), ("bicgstab", "ilu0")])
@pytest.mark.parametrize("dtype", ["float64", "complex128"])
def test_solvers_with_incomplete_factors_on_the_device(name, factory, dtype, monkeypatch):
    if name == "minres" and dtype == "complex128":
        pytest.skip("covered by cg: the same factor")
    D, bh = system(name, dtype, m=8)
    A, A_host, ref = on_device(D, "csr", 0.0)
    M = getattr(sparray.linalg, factory)(A)
    Mh = getattr(sparray.linalg, factory)(A_host)
    with counted_solve(monkeypatch) as (c, prod):
        x, info, k = solve(name, A, to_simulated(bh), rtol=1e-10, M=M)
    xh, info_h, k_h = solve(name, A_host, bh, rtol=1e-10, M=Mh)
    _, _, k_plain = solve(name, A_host, bh, rtol=1e-10)
    assert info == info_h == 0 and k == k_h and k < k_plain, (k, k_h, k_plain)
    assert is_simulated(x)
    np.testing.assert_allclose(x.get(), np.linalg.solve(ref, bh), rtol=1e-7, atol=1e-9)
    own = c.syncs - prod["products"]
    assert own <= allowed_syncs(name, k), (own, k, c.sites)
    if dtype == "float64":
        assert prod["products"] == 0, c.sites  # the preconditioner adds no sync
    RECORD[(name, factory, dtype)] = (k, c.syncs)
