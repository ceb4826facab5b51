// Pattern merging for element-wise operations: where each candidate key sits in each operand, and
// the gather of one operand's rows onto the merged pattern. Mirrors kernels/cpu/merge.py; the
// candidate keys (sorted, unique) come from CuPy/NumPy primitives in merge.py.
#include "_merge.cuh"

// positions[i * ncand + j]: the index within operand i (keys[offsets[i] .. offsets[i + 1])) of
// cand[j], or -1 where the operand lacks it. One thread per (operand, candidate); the search is
// bounded by the operand's range (offsets are checked by the launcher: 0 = offsets[0] <= ... <=
// offsets[k] = len(keys)).
__global__ void locate_keys(const long long* keys, const long long* offsets, long long k, const long long* cand,
                            long long ncand, long long* positions) {
    long long total = k * ncand;
    for (long long t = sp_thread_id(); t < total; t += sp_thread_count()) {
        long long i = t / ncand, j = t - i * ncand;
        long long lo = offsets[i], hi = offsets[i + 1];
        long long key = cand[j];
        long long p = sp_lower_bound(keys, lo, hi, key);
        positions[t] = (p < hi && keys[p] == key) ? p - lo : -1;
    }
}

// out[j, q] = values[positions[j], q], or fill[q] where positions[j] is not in [0, nse). W is an
// unsigned word of the values' item size (the kernel only moves bits). *nbad counts the positions
// outside {-1} U [0, nse) (column 0 counts; with m == 0 each position is still checked); such a
// position is never used as an address.
template <class W>
__global__ void gather_fill(const W* values, long long nse, long long m, const long long* positions, long long n,
                            const W* fill, W* out, unsigned long long* nbad) {
    long long w = m > 0 ? m : 1;
    long long total = n * w;
    for (long long t = sp_thread_id(); t < total; t += sp_thread_count()) {
        long long j = t / w, q = t - j * w;
        long long p = positions[j];
        bool inside = p >= 0 && p < nse;
        if (q == 0 && !inside && p != -1) atomicAdd(nbad, 1ull);
        if (q < m) out[j * m + q] = inside ? values[p * m + q] : fill[q];
    }
}
