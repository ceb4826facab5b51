"""The array objects: ``SparseArray`` and its layouts (``coo``, ``compressed``: CSR/CSC, ``blocked``:
BSR/BSC), their operands, pickling, DLPack and display.

The classes hold buffers and metadata; their operators and methods reach the functions above them
through one module, ``forward``. See docs/architecture.md.
"""


def __getattr__(name):
    """``sparray.<folder>.<module>`` without importing it first (the package loads it on first use)."""
    import importlib

    try:
        return importlib.import_module(f"{__name__}.{name}")
    except ModuleNotFoundError as e:
        if e.name != f"{__name__}.{name}":
            raise
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}") from None
