"""What scipy.sparse and its users look for on an array, and how sparray's operators meet scipy's.

Each part follows what scipy (1.17, read in its source) checks; nothing here imports scipy, and
``import sparray`` does not import this module's users' libraries.

- **Names.** ``A.tocsr()``, ``A.tocsc()``, ``A.tocoo()``, ``A.tobsr()`` give scipy.sparse arrays
  (``csr_array``, ``csc_array``, ``coo_array``, ``bsr_array``) by ``sparray.interop.scipy.to_scipy``:
  the buffers are shared where the layouts agree (CSR -> csr, CSC -> csc, COO -> coo, BSR -> bsr),
  other layouts are converted first; a zero fill is needed (scipy has none; a non-zero fill raises
  ``ValueError`` saying what to do) and no dense (hybrid) dims.
  pydata/sparse names these methods so too (its ``tocsr`` also returns a scipy object).
  ``A.toarray()`` (scipy's name) and ``A.todense()`` (pydata/sparse's; scipy's sparse arrays have it
  too) are ``A.to_dense()``: the dense array in the components' namespace (a NumPy ndarray for NumPy
  components, a CuPy array for CuPy ones), the fill included, never an ``np.matrix``.
- **A linear operator.** ``scipy.sparse.linalg.aslinearoperator`` takes an ndarray, a scipy sparse
  array, a pydata/sparse array (by its class, when ``sparse`` is imported), or any object with
  ``shape`` and ``matvec`` (reading ``rmatvec``, ``rmatmat`` and ``dtype`` when there). So
  ``A.matvec(x)`` is ``A @ x``, ``A.rmatvec(x)`` and ``A.rmatmat(X)`` are ``A^H @ x``: sparray's
  products, exact for any fill (the fill's term is a row or column sum of ``x``; a nan fill gives
  nan, as the dense matrix does). Every scipy solver that starts with ``aslinearoperator`` (``cg``,
  ``gmres``, ``bicgstab``, ``minres``, ``lsqr``, ``lsmr``, ``eigsh``, ``eigs``, ``svds``, ...)
  then takes a 2-D sparray array as it is.
- **Operators with a scipy operand.** ``A <op> S`` with a scipy.sparse array or matrix ``S`` (any
  format): ``S`` becomes its sparray array by ``from_scipy`` (its buffers, no copy, when canonical)
  and the operator is sparray's, so the result is a sparray array (fill included), the same as
  ``A <op> from_scipy(S)``; ``A += S`` and the other in-place operators change ``A`` itself, under
  their usual rule (A's dtype and shape kept). The other order, ``S <op> A``, runs scipy's operator first:

  - ``+`` and ``-``: scipy returns NotImplemented for an operand that is neither sparse, dense nor
    a scalar, and Python calls ``A.__radd__(S)`` / ``A.__rsub__(S)``;
  - ``@``, ``*``, ``/`` and the comparisons: scipy calls ``np.asanyarray(A)`` and returns
    NotImplemented when that gives a 0-d object array (its documented test: "not interpretable as
    an array; return NotImplemented so that other's __rmatmul__ can kick in"). ``A.__array__``
    answers so only when its caller is one of those scipy.sparse functions, called from a scipy
    operator dunder (:func:`defers`), so Python then calls sparray's reflected operator. Anywhere
    else ``np.asarray(A)`` keeps its own rule, and a direct ``S.multiply(A)`` or ``S.dot(A)`` with
    a COO ``S`` is not changed.

  scipy's matrix classes (``csr_matrix``, ...) read ``*`` as the matrix product, as ``np.matrix``
  does, in either position (``ndarray * csr_matrix`` is a matrix product in scipy too): so
  ``A * M`` and ``M * A`` are ``A @ M`` and ``M @ A`` there; with scipy's array classes ``*`` is
  element-wise. A scipy operand is NumPy data on the host: beside an array of another namespace
  (CuPy, the simulated device) the operator raises ``TypeError`` naming
  ``sparray.asarray(S, device=A.device)`` and ``A.to_device("cpu")``.

``scipy.sparse.issparse(A)`` stays False: it is ``isinstance(A, scipy's SparseABC)``, and a sparray
array that claimed it would be handed to code that reads scipy's own attributes (``indptr``,
``format``, ``has_canonical_format``...), while scipy's formats hold no fill, batch dims or GPU
data. That is why
scipy's constructors (``csr_array(A)``, ``coo_array(A)``, ``csc_matrix(A)``), which take only scipy
objects, tuples of arrays or dense input, and ``spsolve(A, b)``, which calls ``csc_array(A)``,
read ``A`` through ``np.asarray(A)`` (the dense form, under its rule); ``csr_array(A.tocsr())`` and
``spsolve(A.tocsc(), b)`` share the buffers (or ``sparray.linalg.spsolve(A, b)``).

>>> import numpy as np, sparray
>>> A = sparray.asarray(np.array([[2.0, 0.0], [1.0, 3.0]]), layout="csr")
>>> A.matvec(np.ones(2)).tolist(), A.rmatvec(np.ones(2)).tolist()
([2.0, 4.0], [3.0, 3.0])
>>> A.toarray().tolist()
[[2.0, 0.0], [1.0, 3.0]]
"""

from __future__ import annotations

import sys

from . import forward

__all__ = ["ScipyNames", "binary", "defers", "hint", "inplace", "opaque"]


class ScipyNames:
    """The methods scipy.sparse and pydata/sparse users type, as a base of ``SparseArray``."""

    __slots__ = ()

    # --- conversions --------------------------------------------------------------------------------
    def tocsr(self, copy=False):
        """This 2-D array as a ``scipy.sparse.csr_array`` (``to_scipy(A, "csr")``: a CSR shares its
        buffers; a zero fill and no dense dims needed). ``copy=True``: buffers of its own.

        >>> import sparray
        >>> sparray.eye(2, layout="csr").tocsr().toarray().tolist()
        [[1.0, 0.0], [0.0, 1.0]]
        """
        return _scipy(self, "csr", copy)

    def tocsc(self, copy=False):
        """This 2-D array as a ``scipy.sparse.csc_array`` (a CSC shares its buffers; see ``tocsr``)."""
        return _scipy(self, "csc", copy)

    def tobsr(self, blocksize=None, copy=False):
        """This 2-D array as a ``scipy.sparse.bsr_array`` (a BSR shares its buffers when ``blocksize`` is
        None or its own; else scipy's ``tobsr(blocksize)`` of it; see ``tocsr``)."""
        m = forward.to_scipy(self, "bsr")
        if blocksize is not None and tuple(blocksize) != m.blocksize:
            return m.tobsr(blocksize=tuple(blocksize))
        return m.copy() if copy else m

    def tocoo(self, copy=False):
        """This array as a ``scipy.sparse.coo_array`` (n-d too; a COO shares its buffers; see ``tocsr``)."""
        return _scipy(self, "coo", copy)

    def toarray(self, order=None, out=None):
        """``A.to_dense()`` under scipy's name: the dense array in the components' namespace, the
        fill included. ``order`` ("C" or "F", NumPy components) and ``out`` (an array of this
        shape and dtype to write into) are scipy's.

        >>> import sparray
        >>> sparray.asarray([[2.0, 1.0]], fill_value=2.0).toarray().tolist()
        [[2.0, 1.0]]
        """
        return _dense(self, order, out, "toarray")

    def todense(self, order=None, out=None):
        """``A.to_dense()`` under pydata/sparse's name (scipy's sparse arrays have it too): as ``toarray``
        (a NumPy ndarray for NumPy components, never an ``np.matrix``)."""
        return _dense(self, order, out, "todense")

    # --- the linear operator scipy.sparse.linalg.aslinearoperator reads ----------------------------------
    def matvec(self, x):
        """``A @ x`` for a dense ``x`` of shape ``(N,)`` or ``(N, 1)`` (``A`` 2-D, ``(M, N)``): exact
        for any fill. What ``scipy.sparse.linalg.aslinearoperator(A)`` calls."""
        _check_2d(self, "matvec")
        return _dense_result(self @ x)

    def rmatvec(self, x):
        """``A^H @ x`` (the conjugate transpose) for a dense ``x`` of shape ``(M,)`` or ``(M, 1)``:
        exact for any fill. What scipy's ``LinearOperator.rmatvec`` (and ``svds``) calls."""
        _check_2d(self, "rmatvec")
        return _adjoint_product(self, x)

    def rmatmat(self, X):
        """``A^H @ X`` for a dense ``(M, K)`` ``X``: exact for any fill (scipy's ``rmatmat``)."""
        _check_2d(self, "rmatmat")
        return _adjoint_product(self, X)


def _scipy(A, fmt, copy):
    m = forward.to_scipy(A, fmt)
    return m.copy() if copy else m


def _dense(A, order, out, who):
    dense = A.to_dense()
    if order is not None:
        if out is not None:
            raise ValueError(f"{type(A).__name__}.{who}: give order or out, not both")
        import numpy as np

        if type(dense) is not np.ndarray:
            raise TypeError(
                f"{type(A).__name__}.{who}: order= needs NumPy components; these are "
                f"{type(dense).__module__}.{type(dense).__name__} (call without order)"
            )
        if order not in ("C", "F"):
            raise ValueError(f"{type(A).__name__}.{who}: order must be 'C' or 'F'; got {order!r}")
        return np.asarray(dense, order=order)
    if out is None:
        return dense
    if tuple(out.shape) != tuple(A.shape) or out.dtype != dense.dtype:
        raise ValueError(
            f"{type(A).__name__}.{who}: out must have this array's shape {A.shape} and dtype {dense.dtype}; "
            f"got shape {tuple(out.shape)}, dtype {out.dtype}"
        )
    out[...] = dense
    return out


def _check_2d(A, who):
    if A.ndim != 2:
        raise ValueError(f"{type(A).__name__}.{who}: a linear operator is a 2-D array; got shape {A.shape}")


def _dense_result(y):
    return y.to_dense() if isinstance(y, ScipyNames) else y  # ScipyNames: a base of every SparseArray


def _adjoint_product(A, x):
    """``A^H @ x``: ``A.mT @ x``, for a COO ``x^T @ A`` transposed (its ``mT`` is not sorted by row,
    so each product with it would sort it anew: 20 times the time at 2e5 entries)."""
    xp = A._xp
    cplx = xp.isdtype(A.dtype, "complex floating")
    if cplx:
        x = xp.conj(x)
    matmul = forward.function("matmul")  # not x @ A: a dense array's own @ need not defer to sparray's
    if A.layout != "coo":
        y = _dense_result(matmul(A.mT, x))
    elif x.ndim == 1:
        y = _dense_result(matmul(x, A))
    else:
        y = xp.matrix_transpose(_dense_result(matmul(xp.matrix_transpose(x), A)))
    return xp.conj(y) if cplx else y


# --- operators with a scipy.sparse operand -------------------------------------------------------------
def _scipy_sparse(x):
    """scipy.sparse (the module) when ``x`` is one of its arrays or matrices, else None; never imports it."""
    if not type(x).__module__.startswith("scipy.sparse"):
        return None
    sp = sys.modules.get("scipy.sparse")
    return sp if sp is not None and sp.issparse(x) else None


def binary(A, other, fname, reflected):
    """``A <op> other`` (``other <op> A`` when ``reflected``) by ``sparray.<fname>`` for a scipy.sparse
    array or matrix ``other``, taken as ``from_scipy(other)`` (its buffers, no copy, when canonical);
    NotImplemented for anything else. ``*`` with a scipy matrix class is the matrix product."""
    sp = _scipy_sparse(other)
    if sp is None:
        return NotImplemented
    if fname == "multiply" and isinstance(other, sp.spmatrix):
        fname = "matmul"  # scipy's matrix classes read * as the matrix product, as np.matrix does
    _check_host(A, f"sparray.{fname}")
    B = forward.from_scipy(other)
    f = forward.function(fname)
    return f(B, A) if reflected else f(A, B)


def inplace(A, stem, other):
    """``A <op>= other`` in place (``A`` keeps its identity, as with every operand) for a scipy.sparse
    ``other``, taken as ``from_scipy(other)``; NotImplemented for anything else."""
    sp = _scipy_sparse(other)
    if sp is None:
        return NotImplemented
    if stem == "mul" and isinstance(other, sp.spmatrix):
        stem = "matmul"
    _check_host(A, f"sparray.__i{stem}__")
    return forward.inplace(A, stem, forward.from_scipy(other))


def _check_host(A, who):
    if type(A._values).__module__.split(".")[0] != "numpy":
        raise TypeError(
            f"{who}: a scipy.sparse operand holds NumPy data on the host and this array's components "
            f"are {type(A._values).__module__}.{type(A._values).__name__} (device {A.device}); move S with "
            "sparray.asarray(S, device=A.device) or A with A.to_device('cpu')"
        )


#: scipy.sparse's functions that call ``np.asanyarray(other)`` and return NotImplemented when it is a
#: 0-d object array: ``_matmul_dispatch`` (``@``, a matrix class's ``*``), ``_multiply_2d_with_broadcasting``
#: and ``multiply`` (``*``), ``_comparison`` (``==``, ``<``, ...), ``_divide`` (``/``)
_DISPATCH = frozenset({"_matmul_dispatch", "_multiply_2d_with_broadcasting", "multiply", "_comparison", "_divide"})
#: the operator dunders they serve: only inside one of them is NotImplemented handed on to Python
_OPERATORS = frozenset({
    "__matmul__", "__mul__", "__truediv__", "__eq__", "__ne__", "__lt__", "__gt__", "__le__", "__ge__",
})  # fmt: skip
_DEPTH = 3  # frames from the dispatch function up to its dunder (csr: __mul__ -> multiply -> _multiply_2d_...)


def _in_scipy_sparse(frame) -> bool:
    return frame.f_globals.get("__name__", "").startswith("scipy.sparse.")


def defers(frame) -> bool:
    """Whether ``frame`` (the caller of ``np.asanyarray(A)``) is one of scipy.sparse's dispatch functions
    working for one of its binary operators: then ``A.__array__`` gives :func:`opaque`, scipy returns
    NotImplemented and Python calls sparray's reflected operator."""
    if frame is None or frame.f_code.co_name not in _DISPATCH or not _in_scipy_sparse(frame):
        return False
    f = frame.f_back
    for _ in range(_DEPTH):
        if f is None:
            return False
        if f.f_code.co_name in _OPERATORS and _in_scipy_sparse(f):
            return True
        f = f.f_back
    return False


def hint(frame) -> str:
    """The end of ``np.asarray(A)``'s refusal when ``frame``, its caller, is a scipy.sparse constructor
    (``csr_array(A)``, ``spsolve``'s ``csc_array(A)``, ...): the calls that share the buffers instead."""
    if frame is None or frame.f_code.co_name != "__init__" or not _in_scipy_sparse(frame):
        return ""
    return (
        "; scipy.sparse's constructors read an object of another library as dense input: "
        "A.tocsr(), A.tocsc() and A.tocoo() give scipy arrays sharing A's buffers"
    )


def opaque(A):
    """What ``np.asanyarray`` gives for an object NumPy cannot read as an array: a 0-d object array
    holding it (scipy's signal to return NotImplemented)."""
    import numpy as np

    out = np.empty((), dtype=object)
    out[()] = A
    return out
