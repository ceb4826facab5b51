"""The binsparse interchange protocol (experimental): ``__binsparse_descriptor__``, ``__binsparse__``, ``from_binsparse``.

The array API's proposed sparse interchange (data-apis/array-api PR 912) reuses the binsparse
file specification in memory: a descriptor (the parsed JSON, ``{"binsparse": {...}}``) and a
dict of 1-d arrays named by that specification. No other library implements it yet, so the
names below follow the binsparse spec text and may change with it.

What sparray exports (``descriptor["binsparse"]["format"]``):

- 1-d COO: ``"VEC"``; 2-d COO: ``"COOR"``; n-d or hybrid COO: a custom ``sparse`` level of rank
  n (over a ``dense`` level for the dense dims). An uncoalesced COO is coalesced first (a copy).
- CSR / CSC: ``"CSR"`` / ``"CSC"``; batched or hybrid: a custom ``dense`` level over a ``sparse``
  level of rank 1 (CSC with a ``swizzle``). Batches share one global int64 ``pointers_to_*`` array.
- BSR / BSC: binsparse has no blocked level, so they are exported as their CSR / CSC element
  form (a copy), with ``{"sparray": {"layout": ..., "blocksize": ...}}`` beside the binsparse
  key so that ``from_binsparse`` restores the blocks.
- 2:4: binsparse has no level for groups of 4 either, so a 2:4 array is exported as the CSR of its
  pattern (``A.as_hub()``: every kept position an entry, a kept position that holds the fill
  too; a CSC when ``A.transposed``), the values shared with ``A``, with ``{"sparray": {"layout":
  "2:4"}}`` beside the binsparse key. ``from_binsparse`` rebuilds the 2:4 components exactly from
  such arrays (the codes from the column indices); other arrays carrying that key (two entries per
  group not laid out in order) go through the dense form.
- A non-zero scalar fill value: ``"fill": true`` and a one-element ``fill_value`` array. A fill
  that varies along the dense dims has no binsparse form (ValueError).
- bool values are ``"bint8"`` (a uint8 view); complex values are ``"complex[float64]"`` (or
  float32), real and imaginary parts interleaved (a view for NumPy and CuPy).

Arrays are shared with ``A`` wherever the formats agree (always for CSR/CSC/coalesced COO).
``from_binsparse`` reads every predefined format (VEC, COO, COOR, COOC, CSR, CSC, DCSR, DCSC),
the custom formats above, ``iso[...]`` values, ``complex[...]``, ``bint8`` and the
``symmetric/skew_symmetric/hermitian`` ``_lower``/``_upper`` structures, and validates the
indices before anything is built.

>>> import sparray
>>> A = sparray.asarray([[0.0, 2.0], [3.0, 0.0]], layout="csr")
>>> A.__binsparse_descriptor__()["binsparse"]["format"]
'CSR'
>>> sparray.from_binsparse(A).to_dense().tolist()
[[0.0, 2.0], [3.0, 0.0]]
"""

from __future__ import annotations

import math

import array_api_compat
import numpy as np

from .._core.dtypes import dtype_name

__all__ = ["binsparse_arrays", "binsparse_descriptor", "from_binsparse"]

VERSION = "0.1"
_ELEMENT = {"level": "element"}


# ----------------------------------------------------------------------------------------------
# export


def _with_dense(d: int) -> dict:
    """The level for the values: an element, under a dense level of rank ``d`` for hybrid dims."""
    return dict(_ELEMENT) if d == 0 else {"level": "dense", "rank": d, "subformat": dict(_ELEMENT)}


def _value_type(name: str) -> str:
    """The binsparse type string of a sparray dtype name."""
    if name == "bool":
        return "bint8"
    if name == "complex64":
        return "complex[float32]"
    if name == "complex128":
        return "complex[float64]"
    return name




def _flat(xp, x):
    return xp.reshape(x, (-1,))


def _export_values(xp, values):
    """The 1-d values array binsparse expects (bool -> uint8, complex -> interleaved reals)."""
    v = _flat(xp, values)
    if v.dtype == xp.bool:
        return v.view(np.uint8) if _has_view(v) else xp.astype(v, xp.uint8)
    if xp.isdtype(v.dtype, "complex floating"):
        real = xp.float32 if v.dtype == xp.complex64 else xp.float64
        if _has_view(v):
            return v.view(np.float32 if real == xp.float32 else np.float64)
        return _flat(xp, xp.stack([xp.real(v), xp.imag(v)], axis=1))
    return v


def _has_view(x) -> bool:
    """NumPy and CuPy arrays reinterpret their bytes with ``.view`` (no copy); other namespaces cannot."""
    return isinstance(x, np.ndarray) or type(x).__module__.startswith("cupy")


def _scalar_fill(A):
    """The fill as a 0-d array, or ValueError when it varies along the dense dims."""
    if not A.fill_is_defined:
        raise ValueError("binsparse: this array's fill is undefined (sparray.undefined); binsparse's fill is a value "
                         "(or 0): give the unspecified elements one first (sparray.asarray(A, fill_value=0.0))")
    xp = A._xp
    fill = A.fill_value
    if fill.ndim:
        first = xp.reshape(fill, (-1,))[0] if math.prod(fill.shape) else xp.zeros((), dtype=fill.dtype)
        from .._core.fill import same_value

        if not bool(xp.all(same_value(xp, fill, first))):
            raise ValueError(
                "binsparse: the fill value varies along the dense dims, and binsparse has a single fill "
                "value; use A.to_layout(A.layout, dense_ndim=0) first"
            )
        return first
    return fill


def _plan(A, with_arrays: bool):
    """(descriptor, arrays or None) for SparseArray ``A``; arrays share ``A``'s memory where they can.

    The descriptor is derived from ``A``'s metadata alone (a BSR/BSC is converted to its
    element CSR/CSC only when the arrays are asked for); an uncoalesced COO is coalesced first
    either way, since binsparse indices are unique and the stored-value count must match them.
    """
    from .compress import _parts_of
    from .._core.fill import fill_is_zero

    xp = A._xp
    extra = {}
    if A.layout == "coo" and not A.is_coalesced:
        A = A.coalesce()
    if A.layout == "2:4":
        extra = {"sparray": {"layout": "2:4"}}
        A = A.as_hub()  # kept on A: the descriptor and the arrays see the same CSR / CSC
    layout = A.layout
    if layout in ("bsr", "bsc"):
        extra = {"sparray": {"layout": layout, "blocksize": list(A.blocksize)}}
        layout = "csr" if layout == "bsr" else "csc"
    fill = _scalar_fill(A)
    d = A.dense_ndim
    arrays = {}
    types = {}
    desc = {"version": VERSION, "shape": [int(s) for s in A.shape]}
    if layout == "coo":
        n = A.sparse_ndim
        if n == 0:
            raise ValueError("binsparse: a COO with no sparse dims has no binsparse format; use A.to_dense()")
        if d == 0 and n <= 2:
            desc["format"] = "VEC" if n == 1 else "COOR"
        else:
            desc["format"] = {"level": "sparse", "rank": n, "subformat": _with_dense(d)}
        for k in range(n):
            types[f"indices_{k}"] = dtype_name(A.index_dtype)
            if with_arrays:
                arrays[f"indices_{k}"] = A.indices[k, ...]
    else:
        b = A.batch_ndim
        level = b + 1
        if b == 0 and d == 0:
            desc["format"] = layout.upper()
        else:
            desc["format"] = {"level": "dense", "rank": b + 1,
                              "subformat": {"level": "sparse", "rank": 1, "subformat": _with_dense(d)}}  # fmt: skip
            if layout == "csc":
                desc["swizzle"] = [*range(b), b + 1, b, *range(b + 2, b + 2 + d)]
        # batches share one global pointer array, int64 (it counts the entries of every batch)
        types[f"pointers_to_{level}"] = dtype_name(A.index_dtype) if b == 0 else "int64"
        types[f"indices_{level}"] = dtype_name(A.index_dtype)
        if with_arrays:
            E = A if A.layout == layout else A.to_layout(layout)
            parts = _parts_of(E)
            arrays[f"pointers_to_{level}"] = parts.offsets
            arrays[f"indices_{level}"] = parts.minor
    # every stored scalar: block elements (BSR/BSC) and dense-dim elements (hybrid) included,
    # so it equals the length of the exported values array (complex: counted once, not twice)
    desc["number_of_stored_values"] = int(math.prod(A.values.shape))
    types["values"] = _value_type(dtype_name(A.dtype))
    if with_arrays:
        arrays["values"] = _export_values(xp, A.values if layout == "coo" else E.values)
    if not fill_is_zero(xp, fill):
        desc["fill"] = True
        types["fill_value"] = types["values"]
        if with_arrays:
            arrays["fill_value"] = _export_values(xp, xp.reshape(fill, (1,)))
    desc["data_types"] = types
    return {"binsparse": desc, **extra}, (arrays if with_arrays else None)


def binsparse_descriptor(A) -> dict:
    """``A.__binsparse_descriptor__()``: the parsed binsparse JSON descriptor of ``A``."""
    return _plan(A, False)[0]


def binsparse_arrays(A, descriptor=None) -> dict:
    """``A.__binsparse__()``: the named 1-d arrays of ``A``'s binsparse form.

    ``descriptor`` (optional) asks for another predefined format: "COO"/"COOR", "CSR", "CSC"
    or "VEC"; ``A`` is converted first.
    """
    if descriptor is not None:
        A = _convert_for(A, descriptor)
    return _plan(A, True)[1]


def _convert_for(A, descriptor):
    fmt = descriptor.get("binsparse", descriptor).get("format") if isinstance(descriptor, dict) else None
    want = {"COO": "coo", "COOR": "coo", "VEC": "coo", "CSR": "csr", "CSC": "csc"}.get(fmt)
    if want is None:
        raise ValueError(f"binsparse: can export to the formats COO, COOR, VEC, CSR, CSC; asked for {fmt!r}")
    return A if A.layout == want else A.to_layout(want)


# ----------------------------------------------------------------------------------------------
# import


def _levels(fmt):
    """A custom format tree as a list of (level, rank) down to the element, or ValueError."""
    out = []
    node = fmt
    while isinstance(node, dict):
        kind = node.get("level")
        if kind == "element":
            return out
        if kind not in ("dense", "sparse"):
            raise ValueError(f"binsparse: unsupported level {kind!r} (sparray reads dense, sparse and element levels)")
        rank = node.get("rank")
        if not isinstance(rank, int) or rank < 1:
            raise ValueError(f"binsparse: level {kind!r} needs an integer rank >= 1; got {rank!r}")
        out.append((kind, rank))
        node = node.get("subformat")
    raise ValueError(f"binsparse: the format tree must end in an element level; got {fmt!r}")


_PREDEFINED = {
    "VEC": [("sparse", 1)],
    "COO": [("sparse", 2)],
    "COOR": [("sparse", 2)],
    "COOC": [("sparse", 2)],
    "CSR": [("dense", 1), ("sparse", 1)],
    "CSC": [("dense", 1), ("sparse", 1)],
    "DCSR": [("sparse", 1), ("sparse", 1)],
    "DCSC": [("sparse", 1), ("sparse", 1)],
}
_SWIZZLED = {"COOC", "CSC", "DCSC"}


def _namespace_array(x):
    """A producer's array in a namespace sparray computes with (NumPy, CuPy or any array-API one)."""
    if isinstance(x, np.ndarray) or (array_api_compat.is_array_api_obj(x) and not array_api_compat.is_torch_array(x)):
        return x
    if hasattr(x, "__dlpack__"):
        dev = x.__dlpack_device__()[0] if hasattr(x, "__dlpack_device__") else 1
        if dev in (2, 13):  # kDLCUDA, kDLCUDAManaged
            import cupy

            return cupy.from_dlpack(x)
        return np.from_dlpack(x)
    return np.asarray(x)


def _parse_type(t):
    """(base dtype name, modifier) for a binsparse type string: ``iso[...]``, ``complex[...]`` or plain."""
    if not isinstance(t, str):
        raise ValueError(f"binsparse: data types must be strings; got {t!r}")
    for mod in ("iso", "complex"):
        if t.startswith(mod + "[") and t.endswith("]"):
            base, inner_mod = _parse_type(t[len(mod) + 1 : -1])
            return base, (mod if inner_mod is None else f"{mod}+{inner_mod}")
    return t, None


def _decode_values(xp, arr, type_string, count, who):
    """The stored values as a 1-d array of ``count`` elements of the right dtype."""
    base, mod = _parse_type(type_string)
    if base in ("bint8", "bool"):  # "bool" is not in the spec; accepted from lenient producers
        arr = arr != xp.zeros((), dtype=arr.dtype)
    elif base not in ("int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64", "float32", "float64"):
        raise ValueError(f"binsparse: unsupported value type {type_string!r} for {who}")
    elif dtype_name(arr.dtype) != base:
        raise ValueError(f"binsparse: {who} has dtype {dtype_name(arr.dtype)}, but the descriptor says {type_string!r}")
    if mod is not None and "complex" in mod:
        if arr.shape[0] % 2:
            raise ValueError(f"binsparse: complex {who} needs an even number of reals; got {arr.shape[0]}")
        arr = xp.reshape(arr, (-1, 2))
        cdt = xp.complex64 if arr.dtype == xp.float32 else xp.complex128
        arr = xp.astype(arr[:, 0], cdt) + xp.astype(arr[:, 1], cdt) * xp.asarray(1j, dtype=cdt)
    if mod is not None and mod.startswith("iso"):
        if arr.shape[0] != 1:
            raise ValueError(f"binsparse: iso {who} must hold exactly one value; got {arr.shape[0]}")
        return xp.broadcast_to(arr, (count,))
    if arr.shape[0] != count:
        raise ValueError(f"binsparse: {who} has {arr.shape[0]} elements; expected {count}")
    return arr


def _index(xp, arrays, types, name):
    if name not in arrays:
        raise ValueError(f"binsparse: the format needs an array {name!r}; got {sorted(arrays)}")
    a = arrays[name]
    if a.ndim != 1:
        raise ValueError(f"binsparse: {name} must be 1-d; got shape {tuple(a.shape)}")
    declared = types.get(name)
    if declared is not None and declared != dtype_name(a.dtype):
        raise ValueError(f"binsparse: {name} has dtype {dtype_name(a.dtype)}, but data_types says {declared!r}")
    if a.dtype in (xp.int32, xp.int64):
        return a
    if a.dtype not in (xp.uint8, xp.uint16, xp.uint32, xp.uint64, xp.int8, xp.int16):
        raise ValueError(f"binsparse: {name} must hold integers; got {dtype_name(a.dtype)}")
    if a.dtype == xp.uint64 and a.shape[0] and int(xp.max(a)) >= 2**63:
        raise ValueError(f"binsparse: {name} holds an index >= 2**63")
    return xp.astype(a, xp.int64)


def from_binsparse(x, /, *, device=None, copy=None):
    """A SparseArray from an object with ``__binsparse__`` / ``__binsparse_descriptor__``, or an ``(arrays, descriptor)`` pair.

    Experimental, as the protocol is. ``copy=True`` copies every array; otherwise arrays are
    shared where the format allows. Indices are validated (in range, sorted where the format
    says so) before the result is returned.
    """
    if isinstance(x, tuple) and len(x) == 2 and isinstance(x[0], dict) and isinstance(x[1], dict):
        arrays, descriptor = x
    elif hasattr(x, "__binsparse__") and hasattr(x, "__binsparse_descriptor__"):
        descriptor = x.__binsparse_descriptor__()
        arrays = x.__binsparse__()
    else:
        raise TypeError(
            "from_binsparse: expected an object with __binsparse__ and __binsparse_descriptor__, "
            f"or an (arrays, descriptor) pair of dicts; got {type(x).__module__}.{type(x).__name__}"
        )
    if not isinstance(descriptor, dict) or not isinstance(arrays, dict):
        raise TypeError("from_binsparse: the descriptor and the arrays must be dicts")
    arrays = {k: _namespace_array(v) for k, v in arrays.items()}
    A = _build(arrays, descriptor)
    if copy:
        A = A.copy()
    if device is not None:
        A = A.to_device(device)
    return A


def _build(arrays, descriptor):
    from .._core.namespace import namespace_of

    desc = descriptor.get("binsparse", descriptor)
    for key in ("format", "shape", "data_types"):
        if key not in desc:
            raise ValueError(f"binsparse: the descriptor has no {key!r} key; got keys {sorted(desc)}")
    shape = desc["shape"]
    if not isinstance(shape, (list, tuple)) or not all(isinstance(s, int) and s >= 0 for s in shape):
        raise ValueError(f"binsparse: shape must be a list of non-negative ints; got {shape!r}")
    shape = tuple(shape)
    types = desc["data_types"]
    if "values" not in arrays:
        raise ValueError(f"binsparse: no 'values' array; got {sorted(arrays)}")
    xp = namespace_of(*arrays.values())
    fmt = desc["format"]
    swizzle = desc.get("swizzle", fmt.get("swizzle") if isinstance(fmt, dict) else None)
    if isinstance(fmt, str):
        if fmt not in _PREDEFINED:
            raise ValueError(f"binsparse: unknown format {fmt!r}; expected one of {sorted(_PREDEFINED)} or a custom level tree")
        levels = _PREDEFINED[fmt]
        if fmt in _SWIZZLED:
            swizzle = [1, 0]
    else:
        levels = _levels(fmt)
    ndim = len(shape)
    if sum(r for _, r in levels) != ndim:
        raise ValueError(f"binsparse: the format's levels {levels} cover {sum(r for _, r in levels)} dims, but shape {shape} has {ndim}")
    if swizzle is not None and sorted(swizzle) != list(range(ndim)):
        raise ValueError(f"binsparse: swizzle {swizzle!r} must be a permutation of range({ndim})")
    stored_shape = shape if swizzle is None else tuple(shape[s] for s in swizzle)
    A = _from_levels(xp, arrays, types, levels, stored_shape, swizzle)
    fill = None
    if desc.get("fill"):
        if "fill_value" not in arrays:
            raise ValueError("binsparse: 'fill' is true but there is no 'fill_value' array")
        fill = _decode_values(xp, arrays["fill_value"], types.get("fill_value", types["values"]), 1, "fill_value")[0]
        from .._core.fill import normalize_fill

        A = A._replace_values(A.values, normalize_fill(xp, fill, A.dtype, A.dense_shape, "from_binsparse"))
    structure = desc.get("structure")
    if structure is not None:
        A = _expand_structure(A, structure)
    extra = descriptor.get("sparray") if "binsparse" in descriptor else None
    if isinstance(extra, dict) and extra.get("layout") in ("bsr", "bsc"):
        A = A.to_layout(extra["layout"], blocksize=tuple(extra["blocksize"]))
    elif isinstance(extra, dict) and extra.get("layout") == "2:4":
        A = _semi_of_hub(A)
    return A


def _semi_of_hub(A):
    """The 2:4 array whose hub (``SemiStructured.as_hub``) is the CSR ``A`` (a CSC: transposed):
    when every row holds two entries per group of 4, in order (row pointers ``r * cols / 2``), its
    codes come from the column indices and its values are ``A``'s, exactly as exported; anything
    else is encoded from the dense form (ValueError past 2 non-fill elements in a group)."""
    from .semi_structured import pack_codes
    from .._array.semi_structured import GROUP, SemiStructured

    transposed = A.layout == "csc"
    if A.layout not in ("csr", "csc") or A.dense_ndim or A.ndim < 2:
        return A.to_layout("2:4")
    xp = A._xp
    *batch, rows, cols = (*A.shape[:-2], A.shape[-1], A.shape[-2]) if transposed else A.shape
    half, ngroups = cols // 2, cols // GROUP
    ptr, minor = A._cidx, A._pidx
    exact = cols % GROUP == 0 and tuple(minor.shape) == (*batch, rows * half)
    if exact and rows * half:
        want = xp.arange(rows + 1, dtype=ptr.dtype, device=_device(ptr)) * half
        pos = xp.reshape(xp.astype(minor, xp.int64), (*batch, rows, ngroups, 2))
        pos = pos - xp.reshape(xp.arange(ngroups, dtype=xp.int64, device=_device(minor)) * GROUP, (ngroups, 1))
        i0, i1 = pos[..., 0], pos[..., 1]
        exact = bool(xp.all(ptr == want)) and bool(xp.all((i0 >= 0) & (i0 < i1) & (i1 < GROUP)))
    if not exact:
        return A.mT.to_layout("2:4").mT if transposed else A.to_layout("2:4")
    if rows * half:
        codes = xp.astype(i0, xp.uint16) | (xp.astype(i1, xp.uint16) << 2)
    else:
        codes = xp.zeros((*batch, rows, ngroups), dtype=xp.uint16, device=_device(minor))
    values = xp.reshape(A._values, (*batch, rows, half))
    return SemiStructured._from_parts(xp, values, pack_codes(xp, codes), A.shape, A._fill, checked=True,
                                      transposed=transposed)


def _device(x):
    return array_api_compat.device(x)


def _from_levels(xp, arrays, types, levels, stored_shape, swizzle):
    """The SparseArray for the level list, in stored (swizzled) dim order, then un-swizzled."""
    from .._array.compressed import CSC, CSR
    from .._array.coo import COO

    ndim = len(stored_shape)
    if len(levels) > 1 and levels[-1][0] == "dense" and "sparse" in [k for k, _ in levels[:-1]]:
        levels = levels[:-1]  # the dense level under the last sparse one holds the hybrid dims
    kinds = [k for k, _ in levels]
    vtype = types.get("values")
    if vtype is None:
        raise ValueError("binsparse: data_types has no entry for 'values'")
    if kinds == ["sparse"]:  # COO of rank n over dense dims
        n = levels[0][1]
        idx = [_index(xp, arrays, types, f"indices_{k}") for k in range(n)]
        nse = idx[0].shape[0] if idx else 0
        if any(i.shape[0] != nse for i in idx):
            raise ValueError(f"binsparse: the indices arrays differ in length: {[int(i.shape[0]) for i in idx]}")
        dense = stored_shape[n:]
        values = _decode_values(xp, arrays["values"], vtype, nse * math.prod(dense), "values")
        indices = xp.stack(_same_dtype(xp, idx)) if idx else xp.zeros((0, nse), dtype=xp.int64)
        A = COO(indices, xp.reshape(values, (nse, *dense)), stored_shape, is_coalesced=True, check_invariants=True)
    elif kinds == ["dense", "sparse"] and levels[1][1] == 1:  # (batched) CSR over dense dims
        b = levels[0][1] - 1
        level = b + 1
        ptr = _index(xp, arrays, types, f"pointers_to_{level}")
        col = _index(xp, arrays, types, f"indices_{level}")
        ptr, col = _same_dtype(xp, [ptr, col])
        batch, (m, ncols), dense = stored_shape[:b], stored_shape[b : b + 2], stored_shape[b + 2 :]
        nb = math.prod(batch)
        if ptr.shape[0] != nb * m + 1:
            raise ValueError(f"binsparse: pointers_to_{level} has {ptr.shape[0]} entries; expected {nb * m + 1}")
        total = col.shape[0]
        values = xp.reshape(_decode_values(xp, arrays["values"], vtype, total * math.prod(dense), "values"), (total, *dense))
        if b == 0:
            A = CSR(ptr, col, values, stored_shape, check_invariants=True)
        else:
            A = _batched_csr(xp, ptr, col, values, batch, m, ncols, dense)
        if swizzle is not None and list(swizzle) == [*range(b), b + 1, b, *range(b + 2, ndim)] and A.layout == "csr":
            return CSC._from_parts(xp, A._cidx, A._pidx, A._values, _unswizzle(stored_shape, swizzle), A._fill, checked=True)
    elif kinds == ["sparse", "sparse"] and levels[0][1] == 1 and levels[1][1] == 1:  # DCSR
        rows = _index(xp, arrays, types, "indices_0")
        ptr = _index(xp, arrays, types, "pointers_to_1")
        col = _index(xp, arrays, types, "indices_1")
        A = _dcsr(xp, rows, ptr, col, arrays, vtype, stored_shape)
    else:
        raise ValueError(f"binsparse: sparray does not read the level structure {levels}")
    if swizzle is not None and list(swizzle) != list(range(ndim)):
        A = _unswizzle_coo(A, swizzle)
    return A


def _unswizzle_coo(A, swizzle):
    """``A`` (stored dim order) with dim ``j`` taken from stored dim ``swizzle.index(j)``; dense dims stay."""
    from .._array.coo import COO

    s = A.ndim - A.dense_ndim
    if list(swizzle[s:]) != list(range(s, A.ndim)):
        raise ValueError(f"binsparse: sparray reads swizzles that keep the dense dims last; got {swizzle!r}")
    C = A.to_layout("coo", dense_ndim=A.dense_ndim)
    xp = C._xp
    perm = [list(swizzle).index(j) for j in range(s)]
    indices = xp.take(C.indices, xp.asarray(perm, dtype=xp.int64), axis=0)
    return COO(indices, C.values, _unswizzle(C.shape, swizzle), fill_value=C.fill_value)


def _unswizzle(stored_shape, swizzle):
    shape = [0] * len(swizzle)
    for pos, dim in enumerate(swizzle):
        shape[dim] = stored_shape[pos]
    return tuple(shape)


def _same_dtype(xp, arrs):
    if all(a.dtype == arrs[0].dtype for a in arrs):
        return arrs
    return [xp.astype(a, xp.int64) for a in arrs]


def _batched_csr(xp, ptr, col, values, batch, m, ncols, dense):
    """Global pointers over ``nb * m`` rows as a batched CSR, or an n-d COO when batch sizes differ."""
    from .compress import _batched_offsets
    from .._array.compressed import CSR
    from .._array.coo import COO
    from .._core.keys import unravel

    nb = math.prod(batch)
    _check_pointers(xp, ptr, col.shape[0], "pointers_to_*")
    starts = ptr[: nb * m + 1 : m] if m else xp.zeros(nb + 1, dtype=ptr.dtype)
    counts = starts[1:] - starts[:-1]
    if nb == 0 or bool(xp.all(counts == counts[0])):
        nse = int(counts[0]) if nb else 0
        cidx = _batched_offsets(xp, ptr, nb, m, nse, batch, ptr.dtype)
        return CSR(
            cidx, xp.reshape(col, (*batch, nse)), xp.reshape(values, (*batch, nse, *dense)),
            (*batch, m, ncols, *dense), check_invariants=True,
        )  # fmt: skip
    rows_flat = xp.repeat(xp.arange(nb * m, dtype=xp.int64), xp.astype(ptr[1:] - ptr[:-1], xp.int64))
    batch_idx = unravel(xp, rows_flat // m, batch, xp.int64)
    coords = xp.concat([batch_idx, xp.stack([rows_flat % m, xp.astype(col, xp.int64)])], axis=0)
    return COO(coords, values, (*batch, m, ncols, *dense), check_invariants=True)


def _check_pointers(xp, ptr, total, name):
    if ptr.shape[0] == 0 or int(ptr[0]) != 0 or int(ptr[-1]) != total or bool(xp.any(ptr[1:] < ptr[:-1])):
        raise ValueError(f"binsparse: {name} must start at 0, never decrease and end at the number of stored values ({total})")


def _dcsr(xp, rows, ptr, col, arrays, vtype, stored_shape):
    from .._array.coo import COO

    if len(stored_shape) < 2:
        raise ValueError(f"binsparse: a doubly compressed format needs 2 sparse dims; got shape {stored_shape}")
    if ptr.shape[0] != rows.shape[0] + 1:
        raise ValueError(f"binsparse: pointers_to_1 has {ptr.shape[0]} entries; expected len(indices_0) + 1 = {rows.shape[0] + 1}")
    total = col.shape[0]
    _check_pointers(xp, ptr, total, "pointers_to_1")
    dense = stored_shape[2:]
    values = xp.reshape(_decode_values(xp, arrays["values"], vtype, total * math.prod(dense), "values"), (total, *dense))
    r = xp.repeat(xp.astype(rows, xp.int64), xp.astype(ptr[1:] - ptr[:-1], xp.int64))
    return COO(xp.stack([r, xp.astype(col, xp.int64)]), values, stored_shape, is_coalesced=True, check_invariants=True)


def _expand_structure(A, structure):
    """The full matrix of a stored triangle (``symmetric_lower``, ``hermitian_upper``, ...)."""
    from .._array.coo import COO

    kinds = {"symmetric", "skew_symmetric", "hermitian"}
    kind, _, side = structure.rpartition("_")
    if kind not in kinds or side not in ("lower", "upper"):
        raise ValueError(f"binsparse: unknown structure {structure!r}")
    if A.ndim != 2 or A.dense_ndim:
        raise ValueError(f"binsparse: structure {structure!r} needs a 2-d matrix; got shape {A.shape}")
    xp = A._xp
    layout = A.layout
    C = A.to_layout("coo")
    i, j = C.indices[0, ...], C.indices[1, ...]
    bad = (i < j) if side == "lower" else (i > j)
    if bool(xp.any(bad)):
        raise ValueError(f"binsparse: structure {structure!r} stores one triangle, but entries lie in the other one")
    off = i != j
    v = C.values
    mirrored = v[off]
    if kind == "skew_symmetric":
        mirrored = -mirrored
    elif kind == "hermitian":
        mirrored = xp.conj(mirrored)
    indices = xp.concat([C.indices, xp.stack([j[off], i[off]])], axis=1)
    full = COO(indices, xp.concat([v, mirrored]), A.shape, fill_value=A.fill_value).coalesce()
    return full if layout == "coo" else full.to_layout(layout)
