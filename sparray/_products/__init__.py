"""The product engine: ``A @ x``, ``A @ B``, ``tensordot``, ``vecdot``, ``addmm``, SDDMM (``linalg``, ``products``),
``softmax``/``log_softmax``, and the lean paths of a 2-D NumPy CSR/CSC (``lean``). See docs/architecture.md.
"""


from .._core.lazy import submodule_getattr

__getattr__ = submodule_getattr(__name__)  # sparray.<folder>.<module> loads on first use
