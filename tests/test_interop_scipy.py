"""scipy.sparse <-> COO (the part of the interop issue that asarray needs now)."""

import numpy as np
import pytest

import sparray

sp = pytest.importorskip("scipy.sparse")
from sparray.interop.scipy import from_scipy, to_scipy  # noqa: E402


@pytest.mark.parametrize("fmt", ["coo", "csr", "csc", "bsr", "lil", "dok", "dia"])
def test_from_scipy_every_format(fmt):
    rng = np.random.default_rng(0)
    dense = np.where(rng.random((6, 8)) < 0.3, rng.standard_normal((6, 8)), 0.0)
    m = sp.coo_array(dense).asformat(fmt)
    A = from_scipy(m)
    np.testing.assert_array_equal(A.to_dense(), dense)
    B = sparray.asarray(m)
    np.testing.assert_array_equal(B.to_dense(), dense)


def test_from_scipy_keeps_duplicates_as_their_sum():
    m = sp.coo_array(([1.0, 2.0, 3.0], ([0, 0, 1], [1, 1, 2])), shape=(2, 3))
    A = from_scipy(m)
    assert A.nse == 3 and not A.is_coalesced
    np.testing.assert_array_equal(A.to_dense(), [[0, 3, 0], [0, 0, 3]])


def test_to_scipy_round_trip_and_fill_rule():
    A = sparray.COO([[0, 1, 1], [2, 0, 2]], [3.0, 4.0, 5.0], shape=(2, 3))
    for fmt in ("coo", "csr", "csc"):
        m = to_scipy(A, fmt)
        assert m.format == fmt
        np.testing.assert_array_equal(m.toarray(), A.to_dense())
    with pytest.raises(ValueError, match="fill"):
        to_scipy(A + 1.0)
    with pytest.raises(ValueError, match="dense"):
        to_scipy(sparray.COO([[0]], [[1.0, 2.0]], shape=(2, 2)))


def test_asarray_of_scipy_with_a_fill_value():
    m = sp.csr_array(np.array([[0.0, 1.0], [2.0, 0.0]]))
    A = sparray.asarray(m, fill_value=1.0)  # elements equal to the new fill become unspecified
    np.testing.assert_array_equal(A.to_dense(), [[0.0, 1.0], [2.0, 0.0]])
    assert A.nse == 3 and float(A.fill_value) == 1.0
