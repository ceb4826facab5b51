"""Reductions of CSR, CSC, BSR and BSC arrays straight from their components (no COO on the way).

A compressed array is read as ``N = nbatch * nse`` *entries* (blocks for BSR/BSC, elements
otherwise), each holding a small dense array of values of the *local* shape ``(bh, bw, *dense)``
(``dense`` alone for CSR/CSC), at a position ``(batch, major, minor)`` of the block grid. A
reduction over array axes splits into

- a *local* part: the in-block rows ``bh`` when the row axis is reduced, the in-block columns
  ``bw`` when the column axis is, and the reduced dense axes (reduced inside each entry, and inside
  the fill);
- a *grouping* of the entries by their kept grid position (kept batch dims, the major index when
  the major axis is kept, the minor index when the minor axis is kept), chosen so that the common
  cases need no keys at all:

  ======================================  ==========================================================
  reduced (batch dims all kept)           groups
  ======================================  ==========================================================
  minor axis                              runs between the pointers (``group_reduce`` [csr], over
                                          ``nbatch * nmajor`` runs for a batched array)
  major axis                              the plain indices (plus ``batch * nminor``) are the keys:
                                          a scatter of sums and counts, or runs of the transposed
                                          pattern (the counting-sort transpose) for other kinds
  both                                    one group per batch (keys sorted by construction)
  neither (dense axes only)               every entry its own group: same pattern, new values
  ======================================  ==========================================================

  and with reduced batch dims, linear keys over the kept grid dims (``group_reduce`` [coo]).

Each group holds ``counts`` entries out of ``n_red`` grid positions; the others hold the fill, so
the fill formula of :mod:`._reductions` applies unchanged (``n_red`` in blocks, the local part
in elements). Results: the input's layout with the same pattern when only dense axes are reduced;
the input's layout, its batches merged, when batch dims (and maybe dense axes) are reduced but
both sparse axes are kept; otherwise a COO over the kept dims (a block's rows or columns spread
into elements) that :func:`sparray._layout.conversion.match_layout` turns back into the input's layout
when it still has two non-dense dims; a dense array when no batch or sparse dim is kept.

>>> import sparray, numpy as np
>>> A = sparray.asarray(np.arange(8.0).reshape(2, 2, 2), layout="csr")   # one batch dim
>>> sparray.sum(A, axis=0).to_dense().tolist()
[[4.0, 6.0], [8.0, 10.0]]
"""

from __future__ import annotations

import math

from .._engine import dispatch as _dispatch
from .._core.keys import INT32_MAX, unravel

__all__ = ["CompressedSource", "merges_few_major", "sum_few_major", "keeps_all_groups", "reduce_all_groups"]

# at most this many major rows are summed by pairwise merges (log2 of it passes over the entries)
_FEW_MAJOR = 16


def keeps_all_groups(xp):
    """Whether a reduction of data of ``xp`` keeps every group (the device route): CUDA data
    (CuPy, or the simulated device) served by the CUDA kernels (no ``use_backend`` elsewhere).
    Every group of a reduction along an axis is one row or column of the result, so its size comes
    from the shape and nothing is read back to the host: empty groups are kept (their value is the
    fill's reduction) instead of being found and dropped (a data-dependent size)."""
    from .._core.namespace import backend_kind

    if backend_kind(xp) != "cupy":
        return False
    forced = _dispatch.forced_backend()
    return forced is None or forced[0] == "cupy"


def reduce_all_groups(xp, rows, op, *, keys=None, nkeys=None, offsets=None, sorted_keys=False):
    """``(arange(G), per-group rows (G, m), counts (G,))`` for every group, empty ones too (rows of
    the op's identity, count 0): runs between ``offsets``, or ``keys`` in ``[0, nkeys)``: the
    registry's ``group_reduce_all`` (no host read on a GPU: the index inputs are proven)."""
    n, m = rows.shape
    if offsets is None and nkeys == 1 and n and not xp.isdtype(rows.dtype, "complex floating"):
        # one group (every sparse axis reduced): the array library's reduction, in parallel
        whole = {"sum": xp.sum, "prod": xp.prod, "max": xp.max, "min": xp.min}[op]
        kw = {"dtype": rows.dtype} if op in ("sum", "prod") else {}
        acc = whole(rows, axis=0, keepdims=True, **kw)
        return xp.zeros((1,), dtype=xp.int64), acc, xp.full((1,), n, dtype=xp.int64)
    if offsets is not None:
        return _dispatch.call("group_reduce_all", "csr", xp, offsets, rows, op, work=n)
    return _dispatch.call("group_reduce_all", "coo", xp, keys, rows, nkeys, op, sorted_keys, work=n)


def merges_few_major(xp, X, axes, kind, compute_dt):
    """Whether ``sum(X, axis=axes)`` goes to :func:`sum_few_major`: a float or complex sum (no
    cast) of an unbatched CSR/CSC without dense dims over its major axis alone, with 2 to
    ``_FEW_MAJOR`` major rows that are wide for their entries (``nminor >= nse / 8``). The
    scatter route would pay a dense accumulator of ``nminor`` slots, its scan, and a random
    access per entry; the merges stream (the partial sums of a Dask reduction over row blocks are
    such arrays: a few rows as wide as the matrix)."""
    if kind != "sum" or X._blocked or X.batch_ndim or X.dense_ndim or X.layout not in ("csr", "csc"):
        return False
    if keeps_all_groups(xp):  # a CPU optimisation: each merge sizes its result from the data
        return False
    if compute_dt != X.dtype or not xp.isdtype(X.dtype, ("real floating", "complex floating")):
        return False
    nmajor, nminor = X._grid
    return axes == (X._major,) and 2 <= nmajor <= _FEW_MAJOR and 8 * nminor >= X.nse


def sum_few_major(xp, X, keepdims):
    """The sum over the major axis of ``X`` (see :func:`merges_few_major`) as pairwise sums of its
    major rows, each a view (``X[i:i + 1]``, ``X[:, j:j + 1]``): ``(r0 + r1) + (r2 + r3) ...``, so
    every entry moves ``log2(nmajor)`` times through the merge kernels of ``+``. Exact with any
    fill: a sum of ``k`` rows has fill ``k * fill`` and, where some row stores an element, the sum
    of the stored ones plus the fill for each row that does not, as the reduction defines. The
    result is ``X``'s layout with the major axis kept (``keepdims``) or a 1-D COO."""
    import numpy as np

    from .._array.coo import COO

    rows = [X[i : i + 1] if X._major == 0 else X[:, i : i + 1] for i in range(X._grid[0])]
    with np.errstate(invalid="ignore", over="ignore"):  # inf + -inf is nan, as the scatter route gives it, silently
        while len(rows) > 1:
            rows = [rows[i] + rows[i + 1] if i + 1 < len(rows) else rows[i] for i in range(0, len(rows), 2)]
    (R,) = rows
    from .._core.fill import sum_zero

    R = R._replace_values(sum_zero(xp, R._values), sum_zero(xp, R._fill))  # a zero sum is +0.0, as NumPy's
    if keepdims:
        return R
    indices = xp.reshape(R._pidx, (1, R.nse))
    return COO._from_parts(xp, indices, R._values, (X._grid[1],), R._fill, coalesced=True)


class CompressedSource:
    """What a reduction over ``axes`` (normalized, sorted) of the compressed array ``X`` reads.

    ``values`` ``(N, *local_shape)``, ``fill`` broadcast to ``local_shape``, ``local_reduced``
    (the local axes reduced), ``groups`` (see :class:`CompressedGroups`) and :meth:`output`,
    which builds the result from the per-group rows."""

    def __init__(self, xp, X, axes):
        X._check_contents()  # once per array, before the indices reach a kernel
        self.X = X
        b = X.batch_ndim
        dense_shape = X.dense_shape
        self.red_batch = [a for a in axes if a < b]
        self.red_rows, self.red_cols = b in axes, b + 1 in axes
        self.dense_axes = [a - b - 2 for a in axes if a >= b + 2]
        N = math.prod(X.batch_shape) * X.nse
        if X._blocked:
            bh, bw = X._block
            self.local_shape = (bh, bw, *dense_shape)
            self.local_reduced = [0] * self.red_rows + [1] * self.red_cols + [2 + d for d in self.dense_axes]
        else:
            self.local_shape = dense_shape
            self.local_reduced = list(self.dense_axes)
        self.values = xp.reshape(X._values, (N, *self.local_shape))
        self.fill = xp.broadcast_to(X._fill, self.local_shape)
        self.groups = CompressedGroups(xp, X, self.red_batch, self.red_rows, self.red_cols)

    def output(self, xp, keys, result, empty_result, keepdims):
        """The reduction's result from the present group ``keys`` (None for identity groups), their
        rows ``result`` ``(nu, m)`` and the empty group's row ``empty_result`` ``(1, m)``."""
        X, g = self.X, self.groups
        b = X.batch_ndim
        dense_shape = X.dense_shape
        out_dense = tuple(
            1 if d in self.dense_axes else n for d, n in enumerate(dense_shape) if keepdims or d not in self.dense_axes
        )
        # the empty group's row repeats the fill's reduction for every kept in-block position
        fill_out = xp.reshape(empty_result, (math.prod(self._kept_block()), *out_dense))[0, ...]
        if not (self.red_rows or self.red_cols):
            block = X._block if X._blocked else ()
            if g.identity:  # dense axes only: the same pattern with new values
                values = xp.reshape(result, (*X.batch_shape, X.nse, *block, *out_dense))
                shape = X.shape[: b + 2] + out_dense
                return type(X)._from_parts(xp, X._cidx, X._pidx, values, shape, fill_out, checked=True)
            return self._merged_batches(xp, keys, result, fill_out, block, out_dense, keepdims)
        return self._sparse_output(xp, keys, result, fill_out, keepdims, out_dense)

    def _merged_batches(self, xp, keys, result, fill_out, block, out_dense, keepdims):
        """Batch dims reduced, both sparse axes kept: keys (kept batch, major, minor) in order are
        the result's pattern in the input's layout (short batches padded with the fill)."""
        from .._layout.compress import _build, _equalize_batches, _fill_row, _Parts

        X = self.X
        b = X.batch_ndim
        nmajor, nminor = X._grid
        kept_batch = [X.batch_shape[d] for d in range(b) if d not in self.red_batch]
        out_batch = tuple(1 if d in self.red_batch else X.batch_shape[d] for d in range(b)) if keepdims else tuple(kept_batch)
        nbatch = math.prod(kept_batch)
        grow = keys // max(nminor, 1)
        offsets = _dispatch.call("compress_offsets", "csr", xp, grow, nbatch * nmajor, xp.int64, work=keys.shape[0])
        minor = keys - grow * nminor
        parts = _Parts(xp, offsets, minor, result, nbatch, nmajor, nminor)
        repeat = math.prod(block)
        idt = X._cidx.dtype
        parts = _equalize_batches(parts, _fill_row(xp, fill_out, out_dense, repeat, result.dtype), xp.int64)
        if parts.nnz // max(nbatch, 1) > INT32_MAX:
            idt = xp.int64
        shape = out_batch + X.shape[b : b + 2] + out_dense
        return _build(type(X), parts, shape, fill_out, out_batch, (*block, *out_dense), idt)

    def _sparse_output(self, xp, keys, result, fill_out, keepdims, out_dense):
        """At most one sparse axis kept: a COO over the kept batch dims and that axis (a block's
        rows or columns spread into elements), or a dense array when none is kept."""
        from .._array.coo import COO

        X, g = self.X, self.groups
        b = X.batch_ndim
        s = b + 2
        reduced = set(self.red_batch) | ({b} if self.red_rows else set()) | ({b + 1} if self.red_cols else set())
        kept = [d for d in range(s) if d not in reduced]
        if not kept:
            dense = xp.reshape(result, out_dense) if result.shape[0] else fill_out
            if keepdims:  # every non-dense dim is size 1: no specified element, the value is the fill
                fill_out = dense
                indices = xp.zeros((s, 0), dtype=X._cidx.dtype)
                values_out = xp.zeros((0, *out_dense), dtype=fill_out.dtype)
                return COO._from_parts(xp, indices, values_out, (1,) * s + out_dense, fill_out, coalesced=True)
            return dense
        bsz = math.prod(self._kept_block())
        kept_sizes = [X.shape[d] for d in kept]
        idt = X._cidx.dtype if max(kept_sizes) <= INT32_MAX else xp.int64
        kept_idx = unravel(xp, keys, g.kept_shape, xp.int64)
        nu = keys.shape[0]
        if bsz > 1:  # entry i of the kept axis's blocks stands for elements i * bsz + (0..bsz-1)
            kept_idx = xp.reshape(xp.broadcast_to(xp.reshape(kept_idx, (len(kept), nu, 1)), (len(kept), nu, bsz)), (len(kept), nu * bsz))
            within = xp.reshape(xp.broadcast_to(xp.arange(bsz, dtype=xp.int64), (nu, bsz)), (nu * bsz,))
            kept_idx = xp.concat([kept_idx[:-1, :], xp.reshape(kept_idx[-1, :] * bsz + within, (1, nu * bsz))], axis=0)
            nu = nu * bsz
        kept_idx = xp.astype(kept_idx, idt)
        if keepdims:
            rows, it = [], 0
            for d in range(s):
                if d in reduced:
                    rows.append(xp.zeros((1, nu), dtype=idt))
                else:
                    rows.append(kept_idx[it : it + 1, :])
                    it += 1
            indices = xp.concat(rows, axis=0)
            out_sparse = tuple(1 if d in reduced else X.shape[d] for d in range(s))
        else:
            indices = kept_idx
            out_sparse = tuple(kept_sizes)
        values_out = xp.reshape(result, (nu, *out_dense))
        return COO._from_parts(xp, indices, values_out, out_sparse + out_dense, fill_out, coalesced=True)

    def _kept_block(self):
        """The in-block sizes that stay in the result rows (rows of a block when the row axis is kept,
        its columns when the column axis is); empty for CSR/CSC."""
        if not self.X._blocked:
            return ()
        bh, bw = self.X._block
        return ((bh,) if not self.red_rows else ()) + ((bw,) if not self.red_cols else ())


class CompressedGroups:
    """The entries of a compressed array grouped by their kept grid position (see the module
    docstring): ``offsets`` (runs between pointers), or ``keys`` with ``nkeys`` (``by_plain``: the
    keys are the plain indices, the major axis reduced), or ``identity``. ``kept_shape`` is the
    kept grid dims in the array's order (kept batch dims, then the one kept sparse axis; when both
    are kept: major, then minor), ``n_red`` the grid positions of a group, ``sorted`` whether the
    keys are non-decreasing (a hint for the scatter kernel)."""

    def __init__(self, xp, X, red_batch, red_rows, red_cols):
        self.X = X
        b = X.batch_ndim
        batch_shape = X.batch_shape
        nbatch = math.prod(batch_shape)
        nmajor, nminor = X._grid
        nse = X.nse
        red_major, red_minor = (red_rows, red_cols) if X._major == 0 else (red_cols, red_rows)
        kept_batch = [batch_shape[d] for d in range(b) if d not in red_batch]
        self.kept_shape = tuple(kept_batch) + ((nmajor,) if not red_major else ()) + ((nminor,) if not red_minor else ())
        self.kept = list(range(len(self.kept_shape)))  # only its truth and length are read
        self.nkeys = math.prod(self.kept_shape)
        self.n_red = math.prod(batch_shape[d] for d in red_batch) * (nmajor if red_major else 1) * (nminor if red_minor else 1)
        self.index_dtype = X._cidx.dtype
        self.identity = not (red_batch or red_major or red_minor)
        self.keys, self.offsets, self.by_plain, self.sorted = None, None, False, False
        self._red_major, self._red_minor = red_major, red_minor
        self.all_groups = False  # set by the reduction: keep every group (see keeps_all_groups)
        if self.identity:
            return
        if not red_batch:
            if red_minor and not red_major:  # runs between the pointers
                self.offsets = self._global_offsets(xp)
            elif red_major and not red_minor:  # the plain indices (per batch) are the keys
                self.by_plain = True
                if b == 0:
                    self.keys = X._pidx  # int32 or int64 as given: the kernels take both
                else:
                    self.keys = self._batch_base(xp, nminor, xp.astype(self._minor(xp), xp.int64))
            else:  # both sparse axes: one group per batch
                self.keys, self.sorted = self._batch_base(xp, 1, None), True
            return
        self.keys = self._linear_keys(xp, red_batch, red_major, red_minor)

    def _minor(self, xp):
        return xp.reshape(self.X._pidx, (-1,))

    def _batch_base(self, xp, scale, plus):
        """``batch * scale (+ plus)`` for every entry (entries of batch b are ``[b * nse, (b + 1) * nse)``)."""
        X = self.X
        nbatch, nse = math.prod(X.batch_shape), X.nse
        base = xp.reshape(xp.broadcast_to(xp.reshape(xp.arange(nbatch, dtype=xp.int64) * scale, (nbatch, 1)), (nbatch, nse)), (nbatch * nse,))
        return base if plus is None else base + plus

    def _global_offsets(self, xp):
        """Pointers over all ``nbatch * nmajor`` major rows (entries of batch b offset by ``b * nse``)."""
        X = self.X
        if X.batch_ndim == 0:
            return X._cidx
        from .._layout.compress import _parts_of

        return _parts_of(X).offsets

    def _linear_keys(self, xp, red_batch, red_major, red_minor):
        """Keys over (kept batch dims, major if kept, minor if kept) for batch dims reduced."""
        X = self.X
        b = X.batch_ndim
        batch_shape = X.batch_shape
        nbatch = math.prod(batch_shape)
        nmajor, nminor = X._grid
        # each batch's linear position among the kept batch dims (a table of nbatch values)
        bid = xp.arange(nbatch, dtype=xp.int64)
        kept_lin = xp.zeros((nbatch,), dtype=xp.int64)
        rest, stride = bid, 1
        for d in range(b - 1, -1, -1):
            q = rest // batch_shape[d]
            if d not in red_batch:
                kept_lin = kept_lin + (rest - q * batch_shape[d]) * stride
                stride *= batch_shape[d]
            rest = q
        keys = xp.reshape(xp.broadcast_to(xp.reshape(kept_lin, (nbatch, 1)), (nbatch, X.nse)), (nbatch * X.nse,))
        if not red_major:
            g = _dispatch.call("expand_offsets", "csr", xp, self._global_offsets(xp), xp.int64, keys.shape[0], work=keys.shape[0])
            major = g - xp.reshape(xp.broadcast_to(xp.reshape(bid * nmajor, (nbatch, 1)), (nbatch, X.nse)), (nbatch * X.nse,))
            keys = keys * nmajor + major
        if not red_minor:
            keys = keys * nminor + xp.astype(self._minor(xp), xp.int64)
        return keys

    def entry_keys(self, xp):
        """Every entry's group key (the run of each entry when the groups are runs)."""
        if self.keys is None:
            n = self.X.nse * math.prod(self.X.batch_shape)  # the entry count: no read of offsets[-1]
            self.keys = _dispatch.call("expand_offsets", "csr", xp, self.offsets, xp.int64, n, work=self.offsets.shape[0])
        return self.keys

    def reduce(self, xp, rows, op):
        """(present keys or None, per-group (G, m) result, counts (G,)) for ``rows`` (N, m)."""
        if self.identity:
            return None, rows, xp.ones((rows.shape[0],), dtype=xp.int64)
        if self.all_groups:
            if self.offsets is not None:
                return reduce_all_groups(xp, rows, op, offsets=self.offsets)
            return reduce_all_groups(xp, rows, op, keys=self.keys, nkeys=self.nkeys, sorted_keys=self.sorted)
        if self.offsets is not None:
            return _dispatch.call("group_reduce", "csr", xp, self.offsets, rows, op, work=rows.shape[0])
        if self.by_plain:
            return self._reduce_by_plain(xp, rows, op)
        return _dispatch.call("group_reduce", "coo", xp, self.keys, rows, self.nkeys, op, work=rows.shape[0])

    def _reduce_by_plain(self, xp, rows, op):
        """Groups keyed by the plain indices (the major axis reduced). A sum is one scatter of the
        rows with a column of ones beside them (the counts come with the sums, at the cost of one
        wider accumulator row); other kinds fold the rows into per-thread accumulators over the
        keys (``group_reduce``'s dense path) when there are at most a few keys per row, else move
        the rows into the transposed pattern (the counting-sort transpose, per batch) and reduce
        its runs, each left to right in the original order."""
        n, m = rows.shape
        if op == "sum" and not xp.isdtype(rows.dtype, "bool"):
            both = xp.concat([rows, xp.ones((n, 1), dtype=rows.dtype)], axis=1)
            dense = _dispatch.call("scatter_sum", "coo", xp, self.keys, both, self.nkeys, False, work=n)
            ones = dense[:, m]
            counts = xp.astype(xp.real(ones) if xp.isdtype(ones.dtype, "complex floating") else ones, xp.int64)
            present = xp.nonzero(counts)[0]
            return present, xp.take(dense[:, :m], present, axis=0), xp.take(counts, present)
        if self.nkeys <= 4 * n + 65536 // max(m, 1):  # few keys: per-thread accumulators over the keys
            return _dispatch.call("group_reduce", "coo", xp, self.keys, rows, self.nkeys, op, work=n)
        X = self.X
        nmajor, nminor = X._grid
        nbatch = math.prod(X.batch_shape)
        t_off, _, t_rows = _dispatch.call(
            "transpose_compressed", "csr", xp, self._global_offsets(xp), self._minor(xp), rows, nbatch, nmajor, nminor,
            xp.int64, work=n,
        )  # fmt: skip
        return _dispatch.call("group_reduce", "csr", xp, t_off, t_rows, op, work=n)
