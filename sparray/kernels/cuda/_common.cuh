// Pieces every sparray CUDA kernel shares; compiles with NVRTC and as host C++ (_emulate.h).
//
// - sp_complex<T>: complex values laid out as NumPy/CuPy store them (re, im), with the arithmetic
//   the kernels need (CuPy's own complex header is not available to the host build).
// - sp_word16: a 16-byte value for kernels that only move entries (complex128 seen as bytes).
// - sp_isnan / sp_same: NaN tests for every value type (integers and bool have no NaN).
// - sp_thread_id / sp_thread_count: 64-bit grid-stride loop bounds; launchers size grids freely.
// - Reduction functors sp_sum / sp_prod / sp_max / sp_min with NumPy's NaN rules.
// - sp_acc<T>: the type sums and products of T are computed in, so that integers wrap as NumPy's do.
// - sp_isfinite: neither inf nor NaN (always true for integers).
#pragma once

#ifndef SPARRAY_EMULATED
// NVRTC: no standard headers; the fixed-width names the kernels use
typedef long long int64_t;
typedef unsigned long long uint64_t;
typedef int int32_t;
typedef unsigned int uint32_t;
#endif

// Products never fused into an FMA. NVRTC contracts a * b - c * d into fma(a, b, -(c * d)) by
// default, which rounds once where NumPy and numba round twice: a complex product then differs in
// the last bit (seen on an H100 for complex64 prod). __fmul_rn / __dmul_rn are never contracted.
__host__ __device__ inline float sp_mul_rn(float a, float b) { return __fmul_rn(a, b); }
__host__ __device__ inline double sp_mul_rn(double a, double b) { return __dmul_rn(a, b); }

template <class T>
struct sp_complex {
    T re, im;
};
template <class T>
__host__ __device__ inline sp_complex<T> operator+(sp_complex<T> a, sp_complex<T> b) { return {a.re + b.re, a.im + b.im}; }
template <class T>
__host__ __device__ inline sp_complex<T> operator*(sp_complex<T> a, sp_complex<T> b) {
    return {sp_mul_rn(a.re, b.re) - sp_mul_rn(a.im, b.im), sp_mul_rn(a.re, b.im) + sp_mul_rn(a.im, b.re)};
}
template <class T>
__host__ __device__ inline bool operator==(sp_complex<T> a, sp_complex<T> b) { return a.re == b.re && a.im == b.im; }

struct sp_word16 {
    unsigned long long lo, hi;
};

// ---- arithmetic that wraps as NumPy's does ------------------------------------------------------
// sp_acc<T>::type is the type sums and products of T values are computed in. Integers: an unsigned
// type of at least 32 bits (signed overflow is undefined in C++, unsigned arithmetic wraps, and its
// low bits cast back to T are NumPy's two's complement result; 8- and 16-bit values are not
// promoted to a signed int, whose product can overflow). Every other type: itself.
template <class T>
struct sp_acc { typedef T type; };
template <>
struct sp_acc<signed char> { typedef unsigned int type; };
template <>
struct sp_acc<unsigned char> { typedef unsigned int type; };
template <>
struct sp_acc<short> { typedef unsigned int type; };
template <>
struct sp_acc<unsigned short> { typedef unsigned int type; };
template <>
struct sp_acc<int> { typedef unsigned int type; };
template <>
struct sp_acc<unsigned int> { typedef unsigned int type; };
template <>
struct sp_acc<long long> { typedef unsigned long long type; };
template <>
struct sp_acc<unsigned long long> { typedef unsigned long long type; };

// x is neither inf nor NaN: x - x is 0 for a finite x and NaN otherwise (integers: always 0)
template <class T>
__host__ __device__ inline bool sp_isfinite(T x) {
    T d = x - x;
    return d == d;
}
template <class T>
__host__ __device__ inline bool sp_isfinite(sp_complex<T> x) { return sp_isfinite(x.re) && sp_isfinite(x.im); }

// ---- NaN-aware comparisons ------------------------------------------------------------------

template <class T>
__host__ __device__ inline bool sp_isnan(T x) { return x != x; }
template <class T>
__host__ __device__ inline bool sp_isnan(sp_complex<T> x) { return x.re != x.re || x.im != x.im; }

// "the same value" as dense_to_compressed means it: equal, or NaN on both sides
template <class T>
__host__ __device__ inline bool sp_same(T a, T b) { return a == b || (sp_isnan(a) && sp_isnan(b)); }

// ---- reductions with NumPy's rules (max/min propagate NaN; complex compares lexicographically) --

template <class T>
__host__ __device__ inline bool sp_less(T a, T b) { return a < b; }
template <class T>
__host__ __device__ inline bool sp_less(sp_complex<T> a, sp_complex<T> b) {
    return a.re < b.re || (a.re == b.re && a.im < b.im);
}

struct sp_sum {
    template <class T>
    __host__ __device__ static T identity_like(T x) { return x; }
    template <class T>
    __host__ __device__ static T apply(T a, T b) { return a + b; }
    __host__ __device__ static bool apply(bool a, bool b) { return a || b; }
};
struct sp_prod {
    template <class T>
    __host__ __device__ static T apply(T a, T b) { return a * b; }
    __host__ __device__ static bool apply(bool a, bool b) { return a && b; }
};
struct sp_max {
    template <class T>
    __host__ __device__ static T apply(T a, T b) {
        if (sp_isnan(a)) return a;
        if (sp_isnan(b)) return b;
        return sp_less(a, b) ? b : a;
    }
};
struct sp_min {
    template <class T>
    __host__ __device__ static T apply(T a, T b) {
        if (sp_isnan(a)) return a;
        if (sp_isnan(b)) return b;
        return sp_less(b, a) ? b : a;
    }
};

// ---- grid-stride loops in 64 bits --------------------------------------------------------------

__device__ inline long long sp_thread_id() { return (long long)blockIdx.x * blockDim.x + threadIdx.x; }
__device__ inline long long sp_thread_count() { return (long long)gridDim.x * blockDim.x; }
