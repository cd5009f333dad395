// Scratch experiment (not part of the product): the 8-bit 3x3 box with whole image rows brought
// into shared memory by bulk copies (Hopper's TMA). Written in a session without a GPU (fourth
// session, 2026-11-23); not yet run.
//
// Why: every streamed box so far (register prefetch, 8 or 16 columns a thread, 8 to 64 rows a
// strip) took 51.6-53.9 us at 8192 x 8192 against a copy kernel's 48.1 (the target: 50). Their
// blocks each touch 1-2 KB of many rows. Here a block owns a band of whole rows (8192 bytes): one
// producer warp streams the band's rows (and the row either side) into a ring of STAGES row
// buffers by bulk copies, and 16 consumer warps (512 threads x 16 columns) read each row once:
// 16 bytes and the byte either side. They keep the last three rows' horizontal sums in
// registers, two columns to a 32-bit word (16-bit lanes), and write each output row as whole
// 16-byte words with evict-first stores. Each warp hands its row buffer back through an "empty"
// mbarrier, so no block barrier is needed. Reads and writes both go down the image one whole row at
// a time. The sums and their rounding are the product's (conv_u8_box): S, the exact sum of the 9
// bytes, then fma(S, w, 1.5 x 2^23), whose low byte is rne(S x w). Each output is compared with a
// CPU reference made the same way (exact). Replicate border; 8192 x 8192 only.
// Predicted: near the copy kernel, 49-51 us, if whole-row streaming is what the others lacked.
// Build and run: bash scripts/experiments/run.sh boxbulk (with carry ["gpu-bundle"]).
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cuda/ptx>
#include <vector>

#include "timing.cuh"

namespace {

namespace ptx = cuda::ptx;
constexpr int kW = 8192, kCols = 16, kConsumers = kW / kCols, kConsumerWarps = kConsumers / 32, kThreads = kConsumers + 32;

__device__ __forceinline__ void wait_parity(uint64_t *bar, uint32_t parity) {
    while (!ptx::mbarrier_try_wait_parity(bar, parity)) {}
}

// low byte of fma(S, w, 1.5 x 2^23) for the 16-bit lane of pair p that sel picks (0x7610: low, 0x7632: high)
__device__ __forceinline__ uint32_t rounded(uint32_t p, uint32_t sel, float w) {
    return __float_as_uint(fmaf(__uint_as_float(__byte_perm(p, 0x4B000000u, sel)) - 8388608.0f, w, 12582912.0f));
}

template <int STAGES, int MINB>
__global__ void __launch_bounds__(kThreads, MINB) box_bulk(const uint8_t *in, uint8_t *out, int h, int band, float w) {
    extern __shared__ __align__(128) uint4 ring4[];
    uint8_t *const ring = reinterpret_cast<uint8_t *>(ring4);
    __shared__ uint64_t full[STAGES], empty[STAGES];
    const int y0 = blockIdx.x * band, y1 = min(h, y0 + band);
    if (y0 >= h) return;
    const int rows_in = y1 - y0 + 2;  // input rows y0 - 1 .. y1 (clamped to the image: replicate)
    const int warp = threadIdx.x / 32, lane = threadIdx.x & 31;
    if (threadIdx.x == 0) {
        for (int s = 0; s < STAGES; ++s) ptx::mbarrier_init(&full[s], 1), ptx::mbarrier_init(&empty[s], kConsumerWarps);
        ptx::fence_proxy_async(ptx::space_shared);
    }
    __syncthreads();
    if (warp == kConsumerWarps) {  // the producer
        if (lane == 0)
            for (int i = 0; i < rows_in; ++i) {
                const int s = i % STAGES;
                if (i >= STAGES) wait_parity(&empty[s], uint32_t(i / STAGES - 1) & 1u);
                const int y = min(max(y0 - 1 + i, 0), h - 1);
                (void)ptx::mbarrier_arrive_expect_tx(ptx::sem_release, ptx::scope_cta, ptx::space_shared, &full[s], uint32_t(kW));
                ptx::cp_async_bulk(ptx::space_cluster, ptx::space_global, ring + s * kW, in + int64_t(y) * kW, uint32_t(kW), &full[s]);
            }
        return;
    }
    const int t = threadIdx.x, c0 = kCols * t;
    uint32_t hs[3][8];  // row i's pair sums in slot i % 3: pairs 2k (columns 4k, 4k + 2) and 2k + 1 (4k + 1, 4k + 3)
    // (rows in groups of 3, so that a row's slot is known when compiled: registers, not local memory)
#pragma unroll 1
    for (int g = 0; g < rows_in; g += 3)
#pragma unroll
    for (int u = 0; u < 3; ++u) {
        const int i = g + u;
        if (i >= rows_in) break;
        const int s = i % STAGES;
        wait_parity(&full[s], uint32_t(i / STAGES) & 1u);
        const uint8_t *row = ring + s * kW;
        const uint4 q = *reinterpret_cast<const uint4 *>(row + c0);
        const uint32_t left = t > 0 ? row[c0 - 1] : (q.x & 0xffu), right = t < kConsumers - 1 ? row[c0 + kCols] : (q.w >> 24);
        __syncwarp();
        if (lane == 0) (void)ptx::mbarrier_arrive(&empty[s]);  // this warp is done with the row
        const uint32_t word[4] = {q.x, q.y, q.z, q.w};
        uint32_t e[5], o[5];  // even and odd bytes of word k in 16-bit lanes; o[-1] and e[4]: the bytes either side
        uint32_t o_before = left << 16;
#pragma unroll
        for (int k = 0; k < 4; ++k) e[k] = __byte_perm(word[k], 0, 0x4240), o[k] = __byte_perm(word[k], 0, 0x4341);
        e[4] = right;
        const int slot = u;
#pragma unroll
        for (int k = 0; k < 4; ++k) {
            const uint32_t o_left = __byte_perm(k ? o[k - 1] : o_before, o[k], 0x5432);  // (x[4k - 1], x[4k + 1])
            const uint32_t e_right = __byte_perm(e[k], e[k + 1], 0x5432);                // (x[4k + 2], x[4k + 4])
            hs[slot][2 * k] = o_left + e[k] + o[k];
            hs[slot][2 * k + 1] = e[k] + o[k] + e_right;
        }
        if (i < 2) continue;
        uint32_t packed[4];
#pragma unroll
        for (int k = 0; k < 4; ++k) {
            const uint32_t se = hs[0][2 * k] + hs[1][2 * k] + hs[2][2 * k], so = hs[0][2 * k + 1] + hs[1][2 * k + 1] + hs[2][2 * k + 1];
            const uint32_t b0 = rounded(se, 0x7610, w), b1 = rounded(so, 0x7610, w), b2 = rounded(se, 0x7632, w),
                           b3 = rounded(so, 0x7632, w);
            packed[k] = __byte_perm(__byte_perm(b0, b1, 0x0040), __byte_perm(b2, b3, 0x0040), 0x5410);
        }
        __stcs(reinterpret_cast<uint4 *>(out + int64_t(y0 + i - 2) * kW + c0), make_uint4(packed[0], packed[1], packed[2], packed[3]));
    }
}

__global__ void copy16(const uint8_t *in, uint8_t *out) {
    const int64_t i = (int64_t(blockIdx.x) * blockDim.x + threadIdx.x) * 16;
    *reinterpret_cast<uint4 *>(out + i) = __ldg(reinterpret_cast<const uint4 *>(in + i));
}

}  // namespace

int main() {
    const int h = 8192;
    const size_t n = size_t(kW) * h;
    int sms = 0;
    CK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
    std::vector<uint8_t> px(n), want(n);
    uint64_t st = 1;
    for (auto &p : px) p = uint8_t((st = st * 6364136223846793005ull + 1442695040888963407ull) >> 56);
    const float w = 1 / 9.f;
    for (int y = 0; y < h; ++y)
        for (int x = 0; x < kW; ++x) {
            uint32_t S = 0;
            for (int j = -1; j <= 1; ++j)
                for (int i = -1; i <= 1; ++i) S += px[size_t(std::min(std::max(y + j, 0), h - 1)) * kW + size_t(std::min(std::max(x + i, 0), kW - 1))];
            const float r = std::fmaf(float(S), w, 12582912.0f);
            uint32_t bits;
            memcpy(&bits, &r, 4);
            want[size_t(y) * kW + size_t(x)] = uint8_t(bits);
        }
    uint8_t *in, *out;
    CK(cudaMalloc(&in, n));
    CK(cudaMalloc(&out, n));
    CK(cudaMemcpy(in, px.data(), n, cudaMemcpyHostToDevice));
    const auto run = [&](const char *name, auto kernel, int stages, int per_sm) {
        const size_t smem = size_t(stages) * kW;
        CK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, int(smem)));
        int fits = 0;
        CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&fits, kernel, kThreads, smem));
        if (fits < per_sm) {
            printf("%-40s %d blocks an SM do not fit (%d)\n", name, per_sm, fits);
            return;
        }
        const int grid = sms * per_sm, band = (h + grid - 1) / grid;
        time_and_check(name, [&] { kernel<<<grid, kThreads, smem>>>(in, out, h, band, w); }, out, want);
    };
    run("bulk rows, 4 stages, 1 block an SM", box_bulk<4, 1>, 4, 1);
    run("bulk rows, 8 stages, 1 block an SM", box_bulk<8, 1>, 8, 1);
    run("bulk rows, 16 stages, 1 block an SM", box_bulk<16, 1>, 16, 1);
    run("bulk rows, 4 stages, 2 blocks an SM", box_bulk<4, 2>, 4, 2);
    run("bulk rows, 8 stages, 2 blocks an SM", box_bulk<8, 2>, 8, 2);
    {
        const float us = time_us([&] { copy16<<<unsigned(n / 16 / 256), 256>>>(in, out); });
        printf("%-40s %7.2f us (%.0f GB/s)\n", "copy kernel, 16 bytes a thread", us, 2.0 * n / us / 1e3);
    }
    {
        const float us = time_us([&] { CK(cudaMemcpyAsync(out, in, n, cudaMemcpyDeviceToDevice)); });
        printf("%-40s %7.2f us (%.0f GB/s)\n", "copy of the same bytes", us, 2.0 * n / us / 1e3);
    }
    return 0;
}
