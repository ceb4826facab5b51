"""The solvers' vector kernels (sparray.kernels.cpu.vector) against NumPy, and cg taking them on
long vectors (more than 10000 elements) with scipy's iteration count."""

import numpy as np
import pytest

from sparray.kernels.cpu import vector


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("n", [1, 3, 17, 10_001, 100_003])
def test_kernels_match_numpy(dtype, n):
    rng = np.random.default_rng(n)
    a, b = rng.standard_normal(n).astype(dtype), rng.standard_normal(n).astype(dtype)
    rtol = 1e-4 if dtype == np.float32 else 1e-12
    got = vector.dot(a, b)
    assert type(got) is np.dtype(dtype).type
    np.testing.assert_allclose(got, np.dot(a.astype(np.float64), b.astype(np.float64)), rtol=rtol, atol=rtol)
    y = a.copy()
    vector.axpy(y, 2.5, b)
    np.testing.assert_allclose(y, a + dtype(2.5) * b, rtol=rtol)
    y = a.copy()
    vector.aypx(y, -0.5, b)
    np.testing.assert_allclose(y, dtype(-0.5) * a + b, rtol=rtol)


def test_kernels_refuse_what_they_do_not_compute():
    a = np.ones(8)
    for bad in (np.ones(7), np.ones(8, np.float32), np.ones(16)[::2], np.ones(8, np.complex128)):
        with pytest.raises(ValueError, match="vector"):
            vector.dot(a, bad) if bad.dtype != np.complex128 else vector.dot(bad, bad)


def test_cg_on_long_vectors_takes_them(monkeypatch):
    sp = pytest.importorskip("scipy.sparse")
    sla = pytest.importorskip("scipy.sparse.linalg")
    import sparray
    from sparray.interop.scipy import from_scipy

    k = 110  # 12100 unknowns: above the kernels' 10000
    T = sp.diags_array([-np.ones(k - 1), 2 * np.ones(k), -np.ones(k - 1)], offsets=[-1, 0, 1])
    S = (sp.kron(T, sp.eye_array(k)) + sp.kron(sp.eye_array(k), T)).tocsr()
    b = np.random.default_rng(0).standard_normal(S.shape[0])
    calls = []
    dot = vector.dot
    monkeypatch.setattr(vector, "dot", lambda a, c: calls.append(1) or dot(a, c))
    counts = {"ours": 0, "scipy": 0}
    x, info = sparray.linalg.cg(from_scipy(S), b, rtol=1e-8, callback=lambda _: counts.__setitem__("ours", counts["ours"] + 1))
    y, _ = sla.cg(S, b, rtol=1e-8, callback=lambda _: counts.__setitem__("scipy", counts["scipy"] + 1))
    assert info == 0 and calls and abs(counts["ours"] - counts["scipy"]) <= 1
    assert np.linalg.norm(b - S @ x) <= 1e-8 * np.linalg.norm(b) * 1.01


def test_the_solvers_threshold_is_the_kernels():
    from sparray.linalg import _iterative

    assert _iterative.VECTOR_MIN_N == vector.MIN_N
