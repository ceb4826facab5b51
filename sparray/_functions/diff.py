"""``diff`` of sparse arrays: the n-th forward difference along an axis, sparse.

``diff(x, axis=a)`` is ``x[..., 1:, ...] - x[..., :-1, ...]`` (booleans: ``!=``, as NumPy), the
difference of two shifted copies of ``x``. Both copies are sparse slices of ``x`` (``A[key]``),
and their difference is an element-wise operation of two sparse arrays: its pattern is the union
of the two shifted patterns (at most twice ``nse``), its fill is ``fill - fill`` (0 for a finite
fill; nan for a nan or infinite fill, as in NumPy). A dense-part fill that varies along a dense
``axis`` gives a dense-part fill of differences. ``n`` repeats it (at most ``x.shape[axis] + 1``
times: the axis is then empty and its fill settled); ``n=0`` returns ``x`` itself, as NumPy.
``prepend``/``append`` (sparse, dense or Python scalars, broadcast along ``axis`` as NumPy does)
are joined first with ``concat``; a dense one becomes sparse with ``x``'s fill, a sparse one with
another fill is re-filled to ``x``'s (O(its size)).
The result has ``x``'s layout where its shape allows (else COO). Each step costs a merge of the
two slices (a sort of their entries); its pattern is at most twice the previous one (and never
more than the positions of the result).

>>> import sparray
>>> A = sparray.COO([[1, 2]], [3.0, 5.0], shape=(5,), fill_value=1.0)  # [1, 3, 5, 1, 1]
>>> D = sparray.diff(A)
>>> D.to_dense().tolist(), D.fill_value.tolist()
([2.0, 2.0, -4.0, 0.0], 0.0)
"""

from __future__ import annotations

import operator

from .._array.base import SparseArray
from .._layout.conversion import match_layout
from .._core.namespace import is_array, namespace_of
from .._array.operands import is_scalar
from .._core.validation import normalize_axis

__all__ = ["diff"]


def diff(x, /, *, axis=-1, n=1, prepend=None, append=None):
    """The ``n``-th forward difference of ``x`` along ``axis`` (see the module docstring)."""
    who = "sparray.diff"
    extras = [e for e in (prepend, append) if e is not None]
    if not isinstance(x, SparseArray) and not any(isinstance(e, SparseArray) for e in extras):
        kw = {k: v for k, v in (("prepend", prepend), ("append", append)) if v is not None}
        return namespace_of(x).diff(x, axis=axis, n=n, **kw)
    if not isinstance(x, SparseArray):
        from .creation import asarray

        x = asarray(x)
    try:
        n = operator.index(n)
        axis = operator.index(axis)
    except TypeError:
        raise TypeError(f"{who}: axis and n must be ints; got axis={axis!r}, n={n!r}") from None
    if x.ndim == 0:
        raise ValueError(f"{who}: needs an array of at least one dim; got a 0-d array")
    if n < 0:
        raise ValueError(f"{who}: n must be non-negative; got {n}")
    axis = normalize_axis(axis, x.ndim, who)
    if n == 0:
        return x  # NumPy's rule: prepend and append are not joined either
    like = x
    if prepend is not None or append is not None:
        from .concat import concat

        parts = [_joinable(x, e, axis, "prepend" if e is prepend else "append") for e in (prepend, append)]
        x = concat([p for p in (parts[0], x, parts[1]) if p is not None], axis=axis)
    from .elementwise import not_equal, subtract

    op = not_equal if x.dtype == x._xp.bool else subtract
    head = (slice(None),) * axis
    for _ in range(min(n, x.shape[axis] + 1)):  # past the length the axis stays empty and the fill settles
        x = op(x[(*head, slice(1, None))], x[(*head, slice(None, -1))])
    return match_layout(x, like) if x.layout == "coo" else x


def _joinable(x, extra, axis, name):
    """``extra`` (prepend or append) as a sparse array of ``x``'s dims with ``x``'s fill where it can."""
    from .creation import asarray

    who = f"sparray.diff: {name}"
    if extra is None:
        return None
    xp = x._xp
    if is_scalar(extra) or (is_array(extra) and extra.ndim == 0) or (isinstance(extra, SparseArray) and extra.ndim == 0):
        shape = (*x.shape[:axis], 1, *x.shape[axis + 1 :])
        value = extra.to_dense() if isinstance(extra, SparseArray) else extra
        extra = xp.broadcast_to(xp.asarray(value), shape)
    if tuple(extra.shape[:axis]) + tuple(extra.shape[axis + 1 :]) != x.shape[:axis] + x.shape[axis + 1 :] or extra.ndim != x.ndim:
        raise ValueError(f"{who} must have x's shape {x.shape} except along axis {axis}; got shape {tuple(extra.shape)}")
    s = x.ndim - x.dense_ndim
    try:
        return asarray(extra, fill_value=x.fill_value, sparse_ndim=s if not isinstance(extra, SparseArray) else None)
    except (TypeError, ValueError):  # x's fill cannot be represented in extra's dtype: its own fill
        return extra if isinstance(extra, SparseArray) else asarray(extra, sparse_ndim=s)
