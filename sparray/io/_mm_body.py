"""sparray's own Matrix Market reader: the header in Python, the body in one numba pass (a small
body in plain Python: ``_mm_small``).

``read_parts(data)`` takes the whole file as bytes and returns :class:`Parts`: the header and
the stored entries exactly as the file has them (coordinate: 0-based ``rows``, ``cols`` and
``values``; array: the dense matrix, symmetry already expanded, since an array file has no
separate triangle to mirror). Every problem is a ValueError ``"mmread: line N: ..."``; nothing
half-built escapes.

Values are correctly rounded (identical to ``float(token)``): the kernel converts the tokens
it can convert exactly (Clinger's fast path, Eisel-Lemire), the others go through NumPy's
string-to-float cast in bulk (``sparray/kernels/cpu/mmparse.py`` explains the split). Large bodies are
parsed in parallel chunks split at line ends; on any problem the sequential pass runs again
to report the exact line.

>>> p = read_parts(b"%%MatrixMarket matrix coordinate real general\\n2 2 1\\n2 1 0.5\\n")
>>> p.rows.tolist(), p.cols.tolist(), p.values.tolist()
([1], [0], [0.5])
"""

from __future__ import annotations

import io
from dataclasses import dataclass

import numpy as np

from . import _mm_small
from ._mm_header import MMHeader, parse_header

__all__ = ["VALUE_DTYPES", "Parts", "read_parts"]

VALUE_DTYPES = {"integer": np.int64, "real": np.float64, "complex": np.complex128, "pattern": np.float64}
_KIND = {"pattern": 0, "integer": 1, "real": 2, "complex": 3}
_SYM = {"general": 0, "symmetric": 1, "hermitian": 1, "skew-symmetric": 2}
_TOKEN_WIDTH = 32  # slow-path tokens up to this many bytes are converted in bulk
_CHUNK = 1 << 20


@dataclass
class Parts:
    """The entries of a file as stored: ``rows``/``cols`` int64 0-based and ``values``
    (coordinate; only the lower triangle for a non-general symmetry), or ``dense`` (array)."""

    header: MMHeader
    rows: np.ndarray | None = None
    cols: np.ndarray | None = None
    values: np.ndarray | None = None
    dense: np.ndarray | None = None


def _token_names(h: MMHeader) -> list[str]:
    vals = {"pattern": [], "complex": ["real part", "imaginary part"]}.get(h.field, ["value"])
    return (["row index", "column index"] if h.format == "coordinate" else []) + vals


def _raise(status, line, k, a, b, buf, h: MMHeader):
    from sparray.kernels.cpu import mmparse as K

    size_line = h.body_line - 1
    names = _token_names(h)
    if status == K.TRUNCATED:
        nlines = int(np.count_nonzero(buf == 10)) + (1 if buf.size and buf[-1] != 10 else 0)
        msg = (f"the file ends after {k} of the {h.entries} entries that the size line (line "
               f"{size_line}) declares")
        line = min(line, max(nlines, 1))
    elif status == K.TOO_MANY:
        msg = f"more entries than the {h.entries} that the size line (line {size_line}) declares"
    elif status == K.TOKEN_COUNT:
        msg = f"expected {b} tokens ({' '.join(n.replace(' ', '_') for n in names)}); found {a}"
    elif status in (K.BAD_INT, K.BAD_FLOAT, K.OVERFLOW):
        token = bytes(buf[a:b][:40]).decode("latin-1") + ("..." if b - a > 40 else "")
        name = names[k] if k < len(names) else "token"
        if status == K.OVERFLOW:
            msg = f"{name} {token} does not fit in int64"
        else:
            want = "an integer" if status == K.BAD_INT else "a real number"
            msg = f"{name}: expected {want}; got {token!r}"
    elif status in (K.ROW_RANGE, K.COL_RANGE):
        name = "row" if status == K.ROW_RANGE else "column"
        msg = f"{name} index {a} is out of range 1..{b}"
    elif status == K.ABOVE_DIAG:
        msg = (f"entry ({a}, {b}) is above the diagonal, but a {h.symmetry} file stores only the "
               "lower triangle (the file is malformed: mirroring it would double entries)")
    elif status == K.SKEW_DIAG:
        msg = (f"diagonal entry ({a}, {b}) in a skew-symmetric file, whose diagonal is zero and "
               "not stored (the file is malformed)")
    else:  # pragma: no cover - every status is handled above
        msg = f"parse error {status}"
    raise ValueError(f"mmread: line {line}: {msg}")


def _slow_values(buf, fvals, slow):
    """Convert the tokens the kernel left to the slow path, in place (correctly rounded)."""
    from sparray.kernels.cpu import mmparse as K

    idx = np.flatnonzero(slow)
    for lo in range(0, idx.size, _CHUNK):
        part = idx[lo : lo + _CHUNK]
        starts = fvals[part].astype(np.int64)
        out = np.zeros((part.size, _TOKEN_WIDTH), np.uint8)
        lens = K.gather_tokens(buf, starts, _TOKEN_WIDTH, out)
        long = np.flatnonzero(lens > _TOKEN_WIDTH)  # rare: a very long digit string
        out[long] = 0
        out[long, 0] = ord("0")
        with np.errstate(over="ignore"):  # 1e400 -> inf, as float() gives
            vals = out.view(f"S{_TOKEN_WIDTH}").ravel().astype(np.float64)
        for j in long:
            s = int(starts[j])
            vals[j] = float(bytes(buf[s : s + int(lens[j])]))
        fvals[part] = vals


def _array_dense(h: MMHeader, values):
    """The dense matrix of an array file from its stored values (column-major, lower triangle
    for a non-general symmetry)."""
    n, m = h.rows, h.cols
    if h.symmetry == "general":
        return np.ascontiguousarray(values.reshape(m, n).T)
    dense = np.zeros((n, m), values.dtype)
    # the lower triangle column by column is the upper triangle row by row, transposed
    c, r = np.triu_indices(n, 1 if h.symmetry == "skew-symmetric" else 0)
    dense[r, c] = values
    off = r != c
    mirror = values[off]
    if h.symmetry == "skew-symmetric":
        mirror = -mirror
    elif h.symmetry == "hermitian":
        mirror = mirror.conj()
    dense[c[off], r[off]] = mirror
    return dense


def _outputs(cap, coord, kind, nv):
    """Empty (rows, cols, ivals, fvals, slow) for ``cap`` entries (``slow`` zeroed)."""
    empty_i = np.zeros(0, np.int64)
    return (
        np.empty(cap, np.int64) if coord else empty_i,
        np.empty(cap, np.int64) if coord else empty_i,
        np.empty(cap, np.int64) if kind == 1 else empty_i,
        np.empty(cap * nv, np.float64) if kind >= 2 else np.zeros(0),
        np.zeros(cap * nv if kind >= 2 else 0, np.uint8),
    )


def _parse_parallel(K, buf, pos, nv, args):
    """The outputs of the chunked parallel parse, or None when the sequential pass must run
    (any error, or a body with many more lines than entries)."""
    import numba

    from ..kernels.cpu._threads import team

    with team(len(buf) - pos, 1 << 20):  # the threads of the parallel parse (one on a busy machine)
        return _parse_chunks(K, buf, pos, nv, args, 4 * numba.get_num_threads())


def _parse_chunks(K, buf, pos, nv, args, nchunks):
    nexp, coord, kind = args[0], args[1], args[2]
    starts = K.chunk_starts(buf, pos, nchunks)
    lines = K.count_newlines(buf, starts)
    caps = lines.copy()
    caps[-1] += 1  # the last line may have no newline
    if int(caps.sum()) > nexp + nexp // 8 + 64:
        return None  # mostly comments or blank lines (or garbage): not worth the memory
    offsets = np.zeros(caps.size + 1, np.int64)
    np.cumsum(caps, out=offsets[1:])
    out = _outputs(int(offsets[-1]), coord, kind, nv)
    total = K.parse_chunks(buf, starts, offsets, *args, *out)
    return out if total == nexp else None


#: bodies of at least this many bytes are parsed in parallel chunks (tests lower it)
PARALLEL_MIN_BYTES = 1 << 22


def read_parts(data: bytes) -> Parts:
    """Parse a whole Matrix Market file (bytes)."""
    stream = io.BytesIO(data)
    h = parse_header(stream.readline)
    pos = stream.tell()
    coord = h.format == "coordinate"
    kind = _KIND[h.field]
    if len(data) - pos < _mm_small.SMALL_BODY_BYTES:
        small = _mm_small.parse_small(data[pos:], n_entries=h.entries, coord=coord, kind=kind,
                                      shape=(h.rows, h.cols), sym=_SYM[h.symmetry])
        if small is not None:  # else the kernel parses it again and names the line at fault
            rows, cols, values = small
            return Parts(h, rows, cols, values) if coord else Parts(h, dense=_array_dense(h, values))
    from sparray.kernels.cpu import mmparse as K

    buf = np.frombuffer(data, np.uint8)
    nv = {0: 0, 1: 1, 2: 1, 3: 2}[kind]
    ntok = nv + (2 if coord else 0)
    args = (h.entries, int(coord), kind, h.rows, h.cols, _SYM[h.symmetry])
    out = _parse_parallel(K, buf, pos, nv, args) if buf.size - pos >= PARALLEL_MIN_BYTES else None
    if out is None:  # small body, many comment lines, or an error: the sequential pass says exactly what
        # every entry takes at least 2 * ntok - 1 bytes plus a newline: never allocate beyond that
        cap = min(h.entries, (buf.size - pos + 1) // (2 * ntok) + 1)
        out = _outputs(cap, coord, kind, nv)
        status, line, k, a, b = K.parse_body(buf, pos, h.body_line, *args, *out)
        if status != K.OK:
            _raise(status, line, k, a, b, buf, h)
    rows, cols, ivals, fvals, slow = (x[: h.entries * m] for x, m in zip(out, (1, 1, 1, nv, nv)))
    if kind >= 2:
        _slow_values(buf, fvals, slow)
    if kind == 0:
        values = np.ones(h.entries, np.float64)
    elif kind == 1:
        values = ivals
    elif kind == 2:
        values = fvals
    else:
        values = fvals.view(np.complex128)
    if coord:
        return Parts(h, rows, cols, values)
    return Parts(h, dense=_array_dense(h, values))
