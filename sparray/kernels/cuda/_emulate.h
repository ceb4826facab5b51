// Host emulation of the CUDA C++ subset sparray's kernels use, so that the very same .cu
// sources run on the CPU (g++, loaded with ctypes) in CI, where there is no GPU.
//
// Model, chosen to be faithful rather than fast:
// - A launch runs its blocks one after another. Each CUDA thread of a block is a real OS thread
//   (blockDim threads per launch, reused for every block), so data races, barriers and atomics
//   behave as on a GPU rather than being serialised away.
// - __syncthreads() is a real barrier over the block's threads. A thread that has returned from the
//   kernel leaves the barrier (as an exited GPU thread no longer holds a barrier back).
// - __shared__ variables are function-local statics: one copy per kernel instantiation, which is
//   one block's shared memory because blocks never overlap in time. Dynamic shared memory is not
//   emulated (the kernels do not use it).
// - Warps are groups of 32 consecutive threads (by linear thread id). Shuffles, votes and
//   __syncwarp go through a per-warp exchange buffer and a per-warp barrier; every live lane of
//   the warp must take part (masks are accepted but a partial mask is not emulated).
// - Atomics are GCC __atomic builtins (compare-and-swap loops for floating point and min/max).
// - Launches are serialised by a process-wide mutex (the emulator keeps per-launch state).
//
// Entry point for generated code: sparray_emu::launch(&kernel<...>, grid, block, args), where
// args[i] points at the i-th argument's value exactly as cuLaunchKernel takes it, and
// sparray_emu::signature(&kernel<...>) describing the parameters for the Python driver's checks.
#pragma once

#include <atomic>
#include <cmath>
#include <condition_variable>
#include <cstdint>
#include <cstring>
#include <exception>
#include <mutex>
#include <string>
#include <thread>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#define SPARRAY_EMULATED 1
#define __global__
#define __device__
#define __host__
#define __forceinline__ inline
#define __noinline__
#define __launch_bounds__(...)
#define __shared__ static

// Rounded products that the CUDA compiler never fuses into an FMA (the host build does not fuse).
inline float __fmul_rn(float a, float b) { return a * b; }
inline double __dmul_rn(double a, double b) { return a * b; }

struct dim3 {
    unsigned x, y, z;
    constexpr dim3(unsigned x_ = 1, unsigned y_ = 1, unsigned z_ = 1) : x(x_), y(y_), z(z_) {}
};

inline thread_local dim3 threadIdx;
inline thread_local dim3 blockIdx;
inline dim3 blockDim;
inline dim3 gridDim;
constexpr int warpSize = 32;

namespace sparray_emu {

// A reusable barrier whose party count can shrink while a phase is open (a thread that leaves).
class Barrier {
  public:
    void reset(int parties) {
        std::lock_guard<std::mutex> g(m_);
        expected_ = parties;
        arrived_ = 0;
    }
    void arrive_and_wait() {
        std::unique_lock<std::mutex> g(m_);
        unsigned long gen = generation_;
        if (++arrived_ >= expected_) {
            release_locked();
            return;
        }
        cv_.wait(g, [&] { return generation_ != gen; });
    }
    void leave() {
        std::lock_guard<std::mutex> g(m_);
        --expected_;
        if (arrived_ > 0 && arrived_ >= expected_) release_locked();
    }

  private:
    void release_locked() {
        arrived_ = 0;
        ++generation_;
        cv_.notify_all();
    }
    std::mutex m_;
    std::condition_variable cv_;
    int expected_ = 0;
    int arrived_ = 0;
    unsigned long generation_ = 0;
};

struct LaunchState {
    int nthreads = 0;
    Barrier block_sync;                    // __syncthreads
    Barrier block_end;                     // all threads, between blocks (never left)
    std::vector<Barrier> warp_sync;        // one per warp
    std::vector<unsigned char> exchange;   // 32 lanes x 16 bytes per warp
    explicit LaunchState(int n) : nthreads(n), warp_sync((n + 31) / 32), exchange(((n + 31) / 32) * 32 * 16) {}
    int warp_size(int w) const { return nthreads - 32 * w < 32 ? nthreads - 32 * w : 32; }
    void reset_block() {
        block_sync.reset(nthreads);
        for (int w = 0; w < (int)warp_sync.size(); ++w) warp_sync[w].reset(warp_size(w));
    }
};

inline LaunchState* state = nullptr;
inline thread_local int linear_tid = 0;
inline std::mutex launch_mutex;

inline int lane() { return linear_tid & 31; }
inline int warp() { return linear_tid >> 5; }
inline unsigned char* slot(int w, int l) { return &state->exchange[(size_t(w) * 32 + l) * 16]; }

template <class T>
T exchange_read(T v, int src, bool valid) {
    static_assert(sizeof(T) <= 16 && std::is_trivially_copyable<T>::value, "shuffle of a type over 16 bytes");
    int w = warp(), l = lane();
    std::memcpy(slot(w, l), &v, sizeof(T));
    state->warp_sync[w].arrive_and_wait();
    T r = v;
    if (valid && src >= 0 && src < state->warp_size(w)) std::memcpy(&r, slot(w, src), sizeof(T));
    state->warp_sync[w].arrive_and_wait();
    return r;
}

template <class T>
T cas_update(T* address, T (*update)(T, T), T val) {
    T old = *address;
    T desired;
    do {
        desired = update(old, val);
    } while (!__atomic_compare_exchange(address, &old, &desired, false, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST));
    return old;
}

// ---- launching -------------------------------------------------------------------------------

template <class T>
std::string describe() {
    // "p<pointee size>" for a pointer, "s<size>" for a scalar passed by value
    if constexpr (std::is_pointer<T>::value) {
        using P = std::remove_cv_t<std::remove_pointer_t<T>>;
        if constexpr (std::is_void<P>::value) return "p0";
        else return "p" + std::to_string(sizeof(P));
    } else {
        return "s" + std::to_string(sizeof(T));
    }
}

template <class... A>
const char* signature(void (*)(A...)) {
    static const std::string text = [] {
        std::string s;
        ((s += describe<A>() + ","), ...);
        if (!s.empty()) s.pop_back();
        return s;
    }();
    return text.c_str();
}

template <class... A, std::size_t... I>
void call_with(void (*kernel)(A...), void** args, std::index_sequence<I...>) {
    kernel(*static_cast<std::remove_reference_t<A>*>(args[I])...);
}

// Runs kernel<<<grid, block>>>(args...). Returns 0, or a negative code for a bad configuration.
template <class... A>
int launch(void (*kernel)(A...), const unsigned* grid, const unsigned* block, void** args) {
    unsigned long long nthreads = 1ull * block[0] * block[1] * block[2];
    unsigned long long nblocks = 1ull * grid[0] * grid[1] * grid[2];
    if (nthreads == 0 || nthreads > 1024) return -1;
    if (nblocks == 0) return 0;
    std::lock_guard<std::mutex> guard(launch_mutex);
    LaunchState st((int)nthreads);
    state = &st;
    blockDim = dim3(block[0], block[1], block[2]);
    gridDim = dim3(grid[0], grid[1], grid[2]);
    st.block_end.reset((int)nthreads);
    st.reset_block();
    std::vector<std::thread> workers;
    workers.reserve(nthreads);
    for (unsigned long long t = 0; t < nthreads; ++t) {
        workers.emplace_back([&, t] {
            linear_tid = (int)t;
            threadIdx = dim3(unsigned(t % block[0]), unsigned(t / block[0] % block[1]), unsigned(t / (1ull * block[0] * block[1])));
            for (unsigned long long b = 0; b < nblocks; ++b) {
                blockIdx = dim3(unsigned(b % grid[0]), unsigned(b / grid[0] % grid[1]), unsigned(b / (1ull * grid[0] * grid[1])));
                call_with(kernel, args, std::index_sequence_for<A...>{});
                st.block_sync.leave();
                st.warp_sync[warp()].leave();
                st.block_end.arrive_and_wait();
                if (t == 0) st.reset_block();
                st.block_end.arrive_and_wait();
            }
        });
    }
    for (auto& w : workers) w.join();
    state = nullptr;
    return 0;
}

}  // namespace sparray_emu

// ---- CUDA built-ins ----------------------------------------------------------------------------

inline void __syncthreads() { sparray_emu::state->block_sync.arrive_and_wait(); }
inline void __syncwarp(unsigned = 0xffffffffu) { sparray_emu::state->warp_sync[sparray_emu::warp()].arrive_and_wait(); }
inline void __threadfence() { std::atomic_thread_fence(std::memory_order_seq_cst); }
inline void __threadfence_block() { std::atomic_thread_fence(std::memory_order_seq_cst); }

template <class T>
T __shfl_sync(unsigned, T v, int src, int width = 32) {
    int l = sparray_emu::lane();
    return sparray_emu::exchange_read(v, (l / width) * width + (src % width), true);
}
template <class T>
T __shfl_down_sync(unsigned, T v, unsigned delta, int width = 32) {
    int l = sparray_emu::lane();
    return sparray_emu::exchange_read(v, l + int(delta), (l % width) + int(delta) < width);
}
template <class T>
T __shfl_up_sync(unsigned, T v, unsigned delta, int width = 32) {
    int l = sparray_emu::lane();
    return sparray_emu::exchange_read(v, l - int(delta), (l % width) >= int(delta));
}
template <class T>
T __shfl_xor_sync(unsigned, T v, int mask, int width = 32) {
    int l = sparray_emu::lane();
    int src = l ^ mask;
    return sparray_emu::exchange_read(v, src, (src / width) == (l / width));
}
inline unsigned __ballot_sync(unsigned, int pred) {
    using namespace sparray_emu;
    int w = warp();
    unsigned r = 0;
    int n = state->warp_size(w);
    // each lane publishes its predicate, then every lane reads all of them
    unsigned char mine = pred ? 1 : 0;
    std::memcpy(slot(w, lane()), &mine, 1);
    state->warp_sync[w].arrive_and_wait();
    for (int l = 0; l < n; ++l) r |= unsigned(*slot(w, l) != 0) << l;
    state->warp_sync[w].arrive_and_wait();
    return r;
}
inline int __any_sync(unsigned m, int pred) { return __ballot_sync(m, pred) != 0; }
inline int __all_sync(unsigned m, int pred) {
    int n = sparray_emu::state->warp_size(sparray_emu::warp());
    unsigned full = n == 32 ? 0xffffffffu : ((1u << n) - 1u);
    return __ballot_sync(m, pred) == full;
}
inline int __popc(unsigned x) { return __builtin_popcount(x); }
inline int __popcll(unsigned long long x) { return __builtin_popcountll(x); }
inline int __ffs(int x) { return __builtin_ffs(x); }
inline int __clz(int x) { return x == 0 ? 32 : __builtin_clz((unsigned)x); }
inline int __clzll(long long x) { return x == 0 ? 64 : __builtin_clzll((unsigned long long)x); }

template <class T>
T atomicAdd(T* address, T val) {
    if constexpr (std::is_integral<T>::value) return __atomic_fetch_add(address, val, __ATOMIC_SEQ_CST);
    else return sparray_emu::cas_update<T>(address, [](T a, T b) { return a + b; }, val);
}
template <class T>
T atomicSub(T* address, T val) { return __atomic_fetch_sub(address, val, __ATOMIC_SEQ_CST); }
template <class T>
T atomicMax(T* address, T val) { return sparray_emu::cas_update<T>(address, [](T a, T b) { return a < b ? b : a; }, val); }
template <class T>
T atomicMin(T* address, T val) { return sparray_emu::cas_update<T>(address, [](T a, T b) { return b < a ? b : a; }, val); }
template <class T>
T atomicOr(T* address, T val) { return __atomic_fetch_or(address, val, __ATOMIC_SEQ_CST); }
template <class T>
T atomicAnd(T* address, T val) { return __atomic_fetch_and(address, val, __ATOMIC_SEQ_CST); }
template <class T>
T atomicExch(T* address, T val) {
    T old;
    __atomic_exchange(address, &val, &old, __ATOMIC_SEQ_CST);
    return old;
}
template <class T>
T atomicCAS(T* address, T compare, T val) {
    __atomic_compare_exchange(address, &compare, &val, false, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);
    return compare;  // the old value, whether or not the swap happened
}

// float16 conversions and mma.sp (semi_structured.cu's inline PTX) as host code
#include "_emulate_mma.h"
