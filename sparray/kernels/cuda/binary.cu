// Fused merge-and-apply of two sorted, unique patterns (COO linear keys here; CSR/CSC rows reuse the
// writers below after binary_rows.cu's row-bounded search). Mirrors kernels/cpu/binary.py.
//
// Every entry finds its output slot on its own, without a serial merge: with lb[i] the number of the
// other operand's keys below entry i's key (a bounded binary search), match[i] whether the other
// operand holds the key, and eq the exclusive prefix sum of A's matches,
//   union, A's entry i:              slot i + lb[i] - eq[i]
//   union, B's entry j (unmatched):  slot j + lb[j] - eq[lb[j]]   (matched ones are A's entries)
//   intersection, A's entry i:       slot eq[i] if matched
//   left (A's entries) / right (B's): slot i.
// The two operands' entries form one range e in [0, na + nb) (A's first, then B's: entry e of B is
// j = e - na), so each step is one launch over the entries [first, first + count) the mode needs:
// both operands for union, A's for intersection and left, B's for right.
#include "_merge.cuh"

// Integer ops wrap as NumPy's do: computed in sp_acc<T> (_common.cuh), an unsigned type.

struct op_add {
    template <class T>
    __device__ static T apply(T x, T y) { typedef typename sp_acc<T>::type U; return (T)((U)x + (U)y); }
};
struct op_subtract {
    template <class T>
    __device__ static T apply(T x, T y) { typedef typename sp_acc<T>::type U; return (T)((U)x - (U)y); }
};
struct op_multiply {
    template <class T>
    __device__ static T apply(T x, T y) { typedef typename sp_acc<T>::type U; return (T)((U)x * (U)y); }
};
struct op_divide {  // floating point only (the launcher declines integer division)
    template <class T>
    __device__ static T apply(T x, T y) { return x / y; }
};
// maximum / minimum: sp_max / sp_min of _common.cuh (NaN propagates; on a tie the first operand).

// keys[e] = sum over d of idx[d, e] * strides[d]: row-major linear keys of an (s, n) index array.
template <class I>
__global__ void linear_keys(const I* idx, long long s, long long n, const long long* strides, long long* keys) {
    for (long long e = sp_thread_id(); e < n; e += sp_thread_count()) {
        unsigned long long k = 0;
        for (long long d = 0; d < s; ++d) k += (unsigned long long)(long long)idx[d * n + e] * (unsigned long long)strides[d];
        keys[e] = (long long)k;
    }
}

// keys: A's na sorted keys, then B's nb. For each entry e: lb[e] = the number of the other
// operand's keys below keys[e] (a binary search over the other operand's range only), match[e] = 1
// where the other operand holds keys[e].
__global__ void locate_sorted(const long long* keys, long long na, long long nb, long long first, long long count,
                              long long* lb, unsigned char* match) {
    for (long long t = sp_thread_id(); t < count; t += sp_thread_count()) {
        long long e = first + t;
        long long lo = e < na ? na : 0, hi = e < na ? na + nb : na;
        long long key = keys[e];
        long long p = sp_lower_bound(keys, lo, hi, key);
        lb[e] = p - lo;
        match[e] = (p < hi && keys[p] == key) ? 1 : 0;
    }
}

// slot[e] per the rules above (mode 0 union, 1 intersection, 2 left, 3 right; -1: no output).
// eq holds na + 1 prefix sums; on B's side lb[e] <= na, so eq[lb[e]] is in range.
__global__ void merge_slots(long long na, long long first, long long count, const long long* lb,
                            const unsigned char* match, const long long* eq, int mode, long long* slot) {
    for (long long t = sp_thread_id(); t < count; t += sp_thread_count()) {
        long long e = first + t, o;
        if (e < na) o = mode == 0 ? e + lb[e] - eq[e] : (mode == 1 ? (match[e] ? eq[e] : -1) : e);
        else o = mode == 0 ? (match[e] ? -1 : e - na + lb[e] - eq[lb[e]]) : e - na;
        slot[e] = o;
    }
}

// out_idx[d, slot[e]] = entry e's index column (idx_a (s, na), idx_b (s, nb), out_idx (s, n_out)).
// A slot outside [0, n_out) (unsorted input, against the contract) is skipped, never written.
template <class I>
__global__ void scatter_index(long long na, long long nb, long long first, long long count, long long s,
                              const long long* slot, long long n_out, const I* idx_a, const I* idx_b, I* out_idx) {
    for (long long t = sp_thread_id(); t < count; t += sp_thread_count()) {
        long long e = first + t, o = slot[e];
        if (o < 0 || o >= n_out) continue;
        const I* idx = e < na ? idx_a : idx_b;
        long long n = e < na ? na : nb, i = e < na ? e : e - na;
        for (long long d = 0; d < s; ++d) out_idx[d * n_out + o] = idx[d * n + i];
    }
}

// out[slot[e], q] = Op(a, b), one thread per (entry, value column q < m): the entry's own value on
// its side, and on the other side the other operand's row lb[e] where match[e], else its fill.
template <class Op, class T>
__global__ void apply_merged(long long na, long long first, long long count, long long m, const long long* slot,
                             long long n_out, const long long* lb, const unsigned char* match, const T* va,
                             const T* vb, const T* fa, const T* fb, T* out) {
    long long total = count * m;
    for (long long t = sp_thread_id(); t < total; t += sp_thread_count()) {
        long long e = first + t / m, q = t % m;
        long long o = slot[e];
        if (o < 0 || o >= n_out) continue;
        T x, y;
        if (e < na) {
            x = va[e * m + q];
            y = match[e] ? vb[lb[e] * m + q] : fb[q];
        } else {
            y = vb[(e - na) * m + q];
            x = match[e] ? va[lb[e] * m + q] : fa[q];
        }
        out[o * m + q] = Op::apply(x, y);
    }
}
