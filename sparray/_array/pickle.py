"""Pickling a SparseArray (``pickle``, ``copy.copy``, ``copy.deepcopy``, Dask's and distributed's transfers).

``A.__reduce_ex__(protocol)`` gives ``(rebuild, (class, components, shape, fill, flags))``: the
layout class, the component arrays in the layout's order (``indices, values`` for COO;
compressed pointers, plain indices, values for CSR/CSC/BSR/BSC; values, metadata for 2:4), the shape, the fill array
(0-d or dense-part shaped, with its dtype) and the flags that save work (COO's coalesced flag,
"indices already checked") or that the layout needs (``_pickle_flags()``: 2:4's ``transposed``). Everything else is derived again (blocksize, index dtype, splits,
the namespace from the values' own type), and private caches never travel.

Protocol 5 (what ``dask.distributed`` uses): each NumPy component reduces itself through
``pickle.PickleBuffer`` (``ndarray.__reduce_ex__(5)``), so with a ``buffer_callback`` the
components leave the pickle stream as out-of-band buffers, without a copy, and ``pickle.loads(...,
buffers=...)`` builds arrays over those buffers, again without a copy. CuPy and array_api_strict
components pickle as their own libraries do.

>>> import pickle, sparray
>>> A = sparray.CSR([0, 1, 2], [1, 0], [5.0, 7.0], shape=(2, 2), fill_value=-1.0)
>>> bufs = []
>>> B = pickle.loads(pickle.dumps(A, protocol=5, buffer_callback=bufs.append), buffers=bufs)
>>> B.layout, B.fill_value.item(), B.to_dense().tolist(), len(bufs) >= 3
('csr', -1.0, [[-1.0, 5.0], [7.0, -1.0]], True)
"""

from __future__ import annotations

__all__ = ["reduce_array", "rebuild"]


def reduce_array(A, protocol):
    """``A.__reduce_ex__(protocol)``: a rebuild call over the components (see the module docstring)."""
    flags = {"checked": bool(A._checked)}
    if A.layout == "coo":
        flags["coalesced"] = A._coalesced
    if hasattr(A, "_pickle_flags"):  # what a layout needs beyond its components (2:4: transposed)
        flags.update(A._pickle_flags())
    return rebuild, (type(A), tuple(A._components().values()), A._shape, A._fill, flags)


def rebuild(cls, components, shape, fill, flags):
    """The array ``reduce_array`` describes (components taken as they are: a pickle is trusted input)."""
    from .._core.namespace import namespace_of

    xp = namespace_of(components[-1])
    if cls.layout == "coo":
        A = cls._from_parts(xp, *components, shape, fill, coalesced=flags.get("coalesced"))
        A._checked = flags.get("checked", False)
        return A
    extra = {k: v for k, v in flags.items() if k != "checked"}
    return cls._from_parts(xp, *components, shape, fill, checked=flags.get("checked", False), **extra)
