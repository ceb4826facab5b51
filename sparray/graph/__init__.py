"""sparray.graph: GraphBLAS's operations on sparse arrays, over their stored entries.

A graph is an adjacency matrix whose stored entries are its edges (an explicit 0 is an edge of
weight 0); its fill, usually ``sparray.undefined`` (docs/graphs.md), is never read, and the results'
fills are undefined. Names follow python-graphblas's: ``ewise_add`` (union), ``ewise_mult``
(intersection), ``ewise_union`` (union with defaults).

>>> import sparray, numpy as np
>>> A = sparray.asarray(sparray.asarray(np.array([[1.0, 0.0], [0.0, 2.0]])), fill_value=sparray.undefined)
>>> sparray.graph.ewise_add(A, A.mT).nse
2
"""

from __future__ import annotations

from ._ewise import ewise_add, ewise_mult, ewise_union
from ._operators import BINARY_NAMES, MONOIDS

__all__ = ["ewise_add", "ewise_mult", "ewise_union", "BINARY_NAMES", "MONOIDS"]
