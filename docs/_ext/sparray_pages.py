"""Sphinx extension: pages of the docs site generated from the code at build time.

On ``builder-inited`` it writes into ``docs/_generated/``:

- ``api.md``: the API reference, an autodoc entry for every name in ``sparray.__all__``
  (grouped as API.md groups them), plus ``sparray.interop`` (torch, scipy, dask) and ``sparray.io``;
- ``operations.md``: the supported-operations table, one row per registry (op, layout) and a
  column per backend, read from ``sparray._engine.dispatch``;
- ``examples/<name>.md``: a page per script in ``examples/`` (its docstring, then its source),
  and one for the notebook;
- ``benchmarks.md`` and ``benchmark_ratios.png``: the latest committed benchmark results
  (``benchmarks/results/latest.json``) as a table and a bar chart of speed-up ratios.

Nothing generated is committed: the pages cannot drift from the code.
"""

from __future__ import annotations

import ast
import inspect
import json
import pathlib

ROOT = pathlib.Path(__file__).resolve().parents[2]
GEN = ROOT / "docs" / "_generated"

GROUPS = [
    ("Array classes", lambda n, o: inspect.isclass(o) and n in ("SparseArray", "COO", "CSR", "CSC", "BSR", "BSC", "SemiStructured")),
    ("Creation", lambda n, o: n in {"asarray", "zeros", "ones", "full", "empty", "eye", "zeros_like", "ones_like",
                                   "full_like", "empty_like", "arange", "linspace", "random"}),
    ("Data types", lambda n, o: n in {"astype", "result_type", "can_cast", "finfo", "iinfo", "isdtype"}),
    ("Reductions", lambda n, o: n in {"sum", "prod", "max", "min", "mean", "var", "std", "any", "all"}),
    ("Shapes, indexing and searching", lambda n, o: n in {"broadcast_to", "matrix_transpose", "permute_dims",
                                                          "moveaxis", "reshape", "expand_dims", "squeeze", "flip",
                                                          "concat", "stack", "where", "nonzero"}),
    ("Broadcasting, tiling, triangles and taking along an axis",
     lambda n, o: n in {"broadcast_arrays", "meshgrid", "tril", "triu", "repeat", "roll", "tile", "unstack", "take",
                        "take_along_axis"}),
    ("Searching, sorting, sets, running sums and differences", lambda n, o: n in {
        "argmax", "argmin", "count_nonzero", "searchsorted", "sort", "argsort", "unique_values", "unique_counts",
        "unique_inverse", "unique_all", "cumulative_sum", "cumulative_prod", "diff"}),
    ("Linear algebra", lambda n, o: n in {"matmul", "tensordot", "vecdot", "addmm", "sampled_addmm", "softmax",
                                          "log_softmax"}),
    ("Beyond the standard: NumPy's einsum, pad and transpose; 2:4 pruning", lambda n, o: n in {"einsum", "pad", "transpose", "prune_2_4"}),
    ("Files and interchange", lambda n, o: n in {"save_npz", "load_npz", "from_binsparse"}),
    ("Backends and checks", lambda n, o: n in {"backends", "use_backend", "kernel_table", "check_invariants",
                                               "SparrayPerformanceWarning", "spy", "auto_densify"}),
]  # fmt: skip


def _api_page() -> str:
    import sparray

    lines = ["# API reference", "", "Every public name of `import sparray`, from the docstrings. "
             "The contract behind them is API.md in the repository.", ""]  # fmt: skip
    names = [n for n in sparray.__all__ if not n.startswith("_")]
    done = set()
    for title, pick in GROUPS:
        chosen = [n for n in names if n not in done and pick(n, getattr(sparray, n))]
        if not chosen:
            continue
        lines += [f"## {title}", ""]
        for n in chosen:
            lines += _entry("sparray", n, getattr(sparray, n))
        done.update(chosen)
    rest = [n for n in names if n not in done]
    funcs = [n for n in rest if callable(getattr(sparray, n)) and not inspect.isclass(getattr(sparray, n))]
    if funcs:
        lines += ["## Element-wise functions", "", "Each maps the values and the fill value alike "
                  "(`f(A).to_dense() == f(A.to_dense())`).", ""]  # fmt: skip
        for n in funcs:
            lines += _entry("sparray", n, getattr(sparray, n))
    consts = [n for n in rest if n not in funcs]
    lines += ["## Constants and dtypes", "", ", ".join(f"`sparray.{n}`" for n in consts), ""]
    lines += ["## sparray.interop.torch", "", "```{eval-rst}", ".. automodule:: sparray.interop.torch",
              "   :members: to_torch, from_torch", "```", "",
              "## sparray.interop.scipy", "", "```{eval-rst}", ".. automodule:: sparray.interop.scipy",
              "   :members: to_scipy, from_scipy", "```", "",
              "## sparray.interop.dask", "", "```{eval-rst}", ".. automodule:: sparray.interop.dask",
              "   :members: from_sparray, to_sparray, from_dask_dense", "```", "",
              "## sparray.io", "", "```{eval-rst}", ".. automodule:: sparray.io", "   :members: mmread, mmwrite",
              "```", "",
              "## sparray.lib.stride_tricks", "", ("`sparray.lib.stride_tricks.sliding_window_view`, NumPy's (beyond the "
                                                   "standard; xarray's rolling reads it), defined in "
                                                   "`sparray._functions.windows`:"), "",
              "```{eval-rst}", ".. autofunction:: sparray._functions.windows.sliding_window_view", "```", ""]  # fmt: skip
    lines += _linalg_section()
    return "\n".join(lines)


def _linalg_section() -> list[str]:
    """``sparray.linalg`` and ``sparray.fft``: the module docstrings, then every function (the linalg
    products are the main namespace's, documented above)."""
    import sparray.linalg as la

    own = [n for n in la.__all__ if callable(getattr(la, n)) and n not in ("matmul", "tensordot", "vecdot",
                                                                          "matrix_transpose")]  # fmt: skip
    lines = ["## sparray.linalg", "", "```{eval-rst}", ".. automodule:: sparray.linalg", "```", ""]
    for n in own:
        lines += _entry("sparray.linalg", n, getattr(la, n))
    import sparray.fft as fft

    lines += ["## sparray.fft", "", "```{eval-rst}", ".. automodule:: sparray.fft", "```", ""]
    for n in fft.__all__:
        lines += _entry("sparray.fft", n, getattr(fft, n))
    return lines


def _entry(module, name, obj) -> list[str]:
    kind = "autoclass" if inspect.isclass(obj) else "autofunction"
    extra = ["   :members: to_dense, to_layout, astype, coalesce, copy, to_device"] if name == "SparseArray" else []
    return ["```{eval-rst}", f".. {kind}:: {module}.{name}", *extra, "```", ""]


def _operations_page() -> str:
    from sparray._engine import dispatch as _dispatch

    rows = _dispatch.registered_ops()
    lines = ["# Supported operations by backend", "",
             "Generated from the device registry (`sparray._engine.dispatch`): one row per operation and layout, one "
             "column per backend. *generic* is the pure array-API reference that runs on every namespace; a "
             "kernel column is filled where a compiled kernel serves that namespace. Operations not listed run "
             "on top of these primitives.", "",
             "| operation | layout | " + " | ".join(_dispatch.BACKENDS) + " |",
             "|---|---|" + "---|" * len(_dispatch.BACKENDS)]  # fmt: skip
    for op, layout in rows:
        cells = ["yes" if (op, layout, b) in _dispatch._REGISTRY else "-" for b in _dispatch.BACKENDS]
        lines.append(f"| `{op}` | {layout} | " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"


def _example_pages() -> list[str]:
    out = []
    (GEN / "examples").mkdir(parents=True, exist_ok=True)
    for script in sorted((ROOT / "examples").glob("*.py")):
        doc = ast.get_docstring(ast.parse(script.read_text())) or ""
        title, _, body = doc.partition("\n")
        page = [f"# {script.stem.replace('_', ' ').capitalize()}", "", title, "", body.strip(), "",
                f"```{{literalinclude}} ../../../examples/{script.name}", ":language: python", "```", ""]  # fmt: skip
        (GEN / "examples" / f"{script.stem}.md").write_text("\n".join(page))
        out.append(script.stem)
    nb = ROOT / "examples" / "tour.ipynb"
    if nb.exists():
        cells = json.loads(nb.read_text())["cells"]
        page = ["# Notebook tour", "", "`examples/tour.ipynb`, executed in CI with nbclient; its cells:", ""]
        for cell in cells:
            text = "".join(cell["source"])
            page += [text, ""] if cell["cell_type"] == "markdown" else ["```python", text, "```", ""]
        (GEN / "examples" / "tour_notebook.md").write_text("\n".join(page).replace("\n# ", "\n## "))
        out.append("tour_notebook")
    return out


def _benchmark_page() -> str:
    path = ROOT / "benchmarks" / "results" / "latest.json"
    data = json.loads(path.read_text())
    rows = data["rows"]
    lines = ["# Benchmark results", "", data["provenance"], "",
             "Ratio = the other library's time / sparray's time (above 1: sparray is faster). "
             "How to run the benchmarks and every case's definition: `benchmarks/README.md`.", "",
             "![speed-up ratios](benchmark_ratios.png)", "",
             "| case | sparray | scipy | ratio | torch | ratio |", "|---|---|---|---|---|---|"]  # fmt: skip
    for r in rows:
        lines.append(
            f"| {r['case']} | {r['sparray_ms']:g} ms | {r['scipy_ms']:g} ms | {r['scipy_ms'] / r['sparray_ms']:.2f}x "
            f"| {r['torch_ms']:g} ms | {r['torch_ms'] / r['sparray_ms']:.2f}x |"
        )
    _benchmark_plot(rows, GEN / "benchmark_ratios.png")
    return "\n".join(lines) + "\n"


def _benchmark_plot(rows, out):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import numpy as np

    cases = [r["case"] for r in rows]
    y = np.arange(len(cases))
    fig, ax = plt.subplots(figsize=(8, 0.35 * len(cases) + 1.2))
    ax.barh(y - 0.2, [r["scipy_ms"] / r["sparray_ms"] for r in rows], height=0.4, label="vs scipy.sparse")
    ax.barh(y + 0.2, [r["torch_ms"] / r["sparray_ms"] for r in rows], height=0.4, label="vs torch")
    ax.axvline(1.0, color="black", linewidth=0.8)
    ax.set_yticks(y, cases)
    ax.invert_yaxis()
    ax.set_xlabel("speed-up of sparray (other time / sparray time)")
    ax.legend(loc="lower right")
    fig.tight_layout()
    fig.savefig(out, dpi=100)
    plt.close(fig)


def generate(app=None) -> None:
    GEN.mkdir(exist_ok=True)
    (GEN / "api.md").write_text(_api_page())
    (GEN / "operations.md").write_text(_operations_page())
    (GEN / "benchmarks.md").write_text(_benchmark_page())
    names = _example_pages()
    index = ["# Examples", "", "Scripts in `examples/`; each runs in CI on small sizes and checks itself "
             "against a dense computation.", "", "```{toctree}", ":maxdepth: 1", "", *names, "```", ""]  # fmt: skip
    (GEN / "examples" / "index.md").write_text("\n".join(index))


def setup(app):
    app.connect("builder-inited", generate)
    return {"version": "1", "parallel_read_safe": True}
