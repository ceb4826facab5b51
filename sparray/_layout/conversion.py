"""Conversions: sparse <-> dense, between devices, between dtypes and between layouts.

Dense -> COO leaves unspecified every position whose element (or whole dense part, for a
hybrid array) equals the fill value, nan-aware; COO -> dense writes the fill everywhere and the
values at their positions (duplicates summed first).

The generic paths are pure array API (no scatter: a ``searchsorted`` gather builds the dense
array); NumPy data takes the registry's ``to_dense`` kernel.
"""

from __future__ import annotations

import math

from .._engine import dispatch as _dispatch
from .._core.dtypes import resolve_dtype
from .._core.fill import is_undefined, normalize_fill, same_value
from .._core.keys import index_dtype_for, linear_keys, unravel
from .._core.namespace import namespace_of
from ..kernels._kept import KeptPerArray

__all__ = ["to_dense", "from_dense", "move_components", "to_layout", "match_layout", "astype", "LAYOUTS"]


def to_dense(A):
    """Dense array of the components' namespace equal to sparse ``A``."""
    xp = A._xp
    if not A.is_coalesced:
        A = A.coalesce()
    else:
        A._check_contents()
    return _dispatch.call("to_dense", "coo", xp, A._indices, A._values, A.shape, A._fill)


@_dispatch.register("to_dense", "coo", "generic")
def _to_dense_generic(xp, indices, values, shape, fill):
    sparse_ndim = indices.shape[0]
    sparse_shape, dense_shape = shape[:sparse_ndim], shape[sparse_ndim:]
    npos = math.prod(sparse_shape)
    fill_row = xp.reshape(xp.broadcast_to(fill, dense_shape), (1, *dense_shape))
    nse = indices.shape[1]
    if nse == 0 or npos == 0:
        full = xp.broadcast_to(xp.astype(fill_row, values.dtype), (npos, *dense_shape))
        return xp.reshape(xp.asarray(full, copy=True), shape)
    keys = linear_keys(xp, indices, sparse_shape)
    stacked = xp.concat([xp.astype(fill_row, values.dtype), values], axis=0)
    targets = xp.arange(npos, dtype=xp.int64)
    pos = xp.searchsorted(keys, targets)
    clipped = xp.clip(pos, 0, nse - 1) if hasattr(xp, "clip") else xp.where(pos < nse, pos, nse - 1)
    found = (pos < nse) & (xp.take(keys, clipped) == targets)
    src = xp.where(found, clipped + 1, xp.zeros_like(clipped))
    return xp.reshape(xp.take(stacked, src, axis=0), shape)


def from_dense(x, *, sparse_ndim=None, fill_value=None, index_dtype=None):
    """COO with the elements of dense ``x`` that differ from ``fill_value`` specified (every
    element, for the undefined fill: a dense array has a value everywhere)."""
    from .._array.coo import COO

    xp = namespace_of(x)
    ndim = x.ndim
    if sparse_ndim is None:
        sparse_ndim = ndim
    if not 0 <= sparse_ndim <= ndim:
        raise ValueError(f"asarray: sparse_ndim must be in [0, {ndim}] for a {ndim}-d input; got {sparse_ndim}")
    shape = tuple(int(s) for s in x.shape)
    sparse_shape, dense_shape = shape[:sparse_ndim], shape[sparse_ndim:]
    fill = normalize_fill(xp, fill_value, x.dtype, dense_shape, "asarray")
    npos = math.prod(sparse_shape)
    if is_undefined(fill, dense_shape):  # no element equals an undefined fill: every position is an entry
        import array_api_compat

        keys = xp.arange(npos, dtype=xp.int64, device=array_api_compat.device(x))
    else:
        specified = ~same_value(xp, x, fill)
        if dense_shape:
            specified = xp.any(xp.reshape(specified, (*sparse_shape, math.prod(dense_shape))), axis=-1)
        keys = xp.astype(xp.nonzero(xp.reshape(specified, (npos,)))[0], xp.int64)
    values = xp.take(xp.reshape(x, (npos, *dense_shape)), keys, axis=0)
    nse = keys.shape[0]
    _warn_signed_zeros(xp, values, fill, nse)
    idt = resolve_dtype(xp, index_dtype) if index_dtype is not None else index_dtype_for(xp, shape, nse)
    indices = unravel(xp, keys, sparse_shape, idt)
    return COO._from_parts(xp, indices, values, shape, fill, coalesced=True)


SIGNED_ZERO_WARNING = 1024  # stored zeros of the other sign than the fill's, past which asarray warns


def _warn_signed_zeros(xp, values, fill, nse):
    """Warn when most stored elements of a dense input are zeros kept only for their sign.

    A -0.0 is not the fill +0.0 (docs/fill_value.md), so ``asarray(-D)`` stores every zero of ``D``:
    exact, but a dense array's worth of entries where the user most likely wanted ``D``'s pattern.
    O(nse): only the stored values are looked at.
    """
    if nse < SIGNED_ZERO_WARNING or not xp.isdtype(values.dtype, ("real floating", "complex floating")):
        return
    if not bool(xp.all(fill == 0)):
        return
    zero = values == 0
    if values.ndim > 1:
        zero = xp.all(xp.reshape(zero, (nse, -1)), axis=1)
    n_zero = int(xp.sum(xp.astype(zero, xp.int64)))
    if n_zero >= SIGNED_ZERO_WARNING and 2 * n_zero > nse:
        import warnings

        from .._engine.dispatch import SparrayPerformanceWarning

        warnings.warn(
            f"asarray: {n_zero} of the {nse} stored elements are zeros kept only for their sign (a zero of the "
            "other sign than the fill, e.g. -0.0 against the fill +0.0: negating a dense array turns its zeros into "
            "-0.0); convert first and negate the sparse array (-sparray.asarray(D)), or add 0.0 to D (-D + 0.0), "
            "to leave them unspecified",
            SparrayPerformanceWarning,
            stacklevel=3,
        )


def cuda_device_id(device):
    """The CUDA device a ``to_device`` argument names: None for "cuda" (the current device), N for
    "cuda:N" or a ``cupy.cuda.Device``; ValueError for a malformed name. Not a CUDA device: -1.

    >>> cuda_device_id("cuda:1"), cuda_device_id("cuda"), cuda_device_id("cpu")
    (1, None, -1)
    """
    if type(device).__module__.startswith("cupy"):
        return int(device.id)
    if not isinstance(device, str) or not device.startswith("cuda"):
        return -1
    if device == "cuda":
        return None
    head, _, number = device.partition(":")
    if head != "cuda" or not number.isdigit():
        raise ValueError(f"to_device: expected 'cpu', 'cuda' or 'cuda:N' with N a device number; got {device!r}")
    return int(number)


def move_components(xp, device, arrays):
    """``arrays`` moved to ``device``: "cpu" (NumPy), "cuda" (CuPy, current device), "cuda:N" or a
    ``cupy.cuda.Device`` (CuPy on device N); returns (new xp, arrays). Arrays already there are
    not copied; CuPy arrays on another GPU are copied device to device. Iso values (one element
    broadcast, ``sparray._core.iso``) move as their one element and stay iso."""
    import array_api_compat

    from .._core.iso import iso_element, iso_values
    from .._core.namespace import _is_simulated_device, to_numpy

    isos = [iso_element(a) for a in arrays]
    if any(e is not None for e in isos):
        xp, moved = move_components(xp, device, [a if e is None else e for a, e in zip(arrays, isos)])
        return xp, [m if e is None else iso_values(xp, m, tuple(a.shape)) for a, m, e in zip(arrays, moved, isos)]

    simulated_now = getattr(xp, "_sparray_simulated", False)
    if _is_simulated_device(device):
        from ..kernels.cuda import simulated

        moved = [a if simulated_now else simulated.to_simulated(to_numpy(a)) for a in arrays]
        return simulated.array_api, moved
    if simulated_now:
        if not (isinstance(device, str) and device == "cpu"):
            raise ValueError(f"to_device: arrays on the simulated device move to 'cpu' or 'simulated'; got {device!r}")
        moved = [a.get() for a in arrays]
        return namespace_of(*moved), moved
    dev_id = cuda_device_id(device)
    want_cpu = isinstance(device, str) and device == "cpu"
    if dev_id != -1:
        try:
            import cupy
        except ImportError:
            raise ValueError(f"to_device({device!r}): CuPy is not installed (pip install 'sparray[cuda]')") from None
        if not cupy.is_available():
            raise ValueError(f"to_device({device!r}): CuPy finds no usable CUDA device or driver on this machine")
        target = cupy.cuda.Device() if dev_id is None else cupy.cuda.Device(dev_id)
        if dev_id is not None and dev_id >= cupy.cuda.runtime.getDeviceCount():
            raise ValueError(f"to_device: {device!r} names device {dev_id}, but this machine has "
                             f"{cupy.cuda.runtime.getDeviceCount()} CUDA device(s)")
        if not array_api_compat.is_cupy_namespace(xp):
            import numpy as np

            arrays = [a if array_api_compat.is_numpy_namespace(xp) else np.asarray(array_api_compat.to_device(a, "cpu")) for a in arrays]
        with target:
            moved = [a if (isinstance(a, cupy.ndarray) and a.device.id == target.id) else cupy.asarray(a) for a in arrays]
        return namespace_of(*moved), moved
    if want_cpu and array_api_compat.is_cupy_namespace(xp):
        import cupy

        moved = [cupy.asnumpy(a) for a in arrays]
        return namespace_of(*moved), moved
    if want_cpu and array_api_compat.is_numpy_namespace(xp):
        return xp, list(arrays)
    try:
        moved = [array_api_compat.to_device(a, device) for a in arrays]
    except Exception as e:
        raise ValueError(f"to_device: cannot move {xp.__name__} arrays to device {device!r}: {e}") from e
    return namespace_of(*moved), moved


def carry_facts(src, dst):
    """``dst`` (``src`` moved to another device) told what ``src`` has proven, so that the device
    never waits to learn it again: whether its fill is zero, and from the host to a GPU also that
    its indices are valid, whether its values and fill are finite and (a 2-d CSR or BSR) its
    longest row. Those are worked out on the host first, where they cost no wait (a pass over the
    indices and values, which the move copies anyway). Returns ``dst``.

    >>> import sparray, numpy as np
    >>> A = sparray.asarray(np.eye(3), layout="csr")
    >>> B = A.to_device("cpu")
    >>> carry_facts(A, B)._fill_is_zero
    True
    """
    from .._core.fill import array_fill_is_zero, remember_fill_is_zero
    from .._core.namespace import backend_kind

    to_device = backend_kind(src._xp) == "numba" and backend_kind(dst._xp) == "cupy"
    known = array_fill_is_zero(src) if to_device else src.__dict__.get("_fill_is_zero")
    if known is not None:
        dst._fill_is_zero = known
        remember_fill_is_zero(dst._fill, known)
    if not to_device:
        return dst
    from .._engine.facts import remember_all_finite, values_all_finite

    src._check_contents()
    dst._checked = True
    remember_all_finite(dst._values, values_all_finite(src._xp, src._values))
    remember_all_finite(dst._fill, values_all_finite(src._xp, src._fill))
    if src.layout in ("csr", "bsr") and src.batch_ndim == 0:
        import numpy as np

        from ..kernels.cuda.spmm import remember_longest_row

        cidx = np.asarray(src._cidx)
        remember_longest_row(dst._cidx, int(np.max(np.diff(cidx))) if cidx.shape[0] > 1 else 0)
    elif src.layout == "coo" and src.ndim == 2 and src.sparse_ndim == 2 and src.is_coalesced:
        import numpy as np

        rows = np.asarray(src._indices[0])
        _CONVERTED_LONGEST.put(dst._indices, int(np.bincount(rows).max()) if rows.shape[0] else 0)
    return dst


#: the indices a 2-d COO or CSC holds -> the longest row of the CSR they convert to
_CONVERTED_LONGEST = KeptPerArray()


def carry_product_facts(src, csr):
    """``csr`` (the 2-d COO or CSC ``src`` converted for a product, on a GPU) told its longest row
    and whether its values are finite, which the product would otherwise ask the device. A product
    of a COO (or of ``B.mT``, a CSC) converts on every call, so what the first conversion learns
    (a read each, made by the product anyway) is kept for ``src``: the longest row for the indices
    that decide it (the COO's, the CSC's row indices), finiteness for its values (then carried by
    every later conversion). Later conversions read nothing. Returns ``csr``.
    """
    from .._core.namespace import backend_kind

    if src.ndim != 2 or src.layout not in ("coo", "csc") or csr.layout != "csr" or backend_kind(src._xp) != "cupy":
        return csr
    from .._engine.facts import known_all_finite, remember_all_finite, values_all_finite
    from ..kernels.cuda.spmm import longest_row, remember_longest_row

    key = src._indices if src.layout == "coo" else src._pidx
    known = _CONVERTED_LONGEST.get(key)
    if known is not None:
        remember_longest_row(csr._cidx, known)
    else:
        known = longest_row(csr._cidx, csr.nse)
        if known >= 0:
            _CONVERTED_LONGEST.put(key, known)
    if known_all_finite(src._values) is None and (src.layout == "csc" or src._coalesced):
        remember_all_finite(src._values, values_all_finite(csr._xp, csr._values))  # the same elements
    return csr


LAYOUTS = ("coo", "csr", "csc", "bsr", "bsc", "2:4")


def to_layout(A, layout, *, blocksize=None, dense_ndim=None):
    """``A`` converted to ``layout`` (one of ``LAYOUTS``), keeping every element and the fill value.

    To and from "2:4": ``sparray._layout.semi_structured.to_layout`` (2:4 -> any layout goes
    through the CSR of the same pattern, any layout -> 2:4 through the dense form).

    ``blocksize`` is required for "bsr"/"bsc" unless ``A`` is already blocked (its blocksize is
    kept). ``dense_ndim`` moves trailing sparse dims into the dense part (or back); for the
    compressed layouts the dims before the last two non-dense dims are batch dims. An iso array
    stays iso where the conversion only moves its stored elements (``sparray._layout.iso``).
    """
    from .iso import to_layout_iso

    iso = to_layout_iso(A, layout, blocksize, dense_ndim, to_layout)
    if iso is not None:
        return iso
    if not A.fill_is_defined:
        return _to_layout_undefined(A, layout, blocksize, dense_ndim)
    if layout == "2:4":
        from . import semi_structured

        out = semi_structured.to_layout(A, layout, blocksize, dense_ndim)
    else:
        out = _to_layout(A.as_hub() if A.layout == "2:4" else A, layout, blocksize, dense_ndim)
    if out is not A:
        _carry_finite_values(A, out)
    return out


def _to_layout_undefined(A, layout, blocksize, dense_ndim):
    """``to_layout`` of an array whose fill is undefined: its entries converted (with a stand-in
    fill) and the fill undefined again. A conversion that would add entries (the fill-valued
    padding of a batched compressed array whose batches hold different counts, the blocks of
    BSR/BSC, a 2:4 group's spare kept slots) has no value to give them: ValueError."""
    xp = A._xp
    stand = A._replace_values(A._values, xp.zeros((), dtype=A.dtype))
    out = to_layout(stand, layout, blocksize=blocksize, dense_ndim=dense_ndim)
    before, after = math.prod(A._values.shape), math.prod(out._values.shape)  # stored elements, blocks counted in full
    if after > before:
        raise ValueError(
            f"to_layout: converting this {A.layout} array with an undefined fill to {layout!r} would add "
            f"{after - before} stored elements (padding, blocks or groups) that have no value; convert with a fill "
            "(sparray.asarray(A, fill_value=v)) or keep the layout"
        )
    return out._replace_values(out._values, xp.empty((0,), dtype=out.dtype))


def _carry_finite_values(src, dst):
    """Keep for ``dst`` (``src`` in another layout) that its values are finite when that is known of
    ``src``'s values and fill: a conversion moves values, pads blocks with the fill and sums only
    the duplicates of an uncoalesced COO (which may overflow, so those carry nothing). Nothing is
    computed: on a GPU the next product then has nothing to ask."""
    from .._engine.facts import known_all_finite, remember_all_finite

    if known_all_finite(src._values) and known_all_finite(src._fill) and (src.layout != "coo" or src._coalesced):
        remember_all_finite(dst._values, True)
        remember_all_finite(dst._fill, True)


def _to_layout(A, layout, blocksize, dense_ndim):
    from . import compress as _compress

    if layout not in LAYOUTS:
        raise ValueError(f"to_layout: layout must be one of {LAYOUTS}; got {layout!r}")
    if dense_ndim is not None and dense_ndim != A.dense_ndim:
        if not 0 <= dense_ndim <= A.ndim:
            raise ValueError(f"to_layout: dense_ndim must be in [0, {A.ndim}] for shape {A.shape}; got {dense_ndim}")
        coo = A if A.layout == "coo" else _compress.compressed_to_coo(A)
        if dense_ndim < coo.dense_ndim:
            coo = _compress.move_dense_to_sparse(coo, coo.ndim - dense_ndim)
        else:
            coo = _compress.pack_sparse_dims(coo, dense_ndim)
        return _to_layout(coo, layout, blocksize, None)
    blocked = layout in ("bsr", "bsc")
    src_block = A.blocksize if getattr(A, "_blocked", False) else None
    if blocked and blocksize is None:
        blocksize = src_block
    same_block = not blocked or (blocksize is not None and _as_pair(blocksize) == src_block)
    if layout == "coo" or not blocked:
        if blocksize is not None and _as_pair(blocksize) != (1, 1):
            raise ValueError(f"to_layout: blocksize is only meaningful for layout 'bsr' or 'bsc'; got {blocksize} for {layout!r}")
    if layout == A.layout and same_block:
        return A
    if layout == "coo":
        return _compress.compressed_to_coo(A)
    if A.layout != "coo" and blocked == A._blocked and same_block:
        return _compress.recompress(A, layout)
    coo = A if A.layout == "coo" else _compress.compressed_to_coo(A)
    return _compress.coo_to_compressed(coo, layout, blocksize)


def _as_pair(blocksize):
    try:
        return tuple(int(b) for b in blocksize)
    except (TypeError, ValueError):
        raise ValueError(f"to_layout: blocksize must be a pair of positive ints; got {blocksize!r}") from None


def match_layout(result, like):
    """``result`` (a COO from an operation on ``like``) in ``like``'s layout when its shape allows it.

    A compressed result needs at least 2 non-dense dims, and a blocked one a blocksize that
    divides them; otherwise the COO comes back (documented in docs/layouts.md).
    """
    from .._array.base import SparseArray

    if not isinstance(result, SparseArray) or like.layout in ("coo", result.layout):
        return result
    s = result.ndim - result.dense_ndim
    if s < 2:
        return result
    blocksize = like.blocksize if like._blocked else None
    if blocksize and (result.shape[s - 2] % blocksize[0] or result.shape[s - 1] % blocksize[1]):
        return result
    return to_layout(result, like.layout, blocksize=blocksize)


def match_common_layout(result, inputs):
    """``result`` (a COO) in the layout the SparseArrays ``inputs`` share (and their blocksize),
    under ``match_layout``'s rule; COO when they differ."""
    kinds = {(a.layout, getattr(a, "blocksize", None)) for a in inputs}
    return match_layout(result, inputs[0]) if len(kinds) == 1 else result


def astype(x, dtype, /, *, copy=True, device=None):
    """``x`` with its values (and fill value) cast to ``dtype``; dense arrays go to their namespace."""
    from .._array.base import SparseArray

    if not isinstance(x, SparseArray):
        xp = namespace_of(x)
        return xp.astype(x, resolve_dtype(xp, dtype), copy=copy)
    xp = x._xp
    dt = resolve_dtype(xp, dtype)
    if dt == x.dtype and not copy:
        out = x
    else:
        if dt != x.dtype and x.layout == "coo":
            x = x.coalesce()  # duplicates stand for their sum: cast the sum, not each part
        out = x._replace_values(xp.astype(x._values, dt), xp.astype(x._fill, dt))
    if device is not None:
        out = out.to_device(device)
    return out
