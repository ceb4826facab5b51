"""Exchange with other libraries: ``sparray.interop.torch``, ``sparray.interop.scipy``,
``sparray.interop.dask`` (sparray arrays as Dask array chunks), ``sparray.interop.graphblas`` and
``sparray.interop.networkx`` (graphs; also in ``sparray.graph``).

Each submodule is imported on first attribute access (``sparray.interop.torch.to_torch(A)``
works after a plain ``import sparray``), so importing sparray imports neither torch, scipy, dask,
python-graphblas nor networkx.

>>> import sparray
>>> A = sparray.CSR([0, 1, 2], [1, 0], [5.0, 7.0], shape=(2, 2))
>>> sparray.interop.scipy.to_scipy(A).toarray().tolist()
[[0.0, 5.0], [7.0, 0.0]]
"""

import importlib

__all__ = ["dask", "graphblas", "networkx", "scipy", "torch"]


def __getattr__(name):
    if name in __all__:
        return importlib.import_module(f"{__name__}.{name}")
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}; expected one of {__all__}")


def __dir__():
    return sorted([*globals(), *__all__])
