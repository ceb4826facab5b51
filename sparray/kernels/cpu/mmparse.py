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
- a real token is *correctly rounded*, i.e. identical to Python's ``float(token)``. It is
  converted here where that is provably exact: Clinger's fast path (at most 15 significant
  digits and a decimal exponent in [-22, 22]: one multiplication or division by an exactly
  representable power of ten), the Eisel-Lemire algorithm (16 to 18 significant digits, a
  normal float64 result: a 64x128-bit product with a truncated power of five, rounded to
  nearest-even; the few products it cannot decide are sent to the slow path), zeros, ``inf``
  and ``nan``. Any other valid token (19 or more significant digits, subnormal or overflowing
  results) gets ``slow[slot] = 1`` and ``fvals[slot] = its byte offset``; the caller converts
  those with :func:`gather_tokens` and NumPy's correctly rounded string cast.

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
from . import _cache  # noqa: F401  (compiled kernels go to the per-user cache, see _cache.py)

__all__ = ["MESSAGES", "OK", "chunk_starts", "count_newlines", "gather_tokens", "parse_body", "parse_chunks"]

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


def _powers_of_five_128():
    """(hi, lo) uint64 halves of 5**q normalised to [2**127, 2**128), for q in [-342, 308].

    q >= 0: 5**q shifted so its top bit is bit 127, truncated. q < 0: 2**b / 5**-q rounded up
    (exactly, for q >= -27) or computed with 128 extra bits and then truncated: a slight
    over-estimate of the true ratio, which the algorithm's error analysis assumes.
    """
    out = []
    for q in range(_Q_MIN, _Q_MAX + 1):
        if q >= 0:
            v = 5**q
            v = v << max(0, 127 - (v.bit_length() - 1))
            v = v >> max(0, v.bit_length() - 128)
        else:
            p5 = 5**-q
            z = p5.bit_length() if p5 & (p5 - 1) else p5.bit_length() - 1  # smallest z with 2**z >= p5
            if q >= -27:
                v = (1 << (z + 127)) // p5 + 1
            else:
                v = (1 << (2 * z + 128)) // p5 + 1
                v = v >> max(0, v.bit_length() - 128)
        out.append((v >> 64, v & 0xFFFFFFFFFFFFFFFF))
    table = np.array(out, dtype=np.uint64)
    return np.ascontiguousarray(table[:, 0]), np.ascontiguousarray(table[:, 1])


_Q_MIN, _Q_MAX = -342, 308
_P5_HI, _P5_LO = _powers_of_five_128()
_U32 = np.uint64(0xFFFFFFFF)
_U64_MAX = np.uint64(0xFFFFFFFFFFFFFFFF)


@numba.njit(cache=True, nogil=True)
def _mul_64x64(a, b):
    """(hi, lo) of the exact 128-bit product of uint64 ``a`` and ``b``."""
    s32 = np.uint64(32)
    a_lo, a_hi = a & _U32, a >> s32
    b_lo, b_hi = b & _U32, b >> s32
    p0 = a_lo * b_lo
    p1 = a_lo * b_hi
    p2 = a_hi * b_lo
    p3 = a_hi * b_hi
    mid = (p0 >> s32) + (p1 & _U32) + (p2 & _U32)
    lo = (p0 & _U32) | (mid << s32)
    hi = p3 + (p1 >> s32) + (p2 >> s32) + (mid >> s32)
    return hi, lo


@numba.njit(cache=True, nogil=True)
def _eisel_lemire(w, q):
    """(ok, value) of ``w * 10**q`` correctly rounded, for 0 < w < 2**63; ``ok`` is False when
    the result is subnormal, overflows, or the truncated product cannot decide the rounding."""
    if q < _Q_MIN or q > _Q_MAX:
        return False, 0.0
    one = np.uint64(1)
    lz = 0
    while (w >> np.uint64(63)) == np.uint64(0):
        w = w << one
        lz += 1
    idx = q - _Q_MIN
    hi, lo = _mul_64x64(w, _P5_HI[idx])
    mask = np.uint64(0x1FF)  # the 9 bits below the 55 that decide a float64's rounding
    if (hi & mask) == mask:
        hi2, _ = _mul_64x64(w, _P5_LO[idx])
        new_lo = lo + hi2
        if new_lo < lo:
            hi = hi + one
        lo = new_lo
        if (hi & mask) == mask and lo == _U64_MAX and (q < -27 or q > 55):
            return False, 0.0
    upper = np.int64(hi >> np.uint64(63))
    shift = np.uint64(upper + 9)
    mant = hi >> shift
    power2 = ((217706 * q) >> 16) + 63 + upper - lz + 1023
    if power2 <= 0 or power2 >= 2046:
        return False, 0.0
    if lo <= one and -4 <= q <= 23 and (mant & np.uint64(3)) == one and (mant << shift) == hi:
        mant = mant & ~one  # exactly halfway: round to even
    mant = mant + (mant & one)
    mant = mant >> one
    if mant >= (np.uint64(2) << np.uint64(52)):
        mant = np.uint64(1) << np.uint64(52)
        power2 += 1
    return True, math.ldexp(np.float64(mant), power2 - 1075)


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
    m = 0  # the significant digits, while there are at most 18 of them (exact in int64)
    nsig = 0  # significant digits seen (leading zeros excluded)
    ndig = 0  # digits seen
    drop = 0  # power of ten of the digits not kept in m (integer part beyond 18 digits)
    nfrac = 0  # fraction digits kept in m or skipped as leading zeros
    while i < e and 48 <= buf[i] <= 57:
        d = np.int64(buf[i]) - 48
        ndig += 1
        if nsig > 0 or d != 0:
            nsig += 1
            if nsig <= 18:
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
                if nsig <= 18:
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
    e10 = exp + drop - nfrac
    if nsig > 15:
        if nsig <= 18:  # m < 10**18 < 2**63
            ok, v = _eisel_lemire(np.uint64(m), e10)
            if ok:
                return OK, -v if neg else v
        return -1, 0.0
    if 0 <= e10 <= 22:
        v = np.float64(m) * _POW10[e10]
    elif -22 <= e10 < 0:
        v = np.float64(m) / _POW10[-e10]
    else:
        return -1, 0.0
    return OK, -v if neg else v


@numba.njit(cache=True, nogil=True)
def _capacity(nexp, coord, kind, nv, rows, cols, ivals, fvals, slow):
    """How many entries the output arrays can hold (at most ``nexp``)."""
    cap = nexp
    if coord and (rows.shape[0] < cap or cols.shape[0] < cap):
        cap = min(rows.shape[0], cols.shape[0])
    if kind == 1 and ivals.shape[0] < cap:
        cap = ivals.shape[0]
    if kind >= 2 and (fvals.shape[0] < cap * nv or slow.shape[0] < cap * nv):
        cap = min(fvals.shape[0], slow.shape[0]) // nv
    return cap


@numba.njit(cache=True, nogil=True)
def _parse_lines(buf, p, end, line, k, kmax, coord, kind, nrows, ncols, sym, rows, cols, ivals, fvals, slow):
    """Parse the lines starting in ``buf[p:end]`` (``p`` at a line start), writing entries
    ``k, k + 1, ...`` below ``kmax``; returns ``(status, line, k, a, b, p)`` where ``k`` is the
    next entry index and ``p`` the position after the last line read."""
    nv = 2 if kind == 3 else (0 if kind == 0 else 1)
    ntok = nv + (2 if coord else 0)
    n = buf.shape[0]
    while p < end:
        q = p
        while q < n and _is_space(buf[q]):
            q += 1
        if q >= n:
            return OK, line, k, 0, 0, n
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
        if k >= kmax:
            return TOO_MANY, line, k, 0, 0, p
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
                        return st, line, t, s, q, p
                    if t == 0:
                        r = iv
                    else:
                        c = iv
                elif kind == 1:
                    st, iv = _parse_int(buf, s, q)
                    if st != OK:
                        return st, line, t, s, q, p
                    ivals[k] = iv
                else:
                    st, fv = _parse_float(buf, s, q)
                    if st == BAD_FLOAT:
                        return st, line, t, s, q, p
                    slot = k * nv + t - (2 if coord else 0)
                    if st == OK:
                        fvals[slot] = fv
                    else:
                        fvals[slot] = np.float64(s)
                        slow[slot] = 1
            t += 1
        if t != ntok:
            return TOKEN_COUNT, line, k, t, ntok, p
        if coord:
            if r < 1 or r > nrows:
                return ROW_RANGE, line, k, r, nrows, p
            if c < 1 or c > ncols:
                return COL_RANGE, line, k, c, ncols, p
            if sym == 1 and r < c:
                return ABOVE_DIAG, line, k, r, c, p
            if sym == 2 and r <= c:
                return (SKEW_DIAG if r == c else ABOVE_DIAG), line, k, r, c, p
            rows[k] = r - 1
            cols[k] = c - 1
        k += 1
        if q >= n:
            return OK, line, k, 0, 0, n
        p = q + 1
        line += 1
    return OK, line, k, 0, 0, p


@numba.njit(cache=True, nogil=True)
def parse_body(buf, pos, line, nexp, coord, kind, nrows, ncols, sym, rows, cols, ivals, fvals, slow):
    """Sequential parse of the whole body; exact statuses and line numbers for every error."""
    nv = 2 if kind == 3 else (0 if kind == 0 else 1)
    cap = _capacity(nexp, coord, kind, nv, rows, cols, ivals, fvals, slow)
    n = buf.shape[0]
    st, line, k, a, b, p = _parse_lines(buf, pos, n, line, 0, min(nexp, cap), coord, kind, nrows, ncols, sym,
                                        rows, cols, ivals, fvals, slow)
    if st != OK:
        return st, line, k, a, b
    if k < nexp:
        last = line if (n > 0 and buf[n - 1] != 10) or p < n else line - 1
        return TRUNCATED, max(last, 1), k, 0, 0
    return OK, line, k, 0, 0


@numba.njit(cache=True, nogil=True)
def chunk_starts(buf, pos, nchunks):
    """``nchunks + 1`` non-decreasing byte offsets from ``pos`` to ``len(buf)``, each inner one
    just after a newline, so that no line crosses a chunk boundary."""
    n = buf.shape[0]
    starts = np.empty(nchunks + 1, np.int64)
    starts[0] = pos
    starts[nchunks] = n
    for c in range(1, nchunks):
        q = max(pos + (n - pos) * c // nchunks, starts[c - 1])
        while q < n and q > pos and buf[q - 1] != 10:
            q += 1
        starts[c] = q
    return starts


@numba.njit(cache=True, parallel=True)
def count_newlines(buf, starts):
    """Newlines in each chunk ``buf[starts[c]:starts[c + 1]]``."""
    nchunks = starts.shape[0] - 1
    out = np.zeros(nchunks, np.int64)
    for c in numba.prange(nchunks):
        cnt = 0
        for q in range(starts[c], starts[c + 1]):
            cnt += np.int64(buf[q] == 10)  # branch-free: the loop vectorises
        out[c] = cnt
    return out


@numba.njit(cache=True, parallel=True)
def parse_chunks(buf, starts, offsets, nexp, coord, kind, nrows, ncols, sym, rows, cols, ivals, fvals, slow):
    """Parse every chunk in parallel, chunk ``c`` into entries ``offsets[c]:offsets[c + 1]``
    (its capacity: its newlines, plus one for the last chunk), then close the gaps left by
    blank and comment lines. Returns the number of entries, or -1 on any problem (a bad line,
    a count other than ``nexp``, outputs too small): the caller then runs :func:`parse_body`
    for the exact error and line number."""
    nchunks = starts.shape[0] - 1
    nv = 2 if kind == 3 else (0 if kind == 0 else 1)
    if offsets.shape[0] != nchunks + 1 or offsets[nchunks] > _capacity(offsets[nchunks], coord, kind, nv, rows, cols,
                                                                       ivals, fvals, slow):
        return -1
    status = np.zeros(nchunks, np.int64)
    counts = np.zeros(nchunks, np.int64)
    for c in numba.prange(nchunks):
        st, _, k, _, _, _ = _parse_lines(buf, starts[c], starts[c + 1], 0, offsets[c], offsets[c + 1], coord, kind,
                                         nrows, ncols, sym, rows, cols, ivals, fvals, slow)
        status[c] = st
        counts[c] = k - offsets[c]
    total = 0
    for c in range(nchunks):
        if status[c] != OK:
            return -1
        total += counts[c]
    if total != nexp:
        return -1
    dst = 0
    for c in range(nchunks):  # dst <= offsets[c]: forward copies never overwrite unread entries
        src = offsets[c]
        if src != dst:
            for j in range(counts[c]):
                if coord:
                    rows[dst + j] = rows[src + j]
                    cols[dst + j] = cols[src + j]
                if kind == 1:
                    ivals[dst + j] = ivals[src + j]
                for t in range(nv):
                    fvals[(dst + j) * nv + t] = fvals[(src + j) * nv + t]
                    slow[(dst + j) * nv + t] = slow[(src + j) * nv + t]
        dst += counts[c]
    return total


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
