"""NumPy's ``nan*`` family, ``median``, ``quantile`` and ``percentile`` on sparray arrays (issue 49,
item 1: xarray's reductions call them), checked against the same NumPy call on the dense form.

Every layout (COO 1-d to 3-d, CSR, CSC, BSR, BSC, batched CSR, hybrid COO and CSR, a hybrid with a
fill that varies along its dense dim), fills 0, 1.5 and nan, nans among the stored values and a
slice of nans only; every axis (None, each one, negative ones, tuples), keepdims; the values, the
shape, the dtype, NumPy's RuntimeWarnings and the result's form (that of ``np.sum(A)``: dense
when every sparse dim is reduced), on the CPU and on the simulated GPU device (the results stay
there). Then arrays far too large to densify, NumPy's errors, and xarray itself.
"""

from __future__ import annotations

import itertools
import math
import warnings
import zlib

import numpy as np
import pytest
from places_testing import PLACES
from places_testing import dense_on_host as _host
from places_testing import on_place as _on_place
from places_testing import to_place as _to_place

import sparray as sp

FILLS = [0.0, 1.5, math.nan]
FILL_IDS = ["fill0", "fill1.5", "fillnan"]

#: name -> (dense shape, sparse_ndim for asarray or None, layout, asarray keywords, a fill shaped like the dense part)
CASES = {
    "coo-1d": ((9,), None, "coo", {}, False),
    "coo": ((5, 6), None, "coo", {}, False),
    "csr": ((5, 6), None, "csr", {}, False),
    "csc": ((5, 6), None, "csc", {}, False),
    "bsr": ((6, 8), None, "bsr", {"blocksize": (2, 2)}, False),
    "bsc": ((6, 8), None, "bsc", {"blocksize": (3, 2)}, False),
    "coo-3d": ((3, 4, 5), None, "coo", {}, False),
    "csr-batched": ((2, 5, 6), None, "csr", {}, False),
    "csr-hybrid": ((5, 6, 2), 2, "csr", {}, False),
    "coo-hybrid": ((6, 5, 3), 2, "coo", {}, False),
    "coo-hybrid-fill": ((6, 5, 3), 2, "coo", {}, True),
}

#: the reductions: name -> positional arguments after the array
REDUCTIONS = {
    "nansum": (), "nanprod": (), "nanmean": (), "nanvar": (), "nanstd": (), "nanmax": (), "nanmin": (),
    "nanmedian": (), "median": (), "nanquantile": (0.3,), "quantile": (0.7,), "nanpercentile": (40,),
    "percentile": (90,),
}  # fmt: skip

# NumPy's arithmetic on nan and inf warns in some of its paths (its _lerp's inf - inf); its nan
# functions' own warnings are the ones that must match
_ARITHMETIC = ("invalid value encountered", "divide by zero encountered", "overflow encountered")


def _operand(case, fill, *, all_nan_slice=True):
    """A sparray array of ``case`` with fill ``fill`` and the dense NumPy array it stands for:
    about 40% of the positions specified, some of the stored values nan, and (``all_nan_slice``)
    index 1 along the first dim holding nan only."""
    shape, sparse_ndim, layout, kw, dense_fill = CASES[case]
    rng = np.random.default_rng(zlib.crc32(f"{case}/{fill}/{all_nan_slice}".encode()))
    s = sparse_ndim or len(shape)
    dense = np.round(rng.standard_normal(shape) * 4) / 4
    keep = rng.random(shape[:s]) < 0.4
    keep = np.broadcast_to(keep.reshape(keep.shape + (1,) * (len(shape) - s)), shape)
    f = np.asarray(fill)
    if dense_fill:
        f = np.round(rng.standard_normal(shape[s:]), 1)
        f[0] = fill
    dense = np.where(keep, dense, f)
    dense[keep & (rng.random(shape) < 0.15)] = np.nan
    if all_nan_slice and len(shape) > 1:
        dense[1] = np.nan
    extra = {"sparse_ndim": sparse_ndim} if sparse_ndim else {}
    A = sp.asarray(dense, layout=layout, fill_value=f, **extra, **kw)
    assert A.layout == layout
    if case == "csr-batched":
        assert A.batch_ndim == 1
    if case in ("csr-hybrid", "coo-hybrid", "coo-hybrid-fill"):
        assert A.dense_ndim == 1
    if case == "coo-hybrid-fill":
        assert A.fill_value.shape == shape[s:]
    np.testing.assert_array_equal(A.to_dense(), dense)
    return A, dense


def _axes(ndim):
    singles = list(range(-ndim, ndim))
    tuples = [c for r in range(2, ndim + 1) for c in itertools.combinations(range(ndim), r)]
    if ndim == 3:
        tuples.append((-1, 0))
    return [None, *singles, *tuples]


def _call(f, *args, **kwargs):
    """``f(*args, **kwargs)`` and the messages of the RuntimeWarnings it gave (NumPy's arithmetic ones left out)."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        out = f(*args, **kwargs)
    messages = {str(w.message) for w in caught if issubclass(w.category, RuntimeWarning)}
    return out, {m for m in messages if not m.startswith(_ARITHMETIC)}


def _check(got, want, got_warnings, want_warnings, what, rtol=1e-12):
    host = _host(got)
    want = np.asarray(want)
    assert host.shape == want.shape, (what, host.shape, want.shape)
    assert host.dtype == want.dtype, (what, host.dtype, want.dtype)
    np.testing.assert_allclose(host, want, rtol=rtol, atol=1e-12, equal_nan=True, err_msg=str(what))
    assert got_warnings == want_warnings, (what, got_warnings, want_warnings)


def _form_of_sum(A, axis, keepdims):
    """Whether the protocol's ``np.sum`` gives a sparse array for this reduction (the form to follow)."""
    return isinstance(np.sum(A, axis=axis, keepdims=keepdims), sp.SparseArray)


def _reduction_checks(A, dense, name, axes, place, keepdims_options=(False, True)):
    f = getattr(np, name)
    args = REDUCTIONS[name]
    for axis, keepdims in itertools.product(axes, keepdims_options):
        want, want_w = _call(f, dense, *args, axis=axis, keepdims=keepdims)
        got, got_w = _call(f, A, *args, axis=axis, keepdims=keepdims)
        what = (name, axis, keepdims)
        _check(got, want, got_w, want_w, what)
        assert _on_place(got, place), (what, type(got))
        assert isinstance(got, sp.SparseArray) == _form_of_sum(A, axis, keepdims), (what, type(got))


@pytest.mark.parametrize("name", list(REDUCTIONS))
@pytest.mark.parametrize("fill", FILLS, ids=FILL_IDS)
@pytest.mark.parametrize("case", list(CASES))
def test_reductions_match_numpy(case, fill, name):
    A, dense = _operand(case, fill)
    _reduction_checks(A, dense, name, _axes(dense.ndim), "cpu")


@pytest.mark.parametrize("name", ["nanmean", "nanvar", "nanmax", "nanmedian", "nanquantile", "median"])
@pytest.mark.parametrize("case", ["coo", "csc", "coo-3d", "coo-hybrid"])
def test_reductions_without_an_all_nan_slice(case, name):
    """No slice of nans only: no warning at all, as NumPy."""
    for fill in (0.0, 1.5):
        A, dense = _operand(case, fill, all_nan_slice=False)
        _reduction_checks(A, dense, name, _axes(dense.ndim), "cpu", keepdims_options=(False,))


@pytest.mark.parametrize("place", PLACES[1:])
@pytest.mark.parametrize(("case", "fill"), [pytest.param(c, FILLS[k % 3], id=f"{c}-{FILL_IDS[k % 3]}") for k, c in
                                            enumerate(["coo", "csr", "bsc", "csr-batched", "coo-hybrid", "csc"])])
def test_reductions_on_the_device(case, fill, place):
    A, dense = _operand(case, fill)
    D = _to_place(A, place)
    for name in REDUCTIONS:
        _reduction_checks(D, dense, name, [None, 0, -1], place, keepdims_options=(False,))


# --- positions of the extremes, running sums and products ---------------------------------------------------
def _place_cases(cases):
    """``(case, fill, place)`` for each case: every fill on the CPU, and on each device one fill per
    case, 0, 1.5 and nan in turn (the simulated device is slow; every fill still meets it)."""
    out = [pytest.param(c, f, "cpu", id=f"{c}-{i}-cpu") for c in cases for f, i in zip(FILLS, FILL_IDS)]
    for place in PLACES[1:]:
        out += [pytest.param(c, FILLS[k % 3], place, id=f"{c}-{FILL_IDS[k % 3]}-{place}") for k, c in enumerate(cases)]
    return out

@pytest.mark.parametrize(("case", "fill", "place"),
                         _place_cases(["coo-1d", "coo", "csr", "csc", "bsr", "coo-3d", "csr-batched", "coo-hybrid"]))
def test_arg_extremes_match_numpy(case, fill, place):
    for all_nan_slice in (False, True):
        A, dense = _operand(case, fill, all_nan_slice=all_nan_slice)
        D = _to_place(A, place)
        for name, axis, keepdims in itertools.product(["nanargmax", "nanargmin"], [None, *range(-dense.ndim, dense.ndim)],
                                                      [False, True]):
            f = getattr(np, name)
            try:
                want = f(dense, axis=axis, keepdims=keepdims)
            except ValueError as e:
                assert str(e) == "All-NaN slice encountered"
                with pytest.raises(ValueError, match="All-NaN slice encountered"):
                    f(D, axis=axis, keepdims=keepdims)
                continue
            got = f(D, axis=axis, keepdims=keepdims)
            assert _on_place(got, place)
            np.testing.assert_array_equal(_host(got), want, err_msg=str((name, axis, keepdims)))
            assert _host(got).shape == np.shape(want)


@pytest.mark.parametrize(("case", "fill", "place"), _place_cases(["coo-1d", "coo", "csr", "bsc", "coo-3d", "coo-hybrid"]))
def test_running_sums_and_products_match_numpy(case, fill, place):
    A, dense = _operand(case, fill)
    D = _to_place(A, place)
    for name, axis in itertools.product(["nancumsum", "nancumprod"], [None, *range(-dense.ndim, dense.ndim)]):
        f = getattr(np, name)
        want, got = f(dense, axis=axis), f(D, axis=axis)
        assert _on_place(got, place)
        np.testing.assert_allclose(_host(got), want, rtol=1e-12, equal_nan=True, err_msg=str((name, axis)))
    np.testing.assert_allclose(_host(np.nancumsum(D, axis=0, dtype=np.float32)), np.nancumsum(dense, axis=0, dtype=np.float32),
                               rtol=1e-6, equal_nan=True)


# --- quantiles: every method, q's shapes and dtypes ------------------------------------------------------------
METHODS = ["inverted_cdf", "averaged_inverted_cdf", "closest_observation", "interpolated_inverted_cdf", "hazen",
           "weibull", "linear", "median_unbiased", "normal_unbiased", "lower", "higher", "midpoint", "nearest"]


@pytest.mark.parametrize("method", METHODS)
@pytest.mark.parametrize("fill", FILLS, ids=FILL_IDS)
@pytest.mark.parametrize("case", ["coo", "csr", "coo-3d", "coo-hybrid-fill"])
def test_quantile_methods_match_numpy(case, fill, method):
    A, dense = _operand(case, fill)
    for name, q, axis, keepdims in itertools.product(
        ["quantile", "nanquantile"], [0.0, 0.37, 1.0, [0.0, 0.5, 0.99], np.array([[0.1, 0.2], [0.8, 1.0]])],
        [None, 0, -1, (0, 1)], [False, True],
    ):
        if name == "nanquantile" and np.ndim(q) == 2:
            continue  # NumPy's nanquantile moves one of a 2-d q's dims only (quantile's order is the one kept)
        f = getattr(np, name)
        want, want_w = _call(f, dense, q, axis=axis, method=method, keepdims=keepdims)
        got, got_w = _call(f, A, q, axis=axis, method=method, keepdims=keepdims)
        _check(got, want, got_w, want_w, (name, method, q, axis, keepdims))
    for name in ("percentile", "nanpercentile"):
        want, want_w = _call(getattr(np, name), dense, [5, 50, 95.5], axis=0, method=method)
        got, got_w = _call(getattr(np, name), A, [5, 50, 95.5], axis=0, method=method)
        _check(got, want, got_w, want_w, (name, method))


@pytest.mark.parametrize("place", PLACES)
def test_quantile_dtypes_follow_numpy(place):
    """NumPy's promotion: a Python q keeps a float32 array's dtype, a NumPy float64 q does not; an
    integer q of 1 (or a method without interpolation) takes an element, in the array's dtype;
    integer data interpolates in float64; medians are means (float64 for integers)."""
    rng = np.random.default_rng(7)
    base = np.round(rng.standard_normal((4, 7)) * 3)
    base[base < 0] = 0
    for dtype in (np.float32, np.float64, np.int32, np.int64, np.uint8):
        dense = np.abs(base).astype(dtype)
        A = _to_place(sp.asarray(dense, layout="csr"), place)
        for q in (0.25, np.float64(0.25), np.float32(0.25), np.array([0.25, 0.5], dtype=np.float32), 1, [0, 1]):
            for method in ("linear", "lower", "nearest", "hazen"):
                for name in ("quantile", "nanquantile"):
                    want = getattr(np, name)(dense, q, axis=1, method=method)
                    got = getattr(np, name)(A, q, axis=1, method=method)
                    assert _host(got).dtype == np.asarray(want).dtype, (dtype, q, method, name)
                    np.testing.assert_allclose(_host(got), want, rtol=1e-6)
        for name in ("median", "nanmedian"):
            want, got = getattr(np, name)(dense, axis=0), getattr(np, name)(A, axis=0)
            assert _host(got).dtype == np.asarray(want).dtype
            np.testing.assert_allclose(_host(got), want, rtol=1e-6)


def test_order_statistics_of_infinite_fills_and_ties():
    """NumPy's _lerp between two infinities is nan; the methods that take an element keep it; the
    empty lines' answer then changes with q (the result comes dense)."""
    dense = np.full((4, 5), np.inf)
    dense[0, :3] = [1.0, 2.0, np.nan]
    dense[2, 1] = -np.inf
    A = sp.asarray(dense, fill_value=np.inf, layout="csr")
    for name, method in itertools.product(["quantile", "nanquantile"], ["linear", "lower", "midpoint", "weibull"]):
        for q in (0.5, [0.0, 0.5, 1.0], 1):
            want, want_w = _call(getattr(np, name), dense, q, axis=1, method=method)
            got, got_w = _call(getattr(np, name), A, q, axis=1, method=method)
            _check(got, want, got_w, want_w, (name, method, q))
    for name in ("median", "nanmedian"):
        want, want_w = _call(getattr(np, name), dense, axis=1)
        got, got_w = _call(getattr(np, name), A, axis=1)
        _check(got, want, got_w, want_w, name)


# --- dtypes, ddof, integers, complex ---------------------------------------------------------------------------
@pytest.mark.parametrize("fill", FILLS, ids=FILL_IDS)
def test_dtypes_ddof_and_correction(fill):
    A64, dense64 = _operand("csr", fill, all_nan_slice=False)
    dense = dense64.astype(np.float32)
    A = A64.astype(np.float32)
    for name, kw in [("nanmean", {}), ("nanmean", {"dtype": np.float64}), ("nansum", {"dtype": np.float64}),
                     ("nanprod", {"dtype": np.float64}), ("nanvar", {}), ("nanvar", {"dtype": np.float64}),
                     ("nanvar", {"ddof": 1}), ("nanvar", {"ddof": 5}), ("nanstd", {"correction": 1}),
                     ("nanstd", {"ddof": -1}), ("nanmax", {}), ("nanmedian", {})]:
        for axis in (None, 0, 1):
            want, want_w = _call(getattr(np, name), dense, axis=axis, **kw)
            got, got_w = _call(getattr(np, name), A, axis=axis, **kw)
            _check(got, want, got_w, want_w, (name, kw, axis), rtol=2e-6)


def test_integer_and_bool_arrays_answer_as_numpy():
    """No nan in the dtype: NumPy's nan functions are the plain ones (np.nanmean of ints is np.mean)."""
    rng = np.random.default_rng(3)
    dense = rng.integers(-3, 4, (5, 6)).astype(np.int32)
    dense[dense < 1] = 0
    for d in (dense, dense > 1):
        A = sp.asarray(d, layout="csc")
        for name, axis in itertools.product(["nansum", "nanprod", "nanmean", "nanvar", "nanstd", "nanmax", "nanmin",
                                             "nanargmax", "nanargmin", "nancumsum", "nancumprod", "nanmedian", "median"],
                                            [None, 0, 1]):
            if d.dtype == bool and name in ("nanvar", "nanstd"):
                continue  # NumPy's var of booleans subtracts booleans (a TypeError)
            want, got = getattr(np, name)(d, axis=axis), getattr(np, name)(A, axis=axis)
            assert _host(got).dtype == np.asarray(want).dtype, (name, d.dtype, axis)
            np.testing.assert_allclose(_host(got), want, rtol=1e-12, err_msg=str((name, axis)))


def test_complex_arrays():
    rng = np.random.default_rng(5)
    dense = np.round(rng.standard_normal((4, 6)) + 1j * rng.standard_normal((4, 6)), 1)
    dense[rng.random(dense.shape) < 0.5] = 0
    dense[0, 2] = complex(np.nan, 1.0)
    dense[2, :] = np.nan
    A = sp.asarray(dense, layout="coo")
    for name, axis in itertools.product(["nansum", "nanprod", "nanmean", "nanvar", "nanstd", "nancumsum"], [None, 0, 1]):
        want, want_w = _call(getattr(np, name), dense, axis=axis)
        got, got_w = _call(getattr(np, name), A, axis=axis)
        _check(got, want, got_w, want_w, (name, axis))
    for name in ("nanmedian", "nanquantile", "quantile"):
        with pytest.raises(TypeError, match="real numbers"):
            getattr(np, name)(A, *((0.5,) if "quantile" in name else ()))


# --- empty slices and errors ----------------------------------------------------------------------------------
def test_empty_reductions():
    dense = np.zeros((0, 3))
    A = sp.asarray(dense)
    for name in ("nanmean", "nanvar", "nanstd", "nanmedian", "median", "nanquantile", "nanpercentile", "nansum", "nanprod"):
        args = REDUCTIONS.get(name, ())
        for axis in (None, 0, 1):
            want, want_w = _call(getattr(np, name), dense, *args, axis=axis)
            got, got_w = _call(getattr(np, name), A, *args, axis=axis)
            _check(got, want, got_w, want_w, (name, axis))
    for name in ("nanmax", "nanargmax", "nanargmin"):
        with pytest.raises(ValueError):
            getattr(np, name)(A, axis=0)
    with pytest.raises(IndexError):
        np.quantile(A, 0.5, axis=0)


def test_errors_name_the_argument():
    A = sp.asarray(np.array([[1.0, np.nan, 0.0], [0.0, 2.0, 0.0]]))
    with pytest.raises(TypeError, match="out= is not supported"):
        np.nanmean(A, axis=0, out=np.zeros(3))
    with pytest.raises(TypeError, match="where= is not supported"):
        np.nansum(A, where=np.ones((2, 3), dtype=bool))
    with pytest.raises(TypeError, match="initial= is not supported"):
        np.nanmax(A, initial=3.0)
    with pytest.raises(TypeError, match="mean= is not supported"):
        np.nanvar(A, mean=np.zeros((1, 1)))
    with pytest.raises(TypeError, match="weights= is not supported"):
        np.nanquantile(A, 0.5, method="inverted_cdf", weights=np.ones((2, 3)))
    with pytest.raises(ValueError, match="ddof and correction"):
        np.nanstd(A, ddof=1, correction=1)
    with pytest.raises(ValueError, match=r"Quantiles must be in the range \[0, 1\]"):
        np.nanquantile(A, [0.5, 1.5])
    with pytest.raises(ValueError, match=r"Percentiles must be in the range \[0, 100\]"):
        np.percentile(A, -1)
    with pytest.raises(ValueError, match="q must be a scalar or 1d"):
        np.quantile(A, np.full((1, 1, 1), 0.5))
    with pytest.raises(ValueError, match="'foo' is not a valid method"):
        np.nanquantile(A, 0.5, method="foo")
    with pytest.raises(ValueError, match="repeated axis"):
        np.nanmedian(A, axis=(1, -1))
    with pytest.raises(IndexError, match="axis 2 is out of range"):  # an AxisError, as NumPy's (ValueError and IndexError)
        np.nanmean(A, axis=2)


# --- arrays too large to densify: the answers come from the stored values and the counts --------------------------
@pytest.mark.parametrize("fill", [0.0, math.nan], ids=["fill0", "fillnan"])
def test_never_densifies(fill):
    """A 10**6 x 10**6 CSR of 600 entries (8 TB dense): every function answers from the entries.
    Each row's answer is checked against NumPy on that row's elements (its entries and, for the
    zero fill, its 10**6 - cnt zeros as one weighted value)."""
    n = 10**6
    rng = np.random.default_rng(11)
    rows = np.sort(rng.choice(40, 600))
    cols = rng.choice(n, 600, replace=False)
    vals = np.round(rng.standard_normal(600), 2)
    vals[::9] = np.nan
    A = sp.COO(np.stack([rows, cols]), vals, shape=(n, n), fill_value=fill).to_layout("csr")
    with warnings.catch_warnings(record=True) as caught:  # the nan fill: the rows without entries are all nan
        warnings.simplefilter("always")
        mean = np.nanmean(A, axis=1)
        var = np.nanvar(A, axis=1, ddof=1)
        med = np.nanmedian(A, axis=1)
        qs = np.nanquantile(A, [0.1, 0.9], axis=1)
        top = np.nanmax(A, axis=1)
    assert len(caught) == (5 if math.isnan(fill) else 0), [str(w.message) for w in caught]
    for r in np.unique(rows):
        stored = vals[rows == r]
        # the zero fill: 10**4 zeros stand for the row's 10**6 - cnt in the order statistics (as many
        # more than the entries, the same ranks hold zeros); mean and variance by formula
        line = stored if math.isnan(fill) else np.concatenate([stored, np.zeros(10**4)])
        if not math.isnan(fill):
            ok = stored[~np.isnan(stored)]
            cnt = n - stored.size + ok.size
            m = ok.sum() / cnt
            np.testing.assert_allclose(mean.to_dense()[r], m, rtol=1e-12)
            v = (((ok - m) ** 2).sum() + (n - stored.size) * m * m) / (cnt - 1)
            np.testing.assert_allclose(var.to_dense()[r], v, rtol=1e-9)
        else:
            np.testing.assert_allclose(mean.to_dense()[r], np.nanmean(line), rtol=1e-12, equal_nan=True)
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", RuntimeWarning)
                np.testing.assert_allclose(var.to_dense()[r], np.nanvar(line, ddof=1), rtol=1e-12, equal_nan=True)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)
            np.testing.assert_allclose(med.to_dense()[r], np.nanmedian(line), equal_nan=True)
            np.testing.assert_allclose(qs.to_dense()[:, r], np.nanquantile(line, [0.1, 0.9]), equal_nan=True)
            np.testing.assert_allclose(top.to_dense()[r], np.nanmax(line), equal_nan=True)
    assert isinstance(mean, sp.SparseArray) and mean.nse <= 40
    assert isinstance(qs, sp.SparseArray) and qs.shape == (2, n)
    whole = np.nanmedian(A)
    ok = vals[~np.isnan(vals)]
    assert float(whole) == (np.median(ok) if math.isnan(fill) else 0.0)
    if math.isnan(fill):
        np.testing.assert_allclose(float(np.nanstd(A)), np.std(ok), rtol=1e-12)
        assert int(np.nanargmax(A)) == int(rows[np.nanargmax(vals)]) * n + int(cols[np.nanargmax(vals)])


# --- xarray: its everyday reductions on float data call NumPy's nan functions ---------------------------------------
XR_CALLS = {
    "mean": lambda xr, x: x.mean("y"),
    "mean all": lambda xr, x: x.mean(),
    "max": lambda xr, x: x.max("y"),
    "min": lambda xr, x: x.min("x"),
    "std": lambda xr, x: x.std("y"),
    "var ddof=1": lambda xr, x: x.var("x", ddof=1),
    "argmax": lambda xr, x: x.argmax("y"),
    "argmin": lambda xr, x: x.argmin("x"),
    "sum": lambda xr, x: x.sum("y"),
    "sum min_count": lambda xr, x: x.sum("y", min_count=2),
    "prod": lambda xr, x: x.prod("x"),
    "cumsum": lambda xr, x: x.cumsum("y"),
    "median": lambda xr, x: x.median("y"),
    "median all": lambda xr, x: x.median(),
    "quantile": lambda xr, x: x.quantile(0.3, dim="y"),
    "quantile all": lambda xr, x: x.quantile(0.8),
    "quantile list": lambda xr, x: x.quantile([0.1, 0.9], dim="x"),
    "cov": lambda xr, x: xr.cov(x, x * 2.0 + 1.0, dim="y"),
    "corr": lambda xr, x: xr.corr(x, x * x, dim="y"),
    "mean skipna=False": lambda xr, x: x.mean("y", skipna=False),
}
XFAIL_XR = {}  # "quantile list" needed sparray.transpose (xarray's apply_ufunc reorders the q dim with it)


@pytest.mark.parametrize("fill", FILLS, ids=FILL_IDS)
@pytest.mark.parametrize("layout", ["coo", "csr"])
@pytest.mark.parametrize("call", list(XR_CALLS))
def test_xarray_reductions_match_numpy(call, layout, fill, request):
    xr = pytest.importorskip("xarray")
    if call in XFAIL_XR:
        request.applymarker(pytest.mark.xfail(reason=XFAIL_XR[call], strict=True, raises=AttributeError))
    rng = np.random.default_rng(zlib.crc32(f"{call}{layout}{fill}".encode()))
    dense = np.round(rng.standard_normal((5, 6)), 2)
    dense[rng.random(dense.shape) < 0.4] = fill
    dense[rng.random(dense.shape) < 0.15] = np.nan
    if call not in ("argmax", "argmin"):  # (their all-nan slices raise: checked where chance makes one)
        dense[3, :] = np.nan
    A = sp.asarray(dense, layout=layout, fill_value=fill)
    f = XR_CALLS[call]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        try:
            want = f(xr, xr.DataArray(dense, dims=("x", "y")))
        except ValueError as e:  # xarray's argmax of an all-nan slice: NumPy's error, and so sparray's
            with pytest.raises(ValueError, match=str(e)):
                f(xr, xr.DataArray(A, dims=("x", "y")))
            return
        got = f(xr, xr.DataArray(A, dims=("x", "y")))
    assert got.dims == want.dims
    data = got.data
    np.testing.assert_allclose(_host(data), want.values, rtol=1e-12, atol=1e-12, equal_nan=True)


# --- Dask: its nan reductions run NumPy's on the chunks ---------------------------------------------------------
def test_dask_nan_reductions_match_numpy():
    da = pytest.importorskip("dask.array")
    from sparray.interop.dask import from_dask_dense

    rng = np.random.default_rng(13)
    dense = np.round(rng.standard_normal((8, 6)), 2)
    dense[dense < 0] = 0.0
    dense[rng.random(dense.shape) < 0.15] = np.nan
    dense[3] = np.nan
    X = from_dask_dense(da.from_array(dense, chunks=(4, 3)))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        for name, axis in itertools.product(["nansum", "nanprod", "nanmean", "nanvar", "nanstd", "nanmax", "nanmin",
                                             "nancumsum", "nanmedian", "median"], [0, 1]):
            got = getattr(da, name)(X, axis=axis).compute()
            np.testing.assert_allclose(_host(got), getattr(np, name)(dense, axis=axis), rtol=1e-12, equal_nan=True,
                                       err_msg=str((name, axis)))


def test_doctests():
    import doctest

    from sparray._functions import line_statistics
    from sparray._numpy import nan_functions

    for mod in (line_statistics, nan_functions):
        assert doctest.testmod(mod).failed == 0, mod.__name__


def test_boolean_order_statistics_follow_numpy():
    """NumPy takes elements of a boolean array (methods without interpolation, an integer q of
    linear) and refuses to interpolate between booleans; its median is a mean (float64)."""
    dense = np.array([[True, False, True, False, False], [False, False, False, False, True]])
    A = sp.asarray(dense, layout="csr")
    for method, q in itertools.product(["lower", "higher", "nearest", "inverted_cdf", "closest_observation"],
                                       [0.5, [0.0, 0.3, 1.0]]):
        for axis in (None, 1):
            want, got = np.quantile(dense, q, axis=axis, method=method), np.quantile(A, q, axis=axis, method=method)
            assert _host(got).dtype == np.bool_
            np.testing.assert_array_equal(_host(got), want)
    np.testing.assert_array_equal(_host(np.quantile(A, [0, 1], axis=1)), np.quantile(dense, [0, 1], axis=1))
    for name in ("median", "nanmedian"):
        _check(getattr(np, name)(A, axis=1), getattr(np, name)(dense, axis=1), set(), set(), name)
    for method in ("linear", "hazen", "midpoint"):
        with pytest.raises(TypeError):
            np.quantile(dense, 0.5, method=method)
        with pytest.raises(TypeError, match="subtracting booleans"):
            np.quantile(A, 0.5, method=method)
