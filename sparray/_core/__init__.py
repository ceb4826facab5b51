"""The vocabulary every layer speaks: namespaces and devices, dtypes, fill values, linear keys, checks.

Plain functions on component arrays and values; nothing here knows a layout class. Above the
kernels (``namespace`` knows the simulated device, ``fill`` keeps its facts in ``kernels._kept``),
below everything else. See docs/architecture.md.
"""


from .lazy import submodule_getattr

__getattr__ = submodule_getattr(__name__)  # sparray.<folder>.<module> loads on first use
