// Host emulation of the inline PTX that semi_structured.cu hides behind macros, included by
// _emulate.h: float16 conversions, and mma.sp m16n8k32 (f32 += f16 x f16, 2:4-sparse A) as a
// reference implementation of what the PTX ISA documents, run across the 32 lanes of an emulated
// warp, so the same .cu source runs in CI.
//
// The instruction's documented semantics (PTX ISA, "Matrix multiply-accumulate operation using
// mma.sp instruction with sparse matrix A", "Matrix Fragments for sparse mma.m16n8k32 with .f16 and
// .bf16 types", Figures 120-122; groupID = lane >> 2, tid = lane & 3):
//
// - A (16 x 32, stored compressed 16 x 16): 4 b32 registers per lane, each the two kept float16
//   values (low half first) of one chunk of 4 columns: a[0] row groupID, chunk tid (columns
//   4 tid .. 4 tid + 3); a[1] row groupID + 8, chunk tid; a[2] row groupID, chunk tid + 4; a[3] row
//   groupID + 8, chunk tid + 4.
// - B (32 x 8): 4 b32 registers per lane, b[i] holding rows 2 tid + 8 i and 2 tid + 8 i + 1 (low
//   half first) of column groupID.
// - C and D (16 x 8 float32): c[0], c[1] row groupID, columns 2 tid, 2 tid + 1; c[2], c[3] row
//   groupID + 8, the same columns.
// - Metadata: one b32 register; for selector sel the lanes with tid = 2 sel and 2 sel + 1 of each
//   group of 4 supply it: lane 4 groupID + 2 sel + h holds the codes of chunks 4 h .. 4 h + 3 of row
//   groupID in bits 0-15 and of row groupID + 8 in bits 16-31, 4 bits a chunk (first chunk lowest),
//   a code being i0 | i1 << 2, the positions of the chunk's low and high kept values.
//   ::ordered_metadata requires i0 < i1; a code without it (undefined on the hardware) makes the
//   rows it touches NaN here, so a wrong layout cannot pass unnoticed.
//
// The products of float16 values are exact in float32; the reference adds them in float32 in k
// order and then adds c. The hardware's internal order and rounding of that sum are not documented
// and not emulated bit for bit (the tests use sums that are exact in float32).
#pragma once

#include <cstdio>
#include <cstdlib>

namespace sparray_emu {

// float16 bits -> float (exact)
inline float f16_to_f32(unsigned short h) {
    uint32_t sign = uint32_t(h & 0x8000u) << 16, e = (h >> 10) & 0x1fu, m = h & 0x3ffu, bits;
    if (e == 0) {
        float f = float(m) * 0x1p-24f;  // zero or subnormal: m * 2^-24, exact
        std::memcpy(&bits, &f, 4);
        bits |= sign;
    } else if (e == 31) {
        bits = sign | 0x7f800000u | (m << 13);
    } else {
        bits = sign | ((e + 112u) << 23) | (m << 13);
    }
    float out;
    std::memcpy(&out, &bits, 4);
    return out;
}

// float -> float16 bits, rounded to nearest, ties to even (cvt.rn.f16.f32)
inline unsigned short f32_to_f16(float f) {
    uint32_t x;
    std::memcpy(&x, &f, 4);
    uint32_t sign = (x >> 16) & 0x8000u, ax = x & 0x7fffffffu;
    if (ax > 0x7f800000u) return (unsigned short)(sign | 0x7e00u | ((ax >> 13) & 0x3ffu));  // NaN, quiet
    if (ax >= 0x477ff000u) return (unsigned short)(sign | 0x7c00u);  // 65520 and above round to inf
    if (ax < 0x38800000u) {  // below 2^-14: a subnormal float16 (or zero), in units of 2^-24
        float a;
        std::memcpy(&a, &ax, 4);
        return (unsigned short)(sign | (uint32_t)std::nearbyint(a * 0x1p24f));  // exact scaling, then RNE
    }
    uint32_t e = ax - 0x38000000u;  // exponent rebiased by 127 - 15
    uint32_t h = e >> 13, rem = e & 0x1fffu;
    if (rem > 0x1000u || (rem == 0x1000u && (h & 1u))) ++h;  // a carry moves into the exponent
    return (unsigned short)(sign | h);
}

struct MmaLane {
    uint32_t a[4], b[4], e;
    float c[4];
};

// One slot per (warp of the block, lane): launches are serialised and blocks run one at a time.
inline MmaLane mma_slots[32][32];
inline std::atomic<unsigned long long> mma_arrivals[32];

[[noreturn]] inline void mma_abort(const char* why) {
    std::fprintf(stderr, "sparray CUDA emulator: mma.sp %s\n", why);
    std::abort();
}

inline float half_of(uint32_t reg, int high) { return f16_to_f32((unsigned short)(high ? reg >> 16 : reg & 0xffffu)); }

// Row `row`, chunk `chunk` of the warp's A for selector sel: the two kept values and their
// columns in the chunk (false: the code is invalid).
inline bool mma_chunk(const MmaLane* w, int row, int chunk, int sel, float* v, int* pos) {
    int r8 = row & 7, upper = row >> 3;
    const MmaLane& meta = w[4 * r8 + 2 * sel + (chunk >> 2)];
    uint32_t code = (meta.e >> (16 * upper + 4 * (chunk & 3))) & 15u;
    pos[0] = int(code & 3u);
    pos[1] = int(code >> 2);
    uint32_t reg = w[4 * r8 + (chunk & 3)].a[2 * (chunk >> 2) + upper];
    v[0] = half_of(reg, 0);
    v[1] = half_of(reg, 1);
    return pos[0] < pos[1];
}

inline float mma_b(const MmaLane* w, int k, int n) { return half_of(w[4 * n + ((k & 7) >> 1)].b[k >> 3], k & 1); }

// d = A B + c for the calling lane's 4 elements, every lane of the warp taking part (.sync.aligned).
inline void mma_sp_16832(float* d, const unsigned* a, const unsigned* b, const float* c, unsigned e, int sel) {
    int w = warp(), l = lane();
    if (state->warp_size(w) != 32) mma_abort("needs a whole warp (blockDim.x a multiple of 32)");
    if (sel != 0 && sel != 1) mma_abort("m16n8k32 .f16 takes sparsity selector 0 or 1");
    MmaLane& me = mma_slots[w][l];
    for (int i = 0; i < 4; ++i) {
        me.a[i] = a[i];
        me.b[i] = b[i];
        me.c[i] = c[i];
    }
    me.e = e;
    mma_arrivals[w].fetch_add(1);
    state->warp_sync[w].arrive_and_wait();
    if (mma_arrivals[w].load() % 32 != 0) mma_abort("reached by only part of a warp (all 32 lanes must execute it)");
    const MmaLane* slots = mma_slots[w];
    int group = l >> 2, tid = l & 3;
    float out[4];
    for (int q = 0; q < 4; ++q) {
        int row = group + 8 * (q >> 1), col = 2 * tid + (q & 1);
        float s = 0.0f;
        for (int chunk = 0; chunk < 8; ++chunk) {  // only the kept values are multiplied, in k order
            float v[2];
            int pos[2];
            if (!mma_chunk(slots, row, chunk, sel, v, pos)) s = std::nanf("");
            for (int i = 0; i < 2; ++i) s += v[i] * mma_b(slots, 4 * chunk + pos[i], col);
        }
        out[q] = s + me.c[q];
    }
    state->warp_sync[w].arrive_and_wait();  // every lane has read the slots before any is reused
    for (int q = 0; q < 4; ++q) d[q] = out[q];
}

}  // namespace sparray_emu

#define SPARRAY_CVT_F32_F16(h) sparray_emu::f16_to_f32(h)
#define SPARRAY_CVT_F16_F32(f) sparray_emu::f32_to_f16(f)
#define SPARRAY_MMA_SP_16832(d, a, b, c, e, sel) sparray_emu::mma_sp_16832((d), (a), (b), (c), (e), (sel))
