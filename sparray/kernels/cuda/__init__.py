"""CUDA kernels for CuPy data, one ``.cu`` file per kernel family, mirroring ``kernels/cpu`` file
for file, each with a Python launcher of the same name (``coalesce.cu`` + ``coalesce.py``).

- ``_common.cuh``: value types (``sp_complex``), NaN rules, reduction functors, grid-stride helpers.
- ``_emulate.h``: the CUDA built-ins as host C++, so the same sources run on the CPU in CI.
- ``_build.py``: name expressions, NVRTC compiles (no GPU needed), the cached host build.
- ``_driver.py``: where a launch runs: CuPy (``RawModule``) for CuPy arrays, the emulator for NumPy
  arrays. Launchers are written once against the driver.
- ``_arrays.py``: the argument checks every launcher makes.

The registry (``sparray._engine.registry_table``) routes CuPy data here; tests call the same launchers on
NumPy arrays, which run through the emulator.
"""
