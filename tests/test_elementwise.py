"""Element-wise functions and operators against dense NumPy, fill values included (RFC points 8-9)."""

import math
import warnings

import array_api_compat.numpy as npx
import numpy as np
import pytest
from hypothesis import given
from sparray_testing import FILLS, LAYOUT_SHAPES, LAYOUTS, SHAPES, assert_matches_dense, coo_cases, make_coo, make_sparse

import sparray
from sparray._functions.elementwise import BINARY, UNARY
from sparray._functions.special_values import standard_function

FLOAT_UNARY = [n for n in UNARY if n not in ("bitwise_invert", "logical_not")]
FLOAT_BINARY = [n for n in BINARY if not n.startswith(("bitwise", "logical"))]
INT_BINARY = ["bitwise_and", "bitwise_or", "bitwise_xor", "bitwise_left_shift", "bitwise_right_shift",
              "floor_divide", "remainder", "add", "multiply", "maximum"]  # fmt: skip
BOOL_BINARY = ["logical_and", "logical_or", "logical_xor", "bitwise_and", "bitwise_or", "bitwise_xor", "equal"]


def np_func(name):
    """The reference: the same function of NumPy's array-API namespace (the identity is f(A).to_dense() == f(dense)),
    with the standard's special cases where NumPy's differ (floor_divide, expm1, tanh, sign; tested on their own
    in test_special_values.py)."""
    return standard_function(npx, name) or getattr(npx, name)


@pytest.fixture(autouse=True)
def _quiet():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        yield


def cases(rng, **kw):
    for shape, s in SHAPES:
        for fill in FILLS:
            for dup in (False, True):
                yield make_coo(rng, shape, s, density=0.5, fill=fill, duplicates=dup, dense_fill=dup, **kw)


@pytest.mark.parametrize("name", FLOAT_UNARY)
def test_unary_matches_dense(name, backend):
    rng = np.random.default_rng(1)
    f = getattr(sparray, name)
    for A, D in cases(rng):
        R = f(A)
        assert isinstance(R, sparray.COO)
        assert_matches_dense(R, np_func(name)(D), fill=np_func(name)(np.asarray(A.fill_value)))


@pytest.mark.parametrize("name", ["abs", "exp", "sqrt", "conj", "real", "imag", "square", "isnan", "sign"])
def test_unary_complex(name, backend):
    rng = np.random.default_rng(2)
    for A, D in cases(rng, dtype="complex128"):
        assert_matches_dense(getattr(sparray, name)(A), np_func(name)(D))


def test_unary_keeps_pattern_and_linear_ops_keep_duplicates():
    A = sparray.COO([[0, 2, 0]], [1.0, 2.0, 3.0], shape=(4,), fill_value=1.0)
    N = -A
    assert N.nse == 3 and not N.is_coalesced  # negative is linear: duplicates kept lazily
    np.testing.assert_array_equal(N.to_dense(), [-4.0, -1.0, -2.0, -1.0])
    E = sparray.exp(A)  # non-linear: coalesced first, exp(1 + 3) not exp(1) + exp(3)
    assert E.nse == 2 and E.is_coalesced
    np.testing.assert_allclose(E.to_dense(), np.exp([4.0, 1.0, 2.0, 1.0]))


@pytest.mark.parametrize("name", FLOAT_BINARY)
def test_binary_sparse_sparse(name, backend):
    rng = np.random.default_rng(3)
    f, g = getattr(sparray, name), np_func(name)
    for A, D in cases(rng):
        B, E = make_coo(rng, A.shape, A.sparse_ndim, density=0.3, fill=float(rng.choice([0.0, 2.0, np.inf])))
        R = f(A, B)
        assert isinstance(R, sparray.COO)
        assert_matches_dense(R, g(D, E), fill=g(np.asarray(A.fill_value), np.asarray(B.fill_value)))


@pytest.mark.parametrize("name", FLOAT_BINARY)
def test_binary_with_scalars(name, backend):
    rng = np.random.default_rng(4)
    f, g = getattr(sparray, name), np_func(name)
    for A, D in cases(rng):
        assert_matches_dense(f(A, 2.0), g(D, 2.0))
        assert_matches_dense(f(3.0, A), g(3.0, D))
        assert_matches_dense(f(A, np.asarray(0.5)), g(D, np.asarray(0.5)))


@pytest.mark.parametrize("name", FLOAT_BINARY)
def test_binary_with_dense_arrays(name, backend):
    rng = np.random.default_rng(5)
    f, g = getattr(sparray, name), np_func(name)
    for A, D in cases(rng):
        E = rng.standard_normal(A.shape)
        assert_matches_dense(f(A, E), g(D, E), check_dtype=False)
        assert_matches_dense(f(E, A), g(E, D), check_dtype=False)
        if A.ndim:
            row = rng.standard_normal(A.shape[-1])  # broadcasts along the last dim only
            assert_matches_dense(f(A, row), g(D, row), check_dtype=False)


@pytest.mark.parametrize("name", INT_BINARY)
def test_binary_integer(name, backend):
    rng = np.random.default_rng(6)
    f, g = getattr(sparray, name), np_func(name)
    for shape, s in SHAPES:
        A, D = make_coo(rng, shape, s, density=0.5, fill=3, dtype="int64", duplicates=True)
        B, E = make_coo(rng, shape, s, density=0.4, fill=1, dtype="int32")
        assert_matches_dense(f(A, B), g(D, E))
    assert_matches_dense(~A, ~D)


@pytest.mark.parametrize("name", BOOL_BINARY)
def test_binary_bool(name, backend):
    rng = np.random.default_rng(7)
    f, g = getattr(sparray, name), np_func(name)
    for shape, s in SHAPES:
        for fa, fb in [(False, False), (True, False), (True, True)]:
            A, D = make_coo(rng, shape, s, density=0.5, fill=fa, dtype="bool")
            B, E = make_coo(rng, shape, s, density=0.5, fill=fb, dtype="bool")
            assert_matches_dense(f(A, B), g(D, E), fill=g(np.asarray(fa), np.asarray(fb)))
    assert_matches_dense(sparray.logical_not(A), ~D)


def test_rfc_point_9_example():
    # A = [[1, *], [3, *]] fill 2; B = [[5, *], [*, 8]] fill 6 -> A + B = [[6, *], [9, 10]] fill 8
    A = sparray.COO([[0, 1], [0, 0]], [1, 3], shape=(2, 2), fill_value=2)
    B = sparray.COO([[0, 1], [0, 1]], [5, 8], shape=(2, 2), fill_value=6)
    C = A + B
    assert int(C.fill_value) == 8 and C.nse == 3
    np.testing.assert_array_equal(C.to_dense(), [[6, 8], [9, 10]])
    assert C.indices.tolist() == [[0, 1, 1], [0, 0, 1]] and C.values.tolist() == [6, 9, 10]


def test_rfc_signal_example():
    # a mostly-constant signal with fill 5, scaled and exponentiated, stays sparse and exact
    signal = sparray.COO([[3, 8, 9, 17]], [7.0, 6.0, 8.0, 9.0], shape=(1000001,), fill_value=5.0)
    potential = signal * -8.0
    conc = 3.0 * sparray.exp(-0.01 * potential)
    assert conc.nse == 4
    assert float(conc.fill_value) == pytest.approx(3.0 * math.exp(0.4))
    dense = np.full(1000001, 5.0)
    dense[[3, 8, 9, 17]] = [7, 6, 8, 9]
    np.testing.assert_allclose(conc.to_dense(), 3.0 * np.exp(-0.01 * (dense * -8.0)))


def test_multiply_zero_fill_is_intersection_unless_inf(backend):
    A = sparray.COO([[0, 1, 2]], [1.0, 2.0, 3.0], shape=(4,))
    B = sparray.COO([[1, 2, 3]], [4.0, 5.0, 6.0], shape=(4,))
    C = A * B
    assert C.nse == 2 and C.indices.tolist() == [[1, 2]]
    Binf = sparray.COO([[1, 3]], [4.0, np.inf], shape=(4,))
    Cinf = A * Binf  # 0 * inf at position 3 is nan: the pattern must keep it
    np.testing.assert_array_equal(Cinf.to_dense(), np.array([1.0, 2.0, 3.0, 0.0]) * np.array([0, 4, 0, np.inf]))
    L = A * sparray.COO([[1]], [2.0], shape=(4,), fill_value=1.0)  # B's fill 1 keeps A's positions
    assert L.indices.tolist() == [[0, 1, 2]]
    np.testing.assert_array_equal(L.to_dense(), [1.0, 4.0, 3.0, 0.0])


def test_sparse_times_dense_stays_sparse_sparse_plus_dense_is_dense(backend):
    A = sparray.COO([[0, 2]], [1.0, 2.0], shape=(3,))
    D = np.array([5.0, 6.0, 7.0])
    P = A * D
    assert isinstance(P, sparray.COO) and P.nse == 2
    np.testing.assert_array_equal(P.to_dense(), [5.0, 0.0, 14.0])
    S = A + D
    assert isinstance(S, np.ndarray)
    np.testing.assert_array_equal(S, [6.0, 6.0, 9.0])
    Dinf = np.array([5.0, np.inf, 7.0])
    Q = A * Dinf  # 0 * inf = nan at an unspecified position: not one fill any more
    np.testing.assert_array_equal(Q if isinstance(Q, np.ndarray) else Q.to_dense(), A.to_dense() * Dinf)


def test_broadcasting_sparse_sparse(backend):
    rng = np.random.default_rng(8)
    A, D = make_coo(rng, (3, 1, 4), density=0.5, fill=1.0)
    B, E = make_coo(rng, (5, 1), density=0.5, fill=2.0)
    R = A + B
    assert R.shape == (3, 5, 4)
    assert_matches_dense(R, D + E)
    with pytest.raises(ValueError, match="cannot be broadcast"):
        A + make_coo(rng, (3, 2, 5))[0]


def test_mixed_sparse_and_dense_dims(backend):
    rng = np.random.default_rng(9)
    A, D = make_coo(rng, (4, 3), 1, density=0.5, fill=1.0)  # hybrid: rows sparse, columns dense
    B, E = make_coo(rng, (4, 3), 2, density=0.5, fill=2.0)
    assert_matches_dense(A * B, D * E)
    assert_matches_dense(B - A, E - D)


def test_dense_part_fill_result_from_row_operand(backend):
    rng = np.random.default_rng(10)
    A, D = make_coo(rng, (5, 3), 1, density=0.4, fill=0.5)
    row = np.array([1.0, 2.0, 3.0])
    R = A * row
    assert R.nse == A.coalesce().nse
    assert R.fill_value.shape == (3,)
    assert_matches_dense(R, D * row, fill=0.5 * row)


def test_operators_forward_to_functions(backend):
    rng = np.random.default_rng(11)
    A, D = make_coo(rng, (4, 5), density=0.4, fill=1.0)
    B, E = make_coo(rng, (4, 5), density=0.4, fill=-2.0)
    for got, want in [
        (A + B, D + E), (A - B, D - E), (A * B, D * E), (A / B, D / E), (A // B, D // E), (A % B, D % E),
        (A**2, D**2), (2**A, 2**D), (1 - A, 1 - D), (-A, -D), (+A, +D), (abs(B), abs(E)),
        (A < B, D < E), (A <= B, D <= E), (A > B, D > E), (A >= B, D >= E), (A == B, D == E), (A != B, D != E),
        (D + A, D + D), (A + D, D + D),
    ]:  # fmt: skip
        assert_matches_dense(got, want, check_dtype=False)
    Ai, Di = make_coo(rng, (4, 5), density=0.4, fill=6, dtype="int64")
    for got, want in [(Ai & 3, Di & 3), (Ai | 1, Di | 1), (Ai ^ 5, Di ^ 5), (Ai << 1, Di << 1), (Ai >> 1, Di >> 1), (~Ai, ~Di)]:
        assert_matches_dense(got, want)


def test_clip(backend):
    rng = np.random.default_rng(12)
    for A, D in cases(rng):
        assert_matches_dense(sparray.clip(A, -0.5, 0.5), np.clip(D, -0.5, 0.5))


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("fill", FILLS, ids=str)
def test_clip_array_bounds(backend, layout, fill):
    """Array bounds (2023.12): sparse or dense, broadcast against x and each other (a bound may
    widen the result), nan in x or a bound gives nan, the result keeps x's dtype."""
    rng = np.random.default_rng(14)
    for shape, s, blocksize in LAYOUT_SHAPES:
        A, D = make_sparse(rng, layout, shape, s, blocksize, density=0.5, fill=fill)
        lo_s, lo = make_coo(rng, shape[-1:], density=0.5, fill=-0.25)  # sparse, along the last dim
        hi = rng.uniform(0.0, 1.0, shape[:-1] + (1,)) + 0.3  # dense NumPy, along the others
        if hi.size:
            hi[tuple(0 for _ in hi.shape)] = np.nan
        lo = np.minimum(lo, 0.2)
        lo_s = sparray.minimum(lo_s, 0.2)
        with np.errstate(invalid="ignore"):
            assert_matches_dense(sparray.clip(A, min=lo_s, max=sparray.asarray(hi)), np.clip(D, lo, hi))
            assert_matches_dense(sparray.clip(A, min=lo_s), np.clip(D, lo, None))
            assert_matches_dense(sparray.clip(A, max=hi), np.clip(D, None, hi))
            assert_matches_dense(sparray.clip(A, min=-0.5, max=sparray.asarray(hi)), np.clip(D, -0.5, hi))
    # a bound of higher rank widens the result, as broadcasting does
    A, D = make_sparse(rng, layout, (4, 6), 2, (2, 3), density=0.5, fill=fill)
    wide = rng.standard_normal((3, 4, 6))
    assert_matches_dense(sparray.clip(A, min=sparray.asarray(wide)), np.clip(D, wide, None))
    # the bounds do not promote: int8 data clipped by int16 arrays stays int8
    x = sparray.asarray(np.array([1, 2, 100, 0, -90], dtype=np.int8), fill_value=0)
    bounds = [sparray.asarray(np.array(v, dtype=np.int16)) for v in ([0, 3, 3, 1, -5], [2, 3, 50, 4, 5])]
    got = sparray.clip(x, min=bounds[0], max=bounds[1])
    assert got.dtype == sparray.int8
    assert_matches_dense(got, np.array([1, 3, 50, 1, -5], dtype=np.int8))


def test_array_api_strict_components(backend):
    xps = pytest.importorskip("array_api_strict")
    rng = np.random.default_rng(13)
    A, D = make_coo(rng, (4, 3), density=0.5, fill=1.0, xp=xps, duplicates=True)
    B, E = make_coo(rng, (4, 3), density=0.5, fill=np.nan, xp=xps)
    for got, want in [(sparray.exp(A), np.exp(D)), (A + B, D + E), (A * 2.0, D * 2.0), (A > B, D > E)]:
        assert type(got.values).__module__.startswith("array_api_strict")
        assert_matches_dense(got, want)
    with pytest.raises(TypeError, match="namespace"):
        A + np.ones((4, 3))


def test_mixing_namespaces_is_a_type_error():
    xps = pytest.importorskip("array_api_strict")
    A = sparray.COO([[0]], [1.0], shape=(2,))
    B = sparray.COO(xps.asarray([[1]]), xps.asarray([2.0]), shape=(2,))
    with pytest.raises(TypeError, match="namespace"):
        A + B


@given(coo_cases())
def test_identity_f_of_A_to_dense_property(case):
    A, D = case
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        for name in ("exp", "sin", "isnan", "negative", "square"):
            assert_matches_dense(getattr(sparray, name)(A), np_func(name)(D))
        assert_matches_dense(A * A - 1.0, D * D - 1.0)


def test_every_standard_elementwise_name_is_exported():
    for name in list(UNARY) + list(BINARY) + ["clip"]:
        assert callable(getattr(sparray, name)), name
        assert name in sparray.__all__


SCALAR_OPS = {
    "add": lambda a, s: a + s, "sub": lambda a, s: a - s, "rsub": lambda a, s: s - a, "mul": lambda a, s: a * s,
    "rmul": lambda a, s: s * a, "div": lambda a, s: a / s, "rdiv": lambda a, s: s / a, "floordiv": lambda a, s: a // s,
    "mod": lambda a, s: a % s, "pow": lambda a, s: a**s, "gt": lambda a, s: a > s, "eq": lambda a, s: a == s,
}  # fmt: skip


@pytest.mark.parametrize("op", list(SCALAR_OPS))
def test_issue16_scalar_ops_on_uncoalesced_coo_sum_duplicates_first(op, backend):
    """A duplicate pair stands for its sum: A / 0 with duplicates 3 and -7 is -4 / 0 = -inf, not nan."""
    f = SCALAR_OPS[op]
    A = sparray.COO(np.array([[0, 0, 0], [0, 0, 0]]), np.array([[0.0], [3.0], [-7.0]]), (1, 1, 1), fill_value=1.5)
    rng = np.random.default_rng(4)
    B, DB = make_coo(rng, (4, 5), 2, density=0.6, fill=float("nan"), duplicates=True)
    with np.errstate(all="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        for X, D in ((A, A.to_dense()), (B, DB)):
            assert not X.is_coalesced
            for scalar in (0.0, 2.0, -0.5, float("inf"), float("-inf"), float("nan"), False, True, 3, np.float64(0.0)):
                expected = np_func("floor_divide")(D, scalar) if op == "floordiv" else f(D, scalar)
                got = f(X, scalar)
                np.testing.assert_allclose(got.to_dense(), expected, rtol=1e-12, equal_nan=True, err_msg=f"{op} {scalar}")


@pytest.mark.parametrize("layout", ["coo", "csr"])
@pytest.mark.parametrize("name", ["add", "subtract", "multiply", "maximum", "minimum"])
def test_integer_ops_stay_integer_in_the_fused_kernels(layout, name, backend):
    """Integer add/subtract/multiply/maximum/minimum wrap like NumPy and keep every bit past 2**53
    (the fused numba kernel once computed them through float64)."""
    big = 2**53 + 1
    a64 = np.array([[big, 0, 5, -big], [0, 2**62, 0, 7]], dtype=np.int64)
    b64 = np.array([[3, 1, 0, -1], [0, 2**62, 0, 9]], dtype=np.int64)
    a32 = np.array([[2**31 - 1, 0], [-(2**31), 5]], dtype=np.int32)
    b32 = np.array([[2**31 - 1, 1], [-1, 0]], dtype=np.int32)
    f = getattr(np, name)
    for a, b in [(a64, b64), (a32, b32)]:
        A, B = sparray.asarray(a, layout=layout), sparray.asarray(b, layout=layout)
        got = getattr(sparray, name)(A, B).to_dense()
        assert got.dtype == a.dtype
        np.testing.assert_array_equal(got, f(a, b))


def _same_or_both_raise(sp_call, np_call, ctx):
    """NumPy's answer, or a ValueError from sparray where NumPy raises one."""
    try:
        expected = np_call()
    except ValueError:
        with pytest.raises(ValueError, match="negative"):
            sp_call()
        return
    got = sp_call()
    assert_matches_dense(got, expected)
    if isinstance(got, sparray.SparseArray):
        assert np.asarray(got.fill_value).dtype == got.dtype, ctx


def test_pow_with_an_unseen_negative_integer_fill(backend):
    """Regression (differential test): ``A ** B`` of int arrays raised "Integers to negative integer
    powers are not allowed" whenever B's fill was negative, also when no element of the result is
    unspecified (B specified everywhere), where NumPy gives an answer: the fill of a binary result
    was computed before knowing whether any element shows it (sparse-sparse, compressed-compressed,
    sparse-dense). It now raises only where an element of the result takes that fill, as NumPy does."""
    A = sparray.COO(np.zeros((1, 0), int), np.zeros(0, int), shape=(1,))
    B = sparray.COO([[0]], [0], shape=(1,), fill_value=-2)
    assert_matches_dense(A**B, np.zeros(1, int) ** np.zeros(1, int))  # the reproducer: [1]
    rng = np.random.default_rng(42)
    for layout in LAYOUTS:
        for shape, s, block in LAYOUT_SHAPES:
            hybrid = s < len(shape)
            for density in (0.0, 0.5, 1.0):  # B (the exponent, fill -2) specified nowhere, in part, everywhere
                B, E = make_sparse(rng, layout, shape, s, block, density=density, fill=-2, dtype="int64",
                                   dense_fill=hybrid and density == 0.5)
                X, D = make_sparse(rng, layout, shape, s, block, density=0.5, fill=3, dtype="int64")
                row = np.arange(shape[-1]) % 3  # varies along the last dim only
                ctx = f"{layout} {shape} density {density}"
                for sp_call, np_call in [
                    (lambda: X**B, lambda: D**E),  # sparse-sparse (same layout: row by row for CSR/CSC)
                    (lambda: sparray.pow(X.to_layout("coo"), B), lambda: D**E),  # COO with any layout
                    (lambda: D**B, lambda: D**E),  # dense base: varies along the sparse dims
                    (lambda: sparray.pow(row, B), lambda: row**E),
                    (lambda: 2**B, lambda: 2**E),  # scalar base
                    (lambda: B**X, lambda: E**D),  # the negative fill as the base: nothing raises
                ]:
                    _same_or_both_raise(sp_call, np_call, ctx)


def _numpy_dtype(name, *args):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            return np_func(name)(*args).dtype
        except TypeError:  # no loop for bool (negative, sign, ...)
            return None


def _half_functions(dtype):
    """The unary and binary functions whose NumPy result is float16 for input of ``dtype``."""
    x = np.ones(1, dtype)
    return ([n for n in UNARY if _numpy_dtype(n, x) == np.float16],
            [n for n in BINARY if _numpy_dtype(n, x, x) == np.float16])  # fmt: skip


def _in_float32(name, *args):
    """The reference of sparray's rule: NumPy's function on the arrays cast to float32."""
    return np_func(name)(*(a.astype(np.float32) if isinstance(a, np.ndarray) else a for a in args))


def _float32_result(got, expected):
    assert got.dtype == np.float32 and np.asarray(expected).dtype == np.float32
    assert_matches_dense(got, expected, rtol=1e-6, atol=1e-7)
    if isinstance(got, sparray.SparseArray):
        assert np.asarray(got.fill_value).dtype == np.float32


@pytest.mark.parametrize("dtype", ["bool", "int8", "uint8"])
def test_float_functions_of_bool_and_8_bit_input_compute_in_float32(dtype):
    """Regression (differential test): ``atan2(bool CSR, dense bool)`` raised TypeError ("float16 is
    not supported") while ``atan2`` of two sparse bools and ``sin`` of a sparse bool gave float16
    arrays (a dtype sparray has nowhere else). Every function whose NumPy result is float16 (``sin``,
    ``exp``, ``sqrt``, ``atan2``, ``hypot``, ...; ``round`` of bool) now computes in float32 on every
    path: unary, sparse-sparse (same compressed layout and through COO), sparse-dense (D along the
    sparse dims, D along the dense dims only), sparse-scalar either side, and dense operands alone."""
    half_unary, half_binary = _half_functions(dtype)
    assert {"sin", "exp", "sqrt", "log"} <= set(half_unary) and {"atan2", "hypot"} <= set(half_binary)
    rng = np.random.default_rng(16)
    fills = [True, False] if dtype == "bool" else [0, 3]
    scalar = True if dtype == "bool" else 2
    cases = [make_sparse(rng, layout, (4, 6), 2, (2, 3), density=0.4, fill=fill, dtype=dtype)
             for layout, fill in zip(LAYOUTS, fills * 3)]  # fmt: skip
    cases.append(make_coo(rng, (4, 3), 1, density=0.5, fill=fills[0], dtype=dtype, dense_fill=True))  # hybrid
    for A, D in cases:
        for name in half_unary:
            _float32_result(getattr(sparray, name)(A), _in_float32(name, D))
        B, E = make_sparse(rng, A.layout, A.shape, A.ndim - A.dense_ndim, getattr(A, "blocksize", None),
                           density=0.5, fill=fills[1], dtype=dtype)  # fmt: skip
        row = E[0]  # varies along the last dim only (the dense dim of the hybrid case)
        for name in half_binary:
            f = getattr(sparray, name)
            for got, want in [(f(A, B), _in_float32(name, D, E)), (f(A, B.to_layout("coo")), _in_float32(name, D, E)),
                              (f(A, E), _in_float32(name, D, E)), (f(E, A), _in_float32(name, E, D)),
                              (f(A, row), _in_float32(name, D, row)), (f(A, scalar), _in_float32(name, D, scalar)),
                              (f(scalar, A), _in_float32(name, scalar, D)), (f(D, E), _in_float32(name, D, E))]:  # fmt: skip
                _float32_result(got, want)
    A = sparray.asarray(np.array([[True, False]]), layout="csr")  # the reproducer
    _float32_result(sparray.atan2(A, np.zeros((1, 2), bool)), np.arctan2(np.float32([[1, 0]]), np.float32(0)))
    # other input dtypes keep NumPy's result dtype; a float16 the caller made stays theirs
    assert sparray.sin(sparray.asarray(np.ones(2, np.int16))).dtype == np.float32
    assert sparray.exp(sparray.asarray(np.ones(2, np.int64))).dtype == np.float64
    assert sparray.logical_and(A, A).dtype == bool and sparray.sin(np.ones(2, np.float16)).dtype == np.float16
    xps = pytest.importorskip("array_api_strict")
    with pytest.raises(TypeError, match="floating-point"):  # array_api_strict's own rule
        sparray.sin(sparray.asarray(xps.asarray([True, False])))
