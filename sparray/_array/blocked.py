"""BSR and BSC: the compressed layouts over dense blocks (``_compressed.py`` holds the shared code).

A BSR array of shape ``(*batch, R, C, *dense)`` with ``blocksize = (bh, bw)`` is a CSR array over
the ``(R // bh, C // bw)`` grid of blocks: ``crow_indices`` ``(*batch, R // bh + 1)``,
``col_indices`` ``(*batch, nse)`` (block columns), ``values`` ``(*batch, nse, bh, bw, *dense)``.
Every element of a specified block is specified (it may hold the fill value). BSC is the same
over block columns; its blocks keep the array's orientation (``values[..., k, i, j]`` is the
element at row ``i``, column ``j`` of block ``k``), as in PyTorch. ``nse`` counts blocks;
``blocksize`` is derived from ``values.shape``. ``bh`` and ``bw`` must divide ``R`` and ``C``.

>>> import sparray
>>> A = sparray.BSR([0, 1, 1], [1], [[[1.0, 2.0], [3.0, 4.0]]], shape=(4, 4))
>>> A.blocksize, A.to_dense()[:2]
((2, 2), array([[0., 0., 1., 2.],
       [0., 0., 3., 4.]]))
"""

from __future__ import annotations

from .compressed import ColumnsCompressed, Compressed, RowsCompressed

__all__ = ["BSR", "BSC"]


class _Blocked(Compressed):
    _blocked = True

    @property
    def blocksize(self) -> tuple[int, int]:
        """``(bh, bw)``: rows and columns of every block."""
        return self._block


class BSR(RowsCompressed, _Blocked):
    """Block compressed sparse rows: ``BSR(crow_indices, col_indices, values, shape=None, *, fill_value=None, ...)``.

    ``values`` is ``(*batch, nse, bh, bw, *dense_shape)``; ``shape=None`` infers
    ``(*batch, (len(crow) - 1) * bh, (max(col) + 1) * bw, *dense)``.
    """

    layout = "bsr"


class BSC(ColumnsCompressed, _Blocked):
    """Block compressed sparse columns: ``BSC(ccol_indices, row_indices, values, shape=None, *, ...)``.

    >>> import sparray
    >>> A = sparray.BSC([0, 1], [1], [[[1.0, 2.0]]], shape=(2, 2))
    >>> A.blocksize, A.to_dense().tolist()
    ((1, 2), [[0.0, 0.0], [1.0, 2.0]])
    """

    layout = "bsc"
