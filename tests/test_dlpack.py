"""DLPack: ``__dlpack__`` refuses with the fix, ``__dlpack_device__`` answers, ``from_dlpack`` imports."""

import array_api_strict as xs
import numpy as np
import pytest

import sparray
from sparray._functions.dlpack import CopyRequiredError


@pytest.mark.parametrize("layout", ["coo", "csr", "csc", "bsr", "bsc"])
def test_dunder_dlpack_raises_with_the_fix(layout):
    A = sparray.asarray(np.eye(4), layout=layout, blocksize=(2, 2) if layout in ("bsr", "bsc") else None)
    for kw in ({}, {"max_version": (1, 0)}, {"dl_device": (1, 0), "copy": True}, {"stream": None}):
        with pytest.raises(BufferError, match=r"A.to_dense\(\).__dlpack__\(\)") as info:
            A.__dlpack__(**kw)
        assert "A.values" in str(info.value)
    assert A.__dlpack_device__() == (1, 0)
    # the fixes the message names work
    np.testing.assert_array_equal(np.from_dlpack(A.to_dense()), np.eye(4))
    np.testing.assert_array_equal(np.from_dlpack(A.values), A.values)


def test_dlpack_device_other_namespace():
    A = sparray.asarray(xs.asarray([0.0, 1.0]))
    kind, dev = A.__dlpack_device__()
    assert (int(kind), dev) == (1, 0) and type(dev) is int


def test_from_dlpack_dense_producers():
    D = np.array([[0.0, 2.0], [0.0, -0.0]])
    A = sparray.from_dlpack(D)
    assert isinstance(A, sparray.COO) and A.nse == 2  # the -0.0 is not the fill
    np.testing.assert_array_equal(A.to_dense(), D)
    B = sparray.from_dlpack(xs.asarray(D), device="cpu")
    np.testing.assert_array_equal(B.to_dense(), D)
    assert sparray.from_dlpack(D, copy=True).nse == 2
    with pytest.raises(ValueError, match="copy=False"):
        sparray.from_dlpack(D, copy=False)
    with pytest.raises(BufferError):
        sparray.from_dlpack(D, copy=False)  # the standard names both errors
    with pytest.raises(TypeError, match="__dlpack__"):
        sparray.from_dlpack([1.0, 2.0])


def test_from_dlpack_sparse_passes_through_or_copies():
    A = sparray.asarray([0.0, 3.0])
    assert sparray.from_dlpack(A) is A
    assert sparray.from_dlpack(A, device="cpu", copy=False) is A
    C = sparray.from_dlpack(A, copy=True)
    assert C is not A and C.values is not A.values
    np.testing.assert_array_equal(C.to_dense(), A.to_dense())
    assert issubclass(CopyRequiredError, ValueError) and issubclass(CopyRequiredError, BufferError)
    with pytest.raises(ValueError, match="copy must be"):
        sparray.from_dlpack(A, copy="yes")
