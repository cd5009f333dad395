// Scratch experiment (not part of the product): konvolucija best's float 2-D path with rows
// streamed through registers instead of a shared-memory patch. The product's tiles are 256 columns
// x 8 or 16 rows: a 3 x 3 or 5 x 5 mask, or the magnitude, re-reads 25% of halo rows, and each block
// loads, waits at a barrier, then computes (5 x 5 226 us, the magnitude 230, against 3 x 3's 194 and
// a copy's ~176 at 8192 x 8192). Here each thread owns 4 columns of a strip of ROWS rows and walks
// down it: a row's 16-byte load is issued U rows before it is used (no barrier), the 2 columns
// either side come from the neighbouring lanes by shuffles (the warp's first and last lanes load 8
// more bytes), and the outputs roll through MH rows of accumulators, each row's products in the
// product's order (rows down, columns across: the same bits where the compiler contracts alike).
// Zero border, 8192 x 8192; each variant's output compared with the product's (pixels that differ,
// largest difference).
// Build and run: bash scripts/experiments/run.sh (with carry ["gpu-bundle"]).
#include "../../cuda/konvolucija.cu"
#include <cmath>
#include <cstdio>
#include <vector>

#include "timing.cuh"

namespace {

// MW x MW mask from c_mask (MW 3 or 5), MAG: the magnitude with the transpose; U rows a step of the
// walk (a multiple of MW: the accumulator's and the prefetch's slots known when compiled).
template <int MW, bool MAG, int ROWS, int U, bool CS = false>
__global__ void __launch_bounds__(128) exp_stream(const float *in, float *out, int w, int h) {
    constexpr int MH = MW, R = MW / 2, N = ROWS + MH - 1;  // input rows y0 - R .. y0 + ROWS - 1 + R
    static_assert(R <= 2 && U % MH == 0, "2 columns of halo from a neighbour; slots by u % MH");
    const int lane = threadIdx.x & 31, x = (blockIdx.x * blockDim.x + threadIdx.x) * 4, y0 = blockIdx.y * ROWS;
    float4 buf[U];
    float2 lb[U], rb[U];
    const auto load = [&](int i, int slot) {
        const int y = y0 - R + i;
        buf[slot] = make_float4(0, 0, 0, 0), lb[slot] = rb[slot] = make_float2(0, 0);
        if (i >= N || y < 0 || y >= h) return;
        const float *row = in + int64_t(y) * w;
        buf[slot] = __ldg(reinterpret_cast<const float4 *>(row + x));
        if (lane == 0 && x > 0) lb[slot] = __ldg(reinterpret_cast<const float2 *>(row + x - 2));
        if (lane == 31 && x + 4 < w) rb[slot] = __ldg(reinterpret_cast<const float2 *>(row + x + 4));
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
        const int i = g * U + u;  // the input row, and row i - j of the outputs meets mask row j
        if (i >= N) break;
        const float4 v = buf[u];
        float2 l = lb[u], r = rb[u];
        load(i + U, u);
        const float l0 = __shfl_up_sync(~0u, v.z, 1), l1 = __shfl_up_sync(~0u, v.w, 1);
        const float r0 = __shfl_down_sync(~0u, v.x, 1), r1 = __shfl_down_sync(~0u, v.y, 1);
        if (lane > 0) l = make_float2(l0, l1);
        if (lane < 31) r = make_float2(r0, r1);
        const float c8[8] = {l.x, l.y, v.x, v.y, v.z, v.w, r.x, r.y};  // columns x - 2 .. x + 5
#pragma unroll
        for (int j = MH - 1; j >= 0; --j) {  // (the product's order: an output's rows ascending)
            const int o = i - j;  // the output row (strip-relative) this row meets with mask row j
            if (o < 0 || o >= ROWS) continue;
            const int slot = ((u - j) % MH + MH) % MH;
#pragma unroll
            for (int c = 0; c < 4; ++c)
#pragma unroll
                for (int k = 0; k < MW; ++k) {
                    gx[slot][c] += c_mask[j * MW + k] * c8[2 - R + c + k];
                    if (MAG) gy[slot][c] += c_mask[k * MW + j] * c8[2 - R + c + k];
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
        float4 *dst = reinterpret_cast<float4 *>(out + int64_t(y0 + o) * w + x);
        if (CS) __stcs(dst, make_float4(res[0], res[1], res[2], res[3]));  // streaming: evict first
        else *dst = make_float4(res[0], res[1], res[2], res[3]);
    }
}

}  // namespace

int main() {
    const int w = 8192, h = 8192;
    const size_t n = size_t(w) * h;
    std::vector<float> px(n);
    uint64_t st = 1;
    for (auto &p : px) p = float((st = st * 6364136223846793005ull + 1442695040888963407ull) >> 40) * 0x1p-24f;
    float *in, *ref, *out;
    CK(cudaMalloc(&in, n * 4));
    CK(cudaMalloc(&ref, n * 4));
    CK(cudaMalloc(&out, n * 4));
    CK(cudaMemcpy(in, px.data(), n * 4, cudaMemcpyHostToDevice));
    std::vector<float> want(n), got(n);
    const auto product = [&](const char *name, int mw, bool mag, auto kernel) {
        const Shape s{w, h, mw, mw, TC_BORDER_ZERO};
        const int rows = best_rows(mw, mag);
        const dim3 grid(w / kBestCols, h / rows);
        const size_t patch = sizeof(float) * size_t(rows + mw - 1) * size_t(kBestCols + 2 * margin(mw / 2));
        CK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, int(patch)));
        const float us = time_us([&] { kernel<<<grid, kBestThreads2D, patch>>>(in, ref, s); });
        CK(cudaGetLastError());
        CK(cudaMemcpy(want.data(), ref, n * 4, cudaMemcpyDeviceToHost));
        printf("%-34s %7.2f us (%.0f GB/s)\n", name, us, 8.0 * n / us / 1e3);
    };
    const auto run = [&](const char *name, auto kernel, int rows, int threads) {
        const dim3 grid(w / (4 * threads), h / rows);
        CK(cudaMemset(out, 0xFF, n * 4));  // NaN
        const float us = time_us([&] { kernel<<<grid, threads>>>(in, out, w, h); });
        CK(cudaGetLastError());
        CK(cudaMemcpy(got.data(), out, n * 4, cudaMemcpyDeviceToHost));
        size_t diff = 0;
        double worst = 0;
        for (size_t i = 0; i < n; ++i)
            if (!(got[i] == want[i])) ++diff, worst = std::isnan(got[i]) ? INFINITY : std::max(worst, std::fabs(double(got[i]) - want[i]));
        printf("%-34s %7.2f us (%.0f GB/s)  %zu pixels differ, largest %.3g\n", name, us, 8.0 * n / us / 1e3, diff, worst);
    };
    const auto streamed = [&](const char *name, auto kernel, int rows, tc_border border) {  // the product's conv_stream
        const int k = rows == 16 ? 3 : 5;  // (the magnitude's strips: 16 rows)
        const Shape s{w, h, k, k, border};
        const dim3 grid(w / kStreamCols, h / rows);
        CK(cudaMemset(out, 0xFF, n * 4));
        const float us = time_us([&] { kernel<<<grid, kStreamThreads>>>(in, out, s); });
        CK(cudaGetLastError());
        CK(cudaMemcpy(got.data(), out, n * 4, cudaMemcpyDeviceToHost));
        size_t diff = 0;
        for (size_t i = 0; i < n; ++i) diff += !(got[i] == want[i]);
        printf("%-34s %7.2f us (%.0f GB/s)  %zu pixels differ from the tiles (zero border)\n", name, us, 8.0 * n / us / 1e3, diff);
    };
    float m5[25];
    for (int k = 0; k < 25; ++k) m5[k] = float((k * 7) % 11 - 5) / 16.0f;  // an asymmetric 5 x 5
    const float box3[9] = {1 / 9.f, 1 / 9.f, 1 / 9.f, 1 / 9.f, 1 / 9.f, 1 / 9.f, 1 / 9.f, 1 / 9.f, 1 / 9.f},
                sobel[9] = {1, 0, -1, 2, 0, -2, 1, 0, -1};
    CK(cudaMemcpyToSymbol(c_mask, box3, sizeof box3));
    product("product conv_best<3x3>", 3, false, conv_best<3, 3, false>);
    run("stream 3x3 ROWS 32 U 6 T 128 cs", exp_stream<3, false, 32, 6, true>, 32, 128);
    CK(cudaMemcpyToSymbol(c_mask, m5, sizeof m5));
    product("product conv_best<5x5>", 5, false, conv_best<5, 5, false>);
    run("stream 5x5 ROWS 64 U 10 T 128", exp_stream<5, false, 64, 10>, 64, 128);
    streamed("product conv_stream<5x5> zero", conv_stream<5, false, true>, 64, TC_BORDER_ZERO);
    streamed("product conv_stream<5x5> replicate", conv_stream<5, false, true>, 64, TC_BORDER_REPLICATE);
    run("stream 5x5 ROWS 64 U 10 T 128 cs", exp_stream<5, false, 64, 10, true>, 64, 128);
    run("stream 5x5 ROWS 32 U 10 T 128 cs", exp_stream<5, false, 32, 10, true>, 32, 128);
    run("stream 5x5 ROWS 128 U 10 T 128 cs", exp_stream<5, false, 128, 10, true>, 128, 128);
    run("stream 5x5 ROWS 64 U 10 T 64 cs", exp_stream<5, false, 64, 10, true>, 64, 64);
    CK(cudaMemcpyToSymbol(c_mask, sobel, sizeof sobel));
    product("product conv_best<3x3,magnitude>", 3, true, conv_best<3, 3, true>);
    run("stream sobel ROWS 32 U 3 T 128", exp_stream<3, true, 32, 3>, 32, 128);
    run("stream sobel ROWS 32 U 3 T 128 cs", exp_stream<3, true, 32, 3, true>, 32, 128);
    run("stream sobel ROWS 32 U 6 T 128 cs", exp_stream<3, true, 32, 6, true>, 32, 128);
    run("stream sobel ROWS 16 U 3 T 128 cs", exp_stream<3, true, 16, 3, true>, 16, 128);
    streamed("product conv_stream<3x3,mag> zero", conv_stream<3, true, true>, 16, TC_BORDER_ZERO);
    streamed("product conv_stream<3x3,mag> replicate", conv_stream<3, true, true>, 16, TC_BORDER_REPLICATE);
    run("stream sobel ROWS 64 U 9 T 128 cs", exp_stream<3, true, 64, 9, true>, 64, 128);
    run("stream sobel ROWS 32 U 3 T 64 cs", exp_stream<3, true, 32, 3, true>, 32, 64);
    run("stream sobel ROWS 128 U 6 T 128 cs", exp_stream<3, true, 128, 6, true>, 128, 128);
    {  // the copy ceiling, same bytes (read 4n, write 4n)
        const float us = time_us([&] { CK(cudaMemcpyAsync(out, in, n * 4, cudaMemcpyDeviceToDevice)); });
        printf("copy of the same bytes:            %7.2f us (%.0f GB/s)\n", us, 8.0 * n / us / 1e3);
    }
    return 0;
}
