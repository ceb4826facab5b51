"""Smoke tests for benchmarks/: matrix generators at tiny sizes and one quick bench.py run."""

from __future__ import annotations

import gc
import importlib.util
import json
import mmap
import os
import subprocess
import sys

import numpy as np
import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BENCH_DIR = os.path.join(ROOT, "benchmarks")


def _load(name):
    spec = importlib.util.spec_from_file_location(f"_bench_{name}", os.path.join(BENCH_DIR, f"{name}.py"))
    mod = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = mod  # dataclasses look the module up
    spec.loader.exec_module(mod)
    return mod


matrices = _load("matrices")


def _sparray_importable() -> bool:
    try:
        import sparray

        sparray.COO  # noqa: B018
    except Exception:  # noqa: BLE001
        return False
    return True


def _sparray_has_csr() -> bool:
    try:
        import sparray

        sparray.CSR  # noqa: B018
        sparray.COO.to_layout  # noqa: B018
    except Exception:  # noqa: BLE001
        return False
    return True


def _check_arrays(row, col, val, shape, nse=None):
    assert row.dtype == np.int64 and col.dtype == np.int64 and val.dtype == np.float64
    assert row.ndim == col.ndim == val.ndim == 1
    assert row.shape == col.shape == val.shape
    assert isinstance(shape, tuple) and len(shape) == 2
    if nse is not None:
        assert row.size == nse
    if row.size:
        assert 0 <= row.min() and row.max() < shape[0]
        assert 0 <= col.min() and col.max() < shape[1]


@pytest.mark.parametrize("n", [1, 2, 3, 7])
def test_poisson2d_structure(n):
    row, col, val, shape = matrices.poisson2d(n)
    N = n * n
    assert shape == (N, N)
    _check_arrays(row, col, val, shape, nse=5 * n * n - 4 * n)
    lin = row * N + col
    assert np.all(np.diff(lin) > 0)  # sorted, no duplicates
    dense = np.zeros(shape)
    dense[row, col] = val
    assert np.array_equal(dense, dense.T)  # symmetric pattern and values
    assert np.all(np.diag(dense) == 4.0)
    off = dense - np.diag(np.diag(dense))
    assert set(np.unique(off[off != 0])) <= {-1.0}
    counts = np.bincount(row, minlength=N)
    sums = dense.sum(axis=1)
    i, j = np.divmod(np.arange(N), n)
    interior = (i > 0) & (i < n - 1) & (j > 0) & (j < n - 1)
    assert np.all(counts[interior] == 5)
    assert np.all(sums[interior] == 0.0)
    # boundary rows: fewer neighbours, positive row sum 4 - neighbours
    assert np.all(sums[~interior] == 4.0 - (counts[~interior] - 1))
    # neighbours are grid neighbours
    ri, rj = np.divmod(row, n)
    ci, cj = np.divmod(col, n)
    assert np.all(np.abs(ri - ci) + np.abs(rj - cj) <= 1)


def test_uniform_random_unique_sorted():
    row, col, val, shape = matrices.uniform_random(50, 40, 1500, seed=5)
    assert shape == (50, 40)
    _check_arrays(row, col, val, shape, nse=1500)
    lin = row * 40 + col
    assert np.all(np.diff(lin) > 0)  # sorted and distinct
    assert np.all((val >= 0.5) & (val < 1.5))
    again = matrices.uniform_random(50, 40, 1500, seed=5)
    assert all(np.array_equal(a, b) for a, b in zip((row, col, val), again[:3]))
    other = matrices.uniform_random(50, 40, 1500, seed=6)
    assert not np.array_equal(row * 40 + col, other[0] * 40 + other[1])


def test_uniform_random_options():
    row, col, val, shape = matrices.uniform_random(30, 30, 800, seed=1, unique=True, sort=False)
    _check_arrays(row, col, val, shape, nse=800)
    lin = row * 30 + col
    assert np.unique(lin).size == 800
    assert not np.all(np.diff(lin) > 0)  # random order
    row, col, val, shape = matrices.uniform_random(10, 10, 500, seed=1, unique=False, sort=False)
    _check_arrays(row, col, val, shape, nse=500)
    assert matrices.duplicate_fraction(row, col, shape) > 0.5  # 500 draws in 100 cells
    with pytest.raises(ValueError):
        matrices.uniform_random(3, 3, 10, unique=True)


def test_rmat_structure():
    row, col, val, shape = matrices.rmat(scale=8, nse=5000, seed=3)
    assert shape == (256, 256)
    _check_arrays(row, col, val, shape, nse=5000)
    dup = matrices.duplicate_fraction(row, col, shape)
    assert 0.0 < dup < 1.0
    # power law skew: with a = 0.57 the top-left quadrant gets about 57% of the edges
    top_left = np.mean((row < 128) & (col < 128))
    assert 0.5 < top_left < 0.64
    # random order (not sorted)
    assert not np.all(np.diff(row * 256 + col) >= 0)
    again = matrices.rmat(scale=8, nse=5000, seed=3)
    assert np.array_equal(row, again[0]) and np.array_equal(col, again[1])


NOMINAL_NSE = {"poisson1m": 5e6, "random5e5": 5e5}  # every other matrix: about 1e7


@pytest.mark.parametrize("name", matrices.MATRIX_NAMES)
def test_named_matrices_tiny(name):
    row, col, val, shape = matrices.get(name, scale=1e-4)
    _check_arrays(row, col, val, shape)
    expected = NOMINAL_NSE.get(name, 1e7) * 1e-4
    assert 0.5 * expected <= row.size <= 2 * expected


def test_duplicate_fraction():
    row = np.array([0, 0, 1, 0], dtype=np.int64)
    col = np.array([1, 1, 1, 2], dtype=np.int64)
    assert matrices.duplicate_fraction(row, col, (2, 3)) == pytest.approx(0.25)
    assert matrices.duplicate_fraction(row[:0], col[:0], (2, 3)) == 0.0


def test_bench_cells_report_errors_without_stopping(monkeypatch):
    bench = _load("bench")

    def boom(*args):
        raise ZeroDivisionError("nope")

    m = matrices.get("poisson", scale=1e-4)
    case = bench.Case("boom", "poisson", lambda lib, mats: (1,), {"scipy": boom, "numpy": None})
    cell = bench.run_cell(case, "scipy", [m], 1, 10.0, {}, {})
    assert cell.status == "err" and "ZeroDivisionError" in cell.error
    monkeypatch.setitem(bench.LIB_MODULES, "torch", "no_such_module_for_sparray_bench")
    case = bench.Case("ok", "poisson", lambda lib, mats: (2,), {"torch": lambda x: x})
    cell = bench.run_cell(case, "torch", [m], 1, 10.0, {}, {})
    assert cell.status == "n/a"
    case = bench.Case("ok", "poisson", lambda lib, mats: (2,), {"scipy": lambda x: x + 1})
    cell = bench.run_cell(case, "scipy", [m], 3, 10.0, {}, {})
    assert cell.status == "ok" and cell.n == 3 and cell.time >= 0
    notes = bench.Notes()
    assert bench.cell_text(bench.Cell(status="err", error="X: y"), "sparray", case, notes) == "err[1]"
    assert bench.ratio_text(bench.Cell(time=2.0), bench.Cell(time=1.0)) == "2.00x"



def test_bench_runs_alternate_between_libraries():
    """The timed runs go one library at a time per round (warm-ups and probes first), each cell
    gets its own count of runs, and a run that fails marks only its own cell."""
    bench = _load("bench")
    calls = []

    def rec(name, fail_at=None):
        def f(x):
            calls.append(name)
            if fail_at is not None and calls.count(name) == fail_at:
                raise RuntimeError("spell")
            return x
        return f

    m = matrices.get("poisson", scale=1e-4)
    case = bench.Case("alt", "poisson", lambda lib, mats: (1,),
                      {"scipy": rec("scipy"), "sparray": rec("sparray"), "torch": rec("torch", fail_at=3)})
    cells, runs = {}, {}
    for lib in ("scipy", "sparray", "torch"):
        cells[lib], r = bench.prepare_cell(case, lib, [m], 4, 10.0, {}, {})
        runs[lib] = r
    assert calls == ["scipy", "sparray", "torch"]  # the warm-ups
    triads = []
    bench.run_rounds(cells, runs, lambda: triads.append(len(calls)))
    assert calls[3:9] == ["scipy", "sparray", "torch", "scipy", "sparray", "torch"]
    assert calls[9:] == ["scipy", "sparray"] * 2  # torch failed in its second timed run
    assert len(triads) == 4  # one per round
    assert cells["scipy"].n == cells["sparray"].n == 4 and cells["scipy"].status == "ok"
    assert cells["torch"].status == "err" and "spell" in cells["torch"].error


def _touch_fresh_pages(nbytes, while_held=lambda: None):
    """Map ``nbytes`` of new anonymous memory, write one byte per page, return ``while_held()``
    called before the pages are unmapped. Unlike a NumPy array, no free heap memory that is
    already resident can stand in for these pages, so the resident size grows by ``nbytes``."""
    with mmap.mmap(-1, nbytes) as pages:
        for offset in range(0, nbytes, mmap.PAGESIZE):
            pages[offset] = 1
        return while_held()


def test_bench_warms_each_runs_memory(monkeypatch):
    """Before every timed run (not the warm-up) the harness touches as many bytes as the warm-up
    needed at its peak, so no library allocates pages the host took back (warm_memory.py)."""
    bench = _load("bench")
    warm_memory = sys.modules["warm_memory"]
    touched = []
    monkeypatch.setattr(warm_memory, "warm", lambda nbytes: touched.append(nbytes))
    size = 48 << 20

    def alloc(x):
        _touch_fresh_pages(size)
        return float(x)

    m = matrices.get("poisson", scale=1e-4)
    case = bench.Case("mem", "poisson", lambda lib, mats: (1,), {"scipy": alloc})
    cells, r = {}, None
    cells["scipy"], r = bench.prepare_cell(case, "scipy", [m], 3, 10.0, {}, {})
    assert touched == []  # nothing before the warm-up
    bench.run_rounds(cells, {"scipy": r})
    assert touched == [r.footprint] * 3 and cells["scipy"].n == 3
    if warm_memory.reset_peak() is not None:  # Linux: the peak is measured
        assert size <= r.footprint <= bench._MAX_FOOTPRINT
    else:
        assert r.footprint == bench._DEFAULT_FOOTPRINT


def test_warm_memory_measures_a_peak():
    _load("bench")
    warm_memory = sys.modules["warm_memory"]
    # The peak is measured above the resident size at the reset, so nothing may be freed in
    # between. CI once read a peak of 0 here after a 32 MB np.ones: memory freed meanwhile (a
    # garbage collection of an earlier test's buffers, set off by the allocation) or heap pages
    # already resident can hide the new array. Collect first, and write fresh anonymous pages.
    gc.collect()
    base = warm_memory.reset_peak()
    if base is None:
        pytest.skip("the kernel does not report peak resident memory")
    size = 32 << 20
    peak = _touch_fresh_pages(size, lambda: warm_memory.peak_above(base))
    assert peak >= size
    warm_memory.warm(8 << 20)  # runs, returns nothing
    warm_memory.warm(0)


def test_warm_memory_writes_every_page_from_the_threads():
    """The parallel page writer marks the same bytes as ``buf[::page] = 1``, a last partial page
    included."""
    _load("bench")
    touch = sys.modules["warm_memory"]._parallel_touch()
    if touch is None:
        pytest.skip("numba is not installed (warm() writes the pages from one thread)")
    for n in (1, 4096, 4097, 10_000, 3 * 4096):
        got, want = np.zeros(n, np.uint8), np.zeros(n, np.uint8)
        touch(got, 4096)
        want[::4096] = 1
        assert np.array_equal(got, want), n


def test_host_cores_reads_the_cores_the_threads_got():
    """One thread is one core by definition; on several threads the reading is a positive ratio of
    times (its value depends on the host: about 2 on two free cores, about 1 on one shared)."""
    _load("bench")
    host_cores = sys.modules["host_cores"]
    assert host_cores.effective_cores(1) == 1.0
    import numba

    before = numba.get_num_threads()
    cores = host_cores.effective_cores(2, iters=20_000, repeat=1)
    assert 0.0 < cores < 64.0
    assert numba.get_num_threads() == before  # the thread count is restored


def test_bench_cores_column():
    bench = _load("bench")
    assert bench.cores_text(None, 1) == "-"
    assert bench.cores_text(1.97, 2) == "1.97"
    assert bench.cores_text(1.61, 2) == "1.61"
    assert bench.cores_text(1.59, 2) == "1.59!"
    assert bench.cores_text(0.64, 2) == "0.64!"
    host_cores = sys.modules["host_cores"]
    assert not host_cores.short(None, 2) and not host_cores.short(1.6, 2) and host_cores.short(1.59, 2)


@pytest.mark.skipif(not _sparray_importable(), reason="sparray (sparray.COO) is not importable")
def test_bench_quick_run():
    cmd = [sys.executable, os.path.join(BENCH_DIR, "bench.py"), "--quick", "--scale", "0.001",
           "--repeat", "1", "--only", "sum(axis=1) poisson", "--no-first-call"]
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=120, cwd=ROOT)
    assert p.returncode == 0, p.stdout[-2000:] + p.stderr[-2000:]
    out = p.stdout
    assert "load average at start" in out and "load average at end" in out
    lines = [ln for ln in out.splitlines() if ln.startswith("| ")]
    assert lines and lines[0].startswith("| case")
    assert any("sum(axis=1)" in ln and "poisson" in ln for ln in lines[1:])


def test_bench_lists_required_cases():
    p = subprocess.run([sys.executable, os.path.join(BENCH_DIR, "bench.py"), "--list"],
                       capture_output=True, text=True, timeout=60, cwd=ROOT)
    assert p.returncode == 0, p.stderr
    for label in ("coalesce rmat", "A + B uniform+uniform_b", "A + B rmat+rmat_t", "A + B (CSR) rmat+rmat_t",
                  "max(axis=1) rmat", "max(axis=0) (CSR) poisson", "sum(axis=0) uniform",
                  "sum(axis=1) rmat", "sum(axis=0) poisson", "first call",
                  "COO->CSR uniform", "COO->CSR rmat", "COO->CSR poisson",
                  "CSR->CSC uniform", "CSR->CSC rmat", "CSR->CSC poisson",
                  "transpose CSR poisson", "dense->CSR dense10"):
        assert label in p.stdout


def test_dense10_matrix():
    row, col, val, shape = matrices.get("dense10", scale=1e-3)
    _check_arrays(row, col, val, shape)
    n = shape[0]
    assert shape == (n, n) and n >= 100 and row.size == round(0.1 * n * n)
    assert np.all(np.diff(row * n + col) > 0)  # sorted, distinct
    D = matrices.to_dense(row, col, val, shape)
    assert D.dtype == np.float64 and D.flags.c_contiguous
    assert np.count_nonzero(D) == row.size and np.array_equal(D[row, col], val)
    assert matrices.get("dense10", scale=1.0)[3] == (5000, 5000)


def test_bench_fmt_time_resolution():
    bench = _load("bench")
    assert bench.fmt_time(2.5) == "2.50 s"
    assert bench.fmt_time(0.0123) == "12.3 ms"
    assert bench.fmt_time(250e-6) == "250 us"
    assert bench.fmt_time(12.4e-6) == "12 us"
    assert bench.fmt_time(3.2e-6) == "3.2 us"
    assert bench.fmt_time(420e-9) == "420 ns"


def test_bench_compressed_check_and_number():
    bench = _load("bench")
    sp = pytest.importorskip("scipy.sparse")
    D = np.array([[0.0, 1.0, 2.0], [3.0, 0.0, 0.0]])
    A = sp.csr_array(D)
    ref = bench.compressed("scipy", A)
    assert ref[0] == "csr" and ref[1] == (2, 3)
    assert bench.compare_compressed(bench.compressed("scipy", sp.csr_array(D)), ref) is None
    assert "layout" in bench.compare_compressed(bench.compressed("scipy", A.T.T.tocsc()), ref)
    assert "values" in bench.compare_compressed(bench.compressed("scipy", sp.csr_array(2 * D)), ref)
    assert "pointer" in bench.compare_compressed(bench.compressed("scipy", sp.csr_array(D[::-1])), ref)
    B = sp.csr_array((A.data[[1, 0, 2]], A.indices[[1, 0, 2]], A.indptr), shape=A.shape)
    assert "not sorted" in bench.compare_compressed(bench.compressed("scipy", B), ref)
    t = bench.compressed("scipy", A.T)  # an O(1) csc_array view
    assert t[0] == "csc" and t[1] == (3, 2)
    calls = []
    case = bench.Case("n", "poisson", lambda lib, mats: (1,),
                      {"scipy": lambda x: calls.append(x)}, number=7)
    cell = bench.run_cell(case, "scipy", [matrices.get("poisson", 1e-4)], 2, 10.0, {}, {})
    assert cell.status == "ok" and cell.n == 2 and cell.number == 7
    assert len(calls) == 1 + 2 + 2 * 7  # warm-up, two probes, 2 runs of 7 calls


def _table_rows(out):
    lines = [ln for ln in out.splitlines() if ln.startswith("| ")]
    assert lines and lines[0].startswith("| case")
    return [[c.strip() for c in ln.strip().strip("|").split("|")] for ln in lines[1:]]


def _quick(only):
    cmd = [sys.executable, os.path.join(BENCH_DIR, "bench.py"), "--quick", "--scale", "0.001",
           "--repeat", "1", "--only", only, "--no-first-call"]
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=180, cwd=ROOT)
    assert p.returncode == 0, p.stdout[-2000:] + p.stderr[-2000:]
    return p.stdout


@pytest.mark.skipif(not _sparray_importable(), reason="sparray (sparray.COO) is not importable")
def test_bench_isolated_cases():
    """--isolate: each case measured in a process of its own; the parent prints the same tables
    (the row, its bandwidth row from the bytes and triad the case's process reported)."""
    cmd = [sys.executable, os.path.join(BENCH_DIR, "bench.py"), "--quick", "--scale", "0.001", "--repeat", "1",
           "--threads", "1", "--only", "sum(axis=1) poisson,SpMV CSR poisson", "--no-first-call", "--isolate"]
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=180, cwd=ROOT)
    assert p.returncode == 0, p.stdout[-2000:] + p.stderr[-2000:]
    out = p.stdout
    assert "each case in a fresh process of its own" in out
    assert out.count("  done: ") == 2 and "failed:" not in out
    rows = _table_rows(out)
    assert [(r[0], r[1]) for r in rows[:2]] == [("sum(axis=1)", "poisson"), ("SpMV CSR", "poisson")]
    for r in rows[:2]:
        assert r[2] == "9.94e3" and r[3].endswith("s") and not r[3].startswith("err"), r
    bandwidth = [r for r in rows[2:] if r[0] == "SpMV CSR"]
    assert bandwidth and bandwidth[0][3].endswith("GB/s"), out[-3000:]
    assert "- poisson: shape 2025 x 2025" in out


def test_bench_quick_coo_to_csr_only():
    rows = _table_rows(_quick("COO->CSR"))
    assert [(r[0], r[1]) for r in rows] == [("COO->CSR", m) for m in ("uniform", "rmat", "poisson")]


def test_bench_quick_compressed_rows():
    out = _quick("(csr),coo->csr,csr->csc,transpose csr,dense->csr")  # the products: below
    rows = [r for r in _table_rows(out) if r[0] != "case"]
    reductions = [(f"{k}(axis={a}) (CSR)", m) for m in ("uniform", "rmat", "poisson") for a in (0, 1) for k in ("sum", "max")]
    pairs = [("A + B (CSR)", p) for p in ("uniform+uniform_b", "rmat+rmat_t", "poisson+poisson_t")]
    expected = [*pairs, *reductions, ("COO->CSR", "uniform"), ("COO->CSR", "rmat"), ("COO->CSR", "poisson"),
                ("CSR->CSC", "uniform"), ("CSR->CSC", "rmat"), ("CSR->CSC", "poisson"),
                ("transpose CSR", "poisson"), ("dense->CSR", "dense10")]
    assert [(r[0], r[1]) for r in rows] == expected
    # every library's result agrees with scipy's (pointers, indices, values)
    assert "RESULT CHECK" not in out, out[-3000:]
    for r in rows:
        assert not r[3].startswith("err") or not _sparray_has_csr(), (r, out[-3000:])
        for cell in r[4::2]:  # scipy, sparse, torch
            assert not cell.startswith("err"), (r, out[-3000:])


def test_bench_quick_product_rows():
    out = _quick("Sp")
    main_table = out.split("## Memory bandwidth")[0]
    rows = _table_rows(main_table)
    names = {(r[0], r[1]) for r in rows}
    assert ("SpMV CSR", "poisson") in names and ("SpGEMM A@A", "random5e5") in names and ("SpMV BSR4", "block4") in names
    assert "RESULT CHECK" not in out, out[-3000:]
    assert "Memory bandwidth" in out
    for r in rows:
        assert not r[3].startswith("err"), (r, out[-3000:])
        for cell in r[4::2]:  # scipy, sparse, torch
            assert not cell.startswith("err"), (r, out[-3000:])


def test_bench_quick_row_picks():
    out = _quick("row pick")
    rows = _table_rows(out)
    assert [(r[0], r[1]) for r in rows] == [("row pick A[::2]", "poisson"), ("row pick A[idx]", "poisson")]
    assert "RESULT CHECK" not in out, out[-3000:]
    for r in rows:
        assert not r[3].startswith("err") and not r[4].startswith("err"), (r, out[-3000:])  # sparray, scipy


def test_bench_dask_quick_run():
    """benchmarks/bench_dask.py at a tiny scale (pydata's column left out: its numba JIT takes seconds):
    every row runs, the Dask results agree with the single-process ones, one table."""
    pytest.importorskip("dask.array")
    pytest.importorskip("psutil")
    cmd = [sys.executable, os.path.join(BENCH_DIR, "bench_dask.py"), "--scale", "0.001", "--repeat", "1",
           "--blocks", "4", "--no-pydata"]
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=180, cwd=ROOT)
    assert p.returncode == 0, p.stdout[-2000:] + p.stderr[-2000:]
    out = p.stdout
    assert "RESULT MISMATCH" not in out and "note:" not in out and "peak resident memory" in out
    rows = [[c.strip() for c in ln.split("|")[1:-1]] for ln in out.splitlines() if ln.startswith("| ") and not ln.startswith("| op")]
    assert [r[0] for r in rows] == ["sum(axis=0)", "X @ v", "X + X.T"]
    assert all(r[1] != "n/a" and r[2] != "n/a" and r[3] == "n/a" and r[5].endswith("x") for r in rows)


def test_sweep_quick_run(monkeypatch):
    """``bench.py --sweep`` at one size and two ops: the table has a row per op, ratios beside times."""
    sweep = _load("sweep")
    monkeypatch.setattr(sweep, "WARM_S", 0.01)
    monkeypatch.setattr(sweep, "CELL_S", 0.01)
    result = sweep.sweep(sizes=(1000,), only="sum", libs=("sparray", "scipy"), extras=False, log=lambda s: None)
    ops = [r["op"] for r in result["rows"]]
    assert ops == ["sum(A, axis=0)", "sum(A, axis=1)"]
    for r in result["rows"]:
        assert r["sparray"] > 0 and r["scipy"] > 0
    text = sweep.table(result)
    assert "| `sum(A, axis=0)` |" in text and "x (" in text


def test_crossover_quick_run():
    """``crossover.py`` times a kernel's serial and parallel runs and names where parallel wins."""
    out = subprocess.run([sys.executable, os.path.join(BENCH_DIR, "crossover.py"), "--only", "row sums", "--max-log2", "11"],
                         capture_output=True, text=True, timeout=600)
    assert out.returncode == 0, out.stderr
    assert "row sums (sum_runs_into)" in out.stdout and "2**11" in out.stdout


# --- bench.py --peers / --together / --busy (benchmarks/peers.py, issue 48) ----------------------
# At 1e3 entries, on the rows whose kernels the rest of the suite compiles too, 2 timed calls a cell
# and no warm-up: the peers not installed (MKL, GraphBLAS come with the bench extra, not the test
# one) print n/a and the run goes on.

_PEER_ROWS = "spmv,sum1,coo2csr_sorted"  # row keys (a label may hold a comma)


def _peers_run(*args, timeout=240, only=_PEER_ROWS, env=None):
    cmd = [sys.executable, os.path.join(BENCH_DIR, "bench.py"), *args, "--sizes", "1e3", "--calls", "2",
           "--warm", "0", "--threads", "2", "--only", only]
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, cwd=ROOT, env=env)
    assert p.returncode == 0, p.stdout[-3000:] + p.stderr[-3000:]
    return p.stdout


def _md_rows(out, first):
    lines = [ln for ln in out.splitlines() if ln.startswith("| ")]
    head = [i for i, ln in enumerate(lines) if ln.startswith(f"| {first}")]
    assert head, out[-3000:]
    rows = []
    for ln in lines[head[0]:]:
        cells = [c.strip() for c in ln.strip().strip("|").split("|")]
        if rows and cells[0] == "op":
            break
        rows.append(cells)
    return rows[0], rows[1:]


@pytest.mark.skipif(not _sparray_importable(), reason="sparray (sparray.COO) is not importable")
def test_peers_mode_tiny(tmp_path):
    """``--peers``: every library in its own process; a row per op, every cell a time or n/a, the
    results agree with scipy's, the threading layer is named, the JSON holds every call's time."""
    pytest.importorskip("scipy.sparse")
    peers = _load("peers")
    out = _peers_run("--peers", "--json", str(tmp_path / "p.json"))
    assert "threading layer" in out and "load average at start" in out and "RESULT CHECK" not in out
    head, rows = _md_rows(out, "op | sparray")
    assert head[:2] == ["op", "sparray"] and "best peer / sparray" in head
    assert [r[0] for r in rows] == ["A @ x", "sum(A, axis=1)", "COO -> CSR (sorted)"]
    for r in rows:
        assert r[1].split(" [")[0].endswith("s") and "err" not in r, r
        lib_cells = dict(zip(head[1:], r[1:]))
        for lib in peers.PEERS:
            if not peers.installed(lib):
                assert lib not in lib_cells  # left out, and said so
            elif lib == "mkl" and r[0] != "A @ x":
                assert lib_cells[lib] == "n/a"
    with open(tmp_path / "p.json") as f:
        data = json.load(f)
    runs = [r for r in data["results"] if "rows" in r]
    assert {tuple(r["libs"]) for r in runs} == {(lib,) for lib in data["libs"]}
    cell = next(r for r in runs if r["libs"] == ["sparray"])["rows"]["spmv"]["sparray"]
    assert len(cell["times"]) == len(cell["stime"]) == 2 and cell["check"] == "ok"


@pytest.mark.skipif(not _sparray_importable(), reason="sparray (sparray.COO) is not importable")
def test_together_and_busy_modes_tiny():
    """``--together`` (one process, calls interleaved, beside sparray alone) and ``--busy`` (a core
    spinning; quiet medians beside): the tables come out and the spinner is gone afterwards."""
    pytest.importorskip("scipy.sparse")
    out = _peers_run("--together", "--libs", "sparray,scipy")
    assert "sparray together with the peers / sparray alone" in out and "RESULT CHECK" not in out
    assert "#   sparray+scipy 1e3:" in out
    out = _peers_run("--busy", "--libs", "sparray,scipy")
    head, rows = _md_rows(out, "op | sparray busy")
    assert "busy / quiet" in head and "scipy / sparray (busy)" in head
    assert [r[0] for r in rows] == ["A @ x", "sum(A, axis=1)", "COO -> CSR (sorted)"]
    spinner = [ln for ln in out.splitlines() if ln.startswith("# spinner pid")]
    assert spinner, out[-2000:]
    pid = int(spinner[0].split()[3])
    if os.path.exists(f"/proc/{pid}"):  # gone, or a zombie its parent has not reaped
        with open(f"/proc/{pid}/stat") as f:
            assert f.read().split()[2] == "Z"


def test_peers_helpers():
    peers = _load("peers")
    assert peers._rows_for("A @ x") == ["spmv"]
    assert peers._rows_for("spgemm") == ["spgemm_poisson", "spgemm_random"]
    assert peers._rows_for("coo") == ["coo2csr_sorted", "coo2csr_unsorted"]
    cell = {"times": [1e-3, 2e-3, 1.5e-3], "stime": [5e-4] * 3, "utime": [1e-3] * 3, "check": "ok"}
    assert peers.cell_text(cell, 3, size=10**5) == "1.5 ms [2.00!] sys 500 us"
    assert peers.cell_text(cell, 3, size=10**3) == "1.5 ms [2.00] sys 500 us"  # no mark below 1e5
    assert peers.cell_text(cell, 5, busy=True).startswith("1.5 ms [1.33] ")
    assert peers.cell_text(None, 3) == "n/a" and peers.cell_text({"error": "x"}, 3) == "err"
    assert peers.best_peer({"sparray": 1.0, "scipy": 2.0, "torch": 0.5}, ("scipy", "torch")) == ("torch", 0.5)


@pytest.mark.skipif(not _sparray_importable(), reason="sparray (sparray.COO) is not importable")
def test_peers_process_death_keeps_its_rows():
    """A process that dies in a row (the OOM killer's signal 9, here sent by the child itself) keeps
    the rows it finished, that row's cell says so, and a fresh process measures the rows after it."""
    env = dict(os.environ, SPARRAY_PEERS_DIE_IN="spmv")
    cmd = [sys.executable, os.path.join(BENCH_DIR, "bench.py"), "--peers", "--libs", "sparray", "--sizes", "1e3",
           "--calls", "2", "--warm", "0", "--only", "spmv,sum0"]
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=240, cwd=ROOT, env=env)
    assert p.returncode == 0, p.stdout[-3000:] + p.stderr[-3000:]
    assert "the process died in spmv (exit -9" in p.stdout
    _, rows = _md_rows(p.stdout, "op | sparray")
    assert [r[:2] for r in rows] == [["A @ x", "died"], ["sum(A, axis=0)", rows[1][1]]]
    assert rows[1][1].split(" [")[0].endswith("s"), rows


def test_bench_graph_tiny():
    """bench.py --graph on a tiny R-MAT graph: every row runs in both libraries' processes and
    their results agree."""
    pytest.importorskip("graphblas")
    cmd = [sys.executable, os.path.join(BENCH_DIR, "bench.py"), "--graph", "--graphs", "rmat6", "--calls", "2",
           "--cap", "0.05"]
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=600, cwd=ROOT)
    assert p.returncode == 0, p.stdout[-2000:] + p.stderr[-2000:]
    rows = [ln for ln in p.stdout.splitlines() if ln.rstrip().endswith(("ok", "DIFFERS"))]
    assert len(rows) == 10 and all(ln.rstrip().endswith("ok") for ln in rows), p.stdout


def test_bench_graph_algorithms_tiny(tmp_path):
    """bench.py --graph-algorithms on a tiny R-MAT graph: every algorithm runs in each library's
    own process, the libraries that have it agree with sparray, scipy has no PageRank or TC."""
    pytest.importorskip("graphblas")
    pytest.importorskip("networkx")
    out = tmp_path / "galg.json"
    cmd = [sys.executable, os.path.join(BENCH_DIR, "bench.py"), "--graph-algorithms", "--graphs", "rmat7", "--calls",
           "2", "--cap", "0.05", "--cache-dir", "", "--json", str(out)]
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=600, cwd=ROOT)
    assert p.returncode == 0, p.stdout[-2000:] + p.stderr[-2000:]
    with open(out) as f:
        records = json.load(f)
    assert [r["algorithm"] for r in records] == ["BFS", "SSSP", "PageRank", "CC", "SCC", "TC"]
    for r in records:
        assert r["check"] == "ok" and r["sparray_s"] > 0, r
        peers = ["graphblas", "networkx"] + (["scipy"] if r["algorithm"] not in ("PageRank", "TC") else [])
        assert all(r[f"{lib}_agrees"] is True and r[f"{lib}_ratio"] > 0 for lib in peers), r
        assert ("scipy_s" in r) == ("scipy" in peers)
    pr = next(r for r in records if r["algorithm"] == "PageRank")
    assert pr["sparray_iterations"] == pr["graphblas_iterations"] >= 2


# --- solvers.py --amg (benchmarks/solvers_amg.py, issue 53) ------------------------------------
# pyamg is a bench-only dependency (the bench extra): without it these skip.

_AMG_ROWS = ("pyamg SA + cg", "sparray amg + cg", "sparray cg, M=amg", "scipy cg", "sparray cg", "sparray cg + ichol0")


def _amg_run(tmp_path, *args):
    out = tmp_path / "amg.json"
    cmd = [sys.executable, os.path.join(BENCH_DIR, "solvers.py"), "--amg", "--sizes", "2e3", "--cap", "30",
           "--json", str(out), *args]
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=180, cwd=ROOT)
    assert p.returncode == 0, p.stdout[-3000:] + p.stderr[-3000:]
    with open(out) as f:
        return p.stdout, json.load(f)


def _check_amg_rows(stdout, data, problems):
    import sparray

    amg_here = hasattr(sparray.linalg, "amg")
    assert data["meta"]["sparray_amg"] == amg_here and data["meta"]["rtol"] == 1e-8
    for problem in problems:
        assert f"## {problem}" in stdout
        rows = {r["method"]: r for r in data["rows"] if r["problem"] == problem}
        assert set(rows) == set(_AMG_ROWS), (problem, sorted(rows))
        for name, r in rows.items():
            assert 1_500 <= r["unknowns"] <= 2_500, r
            if (name.startswith("sparray amg") or name.endswith("M=amg")) and not amg_here:
                assert r["error"] == "sparray.linalg.amg not on this tree", r
                continue
            assert "error" not in r, r
            assert not r["capped"] and r["residual"] < 1e-6, (problem, name, r)
            assert r["iterations"] > 0 and r["total"] >= r["solve"] > 0, (problem, name, r)
            line = [ln for ln in stdout.splitlines() if ln.split()[:1] == [str(r["unknowns"])] and name in ln]
            assert line, (problem, name, stdout[-2000:])
        pyamg_row = rows["pyamg SA + cg"]
        assert pyamg_row["operator_complexity"] >= 1.0 and pyamg_row["iterations"] < rows["scipy cg"]["iterations"]


def test_solvers_amg_tiny_one_process(tmp_path):
    """``solvers.py --amg`` at 2e3 unknowns, every row in one process: each problem's table has its
    rows, every answer solves its system (residual rechecked by scipy), the JSON holds the numbers."""
    pytest.importorskip("pyamg")
    pytest.importorskip("scipy.sparse")
    stdout, data = _amg_run(tmp_path, "--one-process")
    _check_amg_rows(stdout, data, ("poisson2d", "poisson3d", "anisotropic", "elasticity"))


def test_solvers_amg_tiny_processes(tmp_path):
    """The same on one problem with each library in a fresh process (the default): the rows come
    back through the children's JSON, elasticity's rigid-body modes through the ``.npz``."""
    pytest.importorskip("pyamg")
    pytest.importorskip("scipy.sparse")
    stdout, data = _amg_run(tmp_path, "--problems", "elasticity", "--repeat", "1")
    _check_amg_rows(stdout, data, ("elasticity",))
    assert all(len(r.get("solve_s", [])) <= 1 for r in data["rows"])
