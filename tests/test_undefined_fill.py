"""The undefined fill (``sparray.undefined``, RFC point 13) against a reference that keeps the
structure apart from the values: a dense NumPy array of values and a boolean array of which
elements exist. Every family of functions of docs/graphs.md, every layout that can hold the entries
as they are, batched and hybrid shapes, explicit zeros (entries, never dropped), and the simulated
device."""

from __future__ import annotations

import pickle

import numpy as np
import pytest

import sparray as sp
from cuda_testing import requires_gxx
from places_testing import dense_on_host, to_place
from sparray.kernels.cuda.simulated import counting

U = sp.undefined
LAYOUTS = ["coo", "csr", "csc"]


def graph(rng, shape=(5, 6), density=0.45, dtype="float64", empty_row=2):
    """(A, values, present): an undefined-fill COO whose entries are ``values[present]``, with
    explicit zeros among them and (for 2-d shapes) an empty row."""
    present = rng.random(shape) < density
    if len(shape) >= 2 and empty_row is not None:
        present[..., empty_row, :] = False
    values = np.round(rng.standard_normal(shape), 1).astype(dtype)
    values[present & (rng.random(shape) < 0.2)] = 0  # explicit zeros: entries like any other
    idx = np.nonzero(present)
    A = sp.asarray(sp.COO(np.array(idx), values[present], shape=shape), fill_value=U)
    return A, values, present


def check(got, values, present, *, rtol=1e-12):
    """``got`` (undefined fill) holds exactly ``values`` where ``present``."""
    assert isinstance(got, sp.SparseArray) and not got.fill_is_defined, got
    h = got.to_device("cpu") if got.device != "cpu" else got
    marker = sp.asarray(h._replace_values(np.ones(h.values.shape, dtype=bool), np.empty((0,), bool)), fill_value=False)
    np.testing.assert_array_equal(np.asarray(marker.to_dense()), present)
    dense = np.asarray(h.to_dense(fill_value=0))
    np.testing.assert_allclose(dense[present], np.asarray(values)[present], rtol=rtol, equal_nan=True)


def test_the_fill_and_its_predicate():
    A, values, present = graph(np.random.default_rng(0))
    assert A.fill_value.shape == (0,) and not A.fill_is_defined
    assert sp.asarray(np.eye(2)).fill_is_defined
    assert "fill_value=undefined" in repr(A) and repr(U) == "sparray.undefined"
    assert pickle.loads(pickle.dumps(U)) is U
    with pytest.raises(ValueError, match=r"to_dense\(fill_value=0.0\)"):
        A.to_dense()
    with pytest.raises(ValueError, match="undefined"):
        np.asarray(A)
    np.testing.assert_array_equal(A.to_dense(fill_value=-7.0), np.where(present, values, -7.0))
    B = sp.asarray(A, fill_value=1.5)  # the entries kept, the unspecified elements 1.5
    assert B.fill_is_defined and B.nse == A.nse
    np.testing.assert_array_equal(B.to_dense(), np.where(present, values, 1.5))
    C = sp.asarray(B, fill_value=U)  # and back: nothing densified, explicit 1.5s would stay entries
    assert not C.fill_is_defined and C.nse == A.nse
    for make in (lambda: sp.zeros((2, 3), fill_value=U), lambda: sp.CSR([0, 1], [0], [3.0], shape=(1, 2), fill_value=U)):
        Z = make()
        assert not Z.fill_is_defined


@pytest.mark.parametrize("layout", ["coo", "csr", "csc", "bsr", "bsc"])
def test_dense_input_and_creation_store_every_element(layout):
    """A dense array has a value everywhere: with an undefined fill every element (zeros included)
    is an entry, as GraphBLAS's from_dense without a missing value; ``empty`` is the empty graph."""
    D = np.array([[1.0, 0.0, 0.0, -2.0], [0.0, 0.0, 3.0, 0.0]])
    bs = (1, 2) if layout in ("bsr", "bsc") else None
    A = sp.asarray(D, fill_value=U, layout=layout, blocksize=bs)
    assert A.layout == layout and not A.fill_is_defined
    check(A, D, np.ones(D.shape, bool))
    H = sp.asarray(np.arange(12.0).reshape(3, 4), fill_value=U, sparse_ndim=1)  # hybrid: every row an entry
    assert H.nse == 3 and H.dense_ndim == 1 and not H.fill_is_defined
    if layout in ("coo", "csr", "csc"):
        for make, value in ((sp.zeros, 0.0), (sp.ones, 1.0)):
            Z = make((2, 3), fill_value=U, layout=layout)
            assert Z.nse == 6 and not Z.fill_is_defined
            check(Z, np.full((2, 3), value), np.ones((2, 3), bool))
        E = sp.empty((2, 3), fill_value=U, layout=layout)
        assert E.nse == 0 and not E.fill_is_defined and E.layout == layout
    with pytest.raises(ValueError, match="needs a fill value for the other 2"):
        sp.asarray(np.ones((2, 4)), fill_value=U, layout="2:4")


@pytest.mark.parametrize("layout", LAYOUTS)
def test_structure_only_functions_keep_entries(layout):
    rng = np.random.default_rng(1)
    A0, v, p = graph(rng)
    A = A0.to_layout(layout)
    assert not A.fill_is_defined and A.nse == A0.nse
    cases = [
        (sp.reshape(A, (30,)), v.reshape(30), p.reshape(30)),
        (sp.permute_dims(A, (1, 0)), v.T, p.T),
        (A.mT, v.T, p.T),
        (sp.flip(A, axis=0), v[::-1], p[::-1]),
        (sp.roll(A, 2, axis=1), np.roll(v, 2, axis=1), np.roll(p, 2, axis=1)),
        (sp.concat([A, A], axis=0), np.concatenate([v, v]), np.concatenate([p, p])),
        (sp.stack([A, A]), np.stack([v, v]), np.stack([p, p])),
        (sp.tril(A), np.tril(v), np.tril(p)),
        (sp.triu(A, k=1), np.triu(v, 1), np.triu(p, 1)),
        (A[1:4, ::2], v[1:4, ::2], p[1:4, ::2]),
        (A[np.array([4, 0])], v[[4, 0]], p[[4, 0]]),
        (sp.take(A, np.array([5, 1]), axis=1), v[:, [5, 1]], p[:, [5, 1]]),
        (sp.broadcast_to(A, (2, 5, 6)), np.broadcast_to(v, (2, 5, 6)), np.broadcast_to(p, (2, 5, 6))),
        (sp.astype(A, sp.float32), v.astype(np.float32), p),
        (A.to_layout("coo"), v, p),
        (pickle.loads(pickle.dumps(A)), v, p),
    ]
    for got, want_v, want_p in cases:
        check(got, want_v, want_p, rtol=1e-6)


@pytest.mark.parametrize("layout", LAYOUTS)
def test_elementwise_maps_and_combines_entries_only(layout):
    rng = np.random.default_rng(2)
    A, v, p = graph(rng)
    A = A.to_layout(layout)
    B, w, q = graph(rng, empty_row=0)
    D = rng.standard_normal(v.shape)
    with np.errstate(all="ignore"):
        for got, want_v, want_p in [
            (sp.sin(A), np.sin(v), p), (-A, -v, p), (A + 1, v + 1, p), (2 * A, 2 * v, p), (A > 0, v > 0, p),
            (sp.isnan(A), np.isnan(v), p), (A ** 2, v ** 2, p), (sp.clip(A, -0.5, 0.5), np.clip(v, -0.5, 0.5), p),
            (A + B, v + w, p & q), (A * B, v * w, p & q), (A == B, v == w, p & q), (sp.maximum(A, B), np.maximum(v, w), p & q),
            (A + D, v + D, p), (D - A, D - v, p),
            (A + sp.asarray(D, fill_value=0.0), v + D, p),
            (A * sp.asarray(np.where(q, w, 3.0), fill_value=3.0), v * np.where(q, w, 3.0), p),  # B's fill read where A has entries
            (sp.where(A > 0, A, 0.0), np.where(v > 0, v, 0.0), p), (sp.where(A > 0, A, B), np.where(v > 0, v, w), p & q),
        ]:
            check(got, want_v, want_p)
    with pytest.raises(ValueError, match="mix undefined and defined"):
        sp.concat([A, sp.asarray(v)], axis=0)


def _line_reference(f, v, p, axis):
    moved_v, moved_p = np.moveaxis(v, axis, -1), np.moveaxis(p, axis, -1)
    out = np.zeros(moved_v.shape[:-1])
    for idx in np.ndindex(*out.shape):
        entries = moved_v[idx][moved_p[idx]]
        out[idx] = f(entries) if entries.size else np.nan
    return out, moved_p.any(axis=-1)


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("axis", [0, 1])
def test_reductions_over_entries(layout, axis):
    rng = np.random.default_rng(3 + axis)
    A, v, p = graph(rng)
    A = A.to_layout(layout)
    for f, ref in [(sp.sum, np.sum), (sp.prod, np.prod), (sp.max, np.max), (sp.min, np.min), (sp.mean, np.mean),
                   (sp.var, np.var), (sp.std, np.std), (sp.any, np.any), (sp.all, np.all)]:
        want, present = _line_reference(ref, v, p, axis)
        check(f(A, axis=axis), want, present)
    for f, ref in [(sp.argmax, np.argmax), (sp.argmin, np.argmin)]:
        moved_v, moved_p = np.moveaxis(v, axis, -1), np.moveaxis(p, axis, -1)
        want = np.zeros(moved_v.shape[:-1], dtype=np.int64)
        for idx in np.ndindex(*want.shape):
            if moved_p[idx].any():
                w = np.where(moved_p[idx], moved_v[idx], -np.inf if ref is np.argmax else np.inf)
                want[idx] = ref(w)
        check(f(A, axis=axis), want, moved_p.any(axis=-1))
    total = sp.sum(A)
    assert total.nse == 1 and float(total.to_dense(fill_value=0)) == pytest.approx(v[p].sum())
    assert sp.sum(sp.asarray(sp.zeros((2, 2)), fill_value=U)).nse == 0  # no entry: an undefined sum
    assert int(sp.count_nonzero(A)) == int(np.count_nonzero(v[p]))


def test_argmax_prefers_a_stored_lowest_value():
    A = sp.asarray(sp.COO([[0, 0], [3, 1]], [-np.inf, -np.inf], shape=(1, 4)), fill_value=U)
    assert int(sp.argmax(A, axis=1).to_dense(fill_value=-1)[0]) == 1  # the first stored one, not column 0
    B = sp.asarray(sp.COO([[0], [2]], [False], shape=(1, 4)), fill_value=U)
    assert int(sp.argmax(B, axis=1).to_dense(fill_value=-1)[0]) == 2


def test_products_and_softmax_over_entries():
    rng = np.random.default_rng(5)
    A, v, p = graph(rng)
    x = rng.standard_normal(6)
    check(A @ x, np.where(p, v, 0) @ x, p.any(axis=1))
    X = rng.standard_normal((5, 3))
    check(X.T @ A, X.T @ np.where(p, v, 0), np.broadcast_to(p.any(axis=0), (3, 6)))
    C = A @ A.mT
    structure = (p.astype(int) @ p.T.astype(int)) > 0
    check(C, np.where(p, v, 0) @ np.where(p, v, 0).T, structure)
    S = sp.softmax(A, axis=1)
    e = np.where(p, np.exp(v - np.where(p, v, -np.inf).max(axis=1, keepdims=True, initial=-np.inf)), 0)
    with np.errstate(invalid="ignore"):
        check(S, e / e.sum(axis=1, keepdims=True), p)
    with pytest.raises(ValueError, match="undefined and the other's is defined"):
        A @ sp.asarray(np.eye(6))


def test_batched_and_hybrid():
    rng = np.random.default_rng(6)
    A, v, p = graph(rng, shape=(2, 4, 5))
    with pytest.raises(ValueError, match="would add"):  # batches of different counts: padding with no value
        A.to_layout("csr")
    check(sp.reshape(A, (8, 5)).to_layout("csr"), v.reshape(8, 5), p.reshape(8, 5))
    check(sp.sum(A, axis=2), *_line_reference(np.sum, v, p, 2))
    H = sp.asarray(sp.COO([[0, 2]], np.array([[1.0, 0.0], [3.0, 4.0]]), shape=(3, 2)), fill_value=U)
    assert H.dense_ndim == 1
    np.testing.assert_array_equal((H * 2).to_dense(fill_value=-1.0), [[2.0, 0.0], [-1.0, -1.0], [6.0, 8.0]])


def test_refusals_name_the_way_out():
    A, _, _ = graph(np.random.default_rng(7))
    for f, match in [
        (lambda: sp.cumulative_sum(A, axis=0), r"cumulative_sum: an undefined fill"),
        (lambda: sp.sort(A, axis=0), r"sort: an undefined fill"),
        (lambda: sp.interop.scipy.to_scipy(A), r"to_scipy: this array's fill is undefined"),
        (lambda: sp.interop.torch.to_torch(A), r"to_torch: this array's fill is undefined"),
        (lambda: A.__binsparse__(), r"binsparse: this array's fill is undefined"),
        (lambda: A.to_layout("bsr", blocksize=(5, 2)), r"would add"),
    ]:
        with pytest.raises((TypeError, ValueError), match=match):
            f()


def test_save_and_load(tmp_path):
    A, v, p = graph(np.random.default_rng(8))
    path = tmp_path / "a.npz"
    sp.save_npz(path, A.to_layout("csr"))
    check(sp.load_npz(path), v, p)


@requires_gxx
def test_on_the_simulated_device():
    A, v, p = graph(np.random.default_rng(9))
    D = A.to_layout("csr").to_device("simulated")
    assert not D.fill_is_defined
    check(sp.sin(D) * 2, np.sin(v) * 2, p)
    check(sp.sum(D, axis=1), *_line_reference(np.sum, v, p, 1))
    x = rng_vector = np.random.default_rng(10).standard_normal(6)
    check(D @ to_place(rng_vector, "simulated"), np.where(p, v, 0) @ x, p.any(axis=1))
    np.testing.assert_array_equal(dense_on_host(D.to_dense(fill_value=-1.0)), np.where(p, v, -1.0))
    with counting() as c:
        E = D + 1
    assert c.syncs == 0 and not E.fill_is_defined
