// Which minor indices a compressed pattern never uses. Mirrors kernels/cpu/occupancy.py.
#include "_common.cuh"

// used[minor[i]] = 1 for every i < n (used arrives zeroed; every writer stores the same 1). An index
// outside [0, nminor) is counted in *nbad, never used as an address.
template <class I>
__global__ void mark_used(const I* minor, long long n, long long nminor, unsigned char* used, unsigned long long* nbad) {
    unsigned long long bad = 0;
    for (long long i = sp_thread_id(); i < n; i += sp_thread_count()) {
        long long j = (long long)minor[i];
        if (j < 0 || j >= nminor) ++bad;
        else used[j] = 1;
    }
    if (bad) atomicAdd(nbad, bad);
}
