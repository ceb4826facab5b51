"""NumPy's protocols on SparseArray: ``__array_function__``, ``__array_ufunc__`` and the NumPy-named
methods answered by sparray's functions (``protocols``, ``extras``). See docs/architecture.md.
"""
