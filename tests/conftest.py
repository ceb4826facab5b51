"""Fixtures shared by the test files: run a test under each backend."""

import pytest

import sparray


@pytest.fixture(params=["numba", "generic"])
def backend(request):
    """Runs the test with the numba kernels forced (whatever the input size) and with the generic path."""
    with sparray.use_backend(request.param):
        yield request.param
