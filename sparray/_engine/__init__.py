"""The engine: the device registry (``registry_table``, ``dispatch``), numba's start-up (``jit``),
the generic array-API reference primitives that every backend is checked against (``segments``,
``merge``, ``compressed_generic``, ``linalg_generic``, ``ragged``), and the lean device product.

It calls kernels by name and knows no layout class; array objects and functions call it. See
docs/architecture.md.
"""

# Whoever uses the engine finds its table filled: the kernels registered by name (no kernel module is
# imported) and the generic implementations registered next to their code.
from . import registry_table  # noqa: E402,F401
from . import compressed_generic, linalg_generic, merge, segments  # noqa: E402,F401


def __getattr__(name):
    """``sparray.<folder>.<module>`` without importing it first (the package loads it on first use)."""
    import importlib

    try:
        return importlib.import_module(f"{__name__}.{name}")
    except ModuleNotFoundError as e:
        if e.name != f"{__name__}.{name}":
            raise
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}") from None
