// Sparse @ sparse, C = A @ B for CSR A (M x K) and B (K x ncols). Mirrors kernels/cpu/spgemm.py.
//
// Gustavson with an accumulator per row, in passes the launcher drives:
// 1. spgemm_work: each row's products (the sum of nnz(B[k, :]) over its entries k), checking A's
//    pointers and columns, and the size of the row's accumulator: a hash table of the next power of
//    two >= 2 * products (load factor <= 1/2), or, once that reaches ncols, a dense one of ncols
//    slots indexed by the column itself.
// 2. spgemm_insert: every product of a row goes into the row's table (keys: column or -1 for empty,
//    claimed with atomicCAS, linear probing); the symbolic pass only counts each row's distinct
//    columns, the numeric pass also adds the products into the values (atomics, in sp_acc<T>).
// 3. spgemm_gather: each row's occupied slots, in slot order, to the row's place in the output (so a
//    dense row comes out sorted); spgemm_order then writes each row sorted by column: dense rows as
//    they are, hashed rows by rank (each entry counts the smaller columns of its row) up to
//    `rank_max` entries; longer hashed rows are flagged and the launcher sorts them.
// Tables are in global memory (keys int64, values sp_acc<T>), one region per row at toff[i] - tbase.
#include "_atomic.cuh"
#include "_checks.cuh"
#include "_hash.cuh"

#define SPGEMM_BAD_A_CROW 1ull
#define SPGEMM_BAD_A_COL 2ull
#define SPGEMM_UNSORTED 16ull

// work[i] = the products of row i; tsize[i] = its table size (0 for no product). A's pointers must
// lie in [a0, aN] and not be reversed, A's columns in [0, K) (B's pointers were checked before this
// runs, by check_offsets); a bad one is flagged in stats[2] and contributes nothing.
template <class I>
__global__ void spgemm_work(const I* a_crow, const I* a_col, const I* b_crow, long long M, long long K, long long a0,
                            long long aN, long long ncols, long long* work, long long* tsize, long long* stats) {
    unsigned long long flags = 0;
    for (long long i = sp_thread_id(); i < M; i += sp_thread_count()) {
        long long lo = (long long)a_crow[i], hi = (long long)a_crow[i + 1], w = 0;
        if (lo < a0 || hi < lo || hi > aN) {
            flags |= SPGEMM_BAD_A_CROW;
        } else {
            for (long long p = lo; p < hi; ++p) {
                long long k = (long long)a_col[p];
                if (k < 0 || k >= K) flags |= SPGEMM_BAD_A_COL;
                else w += (long long)b_crow[k + 1] - (long long)b_crow[k];
            }
        }
        work[i] = w;
        long long size = w == 0 ? 0 : sp_pow2_at_least(2 * w);
        tsize[i] = size >= ncols ? ncols : size;
    }
    sp_flag(stats, flags);
}

// Inserts the products of rows [r0, r1) (one warp per row, its lanes over the entries of each B row
// the A row reaches). keys (-1 = empty) and tvals (zero) hold rows r0..r1-1 from toff[r0] = tbase.
// counts[i] gains one per new column. with_values: tvals also accumulate a[p] * b[q].
template <class I, class T>
__global__ void spgemm_insert(const I* a_crow, const I* a_col, const T* a_val, const I* b_crow, const I* b_col,
                              const T* b_val, long long r0, long long r1, long long ncols, const long long* toff,
                              long long* keys, typename sp_acc<T>::type* tvals, int with_values, long long* counts) {
    typedef typename sp_acc<T>::type A;
    long long warp = sp_thread_id() >> 5, nwarps = sp_thread_count() >> 5;
    int lane = threadIdx.x & 31;
    long long tbase = toff[r0];
    for (long long i = r0 + warp; i < r1; i += nwarps) {
        long long size = toff[i + 1] - toff[i];
        if (size == 0) continue;
        long long* rk = keys + (toff[i] - tbase);
        A* rv = tvals + (toff[i] - tbase);
        long long fresh = 0;
        for (long long p = (long long)a_crow[i]; p < (long long)a_crow[i + 1]; ++p) {
            long long k = (long long)a_col[p];
            A av = with_values ? (A)a_val[p] : A();
            for (long long q = (long long)b_crow[k] + lane; q < (long long)b_crow[k + 1]; q += 32) {
                long long j = (long long)b_col[q];
                long long s = sp_home(j, size, ncols);
                while (true) {
                    unsigned long long prev = atomicCAS(reinterpret_cast<unsigned long long*>(&rk[s]),
                                                        ~0ull, (unsigned long long)j);
                    if (prev == ~0ull) ++fresh;
                    if (prev == ~0ull || (long long)prev == j) break;
                    s = (s + 1) & (size - 1);  // only hash tables probe: their size is a power of two
                }
                if (with_values) sp_atomic_add(&rv[s], av * (A)b_val[q]);
            }
        }
        if (fresh) atomicAdd(reinterpret_cast<unsigned long long*>(&counts[i]), (unsigned long long)fresh);
    }
}

// Row i's occupied slots, in slot order, to tcol/tval at crow[i] (one warp per row: a ballot per 32
// slots gives each occupied slot its place). Values are cast from sp_acc<T> back to T.
template <class T, class J>
__global__ void spgemm_gather(long long r0, long long r1, const long long* toff, const long long* keys,
                              const typename sp_acc<T>::type* tvals, const long long* crow, J* tcol, T* tval) {
    long long warp = sp_thread_id() >> 5, nwarps = sp_thread_count() >> 5;
    int lane = threadIdx.x & 31;
    long long tbase = toff[r0];
    for (long long i = r0 + warp; i < r1; i += nwarps) {
        long long size = toff[i + 1] - toff[i], at = crow[i];
        const long long* rk = keys + (toff[i] - tbase);
        for (long long s0 = 0; s0 < size; s0 += 32) {
            long long s = s0 + lane;
            bool used = s < size && rk[s] >= 0;
            unsigned mask = __ballot_sync(0xffffffffu, used);
            if (used) {
                long long o = at + __popc(mask & ((1u << lane) - 1u));
                tcol[o] = (J)rk[s];
                tval[o] = (T)tvals[(toff[i] - tbase) + s];
            }
            at += __popc(mask);
        }
    }
}

// Row i of C, sorted by column, from tcol/tval to col/val (both at crow[i]). Dense tables gave
// sorted rows: copied. Hashed rows of at most rank_max entries: each entry goes to crow[i] + the
// number of smaller columns in its row (columns are unique within a row). Longer hashed rows are
// copied as they are and flagged (SPGEMM_UNSORTED) for the launcher's sort.
template <class T, class J>
__global__ void spgemm_order(long long r0, long long r1, const long long* toff, long long ncols, const long long* crow,
                             const J* tcol, const T* tval, long long rank_max, J* col, T* val, long long* stats) {
    long long warp = sp_thread_id() >> 5, nwarps = sp_thread_count() >> 5;
    int lane = threadIdx.x & 31;
    unsigned long long flags = 0;
    for (long long i = r0 + warp; i < r1; i += nwarps) {
        long long lo = crow[i], hi = crow[i + 1], n = hi - lo;
        bool hashed = toff[i + 1] - toff[i] != ncols;
        if (hashed && n > rank_max) flags |= SPGEMM_UNSORTED;
        for (long long e = lo + lane; e < hi; e += 32) {
            long long o = e;
            if (hashed && n <= rank_max) {
                J c = tcol[e];
                o = lo;
                for (long long f = lo; f < hi; ++f) o += tcol[f] < c ? 1 : 0;
            }
            col[o] = tcol[e];
            val[o] = tval[e];
        }
    }
    sp_flag(stats, flags);
}
