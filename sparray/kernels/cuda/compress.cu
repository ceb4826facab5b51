// Compressed (CSR/CSC/BSR-style) layouts: building, expanding, transposing and densifying them.
// Mirrors kernels/cpu/compress.py; compress.py composes these kernels with CuPy's primitives
// (stable radix argsort, flatnonzero) and holds the contract.
//
// Every kernel is a grid-stride loop over independent work items and is memory-safe on ANY
// input: an index is used as an address only after it was range-checked in the same thread, and
// a bad one is recorded instead (count with atomicAdd, first position with atomicMin on
// unsigned long long cells the launcher initialises). Binary searches only read inside their
// array, so a kernel may run on offsets whose validation has not been read back yet.
//
// Types: K / I / J are the index types of inputs (int, long long), O the index type of outputs;
// W is a word type (unsigned char ... sp_word16) for kernels that only move values, T a value
// type (float, double, sp_complex<...>) or word type for comparisons.
#include "_common.cuh"

// first position p in [0, n) with a[p] >= x (n if none): a must be sorted for the answer to be
// meaningful, but any a is read only inside [0, n)
template <class K>
__device__ inline long long sp_lower_bound(const K* a, long long n, long long x) {
    long long lo = 0, hi = n;
    while (lo < hi) {
        long long mid = lo + (hi - lo) / 2;
        if ((long long)a[mid] < x) lo = mid + 1;
        else hi = mid;
    }
    return lo;
}

// the row g in [0, nrows) holding entry k: the largest g with offsets[g] <= k (nrows >= 1; reads
// offsets[0, nrows) only). With valid offsets, offsets[g] <= k < offsets[g + 1].
__device__ inline long long sp_row_of(const long long* offsets, long long nrows, long long k) {
    long long lo = 0, hi = nrows - 1;
    while (lo < hi) {
        long long mid = lo + (hi - lo + 1) / 2;
        if (offsets[mid] <= k) lo = mid;
        else hi = mid - 1;
    }
    return lo;
}

__device__ inline void sp_record_bad(unsigned long long* stats, long long k) {
    atomicAdd(&stats[0], 1ull);
    atomicMin(&stats[1], (unsigned long long)k);
}

// ---- compress_offsets / expand_offsets ---------------------------------------------------------

// first_bad[0] = min over the positions i whose key is outside [0, nbuckets) or smaller than
// keys[i - 1] (left alone when there is none; the launcher initialises it to n).
template <class K>
__global__ void check_keys(const K* keys, long long n, long long nbuckets, unsigned long long* first_bad) {
    for (long long i = sp_thread_id(); i < n; i += sp_thread_count()) {
        long long k = (long long)keys[i];
        if (k < 0 || k >= nbuckets || (i > 0 && k < (long long)keys[i - 1])) atomicMin(&first_bad[0], (unsigned long long)i);
    }
}

// out[b] = first position p with keys[p] >= b * step, for b in [0, nout): bucket offsets of
// sorted keys (step 1), or row offsets of sorted flat positions (step = row length).
template <class K, class O>
__global__ void bucket_starts(const K* keys, long long n, long long step, long long nout, O* out) {
    for (long long b = sp_thread_id(); b < nout; b += sp_thread_count()) {
        out[b] = (O)sp_lower_bound(keys, n, b * step);
    }
}

// first_bad[0] = min of: 0 if offsets[0] != 0; i if offsets[i] < offsets[i - 1]; n if total >= 0
// and offsets[n - 1] != total (left alone when valid; the launcher initialises it to n + 1).
__global__ void check_offsets(const long long* offsets, long long n, long long total, unsigned long long* first_bad) {
    for (long long i = sp_thread_id(); i < n; i += sp_thread_count()) {
        if (i == 0 ? offsets[0] != 0 : offsets[i] < offsets[i - 1]) atomicMin(&first_bad[0], (unsigned long long)i);
        if (i == n - 1 && total >= 0 && offsets[i] != total) atomicMin(&first_bad[0], (unsigned long long)n);
    }
}

// rows[k] = the row of entry k, for k in [0, nnz) (nrows >= 1): one binary search per entry, so
// a single huge row is spread over every thread.
template <class O>
__global__ void expand_rows(const long long* offsets, long long nrows, long long nnz, O* rows) {
    for (long long k = sp_thread_id(); k < nnz; k += sp_thread_count()) {
        rows[k] = (O)sp_row_of(offsets, nrows, k);
    }
}

// ---- transpose_compressed ----------------------------------------------------------------------

// Entry k of row g = b * nmajor + r (nrows >= 1, so nmajor >= 1): bucket[k] = b * nminor + minor[k]
// (its row in the transpose), major[k] = r (its minor index there). A minor index outside
// [0, nminor) is recorded in stats (count, first entry) and gets bucket 0.
template <class I, class O>
__global__ void transpose_keys(const long long* offsets, long long nrows, long long nmajor, long long nminor,
                               const I* minor, long long nnz, long long* bucket, O* major, unsigned long long* stats) {
    for (long long k = sp_thread_id(); k < nnz; k += sp_thread_count()) {
        long long g = sp_row_of(offsets, nrows, k);
        long long b = g / nmajor;
        long long c = (long long)minor[k];
        major[k] = (O)(g - b * nmajor);
        if ((unsigned long long)c >= (unsigned long long)nminor) {
            sp_record_bad(stats, k);
            bucket[k] = 0;
        } else {
            bucket[k] = b * nminor + c;
        }
    }
}

// dst row i = src row perm[i] (rows of w words), for i in [0, n): perm is a permutation or a
// sorted subset of [0, rows of src) the launcher made. One thread per word.
template <class W>
__global__ void gather_rows(const long long* perm, long long n, const W* src, long long w, W* dst) {
    long long total = n * w;
    for (long long t = sp_thread_id(); t < total; t += sp_thread_count()) {
        long long i = t / w, q = t - i * w;
        dst[t] = src[perm[i] * w + q];
    }
}

// ---- dense_to_compressed -----------------------------------------------------------------------

// flags[p] = 1 when some of the m words of position p is not "the same" as fill[t]: words are
// compared as bits (floats arrive as the words of their real parts, so bit equality is "same
// value, same sign of zero"); where fnan[t] (fill[t] is a NaN) any NaN word is the same. A float
// word v is a NaN when (v & nan_mask) > inf_bits (the launcher passes both for the word's width).
template <class W>
__global__ void specified_flags(const W* dense, long long npos, long long m, const W* fill,
                                const unsigned char* fnan, W nan_mask, W inf_bits, unsigned char* flags) {
    for (long long p = sp_thread_id(); p < npos; p += sp_thread_count()) {
        unsigned char s = 0;
        for (long long t = 0; t < m && !s; ++t) {
            W v = dense[p * m + t];
            s = fnan[t] ? ((v & nan_mask) <= inf_bits) : (v != fill[t]);
        }
        flags[p] = s;
    }
}

// ---- compressed_to_dense / scatter_blocks ------------------------------------------------------

// out word t = fill[t % w] for t in [0, nrows * w)
template <class W>
__global__ void fill_rows(W* out, long long nrows, long long w, const W* fill) {
    long long total = nrows * w;
    for (long long t = sp_thread_id(); t < total; t += sp_thread_count()) out[t] = fill[t % w];
}

// Entry k of row g (nrows >= 1): dest[k] = g * nminor + minor[k], its dense position, or -1 with
// the entry recorded in stats[0..1] when minor[k] is outside [0, nminor). stats[2] = 1 when some
// row's minor indices are not strictly increasing (a position may repeat: the later entry must win).
template <class I>
__global__ void entry_dest(const long long* offsets, long long nrows, const I* minor, long long nnz, long long nminor,
                           long long* dest, unsigned long long* stats) {
    for (long long k = sp_thread_id(); k < nnz; k += sp_thread_count()) {
        long long g = sp_row_of(offsets, nrows, k);
        long long c = (long long)minor[k];
        if ((unsigned long long)c >= (unsigned long long)nminor) {
            sp_record_bad(stats, k);
            dest[k] = -1;
        } else {
            dest[k] = g * nminor + c;
        }
        if (k + 1 < nnz && k + 1 < offsets[g + 1] && (long long)minor[k + 1] <= c) atomicMax(&stats[2], 1ull);
    }
}

// dest[k] = block_ids[k] * nslots + slots[k], or -1 with the entry recorded in stats when either
// is out of range.
template <class I, class J>
__global__ void block_dest(const I* block_ids, const J* slots, long long n, long long nblocks, long long nslots,
                           long long* dest, unsigned long long* stats) {
    for (long long k = sp_thread_id(); k < n; k += sp_thread_count()) {
        long long b = (long long)block_ids[k], s = (long long)slots[k];
        if ((unsigned long long)b >= (unsigned long long)nblocks || (unsigned long long)s >= (unsigned long long)nslots) {
            sp_record_bad(stats, k);
            dest[k] = -1;
        } else {
            dest[k] = b * nslots + s;
        }
    }
}

// out row dest[k] = src row k (w words) for every k with dest[k] >= 0 (in range by construction).
// Repeated destinations: some entry wins, word by word.
template <class W>
__global__ void scatter_rows(const long long* dest, long long n, const W* src, long long w, W* out) {
    long long total = n * w;
    for (long long t = sp_thread_id(); t < total; t += sp_thread_count()) {
        long long k = t / w, q = t - k * w;
        long long d = dest[k];
        if (d >= 0) out[d * w + q] = src[k * w + q];
    }
}

// The same through a stable sort: sdest = dest[perm] non-decreasing; only the last entry of each
// run of equal destinations (the latest in input order) is written, so the later entry wins.
template <class W>
__global__ void scatter_last(const long long* perm, const long long* sdest, long long n, const W* src, long long w, W* out) {
    long long total = n * w;
    for (long long t = sp_thread_id(); t < total; t += sp_thread_count()) {
        long long i = t / w, q = t - i * w;
        long long d = sdest[i];
        if (d >= 0 && (i + 1 == n || sdest[i + 1] != d)) out[d * w + q] = src[perm[i] * w + q];
    }
}
