"""The argument contract of ``slice_minor`` (a step-1 range of every row's plain indices), shared by
the numba kernel (``kernels/cpu/take.py``) and its CUDA twin (``kernels/cuda/take.py``), so both
backends reject the same inputs with the same words. Plain Python on shapes (no arrays read).

>>> slice_minor_args(2, 5, 7, (7, 1), 4)
(2, 5, 3)
"""

from __future__ import annotations

__all__ = ["slice_minor_args"]


def slice_minor_args(start, stop, nnz, values_shape, noffsets):
    """``(start, stop, nmajor)`` as ints, or ValueError for a reversed or negative range, values whose
    first dim is not ``nnz`` (the plain indices' length), or empty offsets."""
    start, stop = int(start), int(stop)
    if not 0 <= start <= stop:
        raise ValueError(f"slice_minor: the range must satisfy 0 <= start <= stop; got {start}:{stop}")
    if tuple(values_shape[:1]) != (nnz,):
        raise ValueError(f"slice_minor: values must have len(minor) = {nnz} rows, got shape {tuple(values_shape)}")
    if noffsets < 1:
        raise ValueError("slice_minor: offsets must have at least one element")
    return start, stop, noffsets - 1
