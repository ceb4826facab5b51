// Segmented reductions shared by coalesce.cu and group_reduce.cu.
#pragma once
#include "_common.cuh"

// out[s, q] = Op over rows r = perm[k] for k in [starts[s], starts[s+1]),
// left to right in k order, for every column q < m. One thread per (segment, column): the order of
// the operations is the CPU kernels' order, so results match them bit for bit.
// starts: nseg + 1 non-decreasing offsets into [0, n] (the launcher builds them); perm: a
// permutation of [0, n). An empty segment's row is left as the launcher set it (its identity).
template <class Op, class T>
__global__ void segment_reduce(const long long* perm, const long long* starts, long long nseg, const T* values,
                               long long m, T* out) {
    long long total = nseg * m;
    for (long long t = sp_thread_id(); t < total; t += sp_thread_count()) {
        long long s = t / m, q = t - s * m;
        long long lo = starts[s], hi = starts[s + 1];
        if (lo >= hi) continue;
        long long r = perm[lo];
        T acc = values[r * m + q];
        for (long long k = lo + 1; k < hi; ++k) {
            r = perm[k];
            acc = Op::apply(acc, values[r * m + q]);
        }
        out[t] = acc;
    }
}

// flags[i] = 1 where a new run of equal keys starts in sorted keys (flags[0] = 1), else 0.
__global__ void run_heads(const long long* keys, long long n, unsigned char* flags) {
    for (long long i = sp_thread_id(); i < n; i += sp_thread_count()) {
        flags[i] = (i == 0 || keys[i] != keys[i - 1]) ? 1 : 0;
    }
}
