"""sparray.pad (and np.pad on sparse arrays) against np.pad on the dense arrays: every mode sparray has,
pad_width and constant_values in all of NumPy's forms, every layout with batched and hybrid shapes
(dense-part fills too), fills 0, 1.5, nan and -inf, what comes back, errors, the simulated GPU device,
and xarray's shift, pad and rolling sums."""

import numpy as np
import pytest
from cuda_testing import requires_gxx
from sparray_testing import FILLS, LAYOUT_SHAPES, make_sparse

import sparray
from sparray.kernels.cuda import simulated

LAYOUTS = ["coo", "csr", "csc", "bsr", "bsc"]
MODES = ["constant", "edge", "wrap", "reflect", "symmetric"]
CASE_IDS = ["x".join(map(str, shape)) + f"-s{s}" for shape, s, _ in LAYOUT_SHAPES]


def _widths(rng, shape, mode):
    """Random (before, after) per dim; none on an empty dim unless the mode is constant."""
    return [(0, 0) if (n == 0 and mode != "constant") else (int(rng.integers(0, 3)), int(rng.integers(0, 5)))
            for n in shape]  # fmt: skip


def _layout_back(R, A):
    """The layout pad promises: the input's when the padded shape allows it, else COO."""
    s = R.ndim - R.dense_ndim
    if A.layout == "coo" or s < 2:
        return "coo" if A.layout != "coo" and s < 2 else A.layout
    if A.layout in ("bsr", "bsc"):
        bh, bw = A.blocksize
        if R.shape[s - 2] % bh or R.shape[s - 1] % bw:
            return "coo"
    return A.layout


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("fill", FILLS, ids=["fill0", "fill1.5", "fillnan", "fill-inf"])
@pytest.mark.parametrize(("shape", "s", "block"), LAYOUT_SHAPES, ids=CASE_IDS)
@pytest.mark.parametrize("layout", LAYOUTS)
def test_pad_matches_numpy(layout, shape, s, block, fill, mode):
    rng = np.random.default_rng([LAYOUTS.index(layout), MODES.index(mode), *shape])
    A, D = make_sparse(rng, layout, shape, s, block, density=0.4, fill=fill, dense_fill=s < len(shape))
    for _ in range(3):
        widths = _widths(rng, shape, mode)
        kw = {}
        if mode == "constant":
            kw["constant_values"] = [tuple(float(rng.choice([0.0, 1.5, np.nan, -np.inf, 2.0])) for _ in "ba")
                                     for _ in shape]  # fmt: skip
        R = sparray.pad(A, widths, mode=mode, **kw)
        want = np.pad(D, widths, mode=mode, **kw)
        got = np.asarray(R.to_dense())
        assert got.shape == want.shape, (got.shape, want.shape, widths)
        np.testing.assert_array_equal(got, want, err_msg=f"{widths} {kw}")
        assert R.layout == _layout_back(R, A), (R.layout, A.layout, R.shape)
        if mode != "constant" and np.ndim(A.fill_value) == 0:  # the entries are repeated, the fill is kept
            np.testing.assert_array_equal(np.asarray(R.fill_value), np.asarray(A.fill_value))


@pytest.mark.parametrize("layout", ["coo", "csr", "csc"])
@pytest.mark.parametrize("fill", FILLS, ids=["fill0", "fill1.5", "fillnan", "fill-inf"])
def test_a_constant_equal_to_the_fill_adds_no_entries(layout, fill):
    rng = np.random.default_rng(1)
    A, D = make_sparse(rng, layout, (5, 6), None, None, density=0.3, fill=fill)
    R = sparray.pad(A, ((2, 1), (0, 3)), constant_values=fill)
    assert R.nse == A.nse and R.layout == layout
    np.testing.assert_array_equal(R.to_dense(), np.pad(D, ((2, 1), (0, 3)), constant_values=fill))
    other = 7.0
    R = sparray.pad(A, ((2, 1), (0, 3)), constant_values=other)  # the border: 8 * 9 - 5 * 6 elements
    assert R.nse == A.nse + 8 * 9 - 5 * 6
    np.testing.assert_array_equal(R.to_dense(), np.pad(D, ((2, 1), (0, 3)), constant_values=other))
    E = sparray.pad(A, 2, mode="empty")
    assert E.nse == A.nse and E.shape == (9, 10)
    np.testing.assert_array_equal(E.to_dense()[2:-2, 2:-2], D)


def test_signed_zero_constants_are_kept():
    A = sparray.asarray(np.array([[1.0, 0.0], [0.0, 2.0]]), fill_value=0.0)
    R = sparray.pad(A, 1, constant_values=-0.0)
    want = np.pad(A.to_dense(), 1, constant_values=-0.0)
    np.testing.assert_array_equal(np.signbit(R.to_dense()), np.signbit(want))
    assert R.nse == A.nse + 12


@pytest.mark.parametrize(
    "pad_width",
    [2, (2,), (1, 3), [(1, 3)], ((1, 2), (0, 3)), np.array([[1, 2], [0, 3]]), [[1], [2]], np.int64(1)],
    ids=["int", "1-tuple", "pair", "one pair", "per dim", "array", "one per dim", "numpy int"],
)
def test_pad_width_and_constant_forms(pad_width):
    rng = np.random.default_rng(2)
    A, D = make_sparse(rng, "csr", (3, 4), None, None, density=0.5, fill=1.5)
    for constants in (3.0, (3.0, 4.0), ((3.0, 4.0), (5.0, 6.0)), [[3.0], [4.0]]):
        np.testing.assert_array_equal(
            sparray.pad(A, pad_width, constant_values=constants).to_dense(),
            np.pad(D, pad_width, constant_values=constants),
        )


def test_dtypes():
    a = np.array([[3, 0, 0], [0, 0, 4]], dtype=np.int16)
    A = sparray.asarray(a, layout="csc")
    for kw in ({"constant_values": 7}, {"constant_values": 2.9}, {"mode": "edge"}):
        got, want = sparray.pad(A, 1, **kw).to_dense(), np.pad(a, 1, **kw)
        assert got.dtype == want.dtype == np.int16
        np.testing.assert_array_equal(got, want)
    b = np.array([[True, False], [False, False]])
    np.testing.assert_array_equal(sparray.pad(sparray.asarray(b), 1, constant_values=True).to_dense(),
                                  np.pad(b, 1, constant_values=True))  # fmt: skip


def test_dense_input_goes_to_its_namespace_and_numpy_pad_answers():
    d = np.arange(6.0).reshape(2, 3)
    assert type(sparray.pad(d, 1)) is np.ndarray
    A = sparray.asarray(d, fill_value=0.0, layout="csr")
    R = np.pad(A, ((1, 0), (2, 2)), constant_values=9.0)
    assert isinstance(R, sparray.SparseArray) and R.layout == "csr"
    np.testing.assert_array_equal(R.to_dense(), np.pad(d, ((1, 0), (2, 2)), constant_values=9.0))
    np.testing.assert_array_equal(np.pad(A, 2, "reflect").to_dense(), np.pad(d, 2, "reflect"))


@pytest.mark.parametrize(
    ("args", "kwargs", "error", "match"),
    [
        ((-1,), {}, ValueError, "must not be negative"),
        ((1.5,), {}, TypeError, "must hold integers"),
        ((((1, 2), (1, 2), (1, 2)),), {}, ValueError, "does not fit an array of 2 dims"),
        (("x",), {}, TypeError, "must hold integers"),
        ((1, "mean"), {}, ValueError, "mode='mean' is not supported"),
        ((1, np.mean), {}, ValueError, "is not supported"),
        ((1,), {"reflect_type": "odd"}, ValueError, "unsupported keyword arguments for mode 'constant'"),
        ((1, "reflect"), {"reflect_type": "odd"}, ValueError, "reflect_type='odd' is not supported"),
        ((1, "edge"), {"constant_values": 3}, ValueError, "unsupported keyword arguments for mode 'edge'"),
        ((1,), {"constant_values": ((1, 2), (1, 2), (3, 4))}, ValueError, "constant_values of shape"),
    ],
)
def test_errors_name_what_is_wrong(args, kwargs, error, match):
    A = sparray.asarray(np.eye(3))
    with pytest.raises(error, match=match):
        sparray.pad(A, *args, **kwargs)


def test_an_empty_dim_takes_only_constant_padding():
    A = sparray.asarray(np.ones((0, 3)))
    with pytest.raises(ValueError, match="cannot extend the empty dim 0 with mode='edge'"):
        sparray.pad(A, 1, mode="edge")
    np.testing.assert_array_equal(sparray.pad(A, 1, constant_values=2.0).to_dense(), np.pad(np.ones((0, 3)), 1, constant_values=2.0))


@requires_gxx
@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("fill", [0.0, 1.5, float("nan")], ids=["fill0", "fill1.5", "fillnan"])
def test_on_the_simulated_device(fill, layout):
    rng = np.random.default_rng(3)
    A, D = make_sparse(rng, layout, (4, 6), None, (2, 2), density=0.4, fill=fill)
    G = A.to_device("simulated")
    if layout in ("bsr", "bsc"):  # widths off the block grid: the result is a COO
        assert sparray.pad(G, (1, 0)).layout == "coo" and sparray.pad(G, 2).layout == layout
    for mode, kw in [("constant", {}), ("constant", {"constant_values": ((2.0, fill), (np.nan, 0.0))}), ("empty", {}),
                     ("edge", {}), ("wrap", {}), ("reflect", {}), ("symmetric", {})]:  # fmt: skip
        R = sparray.pad(G, ((2, 2), (2, 4)), mode=mode, **kw)
        assert simulated.is_simulated(R.values) and R.layout == layout, (mode, R.layout)
        got = np.asarray(R.to_device("cpu").to_dense())
        want = np.pad(D, ((2, 2), (2, 4)), mode=mode, **kw)
        if mode == "empty":
            got, want = got[2:-2, 2:-4], D
        np.testing.assert_array_equal(got, want, err_msg=f"{mode} {kw}")


def test_through_xarray():
    """xarray's shift, pad and rolling sums call xp.pad (rolling then sparray.lib.stride_tricks)."""
    xr = pytest.importorskip("xarray")
    rng = np.random.default_rng(4)
    for fill in [0.0, 1.5, float("nan")]:
        for layout in ("coo", "csr", "csc"):
            A, D = make_sparse(rng, layout, (4, 6), None, None, density=0.4, fill=fill)
            da, dd = xr.DataArray(A, dims=("x", "y")), xr.DataArray(D, dims=("x", "y"))
            checks = {
                "shift": lambda a: a.shift(y=2),
                "shift back, fill": lambda a, fill=fill: a.shift(x=-1, fill_value=fill),
                "pad": lambda a: a.pad(y=(1, 2)),
                "pad constant": lambda a: a.pad(x=1, constant_values=7.0),
                "pad edge": lambda a: a.pad(y=(2, 1), mode="edge"),
                "pad reflect": lambda a: a.pad(y=(2, 1), mode="reflect"),
                "pad symmetric": lambda a: a.pad(x=(3, 0), mode="symmetric"),
                "pad wrap": lambda a: a.pad(y=(0, 2), mode="wrap"),
                "rolling sum": lambda a: a.rolling(y=3).sum(),
                "rolling sum, skipna=False": lambda a: a.rolling(y=3).sum(skipna=False),
                "rolling sum, centered": lambda a: a.rolling(y=3, center=True).sum(skipna=False),
                "rolling mean, min_periods": lambda a: a.rolling(x=2, min_periods=1).mean(skipna=False),
                "rolling construct": lambda a: a.rolling(y=3).construct("w"),
            }
            for name, f in checks.items():
                with np.errstate(all="ignore"):
                    want = f(dd).values
                    got = f(da).data
                got = got.to_dense() if isinstance(got, sparray.SparseArray) else got
                assert np.shape(got) == want.shape, (name, fill, layout)
                np.testing.assert_allclose(np.asarray(got), want, equal_nan=True, err_msg=f"{name} {fill} {layout}")


def test_docstring_examples():
    import doctest

    from sparray._functions import pad as mod

    assert doctest.testmod(mod).failed == 0
