// Scratch experiment (not part of the product): the copy ceiling of prefiks's byte mixes. A scan
// reads n values and writes n (8 bytes an element); a segmented scan reads n head-flag bytes too
// (9). This kernel moves exactly scan_best's bytes in scan_best's pattern (tiles of 256 threads,
// rows of 128 elements a warp, 16-byte value loads, a lane's 4 flags in one 4-byte load, the
// tile half a resident wave ahead prefetched into L2 in bulk), with no scan: out = in, or for
// segments out = in + the lane's head count. Its time is the floor under best's pass for that
// mix and tile; beside it the runtime's device-to-device copy of the same values.
//   bash scripts/experiments/run.sh mix
#include <cstdio>

#include "timing.cuh"

__device__ __forceinline__ void prefetch_l2(const void *p, unsigned bytes) {
    asm volatile("cp.async.bulk.prefetch.L2.global [%0], %1;" ::"l"(p), "r"(bytes) : "memory");
}

// ROWS rows of 128 a warp (a tile: 1024 ROWS elements); SEG: flags too; LEAD: tiles ahead to prefetch (0: none)
template <int ROWS, bool SEG>
__global__ void __launch_bounds__(256) mix(const int *in, const uint8_t *flags, int *out, int64_t n, int lead) {
    constexpr int64_t kTile = 1024 * ROWS;
    extern __shared__ int hold[];  // (the launch's dynamic shared memory sets the blocks an SM)
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    const int64_t tile = blockIdx.x, base = tile * kTile + int64_t(warp) * 128 * ROWS;
    uint4 v[ROWS];
    unsigned f[ROWS];
#pragma unroll
    for (int r = 0; r < ROWS; ++r) {
        const int64_t i = base + 128 * r + 4 * lane;
        v[r] = __ldcs(reinterpret_cast<const uint4 *>(in + i));
        if (SEG) f[r] = __ldcs(reinterpret_cast<const unsigned *>(flags + i));
    }
    if (lead > 0 && warp == 0 && lane < 4 && (tile + lead + 1) * kTile <= n) {
        constexpr unsigned kQuarter = unsigned(kTile * 4 / 4);
        prefetch_l2(reinterpret_cast<const unsigned char *>(in + (tile + lead) * kTile) + lane * kQuarter, kQuarter);
        if (SEG && lane == 0) prefetch_l2(flags + (tile + lead) * kTile, unsigned(kTile));
    }
    if (threadIdx.x == 1023) hold[0] = 0;  // (never: keeps the shared memory)
#pragma unroll
    for (int r = 0; r < ROWS; ++r) {
        const int64_t i = base + 128 * r + 4 * lane;
        uint4 w = v[r];
        if (SEG) w.x += __popc(f[r]);
        __stcs(reinterpret_cast<uint4 *>(out + i), w);
    }
}

template <int ROWS, bool SEG>
void row(const int *in, const uint8_t *flags, int *out, int64_t n, int per_sm, int sms, float copy_gbs) {
    constexpr int64_t kTile = 1024 * ROWS;
    const int64_t tiles = n / kTile;
    const size_t smem = per_sm > 0 ? size_t(200 * 1024 / per_sm) : 0;
    CK(cudaFuncSetAttribute(mix<ROWS, SEG>, cudaFuncAttributeMaxDynamicSharedMemorySize, 200 * 1024));
    for (int lead_half : {0, 1}) {
        const int lead = lead_half ? per_sm * sms / 2 : 0;
        const float us = time_us([&] { mix<ROWS, SEG><<<unsigned(tiles), 256, smem>>>(in, flags, out, n, lead); }, 20, 3);
        CK(cudaGetLastError());
        const double bytes = (SEG ? 9.0 : 8.0) * double(n), gbs = bytes / us / 1e3;
        int resident = 0;
        CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&resident, mix<ROWS, SEG>, 256, smem));
        printf("%-5s tile %5lld  %d blocks an SM (%d resident)  lead %4d  %8.1f us  %6.0f GB/s  %5.1f%% of copy\n", SEG ? "seg" : "plain",
               (long long)kTile, per_sm, resident, lead, us, gbs, 100.0 * gbs / copy_gbs);
    }
}

int main() {
    const int64_t n = int64_t(1) << 28;
    int *in, *out;
    uint8_t *flags;
    CK(cudaMalloc(&in, n * 4));
    CK(cudaMalloc(&out, n * 4));
    CK(cudaMalloc(&flags, n));
    CK(cudaMemset(in, 1, n * 4));
    CK(cudaMemset(flags, 0, n));
    int sms = 0;
    CK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
    const float copy_us = time_us([&] { CK(cudaMemcpyAsync(out, in, n * 4, cudaMemcpyDeviceToDevice)); }, 20, 3);
    const float copy_gbs = float(8.0 * double(n) / copy_us / 1e3);
    printf("copy of 1 GiB: %.1f us, %.0f GB/s (read + write)\n", copy_us, copy_gbs);
    for (int per_sm : {2, 3, 4, 8}) row<16, false>(in, flags, out, n, per_sm, sms, copy_gbs);
    for (int per_sm : {2, 3, 4, 8}) row<8, false>(in, flags, out, n, per_sm, sms, copy_gbs);
    for (int per_sm : {2, 3, 4, 8}) row<8, true>(in, flags, out, n, per_sm, sms, copy_gbs);
    for (int per_sm : {2, 3, 4}) row<16, true>(in, flags, out, n, per_sm, sms, copy_gbs);
    return 0;
}
