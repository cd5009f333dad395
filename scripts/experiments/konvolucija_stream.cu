// Scratch experiment (not part of the product): konvolucija best's float 2-D path, the tiles
// (conv_best) against the rows streamed through registers (conv_stream, which began here), and
// conv_stream in other shapes (ROWS rows a strip, U rows in flight, BLOCKS an SM by its launch
// bounds) for further tuning. 8192 x 8192; each streamed output compared with the tiles' (zero
// border: the same bits expected; replicate differs at the edges by design). Figures: BENCHMARKS.md.
// Build and run: bash scripts/experiments/run.sh (with carry ["gpu-bundle"]).
#include "../../cuda/konvolucija.cu"
#include <cstdio>
#include <vector>

#include "timing.cuh"

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
    const auto product = [&](const char *name, int mw, bool mag, auto kernel, const auto &taps) {
        const Shape s{w, h, mw, mw, TC_BORDER_ZERO};
        const int rows = best_rows(mw, mag);
        const dim3 grid(w / kBestCols, h / rows);
        const size_t patch = sizeof(float) * size_t(rows + mw - 1) * size_t(kBestCols + 2 * margin(mw / 2));
        CK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, int(patch)));
        const float us = time_us([&] { kernel<<<grid, kBestThreads2D, patch>>>(in, ref, s, taps); });
        CK(cudaGetLastError());
        CK(cudaMemcpy(want.data(), ref, n * 4, cudaMemcpyDeviceToHost));
        printf("%-34s %7.2f us (%.0f GB/s)\n", name, us, 8.0 * n / us / 1e3);
    };
    // the product's conv_stream (k x k mask, strips of rows; rows must divide h)
    const auto streamed = [&](const char *name, auto kernel, const auto &taps, int k, int rows, tc_border border) {
        const Shape s{w, h, k, k, border};
        const dim3 grid(w / kStreamCols, h / rows);
        CK(cudaMemset(out, 0xFF, n * 4));
        const float us = time_us([&] { kernel<<<grid, kStreamThreads>>>(in, out, s, taps); });
        CK(cudaGetLastError());
        CK(cudaMemcpy(got.data(), out, n * 4, cudaMemcpyDeviceToHost));
        size_t diff = 0;
        for (size_t i = 0; i < n; ++i) diff += !(got[i] == want[i]);
        printf("%-34s %7.2f us (%.0f GB/s)  %zu pixels differ from the tiles (zero border)\n", name, us, 8.0 * n / us / 1e3, diff);
    };
    Taps<25> m5;
    for (int k = 0; k < 25; ++k) m5.w[k] = float((k * 7) % 11 - 5) / 16.0f;  // an asymmetric 5 x 5
    const Taps<9> box3{{1 / 9.f, 1 / 9.f, 1 / 9.f, 1 / 9.f, 1 / 9.f, 1 / 9.f, 1 / 9.f, 1 / 9.f, 1 / 9.f}},
                  sobel{{1, 0, -1, 2, 0, -2, 1, 0, -1}};
    product("product conv_best<3x3>", 3, false, conv_best<3, 3, false>, box3);
    streamed("streamed 3x3 ROWS 32 U 6", conv_stream<3, false, true, 32, 6, 4>, box3, 3, 32, TC_BORDER_ZERO);
    product("product conv_best<5x5>", 5, false, conv_best<5, 5, false>, m5);
    streamed("product conv_stream<5x5> zero", conv_stream<5, false, true>, m5, 5, 64, TC_BORDER_ZERO);
    streamed("product conv_stream<5x5> replicate", conv_stream<5, false, true>, m5, 5, 64, TC_BORDER_REPLICATE);
    streamed("streamed 5x5 ROWS 32 U 10", conv_stream<5, false, true, 32, 10, 4>, m5, 5, 32, TC_BORDER_ZERO);
    streamed("streamed 5x5 ROWS 64 U 5 B 5", conv_stream<5, false, true, 64, 5, 5>, m5, 5, 64, TC_BORDER_ZERO);
    product("product conv_best<3x3,magnitude>", 3, true, conv_best<3, 3, true>, sobel);
    streamed("product conv_stream<3x3,mag> zero", conv_stream<3, true, true>, sobel, 3, 16, TC_BORDER_ZERO);
    streamed("product conv_stream<3x3,mag> replicate", conv_stream<3, true, true>, sobel, 3, 16, TC_BORDER_REPLICATE);
    streamed("streamed mag ROWS 32 U 6 B 6", conv_stream<3, true, true, 32, 6, 6>, sobel, 3, 32, TC_BORDER_ZERO);
    {  // the copy ceiling, same bytes (read 4n, write 4n)
        const float us = time_us([&] { CK(cudaMemcpyAsync(out, in, n * 4, cudaMemcpyDeviceToDevice)); });
        printf("copy of the same bytes:            %7.2f us (%.0f GB/s)\n", us, 8.0 * n / us / 1e3);
    }
    return 0;
}
