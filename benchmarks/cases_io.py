"""Benchmark rows for Matrix Market IO: ``mmread`` (both engines) and ``mmwrite``, against scipy.io.

Imported by ``bench.py`` (``build_cases``). The file is the ``uniform`` matrix (1e7 entries at
scale 1, real general coordinate, values written with the shortest round-trip repr), written once
per size into ``$TMPDIR/sparray_bench_mm/`` and reused by later runs. pydata ``sparse`` and torch
have no Matrix Market reader (n/a).
"""

from __future__ import annotations

import os
import tempfile

import numpy as np

CACHE_DIR = os.path.join(tempfile.gettempdir(), "sparray_bench_mm")


def _file(m) -> str:
    """Path of the Matrix Market file of matrix ``m`` (written on first use)."""
    row, col, val, shape = m
    path = os.path.join(CACHE_DIR, f"uniform_{shape[0]}x{shape[1]}_{len(row)}.mtx")
    if not os.path.exists(path):
        import sparray
        from sparray.io import mmwrite

        os.makedirs(CACHE_DIR, exist_ok=True)
        tmp = path + f".{os.getpid()}.tmp"
        mmwrite(tmp, sparray.COO(np.stack([row, col]), val, shape))
        os.replace(tmp, path)
    return path


def _read_setup(b):
    def setup(libname, mats):
        if libname not in ("sparray", "scipy"):
            raise b.NotAvailable(f"{libname} has no Matrix Market reader")
        b.lib(libname)
        return (_file(mats[0]),)

    return setup


def _write_setup(b):
    def setup(libname, mats):
        row, col, val, shape = mats[0]
        out = os.path.join(CACHE_DIR, f"out_{libname}_{os.getpid()}.mtx")
        os.makedirs(CACHE_DIR, exist_ok=True)
        if libname == "sparray":
            A = b.lib("sparray").COO(np.stack([row, col]), val, shape).coalesce()
            return (out, A)
        if libname == "scipy":
            b.lib("scipy")
            import scipy.sparse as sp

            return (out, sp.coo_array((val, (row, col)), shape=shape))
        raise b.NotAvailable(f"{libname} has no Matrix Market writer")

    return setup


def _sparray_read(engine):
    def f(path):
        from sparray.io import mmread

        return mmread(path, engine=engine)

    return f


def _scipy_read(path):
    import scipy.io

    return scipy.io.mmread(path)


def _sparray_write(path, A):
    from sparray.io import mmwrite

    mmwrite(path, A)


def _scipy_write(path, A):
    import scipy.io

    scipy.io.mmwrite(path, A, symmetry="general")


class _B:
    lib = None
    NotAvailable = Exception


def io_cases(Case, lib, not_available):
    _B.lib, _B.NotAvailable = staticmethod(lib), not_available
    cases = []
    for engine in ("fmm", "sparray"):
        cases.append(Case(
            f"mmread engine={engine}", "uniform", _read_setup(_B),
            {"sparray": _sparray_read(engine), "scipy": _scipy_read},
            note=f"read a real general coordinate file (values at repr precision) into a COO: "
                 f"sparray.io.mmread(path, engine={engine!r}) vs scipy.io.mmread (a coo_array; it "
                 f"uses fast_matrix_market too); the file is written once and cached in {CACHE_DIR}"))
    cases.append(Case(
        "mmwrite", "uniform", _write_setup(_B),
        {"sparray": _sparray_write, "scipy": _scipy_write},
        note="write a coalesced 1e7-entry COO / coo_array to a .mtx file: sparray.io.mmwrite "
             "(fast_matrix_market body when installed) vs scipy.io.mmwrite(symmetry='general')"))
    return cases
