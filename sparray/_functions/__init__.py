"""The array-API functions, one module per family of the standard: creation, element-wise,
reductions (statistical), searching, sorting, sets, manipulation, indexing, utilities. See docs/architecture.md.
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
