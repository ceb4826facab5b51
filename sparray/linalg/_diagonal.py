"""``diagonal`` and ``trace``: the entries on a diagonal of each matrix, without densifying.

For a matrix ``(..., M, N)`` the diagonal at ``offset`` holds ``x[..., i, i + offset]``
(``offset >= 0``) or ``x[..., i - offset, i]`` (``offset < 0``) for ``i`` in
``range(K)``, ``K = max(0, min(M, N - offset))`` or ``max(0, min(M + offset, N))``.

- Sparse input (no dense dims): the specified elements whose column minus row equals the offset
  are kept, at position ``(*batch, i)``; every other diagonal position is unspecified and so holds
  the fill. The result is sparse, shape ``(*batch, K)``, with the input's fill value, in the
  input's layout when it has two or more dims (``match_layout``), else COO. Duplicates of an
  uncoalesced COO stay duplicates (they still stand for their sum). O(nse).
- Hybrid input: when both matrix dims are dense dims the diagonal is taken from every stored
  dense part and from the (dense-part) fill; when only the last one is, that dense dim turns sparse
  (if the fill does not vary along it) or the last sparse dim turns dense.
- ``trace`` is ``sparray.sum(diagonal(x, offset=offset), axis=-1, dtype=dtype)``: the unspecified
  diagonal positions add ``fill * count`` exactly, nan and inf included; the dtype follows the
  standard's ``sum`` (small integers widen to the default integer dtype).

>>> import sparray, numpy as np
>>> A = sparray.asarray(np.array([[1.0, 7.0, 0.0], [0.0, 0.0, 2.0]]), fill_value=0.0, layout="csr")
>>> sparray.linalg.diagonal(A, offset=1).to_dense().tolist()
[7.0, 2.0]
>>> float(sparray.linalg.trace(A))
1.0
"""

from __future__ import annotations

from .._array.base import SparseArray
from .._layout.conversion import match_layout
from .._array.coo import COO
from .._functions.manipulation import _fill_uniform_over, move_dense_to_sparse
from ._checks import array_namespace, check_int, check_matrices

__all__ = ["diagonal", "trace"]


def _diagonal_size(M, N, offset) -> int:
    return max(0, min(M, N - offset)) if offset >= 0 else max(0, min(M + offset, N))


def diagonal(x, /, *, offset=0):
    """The diagonal at ``offset`` of each matrix of ``x`` ``(..., M, N)``: shape ``(..., K)``.

    Sparse input gives a sparse result (see the module docstring); dense input goes to its namespace.
    """
    who = "sparray.linalg.diagonal"
    xp = array_namespace(who, x)
    check_matrices(who, x)
    offset = check_int(who, offset, "offset")
    if not isinstance(x, SparseArray):
        return xp.linalg.diagonal(x, offset=offset)
    A = x if x.layout == "coo" else x.to_layout("coo")
    if A.dense_ndim == 1:
        if _fill_uniform_over(A, 1):
            A = move_dense_to_sparse(A, A.ndim)
        else:  # the fill varies along the last dim: the last sparse dim joins the dense part instead
            A = A.to_layout("coo", dense_ndim=2)
    out = _dense_part_diagonal(A, offset) if A.dense_ndim else _index_diagonal(A, offset)
    return match_layout(out, x)


def _index_diagonal(A, offset):
    """Diagonal of a COO without dense dims: the entries with ``col - row == offset``."""
    xp = A._xp
    M, N = A.shape[-2], A.shape[-1]
    K = _diagonal_size(M, N, offset)
    idx = A._indices
    rows, cols = xp.astype(idx[-2, :], xp.int64), xp.astype(idx[-1, :], xp.int64)
    keep = xp.nonzero((cols - rows) == offset)[0]
    at = xp.take(idx, keep, axis=1)
    position = at[-2:-1, :] if offset >= 0 else at[-1:, :]  # i: the row (offset >= 0) or the column
    indices = xp.concat([at[:-2, :], position], axis=0)
    values = xp.take(A._values, keep, axis=0)
    # a coalesced input is sorted by (batch, row, col): the kept entries are sorted by (batch, i)
    return COO._from_parts(xp, indices, values, (*A.shape[:-2], K), A._fill, coalesced=A._coalesced)


def _dense_part_diagonal(A, offset):
    """Diagonal of a COO whose last two dims are dense dims: taken from every dense part and the fill."""
    xp = A._xp
    M, N = A.shape[-2], A.shape[-1]
    K = _diagonal_size(M, N, offset)
    values = _dense_diagonal(xp, A._values, offset, K)
    fill = A._fill if A._fill.ndim == 0 else _dense_diagonal(xp, A._fill, offset, K)
    return COO._from_parts(xp, A._indices, values, (*A.shape[:-2], K), fill, coalesced=A._coalesced)


def _dense_diagonal(xp, a, offset, K):
    """``a[..., i, i + offset]`` (or ``a[..., i - offset, i]``) for i < K, by one gather (pure array API)."""
    M, N = a.shape[-2], a.shape[-1]
    i = xp.arange(K, dtype=xp.int64)
    flat = i * N + i + offset if offset >= 0 else (i - offset) * N + i
    return xp.take(xp.reshape(a, (*a.shape[:-2], M * N)), flat, axis=-1)


def trace(x, /, *, offset=0, dtype=None):
    """Sum along the diagonal at ``offset`` of each matrix: shape ``x.shape[:-2]`` (see the module docstring)."""
    from .._functions.reductions import sum as sparse_sum

    who = "sparray.linalg.trace"
    xp = array_namespace(who, x)
    check_matrices(who, x)
    offset = check_int(who, offset, "offset")
    if not isinstance(x, SparseArray):
        from .._core.dtypes import resolve_dtype

        return xp.linalg.trace(x, offset=offset, dtype=resolve_dtype(xp, dtype))
    return sparse_sum(diagonal(x, offset=offset), axis=-1, dtype=dtype)
