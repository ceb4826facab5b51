"""PyTorch interop: ``to_torch(A)`` / ``from_torch(t)`` for all five sparse layouts and 2:4.

Every component (indices, index pointers, values) crosses through DLPack on its own
(``torch.from_dlpack(component)`` one way, the namespace's ``from_dlpack(tensor)`` the other),
so both sides share memory wherever devices and dtypes allow:

- NumPy components <-> CPU tensors, CuPy components <-> CUDA tensors; components of any other
  namespace with ``__dlpack__`` (array_api_strict, ...) export the same way.
- Layouts map one to one: ``"coo"`` <-> ``torch.sparse_coo``, ``"csr"`` <-> ``torch.sparse_csr``,
  ``"csc"``, ``"bsr"``, ``"bsc"`` likewise; batch dims (compressed layouts) and dense (hybrid)
  dims keep their places, and BSC blocks keep the array's orientation, as in PyTorch.
- Compressed layouts keep int32 or int64 indices as they are. torch COO needs int64 indices:
  int32 COO indices are converted on export, the one copy ``to_torch`` makes (values are shared).
- COO keeps its coalesced flag both ways, and an uncoalesced tensor is not coalesced on the way.
- ``from_torch(t, *, xp=None)`` detaches a tensor that requires grad (memory still shared),
  resolves conjugate/negative bits (a copy), refuses dense tensors (TypeError), and can hand the
  components to another namespace's ``from_dlpack`` (``xp=array_api_strict``).

torch sparse tensors have no fill value (every unspecified element is zero), so ``to_torch``
needs an all-zero ``fill_value`` (0-d or dense-part shaped) and raises ValueError otherwise.

2:4 arrays (``"2:4"``) and torch's ``SparseSemiStructuredTensor`` (``sparray/interop/_torch_semi.py``):
on a CUDA device ``to_torch`` builds torch's semi-structured tensor (CUTLASS: values shared,
metadata put in CUTLASS's order; cuSPARSELt: through the dense matrix), on the CPU, where torch
has none, the CSR of the kept positions; ``from_torch`` reads both backends back.

torch is imported by this module only: ``import sparray`` never imports it.

>>> import sparray
>>> from sparray.interop.torch import from_torch, to_torch
>>> A = sparray.CSR([0, 2, 3], [0, 2, 1], [1.0, 2.0, 3.0], shape=(2, 3))
>>> t = to_torch(A)
>>> t.layout, t.values().data_ptr() == A.values.__array_interface__["data"][0]
(torch.sparse_csr, True)
>>> from_torch(t).to_dense().tolist()
[[1.0, 0.0, 2.0], [0.0, 3.0, 0.0]]
"""

from __future__ import annotations

import array_api_compat
import numpy as np

try:
    import torch
except ImportError as e:  # pragma: no cover - depends on the environment
    raise ImportError("sparray.interop.torch needs PyTorch (pip install 'sparray[torch]')") from e

from .._array.base import SparseArray
from .._array.blocked import BSC, BSR
from .._array.compressed import CSC, CSR
from .._array.coo import COO
from .._core.dtypes import DTYPE_NAMES, EXTRA_DTYPE_NAMES, dtype_name
from .._core.fill import fill_is_zero
from .._core.iso import iso_element
from . import _torch_semi
from ._fill import explicit_fill

__all__ = ["from_torch", "to_torch"]

# sparray layout -> (torch layout name, names of the components in torch's order)
_LAYOUTS = {
    "coo": ("sparse_coo", ("indices", "values")),
    "csr": ("sparse_csr", ("crow_indices", "col_indices", "values")),
    "csc": ("sparse_csc", ("ccol_indices", "row_indices", "values")),
    "bsr": ("sparse_bsr", ("crow_indices", "col_indices", "values")),
    "bsc": ("sparse_bsc", ("ccol_indices", "row_indices", "values")),
}
_CLASSES = {"coo": COO, "csr": CSR, "csc": CSC, "bsr": BSR, "bsc": BSC}
_FROM_TORCH_LAYOUT = {getattr(torch, name): layout for layout, (name, _) in _LAYOUTS.items()}


# --- sparray -> torch -----------------------------------------------------------------------------
def to_torch(A, *, dtype=None, backend=None, fill_value=None):
    """``A`` as a torch sparse tensor of the same layout, sharing its components' memory.

    Invariants of the result ``t``: ``t.layout`` is ``A``'s layout (``torch.sparse_coo``,
    ``torch.sparse_csr``, ...), ``t.shape == A.shape``, ``t.dtype`` is ``A.dtype`` by name,
    ``t.to_dense()`` equals ``A.to_dense()``; its components are ``A``'s (through DLPack, no copy:
    NumPy -> CPU tensors, CuPy -> CUDA tensors), so a write on one side shows on the other.
    The one exception: torch COO tensors need int64 indices, so int32 COO indices are copied
    to int64 (the values stay shared). Compressed layouts keep int32 or int64 indices. A COO
    tensor is built with ``is_coalesced=A.is_coalesced`` (duplicates kept as they are).

    torch checks nothing here (``check_invariants=False``): sparray validated the components.
    uint16/uint32/uint64 arrays export, but many torch sparse ops (``to_dense`` among them)
    do not support those dtypes.

    ``dtype``: the torch dtype of the result's values (a ``torch.dtype`` or its name), cast on the
    torch side (a copy), e.g. ``torch.bfloat16``, which sparray lacks. Default: ``A.dtype``.

    ``fill_value``: the value the unspecified elements of an array with an undefined fill
    (``sparray.undefined``) take, said explicitly: torch's implicit 0 (``to_torch(A, fill_value=0)``;
    the stored entries, explicit zeros among them, stay). With a defined fill it may only repeat
    it. An iso array (``sparray.graph.is_iso``) gets its values written out (torch keeps one value
    per entry): that copy is the only one.

    **2:4 arrays.** Torch has two results for them, by device:

    - CUDA (CuPy data): torch's ``SparseSemiStructuredTensor`` (2-D only), of the ``backend``:
      ``"cutlass"`` keeps ``A.values`` as ``packed`` (shared unless ``dtype`` casts them) and puts
      the metadata in CUTLASS's order; ``"cusparselt"`` hands the dense matrix to torch's
      compressor (its format is opaque); None: CUTLASS when
      ``SparseSemiStructuredTensor._FORCE_CUTLASS`` is set or the device is compute capability 8.x
      (CUTLASS's sparse kernels run there only), else cuSPARSELt. The dtype and shape must meet the
      backend's table (CUTLASS: int8, float16, bfloat16, float32; rows a multiple of 32 (int8:
      16), columns of 64 (int8: 128, float32: 32)), else ValueError saying what to pass.
      float32 is torch's 1:2 format (one of each pair of columns, TF32 products): a group keeping
      positions (0, 1) or (2, 3) with two non-zeros raises, pass ``dtype=torch.float16`` (or
      bfloat16) for 2:4. ``A.mT`` gives the stored matrix's tensor ``.t()`` (torch multiplies it
      as the right operand, ``x @ t``, as any transposed semi-structured tensor).
    - CPU: torch has no semi-structured tensor there, so the result is the CSR (``A.mT``: CSC) of
      the kept positions, ``A.as_hub()``, values shared: what ``torch.mm`` takes on the CPU (floating dtypes).
      ``backend=`` with CPU data raises ValueError.

    Raises TypeError for a non-SparseArray or a dtype this torch lacks, and ValueError for a
    non-zero (or nan) ``fill_value``: torch sparse tensors have an implicit zero fill (2:4 arrays
    too: torch's semi-structured tensors have zeros off the kept positions), and for ``backend``
    given with a layout other than 2:4.

    >>> import sparray
    >>> A = sparray.COO([[0, 1, 1], [2, 0, 2]], [3.0, 4.0, 5.0], shape=(2, 3))
    >>> to_torch(A).to_dense()
    tensor([[0., 0., 3.],
            [4., 0., 5.]], dtype=torch.float64)
    """
    if not isinstance(A, SparseArray):
        raise TypeError(f"to_torch: expected a sparray.SparseArray; got {type(A).__module__}.{type(A).__name__}")
    A = explicit_fill(A, fill_value, "to_torch")
    _check_zero_fill(A)
    if iso_element(A._values) is not None:  # one value broadcast: torch's sparse kernels want one per entry
        A = A._replace_values(A._xp.asarray(A._values, copy=True), A._fill)
    if A.layout == "2:4":  # sparray/interop/_torch_semi.py; on the CPU torch has none: the CSR of the kept positions
        if backend is not None or not _torch_semi.on_host(A):
            return _torch_semi.semi_structured_tensor(A, dtype=dtype, backend=backend, export=_export)
        A = A.as_hub()
    elif backend is not None:
        raise ValueError(f"to_torch: backend= applies to 2:4 arrays only; got backend={backend!r} for a {A.layout.upper()} array")
    name = dtype_name(A.dtype)
    if not isinstance(getattr(torch, name, None), torch.dtype):
        raise TypeError(f"to_torch: torch {torch.__version__} has no {name} dtype; convert with A.astype(...) first")
    torch_layout, names = _LAYOUTS[A.layout]
    parts = [_export(getattr(A, n), n) for n in names]
    if dtype is not None:
        parts[-1] = parts[-1].to(_torch_semi.as_torch_dtype(torch, dtype, "to_torch"))  # the values: a cast, a copy
    if A.layout == "coo":
        indices, values = parts
        if indices.dtype != torch.int64:
            indices = indices.to(torch.int64)  # torch COO needs int64 indices: the one copy
        return torch.sparse_coo_tensor(
            indices, values, A.shape, check_invariants=False, is_coalesced=bool(A.is_coalesced)
        )
    cidx, pidx, values = parts
    return torch.sparse_compressed_tensor(
        cidx, pidx, values, A.shape, layout=getattr(torch, torch_layout), check_invariants=False
    )


def _check_zero_fill(A) -> None:
    """ValueError unless every element of ``A.fill_value`` is 0 (torch's implicit fill)."""
    if not A.fill_is_defined:
        raise ValueError("to_torch: this array's fill is undefined (sparray.undefined) and torch sparse tensors have "
                         "none: its unspecified elements would read as 0; say so with to_torch(A, fill_value=0) "
                         "(or sparray.asarray(A, fill_value=0.0))")
    if fill_is_zero(A._xp, A.fill_value):
        return
    xp, fill = A._xp, A.fill_value
    has_nan = xp.isdtype(fill.dtype, ("real floating", "complex floating")) and bool(xp.any(xp.isnan(fill)))
    shown = fill.tolist() if hasattr(fill, "tolist") else fill
    advice = (
        "a nan fill cannot be subtracted away, so use A.to_dense() (then torch.from_dlpack) for a dense tensor"
        if has_nan
        else "use A.to_dense() (then torch.from_dlpack) for a dense tensor, or export A - A.fill_value "
        "(fill 0) and add the fill back on the torch side"
    )
    raise ValueError(
        f"to_torch: torch sparse tensors have an implicit zero fill, but this {A.layout.upper()} array has "
        f"fill_value={shown}; {advice}"
    )


def _export(component, name):
    """One component as a torch tensor through DLPack (zero copy)."""
    if not hasattr(component, "__dlpack__"):
        raise TypeError(
            f"to_torch: {name} is a {type(component).__module__}.{type(component).__name__}, which does not "
            "support DLPack (no __dlpack__); move the array to NumPy or CuPy with A.to_device(...) first"
        )
    try:
        return torch.from_dlpack(component)
    except (BufferError, RuntimeError, TypeError, ValueError) as e:
        where = f"{dtype_name(component.dtype)} on {array_api_compat.device(component)}"
        raise TypeError(f"to_torch: {name} ({where}) could not pass through DLPack: {e}") from e


# --- torch -> sparray -----------------------------------------------------------------------------
def from_torch(t, *, xp=None):
    """The sparray array of ``t``'s layout holding ``t``'s components (through DLPack, no copy).

    Invariants of the result ``A``: same layout, shape and dtype (by name) as ``t``, fill value 0,
    ``A.to_dense()`` equals ``t.to_dense()``; components are arrays of ``xp`` (default: NumPy for
    a CPU tensor, CuPy for a CUDA tensor) that share ``t``'s memory. COO keeps ``t``'s
    coalesced flag, and duplicates of an uncoalesced tensor (``t._indices()`` / ``t._values()``;
    ``t`` is never coalesced on the way); its indices are int64, torch's only COO index dtype.
    Compressed layouts keep torch's int32 or int64 indices.

    - ``t.requires_grad``: ``t`` is detached first (the values are still shared; no gradient
      flows through sparray).
    - A conjugate or negative bit on a component (a lazy torch view) is resolved first: that
      component is copied.
    - A dense (strided) tensor raises TypeError: use ``sparray.asarray(np.from_dlpack(t))`` (CPU)
      to pick its fill value and layout.
    - A ``SparseSemiStructuredTensor`` becomes a 2:4 array. CUTLASS: ``packed`` shared as the
      values and ``meta`` taken out of CUTLASS's order (torch's codes kept as they are; float32's
      1:2 pairs become 2:4 groups). cuSPARSELt (an opaque format), or a CUTLASS tensor whose
      ``meta`` is not the plain 2-D matrix: through ``t.to_dense()`` (a product with the identity
      on the device, as torch itself does), then encoded. bfloat16 values become float32
      (exact; a copy), since sparray has no bfloat16; float16 values stay float16, shared.
      A transposed tensor (``t.t()`` of a
      ``from_dense`` one) comes back as ``.mT`` of its stored matrix's array.

    Raises TypeError for a non-tensor, a dense tensor, an unknown layout or a dtype sparray
    lacks (bfloat16, ...; semi-structured tensors excepted, above), and ValueError for a
    device other than CPU or CUDA.

    >>> import torch
    >>> t = torch.tensor([[0.0, 2.0], [3.0, 0.0]]).to_sparse_csr()
    >>> A = from_torch(t)
    >>> A.layout, A.nse, A.index_dtype
    ('csr', 2, dtype('int64'))
    """
    if not isinstance(t, torch.Tensor):
        raise TypeError(f"from_torch: expected a torch.Tensor with a sparse layout; got {type(t).__module__}.{type(t).__name__}")
    if isinstance(t, torch.sparse.SparseSemiStructuredTensor):  # 2:4 (sparray/interop/_torch_semi.py)
        if t.device.type not in ("cpu", "cuda"):
            raise ValueError(f"from_torch: expected a CPU or CUDA tensor; got device {t.device}")
        return _torch_semi.from_semi_structured(t, _target_namespace(t.device, xp), _import)
    if t.layout == torch.strided:
        raise TypeError(
            "from_torch: expected a sparse tensor (torch.sparse_coo, sparse_csr, sparse_csc, sparse_bsr or "
            "sparse_bsc); got a dense (strided) tensor. Use sparray.asarray(np.from_dlpack(t)) "
            "(or t.to_sparse() first) to choose a layout and fill value"
        )
    layout = _FROM_TORCH_LAYOUT.get(t.layout)
    if layout is None:
        raise TypeError(
            f"from_torch: unsupported layout {t.layout}; expected one of "
            + ", ".join(f"torch.{name}" for name, _ in _LAYOUTS.values())
        )
    name = str(t.dtype).removeprefix("torch.")
    if name not in DTYPE_NAMES + EXTRA_DTYPE_NAMES:
        raise TypeError(
            f"from_torch: sparray has no {t.dtype} dtype; expected one of {', '.join(DTYPE_NAMES + EXTRA_DTYPE_NAMES)} "
            "(convert first, e.g. t.to(torch.float32))"
        )
    if t.device.type not in ("cpu", "cuda"):
        raise ValueError(f"from_torch: expected a CPU or CUDA tensor; got device {t.device}")
    if t.requires_grad:
        t = t.detach()  # shares memory; sparray does not track gradients
    xp = _target_namespace(t.device, xp)
    cls = _CLASSES[layout]
    shape = tuple(t.shape)
    if layout == "coo":
        indices, values = _import(t._indices(), xp), _import(t._values(), xp)
        return cls(indices, values, shape, is_coalesced=t.is_coalesced())
    if layout in ("csr", "bsr"):
        cidx, pidx = t.crow_indices(), t.col_indices()
    else:
        cidx, pidx = t.ccol_indices(), t.row_indices()
    return cls(_import(cidx, xp), _import(pidx, xp), _import(t.values(), xp), shape)


def _target_namespace(device, xp):
    """The namespace whose ``from_dlpack`` receives the components."""
    if xp is not None:
        if not hasattr(xp, "from_dlpack"):
            raise TypeError(f"from_torch: xp must be an array namespace with from_dlpack; got {xp!r}")
        return xp
    if device.type == "cuda":
        try:
            import cupy
        except ImportError as e:
            raise ValueError(
                f"from_torch: a tensor on {device} becomes CuPy components, but CuPy is not installed; "
                "move it with t.cpu() first"
            ) from e
        return cupy
    return np


def _import(component, xp):
    """One torch component as an array of ``xp`` through DLPack (no copy unless a lazy bit is set)."""
    component = component.resolve_conj().resolve_neg()  # no-ops (no copy) unless the bit is set
    return xp.from_dlpack(component)
