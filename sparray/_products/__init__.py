"""The product engine: ``A @ x``, ``A @ B``, ``tensordot``, ``vecdot``, ``addmm``, SDDMM (``linalg``, ``products``),
``softmax``/``log_softmax``, and the lean paths of a 2-D NumPy CSR/CSC (``lean``). See docs/architecture.md.
"""
