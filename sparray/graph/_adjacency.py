"""The graph of an adjacency matrix as the algorithms of ``sparray.graph`` read it, and the few
host-side helpers they share (sources, one read per iteration, an ``info`` dict).

**Which elements are edges.** ``A[i, j]`` is the edge i -> j (a symmetric A is an undirected
graph):

- an undefined fill (``sparray.undefined``): every stored entry is an edge, an explicit 0 too
  (an edge of weight 0), and nothing else is;
- a defined fill that stands for "no edge", as ``scipy.sparse.csgraph`` reads 0, inf and nan: 0
  (False for bool), +inf or nan. The graph is then the array's *values*: every element equal to
  the fill is a non-edge, stored or not (so a BSR block's padding zeros are no edges), every other
  element is an edge. A zero-weight edge therefore needs a fill of inf or nan, or the undefined
  fill (``sparray.asarray(S, fill_value=sparray.undefined)`` keeps a scipy matrix's explicit
  zeros as edges, as csgraph does). Any other fill is refused;
- a dense array: its zeros are the non-edges (NumPy's fill).

Duplicates of an uncoalesced COO are one element, their sum (the array's value there), as
scipy's conversion to CSR sums them. The result is a square CSR with an undefined fill whose
stored entries are exactly the edges; an array that already is one is used as it is (no copy),
so a caller running several algorithms on one graph converts it once with :func:`as_graph`.
What the algorithms derive from a graph (the edges of a defined-fill array, the transpose, the
symmetrized graph, float64 weights) is kept on the array it came from and reused by later calls,
as the array's validity check is: memory of about one more copy of the graph per derived part,
given back with the array (or when an in-place operation changes it).

>>> import numpy as np, sparray
>>> A = sparray.asarray(np.array([[0.0, 2.0], [np.inf, 0.0]]), fill_value=np.inf)
>>> G = as_graph(A)      # the zeros are edges (weight 0), the inf is not
>>> G.nse, G.fill_is_defined, G.to_dense(fill_value=-1).tolist()
(3, False, [[0.0, 2.0], [-1.0, 0.0]])
"""

from __future__ import annotations

import math

import numpy as np

from .._array.base import SparseArray
from .._core.namespace import backend_kind, is_array, to_numpy
from .._engine import dispatch as _dispatch
from ._parts import csr_result, matrix_parts

__all__ = ["as_graph", "Graph", "sources_of", "read_host", "compact", "new_info", "NegativeCycleError",
           "ConvergenceError"]


class NegativeCycleError(ValueError):
    """A negative-weight cycle is reachable from a source: shortest paths are not defined."""


class ConvergenceError(RuntimeError):
    """An iteration did not reach its tolerance within ``max_iter`` steps (networkx's
    ``PowerIterationFailedConvergence``)."""


class Graph:
    """An adjacency matrix's edges as CSR parts, with what the algorithms derive from them
    (worked out on first use and kept: the transpose, the degrees).

    ``A``: the square CSR of the edges, undefined fill; ``crow``, ``col``, ``values`` its parts
    (one index dtype); ``n`` the number of vertices; ``xp`` and ``device`` its namespace and
    device."""

    def __init__(self, A):
        self.A = A
        self.xp = A._xp
        self.n = int(A.shape[0])
        self.crow, self.col, self.values = A._cidx, A._pidx, A._values
        self.device = _device(self.crow)
        # derived parts live on the array (as its validity check does), so calls on one graph share them;
        # an in-place operation on A rebinds its state and drops them
        self._kept = A.__dict__.setdefault("_graph_derived", {})

    @property
    def nse(self) -> int:
        return int(self.col.shape[0])

    def transposed(self):
        """The CSR parts ``(crow, col, values)`` of the transpose (in-edges by rows), built once."""
        if "transpose" not in self._kept:
            T = self.A.mT.to_layout("csr")
            self._kept["transpose"] = (T._cidx, T._pidx, T._values)
        return self._kept["transpose"]

    def out_degree(self):
        """Out-degrees (int64, on the graph's device)."""
        if "out_degree" not in self._kept:
            c = self.xp.astype(self.crow, self.xp.int64)
            self._kept["out_degree"] = c[1:] - c[:-1]
        return self._kept["out_degree"]

    def kept(self, key, make):
        """``make()`` worked out once per graph array (symmetrized graphs, split weights)."""
        if key not in self._kept:
            self._kept[key] = make()
        return self._kept[key]

    def with_parts(self, crow, col, values) -> Graph:
        """A Graph of the same vertices with these CSR parts (a subset of the edges, new weights)."""
        return Graph(csr_result(self.xp, crow, col, values, (self.n, self.n)))

    def on_host(self) -> bool:
        """Whether the data is NumPy's (the CPU kernels; reads cost nothing)."""
        return backend_kind(self.xp) == "numba"


def _device(x):
    import array_api_compat

    return array_api_compat.device(x)


def as_graph(A, who="as_graph"):
    """The edges of the adjacency matrix A (any layout and fill, see the module docstring) as a
    square CSR with an undefined fill, A itself when it already is one.

    >>> import numpy as np, sparray
    >>> as_graph(sparray.asarray(np.eye(3), layout="coo")).layout
    'csr'
    """
    return graph_of(A, who).A


def graph_of(A, who) -> Graph:
    """:class:`Graph` of A (the conversion of :func:`as_graph`, checked)."""
    if isinstance(A, Graph):
        return A
    if not isinstance(A, SparseArray):
        if not is_array(A):
            raise TypeError(f"sparray.graph.{who}: A must be an adjacency matrix (a sparse array, or a dense array "
                            f"whose zeros are the non-edges); got {type(A).__name__}")
        from .._functions.creation import asarray

        A = asarray(A, layout="csr")
    if A.ndim != 2 or A.dense_ndim:
        raise ValueError(f"sparray.graph.{who}: A must be a 2-d adjacency matrix without dense dims; got shape "
                         f"{tuple(A.shape)} (dense_ndim {A.dense_ndim})")
    if A.shape[0] != A.shape[1]:
        raise ValueError(f"sparray.graph.{who}: an adjacency matrix is square; got shape {tuple(A.shape)}")
    kind = np.dtype(A.dtype).kind
    if kind not in "biuf":
        raise TypeError(f"sparray.graph.{who}: edge weights must be bool, integer or real floating; got {A.dtype}")
    xp = A._xp
    if A.layout == "csr" and not A.fill_is_defined and A._cidx.ndim == 1:
        A._check_contents()  # once per array: sparray's CSR rows are sorted and unique (its invariant)
        return Graph(A)
    edges = A.__dict__.get("_graph_edges")  # converted before: kept on A as the derived parts are
    if edges is None:
        crow, col, values = matrix_parts(A, who, "A")
        if A.fill_is_defined:
            rule, thunk = _no_edge_rule(A, who)
            crow, col, values = _dispatch.call("graph_select", "csr", xp, crow, col, values, rule, thunk,
                                               work=int(col.shape[0]))
        edges = A._graph_edges = csr_result(xp, crow, col, values, A.shape)
    return Graph(edges)


def _no_edge_rule(A, who):
    """The select rule that keeps the elements that are edges under A's defined fill."""
    from .._core.fill import array_fill_is_zero

    if array_fill_is_zero(A):
        return "ne", (False if A.dtype == A._xp.bool else 0)
    f = to_numpy(A.fill_value)
    if f.shape != ():
        raise ValueError(f"sparray.graph.{who}: the fill must be a scalar; got shape {f.shape}")
    f = f.item()
    if isinstance(f, float) and math.isnan(f):
        return "ge", -math.inf  # everything but nan (-inf included)
    if f == math.inf:
        return "ne", math.inf
    raise ValueError(f"sparray.graph.{who}: a fill of {f!r} does not say 'no edge': give A a fill of 0, inf or nan "
                     f"(as scipy.sparse.csgraph reads them) or sparray.undefined (every stored entry an edge), e.g. "
                     f"sparray.asarray(A, fill_value=sparray.undefined)")


def sources_of(source, n, who):
    """``(sources, batched)``: the source vertices as a host int64 array (one read when given on a
    device) and whether a 1-d array (a batch: one result row per source) was given."""
    if isinstance(source, (bool, np.bool_)):
        raise TypeError(f"sparray.graph.{who}: source must be a vertex number or a 1-d array of them; got {source!r}")
    if isinstance(source, (int, np.integer)):
        s, batched = np.array([int(source)], np.int64), False
    else:
        try:
            s = to_numpy(source) if is_array(source) else np.asarray(source)
        except (TypeError, ValueError):
            raise TypeError(f"sparray.graph.{who}: source must be a vertex number or a 1-d array of them; got "
                            f"{type(source).__name__}") from None
        if s.ndim == 0 and s.dtype.kind in "iu":
            s, batched = s.reshape(1).astype(np.int64), False
        elif s.ndim == 1 and (s.dtype.kind in "iu" or s.size == 0):
            s, batched = s.astype(np.int64), True
        else:
            raise TypeError(f"sparray.graph.{who}: source must be a vertex number or a 1-d array of them; got an "
                            f"array of shape {s.shape} and dtype {s.dtype}")
    bad = (s < 0) | (s >= n)
    if bad.any():
        raise ValueError(f"sparray.graph.{who}: source {int(s[bad][0])} is not a vertex of a graph of {n} vertices "
                         f"(0 <= source < {n})")
    return s, batched


def read_host(xp, *scalars):
    """The 0-d arrays ``scalars`` as Python floats, in one transfer from the device (the one read
    of an iteration); on the host no copy at all."""
    if not scalars:
        return ()
    if backend_kind(xp) == "numba":
        return tuple(float(s) for s in scalars)
    both = xp.stack([xp.astype(xp.reshape(s, ()), xp.float64) for s in scalars])
    return tuple(float(v) for v in to_numpy(both))


def compact(xp, present, count: int, on_host: bool):
    """The positions (int64) of the True elements of the 1-d bool ``present``, of which there are
    ``count`` (already read): on a device a scan and a scatter, without the read ``nonzero``
    would make to size its result."""
    if on_host:
        return np.flatnonzero(present)
    n = int(present.shape[0])
    pos = xp.cumulative_sum(xp.astype(present, xp.int64))
    slots = xp.where(present, pos - 1, xp.full_like(pos, count))
    out = xp.zeros((count + 1,), dtype=xp.int64, device=_device(present))
    out[slots] = xp.arange(n, dtype=xp.int64, device=_device(present))
    return out[:count]


def new_info(info, who, **start):
    """The caller's ``info`` dict emptied and started with ``start`` (None: a private dict)."""
    if info is None:
        info = {}
    elif not isinstance(info, dict):
        raise TypeError(f"sparray.graph.{who}: info must be a dict to fill (or None); got {type(info).__name__}")
    info.clear()
    info.update(start)
    return info
