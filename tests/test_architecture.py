"""The house rules of sparray/ (docs/architecture.md): its folders are layers, and imports run down.

``LAYERS`` is the one place the order is written: a module belongs to the layer of the longest
prefix that names it. A module may import from its own layer and the layers below; every import
counts, those inside functions included (a lazy import is still a dependency), and so do
``importlib.import_module("...")`` calls with a literal name. The one exemption is
``sparray._array.forward``: the array objects' doors to the code above them. The tests fail naming
the module, the line, the import and the two layers.
"""

import ast
import os
import pathlib
import subprocess
import sys

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "sparray"

#: low to high; a module's layer is that of the longest prefix naming it
LAYERS = [
    ("kernels", ["sparray.kernels"]),  # numba and CUDA kernels on raw buffers
    ("core", ["sparray._core"]),  # namespaces and devices, dtypes, fill values, linear keys, checks
    ("engine", ["sparray._engine"]),  # device registry, dispatch, JIT, generic reference primitives
    ("array objects", ["sparray._array"]),  # SparseArray, COO, CSR/CSC, BSR/BSC, pickling, display
    ("layouts", ["sparray._layout", "sparray.interop"]),  # conversions between layouts and libraries
    ("functions", ["sparray._functions", "sparray._products"]),  # the array-API functions, the products
    ("extensions", ["sparray.linalg", "sparray.fft", "sparray.io", "sparray.sparse", "sparray.graph"]),
    ("namespace", ["sparray"]),  # the public names (sparray/__init__.py)
    ("on the namespace", ["sparray._numpy", "sparray.interop.dask", "sparray.interop._dask_hooks",
                          "sparray._tools", "sparray.__main__"]),  # fmt: skip
]
#: the module allowed to import from above its layer
FORWARD = "sparray._array.forward"
#: imports still running up, each with its reason; the test fails when one of them is gone, so the
#: list only shrinks
STILL_UP: set = set()


def layer_of(module):
    best, found = -1, None
    for rank, (_, prefixes) in enumerate(LAYERS):
        for p in prefixes:
            if (module == p or module.startswith(p + ".")) and len(p) > best:
                best, found = len(p), rank
    return found


def _modules():
    out = {}
    for path in PACKAGE.rglob("*.py"):
        if "__pycache__" in path.parts:
            continue
        name = ".".join(path.relative_to(ROOT).with_suffix("").parts)
        out[name.removesuffix(".__init__")] = path
    return out


def _imports(name, path, modules):
    """``(target module, line)`` for every import of a sparray module in ``path``."""
    tree = ast.parse(path.read_text())
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found = []

    def add(target, line):
        while target not in modules and "." in target:
            target = target.rpartition(".")[0]
        if target in modules and target != name:
            found.append((target, line))

    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            if node.level:
                base = package
                for _ in range(node.level - 1):
                    base = base.rpartition(".")[0]
                target = base + ("." + node.module if node.module else "")
            else:
                target = node.module or ""
            if target.split(".")[0] != "sparray":
                continue
            for alias in node.names:
                sub = target + "." + alias.name
                add(sub if sub in modules else target, node.lineno)
        elif isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.split(".")[0] == "sparray":
                    add(alias.name, node.lineno)
        elif (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "import_module"
              and node.args and isinstance(node.args[0], ast.Constant) and isinstance(node.args[0].value, str)
              and node.args[0].value.startswith("sparray")):  # fmt: skip
            add(node.args[0].value, node.lineno)
    return found


def _graph():
    modules = _modules()
    return modules, {m: _imports(m, p, modules) for m, p in modules.items()}


def test_every_module_has_a_layer():
    modules = _modules()
    assert not [m for m in modules if layer_of(m) is None]


def test_no_module_imports_from_a_layer_above_its_own():
    _, graph = _graph()
    bad, still = [], set()
    for module, targets in sorted(graph.items()):
        if module == FORWARD:
            continue
        for target, line in targets:
            if target.startswith(module + "."):
                continue  # a package importing its own modules
            low, high = layer_of(module), layer_of(target)
            if high > low:
                if (module, target) in STILL_UP:
                    still.add((module, target))
                    continue
                bad.append(f"{module}:{line} imports {target}: layer {LAYERS[low][0]!r} below {LAYERS[high][0]!r}")
    assert not bad, "imports from a layer above (reach up through sparray._array.forward):\n" + "\n".join(bad)
    assert still == STILL_UP, f"gone from the code, so take them off STILL_UP: {sorted(STILL_UP - still)}"


def test_the_only_import_circle_runs_through_the_forwarding_module():
    _, graph = _graph()
    graph = {m: [t for t, _ in ts if t != FORWARD and (m, t) not in STILL_UP] for m, ts in graph.items() if m != FORWARD}
    index, low, stack, on, cycles = {}, {}, [], set(), []

    def visit(v):  # Tarjan's strongly connected components
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in graph[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            part = []
            while True:
                w = stack.pop()
                on.discard(w)
                part.append(w)
                if w == v:
                    break
            if len(part) > 1:
                cycles.append(sorted(part))

    sys.setrecursionlimit(max(sys.getrecursionlimit(), 5000))
    for v in graph:
        if v not in index:
            visit(v)
    assert not cycles, cycles


def test_the_package_root_lists_the_parts():
    entries = sorted(p.name for p in PACKAGE.iterdir() if p.name != "__pycache__")
    assert len(entries) <= 17, entries  # 17: graph/, the GraphBLAS operations (docs/graphs.md)


def test_import_sparray_loads_only_its_namespace():
    code = (
        "import sys, sparray\n"
        "print(sorted(m for m in sys.modules if m.split('.')[0] in "
        "('sparray', 'numpy', 'numba', 'scipy', 'torch', 'cupy', 'dask')))\n"
    )
    env = {k: v for k, v in os.environ.items() if k not in ("SPARRAY_BACKEND", "SPARRAY_JIT")}  # set, they load the engine
    env["PYTHONPATH"] = str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", "")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, cwd=ROOT, timeout=120)
    assert out.returncode == 0, out.stderr[-2000:]
    assert out.stdout.strip() == "['sparray']", out.stdout


def test_the_namespace_table_names_every_public_name():
    import sparray
    from sparray._functions import elementwise

    assert sparray._UNARY == tuple(elementwise.UNARY) and sparray._BINARY == tuple(elementwise.BINARY)
    homes = {n for names in sparray._HOMES.values() for n in names}
    constants = {"e", "inf", "nan", "pi", "newaxis"}
    assert homes | constants == set(sparray.__all__), sorted(homes ^ (set(sparray.__all__) - constants))
    for name in sparray.__all__:
        assert getattr(sparray, name) is not None or name == "newaxis"


@pytest.mark.parametrize("old", ["_coo", "_compressed", "_blocked", "_base", "_pickle", "_dispatch", "_elementwise"])
def test_old_module_paths_are_the_new_modules(old):
    import importlib

    import sparray

    module = importlib.import_module(f"sparray.{old}")
    assert module is sys.modules["sparray." + sparray._OLD_PATHS[old]]
    assert module.__name__ == "sparray." + sparray._OLD_PATHS[old] and module.__spec__.name == module.__name__
