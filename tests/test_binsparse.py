"""The binsparse interchange protocol: export, from_binsparse, hand-written spec examples, errors."""

import array_api_compat
import numpy as np
import pytest
from sparray_testing import LAYOUT_SHAPES, LAYOUTS, make_sparse

import sparray


class Producer:
    """A stand-in for another library exporting through the protocol."""

    def __init__(self, arrays, descriptor):
        self.arrays, self.descriptor = arrays, descriptor

    def __binsparse__(self):
        return self.arrays

    def __binsparse_descriptor__(self):
        return self.descriptor


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("case", range(len(LAYOUT_SHAPES)))
@pytest.mark.parametrize("fill", [0.0, 1.5, float("nan")])
def test_round_trip_every_layout(layout, case, fill):
    shape, s, block = LAYOUT_SHAPES[case]
    A, dense = make_sparse(np.random.default_rng(case), layout, shape, s, block, fill=fill)
    B = sparray.from_binsparse(A)
    assert B.layout == A.layout and B.shape == A.shape and B.dtype == A.dtype
    np.testing.assert_array_equal(B.to_dense(), dense)
    desc = A.__binsparse_descriptor__()["binsparse"]
    arrays = A.__binsparse__()
    assert set(arrays) == set(desc["data_types"])
    assert all(a.ndim == 1 for a in arrays.values())
    assert ("fill" in desc) == (fill != 0.0)
    assert desc["number_of_stored_values"] == arrays["values"].shape[0]  # float64: one array element each
    for name, array in arrays.items():
        assert desc["data_types"][name] == str(array.dtype)


@pytest.mark.parametrize("layout", ["coo", "bsr", "bsc"])
def test_descriptor_agrees_with_the_arrays_for_uncoalesced_and_blocked_input(layout):
    A, dense = make_sparse(np.random.default_rng(9), layout, (2, 4, 6), 3, (2, 3), duplicates=True, fill=2.0)
    desc = A.__binsparse_descriptor__()["binsparse"]
    arrays = A.__binsparse__()
    assert desc["number_of_stored_values"] == arrays["values"].shape[0]
    assert {k: str(v.dtype) for k, v in arrays.items()} == desc["data_types"]
    np.testing.assert_array_equal(sparray.from_binsparse(A).to_dense(), dense)


@pytest.mark.parametrize("dtype", ["bool", "int8", "uint32", "int64", "float32", "complex64", "complex128"])
@pytest.mark.parametrize("layout", ["coo", "csr", "csc"])
def test_round_trip_dtypes(dtype, layout):
    A, dense = make_sparse(np.random.default_rng(5), layout, (6, 7), dtype=dtype)
    B = sparray.from_binsparse(A)
    assert B.dtype == A.dtype
    np.testing.assert_array_equal(B.to_dense(), dense)
    types = A.__binsparse_descriptor__()["binsparse"]["data_types"]
    expected = {"bool": "bint8", "complex64": "complex[float32]", "complex128": "complex[float64]"}.get(dtype, dtype)
    assert types["values"] == expected


def test_predefined_names_and_shared_memory():
    A = sparray.asarray(np.array([[0.0, 2.0, 0.0], [3.0, 0.0, 4.0]]), layout="csr")
    desc = A.__binsparse_descriptor__()
    assert desc["binsparse"]["format"] == "CSR" and desc["binsparse"]["shape"] == [2, 3]
    assert desc["binsparse"]["number_of_stored_values"] == 3
    arrays = A.__binsparse__()
    assert np.shares_memory(arrays["pointers_to_1"], A.crow_indices)
    assert np.shares_memory(arrays["indices_1"], A.col_indices)
    assert np.shares_memory(arrays["values"], A.values)
    B = sparray.from_binsparse(A)
    assert np.shares_memory(B.values, A.values)
    assert not np.shares_memory(sparray.from_binsparse(A, copy=True).values, A.values)
    C = A.to_layout("coo")
    assert C.__binsparse_descriptor__()["binsparse"]["format"] == "COOR"
    assert np.shares_memory(C.__binsparse__()["indices_0"], C.indices)
    z = (A + 0.0j).__binsparse__()["values"]
    assert z.dtype == np.float64 and z.shape == (6,)


def test_batched_csr_uses_global_pointers_and_csc_a_swizzle():
    A, _ = make_sparse(np.random.default_rng(0), "csc", (2, 3, 4), 3, density=0.5)
    desc = A.__binsparse_descriptor__()["binsparse"]
    assert desc["format"]["level"] == "dense" and desc["format"]["rank"] == 2
    assert desc["swizzle"] == [0, 2, 1]
    ptr = A.__binsparse__()["pointers_to_2"]
    assert ptr.shape == (2 * 4 + 1,) and ptr[-1] == 2 * A.nse and np.all(np.diff(ptr) >= 0)


def test_asarray_and_namespace_extension_read_the_protocol():
    A = sparray.random((5, 6), 0.3, layout="csc", seed=1)
    P = Producer(A.__binsparse__(), A.__binsparse_descriptor__())
    B = sparray.asarray(P, layout="csr")
    assert B.layout == "csr"
    np.testing.assert_array_equal(B.to_dense(), A.to_dense())
    xp = array_api_compat.array_namespace(A)
    assert xp.sparse.from_binsparse(P).layout == "csc"
    pair = (A.__binsparse__(), A.__binsparse_descriptor__())
    np.testing.assert_array_equal(sparray.from_binsparse(pair).to_dense(), A.to_dense())


def test_requested_descriptor_converts_on_export():
    A = sparray.random((5, 6), 0.3, seed=2)
    arrays = A.__binsparse__(descriptor={"binsparse": {"format": "CSR"}})
    assert set(arrays) == {"pointers_to_1", "indices_1", "values"}
    with pytest.raises(ValueError, match="DCSR"):
        A.__binsparse__(descriptor={"binsparse": {"format": "DCSR"}})


# --- formats written by hand, as another producer would -------------------------------------------


def _read(arrays, **desc):
    desc.setdefault("data_types", {k: str(np.asarray(v).dtype) for k, v in arrays.items()})
    return sparray.from_binsparse(Producer({k: np.asarray(v) for k, v in arrays.items()}, {"binsparse": desc}))


def test_spec_iso_csr_example():
    A = _read(
        {"pointers_to_1": np.array([0, 1, 3, 3, 5, 6], np.uint64), "indices_1": np.array([3, 1, 4, 1, 2, 3], np.uint64),
         "values": np.array([7], np.int8)},
        format="CSR", shape=[5, 5], data_types={"pointers_to_1": "uint64", "indices_1": "uint64", "values": "iso[int8]"},
    )  # fmt: skip
    expected = np.zeros((5, 5), np.int8)
    expected[[0, 1, 1, 3, 3, 4], [3, 1, 4, 1, 2, 3]] = 7
    assert A.layout == "csr" and A.dtype == sparray.int8
    np.testing.assert_array_equal(A.to_dense(), expected)


@pytest.mark.parametrize("side", ["lower", "upper"])
@pytest.mark.parametrize("kind", ["symmetric", "skew_symmetric", "hermitian"])
def test_structures_expand_to_the_full_matrix(kind, side):
    rng = np.random.default_rng(3)
    full = np.tril(rng.standard_normal((5, 5)) + 1j * rng.standard_normal((5, 5)))
    full[rng.random((5, 5)) < 0.4] = 0
    if kind == "skew_symmetric":
        np.fill_diagonal(full, 0)
    if kind == "hermitian":
        full[np.diag_indices(5)] = full.diagonal().real
    stored = full if side == "lower" else full.T
    if kind == "hermitian" and side == "upper":
        stored = full.conj().T + 0.0  # + 0.0: conj makes every zero 0 - 0j, which asarray would store (-0.0 is not the fill)
    A = sparray.asarray(stored, layout="csr")
    desc = A.__binsparse_descriptor__()
    desc["binsparse"]["structure"] = f"{kind}_{side}"
    B = sparray.from_binsparse(Producer(A.__binsparse__(), desc))
    mirror = {"symmetric": stored.T, "skew_symmetric": -stored.T, "hermitian": stored.conj().T}[kind]
    expected = stored + mirror - np.diag(np.diag(stored))
    assert B.layout == "csr"
    np.testing.assert_allclose(B.to_dense(), expected)
    np.testing.assert_allclose(B.to_dense(), {"symmetric": expected.T, "skew_symmetric": -expected.T,
                                               "hermitian": expected.conj().T}[kind])  # fmt: skip


def test_cooc_dcsr_dcsc_and_vec():
    dense = np.array([[0, 0, 0, 0], [5.0, 0, 6.0, 0], [0, 0, 0, 0], [0, 7.0, 0, 0]])
    cooc = _read({"indices_0": [0, 1, 2], "indices_1": [1, 3, 1], "values": [5.0, 7.0, 6.0]}, format="COOC", shape=[4, 4])
    np.testing.assert_array_equal(cooc.to_dense(), dense)
    dcsr = _read({"indices_0": [1, 3], "pointers_to_1": [0, 2, 3], "indices_1": [0, 2, 1], "values": [5.0, 6.0, 7.0]},
                 format="DCSR", shape=[4, 4])  # fmt: skip
    np.testing.assert_array_equal(dcsr.to_dense(), dense)
    dcsc = _read({"indices_0": [0, 1, 2], "pointers_to_1": [0, 1, 2, 3], "indices_1": [1, 3, 1], "values": [5.0, 7.0, 6.0]},
                 format="DCSC", shape=[4, 4])  # fmt: skip
    np.testing.assert_array_equal(dcsc.to_dense(), dense)
    vec = _read({"indices_0": [1, 4], "values": [True, True]}, format="VEC", shape=[6])
    np.testing.assert_array_equal(vec.to_dense(), [0, 1, 0, 0, 1, 0])


def test_batched_pointers_with_unequal_batches_give_a_coo():
    # two 2x3 matrices: batch 0 has 1 entry, batch 1 has 2 (sparray CSR batches need equal nse)
    fmt = {"level": "dense", "rank": 2, "subformat": {"level": "sparse", "rank": 1, "subformat": {"level": "element"}}}
    A = _read({"pointers_to_2": [0, 1, 1, 2, 3], "indices_2": [2, 0, 1], "values": [1.0, 2.0, 3.0]}, format=fmt, shape=[2, 2, 3])
    expected = np.zeros((2, 2, 3))
    expected[0, 0, 2], expected[1, 0, 0], expected[1, 1, 1] = 1, 2, 3
    assert A.layout == "coo"
    np.testing.assert_array_equal(A.to_dense(), expected)


@pytest.mark.parametrize(
    "arrays, desc, match",
    [
        ({"indices_0": [0, 5], "indices_1": [0, 0], "values": [1.0, 2.0]}, {"format": "COOR", "shape": [3, 3]}, "out of range"),
        ({"indices_0": [1, 0], "indices_1": [0, 0], "values": [1.0, 2.0]}, {"format": "COOR", "shape": [3, 3]}, "sorted"),
        ({"indices_0": [0], "indices_1": [0], "values": [1.0, 2.0]}, {"format": "COOR", "shape": [3, 3]}, "expected 1"),
        ({"indices_0": [0], "values": [1.0]}, {"format": "COOR", "shape": [3, 3]}, "indices_1"),
        ({"pointers_to_1": [0, 2, 1], "indices_1": [0], "values": [1.0]}, {"format": "CSR", "shape": [2, 2]}, "crow|nse|decreas"),
        ({"indices_0": [0], "values": [1.0]}, {"format": "ELL", "shape": [3]}, "unknown format 'ELL'"),
        ({"indices_0": [0], "values": [1.0]}, {"format": "VEC", "shape": [3, 3]}, "cover 1 dims"),
        ({"indices_0": [0], "values": [1.0]}, {"format": "VEC"}, "no 'shape'"),
        ({"indices_0": [0], "values": ["a"]}, {"format": "VEC", "shape": [3]}, "unsupported value type"),
        ({"indices_0": [0.5], "values": [1.0]}, {"format": "VEC", "shape": [3]}, "integers"),
    ],
)
def test_bad_producers_get_clear_errors(arrays, desc, match):
    with pytest.raises(ValueError, match=match):
        _read(arrays, **desc)


def test_structure_with_entries_in_the_wrong_triangle():
    A = sparray.asarray(np.array([[1.0, 2.0], [0.0, 3.0]]), layout="coo")
    desc = A.__binsparse_descriptor__()
    desc["binsparse"]["structure"] = "symmetric_lower"
    with pytest.raises(ValueError, match="other one"):
        sparray.from_binsparse(Producer(A.__binsparse__(), desc))


def test_export_errors():
    A = sparray.COO([[0, 1]], [[1.0, 2.0], [3.0, 4.0]], shape=(2, 2), fill_value=np.array([0.0, 1.0]))
    with pytest.raises(ValueError, match="varies along the dense dims"):
        A.__binsparse_descriptor__()
    with pytest.raises(TypeError, match="__binsparse__"):
        sparray.from_binsparse(np.eye(2))
