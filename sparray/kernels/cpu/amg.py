"""The numba kernels of smoothed-aggregation multigrid (:mod:`sparray.linalg._amg`).

Every kernel reads a CSR ``(indptr, indices, values)`` with int32 or int64 indices and returns a status
with the row it stopped at (0 = fine); the Python wrappers raise ValueError for any other
status. No index is used as an address before it is checked: a pointer outside ``[0, nse]`` or
below its predecessor, or a column outside ``[0, n)``, stops the kernel.

- :func:`symmetric_strength` -- the strong connections of a square matrix: ``i != j`` with
  ``|a_ij| >= theta * sqrt(|a_ii| |a_jj|)`` (the "symmetric" measure of Vanek, Mandel and
  Brezina); the diagonal is left out (aggregation reads neighbours only).
- :func:`standard_aggregation` -- the greedy three-pass aggregation of Vanek, Mandel and Brezina
  (1996) on the strength graph: (1) a node whose neighbours are all free starts an aggregate of
  itself and them, (2) a free node with a neighbour aggregated in pass 1 joins that neighbour's
  aggregate, (3) a node still free starts an aggregate of itself and its free neighbours. A node
  without neighbours stays in no aggregate (``-1``).
- :func:`fit_candidates` -- the tentative prolongator ``T`` and the coarse candidates: per
  aggregate, a thin QR (modified Gram-Schmidt) of the rows of ``B`` the aggregate owns, ``Q``
  into ``T``'s rows, ``R`` into the coarse ``B``. A column that QR finds dependent (its norm
  falls below ``tol`` times its norm before orthogonalization) is zero in ``Q`` and ``R``.
- :func:`diagonal` -- the diagonal of a square CSR;
- :func:`gauss_seidel` -- Gauss-Seidel sweeps in place on ``x`` for ``A x = b``: forward,
  backward or symmetric (forward then backward). A row with a zero diagonal is left as it is.
  Large systems sweep fixed blocks at once (hybrid Gauss-Seidel, the one parallel kernel here).

>>> import numpy as np
>>> indptr, indices = np.array([0, 2, 5, 8, 10]), np.array([0, 1, 0, 1, 2, 1, 2, 3, 2, 3])
>>> values = np.array([2.0, -1, -1, 2, -1, -1, 2, -1, -1, 2])  # 1-D Laplacian, 4 nodes
>>> sp, sj = symmetric_strength(indptr, indices, values, 0.0)
>>> agg, count = standard_aggregation(sp, sj)
>>> agg.tolist(), count
([0, 0, 1, 1], 2)
"""

import numba
import numpy as np

from . import _cache  # noqa: F401  (compiled kernels go to the per-user cache, see _cache.py)

__all__ = ["BLOCKS", "BLOCK_ROWS_MIN", "diagonal", "fit_candidates", "gauss_seidel", "standard_aggregation", "symmetric_strength"]

_JIT = dict(cache=True, nogil=True)
_OK, _BAD_POINTER, _BAD_INDEX = 0, 1, 2
_SWEEPS = {"forward": 0, "backward": 1, "symmetric": 2}


def _raise(who, status, row):
    if status == _BAD_POINTER:
        raise ValueError(f"{who}: the row pointers are not non-decreasing within [0, nse] (row {row})")
    if status == _BAD_INDEX:
        raise ValueError(f"{who}: a column index is outside [0, n) (row {row})")


def _csr(indptr, indices):
    """The index arrays as contiguous int32 or int64 (other integer dtypes as int64): no copy of
    int32/int64 arrays, whose kernels are compiled for both."""
    def one(a):
        a = np.asarray(a)
        return np.ascontiguousarray(a) if a.dtype in (np.int32, np.int64) else np.ascontiguousarray(a, np.int64)

    return one(indptr), one(indices)


# --- strength of connection -------------------------------------------------------------------------
@numba.njit(**_JIT)
def _strength(indptr, indices, values, theta2, sp, sj):
    n = indptr.shape[0] - 1
    nse = indices.shape[0]
    if indptr[0] != 0 or indptr[n] != nse:
        return _BAD_POINTER, 0, 0
    diag = np.zeros(n, np.float64)
    for i in range(n):
        lo, hi = indptr[i], indptr[i + 1]
        if hi < lo or hi > nse:
            return _BAD_POINTER, i, 0
        for p in range(lo, hi):
            c = indices[p]
            if c < 0 or c >= n:
                return _BAD_INDEX, i, 0
            if c == i:
                diag[i] += abs(values[p])
    k = 0
    sp[0] = 0
    for i in range(n):
        for p in range(indptr[i], indptr[i + 1]):
            c = indices[p]
            if c != i:
                a = abs(values[p])
                if a * a >= theta2 * diag[i] * diag[c]:
                    sj[k] = c
                    k += 1
        sp[i + 1] = k
    return _OK, 0, k


def symmetric_strength(indptr, indices, values, theta):
    """``(sp, sj)``: the CSR pattern of the strong off-diagonal connections of a square matrix,
    ``|a_ij| >= theta * sqrt(|a_ii| |a_jj|)`` (``theta >= 0``; ``theta = 0`` keeps every
    off-diagonal entry, explicit zeros included, as pyamg does). Duplicate diagonal entries add."""
    who = "symmetric_strength"
    indptr, indices = _csr(indptr, indices)
    values = np.ascontiguousarray(values)
    sp = np.empty(indptr.shape[0], indices.dtype)
    sj = np.empty(indices.shape[0], indices.dtype)
    status, row, k = _strength(indptr, indices, values, float(theta) ** 2, sp, sj)
    _raise(who, status, row)
    return sp, sj[:k].copy()


@numba.njit(**_JIT)
def _diagonal(indptr, indices, values, d):
    n = indptr.shape[0] - 1
    nse = indices.shape[0]
    if indptr[0] != 0 or indptr[n] != nse or values.shape[0] != nse:
        return _BAD_POINTER, 0
    for i in range(n):
        lo, hi = indptr[i], indptr[i + 1]
        if hi < lo or hi > nse:
            return _BAD_POINTER, i
        for p in range(lo, hi):
            if indices[p] == i:
                d[i] += values[p]
    return _OK, 0


def diagonal(indptr, indices, values):
    """The diagonal of a square CSR (duplicates added; 0 where a row has no diagonal entry)."""
    indptr, indices = _csr(indptr, indices)
    values = np.ascontiguousarray(values)
    d = np.zeros(indptr.shape[0] - 1, values.dtype)
    status, row = _diagonal(indptr, indices, values, d)
    _raise("diagonal", status, row)
    return d


# --- aggregation ------------------------------------------------------------------------------------
@numba.njit(**_JIT)
def _aggregate(sp, sj, agg):
    """Fill ``agg`` (int64, n, every entry -1 on entry); returns (status, row, count)."""
    n = sp.shape[0] - 1
    nse = sj.shape[0]
    if sp[0] != 0 or sp[n] != nse:
        return _BAD_POINTER, 0, 0
    for i in range(n):
        if sp[i + 1] < sp[i] or sp[i + 1] > nse:
            return _BAD_POINTER, i, 0
        for p in range(sp[i], sp[i + 1]):
            if sj[p] < 0 or sj[p] >= n:
                return _BAD_INDEX, i, 0
    count = 0
    # pass 1: a node with neighbours, all of them free, roots an aggregate of itself and them
    for i in range(n):
        if agg[i] != -1 or sp[i + 1] == sp[i]:
            continue
        free = True
        for p in range(sp[i], sp[i + 1]):
            if agg[sj[p]] != -1:
                free = False
                break
        if free:
            agg[i] = count
            for p in range(sp[i], sp[i + 1]):
                agg[sj[p]] = count
            count += 1
    # pass 2: a free node joins the aggregate of a neighbour that pass 1 aggregated (marked
    # -(a + 2) meanwhile, so that no node joins through a node of this pass)
    for i in range(n):
        if agg[i] != -1:
            continue
        for p in range(sp[i], sp[i + 1]):
            a = agg[sj[p]]
            if a >= 0:
                agg[i] = -(a + 2)
                break
    for i in range(n):
        if agg[i] < -1:
            agg[i] = -agg[i] - 2
    # pass 3: a node still free (with neighbours) roots an aggregate of itself and its free neighbours
    for i in range(n):
        if agg[i] != -1 or sp[i + 1] == sp[i]:
            continue
        agg[i] = count
        for p in range(sp[i], sp[i + 1]):
            if agg[sj[p]] == -1:
                agg[sj[p]] = count
        count += 1
    return _OK, 0, count


def standard_aggregation(sp, sj):
    """``(agg, count)``: the aggregate of each node (int64, ``-1`` for a node without strong
    neighbours) and the number of aggregates, of the strength graph ``(sp, sj)`` (see the
    module docstring). Aggregates are numbered in the order they are made."""
    sp, sj = _csr(sp, sj)
    agg = np.full(sp.shape[0] - 1, -1, np.int64)
    status, row, count = _aggregate(sp, sj, agg)
    _raise("standard_aggregation", status, row)
    return agg, int(count)


# --- tentative prolongator --------------------------------------------------------------------------
@numba.njit(**_JIT)
def _fit(B, tol, start, order, q, r):
    """Per aggregate ``a``, MGS of the rows ``order[start[a]:start[a+1]]`` of ``B`` into ``q`` (the
    same rows of a (n, K) array) and ``r[a]`` (K, K)."""
    K = B.shape[1]
    for a in range(start.shape[0] - 1):
        lo, hi = start[a], start[a + 1]
        for j in range(K):
            before = 0.0
            for t in range(lo, hi):
                v = B[order[t], j]
                q[order[t], j] = v
                before += abs(v) ** 2
            for m in range(j):
                dot = q[0, 0] * 0
                for t in range(lo, hi):
                    dot += np.conj(q[order[t], m]) * q[order[t], j]
                r[a, m, j] = dot
                for t in range(lo, hi):
                    q[order[t], j] -= dot * q[order[t], m]
            after = 0.0
            for t in range(lo, hi):
                after += abs(q[order[t], j]) ** 2
            nrm = np.sqrt(after)
            if nrm > tol * np.sqrt(before) and nrm > 0:
                r[a, j, j] = nrm
                for t in range(lo, hi):
                    q[order[t], j] /= nrm
            else:
                r[a, j, j] = 0
                for t in range(lo, hi):
                    q[order[t], j] = 0
    return _OK


def fit_candidates(agg, count, B, blocksize=1, tol=1e-10):
    """``(T, Bc)`` for the aggregates ``agg`` of the nodes (``count`` of them) and the candidates
    ``B`` ``(n, K)`` of the ``n = nodes * blocksize`` unknowns (unknown ``i`` is in node
    ``i // blocksize``): ``T`` as CSR arrays ``(indptr, indices, values)`` of shape
    ``(n, count * K)``, orthonormal columns, ``T @ Bc == B`` on the aggregated unknowns, and the
    coarse candidates ``Bc`` ``(count * K, K)``. An unknown in no aggregate has an empty row.

    >>> import numpy as np
    >>> (indptr, indices, values), Bc = fit_candidates(np.array([0, 0, 1]), 2, np.ones((3, 1)))
    >>> indices.tolist(), np.round(values, 4).tolist(), np.round(Bc.ravel(), 4).tolist()
    ([0, 0, 1], [0.7071, 0.7071, 1.0], [1.4142, 1.0])
    """
    agg = np.ascontiguousarray(agg, np.int64)
    B = np.ascontiguousarray(B)
    if B.ndim != 2 or B.shape[0] != agg.shape[0] * blocksize:
        raise ValueError(f"fit_candidates: B must have shape ({agg.shape[0] * blocksize}, K); got {B.shape}")
    if agg.size and (agg.max() >= count or agg.min() < -1):
        raise ValueError(f"fit_candidates: an aggregate id is outside [-1, {count})")
    n, K = B.shape
    dof_agg = np.repeat(agg, blocksize)
    inside = dof_agg >= 0
    order = np.argsort(dof_agg, kind="stable")[int(n - inside.sum()):].astype(np.int64)
    start = np.zeros(count + 1, np.int64)
    np.cumsum(np.bincount(dof_agg[inside], minlength=count), out=start[1:])
    q = np.zeros((n, K), B.dtype)
    r = np.zeros((count, K, K), B.dtype)
    _fit(B, float(tol), start, order, q, r)
    indptr = np.zeros(n + 1, np.int64)
    np.cumsum(np.where(inside, K, 0), out=indptr[1:])
    rows = np.flatnonzero(inside)
    indices = (dof_agg[rows][:, None] * K + np.arange(K)[None, :]).ravel()
    values = q[rows].ravel()
    return (indptr, indices, values), r.reshape(count * K, K)


# --- Gauss-Seidel -----------------------------------------------------------------------------------
@numba.njit(**_JIT)
def _gauss_seidel(indptr, indices, values, dinv, x, b, sweep, iterations):
    n = x.shape[0]
    if indptr.shape[0] != n + 1 or dinv.shape[0] != n or b.shape[0] != n or values.shape[0] != indices.shape[0]:
        return _BAD_POINTER, 0
    for _ in range(iterations):
        if sweep != 1:
            status, row = _block_sweep(indptr, indices, values, dinv, x, x, b, 0, n, 1)  # one block: every row
            if status != _OK:
                return status, row
        if sweep != 0:
            status, row = _block_sweep(indptr, indices, values, dinv, x, x, b, 0, n, -1)
            if status != _OK:
                return status, row
    return _OK, 0


@numba.njit(**_JIT)
def _block_sweep(indptr, indices, values, dinv, x, old, b, lo, hi, step):
    """One block's sweep: rows ``[lo, hi)`` (``step`` 1) or ``(hi, lo]`` backwards (``step`` -1),
    the block's own unknowns read as they are updated, every other one from ``old``."""
    nse = indices.shape[0]
    n = x.shape[0]
    start, stop = (lo, hi) if step == 1 else (hi - 1, lo - 1)
    for i in range(start, stop, step):
        p0, p1 = indptr[i], indptr[i + 1]
        if p0 < 0 or p1 < p0 or p1 > nse:
            return _BAD_POINTER, i
        s = b[i]
        for p in range(p0, p1):
            c = indices[p]
            if c < 0 or c >= n:
                return _BAD_INDEX, i
            s -= values[p] * (x[c] if lo <= c < hi else old[c])
        x[i] += s * dinv[i]
    return _OK, 0


@numba.njit(parallel=True, cache=True, nogil=True)
def _gauss_seidel_blocks(indptr, indices, values, dinv, x, b, sweep, iterations, bounds, old, status):
    n = x.shape[0]
    nb = bounds.shape[0] - 1
    if indptr.shape[0] != n + 1 or dinv.shape[0] != n or b.shape[0] != n or values.shape[0] != indices.shape[0]:
        status[0, 0] = _BAD_POINTER
        return
    for _ in range(iterations):
        for direction in range(2):
            if (direction == 0 and sweep == 1) or (direction == 1 and sweep == 0):
                continue
            for i in numba.prange(n):
                old[i] = x[i]
            step = 1 if direction == 0 else -1
            for k in numba.prange(nb):
                got, row = _block_sweep(indptr, indices, values, dinv, x, old, b, bounds[k], bounds[k + 1], step)
                if got != _OK:
                    status[k, 0] = got
                    status[k, 1] = row
            for k in range(nb):
                if status[k, 0] != _OK:
                    return


#: From this many rows a sweep runs as :data:`BLOCKS` blocks at once (see :func:`gauss_seidel`).
BLOCK_ROWS_MIN = 50_000
#: The number of blocks of a blocked sweep: fixed, so the result does not depend on the threads.
BLOCKS = 16


def gauss_seidel(indptr, indices, values, dinv, x, b, sweep="symmetric", iterations=1):
    """Gauss-Seidel on ``A x = b`` in place on ``x`` (1-d, contiguous, the dtype of ``values``):
    row ``i`` sets ``x_i += (b_i - sum_j a_ij x_j) * dinv_i``, which is ``x_i = (b_i - sum_{j != i}
    a_ij x_j) / a_ii`` for ``dinv_i = 1 / a_ii`` (``dinv_i = 0``: the row is skipped). ``sweep``:
    "forward", "backward" or "symmetric".

    From :data:`BLOCK_ROWS_MIN` rows the sweep is *hybrid* (hypre's "hybrid Gauss-Seidel"): the
    rows are cut into :data:`BLOCKS` equal blocks swept at once on numba's threads, each reading its
    own unknowns as they change and the others' as they were when the sweep began (Gauss-Seidel
    inside a block, Jacobi between blocks). The blocks are fixed, so the result is the same on any
    number of threads; the forward and backward sweeps stay each other's transposes, so a
    symmetric sweep stays a symmetric smoother. Below, the plain sequential sweep."""
    from ._scratch import scratch
    from ._threads import team

    n = x.shape[0]
    mode = _SWEEPS[sweep]
    if n < BLOCK_ROWS_MIN:
        status, row = _gauss_seidel(indptr, indices, values, dinv, x, b, mode, int(iterations))
        _raise("gauss_seidel", status, row)
        return x
    bounds = (np.arange(BLOCKS + 1, dtype=np.int64) * n) // BLOCKS
    old = scratch("amg.gauss_seidel", (n,), x.dtype)  # kept between calls: no fresh pages a sweep
    status = np.zeros((BLOCKS, 2), np.int64)
    with team(indices.shape[0]):
        _gauss_seidel_blocks(indptr, indices, values, dinv, x, b, mode, int(iterations), bounds, old, status)
    bad = np.flatnonzero(status[:, 0])
    if bad.size:
        _raise("gauss_seidel", int(status[bad[0], 0]), int(status[bad[0], 1]))
    return x
