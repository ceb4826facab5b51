#!/usr/bin/env python
"""Time to solution: sparray.linalg's solvers beside scipy.sparse.linalg on the 2-D Poisson problem.

    python benchmarks/bench.py --solvers                  # 1e3 ... 1e6 unknowns, ~3 min
    python benchmarks/bench.py --solvers --sizes 1e3,1e4  # some sizes only
    python benchmarks/bench.py --solvers --only cg        # methods whose name contains this
    python benchmarks/solvers.py --drift --sizes 1e4,1e5  # bicgstab's iterations: whose rounding moves them
    python benchmarks/solvers.py --amg                    # algebraic multigrid beside pyamg (solvers_amg.py)

What a user meets: the 5-point Laplacian on a ``k x k`` grid (``k * k`` unknowns, Dirichlet
boundary) built by scipy as a CSR array with int32 indices and handed to sparray with
``from_scipy`` (the same buffers), ``b`` a fixed random vector, the same ``rtol`` (1e-8) for both
libraries, default threads, everything in one ordinary process. Each cell is the median of
several solves (one at 1e6 unknowns), after one untimed solve per library (kernels compiled and
loaded). The iteration counts come from each library's callback. Ratio = scipy time / sparray
time (above 1: sparray faster).

Rows: ``cg`` (SPD), ``cg`` with a Jacobi preconditioner, ``minres``, ``bicgstab``, ``gmres``
(restart 20, up to 1e5 unknowns: restarted GMRES needs thousands of cycles on the larger grids, in
both libraries), ``eigsh`` of the 6 smallest eigenvalues (``which="SA"``, up to 1e4 unknowns).
The STREAM triad of the machine is printed above the table: a CG iteration on the 1e6 grid moves
about ``(12 * nse + 4 * n) + 10 * 8 * n`` bytes (one SpMV, two dot products, three vector updates),
and the last column says what fraction of the triad's bandwidth that is.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
import warnings

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.path.append(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
os.environ.setdefault("SPARRAY_JIT", "eager")

SIZES = (1_000, 10_000, 100_000, 1_000_000)
RTOL = 1e-8


def poisson(n_unknowns: int):
    """The scipy CSR (int32 indices) of the 5-point Laplacian on the nearest ``k x k`` grid."""
    import scipy.sparse as sp

    k = max(2, round(n_unknowns**0.5))
    T = sp.diags_array([-np.ones(k - 1), 2 * np.ones(k), -np.ones(k - 1)], offsets=[-1, 0, 1])
    eye = sp.eye_array(k)
    A = (sp.kron(T, eye) + sp.kron(eye, T)).tocsr()
    A.sort_indices()
    return sp.csr_array((A.data, A.indices.astype(np.int32), A.indptr.astype(np.int32)), shape=A.shape)


def _jacobi_scipy(S):
    import scipy.sparse.linalg as sla

    inv = 1.0 / S.diagonal()
    return sla.LinearOperator(S.shape, matvec=lambda v: inv * v, dtype=S.dtype)


def methods(max_gmres=100_000, max_eigsh=10_000):
    """(name, sparray call, scipy call, largest size) per row; each call returns the iterations."""
    import scipy.sparse.linalg as sla

    import sparray

    L = sparray.linalg

    def counting(solve):
        def run(A, b):
            count = [0]

            def callback(*_):
                count[0] += 1

            x, info = solve(A, b, callback)
            if info != 0:
                raise RuntimeError(f"no convergence (info={info})")
            return count[0], x

        return run

    def eig(lib):
        def run(A, b):
            w = (L.eigsh if lib == "sparray" else sla.eigsh)(A, k=6, which="SA", tol=1e-8, return_eigenvectors=False)
            return None, w

        return run

    return [
        ("cg", counting(lambda A, b, cb: L.cg(A, b, rtol=RTOL, callback=cb)),
         counting(lambda A, b, cb: sla.cg(A, b, rtol=RTOL, callback=cb)), None),
        ("cg + Jacobi", counting(lambda A, b, cb: L.cg(A, b, rtol=RTOL, M=L.jacobi(A), callback=cb)),
         counting(lambda A, b, cb: sla.cg(A, b, rtol=RTOL, M=_jacobi_scipy(A), callback=cb)), None),
        ("minres", counting(lambda A, b, cb: L.minres(A, b, rtol=RTOL, callback=cb)),
         counting(lambda A, b, cb: sla.minres(A, b, rtol=RTOL, callback=cb)), None),
        ("bicgstab", counting(lambda A, b, cb: L.bicgstab(A, b, rtol=RTOL, callback=cb)),
         counting(lambda A, b, cb: sla.bicgstab(A, b, rtol=RTOL, callback=cb)), None),
        ("gmres(20)", counting(lambda A, b, cb: L.gmres(A, b, rtol=RTOL, restart=20, callback=cb,
                                                        callback_type="pr_norm")),
         counting(lambda A, b, cb: sla.gmres(A, b, rtol=RTOL, restart=20, callback=cb, callback_type="pr_norm")),
         max_gmres),
        ("eigsh 6 SA", eig("sparray"), eig("scipy"), max_eigsh),
    ]  # fmt: skip


def _time(fn, A, b, repeat):
    out = fn(A, b)  # untimed: compiles and loads the kernels
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        out = fn(A, b)
        times.append(time.perf_counter() - t0)
    return statistics.median(times), out


def _agree(name, x_sp, x_sc, S, b):
    """The two answers agree to the tolerance asked (residuals for solvers, values for eigsh)."""
    if hasattr(x_sp, "to_dense"):  # eigsh of a sparray A: a sparray array holding the values (the namespace rule)
        x_sp = x_sp.to_dense()
    if name.startswith("eigsh"):
        return np.allclose(np.sort(np.asarray(x_sp)), np.sort(x_sc), rtol=1e-6, atol=1e-8)
    def residual(x):
        return np.linalg.norm(b - S @ np.asarray(x)) / np.linalg.norm(b)

    # minres stops on scipy's own tests (relative to ||A|| ||x||), not on ||r|| <= rtol ||b||: the two
    # answers agree when sparray's residual is within twice scipy's (or below 10 rtol)
    return residual(x_sp) <= max(10 * RTOL, 2 * residual(x_sc))


def drift(sizes) -> None:
    """bicgstab's iteration counts with each library's SpMV and vector arithmetic swapped in turn.

    The two libraries run the same algorithm: sparray's bicgstab given scipy's product (a
    LinearOperator around the scipy CSR) and scipy's vector arithmetic (BLAS ddot; updates as NumPy
    temporaries ``y += a * x``, no fused multiply-add) reproduces scipy's iterates bit for bit. The
    counts then move with the last bits alone: scipy itself, given sparray's product (four partial
    sums per row, contracted to FMA), takes another count, as does sparray with its own long-vector
    kernels (``kernels/cpu/vector.py``: 16 slices per dot, FMA updates)."""
    import scipy.sparse.linalg as sla

    import sparray
    from sparray.interop.scipy import from_scipy
    from sparray.linalg import _iterative

    V = _iterative._Vectors
    saved = (V.__init__, V.axpy, V.aypx)

    def scipy_arithmetic(on):
        if not on:
            V.__init__, V.axpy, V.aypx = saved
            return

        def init(self, xp, dtype, n):
            saved[0](self, xp, dtype, n)
            self._vk = self._axpy = self._scal = None  # BLAS dots, ufunc updates

        def axpy(self, y, a, x):
            y += a * x

        def aypx(self, y, a, x):
            y *= a
            y += x

        V.__init__, V.axpy, V.aypx = init, axpy, aypx

    def count(solve, A, b):
        calls = []
        x, info = solve(A, b, rtol=RTOL, callback=calls.append)
        return len(calls) if info == 0 else f"info {info}", x

    print(f"bicgstab on the 2-D Poisson problem, rtol {RTOL:g}, b random: iterations")
    head = f"{'unknowns':>9} {'scipy':>6} {'scipy + sparray SpMV':>21} {'sparray':>8} {'sparray, scipy arith. + SpMV':>29} {'(x equal)':>9} {'sparray, scipy arith.':>22}"
    print(head)
    print("-" * len(head))
    rng = np.random.default_rng(0)
    for n in sizes:
        S = poisson(n)
        A = from_scipy(S)
        b = rng.standard_normal(S.shape[0])
        sc_op = sla.LinearOperator(S.shape, matvec=lambda v: S @ v, dtype=S.dtype)
        sp_op = sla.LinearOperator(S.shape, matvec=lambda v: A @ v, dtype=S.dtype)
        k_sc, x_sc = count(sla.bicgstab, sc_op, b)
        k_sc_sp, _ = count(sla.bicgstab, sp_op, b)
        k_sp, _ = count(sparray.linalg.bicgstab, A, b)
        scipy_arithmetic(True)
        try:
            k_same, x_same = count(sparray.linalg.bicgstab, sc_op, b)
            k_arith, _ = count(sparray.linalg.bicgstab, A, b)
        finally:
            scipy_arithmetic(False)
        same = "yes" if np.array_equal(x_same, x_sc) else "NO"
        print(f"{S.shape[0]:>9} {k_sc:>6} {k_sc_sp:>21} {k_sp:>8} {k_same:>29} {same:>9} {k_arith:>22}")
        sys.stdout.flush()


def main(argv=None) -> int:
    argv = sys.argv[1:] if argv is None else list(argv)
    if "--amg" in argv:  # sparray.linalg.amg beside pyamg and scipy: its own module and options
        import solvers_amg

        return solvers_amg.main([a for a in argv if a != "--amg"])
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--sizes", default=None, help="comma-separated unknowns, e.g. 1e3,1e4")
    ap.add_argument("--only", default=None, help="run the methods whose name contains this")
    ap.add_argument("--drift", action="store_true", help="bicgstab's iterations with each library's SpMV and vector arithmetic")
    args = ap.parse_args(argv)
    sizes = [int(float(s)) for s in args.sizes.split(",")] if args.sizes else list(SIZES)
    warnings.filterwarnings("ignore")
    if args.drift:
        drift(sizes if args.sizes else [1_000, 10_000, 100_000])
        return 0

    import scipy

    import sparray
    from cases_linalg import triad_bandwidth
    from sparray.interop.scipy import from_scipy

    try:
        import numba

        threads = numba.get_num_threads()
    except ImportError:
        threads = os.cpu_count() or 1
    triad = triad_bandwidth(threads)
    print(f"sparray {sparray.__version__}, scipy {scipy.__version__}, numpy {np.__version__}, {threads} threads; "
          f"STREAM triad {triad / 1e9:.1f} GB/s; rtol {RTOL:g}, b random, x0 = 0")  # fmt: skip
    head = f"{'method':<12} {'unknowns':>9} {'iters sparray/scipy':>20} {'sparray ms':>11} {'scipy ms':>10} {'ratio':>7}  ok  triad"
    print(head)
    print("-" * len(head))
    rng = np.random.default_rng(0)
    for n in sizes:
        S = poisson(n)
        A = from_scipy(S)
        b = rng.standard_normal(S.shape[0])
        repeat = 1 if S.shape[0] >= 500_000 else (3 if S.shape[0] >= 50_000 else 7)
        for name, ours, theirs, largest in methods():
            if args.only and args.only not in name:
                continue
            if largest is not None and S.shape[0] > largest * 1.01:
                continue
            t_sp, (it_sp, x_sp) = _time(ours, A, b, repeat)
            t_sc, (it_sc, x_sc) = _time(theirs, S, b, repeat)
            ok = "yes" if _agree(name, x_sp, x_sc, S, b) else "NO"
            its = "" if it_sp is None else f"{it_sp}/{it_sc}"
            frac = ""
            if name == "cg" and it_sp and S.shape[0] >= 100_000:
                per_iter_bytes = 12 * S.nnz + 4 * S.shape[0] + 80 * S.shape[0]
                frac = f"{per_iter_bytes * it_sp / t_sp / triad:.2f}"
            print(f"{name:<12} {S.shape[0]:>9} {its:>20} {t_sp * 1e3:>11.2f} {t_sc * 1e3:>10.2f} "
                  f"{t_sc / t_sp:>6.2f}x  {ok:<3} {frac}")  # fmt: skip
            sys.stdout.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main())
