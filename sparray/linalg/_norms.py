"""``vector_norm`` and ``matrix_norm`` as reductions of ``|x|``, the unspecified elements counted
through the fill value (``sparray.sum`` / ``max`` / ``min`` add ``f(fill) * count`` exactly).

vector_norm over ``axis`` (None, an int or a tuple), ``keepdims``, and ``ord``:

====================  ==============================================
``ord``               computed as (``a = |x|`` in a real float dtype)
====================  ==============================================
2 (default)           ``sqrt(sum(real(conj(x) * x)))``
1                     ``sum(a)``
inf / -inf            ``max(a)`` (0 over no element) / ``min(a)``
0                     ``sum(x != 0)`` (nan counts as non-zero)
any other p           ``sum(a ** p) ** (1 / p)``
====================  ==============================================

matrix_norm over the last two dims: "fro" is the 2-norm of all the entries; 1 / -1 are the max /
min over columns of the column sums of ``a``; inf / -inf the max / min over rows of the row sums;
"nuc", 2 and -2 need the singular values and go through the dense form (``svdvals``: the
densify warning applies). These are the formulas of NumPy's norms, so the results agree with
``numpy.linalg`` on the dense array up to rounding, nan and inf included.

Results have the real floating dtype of the input's precision (the default float for integer
and bool input). A norm over every sparse dim is a dense array; over some of them, a sparse
array over the kept dims whose fill is the norm of a slice holding only the fill (what the
reductions return). Dense input goes to the namespace's ``linalg``.

>>> import sparray, numpy as np
>>> A = sparray.asarray(np.array([[3.0, 0.0], [0.0, -4.0]]), layout="csr")
>>> float(sparray.linalg.vector_norm(A)), float(sparray.linalg.matrix_norm(A, ord=1))
(5.0, 4.0)
"""

from __future__ import annotations

import math

from .._functions import elementwise as ew
from .._functions import reductions as red
from .._array.base import SparseArray
from .._core.validation import normalize_axes
from ._checks import array_namespace, check_matrices, real_float_dtype

__all__ = ["matrix_norm", "vector_norm"]

_MATRIX_ORDS = ("fro", "nuc", 1, -1, 2, -2, math.inf, -math.inf)


def _is_number(ord) -> bool:
    return isinstance(ord, (int, float)) and not isinstance(ord, bool)


def _real_float(x):
    """``x`` (sparse) in the real floating dtype of its norms (complex values stay complex here)."""
    xp = x._xp
    if xp.isdtype(x.dtype, ("real floating", "complex floating")):
        return x
    return x.astype(real_float_dtype(xp, x.dtype))


def vector_norm(x, /, *, axis=None, keepdims=False, ord=2):
    """Vector norm of ``x`` over ``axis`` (see the module docstring for each ``ord``)."""
    who = "sparray.linalg.vector_norm"
    xp = array_namespace(who, x)
    if not _is_number(ord) or math.isnan(ord):
        raise ValueError(f"{who}: ord must be an int or a float (inf and -inf allowed); got {ord!r}")
    if not isinstance(x, SparseArray):
        return xp.linalg.vector_norm(x, axis=axis, keepdims=keepdims, ord=ord)
    axes = normalize_axes(axis, x.ndim, who)
    out = _vector_norm(_real_float(x), axes, bool(keepdims), ord)
    return out.to_dense() if isinstance(out, SparseArray) and out.ndim == 0 else out  # a 0-d x: a 0-d array


def _vector_norm(x, axes, keepdims, ord):
    """The norm of the (float or complex) sparse ``x`` over the normalized ``axes``."""
    kw = {"axis": axes, "keepdims": keepdims}
    if ord == 2:
        sq = ew.real(ew.multiply(ew.conj(x), x)) if x._xp.isdtype(x.dtype, "complex floating") else ew.multiply(x, x)
        return ew.sqrt(red.sum(sq, **kw))
    if ord == 0:
        nonzero = ew.not_equal(x, 0)
        return red.sum(nonzero.astype(real_float_dtype(x._xp, x.dtype)), **kw)
    a = ew.abs(x)
    if ord == math.inf:
        if math.prod(x.shape[d] for d in axes) == 0:
            return red.sum(a, **kw)  # NumPy's max(initial=0): 0 over no element
        return red.max(a, **kw)
    if ord == -math.inf:
        return red.min(a, **kw)
    if ord == 1:
        return red.sum(a, **kw)
    return ew.pow(red.sum(ew.pow(a, float(ord)), **kw), 1.0 / ord)


def matrix_norm(x, /, *, keepdims=False, ord="fro"):
    """Matrix norm of each matrix of ``x`` ``(..., M, N)`` (see the module docstring for each ``ord``)."""
    who = "sparray.linalg.matrix_norm"
    xp = array_namespace(who, x)
    if not (isinstance(ord, str) or _is_number(ord)) or ord not in _MATRIX_ORDS:
        raise ValueError(f"{who}: ord must be one of 'fro', 'nuc', 1, -1, 2, -2, inf, -inf; got {ord!r}")
    check_matrices(who, x)
    if not isinstance(x, SparseArray):
        return xp.linalg.matrix_norm(x, keepdims=keepdims, ord=ord)
    keepdims = bool(keepdims)
    if ord in ("nuc", 2, -2):
        from ._dense_fallback import densify

        return xp.linalg.matrix_norm(densify(who, x), keepdims=keepdims, ord=ord)
    x = _real_float(x)
    nd = x.ndim
    if ord == "fro":
        return _vector_norm(x, (nd - 2, nd - 1), keepdims, 2)
    # 1 / -1: sums down each column (over rows), then over the columns; inf / -inf: the other way
    summed, across = (nd - 2, nd - 1) if ord in (1, -1) else (nd - 1, nd - 2)
    sums = red.sum(ew.abs(x), axis=summed, keepdims=keepdims)
    if not keepdims and across > summed:
        across -= 1
    if ord in (1, math.inf) and x.shape[nd - 1 if ord == 1 else nd - 2] == 0:
        return red.sum(sums, axis=across, keepdims=keepdims)  # NumPy's max(initial=0): 0 over no element
    return (red.max if ord in (1, math.inf) else red.min)(sums, axis=across, keepdims=keepdims)
