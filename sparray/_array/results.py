"""Which namespace a result belongs to: sparray arrays in, sparray arrays out.

Array-API code that only uses ``xp = array_namespace(A)`` (sparray for a sparse ``A``) must never
meet an array of a second namespace: ``xp.ones(...)`` gives a sparray array, so a ``unique_values``
that answered a NumPy array would leave the code holding both (``array_api_extra.setdiff1d``
indexed such a NumPy array with a sparse mask and failed). The rule:

- A public function called with sparray arrays (and anything that is not an array: Python
  scalars, dtypes, axes) returns sparray arrays, also where the result is dense by nature: a
  reduction to 0-d, ``argmax``'s indices, ``unique_*``'s values and counts, ``nonzero``'s index
  arrays, ``searchsorted``, a dense factorization's factors, a product with a non-zero fill.
- Such a result holds its dense values as they are: a COO with no sparse dims and one specified
  element, the whole dense array (``sparse_ndim == 0``, ``values[0]`` is the dense result, no
  index per element, no copy), fill 0, components in the input's namespace (NumPy, CuPy...).
  Every operation takes it like any hybrid array; ``r.to_dense()`` is the dense array back and
  ``r.to_layout("csr", dense_ndim=0)`` makes it truly sparse.
- Given a dense array of another namespace among its arguments (``sparray.matmul(A, x)`` with a
  NumPy ``x``, or any function on NumPy input alone), a function answers as before: a
  dense-by-nature result is an array of that namespace, as scipy.sparse answers ``A @ x``.

``np.asarray(r)`` gives the held dense values (a view; the conversion rule, ``implicit.py``) and
``float(r)``, ``int(r)`` and ``bool(r)`` of a 0-d result work; ``A[i, j]`` (every index an int) is
such a 0-d result too (``_functions/indexing.py``). NumPy's own functions on sparse arrays
(``np.sum(A)``) keep answering NumPy arrays (``_numpy_protocols``), and internal callers import
the functions from their modules, unwrapped, and keep dense results in the components' namespace.

>>> import numpy as np, sparray
>>> A = sparray.asarray(np.array([0.0, 2.0, 0.0, 5.0]))
>>> u = sparray.unique_values(A)
>>> type(u).__name__, u.sparse_ndim, u.to_dense().tolist()
('COO', 0, [0.0, 2.0, 5.0])
>>> float(sparray.sum(A))
7.0
>>> type(sparray.unique_values(np.array([1, 1, 2]))).__name__  # NumPy in: NumPy out
'ndarray'
"""

from __future__ import annotations

import functools

import array_api_compat
import numpy as np

from .base import SparseArray
from .._core.namespace import _numpy_namespace, is_array, namespace_of


def _only_sparray_arrays(args, kwargs) -> bool:
    """Whether at least one argument is a sparray array and none is an array of another namespace
    (sequences of arrays, as ``concat`` takes, are looked into one level)."""
    seen = False
    for a in (*args, *kwargs.values()) if kwargs else args:
        if isinstance(a, SparseArray):
            seen = True
        elif type(a) is np.ndarray:  # the common foreign array, before the general test
            return False
        elif isinstance(a, (list, tuple)):
            for x in a:
                if isinstance(x, SparseArray):
                    seen = True
                elif _is_dense_array(x):
                    return False
        elif _is_dense_array(a):
            return False
    return seen


def _is_dense_array(x) -> bool:
    if isinstance(x, (bool, int, float, complex, str, type, np.dtype, type(None))):
        return False  # a dtype given as a class (np.float64 has __array_namespace__) is no array
    return not isinstance(x, SparseArray) and (isinstance(x, np.generic) or is_array(x))


def as_sparray_result(out):
    """``out`` with every dense array in it (also inside a tuple, a named tuple or a list) made a
    sparray array holding its dense values (``holding_dense``); sparray arrays and non-arrays stay
    as they are."""
    if isinstance(out, SparseArray):
        return out
    if isinstance(out, tuple):
        items = [as_sparray_result(o) for o in out]
        return type(out)(*items) if hasattr(out, "_fields") else tuple(items)
    if isinstance(out, list):
        return [as_sparray_result(o) for o in out]
    if isinstance(out, np.generic):
        out = np.asarray(out)
    return holding_dense(out) if is_array(out) else out


def holding_dense(dense):
    """A COO holding the dense array ``dense`` as its one specified element: no sparse dims, every
    dim dense, fill 0 of its dtype, ``values[0]`` a view of ``dense`` (nothing copied).

    >>> import numpy as np
    >>> r = holding_dense(np.array([[1.0, 2.0], [3.0, 4.0]]))
    >>> r.shape, r.sparse_ndim, r.nse, r.to_dense().tolist()
    ((2, 2), 0, 1, [[1.0, 2.0], [3.0, 4.0]])
    """
    from .coo import COO

    if type(dense) is np.ndarray:  # the common case, without the namespace lookups (~20 us)
        xp = _numpy_namespace()
        indices = np.zeros((0, 1), dtype=np.int32)
        fill = np.zeros((), dtype=dense.dtype)
        return COO._from_parts(xp, indices, dense[None], dense.shape, fill, coalesced=True)
    xp = namespace_of(dense)
    device = array_api_compat.device(dense)
    indices = xp.zeros((0, 1), dtype=xp.int32, device=device)
    fill = xp.zeros((), dtype=dense.dtype, device=device)
    return COO._from_parts(xp, indices, xp.expand_dims(dense, axis=0), tuple(dense.shape), fill, coalesced=True)


def sparray_results(func):
    """Wrap a public function so that, called with sparray arrays only, it returns sparray arrays
    (see the module docstring); the wrapper costs one look at the arguments. One wrapper per
    function: ``sparray.matmul is sparray.linalg.matmul``, wrapped by both namespaces."""
    wrapper = _WRAPPERS.get(func)
    if wrapper is not None:
        return wrapper

    @functools.wraps(func)
    def wrapper(*args, **kwargs):
        out = func(*args, **kwargs)
        if isinstance(out, SparseArray) or not _only_sparray_arrays(args, kwargs):
            return out
        return as_sparray_result(out)

    wrapper.__wrapped_for_results__ = True
    _WRAPPERS[func] = wrapper
    return wrapper


_WRAPPERS: dict = {}  # function -> its wrapper (sparray_results)


def plain(f):
    """``f`` without :func:`sparray_results`' wrapper (anything else as it is): NumPy's functions on
    sparse arrays (``_numpy_protocols``) answer NumPy's way, dense results in the components'
    namespace."""
    return f.__wrapped__ if getattr(f, "__wrapped_for_results__", False) else f
