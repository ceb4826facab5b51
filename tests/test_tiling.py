"""repeat, tile and roll against NumPy: every layout, batched and hybrid shapes, any fill, errors."""

import numpy as np
import pytest
from manipulation_cases import all_cases, result_layout_ok, same_fill
from sparray_testing import assert_matches_dense, make_coo

import sparray


def _axes(n):
    return [None, *range(-n, n)]


def test_repeat_every_layout_matches_numpy():
    rng = np.random.default_rng(0)
    for layout, A, D in all_cases(rng):
        for axis in _axes(A.ndim):
            m = D.size if axis is None else D.shape[axis]
            for reps in (2, rng.integers(0, 3, size=m), *([np.asarray([3], dtype=np.int32)] if axis is None else [])):
                R = sparray.repeat(A, reps, axis=axis)
                assert result_layout_ok(R, A)
                assert_matches_dense(R, np.repeat(D, reps, axis=axis))
                if A.fill_value.ndim == 0:
                    assert same_fill(R, A)


def test_tile_every_layout_matches_numpy():
    rng = np.random.default_rng(1)
    for layout, A, D in all_cases(rng):
        for reps in [(2,), (2, 1), (1, 3, 1), (0, 2), (2,) * (A.ndim + 1), ()]:
            R = sparray.tile(A, reps)
            assert result_layout_ok(R, A)
            assert_matches_dense(R, np.tile(D, reps))


def test_roll_every_layout_matches_numpy():
    rng = np.random.default_rng(2)
    for layout, A, D in all_cases(rng):
        n = A.ndim
        cases = [(3, None), (-1, None), *((1 if a % 2 else -7, a) for a in range(-n, n)),
                 ((1, -2), (0, -1)), ((1, 2), (0, 0)), (2, (0, -1))]  # fmt: skip
        for shift, axis in cases:
            R = sparray.roll(A, shift, axis=axis)
            assert result_layout_ok(R, A)
            assert_matches_dense(R, np.roll(D, shift, axis=axis))
            if A.fill_value.ndim == 0:
                assert same_fill(R, A)


def test_keeps_the_split_coalesced_order_and_nse():
    rng = np.random.default_rng(3)
    A, D = make_coo(rng, (4, 5, 2), 2, density=0.5, fill=1.5, dense_fill=True)
    A = A.coalesce()
    for R, expected in ((sparray.repeat(A, 3, axis=1), np.repeat(D, 3, axis=1)),
                        (sparray.repeat(A, [1, 0], axis=2), np.repeat(D, [1, 0], axis=2)),
                        (sparray.tile(A, (2, 1, 2)), np.tile(D, (2, 1, 2))),
                        (sparray.roll(A, (1, 1), axis=(1, 2)), np.roll(D, (1, 1), axis=(1, 2)))):  # fmt: skip
        assert (R.sparse_ndim, R.dense_ndim) == (2, 1)
        assert_matches_dense(R, expected)
    assert sparray.repeat(A, 3, axis=1).nse == 3 * A.nse and sparray.repeat(A, 3, axis=1).is_coalesced
    assert sparray.tile(A, (3, 1, 1)).nse == 3 * A.nse and sparray.tile(A, (3, 1, 1))._coalesced
    assert sparray.roll(A, 2, axis=2).nse == A.nse  # a dense dim: the value axis rolls


def test_coalesced_input_gives_a_coalesced_result_and_says_so():
    """The copies of a run of entries are written in row-major order and rolled runs are rotated,
    so the result of a coalesced COO is coalesced (no sort when it goes back to CSR); the flag
    it carries is checked against the indices themselves."""
    from sparray._core.keys import is_sorted_unique

    rng = np.random.default_rng(5)
    for shape, s in (((4, 5, 3), 3), ((3, 4, 2), 2), ((6,), 1)):
        A = make_coo(rng, shape, s, density=0.5, fill=1.5)[0].coalesce()
        n = A.ndim
        results = [sparray.roll(A, 7), sparray.tile(A, (2,) * (n + 1))]
        for d in range(n):
            results += [sparray.repeat(A, rng.integers(0, 3, size=A.shape[d]), axis=d),
                        sparray.roll(A, (1, -2), axis=(d, 0)), sparray.tile(A, (1,) * d + (3,))]  # fmt: skip
        for R in results:
            assert R._coalesced is True and is_sorted_unique(R)
    U, DU = make_coo(rng, (4, 5), 2, density=0.5, fill=1.5, duplicates=True)
    R = sparray.roll(U, 2, axis=1)  # duplicates stay duplicates; order unknown
    assert R.nse == U.nse
    assert_matches_dense(R, np.roll(DU, 2, axis=1))


def test_csr_stays_csr_and_blocks_fall_back_to_coo():
    C = sparray.asarray(np.array([[1.0, 0, 2, 0], [0, 3, 0, 0]]), layout="csr", fill_value=0.0)
    assert sparray.repeat(C, 2, axis=0).layout == "csr"
    assert sparray.roll(C, 1, axis=1).layout == "csr"
    assert sparray.tile(C, (1, 2)).layout == "csr"
    B = C.to_layout("bsr", blocksize=(2, 2))
    R = sparray.roll(B, 1, axis=0)  # a shape the blocks still tile: BSR
    assert R.layout == "bsr"
    np.testing.assert_array_equal(R.to_dense(), np.roll(C.to_dense(), 1, axis=0))
    R = sparray.repeat(B, [1, 2], axis=0)  # 3 rows: no 2-row blocks
    assert R.layout == "coo"
    np.testing.assert_array_equal(R.to_dense(), np.repeat(C.to_dense(), [1, 2], axis=0))


def test_repeats_as_arrays_of_any_kind():
    A = sparray.COO([[0, 2]], [1.0, 2.0], shape=(3,), fill_value=-1.0)
    expected = np.repeat(A.to_dense(), [2, 0, 1])
    for reps in ([2, 0, 1], np.asarray([2, 0, 1], dtype=np.int32), np.asarray([2, 0, 1], dtype=np.uint8),
                 sparray.asarray(np.asarray([2, 0, 1]))):  # fmt: skip
        np.testing.assert_array_equal(sparray.repeat(A, reps).to_dense(), expected)
    np.testing.assert_array_equal(sparray.repeat(A, np.asarray(2)).to_dense(), np.repeat(A.to_dense(), 2))


def test_errors():
    A = sparray.COO([[0, 1], [1, 0]], [1.0, 2.0], shape=(2, 3))
    with pytest.raises(ValueError, match=r"repeat: repeats must be non-negative; got repeats\[1\] = -1"):
        sparray.repeat(A, [1, -1], axis=0)
    with pytest.raises(ValueError, match="repeat: repeats must be non-negative; got repeats = -2"):
        sparray.repeat(A, -2)
    with pytest.raises(ValueError, match=r"repeats of shape \(2,\) must have shape \(1,\) or \(3,\)"):
        sparray.repeat(A, [1, 2], axis=1)
    with pytest.raises(ValueError, match=r"1-d array; got shape \(1, 2\)"):
        sparray.repeat(A, [[1, 2]], axis=0)
    with pytest.raises(TypeError, match="repeat: repeats must be an int or an array of integers"):
        sparray.repeat(A, [1.5, 2.0], axis=0)
    with pytest.raises(IndexError, match="repeat: axis 2 is out of range"):
        sparray.repeat(A, 2, axis=2)
    with pytest.raises(ValueError, match=r"tile: repetitions must be non-negative; got \(2, -1\)"):
        sparray.tile(A, (2, -1))
    with pytest.raises(TypeError, match="tile: repetitions must be a tuple of ints"):
        sparray.tile(A, (2.5,))
    with pytest.raises(TypeError, match="roll: shift must be an int or a tuple of ints"):
        sparray.roll(A, 1.5)
    with pytest.raises(ValueError, match="roll: shift .* and axis .* must have the same length"):
        sparray.roll(A, (1, 2, 3), axis=(0, 1))
    with pytest.raises(ValueError, match="roll: axis -3 is out of range"):
        sparray.roll(A, 1, axis=-3)


def test_dense_input_goes_to_its_namespace():
    D = np.arange(6.0).reshape(2, 3)
    np.testing.assert_array_equal(sparray.repeat(D, 2, axis=1), np.repeat(D, 2, axis=1))
    np.testing.assert_array_equal(sparray.repeat(D, sparray.asarray(np.asarray([1, 0])), axis=0), D[:1])
    np.testing.assert_array_equal(sparray.tile(D, (2, 1)), np.tile(D, (2, 1)))
    np.testing.assert_array_equal(sparray.roll(D, 1, axis=1), np.roll(D, 1, axis=1))


def test_array_api_strict_components():
    xps = pytest.importorskip("array_api_strict")
    rng = np.random.default_rng(4)
    for s in (3, 2):
        A, D = make_coo(rng, (2, 3, 4), s, fill=1.5, xp=xps, dense_fill=True, duplicates=True)
        assert_matches_dense(sparray.repeat(A, xps.asarray([1, 0, 2]), axis=1), np.repeat(D, [1, 0, 2], axis=1))
        assert_matches_dense(sparray.repeat(A, 2, axis=2), np.repeat(D, 2, axis=2))
        assert_matches_dense(sparray.tile(A, (2, 1, 2)), np.tile(D, (2, 1, 2)))
        assert_matches_dense(sparray.roll(A, (1, -1), axis=(0, 2)), np.roll(D, (1, -1), axis=(0, 2)))
        assert_matches_dense(sparray.roll(A, 5), np.roll(D, 5))


def test_docstring_examples():
    import doctest

    import sparray._engine.ragged
    import sparray._functions.tiling

    for mod in (sparray._functions.tiling, sparray._engine.ragged):
        assert doctest.testmod(mod).failed == 0, mod.__name__
