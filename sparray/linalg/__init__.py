"""The array API's ``linalg`` extension for sparse arrays (``xp.linalg`` with ``xp = sparray``).

Every function of the 2024.12 extension, on every layout, exact with any fill value:

- kept sparse where the result allows it: ``matmul``, ``tensordot``, ``vecdot`` and
  ``matrix_transpose`` (the main namespace's functions), ``diagonal``, ``trace``, ``outer``,
  ``cross``, ``matrix_power`` (n >= 0), ``vector_norm``, ``matrix_norm`` (all but "nuc", 2, -2);
- computed on the dense form with the namespace's own linalg (dense results, handed back as
  sparray arrays holding them for sparray input: the namespace rule of ``sparray._array.results``; a
  :class:`SparrayDensifyWarning` above ``DENSIFY_THRESHOLD`` elements per matrix):
  ``cholesky``, ``det``, ``slogdet``, ``eigh``, ``eigvalsh``, ``inv``, ``pinv``, ``qr``,
  ``solve``, ``svd``, ``svdvals``, ``matrix_rank``, ``matrix_power`` (n < 0) and the singular-value
  matrix norms. ``solve`` with a large 2-d zero-fill sparse ``x1`` uses SciPy's SuperLU instead.

Beyond the standard, scipy.sparse.linalg's solvers, on every device and with any fill value:

- iterative solvers ``cg``, ``minres``, ``gmres``, ``bicgstab`` (scipy's signatures, ``(x, info)``)
  on a sparray array, a dense array or any linear operator, written once against the array API
  (``_iterative.py``: one host read per iteration, the residual norm);
- preconditioners ``jacobi`` (every namespace), ``ilu0`` and ``ichol0`` (numba kernels; other
  namespaces factored on the host once and applied by level schedules, ``_levels.py``), passed
  as ``M=`` (``_preconditioners.py``);
- ``amg`` (smoothed-aggregation algebraic multigrid, pyamg's options): a ``MultilevelSolver``
  usable as ``M=`` or alone (``M.solve``); set up on the host, cycled in the matrix's namespace
  (``_amg/``);
- ``eigsh`` (thick-restart Lanczos) and ``svds`` on top of it (``_eigen.py``);
- ``spsolve`` and ``splu`` through SciPy's SuperLU (NumPy) or cupyx (CuPy) (``_direct.py``).

Importing it imports nothing beyond sparray itself (no SciPy, no numba: the solvers import SciPy
or the kernels when first called). docs/linalg.md has the tables.

>>> import sparray, numpy as np
>>> A = sparray.asarray(np.array([[4.0, 0.0], [0.0, 9.0]]), layout="csr")
>>> sparray.linalg.diagonal(A).to_dense().tolist(), float(sparray.linalg.det(A))
([4.0, 9.0], 36.0)
"""

from .._products.linalg import matmul, tensordot, vecdot
from .._functions.manipulation import matrix_transpose
from ._dense_fallback import (
    DENSIFY_THRESHOLD,
    SparrayDensifyWarning,
    densify_threshold,
    get_densify_threshold,
    set_densify_threshold,
)
from ._diagonal import diagonal, trace
from ._factorizations import (
    EighResult,
    QRResult,
    SlogdetResult,
    SVDResult,
    cholesky,
    det,
    eigh,
    eigvalsh,
    inv,
    matrix_rank,
    pinv,
    qr,
    slogdet,
    solve,
    svd,
    svdvals,
)
from ._norms import matrix_norm, vector_norm
from ._outer import cross, outer
from ._power import matrix_power
from ._direct import SparseLU, splu, spsolve
from ._eigen import NoConvergence, eigsh, svds
from ._iterative import bicgstab, cg, gmres, minres
from ._preconditioners import IChol0, ILU0, Jacobi, ichol0, ilu0, jacobi
from ._amg import MultilevelSolver, amg

from .._array.results import sparray_results as _sparray_results
from .._functions.layout_door import through_layouts as _through_layouts

# the layout door (sparray._functions.layout_door): a 2:4 argument takes its native path or its CSR
for _name in (
    "matmul", "tensordot", "vecdot", "matrix_transpose", "cholesky", "cross", "det", "diagonal", "eigh", "eigvalsh",
    "inv", "matrix_norm", "matrix_power", "matrix_rank", "outer", "pinv", "qr", "slogdet", "solve", "svd", "svdvals",
    "trace", "vector_norm", "bicgstab", "cg", "eigsh", "gmres", "minres", "spsolve", "svds", "splu", "jacobi", "ilu0",
    "ichol0", "amg",
):  # fmt: skip
    globals()[_name] = _through_layouts(globals()[_name], _name)
del _name

# the namespace rule (sparray._array.results): called with sparray arrays only, the functions return
# sparray arrays, the dense factorizations' results included (matmul, tensordot and vecdot are the
# main namespace's: one wrapper per function, so they stay the same objects)
matmul, tensordot, vecdot = (_sparray_results(f) for f in (matmul, tensordot, vecdot))
cholesky, cross, det, diagonal, eigh, eigvalsh, inv, matrix_norm, matrix_power, matrix_rank = (
    _sparray_results(f) for f in (cholesky, cross, det, diagonal, eigh, eigvalsh, inv, matrix_norm, matrix_power, matrix_rank)
)
outer, pinv, qr, slogdet, solve, svd, svdvals, trace, vector_norm = (
    _sparray_results(f) for f in (outer, pinv, qr, slogdet, solve, svd, svdvals, trace, vector_norm)
)
# the solvers too: (x, info), (w, v), (u, s, vh) of sparray input are sparray arrays holding the dense vectors
bicgstab, cg, eigsh, gmres, minres, spsolve, svds = (
    _sparray_results(f) for f in (bicgstab, cg, eigsh, gmres, minres, spsolve, svds)
)

STANDARD_NAMES = (
    "cholesky", "cross", "det", "diagonal", "eigh", "eigvalsh", "inv", "matmul", "matrix_norm", "matrix_power",
    "matrix_rank", "matrix_transpose", "outer", "pinv", "qr", "slogdet", "solve", "svd", "svdvals", "tensordot",
    "trace", "vecdot", "vector_norm",
)  # fmt: skip
"""The functions of the 2024.12 linalg extension (all defined here)."""

SOLVER_NAMES = (
    "cg", "minres", "gmres", "bicgstab", "jacobi", "ilu0", "ichol0", "Jacobi", "ILU0", "IChol0",
    "eigsh", "svds", "NoConvergence", "spsolve", "splu", "SparseLU", "amg", "MultilevelSolver",
)  # fmt: skip
"""scipy.sparse.linalg's solvers, preconditioners and eigensolvers (beyond the standard)."""

__all__ = [
    *STANDARD_NAMES,
    "DENSIFY_THRESHOLD", "SparrayDensifyWarning", "densify_threshold", "get_densify_threshold", "set_densify_threshold",
    "EighResult", "QRResult", "SVDResult", "SlogdetResult",
    *SOLVER_NAMES,
]  # fmt: skip
