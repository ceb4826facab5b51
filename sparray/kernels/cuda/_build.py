"""Building the CUDA sources: the name-expression list, NVRTC compiles, and the host (emulated) build.

Every launcher module in this package (``coalesce.py`` next to ``coalesce.cu``, ...) declares

- ``SOURCE``: its ``.cu`` file;
- ``NAME_EXPRESSIONS``: every template instantiation it may launch, spelled as C++
  (``"segment_reduce<sp_sum, double, long long>"``).

From these lists the same sources are built two ways:

- :func:`nvrtc_compile`: NVRTC through CuPy's binding, with CuPy's own include flags, for a real
  architecture (``sm_80``, ``sm_90``). No GPU is needed; the CI test compiles every source for
  sm_80 (no source branches on the architecture) and requires an empty log (no warnings). On a
  GPU the CuPy driver builds the same list with ``cupy.RawModule(code=..., name_expressions=...)``.
- :func:`host_library`: g++ builds ``<source>`` with ``_emulate.h`` into a shared library that has
  one ``extern "C"`` entry per name expression (``sparray_launch_<i>``, ``sparray_signature_<i>``),
  cached under the per-user cache folder by a hash of the sources, the names and the flags.

>>> from sparray.kernels.cuda._build import c_type
>>> c_type("float64"), c_type("int32"), c_type("complex64")
('double', 'int', 'sp_complex<float>')
"""

from __future__ import annotations

import hashlib
import importlib
import os
import pathlib
import subprocess
import tempfile
import threading

import numpy as np

__all__ = [
    "CUDA_DIR", "launcher_modules", "c_type", "index_type", "name_expressions", "source_text",
    "nvrtc_options", "nvrtc_compile", "host_library", "sources_hash", "register_source", "source_path",
]  # fmt: skip

CUDA_DIR = pathlib.Path(__file__).resolve().parent



def launcher_modules() -> tuple[str, ...]:
    """The launcher modules: one per ``.cu`` file here, of the same stem (kernels/cuda mirrors
    kernels/cpu file for file)."""
    return tuple(sorted(p.stem for p in CUDA_DIR.glob("*.cu")))

_C_TYPES = {
    "bool": "bool",
    "int8": "signed char", "int16": "short", "int32": "int", "int64": "long long",
    "uint8": "unsigned char", "uint16": "unsigned short", "uint32": "unsigned int", "uint64": "unsigned long long",
    "float32": "float", "float64": "double",
    "complex64": "sp_complex<float>", "complex128": "sp_complex<double>",
}  # fmt: skip

#: Value dtypes the arithmetic kernels are instantiated for (the CPU kernels' set, bool included).
VALUE_DTYPES = tuple(np.dtype(n) for n in _C_TYPES)
#: Word types for kernels that only move values: one per item size (complex128 is 16 bytes).
WORD_TYPES = {1: "unsigned char", 2: "unsigned short", 4: "unsigned int", 8: "unsigned long long", 16: "sp_word16"}
INDEX_TYPES = ("int", "long long")


def c_type(dtype) -> str:
    """The C++ type the kernels use for a NumPy value dtype."""
    name = np.dtype(dtype).name
    if name not in _C_TYPES:
        raise TypeError(f"no CUDA value type for dtype {name}; expected one of {', '.join(_C_TYPES)}")
    return _C_TYPES[name]


def index_type(dtype) -> str:
    """``int`` for int32 indices, ``long long`` for int64."""
    dtype = np.dtype(dtype)
    if dtype == np.int32:
        return "int"
    if dtype == np.int64:
        return "long long"
    raise TypeError(f"index arrays must be int32 or int64, got {dtype}")


def word_type(itemsize: int) -> str:
    """The unsigned word type that moves one value of ``itemsize`` bytes."""
    return WORD_TYPES[itemsize]


def _launcher(module: str):
    return importlib.import_module(f"{__package__}.{module}")


#: Sources outside this package (tests register the emulator's self-test here): name -> (path, names)
EXTRA_SOURCES: dict[str, tuple[pathlib.Path, tuple[str, ...]]] = {}


def register_source(path, names) -> str:
    """Make a ``.cu`` file outside this package buildable by the drivers (tests); returns its key."""
    path = pathlib.Path(path).resolve()
    EXTRA_SOURCES[str(path)] = (path, tuple(names))
    return str(path)


def name_expressions() -> dict[str, tuple[str, ...]]:
    """``{source file: every name expression its launcher uses}`` over all launcher modules
    (plus any registered extra source)."""
    out: dict[str, list[str]] = {key: list(names) for key, (_, names) in EXTRA_SOURCES.items()}
    for module in launcher_modules():
        mod = _launcher(module)
        out.setdefault(mod.SOURCE, []).extend(mod.NAME_EXPRESSIONS)
    return {k: tuple(dict.fromkeys(v)) for k, v in out.items()}


def source_path(source: str) -> pathlib.Path:
    """The file of a source key: a ``.cu`` file of this package, or a registered extra source."""
    return EXTRA_SOURCES[source][0] if source in EXTRA_SOURCES else CUDA_DIR / source


def source_text(source: str) -> str:
    """The text of a source (see :func:`source_path`)."""
    return source_path(source).read_text()


def sources_hash() -> str:
    """sha1 over every ``.cu``/``.cuh``/``.h`` file here (names and contents)."""
    digest = hashlib.sha1()
    for path in sorted(p for p in CUDA_DIR.iterdir() if p.suffix in (".cu", ".cuh", ".h")):
        digest.update(path.name.encode() + b"\0" + path.read_bytes())
    return digest.hexdigest()[:20]


# ---- NVRTC ------------------------------------------------------------------------------------


def nvrtc_options(arch: str) -> tuple[str, ...]:
    """CuPy's own compiler options (its include folders, C++17) for ``arch`` plus this folder."""
    from cupy._core.core import assemble_cupy_compiler_options

    return tuple(assemble_cupy_compiler_options((f"-arch={arch}",))) + (f"-I{CUDA_DIR}",)


def nvrtc_compile(source: str, arch: str, names=None) -> tuple[str, dict[str, str]]:
    """Compile ``source`` with NVRTC for ``arch`` (``"sm_80"``...), instantiating ``names``
    (default: every name expression of its launcher). Returns (the compiler log, {name: lowered
    name}). Raises RuntimeError with the log when compilation fails. Needs no GPU."""
    from cupy.cuda import nvrtc

    names = name_expressions()[source] if names is None else tuple(names)
    prog = nvrtc.createProgram(source_text(source), source_path(source).name, [], [])
    try:
        for name in names:
            nvrtc.addNameExpression(prog, name)
        try:
            nvrtc.compileProgram(prog, list(nvrtc_options(arch)))
        except nvrtc.NVRTCError as err:
            raise RuntimeError(f"NVRTC failed on {source} for {arch}:\n{nvrtc.getProgramLog(prog)}") from err
        log = nvrtc.getProgramLog(prog).strip("\x00").strip()
        lowered = {name: nvrtc.getLoweredName(prog, name) for name in names}
        return log, lowered
    finally:
        nvrtc.destroyProgram(prog)


# ---- host build (emulation) ----------------------------------------------------------------------

HOST_FLAGS = ("-std=c++20", "-O1", "-g0", "-ffp-contract=off", "-fPIC", "-shared", "-pthread", "-Wall", "-Wextra", "-Werror",
              "-Wno-unused-parameter", "-Wno-unused-function", "-Wno-unused-variable")  # fmt: skip
_BUILD_LOCK = threading.Lock()


def _host_wrapper(source: str, names) -> str:
    lines = ['#include "_emulate.h"', f'#include "{source_path(source)}"', 'extern "C" {']
    for i, name in enumerate(names):
        lines.append(
            f"int sparray_launch_{i}(const unsigned* g, const unsigned* b, void** a) "
            f"{{ return sparray_emu::launch(&{name}, g, b, a); }}"
        )
        lines.append(f"const char* sparray_signature_{i}() {{ return sparray_emu::signature(&{name}); }}")
    lines.append("}")
    return "\n".join(lines) + "\n"


def host_library(source: str) -> tuple[pathlib.Path, tuple[str, ...]]:
    """Build (once, cached) the host library of ``source``; returns (its path, its name
    expressions in entry order). Needs g++ (C++20)."""
    from ..cpu._cache import cache_root

    names = name_expressions()[source]
    wrapper = _host_wrapper(source, names)
    text = sources_hash() + source_text(source) + wrapper + " ".join(HOST_FLAGS)
    key = hashlib.sha1(text.encode()).hexdigest()[:16]
    folder = cache_root() / "cuda-emu"
    lib = folder / f"{source_path(source).stem}-{key}.so"
    with _BUILD_LOCK:
        if not lib.exists():
            folder.mkdir(parents=True, exist_ok=True)
            with tempfile.TemporaryDirectory(dir=folder) as tmp:
                cpp = pathlib.Path(tmp) / "wrapper.cpp"
                cpp.write_text(wrapper)
                out = pathlib.Path(tmp) / "lib.so"
                cmd = [os.environ.get("CXX", "g++"), *HOST_FLAGS, f"-I{CUDA_DIR}", str(cpp), "-o", str(out)]
                done = subprocess.run(cmd, capture_output=True, text=True)
                if done.returncode != 0:
                    raise RuntimeError(f"host build of {source} failed ({' '.join(cmd)}):\n{done.stderr}")
                os.replace(out, lib)
    return lib, names
