// Scratch experiment (not part of the product): the 8-bit 3x3 box with rows streamed through
// registers instead of a shared-memory patch. The product's integer box (60.5 us at 8192 x 8192,
// ncu: 56% issue, DRAM 58%) loads a whole patch, waits at a barrier, then computes, and the blocks
// of a wave do so in step. Here each thread owns 16 columns of a strip of ROWS rows and walks down
// it: row i + D's 16-byte load is issued before row i is summed (D rows in flight a thread, no
// barrier), the byte either side comes from the neighbouring lanes by shuffles (the warp's first
// and last lanes load 4 more bytes), and the sums, the rounding and the packing are the product's
// (pair sums two to a register, lane_rounded). Replicate border, 8192 x 8192 only (w a multiple of
// 16 x threads, h of ROWS); each variant's output compared with the product's bit for bit.
// Build and run: bash scripts/experiments/run.sh (with carry ["gpu-bundle"]).
#include "../../cuda/konvolucija.cu"
#include <cstdio>
#include <type_traits>
#include <vector>

#include "timing.cuh"

namespace {

__device__ Factors g_factors;  // (the FACTORS variants read the mask's factors from memory first)

template <int N>  // (x[t], x[t + 2]) for t = -4 .. 4N - 6, word 0 holding x[-4 .. -1]
__device__ __forceinline__ uint32_t pair_of(const uint32_t (&even)[N], const uint32_t (&odd)[N], int t) {
    const int i = (t + 4) / 4, k = (t + 4) % 4;
    return k == 0 ? even[i] : k == 1 ? odd[i] : __funnelshift_r(k == 2 ? even[i] : odd[i], k == 2 ? even[i + 1] : odd[i + 1], 16);
}

template <int ROWS, int D, bool CS = false, int C = 16, bool FACTORS = false, int T = 256>
__global__ void __launch_bounds__(T) box_stream(const uint8_t *in, uint8_t *out, int w, int h, float wt) {
    constexpr int N = ROWS + 2, NW = C / 4 + 2;  // input rows y0 - 1 .. y0 + ROWS; words a row
    using V = typename std::conditional<C == 16, uint4, uint2>::type;
    if (FACTORS) {  // as the product would: the mask's factors read first (a box or not)
        if (!g_factors.uniform) return;
        wt = g_factors.w;
    }
    const int lane = threadIdx.x & 31, x = (blockIdx.x * blockDim.x + threadIdx.x) * C, y0 = blockIdx.y * ROWS;
    V buf[D];
    uint32_t lw[D], rw[D];
    const auto load = [&](int i, int slot) {
        const int yy = min(max(y0 - 1 + i, 0), h - 1);
        const uint8_t *row = in + int64_t(yy) * w;
        buf[slot] = __ldg(reinterpret_cast<const V *>(row + x));
        lw[slot] = lane == 0 && x > 0 ? __ldg(reinterpret_cast<const uint32_t *>(row + x - 4)) : 0u;
        rw[slot] = lane == 31 && x + C < w ? __ldg(reinterpret_cast<const uint32_t *>(row + x + C)) : 0u;
    };
#pragma unroll
    for (int i = 0; i < D && i < N; ++i) load(i, i);
    uint32_t hs[3][C / 2];  // row i's pair sums in slot i % 3: outputs (0, 2), (1, 3), (4, 6), ...
#pragma unroll
    for (int i = 0; i < N; ++i) {
        const V v = buf[i % D];
        uint32_t left = lw[i % D], right = rw[i % D];
        if (i + D < N) load(i + D, i % D);
        uint32_t word[NW];
        word[1] = v.x, word[2] = v.y;
        if constexpr (C == 16) word[3] = reinterpret_cast<const uint4 &>(v).z, word[4] = reinterpret_cast<const uint4 &>(v).w;
        const uint32_t last = word[NW - 2];
        const uint32_t up = __shfl_up_sync(~0u, last, 1), down = __shfl_down_sync(~0u, v.x, 1);
        word[0] = lane > 0 ? up : x > 0 ? left : (v.x & 0xffu) << 24;   // x[-1] in byte 3 (the border: x[0])
        word[NW - 1] = lane < 31 ? down : x + C < w ? right : last >> 24;  // x[C] in byte 0 (the border: x[C-1])
        uint32_t even[NW], odd[NW];
#pragma unroll
        for (int k = 0; k < NW; ++k) even[k] = __byte_perm(word[k], 0, 0x4240), odd[k] = __byte_perm(word[k], 0, 0x4341);
#pragma unroll
        for (int p = 0; p < C / 2; ++p) {
            const int t = 4 * (p / 2) + p % 2;
            hs[i % 3][p] = pair_of(even, odd, t - 1) + pair_of(even, odd, t) + pair_of(even, odd, t + 1);
        }
        if (i < 2) continue;
        uint32_t q[C];
#pragma unroll
        for (int p = 0; p < C / 2; ++p) {
            const uint32_t s = hs[0][p] + hs[1][p] + hs[2][p];
            const int c = 4 * (p / 2) + p % 2;
            q[c] = lane_rounded(s, 0x7610, wt), q[c + 2] = lane_rounded(s, 0x7632, wt);
        }
        uint32_t o[C / 4];
#pragma unroll
        for (int k = 0; k < C / 4; ++k)
            o[k] = __byte_perm(__byte_perm(q[4 * k], q[4 * k + 1], 0x0040), __byte_perm(q[4 * k + 2], q[4 * k + 3], 0x0040), 0x5410);
        uint8_t *dst = out + int64_t(y0 + i - 2) * w + x;
        if constexpr (C == 16) {
            if (CS) __stcs(reinterpret_cast<uint4 *>(dst), make_uint4(o[0], o[1], o[2], o[3]));  // streaming: evict first
            else *reinterpret_cast<uint4 *>(dst) = make_uint4(o[0], o[1], o[2], o[3]);
        } else {
            if (CS) __stcs(reinterpret_cast<uint2 *>(dst), make_uint2(o[0], o[1]));
            else *reinterpret_cast<uint2 *>(dst) = make_uint2(o[0], o[1]);
        }
    }
}

__global__ void copy16(const uint8_t *in, uint8_t *out, int w) {
    const int64_t i = int64_t(blockIdx.y) * w + (blockIdx.x * blockDim.x + threadIdx.x) * 16;
    *reinterpret_cast<uint4 *>(out + i) = __ldg(reinterpret_cast<const uint4 *>(in + i));
}

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
    const float wt = 1 / 9.f;
    Taps<9> box;
    for (float &t : box.w) t = wt;
    const Factors f = factor_mask(box.w, 3, 3);
    CK(cudaMemcpyToSymbol(g_factors, &f, sizeof f));
    const Shape s{w, h, 3, 3, TC_BORDER_REPLICATE};
    {  // the product's kernels: the patch kernel (a box: its integer path), and the streamed box
        const dim3 grid(w / kU8Cols, h / kU8Rows);
        const size_t patch = size_t(kU8Rows + 2) * size_t(kU8Cols + 2 * kU8Margin);
        float us = time_us([&] { conv_best_u8<3, false><<<grid, kU8Threads, patch>>>(in, ref, s, box, f); });
        CK(cudaDeviceSynchronize());
        printf("product conv_best_u8<3> (box):   %7.2f us (%.0f GB/s)\n", us, 2.0 * n / us / 1e3);
        us = time_us([&] { conv_box_stream<<<grid, kU8Threads>>>(in, out, s, f.w); });
        CK(cudaDeviceSynchronize());
        std::vector<uint8_t> a(n), b(n);
        CK(cudaMemcpy(a.data(), ref, n, cudaMemcpyDeviceToHost));
        CK(cudaMemcpy(b.data(), out, n, cudaMemcpyDeviceToHost));
        printf("product conv_box_stream:         %7.2f us (%.0f GB/s)  %s\n", us, 2.0 * n / us / 1e3,
               a == b ? "same as the patch kernel" : "DIFFERS from the patch kernel");
    }
    std::vector<uint8_t> want(n);
    CK(cudaMemcpy(want.data(), ref, n, cudaMemcpyDeviceToHost));
    const auto run = [&](const char *name, auto kernel, int rows, int threads, int cols = 16) {
        const dim3 grid(w / (cols * threads), h / rows);
        time_and_check(name, [&] { kernel<<<grid, threads>>>(in, out, w, h, wt); }, out, want);
    };
    run("stream ROWS 64 D 4 T 128", box_stream<64, 4>, 64, 128);
    run("stream ROWS 8 D 4 T 128 cs", box_stream<8, 4, true>, 8, 128);
    run("stream C 8 ROWS 16 D 4 T 128", box_stream<16, 4, false, 8>, 16, 128, 8);
    run("stream C 8 ROWS 16 D 4 T 128 cs", box_stream<16, 4, true, 8>, 16, 128, 8);
    run("stream C 8 ROWS 16 D 8 T 128 cs", box_stream<16, 8, true, 8>, 16, 128, 8);
    run("stream C 8 ROWS 16 D 4 T 128 cs, factors", box_stream<16, 4, true, 8, true>, 16, 128, 8);
    run("stream C 16 ROWS 16 D 4 T 64 cs, factors", box_stream<16, 4, true, 16, true>, 16, 64);
    run("stream C 16 ROWS 8 D 4 T 128 cs, factors", box_stream<8, 4, true, 16, true>, 8, 128);
    // a block as wide as the image's row (512 x 16 bytes = 8192): each step down reads and writes
    // whole rows, where the others' blocks touch 1-2 KB of a row each
    run("stream C 16 ROWS 32 D 4 T 512 cs (whole rows)", box_stream<32, 4, true, 16, false, 512>, 32, 512);
    run("stream C 16 ROWS 64 D 8 T 512 cs (whole rows)", box_stream<64, 8, true, 16, false, 512>, 64, 512);
    run("stream C 8 ROWS 32 D 8 T 1024 cs (whole rows)", box_stream<32, 8, true, 8, false, 1024>, 32, 1024, 8);
    {  // a plain copy kernel: 16 bytes a thread, the same grid as C 16 ROWS 8 T 128
        const float us = time_us([&] { copy16<<<dim3(w / 2048, h), 128>>>(in, out, w); });
        printf("copy kernel, 16 bytes a thread:   %7.2f us (%.0f GB/s)\n", us, 2.0 * n / us / 1e3);
    }
    {  // the copy ceiling, same bytes (read n, write n)
        const float us = time_us([&] { CK(cudaMemcpyAsync(out, in, n, cudaMemcpyDeviceToDevice)); });
        printf("copy of the same bytes:          %7.2f us (%.0f GB/s)\n", us, 2.0 * n / us / 1e3);
    }
    return 0;
}
