"""Moving arrays between devices: to_device("cpu" | "cuda" | "cuda:N" | a cupy Device) for every
layout, clear errors for malformed names and for a machine without a GPU; on a GPU, every component
moves, fill and layout are kept, and the registry serves CuPy data from the "cupy" column."""

import numpy as np
import pytest

import sparray as sp
from cuda_testing import DEVICES
from sparray._layout.conversion import cuda_device_id

LAYOUTS = ["coo", "csr", "csc", "bsr", "bsc"]
GPU = "cupy" in DEVICES


def _example(layout):
    dense = np.array([[1.5, 0.0, 2.0, 0.0], [0.0, 0.0, -1.0, 3.0]])
    kw = {"blocksize": (1, 2)} if layout in ("bsr", "bsc") else {}
    return dense, sp.asarray(dense, layout=layout, fill_value=0.0, **kw)


def test_device_names():
    assert cuda_device_id("cuda") is None
    assert cuda_device_id("cuda:0") == 0 and cuda_device_id("cuda:12") == 12
    assert cuda_device_id("cpu") == -1
    for bad in ["cuda:", "cuda:x", "cuda1", "cuda:-1"]:
        with pytest.raises(ValueError, match="expected 'cpu', 'cuda' or 'cuda:N'"):
            cuda_device_id(bad)


@pytest.mark.skipif(GPU, reason="checks the message on a machine without a GPU")
@pytest.mark.parametrize("layout", LAYOUTS)
def test_to_cuda_without_a_gpu_says_so(layout):
    _, A = _example(layout)
    with pytest.raises(ValueError, match=r"to_device\('cuda'\): CuPy"):
        A.to_device("cuda")
    assert A.to_device("cpu").device == "cpu"


@pytest.mark.skipif(not GPU, reason="needs a GPU")
@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("device", ["cuda", "cuda:0"])
def test_round_trip_through_the_gpu(layout, device):
    import cupy

    dense, A = _example(layout)
    G = A.to_device(device)
    assert G.layout == A.layout and G.shape == A.shape
    for comp in [G.values, *([G.indices] if layout == "coo" else [G.compressed_indices, G.plain_indices])]:
        assert isinstance(comp, cupy.ndarray)
    np.testing.assert_array_equal(cupy.asnumpy(G.to_dense()), dense)
    np.testing.assert_array_equal(np.asarray((G + G).to_device("cpu").to_dense()), dense + dense)
    back = G.to_device("cpu")
    assert isinstance(back.values, np.ndarray)
    np.testing.assert_array_equal(back.to_dense(), dense)
    with pytest.raises(ValueError, match="cuda:99"):
        A.to_device("cuda:99")


@pytest.mark.skipif(not GPU, reason="needs a GPU")
def test_registry_serves_cupy_data_with_cuda_kernels():
    import sparray._engine.dispatch as d

    G = sp.COO(np.array([[2, 0, 2]]), np.array([1.0, 2.0, 3.0]), shape=(3,)).to_device("cuda")
    assert d._lookup("coalesce", "coo", G._xp)[0] == "cupy"
    assert G.coalesce().to_device("cpu").values.tolist() == [2.0, 4.0]
