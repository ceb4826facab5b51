// COO -> dense: each specified entry's value words are copied to its place in a dense array that
// arrives holding the fill. Mirrors kernels/cpu/dense.py. An index outside its dim is reported
// (the first such entry, through atomicMin) and never used as an address.
#include "_common.cuh"

// indices (ndim, nse) of type I; shape (ndim,) the sparse shape; values (nse, m) words; out
// (prod(shape), m) words. One thread per (entry e, word q); with m == 0 entries are still checked.
// *first_bad arrives as nse and leaves as the first entry with an index out of range, if any.
template <class I, class W>
__global__ void scatter_entries(const I* indices, long long ndim, long long nse, const long long* shape,
                                const W* values, long long m, W* out, long long* first_bad) {
    long long w = m > 0 ? m : 1;
    long long total = nse * w;
    for (long long t = sp_thread_id(); t < total; t += sp_thread_count()) {
        long long e = t / w, q = t - e * w;
        long long key = 0;
        bool ok = true;
        for (long long d = 0; d < ndim; ++d) {
            long long v = (long long)indices[d * nse + e];
            if (v < 0 || v >= shape[d]) {
                ok = false;
                break;
            }
            key = key * shape[d] + v;
        }
        if (!ok) {
            if (q == 0) atomicMin(first_bad, e);
            continue;
        }
        if (q < m) out[key * m + q] = values[e * m + q];
    }
}
