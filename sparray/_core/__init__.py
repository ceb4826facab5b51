"""The vocabulary every layer speaks: namespaces and devices, dtypes, fill values, linear keys, checks.

Plain functions on component arrays and values; nothing here knows a layout class. Above the
kernels (``namespace`` knows the simulated device, ``fill`` keeps its facts in ``kernels._kept``),
below everything else. See docs/architecture.md.
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
