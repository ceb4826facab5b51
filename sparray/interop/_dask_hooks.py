"""What sparray does for Dask without importing it: the token of an array, the registration hook.

Dask calls ``A.__dask_tokenize__()`` whenever a sparray array enters a graph, and NumPy's
protocols on chunks (``SparseArray.__array_function__`` / ``__array_ufunc__``); both run
:func:`register_if_loaded`, which registers sparray with ``dask.array`` (``sparray.interop.dask``)
once ``dask.array`` is imported. ``import sparray`` never imports Dask.
"""

from __future__ import annotations

import sys

__all__ = ["register_if_loaded", "token"]

_registered = False


def register_if_loaded() -> bool:
    """Register sparray with ``dask.array`` if that module is loaded (imports nothing new otherwise)."""
    global _registered
    if not _registered and "dask.array" in sys.modules:
        import importlib

        importlib.import_module("sparray.interop.dask")  # registers on import
        _registered = True
    return _registered


def token(A):
    """Dask's normalized token of ``A``: class, shape, fill, components hashed by content, and the
    flags a layout's meaning depends on (``_pickle_flags``: a 2:4 array's ``transposed``, so that a
    square ``A`` and ``A.mT``, which share their components, differ)."""
    from dask.tokenize import normalize_token

    register_if_loaded()
    parts = tuple(A._components().values())
    flags = tuple(sorted(A._pickle_flags().items())) if hasattr(A, "_pickle_flags") else ()
    return normalize_token(("sparray", type(A).__name__, A.shape, A.fill_value, parts, flags))
