"""What the iterative solvers and eigensolvers see of an operator, a right-hand side and a vector.

A solver works on dense 1-d vectors of ONE array-API namespace (NumPy, CuPy, array_api_strict...):
the namespace of the operator's components when the operator is a sparray array or a dense array,
else the right-hand side's. Everything it does per iteration is an operator product, a few dot
products and vector updates in that namespace, so CuPy data stays on the GPU; the one value read
on the host per iteration is the residual norm of the convergence test.

An operator (``A`` of a solver, ``M`` a preconditioner) is one of:

- a 2-D sparray array of any layout and any fill value: ``A @ v`` with a dense ``v`` is exact for
  any fill (the fill is a dense rank-one part, which the products already add);
- a dense 2-D array of any array-API namespace;
- any object with ``shape``, ``dtype`` and ``__matmul__`` taking a dense 1-d vector (scipy's
  ``LinearOperator``, a preconditioner of ``sparray.linalg``, a user's class); ``rmatvec`` (the
  product with the conjugate transpose, for ``svds``) is its ``rmatvec`` method or ``.H @ v``.

>>> import numpy as np, sparray
>>> from sparray.linalg._operator import as_operator
>>> A = sparray.asarray(np.array([[2.0, 0.0], [0.0, 3.0]]), layout="csr", fill_value=0.0)
>>> op = as_operator("sparray.linalg.cg", A)
>>> op.shape, op.matvec(np.ones(2)).tolist()
((2, 2), [2.0, 3.0])
"""

from __future__ import annotations

import numpy as np

from .._core import dtypes as _dtypes
from .._array.base import SparseArray
from .._core.namespace import is_array, namespace_of

__all__ = ["Operator", "as_operator", "as_vector", "solver_dtype", "norm", "check_finite"]


class Operator:
    """A square or rectangular linear operator as a solver uses it: ``matvec(v)`` (``A @ v``),
    ``rmatvec(v)`` (``A^H @ v``), ``shape``, ``dtype`` and ``xp`` (the namespace of its vectors;
    None for an object that does not say, whose vectors then take the right-hand side's)."""

    __slots__ = ("A", "shape", "dtype", "xp", "kind", "who", "name", "_matrix")

    def __init__(self, A, shape, dtype, xp, kind, who, name):
        self.A, self.shape, self.dtype, self.xp, self.kind, self.who, self.name = A, shape, dtype, xp, kind, who, name
        self._matrix = None

    def _for_adjoint(self):
        """The sparse ``A`` whose ``mT`` the adjoint products take (made once): a COO as CSR, whose
        ``mT`` is a CSC view (a COO's ``mT`` is not sorted by row, so each product with it would
        coalesce anew: on a GPU two host syncs per product); another layout as it is."""
        M = self._matrix
        if M is None:
            M = self.A
            if M.layout == "coo":
                M = M.to_layout("csr")
            self._matrix = M
        return M

    def matvec(self, v):
        out = self.A @ v
        if self.kind == "object" and tuple(out.shape) != (self.shape[0],):
            out = _flat(out, self.shape[0], self.who, self.name)
        return out

    def rmatvec(self, v):
        A = self.A
        if self.kind == "sparse":
            A = self._for_adjoint()
            return A.mT @ v if self.dtype.kind != "c" else self.xp.conj(A.mT @ self.xp.conj(v))
        if self.kind == "dense":
            xp = self.xp
            return xp.matrix_transpose(A) @ v if self.dtype.kind != "c" else xp.conj(xp.matrix_transpose(A) @ xp.conj(v))
        if hasattr(A, "rmatvec"):
            return _flat(A.rmatvec(v), self.shape[1], self.who, self.name)
        if hasattr(A, "H"):
            return _flat(A.H @ v, self.shape[1], self.who, self.name)
        raise TypeError(
            f"{self.who}: {self.name} must give its conjugate transpose product (an rmatvec method or an H "
            f"attribute) for this solver; got {type(A).__name__}"
        )


def _flat(out, n, who, name):
    shape = tuple(out.shape)
    if shape not in ((n,), (n, 1)):
        raise ValueError(f"{who}: {name} @ v must give a vector of length {n}; got shape {shape}")
    return out.reshape((n,)) if len(shape) == 2 else out


def as_operator(who, A, *, name="A", square=True):
    """``A`` (a sparray array, a dense array or an operator object) as an :class:`Operator`.

    TypeError for anything else, ValueError for a shape that is not 2-D (square when asked)."""
    if isinstance(A, SparseArray):
        if A.ndim != 2 or A.dense_ndim:
            raise ValueError(
                f"{who}: {name} must be a 2-D sparse matrix with no dense dims; got shape {A.shape} "
                f"(dense_ndim={A.dense_ndim})"
            )
        kind, xp, dtype = "sparse", A._xp, np.dtype(_dtypes.dtype_name(A.dtype))
    elif is_array(A):
        if A.ndim != 2:
            raise ValueError(f"{who}: {name} must be a 2-D matrix; got shape {tuple(A.shape)}")
        kind, xp, dtype = "dense", namespace_of(A), np.dtype(_dtypes.dtype_name(A.dtype))
    elif hasattr(A, "shape") and hasattr(A, "dtype") and hasattr(A, "__matmul__"):
        if len(A.shape) != 2:
            raise ValueError(f"{who}: {name} must be a 2-D operator; got shape {tuple(A.shape)}")
        kind, xp, dtype = "object", None, np.dtype(_dtypes.dtype_name(A.dtype))
    else:
        raise TypeError(
            f"{who}: {name} must be a sparray array, a dense 2-D array, or an object with shape, dtype and "
            f"__matmul__ (a linear operator); got {type(A).__name__}"
        )
    shape = tuple(int(s) for s in A.shape)
    if square and shape[0] != shape[1]:
        raise ValueError(f"{who}: {name} must be square; got shape {shape}")
    if dtype.kind not in "biufc":
        raise TypeError(f"{who}: {name} must have a numeric dtype; got {dtype}")
    return Operator(A, shape, dtype, xp, kind, who, name)


def as_vector(who, v, xp, n, *, name="b", dtype=None):
    """``v`` (a sparray array, a dense array of ``xp``, a list) as a dense 1-d array of ``xp`` and
    length ``n``, cast to ``dtype`` when given. A ``(n, 1)`` column is taken as its vector."""
    if isinstance(v, SparseArray):
        v = v.to_dense()
    elif not is_array(v):
        if isinstance(v, (list, tuple)):
            v = xp.asarray(v)
        else:
            raise TypeError(f"{who}: {name} must be a vector (a sparse or dense array); got {type(v).__name__}")
    if namespace_of(v) is not xp:
        raise TypeError(
            f"{who}: {name} is an array of {namespace_of(v).__name__}, but the operator's vectors are arrays of "
            f"{xp.__name__}; pass arrays of one namespace"
        )
    shape = tuple(v.shape)
    if shape not in ((n,), (n, 1)):
        raise ValueError(f"{who}: {name} must have shape ({n},) or ({n}, 1) to match the operator; got {shape}")
    v = xp.reshape(v, (n,))
    if dtype is not None and v.dtype != dtype:
        v = xp.astype(v, dtype)
    return v


def solver_dtype(xp, *dtypes):
    """The floating dtype the solver computes in: the promotion of ``dtypes``, float64 for integer
    and bool ones (float32 and complex64 stay single precision, as scipy keeps them)."""
    names = {np.dtype(_dtypes.dtype_name(d)) for d in dtypes if d is not None}
    out = np.result_type(*names) if names else np.dtype("float64")
    if out.kind in "biu":
        out = np.dtype("float64")
    return getattr(xp, out.name)


def check_finite(who, v, *, name="b"):
    """ValueError when ``v`` holds nan or inf (one host read: the solvers' inputs only)."""
    xp = namespace_of(v)
    if not bool(xp.all(xp.isfinite(v))):
        raise ValueError(f"{who}: {name} must hold finite values only; it has nan or inf")


def norm(xp, a) -> float:
    """The 2-norm of ``a`` as a Python float: the one host read of a solver's iteration."""
    if type(a) is np.ndarray:
        return float(np.linalg.norm(a))
    return float(xp.linalg.vector_norm(a))

