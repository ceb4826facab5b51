"""Validation of components, in two tiers.

- Structural checks (ranks, lengths, dtypes, shape agreement) are O(1) and always run.
- Content checks (every index in range, non-negative) are O(nse); they run when invariant checks
  are on (``check_invariants=True`` or inside ``with sparray.check_invariants():``), and in any case
  once before an index first reaches a kernel, so no kernel ever sees an out-of-range index.

Errors name the argument and the rule:
``ValueError: COO: indices[1, 3] = 7 is out of range for dimension 1 of size 5``.
"""

from __future__ import annotations

import contextlib
import contextvars
import operator

from ._dtypes import dtype_name

__all__ = ["check_invariants", "invariant_checks_on", "normalize_shape", "check_index_dtype", "check_indices_in_range"]

_CHECKS: contextvars.ContextVar[bool] = contextvars.ContextVar("sparray_check_invariants", default=False)

INDEX_DTYPES = ("int32", "int64")


@contextlib.contextmanager
def check_invariants(enabled: bool = True):
    """Turn the O(nse) invariant checks of every constructor on (or off) inside a ``with`` block.

    >>> import sparray
    >>> with sparray.check_invariants():
    ...     sparray.COO([[0, 7]], [1.0, 2.0], shape=(5,))
    Traceback (most recent call last):
    ...
    ValueError: COO: indices[0, 1] = 7 is out of range for dimension 0 of size 5
    """
    token = _CHECKS.set(bool(enabled))
    try:
        yield
    finally:
        _CHECKS.reset(token)


def invariant_checks_on(explicit=None) -> bool:
    """The effective setting: an explicit constructor argument wins over the context."""
    return _CHECKS.get() if explicit is None else bool(explicit)


def normalize_shape(shape, who: str) -> tuple[int, ...]:
    """``shape`` as a tuple of non-negative Python ints (an int means a 1-d shape)."""
    if isinstance(shape, int) or hasattr(shape, "__index__"):
        shape = (shape,)
    try:
        out = tuple(operator.index(s) for s in shape)
    except TypeError:
        raise TypeError(f"{who}: shape must be a tuple of ints; got {shape!r}") from None
    if any(s < 0 for s in out):
        raise ValueError(f"{who}: shape entries must be non-negative; got {out}")
    return out


def check_index_dtype(indices, who: str, name: str) -> None:
    """Index arrays are int32 or int64."""
    try:
        name_of = dtype_name(indices.dtype)
    except TypeError:
        name_of = str(indices.dtype)
    if name_of not in INDEX_DTYPES:
        raise TypeError(f"{who}: {name} must have dtype int32 or int64; got {name_of}")


def check_indices_in_range(xp, indices, sizes, who: str, name: str = "indices") -> None:
    """Every ``indices[d, j]`` lies in ``[0, sizes[d])``; the first offender is named otherwise."""
    if indices.shape[1] == 0:
        return
    lo = xp.min(indices, axis=1)
    hi = xp.max(indices, axis=1)
    for d, size in enumerate(sizes):
        low, high = int(lo[d]), int(hi[d])
        if low >= 0 and high < size:
            continue
        bad = xp.nonzero((indices[d, :] < 0) | (indices[d, :] >= size))[0]
        j = int(bad[0])
        value = int(indices[d, j])
        rule = "is negative" if value < 0 else f"is out of range for dimension {d} of size {size}"
        raise ValueError(f"{who}: {name}[{d}, {j}] = {value} {rule}")
