#!/usr/bin/env python
"""Where a kernel of the lean paths stops running on one thread: serial against parallel, measured.

    python benchmarks/crossover.py               # every kernel, 2**10 ... 2**22 entries
    python benchmarks/crossover.py --only union  # one kernel

Each ``*_into`` entry of ``sparray.kernels.cpu`` (the lean paths' kernels) takes ``serial=True`` or
``serial=False``; this script times both on random square CSR matrices with 10 entries per row
(float64, int32 indices), in one warm process, the two alternating per round (median of the
rounds, each round a batch of calls lasting about 2 ms), and prints per size the ratio
serial / parallel and, per kernel, the first size from which the parallel run stays faster: the
crossover its constant in the kernel module should sit at (``SERIAL_WORK`` and friends).
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time

import numpy as np

os.environ.setdefault("SPARRAY_JIT", "eager")
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.path.append(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

import matrices  # noqa: E402

PER_ROW = 10


def _csr(nse, seed):
    import scipy.sparse as sp

    n = max(2, nse // PER_ROW)
    row, col, val, shape = matrices.uniform_random(n, n, nse, seed=seed, unique=True, sort=True)
    S = sp.csr_array((val, (row, col)), shape=shape)
    return S.indptr.astype(np.int32), S.indices.astype(np.int32), S.data, n


def _cases():
    """(name, work(nse, n), make(nse) -> (serial_call, parallel_call), the constant it sets)."""
    from sparray.kernels.cpu import binary_rows, compress, group_reduce, scatter, spmm

    def spmv(ncols):
        def make(nse):
            ptr, idx, val, n = _csr(nse, 1)
            x = np.random.default_rng(2).standard_normal((n, ncols))
            y = np.empty((n, ncols))
            return (lambda: spmm.csr_matmul_into(ptr, idx, val, x, y, serial=True),
                    lambda: spmm.csr_matmul_into(ptr, idx, val, x, y, serial=False))
        return make

    def sums(nse):
        ptr, _, val, _ = _csr(nse, 1)
        return (lambda: group_reduce.sum_runs_into(ptr, val, serial=True),
                lambda: group_reduce.sum_runs_into(ptr, val, serial=False))

    def column_sums(nse):
        ptr, idx, val, n = _csr(nse, 1)
        present = np.flatnonzero(np.bincount(idx, minlength=n))
        return (lambda: scatter.sum_by_key_into(idx, val, n),
                lambda: scatter.scatter_sum(idx, val.reshape(-1, 1), n).reshape(n)[present])

    def union(nse):
        pa, ma, va, n = _csr(nse // 2, 1)
        pb, mb, vb, _ = _csr(nse // 2, 2)
        z = np.zeros((), va.dtype)
        return (lambda: binary_rows.union_into(pa, ma, va, z, pb, mb, vb, z, "add", serial=True),
                lambda: binary_rows.union_into(pa, ma, va, z, pb, mb, vb, z, "add", serial=False))

    def transpose(nse):
        ptr, idx, val, n = _csr(nse, 1)
        return (lambda: compress.transpose_into(ptr, idx, val, n, serial=True),
                lambda: compress.transpose_into(ptr, idx, val, n, serial=False))

    def to_dense(nse):
        ptr, idx, val, n = _csr(nse, 1)
        z = np.zeros(())
        return (lambda: compress.to_dense_into(ptr, idx, val, z, (n, n), True, serial=True),
                lambda: compress.to_dense_into(ptr, idx, val, z, (n, n), True, serial=False))

    def coo(nse):
        ptr, idx, val, n = _csr(nse, 1)
        rows = np.repeat(np.arange(n, dtype=np.int64), np.diff(ptr))
        order = np.random.default_rng(3).permutation(rows.shape[0])
        r, c, v = rows[order], idx[order].astype(np.int64), val[order]
        return (lambda: compress.coo_to_csr_into(r, c, v, n, n, np.int32, serial=True),
                lambda: compress.coo_to_csr_into(r, c, v, n, n, np.int32, serial=False))

    return [
        ("SpMV (csr_matmul_into, N=1)", spmv(1), "kernels/cpu/_common.py: SERIAL_WORK (entries + rows)"),
        ("SpMM 8 columns (csr_matmul_into)", spmv(8), "SERIAL_WORK ((entries + rows) x columns)"),
        ("row sums (sum_runs_into)", sums, "SERIAL_WORK (entries + rows)"),
        ("column sums (sum_by_key_into | scatter_sum)", column_sums, "sparray/_products/lean.py: MAJOR_SUM_SERIAL_MAX (entries + columns)"),
        ("A + B (union_into)", union, "binary_rows.UNION_SERIAL_WORK (entries of A and B)"),
        ("CSR -> CSC (transpose_into)", transpose, "compress.TRANSPOSE_SERIAL_WORK (entries + rows + columns)"),
        ("CSR -> dense (to_dense_into)", to_dense, "compress.DENSE_SERIAL_WORK counts dense elements: 2**12 entries are 2**17 elements"),
        ("COO -> CSR (coo_to_csr_into)", coo, "SERIAL_WORK (entries + rows)"),
    ]


def _time_pair(serial, parallel, rounds=15, batch_s=0.002):
    serial(), parallel()
    per = {}
    for name, f in (("s", serial), ("p", parallel)):
        t0 = time.perf_counter()
        f()
        per[name] = max(1, int(batch_s / max(time.perf_counter() - t0, 1e-7)))
    ts = {"s": [], "p": []}
    for _ in range(rounds):
        for name, f in (("s", serial), ("p", parallel)):
            t0 = time.perf_counter()
            for _ in range(per[name]):
                f()
            ts[name].append((time.perf_counter() - t0) / per[name])
    return statistics.median(ts["s"]), statistics.median(ts["p"])


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--only", default=None, help="kernels whose name contains this")
    ap.add_argument("--max-log2", type=int, default=22, help="largest size: 2**this entries")
    args = ap.parse_args(argv)
    import numba

    print(f"# {numba.get_num_threads()} threads; time serial / time parallel per size (above 1: parallel faster)")
    sizes = [1 << k for k in range(10, args.max_log2 + 1)]
    for name, make, constant in _cases():
        if args.only and args.only.lower() not in name.lower():
            continue
        ratios = []
        for nse in sizes:
            s, p = _time_pair(*make(nse))
            ratios.append(s / p)
            print(f"  {name:<36} 2**{nse.bit_length() - 1:<2} {s * 1e6:9.1f} us serial {p * 1e6:9.1f} us parallel  {s / p:5.2f}", flush=True)
        cross = next((sizes[i] for i in range(len(sizes)) if all(r > 1.0 for r in ratios[i:])), None)
        print(f"{name}: parallel faster from 2**{cross.bit_length() - 1} entries on ({constant})\n" if cross
              else f"{name}: serial never lost\n", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
