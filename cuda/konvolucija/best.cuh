// konvolucija best: register-blocked tiles and the 8-bit path, beyond the lecture; included by
// plan.cu after the lecture's kernels, whose arguments (Shape) and border rule (pixel) it shares.
#pragma once

namespace {

// best's mask: a kernel argument (from the plan's copy), so it lives in the launch's constant bank
// as c_mask lives in its own (a product takes it as an operand, a broadcast to the warp), without
// a copy before the kernel (which would be part of every run's time). N: the taps of the
// compiled-in size, or all that the general path allows.
template <int N>
struct Taps {
    float w[N];
};

// ---- best: register-blocked tiles, beyond the lecture --------------------------------------
//
// 2-D: a block of 256 threads owns a tile of 256 columns x 8 rows (3 x 3 masks and the magnitude,
// whose two sums take twice the registers) or x 16 rows (5 x 5 and 7 x 7, where the halo rows
// cost more; BENCHMARKS has the shapes measured). It loads the tile's patch
// (the tile plus its halo, the border rule applied once at load) into shared memory in 16-byte
// vectors where the row allows, then each thread walks down its column: every patch row is read
// from shared memory once (mw values) and added into the (up to mh) outputs it contributes to,
// which wait in registers (the rows roll through them), so a 5 x 5 mask costs 5 shared reads an
// output instead of t's 25. With `magnitude`, the same patch row also feeds the transposed mask,
// and the output is sqrt(gx^2 + gy^2) (Sobel's gradient magnitude from one tile load). Masks of
// 3 x 3, 5 x 5 and 7 x 7 are compiled as such (fully unrolled, the mask a kernel argument: constant
// operands of the products); other sizes take the same path with loops.
// 1-D: a block of 256 threads owns 4096 outputs; the patch is loaded the same way, and each
// output reads its mw taps from shared memory (one row: nothing to roll); 3, 5 and 7 taps are
// compiled in.
constexpr int kBestCols = 256, kBestThreads2D = kBestCols / 2, kBest1D = 4096, kBest1DThreads = 256;
// (masks past 7 x 7 take the general path at x 8: a 31 x 31 patch then fits 48 KB of shared memory)
// (mask_h: the compiled-in size, 0 for the general path)
__host__ __device__ constexpr int best_rows(int mask_h, bool magnitude) { return mask_h == 5 || mask_h == 7 ? (magnitude ? 8 : 16) : 8; }

// The patch's left margin: the radius rounded up to 4, so a patch row starts 16-byte aligned
// where the image row does.
__host__ __device__ constexpr int margin(int r) { return (r + 3) / 4 * 4; }

// Loads the patch of rows y0 - ry .. y0 + rows - 1 + ry and columns x0 - P .. x0 + cols - 1 + P,
// in rounds of kPatchInFlight 16-byte loads a thread, every load of a round issued before its
// first store: an SM's resident threads then keep up to 64 bytes each in flight, where one load
// a round kept 16, fewer than a fast memory system needs (tc_device.bytes_in_flight_per_sm;
// BENCHMARKS: the patch loads).
constexpr int kPatchInFlight = 4;
__device__ __forceinline__ void load_patch(const float *in, const Shape &s, float *patch, int x0, int y0, int cols,
                                           int rows, int threads) {
    const int rx = s.mw / 2, ry = s.mh / 2, P = margin(rx), pw = cols + 2 * P, ph = rows + 2 * ry, chunks = pw / 4;
    const int total = chunks * ph;
    const bool vectors = (s.h == 1 || s.w % 4 == 0) && (reinterpret_cast<uintptr_t>(in) & 15) == 0;
    for (int k0 = threadIdx.x; k0 < total; k0 += kPatchInFlight * threads) {
        float4 v[kPatchInFlight];
#pragma unroll
        for (int b = 0; b < kPatchInFlight; ++b) {
            const int k = k0 + b * threads, pr = k / chunks, pc = 4 * (k % chunks), x = x0 - P + pc, y = y0 - ry + pr;
            if (k >= total) break;
            if (vectors && x >= 0 && x + 3 < s.w && y >= 0 && y < s.h) {
                v[b] = __ldg(reinterpret_cast<const float4 *>(in + int64_t(y) * s.w + x));
            } else {
                v[b].x = pixel(in, s.w, s.h, x, y, s.border), v[b].y = pixel(in, s.w, s.h, x + 1, y, s.border);
                v[b].z = pixel(in, s.w, s.h, x + 2, y, s.border), v[b].w = pixel(in, s.w, s.h, x + 3, y, s.border);
            }
        }
#pragma unroll
        for (int b = 0; b < kPatchInFlight; ++b) {
            const int k = k0 + b * threads;
            if (k >= total) break;
            *reinterpret_cast<float4 *>(patch + (k / chunks) * pw + 4 * (k % chunks)) = v[b];
        }
    }
}

// Whether the mask (up to 7 x 7) is one column times one row, exactly: with wx the first row that
// holds a nonzero tap and wy that tap's column divided by it, wy[j] * wx[i] == M[j][i] in float32
// for every tap (box, Sobel's masks, the shift, integer outer products; a NaN tap never passes).
// Then best's 8-bit path filters separably, mw + mh products an output instead of mw x mh, each
// product of the full mask being one of these exactly: only the order of the additions differs.
// It also says whether every tap is the same w >= 0 with 255 x taps x w < 255.5 (a box): then the
// 8-bit path sums the bytes as integers and no output needs a clamp. Decided on the host from the
// plan's mask, once a run, and passed to the kernel with the mask (until the mask came with the
// plan, one warp decided it on the device in a launch of its own before the filter's).
struct Factors {
    int separable, uniform;
    float w, wx[8], wy[8];
};

Factors factor_mask(const float *m, int mw, int mh) {
    const int taps = mw * mh;
    int pivot = 0;  // the first nonzero tap, row-major (none: tap 0, whose 0/0 fails the check)
    while (pivot < taps && m[pivot] == 0.0f) ++pivot;
    if (pivot == taps) pivot = 0;
    const int j0 = pivot / mw, i0 = pivot % mw;
    const float p = m[pivot];
    Factors f{};
    for (int i = 0; i < mw; ++i) f.wx[i] = m[j0 * mw + i];
    for (int j = 0; j < mh; ++j) f.wy[j] = m[j * mw + i0] / p;
    bool exact = true, same = true;  // (a NaN tap is never the same)
    for (int k = 0; k < taps; ++k) {
        const float product = f.wy[k / mw] * f.wx[k % mw];  // (float32, rounded once, as the device does)
        exact = exact && product == m[k];
        same = same && m[k] == m[0];
    }
    f.separable = exact;
    f.w = m[0];
    f.uniform = same && m[0] >= 0.0f && 255.0 * taps * double(m[0]) < 255.5;
    return f;
}

// (The float path keeps its full mask: its separable form measured slower, since the mask's
// weights are immediate operands of its products and its time goes to shared memory and DRAM.)
// MW, MH: the mask's size when compiled in (0: from s); MAG: the gradient magnitude. Each thread
// owns two adjacent columns: a patch row comes in as 8-byte pairs (a 5 x 5 mask: 3 shared reads
// for two outputs instead of 10), and the outputs go out as pairs where the row allows.
template <int MW, int MH, bool MAG>
__global__ void __launch_bounds__(kBestThreads2D) conv_best(const float *in, float *out, Shape s, Taps<MW ? MW * MH : kMaxTaps> m) {
    constexpr int kBestRows = best_rows(MH, MAG);
    extern __shared__ float4 patch4[];
    float *patch = reinterpret_cast<float *>(patch4);
    const int mw = MW ? MW : s.mw, mh = MH ? MH : s.mh;
    const int x0 = blockIdx.x * kBestCols, y0 = blockIdx.y * kBestRows;
    load_patch(in, s, patch, x0, y0, kBestCols, kBestRows, kBestThreads2D);
    __syncthreads();
    const int P = margin(mw / 2), pw = kBestCols + 2 * P, x = x0 + 2 * int(threadIdx.x);  // the first of two columns
    if (x >= s.w) return;
    const bool second = x + 1 < s.w, pairs = second && s.w % 2 == 0 && (reinterpret_cast<uintptr_t>(out) & 7) == 0;
    float *o = out + int64_t(y0) * s.w + x;
    const int rows = min(kBestRows, s.h - y0);
    if constexpr (MW > 0) {  // rows roll through registers
        // a row's values: columns x - R2 .. x + 1 + R2 (the radius rounded up to even: 8-byte reads)
        constexpr int R = MW / 2, R2 = (R + 1) / 2 * 2, NV = 2 + 2 * R2;
        const float2 *pairs_in = reinterpret_cast<const float2 *>(patch + P - R2 + 2 * int(threadIdx.x));
        float gx[2][kBestRows], gy[2][kBestRows];
#pragma unroll
        for (int r = 0; r < kBestRows; ++r) gx[0][r] = gx[1][r] = gy[0][r] = gy[1][r] = 0.0f;
#pragma unroll
        for (int py = 0; py < kBestRows + MH - 1; ++py) {
            float v[NV];
#pragma unroll
            for (int q = 0; q < NV / 2; ++q) {
                const float2 t = pairs_in[py * (pw / 2) + q];
                v[2 * q] = t.x, v[2 * q + 1] = t.y;
            }
#pragma unroll
            for (int j = MH - 1; j >= 0; --j) {  // the output row this patch row meets with mask row j
                const int r = py - j;
                if (r < 0 || r >= kBestRows) continue;
#pragma unroll
                for (int c = 0; c < 2; ++c)
#pragma unroll
                    for (int i = 0; i < MW; ++i) {
                        gx[c][r] += m.w[j * MW + i] * v[R2 - R + c + i];
                        if (MAG) gy[c][r] += m.w[i * MW + j] * v[R2 - R + c + i];
                    }
            }
        }
#pragma unroll
        for (int r = 0; r < kBestRows; ++r) {
            if (r >= rows) break;
            const float a = MAG ? sqrtf(gx[0][r] * gx[0][r] + gy[0][r] * gy[0][r]) : gx[0][r],
                        b = MAG ? sqrtf(gx[1][r] * gx[1][r] + gy[1][r] * gy[1][r]) : gx[1][r];
            if (pairs) {
                *reinterpret_cast<float2 *>(o + int64_t(r) * s.w) = make_float2(a, b);
            } else {
                o[int64_t(r) * s.w] = a;
                if (second) o[int64_t(r) * s.w + 1] = b;
            }
        }
    } else {  // any size: each output from the patch
        for (int c = 0; c < 2 && x + c < s.w; ++c) {
            const float *col = patch + 2 * int(threadIdx.x) + c + P - mw / 2;  // the column's first tap
            for (int r = 0; r < rows; ++r) {
                float gx = 0.0f, gy = 0.0f;
                for (int j = 0; j < mh; ++j)
                    for (int i = 0; i < mw; ++i) {
                        const float v = col[(r + j) * pw + i];
                        gx += m.w[j * mw + i] * v;
                        if (MAG) gy += m.w[i * mw + j] * v;
                    }
                o[int64_t(r) * s.w + c] = MAG ? sqrtf(gx * gx + gy * gy) : gx;
            }
        }
    }
}

// 2-D, streamed (5 x 5 masks, and the 3 x 3 magnitude): the tiles above re-read 4 halo rows of 16
// (2 of 8 for the magnitude) through shared memory after a barrier that the blocks of a wave wait
// at in step. Here each thread owns 4 columns of a strip of ROWS rows and walks down it: a row's
// 16-byte load is issued U rows before it is used (no shared memory, no barrier), the 2 columns
// either side come from the neighbouring lanes by shuffles (a warp's first and last lanes load
// them), and the outputs roll through MH rows of accumulators. Each output's products are added in
// the tiles' order (rows down, columns across): the two paths give the same bits. The strip heights
// and the launch bounds come from BENCHMARKS' sweeps: registers decide it (more of them, fewer
// blocks an SM, and the stream slows). The 3 x 3 stays on the tiles, which measured faster.
constexpr int kStreamThreads = kBestThreads2D, kStreamCols = 4 * kStreamThreads;  // (the plan's threads: best's)
__host__ __device__ constexpr int stream_rows(bool magnitude) { return magnitude ? 16 : 64; }

// (VEC: rows of a multiple of 4 columns and 16-byte aligned views, 16-byte loads and stores; the
// run picks it, the plan cannot know the views)
template <int MW, bool MAG, bool VEC, int ROWS = stream_rows(MAG), int U = MAG ? 3 : 10, int BLOCKS = MAG ? 7 : 4>
__global__ void __launch_bounds__(kStreamThreads, VEC ? BLOCKS : 1) conv_stream(const float *in, float *out, Shape s, Taps<MW * MW> m) {
    constexpr int MH = MW, R = MW / 2, N = ROWS + MH - 1;  // input rows y0 - R .. y0 + ROWS - 1 + R
    static_assert(R <= 2 && U % MH == 0, "2 columns of halo from a neighbour; a row's slots known when compiled");
    const int lane = threadIdx.x & 31, x = (blockIdx.x * kStreamThreads + threadIdx.x) * 4, y0 = blockIdx.y * ROWS;
    const bool zero = s.border == TC_BORDER_ZERO;
    const auto at = [&](const float *row, int c) {  // column c of the row, the border's value outside it
        return c >= 0 && c < s.w ? __ldg(row + c) : zero ? 0.0f : __ldg(row + (c < 0 ? 0 : s.w - 1));
    };
    // A thread's 2 columns either side come from its neighbouring lanes; a warp's first lane loads
    // the 2 left of it and its last lane the 2 right of it where they lie in the row; outside the
    // row they are the border's (0, or the thread's own edge column), and so for the last thread
    // of the row (lanes past the row's end load columns in it, never used). Decided once, not a row.
    const bool left_loads = lane == 0 && x > 0 && x < s.w, right_in = x + 4 < s.w, right_loads = lane == 31 && right_in,
               right_shuffles = lane < 31 && right_in;
    const int xv = min(x, s.w - 4), hx = lane == 0 ? x - 2 : x + 4;  // (VEC: s.w >= 4)
    float4 buf[U];  // rows in flight: the thread's 4 columns, and the 2 a warp's end loads
    float2 halo[U];
    const auto load = [&](int i, int slot) {
        const int y = y0 - R + i;
        const bool in_rows = i < N && (!zero || (y >= 0 && y < s.h));
        const float *row = in + int64_t(min(max(y, 0), s.h - 1)) * s.w;
        float4 v = make_float4(0.0f, 0.0f, 0.0f, 0.0f);
        float2 e = make_float2(0.0f, 0.0f);
        if constexpr (VEC) {
            if (in_rows) v = __ldg(reinterpret_cast<const float4 *>(row + xv));
            if (in_rows && (left_loads || right_loads)) e = __ldg(reinterpret_cast<const float2 *>(row + hx));
        } else if (in_rows) {
            v = make_float4(at(row, x), at(row, x + 1), at(row, x + 2), at(row, x + 3));
            if (left_loads || right_loads) e = make_float2(at(row, hx), at(row, hx + 1));
        }
        buf[slot] = v, halo[slot] = e;
    };
#pragma unroll
    for (int u = 0; u < U; ++u) load(u, u);
    float gx[MH][4], gy[MH][4];  // output row r's sums in slot r % MH
#pragma unroll
    for (int j = 0; j < MH; ++j)
#pragma unroll
        for (int c = 0; c < 4; ++c) gx[j][c] = gy[j][c] = 0.0f;
#pragma unroll 1
    for (int g = 0; g < (N + U - 1) / U; ++g)
#pragma unroll
        for (int u = 0; u < U; ++u) {
            const int i = g * U + u;  // the input row; output row i - j meets it with mask row j
            if (i >= N) break;
            const float4 v = buf[u];
            const float2 h = halo[u];
            load(i + U, u);
            const float l0 = __shfl_up_sync(~0u, v.z, 1), l1 = __shfl_up_sync(~0u, v.w, 1);
            const float r0 = __shfl_down_sync(~0u, v.x, 1), r1 = __shfl_down_sync(~0u, v.y, 1);
            const float lb = zero ? 0.0f : v.x, rb = zero ? 0.0f : v.w;  // the border beyond the thread's columns
            const float2 l = lane > 0 ? make_float2(l0, l1) : left_loads ? h : make_float2(lb, lb),
                         r = right_shuffles ? make_float2(r0, r1) : right_loads ? h : make_float2(rb, rb);
            const float c8[8] = {l.x, l.y, v.x, v.y, v.z, v.w, r.x, r.y};  // columns x - 2 .. x + 5
#pragma unroll
            for (int j = MH - 1; j >= 0; --j) {  // (an output's rows ascending, as the tiles add them)
                const int o = i - j;
                if (o < 0 || o >= ROWS) continue;
                const int slot = ((u - j) % MH + MH) % MH;
#pragma unroll
                for (int c = 0; c < 4; ++c)
#pragma unroll
                    for (int k = 0; k < MW; ++k) {
                        gx[slot][c] += m.w[j * MW + k] * c8[2 - R + c + k];
                        if (MAG) gy[slot][c] += m.w[k * MW + j] * c8[2 - R + c + k];
                    }
            }
            const int o = i - (MH - 1);  // this output row has all its rows
            if (o < 0) continue;
            const int slot = ((u - (MH - 1)) % MH + MH) % MH;
            float res[4];
#pragma unroll
            for (int c = 0; c < 4; ++c) {
                res[c] = MAG ? sqrtf(gx[slot][c] * gx[slot][c] + gy[slot][c] * gy[slot][c]) : gx[slot][c];
                gx[slot][c] = gy[slot][c] = 0.0f;
            }
            if (y0 + o >= s.h || x >= s.w) continue;
            float *dst = out + int64_t(y0 + o) * s.w + x;
            if (VEC) {  // (the magnitude as measured: evict-first stores)
                const float4 q = make_float4(res[0], res[1], res[2], res[3]);
                if (MAG) __stcs(reinterpret_cast<float4 *>(dst), q);
                else *reinterpret_cast<float4 *>(dst) = q;
            } else {
#pragma unroll
                for (int c = 0; c < 4; ++c)
                    if (x + c < s.w) dst[c] = res[c];
            }
        }
}

template <int MW>
__global__ void __launch_bounds__(kBest1DThreads) conv_best1d(const float *in, float *out, Shape s, Taps<MW ? MW : TC_KONVOLUCIJA_MAX_1D> m) {
    extern __shared__ float4 patch4[];
    float *patch = reinterpret_cast<float *>(patch4);
    const int x0 = blockIdx.x * kBest1D, mw = MW ? MW : s.mw, rx = mw / 2;
    load_patch(in, s, patch, x0, 0, kBest1D, 1, kBest1DThreads);
    __syncthreads();
    const float *taps = patch + margin(rx) - rx;
#pragma unroll 4
    for (int k = threadIdx.x; k < kBest1D; k += kBest1DThreads) {
        if (x0 + k >= s.w) return;
        float acc = 0.0f;
#pragma unroll
        for (int i = 0; i < mw; ++i) acc += m.w[i] * taps[k + i];
        out[x0 + k] = acc;
    }
}

// ---- best's 8-bit path: uint8 pixels in and out ---------------------------------------------
//
// A block of 128 threads owns a tile of 1024 columns x 16 rows (the streamed box, below: 4 rows);
// each thread 8 adjacent columns.
// The patch (the tile, 16 bytes of halo each side and mh - 1 halo rows) is loaded in 16-byte
// vectors where the row allows, all of a thread's loads issued before the first is stored (each
// thread keeps about 10 in flight), and kept as bytes in shared memory. A thread reads each patch
// row as one 8-byte and two 4-byte words (its columns and 4 either side), turns the bytes it needs
// into floats (2^23 + b as float bits, minus 2^23: exact), and adds them into the outputs they
// meet; the output rows roll through mh rows of 8 accumulators, and each row goes out (8 pixels,
// one 8-byte word) as soon as its last patch row is in. Rounding: adding 1.5 x 2^23 rounds a value
// in 0..255 to the nearest integer (ties to even) in the low byte. Separable masks (factor_mask)
// take mw + mh products an output. Sums in float32, as the float path's; a box's sums in integers
// (conv_u8_box).
constexpr int kU8Threads = 128, kU8PerThread = 8, kU8Cols = kU8Threads * kU8PerThread, kU8Rows = 16, kU8Margin = 16;

__device__ __forceinline__ float byte_float(uint32_t word, int k) {  // byte k of word, exactly
    return __uint_as_float(__byte_perm(word, 0x4B000000u, 0x7440 + k)) - 8388608.0f;
}

__device__ __forceinline__ uint32_t rounded_bits(float v) {  // the low byte: v clamped to 0..255, rounded (NaN: 0)
    return __float_as_uint(fminf(fmaxf(v, 0.0f), 255.0f) + 12582912.0f);
}

// A thread's 8 outputs of a row (the low bytes of q) to o: one 8-byte word where the row allows,
// else byte by byte up to the row's end (left: the columns from o to the end).
__device__ __forceinline__ void store_u8_row(const uint32_t (&q)[kU8PerThread], uint8_t *o, bool words, int left) {
    if (words) {
        *reinterpret_cast<uint2 *>(o) = make_uint2(__byte_perm(__byte_perm(q[0], q[1], 0x0040), __byte_perm(q[2], q[3], 0x0040), 0x5410),
                                                   __byte_perm(__byte_perm(q[4], q[5], 0x0040), __byte_perm(q[6], q[7], 0x0040), 0x5410));
    } else {
#pragma unroll
        for (int c = 0; c < kU8PerThread; ++c)
            if (c < left) o[c] = uint8_t(q[c]);
    }
}

// A thread's columns of a patch row and 4 bytes either side (row: its first column): one 8-byte
// and two 4-byte shared reads.
__device__ __forceinline__ void patch_words(const uint8_t *row, uint32_t (&word)[4]) {
    const uint2 mid = *reinterpret_cast<const uint2 *>(row);
    word[0] = *reinterpret_cast<const uint32_t *>(row - 4), word[1] = mid.x, word[2] = mid.y;
    word[3] = *reinterpret_cast<const uint32_t *>(row + 8);
}

// The rows of the tile: SEP: separable (f's wx, wy), else the full mask m.
template <int MW, bool MAG, bool SEP>
__device__ __forceinline__ void conv_u8_rows(const uint8_t *patch, uint8_t *out, const Shape &s, int x, int y0,
                                             const Taps<MW * MW> &m, const Factors &f) {
    constexpr int MH = MW, R = MW / 2, PW = kU8Cols + 2 * kU8Margin, W = kU8PerThread + 2 * R;
    float wx[MW], wy[MH];
#pragma unroll
    for (int i = 0; i < MW; ++i) wx[i] = SEP ? f.wx[i] : 0.0f, wy[i] = SEP ? f.wy[i] : 0.0f;
    float gx[MH][kU8PerThread], gy[MH][kU8PerThread];  // output row r in slot r % MH
    const bool words = s.w % 8 == 0 && (reinterpret_cast<uintptr_t>(out) & 7) == 0 && x + kU8PerThread <= s.w;
    const int c0 = kU8Margin + (x % kU8Cols);  // the thread's first column in the patch
    // the patch rows in groups of mh (a row's slot then known when compiled: the code stays small
    // enough for the instruction cache, which the fully unrolled rows overflowed)
#pragma unroll 1
    for (int g = 0; g < (kU8Rows + MH - 2) / MH + 1; ++g)
#pragma unroll
    for (int u = 0; u < MH; ++u) {
        const int py = g * MH + u;
        if (py >= kU8Rows + MH - 1) break;
        uint32_t word[4];
        patch_words(patch + py * PW + c0, word);
        float v[W];  // columns x - R .. x + 7 + R
#pragma unroll
        for (int k = 0; k < W; ++k) v[k] = byte_float(word[(k + 4 - R) / 4], (k + 4 - R) % 4);
        float hx[kU8PerThread], hy[kU8PerThread];
        if (SEP) {
#pragma unroll
            for (int c = 0; c < kU8PerThread; ++c) {
                hx[c] = wx[0] * v[c], hy[c] = wy[0] * v[c];
#pragma unroll
                for (int i = 1; i < MW; ++i) hx[c] += wx[i] * v[c + i], hy[c] += wy[i] * v[c + i];
            }
        }
#pragma unroll
        for (int j = 0; j < MH; ++j) {  // mask row j meets output row py - j
            const int r = py - j;
            if (r < 0 || r >= kU8Rows) continue;
#pragma unroll
            for (int c = 0; c < kU8PerThread; ++c) {
                float ax = j ? gx[(u - j + MH) % MH][c] : 0.0f, ay = j ? gy[(u - j + MH) % MH][c] : 0.0f;
                if (SEP) {
                    ax += wy[j] * hx[c];
                    if (MAG) ay += wx[j] * hy[c];
                } else {
#pragma unroll
                    for (int i = 0; i < MW; ++i) {
                        ax += m.w[j * MW + i] * v[c + i];
                        if (MAG) ay += m.w[i * MW + j] * v[c + i];
                    }
                }
                gx[(u - j + MH) % MH][c] = ax, gy[(u - j + MH) % MH][c] = ay;
            }
        }
        const int r = py - (MH - 1), y = y0 + r;  // output row r has all its rows
        if (r < 0 || y >= s.h) continue;
        uint32_t q[kU8PerThread];
#pragma unroll
        for (int c = 0; c < kU8PerThread; ++c) {
            const float a = gx[(u + 1) % MH][c], b = gy[(u + 1) % MH][c];
            q[c] = rounded_bits(MAG ? sqrtf(a * a + b * b) : a);
        }
        store_u8_row(q, out + int64_t(y) * s.w + x, words, s.w - x);
    }
}

// A box (Factors::uniform): the output is rne(S x w) with S the exact integer sum of the mw x mh
// bytes, which takes integer adds instead of float products. Sums travel two to a register, 16
// bits each (at most 49 x 255): one byte_perm spreads a word's bytes 0 and 2 (1 and 3) into a pair,
// so a pair holds the columns c and c + 2, and a thread's 8 outputs are 4 pairs; a funnel shift
// of two neighbouring pairs gives the pairs that start at columns 2 and 3 of a word. A patch row's
// pairs sum mw neighbours (adds of three operands), its sums roll through mh rows of registers,
// and an output row adds mh of them. S then goes to float exactly (2^23 + S as bits, minus 2^23),
// and one fma with w and 1.5 x 2^23 rounds S x w once (ties to even) into the low byte: the float
// path's product of the same w, without its float sum's rounding.
__device__ __forceinline__ uint32_t pair_at(const uint32_t (&even)[4], const uint32_t (&odd)[4], int t) {
    const int i = (t + 4) / 4, k = (t + 4) % 4;  // (x[t], x[t + 2]) for t = -4 .. 8, word 0 holding x[-4 .. -1]
    return k == 0 ? even[i] : k == 1 ? odd[i] : __funnelshift_r(k == 2 ? even[i] : odd[i], k == 2 ? even[i + 1] : odd[i + 1], 16);
}

__device__ __forceinline__ uint32_t lane_rounded(uint32_t pair, uint32_t sel, float w) {  // sel 0x7610: the low lane, 0x7632: the high
    const float sum = __uint_as_float(__byte_perm(pair, 0x4B000000u, sel)) - 8388608.0f;
    return __float_as_uint(fmaf(sum, w, 12582912.0f));
}

// A row's pair sums (words as patch_words gives them): pair p holds the sums of the 2R + 1
// neighbours of outputs (0, 2), (1, 3), (4, 6), (5, 7).
template <int R>
__device__ __forceinline__ void row_pair_sums(const uint32_t (&word)[4], uint32_t (&h)[4]) {
    uint32_t even[4], odd[4];
#pragma unroll
    for (int i = 0; i < 4; ++i) even[i] = __byte_perm(word[i], 0, 0x4240), odd[i] = __byte_perm(word[i], 0, 0x4341);
#pragma unroll
    for (int p = 0; p < 4; ++p) {  // pair p: word p / 2 of the outputs, its odd columns if p is odd
        uint32_t a = 0;
#pragma unroll
        for (int d = -R; d <= R; ++d) a += pair_at(even, odd, 4 * (p / 2) + p % 2 + d);
        h[p] = a;
    }
}

// An output row from its MH rows' pair sums (the last row in slot u): S x w rounded, the bytes in q.
template <int MH>
__device__ __forceinline__ void box_row(const uint32_t (&h)[MH][4], int u, float w, uint32_t (&q)[kU8PerThread]) {
#pragma unroll
    for (int p = 0; p < 4; ++p) {
        uint32_t v = 0;
#pragma unroll
        for (int j = 0; j < MH; ++j) v += h[(u - j + MH) % MH][p];
        const int c = 4 * (p / 2) + p % 2;
        q[c] = lane_rounded(v, 0x7610, w), q[c + 2] = lane_rounded(v, 0x7632, w);
    }
}

template <int MW>
__device__ __forceinline__ void conv_u8_box(const uint8_t *patch, uint8_t *out, const Shape &s, int x, int y0, float w) {
    constexpr int MH = MW, R = MW / 2, PW = kU8Cols + 2 * kU8Margin;
    uint32_t h[MH][4];  // patch row py's pair sums in slot py % MH: outputs (0, 2), (1, 3), (4, 6), (5, 7)
    const bool words = s.w % 8 == 0 && (reinterpret_cast<uintptr_t>(out) & 7) == 0 && x + kU8PerThread <= s.w;
    const int c0 = kU8Margin + (x % kU8Cols);
#pragma unroll 1
    for (int g = 0; g < (kU8Rows + MH - 2) / MH + 1; ++g)
#pragma unroll
    for (int u = 0; u < MH; ++u) {
        const int py = g * MH + u;
        if (py >= kU8Rows + MH - 1) break;
        uint32_t word[4];
        patch_words(patch + py * PW + c0, word);
        row_pair_sums<R>(word, h[u]);
        const int r = py - (MH - 1), y = y0 + r;  // output row r has all its rows
        if (r < 0 || y >= s.h) continue;
        uint32_t q[kU8PerThread];
        box_row<MH>(h, u, w, q);
        store_u8_row(q, out + int64_t(y) * s.w + x, words, s.w - x);
    }
}

// The 3 x 3 box streamed: the patch kernel loads its whole patch, waits at a barrier, then sums,
// and the blocks of a wave do so in step. Here each thread takes its 8 columns down a short tile without shared memory:
// every row's 8-byte load is issued before the first sum, the byte either side comes from the
// neighbouring lanes by shuffles (a warp's first and last lanes load a word), and the sums, the
// rounding and the packing are conv_u8_box's, so the bits are the same. Rows whose width is a
// multiple of 8 on 8-byte aligned views (the patch kernel takes the others).
// The tile is kBoxRows = 4 output rows (6 input rows), a grid of its own (the run's, not the
// plan's 16-row tiles): short tiles put all of a block's loads in flight at once, where a block
// that streams its rows issues the last of them with nothing behind (BENCHMARKS: the tile height
// swept from 4 to 128 rows).
constexpr int kBoxRows = 4;
constexpr int64_t kMaxGridY = 65535;  // gridDim.y's limit on every CUDA GPU (the box's tile rows; plans read the device's)
// EDGE: a tile whose rows y0 - 1 .. y0 + kBoxRows reach past the image (the border decides those
// rows); the others (all but the first and last tile rows of an image) step a pointer down their
// rows, with no clamp, border test or 64-bit multiply a row.
template <bool EDGE>
__device__ __forceinline__ void box_stream_tile(const uint8_t *in, uint8_t *out, const Shape &s, float w, int x, int y0) {
    constexpr int N = kBoxRows + 2;  // input rows y0 - 1 .. y0 + kBoxRows
    const int lane = threadIdx.x & 31;
    const bool zero = s.border == TC_BORDER_ZERO;
    // outside the row: the border's byte (0, or the thread's own edge column), and so for the last
    // thread of the row (lanes past the row's end load columns in it, never used)
    const bool left_loads = lane == 0 && x > 0 && x < s.w, right_in = x + kU8PerThread < s.w, right_loads = lane == 31 && right_in,
               right_shuffles = lane < 31 && right_in;
    const int xv = min(x, s.w - kU8PerThread), hx = lane == 0 ? x - 4 : x + kU8PerThread;
    const uint8_t *const first = in + (EDGE ? 0 : int64_t(y0 - 1) * s.w);  // interior: row y0 - 1
    uint2 buf[N];
    uint32_t edge[N];
#pragma unroll
    for (int i = 0; i < N; ++i) {
        const int y = y0 - 1 + i;
        const bool in_rows = !EDGE || !zero || (y >= 0 && y < s.h);
        const uint8_t *row = EDGE ? in + int64_t(min(max(y, 0), s.h - 1)) * s.w : first + int64_t(i) * s.w;
        buf[i] = in_rows ? __ldg(reinterpret_cast<const uint2 *>(row + xv)) : make_uint2(0u, 0u);
        edge[i] = in_rows && (left_loads || right_loads) ? __ldg(reinterpret_cast<const uint32_t *>(row + hx)) : 0u;
    }
    uint32_t h[3][4];  // row i's pair sums in slot i % 3: outputs (0, 2), (1, 3), (4, 6), (5, 7)
    uint8_t *o = out + int64_t(y0) * s.w + x;  // output row y0, then one row a step
#pragma unroll
    for (int i = 0; i < N; ++i) {
        const uint2 v = buf[i];
        const uint32_t e = edge[i];
        const uint32_t up = __shfl_up_sync(~0u, v.y, 1), down = __shfl_down_sync(~0u, v.x, 1);
        // word 0 holds x[-4 .. -1] (only x[-1], byte 3, is summed), word 3 x[8 .. 11] (only x[8])
        const uint32_t word[4] = {lane > 0 ? up : left_loads ? e : zero ? 0u : (v.x & 0xffu) << 24, v.x, v.y,
                                  right_shuffles ? down : right_loads ? e : zero ? 0u : v.y >> 24};
        row_pair_sums<1>(word, h[i % 3]);
        const int y = y0 + i - 2;  // the output row that has all its rows
        if (i < 2 || (EDGE && y >= s.h) || x >= s.w) continue;  // (every lane takes every shuffle)
        uint32_t q[kU8PerThread];
        box_row<3>(h, i % 3, w, q);
        store_u8_row(q, o, true, kU8PerThread);
        o += s.w;
    }
}

__global__ void __launch_bounds__(kU8Threads, 8) conv_box_stream(const uint8_t *in, uint8_t *out, Shape s, float w) {
    const int x = blockIdx.x * kU8Cols + kU8PerThread * int(threadIdx.x), y0 = blockIdx.y * kBoxRows;
    if (y0 >= 1 && y0 + kBoxRows <= s.h - 1) box_stream_tile<false>(in, out, s, w, x, y0);  // rows y0 - 1 .. y0 + kBoxRows in the image
    else box_stream_tile<true>(in, out, s, w, x, y0);
}

template <int MW, bool MAG>
__global__ void __launch_bounds__(kU8Threads, MW == 3 ? (MAG ? 6 : 8) : 1)
    conv_best_u8(const uint8_t *in, uint8_t *out, Shape s, Taps<MW * MW> m, Factors f) {
    constexpr int MH = MW, R = MW / 2;
    static_assert(R <= 4, "a thread reads 4 columns of halo either side");
    constexpr int PW = kU8Cols + 2 * kU8Margin, PH = kU8Rows + MH - 1, kChunks = PW / 16 * PH,
                  kEach = (kChunks + kU8Threads - 1) / kU8Threads;
    extern __shared__ uint4 patch16[];
    const int x0 = blockIdx.x * kU8Cols, y0 = blockIdx.y * kU8Rows;
    const bool uniform = !MAG && f.uniform;
    const bool vectors = s.w % 16 == 0 && (reinterpret_cast<uintptr_t>(in) & 15) == 0;
    uint4 v[kEach];  // every load issued before the first store
#pragma unroll
    for (int e = 0; e < kEach; ++e) {
        const int k = threadIdx.x + e * kU8Threads, pr = k / (PW / 16), pc = 16 * (k % (PW / 16));
        const int x = x0 - kU8Margin + pc, y = y0 - R + pr;
        if (k >= kChunks) break;
        if (vectors && x >= 0 && x + 15 < s.w && y >= 0 && y < s.h) {
            v[e] = __ldg(reinterpret_cast<const uint4 *>(in + int64_t(y) * s.w + x));
        } else {
            uint32_t w[4] = {0, 0, 0, 0};
            for (int b = 0; b < 16; ++b) w[b / 4] |= uint32_t(pixel(in, s.w, s.h, x + b, y, s.border)) << (8 * (b % 4));
            v[e] = make_uint4(w[0], w[1], w[2], w[3]);
        }
    }
#pragma unroll
    for (int e = 0; e < kEach; ++e)
        if (threadIdx.x + e * kU8Threads < kChunks) patch16[threadIdx.x + e * kU8Threads] = v[e];
    __syncthreads();
    const int x = x0 + kU8PerThread * threadIdx.x;  // the thread's first column
    if (x >= s.w) return;
    const uint8_t *patch = reinterpret_cast<const uint8_t *>(patch16);
    if (uniform)
        conv_u8_box<MW>(patch, out, s, x, y0, f.w);
    else if (f.separable)
        conv_u8_rows<MW, MAG, true>(patch, out, s, x, y0, m, f);
    else
        conv_u8_rows<MW, MAG, false>(patch, out, s, x, y0, m, f);
}

}  // namespace
