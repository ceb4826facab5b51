// Validity of a batched compressed encoding (cidx (nb, width), pidx (nb, nse)), parallel over
// pointers, then over entries. Mirrors kernels/cpu/validate.py. Each kernel adds its count of
// violations to *nbad; the encoding is valid when it stays 0.
#include "_common.cuh"

// Pointer i of batch b: in [0, nse], 0 first, nse last, not below the one before. A valid pointer
// that opens a non-empty row (the next one is larger) flags heads[b * nse + v]; v < nse then, so
// the flag is in bounds whatever the rest of cidx holds.
template <class C>
__global__ void check_pointers(const C* cidx, long long nb, long long width, long long nse, unsigned char* heads,
                               unsigned long long* nbad) {
    long long total = nb * width;
    unsigned long long bad = 0;
    for (long long t = sp_thread_id(); t < total; t += sp_thread_count()) {
        long long b = t / width, i = t - b * width;
        long long v = (long long)cidx[t];
        bool ok = v >= 0 && v <= nse && (i != 0 || v == 0) && (i != width - 1 || v == nse) &&
                  (i == 0 || (long long)cidx[t - 1] <= v);
        if (!ok) {
            ++bad;
        } else if (i < width - 1 && v < nse && (long long)cidx[t + 1] > v) {
            heads[b * nse + v] = 1;
        }
    }
    if (bad) atomicAdd(nbad, bad);
}

// Entry j of batch b: its plain index in [0, nminor) and, unless it opens a row, above the one
// before it. (Run after check_pointers; with valid pointers, entry 0 of every batch opens a row.)
template <class P>
__global__ void check_minor(const P* pidx, long long nb, long long nse, long long nminor, const unsigned char* heads,
                            unsigned long long* nbad) {
    long long total = nb * nse;
    unsigned long long bad = 0;
    for (long long t = sp_thread_id(); t < total; t += sp_thread_count()) {
        long long j = t % nse;
        long long v = (long long)pidx[t];
        if (v < 0 || v >= nminor || (!heads[t] && j > 0 && (long long)pidx[t - 1] >= v)) ++bad;
    }
    if (bad) atomicAdd(nbad, bad);
}
