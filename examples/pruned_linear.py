"""A pruned linear layer in the 2:4 layout: prune a dense weight, multiply, compare with dense.

A dense layer ``y = W @ x + b`` (a 1024 x 1024 float32 weight, a batch of 64 inputs) is pruned
with ``sparray.prune_2_4``: of every 4 consecutive weights along a row the 2 of largest magnitude
stay, the others become 0 (the pattern NVIDIA's sparse tensor cores multiply). The pruned weight
is stored as a 2:4 array (``sparray.asarray(..., layout="2:4")``): the kept values and a 4-bit code
per group of 4, 17/32 of the dense bytes for float32 (9/16 for float16). The product ``A @ x``
reads those components; it matches NumPy's product of the same pruned matrix to float32 rounding,
and differs from the unpruned layer by what pruning removed (printed, not a bug).

On a GPU (when CuPy finds one) the same layer runs in float16, the dtype of the tensor cores'
sparse products, with its own check against CuPy's dense product of the same pruned weight.

Run: python examples/pruned_linear.py
"""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np

import sparray


def layer(n_out: int = 1024, n_in: int = 1024, seed: int = 0):
    """A dense weight ``W`` (``n_out x n_in``, float32, scaled like a trained layer's) and a bias."""
    rng = np.random.default_rng(seed)
    W = (rng.standard_normal((n_out, n_in)) / np.sqrt(n_in)).astype(np.float32)
    b = (0.1 * rng.standard_normal((n_out, 1))).astype(np.float32)
    return W, b


def relative_error(got, want) -> float:
    return float(np.linalg.norm(np.asarray(got, np.float64) - want) / np.linalg.norm(want))


def main(n_out: int = 1024, n_in: int = 1024, batch: int = 64, seed: int = 0):
    """Prune, multiply on the CPU (and on a GPU when there is one); returns the 2:4 weight."""
    W, b = layer(n_out, n_in, seed)
    x = np.random.default_rng(seed + 1).standard_normal((n_in, batch)).astype(np.float32)

    W_pruned = sparray.prune_2_4(W)  # dense, same namespace: half of every group of 4 set to 0
    A = sparray.asarray(W_pruned, layout="2:4")
    assert A.layout == "2:4" and A.dtype == np.float32 and np.array_equal(A.to_dense(), W_pruned)

    y = A @ x + b  # the 2:4 product, read from the values and the codes
    y_pruned = W_pruned.astype(np.float64) @ x + b  # the same pruned layer, dense, in float64
    y_dense = W.astype(np.float64) @ x + b  # the unpruned layer
    err = relative_error(y, y_pruned)
    assert y.shape == (n_out, batch) and err < 1e-5, err
    print(f"2:4 weight {A.shape} float32: A @ x for a batch of {batch} matches the dense product of the pruned "
          f"weight (relative error {err:.1e})")
    print(f"pruning itself changes the layer's output by {relative_error(y, y_dense):.1%} (relative, vs the unpruned W)")
    parts = A.values.nbytes + A.metadata.nbytes
    print(f"memory: values {A.values.nbytes:,} + metadata {A.metadata.nbytes:,} bytes = {Fraction(parts, W.nbytes)} "
          f"of the dense weight's {W.nbytes:,} (A.nbytes, with the fill value: {A.nbytes:,})")

    gpu(W_pruned, x, b)
    return A


def gpu(W_pruned, x, b) -> bool:
    """The same layer on the GPU in float16 (float32 accumulation), when CuPy finds one."""
    try:
        import cupy

        if cupy.cuda.runtime.getDeviceCount() < 1:
            raise RuntimeError("no CUDA device")
        name = cupy.cuda.runtime.getDeviceProperties(0)["name"].decode()
    except Exception as e:  # no CuPy, no driver or no device: the CPU run above is the example
        print(f"no GPU here ({type(e).__name__}): the GPU part is skipped")
        return False
    on_device(W_pruned, x, b, cupy.asarray, cupy.asnumpy, f"GPU ({name})")
    return True


def on_device(W_pruned, x, b, to_device, to_host, where: str) -> float:
    """The layer with its data moved by ``to_device`` (``cupy.asarray``), in float16 where sparray
    holds float16 values (else float32), checked against the device's dense product in float32."""
    dtype = np.float16
    try:
        sparray.asarray(np.zeros((1, 4), dtype), layout="2:4")
    except TypeError:  # a sparray without float16 values
        dtype = np.float32
    W_dev = to_device(W_pruned.astype(dtype))
    A = sparray.asarray(W_dev, layout="2:4")  # encoded where the data lives
    x_dev, b_dev = to_device(x.astype(dtype)), to_device(b.astype(dtype))
    y = A @ x_dev + b_dev
    want = W_pruned.astype(np.float32) @ x.astype(dtype).astype(np.float32) + b.astype(dtype)
    err = relative_error(to_host(y), want.astype(np.float64))
    tol = 1e-2 if dtype == np.float16 else 1e-5
    assert err < tol, err
    share = Fraction(A.values.nbytes + A.metadata.nbytes, math.prod(A.shape) * np.dtype(dtype).itemsize)
    print(f"{where}: 2:4 {np.dtype(dtype).name} A @ x matches the dense product (relative error {err:.1e}); "
          f"memory {share} of dense")
    return err


if __name__ == "__main__":
    main()
