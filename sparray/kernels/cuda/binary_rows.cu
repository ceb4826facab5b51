// Fused merge-and-apply of two compressed arrays (CSR with CSR, CSC with CSC), row by row. Mirrors
// kernels/cpu/binary_rows.py. Only the search is row-specific: the slots and the writes are
// binary.cu's (merge_slots, scatter_index, apply_merged), since a row-major walk over (row, minor)
// pairs is a COO merge whose searches stay inside one row.
#include "_merge.cuh"

// minor: A's na plain indices, then B's nb; entry e is A's e (e < na) or B's e - na. For each entry
// of [first, first + count): lb[e] = the position within the other operand of the first plain
// index >= minor[e] in the other operand's same row, match[e] = 1 where that row holds minor[e].
// lb[e] also counts the other operand's entries in earlier rows, so it is the number of its
// (row, minor) pairs below entry e's, as binary.cu's slot formulas need. One thread per entry (a
// long row costs no more than many short ones); the row is a binary search over the entry's own
// compressed indices, the search in the other operand a binary search bounded by its row (clamped
// into the operand, so compressed indices that break the invariants are never read past).
template <class I>
__global__ void locate_in_rows(const I* ptr_a, const I* ptr_b, const I* minor, long long na, long long nb,
                               long long nrows, long long first, long long count, long long* lb, unsigned char* match) {
    for (long long t = sp_thread_id(); t < count; t += sp_thread_count()) {
        long long e = first + t;
        bool in_a = e < na;
        const I* own_ptr = in_a ? ptr_a : ptr_b;
        const I* other_ptr = in_a ? ptr_b : ptr_a;
        long long i = in_a ? e : e - na, base = in_a ? na : 0, n_other = in_a ? nb : na;
        long long r = sp_upper_bound(own_ptr, 0, nrows + 1, i) - 1;  // the last row starting at or before i
        if (r < 0 || r >= nrows) {
            lb[e] = 0;
            match[e] = 0;
            continue;
        }
        long long lo = other_ptr[r], hi = other_ptr[r + 1];
        lo = lo < 0 ? 0 : (lo > n_other ? n_other : lo);
        hi = hi < lo ? lo : (hi > n_other ? n_other : hi);
        long long key = minor[e];
        long long p = sp_lower_bound(minor, base + lo, base + hi, key);
        lb[e] = p - base;
        match[e] = (p < base + hi && (long long)minor[p] == key) ? 1 : 0;
    }
}
