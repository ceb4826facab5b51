"""Where test data lives: the CPU, the simulated device, a real GPU (``cuda``, when one is here).

``PLACES`` lists the places a test runs on; ``to_place(v, place)`` moves a sparse array or a dense
one there (dense NumPy data becomes a simulated or CuPy array), ``on_place(v, place)`` says whether
a result's every component lives there, and ``dense_on_host(v)`` is any result as dense NumPy.

>>> import numpy as np
>>> x = to_place(np.arange(3.0), "simulated")
>>> on_place(x, "simulated"), dense_on_host(x).tolist()
(True, [0.0, 1.0, 2.0])
"""

from __future__ import annotations

import numpy as np
from cuda_testing import DEVICES

import sparray as sp
from sparray.kernels.cuda import simulated

PLACES = ["cpu", "simulated"] + (["cuda"] if "cupy" in DEVICES else [])

_INDEX_NAMES = ("indices", "crow_indices", "ccol_indices", "row_indices", "col_indices", "metadata")


def to_place(v, place):
    """``v`` (a SparseArray or dense data) on ``place``; on "cpu" unchanged."""
    if place == "cpu":
        return v
    if isinstance(v, sp.SparseArray):
        return v.to_device(place)
    if place == "simulated":
        return simulated.to_simulated(np.asarray(v))
    import cupy

    return cupy.asarray(v)


def on_place(v, place):
    """Whether every component of ``v`` (its values and indices, or the dense array) lives on ``place``."""
    if isinstance(v, sp.SparseArray):
        parts = [v.values, *(getattr(v, n) for n in _INDEX_NAMES if hasattr(v, n))]
    else:
        parts = [v]
    if place == "simulated":
        return all(simulated.is_simulated(p) for p in parts)
    module = "cupy" if place == "cuda" else "numpy"
    return all(type(p).__module__.startswith(module) for p in parts)


def dense_on_host(v):
    """Any result (sparse or dense, on any place) as a dense NumPy array."""
    if isinstance(v, sp.SparseArray):
        return np.asarray(v.to_device("cpu").to_dense())
    if type(v).__module__.startswith("cupy") or simulated.is_simulated(v):
        return v.get()
    return np.asarray(v)
