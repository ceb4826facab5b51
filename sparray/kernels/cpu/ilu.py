"""Incomplete factorizations with zero fill-in of a square CSR matrix, and their triangular solves.

- :func:`canonical_csr` -- a CSR encoding checked and made canonical (int64 indices, sorted
  columns, duplicates summed): what the factorizations read.
- :func:`ilu0_factor` / :func:`ilu0_solve` -- ILU(0): ``A ~ L @ U`` with ``L`` unit lower and ``U``
  upper triangular, both on the pattern of ``A``. The factors share ``A``'s pattern: one values
  array ``lu`` holds ``L``'s strictly lower part and ``U`` (diagonal included), ``diag[i]`` is the
  position of row ``i``'s diagonal entry.
- :func:`tril_csr` -- the lower triangle (diagonal included) of a canonical CSR.
- :func:`ic0_factor` / :func:`ic0_solve` -- IC(0): ``A ~ L @ L^H`` with ``L`` lower triangular on
  the pattern of the lower triangle of ``A`` (only that triangle is read), positive real diagonal.

Algorithms (Saad, *Iterative Methods for Sparse Linear Systems*, 2nd ed., algorithms 10.4 and the
row form of 10.8). ILU(0) is the IKJ variant of Gaussian elimination restricted to the pattern:
for each row ``i`` and each of its entries ``k < i`` in increasing column order,
``l_ik = a_ik / u_kk``, then ``a_ij -= l_ik * u_kj`` for the entries ``j > k`` of row ``k`` that
are also in row ``i`` (a marker array maps a column to its position in row ``i``). IC(0) computes
row ``i`` of ``L`` left to right: ``l_ij = (a_ij - sum_m l_im conj(l_jm)) / l_jj`` over the
columns ``m < j`` in both rows, then ``l_ii = sqrt(a_ii - sum_m |l_im|^2)``. Both are sequential
(each row needs the finished rows above it) and take O(sum over entries of the row lengths they
touch): the cost of one sparse product of the pattern with itself.

Conventions. The values are float32, float64, complex64 or complex128 (anything else is a
TypeError: cast first); the indices int64 (:func:`canonical_csr` gives them). A right-hand side is
``(n,)`` or ``(n, k)`` of the factor's dtype; the solve returns a new array of its shape (the
kernels solve one contiguous vector, the columns of an ``(n, k)`` one in turn). Every kernel is
``njit(cache=True, nogil=True)`` and serial.

Safety. No pointer or index is used as an address before it is checked: a pointer outside
``[0, nse]`` or below its predecessor, a column outside ``[0, n)`` or not above its predecessor
in its row, a factor whose diagonal positions do not fit its rows, stops the kernel with a status
and the wrapper raises ValueError naming the row. A missing diagonal entry, a zero (ILU) or
non-positive (IC) pivot, or a non-finite one, is a ValueError naming the row too.

>>> import numpy as np
>>> indptr, indices = np.array([0, 2, 5, 7]), np.array([0, 1, 0, 1, 2, 1, 2])
>>> values = np.array([4.0, -1.0, -1.0, 4.0, -1.0, -1.0, 4.0])  # tridiagonal: ILU(0) is exact LU
>>> lu, diag = ilu0_factor(indptr, indices, values)
>>> A = np.array([[4.0, -1, 0], [-1, 4, -1], [0, -1, 4]])
>>> np.allclose(ilu0_solve(indptr, indices, lu, diag, A @ [1.0, 2.0, 3.0]), [1.0, 2.0, 3.0])
True
"""

import numba
import numpy as np

from . import _cache  # noqa: F401  (compiled kernels go to the per-user cache, see _cache.py)

__all__ = ["FACTOR_DTYPES", "canonical_csr", "ic0_factor", "ic0_solve", "ilu0_factor", "ilu0_solve", "tril_csr"]

#: The value dtypes the factorizations and solves compute in.
FACTOR_DTYPES = tuple(np.dtype(t) for t in (np.float32, np.float64, np.complex64, np.complex128))

_JIT = dict(cache=True, nogil=True)

# kernel status codes
_OK, _BAD_POINTER, _BAD_INDEX, _MISSING_DIAG, _ZERO_PIVOT, _BAD_PIVOT, _NOT_LOWER, _BAD_DIAG = range(8)


def _values(x, name, who):
    x = np.asarray(x)
    if x.dtype not in FACTOR_DTYPES:
        raise TypeError(f"{who}: {name} has dtype {x.dtype}; expected float32, float64, complex64 or complex128 (cast first)")
    if x.ndim != 1:
        raise ValueError(f"{who}: {name} must be 1-D; got shape {x.shape}")
    return np.ascontiguousarray(x)


def _index(a, name, who):
    a = np.asarray(a)
    if a.ndim != 1:
        raise ValueError(f"{who}: {name} must be 1-D; got shape {a.shape}")
    if a.dtype.kind not in "iu" and a.size:
        raise ValueError(f"{who}: {name} must hold integers; got dtype {a.dtype}")
    return np.ascontiguousarray(a, dtype=np.int64)


def _structure(who, indptr, indices, values):
    """(indptr, indices, values) as int64 / int64 / a factor dtype, lengths checked (O(1))."""
    indptr = _index(indptr, "indptr", who)
    indices = _index(indices, "indices", who)
    values = _values(values, "values", who)
    if indptr.shape[0] < 1:
        raise ValueError(f"{who}: indptr must have n + 1 >= 1 elements")
    if indices.shape[0] != values.shape[0]:
        raise ValueError(f"{who}: indices ({indices.shape[0]}) and values ({values.shape[0]}) must have one length")
    return indptr, indices, values


# ---------------------------------------------------------------------------------------
# structure
# ---------------------------------------------------------------------------------------


@numba.njit(**_JIT)
def _csr_status(indptr, indices, ncols):
    """(status, row): _BAD_POINTER for pointers that do not cover ``[0, nse]`` in order,
    _BAD_INDEX for a column outside ``[0, ncols)``, else _OK when every row is strictly
    increasing and -1 when some row is unsorted or repeats a column."""
    n = indptr.shape[0] - 1
    nse = indices.shape[0]
    if indptr[0] != 0 or indptr[n] != nse:
        return _BAD_POINTER, 0
    sorted_rows = True
    for i in range(n):
        lo = indptr[i]
        hi = indptr[i + 1]
        if hi < lo or hi > nse:
            return _BAD_POINTER, i
        prev = np.int64(-1)
        for p in range(lo, hi):
            c = indices[p]
            if c < 0 or c >= ncols:
                return _BAD_INDEX, i
            if c <= prev:
                sorted_rows = False
            prev = c
    return (_OK if sorted_rows else -1), 0


def canonical_csr(indptr, indices, values, ncols, who="canonical_csr"):
    """``(indptr, indices, values)`` with int64 indices, each row's columns strictly increasing:
    unsorted rows are sorted and duplicate columns summed (the input is never modified; already
    canonical input comes back as is, the indices as int64).

    ValueError for pointers that do not cover ``[0, nse]`` in non-decreasing order or a column
    outside ``[0, ncols)``, naming the row.

    >>> p, i, v = canonical_csr([0, 3], [2, 0, 2], np.array([1.0, 2.0, 3.0]), 3)
    >>> p.tolist(), i.tolist(), v.tolist()
    ([0, 2], [0, 2], [2.0, 4.0])
    """
    indptr, indices, values = _structure(who, indptr, indices, values)
    status, row = _csr_status(indptr, indices, np.int64(ncols))
    if status == _BAD_POINTER:
        raise ValueError(
            f"{who}: indptr must start at 0, end at nse = {indices.shape[0]} and not decrease (row {row})"
        )
    if status == _BAD_INDEX:
        raise ValueError(f"{who}: a column index of row {row} is outside [0, {ncols})")
    if status == _OK:
        return indptr, indices, values
    n = indptr.shape[0] - 1
    rows = np.repeat(np.arange(n, dtype=np.int64), np.diff(indptr))
    keys = rows * np.int64(max(ncols, 1)) + indices
    order = np.argsort(keys, kind="stable")
    keys = keys[order]
    starts = np.flatnonzero(np.concatenate(([True], keys[1:] != keys[:-1]))) if keys.size else np.zeros(0, np.int64)
    vals = np.add.reduceat(values[order], starts) if keys.size else values[:0].copy()
    ukeys = keys[starts]
    urows = ukeys // max(ncols, 1)
    out_ptr = np.zeros(n + 1, np.int64)
    np.cumsum(np.bincount(urows, minlength=n), out=out_ptr[1:])
    return out_ptr, np.ascontiguousarray(ukeys - urows * max(ncols, 1)), np.ascontiguousarray(vals, dtype=values.dtype)


def tril_csr(indptr, indices, values):
    """The lower triangle (``col <= row``) of a canonical CSR: new ``(indptr, indices, values)``.

    >>> p, i, v = tril_csr(np.array([0, 2, 4]), np.array([0, 1, 0, 1]), np.array([1.0, 2.0, 3.0, 4.0]))
    >>> p.tolist(), i.tolist(), v.tolist()
    ([0, 1, 3], [0, 0, 1], [1.0, 3.0, 4.0])
    """
    indptr = np.asarray(indptr, dtype=np.int64)
    n = indptr.shape[0] - 1
    rows = np.repeat(np.arange(n, dtype=np.int64), np.diff(indptr))
    keep = np.asarray(indices) <= rows
    out_ptr = np.zeros(n + 1, np.int64)
    np.cumsum(np.bincount(rows[keep], minlength=n), out=out_ptr[1:])
    return out_ptr, np.ascontiguousarray(np.asarray(indices, dtype=np.int64)[keep]), np.ascontiguousarray(values[keep])


# ---------------------------------------------------------------------------------------
# ILU(0)
# ---------------------------------------------------------------------------------------


@numba.njit(inline="always")
def _finite(v):
    """Whether ``v`` is finite (inf - inf and nan - nan are nan), real or complex."""
    return (v - v) == 0


@numba.njit(**_JIT)
def _ilu0(indptr, indices, lu, diag):
    """ILU(0) in place on ``lu`` (a copy of A's values); fills ``diag``. Returns (status, row)."""
    n = indptr.shape[0] - 1
    nse = indices.shape[0]
    if indptr[0] != 0 or indptr[n] != nse or lu.shape[0] != nse or diag.shape[0] != n:
        return _BAD_POINTER, 0
    marker = np.full(n, -1, np.int64)
    for i in range(n):
        lo = indptr[i]
        hi = indptr[i + 1]
        if hi < lo or hi > nse:
            return _BAD_POINTER, i
        d = np.int64(-1)
        prev = np.int64(-1)
        for p in range(lo, hi):
            c = indices[p]
            if c <= prev or c >= n:  # also c < 0 (prev starts at -1)
                return _BAD_INDEX, i
            prev = c
            marker[c] = p
            if c == i:
                d = p
        if d < 0:
            return _MISSING_DIAG, i
        for p in range(lo, d):  # the entries k < i of row i, in increasing k
            k = indices[p]
            lik = lu[p] / lu[diag[k]]
            lu[p] = lik
            for q in range(diag[k] + 1, indptr[k + 1]):  # U's entries j > k of row k (checked rows)
                r = marker[indices[q]]
                if r >= 0:
                    lu[r] -= lik * lu[q]
        pivot = lu[d]
        for p in range(lo, hi):
            marker[indices[p]] = -1
        if pivot == 0:
            return _ZERO_PIVOT, i
        if not _finite(pivot):
            return _BAD_PIVOT, i
        diag[i] = d
    return _OK, 0


def _raise(who, status, row, what):
    if status == _BAD_POINTER:
        raise ValueError(f"{who}: invalid CSR pointers (they must start at 0, end at nse and not decrease; row {row})")
    if status == _BAD_INDEX:
        raise ValueError(f"{who}: row {row} has a column index out of range or out of order (canonicalise first)")
    if status == _MISSING_DIAG:
        raise ValueError(f"{who}: row {row} has no diagonal entry in the pattern; {what} needs every diagonal entry specified")
    if status == _ZERO_PIVOT:
        raise ValueError(f"{who}: zero pivot in row {row}; {what} does not exist for this matrix")
    if status == _BAD_PIVOT:
        raise ValueError(f"{who}: the pivot of row {row} is not finite (nan or inf)")
    if status == _NOT_LOWER:
        raise ValueError(f"{who}: row {row} has an entry above the diagonal (pass the lower triangle, tril_csr)")
    if status == _BAD_DIAG:
        raise ValueError(f"{who}: the diagonal positions do not fit the rows of the factor (row {row})")


def ilu0_factor(indptr, indices, values):
    """ILU(0) of the square canonical CSR ``(indptr, indices, values)`` (see :func:`canonical_csr`):
    ``(lu, diag)``, a new values array on the same pattern and the diagonal positions (int64).

    ValueError for an invalid encoding, a row without a diagonal entry, or a zero or non-finite
    pivot, naming the row.
    """
    who = "ilu0_factor"
    indptr, indices, values = _structure(who, indptr, indices, values)
    n = indptr.shape[0] - 1
    lu = values.copy()
    diag = np.empty(n, np.int64)
    status, row = _ilu0(indptr, indices, lu, diag)
    _raise(who, status, row, "ILU(0)")
    return lu, diag


@numba.njit(**_JIT)
def _ilu0_solve(indptr, indices, lu, diag, x):
    """Solve L U x = b in place on ``x`` (n,): forward with the unit lower part, backward with U.
    Every position is checked before use: lower entries have columns < i, upper ones in (i, n)."""
    n = indptr.shape[0] - 1
    nse = indices.shape[0]
    if diag.shape[0] != n or lu.shape[0] != nse or x.shape[0] != n or indptr[0] != 0 or indptr[n] != nse:
        return _BAD_DIAG, 0
    for i in range(n):
        lo = indptr[i]
        hi = indptr[i + 1]
        d = diag[i]
        if lo < 0 or hi > nse or d < lo or d >= hi:
            return _BAD_DIAG, i
        s = x[i]
        for p in range(lo, d):
            c = indices[p]
            if c < 0 or c >= i:
                return _BAD_INDEX, i
            s -= lu[p] * x[c]
        x[i] = s
    for i in range(n - 1, -1, -1):
        d = diag[i]  # checked above, with the pointers
        hi = indptr[i + 1]
        s = x[i]
        for p in range(d + 1, hi):
            c = indices[p]
            if c <= i or c >= n:
                return _BAD_INDEX, i
            s -= lu[p] * x[c]
        x[i] = s / lu[d]
    return _OK, 0


def _solve_columns(who, kernel, args, b, n, dtype, what):
    """``kernel(*args, x)`` on a fresh copy ``x`` of each column of ``b`` ((n,) or (n, k)); the
    kernels solve one contiguous vector (a preconditioner's use), columns are solved in turn."""
    b = np.asarray(b)
    if b.ndim not in (1, 2) or b.shape[0] != n:
        raise ValueError(f"{who}: b must have shape ({n},) or ({n}, k); got {b.shape}")
    if b.dtype != dtype:
        raise TypeError(f"{who}: b has dtype {b.dtype}; the factor's is {dtype} (cast first)")
    cols = np.array(b.reshape(n, 1).T if b.ndim == 1 else b.T, order="C", copy=True)  # (k, n)
    for j in range(cols.shape[0]):
        status, row = kernel(*args, cols[j])
        _raise(who, status, row, what)
    return cols[0] if b.ndim == 1 else np.ascontiguousarray(cols.T)


def ilu0_solve(indptr, indices, lu, diag, b):
    """``(L U)^{-1} b`` for the factors of :func:`ilu0_factor`; ``b`` is ``(n,)`` or ``(n, k)`` of
    ``lu``'s dtype. A new array of b's shape. ValueError for factors that do not fit their pattern."""
    who = "ilu0_solve"
    indptr, indices, lu = _structure(who, indptr, indices, lu)
    diag = _index(diag, "diag", who)
    return _solve_columns(who, _ilu0_solve, (indptr, indices, lu, diag), b, indptr.shape[0] - 1, lu.dtype, "ILU(0)")


# ---------------------------------------------------------------------------------------
# IC(0)
# ---------------------------------------------------------------------------------------


@numba.njit(**_JIT)
def _ic0(indptr, indices, l):
    """IC(0) in place on ``l`` (a copy of the lower triangle's values). Returns (status, row)."""
    n = indptr.shape[0] - 1
    nse = indices.shape[0]
    if indptr[0] != 0 or indptr[n] != nse or l.shape[0] != nse:
        return _BAD_POINTER, 0
    marker = np.full(n, -1, np.int64)
    for i in range(n):
        lo = indptr[i]
        hi = indptr[i + 1]
        if hi < lo or hi > nse:
            return _BAD_POINTER, i
        prev = np.int64(-1)
        for p in range(lo, hi):
            c = indices[p]
            if c <= prev:  # also c < 0 (prev starts at -1)
                return _BAD_INDEX, i
            if c > i:
                return _NOT_LOWER, i
            prev = c
            marker[c] = p
        if hi == lo or indices[hi - 1] != i:
            return _MISSING_DIAG, i
        for p in range(lo, hi - 1):  # l_ij, j < i, in increasing j
            j = indices[p]
            s = l[p]
            for q in range(indptr[j], indptr[j + 1] - 1):  # row j's entries m < j (a checked row)
                r = marker[indices[q]]
                if r >= 0:
                    s -= l[r] * np.conj(l[q])
            l[p] = s / l[indptr[j + 1] - 1]
        s = l[hi - 1]
        for p in range(lo, hi - 1):
            s -= l[p] * np.conj(l[p])
        for p in range(lo, hi):
            marker[indices[p]] = -1
        d = s.real
        if not _finite(d):
            return _BAD_PIVOT, i
        if not d > 0:
            return _ZERO_PIVOT, i
        l[hi - 1] = np.sqrt(d)
    return _OK, 0


def ic0_factor(indptr, indices, values):
    """IC(0) of the Hermitian positive definite matrix whose lower triangle is the canonical CSR
    ``(indptr, indices, values)`` (see :func:`tril_csr`): the values of ``L`` on that pattern (a
    new array; ``L``'s diagonal is real and positive, each row's last entry).

    Only the real part of a diagonal entry is read. ValueError for an invalid encoding, an entry
    above the diagonal, a row without its diagonal entry, or a pivot that is not positive (the
    matrix is not positive definite, or IC(0) breaks down on it), naming the row.
    """
    who = "ic0_factor"
    indptr, indices, values = _structure(who, indptr, indices, values)
    l = values.copy()
    status, row = _ic0(indptr, indices, l)
    if status == _ZERO_PIVOT:
        raise ValueError(
            f"{who}: non-positive pivot in row {row}; the matrix is not positive definite, or IC(0) breaks down on it"
        )
    _raise(who, status, row, "IC(0)")
    return l


@numba.njit(**_JIT)
def _ic0_solve(indptr, indices, l, x):
    """Solve L L^H x = b in place on ``x`` (n,): forward with L, then backward with L^H read by
    rows of L (row i of L is column i of L^H: once x_i is known, it is subtracted from the rows
    above)."""
    n = indptr.shape[0] - 1
    nse = indices.shape[0]
    if l.shape[0] != nse or x.shape[0] != n or indptr[0] != 0 or indptr[n] != nse:
        return _BAD_DIAG, 0
    for i in range(n):
        lo = indptr[i]
        hi = indptr[i + 1]
        if lo < 0 or hi > nse or hi <= lo or indices[hi - 1] != i:
            return _BAD_DIAG, i
        s = x[i]
        for p in range(lo, hi - 1):
            c = indices[p]
            if c < 0 or c >= i:
                return _BAD_INDEX, i
            s -= l[p] * x[c]
        x[i] = s / l[hi - 1]
    for i in range(n - 1, -1, -1):
        lo = indptr[i]
        hi = indptr[i + 1]  # rows checked by the forward pass
        xi = x[i] / np.conj(l[hi - 1])
        x[i] = xi
        for p in range(lo, hi - 1):
            x[indices[p]] -= np.conj(l[p]) * xi
    return _OK, 0


def ic0_solve(indptr, indices, l, b):
    """``(L L^H)^{-1} b`` for the factor of :func:`ic0_factor`; ``b`` is ``(n,)`` or ``(n, k)`` of
    ``l``'s dtype. A new array of b's shape. ValueError for a factor that does not fit its pattern."""
    who = "ic0_solve"
    indptr, indices, l = _structure(who, indptr, indices, l)
    return _solve_columns(who, _ic0_solve, (indptr, indices, l), b, indptr.shape[0] - 1, l.dtype, "IC(0)")
