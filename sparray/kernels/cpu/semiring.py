"""GraphBLAS-style operations on raw CSR parts: semiring products, masks, monoid reductions,
select and index-apply (numba, parallel).

- :func:`mxv` -- ``y<mask> = A @ x`` over a semiring, x a bitmap vector, by rows (pull: one
  dot product per row; rows the mask leaves out cost nothing).
- :func:`vxm` -- ``y<mask> = x @ A``, x sparse (indices, values) or a bitmap, by scattering
  along the rows of A that x names (push, SpMSpV: what push-BFS uses); the mask is checked
  before each write (a complemented structural mask of the visited nodes is the BFS case).
- :func:`mxm` -- ``C<M> = A @ B`` over a semiring, CSR x CSR -> CSR (sorted rows): Gustavson
  by rows; a mask restricts each output row to the mask's row and the kernel computes only
  those entries (the triangle count's ``(L @ L.T)<L>`` with ``plus_pair``); a complemented
  mask is skipped entry by entry. With ``b_transposed=True`` the B parts are B.T's CSR (B's
  CSC) and a mask is required: each C(i, j) of the mask is a dot product of A's row i and
  B.T's row j (``L @ L.mT`` without a transpose).
- :func:`reduce_rows`, :func:`reduce_cols`, :func:`reduce_all`, :func:`reduce` -- a monoid over
  each row's, each column's or all stored values; an empty line gives an absent entry.
- :func:`select` -- the entries kept by a rule (tril, triu, diag, offdiag, rowle, rowgt,
  colle, colgt, lt, le, gt, ge, eq, ne against a thunk) as a new CSR.
- :func:`apply_index` -- each stored value replaced by its row index, column index or
  diagonal index plus a thunk.

Semantics are GraphBLAS's (``kernels/semirings.py`` has the table): a matrix is its
structure (every stored entry, an explicit zero included, is an edge) plus values; an output
entry exists only where the semiring's structure produces one, and no fill is ever read or
written. A vector is a bitmap: values and a bool ``present`` array (None: every element
present); results come back as ``(values, present)``, values 0 where absent.

Conventions. Index arrays are 1-D int32 or int64 (other integers become int64; mixed dtypes
are used as int64). Pointers must satisfy ``0 <= crow[0] <= ... <= crow[-1] <= len(col)``.
``values`` None means iso-valued: every stored value is 1 (True), and no values are read; a
zero-stride values array (one element broadcast, ``sparray/_core/iso.py``) is iso-valued too, its
element read by every entry (no copy of it is made, and no other compiled kernel is needed).
Values are bool, int32, int64, float32 or float64 (anything else: KernelDeclined); two operands
whose values the multiply op reads must share a dtype (KernelDeclined: cast first). Rows are
taken as sparray's CSR invariant has them, sorted with no repeated column
(``sorted_rows=True``): masked products then skip the part of a row of B past the mask's last
column and ``select`` finds a positional rule's run by binary search; with
``sorted_rows=False`` neither shortcut is taken (any order, repeats combine by the monoid).
Safety: no pointer or index is used as an address before it is checked; a bad one raises
ValueError naming the first offender, and shapes that do not fit raise ValueError with both.

Parallel scheme (inside :func:`._threads.team`): row-wise kernels cut their rows into chunks
of equal work (entries + rows) that the threads claim (:func:`._common.claim`); push products
and column reductions give each thread a fixed share of the work and a private bitmap
workspace, merged column-range by column-range afterwards (the same bits on every run for a
given thread count); masked products run one pass into the mask's slots and compact.

Specialisation: each kernel is generated per semiring (or monoid) by a factory whose closure
holds only the operators' integer codes, and numba compiles it per value and index dtype on
first use; closures of plain ints are cached by numba like module-level kernels (measured:
a fresh process loads an mxv specialisation from the cache in ~0.1 s; compiling one costs
~1-3 s).

>>> import numpy as np
>>> crow, col = np.array([0, 2, 3, 3]), np.array([1, 2, 2])       # 0->1, 0->2, 1->2; row 2 empty
>>> w = np.array([1.0, 5.0, 1.0])
>>> y, present = mxv(crow, col, w, np.array([0.0, 0.0, 0.0]), None, "min_plus")
>>> y.tolist(), present.tolist()
([1.0, 1.0, 0.0], [True, True, False])
>>> y, present = vxm(crow, col, None, 3, None, None, "any_secondi", x_indices=np.array([0]))
>>> y.tolist(), present.tolist()                                    # parents of 0's neighbours
([0, 0, 0], [False, True, True])
"""

from __future__ import annotations

import hashlib

import numba
import numpy as np
from numba.cpython.unsafe.numbers import trailing_zeros

from .. import KernelDeclined
from .. import semirings as _table
from ._common import as_index, claim, row_splits, scratch
from ._semiring_ops import sr_add, sr_mul, sr_term
from ._sort import SORT_STACK, sort_range
from .spgemm import _check_b, _count_rows, _work_rows
from ._threads import team
from . import _cache  # noqa: F401  (compiled kernels go to the per-user cache, see _cache.py)

__all__ = ["apply_index", "mxm", "mxv", "reduce", "reduce_all", "reduce_cols", "reduce_rows", "select", "vxm"]

_JIT = dict(cache=True, nogil=True, error_model="numpy")
_PJIT = dict(_JIT, parallel=True)

_OK, _BAD_POINTER, _BAD_INDEX = 0, 1, 2
_FULL = np.uint64(0xFFFFFFFFFFFFFFFF)  # index mask of a stored values array
_ISO = np.uint64(0)  # index mask of an iso operand: every read is element 0, a one
_CHUNK_WORK = 1 << 16  # row-chunked kernels: about this much work (entries + rows) a chunk,
_MIN_CHUNKS, _MAX_CHUNKS = 2, 16  # at least and at most this many chunks per thread
_GRAIN = 1 << 15  # below this much work a call runs on the calling thread alone
_INT32_MAX = np.iinfo(np.int32).max
_U1, _U2, _U3, _U4 = (np.uint64(v) for v in (1, 2, 3, 4))
_PLUS, _TIMES = _table.MONOIDS["plus"].code, _table.MONOIDS["times"].code
_INSERTION_MAX = 16  # Gustavson rows up to this many columns are insertion-sorted,
_RANK_MAX = 64  # up to this many rank-sorted, longer ones read back through a bitmap
_SUMMARY_WORDS_PER_ENTRY = 16


# ---------------------------------------------------------------------------------------
# argument checks (Python)
# ---------------------------------------------------------------------------------------


def _sr(who, semiring):
    try:
        return _table.semiring(semiring)
    except ValueError as e:
        raise ValueError(f"{who}: {e}") from None


def _monoid(who, monoid):
    if isinstance(monoid, _table.Monoid):
        return monoid
    if monoid not in _table.MONOIDS:
        raise ValueError(f"{who}: unknown monoid {monoid!r}; expected one of {sorted(_table.MONOIDS)}")
    return _table.MONOIDS[monoid]


def _csr_index(who, crow, col, prefix=""):
    crow = as_index(crow, f"{prefix}crow", who)
    col = as_index(col, f"{prefix}col", who)
    if crow.shape[0] == 0:
        raise ValueError(f"{who}: {prefix}crow must have at least one element ({prefix}crow[0] = 0)")
    return crow, col


def _common_index(*arrays):
    """The arrays in one index dtype (int64 when they differ)."""
    if len({a.dtype for a in arrays}) > 1:
        return tuple(a.astype(np.int64) for a in arrays)
    return arrays


def _check_ends(who, crow, nse, prefix=""):
    first, last = int(crow[0]), int(crow[-1])
    if first < 0:
        raise ValueError(f"{who}: {prefix}crow[0] = {first} is negative")
    if last > nse:
        raise ValueError(f"{who}: {prefix}crow[-1] = {last} exceeds len({prefix}col) = {nse}")
    if last < first:
        raise ValueError(f"{who}: {prefix}crow must be non-decreasing: {prefix}crow[-1] = {last} < {prefix}crow[0] = {first}")


def _values(who, name, v, n):
    """None (iso) or ``v`` as a C-contiguous 1-D array of a graph value dtype and length ``n``."""
    if v is None:
        return None
    v = np.asarray(v)
    if v.ndim != 1 or v.shape[0] != n:
        raise ValueError(f"{who}: {name} must be 1-D of length {n}, got shape {v.shape}")
    if v.dtype not in _table.VALUE_DTYPES:
        raise KernelDeclined(
            f"{who}: {name} has dtype {v.dtype}; expected one of {[d.name for d in _table.VALUE_DTYPES]} "
            "(cast first or use the generic implementation)"
        )
    return v if _is_iso(v) else np.ascontiguousarray(v)


def _is_iso(v):
    """Iso values (sparray/_core/iso.py): one element broadcast, stride 0; the kernels read it at element 0."""
    return v is not None and v.shape[0] > 1 and v.strides[0] == 0


def _dtype(who, sr, first, second, dtype):
    try:
        return _table.result_dtype(sr, None if first is None else first.dtype, None if second is None else second.dtype, dtype)
    except ValueError as e:
        raise KernelDeclined(f"{who}: {e}") from None


def _operand(values, read, Z):
    """(array, index mask) of an operand inside a kernel: its values in Z (bool for the lor and
    land monoids: value != 0), or a one of Z read at element 0 when it is iso or not read."""
    if values is None or not read:
        return np.ones(1, Z), _ISO
    if _is_iso(values):
        return np.array(values[:1] != 0 if Z == np.bool_ else values[:1], dtype=Z), _ISO
    if values.dtype != Z:
        values = values != 0 if Z == np.bool_ else values.astype(Z)
    return values, _FULL


def _acc_zero(sr, Z):
    """A zero of the type the kernel accumulates in (int64 for positional ops)."""
    return np.int64(0) if sr.multiply.positional else Z.type(0)


def _vector_mask(who, mask, mask_values, structural, n, what):
    """(bits, used): the mask as one bool per element (present, and value != 0 for a valued mask)."""
    if mask is None:
        return np.zeros(1, np.bool_), False
    m = np.asarray(mask)
    if m.ndim != 1 or m.shape[0] != n:
        raise ValueError(f"{who}: the mask must have the shape of {what} ({n},), got {m.shape}")
    m = np.ascontiguousarray(m, dtype=np.bool_)
    if not structural:
        if mask_values is None:
            raise ValueError(f"{who}: a valued mask (structural=False) needs mask_values")
        mv = np.asarray(mask_values)
        if mv.shape != (n,):
            raise ValueError(f"{who}: mask_values must have shape ({n},), got {mv.shape}")
        m = m & (mv != 0)
    return m, True


def _nchunks(work, threads):
    if threads <= 1:
        return 1
    return int(min(max(work // _CHUNK_WORK, _MIN_CHUNKS * threads), _MAX_CHUNKS * threads))


def _first_decrease(crow):
    d = np.flatnonzero(crow[1:] < crow[:-1])
    return int(d[0]) + 1 if d.size else -1


def _raise_bad_csr(who, crow, col, bound, prefix="", bound_what="columns"):
    """Name the first offender of a CSR operand a kernel reported bad: pointers, then indices."""
    _check_ends(who, crow, col.shape[0], prefix)
    g = _first_decrease(crow)
    if g >= 0:
        raise ValueError(
            f"{who}: {prefix}crow must be non-decreasing: {prefix}crow[{g}] = {crow[g]} < {prefix}crow[{g - 1}] = {crow[g - 1]}"
        )
    lo, hi = int(crow[0]), int(crow[-1])
    seg = col[lo:hi]
    bad = np.flatnonzero((seg < 0) | (seg >= bound))
    if bad.size:
        p = lo + int(bad[0])
        raise ValueError(f"{who}: {prefix}col[{p}] = {col[p]} is out of range for {bound} {bound_what}")
    raise ValueError(f"{who}: invalid {prefix}crow/{prefix}col")  # pragma: no cover - the kernel saw something


# ---------------------------------------------------------------------------------------
# kernels generated per semiring: factories whose closures hold the operators' codes (ints)
# ---------------------------------------------------------------------------------------

_KERNELS: dict = {}
#: a fingerprint of the table (kernels/semirings.py lies outside the folder whose sources name the
#: numba cache): every generated kernel holds it in its closure, so numba's cache key (which hashes
#: the closure's contents) changes whenever what a code means changes
_TABLE_KEY = int(hashlib.sha1(repr((sorted(_table.MONOIDS.items()), sorted(_table.MULTIPLIES.items())))
                              .encode()).hexdigest()[:15], 16)


def _kernel(factory, *codes):
    key = (factory, codes)
    k = _KERNELS.get(key)
    if k is None:
        k = _KERNELS[key] = factory(*codes, _TABLE_KEY)
    return k


#: monoids whose terminal value (if any) is rare enough that a dense row need not test for it
#: (skipping the test never changes a result: a terminal value stays what the monoid gives)
_NO_EARLY_EXIT = frozenset({"plus", "times", "min", "max"})


def _mxv_factory(ADD, MUL, TABLE):
    @numba.njit(**_PJIT)
    def kernel(crow, col, aval, am, K, x, xm, xp, use_xp, mb, use_mask, comp, zero, y, yp, splits, status, nworkers,
               dense):
        """y, yp (zeroed) = rows of A @ x; chunks of rows splits[c]:splits[c + 1] claimed one
        at a time; status[c] = a bad pointer or index met in chunk c (its rows stop there).
        ``dense``: every x present, no mask, neither operand iso and a monoid with no early exit
        worth testing for: each row one plain loop (the same products and sums in the same order)."""
        _key = TABLE  # noqa: F841  (part of numba's cache key, see _TABLE_KEY)
        nch = splits.shape[0] - 1
        nse = np.int64(col.shape[0])
        uK = np.uint64(K)
        counter = np.zeros(1, np.int64)
        for _w in numba.prange(nworkers):
            c = claim(counter)
            while c < nch:
                st = _OK
                for i in range(np.uint64(splits[c]), np.uint64(splits[c + 1])):
                    lo = np.int64(crow[i])
                    hi = np.int64(crow[i + _U1])
                    if lo < 0 or hi < lo or hi > nse:
                        st = _BAD_POINTER
                        break
                    if dense:
                        if lo < hi:
                            p = np.uint64(lo)
                            uhi = np.uint64(hi)
                            k = np.uint64(col[p])
                            if k >= uK:
                                st = _BAD_INDEX
                                break
                            acc = sr_mul(MUL, aval[p], x[k], i, k, 0)
                            p += _U1
                            while p < uhi:
                                k = np.uint64(col[p])
                                if k >= uK:
                                    st = _BAD_INDEX
                                    break
                                acc = sr_add(ADD, acc, sr_mul(MUL, aval[p], x[k], i, k, 0))
                                p += _U1
                            if st != _OK:
                                break
                            y[i] = acc
                            yp[i] = True
                        continue
                    if use_mask and mb[i] == comp:  # the mask leaves the row out: nothing read
                        continue
                    acc = zero
                    found = False
                    p = np.uint64(lo)
                    uhi = np.uint64(hi)
                    while p < uhi:  # the first product
                        k = np.uint64(col[p])
                        if k >= uK:
                            st = _BAD_INDEX
                            break
                        if not use_xp or xp[k]:
                            acc = sr_mul(MUL, aval[p & am], x[k & xm], i, k, 0)
                            found = True
                            p += _U1
                            break
                        p += _U1
                    if found and not sr_term(ADD, acc):
                        while p < uhi:
                            k = np.uint64(col[p])
                            if k >= uK:
                                st = _BAD_INDEX
                                break
                            if not use_xp or xp[k]:
                                acc = sr_add(ADD, acc, sr_mul(MUL, aval[p & am], x[k & xm], i, k, 0))
                                if sr_term(ADD, acc):
                                    break
                            p += _U1
                    if st != _OK:
                        break
                    if found:
                        y[i] = acc
                        yp[i] = True
                status[c] = st
                c = claim(counter)

    return kernel


def _vxm_factory(ADD, MUL, TABLE):
    @numba.njit(**_PJIT)
    def kernel(crow, col, aval, am, N, xi, use_xi, x, xm, xp, use_xp, mb, use_mask, comp, y, yp, wsv, wsf, splits, status):
        """Scatter x's entries e in splits[t]:splits[t + 1] (row k = xi[e] or e) along A's
        row k: thread t into its own bitmap (t = 0: y, yp themselves, zeroed by the caller;
        t > 0: wsv[t - 1], wsf[t - 1], cleared here), then the bitmaps are merged into y by
        column ranges, threads in order."""
        _key = TABLE  # noqa: F841  (part of numba's cache key, see _TABLE_KEY)
        T = splits.shape[0] - 1
        M = np.uint64(crow.shape[0] - 1)
        nse = np.int64(col.shape[0])
        uN = np.uint64(N)
        for t in numba.prange(T):
            if t == 0:
                outv = y
                outf = yp
            else:
                outv = wsv[t - 1]
                outf = wsf[t - 1]
                for j in range(N):
                    outf[j] = False
            st = _OK
            for e in range(np.uint64(splits[t]), np.uint64(splits[t + 1])):
                if use_xp and not xp[e]:
                    continue
                k = np.uint64(xi[e]) if use_xi else e
                if k >= M:
                    st = _BAD_INDEX
                    break
                lo = np.int64(crow[k])
                hi = np.int64(crow[k + _U1])
                if lo < 0 or hi < lo or hi > nse:
                    st = _BAD_POINTER
                    break
                xv = x[e & xm]
                for p in range(np.uint64(lo), np.uint64(hi)):
                    j = np.uint64(col[p])
                    if j >= uN:
                        st = _BAD_INDEX
                        break
                    if use_mask and mb[j] == comp:  # checked before anything is computed
                        continue
                    if outf[j]:
                        cur = outv[j]
                        if not sr_term(ADD, cur):
                            outv[j] = sr_add(ADD, cur, sr_mul(MUL, xv, aval[p & am], 0, k, j))
                    else:
                        outv[j] = sr_mul(MUL, xv, aval[p & am], 0, k, j)
                        outf[j] = True
                if st != _OK:
                    break
            status[t] = st
        if T > 1:
            for t in numba.prange(T):
                j0 = np.uint64(N * t // T)
                j1 = np.uint64(N * (t + 1) // T)
                for u in range(1, T):
                    f = wsf[u - 1]
                    v = wsv[u - 1]
                    for j in range(j0, j1):
                        if f[j]:
                            if yp[j]:
                                if not sr_term(ADD, y[j]):
                                    y[j] = sr_add(ADD, y[j], v[j])
                            else:
                                y[j] = v[j]
                                yp[j] = True

    return kernel


def _rows_factory(ADD, TABLE):
    @numba.njit(**_PJIT)
    def kernel(crow, aval, am, nse, y, yp, splits, status, nworkers):
        """y[i], yp[i] = the monoid over row i's values (absent for an empty row)."""
        _key = TABLE  # noqa: F841  (part of numba's cache key, see _TABLE_KEY)
        nch = splits.shape[0] - 1
        counter = np.zeros(1, np.int64)
        for _w in numba.prange(nworkers):
            c = claim(counter)
            while c < nch:
                st = _OK
                for i in range(np.uint64(splits[c]), np.uint64(splits[c + 1])):
                    lo = np.int64(crow[i])
                    hi = np.int64(crow[i + _U1])
                    if lo < 0 or hi < lo or hi > nse:
                        st = _BAD_POINTER
                        break
                    if hi == lo:
                        continue
                    p = np.uint64(lo)
                    uhi = np.uint64(hi)
                    acc = aval[p & am]
                    p += _U1
                    if ADD == _PLUS or ADD == _TIMES:  # a constant: the other branch is not compiled
                        # four independent partial results (no terminal value to look for on
                        # floats): the adds do not wait on each other
                        if p + _U3 < uhi:
                            s1 = aval[p & am]
                            s2 = aval[(p + _U1) & am]
                            s3 = aval[(p + _U2) & am]
                            p += _U3
                            while p + _U3 < uhi:
                                acc = sr_add(ADD, acc, aval[p & am])
                                s1 = sr_add(ADD, s1, aval[(p + _U1) & am])
                                s2 = sr_add(ADD, s2, aval[(p + _U2) & am])
                                s3 = sr_add(ADD, s3, aval[(p + _U3) & am])
                                p += _U4
                            acc = sr_add(ADD, sr_add(ADD, acc, s1), sr_add(ADD, s2, s3))
                        while p < uhi:
                            acc = sr_add(ADD, acc, aval[p & am])
                            p += _U1
                    elif not sr_term(ADD, acc):
                        while p < uhi:
                            acc = sr_add(ADD, acc, aval[p & am])
                            if sr_term(ADD, acc):
                                break
                            p += _U1
                    y[i] = acc
                    yp[i] = True
                status[c] = st
                c = claim(counter)

    return kernel


def _all_factory(ADD, TABLE):
    @numba.njit(**_PJIT)
    def kernel(aval, am, lo, hi, nch, zero):
        """(the monoid over aval[lo:hi], whether that is non-empty): chunks reduced in
        parallel, then combined in order."""
        _key = TABLE  # noqa: F841  (part of numba's cache key, see _TABLE_KEY)
        part = np.empty(nch, aval.dtype)
        n = hi - lo
        for c in numba.prange(nch):
            p = np.uint64(lo + n * c // nch)
            e = np.uint64(lo + n * (c + 1) // nch)
            if p < e:
                acc = aval[p & am]
                p += _U1
                if not sr_term(ADD, acc):
                    while p < e:
                        acc = sr_add(ADD, acc, aval[p & am])
                        if sr_term(ADD, acc):
                            break
                        p += _U1
                part[c] = acc
        acc = zero
        found = False
        for c in range(nch):
            if n * (c + 1) // nch > n * c // nch:
                if found:
                    acc = sr_add(ADD, acc, part[c])
                else:
                    acc = part[c]
                    found = True
        return acc, found

    return kernel


# ---------------------------------------------------------------------------------------
# y = A @ x (pull) and y = x @ A (push)
# ---------------------------------------------------------------------------------------


def mxv(crow, col, values, x, x_present, semiring, mask=None, mask_values=None, complement=False, structural=True,
        *, ncols=None, dtype=None):
    """``y<mask> = A @ x`` over ``semiring``, A (M x K) in CSR, x a bitmap vector of length K.

    Parameters
    ----------
    crow, col, values : A in CSR; ``values`` None: iso-valued (every stored value 1).
    x : (K,) values of x, or None: every present element is 1.
    x_present : (K,) bool, or None: every element of x present.
    semiring : a name ``"<monoid>_<multiply>"`` (``kernels/semirings.py``) or a ``Semiring``.
    mask, mask_values : the mask over the output: ``mask`` (M,) bool, which elements it has
        (None: no mask); with ``structural=False`` an element counts only where
        ``mask_values != 0`` as well. ``complement=True`` computes the rows the mask leaves
        out instead (no mask and complement: nothing is computed). Rows left out are not read.
    ncols : K, when known (then x's length is checked against it).
    dtype : the result dtype when the multiply reads no values (pair, iso operands): default
        int64; positional ops give int64 (or int32).

    Returns ``(y, present)``: ``y`` (M,) of the semiring's dtype, 0 where absent; ``present``
    (M,) bool, True where row i has a stored entry A(i, k) with x(k) present and the mask
    lets row i through. Invariant: the pattern depends only on the patterns of A, x and mask.

    >>> y, p = mxv(np.array([0, 2, 2]), np.array([0, 1]), None, None, np.array([False, True]), "plus_pair")
    >>> y.tolist(), p.tolist()
    ([1, 0], [True, False])
    """
    who = "semiring mxv"
    sr = _sr(who, semiring)
    crow, col = _common_index(*_csr_index(who, crow, col))
    M = crow.shape[0] - 1
    nse = col.shape[0]
    values = _values(who, "values", values, nse)
    lengths = {n: np.shape(v)[0] for n, v in (("x", x), ("x_present", x_present)) if v is not None and np.ndim(v) == 1}
    for n, v in (("x", x), ("x_present", x_present)):
        if v is not None and np.ndim(v) != 1:
            raise ValueError(f"{who}: {n} must be 1-D, got shape {np.shape(v)}")
    K = ncols if ncols is not None else next(iter(lengths.values()), None)
    if K is None:
        raise ValueError(f"{who}: x and x_present are both None: give ncols (the length of x)")
    K = int(K)
    for n, length in lengths.items():
        if length != K:
            raise ValueError(f"{who}: shapes do not match: A is ({M}, {K}) and {n} is ({length},)")
    xv = _values(who, "x", x, K)
    Z = _dtype(who, sr, values, xv, dtype)
    reads = sr.multiply.reads
    aval, am = _operand(values, reads in ("both", "first"), Z)
    xval, xm = _operand(xv, reads in ("both", "second"), Z)
    xp = np.zeros(1, np.bool_) if x_present is None else np.ascontiguousarray(x_present, dtype=np.bool_)
    mb, use_mask = _vector_mask(who, mask, mask_values, structural, M, "y")
    y = np.zeros(M, Z)
    yp = np.zeros(M, np.bool_)
    if M == 0 or (complement and not use_mask):
        return y, yp
    _check_ends(who, crow, nse)
    work = int(crow[-1]) - int(crow[0]) + M
    kernel = _kernel(_mxv_factory, sr.monoid.code, sr.multiply.code)
    with team(work, _GRAIN) as threads:
        nch = _nchunks(work, threads)
        splits = row_splits(crow, nch, 1)
        status = np.zeros(nch, np.int8)
        dense = (x_present is None and not use_mask and am == _FULL and xm == _FULL
                 and sr.monoid.name in _NO_EARLY_EXIT)
        kernel(crow, col, aval, am, K, xval, xm, xp, x_present is not None, mb, use_mask, bool(complement),
               _acc_zero(sr, Z), y, yp, splits, status, threads, dense)
    if status.any():
        _raise_bad_csr(who, crow, col, K)
    return y, yp


def _even_splits(cum, parts):
    """Cut positions 0..len(cum) into ``parts`` ranges of about equal work, ``cum`` the running
    sum of the work (cum[e] = work of items < e + 1)."""
    total = int(cum[-1]) if cum.shape[0] else 0
    targets = (np.arange(1, parts, dtype=np.float64) * total / parts).astype(np.int64)
    inner = np.searchsorted(cum, targets, side="left") + 1 if cum.shape[0] else np.zeros(parts - 1, np.int64)
    return np.concatenate([[0], np.minimum(inner, cum.shape[0]), [cum.shape[0]]]).astype(np.int64)


def vxm(crow, col, values, ncols, x, x_present, semiring, mask=None, mask_values=None, complement=False,
        structural=True, *, x_indices=None, dtype=None):
    """``y<mask> = x @ A`` over ``semiring`` by push, A (M x ncols) in CSR.

    x is either sparse -- ``x_indices`` (nx,) row numbers in [0, M) and ``x`` (nx,) their
    values, or None (iso: every value 1); ``x_present`` must be None -- or a bitmap of length M
    (``x_indices`` None: ``x`` (M,) or None, ``x_present`` (M,) bool or None = all present).
    Each present x(k) is pushed along row k of A: ``y(j) = y(j) + x(k) * A(k, j)`` (first
    product: assigned), for j the mask lets through -- checked before the product is formed, so
    a complemented mask of the visited nodes costs a bit test per edge and nothing else.
    Other parameters as :func:`mxv`. Returns ``(y, present)``, both (ncols,).

    The work is split into one range of x's entries per thread (balanced by row lengths), each
    thread with its own bitmap, merged in thread order: small frontiers (below ~3e4 entries of
    work) run on the calling thread and write into y directly.

    >>> y, p = vxm(np.array([0, 1, 3]), np.array([1, 0, 2]), None, 3, None, None, "any_secondi",
    ...            mask=np.array([True, False, False]), complement=True, x_indices=np.array([1]))
    >>> y.tolist(), p.tolist()
    ([0, 0, 1], [False, False, True])
    """
    who = "semiring vxm"
    sr = _sr(who, semiring)
    crow, col = _common_index(*_csr_index(who, crow, col))
    M = crow.shape[0] - 1
    N = int(ncols)
    if N < 0:
        raise ValueError(f"{who}: ncols must be >= 0, got {N}")
    nse = col.shape[0]
    values = _values(who, "values", values, nse)
    if x_indices is not None:
        if x_present is not None:
            raise ValueError(f"{who}: give x_present only for a bitmap x (x_indices None)")
        xi = as_index(x_indices, "x_indices", who)
        nx = xi.shape[0]
        if nx and (int(xi.min()) < 0 or int(xi.max()) >= M):
            bad = np.flatnonzero((xi < 0) | (xi >= M))[0]
            raise ValueError(f"{who}: x_indices[{bad}] = {xi[bad]} is out of range for the {M} rows of A")
        xv = _values(who, "x", x, nx)
    else:
        xi = np.zeros(1, np.int64)
        nx = M
        for n, v in (("x", x), ("x_present", x_present)):
            if v is not None and np.shape(v) != (M,):
                raise ValueError(f"{who}: shapes do not match: {n} is {np.shape(v)} and A is ({M}, {N})")
        xv = _values(who, "x", x, M)
    Z = _dtype(who, sr, xv, values, dtype)
    reads = sr.multiply.reads
    xval, xm = _operand(xv, reads in ("both", "first"), Z)
    aval, am = _operand(values, reads in ("both", "second"), Z)
    xp = np.zeros(1, np.bool_) if x_present is None else np.ascontiguousarray(x_present, dtype=np.bool_)
    mb, use_mask = _vector_mask(who, mask, mask_values, structural, N, "y")
    y = np.zeros(N, Z)
    yp = np.zeros(N, np.bool_)
    if N == 0 or nx == 0 or (complement and not use_mask):
        return y, yp
    _check_ends(who, crow, nse)
    if x_indices is not None:
        lengths = np.maximum(crow[xi + 1] - crow[xi], 0)
        work = int(lengths.sum()) + nx
    else:
        lengths = None
        work = int(crow[-1]) - int(crow[0]) + M
    kernel = _kernel(_vxm_factory, sr.monoid.code, sr.multiply.code)
    with team(work, _GRAIN) as threads:
        # a thread's bitmap costs ncols to clear and merge: only worth it for enough work
        T = max(1, min(threads, work // max(N, 1) + 1))
        if lengths is not None:
            splits = _even_splits(np.cumsum(lengths + 1), T)
        else:
            splits = row_splits(crow, T, 1)
        wsv = scratch("semiring.vxm.values", (T - 1, N), Z)
        wsf = scratch("semiring.vxm.present", (T - 1, N), np.bool_)
        status = np.zeros(T, np.int8)
        kernel(crow, col, aval, am, N, xi, x_indices is not None, xval, xm, xp, x_present is not None, mb, use_mask,
               bool(complement), y, yp, wsv, wsf, splits, status)
    if status.any():
        _raise_bad_csr(who, crow, col, N)
    return y, yp


# ---------------------------------------------------------------------------------------
# reductions by a monoid
# ---------------------------------------------------------------------------------------


def _reduce_dtype(who, monoid, values, dtype):
    return _dtype(who, _table.Semiring(f"{monoid.name}_first", monoid, _table.MULTIPLIES["first"]), values, None, dtype)


def reduce_rows(crow, col, values, monoid, *, dtype=None):
    """``y(i) = +`` over row i's stored values (the monoid ``+``), absent for an empty row.

    ``values`` None: iso (every value 1; ``plus`` then counts). ``dtype``: the result's when
    values is None (default int64; the ``lor``/``land`` monoids give bool). Returns
    ``(y, present)`` (M,); ``col`` is not read.

    >>> y, p = reduce_rows(np.array([0, 2, 2, 3]), np.array([0, 3, 1]), np.array([4.0, -1.0, 2.0]), "min")
    >>> y.tolist(), p.tolist()
    ([-1.0, 0.0, 2.0], [True, False, True])
    """
    who = "graph reduce_rows"
    m = _monoid(who, monoid)
    crow, col = _csr_index(who, crow, col)
    M = crow.shape[0] - 1
    nse = col.shape[0]
    values = _values(who, "values", values, nse)
    Z = _reduce_dtype(who, m, values, dtype)
    aval, am = _operand(values, True, Z)
    y = np.zeros(M, Z)
    yp = np.zeros(M, np.bool_)
    if M == 0:
        return y, yp
    _check_ends(who, crow, nse)
    work = int(crow[-1]) - int(crow[0]) + M
    kernel = _kernel(_rows_factory, m.code)
    with team(work, _GRAIN) as threads:
        nch = _nchunks(work, threads)
        splits = row_splits(crow, nch, 1)
        status = np.zeros(nch, np.int8)
        kernel(crow, aval, am, nse, y, yp, splits, status, threads)
    if status.any():
        _raise_bad_csr(who, crow, col, np.iinfo(np.int64).max)
    return y, yp


def reduce_cols(crow, col, values, ncols, monoid, *, dtype=None):
    """``y(j) = +`` over column j's stored values, absent for an empty column: the push product
    ``x @ A`` with an iso x of ones and the semiring ``<monoid>_second`` (each thread reduces
    its share of the rows into its own bitmap, merged in order). Returns ``(y, present)``
    (ncols,); other parameters as :func:`reduce_rows`.

    >>> y, p = reduce_cols(np.array([0, 2, 2, 3]), np.array([0, 3, 3]), np.array([4, -1, 2]), 4, "plus")
    >>> y.tolist(), p.tolist()
    ([4, 0, 0, 1], [True, False, False, True])
    """
    who = "graph reduce_cols"
    m = _monoid(who, monoid)
    crow, col = _csr_index(who, crow, col)
    values = _values(who, "values", values, col.shape[0])
    Z = _reduce_dtype(who, m, values, dtype)
    if values is not None and values.dtype != Z:  # lor/land: computed in bool
        values = np.broadcast_to(values[:1] != 0, values.shape) if _is_iso(values) else values != 0
    sr = _table.Semiring(f"{m.name}_second", m, _table.MULTIPLIES["second"])
    return vxm(crow, col, values, ncols, None, None, sr, dtype=Z)


def reduce_all(crow, col, values, monoid, *, dtype=None):
    """``(s, present)``: the monoid over every stored value (entries ``crow[0]:crow[-1]``; the
    pointers in between are not read), ``present`` False (and s 0) when there are none.

    >>> s, present = reduce_all(np.array([0, 2, 3]), np.array([0, 1, 1]), np.array([True, False, True]), "land")
    >>> bool(s), present
    (False, True)
    """
    who = "graph reduce_all"
    m = _monoid(who, monoid)
    crow, col = _csr_index(who, crow, col)
    values = _values(who, "values", values, col.shape[0])
    Z = _reduce_dtype(who, m, values, dtype)
    aval, am = _operand(values, True, Z)
    _check_ends(who, crow, col.shape[0])
    lo, hi = int(crow[0]), int(crow[-1])
    if hi == lo:
        return Z.type(0), False
    kernel = _kernel(_all_factory, m.code)
    with team(hi - lo, _GRAIN) as threads:
        nch = min(4 * threads, hi - lo) if threads > 1 else 1
        s, found = kernel(aval, am, lo, hi, nch, Z.type(0))
    return Z.type(s), bool(found)


def reduce(crow, col, values, monoid, axis=None, ncols=None, *, dtype=None):
    """The registry's ``graph_reduce``: :func:`reduce_all` (axis None), :func:`reduce_rows`
    (axis 1: one value per row) or :func:`reduce_cols` (axis 0, needs ``ncols``)."""
    if axis is None:
        return reduce_all(crow, col, values, monoid, dtype=dtype)
    if axis in (1, -1):
        return reduce_rows(crow, col, values, monoid, dtype=dtype)
    if axis in (0, -2):
        if ncols is None:
            raise ValueError("graph reduce: axis=0 (per column) needs ncols")
        return reduce_cols(crow, col, values, ncols, monoid, dtype=dtype)
    raise ValueError(f"graph reduce: axis must be None, 0 or 1 (or -1, -2) for a matrix, got {axis!r}")


# ---------------------------------------------------------------------------------------
# C<M> = A @ B: validation and work, Gustavson (no mask, complemented mask), masked one-pass
# ---------------------------------------------------------------------------------------

# flags of the validation passes: X's pointers / indices (spgemm's _work_rows), then two
# operands checked by spgemm's _check_b (its bits 4, 8), the second shifted by 2 more
_BAD_X_CROW, _BAD_X_COL, _BAD_C1_CROW, _BAD_C1_COL, _BAD_C2_CROW, _BAD_C2_COL = 1, 2, 4, 8, 16, 32


@numba.njit(**_PJIT)
def _validate_work(x_crow, x_col, y_crow, e_crow, c1_crow, c1_col, c1_bound, c2_crow, c2_col, c2_bound, work, nworkers):
    """Check X (pointers, indices < rows of Y) while work[i + 1] = 1 + the entries of Y's rows
    that X's row i names + the entries of E's row i; check C1 and C2 (pointers, indices below
    their bounds). Returns the flags (0: all valid)."""
    T = nworkers
    M = x_crow.shape[0] - 1
    x0 = np.int64(x_crow[0])
    xN = np.int64(x_crow[M])
    bad = np.zeros(T, np.int64)
    K1 = c1_crow.shape[0] - 1
    K2 = c2_crow.shape[0] - 1
    q10 = np.int64(c1_crow[0])
    q1N = np.int64(c1_crow[K1])
    q20 = np.int64(c2_crow[0])
    q2N = np.int64(c2_crow[K2])
    for t in numba.prange(T):
        f, _s = _work_rows(x_crow, x_col, y_crow, x0, xN, work, M * t // T, M * (t + 1) // T)
        f1 = _check_b(c1_crow, c1_col, c1_bound, K1 * t // T, K1 * (t + 1) // T,
                      q10 + (q1N - q10) * t // T, q10 + (q1N - q10) * (t + 1) // T)
        f2 = _check_b(c2_crow, c2_col, c2_bound, K2 * t // T, K2 * (t + 1) // T,
                      q20 + (q2N - q20) * t // T, q20 + (q2N - q20) * (t + 1) // T)
        bad[t] = f | f1 | (f2 << 2)
        if f == 0:
            for i in range(M * t // T, M * (t + 1) // T):
                work[i + 1] += np.int64(e_crow[i + 1]) - np.int64(e_crow[i])
    flags = 0
    for t in range(T):
        flags |= bad[t]
    return flags


@numba.njit(**_JIT)
def _count_rows_cm(a_crow, a_col, b_crow, b_col, mk, mm, m_crow, m_col, crow, lo, hi):
    """_count_rows of spgemm for a complemented mask: the columns of M's row i (stamped -2 - i
    into mm) are not counted."""
    s = np.int64(0)
    for i in range(lo, hi):
        stamp = -2 - i
        for q in range(np.uint64(m_crow[i]), np.uint64(m_crow[i + 1])):
            mm[np.uint64(m_col[q])] = stamp
        n = np.int64(0)
        for p in range(np.uint64(a_crow[i]), np.uint64(a_crow[i + 1])):
            k = np.uint64(a_col[p])
            for q in range(np.uint64(b_crow[k]), np.uint64(b_crow[k + _U1])):
                j = np.uint64(b_col[q])
                if mm[j] != stamp and mk[j] != stamp:
                    mk[j] = stamp
                    n += 1
        crow[i + 1] = n
        s += n
    return s


@numba.njit(**_PJIT)
def _symbolic(a_crow, a_col, b_crow, b_col, ncols, mark, nper, crow, use_cm, mm, m_crow, m_col):
    """spgemm's symbolic pass (validate, balance, count) with an optional complemented mask
    (validated here too: bits _BAD_C2_*). Returns (splits, flags)."""
    T = mark.shape[0]
    M = a_crow.shape[0] - 1
    K = b_crow.shape[0] - 1
    a0 = np.int64(a_crow[0])
    aN = np.int64(a_crow[M])
    b0 = np.int64(b_crow[0])
    bN = np.int64(b_crow[K])
    MM = m_crow.shape[0] - 1
    m0 = np.int64(m_crow[0])
    mN = np.int64(m_crow[MM])
    crow[0] = 0
    tot = np.zeros(T + 1, np.int64)
    bad = np.zeros(T, np.int64)
    for t in numba.prange(T):
        mark[t, :] = -1
        if use_cm:
            mm[t, :] = -1
        f1 = _check_b(b_crow, b_col, ncols, K * t // T, K * (t + 1) // T,
                      b0 + (bN - b0) * t // T, b0 + (bN - b0) * (t + 1) // T)
        f2, s = _work_rows(a_crow, a_col, b_crow, a0, aN, crow, M * t // T, M * (t + 1) // T)
        f3 = 0
        if use_cm:
            f3 = _check_b(m_crow, m_col, ncols, MM * t // T, MM * (t + 1) // T,
                          m0 + (mN - m0) * t // T, m0 + (mN - m0) * (t + 1) // T) << 2
        tot[t + 1] = s
        bad[t] = f1 | f2 | f3
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
    splits[:] = row_splits(crow, nch, 0)
    ctot = np.zeros(nch + 1, np.int64)
    counter = np.zeros(1, np.int64)
    for w in numba.prange(T):
        c = claim(counter)
        while c < nch:
            if use_cm:
                ctot[c + 1] = _count_rows_cm(a_crow, a_col, b_crow, b_col, mark[w], mm[w], m_crow, m_col, crow,
                                             splits[c], splits[c + 1])
            else:
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


@numba.njit(**_JIT)
def _sort_row(col, val, start, pos, ac, bm, bs, tc, tv, stack):
    """Sort the (column, value) pairs col[start:pos], val[start:pos] by column (unique columns):
    insertion sort up to _INSERTION_MAX, branch-free rank sort up to _RANK_MAX; a longer row
    spreads its values into the dense ac and its columns into the two-level bitmap bm/bs (all
    zero between rows) and reads them back in order (spgemm's scheme), or is introsorted when
    its span is too sparse for the bitmap."""
    one = np.uint64(1)
    six = np.uint64(6)
    twelve = np.uint64(12)
    mask = np.uint64(63)
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
        return
    if n <= _RANK_MAX:
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
        return
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
    if s1 - s0 < np.uint64(_SUMMARY_WORDS_PER_ENTRY * n):
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
    else:
        for x in range(ustart, upos):
            w = np.uint64(col[x]) >> six
            bm[w] = 0
            bs[w >> six] = 0
        sort_range(col, start, pos, stack)
        for x in range(ustart, upos):
            val[x] = ac[np.uint64(col[x])]


def _gustavson_factory(ADD, MUL, TABLE):
    @numba.njit(**_PJIT)
    def kernel(a_crow, a_col, a_val, am, b_crow, b_col, b_val, bm_, crow, splits, mark, acc, col, val, crow_out,
               use_cm, mm, m_crow, m_col):
        """The numeric pass: row i's products accumulated in place into its slice
        crow[i]:crow[i + 1] (mark[w][j]: the output position of column j, below crow[i] when
        not yet in row i, as in spgemm), columns in M's row i skipped for a complemented mask,
        then the row sorted by column."""
        _key = TABLE  # noqa: F841  (part of numba's cache key, see _TABLE_KEY)
        T = mark.shape[0]
        nch = splits.shape[0] - 1
        tc = np.empty((T, _RANK_MAX), col.dtype)
        tv = np.empty((T, _RANK_MAX), val.dtype)
        stacks = np.empty((T, SORT_STACK, 3), np.int64)
        nwords = (acc.shape[1] + 63) // 64
        bm = np.zeros((T, nwords), np.uint64)
        bs = np.zeros((T, (nwords + 63) // 64), np.uint64)
        crow_out[0] = 0
        counter = np.zeros(1, np.int64)
        for w in numba.prange(T):
            mk = mark[w]
            mmw = mm[w]  # (T, 1) when there is no mask
            c = claim(counter)
            while c < nch:
                for i in range(splits[c], splits[c + 1]):
                    start = crow[i]
                    pos = start
                    stamp = -2 - i
                    if use_cm:
                        for q in range(np.uint64(m_crow[i]), np.uint64(m_crow[i + 1])):
                            mmw[np.uint64(m_col[q])] = stamp
                    for p in range(np.uint64(a_crow[i]), np.uint64(a_crow[i + 1])):
                        k = np.uint64(a_col[p])
                        av = a_val[p & am]
                        for q in range(np.uint64(b_crow[k]), np.uint64(b_crow[k + _U1])):
                            j = np.uint64(b_col[q])
                            if use_cm and mmw[j] == stamp:
                                continue
                            m = mk[j]
                            if m < start:
                                mk[j] = pos
                                col[np.uint64(pos)] = j
                                val[np.uint64(pos)] = sr_mul(MUL, av, b_val[q & bm_], i, k, j)
                                pos += 1
                            else:
                                cur = val[np.uint64(m)]
                                if not sr_term(ADD, cur):
                                    val[np.uint64(m)] = sr_add(ADD, cur, sr_mul(MUL, av, b_val[q & bm_], i, k, j))
                    _sort_row(col, val, start, pos, acc[w], bm[w], bs[w], tc[w], tv[w], stacks[w])
                    crow_out[i + 1] = crow[i + 1]
                c = claim(counter)

    return kernel


def _masked_factory(ADD, MUL, TABLE):
    @numba.njit(**_PJIT)
    def kernel(a_crow, a_col, a_val, am, b_crow, b_col, b_val, bm_, m_crow, m_col, sorted_b, splits, wpos, tv, hit,
               cnt, nworkers):
        """C<M> by masked Gustavson, one pass into M's slots: row i's mask columns j get their
        slot q (wpos[w][j] = q, trusted only when q lies in row i's slice and m_col[q] == j,
        so the workspace is never cleared); for each A(i, k), B's row k is walked (up to the
        mask row's last column when B's rows are sorted) and only marked columns accumulate,
        into tv[q] (hit[q]: has a value). cnt[i + 1] = row i's entries."""
        _key = TABLE  # noqa: F841  (part of numba's cache key, see _TABLE_KEY)
        nch = splits.shape[0] - 1
        counter = np.zeros(1, np.int64)
        for w in numba.prange(nworkers):
            wp = wpos[w]
            c = claim(counter)
            while c < nch:
                for i in range(np.uint64(splits[c]), np.uint64(splits[c + 1])):
                    mlo = np.uint64(m_crow[i])
                    mhi = np.uint64(m_crow[i + _U1])
                    alo = np.uint64(a_crow[i])
                    ahi = np.uint64(a_crow[i + _U1])
                    n = 0
                    for q in range(mlo, mhi):
                        hit[q] = False
                    if mhi > mlo and ahi > alo:
                        jmax = np.uint64(m_col[mlo])
                        for q in range(mlo, mhi):
                            j = np.uint64(m_col[q])
                            wp[j] = q
                            jmax = max(jmax, j)
                        span = mhi - mlo
                        for p in range(alo, ahi):
                            k = np.uint64(a_col[p])
                            av = a_val[p & am]
                            for qb in range(np.uint64(b_crow[k]), np.uint64(b_crow[k + _U1])):
                                j = np.uint64(b_col[qb])
                                if sorted_b and j > jmax:
                                    break
                                q = np.uint64(wp[j])
                                if q - mlo < span and np.uint64(m_col[q]) == j:
                                    if hit[q]:
                                        cur = tv[q]
                                        if not sr_term(ADD, cur):
                                            tv[q] = sr_add(ADD, cur, sr_mul(MUL, av, b_val[qb & bm_], i, k, j))
                                    else:
                                        tv[q] = sr_mul(MUL, av, b_val[qb & bm_], i, k, j)
                                        hit[q] = True
                                        n += 1
                    cnt[i + _U1] = n
                c = claim(counter)

    return kernel


def _dot_factory(ADD, MUL, TABLE):
    @numba.njit(**_PJIT)
    def kernel(a_crow, a_col, a_val, am, t_crow, t_col, t_val, tm, m_crow, m_col, sorted_t, zero, splits, wpos, tv, hit,
               cnt, nworkers):
        """C<M> = A @ Bt.T by dot products, one pass into M's slots: row i of A is marked
        (wpos[w][k] = its position p, trusted only when p lies in row i's slice and
        a_col[p] == k), then for each mask column j, Bt's row j is walked (up to A's last
        column when sorted) and the products with marked k reduced; a terminal value ends
        the dot product. tv[q], hit[q]: slot q's value and whether it has one."""
        _key = TABLE  # noqa: F841  (part of numba's cache key, see _TABLE_KEY)
        nch = splits.shape[0] - 1
        counter = np.zeros(1, np.int64)
        for w in numba.prange(nworkers):
            wp = wpos[w]
            c = claim(counter)
            while c < nch:
                for i in range(np.uint64(splits[c]), np.uint64(splits[c + 1])):
                    mlo = np.uint64(m_crow[i])
                    mhi = np.uint64(m_crow[i + _U1])
                    alo = np.uint64(a_crow[i])
                    ahi = np.uint64(a_crow[i + _U1])
                    n = 0
                    for q in range(mlo, mhi):
                        hit[q] = False
                    if mhi > mlo and ahi > alo:
                        kmax = np.uint64(a_col[alo])
                        for p in range(alo, ahi):
                            k = np.uint64(a_col[p])
                            wp[k] = p
                            kmax = max(kmax, k)
                        span = ahi - alo
                        for q in range(mlo, mhi):
                            j = np.uint64(m_col[q])
                            acc = zero
                            found = False
                            for r in range(np.uint64(t_crow[j]), np.uint64(t_crow[j + _U1])):
                                k = np.uint64(t_col[r])
                                if sorted_t and k > kmax:
                                    break
                                p = np.uint64(wp[k])
                                if p - alo < span and np.uint64(a_col[p]) == k:
                                    v = sr_mul(MUL, a_val[p & am], t_val[r & tm], i, k, j)
                                    if found:
                                        acc = sr_add(ADD, acc, v)
                                    else:
                                        acc = v
                                        found = True
                                    if sr_term(ADD, acc):
                                        break
                            if found:
                                tv[q] = acc
                                hit[q] = True
                                n += 1
                    cnt[i + _U1] = n
                c = claim(counter)

    return kernel


@numba.njit(**_PJIT)
def _compact(m_crow, m_col, hit, tv, out_crow, col_out, val_out, splits, nworkers):
    """The slots that got a value, row by row in M's order, into the exact-size result."""
    nch = splits.shape[0] - 1
    counter = np.zeros(1, np.int64)
    for _w in numba.prange(nworkers):
        c = claim(counter)
        while c < nch:
            for i in range(np.uint64(splits[c]), np.uint64(splits[c + 1])):
                o = np.uint64(out_crow[i])
                for q in range(np.uint64(m_crow[i]), np.uint64(m_crow[i + _U1])):
                    if hit[q]:
                        col_out[o] = m_col[q]
                        val_out[o] = tv[q]
                        o += _U1
            c = claim(counter)


def _check_csr(who, crow, col, bound, prefix, bound_what="columns"):
    """Raise (naming the first offender) unless crow/col is a valid CSR with indices < bound."""
    _check_ends(who, crow, col.shape[0], prefix)
    lo, hi = int(crow[0]), int(crow[-1])
    seg = col[lo:hi]
    if _first_decrease(crow) >= 0 or (seg.size and (int(seg.min()) < 0 or int(seg.max()) >= bound)):
        _raise_bad_csr(who, crow, col, bound, prefix, bound_what)


def _sorted_mask_rows(m_crow, m_col):
    """The mask with each row's columns sorted (for sorted_rows=False)."""
    lo, hi = int(m_crow[0]), int(m_crow[-1])
    rows = np.repeat(np.arange(m_crow.shape[0] - 1), np.diff(m_crow))
    seg = m_col[lo:hi]
    order = np.lexsort((seg, rows))
    return (m_crow - lo).astype(m_crow.dtype), np.ascontiguousarray(seg[order])


def _out_index(n, bound):
    return np.int32 if bound <= _INT32_MAX and n <= _INT32_MAX else np.int64


def mxm(a_crow, a_col, a_values, b_crow, b_col, b_values, ncols, semiring, mask=None, complement=False,
        structural=True, *, b_transposed=False, a_ncols=None, dtype=None, sorted_rows=True):
    """``C<M> = A @ B`` over ``semiring``: A (M x K), B (K x ncols) in CSR; C in CSR.

    Parameters
    ----------
    a_crow, a_col, a_values, b_crow, b_col, b_values : A and B in CSR (values None: iso).
        With ``b_transposed=True`` the B parts are B.T's CSR (B's CSC: ncols rows, K columns)
        and ``a_ncols`` (K) must be given.
    ncols : the columns of B and C.
    mask : None or the mask's CSR parts ``(m_crow, m_col)`` or ``(m_crow, m_col, m_values)``,
        (M x ncols); with ``structural=False`` an entry counts only where its value is nonzero.
        Not complemented: only C(i, j) with M(i, j) are computed (masked Gustavson: the mask
        row is marked, and B's rows are walked up to its last column; with ``b_transposed``
        each one is a dot product of A's row i and B.T's row j, ended early by a terminal
        value). ``complement=True``: those entries are skipped, the rest computed (Gustavson);
        no mask and complement: C is empty.
    dtype, sorted_rows : see :func:`mxv` and the module docstring.

    Returns ``(crow, col, values)``: columns strictly increasing in every row, an entry
    wherever some A(i, k) meets some B(k, j) (and the mask lets (i, j) through), whatever its
    value; crow and col int32 when they fit (as spgemm's), values of the semiring's dtype.

    >>> L = (np.array([0, 0, 1, 3]), np.array([0, 0, 1]))           # tril of the triangle 0-1-2
    >>> U = (np.array([0, 2, 3, 3]), np.array([1, 2, 2]))           # L.T
    >>> c = mxm(*L, None, *U, None, 3, "plus_pair", mask=L)           # (L @ L.T)<L>
    >>> [a.tolist() for a in c]                                       # one triangle, at (2, 1)
    [[0, 0, 0, 1], [1], [1]]
    """
    who = "semiring mxm"
    sr = _sr(who, semiring)
    a_crow, a_col = _csr_index(who, a_crow, a_col, "a_")
    b_crow, b_col = _csr_index(who, b_crow, b_col, "b_")
    if mask is not None:
        if not isinstance(mask, (tuple, list)) or len(mask) not in (2, 3):
            raise ValueError(f"{who}: mask must be (m_crow, m_col) or (m_crow, m_col, m_values), got {type(mask).__name__}")
        m_crow, m_col = _csr_index(who, mask[0], mask[1], "m_")
        m_values = mask[2] if len(mask) == 3 else None
        a_crow, a_col, b_crow, b_col, m_crow, m_col = _common_index(a_crow, a_col, b_crow, b_col, m_crow, m_col)
    else:
        a_crow, a_col, b_crow, b_col = _common_index(a_crow, a_col, b_crow, b_col)
        m_crow = np.zeros(1, a_crow.dtype)
        m_col = np.zeros(0, a_crow.dtype)
        m_values = None
    M = a_crow.shape[0] - 1
    N = int(ncols)
    if N < 0:
        raise ValueError(f"{who}: ncols must be >= 0, got {N}")
    if b_transposed:
        if b_crow.shape[0] - 1 != N:
            raise ValueError(f"{who}: B.T's parts have {b_crow.shape[0] - 1} rows, but ncols = {N}")
        if a_ncols is None:
            raise ValueError(f"{who}: b_transposed=True needs a_ncols (the columns of A and of B.T)")
        K = int(a_ncols)
        if mask is None or complement:
            raise ValueError(f"{who}: b_transposed=True computes dot products and needs a mask that is not complemented")
    else:
        K = b_crow.shape[0] - 1
        if a_ncols is not None and int(a_ncols) != K:
            raise ValueError(f"{who}: shapes do not match: A is ({M}, {int(a_ncols)}) and B is ({K}, {N})")
    av = _values(who, "a_values", a_values, a_col.shape[0])
    bv = _values(who, "b_values", b_values, b_col.shape[0])
    Z = _dtype(who, sr, av, bv, dtype)
    reads = sr.multiply.reads
    aval, am = _operand(av, reads in ("both", "first"), Z)
    bval, bm = _operand(bv, reads in ("both", "second"), Z)
    _check_ends(who, a_crow, a_col.shape[0], "a_")
    _check_ends(who, b_crow, b_col.shape[0], "b_")
    if mask is not None:
        if m_crow.shape[0] - 1 != M:
            raise ValueError(f"{who}: shapes do not match: the mask is ({m_crow.shape[0] - 1}, {N}) and C is ({M}, {N})")
        _check_ends(who, m_crow, m_col.shape[0], "m_")
        if not structural or not sorted_rows:
            _check_csr(who, m_crow, m_col, N, "m_")
        if not structural:
            if m_values is None:
                raise ValueError(f"{who}: a valued mask (structural=False) needs m_values")
            mv = np.asarray(m_values)
            if mv.shape != (m_col.shape[0],):
                raise ValueError(f"{who}: m_values must have shape ({m_col.shape[0]},), got {mv.shape}")
            keep = mv != 0
            kept = np.concatenate([[0], np.cumsum(keep)]).astype(m_crow.dtype)
            m_crow, m_col = kept[m_crow], np.ascontiguousarray(m_col[keep])
        if not sorted_rows:
            m_crow, m_col = _sorted_mask_rows(m_crow, m_col)
    elif complement:
        return np.zeros(M + 1, np.int32), np.zeros(0, _out_index(0, N)), np.zeros(0, Z)
    if mask is not None and not complement:
        return _masked(who, sr, Z, a_crow, a_col, aval, am, b_crow, b_col, bval, bm, m_crow, m_col, M, N, K,
                       b_transposed, sorted_rows)
    return _gustavson(who, sr, Z, a_crow, a_col, aval, am, b_crow, b_col, bval, bm, m_crow, m_col, M, N, K, complement)


def _gustavson(who, sr, Z, a_crow, a_col, aval, am, b_crow, b_col, bval, bm, m_crow, m_col, M, N, K, use_cm):
    nnz_a = int(a_crow[-1]) - int(a_crow[0])
    nnz_b = int(b_crow[-1]) - int(b_crow[0])
    work = M + K + nnz_a + nnz_b
    kernel = _kernel(_gustavson_factory, sr.monoid.code, sr.multiply.code)
    with team(work, _GRAIN):
        T = numba.get_num_threads()
        mark = scratch("semiring.mxm.mark", (T, N), np.int64)
        mm = scratch("semiring.mxm.cmask", (T, N), np.int64) if use_cm else np.zeros((T, 1), np.int64)
        crow = scratch("semiring.mxm.crow", (M + 1,), np.int64)
        splits, flags = _symbolic(a_crow, a_col, b_crow, b_col, N, mark, 8, crow, bool(use_cm), mm, m_crow, m_col)
        if flags:
            if flags & (_BAD_C1_CROW | _BAD_C1_COL):
                _raise_bad_csr(who, b_crow, b_col, N, "b_")
            if flags & (_BAD_X_CROW | _BAD_X_COL):
                _raise_bad_csr(who, a_crow, a_col, K, "a_", "rows of B")
            _raise_bad_csr(who, m_crow, m_col, N, "m_")
        nnz = int(crow[M])
        col = np.empty(nnz, _out_index(0, N))
        val = np.empty(nnz, Z)
        if not nnz:
            return np.zeros(M + 1, np.int32), col, val
        crow_out = np.empty(M + 1, np.int32) if nnz <= _INT32_MAX else crow.copy()
        acc = scratch("semiring.mxm.acc", (T, N), Z)
        kernel(a_crow, a_col, aval, am, b_crow, b_col, bval, bm, crow, splits, mark, acc, col, val, crow_out,
               bool(use_cm), mm, m_crow, m_col)
    return crow_out, col, val


def _masked(who, sr, Z, a_crow, a_col, aval, am, b_crow, b_col, bval, bm, m_crow, m_col, M, N, K, dot, sorted_rows):
    nnz_m = m_col.shape[0]
    work0 = M + (int(a_crow[-1]) - int(a_crow[0])) + (int(b_crow[-1]) - int(b_crow[0])) + (int(m_crow[-1]) - int(m_crow[0]))
    with team(work0, _GRAIN) as threads:
        work = np.zeros(M + 1, np.int64)
        if dot:  # X = the mask over B.T's rows, E = A; checked: A's and B.T's columns < K
            flags = _validate_work(m_crow, m_col, b_crow, a_crow, a_crow, a_col, K, b_crow, b_col, K, work, threads)
            names = (("m_", m_crow, m_col, N, "columns"), ("a_", a_crow, a_col, K, "columns"), ("b_", b_crow, b_col, K, "columns"))
        else:  # X = A over B's rows, E = the mask; checked: B's and the mask's columns < N
            flags = _validate_work(a_crow, a_col, b_crow, m_crow, b_crow, b_col, N, m_crow, m_col, N, work, threads)
            names = (("a_", a_crow, a_col, K, "rows of B"), ("b_", b_crow, b_col, N, "columns"), ("m_", m_crow, m_col, N, "columns"))
        if flags:
            for bits, (prefix, crow, col, bound, what) in zip((3, 12, 48), names):
                if flags & bits:
                    _raise_bad_csr(who, crow, col, bound, prefix, what)
        np.cumsum(work, out=work)
        nch = _nchunks(int(work[-1]), threads) if threads > 1 else 1
        nch = max(nch, 8 * threads) if threads > 1 else 1
        splits = row_splits(work, nch, 0)
        wpos = scratch("semiring.mxm.slots_of", (threads, K if dot else N), np.int64)
        tv = scratch("semiring.mxm.slot_values", (nnz_m,), Z)
        hit = scratch("semiring.mxm.slot_hit", (nnz_m,), np.bool_)
        cnt = np.zeros(M + 1, np.int64)
        if dot:
            kernel = _kernel(_dot_factory, sr.monoid.code, sr.multiply.code)
            kernel(a_crow, a_col, aval, am, b_crow, b_col, bval, bm, m_crow, m_col, bool(sorted_rows), _acc_zero(sr, Z),
                   splits, wpos, tv, hit, cnt, threads)
        else:
            kernel = _kernel(_masked_factory, sr.monoid.code, sr.multiply.code)
            kernel(a_crow, a_col, aval, am, b_crow, b_col, bval, bm, m_crow, m_col, bool(sorted_rows), splits, wpos, tv, hit,
                   cnt, threads)
        np.cumsum(cnt, out=cnt)
        nnz = int(cnt[-1])
        crow_out = cnt.astype(np.int32) if nnz <= _INT32_MAX else cnt
        col = np.empty(nnz, _out_index(0, N))
        val = np.empty(nnz, Z)
        if nnz:
            _compact(m_crow, m_col, hit, tv, crow_out, col, val, splits, threads)
    return crow_out, col, val


# ---------------------------------------------------------------------------------------
# select and apply_index
# ---------------------------------------------------------------------------------------

_R = _table.SELECT_RULES
_TRIL, _TRIU, _DIAG, _OFFDIAG, _ROWLE, _ROWGT, _COLLE, _COLGT = (_R[n] for n in (
    "tril", "triu", "diag", "offdiag", "rowle", "rowgt", "colle", "colgt"))
_LT, _LE, _GT, _GE, _EQ, _NE = (_R[n] for n in ("lt", "le", "gt", "ge", "eq", "ne"))


@numba.njit(inline="always", **_JIT)
def _keep(rule, i, j, v, k, t):
    """Whether A(i, j) = v stays under ``rule`` with positional thunk k and value thunk t."""
    if rule == _TRIL:
        return j <= i + k
    if rule == _TRIU:
        return j >= i + k
    if rule == _DIAG:
        return j == i + k
    if rule == _OFFDIAG:
        return j != i + k
    if rule == _ROWLE:
        return i <= k
    if rule == _ROWGT:
        return i > k
    if rule == _COLLE:
        return j <= k
    if rule == _COLGT:
        return j > k
    if rule == _LT:
        return v < t
    if rule == _LE:
        return v <= t
    if rule == _GT:
        return v > t
    if rule == _GE:
        return v >= t
    if rule == _EQ:
        return v == t
    return v != t


@numba.njit(inline="always", **_JIT)
def _first_above(col, lo, hi, bound):
    """The first position in the sorted col[lo:hi] whose column exceeds ``bound`` (hi if none)."""
    while lo < hi:
        mid = (lo + hi) >> _U1
        if np.int64(col[mid]) <= bound:
            lo = mid + _U1
        else:
            hi = mid
    return lo


@numba.njit(**_PJIT)
def _select_count(crow, col, aval, am, rule, k, t, ranges, first, cnt, splits, status, nworkers):
    """cnt[i + 1] = the entries of row i that stay; for a positional rule on sorted rows
    (``ranges``) they are one run found by binary search, first[i] its start (offdiag: the
    position of the diagonal entry left out, or -1)."""
    nch = splits.shape[0] - 1
    nse = np.int64(col.shape[0])
    counter = np.zeros(1, np.int64)
    for _w in numba.prange(nworkers):
        c = claim(counter)
        while c < nch:
            st = _OK
            for i in range(np.int64(splits[c]), np.int64(splits[c + 1])):
                lo = np.int64(crow[i])
                hi = np.int64(crow[i + 1])
                if lo < 0 or hi < lo or hi > nse:
                    st = _BAD_POINTER
                    break
                ulo = np.uint64(lo)
                uhi = np.uint64(hi)
                if ranges:
                    s = ulo
                    e = uhi
                    if rule == _TRIL:
                        e = _first_above(col, ulo, uhi, i + k)
                    elif rule == _TRIU:
                        s = _first_above(col, ulo, uhi, i + k - 1)
                    elif rule == _DIAG or rule == _OFFDIAG:
                        s = _first_above(col, ulo, uhi, i + k - 1)
                        on = s < uhi and np.int64(col[s]) == i + k
                        if rule == _DIAG:
                            e = s + _U1 if on else s
                        else:
                            first[i] = np.int64(s) if on else -1
                            cnt[i + 1] = hi - lo - (1 if on else 0)
                            continue
                    elif rule == _ROWLE:
                        if not i <= k:
                            e = s
                    elif rule == _ROWGT:
                        if not i > k:
                            e = s
                    elif rule == _COLLE:
                        e = _first_above(col, ulo, uhi, k)
                    else:  # colgt
                        s = _first_above(col, ulo, uhi, k)
                    first[i] = np.int64(s)
                    cnt[i + 1] = np.int64(e) - np.int64(s)
                else:
                    n = 0
                    for p in range(ulo, uhi):
                        n += _keep(rule, i, np.int64(col[p]), aval[p & am], k, t)
                    cnt[i + 1] = n
            status[c] = st
            c = claim(counter)


@numba.njit(**_PJIT)
def _select_fill(crow, col, aval, am, rule, k, t, ranges, first, out_crow, out_col, out_val, copy_values, splits,
                 nworkers):
    """The entries that stay, row by row into the exact-size result (see _select_count)."""
    nch = splits.shape[0] - 1
    counter = np.zeros(1, np.int64)
    for _w in numba.prange(nworkers):
        c = claim(counter)
        while c < nch:
            for i in range(np.int64(splits[c]), np.int64(splits[c + 1])):
                o = np.uint64(out_crow[i])
                n = np.uint64(out_crow[i + 1]) - o
                if ranges and rule != _OFFDIAG:
                    s = np.uint64(first[i])
                    for x in range(n):
                        out_col[o + x] = col[s + x]
                    if copy_values:
                        for x in range(n):
                            out_val[o + x] = aval[s + x]
                    continue
                skip = first[i] if ranges else -1
                for p in range(np.uint64(crow[i]), np.uint64(crow[i + 1])):
                    if ranges:
                        stay = np.int64(p) != skip
                    else:
                        stay = _keep(rule, i, np.int64(col[p]), aval[p & am], k, t)
                    if stay:
                        out_col[o] = col[p]
                        if copy_values:
                            out_val[o] = aval[p]
                        o += _U1
            c = claim(counter)


def select(crow, col, values, rule, thunk=None, *, sorted_rows=True):
    """The entries of A (CSR) that ``rule`` keeps, as a new CSR ``(crow, col, values)``.

    Rules (``kernels/semirings.py``: SELECT_RULES), GraphBLAS's: positional ``tril``
    (j <= i + thunk), ``triu`` (j >= i + thunk), ``diag``, ``offdiag``, ``rowle`` (i <= thunk),
    ``rowgt``, ``colle`` (j <= thunk), ``colgt``, thunk an int (default 0); by value ``lt``,
    ``le``, ``gt``, ``ge``, ``eq``, ``ne`` (A(i, j) <op> thunk, the thunk cast to the values'
    dtype; NaN compares as IEEE says, so ``ne`` keeps it). Iso values (None) stay None (every
    value 1). On sorted rows a positional rule's run is found by binary search and copied.
    The result keeps the input's index dtypes, its rows in their order.

    >>> c = select(np.array([0, 2, 4]), np.array([0, 1, 0, 1]), np.array([1., 2., 3., 4.]), "tril")
    >>> [a.tolist() for a in c]
    [[0, 1, 3], [0, 0, 1], [1.0, 3.0, 4.0]]
    """
    who = "graph select"
    if rule not in _table.SELECT_RULES:
        raise ValueError(f"{who}: unknown rule {rule!r}; expected one of {list(_table.SELECT_RULES)}")
    crow, col = _common_index(*_csr_index(who, crow, col))
    M = crow.shape[0] - 1
    nse = col.shape[0]
    values = _values(who, "values", values, nse)
    positional = rule in _table.POSITIONAL_RULES
    if positional:
        try:
            k = int(0 if thunk is None else thunk)
        except (TypeError, ValueError):
            raise ValueError(f"{who}: rule {rule!r} takes an integer thunk, got {thunk!r}") from None
        if thunk is not None and float(thunk) != k:
            raise ValueError(f"{who}: rule {rule!r} takes an integer thunk, got {thunk!r}")
    else:
        if thunk is None:
            raise ValueError(f"{who}: rule {rule!r} compares the values with a thunk: give one")
        k = 0
    Z = np.dtype(np.int64) if values is None else values.dtype
    if positional:
        t = Z.type(0)
    else:
        try:
            with np.errstate(all="ignore"):
                t = Z.type(thunk)
        except (TypeError, ValueError, OverflowError):
            raise ValueError(f"{who}: the thunk {thunk!r} cannot be cast to the values' dtype {Z}") from None
    iso = _is_iso(values)  # an iso result: the input's one element
    aval, am = (np.ones(1, Z), _ISO) if values is None else (np.array(values[:1]), _ISO) if iso else (values, _FULL)
    _check_ends(who, crow, nse)
    ranges = positional and bool(sorted_rows)
    work = int(crow[-1]) - int(crow[0]) + M
    out_crow = np.zeros(M + 1, crow.dtype if int(crow[-1]) <= np.iinfo(crow.dtype).max else np.int64)
    with team(work, _GRAIN) as threads:
        nch = _nchunks(work, threads)
        splits = row_splits(crow, nch, 1)
        status = np.zeros(nch, np.int8)
        first = np.empty(M if ranges else 1, np.int64)
        cnt = np.zeros(M + 1, np.int64)
        _select_count(crow, col, aval, am, _table.SELECT_RULES[rule], k, t, ranges, first, cnt, splits, status, threads)
        if status.any():
            _raise_bad_csr(who, crow, col, np.iinfo(np.int64).max)
        np.cumsum(cnt, out=cnt)
        out_crow[:] = cnt
        nnz = int(cnt[-1])
        out_col = np.empty(nnz, col.dtype)
        out_val = np.empty(nnz if values is not None and not iso else 1, Z)
        if nnz:
            _select_fill(crow, col, aval, am, _table.SELECT_RULES[rule], k, t, ranges, first, out_crow, out_col, out_val,
                         values is not None and not iso, splits, threads)
    if iso:
        return out_crow, out_col, np.broadcast_to(aval, (nnz,))
    return out_crow, out_col, (out_val if values is not None else None)


@numba.njit(**_PJIT)
def _apply_index(crow, col, op, k, out, splits, nworkers):
    nch = splits.shape[0] - 1
    counter = np.zeros(1, np.int64)
    for _w in numba.prange(nworkers):
        c = claim(counter)
        while c < nch:
            for i in range(np.int64(splits[c]), np.int64(splits[c + 1])):
                lo = np.uint64(crow[i])
                hi = np.uint64(crow[i + 1])
                if op == 0:  # rowindex
                    for p in range(lo, hi):
                        out[p] = i + k
                elif op == 1:  # colindex
                    for p in range(lo, hi):
                        out[p] = np.int64(col[p]) + k
                else:  # diagindex
                    for p in range(lo, hi):
                        out[p] = np.int64(col[p]) - i + k
            c = claim(counter)


def apply_index(crow, col, values, op, thunk=0, *, dtype=None):
    """The values of A's stored entries replaced by an index: ``rowindex`` i + thunk,
    ``colindex`` j + thunk, ``diagindex`` j - i + thunk (GraphBLAS's ROWINDEX, COLINDEX,
    DIAGINDEX); the structure (crow, col) is A's, so only the new values come back,
    ``len(col)`` of them (int64, or ``dtype`` int32; entries outside ``crow[0]:crow[-1]`` are
    0). ``values`` is not read (it may be None).

    >>> apply_index(np.array([0, 2, 3]), np.array([0, 2, 1]), None, "diagindex").tolist()
    [0, 2, 0]
    """
    who = "graph apply_index"
    if op not in _table.INDEX_OPS:
        raise ValueError(f"{who}: unknown op {op!r}; expected one of {list(_table.INDEX_OPS)}")
    out_dtype = np.dtype(np.int64 if dtype is None else dtype)
    if out_dtype not in (np.dtype(np.int32), np.dtype(np.int64)):
        raise KernelDeclined(f"{who}: dtype must be int32 or int64, got {out_dtype}")
    crow, col = _common_index(*_csr_index(who, crow, col))
    M = crow.shape[0] - 1
    nse = col.shape[0]
    if values is not None:
        _values(who, "values", values, nse)
    try:
        k = int(thunk)
    except (TypeError, ValueError):
        raise ValueError(f"{who}: the thunk must be an integer, got {thunk!r}") from None
    _check_ends(who, crow, nse)
    if _first_decrease(crow) >= 0:
        _raise_bad_csr(who, crow, col, np.iinfo(np.int64).max)
    out = np.zeros(nse, out_dtype)
    work = int(crow[-1]) - int(crow[0]) + M
    if M:
        with team(work, _GRAIN) as threads:
            nch = _nchunks(work, threads)
            splits = row_splits(crow, nch, 1)
            _apply_index(crow, col, _table.INDEX_OPS[op], k, out, splits, threads)
    return out
