"""The engine: the device registry (``registry_table``, ``dispatch``), numba's start-up (``jit``),
the generic array-API reference primitives that every backend is checked against (``segments``,
``merge``, ``compressed_generic``, ``linalg_generic``, ``graph_generic``, ``graph_walk_generic``,
``ragged``), and the lean device product.

It calls kernels by name and knows no layout class; array objects and functions call it. See
docs/architecture.md.
"""

# Whoever uses the engine finds its table filled: the kernels registered by name (no kernel module is
# imported) and the generic implementations registered next to their code.
from . import registry_table  # noqa: E402,F401
from . import compressed_generic, graph_generic, graph_walk_generic, linalg_generic, merge, segments  # noqa: E402,F401


from .._core.lazy import submodule_getattr

__getattr__ = submodule_getattr(__name__)  # sparray.<folder>.<module> loads on first use
