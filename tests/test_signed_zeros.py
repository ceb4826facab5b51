"""Signed zeros kept exactly: an element is unspecified only when it has the fill's bits.

The rule (``sparray._core.fill.same_value``, docs/fill_value.md): floats equal with the same sign
of zero, any NaN matching a NaN fill, complex part by part. Every case is checked against dense
NumPy bit for bit (the sign of every zero, nan where NumPy has nan, the values equal), on every
layout (COO, CSR, CSC, BSR, BSC, a batched CSR and hybrid COO/CSR), on the CPU and on the
simulated CUDA device (and on a GPU where one is): dense -> sparse conversion, conversions between
layouts and devices, element-wise results (the fill as NumPy computes it too), products, outer,
reductions, concatenation.
"""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest
from places_testing import PLACES
from places_testing import dense_on_host as _host
from places_testing import to_place as _place

import sparray as sp

FILLS = [0.0, -0.0, 1.5, math.nan]
FILL_IDS = ["fill+0", "fill-0", "fill1.5", "fillnan"]

#: name -> (dense shape, sparse_ndim (None: every dim), layout, blocksize)
CASES = {
    "coo": ((6, 8), None, "coo", None),
    "csr": ((6, 8), None, "csr", None),
    "csc": ((6, 8), None, "csc", None),
    "bsr": ((6, 8), None, "bsr", (2, 2)),
    "bsc": ((6, 8), None, "bsc", (3, 2)),
    "csr-batched": ((2, 4, 6), None, "csr", None),
    "coo-hybrid": ((5, 6, 3), 2, "coo", None),
    "csr-hybrid": ((4, 6, 2), 2, "csr", None),
}


def same_bits(got, want, ctx=""):
    """Equal values, the same sign of every zero, nan exactly where ``want`` has nan (part by part)."""
    got, want = np.asarray(got), np.asarray(want)
    assert got.shape == want.shape, (ctx, got.shape, want.shape)
    for g, w in ((got.real, want.real), (got.imag, want.imag)) if want.dtype.kind == "c" else ((got, want),):
        nan = np.isnan(w)
        assert np.array_equal(np.isnan(g), nan), f"{ctx}: nan at {np.argwhere(np.isnan(g) != nan).tolist()}"
        assert np.array_equal(g[~nan], w[~nan]), f"{ctx}: values differ"
        bad = np.signbit(g) != np.signbit(w)
        assert not bad[~nan].any(), f"{ctx}: sign differs at {np.argwhere(bad & ~nan).tolist()}: got {g[bad & ~nan]}"


def signed_dense(rng, shape, special=False):
    """Random floats where about half the elements are zeros of either sign, with negatives
    (and, with ``special``, inf, -inf and nan)."""
    pool = [-0.0, 0.0, 0.0, -0.0, -0.0, 0.0, -2.5, 1.5, 3.0, -1.0]
    if special:
        pool += [math.inf, -math.inf, math.nan]
    return rng.choice(np.array(pool), size=shape)


def _host_fill(A):
    f = A.fill_value
    return f.get() if hasattr(f, "get") else np.asarray(f)


def _sparse(D, case, fill, place="cpu"):
    _, s, layout, block = CASES[case]
    kw = {"blocksize": block} if block else {}
    if s is not None:
        kw["sparse_ndim"] = s
    return _place(sp.asarray(D, layout=layout, fill_value=fill, **kw), place)


def _not_fill(D, fill, s):
    """Positions (over the first ``s`` dims) that hold an element without the fill's bits."""
    f = np.float64(fill)
    same = ((D == f) & (np.signbit(D) == np.signbit(f))) | (np.isnan(D) & np.isnan(f))
    diff = ~same
    return diff.reshape(*D.shape[:s], -1).any(axis=-1) if s < D.ndim else diff


# ---- dense -> sparse and back ------------------------------------------------------------------


@pytest.mark.parametrize("place", PLACES)
@pytest.mark.parametrize("fill", FILLS, ids=FILL_IDS)
@pytest.mark.parametrize("case", list(CASES))
def test_dense_to_sparse_stores_every_element_without_the_fills_bits(case, fill, place):
    shape, s, layout, block = CASES[case]
    rng = np.random.default_rng(len(case) + 7)
    D = signed_dense(rng, shape, special=True)
    s = len(shape) if s is None else s
    kw = {"blocksize": block} if block else {}
    for A in (_sparse(D, case, fill, place), sp.asarray(_place(D, place), layout=layout, fill_value=fill,
                                                         sparse_ndim=s, **kw)):
        same_bits(_host(A), D, f"{case} {place}")
        same_bits(_host_fill(A), np.float64(fill), "fill")
        if layout in ("coo", "csr", "csc") and not getattr(A, "batch_ndim", 0):  # blocks, batches: padded
            assert A.nse == int(_not_fill(D, fill, s).sum())
        for other in ("coo", "csr", "csc", "bsr", "bsc"):
            if other in ("bsr", "bsc") and (A.dense_ndim or A.ndim - A.dense_ndim != 2):
                continue
            B = A.to_layout(other, blocksize=(2, 2) if other in ("bsr", "bsc") else None)
            same_bits(_host(B), D, f"{case} -> {other}")


def test_negative_zero_under_each_fill():
    """The smallest cases, written out: -0.0 against +0.0 and the reverse; nan payloads do not matter."""
    A = sp.asarray(np.array([-0.0, 0.0, 1.0]))
    assert A.nse == 2 and np.signbit(np.asarray(A.values)[0])
    B = sp.asarray(np.array([-0.0, 0.0, 1.0]), fill_value=-0.0)
    assert B.nse == 2 and not np.signbit(np.asarray(B.values)[0])
    payload = np.array([0x7FF8000000000001, 0xFFF8000000000000], dtype=np.uint64).view(np.float64)
    C = sp.asarray(np.concatenate([payload, [2.0]]), fill_value=math.nan)  # any nan is a nan fill
    assert C.nse == 1
    Z = sp.asarray(np.array([complex(0.0, -0.0), complex(-0.0, 0.0), 0j]))
    assert Z.nse == 2
    same_bits(Z.to_dense(), np.array([complex(0.0, -0.0), complex(-0.0, 0.0), 0j]))


# ---- element-wise ------------------------------------------------------------------------------

UNARY = {
    "negative": (lambda a: -a, np.negative),
    "positive": (lambda a: +a, np.positive),
    "abs": (sp.abs, np.abs),
    "a * -2": (lambda a: a * -2.0, lambda a: a * -2.0),
    "a / -4": (lambda a: a / -4.0, lambda a: a / -4.0),
    "a + 0.0": (lambda a: a + 0.0, lambda a: a + 0.0),
    "a - 0.0": (lambda a: a - 0.0, lambda a: a - 0.0),
    "sqrt": (sp.sqrt, np.sqrt),
    "sin": (sp.sin, np.sin),
    "round": (sp.round, np.round),
    "ceil": (sp.ceil, np.ceil),
}

BINARY = {
    "a * b": (lambda a, b: a * b, np.multiply),
    "a - b": (lambda a, b: a - b, np.subtract),
    "a + b": (lambda a, b: a + b, np.add),
    "a / b": (lambda a, b: a / b, np.divide),
    "copysign": (sp.copysign, np.copysign),
}  # (maximum and minimum of -0.0 and +0.0: the standard leaves the sign open, and the kernels differ)


@pytest.mark.parametrize("place", PLACES)
@pytest.mark.parametrize("fill", FILLS, ids=FILL_IDS)
@pytest.mark.parametrize("case", list(CASES))
@pytest.mark.parametrize("op", list(UNARY))
def test_unary_results_and_fills_have_numpys_bits(op, case, fill, place):
    sparse_op, dense_op = UNARY[op]
    rng = np.random.default_rng(len(op) * 3 + len(case))
    D = signed_dense(rng, CASES[case][0])
    A = _sparse(D, case, fill, place)
    with np.errstate(all="ignore"):
        R = sparse_op(A)
        want = dense_op(D)
        want_fill = dense_op(np.float64(fill))
    assert isinstance(R, sp.SparseArray)
    same_bits(_host(R), want, f"{op} {case} {place}")
    same_bits(_host_fill(R), want_fill, "fill")


@pytest.mark.parametrize("place", PLACES)
@pytest.mark.parametrize("fills", [(0.0, 0.0), (0.0, -0.0), (-0.0, -0.0), (1.5, 0.0), (math.nan, 0.0)], ids=str)
@pytest.mark.parametrize("case", list(CASES))
@pytest.mark.parametrize("op", list(BINARY))
def test_binary_results_keep_the_sign_of_zero(op, case, fills, place):
    """Two sparse operands (zero fills of either sign among them): the merged result, its pruning
    (multiply keeps a one-sided position that holds -0.0) and its fill all as NumPy's."""
    sparse_op, dense_op = BINARY[op]
    rng = np.random.default_rng(len(op) * 5 + len(case))
    a, b = signed_dense(rng, CASES[case][0]), signed_dense(rng, CASES[case][0])
    A, B = _sparse(a, case, fills[0], place), _sparse(b, case, fills[1], place)
    with np.errstate(all="ignore"):
        R = sparse_op(A, B)
        want = dense_op(a, b)
        want_fill = dense_op(np.float64(fills[0]), np.float64(fills[1]))
    same_bits(_host(R), want, f"{op} {case} {place}")
    same_bits(_host_fill(R), want_fill, "fill")


@pytest.mark.parametrize("place", PLACES)
@pytest.mark.parametrize("layout", ["coo", "csr", "csc", "bsr", "bsc"])
def test_multiply_prunes_what_it_may(layout, place):
    """Zero-fill multiply keeps the intersection when no one-sided value gives -0.0 (non-negative
    operands), and keeps the positions whose products with the other fill are -0.0 otherwise."""
    rng = np.random.default_rng(11)
    kw = {"blocksize": (2, 2)} if layout in ("bsr", "bsc") else {}
    a, b = np.abs(signed_dense(rng, (6, 8))), np.abs(signed_dense(rng, (6, 8)))
    a[a == 0], b[b == 0] = 0.0, 0.0  # +0.0 only: every zero is the fill
    A, B = (_place(sp.asarray(x, layout=layout, **kw), place) for x in (a, b))
    P = A * B
    same_bits(_host(P), a * b)
    if layout in ("coo", "csr", "csc"):
        assert P.nse == int(((a != 0) & (b != 0)).sum())  # the intersection
    a[0, 0], b[0, 0] = -3.0, 0.0  # a one-sided negative value: -3 * 0 is -0.0
    A, B = (_place(sp.asarray(x, layout=layout, **kw), place) for x in (a, b))
    P = A * B
    same_bits(_host(P), a * b)
    assert np.signbit(_host(P)[0, 0])


@pytest.mark.parametrize("place", PLACES)
@pytest.mark.parametrize("case", ["coo", "csr", "bsc", "coo-hybrid"])
def test_sparse_times_dense(case, place):
    """A * D: sparse when every unspecified element of the result has one value (the fill rule),
    else NumPy's dense answer; a D varying only along the dense part keeps the pattern."""
    rng = np.random.default_rng(13)
    shape = CASES[case][0]
    a = signed_dense(rng, shape)
    A = _sparse(a, case, 0.0, place)
    s = CASES[case][1] or len(shape)
    for D in (np.abs(rng.standard_normal(shape)) + 0.5, rng.standard_normal(shape), -np.ones(shape[-1:])):
        field = 0.0 * D  # the value of the result's unspecified elements
        sparse = D.ndim <= len(shape) - s or bool(np.all(np.signbit(field) == np.signbit(field.flat[0])))
        for got, want in ((A * _place(D, place), a * D), (sp.multiply(_place(D, place), A), D * a)):
            same_bits(_host(got), want, f"{case} {place}")
            assert isinstance(got, sp.SparseArray) == sparse


def test_fill_of_negative_is_negative_zero():
    """NumPy's bits for the fill too: -A of a +0.0 fill has fill -0.0; adding +0.0 back gives +0.0."""
    A = sp.asarray(np.array([[0.0, 2.0], [-0.0, 0.0]]), layout="csr")
    N = -A
    assert np.signbit(float(N.fill_value)) and N.nse == A.nse
    same_bits(N.to_dense(), -A.to_dense())
    P = N + 0.0
    assert not np.signbit(float(P.fill_value))
    same_bits(P.to_dense(), -A.to_dense() + 0.0)
    M = A * sp.asarray(np.array([[-1.0, 0.0], [0.0, 5.0]]), layout="csr")
    same_bits(M.to_dense(), A.to_dense() * np.array([[-1.0, 0.0], [0.0, 5.0]]))


# ---- outer -------------------------------------------------------------------------------------


@pytest.mark.parametrize("place", PLACES)
@pytest.mark.parametrize("fills", [(0.0, 0.0), (-0.0, 0.0), (0.0, 1.5), (math.nan, 0.0), (1.5, -0.0)], ids=str)
@pytest.mark.parametrize("sizes", [(7, 5), (1, 1), (4, 1)], ids=str)
def test_outer_keeps_the_sign_of_zero(sizes, fills, place):
    rng = np.random.default_rng(sizes[0] * 10 + sizes[1])
    for trial in range(4):
        u, v = signed_dense(rng, (sizes[0],), special=trial == 3), signed_dense(rng, (sizes[1],))
        U, V = (_place(sp.asarray(x, fill_value=f), place) for x, f in zip((u, v), fills))
        with np.errstate(all="ignore"):
            want = np.outer(u, v)
            for got in (sp.linalg.outer(U, V), sp.linalg.outer(U, _place(v, place)), sp.linalg.outer(_place(u, place), V)):
                same_bits(_host(got), want, f"outer {u} {v} {fills}")


def test_outer_of_the_conformance_suite():
    """The array API suite's failing example: outer([-0.0], [0.0]) is [[-0.0]]."""
    R = sp.linalg.outer(sp.asarray(np.array([-0.0])), sp.asarray(np.array([0.0])))
    assert np.signbit(R.to_dense()[0, 0]) and R.nse == 1


def test_outer_warns_when_rows_stored_for_a_sign_dominate():
    from sparray.linalg._outer import SIGN_ONLY_WARNING

    n = 2 * SIGN_ONLY_WARNING
    u = sp.COO([[0, 1, 2]], [-1.0, -2.0, 3.0], shape=(n,))
    v = sp.COO([[5]], [2.0], shape=(n,))
    with pytest.warns(sp.SparrayPerformanceWarning, match="only for the sign"):
        R = sp.linalg.outer(u, v)
    assert R.nse == 2 * n + 1  # rows 0 and 1 in full (-0.0), and 3 * 2
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert sp.linalg.outer(sp.abs(u), v).nse == 3  # nothing to keep for its sign: no word


# ---- products and reductions -------------------------------------------------------------------


@pytest.mark.parametrize("place", PLACES)
@pytest.mark.parametrize("layout", ["coo", "csr", "csc", "bsr", "bsc"])
def test_matmul_zero_signs(layout, place):
    """Sums of products start from +0.0, as NumPy's matmul does: no -0.0 from a lone -0.0 term
    (short inner dims make sums of -0.0 terms only; the numba and generic paths both)."""
    rng = np.random.default_rng(17)
    kw = {"blocksize": (2, 2)} if layout in ("bsr", "bsc") else {}
    for trial, (m, k, n) in enumerate([(6, 8, 4), (6, 2, 4), (300, 4, 200)]):
        a, b = signed_dense(rng, (m, k)), signed_dense(rng, (k, n))
        A, B = (_place(sp.asarray(x, layout=layout, **kw), place) for x in (a, b))
        want = a @ b
        for got in (A @ B, A @ _place(b, place), sp.matmul(_place(a, place), B), sp.tensordot(A, B, axes=1)):
            same_bits(_host(got), want, f"matmul {layout} {place}")
        x = signed_dense(rng, (k,))
        same_bits(_host(sp.vecdot(A, _place(x, place))), np.vecdot(a, x), f"vecdot {layout} {place}")


@pytest.mark.parametrize("place", PLACES)
@pytest.mark.parametrize("fill", [0.0, -0.0], ids=["fill+0", "fill-0"])
@pytest.mark.parametrize("case", ["coo", "csr", "csc", "bsr", "bsc", "coo-hybrid"])
def test_sums_of_signed_zeros(case, fill, place):
    """sum and prod over each axis of arrays whose lines are all zeros of either sign: NumPy's
    sum starts from +0.0 (a sum of -0.0 is +0.0), prod keeps the sign of the product."""
    shape = CASES[case][0]
    rng = np.random.default_rng(19)
    D = rng.choice(np.array([-0.0, 0.0, -0.0]), size=shape)
    D[0] = -0.0
    A = _sparse(D, case, fill, place)
    for axis in range(A.ndim):
        same_bits(_host(sp.sum(A, axis=axis)), np.sum(D, axis=axis), f"sum axis={axis}")
        same_bits(_host(sp.prod(A, axis=axis)), np.prod(D, axis=axis), f"prod axis={axis}")


@pytest.mark.parametrize("place", PLACES)
def test_concat_of_fills_of_either_sign(place):
    a, b = np.array([[1.0, 0.0], [-0.0, 0.0]]), np.array([[0.0, -0.0], [2.0, 0.0]])
    A = _place(sp.asarray(a, layout="csr"), place)
    B = _place(sp.asarray(b, layout="csr", fill_value=-0.0), place)
    for axis in (0, 1):
        same_bits(_host(sp.concat([A, B], axis=axis)), np.concatenate([a, b], axis=axis))
