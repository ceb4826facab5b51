// Sampled dense-dense product on a CSR pattern: out[e] = sum_k a[r, k] * bt[col[e], k] for the row r
// of entry e. Mirrors kernels/cpu/sddmm.py. a (R, K) and bt (C, K) row-major.
#include "_checks.cuh"
#include "_merge.cuh"

// One group of `lanes` lanes per entry (a power of two, 1 to 32, from K): the lanes stride over k and
// a shuffle tree adds their parts. The warp walks its entries in step (a loop bound of its own), so
// every lane reaches every shuffle. The entry's row is a binary search in crow (checked by
// check_offsets, launched before; the search stays in [0, R) whatever crow holds); its column is
// checked here (SP_BAD_INDEX) and a bad one is never used as an address.
template <class I, class T>
__global__ void sddmm_entries(const I* crow, const I* col, const T* a, const T* bt, long long R, long long C,
                              long long K, long long nse, int lanes, T* out, long long* stats) {
    typedef typename sp_acc<T>::type A;
    long long warp = sp_thread_id() >> 5, nwarps = sp_thread_count() >> 5;
    int lane = threadIdx.x & 31, per = 32 / lanes, sub = lane & (lanes - 1);
    unsigned long long flags = 0;
    for (long long base = warp * per; base < nse; base += nwarps * per) {
        long long e = base + lane / lanes;
        bool live = e < nse;
        A acc = A();
        if (live) {
            long long r = sp_upper_bound(crow, 0, R + 1, e) - 1;
            r = r < 0 ? 0 : (r > R - 1 ? R - 1 : r);
            long long c = (long long)col[e];
            if (c < 0 || c >= C) {
                flags |= SP_BAD_INDEX;
                live = false;
            } else {
                const T* ar = a + r * K;
                const T* br = bt + c * K;
                for (long long k = sub; k < K; k += lanes) acc = acc + (A)ar[k] * (A)br[k];
            }
        }
        acc = sp_group_sum(acc, lanes);
        if (live && sub == 0) out[e] = (T)acc;
    }
    sp_flag(stats, flags);
}
