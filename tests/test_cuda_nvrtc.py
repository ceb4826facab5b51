"""Every CUDA source compiles with NVRTC (CuPy's binding, CuPy's include flags) for sm_80, through
ptxas to a cubin, instantiating every name expression its launcher uses, with an empty log (no
warnings). No GPU is needed.

One architecture: no source branches on ``__CUDA_ARCH__`` (checked below), so the oldest one
supported (A100's) is the strict check; a second one doubled the test's time and found nothing
more. test_cuda_emulator compiles its self-test for sm_90 (H100's) too, and so does
``semi_structured.cu``, whose inline PTX (mma.sp, cvt) ptxas checks per architecture, in both its
forms (``::ordered_metadata``, and the plain one older toolkits get).

Also: every source has a launcher module and a test file beside it, and every registry row of
the "cupy" backend names a function that exists."""

import importlib
import pathlib

import pytest

from cuda_testing import requires_nvrtc
from sparray.kernels.cuda import _build

SOURCES = sorted(p.name for p in _build.CUDA_DIR.glob("*.cu"))


@requires_nvrtc
@pytest.mark.parametrize("arch", ["sm_80"])
@pytest.mark.parametrize("source", SOURCES)
def test_source_compiles_without_warnings(source, arch):
    names = _build.name_expressions()[source]
    assert names, f"{source}: its launcher lists no NAME_EXPRESSIONS"
    log, lowered = _build.nvrtc_compile(source, arch)
    assert log == "", f"{source} ({arch}) compiled with messages:\n{log}"
    assert set(lowered) == set(names)
    assert all(lowered.values())


@requires_nvrtc
def test_tensor_core_source_compiles_for_sm90():
    names = _build.name_expressions()["semi_structured.cu"]
    log, lowered = _build.nvrtc_compile("semi_structured.cu", "sm_90")
    assert log == "", f"semi_structured.cu (sm_90) compiled with messages:\n{log}"
    assert set(lowered) == set(names)


@requires_nvrtc
def test_tensor_core_source_compiles_in_its_plain_form(tmp_path):
    """The mma.sp form without ::ordered_metadata (toolkits before CUDA 12.5): ptxas only advises
    the ordered form, once per instruction."""
    names = _build.name_expressions()["semi_structured.cu"]
    plain = tmp_path / "semi_structured_plain.cu"
    plain.write_text('#define SPARRAY_MMA_SP_PLAIN 1\n#include "semi_structured.cu"\n')
    try:
        log, lowered = _build.nvrtc_compile(_build.register_source(plain, names), "sm_80")
    finally:
        _build.EXTRA_SOURCES.pop(str(plain.resolve()), None)
    lines = [line for line in log.splitlines() if line.strip()]
    assert lines and all("Advisory: Modifier '.sp::ordered_metadata' should be used" in line for line in lines), log
    assert set(lowered) == set(names)


def test_no_source_branches_on_the_architecture():
    """What lets one architecture stand for all in the compile test above."""
    texts = {p.name: p.read_text() for p in _build.CUDA_DIR.iterdir() if p.suffix in (".cu", ".cuh")}
    assert len(texts) > len(SOURCES)  # the headers are read too
    assert [name for name, text in texts.items() if "__CUDA_ARCH__" in text] == []


@pytest.mark.parametrize("source", SOURCES)
def test_every_source_has_a_launcher_and_a_cpu_twin(source):
    stem = pathlib.Path(source).stem
    mod = importlib.import_module(f"sparray.kernels.cuda.{stem}")
    assert mod.SOURCE == source
    cpu = _build.CUDA_DIR.parent / "cpu" / f"{stem}.py"
    assert cpu.exists(), f"kernels/cuda/{source} has no kernels/cpu/{stem}.py twin"


def test_cupy_registry_rows_resolve():
    import sparray._engine.registry_table as table

    rows = [row for row in table.KERNELS if row[2] == "cupy"]
    for op, layout, _, target in rows:
        module, _, attr = target.partition(":")
        assert callable(getattr(importlib.import_module(module), attr)), f"{op}[{layout}] -> {target}"
