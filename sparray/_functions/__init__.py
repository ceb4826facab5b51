"""The array-API functions, one module per family of the standard: creation, element-wise,
reductions (statistical), searching, sorting, sets, manipulation, indexing, utilities. See docs/architecture.md.
"""


from .._core.lazy import submodule_getattr

__getattr__ = submodule_getattr(__name__)  # sparray.<folder>.<module> loads on first use
