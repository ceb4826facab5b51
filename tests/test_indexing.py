"""``A[key]`` against NumPy's indexing of ``A.to_dense()``: ints, slices with any step, ``...``,
``None``, integer and boolean arrays (and mixes, adjacent or not), on every layout with fills
0, 1.5, nan and -inf (dense-part fills for hybrid shapes), uncoalesced COO, and the errors."""

import numpy as np
import pytest
from hypothesis import given
from sparray_testing import assert_matches_dense, coo_cases, layout_cases, make_coo

import sparray


def _random_slice(rng, n):
    start = int(rng.integers(-n - 1, n + 2)) if rng.random() < 0.7 else None
    stop = int(rng.integers(-n - 1, n + 2)) if rng.random() < 0.7 else None
    step = int(rng.choice([1, 2, 3, -1, -2])) if rng.random() < 0.7 else None
    return slice(start, stop, step)


def _random_key(rng, shape):
    """A random key for ``shape``: basic items, sometimes with one or two integer arrays or a mask."""
    items = []
    for n in shape:
        r = rng.random()
        if r < 0.25 and n:
            items.append(int(rng.integers(-n, n)))
        elif r < 0.45 and n:
            items.append(rng.integers(-n, n, size=int(rng.integers(0, 4))))
        elif r < 0.5:
            items.append(rng.random(n) < 0.5)
        elif r < 0.53:
            items.append([])  # an empty list: an empty integer index, as in NumPy
        else:
            items.append(_random_slice(rng, n))
        if rng.random() < 0.1:
            items.append(None)
    cut = int(rng.integers(0, len(items) + 1))
    r = rng.random()
    if r < 0.3:
        items = items[:cut] + [Ellipsis]  # the rest implied
    elif r < 0.45:
        items = items[:cut] + [Ellipsis] + items[cut:]  # spans no dim, and still separates
    return tuple(items)


def _check(A, D, key):
    try:
        expected = D[key]
    except IndexError:  # out of range, shape mismatch of index arrays, mask of the wrong shape
        with pytest.raises(IndexError):
            A[key]
        return
    try:
        R = A[key]
    except ValueError as exc:
        # documented limit: an advanced block over sparse and dense dims whose fill varies
        assert "fill value varies" in str(exc) and _fill_varies(A), (A, key)
        return
    if np.ndim(expected) == 0:  # every dim an int: a 0-d sparray array holding the element (the namespace rule)
        assert isinstance(R, sparray.SparseArray) and R.shape == () and R.sparse_ndim == 0 and R.nse == 1, (A, key)
        assert R.dtype == A.dtype and R.device == A.device
        np.testing.assert_array_equal(np.asarray(R), expected)
        return
    assert isinstance(R, sparray.SparseArray)
    assert R.layout in (A.layout, "coo")
    assert_matches_dense(R, expected)


def _fill_varies(A):
    f = np.asarray(A.fill_value)
    return f.ndim > 0 and f.size > 1 and not np.all((f == f.flat[0]) | (np.isnan(f) & np.isnan(f.flat[0])))


FIXED_KEYS = [
    0, -1, slice(None), slice(None, None, -1), slice(1, None, 2), (slice(None), 0), (Ellipsis, -1),
    (None,), (0, None), (Ellipsis, None), [0, 0, -1], ([1, 0], Ellipsis), (slice(None), [1, 1]),
    ([0, 1], [1, 0]), (0, slice(None), [1, 0]), ([[0], [1]], [0, 1]),
]  # fmt: skip


def test_getitem_every_layout_fixed_and_random_keys(backend):
    rng = np.random.default_rng(0)
    for layout, A, D in layout_cases(rng):
        for key in FIXED_KEYS:
            _check(A, D, key)
        for _ in range(6):
            _check(A, D, _random_key(rng, A.shape))


@given(coo_cases(dtypes=("float64", "int64", "bool")))
def test_getitem_uncoalesced_nd_coo(case):
    A, D = case
    rng = np.random.default_rng(1)
    for _ in range(8):
        _check(A, D, _random_key(rng, A.shape))


def test_issue16_empty_lists_and_empty_ellipses_follow_numpy():
    D = np.array([[1.0, 0, 2]])
    A = sparray.asarray(D)
    for key in ([], ([], slice(None)), (slice(None), []), np.array([], dtype=np.int64), [[]]):
        assert_matches_dense(A[key], D[key])
    y = np.arange(12.0).reshape(2, 2, 3)
    for layout in ("coo", "csr", "csc"):
        Y = sparray.asarray(y, layout=layout)
        for key in ((slice(None), [1, 0], Ellipsis, 1), (0, Ellipsis, [2, 0]), ([1], Ellipsis, np.array([[1, 0, 1]]) > 0)):
            _check(Y, y, key)
    with pytest.raises(IndexError, match="valid indices"):
        A[np.array([], dtype=np.float64)]  # an empty float array is no index, as in NumPy


def test_issue16_empty_indices_on_every_layout(backend):
    """Empty lists, empty integer arrays and all-False or empty masks on every layout and fill:
    NumPy's shapes. A mask dim of size 0 matches any indexed dim; an index array is not
    bounds-checked when the broadcast index is empty (an int always is)."""
    rng = np.random.default_rng(16)
    empty_int = np.array([], dtype=np.int64)
    for layout, A, D in layout_cases(rng):
        n0 = D.shape[0]
        keys = [[], ([], slice(None)), (slice(None), []), empty_int, (Ellipsis, empty_int), [[]],
                np.zeros(n0, bool), (slice(None), np.zeros(D.shape[1], bool)), np.zeros((0,), bool),
                (Ellipsis, np.zeros((0,), bool)), (np.zeros((0, 0), bool),), ([], None, Ellipsis, [[0], [D.shape[-1] + 3]]),
                (Ellipsis, np.zeros((0,), bool), None)]
        for key in keys:
            _check(A, D, key)
        with pytest.raises(IndexError, match="out of bounds"):
            A[[], D.shape[1]]  # an int is checked even when the broadcast index is empty
        if n0 > 1:
            with pytest.raises(IndexError, match="boolean index did not match"):
                A[np.zeros(n0 - 1, bool)]


def test_issue16_random_keys_with_masks_nones_and_ellipses(backend):
    """Random keys mixing ints, NumPy ints, slices, integer arrays (lists too, any ndim), boolean
    masks over 1-3 dims (empty, all-False, random, all-True), None and an Ellipsis anywhere, on
    every layout and fill, against NumPy (errors included)."""
    rng = np.random.default_rng(1616)
    for layout, A, D in layout_cases(rng, fills=[1.5, np.nan]):
        for _ in range(12):
            _check(A, D, _random_mixed_key(rng, D.shape))


def _random_mixed_key(rng, shape):
    items, d = [], 0
    while d < len(shape) and rng.random() < 0.9:
        n, r = shape[d], rng.random()
        if r < 0.15 and n:
            items.append(int(rng.integers(-n, n)) if rng.random() < 0.7 else np.int64(rng.integers(-n, n)))
        elif r < 0.35:
            size = tuple(int(k) for k in rng.integers(0, 3, size=int(rng.integers(0, 3))))
            a = rng.integers(-n, n, size=size) if n else np.zeros(size, np.int64)
            items.append(a.tolist() if rng.random() < 0.2 and a.ndim else a)
        elif r < 0.45:
            k = int(rng.integers(1, min(3, len(shape) - d) + 1))
            items.append(rng.random(shape[d : d + k]) < rng.choice([0.0, 0.5, 1.0]))
            d += k - 1
        elif r < 0.5:
            items.append([])
        else:
            items.append(_random_slice(rng, n))
        d += 1
        if rng.random() < 0.15:
            items.append(None)
    if rng.random() < 0.5:
        items.insert(int(rng.integers(0, len(items) + 1)), Ellipsis)
    return tuple(items)


def test_getitem_keeps_the_fill_and_the_order():
    rng = np.random.default_rng(2)
    A, D = make_coo(rng, (6, 5, 3), 2, density=0.4, fill=np.nan, dense_fill=True)
    A = A.coalesce()
    R = A[1:5:2, ::2]
    assert R.is_coalesced and R.dense_ndim == 1
    assert_matches_dense(R, D[1:5:2, ::2], fill=np.asarray(A.fill_value))
    S = A[:, :, 1]  # an int on the dense dim: the fill follows
    assert_matches_dense(S, D[:, :, 1], fill=np.asarray(A.fill_value)[1])
    T = A[[0, 0, 5]]  # repeated indices repeat entries
    assert_matches_dense(T, D[[0, 0, 5]])
    U = A[:, :, [2, 0]]  # an advanced index on a dense dim with a varying fill
    assert_matches_dense(U, D[:, :, [2, 0]])


def test_getitem_with_boolean_sparse_mask_and_dense_mask():
    rng = np.random.default_rng(3)
    A, D = make_coo(rng, (4, 5), density=0.5, fill=1.5)
    mask = A > 1.0
    np.testing.assert_array_equal(A[mask].to_dense(), D[D > 1.0])
    np.testing.assert_array_equal(A[D > 1.0].to_dense(), D[D > 1.0])
    np.testing.assert_array_equal(A[np.array([True, False, True, False])].to_dense(), D[[0, 2]])


def test_getitem_compressed_comes_back_compressed():
    C = sparray.CSR([0, 2, 3, 3], [0, 2, 1], [1.0, 2.0, 3.0], shape=(3, 3), fill_value=0.5)
    R = C[::-1, 1:]
    assert R.layout == "csr"
    np.testing.assert_array_equal(R.to_dense(), C.to_dense()[::-1, 1:])
    assert C[1].layout == "coo" and C[1].shape == (3,)
    assert C[()] is C


def test_slices_of_dense_dims_past_their_ends_array_api_strict():
    """Regression (found by diff on array_api_strict components): a slice of a dense dim starting
    outside it (A[:, 5:], A[:, -7:2]) went to the namespace as it was, and array_api_strict
    rejects out-of-bounds starts (the standard leaves them unspecified); NumPy clips them."""
    xps = pytest.importorskip("array_api_strict")
    D = np.arange(12.0).reshape(3, 4)
    A = sparray.COO(xps.asarray(np.array([[0, 2]])), xps.asarray(D[[0, 2]]), shape=(3, 4),
                    fill_value=xps.asarray(np.array([1.0, 2.0, 3.0, 4.0])))  # fmt: skip
    D[1] = [1.0, 2.0, 3.0, 4.0]
    for key in [(slice(None), slice(5, None)), (slice(None), slice(-7, 2)), (slice(None), slice(2, -9, -1)),
                (slice(None), slice(None, None, -3)), (slice(1, None), slice(9, -9, -2))]:  # fmt: skip
        np.testing.assert_array_equal(np.asarray(A[key].to_dense()._array), D[key], err_msg=repr(key))


@pytest.mark.parametrize("namespace", ["numpy", "array_api_strict"])
def test_index_arrays_on_dense_dims_array_api_strict(namespace):
    """Regression (differential test): ``A[:, xps.asarray([0, 1])]`` on a hybrid array raised
    array_api_strict's IndexError, since the dense dims' key went to the namespace as it was, an
    index array beside slices (the standard allows neither, array_api_strict only integer arrays
    alone with ints). The dense dims now take their basic items as one basic key and their index
    arrays through one ``xp.take``. int32/int64, negative, n-d and boolean indices, beside slices,
    None, ints and an Ellipsis, with a fill that varies along the dense dims, against NumPy."""
    xp = pytest.importorskip(namespace)
    rng = np.random.default_rng(23)
    for shape, s, layout in [((3, 4, 5), 1, "coo"), ((2, 3, 4), 2, "csr"), ((2, 4), 1, "coo")]:
        A, D = make_coo(rng, shape, s, density=0.5, fill=np.nan, dense_fill=True, xp=xp)
        A = A if layout == "coo" else A.to_layout(layout)
        rest = (slice(None),) * s
        n = shape[s]
        for dtype in ("int32", "int64"):
            keys = [(*rest, [0, 1]), (*rest, [-1, 0, -n]), (*rest, [[1, -1], [0, 0]]), (Ellipsis, [n - 1])]
            if len(shape) - s == 2:
                m = shape[s + 1]
                keys += [(*rest, slice(1, 3), [[-1], [0]]), (*rest, [2, -1], [m - 1]), (*rest, None, [0, -2]),
                         (*rest, 1, [[0, -1, 2]]), (*rest, [1], slice(None, None, -2)), (*rest, [0, -1], [[0], [1]])]
            for key in keys:
                np_key = tuple(np.asarray(k, dtype=dtype) if isinstance(k, list) else k for k in key)
                xp_key = tuple(xp.asarray(k) if isinstance(k, np.ndarray) else k for k in np_key)
                assert_matches_dense(A[xp_key], D[np_key])
        mask = np.arange(n) % 2 == 0
        assert_matches_dense(A[(*rest, xp.asarray(mask))], D[(*rest, mask)])


def test_getitem_errors():
    A = sparray.COO([[0, 1], [1, 0]], [1.0, 2.0], shape=(2, 3))
    with pytest.raises(IndexError, match="index 2 is out of bounds for axis 0 with size 2"):
        A[2]
    with pytest.raises(IndexError, match="index -4 is out of bounds for axis 1 with size 3"):
        A[:, [0, -4]]
    with pytest.raises(IndexError, match="too many indices for array: array is 2-dimensional, but 3 were indexed"):
        A[0, 0, 0]
    with pytest.raises(IndexError, match="single ellipsis"):
        A[..., ...]
    with pytest.raises(IndexError, match="valid indices"):
        A[1.5]
    with pytest.raises(IndexError, match="valid indices"):
        A[np.array([0.5])]
    with pytest.raises(IndexError, match="shape mismatch"):
        A[[0, 1], [0, 1, 2]]
    with pytest.raises(IndexError, match="boolean index"):
        A[np.array([True, False, True])]
    assert A[True].shape == (1, 2, 3) and A[False].shape == (0, 2, 3)  # 0-d booleans add an axis, as in NumPy
    with pytest.raises(IndexError, match="shape mismatch"):
        A[False, [0, 1]]  # its length-0 axis does not broadcast with a length-2 index


def test_compressed_major_ranges_are_cut_from_the_components(backend):
    """Rows i:j of a CSR/BSR (columns of a CSC/BSC), rows by a stepped slice or an index array and
    one row of a CSR (column of a CSC) come straight from the components: same layout (a step-1
    range shares the entries); every other key agrees too."""
    rng = np.random.default_rng(6)
    for layout, A, D in layout_cases(rng, layouts=["csr", "csc", "bsr", "bsc"], fills=[0.0, np.nan]):
        if A.batch_ndim:
            continue
        major = 0 if layout in ("csr", "bsr") else 1
        n = A.shape[major]
        for start, stop in [(0, n), (1, n - 1), (-3, None), (2, 1), (n, n + 5), (0, 0)]:
            sl = slice(start, stop)
            key = sl if major == 0 else (slice(None), sl)
            R = A[key]
            assert_matches_dense(R, D[key])
            aligned = all(v % A.blocksize[major] == 0 for v in sl.indices(n)[:2]) if layout[0] == "b" else True
            if aligned and R.nse:
                assert R.layout == layout and np.shares_memory(np.asarray(R.values), np.asarray(A.values))
        if layout in ("csr", "csc") and n:
            for pick in (slice(None, None, 2), slice(None, None, -1), slice(-2, 0, -3), [n - 1, 0, 0, -1],
                         np.array([], np.int64), np.arange(n)[::-1].copy()):
                key = pick if major == 0 else (slice(None), pick)
                R = A[key]
                assert R.layout == layout
                assert_matches_dense(R, D[key])
            for i in (0, n - 1, -1, np.int64(n - 1), np.array(0)):
                key = i if major == 0 else (slice(None), i)
                R = A[key]
                assert R.layout == "coo"
                assert_matches_dense(R, D[key])
            with pytest.raises(IndexError, match=f"index {n} is out of bounds for axis {major}"):
                A[n if major == 0 else (slice(None), n)]


def test_compressed_ranges_on_both_sparse_dims_are_cut_from_the_components(backend):
    """``A[i:j, k:l]`` of an unbatched CSR/CSC/BSR/BSC (the blocks Dask's rechunk cuts): rows as views,
    each row's column range by binary search (``slice_minor``); same layout, hybrid dims whole."""
    rng = np.random.default_rng(9)
    for layout, A, D in layout_cases(rng, layouts=["csr", "csc", "bsr", "bsc"], fills=[0.0, 1.5, np.nan]):
        if A.batch_ndim:
            continue
        n0, n1 = A.shape[:2]
        for r, c in [((1, n0 - 1), (2, n1)), ((0, n0), (1, n1 - 1)), ((2, 2), (0, n1)), ((-2, None), (-3, -1)),
                     ((0, n0), (n1, n1 + 3))]:
            key = (slice(*r), slice(*c))
            R = A[key]
            assert_matches_dense(R, D[key], fill=np.asarray(A.fill_value))
            bh, bw = A.blocksize if layout[0] == "b" else (1, 1)
            aligned = all(v % bh == 0 for v in key[0].indices(n0)[:2]) and all(v % bw == 0 for v in key[1].indices(n1)[:2])
            if aligned:
                assert R.layout == layout and R.index_dtype == A.index_dtype
