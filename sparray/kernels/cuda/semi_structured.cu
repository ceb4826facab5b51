// Products of a 2:4 semi-structured matrix with a dense one, on the stored components (the layout
// is in semi_structured.py's docstring): values (B, rows, cols / 2), metadata (B, rows, ceil(cols / 16))
// uint16 holding one 4-bit code i0 | i1 << 2 per group of 4 columns (group g at bits 4 (g % 4) of
// word g / 4). With S' the stored values minus the fill f on their kept positions (0 elsewhere):
//
//   semi_rows        y = S' @ X + f colsum(X)   CUDA cores, any dtype, skinny X (bandwidth-bound)
//   semi_mma<MT, F>  y = S  @ X (+ f (colsum(X) - M @ X))   sparse tensor cores, float16 -> float32
//   semi_vm          y = X @ S' + f rowsum(X)   CUDA cores, any dtype (rows split, partial sums)
//   semi_sum_parts   the partial sums of semi_vm added in a fixed order
//   semi_line_sums   colsum(X) for the fill's term (a group of lanes per column)
//   semi_tc_metadata the tensor cores' own metadata layout, built once per matrix
//   semi_mma_probe   one mma.sp on registers given per lane (the launcher's check of the hardware)
//
// Mirrors kernels/cpu/semi_structured.py. Arithmetic is done in sp_semi<T>::C: float for float16,
// sp_acc<T> otherwise (integers wrap as in NumPy). No code in the metadata is used as an address:
// a code only picks a column inside its own group of 4 (cols is a multiple of 4), so any 16 bits are
// safe; groups past the last (the high nibbles of a row's last word) are never read. Every other
// index is computed from the shapes and every load past an edge (rows to 16, columns to 32 or 64,
// N to 8 or 128 in the tensor-core kernel) is guarded instead of padded in memory.
#include "_warp.cuh"

// ---- float16 as bits, and the inline PTX the emulator replaces ------------------------------------
//
// _emulate_mma.h (included by _emulate.h) defines these three macros for the host build: the
// conversions in software, the mma.sp instruction as a reference implementation of the PTX ISA's
// documented semantics run across the 32 lanes of an emulated warp.

struct sp_half {
    unsigned short bits;
};

#ifndef SPARRAY_CVT_F32_F16
__device__ inline float sp_cvt_f32_f16(unsigned short h) {
    float f;
    asm("cvt.f32.f16 %0, %1;" : "=f"(f) : "h"(h));
    return f;
}
__device__ inline unsigned short sp_cvt_f16_f32(float f) {
    unsigned short h;
    asm("cvt.rn.f16.f32 %0, %1;" : "=h"(h) : "f"(f));
    return h;
}
#define SPARRAY_CVT_F32_F16(h) sp_cvt_f32_f16(h)
#define SPARRAY_CVT_F16_F32(f) sp_cvt_f16_f32(f)
#endif

// d = A B + c for one m16n8k32 tile: A 16 x 32 float16, 2:4 sparse (a: 4 b32 registers of kept
// pairs), B 32 x 8 float16 (b: 4 b32), c and d 16 x 8 float32 (4 each), e the metadata register and
// sel the sparsity selector, an immediate 0 or 1. The ::ordered_metadata form (PTX ISA 8.5, CUDA
// 12.5; NVRTC 13 here) where the compiler has it, as the PTX ISA advises; the plain form for older
// toolkits or with SPARRAY_MMA_SP_PLAIN defined. The codes are ordered (i0 < i1) either way.
#ifndef SPARRAY_MMA_SP_16832
#if !defined(SPARRAY_MMA_SP_PLAIN) && defined(__CUDACC_VER_MAJOR__) && \
    (__CUDACC_VER_MAJOR__ > 12 || (__CUDACC_VER_MAJOR__ == 12 && __CUDACC_VER_MINOR__ >= 5))
#define SP_MMA_SP_OPCODE "mma.sp::ordered_metadata.sync.aligned.m16n8k32.row.col.f32.f16.f16.f32"
#else
#define SP_MMA_SP_OPCODE "mma.sp.sync.aligned.m16n8k32.row.col.f32.f16.f16.f32"
#endif
#define SPARRAY_MMA_SP_16832(d, a, b, c, e, sel)                                                                  \
    asm volatile(SP_MMA_SP_OPCODE " {%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9, %10, %11}, {%12, %13, %14, %15}," \
                                  " %16, %17;\n"                                                                  \
                 : "=f"((d)[0]), "=f"((d)[1]), "=f"((d)[2]), "=f"((d)[3])                                         \
                 : "r"((a)[0]), "r"((a)[1]), "r"((a)[2]), "r"((a)[3]), "r"((b)[0]), "r"((b)[1]), "r"((b)[2]),      \
                   "r"((b)[3]), "f"((c)[0]), "f"((c)[1]), "f"((c)[2]), "f"((c)[3]), "r"(e), "n"(sel))
#endif

template <int SEL>
__device__ inline void sp_mma_16832(float (&d)[4], const unsigned (&a)[4], const unsigned (&b)[4], unsigned e) {
    SPARRAY_MMA_SP_16832(d, a, b, d, e, SEL);
}

// ---- value types -------------------------------------------------------------------------------

// C: the type products and sums are computed in; load / store convert a stored value.
template <class T>
struct sp_semi {
    typedef typename sp_acc<T>::type C;
    __device__ static C load(T v) { return (C)v; }
    __device__ static T store(C c) { return (T)c; }
};
template <>
struct sp_semi<sp_half> {
    typedef float C;
    __device__ static float load(sp_half v) { return SPARRAY_CVT_F32_F16(v.bits); }
    __device__ static sp_half store(float c) { return {SPARRAY_CVT_F16_F32(c)}; }
};

#define SP_SEMI_JB 8  // columns of X (S @ X) or rows of X (X @ S) one thread carries at a time

// ---- S @ X on CUDA cores -------------------------------------------------------------------------

// y (nrows, N) = S' @ X (+ fill colsum) for nrows = B * rows rows of S, X (B, cols, N) row-major.
// A group of `lanes` lanes (a power of two, 1 to 32) per (row, block of up to 8 columns of X): lane
// `sub` takes metadata words sub, sub + lanes, ... of the row (consecutive lanes read consecutive
// words and the 8 values under each: coalesced), decodes its 4 groups and multiplies each kept
// value, minus the fill (nfill = -fill), with the row of X under it; the group's sums meet in its
// first lane through a shuffle tree. Items run row-major (the column blocks of a row side by side,
// so a row read again for its next block is still in cache). The warp walks its items in step, so
// every lane reaches every shuffle; every item has at most nqw = min(N, 8) columns, so the shuffles
// are uniform too.
template <class T>
__global__ void semi_rows(const T* vals, const unsigned short* meta, const T* x, long long nrows, long long rows,
                          long long cols, long long N, typename sp_semi<T>::C nfill, typename sp_semi<T>::C fill,
                          int use_fill, const typename sp_semi<T>::C* colsum, int lanes, T* y) {
    typedef sp_semi<T> S;
    typedef typename S::C C;
    long long G = cols >> 2, W = (cols + 15) >> 4, half = cols >> 1;
    long long njb = (N + SP_SEMI_JB - 1) / SP_SEMI_JB, items = nrows * njb;
    int nqw = N < SP_SEMI_JB ? (int)N : SP_SEMI_JB;
    long long warp = sp_thread_id() >> 5, nwarps = sp_thread_count() >> 5;
    int lane = threadIdx.x & 31, per = 32 / lanes, sub = lane & (lanes - 1);
    for (long long base = warp * per; base < items; base += nwarps * per) {
        long long item = base + lane / lanes;
        bool live = item < items;
        long long R = live ? item / njb : 0, jb = live ? item - R * njb : 0;  // R = b * rows + r
        long long b = R / rows, j0 = jb * SP_SEMI_JB;
        int nq = live ? (int)(N - j0 < SP_SEMI_JB ? N - j0 : SP_SEMI_JB) : 0;
        C acc[SP_SEMI_JB];
        for (int q = 0; q < SP_SEMI_JB; ++q) acc[q] = C();
        const T* vrow = vals + R * half;
        const unsigned short* mrow = meta + R * W;
        const T* xb = x + b * cols * N + j0;
        for (long long w = sub; live && w < W; w += lanes) {
            unsigned word = mrow[w];
            for (int qd = 0; qd < 4; ++qd) {
                long long g = 4 * w + qd;
                if (g >= G) break;
                unsigned code = (word >> (4 * qd)) & 15u;
                C v0 = S::load(vrow[2 * g]) + nfill, v1 = S::load(vrow[2 * g + 1]) + nfill;
                const T* x0 = xb + (4 * g + (code & 3u)) * N;
                const T* x1 = xb + (4 * g + (code >> 2)) * N;
                for (int q = 0; q < SP_SEMI_JB; ++q)
                    if (q < nq) acc[q] = acc[q] + v0 * S::load(x0[q]) + v1 * S::load(x1[q]);
            }
        }
        for (int q = 0; q < SP_SEMI_JB; ++q)
            if (q < nqw) acc[q] = sp_group_sum(acc[q], lanes);
        if (live && sub == 0) {
            T* yrow = y + R * N + j0;
            for (int q = 0; q < nq; ++q) {
                C v = acc[q];
                if (use_fill) v = v + fill * colsum[b * N + j0 + q];
                yrow[q] = S::store(v);
            }
        }
    }
}

// ---- X @ S on CUDA cores -------------------------------------------------------------------------

// y (B, M, cols) = X @ S' (+ fill rowsum(X)) for X (B, M, rows). One thread per (batch, block of up
// to 8 rows of X, slice of `chunk` rows of S, group g of 4 columns): consecutive threads take
// consecutive groups, so the warp's reads of a row of S (its metadata words and values) are
// coalesced and the reads of X are broadcasts. The thread keeps 4 sums per row of X (its group's
// columns) and the row sums of X over its slice (the fill's term). With one slice it writes y; with
// nsplit slices it writes its partial sums to part (nsplit, B * M * cols), which semi_sum_parts adds
// in slice order (no atomics: the result does not depend on the grid).
template <class T>
__global__ void semi_vm(const T* vals, const unsigned short* meta, const T* x, long long nb, long long rows,
                        long long cols, long long M, typename sp_semi<T>::C nfill, typename sp_semi<T>::C fill,
                        int use_fill, long long nsplit, long long chunk, T* y, typename sp_semi<T>::C* part) {
    typedef sp_semi<T> S;
    typedef typename S::C C;
    long long G = cols >> 2, W = (cols + 15) >> 4, half = cols >> 1;
    long long nmb = (M + SP_SEMI_JB - 1) / SP_SEMI_JB, total = nb * nmb * nsplit * G, nout = nb * M * cols;
    for (long long t = sp_thread_id(); t < total; t += sp_thread_count()) {
        long long g = t % G, rest = t / G;
        long long s = rest % nsplit, rest2 = rest / nsplit;
        long long mb = rest2 % nmb, b = rest2 / nmb;
        long long m0 = mb * SP_SEMI_JB, r0 = s * chunk, r1 = r0 + chunk < rows ? r0 + chunk : rows;
        int nq = (int)(M - m0 < SP_SEMI_JB ? M - m0 : SP_SEMI_JB);
        C acc[SP_SEMI_JB][4], rs[SP_SEMI_JB];
        for (int q = 0; q < SP_SEMI_JB; ++q) {
            rs[q] = C();
            for (int k = 0; k < 4; ++k) acc[q][k] = C();
        }
        const T* vcol = vals + b * rows * half + 2 * g;
        const unsigned short* mcol = meta + b * rows * W + (g >> 2);
        const T* xb = x + (b * M + m0) * rows;
        unsigned shift = 4u * (unsigned)(g & 3);
        for (long long r = r0; r < r1; ++r) {
            unsigned code = ((unsigned)mcol[r * W] >> shift) & 15u, i0 = code & 3u, i1 = code >> 2;
            C v0 = S::load(vcol[r * half]) + nfill, v1 = S::load(vcol[r * half + 1]) + nfill;
            for (int q = 0; q < SP_SEMI_JB; ++q) {
                if (q >= nq) break;
                C xm = S::load(xb[q * rows + r]);
                C p0 = xm * v0, p1 = xm * v1;
                for (unsigned k = 0; k < 4; ++k) {
                    if (i0 == k) acc[q][k] = acc[q][k] + p0;
                    if (i1 == k) acc[q][k] = acc[q][k] + p1;
                }
                rs[q] = rs[q] + xm;
            }
        }
        for (int q = 0; q < nq; ++q) {
            for (int k = 0; k < 4; ++k) {
                C v = acc[q][k];
                if (use_fill) v = v + fill * rs[q];
                long long o = (b * M + m0 + q) * cols + 4 * g + k;
                if (nsplit == 1) y[o] = S::store(v);
                else part[s * nout + o] = v;
            }
        }
    }
}

// y[i] = part[0, i] + part[1, i] + ... + part[nsplit - 1, i], in that order, stored as T.
template <class T>
__global__ void semi_sum_parts(const typename sp_semi<T>::C* part, long long nsplit, long long n, T* y) {
    typedef sp_semi<T> S;
    typedef typename S::C C;
    for (long long i = sp_thread_id(); i < n; i += sp_thread_count()) {
        C s = part[i];
        for (long long k = 1; k < nsplit; ++k) s = s + part[k * n + i];
        y[i] = S::store(s);
    }
}

// out[l] = x[base] + x[base + estride] + ... (len elements) for line l = o * inner + i, base =
// o * ostride + i * istride: colsum(X) of X (B, cols, N) is inner = N, ostride = cols * N,
// istride = 1, estride = N, len = cols. A group of `lanes` lanes per line (shuffle-tree sums).
template <class T>
__global__ void semi_line_sums(const T* x, long long nlines, long long inner, long long ostride, long long istride,
                               long long estride, long long len, int lanes, typename sp_semi<T>::C* out) {
    typedef sp_semi<T> S;
    typedef typename S::C C;
    long long warp = sp_thread_id() >> 5, nwarps = sp_thread_count() >> 5;
    int lane = threadIdx.x & 31, per = 32 / lanes, sub = lane & (lanes - 1);
    for (long long base = warp * per; base < nlines; base += nwarps * per) {
        long long l = base + lane / lanes;
        bool live = l < nlines;
        C acc = C();
        if (live) {
            long long o = l / inner, i = l - o * inner;
            const T* p = x + o * ostride + i * istride;
            for (long long k = sub; k < len; k += lanes) acc = acc + S::load(p[k * estride]);
        }
        acc = sp_group_sum(acc, lanes);
        if (live && sub == 0) out[l] = acc;
    }
}

// ---- the tensor cores' metadata layout -------------------------------------------------------------
//
// For mma.sp m16n8k32 with float16 (PTX ISA, "Sparse MMA .m16n8k32 metadata layout for .f16/.bf16",
// Figure 122): in each group of 4 lanes (groupID = lane / 4, t = lane % 4) the lanes t = 2 sel and
// 2 sel + 1 give the metadata for sparsity selector sel; lane 2 sel + h holds in bits 0-15 the codes
// of row groupID for the 16 columns 16 h .. 16 h + 15 of the k-step (4 groups, the first in bits
// 0-3) and in bits 16-31 those of row groupID + 8. One register so serves two k-steps: selector 0
// the first 32 columns, selector 1 the next 32. The word of lane t for k-pair p (columns
// 64 p .. 64 p + 63) of row tile i (rows 16 i .. 16 i + 15) is then exactly
//
//   tc[b, i, p, lane] = meta[b, 16 i + groupID, 4 p + t] | meta[b, 16 i + groupID + 8, 4 p + t] << 16
//
// laid out (B, ceil(rows / 16), ceil(cols / 64), 32) uint32: one coalesced 128-byte read per warp
// per 16 x 64 tile. Rows and words past the edge read 0x4444 (code 0x4 for every group: valid, and
// the values there load as 0). Groups past the last column become 0x4 too, and so does any
// invalid code (i0 >= i1: undefined behaviour on the hardware); the first invalid one's linear index
// (b * rows + r) * (cols / 4) + g goes to *first_bad (atomicMin) for the launcher's error.
__device__ inline unsigned sp_tc_half(const unsigned short* meta, long long b, long long r, long long w,
                                      long long rows, long long G, long long W, long long* first_bad) {
    if (r >= rows || w >= W) return 0x4444u;
    unsigned word = meta[(b * rows + r) * W + w], out = 0;
    for (int q = 0; q < 4; ++q) {
        long long g = 4 * w + q;
        unsigned code = (word >> (4 * q)) & 15u;
        if (g >= G) {
            code = 4u;
        } else if ((code & 3u) >= (code >> 2)) {
            atomicMin(first_bad, (b * rows + r) * G + g);
            code = 4u;
        }
        out |= code << (4 * q);
    }
    return out;
}

__global__ void semi_tc_metadata(const unsigned short* meta, long long nb, long long rows, long long cols,
                                 unsigned* tc, long long* first_bad) {
    long long G = cols >> 2, W = (cols + 15) >> 4, RT = (rows + 15) >> 4, P = (cols + 63) >> 6;
    long long total = nb * RT * P * 32;
    for (long long t = sp_thread_id(); t < total; t += sp_thread_count()) {
        long long lane = t & 31, rest = t >> 5;
        long long p = rest % P, rest2 = rest / P;
        long long rt = rest2 % RT, b = rest2 / RT;
        long long r = rt * 16 + (lane >> 2), w = 4 * p + (lane & 3);
        unsigned lo = sp_tc_half(meta, b, r, w, rows, G, W, first_bad);
        unsigned hi = sp_tc_half(meta, b, r + 8, w, rows, G, W, first_bad);
        tc[t] = lo | (hi << 16);
    }
}

// ---- S @ X on sparse tensor cores (float16, float32 accumulation) ------------------------------
//
// A block tile is (16 MT nwarps / 2) rows x 128 columns of y; warp w takes rows from 16 MT (w / 2)
// and the 64 columns from 64 (w % 2): MT row tiles x 8 column tiles of 16 x 8, MT x 8 x 4 float32
// accumulators per lane. Blocks walk the tiles (batch, row block, column block) grid-stride. Per
// chunk of 64 columns of S (two m16n8k32 k-steps, one metadata register per lane: selectors 0, 1):
//
// 1. the block stages the 64 x 128 slice of X in shared memory transposed (column n of X is row n
//    there, two k's per 32-bit word, 36 words a row: the lanes' B reads hit 32 different banks);
//    consecutive threads read consecutive columns of a row of X (coalesced), zeros past the edges;
// 2. each warp reads its metadata (one 32-bit word per lane, tensor_core_metadata's layout) and A
//    fragments straight from global memory: lane (g, t) of a k-step holds the kept pairs of groups
//    t and t + 4 of rows g and g + 8 (PTX ISA Figure 120), each pair one aligned 32-bit load of
//    values (guarded: rows past the edge and groups past the last read 0);
// 3. B fragments come from shared memory: lane (g, t) holds k = 2t + 8i, 2t + 8i + 1 of column g
//    (i = 0..3); then one mma.sp per (row tile, column tile, k-step). Column tiles past N are
//    skipped (uniform across the warp).
//
// FILL (a non-zero fill f): y = S @ X + f (colsum(X) - M @ X), with M the kept mask: a second mma
// with A all ones on the same metadata gives M @ X, so every product stays exact in float32 (S - f
// rounded to float16 would not be). The launcher takes MT = 1 there (twice the accumulators).
// y is stored as float16 (rounded once). blockDim.x must be a multiple of 64 (the launcher checks).
#define SP_MMA_KC 64
#define SP_MMA_BN 128
#define SP_MMA_PITCH 36

__device__ inline unsigned sp_pair(const unsigned* vals, long long b, long long r, long long g, long long rows,
                                   long long G) {
    return (r < rows && g < G) ? vals[(b * rows + r) * G + g] : 0u;
}

template <int MT, int FILL>
__global__ void semi_mma(const unsigned* vals, const unsigned* tc, const unsigned short* x, long long nb,
                         long long rows, long long cols, long long N, float fill, const float* colsum,
                         unsigned short* y) {
    __shared__ unsigned sx[SP_MMA_BN * SP_MMA_PITCH];
    if ((blockDim.x & 63) != 0) return;
    int nwarps = (int)(blockDim.x >> 5), warp = (int)(threadIdx.x >> 5), lane = (int)(threadIdx.x & 31);
    int g = lane >> 2, t = lane & 3, wn = warp & 1, wm = warp >> 1;
    long long mrows = 16LL * MT * (nwarps >> 1);
    long long G = cols >> 2, RT = (rows + 15) >> 4, P = (cols + 63) >> 6;
    long long mblocks = (rows + mrows - 1) / mrows, nblocks = (N + SP_MMA_BN - 1) / SP_MMA_BN;
    long long ntiles = nb * mblocks * nblocks;
    const unsigned ones[4] = {0x3C003C00u, 0x3C003C00u, 0x3C003C00u, 0x3C003C00u};  // float16 1.0 twice
    for (long long tile = blockIdx.x; tile < ntiles; tile += gridDim.x) {
        long long nbk = tile % nblocks, rest = tile / nblocks;
        long long mb = rest % mblocks, b = rest / mblocks;
        long long n0 = nbk * SP_MMA_BN, nw = n0 + 64 * wn, rt0 = mb * mrows / 16 + (long long)wm * MT;
        float acc[MT][8][4], accm[FILL ? MT : 1][8][4];
        for (int mt = 0; mt < MT; ++mt)
            for (int nt = 0; nt < 8; ++nt)
                for (int q = 0; q < 4; ++q) {
                    acc[mt][nt][q] = 0.0f;
                    if (FILL) accm[FILL ? mt : 0][nt][q] = 0.0f;
                }
        for (long long k0 = 0; k0 < cols; k0 += SP_MMA_KC) {
            __syncthreads();  // the previous chunk's reads of sx are done
            for (int e = (int)threadIdx.x; e < SP_MMA_BN * (SP_MMA_KC / 2); e += (int)blockDim.x) {
                int nn = e % SP_MMA_BN, kp = e / SP_MMA_BN;
                long long n = n0 + nn, k = k0 + 2 * kp;
                unsigned lo = 0, hi = 0;
                if (n < N) {
                    const unsigned short* xc = x + b * cols * N + n;
                    if (k < cols) lo = xc[k * N];
                    if (k + 1 < cols) hi = xc[(k + 1) * N];
                }
                sx[nn * SP_MMA_PITCH + kp] = lo | (hi << 16);
            }
            __syncthreads();
            long long p = k0 >> 6, gk = k0 >> 2;
            for (int mt = 0; mt < MT; ++mt) {
                long long rt = rt0 + mt, r0 = rt * 16 + g, r1 = r0 + 8;
                unsigned e = rt < RT ? tc[((b * RT + rt) * P + p) * 32 + lane] : 0x44444444u;
                const unsigned a0[4] = {sp_pair(vals, b, r0, gk + t, rows, G), sp_pair(vals, b, r1, gk + t, rows, G),
                                        sp_pair(vals, b, r0, gk + 4 + t, rows, G),
                                        sp_pair(vals, b, r1, gk + 4 + t, rows, G)};
                const unsigned a1[4] = {sp_pair(vals, b, r0, gk + 8 + t, rows, G),
                                        sp_pair(vals, b, r1, gk + 8 + t, rows, G),
                                        sp_pair(vals, b, r0, gk + 12 + t, rows, G),
                                        sp_pair(vals, b, r1, gk + 12 + t, rows, G)};
                for (int nt = 0; nt < 8; ++nt) {
                    if (nw + 8 * nt >= N) break;
                    const unsigned* col = sx + (64 * wn + 8 * nt + g) * SP_MMA_PITCH + t;
                    const unsigned b0[4] = {col[0], col[4], col[8], col[12]};
                    const unsigned b1[4] = {col[16], col[20], col[24], col[28]};
                    sp_mma_16832<0>(acc[mt][nt], a0, b0, e);
                    sp_mma_16832<1>(acc[mt][nt], a1, b1, e);
                    if (FILL) {
                        sp_mma_16832<0>(accm[FILL ? mt : 0][nt], ones, b0, e);
                        sp_mma_16832<1>(accm[FILL ? mt : 0][nt], ones, b1, e);
                    }
                }
            }
        }
        for (int mt = 0; mt < MT; ++mt) {
            long long r0 = (rt0 + mt) * 16 + g;
            for (int nt = 0; nt < 8; ++nt) {
                if (nw + 8 * nt >= N) break;
                for (int q = 0; q < 4; ++q) {
                    long long r = r0 + (q >> 1) * 8, n = nw + 8 * nt + 2 * t + (q & 1);
                    if (r >= rows || n >= N) continue;
                    float v = acc[mt][nt][q];
                    if (FILL) v = v + fill * (colsum[b * N + n] - accm[FILL ? mt : 0][nt][q]);
                    y[(b * rows + r) * N + n] = SPARRAY_CVT_F16_F32(v);
                }
            }
        }
    }
}

// One mma.sp m16n8k32 (f32 += f16 x f16) by the first warp on registers given per lane: a (32, 4),
// b (32, 4) b32, c (32, 4) float, e (32,) metadata; d (32, 4). sel 0 or 1 (a branch to the immediate).
__global__ void semi_mma_probe(const unsigned* a, const unsigned* b, const float* c, const unsigned* e, int sel,
                               float* d) {
    if (blockIdx.x != 0 || threadIdx.x >= 32) return;
    int lane = (int)threadIdx.x;
    const unsigned ra[4] = {a[4 * lane], a[4 * lane + 1], a[4 * lane + 2], a[4 * lane + 3]};
    const unsigned rb[4] = {b[4 * lane], b[4 * lane + 1], b[4 * lane + 2], b[4 * lane + 3]};
    const float rc[4] = {c[4 * lane], c[4 * lane + 1], c[4 * lane + 2], c[4 * lane + 3]};
    float rd[4];
    if (sel == 0) {
        SPARRAY_MMA_SP_16832(rd, ra, rb, rc, e[lane], 0);
    } else {
        SPARRAY_MMA_SP_16832(rd, ra, rb, rc, e[lane], 1);
    }
    for (int q = 0; q < 4; ++q) d[4 * lane + q] = rd[q];
}
