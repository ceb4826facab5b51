"""Where a launcher's kernels run: on a GPU through CuPy, or on the CPU through the emulator (NumPy
buffers for the kernel tests, SimulatedArrays for the simulated device of the public path).

A launcher (``coalesce.py``, ...) never calls CuPy or ctypes itself; it asks :func:`driver_for`
for the driver of its input arrays and uses three things from it:

- ``driver.xp``: the array namespace of the data (``cupy`` or ``numpy``) for allocations and the
  library primitives the launcher composes with its kernels (sort, scan, reductions: CUB on a GPU);
- ``driver.launch(source, name, n, args)``: run the kernel ``name`` of ``source`` over ``n``
  work items with a grid-stride grid chosen by the driver;
- ``driver.scalar(a)``: one element of a device array as a Python number (a size or an error count
  the launcher needs on the host: the only device-to-host copies a launcher makes).

Both drivers check every argument before a launch: arrays must belong to the driver's namespace,
be C-contiguous and (emulator) have the item size of the kernel's pointer parameter; scalars must
be NumPy scalars (``np.int64(n)``), never Python numbers, whose width CuPy would guess, and
(emulator) must have the parameter's width. The emulator reads each kernel's parameter list from
the host build, so a width mismatch made anywhere fails in CI, without a GPU.

>>> import numpy as np
>>> driver_for(np.zeros(3)).name
'emulator'
"""

from __future__ import annotations

import ctypes
import math
import threading

import numpy as np

from . import _build, simulated

__all__ = ["driver_for", "EmulatorDriver", "SimulatedDriver", "CupyDriver", "LaunchError"]


class LaunchError(TypeError):
    """A kernel was handed an argument of the wrong kind, width or layout (a launcher bug)."""


def _check_scalar(who, i, a):
    if isinstance(a, (bool, int, float, complex)) and not isinstance(a, np.generic):
        raise LaunchError(
            f"{who}: argument {i} is a Python {type(a).__name__} ({a!r}); pass a NumPy scalar of the "
            "kernel parameter's width (np.int64, np.int32, np.float64, ...)"
        )


class EmulatorDriver:
    """Runs the kernels' host build (``_emulate.h``) on NumPy buffers: CI's GPU."""

    name = "emulator"
    xp = np
    block = 64  # two warps: enough to exercise warp and block logic, cheap in OS threads
    max_blocks = 3  # several blocks, so grid-stride loops and cross-block atomics are exercised

    def __init__(self):
        self._libs: dict[str, tuple[ctypes.CDLL, dict[str, int], list]] = {}
        self._lock = threading.Lock()

    def _entry(self, source, name):
        with self._lock:
            if source not in self._libs:
                path, names = _build.host_library(source)
                lib = ctypes.CDLL(str(path))
                sigs = []
                for i in range(len(names)):
                    fn = getattr(lib, f"sparray_signature_{i}")
                    fn.restype = ctypes.c_char_p
                    text = fn().decode()
                    sigs.append([(p[0], int(p[1:])) for p in text.split(",")] if text else [])
                self._libs[source] = (lib, {n: i for i, n in enumerate(names)}, sigs)
        lib, index, sigs = self._libs[source]
        if name not in index:
            raise LaunchError(f"{source}: {name!r} is not in its launcher's NAME_EXPRESSIONS")
        i = index[name]
        return getattr(lib, f"sparray_launch_{i}"), sigs[i]

    def launch(self, source, name, n, args):
        fn, sig = self._entry(source, name)
        who = f"{source}:{name}"
        if len(args) != len(sig):
            raise LaunchError(f"{who}: takes {len(sig)} arguments, got {len(args)}")
        keep, ptrs = [], (ctypes.c_void_p * max(1, len(args)))()
        for i, (a, (kind, size)) in enumerate(zip(args, sig)):
            _check_scalar(who, i, a)
            if isinstance(a, np.ndarray):
                if kind != "p":
                    raise LaunchError(f"{who}: argument {i} is an array where the kernel takes a {size}-byte scalar")
                if not a.flags.c_contiguous:
                    raise LaunchError(f"{who}: argument {i} must be C-contiguous")
                if size and a.dtype.itemsize != size:
                    raise LaunchError(f"{who}: argument {i} has {a.dtype.itemsize}-byte items ({a.dtype}); the kernel reads {size}-byte items")
                cell = ctypes.c_void_p(a.ctypes.data)
            elif isinstance(a, np.generic):
                if kind != "s" or a.dtype.itemsize != size:
                    raise LaunchError(f"{who}: argument {i} is a {a.dtype} scalar; the kernel takes " + (f"a {size}-byte scalar" if kind == "s" else "a pointer"))
                cell = np.array(a)
            else:
                raise LaunchError(f"{who}: argument {i} has type {type(a).__name__}; expected a NumPy array or scalar")
            keep.append(cell)
            ptrs[i] = ctypes.addressof(cell) if isinstance(cell, ctypes.c_void_p) else cell.ctypes.data
        nblocks = max(1, min(math.ceil(n / self.block), self.max_blocks))
        grid = (ctypes.c_uint * 3)(nblocks, 1, 1)
        block = (ctypes.c_uint * 3)(self.block, 1, 1)
        fn.restype = ctypes.c_int
        rc = fn(grid, block, ptrs)
        if rc != 0:
            raise LaunchError(f"{who}: the emulator refused the launch configuration (code {rc})")

    @staticmethod
    def scalar(a):
        return a.item() if a.ndim == 0 else a.reshape(-1)[0].item()


class SimulatedDriver(EmulatorDriver):
    """The simulated CUDA device (``simulated.py``): the emulator on the buffers of
    SimulatedArrays, ``xp`` the device's NumPy-like module, every launch and read counted.

    Arguments must be SimulatedArrays (a NumPy array would be host memory on a GPU: LaunchError).
    Inside ``counting(record_only=True)`` a launch is recorded and not run (its outputs keep
    whatever they held), which times the host path alone."""

    name = "simulated"

    def __init__(self):
        super().__init__()
        self.xp = simulated.numpy_like

    def launch(self, source, name, n, args):
        device_array = simulated.SimulatedArray
        buffers = [a._a if type(a) is device_array else a for a in args]
        for i, a in enumerate(args):
            if type(a) is np.ndarray:
                raise LaunchError(f"{source}:{name}: argument {i} is a NumPy array (host memory); launches on the simulated device take its arrays")
        if simulated.note_launch(source, name):
            self._entry(source, name)  # the kernel must exist, even when it is not run
            return
        super().launch(source, name, n, buffers)  # (scalar: EmulatorDriver's; item() counts the sync)


class CupyDriver:
    """Runs the kernels on the current CUDA device through ``cupy.RawModule``."""

    name = "cupy"
    block = 256

    def __init__(self):
        import cupy

        self.xp = cupy
        self._modules: dict[tuple[int, str], object] = {}
        self._lock = threading.Lock()

    def _function(self, source, name):
        cupy = self.xp
        dev = cupy.cuda.Device().id
        with self._lock:
            key = (dev, source)
            if key not in self._modules:
                names = _build.name_expressions()[source]
                opts = ("--std=c++17", f"-I{_build.CUDA_DIR}")
                self._modules[key] = cupy.RawModule(code=_build.source_text(source), options=opts, name_expressions=names)
        return self._modules[key].get_function(name)

    def launch(self, source, name, n, args):
        cupy = self.xp
        who = f"{source}:{name}"
        dev = None
        for i, a in enumerate(args):
            _check_scalar(who, i, a)
            if isinstance(a, cupy.ndarray):
                if not a.flags.c_contiguous:
                    raise LaunchError(f"{who}: argument {i} must be C-contiguous")
                if dev is None:
                    dev = a.device.id
                elif a.device.id != dev:
                    raise ValueError(f"{who}: arrays on devices cuda:{dev} and cuda:{a.device.id}; move them to one device first")
            elif not isinstance(a, np.generic):
                raise LaunchError(f"{who}: argument {i} has type {type(a).__name__}; expected a CuPy array or a NumPy scalar")
        with cupy.cuda.Device(dev if dev is not None else cupy.cuda.Device().id):
            fn = self._function(source, name)
            sms = cupy.cuda.Device().attributes["MultiProcessorCount"]
            nblocks = max(1, min(math.ceil(n / self.block), 32 * sms))
            if simulated.note_launch(source, name):  # counted; inside counting(record_only=True): not run
                return
            fn((nblocks,), (self.block,), tuple(args))

    @staticmethod
    def scalar(a):
        simulated.note_sync("driver.scalar")
        return a.item() if a.ndim == 0 else a.reshape(-1)[0].item()


_DRIVERS: dict[str, object] = {}


def driver_for(*arrays):
    """The driver for these arrays: CuPy for CuPy arrays, the emulator for NumPy arrays.
    TypeError when they mix namespaces."""
    kinds = set()
    for a in arrays:
        if isinstance(a, np.ndarray):
            kinds.add("emulator")
        elif type(a).__name__ == "SimulatedArray":
            kinds.add("simulated")
        elif type(a).__module__.startswith("cupy"):
            kinds.add("cupy")
    if len(kinds) > 1:
        raise TypeError(f"sparray CUDA kernels: arrays of {sorted(kinds)} mixed in one call; move them to one device first")
    kind = kinds.pop() if kinds else "emulator"
    if kind not in _DRIVERS:
        _DRIVERS[kind] = {"emulator": EmulatorDriver, "simulated": SimulatedDriver, "cupy": CupyDriver}[kind]()
    return _DRIVERS[kind]
