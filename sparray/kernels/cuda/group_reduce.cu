// Grouped reductions (sum/prod/max/min of value rows sharing a key): one pass for the key range and
// order, then the run heads and ordered segmented reduction of _segments.cuh through a stable sort.
// Mirrors kernels/cpu/group_reduce.py (its sorted and sort paths, bit for bit).
#include "_segments.cuh"

// stats[0] = min(keys), stats[1] = max(keys), stats[2] = number of i with keys[i - 1] > keys[i].
// stats arrives as {LLONG_MAX, LLONG_MIN, 0}. Each thread folds its items, then one atomic each.
__global__ void key_stats(const long long* keys, long long n, long long* stats) {
    long long lo = 0x7fffffffffffffffLL, hi = -lo - 1;
    unsigned long long descents = 0;
    for (long long i = sp_thread_id(); i < n; i += sp_thread_count()) {
        long long k = keys[i];
        lo = k < lo ? k : lo;
        hi = k > hi ? k : hi;
        if (i > 0 && keys[i - 1] > k) ++descents;
    }
    if (lo <= hi) {
        atomicMin(&stats[0], lo);
        atomicMax(&stats[1], hi);
    }
    if (descents) atomicAdd(reinterpret_cast<unsigned long long*>(&stats[2]), descents);
}
