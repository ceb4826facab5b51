"""Statistics of the lines of a sparse array that the grouped reductions cannot give: the variance
that skips nan (NumPy's ``nanvar``), and medians and quantiles (with or without skipping nan).
Exact with any fill, from the stored values and the number of fill elements of each line, never
the dense form.

A *line* is the set of elements that share their position in the kept dims (every dim not in
``axis``). With the sparse dims split into kept ``K`` and reduced ``R`` (``n = prod(shape[R])``
positions per line) and the dense part into kept columns and reduced elements, a line whose
sparse part holds ``cnt`` specified positions is the multiset

    {the reduced dense elements of its cnt stored dense parts} + (n - cnt) x {the fill's reduced elements}

so what a statistic needs is the stored values and the count ``n - cnt``:

- :func:`nanvar`: NumPy's two passes. The mean of the non-nan elements (the stored sum plus
  ``(n - cnt)`` times the fill, over the count of both), then the squared deviations of the stored
  values from their line's mean plus ``(n - cnt)`` times the fill's squared deviation. O(nse).
- :func:`quantiles`: the line's elements as *weighted items*: each stored value weighs 1, each
  fill value ``n - cnt`` (0 for a nan skipped). Sorted by (line, value), nan last; the element of
  rank ``r`` of a line is then found by a binary search of ``r`` in the running weights, so a
  line of a billion fill elements costs what a line of one does. NumPy's 13 methods (its
  ``_QuantileMethods``: virtual index, neighbours, ``gamma`` and its ``_lerp``), and the median as
  NumPy's: the mean of the two middle elements. O(items log items), items = stored values + one
  fill item per line and fill element.

Lines with no specified element hold the fill only: one result serves them all and becomes the
result's fill. The result has the reductions' form (``reductions.py``): dense (an array of the
components' namespace) when every sparse dim is reduced, else a COO over the kept sparse dims
(the lines that hold entries specified), in the input's layout where the shape allows.

Both also say whether a line had nothing to average (no non-nan element, or fewer than the
degrees of freedom): NumPy warns then, which is the caller's business (``_numpy/nan_functions.py``).

>>> import numpy as np, sparray
>>> A = sparray.asarray(np.array([[1.0, np.nan, 0.0, 4.0], [0.0, 0.0, 0.0, 2.0]]))
>>> var, bad = nanvar(A, axis=1)
>>> np.allclose(var.to_dense(), np.nanvar(A.to_dense(), axis=1)), bad
(True, False)
>>> med, _ = quantiles(A, np.asarray(0.5), axis=1, skip_nan=True, median=True)
>>> med.to_dense().tolist()
[1.0, 0.0]
"""

from __future__ import annotations

import math

from .._core.dtypes import resolve_dtype
from .._core.fill import same_value
from .._core.keys import index_dtype_for, linear_keys, unravel
from .._core.validation import normalize_axes
from .._engine import dispatch as _dispatch
from .._layout.conversion import match_layout
from .lines import coo_of
from .order import check_real, stable_argsort

__all__ = ["QUANTILE_METHODS", "nanvar", "quantiles"]

#: NumPy's quantile methods (``numpy.quantile(method=...)``), all answered here
QUANTILE_METHODS = (
    "inverted_cdf", "averaged_inverted_cdf", "closest_observation", "interpolated_inverted_cdf", "hazen",
    "weibull", "linear", "median_unbiased", "normal_unbiased", "lower", "higher", "midpoint", "nearest",
)  # fmt: skip

# the continuous methods' (alpha, beta) of Hyndman & Fan: virtual index n*q + alpha + q*(1 - alpha - beta) - 1
_ALPHA_BETA = {
    "interpolated_inverted_cdf": (0.0, 1.0), "hazen": (0.5, 0.5), "weibull": (0.0, 0.0),
    "median_unbiased": (1 / 3.0, 1 / 3.0), "normal_unbiased": (3 / 8.0, 3 / 8.0),
}  # fmt: skip
_INDEX_METHODS = ("inverted_cdf", "closest_observation", "lower", "higher", "nearest")  # no interpolation


class _Lines:
    """The lines of SparseArray ``x`` over the reduced dims ``axes`` (sorted, unique):

    - ``rows`` (nse, mk, mr): each entry's dense part, kept columns first, then reduced elements;
    - ``fill`` (mk, mr): the fill the same way;
    - ``keys`` (L,) int64 increasing: the line key (row-major over ``kept_shape``) of each line
      holding entries; ``offsets`` (L + 1,): line ``i`` owns entries ``offsets[i]:offsets[i + 1]``;
      ``counts`` (L,) its number of entries, ``line`` (nse,) each entry's line number;
    - ``n``: positions per line along the reduced sparse dims (so ``n - counts`` hold the fill).
    """

    def __init__(self, x, axes):
        xp = x._xp
        A = coo_of(x)
        s, dn = A.sparse_ndim, A.dense_ndim
        self.xp, self.A, self.axes = xp, A, tuple(axes)
        self.red_sparse = [d for d in axes if d < s]
        self.kept_sparse = [d for d in range(s) if d not in axes]
        self.red_dense = [d - s for d in axes if d >= s]
        kept_dense = [d for d in range(dn) if d + s not in axes]
        self.kept_shape = tuple(A.shape[d] for d in self.kept_sparse)
        self.nlines = math.prod(self.kept_shape)
        self.n = math.prod(A.shape[d] for d in self.red_sparse)
        dense_shape = A.dense_shape
        self.kd_shape = tuple(dense_shape[d] for d in kept_dense)
        mk = math.prod(self.kd_shape)
        mr = math.prod(dense_shape[d] for d in self.red_dense)
        perm = kept_dense + self.red_dense
        nse = A.nse
        values, fill = A._values, xp.broadcast_to(A._fill, dense_shape)
        if perm != list(range(dn)):
            values = xp.permute_dims(values, (0, *(1 + d for d in perm)))
            fill = xp.permute_dims(fill, tuple(perm))
        rows = xp.reshape(values, (nse, mk, mr))
        self.fill = xp.reshape(fill, (mk, mr))
        if self.kept_sparse:
            idx = A._indices
            if len(self.kept_sparse) < s:
                idx = xp.take(idx, xp.asarray(self.kept_sparse, dtype=xp.int64), axis=0)
            keys = linear_keys(xp, idx, self.kept_shape)
            if keys is None:
                raise NotImplementedError(f"sparray: lines of a sparse shape {A.sparse_shape} with more than 2**63 positions")
            if self.kept_sparse != list(range(len(self.kept_sparse))) and nse > 1:
                # the coalesced order is row-major: sorted by key already when the kept dims lead
                order = xp.argsort(keys, stable=True)
                keys, rows = xp.take(keys, order), xp.take(rows, order, axis=0)
        else:
            keys = xp.zeros((nse,), dtype=xp.int64)
        self.rows = rows
        if nse:
            starts = xp.concat([xp.ones((1,), dtype=xp.bool), keys[1:] != keys[:-1]])
            first = xp.astype(xp.nonzero(starts)[0], xp.int64)
        else:
            first = xp.zeros((0,), dtype=xp.int64)
        self.offsets = xp.concat([first, xp.asarray([nse], dtype=xp.int64)])
        self.keys = xp.take(keys, first) if nse else first
        self.counts = self.offsets[1:] - self.offsets[:-1]
        self.L = first.shape[0]
        self.line = xp.repeat(xp.arange(self.L, dtype=xp.int64), self.counts) if self.L else first

    @property
    def empty_lines(self) -> bool:
        """Whether some line holds no entry (the fill only)."""
        return self.L < self.nlines

    def group_sum(self, values):
        """Per line sums (L, m) of the entries' rows ``values`` (nse, m)."""
        xp = self.xp
        if values.shape[0] == 0:
            return xp.zeros((0, values.shape[1]), dtype=values.dtype)
        _, seg, _ = _dispatch.call("group_reduce", "csr", xp, self.offsets, values, "sum", work=values.shape[0])
        return seg

    def group_count(self, counts):
        """Per line sums (L, m) of the int64 ``counts`` (nse, m): running sums, exact (no rounding)."""
        xp = self.xp
        run = xp.concat([xp.zeros((1, counts.shape[1]), dtype=xp.int64), xp.cumulative_sum(counts, axis=0)])
        return xp.take(run, self.offsets[1:], axis=0) - xp.take(run, self.offsets[:-1], axis=0)

    def _dense_out(self, keepdims):
        dense_shape = self.A.dense_shape
        if keepdims:
            return tuple(1 if d in self.red_dense else n for d, n in enumerate(dense_shape))
        return self.kd_shape

    def _kept_indices(self, keepdims, reps=1):
        """The result's sparse indices for the lines (each repeated ``reps`` times, line-major
        inside each repetition) and its sparse shape."""
        xp, A = self.xp, self.A
        itype = index_dtype_for(xp, A.sparse_shape, self.L * reps, A._indices)
        kept = unravel(xp, self.keys, self.kept_shape, itype)
        if reps > 1:
            kept = xp.reshape(xp.broadcast_to(kept[:, None, :], (kept.shape[0], reps, self.L)), (kept.shape[0], reps * self.L))
        if not keepdims:
            return kept, self.kept_shape
        rows, it = [], 0
        for d in range(A.sparse_ndim):
            if d in self.red_sparse:
                rows.append(xp.zeros((1, kept.shape[1]), dtype=itype))
            else:
                rows.append(kept[it : it + 1, :])
                it += 1
        shape = tuple(1 if d in self.red_sparse else A.shape[d] for d in range(A.sparse_ndim))
        return xp.concat(rows, axis=0), shape

    def output(self, values, empty, keepdims, like):
        """The result from each line's ``values`` (L, mk) and the empty lines' ``empty`` (mk,)."""
        from .._array.coo import COO

        xp, A = self.xp, self.A
        dense_out = self._dense_out(keepdims)
        values = xp.reshape(values, (self.L, *dense_out))
        empty = xp.reshape(empty, dense_out)
        if not self.kept_sparse:
            dense = values[0, ...] if self.L else empty
            if keepdims and self.red_sparse:
                # every sparse dim is now size 1: no specified element, the value as the fill (as sum's)
                s = A.sparse_ndim
                no_index = xp.zeros((s, 0), dtype=A._indices.dtype)
                return COO._from_parts(xp, no_index, xp.zeros((0, *dense_out), dtype=dense.dtype), (1,) * s + dense_out,
                                       dense, coalesced=True)
            return dense
        indices, sparse_out = self._kept_indices(keepdims)
        out = COO._from_parts(xp, indices, values, sparse_out + dense_out, empty, coalesced=True)
        return match_layout(out, like)

    def output_q(self, values, empty, q_shape, keepdims, like):
        """The result with the quantiles' dims first: ``values`` (L, mk, nq), ``empty`` (mk, nq)."""
        from .._array.coo import COO

        xp, A = self.xp, self.A
        nq = values.shape[2]
        dense_out = self._dense_out(keepdims)
        kept_out = (tuple(1 if d in self.axes else n for d, n in enumerate(A.shape)) if keepdims else
                    tuple(n for d, n in enumerate(A.shape) if d not in self.axes))
        if not self.kept_sparse:
            dense = values[0, ...] if self.L else empty  # (mk, nq)
            return xp.reshape(xp.permute_dims(dense, (1, 0)), (*q_shape, *kept_out))
        if bool(xp.all(same_value(xp, empty, empty[:, :1]))):
            # the empty lines' answer is the same for every q: the q dims are sparse dims of one fill
            indices, sparse_out = self._kept_indices(keepdims, reps=nq)
            itype = indices.dtype
            qi = unravel(xp, xp.arange(nq, dtype=xp.int64), q_shape, itype)
            qi = xp.reshape(xp.broadcast_to(qi[:, :, None], (qi.shape[0], nq, self.L)), (qi.shape[0], nq * self.L))
            vals = xp.reshape(xp.permute_dims(values, (2, 0, 1)), (nq * self.L, *dense_out))
            out = COO._from_parts(xp, xp.concat([qi, indices], axis=0), vals, (*q_shape, *sparse_out, *dense_out),
                                  xp.reshape(empty[:, 0], dense_out), coalesced=True)
            return match_layout(out, like)
        # the empty lines' answer changes with q (a fill varying along reduced dense dims, or an
        # infinite fill): no one fill for the q dims; the result comes dense (its own size, as NumPy's)
        indices, sparse_out = self._kept_indices(keepdims)
        vals = xp.reshape(values, (self.L, *dense_out, nq))
        hybrid = COO._from_parts(xp, indices, vals, (*sparse_out, *dense_out, nq), xp.reshape(empty, (*dense_out, nq)),
                                 coalesced=True)
        dense = hybrid.to_dense()
        nd = dense.ndim
        return xp.reshape(xp.permute_dims(dense, (nd - 1, *range(nd - 1))), (*q_shape, *kept_out))


def _axes(x, axis, who):
    return tuple(sorted(normalize_axes(axis, x.ndim, who)))


def _square(xp, d):
    return xp.real(d * xp.conj(d)) if xp.isdtype(d.dtype, "complex floating") else d * d


def nanvar(x, /, *, axis=None, correction=0.0, keepdims=False, dtype=None):
    """``(var, bad)``: NumPy's ``nanvar`` of the float (or complex) SparseArray ``x`` over ``axis``
    (the variance of each line's non-nan elements, ``correction`` NumPy's ``ddof``), computed in
    ``dtype`` (default ``x.dtype``; the result is real), and whether some line has no more
    non-nan elements than ``correction`` (its variance is nan; NumPy warns).

    >>> import numpy as np, sparray
    >>> A = sparray.asarray(np.array([[2.0, np.nan, 4.0], [np.nan, np.nan, np.nan]]), fill_value=np.nan)
    >>> var, bad = nanvar(A, axis=1)
    >>> var.to_dense().tolist(), bad
    ([1.0, nan], True)
    """
    xp = x._xp
    G = _Lines(x, _axes(x, axis, "numpy.nanvar"))
    cdt = x.dtype if dtype is None else resolve_dtype(xp, dtype)
    rows = xp.astype(G.rows, cdt)
    f = xp.astype(G.fill, cdt)
    rdt = xp.real(f[:0, :0]).dtype if xp.isdtype(cdt, "complex floating") else cdt
    ok, fok = ~xp.isnan(rows), ~xp.isnan(f)
    zero = xp.zeros((), dtype=cdt)
    seg_sum = G.group_sum(xp.sum(xp.where(ok, rows, zero), axis=-1))
    seg_cnt = G.group_count(xp.sum(xp.astype(ok, xp.int64), axis=-1))
    fsum = xp.sum(xp.where(fok, f, zero), axis=-1)  # (mk,)
    fcnt = xp.sum(xp.astype(fok, xp.int64), axis=-1)

    def first_pass(seg_sum, seg_cnt, nf):  # nf (lines, 1): fill positions per line
        total = seg_cnt + nf * fcnt
        some = nf > 0
        s = xp.where(some, seg_sum + xp.astype(nf, cdt) * fsum, seg_sum)  # a full line takes no fill term
        return total, s / xp.astype(xp.where(total > 0, total, xp.ones_like(total)), cdt)

    def second_pass(seg_m2, total, mean, nf):
        fdev = xp.where(fok, f - mean[:, :, None], zero)
        fsq = xp.sum(_square(xp, fdev), axis=-1)
        m2 = xp.where(nf > 0, seg_m2 + xp.astype(nf, rdt) * fsq, seg_m2)
        dof = xp.astype(total, rdt) - correction
        var = m2 / xp.where(dof > 0, dof, xp.ones_like(dof))
        return xp.where(dof > 0, var, xp.full_like(var, float("nan"))), dof <= 0

    nf = xp.reshape(G.n - G.counts, (G.L, 1))
    total, mean = first_pass(seg_sum, seg_cnt, nf)
    dev = xp.where(ok, rows - xp.take(mean, G.line, axis=0)[:, :, None], zero)
    seg_m2 = G.group_sum(xp.sum(_square(xp, dev), axis=-1))
    var, bad = second_pass(seg_m2, total, mean, nf)
    mk = f.shape[0]
    nf_e = xp.full((1, 1), G.n, dtype=xp.int64)
    total_e, mean_e = first_pass(xp.zeros((1, mk), dtype=cdt), xp.zeros((1, mk), dtype=xp.int64), nf_e)
    var_e, bad_e = second_pass(xp.zeros((1, mk), dtype=rdt), total_e, mean_e, nf_e)
    any_bad = bool(xp.any(bad)) or (G.empty_lines and bool(xp.any(bad_e)))
    return G.output(var, var_e[0, :], keepdims, x), any_bad


def quantiles(x, q, /, *, axis=None, keepdims=False, method="linear", skip_nan=False, median=False, weak_q=False):
    """``(result, empty)``: NumPy's ``quantile`` (``nanquantile`` with ``skip_nan``; ``median`` /
    ``nanmedian`` with ``median``) of the real SparseArray ``x`` over ``axis``, and whether some
    line had no element to take (all nan with ``skip_nan``: its answer is nan; NumPy warns).

    ``q``: an array of ``x``'s namespace (or NumPy's), 0-d, 1-d or 2-d, already checked to lie in
    [0, 1] (ignored for ``median``); its dims lead the result, as NumPy's. ``weak_q``: ``q`` came
    as a Python number (NumPy then keeps a float ``x``'s dtype). A line that holds a nan gives nan
    unless ``skip_nan``. The reduced dims must not be empty (the caller answers that case).

    >>> import numpy as np, sparray
    >>> A = sparray.asarray(np.array([[0.0, 3.0, 0.0, 1.0], [0.0, 0.0, 0.0, 0.0]]))
    >>> r, _ = quantiles(A, np.asarray([0.25, 0.75]), axis=1)
    >>> r.to_dense().tolist()
    [[0.0, 0.0], [1.5, 0.0]]
    """
    xp = x._xp
    who = "numpy.median" if median else "numpy.quantile"
    check_real(xp, x.dtype, who)
    if method not in QUANTILE_METHODS:
        raise ValueError(f"{who}: {method!r} is not a valid method; use one of {QUANTILE_METHODS}")
    boolean = x.dtype == xp.bool
    if boolean and not median:
        q = xp.asarray(q)
        if method not in _INDEX_METHODS and not (method == "linear" and not xp.isdtype(q.dtype, "real floating")):
            raise TypeError(f"{who}: method {method!r} interpolates by subtracting booleans, which NumPy refuses; take "
                            "x.astype(int) or a method that takes an element (lower, higher, nearest, inverted_cdf, "
                            "closest_observation)")
    G = _Lines(x, _axes(x, axis, who))
    nse, mk, mr = G.rows.shape
    L, n = G.L, G.n
    # the items: stored values (weight 1), then each line's fill elements (weight n - cnt), and
    # one more line for the lines that hold no entry (weight n)
    values = xp.astype(G.rows, xp.uint8) if boolean else G.rows  # (booleans are ordered as 0 and 1)
    fill = xp.astype(G.fill, xp.uint8) if boolean else G.fill
    col = xp.reshape(xp.arange(mk, dtype=xp.int64), (1, mk, 1))
    stored_slice = xp.reshape(G.line, (nse, 1, 1)) * mk + col
    nf = xp.concat([G.n - G.counts, xp.full((1,), n, dtype=xp.int64)])
    fill_slice = xp.reshape(xp.arange(L + 1, dtype=xp.int64), (L + 1, 1, 1)) * mk + col
    t_stored = nse * mk * mr
    vals = xp.concat([xp.reshape(values, (t_stored,)), xp.reshape(xp.broadcast_to(fill[None, :, :], (L + 1, mk, mr)), (-1,))])
    slice_id = xp.concat([
        xp.reshape(xp.broadcast_to(stored_slice, (nse, mk, mr)), (t_stored,)),
        xp.reshape(xp.broadcast_to(fill_slice, (L + 1, mk, mr)), (-1,)),
    ])  # fmt: skip
    weight = xp.concat([
        xp.ones((t_stored,), dtype=xp.int64),
        xp.reshape(xp.broadcast_to(xp.reshape(nf, (L + 1, 1, 1)), (L + 1, mk, mr)), (-1,)),
    ])  # fmt: skip
    floating = xp.isdtype(vals.dtype, "real floating")
    nan = xp.isnan(vals) if floating else None
    if skip_nan and floating:
        weight = xp.where(nan, xp.zeros_like(weight), weight)
    # sort by (slice, value), nan last: two stable sorts
    by_value = stable_argsort(xp, vals)
    order = xp.take(by_value, stable_argsort(xp, xp.take(slice_id, by_value)))
    vals, slice_id, weight = xp.take(vals, order), xp.take(slice_id, order), xp.take(weight, order)
    nslices = (L + 1) * mk
    every = xp.arange(nslices, dtype=xp.int64)
    start = xp.searchsorted(slice_id, every, side="left")
    end = xp.searchsorted(slice_id, every, side="right")
    zero = xp.zeros((1,), dtype=xp.int64)
    run = xp.concat([zero, xp.cumulative_sum(weight)])
    base = xp.take(run, start)
    count = xp.take(run, end) - base  # (S,) the elements each slice takes part with
    has_nan = None
    if floating and not skip_nan:
        nan_run = xp.concat([zero, xp.cumulative_sum(xp.astype(xp.take(nan, order) & (weight > 0), xp.int64))])
        has_nan = (xp.take(nan_run, end) - xp.take(nan_run, start)) > 0
    last_item = max(vals.shape[0] - 1, 0)
    cum = run[1:]

    def at(rank):
        """The element of rank ``rank`` (S, k) of each slice (ranks clipped to the slice)."""
        rank = xp.clip(rank, 0, xp.reshape(xp.maximum(count - 1, 0), (nslices, 1)))
        target = xp.reshape(xp.reshape(base, (nslices, 1)) + rank, (-1,))
        item = xp.minimum(xp.searchsorted(cum, target, side="right"), last_item)
        return xp.reshape(xp.take(vals, item), rank.shape)

    counts = xp.reshape(count, (nslices, 1))
    if median:
        q_shape = ()
        result = _median(xp, at, counts, vals.dtype)
    else:
        q = xp.asarray(q)
        q_shape = tuple(q.shape)
        result = _quantile(xp, at, counts, xp.reshape(q, (1, -1)), method, vals.dtype, weak_q)
        if boolean:  # an element taken, in the array's dtype
            result = xp.astype(result, xp.bool)
    none = counts == 0
    if has_nan is not None:
        none_or_nan = none | xp.reshape(has_nan, (nslices, 1))
    else:
        none_or_nan = none
    if xp.isdtype(result.dtype, "real floating"):
        result = xp.where(none_or_nan, xp.full_like(result, float("nan")), result)
    nq = result.shape[1]
    result = xp.reshape(result, (L + 1, mk, nq))
    any_empty = bool(xp.any(none[: L * mk])) or (G.empty_lines and bool(xp.any(none[L * mk :])))
    if not q_shape:
        return G.output(result[:L, :, 0], result[L, :, 0], keepdims, x), any_empty
    return G.output_q(result[:L, ...], result[L, ...], q_shape, keepdims, x), any_empty


def _median(xp, at, counts, dtype):
    """NumPy's median: the middle element, or the mean of the two middle ones (in the dtype of
    NumPy's ``mean``: a float array's own, else float64)."""
    lo, hi = at((counts - 1) // 2), at(counts // 2)
    out = dtype if xp.isdtype(dtype, "real floating") else xp.float64
    a, b = xp.astype(lo, out), xp.astype(hi, out)
    return xp.where((counts % 2) == 1, a, (a + b) / 2)


def _quantile(xp, at, counts, q, method, dtype, weak_q):
    """NumPy's ``_quantile`` without weights, per slice: ``counts`` (S, 1) elements, ``q`` (1, nq)."""
    integral_q = not xp.isdtype(q.dtype, "real floating")
    n = counts if integral_q else xp.astype(counts, q.dtype)  # NumPy: n (a Python int) times q
    if method == "linear" and integral_q:  # q is 0 or 1: indices, no interpolation
        return at((counts - 1) * xp.astype(q, xp.int64))
    if integral_q:
        q = xp.astype(q, xp.float64)
        n = xp.astype(counts, xp.float64)
    if method in _INDEX_METHODS:
        return at(_index(xp, method, n, q))
    if method == "linear":
        virtual = (n - 1) * q
    elif method in _ALPHA_BETA:
        alpha, beta = _ALPHA_BETA[method]
        virtual = n * q + (alpha + q * (1 - alpha - beta)) - 1
    elif method == "averaged_inverted_cdf":
        virtual = n * q - 1
    else:  # midpoint
        virtual = 0.5 * (xp.floor((n - 1) * q) + xp.ceil((n - 1) * q))
    prev = xp.floor(virtual)
    gamma = virtual - prev
    if method == "averaged_inverted_cdf":
        gamma = xp.where(gamma == 0, xp.full_like(gamma, 0.5), xp.ones_like(gamma))
    elif method == "midpoint":
        gamma = xp.where(virtual % 1 == 0, xp.zeros_like(gamma), xp.full_like(gamma, 0.5))
    above = virtual >= n - 1
    below = virtual < 0
    prev_i = xp.astype(prev, xp.int64)
    last = xp.broadcast_to(counts - 1, prev_i.shape)
    prev_i = xp.where(above, last, xp.where(below, xp.zeros_like(prev_i), prev_i))
    next_i = xp.where(above, last, xp.where(below, xp.zeros_like(prev_i), prev_i + 1))
    a, b = at(prev_i), at(next_i)
    diff = b - a  # in the array's dtype, as NumPy's _lerp
    if weak_q and xp.isdtype(dtype, "real floating"):
        out = dtype
    else:
        out = xp.result_type(dtype, gamma.dtype)
    a, b, diff, t = (xp.astype(v, out) for v in (a, b, diff, gamma))
    lerp = a + diff * t
    return xp.where(t >= 0.5, b - diff * (1 - t), lerp)


def _index(xp, method, n, q):
    """The rank that the methods without interpolation take (NumPy's, clipped to the line by ``at``)."""
    if method == "lower":
        v = xp.floor((n - 1) * q)
    elif method == "higher":
        v = xp.ceil((n - 1) * q)
    elif method == "nearest":
        v = xp.round((n - 1) * q)  # half to even, as NumPy's around
    else:
        index = n * q - 1 if method == "inverted_cdf" else n * q - 1 - 0.5
        prev = xp.floor(index)
        gamma = index - prev
        take_prev = gamma == 0 if method == "inverted_cdf" else (gamma == 0) & (xp.floor(index) % 2 == 1)
        v = xp.where(take_prev, prev, prev + 1)
    return xp.astype(v, xp.int64)
