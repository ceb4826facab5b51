"""sparray.linalg as a namespace: every function of the 2024.12 linalg extension with the standard's
signature, the main namespace's products (the same functions under the same namespace rule,
sparray._array.results), a cheap import, the module doctests; and the standard's dtype promotion of the
products for small integer dtypes (uint8 . uint8 is uint8)."""

import doctest
import inspect
import subprocess
import sys

import numpy as np
import pytest

import sparray
from sparray_testing import assert_sparray_result, make_coo

L = sparray.linalg

# the parameters of each function in the 2024.12 stubs (array_api_stubs/_2024_12/linalg.py):
# positional-only names, then keyword-only names with their defaults
SIGNATURES = {
    "cholesky": (["x"], {"upper": False}),
    "cross": (["x1", "x2"], {"axis": -1}),
    "det": (["x"], {}),
    "diagonal": (["x"], {"offset": 0}),
    "eigh": (["x"], {}),
    "eigvalsh": (["x"], {}),
    "inv": (["x"], {}),
    "matmul": (["x1", "x2"], {}),
    "matrix_norm": (["x"], {"keepdims": False, "ord": "fro"}),
    "matrix_power": (["x", "n"], {}),
    "matrix_rank": (["x"], {"rtol": None}),
    "matrix_transpose": (["x"], {}),
    "outer": (["x1", "x2"], {}),
    "pinv": (["x"], {"rtol": None}),
    "qr": (["x"], {"mode": "reduced"}),
    "slogdet": (["x"], {}),
    "solve": (["x1", "x2"], {}),
    "svd": (["x"], {"full_matrices": True}),
    "svdvals": (["x"], {}),
    "tensordot": (["x1", "x2"], {"axes": 2}),
    "trace": (["x"], {"offset": 0, "dtype": None}),
    "vecdot": (["x1", "x2"], {"axis": -1}),
    "vector_norm": (["x"], {"axis": None, "keepdims": False, "ord": 2}),
}


def test_every_function_with_the_standard_signature():
    assert set(L.STANDARD_NAMES) == set(SIGNATURES)
    assert sparray.COO([[0]], [1.0]).__array_namespace__().linalg is L  # xp.linalg
    for name, (positional, keywords) in SIGNATURES.items():
        params = inspect.signature(getattr(L, name)).parameters.values()
        pos = [p.name for p in params if p.kind is inspect.Parameter.POSITIONAL_ONLY]
        kw = {p.name: p.default for p in params if p.kind is inspect.Parameter.KEYWORD_ONLY}
        assert pos == positional and kw == keywords, name


def test_products_are_the_main_namespace_functions():
    """linalg's products are the main namespace's: matrix_transpose the same object, matmul, tensordot
    and vecdot the same functions, each wrapped for the namespace rule (sparray._array.results) as the main
    namespace's are: a dense-by-nature product of sparray arrays is a sparray array, one with a NumPy
    operand is NumPy's."""
    assert L.matrix_transpose is sparray.matrix_transpose
    for name in ("matmul", "tensordot", "vecdot"):
        ours, main = getattr(L, name), getattr(sparray, name)
        assert inspect.unwrap(ours) is inspect.unwrap(main), name
        assert ours.__wrapped_for_results__ and main.__wrapped_for_results__, name
        assert inspect.signature(ours) == inspect.signature(main), name
    D = np.array([[0.0, 2.0, 0.0], [1.0, 0.0, 3.0]])
    A, v = sparray.asarray(D, layout="csr"), sparray.asarray(D[1])
    expected = D[1] @ D[1]
    for name, kwargs in (("matmul", {}), ("tensordot", {"axes": 1}), ("vecdot", {})):
        for f in (getattr(L, name), getattr(sparray, name)):
            r = f(v, v, **kwargs)  # a 0-d product of sparray arrays: held dense
            assert_sparray_result(r, v, name)
            assert r.shape == () and r.sparse_ndim == 0 and float(r) == expected, name
            r = f(v, D[1], **kwargs)  # a NumPy operand: NumPy's result
            assert isinstance(r, (np.ndarray, np.generic)) and float(r) == expected, name
    np.testing.assert_array_equal(L.matmul(A, v).to_dense(), D @ D[1])


def test_import_is_cheap():
    code = "import sys, sparray.linalg; print(sorted({m.split('.')[0] for m in sys.modules} & {'scipy', 'numba', 'cupy'}))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.strip()
    assert out == "[]"


def test_doctests():
    from sparray.linalg import _checks, _dense_fallback, _diagonal, _factorizations, _norms, _outer, _power

    for mod in (L, _checks, _dense_fallback, _diagonal, _factorizations, _norms, _outer, _power):
        assert doctest.testmod(mod, optionflags=doctest.ELLIPSIS).failed == 0, mod.__name__


SMALL_INTS = [("uint8", "uint8"), ("int8", "int8"), ("uint8", "int8"), ("int16", "uint16"), ("uint8", "int64")]


@pytest.mark.parametrize("d1, d2", SMALL_INTS, ids=str)
@pytest.mark.parametrize("fill", [0, 3])
@pytest.mark.parametrize("layout", ["coo", "csr", "bsc"])
def test_products_keep_small_integer_dtypes(d1, d2, fill, layout):
    """matmul / tensordot / vecdot of small integers: the promoted dtype, wrapping as NumPy's products do."""
    rng = np.random.default_rng(51)
    A, DA = make_coo(rng, (4, 300), density=0.5, fill=fill, dtype=d1)
    A = (A * 30).to_layout(layout, blocksize=(2, 2) if layout == "bsc" else None)
    DA = (DA * np.asarray(30, d1)).astype(d1)
    B, DB = make_coo(rng, (300, 2), density=0.5, fill=fill, dtype=d2)
    with np.errstate(over="ignore"):
        expected = {
            "sparse @ dense": (A @ DB, DA @ DB),
            "dense @ sparse": (DA @ B, DA @ DB),
            "sparse @ sparse": (A @ B, DA @ DB),
            "tensordot": (sparray.tensordot(A, B, axes=1), np.tensordot(DA, DB, axes=1)),
            "vecdot sparse": (sparray.vecdot(A, B.mT[:1]), np.linalg.vecdot(DA, DB.T[:1])),
            "vecdot dense": (sparray.vecdot(A, DB.T[:1]), np.linalg.vecdot(DA, DB.T[:1])),
            "linalg.vecdot": (L.vecdot(DA, DB.T[:1]), np.linalg.vecdot(DA, DB.T[:1])),
        }
    for what, (got, exp) in expected.items():
        got = got.to_dense() if isinstance(got, sparray.SparseArray) else got
        assert got.dtype == exp.dtype, what
        np.testing.assert_array_equal(got, exp, err_msg=what)
