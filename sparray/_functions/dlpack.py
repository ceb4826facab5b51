"""DLPack: ``A.__dlpack__`` (refused, with the fix), ``A.__dlpack_device__`` and ``sparray.from_dlpack``.

DLPack describes one strided dense buffer, so a sparse array has no DLPack form: ``__dlpack__``
raises ``BufferError`` naming the two ways that exist (export the dense array,
``A.to_dense().__dlpack__()``, or each component, ``A.values.__dlpack__()``), as PyTorch does for
its sparse tensors. ``__dlpack_device__`` still answers where the components live, as the
``(device type, device id)`` pair of DLPack (``(1, 0)`` for the CPU, ``(2, n)`` for CUDA device n).

``from_dlpack(x, device=None, copy=None)``:

- a SparseArray passes through (``copy=True``: a copy; ``device``: moved there);
- a dense DLPack producer (a NumPy, CuPy or torch array ...) is imported with NumPy's (CPU) or
  CuPy's (CUDA) ``from_dlpack`` and becomes a sparse array through ``sparray.asarray``
  (elements equal to 0 unspecified). The sparse components are always new buffers, so
  ``copy=False`` raises (``CopyRequiredError``, a ``ValueError`` and a ``BufferError``: the
  standard names both for a copy it was told not to make); so does ``copy=False`` with a
  ``device`` other than the data's.

>>> import numpy as np, sparray
>>> A = sparray.from_dlpack(np.array([0.0, 2.0, 0.0]))
>>> A.nse, A.__dlpack_device__()
(1, (1, 0))
"""

from __future__ import annotations

from .._array.base import SparseArray

__all__ = ["dlpack_device", "refuse_dlpack", "from_dlpack", "CopyRequiredError"]

_CPU, _CUDA = 1, 2


class CopyRequiredError(BufferError, ValueError):
    """``copy=False`` where the result cannot share the input's memory (the standard names both
    BufferError and ValueError for this case, so this error is both)."""


def dlpack_device(A) -> tuple[int, int]:
    """``(device type, device id)`` of A's components, as DLPack numbers them."""
    values = A._values
    probe = getattr(values, "__dlpack_device__", None)
    if probe is not None:
        kind, dev = probe()
        return int(kind), int(dev)
    device = A.device
    if type(device).__module__.startswith("cupy"):
        return _CUDA, int(device.id)
    return _CPU, 0


def refuse_dlpack(A):
    """The BufferError ``A.__dlpack__`` raises."""
    name = type(A).__name__
    return BufferError(
        f"sparray.{name}.__dlpack__: DLPack describes a strided dense buffer and cannot hold a sparse array; "
        f"export the dense array (A.to_dense().__dlpack__(), or xp.from_dlpack(A.to_dense())) or each component "
        f"({', '.join(f'A.{c}' for c in A._components())}) instead"
    )


def _same_device(A, device) -> bool:
    if device is None:
        return True
    here = A.device
    if isinstance(device, str):
        if device == "cpu":
            return dlpack_device(A)[0] == _CPU
        if device.startswith("cuda"):
            if dlpack_device(A)[0] != _CUDA:
                return False
            return device == "cuda" or int(device.partition(":")[2] or -1) == dlpack_device(A)[1]
    return device == here


def from_dlpack(x, /, *, device=None, copy=None):
    """An array from a DLPack producer (see the module docstring): a SparseArray passes through,
    a dense producer becomes a sparse array through ``asarray``."""
    if copy not in (None, True, False):
        raise ValueError(f"sparray.from_dlpack: copy must be None, True or False; got {copy!r}")
    if isinstance(x, SparseArray):
        if not _same_device(x, device):
            if copy is False:
                raise CopyRequiredError(
                    f"sparray.from_dlpack: moving the array from {x.device} to {device!r} copies it, but copy=False"
                )
            return x.to_device(device)
        return x.copy() if copy else x
    if not hasattr(x, "__dlpack__"):
        raise TypeError(
            f"sparray.from_dlpack: expected a SparseArray or an object with __dlpack__ (a DLPack producer); "
            f"got {type(x).__name__}"
        )
    if copy is False:
        raise CopyRequiredError(
            "sparray.from_dlpack: a dense producer's elements are gathered into new sparse components, which is a "
            "copy, but copy=False; pass copy=None (or True)"
        )
    from .._functions.creation import asarray

    kind = int(x.__dlpack_device__()[0]) if hasattr(x, "__dlpack_device__") else _CPU
    if kind == _CUDA:
        import cupy

        dense = cupy.from_dlpack(x)
    elif kind == _CPU:
        import numpy as np

        dense = np.from_dlpack(x)
    else:
        raise BufferError(
            f"sparray.from_dlpack: the producer's data lives on DLPack device type {kind}; sparray reads CPU (1) "
            "and CUDA (2) memory"
        )
    return asarray(dense, device=device)
