"""Benchmark rows for indexing: picking rows of a CSR matrix ("row pick ..." cases).

Imported by ``bench.py`` (``build_cases``). Every library gets the Poisson matrix as its CSR with
int32 indices (``cases_linalg._csr``; pydata's GCXS) and the same row picks:

- ``row pick A[::2]``: every other row (a stepped slice);
- ``row pick A[idx]``: 1e5 rows drawn at random with repeats (a fixed seed), in that order.

torch has neither: its sparse CSR tensors take no stepped slice, and ``index_select`` is not
implemented for them (torch 2.13: "Could not run 'aten::index_select' ... 'SparseCsrCPU'").
"""

from __future__ import annotations

import numpy as np

from cases_linalg import _csr

PICKED_ROWS = 100_000


def _rows_input(libname, mats):
    (m,) = mats
    A = _csr(libname, m)
    idx = np.random.default_rng(11).integers(0, m[3][0], PICKED_ROWS)
    return (A, idx)


def every_other_row(A, idx):
    return A[::2]


def picked_rows(A, idx):
    return A[idx]


def indexing_cases(Case, lib, not_available):
    from cases_linalg import _Bench

    _Bench.lib, _Bench.NotAvailable = staticmethod(lib), not_available
    return [
        Case("row pick A[::2]", "poisson", _rows_input,
             {"sparray": every_other_row, "scipy": every_other_row, "sparse": every_other_row},
             check="compressed", note="every other row of a CSR (int32 indices); pydata GCXS"),
        Case("row pick A[idx]", "poisson", _rows_input,
             {"sparray": picked_rows, "scipy": picked_rows, "sparse": picked_rows},
             check="compressed", note=f"{PICKED_ROWS} random rows (repeats, any order) of a CSR: A[idx]; pydata GCXS"),
    ]
