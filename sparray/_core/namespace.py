"""Which array-API namespace and device a set of components lives in.

A SparseArray stores plain arrays of ONE array-API namespace (NumPy, CuPy, array_api_strict, ...).
Everything in sparray computes with ``xp = namespace_of(...)``: the array-api-compat wrapper of
that namespace, so the same code runs on every library.

Python lists and scalars become NumPy arrays (CuPy when ``device="cuda"``).
"""

from __future__ import annotations

import functools

import array_api_compat
import numpy as np

__all__ = [
    "as_component",
    "backend_kind",
    "device_of",
    "is_array",
    "namespace_for_device",
    "namespace_of",
    "to_numpy",
]


def is_array(x) -> bool:
    """True for an array of any array-API namespace (not a list, not a Python scalar)."""
    return array_api_compat.is_array_api_obj(x) and not isinstance(x, (bool, int, float, complex))


def namespace_of(*arrays):
    """The array-api-compat namespace shared by ``arrays`` (lists and scalars are ignored).

    Raises TypeError when the arrays come from different namespaces.
    """
    if all(type(a) is np.ndarray for a in arrays):  # the common case, without the general search (~4 us)
        return _numpy_namespace()
    arrs = [a for a in arrays if is_array(a)]
    if not arrs:
        return _numpy_namespace()
    try:
        return array_api_compat.array_namespace(*arrs)
    except TypeError as e:
        kinds = sorted({type(a).__module__ + "." + type(a).__name__ for a in arrs})
        raise TypeError(
            f"sparray: all components and operands must come from one array namespace; got {kinds}"
        ) from e


@functools.cache
def _numpy_namespace():
    """array-api-compat's NumPy namespace (looked up once)."""
    return array_api_compat.array_namespace(np.empty(0))


def namespace_for_device(device):
    """Namespace for new arrays on ``device``: None or "cpu" -> NumPy, "cuda" or a CuPy device -> CuPy."""
    if device is None or (isinstance(device, str) and device == "cpu"):
        return _numpy_namespace()
    if _is_simulated_device(device):
        from ..kernels.cuda import simulated

        return simulated.array_api
    if (isinstance(device, str) and device.startswith("cuda")) or type(device).__module__.startswith("cupy"):
        import cupy  # only when CUDA data is asked for

        return array_api_compat.array_namespace(cupy.empty(0))
    raise ValueError(f"sparray: device must be None, 'cpu' or 'cuda'; got {device!r}")


def _is_simulated_device(device) -> bool:
    """The simulated CUDA device (``kernels/cuda/simulated.py``): ``"simulated"`` or its object."""
    return (isinstance(device, str) and device == "simulated") or type(device).__name__ == "SimulatedDevice"


def as_component(x, xp, *, dtype=None, name="component"):
    """``x`` as an array of namespace ``xp`` (lists and scalars converted; arrays kept as they are).

    Raises TypeError when ``x`` is an array of another namespace.
    """
    if is_array(x):
        if array_api_compat.array_namespace(x) is not xp:
            raise TypeError(
                f"sparray: {name} is a {type(x).__module__}.{type(x).__name__}, but the other "
                f"components are arrays of {xp.__name__}; pass all components from one namespace"
            )
        if dtype is not None and x.dtype != dtype:
            return xp.astype(x, dtype)
        return x
    try:
        return xp.asarray(x, dtype=dtype)
    except (TypeError, ValueError) as e:
        raise TypeError(f"sparray: {name} could not be converted to an array: {e}") from e


def device_of(x):
    """The device of an array, as array-api-compat reports it ("cpu" for NumPy)."""
    return array_api_compat.device(x)


def backend_kind(xp) -> str:
    """Which kernel family can serve data of namespace ``xp``: "numba", "cupy" or "generic"."""
    if array_api_compat.is_numpy_namespace(xp):
        return "numba"
    if array_api_compat.is_cupy_namespace(xp) or getattr(xp, "_sparray_simulated", False):
        return "cupy"  # CuPy, or the simulated CUDA device (its kernels run in the emulator)
    return "generic"


def to_numpy(x):
    """A component as a NumPy array: NumPy arrays as they are, CuPy arrays copied to the host,
    any other CPU namespace through DLPack (no copy) or ``np.asarray``."""
    if isinstance(x, np.ndarray):
        return x
    if array_api_compat.is_cupy_array(x) or type(x).__name__ == "SimulatedArray":
        return x.get()
    try:
        return np.from_dlpack(x)
    except (TypeError, RuntimeError, BufferError):
        return np.asarray(x)
