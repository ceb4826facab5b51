"""Compiled kernels for sparray, installed as ``sparray.kernels``.

No kernel module is imported by ``import sparray``: the registry in ``sparray._engine.dispatch``
imports one the first time an operation needs it. What the engine and both kernel families share
is small and loads with the library: :class:`KernelDeclined`, :func:`merge_mode`, and
``_kept.KeptPerArray`` (facts kept per array object).

- ``cpu/``: numba kernels on raw NumPy buffers (``cache=True``, parallel where the work splits).

A kernel may refuse an input it cannot handle by raising :class:`KernelDeclined`; the
registry then falls back to the generic array-API implementation and warns once.
"""


class KernelDeclined(Exception):
    """Raised by a kernel wrapper that cannot handle an input (the message says why and what to do)."""


def merge_mode(drop_a: bool, drop_b: bool) -> str:
    """The pattern a binary merge writes, from whether A's positions and whether B's may be dropped
    (their values meet the other side's fill and give the result's fill): both -> "intersection",
    B's -> "left" (A's positions), A's -> "right", neither -> "union". Shared by the engine's plan
    and the CUDA merge that reads the two verdicts back from the device.

    >>> merge_mode(True, True), merge_mode(False, True), merge_mode(False, False)
    ('intersection', 'left', 'union')
    """
    return {(True, True): "intersection", (False, True): "left", (True, False): "right"}.get((bool(drop_a), bool(drop_b)), "union")
