// Products of a sparse matrix with a dense vector or matrix, y = A @ x, for CSR, BSR, CSC and BSC.
// Mirrors kernels/cpu/spmm.py. x is (K, N) row-major (N == 1 for a vector), y is (M, N).
//
// Every kernel reports into stats (int64[3], see _checks.cuh). No pointer or index is used as an
// address before it is checked; a bad one is flagged and skipped, and the launcher raises.
// Arithmetic is done in sp_acc<T> (integers wrap as in NumPy).
#include "_atomic.cuh"
#include "_merge.cuh"
#include "_checks.cuh"

// Whether row r's pointers lo = crow[r], hi = crow[r + 1] are usable: in [0, nse], not reversed,
// 0 for the first row and nse for the last one.
__device__ inline bool sp_row_ok(long long r, long long lo, long long hi, long long M, long long nse) {
    return lo >= 0 && lo <= hi && hi <= nse && (r != 0 || lo == 0) && (r != M - 1 || hi == nse);
}

// ---- CSR ---------------------------------------------------------------------------------------

// SpMV (N == 1): a group of `lanes` lanes per row (a power of two, 1 to 32, from the mean row
// length), each lane summing every lanes-th entry, then a shuffle tree. The warp walks its rows in
// step (the loop bound is the warp's), so every lane reaches every shuffle. Row pointers are
// checked as they are read.
template <class I, class T>
__global__ void csr_mv_rows(const I* crow, const I* col, const T* vals, const T* x, long long M, long long K,
                            long long nse, int lanes, T* y, long long* stats) {
    typedef typename sp_acc<T>::type A;
    long long warp = sp_thread_id() >> 5, nwarps = sp_thread_count() >> 5;
    int lane = threadIdx.x & 31, per = 32 / lanes, sub = lane & (lanes - 1);
    unsigned long long flags = 0;
    for (long long base = warp * per; base < M; base += nwarps * per) {
        long long r = base + lane / lanes;
        bool live = r < M;
        A acc = A();
        if (live) {
            long long lo = (long long)crow[r], hi = (long long)crow[r + 1];
            if (!sp_row_ok(r, lo, hi, M, nse)) {
                flags |= SP_BAD_POINTER;
                live = false;
            } else {
                for (long long k = lo + sub; k < hi; k += lanes) {
                    long long c = (long long)col[k];
                    if (c < 0 || c >= K) {
                        flags |= SP_BAD_INDEX;
                        continue;
                    }
                    acc = acc + (A)vals[k] * (A)x[c];
                }
            }
        }
        acc = sp_group_sum(acc, lanes);
        if (live && sub == 0) {
            T v = (T)acc;
            y[r] = v;
            if (!sp_isfinite(v)) flags |= SP_NONFINITE;
        }
    }
    sp_flag(stats, flags);
}

// SpMM (N > 1): one thread per (row, column j) of y, consecutive threads on consecutive columns, so
// the reads of a row of x are coalesced and a row's indices and values are shared (broadcast) reads.
template <class I, class T>
__global__ void csr_mm_rows(const I* crow, const I* col, const T* vals, const T* x, long long M, long long K,
                            long long N, long long nse, T* y, long long* stats) {
    typedef typename sp_acc<T>::type A;
    unsigned long long flags = 0;
    long long total = M * N;
    for (long long t = sp_thread_id(); t < total; t += sp_thread_count()) {
        long long r = t / N, j = t - r * N;
        long long lo = (long long)crow[r], hi = (long long)crow[r + 1];
        if (!sp_row_ok(r, lo, hi, M, nse)) {
            flags |= SP_BAD_POINTER;
            continue;
        }
        A acc = A();
        for (long long k = lo; k < hi; ++k) {
            long long c = (long long)col[k];
            if (c < 0 || c >= K) {
                flags |= SP_BAD_INDEX;
                continue;
            }
            acc = acc + (A)vals[k] * (A)x[c * N + j];
        }
        T v = (T)acc;
        y[t] = v;
        if (!sp_isfinite(v)) flags |= SP_NONFINITE;
    }
    sp_flag(stats, flags);
}

// Adds a row's partial sum to yacc: a plain store when the chunk holds the whole row (no other
// thread writes it), else an atomic add. The flag sees the value each write leaves: once a sum is
// inf or NaN it stays so, so the last write of a row decides, whichever it is.
template <class A>
__device__ inline void sp_flush(A* slot, A acc, bool whole, unsigned long long& flags) {
    A now;
    if (whole) {
        *slot = acc;
        now = acc;
    } else {
        now = sp_atomic_add(slot, acc) + acc;
    }
    if (!sp_isfinite(now)) flags |= SP_NONFINITE;
}

// Balanced by entries (rows of very different lengths): one thread per (chunk of `chunk` entries,
// column j). The chunk's first row is a binary search in crow; the thread walks its entries,
// flushing each row it finishes (sp_flush). yacc (M, N) arrives zeroed, so empty rows stay 0.
// The pointers are checked by check_offsets, launched before; here they only bound loops that are
// bounded anyway (entries by the chunk, rows by M), so bad pointers give wrong sums, never a bad
// address, and the launcher raises.
template <class I, class T>
__global__ void csr_split(const I* crow, const I* col, const T* vals, const T* x, long long M, long long K, long long N,
                          long long nse, long long chunk, typename sp_acc<T>::type* yacc, long long* stats) {
    typedef typename sp_acc<T>::type A;
    unsigned long long flags = 0;
    long long nchunks = (nse + chunk - 1) / chunk, total = nchunks * N;
    for (long long t = sp_thread_id(); t < total; t += sp_thread_count()) {
        long long ch = t / N, j = t - ch * N;
        long long k0 = ch * chunk, k1 = k0 + chunk < nse ? k0 + chunk : nse;
        long long r = sp_upper_bound(crow, 0, M + 1, k0) - 1;  // crow[r] <= k0 < crow[r + 1]
        r = r < 0 ? 0 : (r > M - 1 ? M - 1 : r);
        long long start = (long long)crow[r], end = (long long)crow[r + 1];
        A acc = A();
        for (long long k = k0; k < k1; ++k) {
            while (k >= end && r < M - 1) {
                sp_flush(&yacc[r * N + j], acc, start >= k0 && end <= k1, flags);
                acc = A();
                ++r;
                start = end;
                end = (long long)crow[r + 1];
            }
            long long c = (long long)col[k];
            if (c < 0 || c >= K) {
                flags |= SP_BAD_INDEX;
                continue;
            }
            acc = acc + (A)vals[k] * (A)x[c * N + j];
        }
        sp_flush(&yacc[r * N + j], acc, start >= k0 && end <= k1, flags);
    }
    sp_flag(stats, flags);
}

// ---- BSR ---------------------------------------------------------------------------------------

// One thread per (row p of block row i, column j) of y (MB * bh, N): it walks block row i and
// multiplies row p of each block (bw values, read into registers) with the bw rows of x under the
// block column. blocks is (nse, bh, bw) row-major.
template <class I, class T>
__global__ void bsr_rows(const I* crow, const I* col, const T* blocks, const T* x, long long MB, long long KB,
                         long long bh, long long bw, long long N, long long nse, T* y, long long* stats) {
    typedef typename sp_acc<T>::type A;
    unsigned long long flags = 0;
    long long total = MB * bh * N;
    for (long long t = sp_thread_id(); t < total; t += sp_thread_count()) {
        long long row = t / N, j = t - row * N;
        long long i = row / bh, p = row - i * bh;
        long long lo = (long long)crow[i], hi = (long long)crow[i + 1];
        if (!sp_row_ok(i, lo, hi, MB, nse)) {
            flags |= SP_BAD_POINTER;
            continue;
        }
        A acc = A();
        for (long long k = lo; k < hi; ++k) {
            long long c = (long long)col[k];
            if (c < 0 || c >= KB) {
                flags |= SP_BAD_INDEX;
                continue;
            }
            const T* b = blocks + (k * bh + p) * bw;
            const T* xs = x + c * bw * N + j;
            for (long long q = 0; q < bw; ++q) acc = acc + (A)b[q] * (A)xs[q * N];
        }
        T v = (T)acc;
        y[t] = v;
        if (!sp_isfinite(v)) flags |= SP_NONFINITE;
    }
    sp_flag(stats, flags);
}

// ---- CSC / BSC: scatter with atomics -----------------------------------------------------------

// One thread per (entry k, column j): the entry's column is a binary search in ccol (checked by
// check_offsets, launched before; the search stays in [0, K) whatever ccol holds), its row is
// checked, and v * x[c, j] is added to yacc[row, j] (zeroed).
template <class I, class T>
__global__ void csc_scatter(const I* ccol, const I* row, const T* vals, const T* x, long long M, long long K,
                            long long N, long long nse, typename sp_acc<T>::type* yacc, long long* stats) {
    typedef typename sp_acc<T>::type A;
    unsigned long long flags = 0;
    long long total = nse * N;
    for (long long t = sp_thread_id(); t < total; t += sp_thread_count()) {
        long long k = t / N, j = t - k * N;
        long long c = sp_upper_bound(ccol, 0, K + 1, k) - 1;
        c = c < 0 ? 0 : (c > K - 1 ? K - 1 : c);
        long long r = (long long)row[k];
        if (r < 0 || r >= M) {
            flags |= SP_BAD_INDEX;
            continue;
        }
        sp_atomic_add(&yacc[r * N + j], (A)vals[k] * (A)x[c * N + j]);
    }
    sp_flag(stats, flags);
}

// One thread per (block k, row p of the block, column j): block k's column by a binary search in
// ccol, its block row checked; row p of the block times x under the block column is added to
// yacc[row[k] * bh + p, j]. blocks (nse, bh, bw) row-major, each in the matrix's orientation.
template <class I, class T>
__global__ void bsc_scatter(const I* ccol, const I* row, const T* blocks, const T* x, long long MB, long long KB,
                            long long bh, long long bw, long long N, long long nse, typename sp_acc<T>::type* yacc,
                            long long* stats) {
    typedef typename sp_acc<T>::type A;
    unsigned long long flags = 0;
    long long total = nse * bh * N;
    for (long long t = sp_thread_id(); t < total; t += sp_thread_count()) {
        long long kp = t / N, j = t - kp * N;
        long long k = kp / bh, p = kp - k * bh;
        long long c = sp_upper_bound(ccol, 0, KB + 1, k) - 1;
        c = c < 0 ? 0 : (c > KB - 1 ? KB - 1 : c);
        long long r = (long long)row[k];
        if (r < 0 || r >= MB) {
            flags |= SP_BAD_INDEX;
            continue;
        }
        const T* b = blocks + (k * bh + p) * bw;
        const T* xs = x + c * bw * N + j;
        A acc = A();
        for (long long q = 0; q < bw; ++q) acc = acc + (A)b[q] * (A)xs[q * N];
        sp_atomic_add(&yacc[(r * bh + p) * N + j], acc);
    }
    sp_flag(stats, flags);
}

// The unread non-finite elements of x under a zero fill, without a wait for the host: y[i, j] of a
// finished product becomes NaN when column j of x holds a non-finite element in a column that row i
// does not store (0 * inf or 0 * nan of an unspecified element). colbad[j] counts column j's
// non-finite elements of x; a thread per (i, j) leaves at once when it is 0 (the common case: one
// read per thread), else counts row i's stored columns whose x is non-finite (rows hold distinct
// columns, checked at the array's construction). Pointers and columns out of range are skipped.
// `nan` comes from the host (no NaN constant is spelled the same in NVRTC and the host build).
template <class I, class T>
__global__ void csr_unread_nan(const I* crow, const I* col, const T* x, const unsigned long long* colbad, long long M,
                               long long K, long long N, long long nse, T nan, T* y) {
    long long total = M * N;
    for (long long t = sp_thread_id(); t < total; t += sp_thread_count()) {
        long long r = t / N, j = t - r * N;
        long long bad = (long long)colbad[j];
        if (bad == 0) continue;
        long long lo = (long long)crow[r], hi = (long long)crow[r + 1];
        if (!sp_row_ok(r, lo, hi, M, nse)) continue;
        long long seen = 0;
        for (long long k = lo; k < hi; ++k) {
            long long c = (long long)col[k];
            if (c >= 0 && c < K && !sp_isfinite(x[c * N + j])) ++seen;
        }
        if (bad > seen) y[t] = nan;
    }
}

// colbad[j] (arriving 0) counts the non-finite elements of column j of x (K, N) row-major: the
// input of csr_unread_nan. Non-finite elements are rare, and so are the atomic adds.
template <class T>
__global__ void count_nonfinite(const T* x, long long K, long long N, unsigned long long* colbad) {
    long long total = K * N;
    for (long long t = sp_thread_id(); t < total; t += sp_thread_count()) {
        if (!sp_isfinite(x[t])) atomicAdd(&colbad[t % N], 1ull);
    }
}
