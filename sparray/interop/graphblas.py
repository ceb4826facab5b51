"""python-graphblas interop: ``to_graphblas(A)`` / ``from_graphblas(M)`` (``graphblas.Matrix`` for
2-d arrays, ``graphblas.Vector`` for 1-d ones; also ``sparray.graph.to_graphblas`` / ``from_graphblas``).

python-graphblas (SuiteSparse:GraphBLAS) is imported only when these functions run, and is an
optional extra (``pip install 'sparray[graph]'``), never a dependency of sparray.

The reading, decided once:

- **Entries are stored elements.** A GraphBLAS matrix has entries and *missing* positions, no
  fill. sparray's undefined fill (``sparray.undefined``) is exactly that: its unspecified elements
  are GraphBLAS's missing ones, both ways. An array with a *defined* fill goes over as its stored
  elements, its fill dropped, as ``sparray.graph`` reads every operand (and as python-graphblas's
  ``io.from_scipy_sparse`` reads scipy's implicit zeros): an explicit zero stays an entry of
  value 0, and a fill of 0, inf or nan (the usual stand-ins for "no edge") becomes "missing". To
  keep a non-zero fill's elements, densify first; to get it back, ``from_graphblas(M, fill_value=f)``.
- **Layouts.** CSR <-> GraphBLAS CSR (``Matrix.ss.import_csr``/``export("csr")``), CSC <-> CSC;
  a COO goes through CSR (duplicates summed, sparray's meaning of them), BSR/BSC through CSR/CSC
  (every element of a stored block is an entry, fill-valued padding included: what
  ``sparray.graph`` reads), a 2:4 array through the CSR (CSC when transposed) of its kept positions.
  Batched arrays, dense (hybrid) dims and arrays of more than 2 dims have no GraphBLAS form:
  ValueError. A GraphBLAS matrix held row-wise (CSR, hypersparse, bitmap or full by rows) becomes
  a CSR, column-wise a CSC (``layout=`` asks for another).
- **Dtypes**: bool, int8-int64, uint8-uint64, float32, float64, complex64, complex128 (GraphBLAS's
  own; float16 and user-defined types: TypeError).
- **Iso** arrays (``sparray.graph.is_iso``: one value kept for every entry) go over as GraphBLAS
  iso matrices (``is_iso=True``, one value) and come back iso.
- **Devices**: GraphBLAS runs on the host; an array on a GPU (or the simulated device) is
  refused with the fix (``A.to_device("cpu")``).

**Copies**, measured (1e7 entries, float64, int64 indices, on a shared 2-core machine):
GraphBLAS must own the memory it holds (it frees it), so ``to_graphblas`` copies each buffer once
(int64 indices are taken as GraphBLAS's uint64 in that copy, int32 ones widened in it): 0.03 s,
about a memcpy of the three buffers. ``from_graphblas(M)`` is one copy made inside GraphBLAS
(``M`` is kept): 0.08 s. ``from_graphblas(M, unpack=True)`` is zero copy, 0.2 ms whatever the
size: M's buffers become the result's (its uint64 indices read as int64 in place) and M is left
empty (python-graphblas's ``M.ss.unpack``).

>>> import numpy as np, sparray
>>> from sparray.interop.graphblas import from_graphblas, to_graphblas
>>> A = sparray.asarray(np.array([[0.0, 2.0], [0.0, 0.0]]), layout="csr")
>>> M = to_graphblas(A)
>>> M.nvals, M[0, 1].new().value
(1, 2.0)
>>> B = from_graphblas(M)
>>> B.layout, B.fill_is_defined, B.to_dense(fill_value=0).tolist()
('csr', False, [[0.0, 2.0], [0.0, 0.0]])
"""

from __future__ import annotations

import numpy as np

from .._core.fill import undefined
from .._core.iso import iso_element, iso_values
from .._core.namespace import backend_kind, to_numpy

__all__ = ["from_graphblas", "to_graphblas", "GRAPHBLAS_DTYPES"]

#: the value dtypes GraphBLAS has (complex ones when the SuiteSparse build has them)
GRAPHBLAS_DTYPES = ("bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64", "float32",
                    "float64", "complex64", "complex128")  # fmt: skip
_ROW_FORMATS = ("csr", "hypercsr", "bitmapr", "fullr")


def _gb(who):
    try:
        import graphblas
    except ImportError as e:  # pragma: no cover - depends on the environment
        raise ImportError(f"{who} needs python-graphblas (pip install 'sparray[graph]')") from e
    return graphblas


def _check_dtype(who, dtype):
    name = np.dtype(dtype).name
    gb = _gb(who)
    ok = name in GRAPHBLAS_DTYPES and (not name.startswith("complex") or gb.dtypes._supports_complex)
    if not ok:
        raise TypeError(f"{who}: GraphBLAS has no {name} type; expected one of {', '.join(GRAPHBLAS_DTYPES)} "
                        "(cast first with A.astype(...))")


# --- sparray -> graphblas ---------------------------------------------------------------------------
def to_graphblas(A, *, name=None):
    """``A``'s stored entries as a ``graphblas.Matrix`` (2-d) or ``graphblas.Vector`` (1-d).

    Invariants of the result ``M``: ``M.shape == A.shape``, ``M.dtype`` is ``A.dtype``; M has an
    entry exactly where A stores an element, with its value (an explicit zero is an entry); A's
    fill, defined or not, is not read (module docstring). ``M.ss.is_iso`` when A is iso
    (``sparray.graph.is_iso``). A is never modified and shares nothing with M.

    Copies: each buffer once (GraphBLAS owns and frees what it holds), indices becoming uint64 in
    that copy; an iso array's values are one element. Measured at 1e7 entries (float64, int64
    indices): about the time of a memcpy of the three buffers (0.03-0.06 s here).

    Raises TypeError for a non-SparseArray or a dtype GraphBLAS lacks, ValueError for 0-d,
    batched, hybrid (dense dims) or n-d (n > 2) arrays and for data on a GPU.

    >>> import sparray
    >>> M = to_graphblas(sparray.CSR([0, 1, 2], [1, 0], [5.0, 7.0], shape=(2, 2)))
    >>> M.ss.format, M.nvals
    ('csr', 2)
    """
    from .._array.base import SparseArray

    who = "to_graphblas"
    if not isinstance(A, SparseArray):
        raise TypeError(f"{who}: expected a sparray SparseArray; got {type(A).__module__}.{type(A).__name__}")
    gb = _gb(who)
    if A.layout == "2:4":
        A = A.as_hub()
    if backend_kind(A._xp) == "cupy":
        raise ValueError(f"{who}: GraphBLAS runs on the host and this array is on {A.device}; move it first with "
                         "A.to_device('cpu')")
    if A.ndim not in (1, 2) or A.batch_ndim or A.dense_ndim:
        raise ValueError(f"{who}: GraphBLAS holds matrices and vectors of scalars; got shape {A.shape} (batch_ndim "
                         f"{A.batch_ndim}, dense_ndim {A.dense_ndim}): index a batch (A[b]) or convert with "
                         "A.to_layout(..., dense_ndim=0) first")
    _check_dtype(who, A.dtype)
    xp = A._xp
    B = A._replace_values(A._values, xp.zeros((), dtype=A.dtype))  # a stand-in fill: no conversion reads it
    if B.layout == "coo" or B.ndim == 1:
        B = B.coalesce() if B.ndim == 1 else B.to_layout("csr")
    elif B.layout in ("bsr", "bsc"):
        B = B.to_layout("csr" if B.layout == "bsr" else "csc")
    one = iso_element(B._values)
    values = to_numpy(B._values if one is None else one)
    values = np.ascontiguousarray(values).reshape(-1)
    dtype = np.dtype(values.dtype)
    if B.ndim == 1:
        (n,) = B.shape
        indices = to_numpy(B._indices[0])
        return gb.Vector.ss.import_sparse(size=n, indices=indices, values=values, nvals=int(indices.shape[0]),
                                          is_iso=one is not None, sorted_index=True, dtype=dtype, name=name)
    nrows, ncols = B.shape
    cidx, pidx = (np.ascontiguousarray(to_numpy(c)) for c in (B._cidx, B._pidx))
    if B.layout == "csr":
        return gb.Matrix.ss.import_csr(nrows=nrows, ncols=ncols, indptr=cidx, col_indices=pidx, values=values,
                                       is_iso=one is not None, sorted_cols=True, dtype=dtype, name=name)
    return gb.Matrix.ss.import_csc(nrows=nrows, ncols=ncols, indptr=cidx, row_indices=pidx, values=values,
                                   is_iso=one is not None, sorted_rows=True, dtype=dtype, name=name)


# --- graphblas -> sparray ---------------------------------------------------------------------------
def from_graphblas(M, *, fill_value=undefined, layout=None, unpack=False):
    """The sparray array of a ``graphblas.Matrix`` (2-d) or ``graphblas.Vector`` (1-d).

    Invariants of the result ``A``: same shape and dtype; A stores exactly M's entries, with their
    values; ``A.fill_value`` is ``fill_value`` (default ``sparray.undefined``: M's missing
    positions have no value; ``fill_value=0.0`` reads them as scipy does). A matrix becomes a CSR
    when M is held by rows (CSR, hypersparse, bitmap or full rows), a CSC when by columns, or
    ``layout`` ("csr" or "csc": GraphBLAS converts; "coo", "bsr", ...: sparray converts); a vector
    becomes a 1-d COO. Indices are int64 (GraphBLAS's uint64, read in place). An iso M gives an
    iso array (``sparray.graph.is_iso``: its one value broadcast, ``nbytes`` counting it once).

    ``unpack``: False (default) keeps M: GraphBLAS copies its buffers once (in C, measured at
    1e7 entries: about 0.08 s here) and hands the copy over. True is zero copy: M's own buffers
    become A's and M is left empty (its entries gone, shape and dtype kept: python-graphblas's
    ``M.ss.unpack``). Either way a hypersparse, bitmap or full M, or a ``layout`` against its
    orientation, is converted by GraphBLAS first.

    Raises TypeError for anything but a Matrix or Vector (an expression such as ``A @ B``: call
    ``.new()`` first) and for a user-defined type.

    >>> import graphblas as gb
    >>> M = gb.Matrix.from_coo([0, 1], [1, 1], [2.0, 3.0], nrows=2, ncols=3)
    >>> A = from_graphblas(M, fill_value=0.0)
    >>> A.layout, A.to_dense().tolist()
    ('csr', [[0.0, 2.0, 0.0], [0.0, 3.0, 0.0]])
    """
    who = "from_graphblas"
    gb = _gb(who)
    if isinstance(M, gb.Vector):
        return _from_vector(M, fill_value, layout, unpack)
    if not isinstance(M, gb.Matrix):
        hint = "; an expression needs .new() first" if hasattr(M, "new") else ""
        raise TypeError(f"{who}: expected a graphblas.Matrix or graphblas.Vector; got "
                        f"{type(M).__module__}.{type(M).__name__}{hint}")
    if M.dtype._is_udt:
        raise TypeError(f"{who}: sparray has no user-defined GraphBLAS types; got {M.dtype}")
    if layout not in (None, "coo", "csr", "csc", "bsr", "bsc"):
        raise ValueError(f"{who}: layout must be None, 'coo', 'csr', 'csc', 'bsr' or 'bsc'; got {layout!r}")
    _check_dtype(who, M.dtype.np_type)
    fmt = layout if layout in ("csr", "csc") else ("csr" if M.ss.format in _ROW_FORMATS else "csc")
    parts = (M.ss.unpack if unpack else M.ss.export)(fmt, sort=True)
    from .._array.compressed import CSC, CSR

    nvals = int(parts["indptr"][-1])
    values = _values(parts, nvals)
    minor = parts["col_indices" if fmt == "csr" else "row_indices"]
    cls = CSR if fmt == "csr" else CSC
    A = cls(_int64(parts["indptr"]), _int64(minor), values, shape=(parts["nrows"], parts["ncols"]),
            fill_value=fill_value)
    if layout is None or layout == A.layout:
        return A
    if layout in ("bsr", "bsc"):
        raise ValueError(f"{who}: layout={layout!r} needs a blocksize; convert the result with A.to_layout({layout!r}, "
                         "blocksize=...) (an undefined fill cannot pad blocks)")
    return A.to_layout(layout)


def _from_vector(v, fill_value, layout, unpack):
    who = "from_graphblas"
    if layout not in (None, "coo"):
        raise ValueError(f"{who}: a vector becomes a 1-d COO; got layout={layout!r}")
    if v.dtype._is_udt:
        raise TypeError(f"{who}: sparray has no user-defined GraphBLAS types; got {v.dtype}")
    _check_dtype(who, v.dtype.np_type)
    parts = (v.ss.unpack if unpack else v.ss.export)("sparse", sort=True)
    from .._array.coo import COO

    indices = _int64(parts["indices"])
    n = int(indices.shape[0])
    return COO(indices.reshape(1, n), _values(parts, n), shape=(parts["size"],), fill_value=fill_value,
               is_coalesced=True)


def _int64(a):
    """GraphBLAS's uint64 indices read as int64, no copy (they are below 2**60)."""
    a = np.asarray(a)
    return a.view(np.int64) if a.dtype == np.uint64 else a.astype(np.int64)


def _values(parts, n):
    values = np.asarray(parts["values"])
    if parts.get("is_iso") and n > 1:
        return iso_values(np, values[:1], (n,))
    return values[:n]
