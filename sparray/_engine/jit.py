"""JIT kernels without the wait, and safe from any number of threads.

**Background compilation.** The first call of a numba kernel on a machine compiles it: seconds that a
person in a notebook waits at every new operation. So a kernel that is not *ready* does not make the
caller wait: the registry answers that call with the generic implementation (plain array-API code,
no compilation) while a background *process* runs the kernel on a copy of the same arguments, which
compiles it into numba's on-disk cache; once that process is done the kernel is ready, and later
calls load it from the cache (quick) and run it. A process, not a thread: numba compiles while
holding the GIL for long stretches (LLVM), which would stall the caller's generic call as much as
compiling in its own thread.

A kernel is ready per ``(op, layout, argument types)``, the types numba specialises on (dtype, rank
and contiguity of each array, the type of each scalar), once it has run for them, in this process
or in an earlier one on this machine: a marker file in the kernel cache folder, which is named by a
hash of the kernel sources (changed kernels start over). Arguments of more than
``BACKGROUND_MAX_BYTES`` are not copied: such a call compiles in the caller's process, as does
any call when starting a process fails.

Modes (``SPARRAY_JIT=background|eager``, read at import, or :func:`set_mode`):

- ``"background"`` (the default): as above;
- ``"eager"``: a kernel compiles in the caller's process on first use (the benchmarks, which time
  the kernels, and the test suite).

A backend forced with ``use_backend("numba")`` or ``SPARRAY_BACKEND`` always runs the kernels, eagerly.

**Thread safety.** numba's ``workqueue`` threading layer (what numba uses when neither OpenMP nor TBB
is installed, as on many macOS and minimal container setups) aborts the process when two threads
launch parallel kernels at once. Under that layer every kernel call holds one process-wide lock
(:func:`kernel_guard`); under ``omp`` and ``tbb`` calls run concurrently.

>>> set_mode("eager"); mode()
'eager'
>>> set_mode("background")
"""

from __future__ import annotations

import atexit
import contextlib
import hashlib
import os
import pathlib
import pickle
import shutil
import subprocess
import sys
import tempfile
import threading

import numpy as np

__all__ = [
    "BACKGROUND_MAX_BYTES", "compile_in_background", "compiling", "kernel_guard", "key_of", "mark_ready",
    "mode", "ran_here", "ready", "set_mode", "wait",
]  # fmt: skip

MODES = ("background", "eager")
#: calls whose array arguments hold more bytes than this compile in the caller's process
BACKGROUND_MAX_BYTES = 128 << 20

_READY: set[tuple] = set()
_RAN: set[tuple] = set()  # keys whose kernel ran in this process (loaded: a call costs no start-up)
_QUEUED: dict[tuple, str] = {}  # key -> its job file, until the compile process that took it ends
_STARTED: set[tuple] = set()  # the keys a compile process has taken
_TRIED: set[tuple] = set()  # keys a compile process took without leaving them ready: compile eagerly
_spawn_failed = False  # no compile process could start here: compile eagerly
_runner: threading.Thread | None = None
_STATE = threading.Lock()
_mode = "background"


def set_mode(name: str) -> None:
    """``"background"`` or ``"eager"`` (see the module docstring)."""
    global _mode
    if name not in MODES:
        raise ValueError(f"sparray JIT mode must be one of {MODES}; got {name!r}")
    _mode = name


def mode() -> str:
    return _mode


def _from_environment() -> None:
    text = os.environ.get("SPARRAY_JIT", "").strip()
    if text:
        if text not in MODES:
            raise ValueError(f"SPARRAY_JIT: expected one of {MODES}; got {text!r}")
        set_mode(text)


_from_environment()


def _arg_type(a):
    if isinstance(a, np.ndarray):
        return ("array", a.dtype.str, a.ndim, bool(a.flags.c_contiguous))
    if isinstance(a, np.generic):
        return ("scalar", a.dtype.str)
    if isinstance(a, (tuple, list)):
        return (type(a).__name__, tuple(_arg_type(v) for v in a))
    return type(a).__name__


def key_of(op: str, layout: str, args) -> tuple:
    """What a kernel is compiled for: the op, the layout and the argument types."""
    return (op, layout, tuple(_arg_type(a) for a in args))


def _marker(key) -> pathlib.Path:
    import numba

    from ..kernels.cpu._cache import kernel_cache_dir

    name = hashlib.sha1(repr((key, numba.__version__)).encode()).hexdigest()[:24]
    return kernel_cache_dir() / "ready" / name


def ready(key) -> bool:
    """Whether the kernel has run for these types here or in an earlier process on this machine."""
    if key in _READY:
        return True
    try:
        found = _marker(key).exists()
    except OSError:
        found = False
    if found:
        _READY.add(key)
    return found


def ran_here(key) -> bool:
    """Whether the kernel ran for these types in this process (so it is loaded: the registry then
    gives it small inputs too, see ``sparray._engine.dispatch.SMALL_WORK``)."""
    return key in _RAN


def mark_ready(key, ran: bool = True) -> None:
    """Remember that the kernel ran for these types (in memory, and on disk for later processes);
    ``ran=False``: it was called but declined the input (so it is not one to prefer for small ones)."""
    if ran:
        _RAN.add(key)
    if key in _READY:
        return
    _READY.add(key)
    try:
        path = _marker(key)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.touch()
    except OSError:  # a read-only cache folder only costs later processes a background compile
        pass


def _nbytes(args) -> int:
    total = 0
    for a in args:
        if isinstance(a, np.ndarray):
            total += a.nbytes
        elif isinstance(a, (tuple, list)):
            total += _nbytes(a)
    return total


def _package_parent() -> str:
    return str(pathlib.Path(__file__).resolve().parent.parent)


def compile_in_background(key, target: str, args) -> bool:
    """Queue the kernel ``target`` ("module:function") to run on a copy of ``args`` in the
    background compile process, unless it is queued or running already. False when the call cannot
    go to the background (arguments too large or not picklable): the caller then compiles eagerly.

    One compile process runs at a time, at a low priority, taking every job queued when it starts,
    so compiling keeps to one core and the caller's generic calls keep the others."""
    with _STATE:
        if key in _QUEUED:
            return True
        if key in _TRIED or _spawn_failed:
            return False
    if _nbytes(args) > BACKGROUND_MAX_BYTES:
        return False
    try:
        folder = tempfile.mkdtemp(prefix="sparray-jit-")
        path = os.path.join(folder, "call.pkl")
        with open(path, "wb") as f:
            pickle.dump((key, target, tuple(args)), f, protocol=5)
    except (OSError, pickle.PicklingError, TypeError, ValueError, AttributeError):
        return False
    global _runner
    with _STATE:
        _QUEUED[key] = path
        if _runner is None:
            _runner = threading.Thread(target=_run_queue, name="sparray-jit", daemon=True)
            _runner.start()
    return True


def _worker_command(paths):
    env = dict(os.environ, SPARRAY_JIT="eager")
    env["PYTHONPATH"] = os.pathsep.join([_package_parent(), *filter(None, [os.environ.get("PYTHONPATH")])])
    cmd = [sys.executable, "-m", "sparray._engine.jit_worker", *paths]
    return cmd, dict(env=env, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


def _take_jobs() -> dict:
    """The queued jobs no compile process has taken yet, now taken."""
    with _STATE:
        jobs = {k: p for k, p in _QUEUED.items() if k not in _STARTED}
        _STARTED.update(jobs)
    return jobs


def _run_queue() -> None:
    """Run compile processes while jobs are queued, one at a time (a daemon thread; waiting on a
    process does not hold the GIL)."""
    global _runner, _spawn_failed
    while True:
        with _STATE:
            if all(k in _STARTED for k in _QUEUED):
                _runner = None
                return
        jobs = _take_jobs()
        cmd, kw = _worker_command(jobs.values())
        try:
            subprocess.run(cmd, check=False, **kw)
        except OSError:
            _spawn_failed = True
        for key, path in jobs.items():
            done = ready(key)  # the worker leaves a marker for each kernel it ran
            shutil.rmtree(os.path.dirname(path), ignore_errors=True)
            with _STATE:
                if not done:
                    _TRIED.add(key)
                _QUEUED.pop(key, None)
                _STARTED.discard(key)


@atexit.register
def _hand_over() -> None:
    """At exit, jobs no compile process took yet go to one that outlives this process, so that the
    next process finds their kernels compiled. (A compile process running now finishes on its own.)"""
    jobs = _take_jobs()
    if jobs:
        cmd, kw = _worker_command(jobs.values())
        try:
            subprocess.Popen(cmd, **kw)
        except OSError:
            pass


def compiling() -> int:
    """How many kernels are queued or compiling in the background now."""
    with _STATE:
        return len(_QUEUED)


def wait(timeout: float | None = None) -> bool:
    """Wait until the background compiles are done (tests; a script that wants the kernels before it
    times them); True when none is left."""
    import time

    end = None if timeout is None else time.monotonic() + timeout
    while compiling() and (end is None or time.monotonic() < end):
        time.sleep(0.05)
    return compiling() == 0


# ---- thread safety ---------------------------------------------------------------------------

_KERNEL_LOCK = threading.RLock()
_layer_safe: bool | None = None


def _threading_layer_is_safe() -> bool:
    """False under numba's workqueue layer (not safe for concurrent launches), True otherwise.
    The layer is chosen when numba starts its thread pool, which this starts if needed."""
    global _layer_safe
    if _layer_safe is None:
        try:
            from ..kernels.cpu import _threads

            _layer_safe = _threads.layer() != "workqueue"  # starts numba's pool the way sparray starts it
        except Exception:  # noqa: BLE001 - an unknown state: take the lock
            _layer_safe = False
    return _layer_safe


@contextlib.contextmanager
def kernel_guard():
    """Hold the process-wide kernel lock while a numba kernel runs, if the threading layer needs it."""
    if _threading_layer_is_safe():
        yield
        return
    with _KERNEL_LOCK:
        yield
