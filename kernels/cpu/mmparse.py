"""Matrix Market body parser: one pass over the bytes after the size line.

``parse_body(buf, pos, line, nexp, coord, kind, nrows, ncols, sym, rows, cols, ivals, fvals, slow)``
reads ``nexp`` entries starting at byte ``pos`` (which is on line ``line``, 1-based) of the
uint8 buffer ``buf``. ``coord``: 1 for a coordinate file (two 1-based indices before the
values), 0 for an array file. ``kind``: 0 pattern, 1 integer, 2 real, 3 complex (values per
entry: 0, 1, 1, 2). ``sym``: 0 general, 1 symmetric / hermitian (needs row >= col), 2
skew-symmetric (needs row > col). It writes 0-based ``rows[k]``, ``cols[k]`` (coordinate
only), ``ivals[k]`` (integer) or ``fvals[k * nv + t]`` (real, complex) and returns
``(status, line, k, a, b)``: status 0 with ``k`` entries read, else an error code below with
the line it happened on and numbers that describe it: for a bad token, ``k`` is its
position on the line and ``a:b`` its bytes; otherwise see the comments on the codes.

Invariants:

- every read of ``buf`` and write of an output is bounds-checked: any byte string is safe
  (no newline at the end, a token at the end of the buffer, a million digits);
- integers are parsed exactly, with overflow checks (int64);
- a real token is *correctly rounded*, i.e. identical to Python's ``float(token)``: it is
  converted here only where that is provably exact (Clinger's fast path: at most 15
  significant digits and a decimal exponent in [-22, 22], one multiplication or division by
  an exactly representable power of ten; zeros, ``inf`` and ``nan``). Any other valid token
  gets ``slow[slot] = 1`` and ``fvals[slot] = its byte offset``; the caller converts those
  with :func:`gather_tokens` and NumPy's correctly rounded string cast.

Grammar of a real token (what ``float()`` accepts, minus underscores and surrounding space):
``[+-]? (digits [. digits?] | . digits) ([eE] [+-]? digits)?`` or ``[+-]? (inf | infinity | nan)``
in any case. Lines end with ``\\n``; ``\\r``, space and tab separate tokens; blank lines and
lines starting with ``%`` are skipped.

>>> import numpy as np
>>> buf = np.frombuffer(b"1 2 0.5\\n3 1 -2e3\\n", np.uint8)
>>> rows, cols = np.zeros(2, np.int64), np.zeros(2, np.int64)
>>> fv = np.zeros(2)
>>> parse_body(buf, 0, 3, 2, 1, 2, 3, 3, 0, rows, cols, np.zeros(0, np.int64), fv, np.zeros(2, np.uint8))
(0, 5, 2, 0, 0)
>>> rows.tolist(), cols.tolist(), fv.tolist()
([0, 2], [1, 0], [0.5, -2000.0])
"""

import math

import numba
import numpy as np

__all__ = ["MESSAGES", "OK", "gather_tokens", "parse_body"]

OK = 0
TRUNCATED = 1  # k = entries read, line = last line of the file
TOO_MANY = 2  # line = first extra data line
TOKEN_COUNT = 3  # a = tokens found, b = tokens expected
BAD_INT = 4  # a, b = token start and end byte
BAD_FLOAT = 5  # a, b = token start and end byte
OVERFLOW = 6  # a, b = token start and end byte
ROW_RANGE = 7  # a = 1-based row index
COL_RANGE = 8  # a = 1-based column index
ABOVE_DIAG = 9  # a, b = 1-based row, col
SKEW_DIAG = 10  # a = 1-based row (= col)

#: status -> short description (the reader turns these into full messages).
MESSAGES = {
    TRUNCATED: "file ends early",
    TOO_MANY: "more entries than the size line says",
    TOKEN_COUNT: "wrong number of tokens",
    BAD_INT: "not an integer",
    BAD_FLOAT: "not a number",
    OVERFLOW: "integer does not fit in int64",
    ROW_RANGE: "row index out of range",
    COL_RANGE: "column index out of range",
    ABOVE_DIAG: "entry above the diagonal",
    SKEW_DIAG: "diagonal entry in a skew-symmetric file",
}

# 10**k for k = 0..22: every one is exactly representable in float64 (5**22 < 2**53)
_POW10 = np.array([10.0**k for k in range(23)])
_I64_MAX = 9223372036854775807


@numba.njit(cache=True, nogil=True)
def _is_space(c):
    return c == 32 or c == 9 or c == 13


@numba.njit(cache=True, nogil=True)
def _parse_int(buf, s, e):
    """(status, value) of the integer token buf[s:e]: status OK, BAD_INT or OVERFLOW."""
    i = s
    neg = False
    if buf[i] == 43 or buf[i] == 45:  # + -
        neg = buf[i] == 45
        i += 1
    if i == e:
        return BAD_INT, 0
    v = 0
    while i < e:
        d = np.int64(buf[i]) - 48
        if d < 0 or d > 9:
            return BAD_INT, 0
        if v > (_I64_MAX - d) // 10:
            # -2**63 is the one value whose magnitude does not fit
            if neg and i == e - 1 and v == 922337203685477580 and d == 8:
                return OK, -_I64_MAX - 1
            # keep scanning for a bad character: that error comes first
            for j in range(i + 1, e):
                if buf[j] < 48 or buf[j] > 57:
                    return BAD_INT, 0
            return OVERFLOW, 0
        v = v * 10 + d
        i += 1
    return OK, -v if neg else v


@numba.njit(cache=True, nogil=True)
def _match_word(buf, s, e, word):
    """Whether buf[s:e] equals the lowercase ASCII ``word`` (a tuple of codes) in any case."""
    if e - s != len(word):
        return False
    for t in range(len(word)):
        c = np.int64(buf[s + t])
        if 65 <= c <= 90:
            c += 32
        if c != word[t]:
            return False
    return True


@numba.njit(cache=True, nogil=True)
def _parse_float(buf, s, e):
    """(status, value) of the real token buf[s:e]: OK (value exact), -1 (valid, needs the
    slow path) or BAD_FLOAT."""
    i = s
    neg = False
    if buf[i] == 43 or buf[i] == 45:
        neg = buf[i] == 45
        i += 1
    if i == e:
        return BAD_FLOAT, 0.0
    c = buf[i]
    if c == 105 or c == 73 or c == 110 or c == 78:  # i I n N
        if _match_word(buf, i, e, (105, 110, 102)) or _match_word(buf, i, e, (105, 110, 102, 105, 110, 105, 116, 121)):
            return OK, -np.inf if neg else np.inf
        if _match_word(buf, i, e, (110, 97, 110)):
            return OK, math.copysign(math.nan, -1.0 if neg else 1.0)
        return BAD_FLOAT, 0.0
    m = 0  # significant digits, while there are at most 19 of them
    nsig = 0  # significant digits seen (leading zeros excluded)
    ndig = 0  # digits seen
    drop = 0  # power of ten of the digits not kept in m (integer part beyond 19 digits)
    nfrac = 0  # fraction digits kept in m or skipped as leading zeros
    while i < e and 48 <= buf[i] <= 57:
        d = np.int64(buf[i]) - 48
        ndig += 1
        if nsig > 0 or d != 0:
            nsig += 1
            if nsig <= 19:
                m = m * 10 + d
            else:
                drop += 1
        i += 1
    if i < e and buf[i] == 46:  # '.'
        i += 1
        while i < e and 48 <= buf[i] <= 57:
            d = np.int64(buf[i]) - 48
            ndig += 1
            if nsig > 0 or d != 0:
                nsig += 1
                if nsig <= 19:
                    m = m * 10 + d
                    nfrac += 1
            else:
                nfrac += 1
            i += 1
    if ndig == 0:
        return BAD_FLOAT, 0.0
    exp = 0
    if i < e and (buf[i] == 101 or buf[i] == 69):  # e E
        i += 1
        eneg = False
        if i < e and (buf[i] == 43 or buf[i] == 45):
            eneg = buf[i] == 45
            i += 1
        if i == e:
            return BAD_FLOAT, 0.0
        while i < e and 48 <= buf[i] <= 57:
            if exp < 100000:  # clamp: far beyond any float64, no overflow
                exp = exp * 10 + (np.int64(buf[i]) - 48)
            i += 1
        if eneg:
            exp = -exp
    if i != e:
        return BAD_FLOAT, 0.0
    if m == 0:
        return OK, -0.0 if neg else 0.0
    if nsig > 15:
        return -1, 0.0
    e10 = exp + drop - nfrac
    if 0 <= e10 <= 22:
        v = np.float64(m) * _POW10[e10]
    elif -22 <= e10 < 0:
        v = np.float64(m) / _POW10[-e10]
    else:
        return -1, 0.0
    return OK, -v if neg else v


@numba.njit(cache=True, nogil=True)
def parse_body(buf, pos, line, nexp, coord, kind, nrows, ncols, sym, rows, cols, ivals, fvals, slow):
    nv = 2 if kind == 3 else (0 if kind == 0 else 1)
    ntok = nv + (2 if coord else 0)
    cap = nexp
    if coord and (rows.shape[0] < cap or cols.shape[0] < cap):
        cap = min(rows.shape[0], cols.shape[0])
    if kind == 1 and ivals.shape[0] < cap:
        cap = ivals.shape[0]
    if kind >= 2 and (fvals.shape[0] < cap * nv or slow.shape[0] < cap * nv):
        cap = min(fvals.shape[0], slow.shape[0]) // nv
    n = buf.shape[0]
    p = pos
    k = 0
    while p < n:
        q = p
        while q < n and _is_space(buf[q]):
            q += 1
        if q >= n:
            break
        if buf[q] == 10:  # blank line
            p = q + 1
            line += 1
            continue
        if buf[q] == 37:  # '%' comment
            while q < n and buf[q] != 10:
                q += 1
            p = q + 1
            line += 1
            continue
        if k >= nexp or k >= cap:
            return TOO_MANY, line, k, 0, 0
        t = 0
        r = 0
        c = 0
        while True:
            while q < n and _is_space(buf[q]):
                q += 1
            if q >= n or buf[q] == 10:
                break
            s = q
            while q < n and not _is_space(buf[q]) and buf[q] != 10:
                q += 1
            if t < ntok:
                if coord and t < 2:
                    st, iv = _parse_int(buf, s, q)
                    if st != OK:
                        return st, line, t, s, q
                    if t == 0:
                        r = iv
                    else:
                        c = iv
                elif kind == 1:
                    st, iv = _parse_int(buf, s, q)
                    if st != OK:
                        return st, line, t, s, q
                    ivals[k] = iv
                else:
                    st, fv = _parse_float(buf, s, q)
                    if st == BAD_FLOAT:
                        return st, line, t, s, q
                    slot = k * nv + t - (2 if coord else 0)
                    if st == OK:
                        fvals[slot] = fv
                    else:
                        fvals[slot] = np.float64(s)
                        slow[slot] = 1
            t += 1
        if t != ntok:
            return TOKEN_COUNT, line, k, t, ntok
        if coord:
            if r < 1 or r > nrows:
                return ROW_RANGE, line, k, r, nrows
            if c < 1 or c > ncols:
                return COL_RANGE, line, k, c, ncols
            if sym == 1 and r < c:
                return ABOVE_DIAG, line, k, r, c
            if sym == 2 and r <= c:
                return (SKEW_DIAG if r == c else ABOVE_DIAG), line, k, r, c
            rows[k] = r - 1
            cols[k] = c - 1
        k += 1
        if q >= n:
            break
        p = q + 1
        line += 1
    if k < nexp:
        last = line if (n > 0 and buf[n - 1] != 10) or p < n else line - 1
        return TRUNCATED, max(last, 1), k, 0, 0
    return OK, line, k, 0, 0


@numba.njit(cache=True, nogil=True)
def gather_tokens(buf, starts, width, out):
    """Copy the token starting at each ``starts[j]`` (up to whitespace or the end of ``buf``)
    into row ``j`` of the uint8 array ``out`` (``(len(starts), width)``, zero-padded); return the
    token lengths (a token longer than ``width`` is cut there: the caller converts it itself)."""
    n = buf.shape[0]
    lens = np.zeros(starts.shape[0], np.int64)
    for j in range(min(starts.shape[0], out.shape[0])):
        s = starts[j]
        if s < 0 or s >= n:
            continue
        q = s
        while q < n and not _is_space(buf[q]) and buf[q] != 10:
            if q - s < width and q - s < out.shape[1]:
                out[j, q - s] = buf[q]
            q += 1
        lens[j] = q - s
    return lens
