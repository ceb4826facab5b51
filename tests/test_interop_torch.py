"""sparray <-> torch sparse tensors: every layout, dtype and dimension split; zero copy both ways."""

import subprocess
import sys
import warnings

import numpy as np
import pytest

import sparray

torch = pytest.importorskip("torch")
from sparray.interop.torch import _import, from_torch, to_torch

pytestmark = [
    pytest.mark.filterwarnings("ignore:Sparse (CSR|CSC|BSR|BSC) tensor support is in beta state"),
    pytest.mark.filterwarnings("ignore:Sparse invariant checks are implicitly disabled"),  # torch's own tensors
]

DTYPES = ["bool", "int8", "int16", "int32", "int64", "uint8", "float32", "float64", "complex64", "complex128"]
TORCH_LAYOUT = {
    "coo": torch.sparse_coo,
    "csr": torch.sparse_csr,
    "csc": torch.sparse_csc,
    "bsr": torch.sparse_bsr,
    "bsc": torch.sparse_bsc,
}
# (layout, shape, sparse_ndim (leading non-dense dims), blocksize): plain, hybrid, batched, n-d, zero-size
CASES = [
    ("coo", (5, 4), 2, None),
    ("coo", (3, 4, 2), 3, None),  # 3 sparse dims
    ("coo", (4, 3, 2), 2, None),  # hybrid
    ("coo", (0, 4), 2, None),
    ("coo", (3, 0, 2), 2, None),
    ("csr", (4, 5), 2, None),
    ("csr", (2, 4, 5), 3, None),  # batched
    ("csr", (4, 5, 2), 2, None),  # hybrid
    ("csr", (2, 3, 4, 2), 3, None),  # batched and hybrid
    ("csr", (2, 0, 3), 3, None),
    ("csc", (4, 5), 2, None),
    ("csc", (2, 4, 5), 3, None),
    ("csc", (4, 5, 3), 2, None),
    ("csc", (0, 5), 2, None),
    ("bsr", (4, 6), 2, (2, 3)),
    ("bsr", (2, 4, 6), 3, (2, 3)),
    ("bsr", (4, 6, 2), 2, (2, 1)),
    ("bsr", (0, 6), 2, (2, 3)),
    ("bsc", (4, 6), 2, (2, 3)),
    ("bsc", (2, 4, 6), 3, (1, 2)),
    ("bsc", (4, 6, 2), 2, (2, 3)),
]
CASE_IDS = [f"{lay}-{'x'.join(map(str, shape))}-sd{sd}" for lay, shape, sd, _ in CASES]


def _dense(shape, dtype, seed=0, density=0.4, batch_ndim=0):
    """A NumPy array of ``dtype`` with about ``density`` non-zeros, the same pattern in every batch.

    (torch's dense -> batched compressed conversion needs the same nse in every batch.)
    """
    rng = np.random.default_rng(seed)
    keep = np.broadcast_to(rng.random(shape[batch_ndim:]) < density, shape)
    if dtype == "bool":
        return keep.copy()
    vals = rng.integers(1, 9, shape).astype(dtype)
    if dtype.startswith("complex"):
        vals = vals + 1j * rng.integers(-3, 3, shape)
    return np.where(keep, vals, 0).astype(dtype)


def _batch_ndim(layout, sparse_ndim):
    return 0 if layout == "coo" else sparse_ndim - 2


def _sparse(layout, dense, sparse_ndim, blocksize, index_dtype="int32"):
    A = sparray.asarray(dense, layout=layout, sparse_ndim=sparse_ndim, blocksize=blocksize)
    if index_dtype != A.index_dtype.name:
        if layout == "coo":
            A = sparray.COO(A.indices.astype(index_dtype), A.values, A.shape, is_coalesced=A.is_coalesced)
        else:
            A = type(A)(A.compressed_indices.astype(index_dtype), A.plain_indices.astype(index_dtype), A.values, A.shape)
    assert A.index_dtype == np.dtype(index_dtype)
    return A


def _torch_sparse(layout, dense, sparse_ndim, blocksize, index_dtype="int64"):
    """torch's own conversion of a NumPy array (torch's converters pick int64 indices)."""
    d = torch.from_numpy(dense)
    dense_dim = dense.ndim - sparse_ndim
    if layout == "coo":
        t = d.to_sparse(sparse_ndim)
    elif layout in ("csr", "csc"):
        t = d.to_sparse(layout=TORCH_LAYOUT[layout], dense_dim=dense_dim)
    else:
        t = d.to_sparse(layout=TORCH_LAYOUT[layout], blocksize=blocksize, dense_dim=dense_dim)
    if index_dtype == "int32" and layout != "coo":
        c, p = (t.crow_indices(), t.col_indices()) if layout in ("csr", "bsr") else (t.ccol_indices(), t.row_indices())
        t = torch.sparse_compressed_tensor(c.int(), p.int(), t.values(), t.shape, layout=t.layout, check_invariants=True)
    return t


def _ptr(x):
    return x.__array_interface__["data"][0]


def _torch_parts(t):
    if t.layout == torch.sparse_coo:
        return t._indices(), t._values()
    if t.layout in (torch.sparse_csr, torch.sparse_bsr):
        return t.crow_indices(), t.col_indices(), t.values()
    return t.ccol_indices(), t.row_indices(), t.values()


def _sparray_parts(A):
    if A.layout == "coo":
        return A.indices, A.values
    return A.compressed_indices, A.plain_indices, A.values


# --- round trips ----------------------------------------------------------------------------------
@pytest.mark.parametrize("index_dtype", ["int32", "int64"])
@pytest.mark.parametrize(("layout", "shape", "sparse_ndim", "blocksize"), CASES, ids=CASE_IDS)
def test_sparray_to_torch_to_sparray(layout, shape, sparse_ndim, blocksize, index_dtype):
    dense = _dense(shape, "float64")
    A = _sparse(layout, dense, sparse_ndim, blocksize, index_dtype)
    t = to_torch(A)
    assert t.layout == TORCH_LAYOUT[layout] and tuple(t.shape) == shape and t.dtype == torch.float64
    assert (t.sparse_dim(), t.dense_dim()) == (2 if layout != "coo" else sparse_ndim, A.dense_ndim)
    np.testing.assert_array_equal(t.to_dense().numpy(), dense)
    kept = "int64" if layout == "coo" else index_dtype  # torch COO indices are int64 only
    assert all(str(p.dtype) == f"torch.{kept}" for p in _torch_parts(t)[:-1])
    B = from_torch(t)
    assert B.layout == layout and B.shape == shape and B.index_dtype == np.dtype(kept)
    assert float(B.fill_value) == 0 and B.nse == A.nse
    np.testing.assert_array_equal(B.to_dense(), dense)
    if layout in ("bsr", "bsc"):
        assert B.blocksize == A.blocksize


@pytest.mark.parametrize("index_dtype", ["int32", "int64"])
@pytest.mark.parametrize(("layout", "shape", "sparse_ndim", "blocksize"), CASES, ids=CASE_IDS)
def test_torch_to_sparray_to_torch(layout, shape, sparse_ndim, blocksize, index_dtype):
    if layout == "coo" and index_dtype == "int32":
        pytest.skip("torch COO tensors have int64 indices only")
    dense = _dense(shape, "float32", seed=1, batch_ndim=_batch_ndim(layout, sparse_ndim))
    t = _torch_sparse(layout, dense, sparse_ndim, blocksize, index_dtype)
    A = from_torch(t)
    assert A.layout == layout and A.shape == shape and A.dtype == np.float32
    assert A.index_dtype == np.dtype(index_dtype) and A.dense_ndim == t.dense_dim()
    np.testing.assert_array_equal(A.to_dense(), dense)
    t2 = to_torch(A)
    assert t2.layout == t.layout and t2.shape == t.shape and t2.dtype == t.dtype
    for p, p2 in zip(_torch_parts(t), _torch_parts(t2)):
        assert p.dtype == p2.dtype and torch.equal(p, p2)
        if p.numel():  # the round trip shares every component: no copy anywhere
            assert p.data_ptr() == p2.data_ptr()
    np.testing.assert_array_equal(t2.to_dense().numpy(), dense)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("layout", ["coo", "csr", "csc", "bsr", "bsc"])
def test_every_dtype_both_ways(layout, dtype):
    shape, blocksize = (2, 4, 6, 2), (2, 3) if layout in ("bsr", "bsc") else None
    sparse_ndim = 3  # COO: 3 sparse dims + 1 dense; compressed: 1 batch + 2 sparse + 1 dense
    dense = _dense(shape, dtype, seed=2, batch_ndim=_batch_ndim(layout, sparse_ndim))
    A = _sparse(layout, dense, sparse_ndim, blocksize)
    t = to_torch(A)
    assert t.dtype == getattr(torch, dtype)
    np.testing.assert_array_equal(t.to_dense().numpy(), dense)
    B = from_torch(t)
    assert B.dtype == np.dtype(dtype)
    np.testing.assert_array_equal(B.to_dense(), dense)
    C = from_torch(_torch_sparse(layout, dense, sparse_ndim, blocksize))
    assert C.dtype == np.dtype(dtype)
    np.testing.assert_array_equal(C.to_dense(), dense)


@pytest.mark.parametrize("dtype", ["uint16", "uint32", "uint64"])
def test_wide_unsigned_dtypes_pass_through(dtype):
    # torch's sparse constructors take them, though torch's to_dense does not (so compare on our side)
    dense = _dense((4, 6), dtype, seed=3)
    for layout in ("coo", "csr", "bsc"):
        A = _sparse(layout, dense, 2, (2, 2) if layout == "bsc" else None)
        t = to_torch(A)
        assert t.dtype == getattr(torch, dtype)
        np.testing.assert_array_equal(from_torch(t).to_dense(), dense)


# --- COO: coalesced flag and duplicates -----------------------------------------------------------
def test_uncoalesced_coo_keeps_duplicates_both_ways():
    A = sparray.COO(np.array([[1, 0, 1], [2, 0, 2]], np.int32), np.array([1.0, 2.0, 3.0]), shape=(2, 3))
    assert not A.is_coalesced
    t = to_torch(A)
    assert not t.is_coalesced() and t._nnz() == 3
    assert t._indices().dtype == torch.int64  # int32 indices: the one copy
    assert t._values().data_ptr() == _ptr(A.values)  # values still shared
    np.testing.assert_array_equal(t._indices().numpy(), [[1, 0, 1], [2, 0, 2]])
    np.testing.assert_array_equal(t.to_dense().numpy(), A.to_dense())
    B = from_torch(t)
    assert B.nse == 3 and not B.is_coalesced and not t.is_coalesced()
    np.testing.assert_array_equal(B.to_dense(), [[2.0, 0, 0], [0, 0, 4.0]])

    u = torch.sparse_coo_tensor([[0, 0, 1]], [1.0, 2.0, 5.0], (2,), check_invariants=True)
    C = from_torch(u)
    assert C.nse == 3 and not C.is_coalesced and not u.is_coalesced()
    np.testing.assert_array_equal(C.to_dense(), [3.0, 5.0])
    np.testing.assert_array_equal(C.values, [1.0, 2.0, 5.0])


def test_coalesced_flag_kept_both_ways():
    A = sparray.COO([[1, 0, 1], [2, 0, 2]], [1.0, 2.0, 3.0], shape=(2, 3)).coalesce()
    assert to_torch(A).is_coalesced()
    t = torch.sparse_coo_tensor([[0, 1], [1, 0]], [1.0, 2.0], (2, 2)).coalesce()
    B = from_torch(t)
    assert B._coalesced is True  # taken from torch, not recomputed
    assert to_torch(B).is_coalesced()


def test_coo_with_no_sparse_dims():
    t = torch.sparse_coo_tensor(torch.zeros((0, 2), dtype=torch.int64), torch.ones(2, 3), (3,))
    A = from_torch(t)
    assert A.sparse_ndim == 0 and A.nse == 2
    np.testing.assert_array_equal(A.to_dense(), [2.0, 2.0, 2.0])
    np.testing.assert_array_equal(to_torch(A).to_dense().numpy(), [2.0, 2.0, 2.0])


# --- zero copy ------------------------------------------------------------------------------------
@pytest.mark.parametrize("layout", ["coo", "csr", "csc", "bsr", "bsc"])
def test_memory_is_shared_both_ways(layout):
    dense = _dense((2, 4, 6), "float64", seed=4, density=0.6, batch_ndim=_batch_ndim(layout, 3))
    A = _sparse(layout, dense, 3, (2, 2) if layout in ("bsr", "bsc") else None, index_dtype="int64")
    t = to_torch(A)
    for a, p in zip(_sparray_parts(A), _torch_parts(t)):
        assert p.data_ptr() == _ptr(a)
    t.values()[0] = 100.0 if layout != "coo" else 0.0  # a write in torch shows in sparray ...
    if layout == "coo":
        t._values()[0] = 100.0
    assert (A.values.reshape(-1)[0] if layout == "coo" else A.values[0].reshape(-1)[0]) == 100.0
    A.values[...] = -1.0  # ... and the other way
    assert bool((t.to_dense() == -1.0).any()) and float(_torch_parts(t)[-1].reshape(-1)[0]) == -1.0

    u = _torch_sparse(layout, dense, 3, (2, 2))
    B = from_torch(u)
    for p, b in zip(_torch_parts(u), _sparray_parts(B)):
        assert p.data_ptr() == _ptr(b)
    _torch_parts(u)[-1].reshape(-1)[0] = 7.0
    assert B.values.reshape(-1)[0] == 7.0
    B.values[...] = 3.0
    assert float(_torch_parts(u)[-1].reshape(-1)[-1]) == 3.0


# --- fill values ----------------------------------------------------------------------------------
def test_nonzero_fill_is_refused_with_the_way_out():
    A = sparray.CSR([0, 1, 2], [0, 1], [1.0, 2.0], shape=(2, 2), fill_value=3.0)
    with pytest.raises(ValueError, match=r"implicit zero fill.*fill_value=3.0.*to_dense.*A - A.fill_value"):
        to_torch(A)
    t = to_torch(A - A.fill_value)  # the documented way: subtract, then add back in torch
    np.testing.assert_array_equal((t.to_dense() + 3.0).numpy(), A.to_dense())
    with pytest.raises(ValueError, match=r"fill_value=nan.*to_dense"):
        to_torch(sparray.COO([[0]], [1.0], shape=(2,), fill_value=np.nan))
    hybrid = sparray.COO([[0]], [[1.0, 2.0]], shape=(2, 2), fill_value=np.array([0.0, 1.0]))
    with pytest.raises(ValueError, match="implicit zero fill"):
        to_torch(hybrid)


def test_dense_part_shaped_zero_fill_is_accepted():
    A = sparray.COO([[0, 2]], [[1.0, 2.0], [3.0, 4.0]], shape=(3, 2), fill_value=np.zeros(2))
    assert A.fill_value.shape == (2,)
    np.testing.assert_array_equal(to_torch(A).to_dense().numpy(), A.to_dense())
    B = sparray.BSR([0, 1], [0], np.ones((1, 1, 2, 3)), shape=(1, 2, 3), fill_value=np.zeros(3, dtype=np.float64))
    np.testing.assert_array_equal(to_torch(B).to_dense().numpy(), B.to_dense())


# --- torch-side specifics -------------------------------------------------------------------------
def test_requires_grad_is_detached_and_shared():
    v = torch.tensor([1.0, 2.0], requires_grad=True)
    t = torch.sparse_coo_tensor([[0, 2]], v, (3,))
    A = from_torch(t)
    assert t.requires_grad  # t itself is untouched
    assert _ptr(A.values) == v.data_ptr()
    np.testing.assert_array_equal(A.to_dense(), [1.0, 0.0, 2.0])
    c = torch.tensor([[0.0, 1.5], [2.5, 0.0]]).to_sparse_csr().requires_grad_()
    np.testing.assert_array_equal(from_torch(c).to_dense(), [[0.0, 1.5], [2.5, 0.0]])


def test_conj_and_neg_bits_are_resolved():
    d = np.array([[1 + 2j, 0], [0, 3 - 1j]], np.complex64)
    for t in (torch.from_numpy(d).to_sparse().conj(), torch.from_numpy(d).to_sparse_csr().conj()):
        np.testing.assert_array_equal(from_torch(t).to_dense(), d.conj())
    lazy = torch.tensor([1 + 2j, 3 - 1j]).conj()  # a component with the conjugate bit set
    assert lazy.is_conj()
    np.testing.assert_array_equal(_import(lazy, np), [1 - 2j, 3 + 1j])
    neg = torch.tensor([1 + 2j, 3 - 1j]).conj().imag  # the negative bit
    assert neg.is_neg()
    np.testing.assert_array_equal(_import(neg, np), [-2.0, 1.0])


def test_array_api_strict_components():
    xps = pytest.importorskip("array_api_strict")
    A = sparray.CSR(xps.asarray([0, 1, 3]), xps.asarray([1, 0, 2]), xps.asarray([1.0, 2.0, 3.0]), shape=(2, 3))
    t = to_torch(A)
    np.testing.assert_array_equal(t.to_dense().numpy(), [[0, 1, 0], [2, 0, 3]])
    B = from_torch(t, xp=xps)
    assert type(B.values).__module__.startswith("array_api_strict")
    assert B.layout == "csr" and B.nse == 3
    C = sparray.COO(xps.asarray([[0, 1]]), xps.asarray([4.0, 5.0]), shape=(3,))
    np.testing.assert_array_equal(to_torch(C).to_dense().numpy(), [4.0, 5.0, 0.0])


# --- errors ---------------------------------------------------------------------------------------
def test_errors_name_what_came():
    with pytest.raises(TypeError, match=r"to_torch: expected a sparray.SparseArray; got numpy.ndarray"):
        to_torch(np.ones(3))
    with pytest.raises(TypeError, match=r"from_torch: expected a torch.Tensor.*got numpy.ndarray"):
        from_torch(np.ones(3))
    with pytest.raises(TypeError, match=r"dense \(strided\) tensor.*np.from_dlpack"):
        from_torch(torch.ones(2, 2))
    assert from_torch(torch.ones(2, 2, dtype=torch.float16).to_sparse()).dtype == np.float16  # beyond the standard
    with pytest.raises(TypeError, match=r"torch.bfloat16"):
        from_torch(torch.ones(2, 2, dtype=torch.bfloat16).to_sparse_csr())
    with pytest.raises(TypeError, match=r"from_dlpack"):
        from_torch(torch.ones(2, 2).to_sparse(), xp=object())


def test_unknown_layout_and_device():
    try:
        mk = torch.ones(2, 2).to_mkldnn()
    except RuntimeError:
        mk = None
    if mk is not None:
        with pytest.raises(TypeError, match=r"unsupported layout torch._mkldnn"):
            from_torch(mk)
    meta = torch.sparse_coo_tensor(
        torch.zeros((1, 1), dtype=torch.int64, device="meta"), torch.ones(1, device="meta"), (2,)
    )
    with pytest.raises(ValueError, match=r"CPU or CUDA tensor; got device meta"):
        from_torch(meta)


def test_import_sparray_does_not_import_torch():
    code = "import sys, sparray, sparray.interop.scipy; assert 'torch' not in sys.modules, 'torch imported'"
    subprocess.run([sys.executable, "-c", code], check=True)


def test_interop_submodules_load_on_first_attribute_access():
    code = (
        "import sys, sparray\n"
        "assert 'torch' not in sys.modules and 'sparray.interop.torch' not in sys.modules\n"
        "A = sparray.CSR([0, 1, 2], [1, 0], [5.0, 7.0], shape=(2, 2))\n"
        "t = sparray.interop.torch.to_torch(A)\n"
        "assert sparray.interop.torch.from_torch(t).to_dense().tolist() == [[0.0, 5.0], [7.0, 0.0]]\n"
        "assert 'torch' in dir(sparray.interop)\n"
        "try:\n"
        "    sparray.interop.jax\n"
        "except AttributeError as exc:\n"
        "    assert 'jax' in str(exc) and 'torch' in str(exc)\n"
        "else:\n"
        "    raise AssertionError('no AttributeError')\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True)


# --- CUDA -----------------------------------------------------------------------------------------
def _cupy_or_skip():
    if not torch.cuda.is_available():
        pytest.skip("torch has no CUDA device")
    cupy = pytest.importorskip("cupy")
    if not cupy.is_available():
        pytest.skip("CuPy has no CUDA device")
    return cupy


@pytest.mark.parametrize(("layout", "shape", "sparse_ndim", "blocksize"), CASES[::3], ids=CASE_IDS[::3])
def test_cuda_round_trips_share_memory(layout, shape, sparse_ndim, blocksize):
    cupy = _cupy_or_skip()
    dense = _dense(shape, "float32", seed=5, batch_ndim=_batch_ndim(layout, sparse_ndim))
    t = _torch_sparse(layout, dense, sparse_ndim, blocksize).cuda()
    A = from_torch(t)
    assert isinstance(A.values, cupy.ndarray)
    np.testing.assert_array_equal(cupy.asnumpy(A.to_dense()), dense)
    for p, a in zip(_torch_parts(t), _sparray_parts(A)):
        if p.numel():
            assert p.data_ptr() == a.data.ptr
    t2 = to_torch(A)
    assert t2.device.type == "cuda"
    np.testing.assert_array_equal(t2.to_dense().cpu().numpy(), dense)
    for p, a in zip(_torch_parts(t2), _sparray_parts(A)):
        if p.numel() and p.dtype == a.dtype:
            assert p.data_ptr() == a.data.ptr
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        B = sparray.asarray(dense, layout=layout, sparse_ndim=sparse_ndim, blocksize=blocksize).to_device("cuda")
    np.testing.assert_array_equal(to_torch(B).to_dense().cpu().numpy(), dense)


@pytest.mark.parametrize("layout", ["coo", "csr", "csc", "bsr", "bsc"])
def test_asarray_routes_torch_sparse_tensors(layout):
    dense = torch.tensor([[0.0, 1.0, 0.0, 2.0], [3.0, 0.0, 0.0, 0.0]])
    t = dense.to_sparse(layout=getattr(torch, "sparse_" + layout), blocksize=(1, 2) if layout in ("bsr", "bsc") else None)
    A = sparray.asarray(t, layout=layout, blocksize=(1, 2) if layout in ("bsr", "bsc") else None)
    assert A.layout == layout
    np.testing.assert_array_equal(A.to_dense(), dense.numpy())
    assert sparray.asarray(t).layout == "coo"  # asarray's default layout
    B = sparray.asarray(t, copy=True)
    assert not np.shares_memory(B.values, A.values)
