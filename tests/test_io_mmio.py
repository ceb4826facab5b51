"""Matrix Market IO (sparray.io): round trips, scipy files, both engines, errors, rounding."""

from __future__ import annotations

import bz2
import doctest
import gzip
import io

import numpy as np
import pytest

import sparray
import sparray.io as smm
from sparray.io import mminfo, mmread, mmwrite

sio = pytest.importorskip("scipy.io")
ENGINES = ["sparray", pytest.param("fmm", marks=pytest.mark.skipif(
    not smm._mm_fmm.fmm_available(), reason="fast_matrix_market not installed"))]
BANNER = "%%MatrixMarket matrix"


@pytest.fixture(autouse=True, params=["python", "sequential", "chunked"])
def body_parser(request, monkeypatch):
    """Every test runs three times: small bodies in plain Python (``_mm_small``, the default below
    ``SMALL_BODY_BYTES``), with sparray's sequential body kernel, and with the chunked parallel one
    forced on however small the file (the kernels fall back to the sequential pass for the exact
    error, and so does the Python path, so the error tests check those fallbacks too)."""
    if request.param != "python":
        monkeypatch.setattr(smm._mm_small, "SMALL_BODY_BYTES", 0)
    if request.param == "chunked":
        monkeypatch.setattr(smm._mm_body, "PARALLEL_MIN_BYTES", 0)
    return request.param


def _read(text, engine, **kw):
    data = text.encode() if isinstance(text, str) else text
    return mmread(io.BytesIO(data), engine=engine, **kw)


def _same(a, b):
    """Exact equality, nan equal to nan."""
    a, b = np.asarray(a), np.asarray(b)
    if a.shape != b.shape or a.dtype != b.dtype:
        return False
    eq = a == b
    if a.dtype.kind in "fc":
        eq |= np.isnan(a) & np.isnan(b)
    return bool(np.all(eq))


def _triplets(A):
    return np.asarray(A.indices), np.asarray(A.values)


def _sample(dtype, shape, seed=0):
    rng = np.random.default_rng(seed)
    D = rng.standard_normal(shape) * (rng.random(shape) < 0.5)
    if np.dtype(dtype).kind == "c":
        D = D + 1j * rng.standard_normal(shape) * (D != 0)
    elif np.dtype(dtype).kind in "iu":
        D = np.round(D * 1000)
    elif np.dtype(dtype).kind == "b":
        D = D > 0
    return D.astype(dtype)


# --- round trips ----------------------------------------------------------------------------
@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("dtype", [np.int64, np.float64, np.float32, np.complex128, np.bool_])
@pytest.mark.parametrize("layout", ["coo", "csr", "csc", "bsr", "bsc"])
def test_round_trip_layouts_dtypes(layout, dtype, engine):
    D = _sample(dtype, (6, 4))
    blocksize = (2, 2) if layout in ("bsr", "bsc") else None
    A = sparray.asarray(D, layout=layout, blocksize=blocksize)
    f = io.BytesIO()
    mmwrite(f, A, engine=engine)
    f.seek(0)
    B = mmread(f, layout=layout, engine=engine, blocksize=blocksize)
    assert B.layout == layout and B.shape == D.shape
    want = {"b": np.int64, "i": np.int64, "f": np.float64, "c": np.complex128}[np.dtype(dtype).kind]
    assert B.dtype == want
    assert _same(B.to_dense(), D.astype(want))  # float32 values come back exactly


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("shape", [(0, 0), (0, 5), (3, 0), (4, 4)])
def test_round_trip_empty(shape, engine):
    A = sparray.COO(np.zeros((2, 0), np.int64), np.zeros(0), shape)
    f = io.BytesIO()
    mmwrite(f, A, engine=engine)
    f.seek(0)
    B = mmread(f, engine=engine)
    assert B.shape == shape and B.nse == 0 and B.dtype == np.float64
    f = io.BytesIO()
    mmwrite(f, np.zeros(shape), engine=engine)
    f.seek(0)
    assert _same(mmread(f, engine=engine).to_dense(), np.zeros(shape))


@pytest.mark.parametrize("engine", ENGINES)
def test_round_trip_exact_float64_and_specials(engine):
    rng = np.random.default_rng(3)
    v = np.concatenate([rng.standard_normal(500) * 10.0 ** rng.integers(-300, 300, 500),
                        rng.integers(0, 2**63, 500, dtype=np.int64).view(np.float64),
                        [np.inf, -np.inf, np.nan, -0.0, 5e-324, 1.7976931348623157e308]])
    idx = np.stack([np.arange(v.size), np.arange(v.size)])
    A = sparray.COO(idx, v, (v.size, v.size))
    f = io.BytesIO()
    mmwrite(f, A, engine=engine)
    f.seek(0)
    B = mmread(f, engine=engine)
    assert _same(np.asarray(B.values), v)
    assert np.array_equal(np.signbit(np.asarray(B.values)), np.signbit(v))


@pytest.mark.parametrize("engine", ENGINES)
def test_uncoalesced_duplicates_kept(engine):
    text = f"{BANNER} coordinate real general\n2 2 3\n1 1 1.5\n2 2 1\n1 1 2\n"
    A = _read(text, engine)
    assert A.nse == 3 and A.layout == "coo"
    assert _same(A.to_dense(), np.array([[3.5, 0], [0, 1.0]]))
    assert A.coalesce().nse == 2


@pytest.mark.parametrize("symmetry", ["symmetric", "skew-symmetric", "hermitian"])
@pytest.mark.parametrize("dense", [False, True])
def test_write_symmetric_round_trip(symmetry, dense):
    rng = np.random.default_rng(5)
    M = rng.standard_normal((5, 5)) + 1j * rng.standard_normal((5, 5))
    M[M.real > 0.8] = 0
    D = {"symmetric": M + M.T, "skew-symmetric": M - M.T, "hermitian": M + M.conj().T}[symmetry]
    A = D if dense else sparray.asarray(D, layout="csr")
    f = io.BytesIO()
    mmwrite(f, A, symmetry=symmetry, engine="sparray")
    text = f.getvalue()
    assert symmetry.encode() in text.splitlines()[0]
    stored = mminfo(io.BytesIO(text))[2]
    if not dense:
        assert stored == int(np.count_nonzero(np.tril(D, -1 if symmetry == "skew-symmetric" else 0)))
    for engine in ("sparray", "fmm"):
        assert _same(_read(text, engine).to_dense(), D)


def test_write_symmetric_rejects_asymmetric():
    D = np.array([[1.0, 2.0], [3.0, 4.0]])
    for A in (D, sparray.asarray(D)):
        with pytest.raises(ValueError, match="not symmetric"):
            mmwrite(io.BytesIO(), A, symmetry="symmetric")
    with pytest.raises(ValueError, match="diagonal is not zero"):
        mmwrite(io.BytesIO(), sparray.asarray(np.eye(2)), symmetry="skew-symmetric")
    with pytest.raises(ValueError, match="square"):
        mmwrite(io.BytesIO(), np.zeros((2, 3)), symmetry="symmetric")


def test_write_errors():
    A = sparray.asarray(np.ones((2, 2)))
    with pytest.raises(ValueError, match="fill"):
        mmwrite(io.BytesIO(), sparray.COO([[0], [0]], [2.0], (2, 2), fill_value=1.0))
    with pytest.raises(ValueError, match="2-d"):
        mmwrite(io.BytesIO(), sparray.asarray(np.ones((2, 2, 2))))
    with pytest.raises(ValueError, match="dense_ndim"):
        mmwrite(io.BytesIO(), sparray.asarray(np.ones((2, 2, 2)), sparse_ndim=2))
    with pytest.raises(ValueError, match="cannot hold"):
        mmwrite(io.BytesIO(), A, field="integer")
    with pytest.raises(ValueError, match="pattern"):
        mmwrite(io.BytesIO(), np.ones((2, 2)), field="pattern")
    with pytest.raises(ValueError, match="symmetry"):
        mmwrite(io.BytesIO(), A, symmetry="upper")
    with pytest.raises(TypeError, match="SparseArray or a 2-d numpy"):
        mmwrite(io.BytesIO(), [[1, 2]])


def test_write_options_and_targets(tmp_path):
    A = sparray.asarray(np.array([[0.1, 0], [0, 2]]))
    f = io.BytesIO()
    mmwrite(f, A, comment="line one\nline two", precision=3, field="complex")
    lines = f.getvalue().decode().splitlines()
    assert lines[:3] == [f"{BANNER} coordinate complex general", "%line one", "%line two"]
    assert lines[4] == "1 1 0.1 0"
    f = io.BytesIO()
    mmwrite(f, A, field="pattern")
    assert f.getvalue().decode().splitlines()[-2:] == ["1 1", "2 2"]
    s = io.StringIO()
    mmwrite(s, A)
    s.seek(0)
    assert _same(mmread(s).to_dense(), A.to_dense())
    for name in ("a.mtx", "a.mtx.gz", "a.mtx.bz2"):
        path = tmp_path / name
        mmwrite(path, A)
        for engine in ("sparray", "fmm"):
            assert _same(mmread(str(path), engine=engine, layout="csc").to_dense(), A.to_dense())
    with gzip.open(tmp_path / "a.mtx.gz") as g, bz2.open(tmp_path / "a.mtx.bz2") as b:
        assert g.read().startswith(b"%%MatrixMarket") and b.read().startswith(b"%%MatrixMarket")


# --- files written by scipy; both engines agree ---------------------------------------------------
def _scipy_matrix(field, symmetry, fmt):
    rng = np.random.default_rng(11)
    M = rng.integers(-9, 10, (5, 5)).astype(float) + (rng.standard_normal((5, 5)) if field == "real" else 0)
    M[rng.random((5, 5)) < 0.4] = 0
    if field == "complex":
        M = M + 1j * np.round(rng.standard_normal((5, 5)) * 4) * (M != 0)
    if symmetry == "symmetric":
        M = M + M.T
    elif symmetry == "skew-symmetric":
        M = M - M.T
    elif symmetry == "hermitian":
        M = M + M.conj().T
    if field == "integer":
        M = M.astype(np.int64)
    if field == "pattern":
        M = (M != 0).astype(float)
    if fmt == "coordinate":
        import scipy.sparse as sp

        return sp.coo_array(M)
    return M


COMBOS = [(fmt, field, sym)
          for fmt in ("coordinate", "array")
          for field in ("real", "integer", "complex", "pattern")
          for sym in ("general", "symmetric", "skew-symmetric", "hermitian")
          if not (field == "pattern" and (fmt == "array" or sym in ("skew-symmetric", "hermitian")))
          and not (sym == "hermitian" and field != "complex")]


@pytest.mark.parametrize("fmt,field,symmetry", COMBOS)
def test_scipy_files_both_engines(fmt, field, symmetry):
    M = _scipy_matrix(field, symmetry, fmt)
    f = io.BytesIO()
    sio.mmwrite(f, M, field=field, symmetry=symmetry)
    data = f.getvalue()
    assert data.split(b"\n")[0].split()[2:] == [fmt.encode(), field.encode(), symmetry.encode()]
    ref = sio.mmread(io.BytesIO(data))
    ref_dense = ref if isinstance(ref, np.ndarray) else ref.toarray()
    got = {e: _read(data, e) for e in ("sparray", "fmm")}
    for A in got.values():
        assert _same(A.to_dense(), ref_dense.astype(A.dtype))
    a, b = got["sparray"], got["fmm"]
    assert a.dtype == b.dtype and a.index_dtype == b.index_dtype
    assert _same(a.indices, b.indices) and _same(a.values, b.values)  # same order too
    if fmt == "coordinate":
        assert _same(a.indices[0], ref.row) and _same(a.indices[1], ref.col)
    assert mminfo(io.BytesIO(data)) == sio.mminfo(io.BytesIO(data))


def test_comments_blank_lines_crlf_and_index_dtype():
    text = (f"{BANNER} Coordinate REAL General\r\n% comment\r\n\r\n  3 4 2 \r\n% c\n\n"
            "1\t2   -3.5e+2\r\n\n3 4 +.25\n% trailing comment\n\n")
    for engine in ("sparray", "fmm"):
        A = _read(text, engine, index_dtype=np.int64)
        assert A.index_dtype == np.int64
        assert _same(A.to_dense(), np.array([[0, -350.0, 0, 0], [0, 0, 0, 0], [0, 0, 0, 0.25]]))
    A = _read(f"{BANNER} coordinate real general\n2 2 1\n1 1 5", "sparray")  # no final newline
    assert A.values.tolist() == [5.0]


# --- errors with line numbers -----------------------------------------------------------------
HEAD = f"{BANNER} coordinate real general\n% c\n3 3 2\n"
SYM = f"{BANNER} coordinate real symmetric\n3 3 2\n"
ERRORS = [
    # (file, line, message part, fmm also raises)
    ("", 1, "banner", True),
    ("%%MatrixMarket matrix coordinate real\n1 1 0\n", 1, "5 words", True),
    ("%%MatrixMarket tensor coordinate real general\n1 1 0\n", 1, "object", True),
    (f"{BANNER} sparse real general\n1 1 0\n", 1, "unknown format", True),
    (f"{BANNER} coordinate double general\n1 1 0\n", 1, "unknown field", True),
    (f"{BANNER} coordinate real upper\n1 1 0\n", 1, "unknown symmetry", True),
    (f"{BANNER} coordinate pattern skew-symmetric\n1 1 0\n", 1, "pattern", True),
    (f"{BANNER} coordinate real general\n% only a comment\n", 2, "before the size line", True),
    (f"{BANNER} coordinate real general\n3 3\n", 2, "rows cols entries", True),
    (f"{BANNER} array real general\n3 3 9\n", 2, "'rows cols'", True),
    (f"{BANNER} coordinate real general\n3 x 1\n", 2, "non-negative integers", True),
    (f"{BANNER} coordinate real symmetric\n3 4 1\n", 2, "square", True),
    (HEAD + "1 1 1.0\n", 4, "ends after 1 of the 2", True),
    (HEAD + "1 1 1.0\n2 2 2.0\n3 3 3.0\n", 6, "more entries", True),
    (HEAD + "1 1 1.0\n% c\n2 2 2.0\n\n3 3 3.0\n", 8, "more entries", True),
    (HEAD + "1 1\n2 2 2.0\n", 4, "expected 3 tokens", True),
    (HEAD + "1 1 1.0 7\n2 2 2.0\n", 4, "found 4", False),
    (HEAD + "1 1 1.0\n2 2 abc\n", 5, "expected a real number; got 'abc'", True),
    (HEAD + "1 1 1.0\n2 2 1.5x\n", 5, "got '1.5x'", False),
    (HEAD + "1 1 1.0\n2 2 1_0\n", 5, "got '1_0'", False),
    (HEAD + "1 1 1.0\n2 y 2.0\n", 5, "column index: expected an integer", True),
    (HEAD + "0 1 1.0\n2 2 2.0\n", 4, "row index 0 is out of range 1..3", True),
    (HEAD + "1 1 1.0\n2 4 2.0\n", 5, "column index 4 is out of range 1..3", True),
    (HEAD + "99999999999999999999 1 1.0\n2 2 2.0\n", 4, "does not fit in int64", True),
    (SYM + "1 1 1.0\n1 2 2.0\n", 4, r"entry \(1, 2\) is above the diagonal", False),
    (f"{BANNER} coordinate real skew-symmetric\n3 3 2\n2 1 1.0\n2 2 2.0\n", 4, "diagonal entry", False),
    (f"{BANNER} coordinate integer general\n3 3 1\n1 1 1.5\n", 3, "value: expected an integer", False),
    (f"{BANNER} coordinate integer general\n3 3 1\n1 1 9223372036854775808\n", 3, "does not fit", True),
    (f"{BANNER} array real general\n2 2\n1\n2\n3\n", 5, "ends after 3 of the 4", True),
    (f"{BANNER} array complex general\n1 1\n1\n", 3, "expected 2 tokens", True),
    (f"{BANNER} coordinate real general\n3 3 1000000000000\n1 1 1\n", 3, "ends after 1 of", True),
]


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("text,line,part,fmm_strict", ERRORS)
def test_errors_name_the_line(text, line, part, fmm_strict, engine):
    if engine == "fmm" and not fmm_strict:
        # fmm ignores this inside a line; the strict check is engine="sparray"'s
        if "above the diagonal" in part or "diagonal entry" in part:
            pass  # checked after fmm reads: sparray's parser names the line
        else:
            return
    with pytest.raises(ValueError, match=f"^mmread: line {line}: .*{part}"):
        _read(text, engine)


def test_other_bad_input():
    with pytest.raises(ValueError, match="engine"):
        mmread(io.BytesIO(b""), engine="scipy")
    with pytest.raises(ValueError, match="layout"):
        mmread(io.BytesIO(b""), layout="dia")
    with pytest.raises(TypeError, match="path"):
        mmread(42)
    with pytest.raises(ValueError, match="int32 cannot hold"):
        _read(f"{BANNER} coordinate real general\n3000000000 1 0\n", "sparray", index_dtype=np.int32)


@pytest.mark.parametrize("engine", ENGINES)
def test_garbage_never_crashes(engine):
    rng = np.random.default_rng(7)
    head = f"{BANNER} coordinate complex general\n4 4 3\n".encode()
    good = b"1 2 3.5 -1e5\n4 4 inf nan\n2 3 .5 7\n"
    for _ in range(150):
        body = bytearray(good)
        for _ in range(rng.integers(1, 4)):
            body[rng.integers(0, len(body))] = rng.choice(list(b" \n\t%-+.eE0123456789x\x00\r"))
        body = body[: rng.integers(0, len(body) + 1)]
        try:
            A = _read(head + bytes(body), engine)
        except ValueError as exc:
            assert str(exc).startswith("mmread: ")
        else:
            assert A.shape == (4, 4) and A.nse == 3


def _outcome(data: bytes, small: int, monkeypatch):
    monkeypatch.setattr(smm._mm_small, "SMALL_BODY_BYTES", small)
    try:
        p = smm._mm_body.read_parts(data)
    except ValueError as exc:
        return str(exc)
    arrays = [p.rows, p.cols, p.values, p.dense]
    return [None if a is None else (a.dtype.str, a.tobytes()) for a in arrays]


@pytest.mark.parametrize("kind", ["integer", "real", "complex", "pattern"])
@pytest.mark.parametrize("layout", ["coordinate general", "coordinate symmetric", "coordinate skew-symmetric",
                                    "array general", "array symmetric"])
def test_python_small_body_accepts_exactly_what_the_kernel_accepts(kind, layout, body_parser, monkeypatch):
    """The plain-Python path for small bodies and the numba kernel agree bit for bit on random,
    mutated bodies: the same arrays, or the same error (the Python path hands anything irregular
    to the kernel, which names the line)."""
    if body_parser != "python" or (kind == "pattern" and not layout.endswith(("general", " symmetric"))) or (
            kind == "pattern" and layout.startswith("array")):
        pytest.skip("one run is enough; the header refuses these pattern files")
    rng = np.random.default_rng(len(kind) * 7 + len(layout))
    coord, sym = layout.startswith("coordinate"), layout.split()[1]
    n = 5
    entries = []
    for _ in range(6 if coord else (n * n if sym == "general" else n * (n + 1) // 2)):
        r, c = sorted(rng.integers(1, n + 1, 2), reverse=True)
        if sym == "skew-symmetric" and r == c:
            r = min(r + 1, n) if r < n else r
            c = r - 1 if r == c else c
        idx = [str(r), str(c)] if coord else []
        vals = {"integer": [str(rng.integers(-9, 10))], "pattern": [],
                "real": [str(rng.choice(EDGE_TOKENS))], "complex": [f"{rng.standard_normal():.3g}", "-0"]}[kind]
        entries.append(" ".join(idx + vals))
    head = f"{BANNER} {layout.split()[0]} {kind} {sym}\n{n} {n}" + (f" {len(entries)}" if coord else "") + "\n"
    good = ("% a comment\n\n" + "\n".join(entries) + "\r\n").encode()
    for trial in range(120):
        body = bytearray(good)
        if trial:
            for _ in range(rng.integers(1, 4)):
                body[rng.integers(0, len(body))] = rng.choice(list(b" \n\t%-+.eE0123456789x\x00\r"))
            body = body[: rng.integers(len(body) // 2, len(body) + 1)]
        data = head.encode() + bytes(body)
        if not trial:  # the unmutated body is the Python path's own answer
            h = smm._mm_header.parse_header(io.BytesIO(data).readline)
            got = smm._mm_small.parse_small(data[len(head):], n_entries=h.entries, coord=coord,
                                            kind=smm._mm_body._KIND[kind], shape=(n, n), sym=smm._mm_body._SYM[sym])
            assert got is not None, data
        assert _outcome(data, 1 << 20, monkeypatch) == _outcome(data, 0, monkeypatch), data


# --- values: correct rounding ------------------------------------------------------------------
def _random_tokens(rng, n):
    out = []
    for _ in range(n):
        nd = int(rng.integers(1, 26))
        d = "".join(rng.choice(list("0123456789"), nd))
        p = int(rng.integers(0, nd + 1))
        s = d[:p] + ("." if rng.random() < 0.7 else "") + d[p:]
        if rng.random() < 0.6:
            s += str(rng.choice(["e", "E"])) + str(rng.choice(["", "+", "-"]))
            s += str(rng.integers(0, 25 if rng.random() < 0.8 else 400))
        out.append(str(rng.choice(["", "+", "-"])) + s)
    return out


EDGE_TOKENS = ["0", "-0", "+0.0", "-0e5", "1e22", "1e23", "9007199254740993", "123456789012345e22", ".5", "5.",
               "-.5e-3", "inf", "-Inf", "INFINITY", "nan", "-NaN", "1e-400", "1e400", "4.9406564584124654e-324",
               "2.2250738585072011e-308", "2.4703282292062327e-324", "1" * 100, "0." + "0" * 50 + "1",
               "1" + "0" * 30 + "e-30", "1e99999999999999999999", "1e-99999999999999999999",
               "9007199254740992.5", "0.1", "0.30000000000000004", "1.7976931348623157e308", "1.7976931348623159e308"]


def test_correct_rounding_matches_float():
    rng = np.random.default_rng(1)
    x = rng.standard_normal(3000) * 10.0 ** rng.integers(-300, 300, 3000)
    tokens = [repr(float(v)) for v in x] + _random_tokens(rng, 6000) + EDGE_TOKENS
    body = "".join(f"1 1 {t}\n" for t in tokens)
    data = f"{BANNER} coordinate real general\n1 1 {len(tokens)}\n{body}"
    want = np.array([float(t) for t in tokens])
    for engine in ("sparray", "fmm"):
        got = np.asarray(_read(data, engine).values)
        assert _same(got, want), engine
    got = np.asarray(_read(data, "sparray").values)
    assert np.array_equal(np.signbit(got), np.signbit(want))


def test_integer_values_exact():
    vals = [0, -1, 2**63 - 1, -(2**63), 123456789012345678]
    body = "".join(f"1 1 {v}\n" for v in vals)
    for engine in ("sparray", "fmm"):
        A = _read(f"{BANNER} coordinate integer general\n1 1 {len(vals)}\n{body}", engine)
        assert A.dtype == np.int64 and A.values.tolist() == vals


def test_mminfo_and_doctests(tmp_path):
    path = tmp_path / "m.mtx.gz"
    mmwrite(path, sparray.asarray(np.eye(3)), symmetry="symmetric")
    assert mminfo(path) == (3, 3, 3, "coordinate", "real", "symmetric") == sio.mminfo(str(path))
    from sparray.io import _mm_body, _mm_header, _mm_read, _mm_source, _mm_write

    for mod in (smm, _mm_body, _mm_header, _mm_read, _mm_source, _mm_write):
        assert doctest.testmod(mod).failed == 0, mod.__name__


def test_import_sparray_io_does_not_import_numba():
    import subprocess
    import sys

    code = "import sys, sparray, sparray.io; print('numba' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


def test_comment_lines_between_chunks_are_compacted(body_parser):
    rng = np.random.default_rng(7)
    n = 400
    rows, cols = rng.integers(1, 50, n), rng.integers(1, 60, n)
    vals = rng.standard_normal(n)
    lines = [f"{BANNER} coordinate real general", "50 60 400"]
    for k in range(n):
        if k % 37 == 0:
            lines += ["% a comment inside the body", "", "   "]
        lines.append(f"{rows[k]} {cols[k]} {float(vals[k])!r}")
    A = _read("\n".join(lines), "sparray")
    np.testing.assert_array_equal(A.indices, np.stack([rows - 1, cols - 1]))
    np.testing.assert_array_equal(A.values, vals)


def test_halfway_and_long_mantissas_round_like_float(body_parser):
    tokens = []
    for k in range(1, 400, 2):  # 2**53 + odd is exactly halfway between two doubles: ties to even
        v = 2**53 + k
        tokens += [str(v), f"{v}e-3", f"{str(v)[:5]}.{str(v)[5:]}e7", str(2**54 + 2 * k), f"{v}0e-1"]
    rng = np.random.default_rng(3)
    for _ in range(2000):
        digits = str(int(rng.integers(10**15, 10**18)))
        tokens += [f"{digits}e{int(rng.integers(-330, 300))}", f"0.{digits}e{int(rng.integers(-30, 30))}"]
    tokens += ["1.7976931348623157e308", "1.7976931348623159e308", "2.2250738585072014e-308", "4.9406564584124654e-324"]
    text = f"{BANNER} coordinate real general\n1 1 {len(tokens)}\n" + "\n".join(f"1 1 {t}" for t in tokens)
    A = _read(text, "sparray")
    expected = np.array([float(t) for t in tokens])
    assert _same(A.values, expected)


@pytest.mark.skipif(not smm._mm_fmm.fmm_available(), reason="fast_matrix_market not installed")
@pytest.mark.parametrize("symmetry", ["general", "symmetric", "skew-symmetric"])
@pytest.mark.parametrize("comment", ["", "two\nlines"])
def test_plain_path_written_by_fmm_itself(tmp_path, monkeypatch, symmetry, comment):
    """A plain path with fmm installed and no progress bar asked: fmm writes the whole file (its
    C++ file writer, as scipy.io.mmwrite has it do), header included; the same lines as the
    Python route but for a lone "%" line when there is no comment. progress=True, progress=None
    on a large write, a .gz path, or an fmm without that writer take the Python route. Every
    file reads back exactly."""
    fmm = pytest.importorskip("fast_matrix_market")
    rng = np.random.default_rng(7)
    L = np.tril(rng.standard_normal((7, 7)) * (rng.random((7, 7)) < 0.4), -1)
    D = {"general": L + np.triu(rng.standard_normal((7, 7)) * (rng.random((7, 7)) < 0.3)),
         "symmetric": L + L.T + np.diag(rng.standard_normal(7)), "skew-symmetric": L - L.T}[symmetry]
    A = sparray.asarray(D, layout="csr")
    comments = ["%two", "%lines"] if comment else []
    banner = f"{BANNER} coordinate real {symmetry}"

    def lines(path):
        data = gzip.open(path).read() if str(path).endswith(".gz") else path.read_bytes()
        return data.decode().splitlines()

    mmwrite(tmp_path / "python.mtx", A, symmetry=symmetry, comment=comment, engine="sparray")
    python = lines(tmp_path / "python.mtx")
    assert python[: len(comments) + 1] == [banner, *comments]
    size = python[len(comments) + 1]

    mmwrite(tmp_path / "native.mtx", A, symmetry=symmetry, comment=comment)
    native = lines(tmp_path / "native.mtx")
    head = [banner, *(comments or ["%"]), size]
    assert native[: len(head)] == head
    for engine in ("sparray", "fmm"):
        assert _same(mmread(str(tmp_path / "native.mtx"), engine=engine).to_dense(), D)

    monkeypatch.setattr(smm._mm_write, "_NATIVE_QUIET_MAX", 0)  # so progress=None may show a bar
    for name, kw in (("bar.mtx", {"progress": True}), ("large.mtx", {}), ("small.mtx.gz", {"progress": False})):
        mmwrite(tmp_path / name, A, symmetry=symmetry, comment=comment, **kw)
        assert lines(tmp_path / name)[: len(comments) + 2] == [banner, *comments, size], name  # the Python route
        assert _same(mmread(str(tmp_path / name)).to_dense(), D)
    monkeypatch.setattr(smm._mm_write, "_NATIVE_QUIET_MAX", 10**9)
    monkeypatch.delattr(fmm._fmm_core, "open_write_file")  # an fmm without that writer
    mmwrite(tmp_path / "old.mtx", A, symmetry=symmetry, comment=comment)
    assert lines(tmp_path / "old.mtx")[: len(comments) + 2] == [banner, *comments, size]
    assert _same(mmread(str(tmp_path / "old.mtx")).to_dense(), D)
