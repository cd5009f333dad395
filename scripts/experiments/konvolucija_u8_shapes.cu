// Scratch experiment (not part of the product): shapes of konvolucija best's 8-bit path, the 3x3
// box on 8192 x 8192 bytes, against the product's kernel (included from cuda/konvolucija.cu), each
// variant's output compared with the product's bit for bit. Events behind a device-side delay,
// median of 30. Build and run on the GPU host, from the repository root (the library's other
// pieces from the bundle's shared library):
//   d=$(mktemp -d); tar -C $d -xzf gpu-bundle/bundle.tar.gz
//   nvcc -O3 -std=c++17 -arch=sm_90 -Icuda/include -Icuda scripts/experiments/konvolucija_u8_shapes.cu \
//        -L$d/lib -ltecaj -o /tmp/u8 && LD_LIBRARY_PATH=$d/lib /tmp/u8
// Variants: columns a thread (PER: 8 or 16), tile rows (ROWS: 16 or 32), threads a block (T), and
// the epilogue (EPI 0: the product's clamp in float then 1.5 x 2^23; 1: 1.5 x 2^23 first, the
// clamp in integers with one __vimin_s32_relu; 2: one cvt.rni.u8.f32, which rounds, clamps and
// sends NaN to 0 by itself). A last check runs EPI 2 on values past both ends and NaN.
#include "../../cuda/konvolucija.cu"
#include <algorithm>
#include <cstdio>
#include <vector>

#include "timing.cuh"


namespace {

__device__ Factors g_factors;  // (the separable path's factors, from the host's factor_mask)

template <int EPI>
__device__ __forceinline__ uint32_t out_byte(float v) {  // the low byte holds the pixel
    if constexpr (EPI == 0) return rounded_bits(v);
    if constexpr (EPI == 2) {  // one conversion: rounds to nearest even, clamps to 0..255, NaN to 0 (PTX cvt's rules)
        unsigned short r;
        asm("cvt.rni.u8.f32 %0, %1;" : "=h"(r) : "f"(v));
        return r;
    }
    // v + 1.5 x 2^23 rounds v (|v| < 2^22) to an integer in the low bits; NaN: fmaxf first
    const int k = int(__float_as_uint(fmaxf(v, -4194304.0f) + 12582912.0f)) - 0x4B400000;
    return uint32_t(__vimin_s32_relu(k, 255));
}

template <int PER>
struct Words;  // a thread's own columns as words
template <>
struct Words<8> {
    using V = uint2;
    static __device__ __forceinline__ void get(const V &v, uint32_t *w) { w[0] = v.x, w[1] = v.y; }
    static __device__ __forceinline__ V put(const uint32_t *w) { return make_uint2(w[0], w[1]); }
};
template <>
struct Words<16> {
    using V = uint4;
    static __device__ __forceinline__ void get(const V &v, uint32_t *w) { w[0] = v.x, w[1] = v.y, w[2] = v.z, w[3] = v.w; }
    static __device__ __forceinline__ V put(const uint32_t *w) { return make_uint4(w[0], w[1], w[2], w[3]); }
};

template <int MW, int PER, int ROWS, int T, int EPI>
__global__ void __launch_bounds__(T) conv_u8x(const uint8_t *in, uint8_t *out, Shape s) {
    constexpr int MH = MW, R = MW / 2, M = 16, COLS = T * PER, PW = COLS + 2 * M, PH = ROWS + MH - 1,
                  kChunks = PW / 16 * PH, kEach = (kChunks + T - 1) / T, W = PER + 2 * R, NW = PER / 4 + 2;
    extern __shared__ uint4 patch16[];
    const int x0 = blockIdx.x * COLS, y0 = blockIdx.y * ROWS;
    uint4 v[kEach];
#pragma unroll
    for (int e = 0; e < kEach; ++e) {
        const int k = threadIdx.x + e * T, pr = k / (PW / 16), pc = 16 * (k % (PW / 16)), x = x0 - M + pc, y = y0 - R + pr;
        if (k >= kChunks) break;
        if (x >= 0 && x + 15 < s.w && y >= 0 && y < s.h) {
            v[e] = __ldg(reinterpret_cast<const uint4 *>(in + int64_t(y) * s.w + x));
        } else {
            uint32_t w[4] = {0, 0, 0, 0};
            for (int b = 0; b < 16; ++b) w[b / 4] |= uint32_t(pixel(in, s.w, s.h, x + b, y, s.border)) << (8 * (b % 4));
            v[e] = make_uint4(w[0], w[1], w[2], w[3]);
        }
    }
#pragma unroll
    for (int e = 0; e < kEach; ++e)
        if (threadIdx.x + e * T < kChunks) patch16[threadIdx.x + e * T] = v[e];
    __syncthreads();
    const int x = x0 + PER * threadIdx.x;
    if (x >= s.w) return;
    const uint8_t *patch = reinterpret_cast<const uint8_t *>(patch16);
    float wx[MW], wy[MH];
#pragma unroll
    for (int i = 0; i < MW; ++i) wx[i] = g_factors.wx[i], wy[i] = g_factors.wy[i];
    float g[MH][PER];
    const int c0 = M + PER * threadIdx.x;
#pragma unroll 1
    for (int gr = 0; gr < (ROWS + MH - 2) / MH + 1; ++gr)
#pragma unroll
        for (int u = 0; u < MH; ++u) {
            const int py = gr * MH + u;
            if (py >= PH) break;
            const uint8_t *row = patch + py * PW + c0;
            uint32_t word[NW];
            word[0] = *reinterpret_cast<const uint32_t *>(row - 4);
            Words<PER>::get(*reinterpret_cast<const typename Words<PER>::V *>(row), word + 1);
            word[NW - 1] = *reinterpret_cast<const uint32_t *>(row + PER);
            float val[W];
#pragma unroll
            for (int m = 0; m < W; ++m) val[m] = byte_float(word[(m + 4 - R) / 4], (m + 4 - R) % 4);
            float h[PER];
#pragma unroll
            for (int c = 0; c < PER; ++c) {
                h[c] = wx[0] * val[c];
#pragma unroll
                for (int i = 1; i < MW; ++i) h[c] += wx[i] * val[c + i];
            }
#pragma unroll
            for (int j = 0; j < MH; ++j) {
                const int r = py - j;
                if (r < 0 || r >= ROWS) continue;
#pragma unroll
                for (int c = 0; c < PER; ++c) {
                    const float a = j ? g[(u - j + MH) % MH][c] : 0.0f;
                    g[(u - j + MH) % MH][c] = a + wy[j] * h[c];
                }
            }
            const int r = py - (MH - 1), y = y0 + r;
            if (r < 0 || y >= s.h) continue;
            uint32_t q[PER], packed[PER / 4];
#pragma unroll
            for (int c = 0; c < PER; ++c) q[c] = out_byte<EPI>(g[(u + 1) % MH][c]);
#pragma unroll
            for (int k = 0; k < PER / 4; ++k)
                packed[k] = __byte_perm(__byte_perm(q[4 * k], q[4 * k + 1], 0x0040), __byte_perm(q[4 * k + 2], q[4 * k + 3], 0x0040), 0x5410);
            *reinterpret_cast<typename Words<PER>::V *>(out + int64_t(y) * s.w + x) = Words<PER>::put(packed);
        }
}

__global__ void edge(const float *v, uint32_t *r) { r[0] = out_byte<0>(*v), r[1] = out_byte<2>(*v); }


}  // namespace

int main() {
    const int w = 8192, h = 8192;
    const size_t n = size_t(w) * h;
    std::vector<uint8_t> px(n);
    uint64_t st = 1;
    for (auto &p : px) p = uint8_t((st = st * 6364136223846793005ull + 1442695040888963407ull) >> 56);
    uint8_t *in, *ref, *out;
    CK(cudaMalloc(&in, n));
    CK(cudaMalloc(&ref, n));
    CK(cudaMalloc(&out, n));
    CK(cudaMemcpy(in, px.data(), n, cudaMemcpyHostToDevice));
    Taps<9> box;
    for (float &t : box.w) t = 1 / 9.f;
    const Factors f = factor_mask(box.w, 3, 3);
    CK(cudaMemcpyToSymbol(g_factors, &f, sizeof f));
    const Shape s{w, h, 3, 3, TC_BORDER_REPLICATE};
    {  // the product's kernel
        const dim3 grid(w / kU8Cols, h / kU8Rows);
        const size_t patch = size_t(kU8Rows + 2) * size_t(kU8Cols + 2 * kU8Margin);
        const float us = time_us([&] { conv_best_u8<3, false><<<grid, kU8Threads, patch>>>(in, ref, s, box, f); });
        CK(cudaDeviceSynchronize());
        printf("product conv_best_u8<3>: %7.2f us (%.0f GB/s)\n", us, 2.0 * n / us / 1e3);
    }
    std::vector<uint8_t> want(n);
    CK(cudaMemcpy(want.data(), ref, n, cudaMemcpyDeviceToHost));
    const auto run = [&](const char *name, auto kernel, int per, int rows, int threads) {
        const int cols = per * threads;
        const dim3 grid((w + cols - 1) / cols, (h + rows - 1) / rows);
        const size_t patch = size_t(rows + 2) * size_t(cols + 32);
        if (patch > 48 * 1024) CK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, int(patch)));
        time_and_check(name, [&] { kernel<<<grid, threads, patch>>>(in, out, s); }, out, want);
    };
    run("PER 8  ROWS 16 T 128 EPI 0", conv_u8x<3, 8, 16, 128, 0>, 8, 16, 128);
    run("PER 8  ROWS 16 T 128 EPI 1", conv_u8x<3, 8, 16, 128, 1>, 8, 16, 128);
    run("PER 8  ROWS 32 T 128 EPI 0", conv_u8x<3, 8, 32, 128, 0>, 8, 32, 128);
    run("PER 8  ROWS 16 T 64  EPI 0", conv_u8x<3, 8, 16, 64, 0>, 8, 16, 64);
    run("PER 8  ROWS 16 T 256 EPI 0", conv_u8x<3, 8, 16, 256, 0>, 8, 16, 256);
    run("PER 16 ROWS 16 T 64  EPI 0", conv_u8x<3, 16, 16, 64, 0>, 16, 16, 64);
    run("PER 16 ROWS 16 T 128 EPI 0", conv_u8x<3, 16, 16, 128, 0>, 16, 16, 128);
    run("PER 16 ROWS 16 T 128 EPI 1", conv_u8x<3, 16, 16, 128, 1>, 16, 16, 128);
    run("PER 16 ROWS 32 T 64  EPI 1", conv_u8x<3, 16, 32, 64, 1>, 16, 32, 64);
    run("PER 16 ROWS 8  T 128 EPI 1", conv_u8x<3, 16, 8, 128, 1>, 16, 8, 128);
    run("PER 8  ROWS 16 T 128 EPI 2", conv_u8x<3, 8, 16, 128, 2>, 8, 16, 128);
    run("PER 16 ROWS 16 T 64  EPI 2", conv_u8x<3, 16, 16, 64, 2>, 16, 16, 64);
    run("PER 16 ROWS 16 T 128 EPI 2", conv_u8x<3, 16, 16, 128, 2>, 16, 16, 128);
    {  // EPI 2's rules against the product's on the edges: below 0, past 255, ties, NaN
        const float v[] = {-1e30f, -0.6f, -0.5f, -0.0f, 0.5f, 1.5f, 2.5f, 254.5f, 255.4f, 255.5f, 1e30f, __builtin_nanf("")};
        bool same = true;
        for (float x : v) {
            uint32_t a = 0, b = 0;
            float *d;
            uint32_t *r;
            CK(cudaMalloc(&d, sizeof(float)));
            CK(cudaMalloc(&r, 2 * sizeof(uint32_t)));
            CK(cudaMemcpy(d, &x, sizeof x, cudaMemcpyHostToDevice));
            edge<<<1, 1>>>(d, r);
            CK(cudaMemcpy(&a, r, 4, cudaMemcpyDeviceToHost));
            CK(cudaMemcpy(&b, r + 1, 4, cudaMemcpyDeviceToHost));
            if ((a & 0xff) != (b & 0xff)) same = false, printf("EPI 2 at %g: %u, the product %u\n", x, b & 0xff, a & 0xff);
            CK(cudaFree(d));
            CK(cudaFree(r));
        }
        printf("EPI 2 on the edges: %s\n", same ? "same as the product" : "DIFFERS");
    }
    {  // the copy ceiling, same bytes (read n, write n)
        const float us = time_us([&] { CK(cudaMemcpyAsync(out, in, n, cudaMemcpyDeviceToDevice)); });
        printf("copy of the same bytes:            %7.2f us (%.0f GB/s)\n", us, 2.0 * n / us / 1e3);
    }
    return 0;
}
