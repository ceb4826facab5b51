"""The array objects: ``SparseArray`` and its layouts (``coo``, ``compressed``: CSR/CSC, ``blocked``:
BSR/BSC), their operands, pickling, DLPack and display.

The classes hold buffers and metadata; their operators and methods reach the functions above them
through one module, ``forward``. See docs/architecture.md.
"""
