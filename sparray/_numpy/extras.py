"""NumPy functions answered by sparray's 2024.12 functions and its ``linalg`` and ``fft`` extensions.

The second half of ``sparray._numpy.protocols`` (same rules: NumPy's arguments in, sparray's
function of the same meaning called, arguments sparray cannot honour a TypeError naming them):
searching, sorting, sets, running sums and differences, tiling and triangles, ``np.linalg`` and
``np.fft``. Where NumPy and the array API differ, the adapter follows NumPy:

- ``axis=None`` flattens first (``np.cumsum``, ``np.sort``, ``np.argmax``, ``np.take_along_axis``);
- ``np.unique`` counts every nan as one value (``equal_nan=True``, NumPy's default), where the
  array API's ``unique_*`` (and NumPy's ``np.unique_values`` ...) keep each nan apart;
- ``np.trace`` and ``np.diagonal`` take ``axis1=0, axis2=1``; ``np.outer`` flattens its inputs;
- ``np.linalg.norm`` is ``vector_norm`` or ``matrix_norm`` by NumPy's rules;
- ``np.fft``'s ``norm=None`` is "backward".

>>> import numpy as np, sparray
>>> A = sparray.asarray(np.array([[0.0, 3.0], [1.0, 0.0]]))
>>> int(np.argmax(A)), np.cumsum(A, axis=0).tolist(), np.unique(A).tolist()
(1, [[0.0, 3.0], [1.0, 3.0]], [0.0, 1.0, 3.0])
"""

from __future__ import annotations

import operator
import types

import numpy as np

from .._array.base import SparseArray
from .protocols import _UNSET, _check_defaults, _no_out, _reshape, implements
from .._array.results import plain

__all__: list[str] = []


class _Plain:
    """A namespace's functions without the namespace rule's wrapper (``sparray._array.results``): NumPy's
    functions on sparse arrays answer NumPy's way, a dense-by-nature result an array of the
    components' namespace. ``_Plain(sparray).linalg.det`` is ``sparray.linalg.det`` unwrapped."""

    def __init__(self, module):
        self._module = module

    def __getattr__(self, name):
        f = getattr(self._module, name)
        if isinstance(f, types.ModuleType):  # sparray.linalg, sparray.fft
            return _Plain(f)
        return plain(f)


def _ns():
    import sparray

    return _Plain(sparray)


def _flat(a):
    return _reshape(a, (-1,)) if isinstance(a, SparseArray) else np.reshape(a, (-1,))


# --- searching and sorting -------------------------------------------------------------------------------
def _arg_extreme(name):
    def adapter(a, axis=None, out=None, *, keepdims=False):
        _no_out(f"numpy.{name}", out)
        return getattr(_ns(), name)(a, axis=axis, keepdims=bool(keepdims))

    return adapter


implements(np.argmax)(_arg_extreme("argmax"))
implements(np.argmin)(_arg_extreme("argmin"))


@implements(np.count_nonzero)
def _count_nonzero(a, axis=None, *, keepdims=False):
    return _ns().count_nonzero(a, axis=axis, keepdims=bool(keepdims))


@implements(np.searchsorted)
def _searchsorted(a, v, side="left", sorter=None):
    scalar = np.ndim(v) == 0 and not isinstance(v, SparseArray)
    out = _ns().searchsorted(a, np.asarray([v]) if scalar else v, side=side, sorter=sorter)
    return out[0] if scalar else out


def _sorting(name):
    def adapter(a, axis=-1, kind=None, order=None, *, stable=None):
        if order is not None:
            raise TypeError(f"numpy.{name}: order= (structured arrays) is not supported for sparray arrays")
        if axis is None:
            a, axis = _flat(a), 0
        return getattr(_ns(), name)(a, axis=axis, stable=True)  # a stable order is a valid answer for any kind

    return adapter


implements(np.sort)(_sorting("sort"))
implements(np.argsort)(_sorting("argsort"))


@implements(np.unique)
def _unique(ar, return_index=False, return_inverse=False, return_counts=False, axis=None, *, equal_nan=True,
            sorted=True):  # noqa: A002  (NumPy's argument name)
    """``np.unique`` through ``unique_all``; with ``equal_nan`` (NumPy's default) every nan is one value."""
    if axis is not None:
        raise TypeError("numpy.unique: axis= is not supported for sparray arrays (unique elements only)")
    sp = _ns()
    if not (return_index or return_inverse or return_counts):
        values = sp.unique_values(ar)
        if equal_nan and isinstance(values, np.ndarray) and np.issubdtype(values.dtype, np.inexact):
            nan = np.isnan(values)  # sorted last
            values = values[: values.shape[0] - max(int(nan.sum()) - 1, 0)]
        return values
    res = sp.unique_all(ar)
    values, indices, inverse, counts = _collapse_nans(res) if equal_nan else tuple(res)
    out = [values]
    if return_index:
        out.append(indices)
    if return_inverse:
        out.append(inverse)
    if return_counts:
        out.append(counts)
    return tuple(out)


def _collapse_nans(res):
    """(values, indices, inverse, counts) of ``unique_all`` with its nans (sorted last) made one."""
    values, indices, inverse, counts = res.values, res.indices, res.inverse_indices, res.counts
    xp = np if isinstance(values, np.ndarray) else None
    if xp is None or not np.issubdtype(values.dtype, np.inexact):
        return values, indices, inverse, counts
    nan = np.isnan(values)
    k = int(np.argmax(nan)) if nan.any() else values.shape[0]
    if nan.sum() <= 1:
        return values, indices, inverse, counts
    values = values[: k + 1]
    counts = np.concatenate([counts[:k], [counts[k:].sum()]])
    indices = np.concatenate([indices[:k], [indices[k:].min()]])
    inverse = _ns().minimum(inverse, k) if isinstance(inverse, SparseArray) else np.minimum(inverse, k)
    return values, indices, inverse, counts


for _name in ("unique_values", "unique_counts", "unique_inverse", "unique_all"):  # NumPy 2's array-API versions
    if hasattr(np, _name):
        implements(getattr(np, _name))(lambda x, _n=_name: getattr(_ns(), _n)(x))


# --- running sums, differences, tiling, triangles, taking ----------------------------------------------
def _running(name, new_name):
    def old(a, axis=None, dtype=None, out=None):
        _no_out(f"numpy.{name}", out)
        if axis is None:
            a, axis = _flat(a), 0
        return getattr(_ns(), new_name)(a, axis=axis, dtype=dtype)

    def new(x, /, *, axis=None, dtype=None, out=None, include_initial=False):
        _no_out(f"numpy.{new_name}", out)
        return getattr(_ns(), new_name)(x, axis=axis, dtype=dtype, include_initial=include_initial)

    implements(getattr(np, name))(old)
    implements(getattr(np, new_name, None))(new)


_running("cumsum", "cumulative_sum")
_running("cumprod", "cumulative_prod")


@implements(np.diff)
def _diff(a, n=1, axis=-1, prepend=_UNSET, append=_UNSET):
    kw = {k: v for k, v in (("prepend", prepend), ("append", append)) if v is not _UNSET}
    return _ns().diff(a, axis=axis, n=n, **kw)


@implements(np.tril)
def _tril(m, k=0):
    return _ns().tril(m, k=k)


@implements(np.triu)
def _triu(m, k=0):
    return _ns().triu(m, k=k)


@implements(np.repeat)
def _repeat(a, repeats, axis=None):
    return _ns().repeat(a, repeats, axis=axis)


@implements(np.roll)
def _roll(a, shift, axis=None):
    return _ns().roll(a, shift, axis=axis)


@implements(np.tile)
def _tile(A, reps):
    return _ns().tile(A, tuple(reps) if isinstance(reps, (list, tuple)) else (operator.index(reps),))


@implements(getattr(np, "unstack", None))
def _unstack(x, /, *, axis=0):
    return _ns().unstack(x, axis=axis)


@implements(np.take_along_axis)
def _take_along_axis(arr, indices, axis=-1):
    if axis is None:
        arr, indices, axis = _flat(arr), _flat(indices), 0
    return _ns().take_along_axis(arr, indices, axis=axis)


@implements(np.broadcast_arrays)
def _broadcast_arrays(*args, subok=False):
    return tuple(_ns().broadcast_arrays(*args))


@implements(np.meshgrid)
def _meshgrid(*xi, copy=True, sparse=False, indexing="xy"):
    if sparse:
        raise TypeError("numpy.meshgrid: sparse=True (broadcastable grids) is not supported for sparray arrays")
    return tuple(_ns().meshgrid(*xi, indexing=indexing))


# --- products and diagonals with NumPy's axes ------------------------------------------------------------
def _axes_last(a, axis1, axis2):
    """``a`` with its dims ``axis1`` and ``axis2`` moved last, in that order (NumPy's trace/diagonal)."""
    n = a.ndim
    axis1, axis2 = operator.index(axis1) % n, operator.index(axis2) % n
    perm = [d for d in range(n) if d not in (axis1, axis2)] + [axis1, axis2]
    return a if perm == list(range(n)) else _ns().permute_dims(a, tuple(perm))


@implements(np.outer)
def _outer(a, b, out=None):
    _no_out("numpy.outer", out)
    return _ns().linalg.outer(_flat(a), _flat(b))


@implements(np.trace)
def _trace(a, offset=0, axis1=0, axis2=1, dtype=None, out=None):
    _no_out("numpy.trace", out)
    return _ns().linalg.trace(_axes_last(a, axis1, axis2), offset=offset, dtype=dtype)


@implements(np.diagonal)
def _diagonal(a, offset=0, axis1=0, axis2=1):
    return _ns().linalg.diagonal(_axes_last(a, axis1, axis2), offset=offset)


# --- np.linalg ------------------------------------------------------------------------------------------
# functions whose NumPy arguments are the array API's: passed on as they are
for _name in ("cholesky", "det", "slogdet", "inv", "solve", "matrix_power", "qr", "svdvals", "outer", "cross",
              "matrix_norm", "vector_norm", "matmul", "tensordot", "vecdot", "matrix_transpose", "diagonal", "trace"):
    if hasattr(np.linalg, _name):
        implements(getattr(np.linalg, _name))(lambda *a, _n=_name, **k: getattr(_ns().linalg, _n)(*a, **k))


@implements(np.linalg.eigh)
def _eigh(a, UPLO="L"):  # noqa: N803  (NumPy's argument name)
    _check_defaults("numpy.linalg.eigh", {"UPLO": UPLO}, UPLO=("L",))
    return _ns().linalg.eigh(a)


@implements(np.linalg.eigvalsh)
def _eigvalsh(a, UPLO="L"):  # noqa: N803
    _check_defaults("numpy.linalg.eigvalsh", {"UPLO": UPLO}, UPLO=("L",))
    return _ns().linalg.eigvalsh(a)


@implements(np.linalg.svd)
def _svd(a, full_matrices=True, compute_uv=True, hermitian=False):
    _check_defaults("numpy.linalg.svd", {"hermitian": hermitian}, hermitian=(False,))
    if not compute_uv:
        return _ns().linalg.svdvals(a)
    return _ns().linalg.svd(a, full_matrices=full_matrices)


@implements(np.linalg.pinv)
def _pinv(a, rcond=None, hermitian=False, *, rtol=_UNSET):
    _check_defaults("numpy.linalg.pinv", {"hermitian": hermitian}, hermitian=(False,))
    tol = rtol if rtol is not _UNSET else rcond
    return _ns().linalg.pinv(a, rtol=tol)


@implements(np.linalg.matrix_rank)
def _matrix_rank(A, tol=None, hermitian=False, *, rtol=None):  # noqa: N803
    _check_defaults("numpy.linalg.matrix_rank", {"hermitian": hermitian}, hermitian=(False,))
    if tol is not None:
        raise TypeError("numpy.linalg.matrix_rank: tol= (an absolute tolerance) is not supported for sparray arrays; use rtol=")
    return _ns().linalg.matrix_rank(A, rtol=rtol)


@implements(np.linalg.norm)
def _norm(x, ord=None, axis=None, keepdims=False):  # noqa: A002
    """NumPy's rules: no axis is the 2-norm of the flattened array (a matrix norm when ``ord`` is
    given for a 2-d array); an int axis a vector norm; two axes a matrix norm over them."""
    la = _ns().linalg
    if axis is None:
        if ord is not None and x.ndim == 2:
            return la.matrix_norm(x, ord=ord, keepdims=bool(keepdims))
        if ord is not None and x.ndim != 1:
            raise ValueError(f"numpy.linalg.norm: ord={ord!r} needs a 1-d or 2-d array without axis; got ndim {x.ndim}")
        return la.vector_norm(x, axis=None, ord=2 if ord is None else ord, keepdims=bool(keepdims))
    if isinstance(axis, (tuple, list)) and len(axis) == 2:
        if keepdims:
            raise TypeError("numpy.linalg.norm: keepdims=True with two axes is not supported for sparray arrays")
        return la.matrix_norm(_axes_last(x, *axis), ord="fro" if ord is None else ord)
    axis = axis[0] if isinstance(axis, (tuple, list)) else axis
    return la.vector_norm(x, axis=axis, ord=2 if ord is None else ord, keepdims=bool(keepdims))


# --- np.fft ---------------------------------------------------------------------------------------------
def _fft_1d(name):
    def adapter(a, n=None, axis=-1, norm=None, out=None):
        _no_out(f"numpy.fft.{name}", out)
        return getattr(_ns().fft, name)(a, n=n, axis=axis, norm="backward" if norm is None else norm)

    return adapter


def _fft_nd(name):
    def adapter(a, s=None, axes=None, norm=None, out=None):
        _no_out(f"numpy.fft.{name}", out)
        return getattr(_ns().fft, name)(a, s=s, axes=axes, norm="backward" if norm is None else norm)

    return adapter


for _name in ("fft", "ifft", "rfft", "irfft", "hfft", "ihfft"):
    implements(getattr(np.fft, _name))(_fft_1d(_name))
for _name in ("fftn", "ifftn", "rfftn", "irfftn"):
    implements(getattr(np.fft, _name))(_fft_nd(_name))
for _name in ("fftshift", "ifftshift"):
    implements(getattr(np.fft, _name))(lambda x, axes=None, _n=_name: getattr(_ns().fft, _n)(x, axes=axes))
