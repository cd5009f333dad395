// prefiks best: the one-pass scan (decoupled look-back), beyond the lecture; included by
// plan.cu after the lecture's kernels, whose operators (Seg, Segmented) it shares.
#pragma once
#include "toolbox/tile_state.cuh"

namespace {

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
// Status words carry a run epoch, so no run needs the statuses cleared: a block reads the epoch
// as its loads go out, and counts itself done after publishing (tile::Epoch's counted rule: one
// atomic, whose answer it looks at only after its stores are issued); the tile that counts last
// readies the next run. A look-back that waits too long (a bug, not a state the design reaches)
// gives up rather than hang (tile::SleepGiveUp), and the result fails its check.
// Rows of 128 a warp: 16 (tiles of 16384) for large plain scans, where fewer tiles mean fewer
// look-backs a byte; 8 (8192) for n too small to give every SM a few tiles of 16384; 7 (7168)
// for segmented scans (pairs take more registers: see best_blocks_per_sm).
constexpr int kBestThreads = 256;
// the segmented rows, one token: kbest's kernel names spell it (TC_XSTR)
#define TC_BEST_SEG_ROWS 7
#define TC_STR(x) #x
#define TC_XSTR(x) TC_STR(x)
constexpr int kBestSegRows = TC_BEST_SEG_ROWS;
__host__ __device__ constexpr int64_t best_tile(int rows) { return int64_t(kBestThreads) * 4 * rows; }
// Large plain scans take tiles of 16384 from four such tiles an SM on (rounded down to a power of two).
inline int best_rows(bool segmented, int64_t n, const tc_device &dev) {
    return segmented ? kBestSegRows : n < tc::floor_pow2(int64_t(dev.multiprocessors) * 4 * best_tile(16)) ? 8 : 16;
}
// The blocks an SM each tile kind is built for (its launch bounds); the kinds with a bound
// prefetch (tc::prefetch_ahead sets how far). Segmented tiles (7168: pairs) are held to
// 64 registers, four blocks an SM: more blocks to load while the others scan, look back and
// store pay more than the look-backs of more tiles cost (BENCHMARKS: the rows x blocks sweep).
// Plain tiles of 16384: two (at most 128 registers). Plain tiles of 8192 (small n, no
// prefetch): no bound (an explicit one raised their registers).
__host__ __device__ constexpr int best_blocks_per_sm(bool segmented, int rows) { return segmented ? 4 : rows == 16 ? 2 : 0; }
constexpr int kBestStack = 256;  // aggregates a look-back may hold before it waits for an inclusive prefix

// The tiles' and groups' status words, and the wait on them: tile_state.cuh's protocol, polling
// with a sleep and giving up.
using BestTiles = tc::tile::TileState<tc::tile::SleepGiveUp<>>;
using tc::tile::kAggregate;
using tc::tile::kInclusive;

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
    const unsigned heads = __ballot_sync(tc::kFullWarp, v.f != 0u), upto = heads & (tc::kFullWarp >> (31 - lane));
    const int head = upto ? 31 - __clz(int(upto)) : -1;  // the nearest head at or before this lane (-1: none)
    T s = v.v;
#pragma unroll
    for (int d = 1; d < 32; d <<= 1) {
        const T u = __shfl_up_sync(tc::kFullWarp, s, d);
        if (lane >= d && lane - d >= head) s = op(u, s);
    }
    *warp_total = {__shfl_sync(tc::kFullWarp, s, 31), heads != 0u ? 1u : 0u};
    const T before = __shfl_up_sync(tc::kFullWarp, s, 1);
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

// Warp 0: the left fold of every aggregate before `tile` in `words` (group_prefix: the group words).
template <typename T, typename Op>
__device__ T look_back(const BestTiles &words, int64_t tile, uint32_t *stack) {
    const int lane = threadIdx.x & 31;
    const Op op{};
    int depth = 0;
    BestTiles::Polls polls;
    for (int64_t hi = tile - 1;;) {  // the window: hi (lane 0) down to hi - 31 (lane 31)
        const int64_t j = hi - lane;
        uint64_t w = words.make(bits_of(tc::identity<T, Op>()), kInclusive);  // before tile 0: never chosen
        if (j >= 0) w = words.load(j);
        const unsigned inclusive = __ballot_sync(tc::kFullWarp, words.published_inclusive(w)),
                       missing = __ballot_sync(tc::kFullWarp, !words.published(w));
        const int first = inclusive ? __ffs(int(inclusive)) - 1 : 32;  // the nearest inclusive prefix
        const unsigned before_it = first == 32 ? tc::kFullWarp : (1u << first) - 1u;
        if (!(missing & before_it)) {  // every word up to it is published
            if (first < 32) {
                // the window joins the stack, and the fold reads it from the inclusive prefix on, older to
                // newer (this window's words, then the newer windows'): the same operations in the same
                // order as a shuffle a word, but the loads are independent and only the operations
                // chain (a shuffle a word put one shuffle's latency between two of them)
                stack[depth + lane] = tc::tile::value_of(w);
                __syncwarp();
                T acc = from_bits<T>(stack[depth + first]);
#pragma unroll 8
                for (int k = depth + first - 1; k >= 0; --k) acc = op(acc, from_bits<T>(stack[k]));
                return acc;
            }
            if (depth + 64 <= kBestStack) {  // 32 aggregates: keep them (and room for one more window), look further back
                stack[depth + lane] = tc::tile::value_of(w);
                __syncwarp();
                depth += 32;
                hi -= 32;
                polls = BestTiles::Polls();
                continue;
            }
        }
        // not published yet (or the stack is full: wait for an inclusive prefix)
        if (!polls.again()) return tc::identity<T, Op>();  // gave up (never expected): the check fails
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
__device__ T group_prefix(const BestTiles &tiles, const BestTiles &groups, int64_t tile, T own, bool own_flag, uint32_t *stack) {
    const int lane = threadIdx.x & 31, i = int(tile % 32);
    const int64_t g = tile / 32;
    const Op op{};
    Seg<T> x = {tc::identity<T, Op>(), 0u};  // lanes past i: never taken into lane i's scan
    bool gave_up = false;
    if (lane < i) {  // the group's tiles before this one: their aggregates and flags
        uint64_t w;
        gave_up = !tiles.wait(32 * g + lane, w);
        x = {from_bits<T>(tc::tile::value_of(w)), tc::tile::status_of(w) == kInclusive ? 1u : 0u};
    } else if (lane == i) {
        x = {own, own_flag ? 1u : 0u};
    }
    __syncwarp();
    Seg<T> total;
    const Seg<T> before = seg_warp_scan_exclusive<T, Op>(x, &total);
    const T in_group = __shfl_sync(tc::kFullWarp, before.v, i);
    const bool headed = __shfl_sync(tc::kFullWarp, before.f, i) != 0u;
    if (__any_sync(tc::kFullWarp, gave_up)) return tc::identity<T, Op>();  // (never expected): the check fails
    if (i == 31 && lane == 0) groups.publish(g, bits_of(total.v), total.f ? kInclusive : kAggregate);
    if (headed) return in_group;  // a head lies before this tile in its group
    const T before_group = look_back<T, Op>(groups, g, stack);
    if (i == 31 && lane == 0 && !total.f) groups.publish_inclusive(g, bits_of(op(before_group, total.v)));
    return op(before_group, in_group);
}

// Several GPUs: what a slice passes on (TC_PREFIKS_CARRY_BYTES), its total since its last head and
// whether it has one; the carries are gathered in GPU order.
template <typename T>
struct Carry {
    T total;
    int32_t headed;
    int64_t reserved;
};
// The value slice rank > 0 starts from: the carries before it folded in GPU order (one with a head
// restarts the fold at its total). The scan's first tile folds them, not a kernel of its own between
// the gather and the scan (one dependent launch less on the slowest GPU's path).
template <typename T, typename Op>
__device__ __forceinline__ T fold_carries(const Carry<T> *carries, int rank) {
    T c = carries[0].total;
#pragma unroll 1  // (unrolled, its loads reshaped the whole kernel: 8 spills, not 6, before the block's barrier)
    for (int j = 1; j < rank; ++j) c = carries[j].headed ? carries[j].total : Op{}(c, carries[j].total);
    return c;
}

template <typename T, typename Op, bool EXCL, bool SEG, int ROWS>
__global__ void __launch_bounds__(kBestThreads, best_blocks_per_sm(SEG, ROWS)) scan_best(const T *in, const uint8_t *flags, T *out, int64_t n,
                                                         const Carry<T> *carries, int rank,
                                                         tc::tile::Epoch *epoch_word, uint64_t *statuses, uint64_t *groups, int64_t tiles, int64_t ahead) {
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
    if (warp == 0) epoch = epoch_word->read_counted();
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
        if (SEG && i == 0 && !carries) f |= 1u;  // position 0 starts a segment (a later GPU's slice: where flagged)
#pragma unroll
        for (int k = 0; k < 4; ++k) x[4 * r + k] = v[k];
        if constexpr (SEG) heads[r / 8] |= head_bits(f) << (4 * (r % 8));
    }
    // The tile `ahead` tiles later goes into L2 now, by bulk prefetches (no registers, no shared
    // memory): its reads then overlap this tile's scan, look-back and stores, which keep DRAM idle
    // in the copy's terms. The plan sets the distance from the device's memory system
    // (tc::prefetch_ahead: a few round trips of the bytes it keeps in flight; too far, and the
    // prefetched bytes wait in L2 beside the stores). Tiles of 16384 and segmented tiles: the large sizes.
    if constexpr (ROWS == 16 || SEG) {
        const int64_t later = tile + ahead;
        if (warp == 0 && lane < 4 && whole && (later + 1) * kBestTile <= n) {
            constexpr unsigned kQuarter = unsigned(kBestTile * sizeof(T) / 4);
            tc::prefetch_l2(reinterpret_cast<const unsigned char *>(in + later * kBestTile) + lane * kQuarter, kQuarter);
            if constexpr (SEG) {
                if (lane == 0 && (reinterpret_cast<uintptr_t>(flags) & 15) == 0)  // (bulk: 16-byte aligned)
                    tc::prefetch_l2(flags + later * kBestTile, unsigned(kBestTile));
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
        T prefix = tc::identity<T, Op>(), inclusive = value_of(aggregate);
        const BestTiles tile_words{statuses, epoch}, group_words{groups, epoch};
        bool headed = false;  // a segmented tile with a head: its inclusive prefix is its aggregate's value
        if constexpr (SEG) headed = aggregate.f != 0;
        if (tile == 0 && carries) {  // several GPUs: a later slice starts from the slices before it
            prefix = fold_carries<T, Op>(carries, rank);
            if (!headed) inclusive = Op{}(prefix, inclusive);
        }
        if (lane == 0) tile_words.publish(tile, bits_of(inclusive), tile == 0 || headed ? kInclusive : kAggregate);
        if (tile > 0) prefix = group_prefix<T, Op>(tile_words, group_words, tile, value_of(aggregate), headed, stack);
        if (lane == 0) {
            prefix_shared = prefix;
            done = epoch_word->count_done();  // this tile has published (the answer is looked at last)
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
    if (threadIdx.x == 0) epoch_word->advance_if_last(done, tiles);
}

}  // namespace
