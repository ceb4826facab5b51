"""Fixtures shared by the test files (run a test under each backend) and the hypothesis profiles.

Profiles: "ci" (the default: small, derandomized, so CI runs the same trials every time), "dev"
(more, random) and "long" (ten times "ci", random): ``pytest --hypothesis-profile long``.
"""

import os

import pytest
from hypothesis import HealthCheck, settings

import sparray
from sparray._engine import jit as _jit

_QUIET = {"deadline": None, "suppress_health_check": list(HealthCheck)}
settings.register_profile("ci", max_examples=25, derandomize=True, **_QUIET)
settings.register_profile("dev", max_examples=100, **_QUIET)
settings.register_profile("long", max_examples=250, **_QUIET)
settings.load_profile("ci")  # hypothesis's own --hypothesis-profile option loads another one after this

# The suite checks the kernels the registry picks, so they compile on first use rather than in the
# background (test_jit.py checks background compilation in subprocesses of its own).
_jit.set_mode("eager")
# The suite's workers are each other's load: a test that forces a parallel kernel gets its threads
# whatever the other worker does (tests/test_threads.py checks the load rule with it switched on).
from sparray.kernels.cpu import _threads  # noqa: E402

_threads.WATCH_LOAD = False
# Small inputs keep the generic path however often a test repeats them (test_dispatch.py checks the
# budget that moves repeated small calls to the kernel): the suite does not compile kernels for
# argument types only its small cases use.
sparray._engine.dispatch.SMALL_GENERIC_BUDGET = float("inf")
# ... and the lean paths (sparray._products.lean) take a small call only where the registry's kernel ran for
# its types (test_lean.py checks them with the eager rule on)
sparray._products.lean.EAGER_ANY_SIZE = False


@pytest.fixture(params=["numba", "generic"])
def backend(request):
    """Runs the test with the numba kernels forced (whatever the input size) and with the generic path."""
    with sparray.use_backend(request.param):
        yield request.param


_MAX_WORKERS = 8


def pytest_xdist_auto_num_workers(config):
    """``-n auto`` (pyproject's addopts): one worker per core, at most ``_MAX_WORKERS`` (each worker
    imports NumPy, numba, torch and Dask, and some tests start a Dask cluster of their own)."""
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)
    return max(1, min(cores, _MAX_WORKERS))


def pytest_addoption(parser):
    parser.addoption(
        "--cuda-emulated",
        action="store_true",
        help="serve NumPy data with the CUDA kernels (through the emulator) wherever a 'cupy' registry row "
        "exists, instead of the numba kernels: the core's own tests then drive the CUDA launchers",
    )


def pytest_configure(config):
    if os.environ.get("SPARRAY_TEST_NO_CUPY_POOL"):
        # compute-sanitizer's memcheck sees the bounds of each cudaMalloc: without CuPy's memory pool
        # every array is its own allocation, so a kernel reading past an array's end is caught
        # (scripts/gpu_checks.sh sets this for its memcheck run)
        import cupy

        cupy.cuda.set_allocator(None)
    if config.getoption("--cuda-emulated", default=False):
        from cuda_testing import emulate_cuda_registry

        emulate_cuda_registry()
