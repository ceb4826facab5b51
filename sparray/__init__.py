"""sparray: sparse arrays for the array API world, with a first-class fill value.

``import sparray`` gives an array-API namespace for sparse arrays: ``A.__array_namespace__()``
returns this module, so array-API code written against ``xp`` runs on sparse input.

>>> import sparray
>>> A = sparray.COO([[0, 2]], [5.0, 7.0], shape=(4,), fill_value=1.0)
>>> (A * 2).to_dense()
array([10.,  2., 14.,  2.])

Importing sparray loads this module only: each public name loads its module on first use (NumPy
and array-api-compat with the first array; numba, CuPy, SciPy and torch when an operation first
needs them). docs/architecture.md shows the parts and the order of their layers.
"""

from __future__ import annotations

__version__ = "0.1.0"
__array_api_version__ = "2024.12"

e = 2.718281828459045
inf = float("inf")
nan = float("nan")
pi = 3.141592653589793
newaxis = None

# --- where each public name lives (loaded on first use: PEP 562, as SciPy loads its subpackages) ---------
# The layers, low to high (docs/architecture.md; tests/test_architecture.py keeps them): kernels/ <
# _core/ < _engine/ < _array/ < _layout/, interop/ < _functions/, _products/ < linalg/, fft/, io/ <
# this namespace < _numpy/, _tools/.
_UNARY = (
    "abs", "acos", "acosh", "asin", "asinh", "atan", "atanh", "bitwise_invert", "ceil", "conj", "cos",
    "cosh", "exp", "expm1", "floor", "imag", "isfinite", "isinf", "isnan", "log", "log1p", "log2", "log10",
    "logical_not", "negative", "positive", "real", "reciprocal", "round", "sign", "signbit", "sin", "sinh",
    "square", "sqrt", "tan", "tanh", "trunc",
)
_BINARY = (
    "add", "atan2", "bitwise_and", "bitwise_left_shift", "bitwise_or", "bitwise_right_shift",
    "bitwise_xor", "copysign", "divide", "equal", "floor_divide", "greater", "greater_equal", "hypot",
    "less", "less_equal", "logaddexp", "logical_and", "logical_or", "logical_xor", "maximum", "minimum",
    "multiply", "nextafter", "not_equal", "pow", "remainder", "subtract",
)
_HOMES = {
    "._array.base": ("SparseArray",),
    "._array.coo": ("COO",),
    "._array.compressed": ("CSR", "CSC"),
    "._array.blocked": ("BSR", "BSC"),
    "._array.semi_structured": ("SemiStructured",),
    "._array.display": ("spy",),
    "._array.implicit": ("AUTO_DENSIFY_THRESHOLD", "auto_densify"),
    "._core.dtypes": (
        "bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64", "float32", "float64",
        "complex64", "complex128", "float16", "result_type", "can_cast", "finfo", "iinfo", "isdtype",
    ),
    "._core.validation": ("check_invariants",),
    "._core.fill": ("undefined",),
    "._engine.dispatch": ("SparrayPerformanceWarning", "backends", "use_backend", "kernel_table"),
    "._layout.conversion": ("astype",),
    "._layout.binsparse": ("from_binsparse",),
    "._functions.creation": (
        "asarray", "zeros", "ones", "full", "empty", "eye", "zeros_like", "ones_like", "full_like", "empty_like",
        "arange", "linspace", "random",
    ),
    "._functions.dlpack": ("from_dlpack",),
    "._functions.elementwise": (*_UNARY, *_BINARY, "clip"),
    "._functions.reductions": ("sum", "prod", "max", "min", "mean", "var", "std", "any", "all"),
    "._functions.manipulation": (
        "broadcast_to", "matrix_transpose", "permute_dims", "moveaxis", "reshape", "expand_dims", "squeeze", "flip",
        "transpose",  # beyond the standard, as NumPy's (xarray calls it)
    ),
    "._functions.concat": ("concat", "stack"),
    "._functions.broadcasting": ("broadcast_arrays", "meshgrid"),
    "._functions.take": ("take", "take_along_axis", "unstack"),
    "._functions.tiling": ("repeat", "roll", "tile"),
    "._functions.triangular": ("tril", "triu"),
    "._functions.searching": ("where", "nonzero"),
    "._functions.arg_extremes": ("argmax", "argmin"),
    "._functions.counting": ("count_nonzero", "searchsorted"),
    "._functions.cumulative": ("cumulative_sum", "cumulative_prod"),
    "._functions.diff": ("diff",),
    "._functions.sets": ("unique_values", "unique_counts", "unique_inverse", "unique_all"),
    "._functions.sorting": ("sort", "argsort"),
    "._functions.einsum": ("einsum",),  # beyond the standard, as NumPy's (xarray calls both)
    "._functions.pad": ("pad",),
    "._functions.semi_structured": ("prune_2_4",),
    "._products.linalg": ("matmul", "tensordot", "vecdot", "addmm", "sampled_addmm"),
    "._products.softmax": ("softmax", "log_softmax"),
    ".io._npz": ("save_npz", "load_npz"),
}  # fmt: skip
_SUBPACKAGES = ("interop", "io", "sparse", "linalg", "fft", "kernels", "graph")
_FOLDERS = ("_core", "_engine", "_array", "_layout", "_functions", "_products", "_numpy", "_tools")

# the namespace rule (sparray._array.results): called with sparray arrays only, these return sparray
# arrays also where their result is dense by nature
_RESULTS = frozenset((
    "sum", "prod", "max", "min", "mean", "var", "std", "any", "all", "nonzero", "where", "argmax", "argmin",
    "count_nonzero", "searchsorted", "argsort", "sort", "unique_values", "unique_counts", "unique_inverse",
    "unique_all", "cumulative_sum", "cumulative_prod", "diff", "matmul", "tensordot", "vecdot", "take",
    "take_along_axis", "clip", "einsum",
))  # fmt: skip
# implementations that register in the device registry next to their code, outside _engine/: loaded
# before the registry's table is shown
_REGISTERING = ("._functions.elementwise", "._layout.conversion", "._products.products", "._layout.semi_structured",
                "._products.semi_structured")

_HOME = {name: module for module, names in _HOMES.items() for name in names}
# the functions that meet layouts they do not know through the layout door (sparray._functions.layout_door)
_DOOR_FOLDERS = ("._functions", "._products", "._layout", ".io")
# ... but not these: they read and write every layout's own components themselves (a 2:4 array's values,
# metadata and transposed flag), so a 2:4 argument must reach them as it is, not as its CSR
_NO_DOOR = frozenset(("save_npz", "load_npz", "from_binsparse"))


def __getattr__(name):
    import importlib

    if name in _HOME:
        if name == "kernel_table":
            for module in _REGISTERING:
                importlib.import_module(module, __name__)
        value = getattr(importlib.import_module(_HOME[name], __name__), name)
        door = _HOME[name].startswith(_DOOR_FOLDERS) and name not in _NO_DOOR
        if door and callable(value) and not isinstance(value, type):
            from ._functions.layout_door import through_layouts

            value = through_layouts(value, name)  # a 2:4 argument: its native path, or its CSR
        if name in _RESULTS:
            from ._array.results import sparray_results

            value = sparray_results(value)
    elif name in _SUBPACKAGES:
        value = importlib.import_module("." + name, __name__)
    elif name in _FOLDERS:  # the private parts, as attributes (``sparray._engine.dispatch``) once asked for
        return importlib.import_module("." + name, __name__)
    elif name == "__array_namespace_info__":
        from ._functions.namespace_info import array_namespace_info as value
    elif name == "lib":  # NumPy's lib.stride_tricks.sliding_window_view (xarray's rolling reads it)
        from ._functions.windows import lib as value
    else:
        raise AttributeError(f"module 'sparray' has no attribute {name!r}")
    globals()[name] = value
    return value


def __dir__():
    return sorted(set(globals()) | set(_HOME) | set(_SUBPACKAGES) | {"__array_namespace_info__", "lib"})


__all__ = [
    "SparseArray", "COO", "CSR", "CSC", "BSR", "BSC", "SemiStructured", "prune_2_4", "SparrayPerformanceWarning",
    "asarray", "zeros", "ones", "full", "empty", "eye", "zeros_like", "ones_like", "full_like",
    "empty_like", "arange", "linspace", "random",
    "astype", "result_type", "can_cast", "finfo", "iinfo", "isdtype",
    "bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
    "float32", "float64", "complex64", "complex128", "float16",
    *_UNARY, *_BINARY, "clip",
    "sum", "prod", "max", "min", "mean", "var", "std", "any", "all",
    "broadcast_to", "matrix_transpose", "permute_dims", "moveaxis", "reshape", "expand_dims", "squeeze", "flip",
    "concat", "stack", "where", "nonzero",
    "broadcast_arrays", "meshgrid", "tril", "triu", "repeat", "roll", "tile", "unstack", "take", "take_along_axis",
    "argmax", "argmin", "count_nonzero", "searchsorted", "sort", "argsort",
    "unique_values", "unique_counts", "unique_inverse", "unique_all", "cumulative_sum", "cumulative_prod", "diff",
    "matmul", "tensordot", "vecdot", "addmm", "sampled_addmm", "softmax", "log_softmax", "einsum", "pad",
    "transpose", "save_npz", "load_npz", "from_binsparse", "from_dlpack",
    "backends", "use_backend", "kernel_table", "check_invariants", "spy",
    "AUTO_DENSIFY_THRESHOLD", "auto_densify", "undefined",
    "e", "inf", "nan", "pi", "newaxis",
]  # fmt: skip


# --- old module paths (before the folders): pickles name classes and functions by module, such as
# ``sparray._coo.COO`` and ``sparray._pickle.rebuild``; those paths stay importable, as the modules' new homes
# (``sparray._products`` is the product engine's folder now; its old module held nothing a pickle names)
_OLD_PATHS = {
    "_arg_extremes": "_functions.arg_extremes", "_base": "_array.base", "_binsparse": "_layout.binsparse",
    "_blocked": "_array.blocked", "_bool_keys": "_functions.bool_keys",
    "_broadcasting": "_functions.broadcasting", "_coalesce": "_layout.coalesce",
    "_compress": "_layout.compress", "_compressed": "_array.compressed",
    "_compressed_generic": "_engine.compressed_generic", "_concat": "_functions.concat",
    "_conversion": "_layout.conversion", "_coo": "_array.coo", "_counting": "_functions.counting",
    "_creation": "_functions.creation", "_cumulative": "_functions.cumulative", "_diff": "_functions.diff",
    "_dispatch": "_engine.dispatch", "_display": "_array.display", "_dlpack": "_functions.dlpack",
    "_dtypes": "_core.dtypes", "_elementwise": "_functions.elementwise", "_fill": "_core.fill",
    "_indexing": "_functions.indexing", "_info": "_tools.info", "_inplace": "_functions.inplace",
    "_jit": "_engine.jit", "_jit_worker": "_engine.jit_worker", "_keys": "_core.keys",
    "_lean": "_products.lean", "_lean_device": "_engine.lean_device", "_linalg": "_products.linalg",
    "_linalg_generic": "_engine.linalg_generic", "_lines": "_functions.lines",
    "_manipulation": "_functions.manipulation", "_merge": "_engine.merge", "_namespace": "_core.namespace",
    "_namespace_info": "_functions.namespace_info", "_npz": "io._npz", "_numpy_extras": "_numpy.extras",
    "_numpy_protocols": "_numpy.protocols", "_operands": "_array.operands", "_order": "_functions.order",
    "_pickle": "_array.pickle", "_progress": "_engine.progress",
    "_ragged": "_engine.ragged", "_reductions": "_functions.reductions",
    "_reductions_compressed": "_functions.reductions_compressed",
    "_registry_table": "_engine.registry_table", "_results": "_array.results",
    "_searching": "_functions.searching", "_segments": "_engine.segments",
    "_setitem": "_functions.setitem", "_sets": "_functions.sets", "_softmax": "_products.softmax",
    "_sorting": "_functions.sorting", "_special_values": "_functions.special_values",
    "_take": "_functions.take", "_tiling": "_functions.tiling", "_triangular": "_functions.triangular",
    "_validation": "_core.validation", "_warmup": "_tools.warmup",
}  # fmt: skip


class _OldPaths:
    """A finder on ``sys.meta_path`` for the old module names only: ``import sparray._coo`` gives
    the module ``sparray._array.coo`` (the same object, so pickles and patches see one module)."""

    @classmethod
    def find_spec(cls, fullname, path=None, target=None):
        if not fullname.startswith("sparray._") or fullname[len("sparray."):] not in _OLD_PATHS:
            return None
        import importlib.util

        return importlib.util.spec_from_loader(fullname, cls)

    @staticmethod
    def create_module(spec):
        import importlib

        module = importlib.import_module("sparray." + _OLD_PATHS[spec.name[len("sparray."):]])
        spec.loader_state = module.__spec__  # the import system sets the old name's spec on the module next
        return module

    @staticmethod
    def exec_module(module):
        module.__spec__ = module.__spec__.loader_state  # the module keeps its own spec


def _install_old_paths():
    import sys

    if not any(getattr(f, "__name__", None) == "_OldPaths" and f.__module__ == __name__ for f in sys.meta_path):
        sys.meta_path.insert(0, _OldPaths)  # before an editable install's finder, which knows only files


_install_old_paths()


def _check_settings():
    """SPARRAY_BACKEND and SPARRAY_JIT, when set, are read and checked at import (a wrong value
    fails here, not at the first call): the engine, which reads them, loads now. So is
    SPARRAY_AUTO_DENSIFY (``np.asarray``'s conversion rule, ``_array/implicit.py``)."""
    import os

    if os.environ.get("SPARRAY_BACKEND") or os.environ.get("SPARRAY_JIT"):
        from ._engine import dispatch  # noqa: F401
    if os.environ.get("SPARRAY_AUTO_DENSIFY", "").strip():
        from ._array.implicit import check_environment

        check_environment()


_check_settings()
del annotations  # the __future__ import above is not a public name of the namespace
