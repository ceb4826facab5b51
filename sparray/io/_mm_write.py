"""``mmwrite``: a SparseArray (coordinate format) or a dense 2-d NumPy array (array format) to a
Matrix Market file.

Invariants:

- values round-trip exactly: by default each real is written as the shortest decimal that reads
  back to the same float64 (float32 values are widened to float64 first, exactly);
  ``precision=p`` writes ``%.{p}g`` instead;
- field from the dtype: bool and integers -> ``integer`` (bool as 0 / 1), floats -> ``real``,
  complex -> ``complex``; ``field=`` may widen (integer -> real -> complex) or ask for ``pattern``
  (coordinate only), never narrow;
- ``symmetry`` other than ``general``: the array is checked (exactly; nan equals nan) and only
  the lower triangle is written (strictly lower for skew-symmetric); a mismatch is a ValueError;
- a sparse array is written coalesced (duplicates summed), indices 1-based, row-major order.

The body is formatted a chunk at a time (``"\\n".join(map(...))`` over whole columns, no Python
statement per line), or, for real / integer / complex coordinate bodies with the default
precision, by fast_matrix_market's C++ writer when it is installed (``engine=None``). To a plain
path (no ``.gz`` / ``.bz2``) with no progress bar to show, fmm writes the whole file itself, on
every core (a 1e7-entry file: 2.29 s through a Python file object, 1.5 s so; scipy.io.mmwrite,
which does the same, 1.2 s); its header has a lone ``%`` line when there is no comment.

>>> import io, numpy as np, sparray
>>> f = io.BytesIO()
>>> mmwrite(f, sparray.asarray(np.array([[1.0, 0.0], [0.5, 3.0]])), engine="sparray")
>>> print(f.getvalue().decode(), end="")
%%MatrixMarket matrix coordinate real general
2 2 3
1 1 1.0
2 1 0.5
2 2 3.0
"""

from __future__ import annotations

import io

import numpy as np

from .._core.fill import same_value
from .._core.namespace import to_numpy
from .._engine.progress import Progress, check_progress
from ._mm_header import FIELDS, SYMMETRIES
from ._mm_source import as_path, open_for_write

__all__ = ["mmwrite"]

_CHUNK = 1 << 16
_RANK = {"integer": 0, "real": 1, "complex": 2}


def _fail(msg):
    raise ValueError(f"mmwrite: {msg}")


def _auto_field(dtype) -> str:
    kind = np.dtype(dtype).kind
    if kind in "biu":
        return "integer"
    if kind == "f":
        return "real"
    if kind == "c":
        return "complex"
    raise TypeError(f"mmwrite: values must be bool, integer, float or complex; got dtype {dtype}")


def _resolve_field(field, dtype, fmt) -> str:
    auto = _auto_field(dtype)
    if field is None:
        return auto
    if field not in FIELDS:
        _fail(f"field must be one of {', '.join(FIELDS)} or None; got {field!r}")
    if field == "pattern":
        if fmt == "array":
            _fail("field 'pattern' needs a sparse array (coordinate format); a dense array has no pattern")
        return field
    if _RANK[field] < _RANK[auto]:
        _fail(f"field {field!r} cannot hold {np.dtype(dtype)} values without losing them; "
              f"use field={auto!r} or convert the values first")
    return field


def _cast(values, field):
    if field == "integer":
        return values.astype(np.int64) if values.dtype.kind == "b" else values
    if field == "real":
        return values.astype(np.float64, copy=False)
    if field == "complex":
        return values.astype(np.complex128, copy=False)
    return values


def _mirror(v, symmetry):
    if symmetry == "skew-symmetric":
        return -v
    if symmetry == "hermitian":
        return v.conj()
    return v


def _check_diagonal(d, symmetry):
    if symmetry == "skew-symmetric" and np.any(d != 0):
        _fail("symmetry='skew-symmetric' but the diagonal is not zero; use symmetry='general'")
    if symmetry == "hermitian" and np.any(np.imag(d) != 0):
        _fail("symmetry='hermitian' but the diagonal is not real; use symmetry='general'")


def _not_symmetric(symmetry):
    _fail(f"symmetry={symmetry!r} but the array is not {symmetry} (A[i, j] must equal "
          f"{ {'symmetric': 'A[j, i]', 'skew-symmetric': '-A[j, i]', 'hermitian': 'conj(A[j, i])'}[symmetry] }); "
          "use symmetry='general'")


def _lower_sparse(r, c, v, symmetry):
    """Check a coalesced (row-major sorted) COO against ``symmetry``; keep its lower triangle.
    Explicit zeros take no part in the check."""
    nz = v != 0
    if v.dtype.kind in "fc":
        nz |= np.isnan(v)
    lo, up = (r > c) & nz, (r < c) & nz
    _check_diagonal(v[(r == c) & nz], symmetry)
    order = np.lexsort((r[up], c[up]))  # the upper entries transposed, row-major
    ur, uc, uv = c[up][order], r[up][order], v[up][order]
    if (int(lo.sum()) != ur.size or not np.array_equal(r[lo], ur) or not np.array_equal(c[lo], uc)
            or not same_value(np, v[lo], _mirror(uv, symmetry), signed_zeros=False).all()):
        _not_symmetric(symmetry)
    keep = r > c if symmetry == "skew-symmetric" else r >= c
    return r[keep], c[keep], v[keep]


def _lower_dense(D, symmetry):
    """Check a dense square array against ``symmetry``; its lower triangle column by column."""
    _check_diagonal(np.diagonal(D), symmetry)
    if not same_value(np, D, _mirror(D.T, symmetry), signed_zeros=False).all():  # values, as == compares them
        _not_symmetric(symmetry)
    c, r = np.triu_indices(D.shape[0], 1 if symmetry == "skew-symmetric" else 0)
    return D[r, c]


def _value_format(field, precision):
    one = "%r" if precision is None else f"%.{int(precision)}g"
    return {"integer": "%d", "real": one, "complex": f"{one} {one}", "pattern": ""}[field]


def _columns(values, field):
    if field == "pattern":
        return []
    if field == "complex":
        return [values.real, values.imag]
    return [values]


def _write_lines(write, fmt, columns, n, bar):
    """``fmt % row`` for every row of the columns (1-d arrays), ``_CHUNK`` rows at a time."""
    for lo in range(0, n, _CHUNK):
        cols = [col[lo : lo + _CHUNK].tolist() for col in columns]
        write(("\n".join(map(fmt.__mod__, zip(*cols))) + "\n").encode())
        bar.update(min(_CHUNK, n - lo))


def _header(fmt, field, symmetry, comment, size):
    lines = [f"%%MatrixMarket matrix {fmt} {field} {symmetry}"]
    lines += ["%" + line for line in str(comment).splitlines()] if comment else []
    lines.append(" ".join(str(s) for s in size))
    return ("\n".join(lines) + "\n").encode()


class _AfterHeader(io.RawIOBase):
    """A raw binary stream that passes on what is written after the first size line (drops fmm's
    header); an :class:`io.BufferedWriter` goes in front of it (fmm writes 512 bytes a call)."""

    def __init__(self, write, bar):
        super().__init__()
        self._write, self._head, self._done, self._bar = write, b"", False, bar

    def writable(self):
        return True

    def write(self, data):
        if self._done:
            self._bar.update(bytes(data).count(b"\n"))
            self._write(bytes(data))
            return len(data)
        self._head += bytes(data)
        pos = self._head.find(b"\n") + 1  # after the banner
        while 0 < pos < len(self._head) and self._head[pos : pos + 1] == b"%":
            pos = self._head.find(b"\n", pos) + 1
        end = self._head.find(b"\n", pos) if pos > 0 else -1
        if end >= 0:
            self._done = True
            rest, self._head = self._head[end + 1 :], b""
            if rest:
                self._bar.update(rest.count(b"\n"))
                self._write(rest)
        return len(data)


def _fmm_writer(engine, field, precision):
    if engine == "sparray" or field == "pattern" or precision is not None:
        return None
    try:
        import fast_matrix_market as fmm
    except ImportError:
        if engine == "fmm":
            raise ImportError("mmwrite: engine='fmm' needs the fast_matrix_market package; "
                              "or use engine='sparray'") from None
        return None
    return fmm


# a write of more entries than this may take over 2 s: it keeps the Python route, which can show
# the progress bar that ``progress=None`` shows on a terminal after 2 s
_NATIVE_QUIET_MAX = 20_000_000


def _write_coordinate_native(target, r, c, v, shape, field, symmetry, comment, fmm, progress) -> bool:
    """The whole coordinate file written by fmm's own writer (C++ file output, every core), as
    ``scipy.io.mmwrite`` has it do: for a plain path (not ``.gz`` / ``.bz2``) when no progress bar
    can be asked of the write (``progress=False``, or None and at most ``_NATIVE_QUIET_MAX``
    entries). fmm writes the header too: the same lines as :func:`_header`, plus a lone ``%``
    comment line when ``comment`` is empty. False (nothing written) when the route does not
    apply or this fmm has no such writer (its file writer is not public API: checked, not assumed)."""
    path = as_path(target)
    if fmm is None or path is None or path.endswith((".gz", ".bz2")) or not r.size:
        return False
    if progress is True or (progress is None and r.size > _NATIVE_QUIET_MAX):
        return False
    core = getattr(fmm, "_fmm_core", None)
    if not (hasattr(fmm, "header") and hasattr(core, "open_write_file") and hasattr(core, "write_body_coo")):
        return False
    h = fmm.header(shape=shape, nnz=int(r.size), comment=str(comment), object="matrix", format="coordinate",
                   field=field, symmetry=symmetry)
    cursor = core.open_write_file(path, h, 0, -1)  # 0: every core; -1: shortest round-trip digits
    core.write_body_coo(cursor, shape, r, c, v)
    del cursor  # flushes and closes the file
    return True


def _write_coordinate(write, r, c, v, shape, field, precision, fmm, bar):
    if fmm is not None and r.size:
        # fmm hands a Python file object 512 bytes a call: a buffer in C in front of the header
        # filter and the progress count makes that one Python call per 4 MiB (1e7 entries, 336 MB:
        # 2.29 -> 1.81 s; scipy.io.mmwrite, which gives fmm the path to write itself, 1.1 s)
        out = io.BufferedWriter(_AfterHeader(write, bar), buffer_size=1 << 22)
        fmm.write_coo(out, (v, (r, c)), shape)
        out.flush()
        return
    fmt = " ".join(["%d", "%d"] + ([_value_format(field, precision)] if field != "pattern" else []))
    _write_lines(write, fmt, [r + 1, c + 1] + _columns(v, field), r.size, bar)


def mmwrite(target, A, *, comment="", field=None, precision=None, symmetry="general", engine=None, progress=None):
    """Write ``A`` to ``target`` (a path, ``.gz`` / ``.bz2`` compressed by suffix, or a binary or
    text file object) in Matrix Market format.

    ``A``: a SparseArray of any layout (2-d, no dense dims, fill value 0), written in coordinate
    format; or a 2-d NumPy array, written in array format. ``comment`` lines are written after
    the banner, each prefixed with ``%``. ``engine``: None (fast_matrix_market for the body when
    installed and ``precision`` is None), ``"fmm"`` or ``"sparray"``. See the module docstring
    for field, precision and symmetry. ``progress``: a bar of the lines written on standard error
    (None: on a terminal once the write has taken 2 s; True: always; False: never).
    """
    from .._array.base import SparseArray

    check_progress("mmwrite", progress)
    if symmetry not in SYMMETRIES:
        _fail(f"symmetry must be one of {', '.join(SYMMETRIES)}; got {symmetry!r}")
    if engine not in (None, "fmm", "sparray"):
        _fail(f"engine must be None, 'fmm' or 'sparray'; got {engine!r}")
    if precision is not None and (int(precision) != precision or precision < 1):
        _fail(f"precision must be a positive integer or None; got {precision!r}")
    if isinstance(A, SparseArray):
        fmt = "coordinate"
        if A.ndim != 2 or A.dense_ndim:
            _fail(f"Matrix Market holds 2-d matrices; got shape {A.shape} with dense_ndim={A.dense_ndim} "
                  "(write A.to_dense() slices, or reshape to 2-d)")
        from .._core.fill import fill_is_zero

        if not A.fill_is_defined:
            raise ValueError("mmwrite: this array's fill is undefined (sparray.undefined) and Matrix Market has none: its unspecified elements would read as 0; give them a value first (sparray.asarray(A, fill_value=0.0)) to say so")
        if not fill_is_zero(A._xp, A.fill_value):
            _fail(f"Matrix Market has no fill value and this array's fill is {A.fill_value!r}; write "
                  "A - A.fill_value (and remember the fill), or A.to_dense() in array format")
        B = A.to_layout("coo") if A.layout != "coo" else A
        B = B.coalesce() if not B.is_coalesced else B
        r, c = (x.astype(np.int64, copy=False) for x in to_numpy(B.indices))  # read, never written
        v = to_numpy(B.values)
    elif isinstance(A, np.ndarray):
        fmt = "array"
        if A.ndim != 2:
            _fail(f"a dense array must be 2-d; got shape {A.shape}")
        v = A
    else:
        raise TypeError(f"mmwrite: A must be a SparseArray or a 2-d numpy.ndarray; got {type(A).__name__} "
                        "(use sparray.asarray(A) or np.asarray(A))")
    shape = tuple(int(s) for s in A.shape)
    field = _resolve_field(field, v.dtype, fmt)
    if symmetry == "hermitian" and field != "complex":
        _fail(f"symmetry='hermitian' needs field 'complex'; got {field!r} (use 'symmetric')")
    if field == "pattern" and symmetry not in ("general", "symmetric"):
        _fail(f"field 'pattern' goes only with symmetry general or symmetric; got {symmetry!r}")
    if symmetry != "general" and shape[0] != shape[1]:
        _fail(f"symmetry={symmetry!r} needs a square matrix; got shape {shape}")
    v = _cast(v, field)
    if fmt == "coordinate":
        if symmetry != "general":
            r, c, v = _lower_sparse(r, c, v, symmetry)
        fmm = _fmm_writer(engine, field, precision)
        if _write_coordinate_native(target, r, c, v, shape, field, symmetry, comment, fmm, progress):
            return
        with open_for_write(target) as write, Progress(r.size, "mmwrite", progress=progress, unit="lines") as bar:
            write(_header(fmt, field, symmetry, comment, shape + (r.size,)))
            _write_coordinate(write, r, c, v, shape, field, precision, fmm, bar)
    else:
        flat = v.T.ravel() if symmetry == "general" else _lower_dense(v, symmetry)
        with open_for_write(target) as write, Progress(flat.size, "mmwrite", progress=progress, unit="lines") as bar:
            write(_header(fmt, field, symmetry, comment, shape))
            _write_lines(write, _value_format(field, precision), _columns(flat, field), flat.size, bar)
