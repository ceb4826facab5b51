"""The conversion rule of ``np.asarray(A)`` (``sparray/_array/implicit.py``, docs/array_object.md):
results that hold dense values always convert, sparse arrays up to ``AUTO_DENSIFY_THRESHOLD``
elements or when the user opts in (``auto_densify``, ``SPARRAY_AUTO_DENSIFY``), NumPy 2's
``dtype=`` / ``copy=``, device arrays never (CuPy's rule); unary ufuncs without a counterpart
(``ufunc_map.py``); ``A[int, int]`` as a 0-d sparray array; and the client calls of issue 49
against the same calls on dense NumPy. Fills 0, 1.5 and nan, every layout, the simulated device."""

from __future__ import annotations

import asyncio
import operator
import os
import subprocess
import sys
import threading

import numpy as np
import pytest
from sparray_testing import LAYOUTS, layout_cases, make_coo, make_sparse

import sparray
from sparray._array import implicit
from sparray._array.results import holding_dense
from sparray.kernels.cuda import simulated

FILLS = [0.0, 1.5, float("nan")]
LIMIT = sparray.AUTO_DENSIFY_THRESHOLD


@pytest.fixture(autouse=True)
def _no_setting(monkeypatch):
    monkeypatch.delenv("SPARRAY_AUTO_DENSIFY", raising=False)


def _same(got, expected):
    assert isinstance(got, np.ndarray), type(got)
    assert got.shape == np.shape(expected) and got.dtype == np.asarray(expected).dtype, (got.shape, got.dtype)
    np.testing.assert_array_equal(got, expected)


def _pair(rng, fill, shape=(5, 4), layout="csr"):
    D = np.where(rng.random(shape) < 0.4, rng.integers(-3, 4, shape).astype(float), fill)
    return sparray.asarray(D, fill_value=fill, layout=layout), D


# ---- (a) results that hold dense values: always, at any size, a view where they are one ------------------
DENSE_RESULTS = [
    ("sum", lambda A: sparray.sum(A), lambda D: np.sum(D)),
    ("max axis=1", lambda A: sparray.max(sparray.asarray(A.to_dense(), sparse_ndim=0), axis=1),
     lambda D: np.max(D, axis=1)),
    ("argmax", lambda A: sparray.argmax(A), lambda D: np.argmax(D)),
    ("argmin axis=0", lambda A: sparray.argmin(A, axis=0), lambda D: np.argmin(D, axis=0)),
    ("unique_values", lambda A: sparray.unique_values(A), lambda D: np.unique_values(D)),
    ("count_nonzero", lambda A: sparray.count_nonzero(A), lambda D: np.count_nonzero(D)),
    ("linalg.pinv", lambda A: sparray.linalg.pinv(sparray.where(sparray.isnan(A), 0.0, A)),
     lambda D: np.linalg.pinv(np.where(np.isnan(D), 0.0, D))),
]  # fmt: skip


@pytest.mark.parametrize("fill", FILLS, ids=str)
@pytest.mark.parametrize("case", DENSE_RESULTS, ids=lambda c: c[0])
@pytest.mark.parametrize("layout", LAYOUTS)
def test_results_holding_dense_values_always_convert(case, fill, layout):
    name, ours, theirs = case
    rng = np.random.default_rng(1)
    D = np.where(rng.random((4, 6)) < 0.4, rng.integers(-3, 4, (4, 6)).astype(float), fill)
    A = sparray.asarray(D, fill_value=fill, layout=layout, **({"blocksize": (2, 3)} if layout in ("bsr", "bsc") else {}))
    r = ours(A)
    assert isinstance(r, sparray.SparseArray) and implicit.holds_dense(r), (name, r.sparse_ndim, r.nse)
    expected = np.asarray(theirs(D))
    with sparray.auto_densify(max_elements=0):  # even with implicit densifying off: nothing is densified
        got = np.asarray(r)
        np.testing.assert_allclose(got, expected, rtol=1e-12, atol=1e-12, equal_nan=True)
        assert got.dtype == expected.dtype
        assert np.shares_memory(got, r.values)  # the held values themselves
        assert np.shares_memory(np.asarray(r, copy=False), r.values)
        fresh = np.asarray(r, copy=True)
        assert not np.shares_memory(fresh, r.values)
        np.testing.assert_array_equal(fresh, got)
        cast = np.asarray(r, dtype=np.complex128)
        assert cast.dtype == np.complex128
        np.testing.assert_allclose(cast.real, expected, rtol=1e-12, atol=1e-12, equal_nan=True)
        with pytest.raises(ValueError, match="needs a copy"):
            np.asarray(r, dtype=np.float32, copy=False)


def test_a_large_dense_result_converts_past_the_threshold():
    D = np.arange(float(LIMIT + 5))
    r = holding_dense(D)
    assert r.size > LIMIT and implicit.holds_dense(r)
    got = np.asarray(r)
    assert np.shares_memory(got, D)
    _same(got, D)


@pytest.mark.parametrize("fill", FILLS, ids=str)
def test_zero_d_arrays_of_every_form_convert(fill):
    value_held = sparray.COO(np.zeros((0, 1), np.int64), [2.5], shape=(), fill_value=fill)
    fill_only = sparray.COO(np.zeros((0, 0), np.int64), np.zeros((0,)), shape=(), fill_value=fill)
    duplicated = sparray.COO(np.zeros((0, 2), np.int64), [2.0, 0.5], shape=(), fill_value=fill)
    with sparray.auto_densify(max_elements=0):
        _same(np.asarray(value_held), np.array(2.5))
        _same(np.asarray(fill_only), np.array(fill))
        _same(np.asarray(duplicated), np.array(2.5))  # duplicates stand for their sum
        with pytest.raises(ValueError, match="copy=None"):
            np.asarray(fill_only, copy=False)
    assert float(value_held) == 2.5 and np.asarray(fill_only, copy=True).shape == ()


# ---- (b) sparse arrays: small ones convert, every layout and fill, dtype= and copy= -------------------------
def test_small_sparse_arrays_convert_on_every_layout():
    rng = np.random.default_rng(2)
    count = 0
    for layout, A, D in layout_cases(rng, fills=FILLS):
        _same(np.asarray(A), D)
        _same(np.array(A, dtype=np.float32), D.astype(np.float32))
        out = np.asarray(A, copy=True)
        assert not any(np.shares_memory(out, c) for c in A._components().values())
        with pytest.raises(ValueError, match="always a new array"):
            np.asarray(A, copy=False)
        count += 1
    assert count == len(LAYOUTS) * 7 * len(FILLS)


@pytest.mark.parametrize("dtype", ["bool", "int32", "int64", "float32", "complex128"])
def test_dtypes_convert_as_they_are(dtype):
    rng = np.random.default_rng(3)
    A, D = make_coo(rng, (4, 5), density=0.5, fill=0.0, dtype=dtype)
    _same(np.asarray(A), D)
    _same(np.asarray(A.to_layout("csc")), D)


def test_uncoalesced_coo_converts_to_its_sums():
    rng = np.random.default_rng(4)
    A, D = make_coo(rng, (3, 4), density=0.6, fill=1.5, duplicates=True)
    assert not A.is_coalesced
    _same(np.asarray(A), D)


def test_the_threshold_is_inclusive_and_the_refusal_says_what_to_do():
    at = sparray.zeros((1024, 1024), layout="csr")
    assert at.size == LIMIT == 2**20
    _same(np.asarray(at), np.zeros((1024, 1024)))
    past = sparray.zeros((1024, 1025), layout="csr")
    with pytest.raises(TypeError) as info:
        np.asarray(past)
    text = str(info.value)
    for part in ("sparray.CSR of shape (1024, 1025)", "not converted to a dense NumPy array implicitly",
                 "1,049,600 elements", "8.0 MiB of float64", "AUTO_DENSIFY_THRESHOLD = 1,048,576",
                 "A.to_dense()", "sparray.auto_densify()", "SPARRAY_AUTO_DENSIFY=1"):  # fmt: skip
        assert part in text, (part, text)
    huge = sparray.COO([[0], [0]], [1.0], shape=(10**6, 10**6))  # 1e12 elements: refused without a try
    with pytest.raises(TypeError, match=r"1,000,000,000,000 elements, 7.3 TiB of float64"):
        np.asarray(huge)


# ---- opting in and out: the context manager, the environment variable -------------------------------------
def test_auto_densify_blocks_set_the_limit_and_nest():
    A = sparray.zeros((1024, 1025), layout="coo")
    small = sparray.asarray(np.eye(3))
    with sparray.auto_densify():
        assert implicit.implicit_limit() is None
        _same(np.asarray(A), np.zeros((1024, 1025)))
        with sparray.auto_densify(max_elements=8):
            with pytest.raises(TypeError, match="above the auto_densify limit of 8"):
                np.asarray(small)
            with sparray.auto_densify(max_elements=9):
                _same(np.asarray(small), np.eye(3))
        _same(np.asarray(A), np.zeros((1024, 1025)))
    with sparray.auto_densify(max_elements=0), pytest.raises(TypeError, match="implicit densifying is off"):
        np.asarray(small)
    assert implicit.implicit_limit() == LIMIT
    with pytest.raises(ValueError, match="max_elements must be None or an int >= 0; got -1"), sparray.auto_densify(-1):
        pass
    for bad in ("10", 1.5, True):
        with pytest.raises(TypeError, match="max_elements must be None or an int"), sparray.auto_densify(bad):
            pass
    with sparray.auto_densify(np.int64(9)):
        assert implicit.implicit_limit() == 9


def test_auto_densify_is_per_thread_and_per_task():
    seen = {}

    def other():
        seen["thread"] = implicit.implicit_limit()

    async def task(limit):
        with sparray.auto_densify(max_elements=limit):
            await asyncio.sleep(0)
            return implicit.implicit_limit()

    async def both():
        return await asyncio.gather(task(5), task(7))

    with sparray.auto_densify():
        t = threading.Thread(target=other)
        t.start()
        t.join()
        assert implicit.implicit_limit() is None
    assert seen["thread"] == LIMIT  # the block in another thread does not leak into this one
    assert asyncio.run(both()) == [5, 7]


def test_the_environment_variable_opts_in_and_out(monkeypatch):
    big = sparray.zeros((1024, 1025), layout="csc")
    small = sparray.asarray(np.eye(3), layout="csr")
    monkeypatch.setenv("SPARRAY_AUTO_DENSIFY", "1")
    _same(np.asarray(big), np.zeros((1024, 1025)))
    with sparray.auto_densify(max_elements=4), pytest.raises(TypeError, match="auto_densify limit of 4"):
        np.asarray(small)  # the block wins over the variable
    monkeypatch.setenv("SPARRAY_AUTO_DENSIFY", "0")
    with pytest.raises(TypeError, match="SPARRAY_AUTO_DENSIFY=0"):
        np.asarray(small)
    _same(np.asarray(sparray.sum(small)), np.array(3.0))  # dense results still convert
    with sparray.auto_densify():
        _same(np.asarray(small), np.eye(3))
    monkeypatch.setenv("SPARRAY_AUTO_DENSIFY", "yes")
    with pytest.raises(ValueError, match="SPARRAY_AUTO_DENSIFY must be 1 .* or 0 .*; got 'yes'"):
        np.asarray(small)
    monkeypatch.setenv("SPARRAY_AUTO_DENSIFY", "")
    _same(np.asarray(small), np.eye(3))


def test_a_wrong_environment_value_fails_at_import():
    env = dict(os.environ, SPARRAY_AUTO_DENSIFY="on", PYTHONPATH=os.pathsep.join(sys.path))
    done = subprocess.run([sys.executable, "-c", "import sparray"], capture_output=True, text=True, env=env, timeout=120,
                          check=False)
    assert done.returncode != 0 and "SPARRAY_AUTO_DENSIFY must be 1" in done.stderr, done.stderr[-1000:]


# ---- device arrays: never, whatever their size (CuPy's rule) ------------------------------------------------
@pytest.mark.parametrize("layout", LAYOUTS)
def test_device_arrays_never_convert_implicitly(layout):
    rng = np.random.default_rng(5)
    A, D = make_sparse(rng, layout, (4, 6), blocksize=(2, 3), density=0.5, fill=1.5)
    G = A.to_device("simulated")
    results = [G, sparray.sum(G), sparray.unique_values(G), G[1, 2]]
    assert all(type(r.values).__name__ == "SimulatedArray" for r in results)
    with simulated.counting() as c, sparray.auto_densify():
        for r in results:
            for kwargs in ({}, {"dtype": np.float32}, {"copy": True}):
                with pytest.raises(TypeError, match="Implicit conversion to a NumPy array is not allowed.*simulated"):
                    np.asarray(r, **kwargs)
    assert c.syncs == 0  # refused before anything moved
    assert float(sparray.sum(G)) == pytest.approx(D.sum()) and float(G[1, 2]) == D[1, 2]
    _same(np.asarray(G.to_device("cpu")), D)  # the explicit way


def test_array_api_strict_components_convert_through_their_namespace():
    xps = pytest.importorskip("array_api_strict")
    rng = np.random.default_rng(6)
    A, D = make_coo(rng, (4, 5), density=0.5, fill=1.5, xp=xps)
    _same(np.asarray(A), D)
    s = sparray.sum(A)
    np.testing.assert_allclose(np.asarray(s), D.sum())


# ---- A[int, int]: a 0-d sparray array --------------------------------------------------------------------------
@pytest.mark.parametrize("fill", FILLS, ids=str)
@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("place", ["cpu", "simulated"])
def test_every_int_index_gives_a_zero_d_sparray_array(layout, fill, place):
    rng = np.random.default_rng(7)
    A, D = make_sparse(rng, layout, (4, 6), blocksize=(2, 3), density=0.5, fill=fill)
    I, DI = make_sparse(rng, layout, (4, 6), blocksize=(2, 3), density=0.5, fill=3.0, dtype="int64")
    if place != "cpu":
        A, I = A.to_device(place), I.to_device(place)
    for key in [(0, 0), (1, 2), (-1, -1), (3, 5), (np.int64(2), 1)]:
        r = A[key]
        assert isinstance(r, sparray.SparseArray) and r.shape == () and r.sparse_ndim == 0 and r.nse == 1
        assert r.device == A.device and r.dtype == A.dtype
        assert r.__array_namespace__() is sparray
        value = D[key]
        assert float(r) == value or (np.isnan(value) and np.isnan(float(r)))
        assert bool(r) == bool(value) and complex(r) == complex(value) or np.isnan(value)
        k = I[key]
        assert int(k) == DI[key] and operator.index(k) == DI[key] and [10, 20, 30, 40][k % 4] == [10, 20, 30, 40][DI[key] % 4]
    row = A[1]
    assert row.shape == (6,) and isinstance(row[2], sparray.SparseArray) and row[2].shape == ()
    assert float(row[2]) == D[1, 2] or np.isnan(D[1, 2])
    with pytest.raises(TypeError, match="only 0-d integer arrays"):
        operator.index(A[0, 0])


def test_hybrid_and_batched_int_keys():
    rng = np.random.default_rng(8)
    H, DH = make_coo(rng, (3, 4, 2), 2, density=0.5, fill=1.5, dense_fill=True)
    r = H[1, 2, 0]
    assert r.shape == () and float(r) == DH[1, 2, 0]
    B, DB = make_sparse(rng, "csr", (2, 3, 4), 3, density=0.5, fill=0.0)
    r = B[1, 2, 3]
    assert r.shape == () and float(r) == DB[1, 2, 3]


def test_dask_arg_reductions_meet_zero_d_keys():
    """Dask's tree arg reductions index each chunk's partial results with a 0-d NumPy integer
    (``_arg_combine``: ``vals.ravel()[local_args]``, ``vals`` the chunks' sparray ``np.max(...,
    keepdims=True)``): that key is ``A[int]``, now a 0-d sparray array, and the combine steps and the
    final ``nanarg_agg`` (``np.isnan(vals)``) take it."""
    da = pytest.importorskip("dask.array")
    from sparray.interop.dask import from_sparray

    rng = np.random.default_rng(9)
    for fill in FILLS:
        for layout in LAYOUTS:
            A, D = make_sparse(rng, layout, (17, 16), blocksize=(1, 1), density=0.4, fill=fill)
            X, Y = from_sparray(A, chunks=(4, 3)), da.from_array(D, chunks=(4, 3))
            for f in (lambda Z: Z.argmin(), lambda Z: Z.argmax(split_every=2), lambda Z: Z.argmax(axis=0),
                      lambda Z: Z.argmin(axis=1, split_every=2), lambda Z: Z.ravel().argmax(split_every=3)):  # fmt: skip
                got, expected = f(X).compute(scheduler="sync"), f(Y).compute(scheduler="sync")
                np.testing.assert_array_equal(np.asarray(got), expected, err_msg=f"{layout} {fill}")


# ---- unary ufuncs sparray has no function for: values and fill mapped -------------------------------------
@pytest.mark.parametrize("fill", FILLS, ids=str)
def test_unary_ufuncs_map_values_and_fill_on_every_layout(fill):
    special = pytest.importorskip("scipy.special")
    rng = np.random.default_rng(10)
    for layout, A, D in layout_cases(rng, fills=[fill]):
        for ufunc in (special.erf, np.cbrt, np.deg2rad, np.rint):
            with np.errstate(all="ignore"):
                R, E = ufunc(A), ufunc(D)
            assert isinstance(R, sparray.SparseArray) and R.layout == A.layout and R.shape == A.shape
            assert R.nse == A.nse  # the same positions: nothing densified
            np.testing.assert_allclose(R.to_dense(), E, rtol=1e-13, atol=0, equal_nan=True)
            with np.errstate(all="ignore"):
                np.testing.assert_allclose(R.fill_value, ufunc(np.asarray(A.fill_value)), equal_nan=True)


def test_unary_ufuncs_coalesce_duplicates_and_take_dtype_and_several_outputs():
    special = pytest.importorskip("scipy.special")
    rng = np.random.default_rng(11)
    A, D = make_coo(rng, (5, 4), density=0.6, fill=1.5, duplicates=True)
    np.testing.assert_allclose(special.erf(A).to_dense(), special.erf(D), rtol=1e-14)  # erf(a + b), not erf(a) + erf(b)
    R = np.cbrt(A, dtype=np.float32)
    assert R.dtype == np.float32
    np.testing.assert_allclose(R.to_dense(), np.cbrt(D, dtype=np.float32), rtol=1e-6)
    frac, whole = np.modf(A * 1.25)
    ef, ew = np.modf(D * 1.25)
    np.testing.assert_allclose(frac.to_dense(), ef)
    np.testing.assert_allclose(whole.to_dense(), ew)
    B = sparray.asarray(np.array([True, False, True]))
    assert np.cbrt(B).dtype == np.float32  # float16 in NumPy: sparray has none
    out = np.zeros((5, 4))
    assert np.cbrt(A, out=out) is out
    np.testing.assert_allclose(out, np.cbrt(D))


def test_what_the_ufunc_map_does_not_serve_stays_a_type_error():
    A = sparray.asarray(np.array([[0.0, 1.0], [2.0, 0.0]]))
    with pytest.raises(TypeError, match="ufunc"):
        np.fmax(A, A)  # two inputs: a merge of patterns
    with pytest.raises(TypeError, match="ufunc"):
        np.cbrt(A, where=np.ones((2, 2), bool))
    with pytest.raises(TypeError, match="ufunc"):
        np.negative.at(A, [0])
    with pytest.raises(TypeError, match="ufunc"):
        np.cbrt(A.to_device("simulated"))  # device data: as CuPy answers


# ---- the client calls of issue 49, against the same calls on dense NumPy -------------------------------------
@pytest.mark.parametrize("fill", FILLS, ids=str)
def test_client_calls_on_small_inputs(fill):
    pytest.importorskip("scipy")
    import scipy.fft
    import scipy.signal
    import scipy.special
    import scipy.stats

    rng = np.random.default_rng(12)
    D = np.where(rng.random((5, 6)) < 0.5, rng.random((5, 6)) + 0.1, fill)
    for layout in LAYOUTS:
        A = sparray.asarray(D, fill_value=fill, layout=layout, **({"blocksize": (1, 2)} if layout in ("bsr", "bsc") else {}))
        close = {"rtol": 1e-12, "atol": 1e-12, "equal_nan": True}
        np.testing.assert_allclose(np.asarray(scipy.special.erf(A)), scipy.special.erf(D), **close)
        with np.errstate(all="ignore"):
            np.testing.assert_allclose(scipy.stats.entropy(A), scipy.stats.entropy(D), **close)
            got, expected = scipy.stats.pearsonr(A[0], A[1]), scipy.stats.pearsonr(D[0], D[1])
        np.testing.assert_allclose([float(got.statistic), float(got.pvalue)], [expected.statistic, expected.pvalue], **close)
        np.testing.assert_allclose(scipy.signal.convolve(A, A), scipy.signal.convolve(D, D), **close)
        np.testing.assert_allclose(scipy.fft.dct(A), scipy.fft.dct(D), **close)
        np.testing.assert_allclose(np.asarray(sparray.sum(A)), np.sum(D), **close)
        _same(np.asarray(sparray.unique_values(A)), np.unique_values(D))


@pytest.mark.parametrize("fill", FILLS, ids=str)
def test_xarray_values_and_to_numpy(fill):
    xr = pytest.importorskip("xarray")
    rng = np.random.default_rng(13)
    for layout in LAYOUTS:
        A, D = make_sparse(rng, layout, (4, 6), blocksize=(2, 3), density=0.5, fill=fill)
        X = xr.DataArray(A, dims=("x", "y"))
        _same(X.values, D)
        _same(X.to_numpy(), D)
        _same(np.asarray(X), D)


def test_sklearn_confusion_matrix():
    metrics = pytest.importorskip("sklearn.metrics")
    y = np.array([0.0, 1.0, 2.0, 1.0, 0.0, 2.0])
    p = np.array([0.0, 2.0, 2.0, 1.0, 0.0, 1.0])
    got = metrics.confusion_matrix(sparray.asarray(y), sparray.asarray(p))
    _same(np.asarray(got), metrics.confusion_matrix(y, p))


def test_docstring_examples_run():
    import doctest

    pytest.importorskip("scipy")
    from sparray._array import display, results
    from sparray._numpy import ufunc_map

    for mod in (implicit, ufunc_map, display, results):
        assert doctest.testmod(mod).failed == 0, mod.__name__
