"""The host setup of smoothed-aggregation multigrid: the hierarchy of operators, NumPy only.

One level's step (Vanek, Mandel and Brezina 1996; the defaults are pyamg's
``smoothed_aggregation_solver``'s):

1. strength of connection ``C`` of ``A`` ("symmetric", ``theta``; a block matrix is amalgamated
   first: one node per ``bs x bs`` block, its Frobenius norm);
2. "standard" aggregation of ``C``'s nodes;
3. on the first level, the candidates ``B`` (near null space, default ones) improved by four
   symmetric Gauss-Seidel sweeps on ``A x = 0`` (pyamg's ``improve_candidates``);
4. the tentative prolongator ``T`` and the coarse candidates by a QR per aggregate;
5. the smoothed prolongator ``P = T - (omega / rho) D^-1 A T``, ``rho`` the spectral radius of
   ``D^-1 A`` (Lanczos or Arnoldi, 15 steps, as pyamg's ``approximate_spectral_radius``);
6. the restriction ``R = P^H`` ("hermitian"), ``P^T`` ("symmetric"), or for "nonsymmetric" the
   conjugate transpose of the prolongator smoothed with ``A^H`` from candidates ``BH``;
7. the Galerkin coarse operator ``R @ (A @ P)``: two of sparray's SpGEMMs (numba, 2 threads),
   exact zeros (couplings that cancel) dropped.

The setup stops at ``max_levels`` levels, at ``max_coarse`` nodes or fewer, or when aggregation
no longer coarsens. Everything here is NumPy: strength and aggregation are sequential greedy
passes (``sparray.kernels.cpu.amg``), so a device matrix is set up on the host (one copy of its
CSR down) and the hierarchy goes up once (:mod:`.solver`).

Invariants of a :class:`HostLevel`: ``A`` a canonical CSR (int64 indices, sorted, no duplicates)
of the compute dtype; ``dinv[i] = 1 / A[i, i]`` (0 where the diagonal is 0); ``P`` ``(n, nc)``
and ``R`` ``(nc, n)`` CSR (None on the coarsest level); ``bs`` unknowns per node.
"""

from __future__ import annotations

import numpy as np

from ..._array.compressed import CSR

__all__ = ["HostLevel", "build_hierarchy", "csr_of", "spectral_radius"]


def csr_of(indptr, indices, values, shape):
    """A sparray CSR with NumPy components sparray may trust (canonical, built here)."""
    return CSR._from_parts(np, indptr, indices, values, tuple(shape), np.zeros((), values.dtype), checked=True)


def canonical_arrays(ptr, idx, val, ncols, who):
    """``(indptr, indices, values)`` canonical (sorted rows, no duplicates): as they are when they
    already are (int32 or int64 indices kept: no copy), else sorted and summed with int64 indices.
    A pointer or column out of range is a ValueError (one scan)."""
    from ...kernels.cpu import ilu as _ilu

    if ptr.dtype in _INDEX and idx.dtype in _INDEX:
        ptr, idx = np.ascontiguousarray(ptr), np.ascontiguousarray(idx)
        status, _ = _ilu._csr_status(ptr, idx, ncols)
        if status == 0:
            return ptr, idx, np.ascontiguousarray(val)
    return _ilu.canonical_csr(ptr, idx, val, ncols, who)


_INDEX = (np.dtype(np.int32), np.dtype(np.int64))


def _canonical(M, who):
    """The canonical NumPy ``(indptr, indices, values)`` of a sparray CSR built by sparray's products."""
    return canonical_arrays(np.asarray(M.crow_indices), np.asarray(M.col_indices), np.asarray(M.values), M.shape[1], who)


class HostLevel:
    """One level of the hierarchy on the host (see the module docstring for the invariants)."""

    def __init__(self, indptr, indices, values, n, bs):
        self.indptr, self.indices, self.values = indptr, indices, values
        self.n, self.bs = n, bs
        self.A = csr_of(indptr, indices, values, (n, n))
        self.dinv = _inverse_diagonal(indptr, indices, values, n)
        self.P = self.R = None
        self.rho = None  # spectral radius of D^-1 A, when estimated

    @property
    def nse(self):
        return int(self.indices.shape[0])

    def rho_estimate(self, hermitian):
        if self.rho is None:
            self.rho = spectral_radius(self.A, self.dinv, hermitian)
        return self.rho


def _inverse_diagonal(indptr, indices, values, n):
    from ...kernels.cpu import amg as _k

    d = _k.diagonal(indptr, indices, values)
    out = np.zeros(n, values.dtype)
    nz = d != 0
    out[nz] = 1 / d[nz]
    return out


# --- vector reductions -------------------------------------------------------------------------------
def vdot(a, b):
    """``sum(conj(a) * b)`` of NumPy vectors, long real ones by sparray's numba kernel: OpenBLAS's
    ``ddot`` runs on threads of its own that keep spinning after the call and take the cores the
    next product needs (``sparray.kernels.cpu.vector``)."""
    from ...kernels.cpu import vector as _vector

    if a.shape[0] >= _vector.MIN_N and a.dtype == b.dtype and a.dtype.kind == "f":
        return _vector.dot(a, b)
    return np.vdot(a, b)


def norm2(a):
    """``||a||`` of a NumPy vector as a float, through :func:`vdot`."""
    return float(np.sqrt(abs(vdot(a, a))))


# --- spectral radius --------------------------------------------------------------------------------
def spectral_radius(A, dinv, hermitian, steps=15, seed=0):
    """An estimate of the spectral radius of ``D^-1 A`` (``dinv`` the inverse diagonal): the
    largest Ritz value of ``steps`` Lanczos steps on ``D^-1/2 A D^-1/2`` (``hermitian``, the
    diagonal positive) or of Arnoldi on ``D^-1 A``. The start vector is random (seeded)."""
    n = A.shape[0]
    if n == 0:
        return 0.0
    rng = np.random.default_rng(seed)
    dtype = A.values.dtype
    v = rng.random(n).astype(dtype)
    steps = min(steps, n)
    if hermitian and np.all(dinv.real > 0):
        s = np.sqrt(dinv.real).astype(dtype)
        op = lambda u: s * (A @ (s * u))
        return _lanczos_max(op, v, steps)
    op = lambda u: dinv * (A @ u)
    return _arnoldi_max(op, v, steps)


def _lanczos_max(op, v, steps):
    v = v / norm2(v)
    alphas, betas = [], []
    v_prev = np.zeros_like(v)
    beta = 0.0
    for _ in range(steps):
        w = op(v) - beta * v_prev
        alpha = float(vdot(v, w).real)
        w = w - alpha * v
        alphas.append(alpha)
        beta = norm2(w)
        if beta <= 1e-12 * max(abs(alpha), 1.0):
            break
        betas.append(beta)
        v_prev, v = v, w / beta
    k = len(alphas)
    H = np.diag(alphas) + np.diag(betas[: k - 1], 1) + np.diag(betas[: k - 1], -1)
    return float(np.max(np.abs(np.linalg.eigvalsh(H))))


def _arnoldi_max(op, v, steps):
    n = v.shape[0]
    V = np.zeros((steps + 1, n), v.dtype)
    H = np.zeros((steps + 1, steps), np.result_type(v.dtype, np.float64))
    V[0] = v / norm2(v)
    k = steps
    for j in range(steps):
        w = op(V[j])
        for i in range(j + 1):
            H[i, j] = vdot(V[i], w)
            w = w - H[i, j] * V[i]
        H[j + 1, j] = norm2(w)
        if abs(H[j + 1, j]) <= 1e-12:
            k = j + 1
            break
        V[j + 1] = w / H[j + 1, j]
    return float(np.max(np.abs(np.linalg.eigvals(H[:k, :k]))))


# --- one level's pieces ------------------------------------------------------------------------------
def strength(level, theta):
    """``(sp, sj)``: the strong connections of ``level``'s nodes (blocks of ``bs`` amalgamated)."""
    from ...kernels.cpu import amg as _k

    indptr, indices, values, bs = level.indptr, level.indices, level.values, level.bs
    if bs == 1:
        return _k.symmetric_strength(indptr, indices, values, theta)
    nodes = level.n // bs
    rows = np.repeat(np.arange(level.n, dtype=np.int64), np.diff(indptr)) // bs
    cols = indices // bs
    key = rows * nodes + cols
    uniq, inverse = np.unique(key, return_inverse=True)
    norms = np.sqrt(np.bincount(inverse, weights=np.abs(values) ** 2, minlength=uniq.shape[0]))
    nptr = np.zeros(nodes + 1, np.int64)
    np.cumsum(np.bincount(uniq // nodes, minlength=nodes), out=nptr[1:])
    return _k.symmetric_strength(nptr, uniq % nodes, norms, theta)


def improve(level, B, sweep, iterations):
    """The candidates relaxed on ``A x = 0``: Gauss-Seidel from each column of ``B``."""
    from ...kernels.cpu import amg as _k

    out = np.array(B, dtype=level.values.dtype, order="F", copy=True)
    zero = np.zeros(level.n, level.values.dtype)
    for j in range(out.shape[1]):
        col = np.ascontiguousarray(out[:, j])
        _k.gauss_seidel(level.indptr, level.indices, level.values, level.dinv, col, zero, sweep, iterations)
        out[:, j] = col
    return np.ascontiguousarray(out)


def smoothed_prolongator(level, T, smooth, hermitian):
    """``P = T``, then ``degree`` times ``P - (omega / rho) D^-1 A P``, as canonical CSR arrays
    (``T`` a sparray CSR; ``smooth`` is ``(omega, degree)``, or None for ``P = T``)."""
    if smooth is None:
        return _canonical(T, "amg")
    omega, degree = smooth
    rho = level.rho_estimate(hermitian)
    scale = (omega / rho) if rho > 0 else 0.0
    P = T
    for _ in range(degree):
        AP = level.A @ P
        ptr, idx, val = _canonical(AP, "amg")
        P = P - csr_of(ptr, idx, val * (np.repeat(level.dinv, np.diff(ptr)) * scale), AP.shape)
    return _canonical(P, "amg")


def _without_zeros(ptr, idx, val):
    """The CSR arrays without their stored zeros: a coupling that cancels exactly in a Galerkin
    product is no connection (with ``theta = 0`` the strength would keep it; pyamg never sees one,
    as SciPy's products drop exact zeros)."""
    keep = val != 0
    if keep.all():
        return ptr, idx, val
    n = ptr.shape[0] - 1
    rows = np.repeat(np.arange(n, dtype=np.int64), np.diff(ptr))
    out = np.zeros(n + 1, np.int64)
    np.cumsum(np.bincount(rows[keep], minlength=n), out=out[1:])
    return out, idx[keep], val[keep]


def transpose(ptr, idx, val, shape, conjugate):
    """The CSR arrays of the (conjugate) transpose."""
    M = csr_of(ptr, idx, np.conj(val) if conjugate else val, shape)
    return _canonical(M.mT.to_layout("csr"), "amg")


# --- the hierarchy -------------------------------------------------------------------------------
def build_hierarchy(top, B, BH, opts):
    """The list of :class:`HostLevel` from the finest ``top`` (a HostLevel) down, with ``P`` and
    ``R`` set on every level but the last. ``opts``: the parsed options of ``amg``."""
    levels = [top]
    symmetry = opts.symmetry
    hermitian = symmetry != "nonsymmetric"
    while len(levels) < opts.max_levels and levels[-1].n // levels[-1].bs > opts.max_coarse:
        level = levels[-1]
        depth = len(levels) - 1
        sp, sj = strength(level, opts.theta(depth))
        from ...kernels.cpu import amg as _k

        agg, count = _k.standard_aggregation(sp, sj)
        nodes = level.n // level.bs
        if count == 0 or count >= nodes:
            break  # aggregation no longer coarsens
        improve_args = opts.improve(depth)
        if improve_args is not None:
            B = improve(level, B, *improve_args)
        (tp, ti, tv), Bc = _k.fit_candidates(agg, count, B, level.bs)
        K = B.shape[1]
        nc = count * K
        T = csr_of(tp, ti, tv.astype(level.values.dtype, copy=False), (level.n, nc))
        smooth = opts.smooth(depth)
        pp, pi, pv = smoothed_prolongator(level, T, smooth, hermitian)
        level.P = csr_of(pp, pi, pv, (level.n, nc))
        if symmetry == "nonsymmetric":
            AH = HostLevel(*transpose(level.indptr, level.indices, level.values, (level.n, level.n), True), level.n, level.bs)
            if improve_args is not None:
                BH = improve(AH, BH, *improve_args)
            (hp, hi, hv), BHc = _k.fit_candidates(agg, count, BH, level.bs)
            TH = csr_of(hp, hi, hv.astype(level.values.dtype, copy=False), (level.n, nc))
            qp, qi, qv = smoothed_prolongator(AH, TH, smooth, True)
            rp, ri, rv = transpose(qp, qi, qv, (level.n, nc), True)
            BH = BHc
        else:
            rp, ri, rv = transpose(pp, pi, pv, (level.n, nc), symmetry == "hermitian")
        level.R = csr_of(rp, ri, rv, (nc, level.n))
        coarse = _without_zeros(*_canonical(level.R @ (level.A @ level.P), "amg"))
        levels.append(HostLevel(*coarse, nc, K))
        B = Bc.astype(level.values.dtype, copy=False)
    return levels


def complexities(levels):
    """``(operator, grid)`` complexities: the levels' entries and unknowns over the finest's."""
    nse = [lv.nse for lv in levels]
    n = [lv.n for lv in levels]
    return (sum(nse) / max(nse[0], 1), sum(n) / max(n[0], 1))


def default_candidates(n, bs, dtype):
    """pyamg's default near null space: ones per unknown of each block position (``(n, bs)``)."""
    return np.kron(np.ones((n // bs, 1), dtype), np.eye(bs, dtype=dtype))

