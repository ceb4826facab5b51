// Whether every element of an array is finite. Mirrors kernels/cpu/finite.py.
#include "_common.cuh"

// *any_bad (arrives 0) becomes 1 when some x[i], i < n, is inf or NaN. Complex arrays come as their
// real and imaginary parts (2n reals). Each thread stores at most once.
template <class T>
__global__ void find_nonfinite(const T* x, long long n, int* any_bad) {
    bool bad = false;
    for (long long i = sp_thread_id(); i < n; i += sp_thread_count()) bad |= !sp_isfinite(x[i]);
    if (bad) *any_bad = 1;
}
