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

// Shuffles of built-in values (primitives.cuh's) and of segmented pairs, member by member (which
// also lets tc::warp_scan scan pairs).
using tc::shfl;
using tc::shfl_up;
template <typename T>
__device__ __forceinline__ Seg<T> shfl_up(Seg<T> v, int d) {
    return {__shfl_up_sync(kFull, v.v, d), __shfl_up_sync(kFull, v.f, d)};
}
template <typename T>
__device__ __forceinline__ Seg<T> shfl(Seg<T> v, int lane) {
    return {__shfl_sync(kFull, v.v, lane), __shfl_sync(kFull, v.f, lane)};
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
// Beyond the lecture. A tile is 256 threads x 4 x ROWS elements (7168, 8192 or 16384: ROWS below),
// block b's tile b: blocks are dispatched in index order, so every tile a look-back waits for is
// running or done (no deadlock; CUB's scans rely on the same order), and no block waits for a
// ticket's atomic before its first load. Each warp owns ROWS rows of 128 contiguous elements: a lane holds 4 contiguous
// elements of each row, loaded as one 16-byte vector (the warp's load is one coalesced 512-byte
// line), with their head flags as one 4-byte word. The lane folds its 4, the warp scans the lanes' folds (five
// shuffles) row by row with a running carry, the block combines its 8 warp totals in order, and
// the tile publishes its aggregate. Warp 0 then finds the tile's prefix by groups of 32 tiles
// (group_prefix): the group's aggregates before it by a warp scan, and the groups before by
// looking back over 32 group words at once until one holds an inclusive prefix, folding that
// prefix and the group totals after it from left to right. Each tile's prefix is then one fixed
// expression whichever word the look-back stopped at, so float results are the same bits every
// run (CUB's look-back folds its window as a tree: not guaranteed), and no look-back folds more
// than a group's worth of words one add after another.
// Segmented scans run the same pass on (value, head flag) pairs with the lecture's operator; a
// tile with a head publishes its aggregate as inclusive (what follows it does not depend on the
// tiles before it), and so does a group with a head, so short segments cut every look-back short.
// A status word holds the tile's value, its status and the run's epoch in one 64-bit word, so a
// reader needs nothing else ordered before it: the words are stored and loaded relaxed, as CUB's
// single-word tile states are (a release store was a MEMBAR.ALL.GPU on warp 0's path twice a
// tile, while the other warps waited at the barrier, and an acquire load an L1 invalidation).
// Status words carry a run epoch (30 bits), so no run needs the statuses cleared. The epoch and a
// count of the tiles done publishing share one 64-bit word: a block reads the epoch as its loads
// go out, and counts itself done after publishing (one atomic, whose answer it looks at only
// after its stores are issued); the tile that counts last knows every tile has read the epoch,
// and readies the next run (epoch + 1, count 0). A look-back that spins too long (a bug, not a
// state the design reaches) gives up rather than hang, and the result fails its check.
// Rows of 128 a warp: 16 (tiles of 16384) for large plain scans, where fewer tiles mean fewer
// look-backs a byte; 8 (8192) for n too small to give every SM a few tiles of 16384; 7 (7168)
// for segmented scans (pairs take more registers: see best_blocks_per_sm).
constexpr int kBestThreads = 256;
// the segmented rows, one token: kbest's kernel names and best's description spell it (TC_XSTR)
#define TC_BEST_SEG_ROWS 7
#define TC_STR(x) #x
#define TC_XSTR(x) TC_STR(x)
constexpr int kBestSegRows = TC_BEST_SEG_ROWS;
__host__ __device__ constexpr int64_t best_tile(int rows) { return int64_t(kBestThreads) * 4 * rows; }
// Large plain scans take tiles of 16384 from four such tiles an SM on (rounded down to a power of two).
inline int best_rows(bool segmented, int64_t n, const tc_device &dev) {
    return segmented ? kBestSegRows : n < tc::floor_pow2(int64_t(dev.multiprocessors) * 4 * best_tile(16)) ? 8 : 16;
}
// The blocks an SM each tile kind is built for (its launch bounds), which also sets how far
// ahead its prefetch reads (half of it times the SMs). Segmented tiles (7168: pairs) are held to
// 64 registers, four blocks an SM: more blocks to load while the others scan, look back and
// store pay more than the look-backs of more tiles cost (BENCHMARKS: the rows x blocks sweep).
// Plain tiles of 16384: two (at most 128 registers). Plain tiles of 8192 (small n, no
// prefetch): no bound (an explicit one raised their registers).
__host__ __device__ constexpr int best_blocks_per_sm(bool segmented, int rows) { return segmented ? 4 : rows == 16 ? 2 : 0; }
constexpr int kBestStack = 256;  // aggregates a look-back may hold before it waits for an inclusive prefix
enum : uint32_t { kInvalid = 0, kAggregate = 1, kInclusive = 2 };

struct BestState {
    unsigned long long epoch_done;  // the run's epoch (high 32 bits) and the tiles done publishing (low 32)
};

// A tile's status: its value (low 32 bits), kInvalid/kAggregate/kInclusive (2 bits) and the run's
// epoch (30 bits: a word left by a run 2^30 runs before cannot pass for this run's)
constexpr uint32_t kEpochMask = (1u << 30) - 1u;
__device__ __forceinline__ uint64_t status_word(uint32_t value, uint32_t status, uint32_t epoch) {
    return uint64_t(value) | uint64_t(status) << 32 | uint64_t(epoch & kEpochMask) << 34;
}
__device__ __forceinline__ uint32_t status_of(uint64_t w) { return uint32_t(w >> 32) & 3u; }
// published in this run: a status, and this run's epoch (look_back's and group_prefix's waits)
__device__ __forceinline__ bool published(uint64_t w, uint32_t epoch) {
    return status_of(w) != kInvalid && uint32_t(w >> 34) == (epoch & kEpochMask);
}
// A wait on status words polls every 64 ns and gives up (the check then fails) after this many
// polls: never expected, but a lost word must not hang the device.
constexpr uint32_t kMaxPolls = 1u << 24;

// The element a pass scans: the value, or the (value, head flag) pair; and its operator.
template <typename T, bool SEG>
using BestElement = std::conditional_t<SEG, Seg<T>, T>;
template <typename Op, bool SEG>
using BestOp = std::conditional_t<SEG, Segmented<Op>, Op>;
template <typename T>
__device__ __forceinline__ T value_of(T v) { return v; }
template <typename T>
__device__ __forceinline__ T value_of(Seg<T> v) { return v.v; }
template <typename T>
__device__ __forceinline__ void make(T &e, T v, uint32_t) { e = v; }
template <typename T>
__device__ __forceinline__ void make(Seg<T> &e, T v, uint32_t f) { e = {v, f}; }
// A lane's 4 head-flag bytes (any nonzero byte is a head) as 4 bits, byte k to bit k: each byte
// ORed down to its low bit, then one multiply gathers bits 0, 8, 16, 24 into bits 24..27 (the
// other products land on distinct bits below 24 or past 31, so nothing carries into them).
__device__ __forceinline__ uint32_t head_bits(uint32_t f) {
    f |= f >> 4;
    f |= f >> 2;
    f |= f >> 1;
    return ((f & 0x01010101u) * 0x01020408u) >> 24;
}
// tc::warp_scan<Seg<T>, Segmented<Op>, exclusive> with one shuffle a step instead of two: a lane
// combines with the lane d back exactly when the pair operator would, when no head lies in
// (lane - d, lane], that is when the nearest head at or before it (from one ballot) is at or
// before lane - d; the flags of the results are the ballot's bits. The same operations on the
// same values in the same order, so the same bits. Precondition: all 32 lanes, converged.
template <typename T, typename Op>
__device__ __forceinline__ Seg<T> seg_warp_scan_exclusive(Seg<T> v, Seg<T> *warp_total) {
    const Op op{};
    const int lane = threadIdx.x & 31;
    const unsigned heads = __ballot_sync(kFull, v.f != 0u), upto = heads & (kFull >> (31 - lane));
    const int head = upto ? 31 - __clz(int(upto)) : -1;  // the nearest head at or before this lane (-1: none)
    T s = v.v;
#pragma unroll
    for (int d = 1; d < 32; d <<= 1) {
        const T u = __shfl_up_sync(kFull, s, d);
        if (lane >= d && lane - d >= head) s = op(u, s);
    }
    *warp_total = {__shfl_sync(kFull, s, 31), heads != 0u ? 1u : 0u};
    const T before = __shfl_up_sync(kFull, s, 1);
    return lane == 0 ? Segmented<Op>::template identity<Seg<T>>() : Seg<T>{before, heads & ((1u << lane) - 1u) ? 1u : 0u};
}
template <typename T, typename Op>
__device__ __forceinline__ T row_scan_exclusive(T v, T *warp_total) {
    return tc::warp_scan<T, Op, true>(v, Op(), warp_total);
}
template <typename T, typename Op>
__device__ __forceinline__ Seg<T> row_scan_exclusive(Seg<T> v, Seg<T> *warp_total) {
    return seg_warp_scan_exclusive<T, Op>(v, warp_total);
}

// A lane's ROWS row prefixes: the values, and for pairs their flags as the bits of one word
// (ROWS <= 32): a register a row instead of two.
template <typename E, int ROWS>
struct Prefixes {
    E e[ROWS];
    __device__ __forceinline__ void set(int r, E v) { e[r] = v; }
    __device__ __forceinline__ E get(int r) const { return e[r]; }
};
template <typename T, int ROWS>
struct Prefixes<Seg<T>, ROWS> {
    static_assert(ROWS <= 32, "the flags are one word's bits");
    T v[ROWS];
    uint32_t f = 0;
    __device__ __forceinline__ void set(int r, Seg<T> s) { v[r] = s.v, f |= s.f << r; }  // (flags are 0 or 1)
    __device__ __forceinline__ Seg<T> get(int r) const { return {v[r], (f >> r) & 1u}; }
};

// Warp 0: the left fold of every aggregate before `tile` in `statuses` (group_prefix: the group words).
template <typename T, typename Op>
__device__ T look_back(const uint64_t *statuses, int64_t tile, uint32_t epoch, uint32_t *stack) {
    const int lane = threadIdx.x & 31;
    const Op op{};
    int depth = 0;
    uint32_t spins = 0;
    for (int64_t hi = tile - 1;;) {  // the window: hi (lane 0) down to hi - 31 (lane 31)
        const int64_t j = hi - lane;
        uint64_t w = status_word(bits_of(tc::identity<T, Op>()), kInclusive, epoch);  // before tile 0: never chosen
        if (j >= 0) w = cuda::atomic_ref<const uint64_t, cuda::thread_scope_device>(statuses[j]).load(cuda::memory_order_relaxed);
        const uint32_t status = status_of(w);
        const bool valid = published(w, epoch);
        const unsigned inclusive = __ballot_sync(kFull, valid && status == kInclusive), missing = __ballot_sync(kFull, !valid);
        const int first = inclusive ? __ffs(int(inclusive)) - 1 : 32;  // the nearest inclusive prefix
        const unsigned before_it = first == 32 ? kFull : (1u << first) - 1u;
        if (!(missing & before_it)) {  // every word up to it is published
            if (first < 32) {
                // the window joins the stack, and the fold reads it from the inclusive prefix on, older to
                // newer (this window's words, then the newer windows'): the same operations in the same
                // order as a shuffle a word, but the loads are independent and only the operations
                // chain (a shuffle a word put one shuffle's latency between two of them)
                stack[depth + lane] = uint32_t(w);
                __syncwarp();
                T acc = from_bits<T>(stack[depth + first]);
#pragma unroll 8
                for (int k = depth + first - 1; k >= 0; --k) acc = op(acc, from_bits<T>(stack[k]));
                return acc;
            }
            if (depth + 64 <= kBestStack) {  // 32 aggregates: keep them (and room for one more window), look further back
                stack[depth + lane] = uint32_t(w);
                __syncwarp();
                depth += 32;
                hi -= 32;
                spins = 0;
                continue;
            }
        }
        if (++spins > kMaxPolls) return tc::identity<T, Op>();  // gave up (never expected): the check fails
        __nanosleep(64);  // not published yet (or the stack is full: wait for an inclusive prefix)
    }
}

// Warp 0 of a tile > 0: the combination of every tile before it, by groups of 32 tiles (tile
// 32 g + i is lane i of group g). Within the group, the exclusive Kogge-Stone pair scan of the
// group's aggregates at lane i: its expression takes only lanes below i, so every run gives the
// same bits whatever is published after them, in 5 shuffles where a left fold takes up to 31
// adds. Before the group, look_back over the group words: the left fold of the group totals
// (each the scan's lane 31). The group's last tile publishes its group's total (kInclusive where a
// head lies in it), then, once it knows the groups before, the group's inclusive prefix. own:
// this tile's aggregate and pair flag (tile 0 and a tile with a head: 1).
template <typename T, typename Op>
__device__ T group_prefix(const uint64_t *statuses, uint64_t *groups, int64_t tile, T own, bool own_flag, uint32_t epoch,
                          uint32_t *stack) {
    const int lane = threadIdx.x & 31, i = int(tile % 32);
    const int64_t g = tile / 32;
    const Op op{};
    Seg<T> x = {tc::identity<T, Op>(), 0u};  // lanes past i: never taken into lane i's scan
    bool gave_up = false;
    if (lane < i) {  // the group's tiles before this one: their aggregates and flags
        const cuda::atomic_ref<const uint64_t, cuda::thread_scope_device> word(statuses[32 * g + lane]);
        uint64_t w = word.load(cuda::memory_order_relaxed);
        for (uint32_t spins = 0; !published(w, epoch);) {
            if (++spins > kMaxPolls) {
                gave_up = true;
                break;
            }
            __nanosleep(64);
            w = word.load(cuda::memory_order_relaxed);
        }
        x = {from_bits<T>(uint32_t(w)), status_of(w) == kInclusive ? 1u : 0u};
    } else if (lane == i) {
        x = {own, own_flag ? 1u : 0u};
    }
    __syncwarp();
    Seg<T> total;
    const Seg<T> before = seg_warp_scan_exclusive<T, Op>(x, &total);
    const T in_group = __shfl_sync(kFull, before.v, i);
    const bool headed = __shfl_sync(kFull, before.f, i) != 0u;
    if (__any_sync(kFull, gave_up)) return tc::identity<T, Op>();  // (never expected): the check fails
    const cuda::atomic_ref<uint64_t, cuda::thread_scope_device> group(groups[g]);
    if (i == 31 && lane == 0)
        group.store(status_word(bits_of(total.v), total.f ? kInclusive : kAggregate, epoch), cuda::memory_order_relaxed);
    if (headed) return in_group;  // a head lies before this tile in its group
    const T before_group = look_back<T, Op>(groups, g, epoch, stack);
    if (i == 31 && lane == 0 && !total.f)
        group.store(status_word(bits_of(op(before_group, total.v)), kInclusive, epoch), cuda::memory_order_relaxed);
    return op(before_group, in_group);
}

// A bulk prefetch of bytes (a multiple of 16, 16-byte aligned) into L2: sm_90's
// cp.async.bulk.prefetch. Before sm_90 there is none; a prefetch is only a hint, so nothing is
// issued and the tile is read when its block comes.
__device__ __forceinline__ void prefetch_l2(const void *p, unsigned bytes) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    asm volatile("cp.async.bulk.prefetch.L2.global [%0], %1;" ::"l"(p), "r"(bytes) : "memory");
#else
    (void)p, (void)bytes;
#endif
}

template <typename T, typename Op, bool EXCL, bool SEG, int ROWS>
__global__ void __launch_bounds__(kBestThreads, best_blocks_per_sm(SEG, ROWS)) scan_best(const T *in, const uint8_t *flags, T *out, int64_t n,
                                                         BestState *state, uint64_t *statuses, uint64_t *groups, int64_t tiles, int64_t ahead) {
    static_assert(sizeof(T) == 4, "status words hold 32-bit values");
    using E = BestElement<T, SEG>;
    using O = BestOp<Op, SEG>;
    const O op{};
    constexpr int kWarps = kBestThreads / 32, kBestRows = ROWS, kBestItems = 4 * ROWS;
    constexpr int64_t kBestTile = best_tile(ROWS);
    constexpr int kHeadWords = SEG ? (4 * ROWS + 31) / 32 : 1;
    __shared__ E warp_total[kWarps];
    __shared__ T prefix_shared;
    __shared__ uint32_t stack[kBestStack];
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    const int64_t tile = blockIdx.x, warp_base = tile * kBestTile + int64_t(warp) * (32 * kBestItems);
    uint32_t epoch = 0;  // (warp 0 publishes and looks back; its load goes out with the data's)
    if (warp == 0)
        epoch = uint32_t(cuda::atomic_ref<unsigned long long, cuda::thread_scope_device>(state->epoch_done).load(cuda::memory_order_relaxed) >> 32);
    // load: row r of the warp is warp_base + 128 r; the lane's 4 elements start at + 4 lane
    const bool whole = (tile + 1) * kBestTile <= n && (reinterpret_cast<uintptr_t>(in) & 15) == 0 &&
                       (reinterpret_cast<uintptr_t>(out) & 15) == 0 && (!SEG || (reinterpret_cast<uintptr_t>(flags) & 3) == 0);
    T x[kBestItems];          // the values
    // segmented: bit 4 (r % 8) + k of heads[r / 8] is x[4 r + k]'s head flag (a register a pair,
    // or a row, held registers that decide how many blocks an SM holds)
    uint32_t heads[kHeadWords] = {};
#pragma unroll
    for (int r = 0; r < kBestRows; ++r) {
        const int64_t i = warp_base + 128 * r + 4 * lane;
        T v[4];
        uint32_t f = 0;
        if (whole) {
            const uint4 q = __ldcs(reinterpret_cast<const uint4 *>(in + i));
            v[0] = from_bits<T>(q.x), v[1] = from_bits<T>(q.y), v[2] = from_bits<T>(q.z), v[3] = from_bits<T>(q.w);
            if (SEG) f = __ldcs(reinterpret_cast<const unsigned *>(flags + i));
        } else {
#pragma unroll
            for (int k = 0; k < 4; ++k) {
                v[k] = i + k < n ? in[i + k] : tc::identity<T, Op>();
                if (SEG && i + k < n) f |= uint32_t(flags[i + k]) << (8 * k);
            }
        }
        if (SEG && i == 0) f |= 1u;  // position 0 starts a segment
#pragma unroll
        for (int k = 0; k < 4; ++k) x[4 * r + k] = v[k];
        if constexpr (SEG) heads[r / 8] |= head_bits(f) << (4 * (r % 8));
    }
    // The tile half a resident wave ahead goes into L2 now, by bulk prefetches (no registers, no
    // shared memory): its reads then overlap this tile's scan, look-back and stores, which keep
    // DRAM idle in the copy's terms. Half a wave is half a block's lifetime of lead over the reads
    // it replaces, with half a wave's bytes waiting in L2 for the stores to push out (BENCHMARKS:
    // the distance swept from a quarter to a whole wave). The plan sets the distance (ahead) from
    // the device's SMs. Tiles of 16384 and segmented tiles (best_blocks_per_sm): the large sizes.
    if constexpr (ROWS == 16 || SEG) {
        const int64_t later = tile + ahead;
        if (warp == 0 && lane < 4 && whole && (later + 1) * kBestTile <= n) {
            constexpr unsigned kQuarter = unsigned(kBestTile * sizeof(T) / 4);
            prefetch_l2(reinterpret_cast<const unsigned char *>(in + later * kBestTile) + lane * kQuarter, kQuarter);
            if constexpr (SEG) {
                if (lane == 0 && (reinterpret_cast<uintptr_t>(flags) & 15) == 0)  // (bulk: 16-byte aligned)
                    prefetch_l2(flags + later * kBestTile, unsigned(kBestTile));
            }
        }
    }
    const auto element = [&x, &heads](int r, int k) {
        E e;
        make(e, x[4 * r + k], (heads[r / 8] >> (4 * (r % 8) + k)) & 1u);
        return e;
    };
    // scan: the lane's 4 of each row, the warp's lanes row by row (a running carry), the warps
    Prefixes<E, kBestRows> lane_prefix;
    E carry = O::template identity<E>();
#pragma unroll
    for (int r = 0; r < kBestRows; ++r) {
        E fold = element(r, 0);
#pragma unroll
        for (int k = 1; k < 4; ++k) fold = op(fold, element(r, k));
        E row_total;
        const E before = row_scan_exclusive<T, Op>(fold, &row_total);
        lane_prefix.set(r, op(carry, before));
        carry = op(carry, row_total);
    }
    if (lane == 0) warp_total[warp] = carry;
    __syncthreads();
    E warp_prefix = O::template identity<E>(), aggregate = warp_prefix;  // the warps before this one; all of them
#pragma unroll
    for (int w = 0; w < kWarps; ++w) {
        if (w == warp) warp_prefix = aggregate;
        aggregate = op(aggregate, warp_total[w]);
    }
    unsigned long long done = 0;  // (thread 0: the count of tiles done publishing before this one)
    if (warp == 0) {
        T prefix = tc::identity<T, Op>();
        cuda::atomic_ref<uint64_t, cuda::thread_scope_device> mine(statuses[tile]);
        bool headed = false;  // a segmented tile with a head: its inclusive prefix is its aggregate's value
        if constexpr (SEG) headed = aggregate.f != 0;
        if (lane == 0)
            mine.store(status_word(bits_of(value_of(aggregate)), tile == 0 || headed ? kInclusive : kAggregate, epoch),
                       cuda::memory_order_relaxed);
        if (tile > 0) prefix = group_prefix<T, Op>(statuses, groups, tile, value_of(aggregate), headed, epoch, stack);
        if (lane == 0) {
            prefix_shared = prefix;
            done = atomicAdd(&state->epoch_done, 1ull);  // this tile has published (the answer is looked at last)
        }
    }
    __syncthreads();
    E tile_prefix;
    make(tile_prefix, prefix_shared, 0u);
    const E warp_start = op(tile_prefix, warp_prefix);
#pragma unroll
    for (int r = 0; r < kBestRows; ++r) {
        const int64_t i = warp_base + 128 * r + 4 * lane;
        E acc = op(warp_start, lane_prefix.get(r));
        T v[4];
#pragma unroll
        for (int k = 0; k < 4; ++k) {
            const E e = element(r, k);
            if (EXCL) {
                bool head = false;
                if constexpr (SEG) head = e.f != 0;
                v[k] = head ? tc::identity<T, Op>() : value_of(acc);
            }
            acc = op(acc, e);
            if (!EXCL) v[k] = value_of(acc);
        }
        if (whole) {
            __stcs(reinterpret_cast<uint4 *>(out + i), make_uint4(bits_of(v[0]), bits_of(v[1]), bits_of(v[2]), bits_of(v[3])));
        } else {
#pragma unroll
            for (int k = 0; k < 4; ++k)
                if (i + k < n) out[i + k] = v[k];
        }
    }
    // the tile that counted last: every tile has read the epoch, so the next run may have the next one
    if (threadIdx.x == 0 && int64_t(uint32_t(done)) == tiles - 1) state->epoch_done = ((done >> 32) + 1) << 32;
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
        const int rows = p.rows;
        const int64_t tiles = tc::ceil_div(n, best_tile(rows)), ahead = p.ahead;
        BestState *state = L.take<BestState>(1);
        uint64_t *statuses = L.take<uint64_t>(tiles);
        uint64_t *groups = L.take<uint64_t>(tc::ceil_div(tiles, 32));
#define TC_BEST(E, S, R) TC_SCAN_LAUNCH(L, unsigned(tiles), (scan_best<T, Op, E, S, R><<<unsigned(tiles), kBestThreads, 0, s>>>(in, flags, out, n, state, statuses, groups, tiles, ahead)))
        if (p.segmented) {
            if (excl) TC_BEST(true, true, kBestSegRows);
            else TC_BEST(false, true, kBestSegRows);
        } else if (rows == 8) {
            if (excl) TC_BEST(true, false, 8);
            else TC_BEST(false, false, 8);
        } else {
            if (excl) TC_BEST(true, false, 16);
            else TC_BEST(false, false, 16);
        }
#undef TC_BEST
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

#define TC_K_BEST(T, Op, N)                                                                                           \
    tc::kernel("scan_best<" N ",incl,8>", scan_best<T, Op, false, false, 8>),                                        \
        tc::kernel("scan_best<" N ",excl,8>", scan_best<T, Op, true, false, 8>),                                     \
        tc::kernel("scan_best<" N ",incl,16>", scan_best<T, Op, false, false, 16>),                                  \
        tc::kernel("scan_best<" N ",excl,16>", scan_best<T, Op, true, false, 16>),                                   \
        tc::kernel("scan_best<" N ",seg,incl," TC_XSTR(TC_BEST_SEG_ROWS) ">", scan_best<T, Op, false, true, kBestSegRows>), \
        tc::kernel("scan_best<" N ",seg,excl," TC_XSTR(TC_BEST_SEG_ROWS) ">", scan_best<T, Op, true, true, kBestSegRows>)
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
    {"best", "one pass: decoupled look-back, 32 or 64 elements a thread (segmented: 4 x " TC_XSTR(TC_BEST_SEG_ROWS) ") in 16-byte loads, the look-back by groups of 32 tiles (each prefix one fixed expression: deterministic)",
     "any n, plain or segmented", "read n (+ n flags), write n", TC_OWN_GRID,
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
    if (out->segmented != (v == VSEG) && v != VCUB && v != VBEST) return TC_OUTSIDE_DOMAIN;  // seg, best and cub take segments
    if (v == VBEST && r->base.threads != 0 && r->base.threads != kBestThreads) return TC_OUTSIDE_DOMAIN;
    if (v == VBEST) {
        p.threads = kBestThreads;
        out->rows = best_rows(out->segmented, n, *dev);
        out->ahead = best_blocks_per_sm(out->segmented, out->rows) * int64_t(dev->multiprocessors) / 2;
    }
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
    if (v == VHS || v == VBLOCK || v == VGRID || v == VCO) p.shared_bytes = 4 * size_t(t);
    if (v == VSEG) p.shared_bytes = 8 * size_t(t);  // (value, flag) pairs
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
    // best: a lane's 4, the row's 5 shuffles and its carry (rows), the warps before it, the tile
    // prefix and the fold of the aggregates before it (the tiles, at worst)
    case VBEST: {
        const int rows = out->rows;
        out->depth = 4 + 5 + rows + kBestThreads / 32 + 3 + tc::ceil_div(n, best_tile(rows));
        break;
    }
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

// ---- several GPUs: a slice's carry out, and its carry in -------------------------------------

// What a slice passes on (TC_PREFIKS_CARRY_BYTES): its total since its last head, whether it has
// a head, and where its first head is (n: none).
template <typename T>
struct Carry {
    T total;
    int32_t headed;
    int64_t first_head;
};
static_assert(sizeof(Carry<float>) == TC_PREFIKS_CARRY_BYTES, "the carry's layout");

// The slice's first head: each block looks for the first in its chunks, the minimum wins; a block
// whose chunk starts past a head already found stops (segments are short: most stop at once).
__global__ void first_head(const uint8_t *flags, int64_t n, unsigned long long *first) {
    const int64_t chunk = int64_t(blockDim.x) * 64;
    for (int64_t base = int64_t(blockIdx.x) * chunk; base < n; base += int64_t(gridDim.x) * chunk) {
        if (base >= int64_t(*(volatile unsigned long long *)first)) return;
        for (int64_t i = base + threadIdx.x; i < base + chunk && i < n; i += blockDim.x)
            if (flags[i]) atomicMin(first, (unsigned long long)i);
    }
}

// One thread: the slice's carry. Its total since its last head: inclusive, the last output;
// exclusive, the last output combined with the last element (the element alone at a head).
template <typename T, typename Op, bool Exclusive>
__global__ void carry_out(const T *in, const uint8_t *flags, const T *out, int64_t n, Carry<T> *carry) {
    T total = out[n - 1];
    if (Exclusive) total = flags && flags[n - 1] ? in[n - 1] : Op{}(total, in[n - 1]);
    const int64_t first = carry->first_head;  // (first_head's result, or n for a plain scan)
    carry->total = total;
    carry->headed = first < n;
}

// The slice's carry-in: the slices before it folded in GPU order (one with a head restarts the
// fold at its total), combined on the left into every output before the slice's first head
// (n < 2^31 * 256: the grid's x limit).
template <typename T, typename Op>
__global__ void carry_in(const Carry<T> *carries, int rank, T *out) {
    T c = carries[0].total;
    for (int j = 1; j < rank; ++j) c = carries[j].headed ? carries[j].total : Op{}(c, carries[j].total);
    const int64_t i = int64_t(blockIdx.x) * blockDim.x + threadIdx.x;
    if (i < carries[rank].first_head) out[i] = Op{}(c, out[i]);
}

extern "C" tc_status tc_prefiks_carry_out(const tc_prefiks_plan *p, const void *in, const uint8_t *flags,
                                          const void *out, void *carry, cudaStream_t s) {
    if (!p || !in || !out || !carry || (p->segmented && !flags) || p->launch.n < 1) return TC_BAD_ARGUMENT;
    const int64_t n = p->launch.n;
    // first_head's minimum starts at n (a plain scan's slice has no head)
    auto *first = reinterpret_cast<unsigned long long *>(static_cast<unsigned char *>(carry) + 8);
    TC_TRY(cudaMemcpyAsync(first, &n, 8, cudaMemcpyHostToDevice, s));
    if (p->segmented) {
        first_head<<<264, 256, 0, s>>>(flags, n, first);
        TC_LAUNCHED();
    }
    return dispatch(p->type, p->op, [&](auto tag, auto op) -> tc_status {
        using T = typename decltype(tag)::type;
        const uint8_t *f = p->segmented ? flags : nullptr;
        if (p->exclusive)
            carry_out<T, decltype(op), true><<<1, 1, 0, s>>>(static_cast<const T *>(in), f, static_cast<const T *>(out), n,
                                                             static_cast<Carry<T> *>(carry));
        else
            carry_out<T, decltype(op), false><<<1, 1, 0, s>>>(static_cast<const T *>(in), f, static_cast<const T *>(out),
                                                              n, static_cast<Carry<T> *>(carry));
        TC_LAUNCHED();
        return TC_OK;
    });
}

extern "C" tc_status tc_prefiks_carry_in(const tc_prefiks_plan *p, const void *carries, int count, int rank, void *out,
                                         cudaStream_t s) {
    if (!p || !carries || !out || rank < 0 || rank >= count) return TC_BAD_ARGUMENT;
    if (rank == 0) return TC_OK;  // the first slice's scan is already the whole scan's
    return dispatch(p->type, p->op, [&](auto tag, auto op) -> tc_status {
        using T = typename decltype(tag)::type;
        // a thread an output: every SM full of loads in flight (a grid-strided pass of 2048 blocks
        // kept too few of them in flight and ran at half the copy's rate)
        const int64_t blocks = tc::ceil_div(p->launch.n, int64_t(256));
        carry_in<T, decltype(op)><<<unsigned(blocks), 256, 0, s>>>(
            static_cast<const Carry<T> *>(carries), rank, static_cast<T *>(out));
        TC_LAUNCHED();
        return TC_OK;
    });
}

extern "C" double tc_prefiks_tolerance(const tc_prefiks_plan *p, double prefix_abs) {
    if (!p) return NAN;
    if (p->type == TC_SCAN_INT32 || p->op != TC_SCAN_SUM) return 0;
    const double h = double(p->depth), u = 0x1p-24;
    return h * u >= 1 ? INFINITY : h * u / (1 - h * u) * prefix_abs;
}
