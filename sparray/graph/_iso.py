"""Iso-valued (structure-only) arrays: GraphBLAS's iso matrices, one value kept for every entry.

:func:`structure` makes one (a graph's pattern, every edge ``value``), :func:`is_iso` tells one.
The values are a zero-stride broadcast of one element (``sparray._core.iso``): ``A.values`` reads
as nse copies of it, ``A.nbytes`` counts it once, and NumPy's view is read-only (sparray never
writes into components). Every function takes them as any array; the graph kernels
(``sparray.graph.matmul``, ``reduce``, ``select``, ``apply``) read the one element for every entry
without copying it out, ``select`` keeps a result iso, conversions between COO, CSR and CSC keep
it (``sparray._layout.iso``), and python-graphblas's iso matrices come and go as iso
(``from_graphblas``/``to_graphblas``). Any function that computes new values (``A * 2``,
``astype``, a product) returns ordinary values.

>>> import numpy as np, sparray
>>> W = sparray.asarray(np.array([[0.0, 2.5], [4.0, 0.0]]), layout="csr")
>>> S = structure(W)
>>> is_iso(S), S.dtype, S.values.tolist(), S.fill_is_defined
(True, dtype('bool'), [True, True], False)
>>> S.nbytes < W.nbytes
True
"""

from __future__ import annotations

from .._array.base import SparseArray
from .._core.iso import iso_values
from .._core.namespace import is_array
from .._functions.undefined import undefined_fill
from .._layout.iso import is_iso_array

__all__ = ["is_iso", "structure"]


def is_iso(A) -> bool:
    """Whether every stored element of the sparse array ``A`` is one value kept once (an iso array,
    as :func:`structure` makes and ``from_graphblas`` gives for GraphBLAS's iso matrices). An array
    with fewer than two stored elements is never iso (there is nothing to share). Equal values
    stored one by one are not iso either: iso is how the values are kept, not what they are.

    >>> import numpy as np, sparray
    >>> A = sparray.asarray(np.array([[1.0, 0.0], [1.0, 1.0]]), layout="csr")
    >>> is_iso(A), is_iso(structure(A)), is_iso(structure(A) * 2)       # computed values are ordinary
    (False, True, False)
    """
    if not isinstance(A, SparseArray):
        raise TypeError(f"sparray.graph.is_iso: expected a sparse array; got {type(A).__name__}")
    return is_iso_array(A)


def structure(A, value=True, *, dtype=None):
    """The pattern of ``A`` with ``value`` at every stored element, kept once (an iso array).

    Invariants of the result ``S``: A's layout, shape and stored positions (an uncoalesced COO is
    coalesced first: a position once); every stored element equals ``value`` (cast to ``dtype``,
    default: the dtype of ``xp.asarray(value)``, so bool for the default True); the fill is
    undefined, as in every ``sparray.graph`` result; ``is_iso(S)`` when it has two entries or more.
    A's values and fill are not read. GraphBLAS's ``A.S`` / ``apply(one)`` made lasting.

    Raises TypeError for a non-sparse ``A`` or a ``value`` that is not a scalar.

    >>> import numpy as np, sparray
    >>> A = sparray.asarray(np.array([[0.0, 5.0], [7.0, 0.0]]), layout="coo")
    >>> S = structure(A, 1.0)
    >>> S.layout, S.dtype, S.to_dense(fill_value=0.0).tolist()
    ('coo', dtype('float64'), [[0.0, 1.0], [1.0, 0.0]])
    """
    if not isinstance(A, SparseArray):
        raise TypeError(f"sparray.graph.structure: expected a sparse array; got {type(A).__name__}")
    if isinstance(value, SparseArray) or (is_array(value) and value.ndim != 0) or not (is_array(value) or isinstance(
            value, (bool, int, float, complex))):
        raise TypeError(f"sparray.graph.structure: value must be a scalar; got {type(value).__name__}")
    xp = A._xp
    if A.layout == "2:4":
        A = A.as_hub()
    one = xp.asarray(value, dtype=dtype, device=A.device)
    B = A._replace_values(A._values, xp.zeros((), dtype=A.dtype))
    if B.layout == "coo" and not B._coalesced:
        B = B.coalesce()
    values = iso_values(xp, xp.reshape(one, (1,)), tuple(B._values.shape))
    return B._replace_values(values, undefined_fill(xp, values.dtype))
