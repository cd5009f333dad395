// Scratch experiment (not part of the product): prefiks best with its tiles brought into shared
// memory by the copy engine (cp.async.bulk, Hopper's TMA) instead of into registers by 16-byte
// loads. Written in a session without a GPU (2026-11-23, fourth session); not yet run.
//
// Why: best (one tile a block, 16384 floats held in registers, 119 registers: 2 blocks an SM)
// takes 892.5 us at 2^28 (80.9% of the copy; target 90%, 801 us). ncu: 25% occupancy, DRAM 69%,
// 68% of warp stalls at the block's barriers (waiting for warp 0's look-back and the slowest
// warp's loads): while a block looks back, it has nothing in flight. A resident grid that issued
// the next tile's loads into registers before the look-back measured slower (992.6 us): the
// registers for two tiles cost more than the look-back it hid.
// Here a resident grid (every block resident: blocks an SM by occupancy) walks its tiles (block
// b: tiles b, b + G, b + 2G, ...), and one thread keeps STAGES tiles in flight into shared memory
// by bulk copies, each completing on its stage's mbarrier. The threads read a tile from shared
// memory in best's layout (a warp's rows of 128, 4 contiguous elements a lane: conflict-free
// 16-byte reads), and then the pass is best's: the rows' warp scans, the block's warps, the
// tile's status word and look_back (the product's), and 16-byte evict-first stores. The copy
// engine keeps loading the next stages through the look-back, and registers hold one tile only.
// Predicted: the look-back leaves the memory's critical path, DRAM busy throughout: 2^28 in
// 800-840 us (86-90% of copy) if that stall was what held best, no gain if the stores are.
// Each output is compared bit for bit with the product's scan_best of the same tile size (the
// same order of additions: the same bits), and the look-back's give-up is counted.
// Build and run: bash scripts/experiments/run.sh bulk (with carry ["gpu-bundle"]).
#include "../../cuda/prefiks.cu"
#include <cstdio>
#include <cuda/ptx>
#include <vector>

#include "timing.cuh"

namespace {

namespace ptx = cuda::ptx;

__device__ __forceinline__ void wait_parity(uint64_t *bar, uint32_t parity) {
    while (!ptx::mbarrier_try_wait_parity(bar, parity)) {}
}

// ROWS rows of 128 a warp (a tile of 256 x 4 x ROWS floats), STAGES tiles in flight a block.
// n a multiple of 4 (bulk copies move multiples of 16 bytes), in and out 16-byte aligned.
template <int ROWS, int STAGES>
__global__ void __launch_bounds__(kBestThreads) scan_bulk(const float *in, float *out, int64_t n, uint64_t *statuses,
                                                          int64_t tiles, uint32_t epoch) {
    using T = float;
    using Op = tc::Sum;
    const Op op{};
    constexpr int kWarps = kBestThreads / 32, kItems = 4 * ROWS, kTile = kBestThreads * kItems, kWarpSpan = 32 * kItems;
    extern __shared__ __align__(128) float4 stage_mem[];
    T *const stages = reinterpret_cast<T *>(stage_mem);
    __shared__ uint64_t full[STAGES];
    __shared__ T warp_total[kWarps];
    __shared__ T prefix_shared;
    __shared__ uint32_t stack[kBestStack];
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    const int64_t grid = gridDim.x, mine = tiles > blockIdx.x ? (tiles - 1 - blockIdx.x) / grid + 1 : 0;
    if (threadIdx.x == 0) {
        for (int s = 0; s < STAGES; ++s) ptx::mbarrier_init(&full[s], 1);
        ptx::fence_proxy_async(ptx::space_shared);  // the inits, visible to the copy engine
    }
    __syncthreads();
    const auto issue = [&](int64_t k) {  // my k-th tile into stage k % STAGES (thread 0)
        const int64_t tile = blockIdx.x + k * grid;
        const int s = int(k % STAGES);
        const uint32_t bytes = uint32_t(min(int64_t(kTile), n - tile * kTile) * int64_t(sizeof(T)));
        ptx::mbarrier_arrive_expect_tx(ptx::sem_release, ptx::scope_cta, ptx::space_shared, &full[s], bytes);
        ptx::cp_async_bulk(ptx::space_cluster, ptx::space_global, stages + s * kTile, in + tile * kTile, bytes, &full[s]);
    };
    if (threadIdx.x == 0)
        for (int64_t k = 0; k < STAGES && k < mine; ++k) issue(k);
    for (int64_t k = 0; k < mine; ++k) {
        const int64_t tile = blockIdx.x + k * grid, count = min(int64_t(kTile), n - tile * kTile);
        const int s = int(k % STAGES);
        wait_parity(&full[s], uint32_t(k / STAGES) & 1u);
        const T *rows = stages + s * kTile + warp * kWarpSpan;
        T x[kItems];
#pragma unroll
        for (int r = 0; r < ROWS; ++r) {
            const int e = warp * kWarpSpan + 128 * r + 4 * lane;  // the element's index in the tile
            if (e + 3 < count) {
                const float4 q = *reinterpret_cast<const float4 *>(rows + 128 * r + 4 * lane);
                x[4 * r] = q.x, x[4 * r + 1] = q.y, x[4 * r + 2] = q.z, x[4 * r + 3] = q.w;
            } else {
#pragma unroll
                for (int j = 0; j < 4; ++j) x[4 * r + j] = e + j < count ? rows[128 * r + 4 * lane + j] : tc::identity<T, Op>();
            }
        }
        T lane_prefix[ROWS], carry = tc::identity<T, Op>();
#pragma unroll
        for (int r = 0; r < ROWS; ++r) {
            T fold = x[4 * r];
#pragma unroll
            for (int j = 1; j < 4; ++j) fold = op(fold, x[4 * r + j]);
            T row_total;
            const T before = tc::warp_scan<T, Op, true>(fold, op, &row_total);
            lane_prefix[r] = op(carry, before);
            carry = op(carry, row_total);
        }
        if (lane == 0) warp_total[warp] = carry;
        __syncthreads();  // every thread has read stage s, and the warps' totals are in
        if (threadIdx.x == 0 && k + STAGES < mine) issue(k + STAGES);
        T warp_prefix = tc::identity<T, Op>(), aggregate = warp_prefix;
#pragma unroll
        for (int w = 0; w < kWarps; ++w) {
            if (w == warp) warp_prefix = aggregate;
            aggregate = op(aggregate, warp_total[w]);
        }
        if (warp == 0) {
            T prefix = tc::identity<T, Op>();
            cuda::atomic_ref<uint64_t, cuda::thread_scope_device> status(statuses[tile]);
            if (lane == 0)
                status.store(status_word(bits_of(aggregate), tile == 0 ? kInclusive : kAggregate, epoch), cuda::memory_order_release);
            if (tile > 0) prefix = look_back<T, Op>(statuses, tile, epoch, stack);
            if (lane == 0 && tile > 0)
                status.store(status_word(bits_of(op(prefix, aggregate)), kInclusive, epoch), cuda::memory_order_release);
            if (lane == 0) prefix_shared = prefix;
        }
        __syncthreads();
        const T start = op(prefix_shared, warp_prefix);  // (best's order: the tile's prefix, then the warps before)
        T *dst = out + tile * kTile + warp * kWarpSpan;
#pragma unroll
        for (int r = 0; r < ROWS; ++r) {
            const int e = warp * kWarpSpan + 128 * r + 4 * lane;
            T acc = op(start, lane_prefix[r]), v[4];
#pragma unroll
            for (int j = 0; j < 4; ++j) acc = op(acc, x[4 * r + j]), v[j] = acc;
            if (e + 3 < count) {
                __stcs(reinterpret_cast<float4 *>(dst + 128 * r + 4 * lane), make_float4(v[0], v[1], v[2], v[3]));
            } else {
#pragma unroll
                for (int j = 0; j < 4; ++j)
                    if (e + j < count) dst[128 * r + 4 * lane + j] = v[j];
            }
        }
    }
}

}  // namespace

int main() {
    int sms = 0;
    CK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
    for (const int64_t n : {int64_t(1) << 28, int64_t(1000000)}) {
        std::vector<float> host(static_cast<size_t>(n));
        uint64_t st = 7;
        for (auto &v : host) v = float((st = st * 6364136223846793005ull + 1442695040888963407ull) >> 40) * 0x1p-24f;
        float *in, *ref, *out;
        uint64_t *statuses, *best_statuses;
        BestState *state;
        const int64_t max_tiles = n / 1024 + 1;
        CK(cudaMalloc(&in, n * 4));
        CK(cudaMalloc(&ref, n * 4));
        CK(cudaMalloc(&out, n * 4));
        CK(cudaMalloc(&statuses, max_tiles * 8));
        CK(cudaMalloc(&best_statuses, max_tiles * 8));
        CK(cudaMalloc(&state, sizeof(BestState)));
        CK(cudaMemset(statuses, 0, max_tiles * 8));
        CK(cudaMemset(best_statuses, 0, max_tiles * 8));
        CK(cudaMemset(state, 0, sizeof(BestState)));
        CK(cudaMemcpy(in, host.data(), n * 4, cudaMemcpyHostToDevice));
        float copy_us = time_us([&] { CK(cudaMemcpyAsync(out, in, n * 4, cudaMemcpyDeviceToDevice)); });
        printf("n = %lld: copy %.2f us (%.0f GB/s)\n", (long long)n, copy_us, 8.0 * n / copy_us / 1e3);
        std::vector<float> want(static_cast<size_t>(n)), got(static_cast<size_t>(n));
        // the product's best at tiles of 8192 and 16384 (each run's output kept to compare)
        const auto best = [&](int rows, auto kernel) {
            const int64_t tiles = (n + best_tile(rows) - 1) / best_tile(rows);
            CK(cudaMemset(state, 0, sizeof(BestState)));
            CK(cudaMemset(best_statuses, 0, max_tiles * 8));
            const float us = time_us([&] { kernel<<<unsigned(tiles), kBestThreads>>>(in, nullptr, ref, n, state, best_statuses, tiles); });
            CK(cudaDeviceSynchronize());
            printf("  product scan_best, tiles of %5lld: %8.2f us (%5.1f%% of copy)\n", (long long)best_tile(rows), us, 100 * copy_us / us);
        };
        uint32_t epoch = 0;
        const auto bulk = [&](const char *name, int rows, int stages, auto kernel) {
            const int64_t tile = best_tile(rows), tiles = (n + tile - 1) / tile;
            const size_t smem = size_t(stages) * size_t(tile) * 4;
            CK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, int(smem)));
            int per_sm = 0;
            CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, kBestThreads, smem));
            const int64_t grid = std::min<int64_t>(int64_t(per_sm) * sms, tiles);
            if (per_sm < 1) {
                printf("  %-34s does not fit an SM\n", name);
                return;
            }
            CK(cudaMemset(out, 0xFF, n * 4));
            const float us = time_us([&] { kernel<<<unsigned(grid), kBestThreads, smem>>>(in, out, n, statuses, tiles, ++epoch); });
            CK(cudaGetLastError());
            CK(cudaDeviceSynchronize());
            CK(cudaMemcpy(got.data(), out, n * 4, cudaMemcpyDeviceToHost));
            size_t diff = 0;
            for (size_t i = 0; i < size_t(n); ++i) diff += memcmp(&got[i], &want[i], 4) != 0;
            printf("  %-34s %8.2f us (%5.1f%% of copy), %d blocks an SM, grid %lld: %s (%zu differ from scan_best of the same tiles)\n",
                   name, us, 100 * copy_us / us, per_sm, (long long)grid, diff ? "DIFFERS" : "same bits", diff);
        };
        best(8, scan_best<float, tc::Sum, false, false, 8>);
        CK(cudaMemcpy(want.data(), ref, n * 4, cudaMemcpyDeviceToHost));
        bulk("bulk tiles 8192, 2 stages", 8, 2, scan_bulk<8, 2>);
        bulk("bulk tiles 8192, 3 stages", 8, 3, scan_bulk<8, 3>);
        bulk("bulk tiles 8192, 4 stages", 8, 4, scan_bulk<8, 4>);
        bulk("bulk tiles 8192, 6 stages", 8, 6, scan_bulk<8, 6>);
        best(16, scan_best<float, tc::Sum, false, false, 16>);
        CK(cudaMemcpy(want.data(), ref, n * 4, cudaMemcpyDeviceToHost));
        bulk("bulk tiles 16384, 2 stages", 16, 2, scan_bulk<16, 2>);
        bulk("bulk tiles 16384, 3 stages", 16, 3, scan_bulk<16, 3>);
        best(4, scan_best<float, tc::Sum, false, false, 4>);
        CK(cudaMemcpy(want.data(), ref, n * 4, cudaMemcpyDeviceToHost));
        bulk("bulk tiles 4096, 4 stages", 4, 4, scan_bulk<4, 4>);
        bulk("bulk tiles 4096, 8 stages", 4, 8, scan_bulk<4, 8>);
        for (void *p : {(void *)in, (void *)ref, (void *)out, (void *)statuses, (void *)best_statuses, (void *)state}) CK(cudaFree(p));
    }
    return 0;
}
