"""Element-wise functions of the array API standard, for sparse and dense operands.

Semantics (API.md section 2, RFC points 8-9), for every function ``f`` in the tables below:

- ``f(A)`` keeps A's positions: values ``f(A.values)``, fill ``f(A.fill_value)``; so
  ``f(A).to_dense() == f(A.to_dense())``. Uncoalesced input is coalesced first unless ``f`` is
  linear (duplicates stand for their sum, and only a linear ``f`` may be applied to the parts).
- ``f(A, B)`` with two sparse arrays: both are broadcast to the common shape, their patterns are
  merged (one sorted merge, ``sparray.kernels.cpu.merge``), each side is read at the merged
  positions (its fill where it has none), ``f`` runs on those dense blocks, and the fill is
  ``f(A.fill_value, B.fill_value)``. The merged pattern is the union, except for the
  "annihilating" functions (multiply, and/or) where one side's unspecified elements make the
  result equal to the output fill whatever the other side holds: then the intersection (or the
  other side's pattern). That is decided on the actual values by the fill rule
  (``_core.fill.same_value``, bit for bit), so ``0 * inf`` still gives nan and ``0 * -4`` a
  stored ``-0.0``.
- ``f(A, s)`` with a Python scalar or a 0-d array: like a unary function.
- A fill that cannot be computed (an integer to a negative power: ``x ** B`` with B's fill -2)
  raises only when some element of the result is unspecified and would take it, as NumPy raises
  only for an element that does; a result specified everywhere carries a placeholder zero fill.
- Result dtypes follow the data's namespace, except that a float16 result (NumPy's ``sin``,
  ``exp``, ``atan2``, ... of bool, int8 or uint8 input) is computed in float32 instead: sparray
  has no float16 (``_no_float16``; docs/testing.md has the reasons).
- ``f(A, D)`` with a dense array: when ``D`` varies only along A's dense dims the result is
  sparse with A's positions and a dense-part fill. When ``D`` varies along sparse dims, the
  unspecified elements become ``f(fill, D)``: if that is one value, the result is sparse with
  A's positions and that fill, by the fill rule (so ``A * D`` with a zero fill and a finite
  non-negative D stays sparse); otherwise the result is a dense array of D's namespace (``A + D``
  is dense in fact, as in PyTorch, and so is ``A * D`` where ``0 * D`` mixes +0.0 and -0.0).

>>> import sparray
>>> A = sparray.asarray([0.0, 2.0, 0.0], fill_value=0.0)
>>> sparray.exp(A).fill_value, sparray.exp(A).nse
(array(1.), 1)
"""

from __future__ import annotations

import math
import warnings

from .._engine import dispatch as _dispatch
from .._products import lean as _lean
from .._array.base import SparseArray
from .._layout.coalesce import flat_values, unflat_values
from .._layout.conversion import match_layout
from .._core.dtypes import DTYPE_NAMES, dtype_name
from .._core.fill import as_fill_array, same_value
from .._core.keys import linear_keys, unravel
from .manipulation import align_splits, broadcast_shapes, broadcast_to, move_dense_to_sparse
from .._core.namespace import backend_kind, is_array, namespace_of
from .._array.operands import is_scalar
from .special_values import standard_function
from ..kernels import merge_mode

# name -> linear (f(a + b) == f(a) + f(b), so duplicates need no coalescing)
UNARY = {
    "abs": False, "acos": False, "acosh": False, "asin": False, "asinh": False, "atan": False,
    "atanh": False, "bitwise_invert": False, "ceil": False, "conj": True, "cos": False, "cosh": False,
    "exp": False, "expm1": False, "floor": False, "imag": True, "isfinite": False, "isinf": False,
    "isnan": False, "log": False, "log1p": False, "log2": False, "log10": False, "logical_not": False,
    "negative": True, "positive": True, "real": True, "reciprocal": False, "round": False, "sign": False,
    "signbit": False, "sin": False, "sinh": False, "square": False, "sqrt": False, "tan": False,
    "tanh": False, "trunc": False,
}  # fmt: skip

# name -> may the unspecified side of one operand annihilate the other (pattern may shrink)
BINARY = {
    "add": False, "atan2": False, "bitwise_and": True, "bitwise_left_shift": False, "bitwise_or": True,
    "bitwise_right_shift": False, "bitwise_xor": False, "copysign": False, "divide": False, "equal": False,
    "floor_divide": False, "greater": False, "greater_equal": False, "hypot": False, "less": False,
    "less_equal": False, "logaddexp": False, "logical_and": True, "logical_or": True, "logical_xor": False,
    "maximum": False, "minimum": False, "multiply": True, "nextafter": False, "not_equal": False,
    "pow": False, "remainder": False, "subtract": False,
}  # fmt: skip

# binary functions that distribute over duplicates when the sparse operand is first (A * s, A / s)
# and the scalar is finite and non-zero: (a + b) * s == a * s + b * s then (up to rounding), while
# s = 0, inf or nan breaks it (a duplicate pair 3, -7 sums to -4: -4 / 0 is -inf, 3 / 0 + -7 / 0 nan)
_LINEAR_WITH_SCALAR = {"multiply": True, "divide": True}


def _distributes(xp, name, other, sparse_first) -> bool:
    """Whether ``A <name> other`` may be applied to each duplicate of an uncoalesced COO ``A``."""
    if not (sparse_first and _LINEAR_WITH_SCALAR.get(name)):
        return False
    s = xp.asarray(other)
    if s.dtype == xp.bool:
        return bool(s)
    return bool(xp.all(xp.isfinite(s))) and bool(xp.all(s != 0))

__all__ = [*UNARY, *BINARY, "clip"]


def _fn(xp, name):
    """The element-wise function ``name`` of namespace ``xp``: the standard-conforming version of
    ``_special_values`` where NumPy's special cases differ from the standard's, else ``xp.<name>``;
    computed in float32 where the namespace would give float16 (``_no_float16``)."""
    f = standard_function(xp, name) or getattr(xp, name, None)
    if f is None:
        raise NotImplementedError(f"sparray.{name}: the array namespace {xp.__name__} has no {name}")
    return _no_float16(xp, f)


# the dtypes whose every value float16 holds exactly: NumPy's float functions of them give float16
_HALF_EXACT = ("bool", "int8", "uint8")


def _no_float16(xp, f):
    """``f`` with its bool, int8 and uint8 array arguments cast to float32 where its result would
    otherwise have a dtype sparray does not support (NumPy's float16: ``sin``, ``exp``, ``sqrt``,
    ``atan2``, ``hypot``, ... of such inputs, ``round`` of bool).

    float32 is the smallest floating dtype of the array API, and like NumPy's float16 it holds
    every input value exactly: the rule is NumPy's own (the smallest float that holds the inputs)
    within the dtypes sparray has, and PyTorch's answer for these inputs. The result dtype is
    found on empty arrays of the arguments' dtypes first, so values are computed once; a namespace
    that refuses the dtypes (array_api_strict's ``sin`` of bool) raises its own TypeError.

    >>> import numpy as np
    >>> import array_api_compat.numpy as xp
    >>> _no_float16(xp, xp.sin)(np.asarray([True, False])).dtype
    dtype('float32')
    """

    def call(*args):
        small = [is_array(a) and _dtype_name_or_none(a.dtype) in _HALF_EXACT for a in args]
        if not any(small):
            return f(*args)
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                probe = f(*(xp.empty((0,), dtype=a.dtype) if is_array(a) else a for a in args))
        except Exception:  # noqa: BLE001  (the real call below raises the namespace's own error)
            return f(*args)
        if _dtype_name_or_none(probe.dtype) is not None:
            return f(*args)
        return f(*(xp.astype(a, xp.float32) if cast else a for a, cast in zip(args, small)))

    return call


def _dtype_name_or_none(dtype):
    """The array API name of ``dtype``, or None for a dtype outside the standard's (float16, which
    sparray holds as NumPy does but never makes from bool or 8-bit integers)."""
    try:
        name = dtype_name(dtype)
    except TypeError:
        return None
    return name if name in DTYPE_NAMES else None


def _apply_values(A, f):
    """Same positions as COO ``A``; values and fill mapped through ``f`` (both arguments arrays)."""
    xp = A._xp
    values = f(A._values)
    values = values if is_array(values) and values.ndim == A._values.ndim else xp.asarray(values)
    fill = _result_fill(xp, lambda: f(A._fill), values.dtype, A)
    return A._replace_values(values, as_fill_array(xp, fill, values.dtype))


# what computing a fill may raise where an element would (an integer to a negative power)
_FILL_ERRORS = (ValueError, ArithmeticError)


def _result_fill(xp, compute, dtype, result):
    """The fill ``compute()`` of a result with ``result``'s positions; when it cannot be computed and
    no element of ``result`` is unspecified, a placeholder zero of ``dtype`` (NumPy raises only for
    an element that takes the value: ``[0] ** B`` with every element of B specified is fine
    whatever B's fill)."""
    try:
        return compute()
    except _FILL_ERRORS:
        if not _fill_unused(result):
            raise
        return xp.zeros((), dtype=dtype)


def _fill_unused(A) -> bool:
    """Whether no element of ``A`` is unspecified (so its fill never shows)."""
    if A.size == 0:
        return True
    if A.layout == "coo" and not A.is_coalesced:
        return False
    return A.density >= 1.0


def _as_coo(A):
    return A if A.layout == "coo" else A.to_layout("coo")


def _make_unary(name, linear):
    def func(x, /):
        if not isinstance(x, SparseArray):
            return _fn(namespace_of(x), name)(x)
        A = x if linear or x.layout != "coo" else x.coalesce()  # compressed layouts never hold duplicates
        return _apply_values(A, _fn(A._xp, name))

    func.__name__ = func.__qualname__ = name
    func.__doc__ = (
        f"Element-wise ``{name}``: same positions, ``{name}(values)``, fill ``{name}(fill_value)``.\n\n"
        f"Identity: ``sparray.{name}(A).to_dense() == xp.{name}(A.to_dense())``."
    )
    return func


# binary functions with a lean path for a 2-D NumPy CSR or CSC first operand (sparray._products.lean)
_LEAN = {"add": _lean.add, "multiply": _lean.multiply}


def _make_binary(name, annihilating):
    lean = _LEAN.get(name)

    def func(x1, x2, /):
        s1, s2 = isinstance(x1, SparseArray), isinstance(x2, SparseArray)
        if lean is not None and s1:
            out = lean(x1, x2)
            if out is not None:
                return out
        if not (s1 or s2):
            return _fn(namespace_of(x1, x2), name)(x1, x2)
        if s1 and s2:
            partner = _compressed_partner(x1, x2) if x1.layout != "coo" else None
            if partner is not None:
                return _compressed_compressed(name, annihilating, x1, partner)
            return match_layout(_sparse_sparse(name, annihilating, _as_coo(x1), _as_coo(x2)), x1)
        if s1:
            return _sparse_other(name, x1, x2, sparse_first=True)
        return _sparse_other(name, x2, x1, sparse_first=False)

    func.__name__ = func.__qualname__ = name
    func.__doc__ = (
        f"Element-wise ``{name}(x1, x2)`` for sparse, dense and scalar operands; fill "
        f"``{name}(x1.fill_value, x2.fill_value)``. See the module docstring for result layouts."
    )
    return func


def _check_namespace(A, other, name):
    if is_array(other) and not is_scalar(other):
        try:
            namespace_of(A._values, other)
        except TypeError:
            raise TypeError(
                f"sparray.{name}: the sparse operand holds {A._xp.__name__} arrays but the other operand is a "
                f"{type(other).__module__}.{type(other).__name__}; convert it with the same namespace"
            ) from None


def _sparse_other(name, A, other, *, sparse_first):
    xp = A._xp
    _check_namespace(A, other, name)
    f = _fn(xp, name)

    def call(a, b):
        return f(a, b) if sparse_first else f(b, a)

    if is_scalar(other) or other.ndim == 0:
        if A.layout == "coo" and not A._coalesced and not _distributes(xp, name, other, sparse_first):
            A = A.coalesce()
        return _apply_values(A, lambda v: call(v, other))
    return match_layout(_sparse_dense(name, _as_coo(A), other, call, f, sparse_first), A)


def _sparse_dense(name, A, other, call, f, sparse_first):
    """``call`` of COO ``A`` with the dense array ``other``: sparse when the unspecified elements agree."""
    xp = A._xp
    shape = broadcast_shapes(A.shape, tuple(other.shape), who=f"sparray.{name}")
    A = broadcast_to(A, shape)
    D = xp.broadcast_to(other, shape)
    A = A.coalesce()
    s = A.sparse_ndim
    lead = len(shape) - other.ndim
    if all(n == 1 for n in other.shape[: max(s - lead, 0)]):
        # D varies only along the dense part: same positions, dense-part fill
        Dd = xp.reshape(other, tuple(other.shape[max(s - lead, 0) :])) if other.ndim > A.dense_ndim else other
        values = call(A._values, Dd)
        fill = as_fill_array(xp, _result_fill(xp, lambda: call(A._fill, Dd), values.dtype, A), values.dtype)
        if fill.ndim:
            fill = xp.broadcast_to(fill, A.dense_shape)
        return A._replace_values(values, fill)
    npos = math.prod(A.sparse_shape)
    dense_shape = A.dense_shape
    D_rows = xp.reshape(D, (npos, *dense_shape))
    keys = linear_keys(xp, A._indices, A.sparse_shape)
    values = call(A._values, xp.take(D_rows, keys, axis=0))
    fill_of = A._fill if not A._fill.ndim else xp.broadcast_to(A._fill, D_rows.shape[1:])
    fill_field = _result_fill(xp, lambda: call(fill_of, D_rows), values.dtype, A)
    fill_field = xp.broadcast_to(fill_field, D_rows.shape)
    first = fill_field[0, ...] if npos else None
    if npos and bool(xp.all(same_value(xp, fill_field, xp.broadcast_to(first, fill_field.shape)))):  # the fill rule
        fill = as_fill_array(xp, first, values.dtype)
        if fill.ndim and math.prod(fill.shape) and bool(xp.all(same_value(xp, fill, xp.reshape(fill, (-1,))[0]))):
            fill = xp.reshape(fill, (-1,))[0]
        return A._replace_values(values, fill)
    dense = A.to_dense()
    return f(dense, other) if sparse_first else f(other, dense)


def _align_sparse_ndim(A, B):
    """Two COO operands of one shape with one sparse/dense split (see ``align_splits``)."""
    (A, B), _ = align_splits([A, B])
    return A, B


def _one_side_droppable(xp, f, values_flat, other_fill_row, out_fill_row, other_first, on_device=False):
    """Whether f(other's fill, v) equals the output fill for every specified v of one operand; with
    ``on_device``, that answer as a 0-d bool array of ``xp`` (nothing is read back)."""
    if values_flat.shape[0] == 0:
        return xp.asarray(True) if on_device else True
    with warnings.catch_warnings():  # a probe, not the user's computation: its 0 * inf warns nobody
        warnings.simplefilter("ignore", RuntimeWarning)
        res = f(other_fill_row, values_flat) if other_first else f(values_flat, other_fill_row)
    verdict = xp.all(same_value(xp, res, out_fill_row))  # the fill rule, sign of zero included: docs/fill_value.md
    return verdict if on_device else bool(verdict)


def _check_same_namespace(A, B, name):
    try:
        namespace_of(A._values, B._values)
    except TypeError:
        raise TypeError(
            f"sparray.{name}: operands hold arrays of different namespaces ({A._xp.__name__}, {B._xp.__name__})"
        ) from None


def _compressed_partner(A, B):
    """``B`` in ``A``'s compressed layout when the two merge entry by entry without a COO form, else
    None: both compressed, one shape, one batch/sparse/dense split, one namespace, and one blocksize
    for BSR/BSC. The other orientation (CSC with CSR, BSC with BSR) is transposed into ``A``'s by the
    counting-sort transpose (binary results take the left operand's layout)."""
    kinds = {"csr": "rows", "csc": "rows", "bsr": "blocks", "bsc": "blocks"}
    if kinds.get(A.layout, 0) != kinds.get(B.layout, 1) or A._xp is not B._xp:
        return None
    if A.shape != B.shape or A.batch_ndim != B.batch_ndim or A.dense_ndim != B.dense_ndim:
        return None
    if A._blocked and A.blocksize != B.blocksize:
        return None
    return B if B.layout == A.layout else B.to_layout(A.layout)


def _settled_mode(mode):
    """A merge ``mode``: a string as it is, or a (2,) bool array of drop verdicts (a plan left to a
    device, see ``_Plan``) as the pattern it names (read back here)."""
    if isinstance(mode, str):
        return mode
    return merge_mode(*mode.tolist())


def _reads_patterns(xp, name, A, B) -> bool:
    """Whether two operands of one pattern size are compared before merging. On a GPU, not when a
    fused kernel merges them: the comparison would wait for the device, while merging two equal
    patterns gives the same result (the same positions, ``name`` of the values) with the merge's
    one wait for its size."""
    return not (backend_kind(xp) == "cupy" and _fusable(name, xp.result_type(A.dtype, B.dtype)))


class _Plan:
    """What a binary op of two aligned, coalesced sparse operands computes.

    ``pattern``: union, intersection, left or right; ``out_fill``;
    ``va``/``vb``: both sides' values as (nse, m) and ``fa``/``fb`` their fills as (m,), cast to
    one dtype when ``fused`` (a kernel of ``sparray.kernels.cpu.binary`` computes the op).

    On a GPU (``backend_kind`` "cupy") a fused annihilating op leaves the pattern to the device:
    ``pattern`` is then a (2,) bool array of ``xp``, whether A's and B's positions may be dropped,
    which the CUDA merge reads back together with its output size (one wait, not three; see
    ``kernels/cuda/binary.py``) and the generic merge reads itself (``_settled_mode``).

    A fill that cannot be computed (``int ** negative fill``) is kept as ``fill_error`` with a
    placeholder ``out_fill`` and the union pattern: the merge computes every element the result
    specifies, and :meth:`finish` raises the error only when the result has an unspecified
    element, which would take that fill (NumPy raises then too).
    """

    def __init__(self, name, annihilating, A, B, dense_shape, va=None, vb=None, entry_shape=None):
        xp = A._xp
        f = _fn(xp, name)
        entry_shape = dense_shape if entry_shape is None else entry_shape  # a block's (bh, bw, *dense)
        m = math.prod(entry_shape)
        fa = xp.reshape(xp.broadcast_to(A._fill, entry_shape), (1, m))
        fb = xp.reshape(xp.broadcast_to(B._fill, entry_shape), (1, m))
        try:
            self.out_fill, self.fill_error = as_fill_array(xp, f(A._fill, B._fill), None), None
        except _FILL_ERRORS as exc:
            self.out_fill, self.fill_error = xp.zeros((), dtype=xp.result_type(A.dtype, B.dtype)), exc
        va = flat_values(xp, A._values) if va is None else va
        vb = flat_values(xp, B._values) if vb is None else vb
        out_dtype = xp.result_type(va.dtype, vb.dtype)
        self.fused = _fusable(name, out_dtype)
        self.pattern = "union"
        if annihilating and self.fill_error is None:  # positions one side holds may all give the fill: drop them
            on_device = self.fused and backend_kind(xp) == "cupy"  # the merge reads the verdicts with its size
            out_row = xp.reshape(xp.broadcast_to(self.out_fill, entry_shape), (1, m))
            drop_b = _one_side_droppable(xp, f, vb, fa, out_row, other_first=True, on_device=on_device)
            drop_a = _one_side_droppable(xp, f, va, fb, out_row, other_first=False, on_device=on_device)
            if on_device:
                self.pattern = xp.stack([xp.asarray(drop_a), xp.asarray(drop_b)])
            else:
                self.pattern = merge_mode(drop_a, drop_b)
        fa, fb = xp.reshape(fa, (m,)), xp.reshape(fb, (m,))
        if self.fused and (va.dtype != out_dtype or vb.dtype != out_dtype):
            va, vb = xp.astype(va, out_dtype), xp.astype(vb, out_dtype)
            fa, fb = xp.astype(fa, out_dtype), xp.astype(fb, out_dtype)
        self.va, self.vb, self.fa, self.fb = va, vb, fa, fb

    def finish(self, result):
        """``result`` (the merged array), or the fill's error when one of its elements is unspecified."""
        if self.fill_error is not None and not _fill_unused(result):
            raise self.fill_error
        return result


def _sparse_sparse(name, annihilating, A, B):
    from .._array.coo import COO

    xp = A._xp
    _check_same_namespace(A, B, name)
    shape = broadcast_shapes(A.shape, B.shape, who=f"sparray.{name}")
    A, B = broadcast_to(A, shape), broadcast_to(B, shape)
    A, B = _align_sparse_ndim(A, B)
    A, B = A.coalesce(), B.coalesce()
    # one pattern: values meet position for position
    if _same_positions(xp, (A._indices,), (B._indices,), read=lambda: _reads_patterns(xp, name, A, B)):
        return _values_only(xp, name, A, B)
    sparse_shape, dense_shape = A.sparse_shape, A.dense_shape
    plan = _Plan(name, annihilating, A, B, dense_shape)
    args = (A._indices, plan.va, plan.fa, B._indices, plan.vb, plan.fb, sparse_shape, plan.pattern, name)
    if plan.fused:
        indices, flat = _dispatch.call("merge_apply", "coo", xp, *args, work=A.nse + B.nse)
    else:
        indices, flat = _merge_apply_general(xp, *args)
    values = unflat_values(xp, flat, dense_shape)
    out_fill = as_fill_array(xp, plan.out_fill, values.dtype)
    return plan.finish(COO._from_parts(xp, indices, values, shape, out_fill, coalesced=True))


def _compressed_compressed(name, annihilating, A, B):
    """``name(A, B)`` for two compressed arrays of one layout, shape and split (batched, blocked or
    not), in that layout: the entries (blocks) of all batches are merged row by row over global
    pointers, with no COO form. Two identical patterns (the same index arrays, or equal ones) skip
    the merge: the values meet entry for entry and the result keeps A's index arrays. Batches whose
    merged counts differ are padded with fill-valued entries (the layout's equal-nse rule)."""
    from .._layout.compress import _build, _equalize_batches, _fill_row, _parts_of, _Parts

    xp = A._xp
    _check_same_namespace(A, B, name)
    A._check_contents()
    B._check_contents()
    if _same_positions(xp, (A._cidx, A._pidx), (B._cidx, B._pidx), read=lambda: _reads_patterns(xp, name, A, B)):
        return _values_only(xp, name, A, B)
    dense_shape = A.dense_shape
    entry_shape = (*A._block, *dense_shape) if A._blocked else dense_shape
    if A.batch_ndim == 0:
        (pa, ma, va), (pb, mb, vb) = ((X._cidx, X._pidx, flat_values(xp, X._values)) for X in (A, B))
        nbatch = 1
    else:
        parts_a, parts_b = _parts_of(A), _parts_of(B)
        (pa, ma, va), (pb, mb, vb) = ((P.offsets, P.minor, P.values) for P in (parts_a, parts_b))
        nbatch = parts_a.nbatch
    plan = _Plan(name, annihilating, A, B, dense_shape, va, vb, entry_shape)
    nmajor, nminor = A._grid
    args = (pa, ma, plan.va, plan.fa, pb, mb, plan.vb, plan.fb, nminor, plan.pattern, name)
    if plan.fused:
        ptr, minor, flat = _dispatch.call("merge_apply", "csr", xp, *args, work=ma.shape[0] + mb.shape[0])
    else:
        ptr, minor, flat = _merge_apply_rows_general(xp, *args)
    out_fill = as_fill_array(xp, plan.out_fill, flat.dtype)
    if A.batch_ndim == 0:
        values = xp.reshape(flat, (flat.shape[0], *entry_shape))
        return plan.finish(type(A)._from_parts(xp, ptr, minor, values, A.shape, out_fill))
    idt = A._cidx.dtype if A._cidx.dtype == B._cidx.dtype else xp.int64
    parts = _Parts(xp, xp.astype(ptr, xp.int64), minor, flat, nbatch, nmajor, nminor)
    pad = _fill_row(xp, out_fill, dense_shape, math.prod(A._block), flat.dtype)
    parts = _equalize_batches(parts, pad, xp.int64)
    if parts.nnz // max(nbatch, 1) > 2**31 - 1:
        idt = xp.int64
    return plan.finish(_build(type(A), parts, A.shape, out_fill, A.batch_shape, entry_shape, idt))


def _same_positions(xp, index_a, index_b, *, read=True) -> bool:
    """Whether two operands' index arrays (a COO's ``indices``; a compressed array's pointers and
    plain indices, in that order) specify the same positions: the same arrays, or equal ones. A
    few evenly spaced entries are compared before the whole arrays, so two different patterns of
    one size cost a few reads, not a pass. ``read`` (a bool, or a function asked only when the
    shapes agree) False: only the same arrays count, no element is read (see ``_reads_patterns``)."""
    if all(a is b for a, b in zip(index_a, index_b)):
        return True
    if any(a.shape != b.shape for a, b in zip(index_a, index_b)):
        return False
    if not (read() if callable(read) else read):
        return False
    for a, b in zip(index_a, index_b):
        n = a.shape[-1]
        if n > 4096:
            probe = xp.asarray([n * k // 64 for k in range(64)], dtype=xp.int64)
            if not bool(xp.all(xp.take(a, probe, axis=a.ndim - 1) == xp.take(b, probe, axis=b.ndim - 1))):
                return False
    return all(bool(xp.all(a == b)) for a, b in zip(index_a, index_b))


def _values_only(xp, name, A, B):
    """``name(A, B)`` for two operands of one layout that specify the same positions: ``name`` of the
    values entry for entry, the fill ``name(fill_a, fill_b)``; the result keeps A's index arrays."""
    f = _fn(xp, name)
    values = f(A._values, B._values)
    if not is_array(values) or values.ndim != A._values.ndim:
        values = xp.reshape(xp.asarray(values), A._values.shape)
    try:
        out_fill = as_fill_array(xp, f(A._fill, B._fill), values.dtype)
    except _FILL_ERRORS:  # a fill that cannot be computed (int ** negative fill) is an error only if used
        result = A._replace_values(values, xp.zeros((), dtype=values.dtype))
        if not _fill_unused(result):
            raise
        return result
    return A._replace_values(values, out_fill)


# ops with a fused merge-and-apply kernel (sparray.kernels.cpu.binary) for these result dtypes
FUSED = ("add", "subtract", "multiply", "divide", "maximum", "minimum")
_FUSED_DTYPES = ("float32", "float64", "int32", "int64")


def _fusable(name, dtype) -> bool:
    from .._core.dtypes import dtype_name

    kind = dtype_name(dtype)
    if name not in FUSED or kind not in _FUSED_DTYPES:
        return False
    return not (name == "divide" and kind.startswith("int"))


@_dispatch.register("merge_apply", "coo", "generic")
def _merge_apply_general(xp, idx_a, va, fa, idx_b, vb, fb, sparse_shape, mode, name):
    """Merge two coalesced patterns, read each side (fill where absent), apply ``xp.<name>``.

    The reference for the fused kernel; also the route of every op without one. ``mode`` is
    union, intersection, left (A's positions) or right (B's positions), or the drop verdicts of a
    plan left to the device (``_Plan``; read back here when a CUDA kernel declined).
    """
    f = _fn(xp, name)
    mode = _settled_mode(mode)
    ka = linear_keys(xp, idx_a, sparse_shape)
    kb = linear_keys(xp, idx_b, sparse_shape)
    if ka is None:
        raise NotImplementedError(
            f"sparray.{name}: sparse shapes with more than 2**63 positions are not supported by binary operations"
        )
    swap = mode == "right"
    keys = (kb, ka) if swap else (ka, kb)
    offsets = xp.asarray([0, keys[0].shape[0], keys[0].shape[0] + keys[1].shape[0]], dtype=xp.int64)
    out_keys, positions = _dispatch.call(
        "merge_pattern", "coo", xp, xp.concat(keys), offsets, "left" if swap else mode, work=ka.shape[0] + kb.shape[0]
    )
    pos_a, pos_b = (positions[1, :], positions[0, :]) if swap else (positions[0, :], positions[1, :])
    ga = _dispatch.call("gather_with_fill", "coo", xp, va, pos_a, fa, work=pos_a.shape[0])
    gb = _dispatch.call("gather_with_fill", "coo", xp, vb, pos_b, fb, work=pos_b.shape[0])
    values = f(ga, gb)
    if not is_array(values) or values.ndim != 2:
        values = xp.reshape(xp.asarray(values), (out_keys.shape[0], va.shape[1]))
    idt = idx_a.dtype if idx_a.dtype == idx_b.dtype else xp.int64
    return unravel(xp, out_keys, sparse_shape, idt), values


@_dispatch.register("merge_apply", "csr", "generic")
def _merge_apply_rows_general(xp, ptr_a, minor_a, va, fa, ptr_b, minor_b, vb, fb, nminor, mode, name):
    """Row-by-row merge of two compressed arrays (the reference for ``kernels.cpu.binary_rows``):
    both become (major, minor) index pairs, merge as COO, and the major indices compress again.
    Index dtype: int32 when every input index is int32 and the result's size fits, else int64.
    """
    nmajor = ptr_a.shape[0] - 1

    def pairs(ptr, minor):
        major = _dispatch.call("expand_offsets", "csr", xp, ptr, xp.int64, minor.shape[0], work=minor.shape[0])
        return xp.stack([major, xp.astype(minor, xp.int64)])

    idx, values = _merge_apply_general(xp, pairs(ptr_a, minor_a), va, fa, pairs(ptr_b, minor_b), vb, fb,
                                       (nmajor, nminor), mode, name)
    narrow = all(a.dtype == xp.int32 for a in (ptr_a, minor_a, ptr_b, minor_b))
    idt = xp.int32 if narrow and idx.shape[1] <= 2**31 - 1 else xp.int64
    ptr = _dispatch.call("compress_offsets", "csr", xp, idx[0, :], nmajor, idt, work=idx.shape[1])
    return ptr, xp.astype(idx[1, :], idt), values


def clip(x, /, min=None, max=None):  # noqa: A002  (array API argument names)
    """Element-wise ``clip`` (array API 2023.12): values and fill clipped alike.

    Scalar bounds clip the stored values and the fill in place of the pattern. Array bounds (sparse
    or dense, broadcast against ``x`` and each other) go through ``maximum(x, min)`` then
    ``minimum(., max)``, so the result is what those return (a sparse bound keeps a sparse result;
    a dense one gives the dense array ``maximum`` gives) with the broadcast shape; the bounds do not
    take part in type promotion: the result has ``x``'s dtype. A nan in ``x`` or in a bound gives
    nan. Where ``min > max`` the result is ``max`` (NumPy's choice; the standard leaves it open).

    >>> import numpy as np, sparray
    >>> A = sparray.asarray(np.array([0.0, 5.0, -3.0]))
    >>> sparray.clip(A, min=sparray.asarray(np.array([1.0, 0.0, -1.0])), max=4.0).to_dense().tolist()
    [1.0, 4.0, -1.0]
    """
    if not isinstance(x, SparseArray):
        return namespace_of(x).clip(x, min, max)
    if not any(_array_bound(b) for b in (min, max)):
        A = x.coalesce() if x.layout == "coo" else x
        xp = A._xp
        return _apply_values(A, lambda v: xp.clip(v, min, max))
    from .._layout.conversion import astype

    out = x
    for name, bound in (("maximum", min), ("minimum", max)):
        if bound is None:
            continue
        if _array_bound(bound) and bound.dtype != x.dtype:
            bound = astype(bound, x.dtype)  # the bounds do not promote x's dtype
        out = globals()[name](out, bound)
    return out if out.dtype == x.dtype else astype(out, x.dtype)


def _array_bound(bound) -> bool:
    """Whether a ``clip`` bound is an array (of any rank) rather than a Python or 0-d scalar."""
    return isinstance(bound, SparseArray) or (is_array(bound) and not is_scalar(bound) and bound.ndim > 0)


for _name, _linear in UNARY.items():
    globals()[_name] = _make_unary(_name, _linear)
for _name, _ann in BINARY.items():
    globals()[_name] = _make_binary(_name, _ann)
