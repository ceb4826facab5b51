"""The ``fast_matrix_market`` engine: the same :class:`~._mm_body.Parts` as sparray's reader.

The header is parsed by :func:`._mm_header.parse_header` (so both engines accept the same
headers and report header errors alike); fmm reads the body (multi-threaded C++) without
expanding the symmetry, and :mod:`._mm_read` expands it the same way for both engines.

When fmm raises, or when a symmetric file has an entry above the diagonal (fmm does not check),
sparray's own parser re-reads the file: it raises the error with its line number, or, when the
file is valid after all, returns its entries. fmm 1.7 rejects some valid files: comment or blank
lines between entries (the specification allows them), and a leading ``+`` on a value (``+.5``),
which Python's ``float`` accepts; so both engines agree on every valid file.

fmm 1.7 crashes (segfault) on a file whose last line ends in a cut exponent (``1 1 1e``, no
newline) and on a NUL byte after a number; so fmm only gets files that end with a newline and
hold no NUL byte (checked with one ``memchr`` over a memory map). Other files, and compressed
ones, go to sparray's parser, which reads them the same way.

fmm is more lenient than sparray's parser inside a line (extra tokens after the values, and
trailing junk after a number such as ``1.5x`` are ignored): use ``engine="sparray"`` to
validate a file strictly.

>>> import io
>>> p = read_parts_fmm(io.BytesIO(b"%%MatrixMarket matrix coordinate integer general\\n2 2 1\\n1 2 7\\n"))
>>> p.rows.tolist(), p.cols.tolist(), p.values.tolist()
([0], [1], [7])
"""

from __future__ import annotations

import io
import mmap
import os

import numpy as np

from ._mm_body import VALUE_DTYPES, Parts, read_parts
from ._mm_header import parse_header
from ._mm_source import as_path, open_binary, read_bytes

__all__ = ["fmm_available", "read_parts_fmm"]


def fmm_available() -> bool:
    try:
        import fast_matrix_market  # noqa: F401
    except ImportError:
        return False
    return True


def _import_fmm():
    try:
        import fast_matrix_market as fmm
    except ImportError:
        raise ImportError(
            "mmread: engine='fmm' needs the fast_matrix_market package "
            "(pip install 'sparray[io]' or pip install fast_matrix_market); or use engine='sparray'"
        ) from None
    return fmm


def _reread(data_or_path) -> Parts:
    """sparray's parser on the same file: the line-numbered error, or the entries."""
    data = read_bytes(data_or_path) if not isinstance(data_or_path, bytes) else data_or_path
    return read_parts(data)


def _fmm_safe(data) -> bool:
    """Whether fmm 1.7 can be given these bytes (bytes or an mmap) without crashing."""
    return len(data) > 0 and data[-1:] == b"\n" and data.find(b"\x00") < 0


def _path_safe(path: str) -> bool:
    if path.endswith((".gz", ".bz2")) or os.path.getsize(path) == 0:
        return False
    with open(path, "rb") as f, mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ) as m:
        return _fmm_safe(m)


def read_parts_fmm(source) -> Parts:
    fmm = _import_fmm()
    path = as_path(source)
    if path is not None and not _path_safe(path):
        source, path = read_bytes(path), None
    if path is not None:
        with open_binary(path) as f:
            h = parse_header(f.readline)
        size = os.path.getsize(path)
        origin = path
        make_src = lambda: path
    else:
        data = source if isinstance(source, bytes) else read_bytes(source)
        if not _fmm_safe(data):
            return read_parts(data)
        h = parse_header(io.BytesIO(data).readline)
        size = len(data)
        origin = data
        make_src = lambda: io.BytesIO(data)
    if h.entries == 0 or h.rows == 0 or h.cols == 0:
        # nothing for fmm to do, and fmm 1.7 crashes (SIGFPE) on a 0 x 0 array file
        return _reread(origin)
    nv = 2 if h.field == "complex" else 1
    if size is not None and h.entries * (2 * nv + (2 if h.format == "coordinate" else 0) - 1) > size:
        # the file cannot hold that many entries: let our parser say where it ends (and spare
        # fmm an allocation the size line asks for)
        return _reread(origin)
    try:
        if h.format == "array":
            return Parts(h, dense=np.asarray(fmm.read_array(make_src()), dtype=VALUE_DTYPES[h.field]))
        (values, (rows, cols)), _ = fmm.read_coo(make_src(), generalize_symmetry=False)
    except (ValueError, OverflowError, RuntimeError, MemoryError):
        return _reread(origin)
    if h.symmetry != "general" and rows.size:
        bad = rows <= cols if h.symmetry == "skew-symmetric" else rows < cols
        if bad.any():
            return _reread(origin)
    return Parts(h, rows, cols, np.asarray(values, dtype=VALUE_DTYPES[h.field]))
