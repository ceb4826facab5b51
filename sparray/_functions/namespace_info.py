"""The inspection API of the standard: ``sparray.__array_namespace_info__()`` and the versions
``A.__array_namespace__(api_version=...)`` accepts.

- ``capabilities()``: "boolean indexing" True (``A[mask]`` and ``A[mask] = v`` with dense or
  sparse masks); "data-dependent shapes" True when every function the standard marks with
  data-dependent output shapes (``nonzero``, ``unique_all``, ``unique_counts``,
  ``unique_inverse``, ``unique_values``) is in the namespace, derived from the namespace itself
  so it cannot go stale; "max dimensions" 64, NumPy's limit (``to_dense`` and the values of a
  hybrid array are NumPy or CuPy arrays; COO indices alone would allow more).
- ``default_device()``: "cpu" (creation functions make NumPy arrays unless told otherwise);
  ``devices()``: "cpu", then every CUDA device CuPy can use (``cupy.cuda.Device(n)``, what
  ``A.device`` reports for CuPy data).
- ``dtypes(device=None, kind=None)``: name -> dtype of every dtype sparray holds (all 13 of the
  standard's, on every device), narrowed by ``kind`` as ``isdtype`` reads it;
  ``default_dtypes(device=None)``: float64, complex128, int64, and int64 for indexing (the
  dtype of ``nonzero``'s arrays; the index components of arrays sparray builds are int32 when
  they fit, SciPy's rule, which is a storage choice, not the indexing default).

>>> import sparray
>>> info = sparray.__array_namespace_info__()
>>> info.capabilities()["boolean indexing"], info.default_device()
(True, 'cpu')
"""

from __future__ import annotations

from .._core import dtypes as _dtypes
from .._core.dtypes import DTYPE_NAMES, isdtype

__all__ = ["Info", "array_namespace_info", "SUPPORTED_API_VERSIONS", "check_api_version"]

#: the standard's versions sparray implements (the newest is ``sparray.__array_api_version__``)
SUPPORTED_API_VERSIONS = ("2021.12", "2022.12", "2023.12", "2024.12")
_DATA_DEPENDENT = ("nonzero", "unique_all", "unique_counts", "unique_inverse", "unique_values")
_KINDS = ("bool", "signed integer", "unsigned integer", "integral", "real floating", "complex floating", "numeric")


def check_api_version(api_version) -> None:
    """ValueError unless ``api_version`` is None or one of ``SUPPORTED_API_VERSIONS``."""
    if api_version is not None and api_version not in SUPPORTED_API_VERSIONS:
        raise ValueError(
            f"sparray: api_version must be one of {', '.join(SUPPORTED_API_VERSIONS)} (or None for the newest); "
            f"got {api_version!r}"
        )


def _cuda_devices() -> list:
    import importlib.util

    if importlib.util.find_spec("cupy") is None:
        return []
    try:
        import cupy

        if not cupy.is_available():
            return []
        return [cupy.cuda.Device(i) for i in range(cupy.cuda.runtime.getDeviceCount())]
    except Exception:  # a broken CUDA install offers no device
        return []


def _check_device(device, who):
    if device is None or device == "cpu" or (isinstance(device, str) and device.startswith("cuda")):
        return
    if type(device).__module__.startswith("cupy"):
        return
    raise ValueError(f"sparray.{who}: device must be None, 'cpu', 'cuda[:n]' or a cupy.cuda.Device; got {device!r}")


class Info:
    """What ``sparray.__array_namespace_info__()`` returns (see the module docstring)."""

    __module__ = "sparray"

    def capabilities(self) -> dict:
        from . import searching, sets

        return {
            "boolean indexing": True,
            "data-dependent shapes": all(hasattr(searching, name) or hasattr(sets, name) for name in _DATA_DEPENDENT),
            "max dimensions": 64,
        }

    def default_device(self):
        return "cpu"

    def devices(self) -> list:
        return ["cpu", *_cuda_devices()]

    def dtypes(self, *, device=None, kind=None) -> dict:
        _check_device(device, "__array_namespace_info__().dtypes")
        names = DTYPE_NAMES
        if kind is not None:
            kinds = kind if isinstance(kind, tuple) else (kind,)
            for k in kinds:
                if not isinstance(k, str) or k not in _KINDS:
                    raise ValueError(
                        f"sparray.__array_namespace_info__().dtypes: kind must be None, one of {', '.join(_KINDS)} "
                        f"or a tuple of them; got {kind!r}"
                    )
            names = [n for n in names if isdtype(getattr(_dtypes, n), kinds)]
        return {n: getattr(_dtypes, n) for n in names}

    def default_dtypes(self, *, device=None) -> dict:
        _check_device(device, "__array_namespace_info__().default_dtypes")
        return {
            "real floating": _dtypes.float64,
            "complex floating": _dtypes.complex128,
            "integral": _dtypes.int64,
            "indexing": _dtypes.int64,
        }

    def __repr__(self) -> str:
        return "sparray.__array_namespace_info__()"


def array_namespace_info() -> Info:
    """``sparray.__array_namespace_info__()``: the standard's inspection object."""
    return Info()
