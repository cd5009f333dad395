// prefiks: prefix sums (scans), the Czech lecture's steps in its order: Hillis-Steele in one
// block, the warp's five shuffle steps, the block's scan of warps, the grid's three kernels
// (scan the tiles, scan their totals recursively, add the offsets), the cost-optimal scan (each
// thread a contiguous run), and the segmented scan with head flags over the grid scan; CUB as
// the baseline. Every kernel takes the operator as a template parameter (sum, max, min).
// int32 sums run on uint32 (two's complement wrap, defined); max and min on int32.
#include "common.cuh"
#include "primitives.cuh"
#include "tecaj/prefiks.h"
#include <cmath>
#include <cuda/atomic>
#include <cub/device/device_scan.cuh>
#include <thrust/iterator/transform_iterator.h>

namespace {

constexpr unsigned kFull = 0xffffffffu;

// A 32-bit element's bits and back (status words hold them).
template <typename T>
__device__ __forceinline__ uint32_t bits_of(T v) {
    uint32_t b;
    memcpy(&b, &v, 4);
    return b;
}
template <typename T>
__device__ __forceinline__ T from_bits(uint32_t b) {
    T v;
    memcpy(&v, &b, 4);
    return v;
}

// A segmented element: the value and its head flag. The lecture's operator:
// (s_i, f_i) + (s_j, f_j) = (f_j ? s_j : s_i + s_j, f_i | f_j): a head restarts the scan.
template <typename T>
struct Seg {
    T v;
    uint32_t f;
};
template <typename Op>
struct Segmented {
    template <typename S>
    __host__ __device__ static constexpr S identity() {
        return S{Op::template identity<decltype(S::v)>(), 0u};
    }
    template <typename T>
    __host__ __device__ __forceinline__ Seg<T> operator()(Seg<T> a, Seg<T> b) const {
        return {b.f ? b.v : Op()(a.v, b.v), a.f | b.f};
    }
};

// Shuffles of built-in values and of segmented pairs (member by member).
template <typename T>
__device__ __forceinline__ T shfl_up(T v, unsigned d) { return __shfl_up_sync(kFull, v, d); }
template <typename T>
__device__ __forceinline__ Seg<T> shfl_up(Seg<T> v, unsigned d) {
    return {__shfl_up_sync(kFull, v.v, d), __shfl_up_sync(kFull, v.f, d)};
}

// Step hs: one block, Hillis-Steele in shared memory: for offsets 1, 2, 4, ... every thread reads
// its neighbour offset places back into a temporary, barrier, combines, barrier. (The lecture's
// loop reads offset << 1, which never changes the offset: it meant offset <<= 1.) log2(threads)
// steps of n operations each: not cost-optimal. Domain: n <= threads.
template <typename T, typename Op, bool EXCL>
__global__ void scan_hs(const T *in, T *out, int n) {
    T *s = tc::dynamic_shared<T>();
    const int t = threadIdx.x;
    s[t] = t < n ? in[t] : tc::identity<T, Op>();
    __syncthreads();
    for (int offset = 1; offset < int(blockDim.x); offset <<= 1) {
        const T before = t >= offset ? s[t - offset] : tc::identity<T, Op>();
        __syncthreads();
        s[t] = Op()(before, s[t]);
        __syncthreads();
    }
    if (t < n) out[t] = EXCL ? (t == 0 ? tc::identity<T, Op>() : s[t - 1]) : s[t];
}

// The lecture's scanWarp: five steps, lanes >= 1, 2, 4, 8, 16 add the value that many lanes
// back. Its volatile shared-memory form relies on a warp running in lock-step, a race since Volta
// (threads of a warp are scheduled independently); the shuffles keep the five steps and both
// move the values and synchronise the lanes. Inclusive, in every lane.
template <typename T, typename Op>
__device__ __forceinline__ T scan_warp_inclusive(T v) {
    const unsigned lane = threadIdx.x & 31;
    T u;
    u = shfl_up(v, 1); if (lane >= 1) v = Op()(u, v);
    u = shfl_up(v, 2); if (lane >= 2) v = Op()(u, v);
    u = shfl_up(v, 4); if (lane >= 4) v = Op()(u, v);
    u = shfl_up(v, 8); if (lane >= 8) v = Op()(u, v);
    u = shfl_up(v, 16); if (lane >= 16) v = Op()(u, v);
    return v;
}

// Step warp: one warp scans up to 32 elements. Exclusive: the inclusive value one lane back.
template <typename T, typename Op, bool EXCL>
__global__ void scan_warp(const T *in, T *out, int n) {
    const int lane = threadIdx.x;
    const T v = scan_warp_inclusive<T, Op>(lane < n ? in[lane] : tc::identity<T, Op>());
    const T before = shfl_up(v, 1);
    if (lane < n) out[lane] = EXCL ? (lane == 0 ? tc::identity<T, Op>() : before) : v;
}

// The lecture's scanBlock: scan every warp, the last lane of each writes its warp's total, the
// first warp scans those totals (exclusive), every thread adds its warp's offset. Inclusive
// result in every thread; the block's total in *total (every thread). `warp_totals`: 32 Ts of
// shared memory. blockDim.x: a multiple of 32.
template <typename T, typename Op>
__device__ __forceinline__ T scan_block_inclusive(T v, T *warp_totals, T *total) {
    const unsigned lane = threadIdx.x & 31, warp = threadIdx.x >> 5, warps = blockDim.x >> 5;
    v = scan_warp_inclusive<T, Op>(v);
    if (lane == 31) warp_totals[warp] = v;
    __syncthreads();
    if (warp == 0) {
        const T w = scan_warp_inclusive<T, Op>(lane < warps ? warp_totals[lane] : tc::identity<T, Op>());
        const T before = shfl_up(w, 1);
        __syncwarp();
        if (lane < warps) warp_totals[lane] = lane == 0 ? tc::identity<T, Op>() : before;  // exclusive
        if (lane == 31) warp_totals[32] = w;
    }
    __syncthreads();
    *total = warp_totals[32];
    return warp == 0 ? v : Op()(warp_totals[warp], v);
}

// One block's tile of blockDim.x elements from `base`: inclusive or exclusive (the inclusive
// value one thread back, through shared memory), the tile's total to sums[blockIdx.x] when given.
template <typename T, typename Op, bool EXCL>
__device__ __forceinline__ void scan_tile(const T *in, T *out, T *sums, int64_t n) {
    __shared__ T warp_totals[33];
    T *s = tc::dynamic_shared<T>();
    const int64_t i = int64_t(blockIdx.x) * blockDim.x + threadIdx.x;
    T total;
    const T v = scan_block_inclusive<T, Op>(i < n ? in[i] : tc::identity<T, Op>(), warp_totals, &total);
    if (EXCL) {
        s[threadIdx.x] = v;
        __syncthreads();
    }
    if (i < n) out[i] = !EXCL ? v : threadIdx.x == 0 ? tc::identity<T, Op>() : s[threadIdx.x - 1];
    if (sums && threadIdx.x == 0) sums[blockIdx.x] = total;
}

// Step block: one block scans up to blockDim.x elements. Domain: n <= threads.
template <typename T, typename Op, bool EXCL>
__global__ void scan_block(const T *in, T *out, int n) {
    scan_tile<T, Op, EXCL>(in, out, nullptr, n);
}

// Step grid, kernel 1: every block scans its tile and writes the tile's total.
template <typename T, typename Op, bool EXCL>
__global__ void grid_tiles(const T *in, T *out, T *sums, int64_t n) {
    scan_tile<T, Op, EXCL>(in, out, sums, n);
}

// Step grid, kernel 3 (kernel 2 is this scan, recursively, on the totals): every element of
// tile b combines the exclusive scan of the totals before it, offsets[b].
template <typename T, typename Op>
__global__ void grid_add(T *out, const T *offsets, int64_t n) {
    const int64_t i = int64_t(blockIdx.x) * blockDim.x + threadIdx.x;
    if (i < n && blockIdx.x > 0) out[i] = Op()(offsets[blockIdx.x], out[i]);
}

// Step co, the cost-optimal scan: p < n threads, each scans its own contiguous run of `run`
// elements sequentially (O(n) work in all) and writes its run's total; the totals are scanned
// (the grid scan); each run then combines its offset. Work O(n), steps O(n/p + log p).
template <typename T, typename Op, bool EXCL>
__global__ void co_runs(const T *in, T *out, T *totals, int64_t n, int64_t run) {
    const int64_t p = int64_t(blockIdx.x) * blockDim.x + threadIdx.x, begin = p * run;
    T acc = tc::identity<T, Op>();
    for (int64_t i = begin; i < begin + run && i < n; ++i) {
        const T x = in[i];
        if (EXCL) out[i] = acc;
        acc = Op()(acc, x);
        if (!EXCL) out[i] = acc;
    }
    totals[p] = acc;
}

template <typename T, typename Op>
__global__ void co_add(T *out, const T *offsets, int64_t n, int64_t run) {
    const int64_t p = int64_t(blockIdx.x) * blockDim.x + threadIdx.x, begin = p * run;
    if (p == 0) return;
    const T offset = offsets[p];
    for (int64_t i = begin; i < begin + run && i < n; ++i) out[i] = Op()(offset, out[i]);
}

// Step seg: values and head flags become pairs (position 0 always heads), the grid scan runs
// with the segmented operator, the values come back; exclusive: a head gets the identity.
template <typename T>
__global__ void seg_pack(const T *in, const uint8_t *flags, Seg<T> *pairs, int64_t n) {
    for (int64_t i = int64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += int64_t(gridDim.x) * blockDim.x)
        pairs[i] = {in[i], uint32_t(i == 0 || flags[i] != 0)};
}
template <typename T, typename Op, bool EXCL>
__global__ void seg_unpack(const Seg<T> *pairs, const uint8_t *flags, T *out, int64_t n) {
    for (int64_t i = int64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += int64_t(gridDim.x) * blockDim.x)
        out[i] = EXCL && (i == 0 || flags[i] != 0) ? tc::identity<T, Op>() : pairs[i].v;
}


// ---- best: one pass, decoupled look-back (Merrill & Garland 2016), deterministic --------------
//
// Beyond the lecture. Tiles of kBestItems x 256 elements take an index from a counter (tiles
// start in index order, so every tile a look-back waits for is running or done: no deadlock).
// Each thread scans its kBestItems contiguous elements, the block scans the thread totals
// (tc::block_scan) and the tile publishes its aggregate; the tile then looks back over its
// predecessors' published words until one holds an inclusive prefix, and folds the aggregates
// after it from left to right. Every inclusive prefix is then the left fold of all aggregates
// before it, whichever predecessor the look-back stopped at, so float results are the same bits
// every run (CUB's float scan folds its look-back window as a tree: not guaranteed). Status
// words carry a run epoch, so no run needs the statuses cleared: the last tile to finish
// advances the epoch and resets the counters. A look-back that spins too long (a bug, not a
// state the design reaches) gives up rather than hang, and the result fails its check.
constexpr int kBestThreads = 256, kBestItems = 8, kBestTile = kBestThreads * kBestItems;
enum : uint32_t { kInvalid = 0, kAggregate = 1, kInclusive = 2 };

struct BestState {
    unsigned counter, done, epoch, gave_up;
};

__device__ __forceinline__ uint64_t status_word(uint32_t value, uint32_t status, uint32_t epoch) {
    return uint64_t(value) | uint64_t(status) << 32 | uint64_t(epoch & 0xffffu) << 48;
}

template <typename T, typename Op, bool EXCL>
__global__ void __launch_bounds__(kBestThreads) scan_best(const T *in, T *out, int64_t n, BestState *state,
                                                         uint64_t *statuses, int64_t tiles) {
    static_assert(sizeof(T) == 4, "status words hold 32-bit values");
    __shared__ tc::BlockScanStorage<T> storage;
    __shared__ int64_t tile_shared;
    __shared__ T prefix_shared;
    __shared__ uint32_t stack[256];  // the aggregates a look-back passes, newest first
    const Op op{};
    if (threadIdx.x == 0) tile_shared = atomicAdd(&state->counter, 1u);
    __syncthreads();
    const int64_t tile = tile_shared, base = tile * kBestTile + int64_t(threadIdx.x) * kBestItems;
    const uint32_t epoch = __ldcg(&state->epoch);  // through L2: the last run's last tile wrote it
    T x[kBestItems];
    T total = tc::identity<T, Op>();
#pragma unroll
    for (int i = 0; i < kBestItems; ++i) {
        x[i] = base + i < n ? in[base + i] : tc::identity<T, Op>();
        total = op(total, x[i]);
    }
    T aggregate;
    const T thread_prefix = tc::block_scan<T, Op, true>(total, storage, op, &aggregate);
    if (threadIdx.x == 0) {
        cuda::atomic_ref<uint64_t, cuda::thread_scope_device> mine(statuses[tile]);
        T prefix = tc::identity<T, Op>();
        if (tile == 0) {
            mine.store(status_word(bits_of(aggregate), kInclusive, epoch), cuda::memory_order_release);
        } else {
            mine.store(status_word(bits_of(aggregate), kAggregate, epoch), cuda::memory_order_release);
            int depth = 0;
            uint32_t spins = 0;
            for (int64_t j = tile - 1;;) {
                cuda::atomic_ref<uint64_t, cuda::thread_scope_device> theirs(statuses[j]);
                const uint64_t w = theirs.load(cuda::memory_order_acquire);
                const uint32_t status = uint32_t(w >> 32) & 3u, e = uint32_t(w >> 48);
                const bool valid = status != kInvalid && e == (epoch & 0xffffu);
                if (valid && status == kInclusive) {
                    prefix = from_bits<T>(uint32_t(w));
                    break;
                }
                if (valid && depth < 256) {  // an aggregate: remember it, look further back
                    stack[depth++] = uint32_t(w);
                    --j;
                    continue;
                }
                if (++spins > (1u << 26)) {  // gave up: never expected
                    atomicExch(&state->gave_up, 1u);
                    break;
                }
                __nanosleep(32);  // not published yet (or the stack is full: wait for an inclusive)
            }
            for (int k = depth - 1; k >= 0; --k) prefix = op(prefix, from_bits<T>(stack[k]));  // left to right
            mine.store(status_word(bits_of(op(prefix, aggregate)), kInclusive, epoch), cuda::memory_order_release);
        }
        prefix_shared = prefix;
    }
    __syncthreads();
    T acc = op(prefix_shared, thread_prefix);
#pragma unroll
    for (int i = 0; i < kBestItems; ++i) {
        if (EXCL && base + i < n) out[base + i] = acc;
        acc = op(acc, x[i]);
        if (!EXCL && base + i < n) out[base + i] = acc;
    }
    if (threadIdx.x == 0) {
        cuda::atomic_ref<unsigned, cuda::thread_scope_device> done(state->done);
        if (done.fetch_add(1u, cuda::memory_order_acq_rel) == unsigned(tiles - 1)) {  // the last tile: ready the next run
            state->counter = 0;
            state->done = 0;
            state->epoch = epoch + 1;
        }
    }
}

// ---- the baseline: CUB's scans, and for segments what a CUB user does from head flags: keys by
// an inclusive sum of the flags, then ScanByKey (timed whole).
struct FlagAsKey {
    __host__ __device__ int operator()(uint8_t f) const { return f != 0; }
};

template <typename T, typename Op>
cudaError_t cub_scan(void *temp, size_t &bytes, const T *in, const uint8_t *flags, int *keys, T *out, int64_t n,
                     bool exclusive, bool segmented, cudaStream_t s) {
    if (!segmented) {
        if (exclusive) return cub::DeviceScan::ExclusiveScan(temp, bytes, in, out, Op(), tc::identity<T, Op>(), n, s);
        return cub::DeviceScan::InclusiveScan(temp, bytes, in, out, Op(), n, s);
    }
    size_t a = 0, b = 0;
    auto as_keys = thrust::make_transform_iterator(flags, FlagAsKey{});
    cudaError_t e = cub::DeviceScan::InclusiveSum(nullptr, a, as_keys, keys, n, s);
    if (e != cudaSuccess) return e;
    e = exclusive ? cub::DeviceScan::ExclusiveScanByKey(nullptr, b, keys, in, out, Op(), tc::identity<T, Op>(), n,
                                                        cuda::std::equal_to<>(), s)
                  : cub::DeviceScan::InclusiveScanByKey(nullptr, b, keys, in, out, Op(), n, cuda::std::equal_to<>(), s);
    if (e != cudaSuccess) return e;
    if (!temp) {
        bytes = a > b ? a : b;
        return cudaSuccess;
    }
    if ((e = cub::DeviceScan::InclusiveSum(temp, a, as_keys, keys, n, s)) != cudaSuccess) return e;
    return exclusive ? cub::DeviceScan::ExclusiveScanByKey(temp, b, keys, in, out, Op(), tc::identity<T, Op>(), n,
                                                           cuda::std::equal_to<>(), s)
                     : cub::DeviceScan::InclusiveScanByKey(temp, b, keys, in, out, Op(), n, cuda::std::equal_to<>(), s);
}

// ---- variants, plans, runs -----------------------------------------------------------------

enum { VHS, VWARP, VBLOCK, VGRID, VCO, VSEG, VBEST, VCUB, VARIANTS };

// Every launch goes through one Launches value (counted, made unless the plan only counts), and
// scratch is handed out in 256-byte-aligned slices in the same order by plan and run.
struct Launches : tc::LaunchCounter {
    unsigned char *scratch;
    size_t used = 0;
    template <typename T>
    T *take(int64_t items) {
        T *p = reinterpret_cast<T *>(scratch ? scratch + used : nullptr);
        used += tc::align256(sizeof(T) * size_t(items));
        return p;
    }
};
#define TC_SCAN_LAUNCH(L, blocks, ...) TC_COUNTED_LAUNCH((L).next(blocks), __VA_ARGS__)

// The grid scan of n elements (in may equal out): tiles, the totals recursively (exclusive), the
// offsets. Depth: the levels of totals.
template <typename T, typename Op>
tc_status grid_scan(Launches &L, const T *in, T *out, int64_t n, bool excl, int threads, cudaStream_t s, int &levels) {
    const int64_t blocks = tc::ceil_div(n, threads);
    const size_t smem = sizeof(T) * size_t(threads);
    ++levels;
    if (blocks == 1) {
        if (excl) TC_SCAN_LAUNCH(L, 1, (grid_tiles<T, Op, true><<<1, threads, smem, s>>>(in, out, nullptr, n)));
        else TC_SCAN_LAUNCH(L, 1, (grid_tiles<T, Op, false><<<1, threads, smem, s>>>(in, out, nullptr, n)));
        return TC_OK;
    }
    T *sums = L.take<T>(blocks);
    if (excl) TC_SCAN_LAUNCH(L, unsigned(blocks), (grid_tiles<T, Op, true><<<unsigned(blocks), threads, smem, s>>>(in, out, sums, n)));
    else TC_SCAN_LAUNCH(L, unsigned(blocks), (grid_tiles<T, Op, false><<<unsigned(blocks), threads, smem, s>>>(in, out, sums, n)));
    TC_TRY_STATUS((grid_scan<T, Op>(L, sums, sums, blocks, true, threads, s, levels)));
    TC_SCAN_LAUNCH(L, unsigned(blocks), (grid_add<T, Op><<<unsigned(blocks), threads, 0, s>>>(out, sums, n)));
    return TC_OK;
}

// The cost-optimal scan's p threads: one resident wave, and no more than n.
int64_t co_threads(const tc_prefiks_plan &p) { return int64_t(p.launch.blocks) * p.launch.threads; }

template <typename T, typename Op>
tc_status run_typed(const tc_prefiks_plan &p, Launches &L, const T *in, const uint8_t *flags, T *out, cudaStream_t s,
                    int &levels) {
    const int v = p.launch.variant, t = p.launch.threads;
    const int64_t n = p.launch.n;
    const bool excl = p.exclusive != 0;
    const size_t smem = sizeof(T) * size_t(t);
    switch (v) {
    case VHS:
        if (excl) TC_SCAN_LAUNCH(L, 1, (scan_hs<T, Op, true><<<1, t, smem, s>>>(in, out, int(n))));
        else TC_SCAN_LAUNCH(L, 1, (scan_hs<T, Op, false><<<1, t, smem, s>>>(in, out, int(n))));
        return TC_OK;
    case VWARP:
        if (excl) TC_SCAN_LAUNCH(L, 1, (scan_warp<T, Op, true><<<1, 32, 0, s>>>(in, out, int(n))));
        else TC_SCAN_LAUNCH(L, 1, (scan_warp<T, Op, false><<<1, 32, 0, s>>>(in, out, int(n))));
        return TC_OK;
    case VBLOCK:
        if (excl) TC_SCAN_LAUNCH(L, 1, (scan_block<T, Op, true><<<1, t, smem, s>>>(in, out, int(n))));
        else TC_SCAN_LAUNCH(L, 1, (scan_block<T, Op, false><<<1, t, smem, s>>>(in, out, int(n))));
        return TC_OK;
    case VGRID:
        return grid_scan<T, Op>(L, in, out, n, excl, t, s, levels);
    case VCO: {
        const int64_t threads = co_threads(p), run = tc::ceil_div(n, threads);
        const unsigned blocks = unsigned(p.launch.blocks);
        T *totals = L.take<T>(threads);
        if (excl) TC_SCAN_LAUNCH(L, blocks, (co_runs<T, Op, true><<<blocks, t, 0, s>>>(in, out, totals, n, run)));
        else TC_SCAN_LAUNCH(L, blocks, (co_runs<T, Op, false><<<blocks, t, 0, s>>>(in, out, totals, n, run)));
        TC_TRY_STATUS((grid_scan<T, Op>(L, totals, totals, threads, true, t, s, levels)));
        TC_SCAN_LAUNCH(L, blocks, (co_add<T, Op><<<blocks, t, 0, s>>>(out, totals, n, run)));
        return TC_OK;
    }
    case VSEG: {
        Seg<T> *pairs = L.take<Seg<T>>(n);
        const unsigned blocks = unsigned(tc::ceil_div(n, t) < 4096 ? tc::ceil_div(n, t) : 4096);
        TC_SCAN_LAUNCH(L, blocks, (seg_pack<T><<<blocks, t, 0, s>>>(in, flags, pairs, n)));
        TC_TRY_STATUS((grid_scan<Seg<T>, Segmented<Op>>(L, pairs, pairs, n, excl, t, s, levels)));
        if (excl) TC_SCAN_LAUNCH(L, blocks, (seg_unpack<T, Op, true><<<blocks, t, 0, s>>>(pairs, flags, out, n)));
        else TC_SCAN_LAUNCH(L, blocks, (seg_unpack<T, Op, false><<<blocks, t, 0, s>>>(pairs, flags, out, n)));
        return TC_OK;
    }
    case VBEST: {
        const int64_t tiles = tc::ceil_div(n, kBestTile);
        BestState *state = L.take<BestState>(1);
        uint64_t *statuses = L.take<uint64_t>(tiles);
        if (excl) TC_SCAN_LAUNCH(L, unsigned(tiles), (scan_best<T, Op, true><<<unsigned(tiles), kBestThreads, 0, s>>>(in, out, n, state, statuses, tiles)));
        else TC_SCAN_LAUNCH(L, unsigned(tiles), (scan_best<T, Op, false><<<unsigned(tiles), kBestThreads, 0, s>>>(in, out, n, state, statuses, tiles)));
        return TC_OK;
    }
    default: {  // cub
        int *keys = p.segmented ? L.take<int>(n) : nullptr;
        size_t bytes = 0;
        TC_TRY((cub_scan<T, Op>(nullptr, bytes, in, flags, keys, out, n, excl, p.segmented != 0, s)));
        void *temp = L.take<unsigned char>(int64_t(bytes));
        if (L.count_only) return TC_OK;
        TC_TRY((cub_scan<T, Op>(temp, bytes, in, flags, keys, out, n, excl, p.segmented != 0, s)));
        return TC_OK;
    }
    }
}

// Calls f(tc::Tag<T>, Op) for the plan's type and operator: int32 sums on uint32 (wrapping).
template <typename F>
tc_status dispatch(tc_prefiks_type type, tc_prefiks_op op, F &&f) {
    if (type == TC_SCAN_FLOAT32) {
        if (op == TC_SCAN_MAX) return f(tc::Tag<float>{}, tc::Max{});
        if (op == TC_SCAN_MIN) return f(tc::Tag<float>{}, tc::Min{});
        return f(tc::Tag<float>{}, tc::Sum{});
    }
    if (op == TC_SCAN_MAX) return f(tc::Tag<int>{}, tc::Max{});
    if (op == TC_SCAN_MIN) return f(tc::Tag<int>{}, tc::Min{});
    return f(tc::Tag<uint32_t>{}, tc::Sum{});
}

tc_status run_all(const tc_prefiks_plan &p, Launches &L, const void *in, const uint8_t *flags, void *out,
                  cudaStream_t s, int &levels) {
    return dispatch(p.type, p.op, [&](auto tag, auto op) -> tc_status {
        using T = typename decltype(tag)::type;
        return run_typed<T, decltype(op)>(p, L, static_cast<const T *>(in), flags, static_cast<T *>(out), s, levels);
    });
}

// The kernel lists: every instantiation (u32 sums, i32 max/min, f32 all three).
#define TC_SCAN_TYPES(F, EXTRA)                                                                            \
    F(uint32_t, tc::Sum, "i32,sum" EXTRA), F(int, tc::Max, "i32,max" EXTRA), F(int, tc::Min, "i32,min" EXTRA), \
        F(float, tc::Sum, "f32,sum" EXTRA), F(float, tc::Max, "f32,max" EXTRA), F(float, tc::Min, "f32,min" EXTRA)
#define TC_K_EXCL(K, T, Op, N) tc::kernel(#K "<" N ",incl>", K<T, Op, false>), tc::kernel(#K "<" N ",excl>", K<T, Op, true>)
#define TC_K_HS(T, Op, N) TC_K_EXCL(scan_hs, T, Op, N)
#define TC_K_WARP(T, Op, N) TC_K_EXCL(scan_warp, T, Op, N)
#define TC_K_BLOCK(T, Op, N) TC_K_EXCL(scan_block, T, Op, N)
#define TC_K_GRID(T, Op, N) TC_K_EXCL(grid_tiles, T, Op, N), tc::kernel("grid_add<" N ">", grid_add<T, Op>)
#define TC_K_CO(T, Op, N) TC_K_EXCL(co_runs, T, Op, N), tc::kernel("co_add<" N ">", co_add<T, Op>)
#define TC_K_SEG(T, Op, N)                                                                                  \
    TC_K_EXCL(grid_tiles, Seg<T>, Segmented<Op>, N ",seg"), tc::kernel("grid_add<" N ",seg>", grid_add<Seg<T>, Segmented<Op>>), \
        TC_K_EXCL(seg_unpack, T, Op, N)
#define TC_K_PACK(T, Op, N) tc::kernel("seg_pack<" N ">", seg_pack<T>)

const tc_kernel khs[] = {TC_SCAN_TYPES(TC_K_HS, "")};
const tc_kernel kwarp[] = {TC_SCAN_TYPES(TC_K_WARP, "")};
const tc_kernel kblock[] = {TC_SCAN_TYPES(TC_K_BLOCK, "")};
const tc_kernel kgrid[] = {TC_SCAN_TYPES(TC_K_GRID, "")};
const tc_kernel kco[] = {TC_SCAN_TYPES(TC_K_CO, ""), TC_SCAN_TYPES(TC_K_GRID, "")};
const tc_kernel kseg[] = {TC_SCAN_TYPES(TC_K_SEG, ""), tc::kernel("seg_pack<u32>", seg_pack<uint32_t>),
                          tc::kernel("seg_pack<i32>", seg_pack<int>), tc::kernel("seg_pack<f32>", seg_pack<float>)};

#define TC_K_BEST(T, Op, N) TC_K_EXCL(scan_best, T, Op, N)
const tc_kernel kbest[] = {TC_SCAN_TYPES(TC_K_BEST, "")};

const char *const kAny = "any n; plain (seg: segmented)";
const tc_variant variants[VARIANTS] = {
    {"hs", "one block, Hillis-Steele in shared memory: log2(threads) steps of n operations",
     "n <= threads (one block); larger n: grid, co", "read n, write n", TC_OWN_GRID, TC_KERNELS(khs)},
    {"warp", "one warp, the lecture's scanWarp: five shuffle steps (lanes >= 1, 2, 4, 8, 16)",
     "n <= 32; larger n: block, grid, co", "read n, write n", TC_OWN_GRID, TC_KERNELS(kwarp)},
    {"block", "one block, the lecture's scanBlock: scan the warps, scan their totals, add back",
     "n <= threads; larger n: grid, co", "read n, write n", TC_OWN_GRID, TC_KERNELS(kblock)},
    {"grid", "three kernels: scan the tiles, scan the tiles' totals (recursively), add the offsets", kAny,
     "read n, write n (+ the totals, + a second read and write of out)", TC_OWN_GRID, TC_KERNELS(kgrid)},
    {"co", "cost-optimal: each thread scans its own contiguous run, the run totals are scanned, each run adds its offset",
     kAny, "read n, write n (+ a second read and write of out)", 0, TC_KERNELS(kco)},
    {"seg", "segmented: (value, head flag) pairs with the lecture's operator, over the grid scan",
     "any n; segmented only (-seglen or -flags)", "read n + n flags, write n", TC_OWN_GRID, TC_KERNELS(kseg)},
    {"best", "one pass: decoupled look-back, 8 elements a thread, the look-back folded left to right (deterministic)",
     "any n; plain (segmented: seg or cub until best's segmented pass comes)", "read n, write n", TC_OWN_GRID,
     TC_KERNELS(kbest)},
    {"cub", "baseline: cub::DeviceScan; segments: keys from a scan of the flags, then ScanByKey (timed whole)",
     "any n, plain or segmented", "read n (+ n flags), write n", TC_OWN_GRID | TC_LIBRARY, nullptr, 0},
};

const tc_program program = {"prefiks", "elements", variants, VARIANTS};

}  // namespace

extern "C" const tc_program *tc_prefiks_program(void) { return &program; }

extern "C" tc_status tc_prefiks_make_plan(const tc_prefiks_request *r, const tc_device *dev, tc_prefiks_plan *out) {
    TC_TRY_STATUS(tc::begin_plan(program, r, dev, 256, out));
    if (r->op < TC_SCAN_SUM || r->op > TC_SCAN_MIN || r->type < TC_SCAN_INT32 || r->type > TC_SCAN_FLOAT32)
        return TC_BAD_ARGUMENT;
    tc_launch &p = out->launch;
    const int v = p.variant, t = p.threads;
    const int64_t n = p.n;
    out->op = r->op;
    out->type = r->type;
    out->exclusive = r->exclusive ? 1 : 0;
    out->segmented = r->segmented ? 1 : 0;
    p.out_count = n;
    p.bytes_moved = 8.0 * double(n) + (r->segmented ? double(n) : 0.0);
    if (out->segmented != (v == VSEG) && v != VCUB) return TC_OUTSIDE_DOMAIN;  // seg and cub take segments
    if (v == VBEST && r->base.threads != 0 && r->base.threads != kBestThreads) return TC_OUTSIDE_DOMAIN;
    if (v == VBEST) p.threads = kBestThreads;
    switch (v) {
    case VHS: case VBLOCK:
        if (n > t) return TC_OUTSIDE_DOMAIN;
        p.blocks = 1;
        break;
    case VWARP:
        if (n > 32) return TC_OUTSIDE_DOMAIN;
        p.threads = 32;
        p.blocks = 1;
        break;
    case VCO:
        if (p.blocks == 0) p.blocks = tc::wave_blocks(*dev, t, n);
        break;
    default: break;
    }
    // a dry run counts the launches and the scratch, and the levels of the recursive scans
    Launches L{{true}, nullptr};
    int levels = 0;
    TC_TRY_STATUS(run_all(*out, L, nullptr, nullptr, nullptr, nullptr, levels));
    p.launches = v == VCUB ? 0 : L.count;
    if (v != VCO && v != VCUB) p.blocks = int(L.grid);
    if (v == VCUB) p.threads = p.blocks = 0;
    p.scratch_bytes = L.used;
    out->levels = levels;
    // depth: a warp's 5 steps, the block's warp totals' 5 and the offset's 1 (a tile: 11), for
    // each level of totals and its offset; Hillis-Steele log2(threads); co's run; CUB: assumed
    // n / 1024 tiles chained by its look-back plus 64
    const int64_t tile = 11;
    switch (v) {
    case VHS: out->depth = tc::ceil_log2(t); break;
    case VWARP: out->depth = 5; break;
    case VBLOCK: out->depth = tile; break;
    case VGRID: case VSEG: out->depth = levels * (tile + 1); break;
    case VCO: out->depth = tc::ceil_div(n, co_threads(*out)) + levels * (tile + 1) + 1; break;
    // best: a thread's items, the block scan (5 + 5 + 1), the tile prefix and the fold of the
    // aggregates before it (the tiles, at worst)
    case VBEST: out->depth = kBestItems + 11 + 2 + tc::ceil_div(n, kBestTile); break;
    default: out->depth = tc::ceil_div(n, 1024) + 64; break;
    }
    return TC_OK;
}

extern "C" tc_status tc_prefiks_run(const tc_prefiks_plan *p, const void *in, const uint8_t *flags, void *out,
                                    void *scratch, cudaStream_t s) {
    if (!p || !in || !out || (p->segmented && !flags) || (p->launch.scratch_bytes > 0 && !scratch)) return TC_BAD_ARGUMENT;
    if (p->launch.variant < 0 || p->launch.variant >= VARIANTS || p->launch.n < 1) return TC_BAD_ARGUMENT;
    Launches L{{false}, static_cast<unsigned char *>(scratch)};
    int levels = 0;
    return run_all(*p, L, in, flags, out, s, levels);
}

extern "C" double tc_prefiks_tolerance(const tc_prefiks_plan *p, double prefix_abs) {
    if (!p) return NAN;
    if (p->type == TC_SCAN_INT32 || p->op != TC_SCAN_SUM) return 0;
    const double h = double(p->depth), u = 0x1p-24;
    return h * u >= 1 ? INFINITY : h * u / (1 - h * u) * prefix_abs;
}
