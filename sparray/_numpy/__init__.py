"""NumPy's protocols on SparseArray: ``__array_function__``, ``__array_ufunc__`` and the NumPy-named
methods answered by sparray's functions. ``protocols`` holds the rules and the first half of the
adapters, ``extras`` the second half (the 2024.12 functions, ``np.linalg`` and ``np.fft``),
``nan_functions`` NumPy's ``nan*`` family, medians and quantiles; importing this package registers
them all. It sits above the public namespace ``sparray``, which its adapters
call; the array objects reach it through ``_array/forward.py``. See docs/architecture.md.
"""

from . import extras as _extras  # noqa: F401  (registers its adapters; imports .protocols first)
from . import nan_functions as _nan_functions  # noqa: F401  (registers NumPy's nan* adapters)
from .protocols import METHODS, UFUNCS, array_function, array_ufunc, numpy_method

__all__ = ["array_function", "array_ufunc", "numpy_method", "METHODS", "UFUNCS"]


from .._core.lazy import submodule_getattr

__getattr__ = submodule_getattr(__name__)  # sparray.<folder>.<module> loads on first use
