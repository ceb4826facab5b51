"""SemiStructured: the 2:4 layout (of every 4 consecutive elements along a row, at most 2 specified).

How pruned neural-network weights are stored, and what NVIDIA's sparse tensor cores multiply
(``mma.sp``, sm_80 and newer). Components, for an array of shape ``(*batch, rows, cols)``:

- ``values``: ``(*batch, rows, cols // 2)``, the array's dtype. Group ``g`` of a row is its columns
  ``4g .. 4g + 3``; it keeps two positions ``i0 < i1``: ``values[..., r, 2g]`` is the element at
  column ``4g + i0``, ``values[..., r, 2g + 1]`` the one at column ``4g + i1``.
- ``metadata``: ``(*batch, rows, ceil(cols / 16))``, ``uint16``: group ``g``'s 4-bit code
  ``i0 | i1 << 2`` at bits ``4 * (g % 4)`` of ``metadata[..., r, g // 4]`` (little-endian, rows in
  natural order: JAX's ``nm_pack`` format and PyTorch's CUTLASS encoder's before its reordering).
  The valid codes are 0x4 (0,1), 0x8 (0,2), 0xC (0,3), 0x9 (1,2), 0xD (1,3) and 0xE (2,3); when
  ``cols % 16 != 0`` the unused high nibbles of each row's last word hold 0x4.

Invariants: ``cols % 4 == 0`` (a shape that is not is refused: ``sparray.pad`` the columns first);
no dense dims; the fill value is 0-d; every element outside the kept positions equals the fill,
and a kept position may hold the fill too (a group with fewer than 2 other elements keeps its
lowest free positions, as PyTorch's encoder does), so ``nse`` is always ``rows * cols // 2`` per
batch and ``density`` 1/2. ``A.mT`` is the same components with ``transposed`` set: the groups then
run down the columns of the matrix it stands for (no re-encoding; the kernels read the flag).

Every operation works through conversion: a function without a 2:4 path takes the array as the
CSR (``transposed``: CSC) of the same pattern, which costs no index computation and keeps every
kept position as an entry (``sparray._functions.layout_door``), and answers as for that CSR. The
native paths: products with dense operands (``A @ X``, ``X @ A``, ``addmm``, either side
transposed), element-wise functions of one array and operators with a scalar (same metadata,
``f(values)``, ``f(fill)``), ``astype``, ``to_device``, ``mT``, row slices.

>>> import sparray, numpy as np
>>> x = np.array([[0.0, 0.0, 1.0, 2.0, 3.0, 0.0, 0.0, 4.0]])
>>> A = sparray.asarray(x, layout="2:4")
>>> A.values.tolist(), hex(int(A.metadata[0, 0]))
([[1.0, 2.0, 3.0, 4.0]], '0x44ce')
>>> bool(np.all(A.to_dense() == x)), A.mT.shape, A.mT.transposed
(True, (8, 1), True)
"""

from __future__ import annotations

import math

from . import forward
from .base import SparseArray
from .._core.dtypes import dtype_name, resolve_dtype
from .._core.fill import normalize_fill
from .._core.namespace import as_component, is_array, namespace_for_device, namespace_of
from .._core.validation import invariant_checks_on, normalize_shape

__all__ = ["SemiStructured", "GROUP", "WORD_GROUPS", "VALID_CODES", "metadata_columns"]

GROUP = 4  #: elements per group along a row
WORD_GROUPS = 4  #: groups per uint16 metadata word
VALID_CODES = (0x4, 0x8, 0xC, 0x9, 0xD, 0xE)  #: i0 | i1 << 2 for the six pairs i0 < i1


def metadata_columns(cols: int) -> int:
    """Metadata words per row for ``cols`` columns: ``ceil(cols / 16)``.

    >>> metadata_columns(16), metadata_columns(8), metadata_columns(20)
    (1, 1, 2)
    """
    return -(-cols // (GROUP * WORD_GROUPS))


class SemiStructured(SparseArray):
    """The 2:4 layout: ``SemiStructured(values, metadata, shape=None, *, fill_value=None, dtype=None,
    device=None, check_invariants=None)`` (see the module docstring for the components).

    ``shape=None`` infers ``(*batch, rows, 2 * values.shape[-1])``. The metadata's codes are
    checked (O(rows * cols / 16)) once before a kernel first reads them, and at construction
    under ``sparray.check_invariants()``.

    >>> import sparray, numpy as np
    >>> A = sparray.SemiStructured([[5.0, 7.0]], np.array([[0x4449]], dtype=np.uint16), fill_value=-1.0)
    >>> A.to_dense().tolist()
    [[-1.0, 5.0, 7.0, -1.0]]
    """

    layout = "2:4"
    _blocked = False

    def __init__(self, values, metadata, shape=None, *, fill_value=None, dtype=None, device=None, check_invariants=None):
        who = "SemiStructured"
        comps = (values, metadata)
        xp = namespace_of(*comps) if any(is_array(c) for c in comps) else namespace_for_device(device)
        values = as_component(values, xp, dtype=resolve_dtype(xp, dtype), name="values")
        metadata = as_component(metadata, xp, name="metadata")
        if dtype_name(metadata.dtype) != "uint16":
            if not xp.isdtype(metadata.dtype, "integral"):
                raise ValueError(f"{who}: metadata must hold uint16 words; got dtype {dtype_name(metadata.dtype)}")
            metadata = xp.astype(metadata, xp.uint16)
        self._xp, self._values, self._metadata, self._transposed = xp, values, metadata, False
        self._shape = self._check_structure(shape, who)
        self._fill = normalize_fill(xp, fill_value, values.dtype, (), who)
        self._checked = False
        if invariant_checks_on(check_invariants):
            self._check_contents()
        if device is not None and any(is_array(c) for c in comps):
            moved = self.to_device(device)
            self._xp, self._values, self._metadata, self._fill = moved._xp, moved._values, moved._metadata, moved._fill

    # --- validation -------------------------------------------------------------------------------
    def _check_structure(self, shape, who):
        """O(1) checks of ranks, shapes and dtypes; returns the (given or inferred) shape."""
        values, metadata = self._values, self._metadata
        if values.ndim < 2:
            raise ValueError(f"{who}: values must be (*batch, rows, cols // 2); got shape {tuple(values.shape)}")
        batch, rows, half = tuple(values.shape[:-2]), int(values.shape[-2]), int(values.shape[-1])
        if shape is None:
            shape = (*batch, rows, 2 * half)
        shape = normalize_shape(shape, who)
        if len(shape) != values.ndim:
            raise ValueError(f"{who}: shape {shape} must have values.ndim = {values.ndim} entries (*batch, rows, cols)")
        cols = shape[-1]
        if cols % GROUP:
            raise ValueError(f"{who}: the number of columns must be a multiple of {GROUP}; got shape {shape} "
                             f"(pad the columns first: sparray.pad(x, [(0, 0), (0, {-cols % GROUP})]))")
        want = (*shape[:-1], cols // 2)
        if tuple(values.shape) != want:
            raise ValueError(f"{who}: values.shape={tuple(values.shape)} must be (*batch, rows, cols // 2) = {want} for shape {shape}")
        want_meta = (*shape[:-1], metadata_columns(cols))
        if tuple(metadata.shape) != want_meta:
            raise ValueError(f"{who}: metadata.shape={tuple(metadata.shape)} must be (*batch, rows, ceil(cols / 16)) = "
                             f"{want_meta} for shape {shape}")
        return shape

    def _check_contents(self) -> None:
        """Every used code one of ``VALID_CODES`` and every unused nibble 0x4 (names the first bad
        row and group): once per array, before a kernel first reads the codes, and at every use
        inside ``with sparray.check_invariants():``."""
        if not self._checked or invariant_checks_on():
            forward.semi_check_metadata(self._xp, self._metadata, self._stored_shape[-1], "SemiStructured")
            self._checked = True

    @classmethod
    def _from_parts(cls, xp, values, metadata, shape, fill, *, checked=True, transposed=False):
        """Internal constructor for components sparray built itself; ``shape`` is the logical one
        (the stored matrix's with its last two dims swapped when ``transposed``)."""
        self = object.__new__(cls)
        self._xp, self._values, self._metadata = xp, values, metadata
        self._shape, self._fill, self._checked, self._transposed = tuple(shape), fill, checked, bool(transposed)
        return self

    def _components(self) -> dict:
        return {"values": self._values, "metadata": self._metadata}

    def _pickle_flags(self) -> dict:
        return {"transposed": self._transposed}

    # --- metadata -----------------------------------------------------------------------------------
    @property
    def metadata(self):
        """The 4-bit codes of the kept positions, packed 4 to a uint16 word: ``(*batch, rows, ceil(cols / 16))``."""
        return self._metadata

    @property
    def transposed(self) -> bool:
        """Whether this array is the matrix transpose of its stored 2:4 matrix (``A.mT`` sets it)."""
        return self._transposed

    @property
    def _stored_shape(self) -> tuple[int, ...]:
        """``(*batch, rows, cols)`` of the stored matrix (the groups run along its rows)."""
        s = self._shape
        return (*s[:-2], s[-1], s[-2]) if self._transposed else s

    @property
    def batch_ndim(self) -> int:
        return self._values.ndim - 2

    @property
    def batch_shape(self) -> tuple[int, ...]:
        return self._shape[: self.batch_ndim]

    @property
    def _values_lead(self) -> int:
        return self._values.ndim

    @property
    def sparse_ndim(self) -> int:
        return 2

    @property
    def nse(self) -> int:
        """Kept positions per batch: ``rows * cols // 2`` (some may hold the fill)."""
        return math.prod(self._values.shape[-2:])

    @property
    def index_dtype(self):
        return self._metadata.dtype

    @property
    def density(self) -> float:
        return 0.0 if self.size == 0 else 0.5

    @property
    def mT(self):
        """The matrix transpose: the same components, ``transposed`` flipped (nothing copied)."""
        s = self._shape
        return type(self)._from_parts(self._xp, self._values, self._metadata, (*s[:-2], s[-1], s[-2]), self._fill,
                                      checked=self._checked, transposed=not self._transposed)

    # --- methods ------------------------------------------------------------------------------------
    def to_dense(self, *, fill_value=None):
        """The dense array (of the components' namespace) this array stands for;
        ``fill_value=v`` writes ``v`` at the unspecified elements instead of the fill (required when the fill is ``sparray.undefined``)."""
        if fill_value is not None or not self.fill_is_defined:
            return forward.dense_with_fill(self, fill_value)
        return forward.semi_to_dense(self)

    def as_hub(self):
        """The same elements as a CSR (``transposed``: a CSC), every kept position an entry:
        row pointers ``0, cols/2, cols, ...`` and column indices ``4g + i`` from the codes."""
        return forward.semi_to_compressed(self)

    def copy(self):
        xp = self._xp
        return type(self)._from_parts(xp, xp.asarray(self._values, copy=True), xp.asarray(self._metadata, copy=True),
                                      self._shape, xp.asarray(self._fill, copy=True), checked=self._checked,
                                      transposed=self._transposed)

    def to_device(self, device, /, *, stream=None):
        xp, (values, metadata, fill) = forward.move_components(self._xp, device, (self._values, self._metadata, self._fill))
        out = type(self)._from_parts(xp, values, metadata, self._shape, fill, checked=self._checked, transposed=self._transposed)
        return forward.carry_facts(self, out)

    def _replace_values(self, values, fill, *, dense_shape=None):
        """Same pattern, new values and fill (element-wise results)."""
        if dense_shape:
            raise ValueError(f"SemiStructured: a 2:4 array has no dense dims; got dense shape {tuple(dense_shape)}")
        return type(self)._from_parts(self._xp, values, self._metadata, self._shape, fill, checked=self._checked,
                                      transposed=self._transposed)

    def _same_pattern(self, flat_values, fill):
        """This array's pattern holding new values (``(*batch, nse)``, the hub's order) and fill."""
        values = self._xp.reshape(flat_values, tuple(self._values.shape))
        return type(self)._from_parts(self._xp, values, self._metadata, self._shape, fill, checked=self._checked,
                                      transposed=self._transposed)

    def __getitem__(self, key):
        """``A[key]``: row slices of an untransposed array stay 2:4; anything else indexes the CSR
        (``as_hub``) of the same pattern, NumPy's rules."""
        return forward.semi_getitem(self, key)

    def __setitem__(self, key, value, /):
        raise TypeError(
            "SemiStructured: item assignment could break the 2:4 pattern and is not supported; convert first "
            "(B = A.to_layout('csr'); B[key] = value), or build a new array (sparray.asarray(x, layout='2:4'))"
        )

    def _repr_extra(self) -> str:
        return f"transposed={self._transposed}" if self._transposed else ""


def _make_inplace(stem):
    def op(self, other, /):
        out = forward.function(_INPLACE[stem])(self, other)
        if not isinstance(out, SemiStructured) or out.shape != self.shape or out.dtype != self.dtype:
            got = f"a {out.layout} array" if isinstance(out, SparseArray) else type(out).__name__
            raise TypeError(f"SemiStructured: `A {_SYMBOL[stem]}= other` must keep A's 2:4 pattern, shape and dtype; "
                            f"the result is {got} (write `A = A {_SYMBOL[stem]} other` instead)")
        self._values, self._metadata, self._fill, self._transposed = out._values, out._metadata, out._fill, out._transposed
        self._checked = out._checked
        return self

    op.__name__ = op.__qualname__ = f"__i{stem}__"
    op.__doc__ = f"``A {_SYMBOL[stem]}= other`` on this object, when the result keeps the 2:4 pattern, shape and dtype."
    return op


_INPLACE = {"add": "add", "sub": "subtract", "mul": "multiply", "truediv": "divide", "floordiv": "floor_divide",
            "mod": "remainder", "pow": "pow", "and": "bitwise_and", "or": "bitwise_or", "xor": "bitwise_xor",
            "lshift": "bitwise_left_shift", "rshift": "bitwise_right_shift", "matmul": "matmul"}  # fmt: skip
_SYMBOL = {"add": "+", "sub": "-", "mul": "*", "truediv": "/", "floordiv": "//", "mod": "%", "pow": "**", "and": "&",
           "or": "|", "xor": "^", "lshift": "<<", "rshift": ">>", "matmul": "@"}  # fmt: skip
for _stem in _INPLACE:
    setattr(SemiStructured, f"__i{_stem}__", _make_inplace(_stem))
