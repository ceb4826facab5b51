"""scipy.sparse interop: ``to_scipy(A)`` / ``from_scipy(m)``, sharing memory where the formats agree.

scipy is imported only when these functions run (``import sparray`` never imports it).

Invariants:

- ``from_scipy`` keeps the format: coo -> COO (n-d too), csr -> CSR, csc -> CSC, bsr -> BSR;
  dia, lil and dok go through CSR. Canonical input (sorted, no duplicates) shares its buffers
  with the result; otherwise the result is built from a canonicalised copy (duplicates summed,
  as scipy itself does), and ``m`` is never modified. A COO keeps its duplicates, uncoalesced.
  Explicit zeros stay specified. The fill value is 0.
- ``to_scipy`` needs a zero fill value (scipy has no other), NumPy-convertible components
  and no dense (hybrid) dims. CSR, CSC and BSR share their buffers with the scipy array;
  BSC becomes ``csc`` by default. Batched compressed arrays and n-d COO become an n-d
  ``coo_array`` (scipy >= 1.13 allows n-d COO only). A 2:4 array (scipy has no such format)
  becomes the CSR of its pattern (``A.as_hub()``; a CSC when ``A.transposed``), sharing its
  values: every kept position is an entry, so a kept position that holds 0 is an explicit zero.

>>> import scipy.sparse as sp, sparray
>>> from sparray.interop.scipy import from_scipy, to_scipy
>>> A = from_scipy(sp.eye_array(3, format="csr"))
>>> A.layout, A.nse, to_scipy(A).format
('csr', 3, 'csr')
"""

from __future__ import annotations

import numpy as np

from .._core.namespace import to_numpy
from ._fill import explicit_fill

__all__ = ["from_scipy", "to_scipy"]

_DEFAULT_FORMAT = {"coo": "coo", "csr": "csr", "csc": "csc", "bsr": "bsr", "bsc": "csc"}
_FORMATS = ("coo", "csr", "csc", "bsr", "dia", "lil", "dok")


def _is_scipy_sparse(m) -> bool:
    return type(m).__module__.startswith("scipy.sparse") and hasattr(m, "format") and hasattr(m, "tocoo")


def _index_pair(*arrays):
    """Index arrays as one signed dtype (int32 or int64), without copying when they already agree."""
    dt = np.result_type(*[a.dtype for a in arrays])
    if dt not in (np.int32, np.int64):
        dt = np.int64
    return [a if a.dtype == dt else a.astype(dt) for a in arrays]


def from_scipy(m):
    """The sparray array of a scipy.sparse array or matrix, in the matching layout.

    ``coo`` -> COO (n-d allowed, duplicates kept, ``is_coalesced`` from scipy's canonical flag),
    ``csr``/``csc``/``bsr`` -> CSR/CSC/BSR sharing ``indptr``/``indices``/``data`` when scipy's
    arrays are canonical (else from a canonicalised copy); other formats through CSR.
    """
    from .._array.blocked import BSR
    from .._array.compressed import CSC, CSR
    from .._array.coo import COO

    if not _is_scipy_sparse(m):
        raise TypeError(f"from_scipy: expected a scipy.sparse array or matrix; got {type(m).__module__}.{type(m).__name__}")
    fmt = m.format
    shape = tuple(int(s) for s in m.shape)
    if fmt == "coo":
        coords = getattr(m, "coords", None)
        if coords is None:
            coords = (m.row, m.col)
        if coords:
            indices = np.stack(_index_pair(*[np.asarray(c) for c in coords]))
        else:
            indices = np.zeros((0, m.nnz), np.int64)
        return COO(indices, np.asarray(m.data), shape, is_coalesced=bool(getattr(m, "has_canonical_format", False)))
    if fmt not in ("csr", "csc", "bsr"):
        m = m.tocsr()
        fmt = "csr"
    if not m.has_canonical_format:
        m = m.copy()
        m.sum_duplicates()  # sorts the indices too
    indptr, indices = _index_pair(np.asarray(m.indptr), np.asarray(m.indices))
    data = np.asarray(m.data)
    if fmt == "bsr":
        return BSR(indptr, indices, data, shape)
    return (CSR if fmt == "csr" else CSC)(indptr, indices, data, shape)


def _host(x):
    """A component as a NumPy array (no copy for NumPy and other CPU namespaces); CuPy is refused."""
    if type(x).__module__.startswith("cupy"):
        raise ValueError("to_scipy: the components are CuPy arrays; move them first with A.to_device('cpu')")
    return to_numpy(x)


def _host_values(A):
    """A's values on the host, an iso array's written out (scipy may write into ``data``)."""
    from .._core.iso import iso_element

    v = _host(A.values)
    return np.ascontiguousarray(v) if iso_element(v) is not None else v


def to_scipy(A, format=None, *, fill_value=None):
    """``A`` as a scipy.sparse array; ``format`` is "coo", "csr", "csc" or "bsr" (default: the layout's own;
    for a 2:4 array its hub's, "csr", or "csc" when transposed).

    Needs a zero fill value and no dense (hybrid) dims; arrays of more than 2 dims (n-d COO,
    batched CSR/CSC/BSR/BSC) become an n-d ``coo_array``.

    ``fill_value``: the value the unspecified elements of an array with an undefined fill
    (``sparray.undefined``) take in the result, said explicitly: scipy's implicit one, 0 (the
    stored entries, explicit zeros among them, are kept as they are). For an array with a
    defined fill it may only repeat that fill. An iso array (``sparray.graph.is_iso``) gets its
    values written out: scipy keeps one value per entry (that copy is the only one).

    >>> import numpy as np, sparray
    >>> G = sparray.asarray(sparray.asarray(np.eye(2)), fill_value=sparray.undefined)
    >>> to_scipy(G, fill_value=0).toarray().tolist()
    [[1.0, 0.0], [0.0, 1.0]]
    """
    import scipy.sparse as sp

    from .._array.base import SparseArray
    from .._core.fill import fill_is_zero

    if not isinstance(A, SparseArray):
        raise TypeError(f"to_scipy: expected a sparray SparseArray; got {type(A).__module__}.{type(A).__name__}")
    if A.layout == "2:4":  # scipy has no 2:4 format: the CSR (transposed: CSC) of the same pattern
        A = A.as_hub()
    A = explicit_fill(A, fill_value, "to_scipy")
    if not A.fill_is_defined:
        raise ValueError("to_scipy: this array's fill is undefined (sparray.undefined) and scipy.sparse has none: its unspecified elements would read as 0; say so with to_scipy(A, fill_value=0) (or sparray.asarray(A, fill_value=0.0))")
    if not fill_is_zero(A._xp, A.fill_value):
        raise ValueError(
            "to_scipy: scipy.sparse has no fill value and this array's fill is non-zero; "
            "convert A - A.fill_value (then add the fill back), or use A.to_dense()"
        )
    if A.dense_ndim:
        raise ValueError(
            f"to_scipy: scipy.sparse has no dense (hybrid) dims; got dense_ndim={A.dense_ndim}; "
            "use A.to_layout(A.layout, dense_ndim=0) first"
        )
    if format is None:
        fmt = _DEFAULT_FORMAT[A.layout] if A.ndim == 2 else "coo"
    else:
        fmt = format
    if fmt not in ("coo", "csr", "csc", "bsr"):
        raise ValueError(f"to_scipy: format must be 'coo', 'csr', 'csc' or 'bsr'; got {fmt!r}")
    if A.ndim != 2:
        if fmt != "coo":
            raise ValueError(f"to_scipy: scipy's {fmt!r} format is 2-d only; got shape {A.shape} (use format='coo')")
        B = A if A.layout == "coo" else A.to_layout("coo")
        return _coo_array(sp, B)
    if fmt == "coo" or (fmt == "bsr" and A.layout != "bsr"):
        B = A if A.layout == "coo" else A.to_layout("coo")
        out = _coo_array(sp, B)
        return out if fmt == "coo" else out.tobsr()
    if fmt == "bsr":  # A is BSR: share the buffers
        return sp.bsr_array((_host_values(A), _host(A.col_indices), _host(A.crow_indices)), shape=A.shape, copy=False)
    want = "csr" if fmt == "csr" else "csc"
    B = A if A.layout == want else A.to_layout(want)
    cls = sp.csr_array if want == "csr" else sp.csc_array
    out = cls((_host_values(B), _host(B.plain_indices), _host(B.compressed_indices)), shape=B.shape, copy=False)
    out.has_sorted_indices = True  # sparray's compressed layouts are canonical by invariant
    return out


def _coo_array(sp, B):
    coords = tuple(_host(B.indices[d]) for d in range(B.sparse_ndim))
    out = sp.coo_array((_host_values(B), coords), shape=B.shape)
    if B.is_coalesced:
        out.has_canonical_format = True
    return out
