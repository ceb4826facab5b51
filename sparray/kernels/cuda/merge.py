"""Pattern merging on a GPU: :func:`merge_pattern` and :func:`gather_with_fill`, the CUDA twins of
``kernels/cpu/merge.py`` (same arguments, results and errors; see there for the contract).

- ``merge_pattern(keys_concat, offsets, mode)``: the candidate keys are every key, sorted and made
  unique by the array library (``union``; CUB on a GPU), or operand 0's keys (``left``,
  ``intersection``). ``locate_keys`` then places each candidate in each operand with a binary
  search bounded by that operand's range, one thread per (operand, candidate): positions are -1
  where an operand lacks the key. ``intersection`` keeps the candidates found everywhere
  (``flatnonzero``). Reads never leave an operand's range, whatever the keys hold.
- ``gather_with_fill(values, positions, fill)``: ``gather_fill<W>`` copies rows as unsigned words of
  the values' item size, one thread per (row, column); positions outside ``{-1} U [0, nse)`` are
  counted with an atomic, never used as addresses, and raise ValueError.

The only device-to-host copies: the k + 1 offsets, and the bad-position count.

>>> import numpy as np  # NumPy input runs in the emulator
>>> merge_pattern(np.array([1, 4, 6, 4, 5]), np.array([0, 3, 5]), "union")
(array([1, 4, 5, 6]), array([[ 0,  1, -1,  2],
       [-1,  0,  1, -1]]))
>>> gather_with_fill(np.array([[1.0], [2.0]]), np.array([1, -1, 0]), np.array([0.0]))
array([[2.],
       [0.],
       [1.]])
"""

from __future__ import annotations

import numpy as np

from ._arrays import index_array
from ._build import VALUE_DTYPES, word_type
from ._driver import driver_for

__all__ = ["merge_pattern", "gather_with_fill", "MODES"]

SOURCE = "merge.cu"
NAME_EXPRESSIONS = ("locate_keys",) + tuple(f"gather_fill<{word_type(s)}>" for s in (1, 2, 4, 8, 16))

#: Accepted ``mode`` strings (as in ``kernels/cpu/merge.py``).
MODES = {"union": 0, "intersection": 1, "left": 2}


def _int64_1d(xp, a, name):
    """``kernels/cpu/_sort._as_int64_1d`` for either namespace (same messages)."""
    a = xp.asarray(a)
    if a.ndim != 1:
        raise ValueError(f"{name} must be 1-D, got shape {a.shape}")
    if a.dtype.kind not in "iu" and a.size:
        raise ValueError(f"{name} must hold integers, got dtype {a.dtype}")
    return index_array(xp, a, name, "merge")


def merge_pattern(keys_concat, offsets, mode):
    """Merge k strictly increasing key lists: ``(out_keys, positions)`` with ``positions[i, j]``
    the index within operand i of ``out_keys[j]``, or -1 (see ``kernels/cpu/merge.py``)."""
    if mode not in MODES:
        raise ValueError(f"mode must be one of {sorted(MODES)}, got {mode!r}")
    drv = driver_for(keys_concat, offsets)
    xp = drv.xp
    keys = _int64_1d(xp, keys_concat, "keys_concat")
    offsets = _int64_1d(xp, offsets, "offsets")
    k = offsets.shape[0] - 1
    if k < 1:
        raise ValueError("offsets must have length k + 1 >= 2 (at least one operand)")
    bounds = offsets.tolist()  # k + 1 numbers: the one host copy of the operand layout
    total = keys.shape[0]
    if bounds[0] != 0 or bounds[-1] != total:
        raise ValueError(f"offsets must start at 0 and end at len(keys_concat)={total}, got {bounds[0]} .. {bounds[-1]}")
    if any(b < a for a, b in zip(bounds, bounds[1:])):
        raise ValueError("offsets must be non-decreasing")
    cand = xp.unique(keys) if mode == "union" else keys[: bounds[1]].copy()
    ncand = cand.shape[0]
    positions = xp.empty((k, ncand), xp.int64)
    if ncand:
        drv.launch(SOURCE, "locate_keys", k * ncand, (keys, offsets, np.int64(k), cand, np.int64(ncand), positions))
    if mode == "intersection" and k > 1 and ncand:
        keep = xp.flatnonzero(xp.all(positions >= 0, axis=0))
        cand, positions = cand[keep], xp.ascontiguousarray(positions[:, keep])
    return cand, positions


def _words(xp, a):
    """``a`` viewed as unsigned words of its item size (16-byte items keep their dtype)."""
    size = a.dtype.itemsize
    return a if size == 16 else a.view(np.dtype(f"u{size}"))


def gather_with_fill(values, positions, fill):
    """``out[j] = values[positions[j]]``, or ``fill`` where ``positions[j] == -1``
    (see ``kernels/cpu/merge.py``); ValueError for positions outside ``{-1} U [0, nse)``."""
    from .. import KernelDeclined

    drv = driver_for(values, positions)
    xp = drv.xp
    positions = _int64_1d(xp, positions, "positions")
    values = xp.asarray(values)
    if values.ndim != 2:
        raise ValueError(f"values must be 2-D (nse, m), got shape {values.shape}")
    if values.dtype not in VALUE_DTYPES:
        raise KernelDeclined(
            f"values has dtype {values.dtype}, which the CUDA kernels do not support "
            "(supported: bool, (u)int8..64, float32/64, complex64/128); cast the values "
            "to a supported dtype or use the generic implementation"
        )
    values = xp.ascontiguousarray(values)
    nse, m = values.shape
    fill = xp.asarray(fill)
    if fill.dtype != values.dtype:
        if not np.can_cast(fill.dtype, values.dtype, casting="same_kind"):
            raise ValueError(f"fill has dtype {fill.dtype}, which does not cast to {values.dtype}")
        fill = fill.astype(values.dtype)
    if fill.ndim == 0:
        fill = xp.broadcast_to(fill, (m,))
    if fill.shape != (m,):
        raise ValueError(f"fill must have shape ({m},), got {fill.shape}")
    fill = xp.ascontiguousarray(fill)
    n = positions.shape[0]
    out = xp.empty((n, m), values.dtype)
    if n == 0:
        return out
    nbad = xp.zeros(1, xp.uint64)
    name = f"gather_fill<{word_type(values.dtype.itemsize)}>"
    args = (_words(xp, values), np.int64(nse), np.int64(m), positions, np.int64(n), _words(xp, fill), _words(xp, out), nbad)
    drv.launch(SOURCE, name, n * max(m, 1), args)
    bad = drv.scalar(nbad)
    if bad:
        raise ValueError(f"positions has {bad} entries outside -1 and [0, {nse})")
    return out
