"""sparray: sparse arrays for the array API world, with a first-class fill value.

``import sparray`` gives an array-API namespace for sparse arrays: ``A.__array_namespace__()``
returns this module, so array-API code written against ``xp`` runs on sparse input.

>>> import sparray
>>> A = sparray.COO([[0, 2]], [5.0, 7.0], shape=(4,), fill_value=1.0)
>>> (A * 2).to_dense()
array([10.,  2., 14.,  2.])

Importing sparray imports NumPy and array-api-compat only; numba, CuPy, SciPy and torch are
imported when an operation first needs them.
"""

from __future__ import annotations

__version__ = "0.1.0"
__array_api_version__ = "2024.12"

from ._engine import registry_table as _registry_table  # noqa: F401  (fills the device registry; imports no kernel module)
from ._engine import compressed_generic as _compressed_generic
from ._engine import linalg_generic as _linalg_generic
from ._engine import merge as _merge
from ._engine import segments as _segments  # noqa: F401  (register the generic implementations)
from . import interop, io, sparse  # noqa: F401  (sparray.interop: torch/scipy, loaded on first use; sparray.io:
# Matrix Market; xp.sparse: the sparse-interchange extension)
from . import linalg  # noqa: F401  (xp.linalg: the array API's linalg extension; imports no SciPy or numba)
from . import fft  # noqa: F401  (xp.fft: the array API's fft extension)
from ._array.base import SparseArray
from ._layout.binsparse import from_binsparse
from ._layout.conversion import astype
from ._array.blocked import BSC, BSR
from ._array.compressed import CSC, CSR
from ._array.coo import COO
from ._functions.creation import (
    arange,
    asarray,
    empty,
    empty_like,
    eye,
    full,
    full_like,
    linspace,
    ones,
    ones_like,
    random,
    zeros,
    zeros_like,
)
from ._engine.dispatch import SparrayPerformanceWarning, backends, kernel_table, use_backend
from ._core.dtypes import (
    bool,
    can_cast,
    complex64,
    complex128,
    finfo,
    float32,
    float64,
    iinfo,
    int8,
    int16,
    int32,
    int64,
    isdtype,
    result_type,
    uint8,
    uint16,
    uint32,
    uint64,
)
from ._functions.elementwise import *  # noqa: F403  (the tables in _elementwise define the names)
from ._functions.elementwise import BINARY as _BINARY
from ._functions.elementwise import UNARY as _UNARY
from ._products.linalg import addmm, matmul, sampled_addmm, tensordot, vecdot
from ._functions.concat import concat, stack
from ._functions.manipulation import broadcast_to, expand_dims, flip, matrix_transpose, moveaxis, permute_dims, reshape, squeeze
from ._functions.broadcasting import broadcast_arrays, meshgrid
from ._functions.take import take, take_along_axis, unstack
from ._functions.tiling import repeat, roll, tile
from ._functions.triangular import tril, triu
from .io._npz import load_npz, save_npz
from ._functions.searching import nonzero, where
from ._functions.arg_extremes import argmax, argmin
from ._functions.counting import count_nonzero, searchsorted
from ._functions.cumulative import cumulative_prod, cumulative_sum
from ._functions.diff import diff
from ._functions.sets import unique_all, unique_counts, unique_inverse, unique_values
from ._functions.sorting import argsort, sort
from ._products.softmax import log_softmax, softmax
from ._functions.reductions import all, any, max, mean, min, prod, std, sum, var
from ._core.validation import check_invariants
from ._array.display import spy
from ._array.dlpack import from_dlpack
from ._functions.namespace_info import array_namespace_info as __array_namespace_info__  # noqa: F401  (a dunder: not in __all__)

from ._array.results import sparray_results as _sparray_results

# the namespace rule (sparray._array.results): called with sparray arrays only, these return sparray
# arrays also where their result is dense by nature
for _name in ("sum", "prod", "max", "min", "mean", "var", "std", "any", "all", "nonzero", "where", "argmax",
              "argmin", "count_nonzero", "searchsorted", "argsort", "sort", "unique_values", "unique_counts",
              "unique_inverse", "unique_all", "cumulative_sum", "cumulative_prod", "diff", "matmul", "tensordot",
              "vecdot", "take", "take_along_axis", "clip"):  # fmt: skip
    globals()[_name] = _sparray_results(globals()[_name])
del _name
linalg.matmul, linalg.tensordot, linalg.vecdot = matmul, tensordot, vecdot  # xp.linalg's are the same functions

del annotations  # the __future__ import above is not a public name of the namespace

e = 2.718281828459045
inf = float("inf")
nan = float("nan")
pi = 3.141592653589793
newaxis = None

__all__ = [
    "SparseArray", "COO", "CSR", "CSC", "BSR", "BSC", "SparrayPerformanceWarning",
    "asarray", "zeros", "ones", "full", "empty", "eye", "zeros_like", "ones_like", "full_like",
    "empty_like", "arange", "linspace", "random",
    "astype", "result_type", "can_cast", "finfo", "iinfo", "isdtype",
    "bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
    "float32", "float64", "complex64", "complex128",
    *_UNARY, *_BINARY, "clip",
    "sum", "prod", "max", "min", "mean", "var", "std", "any", "all",
    "broadcast_to", "matrix_transpose", "permute_dims", "moveaxis", "reshape", "expand_dims", "squeeze", "flip",
    "concat", "stack", "where", "nonzero",
    "broadcast_arrays", "meshgrid", "tril", "triu", "repeat", "roll", "tile", "unstack", "take", "take_along_axis",
    "argmax", "argmin", "count_nonzero", "searchsorted", "sort", "argsort",
    "unique_values", "unique_counts", "unique_inverse", "unique_all", "cumulative_sum", "cumulative_prod", "diff",
    "matmul", "tensordot", "vecdot", "addmm", "sampled_addmm", "softmax", "log_softmax",
    "save_npz", "load_npz", "from_binsparse", "from_dlpack",
    "backends", "use_backend", "kernel_table", "check_invariants", "spy",
    "e", "inf", "nan", "pi", "newaxis",
]  # fmt: skip
