"""sparray as a networkx backend: ``networkx.pagerank(G, backend="sparray")`` and friends.

Installed with sparray through two entry points (``pyproject.toml``): ``networkx.backends``
names :class:`BackendInterface`, ``networkx.backend_info`` names :func:`backend_info`. networkx
loads them itself; nothing here imports networkx at ``import sparray`` (networkx is imported when
networkx calls in). Use it as networkx's backends are used::

    nx.pagerank(G, backend="sparray")                 # one call
    nx.config.backend_priority.algos = ["sparray"]    # every call sparray serves, networkx the rest
    NETWORKX_BACKEND_PRIORITY=sparray python app.py   # the same from the environment

The functions served and how (``_algorithms.py``): ``bfs_edges``,
``single_source_shortest_path_length``, ``shortest_path_length``,
``single_source_dijkstra_path_length``, ``pagerank``, ``connected_components``,
``number_connected_components``, ``strongly_connected_components``,
``number_strongly_connected_components``, ``triangles``. Each gives networkx's result (Python
scalars, networkx's exceptions); a call it cannot serve (a weight *function*, ``sort_neighbors``)
is answered by :func:`can_run` with the reason, and networkx runs it. A networkx graph is converted
once per call (networkx's cache keeps the conversion when ``nx.config.cache_converted_graphs``).

networkx's own tests run through the backend with ``NETWORKX_TEST_BACKEND=sparray
NETWORKX_FALLBACK_TO_NX=True pytest --pyargs networkx.algorithms...`` (tests/test_networkx_backend.py
runs them in CI); :func:`on_start_tests` marks the tests that do not apply, with why
(``_test_skips.py``).

>>> import networkx as nx
>>> G = nx.path_graph(4)
>>> BackendInterface.single_source_shortest_path_length(BackendInterface.convert_from_nx(G), 0)
{0: 0, 1: 1, 2: 2, 3: 3}
"""

from __future__ import annotations

import functools
import inspect

from . import _algorithms
from ._graph import NxArrays, convert_from_nx, convert_to_nx

__all__ = ["BackendInterface", "NxArrays", "backend_info"]

#: the parameters that hold an edge attribute's name (a callable there is networkx's weight function)
_WEIGHT_PARAMETERS = ("weight",)


@functools.cache
def _signature(name):
    """The served function's signature (networkx asks can_run on every dispatched call)."""
    return inspect.signature(getattr(_algorithms, name))


def can_run(name, args, kwargs):
    """True when sparray serves this call of networkx's ``name``, else the reason (networkx then
    runs the next backend or itself)."""
    fn = getattr(_algorithms, name, None)
    if fn is None or name not in _algorithms.SERVED:
        return f"sparray does not serve {name}"
    try:
        bound = _signature(name).bind(*args, **kwargs)
    except TypeError as e:
        return f"arguments not understood: {e}"
    for param in _WEIGHT_PARAMETERS:
        if callable(bound.arguments.get(param)):
            return "a weight function (sparray reads weights from a named edge attribute)"
    for param, why in _algorithms.SERVED[name].items():
        if bound.arguments.get(param) is not None:
            return f"{param} given: {why}"
    return True


def should_run(name, args, kwargs):
    """Always worth it when asked for: the caller named sparray (or put it in the priority list)."""
    return True


def on_start_tests(items):
    """Mark networkx's tests that do not apply to this backend (networkx's test hook)."""
    from ._test_skips import mark

    mark(items)


class BackendInterface:
    """The object networkx's ``networkx.backends`` entry point names: the conversions, ``can_run``,
    ``should_run`` and one attribute per function served."""

    convert_from_nx = staticmethod(convert_from_nx)
    convert_to_nx = staticmethod(convert_to_nx)
    can_run = staticmethod(can_run)
    should_run = staticmethod(should_run)
    on_start_tests = staticmethod(on_start_tests)


for _name in _algorithms.SERVED:
    setattr(BackendInterface, _name, staticmethod(getattr(_algorithms, _name)))


def backend_info():
    """networkx's ``networkx.backend_info`` entry point: what the backend is and serves."""
    functions = {}
    for name, refused in _algorithms.SERVED.items():
        doc = (getattr(_algorithms, name).__doc__ or "").strip().splitlines()[0]
        extra = "; ".join(f"{p} given: runs in networkx ({why})" for p, why in refused.items())
        functions[name] = {"additional_docs": doc + (f" ({extra})" if extra else "")}
    return {
        "backend_name": "sparray",
        "project": "sparray",
        "package": "sparray",
        "short_summary": "sparse arrays: graph algorithms by semiring products (sparray.graph)",
        "description": "networkx functions computed by sparray.graph's BFS, shortest paths, PageRank, components "
                       "and triangle counting over semiring products, on the CPU (numba).",
        "functions": functions,
        "default_config": {},
    }
