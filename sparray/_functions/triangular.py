"""``tril`` and ``triu`` (array API): the lower / upper triangle of the last two dims, the rest ZERO.

The triangle is taken over the array's last two dims, whatever their kind, because that is what
``numpy.tril(A.to_dense())`` does: for a hybrid CSR of shape ``(M, N, D)`` it is the ``(N, D)``
matrices, not the sparse ``(M, N)`` one (``permute_dims`` the dense dims away first for that).
Element ``(..., i, j)`` is kept when ``j - i <= k`` (tril) or ``j - i >= k`` (triu); every other
element becomes 0, whatever the fill value. Batch dims are allowed; a compressed input comes back
in its layout when the result's shape allows it, else COO. Cost, by where the two dims lie:

- both sparse (``dense_ndim == 0``): the entries outside the triangle are dropped, O(nse). With a
  zero fill that is the whole result. With any other fill ``f`` (nan, -inf, -0.0 included) the
  unspecified elements inside the triangle must stay ``f`` while those outside become 0, and one
  fill cannot say both: the result either has fill 0 and specifies every position of the kept
  triangle (``batch * kept`` entries), or keeps ``f`` and specifies the zeroed triangle with
  explicit zeros (``nse + batch * zeroed`` entries). The smaller one is built (fill 0 on a
  tie), O(batch * M * N) at worst, the size of the answer itself;
- the second-last sparse, the last dense (``dense_ndim == 1``): the value rows are masked,
  O(nse * N). With a non-zero fill, the unspecified rows whose true value (the fill masked to the
  triangle) differs from the result's fill are specified: fill 0 or the old fill, whichever
  needs fewer rows, O(M * N + batch * rows);
- both dense (``dense_ndim >= 2``): values and fill are masked, O(nse * dense size); the fill
  becomes a dense-part fill (the masked one) unless it is zero.

Shortcuts: a ``k`` that zeroes nothing returns ``x``; one that zeroes everything returns an
array with no entries and fill 0.

>>> import sparray
>>> A = sparray.asarray([[1.0, 2.0], [3.0, 4.0]], layout="csr")
>>> sparray.tril(A).to_dense().tolist(), sparray.tril(A).layout
([[1.0, 0.0], [3.0, 4.0]], 'csr')
>>> B = sparray.full((3, 3), 7.0)
>>> sparray.triu(B, k=1).to_dense().tolist()
[[0.0, 7.0, 7.0], [0.0, 0.0, 7.0], [0.0, 0.0, 0.0]]
"""

from __future__ import annotations

import math
import operator

from .._array.base import SparseArray
from .._core.fill import same_value
from .._core.keys import index_dtype_for, linear_keys, unravel
from .manipulation import _as_coo, _back, _coo_class
from .._core.namespace import namespace_of
from .._engine.ragged import expand_runs

__all__ = ["tril", "triu"]


def tril(x, /, *, k=0):
    """The lower triangle of the last two dims of ``x``: element ``(..., i, j)`` kept when
    ``j - i <= k``, every other element 0 (not the fill), as ``numpy.tril`` on ``x.to_dense()``.

    Sparse, in ``x``'s layout. With a zero fill the result is the entries inside the triangle,
    O(nse). With a non-zero fill the result is either fill 0 with every kept position specified
    or ``x``'s fill with the zeroed positions specified as explicit zeros, whichever has fewer
    entries: O(batch * M * N) at worst, the size of the answer. On a hybrid array the triangle
    is over the array's last two dims (dense ones included), as NumPy's on the dense form; see
    ``docs/manipulation.md`` for the costs there.

    >>> import sparray
    >>> sparray.tril(sparray.full((3, 3), 2.0), k=-1).to_dense().tolist()
    [[0.0, 0.0, 0.0], [2.0, 0.0, 0.0], [2.0, 2.0, 0.0]]
    """
    return _triangle(x, k, lower=True)


def triu(x, /, *, k=0):
    """The upper triangle of the last two dims of ``x``: element ``(..., i, j)`` kept when
    ``j - i >= k``, every other element 0 (not the fill), as ``numpy.triu`` on ``x.to_dense()``.

    Result layout and costs as for ``tril``.

    >>> import sparray
    >>> A = sparray.asarray([[1.0, 2.0], [3.0, 4.0]], layout="csc")
    >>> sparray.triu(A).to_dense().tolist(), sparray.triu(A).layout
    ([[1.0, 2.0], [0.0, 4.0]], 'csc')
    """
    return _triangle(x, k, lower=False)


def _triangle(x, k, lower):
    who = "tril" if lower else "triu"
    try:
        k = operator.index(k)
    except TypeError:
        raise TypeError(f"{who}: k must be an int; got {k!r}") from None
    if not isinstance(x, SparseArray):
        xp = namespace_of(x)
        return (xp.tril if lower else xp.triu)(x, k=k)
    if x.ndim < 2:
        raise ValueError(f"{who}: needs an array of at least 2 dims (..., M, N); got shape {x.shape}")
    M, N = x.shape[-2:]
    keeps_all = (k >= N - 1) if lower else (k <= 1 - M)
    if M == 0 or N == 0 or keeps_all:
        return x
    A = _as_coo(x)
    zeroes_all = (k <= -M) if lower else (k >= N)
    if zeroes_all:
        out = _no_entries(A)
    elif A.dense_ndim >= 2:
        out = _dense_matrices(A, k, lower)
    elif A.dense_ndim == 1:
        out = _dense_rows(A, k, lower)
    else:
        out = _sparse_matrices(A, k, lower)
    return _back(out, x)


# --- helpers -----------------------------------------------------------------------------------------
def _kept(r, c, k, lower):
    """Whether element (r, c) lies in the triangle (arrays broadcast)."""
    return (c - r <= k) if lower else (c - r >= k)


def _grid(xp, M, N, k, lower):
    """The (M, N) boolean mask of the triangle."""
    r = xp.reshape(xp.arange(M, dtype=xp.int64), (M, 1))
    c = xp.reshape(xp.arange(N, dtype=xp.int64), (1, N))
    return _kept(r, c, k, lower)


def _is_plus_zero(xp, a):
    """``a == +0`` element-wise (-0.0 is not the 0 that tril writes: its sign would show)."""
    zero = a == xp.zeros((), dtype=a.dtype)
    if xp.isdtype(a.dtype, "real floating"):
        zero = zero & ~xp.signbit(a)
    return zero


def _no_entries(A):
    xp = A._xp
    return _coo_class()._from_parts(xp, A._indices[:, :0], A._values[:0, ...], A.shape,
                                    xp.zeros((), dtype=A.dtype), coalesced=True)


def _positions_in_batches(xp, batch_shape, local):
    """Index rows ``(len(batch_shape) + local rows, nb * T)``: every column of ``local`` (int64,
    ``(r, T)``) in every batch position, batch-major."""
    nb = math.prod(batch_shape)
    t = local.shape[1]
    q = xp.arange(nb * t, dtype=xp.int64)
    batch = unravel(xp, q // t, batch_shape, xp.int64) if t else xp.zeros((len(batch_shape), 0), dtype=xp.int64)
    return xp.concat([batch, xp.take(local, q % t if t else q, axis=1)], axis=0)


def _missing(xp, indices, new, sparse_shape):
    """The columns of ``new`` (int64 index rows) that are no position of ``indices``."""
    if indices.shape[1] == 0 or new.shape[1] == 0:
        return new
    have = xp.sort(linear_keys(xp, indices, sparse_shape))
    want = linear_keys(xp, new, sparse_shape)
    pos = xp.searchsorted(have, want)
    n = have.shape[0]
    found = (pos < n) & (xp.take(have, xp.clip(pos, 0, n - 1)) == want)
    return xp.take(new, xp.nonzero(~found)[0], axis=1)


def _join(xp, A, indices, values, new, new_values, fill):
    """COO of ``A``'s shape with entries ``indices``/``values`` followed by ``new``/``new_values``."""
    s = A.sparse_ndim
    nse = indices.shape[1] + new.shape[1]
    itype = index_dtype_for(xp, A.shape[:s], nse, A._indices)
    indices = xp.concat([xp.astype(indices, itype), xp.astype(new, itype)], axis=1)
    values = xp.concat([values, new_values], axis=0)
    return _coo_class()._from_parts(xp, indices, values, A.shape, fill, coalesced=None)


# --- the three cases ---------------------------------------------------------------------------------
def _dense_matrices(A, k, lower):
    """Both dims dense: mask the values and the fill."""
    xp = A._xp
    M, N = A.shape[-2:]
    keep = _grid(xp, M, N, k, lower)
    zero = xp.zeros((), dtype=A.dtype)
    values = xp.where(keep, A._values, zero)
    fill = A._fill
    if not bool(xp.all(_is_plus_zero(xp, fill))):
        fill = xp.where(keep, xp.broadcast_to(fill, A.dense_shape), zero)
    return _coo_class()._from_parts(xp, A._indices, values, A.shape, fill, coalesced=A._coalesced)


def _sparse_matrices(A, k, lower):
    """Both dims sparse: drop the entries outside; with a non-zero fill, specify the cheaper triangle."""
    xp = A._xp
    s = A.sparse_ndim
    M, N = A.shape[-2:]
    r = xp.astype(A._indices[s - 2, :], xp.int64)
    c = xp.astype(A._indices[s - 1, :], xp.int64)
    sel = xp.nonzero(_kept(r, c, k, lower))[0]
    indices = xp.take(A._indices, sel, axis=1)
    values = xp.take(A._values, sel, axis=0)
    fill = A._fill
    if bool(_is_plus_zero(xp, fill)):
        return _coo_class()._from_parts(xp, indices, values, A.shape, fill, coalesced=A._coalesced)
    # row i keeps the columns [0, cut_i) (tril) or [cut_i, N) (triu); the others are zeroed
    rows = xp.arange(M, dtype=xp.int64)
    cut = xp.clip(rows + (k + 1 if lower else k), 0, N)
    kept_len = cut if lower else N - cut
    kept = int(xp.sum(kept_len))
    nb = math.prod(A.shape[:-2])
    zero = xp.zeros((), dtype=A.dtype)
    to_zero_fill = nb * kept <= indices.shape[1] + nb * (M * N - kept)
    if to_zero_fill:
        # fill 0: every kept position not specified yet gets the old fill
        starts, lengths, value, new_fill = (xp.zeros_like(cut) if lower else cut), kept_len, fill, zero
    else:
        # keep the fill: every zeroed position gets an explicit 0 (none of them is specified now)
        starts, lengths, value, new_fill = (cut if lower else xp.zeros_like(cut)), N - kept_len, zero, fill
    owner, offset = expand_runs(xp, lengths)
    local = xp.stack([owner, xp.take(starts, owner) + offset]) if owner.shape[0] else xp.zeros((2, 0), dtype=xp.int64)
    new = _positions_in_batches(xp, A.shape[:-2], local)
    if to_zero_fill:
        new = _missing(xp, indices, new, A.shape[:s])
    new_values = xp.broadcast_to(xp.reshape(xp.astype(value, A.dtype), (1,)), (new.shape[1],))
    return _join(xp, A, indices, values, new, xp.asarray(new_values, copy=True), new_fill)


def _dense_rows(A, k, lower):
    """The row dim sparse, the column dim dense: mask the value rows; with a non-zero fill, specify
    the rows whose true value differs from the result's fill."""
    xp = A._xp
    s = A.sparse_ndim
    M, N = A.shape[-2:]
    zero = xp.zeros((), dtype=A.dtype)
    r = xp.reshape(xp.astype(A._indices[s - 1, :], xp.int64), (-1, 1))
    c = xp.reshape(xp.arange(N, dtype=xp.int64), (1, N))
    values = xp.where(_kept(r, c, k, lower), A._values, zero)
    fill = A._fill
    if bool(xp.all(_is_plus_zero(xp, fill))):
        return _coo_class()._from_parts(xp, A._indices, values, A.shape, fill, coalesced=A._coalesced)
    f = xp.reshape(xp.broadcast_to(fill, (N,)), (1, N))
    true_rows = xp.where(_grid(xp, M, N, k, lower), f, zero)  # what an unspecified row i holds
    to_zero = xp.any(~_is_plus_zero(xp, true_rows), axis=1)  # rows that need an entry under fill 0
    to_keep = xp.any(~same_value(xp, true_rows, f), axis=1)  # ... under the old fill
    if int(xp.sum(xp.astype(to_zero, xp.int64))) <= int(xp.sum(xp.astype(to_keep, xp.int64))):
        needed, new_fill = xp.nonzero(to_zero)[0], zero
    else:
        needed, new_fill = xp.nonzero(to_keep)[0], fill
    local = xp.reshape(xp.astype(needed, xp.int64), (1, -1))
    new = _missing(xp, A._indices, _positions_in_batches(xp, A.shape[: s - 1], local), A.shape[:s])
    new_values = xp.take(true_rows, new[s - 1, :], axis=0)
    return _join(xp, A, A._indices, values, new, new_values, new_fill)
