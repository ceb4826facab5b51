"""GraphBLAS's operations on a GPU: the CUDA twins of the registry entries of
``kernels/cpu/semiring_entries.py`` (same positional arguments, results, dtypes and error messages;
the contract is written at the top of ``_engine/graph_generic.py``).

- :func:`semiring_mxv` -- ``y<mask> = A @ x``, pull (``sr_mxv``): a group of lanes per row, reduced
  in registers up to the monoid's terminal value; rows the mask leaves out are not read.
- :func:`semiring_vxm` -- ``y<mask> = x @ A``, push (``sr_push``): each present x(k) (a sparse
  frontier in any order, or a bitmap) scattered along row k of A into y with the monoid's atomic
  combine; the mask is checked before a product is formed.
- :func:`semiring_mxm` -- ``C<M> = A @ B``, Gustavson (``sr_push`` over the entries of A): with a
  mask, into the mask's own slots, each row of B walked from the mask row's first column to its
  last; without one, or with its complement (skipped before each product), into per-row hash or
  dense tables (``_hash.cuh``) sized as spgemm sizes its own (from the operands' longest rows when
  they are known; batched past spgemm's ``TABLE_BUDGET`` slots), then each row written sorted
  (``sr_rows_out``).
- :func:`graph_reduce` -- a monoid over rows (the pull with an iso x and ``first``), columns (the
  push with ``second``) or everything (partials over runs of ``ALL_CHUNK`` entries, then one row of
  them).
- :func:`graph_select`, :func:`graph_apply_index` -- a keep flag or a new value per entry (a group
  of lanes per row); the kept entries gathered after a prefix sum.

The product kernels are templated on the monoid and the value type; the multiply op and each index
array's width (int32 or int64, no copies) are uniform launch parameters (``semiring.cu`` says why).
Every ``<monoid>_<multiply>`` pair of ``kernels/semirings.py`` runs here on bool, int32, int64,
float32 and float64 values, except ``lor``/``land`` over the integers that positional ops give
(KernelDeclined: the generic path serves them).

Host reads (syncs). Sizes come from shapes: the vector products, reductions and ``apply_index``
read nothing back; ``select`` and a masked product read the result's size once; an unmasked or
complemented one reads it once when both operands' longest rows are known, else once more for the
tables' size. Called by the library the inputs are proven (``_trust.py``): the kernels' error
flags are read only where a size is read anyway. Called directly, they are read once, and a flag is
explained with the numba kernels' own code (their message for the first bad pointer or index).

>>> import numpy as np
>>> y, p = semiring_mxv(np.array([0, 2, 3, 3]), np.array([1, 2, 2]), np.array([1.0, 5.0, 1.0]), np.zeros(3), None,
...                     "min_plus", None, None, False, True, None, None)
>>> y.tolist(), p.tolist()
([1.0, 1.0, 0.0], [True, True, False])
"""

from __future__ import annotations

import numpy as np

from .. import KernelDeclined
from .. import semirings as _table
from ._arrays import stable_argsort
from ._build import c_type
from ._driver import driver_for
from ._operands import host, index_of, lanes_for, read_stats
from ._trust import inputs_proven
from .spgemm import _batches, _pool_slots
from .spmm import remember_longest_row

__all__ = ["semiring_mxv", "semiring_vxm", "semiring_mxm", "semiring_mxm_dot", "graph_reduce", "graph_select", "graph_apply_index"]

SOURCE = "semiring.cu"

_NUMERIC = tuple(np.dtype(t) for t in ("int32", "int64", "float32", "float64"))
#: (monoid functor, C value type) of every product kernel: each monoid on the numeric types, and the
#: three that bool values have (plus, times, min and max are renamed lor and land on them)
MONOID_TYPES = tuple((f"monoid_{m}", c_type(t)) for t in _NUMERIC for m in ("plus", "times", "min", "max", "any")) + tuple(
    (f"monoid_{m}", "bool") for m in ("lor", "land", "any")
)
_WORDS = {1: "unsigned char", 4: "unsigned int", 8: "unsigned long long"}
NAME_EXPRESSIONS = (
    tuple(f"{k}<{m}, {t}>" for k in ("sr_mxv", "sr_push") for m, t in MONOID_TYPES)
    + ("sr_mxm_work", "sr_apply_index")
    + tuple(f"sr_rows_out<{w}>" for w in _WORDS.values())
    + tuple(f"sr_select_keep<{c_type(t)}>" for t in _table.VALUE_DTYPES)
)

#: the kernels' multiply op codes (semiring.cu's SR_*); positional ops by the index they give
_MUL_CODES = {
    "first": 0, "second": 1, "pair": 2, "times": 3, "plus": 4, "minus": 5, "div": 6, "min": 7, "max": 8,
    "land": 9, "lor": 10, "lxor": 11, "firsti": 12, "firsti1": 13, "firstj": 14, "firstj1": 15,
    "secondi": 14, "secondi1": 15, "secondj": 16, "secondj1": 17,
}  # fmt: skip
# semiring.cu's mode bits, width bits and flags
_X_PRESENT, _MASK, _COMPLEMENT, _MASK_OK, _X_COLS, _SLOTS, _TABLES, _COUNT_ONLY = 1, 2, 4, 8, 16, 32, 64, 128
_READ_COL = _X_COLS
_W_XCROW, _W_XCOL, _W_BCROW, _W_BCOL, _W_MCROW, _W_MCOL, _W_OUT = 1, 2, 4, 8, 16, 32, 64
_BAD_X_COL = 2  # (the other flags only say that something is bad: _bad_csr finds what)
_FULL, _ISO = np.uint64(0xFFFFFFFFFFFFFFFF), np.uint64(0)
#: hash tables of up to this many slots are sorted in the kernel (by rank), larger ones afterwards
RANK_SLOTS = 512
#: entries per partial of a whole-matrix reduction
ALL_CHUNK = 1024
_INT32_MAX = np.iinfo(np.int32).max
_NO_BOUND = np.iinfo(np.int64).max  # the columns of a matrix whose columns are not read


# ---- arguments ----------------------------------------------------------------------------------


def _sr(who, semiring):
    try:
        return _table.semiring(semiring)
    except ValueError as e:
        raise ValueError(f"{who}: {e}") from None


def _csr_index(xp, who, crow, col, prefix=""):
    crow, col = index_of(xp, crow, f"{prefix}crow", who), index_of(xp, col, f"{prefix}col", who)
    if crow.shape[0] == 0:
        raise ValueError(f"{who}: {prefix}crow must have at least one element ({prefix}crow[0] = 0)")
    return crow, col


def _widths(**arrays):
    """semiring.cu's ``widths``: a bit for each index array that is int64 (the others are int32)."""
    bits = {"x_crow": _W_XCROW, "x_col": _W_XCOL, "b_crow": _W_BCROW, "b_col": _W_BCOL, "m_crow": _W_MCROW, "m_col": _W_MCOL}
    return np.int32(sum(bits[n] for n, a in arrays.items() if a.dtype == np.int64))


def _values(xp, who, name, v, n):
    """None (iso) or ``v`` as a C-contiguous 1-D array of a graph value dtype and length ``n``."""
    if v is None:
        return None
    v = xp.asarray(v)
    if v.ndim != 1 or v.shape[0] != n:
        raise ValueError(f"{who}: {name} must be 1-D of length {n}, got shape {v.shape}")
    if v.dtype not in _table.VALUE_DTYPES:
        raise KernelDeclined(
            f"{who}: {name} has dtype {v.dtype}; expected one of {[d.name for d in _table.VALUE_DTYPES]} "
            "(cast first or use the generic implementation)"
        )
    return v if iso_element(v) is not None else xp.ascontiguousarray(v)


def iso_element(v):
    """The one element (``v[:1]``) of iso values -- a zero-stride broadcast of one element,
    sparray/_core/iso.py -- or None."""
    strides = getattr(v, "strides", None)
    if v.ndim == 1 and v.shape[0] > 1 and strides is not None and strides[0] == 0:
        return v[:1]
    return None


def _dtype(who, sr, first, second, dtype):
    try:
        return _table.result_dtype(sr, None if first is None else first.dtype, None if second is None else second.dtype, dtype)
    except ValueError as e:
        raise KernelDeclined(f"{who}: {e}") from None


def _monoid(who, monoid, Z):
    """The monoid functor's name for values of Z (bool renames, as the table has them)."""
    name = monoid.on_bool if Z == np.bool_ else monoid.name
    if Z != np.bool_ and name in ("lor", "land"):
        raise KernelDeclined(f"{who}: the {name} monoid over {Z} values (positional ops) has no CUDA kernel")
    return f"monoid_{name}"


def _identity(functor, Z):
    """What an accumulator in memory starts as: a value that leaves the first product as it is
    (semiring.cu: -0.0 for float plus, NaN for float min and max)."""
    name = functor[len("monoid_"):]
    if Z.kind == "f" and name in ("plus", "min", "max"):
        return Z.type(-0.0) if name == "plus" else Z.type(np.nan)
    return _table.identity(name, Z)


def _mul_code(mul, Z):
    return np.int32(_MUL_CODES[mul.on_bool if Z == np.bool_ else mul.name])


def _operand(xp, values, read, Z):
    """(array, index mask) of an operand inside a kernel: its values in Z (bool for the lor and
    land monoids: value != 0), or a one of Z read at element 0 when it is iso or not read."""
    if values is None or not read:
        return xp.ones(1, Z), _ISO
    one = iso_element(values)
    if one is not None:  # iso values (sparray/_core/iso.py): their one element, read at index 0
        return xp.ascontiguousarray(one != 0 if Z == np.bool_ else one.astype(Z)), _ISO
    if values.dtype != Z:
        values = values != 0 if Z == np.bool_ else values.astype(Z)
    return xp.ascontiguousarray(values), _FULL


def _vector_mask(xp, who, mask, mask_values, structural, n, what):
    """(bits, used): the mask as one bool per element (present, and value != 0 for a valued mask)."""
    if mask is None:
        return xp.zeros(1, xp.bool_), False
    m = xp.asarray(mask)
    if m.ndim != 1 or m.shape[0] != n:
        raise ValueError(f"{who}: the mask must have the shape of {what} ({n},), got {m.shape}")
    m = xp.ascontiguousarray(m.astype(xp.bool_, copy=False))
    if not structural:
        if mask_values is None:
            raise ValueError(f"{who}: a valued mask (structural=False) needs mask_values")
        mv = xp.asarray(mask_values)
        if mv.shape != (n,):
            raise ValueError(f"{who}: mask_values must have shape ({n},), got {mv.shape}")
        m = m & (mv != 0)
    return m, True


def _bits(xp, present):
    return xp.zeros(1, xp.bool_) if present is None else xp.ascontiguousarray(xp.asarray(present).astype(xp.bool_, copy=False))


def _stats(xp):
    return xp.zeros(3, xp.int64)


def _flags(stats):
    """The kernels' flags, unless the inputs are proven (then 0: nothing is read)."""
    return 0 if inputs_proven() else read_stats(stats)[2]


def _bad_csr(who, *operands):
    """Raise the numba kernels' ValueError naming the first bad pointer or index among the CSR
    ``operands`` ``(crow, col, bound[, prefix, what])`` that a kernel flagged (error paths only:
    the arrays are copied to the host, and numba's module is imported for its messages)."""
    from ..cpu import semiring as cpu

    for crow, col, bound, *names in operands:
        cpu._check_csr(who, host(crow), host(col), bound, *(names or [""]))
    raise AssertionError(f"{who}: a kernel reported invalid input that was not found")  # pragma: no cover


# ---- the two product kernels --------------------------------------------------------------------


def _pull(drv, functor, op, Z, crow, col, aval, am, xval, xm, x_ok, mb, M, K, mode):
    """``sr_mxv``: (y, present, stats) of length M."""
    xp = drv.xp
    y, yp, stats = xp.zeros(M, Z), xp.zeros(M, xp.bool_), _stats(xp)
    if M:
        lanes = lanes_for(col.shape[0] / M)
        drv.launch(SOURCE, f"sr_mxv<{functor}, {c_type(Z)}>", -(-M // (32 // lanes)) * 32,
                   (crow, col, aval, am, xval, xm, x_ok, mb, np.int64(M), np.int64(K), np.int64(col.shape[0]),
                    _widths(x_crow=crow, x_col=col), np.int32(mode), op, np.int32(lanes), y, yp, stats))  # fmt: skip
    return y, yp, stats


class _Push:
    """``sr_push`` launches of one operation: rows X = (crow, col, values, index mask, presence)
    pushed through B = (crow, col, values, index mask) under the mask (crow, col, m_ok, bitmap);
    called with a row range of X and the accumulators."""

    def __init__(self, drv, functor, Z, op, X, B, mask, K, N, mode):
        xp = drv.xp
        self.drv, self.name, self.Z, self.identity = drv, f"sr_push<{functor}, {c_type(Z)}>", Z, _identity(functor, Z)
        self.X, self.B, self.mask, self.mode, self.op = X, B, mask, mode, op
        if mask is None:
            self.mask = (xp.zeros(1, xp.int32), xp.zeros(1, xp.int32), xp.zeros(1, xp.bool_), xp.zeros(1, xp.bool_))
        m_crow, m_col = self.mask[:2]
        self.sizes = tuple(np.int64(v) for v in (K, N, B[1].shape[0], m_col.shape[0]))
        self.widths = _widths(x_crow=X[0], x_col=X[1], b_crow=B[0], b_col=B[1], m_crow=m_crow, m_col=m_col)
        self.lanes = lanes_for(B[1].shape[0] / max(B[0].shape[0] - 1, 1))
        self.stats = _stats(xp)

    def __call__(self, r0, r1, nse_x, toff, keys, tv, hit, counts, mode=0):
        if r1 <= r0 or nse_x == 0:
            return
        self.drv.launch(SOURCE, self.name, nse_x * self.lanes,
                        (*self.X, *self.B, *self.mask, np.int64(r0), np.int64(r1), np.int64(nse_x), *self.sizes, self.widths,
                         np.int32(self.mode | mode), self.op, np.int32(self.lanes), toff, keys, tv, hit, counts,
                         self.stats))  # fmt: skip


# ---- y = A @ x (pull), y = x @ A (push) ---------------------------------------------------------


def semiring_mxv(crow, col, values, x, x_present, semiring, mask, mask_values, complement, structural, ncols, dtype):
    """``y<mask> = A @ x`` over ``semiring`` (contract: ``kernels/cpu/semiring.py``'s ``mxv``):
    ``(y, present)`` of A's rows, y 0 where absent. Reads nothing back when the inputs are proven."""
    who = "semiring mxv"
    sr = _sr(who, semiring)
    drv = driver_for(crow, col, values, x, x_present, mask, mask_values)
    xp = drv.xp
    crow, col = _csr_index(xp, who, crow, col)
    M, nse = crow.shape[0] - 1, col.shape[0]
    values = _values(xp, who, "values", values, nse)
    for n, v in (("x", x), ("x_present", x_present)):
        if v is not None and np.ndim(v) != 1:
            raise ValueError(f"{who}: {n} must be 1-D, got shape {np.shape(v)}")
    lengths = {n: v.shape[0] for n, v in (("x", x), ("x_present", x_present)) if v is not None}
    K = ncols if ncols is not None else next(iter(lengths.values()), None)
    if K is None:
        raise ValueError(f"{who}: x and x_present are both None: give ncols (the length of x)")
    K = int(K)
    for n, length in lengths.items():
        if length != K:
            raise ValueError(f"{who}: shapes do not match: A is ({M}, {K}) and {n} is ({length},)")
    xv = _values(xp, who, "x", x, K)
    Z = _dtype(who, sr, values, xv, dtype)
    functor = _monoid(who, sr.monoid, Z)
    reads = sr.multiply.reads
    aval, am = _operand(xp, values, reads in ("both", "first"), Z)
    xval, xm = _operand(xp, xv, reads in ("both", "second"), Z)
    mb, use_mask = _vector_mask(xp, who, mask, mask_values, structural, M, "y")
    if M == 0 or (complement and not use_mask):
        return xp.zeros(M, Z), xp.zeros(M, xp.bool_)
    mode = _READ_COL | (_X_PRESENT if x_present is not None else 0) | (_MASK if use_mask else 0) | (_COMPLEMENT if complement else 0)
    y, yp, stats = _pull(drv, functor, _mul_code(sr.multiply, Z), Z, crow, col, aval, am, xval, xm, _bits(xp, x_present), mb,
                         M, K, mode)
    if _flags(stats):
        _bad_csr(who, (crow, col, K))
    return y, yp


def _push_vector(drv, functor, op, Z, x_rows, x_col, xval, xm, x_ok, crow, col, aval, am, mb, M, N, mode):
    """y = x @ A by push (x one row of X: its entries name rows of A): (y, present, stats)."""
    xp = drv.xp
    push = _Push(drv, functor, Z, op, (x_rows, x_col, xval, xm, x_ok), (crow, col, aval, am),
                 None if not mode & _MASK else (xp.zeros(1, xp.int32), xp.zeros(1, xp.int32), xp.zeros(1, xp.bool_), mb), M, N,
                 mode)  # fmt: skip
    y, yp = xp.full(N, push.identity, Z), xp.zeros(N, xp.bool_)
    dummy = xp.zeros(1, xp.int64)
    nx = x_col.shape[0] if mode & _X_COLS else x_ok.shape[0] if mode & _X_PRESENT else M
    push(0, 1, nx, dummy, dummy, y, yp, dummy)
    return xp.where(yp, y, xp.zeros((), Z)), yp, push.stats


def semiring_vxm(crow, col, values, ncols, x, x_present, semiring, mask, mask_values, complement, structural, x_indices,
                 dtype):
    """``y<mask> = x @ A`` over ``semiring`` by push (contract: ``kernels/cpu/semiring.py``'s
    ``vxm``): x sparse (``x_indices`` and their values) or a bitmap of A's rows. Reads nothing back
    when the inputs are proven."""
    who = "semiring vxm"
    sr = _sr(who, semiring)
    drv = driver_for(crow, col, values, x, x_present, mask, mask_values, x_indices)
    xp = drv.xp
    crow, col = _csr_index(xp, who, crow, col)
    M, N, nse = crow.shape[0] - 1, int(ncols), col.shape[0]
    if N < 0:
        raise ValueError(f"{who}: ncols must be >= 0, got {N}")
    values = _values(xp, who, "values", values, nse)
    if x_indices is not None:
        if x_present is not None:
            raise ValueError(f"{who}: give x_present only for a bitmap x (x_indices None)")
        xi = index_of(xp, x_indices, "x_indices", who)
        nx = xi.shape[0]
        xv = _values(xp, who, "x", x, nx)
    else:
        xi, nx = xp.zeros(1, xp.int32), M
        for n, v in (("x", x), ("x_present", x_present)):
            if v is not None and tuple(v.shape) != (M,):
                raise ValueError(f"{who}: shapes do not match: {n} is {tuple(v.shape)} and A is ({M}, {N})")
        xv = _values(xp, who, "x", x, M)
    Z = _dtype(who, sr, xv, values, dtype)
    functor = _monoid(who, sr.monoid, Z)
    reads = sr.multiply.reads
    xval, xm = _operand(xp, xv, reads in ("both", "first"), Z)
    aval, am = _operand(xp, values, reads in ("both", "second"), Z)
    mb, use_mask = _vector_mask(xp, who, mask, mask_values, structural, N, "y")
    if N == 0 or nx == 0 or (complement and not use_mask):
        return xp.zeros(N, Z), xp.zeros(N, xp.bool_)
    mode = ((_X_COLS if x_indices is not None else 0) | (_X_PRESENT if x_present is not None else 0)
            | (_MASK if use_mask else 0) | (_COMPLEMENT if complement else 0))  # fmt: skip
    rows = xp.arange(0, 2 * nx, nx, dtype=xp.int64)  # [0, nx]: x as one row
    y, yp, stats = _push_vector(drv, functor, _mul_code(sr.multiply, Z), Z, rows, xi, xval, xm, _bits(xp, x_present), crow,
                                col, aval, am, mb, M, N, mode)
    flags = _flags(stats)
    if flags & _BAD_X_COL:
        h = host(xi)
        bad = int(np.flatnonzero((h < 0) | (h >= M))[0])
        raise ValueError(f"{who}: x_indices[{bad}] = {h[bad]} is out of range for the {M} rows of A")
    if flags:
        _bad_csr(who, (crow, col, N))
    return y, yp


# ---- reductions ---------------------------------------------------------------------------------


def graph_reduce(crow, col, values, monoid, axis, ncols, dtype):
    """The monoid over each row's (axis 1), each column's (axis 0, needs ``ncols``) or every stored
    value (axis None) -- contract: ``kernels/cpu/semiring.py``'s ``reduce``. Rows and columns give
    ``(y, present)``; everything gives ``(s, present)`` as 0-d device arrays. Reads nothing back when
    the inputs are proven."""
    if axis not in (None, 0, 1, -1, -2):
        raise ValueError(f"graph reduce: axis must be None, 0 or 1 (or -1, -2) for a matrix, got {axis!r}")
    if axis in (0, -2) and ncols is None:
        raise ValueError("graph reduce: axis=0 (per column) needs ncols")
    who = {None: "graph reduce_all", 1: "graph reduce_rows", -1: "graph reduce_rows"}.get(axis, "graph reduce_cols")
    if isinstance(monoid, _table.Monoid):
        m = monoid
    elif monoid in _table.MONOIDS:
        m = _table.MONOIDS[monoid]
    else:
        raise ValueError(f"{who}: unknown monoid {monoid!r}; expected one of {sorted(_table.MONOIDS)}")
    drv = driver_for(crow, col, values)
    xp = drv.xp
    crow, col = _csr_index(xp, who, crow, col)
    M, nse = crow.shape[0] - 1, col.shape[0]
    values = _values(xp, who, "values", values, nse)
    Z = _dtype(who, _table.Semiring(f"{m.name}_first", m, _table.MULTIPLIES["first"]), values, None, dtype)
    functor = _monoid(who, m, Z)
    aval, am = _operand(xp, values, True, Z)
    one, none = xp.ones(1, Z), xp.zeros(1, xp.bool_)
    first = _mul_code(_table.MULTIPLIES["first"], Z)
    if axis in (0, -2):  # x @ A with x = M ones and `second`
        N = int(ncols)
        if N == 0 or M == 0:
            return xp.zeros(N, Z), xp.zeros(N, xp.bool_)
        rows = xp.arange(0, 2 * M, M, dtype=xp.int64)
        y, yp, stats = _push_vector(drv, functor, _mul_code(_table.MULTIPLIES["second"], Z), Z, rows, none, one, _ISO, none,
                                    crow, col, aval, am, none, M, N, 0)
        if _flags(stats):
            _bad_csr(who, (crow, col, N))
        return y, yp
    if axis is not None:  # A @ x with x iso and `first`
        y, yp, stats = _pull(drv, functor, first, Z, crow, col, aval, am, one, _ISO, none, none, M, 0, 0)
        if _flags(stats):
            _bad_csr(who, (crow, col, _NO_BOUND))
        return y, yp
    if nse == 0:
        return xp.zeros((), Z), xp.zeros((), xp.bool_)
    # everything: partials over runs of ALL_CHUNK entries of crow[0]:crow[-1], then one row of them
    nch = -(-nse // ALL_CHUNK)
    lo, hi = crow[0].astype(xp.int64), crow[M].astype(xp.int64)
    runs = xp.minimum(lo + xp.arange(nch + 1, dtype=xp.int64) * ALL_CHUNK, hi).astype(crow.dtype)  # within crow's range
    part, have, stats = _pull(drv, functor, first, Z, runs, col, aval, am, one, _ISO, none, none, nch, 0, 0)
    if _flags(stats):
        _bad_csr(who, (crow, col, _NO_BOUND))
    row = xp.arange(0, 2 * nch, nch, dtype=xp.int64)  # [0, nch]: the partials as one row, absent ones not present
    s, present, _ = _pull(drv, functor, first, Z, row, xp.arange(nch, dtype=xp.int64), part, _FULL, one, _ISO, have, none, 1,
                          nch, _READ_COL | _X_PRESENT)
    return s[0], present[0]


# ---- C<M> = A @ B -------------------------------------------------------------------------------


def semiring_mxm(a_crow, a_col, a_values, b_crow, b_col, b_values, ncols, semiring, mask, complement, structural, dtype):
    """``C<M> = A @ B`` over ``semiring``, CSR x CSR -> CSR with sorted rows (contract:
    ``kernels/cpu/semiring.py``'s ``mxm``; rows of B and of the mask sorted, sparray's invariant).
    Reads the result's size once (and, unmasked, the tables' once more unless the operands' longest
    rows are known)."""
    who = "semiring mxm"
    sr = _sr(who, semiring)
    if mask is not None and (not isinstance(mask, (tuple, list)) or len(mask) not in (2, 3)):
        raise ValueError(f"{who}: mask must be (m_crow, m_col) or (m_crow, m_col, m_values), got {type(mask).__name__}")
    drv = driver_for(a_crow, a_col, a_values, b_crow, b_col, b_values, *(mask or ()))
    xp = drv.xp
    given = (a_crow, b_crow)  # the caller's pointer arrays: their longest rows are kept per object
    a_crow, a_col = _csr_index(xp, who, a_crow, a_col, "a_")
    b_crow, b_col = _csr_index(xp, who, b_crow, b_col, "b_")
    M, K, N = a_crow.shape[0] - 1, b_crow.shape[0] - 1, int(ncols)
    if N < 0:
        raise ValueError(f"{who}: ncols must be >= 0, got {N}")
    av = _values(xp, who, "a_values", a_values, a_col.shape[0])
    bv = _values(xp, who, "b_values", b_values, b_col.shape[0])
    Z = _dtype(who, sr, av, bv, dtype)
    functor = _monoid(who, sr.monoid, Z)
    reads = sr.multiply.reads
    aval, am = _operand(xp, av, reads in ("both", "first"), Z)
    bval, bm = _operand(xp, bv, reads in ("both", "second"), Z)
    J = np.dtype(np.int32 if N <= _INT32_MAX else np.int64)
    parts, mode = None, _X_COLS
    if mask is not None:
        m_crow, m_col = _csr_index(xp, who, mask[0], mask[1], "m_")
        if m_crow.shape[0] - 1 != M:
            raise ValueError(f"{who}: shapes do not match: the mask is ({m_crow.shape[0] - 1}, {N}) and C is ({M}, {N})")
        m_ok, mode = xp.zeros(1, xp.bool_), mode | _MASK | (_COMPLEMENT if complement else 0)
        if not structural:
            m_values = mask[2] if len(mask) == 3 else None
            if m_values is None:
                raise ValueError(f"{who}: a valued mask (structural=False) needs m_values")
            mv = xp.asarray(m_values)
            if mv.shape != (m_col.shape[0],):
                raise ValueError(f"{who}: m_values must have shape ({m_col.shape[0]},), got {mv.shape}")
            m_ok, mode = xp.ascontiguousarray(mv != 0), mode | _MASK_OK
        parts = (m_crow, m_col, m_ok, xp.zeros(1, xp.bool_))
    elif complement:
        return xp.zeros(M + 1, xp.int32), xp.zeros(0, J), xp.zeros(0, Z)
    push = _Push(drv, functor, Z, _mul_code(sr.multiply, Z), (a_crow, a_col, aval, am, xp.zeros(1, xp.bool_)),
                 (b_crow, b_col, bval, bm), parts, K, N, mode)  # fmt: skip
    slots = mask is not None and not complement
    tsize = xp.zeros(M, xp.int64)
    if M and (not slots or not inputs_proven()):  # table sizes, and the checks the push relies on
        drv.launch(SOURCE, "sr_mxm_work", M,
                   (a_crow, a_col, b_crow, np.int64(M), np.int64(K), np.int64(a_col.shape[0]), np.int64(b_col.shape[0]),
                    np.int64(N), _widths(x_crow=a_crow, x_col=a_col, b_crow=b_crow), tsize, push.stats))  # fmt: skip
    out = _masked(push, M, J) if slots else _gustavson(push, M, N, J, tsize, given)
    if out is None:  # a kernel flagged bad input: name it as the numba kernel does
        masks = [] if parts is None else [(parts[0], parts[1], N, "m_")]
        _bad_csr(who, (a_crow, a_col, K, "a_", "rows of B"), (b_crow, b_col, N, "b_"), *masks)
    return out


def semiring_mxm_dot(a_crow, a_col, a_values, bt_crow, bt_col, bt_values, inner, ncols, semiring, mask, structural,
                     dtype):
    """``C<mask> = A @ B`` from B.T's CSR: B's CSR by the device transpose (``transpose_compressed``),
    then the masked product of :func:`semiring_mxm` (no dot-product kernel on the device yet)."""
    from . import compress

    xp = driver_for(bt_crow, bt_col).xp
    nnz = int(bt_col.shape[0])
    vals = bt_values if bt_values is not None else xp.zeros((nnz,), dtype=xp.bool_)
    b_crow, b_col, b_values = compress.transpose_compressed(bt_crow, bt_col, vals[:, None], 1, int(ncols), int(inner),
                                                            bt_col.dtype)
    b_values = None if bt_values is None else b_values[:, 0]
    return semiring_mxm(a_crow, a_col, a_values, b_crow, b_col, b_values, ncols, semiring, mask, False, structural,
                        dtype)


def _masked(push, M, J):
    """C<M> into the mask's slots: one read (the result's size, with the kernels' flags)."""
    xp, Z = push.drv.xp, push.Z
    if not inputs_proven() and M and read_stats(push.stats)[2]:
        return None  # the checks before the push (its row search needs valid pointers)
    m_crow, m_col = push.mask[:2]
    nse_m = m_col.shape[0]
    tv, hit = xp.full(max(nse_m, 1), push.identity, Z), xp.zeros(max(nse_m, 1), xp.bool_)
    dummy = xp.zeros(1, xp.int64)
    if nse_m:
        push(0, M, push.X[1].shape[0], dummy, dummy, tv, hit, dummy, _SLOTS)
    prefix = xp.cumsum(hit[:nse_m].astype(xp.int64))
    nnz, flags = read_stats(xp.stack([prefix[-1] if nse_m else xp.zeros((), xp.int64), push.stats[2]]))
    if flags:
        return None
    if nnz == 0:
        return xp.zeros(M + 1, xp.int32), xp.zeros(0, J), xp.zeros(0, Z)
    starts = xp.concatenate([xp.zeros(1, xp.int64), prefix])[m_crow.astype(xp.int64, copy=False)]
    crow = starts - starts[0]
    where = xp.searchsorted(prefix, xp.arange(1, nnz + 1, dtype=xp.int64), side="left")
    return (crow.astype(xp.int32) if nnz <= _INT32_MAX else crow), m_col[where].astype(J), tv[where]


def _gustavson(push, M, N, J, tsize, given):
    """C = A @ B (a complemented mask's columns skipped) into per-row tables; one read for the
    result's size, one more for the tables' when the operands' longest rows are not known."""
    drv, Z = push.drv, push.Z
    xp = drv.xp
    a_crow, a_col = push.X[:2]
    b_crow = push.B[0]
    toff = xp.concatenate([xp.zeros(1, xp.int64), xp.cumsum(tsize)])
    total = _pool_slots(given[0], given[1], M, a_col.shape[0], N) if inputs_proven() else None
    if total is None:
        K = b_crow.shape[0] - 1
        longest_a = xp.max(a_crow[1:] - a_crow[:-1]) if M else xp.zeros((), a_crow.dtype)
        longest_b = xp.max(b_crow[1:] - b_crow[:-1]) if K else xp.zeros((), b_crow.dtype)
        sizes = (push.stats[2], toff[-1], longest_a.astype(xp.int64), longest_b.astype(xp.int64))
        flags, total, la, lb = read_stats(xp.stack(sizes))
        if flags:
            return None
        remember_longest_row(given[0], la)
        remember_longest_row(given[1], lb)
    cuts, edges = _batches(xp, toff, total, M)
    batches = [(cuts[b], cuts[b + 1], edges[b + 1] - edges[b]) for b in range(len(cuts) - 1)]
    counts = xp.zeros(M, xp.int64)
    fused = len(batches) == 1  # one batch: the values in the counting pass, its tables kept
    tables = None
    for r0, r1, slots in batches:
        tables = _tables(push, r0, r1, slots, toff, counts, 0 if fused else _COUNT_ONLY)
    crow = xp.concatenate([xp.zeros(1, xp.int64), xp.cumsum(counts)])
    if M:
        big = xp.any((tsize != N) & (tsize > RANK_SLOTS)).astype(xp.int64)
        nnz, longest, unsorted, flags = read_stats(xp.stack([crow[-1], xp.max(counts), big, push.stats[2]]))
    else:
        nnz = longest = unsorted = flags = 0
    if flags:
        return None
    if nnz == 0:
        return xp.zeros(M + 1, xp.int32), xp.zeros(0, J), xp.zeros(0, Z)
    col, val = xp.empty(nnz, J), xp.empty(nnz, Z)
    words = np.dtype(f"u{Z.itemsize}")
    for r0, r1, slots in batches:
        if not fused:
            tables = _tables(push, r0, r1, slots, toff, xp.zeros(M, xp.int64), 0)
        keys, tv = tables
        drv.launch(SOURCE, f"sr_rows_out<{_WORDS[Z.itemsize]}>", (r1 - r0) * 32,
                   (np.int64(r0), np.int64(r1), toff, np.int64(N), keys, tv.view(words), crow, np.int64(RANK_SLOTS),
                    np.int32(_W_OUT if J == np.int64 else 0), col, val.view(words)))  # fmt: skip
    if unsorted:  # hashed rows too large to sort in the kernel: a stable sort by (row, column)
        rows = xp.searchsorted(crow, xp.arange(nnz, dtype=xp.int64), side="right") - 1
        perm = stable_argsort(xp, col)
        perm = perm[stable_argsort(xp, rows[perm])]
        col, val = col[perm], val[perm]
    crow_out = crow.astype(xp.int32) if nnz <= _INT32_MAX else crow
    remember_longest_row(crow_out, longest)
    return crow_out, col, val


def _tables(push, r0, r1, slots, toff, counts, mode):
    """Fresh tables (``slots`` of them) for rows [r0, r1), the products inserted: (keys, values)."""
    xp = push.drv.xp
    keys = xp.full(max(slots, 1), -1, xp.int64)
    tv = xp.full(max(slots, 1), push.identity, push.Z)
    push(r0, r1, push.X[1].shape[0], toff, keys, tv, xp.zeros(1, xp.bool_), counts, _TABLES | mode)
    return keys, tv


# ---- select and apply_index ---------------------------------------------------------------------


def _out_index(crow, col):
    """The index dtype of results built from crow and col (int64 when they differ, as numba's)."""
    return crow.dtype if crow.dtype == col.dtype else np.dtype(np.int64)


def graph_select(crow, col, values, rule, thunk):
    """The entries of A that ``rule`` keeps, as a new CSR (contract: ``kernels/cpu/semiring.py``'s
    ``select``): one read, the result's size."""
    who = "graph select"
    if rule not in _table.SELECT_RULES:
        raise ValueError(f"{who}: unknown rule {rule!r}; expected one of {list(_table.SELECT_RULES)}")
    drv = driver_for(crow, col, values)
    xp = drv.xp
    crow, col = _csr_index(xp, who, crow, col)
    M, nse = crow.shape[0] - 1, col.shape[0]
    values = _values(xp, who, "values", values, nse)
    positional = rule in _table.POSITIONAL_RULES
    k = 0
    Z = np.dtype(np.int64) if values is None else values.dtype
    if positional:
        try:
            k = int(0 if thunk is None else thunk)
        except (TypeError, ValueError):
            raise ValueError(f"{who}: rule {rule!r} takes an integer thunk, got {thunk!r}") from None
        if thunk is not None and float(thunk) != k:
            raise ValueError(f"{who}: rule {rule!r} takes an integer thunk, got {thunk!r}")
        t = Z.type(0)
    else:
        if thunk is None:
            raise ValueError(f"{who}: rule {rule!r} compares the values with a thunk: give one")
        try:
            with np.errstate(all="ignore"):
                t = Z.type(thunk)
        except (TypeError, ValueError, OverflowError):
            raise ValueError(f"{who}: the thunk {thunk!r} cannot be cast to the values' dtype {Z}") from None
    aval, am = (xp.ones(1, Z), _ISO) if values is None else _operand(xp, values, True, Z)
    keep, stats = xp.zeros(max(nse, 1), xp.bool_), _stats(xp)
    if M:
        lanes = lanes_for(nse / M)
        drv.launch(SOURCE, f"sr_select_keep<{c_type(Z)}>", M * lanes,
                   (crow, col, aval, am, np.int64(M), np.int64(nse), _widths(x_crow=crow, x_col=col),
                    np.int32(_table.SELECT_RULES[rule]), np.int64(k), t, np.int32(lanes), keep, stats))  # fmt: skip
    prefix = xp.cumsum(keep[:nse].astype(xp.int64))
    nnz, flags = read_stats(xp.stack([prefix[-1] if nse else xp.zeros((), xp.int64), stats[2]]))
    if flags:
        _bad_csr(who, (crow, col, _NO_BOUND))
    idt = _out_index(crow, col)
    new_crow = xp.concatenate([xp.zeros(1, xp.int64), prefix])[crow.astype(xp.int64, copy=False)].astype(idt)
    where = xp.searchsorted(prefix, xp.arange(1, nnz + 1, dtype=xp.int64), side="left")
    if values is None:
        kept = None
    elif am == _ISO:  # iso values stay iso (the CPU kernel's select keeps them so)
        kept = xp.broadcast_to(values[:1], (int(nnz),)) if int(nnz) > 1 else values[:int(nnz)]
    else:
        kept = values[where]
    return new_crow, col[where].astype(idt, copy=False), kept


def graph_apply_index(crow, col, values, op, thunk, dtype):
    """The values of A's entries replaced by an index (contract: ``kernels/cpu/semiring.py``'s
    ``apply_index``): ``rowindex`` i + thunk, ``colindex`` j + thunk, ``diagindex`` j - i + thunk;
    int64 or ``dtype`` int32. Reads nothing back when the inputs are proven."""
    who = "graph apply_index"
    if op not in _table.INDEX_OPS:
        raise ValueError(f"{who}: unknown op {op!r}; expected one of {list(_table.INDEX_OPS)}")
    out_dtype = np.dtype(np.int64 if dtype is None else dtype)
    if out_dtype not in (np.dtype(np.int32), np.dtype(np.int64)):
        raise KernelDeclined(f"{who}: dtype must be int32 or int64, got {out_dtype}")
    drv = driver_for(crow, col, values)
    xp = drv.xp
    crow, col = _csr_index(xp, who, crow, col)
    M, nse = crow.shape[0] - 1, col.shape[0]
    _values(xp, who, "values", values, nse)
    try:
        k = int(thunk)
    except (TypeError, ValueError):
        raise ValueError(f"{who}: the thunk must be an integer, got {thunk!r}") from None
    out, stats = xp.zeros(nse, out_dtype), _stats(xp)
    if M:
        lanes = lanes_for(nse / M)
        widths = _widths(x_crow=crow, x_col=col) | np.int32(_W_OUT if out_dtype == np.int64 else 0)
        drv.launch(SOURCE, "sr_apply_index", M * lanes,
                   (crow, col, np.int64(M), np.int64(nse), np.int32(widths), np.int32(_table.INDEX_OPS[op]), np.int64(k),
                    np.int32(lanes), out, stats))  # fmt: skip
    if _flags(stats):
        _bad_csr(who, (crow, col, _NO_BOUND))
    return out
