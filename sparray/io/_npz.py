"""``save_npz`` / ``load_npz``: every layout in one ``.npz`` file, fill value, batch and dense dims kept exactly.

File layout (format version 1), one NumPy array per key:

- ``sparray_format``: 0-d int, the format version (1);
- ``layout``: 0-d str, one of coo/csr/csc/bsr/bsc/2:4;
- ``shape``: 1-d int64 (the logical shape);
- ``fill_value``: the fill (0-d or dense-part shaped), in the values' dtype;
- COO: ``indices``, ``values``, ``is_coalesced`` (0-d bool);
  CSR/CSC/BSR/BSC: ``compressed_indices``, ``plain_indices``, ``values``;
  2:4: ``values``, ``metadata`` (uint16) and ``transposed`` (0-d bool), the components as they are
  (the stored matrix's, whose shape is ``shape`` with its last two dims swapped when ``transposed``).

Loading never unpickles (``allow_pickle=False``) and validates everything the constructors check,
including the O(nse) invariants, so a corrupt or hand-edited file raises ``ValueError`` naming the
file and the broken rule; nothing half-built is returned. Files written by ``scipy.sparse.save_npz``
load too (through ``sparray.interop.scipy``, which needs scipy).

>>> import io, sparray
>>> buf = io.BytesIO()
>>> sparray.save_npz(buf, sparray.full((2, 3), 1.5, layout="csr"))
>>> _ = buf.seek(0)
>>> B = sparray.load_npz(buf)
>>> B.layout, float(B.fill_value), B.nse
('csr', 1.5, 0)
"""

from __future__ import annotations

import os
import zipfile

import numpy as np

from .._core.namespace import to_numpy

__all__ = ["load_npz", "save_npz"]

FORMAT_VERSION = 1
_LAYOUTS = ("coo", "csr", "csc", "bsr", "bsc", "2:4")
_COMPONENTS = {"coo": ("indices", "values"), "2:4": ("values", "metadata")}
_FLAGS = {"coo": ("is_coalesced",), "2:4": ("transposed",)}
_COMPRESSED = ("compressed_indices", "plain_indices", "values")


def save_npz(file, A, *, compressed=True):
    """Write SparseArray ``A`` to ``file`` (a path or a binary file object) as an ``.npz`` archive.

    ``compressed=True`` (the default, as in scipy) deflates the arrays; ``False`` is faster to
    write and read. A path without the ``.npz`` suffix gets it appended, as ``numpy.savez`` does.
    """
    from .._array.base import SparseArray

    if not isinstance(A, SparseArray):
        raise TypeError(f"save_npz: expected a sparray SparseArray; got {type(A).__module__}.{type(A).__name__}")
    arrays = {
        "sparray_format": np.asarray(FORMAT_VERSION),
        "layout": np.asarray(A.layout),
        "shape": np.asarray(A.shape, dtype=np.int64),
        "fill_value": to_numpy(A.fill_value),
        "values": to_numpy(A.values),
    }
    if A.layout == "coo":
        arrays["indices"] = to_numpy(A.indices)
        arrays["is_coalesced"] = np.asarray(bool(A.is_coalesced))
    elif A.layout == "2:4":
        arrays["metadata"] = to_numpy(A.metadata)
        arrays["transposed"] = np.asarray(bool(A.transposed))
    else:
        arrays["compressed_indices"] = to_numpy(A.compressed_indices)
        arrays["plain_indices"] = to_numpy(A.plain_indices)
    (np.savez_compressed if compressed else np.savez)(file, **arrays)


def load_npz(file, *, device=None):
    """The SparseArray stored in ``file`` by ``save_npz`` (or by ``scipy.sparse.save_npz``).

    Raises ValueError, naming the file and the problem, for anything that is not a valid archive:
    truncated or corrupt zip data, missing or unexpected keys, object arrays (never unpickled),
    inconsistent shapes, or indices that break the layout's invariants.
    """
    name = os.fspath(file) if isinstance(file, (str, os.PathLike)) else getattr(file, "name", "<file object>")
    try:
        archive = np.load(file, allow_pickle=False)
        if not isinstance(archive, np.lib.npyio.NpzFile):
            raise ValueError(f"a single .npy array of shape {getattr(archive, 'shape', '?')}, not an .npz archive")
        with archive:
            arrays = {k: archive[k] for k in archive.files}
    except FileNotFoundError:
        raise
    except ValueError as e:
        raise ValueError(f"load_npz: {name}: cannot read the archive: {e}") from None
    except (zipfile.BadZipFile, EOFError, OSError, KeyError) as e:
        raise ValueError(f"load_npz: {name}: not a valid .npz archive (truncated or corrupt?): {e}") from None
    if "layout" not in arrays and "format" in arrays:
        return _load_scipy_npz(file, name, device)
    try:
        A = _build(arrays)
    except (ValueError, TypeError) as e:
        raise ValueError(f"load_npz: {name}: {e}") from None
    return A.to_device(device) if device is not None else A


def _scalar(arrays, key, kind):
    a = arrays[key]
    if a.ndim != 0 or a.dtype.kind not in kind:
        raise ValueError(f"key {key!r} must be a 0-d array of kind {kind!r}; got dtype {a.dtype}, shape {a.shape}")
    return a[()]


def _build(arrays):
    """The SparseArray described by ``arrays`` (the archive's contents), fully validated."""
    from .._array.blocked import BSC, BSR
    from .._array.compressed import CSC, CSR
    from .._array.coo import COO

    missing = [k for k in ("sparray_format", "layout", "shape", "fill_value", "values") if k not in arrays]
    if missing:
        raise ValueError(f"missing keys {missing}; found {sorted(arrays)}")
    version = int(_scalar(arrays, "sparray_format", "iu"))
    if version != FORMAT_VERSION:
        raise ValueError(f"unsupported sparray npz format version {version}; this sparray reads version {FORMAT_VERSION}")
    layout = str(_scalar(arrays, "layout", "U"))
    if layout not in _LAYOUTS:
        raise ValueError(f"layout must be one of {_LAYOUTS}; got {layout!r}")
    shape_arr = arrays["shape"]
    if shape_arr.ndim != 1 or shape_arr.dtype.kind not in "iu":
        raise ValueError(f"shape must be a 1-d integer array; got dtype {shape_arr.dtype}, shape {shape_arr.shape}")
    shape = tuple(int(s) for s in shape_arr)
    names = _COMPONENTS.get(layout, _COMPRESSED)
    expected = {"sparray_format", "layout", "shape", "fill_value", *names, *_FLAGS.get(layout, ())}
    missing, extra = sorted(expected - set(arrays)), sorted(set(arrays) - expected)
    if missing or extra:
        raise ValueError(f"a {layout} archive holds keys {sorted(expected)}; missing {missing}, unexpected {extra}")
    values, fill = arrays["values"], arrays["fill_value"]
    if fill.dtype != values.dtype:
        raise ValueError(f"fill_value dtype {fill.dtype} differs from values dtype {values.dtype}")
    if layout == "coo":
        coalesced = bool(_scalar(arrays, "is_coalesced", "b"))
        return COO(arrays["indices"], values, shape, fill_value=fill, is_coalesced=coalesced, check_invariants=True)
    if layout == "2:4":
        return _build_semi(arrays, values, fill, shape)
    cls = {"csr": CSR, "csc": CSC, "bsr": BSR, "bsc": BSC}[layout]
    A = cls(arrays["compressed_indices"], arrays["plain_indices"], values, shape, fill_value=fill, check_invariants=True)
    if A.shape != shape:
        raise ValueError(f"the components describe shape {A.shape}, but the archive says {shape}")
    return A


def _build_semi(arrays, values, fill, shape):
    """The 2:4 array of the archive: its components as stored, every code checked."""
    from .._array.semi_structured import SemiStructured

    metadata = arrays["metadata"]
    if metadata.dtype != np.uint16:
        raise ValueError(f"a 2:4 archive's metadata must be uint16 words; got dtype {metadata.dtype}")
    transposed = bool(_scalar(arrays, "transposed", "b"))
    if transposed and len(shape) < 2:
        raise ValueError(f"a transposed 2:4 array has at least 2 dims; the archive says shape {shape}")
    stored = (*shape[:-2], shape[-1], shape[-2]) if transposed else shape
    A = SemiStructured(values, metadata, stored, fill_value=fill, check_invariants=True)
    return A.mT if transposed else A


def _load_scipy_npz(file, name, device):
    try:
        import scipy.sparse as sp
    except ImportError:
        raise ValueError(f"load_npz: {name} was written by scipy.sparse.save_npz; reading it needs scipy") from None
    from ..interop.scipy import from_scipy

    if hasattr(file, "seek"):
        file.seek(0)
    try:
        m = sp.load_npz(file)
    except (ValueError, KeyError, OSError, zipfile.BadZipFile) as e:
        raise ValueError(f"load_npz: {name}: not a valid scipy.sparse .npz archive: {e}") from None
    A = from_scipy(m)
    return A.to_device(device) if device is not None else A
