"""Compiled kernels for sparray, installed as ``sparray.kernels``.

Nothing here is imported by ``import sparray``: the registry in ``sparray._dispatch``
imports a kernel module the first time an operation needs it.

- ``cpu/``: numba kernels on raw NumPy buffers (``cache=True``, parallel where the work splits).

A kernel may refuse an input it cannot handle by raising :class:`KernelDeclined`; the
registry then falls back to the generic array-API implementation and warns once.
"""


class KernelDeclined(Exception):
    """Raised by a kernel wrapper that cannot handle an input (the message says why and what to do)."""
