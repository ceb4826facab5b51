"""SparseArray: the abstract base of every layout.

It holds metadata and operator dunders that only forward to the namespace functions; the
layouts (``_coo.py``, ...) hold the buffers. What can be derived (ndim, size, density, nbytes,
sparse/dense/batch counts) is derived from the buffers, never stored.

Invariants every layout keeps:

- all components are arrays of ONE array-API namespace, held in ``self._xp`` (array-api-compat);
- ``shape`` is a tuple of Python ints; ``dtype`` is the dtype of the values;
- ``fill_value`` has that dtype and is 0-d or shaped like the dense part (``_fill.py``).
"""

from __future__ import annotations

import math
import sys

from . import forward, scipy_protocol
from .._core.namespace import device_of

__all__ = ["SparseArray"]


class SparseArray(scipy_protocol.ScipyNames):
    """Abstract base of ``COO`` and the compressed layouts. Not instantiated directly.

    ``tocsr``/``tocsc``/``tocoo``/``tobsr``/``toarray``/``todense``/``matvec``/``rmatvec``/``rmatmat``, the names
    scipy.sparse and pydata/sparse users type, come from ``sparray._array.scipy_protocol``."""

    layout: str = ""
    __hash__ = None  # element-wise __eq__ makes arrays unhashable, as in NumPy

    # --- metadata (derived) -------------------------------------------------------------
    @property
    def shape(self) -> tuple[int, ...]:
        return self._shape

    @property
    def ndim(self) -> int:
        return len(self._shape)

    @property
    def size(self) -> int:
        return math.prod(self._shape)

    @property
    def dtype(self):
        return self._values.dtype

    @property
    def device(self):
        return device_of(self._values)

    @property
    def fill_value(self):
        """The value of every unspecified element: 0-d, or shaped like the dense part; for the
        undefined fill (``sparray.undefined``) an empty array of shape ``(0,)``."""
        return self._fill

    @property
    def fill_is_defined(self) -> bool:
        """False when the fill is ``sparray.undefined`` (unspecified elements hold no value: a graph's
        missing edges); ``fill_value`` is then an empty array of shape ``(0,)`` (docs/graphs.md)."""
        f = self._fill.shape
        return not (len(f) == 1 and f[0] == 0 and self.dense_shape != (0,))

    @property
    def dense_ndim(self) -> int:
        return self._values.ndim - self._values_lead

    @property
    def batch_ndim(self) -> int:
        return 0

    @property
    def dense_shape(self) -> tuple[int, ...]:
        return self._shape[self.ndim - self.dense_ndim :]

    @property
    def density(self) -> float:
        """Fraction of the elements that are specified (a specified dense part or block counts in full)."""
        size = self.size
        return 0.0 if size == 0 else math.prod(self._values.shape) / size

    @property
    def nbytes(self) -> int:
        """Bytes held by the components and the fill value (iso values, one element broadcast, count once)."""
        from .._core.iso import held_elements

        total = sum(held_elements(c) * _itemsize(c.dtype) for c in self._components().values())
        return total + math.prod(self._fill.shape) * _itemsize(self._fill.dtype)

    @property
    def T(self):
        if self.ndim != 2:
            raise ValueError(f"{self.layout.upper()}.T: only defined for 2-d arrays; got ndim={self.ndim} (use mT)")
        return self.mT

    @property
    def mT(self):
        return forward.matrix_transpose(self)

    def __array_namespace__(self, /, *, api_version=None):
        """The ``sparray`` namespace; ``api_version`` may name any version up to ``sparray.__array_api_version__``."""
        forward.check_api_version(api_version)
        return forward.namespace()

    def __array__(self, dtype=None, copy=None):
        """``np.asarray(A)`` under the conversion rule (``sparray._array.implicit``): a result that
        holds dense values always converts, a sparse array when its dense form has at most
        ``sparray.AUTO_DENSIFY_THRESHOLD`` elements (or inside ``sparray.auto_densify()``, or with
        ``SPARRAY_AUTO_DENSIFY=1``), else TypeError; device arrays never (CuPy's rule). Inside
        scipy.sparse's operators it is "not an array" (``scipy_protocol.defers``)."""
        caller = sys._getframe(1)
        if scipy_protocol.defers(caller):  # inside scipy.sparse's S @ A, S * A, S == A ...: "not an array",
            return scipy_protocol.opaque(self)  # so scipy returns NotImplemented and Python calls ours
        from .implicit import to_numpy_implicitly

        return to_numpy_implicitly(self, dtype, copy, hint=scipy_protocol.hint(caller))

    # --- the binsparse interchange protocol (experimental; see sparray/_layout/binsparse.py) ----------
    def __binsparse_descriptor__(self) -> dict:
        """The parsed binsparse JSON descriptor of this array (``{"binsparse": {...}}``)."""
        return forward.binsparse_descriptor(self)

    def __binsparse__(self, *, descriptor=None) -> dict:
        """The named 1-d arrays of this array's binsparse form, shared with it where the formats agree."""
        return forward.binsparse_arrays(self, descriptor)

    # --- conversions shared by every layout --------------------------------------------------
    @property
    def values(self):
        """Values of the specified elements: ``(*batch, nse, [bh, bw,] *dense_shape)`` (see the layout)."""
        return self._values

    def to_layout(self, layout, *, blocksize=None, dense_ndim=None):
        """This array in ``layout`` ("coo", "csr", "csc", "bsr", "bsc"); see ``sparray._layout.conversion.to_layout``."""
        if blocksize is None and dense_ndim is None and not _iso(self):  # an iso array keeps its one value
            lean = forward.lean_to_layout(self, layout)  # 2-D NumPy CSR <-> CSC, COO -> CSR: straight to the kernel
            if lean is not None:
                return lean
        return forward.to_layout(self, layout, blocksize=blocksize, dense_ndim=dense_ndim)

    def astype(self, dtype, /, *, copy=True):
        return forward.astype(self, dtype, copy=copy)

    def __getitem__(self, key):
        """``self[key]`` with NumPy's basic and advanced indexing rules (see ``sparray._functions.indexing``)."""
        if not self.fill_is_defined:
            return forward.undefined_getitem(self, key)
        return forward.getitem(self, key)

    def __len__(self):
        if self.ndim == 0:
            raise TypeError("len() of a 0-d sparse array")
        return self._shape[0]

    def _scalar(self, kind):
        if self.size != 1:
            raise TypeError(f"only size-1 arrays can be converted to Python scalars; got shape {self.shape}")
        dense = self.to_dense()
        return kind(self._xp.reshape(dense, ()))

    def __bool__(self):
        return self._scalar(bool)

    def __int__(self):
        return self._scalar(int)

    def __float__(self):
        return self._scalar(float)

    def __complex__(self):
        return self._scalar(complex)

    # --- item assignment, __index__, DLPack (in-place operators: the table at the end) ---------------
    def __setitem__(self, key, value, /):
        """``self[key] = value``: NumPy's assignment, fill kept, copy-on-write (``sparray._functions.setitem``)."""
        forward.setitem(self, key, value)

    def __index__(self, /):
        """A 0-d integer array as a Python int (``operator.index``); TypeError for anything else."""
        from .._core.dtypes import isdtype

        if self.ndim != 0 or not isdtype(self.dtype, "integral"):
            raise TypeError(f"only 0-d integer arrays can be used as an index; got shape {self.shape}, dtype {_dtype_str(self.dtype)}")
        return self._scalar(int)

    def __dlpack__(self, /, *, stream=None, max_version=None, dl_device=None, copy=None):
        """Always raises BufferError: DLPack holds dense strided memory; the message names the fix (``sparray._functions.dlpack``)."""
        raise forward.refuse_dlpack(self)

    def __dlpack_device__(self, /):
        """The components' device as DLPack's ``(device type, device id)``."""
        return forward.dlpack_device(self)

    def __repr__(self) -> str:
        """PyTorch's style: the components first (long ones cut to their first and last items),
        then shape, dtype, nse, fill value and the layout's metadata. An array that holds dense
        values (0-d, or the namespace rule's dense results) reads as its value instead:
        ``sparray.asarray(3.0, dtype=float64, device=cpu)`` (``sparray._array.display.dense_text``).

        >>> import sparray
        >>> print(repr(sparray.COO([[0, 2]], [1.0, 2.0], shape=(3,), fill_value=-1.0)))
        sparray.COO(indices=[[0, 2]],
                    values=[1., 2.],
                    shape=(3,), dtype=float64, nse=2, fill_value=-1.0, sparse_ndim=1, index_dtype=int64, device=cpu)
        """
        from .implicit import holds_dense

        if holds_dense(self):
            return forward.dense_text(self, "repr")
        head = f"sparray.{type(self).__name__}("
        pad = " " * len(head)
        fill = self._fill
        if not self.fill_is_defined:
            fill_text = "undefined"
        else:
            fill_text = repr(_to_python(fill)) if fill.ndim == 0 else _array_text(fill, pad + " " * 11)
        parts = [f"shape={self.shape}", f"dtype={_dtype_str(self.dtype)}", f"nse={self.nse}", f"fill_value={fill_text}"]
        if self.dense_ndim:
            parts.append(f"dense_ndim={self.dense_ndim}")
        if self.batch_ndim:
            parts.append(f"batch_ndim={self.batch_ndim}")
        extra = self._repr_extra()
        if extra:
            parts.append(extra)
        parts.append(f"device={self.device}")
        lines = [f"{name}={_array_text(arr, pad + ' ' * (len(name) + 1))}" for name, arr in self._components().items()]
        lines.append(", ".join(parts))
        return head + (",\n" + pad).join(lines) + ")"

    def __str__(self) -> str:
        """The value as NumPy prints it (``3.0``, ``[0. 2. 5.]``) for an array that holds dense
        values; the repr for a sparse array."""
        from .implicit import holds_dense

        return forward.dense_text(self, "str") if holds_dense(self) else repr(self)

    def __format__(self, spec: str) -> str:
        """``f"{A}"`` is ``str(A)``; a format spec (``f"{s:.3f}"``) formats the value of a 0-d array."""
        if not spec:
            return str(self)
        if self.ndim != 0:
            raise TypeError(f"unsupported format string passed to sparray.{type(self).__name__}.__format__ (shape {self.shape})")
        return format(forward.dense_value(self)[()], spec)

    def _repr_extra(self) -> str:
        return ""

    # --- NumPy's protocols, pickle and Dask (sparray/_numpy/protocols.py, sparray/_array/pickle.py) ---------
    __array_priority__ = 10.0  # above NumPy's: Dask dispatches mixed sparse/dense chunks to sparray

    def __array_function__(self, func, types, args, kwargs):
        """NumPy functions with a sparray counterpart (``np.sum``, ``np.concatenate``, ...), else NotImplemented."""
        return forward.array_function(self, func, types, args, kwargs)

    def __array_ufunc__(self, ufunc, method, *inputs, **kwargs):
        """NumPy ufuncs with a sparray counterpart (``np.add``, ``np.exp``, ``np_array + A``), else NotImplemented."""
        return forward.array_ufunc(ufunc, method, inputs, kwargs)

    def __reduce_ex__(self, protocol):
        """pickle, copy, deepcopy: layout, components (protocol 5: out of band), shape, fill, flags."""
        from .pickle import reduce_array

        return reduce_array(self, protocol)

    def __sizeof__(self) -> int:
        """``sys.getsizeof`` (and so Dask's memory accounting): the object plus its components' bytes."""
        return object.__sizeof__(self) + self.nbytes

    def __dask_tokenize__(self):
        """Dask's deterministic token: layout, shape, fill and the components' contents."""
        return forward.dask_token(self)

    def _repr_html_(self) -> str:
        """Jupyter's view: a table (layout, shape, dtype, device, nse, density, fill, index dtype,
        memory against dense) beside a picture of the sparsity pattern (``sparray._array.display``);
        None for an array that holds dense values, which Jupyter then shows as its text repr."""
        from .implicit import holds_dense

        return None if holds_dense(self) else forward.repr_html(self)


def _iso(A) -> bool:
    """A quick look at whether A's values may be iso (``sparray._core.iso``): a zero leading stride."""
    v = A._values
    strides = getattr(v, "strides", None)
    return bool(strides) and strides[0] == 0 and v.shape[0] > 1


def _itemsize(dtype) -> int:
    from .._core.dtypes import dtype_name
    import numpy as np

    return np.dtype(dtype_name(dtype)).itemsize


def _dtype_str(dtype) -> str:
    from .._core.dtypes import dtype_name

    try:
        return dtype_name(dtype)
    except TypeError:
        return str(dtype)


_REPR_THRESHOLD = 24  # components with more elements show their first and last 3 items per axis


def _array_text(x, indent: str) -> str:
    """A component as NumPy prints it (cut with ``...`` past ``_REPR_THRESHOLD`` elements), its
    continuation lines indented by ``indent``. A large array of a device namespace is not copied
    to the host: only its shape and dtype are shown."""
    import numpy as np

    from .._core.namespace import to_numpy

    size = math.prod(x.shape)
    if not isinstance(x, np.ndarray) and size > 4 * _REPR_THRESHOLD and type(x).__module__.split(".")[0] == "cupy":
        return f"<{type(x).__module__.split('.')[0]} array shape={tuple(x.shape)} dtype={_dtype_str(x.dtype)}>"
    text = np.array2string(np.asarray(to_numpy(x)), threshold=_REPR_THRESHOLD, edgeitems=3, separator=", ")
    return "\n".join((indent + line if i else line).rstrip() for i, line in enumerate(text.split("\n")))


def _to_python(x):
    try:
        return x.item() if hasattr(x, "item") else float(x)
    except Exception:
        return x


# ---- operators: generated from a table, each forwards to the namespace function --------------
_BINARY_DUNDERS = {
    "add": "add", "sub": "subtract", "mul": "multiply", "truediv": "divide", "floordiv": "floor_divide",
    "mod": "remainder", "pow": "pow", "and": "bitwise_and", "or": "bitwise_or", "xor": "bitwise_xor",
    "lshift": "bitwise_left_shift", "rshift": "bitwise_right_shift", "matmul": "matmul",
}  # fmt: skip
_COMPARISON_DUNDERS = {
    "eq": "equal", "ne": "not_equal", "lt": "less", "le": "less_equal", "gt": "greater", "ge": "greater_equal",
}  # fmt: skip
_UNARY_DUNDERS = {"neg": "negative", "pos": "positive", "abs": "abs", "invert": "bitwise_invert"}


def _make_binary(fname, reflected):
    def op(self, other):
        if not forward.is_operand(other):
            return scipy_protocol.binary(self, other, fname, reflected)  # a scipy.sparse S, else NotImplemented
        f = forward.function(fname)
        return f(other, self) if reflected else f(self, other)

    return op


def _make_unary(fname):
    def op(self):
        return forward.function(fname)(self)

    return op


for _d, _f in _BINARY_DUNDERS.items():
    _fwd = _make_binary(_f, False)
    _fwd.__name__ = _fwd.__qualname__ = f"__{_d}__"
    _fwd.__doc__ = f"``self {_d} other``: forwards to ``sparray.{_f}``."
    setattr(SparseArray, f"__{_d}__", _fwd)
    _ref = _make_binary(_f, True)
    _ref.__name__ = _ref.__qualname__ = f"__r{_d}__"
    _ref.__doc__ = f"reflected ``other {_d} self``: forwards to ``sparray.{_f}``."
    setattr(SparseArray, f"__r{_d}__", _ref)
for _d, _f in _COMPARISON_DUNDERS.items():
    _fwd = _make_binary(_f, False)
    _fwd.__name__ = _fwd.__qualname__ = f"__{_d}__"
    setattr(SparseArray, f"__{_d}__", _fwd)
for _d, _f in _UNARY_DUNDERS.items():
    _fwd = _make_unary(_f)
    _fwd.__name__ = _fwd.__qualname__ = f"__{_d}__"
    setattr(SparseArray, f"__{_d}__", _fwd)

def _make_inplace(stem):
    def op(self, other, /):
        out = forward.inplace(self, stem, other)
        return scipy_protocol.inplace(self, stem, other) if out is NotImplemented else out  # a scipy.sparse S

    op.__name__ = op.__qualname__ = f"__i{stem}__"
    op.__doc__ = f"``self {stem}= other`` on this very object: same dtype and shape, or an error (``sparray._functions.inplace``)."
    return op


for _d in _BINARY_DUNDERS:
    setattr(SparseArray, f"__i{_d}__", _make_inplace(_d))


def _lean_first(name, general):
    """The dunder ``general`` with the lean path ``sparray._products.lean.<name>(self, other)`` tried
    first (a 2-D NumPy CSR or CSC with a NumPy or scalar operand, straight to its kernel; None when
    the general path must serve the call). The lean function is looked up on the first call."""
    lean = None

    def op(self, other):
        nonlocal lean
        if lean is None:
            lean = forward.lean(name)
        out = lean(self, other)
        return general(self, other) if out is None else out

    op.__name__ = op.__qualname__ = general.__name__
    op.__doc__ = general.__doc__
    return op


SparseArray.__matmul__ = _lean_first("matmul", SparseArray.__matmul__)
SparseArray.__add__ = _lean_first("add", SparseArray.__add__)
SparseArray.__mul__ = _lean_first("multiply", SparseArray.__mul__)
SparseArray.__rmul__ = _lean_first("multiply", SparseArray.__rmul__)

# ---- NumPy-named methods (A.sum(axis=0), A.reshape(2, 3), ...): each calls the NumPy function ----------
for _m in forward.METHODS:
    setattr(SparseArray, _m, forward.numpy_method(_m))
