#!/usr/bin/env bash
# The checks that need a GPU, for a session that has one (CI has none): run from the repository root.
#   1. benchmarks/bench_gpu.py on a quiet GPU (sparray beside cupyx.scipy.sparse and torch), with
#      sparray's host path, device time and SpMV kernel alone timed by CUDA events (events.json);
#   2. the CUDA kernel tests and the public ops on CuPy data (tests/test_cuda_*.py, tests/test_gpu_public.py);
#   3. the same tests under compute-sanitizer memcheck, without CuPy's memory pool, side by side with 2;
#   4. tests/test_interop_torch.py on CUDA tensors (DLPack both ways, zero copy);
#   0. first, the 2:4 layout's kernels (kernels/cuda/semi_structured.cu): tests/test_cuda_semi.py on
#      CuPy data (the mma.sp fragment and metadata check included) and a timing of float16 A @ X
#      against cuBLAS and torch (semi_gpu.txt, semi_gpu.json); SEMI_ONLY=1 stops after it.
# Logs go to $OUT (default /tmp/gpu_checks). Time limits: SEMI_S, BENCH_S, TEST_S, SAN_S, TORCH_S seconds.
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

# 0. 2:4 semi-structured: the kernel tests on the GPU, then device times (CUDA events, medians) of
# float16 A @ X: 8192^3 on sparse tensor cores beside cupy.matmul (cuBLAS) on the dense matrix and
# torch's to_sparse_semi_structured, and 4096 x 4096 times 1-16 columns (CUDA cores) beside cuBLAS.
timeout "${SEMI_S:-240}" $py -m pytest -p no:cacheprovider -q -rfEs tests/test_cuda_semi.py > "$out/semi_tests.txt" 2>&1
echo "semi tests rc=$?"; tail -8 "$out/semi_tests.txt"
timeout "${SEMI_S:-240}" $py - "$out/semi_gpu.json" > "$out/semi_gpu.txt" 2>&1 <<'PY'
import json, sys
import cupy as cp
from sparray.kernels.cuda import semi_structured as semi

def device_ms(fn, reps=20):
    fn(); fn()
    times = []
    for _ in range(reps):
        start, end = cp.cuda.Event(), cp.cuda.Event()
        start.record(); fn(); end.record(); end.synchronize()
        times.append(cp.cuda.get_elapsed_time(start, end))
    return sorted(times)[len(times) // 2]

def random_24(rows, cols):
    codes = cp.asarray(semi.VALID_CODES, cp.uint32)[cp.random.randint(0, 6, (rows, cols // 4))]
    words = (codes.reshape(rows, -1, 4) << (4 * cp.arange(4, dtype=cp.uint32))).sum(-1).astype(cp.uint16)
    values = (cp.random.standard_normal((rows, cols // 2)) * 0.1).astype(cp.float16)
    dense, r = cp.zeros((rows, cols), cp.float16), cp.arange(rows)[:, None]
    base = 4 * cp.arange(cols // 4)
    dense[r, base + (codes & 3)] = values[:, 0::2]
    dense[r, base + (codes >> 2)] = values[:, 1::2]
    return values, words, semi.tensor_core_metadata(words, rows, cols), dense

out = {"device": cp.cuda.runtime.getDeviceProperties(0)["name"].decode()}
n = 8192
values, words, tc, dense = random_24(n, n)
x = (cp.random.standard_normal((n, n)) * 0.1).astype(cp.float16)
y = semi.semi_matmul_dense(values, words, x, 0.0, n, tc_metadata=tc)
ref = cp.matmul(dense, x)
out["8192^3 max |y - cuBLAS| / max |cuBLAS|"] = float(abs(y.astype(cp.float32) - ref).max() / abs(ref).max())
out["8192^3 sparray mma.sp ms"] = device_ms(lambda: semi.semi_matmul_dense(values, words, x, 0.0, n, tc_metadata=tc))
out["8192^3 cupy.matmul ms"] = device_ms(lambda: cp.matmul(dense, x))
try:
    import torch
    from torch.sparse import to_sparse_semi_structured
    ts, tx = to_sparse_semi_structured(torch.from_dlpack(dense)), torch.from_dlpack(x)
    out["8192^3 torch semi-structured ms"] = device_ms(lambda: torch.mm(ts, tx))
except Exception as err:  # no cuSPARSELt, or CUTLASS (SM8x only) on this device
    out["8192^3 torch semi-structured"] = f"not available: {type(err).__name__}: {err}"[:300]
n = 4096
values, words, tc, dense = random_24(n, n)
for N in (1, 2, 4, 8, 16):
    x = (cp.random.standard_normal((n, N)) * 0.1).astype(cp.float16)
    out[f"4096^2 x {N} sparray ms"] = device_ms(lambda: semi.semi_matmul_dense(values, words, x, 0.0, n))
    out[f"4096^2 x {N} cupy.matmul ms"] = device_ms(lambda: cp.matmul(dense, x))
out["4096^2 x 16 sparray tensor cores ms"] = device_ms(
    lambda: semi.semi_matmul_dense(values, words, x, 0.0, n, tc_metadata=tc, method="tensor_cores"))
for key, value in out.items():
    print(f"{key}: {value:.4g}" if isinstance(value, float) else f"{key}: {value}")
json.dump(out, open(sys.argv[1], "w"), indent=1)
PY
echo "semi timing rc=$?"; cat "$out/semi_gpu.txt"
[ "${SEMI_ONLY:-0}" = 1 ] && exit 0

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
