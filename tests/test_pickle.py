"""pickle, copy.copy and copy.deepcopy round-trip every layout: components, fill, flags, namespace."""

import copy
import pickle

import numpy as np
import pytest
from sparray_testing import FILLS, layout_cases, make_coo, make_sparse

import sparray


def _same(B, A):
    assert type(B) is type(A) and B.layout == A.layout and B.shape == A.shape and B.dtype == A.dtype
    assert B.index_dtype == A.index_dtype and B.dense_ndim == A.dense_ndim and B.batch_ndim == A.batch_ndim
    assert B.device == A.device and B._xp is A._xp
    np.testing.assert_array_equal(np.asarray(B.fill_value), np.asarray(A.fill_value))
    assert B.fill_value.shape == A.fill_value.shape
    if A.layout == "coo":
        assert B.is_coalesced == A.is_coalesced
        np.testing.assert_array_equal(np.asarray(B.indices), np.asarray(A.indices))
    if A.layout in ("bsr", "bsc"):
        assert B.blocksize == A.blocksize
    np.testing.assert_array_equal(np.asarray(B.values), np.asarray(A.values))
    np.testing.assert_array_equal(B.to_dense(), A.to_dense())


@pytest.mark.parametrize("how", ["pickle", "deepcopy", "copy"])
def test_round_trip_every_layout_and_fill(how):
    rng = np.random.default_rng(5)
    trip = {
        "pickle": lambda A: pickle.loads(pickle.dumps(A, protocol=pickle.HIGHEST_PROTOCOL)),
        "deepcopy": copy.deepcopy,
        "copy": copy.copy,
    }[how]
    n = 0
    for _, A, _ in layout_cases(rng, fills=FILLS + [-2.0, float("inf")]):
        B = trip(A)
        _same(B, A)
        if how != "copy":
            assert not np.shares_memory(np.asarray(B.values), np.asarray(A.values)) or A.values.size == 0
        n += 1
    assert n > 50


def test_uncoalesced_coo_int32_indices_and_int_dtype():
    rng = np.random.default_rng(0)
    A, _ = make_coo(rng, (5, 4), 2, density=0.5, fill=3, dtype="int64", index_dtype="int32", duplicates=True)
    assert not A.is_coalesced
    _same(pickle.loads(pickle.dumps(A)), A)
    _same(copy.deepcopy(A), A)


def test_deepcopy_inside_containers_and_after_kernels_cached_state():
    A = sparray.asarray(np.eye(4), layout="csr")
    A @ np.ones(4)  # may cache per-array state (unused columns)
    box = {"a": [A, A]}
    copied = copy.deepcopy(box)
    assert copied["a"][0] is copied["a"][1]  # the memo keeps shared references shared
    _same(copied["a"][0], A)


def test_array_api_strict_components_come_back_in_their_namespace():
    xps = pytest.importorskip("array_api_strict")
    A = sparray.COO(xps.asarray([[0, 2]]), xps.asarray([1.0, 2.0]), shape=(3,), fill_value=0.5)
    B = pickle.loads(pickle.dumps(A))
    assert B._xp is A._xp and type(B.values) is type(A.values)
    assert float(sparray.sum(B)) == float(sparray.sum(A)) == 3.5


@pytest.mark.parametrize("layout", ["coo", "csr", "csc", "bsr", "bsc"])
@pytest.mark.parametrize("index_dtype", ["int32", "int64"])
def test_protocol_5_moves_every_component_out_of_band_without_copies(layout, index_dtype):
    """What dask.distributed does: pickle.dumps(protocol=5, buffer_callback=...) leaves only metadata
    in the stream; each component is a buffer over its own memory, and loads builds over them."""
    rng = np.random.default_rng(11)
    A, _ = make_sparse(rng, layout, (6, 8), 2, (2, 4), density=0.5, fill=1.5, index_dtype=index_dtype)
    bufs = []
    stream = pickle.dumps(A, protocol=5, buffer_callback=bufs.append)
    assert len(stream) < 1000  # class, shape, flags and the buffers' places: no component bytes
    comps = list(A._components().values())
    raw = [np.asarray(b.raw()) for b in bufs]
    for c in comps:
        assert any(np.shares_memory(r, c) for r in raw), "a component was copied into the stream"
    B = pickle.loads(stream, buffers=bufs)
    _same(B, A)
    assert B.index_dtype == np.dtype(index_dtype) and float(B.fill_value) == 1.5
    for b, a in zip(B._components().values(), comps):
        assert np.shares_memory(b, a)  # built over the buffers: no copy on the way in either
    for proto in range(2, pickle.HIGHEST_PROTOCOL + 1):  # in band, every protocol
        _same(pickle.loads(pickle.dumps(A, protocol=proto)), A)


def test_pickle_carries_no_private_state_and_keeps_the_checked_flag():
    A = sparray.asarray(np.eye(5), layout="csr")
    A @ np.ones(5)  # kernels may cache per-array facts
    A._check_contents()
    fn, args = A.__reduce_ex__(5)
    cls, comps, shape, fill, flags = args
    assert cls is sparray.CSR and shape == (5, 5) and flags == {"checked": True}
    assert len(comps) == 3 and comps[0] is A.crow_indices
    assert pickle.loads(pickle.dumps(A))._checked


def test_sizeof_counts_the_components():
    import sys

    A = sparray.asarray(np.eye(100), layout="csr")
    assert sys.getsizeof(A) >= A.nbytes > 0


# [COO([[0, 2]], [5.0, 7.0], shape=(3,), fill_value=-1.0), a 2 x 2 BSR (blocksize (1, 2), fill 0.5)], pickled
# (protocol 2) before the modules moved into folders: the stream names sparray._pickle.rebuild,
# sparray._coo.COO and sparray._blocked.BSR
_OLD_PICKLE = (
    "gAJdcQAoY3NwYXJyYXkuX3BpY2tsZQpyZWJ1aWxkCnEBKGNzcGFycmF5Ll9jb28KQ09PCnECY251bXB5Ll9jb3JlLm11bHRpYXJy"
    "YXkKX3JlY29uc3RydWN0CnEDY251bXB5Cm5kYXJyYXkKcQRLAIVxBWNfY29kZWNzCmVuY29kZQpxBlgBAAAAYnEHWAYAAABsYXRp"
    "bjFxCIZxCVJxCodxC1JxDChLAUsBSwKGcQ1jbnVtcHkKZHR5cGUKcQ5YAgAAAGk4cQ+JiIdxEFJxEShLA1gBAAAAPHESTk5OSv//"
    "//9K/////0sAdHETYoloBlgQAAAAAAAAAAAAAAACAAAAAAAAAHEUaAiGcRVScRZ0cRdiaANoBEsAhXEYaAqHcRlScRooSwFLAoVx"
    "G2gOWAIAAABmOHEciYiHcR1ScR4oSwNoEk5OTkr/////Sv////9LAHRxH2KJaAZYEAAAAAAAAAAAABRAAAAAAAAAHEBxIGgIhnEh"
    "UnEidHEjYoZxJEsDhXElaANoBEsAhXEmaAqHcSdScSgoSwEpaB6JaAZYCgAAAAAAAAAAAMOwwr9xKWgIhnEqUnErdHEsYn1xLShY"
    "BwAAAGNoZWNrZWRxLolYCQAAAGNvYWxlc2NlZHEvTnV0cTBScTFoAShjc3BhcnJheS5fYmxvY2tlZApCU1IKcTJoA2gESwCFcTNo"
    "CodxNFJxNShLAUsDhXE2aA5YAgAAAGk0cTeJiIdxOFJxOShLA2gSTk5OSv////9K/////0sAdHE6YoloBlgMAAAAAAAAAAEAAAAC"
    "AAAAcTtoCIZxPFJxPXRxPmJoA2gESwCFcT9oCodxQFJxQShLAUsChXFCaDmJaAZYCAAAAAAAAAAAAAAAcUNoCIZxRFJxRXRxRmJo"
    "A2gESwCFcUdoCodxSFJxSShLAUsCSwFLAodxSmgeiWgGWCEAAAAAAAAAAADDsD8AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAEBxS2gI"
    "hnFMUnFNdHFOYodxT0sCSwKGcVBoA2gESwCFcVFoCodxUlJxUyhLASloHoloBlgJAAAAAAAAAAAAw6A/cVRoCIZxVVJxVnRxV2J9"
    "cVhoLohzdHFZUnFaZS4="
)


def test_pickles_made_before_the_folders_still_load():
    import base64

    A, B = pickle.loads(base64.b64decode(_OLD_PICKLE))
    assert type(A) is sparray.COO and A.fill_value.item() == -1.0
    assert A.to_dense().tolist() == [5.0, -1.0, 7.0]
    assert type(B) is sparray.BSR and B.blocksize == (1, 2) and B.fill_value.item() == 0.5
    assert B.to_dense().tolist() == [[1.0, 0.0], [0.0, 2.0]]
