// atomicAdd for every accumulator type (sp_acc<T> of _common.cuh), returning the value it replaced.
// Signed 64-bit adds go through the unsigned overload (two's complement: the bits wrap identically);
// complex adds are two independent adds (the pair is not read atomically: each part on its own is).
// 8- and 16-bit values have no native atomicAdd: kernels accumulate them in sp_acc's 32-bit type.
#pragma once
#include "_common.cuh"

__device__ inline int sp_atomic_add(int* p, int v) { return atomicAdd(p, v); }
__device__ inline unsigned int sp_atomic_add(unsigned int* p, unsigned int v) { return atomicAdd(p, v); }
__device__ inline unsigned long long sp_atomic_add(unsigned long long* p, unsigned long long v) { return atomicAdd(p, v); }
__device__ inline long long sp_atomic_add(long long* p, long long v) {
    return (long long)atomicAdd(reinterpret_cast<unsigned long long*>(p), static_cast<unsigned long long>(v));
}
__device__ inline float sp_atomic_add(float* p, float v) { return atomicAdd(p, v); }
__device__ inline double sp_atomic_add(double* p, double v) { return atomicAdd(p, v); }
template <class T>
__device__ inline sp_complex<T> sp_atomic_add(sp_complex<T>* p, sp_complex<T> v) {
    T re = sp_atomic_add(&p->re, v.re);
    T im = sp_atomic_add(&p->im, v.im);
    return {re, im};
}
