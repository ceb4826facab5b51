"""CSR and CSC: compressed layouts with batch and dense (hybrid) dimensions, one implementation.

CSR compresses rows, CSC compresses columns; everything else is shared through a major/minor
axis swap (as scipy.sparse does): the *major* axis is the compressed one (rows for CSR, columns
for CSC), the *minor* axis is the one the plain indices run along.

Components (API.md section 1, PyTorch's semantics), with ``b = batch_ndim``:

- ``compressed_indices`` (``crow_indices`` / ``ccol_indices``): ``(*batch, nmajor + 1)``;
  for every batch ``[..., 0] == 0``, ``[..., -1] == nse``, non-decreasing;
- ``plain_indices`` (``col_indices`` / ``row_indices``): ``(*batch, nse)``, in ``[0, nminor)``,
  strictly increasing within each compressed row (sorted, no duplicates);
- ``values``: ``(*batch, nse, *dense_shape)`` (BSR/BSC: ``(*batch, nse, bh, bw, *dense_shape)``,
  see ``_blocked.py``);
- both index arrays share one dtype, int32 or int64; every batch has the same ``nse``.

``shape == (*batch_shape, nrows, ncols, *dense_shape)``; ``sparse_ndim`` is 2 (PyTorch's
convention: batch dims are neither sparse nor dense). ``batch_ndim``, ``dense_ndim`` and ``nse``
are derived from the buffers. The O(nse) rules are checked under ``check_invariants`` and, in any
case, once before the indices first reach a kernel.

>>> import sparray
>>> A = sparray.CSR([0, 2, 3], [0, 2, 1], [1.0, 2.0, 3.0], shape=(2, 3), fill_value=-1.0)
>>> A.to_dense()
array([[ 1., -1.,  2.],
       [-1.,  3., -1.]])
>>> A.mT.layout, A.mT.ccol_indices is A.crow_indices
('csc', True)
"""

from __future__ import annotations

import math

from . import forward
from .base import SparseArray
from .._core.dtypes import dtype_name, resolve_dtype
from .._core.fill import normalize_fill
from .._core.namespace import as_component, is_array, namespace_for_device, namespace_of
from .._core.validation import (
    check_compressed_contents,
    check_index_dtype,
    invariant_checks_on,
    normalize_shape,
)

__all__ = ["Compressed", "RowsCompressed", "ColumnsCompressed", "CSR", "CSC"]


class Compressed(SparseArray):
    """Shared implementation of CSR, CSC, BSR and BSC (not instantiated directly).

    The layouts mix in ``RowsCompressed`` or ``ColumnsCompressed`` (``_major``: 0 rows compressed,
    1 columns compressed, and the component names); BSR/BSC set ``_blocked``. Blocks (BSR/BSC) are ``(bh, bw)`` in the array's own orientation.
    """

    _blocked = False  # BSR/BSC set it; _major, _cname, _pname come from RowsCompressed / ColumnsCompressed

    def __init__(
        self,
        compressed_indices,
        plain_indices,
        values,
        shape=None,
        *,
        fill_value=None,
        dtype=None,
        device=None,
        check_invariants=None,
        index_dtype=None,
    ):
        who = type(self).__name__
        comps = (compressed_indices, plain_indices, values)
        xp = namespace_of(*comps) if any(is_array(c) for c in comps) else namespace_for_device(device)
        cidx = _index_component(xp, compressed_indices, who, self._cname)
        pidx = _index_component(xp, plain_indices, who, self._pname)
        try:
            values = as_component(values, xp, dtype=resolve_dtype(xp, dtype), name="values")
        except TypeError as e:
            raise ValueError(f"{who}: values must be rectangular (every batch has the same nse): {e}") from None
        if index_dtype is not None:
            idt = resolve_dtype(xp, index_dtype)
            cidx, pidx = xp.astype(cidx, idt), xp.astype(pidx, idt)
        if pidx.ndim == 1 and pidx.shape[0] == 0 and cidx.dtype != pidx.dtype:
            pidx = xp.astype(pidx, cidx.dtype)  # [] arrives as float64 or int64
        self._xp, self._cidx, self._pidx, self._values = xp, cidx, pidx, values
        shape = self._check_structure(shape, who)
        self._shape = shape
        self._fill = normalize_fill(xp, fill_value, values.dtype, self.dense_shape, who)
        self._checked = False
        if invariant_checks_on(check_invariants):
            self._check_contents()
        if device is not None and any(is_array(c) for c in comps):
            moved = self.to_device(device)
            self._xp, self._cidx, self._pidx, self._values, self._fill = (
                moved._xp, moved._cidx, moved._pidx, moved._values, moved._fill
            )  # fmt: skip

    # --- validation -------------------------------------------------------------------------------
    def _check_structure(self, shape, who):
        """O(1) checks of ranks, lengths and dtypes; returns the (given or inferred) shape."""
        xp, cidx, pidx, values = self._xp, self._cidx, self._pidx, self._values
        cn, pn = self._cname, self._pname
        check_index_dtype(cidx, who, cn)
        check_index_dtype(pidx, who, pn)
        if cidx.dtype != pidx.dtype:
            raise ValueError(
                f"{who}: {cn} and {pn} must have the same dtype; got {dtype_name(cidx.dtype)} and {dtype_name(pidx.dtype)}"
            )
        if cidx.ndim < 1:
            raise ValueError(f"{who}: {cn} must be at least 1-d (*batch, n + 1); got a 0-d array")
        b = cidx.ndim - 1
        batch_shape = tuple(cidx.shape[:-1])
        if pidx.ndim != cidx.ndim or tuple(pidx.shape[:-1]) != batch_shape:
            raise ValueError(
                f"{who}: {pn}.shape={tuple(pidx.shape)} must be (*batch, nse) with batch shape {batch_shape} "
                f"taken from {cn}.shape={tuple(cidx.shape)}"
            )
        if cidx.shape[-1] < 1:
            raise ValueError(f"{who}: {cn}.shape[-1] must be at least 1 (n + 1 pointers); got 0")
        nse = pidx.shape[-1]
        lead = b + 1 + (2 if self._blocked else 0)
        what = "(*batch, nse, bh, bw, *dense_shape)" if self._blocked else "(*batch, nse, *dense_shape)"
        if values.ndim < lead or tuple(values.shape[:b]) != batch_shape or values.shape[b] != nse:
            raise ValueError(
                f"{who}: values.shape={tuple(values.shape)} must be {what} with batch shape {batch_shape} and "
                f"nse = {pn}.shape[-1] = {nse}"
            )
        block = tuple(int(s) for s in values.shape[b + 1 : b + 3]) if self._blocked else (1, 1)
        if self._blocked and min(block) < 1:
            raise ValueError(f"{who}: blocksize {block} (values.shape[{b + 1}:{b + 3}]) must be positive")
        dense_shape = tuple(int(s) for s in values.shape[lead:])
        bmajor = block[self._major]
        bminor = block[1 - self._major]
        nmajor_blocks = int(cidx.shape[-1]) - 1
        if shape is None:
            known = nse and math.prod(batch_shape)
            if known and int(xp.min(pidx)) < 0:
                check_compressed_contents(xp, cidx, pidx, 2**62, who, cn, pn)  # names the negative index
            nminor_blocks = int(xp.max(pidx)) + 1 if known else 0
            sizes = [nmajor_blocks * bmajor, nminor_blocks * bminor]
            if self._major:
                sizes.reverse()
            return (*batch_shape, *sizes, *dense_shape)
        shape = normalize_shape(shape, who)
        if len(shape) != b + 2 + len(dense_shape):
            raise ValueError(
                f"{who}: shape {shape} must have batch_ndim + 2 + dense_ndim = {b} + 2 + {len(dense_shape)} entries"
            )
        if shape[:b] != batch_shape:
            raise ValueError(f"{who}: the batch part of shape {shape[:b]} must equal {cn}.shape[:-1] = {batch_shape}")
        if shape[b + 2 :] != dense_shape:
            raise ValueError(f"{who}: the dense part of shape {shape[b + 2:]} must equal the values' dense part {dense_shape}")
        rows, cols = shape[b], shape[b + 1]
        if self._blocked and (rows % block[0] or cols % block[1]):
            raise ValueError(f"{who}: blocksize {block} must divide the sparse shape ({rows}, {cols})")
        nmajor = (rows, cols)[self._major] // bmajor
        if nmajor_blocks != nmajor:
            unit = "blocks " if self._blocked else ""
            axis = "rows" if self._major == 0 else "columns"
            raise ValueError(
                f"{who}: {cn}.shape[-1] = {nmajor_blocks + 1} must be n{axis} {unit}+ 1 = {nmajor + 1} for shape {shape}"
            )
        return shape

    def _check_contents(self) -> None:
        """The O(nse) rules: once per array, before a kernel first reads the indices, and at every
        use inside ``with sparray.check_invariants():`` (the check on request: components written
        in place behind the array's back are seen there)."""
        if not self._checked or invariant_checks_on():
            from .._engine import dispatch as _dispatch

            xp, nminor = self._xp, self._grid[1]
            work = self._cidx.shape[-1] + self._pidx.shape[-1]
            if not _dispatch.call("compressed_valid", "csr", xp, self._cidx, self._pidx, nminor, work=work):
                who = type(self).__name__  # the generic check names the first offender
                check_compressed_contents(xp, self._cidx, self._pidx, nminor, who, self._cname, self._pname)
            self._checked = True

    @classmethod
    def _from_parts(cls, xp, cidx, pidx, values, shape, fill, *, checked=True):
        """Internal constructor for components sparray built itself (valid by construction)."""
        self = object.__new__(cls)
        self._xp, self._cidx, self._pidx, self._values = xp, cidx, pidx, values
        self._shape = tuple(shape)
        self._fill = fill
        self._checked = checked
        return self

    def _components(self) -> dict:
        return {self._cname: self._cidx, self._pname: self._pidx, "values": self._values}

    # --- metadata -----------------------------------------------------------------------------------
    @property
    def batch_ndim(self) -> int:
        return self._cidx.ndim - 1

    @property
    def _values_lead(self) -> int:
        return self._cidx.ndim + (2 if self._blocked else 0)

    @property
    def sparse_ndim(self) -> int:
        return 2

    @property
    def nse(self) -> int:
        """Specified elements per batch (blocks, for BSR/BSC)."""
        return self._pidx.shape[-1]

    @property
    def index_dtype(self):
        return self._cidx.dtype

    @property
    def batch_shape(self) -> tuple[int, ...]:
        return self._shape[: self.batch_ndim]

    @property
    def _block(self) -> tuple[int, int]:
        b = self.batch_ndim
        return tuple(int(s) for s in self._values.shape[b + 1 : b + 3]) if self._blocked else (1, 1)

    @property
    def _grid(self) -> tuple[int, int]:
        """(nmajor, nminor) counted in blocks (elements for CSR/CSC)."""
        b = self.batch_ndim
        bh, bw = self._block
        rows, cols = self._shape[b] // bh, self._shape[b + 1] // bw
        return (rows, cols) if self._major == 0 else (cols, rows)

    @property
    def compressed_indices(self):
        """The compressed index pointers, ``(*batch, nmajor + 1)``."""
        return self._cidx

    @property
    def plain_indices(self):
        """The indices along the uncompressed axis, ``(*batch, nse)``."""
        return self._pidx

    # --- methods ------------------------------------------------------------------------------------
    def to_dense(self, *, fill_value=None):
        """The dense array (of the components' namespace) this sparse array stands for;
        ``fill_value=v`` writes ``v`` at the unspecified elements instead of the fill (required when the fill is ``sparray.undefined``)."""
        if fill_value is not None or not self.fill_is_defined:
            return forward.dense_with_fill(self, fill_value)
        lean = forward.lean_to_dense(self)  # a 2-D NumPy CSR or CSC: straight to the kernel
        if lean is not None:
            return lean
        return forward.compressed_to_dense(self)

    def copy(self):
        xp = self._xp
        return type(self)._from_parts(
            xp, xp.asarray(self._cidx, copy=True), xp.asarray(self._pidx, copy=True),
            xp.asarray(self._values, copy=True), self._shape, xp.asarray(self._fill, copy=True), checked=self._checked,
        )  # fmt: skip

    def to_device(self, device, /, *, stream=None):
        xp, (cidx, pidx, values, fill) = forward.move_components(
            self._xp, device, (self._cidx, self._pidx, self._values, self._fill)
        )
        out = type(self)._from_parts(xp, cidx, pidx, values, self._shape, fill, checked=self._checked)
        return forward.carry_facts(self, out)

    def _replace_values(self, values, fill, *, dense_shape=None):
        """Same pattern, new values and fill (element-wise results)."""
        lead = self._values_lead
        dense = tuple(values.shape[lead:]) if dense_shape is None else tuple(dense_shape)
        shape = self._shape[: self.batch_ndim + 2] + dense
        return type(self)._from_parts(self._xp, self._cidx, self._pidx, values, shape, fill, checked=self._checked)

    def _repr_extra(self) -> str:
        text = f"index_dtype={dtype_name(self._cidx.dtype)}"
        if self._blocked:
            text = f"blocksize={self._block}, " + text
        return text


def _index_component(xp, x, who, name):
    try:
        arr = as_component(x, xp, name=name)
    except TypeError as e:
        if is_array(x):
            raise
        raise ValueError(f"{who}: {name} must be rectangular (every batch has the same nse): {e}") from None
    if arr.ndim >= 1 and arr.shape[-1] == 0 and dtype_name(arr.dtype) not in ("int32", "int64"):
        arr = xp.astype(arr, xp.int64)
    return arr


class RowsCompressed:
    """Component names of the row-compressed layouts (CSR, BSR): ``crow_indices``, ``col_indices``."""

    _major = 0
    _cname, _pname = "crow_indices", "col_indices"

    @property
    def crow_indices(self):
        return self._cidx

    @property
    def col_indices(self):
        return self._pidx


class ColumnsCompressed:
    """Component names of the column-compressed layouts (CSC, BSC): ``ccol_indices``, ``row_indices``."""

    _major = 1
    _cname, _pname = "ccol_indices", "row_indices"

    @property
    def ccol_indices(self):
        return self._cidx

    @property
    def row_indices(self):
        return self._pidx


class CSR(RowsCompressed, Compressed):
    """Compressed sparse rows, with optional leading batch dims and trailing dense dims.

    ``CSR(crow_indices, col_indices, values, shape=None, *, fill_value=None, dtype=None,
    device=None, check_invariants=None, index_dtype=None)``. Row ``r`` of batch ``b`` holds the
    entries ``crow_indices[b, r]:crow_indices[b, r + 1]``; their columns are ``col_indices[b, ...]``
    (sorted, unique). ``shape=None`` infers ``(*batch, len(crow) - 1, max(col) + 1, *dense)``.

    >>> import sparray
    >>> A = sparray.CSR([[0, 1, 3], [0, 1, 3]], [[0, 0, 1], [0, 0, 1]], [[1, 2, 3], [4, 5, 6]])
    >>> A.shape, A.batch_ndim
    ((2, 2, 2), 1)
    """

    layout = "csr"


class CSC(ColumnsCompressed, Compressed):
    """Compressed sparse columns: CSR's encoding along the other axis (``ccol_indices``, ``row_indices``).

    >>> import sparray
    >>> A = sparray.CSC([0, 1, 1, 3], [1, 0, 1], [1.0, 2.0, 3.0], shape=(2, 3))
    >>> A.to_dense()
    array([[0., 0., 2.],
           [1., 0., 3.]])
    """

    layout = "csc"
