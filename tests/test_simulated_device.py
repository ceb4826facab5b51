"""The simulated CUDA device (``sparray/kernels/cuda/simulated.py``): CI's GPU place.

It must behave as CuPy data does where sparray could tell the difference (a distinct namespace and
device, host arrays refused, implicit conversions refused, NumPy's ufuncs refused), be served by the
registry's ``cupy`` column with the CUDA kernels in the emulator, and count every transfer to the
host and every launch, wherever they are made.
"""

from __future__ import annotations

import numpy as np
import pytest

import sparray as sp
from cuda_testing import requires_gxx
from sparray._engine import dispatch as _dispatch
from sparray.kernels.cuda import _driver, simulated
from sparray.kernels.cuda.simulated import counting, to_simulated

LAYOUTS = ["coo", "csr", "csc", "bsr", "bsc"]


def _example(layout):
    dense = np.array([[1.5, 0.0, 2.0, 0.0], [0.0, 0.0, -1.0, 3.0]])
    kw = {"blocksize": (1, 2)} if layout in ("bsr", "bsc") else {}
    return dense, sp.asarray(dense, layout=layout, fill_value=0.0, **kw)


def _components(A):
    names = ("indices",) if A.layout == "coo" else ("compressed_indices", "plain_indices")
    return [A.values, *(getattr(A, n) for n in names)]


@requires_gxx
@pytest.mark.parametrize("layout", LAYOUTS)
def test_round_trip_through_the_simulated_device(layout):
    dense, A = _example(layout)
    G = A.to_device("simulated")
    assert G.layout == A.layout and G.shape == A.shape and G.device == simulated.DEVICE
    assert all(simulated.is_simulated(c) for c in _components(G))
    np.testing.assert_array_equal(G.to_dense().get(), dense)
    np.testing.assert_array_equal((G + G).to_device("cpu").to_dense(), dense + dense)
    back = G.to_device("cpu")
    assert all(type(c) is np.ndarray for c in _components(back))
    np.testing.assert_array_equal(back.to_dense(), dense)
    with pytest.raises(ValueError, match="simulated"):
        G.to_device("cuda:3")


@requires_gxx
def test_the_registry_serves_it_from_the_cupy_column():
    G = sp.COO(np.array([[2, 0, 2]]), np.array([1.0, 2.0, 3.0]), shape=(3,)).to_device("simulated")
    assert _dispatch._lookup("coalesce", "coo", G._xp)[0] == "cupy"
    with counting() as c:
        out = G.coalesce()
    assert ("coalesce.cu" in {source for source, _ in c.launches}), c.launches
    assert out.values.get().tolist() == [2.0, 4.0]


def test_it_refuses_host_data_as_cupy_does():
    a = to_simulated(np.arange(3.0))
    with pytest.raises(TypeError, match="implicit conversion"):
        np.asarray(a)
    with pytest.raises(TypeError, match="host memory"):
        a + np.arange(3.0)
    with pytest.raises(TypeError):
        np.add(a, 1.0)
    with pytest.raises(TypeError, match="host memory"):
        simulated.array_api.concat([a, np.arange(2.0)])
    assert (a + np.float64(1.0)).get().tolist() == [1.0, 2.0, 3.0]  # a NumPy scalar is fine
    assert simulated.array_api.asarray(np.arange(2.0)).get().tolist() == [0.0, 1.0]  # asarray copies in


def test_every_transfer_to_the_host_is_counted_with_its_site():
    a = to_simulated(np.array([0.0, 2.0, 0.0, 3.0]))
    xp = simulated.array_api
    with counting() as c:
        b = xp.sum(a * 2.0)  # stays on the device
        assert c.syncs == 0 and simulated.is_simulated(b)
        float(b)
        bool(b > 1)
        a.tolist()
        a[a > 1.0]  # a boolean mask sizes its result from the data
        xp.nonzero(a)
        int(xp.max(a))
    assert c.syncs == 6
    assert [s.split(" @ ")[0] for s in c.sites] == ["float()", "bool()", "tolist()", "boolean mask index", "nonzero()", "int()"]


def test_windows_nest_and_close():
    a = to_simulated(np.ones(2))
    with counting() as outer:
        float(a[0])
        with counting() as inner:
            float(a[1])
    float(a[0])  # no window open: not counted anywhere
    assert (outer.syncs, inner.syncs) == (2, 1)


@requires_gxx
def test_launches_are_counted_and_record_only_skips_them(monkeypatch):
    dense, A = _example("csr")
    G = A.to_device("simulated")
    x = to_simulated(np.arange(4.0))
    with counting() as c:
        y = G @ x
    assert any(source == "spmm.cu" for source, _ in c.launches), c.launches
    np.testing.assert_allclose(y.get(), dense @ np.arange(4.0))

    def must_not_run(*args):
        raise AssertionError("a recorded launch ran")

    monkeypatch.setattr(_driver.EmulatorDriver, "launch", must_not_run)
    with counting(record_only=True) as r:
        G @ x  # the host path alone: the kernels are named (and must exist), not run
    assert r.launches == c.launches


@requires_gxx
def test_the_simulated_driver_refuses_host_arrays():
    drv = _driver.driver_for(to_simulated(np.zeros(2)))
    assert drv.name == "simulated" and drv.xp is simulated.numpy_like
    with pytest.raises(_driver.LaunchError, match="host memory"):
        drv.launch("finite.cu", "find_nonfinite<double>", 2, (np.zeros(2), np.int64(2), to_simulated(np.zeros(1, np.int64))))
    with pytest.raises(TypeError, match="mixed"):
        _driver.driver_for(np.zeros(2), to_simulated(np.zeros(2)))


def test_its_numpy_like_module_sorts_stably_and_counts_data_sized_results():
    xp = simulated.numpy_like
    keys = to_simulated(np.array([1, 0, 1, 0, 1] * 20))
    order = xp.argsort(keys).get()
    assert (order == np.argsort(keys.get(), kind="stable")).all()
    with counting() as c:
        xp.flatnonzero(keys)
        xp.repeat(keys, keys)
        xp.cumsum(keys)
    assert c.syncs == 2


def test_namespace_and_device_are_distinct():
    a = to_simulated(np.zeros(2))
    import array_api_compat

    xp = array_api_compat.array_namespace(a)
    assert xp is simulated.array_api and not array_api_compat.is_numpy_namespace(xp)
    assert a.device == simulated.DEVICE and a.device != "cpu"
    assert sp.asarray(np.eye(2), layout="csr", device="simulated").values.device == simulated.DEVICE
    assert xp.zeros(2, device=a.device).device == simulated.DEVICE
