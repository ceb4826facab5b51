"""sparray.graph: GraphBLAS's operations on sparse arrays, over their stored entries.

A graph is an adjacency matrix whose stored entries are its edges (an explicit 0 is an edge of
weight 0); its fill, usually ``sparray.undefined`` (docs/graphs.md), is never read, and every
result's fill is undefined. Names follow python-graphblas's:

- :func:`matmul` -- ``mxm``/``mxv``/``vxm`` over a semiring, with a mask the kernels use to skip
  work, an accumulator and replace;
- :func:`reduce` (monoids), :func:`select` (positional and value rules), :func:`apply` (index,
  unary and bound binary ops);
- :func:`ewise_add` (union), :func:`ewise_mult` (intersection), :func:`ewise_union` (union with
  defaults);
- :func:`structure` and :func:`is_iso`: iso-valued arrays (one value kept for every entry);
- exchange: :func:`to_graphblas` / :func:`from_graphblas` (python-graphblas's Matrix and Vector),
  :func:`to_networkx` / :func:`from_networkx` (weights kept); each imports its library on first use.
- algorithms written with them: :func:`bfs`, :func:`sssp`, :func:`pagerank`,
  :func:`connected_components`, :func:`triangle_count`, on any adjacency matrix (:func:`as_graph`
  says which elements are edges), on every device.

Semirings are ``"<monoid>_<multiply>"`` (``SEMIRINGS`` lists the common ones), monoids
``MONOIDS``; ``sparray.kernels.semirings`` defines them.

>>> import sparray, numpy as np
>>> A = sparray.asarray(sparray.asarray(np.array([[1.0, 0.0], [0.0, 2.0]])), fill_value=sparray.undefined)
>>> sparray.graph.ewise_add(A, A.mT).nse, sparray.graph.reduce(A, "max", axis=1).nse
(2, 2)
"""

from __future__ import annotations

from ..interop.graphblas import from_graphblas, to_graphblas
from ..interop.networkx import from_networkx, to_networkx
from ..kernels.semirings import MONOIDS, MULTIPLIES, SEMIRINGS
from ._adjacency import ConvergenceError, NegativeCycleError, as_graph
from ._bfs import bfs
from ._components import connected_components
from ._ewise import ewise_add, ewise_mult, ewise_union
from ._iso import is_iso, structure
from ._operators import BINARY_NAMES
from ._pagerank import pagerank
from ._products import matmul
from ._reduce import reduce
from ._select import UNARY_NAMES, apply, select
from ._sssp import sssp
from ._triangles import triangle_count

__all__ = ["matmul", "reduce", "select", "apply", "ewise_add", "ewise_mult", "ewise_union", "SEMIRINGS", "MONOIDS",
           "MULTIPLIES", "BINARY_NAMES", "UNARY_NAMES", "is_iso", "structure", "from_graphblas", "to_graphblas",
           "from_networkx", "to_networkx",
           "bfs", "sssp", "pagerank", "connected_components", "triangle_count", "as_graph", "NegativeCycleError",
           "ConvergenceError"]
