"""Creation functions: asarray, zeros, ones, full, empty, eye, the *_like forms, arange, linspace, random.

Fill values follow the RFC's table (point 3): ``zeros`` -> 0, ``ones`` -> 1, ``full(shape, v)`` -> v,
``eye`` -> 0, ``empty`` -> 0 (sparray never hands out uninitialised memory). Each takes the
keyword-only extras ``layout=``, ``fill_value=``, ``sparse_ndim=``, ``blocksize=``. When
``fill_value`` differs from the value the function creates, every element is specified (the
array stays exact: ``zeros((2, 2), fill_value=1)`` is four specified zeros).

New arrays live in NumPy (``device=None`` or ``"cpu"``) or CuPy (``device="cuda"``); the
``*_like`` forms and ``asarray`` of an array use its namespace.

>>> import sparray
>>> F = sparray.full((3, 4), 2.5)
>>> F.nse, float(F.fill_value)
(0, 2.5)
"""

from __future__ import annotations

import operator

import math

from .._array.base import SparseArray
from .._layout.conversion import astype, from_dense
from .._core.dtypes import dtype_name, resolve_dtype
from .._core.fill import is_undefined, normalize_fill, same_value
from .._core.namespace import is_array, namespace_for_device, namespace_of
from .._core.validation import normalize_shape

__all__ = [
    "asarray", "zeros", "ones", "full", "empty", "eye", "zeros_like", "ones_like", "full_like",
    "empty_like", "arange", "linspace", "random",
]  # fmt: skip


_COMPRESSED = ("csr", "csc", "bsr", "bsc")


def _finish_layout(A, layout, blocksize, who=None):
    if layout is None or layout == "coo":
        if blocksize is not None:
            raise ValueError("blocksize is only meaningful for layout 'bsr' or 'bsc'")
        return A
    if who is not None and layout in _COMPRESSED and A.ndim - A.dense_ndim < 2:
        way = "pass sparse_ndim >= 2 or layout='coo'" if A.ndim >= 2 else "use layout='coo'"
        raise ValueError(
            f"{who}: layout={layout!r} needs at least 2 sparse dims, but the result of shape {A.shape} "
            f"has {A.ndim - A.dense_ndim}; {way}"
        )
    return A.to_layout(layout, blocksize=blocksize)


def _sparse_ndim(shape, sparse_ndim, who):
    if sparse_ndim is None:
        return len(shape)
    if not 0 <= sparse_ndim <= len(shape):
        raise ValueError(f"{who}: sparse_ndim must be in [0, {len(shape)}] for shape {shape}; got {sparse_ndim}")
    return sparse_ndim


def _constant(who, shape, value, dtype, device, layout, fill_value, sparse_ndim, blocksize, xp=None):
    """Every element equals ``value``; unspecified where ``value`` equals the fill (an undefined
    fill: every element stored)."""
    from .._array.coo import COO

    shape = normalize_shape(shape, who)
    xp = xp or namespace_for_device(device)
    dt = resolve_dtype(xp, dtype) if dtype is not None else xp.asarray(value).dtype
    s = _sparse_ndim(shape, sparse_ndim, who)
    dense_shape = shape[s:]
    fill = normalize_fill(xp, value if fill_value is None else fill_value, dt, dense_shape, who)
    val = xp.asarray(value, dtype=dt)
    if not is_undefined(fill, dense_shape) and bool(xp.all(same_value(xp, xp.broadcast_to(fill, dense_shape) if dense_shape else fill, val))):
        A = COO._from_parts(xp, xp.zeros((s, 0), dtype=xp.int32), xp.zeros((0, *dense_shape), dtype=dt), shape, fill, coalesced=True)
    else:
        A = from_dense(xp.broadcast_to(xp.asarray(val), shape), sparse_ndim=s, fill_value=fill)
    return _finish_layout(A, layout, blocksize, who)


def zeros(shape, *, dtype=None, device=None, layout="coo", fill_value=None, sparse_ndim=None, blocksize=None):
    """All-zero sparse array (nse 0, fill 0)."""
    dtype = dtype if dtype is not None else "float64"
    return _constant("zeros", shape, 0, dtype, device, layout, fill_value, sparse_ndim, blocksize)


def ones(shape, *, dtype=None, device=None, layout="coo", fill_value=None, sparse_ndim=None, blocksize=None):
    """All-one sparse array (nse 0, fill 1)."""
    dtype = dtype if dtype is not None else "float64"
    return _constant("ones", shape, 1, dtype, device, layout, fill_value, sparse_ndim, blocksize)


def empty(shape, *, dtype=None, device=None, layout="coo", fill_value=None, sparse_ndim=None, blocksize=None):
    """Like ``zeros``: sparray never returns uninitialised memory (nse 0, fill 0). With
    ``fill_value=sparray.undefined``: no entries at all (an empty graph, GraphBLAS's new Matrix),
    where ``zeros`` and ``ones`` store every element."""
    if fill_value is not None:
        xp = namespace_for_device(device)
        dt = resolve_dtype(xp, dtype if dtype is not None else "float64")
        shape = normalize_shape(shape, "empty")
        s = _sparse_ndim(shape, sparse_ndim, "empty")
        fill = normalize_fill(xp, fill_value, dt, shape[s:], "empty")
        if is_undefined(fill, shape[s:]):
            from .._array.coo import COO

            A = COO._from_parts(xp, xp.zeros((s, 0), dtype=xp.int32), xp.zeros((0, *shape[s:]), dtype=dt), shape, fill,
                                coalesced=True)
            return _finish_layout(A, layout, blocksize, "empty")
    return zeros(shape, dtype=dtype, device=device, layout=layout, fill_value=fill_value, sparse_ndim=sparse_ndim, blocksize=blocksize)


def _array_fill_split(who, shape, value, sparse_ndim):
    """``sparse_ndim`` for a fill of ``value``'s shape: a k-d fill makes the last k dims dense.

    A 0-d fill leaves ``sparse_ndim`` as given. A k-d fill (k > 0) is a dense-part fill (RFC
    point 5): by default the last k dims of ``shape`` are the dense part; a given
    ``sparse_ndim`` must leave at least k dense dims for the fill to broadcast over.
    """
    k = len(getattr(value, "shape", ()))
    shape = normalize_shape(shape, who)
    if k == 0:
        return sparse_ndim
    if k > len(shape):
        raise ValueError(f"{who}: fill_value of shape {tuple(value.shape)} has more dims than shape {shape}")
    if sparse_ndim is None:
        return len(shape) - k
    if len(shape) - sparse_ndim < k:
        raise ValueError(
            f"{who}: a fill_value of shape {tuple(value.shape)} needs at least {k} dense dims; "
            f"sparse_ndim={sparse_ndim} leaves {len(shape) - sparse_ndim} of shape {shape}"
        )
    return sparse_ndim


def full(shape, fill_value, *, dtype=None, device=None, layout="coo", sparse_ndim=None, blocksize=None):
    """Every element equals ``fill_value``: nse 0 and that fill (RFC point 3).

    ``fill_value`` may be an array (or nested list) shaped like, or broadcastable to, the dense
    part: ``full((3, 2), [1.0, 2.0])`` is a COO with one sparse dim, one dense dim and that fill,
    as ``np.full`` would broadcast it.
    """
    xp = namespace_of(fill_value) if is_array(fill_value) else namespace_for_device(device)
    value = fill_value if is_array(fill_value) else xp.asarray(fill_value)
    if dtype is None:
        dtype = value.dtype
    sparse_ndim = _array_fill_split("full", shape, value, sparse_ndim)
    return _constant("full", shape, value, dtype, device, layout, None, sparse_ndim, blocksize, xp=xp)


def _like(x, dtype, device, layout, blocksize):
    """(namespace, shape, dtype, layout, non-dense ndim, blocksize) of a ``*_like`` result: ``x``'s unless given.

    ``x``'s split into sparse and dense dims carries over, except where the layout asked for cannot
    hold it: a compressed layout needs two sparse dims, so a hybrid COO with one sparse dim gives a
    CSR/CSC/BSR/BSC whose first two dims are sparse (the rest stay dense)."""
    if isinstance(x, SparseArray):
        xp = x._xp
        sparse_ndim = x.ndim - x.dense_ndim  # batch dims count: they are indexed, not dense
        if layout is not None and layout in _COMPRESSED and sparse_ndim < 2 <= x.ndim:
            sparse_ndim = 2
        layout = x.layout if layout is None else layout
        if blocksize is None and layout in ("bsr", "bsc") and getattr(x, "_blocked", False):
            blocksize = x.blocksize
    else:
        xp = namespace_of(x)
        layout = "coo" if layout is None else layout
        sparse_ndim = None
    dt = x.dtype if dtype is None else resolve_dtype(xp, dtype)
    if device is not None:
        xp = namespace_for_device(device)
    return xp, tuple(x.shape), dt, layout, sparse_ndim, blocksize


def zeros_like(x, /, *, dtype=None, device=None, layout=None, fill_value=None, sparse_ndim=None, blocksize=None):
    xp, shape, dt, layout, s, blocksize = _like(x, dtype, device, layout, blocksize)
    return _constant("zeros_like", shape, 0, dt, None, layout, fill_value, sparse_ndim if sparse_ndim is not None else s, blocksize, xp=xp)


def ones_like(x, /, *, dtype=None, device=None, layout=None, fill_value=None, sparse_ndim=None, blocksize=None):
    xp, shape, dt, layout, s, blocksize = _like(x, dtype, device, layout, blocksize)
    return _constant("ones_like", shape, 1, dt, None, layout, fill_value, sparse_ndim if sparse_ndim is not None else s, blocksize, xp=xp)


def empty_like(x, /, *, dtype=None, device=None, layout=None, fill_value=None, sparse_ndim=None, blocksize=None):
    return zeros_like(x, dtype=dtype, device=device, layout=layout, fill_value=fill_value, sparse_ndim=sparse_ndim, blocksize=blocksize)


def full_like(x, /, fill_value, *, dtype=None, device=None, layout=None, sparse_ndim=None, blocksize=None):
    """``full(x.shape, fill_value)`` in ``x``'s layout and split; an array fill sets the dense part."""
    xp, shape, dt, layout, s, blocksize = _like(x, dtype, device, layout, blocksize)
    value = fill_value if is_array(fill_value) else xp.asarray(fill_value)
    if value.ndim and sparse_ndim is None and len(shape) - s < value.ndim:
        s = None  # x's dense part is too small for this fill: its dims decide
    sparse_ndim = _array_fill_split("full_like", shape, value, sparse_ndim if sparse_ndim is not None else s)
    return _constant("full_like", shape, value, dt, None, layout, None, sparse_ndim, blocksize, xp=xp)


def eye(n_rows, n_cols=None, /, *, k=0, dtype=None, device=None, layout="coo", fill_value=None, blocksize=None):
    """Ones on the ``k``-th diagonal (specified), fill 0."""
    from .._array.coo import COO

    n_cols = n_rows if n_cols is None else n_cols
    shape = normalize_shape((n_rows, n_cols), "eye")
    n_rows, n_cols = shape
    try:
        k = operator.index(k)
    except TypeError:
        raise TypeError(f"sparray.eye: k must be an integer, got {type(k).__name__}") from None
    # a diagonal outside the matrix is empty however far out (NumPy's answer for any Python int):
    # clamped, the offset fits the index dtype
    k = min(max(k, -n_rows), n_cols)
    xp = namespace_for_device(device)
    dt = resolve_dtype(xp, dtype if dtype is not None else "float64")
    # normalize_fill rejects what dt cannot hold (eye(3, dtype=int32, fill_value=0.5) was fill 0)
    fill = normalize_fill(xp, fill_value, dt, (), "eye") if fill_value is not None else None
    if fill is not None and not bool(xp.all(same_value(xp, fill, xp.zeros((), dtype=dt)))):  # -0.0 too
        dense = xp.eye(n_rows, n_cols, k=k, dtype=dt)
        return _finish_layout(from_dense(dense, fill_value=fill), layout, blocksize)
    start, stop = max(0, -k), min(n_rows, n_cols - k)
    rows = xp.arange(start, max(start, stop), dtype=xp.int64)
    idt = xp.int32 if max(shape) < 2**31 else xp.int64
    indices = xp.astype(xp.stack([rows, rows + k]), idt)
    values = xp.ones((rows.shape[0],), dtype=dt)
    A = COO._from_parts(xp, indices, values, shape, xp.zeros((), dtype=dt), coalesced=True)
    return _finish_layout(A, layout, blocksize)


def arange(start, /, stop=None, step=1, *, dtype=None, device=None, layout="coo", fill_value=None, blocksize=None):
    """``xp.arange`` as a sparse array (elements equal to the fill left unspecified)."""
    xp = namespace_for_device(device)
    dense = xp.arange(start, stop, step, dtype=resolve_dtype(xp, dtype))
    return _finish_layout(from_dense(dense, fill_value=fill_value), layout, blocksize)


def linspace(start, stop, /, num, *, dtype=None, device=None, endpoint=True, layout="coo", fill_value=None, blocksize=None):
    """``xp.linspace`` as a sparse array (elements equal to the fill left unspecified)."""
    xp = namespace_for_device(device)
    dense = xp.linspace(start, stop, num, dtype=resolve_dtype(xp, dtype), endpoint=endpoint)
    return _finish_layout(from_dense(dense, fill_value=fill_value), layout, blocksize)


def asarray(
    x, /, *, layout="coo", fill_value=None, sparse_ndim=None, blocksize=None, dtype=None, device=None, copy=None
):
    """A SparseArray from a dense array (any namespace), nested lists, a SparseArray, a scipy.sparse
    object, a torch sparse tensor or any object with the binsparse protocol (``__binsparse__``).

    Elements equal to ``fill_value`` (default 0; nan-aware) are left unspecified. For a hybrid
    result (``sparse_ndim < ndim``) a position is specified when any element of its dense part
    differs from the fill. ``sparse_ndim`` counts the leading non-dense dims; for the compressed
    layouts the last two of them are the sparse dims and the ones before are batch dims.
    ``layout="bsr"``/``"bsc"`` need ``blocksize=(bh, bw)``; a block is specified when any of its
    elements differs from the fill. Batches with different counts are padded with fill-valued
    elements, since every batch of a compressed array holds the same nse.

    >>> import sparray
    >>> A = sparray.asarray([[0, 1], [2, 0]])
    >>> A.nse, A.indices.tolist()
    (2, [[0, 1], [1, 0]])
    """
    if isinstance(x, SparseArray):
        out = x
        if dtype is not None:
            out = astype(out, dtype, copy=False)
        if fill_value is not None:
            out = _refill(out, fill_value)
        if device is not None:
            out = out.to_device(device)
        if sparse_ndim is not None and sparse_ndim != out.ndim - out.dense_ndim:
            _sparse_ndim(out.shape, sparse_ndim, "asarray")
            out = out.to_layout(out.layout if layout is None else layout, blocksize=blocksize, dense_ndim=out.ndim - sparse_ndim)
        if layout == out.layout and layout in ("bsr", "bsc") and blocksize is not None:
            out = out.to_layout(layout, blocksize=blocksize)  # the same blocked layout, maybe new blocks
        else:
            out = _finish_layout(out, layout if layout != out.layout else None, blocksize)
        return out.copy() if copy and out is x else out
    foreign = _from_foreign_sparse(x)
    if foreign is not None:
        out = foreign
        if fill_value is not None:
            out = _refill(out, fill_value)
        if dtype is not None:
            out = astype(out, dtype)
        if device is not None:
            out = out.to_device(device)
        if layout != out.layout or (blocksize is not None and tuple(blocksize) != out.blocksize):
            out = out.to_layout(layout, blocksize=blocksize)  # the asked layout, COO by default
        return out.copy() if copy else out  # foreign buffers may be shared, even after to_layout
    if is_array(x):
        xp = namespace_of(x)
        arr = x if dtype is None else xp.astype(x, resolve_dtype(xp, dtype))
    else:
        xp = namespace_for_device(device)
        arr = xp.asarray(x, dtype=resolve_dtype(xp, dtype) if dtype is not None else None)
    if layout == "2:4":  # straight from dense: the groups of 4 encoded (sparray._layout.semi_structured)
        from .._layout.semi_structured import from_dense as dense_to_semi

        if sparse_ndim not in (None, arr.ndim) or blocksize is not None:
            raise ValueError(f"asarray: layout='2:4' has no dense dims and no blocks; got sparse_ndim={sparse_ndim!r}, "
                             f"blocksize={blocksize!r}")
        out = dense_to_semi(arr, fill_value)
        return out.to_device(device) if device is not None and is_array(x) else out
    if layout in ("csr", "csc", "bsr", "bsc") and not _undefined_for(xp, arr, fill_value, sparse_ndim):
        # straight from dense: no COO in between (an undefined fill stores every element: COO's full pattern)
        from .._layout.compress import dense_to_compressed

        s = _sparse_ndim(tuple(arr.shape), sparse_ndim, "asarray")
        out = dense_to_compressed(arr, layout, blocksize=blocksize, fill_value=fill_value, dense_ndim=arr.ndim - s)
        return out.to_device(device) if device is not None and is_array(x) else out
    out = from_dense(arr, sparse_ndim=sparse_ndim, fill_value=fill_value)
    if device is not None and is_array(x):
        out = out.to_device(device)
    return _finish_layout(out, layout, blocksize)


def _undefined_for(xp, arr, fill_value, sparse_ndim):
    """Whether ``fill_value`` is the undefined fill for a dense ``arr`` read with ``sparse_ndim``."""
    if fill_value is None:
        return False
    dense_shape = tuple(arr.shape[_sparse_ndim(tuple(arr.shape), sparse_ndim, "asarray"):])
    return is_undefined(normalize_fill(xp, fill_value, arr.dtype, dense_shape, "asarray"), dense_shape)


def _from_foreign_sparse(x):
    """A SparseArray for a scipy.sparse object, a torch sparse tensor or a binsparse producer; else None."""
    module = type(x).__module__
    if module.startswith("scipy.sparse"):
        from ..interop.scipy import from_scipy

        return from_scipy(x)
    if (module.startswith("torch") and getattr(x, "is_sparse", False)) or _is_torch_compressed(x) or _is_torch_semi(x):
        from ..interop.torch import from_torch

        return from_torch(x)
    if hasattr(x, "__binsparse__") and hasattr(x, "__binsparse_descriptor__"):
        from .._layout.binsparse import from_binsparse

        return from_binsparse(x)
    return None


def _is_torch_compressed(x) -> bool:
    """A torch tensor in a compressed sparse layout (``is_sparse`` is True only for sparse_coo)."""
    if not type(x).__module__.startswith("torch"):
        return False
    return str(getattr(x, "layout", "")) in ("torch.sparse_csr", "torch.sparse_csc", "torch.sparse_bsr", "torch.sparse_bsc")


def _is_torch_semi(x) -> bool:
    """A torch ``SparseSemiStructuredTensor`` (2:4; its layout reads ``torch.strided``)."""
    return any(c.__name__ == "SparseSemiStructuredTensor" and c.__module__.startswith("torch") for c in type(x).__mro__)


def _refill(A, fill_value):
    """``A`` with a new fill value; positions holding the old fill become specified. To or from the
    undefined fill the entries stay as they are (the unspecified elements take the new fill)."""
    xp = A._xp
    new = normalize_fill(xp, fill_value, A.dtype, A.dense_shape, "asarray")
    if is_undefined(new, A.dense_shape) or not A.fill_is_defined:  # the entries kept; the unspecified elements take the new fill
        return A._replace_values(A._values, new)
    if A._fill.shape == new.shape and bool(xp.all(same_value(xp, A._fill, new))):
        return A
    dense = A.to_dense()
    return from_dense(dense, sparse_ndim=A.ndim - A.dense_ndim, fill_value=new)


def random(shape, density=0.01, *, dtype=None, layout="coo", fill_value=None, sparse_ndim=None, seed=None, device=None, blocksize=None):
    """Random sparse array: ``round(density * positions)`` distinct positions with uniform values.

    Values are uniform in [0, 1) for floats (real and imaginary parts for complex), integers in
    [0, 100) for int dtypes, True for bool. ``seed`` is an int or a ``numpy.random.Generator``.
    Positions are coalesced (unique, sorted).
    """
    import numpy as np

    from .._array.coo import COO

    shape = normalize_shape(shape, "random")
    if not 0.0 <= density <= 1.0:
        raise ValueError(f"random: density must be in [0, 1]; got {density}")
    s = _sparse_ndim(shape, sparse_ndim, "random")
    sparse_shape, dense_shape = shape[:s], shape[s:]
    npos = math.prod(sparse_shape)
    nse = int(round(density * npos))
    rng = seed if isinstance(seed, np.random.Generator) else np.random.default_rng(seed)
    if nse == 0:
        keys = np.zeros(0, dtype=np.int64)
    elif nse * 3 > npos:
        keys = np.sort(rng.permutation(npos)[:nse])
    else:
        keys = np.unique(rng.integers(0, npos, size=nse + nse // 8 + 8))
        while keys.size < nse:
            keys = np.unique(np.concatenate([keys, rng.integers(0, npos, size=nse)]))
        keys = np.sort(rng.permutation(keys)[:nse])
    dt = np.dtype(dtype_name(dtype) if dtype is not None else "float64")
    vshape = (nse, *dense_shape)
    if dt.kind == "f":
        vals = rng.random(vshape).astype(dt)
    elif dt.kind == "c":
        vals = (rng.random(vshape) + 1j * rng.random(vshape)).astype(dt)
    elif dt.kind in "iu":
        vals = rng.integers(0, 100, size=vshape).astype(dt)
    else:
        vals = np.ones(vshape, dtype=dt)
    xp_np = namespace_of(vals)
    from .._core.keys import index_dtype_for, unravel

    indices = unravel(xp_np, keys.astype(np.int64), sparse_shape, index_dtype_for(xp_np, shape, nse))
    fill = normalize_fill(xp_np, fill_value, vals.dtype, dense_shape, "random")
    A = COO._from_parts(xp_np, indices, vals, shape, fill, coalesced=True)
    if device is not None:
        A = A.to_device(device)
    return _finish_layout(A, layout, blocksize)
