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

// ---- CSR SpMV by the merge path (Merrill & Garland, SC'16) ----------------------------------------
//
// The merge of the row ends crow[1..M] with the entry indices 0..nse-1 is a path of M + nse items
// (an item is an entry, added to the running sum, or a row end, which finishes the row). The path
// is cut into equal diagonals, so a row of a million entries and a run of a million empty rows
// cost the same as any other million items. Three kernels:
//
// - csr_merge_search: the row coordinate of every tile start (a tile: 32 lanes x ipt items, one
//   warp's work), a binary search of the path per tile boundary. It depends on crow only, so the
//   launcher keeps it per pointer array.
// - csr_merge_mv: a warp per tile. The warp stages its tile (the products vals[j] * x[col[j]] of
//   its entries and its row ends, coalesced reads) in shared memory; each lane finds its diagonal
//   in the tile (a binary search in shared memory) and walks ipt items, writing every row it
//   finishes but the first straight into y (every row of y is written: y needs no zeroing). A
//   segmented scan over the lanes (shuffles, a fixed tree) adds the earlier lanes' part of the
//   lane's first row to it; the tile's carry-out (its last row, that row's sum within the tile)
//   goes to ckey / cval.
// - csr_merge_fix: adds the carries into y, a warp per tile of 32 x ipt carries in the same way
//   (a run of carries of one row is summed in registers and by a segmented scan, a finished run is
//   added to y by the one lane that finishes it, the tile's last run carried out to the next
//   level). The launcher runs levels until one carry is left (it always has row M: nothing).
//
// No atomics: every element of y is written by one lane per launch, and every sum's order is fixed
// by ipt and the data alone (not by the grid or block size), so results are bitwise repeatable.
// Safety without trusting crow: every search and walk stays inside its tile's box, which stays
// inside [0, M] x [0, nse]. Pointers are checked where a row is finished (sp_row_ok); each lane's
// walk must end where the next lane's starts and the tile's last lane where the tile ends. If no
// check fires, the walks join into one path from (0, 0) to (M, nse) that finished every row once,
// each with good pointers: crow is valid. Columns are checked as they are staged.

#define SP_MP_WARPS 8    // warps per block that take tiles (the shared memory is sized for 8)
#define SP_MP_IPT_MAX 7  // items per lane the shared memory holds

template <class T>
__device__ inline T sp_mp_up(T v, unsigned delta) { return __shfl_up_sync(0xffffffffu, v, delta); }
template <class T>
__device__ inline sp_complex<T> sp_mp_up(sp_complex<T> v, unsigned delta) {
    return {sp_mp_up(v.re, delta), sp_mp_up(v.im, delta)};
}

// The number of row ends among the first d items of the merge of ends[0 .. nrows) with the entry
// indices base, base + 1, ..., base + nent - 1 (a row end e goes before entry j when e <= j).
// Reads ends[0 .. nrows) only; the result lies in [max(0, d - nent), min(d, nrows)].
template <class E>
__device__ inline long long sp_mp_search(const E* ends, long long nrows, long long nent, long long base, long long d) {
    long long lo = d - nent > 0 ? d - nent : 0, hi = d < nrows ? d : nrows;
    while (lo < hi) {
        long long mid = lo + ((hi - lo) >> 1);
        if ((long long)ends[mid] <= base + d - mid - 1) lo = mid + 1;
        else hi = mid;
    }
    return lo;
}

// The inclusive sum over the warp of v, restarted at every lane with head (Hillis-Steele: a fixed
// order of additions, earlier lanes on the left).
template <class A>
__device__ inline A sp_mp_segscan(A v, bool head) {
    int lane = threadIdx.x & 31, f = head ? 1 : 0;
    for (int off = 1; off < 32; off <<= 1) {
        A pv = sp_mp_up(v, off);
        int pf = sp_mp_up(f, off);
        if (lane >= off) {
            if (!f) v = pv + v;
            f |= pf;
        }
    }
    return v;
}

// y[k] += s for a row k of y (others are skipped), flagging a non-finite result: once a partial
// sum is inf or NaN the row's total is too, so each write's value may decide the flag.
template <class T, class A>
__device__ inline void sp_mp_add(T* y, long long M, long long k, A s, unsigned long long& flags) {
    if (k < 0 || k >= M) return;
    T v = (T)((A)y[k] + s);
    y[k] = v;
    if (!sp_isfinite(v)) flags |= SP_NONFINITE;
}

// part[w] (w = 0 .. ntiles): the rows finished before diagonal min(w * tile, M + nse).
template <class I>
__global__ void csr_merge_search(const I* crow, long long M, long long nse, long long tile, long long ntiles,
                                 long long* part) {
    long long total = M + nse;
    for (long long w = sp_thread_id(); w <= ntiles; w += sp_thread_count()) {
        long long d = w * tile < total ? w * tile : total;
        part[w] = sp_mp_search(crow + 1, M, nse, 0, d);
    }
}

// y (M,) = A @ x by tiles of 32 * ipt merge items (ipt in 1 .. SP_MP_IPT_MAX), one warp each; tile
// w's carry-out to ckey[w], cval[w] (see above). part comes from csr_merge_search.
template <class I, class T>
__global__ void csr_merge_mv(const I* crow, const I* col, const T* vals, const T* x, long long M, long long K,
                             long long nse, long long ipt, const long long* part, T* y, long long* ckey,
                             typename sp_acc<T>::type* cval, long long* stats) {
    typedef typename sp_acc<T>::type A;
    __shared__ A s_prod[SP_MP_WARPS][32 * SP_MP_IPT_MAX];
    __shared__ long long s_end[SP_MP_WARPS][32 * SP_MP_IPT_MAX];
    long long wpb = (long long)(blockDim.x >> 5) < SP_MP_WARPS ? (long long)(blockDim.x >> 5) : SP_MP_WARPS;
    int wib = threadIdx.x >> 5, lane = threadIdx.x & 31;
    if (wib >= wpb || ipt < 1 || ipt > SP_MP_IPT_MAX) return;
    A* prod = s_prod[wib];
    long long* ends = s_end[wib];
    unsigned long long flags = 0;
    long long tile = 32 * ipt, total = M + nse, ntiles = (total + tile - 1) / tile;
    for (long long w = blockIdx.x * wpb + wib; w < ntiles; w += gridDim.x * wpb) {
        long long d0 = w * tile, d1 = d0 + tile < total ? d0 + tile : total;
        long long i0 = part[w], i1 = part[w + 1], j0 = d0 - i0, j1 = d1 - i1;
        if (!(i0 >= 0 && i0 <= i1 && i1 <= M && j0 >= 0 && j0 <= j1 && j1 <= nse)) {  // crow not monotone
            flags |= SP_BAD_POINTER;
            if (lane == 31) ckey[w] = M;
            continue;
        }
        long long nrows = i1 - i0, nent = j1 - j0, n = nrows + nent;  // n <= tile
        __syncwarp();  // the lanes are done with the previous tile's shared arrays
        for (long long k = lane; k < nrows; k += 32) ends[k] = (long long)crow[i0 + 1 + k];
        for (long long k = lane; k < nent; k += 32) {
            long long c = (long long)col[j0 + k];
            A p = A();
            if (c < 0 || c >= K) flags |= SP_BAD_INDEX;
            else p = (A)vals[j0 + k] * (A)x[c];
            prod[k] = p;
        }
        __syncwarp();
        long long a0 = lane * ipt < n ? lane * ipt : n, a1 = a0 + ipt < n ? a0 + ipt : n;
        long long r = sp_mp_search(ends, nrows, nent, j0, a0), e = a0 - r;  // local row and entry
        long long r_start = r, e_start = e, first_row = -1;
        A acc = A(), first = A();
        bool has_first = false;
        for (long long s = a0; s < a1; ++s) {
            if (r < nrows && (e >= nent || ends[r] <= j0 + e)) {  // row i0 + r ends here
                long long row = i0 + r, lo = r == 0 ? (long long)crow[i0] : ends[r - 1];
                if (!sp_row_ok(row, lo, ends[r], M, nse)) flags |= SP_BAD_POINTER;
                if (!has_first) {
                    has_first = true;
                    first_row = row;
                    first = acc;
                } else {
                    T v = (T)acc;
                    y[row] = v;
                    if (!sp_isfinite(v)) flags |= SP_NONFINITE;
                }
                acc = A();
                ++r;
            } else if (e < nent) {
                acc = acc + prod[e];
                ++e;
            }
        }
        long long pr = sp_mp_up(r, 1), pe = sp_mp_up(e, 1);
        if ((lane > 0 && (pr != r_start || pe != e_start)) || (lane == 31 && (r != nrows || e != nent)))
            flags |= SP_BAD_POINTER;  // the walks do not join: crow is not monotone
        A run = sp_mp_segscan(acc, has_first);
        A before = sp_mp_up(run, 1);
        if (has_first) {
            if (lane > 0) first = before + first;
            T v = (T)first;
            y[first_row] = v;
            if (!sp_isfinite(v)) flags |= SP_NONFINITE;
        }
        if (lane == 31) {
            ckey[w] = i0 + r;
            cval[w] = run;
        }
    }
    sp_flag(stats, flags);
}

// One level of the fix-up: the n carries (kin, vin), rows in order, by tiles of 32 * ipt, one warp
// each: every run of one row that ends inside a tile is added to y by the lane where it ends (the
// earlier lanes' part of it by the segmented scan); the tile's last run goes to kout[w], vout[w]
// (a run ending exactly at the tile's end carries (next row, 0)). Rows outside [0, M) are skipped.
template <class T>
__global__ void csr_merge_fix(const long long* kin, const typename sp_acc<T>::type* vin, long long n, long long M,
                              long long ipt, T* y, long long* kout, typename sp_acc<T>::type* vout, long long* stats) {
    typedef typename sp_acc<T>::type A;
    int lane = threadIdx.x & 31;
    unsigned long long flags = 0;
    long long tile = 32 * (ipt > 0 ? ipt : 1), ntiles = (n + tile - 1) / tile;
    for (long long w = sp_thread_id() >> 5; w < ntiles; w += sp_thread_count() >> 5) {
        long long b = w * tile + lane * (tile >> 5), b1 = b + (tile >> 5) < n ? b + (tile >> 5) : n;
        long long key = b < n ? kin[b] : M, first_key = -1;
        A acc = A(), first = A();
        bool has_first = false;
        for (long long e = b; e < b1; ++e) {
            acc = acc + vin[e];
            long long next = e + 1 < n ? kin[e + 1] : M;
            if (next != key) {
                if (!has_first) {
                    has_first = true;
                    first_key = key;
                    first = acc;
                } else {
                    sp_mp_add(y, M, key, acc, flags);
                }
                acc = A();
                key = next;
            }
        }
        A run = sp_mp_segscan(acc, has_first);
        A before = sp_mp_up(run, 1);
        if (has_first) {
            if (lane > 0) first = before + first;
            sp_mp_add(y, M, first_key, first, flags);
        }
        if (lane == 31) {
            kout[w] = key;
            vout[w] = run;
        }
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
