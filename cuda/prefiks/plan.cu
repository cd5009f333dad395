// prefiks: the variant table, the plans and the runs (and CUB's scans, the baseline): the
// translation unit of the lecture (lecture.cuh) and best (best.cuh).
#include "lecture.cuh"
#include "best.cuh"

namespace {

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
tc_status run_typed(const tc_prefiks_plan &p, Launches &L, const T *in, const uint8_t *flags, T *out,
                    const Carry<T> *carries, int rank, cudaStream_t s, int &levels) {
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
        tc::tile::Epoch *state = L.take<tc::tile::Epoch>(1);
        uint64_t *statuses = L.take<uint64_t>(tiles);
        uint64_t *groups = L.take<uint64_t>(tc::ceil_div(tiles, 32));
#define TC_BEST(E, S, R) TC_SCAN_LAUNCH(L, unsigned(tiles), (scan_best<T, Op, E, S, R><<<unsigned(tiles), kBestThreads, 0, s>>>(in, flags, out, n, carries, rank, state, statuses, groups, tiles, ahead)))
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
tc_status dispatch(tc_dtype type, tc_op op, F &&f) {
    if (type == TC_FLOAT32) {
        if (op == TC_MAX) return f(tc::Tag<float>{}, tc::Max{});
        if (op == TC_MIN) return f(tc::Tag<float>{}, tc::Min{});
        return f(tc::Tag<float>{}, tc::Sum{});
    }
    if (op == TC_MAX) return f(tc::Tag<int>{}, tc::Max{});
    if (op == TC_MIN) return f(tc::Tag<int>{}, tc::Min{});
    return f(tc::Tag<uint32_t>{}, tc::Sum{});
}

// carries, rank: best only, a later GPU's slice (rank > 0) starts from the carries of the slices
// before it (null: the scan starts at its slice)
tc_status run_all(const tc_prefiks_plan &p, Launches &L, const void *in, const uint8_t *flags, void *out,
                  const void *carries, int rank, cudaStream_t s, int &levels) {
    return dispatch(p.type, p.op, [&](auto tag, auto op) -> tc_status {
        using T = typename decltype(tag)::type;
        return run_typed<T, decltype(op)>(p, L, static_cast<const T *>(in), flags, static_cast<T *>(out),
                                          static_cast<const Carry<T> *>(carries), rank, s, levels);
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
    {"best", "one pass: decoupled look-back by groups of 32 tiles, 16-byte loads, deterministic",
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
    if ((r->op != TC_SUM && r->op != TC_MIN && r->op != TC_MAX) || (r->type != TC_FLOAT32 && r->type != TC_INT32))
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
        // (tiles of 8192 take no prefetch: see best_blocks_per_sm)
        const double tile_bytes = double(best_tile(out->rows)) * (4 + (out->segmented ? 1 : 0));
        out->ahead = best_blocks_per_sm(out->segmented, out->rows) ? tc::prefetch_ahead(*dev, tile_bytes) : 0;
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
    TC_TRY_STATUS(run_all(*out, L, nullptr, nullptr, nullptr, nullptr, 0, nullptr, levels));
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
    return run_all(*p, L, in, flags, out, nullptr, 0, s, levels);
}

// ---- several GPUs: a slice's carry, reduced before its scan; the scan after the slices before ---

static_assert(sizeof(Carry<float>) == TC_PREFIKS_CARRY_BYTES, "the carry's layout");

// carry_out's work: the blocks' partial totals, then the last head's offset + 1 (0: none)
constexpr int kCarryBlocks = 1024, kCarryThreads = 256;
static_assert(kCarryBlocks * 4 + 8 + 8 <= TC_PREFIKS_CARRY_WORK_BYTES, "carry_out's work");

// The slice's last head + 1, the maximum over blocks that search chunks from the slice's end on; a
// chunk that ends before a head already found is not searched (segments are short: most stop at once).
__global__ void last_head(const uint8_t *flags, int64_t n, unsigned long long *after) {
    const int64_t chunk = int64_t(blockDim.x) * 64;
    for (int64_t top = n - int64_t(blockIdx.x) * chunk; top > 0; top -= int64_t(gridDim.x) * chunk) {
        if (top <= int64_t(*(volatile unsigned long long *)after)) return;
        for (int64_t i = (top > chunk ? top - chunk : 0) + threadIdx.x; i < top; i += blockDim.x)
            if (flags[i]) atomicMax(after, (unsigned long long)(i + 1));
    }
}

// The blocks' totals of the elements from the last head on (all of them without flags): each
// thread a fixed stride, four loads in flight, then the block's reduction: a fixed order, the
// same bits every run.
template <typename T, typename Op>
__global__ void __launch_bounds__(kCarryThreads) carry_partials(const T *in, int64_t n, const unsigned long long *after,
                                                               T *partials) {
    __shared__ tc::BlockReduceStorage<T> storage;
    const Op op{};
    const int64_t stride = int64_t(gridDim.x) * blockDim.x;
    int64_t i = (after && *after ? int64_t(*after) - 1 : 0) + int64_t(blockIdx.x) * blockDim.x + threadIdx.x;
    T acc[4] = {tc::identity<T, Op>(), tc::identity<T, Op>(), tc::identity<T, Op>(), tc::identity<T, Op>()};
    for (; i + 3 * stride < n; i += 4 * stride) {
#pragma unroll
        for (int k = 0; k < 4; ++k) acc[k] = op(acc[k], __ldcs(in + i + k * stride));
    }
    for (; i < n; i += stride) acc[0] = op(acc[0], in[i]);
    const T v = tc::block_reduce<T, Op>(op(op(acc[0], acc[1]), op(acc[2], acc[3])), storage);
    if (threadIdx.x == 0) partials[blockIdx.x] = v;
}

// One block: the partials folded (each thread its run of them in order, then the block), into the carry.
template <typename T, typename Op>
__global__ void __launch_bounds__(kCarryThreads) carry_total(const T *partials, const unsigned long long *after,
                                                            Carry<T> *carry) {
    __shared__ tc::BlockReduceStorage<T> storage;
    const Op op{};
    constexpr int kRun = kCarryBlocks / kCarryThreads;
    T acc = partials[threadIdx.x * kRun];
#pragma unroll
    for (int k = 1; k < kRun; ++k) acc = op(acc, partials[threadIdx.x * kRun + k]);
    acc = tc::block_reduce<T, Op>(acc, storage);
    if (threadIdx.x == 0) *carry = {acc, after && *after ? 1 : 0, 0};
}

extern "C" tc_status tc_prefiks_carry_out(const tc_prefiks_plan *p, const void *in, const uint8_t *flags, void *work,
                                          void *carry, cudaStream_t s) {
    if (!p || !in || !work || !carry || (p->segmented && !flags) || p->launch.n < 1) return TC_BAD_ARGUMENT;
    const int64_t n = p->launch.n;
    unsigned long long *after = nullptr;
    if (p->segmented) {
        after = reinterpret_cast<unsigned long long *>(static_cast<unsigned char *>(work) + kCarryBlocks * 4 + 8);
        TC_TRY(cudaMemsetAsync(after, 0, sizeof *after, s));
        const int64_t blocks = std::min<int64_t>(tc::ceil_div(n, int64_t(256) * 64), 2048);
        last_head<<<unsigned(blocks), 256, 0, s>>>(flags, n, after);
        TC_LAUNCHED();
    }
    return dispatch(p->type, p->op, [&](auto tag, auto op) -> tc_status {
        using T = typename decltype(tag)::type;
        T *partials = static_cast<T *>(work);
        carry_partials<T, decltype(op)><<<kCarryBlocks, kCarryThreads, 0, s>>>(static_cast<const T *>(in), n, after, partials);
        TC_LAUNCHED();
        carry_total<T, decltype(op)><<<1, kCarryThreads, 0, s>>>(partials, after, static_cast<Carry<T> *>(carry));
        TC_LAUNCHED();
        return TC_OK;
    });
}

extern "C" tc_status tc_prefiks_run_after(const tc_prefiks_plan *p, const void *in, const uint8_t *flags, void *out,
                                          void *scratch, const void *carries, int count, int rank, cudaStream_t s) {
    if (!p || !carries || rank < 0 || rank >= count || p->launch.variant != VBEST) return TC_BAD_ARGUMENT;
    if (rank == 0) return tc_prefiks_run(p, in, flags, out, scratch, s);  // the first slice's scan is the whole scan's
    if (!in || !out || (p->segmented && !flags) || !scratch || p->launch.n < 1) return TC_BAD_ARGUMENT;
    Launches L{{false}, static_cast<unsigned char *>(scratch)};
    int levels = 0;
    return run_all(*p, L, in, flags, out, carries, rank, s, levels);
}

// a thread's run (its 4 accumulators, then their 2 levels), the block's 10 shuffle steps, and carry_total's run of 4 and 10
extern "C" int64_t tc_prefiks_carry_depth(const tc_prefiks_plan *p) {
    if (!p) return 0;
    return tc::ceil_div(p->launch.n, int64_t(kCarryBlocks) * kCarryThreads * 4) + 2 + 10 + 4 + 10;
}

extern "C" double tc_prefiks_tolerance(const tc_prefiks_plan *p, double prefix_abs) {
    if (!p) return NAN;
    if (p->type == TC_INT32 || p->op != TC_SUM) return 0;
    const double h = double(p->depth), u = 0x1p-24;
    return h * u >= 1 ? INFINITY : h * u / (1 - h * u) * prefix_abs;
}
