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
// The segmented pass (int32 sums, uint8 head flags of mixed lengths: the issue's 1.1x target)
// brings its flags in by a second bulk copy; its registers no longer hold loads in flight.
// Each output (plain, segmented, exclusive) is compared bit for bit with the product's
// scan_best of the same tile size (the same order of operations: the same bits); a look-back
// that gave up would show there.
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

// ROWS rows of 128 a warp (a tile of 256 x 4 x ROWS elements), STAGES tiles in flight a block.
// Plain or segmented (SEG: the head flags come in by a second bulk copy, a byte each), inclusive
// or exclusive: best's pass (scan_best) with its loads from shared memory. n a multiple of 16
// (bulk copies move multiples of 16 bytes), in, flags and out 16-byte aligned.
template <typename T, typename Op, bool EXCL, bool SEG, int ROWS, int STAGES>
__global__ void __launch_bounds__(kBestThreads) scan_bulk(const T *in, const uint8_t *flags, T *out, int64_t n,
                                                          uint64_t *statuses, int64_t tiles, uint32_t epoch) {
    using E = BestElement<T, SEG>;
    using O = BestOp<Op, SEG>;
    const O op{};
    constexpr int kWarps = kBestThreads / 32, kItems = 4 * ROWS, kTile = kBestThreads * kItems, kWarpSpan = 32 * kItems;
    constexpr int kStageBytes = kTile * int(sizeof(T)) + (SEG ? kTile : 0);  // the values, then the flags
    extern __shared__ __align__(128) float4 stage_mem[];
    unsigned char *const stages = reinterpret_cast<unsigned char *>(stage_mem);
    __shared__ uint64_t full[STAGES];
    __shared__ E warp_total[kWarps];
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
        const int64_t tile = blockIdx.x + k * grid, count = min(int64_t(kTile), n - tile * kTile);
        const int s = int(k % STAGES);
        unsigned char *dst = stages + s * kStageBytes;
        const uint32_t bytes = uint32_t(count * int64_t(sizeof(T)));
        ptx::mbarrier_arrive_expect_tx(ptx::sem_release, ptx::scope_cta, ptx::space_shared, &full[s],
                                       bytes + (SEG ? uint32_t(count) : 0u));
        ptx::cp_async_bulk(ptx::space_cluster, ptx::space_global, dst, in + tile * kTile, bytes, &full[s]);
        if (SEG) ptx::cp_async_bulk(ptx::space_cluster, ptx::space_global, dst + kTile * sizeof(T), flags + tile * kTile,
                                    uint32_t(count), &full[s]);
    };
    if (threadIdx.x == 0)
        for (int64_t k = 0; k < STAGES && k < mine; ++k) issue(k);
    for (int64_t k = 0; k < mine; ++k) {
        const int64_t tile = blockIdx.x + k * grid, count = min(int64_t(kTile), n - tile * kTile);
        const int s = int(k % STAGES);
        wait_parity(&full[s], uint32_t(k / STAGES) & 1u);
        const T *vals = reinterpret_cast<const T *>(stages + s * kStageBytes) + warp * kWarpSpan;
        const uint8_t *fl = stages + s * kStageBytes + kTile * sizeof(T) + warp * kWarpSpan;
        T x[kItems];
        uint32_t heads[ROWS];  // (as best: bit k of heads[r] is x[4 r + k]'s head flag)
#pragma unroll
        for (int r = 0; r < ROWS; ++r) {
            const int e = warp * kWarpSpan + 128 * r + 4 * lane;  // the element's index in the tile
            uint32_t f = 0;
            if (e + 3 < count) {
                const uint4 q = *reinterpret_cast<const uint4 *>(vals + 128 * r + 4 * lane);
                x[4 * r] = from_bits<T>(q.x), x[4 * r + 1] = from_bits<T>(q.y), x[4 * r + 2] = from_bits<T>(q.z),
                          x[4 * r + 3] = from_bits<T>(q.w);
                if (SEG) f = *reinterpret_cast<const uint32_t *>(fl + 128 * r + 4 * lane);
            } else {
#pragma unroll
                for (int j = 0; j < 4; ++j) {
                    x[4 * r + j] = e + j < count ? vals[128 * r + 4 * lane + j] : tc::identity<T, Op>();
                    if (SEG && e + j < count) f |= uint32_t(fl[128 * r + 4 * lane + j]) << (8 * j);
                }
            }
            if (SEG && tile == 0 && e == 0) f |= 1u;  // position 0 starts a segment
            heads[r] = 0;
#pragma unroll
            for (int j = 0; j < 4; ++j) heads[r] |= (f >> (8 * j)) & 0xffu ? 1u << j : 0u;
        }
        const auto element = [&x, &heads](int r, int j) {
            E el;
            make(el, x[4 * r + j], (heads[r] >> j) & 1u);
            return el;
        };
        E lane_prefix[ROWS], carry = O::template identity<E>();
#pragma unroll
        for (int r = 0; r < ROWS; ++r) {
            E fold = element(r, 0);
#pragma unroll
            for (int j = 1; j < 4; ++j) fold = op(fold, element(r, j));
            E row_total;
            const E before = tc::warp_scan<E, O, true>(fold, op, &row_total);
            lane_prefix[r] = op(carry, before);
            carry = op(carry, row_total);
        }
        if (lane == 0) warp_total[warp] = carry;
        __syncthreads();  // every thread has read stage s, and the warps' totals are in
        if (threadIdx.x == 0 && k + STAGES < mine) issue(k + STAGES);
        E warp_prefix = O::template identity<E>(), aggregate = warp_prefix;
#pragma unroll
        for (int w = 0; w < kWarps; ++w) {
            if (w == warp) warp_prefix = aggregate;
            aggregate = op(aggregate, warp_total[w]);
        }
        if (warp == 0) {
            T prefix = tc::identity<T, Op>();
            cuda::atomic_ref<uint64_t, cuda::thread_scope_device> status(statuses[tile]);
            bool headed = false;
            if constexpr (SEG) headed = aggregate.f != 0;
            if (lane == 0)
                status.store(status_word(bits_of(value_of(aggregate)), tile == 0 || headed ? kInclusive : kAggregate, epoch),
                             cuda::memory_order_release);
            if (tile > 0) prefix = look_back<T, Op>(statuses, tile, epoch, stack);
            if (lane == 0 && tile > 0 && !headed)
                status.store(status_word(bits_of(Op()(prefix, value_of(aggregate))), kInclusive, epoch), cuda::memory_order_release);
            if (lane == 0) prefix_shared = prefix;
        }
        __syncthreads();
        E tile_prefix;
        make(tile_prefix, prefix_shared, 0u);
        const E start = op(tile_prefix, warp_prefix);  // (best's order: the tile's prefix, then the warps before)
        T *dst = out + tile * kTile + warp * kWarpSpan;
#pragma unroll
        for (int r = 0; r < ROWS; ++r) {
            const int e = warp * kWarpSpan + 128 * r + 4 * lane;
            E acc = op(start, lane_prefix[r]);
            T v[4];
#pragma unroll
            for (int j = 0; j < 4; ++j) {
                const E el = element(r, j);
                if (EXCL) {
                    bool head = false;
                    if constexpr (SEG) head = el.f != 0;
                    v[j] = head ? tc::identity<T, Op>() : value_of(acc);
                }
                acc = op(acc, el);
                if (!EXCL) v[j] = value_of(acc);
            }
            if (e + 3 < count) {
                __stcs(reinterpret_cast<uint4 *>(dst + 128 * r + 4 * lane), make_uint4(bits_of(v[0]), bits_of(v[1]), bits_of(v[2]), bits_of(v[3])));
            } else {
#pragma unroll
                for (int j = 0; j < 4; ++j)
                    if (e + j < count) dst[128 * r + 4 * lane + j] = v[j];
            }
        }
    }
}

// The element type of a kernel whose first parameter is `const T *` (scan_best's and scan_bulk's)
template <typename T>
struct Type {
    using type = T;
};
template <typename T, typename... Rest>
Type<T> kernel_types(void (*)(const T *, Rest...));

}  // namespace

int main() {
    int sms = 0;
    CK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
    for (const int64_t n : {int64_t(1) << 28, int64_t(1000000)}) {
        // float32 values in [0, 1) for the plain scans, the same bits as int32 for the segmented
        // ones (int32 sums wrap: bits compare all the same); head flags of mixed lengths (half of
        // the segments 1 long, the rest 1 to 10^6, as the command's -seglen mixed)
        std::vector<uint32_t> host(static_cast<size_t>(n));
        std::vector<uint8_t> heads(static_cast<size_t>(n), 0);
        uint64_t st = 7;
        const auto next = [&st] { return st = st * 6364136223846793005ull + 1442695040888963407ull; };
        for (auto &v : host) {
            const float f = float(next() >> 40) * 0x1p-24f;
            memcpy(&v, &f, 4);
        }
        for (int64_t i = 0; i < n;) {
            heads[size_t(i)] = 1;
            i += (next() >> 63) ? 1 + int64_t((next() >> 20) % 1000000) : 1;
        }
        void *in, *ref, *out;
        uint8_t *flags;
        uint64_t *statuses, *best_statuses;
        BestState *state;
        const int64_t max_tiles = n / 1024 + 1;
        CK(cudaMalloc(&in, n * 4));
        CK(cudaMalloc(&ref, n * 4));
        CK(cudaMalloc(&out, n * 4));
        CK(cudaMalloc(&flags, n));
        CK(cudaMalloc(&statuses, max_tiles * 8));
        CK(cudaMalloc(&best_statuses, max_tiles * 8));
        CK(cudaMalloc(&state, sizeof(BestState)));
        CK(cudaMemset(statuses, 0, max_tiles * 8));
        CK(cudaMemcpy(in, host.data(), n * 4, cudaMemcpyHostToDevice));
        CK(cudaMemcpy(flags, heads.data(), n, cudaMemcpyHostToDevice));
        const float copy_us = time_us([&] { CK(cudaMemcpyAsync(out, in, n * 4, cudaMemcpyDeviceToDevice)); });
        printf("n = %lld: copy %.2f us (%.0f GB/s)\n", (long long)n, copy_us, 8.0 * n / copy_us / 1e3);
        std::vector<uint32_t> want(static_cast<size_t>(n)), got(static_cast<size_t>(n));
        float plain_us = 0;  // the product's plain scan at its tile (the segmented target: <= 1.1x it)
        // the product's best at the given tiles; its output kept to compare
        const auto best = [&](const char *name, int rows, auto kernel, bool seg) {
            const int64_t tiles = (n + best_tile(rows) - 1) / best_tile(rows);
            CK(cudaMemset(state, 0, sizeof(BestState)));
            CK(cudaMemset(best_statuses, 0, max_tiles * 8));
            using T = typename decltype(kernel_types(kernel))::type;
            const float us = time_us([&] {
                kernel<<<unsigned(tiles), kBestThreads>>>(static_cast<const T *>(in), seg ? flags : nullptr, static_cast<T *>(ref), n,
                                                          state, best_statuses, tiles);
            });
            CK(cudaDeviceSynchronize());
            CK(cudaMemcpy(want.data(), ref, n * 4, cudaMemcpyDeviceToHost));
            printf("  %-44s %8.2f us (%5.1f%% of copy)\n", name, us, 100 * copy_us / us);
            return us;
        };
        uint32_t epoch = 0;
        const auto bulk = [&](const char *name, int rows, int stages, auto kernel, bool seg) {
            using T = typename decltype(kernel_types(kernel))::type;
            const int64_t tile = best_tile(rows), tiles = (n + tile - 1) / tile;
            const size_t smem = size_t(stages) * size_t(tile) * (4 + (seg ? 1 : 0));
            CK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, int(smem)));
            int per_sm = 0;
            CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, kBestThreads, smem));
            if (per_sm < 1) {
                printf("  %-44s does not fit an SM\n", name);
                return;
            }
            const int64_t grid = std::min<int64_t>(int64_t(per_sm) * sms, tiles);
            CK(cudaMemset(out, 0xFF, n * 4));
            const float us = time_us([&] {
                kernel<<<unsigned(grid), kBestThreads, smem>>>(static_cast<const T *>(in), seg ? flags : nullptr, static_cast<T *>(out), n,
                                                              statuses, tiles, ++epoch);
            });
            CK(cudaGetLastError());
            CK(cudaDeviceSynchronize());
            CK(cudaMemcpy(got.data(), out, n * 4, cudaMemcpyDeviceToHost));
            size_t diff = 0;
            for (size_t i = 0; i < size_t(n); ++i) diff += got[i] != want[i];
            printf("  %-44s %8.2f us (%5.1f%% of copy), %d blocks an SM: %s (%zu differ from scan_best's)\n", name, us,
                   100 * copy_us / us, per_sm, diff ? "DIFFERS" : "same bits", diff);
            if (seg && plain_us > 0) printf("  %-44s %.2fx the product's plain scan\n", "", us / plain_us);
        };
        using F = tc::Sum;
        best("product scan_best f32, tiles of 4096", 4, scan_best<float, F, false, false, 4>, false);
        bulk("bulk f32, tiles of 4096, 4 stages", 4, 4, scan_bulk<float, F, false, false, 4, 4>, false);
        bulk("bulk f32, tiles of 4096, 8 stages", 4, 8, scan_bulk<float, F, false, false, 4, 8>, false);
        best("product scan_best f32, tiles of 8192", 8, scan_best<float, F, false, false, 8>, false);
        bulk("bulk f32, tiles of 8192, 2 stages", 8, 2, scan_bulk<float, F, false, false, 8, 2>, false);
        bulk("bulk f32, tiles of 8192, 3 stages", 8, 3, scan_bulk<float, F, false, false, 8, 3>, false);
        bulk("bulk f32, tiles of 8192, 4 stages", 8, 4, scan_bulk<float, F, false, false, 8, 4>, false);
        bulk("bulk f32, tiles of 8192, 6 stages", 8, 6, scan_bulk<float, F, false, false, 8, 6>, false);
        plain_us = best("product scan_best f32, tiles of 16384", 16, scan_best<float, F, false, false, 16>, false);
        bulk("bulk f32, tiles of 16384, 2 stages", 16, 2, scan_bulk<float, F, false, false, 16, 2>, false);
        bulk("bulk f32, tiles of 16384, 3 stages", 16, 3, scan_bulk<float, F, false, false, 16, 3>, false);
        best("product scan_best int32 segmented, 8192", 8, scan_best<uint32_t, F, false, true, 8>, true);
        bulk("bulk int32 segmented, tiles of 8192, 2 stages", 8, 2, scan_bulk<uint32_t, F, false, true, 8, 2>, true);
        bulk("bulk int32 segmented, tiles of 8192, 3 stages", 8, 3, scan_bulk<uint32_t, F, false, true, 8, 3>, true);
        bulk("bulk int32 segmented, tiles of 8192, 4 stages", 8, 4, scan_bulk<uint32_t, F, false, true, 8, 4>, true);
        best("product scan_best int32 segmented, 4096", 4, scan_best<uint32_t, F, false, true, 4>, true);
        bulk("bulk int32 segmented, tiles of 4096, 4 stages", 4, 4, scan_bulk<uint32_t, F, false, true, 4, 4>, true);
        bulk("bulk int32 segmented, tiles of 4096, 8 stages", 4, 8, scan_bulk<uint32_t, F, false, true, 4, 8>, true);
        best("product scan_best f32 exclusive, 8192", 8, scan_best<float, F, true, false, 8>, false);
        bulk("bulk f32 exclusive, tiles of 8192, 3 stages", 8, 3, scan_bulk<float, F, true, false, 8, 3>, false);
        for (void *p : {in, ref, out, (void *)flags, (void *)statuses, (void *)best_statuses, (void *)state}) CK(cudaFree(p));
    }
    return 0;
}
