"""The line form along an axis (sparray/_functions/lines.py) that argmax, sort, argsort and the cumulative
functions share, the segmented scan of _segments.py, and the doctests of the searching, sorting,
set, cumulative and diff modules."""

import doctest
import importlib

import numpy as np
import pytest
from sparray_testing import make_coo, make_sparse

import sparray
from sparray._functions.lines import lines_of
from sparray._core.namespace import namespace_of
from sparray._engine.segments import segment_scan_sorted

XP = namespace_of(np.empty(0))


def dense_lines(L):
    """The dense (nlines, n, m) block the lines stand for, and which positions are specified."""
    block = np.broadcast_to(np.asarray(L.fill_row), (L.nlines, L.n, L.m)).copy()
    spec = np.zeros((L.nlines, L.n), dtype=bool)
    keys, line, pos = np.asarray(L.keys), np.asarray(L.line), np.asarray(L.pos)
    block[keys[line], pos] = np.asarray(L.rows)
    spec[keys[line], pos] = True
    return block, spec


@pytest.mark.parametrize("layout", ["coo", "csr", "csc", "bsr"])
def test_lines_hold_the_array(layout):
    rng = np.random.default_rng(0)
    for shape, s in [((4, 6), 2), ((2, 4, 6), 3), ((4, 6, 2), 2)]:
        A, D = make_sparse(rng, layout, shape, s, (2, 3), density=0.4, fill=0.5, dense_fill=True)
        sparse_ndim = A.ndim - A.dense_ndim
        for axis in range(sparse_ndim):
            L = lines_of(A, axis)
            block, spec = dense_lines(L)
            moved = np.moveaxis(D, axis, sparse_ndim - 1)  # (*kept, n, *dense)
            np.testing.assert_array_equal(block, moved.reshape(L.nlines, L.n, L.m))
            pos = np.asarray(L.pos)
            offsets = np.asarray(L.offsets)
            for i in range(len(offsets) - 1):  # positions increase within each line
                assert np.all(np.diff(pos[offsets[i] : offsets[i + 1]]) > 0)
            gaps = np.asarray(L.first_gaps())
            expected = [np.argmin(row) if not row.all() else L.n for row in spec[np.asarray(L.keys)]]
            np.testing.assert_array_equal(gaps, expected)


def test_compressed_rows_are_the_lines():
    rng = np.random.default_rng(1)
    A, _ = make_sparse(rng, "csr", (5, 7), density=0.3, fill=0.0)
    L, C = lines_of(A, 1), lines_of(A.to_layout("coo"), 1)
    for name in ("keys", "offsets", "pos", "rows"):
        np.testing.assert_array_equal(np.asarray(getattr(L, name)), np.asarray(getattr(C, name)))
    assert L.index_dtype == A.crow_indices.dtype


def test_uncoalesced_coo_is_coalesced_first():
    rng = np.random.default_rng(2)
    A, D = make_coo(rng, (4, 5), density=0.6, duplicates=True)
    block, _ = dense_lines(lines_of(A, 0))
    np.testing.assert_allclose(block[..., 0], D.T)


@pytest.mark.parametrize("op, np_op", [("sum", np.cumsum), ("prod", np.cumprod), ("max", np.maximum.accumulate)])
def test_segment_scan(op, np_op):
    values = np.array([[1.0], [2.0], [3.0], [4.0], [5.0], [6.0]])
    starts = np.array([True, False, True, False, False, True])
    acc, first, last = segment_scan_sorted(XP, starts, values, op)
    expected = np.concatenate([np_op(values[a:b], axis=0) for a, b in [(0, 2), (2, 5), (5, 6)]])
    np.testing.assert_array_equal(acc, expected)
    assert first.tolist() == [0, 2, 5] and last.tolist() == [1, 4, 5]


@pytest.mark.parametrize("module", ["_lines", "_order", "_arg_extremes", "_counting", "_sorting", "_sets",
                                    "_cumulative", "_diff"])
def test_doctests(module):
    mod = importlib.import_module(f"sparray.{module}")
    assert doctest.testmod(mod).failed == 0
    assert sparray.__file__  # the examples ran against this checkout
