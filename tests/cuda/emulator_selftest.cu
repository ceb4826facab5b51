// Kernels that exercise every CUDA built-in _emulate.h provides; tests/test_cuda_emulator.py runs
// them through the emulator (and on a GPU when one is there) and checks the results with NumPy.
// Also compiled by NVRTC in the same test, so the self-test itself is real CUDA.
#include "_common.cuh"

// Block-wide tree sum in shared memory: out[blockIdx.x] = sum of in over the block's slice.
// Threads past n return early, before the barriers, as exited GPU threads may.
__global__ void block_sums(const double* in, long long n, double* out) {
    __shared__ double part[1024];
    long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    long long first = (long long)blockIdx.x * blockDim.x;
    long long live = n - first < (long long)blockDim.x ? n - first : (long long)blockDim.x;
    if (i >= n) return;
    part[threadIdx.x] = in[i];
    __syncthreads();
    if (threadIdx.x == 0) {
        double s = 0;
        for (long long t = 0; t < live; ++t) s += part[t];
        out[blockIdx.x] = s;
    }
}

// Per warp: a shuffle-down sum, a shuffle-up inclusive scan, an xor swap with the next lane, a
// ballot of odd values, a broadcast of lane 0 and __any/__all votes.
__global__ void warp_ops(const int* in, int* sums, int* scans, int* swapped, unsigned* ballots, int* lane0,
                         int* votes) {
    int lane = threadIdx.x & 31;
    long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    int v = in[i];
    int s = v;
    for (int d = 16; d > 0; d >>= 1) s += __shfl_down_sync(0xffffffffu, s, d);
    int scan = v;
    for (int d = 1; d < 32; d <<= 1) {
        int up = __shfl_up_sync(0xffffffffu, scan, d);
        if (lane >= d) scan += up;
    }
    swapped[i] = __shfl_xor_sync(0xffffffffu, v, 1);
    unsigned b = __ballot_sync(0xffffffffu, v & 1);
    lane0[i] = __shfl_sync(0xffffffffu, v, 0);
    votes[i] = 2 * __any_sync(0xffffffffu, v > 5) + __all_sync(0xffffffffu, v >= 0);
    __syncwarp();
    scans[i] = scan;
    if (lane == 0) {
        sums[i / 32] = s;
        ballots[i / 32] = b;
    }
}

// Grid-stride atomics from every thread of every block.
__global__ void atomics(const long long* keys, long long n, double* dsum, unsigned long long* counts, int* imax,
                        long long* first) {
    for (long long t = sp_thread_id(); t < n; t += sp_thread_count()) {
        long long k = keys[t];
        atomicAdd(&dsum[k], 0.5);
        atomicAdd(&counts[k], 1ull);
        atomicMax(&imax[k], (int)t);
        atomicMin(first, k * 1000 + t);
    }
}
