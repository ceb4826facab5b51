"""NumPy functions and ufuncs on sparray arrays (``__array_function__``, ``__array_ufunc__``): each
one with a sparray counterpart equals NumPy's on the dense array, fill included; the rest are a
clear TypeError; ``np_array + A`` keeps working."""

import numpy as np
import pytest
from sparray_testing import assert_matches_dense, make_sparse

import sparray
from sparray._numpy.protocols import UFUNCS

FILLS = [0.0, 1.5, float("nan")]
LAYOUTS = ["coo", "csr", "csc", "bsr", "bsc"]


def _cases(fills=FILLS, layouts=LAYOUTS, shape=(4, 6)):
    rng = np.random.default_rng(7)
    for layout in layouts:
        for fill in fills:
            A, D = make_sparse(rng, layout, shape, 2, (2, 3), density=0.4, fill=fill)
            yield A, D


def _quiet():
    return np.errstate(all="ignore")


def _same(got, want):
    if isinstance(got, tuple):
        assert len(got) == len(want)
        for g, w in zip(got, want):
            _same(g, w)
        return
    g = got.to_dense() if isinstance(got, sparray.SparseArray) else np.asarray(got)
    w = np.asarray(want)
    assert g.shape == w.shape and g.dtype == w.dtype, (g.shape, w.shape, g.dtype, w.dtype)
    tol = 1e-5 if w.dtype in (np.float32, np.complex64) else 1e-12
    np.testing.assert_allclose(g, w, rtol=tol, atol=tol, equal_nan=True)


UNARY_UFUNCS = [np.negative, np.positive, np.absolute, np.sign, np.exp, np.expm1, np.log1p, np.sin, np.cos,
                np.tanh, np.arctan, np.floor, np.ceil, np.trunc, np.rint, np.isnan, np.isinf, np.isfinite,
                np.signbit, np.square, np.sqrt, np.conjugate, np.logical_not, np.reciprocal]  # fmt: skip
BINARY_UFUNCS = [np.add, np.subtract, np.multiply, np.divide, np.floor_divide, np.remainder, np.power, np.maximum,
                 np.minimum, np.arctan2, np.hypot, np.copysign, np.logaddexp, np.equal, np.not_equal, np.less,
                 np.less_equal, np.greater, np.greater_equal, np.logical_and, np.logical_or, np.logical_xor]  # fmt: skip


def test_ufunc_table_names_exist_on_both_sides():
    for np_name, name in UFUNCS.items():
        assert isinstance(getattr(np, np_name, None), np.ufunc) or np_name == "vecdot", np_name
        assert callable(getattr(sparray, name)), name


@pytest.mark.parametrize("ufunc", UNARY_UFUNCS, ids=lambda u: u.__name__)
def test_unary_ufuncs(ufunc):
    for A, D in _cases():
        with _quiet():
            got, want = ufunc(A), ufunc(D)
        assert isinstance(got, sparray.SparseArray) and got.layout == A.layout
        _same(got, want)
        with _quiet():
            assert_matches_dense(got, want, fill=ufunc(np.asarray(A.fill_value)))


@pytest.mark.parametrize("ufunc", BINARY_UFUNCS, ids=lambda u: u.__name__)
def test_binary_ufuncs_sparse_dense_scalar(ufunc):
    rng = np.random.default_rng(3)
    for A, D in _cases(layouts=["coo", "csr"]):
        B, E = make_sparse(rng, A.layout, A.shape, density=0.3, fill=2.0)
        row = rng.standard_normal(A.shape[1])
        with _quiet():
            _same(ufunc(A, B), ufunc(D, E))
            _same(ufunc(A, 2.5), ufunc(D, 2.5))
            _same(ufunc(np.float64(2.5), A), ufunc(2.5, D))
            _same(ufunc(row, A), ufunc(row, D))  # the dense operand first: NumPy asks A
            _same(ufunc(A, row), ufunc(D, row))


def test_numpy_array_operators_with_sparse_on_the_right():
    for A, D in _cases(layouts=["coo", "csr", "bsr"]):
        E = np.arange(D.size, dtype=float).reshape(D.shape)
        with _quiet():
            for got, want in [(E + A, E + D), (E - A, E - D), (E * A, E * D), (E / A, E / D), (E ** A, E ** D),
                              (E < A, E < D), (E == A, E == D), (E @ A.T, E @ D.T), (np.float64(3) * A, 3 * D)]:
                _same(got, want)
        D2 = E.copy()
        D2 += A  # in place into a dense array: out= is a dense NumPy array
        _same(D2, E + D)


def test_ufunc_dtype_and_reduce():
    for A, D in _cases():
        _same(np.add(A, A, dtype=np.float32), np.add(D, D, dtype=np.float32))
        with _quiet():
            _same(np.add.reduce(A), np.add.reduce(D))
            _same(np.maximum.reduce(A, axis=1), np.maximum.reduce(D, axis=1))
            _same(np.multiply.reduce(A, axis=None, keepdims=True), np.multiply.reduce(D, axis=None, keepdims=True))
        _same(np.logical_or.reduce(A != 0, axis=0), np.logical_or.reduce(D != 0, axis=0))


def test_unsupported_ufunc_arguments_and_methods():
    A, D = next(_cases())
    with pytest.raises(TypeError, match="out= must be a dense NumPy array"):
        np.add(A, A, out=(A,))
    with pytest.raises(TypeError, match=r"numpy.add: where="):
        np.add(A, A, where=np.ones(A.shape, bool))
    with pytest.raises(TypeError, match=r"order='F'"):
        np.add(A, A, order="F")
    with pytest.raises(TypeError, match="ufunc"):
        np.add.accumulate(A)
    with pytest.raises(TypeError, match="ufunc"):
        np.fmax(A, A)  # no array-API counterpart
    with pytest.raises(ValueError, match="out= has shape"):
        np.add(A, A, out=np.zeros((2, 2)))


@pytest.mark.parametrize("name", ["sum", "prod", "max", "min", "mean", "var", "std", "any", "all"])
def test_reductions_functions_and_methods(name):
    f = getattr(np, name)
    for A, D in _cases():
        for kw in [{}, {"axis": 0}, {"axis": 1, "keepdims": True}, {"axis": (0, 1)}]:
            with _quiet():
                _same(f(A, **kw), f(D, **kw))
                _same(getattr(A, name)(**kw), f(D, **kw))
    A, D = next(_cases())
    if name in ("var", "std"):
        with _quiet():
            _same(f(A, axis=0, ddof=1), f(D, axis=0, ddof=1))
            _same(f(A, 0, None, None, 1), f(D, 0, None, None, 1))  # NumPy's positional order
    if name in ("sum", "prod", "mean"):
        _same(f(A, axis=1, dtype=np.float32), f(D, axis=1, dtype=np.float32))
    with pytest.raises(TypeError, match="out= is not supported"):
        f(A, out=np.zeros(()))
    with pytest.raises(TypeError, match="where= is not supported"):
        f(A, where=np.ones(A.shape, bool))


def test_joining_shape_and_axes_functions():
    for A, D in _cases():
        _same(np.concatenate([A, A], axis=1), np.concatenate([D, D], axis=1))
        _same(np.concatenate([A, D], axis=0), np.concatenate([D, D], axis=0))
        _same(np.stack([A, A], axis=1), np.stack([D, D], axis=1))
        _same(np.transpose(A), D.T)
        _same(A.transpose(1, 0), D.T)
        _same(np.swapaxes(A, 0, 1), D.T)
        _same(np.moveaxis(A, 0, -1), np.moveaxis(D, 0, -1))
        _same(np.reshape(A, (3, -1)), D.reshape(3, -1))
        _same(A.reshape(2, 12), D.reshape(2, 12))
        _same(np.ravel(A), D.ravel())
        _same(np.expand_dims(A, (0, 3)), np.expand_dims(D, (0, 3)))
        _same(np.squeeze(np.expand_dims(A, 0)), D)
        _same(np.broadcast_to(A[:1], (3, 6)), np.broadcast_to(D[:1], (3, 6)))
        _same(np.flip(A, axis=1), np.flip(D, axis=1))
        _same(np.take(A, [3, 0, 3], axis=1), np.take(D, [3, 0, 3], axis=1))
        _same(np.take(A, [5, 1]), np.take(D, [5, 1]))
        assert np.shape(A) == D.shape and np.ndim(A) == 2 and np.size(A) == D.size and np.size(A, 1) == 6


def test_products_selection_and_other_functions():
    rng = np.random.default_rng(5)
    v, M = rng.standard_normal(6), rng.standard_normal((6, 3))
    for A, D in _cases():
        _same(np.tensordot(A, M, axes=1), np.tensordot(D, M, axes=1))
        _same(np.tensordot(A, A, axes=([0, 1], [0, 1])), np.tensordot(D, D, axes=([0, 1], [0, 1])))
        _same(np.dot(A, v), D @ v)
        _same(np.matmul(A, M), D @ M)
        _same(np.vecdot(A, A), np.vecdot(D, D))
        _same(np.where(A > 0, A, -1.0), np.where(D > 0, D, -1.0))
        _same(np.where(A > 0), np.where(D > 0))
        _same(np.nonzero(A > 0), np.nonzero(D > 0))
        _same(np.clip(A, -0.5, 0.5), np.clip(D, -0.5, 0.5))
        _same(np.round(A), np.round(D))
        _same(np.real(A), np.real(D))
        _same(np.imag(A), np.imag(D))
        _same(np.astype(A, np.float32), D.astype(np.float32))
        _same(np.copy(A), D)
        assert np.result_type(A, np.float32) == np.float64


def test_like_creation_keeps_layout_and_fill():
    for A, D in _cases(layouts=["coo", "csr", "csc"]):
        E = np.empty_like(A)
        assert E.layout == A.layout and E.nse == 0 and E.shape == A.shape
        np.testing.assert_array_equal(E.fill_value, A.fill_value)
        _same(np.zeros_like(A), np.zeros_like(D))
        _same(np.ones_like(A, dtype=np.int32), np.ones_like(D, dtype=np.int32))
        _same(np.full_like(A, 7.0, shape=(2, 3)), np.full((2, 3), 7.0))


def test_functions_without_a_counterpart_are_a_type_error():
    A, _ = next(_cases())
    # np.einsum: test_einsum.py; np.nan*, np.percentile: test_numpy_nan_functions.py
    for f in (np.isclose, np.allclose, np.histogram, np.convolve, np.ptp):
        with pytest.raises(TypeError, match="no implementation found|__array_function__"):
            f(A, A) if f in (np.isclose, np.allclose, np.convolve) else f(A)
    with sparray.auto_densify(max_elements=0), pytest.raises(TypeError, match="not converted to a dense NumPy array"):
        np.asarray(A)  # the conversion rule: tests/test_conversion_rule.py
    with pytest.raises(TypeError, match="decimals=2 is not supported"):
        np.round(A, 2)
    with pytest.raises(TypeError, match="order='F' is not supported"):
        np.reshape(A, (6, 4), order="F")


def test_other_array_types_are_left_to_answer():
    A, _ = next(_cases())

    class Other:
        def __array_function__(self, func, types, args, kwargs):
            return "other"

        def __array_ufunc__(self, ufunc, method, *inputs, **kwargs):
            return "other"

    assert np.concatenate([A, Other()]) == "other"
    assert np.add(A, Other()) == "other"


def test_docstring_examples_run():
    import doctest

    import sparray._numpy.protocols
    import sparray._array.pickle

    import sparray._numpy.extras

    for mod in (sparray._numpy.protocols, sparray._numpy.extras, sparray._array.pickle):
        assert doctest.testmod(mod).failed == 0, mod.__name__


def test_reduction_arguments_follow_numpy():
    A, D = next(_cases())
    for f in (np.sum, np.max, np.any):
        with pytest.raises(TypeError, match="unexpected keyword argument 'ddof'"):
            f(A, ddof=1)
    with pytest.raises(TypeError, match="positional argument"):
        np.any(A, 0, None, False, True)
    with pytest.raises(TypeError, match="initial= is not supported"):
        np.max(A, 0, None, False, 1.0)
    with pytest.raises(TypeError, match="initial= is not supported"):
        np.max(A, initial=0.0)
    with pytest.raises(ValueError, match="ddof and correction"):
        np.var(A, ddof=1, correction=1)
    _same(np.var(A, correction=1), np.var(D, ddof=1))


def test_creation_like_a_sparse_array_is_dense():
    A, _ = next(_cases())
    got = np.array([[1, 2]], like=A, dtype=np.float32, ndmin=3)
    assert type(got) is np.ndarray and got.shape == (1, 1, 2) and got.dtype == np.float32
    assert np.arange(3, like=A).tolist() == [0, 1, 2] and np.zeros(2, like=A).shape == (2,)



def test_searching_sorting_sets_running_and_tiling_functions():
    rng = np.random.default_rng(21)
    for A, D in _cases():
        with _quiet():
            for f in (np.argmax, np.argmin, np.count_nonzero):
                _same(f(A), f(D))
                _same(f(A, axis=1), f(D, axis=1))
            _same(np.argmax(A, axis=0, keepdims=True), np.argmax(D, axis=0, keepdims=True))
            _same(np.sort(A, axis=0), np.sort(D, axis=0))
            _same(np.sort(A, axis=None), np.sort(D, axis=None))
            _same(np.sort(A), np.sort(D))
            _same(np.take_along_axis(A, np.argsort(D, axis=1, kind="stable"), axis=1), np.sort(D, axis=1))
            for kw in [{}, {"return_counts": True}, {"return_index": True, "return_inverse": True, "return_counts": True}]:
                _same(np.unique(A, **kw), np.unique(D, **kw))
            _same(np.unique_values(A), np.unique_values(D))
            _same(np.cumsum(A), np.cumsum(D))
            _same(np.cumsum(A, axis=1), np.cumsum(D, axis=1))
            _same(np.cumprod(A, axis=0), np.cumprod(D, axis=0))
            _same(np.cumulative_sum(A, axis=0, include_initial=True), np.cumulative_sum(D, axis=0, include_initial=True))
            _same(np.diff(A, axis=0), np.diff(D, axis=0))
            _same(np.diff(A, n=2, prepend=0.0), np.diff(D, n=2, prepend=0.0))
            _same(np.tril(A, k=1), np.tril(D, k=1))
            _same(np.triu(A), np.triu(D))
            _same(np.repeat(A, 2, axis=1), np.repeat(D, 2, axis=1))
            _same(np.roll(A, 3), np.roll(D, 3))
            _same(np.roll(A, -1, axis=0), np.roll(D, -1, axis=0))
            _same(np.tile(A, (2, 1)), np.tile(D, (2, 1)))
            _same(np.tile(A, 2), np.tile(D, 2))
            _same(np.unstack(A, axis=1), np.unstack(D, axis=1))
            _same(np.broadcast_arrays(A[:1], A), np.broadcast_arrays(D[:1], D))
        row = np.sort(A[0].to_dense())
        S = sparray.asarray(row, fill_value=float(row[0]))
        v = rng.standard_normal(5)
        _same(np.searchsorted(S, v), np.searchsorted(row, v))
        _same(np.searchsorted(S, 0.25, side="right"), np.searchsorted(row, 0.25, side="right"))
    x = sparray.asarray(np.array([1.0, 0.0, 2.0]))
    _same(np.meshgrid(x, x), np.meshgrid(x.to_dense(), x.to_dense()))
    with pytest.raises(TypeError, match="sparse=True"):
        np.meshgrid(x, x, sparse=True)
    with pytest.raises(TypeError, match="axis= is not supported"):
        np.unique(x, axis=0)


def test_linalg_fft_trace_diagonal_and_outer():
    rng = np.random.default_rng(22)
    D = rng.standard_normal((5, 5))
    D[rng.random(D.shape) < 0.4] = 0.0
    D = D + 5 * np.eye(5)
    A = sparray.asarray(D, layout="csr")
    S = sparray.asarray(D @ D.T, layout="coo")
    with _quiet():
        for f in (np.linalg.det, np.linalg.inv, np.linalg.slogdet, np.linalg.svdvals, np.linalg.matrix_rank):
            _same(f(A), f(D))
        _same(np.linalg.solve(A, np.ones(5)), np.linalg.solve(D, np.ones(5)))
        _same(np.linalg.matrix_power(A, 3), np.linalg.matrix_power(D, 3))
        _same(np.linalg.cholesky(S), np.linalg.cholesky(S.to_dense()))
        _same(np.linalg.eigvalsh(S), np.linalg.eigvalsh(S.to_dense()))
        _same(np.linalg.svd(A, compute_uv=False), np.linalg.svd(D, compute_uv=False))
        _same(np.linalg.pinv(A), np.linalg.pinv(D))
        for kw in [{}, {"ord": 1}, {"ord": "fro"}, {"axis": 0}, {"axis": 1, "ord": 1, "keepdims": True}, {"axis": (1, 0)}]:
            _same(np.linalg.norm(A, **kw), np.linalg.norm(D, **kw))
        _same(np.linalg.vector_norm(A, axis=0), np.linalg.vector_norm(D, axis=0))
        _same(np.trace(A, offset=1), np.trace(D, offset=1))
        B = sparray.asarray(rng.standard_normal((2, 3, 4)))
        _same(np.trace(B, axis1=1, axis2=2), np.trace(B.to_dense(), axis1=1, axis2=2))
        _same(np.diagonal(B, offset=-1, axis1=0, axis2=2), np.diagonal(B.to_dense(), offset=-1, axis1=0, axis2=2))
        _same(np.outer(A[0], A[:, 1]), np.outer(D[0], D[:, 1]))
        for f in (np.fft.fft, np.fft.ifft, np.fft.rfft):
            _same(f(A, axis=0), f(D, axis=0))
        _same(np.fft.fftn(A, norm="ortho"), np.fft.fftn(D, norm="ortho"))
        _same(np.fft.fftshift(A), np.fft.fftshift(D))
    with pytest.raises(TypeError, match="UPLO='U' is not supported"):
        np.linalg.eigh(S, UPLO="U")
    with pytest.raises(TypeError, match="out= is not supported"):
        np.fft.fft(A, out=np.zeros(5, complex))
