"""``sparray.linalg.amg``: smoothed-aggregation algebraic multigrid, its options and its cycles.

:func:`amg` sets the hierarchy up on the host (:mod:`.setup`) and returns a
:class:`MultilevelSolver` whose levels live in the namespace of ``A``'s components: each level's
operator ``A``, prolongator ``P`` and restriction ``R`` are sparray CSR arrays there (index dtype
int32 when it fits), the smoothers' vectors too, and the coarsest level is solved by a dense
pseudo-inverse there. A cycle is sparray products and element-wise updates only: on CuPy or the
simulated device it reads nothing back to the host (a preconditioned solver keeps its one read per
iteration).

What crosses between host and device: for a device ``A``, its CSR components go to the host once
(the setup's aggregation is sequential), and every level's ``A``, ``P``, ``R``, inverse diagonal
and the coarse pseudo-inverse go up once. Gauss-Seidel is sequential: it smooths NumPy data only;
on another namespace the default smoother is Chebyshev, and asking for Gauss-Seidel is a
ValueError.

A fill value ``f != 0`` is exact: the matrix is ``S + f * 1 1^T`` with ``S`` its specified values
minus ``f`` (zero fill), the hierarchy is built for ``S``, and ``M @ v`` applies the
Sherman-Morrison correction of the rank-one term with the cycle for ``S^-1``:
``y - f * sum(y) / (1 + f * sum(u)) * u`` for ``y = cycle(v)``, ``u = cycle(1)`` (made once).
A fill value that is not finite, or one that makes ``1 + f * sum(u) <= 0`` (the corrected
preconditioner would not be positive definite), is a ValueError.
"""

from __future__ import annotations

import array_api_compat
import numpy as np

from ..._array.base import SparseArray
from ..._array.compressed import CSR
from ..._core import dtypes as _dtypes
from ..._core.namespace import to_numpy
from .._operator import as_vector, solver_dtype
from . import setup as _setup
from .smoothers import Chebyshev, GaussSeidel, Jacobi

__all__ = ["Level", "MultilevelSolver", "amg"]

_WHO = "sparray.linalg.amg"
_SMOOTHERS = ("gauss_seidel", "block_gauss_seidel", "jacobi", "chebyshev")
_SWEEPS = ("forward", "backward", "symmetric")
_ACCELS = ("cg", "gmres", "minres", "bicgstab")
#: The largest coarsest level coarse_solver="pinv" inverts densely (its memory grows as n**2).
COARSE_DENSE_MAX = 5000


# --- options ----------------------------------------------------------------------------------------
def _unpack(who, name, spec):
    """``(method, kwargs)`` of a pyamg option: ``"name"``, ``("name", {...})`` or None."""
    if spec is None:
        return None, {}
    if isinstance(spec, str):
        return spec, {}
    if isinstance(spec, tuple) and len(spec) == 2 and isinstance(spec[0], str) and isinstance(spec[1], dict):
        return spec[0], dict(spec[1])
    raise TypeError(f"{who}: {name} must be a method name, a (name, {{options}}) pair or None; got {spec!r}")


def _per_level(spec):
    """A list or a tuple of entries (one a level, the last one for every deeper level) or one value
    for all levels."""
    if isinstance(spec, tuple) and not (len(spec) == 2 and isinstance(spec[0], str) and isinstance(spec[1], dict)):
        spec = list(spec)  # pyamg's ((name, {...}), None): a tuple of per-level entries
    if isinstance(spec, list):
        if not spec:
            raise ValueError(f"{_WHO}: a per-level option list must not be empty")
        return lambda depth: spec[min(depth, len(spec) - 1)]
    return lambda depth: spec


def _take(who, name, kw, defaults):
    unknown = set(kw) - set(defaults)
    if unknown:
        raise TypeError(f"{who}: {name} takes the options {sorted(defaults)}; got {sorted(unknown)}")
    return {**defaults, **kw}


class Options:
    """The parsed options of :func:`amg` (``theta``, ``smooth`` and ``improve`` by level depth)."""

    def __init__(self, symmetry, strength, aggregate, smooth, improve_candidates, max_levels, max_coarse):
        if symmetry not in ("hermitian", "symmetric", "nonsymmetric"):
            raise ValueError(f"{_WHO}: symmetry must be 'hermitian', 'symmetric' or 'nonsymmetric'; got {symmetry!r}")
        self.symmetry = symmetry
        if not (isinstance(max_levels, int) and max_levels >= 1):
            raise ValueError(f"{_WHO}: max_levels must be an integer >= 1; got {max_levels!r}")
        if not (isinstance(max_coarse, int) and max_coarse >= 1):
            raise ValueError(f"{_WHO}: max_coarse must be an integer >= 1; got {max_coarse!r}")
        self.max_levels, self.max_coarse = max_levels, max_coarse
        strength_at, aggregate_at = _per_level(strength), _per_level(aggregate)
        smooth_at, improve_at = _per_level(smooth), _per_level(improve_candidates)
        self._theta = {}
        self._smooth = {}
        self._improve = {}
        for depth in range(max_levels):
            method, kw = _unpack(_WHO, "strength", strength_at(depth))
            if method != "symmetric":
                raise ValueError(f"{_WHO}: strength must be 'symmetric' (pyamg's default measure); got {method!r}")
            theta = float(_take(_WHO, "strength 'symmetric'", kw, {"theta": 0.0})["theta"])
            if not theta >= 0:
                raise ValueError(f"{_WHO}: the strength theta must be >= 0; got {theta}")
            self._theta[depth] = theta
            method, kw = _unpack(_WHO, "aggregate", aggregate_at(depth))
            if method != "standard" or kw:
                raise ValueError(f"{_WHO}: aggregate must be 'standard' (pyamg's default); got {aggregate_at(depth)!r}")
            method, kw = _unpack(_WHO, "smooth", smooth_at(depth))
            if method is None:
                self._smooth[depth] = None
            elif method == "jacobi":
                kw = _take(_WHO, "smooth 'jacobi'", kw, {"omega": 4.0 / 3.0, "degree": 1})
                if not (float(kw["omega"]) > 0 and isinstance(kw["degree"], int) and kw["degree"] >= 1):
                    raise ValueError(f"{_WHO}: smooth 'jacobi' needs omega > 0 and an integer degree >= 1; got {kw}")
                self._smooth[depth] = (float(kw["omega"]), kw["degree"])
            else:
                raise ValueError(f"{_WHO}: smooth must be 'jacobi' or None (the tentative prolongator); got {method!r}")
            method, kw = _unpack(_WHO, "improve_candidates", improve_at(depth))
            if method is None:
                self._improve[depth] = None
            elif method in ("gauss_seidel", "block_gauss_seidel"):
                kw = _take(_WHO, f"improve_candidates {method!r}", kw, {"sweep": "symmetric", "iterations": 4})
                _check_sweep(kw["sweep"], kw["iterations"])
                self._improve[depth] = (kw["sweep"], kw["iterations"])
            else:
                raise ValueError(f"{_WHO}: improve_candidates must be 'gauss_seidel' or None; got {method!r}")

    def theta(self, depth):
        return self._theta[depth]

    def smooth(self, depth):
        return self._smooth[depth]

    def improve(self, depth):
        return self._improve[depth]


def _check_sweep(sweep, iterations):
    if sweep not in _SWEEPS:
        raise ValueError(f"{_WHO}: sweep must be one of {_SWEEPS}; got {sweep!r}")
    if not (isinstance(iterations, int) and iterations >= 1):
        raise ValueError(f"{_WHO}: iterations must be an integer >= 1; got {iterations!r}")


def _smoother_spec(spec, numpy, bs, name):
    """``(method, kwargs)`` of a pre/postsmoother, checked; None picks Gauss-Seidel on NumPy
    (pyamg's symmetric sweep) and Chebyshev elsewhere."""
    if spec is None:
        spec = ("gauss_seidel", {"sweep": "symmetric"}) if numpy else ("chebyshev", {})
    method, kw = _unpack(_WHO, name, spec)
    if method not in _SMOOTHERS:
        raise ValueError(f"{_WHO}: {name} must be one of {_SMOOTHERS}; got {method!r}")
    if method in ("gauss_seidel", "block_gauss_seidel"):
        if not numpy:
            raise ValueError(
                f"{_WHO}: {name} {method!r} is sequential and runs on NumPy data only; on this namespace use "
                "'chebyshev' (the default there) or 'jacobi'"
            )
        if method == "block_gauss_seidel" and bs > 1:
            raise ValueError(
                f"{_WHO}: {name} 'block_gauss_seidel' with {bs}x{bs} blocks is not provided; 'gauss_seidel' "
                "sweeps the unknowns one by one"
            )
        kw = _take(_WHO, f"{name} {method!r}", kw, {"sweep": "symmetric", "iterations": 1})
        _check_sweep(kw["sweep"], kw["iterations"])
        return "gauss_seidel", kw
    if method == "jacobi":
        kw = _take(_WHO, f"{name} 'jacobi'", kw, {"omega": 1.0, "iterations": 1})
        if not (float(kw["omega"]) > 0 and isinstance(kw["iterations"], int) and kw["iterations"] >= 1):
            raise ValueError(f"{_WHO}: {name} 'jacobi' needs omega > 0 and an integer iterations >= 1; got {kw}")
        return method, kw
    kw = _take(_WHO, f"{name} 'chebyshev'", kw, {"degree": 3, "lower_bound": 1.0 / 30.0, "upper_bound": 1.1, "iterations": 1})
    ok = isinstance(kw["degree"], int) and kw["degree"] >= 1 and isinstance(kw["iterations"], int) and kw["iterations"] >= 1
    if not (ok and 0 <= float(kw["lower_bound"]) < float(kw["upper_bound"])):
        raise ValueError(
            f"{_WHO}: {name} 'chebyshev' needs integer degree and iterations >= 1 and 0 <= lower_bound < upper_bound; got {kw}"
        )
    return method, kw


# --- the levels on the device -------------------------------------------------------------------------
class Level:
    """One level of a :class:`MultilevelSolver` in the solver's namespace: ``A`` (sparray CSR),
    ``P`` and ``R`` (sparray CSR; None on the coarsest level), ``presmoother``,
    ``postsmoother`` (None on the coarsest level) and ``dinv`` (``1 / diag(A)``)."""

    def __init__(self, A, P, R, dinv, n, nse, bs):
        self.A, self.P, self.R, self.dinv = A, P, R, dinv
        self.n, self.nse, self.bs = n, nse, bs
        self.presmoother = self.postsmoother = None

    def __repr__(self):
        return f"<Level {self.n} unknowns, {self.nse} entries>"


def _place(xp, device, a):
    if array_api_compat.is_numpy_namespace(xp):
        return a
    return xp.asarray(np.ascontiguousarray(a), device=device)


def _device_csr(xp, device, ptr, idx, val, shape, dtype):
    small = max(shape[0], shape[1], idx.shape[0]) < 2**31 - 1
    index = np.int32 if small else np.int64
    ptr = _place(xp, device, ptr.astype(index, copy=False))
    idx = _place(xp, device, idx.astype(index, copy=False))
    val = _place(xp, device, val.astype(dtype, copy=False))
    fill = xp.zeros((), dtype=val.dtype) if not array_api_compat.is_numpy_namespace(xp) else np.zeros((), val.dtype)
    return CSR._from_parts(xp, ptr, idx, val, tuple(shape), fill, checked=True)


# --- the solver -------------------------------------------------------------------------------------
class MultilevelSolver:
    """A multigrid hierarchy (pyamg's ``MultilevelSolver``): ``M @ v`` is one cycle from a zero guess
    (an approximation of ``A^{-1} v``), so ``M`` is the ``M=`` of ``cg``/``minres``/``gmres``/
    ``bicgstab``; :meth:`solve` iterates cycles, alone or inside a Krylov method (``accel=``).

    ``levels``: the :class:`Level` list, finest first. ``shape``, ``dtype``: the operator's.
    ``cycle``: the cycle ``M @ v`` makes ("V", "W" or "F"). ``host_setup``: what the setup ran on
    the host (a dict of its parts' seconds and the bytes moved to the device)."""

    def __init__(self, A, levels, coarse, xp, dtype, fill, cycle, info):
        self.A = A  # the operator of solve()'s residuals (the user's array)
        self.levels = levels
        self._coarse = coarse
        self.xp = xp
        self.dtype = dtype
        n = levels[0].n
        self.shape = (n, n)
        self.cycle = cycle
        self.host_setup = info
        self._fill = fill
        self._u = None
        self._denominator = None
        if fill != 0:
            self._rank_one()  # a cycle on the device: also settles the operators' first-use facts
        elif not array_api_compat.is_numpy_namespace(xp):
            self._cycle(0, None, xp.zeros(n, dtype=dtype, device=array_api_compat.device(levels[0].dinv)), cycle)
            # (one cycle at setup: each operator's first product reads two facts of it to the host,
            # its fill and its longest row, so that the solve's cycles read nothing)

    # -- complexities and summary --
    def operator_complexity(self):
        """Entries of every level's operator over the finest operator's (pyamg's measure)."""
        return sum(lv.nse for lv in self.levels) / max(self.levels[0].nse, 1)

    def grid_complexity(self):
        """Unknowns of every level over the finest level's."""
        return sum(lv.n for lv in self.levels) / max(self.levels[0].n, 1)

    def __repr__(self):
        rows = [
            (
                f"MultilevelSolver: {len(self.levels)} levels, operator complexity {self.operator_complexity():.3f}, "
                f"grid complexity {self.grid_complexity():.3f}, cycle {self.cycle!r}, namespace {self.xp.__name__}"
            )
        ]
        for i, lv in enumerate(self.levels):
            smooth = f"{lv.presmoother!r} / {lv.postsmoother!r}"
            if lv.P is None:
                smooth = "coarse: pinv" if self._coarse is not None else f"coarse: relax, {smooth}"
            rows.append(f"  level {i}: {lv.n} unknowns, {lv.nse} entries; {smooth}")
        return "\n".join(rows)

    # -- cycles --
    def _cycle(self, depth, x, b, kind):
        lv = self.levels[depth]
        if lv.P is None:
            if self._coarse is None:  # coarse_solver="relax": the level's smoothing sweeps
                return lv.postsmoother(lv.presmoother(x, b), b)
            out = self._coarse_of(b.dtype) @ b
            return out if x is None else x + out
        x = lv.presmoother(x, b)
        r = b - lv.A @ x
        rc = lv.R @ r
        e = self._cycle(depth + 1, None, rc, kind)
        if kind == "W" and self.levels[depth + 1].P is not None:
            e = self._cycle(depth + 1, e, rc, kind)
        elif kind == "F" and self.levels[depth + 1].P is not None:
            e = self._cycle(depth + 1, e, rc, "V")
        x = x + lv.P @ e
        return lv.postsmoother(x, b)

    def _coarse_of(self, dtype):
        key = _dtypes.dtype_name(dtype)
        c = self._coarse.get(key)
        if c is None:
            c = self._coarse[key] = self.xp.astype(next(iter(self._coarse.values())), dtype)
        return c

    def _vector(self, who, v):
        xp = self.xp
        v = as_vector(who, v, xp, self.shape[0], name="v")
        dtype = solver_dtype(xp, self.dtype, v.dtype)
        if v.dtype != dtype:
            v = xp.astype(v, dtype)
        return v

    def _rank_one(self):
        xp = self.xp
        ones = xp.ones(self.shape[0], dtype=self.dtype) if array_api_compat.is_numpy_namespace(xp) else xp.ones(
            self.shape[0], dtype=self.dtype, device=array_api_compat.device(self.levels[0].dinv)
        )
        u = self._cycle(0, None, ones, self.cycle)
        denominator = 1 + self._fill * float(xp.real(xp.sum(u)))  # one host read, at setup
        if not denominator > 0:
            raise ValueError(
                f"{_WHO}: the fill value {self._fill!r} makes 1 + fill * sum(M @ 1) = {denominator:.3g} <= 0: the "
                "preconditioner of S + fill * 1 1^T (S the specified values minus the fill) would not be positive "
                "definite; AMG does not apply to this matrix (subtract the fill, or use another preconditioner)"
            )
        self._u, self._denominator = u, denominator

    def apply(self, v, cycle=None):
        """One cycle on ``v`` from the zero vector: ``M @ v`` (``cycle`` defaults to ``self.cycle``)."""
        kind = self.cycle if cycle is None else _check_cycle(cycle)
        v = self._vector("sparray.linalg.amg: M @ v", v)
        y = self._cycle(0, None, v, kind)
        if self._u is not None:
            xp = self.xp
            y = y - (self._fill / self._denominator) * xp.sum(y) * xp.astype(self._u, y.dtype)
        return y

    def __matmul__(self, v):
        return self.apply(v)

    matvec = __matmul__

    def aspreconditioner(self, cycle="V"):
        """The cycle ``cycle`` as a preconditioner (``M @ v``; pyamg's name): ``self`` when it is
        this solver's cycle, else a solver sharing these levels with that cycle."""
        cycle = _check_cycle(cycle)
        if cycle == self.cycle:
            return self
        other = object.__new__(MultilevelSolver)
        other.__dict__.update(self.__dict__)
        other.cycle = cycle
        return other

    def solve(self, b, x0=None, tol=1e-5, maxiter=100, cycle="V", accel=None, callback=None, residuals=None,
              return_info=False):  # fmt: skip
        """Solve ``A x = b`` to ``||b - A x|| <= tol * ||b||`` (pyamg's ``solve``): cycles alone
        (``accel=None``: ``x += M (b - A x)``, at most ``maxiter`` cycles) or a Krylov method with
        this hierarchy as its preconditioner (``accel`` one of "cg", "gmres", "minres",
        "bicgstab": sparray.linalg's, ``maxiter`` its iterations). ``residuals``, a list, gets a
        residual norm of the start and of every iteration, as pyamg's: cg's recursive residuals (then
        the final ``||b - A x||``), gmres's preconditioned ones, else ``||b - A x||`` (an extra product
        and host read an iteration).
        Returns ``x`` (a dense vector of the solver's namespace), or ``(x, info)`` with
        ``return_info`` (0 converged, else the iterations made)."""
        from .. import _iterative

        who = "sparray.linalg.amg: solve"
        xp = self.xp
        cycle = _check_cycle(cycle)
        M = self.aspreconditioner(cycle)
        b = self._vector(who, b)
        x = xp.zeros_like(b) if x0 is None else xp.asarray(self._vector(who, x0), copy=True)
        if not (isinstance(maxiter, int) and maxiter >= 0):
            raise ValueError(f"{who}: maxiter must be an integer >= 0; got {maxiter!r}")
        if accel is not None:
            if accel not in _ACCELS:
                raise ValueError(f"{who}: accel must be None or one of {_ACCELS}; got {accel!r}")

            def record(xk):
                if residuals is not None:
                    residuals.append(_norm(xp, b - self.A @ xk))
                if callback is not None:
                    callback(xk)

            def record_gmres(rel):  # gmres's own test each inner iteration: its preconditioned residual
                residuals.append(float(rel) * bnorm)

            solver = getattr(_iterative, accel)
            kw = {"rtol": tol, "maxiter": maxiter, "M": M, "callback": record if (residuals is not None or callback) else None}
            if accel == "cg" and residuals is not None:
                # cg hands M its recursive residual once an iteration: its norm is recorded there (no
                # extra product), and the final residual after
                kw["M"] = _Recording(M, residuals, xp)
                kw["callback"] = callback
            elif residuals is not None:
                residuals.append(_norm(xp, b - self.A @ x))
            if accel != "minres":
                kw["atol"] = 0.0
            if accel == "gmres" and kw["callback"] is not None:
                if callback is not None:
                    raise ValueError(f"{who}: accel='gmres' takes no callback here (gmres calls it once a restart)")
                bnorm = _norm(xp, b)
                kw["callback"], kw["callback_type"] = record_gmres, "pr_norm"
            x, info = solver(self.A, b, x, **kw)
            if accel == "cg" and residuals is not None:
                residuals.append(_norm(xp, b - self.A @ x))
            return (x, info) if return_info else x
        if residuals is not None:
            residuals.append(_norm(xp, b - self.A @ x))
        bnorm = _norm(xp, b)
        target = tol * bnorm
        info = maxiter
        for it in range(maxiter):
            r = b - self.A @ x
            rnorm = _norm(xp, r)
            if it and residuals is not None:
                residuals.append(rnorm)
            if rnorm <= target:
                info = 0
                break
            x = x + M.apply(r)
            if callback is not None:
                callback(x)
        else:
            rnorm = _norm(xp, b - self.A @ x)
            if residuals is not None:
                residuals.append(rnorm)
            info = 0 if rnorm <= target else maxiter
        return (x, info) if return_info else x


class _Recording:
    """A preconditioner that records the norm of each vector it is applied to (cg's residuals)."""

    def __init__(self, M, residuals, xp):
        self.M, self.residuals, self.xp = M, residuals, xp
        self.shape, self.dtype = M.shape, M.dtype

    def __matmul__(self, r):
        self.residuals.append(_norm(self.xp, r))
        return self.M @ r


def _norm(xp, v):
    if type(v) is np.ndarray:
        return _setup.norm2(v)  # not BLAS: its spinning threads would slow the next product
    return float(to_numpy(xp.linalg.vector_norm(v)))


def _check_cycle(cycle):
    if cycle not in ("V", "W", "F"):
        raise ValueError(f"{_WHO}: cycle must be 'V', 'W' or 'F'; got {cycle!r}")
    return cycle


# --- the entry point ----------------------------------------------------------------------------------
def _host_matrix(A, dtype):
    """``(indptr, indices, values, fill, bs)`` of ``A`` on the host: canonical CSR (int64 indices),
    values minus the fill, in ``dtype``; ``bs`` the block size of a BSR/BSC."""
    fill = to_numpy(A._fill)
    if fill.ndim:
        raise ValueError(f"{_WHO}: A must have one scalar fill value; got a fill of shape {fill.shape}")
    fill = fill.item()
    if not (isinstance(fill, (int, float, complex)) and np.isfinite(fill)):
        raise ValueError(f"{_WHO}: A has the fill value {fill!r}; AMG needs a finite fill")
    bs = 1
    if A.layout in ("bsr", "bsc"):
        bh, bw = A.blocksize
        if bh != bw:
            raise ValueError(f"{_WHO}: a block matrix needs square blocks for aggregation; got blocksize {A.blocksize}")
        bs = int(bh)
    B = A if A.layout == "csr" else A.to_layout("csr")
    if array_api_compat.is_numpy_namespace(A._xp):
        B._check_contents()
        crow, col, values = np.asarray(B.crow_indices), np.asarray(B.col_indices), np.asarray(B.values)
    else:  # one copy of each component to the host (the setup's transfer)
        crow, col, values = (np.array(to_numpy(c)) for c in (B.crow_indices, B.col_indices, B.values))
        CSR(crow, col, values, shape=B.shape)._check_contents()
    values = values.astype(dtype, copy=False)
    if not np.isfinite(values).all():
        raise ValueError(f"{_WHO}: A must hold finite values only; it has nan or inf")
    ptr, idx, val = _setup.canonical_arrays(crow, col, values, A.shape[1], _WHO)
    if fill != 0:
        val = val - np.asarray(fill, dtype)
    return ptr, idx, val, fill, bs


def amg(
    A,
    *,
    kind="smoothed_aggregation",
    B=None,
    BH=None,
    symmetry="hermitian",
    strength=("symmetric", {"theta": 0.0}),
    aggregate="standard",
    smooth=("jacobi", {"omega": 4.0 / 3.0}),
    presmoother=None,
    postsmoother=None,
    improve_candidates=(("gauss_seidel", {"sweep": "symmetric", "iterations": 4}), None),
    max_levels=10,
    max_coarse=10,
    coarse_solver="pinv",
    cycle="V",
):
    """Smoothed-aggregation algebraic multigrid for ``A``: a :class:`MultilevelSolver` ``M`` whose
    ``M @ v`` is one V-cycle, usable as ``M=`` of ``cg``, ``minres``, ``gmres`` and ``bicgstab``
    (or ``M.solve(b, tol=, accel=)`` alone). The options and their defaults are those of pyamg's
    ``smoothed_aggregation_solver``:

    - ``A``: a square 2-D sparray array of any layout (a BSR/BSC's square blocks are the nodes of
      the aggregation), any finite fill value (exact: see the module docstring), components of any
      namespace; float32, float64, complex64, complex128 (integers and bool compute in float64).
    - ``B`` ``(n, K)``: the near null space (default ones; ``bs`` columns for blocks); ``BH``: the
      left one for "nonsymmetric" (default ``B``).
    - ``symmetry``: "hermitian" (``R = P^H``), "symmetric" (``R = P^T``) or "nonsymmetric".
    - ``strength``: ``("symmetric", {"theta": t})``; ``aggregate``: "standard"; ``smooth``:
      ``("jacobi", {"omega": 4/3, "degree": 1})`` or None (unsmoothed aggregation);
      ``improve_candidates``: Gauss-Seidel sweeps on the first level's ``B``, or None. Each may be
      a list, one entry a level (the last for the levels below).
    - ``presmoother``/``postsmoother``: ``("gauss_seidel", {"sweep", "iterations"})``,
      ``("jacobi", {"omega", "iterations"})`` or ``("chebyshev", {"degree", "lower_bound",
      "upper_bound", "iterations"})``; None: symmetric Gauss-Seidel on NumPy, Chebyshev elsewhere.
    - ``max_levels``, ``max_coarse``: the hierarchy stops at that many levels or at that many nodes;
      ``coarse_solver``: "pinv" (a dense pseudo-inverse of the coarsest operator, at most
      :data:`COARSE_DENSE_MAX` unknowns: a ValueError says so when aggregation stops above) or
      "relax" (the smoothers' sweeps there, one pre and one post).
    - ``cycle``: the cycle ``M @ v`` makes, "V", "W" or "F".

    >>> import numpy as np, sparray
    >>> n = 50
    >>> A = sparray.asarray(2 * np.eye(n) - np.eye(n, k=1) - np.eye(n, k=-1), layout="csr")
    >>> M = sparray.linalg.amg(A, max_coarse=4)
    >>> b = np.ones(n)
    >>> x, info = sparray.linalg.cg(A, b, rtol=1e-10, M=M)
    >>> info, bool(np.allclose(A @ x, b))
    (0, True)
    """
    import time

    if kind != "smoothed_aggregation":
        raise ValueError(f"{_WHO}: kind must be 'smoothed_aggregation'; got {kind!r}")
    if not isinstance(A, SparseArray):
        raise TypeError(f"{_WHO}: A must be a sparray array (sparray.asarray(matrix, layout='csr')); got {type(A).__name__}")
    if A.ndim != 2 or A.dense_ndim or A.shape[0] != A.shape[1]:
        raise ValueError(f"{_WHO}: A must be a square 2-D sparse matrix with no dense dims; got shape {A.shape}")
    if coarse_solver not in ("pinv", "relax"):
        raise ValueError(
            f"{_WHO}: coarse_solver must be 'pinv' (a dense pseudo-inverse) or 'relax' (the smoothers' sweeps); "
            f"got {coarse_solver!r}"
        )
    cycle = _check_cycle(cycle)
    xp = A._xp
    numpy = array_api_compat.is_numpy_namespace(xp)
    device = None if numpy else array_api_compat.device(A.values)
    dtype = np.dtype(_dtypes.dtype_name(solver_dtype(xp, A.dtype)))
    if dtype.name not in ("float32", "float64", "complex64", "complex128"):
        raise TypeError(f"{_WHO}: A has dtype {dtype}; AMG computes in float32, float64, complex64 or complex128")
    opts = Options(symmetry, strength, aggregate, smooth, improve_candidates, max_levels, max_coarse)
    t0 = time.perf_counter()
    ptr, idx, val, fill, bs = _host_matrix(A, dtype)
    n = A.shape[0]
    B = _candidates("B", B, n, bs, dtype)
    BH = _candidates("BH", BH, n, bs, dtype) if BH is not None else B.copy()
    if BH.shape[1] != B.shape[1]:
        raise ValueError(f"{_WHO}: B and BH must have the same number of columns; got {B.shape[1]} and {BH.shape[1]}")
    pre = _smoother_spec(presmoother, numpy, bs, "presmoother")
    post = _smoother_spec(postsmoother, numpy, bs, "postsmoother")
    t1 = time.perf_counter()
    host = _setup.build_hierarchy(_setup.HostLevel(ptr, idx, val, n, bs), B, BH, opts)
    t2 = time.perf_counter()
    hermitian = symmetry != "nonsymmetric"
    for lv in host[:-1]:
        if "chebyshev" in (pre[0], post[0]):
            lv.rho_estimate(hermitian)
    last = host[-1]
    coarse = None
    if coarse_solver == "pinv":
        if last.n > COARSE_DENSE_MAX:
            if len(host) == opts.max_levels:
                why, fix = "max_levels was reached", "a larger max_levels, or coarse_solver='relax'"
            else:
                why, fix = "aggregation no longer coarsens it: too few strong connections", "coarse_solver='relax'"
            raise ValueError(
                f"{_WHO}: the coarsest level has {last.n} unknowns ({why}); its dense pseudo-inverse would take "
                f"{last.n ** 2 * dtype.itemsize / 2**30:.1f} GiB and O(n^3) time (coarse_solver='pinv' takes at most "
                f"{COARSE_DENSE_MAX} unknowns): pass {fix}"
            )
        coarse = np.linalg.pinv(last.A.to_dense() if last.n else np.zeros((0, 0), dtype))
    moved = 0
    levels = []
    for lv in host:
        Ad = _device_csr(xp, device, lv.indptr, lv.indices, lv.values, (lv.n, lv.n), dtype)
        P = R = None
        if lv.P is not None:
            P = _device_csr(xp, device, *_arrays(lv.P), lv.P.shape, dtype)
            R = _device_csr(xp, device, *_arrays(lv.R), lv.R.shape, dtype)
        level = Level(Ad, P, R, _place(xp, device, lv.dinv.astype(dtype, copy=False)), lv.n, lv.nse, lv.bs)
        if P is not None or coarse is None:
            level.presmoother = _make_smoother(pre, level, lv)
            level.postsmoother = _make_smoother(post, level, lv)
        if not numpy:
            moved += sum(_nbytes(a) for M in (Ad, P, R) if M is not None for a in (M.crow_indices, M.col_indices, M.values))
        levels.append(level)
    coarse_dev = None if coarse is None else _place(xp, device, coarse.astype(dtype, copy=False))
    t3 = time.perf_counter()
    info = {
        "host_arrays_s": t1 - t0, "hierarchy_s": t2 - t1, "to_namespace_s": t3 - t2,
        "bytes_to_device": moved + (0 if numpy or coarse is None else coarse.nbytes),
    }  # fmt: skip
    coarse_of = None if coarse_dev is None else {_dtypes.dtype_name(coarse_dev.dtype): coarse_dev}
    return MultilevelSolver(A, levels, coarse_of, xp, getattr(xp, dtype.name), fill, cycle, info)


def _arrays(M):
    return np.asarray(M.crow_indices), np.asarray(M.col_indices), np.asarray(M.values)


def _nbytes(a):
    return int(a.size) * int(np.dtype(_dtypes.dtype_name(a.dtype)).itemsize)


def _candidates(name, B, n, bs, dtype):
    if B is None:
        return _setup.default_candidates(n, bs, dtype)
    if isinstance(B, SparseArray):
        B = B.to_dense()
    B = np.array(to_numpy(B), dtype=dtype)
    if B.ndim == 1:
        B = B.reshape(-1, 1)
    if B.ndim != 2 or B.shape[0] != n or B.shape[1] < 1:
        raise ValueError(f"{_WHO}: {name} must have shape ({n}, K) with K >= 1 (or ({n},)); got {B.shape}")
    if not np.isfinite(B).all():
        raise ValueError(f"{_WHO}: {name} must hold finite values only")
    return B


def _make_smoother(spec, level, host_level):
    method, kw = spec
    if method == "gauss_seidel":
        A = level.A
        return GaussSeidel(A.crow_indices, A.col_indices, A.values, level.dinv, kw["sweep"], kw["iterations"])
    if method == "jacobi":
        return Jacobi(level.A, level.dinv, kw["omega"], kw["iterations"])
    rho = host_level.rho if host_level.rho is not None else host_level.rho_estimate(True)
    return Chebyshev(level.A, level.dinv, rho, kw["degree"], kw["lower_bound"], kw["upper_bound"], kw["iterations"])
