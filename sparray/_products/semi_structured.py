"""Products of a 2:4 array with dense operands: ``A @ X``, ``X @ A``, either side transposed, and
``addmm``, exact for any finite fill (RFC point 10).

With S the stored values on the kept mask M and f the fill, ``A = S' + f J`` where ``S' = S - f``
on M (the same metadata) and J is all ones, so ``A @ X = S' @ X + f colsum(X)`` and ``X @ A =
X @ S' + f rowsum(X)``: the kernels (registry ops ``semi_matmul_dense`` and ``dense_matmul_semi``)
read the values and the 4-bit codes and add the rank-1 term, float16 accumulated in float32.
The stored matrix S (rows along which the groups run) serves all four products:

- ``A @ X = S @ X`` and ``X @ A = X @ S`` for an untransposed A;
- ``A.mT @ X = (X.mT @ S).mT`` and ``X @ A.mT = (S @ X.mT).mT``.

Batch dims broadcast as ``matmul``'s; a 1-d operand is a vector. A non-finite fill, value or
element of X takes the exact general path (the CSR of the same pattern): the identity above would
turn ``inf - inf`` into nan where the dense product has none, and an unspecified 0 times an inf
of X is nan in the dense product. So each product reads once whether X is finite (on a GPU: one
read, the product's only one; the array's own values and fill are known from its first use).
Sparse operands other than the 2:4 array take the general path too.

>>> import sparray, numpy as np
>>> A = sparray.asarray(np.array([[0.0, 2.0, 0.0, 1.0]]), layout="2:4", fill_value=0.0)
>>> (A @ np.arange(4.0)).tolist(), (np.ones(1) @ A).tolist()
([5.0], [0.0, 2.0, 0.0, 1.0])
"""

from __future__ import annotations

import math

from .._array.base import SparseArray
from .._array.semi_structured import SemiStructured
from .._core import dtypes as _dtypes
from .._core.namespace import is_array
from .._engine import dispatch as _dispatch
from .._engine.facts import all_finite, values_all_finite
from .._functions.manipulation import broadcast_shapes
from .._layout.semi_structured import decode

__all__ = ["matmul", "addmm", "NATIVE"]


def matmul(x1, x2, /):
    """``x1 @ x2`` with one operand a 2:4 array and the other a dense array of its namespace, or
    ``NotImplemented`` (the general path serves the call: see the module docstring)."""
    from .linalg import _namespace, _product_dtype

    left = isinstance(x1, SemiStructured)
    A, X = (x1, x2) if left else (x2, x1)
    if isinstance(X, SparseArray) or not is_array(X):
        return NotImplemented
    xp = _namespace("matmul", x1, x2)
    if X.ndim == 0:
        raise ValueError(f"matmul: operands must be at least 1-d; got shapes {tuple(x1.shape)} and {tuple(x2.shape)}")
    inner_a = A.shape[-1] if left else A.shape[-2]
    inner_x = (X.shape[0] if X.ndim == 1 else X.shape[-2]) if left else X.shape[-1]
    if inner_a != inner_x:
        side = f"the {'only' if X.ndim == 1 else 'second-to-last'} dim of x2" if left else "the last dim of x1"
        raise ValueError(f"matmul: shapes {tuple(x1.shape)} and {tuple(x2.shape)} are not aligned: "
                         f"{'the last dim of x1' if left else 'the second-to-last dim of x2'} ({inner_a}) must equal "
                         f"{side} ({inner_x})")
    dtype = _product_dtype("matmul", xp, x1, x2)
    values, fill = A._values, A._fill
    if dtype != A.dtype:
        values, fill = xp.astype(values, dtype), xp.astype(fill, dtype)
    if X.dtype != dtype:
        X = xp.astype(X, dtype)
    if not _finite(xp, A, values, fill, X):
        return NotImplemented
    A._check_contents()
    # in the stored matrix's terms: S @ Y ("right") or Y @ S ("left"), Y = X or X.mT
    stored_on_left = left != A._transposed
    vector = X.ndim == 1
    Y = X if vector or not A._transposed else xp.matrix_transpose(X)
    out = _stored_product(xp, A, values, fill, Y, stored_on_left, vector)
    return xp.matrix_transpose(out) if not vector and A._transposed else out


def _finite(xp, A, values, fill, X) -> bool:
    if not xp.isdtype(values.dtype, ("real floating", "complex floating")):
        return True
    if values is A._values:
        finite = values_all_finite(xp, values) and values_all_finite(xp, fill)
    else:
        finite = values_all_finite(xp, A._values) and values_all_finite(xp, A._fill) and all_finite(xp, values)
    if not finite:
        return False
    if X.dtype == xp.float16:  # no all_finite kernel takes float16: one reduction, one read
        return bool(xp.all(xp.isfinite(X)))
    return all_finite(xp, X)


def _stored_product(xp, A, values, fill, Y, stored_on_left, vector):
    """``S @ Y`` (``stored_on_left``) or ``Y @ S`` with S's batch dims broadcast against Y's, in the
    kernels' convention (``kernels/cpu/semi_structured.py``): values ``(*batch, rows, cols // 2)``
    and Y ``(*batch, cols)`` (vectors) or ``(*batch, cols, N)`` for ``S @ Y``, ``(*batch, rows)`` or
    ``(*batch, M, rows)`` for ``Y @ S``. The components go as they are when no batch is broadcast
    (a kernel may keep what it derives from them: the tensor cores' metadata)."""
    *sbatch, rows, cols = A._stored_shape
    sbatch = tuple(sbatch)
    metadata = A._metadata
    ybatch = () if vector else tuple(Y.shape[:-2])
    batch = broadcast_shapes(sbatch, ybatch, who="matmul")
    if sbatch != batch:
        values = xp.asarray(xp.broadcast_to(values, (*batch, rows, cols // 2)), copy=True)
        metadata = xp.asarray(xp.broadcast_to(metadata, (*batch, *metadata.shape[-2:])), copy=True)
    if vector:
        Yb = xp.asarray(xp.broadcast_to(Y, (*batch, Y.shape[0])), copy=True) if batch else Y
    else:
        Yb = Y if ybatch == batch else xp.asarray(xp.broadcast_to(Y, (*batch, *Y.shape[-2:])), copy=True)
    nb = math.prod(batch)
    work = nb * rows * (cols // 2) * (1 if vector else int(Y.shape[-1] if stored_on_left else Y.shape[-2]))
    f = _host_fill(xp, A, fill)
    if stored_on_left:
        return _dispatch.call("semi_matmul_dense", "2:4", xp, values, metadata, Yb, f, cols, work=work)
    return _dispatch.call("dense_matmul_semi", "2:4", xp, Yb, values, metadata, f, cols, work=work)


def _host_fill(xp, A, fill):
    """The fill as a Python scalar (what the kernels take): read once from a device and kept on A
    (a zero fill known from the array's facts costs no read)."""
    if not hasattr(fill, "__array_namespace__") or type(fill).__module__.split(".")[0] == "numpy":
        return fill.item() if hasattr(fill, "item") else fill
    kept = A.__dict__.get("_host_fill")  # (fill object, its value): the fill never changes in place
    if kept is not None and kept[0] is fill:
        return kept[1]
    if A.__dict__.get("_fill_is_zero") is True:
        value = complex(0) if xp.isdtype(fill.dtype, "complex floating") else (0.0 if xp.isdtype(fill.dtype, "real floating") else 0)
    else:
        value = fill.item()
    A._host_fill = (fill, value)
    return value


def _accumulation_dtype(xp, dtype):
    return xp.float32 if dtype == xp.float16 else dtype


def _fill_array(xp, fill, dtype, like):
    import array_api_compat

    return xp.asarray(fill, dtype=dtype, device=array_api_compat.device(like))


@_dispatch.register("semi_matmul_dense", "2:4", "generic")
def _semi_matmul_dense_generic(xp, values, metadata, x, fill, cols):
    """``S @ x`` in the kernels' convention (see ``_stored_product``), pure array API: the dense
    matrix decoded (with the fill: exact as dense) and ``xp.matmul``, float16 in float32."""
    acc = _accumulation_dtype(xp, values.dtype)
    dense = xp.astype(decode(xp, values, metadata, _fill_array(xp, fill, values.dtype, values), cols), acc)
    xa = xp.astype(x, acc)
    vector = x.ndim == values.ndim - 1
    out = xp.matmul(dense, xa[..., None])[..., 0] if vector else xp.matmul(dense, xa)
    return xp.astype(out, values.dtype)


@_dispatch.register("dense_matmul_semi", "2:4", "generic")
def _dense_matmul_semi_generic(xp, x, values, metadata, fill, cols):
    """``x @ S`` with x ``(*batch, rows)`` or ``(*batch, M, rows)``: the dense matrix decoded and ``xp.matmul``."""
    acc = _accumulation_dtype(xp, values.dtype)
    dense = xp.astype(decode(xp, values, metadata, _fill_array(xp, fill, values.dtype, values), cols), acc)
    xa = xp.astype(x, acc)
    vector = x.ndim == values.ndim - 1
    out = xp.matmul(xa[..., None, :], dense)[..., 0, :] if vector else xp.matmul(xa, dense)
    return xp.astype(out, values.dtype)


def addmm(C, A, B, *, beta=1, alpha=1):
    """``beta * C + alpha * (A @ B)`` (``sparray.addmm``) with A or B a 2:4 array and the other
    dense: the product natively, then the general ``addmm``'s rules (``beta == 0`` ignores C's
    values); ``NotImplemented`` where ``matmul`` declines."""
    from .linalg import _namespace, add_product

    if not (isinstance(A, SemiStructured) or isinstance(B, SemiStructured)):
        return NotImplemented
    xp = _namespace("addmm", A, B)
    if not (is_array(C) or isinstance(C, SparseArray)):
        raise TypeError(f"addmm: C must be an array (sparse or dense); got {type(C).__name__}")
    P = matmul(A, B)
    if P is NotImplemented:
        return NotImplemented
    return add_product(xp, C.as_hub() if isinstance(C, SemiStructured) else C, P, beta=beta, alpha=alpha)


NATIVE = {"matmul": matmul, "addmm": addmm}
