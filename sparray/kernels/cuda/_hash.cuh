// The per-row accumulator tables of the Gustavson products (spgemm.cu, semiring.cu): a row's table
// has `size` slots, either dense (size == ncols: the slot of column j is j) or a hash table of a
// power of two slots (load factor <= 1/2 by the launchers' sizing), probed linearly.
#pragma once
#include "_common.cuh"

// The smallest power of two >= v (v >= 1).
__device__ inline long long sp_pow2_at_least(long long v) {
    return v <= 1 ? 1 : 1ll << (64 - __clzll(v - 1));
}

// The slot of column j in a table of `size` slots: the column itself in a dense table (size ==
// ncols), else a multiplicative hash (Fibonacci hashing: the top bits of j * 2^64 / phi).
__device__ inline long long sp_home(long long j, long long size, long long ncols) {
    if (size == ncols) return j;
    unsigned long long h = (unsigned long long)j * 0x9E3779B97F4A7C15ull;
    int bits = 63 - __clzll(size);  // size is a power of two
    return bits == 0 ? 0 : (long long)(h >> (64 - bits));
}
