"""The array objects: ``SparseArray`` and its layouts (``coo``, ``compressed``: CSR/CSC, ``blocked``:
BSR/BSC), their operands, pickling, DLPack and display.

The classes hold buffers and metadata; their operators and methods reach the functions above them
through one module, ``forward``. See docs/architecture.md.
"""


from .._core.lazy import submodule_getattr

__getattr__ = submodule_getattr(__name__)  # sparray.<folder>.<module> loads on first use
