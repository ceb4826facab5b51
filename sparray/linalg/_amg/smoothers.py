"""The relaxation methods of a multigrid cycle: each smoother is made once per level and called as
``x = smoother(x, b)``, ``x`` None standing for the zero vector (the first smoothing of a cycle).

- :class:`GaussSeidel` -- forward, backward or symmetric sweeps (``sparray.kernels.cpu.amg``):
  sequential, so NumPy data only (in place on its own vector);
- :class:`Jacobi` -- ``x += omega D^-1 (b - A x)``;
- :class:`Chebyshev` -- the Chebyshev polynomial of ``D^-1 A`` of ``degree`` on
  ``[lower_bound * rho, upper_bound * rho]`` (``rho`` the setup's estimate of the spectral radius;
  pyamg's bounds 1/30 and 1.1): ``degree`` products ``A @ v`` and vector updates.

Jacobi and Chebyshev are array-API calls only (products of sparray arrays and element-wise
updates): they run in the namespace of the level's arrays (CuPy, the simulated device) with no read
back to the host. Both are symmetric in the ``D`` inner product, so a V-cycle with the same smoother
before and after is a symmetric preconditioner (for cg); a Gauss-Seidel V-cycle is symmetric with
"symmetric" sweeps (pyamg's default) or a forward sweep before and a backward one after.

>>> import numpy as np
>>> from sparray.linalg._amg.setup import HostLevel
>>> lv = HostLevel(np.array([0, 2, 4]), np.array([0, 1, 0, 1]), np.array([2.0, -1.0, -1.0, 2.0]), 2, 1)
>>> gs = GaussSeidel(lv.indptr, lv.indices, lv.values, lv.dinv, "forward", 1)
>>> gs(None, np.array([1.0, 1.0])).tolist()  # x0 = 0: x_0 = 1/2, x_1 = (1 + 1/2) / 2
[0.5, 0.75]
"""

from __future__ import annotations

import numpy as np

__all__ = ["Chebyshev", "GaussSeidel", "Jacobi"]


class GaussSeidel:
    """Gauss-Seidel sweeps on the CSR arrays of one level (NumPy; see the module docstring)."""

    def __init__(self, indptr, indices, values, dinv, sweep, iterations):
        from ...kernels.cpu import amg as _k

        self._gs = _k.gauss_seidel
        self.arrays = (indptr, indices, values, dinv)
        self.sweep, self.iterations = sweep, iterations
        self._cast = {values.dtype: (values, dinv)}

    def __call__(self, x, b):
        indptr, indices, values, dinv = self.arrays
        got = self._cast.get(b.dtype)
        if got is None:
            got = self._cast[b.dtype] = (values.astype(b.dtype), dinv.astype(b.dtype))
        values, dinv = got
        x = np.zeros(b.shape[0], b.dtype) if x is None else x
        if not b.flags.c_contiguous:
            b = np.ascontiguousarray(b)
        return self._gs(indptr, indices, values, dinv, x, b, self.sweep, self.iterations)

    def __repr__(self):
        return f"gauss_seidel(sweep={self.sweep!r}, iterations={self.iterations})"


class Jacobi:
    """Damped Jacobi: ``iterations`` times ``x += omega * dinv * (b - A @ x)`` in ``xp``."""

    def __init__(self, A, dinv, omega, iterations):
        self.A, self.dinv, self.omega, self.iterations = A, dinv, float(omega), int(iterations)
        self._wd = {}

    def _scaled(self, dtype, xp):
        wd = self._wd.get(dtype)
        if wd is None:
            wd = self._wd[dtype] = xp.astype(self.dinv, dtype) * self.omega
        return wd

    def __call__(self, x, b):
        xp = _xp_of(self.A)
        wd = self._scaled(b.dtype, xp)
        for k in range(self.iterations):
            x = wd * b if x is None else x + wd * (b - self.A @ x)
        return x

    def __repr__(self):
        return f"jacobi(omega={self.omega}, iterations={self.iterations})"


class Chebyshev:
    """Chebyshev smoothing with ``D^-1 A`` (three-term recurrence; see the module docstring)."""

    def __init__(self, A, dinv, rho, degree, lower_bound, upper_bound, iterations):
        self.A, self.dinv = A, dinv
        self.degree, self.iterations = int(degree), int(iterations)
        self.lower_bound, self.upper_bound = float(lower_bound), float(upper_bound)
        hi, lo = self.upper_bound * rho, self.lower_bound * rho
        self.theta, self.delta = (hi + lo) / 2, (hi - lo) / 2
        self._d = {}

    def _dinv(self, dtype, xp):
        d = self._d.get(dtype)
        if d is None:
            d = self._d[dtype] = xp.astype(self.dinv, dtype)
        return d

    def __call__(self, x, b):
        xp = _xp_of(self.A)
        dinv = self._dinv(b.dtype, xp)
        theta, delta = self.theta, self.delta
        if theta == 0:
            return xp.zeros_like(b) if x is None else x
        sigma = theta / delta
        for _ in range(self.iterations):
            r = dinv * b if x is None else dinv * (b - self.A @ x)
            d = r / theta
            rho_k = 1 / sigma
            for k in range(self.degree):
                x = d if x is None else x + d
                if k == self.degree - 1:
                    break
                r = r - dinv * (self.A @ d)
                rho_next = 1 / (2 * sigma - rho_k)
                d = (rho_next * rho_k) * d + (2 * rho_next / delta) * r
                rho_k = rho_next
        return x

    def __repr__(self):
        return (
            f"chebyshev(degree={self.degree}, lower_bound={self.lower_bound:.4g}, upper_bound={self.upper_bound:.4g}, "
            f"iterations={self.iterations})"
        )


def _xp_of(A):
    return A._xp
