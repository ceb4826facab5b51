// GraphBLAS's operations on CSR parts over a semiring: y<m> = A @ x (pull), y<m> = x @ A and
// C<M> = A @ B (push: Gustavson), select and apply_index. Mirrors kernels/cpu/semiring.py; the
// semantics are kernels/semirings.py's (an output entry exists where a product exists; floating
// min/max ignore NaN as fmin/fmax do; integer arithmetic wraps; integer div truncates, x / 0
// saturates).
//
// Two kernels do the products, each templated on the semiring's monoid (a functor: its terminal
// value, combine and atomic combine; monoid_plus ... monoid_land) and the value type T:
// - sr_mxv, pull: y(i) = the monoid over row i of A times x, reduced in registers by a group of lanes
//   per row (a lane stops at the terminal value; a shuffle tree at the end), so the first product
//   found is kept and the later ones combined, as the table says;
// - sr_push, push: each entry X(i, k) of the pushed rows scatters X(i, k) * B(k, j) along row k of B
//   into row i's accumulator with the monoid's atomic combine. x @ A is one pushed row (x) into a
//   dense accumulator (y itself); A @ B pushes the rows of A, into the mask's own slots (a masked
//   product) or into per-row hash or dense tables (_hash.cuh; no mask, or its complement).
// Accumulators in memory arrive holding the monoid's identity (the launcher fills them), chosen so
// that it leaves the first product as it is: -0.0 for floating plus (x + -0.0 == x, -0.0 included),
// NaN for floating min and max (fmin(NaN, x) == x, so an all-NaN line still gives NaN), the type's
// limits for integers; a slot at the terminal value takes no more products; `any` stores (any
// product may win), lor and land store only the value that decides them.
//
// What is not a template parameter, and why: the multiply op is an op code (SR_FIRST ...) and each
// index array is read as int32 or int64 by a bit of `widths`; both are uniform over a launch (a
// branch that never diverges). Templating on them too would multiply the instantiations by 18 and
// by 2 per index array: thousands, minutes of NVRTC and of the emulator's host build. On bool values
// the launcher renames the ops as the table says (plus -> lor, minus -> lxor, ...) and passes every
// operand in T (an operand that is not read, or iso-valued, as a one read at element 0 through an
// index mask of 0, as the numba kernels do).
//
// Masks skip work: a row (pull) or column (push) the mask leaves out is never read or multiplied; a
// masked product walks each row of B from the mask row's first column (binary search) and leaves
// it after the mask row's last; a complemented mask is looked up before each product. Rows of B and
// of masks are taken sorted by column (sparray's CSR invariant).
//
// Checks: no pointer or index is used as an address before it is checked; a bad one sets a flag in
// stats[2] (SR_BAD_*) and contributes nothing. The launcher reads the flags unless its inputs are
// proven (_trust.py) and names the first offender with the numba kernels' code.
#include "_atomic.cuh"
#include "_checks.cuh"
#include "_hash.cuh"

// stats[2] flags: X / A is the first operand (the pushed rows, the pulled matrix), B the second
#define SR_BAD_X_CROW 1ull
#define SR_BAD_X_COL 2ull
#define SR_BAD_B_CROW 4ull
#define SR_BAD_B_COL 8ull
#define SR_BAD_M_CROW 16ull

// mode bits
#define SR_X_PRESENT 1   // the pushed / pulled vector has a presence bitmap (x_ok)
#define SR_MASK 2        // a mask: a bitmap over the output (mb), or CSR parts (m_crow, m_col)
#define SR_COMPLEMENT 4  // its complement
#define SR_MASK_OK 8     // a valued CSR mask: m_ok marks the entries that count
#define SR_X_COLS 16     // sr_push: the pushed rows name rows of B by x_col (else entry e names row e)
#define SR_READ_COL 16   // sr_mxv: A's columns are read (not for a reduction, whose x is iso)
#define SR_SLOTS 32      // sr_push: into the mask's slots
#define SR_TABLES 64     // sr_push: into per-row tables (else dense: slot i * N + j of tv and hit)
#define SR_COUNT_ONLY 128 // sr_push into tables: only claim and count (a batched product's first pass)

// widths bits: which index arrays are int64 (else int32)
#define SR_W_XCROW 1
#define SR_W_XCOL 2
#define SR_W_BCROW 4
#define SR_W_BCOL 8
#define SR_W_MCROW 16
#define SR_W_MCOL 32
#define SR_W_OUT 64

// multiply op codes (semiring.py's _MUL_CODES)
#define SR_FIRST 0
#define SR_SECOND 1
#define SR_PAIR 2
#define SR_TIMES 3
#define SR_PLUS 4
#define SR_MINUS 5
#define SR_DIV 6
#define SR_MIN 7
#define SR_MAX 8
#define SR_LAND 9
#define SR_LOR 10
#define SR_LXOR 11
#define SR_ROW 12  // positional: i, i + 1, k, k + 1, j, j + 1 of the product A(i, k) * B(k, j)
#define SR_ROW1 13
#define SR_MID 14
#define SR_MID1 15
#define SR_COL 16
#define SR_COL1 17

// element i of an index array of int32 (wide false) or int64 values
__device__ inline long long sr_at(const void* a, bool wide, long long i) {
    return wide ? ((const long long*)a)[i] : (long long)((const int*)a)[i];
}

// ---- values: limits, bits, wrapping arithmetic -------------------------------------------------

template <class T>
struct sr_word;  // the unsigned word of T's size (atomicCAS)
template <>
struct sr_word<int> { typedef unsigned int type; };
template <>
struct sr_word<float> { typedef unsigned int type; };
template <>
struct sr_word<long long> { typedef unsigned long long type; };
template <>
struct sr_word<double> { typedef unsigned long long type; };

template <class T, class W>
__device__ inline T sr_from_bits(W w) {
    union { W w; T t; } u;
    u.w = w;
    return u.t;
}
template <class W, class T>
__device__ inline W sr_to_bits(T t) {
    union { T t; W w; } u;
    u.t = t;
    return u.w;
}

// lo/hi: the type's least and greatest values (-inf and inf for floats)
template <class T>
struct sr_limits;
template <>
struct sr_limits<int> {
    __device__ static int lo() { return -2147483647 - 1; }
    __device__ static int hi() { return 2147483647; }
};
template <>
struct sr_limits<long long> {
    __device__ static long long lo() { return -9223372036854775807ll - 1; }
    __device__ static long long hi() { return 9223372036854775807ll; }
};
template <>
struct sr_limits<float> {
    __device__ static float lo() { return sr_from_bits<float>(0xff800000u); }
    __device__ static float hi() { return sr_from_bits<float>(0x7f800000u); }
};
template <>
struct sr_limits<double> {
    __device__ static double lo() { return sr_from_bits<double>(0xfff0000000000000ull); }
    __device__ static double hi() { return sr_from_bits<double>(0x7ff0000000000000ull); }
};

template <class T>
__device__ inline T sr_load(const T* p) { return *(const volatile T*)p; }
template <class T>
__device__ inline void sr_store(T* p, T v) { *(volatile T*)p = v; }

// fmin / fmax: NaN only when both are (the numba kernels' select, operand order included)
template <class T>
__device__ inline T sr_fmin(T a, T b) { return (a <= b || b != b) ? a : b; }
template <class T>
__device__ inline T sr_fmax(T a, T b) { return (a >= b || b != b) ? a : b; }

// + and * that wrap as NumPy's integers do (sp_acc: unsigned arithmetic), never fused into an FMA
template <class T>
__device__ inline T sr_add(T a, T b) {
    typedef typename sp_acc<T>::type A;
    return (T)((A)a + (A)b);
}
__device__ inline bool sr_add(bool a, bool b) { return a || b; }
template <class T>
__device__ inline T sr_sub(T a, T b) {
    typedef typename sp_acc<T>::type A;
    return (T)((A)a - (A)b);
}
__device__ inline bool sr_sub(bool a, bool b) { return a != b; }
template <class T>
__device__ inline T sr_times(T a, T b) {
    typedef typename sp_acc<T>::type A;
    return (T)((A)a * (A)b);
}
__device__ inline float sr_times(float a, float b) { return sp_mul_rn(a, b); }
__device__ inline double sr_times(double a, double b) { return sp_mul_rn(a, b); }
__device__ inline bool sr_times(bool a, bool b) { return a && b; }
// GraphBLAS's integer division: toward zero; x / 0 is 0 for x == 0, else the type's max or min;
// x / -1 is -x, wrapping at the type's min
template <class T>
__device__ inline T sr_div(T a, T b) {
    if (b == 0) return a == 0 ? T(0) : (a > 0 ? sr_limits<T>::hi() : sr_limits<T>::lo());
    if (b == -1) return sr_sub(T(0), a);
    return a / b;
}
__device__ inline float sr_div(float a, float b) { return a / b; }
__device__ inline double sr_div(double a, double b) { return a / b; }
__device__ inline bool sr_div(bool a, bool) { return a; }

// ---- the multiply op -------------------------------------------------------------------------

// a = the first operand's value, b = the second's, of the product A(i, k) * B(k, j)
template <class T>
__device__ inline T sr_mul(int op, T a, T b, long long i, long long k, long long j) {
    switch (op) {
        case SR_FIRST: return a;
        case SR_SECOND: return b;
        case SR_PAIR: return T(1);
        case SR_TIMES: return sr_times(a, b);
        case SR_PLUS: return sr_add(a, b);
        case SR_MINUS: return sr_sub(a, b);
        case SR_DIV: return sr_div(a, b);
        case SR_MIN: return sr_fmin(a, b);
        case SR_MAX: return sr_fmax(a, b);
        case SR_LAND: return T(a != T(0) && b != T(0));
        case SR_LOR: return T(a != T(0) || b != T(0));
        case SR_LXOR: return T((a != T(0)) != (b != T(0)));
        case SR_ROW: return T(i);
        case SR_ROW1: return T(i + 1);
        case SR_MID: return T(k);
        case SR_MID1: return T(k + 1);
        case SR_COL: return T(j);
        default: return T(j + 1);  // SR_COL1
    }
}

// ---- the monoids -------------------------------------------------------------------------------

// atomic *p = Op(*p, v) by compare-and-swap on the value's bits (a no-op when nothing would change)
template <class Op, class T>
__device__ inline void sr_atomic_cas(T* p, T v) {
    typedef typename sr_word<T>::type W;
    W* w = reinterpret_cast<W*>(p);
    W old = sr_load(w);
    while (true) {
        W want = sr_to_bits<W>(Op::add(sr_from_bits<T>(old), v));
        if (want == old) return;
        W seen = atomicCAS(w, old, want);
        if (seen == old) return;
        old = seen;
    }
}

// A monoid: terminal(a) (a reduction at a may stop), add(a, b) (the monoid on two values; `any`
// keeps the first) and atomic(p, v) (*p = add(*p, v) for concurrent writers). Accumulators in memory
// arrive holding the monoid's identity (the launcher fills them: semiring.py's _identity), which
// leaves every first product as it is.
struct monoid_plus {
    template <class T>
    __device__ static bool terminal(T) { return false; }
    template <class T>
    __device__ static T add(T a, T b) { return sr_add(a, b); }
    template <class T>
    __device__ static void atomic(T* p, T v) { sp_atomic_add(p, v); }  // int: atomicAdd wraps
};
struct monoid_times {
    __device__ static bool terminal(int a) { return a == 0; }
    __device__ static bool terminal(long long a) { return a == 0; }
    __device__ static bool terminal(float) { return false; }  // 0 * inf is NaN: no float is terminal
    __device__ static bool terminal(double) { return false; }
    template <class T>
    __device__ static T add(T a, T b) { return sr_times(a, b); }
    template <class T>
    __device__ static void atomic(T* p, T v) { sr_atomic_cas<monoid_times>(p, v); }
};
struct monoid_min {
    template <class T>
    __device__ static bool terminal(T a) { return a == sr_limits<T>::lo(); }
    template <class T>
    __device__ static T add(T a, T b) { return sr_fmin(a, b); }
    __device__ static void atomic(int* p, int v) { atomicMin(p, v); }
    __device__ static void atomic(long long* p, long long v) { atomicMin(p, v); }
    __device__ static void atomic(float* p, float v) { sr_atomic_cas<monoid_min>(p, v); }
    __device__ static void atomic(double* p, double v) { sr_atomic_cas<monoid_min>(p, v); }
};
struct monoid_max {
    template <class T>
    __device__ static bool terminal(T a) { return a == sr_limits<T>::hi(); }
    template <class T>
    __device__ static T add(T a, T b) { return sr_fmax(a, b); }
    __device__ static void atomic(int* p, int v) { atomicMax(p, v); }
    __device__ static void atomic(long long* p, long long v) { atomicMax(p, v); }
    __device__ static void atomic(float* p, float v) { sr_atomic_cas<monoid_max>(p, v); }
    __device__ static void atomic(double* p, double v) { sr_atomic_cas<monoid_max>(p, v); }
};
struct monoid_any {
    template <class T>
    __device__ static bool terminal(T) { return true; }
    template <class T>
    __device__ static T add(T a, T) { return a; }
    template <class T>
    __device__ static void atomic(T* p, T v) { sr_store(p, v); }  // whole aligned words: any store may win
};
struct monoid_lor {  // bool values only
    __device__ static bool terminal(bool a) { return a; }
    __device__ static bool add(bool a, bool b) { return a || b; }
    __device__ static void atomic(bool* p, bool v) {
        if (v) sr_store(p, true);
    }
};
struct monoid_land {  // bool values only
    __device__ static bool terminal(bool a) { return !a; }
    __device__ static bool add(bool a, bool b) { return a && b; }
    __device__ static void atomic(bool* p, bool v) {
        if (!v) sr_store(p, false);
    }
};

template <class T>
__device__ inline T sr_shfl_down(T v, unsigned delta, int width) { return sp_shfl_down(v, delta, width); }
__device__ inline bool sr_shfl_down(bool v, unsigned delta, int width) { return sp_shfl_down((int)v, delta, width) != 0; }

// the position of j in the sorted m_col[lo, hi), or -1
__device__ inline long long sr_find(const void* m_col, bool wide, long long lo, long long hi, long long j) {
    while (lo < hi) {
        long long mid = (lo + hi) >> 1, c = sr_at(m_col, wide, mid);
        if (c == j) return mid;
        if (c < j) lo = mid + 1;
        else hi = mid;
    }
    return -1;
}
// the first position in the sorted col[lo, hi) whose column is >= j (hi if none)
__device__ inline long long sr_lower_bound(const void* col, bool wide, long long lo, long long hi, long long j) {
    while (lo < hi) {
        long long mid = (lo + hi) >> 1;
        if (sr_at(col, wide, mid) < j) lo = mid + 1;
        else hi = mid;
    }
    return lo;
}

// ---- y<mask> = A @ x (pull) ------------------------------------------------------------------

// y[i], yp[i] = the monoid over the products A(i, k) * x(k) of row i (x(k) present), for each row the
// mask lets through (mb[i] != complement); a group of `lanes` lanes per row (a power of two, 1 to 32,
// from the mean row length), each folding every lanes-th entry up to the terminal value, then a
// shuffle tree (`have`: the lane holds a product). y and yp arrive zeroed; rows without a product
// stay so. The warp walks its rows in step, so every lane reaches every shuffle.
template <class Add, class T>
__global__ void sr_mxv(const void* crow, const void* col, const T* a, unsigned long long am, const T* x,
                       unsigned long long xm, const bool* x_ok, const bool* mb, long long M, long long K, long long nse,
                       int widths, int mode, int op, int lanes, T* y, bool* yp, long long* stats) {
    long long warp = sp_thread_id() >> 5, nwarps = sp_thread_count() >> 5;
    int lane = threadIdx.x & 31, per = 32 / lanes, sub = lane & (lanes - 1);
    bool pw = widths & SR_W_XCROW, cw = widths & SR_W_XCOL;
    bool use_x_ok = mode & SR_X_PRESENT, use_mask = mode & SR_MASK, comp = mode & SR_COMPLEMENT;
    bool read_col = mode & SR_READ_COL;
    unsigned long long flags = 0;
    for (long long base = warp * per; base < M; base += nwarps * per) {
        long long i = base + lane / lanes, lo = 0, hi = 0;
        if (i < M && !(use_mask && mb[i] == comp)) {
            lo = sr_at(crow, pw, i);
            hi = sr_at(crow, pw, i + 1);
            if (lo < 0 || hi < lo || hi > nse) {
                flags |= SR_BAD_X_CROW;
                lo = hi = 0;
            }
        }
        T acc = T();
        int have = 0;
        for (long long p = lo + sub; p < hi; p += lanes) {
            long long k = read_col ? sr_at(col, cw, p) : 0;
            if (k < 0 || (read_col && k >= K)) {
                flags |= SR_BAD_X_COL;
                continue;
            }
            if (use_x_ok && !x_ok[k]) continue;
            T v = sr_mul(op, a[(unsigned long long)p & am], x[(unsigned long long)k & xm], i, k, 0ll);
            acc = have ? Add::add(acc, v) : v;
            have = 1;
            if (Add::terminal(acc)) break;
        }
        for (int off = lanes >> 1; off > 0; off >>= 1) {
            T other = sr_shfl_down(acc, off, lanes);
            int other_have = sp_shfl_down(have, off, lanes);
            if (other_have) acc = have ? Add::add(acc, other) : other;
            have |= other_have;
        }
        if (i < M && sub == 0 && have) {
            y[i] = acc;
            yp[i] = true;
        }
    }
    sp_flag(stats, flags);
}

// ---- push: y<mask> = x @ A and C<M> = A @ B --------------------------------------------------

// Rows [r0, r1) of X pushed through B: each entry e of row i of X (x_ok[e] unless SR_X_PRESENT;
// k = x_col[e], or e itself without SR_X_COLS) is taken by a group of `lanes` lanes over row k of B,
// each product X(i, k) * B(k, j) combined into row i's accumulator for column j:
// - dense (neither SR_SLOTS nor SR_TABLES): slot i * N + j of tv, hit (x @ A: one row, y and yp
//   themselves); a bitmap mask mb over those slots is checked before the product is formed;
// - SR_SLOTS: the slot q of j in the mask row i (binary search; m_ok[q] must hold with SR_MASK_OK),
//   row k of B walked from the mask row's first column and left after its last;
// - SR_TABLES: row i's table of toff[i + 1] - toff[i] slots at toff[i] - toff[r0] in keys (column,
//   or -1 = empty, claimed with atomicCAS) and tv; counts[i] gains one per column claimed; with
//   SR_MASK (then complemented) the mask row's columns are skipped before the product is formed.
// The row of an entry is found by binary search in x_crow[r0 .. r1] (entries outside the rows are
// not read); the launcher checks the pointers (here an entry can only land in no row).
template <class Add, class T>
__global__ void sr_push(const void* x_crow, const void* x_col, const T* x, unsigned long long xm, const bool* x_ok,
                        const void* b_crow, const void* b_col, const T* b, unsigned long long bm, const void* m_crow,
                        const void* m_col, const bool* m_ok, const bool* mb, long long r0, long long r1, long long nse_x,
                        long long K, long long N, long long nse_b, long long nse_m, int widths, int mode, int op,
                        int lanes, const long long* toff, long long* keys, T* tv, bool* hit, long long* counts,
                        long long* stats) {
    bool xpw = widths & SR_W_XCROW, xcw = widths & SR_W_XCOL, bpw = widths & SR_W_BCROW, bcw = widths & SR_W_BCOL;
    bool mpw = widths & SR_W_MCROW, mcw = widths & SR_W_MCOL;
    bool use_x_ok = mode & SR_X_PRESENT, use_mask = mode & SR_MASK, comp = mode & SR_COMPLEMENT;
    bool use_ok = mode & SR_MASK_OK, x_cols = mode & SR_X_COLS, slots = mode & SR_SLOTS, tables = mode & SR_TABLES;
    bool values = !(mode & SR_COUNT_ONLY);
    unsigned long long flags = 0;
    long long e0 = sr_at(x_crow, xpw, r0), e1 = sr_at(x_crow, xpw, r1);
    if (e0 < 0 || e1 < e0 || e1 > nse_x) {
        if (sp_thread_id() == 0) sp_flag(stats, SR_BAD_X_CROW);
        return;
    }
    long long tbase = tables ? toff[r0] : 0;
    for (long long t = e0 * lanes + sp_thread_id(); t < e1 * lanes; t += sp_thread_count()) {
        long long e = t / lanes;
        int sub = (int)(t & (lanes - 1));
        if (use_x_ok && !x_ok[e]) continue;
        long long i = r0, hi_r = r1 - 1;  // the last row i with x_crow[i] <= e
        while (i < hi_r) {
            long long mid = (i + hi_r + 1) >> 1;
            if (sr_at(x_crow, xpw, mid) <= e) i = mid;
            else hi_r = mid - 1;
        }
        if (e >= sr_at(x_crow, xpw, i + 1)) continue;  // between rows: pointers the launcher rejects
        long long k = x_cols ? sr_at(x_col, xcw, e) : e;
        if (k < 0 || k >= K) {
            flags |= SR_BAD_X_COL;
            continue;
        }
        long long blo = sr_at(b_crow, bpw, k), bhi = sr_at(b_crow, bpw, k + 1);
        if (blo < 0 || bhi < blo || bhi > nse_b) {
            flags |= SR_BAD_B_CROW;
            continue;
        }
        long long mlo = 0, mhi = 0, jmax = N - 1, size = 0;
        if ((slots || tables) && use_mask) {
            mlo = sr_at(m_crow, mpw, i);
            mhi = sr_at(m_crow, mpw, i + 1);
            if (mlo < 0 || mhi < mlo || mhi > nse_m) {
                flags |= SR_BAD_M_CROW;
                continue;
            }
        }
        long long q = blo + sub;
        if (slots) {
            if (mhi == mlo) continue;
            long long jmin = sr_at(m_col, mcw, mlo);
            jmax = sr_at(m_col, mcw, mhi - 1);
            if (jmin > 0) q = sr_lower_bound(b_col, bcw, blo, bhi, jmin) + sub;
        }
        long long* rk = keys;
        T* rv = tv;
        if (tables) {
            size = toff[i + 1] - toff[i];
            if (size == 0) continue;  // no products counted for the row: only after a flagged input
            rk = keys + (toff[i] - tbase);
            rv = tv + (toff[i] - tbase);
        } else if (!slots) {
            rv = tv + i * N;
        }
        T xv = x[(unsigned long long)e & xm];
        long long fresh = 0;
        for (; q < bhi; q += lanes) {
            long long j = sr_at(b_col, bcw, q);
            if (j < 0 || j >= N) {
                flags |= SR_BAD_B_COL;
                continue;
            }
            if (j > jmax) break;  // a mask row's last column: B's row is sorted
            long long s = j;
            bool first = false;
            if (slots || (tables && use_mask)) {
                long long m = sr_find(m_col, mcw, mlo, mhi, j);
                bool in = m >= 0 && (!use_ok || m_ok[m]);
                if (in == comp) continue;  // slots: not in the mask row; tables: in the complemented mask
                if (slots) s = m;
            } else if (!tables && use_mask && mb[i * N + j] == comp) {
                continue;
            }
            if (tables) {
                s = sp_home(j, size, N);
                while (true) {
                    unsigned long long prev = atomicCAS(reinterpret_cast<unsigned long long*>(&rk[s]), ~0ull,
                                                        (unsigned long long)j);
                    if (prev == ~0ull) first = true;
                    if (prev == ~0ull || (long long)prev == j) break;
                    s = (s + 1) & (size - 1);  // only hash tables probe: their size is a power of two
                }
                fresh += first;
                if (!values || (!first && Add::terminal(sr_load(&rv[s])))) continue;
            } else {
                bool* h = slots ? hit : hit + i * N;
                if (sr_load(&h[s]) && Add::terminal(sr_load(&rv[s]))) continue;
                if (!sr_load(&h[s])) sr_store(&h[s], true);
            }
            Add::atomic(&rv[s], sr_mul(op, xv, b[(unsigned long long)q & bm], i, k, j));
        }
        if (fresh) atomicAdd(reinterpret_cast<unsigned long long*>(&counts[i]), (unsigned long long)fresh);
    }
    sp_flag(stats, flags);
}

// tsize[i] = the table of row i of A @ B: min(ncols, the power of two >= 2 x its products), 0 for a
// row without products; A's pointers and columns and the pointers of the B rows it names checked.
__global__ void sr_mxm_work(const void* a_crow, const void* a_col, const void* b_crow, long long M, long long K,
                            long long nse_a, long long nse_b, long long ncols, int widths, long long* tsize,
                            long long* stats) {
    bool apw = widths & SR_W_XCROW, acw = widths & SR_W_XCOL, bpw = widths & SR_W_BCROW;
    unsigned long long flags = 0;
    for (long long i = sp_thread_id(); i < M; i += sp_thread_count()) {
        long long lo = sr_at(a_crow, apw, i), hi = sr_at(a_crow, apw, i + 1), w = 0;
        if (lo < 0 || hi < lo || hi > nse_a) {
            flags |= SR_BAD_X_CROW;
        } else {
            for (long long p = lo; p < hi; ++p) {
                long long k = sr_at(a_col, acw, p);
                if (k < 0 || k >= K) {
                    flags |= SR_BAD_X_COL;
                    continue;
                }
                long long blo = sr_at(b_crow, bpw, k), bhi = sr_at(b_crow, bpw, k + 1);
                if (blo < 0 || bhi < blo || bhi > nse_b) flags |= SR_BAD_B_CROW;
                else w += bhi - blo;
            }
        }
        long long size = w == 0 ? 0 : sp_pow2_at_least(2 * w);
        tsize[i] = size >= ncols ? ncols : size;
    }
    sp_flag(stats, flags);
}

// Row i's claimed slots of [r0, r1)'s tables (one warp per row), to col/val at crow[i], sorted by
// column: a dense table's slot order is its column order; a hash table of at most rank_slots slots
// puts each entry at crow[i] + the number of smaller columns in it; a larger one goes in slot order
// (the launcher sorts those rows after). W: a word of the values' size (moved only);
// col int64 with SR_W_OUT in widths, else int32.
template <class W>
__global__ void sr_rows_out(long long r0, long long r1, const long long* toff, long long ncols, const long long* keys,
                            const W* tv, const long long* crow, long long rank_slots, int widths, void* col, W* val) {
    long long warp = sp_thread_id() >> 5, nwarps = sp_thread_count() >> 5;
    int lane = threadIdx.x & 31;
    bool wide = widths & SR_W_OUT;
    long long tbase = toff[r0];
    for (long long i = r0 + warp; i < r1; i += nwarps) {
        long long size = toff[i + 1] - toff[i], at = crow[i];
        const long long* rk = keys + (toff[i] - tbase);
        const W* rv = tv + (toff[i] - tbase);
        bool by_rank = size != ncols && size <= rank_slots;
        for (long long s0 = 0; s0 < size; s0 += 32) {
            long long s = s0 + lane;
            bool used = s < size && rk[s] >= 0;
            unsigned m = __ballot_sync(0xffffffffu, used);
            if (used) {
                long long o = at + __popc(m & ((1u << lane) - 1u));
                if (by_rank) {
                    long long c = rk[s];
                    o = crow[i];
                    for (long long u = 0; u < size; ++u) o += (rk[u] >= 0 && rk[u] < c) ? 1 : 0;
                }
                if (wide) ((long long*)col)[o] = rk[s];
                else ((int*)col)[o] = (int)rk[s];
                val[o] = rv[s];
            }
            at += __popc(m);
        }
    }
}

// ---- select and apply_index ------------------------------------------------------------------

#define SR_TRIL 0
#define SR_TRIU 1
#define SR_DIAG 2
#define SR_OFFDIAG 3
#define SR_ROWLE 4
#define SR_ROWGT 5
#define SR_COLLE 6
#define SR_COLGT 7
#define SR_LT 8
#define SR_LE 9
#define SR_GT 10
#define SR_GE 11
#define SR_EQ 12

template <class T>
__device__ inline bool sr_keep(int rule, long long i, long long j, T v, long long k, T t) {
    switch (rule) {
        case SR_TRIL: return j <= i + k;
        case SR_TRIU: return j >= i + k;
        case SR_DIAG: return j == i + k;
        case SR_OFFDIAG: return j != i + k;
        case SR_ROWLE: return i <= k;
        case SR_ROWGT: return i > k;
        case SR_COLLE: return j <= k;
        case SR_COLGT: return j > k;
        case SR_LT: return v < t;
        case SR_LE: return v <= t;
        case SR_GT: return v > t;
        case SR_GE: return v >= t;
        case SR_EQ: return v == t;
        default: return v != t;  // ne (NaN stays)
    }
}

// keep[p] = whether entry p of row i stays under `rule` (positional thunk k, value thunk t), a group
// of `lanes` lanes per row; keep arrives zeroed (entries outside the rows stay 0).
template <class T>
__global__ void sr_select_keep(const void* crow, const void* col, const T* v, unsigned long long vm, long long M,
                               long long nse, int widths, int rule, long long k, T t, int lanes, bool* keep,
                               long long* stats) {
    bool pw = widths & SR_W_XCROW, cw = widths & SR_W_XCOL;
    unsigned long long flags = 0;
    for (long long g = sp_thread_id(); g < M * lanes; g += sp_thread_count()) {
        long long i = g / lanes, lo = sr_at(crow, pw, i), hi = sr_at(crow, pw, i + 1);
        if (lo < 0 || hi < lo || hi > nse) {
            flags |= SR_BAD_X_CROW;
            continue;
        }
        for (long long p = lo + (g & (lanes - 1)); p < hi; p += lanes)
            keep[p] = sr_keep(rule, i, sr_at(col, cw, p), v[(unsigned long long)p & vm], k, t);
    }
    sp_flag(stats, flags);
}

// out[p] = i + k (op 0, rowindex), j + k (1, colindex) or j - i + k (2, diagindex) for entry p = A(i, j),
// int64 with SR_W_OUT in widths, else int32; out arrives zeroed (entries outside the rows stay 0).
__global__ void sr_apply_index(const void* crow, const void* col, long long M, long long nse, int widths, int op,
                               long long k, int lanes, void* out, long long* stats) {
    bool pw = widths & SR_W_XCROW, cw = widths & SR_W_XCOL, wide = widths & SR_W_OUT;
    unsigned long long flags = 0;
    for (long long g = sp_thread_id(); g < M * lanes; g += sp_thread_count()) {
        long long i = g / lanes, lo = sr_at(crow, pw, i), hi = sr_at(crow, pw, i + 1);
        if (lo < 0 || hi < lo || hi > nse) {
            flags |= SR_BAD_X_CROW;
            continue;
        }
        for (long long p = lo + (g & (lanes - 1)); p < hi; p += lanes) {
            long long j = sr_at(col, cw, p), v = op == 0 ? i + k : op == 1 ? j + k : j - i + k;
            if (wide) ((long long*)out)[p] = v;
            else ((int*)out)[p] = (int)v;
        }
    }
    sp_flag(stats, flags);
}
