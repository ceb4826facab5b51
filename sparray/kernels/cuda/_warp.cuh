// Warp shuffles for every accumulator type, and group reductions built on them. CUDA's
// __shfl_down_sync takes 4- and 8-byte scalars; a complex value moves as its two parts. Every lane
// of the warp must make the call (the kernels keep loops that shuffle uniform across a warp).
#pragma once
#include "_common.cuh"

template <class T>
__device__ inline T sp_shfl_down(T v, unsigned delta, int width) { return __shfl_down_sync(0xffffffffu, v, delta, width); }
template <class T>
__device__ inline sp_complex<T> sp_shfl_down(sp_complex<T> v, unsigned delta, int width) {
    return {sp_shfl_down(v.re, delta, width), sp_shfl_down(v.im, delta, width)};
}

// The sum over each aligned group of `width` lanes (a power of two, 1 to 32), in the group's first lane.
template <class A>
__device__ inline A sp_group_sum(A v, int width) {
    for (int off = width >> 1; off > 0; off >>= 1) v = v + sp_shfl_down(v, off, width);
    return v;
}

// The maximum over the warp, in lane 0.
__device__ inline long long sp_warp_max(long long v) {
    for (int off = 16; off > 0; off >>= 1) {
        long long o = sp_shfl_down(v, off, 32);
        v = o > v ? o : v;
    }
    return v;
}
