"""The device registry: backends, forcing one, lazy kernel imports, fallback warnings, cross-checks."""

import os
import subprocess
import sys
import warnings

import numpy as np
import pytest
from sparray_testing import FILLS, assert_matches_dense, make_coo

import sparray
from sparray._engine import dispatch as _dispatch
from sparray._engine.registry_table import KERNELS


def test_backends_lists_generic_last():
    names = sparray.backends()
    assert names[-1] == "generic"
    assert "numba" in names  # numba is a core dependency


def test_kernel_table_has_every_registered_op():
    table = sparray.kernel_table()
    for op, layout, backend, _ in KERNELS:
        assert f"{op} [{layout}]" in table
        assert (op, layout, "generic") in _dispatch._REGISTRY, f"{op} has a kernel but no generic reference"


def test_use_backend_forces_generic():
    seen = []
    original = _dispatch._REGISTRY[("coalesce", "coo", "generic")]

    def spy(xp, *args):
        seen.append(True)
        return original(xp, *args)

    _dispatch._REGISTRY[("coalesce", "coo", "generic")] = spy
    try:
        A = sparray.COO([[1, 0]], [1.0, 2.0], shape=(2,))
        with sparray.use_backend("generic"):
            A.coalesce()
        assert seen
    finally:
        _dispatch._REGISTRY[("coalesce", "coo", "generic")] = original


def test_declined_kernel_falls_back_and_warns_once():
    from sparray.kernels import KernelDeclined

    key = ("coalesce", "coo", "numba")
    original = _dispatch._REGISTRY[key]

    def declining(*args):
        raise KernelDeclined("float16 values are not supported; cast to float32")

    _dispatch._REGISTRY[key] = declining
    _dispatch._WARNED.clear()
    try:
        A = sparray.COO([[1, 0, 1]], [1.0, 2.0, 3.0], shape=(2,))
        with sparray.use_backend("numba"), pytest.warns(sparray.SparrayPerformanceWarning, match="declined.*float16"):
            C = A.coalesce()
        np.testing.assert_array_equal(C.to_dense(), [2.0, 4.0])
        with warnings.catch_warnings(), sparray.use_backend("numba"):
            warnings.simplefilter("error")
            sparray.COO([[1, 0, 1]], [1.0, 2.0, 3.0], shape=(2,)).coalesce()  # warned once only
    finally:
        _dispatch._REGISTRY[key] = original


def test_import_loads_no_heavy_modules():
    code = (
        "import sys, time; t = time.perf_counter(); import sparray; dt = time.perf_counter() - t; "
        "bad = [m for m in ('numba', 'cupy', 'scipy', 'torch', 'sparse', 'sparray.kernels.cpu.coalesce') if m in sys.modules]; "
        "print(bad, dt)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.startswith("[]"), out


@pytest.mark.parametrize("fill", FILLS)
@pytest.mark.parametrize("shape,s", [((50, 40), 2), ((30, 6, 3), 2), ((200,), 1), ((7, 5, 4), 1)])
def test_kernels_match_generic(shape, s, fill):
    """Every registered kernel gives the generic path's answer on the same inputs."""
    rng = np.random.default_rng(7)
    A, D = make_coo(rng, shape, s, density=0.3, fill=fill, duplicates=True)
    B, _ = make_coo(rng, shape, s, density=0.3, fill=1.0, duplicates=True)
    ops = {
        "coalesce": lambda: A.coalesce(),
        "to_dense": lambda: A.to_dense(),
        "add": lambda: A + B,
        "multiply": lambda: A * B,
        "sum0": lambda: sparray.sum(A, axis=0),
        "max_last": lambda: sparray.max(A, axis=-1) if A.size else A,
        "var_all": lambda: sparray.var(A) if A.size else A,
    }
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        for name, op in ops.items():
            with sparray.use_backend("numba"):
                fast = op()
            with sparray.use_backend("generic"):
                ref = op()
            if isinstance(ref, sparray.SparseArray):
                assert isinstance(fast, sparray.SparseArray), name
                np.testing.assert_array_equal(np.asarray(fast.indices), np.asarray(ref.indices), err_msg=name)
                np.testing.assert_allclose(fast.values, ref.values, rtol=1e-12, equal_nan=True, err_msg=name)
                ref = ref.to_dense()
            assert_matches_dense(fast, ref)


def test_small_inputs_skip_the_jit_and_large_ones_use_it():
    """Under SMALL_WORK rows the generic path runs (numba is not even imported); above, the kernel."""
    code = (
        "import sys, numpy as np, sparray\n"
        "A = sparray.COO(np.array([[3, 1, 3]]), np.ones(3), shape=(5,))\n"
        "A.coalesce(); A + A; sparray.sum(A)\n"
        "print('numba' in sys.modules)\n"
        "n = sparray._engine.dispatch.SMALL_WORK * 2\n"
        "B = sparray.COO(np.arange(n)[::-1].reshape(1, n).copy(), np.ones(n), shape=(n,))\n"
        "B.coalesce()\n"
        "print('sparray.kernels.cpu.coalesce' in sys.modules)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.split()
    assert out == ["False", "True"], out


def test_a_kernel_that_ran_here_serves_small_inputs_too():
    """Once a kernel has run in this process for some argument types (loaded, no start-up left to
    avoid), small inputs of those types go to it rather than to the generic path; other types,
    and a forced generic backend, keep the generic path. Both give the same offsets."""
    from sparray._engine import jit as _jit
    from sparray._core.namespace import namespace_of

    xp = namespace_of(np.empty(0))
    small = np.array([0, 0, 2, 3, 3, 3], dtype=np.int64)
    args = (small, 5, xp.int64)
    key = _jit.key_of("compress_offsets", "csr", args)
    _jit._RAN.discard(key)
    assert _dispatch._lookup("compress_offsets", "csr", xp, small.shape[0], args)[0] == "generic"
    large = np.repeat(np.arange(5, dtype=np.int64), _dispatch.SMALL_WORK)
    big = _dispatch.call("compress_offsets", "csr", xp, large, 5, xp.int64, work=large.shape[0])
    assert np.asarray(big).tolist() == [k * _dispatch.SMALL_WORK for k in range(6)]
    assert _jit.ran_here(key)
    assert _dispatch._lookup("compress_offsets", "csr", xp, small.shape[0], args)[0] == "numba"
    assert np.asarray(_dispatch.call("compress_offsets", "csr", xp, *args, work=small.shape[0])).tolist() == [0, 2, 2, 3, 6, 6]
    other = (small.astype(np.int32), 5, xp.int64)  # other types: not run here
    _jit._RAN.discard(_jit.key_of("compress_offsets", "csr", other))
    assert _dispatch._lookup("compress_offsets", "csr", xp, small.shape[0], other)[0] == "generic"
    with sparray.use_backend("generic"):
        assert _dispatch._lookup("compress_offsets", "csr", xp, small.shape[0], args)[0] == "generic"


def test_repeated_small_calls_move_to_the_kernel_once_they_spend_the_budget(monkeypatch):
    """Small calls of one kernel's argument types take the generic path until their generic time
    passes SMALL_GENERIC_BUDGET (the suite sets it to inf, see conftest.py); then the kernel
    serves them, with the same answer. Other argument types have their own budget, and a forced
    generic backend is never moved."""
    from sparray._engine import jit as _jit
    from sparray._core.namespace import namespace_of

    xp = namespace_of(np.empty(0))
    small = np.array([0, 0, 2, 3, 3, 3], dtype=np.int64)
    args = (small, 5, xp.int64)
    other = (small.astype(np.int32), 5, xp.int64)
    key = _jit.key_of("compress_offsets", "csr", args)
    for a in (args, other):
        _jit._RAN.discard(_jit.key_of("compress_offsets", "csr", a))
    monkeypatch.setattr(_dispatch, "_SMALL", {})
    monkeypatch.setattr(_dispatch, "SMALL_GENERIC_BUDGET", 1e-9)
    assert _dispatch._lookup("compress_offsets", "csr", xp, small.shape[0], args)[0] == "generic"
    first = _dispatch.call("compress_offsets", "csr", xp, *args, work=small.shape[0])  # generic: spends the budget
    assert np.asarray(first).tolist() == [0, 2, 2, 3, 6, 6]
    assert _dispatch._SMALL[key].generic_s > 1e-9 and not _jit.ran_here(key)
    assert _dispatch._lookup("compress_offsets", "csr", xp, small.shape[0], args)[0] == "numba"
    again = _dispatch.call("compress_offsets", "csr", xp, *args, work=small.shape[0])
    assert np.asarray(again).tolist() == [0, 2, 2, 3, 6, 6] and _jit.ran_here(key)
    assert _dispatch._lookup("compress_offsets", "csr", xp, small.shape[0], other)[0] == "generic"
    with sparray.use_backend("generic"):
        assert _dispatch._lookup("compress_offsets", "csr", xp, small.shape[0], args)[0] == "generic"


@pytest.mark.parametrize("generic_faster", [True, False])
def test_small_calls_keep_whichever_path_was_faster(monkeypatch, generic_faster):
    """Once the budget moved small calls to the kernel, their first SMALL_TRIALS timed kernel calls
    (the first one, which loads the kernel, is not timed) are compared with the generic calls'
    mean: a slower kernel hands these argument types back to the generic path."""
    from sparray._engine import jit as _jit
    from sparray._core.namespace import namespace_of

    xp = namespace_of(np.empty(0))
    small = np.array([0, 1, 1, 4], dtype=np.int64)
    args = (small, 6, xp.int64)
    key = _jit.key_of("compress_offsets", "csr", args)
    _jit._RAN.discard(key)
    monkeypatch.setattr(_dispatch, "_SMALL", {})
    monkeypatch.setattr(_dispatch, "SMALL_GENERIC_BUDGET", 1e-9)
    monkeypatch.setattr(_dispatch, "SMALL_TRIALS", 3)
    want = [0, 1, 3, 3, 3, 4, 4]
    assert np.asarray(_dispatch.call("compress_offsets", "csr", xp, *args, work=4)).tolist() == want  # generic
    # what the generic calls cost on average, as if measured: far less, or far more, than a kernel
    # call (the budget stays spent either way)
    if generic_faster:
        _dispatch._SMALL[key].generic_n = 10**12
    else:
        _dispatch._SMALL[key].generic_s = 10.0
    for _ in range(1 + 3):  # the loading call, then the trials
        assert _dispatch._lookup("compress_offsets", "csr", xp, 4, args)[0] == "numba"
        assert np.asarray(_dispatch.call("compress_offsets", "csr", xp, *args, work=4)).tolist() == want
    assert _dispatch._SMALL[key].kernel_n == 3
    expected = "generic" if generic_faster else "numba"
    assert _dispatch._lookup("compress_offsets", "csr", xp, 4, args)[0] == expected
    assert np.asarray(_dispatch.call("compress_offsets", "csr", xp, *args, work=4)).tolist() == want


@pytest.mark.parametrize("fill", [0.0, 1.5, np.nan])
def test_small_reduction_after_a_large_one_takes_the_kernel_and_matches_numpy(monkeypatch, fill):
    """A column sum of a small CSR after one of a large CSR of the same dtypes: the small one's
    scatter goes to the numba kernel (it ran here), and the answer is NumPy's on the dense array."""
    from sparray._engine import jit as _jit

    rng = np.random.default_rng(3)
    seen = []
    lookup = _dispatch._lookup

    def spy(op, layout, xp, work=None, args=None):
        out = lookup(op, layout, xp, work, args)
        seen.append((op, work, out[0]))
        return out

    def csr(n, density):
        D = np.where(rng.random((n, n)) < density, rng.standard_normal((n, n)), fill)
        return sparray.asarray(D, layout="csr", fill_value=fill), D

    big, _ = csr(400, 0.2)  # 32,000 entries: above SMALL_WORK
    small, D = csr(60, 0.3)  # about 1,000 entries; more than 16 rows (no pairwise few-row route)
    monkeypatch.setattr(sparray._products.lean, "ENABLED", False)  # the registry's rule, not the lean paths' (test_lean.py)
    _jit._RAN.clear()
    monkeypatch.setattr(_dispatch, "_lookup", spy)
    sparray.sum(big, axis=0)
    seen.clear()
    out = sparray.sum(small, axis=0)
    np.testing.assert_allclose(out.to_dense(), D.sum(axis=0), rtol=1e-12, equal_nan=True)
    scatters = [(work, backend) for op, work, backend in seen if op == "scatter_sum"]
    assert scatters and all(work < _dispatch.SMALL_WORK and backend == "numba" for work, backend in scatters), seen


def _probe(env_value, code):
    env = {k: v for k, v in os.environ.items() if k != "SPARRAY_BACKEND"}
    if env_value is not None:
        env["SPARRAY_BACKEND"] = env_value
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env)


_SMALL_AND_LARGE = (
    "import sys, numpy as np, sparray\n"
    "A = sparray.COO(np.array([[3, 1, 3]]), np.ones(3), shape=(5,))\n"
    "A.coalesce()\n"
    "print('sparray.kernels.cpu.coalesce' in sys.modules)\n"
    "n = sparray._engine.dispatch.SMALL_WORK * 2\n"
    "B = sparray.COO(np.arange(n)[::-1].reshape(1, n).copy(), np.ones(n), shape=(n,))\n"
    "B.coalesce()\n"
    "print('sparray.kernels.cpu.coalesce' in sys.modules)\n"
)


@pytest.mark.parametrize(
    "value,expected",
    [(None, ["False", "True"]), ("numba", ["True", "True"]), ("generic", ["False", "False"]), ("numba:100", ["False", "True"])],
)
def test_sparray_backend_environment_variable_forces_a_backend(value, expected):
    """SPARRAY_BACKEND=numba runs the kernels at every size (the small COO too), =generic never."""
    done = _probe(value, _SMALL_AND_LARGE)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == expected


def test_sparray_backend_environment_variable_errors():
    done = _probe("turbo", "import sparray")
    assert done.returncode != 0 and "SPARRAY_BACKEND: backend must be one of" in done.stderr and "'turbo'" in done.stderr
    done = _probe("numba:lots", "import sparray")
    assert done.returncode != 0 and "NAME:MIN_SIZE" in done.stderr
    done = _probe("cupy", "import sparray; print(sparray._engine.dispatch.forced_backend())")
    if "cupy" not in sparray.backends():  # not available here: a warning, then the automatic choice
        assert done.returncode == 0 and done.stdout.strip() == "None" and "not available here" in done.stderr


def test_use_backend_min_size():
    n = 40
    A = sparray.COO(np.arange(n)[::-1].reshape(1, n).copy(), np.ones(n), shape=(n,))
    with sparray.use_backend("numba", min_size=10**9):
        assert sparray._engine.dispatch._lookup("coalesce", "coo", A._xp, work=n)[0] == "generic"
    with sparray.use_backend("numba"):
        assert sparray._engine.dispatch._lookup("coalesce", "coo", A._xp, work=n)[0] == "numba"
    with pytest.raises(ValueError, match="min_size must be a non-negative int"):
        with sparray.use_backend("numba", min_size=-1):
            pass
