"""A short tour of sparray: ``python -m sparray``; ``python -m sparray info`` for the installation.

Builds arrays, shows fill-value semantics, conversions and products, times one product against
scipy and dense NumPy, and prints the registry. Runs in a few seconds, the first run on a machine
too: kernels not compiled yet answer through the generic path while numba compiles them in the
background (``sparray._engine.jit``).
``info`` prints versions, backends, devices, numba's threading layer and the kernel cache folder;
``warmup`` compiles every kernel family ahead, with a progress bar; ``torch`` shows the torch
interop, which the tour leaves out (importing torch costs more than the rest of the tour).
"""

from __future__ import annotations

import sys
import time
import warnings

import numpy as np

import sparray


def _show(title, value):
    text = str(value).replace("\n", "\n" + " " * 41)  # a multi-line repr keeps its alignment
    print(f"  {title:<38} {text}")


def main() -> None:
    print(f"sparray {sparray.__version__}: sparse arrays with a first-class fill value")
    print(f"backends available here: {', '.join(sparray.backends())}\n")

    print("1. A COO array, torch-style: components first")
    A = sparray.COO([[0, 1, 1], [2, 0, 2]], [3.0, 4.0, 5.0], shape=(2, 3))
    _show("A", A)
    _show("A.to_dense()", A.to_dense().tolist())

    print("\n2. fill_value: any value, carried exactly (the RFC's signal example)")
    signal = sparray.COO([[3, 8, 9, 17]], [7.0, 6.0, 8.0, 9.0], shape=(1_000_001,), fill_value=5.0)
    potential = signal * -8.0
    conc = 140.0 * sparray.exp(-0.04 * potential)
    _show("signal", signal)
    _show("140 * exp(-0.04 * (signal * -8)) fill", float(conc.fill_value))
    _show("... still only nse", conc.nse)
    _show("mean of the 1e6-long signal", float(sparray.mean(signal)))

    print("\n3. n-ary ops combine fills (RFC point 9): fill(A + B) = fill(A) + fill(B)")
    A = sparray.COO([[0, 1], [0, 0]], [1, 3], shape=(2, 2), fill_value=2)
    B = sparray.COO([[0, 1], [0, 1]], [5, 8], shape=(2, 2), fill_value=6)
    C = A + B
    _show("(A + B).to_dense()", C.to_dense().tolist())
    _show("(A + B).fill_value", int(C.fill_value))
    with np.errstate(invalid="ignore"):  # NumPy warns about 0 * inf, as it would on dense arrays
        zero_times_inf = (sparray.zeros((2,)) * sparray.asarray([1.0, np.inf])).to_dense().tolist()
    _show("0 * inf stays nan (zero fill times inf)", zero_times_inf)

    print("\n4. Reductions count the unspecified elements")
    R = sparray.COO([[0, 2]], [10.0, 20.0], shape=(5,), fill_value=1.0)
    _show("sum of [10, 1, 20, 1, 1]", float(sparray.sum(R)))
    _show("max / min", (float(sparray.max(R)), float(sparray.min(R))))
    H = sparray.asarray(np.arange(12.0).reshape(4, 3) % 5, sparse_ndim=1)
    _show("hybrid sum(axis=0)", sparray.sum(H, axis=0).to_dense().tolist())

    print("\n5. Five layouts, one fill value; transposes are views")
    D = np.array([[0.0, 0, 1, 2], [3, 4, 0, 0], [0, 0, 0, 5], [0, 0, 6, 0]])
    S = sparray.asarray(D, layout="csr", fill_value=0.0)
    _show("CSR crow_indices / col_indices", (S.crow_indices.tolist(), S.col_indices.tolist()))
    _show("S.mT is a CSC sharing crow_indices", (S.mT.layout, S.mT.ccol_indices is S.crow_indices))
    B = S.to_layout("bsr", blocksize=(2, 2))
    _show("as BSR 2x2: specified blocks of 4", B.nse)
    _show("layouts round-trip exactly", all((S.to_layout(k, blocksize=(2, 2) if k[0] == "b" else None).to_dense() == D).all()
                                          for k in ("coo", "csr", "csc", "bsr", "bsc")))
    batched = sparray.asarray(np.array([[[1.0, 0], [2, 3]], [[4, 0], [5, 6]]]), layout="csr")
    _show("batched CSR (the seed example)", batched.crow_indices.tolist())
    E = sparray.exp(S)
    _show("exp(S): same indices, fill exp(0)", (E.layout, E.crow_indices is S.crow_indices, float(E.fill_value)))

    print("\n6. Indexing and shape functions keep the fill (NumPy's rules, every layout)")
    P = sparray.asarray(np.array([[7.0, 1, 7], [2, 7, 3]]), fill_value=7.0, layout="csr")
    _show("P[:, ::-1] (fill 7)", P[:, ::-1].to_dense().tolist())
    _show("P[[1, 1, 0], 2]", P[[1, 1, 0], 2].to_dense().tolist())
    _show("P[P < 7] (a sparse boolean mask)", P[P < 7].to_dense().tolist())
    _show("reshape(P, (3, 2)) is still CSR", (sparray.reshape(P, (3, 2)).layout, sparray.reshape(P, (3, 2)).nse))
    _show("concat([P, P], axis=1).shape", sparray.concat([P, P], axis=1).shape)
    _show("where(P > 2, P, 0).fill_value", float(sparray.where(P > 2, P, 0.0).fill_value))

    print("\n7. Products stay exact with any fill (RFC point 10: one sparse product plus a column sum)")
    F = sparray.asarray(np.array([[1.0, 5, 5], [5, 2, 5]]), fill_value=5.0, layout="csr")
    x = np.array([1.0, 2.0, 3.0])
    _show("F (fill 5) @ x", (F @ x).tolist())
    _show("F.to_dense() @ x", (F.to_dense() @ x).tolist())
    _show("CSR @ CSR (zero fills): SpGEMM", (S @ S).layout + f", nse {(S @ S).nse}")
    logits = sparray.asarray(np.array([[2.0, -np.inf, 1.0], [-np.inf, 0.5, -np.inf]]), fill_value=-np.inf, layout="csr")
    sm = sparray.softmax(logits, axis=1)
    _show("softmax over fill -inf keeps the pattern", (sm.nse, float(sm.fill_value)))
    _show("its rows sum to", np.round(sparray.sum(sm, axis=1).to_dense(), 12).tolist())

    _tour_interop(S, batched)

    _tour_timing()

    print("\n10. The registry (op x layout x backend)")
    for line in sparray.kernel_table().splitlines():
        print("  " + line)


def _best_of(fn, runs=5) -> float:
    best = float("inf")
    for _ in range(runs):
        t = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - t)
    return best


def _tour_timing() -> None:
    """Section 9: y = A @ x against scipy and dense NumPy, and which path answered."""
    import importlib.util

    from ._engine import jit as _jit

    n, nse = 2000, 200_000
    print(f"\n9. One timing: y = A @ x, A a {n} x {n} CSR of {nse:,} random entries, against scipy and dense NumPy")
    rng = np.random.default_rng(0)
    rows, cols, vals = rng.integers(0, n, nse), rng.integers(0, n, nse), rng.random(nse)
    A = sparray.COO(np.stack([rows, cols]), vals, shape=(n, n)).coalesce().to_layout("csr")
    D = np.zeros((n, n))
    np.add.at(D, (rows, cols), vals)  # the same matrix, dense, built by NumPy alone
    x = rng.random(n)
    t = time.perf_counter()
    y = A @ x
    first = time.perf_counter() - t
    pending = _jit.compiling()
    how = ("the generic path, while numba compiles the kernels in the background (once per machine)"
           if pending else "numba kernels")  # fmt: skip
    _show("first call", f"{first * 1e3:.1f} ms, by {how}")
    _show("then, best of 5", f"{_best_of(lambda: A @ x) * 1e3:.2f} ms")
    _show("dense NumPy D @ x", f"{_best_of(lambda: D @ x) * 1e3:.2f} ms, same y: {bool(np.allclose(D @ x, y))}")
    if importlib.util.find_spec("scipy") is not None:
        from sparray.interop.scipy import to_scipy

        S = to_scipy(A)
        _show("scipy S @ x", f"{_best_of(lambda: S @ x) * 1e3:.2f} ms, same y: {bool(np.allclose(S @ x, y))}")
    else:
        _show("scipy", "not installed (pip install 'sparray[scipy]')")


def _tour_interop(S, batched) -> None:
    """Section 8: files and other libraries (scipy and torch only when they are installed)."""
    import importlib.util
    import io

    print("\n8. Files and other libraries: npz, Matrix Market, binsparse, scipy, torch")
    buf = io.BytesIO()
    G = sparray.full((3, 4), 2.5, layout="csc")
    sparray.save_npz(buf, G)
    buf.seek(0)
    H = sparray.load_npz(buf)
    _show("save_npz/load_npz keeps layout and fill", (H.layout, float(H.fill_value)))
    buf = io.BytesIO()
    sparray.io.mmwrite(buf, S, comment="written by the sparray tour")
    buf.seek(0)
    M = sparray.io.mmread(buf, layout="csr")
    _show("Matrix Market round trip of S", (M.layout, bool(np.array_equal(M.to_dense(), S.to_dense()))))
    desc = batched.__binsparse_descriptor__()["binsparse"]
    _show("binsparse arrays of a batched CSR", sorted(desc["data_types"]))
    back = sparray.from_binsparse(batched)
    _show("from_binsparse round trip", (back.layout, bool(np.array_equal(back.to_dense(), batched.to_dense()))))
    if importlib.util.find_spec("scipy") is not None:
        from sparray.interop.scipy import to_scipy

        m = to_scipy(S)
        _show("to_scipy(S): same buffers", (m.format, bool(np.shares_memory(m.data, S.values))))
        nd = to_scipy(batched)
        _show("to_scipy(batched): n-d COO", (nd.format, nd.shape))
    else:
        _show("scipy", "not installed (pip install 'sparray[scipy]')")
    if "torch" in sys.modules:  # imported already (the tour called from a program): show it here
        _tour_torch()
    elif importlib.util.find_spec("torch") is not None:
        _show("torch (installed)", "python -m sparray torch: to_torch / from_torch, buffers shared")
        _show("", "(not run here: importing torch takes 1.5-3 s, more than the rest of the tour)")
    else:
        _show("torch", "not installed (pip install torch==2.13.0)")


def _tour_torch() -> None:
    """torch interop: a CSR to torch and back, the values buffer shared (``python -m sparray torch``)."""
    from sparray.interop.torch import from_torch, to_torch

    C = sparray.asarray(np.array([[0.0, 1.0], [2.0, 0.0]]), layout="csr")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # torch: "CSR support is in beta"
        t = to_torch(C)
    shared = t.values().data_ptr() == C.values.__array_interface__["data"][0]
    _show("to_torch: layout, values shared", (str(t.layout), shared))
    _show("from_torch(t) equals C", bool(np.array_equal(from_torch(t).to_dense(), C.to_dense())))


def _torch_main() -> None:
    import importlib.util

    print("sparray and torch: components through DLPack, no copies")
    if importlib.util.find_spec("torch") is None:
        _show("torch", "not installed (pip install torch==2.13.0)")
        return
    _tour_torch()


def _info_main() -> None:
    from ._tools.info import main as info

    info()


def _warmup_main() -> None:
    from ._tools.warmup import main as warmup

    warmup()


_COMMANDS = {"tour": main, "info": _info_main, "warmup": _warmup_main, "torch": _torch_main}


def run(argv: list[str]) -> int:
    """Run ``python -m sparray [tour|info|warmup|torch]``; an unknown command prints the usage and returns 2."""
    name = argv[0] if argv else "tour"
    if name not in _COMMANDS or len(argv) > 1:
        print(f"usage: python -m sparray [{'|'.join(_COMMANDS)}]; got {' '.join(argv)!r}", file=sys.stderr)
        return 2
    _COMMANDS[name]()
    return 0


if __name__ == "__main__":
    sys.exit(run(sys.argv[1:]))
