"""tril and triu against NumPy: every layout, batched and hybrid shapes, any fill, and the errors."""

import numpy as np
import pytest
from manipulation_cases import all_cases
from sparray_testing import assert_matches_dense, make_coo

import sparray

FUNCS = [(sparray.tril, np.tril), (sparray.triu, np.triu)]


def test_tril_triu_every_layout_matches_numpy():
    rng = np.random.default_rng(0)
    for layout, A, D in all_cases(rng):
        if A.ndim < 2:
            continue
        for k in (-2, 0, 1):
            for ours, theirs in FUNCS:
                R = ours(A, k=k)
                assert R.layout == A.layout, (layout, A.shape)  # the shape is unchanged: so is the layout
                assert_matches_dense(R, theirs(D, k=k))


@pytest.mark.parametrize("fill", [1.5, float("nan"), float("-inf")])
def test_nonzero_fill_builds_the_cheaper_exact_form(fill):
    """A non-zero fill: fill 0 with the kept triangle specified, or the old fill with the zeroed
    triangle specified as explicit zeros, whichever has fewer entries."""
    A = sparray.full((4, 4), fill)
    R = sparray.tril(A)  # kept 10 > zeroed 6: keep the fill, 6 explicit zeros
    assert R.nse == 6
    assert_matches_dense(R, np.tril(np.full((4, 4), fill)), fill=fill)
    R = sparray.tril(A, k=-2)  # kept 3 < zeroed 13: fill 0, the kept 3 specified
    assert R.nse == 3
    assert_matches_dense(R, np.tril(np.full((4, 4), fill), k=-2), fill=0.0)
    B = sparray.COO([[0, 0, 1, 1], [0, 0, 1, 1], [0, 1, 0, 1]], [1.0, 2.0, 3.0, 4.0], shape=(2, 3, 3), fill_value=fill)
    R = sparray.triu(B, k=1)  # batched: per matrix, kept 3 vs zeroed 6 plus the entries
    assert R.nse == 2 * 3 and float(R.fill_value) == 0.0
    assert_matches_dense(R, np.triu(B.to_dense(), k=1))


def test_zero_fill_keeps_only_the_entries_inside():
    A = sparray.COO([[0, 1, 2, 2], [2, 1, 0, 2]], [1.0, 2.0, 3.0, 4.0], shape=(3, 3))
    R = sparray.tril(A)
    assert R.nse == 3 and float(R.fill_value) == 0.0 and R.is_coalesced
    assert_matches_dense(R, np.tril(A.to_dense()))


def test_negative_zero_fill_is_not_the_zero_written():
    R = sparray.tril(sparray.full((3, 3), -0.0))
    dense = R.to_dense()
    assert np.array_equal(np.signbit(dense), np.signbit(np.tril(np.full((3, 3), -0.0))))


def test_hybrid_triangle_is_over_the_last_two_dims():
    """Over the array's last two dims, as NumPy on the dense form: for a hybrid CSR (M, N, D) that
    is (N, D). A dense-part fill along the last dim is masked per row."""
    rng = np.random.default_rng(1)
    for s, fill in ((2, 1.5), (2, float("nan")), (1, 2.0), (1, 0.0)):
        A, D = make_coo(rng, (3, 4, 5), s, density=0.5, fill=fill, dense_fill=True)
        for k in (-1, 0, 2):
            for ours, theirs in FUNCS:
                R = ours(A, k=k)
                assert R.dense_ndim == A.dense_ndim
                assert_matches_dense(R, theirs(D, k=k))
    C = make_coo(rng, (3, 4, 5), 2, density=0.5, fill=1.5, dense_fill=True)[0].to_layout("csr")
    assert C.dense_ndim == 1
    assert_matches_dense(sparray.tril(C), np.tril(C.to_dense()))
    H, DH = make_coo(rng, (6, 3, 3), 1, density=0.5, fill=1.5)  # both dims dense: the fill is masked
    R = sparray.triu(H)
    assert R.nse == H.nse
    assert_matches_dense(R, np.triu(DH), fill=np.triu(np.full((3, 3), 1.5)))


def test_shortcuts_and_empty_dims():
    A = sparray.COO([[0, 1], [1, 0]], [1.0, 2.0], shape=(2, 3), fill_value=4.0)
    assert sparray.tril(A, k=2) is A and sparray.triu(A, k=-1) is A
    for R in (sparray.tril(A, k=-2), sparray.triu(A, k=3)):
        assert R.nse == 0 and float(R.fill_value) == 0.0
        np.testing.assert_array_equal(R.to_dense(), np.zeros((2, 3)))
    E = sparray.COO(np.zeros((3, 0), np.int64), np.zeros(0), shape=(2, 0, 3), fill_value=1.0)
    assert sparray.tril(E).shape == (2, 0, 3)


def test_errors_and_dense_input():
    A = sparray.COO([[0, 2]], [1.0, 2.0], shape=(3,))
    with pytest.raises(ValueError, match=r"tril: needs an array of at least 2 dims \(\.\.\., M, N\); got shape \(3,\)"):
        sparray.tril(A)
    with pytest.raises(TypeError, match="triu: k must be an int; got 1.5"):
        sparray.triu(sparray.eye(3), k=1.5)
    D = np.arange(9.0).reshape(3, 3)
    np.testing.assert_array_equal(sparray.tril(D, k=-1), np.tril(D, k=-1))
    np.testing.assert_array_equal(sparray.triu(D), np.triu(D))


def test_array_api_strict_components():
    xps = pytest.importorskip("array_api_strict")
    rng = np.random.default_rng(2)
    for s in (3, 2, 1):
        A, D = make_coo(rng, (2, 3, 4), s, fill=1.5, xp=xps, dense_fill=True)
        assert_matches_dense(sparray.tril(A, k=1), np.tril(D, k=1))
        assert_matches_dense(sparray.triu(A, k=-1), np.triu(D, k=-1))


def test_docstring_examples():
    import doctest

    import sparray._functions.triangular

    for mod in (sparray._functions.triangular,):
        assert doctest.testmod(mod).failed == 0, mod.__name__
