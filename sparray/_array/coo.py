"""COO: n-d coordinate layout with hybrid dense dimensions and lazily-kept duplicates.

Components (API.md section 1):

- ``indices``: int32 or int64, shape ``(sparse_ndim, nse)``; column ``j`` is the position of the
  ``j``-th specified element in the sparse dimensions;
- ``values``: shape ``(nse, *dense_shape)``; ``values[j]`` is the dense part at that position;
- ``fill_value``: 0-d or ``dense_shape``-shaped; the value of every unspecified element.

``shape == (*sparse_shape, *dense_shape)``. Duplicate positions are legal (uncoalesced input):
they stand for the sum of their values, as in PyTorch, and ``coalesce()`` sums them and sorts
the positions lexicographically (row-major). ``sparse_ndim``, ``dense_ndim`` and ``nse`` are
derived from the buffers.

>>> import sparray
>>> A = sparray.COO([[0, 1, 1], [2, 0, 2]], [3.0, 4.0, 5.0], shape=(2, 3), fill_value=1.0)
>>> A.to_dense()
array([[1., 1., 3.],
       [4., 1., 5.]])
>>> (A + 1).fill_value
array(2.)
"""

from __future__ import annotations

from .._core import keys as _keys
from . import forward
from .base import SparseArray
from .._core.dtypes import resolve_dtype
from .._core.fill import normalize_fill
from .._core.namespace import as_component, is_array, namespace_for_device, namespace_of
from .._core.validation import (
    check_index_dtype,
    check_indices_in_range,
    invariant_checks_on,
    normalize_shape,
)

__all__ = ["COO"]


class COO(SparseArray):
    """Sparse array in coordinate layout (n-d sparse dims, optional trailing dense dims).

    Parameters
    ----------
    indices : array_like, shape (sparse_ndim, nse), int32 or int64
    values : array_like, shape ``(nse, *dense_shape)``
    shape : tuple of int, optional
        Inferred as PyTorch does when None: ``max(indices[d]) + 1`` per sparse dim (0 when
        nse == 0), then ``values.shape[1:]``.
    fill_value : scalar or array, optional
        Value of the unspecified elements; default 0. Broadcastable to the dense part.
    dtype, device : optional
        Cast the values / move the components.
    check_invariants : bool, optional
        Run the O(nse) checks now (default: ``sparray.check_invariants()`` context, else off;
        indices are in any case range-checked once before they reach a kernel).
    is_coalesced : bool, optional
        Promise that indices are unique and sorted (not verified unless checks are on).
    index_dtype : optional
        Force the index dtype (int32 or int64).
    """

    layout = "coo"
    _values_lead = 1

    def __init__(
        self,
        indices,
        values,
        shape=None,
        *,
        fill_value=None,
        dtype=None,
        device=None,
        check_invariants=None,
        is_coalesced=None,
        index_dtype=None,
    ):
        who = "COO"
        if any(is_array(c) for c in (indices, values)):
            xp = namespace_of(indices, values)
        else:
            xp = namespace_for_device(device)
        indices = as_component(indices, xp, name="indices")
        if indices.ndim == 2 and indices.shape[1] == 0 and indices.dtype not in (xp.int32, xp.int64):
            indices = xp.astype(indices, xp.int64)  # [[]] arrives as float
        values = as_component(values, xp, dtype=resolve_dtype(xp, dtype), name="values")
        if index_dtype is not None:
            indices = xp.astype(indices, resolve_dtype(xp, index_dtype))

        if indices.ndim != 2:
            raise ValueError(f"{who}: indices must be 2-d (sparse_ndim, nse); got shape {tuple(indices.shape)}")
        check_index_dtype(indices, who, "indices")
        if values.ndim < 1:
            raise ValueError(f"{who}: values must be at least 1-d (nse, *dense_shape); got a 0-d array")
        nse = indices.shape[1]
        if values.shape[0] != nse:
            raise ValueError(
                f"{who}: values.shape[0] = {values.shape[0]} must equal nse = indices.shape[1] = {nse}"
            )
        sparse_ndim = indices.shape[0]
        dense_shape = tuple(values.shape[1:])
        checked = False
        if shape is None:
            if nse:
                lo = xp.min(indices, axis=1) if sparse_ndim else None
                if sparse_ndim and int(xp.min(lo)) < 0:
                    check_indices_in_range(xp, indices, [2**63 - 1] * sparse_ndim, who)
                sparse_shape = tuple(int(m) + 1 for m in xp.max(indices, axis=1)) if sparse_ndim else ()
            else:
                sparse_shape = (0,) * sparse_ndim
            shape = sparse_shape + dense_shape
            checked = True
        else:
            shape = normalize_shape(shape, who)
            if len(shape) != sparse_ndim + len(dense_shape):
                raise ValueError(
                    f"{who}: shape {shape} must have sparse_ndim + dense_ndim = {sparse_ndim} + "
                    f"{len(dense_shape)} = {sparse_ndim + len(dense_shape)} entries"
                )
            if shape[sparse_ndim:] != dense_shape:
                raise ValueError(
                    f"{who}: the dense part of shape {shape[sparse_ndim:]} must equal values.shape[1:] = {dense_shape}"
                )
        fill = normalize_fill(xp, fill_value, values.dtype, dense_shape, who)

        self._xp = xp
        self._indices = indices
        self._values = values
        self._shape = shape
        self._fill = fill
        self._checked = checked
        self._coalesced = bool(is_coalesced) if is_coalesced else None
        if invariant_checks_on(check_invariants):
            self._check_contents()
            if is_coalesced and not _keys.is_sorted_unique(self):
                raise ValueError(f"{who}: is_coalesced=True but the indices are not unique and sorted")
        if device is not None and any(is_array(c) for c in (indices, values)):
            moved = self.to_device(device)
            self._xp, self._indices, self._values, self._fill = moved._xp, moved._indices, moved._values, moved._fill

    @classmethod
    def _from_parts(cls, xp, indices, values, shape, fill, *, coalesced=None):
        """Internal constructor for components sparray built itself (valid by construction)."""
        self = object.__new__(cls)
        self._xp = xp
        self._indices = indices
        self._values = values
        self._shape = tuple(shape)
        self._fill = fill
        self._checked = True
        self._coalesced = coalesced
        return self

    def _check_contents(self) -> None:
        """The O(nse) checks: every index in range (once per array, and at every use inside
        ``with sparray.check_invariants():``)."""
        if not self._checked or invariant_checks_on():
            check_indices_in_range(self._xp, self._indices, self._shape[: self.sparse_ndim], "COO")
            self._checked = True

    def _components(self) -> dict:
        return {"indices": self._indices, "values": self._values}

    # --- components and metadata ---------------------------------------------------------------
    @property
    def indices(self):
        """Positions of the specified elements, shape ``(sparse_ndim, nse)``."""
        return self._indices

    @property
    def nse(self) -> int:
        return self._indices.shape[1]

    @property
    def sparse_ndim(self) -> int:
        return self._indices.shape[0]

    @property
    def sparse_shape(self) -> tuple[int, ...]:
        return self._shape[: self.sparse_ndim]

    @property
    def index_dtype(self):
        return self._indices.dtype

    @property
    def is_coalesced(self) -> bool:
        """True when the positions are unique and lexicographically sorted (checked once, O(nse))."""
        if self._coalesced is None:
            self._coalesced = _keys.is_sorted_unique(self)
        return self._coalesced

    # --- methods ---------------------------------------------------------------------------------
    def coalesce(self) -> COO:
        """Unique, sorted positions; values at duplicate positions summed (bool: logical or)."""
        return forward.coalesce(self)

    def to_dense(self, *, fill_value=None):
        """The dense array (of the components' namespace) this sparse array stands for;
        ``fill_value=v`` writes ``v`` at the unspecified elements instead of the fill (required when the fill is ``sparray.undefined``)."""
        if fill_value is not None or not self.fill_is_defined:
            return forward.dense_with_fill(self, fill_value)
        return forward.to_dense(self)

    def copy(self) -> COO:
        xp = self._xp
        return COO._from_parts(
            xp, xp.asarray(self._indices, copy=True), xp.asarray(self._values, copy=True),
            self._shape, xp.asarray(self._fill, copy=True), coalesced=self._coalesced,
        )  # fmt: skip

    def to_device(self, device, /, *, stream=None) -> COO:
        xp, (indices, values, fill) = forward.move_components(self._xp, device, (self._indices, self._values, self._fill))
        out = COO._from_parts(xp, indices, values, self._shape, fill, coalesced=self._coalesced)
        out._checked = self._checked
        return forward.carry_facts(self, out)

    def _replace_values(self, values, fill, *, dense_shape=None) -> COO:
        """Same positions, new values and fill (element-wise results)."""
        shape = self.sparse_shape + (tuple(values.shape[1:]) if dense_shape is None else tuple(dense_shape))
        out = COO._from_parts(self._xp, self._indices, values, shape, fill, coalesced=self._coalesced)
        out._checked = self._checked
        return out

    def _repr_extra(self) -> str:
        text = f"sparse_ndim={self.sparse_ndim}, index_dtype={self._indices.dtype}"
        if self._coalesced is not None:
            text += f", coalesced={self._coalesced}"
        return text
