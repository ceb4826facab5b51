// Parts of a compressed array: rows picked by index (take_*) and a range of minor indices (slice_*):
// lengths (with the checks), then the copy. Mirrors kernels/cpu/take.py. No offset is used as an
// address before it is checked.
#include "_common.cuh"
#include "_merge.cuh"

// lengths[r + 1] = the length of row rows[r] (lengths arrives zeroed, k + 1 long), after checking
// rows[r] in [0, nmajor) and offsets[g]:offsets[g + 1] inside [0, nnz] and not reversed.
// *first_bad arrives as k and leaves as the first failing r, if any.
template <class O>
__global__ void take_lengths(const O* offsets, long long nmajor, const long long* rows, long long k, long long nnz,
                             long long* lengths, long long* first_bad) {
    for (long long r = sp_thread_id(); r < k; r += sp_thread_count()) {
        long long g = rows[r];
        if (g < 0 || g >= nmajor) {
            atomicMin(first_bad, r);
            continue;
        }
        long long lo = (long long)offsets[g], hi = (long long)offsets[g + 1];
        if (lo < 0 || hi < lo || hi > nnz) {
            atomicMin(first_bad, r);
            continue;
        }
        lengths[r + 1] = hi - lo;
    }
}

// One thread per (output entry q, value word c); out_offsets (k + 1) the checked prefix sums.
// The output row of q is the last r with out_offsets[r] <= q (a binary search; empty rows share
// their offset with the next row, so the last such r is the non-empty one holding q). Word 0 also
// moves the minor index; with m == 0 only the minor indices move.
template <class O, class J, class W>
__global__ void take_copy(const O* offsets, const long long* rows, long long k, const long long* out_offsets,
                          long long total, const J* minor, const W* values, long long m, J* out_minor, W* out_values) {
    long long w = m > 0 ? m : 1;
    long long work = total * w;
    for (long long t = sp_thread_id(); t < work; t += sp_thread_count()) {
        long long q = t / w, c = t - q * w;
        long long lo = 0, hi = k - 1;
        while (lo < hi) {
            long long mid = lo + (hi - lo + 1) / 2;
            if (out_offsets[mid] <= q) lo = mid;
            else hi = mid - 1;
        }
        long long src = (long long)offsets[rows[lo]] + (q - out_offsets[lo]);
        if (c == 0) out_minor[q] = minor[src];
        if (c < m) out_values[q * m + c] = values[src * m + c];
    }
}

// slice_minor, first pass: one thread per row g. After checking offsets[g]:offsets[g + 1] inside
// [0, nnz] and not reversed, firsts[g] = the first entry of the row with minor >= start and
// lengths[g + 1] = the number of its entries in [start, stop) (two bounded binary searches: the
// row's minor indices are sorted). Both fit O: checked rows lie forward inside the entries.
// *first_bad arrives as nmajor and leaves as the first bad row.
template <class O, class J>
__global__ void slice_bounds(const O* offsets, long long nmajor, const J* minor, long long nnz, long long start,
                             long long stop, O* firsts, O* lengths, long long* first_bad) {
    for (long long g = sp_thread_id(); g < nmajor; g += sp_thread_count()) {
        long long lo = (long long)offsets[g], hi = (long long)offsets[g + 1];
        if (lo < 0 || hi < lo || hi > nnz) {
            atomicMin(first_bad, g);
            continue;
        }
        long long a = sp_lower_bound(minor, lo, hi, start);
        firsts[g] = (O)a;
        lengths[g + 1] = (O)(sp_lower_bound(minor, a, hi, stop) - a);
    }
}

// slice_minor, the copy: one thread per (output entry q, value word c), as take_copy; the output
// row of q by a binary search in out_offsets (nmajor + 1), its source entry firsts[row] + (q -
// out_offsets[row]); word 0 also moves the minor index, shifted by -start.
template <class O, class J, class W>
__global__ void slice_copy(const O* firsts, long long nmajor, const O* out_offsets, long long total,
                           const J* minor, long long start, const W* values, long long m, J* out_minor, W* out_values) {
    long long w = m > 0 ? m : 1;
    long long work = total * w;
    for (long long t = sp_thread_id(); t < work; t += sp_thread_count()) {
        long long q = t / w, c = t - q * w;
        long long lo = 0, hi = nmajor - 1;
        while (lo < hi) {
            long long mid = lo + (hi - lo + 1) / 2;
            if ((long long)out_offsets[mid] <= q) lo = mid;
            else hi = mid - 1;
        }
        long long src = (long long)firsts[lo] + (q - (long long)out_offsets[lo]);
        if (c == 0) out_minor[q] = (J)((long long)minor[src] - start);
        if (c < m) out_values[q * m + c] = values[src * m + c];
    }
}
