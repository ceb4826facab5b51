"""Host syncs of element-wise ops, coalescing and layout conversions on the simulated CUDA device.

Every public call below runs on ``to_device("simulated")`` data and its waits for the device
(``simulated.counting``: scalar reads, ``tolist``, data-sized results) are counted op by op:

- zero waits: two operands of one pattern (``A + A * 2``, ``A * exp(A)``, ``maximum``), element-wise
  ops with scalars, and conversions between compressed layouts (CSR <-> CSC, BSR/BSC -> CSR/CSC,
  BSR <-> BSC) and from them to COO;
- at most one wait where the result's size depends on the data: two different patterns
  (``A + B``, ``A * B``, ``maximum(A, B)``), ``coalesce`` and COO -> CSR/CSC of a COO built by the
  user.

Counts are asserted, never times; every result is checked against dense NumPy (fills 0, 1.5 and
nan) and must stay on the device.
"""

from __future__ import annotations

import numpy as np
import pytest

import sparray as sp
from cuda_testing import requires_gxx
from sparray.kernels.cuda import simulated
from sparray.kernels.cuda.simulated import counting, to_simulated

pytestmark = requires_gxx

LAYOUTS = ["coo", "csr", "csc", "bsr", "bsc"]
COMPRESSED = ["csr", "csc", "bsr", "bsc"]
FILLS = [0.0, 1.5, float("nan")]
BLOCK = {"bsr": (2, 2), "bsc": (3, 2)}
SHAPE = (6, 8)


def _dense(seed, fill, shape=SHAPE, p=0.35):
    rng = np.random.default_rng(seed)
    d = np.round(rng.standard_normal(shape) * 4) / 4
    return np.where(rng.random(shape) < p, d, fill)


def _host(dense, layout, fill):
    kw = {"blocksize": BLOCK[layout]} if layout in BLOCK else {}
    return sp.asarray(dense, layout=layout, fill_value=fill, **kw)


def _dev(dense, layout, fill):
    return _host(dense, layout, fill).to_device("simulated")


def _components(A):
    names = ("indices",) if A.layout == "coo" else ("compressed_indices", "plain_indices")
    return [A.values, *(getattr(A, n) for n in names)]


def _check(result, expected, layout=None):
    assert isinstance(result, sp.SparseArray)
    assert all(simulated.is_simulated(c) for c in _components(result)), "the result left the device"
    if layout is not None:
        assert result.layout == layout
    np.testing.assert_array_equal(result.to_device("cpu").to_dense(), expected)


def _counted(op):
    """``op()`` once (warm), then once more counted: (result, counts)."""
    op()
    with counting() as c:
        r = op()
    return r, c


# ---- one pattern: no wait ----------------------------------------------------------------------

ONE_PATTERN = {
    "A + A * 2": (lambda A: A * 2.0, lambda A, B: A + B, lambda a, b: a + b),
    "A * exp(A)": (sp.exp, lambda A, B: A * B, lambda a, b: a * b),
    "maximum(A, -A)": (lambda A: -A, sp.maximum, np.maximum),
    "A - abs(A)": (sp.abs, lambda A, B: A - B, lambda a, b: a - b),
}


@pytest.mark.parametrize("fill", FILLS)
@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("case", list(ONE_PATTERN))
def test_one_pattern_takes_no_sync(case, layout, fill):
    derive, op, dense_op = ONE_PATTERN[case]
    a = _dense(1, fill)
    A = _dev(a, layout, fill)
    B = derive(A)
    b = B.to_device("cpu").to_dense()
    r, c = _counted(lambda: op(A, B))
    assert c.syncs == 0, c.sites
    with np.errstate(all="ignore"):
        _check(r, dense_op(a, b), layout)


@pytest.mark.parametrize("layout", LAYOUTS)
def test_scalar_ops_take_no_sync(layout):
    a = _dense(2, 0.0)
    A = _dev(a, layout, 0.0)
    for op, dense_op in ((lambda X: X - 2.0, lambda x: x - 2.0), (lambda X: sp.abs(-X), np.abs),
                         (lambda X: X * 3.0, lambda x: x * 3.0), (lambda X: X > 0.5, lambda x: x > 0.5)):
        r, c = _counted(lambda: op(A))
        assert c.syncs == 0, c.sites
        _check(r, dense_op(a), layout)


# ---- two patterns: one wait (the result's size) ------------------------------------------------

TWO_PATTERNS = {
    "A + B": (lambda A, B: A + B, lambda a, b: a + b),
    "A - B": (lambda A, B: A - B, lambda a, b: a - b),
    "A * B": (lambda A, B: A * B, lambda a, b: a * b),
    "maximum(A, B)": (sp.maximum, np.maximum),
    "minimum(A, B)": (sp.minimum, np.minimum),
}


@pytest.mark.parametrize("fill", FILLS)
@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("case", list(TWO_PATTERNS))
def test_two_patterns_take_one_sync(case, layout, fill):
    op, dense_op = TWO_PATTERNS[case]
    a, b = _dense(3, fill), _dense(4, fill)
    A, B = _dev(a, layout, fill), _dev(b, layout, fill)
    r, c = _counted(lambda: op(A, B))
    assert c.syncs <= 1, c.sites
    with np.errstate(all="ignore"):
        _check(r, dense_op(a, b), layout)


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("where_inf", ["neither", "a", "b", "both"])
def test_product_pattern_decided_on_the_device(layout, where_inf):
    """``A * B`` with a zero fill keeps the intersection, unless a side holds inf or nan (0 * inf is
    nan): then that side's positions stay (left, right or union); one wait whatever the case."""
    a, b = _dense(5, 0.0), _dense(6, 0.0)
    if where_inf in ("a", "both"):
        a[np.nonzero(a)[0][0], np.nonzero(a)[1][0]] = np.inf
    if where_inf in ("b", "both"):
        b[np.nonzero(b)[0][-1], np.nonzero(b)[1][-1]] = np.nan
    A, B = _dev(a, layout, 0.0), _dev(b, layout, 0.0)
    r, c = _counted(lambda: A * B)
    assert c.syncs <= 1, c.sites
    with np.errstate(all="ignore"):
        _check(r, a * b, layout)
    h = _host(a, layout, 0.0) * _host(b, layout, 0.0)
    assert r.nse == h.nse  # the same pattern as the host computes


@pytest.mark.parametrize("layout", LAYOUTS)
def test_equal_patterns_in_different_arrays(layout):
    """Equal but distinct index arrays are merged (the comparison would cost a wait too)."""
    a = _dense(7, 0.0)
    A = _dev(a, layout, 0.0)
    B = _dev(a * 3.0, layout, 0.0)
    for op, dense_op in ((lambda X, Y: X + Y, lambda x, y: x + y), (lambda X, Y: X * Y, lambda x, y: x * y)):
        r, c = _counted(lambda: op(A, B))
        assert c.syncs <= 1, c.sites
        _check(r, dense_op(a, a * 3.0), layout)
        assert r.nse == A.nse


# ---- conversions between compressed layouts: no wait ------------------------------------------

CONVERSIONS = [
    ("csr", "csc"), ("csc", "csr"), ("bsr", "csr"), ("bsr", "csc"), ("bsc", "csr"), ("bsc", "csc"),
    ("bsr", "bsc"), ("bsc", "bsr"), ("csr", "coo"), ("csc", "coo"), ("bsr", "coo"), ("bsc", "coo"),
]  # fmt: skip


@pytest.mark.parametrize("fill", FILLS)
@pytest.mark.parametrize(("src", "dst"), CONVERSIONS)
def test_conversions_take_no_sync(src, dst, fill):
    a = _dense(8, fill)
    A = _dev(a, src, fill)
    kw = {"blocksize": A.blocksize} if dst in BLOCK else {}
    r, c = _counted(lambda: A.to_layout(dst, **kw))
    assert c.syncs == 0, c.sites
    _check(r, a, dst)
    if dst == "coo":
        assert r.is_coalesced


def test_transpose_round_trip_batched():
    a = _dense(9, 0.0, shape=(2, 5, 6))
    A = sp.asarray(a, layout="csr", sparse_ndim=2).to_device("simulated")
    r, c = _counted(lambda: A.to_layout("csc").to_layout("csr"))
    assert c.syncs == 0, c.sites
    _check(r, a, "csr")


def test_batched_blocked_to_unblocked():
    """Batches of a BSR hold one block count; whether the CSR needs padding is one read."""
    a = _dense(11, 0.0, shape=(3, 4, 6))
    A = sp.asarray(a, layout="bsr", blocksize=(2, 2)).to_device("simulated")
    for dst in ("csr", "csc", "coo"):
        r, c = _counted(lambda: A.to_layout(dst))
        assert c.syncs <= (0 if dst == "coo" else 1), c.sites
        _check(r, a, dst)


# ---- coalesce and COO -> compressed of a user's COO: one wait ----------------------------------

_IDX = np.array([[3, 0, 3, 1, 0, 5, 2], [2, 1, 2, 0, 1, 7, 2]])
_VALS = np.array([1.0, 2.0, 4.0, -1.0, 0.5, 3.0, 2.5])


def _user_dense():
    d = np.zeros(SHAPE)
    np.add.at(d, tuple(_IDX), _VALS)
    return d


def _user_coo(on_device):
    if on_device:  # built on the device: checked at its first use
        return sp.COO(to_simulated(_IDX), to_simulated(_VALS), shape=SHAPE)
    return sp.COO(_IDX, _VALS, shape=SHAPE).to_device("simulated")  # checked on the host


USER_OPS = {
    "coalesce": (lambda U: U.coalesce(), "coo"),
    "to csr": (lambda U: U.to_layout("csr"), "csr"),
    "to csc": (lambda U: U.to_layout("csc"), "csc"),
    "coalesce to csr": (lambda U: U.coalesce().to_layout("csr"), "csr"),
}


@pytest.mark.parametrize("case", list(USER_OPS))
def test_user_coo_takes_one_sync(case):
    op, layout = USER_OPS[case]
    U = _user_coo(on_device=False)
    with counting() as c:
        r = op(U)
    assert c.syncs <= 1, c.sites
    _check(r, _user_dense(), layout)
    U = _user_coo(on_device=True)
    op(U)  # its first use checks its indices (once per array)
    with counting() as c:
        r = op(U)
    assert c.syncs <= 1, c.sites
    _check(r, _user_dense(), layout)


def test_coalesced_coo_to_compressed_takes_no_sync():
    a = _dense(10, 0.0)
    A = _dev(a, "coo", 0.0)
    for layout in ("csr", "csc"):
        r, c = _counted(lambda: A.to_layout(layout))
        assert c.syncs == 0, c.sites
        _check(r, a, layout)


# ---- kernels called directly still check their indices ----------------------------------------


def test_direct_launches_still_raise_for_bad_indices():
    from sparray.kernels.cuda import coalesce as cuda_coalesce
    from sparray.kernels.cuda import compress
    from sparray.kernels.cuda._trust import proven_inputs

    off, minor, vals = (to_simulated(x) for x in (np.array([0, 1, 2]), np.array([0, 9]), np.ones((2, 1))))
    with pytest.raises(ValueError, match="minor"):
        compress.transpose_compressed(off, minor, vals, 1, 2, 3, np.int64)
    with pytest.raises(ValueError, match="offsets"):
        compress.expand_offsets(to_simulated(np.array([0, 2, 1])), np.int64)
    with pytest.raises(ValueError, match=">= 0"):
        cuda_coalesce.coalesce(to_simulated(np.array([3, -1])), to_simulated(np.ones((2, 1))))
    good = to_simulated(np.array([1, 2]))
    with proven_inputs(), counting() as c:  # the registry's calls: the reports stay unread
        compress.transpose_compressed(off, good, vals, 1, 2, 3, np.int64)
    assert c.syncs == 0, c.sites
