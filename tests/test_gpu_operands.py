"""A dense device array beside a device SparseArray: every operator on either side, and index keys
held on the host (issue 49, item 5).

On CuPy, ``x + A`` (``x`` a CuPy array, ``A`` a sparse array on the GPU) reaches sparray only
through NumPy's ufunc: CuPy's operator defers to ``A.__radd__`` only when ``A.__array_ufunc__`` is
None, and sparray's is NumPy's protocols, so CuPy calls ``numpy.add(x, A)``, which asks
``A.__array_ufunc__`` (``sparray/kernels/cuda/_cupy_rules.py`` has the source lines). The
simulated device decides operators with the same rule; these tests run on it in every CI run and
on CuPy where a GPU is. Every result is checked against dense NumPy and against the sparray
function of the operator (``sparray.add(x, A)``), for fills 0, 1.5 and nan, every layout
(batched CSR and hybrid COO too), dense operands of 0, 1, 2 and 3 dims (broadcasting both ways),
and must stay on the device.

Index keys: ``A[np.array([1, 0])]``, a NumPy boolean mask, lists, mixed with slices, ints, None and
``...``, on reading and on assignment, equal NumPy's answer on the dense array; the key's mask
``nonzero`` and bounds are read on the host (no wait: no sync counted from them), and the key is
copied to the device (an upload, counted apart from the syncs).
"""

from __future__ import annotations

import operator

import numpy as np
import pytest
from cuda_testing import DEVICES, requires_gxx
from places_testing import dense_on_host as _host
from places_testing import on_place as _on_place
from places_testing import to_place as _to_place

import sparray as sp
from sparray.kernels.cuda import simulated
from sparray.kernels.cuda.simulated import counting

pytestmark = requires_gxx

PLACES = ["simulated"] + (["cuda"] if "cupy" in DEVICES else [])
FILLS = [0.0, 1.5, float("nan")]
FILL_IDS = ["fill0", "fill1.5", "fillnan"]

#: name -> (dense shape, layout, keywords of sparray.asarray)
SHAPES = {
    "coo": ((6, 8), "coo", {}),
    "csr": ((6, 8), "csr", {}),
    "csc": ((6, 8), "csc", {}),
    "bsr": ((6, 8), "bsr", {"blocksize": (2, 2)}),
    "bsc": ((6, 8), "bsc", {"blocksize": (3, 2)}),
    "csr-batched": ((2, 6, 8), "csr", {"sparse_ndim": 2}),
    "coo-hybrid": ((6, 8, 3), "coo", {"sparse_ndim": 2}),
}
MATRICES = ["coo", "csr", "csc", "bsr", "bsc"]

#: operator -> the sparray function it is
ARITHMETIC = {
    "+": (operator.add, "add"), "-": (operator.sub, "subtract"), "*": (operator.mul, "multiply"),
    "/": (operator.truediv, "divide"), "//": (operator.floordiv, "floor_divide"),
    "%": (operator.mod, "remainder"), "**": (operator.pow, "pow"),
}  # fmt: skip
COMPARISONS = {
    "<": (operator.lt, "less"), "<=": (operator.le, "less_equal"), ">": (operator.gt, "greater"),
    ">=": (operator.ge, "greater_equal"), "==": (operator.eq, "equal"), "!=": (operator.ne, "not_equal"),
}  # fmt: skip
BITWISE = {
    "&": (operator.and_, "bitwise_and"), "|": (operator.or_, "bitwise_or"), "^": (operator.xor, "bitwise_xor"),
    "<<": (operator.lshift, "bitwise_left_shift"), ">>": (operator.rshift, "bitwise_right_shift"),
}  # fmt: skip


# ---- data ---------------------------------------------------------------------------------------


def _sparse(shape_name, fill, seed, dtype=np.float64):
    shape, layout, kw = SHAPES[shape_name]
    rng = np.random.default_rng(seed)
    if np.dtype(dtype).kind in "iu":
        dense = rng.integers(0, 6, size=shape).astype(dtype)
    else:
        dense = np.round(rng.standard_normal(shape) * 4) / 4
    keep = rng.random(shape[:2]) < 0.35
    keep = keep.reshape(keep.shape + (1,) * (len(shape) - 2))
    if shape_name == "csr-batched":  # (batch, rows, cols): the pattern varies across the batch
        keep = rng.random(shape) < 0.35
    dense = np.where(keep, dense, np.asarray(fill, dtype=dtype))
    return dense, sp.asarray(dense, layout=layout, fill_value=fill, **kw)


def _dense_shapes(shape):
    """Dense operands of 0, 1, 2 and 3 dims against an array of ``shape``: a 0-d, the last dim,
    a column (broadcast along the last dim), the full shape, and one that broadcasts ``A`` up
    to a new leading dim (``(2, *shape[-2:])`` or, for a 3-d array, ``(1, *shape[1:])``)."""
    out = {"0-d": (), "last": shape[-1:], "column": (*shape[:-1], 1), "full": shape}
    out["broadcast"] = (2, *shape[-2:]) if len(shape) == 2 else (1, *shape[1:])
    return out


def _dense(shape, seed, dtype=np.float64):
    rng = np.random.default_rng(seed)
    if np.dtype(dtype).kind in "iu":
        return rng.integers(0, 5, size=shape).astype(dtype)
    return np.round(rng.standard_normal(shape) * 4) / 4


def _check(got, want, ref, place, what):
    """``got`` (an operator's result on the device) against dense NumPy's ``want`` and the sparray
    function's ``ref``: same type, layout and fill, same elements (nan where NumPy has nan)."""
    assert _on_place(got, place), f"{what}: the result left the device ({type(got)})"
    assert type(got) is type(ref), f"{what}: {type(got).__name__}, sparray's function gives {type(ref).__name__}"
    if isinstance(got, sp.SparseArray):
        assert got.layout == ref.layout, what
        np.testing.assert_array_equal(_host(got.fill_value), _host(ref.fill_value), err_msg=what)
    g = _host(got)
    assert g.shape == np.shape(want), f"{what}: shape {g.shape}, NumPy's {np.shape(want)}"
    assert g.dtype == np.asarray(want).dtype, f"{what}: dtype {g.dtype}, NumPy's {np.asarray(want).dtype}"
    np.testing.assert_array_equal(g, _host(ref), err_msg=what)
    np.testing.assert_allclose(g, want, rtol=1e-12, atol=0, equal_nan=True, err_msg=what)


def _check_ops(ops, x, D, dx, dA, place):
    """Each operator with the dense ``dx`` on the left (CuPy's operator decides) and on the right
    (sparray's operator), against NumPy on ``x`` and ``D`` and against sparray's function."""
    for sym, (op, fname) in ops.items():
        f = getattr(sp, fname)
        with np.errstate(all="ignore"):
            _check(op(dx, dA), op(x, D), f(dx, dA), place, f"x {sym} A")
            _check(op(dA, dx), op(D, x), f(dA, dx), place, f"A {sym} x")


# ---- operators ----------------------------------------------------------------------------------

def _fill_cycle(cases, ids):
    """``cases`` with a fill each, 0, 1.5 and nan in turn (every fill meets every kind of case across
    the list, in a third of the runs a full product would take: CI's 25 minutes)."""
    return [pytest.param(*c, FILLS[i % 3], id=f"{name}-{FILL_IDS[i % 3]}") for i, (c, name) in enumerate(zip(cases, ids))]


# three of the five dense operand kinds per sparse shape, in turn: each kind meets four or five shapes
OPERAND_CASES = [(s, k) for i, s in enumerate(SHAPES) for j, k in enumerate(_dense_shapes(SHAPES[s][0])) if (i + j) % 5 < 3]


@pytest.mark.parametrize("place", PLACES)
@pytest.mark.parametrize(("shape_name", "xkind", "fill"), _fill_cycle(OPERAND_CASES, [f"{s}-{k}" for s, k in OPERAND_CASES]))
def test_every_operator_with_a_dense_device_operand_on_either_side(shape_name, xkind, fill, place):
    D, A = _sparse(shape_name, fill, seed=len(shape_name) * 7 + len(xkind))
    x = _dense(_dense_shapes(D.shape)[xkind], seed=len(xkind))
    dA, dx = _to_place(A, place), _to_place(x, place)
    _check_ops({**ARITHMETIC, **COMPARISONS}, x, D, dx, dA, place)


INT_CASES = [(s, k) for s in MATRICES + ["csr-batched"] for k in ("0-d", "last", "full")]


@pytest.mark.parametrize("place", PLACES)
@pytest.mark.parametrize("fill", [0, 3], ids=["fill0", "fill3"])  # integers hold no nan
@pytest.mark.parametrize(("shape_name", "xkind"), INT_CASES, ids=[f"{s}-{k}" for s, k in INT_CASES])
def test_bitwise_operators_with_a_dense_device_operand_on_either_side(shape_name, xkind, fill, place):
    D, A = _sparse(shape_name, fill, seed=len(shape_name) + 3 * len(xkind), dtype=np.int64)
    x = _dense(_dense_shapes(D.shape)[xkind], seed=len(xkind), dtype=np.int64)
    dA, dx = _to_place(A, place), _to_place(x, place)
    _check_ops(BITWISE, x, D, dx, dA, place)


#: name -> (the sparse shape, the dense operand's shapes on the left, on the right)
MATMUL = {name: (["last", "rows", "batch"], ["cols", "cols-3", "batch"]) for name in MATRICES}
MATMUL["csr-batched"] = (["last", "rows", "batch"], ["cols", "cols-3"])


def _matmul_shape(shape, kind, left):
    k = shape[-2] if left else shape[-1]
    return {"last": (k,), "rows": (3, k), "batch": (2, 3, k) if left else (2, k, 3), "cols": (k,), "cols-3": (k, 3)}[kind]


MATMUL_CASES = [(s, side, k) for s, (lefts, rights) in MATMUL.items() for side, kinds in (("left", lefts), ("right", rights)) for k in kinds]


@pytest.mark.parametrize("place", PLACES)
@pytest.mark.parametrize(("shape_name", "side", "xkind", "fill"),
                         _fill_cycle(MATMUL_CASES, [f"{s}-x-{side}-{k}" for s, side, k in MATMUL_CASES]))
def test_matmul_with_a_dense_device_operand_on_either_side(shape_name, side, xkind, fill, place):
    D, A = _sparse(shape_name, fill, seed=len(shape_name) * 3 + len(xkind))
    x = _dense(_matmul_shape(D.shape, xkind, side == "left"), seed=len(xkind) + 1)
    dA, dx = _to_place(A, place), _to_place(x, place)
    with np.errstate(all="ignore"):
        if side == "left":
            _check(dx @ dA, x @ D, sp.matmul(dx, dA), place, "x @ A")
        else:
            _check(dA @ dx, D @ x, sp.matmul(dA, dx), place, "A @ x")


@pytest.mark.parametrize("place", PLACES)
def test_a_0d_operand_of_matmul_is_refused_as_numpy_refuses_it(place):
    D, A = _sparse("csr", 0.0, seed=1)
    x = _to_place(np.asarray(2.0), place)
    with pytest.raises(ValueError, match="matmul"):
        x @ _to_place(A, place)
    with pytest.raises(ValueError, match="matmul"):
        _to_place(A, place) @ x


@pytest.mark.parametrize("place", PLACES)
def test_numpys_ufunc_reaches_sparray_with_a_device_operand(place):
    """NumPy's own ufunc on a device sparse array and a device array answers as the operator does
    (CuPy's own ``np.add(x, A)`` path; on the simulated device only through its operators, since
    its arrays refuse NumPy's ufuncs by design)."""
    D, A = _sparse("csc", 1.5, seed=5)
    x = _dense((8,), seed=6)
    dA, dx = _to_place(A, place), _to_place(x, place)
    got = type(dA).__array_ufunc__(dA, np.add, "__call__", dx, dA)
    _check(got, x + D, sp.add(dx, dA), place, "A.__array_ufunc__(np.add, x, A)")
    if place == "cuda":
        _check(np.add(dx, dA), x + D, sp.add(dx, dA), place, "np.add(x, A)")


# ---- CuPy's rule, as the simulated device follows it ------------------------------------------------


class _Deferring:
    """``__array_ufunc__ = None``: CuPy's operators return NotImplemented, Python asks us."""

    __array_ufunc__ = None

    def __radd__(self, other):
        return "reflected"

    def __lt__(self, other):  # the mirror of other > self
        return "mirrored"


class _HighPriority:
    """No ``__array_ufunc__`` and a priority above CuPy's 100 (as cupyx.scipy.sparse's 101)."""

    __array_priority__ = 101

    def __rmatmul__(self, other):
        return "reflected"


class _LowPriority:
    """No ``__array_ufunc__``, a low priority: CuPy calls NumPy's ufunc, and nobody answers."""

    __array_priority__ = 1

    def __radd__(self, other):  # never reached
        return "reflected"


class _Answering:
    """A real ``__array_ufunc__``: reached through NumPy's ufunc, not through ``__radd__``."""

    def __array_ufunc__(self, ufunc, method, *inputs, **kwargs):
        return ("ufunc", ufunc.__name__, method, type(inputs[0]).__name__)

    def __radd__(self, other):  # never reached
        return "reflected"


@pytest.mark.parametrize("place", PLACES)
def test_the_device_array_defers_as_cupy_decides(place):
    x = _to_place(np.arange(3.0), place)
    assert x + _Deferring() == "reflected"
    assert (x > _Deferring()) == "mirrored"
    assert x @ _HighPriority() == "reflected"
    with pytest.raises(TypeError):
        x + _LowPriority()
    kind, name, method, first = x + _Answering()
    assert (kind, name, method) == ("ufunc", "add", "__call__") and first == type(x).__name__
    assert x.__array_priority__ == 100
    # == and != against an object that keeps object's __eq__ (or None): all False / all True
    assert _host(x == object()).tolist() == [False] * 3 and _host(x != None).tolist() == [True] * 3


def test_the_simulated_device_refuses_host_arrays_as_cupy_kernels_do():
    x = simulated.to_simulated(np.arange(3.0))
    with pytest.raises(TypeError, match="host memory"):
        x + np.arange(3.0)
    with pytest.raises(TypeError, match="host memory"):
        x * np.asarray(2.0)  # CuPy's kernels take scalars, not 0-d NumPy arrays
    assert (x * np.float64(2.0)).get().tolist() == [0.0, 2.0, 4.0]
    assert (x > np.asarray(0.5)).get().tolist() == [False, True, True]  # comparisons read a 0-d one as its item


@pytest.mark.parametrize("place", PLACES)
def test_in_place_operators_do_not_defer(place):
    """CuPy's ``x += A`` is its ufunc with ``out=x``: a sparse operand is a TypeError there (the
    result of ``x + A`` may be sparse; ``x = x + A`` is the way)."""
    D, A = _sparse("csr", 0.0, seed=2)
    dx = _to_place(_dense((6, 8), seed=3), place)
    with pytest.raises(TypeError):
        dx += _to_place(A, place)


def test_mixed_places_are_refused_naming_both():
    D, A = _sparse("csr", 0.0, seed=4)
    dx = simulated.to_simulated(_dense((8,), seed=5))
    with pytest.raises(TypeError, match="numpy"):
        dx + A  # a host sparse array beside a device dense one
    with pytest.raises(TypeError, match="numpy"):
        _dense((8,), seed=5) + A.to_device("simulated")  # a host dense array beside a device sparse one


def test_a_dense_operand_on_the_left_costs_no_sync_of_its_own():
    """``x + A`` makes no wait beyond what ``sparray.add(x, A)`` makes (the operator only decides
    who answers), and the products none at all."""
    D, A = _sparse("csr", 0.0, seed=8)
    dA = A.to_device("simulated")
    dx = simulated.to_simulated(_dense((8,), seed=9))
    d0 = simulated.to_simulated(np.asarray(2.0))
    for op, fname, v in [(operator.add, "add", dx), (operator.mul, "multiply", d0), (operator.gt, "greater", dx),
                         (operator.matmul, "matmul", simulated.to_simulated(_dense((6,), seed=1)))]:
        op(v, dA)
        with counting() as by_operator:
            op(v, dA)
        with counting() as by_function:
            getattr(sp, fname)(v, dA)
        assert by_operator.syncs == by_function.syncs, (fname, by_operator.sites, by_function.sites)
        assert by_operator.uploads == by_function.uploads, (fname, by_operator.upload_sites, by_function.upload_sites)
        if fname == "matmul":
            assert by_operator.syncs == 0, by_operator.sites


# ---- index keys held on the host ---------------------------------------------------------------------

_M6 = np.array([True, False, True, False, False, True])
_M8 = np.array([False, True, True, False, False, False, True, False])

#: name -> (the key (NumPy arrays, lists, ints, slices), the shapes it applies to)
KEYS = {
    "int array": (np.array([3, 0, 3]), MATRICES + ["coo-hybrid"]),
    "negative": (np.array([-1, 2]), MATRICES + ["coo-hybrid"]),
    "empty": (np.array([], dtype=np.int64), MATRICES),
    "mask rows": (_M6, MATRICES + ["coo-hybrid"]),
    "mask both": (np.random.default_rng(0).random((6, 8)) < 0.4, MATRICES + ["coo-hybrid"]),
    "array, slice": ((np.array([1, 0]), slice(1, None)), MATRICES + ["coo-hybrid"]),
    "slice, array": ((slice(None), np.array([2, 0, 7])), MATRICES + ["coo-hybrid"]),
    "array, int": ((np.array([1, 0, 5]), 2), MATRICES + ["coo-hybrid"]),
    "int, mask": ((2, _M8), MATRICES + ["coo-hybrid"]),
    "broadcast": ((np.array([[0], [5]]), np.array([1, 2, 7])), MATRICES),
    "list": ([3, 0], MATRICES + ["coo-hybrid"]),
    "bool list": (_M6.tolist(), MATRICES),
    "None, array": ((None, np.array([1, 0])), MATRICES),
    "ellipsis, array": ((Ellipsis, np.array([1, 0])), MATRICES + ["coo-hybrid"]),
    "batch, array": ((1, np.array([4, 0])), ["csr-batched"]),
    "batch array": (np.array([1, 0, 1]), ["csr-batched"]),
    "batch mask": (np.array([False, True]), ["csr-batched"]),
    "batch list, slice": (([1, -2], slice(2, 5)), ["csr-batched"]),
    "hybrid dense dim": ((slice(None), slice(None), np.array([2, 0])), ["coo-hybrid"]),
}
KEY_CASES = [(k, s) for k, (_, shapes) in KEYS.items() for s in shapes]


def _device_key(key, place):
    """The same key with its arrays and lists on the device (what CuPy would make of it)."""
    items = key if isinstance(key, tuple) else (key,)
    out = tuple(_to_place(np.asarray(k), place) if isinstance(k, (np.ndarray, list)) else k for k in items)
    return out if isinstance(key, tuple) else out[0]


def _host_arrays(key):
    return sum(1 for k in (key if isinstance(key, tuple) else (key,)) if isinstance(k, (np.ndarray, list)))


@pytest.mark.parametrize("place", PLACES)
@pytest.mark.parametrize(("key_name", "shape_name", "fill"), _fill_cycle(KEY_CASES, [f"{k}-{s}" for k, s in KEY_CASES]))
def test_host_index_keys_on_a_device_array(key_name, shape_name, fill, place):
    key = KEYS[key_name][0]
    D, A = _sparse(shape_name, fill, seed=len(key_name) + len(shape_name))
    dA = _to_place(A, place)
    want = D[key]
    got = dA[key]
    assert _on_place(got, place)
    g = _host(got)
    assert g.shape == want.shape, (g.shape, want.shape)
    np.testing.assert_array_equal(g, want)
    np.testing.assert_array_equal(g, _host(dA[_device_key(key, place)]))  # as the same key on the device


@pytest.mark.parametrize("layout", MATRICES)
def test_a_host_key_is_copied_once_and_read_on_the_host_without_a_wait(layout):
    """The key's mask ``nonzero`` and its bounds are read on the host copy: no sync from them
    (the same key on the device waits for both); each host array is one upload."""
    D, A = _sparse(layout, 1.5, seed=11)
    dA = A.to_device("simulated")
    for key in (np.array([3, 0, 3]), _M6, (np.array([1, 0]), slice(1, None)), (np.array([1, 0, 5]), 2), (2, _M8)):
        dA[key]
        with counting() as host:
            r = dA[key]
        with counting() as device_key:
            dA[_device_key(key, "simulated")]
        np.testing.assert_array_equal(_host(r), D[key])
        reads = [s for s in host.sites if s.endswith((" _check_bounds", " _parse"))]
        assert not reads, reads
        assert host.syncs < device_key.syncs, (host.sites, device_key.sites)
        assert host.uploads >= _host_arrays(key), host.upload_sites


@pytest.mark.parametrize("place", PLACES)
@pytest.mark.parametrize("key", [np.array([0.5, 1.0]), np.array(["a"])], ids=["float", "str"])
def test_a_host_key_of_another_dtype_is_refused_naming_it(key, place):
    dA = _to_place(_sparse("csr", 0.0, seed=1)[1], place)
    with pytest.raises(IndexError, match=r"valid indices; got array\("):
        dA[key]


@pytest.mark.parametrize("place", PLACES)
@pytest.mark.parametrize("layout", ["coo", "csr", "bsc"])
def test_host_key_errors_are_numpys(layout, place):
    D, A = _sparse(layout, 0.0, seed=3)
    dA = _to_place(A, place)
    with pytest.raises(IndexError, match="index 6 is out of bounds for axis 0 with size 6"):
        dA[np.array([0, 6])]
    with pytest.raises(IndexError, match="index -9 is out of bounds for axis 1 with size 8"):
        dA[:, np.array([-9])]
    with pytest.raises(IndexError, match="boolean index did not match"):
        dA[np.array([True, False])]


SET_KEYS = ["int array", "negative", "mask rows", "mask both", "array, slice", "array, int", "int, mask", "list", "broadcast"]


SET_CASES = [(k, layout) for k in SET_KEYS for layout in MATRICES]


@pytest.mark.parametrize("place", PLACES)
@pytest.mark.parametrize(("key_name", "layout", "fill"), _fill_cycle(SET_CASES, [f"{k}-{layout}" for k, layout in SET_CASES]))
def test_assignment_through_a_host_key_on_a_device_array(key_name, layout, fill, place):
    key = KEYS[key_name][0]
    D, A = _sparse(layout, fill, seed=len(key_name) * 5)
    for value in (2.5, fill):
        want = D.copy()
        want[key] = value
        dA = _to_place(A, place)
        dA[key] = value
        assert _on_place(dA, place) and dA.layout == A.layout
        np.testing.assert_array_equal(_host(dA), want)
    # a device value broadcast over the selection's last dim
    want = D.copy()
    sel = D[key]
    v = _dense(sel.shape[-1:], seed=2)
    want[key] = v
    dA = _to_place(A, place)
    dA[key] = _to_place(v, place)
    np.testing.assert_array_equal(_host(dA), want)


def test_the_simulated_array_copies_host_keys_as_cupy_does():
    """A dense device array indexed by host keys: each list or NumPy array is one upload (CuPy's
    ``_prepare_slice_list``), a mask one sync (its size comes from the data), ints and slices
    nothing; assignment takes the same keys."""
    a = np.arange(24.0).reshape(4, 6)
    x = simulated.to_simulated(a)
    for key, uploads, syncs in [((np.array([2, 0]), slice(1, None)), 1, 0), ([3, 1], 1, 0), ((1, [0, 5]), 1, 0),
                                (np.array([True, False, True, False]), 1, 1), ((slice(None), 2), 0, 0)]:
        with counting() as c:
            got = x[key]
        assert (c.uploads, c.syncs) == (uploads, syncs), (key, c.upload_sites, c.sites)
        np.testing.assert_array_equal(got.get(), a[key])
    x[np.array([0, 3]), [1, 2]] = -1.0
    a[np.array([0, 3]), [1, 2]] = -1.0
    np.testing.assert_array_equal(x.get(), a)
    assert x[[]].shape == (0, 6)  # an empty list is an empty index, not a mask
    assert not hasattr(x, "__index__")  # as CuPy's arrays: operator.index(x) is a TypeError, no read


def test_the_rule_modules_examples():
    import doctest

    from sparray._functions import host_keys
    from sparray.kernels.cuda import _cupy_rules

    for module in (_cupy_rules, host_keys, simulated):
        assert doctest.testmod(module).failed == 0, module.__name__


@pytest.mark.parametrize("key_name", ["int array", "mask rows", "mask both", "array, slice", "int, mask", "list", "broadcast"])
def test_host_keys_on_another_namespace_become_its_arrays(key_name):
    """The same copy for components of any namespace but NumPy's (array_api_strict here)."""
    xps = pytest.importorskip("array_api_strict")
    key = KEYS[key_name][0]
    D, _ = _sparse("csr", 1.5, seed=len(key_name))
    A = sp.asarray(xps.asarray(D), layout="csr", fill_value=1.5)
    got = A[key]
    assert type(got.values).__module__.startswith("array_api_strict")
    np.testing.assert_array_equal(np.asarray(got.to_dense()), D[key])
    A[key] = -2.0
    want = D.copy()
    want[key] = -2.0
    np.testing.assert_array_equal(np.asarray(A.to_dense()), want)
