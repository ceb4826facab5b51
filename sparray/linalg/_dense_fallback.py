"""Densifying a sparse operand for the factorizations, with a warning above a size threshold.

The factorizations and solvers (``inv``, ``solve``, ``det``, ``eigh``, ``svd``, ...) have dense
results in general, so ``sparray.linalg`` computes them on the dense form with the namespace's
own ``linalg`` (NumPy, CuPy, array_api_strict). A matrix of more than ``threshold`` elements
(default ``DENSIFY_THRESHOLD = 4096 * 4096``, about 128 MiB of float64 per matrix) is turned
dense with a :class:`SparrayDensifyWarning`, a :class:`sparray.SparrayPerformanceWarning`.

The threshold counts the elements of one matrix, the last two dims (``M * N``; a stack of small
matrices does not warn). Change it for the process with :func:`set_densify_threshold`, or for a
block of code with ``with densify_threshold(n):`` (a context variable: threads and asyncio tasks
keep their own).

>>> import sparray, warnings
>>> A = sparray.eye(3, layout="csr")
>>> with sparray.linalg.densify_threshold(4), warnings.catch_warnings(record=True) as w:
...     warnings.simplefilter("always")
...     _ = sparray.linalg.inv(A)
>>> w[0].category.__name__
'SparrayDensifyWarning'
"""

from __future__ import annotations

import contextlib
import contextvars
import math
import os
import sys
import warnings

from .._array.base import SparseArray
from .._engine.dispatch import SparrayPerformanceWarning
from ._checks import check_int

__all__ = [
    "DENSIFY_THRESHOLD", "SparrayDensifyWarning", "densify", "densify_threshold", "get_densify_threshold",
    "set_densify_threshold",
]  # fmt: skip

DENSIFY_THRESHOLD = 4096 * 4096
"""Default: elements per matrix above which densifying a sparse operand warns (16,777,216)."""

_process_threshold = DENSIFY_THRESHOLD
_scoped_threshold: contextvars.ContextVar[int | None] = contextvars.ContextVar("sparray_densify_threshold", default=None)


class SparrayDensifyWarning(SparrayPerformanceWarning):
    """A ``sparray.linalg`` function turned a large sparse matrix dense (see ``densify_threshold``)."""


def get_densify_threshold() -> int:
    """The elements per matrix above which densifying warns, in this context."""
    scoped = _scoped_threshold.get()
    return _process_threshold if scoped is None else scoped


def _checked(elements) -> int:
    n = check_int("sparray.linalg.set_densify_threshold", elements, "elements")
    if n < 0:
        raise ValueError(f"sparray.linalg.set_densify_threshold: elements must be >= 0; got {n}")
    return n


def set_densify_threshold(elements) -> int:
    """Set the process-wide threshold (elements per matrix); returns the previous one."""
    global _process_threshold
    previous, _process_threshold = _process_threshold, _checked(elements)
    return previous


@contextlib.contextmanager
def densify_threshold(elements):
    """Within the block, densifying warns above ``elements`` per matrix (0: always; a huge number: never)."""
    token = _scoped_threshold.set(_checked(elements))
    try:
        yield
    finally:
        _scoped_threshold.reset(token)


def densify(who, x, name="x"):
    """``x`` as a dense array of its namespace: a SparseArray's ``to_dense()`` (warning when one of
    its matrices is larger than the threshold), a dense array as it is."""
    if not isinstance(x, SparseArray):
        return x
    per_matrix = math.prod(x.shape[-2:])
    limit = get_densify_threshold()
    if per_matrix > limit:
        warnings.warn(
            SparrayDensifyWarning(
                f"{who}: densifies the sparse {name} of shape {x.shape} ({per_matrix:,} elements per matrix, above "
                f"the threshold of {limit:,}); the result is dense in general. "
                "Silence it with sparray.linalg.densify_threshold(n) or warnings.filterwarnings"
            ),
            stacklevel=_caller_level(),
        )
    return x.to_dense()


def _caller_level() -> int:
    """The ``stacklevel`` that points a warning raised by the caller of this function at the first
    frame outside the sparray package (the user's call, however deep the call chain inside)."""
    package = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    frame, level = sys._getframe(2), 2
    while frame is not None and os.path.abspath(frame.f_code.co_filename).startswith(package + os.sep):
        frame, level = frame.f_back, level + 1
    return level
