"""2:4 arrays <-> torch's SparseSemiStructuredTensor, and CUTLASS's metadata order.

torch's CPU build has no semi-structured products, but its CUTLASS conversion helpers
(``torch.sparse._semi_structured_conversions``) are plain torch operations that run on CPU
tensors, and ``SparseSemiStructuredTensorCUTLASS`` can hold CPU tensors (its ``to_dense`` is the
helper's decoder). So the format is checked here bit for bit against torch's own encoder and
decoder, and the tensors are built and read on the CPU (``semi_structured_tensor(...,
_host_ok=True)``). What needs a GPU (torch's products, cuSPARSELt's compressor, CuPy data through
DLPack) runs in the CUDA tests at the end, skipped without one.
"""

import numpy as np
import pytest

import sparray

torch = pytest.importorskip("torch")
import array_api_compat.numpy as xp_np
from torch.sparse import SparseSemiStructuredTensorCUSPARSELT, SparseSemiStructuredTensorCUTLASS
from torch.sparse._semi_structured_conversions import (
    _calculate_meta_reordering_scatter_offsets,
    sparse_semi_structured_from_dense_cutlass,
    sparse_semi_structured_to_dense_cutlass,
)

from sparray.interop import _torch_semi as ts
from sparray.interop.torch import _export, from_torch, to_torch
from sparray.kernels.cuda import simulated

pytestmark = [
    pytest.mark.filterwarnings("ignore:The PyTorch API of SparseSemiStructuredTensor is in prototype stage"),
    pytest.mark.filterwarnings("ignore:Sparse (CSR|CSC|BSR|BSC) tensor support is in beta state"),
]

TORCH_DTYPES = {"float16": torch.float16, "bfloat16": torch.bfloat16, "int8": torch.int8, "float32": torch.float32}
PAIRS = np.array([(0, 1), (0, 2), (0, 3), (1, 2), (1, 3), (2, 3)])


def _two_per_group(rng, m, k, dtype, one_of_two=False):
    """A dense ``(m, k)`` matrix with exactly two non-zeros (small integers, exact in every dtype)
    in each group of 4; ``one_of_two``: exactly one in each pair of columns (float32's 1:2)."""
    x = np.zeros((m, k // 4, 4), dtype=dtype)
    if one_of_two:
        pos = np.stack([rng.integers(0, 2, (m, k // 4)), rng.integers(2, 4, (m, k // 4))], axis=-1)
    else:
        pos = PAIRS[rng.integers(0, 6, (m, k // 4))]
    vals = rng.integers(1, 9, pos.shape) * rng.choice([-1, 1], pos.shape)
    np.put_along_axis(x, pos, vals.astype(dtype), axis=-1)
    return x.reshape(m, k)


def _sparse_ish(rng, m, k, dtype):
    """A 2:4 matrix whose groups hold 0, 1 or 2 non-zeros (torch's encoder and sparray's then
    choose different positions for the missing ones)."""
    x = _two_per_group(rng, m, k, dtype)
    x[rng.random(x.shape) < 0.4] = 0
    return x


def _host_dtype(name):
    """The sparray dtype holding a torch dtype's values exactly (float16, bfloat16 -> float32)."""
    return np.int8 if name == "int8" else np.float32


# --- the reordering itself -----------------------------------------------------------------------------
@pytest.mark.parametrize(("bits", "rows", "ncols"), [(16, 32, 2), (16, 64, 6), (16, 96, 4), (32, 16, 2), (32, 48, 4)])
def test_offsets_are_torchs_and_inverse(bits, rows, ncols):
    meta_dtype = torch.int16 if bits == 16 else torch.int32
    theirs = _calculate_meta_reordering_scatter_offsets(rows, ncols, meta_dtype, "cpu").numpy()
    mine = ts._scatter_offsets(xp_np, rows, ncols, bits, "cpu")
    np.testing.assert_array_equal(mine, theirs)
    inverse = ts._gather_offsets(xp_np, rows, ncols, bits, "cpu")
    np.testing.assert_array_equal(inverse, np.argsort(theirs))
    np.testing.assert_array_equal(mine[inverse], np.arange(rows * ncols))


@pytest.mark.parametrize("dtype", ["uint16", "int16", "uint32", "int32"])
def test_reorder_matches_torchs_scatter_and_round_trips(dtype):
    rng = np.random.default_rng(1)
    rows, ncols = (64, 8) if "16" in dtype else (32, 6)
    info = np.iinfo(dtype)
    w = rng.integers(info.min, info.max, (rows, ncols), dtype=dtype, endpoint=True)
    signed = {"uint16": np.int16, "int16": np.int16, "uint32": np.int32, "int32": np.int32}[dtype]
    tw = torch.from_numpy(w.view(signed))
    offsets = _calculate_meta_reordering_scatter_offsets(rows, ncols, tw.dtype, "cpu")
    theirs = tw.new_empty((rows * ncols,)).scatter_(0, offsets, tw.reshape(-1)).view(rows, ncols)
    got = ts.cutlass_reorder(w)
    assert got.dtype == w.dtype and got.shape == w.shape
    np.testing.assert_array_equal(got.view(signed), theirs.numpy())
    np.testing.assert_array_equal(ts.cutlass_unreorder(got), w)


def test_reorder_refuses_shapes_and_dtypes():
    with pytest.raises(ValueError, match=r"rows a multiple of 32 and an even number of 16-bit words per row; got shape \(16, 2\)"):
        ts.cutlass_reorder(np.zeros((16, 2), np.uint16))
    with pytest.raises(ValueError, match=r"rows a multiple of 16 .* 32-bit words per row; got shape \(16, 3\)"):
        ts.cutlass_unreorder(np.zeros((16, 3), np.int32))
    with pytest.raises(TypeError, match=r"uint16/int16 or uint32/int32; got uint8"):
        ts.cutlass_reorder(np.zeros((32, 2), np.uint8))
    with pytest.raises(ValueError, match=r"2-D \(rows, words\)"):
        ts.cutlass_reorder(np.zeros((2, 32, 2), np.uint16))


# --- sparray's components <-> torch's encoder, bit for bit ----------------------------------------------
@pytest.mark.parametrize(("name", "shape"), [("float16", (32, 64)), ("float16", (64, 192)), ("bfloat16", (96, 128)),
                                             ("int8", (16, 128)), ("int8", (48, 256))])
def test_to_cutlass_is_torchs_encoder_bit_for_bit(name, shape):
    rng = np.random.default_rng(2)
    x = _two_per_group(rng, *shape, _host_dtype(name))
    A = sparray.asarray(x, layout="2:4")
    packed_t, meta_t = sparse_semi_structured_from_dense_cutlass(torch.from_numpy(x).to(TORCH_DTYPES[name]))
    packed, meta = ts.to_cutlass(A.values, A.metadata, name)
    assert packed is A.values  # the layouts agree: nothing to move
    assert meta.dtype == (np.uint32 if name == "int8" else np.uint16)
    np.testing.assert_array_equal(meta.view(meta_t.numpy().dtype), meta_t.numpy())
    assert torch.equal(torch.from_numpy(packed).to(packed_t.dtype), packed_t)
    # and back: natural -> CUTLASS -> natural
    unsigned = torch.uint32 if name == "int8" else torch.uint16
    values, metadata = ts.from_cutlass(packed_t.float().numpy() if name == "bfloat16" else packed_t.numpy(),
                                       meta_t.view(unsigned).numpy(), name)
    np.testing.assert_array_equal(metadata, A.metadata)
    np.testing.assert_array_equal(np.asarray(values, dtype=x.dtype), A.values)


@pytest.mark.parametrize(("name", "shape"), [("float16", (32, 128)), ("bfloat16", (64, 64)), ("int8", (32, 128)),
                                             ("float32", (32, 32))])
def test_groups_with_fewer_than_two(name, shape):
    """torch's encoder keeps other positions than sparray's for such groups (an all-zero group: 0xE,
    sparray: 0x4); both are valid, both decode to the matrix, and torch's codes survive a round trip."""
    rng = np.random.default_rng(3)
    x = _sparse_ish(rng, *shape, _host_dtype(name))
    if name == "float32":
        x = _two_per_group(rng, *shape, np.float32, one_of_two=True)
        x[rng.random(x.shape) < 0.4] = 0
    packed_t, meta_t = sparse_semi_structured_from_dense_cutlass(torch.from_numpy(x).to(TORCH_DTYPES[name]))
    unsigned = torch.uint32 if name == "int8" else torch.uint16
    host_packed = packed_t.float().numpy() if name == "bfloat16" else packed_t.numpy()
    values, metadata = ts.from_cutlass(host_packed, meta_t.view(unsigned).numpy(), name)
    B = sparray.SemiStructured(np.asarray(values, dtype=x.dtype), metadata, shape=shape, check_invariants=True)
    np.testing.assert_array_equal(B.to_dense(), x)
    again = ts.to_cutlass(B.values, B.metadata, name)[1]
    np.testing.assert_array_equal(again.view(meta_t.numpy().dtype), meta_t.numpy())  # CUTLASS -> natural -> CUTLASS
    # sparray's own encoding (other positions), read by torch's decoder
    A = sparray.asarray(x, layout="2:4")
    packed, meta = ts.to_cutlass(A.values, A.metadata, name)
    dense = sparse_semi_structured_to_dense_cutlass(torch.from_numpy(np.ascontiguousarray(packed)).to(TORCH_DTYPES[name]),
                                                    torch.from_numpy(meta).view(meta_t.dtype))
    np.testing.assert_array_equal(dense.float().numpy() if name == "bfloat16" else dense.numpy(), x)


def test_float32_is_one_of_two():
    rng = np.random.default_rng(4)
    x = _two_per_group(rng, 64, 64, np.float32, one_of_two=True)
    A = sparray.asarray(x, layout="2:4")
    packed_t, meta_t = sparse_semi_structured_from_dense_cutlass(torch.from_numpy(x))
    packed, meta = ts.to_cutlass(A.values, A.metadata, "float32")
    assert packed is A.values and meta.shape == (64, 64 // 8)
    np.testing.assert_array_equal(meta.view(np.int16), meta_t.numpy())
    np.testing.assert_array_equal(packed, packed_t.numpy())
    metadata = ts.from_cutlass(packed_t.numpy(), meta_t.view(torch.uint16).numpy(), "float32")[1]
    np.testing.assert_array_equal(metadata, A.metadata)


def test_float32_groups_in_one_pair_move_their_nonzero():
    """A group keeping (0, 1) or (2, 3) with one non-zero fits 1:2 once the non-zero moves to its own
    pair's slot (new values); the other pair keeps a zero."""
    rng = np.random.default_rng(11)
    rows, ngroups = 32, 8
    codes = rng.choice(np.array([0x4, 0xE, 0x8, 0xD], np.uint16), (rows, ngroups))
    pairs = rng.integers(1, 9, (rows, ngroups, 2)).astype(np.float32)
    one_pair = (codes == 0x4) | (codes == 0xE)
    drop = rng.integers(0, 2, (rows, ngroups))  # which of the two kept values is zero in those groups
    np.put_along_axis(pairs, drop[..., None], np.where(one_pair[..., None], 0.0, np.take_along_axis(pairs, drop[..., None], -1)), -1)
    pairs[0, 0] = 0.0  # an all-zero group too
    words = (codes.reshape(rows, -1, 4) << np.array([0, 4, 8, 12], np.uint16)).sum(-1, dtype=np.uint16)
    A = sparray.SemiStructured(pairs.reshape(rows, -1), words, shape=(rows, 4 * ngroups), check_invariants=True)
    x = A.to_dense()
    packed, meta = ts.to_cutlass(A.values, A.metadata, "float32")
    assert packed is not A.values
    dense = sparse_semi_structured_to_dense_cutlass(torch.from_numpy(packed), torch.from_numpy(meta).view(torch.int16))
    np.testing.assert_array_equal(dense.numpy(), x)
    values, metadata = ts.from_cutlass(packed, meta, "float32")
    np.testing.assert_array_equal(sparray.SemiStructured(values, metadata, shape=x.shape).to_dense(), x)


def test_float32_refuses_two_nonzeros_in_a_pair():
    x = np.zeros((32, 32), np.float32)
    x[3, 8:10] = [1.0, 2.0]
    A = sparray.asarray(x, layout="2:4")
    with pytest.raises(ValueError, match=r"1:2: .* row 3, columns 8 and 9 hold two. .*dtype=torch.float16"):
        ts.to_cutlass(A.values, A.metadata, "float32")


def test_from_cutlass_refuses_bad_input():
    with pytest.raises(ValueError, match=r"float16 values of shape \(32, 32\) \(32 x 64\) need meta of shape \(32, 4\); got \(32, 2\)"):
        ts.from_cutlass(np.zeros((32, 32), np.float16), np.zeros((32, 2), np.uint16), "float16")
    meta = ts.cutlass_reorder(np.full((32, 4), 0x4E48, np.uint16))  # nibbles 8, 4, e, 4: 0x8 is no 1:2 nibble
    with pytest.raises(ValueError, match=r"0x4 or 0xe for each pair of columns; row 0, columns 0 and 1 hold 0x8"):
        ts.from_cutlass(np.zeros((32, 16), np.float32), meta, "float32")
    with pytest.raises(ValueError, match=r"holds float16, bfloat16, int8, float32 values; got float64"):
        ts.from_cutlass(np.zeros((32, 32)), np.zeros((32, 4), np.uint16), "float64")
    with pytest.raises(ValueError, match=r"int8 metadata words hold 8 groups \(32 columns\); got 16 columns"):
        ts.to_cutlass(np.zeros((16, 8), np.int8), np.full((16, 1), 0x4444, np.uint16), "int8")


def test_on_the_simulated_device():
    rng = np.random.default_rng(5)
    for name, shape in [("float16", (32, 64)), ("int8", (16, 128))]:
        A = sparray.asarray(_two_per_group(rng, *shape, _host_dtype(name)), layout="2:4")
        S = A.to_device("simulated")
        packed, meta = ts.to_cutlass(S.values, S.metadata, name)
        assert simulated.is_simulated(meta)
        np.testing.assert_array_equal(meta.get(), ts.to_cutlass(A.values, A.metadata, name)[1])
        values, metadata = ts.from_cutlass(packed, meta, name)
        assert values is packed and simulated.is_simulated(metadata)
        np.testing.assert_array_equal(metadata.get(), A.metadata)
    x = _two_per_group(rng, 32, 32, np.float32, one_of_two=True)
    S = sparray.asarray(x, layout="2:4").to_device("simulated")
    meta = ts.to_cutlass(S.values, S.metadata, "float32")[1]
    np.testing.assert_array_equal(ts.from_cutlass(S.values, meta, "float32")[1].get(), S.metadata.get())


# --- to_torch ---------------------------------------------------------------------------------------------
def test_to_torch_on_the_cpu_gives_the_csr_of_the_kept_positions():
    rng = np.random.default_rng(6)
    x = sparray.prune_2_4(rng.standard_normal((8, 16)))
    x[0, :4] = 0.0  # an all-zero group: its kept positions are explicit zeros
    A = sparray.asarray(x, layout="2:4")
    t = to_torch(A)
    assert t.layout == torch.sparse_csr and t.values().data_ptr() == A.values.ctypes.data
    assert t._nnz() == 8 * 16 // 2
    X = rng.standard_normal((16, 3))
    np.testing.assert_allclose(torch.mm(t, torch.from_numpy(X)).numpy(), x @ X, rtol=1e-12)
    tT = to_torch(A.mT)
    assert tT.layout == torch.sparse_csc
    np.testing.assert_array_equal(tT.to_dense().numpy(), x.T)
    B = sparray.asarray(np.stack([x, 2 * x]), layout="2:4")
    np.testing.assert_array_equal(to_torch(B).to_dense().numpy(), np.stack([x, 2 * x]))
    t32 = to_torch(A, dtype=torch.float32)
    assert t32.dtype == torch.float32
    np.testing.assert_array_equal(t32.to_dense().numpy(), x.astype(np.float32))


@pytest.mark.parametrize("fill", [1.5, float("nan")])
def test_to_torch_refuses_a_nonzero_fill(fill):
    x = np.full((4, 8), fill)
    x[:, ::4] = 1.0
    A = sparray.asarray(x, layout="2:4", fill_value=fill)
    with pytest.raises(ValueError, match=r"implicit zero fill, but this 2:4 array has fill_value"):
        to_torch(A)


def test_to_torch_backend_needs_cuda_data_and_a_2_4_array():
    A = sparray.asarray(np.eye(32, 64), layout="2:4")
    with pytest.raises(ValueError, match=r"live on CUDA devices; A's data is on cpu .*gives the CSR"):
        to_torch(A, backend="cutlass")
    with pytest.raises(ValueError, match=r"backend= applies to 2:4 arrays only; .* CSR array"):
        to_torch(sparray.asarray(np.eye(3), layout="csr"), backend="cutlass")
    with pytest.raises(TypeError, match=r"dtype must be a torch.dtype"):
        to_torch(A, dtype=np.float32)


def _cutlass(A, **kw):
    return ts.semi_structured_tensor(A, backend="cutlass", export=_export, _host_ok=True, **kw)


@pytest.mark.parametrize(("dtype", "target", "shape"), [("float32", torch.float16, (32, 64)),
                                                         ("float32", torch.bfloat16, (64, 128)),
                                                         ("int8", None, (16, 128)), ("float32", None, (32, 32))])
def test_cutlass_tensor_built_on_cpu_tensors(dtype, target, shape):
    rng = np.random.default_rng(7)
    x = _two_per_group(rng, *shape, np.dtype(dtype), one_of_two=(dtype == "float32" and target is None))
    A = sparray.asarray(x, layout="2:4")
    t = _cutlass(A, dtype=target)
    assert type(t) is SparseSemiStructuredTensorCUTLASS and tuple(t.shape) == shape
    want = torch.from_numpy(x).to(target or TORCH_DTYPES[dtype])
    assert t.dtype == want.dtype
    theirs = sparse_semi_structured_from_dense_cutlass(want)
    assert torch.equal(t.meta, theirs[1]) and torch.equal(t.packed, theirs[0])
    assert torch.equal(t.to_dense(), want)
    assert (t.packed.data_ptr() == A.values.ctypes.data) == (target is None)  # shared unless cast
    tT = _cutlass(A.mT, dtype=target)  # the transpose: torch's t() of the stored matrix's tensor
    assert tuple(tT.shape) == shape[::-1] and tT.packed is None and torch.equal(tT.t().to_dense(), want)


def test_cutlass_tensor_refusals():
    A = sparray.asarray(np.eye(32, 64), layout="2:4")
    with pytest.raises(ValueError, match=r"cutlass semi-structured tensors hold int8, float16, bfloat16, float32; got torch.float64"):
        _cutlass(A)
    with pytest.raises(ValueError, match=r"float16 semi-structured tensors need rows a multiple of 32 and columns a multiple of 64; got 16 x 64"):
        _cutlass(sparray.asarray(np.eye(16, 64), layout="2:4"), dtype=torch.float16)
    with pytest.raises(ValueError, match=r"int8 .* columns a multiple of 128; got 32 x 64"):
        _cutlass(sparray.asarray(np.eye(32, 64, dtype=np.int8), layout="2:4"))
    with pytest.raises(ValueError, match=r"got 64 x 32 \(of A.mT's stored matrix\)"):
        _cutlass(sparray.asarray(np.eye(64, 32), layout="2:4").mT, dtype=torch.float16)
    with pytest.raises(ValueError, match=r"are 2-D; this 2:4 array has shape \(2, 32, 64\)"):
        _cutlass(sparray.asarray(np.zeros((2, 32, 64)), layout="2:4"), dtype=torch.float16)
    with pytest.raises(ValueError, match=r"backend must be 'cutlass', 'cusparselt' or None; got 'tile'"):
        ts.semi_structured_tensor(A, backend="tile", export=_export, _host_ok=True)
    with pytest.raises(ValueError, match=r"cusparselt semi-structured tensors hold .*; got torch.float32"):
        ts.semi_structured_tensor(A, backend="cusparselt", dtype=torch.float32, export=_export, _host_ok=True)
    with pytest.raises(ValueError, match=r"^to_torch: torch's float32 .* 1:2"):
        _cutlass(sparray.asarray(np.tile(np.float32([1, 1, 0, 0]), (32, 8)), layout="2:4"))


def test_default_backend(monkeypatch):
    from torch.sparse import SparseSemiStructuredTensor as base

    monkeypatch.setattr(torch.cuda, "get_device_capability", lambda device=None: (8, 6))
    assert ts._default_backend(torch, base, torch.device("cuda")) == "cutlass"
    monkeypatch.setattr(torch.cuda, "get_device_capability", lambda device=None: (9, 0))
    assert ts._default_backend(torch, base, torch.device("cuda")) == "cusparselt"
    monkeypatch.setattr(base, "_FORCE_CUTLASS", True)
    assert ts._default_backend(torch, base, torch.device("cuda")) == "cutlass"


# --- from_torch -------------------------------------------------------------------------------------------
def _torch_cutlass(dense, **kw):
    """torch's own CUTLASS tensor of a CPU tensor (its from_dense minus the CUDA check)."""
    packed, meta = sparse_semi_structured_from_dense_cutlass(dense)
    return SparseSemiStructuredTensorCUTLASS(dense.shape, packed=packed, meta=meta, packed_t=None, meta_t=None,
                                             compressed_swizzled_bitmask=None, **kw)


@pytest.mark.parametrize(("name", "shape"), [("float16", (32, 64)), ("bfloat16", (64, 128)), ("int8", (16, 128)),
                                             ("float32", (32, 32))])
def test_from_torch_reads_cutlass_tensors(name, shape):
    rng = np.random.default_rng(8)
    x = _sparse_ish(rng, *shape, _host_dtype(name))
    if name == "float32":
        x = _two_per_group(rng, *shape, np.float32, one_of_two=True)
    t = _torch_cutlass(torch.from_numpy(x).to(TORCH_DTYPES[name]))
    A = from_torch(t)
    assert A.layout == "2:4" and A.shape == shape and float(A.fill_value) == 0.0
    assert A.dtype == {"int8": np.int8, "float16": np.float16}.get(name, np.float32)
    np.testing.assert_array_equal(A.to_dense(), x)
    if name in ("int8", "float32", "float16"):
        assert A.values.ctypes.data == t.packed.data_ptr()  # shared; bfloat16 is widened (a copy)
    back = _cutlass(A, dtype=TORCH_DTYPES[name])
    assert torch.equal(back.meta, t.meta)  # torch's codes kept: CUTLASS -> sparray -> CUTLASS, bit for bit
    B = from_torch(t.t())  # the transpose: packed None, packed_t set
    assert B.transposed and B.shape == shape[::-1]
    np.testing.assert_array_equal(B.to_dense(), x.T)
    C = sparray.asarray(t, layout="2:4")
    np.testing.assert_array_equal(C.to_dense(), x)
    assert sparray.asarray(t).layout == "coo"  # asarray's default layout, as for every foreign input


def test_from_torch_detaches_and_takes_xp():
    x = np.zeros((32, 64), np.float32)
    x[:, 1::4] = 2.0
    t = _torch_cutlass(torch.from_numpy(x), requires_grad=True)
    assert t.requires_grad
    A = from_torch(t)
    np.testing.assert_array_equal(A.to_dense(), x)
    array_api_strict = pytest.importorskip("array_api_strict")
    B = from_torch(_torch_cutlass(torch.from_numpy(x)), xp=array_api_strict)
    assert "array_api_strict" in type(B.values).__module__
    np.testing.assert_array_equal(to_torch(B).to_dense().numpy(), x)  # the CSR of the kept positions


class _CuSparseLtStandIn(SparseSemiStructuredTensorCUSPARSELT):
    """cuSPARSELt's buffer is opaque and its to_dense (a product) needs CUDA: a stand-in whose
    to_dense returns the matrix, so the routing through the dense form is checked here."""

    def to_dense(self):
        return self._dense


def test_from_torch_cusparselt_goes_through_the_dense_form():
    rng = np.random.default_rng(9)
    x = _sparse_ish(rng, 32, 32, np.float32)
    dense = torch.from_numpy(x).half()
    t = _CuSparseLtStandIn(dense.shape, packed=torch.zeros(32 * 32, dtype=torch.float16), meta=None, packed_t=None,
                           meta_t=None, compressed_swizzled_bitmask=None)
    t._dense = dense
    A = from_torch(t)
    assert A.layout == "2:4" and A.dtype == np.float16
    np.testing.assert_array_equal(A.to_dense(), x)
    f8 = _CuSparseLtStandIn(dense.shape, packed=torch.zeros(32 * 32, dtype=torch.float8_e4m3fn), meta=None,
                            packed_t=None, meta_t=None, compressed_swizzled_bitmask=None)
    with pytest.raises(TypeError, match=r"sparray has no float8_e4m3fn dtype, .* have no to_dense"):
        from_torch(f8)


# --- on a GPU -----------------------------------------------------------------------------------------------
def _cuda_or_skip():
    if not torch.cuda.is_available():
        pytest.skip("torch has no CUDA device")
    cupy = pytest.importorskip("cupy")
    if not cupy.is_available():
        pytest.skip("CuPy has no CUDA device")
    return cupy


@pytest.mark.parametrize("backend", [None, "cutlass", "cusparselt"])
def test_cuda_to_torch_and_back(backend):
    cupy = _cuda_or_skip()
    rng = np.random.default_rng(10)
    x = _two_per_group(rng, 128, 256, np.float32)
    A = sparray.asarray(x, layout="2:4").to_device("cuda")
    t = to_torch(A, dtype=torch.float16, backend=backend)
    assert t.is_cuda and t.dtype == torch.float16
    want = torch.from_numpy(x).half().cuda()
    assert torch.equal(t.to_dense(), want)
    X = torch.from_numpy(rng.integers(-3, 4, (256, 64)).astype(np.float16)).cuda()
    major = torch.cuda.get_device_capability()[0]
    if getattr(t, "BACKEND", "") == "cusparselt" or major == 8:  # CUTLASS's sparse kernels run on 8.x only
        torch.testing.assert_close(torch.mm(t, X).float(), (want @ X).float(), rtol=0, atol=0)
    B = from_torch(t)
    assert isinstance(B.values, cupy.ndarray)
    np.testing.assert_array_equal(cupy.asnumpy(B.to_dense()), x)
    theirs = torch.sparse.to_sparse_semi_structured(want)
    np.testing.assert_array_equal(cupy.asnumpy(from_torch(theirs).to_dense()), x)
    x8 = _two_per_group(rng, 64, 128, np.int8)
    A8 = sparray.asarray(x8, layout="2:4").to_device("cuda")
    t8 = to_torch(A8, backend="cutlass")
    assert t8.packed.data_ptr() == A8.values.data.ptr
    assert torch.equal(t8.to_dense().cpu(), torch.from_numpy(x8))


def test_docstring_examples():
    import doctest

    import sparray.interop.torch as torch_interop

    for mod in (ts, torch_interop):
        assert doctest.testmod(mod).failed == 0, mod.__name__
