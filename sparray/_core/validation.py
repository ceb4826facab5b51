"""Validation of components, in two tiers.

- Structural checks (ranks, lengths, dtypes, shape agreement) are O(1) and always run.
- Content checks (every index in range, non-negative, sorted within a compressed row) are O(nse);
  they run once per array, before an index first reaches a kernel, and the array keeps the answer
  (``_checked``): its products, sums and conversions never pass over its indices again. They run
  at construction with ``check_invariants=True``, and inside ``with sparray.check_invariants():``
  at construction and at every use of an array (the check on request: a component written in
  place behind the array's back is seen there). Outside it such a write is not looked for; the
  kernels still check every index before they use it as an address, so an index out of range
  raises ValueError at the next use rather than reading out of bounds.

Errors name the argument and the rule:
``ValueError: COO: indices[1, 3] = 7 is out of range for dimension 1 of size 5``.
"""

from __future__ import annotations

import contextlib
import contextvars
import operator

from .dtypes import dtype_name

__all__ = ["AxisError", "check_invariants", "invariant_checks_on", "normalize_shape", "check_index_dtype",
           "check_indices_in_range"]

_CHECKS: contextvars.ContextVar[bool] = contextvars.ContextVar("sparray_check_invariants", default=False)

INDEX_DTYPES = ("int32", "int64")


@contextlib.contextmanager
def check_invariants(enabled: bool = True):
    """Turn the O(nse) invariant checks on (or off) inside a ``with`` block: every constructor checks
    its components, and every use of an existing array checks them again (the arrays' kept answer
    is not trusted inside the block; the lean paths step aside).

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


class AxisError(ValueError, IndexError):
    """An axis out of range: a ValueError (the project's class for bad values) that is also an
    IndexError (what the array API asks of ``expand_dims``), as NumPy's own ``AxisError`` is."""


def normalize_axes(axis, ndim, who, *, allow_none=True):
    """``axis`` (an int, a tuple of ints, or None for every dim) as a tuple of dims in [0, ndim)."""
    if axis is None and allow_none:
        return tuple(range(ndim))
    axes = axis if isinstance(axis, tuple) else (axis,)
    out = []
    for a in axes:
        try:
            a = operator.index(a)
        except TypeError:
            allowed = "an int, a tuple of ints or None" if allow_none else "an int or a tuple of ints"
            raise TypeError(f"{who}: axis must be {allowed}; got {axis!r}") from None
        if not -ndim <= a < ndim:
            raise AxisError(f"{who}: axis {a} is out of range for an array of {ndim} dims")
        out.append(a % ndim)
    if len(set(out)) != len(out):
        raise ValueError(f"{who}: repeated axis in {axis!r}")
    return tuple(out)


def normalize_axis(axis, ndim, who, *, none_allowed=False) -> int:
    """One ``axis`` (an int, negative counted from the end) as a dim in [0, ndim).

    TypeError for a non-integer (its message says None was allowed too when the caller handles
    ``axis=None`` itself: ``none_allowed``), AxisError (a ValueError and an IndexError) when out of range.

    >>> normalize_axis(-1, 3, "f")
    2
    """
    try:
        axis = operator.index(axis)
    except TypeError:
        raise TypeError(f"{who}: axis must be an int{' or None' if none_allowed else ''}; got {axis!r}") from None
    if not -ndim <= axis < ndim:
        raise AxisError(f"{who}: axis {axis} is out of range for an array of {ndim} dims")
    return axis % ndim


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


def _position(batch_shape, flat_batch: int, j: int) -> str:
    """``"b0, b1, j"``: a position in a batched component, for error messages."""
    coords, rest = [], flat_batch
    for size in reversed(batch_shape):
        coords.append(rest % size)
        rest //= size
    return ", ".join(str(c) for c in [*reversed(coords), j])


def check_compressed_contents(xp, cidx, pidx, nminor: int, who: str, cname: str, pname: str) -> None:
    """The O(nse) rules of a compressed encoding (PyTorch's CSR rules), first offender named.

    For every batch: ``cidx[..., 0] == 0``; ``cidx[..., -1] == nse``; ``cidx`` non-decreasing;
    ``0 <= pidx < nminor``; ``pidx`` strictly increasing within each compressed row (sorted,
    no duplicates). ``cidx`` is ``(*batch, nmajor + 1)``, ``pidx`` ``(*batch, nse)``.
    """
    batch_shape = tuple(cidx.shape[:-1])
    nb = 1
    for s in batch_shape:
        nb *= s
    width = cidx.shape[-1]
    nse = pidx.shape[-1]
    if nb == 0:
        return
    c = xp.reshape(xp.astype(cidx, xp.int64), (nb, width))
    p = xp.reshape(xp.astype(pidx, xp.int64), (nb, nse))

    def first(mask):
        flat = xp.nonzero(xp.reshape(mask, (-1,)))[0]
        if flat.shape[0] == 0:
            return None
        k = int(flat[0])
        return k // mask.shape[1], k % mask.shape[1]

    bad = first(c[:, :1] != 0)
    if bad:
        b, _ = bad
        raise ValueError(f"{who}: {cname}[{_position(batch_shape, b, 0)}] = {int(c[b, 0])} must be 0")
    bad = first(c[:, -1:] != nse)
    if bad:
        b, _ = bad
        raise ValueError(
            f"{who}: {cname}[{_position(batch_shape, b, width - 1)}] = {int(c[b, width - 1])} must equal nse = {nse}"
        )
    if width > 1:
        bad = first(c[:, 1:] < c[:, :-1])
        if bad:
            b, j = bad
            raise ValueError(
                f"{who}: {cname} must be non-decreasing; {cname}[{_position(batch_shape, b, j + 1)}] = "
                f"{int(c[b, j + 1])} < {cname}[{_position(batch_shape, b, j)}] = {int(c[b, j])}"
            )
    if nse == 0:
        return
    bad = first((p < 0) | (p >= nminor))
    if bad:
        b, j = bad
        value = int(p[b, j])
        rule = "is negative" if value < 0 else f"is out of range for {nminor} {'columns' if pname.startswith('col') else 'rows'}"
        raise ValueError(f"{who}: {pname}[{_position(batch_shape, b, j)}] = {value} {rule}")
    if nse > 1:
        # entry j+1 starts a new compressed row when j+1 is one of the row pointers of its batch
        span = nse + 1
        glob = xp.reshape(c + xp.reshape(xp.arange(nb, dtype=xp.int64) * span, (nb, 1)), (-1,))
        q = xp.reshape(xp.reshape(xp.arange(1, nse, dtype=xp.int64), (1, nse - 1)) + xp.reshape(xp.arange(nb, dtype=xp.int64) * span, (nb, 1)), (-1,))
        starts = xp.searchsorted(glob, q, side="right") > xp.searchsorted(glob, q, side="left")
        starts = xp.reshape(starts, (nb, nse - 1))
        bad = first((p[:, 1:] <= p[:, :-1]) & ~starts)
        if bad:
            b, j = bad
            raise ValueError(
                f"{who}: {pname} must be strictly increasing within each compressed row (sorted, no duplicates); "
                f"{pname}[{_position(batch_shape, b, j + 1)}] = {int(p[b, j + 1])} follows "
                f"{pname}[{_position(batch_shape, b, j)}] = {int(p[b, j])} in the same row"
            )
