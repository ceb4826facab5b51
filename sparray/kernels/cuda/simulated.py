"""A simulated CUDA device: CI's GPU place for the whole public path, with every wait counted.

An array on the simulated device (:class:`SimulatedArray`) holds a NumPy buffer but behaves as a
CuPy array does, so sparray treats it as GPU data from end to end:

- its namespace is a distinct device kind that the registry serves from the ``cupy`` column; the
  launchers get :data:`numpy_like` (CuPy's NumPy-like module) as ``driver.xp`` and the kernels run
  through the host C++ emulator (the same ``.cu`` sources, see ``_driver.SimulatedDriver``);
- mixing it with host data is an error, as on a GPU: a NumPy array operand, ``np.asarray(a)``
  (``__array__`` refuses), a NumPy ufunc on it (stricter than CuPy, on purpose: ``_cupy_rules``);
- an operator with another kind of operand (a sparray SparseArray, a Dask array) is decided as
  CuPy 14.2 decides it (``_cupy_rules``: defer to the operand's reflected operator when its
  ``__array_ufunc__`` is None, else hand it NumPy's ufunc protocol), and index keys held on the
  host (lists, NumPy arrays) are copied to the device as CuPy copies them;
- every device-to-host transfer is counted, wherever sparray makes it: ``bool(a)``, ``int(a)``,
  ``float(a)``, ``a.item()``, ``a.tolist()``, ``a.get()``, ``repr(a)``, a boolean-mask index and
  the functions whose output size depends on the data (``nonzero``, ``unique``, ``repeat`` with
  counts, ...: CuPy waits for the device to size their result). The driver's ``scalar`` is the
  launchers' door and counts through the same :func:`note_sync`; launches are counted too, and
  so are host-to-device copies (``uploads``: ``asarray`` of host data, index keys; no wait).

:func:`counting` opens a window of counts (syncs, uploads, launches, and where each sync came from);
``record_only=True`` records the launches without running them, which times the host path alone.

>>> import numpy as np
>>> a = to_simulated(np.arange(4.0))
>>> with counting() as c:
...     b = a * 2 + 1          # stays on the device: no sync
...     total = float(b.sum())  # one read to the host
>>> total, c.syncs
(16.0, 1)
"""

from __future__ import annotations

import contextlib
import functools
import operator
import sys
import types

import numpy as np

from . import _cupy_rules as _rules

__all__ = [
    "DEVICE",
    "SimulatedArray",
    "SimulatedDevice",
    "Counts",
    "array_api",
    "counting",
    "is_simulated",
    "note_launch",
    "note_sync",
    "note_upload",
    "numpy_like",
    "to_simulated",
]


class SimulatedDevice:
    """The one simulated CUDA device (``repr``: ``'simulated'``); ``to_device("simulated")`` names it."""

    def __repr__(self):
        return "simulated"

    def __eq__(self, other):
        return isinstance(other, SimulatedDevice) or other == "simulated"

    def __hash__(self):
        return hash("simulated")


DEVICE = SimulatedDevice()


# -- counting -----------------------------------------------------------------------------------


class Counts:
    """The device-to-host syncs and kernel launches of one :func:`counting` window.

    ``syncs``: transfers to the host (each one a wait for the device); ``sites``: for each, what
    made it and the sparray function that asked; ``uploads``/``upload_sites``: the same for copies
    from the host to the device (no wait: CuPy queues them); ``launches``: kernels launched, as
    ``(source, name)``; ``record_only``: launches are recorded but not run."""

    def __init__(self, record_only=False):
        self.syncs = 0
        self.sites: list[str] = []
        self.uploads = 0
        self.upload_sites: list[str] = []
        self.launches: list[tuple[str, str]] = []
        self.record_only = record_only

    def __repr__(self):
        return f"Counts(syncs={self.syncs}, uploads={self.uploads}, launches={len(self.launches)})"


_WINDOWS: list[Counts] = []


@contextlib.contextmanager
def counting(*, record_only: bool = False):
    """Count the syncs and launches made inside the ``with`` block (windows nest: each counts)."""
    counts = Counts(record_only)
    _WINDOWS.append(counts)
    try:
        yield counts
    finally:
        _WINDOWS.remove(counts)


def _caller() -> str:
    """The innermost sparray frame outside this module: where a sync was asked for."""
    f = sys._getframe(2)
    while f is not None:
        name = f.f_code.co_filename
        if "sparray" in name and not name.endswith("simulated.py") and not name.endswith("_driver.py"):
            return f"{name.rsplit('sparray', 1)[-1].lstrip('/')}:{f.f_lineno} {f.f_code.co_name}"
        f = f.f_back
    return "?"


def _note(count: str, sites: str, what: str) -> None:
    """Add one to counter ``count`` and ``what``'s site to list ``sites`` in every open window."""
    if _WINDOWS:
        site = f"{what} @ {_caller()}"
        for w in _WINDOWS:
            setattr(w, count, getattr(w, count) + 1)
            getattr(w, sites).append(site)


def note_sync(what: str) -> None:
    """Count one device-to-host transfer (``what`` made it) in every open window."""
    _note("syncs", "sites", what)


def note_upload(what: str) -> None:
    """Count one host-to-device copy (``what`` made it) in every open window."""
    _note("uploads", "upload_sites", what)


def note_launch(source: str, name: str) -> bool:
    """Count one launch in every open window; True when the innermost window only records."""
    for w in _WINDOWS:
        w.launches.append((source, name))
    return bool(_WINDOWS) and _WINDOWS[-1].record_only


# -- wrapping -----------------------------------------------------------------------------------


def _unwrap(x, *, host_ok=False, who="?"):
    """SimulatedArray -> its buffer (recursively in lists and tuples); a NumPy array is a host
    array: refused unless ``host_ok`` (asarray and friends copy it to the device). A 0-d one too:
    CuPy's kernels take Python and NumPy scalars but no NumPy array (``_scalar.CScalar``: "Unsupported
    type"); its comparisons read a 0-d one as its item first (``_compare``)."""
    if type(x) is SimulatedArray:
        return x._a
    if isinstance(x, np.ndarray) and not host_ok:
        raise TypeError(
            f"simulated device: {who} got a NumPy array of shape {x.shape} (host memory) among device "
            "arrays; move it first (xp.asarray) -- a CuPy array refuses the same"
        )
    if type(x) in (list, tuple):
        return type(x)(_unwrap(v, host_ok=host_ok, who=who) for v in x)
    return x


def _wrap(r):
    """NumPy results -> SimulatedArray (scalars become 0-d arrays, as CuPy returns)."""
    if isinstance(r, np.ndarray):
        return SimulatedArray(r)
    if isinstance(r, np.generic):
        return SimulatedArray(np.asarray(r))
    if isinstance(r, tuple):
        items = [_wrap(v) for v in r]
        return type(r)(*items) if hasattr(r, "_fields") else tuple(items)
    if isinstance(r, list):
        return [_wrap(v) for v in r]
    return r


def _kwargs(kw, host_ok, who):
    out = {}
    for k, v in kw.items():
        if k == "device":
            if v is not None and not (v == DEVICE or v == "cuda"):
                raise ValueError(f"simulated device: {who} got device={v!r}; arrays here live on 'simulated'")
            continue
        out[k] = _unwrap(v, host_ok=host_ok, who=who)
    return out


#: functions whose result size depends on the data: CuPy reads a count back before it allocates
_SIZED_BY_DATA = {"nonzero", "flatnonzero", "argwhere", "unique", "unique_all", "unique_counts",
                  "unique_inverse", "unique_values", "compress", "extract", "trim_zeros"}  # fmt: skip
#: functions that take host data and put it on the device
_FROM_HOST = {"asarray", "array", "ascontiguousarray", "asanyarray", "from_dlpack", "copy"}


def _wrapped_function(fn, name):
    host_ok = name in _FROM_HOST

    @functools.wraps(fn)
    def call(*args, **kw):
        if name in _SIZED_BY_DATA or (name == "repeat" and len(args) > 1 and type(args[1]) is SimulatedArray and args[1].ndim):
            note_sync(f"{name}()")
        if name == "argsort" or name == "sort":
            kw.setdefault("stable", True) if "stable" in _params(fn) else kw.setdefault("kind", "stable")
        if host_ok and name != "copy" and args and type(args[0]) is not SimulatedArray:
            note_upload(f"{name}()")
        plain = _unwrap(args, host_ok=host_ok, who=name)
        r = fn(*plain, **_kwargs(kw, host_ok, name))
        if args and r is plain[0] and type(args[0]) is SimulatedArray:
            return args[0]  # asarray(a), ascontiguousarray(a), astype(a, same): a itself, as CuPy returns
        return _wrap(r)

    return call


@functools.cache
def _params(fn):
    import inspect

    try:
        return frozenset(inspect.signature(fn).parameters)
    except (TypeError, ValueError):
        return frozenset()


class _Namespace(types.ModuleType):
    """A module whose functions are ``source``'s, on SimulatedArrays: arguments unwrapped, results
    wrapped; types, dtypes and constants passed through."""

    def __init__(self, name, source, extra=None, submodules=()):
        super().__init__(name)
        self._source = source
        self._sparray_simulated = True
        for k, v in (extra or {}).items():
            setattr(self, k, v)
        for sub in submodules:
            setattr(self, sub, _Namespace(f"{name}.{sub}", getattr(source, sub)))

    def __getattr__(self, name):
        if name.startswith("__"):
            raise AttributeError(name)
        value = getattr(self._source, name)
        if callable(value) and not isinstance(value, type) and name not in ("finfo", "iinfo", "dtype", "isdtype"):
            value = _wrapped_function(value, name)
        setattr(self, name, value)  # looked up once
        return value

    def __repr__(self):
        return f"<simulated CUDA namespace {self.__name__!r}>"


def _asnumpy(a):
    """A device array copied to the host (CuPy's ``asnumpy``): one sync."""
    if type(a) is SimulatedArray:
        return a.get()
    return np.asarray(a)


#: the NumPy-like module of the device (what ``import cupy`` is on a GPU): ``driver.xp`` of launches
numpy_like = _Namespace("sparray.simulated_numpy", np, {"asnumpy": _asnumpy})


def _namespace_info():
    import array_api_compat.numpy as xpn

    info = xpn.__array_namespace_info__()

    class Info:
        def capabilities(self):
            return info.capabilities()

        def default_device(self):
            return DEVICE

        def devices(self):
            return [DEVICE]

        def default_dtypes(self, *, device=None):
            return info.default_dtypes()

        def dtypes(self, *, device=None, kind=None):
            return info.dtypes(kind=kind)

    return Info()


def _array_api():
    import array_api_compat.numpy as xpn

    ns = _Namespace("sparray.simulated", xpn, {"__array_namespace_info__": _namespace_info, "__array_api_version__": xpn.__array_api_version__},
                    submodules=("linalg", "fft"))
    return ns


#: the array-API namespace of the device (what ``array_api_compat.cupy`` is on a GPU)
array_api = _array_api()


# -- the array ------------------------------------------------------------------------------------


def _binary(op, ufunc):
    """``self <op> other`` as CuPy's forward operators decide it (``_cupy_rules``): a device array
    is computed with; else NotImplemented when ``other`` asks for it (``__array_ufunc__ = None``,
    or a higher ``__array_priority__`` without ``__array_ufunc__``); else NumPy's ufunc protocol:
    computed when CuPy takes ``other``, else ``other.__array_ufunc__`` answers (a SparseArray:
    ``sparray.add(self, other)`` ...)."""
    who = f"operator {op.__name__}"

    def method(self, other):
        if type(other) is SimulatedArray:
            return _wrap(op(self._a, other._a))
        if _rules.should_use_rop(self, other):
            return NotImplemented
        return _rules.ufunc_call(ufunc, self, other, lambda: _wrap(op(self._a, _unwrap(other, who=who))), SimulatedArray)

    return method


def _reflected(op):
    """``other <op> self`` (``other``'s operator gave way): CuPy computes, its last chance."""
    who = f"operator {op.__name__}"

    def method(self, other):
        if isinstance(other, (list, dict, set)):
            return NotImplemented
        return _wrap(op(_unwrap(other, who=who), self._a))

    return method


def _compare(op, ufunc):
    """``self <op> other`` for the six comparisons, as CuPy's ``__richcmp__`` decides it."""
    who = f"operator {op.__name__}"

    def method(self, other):
        if type(other) is SimulatedArray:
            return _wrap(op(self._a, other._a))
        if _rules.should_use_rop(self, other):
            return NotImplemented
        if isinstance(other, np.ndarray) and other.ndim == 0:
            other = other.item()
        if op in (operator.eq, operator.ne) and _rules.eq_default(other, ne=op is operator.ne):
            return SimulatedArray(np.full(self._a.shape, op is operator.ne))
        return _rules.ufunc_call(ufunc, self, other, lambda: _wrap(op(self._a, _unwrap(other, who=who))), SimulatedArray)

    return method


def _inplace(op):
    """``self <op>= other``: CuPy's ufunc with ``out=self``; an operand CuPy does not take is a
    TypeError (an in-place operator does not defer)."""
    who = f"operator {op.__name__}"

    def method(self, other):
        if type(other) is not SimulatedArray and not _rules.cupy_takes(other, SimulatedArray):
            raise TypeError(
                f"simulated device: {who} takes scalars and device arrays; got {type(other).__module__}."
                f"{type(other).__name__} (CuPy's in-place operators refuse it too)"
            )
        op(self._a, _unwrap(other, who=who))
        return self

    return method


def _device_key(key):
    """An index key with the items CuPy copies to the device (lists, tuples, NumPy arrays,
    booleans; ``_cupy_rules.copied_key_items``) on the device: one upload each, no wait."""
    items, copied = _rules.copied_key_items(key, SimulatedArray)
    if not copied:
        return key
    for i in copied:
        note_upload("index key")
        s = items[i]
        a = np.array(_unwrap(s, host_ok=True, who="index"))
        if isinstance(s, (list, tuple)) and a.size == 0:
            a = a.astype(np.int32)  # an empty list is an empty index, not an empty mask (CuPy's fix)
        items[i] = SimulatedArray(a)
    return tuple(items) if isinstance(key, tuple) else items[0]


def _unary(op):
    def method(self):
        return _wrap(op(self._a))

    return method


def _to_host(kind):
    def method(self, *args):
        note_sync(f"{kind}()")
        return getattr(self._a, f"__{kind}__")(*args) if kind not in ("item", "tolist") else getattr(self._a, kind)(*args)

    return method


class SimulatedArray:
    """A NumPy buffer on the simulated CUDA device (see the module docstring).

    Invariant: ``_a`` is a NumPy array (0-d for scalars); nothing outside this module reads it
    except the driver, which hands it to the emulator."""

    __slots__ = ("_a", "__weakref__")
    __array_ufunc__ = None  # NumPy's ufuncs refuse it (CuPy's accept: see _cupy_rules, on purpose)
    __array_priority__ = _rules.ARRAY_PRIORITY  # CuPy's: what _should_use_rop compares
    __hash__ = None

    def __init__(self, a):
        self._a = a

    # what a CuPy array is
    def __array_namespace__(self, *, api_version=None):
        return array_api

    @property
    def device(self):
        return DEVICE

    def to_device(self, device, /, *, stream=None):
        if device == DEVICE or device == "cuda":
            return self
        if device == "cpu":
            return self.get()
        raise ValueError(f"simulated device: cannot move to {device!r}; use 'cpu' or 'simulated'")

    def get(self):
        """A NumPy copy on the host (one sync)."""
        note_sync("get()")
        return self._a.copy()

    def __array__(self, dtype=None, copy=None):
        raise TypeError("simulated device: implicit conversion to a NumPy array is not allowed; use .get() (as on CuPy)")

    def __dlpack_device__(self):
        return (2, 0)  # kDLCUDA: NumPy's from_dlpack refuses it, as it refuses CuPy's

    def __dlpack__(self, **kw):
        raise BufferError("simulated device: no DLPack export (the buffer is not really on a GPU)")

    shape = property(lambda self: self._a.shape)
    dtype = property(lambda self: self._a.dtype)
    ndim = property(lambda self: self._a.ndim)
    size = property(lambda self: self._a.size)
    nbytes = property(lambda self: self._a.nbytes)
    itemsize = property(lambda self: self._a.itemsize)
    strides = property(lambda self: self._a.strides)
    flags = property(lambda self: self._a.flags)
    T = property(lambda self: SimulatedArray(self._a.T))
    mT = property(lambda self: SimulatedArray(np.swapaxes(self._a, -1, -2)))
    real = property(lambda self: SimulatedArray(self._a.real))
    imag = property(lambda self: SimulatedArray(self._a.imag))

    def __len__(self):
        return len(self._a)

    def __iter__(self):
        return (self[i] for i in range(len(self._a)))

    def __getitem__(self, key):
        key = _device_key(key)
        if _has_mask(key):
            note_sync("boolean mask index")
        return _wrap(self._a[_unwrap(key, who="index")])

    def __setitem__(self, key, value):
        key = _device_key(key)
        self._a[_unwrap(key, who="index")] = _unwrap(value, who="assigned value")

    def __getattr__(self, name):
        if name.startswith("__"):  # __array_interface__, __array_struct__, ...: no way to the buffer
            raise AttributeError(f"simulated device arrays have no {name}")
        value = getattr(self._a, name)
        if not callable(value):
            return _wrap(value)
        return _wrapped_method(value, name)

    def __repr__(self):
        note_sync("repr()")
        return "simulated_" + repr(self._a)

    __str__ = __repr__

    def __format__(self, spec):
        note_sync("format()")
        return format(self._a, spec)

    def __copy__(self):
        return SimulatedArray(self._a.copy())

    def __deepcopy__(self, memo):
        return SimulatedArray(self._a.copy())

    def __reduce__(self):
        return (to_simulated, (self.get(),))

    __bool__ = _to_host("bool")
    __int__ = _to_host("int")
    __float__ = _to_host("float")
    __complex__ = _to_host("complex")
    # no __index__: CuPy arrays have none (operator.index(cupy_array) is a TypeError, no wait)
    item = _to_host("item")
    tolist = _to_host("tolist")

    __neg__, __pos__, __abs__, __invert__ = (_unary(o) for o in (operator.neg, operator.pos, operator.abs, operator.invert))


def _wrapped_method(fn, name):
    def call(*args, **kw):
        if name in _SIZED_BY_DATA:
            note_sync(f".{name}()")
        if name in ("argsort", "sort") and "kind" not in kw and "stable" not in kw:
            kw["kind"] = "stable"
        if name == "astype":
            kw.pop("device", None)
        return _wrap(fn(*_unwrap(args, who=name), **{k: _unwrap(v, who=name) for k, v in kw.items()}))

    return call


def _has_mask(key):
    if type(key) is SimulatedArray:
        return key.dtype == np.bool_ and key.ndim > 0
    if type(key) is tuple:
        return any(_has_mask(k) for k in key)
    return False


#: operator -> the NumPy ufunc CuPy's operator calls (core.pyx 1564-1714, 1483-1525)
_UFUNC_OF = {"add": np.add, "sub": np.subtract, "mul": np.multiply, "truediv": np.true_divide,
             "floordiv": np.floor_divide, "mod": np.remainder, "pow": np.power, "matmul": np.matmul,
             "and": np.bitwise_and, "or": np.bitwise_or, "xor": np.bitwise_xor, "lshift": np.left_shift,
             "rshift": np.right_shift, "lt": np.less, "le": np.less_equal, "gt": np.greater,
             "ge": np.greater_equal, "eq": np.equal, "ne": np.not_equal}  # fmt: skip
for _name in ("add", "sub", "mul", "truediv", "floordiv", "mod", "pow", "matmul", "and", "or", "xor", "lshift", "rshift"):
    _op = getattr(operator, _name + "_" if _name in ("and", "or") else _name)
    setattr(SimulatedArray, f"__{_name}__", _binary(_op, _UFUNC_OF[_name]))
    setattr(SimulatedArray, f"__r{_name}__", _reflected(_op))
    setattr(SimulatedArray, f"__i{_name}__", _inplace(getattr(operator, f"i{_name}")))
for _name in ("lt", "le", "gt", "ge", "eq", "ne"):
    setattr(SimulatedArray, f"__{_name}__", _compare(getattr(operator, _name), _UFUNC_OF[_name]))
SimulatedArray.__divmod__ = _binary(divmod, np.divmod)
SimulatedArray.__rdivmod__ = _reflected(divmod)


def to_simulated(a) -> SimulatedArray:
    """A host array (NumPy, or anything ``np.asarray`` takes) copied onto the simulated device (one upload)."""
    note_upload("to_simulated()")
    return SimulatedArray(np.array(a, copy=True))


def is_simulated(x) -> bool:
    """True for an array on the simulated device."""
    return type(x) is SimulatedArray


numpy_like.ndarray = SimulatedArray
