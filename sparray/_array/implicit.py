"""The conversion rule: when ``np.asarray(A)`` (``A.__array__``) gives NumPy the dense array.

NumPy, SciPy, xarray's ``.values`` and every library that starts with ``np.asarray(x)`` reach a
sparray array through ``__array__``. The rule, for an array whose components are NumPy arrays:

1. **A result that holds dense values always converts**: a 0-d array, or an array with no sparse
   dimension that stores its elements (``sparse_ndim == 0`` and ``nse >= 1``: what the namespace
   rule's dense-by-nature results are, ``sparray.sum(A)``, ``sparray.unique_values(A)``,
   ``sparray.linalg.inv(A)``; see ``results.py``). Nothing is densified: the dense values are
   there already (for a result of the namespace rule ``np.asarray(r)`` is a view of them).
2. **A sparse array converts when its dense form is small**: at most
   :data:`AUTO_DENSIFY_THRESHOLD` elements (``A.size``; 2**20, 8 MiB of float64). Past that,
   ``TypeError`` says how large the dense form would be and the three ways on: ``A.to_dense()``,
   ``with sparray.auto_densify():`` or the environment variable ``SPARRAY_AUTO_DENSIFY=1``.
3. **Opting in or out.** ``SPARRAY_AUTO_DENSIFY=1`` converts every size and
   ``SPARRAY_AUTO_DENSIFY=0`` none (as pydata/sparse's ``SPARSE_AUTO_DENSIFY``; rule 1 still
   holds); it is read at each conversion and checked at ``import sparray``. ``with
   sparray.auto_densify(max_elements=None):`` sets the limit for a block of code (None: no limit;
   0: no sparse array) and wins over the variable; it is a context variable, so each thread and
   asyncio task keeps its own.
4. **NumPy 2's arguments**: ``dtype=`` casts; ``copy=True`` always gives a new array;
   ``copy=False`` raises ``ValueError`` when a copy is needed, which for a sparse array is always
   (its dense form is a new array) and for a held dense result only when ``dtype`` differs.
5. **Device arrays never convert** (CuPy's rule: ``np.asarray(cupy_array)`` raises ``TypeError``
   rather than copying device memory to the host behind the caller's back): an array on a GPU or
   on the simulated device raises ``TypeError`` whatever its size, 0-d included, naming the
   explicit ways: ``A.to_device("cpu")`` (then ``np.asarray``), ``A.to_dense().get()``.
   ``float(A)``, ``int(A)``, ``bool(A)`` of a one-element array read it, as CuPy's do. Components
   of another CPU namespace (array_api_strict) are converted by that namespace.

>>> import numpy as np, sparray
>>> A = sparray.asarray(np.array([[0.0, 2.0], [0.0, 5.0]]))
>>> np.asarray(sparray.sum(A)), np.asarray(A).tolist()
(array(7.), [[0.0, 2.0], [0.0, 5.0]])
>>> with sparray.auto_densify(max_elements=3):  # doctest: +ELLIPSIS
...     np.asarray(A)
Traceback (most recent call last):
...
TypeError: sparray.COO of shape (2, 2) is not converted to a dense NumPy array implicitly: ...
"""

from __future__ import annotations

import contextlib
import contextvars
import os

__all__ = ["AUTO_DENSIFY_THRESHOLD", "auto_densify", "held_values", "holds_dense", "implicit_limit", "to_numpy_implicitly"]

AUTO_DENSIFY_THRESHOLD = 2**20
"""Elements (``A.size``) up to which ``np.asarray(A)`` densifies a sparse array by itself (1,048,576:
8 MiB of float64, a 1024 x 1024 matrix). Results that hold dense values convert at any size."""

ENVIRONMENT_VARIABLE = "SPARRAY_AUTO_DENSIFY"

_UNSET = object()
_scoped: contextvars.ContextVar = contextvars.ContextVar("sparray_auto_densify", default=_UNSET)


def _checked_limit(max_elements):
    if max_elements is None:
        return None
    if not isinstance(max_elements, int) or isinstance(max_elements, bool):
        import operator

        try:
            if isinstance(max_elements, bool) or type(max_elements).__name__ == "bool_":
                raise TypeError
            max_elements = operator.index(max_elements)
        except TypeError:
            raise TypeError(
                f"sparray.auto_densify: max_elements must be None or an int >= 0; got {type(max_elements).__name__}"
            ) from None
    if max_elements < 0:
        raise ValueError(f"sparray.auto_densify: max_elements must be None or an int >= 0; got {max_elements}")
    return int(max_elements)


@contextlib.contextmanager
def auto_densify(max_elements=None):
    """Within the block, ``np.asarray(A)`` densifies sparse arrays of at most ``max_elements``
    elements (None, the default: any size; 0: none), whatever ``SPARRAY_AUTO_DENSIFY`` says.

    Results that hold dense values (0-d arrays, the namespace rule's dense results) convert in
    any case, and device arrays never do (see ``sparray._array.implicit``). The setting is a
    context variable: other threads and asyncio tasks keep theirs; blocks nest.

    >>> import numpy as np, sparray
    >>> A = sparray.eye(2048, layout="csr")             # 4,194,304 elements: above the threshold
    >>> with sparray.auto_densify():
    ...     float(np.trace(np.asarray(A)))
    2048.0
    """
    token = _scoped.set(_checked_limit(max_elements))
    try:
        yield
    finally:
        _scoped.reset(token)


def _from_environment():
    """The limit ``SPARRAY_AUTO_DENSIFY`` sets: ``_UNSET`` when unset or empty, None for ``1`` (no
    limit), 0 for ``0``; any other value is a ValueError naming it."""
    text = os.environ.get(ENVIRONMENT_VARIABLE, "").strip()
    if not text:
        return _UNSET
    if text == "1":
        return None
    if text == "0":
        return 0
    raise ValueError(
        f"{ENVIRONMENT_VARIABLE} must be 1 (np.asarray densifies sparse arrays of any size) or 0 (none); "
        f"got {text!r}. Unset it for the default (up to sparray.AUTO_DENSIFY_THRESHOLD = {AUTO_DENSIFY_THRESHOLD:,} "
        "elements)"
    )


def check_environment() -> None:
    """Raise now (at ``import sparray``) when ``SPARRAY_AUTO_DENSIFY`` holds a wrong value."""
    _from_environment()


def implicit_limit():
    """The most elements ``np.asarray`` densifies a sparse array of here and now: the innermost
    ``auto_densify`` block, else ``SPARRAY_AUTO_DENSIFY``, else :data:`AUTO_DENSIFY_THRESHOLD`;
    None means no limit."""
    scoped = _scoped.get()
    if scoped is not _UNSET:
        return scoped
    env = _from_environment()
    return AUTO_DENSIFY_THRESHOLD if env is _UNSET else env


def holds_dense(A) -> bool:
    """Whether ``A`` holds dense values: 0-d, or no sparse dimension and its elements stored
    (``sparse_ndim == 0`` and ``nse >= 1``), as the namespace rule's dense results are. Such an
    array converts and prints as the dense array it stands for."""
    return A.ndim == 0 or (A.sparse_ndim == 0 and A.nse >= 1)


def held_values(A):
    """The dense array a COO with no sparse dims and one stored element holds (a view of its values,
    in the components' namespace: nothing computed, nothing moved), else None."""
    if A.layout == "coo" and A.sparse_ndim == 0 and A.nse == 1:
        return A.values[0, ...]
    return None


def _on_device(A) -> bool:
    from .._core.namespace import backend_kind

    return backend_kind(A._xp) == "cupy"  # CuPy data, or the simulated CUDA device


def bytes_text(n: float) -> str:
    """A byte count for people: ``512 B``, ``8.0 MiB``, ``7.3 TiB`` (binary units up to PiB)."""
    for unit in ("B", "KiB", "MiB", "GiB", "TiB"):
        if n < 1024:
            return f"{n:.0f} {unit}" if unit == "B" else f"{n:.1f} {unit}"
        n /= 1024
    return f"{n:.1f} PiB"


def _refusal(A, limit, hint="") -> TypeError:
    import numpy as np

    from .._core.dtypes import dtype_name

    what = f"sparray.{A.layout.upper()} of shape {A.shape}"
    name = dtype_name(A.dtype)
    size = f"{A.size:,} elements, {bytes_text(A.size * np.dtype(name).itemsize)} of {name}"
    if limit == 0:
        why = f"its dense form has {size}, and implicit densifying is off (SPARRAY_AUTO_DENSIFY=0 or auto_densify(0))"
    elif limit == AUTO_DENSIFY_THRESHOLD:
        why = f"its dense form has {size}, above sparray.AUTO_DENSIFY_THRESHOLD = {limit:,}"
    else:
        why = f"its dense form has {size}, above the auto_densify limit of {limit:,}"
    return TypeError(
        f"{what} is not converted to a dense NumPy array implicitly: {why}. Call A.to_dense() to densify it, "
        f"or allow it with `with sparray.auto_densify():` or SPARRAY_AUTO_DENSIFY=1{hint}"
    )


def to_numpy_implicitly(A, dtype=None, copy=None, *, hint=""):
    """``A.__array__(dtype, copy)``: the dense NumPy array of ``A`` under the conversion rule (the
    module docstring), or the rule's TypeError / ValueError (``hint`` ends the size refusal: what the
    caller, a scipy.sparse constructor say, could call instead)."""
    import numpy as np

    if _on_device(A):
        raise TypeError(
            f"Implicit conversion to a NumPy array is not allowed: this sparray.{A.layout.upper()} lives on device "
            f"{A.device} (as CuPy's arrays, device data is never copied to the host implicitly). Copy it "
            "explicitly: np.asarray(A.to_device('cpu')), or A.to_dense().get()"
        )
    if copy is not None and not isinstance(copy, (bool, np.bool_)):
        raise TypeError(f"sparray.{A.layout.upper()}.__array__: copy must be None, True or False; got {copy!r}")
    want = None if dtype is None else np.dtype(dtype)
    dense = held_values(A)
    if dense is not None and isinstance(dense, np.ndarray):  # the namespace rule's results: a view
        if copy is False and want is not None and want != dense.dtype:
            raise ValueError(
                f"np.asarray(..., copy=False): a {dense.dtype} result cast to {want} needs a copy; pass copy=None"
            )
        out = dense if want is None else dense.astype(want, copy=False)
        return out.copy() if copy and out is dense else out
    if not holds_dense(A):
        if copy is False:
            raise ValueError(
                f"np.asarray(..., copy=False): the dense form of a sparse sparray.{A.layout.upper()} is always a new "
                "array; pass copy=None (or call A.to_dense())"
            )
        limit = implicit_limit()
        if limit is not None and A.size > limit:
            raise _refusal(A, limit, hint)
    elif copy is False:
        raise ValueError(
            f"np.asarray(..., copy=False): this sparray.{A.layout.upper()} stores its dense values in another form; "
            "reading them makes a new array. Pass copy=None"
        )
    dense = A.to_dense()
    if not isinstance(dense, np.ndarray):  # another CPU namespace: its own conversion (or its refusal)
        dense = np.asarray(dense)
    elif copy and _may_share(dense, A):
        dense = dense.copy()
    return dense if want is None else dense.astype(want, copy=False)


def _may_share(dense, A) -> bool:
    import numpy as np

    return any(isinstance(c, np.ndarray) and np.may_share_memory(dense, c) for c in (*A._components().values(), A._fill))
