"""Differential test: every public operation on random sparse arrays against NumPy on the dense
arrays, through each backend (sparray's own choice, forced numba kernels, forced generic path).

Each trial draws one or two :class:`sparray_strategies.Case` (a SparseArray and the dense array
it stands for, built independently of sparray), the extra arguments of one operation (axes,
keys, shapes, scalars, a second operand that is sparse, dense or a Python scalar), and runs the
operation on both sides. The rules:

- NumPy answers: sparray answers the same (shape, dtype, values; nan-aware; sparse results
  through ``to_dense``), unless the case is in ``EXPECTED_ERRORS`` (a documented limit, which
  must then raise the documented error);
- NumPy raises: sparray raises ValueError, TypeError or IndexError (never another error, never a
  silently wrong answer).

The budget follows the hypothesis profile: the "ci" profile (the default) runs a fixed,
derandomized budget (100 trials per operation family and backend, 12 families, 3,600 in all, about
1.5 minutes here; the three families of the 2024.12 functions take about 10 s of it on a quiet
machine); ``pytest tests/test_differential.py --hypothesis-profile long`` runs ten times as many,
with new random draws each run.

Exclusions and documented differences (kept short, each with its reason):

- ``A[key]`` with an advanced index spanning sparse and dense dims of a hybrid array whose fill
  varies along the dense dims: ValueError (no sparse layout holds such a result; docs/manipulation.md).
- ``addmm``/``sampled_addmm`` with ``beta=0`` follow PyTorch (C is not read); the reference does too.
- ``pow`` of two booleans (a bool array and a bool array or Python int): NumPy's power loop gives
  int8; sparray gives int8 or the default integer (int64, as ``bool + int`` does) depending on
  the path. Both sides are compared as int64.
- float functions of bool (and int8/uint8) input (``sin``, ``exp``, ``sqrt``, ``atan2``, ``hypot``,
  ..., ``round`` of bool): NumPy gives float16, a dtype neither the array API nor sparray has;
  sparray computes in float32 (the smallest float of the standard, exact for these inputs like
  float16; PyTorch's answer). The reference is NumPy's function on the inputs cast to float32
  (``float32_for_float16``).
- products (``matmul``, ``tensordot``, ``vecdot``, ``addmm``, ``sampled_addmm``) of booleans: the
  array API defines them for numeric dtypes only and sparray raises TypeError where NumPy computes
  a logical product; the products are drawn from numeric dtypes (``test_bool_products_raise``).
- ``full``/``full_like``/``asarray(..., fill_value=v)`` with a value the dtype cannot hold (2 as
  bool, 1.5 or nan as int): sparray raises ValueError (a fill is never truncated silently,
  docs/fill_value.md) where NumPy casts.
- ``floor_divide`` (``//``) of floats where exactly one operand is infinite: sparray follows the
  standard (``floor(x1 / x2)``: ``inf // 2 = inf``, ``-1 // inf = -0``) where NumPy pairs ``//``
  with ``%`` (nan, -1); the reference is ``standard_floor_divide`` below (docs/testing.md lists
  every such difference).
- ``A[key] = value``: values are drawn of the array's dtype (or as compatible Python scalars):
  sparray refuses a float array into an int array where NumPy truncates (test_setitem.py checks
  the casting rules).
- ``mean``/``var``/``std`` of integer or bool input: the array API defines them for floating
  dtypes only, NumPy promotes to float64; sparray follows NumPy here, so nothing is excluded.

The searching, sorting, set, running, triangle, tiling and taking functions (docs/testing.md has
the same list):

- an ``axis`` on a 0-d array: NumPy's ``argmax``, ``argmin``, ``argsort``, ``cumulative_sum``,
  ``cumulative_prod``, ``repeat`` and ``take`` read axis 0 or -1 of a 0-d array as that of a
  one-element 1-d array; sparray raises ValueError (a 0-d array has no axis, and NumPy's own
  ``sort``, ``roll`` and ``take_along_axis`` raise too).
- complex input to ``argmax``, ``argmin``, ``sort``, ``argsort`` and ``searchsorted`` (a sparse
  operand): TypeError, since the standard leaves the order of complex numbers unspecified (NumPy
  orders them by real, then imaginary part). About one trial in twenty of these casts its case
  to complex and must raise; with only dense operands sparray hands them to NumPy as they are.
- ``sort``/``argsort`` follow the standard: ``descending=True`` is the exact reverse of the stable
  ascending order (nan first, ties in their original order), and both are always stable, so the
  reference is that order for ``stable=False`` too. The sign of zero: a specified -0.0 beside a
  +0.0 fill (or the reverse) sorts before the run of fills, where NumPy's stable sort keeps
  position order; the sorted values differ in the sign of zero only, which ``==`` does not see
  (the strategies draw no -0.0).
- ``unique_*``: sparray returns the values sorted (nan last; the standard leaves the order open),
  NumPy 2.3+'s ``unique_values`` returns integers in hash order; every nan is a value of its own in both, sparray
  numbering them in flat order where NumPy's ``unique_inverse`` leaves that to an unstable sort.
  The reference sorts NumPy's values, carries counts, indices and inverse along, and renumbers
  the nans in flat order.
- ``tril``/``triu`` of a 1-d array: NumPy broadcasts it to an (n, n) matrix; sparray raises
  ValueError (the standard asks for at least 2 dims).
- ``roll`` with a float shift: NumPy truncates it; sparray raises TypeError (the standard takes ints).
- ``take`` with an index out of range and an empty result: ``np.take`` reads nothing and checks
  nothing; sparray raises IndexError, as NumPy's ``D[:, [5]]`` does. (``take_along_axis`` follows
  NumPy: indices whose broadcast is empty are not checked.)
- ``repeat`` with a negative count and nothing to repeat: NumPy answers; sparray raises ValueError.
- ``diff`` with ``n=0``: NumPy returns ``x`` before looking at ``axis`` or at ``x``'s rank;
  sparray checks them first (ValueError for a 0-d ``x`` or an axis out of range).
- ``meshgrid`` and ``broadcast_arrays`` return lists (the standard), NumPy tuples: compared as tuples.
"""

from __future__ import annotations

import math
import operator
import warnings

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from sparray_strategies import axes_for, index_keys, scalars_for, sparse_cases

import sparray
from sparray._functions.elementwise import BINARY, UNARY

BACKENDS = ["auto", "numba", "generic"]
NUMERIC = ("float64", "float32", "int64")  # products: the array API defines them for numeric dtypes
# trials per operation family and backend: 4x the profile's max_examples (ci: 25 -> 100)
EXAMPLES = settings.default.max_examples * 4
_SETTINGS = settings(
    max_examples=EXAMPLES, deadline=None, suppress_health_check=list(HealthCheck),
    derandomize=settings.default.derandomize, database=None,
)  # fmt: skip

NUMPY_ERRORS = (ValueError, TypeError, IndexError, ZeroDivisionError, OverflowError)
SPARRAY_ERRORS = (ValueError, TypeError, IndexError)


class _Backend:
    def __init__(self, name):
        self.name = name

    def __enter__(self):
        self._cm = sparray.use_backend(self.name) if self.name != "auto" else None
        if self._cm is not None:
            self._cm.__enter__()

    def __exit__(self, *exc):
        if self._cm is not None:
            return self._cm.__exit__(*exc)
        return False


def _dense(x):
    if isinstance(x, sparray.SparseArray):
        return x.to_dense()
    return np.asarray(x)


def _tolerance(dtype):
    return (1e-3, 1e-3) if dtype in (np.float32, np.complex64) else (1e-7, 1e-9)


def assert_same(got, expected, ctx):
    """``got`` (sparray's answer) equals NumPy's ``expected``: type family, shape, dtype, values."""
    if isinstance(expected, tuple):
        assert isinstance(got, tuple) and len(got) == len(expected), ctx
        for g, e in zip(got, expected):
            assert_same(g, e, ctx)
        return
    if isinstance(got, sparray.SparseArray):  # the fill is a value of the result: its dtype, () or dense-part shaped
        fill = np.asarray(got.fill_value)
        assert fill.dtype == got.dtype and fill.shape in ((), got.dense_shape), f"fill {fill!r} of {got!r}: {ctx}"
    g = _dense(got)
    e = np.asarray(expected)
    assert g.shape == e.shape, f"shape {g.shape} != {e.shape}: {ctx}"
    assert g.dtype == e.dtype, f"dtype {g.dtype} != {e.dtype}: {ctx}"
    if e.dtype.kind in "fc":
        rtol, atol = _tolerance(e.dtype)
        np.testing.assert_allclose(g, e, rtol=rtol, atol=atol, equal_nan=True, err_msg=ctx)
    else:
        np.testing.assert_array_equal(g, e, err_msg=ctx)


def check(sp_call, np_call, ctx, *, expected_error=None):
    """Run both sides: same answer, or both raise (sparray with a clear ValueError/TypeError/IndexError)."""
    with np.errstate(all="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            expected = np_call()
        except NUMPY_ERRORS as exc:
            with pytest.raises(SPARRAY_ERRORS) as info:
                sp_call()
            assert str(info.value), f"an error without a message (NumPy: {exc!r}): {ctx}"
            return
        if expected_error is not None:
            kind, pattern = expected_error
            with pytest.raises(kind, match=pattern):
                sp_call()
            return
        got = sp_call()
    assert_same(got, expected, ctx)


# --- second operands ---------------------------------------------------------------------------------
@st.composite
def broadcastable_shape(draw, shape):
    """A shape that broadcasts with ``shape``: some dims set to 1, some leading dims dropped or added."""
    dims = [1 if draw(st.integers(0, 3)) == 0 else n for n in shape]
    drop = draw(st.integers(0, len(dims)))
    dims = dims[drop:] if draw(st.booleans()) else dims
    if draw(st.integers(0, 5)) == 0 and len(dims) < 3:
        dims = [draw(st.integers(1, 3))] + dims
    return tuple(dims)


@st.composite
def second_operand(draw, case, same_dtype_prob=True):
    """(kind, sparray operand, numpy operand): a sparse Case, a dense array or a Python scalar."""
    kind = draw(st.sampled_from(["sparse", "sparse", "dense", "scalar", "scalar_first", "dense_first"]))
    dtype = case.D.dtype.name if draw(st.booleans()) else None
    if kind == "scalar" or kind == "scalar_first":
        s = draw(scalars_for(case.D.dtype.name))
        return kind, s, s
    shape = draw(broadcastable_shape(case.D.shape))
    other = draw(sparse_cases(shape=shape, dtype=dtype))
    if kind == "sparse":
        return kind, other.A, other.D
    return kind, other.D, other.D


def standard_floor_divide(x1, x2):
    """The standard's floor_divide: NumPy's, except ``floor(x1 / x2)`` for real floats where exactly
    one operand is infinite (NumPy: ``inf // 2`` is nan, ``-1 // inf`` is -1)."""
    out = np.floor_divide(x1, x2)
    if np.asarray(out).dtype.kind != "f":
        return out
    a, b = np.asarray(x1, dtype=out.dtype), np.asarray(x2, dtype=out.dtype)
    one_inf = np.isinf(a) != np.isinf(b)
    both_not_nan = ~np.isnan(a) & ~np.isnan(b)
    return np.where(one_inf & both_not_nan, np.floor(a / b), out)[()]


#: NumPy functions replaced by the standard's answer where the two differ (docs/testing.md)
STANDARD_REFERENCE = {"floor_divide": standard_floor_divide, "//": standard_floor_divide}


def float32_for_float16(f):
    """NumPy's ``f``, recomputed with its bool/int8/uint8 arrays cast to float32 where its answer is
    float16 (``sin`` of bool): sparray's rule for a result dtype it does not have (docs/testing.md)."""

    def reference(*args):
        out = f(*args)
        if np.asarray(out).dtype != np.float16:
            return out
        return f(*(a.astype(np.float32) if isinstance(a, np.ndarray) and a.dtype.name in ("bool", "int8", "uint8")
                   else a for a in args))  # fmt: skip

    return reference


def _binary_call(f, kind, x, y):
    return (lambda: f(y, x)) if kind in ("scalar_first", "dense_first") else (lambda: f(x, y))


# --- element-wise ------------------------------------------------------------------------------------
UNARY_NAMES = sorted(UNARY)
BINARY_NAMES = sorted(BINARY)
OPERATORS = {
    "+": operator.add, "-": operator.sub, "*": operator.mul, "/": operator.truediv, "//": operator.floordiv,
    "%": operator.mod, "**": operator.pow, "&": operator.and_, "|": operator.or_, "^": operator.xor,
    "<<": operator.lshift, ">>": operator.rshift, "<": operator.lt, "<=": operator.le, ">": operator.gt,
    ">=": operator.ge, "==": operator.eq, "!=": operator.ne,
}  # fmt: skip
UNARY_OPERATORS = {"-x": operator.neg, "+x": operator.pos, "abs": abs, "~x": operator.invert}


@pytest.mark.parametrize("backend", BACKENDS)
@_SETTINGS
@given(data=st.data())
def test_unary_elementwise(backend, data):
    case = data.draw(sparse_cases(), label="case")
    name = data.draw(st.sampled_from(UNARY_NAMES + list(UNARY_OPERATORS)), label="op")
    if name in UNARY_OPERATORS:
        f = UNARY_OPERATORS[name]
        sp_call, np_call = (lambda: f(case.A)), (lambda: f(case.D))
    else:
        f_np = float32_for_float16(getattr(np, name))
        sp_call, np_call = (lambda: getattr(sparray, name)(case.A)), (lambda: f_np(case.D))
    with _Backend(backend):
        check(sp_call, np_call, f"{name}({case.label})")


@pytest.mark.parametrize("backend", BACKENDS)
@_SETTINGS
@given(data=st.data())
def test_binary_elementwise(backend, data):
    case = data.draw(sparse_cases(), label="case")
    kind, y_sp, y_np = data.draw(second_operand(case), label="other")
    name = data.draw(st.sampled_from(BINARY_NAMES + list(OPERATORS)), label="op")
    f_sp = OPERATORS[name] if name in OPERATORS else getattr(sparray, name)
    f_np = STANDARD_REFERENCE.get(name) or (OPERATORS[name] if name in OPERATORS else getattr(np, name))
    f_np = float32_for_float16(f_np)
    ctx = f"{name}({case.label}, {kind} {getattr(y_np, 'shape', y_np)} {getattr(y_np, 'dtype', '')})"
    np_call, sp_call = _binary_call(f_np, kind, case.D, y_np), _binary_call(f_sp, kind, case.A, y_sp)
    if name in ("pow", "**") and case.D.dtype == bool and getattr(y_np, "dtype", bool) in (bool, np.bool_):
        np_call, sp_call = _as_int64(np_call), _as_int64(sp_call)  # NumPy's power of booleans is int8
    with _Backend(backend):
        check(sp_call, np_call, ctx)


def _as_int64(call):
    return lambda: _dense(call()).astype(np.int64)


# --- reductions ---------------------------------------------------------------------------------------
REDUCTIONS = ["sum", "prod", "max", "min", "mean", "var", "std", "any", "all", "count_nonzero"]


@pytest.mark.parametrize("backend", BACKENDS)
@_SETTINGS
@given(data=st.data())
def test_reductions(backend, data):
    case = data.draw(sparse_cases(), label="case")
    name = data.draw(st.sampled_from(REDUCTIONS), label="op")
    axis = data.draw(axes_for(case.D.ndim), label="axis")
    keepdims = data.draw(st.booleans(), label="keepdims")
    kw = {"axis": axis, "keepdims": keepdims}
    np_kw = dict(kw)
    if name in ("var", "std"):
        c = data.draw(st.sampled_from([0.0, 1.0]), label="correction")
        kw["correction"], np_kw["ddof"] = c, c
    if name in ("mean", "var", "std") and case.D.dtype.kind in "biu":
        np_call = lambda: getattr(np, name)(case.D.astype(np.float64), **np_kw)  # noqa: E731
    else:
        np_call = lambda: getattr(np, name)(case.D, **np_kw)  # noqa: E731
    with _Backend(backend):
        check(lambda: getattr(sparray, name)(case.A, **kw), np_call, f"{name}({case.label}, {kw})")


# --- manipulation, searching, indexing -----------------------------------------------------------------
@st.composite
def manipulation(draw, case):
    """(name, sparray call, numpy call) of one shape function on ``case``."""
    A, D = case.A, case.D
    nd = D.ndim
    name = draw(st.sampled_from(["reshape", "permute_dims", "moveaxis", "expand_dims", "squeeze", "flip",
                                 "broadcast_to", "concat", "stack", "where", "nonzero", "matrix_transpose",
                                 "astype", "to_layout"]))  # fmt: skip
    if name == "reshape":
        size = D.size
        opts = [(size,), (-1,), tuple(reversed(D.shape)), D.shape + (1,)]
        if nd >= 2:
            opts.append((D.shape[0] * D.shape[1],) + D.shape[2:])
        opts.append((1, -1) if size else (0, 3))
        shape = draw(st.sampled_from(opts))
        return name, lambda: sparray.reshape(A, shape), lambda: np.reshape(D, shape)
    if name == "permute_dims":
        perm = tuple(draw(st.permutations(range(nd))))
        return name, lambda: sparray.permute_dims(A, perm), lambda: np.permute_dims(D, perm)
    if name == "moveaxis" and nd:
        src, dst = draw(st.integers(-nd, nd - 1)), draw(st.integers(-nd, nd - 1))
        return name, lambda: sparray.moveaxis(A, src, dst), lambda: np.moveaxis(D, src, dst)
    if name == "expand_dims":
        ax = draw(st.integers(-nd - 2, nd + 1))
        return name, lambda: sparray.expand_dims(A, axis=ax), lambda: np.expand_dims(D, axis=ax)
    if name == "squeeze" and nd:
        ax = draw(st.one_of(st.integers(-nd, nd - 1), st.just(tuple(d for d in range(nd) if D.shape[d] == 1))))
        return name, lambda: sparray.squeeze(A, axis=ax), lambda: np.squeeze(D, axis=ax)
    if name == "flip":
        ax = draw(axes_for(nd))
        return name, lambda: sparray.flip(A, axis=ax), lambda: np.flip(D, axis=ax)
    if name == "broadcast_to":
        shape = tuple(draw(st.integers(0, 3)) if n == 1 else n for n in D.shape)
        if draw(st.booleans()):
            shape = (draw(st.integers(0, 2)),) + shape
        return name, lambda: sparray.broadcast_to(A, shape), lambda: np.broadcast_to(D, shape)
    if name in ("concat", "stack") and nd:
        ax = draw(st.integers(-nd, nd - 1))
        shape = list(D.shape)
        if name == "concat":
            shape[ax] = draw(st.integers(0, 3))
        other = draw(sparse_cases(shape=tuple(shape), dtype=D.dtype.name if draw(st.booleans()) else None))
        f_sp, f_np = getattr(sparray, name), getattr(np, name)
        return name, lambda: f_sp([A, other.A], axis=ax), lambda: f_np([D, other.D], axis=ax)
    if name == "where":
        cond = draw(sparse_cases(shape=draw(broadcastable_shape(D.shape)), dtype="bool"))
        other = draw(sparse_cases(shape=draw(broadcastable_shape(D.shape))))
        return name, lambda: sparray.where(cond.A, A, other.A), lambda: np.where(cond.D, D, other.D)
    if name == "nonzero" and nd:
        return name, lambda: sparray.nonzero(A), lambda: np.nonzero(D)
    if name == "matrix_transpose":
        return name, lambda: sparray.matrix_transpose(A), lambda: np.matrix_transpose(D)
    if name == "astype":
        dt = draw(st.sampled_from(["float64", "float32", "int64", "bool", "complex128"]))
        return name, lambda: sparray.astype(A, dt), lambda: D.astype(dt)
    layout = draw(st.sampled_from(["coo", "csr", "csc", "bsr", "bsc"]))
    blocksize = (1, 1) if layout in ("bsr", "bsc") else None
    dense_ndim = A.dense_ndim if layout == "coo" else max(0, min(A.dense_ndim, nd - 2))

    def reference():
        if layout != "coo" and nd < 2:
            raise ValueError("a compressed layout needs 2 dims")
        return D.copy()

    sp_call = lambda: A.to_layout(layout, blocksize=blocksize, dense_ndim=dense_ndim)  # noqa: E731
    if dense_ndim < A.dense_ndim and _fill_varies(A):  # dense dims made sparse: one fill per dense part needed
        return f"to_layout {layout}", sp_call, reference, (ValueError, "fill value varies")
    return f"to_layout {layout}", sp_call, reference


@pytest.mark.parametrize("backend", BACKENDS)
@_SETTINGS
@given(data=st.data())
def test_manipulation_and_searching(backend, data):
    case = data.draw(sparse_cases(), label="case")
    name, sp_call, np_call, *expected_error = data.draw(manipulation(case), label="op")
    with _Backend(backend):
        check(sp_call, np_call, f"{name}({case.label})", expected_error=expected_error[0] if expected_error else None)


def _fill_varies(A):
    f = np.asarray(A.fill_value)
    return f.ndim > 0 and f.size > 1 and not np.all((f == f.flat[0]) | (np.isnan(f) & np.isnan(f.flat[0])))


@pytest.mark.parametrize("backend", BACKENDS)
@_SETTINGS
@given(data=st.data())
def test_getitem(backend, data):
    case = data.draw(sparse_cases(), label="case")
    key = data.draw(index_keys(case.D.shape), label="key")
    ctx = f"A[{key!r}] of {case.label}"
    with _Backend(backend), np.errstate(all="ignore"):
        try:
            expected = case.D[key]
        except IndexError:
            with pytest.raises(IndexError):
                case.A[key]
            return
        try:
            got = case.A[key]
        except ValueError as exc:  # documented limit (module docstring)
            assert "fill value varies" in str(exc) and _fill_varies(case.A), ctx
            return
    assert_same(got, expected, ctx)


@st.composite
def setitem_value(draw, case, shape):
    """(sparray value, numpy value) to assign into the indexed ``shape``: a compatible Python scalar,
    the array's fill, a dense array or a sparse array of the array's dtype (broadcastable to ``shape``)."""
    dtype = case.D.dtype.name
    kind = draw(st.sampled_from(["scalar", "fill", "dense", "sparse"]))
    if kind == "scalar" or (kind == "fill" and np.asarray(case.A.fill_value).ndim):
        s = draw(st.sampled_from({"bool": [True, False]}.get(dtype, [0, 1, -3, True] if dtype.startswith("int") else
                                                                   [0.0, -0.0, 1.5, -2.0, 3, float("inf"), float("nan")])))
        return s, s
    if kind == "fill":
        f = np.asarray(case.A.fill_value).item()
        return f, f
    vshape = draw(broadcastable_shape(shape)) if shape else ()
    vshape = vshape[len(vshape) - len(shape):] if len(vshape) > len(shape) else vshape  # no extra leading dims
    other = draw(sparse_cases(shape=vshape, dtype=dtype))
    return (other.A, other.D) if kind == "sparse" else (other.D, other.D)


@pytest.mark.parametrize("backend", BACKENDS)
@_SETTINGS
@given(data=st.data())
def test_setitem(backend, data):
    case = data.draw(sparse_cases(), label="case")
    key = data.draw(index_keys(case.D.shape), label="key")
    try:
        shape = case.D[key].shape
    except IndexError:
        shape = None
    v_sp, v_np = data.draw(setitem_value(case, shape), label="value") if shape is not None else (0, 0)
    ctx = f"A[{key!r}] = {type(v_sp).__name__} {getattr(v_np, 'shape', v_np)} on {case.label}"

    def np_call():
        D = case.D.copy()
        D[key] = v_np
        return D

    def sp_call():
        A = case.A.copy()
        A[key] = v_sp
        assert type(A) is type(case.A) and A.dense_ndim == case.A.dense_ndim, ctx
        return A

    with _Backend(backend):
        check(sp_call, np_call, ctx)


# --- the 2024.12 functions: shared argument draws ------------------------------------------------------
# Hypothesis draws the simplest choice (the first of a sampled_from, 0 of an integers) about half the
# time, so the draws below put the common case first and make rare ones the last of ten choices.
NEW_EXAMPLES = EXAMPLES  # trials per family and backend (ci: 100)
_NEW_SETTINGS = settings(_SETTINGS, max_examples=NEW_EXAMPLES)


def _rarely(draw) -> bool:
    """True about one time in twenty (the last of ten choices: never the simplest draw)."""
    return draw(st.sampled_from(range(10))) == 9


def _axis(draw, nd, none=False):
    """An axis of an ``nd``-dim array: in range (or None where allowed), rarely one out of range."""
    if _rarely(draw) or not (nd or none):
        return draw(st.sampled_from([nd, -nd - 1]))
    return draw(st.sampled_from([None] * none + list(range(nd)) + list(range(-nd, 0))))


def _new_case(data):
    """A case for the new families, with shapes drawn so that 0-d arrays (where an axis means little)
    and empty dims come now and then, not in half the trials (their simplest draws)."""
    ndim = data.draw(st.sampled_from([2, 1, 3, 2, 1, 3, 0]), label="ndim")
    shape = data.draw(st.lists(st.sampled_from([3, 2, 4, 1, 5, 0]), min_size=ndim, max_size=ndim), label="shape")
    return data.draw(sparse_cases(shape=tuple(shape)), label="case")


def _axis_of_0d(nd, axis):
    """The documented difference for an ``axis`` on a 0-d array (module docstring): ValueError."""
    return (ValueError, "out of range") if nd == 0 and axis is not None else None


def _indices(draw, n, length=None):
    """A list of integer indices for a dim of ``n`` elements: in ``[-n, n)``, rarely some out of range."""
    length = draw(st.sampled_from([2, 1, 3, 0, 4])) if length is None else length
    wide = n == 0 or _rarely(draw)
    values = st.sampled_from(range(-n - 2, n + 2) if wide else range(-n, n))
    return draw(st.lists(values, min_size=length, max_size=length))


# --- searching, sorting, sets ---------------------------------------------------------------------------
ORDERED = ("argmax", "argmin", "sort", "argsort", "searchsorted")  # complex input: TypeError (docstring)


def _np_sort(D, axis, descending):
    """The standard's stable sort: ``descending`` is the exact reverse (nan first, ties in order)."""
    return np.flip(np.sort(np.flip(D, axis), axis=axis, stable=True), axis) if descending else np.sort(D, axis=axis)


def _np_argsort(D, axis, descending):
    if not descending or D.ndim == 0:
        return np.argsort(D, axis=axis, stable=True)
    return D.shape[axis] - 1 - np.flip(np.argsort(np.flip(D, axis), axis=axis, stable=True), axis)


def _np_unique(name, D):
    """NumPy's ``unique_*`` with the values sorted (NumPy 2.3+ may return them in hash order; the
    standard leaves the order open and sparray sorts), the other fields following the values, and
    the nans numbered in flat order (NumPy's unique_inverse leaves that to an unstable sort)."""
    if name == "unique_values":
        return np.sort(np.unique_values(D))
    r = getattr(np, name)(D)
    order = np.argsort(r.values, stable=True)
    fields = {"values": r.values[order]}
    if "counts" in r._fields:
        fields["counts"] = r.counts[order]
    if "indices" in r._fields:
        fields["indices"] = r.indices[order]
    if "inverse_indices" in r._fields:
        inverse = np.argsort(order)[r.inverse_indices]
        nan_at = np.flatnonzero(np.isnan(D)) if D.dtype.kind in "fc" else []
        if len(nan_at):
            flat = inverse.reshape(-1)
            flat[nan_at] = np.sort(flat[nan_at])
        fields["inverse_indices"] = inverse
    return type(r)(**fields)


def _sorted_1d(draw):
    """(kind, sparray x1, numpy x1, sorter): a 1-d array in NumPy's order (nan last), sparse (the
    fill positions mostly unspecified) or dense, or an unsorted one (any layout) with its ``sorter``."""
    case = draw(sparse_cases(shape=(draw(st.sampled_from([5, 3, 0, 1, 6])),)))
    kind = draw(st.sampled_from(["sparse", "sorter", "dense", "sparse", "sorter_dense"]))
    if kind.startswith("sorter"):
        return kind, (case.D if kind == "sorter_dense" else case.A), case.D, np.argsort(case.D, stable=True)
    D = np.sort(case.D)
    if kind == "dense":
        return kind, D, D, None
    fill = np.asarray(case.A.fill_value)
    same = (D == fill) | (np.isnan(D) & np.isnan(fill)) if D.dtype.kind == "f" else D == fill
    keep = ~same | (np.asarray(draw(st.lists(st.booleans(), min_size=D.size, max_size=D.size)), bool) & same)
    idx = np.flatnonzero(keep)[None, :].astype(draw(st.sampled_from(["int64", "int32"])))
    return kind, sparray.COO(idx, D[keep], shape=D.shape, fill_value=fill), D, None


@st.composite
def searching(draw, case):
    """(name, sparray call, numpy call, expected error) of one searching, sorting or set function."""
    A, D = case.A, case.D
    nd = D.ndim
    name = draw(st.sampled_from(["argmax", "sort", "unique_all", "argmin", "argsort", "searchsorted", "unique_values",
                                 "unique_counts", "unique_inverse"]))  # fmt: skip
    error = None
    if name in ORDERED and name != "searchsorted" and _rarely(draw):
        A, D = sparray.astype(A, "complex128"), D.astype(np.complex128)
        error = (TypeError, "complex")
    if name in ("argmax", "argmin"):
        axis = _axis(draw, nd, none=True)
        keepdims = draw(st.booleans())
        f_sp, f_np = getattr(sparray, name), getattr(np, name)
        return (f"{name} axis={axis} keepdims={keepdims}", lambda: f_sp(A, axis=axis, keepdims=keepdims),
                lambda: f_np(D, axis=axis, keepdims=keepdims), error or _axis_of_0d(nd, axis))  # fmt: skip
    if name in ("sort", "argsort"):
        axis = _axis(draw, nd)
        descending, stable = draw(st.booleans()), draw(st.booleans())
        if name == "argsort":  # NumPy's argsort (not its sort) takes axis -1 of a 0-d array
            error = error or _axis_of_0d(nd, axis)
        f_sp, f_np = getattr(sparray, name), (_np_sort if name == "sort" else _np_argsort)
        return (f"{name} axis={axis} descending={descending} stable={stable}",
                lambda: f_sp(A, axis=axis, descending=descending, stable=stable),
                lambda: f_np(D, axis, descending), error)  # fmt: skip
    if name == "searchsorted":
        kind1, x1, d1, sorter = _sorted_1d(draw)
        side = draw(st.sampled_from(["left", "right"]))
        kind2 = draw(st.sampled_from(["sparse", "dense", "scalar", "sparse"]))
        if kind2 == "scalar":
            v_sp = v_np = draw(scalars_for(D.dtype.name))
        else:
            v_sp, v_np = (A if kind2 == "sparse" else D), D
        if _rarely(draw):
            x1, d1 = (sparray.astype(x1, "complex128") if isinstance(x1, sparray.SparseArray)
                      else x1.astype(np.complex128)), d1.astype(np.complex128)  # fmt: skip
            if isinstance(x1, sparray.SparseArray) or kind2 == "sparse":  # dense input goes to NumPy as it is
                error = (TypeError, "complex")
        return (f"searchsorted x1={kind1} {x1!r} = {d1.tolist()} sorter={sorter} x2={kind2} side={side}",
                lambda: sparray.searchsorted(x1, v_sp, side=side, sorter=sorter),
                lambda: np.searchsorted(d1, v_np, side=side, sorter=sorter), error)  # fmt: skip
    return name, lambda: getattr(sparray, name)(A), lambda: _np_unique(name, D), error


@pytest.mark.parametrize("backend", BACKENDS)
@_NEW_SETTINGS
@given(data=st.data())
def test_searching_sorting_sets(backend, data):
    case = _new_case(data)
    name, sp_call, np_call, error = data.draw(searching(case), label="op")
    with _Backend(backend):
        check(sp_call, np_call, f"{name}({case.label})", expected_error=error)


# --- running sums and differences ---------------------------------------------------------------------
def _diff_extra(draw, case, axis):
    """A ``prepend``/``append`` for ``diff``: None, a Python scalar, or a dense or sparse array of
    ``case``'s shape except along ``axis`` (rarely a 0-d array, or a shape that does not fit)."""
    kind = draw(st.sampled_from(["none", "sparse", "scalar", "dense", "sparse", "none"]))
    if kind == "none":
        return "none", None, None
    dtype = case.D.dtype.name if draw(st.booleans()) else None
    if kind == "scalar":
        s = draw(scalars_for(dtype or draw(st.sampled_from(["float64", "int64", "bool"]))))
        return f"scalar {s!r}", s, s
    shape = list(case.D.shape)
    if -len(shape) <= axis < len(shape):
        shape[axis] = draw(st.sampled_from([1, 2, 0]))
    if _rarely(draw):
        shape = draw(st.sampled_from([[], [n + 1 for n in shape]]))
    other = draw(sparse_cases(shape=tuple(shape), dtype=dtype))
    return f"{kind} {other.label}", (other.A if kind == "sparse" else other.D), other.D


@st.composite
def running(draw, case):
    """(name, sparray call, numpy call, expected error) of ``cumulative_sum``, ``cumulative_prod`` or ``diff``."""
    A, D = case.A, case.D
    nd = D.ndim
    name = draw(st.sampled_from(["diff", "cumulative_sum", "cumulative_prod", "diff"]))
    if name == "diff":
        axis = _axis(draw, nd)
        n = draw(st.sampled_from([1, 2, 1, 0, 3, 7]))
        pre_label, pre_sp, pre_np = _diff_extra(draw, case, axis)
        app_label, app_sp, app_np = _diff_extra(draw, case, axis)
        kw_np = {k: v for k, v in (("prepend", pre_np), ("append", app_np)) if v is not None}
        unchecked = n == 0 and not -nd <= axis < nd  # NumPy returns x for n=0 before looking at x or axis
        return (f"diff axis={axis} n={n} prepend={pre_label} append={app_label}",
                lambda: sparray.diff(A, axis=axis, n=n, prepend=pre_sp, append=app_sp),
                lambda: np.diff(D, axis=axis, n=n, **kw_np), (ValueError, "") if unchecked else None)  # fmt: skip
    axis = _axis(draw, nd, none=nd <= 1) if not _rarely(draw) else None  # None needs 1-d input
    dtype = draw(st.sampled_from([None, "float64", None, "int64", "float32", "bool"]))
    include_initial = draw(st.booleans())
    f_sp, f_np = getattr(sparray, name), getattr(np, name)
    kw = {"axis": axis, "dtype": dtype, "include_initial": include_initial}
    return f"{name} {kw}", lambda: f_sp(A, **kw), lambda: f_np(D, **kw), _axis_of_0d(nd, axis)


@pytest.mark.parametrize("backend", BACKENDS)
@_NEW_SETTINGS
@given(data=st.data())
def test_cumulative_and_diff(backend, data):
    case = _new_case(data)
    name, sp_call, np_call, error = data.draw(running(case), label="op")
    with _Backend(backend):
        check(sp_call, np_call, f"{name}({case.label})", expected_error=error)


# --- broadcasting, tiling, triangles, taking ----------------------------------------------------------
def _as_tuple(call):
    return lambda: tuple(call())


def _out_of_range(idx, n):
    """The documented difference for an index out of range that reads nothing (module docstring):
    NumPy's ``take`` answers with an empty result, sparray raises IndexError as ``D[:, [5]]`` does."""
    idx = np.asarray(idx)
    return (IndexError, "out of bounds") if idx.size and (idx.min() < -n or idx.max() >= n) else None


def _operands(draw, cases):
    """Each case as its sparse array (mostly) or its dense array: (sparray operands, label)."""
    kinds = [draw(st.sampled_from(["sparse", "dense", "sparse"])) for _ in cases]
    return [c.A if k == "sparse" else c.D for c, k in zip(cases, kinds)], "; ".join(
        f"{k} {c.label}" for c, k in zip(cases, kinds)
    )


@st.composite
def copying(draw, case):
    """(name, sparray call, numpy call, expected error) of a broadcasting, tiling, triangle or take function."""
    A, D = case.A, case.D
    nd = D.ndim
    name = draw(st.sampled_from(["tril", "take", "repeat", "roll", "tile", "triu", "unstack", "take_along_axis",
                                 "meshgrid", "broadcast_arrays"]))  # fmt: skip
    if name == "meshgrid":
        indexing = draw(st.sampled_from(["xy", "ij"]))
        cases = [draw(sparse_cases(shape=(draw(st.sampled_from([3, 1, 0, 4])),)))
                 for _ in range(draw(st.sampled_from([2, 1, 3, 0])))]  # fmt: skip
        if nd == 1:
            cases = [case] + cases
        ops, label = _operands(draw, cases)
        return (f"meshgrid indexing={indexing} [{label}]", _as_tuple(lambda: sparray.meshgrid(*ops, indexing=indexing)),
                lambda: np.meshgrid(*[c.D for c in cases], indexing=indexing), None)  # fmt: skip
    if name == "broadcast_arrays":
        cases = [case] + [draw(sparse_cases(shape=draw(broadcastable_shape(D.shape))))
                          for _ in range(draw(st.sampled_from([1, 2, 0])))]  # fmt: skip
        if draw(st.booleans()):
            cases = cases[::-1]
        ops, label = _operands(draw, cases)
        return (f"broadcast_arrays [{label}]", _as_tuple(lambda: sparray.broadcast_arrays(*ops)),
                lambda: np.broadcast_arrays(*[c.D for c in cases]), None)  # fmt: skip
    if name in ("tril", "triu"):
        k = draw(st.sampled_from([0, 1, -1, 2, -2, 3, -3, 5, -5]))
        f_sp, f_np = getattr(sparray, name), getattr(np, name)
        error = (ValueError, "at least 2 dims") if nd == 1 else None  # NumPy broadcasts a 1-d x to a matrix
        return f"{name} k={k}", lambda: f_sp(A, k=k), lambda: f_np(D, k=k), error
    if name == "repeat":
        axis = _axis(draw, nd, none=True)
        n = D.size if axis is None else (D.shape[axis] if -nd <= axis < nd else 1)
        form = draw(st.sampled_from(["list", "int", "one", "list", "bad"]))
        if form == "int":
            repeats = draw(st.sampled_from([2, 0, 1, 3]))
        elif form == "list":
            repeats = draw(st.lists(st.sampled_from([1, 0, 2, 3]), min_size=n, max_size=n))
        elif form == "one":
            repeats = [draw(st.sampled_from([2, 0, 1, 3]))]
        else:
            repeats = draw(st.sampled_from([-1, [1] * (n + 1), [-1] * max(n, 1)]))
        negative = np.min(repeats, initial=0) < 0  # NumPy takes one when there is nothing to repeat
        return (f"repeat repeats={repeats} axis={axis}", lambda: sparray.repeat(A, repeats, axis=axis),
                lambda: np.repeat(D, repeats, axis=axis),
                _axis_of_0d(nd, axis) or ((ValueError, "non-negative") if negative else None))  # fmt: skip
    if name == "roll":
        form = draw(st.sampled_from(["int", "tuple", "int", "tuple_axis", "bad"]))
        shifts = st.sampled_from([1, -1, 2, 0, 3, -4, 7, -7])
        shift, axis = draw(shifts), _axis(draw, nd, none=True)
        if form in ("tuple", "tuple_axis") and nd:
            axis = tuple(draw(st.lists(st.sampled_from(list(range(-nd, nd))), min_size=1, max_size=3)))
            if form == "tuple":
                shift = tuple(draw(st.lists(shifts, min_size=len(axis), max_size=len(axis))))
        elif form == "bad":
            shift = draw(st.sampled_from([(1, 2, 3), 1.5]))
        error = (TypeError, "shift must be an int") if shift == 1.5 else None  # NumPy truncates a float shift
        return (f"roll shift={shift} axis={axis}", lambda: sparray.roll(A, shift, axis=axis),
                lambda: np.roll(D, shift, axis=axis), error)  # fmt: skip
    if name == "tile":
        reps = draw(st.one_of(st.lists(st.sampled_from([2, 1, 0, 3]), max_size=nd + 1).map(tuple),
                              st.sampled_from([2, 0, 1, 3])))  # fmt: skip
        return f"tile reps={reps}", lambda: sparray.tile(A, reps), lambda: np.tile(D, reps), None
    if name == "unstack":
        axis = _axis(draw, nd)
        return f"unstack axis={axis}", lambda: sparray.unstack(A, axis=axis), lambda: np.unstack(D, axis=axis), None
    if name == "take":
        axis = _axis(draw, nd, none=True)
        n = D.size if axis is None else (D.shape[axis] if -nd <= axis < nd else 1)
        idx = np.asarray(_indices(draw, n), dtype=draw(st.sampled_from(["int64", "int32"])))
        if idx.size % 2 == 0 and _rarely(draw):
            idx = idx.reshape(2, -1)  # n-d indices: NumPy's rule (their dims replace the axis)
        return (f"take indices={idx.tolist()} axis={axis}", lambda: sparray.take(A, idx, axis=axis),
                lambda: np.take(D, idx, axis=axis), _axis_of_0d(nd, axis) or _out_of_range(idx, n))  # fmt: skip
    # take_along_axis: indices of x's rank, each dim x's size or 1 (any length along axis), 1-d for axis=None
    axis = _axis(draw, nd) if not _rarely(draw) else None
    if axis is None:
        shape, n = [draw(st.sampled_from([3, 1, 0, 4]))], D.size
    else:
        ax = axis % nd if -nd <= axis < nd else 0
        shape = [draw(st.sampled_from([m, 1])) for m in D.shape]
        if nd:
            shape[ax] = draw(st.sampled_from([2, 1, 3, 0]))
        n = D.shape[ax] if nd else 0
    idx = np.asarray(_indices(draw, n, length=math.prod(shape)), dtype=np.int64).reshape(shape)
    return (f"take_along_axis indices={idx.tolist()} axis={axis}", lambda: sparray.take_along_axis(A, idx, axis=axis),
            lambda: np.take_along_axis(D, idx, axis=axis), None)  # fmt: skip


@pytest.mark.parametrize("backend", BACKENDS)
@_NEW_SETTINGS
@given(data=st.data())
def test_broadcasting_tiling_taking(backend, data):
    case = _new_case(data)
    name, sp_call, np_call, error = data.draw(copying(case), label="op")
    with _Backend(backend):
        check(sp_call, np_call, f"{name}({case.label})", expected_error=error)


# --- products and softmax ---------------------------------------------------------------------------
def ieee_matmul(a, b):
    """``a @ b`` as a sum of element products (``0 * inf`` is nan), shapes and errors as ``np.matmul``.

    The reference for products: NumPy's BLAS paths may skip a zero factor (``np.dot([[0.]],
    [[inf]])`` is 0, while ``np.matmul`` and ``np.einsum`` give nan); sparray computes IEEE products.
    """
    out = np.matmul(a, b)  # shape, dtype and the errors of matmul
    a2 = a[None, :] if a.ndim == 1 else a
    b2 = b[:, None] if b.ndim == 1 else b
    full = np.sum(a2[..., :, :, None] * b2[..., None, :, :], axis=-2, dtype=out.dtype)
    if b.ndim == 1:
        full = full[..., 0]
    if a.ndim == 1:
        full = full[..., 0, :] if b.ndim > 1 else full[..., 0]
    return np.asarray(full, dtype=out.dtype).reshape(out.shape)


def ieee_tensordot(a, b, axes):
    """``np.tensordot(a, b, axes)`` (an int ``axes``) with IEEE products (see ``ieee_matmul``)."""
    out = np.tensordot(a, b, axes=axes)  # shape, dtype and errors
    m = math.prod(a.shape[: a.ndim - axes])
    k = math.prod(a.shape[a.ndim - axes :])
    n = math.prod(b.shape[axes:])
    return ieee_matmul(a.reshape(m, k), b.reshape(k, n)).reshape(out.shape)


@st.composite
def product(draw, case):
    A, D = case.A, case.D
    nd = D.ndim
    name = draw(st.sampled_from(["matmul", "tensordot", "vecdot", "addmm", "sampled_addmm"]))
    second_sparse = draw(st.booleans())
    seen = []

    def other(shape):
        o = draw(sparse_cases(shape=shape, dtype=D.dtype.name if draw(st.booleans()) else None, dtypes=NUMERIC))
        seen.append(f"{'sparse' if second_sparse else 'dense'} {o.label}")
        return (o.A if second_sparse else o.D), o.D

    if name == "matmul" and nd:
        k = D.shape[-1]
        shape = draw(st.sampled_from([(k,), (k, draw(st.integers(0, 3)))] + ([D.shape[:-2] + (k, 2)] if nd > 2 else [])))
        y_sp, y_np = other(shape)
        if draw(st.booleans()) and nd >= 2:  # x @ A
            z_sp, z_np = other((draw(st.integers(0, 3)), D.shape[-2]))
            return name, lambda: z_sp @ A, lambda: ieee_matmul(z_np, D), seen
        return name, lambda: A @ y_sp, lambda: ieee_matmul(D, y_np), seen
    if name == "tensordot":
        axes = draw(st.integers(0, min(nd, 2)))
        y_sp, y_np = other(D.shape[nd - axes :] + (draw(st.integers(0, 3)),))
        return name, lambda: sparray.tensordot(A, y_sp, axes=axes), lambda: ieee_tensordot(D, y_np, axes), seen
    if name == "vecdot" and nd:
        y_sp, y_np = other(draw(broadcastable_shape(D.shape)))
        return name, lambda: sparray.vecdot(A, y_sp), lambda: np.vecdot(D, y_np), seen
    if name in ("addmm", "sampled_addmm") and nd == 2 and A.dense_ndim == 0:
        k = D.shape[1]
        beta, alpha = draw(st.sampled_from([(1, 1), (0.5, -2.0), (0, 3.0)]))
        if name == "addmm":
            X_sp, X_np = other((k, 3))
            C = draw(sparse_cases(shape=(D.shape[0], 3), dtypes=NUMERIC))
            def ref():
                P = alpha * ieee_matmul(D, X_np)
                if beta == 0:  # C is not read, but it sets the dtype (and the shape) of the result
                    return np.broadcast_to(P, np.broadcast_shapes(P.shape, C.D.shape)).astype(np.result_type(C.D, P))
                return P + beta * C.D

            return name, lambda: sparray.addmm(C.A, A, X_sp, beta=beta, alpha=alpha), ref, seen + [C.label]
        P = np.asarray(draw(st.lists(st.floats(-2, 2, width=32), min_size=D.shape[0] * 2, max_size=D.shape[0] * 2)))
        Q = np.asarray(draw(st.lists(st.floats(-2, 2, width=32), min_size=2 * k, max_size=2 * k)))
        P, Q = P.reshape(D.shape[0], 2), Q.reshape(2, k)
        mask = np.zeros(D.shape, bool)
        Acoo = A.to_layout("coo")
        if Acoo.nse:
            mask[tuple(np.asarray(Acoo.indices))] = True
        with np.errstate(all="ignore"):
            fill = np.asarray(A.fill_value)
            ref = np.where(mask, alpha * (P @ Q) + (0 if beta == 0 else beta * D), 0 if beta == 0 else beta * fill)
        return name, lambda: sparray.sampled_addmm(A, P, Q, beta=beta, alpha=alpha), lambda: ref.astype(np.result_type(D, P)), seen
    y_sp, y_np = other(D.shape[-1:] if nd else ())
    return "matmul", lambda: sparray.matmul(A, y_sp), lambda: ieee_matmul(D, y_np), seen


@pytest.mark.parametrize("backend", BACKENDS)
@_SETTINGS
@given(data=st.data())
def test_products(backend, data):
    case = data.draw(sparse_cases(dtypes=NUMERIC), label="case")
    name, sp_call, np_call, others = data.draw(product(case), label="op")
    name = f"{name} [with {'; '.join(others)}]"
    with _Backend(backend):
        check(sp_call, np_call, f"{name}({case.label})")


def _dense_softmax(D, axis, log):
    with np.errstate(all="ignore"):
        if D.shape[axis] == 0:
            return D.copy()
        m = np.max(D, axis=axis, keepdims=True)
        z = np.sum(np.exp(D - m), axis=axis, keepdims=True)
        return D - m - np.log(z) if log else np.exp(D - m) / z


@pytest.mark.parametrize("backend", BACKENDS)
@_SETTINGS
@given(data=st.data())
def test_softmax(backend, data):
    case = data.draw(sparse_cases(dtypes=("float64", "float32"), min_ndim=1), label="case")
    axis = data.draw(st.integers(-case.D.ndim, case.D.ndim - 1), label="axis")
    log = data.draw(st.booleans(), label="log")
    fn = sparray.log_softmax if log else sparray.softmax
    with _Backend(backend):
        check(lambda: fn(case.A, axis=axis), lambda: _dense_softmax(case.D, axis, log),
              f"{'log_' if log else ''}softmax({case.label}, axis={axis})")  # fmt: skip


# --- creation -----------------------------------------------------------------------------------------
@pytest.mark.parametrize("backend", BACKENDS)
@_SETTINGS
@given(data=st.data())
def test_creation(backend, data):
    ndim = data.draw(st.integers(0, 3), label="ndim")
    shape = tuple(data.draw(st.lists(st.integers(0, 4), min_size=ndim, max_size=ndim), label="shape"))
    dtype = data.draw(st.sampled_from(["float64", "float32", "int64", "bool"]), label="dtype")
    layout = data.draw(st.sampled_from(["coo", "csr", "csc"] if ndim >= 2 else ["coo"]), label="layout")
    name = data.draw(st.sampled_from(["zeros", "ones", "full", "eye", "arange", "linspace", "zeros_like",
                                      "ones_like", "full_like", "asarray"]), label="op")  # fmt: skip
    value = data.draw(scalars_for(dtype), label="value")
    like = data.draw(sparse_cases(shape=shape, dtype=dtype), label="like")
    calls = {
        "zeros": (lambda: sparray.zeros(shape, dtype=dtype, layout=layout), lambda: np.zeros(shape, dtype=dtype)),
        "ones": (lambda: sparray.ones(shape, dtype=dtype, layout=layout), lambda: np.ones(shape, dtype=dtype)),
        "full": (lambda: sparray.full(shape, value, dtype=dtype, layout=layout), lambda: np.full(shape, value, dtype=dtype)),
        "eye": (lambda: sparray.eye(3, 4, k=value if isinstance(value, int) else 1, dtype=dtype, layout="csr"),
                lambda: np.eye(3, 4, k=value if isinstance(value, int) else 1, dtype=dtype)),
        "arange": (lambda: sparray.arange(0, 7, 2, dtype=dtype if dtype != "bool" else None),
                   lambda: np.arange(0, 7, 2, dtype=dtype if dtype != "bool" else None)),
        "linspace": (lambda: sparray.linspace(-1.0, 2.0, 7), lambda: np.linspace(-1.0, 2.0, 7)),
        "zeros_like": (lambda: sparray.zeros_like(like.A), lambda: np.zeros_like(like.D)),
        "ones_like": (lambda: sparray.ones_like(like.A), lambda: np.ones_like(like.D)),
        "full_like": (lambda: sparray.full_like(like.A, value), lambda: np.full_like(like.D, value)),
        "asarray": (lambda: sparray.asarray(like.D, layout=layout, fill_value=value if dtype != "bool" or isinstance(value, bool) else None),
                    lambda: like.D),
    }  # fmt: skip
    sp_call, np_call = calls[name]
    uses_value = name in ("full", "full_like") or (name == "asarray" and (dtype != "bool" or isinstance(value, bool)))
    expected_error = None
    if uses_value and not _representable(value, dtype):
        expected_error = (ValueError, "cannot be represented")
    with _Backend(backend):
        check(sp_call, np_call, f"{name} shape={shape} dtype={dtype} layout={layout} value={value!r} like={like.label}",
              expected_error=expected_error)  # fmt: skip


def _representable(value, dtype) -> bool:
    """Whether ``value`` survives a cast to ``dtype`` and back (nan stays nan in floats)."""
    with np.errstate(all="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        cast = np.asarray(value).astype(dtype)
        if np.isnan(np.asarray(value, dtype=float)):
            return bool(np.isnan(cast.astype(float)))
        return bool(cast.astype(type(value)) == value)


def test_bool_products_raise():
    """The documented difference: products need numeric dtypes (array API), NumPy also takes bool."""
    A = sparray.asarray(np.eye(3, dtype=bool), layout="csr")
    for f in (lambda: A @ np.ones(3, dtype=bool), lambda: sparray.tensordot(A, A, axes=1), lambda: sparray.vecdot(A, A)):
        with pytest.raises(TypeError, match="numeric"):
            f()
