// Dense scatter-add: out[keys[i], q] += values[i, q] with atomics, for every (row, column).
// Mirrors kernels/cpu/scatter.py. A key outside [0, nkeys) is counted, never used as an address.
#include "_common.cuh"

// atomicAdd for each value type scatter_sum takes. Signed 64-bit adds go through the unsigned
// overload (two's complement: the bits wrap identically); complex adds are two independent adds.
__device__ inline void sp_atomic_add(int* p, int v) { atomicAdd(p, v); }
__device__ inline void sp_atomic_add(unsigned int* p, unsigned int v) { atomicAdd(p, v); }
__device__ inline void sp_atomic_add(unsigned long long* p, unsigned long long v) { atomicAdd(p, v); }
__device__ inline void sp_atomic_add(long long* p, long long v) {
    atomicAdd(reinterpret_cast<unsigned long long*>(p), static_cast<unsigned long long>(v));
}
__device__ inline void sp_atomic_add(float* p, float v) { atomicAdd(p, v); }
__device__ inline void sp_atomic_add(double* p, double v) { atomicAdd(p, v); }
template <class T>
__device__ inline void sp_atomic_add(sp_complex<T>* p, sp_complex<T> v) {
    sp_atomic_add(&p->re, v.re);
    sp_atomic_add(&p->im, v.im);
}

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
