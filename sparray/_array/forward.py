"""The one arrow up: how the array objects reach the code above them.

SparseArray and its layouts sit below the layout conversions, the functions, the product engine,
NumPy's protocols and the public namespace, which all compute with them. Yet ``A.to_dense()``,
``A[key]``, ``A @ x``, ``A += B``, ``np.sum(A)`` and ``A.sum(axis=0)`` are methods of the objects.
Every such method is a thin door, and the doors are here: each function below imports its target
on its first call and then puts the target in its own place (``global name``), so the second call
goes straight to the target, without this module's frame.

This module is the only one allowed to import from a layer above its own
(``tests/test_architecture.py`` checks every other module of ``sparray``), and so the only module in
an import cycle: everything that imports the array objects may be reached back through here.
Callers write ``forward.name(...)`` (the attribute is looked up on each call), never
``from .forward import name`` (that would keep the door, not the target).

>>> import sparray
>>> A = sparray.asarray([[0.0, 2.0], [3.0, 0.0]], layout="csr")
>>> (A @ [1.0, 1.0]).tolist(), float(A.sum())      # both reach their function through here
([2.0, 3.0], 5.0)
"""

from __future__ import annotations

# ruff: noqa: PLW0603  (each door replaces itself with its target)

__all__ = ["METHODS", "numpy_method", "namespace", "function"]


# --- the public namespace ------------------------------------------------------------------------------
def namespace():
    """The ``sparray`` module (what ``A.__array_namespace__()`` returns)."""
    import sparray

    return sparray


def function(name):
    """``sparray.<name>``: the public function, with the namespace rule's wrapper (``_array/results.py``)."""
    import sparray

    return getattr(sparray, name)


def lean(name):
    """The lean path ``name`` of ``_products/lean.py`` (a 2-D NumPy CSR or CSC straight to its kernel)."""
    from .._products import lean as module

    return getattr(module, name)


def lean_to_layout(A, layout):
    global lean_to_layout
    from .._products.lean import to_layout as lean_to_layout

    return lean_to_layout(A, layout)


def lean_to_dense(A):
    global lean_to_dense
    from .._products.lean import to_dense as lean_to_dense

    return lean_to_dense(A)


# --- the layout conversions (_layout/) -----------------------------------------------------------------
def undefined_getitem(A, key):
    global undefined_getitem
    from .._functions.undefined import getitem as undefined_getitem

    return undefined_getitem(A, key)


def dense_with_fill(A, fill_value):
    global dense_with_fill
    from .._functions.undefined import dense_with_fill

    return dense_with_fill(A, fill_value)


def semi_to_dense(A):
    global semi_to_dense
    from .._layout.semi_structured import to_dense as semi_to_dense

    return semi_to_dense(A)


def semi_to_compressed(A):
    global semi_to_compressed
    from .._layout.semi_structured import to_compressed as semi_to_compressed

    return semi_to_compressed(A)


def semi_check_metadata(xp, metadata, cols, who):
    global semi_check_metadata
    from .._layout.semi_structured import check_metadata as semi_check_metadata

    return semi_check_metadata(xp, metadata, cols, who)


def semi_getitem(A, key):
    global semi_getitem
    from .._functions.semi_structured import getitem as semi_getitem

    return semi_getitem(A, key)


def to_layout(A, layout, *, blocksize=None, dense_ndim=None):
    global to_layout
    from .._layout.conversion import to_layout

    return to_layout(A, layout, blocksize=blocksize, dense_ndim=dense_ndim)


def astype(A, dtype, /, *, copy=True):
    global astype
    from .._layout.conversion import astype

    return astype(A, dtype, copy=copy)


def to_dense(A):
    global to_dense
    from .._layout.conversion import to_dense

    return to_dense(A)


def compressed_to_dense(A):
    global compressed_to_dense
    from .._layout.compress import compressed_to_dense

    return compressed_to_dense(A)


def coalesce(A):
    global coalesce
    from .._layout.coalesce import coalesce

    return coalesce(A)


def move_components(xp, device, components):
    global move_components
    from .._layout.conversion import move_components

    return move_components(xp, device, components)


def carry_facts(src, dst):
    global carry_facts
    from .._layout.conversion import carry_facts

    return carry_facts(src, dst)


def binsparse_descriptor(A):
    global binsparse_descriptor
    from .._layout.binsparse import binsparse_descriptor

    return binsparse_descriptor(A)


def binsparse_arrays(A, descriptor):
    global binsparse_arrays
    from .._layout.binsparse import binsparse_arrays

    return binsparse_arrays(A, descriptor)


# --- the libraries beside (interop/) --------------------------------------------------------------------
def to_scipy(A, format=None):
    global to_scipy
    from ..interop.scipy import to_scipy

    return to_scipy(A, format)


def from_scipy(m):
    global from_scipy
    from ..interop.scipy import from_scipy

    return from_scipy(m)


# --- the functions (_functions/) ----------------------------------------------------------------------
def matrix_transpose(A):
    global matrix_transpose
    from .._functions.manipulation import matrix_transpose

    return matrix_transpose(A)


def getitem(A, key):
    global getitem
    from .._functions.indexing import getitem

    return getitem(A, key)


def setitem(A, key, value):
    global setitem
    from .._functions.setitem import setitem

    return setitem(A, key, value)


def inplace(A, stem, other):
    global inplace
    from .._functions.inplace import inplace

    return inplace(A, stem, other)


def check_api_version(api_version):
    global check_api_version
    from .._functions.namespace_info import check_api_version

    return check_api_version(api_version)


# --- the objects' own helpers that know the class (same layer, reached lazily) -------------------------
def is_operand(x):
    global is_operand
    from .operands import is_operand

    return is_operand(x)


def refuse_dlpack(A):
    global refuse_dlpack
    from .._functions.dlpack import refuse_dlpack

    return refuse_dlpack(A)


def dlpack_device(A):
    global dlpack_device
    from .._functions.dlpack import dlpack_device

    return dlpack_device(A)


def repr_html(A):
    global repr_html
    from .display import repr_html

    return repr_html(A)


def dense_text(A, style):
    global dense_text
    from .display import dense_text

    return dense_text(A, style)


def dense_value(A):
    global dense_value
    from .display import dense_value

    return dense_value(A)


# --- NumPy's protocols (_numpy/) and Dask (interop/) -----------------------------------------------------
def array_function(A, func, types, args, kwargs):
    global array_function
    from .._numpy import array_function

    return array_function(A, func, types, args, kwargs)


def array_ufunc(ufunc, method, inputs, kwargs):
    global array_ufunc
    from .._numpy import array_ufunc

    return array_ufunc(ufunc, method, inputs, kwargs)


def dask_token(A):
    global dask_token
    from ..interop._dask_hooks import token as dask_token

    return dask_token(A)


#: the NumPy-named methods (``A.sum(axis=0)``, ``A.reshape(2, 3)``): each calls the NumPy function, which
#: NumPy hands to ``__array_function__`` (``_numpy/protocols.py``)
METHODS = ("sum", "prod", "max", "min", "mean", "var", "std", "any", "all", "reshape", "transpose", "squeeze", "ravel")
METHODS += ("conj", "conjugate")  # NumPy's conjugate methods: xarray's DataArray.conj() (xr.cov, xr.corr) calls them


def numpy_method(name):
    """``A.<name>(...)``: ``numpy.<name>(A, ...)`` (NumPy's arguments; ``reshape(2, 3)`` and
    ``transpose(1, 0)`` also take their sizes and axes unpacked, as NumPy's methods do)."""
    import numpy as np

    func = getattr(np, name)

    if name in ("reshape", "transpose"):

        def method(self, *args, **kwargs):
            if len(args) > 1 or (len(args) == 1 and isinstance(args[0], int)):
                args = (args,)
            return func(self, *args, **kwargs)

    else:

        def method(self, *args, **kwargs):
            return func(self, *args, **kwargs)

    method.__name__ = method.__qualname__ = name
    method.__doc__ = f"``numpy.{name}(self, ...)``: NumPy's arguments, answered by sparray (see sparray._numpy.protocols)."
    return method
