"""What a GPU call costs on the host, measured without a GPU: the simulated CUDA device.

For each public operation on a CSR (and the other layouts), on the simulated device
(``A.to_device("simulated")``: NumPy buffers behaving as CuPy arrays, kernels in the host emulator):

- **syncs**: transfers to the host, each a wait for the device on a real GPU, on a fresh array's
  first call (``first``) and on a repeated call (``again``): what the array has proven once
  (valid indices, a zero fill, its longest row) it does not ask again;
- **launches**: kernels launched by one call;
- **host us**: the call's time with its launches recorded but not run
  (``counting(record_only=True)``), median of repeats: the Python around the kernels. On a GPU
  the kernels run asynchronously behind this time, so it is the call's cost when it is the larger.

Run: ``python benchmarks/device_host_path.py`` (``--sites`` lists where each sync is asked for,
``--nnz N`` sets the matrix size: the host path does not grow with it, the buffers' allocations do).
"""

from __future__ import annotations

import argparse
import statistics
import time
import warnings

import numpy as np

import sparray as sp
from sparray.kernels.cuda import simulated as sim


def _matrix(n, nnz, layout, fill, rng):
    density = nnz / (n * n)
    dense = np.where(rng.random((n, n)) < density, rng.standard_normal((n, n)), fill)
    kw = {"blocksize": (2, 2)} if layout in ("bsr", "bsc") else {}
    return dense, sp.asarray(dense, layout=layout, fill_value=fill, **kw)


#: name -> (op on (A, B same pattern, C another pattern, x, X, D dense sample operands), layouts)
OPS = {
    "A @ x": (lambda A, B, C, x, X: A @ x, ("csr", "csc", "bsr", "bsc", "coo", "csr/skew")),
    "A @ X (8 columns)": (lambda A, B, C, x, X: A @ X, ("csr", "csc", "bsr")),
    "sampled_addmm": (lambda A, B, C, x, X: sp.sampled_addmm(A, X, X.mT), ("csr",)),
    "sum(A, axis=0)": (lambda A, B, C, x, X: sp.sum(A, axis=0), ("csr", "csc", "bsr", "coo")),
    "sum(A, axis=1)": (lambda A, B, C, x, X: sp.sum(A, axis=1), ("csr", "csc", "bsr", "coo")),
    "max(A, axis=0)": (lambda A, B, C, x, X: sp.max(A, axis=0), ("csr", "csc")),
    "max(A, axis=1)": (lambda A, B, C, x, X: sp.max(A, axis=1), ("csr", "csc")),
    "sum(A)": (lambda A, B, C, x, X: sp.sum(A), ("csr",)),
    "A * 2 + 1": (lambda A, B, C, x, X: A * 2.0 + 1.0, ("csr", "coo")),
    "A + B (one pattern)": (lambda A, B, C, x, X: A + B, ("csr", "csc", "bsr", "coo")),
    "A + C (two patterns)": (lambda A, B, C, x, X: A + C, ("csr", "csc", "coo")),
    "A @ C (SpGEMM)": (lambda A, B, C, x, X: A @ C, ("csr",)),
    "to_layout('csc')": (lambda A, B, C, x, X: A.to_layout("csc"), ("csr",)),
    "to_layout('csr')": (lambda A, B, C, x, X: A.to_layout("csr"), ("csc", "coo")),
    "coalesce": (lambda A, B, C, x, X: A.coalesce(), ("coo",)),
}  # fmt: skip


def _skewed(nnz, rng):
    """A CSR of ``nnz`` random entries plus one full row of 2000: rows skewed enough for the
    merge-path SpMV (a longest row over 1024 entries and 16 times the mean)."""
    n = 2000
    dense = np.zeros((n, n))
    dense[rng.integers(0, n, nnz), rng.integers(0, n, nnz)] = rng.standard_normal(nnz)
    dense[7] = rng.standard_normal(n)
    return dense, sp.asarray(dense, layout="csr")


def _operands(layout, n, nnz, fill, seed):
    rng = np.random.default_rng(seed)
    if layout == "csr/skew":
        (_, A), (_, C) = _skewed(nnz, rng), _skewed(nnz, rng)
        n = A.shape[0]
    else:
        _, A = _matrix(n, nnz, layout, fill, rng)
        _, C = _matrix(n, nnz, layout, fill, rng)
    A, C = A.to_device("simulated"), C.to_device("simulated")
    B = A * 2.0  # same pattern, new values
    x = sim.to_simulated(rng.standard_normal(n))
    X = sim.to_simulated(rng.standard_normal((n, 8)))
    return A, B, C, x, X


def measure(op, layout, *, n=100, nnz=1000, fill=0.0, repeats=30):
    """(syncs on a fresh array's first call, syncs again, launches, host us, whether the launches
    were only recorded, sync sites)."""
    fn, _ = OPS[op]
    with sim.counting() as first:
        fn(*_operands(layout, n, nnz, fill, 1))
    # the operand builders' own syncs are not the op's: count the op alone on fresh operands
    args = _operands(layout, n, nnz, fill, 1)
    with sim.counting() as first:
        fn(*args)
    with sim.counting() as again:
        fn(*args)
    times = []
    try:
        for _ in range(repeats):
            with sim.counting(record_only=True):
                t = time.perf_counter()
                fn(*args)
                times.append(time.perf_counter() - t)
        recorded = True
    except (ValueError, MemoryError, IndexError):
        # a size read back from a kernel that did not run is garbage: such an op (its output sized
        # by the data) is timed with its kernels run in the emulator, an upper bound of its host path
        recorded, times = False, []
        for _ in range(max(3, repeats // 10)):
            t = time.perf_counter()
            fn(*args)
            times.append(time.perf_counter() - t)
    return first.syncs, again.syncs, len(again.launches), statistics.median(times) * 1e6, recorded, again.sites


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sites", action="store_true", help="list where each sync of a repeated call is asked for")
    parser.add_argument("--nnz", type=int, default=1000, help="stored elements of the matrix (default 1000)")
    parser.add_argument("--repeats", type=int, default=30)
    args = parser.parse_args(argv)
    warnings.simplefilter("ignore")
    n = max(10, int(round((args.nnz * 10) ** 0.5)))  # about 10% dense
    print(f"simulated CUDA device, {args.nnz} stored elements ({n} x {n}), fill 0; host us: launches recorded, not run")
    print("(csr/skew: 2000 x 2000, one full row beside the entries: the merge-path SpMV)")
    print(f"{'operation':24} {'layout':8} {'syncs first':>11} {'again':>6} {'launches':>8} {'host us':>8}")
    for op, (_, layouts) in OPS.items():
        for layout in layouts:
            s1, s2, nl, us, recorded, sites = measure(op, layout, n=n, nnz=args.nnz, repeats=args.repeats)
            print(f"{op:24} {layout:8} {s1:>11} {s2:>6} {nl:>8} {us:>8.1f}" + ("" if recorded else " (kernels run: sized by data)"))
            if args.sites and sites:
                for site in sites:
                    print(f"{'':32}{site}")


if __name__ == "__main__":
    main()
