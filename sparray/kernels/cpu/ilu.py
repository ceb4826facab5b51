"""Incomplete factorizations with zero fill-in of a square CSR matrix, and their triangular solves.

- :func:`canonical_csr` -- a CSR encoding checked and made canonical (sorted columns, duplicates
  summed; no copy when it already is): what the factorizations read.
- :func:`ilu0_factor` -- ILU(0): ``A ~ L @ U`` with ``L`` unit lower and ``U`` upper triangular,
  both on the pattern of ``A``. The factors share ``A``'s pattern: one values array ``lu`` holds
  ``L``'s strictly lower part and ``U`` (diagonal included), ``diag[i]`` is the position of row
  ``i``'s diagonal entry.
- :func:`tril_csr` -- the lower triangle (diagonal included) of a canonical CSR.
- :func:`ic0_factor` -- IC(0): ``A ~ L @ L^H`` with ``L`` lower triangular on the pattern of the
  lower triangle of ``A`` (only that triangle is read), positive real diagonal.
- :func:`ilu0_triangles` / :func:`ic0_triangles` -- the factors in *solve-ready form*, two
  :class:`Triangle` (below), made once; :func:`solve_triangles` applies such a pair to ``b``.
  :func:`ilu0_solve` / :func:`ic0_solve` do both in one call (the form is rebuilt each time).

Algorithms (Saad, *Iterative Methods for Sparse Linear Systems*, 2nd ed., algorithms 10.4 and the
row form of 10.8). ILU(0) is the IKJ variant of Gaussian elimination restricted to the pattern:
for each row ``i`` and each of its entries ``k < i`` in increasing column order,
``l_ik = a_ik / u_kk``, then ``a_ij -= l_ik * u_kj`` for the entries ``j > k`` of row ``k`` that
are also in row ``i`` (a marker array maps a column to its position in row ``i``). IC(0) computes
row ``i`` of ``L`` left to right: ``l_ij = (a_ij - sum_m l_im conj(l_jm)) / l_jj`` over the
columns ``m < j`` in both rows, then ``l_ii = sqrt(a_ii - sum_m |l_im|^2)``. Both are sequential
(each row needs the finished rows above it) and take O(sum over entries of the row lengths they
touch): the cost of one sparse product of the pattern with itself.

The solve-ready form. A triangular solve is a chain: row ``i`` waits for the rows it reads, and in
natural order (a grid, a band) the row it waits for last is the one solved just before it. So one
factor ``T`` is kept as a :class:`Triangle`: the strictly triangular part by rows, each row
divided by its diagonal entry ``T[i, i]`` (no division in the solve:
``x_i = b_i / T[i, i] - sum_j (T[i, j] / T[i, i]) x_j``), with the *neighbour* entry -- the
column solved just before (``i - 1`` for a lower factor solved from row 0 up, ``i + 1`` for an
upper one solved from row ``n - 1`` down) -- taken out into a dense ``near`` vector and a
``has_near`` flag. The kernel keeps the last value it stored in a register and adds
``near[i] * x_prev`` last (only where ``has_near[i]``: a row without that entry never reads it, so
a nan or inf goes exactly where the pattern takes it), so no row waits on a store-to-load round
trip through memory; the other entries were solved rows earlier. ``L^H`` of IC(0) is stored by
rows (a gather per row, not a scatter into the rows above). Measured on the 2-D Poisson matrix
(9e4 unknowns, float64): the pair of solves takes about 0.3 ms on one core, 2.2-2.5 times
sparray's ``A @ x`` on two threads (it was 10 times, with a division and a scatter in the chain).
The solves are serial: a wavefront (level-scheduled) variant on the CPU threads would need a
barrier or a flag wait per level, which numba offers no atomic or volatile access for; the level
schedules of ``sparray.linalg._levels`` apply the factors on devices. Invariants of a Triangle (checked by the
builders; the solve kernels check every one again as they go): ``indptr`` covers
``[0, len(indices)]`` without decreasing, each row's columns lie below the row (lower) or above
it (upper) and are not its neighbour, ``near``, ``has_near`` and ``inv_diag`` have length ``n``,
and the first row solved has no neighbour.

Conventions. The values are float32, float64, complex64 or complex128 (anything else is a
TypeError: cast first); the indices int32 or int64 (int32 kept, no copy, when both index arrays
of the input are int32; anything else is made int64), every kernel compiled for either; a
Triangle's arrays are int64 always (int32 columns made the solve 9% slower at 9e4 unknowns). The
setup allocates only what it returns, beside O(n) vectors: :func:`tril_csr` and the form
builders count, then fill, with no temporary of the input's size, and :func:`ic0_triangles`
builds ``L^H``'s rows straight from ``L``'s (no explicit transpose). A right-hand side is
``(n,)`` or ``(n, k)`` of the factor's dtype, any strides; the solve returns a new array of its
shape (made by one copy of ``b``: an ``(n, k)`` result is Fortran-ordered and its columns are
solved in place in turn). The factorizations and the form builders are ``njit(cache=True,
nogil=True)``; the solves add ``fastmath={"contract"}`` (a multiply and a subtract may fuse,
rounding once; sums are never reordered). Everything is serial.

Safety. No pointer or index is used as an address before it is checked: a pointer outside
``[0, nse]`` or below its predecessor, a column outside ``[0, n)`` or not above its predecessor
in its row (or on the wrong side of the diagonal), a factor whose diagonal positions do not fit
its rows, a Triangle whose arrays do not fit one another, stops the kernel with a status and the
wrapper raises ValueError naming the row. A missing diagonal entry, a zero (ILU) or non-positive
(IC) pivot, or a non-finite one, is a ValueError naming the row too.

>>> import numpy as np
>>> indptr, indices = np.array([0, 2, 5, 7]), np.array([0, 1, 0, 1, 2, 1, 2])
>>> values = np.array([4.0, -1.0, -1.0, 4.0, -1.0, -1.0, 4.0])  # tridiagonal: ILU(0) is exact LU
>>> lu, diag = ilu0_factor(indptr, indices, values)
>>> A = np.array([[4.0, -1, 0], [-1, 4, -1], [0, -1, 4]])
>>> np.allclose(ilu0_solve(indptr, indices, lu, diag, A @ [1.0, 2.0, 3.0]), [1.0, 2.0, 3.0])
True
>>> L, U = ilu0_triangles(indptr, indices, lu, diag)  # kept, for many solves
>>> np.allclose(solve_triangles(L, U, A @ [1.0, 2.0, 3.0]), [1.0, 2.0, 3.0])
True
"""

from typing import NamedTuple

import numba
import numpy as np

from . import _cache  # noqa: F401  (compiled kernels go to the per-user cache, see _cache.py)

__all__ = [
    "FACTOR_DTYPES",
    "Triangle",
    "canonical_csr",
    "ic0_factor",
    "ic0_solve",
    "ic0_triangles",
    "ilu0_factor",
    "ilu0_solve",
    "ilu0_triangles",
    "solve_triangles",
    "tril_csr",
]

#: The value dtypes the factorizations and solves compute in.
FACTOR_DTYPES = tuple(np.dtype(t) for t in (np.float32, np.float64, np.complex64, np.complex128))

_JIT = dict(cache=True, nogil=True)

# kernel status codes
_OK, _BAD_POINTER, _BAD_INDEX, _MISSING_DIAG, _ZERO_PIVOT, _BAD_PIVOT, _NOT_LOWER, _BAD_DIAG, _BAD_FORM = range(9)


def _values(x, name, who):
    x = np.asarray(x)
    if x.dtype not in FACTOR_DTYPES:
        raise TypeError(f"{who}: {name} has dtype {x.dtype}; expected float32, float64, complex64 or complex128 (cast first)")
    if x.ndim != 1:
        raise ValueError(f"{who}: {name} must be 1-D; got shape {x.shape}")
    return np.ascontiguousarray(x)


def _index(a, name, who, dtype=np.int64):
    a = np.asarray(a)
    if a.ndim != 1:
        raise ValueError(f"{who}: {name} must be 1-D; got shape {a.shape}")
    if a.dtype.kind not in "iu" and a.size:
        raise ValueError(f"{who}: {name} must hold integers; got dtype {a.dtype}")
    return np.ascontiguousarray(a, dtype=dtype)


def _index_dtype(indptr, indices):
    """int32 when both index arrays are int32 already (no copy: the kernels are compiled for
    either), else int64."""
    both32 = all(isinstance(a, np.ndarray) and a.dtype == np.int32 for a in (indptr, indices))
    return np.dtype(np.int32) if both32 else np.dtype(np.int64)


def _structure(who, indptr, indices, values):
    """(indptr, indices, values) as int32 or int64 indices (:func:`_index_dtype`) and a factor
    dtype, lengths checked (O(1)); arrays already so come back as they are (no copy)."""
    dtype = _index_dtype(indptr, indices)
    indptr = _index(indptr, "indptr", who, dtype)
    indices = _index(indices, "indices", who, dtype)
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
    """``(indptr, indices, values)``, each row's columns strictly increasing: unsorted rows are
    sorted and duplicate columns summed (the input is never modified). Already canonical input
    comes back as is, no copy, its indices int32 when both index arrays are int32 NumPy arrays
    (else int64, as the output of a sort always is).

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


@numba.njit(**_JIT)
def _tril(indptr, indices, values):
    """(status, row, ptr, idx, val): the entries ``col <= row`` of each row, in their order; the
    rows' sizes are counted first, so the output is allocated once, to size (no temporary of the
    input's size). _BAD_POINTER for pointers that do not cover ``[0, nse]`` in order (checked
    before any position is read)."""
    n = indptr.shape[0] - 1
    nse = indices.shape[0]
    ptr = np.zeros(n + 1, indptr.dtype)
    if n < 0 or indptr[0] != 0 or indptr[n] != nse or values.shape[0] != nse:
        return _BAD_POINTER, 0, ptr, indices[:0].copy(), values[:0].copy()
    k = 0
    for i in range(n):
        lo = indptr[i]
        hi = indptr[i + 1]
        if hi < lo or hi > nse:
            return _BAD_POINTER, i, ptr, indices[:0].copy(), values[:0].copy()
        for p in range(lo, hi):
            k += indices[p] <= i
        ptr[i + 1] = k
    idx = np.empty(k, indices.dtype)
    val = np.empty(k, values.dtype)
    q = 0
    for i in range(n):
        for p in range(indptr[i], indptr[i + 1]):  # rows checked above
            if indices[p] <= i:
                idx[q] = indices[p]
                val[q] = values[p]
                q += 1
    return _OK, 0, ptr, idx, val


def tril_csr(indptr, indices, values):
    """The lower triangle (``col <= row``) of a canonical CSR: new ``(indptr, indices, values)``,
    indices of the input's index dtype (int32 kept, see :func:`canonical_csr`; else int64).
    ValueError for pointers that do not cover ``[0, nse]`` in order.

    >>> p, i, v = tril_csr(np.array([0, 2, 4]), np.array([0, 1, 0, 1]), np.array([1.0, 2.0, 3.0, 4.0]))
    >>> p.tolist(), i.tolist(), v.tolist()
    ([0, 1, 3], [0, 0, 1], [1.0, 3.0, 4.0])
    """
    who = "tril_csr"
    values = np.asarray(values)
    if values.ndim != 1:
        raise ValueError(f"{who}: values must be 1-D; got shape {values.shape}")
    dtype = _index_dtype(indptr, indices)
    indptr, indices = _index(indptr, "indptr", who, dtype), _index(indices, "indices", who, dtype)
    if indptr.shape[0] < 1 or indices.shape[0] != values.shape[0]:
        raise ValueError(f"{who}: indptr must have n + 1 >= 1 elements and indices the length of values")
    status, row, *out = _tril(indptr, indices, np.ascontiguousarray(values))
    _raise(who, status, row, "")
    return tuple(out)


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


@numba.njit(**_JIT)
def _all_finite(values):
    """Whether every value is finite (no nan, no inf), real or complex; no temporary."""
    for p in range(values.shape[0]):
        if not _finite(values[p]):
            return False
    return True


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
    if status == _BAD_FORM:
        raise ValueError(f"{who}: the arrays of a solve-ready triangle do not fit one another or b (n = {row})")


def ilu0_factor(indptr, indices, values, *, overwrite=False):
    """ILU(0) of the square canonical CSR ``(indptr, indices, values)`` (see :func:`canonical_csr`):
    ``(lu, diag)``, a new values array on the same pattern and the diagonal positions (int64).
    ``overwrite=True``: ``lu`` is ``values`` itself, factored in place, when it is a contiguous
    array of a factor dtype (for a caller that owns a fresh copy; no second one is made).

    ValueError for an invalid encoding, a row without a diagonal entry, or a zero or non-finite
    pivot, naming the row.
    """
    who = "ilu0_factor"
    indptr, indices, values = _structure(who, indptr, indices, values)
    n = indptr.shape[0] - 1
    lu = values if overwrite else values.copy()
    diag = np.empty(n, np.int64)
    status, row = _ilu0(indptr, indices, lu, diag)
    _raise(who, status, row, "ILU(0)")
    return lu, diag


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


def ic0_factor(indptr, indices, values, *, overwrite=False):
    """IC(0) of the Hermitian positive definite matrix whose lower triangle is the canonical CSR
    ``(indptr, indices, values)`` (see :func:`tril_csr`): the values of ``L`` on that pattern (a
    new array; ``L``'s diagonal is real and positive, each row's last entry). ``overwrite=True``:
    ``values`` itself is factored in place and returned, as in :func:`ilu0_factor`.

    Only the real part of a diagonal entry is read. ValueError for an invalid encoding, an entry
    above the diagonal, a row without its diagonal entry, or a pivot that is not positive (the
    matrix is not positive definite, or IC(0) breaks down on it), naming the row.
    """
    who = "ic0_factor"
    indptr, indices, values = _structure(who, indptr, indices, values)
    l = values if overwrite else values.copy()
    status, row = _ic0(indptr, indices, l)
    if status == _ZERO_PIVOT:
        raise ValueError(
            f"{who}: non-positive pivot in row {row}; the matrix is not positive definite, or IC(0) breaks down on it"
        )
    _raise(who, status, row, "IC(0)")
    return l


# ---------------------------------------------------------------------------------------
# triangular solves
# ---------------------------------------------------------------------------------------


class Triangle(NamedTuple):
    """One triangular factor ``T`` in solve-ready form (``lower``: solved from row 0 up, else
    from row n - 1 down; the module docstring states the form). The arrays are NumPy, of one
    dtype for ``values``, ``near`` and ``inv_diag``."""

    indptr: np.ndarray  # (n + 1,) int64: the rows of the strict part, neighbour entries left out
    indices: np.ndarray  # int64: their columns (below the row for lower, above it for upper)
    values: np.ndarray  # their values, each divided by its row's diagonal entry
    near: np.ndarray  # (n,): the neighbour entry of each row (column i - 1 / i + 1), so divided; 0 where none
    has_near: np.ndarray  # (n,) bool: whether row i has that entry
    inv_diag: np.ndarray  # (n,): 1 / T[i, i] (ones for a unit diagonal)
    lower: bool

    @property
    def n(self):
        return self.inv_diag.shape[0]

    @property
    def dtype(self):
        return self.values.dtype

    def astype(self, dtype):
        """The same factor with its values in ``dtype`` (a new Triangle; itself when it has it)."""
        if self.values.dtype == dtype:
            return self
        return self._replace(values=self.values.astype(dtype), near=self.near.astype(dtype), inv_diag=self.inv_diag.astype(dtype))


@numba.njit(**_JIT)
def _triangle(indices, values, start, stop, diag, lower):
    """The solve-ready form of the triangle whose row ``i`` holds the strictly triangular entries
    at positions ``[start[i], stop[i])`` of ``(indices, values)`` (columns below the row for
    ``lower``, above it else) and the diagonal entry ``diag[i]``: (status, row, ptr, idx, val,
    near, has, inv_diag), ``idx`` int64 whatever ``indices``' dtype (int32 columns measured 9%
    slower in the solve at 9e4 unknowns). Every position and column is checked before it is
    used; a zero diagonal entry is _ZERO_PIVOT."""
    n = diag.shape[0]
    nse = indices.shape[0]
    ptr = np.zeros(n + 1, np.int64)
    near = np.zeros(n, values.dtype)
    has = np.zeros(n, np.bool_)
    dinv = np.empty(n, values.dtype)
    if values.shape[0] != nse or start.shape[0] != n or stop.shape[0] != n:
        return _BAD_POINTER, 0, ptr, np.zeros(0, np.int64), values[:0].copy(), near, has, dinv
    for i in range(n):  # the ranges and the sizes first (the output is allocated once, to size)
        lo = start[i]
        hi = stop[i]
        if lo < 0 or hi < lo or hi > nse:
            return _BAD_POINTER, i, ptr, np.zeros(0, np.int64), values[:0].copy(), near, has, dinv
        j = i - 1 if lower else i + 1
        k = 0
        for p in range(lo, hi):
            k += indices[p] != j
        ptr[i + 1] = ptr[i] + k
    idx = np.empty(ptr[n], np.int64)
    val = np.empty(ptr[n], values.dtype)
    for i in range(n):
        d = diag[i]
        if d == 0:
            return _ZERO_PIVOT, i, ptr, idx, val, near, has, dinv
        r = 1 / d
        dinv[i] = r
        if lower:
            cmin, cmax, j = 0, i, i - 1
        else:
            cmin, cmax, j = i + 1, n, i + 1
        q = ptr[i]
        for p in range(start[i], stop[i]):
            c = indices[p]
            if c < cmin or c >= cmax:
                return _BAD_INDEX, i, ptr, idx, val, near, has, dinv
            w = values[p] * r
            if c == j:
                near[i] += w  # a repeated column sums, as in any CSR
                has[i] = True
            else:
                idx[q] = c
                val[q] = w
                q += 1
    return _OK, 0, ptr, idx, val, near, has, dinv


@numba.njit(**_JIT)
def _conj_transpose_triangle(indices, values, start, stop, diag):
    """The solve-ready upper Triangle of ``T^H`` for the lower triangle ``T`` whose row ``i``
    holds the strictly lower entries at positions ``[start[i], stop[i])`` of ``(indices,
    values)`` and the diagonal entry ``diag[i]``: (status, row, ptr, idx, val, near, has,
    inv_diag), ``idx`` int64. Row ``c`` of ``T^H`` holds ``conj(T[i, c])`` for
    the rows ``i > c`` that have column ``c``, in increasing ``i`` (``T``'s rows are read in
    order), divided by ``conj(diag[c])``; its neighbour is ``i = c + 1``. Made straight from
    ``T``'s positions (counted, then filled): the same bits as :func:`_triangle` of the explicit
    transpose, without that transpose. Checked as :func:`_triangle` (a column must lie in
    ``[0, i)``)."""
    n = diag.shape[0]
    nse = indices.shape[0]
    ptr = np.zeros(n + 1, np.int64)
    near = np.zeros(n, values.dtype)
    has = np.zeros(n, np.bool_)
    dinv = np.empty(n, values.dtype)
    if values.shape[0] != nse or start.shape[0] != n or stop.shape[0] != n:
        return _BAD_POINTER, 0, ptr, np.zeros(0, np.int64), values[:0].copy(), near, has, dinv
    for i in range(n):  # check every range and column, count each row of T^H
        lo = start[i]
        hi = stop[i]
        if lo < 0 or hi < lo or hi > nse:
            return _BAD_POINTER, i, ptr, np.zeros(0, np.int64), values[:0].copy(), near, has, dinv
        for p in range(lo, hi):
            c = indices[p]
            if c < 0 or c >= i:
                return _BAD_INDEX, i, ptr, np.zeros(0, np.int64), values[:0].copy(), near, has, dinv
            if c != i - 1:
                ptr[c + 1] += 1
    for c in range(n):
        d = diag[c]
        if d == 0:
            return _ZERO_PIVOT, c, ptr, np.zeros(0, np.int64), values[:0].copy(), near, has, dinv
        dinv[c] = 1 / np.conj(d)
        ptr[c + 1] += ptr[c]
    idx = np.empty(ptr[n], np.int64)
    val = np.empty(ptr[n], values.dtype)
    fill = ptr[:n].copy()
    for i in range(n):  # rows in increasing order: each row of T^H gets increasing columns
        for p in range(start[i], stop[i]):  # checked above
            c = indices[p]
            w = np.conj(values[p]) * dinv[c]
            if c == i - 1:
                near[c] += w
                has[c] = True
            else:
                q = fill[c]
                idx[q] = i
                val[q] = w
                fill[c] = q + 1
    return _OK, 0, ptr, idx, val, near, has, dinv


@numba.njit(**_JIT)
def _diag_status(indptr, indices, diag):
    """(status, row): _BAD_POINTER unless the pointers cover ``[0, nse]`` in order, _BAD_DIAG
    unless each ``diag[i]`` is a position of row ``i`` holding column ``i``."""
    n = indptr.shape[0] - 1
    nse = indices.shape[0]
    if indptr[0] != 0 or indptr[n] != nse:
        return _BAD_POINTER, 0
    if diag.shape[0] != n:
        return _BAD_DIAG, 0
    for i in range(n):
        lo = indptr[i]
        hi = indptr[i + 1]
        if hi < lo or hi > nse:
            return _BAD_POINTER, i
        d = diag[i]
        if d < lo or d >= hi or indices[d] != i:
            return _BAD_DIAG, i
    return _OK, 0


def _make_triangle(who, what, indices, values, start, stop, diag, lower):
    status, row, *arrays = _triangle(indices, values, start, stop, diag, lower)
    _raise(who, status, row, what)
    return Triangle(*arrays, lower)


def ilu0_triangles(indptr, indices, lu, diag):
    """ILU(0)'s factors (of :func:`ilu0_factor`) in solve-ready form: ``(L, U)``, two
    :class:`Triangle` (``L`` unit lower, ``U`` upper). ValueError for factors that do not fit
    their pattern (a diagonal position outside its row or not on column ``i``, a column on the
    wrong side of it, a zero diagonal entry of ``U``), naming the row.

    >>> L, U = ilu0_triangles(np.array([0, 2, 4]), np.array([0, 1, 0, 1]), np.array([2.0, 1.0, 0.5, 4.0]), np.array([0, 3]))
    >>> L.near.tolist(), L.inv_diag.tolist(), U.near.tolist(), U.inv_diag.tolist()
    ([0.0, 0.5], [1.0, 1.0], [0.5, 0.0], [0.5, 0.25])
    """
    who = "ilu0_triangles"
    indptr, indices, lu = _structure(who, indptr, indices, lu)
    diag = _index(diag, "diag", who)
    status, row = _diag_status(indptr, indices, diag)
    _raise(who, status, row, "ILU(0)")
    lower = _make_triangle(who, "ILU(0)", indices, lu, indptr[:-1], diag, np.ones(diag.shape[0], lu.dtype), True)
    upper = _make_triangle(who, "ILU(0)", indices, lu, diag + 1, indptr[1:], lu[diag], False)
    return lower, upper


def ic0_triangles(indptr, indices, l):
    """IC(0)'s factor (of :func:`ic0_factor`) in solve-ready form: ``(L, L^H)``, two
    :class:`Triangle`, the second ``L``'s conjugate transpose stored by rows. ValueError for a
    factor that does not fit its pattern (a row whose last entry is not its diagonal entry, a
    column outside ``[0, i)`` before it, a zero diagonal entry), naming the row.

    >>> L, LH = ic0_triangles(np.array([0, 1, 3]), np.array([0, 0, 1]), np.array([2.0, 1.0, 2.0]))
    >>> L.near.tolist(), LH.near.tolist(), LH.inv_diag.tolist()
    ([0.0, 0.5], [0.5, 0.0], [0.5, 0.5])
    """
    who = "ic0_triangles"
    indptr, indices, l = _structure(who, indptr, indices, l)
    last = indptr[1:] - 1
    status, row = _diag_status(indptr, indices, last)
    if status == _BAD_DIAG:
        raise ValueError(f"{who}: the diagonal positions do not fit the rows of the factor (row {row}: its last entry must be its diagonal entry)")
    _raise(who, status, row, "IC(0)")
    d = l[last]
    lower = _make_triangle(who, "IC(0)", indices, l, indptr[:-1], last, d, True)
    status, row, *arrays = _conj_transpose_triangle(indices, l, indptr[:-1], last, d)
    _raise(who, status, row, "IC(0)")
    return lower, Triangle(*arrays, False)


# The solves: fused multiply-adds allowed (``contract``: each ``s -= a * x`` may round once), no
# reassociation (the sums run in the stored order, so a row's dependence on the row solved just
# before it stays the last operation of its chain).
_SOLVE_JIT = dict(cache=True, nogil=True, fastmath={"contract"})


_u64 = numba.uint64


@numba.njit(**_SOLVE_JIT)
def _forward(ptr, idx, val, near, has, dinv, x):
    """``x <- T^{-1} x`` in place for a lower Triangle's arrays, ``x`` of shape (n,): (status, row).

    The checks compare as unsigned (a negative value becomes one above any bound): a row's
    pointers ``0 <= lo <= hi <= nse`` in two compares, a column ``0 <= c < i`` in one."""
    n = dinv.shape[0]
    nse = idx.shape[0]
    if ptr.shape[0] != n + 1 or val.shape[0] != nse or near.shape[0] != n or has.shape[0] != n or x.shape[0] != n:
        return _BAD_FORM, n
    if n == 0:
        return _OK, 0
    if has[0]:
        return _BAD_POINTER, 0
    prev = x[0]  # the value of the row solved just before (read from row 1 on)
    for i in range(n):
        lo = ptr[i]
        hi = ptr[i + 1]
        if _u64(lo) > _u64(hi) or _u64(hi) > _u64(nse):
            return _BAD_POINTER, i
        s = x[i] * dinv[i]
        for p in range(lo, hi):
            c = idx[p]
            if _u64(c) >= _u64(i):
                return _BAD_INDEX, i
            s -= val[p] * x[c]
        if has[i]:
            s -= near[i] * prev  # x[i - 1], from a register: the chain waits on no load
        x[i] = s
        prev = s
    return _OK, 0


@numba.njit(**_SOLVE_JIT)
def _backward(ptr, idx, val, near, has, dinv, x):
    """``x <- T^{-1} x`` in place for an upper Triangle's arrays, ``x`` of shape (n,): (status,
    row). Checked as :func:`_forward` (a column ``i < c < n`` in one unsigned compare)."""
    n = dinv.shape[0]
    nse = idx.shape[0]
    if ptr.shape[0] != n + 1 or val.shape[0] != nse or near.shape[0] != n or has.shape[0] != n or x.shape[0] != n:
        return _BAD_FORM, n
    if n > 0 and has[n - 1]:
        return _BAD_POINTER, n - 1
    # no early return for n == 0 here: with one, LLVM lays this loop out measurably slower (and
    # _forward's faster: each is written the way that measured best)
    prev = x[n - 1] if n > 0 else x.dtype.type(0)
    for i in range(n - 1, -1, -1):
        lo = ptr[i]
        hi = ptr[i + 1]
        if _u64(lo) > _u64(hi) or _u64(hi) > _u64(nse):
            return _BAD_POINTER, i
        s = x[i] * dinv[i]
        for p in range(lo, hi):
            c = idx[p]
            if _u64(c) - _u64(i + 1) >= _u64(n - 1 - i):  # wraps above the bound for c <= i
                return _BAD_INDEX, i
            s -= val[p] * x[c]
        if has[i]:
            s -= near[i] * prev  # x[i + 1], from a register
        x[i] = s
        prev = s
    return _OK, 0


@numba.njit(**_SOLVE_JIT)
def _solve_pair(lp, li, lv, ln, lh, ld, up, ui, uv, un, uh, ud, x):
    """``x <- U^{-1} (L^{-1} x)`` in place, ``x`` of shape (n,): (status, row)."""
    status, row = _forward(lp, li, lv, ln, lh, ld, x)
    if status != _OK:
        return status, row
    return _backward(up, ui, uv, un, uh, ud, x)


def _pair_args(lower, upper):
    return (*lower[:6], *upper[:6])


def solve_triangles(lower, upper, b, who="solve_triangles", what="the factorization"):
    """``U^{-1} (L^{-1} b)`` for a lower and an upper :class:`Triangle` of one size and dtype;
    ``b`` is ``(n,)`` or ``(n, k)`` of that dtype (any strides). A new array of b's shape (an
    ``(n, k)`` result is Fortran-ordered: each column is solved in place, contiguous). ValueError
    for arrays that do not fit (naming the row), TypeError for a b of another dtype.

    >>> L, U = ilu0_triangles(np.array([0, 2, 4]), np.array([0, 1, 0, 1]), np.array([2.0, 1.0, 0.5, 4.0]), np.array([0, 3]))
    >>> solve_triangles(L, U, np.array([2.0, 1.0])).tolist()  # [[2, 1], [1, 4.5]] @ [1, 0] = [2, 1]
    [1.0, 0.0]
    """
    if not (lower.lower and not upper.lower):
        raise ValueError(f"{who}: expected a lower and an upper Triangle, in that order")
    n = lower.n
    dtype = lower.values.dtype
    if upper.values.dtype != dtype:
        raise TypeError(f"{who}: the two triangles have dtypes {dtype} and {upper.values.dtype}")
    b = np.asarray(b)
    if b.ndim not in (1, 2) or b.shape[0] != n:
        raise ValueError(f"{who}: b must have shape ({n},) or ({n}, k); got {b.shape}")
    if b.dtype != dtype:
        raise TypeError(f"{who}: b has dtype {b.dtype}; the factor's is {dtype} (cast first)")
    args = _pair_args(lower, upper)
    x = np.array(b, order="F", copy=True)  # one copy: the result (a 1-d b comes back contiguous)
    for j in range(1 if x.ndim == 1 else x.shape[1]):
        status, row = _solve_pair(*args, x if x.ndim == 1 else x[:, j])
        _raise(who, status, row, what)
    return x


def ilu0_solve(indptr, indices, lu, diag, b):
    """``(L U)^{-1} b`` for the factors of :func:`ilu0_factor`; ``b`` is ``(n,)`` or ``(n, k)`` of
    ``lu``'s dtype. A new array of b's shape. ValueError for factors that do not fit their pattern.
    Each call puts the factors in solve-ready form (:func:`ilu0_triangles`, O(nnz)): to apply them
    many times, keep those and call :func:`solve_triangles`."""
    who = "ilu0_solve"
    lower, upper = _kernel_named(who, ilu0_triangles, indptr, indices, lu, diag)
    return solve_triangles(lower, upper, b, who, "ILU(0)")


def ic0_solve(indptr, indices, l, b):
    """``(L L^H)^{-1} b`` for the factor of :func:`ic0_factor`; ``b`` is ``(n,)`` or ``(n, k)`` of
    ``l``'s dtype. A new array of b's shape. ValueError for a factor that does not fit its pattern.
    Each call puts the factor in solve-ready form (:func:`ic0_triangles`, O(nnz)): to apply it
    many times, keep that and call :func:`solve_triangles`."""
    who = "ic0_solve"
    lower, upper = _kernel_named(who, ic0_triangles, indptr, indices, l)
    return solve_triangles(lower, upper, b, who, "IC(0)")


def _kernel_named(who, fn, *args):
    """``fn(*args)`` with its ValueError / TypeError messages named by ``who``."""
    try:
        return fn(*args)
    except (ValueError, TypeError) as e:
        _, sep, tail = str(e).partition(": ")
        raise type(e)(f"{who}: {tail}" if sep else f"{who}: {e}") from None
