"""Sparse @ sparse: ``spgemm(a_crow, a_col, a_values, b_crow, b_col, b_values, ncols)``, CSR x CSR -> CSR.

- :func:`spgemm` -- C = A @ B for A (M x K) and B (K x ncols) in CSR, C in CSR with sorted,
  unique columns in every row.

Conventions.  Index inputs are 1-D int32 or int64 (other integer dtypes are converted to
int64; if the four index arrays do not all have one dtype they are all used as int64).  Within
a row the column indices may come in any order and may repeat (repeats add).  The pointers
must satisfy ``0 <= crow[0] <= crow[1] <= ... <= crow[-1] <= len(col)``; the entries outside
``crow[0]:crow[-1]`` are ignored.  Values are 1-D, ``len(values) == len(col)``, both operands
of one dtype among (u)int8..64, float32/64, complex64/128 (else KernelDeclined); integers
wrap around like NumPy's (unsigned values travel as the signed integers of their width: the
same bits).  An index out of range or pointers that decrease are detected before anything is
used as an address, and the wrapper raises ValueError naming the first offending position.

The result is structural: every (i, j) reached through some k is stored, an exact zero from
cancellation included (as scipy does), so the pattern depends only on the patterns of A and B.

Algorithm (Gustavson, two passes, parallel over chunks of rows balanced by work):

1. validation and work: one parallel pass checks B's pointers and columns and, row by row,
   A's pointers and columns while summing each row's work (1 + its products, i.e. the sum of
   nnz(B[k, :]) over its k).  A prefix sum of the work cuts the rows into ``8 T`` chunks of
   equal work (T threads), which the threads claim one at a time (:func:`._common.claim`): an
   uneven estimate evens out, and a thread whose core is busy elsewhere takes fewer;
2. symbolic: each thread owns a marker array of length ``ncols`` holding ``-2 - i`` for the
   last row i that reached a column (so it is never cleared per row) and counts each row's
   distinct columns; a prefix sum gives ``crow``;
3. numeric: the same marker now holds the output position of a column (positions only grow
   along a worker's rows, its claimed chunks coming in increasing order, so ``mk[j] < crow[i]``
   means "not yet in row i"): a row's products
   are accumulated straight into its slice of the output, which is then sorted as (column,
   value) pairs in place -- insertion sort up to 16 entries (nearly sorted for banded
   matrices), a branch-free rank sort up to 64; a longer row spreads its values into a dense
   per-thread accumulator and its columns into a per-thread two-level bitmap (a bit per
   column, and a summary bit per 64-bit word of it), read back in order by a scan of the
   row's span of the summary: ~1 cycle per 4096 columns plus a few per entry (unless the
   span exceeds 16 summary words per entry: then the columns are introsorted and the values
   gathered).

Hot loops index through uint64: numba adds a negative-index wraparound select to every
access through a signed integer, which here cost about 2x.  Memory: the result is allocated
at its exact size once the symbolic pass counted it; the (T, ncols) int64 marker, the (T, ncols)
accumulator that only rows of more than 64 entries touch and the int64 row counts are scratch
kept between calls (:func:`._common.scratch`: no fresh pages per call); the (T, ncols / 64) +
(T, ncols / 4096) bitmaps are allocated per call (memory O(T * ncols), like scipy's O(ncols)).
Small inputs run on the calling thread alone (:func:`._threads.team`).

>>> import numpy as np
>>> crow, col, val = spgemm(np.array([0, 2, 3]), np.array([1, 0, 1]), np.array([1.0, 2.0, 3.0]),
...                         np.array([0, 1, 3]), np.array([2, 0, 2]), np.array([4.0, 5.0, 6.0]), 3)
>>> crow.tolist(), col.tolist(), val.tolist()
([0, 2, 4], [0, 2, 0, 2], [5.0, 14.0, 15.0, 18.0])
"""

import numba
import numpy as np
from numba.cpython.unsafe.numbers import trailing_zeros

from .. import KernelDeclined
from ._common import as_index, as_values, claim, prefetch_read, row_splits, scratch
from ._sort import SORT_STACK, sort_range
from ._threads import team
from . import _cache  # noqa: F401  (compiled kernels go to the per-user cache, see _cache.py)

__all__ = ["spgemm"]

_JIT = dict(cache=True, nogil=True)
_INT32_MAX = np.iinfo(np.int32).max
_PJIT = dict(cache=True, nogil=True, parallel=True)

_CHUNKS_PER_THREAD = 8  # chunks of equal work per thread, claimed by whichever thread is free
#: from this much work (rows + entries of A and B) the product keeps a thread on a busy core too:
#: its chunks are claimed, so a late thread never holds the call back by more than one chunk
_SHARED_WORK = 1 << 21
_AHEAD = 8  # the passes over A prefetch the B row of the entry this many entries ahead
_INSERTION_MAX = 16  # rows with at most this many columns are insertion-sorted,
_RANK_MAX = 64  # up to this many rank-sorted; longer rows go through a dense accumulator
_SUMMARY_WORDS_PER_ENTRY = 16  # a longer row whose span is at most this many summary words per
# entry (a summary word covers 4096 columns) is read back through the two-level bitmap, else sorted

# flags returned by the validation pass
_BAD_A_CROW, _BAD_A_COL, _BAD_B_CROW, _BAD_B_COL = 1, 2, 4, 8


# ---------------------------------------------------------------------------------------
# argument checks (Python)
# ---------------------------------------------------------------------------------------


def _as_values(v, n, name):
    v = as_values(v, name, "spgemm")
    if v.ndim != 1 or v.shape[0] != n:
        raise ValueError(f"spgemm: {name} must be 1-D with the length of its column indices ({n}), got shape {v.shape}")
    return v


def _check_ends(crow, n, name, col_name):
    if crow.shape[0] == 0:
        raise ValueError(f"spgemm: {name} must have at least one element")
    first, last = int(crow[0]), int(crow[-1])
    if first < 0:
        raise ValueError(f"spgemm: {name}[0] = {first} is negative")
    if last > n:
        raise ValueError(f"spgemm: {name}[-1] = {last} exceeds len({col_name}) = {n}")


def _first_decrease(crow):
    d = np.flatnonzero(crow[1:] < crow[:-1])
    return int(d[0]) + 1 if d.size else -1


def _first_out_of_range(col, lo, hi, bound):
    seg = col[lo:hi]
    bad = np.flatnonzero((seg < 0) | (seg >= bound))
    return lo + int(bad[0]) if bad.size else -1


def _raise_invalid(flags, a_crow, a_col, b_crow, b_col, K, ncols):
    """Name the first offender, pointers before columns (the kernel only said which kind)."""
    for bit, crow, name in ((_BAD_A_CROW, a_crow, "a_crow"), (_BAD_B_CROW, b_crow, "b_crow")):
        if flags & bit:
            g = _first_decrease(crow)
            raise ValueError(
                f"spgemm: {name} must be non-decreasing: {name}[{g}] = {crow[g]} < {name}[{g - 1}] = {crow[g - 1]}"
            )
    if flags & _BAD_A_COL:
        p = _first_out_of_range(a_col, int(a_crow[0]), int(a_crow[-1]), K)
        raise ValueError(f"spgemm: a_col[{p}] = {a_col[p]} is out of range for {K} rows of B")
    p = _first_out_of_range(b_col, int(b_crow[0]), int(b_crow[-1]), ncols)
    raise ValueError(f"spgemm: b_col[{p}] = {b_col[p]} is out of range for {ncols} columns")


# ---------------------------------------------------------------------------------------
# kernels
#
# Hot loops index with uint64 (validated values only): numba adds a negative-index
# wraparound select to every access through a signed integer, which here doubled the time.
# ---------------------------------------------------------------------------------------


@numba.njit(**_JIT)
def _check_b(b_crow, b_col, ncols, klo, khi, qlo, qhi):
    """Flags for B's pointers klo:khi (+1) decreasing and B's columns qlo:qhi out of range
    (branch-free reductions, so they vectorise)."""
    flags = 0
    dec = False
    for k in range(np.uint64(klo), np.uint64(khi)):  # unsigned indices: the loops vectorise
        dec |= b_crow[k + np.uint64(1)] < b_crow[k]
    if dec:
        flags |= _BAD_B_CROW
    top = np.uint64(0)
    for q in range(np.uint64(qlo), np.uint64(qhi)):
        top = max(top, np.uint64(np.int64(b_col[q])))  # a negative index wraps to a huge one
    if qhi > qlo and top >= np.uint64(ncols):
        flags |= _BAD_B_COL
    return flags


@numba.njit(**_JIT)
def _work_rows(a_crow, a_col, b_crow, a0, aN, work, lo, hi):
    """work[i + 1] = 1 + the products of row i, for rows lo:hi, checking A's pointers and
    columns on the way (nothing unchecked is used as an address).  Returns (flags, sum)."""
    K = np.uint64(b_crow.shape[0] - 1)
    flags = 0
    s = np.int64(0)
    for i in range(lo, hi):
        plo = np.int64(a_crow[i])
        phi = np.int64(a_crow[i + 1])
        w = np.int64(1)
        if plo < a0 or phi < plo or phi > aN:  # a decrease somewhere
            flags |= _BAD_A_CROW
        else:
            for p in range(np.uint64(plo), np.uint64(phi)):
                k = np.uint64(np.int64(a_col[p]))
                if k >= K:  # an early exit: LLVM then emits no gathers (see _common.py)
                    flags |= _BAD_A_COL
                    break
                w += np.int64(b_crow[k + np.uint64(1)]) - np.int64(b_crow[k])
        work[i + 1] = w
        s += w
    return flags, s


@numba.njit(**_JIT)
def _count_rows(a_crow, a_col, b_crow, b_col, mk, crow, lo, hi):
    """crow[i + 1] = the distinct columns of row i of C, rows lo:hi.  The marker holds
    -2 - (the last row that reached the column), so it is never cleared and stays negative
    for the numeric pass.  Returns the sum."""
    one = np.uint64(1)
    ahead = np.uint64(_AHEAD)
    pend = np.uint64(a_crow[hi]) if hi > lo else np.uint64(0)
    s = np.int64(0)
    for i in range(lo, hi):
        stamp = -2 - i
        n = np.int64(0)
        for p in range(np.uint64(a_crow[i]), np.uint64(a_crow[i + 1])):
            if p + ahead < pend:
                prefetch_read(b_col, b_crow[np.uint64(a_col[p + ahead])])
            k = np.uint64(a_col[p])
            for q in range(np.uint64(b_crow[k]), np.uint64(b_crow[k + one])):
                j = np.uint64(b_col[q])
                if mk[j] != stamp:
                    mk[j] = stamp
                    n += 1
        crow[i + 1] = n
        s += n
    return s


@numba.njit(**_JIT)
def _fill_rows(a_crow, a_col, a_val, b_crow, b_col, b_val, crow, mk, ac, bm, bs, tc, tv, stack, col, val, lo, hi):
    """Columns (sorted) and values of rows lo:hi of C, accumulated in place: mk[j] is the
    output position of column j, so mk[j] < crow[i] (an earlier row of this worker: a worker
    claims chunks in increasing order, so positions only grow along its rows; or a negative
    stamp of the symbolic pass) means "not yet in row i".  Then the row is sorted as
    (column, value) pairs: insertion sort up to _INSERTION_MAX entries (cheap on the nearly
    sorted rows of banded matrices), rank sort through the scratch tc, tv up to _RANK_MAX
    (branch-free: random rows cost insertion sort a mispredicted branch per entry).  Longer
    rows spread their values into the dense ac and their columns into the bitmap bm, with a
    summary bit per word of bm in bs (both all zero between rows); they are read back in
    order through bs when the row spans at most _SUMMARY_WORDS_PER_ENTRY words of bs per
    entry, otherwise the columns are introsorted."""
    one = np.uint64(1)
    six = np.uint64(6)
    twelve = np.uint64(12)
    mask = np.uint64(63)
    ahead = np.uint64(_AHEAD)
    pend = np.uint64(a_crow[hi]) if hi > lo else np.uint64(0)
    for i in range(lo, hi):
        start = crow[i]
        pos = start
        for p in range(np.uint64(a_crow[i]), np.uint64(a_crow[i + 1])):
            if p + ahead < pend:
                qa = b_crow[np.uint64(a_col[p + ahead])]
                prefetch_read(b_col, qa)
                prefetch_read(b_val, qa)
            k = np.uint64(a_col[p])
            av = a_val[p]
            for q in range(np.uint64(b_crow[k]), np.uint64(b_crow[k + one])):
                j = np.uint64(b_col[q])
                v = av * b_val[q]
                m = mk[j]
                if m < start:
                    mk[j] = pos
                    col[np.uint64(pos)] = j
                    val[np.uint64(pos)] = 0  # a sum starts from +0.0, as NumPy's (0.0 + -0.0 is +0.0)
                    val[np.uint64(pos)] += v
                    pos += 1
                else:
                    val[np.uint64(m)] += v
        ustart = np.uint64(start)
        upos = np.uint64(pos)
        n = pos - start
        if n <= _INSERTION_MAX:
            for x in range(ustart + one, upos):
                key = col[x]
                kv = val[x]
                y = x
                while y > ustart and col[y - one] > key:
                    col[y] = col[y - one]
                    val[y] = val[y - one]
                    y -= one
                col[y] = key
                val[y] = kv
            continue
        if n <= _RANK_MAX:  # rank sort: n * n compares, but no unpredictable branch
            un = np.uint64(n)
            for x in range(un):
                tc[x] = col[ustart + x]
                tv[x] = val[ustart + x]
            for x in range(un):
                key = tc[x]
                r = ustart
                for y in range(un):
                    r += np.uint64(tc[y] < key)
                col[r] = key
                val[r] = tv[x]
            continue
        # long row: values into the dense accumulator, columns into the two-level bitmap
        jmin = col[ustart]
        jmax = jmin
        for x in range(ustart, upos):
            jx = col[x]
            uj = np.uint64(jx)
            ac[uj] = val[x]
            w = uj >> six
            bm[w] |= one << (uj & mask)
            bs[w >> six] |= one << (w & mask)
            jmin = min(jmin, jx)
            jmax = max(jmax, jx)
        s0 = np.uint64(jmin) >> twelve
        s1 = np.uint64(jmax) >> twelve
        if s1 - s0 < np.uint64(_SUMMARY_WORDS_PER_ENTRY * n):  # scan the summary (and clear both)
            x = ustart
            for s in range(s0, s1 + one):
                summary = bs[s]
                if summary:
                    bs[s] = 0
                    while summary:
                        w = (s << six) | np.uint64(trailing_zeros(summary))
                        summary &= summary - one
                        word = bm[w]
                        bm[w] = 0
                        base = w << six
                        while word:
                            j = base | np.uint64(trailing_zeros(word))
                            col[x] = j
                            val[x] = ac[j]
                            x += one
                            word &= word - one
        else:  # hypersparse row: sort
            for x in range(ustart, upos):
                w = np.uint64(col[x]) >> six
                bm[w] = 0
                bs[w >> six] = 0
            sort_range(col, start, pos, stack)
            for x in range(ustart, upos):
                val[x] = ac[np.uint64(col[x])]


@numba.njit(**_PJIT)
def _symbolic(a_crow, a_col, b_crow, b_col, ncols, mark, nper, crow):
    """Validate, balance and count.  ``mark`` (T, ncols) int64 is uninitialised (T = threads:
    each thread sets its own row to -1 first, in parallel);
    ``crow`` (M + 1) int64 receives the row pointers of C (NumPy-allocated by the caller:
    its huge pages fault in faster than numba's allocations).

    Returns (splits, flags): flags != 0 means invalid input (a bit per kind, see _BAD_*) and
    then nothing else is meaningful; otherwise chunk c covers rows splits[c]:splits[c + 1]
    (the workers claim chunks one at a time)."""
    T = mark.shape[0]
    M = a_crow.shape[0] - 1
    K = b_crow.shape[0] - 1
    a0 = np.int64(a_crow[0])
    aN = np.int64(a_crow[M])
    b0 = np.int64(b_crow[0])
    bN = np.int64(b_crow[K])
    crow[0] = 0
    tot = np.zeros(T + 1, np.int64)
    bad = np.zeros(T, np.int64)
    # --- validation, and the work (1 + products) of each row into crow[i + 1]
    for t in numba.prange(T):
        mark[t, :] = -1
        f1 = _check_b(b_crow, b_col, ncols, K * t // T, K * (t + 1) // T,
                      b0 + (bN - b0) * t // T, b0 + (bN - b0) * (t + 1) // T)
        f2, s = _work_rows(a_crow, a_col, b_crow, a0, aN, crow, M * t // T, M * (t + 1) // T)
        tot[t + 1] = s
        bad[t] = f1 | f2
    flags = 0
    for t in range(T):
        flags |= bad[t]
    nch = T * nper
    splits = np.zeros(nch + 1, np.int64)
    if flags:
        return splits, flags
    for t in range(T):
        tot[t + 1] += tot[t]
    for t in numba.prange(T):
        run = tot[t]
        for i in range(M * t // T, M * (t + 1) // T):
            run += crow[i + 1]
            crow[i + 1] = run
    # --- chunks of equal work: splits[c] = first row i with work(rows < i) >= total work * c / nch
    splits[:] = row_splits(crow, nch, 0)
    # --- symbolic pass: distinct columns per row (chunks claimed by whichever worker is free; each
    # worker w marks in its own mark[w]), then their prefix sum
    ctot = np.zeros(nch + 1, np.int64)
    counter = np.zeros(1, np.int64)
    for w in numba.prange(T):
        c = claim(counter)
        while c < nch:
            ctot[c + 1] = _count_rows(a_crow, a_col, b_crow, b_col, mark[w], crow, splits[c], splits[c + 1])
            c = claim(counter)
    for c in range(nch):
        ctot[c + 1] += ctot[c]
    for t in numba.prange(T):
        for c in range(t, nch, T):
            run = ctot[c]
            for i in range(splits[c], splits[c + 1]):
                run += crow[i + 1]
                crow[i + 1] = run
    return splits, 0


@numba.njit(**_PJIT)
def _numeric(a_crow, a_col, a_val, b_crow, b_col, b_val, crow, splits, mark, acc, col, val, crow_out):
    """Fill col (sorted within rows) and val of C, and copy crow into crow_out (the result's
    pointers, int32 when they fit: written here, a chunk at a time, instead of a cast pass
    afterwards).  Inputs are validated and crow, splits come from _symbolic on the same inputs
    (so each row writes exactly its slice). Chunks are claimed by whichever worker is free; the
    counter only grows, so each worker meets its rows in increasing order (_fill_rows' marks
    rely on it)."""
    T = mark.shape[0]
    nch = splits.shape[0] - 1
    tc = np.empty((T, _RANK_MAX), col.dtype)
    tv = np.empty((T, _RANK_MAX), val.dtype)
    stacks = np.empty((T, SORT_STACK, 3), np.int64)  # the introsort's stack of each worker
    nwords = (acc.shape[1] + 63) // 64
    bm = np.zeros((T, nwords), np.uint64)
    bs = np.zeros((T, (nwords + 63) // 64), np.uint64)
    crow_out[0] = 0
    counter = np.zeros(1, np.int64)
    for w in numba.prange(T):  # chunks claimed by whichever worker is free; worker w's scratch is row w
        c = claim(counter)
        while c < nch:
            _fill_rows(a_crow, a_col, a_val, b_crow, b_col, b_val, crow, mark[w], acc[w], bm[w], bs[w], tc[w], tv[w], stacks[w],
                       col, val, splits[c], splits[c + 1])
            for i in range(splits[c] + 1, splits[c + 1] + 1):
                crow_out[i] = crow[i]
            c = claim(counter)


# ---------------------------------------------------------------------------------------
# public wrapper
# ---------------------------------------------------------------------------------------

def spgemm(a_crow, a_col, a_values, b_crow, b_col, b_values, ncols):
    """C = A @ B for CSR matrices A (M x K) and B (K x ncols).

    Parameters
    ----------
    a_crow : int[M + 1], a_col : int[nnzA] in [0, K), a_values : [nnzA] -- A in CSR.
    b_crow : int[K + 1] (K = len(b_crow) - 1), b_col : int[nnzB] in [0, ncols),
        b_values : [nnzB] -- B in CSR; same value dtype as A.
    ncols : int >= 0, the number of columns of B (and C).

    Returns
    -------
    crow : int[M + 1] (int32 when nnzC < 2**31, else int64), col : [nnzC] (int32 when
        ncols < 2**31, else int64), values : [nnzC] of the input dtype -- C in CSR,
        columns strictly increasing within each row, every structurally reached position
        stored (exact zeros from cancellation included).

    Raises ValueError for bad shapes, pointers that decrease or leave [0, len(col)], or an
    index out of range (naming the first); KernelDeclined for an unsupported value dtype or
    operands of different value dtypes.
    """
    a_crow = as_index(a_crow, "a_crow", "spgemm")
    a_col = as_index(a_col, "a_col", "spgemm")
    b_crow = as_index(b_crow, "b_crow", "spgemm")
    b_col = as_index(b_col, "b_col", "spgemm")
    a_values = np.asarray(a_values)
    b_values = np.asarray(b_values)
    if a_values.dtype != b_values.dtype:
        raise KernelDeclined(
            f"spgemm: a_values ({a_values.dtype}) and b_values ({b_values.dtype}) must have the same dtype; "
            "expected one of (u)int8..64, float32/64, complex64/128 for both (cast first)"
        )
    dtype = a_values.dtype
    av = _as_values(a_values, a_col.shape[0], "a_values")
    bv = _as_values(b_values, b_col.shape[0], "b_values")
    ncols = int(ncols)
    if ncols < 0:
        raise ValueError(f"spgemm: ncols must be >= 0, got {ncols}")
    _check_ends(a_crow, a_col.shape[0], "a_crow", "a_col")
    _check_ends(b_crow, b_col.shape[0], "b_crow", "b_col")
    idx = (a_crow, a_col, b_crow, b_col)
    if len({a.dtype for a in idx}) > 1:
        a_crow, a_col, b_crow, b_col = (a.astype(np.int64, copy=False) for a in idx)
    M = a_crow.shape[0] - 1
    K = b_crow.shape[0] - 1
    nnz_a = int(a_crow[-1]) - int(a_crow[0])
    nnz_b = int(b_crow[-1]) - int(b_crow[0])
    work = M + K + nnz_a + nnz_b
    with team(work, shared=_SHARED_WORK):
        T = numba.get_num_threads()
        mark = scratch("spgemm.mark", (T, ncols), np.int64)
        crow = scratch("spgemm.crow", (M + 1,), np.int64)  # handed out only when it is the result (below)
        splits, flags = _symbolic(a_crow, a_col, b_crow, b_col, ncols, mark, _CHUNKS_PER_THREAD, crow)
        if flags:
            _raise_invalid(flags, a_crow, a_col, b_crow, b_col, K, ncols)
        nnz = int(crow[M])
        # int32 indices whenever they fit, so the usual result needs no cast afterwards
        col = np.empty(nnz, np.int32 if ncols <= _INT32_MAX else np.int64)
        val = np.empty(nnz, av.dtype)
        if not nnz:
            return np.zeros(M + 1, np.int32), col, val.view(dtype)
        crow_out = np.empty(M + 1, np.int32) if nnz <= _INT32_MAX else crow.copy()
        acc = scratch("spgemm.acc", (T, ncols), av.dtype)
        _numeric(a_crow, a_col, av, b_crow, b_col, bv, crow, splits, mark, acc, col, val, crow_out)
    return crow_out, col, val.view(dtype)
