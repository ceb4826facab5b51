"""Semiring products of a graph with bitmap vectors: what the algorithms of ``sparray.graph``
iterate with (GraphBLAS's bitmap format: a dense array of values beside a bool array of which
elements are present).

``sparray.graph.matmul`` gives a vector result as a sparse vector, which on a device costs a read
(``nonzero`` sizes it) and an O(n) compaction on every call. An iteration that keeps its state
dense (levels, distances, ranks, labels) needs only the bitmap, so these call the same registry
kernels (``semiring_vxm``, ``semiring_mxv``, ``semiring_mxm``) and hand back ``(y, present)``:

- :func:`push` -- ``y<mask> = x @ A`` for a frontier given by its vertex list (SpMSpV: only the
  rows of A the frontier names are read; the mask is tested before each product);
- :func:`pull` -- ``y<mask> = A @ x`` by rows with x a bitmap (rows the mask leaves out cost
  nothing; an ``any`` monoid stops a row at its first product);
- :func:`push_rows` -- the same as :func:`push` for a matrix of frontiers (one per source: a
  masked SpGEMM ``Y<mask> = X @ A``), results (s, n) bitmaps.

None of them reads anything back from the device itself (the kernels behind them may).

>>> import numpy as np, sparray
>>> from sparray.graph._adjacency import graph_of
>>> G = graph_of(sparray.asarray(np.array([[0, 1, 1], [0, 0, 1], [0, 0, 0]]), layout="csr"), "doc")
>>> y, present = push(G, None, np.array([0]), "any_secondi")
>>> y.tolist(), present.tolist()
([0, 0, 0], [False, True, True])
"""

from __future__ import annotations

from .._engine import dispatch as _dispatch
from ..kernels import semirings as T

__all__ = ["push", "pull", "push_rows", "csr_of_bitmap"]


def _reads(sr, side):
    r = T.semiring(sr).multiply.reads
    return r == "both" or r == side


def push(G, x, indices, semiring, mask=None, complement=False, *, dtype=None):
    """``(y, present)`` of ``y<mask> = x @ A`` (n,), x the vector whose entries are at
    ``indices`` (int64) with values ``x`` (None: not read); ``mask`` a bool (n,) or None."""
    values = G.values if _reads(semiring, "second") else None
    xv = x if _reads(semiring, "first") else None
    if values is not None and xv is not None and xv.dtype != values.dtype:
        xv = G.xp.astype(xv, values.dtype)
    work = G.nse + G.n  # what the generic path costs whatever the frontier: small graphs only stay there
    return _dispatch.call("semiring_vxm", "csr", G.xp, G.crow, G.col, values, G.n, xv, None, semiring, mask, None,
                          complement, True, indices, dtype, work=work)


def pull(parts, n, x, x_present, semiring, mask=None, complement=False, *, xp, dtype=None):
    """``(y, present)`` of ``y<mask> = A @ x`` (n,), A given by its CSR ``parts``, x a bitmap
    (``x`` values or None, ``x_present`` bool or None: every element present)."""
    crow, col, values = parts
    values = values if _reads(semiring, "first") else None
    xv = x if _reads(semiring, "second") else None
    if values is not None and xv is not None and xv.dtype != values.dtype:
        xv = xp.astype(xv, values.dtype)
    work = int(col.shape[0]) + n
    return _dispatch.call("semiring_mxv", "csr", xp, crow, col, values, xv, x_present, semiring, mask, None,
                          complement, True, n, dtype, work=work)


def csr_of_bitmap(G, present, count, values=None):
    """CSR parts ``(crow, col, values)`` of the (s, n) bitmap ``present`` holding ``count`` True
    elements (already read), in G's index dtype where it fits; ``values`` (s, n) taken there."""
    from ._adjacency import compact

    xp = G.xp
    s, n = (int(d) for d in present.shape)
    flat = compact(xp, xp.reshape(present, (s * n,)), count, G.on_host())
    idt = G.crow.dtype if max(count, s * n) < 2**31 else xp.int64
    per_row = xp.sum(xp.astype(present, xp.int64), axis=1)
    crow = xp.concat([xp.zeros((1,), dtype=xp.int64, device=G.device), xp.cumulative_sum(per_row)])
    col = flat % n
    v = None if values is None else xp.take(xp.reshape(values, (s * n,)), flat)
    return xp.astype(crow, idt), xp.astype(col, idt), v


def push_rows(G, X, frontier, count, semiring, mask=None, mask_count=0, complement=False, *, dtype=None):
    """``(Y, present)`` (s, n) of ``Y<mask> = X @ A``, X's entries where the (s, n) bool
    ``frontier`` holds (``count`` of them), their values X there (None: not read); ``mask`` an
    (s, n) bool bitmap with ``mask_count`` True elements, or None."""
    xp = G.xp
    s, n = (int(d) for d in frontier.shape)
    a = csr_of_bitmap(G, frontier, count, X if _reads(semiring, "first") else None)
    m = None
    if mask is not None:
        mc, mcol, _ = csr_of_bitmap(G, mask, mask_count)
        m = (mc, mcol)
    a_crow, a_col, a_values = a
    b_values = G.values if _reads(semiring, "second") else None
    if a_values is not None and b_values is not None and a_values.dtype != b_values.dtype:
        a_values = xp.astype(a_values, b_values.dtype)
    b_crow, b_col = G.crow, G.col
    if a_crow.dtype != b_crow.dtype:  # one index dtype for the kernel (the frontier's is G's where it fits)
        b_crow, b_col = xp.astype(b_crow, a_crow.dtype), xp.astype(b_col, a_crow.dtype)
    work = int(a_col.shape[0]) + G.nse
    c_crow, c_col, c_val = _dispatch.call("semiring_mxm", "csr", xp, a_crow, a_col, a_values, b_crow, b_col, b_values,
                                          n, semiring, m, complement, True, dtype, work=work)
    nnz = int(c_col.shape[0])
    c_crow64 = xp.astype(c_crow, xp.int64)
    e = xp.arange(nnz, dtype=xp.int64, device=G.device)
    rows = xp.searchsorted(c_crow64, e, side="right") - 1
    flat = rows * n + xp.astype(c_col, xp.int64)
    Y = xp.zeros((s * n,), dtype=c_val.dtype, device=G.device)
    P = xp.zeros((s * n,), dtype=xp.bool, device=G.device)
    Y[flat] = c_val
    P[flat] = True
    return xp.reshape(Y, (s, n)), xp.reshape(P, (s, n))
