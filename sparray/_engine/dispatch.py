"""The device registry: which implementation runs an operation for a layout and a namespace.

Each entry is keyed ``(op, layout, backend)``. Backends:

- ``"numba"``: kernels on NumPy buffers (``sparray.kernels.cpu``), for NumPy data;
- ``"cupy"``: CuPy RawModule kernels, for CuPy data;
- ``"generic"``: pure array-API code that runs on every namespace and is the reference.

Lookup tries the backend that fits the data (NumPy -> numba, CuPy -> cupy), then the generic
implementation. Kernel modules are named as ``"module:function"`` strings and imported on first
use, so ``import sparray`` imports no numba or cupy. A kernel that cannot handle an input raises
``sparray.kernels.KernelDeclined``; the registry then runs the generic implementation and warns
once per (op, reason) with the reason.

Generic implementations are called as ``impl(xp, *args)``; kernels as ``impl(*args)``.

>>> import sparray
>>> "generic" in sparray.backends()
True
>>> with sparray.use_backend("generic"):
...     pass
"""

from __future__ import annotations

import contextlib
import contextvars
import importlib
import importlib.util
import time
import warnings

from . import jit as _jit  # reads SPARRAY_JIT at import, as SPARRAY_BACKEND is read below
from .._core.namespace import backend_kind

__all__ = [
    "register",
    "call",
    "backends",
    "use_backend",
    "kernel_table",
    "SparrayPerformanceWarning",
    "registered_ops",
]

BACKENDS = ("numba", "cupy", "generic")

_REGISTRY: dict[tuple[str, str, str], object] = {}
_TARGETS: dict[tuple[str, str, str], str] = {}  # "module:function" of the kernels registered by name
_JIT: set[tuple[str, str, str]] = set()  # entries that wake a JIT (numba): skipped for small inputs

# Below this much work (rows), the generic path on NumPy data takes microseconds while waking
# numba costs its import (~0.3 s) and thread pool: small inputs run generic unless a backend
# is forced with use_backend.
SMALL_WORK = 1 << 14
#: Seconds of generic time that small calls with one kernel's argument types may spend before that
#: kernel serves them too. The generic path saves the kernel's start-up (numba's import, the cache
#: load: 25 ms to 1 s) but costs more per call (a 50 x 50 CSR: A @ x 312 us generic, 142 us on the
#: kernel), so a small call repeated in a loop stops paying the difference once it has paid about
#: the start-up (the ski-rental rule: never much more than twice the better choice).
SMALL_GENERIC_BUDGET = 0.25
#: Small calls a kernel serves after the budget moved them, timed and compared with the generic
#: calls' mean: the faster path keeps those argument types (the kernel is not faster everywhere:
#: all_finite of 50 elements takes 15 us generic, 45 us on the kernel, whose thread-count switch
#: alone costs more).
SMALL_TRIALS = 32


class _SmallCalls:
    """The timed small calls of one JIT key (op, layout, argument types): its generic calls, and
    then the first ``SMALL_TRIALS`` kernel calls after the budget moved it. Which path serves the
    next small call follows from these four numbers alone (:meth:`generic`)."""

    __slots__ = ("generic_s", "generic_n", "kernel_s", "kernel_n")

    def __init__(self):
        self.generic_s, self.generic_n, self.kernel_s, self.kernel_n = 0.0, 0, 0.0, 0

    def moved(self) -> bool:
        """The generic calls spent the budget: the kernel may serve them now."""
        return self.generic_s >= SMALL_GENERIC_BUDGET

    def generic(self, ran_here: bool) -> bool:
        """Whether the generic path serves the next small call (``ran_here``: the kernel already
        ran in this process for these types, on any input)."""
        if self.kernel_n >= SMALL_TRIALS and self.generic_n:
            return self.kernel_s / self.kernel_n > self.generic_s / self.generic_n
        return not ran_here and not self.moved()


_SMALL: dict[tuple, _SmallCalls] = {}
_FORCED: contextvars.ContextVar[tuple[str, int] | None] = contextvars.ContextVar("sparray_backend", default=None)
_WARNED: set[tuple[str, str]] = set()
_AVAILABLE: dict[str, bool] = {}


class SparrayPerformanceWarning(UserWarning):
    """A fast kernel could not be used and a slower implementation ran instead."""


def register(op: str, layout: str, backend: str, impl=None, *, jit: bool = False):
    """Register ``impl`` (a callable or a ``"module:function"`` string) for ``(op, layout, backend)``.

    ``jit=True`` marks a kernel that needs a JIT warm-up (numba); such kernels serve inputs of at
    least ``SMALL_WORK`` rows unless the backend is forced. Usable as a decorator:
    ``@register("coalesce", "coo", "generic")``.
    """
    if backend not in BACKENDS:
        raise ValueError(f"register: backend must be one of {BACKENDS}; got {backend!r}")

    def deco(fn):
        _REGISTRY[(op, layout, backend)] = fn
        if isinstance(fn, str):
            _TARGETS[(op, layout, backend)] = fn
        if jit:
            _JIT.add((op, layout, backend))
        return fn

    return deco if impl is None else deco(impl)


def registered_ops() -> list[tuple[str, str]]:
    """Every (op, layout) pair that has at least one implementation."""
    return sorted({(op, layout) for op, layout, _ in _REGISTRY})


def _backend_available(name: str) -> bool:
    if name not in _AVAILABLE:
        if name == "generic":
            ok = True
        elif name == "numba":
            ok = importlib.util.find_spec("numba") is not None
        else:  # cupy: installed and a GPU present
            ok = False
            if importlib.util.find_spec("cupy") is not None:
                try:
                    import cupy

                    ok = bool(cupy.is_available())
                except Exception:  # a broken CUDA install means: not available
                    ok = False
        _AVAILABLE[name] = ok
    return _AVAILABLE[name]


def backends() -> tuple[str, ...]:
    """The backends usable on this machine, fastest first; "generic" is always there.

    >>> import sparray
    >>> sparray.backends()[-1]
    'generic'
    """
    return tuple(b for b in BACKENDS if _backend_available(b))


def _check_backend(who: str, name, min_size) -> None:
    if name not in BACKENDS:
        raise ValueError(f"{who}: backend must be one of {BACKENDS}; got {name!r}")
    if not _backend_available(name):
        raise ValueError(f"{who}: backend {name!r} is not available here; available: {backends()}")
    if isinstance(min_size, bool) or not isinstance(min_size, int) or min_size < 0:
        raise ValueError(f"{who}: min_size must be a non-negative int; got {min_size!r}")


@contextlib.contextmanager
def use_backend(name: str, *, min_size: int = 0):
    """Force one backend inside a ``with`` block (``"generic"`` runs the pure array-API code).

    Forcing ``"numba"`` or ``"cupy"`` only affects data that backend can hold (NumPy, CuPy);
    an operation with no such kernel runs the generic implementation. ``min_size``: the least
    work (rows) a JIT kernel takes; the default 0 runs the kernels at every size (tests use it),
    ``min_size=SMALL_WORK`` restores the automatic choice for small inputs. The environment
    variable ``SPARRAY_BACKEND`` sets the same for a whole process (read at import).
    """
    _check_backend("use_backend", name, min_size)
    token = _FORCED.set((name, min_size))
    try:
        yield
    finally:
        _FORCED.reset(token)


def _forced_from_environment():
    """``SPARRAY_BACKEND=numba|cupy|generic`` (optionally ``name:min_size``) as the process default."""
    import os

    text = os.environ.get("SPARRAY_BACKEND", "").strip()
    if not text:
        return None
    name, _, size = text.partition(":")
    try:
        min_size = int(size) if size else 0
    except ValueError:
        raise ValueError(f"SPARRAY_BACKEND: expected NAME or NAME:MIN_SIZE with an int size; got {text!r}") from None
    if name in BACKENDS and not _backend_available(name):
        warnings.warn(
            f"SPARRAY_BACKEND={text!r}: backend {name!r} is not available here ({backends()}); "
            "choosing backends automatically",
            RuntimeWarning,
            stacklevel=2,
        )
        return None
    _check_backend("SPARRAY_BACKEND", name, min_size)
    return (name, min_size)


_ENV_FORCED = _forced_from_environment()


def forced_backend():
    """The backend forced now (``use_backend`` block, else ``SPARRAY_BACKEND``) as (name, min_size), or None."""
    forced = _FORCED.get()
    return forced if forced is not None else _ENV_FORCED


def _resolve(entry):
    if isinstance(entry, str):
        module, _, attr = entry.partition(":")
        entry = getattr(importlib.import_module(module), attr)
    return entry


def _lookup(op: str, layout: str, xp, work=None, args=None):
    """(backend, implementation, the JIT key of ``args`` when it was needed here, else None)."""
    forced = forced_backend()
    threshold = SMALL_WORK if forced is None else forced[1]
    small = work is not None and work < threshold
    unforced = forced is None
    forced = None if forced is None else forced[0]
    kind = backend_kind(xp)
    key = None
    if small and unforced and args is not None and (op, layout, kind) in _JIT:
        key = _jit.key_of(op, layout, args)
        # the kernel ran for these types in this process: loaded, and faster than the generic path
        # at every size (a 5,000-entry CSR: A @ x 255 -> 88 us, sum(A, axis=0) 400 -> 96 us);
        # or small calls of these types spent their generic budget; unless timing both showed the
        # generic path faster for them (see _SmallCalls)
        calls = _SMALL.get(key)
        small = calls.generic(_jit.ran_here(key)) if calls is not None else not _jit.ran_here(key)
    if forced == "generic" or (forced is not None and forced != kind):
        candidates = ["generic"]
    else:
        candidates = [kind, "generic"] if kind != "generic" else ["generic"]
    for backend in candidates:
        entry = (op, layout, backend)
        # data of a kind proves its backend is here (CuPy data: a GPU; simulated data: the emulator)
        if entry in _REGISTRY and (backend == kind or _backend_available(backend)) and not (small and entry in _JIT):
            impl = _resolve(_REGISTRY[entry])
            _REGISTRY[entry] = impl
            return backend, impl, key
    known = ", ".join(f"{o}[{lay}]" for o, lay in registered_ops())
    raise NotImplementedError(f"sparray: no implementation of {op!r} for layout {layout!r}; known: {known}")


def call(op: str, layout: str, xp, *args, work=None):
    """Run ``op`` for ``layout`` on data of namespace ``xp`` with the best registered implementation.

    ``work`` (rows to process) lets small inputs skip JIT kernels (see ``SMALL_WORK``) until the
    kernel ran in this process or their generic calls spent ``SMALL_GENERIC_BUDGET``. A numba
    kernel that is not compiled yet on this machine answers through the generic implementation
    while it compiles in the background, unless a backend is forced or the JIT mode is "eager"
    (see ``sparray._engine.jit``).
    """
    backend, impl, key = _lookup(op, layout, xp, work, args)
    if backend == "generic":
        if key is None:
            return impl(xp, *args)
        calls = _SMALL.setdefault(key, _SmallCalls())
        start = time.perf_counter()  # a small call that a kernel could serve: count its time
        try:
            return impl(xp, *args)
        finally:
            calls.generic_s += time.perf_counter() - start
            calls.generic_n += 1
    from ..kernels import KernelDeclined

    # a small call that the budget moved to a loaded kernel (no start-up in its time) is timed for
    # the comparison; a kernel that first ran on a large input is not (its small calls may be of
    # other sizes than the generic ones were)
    trial = _SMALL.get(key) if key is not None and _jit.ran_here(key) else None
    if trial is not None and not (trial.moved() and trial.kernel_n < SMALL_TRIALS):
        trial = None
    jit = (op, layout, backend) in _JIT
    if jit and key is None:
        key = _jit.key_of(op, layout, args)
    background = jit and _jit.mode() == "background" and forced_backend() is None
    if background and not _jit.ready(key) and (op, layout, backend) in _TARGETS:
        if _jit.compile_in_background(key, _TARGETS[(op, layout, backend)], args):
            return _generic(op, layout)(xp, *args)
    try:
        start = time.perf_counter() if trial is not None else 0.0
        with _jit.kernel_guard() if backend == "numba" else _proven(backend):
            out = impl(*args)
        if trial is not None:
            trial.kernel_s += time.perf_counter() - start
            trial.kernel_n += 1
    except KernelDeclined as why:
        if jit:
            _jit.mark_ready(key, ran=False)
        warn_key = (op, str(why))
        if warn_key not in _WARNED:
            _WARNED.add(warn_key)
            warnings.warn(
                f"sparray: the {backend} kernel for {op!r} declined ({why}); running the generic "
                "implementation instead",
                SparrayPerformanceWarning,
                stacklevel=3,
            )
        return _generic(op, layout)(xp, *args)
    if jit:
        _jit.mark_ready(key)
    return out


def _proven(backend):
    """CUDA launches called for the library take their index inputs as proven (every array's
    indices are checked once before they first reach a kernel), so they skip the wait for their
    error report; inside ``check_invariants()`` they read it as before (``kernels/cuda/_trust.py``)."""
    if backend != "cupy":
        return contextlib.nullcontext()
    from .._core.validation import invariant_checks_on
    from ..kernels.cuda._trust import proven_inputs

    return proven_inputs(not invariant_checks_on())


def _generic(op, layout):
    return _resolve(_REGISTRY[(op, layout, "generic")])


def kernel_table() -> str:
    """The registry as a text table: one row per (op, layout), one column per backend."""
    rows = registered_ops()
    width = max([len(f"{o} [{lay}]") for o, lay in rows] + [10])
    lines = [f"{'operation':<{width}}  " + "  ".join(f"{b:<8}" for b in BACKENDS)]
    for op, layout in rows:
        cells = ["yes" if (op, layout, b) in _REGISTRY else "-" for b in BACKENDS]
        lines.append(f"{op + ' [' + layout + ']':<{width}}  " + "  ".join(f"{c:<8}" for c in cells))
    return "\n".join(lines)
