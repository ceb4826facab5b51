"""Special values: signed zeros kept by the fill rule, and the standard's special cases where NumPy's differ.

The expected values are the standard's tables (array API 2024.12, ``floor_divide``, ``expm1``,
``tanh``, ``sign``), written out here, checked bit for bit (the sign of every zero, NaN as NaN):
on sparse arrays of every layout (value specified and as the fill), on dense operands through the
sparray namespace, and on array_api_strict components (the generic path).
"""

import math
import warnings

import array_api_strict as xs
import numpy as np
import pytest

import sparray
from sparray._core.fill import same_value

inf, nan = math.inf, math.nan
LAYOUTS = ["coo", "csr", "csc", "bsr", "bsc"]


def same_bits(got, expected):
    """Every element the same value with the same sign of zero (NaN matches NaN), part by part."""
    got, expected = np.asarray(got), np.asarray(expected, dtype=np.asarray(got).dtype)
    assert got.shape == expected.shape, (got.shape, expected.shape)
    import array_api_compat.numpy as npx

    ok = same_value(npx, got, expected)
    assert bool(np.all(ok)), f"got {got.tolist()}, expected {expected.tolist()}"


def as_sparse(values, layout, fill=0.0, dtype=None):
    """A 2-d (1, n) sparse array of ``layout`` holding ``values`` with ``fill``."""
    dense = np.asarray(values, dtype=dtype).reshape(1, -1)
    return sparray.asarray(dense, layout=layout, fill_value=fill, blocksize=(1, 1) if layout in ("bsr", "bsc") else None)


# --------------------------------------------------------------------------------------------------
# signed zeros and the fill rule


@pytest.mark.parametrize("layout", LAYOUTS)
def test_negative_zero_is_not_the_fill_plus_zero(layout):
    A = as_sparse([-0.0, 0.0, 1.0, -0.0], layout)
    assert A.nse == 3  # -0.0, 1.0, -0.0 specified; +0.0 unspecified
    same_bits(A.to_dense(), [[-0.0, 0.0, 1.0, -0.0]])
    same_bits(sparray.sin(A).to_dense(), [[-0.0, 0.0, math.sin(1.0), -0.0]])
    B = as_sparse([-0.0, 0.0, 2.0], layout, fill=-0.0)  # a -0.0 fill: the +0.0 is specified
    assert B.nse == 2
    same_bits(B.to_dense(), [[-0.0, 0.0, 2.0]])


@pytest.mark.parametrize("layout", LAYOUTS)
def test_complex_parts_and_nan_fill(layout):
    vals = np.array([complex(-0.0, 0.0), complex(0.0, -0.0), 0j, complex(nan, 0.0), complex(nan, nan)])
    A = as_sparse(vals, layout, fill=0j)
    assert A.nse == 4
    same_bits(A.to_dense()[0], vals)
    B = as_sparse(vals, layout, fill=complex(nan, 0.0))  # each part by the float rule
    assert B.nse == 4
    same_bits(B.to_dense()[0], vals)
    C = as_sparse([nan, 1.0, nan], layout, fill=nan)  # any NaN is the NaN fill
    assert C.nse == 1


def test_creation_keeps_signed_zeros():
    same_bits(sparray.asarray(-0.0).to_dense(), -0.0)
    F = sparray.full((3,), -0.0)
    assert F.nse == 0 and math.copysign(1.0, float(F.fill_value)) == -1.0
    Z = sparray.zeros((2,), fill_value=-0.0)  # +0.0 elements under a -0.0 fill are specified
    assert Z.nse == 2
    same_bits(Z.to_dense(), [0.0, 0.0])
    assert math.copysign(1.0, float(sparray.eye(2, fill_value=-0.0).fill_value)) == -1.0


def test_asarray_warns_when_most_entries_are_zeros_kept_for_their_sign():
    from sparray._layout.conversion import SIGNED_ZERO_WARNING

    D = np.zeros((64, 64))
    D[3, 5] = 2.0
    assert D.size >= SIGNED_ZERO_WARNING
    with pytest.warns(sparray.SparrayPerformanceWarning, match="zeros kept only for their sign"):
        A = sparray.asarray(-D)
    assert A.nse == D.size  # still exact: every -0.0 is stored
    same_bits(A.to_dense(), -D)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert sparray.asarray(-D + 0.0).nse == 1  # the documented way out
        assert (-sparray.asarray(D)).nse == 1
        assert sparray.asarray(-D[:8, :8]).nse == 64  # small inputs store their -0.0 without a word
        H = sparray.asarray(-D, fill_value=-0.0)  # a -0.0 fill leaves them unspecified
        assert H.nse == 1


def test_computed_patterns_keep_the_sign_of_zero():
    """Pruning a computed result follows the fill rule too: a zero-fill product whose one-sided
    positions hold -0.0 (0 * -4) keeps them, a sparse x dense product whose unspecified elements
    mix +0.0 and -0.0 is dense in fact (tests/test_signed_zeros.py has every layout and device)."""
    a, b = np.array([1.0, -2.0, 0.0, 0.0]), np.array([0.0, 3.0, -4.0, 0.0])
    R = sparray.asarray(a) * sparray.asarray(b)
    same_bits(R.to_dense(), a * b)  # [0.0, -6.0, -0.0, 0.0]
    P = sparray.asarray(np.abs(a)) * sparray.asarray(np.abs(b))  # no sign to keep: the intersection
    assert P.nse == 1
    D = np.array([0.0, 3.0, -4.0, 1.0])
    same_bits(np.asarray(sparray.asarray(a) * D), a * D)
    assert isinstance(sparray.asarray(a) * np.abs(D), sparray.COO)  # 0 * |D| is +0.0 everywhere: sparse
    S = sparray.asarray([-0.0, 2.0]) * sparray.asarray([5.0, 0.0])  # a stored -0.0 times 5 is stored
    same_bits(S.to_dense(), [-0.0, 0.0])


# --------------------------------------------------------------------------------------------------
# the standard's special cases

FLOOR_DIVIDE = [  # (x1, x2, expected) from the standard's table for floor_divide
    (inf, 2.0, inf), (inf, -2.0, -inf), (-inf, 2.0, -inf), (-inf, -2.0, inf),
    (1.0, inf, 0.0), (1.0, -inf, -0.0), (-1.0, inf, -0.0), (-1.0, -inf, 0.0),
    (0.0, 2.0, 0.0), (-0.0, 2.0, -0.0), (0.0, -2.0, -0.0), (-0.0, -2.0, 0.0),
    (1.0, 0.0, inf), (1.0, -0.0, -inf), (-1.0, 0.0, -inf), (-1.0, -0.0, inf),
    (inf, inf, nan), (0.0, 0.0, nan), (nan, 1.0, nan), (7.0, 2.0, 3.0), (-7.0, 2.0, -4.0),
]  # fmt: skip
EXPM1 = [  # (x, expected) from the standard's complex table for expm1
    (complex(0.0, 0.0), complex(0.0, 0.0)), (complex(-0.0, 0.0), complex(0.0, 0.0)),
    (complex(inf, 0.0), complex(inf, 0.0)), (complex(inf, -0.0), complex(inf, -0.0)),
    (complex(inf, inf), complex(inf, nan)), (complex(inf, nan), complex(inf, nan)),
    (complex(-inf, inf), complex(-1.0, 0.0)), (complex(-inf, nan), complex(-1.0, 0.0)),
    (complex(nan, 0.0), complex(nan, 0.0)), (complex(nan, -0.0), complex(nan, -0.0)),
    (complex(nan, 1.0), complex(nan, nan)), (complex(1.0, inf), complex(nan, nan)),
    (complex(-inf, 2.0), complex(-1.0, 0.0)),
]  # fmt: skip
TANH = [
    (complex(inf, 2.0), complex(1.0, 0.0)), (complex(inf, -2.0), complex(1.0, -0.0)),
    (complex(-inf, 2.0), complex(-1.0, 0.0)), (complex(-inf, -2.0), complex(-1.0, -0.0)),
    (complex(0.0, 0.0), complex(0.0, 0.0)),
]  # fmt: skip
SIGN = [
    (complex(-0.0, 0.0), 0j), (complex(0.0, -0.0), 0j), (complex(-0.0, -0.0), 0j),
    (complex(nan, 1.0), complex(nan, nan)), (complex(1.0, nan), complex(nan, nan)), (complex(0.0, 2.0), 1j), (complex(-5.0, 0.0), complex(-1.0, 0.0)),
]  # fmt: skip
UNARY_TABLES = {"expm1": EXPM1, "tanh": TANH, "sign": SIGN}


@pytest.mark.parametrize("layout", LAYOUTS)
def test_floor_divide_table(layout):
    x1 = np.array([c[0] for c in FLOOR_DIVIDE])
    x2 = np.array([c[1] for c in FLOOR_DIVIDE])
    want = np.array([c[2] for c in FLOOR_DIVIDE])
    with np.errstate(all="ignore"):
        same_bits(sparray.floor_divide(as_sparse(x1, layout), as_sparse(x2, layout, fill=2.0)).to_dense()[0], want)
        same_bits((as_sparse(x1, layout, fill=inf) // as_sparse(x2, layout, fill=-2.0)).to_dense()[0], want)
        same_bits(sparray.floor_divide(x1, x2), want)  # dense operands through the namespace
        for a, b, w in FLOOR_DIVIDE:  # each case as the fill of a 0-d array and with a Python scalar
            same_bits(sparray.floor_divide(sparray.asarray(a), b).to_dense(), w)
            same_bits(sparray.floor_divide(a, sparray.asarray(b)).to_dense(), w)
            A = sparray.full((2,), a)
            A //= b
            same_bits(A.to_dense(), [w, w])


def test_floor_divide_integers_and_float32_unchanged():
    a, b = np.array([7, -7, 3], np.int64), np.array([2, 2, -1], np.int64)
    with np.errstate(all="ignore"):  # the fill of the result is 0 // 0
        np.testing.assert_array_equal(sparray.floor_divide(sparray.asarray(a), sparray.asarray(b)).to_dense(), a // b)
    x = sparray.asarray(np.array([inf, -1.0], np.float32))
    with np.errstate(all="ignore"):
        out = sparray.floor_divide(x, np.float32(2.0))
    assert out.dtype == sparray.float32
    same_bits(out.to_dense(), np.array([inf, -1.0], np.float32))


@pytest.mark.parametrize("name", list(UNARY_TABLES))
@pytest.mark.parametrize("layout", LAYOUTS)
def test_complex_unary_tables(name, layout):
    table = UNARY_TABLES[name]
    x = np.array([c[0] for c in table])
    want = np.array([c[1] for c in table])
    f = getattr(sparray, name)
    with np.errstate(all="ignore"):
        same_bits(f(as_sparse(x, layout)).to_dense()[0], want)
        same_bits(f(x), want)  # dense
        for v, w in table:  # the special value as the fill
            R = f(sparray.full((1, 2), v, layout=layout, blocksize=(1, 1) if layout in ("bsr", "bsc") else None))
            assert R.nse == 0
            same_bits(R.fill_value, w)
        same_bits(f(as_sparse(x.astype(np.complex64), layout)).to_dense()[0], want.astype(np.complex64))


def test_array_api_strict_components():
    """The generic path computes the same answers from pure array API code."""
    with np.errstate(all="ignore"):
        A = sparray.asarray(xs.asarray([[inf, -1.0, -0.0]]))
        assert A.nse == 3
        same_bits(np.asarray(sparray.floor_divide(A, 2.0).to_dense()._array), [[inf, -1.0, -0.0]])
        same_bits(np.asarray((A // inf).to_dense()._array), [[nan, -0.0, -0.0]])
        Z = sparray.asarray(xs.asarray([complex(inf, 0.0), complex(-0.0, 0.0)]))
        same_bits(np.asarray(sparray.expm1(Z).to_dense()._array), [complex(inf, 0.0), 0j])
        S = sparray.asarray(xs.asarray([complex(2.0, 0.0), complex(-0.0, 0.0)]))
        same_bits(np.asarray(sparray.sign(S).to_dense()._array), [complex(1.0, 0.0), 0j])
