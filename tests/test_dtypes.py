"""Data types: the dtype names, result_type, can_cast, finfo, iinfo, isdtype and astype.

Promotion is checked against NumPy for NumPy components and against array_api_strict for
array_api_strict components, on every pair where the array API defines the result (where it
does not, e.g. int64 with float64, NumPy's answer is what sparray gives for NumPy data, and
array_api_strict's error for strict data). ``astype`` is checked through ``to_dense()``: casting
the sparse array equals casting the dense one, the fill included (2.5 -> int truncates to 2, as
NumPy does, because the cast is the user's explicit request).
"""

from __future__ import annotations

import itertools

import array_api_strict as xs
import numpy as np
import pytest
from sparray_testing import assert_matches_dense, make_coo, to_numpy

import sparray

NAMES = [
    "bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
    "float32", "float64", "complex64", "complex128",
]  # fmt: skip
KINDS = ["bool", "signed integer", "unsigned integer", "integral", "real floating", "complex floating", "numeric"]
KIND_OF = {
    "bool": {"bool"},
    "int8": {"signed integer", "integral", "numeric"},
    "uint8": {"unsigned integer", "integral", "numeric"},
    "float32": {"real floating", "numeric"},
    "complex64": {"complex floating", "numeric"},
}


def _kind_set(name):
    for prefix, kinds in KIND_OF.items():
        if name.rstrip("0123456789") == prefix.rstrip("0123456789"):
            return kinds
    raise AssertionError(name)


def strict_defined(a, b):
    """Whether the array API defines the promotion of a and b (array_api_strict does not raise)."""
    try:
        xs.result_type(getattr(xs, a), getattr(xs, b))
        return True
    except TypeError:
        return False


def sample_coo(name, xp=None, fill=None):
    rng = np.random.default_rng(0)
    if fill is None:
        fill = 1 if name != "bool" else True
    A, dense = make_coo(rng, (4, 5), 2, density=0.4, fill=fill, dtype=name, xp=xp)
    return A, dense


# --------------------------------------------------------------------------------------------
# names


@pytest.mark.parametrize("name", NAMES)
def test_dtype_names(name):
    dt = getattr(sparray, name)
    assert dt == np.dtype(name) and dt is np.dtype(name)
    assert name in sparray.__all__
    assert sparray.zeros((2,), dtype=dt).dtype == dt
    assert sparray.isdtype(dt, dt) and sparray.isdtype(dt, getattr(xs, name))


def test_namespace_constants():
    assert sparray.e == np.e and sparray.pi == np.pi and sparray.inf == np.inf and np.isnan(sparray.nan)
    assert sparray.newaxis is None


# --------------------------------------------------------------------------------------------
# result_type


@pytest.mark.parametrize("a,b", list(itertools.combinations_with_replacement(NAMES, 2)))
def test_result_type_dtypes(a, b):
    expected = np.result_type(a, b)
    da, db = getattr(sparray, a), getattr(sparray, b)
    assert sparray.result_type(da, db) == expected
    assert sparray.result_type(a, b) == expected  # names
    assert sparray.result_type(getattr(np, a) if a != "bool" else np.bool_, db) == expected  # NumPy scalar types
    if strict_defined(a, b):
        assert sparray.result_type(getattr(xs, a), getattr(xs, b)) == expected  # translated by name
        assert np.result_type(a, b).name == str(xs.result_type(getattr(xs, a), getattr(xs, b))).rsplit(".", 1)[-1]


@pytest.mark.parametrize("a,b", [("float32", "int8"), ("int8", "uint8"), ("float32", "complex64"), ("bool", "bool"), ("int32", "float64"), ("uint16", "int16")])
def test_result_type_arrays(a, b):
    A, dense_a = sample_coo(a)
    B, dense_b = sample_coo(b)
    expected = np.result_type(dense_a, dense_b)
    assert sparray.result_type(A, B) == expected
    assert sparray.result_type(A, dense_b) == expected  # sparse with dense
    assert sparray.result_type(dense_a, B) == expected
    assert sparray.result_type(A, getattr(sparray, b)) == expected  # sparse with dtype
    assert sparray.result_type(A) == dense_a.dtype
    assert sparray.result_type(A, B, dense_a, getattr(sparray, b)) == expected


@pytest.mark.parametrize(
    "name,scalar",
    [
        ("float32", 1.0), ("float32", 1), ("float32", 1j), ("float64", 2.5), ("int8", 1), ("int32", 7),
        ("uint8", 3), ("bool", True), ("complex64", 1.0), ("complex64", 2j), ("int64", True),
    ],
)  # fmt: skip
def test_result_type_python_scalars(name, scalar):
    """A Python scalar of the same or a lower kind does not change the array's dtype (array API)."""
    A, dense = sample_coo(name)
    expected = np.result_type(dense, scalar)
    got = sparray.result_type(A, scalar)
    assert got == expected
    if isinstance(scalar, (int, float)) and not isinstance(scalar, bool) and name != "bool":
        if (isinstance(scalar, int) and name[0] in "iu") or name[0] in "fc":
            assert got == A.dtype
    assert sparray.result_type(getattr(sparray, name), scalar) == expected


def test_result_type_strict_components():
    S, _ = sample_coo("float32", xp=xs)
    assert S.dtype == xs.float32
    assert sparray.result_type(S, xs.float64) == xs.float64
    assert sparray.result_type(S, sparray.float64) == xs.float64  # sparray's dtype translated
    assert sparray.result_type(S, 1.0) == xs.float32
    assert sparray.result_type(S, xs.asarray([1.0], dtype=xs.float32)) == xs.float32
    T, _ = sample_coo("int32", xp=xs)
    with pytest.raises(TypeError):
        sparray.result_type(S, T)  # float with int: not defined by the array API, strict says so


def test_result_type_errors():
    with pytest.raises(ValueError):
        sparray.result_type()
    with pytest.raises(TypeError, match="dtype"):
        sparray.result_type("bfloat16", "float32")


# --------------------------------------------------------------------------------------------
# can_cast


@pytest.mark.parametrize("a", NAMES)
def test_can_cast(a):
    A, _ = sample_coo(a)
    S, _ = sample_coo(a, xp=xs)
    for b in NAMES:
        expected = np.can_cast(a, b)
        assert bool(sparray.can_cast(getattr(sparray, a), getattr(sparray, b))) == expected
        assert bool(sparray.can_cast(A, getattr(sparray, b))) == expected  # from a SparseArray
        assert bool(sparray.can_cast(a, b)) == expected
        strict = xs.can_cast(getattr(xs, a), getattr(xs, b))
        assert bool(sparray.can_cast(S, getattr(xs, b))) == strict  # strict components: strict's rules
        assert bool(sparray.can_cast(S, getattr(sparray, b))) == strict
        if strict:  # where the array API allows a cast, NumPy does too
            assert expected


def test_can_cast_never_from_complex_to_real():
    """The standard answers by its type promotion rules, which never lead from complex to real;
    the conformance suite expects True for (complex64, float64) through a lookup that meets
    NumPy's ``None == np.dtype("float64")`` (docs/testing.md)."""
    for c in ("complex64", "complex128"):
        for r in ("float32", "float64", "int64", "bool"):
            assert sparray.can_cast(getattr(sparray, c), getattr(sparray, r)) is False
    assert sparray.can_cast(sparray.complex64, sparray.complex128) is True
    assert sparray.can_cast(sparray.float64, sparray.complex128) is True


# --------------------------------------------------------------------------------------------
# finfo, iinfo


@pytest.mark.parametrize("name", ["float32", "float64", "complex64", "complex128"])
def test_finfo(name):
    A, _ = sample_coo(name)
    S, _ = sample_coo(name, xp=xs)
    exp = np.finfo(np.dtype(name))
    for arg in (getattr(sparray, name), name, A, S, getattr(xs, name)):
        fi = sparray.finfo(arg)
        assert (fi.bits, fi.eps, fi.max, fi.min, fi.smallest_normal) == (exp.bits, exp.eps, exp.max, exp.min, exp.smallest_normal)
        assert fi.dtype == np.finfo(np.dtype(name)).dtype
    assert sparray.finfo(sparray.complex64).bits == 32  # the real part's precision, as the array API says


@pytest.mark.parametrize("name", ["int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64"])
def test_iinfo(name):
    A, _ = sample_coo(name)
    S, _ = sample_coo(name, xp=xs)
    exp = np.iinfo(np.dtype(name))
    for arg in (getattr(sparray, name), name, A, S, getattr(xs, name)):
        ii = sparray.iinfo(arg)
        assert (ii.bits, ii.min, ii.max) == (exp.bits, exp.min, exp.max)


def test_finfo_iinfo_wrong_kind():
    for dt in (sparray.int32, sparray.bool):
        with pytest.raises(ValueError):
            sparray.finfo(dt)
    for dt in (sparray.float32, sparray.bool, sparray.complex64):
        with pytest.raises(ValueError):
            sparray.iinfo(dt)


# --------------------------------------------------------------------------------------------
# isdtype


@pytest.mark.parametrize("name", NAMES)
def test_isdtype(name):
    kinds = _kind_set(name)
    for dt in (getattr(sparray, name), getattr(xs, name), name):
        for kind in KINDS:
            assert sparray.isdtype(dt, kind) == (kind in kinds), (name, kind)
            assert sparray.isdtype(dt, kind) == xs.isdtype(getattr(xs, name), kind)
        # tuples: any of
        assert sparray.isdtype(dt, tuple(KINDS))
        assert not sparray.isdtype(dt, tuple(k for k in KINDS if k not in kinds))
        assert sparray.isdtype(dt, ("bool", getattr(sparray, name)))
        assert sparray.isdtype(dt, (getattr(sparray, name),))
        others = [n for n in NAMES if n != name]
        assert not sparray.isdtype(dt, tuple(getattr(sparray, n) for n in others))
        assert not sparray.isdtype(dt, ())
    A, _ = sample_coo(name)
    assert sparray.isdtype(A.dtype, next(iter(kinds)))


def test_isdtype_errors():
    with pytest.raises(ValueError, match="kind"):
        sparray.isdtype(sparray.float32, "float")
    with pytest.raises(TypeError):
        sparray.isdtype("bfloat16", "numeric")


# --------------------------------------------------------------------------------------------
# astype


CASTS = [
    ("float64", "float32", 2.5),
    ("float64", "int32", 2.5),  # explicit cast: the fill truncates to 2 as in NumPy
    ("float64", "int64", -1.5),
    ("float64", "bool", 2.5),
    ("float64", "complex128", 2.5),
    ("float32", "float64", 0.0),
    ("int32", "float64", 3),
    ("int64", "int8", 5),
    ("int64", "uint8", 7),
    ("bool", "int32", True),
    ("bool", "float64", False),
    ("complex128", "complex64", 1 + 2j),
    ("float64", "float64", float("nan")),
    ("float64", "float32", float("-inf")),
]


@pytest.mark.parametrize("src,dst,fill", CASTS, ids=[f"{a}->{b}-fill{f}" for a, b, f in CASTS])
def test_astype(src, dst, fill):
    rng = np.random.default_rng(1)
    for shape, s, dense_fill in [((4, 5), 2, False), ((3, 4, 2), 2, True), ((6,), 1, False), ((0, 3), 2, False)]:
        A, dense = make_coo(rng, shape, s, density=0.5, fill=fill, dtype=src, dense_fill=dense_fill)
        if src in ("float64", "float32"):  # values beyond (-1, 1), so that casts to int are not all 0
            dense = dense * 3
            A = sparray.asarray(dense, sparse_ndim=s, fill_value=to_numpy(A.fill_value) * 3)
        exp_fill = np.asarray(to_numpy(A.fill_value)).astype(dst)
        for B in (A.astype(getattr(sparray, dst)), sparray.astype(A, dst), A.astype(dst)):
            assert isinstance(B, sparray.COO)
            assert B.dtype == np.dtype(dst) and B.fill_value.dtype == np.dtype(dst)
            assert B.nse == A.nse and B.shape == A.shape and B.sparse_ndim == A.sparse_ndim
            with np.errstate(all="ignore"):
                assert_matches_dense(B, dense.astype(dst), fill=exp_fill, rtol=0, atol=0)
    # A is unchanged by the cast
    assert A.dtype == np.dtype(src)


def test_astype_fill_truncates():
    A = sparray.COO([[0, 2]], [1.7, -2.7], shape=(4,), fill_value=2.5)
    B = A.astype(sparray.int32)
    assert int(B.fill_value) == 2 and B.fill_value.dtype == np.int32
    np.testing.assert_array_equal(to_numpy(B.to_dense()), np.array([1.7, 2.5, -2.7, 2.5]).astype(np.int32))
    C = sparray.COO([[0]], [0.5], shape=(3,), fill_value=-0.5).astype(sparray.bool)
    np.testing.assert_array_equal(to_numpy(C.to_dense()), [True, True, True])


def test_astype_copy():
    A, dense = sample_coo("float64")
    assert sparray.astype(A, sparray.float64, copy=False) is A
    B = sparray.astype(A, sparray.float64)
    assert B is not A
    assert_matches_dense(B, dense, fill=1.0)


def test_astype_uncoalesced_sums_first():
    """Duplicates stand for their sum: a cast that is not linear must see the sum (0.5 + 0.5 = 1)."""
    A = sparray.COO([[0, 0, 2, 1, 1]], [0.5, 0.5, -1.0, 1.0, -1.0], shape=(3,), fill_value=0.0)
    dense = np.array([1.0, 0.0, -1.0])
    assert_matches_dense(A, dense, fill=0.0)
    assert_matches_dense(A.astype(sparray.int64), dense.astype(np.int64), fill=0)
    assert_matches_dense(A.astype(sparray.bool), dense.astype(bool), fill=False)


@pytest.mark.parametrize("dst", ["float32", "int32", "bool", "complex128"])
def test_astype_strict(dst):
    S, dense = sample_coo("float64", xp=xs, fill=1.5)
    for dt in (getattr(sparray, dst), getattr(xs, dst), dst):
        B = S.astype(dt)
        assert B.dtype == getattr(xs, dst)  # translated by name into the components' namespace
        assert type(B.values).__module__.startswith("array_api_strict")
        assert type(B.fill_value).__module__.startswith("array_api_strict") and B.fill_value.dtype == getattr(xs, dst)
        assert_matches_dense(B, dense.astype(dst), fill=np.asarray(1.5).astype(dst), rtol=1e-6)


def test_astype_dense_input():
    x = np.array([1.5, -2.5])
    np.testing.assert_array_equal(sparray.astype(x, sparray.int32), x.astype(np.int32))
    y = sparray.astype(xs.asarray([1.5, -2.5]), sparray.float32)
    assert y.dtype == xs.float32


def test_astype_bad_dtype():
    A, _ = sample_coo("float64")
    with pytest.raises(TypeError, match="dtype"):
        A.astype("bfloat16")
    with pytest.raises(TypeError):
        A.astype("not-a-dtype")


def test_float16_beyond_the_standard():
    """float16 is sparray's as NumPy's (the 2:4 layout and sparse tensor cores are for it), never
    listed among the standard's dtypes and never made from bool or 8-bit integers."""
    assert sparray.float16 is np.dtype("float16")
    assert sparray.result_type(sparray.float16, sparray.float32) == sparray.float32
    assert sparray.isdtype(sparray.float16, "real floating")
    A = sparray.asarray(np.array([0.0, 1.5]), dtype="float16")
    assert A.dtype == np.float16 and A.astype("float32").dtype == np.float32
    assert "float16" not in sparray.__array_namespace_info__().dtypes()
    assert sparray.sin(sparray.asarray(np.array([True, False]))).dtype == np.float32
