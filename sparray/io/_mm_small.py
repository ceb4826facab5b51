"""Small Matrix Market bodies in plain Python: no numba kernel to compile or load.

A body of fewer than ``SMALL_BODY_BYTES`` bytes (a few thousand entries) is parsed here: Python's
``int`` and ``float`` (correctly rounded, the reference the kernel matches) on the tokens split at
blanks, which costs well under a millisecond per thousand entries, where compiling the numba body
parser on a fresh machine costs seconds and loading it from the cache a few hundred milliseconds.

The grammar is the kernel's (``sparray/kernels/cpu/mmparse.py``), checked token by token with
regular expressions, so that this path accepts exactly what the kernel accepts: an integer is
``[+-]?[0-9]+`` within int64; a real is ``[+-]?(digits[.digits]|.digits)([eE][+-]?digits)?`` or
``[+-]?(inf|infinity|nan)`` in any case; tokens are separated by spaces, tabs and carriage
returns, lines by ``\\n``; a line whose first non-blank byte is ``%`` is a comment. On anything
else (a bad token, a wrong count, an index out of range, an entry above the diagonal of a
symmetric file) :func:`parse_small` returns None and the kernel parses the body again to report
the exact line: the messages stay in one place.

>>> parse_small(b"2 1 0.5\\n", n_entries=1, coord=True, kind=2, shape=(2, 2), sym=0)
(array([1]), array([0]), array([0.5]))
"""

from __future__ import annotations

import re

import numpy as np

__all__ = ["SMALL_BODY_BYTES", "parse_small"]

#: bodies shorter than this are parsed in Python (tests set it to 0 to run the kernels)
SMALL_BODY_BYTES = 1 << 15

_INT = re.compile(rb"[+-]?[0-9]+\Z")
_REAL = re.compile(rb"[+-]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?\Z|[+-]?(?:inf|infinity|nan)\Z", re.I)
_BLANKS = re.compile(rb"[ \t\r]+")
_I64 = (-(1 << 63), (1 << 63) - 1)


def _int(token: bytes):
    if not _INT.match(token):
        return None
    v = int(token)
    return v if _I64[0] <= v <= _I64[1] else None


def _real(token: bytes):
    return float(token) if _REAL.match(token) else None


def parse_small(body: bytes, *, n_entries: int, coord: bool, kind: int, shape: tuple, sym: int):
    """``(rows, cols, values)`` of a coordinate body (0-based int64 indices; for an array body
    rows and cols are empty and ``values`` holds the stored values column by column), or None when
    the body is not exactly ``n_entries`` well-formed entries (the kernel then says why).

    ``kind``: 0 pattern, 1 integer, 2 real, 3 complex; ``sym``: 0 general, 1 symmetric or
    hermitian (entries on or below the diagonal), 2 skew-symmetric (strictly below)."""
    nv = (0, 1, 1, 2)[kind]
    ntok = nv + (2 if coord else 0)
    nrows, ncols = shape
    rows, cols, vals = [], [], []
    convert = _int if kind == 1 else _real
    for line in body.split(b"\n"):
        tokens = _BLANKS.split(line.strip(b" \t\r"))
        if tokens == [b""] or tokens[0].startswith(b"%"):
            continue  # a blank line or a comment (a '%' after blanks starts a comment as well)
        if len(tokens) != ntok or len(rows if coord else vals) >= n_entries * (1 if coord else nv):
            return None
        if coord:
            r, c = _int(tokens[0]), _int(tokens[1])
            if r is None or c is None or not (1 <= r <= nrows and 1 <= c <= ncols):
                return None
            if (sym == 1 and r < c) or (sym == 2 and r <= c):
                return None
            rows.append(r - 1)
            cols.append(c - 1)
        for token in tokens[ntok - nv:]:
            v = convert(token)
            if v is None:
                return None
            vals.append(v)
    if len(vals) != n_entries * nv or (coord and len(rows) != n_entries):
        return None
    dtype = (np.float64, np.int64, np.float64, np.float64)[kind]
    values = np.array(vals, dtype)
    if kind == 0:
        values = np.ones(n_entries, np.float64)
    elif kind == 3:
        values = values.view(np.complex128)
    return np.array(rows, np.int64), np.array(cols, np.int64), values
