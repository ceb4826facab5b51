// Bounded binary searches shared by the merge kernels (merge.cu, binary.cu, binary_rows.cu).
// Each reads only a[lo .. hi): a search never leaves the operand (or row) it was given.
#pragma once
#include "_common.cuh"

// The first p in [lo, hi) with !(a[p] < key), or hi if there is none.
template <class K, class V>
__device__ inline long long sp_lower_bound(const K* a, long long lo, long long hi, V key) {
    while (lo < hi) {
        long long mid = lo + ((hi - lo) >> 1);
        if ((long long)a[mid] < (long long)key) lo = mid + 1;
        else hi = mid;
    }
    return lo;
}

// The first p in [lo, hi) with key < a[p], or hi if there is none.
template <class K, class V>
__device__ inline long long sp_upper_bound(const K* a, long long lo, long long hi, V key) {
    while (lo < hi) {
        long long mid = lo + ((hi - lo) >> 1);
        if ((long long)key < (long long)a[mid]) hi = mid;
        else lo = mid + 1;
    }
    return lo;
}
