// Dense scatter-add: out[keys[i], q] += values[i, q] with atomics, for every (row, column).
// Mirrors kernels/cpu/scatter.py. A key outside [0, nkeys) is counted, never used as an address.
#include "_atomic.cuh"

// One thread per (row i, column q) of values (n, m); out (nkeys, m) arrives zeroed. *nbad counts
// the rows whose key is out of range (column 0 counts; with m == 0 each row is still checked).
template <class I, class T>
__global__ void scatter_add(const I* keys, long long n, const T* values, long long m, long long nkeys, T* out,
                            unsigned long long* nbad) {
    long long w = m > 0 ? m : 1;
    long long total = n * w;
    unsigned long long bad = 0;
    for (long long t = sp_thread_id(); t < total; t += sp_thread_count()) {
        long long i = t / w, q = t - i * w;
        long long k = (long long)keys[i];
        if (k < 0 || k >= nkeys) {
            if (q == 0) ++bad;
            continue;
        }
        if (q < m) sp_atomic_add(&out[k * m + q], values[i * m + q]);
    }
    if (bad) atomicAdd(nbad, bad);
}
