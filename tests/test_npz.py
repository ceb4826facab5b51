"""save_npz / load_npz: exact round trips for every layout, and clear errors for bad archives."""

import io
import zipfile

import numpy as np
import pytest
from sparray_testing import FILLS, LAYOUT_SHAPES, LAYOUTS, make_sparse

import sparray


def _same(A, B):
    assert B.layout == A.layout and B.shape == A.shape and B.dtype == A.dtype
    assert B.index_dtype == A.index_dtype and B.nse == A.nse
    np.testing.assert_array_equal(B.to_dense(), A.to_dense())
    np.testing.assert_array_equal(np.asarray(B.fill_value), np.asarray(A.fill_value))
    np.testing.assert_array_equal(B.values, A.values)


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("case", range(len(LAYOUT_SHAPES)))
@pytest.mark.parametrize("fill", FILLS)
def test_round_trip_every_layout_shape_and_fill(layout, case, fill, tmp_path):
    shape, s, block = LAYOUT_SHAPES[case]
    rng = np.random.default_rng(case)
    A, dense = make_sparse(rng, layout, shape, s, block, fill=fill, dense_fill=s < len(shape), index_dtype="int32")
    path = tmp_path / "a.npz"
    sparray.save_npz(path, A)
    B = sparray.load_npz(path)
    _same(A, B)
    np.testing.assert_array_equal(B.to_dense(), dense)


@pytest.mark.parametrize("dtype", ["bool", "int8", "uint16", "int64", "float32", "complex128"])
@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("compressed", [True, False])
def test_round_trip_dtypes_and_compression(dtype, layout, compressed):
    A, _ = make_sparse(np.random.default_rng(1), layout, (2, 4, 6, 2), 3, (2, 3), dtype=dtype, dense_fill=True)
    buf = io.BytesIO()
    sparray.save_npz(buf, A, compressed=compressed)
    buf.seek(0)
    _same(A, sparray.load_npz(buf))


def test_uncoalesced_coo_keeps_duplicates_and_flag(tmp_path):
    A, dense = make_sparse(np.random.default_rng(2), "coo", (5, 6), duplicates=True, fill=2.0)
    assert not A.is_coalesced
    sparray.save_npz(tmp_path / "u", A)  # numpy appends .npz
    B = sparray.load_npz(tmp_path / "u.npz")
    assert not B.is_coalesced and B.nse == A.nse
    np.testing.assert_array_equal(B.indices, A.indices)
    np.testing.assert_array_equal(B.to_dense(), dense)
    C = A.coalesce()
    sparray.save_npz(tmp_path / "c.npz", C)
    assert sparray.load_npz(tmp_path / "c.npz").is_coalesced


def test_array_api_strict_components_are_saved():
    xps = pytest.importorskip("array_api_strict")
    A, dense = make_sparse(np.random.default_rng(3), "coo", (4, 5), xp=xps, fill=1.0)
    buf = io.BytesIO()
    sparray.save_npz(buf, A)
    buf.seek(0)
    B = sparray.load_npz(buf)
    np.testing.assert_array_equal(B.to_dense(), dense)


def test_reads_scipy_save_npz_files(tmp_path):
    sp = pytest.importorskip("scipy.sparse")
    m = sp.random_array((20, 30), density=0.2, format="csc", rng=0)
    sp.save_npz(tmp_path / "s.npz", m)
    A = sparray.load_npz(tmp_path / "s.npz")
    assert A.layout == "csc"
    np.testing.assert_array_equal(A.to_dense(), m.toarray())


# --- bad archives ------------------------------------------------------------------------------


def _archive(**arrays):
    buf = io.BytesIO()
    np.savez(buf, **arrays)
    buf.seek(0)
    return buf


def _good_csr_arrays():
    return dict(
        sparray_format=np.asarray(1), layout=np.asarray("csr"), shape=np.asarray([2, 3]),
        fill_value=np.asarray(0.0), compressed_indices=np.asarray([0, 1, 2]), plain_indices=np.asarray([2, 0]),
        values=np.asarray([1.0, 2.0]),
    )  # fmt: skip


def test_the_hand_built_archive_is_valid():
    A = sparray.load_npz(_archive(**_good_csr_arrays()))
    np.testing.assert_array_equal(A.to_dense(), [[0, 0, 1], [2, 0, 0]])


@pytest.mark.parametrize(
    "change, match",
    [
        ({"plain_indices": np.asarray([3, 0])}, "out of range|col_indices"),
        ({"compressed_indices": np.asarray([0, 2, 1])}, "decreas|non-decreasing|crow_indices"),
        ({"compressed_indices": np.asarray([0, 1, 5])}, "crow_indices|nse"),
        ({"shape": np.asarray([5, 3])}, "shape|crow_indices"),
        ({"layout": np.asarray("dia")}, "layout must be one of"),
        ({"sparray_format": np.asarray(7)}, "version 7"),
        ({"fill_value": np.asarray(0, dtype=np.int64)}, "fill_value dtype"),
        ({"fill_value": np.zeros(4)}, "fill_value"),
        ({"extra": np.asarray(1)}, "unexpected \\['extra'\\]"),
        ({"shape": np.asarray([[2, 3]])}, "shape must be a 1-d integer array"),
    ],
)
def test_corrupt_contents_raise_value_error_naming_the_rule(change, match):
    arrays = _good_csr_arrays() | change
    with pytest.raises(ValueError, match=match) as info:
        sparray.load_npz(_archive(**arrays))
    assert "load_npz" in str(info.value)


def test_missing_key():
    arrays = _good_csr_arrays()
    del arrays["plain_indices"]
    with pytest.raises(ValueError, match="missing \\['plain_indices'\\]"):
        sparray.load_npz(_archive(**arrays))


def test_truncated_and_garbage_files(tmp_path):
    A = sparray.random((50, 50), 0.1, layout="csr", seed=0)
    path = tmp_path / "a.npz"
    sparray.save_npz(path, A)
    data = path.read_bytes()
    (tmp_path / "t.npz").write_bytes(data[: len(data) // 2])
    with pytest.raises(ValueError, match="t.npz"):
        sparray.load_npz(tmp_path / "t.npz")
    (tmp_path / "g.npz").write_bytes(b"this is not a zip file at all")
    with pytest.raises(ValueError, match="load_npz"):
        sparray.load_npz(tmp_path / "g.npz")
    np.save(tmp_path / "x.npy", np.arange(3))
    with pytest.raises(ValueError, match="not an .npz archive"):
        sparray.load_npz(tmp_path / "x.npy")
    with pytest.raises(FileNotFoundError):
        sparray.load_npz(tmp_path / "missing.npz")


def test_object_arrays_are_never_unpickled():
    arrays = _good_csr_arrays()
    arrays["values"] = np.asarray([1.0, object()], dtype=object)
    buf = io.BytesIO()
    np.savez(buf, **arrays)  # numpy pickles the object array
    buf.seek(0)
    with pytest.raises(ValueError, match="pickle"):
        sparray.load_npz(buf)


def test_a_corrupted_member_is_reported():
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as z:
        z.writestr("layout.npy", b"\x93NUMPY garbage")
    buf.seek(0)
    with pytest.raises(ValueError, match="load_npz"):
        sparray.load_npz(buf)


def test_save_npz_rejects_non_sparse():
    with pytest.raises(TypeError, match="SparseArray"):
        sparray.save_npz(io.BytesIO(), np.eye(2))
