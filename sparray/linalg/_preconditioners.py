"""Preconditioners for the iterative solvers: ``jacobi``, ``ilu0`` and ``ichol0``.

Each factory returns a small object ``M`` with ``shape``, ``dtype`` and ``M @ v`` applying an
approximation of ``A^{-1}`` to a dense vector ``v`` (``(n,)``; ``(n, k)`` works too, column by
column), so it plugs in as the ``M=`` of ``cg``, ``gmres``, ... (which call ``M @ r``) or,
wrapped in ``scipy.sparse.linalg.LinearOperator(M.shape, matvec=M.__matmul__)``, of SciPy's
solvers. ``M.matvec(v)`` is the same product. A sparray vector is applied through its dense form.
The result has the promoted dtype of ``M.dtype`` and ``v``'s (a real ``M`` applied to a complex
``v`` gives a complex result).

- :func:`jacobi` -- ``M = diag(A)^{-1}``. For a sparray array of any layout and any fill (a
  diagonal position that is not specified holds the fill; ``sparray.linalg.diagonal``) or a dense
  2-D array, of any namespace (NumPy, CuPy, array_api_strict): the diagonal is computed once, and
  each product is one elementwise multiply in that namespace, so CuPy data stays on the GPU.
- :func:`ilu0` -- incomplete LU with zero fill-in, ILU(0): ``A ~ L @ U`` with ``L`` unit lower
  and ``U`` upper triangular restricted to the *pattern* of ``A`` (its specified positions; an
  explicit zero is part of the pattern, and a block layout specifies every element of its
  blocks). ``M @ v`` is a forward then a backward triangular solve (see "On the host" below).
- :func:`ichol0` -- incomplete Cholesky IC(0) of a Hermitian (symmetric) positive definite
  ``A``: ``A ~ L @ L^H`` with ``L`` lower triangular on the pattern of ``A``'s lower triangle;
  only the lower triangle (and the real part of the diagonal) is read, as MATLAB's ``ichol``.

ILU(0) and IC(0) rules. ``A`` is a square 2-D sparray array of any sparse layout, converted to
CSR (duplicates of an uncoalesced COO are summed; the encoding is checked and made canonical
before the numba kernels of ``sparray.kernels.cpu.ilu`` read it). Its fill value must be zero: with
a non-zero fill every element is specified, the matrix is dense everywhere, and ILU(0) on that
pattern would be a full dense LU factorization -- a ValueError says so (use ``spsolve``/``splu``
for a direct solve). Integer and bool data factorize in float64; float32, float64, complex64 and
complex128 keep their dtype. A row without a diagonal entry in the pattern, a zero (ILU) or
non-positive (IC) pivot, or a non-finite entry is a ValueError naming the row.

On the host (NumPy data): when the preconditioner is made, the factors are also put in the
solve-ready form of :mod:`sparray.kernels.cpu.ilu` (``ilu0_triangles`` / ``ic0_triangles``: each
row divided by its diagonal entry, the entry on the row solved just before kept apart so that the
solve's chain runs through a register, IC(0)'s ``L^H`` stored by rows), one pair of arrays about
the factors' size, kept private (``M.L`` / ``M.U`` are built from the factors, not from it).
The setup allocates little beyond what it keeps: canonical NumPy components are read as they
are (SciPy's int32 indices kept, no copy), the lower triangle and ``L^H`` are counted then filled
by numba kernels with no temporary of A's size, and a factor overwrites a copy the setup owns
(tracemalloc's peak of ``ichol0`` on 2-D Poisson matrices: about 28.5 bytes per entry of A, it was 45;
``M.L`` / ``M.U`` still have int64 indices).
``M @ v`` is then one copy of ``v`` and a serial numba forward and backward sweep over it, every
index checked: 2.2-2.5 times a product ``A @ v`` (sparray's own, on two threads) on 2-D and 3-D
Poisson matrices of 1e4-5e5 unknowns, so ``cg`` with ``M=ichol0(A)``, about 3 times fewer
iterations, is faster than ``cg`` alone on 2-D problems (about even in 3-D). A NumPy ``(n,)``
vector of the factors' dtype (a solver's own) goes straight to the kernel; other vectors are
checked and cast first; an ``(n, k)`` one is solved column by column in one Fortran-ordered copy.

On a GPU (CuPy, the simulated device, any namespace other than NumPy): the factorization is
sequential, so it runs on the host: the CSR components are copied there once when the
preconditioner is made (the setup's transfer), factored by the same numba kernels, and the
factors go back as two level schedules (:mod:`sparray.linalg._levels`): ``M @ v`` is then, per
level of each triangle, a gather, a short row sum and a slice update in ``v``'s namespace, with no
read back to the host (a solver's iteration stays at its one read). The levels follow the pattern:
``2k - 1`` per triangle for the 5-point Laplacian on a ``k x k`` grid, each a handful of array
calls, so on a GPU an application costs that many small launches.

>>> import numpy as np, sparray
>>> from sparray.linalg._preconditioners import ilu0, jacobi
>>> A = sparray.asarray(np.array([[4.0, -1.0, 0.0], [-1.0, 4.0, -1.0], [0.0, -1.0, 4.0]]), layout="csr")
>>> (jacobi(A) @ np.ones(3)).tolist()
[0.25, 0.25, 0.25]
>>> x = np.array([1.0, 2.0, 3.0])
>>> np.allclose(ilu0(A) @ (A @ x), x)  # a tridiagonal matrix has no fill-in: ILU(0) is its exact LU
True
"""

from __future__ import annotations

import array_api_compat
import numpy as np

from .._core import dtypes as _dtypes
from .._array.base import SparseArray
from .._core.fill import fill_is_zero
from .._core.namespace import is_array, namespace_of, to_numpy
from ._operator import as_operator, solver_dtype

__all__ = ["IChol0", "ILU0", "Jacobi", "ichol0", "ilu0", "jacobi"]


# --- Jacobi -----------------------------------------------------------------------------------------
class Jacobi:
    """``M = diag(A)^{-1}`` (:func:`jacobi`): ``M @ v`` is ``inverse_diagonal * v`` in the
    namespace of ``A``'s components. ``inverse_diagonal`` is a dense 1-d array of that namespace."""

    def __init__(self, inverse_diagonal, xp):
        self.inverse_diagonal = inverse_diagonal
        self.xp = xp
        n = int(inverse_diagonal.shape[0])
        self.shape = (n, n)
        self.dtype = inverse_diagonal.dtype

    def __matmul__(self, v):
        inv = self.inverse_diagonal
        if type(v) is np.ndarray and type(inv) is np.ndarray and v.shape == inv.shape and v.dtype == inv.dtype:
            return inv * v  # a solver's own vector: the product alone (the checks below cost ~20 us)
        xp = self.xp
        v = _dense_rhs("sparray.linalg.jacobi", v, self.shape[0], xp)
        dtype = solver_dtype(xp, self.dtype, v.dtype)
        inv = self.inverse_diagonal if self.dtype == dtype else xp.astype(self.inverse_diagonal, dtype)
        if v.dtype != dtype:
            v = xp.astype(v, dtype)
        return inv * v if v.ndim == 1 else inv[:, None] * v

    matvec = __matmul__

    def __repr__(self):
        return f"<Jacobi preconditioner {self.shape[0]}x{self.shape[1]} of dtype {_dtypes.dtype_name(self.dtype)}>"


def jacobi(A):
    """The Jacobi (diagonal) preconditioner of the square matrix ``A``: ``M @ v = v / diag(A)``.

    ``A`` is a 2-D sparray array of any layout and fill value (an unspecified diagonal position
    holds the fill; duplicates of an uncoalesced COO are summed) or a dense 2-D array, with
    components of any namespace; ``M``'s products run in that namespace. ``M.dtype`` is the
    floating dtype of ``A`` (float64 for integer and bool data). ValueError when a diagonal
    entry is zero or not finite (naming it; one read of the diagonal on the host), or ``A`` is
    not square; TypeError for an operator object without a diagonal (a ``LinearOperator``).

    >>> import numpy as np, sparray
    >>> A = sparray.COO([[0], [0]], [2.0], shape=(2, 2), fill_value=4.0)  # A[1, 1] is the fill
    >>> (jacobi(A) @ np.array([1.0, 1.0])).tolist()
    [0.5, 0.25]
    """
    who = "sparray.linalg.jacobi"
    op = as_operator(who, A)
    if op.kind == "object":
        raise TypeError(
            f"{who}: A must be a sparray array or a dense 2-D array (its diagonal is read); got {type(A).__name__}"
        )
    xp = op.xp
    if op.kind == "sparse":
        from ._diagonal import diagonal

        d = diagonal(A).to_dense()
    else:
        d = xp.linalg.diagonal(A)
    dtype = solver_dtype(xp, op.dtype)
    if d.dtype != dtype:
        d = xp.astype(d, dtype)
    bad = (d == 0) | ~xp.isfinite(d)
    if bool(xp.any(bad)):
        i = int(xp.nonzero(bad)[0][0])
        what = "zero" if bool(d[i] == 0) else "not finite (nan or inf)"
        raise ValueError(f"{who}: the diagonal entry A[{i}, {i}] is {what}; the Jacobi preconditioner divides by the diagonal")
    return Jacobi(1 / d, xp)


# --- ILU(0) and IC(0) -------------------------------------------------------------------------------
class ILU0:
    """ILU(0) factors of a square sparse matrix (:func:`ilu0`): ``M @ v = U^{-1} (L^{-1} v)``.

    ``L`` (unit lower triangular, its ones stored) and ``U`` (upper triangular) are sparray CSR
    arrays with NumPy components, built when first asked for. ``nnz``: the entries of the pattern.
    On the host the two factors are kept in the solve-ready form of
    ``sparray.kernels.cpu.ilu.ilu0_triangles`` (built once, private: ``L``/``U`` are built from the
    packed factors, never from it), one pair per dtype a product has needed. Factors of a matrix of
    another namespace (``on=(xp, device)``) are applied there by the level schedules of
    :mod:`sparray.linalg._levels`."""

    def __init__(self, indptr, indices, lu, diag, on=None):
        from ..kernels.cpu import ilu as _ilu

        self._ilu = _ilu
        self._indptr, self._indices, self._lu, self._diag = indptr, indices, lu, diag
        n = indptr.shape[0] - 1
        self.shape = (n, n)
        self.dtype = lu.dtype
        self.nnz = int(indices.shape[0])
        self._L = self._U = None
        if on is None:
            tri = _kernel_call("sparray.linalg.ilu0", _ilu.ilu0_triangles, indptr, indices, lu, diag)
            self._host = _HostSolve("sparray.linalg.ilu0", "ILU(0)", *tri)
            self._device = None
        else:
            self._host = None
            self._device = _DeviceSolve(on, *_ilu0_schedules(indptr, indices, lu, diag))

    def __matmul__(self, v):
        if self._device is not None:
            return self._device.apply("sparray.linalg.ilu0", v, self.dtype)
        return self._host.apply(v)

    matvec = solve = __matmul__

    @property
    def L(self):
        if self._L is None:
            self._L, self._U = self._factors()
        return self._L

    @property
    def U(self):
        if self._U is None:
            self._L, self._U = self._factors()
        return self._U

    def _factors(self):
        from .._array.compressed import CSR

        indptr, indices, lu, diag = self._indptr, self._indices, self._lu, self._diag
        n = self.shape[0]
        rows = np.repeat(np.arange(n, dtype=np.int64), np.diff(indptr))
        lower = np.arange(indices.shape[0], dtype=np.int64) < diag[rows]
        Lptr = np.zeros(n + 1, np.int64)
        np.cumsum(diag - indptr[:-1] + 1, out=Lptr[1:])
        Lidx = np.empty(int(Lptr[-1]), np.int64)
        Lval = np.empty(int(Lptr[-1]), lu.dtype)
        dest = Lptr[rows[lower]] + (np.flatnonzero(lower) - indptr[rows[lower]])
        Lidx[dest], Lval[dest] = indices[lower], lu[lower]
        Lidx[Lptr[1:] - 1], Lval[Lptr[1:] - 1] = np.arange(n), 1
        Uptr = np.zeros(n + 1, np.int64)
        np.cumsum(indptr[1:] - diag, out=Uptr[1:])
        upper = ~lower
        L = CSR(Lptr, Lidx, Lval, shape=self.shape)
        U = CSR(Uptr, indices[upper].astype(np.int64), np.ascontiguousarray(lu[upper]), shape=self.shape)
        return L, U

    def __repr__(self):
        return f"<ILU0 preconditioner {self.shape[0]}x{self.shape[1]}, {self.nnz} entries, dtype {self.dtype}>"


class IChol0:
    """IC(0) factor of a Hermitian positive definite sparse matrix (:func:`ichol0`):
    ``M @ v = L^{-H} (L^{-1} v)``. ``L`` (lower triangular, real positive diagonal) is a sparray
    CSR array with NumPy components. ``nnz``: the entries of ``L``. On the host ``L`` and ``L^H``
    are kept in the solve-ready form of ``sparray.kernels.cpu.ilu.ic0_triangles`` (``L^H`` stored
    by rows), as :class:`ILU0`'s; factors of a matrix of another namespace (``on=(xp, device)``)
    are applied there by level schedules."""

    def __init__(self, indptr, indices, l, on=None):
        from ..kernels.cpu import ilu as _ilu

        self._ilu = _ilu
        self._indptr, self._indices, self._l = indptr, indices, l
        n = indptr.shape[0] - 1
        self.shape = (n, n)
        self.dtype = l.dtype
        self.nnz = int(indices.shape[0])
        self._L = None
        if on is None:
            tri = _kernel_call("sparray.linalg.ichol0", _ilu.ic0_triangles, indptr, indices, l)
            self._host = _HostSolve("sparray.linalg.ichol0", "IC(0)", *tri)
            self._device = None
        else:
            self._host = None
            self._device = _DeviceSolve(on, *_ic0_schedules(indptr, indices, l))

    def __matmul__(self, v):
        if self._device is not None:
            return self._device.apply("sparray.linalg.ichol0", v, self.dtype)
        return self._host.apply(v)

    matvec = solve = __matmul__

    @property
    def L(self):
        if self._L is None:
            from .._array.compressed import CSR

            i64 = np.int64  # the factor's pattern may be int32 (A's, kept); M.L's indices are int64
            self._L = CSR(self._indptr.astype(i64), self._indices.astype(i64), self._l, shape=self.shape)
        return self._L

    def __repr__(self):
        return f"<IChol0 preconditioner {self.shape[0]}x{self.shape[1]}, {self.nnz} entries, dtype {self.dtype}>"


def ilu0(A):
    """ILU(0) of the square sparse matrix ``A``: the preconditioner ``M = (L U)^{-1}``.

    ``L`` is unit lower triangular and ``U`` upper triangular, both on ``A``'s pattern (its
    specified positions), and ``(L @ U)[i, j] == A[i, j]`` on that pattern (the fill-in of exact
    LU is dropped): for a matrix with no fill-in (tridiagonal, say) ``L @ U == A`` exactly.
    ``A``: any sparse layout (converted to CSR), zero fill value, NumPy components (see the
    module docstring for the errors). ``M.L`` and ``M.U`` are the factors as sparray CSR arrays.

    >>> import numpy as np, sparray
    >>> A = sparray.asarray(np.array([[4.0, 1.0], [2.0, 5.0]]), layout="csc")
    >>> M = ilu0(A)
    >>> M.L.to_dense().tolist(), M.U.to_dense().tolist()
    ([[1.0, 0.0], [0.5, 1.0]], [[4.0, 1.0], [0.0, 4.5]])
    """
    from ..kernels.cpu import ilu as _ilu

    indptr, indices, values, on, owned = _sparse_csr("sparray.linalg.ilu0", A, "ILU(0)")
    lu, diag = _kernel_call("sparray.linalg.ilu0", _ilu.ilu0_factor, indptr, indices, values, overwrite=owned)
    return ILU0(indptr, indices, lu, diag, on)


def ichol0(A):
    """IC(0) of the Hermitian (real: symmetric) positive definite sparse matrix ``A``: the
    preconditioner ``M = (L L^H)^{-1}``.

    ``L`` is lower triangular on the pattern of ``A``'s lower triangle, its diagonal real and
    positive, and ``(L @ L^H)[i, j] == A[i, j]`` on that pattern. Only the lower triangle of ``A``
    is read (the upper one is taken to be its conjugate transpose); a diagonal entry with a
    non-zero imaginary part is a ValueError (not Hermitian), as is a pivot that is not positive
    (``A`` is not positive definite, or IC(0) breaks down on it), naming the row. Otherwise the
    rules of :func:`ilu0`. ``M.L`` is the factor as a sparray CSR array.

    >>> import numpy as np, sparray
    >>> A = sparray.asarray(np.array([[4.0, 2.0], [2.0, 5.0]]), layout="csr")
    >>> ichol0(A).L.to_dense().tolist()
    [[2.0, 0.0], [1.0, 2.0]]
    """
    from ..kernels.cpu import ilu as _ilu

    who = "sparray.linalg.ichol0"
    indptr, indices, values, on, _ = _sparse_csr(who, A, "IC(0)")
    indptr, indices, values = _kernel_call(who, _ilu.tril_csr, indptr, indices, values)  # new arrays
    if values.dtype.kind == "c":
        last = indptr[1:] - 1
        has = indptr[1:] > indptr[:-1]
        rows = np.flatnonzero(has)
        on_diag = rows[indices[last[has]] == rows]
        imag = values[last[on_diag]].imag != 0
        if imag.any():
            i = int(on_diag[np.argmax(imag)])
            raise ValueError(f"{who}: A[{i}, {i}] has a non-zero imaginary part; IC(0) needs a Hermitian matrix")
    l = _kernel_call(who, _ilu.ic0_factor, indptr, indices, values, overwrite=True)  # tril's own copy
    return IChol0(indptr, indices, l, on)


# --- shared checks --------------------------------------------------------------------------------
def _kernel_call(who, fn, *args, **kwargs):
    """``fn(*args, **kwargs)`` with the kernel's ValueError messages named by ``who``."""
    try:
        return fn(*args, **kwargs)
    except ValueError as e:
        msg = str(e)
        head, sep, tail = msg.partition(": ")
        raise ValueError(f"{who}: {tail}" if sep else f"{who}: {msg}") from None


def _sparse_csr(who, A, what):
    """``A``'s canonical CSR encoding as NumPy ``(indptr, indices, values, on, owned)`` in the
    factorization's dtype, after the checks of the module docstring; ``on`` is None for NumPy
    data, else ``(xp, device)`` of A's components (copied to the host here, as int64). ``owned``:
    ``values`` is a new array (a cast, a canonicalisation, a device copy) that a factorization may
    overwrite. NumPy components that are canonical already come back as they are (int32 indices
    kept): the setup copies nothing it does not return."""
    if not isinstance(A, SparseArray):
        raise TypeError(
            f"{who}: A must be a sparray array of a sparse layout (its pattern is the factors' pattern); got "
            f"{type(A).__name__} (wrap a dense matrix with sparray.asarray(A, layout='csr'))"
        )
    if A.ndim != 2 or A.dense_ndim:
        raise ValueError(f"{who}: A must be a 2-D sparse matrix with no dense dims; got shape {A.shape} (dense_ndim={A.dense_ndim})")
    if A.shape[0] != A.shape[1]:
        raise ValueError(f"{who}: A must be square; got shape {A.shape}")
    xp = A._xp
    if not fill_is_zero(xp, A._fill):
        fill = to_numpy(A._fill).item()
        raise ValueError(
            f"{who}: A has the non-zero fill value {fill!r}: every unspecified element holds it, so the matrix is "
            f"dense everywhere and {what} on its pattern would be a full (dense) LU factorization; use "
            "sparray.linalg.spsolve or splu for a direct solve, or subtract the fill first"
        )
    from ..kernels.cpu import ilu as _ilu

    dtype = np.dtype(_dtypes.dtype_name(A.dtype))
    if dtype.kind in "biu":
        dtype = np.dtype(np.float64)
    if dtype not in _ilu.FACTOR_DTYPES:
        raise TypeError(f"{who}: A has dtype {dtype}; {what} computes in float32, float64, complex64 or complex128 (cast A first)")
    B = A if A.layout == "csr" else A.to_layout("csr")
    on = None
    if array_api_compat.is_numpy_namespace(xp):
        B._check_contents()
        crow, col, values = np.asarray(B.crow_indices), np.asarray(B.col_indices), np.asarray(B.values)
    else:
        # another namespace (a GPU): factored on the host from one copy of the CSR components (the
        # setup's transfer; the factorization is sequential), applied on the device (see ILU0)
        on = (xp, array_api_compat.device(B.values))
        crow, col = (np.array(to_numpy(c), dtype=np.int64) for c in (B.crow_indices, B.col_indices))
        values = np.array(to_numpy(B.values))
        from .._array.compressed import CSR

        CSR(crow, col, values, shape=B.shape)._check_contents()
    original = values
    if values.dtype != dtype:
        values = values.astype(dtype)
    values = np.ascontiguousarray(values)
    if not _ilu._all_finite(values):
        raise ValueError(f"{who}: A must hold finite values only; it has nan or inf")
    crow, col, values = _ilu.canonical_csr(crow, col, values, A.shape[1], who)
    owned = on is not None or not np.may_share_memory(values, original)
    return crow, col, values, on, owned


# --- the factors applied on the host ---------------------------------------------------------------
class _HostSolve:
    """``U^{-1} (L^{-1} v)`` by the serial numba kernels of ``sparray.kernels.cpu.ilu`` on the two
    solve-ready triangles (one pair per dtype, cast when a product first needs it). A solver's own
    vector (a NumPy ``(n,)`` array of the factors' dtype) goes straight to the kernel: one copy
    (the result), one call, the kernel's own checks; anything else through :func:`_host_rhs`."""

    def __init__(self, who, what, lower, upper):
        from ..kernels.cpu import ilu as _ilu

        self._ilu, self.who, self.what = _ilu, who, what
        self.n = lower.n
        self.dtype = lower.values.dtype
        self._pairs = {self.dtype: (lower, upper)}
        self._args = _ilu._pair_args(lower, upper)

    def apply(self, v):
        if type(v) is np.ndarray and v.dtype == self.dtype and v.shape == (self.n,):
            x = v.copy()
            status, row = self._ilu._solve_pair(*self._args, x)
            if status:
                self._ilu._raise(self.who, status, row, self.what)
            return x
        v, dtype = _host_rhs(self.who, v, self.n, self.dtype)
        pair = self._pairs.get(dtype)
        if pair is None:
            lower, upper = self._pairs[self.dtype]
            pair = self._pairs[dtype] = (lower.astype(dtype), upper.astype(dtype))
        return self._ilu.solve_triangles(*pair, v, self.who, self.what)


# --- the factors applied in another namespace ------------------------------------------------------
def _strict_part(indptr, indices, values, lo, hi):
    """The CSR of the entries ``[lo[i], hi[i])`` of each row ``i`` (NumPy)."""
    n = indptr.shape[0] - 1
    lens = hi - lo
    ptr = np.zeros(n + 1, np.int64)
    np.cumsum(lens, out=ptr[1:])
    rows = np.repeat(np.arange(n, dtype=np.int64), lens)
    src = lo[rows] + (np.arange(int(ptr[-1]), dtype=np.int64) - ptr[rows])
    return ptr, indices[src], values[src]


def _transpose(ptr, idx, vals, n):
    """The CSR of the conjugate transpose of a CSR (rows sorted, columns increasing in a row)."""
    order = np.argsort(idx, kind="stable")
    rows = np.repeat(np.arange(n, dtype=np.int64), np.diff(ptr))
    tptr = np.zeros(n + 1, np.int64)
    np.cumsum(np.bincount(idx, minlength=n), out=tptr[1:])
    return tptr, rows[order], np.conj(vals[order])


def _ilu0_schedules(indptr, indices, lu, diag):
    """The level schedules of ILU(0)'s unit L and of U (host)."""
    from ._levels import plan

    lower = plan(*_strict_part(indptr, indices, lu, indptr[:-1], diag), None, lower=True)
    upper = plan(*_strict_part(indptr, indices, lu, diag + 1, indptr[1:]), lu[diag], lower=False)
    return lower, upper


def _ic0_schedules(indptr, indices, l):
    """The level schedules of IC(0)'s L and of L^H (host)."""
    from ._levels import plan

    n = indptr.shape[0] - 1
    last = indptr[1:] - 1  # each row's diagonal entry (ic0_factor checked it)
    ptr, idx, vals = _strict_part(indptr, indices, l, indptr[:-1], last)
    d = l[last]
    lower = plan(ptr, idx, vals, d, lower=True)
    upper = plan(*_transpose(ptr, idx, vals, n), np.conj(d), lower=False)
    return lower, upper


class _DeviceSolve:
    """``U^{-1} (L^{-1} v)`` in namespace ``xp``: the two level schedules and the renumberings between
    them (``v`` is taken into L's order, then into U's, then back), all on the device. No host read."""

    def __init__(self, on, lower, upper):
        xp, device = on
        self.xp, self.device = xp, device
        self.lower, self.upper = lower, upper
        n = lower.n
        pos_lower = np.empty(n, np.int64)
        pos_lower[lower.perm] = np.arange(n, dtype=np.int64)
        back = np.empty(n, np.int64)
        back[upper.perm] = np.arange(n, dtype=np.int64)
        self.n = n
        self.levels = (lower.levels, upper.levels)
        self._take = tuple(self._put(a) for a in (lower.perm, pos_lower[upper.perm], back))
        self._on = {}  # dtype name -> the two schedules on the device

    def _put(self, a):
        return self.xp.asarray(a, device=self.device)

    def schedules(self, dtype):
        key = _dtypes.dtype_name(dtype)
        got = self._on.get(key)
        if got is None:
            got = self._on[key] = (self.lower.to(self.xp, dtype, self.device), self.upper.to(self.xp, dtype, self.device))
        return got

    def apply(self, who, v, dtype):
        xp = self.xp
        v = _dense_rhs(who, v, self.n, xp)
        if np.dtype(_dtypes.dtype_name(v.dtype)).kind not in "biufc":
            raise TypeError(f"{who}: v has dtype {v.dtype}; expected a real or complex floating (or integer) dtype")
        out = solver_dtype(xp, dtype, v.dtype)
        if v.dtype != out:
            v = xp.astype(v, out)
        L, U = self.schedules(out)
        first, between, back = self._take
        y = xp.take(v, first, axis=0)  # a new array: v is not written
        L.solve(xp, y)
        z = xp.take(y, between, axis=0)
        U.solve(xp, z)
        return xp.take(z, back, axis=0)


def _dense_rhs(who, v, n, xp):
    """``v`` (a dense array of ``xp`` or a sparray array) as a dense ``(n,)`` or ``(n, k)`` array of ``xp``."""
    if isinstance(v, SparseArray):
        v = v.to_dense()
    if not is_array(v):
        raise TypeError(f"{who}: M @ v needs a dense array or a sparray array; got {type(v).__name__}")
    if namespace_of(v) is not xp:
        raise TypeError(
            f"{who}: v is an array of {namespace_of(v).__name__}, but the preconditioner's are arrays of {xp.__name__}"
        )
    if v.ndim not in (1, 2) or v.shape[0] != n:
        raise ValueError(f"{who}: v must have shape ({n},) or ({n}, k); got {tuple(v.shape)}")
    return v


def _host_rhs(who, v, n, dtype):
    """``(v, dtype)``: ``v`` as a NumPy ``(n,)`` or ``(n, k)`` array of the dtype the solve runs in
    (``dtype`` promoted with v's; integer and bool vectors take ``dtype``)."""
    if isinstance(v, SparseArray):
        v = v.to_dense()
    if type(v) is not np.ndarray:
        if is_array(v) and not array_api_compat.is_numpy_array(v):
            raise TypeError(f"{who}: the factors are NumPy arrays; v is an array of {namespace_of(v).__name__}")
        if not isinstance(v, (list, tuple)) and not is_array(v):
            raise TypeError(f"{who}: M @ v needs a dense array or a sparray array; got {type(v).__name__}")
        v = np.asarray(v)
    if v.ndim not in (1, 2) or v.shape[0] != n:
        raise ValueError(f"{who}: v must have shape ({n},) or ({n}, k); got {v.shape}")
    from ..kernels.cpu.ilu import FACTOR_DTYPES

    if v.dtype.kind not in "biufc":
        raise TypeError(f"{who}: v has dtype {v.dtype}; expected a real or complex floating (or integer) dtype")
    out = dtype if v.dtype.kind in "biu" else np.result_type(dtype, v.dtype)
    if out not in FACTOR_DTYPES:
        raise TypeError(f"{who}: v has dtype {v.dtype}; expected a real or complex floating (or integer) dtype")
    if v.dtype != out:
        v = v.astype(out)
    return v, out
