"""``mmread`` and ``mminfo``: Matrix Market files to SparseArrays.

What comes back (both engines give identical arrays, element for element and in the same
order):

- a coordinate file: a COO with the entries in file order; a symmetric / skew-symmetric /
  hermitian file is expanded to the full matrix, the mirrored off-diagonal entries appended
  after the stored ones (negated for skew-symmetric, conjugated for hermitian; the diagonal is
  not duplicated). Duplicate coordinates are legal and kept (an uncoalesced COO: they sum, as in
  scipy). ``pattern`` entries are float64 ones;
- an array file: the specified elements are the non-zero ones (row-major, coalesced), so
  ``A.to_dense()`` gives the array back;
- dtypes: integer -> int64, real / pattern -> float64, complex -> complex128; indices int32
  when the shape and nse fit, else int64 (``index_dtype=`` forces one); fill value 0.

>>> import io, sparray.io
>>> f = io.BytesIO(b"%%MatrixMarket matrix coordinate real symmetric\\n3 3 2\\n1 1 2.5\\n3 1 -1\\n")
>>> A = sparray.io.mmread(f)
>>> A.to_dense()
array([[ 2.5,  0. , -1. ],
       [ 0. ,  0. ,  0. ],
       [-1. ,  0. ,  0. ]])
"""

from __future__ import annotations

import numpy as np

from ._mm_body import Parts, read_parts
from ._mm_fmm import fmm_available, read_parts_fmm
from ._mm_header import parse_header
from .._engine.progress import Progress, check_progress
from ._mm_source import open_binary, read_bytes, source_size

__all__ = ["mminfo", "mmread"]

_ENGINES = ("fmm", "sparray")
_LAYOUTS = ("coo", "csr", "csc", "bsr", "bsc")
_I32_MAX = 2**31 - 1


def _generalize(parts: Parts):
    """Full-matrix (rows, cols, values) of a coordinate file: mirrored entries appended."""
    r, c, v = parts.rows, parts.cols, parts.values
    sym = parts.header.symmetry
    if sym == "general":
        return r, c, v
    off = r != c
    mirror = v[off]
    if sym == "skew-symmetric":
        mirror = -mirror
    elif sym == "hermitian":
        mirror = mirror.conj()
    return np.concatenate([r, c[off]]), np.concatenate([c, r[off]]), np.concatenate([v, mirror])


def _index_dtype(index_dtype, shape, nse):
    fits = max(shape + (nse,)) <= _I32_MAX
    if index_dtype is None:
        return np.dtype(np.int32 if fits else np.int64)
    dt = np.dtype(index_dtype)
    if dt not in (np.int32, np.int64):
        raise TypeError(f"mmread: index_dtype must be int32 or int64; got {dt}")
    if dt == np.int32 and not fits:
        raise ValueError(f"mmread: index_dtype=int32 cannot hold shape {shape} with nse {nse}; use int64")
    return dt


def _to_sparse(parts: Parts, layout, index_dtype, blocksize):
    from .._array.coo import COO

    h = parts.header
    coalesced = None
    if parts.dense is not None:
        dense = parts.dense
        r, c = np.nonzero(dense)
        v = dense[r, c]
        coalesced = True  # np.nonzero is row-major: unique and sorted
    else:
        r, c, v = _generalize(parts)
    idt = _index_dtype(index_dtype, h.shape, r.size)
    indices = np.stack([r.astype(idt, copy=False), c.astype(idt, copy=False)])
    A = COO._from_parts(np, indices, np.ascontiguousarray(v), h.shape, np.zeros((), v.dtype), coalesced=coalesced)
    if layout != "coo" or blocksize is not None:
        A = A.to_layout(layout, blocksize=blocksize)
    return A


def _engine(engine):
    if engine is None:
        return "fmm" if fmm_available() else "sparray"
    if engine not in _ENGINES:
        raise ValueError(f"mmread: engine must be None, 'fmm' or 'sparray'; got {engine!r}")
    return engine


def mmread(source, *, layout="coo", index_dtype=None, engine=None, blocksize=None, progress=None):
    """Read a Matrix Market file into a SparseArray.

    Parameters
    ----------
    source : str, os.PathLike or file object
        A path (``.gz`` / ``.bz2`` are decompressed) or an open binary or text file.
    layout : {"coo", "csr", "csc", "bsr", "bsc"}
        Layout of the result (``A.to_layout(layout, blocksize=blocksize)`` of the COO read).
    index_dtype : int32 or int64, optional
        Default: int32 when the shape and nse fit, else int64.
    engine : {None, "fmm", "sparray"}
        ``"fmm"``: fast_matrix_market reads the body (multi-threaded); ``"sparray"``: sparray's
        numba parser (strict: every token checked). None: fmm when it is installed.
    blocksize : (int, int), optional
        For ``layout="bsr"`` / ``"bsc"``.

    progress : None, True or False
        A progress bar on standard error (bytes read, then the parsing and building steps):
        None shows it on a terminal once the read has taken 2 s; True always; False never.

    Every malformed file raises ValueError ``"mmread: line N: ..."`` (1-based, header and
    comment lines counted) naming what was expected and what came; see the module docstring
    for what the result holds.
    """
    if layout not in _LAYOUTS:
        raise ValueError(f"mmread: layout must be one of {', '.join(_LAYOUTS)}; got {layout!r}")
    check_progress("mmread", progress)
    fmm = _engine(engine) == "fmm"  # fast_matrix_market reads the file itself: steps only, no byte count
    with Progress(None if fmm else source_size(source), "mmread", progress=progress) as bar:
        if fmm:
            bar.stage("parsing (fast_matrix_market)")
            parts = read_parts_fmm(source)
        else:
            data = read_bytes(source, bar)
            bar.stage("parsing")
            parts = read_parts(data)
        bar.stage(f"building {layout.upper()}")
        A = _to_sparse(parts, layout, index_dtype, blocksize)
        bar.stage(f"done, nse={A.nse:,}")
    return A


def mminfo(source):
    """``(rows, cols, entries, format, field, symmetry)`` from the header, as ``scipy.io.mminfo``
    (entries: as stored, i.e. one triangle of a symmetric coordinate file; ``rows * cols``
    for an array file). Reads only the header.

    >>> import io, sparray.io
    >>> sparray.io.mminfo(io.BytesIO(b"%%MatrixMarket matrix coordinate pattern general\\n4 5 0\\n"))
    (4, 5, 0, 'coordinate', 'pattern', 'general')
    """
    with open_binary(source) as f:
        return parse_header(f.readline).info()
