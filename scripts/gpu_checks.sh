#!/usr/bin/env bash
# The checks that need a GPU, for a session that has one (CI has none): run from the repository root.
#   1. benchmarks/bench_gpu.py on a quiet GPU (sparray beside cupyx.scipy.sparse and torch), with
#      sparray's host path, device time and SpMV kernel alone timed by CUDA events (events.json);
#   2. the CUDA kernel tests and the public ops on CuPy data (tests/test_cuda_*.py, tests/test_gpu_public.py);
#   3. the same tests under compute-sanitizer memcheck, without CuPy's memory pool, side by side with 2;
#   4. tests/test_interop_torch.py on CUDA tensors (DLPack both ways, zero copy).
# Logs go to $OUT (default /tmp/gpu_checks). Time limits: BENCH_S, TEST_S, SAN_S, TORCH_S seconds.
set -u
out=${OUT:-/tmp/gpu_checks}
mkdir -p "$out"
export PYTHONPATH="$PWD${PYTHONPATH:+:$PYTHONPATH}" PYTHONUNBUFFERED=1
py=${PYTHON:-python3}
{
  nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm --format=csv
  $py -c "import sys, numpy, numba, cupy; print(sys.version.split()[0], 'numpy', numpy.__version__, 'numba', numba.__version__, 'cupy', cupy.__version__)"
  $py -c "import torch; print('torch', torch.__version__)" 2>&1 | tail -1
  nproc
} > "$out/device.txt" 2>&1
cat "$out/device.txt"

timeout "${BENCH_S:-200}" $py benchmarks/bench_gpu.py --json "$out/bench_gpu.json" --events "$out/events.json" \
  > "$out/bench_gpu.txt" 2>&1
echo "bench rc=$?"; cat "$out/bench_gpu.txt"

files=$(ls tests/test_cuda_*.py | grep -v -e test_cuda_emulator.py -e test_cuda_core_emulated.py)
select="not emulator and not cpu"
# -v: each test's result is in the log as it ends, so a run stopped at its time limit still says what
# it covered (on an H100 with 16 cores, 8 workers covered 95% in 290 s; 14 workers started none in 200 s)
SPARRAY_TEST_NO_CUPY_POOL=1 timeout "${SAN_S:-330}" compute-sanitizer --tool memcheck --print-limit 30 --error-exitcode 3 \
  $py -m pytest -p no:cacheprovider -n 8 --dist load -v -k "$select" $files tests/test_gpu_public.py \
  > "$out/memcheck.txt" 2>&1 &
san=$!
timeout "${TEST_S:-300}" $py -m pytest -p no:cacheprovider -n 6 --dist load -q -rfE --durations=15 -k "$select" \
  $files tests/test_gpu_public.py > "$out/tests.txt" 2>&1
echo "tests rc=$?"; tail -60 "$out/tests.txt"
wait $san
echo "memcheck rc=$?"; grep -cE " PASSED " "$out/memcheck.txt"; grep -E "ERROR SUMMARY|Invalid| FAILED | passed| failed" "$out/memcheck.txt" | head -40

timeout "${TORCH_S:-120}" $py -m pytest -p no:cacheprovider -q -rfEs -k "cuda" tests/test_interop_torch.py > "$out/torch_cuda.txt" 2>&1
echo "torch cuda rc=$?"; tail -15 "$out/torch_cuda.txt"
