// Grouped reductions (sum/prod/max/min of value rows sharing a key): one pass for the key range and
// order, then the run heads and ordered segmented reduction of _segments.cuh through a stable sort.
// Mirrors kernels/cpu/group_reduce.py (its sorted and sort paths, bit for bit).
#include "_segments.cuh"
#include "_warp.cuh"

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

// out[r] = Op over values[ptr[r] : ptr[r + 1]] for each of the nseg runs of the pointers ptr (the
// rows of a CSR), a group of `lanes` lanes per run (a power of two, 1 to 32, from the mean run
// length), as csr_mv_rows walks a matrix: each lane folds every lanes-th entry, then a shuffle tree
// folds the lanes (`have` marks a lane that holds an entry, so max and min need no identity). The
// warp walks its runs in step, so every lane reaches every shuffle. An empty run, or one whose
// pointers are not in [0, n] and ordered, leaves out[r] as the launcher set it. Sums come in the
// tree's order, not left to right: the lean path's kernel (the general one is segment_reduce).
template <class Op, class I, class T>
__global__ void run_reduce(const I* ptr, long long nseg, long long n, const T* values, int lanes, T* out) {
    long long warp = sp_thread_id() >> 5, nwarps = sp_thread_count() >> 5;
    int lane = threadIdx.x & 31, per = 32 / lanes, sub = lane & (lanes - 1);
    for (long long base = warp * per; base < nseg; base += nwarps * per) {
        long long r = base + lane / lanes;
        long long lo = 0, hi = 0;
        if (r < nseg) {
            lo = (long long)ptr[r];
            hi = (long long)ptr[r + 1];
            if (lo < 0 || hi > n || lo > hi) lo = hi = 0;
        }
        T acc = T();
        int have = 0;
        for (long long k = lo + sub; k < hi; k += lanes) {
            acc = have ? Op::apply(acc, values[k]) : values[k];
            have = 1;
        }
        for (int off = lanes >> 1; off > 0; off >>= 1) {
            T other = sp_shfl_down(acc, off, lanes);
            int other_have = sp_shfl_down(have, off, lanes);
            if (other_have) acc = have ? Op::apply(acc, other) : other;
            have |= other_have;
        }
        if (r < nseg && sub == 0 && have) out[r] = acc;
    }
}
