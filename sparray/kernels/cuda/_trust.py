"""Whether the indices a launcher is handed were proven valid before: then it skips the read-back.

Every CUDA kernel checks each pointer and index before it uses it as an address and reports what it
found into a small status array. Reading that array back to raise ValueError costs a wait for the
device. An index array that came from a sparray array has been checked once already (the arrays
keep the answer, ``_checked``; see ``sparray._core.validation``), so when the registry calls a launcher
for the library (``_dispatch.call``, outside ``check_invariants()``) it opens :func:`proven_inputs`
and the launcher leaves its status array unread: the kernels still never read or write out of
bounds, and a bad index still raises the same ValueError at construction or at the array's first
use. A launcher called directly (the kernel tests, a user) reads its status as before.

Only the error report may be skipped this way: a status that also carries data the launcher needs
(a size, the longest row) is read as before.

>>> inputs_proven()
False
>>> with proven_inputs():
...     inputs_proven()
True
"""

from __future__ import annotations

import contextlib
import contextvars

__all__ = ["inputs_proven", "proven_inputs"]

_PROVEN: contextvars.ContextVar[bool] = contextvars.ContextVar("sparray_cuda_inputs_proven", default=False)


@contextlib.contextmanager
def proven_inputs(proven: bool = True):
    """Launches inside the block may leave their error reports unread (their inputs were proven)."""
    token = _PROVEN.set(proven)
    try:
        yield
    finally:
        _PROVEN.reset(token)


def inputs_proven() -> bool:
    """True inside :func:`proven_inputs`: the index inputs of this launch were validated before."""
    return _PROVEN.get()
