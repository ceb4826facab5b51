"""``python -m sparray info``: what this installation runs on, as plain ``name: value`` lines.

Versions (sparray, Python, NumPy, array-api-compat, and the optional numba, SciPy, torch, CuPy),
the backends found, the devices (CPU, and CUDA GPUs when CuPy sees any), numba's threading
layer and thread count, and where compiled kernels are cached. Nothing is compiled and nothing
heavy is imported unless it is installed; a missing optional package reads "not installed".

>>> from sparray._tools.info import info_lines
>>> info_lines()[0].startswith("sparray: ")
True
"""

from __future__ import annotations

import importlib
import importlib.metadata
import importlib.util
import platform
import sys

__all__ = ["info_lines", "main"]

_OPTIONAL = [("numba", "numba"), ("scipy", "scipy"), ("torch", "torch"), ("cupy", "cupy-cuda13x")]


def _version(module: str, dist: str) -> str:
    if importlib.util.find_spec(module) is None:
        return "not installed"
    try:
        return importlib.metadata.version(dist)
    except importlib.metadata.PackageNotFoundError:
        return getattr(importlib.import_module(module), "__version__", "installed")


def _numba_lines() -> list[str]:
    if importlib.util.find_spec("numba") is None:
        return ["numba threading layer: numba not installed"]
    import numba

    from ..kernels.cpu import _threads
    from ..kernels.cpu._cache import cache_root, kernel_cache_dir

    layer = _threads.layer()  # starts numba's pool as sparray starts it (its layer order, its spin)
    _threads.free_cores()  # a first reading, then one SAMPLE_PERIOD later: the other processes' use
    import time

    time.sleep(_threads.SAMPLE_PERIOD)
    free = _threads.free_cores()
    cache = str(kernel_cache_dir())
    if numba.config.CACHE_DIR:
        cache = f"{numba.config.CACHE_DIR} (NUMBA_CACHE_DIR)"
    return [
        f"numba threading layer: {layer}",
        f"numba threads: {numba.get_num_threads()} of {numba.config.NUMBA_NUM_THREADS}"
        f" (cores other processes leave free now: {free}; see docs/backends.md)",
        f"kernel cache root: {cache_root()}",
        f"kernel cache (this install): {cache}",
    ]


def _device_lines() -> list[str]:
    lines = [f"cpu: {platform.machine() or 'unknown'}, {_cpu_count()} logical cores"]
    if importlib.util.find_spec("cupy") is None:
        return lines + ["cuda: cupy not installed"]
    try:
        import cupy

        if not cupy.is_available():
            return lines + ["cuda: cupy installed, no usable GPU"]
        for i in range(cupy.cuda.runtime.getDeviceCount()):
            props = cupy.cuda.runtime.getDeviceProperties(i)
            name = props["name"].decode() if isinstance(props["name"], bytes) else props["name"]
            mem = props["totalGlobalMem"] / 2**30
            lines.append(f"cuda:{i}: {name}, {mem:.0f} GiB, compute capability {props['major']}.{props['minor']}")
    except Exception as exc:  # a broken CUDA install is reported, not raised
        lines.append(f"cuda: cupy installed, CUDA unusable ({type(exc).__name__}: {exc})")
    return lines


def _cpu_count() -> int:
    import os

    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)


def info_lines() -> list[str]:
    """The report of ``python -m sparray info``, one ``name: value`` string per line."""
    import sparray

    lines = [
        f"sparray: {sparray.__version__} ({sparray.__file__})",
        f"python: {platform.python_version()} ({sys.executable})",
        f"platform: {platform.platform()}",
        f"numpy: {_version('numpy', 'numpy')}",
        f"array-api-compat: {_version('array_api_compat', 'array-api-compat')}",
    ]
    lines += [f"{name}: {_version(name, dist)}" for name, dist in _OPTIONAL]
    lines.append(f"backends: {', '.join(sparray.backends())}")
    lines += _device_lines()
    lines += _numba_lines()
    return lines


def main() -> None:
    print("\n".join(info_lines()))
