"""The argument contract of the sparse @ dense kernels, shared by the numba kernels
(``kernels/cpu/spmm.py``) and their CUDA twins (``kernels/cuda/spmm.py``): the shape checks and the
error path that names the first bad pointer or index, so both backends reject the same inputs with
the same words. NumPy only (no numba, no CuPy): the CUDA launchers call :func:`diagnose` on host
copies, on their error path alone.

>>> import numpy as np
>>> bsc_rows("f", 4, 2, 3, 1, (4,), (0, 2, 1), 3, (3,))
4
"""

from __future__ import annotations

import numpy as np

__all__ = ["as_blocks", "bsc_rows", "bsr_block_cols", "csc_rows", "diagnose", "ends"]


def ends(fname, ptr, pname, nse):
    """ValueError unless ptr[0] == 0 and ptr[-1] == nse."""
    if ptr[0] != 0:
        raise ValueError(f"{fname}: {pname}[0] = {ptr[0]} must be 0")
    if ptr[-1] != nse:
        raise ValueError(f"{fname}: {pname}[-1] = {ptr[-1]} but there are {nse} entries")


def diagnose(fname, ptr, pname, idx, iname, bound, what):
    """Raise ValueError naming the first bad pointer or out-of-range index (NumPy arrays; error
    path and degenerate shapes only). Returns if everything is valid."""
    nse = idx.shape[0]
    ends(fname, ptr, pname, nse)
    p = ptr.astype(np.int64)
    bad = np.flatnonzero((p[1:] < p[:-1]) | (p[1:] > nse))
    if bad.size:
        g = int(bad[0]) + 1
        if p[g] > nse:
            raise ValueError(f"{fname}: {pname}[{g}] = {p[g]} is beyond nse = {nse}")
        raise ValueError(
            f"{fname}: {pname} must be non-decreasing: {pname}[{g}] = {p[g]} < {pname}[{g - 1}] = {p[g - 1]}"
        )
    bad = np.flatnonzero((idx < 0) | (idx >= bound))
    if bad.size:
        k = int(bad[0])
        raise ValueError(f"{fname}: {iname}[{k}] = {idx[k]} is out of range for {bound} {what}")


def as_blocks(fname, blocks, nse, iname):
    """``blocks`` checked to be (nse, bh, bw) with a positive block shape."""
    if blocks.ndim != 3 or blocks.shape[0] != nse:
        raise ValueError(
            f"{fname}: blocks must have shape (nse, bh, bw) = ({nse}, bh, bw) to match {iname} "
            f"of shape ({nse},), got {blocks.shape}"
        )
    if blocks.shape[1] < 1 or blocks.shape[2] < 1:
        raise ValueError(f"{fname}: the block shape must be positive, got blocks of shape {blocks.shape}")
    return blocks


def bsr_block_cols(fname, K, bw, x_shape, blocks_shape):
    """KB = K // bw for a BSR times an x of K rows; ValueError when bw does not divide K."""
    if K % bw:
        raise ValueError(
            f"{fname}: x has shape {x_shape}: its first dimension is not a multiple of the block width "
            f"(blocks of shape {blocks_shape})"
        )
    return K // bw


def csc_rows(fname, nrows, K, ccol_shape, x_rows, x_shape):
    """M for a CSC of ``nrows`` rows and K = len(ccol) - 1 columns times an x of ``x_rows`` rows."""
    M = int(nrows)
    if M < 0:
        raise ValueError(f"{fname}: nrows must be >= 0, got {M}")
    if x_rows != K:
        raise ValueError(f"{fname}: A has shape ({M}, {K}) (from nrows and ccol of shape {ccol_shape}) but x has shape {x_shape}")
    return M


def bsc_rows(fname, nrows, bh, KB, bw, ccol_shape, blocks_shape, x_rows, x_shape):
    """M for a BSC of ``nrows`` rows (a multiple of bh) and KB block columns times an x of
    ``x_rows`` = KB * bw rows."""
    M = int(nrows)
    if M < 0 or M % bh:
        raise ValueError(f"{fname}: nrows = {M} must be a non-negative multiple of bh = {bh} (blocks {blocks_shape})")
    if x_rows != KB * bw:
        raise ValueError(
            f"{fname}: A has shape ({M}, {KB * bw}) (from nrows, ccol of shape {ccol_shape} and blocks "
            f"{blocks_shape}) but x has shape {x_shape}"
        )
    return M
