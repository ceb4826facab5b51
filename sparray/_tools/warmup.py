"""``python -m sparray warmup``: compile the numba kernels ahead, with a progress bar.

Each *exercise* runs one family of operations on a small random array with the numba backend
forced, for the value dtypes people use most (float64, float32, int64) and both index dtypes
(int32, int64): numba compiles those specialisations once and keeps them in the per-user cache
(``sparray/kernels/cpu/_cache.py``), so later first calls only load them. Every result is also
checked against dense NumPy, so a warm-up that passes is a small self-test as well.

>>> from sparray._tools.warmup import exercises
>>> len(exercises()) > 10
True
"""

from __future__ import annotations

import io
import time
import warnings

import numpy as np

__all__ = ["exercises", "warmup"]

VALUE_DTYPES = ("float64", "float32", "int64")
INDEX_DTYPES = ("int32", "int64")


def _arrays(dtype: str, index_dtype: str, n: int = 64):
    import sparray

    rng = np.random.default_rng(0)
    D = np.where(rng.random((n, n)) < 0.2, rng.integers(1, 9, (n, n)), 0).astype(dtype)
    B = sparray.asarray(D, layout="csr")
    A = sparray.CSR(B.crow_indices.astype(index_dtype), B.col_indices.astype(index_dtype), B.values, shape=B.shape)
    return D, A


def _check(got, want) -> None:
    got = got.to_dense() if hasattr(got, "to_dense") else np.asarray(got)
    if not np.allclose(got, want, rtol=1e-4, atol=1e-4):
        raise AssertionError("sparray warmup: a kernel gave a result that differs from NumPy's")


def _elementwise(dtype, index_dtype):
    import sparray

    D, A = _arrays(dtype, index_dtype)
    C = A.to_layout("coo")
    _check(A + A, D + D)
    _check(A * A, D * D)
    _check(C + C.mT, D + D.T)
    _check(C * C.mT, D * D.T)


def _coalesce_reduce(dtype, index_dtype):
    import sparray

    D, A = _arrays(dtype, index_dtype)
    C = A.to_layout("coo")
    dup = sparray.COO(np.concatenate([np.asarray(C.indices)] * 2, axis=1), np.concatenate([C.values] * 2), shape=C.shape)
    _check(dup.coalesce(), 2 * D)
    _check(sparray.sum(A, axis=0), D.sum(axis=0))
    _check(sparray.sum(C, axis=1), D.sum(axis=1))
    _check(sparray.max(C, axis=0), D.max(axis=0))
    _check(sparray.max(A, axis=1), D.max(axis=1))  # a CSR's runs between pointers
    _check(sparray.min(A, axis=0), D.min(axis=0))  # a CSR's compressed axis: accumulators over the columns


def _conversions(dtype, index_dtype):
    D, A = _arrays(dtype, index_dtype)
    _check(A.to_layout("csc"), D)
    _check(A.to_layout("bsr", blocksize=(4, 4)), D)
    _check(A.to_layout("coo").to_layout("csr"), D)
    _check(A[::2], D[::2])


def _products(dtype, index_dtype):
    import sparray

    D, A = _arrays(dtype, index_dtype)
    x = np.arange(D.shape[1], dtype=dtype)
    X = np.ones((D.shape[1], 8), dtype=dtype)
    _check(A @ x, D @ x)
    _check(A @ X, D @ X)
    _check(A.mT @ x, D.T @ x)
    _check(A.to_layout("bsr", blocksize=(4, 4)) @ X, D @ X)
    _check(A @ A, D @ D)
    if dtype.startswith("float"):
        _check(sparray.sampled_addmm(A, X, X.T), D + (D != 0) * (X @ X.T))


def _matrix_market():
    import sparray
    import sparray.io

    _, A = _arrays("float64", "int32")
    buf = io.BytesIO()
    sparray.io.mmwrite(buf, A, engine="sparray")
    buf.seek(0)
    _check(sparray.io.mmread(buf, engine="sparray"), A.to_dense())


def exercises() -> list[tuple[str, object]]:
    """(label, callable) for every warm-up step, in the order they run."""
    steps = []
    for family, fn in (("element-wise", _elementwise), ("coalesce + reductions", _coalesce_reduce),
                       ("conversions", _conversions), ("products", _products)):  # fmt: skip
        for dtype in VALUE_DTYPES:
            for index_dtype in INDEX_DTYPES:
                steps.append((f"{family} {dtype}/{index_dtype}", lambda f=fn, d=dtype, i=index_dtype: f(d, i)))
    steps.append(("Matrix Market parser", _matrix_market))
    return steps


def warmup(progress=True) -> float:
    """Run every exercise with the numba backend forced; returns the seconds it took."""
    import sparray
    from .._engine.progress import Progress

    if "numba" not in sparray.backends():
        raise RuntimeError("sparray warmup: numba is not installed, so there is nothing to compile")
    steps = exercises()
    start = time.perf_counter()
    with Progress(len(steps), "warmup", progress=progress, unit="steps") as bar:
        for label, step in steps:
            bar.stage(label)
            with sparray.use_backend("numba"), warnings.catch_warnings():
                warnings.simplefilter("ignore", RuntimeWarning)
                step()
            bar.update(1)
        bar.stage("done")
    return time.perf_counter() - start


def main() -> None:
    from ..kernels.cpu._cache import kernel_cache_dir

    seconds = warmup(progress=True)
    print(f"compiled or loaded every kernel family in {seconds:.1f} s; cache: {kernel_cache_dir()}")
