"""The core's differential test (every operation against dense NumPy on random arrays of every
layout, fill and shape) with the CUDA kernels serving NumPy data through the emulator
(``pytest --cuda-emulated``): the launchers see exactly the arguments the core passes on a GPU.

Run in a subprocess so the registry swap stays out of this session."""

import pathlib
import subprocess
import sys

from cuda_testing import requires_gxx

ROOT = pathlib.Path(__file__).resolve().parents[1]


@requires_gxx
def test_differential_through_the_cuda_kernels():
    # -n 0: one process (the suite around it already runs a worker per core)
    cmd = [sys.executable, "-m", "pytest", "-q", "-n", "0", "-p", "no:cacheprovider", "--cuda-emulated",
           "-k", "numba", "tests/test_differential.py"]  # fmt: skip
    done = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True)
    assert done.returncode == 0, done.stdout[-4000:] + done.stderr[-2000:]
    assert " passed" in done.stdout and " failed" not in done.stdout, done.stdout[-2000:]
