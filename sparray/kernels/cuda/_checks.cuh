// The checks the product kernels share (spmm.cu, sddmm.cu, spgemm.cu). Each reports into stats, an
// int64[3] array: stats[0] and stats[1] belong to check_offsets, stats[2] collects SP_* flags (or a
// kernel's own flags) with atomicOr. No pointer or index is used as an address before it is checked.
#pragma once
#include "_common.cuh"
#include "_warp.cuh"

#define SP_BAD_POINTER 1ull
#define SP_BAD_INDEX 2ull
#define SP_NONFINITE 4ull

__device__ inline void sp_flag(long long* stats, unsigned long long flags) {
    if (flags) atomicOr(reinterpret_cast<unsigned long long*>(&stats[2]), flags);
}

// Flags (SP_BAD_INDEX) an index outside [0, bound) among idx[lo .. hi).
template <class I>
__global__ void check_range(const I* idx, long long lo, long long hi, long long bound, long long* stats) {
    unsigned long long flags = 0;
    for (long long k = lo + sp_thread_id(); k < hi; k += sp_thread_count()) {
        long long v = (long long)idx[k];
        if (v < 0 || v >= bound) flags |= SP_BAD_INDEX;
    }
    sp_flag(stats, flags);
}

// The pointers of a compressed matrix, with the length of its longest row on the way (one parallel
// pass over the n + 1 pointers). Pointer g of off[0..n] is good when it lies in [lo, hi] and is not below off[g - 1]; with `exact`
// also off[0] == lo and off[n] == hi (spmm.cu and sddmm.cu: lo = 0, hi = nse, exact; spgemm.cu
// accepts any lo <= off[0] <= ... <= off[n] <= hi: not exact, lo = off[0], hi = off[n]).
// stats[0] arrives as n + 1 and leaves as the first bad g (atomicMin); stats[1] arrives as 0 and
// leaves as the longest row between good pointers (a warp maximum, then one atomicMax per warp).
template <class O>
__global__ void check_offsets(const O* off, long long n, long long lo, long long hi, int exact, long long* stats) {
    long long longest = 0;
    for (long long g = sp_thread_id(); g <= n; g += sp_thread_count()) {
        long long p = (long long)off[g];
        long long prev = g > 0 ? (long long)off[g - 1] : lo;
        bool ok = p >= lo && p <= hi && p >= prev && (!exact || ((g != 0 || p == lo) && (g != n || p == hi)));
        if (!ok) atomicMin(&stats[0], g);
        else if (g > 0 && p - prev > longest) longest = p - prev;
    }
    longest = sp_warp_max(longest);
    if ((threadIdx.x & 31) == 0 && longest > 0) atomicMax(&stats[1], longest);
}
