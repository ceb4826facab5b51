"""Every CUDA source compiles with NVRTC (CuPy's binding, CuPy's include flags) for sm_80 and sm_90,
instantiating every name expression its launcher uses, with an empty log (no warnings). No GPU is
needed. Also: every source has a launcher module and a test file beside it, and every registry
row of the "cupy" backend names a function that exists."""

import importlib
import pathlib

import pytest

from cuda_testing import requires_nvrtc
from sparray.kernels.cuda import _build

SOURCES = sorted(p.name for p in _build.CUDA_DIR.glob("*.cu"))


@requires_nvrtc
@pytest.mark.parametrize("arch", ["sm_80", "sm_90"])
@pytest.mark.parametrize("source", SOURCES)
def test_source_compiles_without_warnings(source, arch):
    names = _build.name_expressions()[source]
    assert names, f"{source}: its launcher lists no NAME_EXPRESSIONS"
    log, lowered = _build.nvrtc_compile(source, arch)
    assert log == "", f"{source} ({arch}) compiled with messages:\n{log}"
    assert set(lowered) == set(names)
    assert all(lowered.values())


@pytest.mark.parametrize("source", SOURCES)
def test_every_source_has_a_launcher_and_a_cpu_twin(source):
    stem = pathlib.Path(source).stem
    mod = importlib.import_module(f"sparray.kernels.cuda.{stem}")
    assert mod.SOURCE == source
    cpu = _build.CUDA_DIR.parent / "cpu" / f"{stem}.py"
    assert cpu.exists(), f"kernels/cuda/{source} has no kernels/cpu/{stem}.py twin"


def test_cupy_registry_rows_resolve():
    import sparray._registry_table as table

    rows = [row for row in table.KERNELS if row[2] == "cupy"]
    for op, layout, _, target in rows:
        module, _, attr = target.partition(":")
        assert callable(getattr(importlib.import_module(module), attr)), f"{op}[{layout}] -> {target}"
