"""Fixtures shared by the test files: run a test under each backend."""

import contextlib

import pytest

import sparray


@pytest.fixture(params=["default", "generic"])
def backend(request):
    """Runs the test once with the registry's choice (numba for NumPy) and once with the generic path."""
    ctx = sparray.use_backend("generic") if request.param == "generic" else contextlib.nullcontext()
    with ctx:
        yield request.param
