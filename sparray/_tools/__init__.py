"""``python -m sparray`` commands: ``info`` (versions, devices, cache) and ``warmup`` (compile the kernels ahead)."""


def __getattr__(name):
    """``sparray.<folder>.<module>`` without importing it first (the package loads it on first use)."""
    import importlib

    try:
        return importlib.import_module(f"{__name__}.{name}")
    except ModuleNotFoundError as e:
        if e.name != f"{__name__}.{name}":
            raise
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}") from None
