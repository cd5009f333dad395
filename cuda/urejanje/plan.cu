// urejanje: the variant table, the plans and the runs, and the baseline (CUB, cub.cuh): the translation
// unit of the lecture (lecture.cuh), radix (radix.cuh) and best (best.cuh).
#include "lecture.cuh"
#include "radix.cuh"
#include "best.cuh"
#include "cub.cuh"
#include <cmath>
#include <type_traits>

namespace {

enum { VO, VOV, VN, VNL, VBEST, VRADIX, VCUB, VARIANTS };

// The lecture's variants: pack, the network's launches, unpack.
template <typename T>
tc_status lecture_run(Launches<T> &L) {
    const int v = L.p.launch.variant, t = L.p.launch.threads;
    const int64_t N = L.p.padded, total = L.total;
    TC_SORT_LAUNCH(L, L.blocks_for(total, 256), 256, L.keys_in() + L.words(), false,
                   pack_kernel<T><<<L.blocks_for(total, 256), 256, 0, L.s>>>(L.io, L.work, total));
    if (v == VO || v == VOV) {
        for (int64_t k = 2; k <= N; k *= 2)
            for (int64_t j = k / 2; j > 0; j /= 2) {
                if (v == VO)
                    TC_SORT_LAUNCH(L, L.blocks_for(total, t), t, L.words(), true,
                                   bitonic_o<T><<<L.blocks_for(total, t), t, 0, L.s>>>(L.work, total, N, j, k));
                else
                    TC_SORT_LAUNCH(L, L.blocks_for(total / 2, t), t, L.words(), true,
                                   bitonic_ov<T><<<L.blocks_for(total / 2, t), t, 0, L.s>>>(L.work, total, N, j, k));
            }
    } else {
        const bool shared = v == VNL;
        const int chunk = int(2 * t < N ? 2 * t : N), block = chunk / 2 < 1 ? 1 : chunk / 2;
        const size_t smem = shared ? sizeof(T) * size_t(chunk) : 0;
        const unsigned blocks = unsigned(total / chunk);
        const double in_block = shared ? 2 * L.words() : L.words();
        L.takes_shared(smem);
        // start: every k up to the chunk
        if (shared) TC_SORT_LAUNCH(L, blocks, block, in_block, true, bitonic_nl_start<T><<<blocks, block, smem, L.s>>>(L.work, chunk, N));
        else TC_SORT_LAUNCH(L, blocks, block, in_block, true, bitonic_n_start<T><<<blocks, block, 0, L.s>>>(L.work, chunk, N));
        for (int64_t k = 2 * int64_t(chunk); k <= N; k *= 2) {
            for (int64_t j = k / 2; j >= chunk; j /= 2)  // middle: one global step a launch
                TC_SORT_LAUNCH(L, L.blocks_for(total / 2, t), t, L.words(), true,
                               bitonic_ov<T><<<L.blocks_for(total / 2, t), t, 0, L.s>>>(L.work, total, N, j, k));
            if (shared)
                TC_SORT_LAUNCH(L, blocks, block, in_block, true,
                               bitonic_nl_finish<T><<<blocks, block, smem, L.s>>>(L.work, chunk, N, k));
            else
                TC_SORT_LAUNCH(L, blocks, block, in_block, true,
                               bitonic_n_finish<T><<<blocks, block, 0, L.s>>>(L.work, chunk, N, k));
        }
    }
    TC_SORT_LAUNCH(L, L.blocks_for(total, 256), 256, L.words() + L.result_out(), false,
                   unpack_kernel<T><<<L.blocks_for(total, 256), 256, 0, L.s>>>(L.io, L.work, total));
    return TC_OK;
}

template <typename T>
tc_status network_run(Launches<T> &L) {
    return L.p.launch.variant == VBEST ? best_run(L) : lecture_run(L);
}

// ---- the baseline -------------------------------------------------------------------------

// The CUB baseline on the raw keys: radix sort for one array, segmented sort for batches (cub.cuh).
// Batches of floats reach CUB as their ordered words (float_words), so their K is unsigned.
template <typename K>
cudaError_t cub_sort(void *temp, size_t &temp_bytes, const tc_urejanje_plan &p, bool descending, const K *keys_in, K *keys_out,
                     const uint32_t *values_in, uint32_t *values_out, cudaStream_t s) {
    namespace lib = tc::urejanje_cub;
    if (p.batch == 1)
        return lib::radix(temp, temp_bytes, p.pairs != 0, descending, keys_in, keys_out, values_in, values_out,
                          p.launch.n, s);
    if constexpr (std::is_same_v<K, float>) return cudaErrorInvalidValue;
    else
        return lib::segmented(temp, temp_bytes, p.pairs != 0, descending, keys_in, keys_out, values_in, values_out,
                              p.launch.n, p.batch, s);
}

__global__ void iota_kernel(uint32_t *v, int64_t n, int64_t total) {
    for (int64_t i = int64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < total; i += int64_t(gridDim.x) * blockDim.x)
        v[i] = uint32_t(i % n);
}

// CUB's temp storage for any key type and direction: the largest of the float, int and uint
// sizes (they agree in practice; the maximum keeps the plan independent of the run's type).
cudaError_t cub_bytes(const tc_urejanje_plan &p, size_t &bytes) {
    size_t a = 0, b = 0, c = 0;
    cudaError_t e;
    if (p.batch == 1 && (e = cub_sort<float>(nullptr, a, p, false, nullptr, nullptr, nullptr, nullptr, nullptr)) != cudaSuccess)
        return e;
    if ((e = cub_sort<int>(nullptr, b, p, true, nullptr, nullptr, nullptr, nullptr, nullptr)) != cudaSuccess) return e;
    if ((e = cub_sort<unsigned>(nullptr, c, p, false, nullptr, nullptr, nullptr, nullptr, nullptr)) != cudaSuccess) return e;
    bytes = a > b ? a : b;
    bytes = bytes > c ? bytes : c;
    return cudaSuccess;
}

// CUB's radix sort orders floats by their bits: NaNs with the sign bit set go first and NaN
// payloads order among themselves. A user who wants NaNs last, as one value, canonicalises on
// the way in (and then gets the canonical NaN out).
__global__ void canonical_nans(const uint32_t *in, uint32_t *out, int64_t items) {
    for (int64_t i = int64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < items; i += int64_t(gridDim.x) * blockDim.x)
        out[i] = (in[i] & 0x7fffffffu) > 0x7f800000u ? 0x7fffffffu : in[i];
}

// CUB's segmented sort compares the keys of short segments as floats, and a NaN orders nowhere
// there: batches of float keys are sorted as their ordered words (every NaN last, -0 before +0, as
// best orders them), and mapped back (every NaN the canonical one).
__global__ void float_words(const uint32_t *in, uint32_t *out, int64_t items, bool back) {
    for (int64_t i = int64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < items; i += int64_t(gridDim.x) * blockDim.x)
        out[i] = back ? from_ordered(in[i], TC_FLOAT32, false) : to_ordered(in[i], TC_FLOAT32, false);
}

// radix's, the rank sort's and CUB's lower bound: read the keys once, write the result (keys, and
// with pairs values) once.
double sort_bytes(int64_t items, bool pairs) { return 4.0 * double(items) + (pairs ? 8.0 : 4.0) * double(items); }

// radix's and the rank sort's plans: their launches and first grid from a dry run of `launches`
// (given a LaunchCounter that counts only), and sort_bytes.
template <class F>
tc_status counted(tc_urejanje_plan &out, F &&launches) {
    tc::LaunchCounter L{true};
    TC_TRY_STATUS(launches(L));
    out.launch.launches = L.count;
    out.launch.blocks = int(L.grid);
    out.launch.bytes_moved = sort_bytes(out.launch.items, out.pairs != 0);
    return TC_OK;
}

unsigned copy_grid(int64_t items) { return unsigned(tc::ceil_div(items, 256) < 4096 ? tc::ceil_div(items, 256) : 4096); }

template <typename T>
tc_status dry_run(tc_urejanje_plan &p, const tc_device &dev) {
    p.block_log = block_log<T>(p, dev);
    p.rest_log = rest_log<T>(p, dev);
    Launches<T> L{{true}, p, nullptr, p.padded * p.batch, nullptr, Io{}};
    TC_TRY_STATUS(network_run(L));
    p.launch.launches = L.count;
    p.launch.blocks = int(L.grid);
    if (L.block) p.launch.threads = L.block;  // the launched block: smaller than the request's for short arrays
    p.launch.bytes_moved = L.bytes;
    p.launch.shared_bytes = L.shared;
    return TC_OK;
}

const tc_kernel ko[] = {
    tc::kernel("pack_kernel<u32>", pack_kernel<uint32_t>), tc::kernel("pack_kernel<u64>", pack_kernel<uint64_t>),
    tc::kernel("bitonic_o<u32>", bitonic_o<uint32_t>), tc::kernel("bitonic_o<u64>", bitonic_o<uint64_t>),
    tc::kernel("unpack_kernel<u32>", unpack_kernel<uint32_t>), tc::kernel("unpack_kernel<u64>", unpack_kernel<uint64_t>)};
const tc_kernel kov[] = {
    tc::kernel("pack_kernel<u32>", pack_kernel<uint32_t>), tc::kernel("pack_kernel<u64>", pack_kernel<uint64_t>),
    tc::kernel("bitonic_ov<u32>", bitonic_ov<uint32_t>), tc::kernel("bitonic_ov<u64>", bitonic_ov<uint64_t>),
    tc::kernel("unpack_kernel<u32>", unpack_kernel<uint32_t>), tc::kernel("unpack_kernel<u64>", unpack_kernel<uint64_t>)};
const tc_kernel kn[] = {
    tc::kernel("pack_kernel<u32>", pack_kernel<uint32_t>), tc::kernel("pack_kernel<u64>", pack_kernel<uint64_t>),
    tc::kernel("bitonic_n_start<u32>", bitonic_n_start<uint32_t>), tc::kernel("bitonic_n_start<u64>", bitonic_n_start<uint64_t>),
    tc::kernel("bitonic_ov<u32>", bitonic_ov<uint32_t>), tc::kernel("bitonic_ov<u64>", bitonic_ov<uint64_t>),
    tc::kernel("bitonic_n_finish<u32>", bitonic_n_finish<uint32_t>), tc::kernel("bitonic_n_finish<u64>", bitonic_n_finish<uint64_t>),
    tc::kernel("unpack_kernel<u32>", unpack_kernel<uint32_t>), tc::kernel("unpack_kernel<u64>", unpack_kernel<uint64_t>)};
const tc_kernel knl[] = {
    tc::kernel("pack_kernel<u32>", pack_kernel<uint32_t>), tc::kernel("pack_kernel<u64>", pack_kernel<uint64_t>),
    tc::kernel("bitonic_nl_start<u32>", bitonic_nl_start<uint32_t>), tc::kernel("bitonic_nl_start<u64>", bitonic_nl_start<uint64_t>),
    tc::kernel("bitonic_ov<u32>", bitonic_ov<uint32_t>), tc::kernel("bitonic_ov<u64>", bitonic_ov<uint64_t>),
    tc::kernel("bitonic_nl_finish<u32>", bitonic_nl_finish<uint32_t>), tc::kernel("bitonic_nl_finish<u64>", bitonic_nl_finish<uint64_t>),
    tc::kernel("unpack_kernel<u32>", unpack_kernel<uint32_t>), tc::kernel("unpack_kernel<u64>", unpack_kernel<uint64_t>)};
const tc_kernel kbest[] = {TC_BEST_KERNELS(uint32_t, "u32"), TC_BEST_KERNELS(uint64_t, "u64"),
                           tc::kernel("bitonic_block<u64,2^13,strided,3>", bitonic_block<uint64_t, 13, STRIDED, 3>),
                           TC_RADIX_KERNELS, TC_RANK_KERNELS};
const tc_kernel kradix[] = {TC_RADIX_KERNELS};

const tc_variant variants[VARIANTS] = {
    {"o", "host runs k and j, one launch per step; thread i compares i with i^j (half the threads idle)",
     "any n and batch (padded to a power of two)",
     "lower bound: read every word every step; pack and unpack", TC_POW2_THREADS | TC_OWN_GRID, TC_KERNELS(ko)},
    {"ov", "one launch per step, n/2 threads each owning one compare-exchange pair", "any n and batch",
     "lower bound: read every word every step; pack and unpack", TC_POW2_THREADS | TC_OWN_GRID, TC_KERNELS(kov)},
    {"n", "start (block sorts its chunk), middle (global step), finish (block completes k): global memory",
     "any n and batch", "lower bound: read every word each launch; pack and unpack", TC_POW2_THREADS | TC_OWN_GRID,
     TC_KERNELS(kn)},
    {"nl", "as n, with start and finish in shared memory", "any n and batch",
     "lower bound: read every word each launch, and write it in shared-memory passes; pack and unpack",
     TC_POW2_THREADS | TC_OWN_GRID, TC_KERNELS(knl)},
    {"best", "one array of at most sqrt(the SMs x 2^19) keys: the rank sort, every pair of keys compared in one launch; "
             "arrays up to the device's SMs x 256 keys: the network, blocks of up to 8192 in registers (16 a thread), 4 steps "
             "between shared-memory transposes, up to 9 global steps a pass; longer arrays (threads not given): radix's sort, and "
             "arrays of 2049 to 4096 keys radix's block sort with pairs, or with keys in a batch of at least the SMs",
     "any n and batch",
     "the network: read and write every word each pass (the first reads the keys, the last writes the result); radix and "
     "the rank sort: radix's lower bound",
     TC_POW2_THREADS | TC_OWN_GRID, TC_KERNELS(kbest)},
    {"radix", "LSD radix sort, onesweep: one histogram read, then a launch an 8-bit digit whose tiles rank by warp ballots and "
              "find their places by look-back; arrays of up to 4096 keys: one block each",
     "any n < 2^32 and batch; threads 256, 384 or 512, the passes' block (tiles of 256 x 16, 384 x 20 or 512 x 16 keys; 0: "
     "384 for keys alone past twice the L2 (every array together) where an array has a tile of 7680 for every SM and an SM holds three such blocks, 512 where an array has a tile of 8192 for every SM and "
     "an SM holds two such blocks, else 256) (n = 2^32 or other threads: best)",
     "lower bound: read the keys once, write the result once (each pass reads and writes them again)",
     TC_OWN_GRID, TC_KERNELS(kradix)},
    {"cub", "baseline: cub::DeviceRadixSort (NaNs canonical first), or DeviceSegmentedSort for batches (floats as ordered words)",
     "any n and batch", "lower bound: read the keys once, write the result once",
     TC_POW2_THREADS | TC_OWN_GRID | TC_LIBRARY, nullptr, 0},
};

const tc_program program = {"urejanje", "keys", variants, VARIANTS};

// radix_histogram's blocks: one resident wave of those that keep the memory system busy. A block
// has a tile's loads (kRadixTile keys) in flight only while it is not counting, so an SM runs
// twice the blocks whose loads cover the bytes it must keep in flight (at least two, at most what
// its threads allow): fewer blocks than a full wave, each counting a larger share, add fewer
// counts to global memory.
int64_t histogram_wave(const tc_device &dev) {
    const double in_flight = tc::in_flight_per_sm(dev);
    const int most = std::max(1, dev.max_threads_per_multiprocessor / kRadixThreads);
    const int per_sm = std::min(most, std::max(2, 2 * int(std::ceil(in_flight / (4.0 * kRadixTile)))));
    return int64_t(dev.multiprocessors) * per_sm;
}

// The passes' block where the request leaves it to the plan:
//   - keys alone past twice the L2 (every array together), an array having a tile for every SM:
//     384 x 20 at three blocks an SM. Each pass streams from DRAM, and with no values a block's
//     registers leave room for a third, whose loads are in flight while the other two rank and
//     look back;
//   - else 512 x 16 (tiles twice as long at the same warps an SM: longer runs of each digit to
//     scatter, half the status words and look-backs) once an array has one such tile for every SM;
//   - else 256 x 16, whose more tiles keep every SM busy.
// Each only where an SM holds its blocks (BENCHMARKS: urejanje radix): by threads and shared
// memory, and by the kernel as built (registers: a launch bound asks an architecture for no more
// blocks than its SM holds, so PTX built for sm_75 and run on a larger GPU holds two of 384).
template <class S>
bool sm_holds(bool pairs, const tc_device &dev) {
    // the storage the device's own architecture's machine code has (direct_scatter_for): an
    // emulated device is planned as a build for that card (scripts/setup.sh) would run, with this
    // build's registers; the default build runs PTX for sm_75 on such a card, whose plan differs
    const bool direct = direct_scatter_for<S>(pairs, dev.compute_major * 10 + dev.compute_minor);
    const size_t shared = pairs ? sizeof(PassStorage<true, S>) : direct ? sizeof(PassStorage<false, S, true>) : sizeof(PassStorage<false, S>);
    const int want = S::blocks(pairs);
    // (the float32 and the integer kernel alike, whichever the request runs; without a GPU
    // resident_blocks counts threads alone. An emulated device: the kernel's registers, that storage)
    const auto holds = [&](bool float32, bool padded = false) {
        const void *kernel = reinterpret_cast<const void *>(radix_pass_kernel<S>(pairs, float32, padded));
        if (dev.profile[0] != 0) return tc::blocks_per_sm(dev, S::kThreads, tc::kernel_registers(kernel), shared) >= want;
        return tc::resident_blocks(dev, S::kThreads, kernel) >= want;
    };
    return tc::blocks_per_sm(dev, S::kThreads, 0, shared) >= want && holds(true) && holds(false) && (pairs || holds(false, true));
}
int radix_pass_threads(int64_t n, int64_t items, bool pairs, const tc_device &dev) {
    const auto long_array = [&](int tile) { return n >= int64_t(dev.multiprocessors) * tile; };
    if (!pairs && 4.0 * double(items) > 2.0 * double(dev.l2_bytes) && long_array(PassShape384::kTile) &&
        sm_holds<PassShape384>(false, dev))
        return PassShape384::kThreads;
    using S = PassShape512;
    return sm_holds<S>(pairs, dev) && long_array(S::kTile) ? S::kThreads : PassShape256::kThreads;
}

// radix's plan (radix.cuh): arrays of one block sort's tile (kRadixTile) go to the block sort;
// longer ones to the passes, whose block (and with it the tile) the request's threads name
// (with_pass_shape), tiles that never span two arrays, the histogram's blocks histogram_wave.
tc_status radix_plan(tc_urejanje_plan &out, const tc_urejanje_request &r, const tc_device &dev) {
    tc_launch &p = out.launch;
    const int threads = r.base.threads != 0 ? r.base.threads : radix_pass_threads(p.n, p.items, out.pairs != 0, dev);
    const int tile = pass_tile(threads);
    if (tile == 0) return TC_OUTSIDE_DOMAIN;
    if (p.n >= (int64_t(1) << 32)) return TC_OUTSIDE_DOMAIN;  // its counts and places are 32-bit
    p.threads = threads;
    unsigned block_grid = 0;
    if (p.n <= kRadixTile) {
        p.threads = kRadixThreads;  // (the block sort's)
        block_grid = unsigned(std::min<int64_t>(out.batch, dev.max_grid_x));
    } else {
        out.radix_tiles = tc::ceil_div(p.n, tile);
        if (out.batch * out.radix_tiles > dev.max_grid_x) return TC_OUTSIDE_DOMAIN;
        out.radix_chunk = tc::ceil_div(tc::ceil_div(p.items, histogram_wave(dev)), kRadixTile) * kRadixTile;
    }
    out.radix = 1;
    p.scratch_bytes = radix_scratch(out).total;
    return counted(out, [&](tc::LaunchCounter &L) { return radix_launches(L, out, RadixIo{}, nullptr, block_grid, nullptr); });
}

// best's choice between its network and radix's sort: arrays longer than the device's SMs x 256
// keys take radix. Below it the network sorts an array in one launch or a few, each bound by its
// latency, where radix pays its six (histogram, scan, four passes, each pass's look-back a chain
// across its tiles); above it the network's steps grow as log^2 n and radix's passes stay four.
// Measured on the H100 (132 SMs): the network leads at 2^14 keys (SMs x 124: 31.9 us against
// radix's 35.0), radix at 2^16 (SMs x 496: 39.6 against 46.9; pairs 44.4 against 51.1). Each
// array decides, so batches of short arrays keep the network (a block sorts each in one launch)
// and batches of long ones take radix. Neither the key type nor pairs moves it: both sorts move
// the same words a key (the network pairs as 8-byte words, radix a key and a value). Given
// threads size the network's block: the network.
constexpr int kRadixAboveLog = 8;  // keys an SM
int64_t best_radix_above(const tc_device &dev) { return int64_t(dev.multiprocessors) << kRadixAboveLog; }
// Below that line, arrays past half a block sort's tile (2049 to 4096 keys: the network's block of
// 4096, 16 words a thread on 256 threads, its 78 steps) take radix's block sort (four passes in
// one block of the same 256 threads) with pairs, whose network words are 8 bytes, and with keys
// where the batch gives every SM an array: then throughput counts, not one array's latency.
// Measured on the H100 (kernel us, network / radix / CUB): 4096 pairs 24.96 / 19.33 / 17.60; 3000
// pairs 22.66 / 19.10; 2048 pairs 14.34 / 17.95; 256 arrays of 4096 keys 30.91 / 24.00 / 24.96,
// of 3000 27.07 / 23.36 / 24.22; 32 arrays of 4096 keys 17.66 / 17.82; one 3000 keys 14.78 / 17.38.
// Arrays of at most kRadixTile keys are decided here alone, the SMs x 256 line not counting (on a
// GPU of fewer than 16 SMs it lies below 4096, where radix is one launch, not six).
static_assert(kRadixTile == TC_UREJANJE_BLOCK_TILE, "the ABI's block tile is radix_block's");
// Before both, one array whose n^2 comparisons come to at most 2^kRankComparesLog an SM takes the
// rank sort: one launch whose time is its comparisons spread over every SM, where the network and
// radix's block sort run a chain of barrier-separated steps in one block. (BENCHMARKS: urejanje
// rank; only where the array's words fit a block's shared memory.)
constexpr int kRankComparesLog = 19;
int64_t best_rank_most(const tc_device &dev) {
    const int64_t compares = int64_t(std::sqrt(std::ldexp(double(dev.multiprocessors), kRankComparesLog)));
    // rank_shared_bytes(n) is 32 bytes a segment word and 32 words more: the longest segment that fits
    const int64_t segment = (int64_t(dev.shared_per_block_optin) / 32 - 32) / 32 * 32;
    return std::max<int64_t>(0, std::min(compares, kRankWarps * segment));
}
bool best_takes_rank(int64_t n, int64_t batch, const tc_device &dev) { return batch == 1 && n <= best_rank_most(dev); }

// best's rank sort's plan (best.cuh): one launch, a block of 32 keys.
tc_status rank_plan(tc_urejanje_plan &out) {
    tc_launch &p = out.launch;
    out.rank = 1;
    p.threads = 32 * kRankWarps;
    p.shared_bytes = rank_shared_bytes(p.n);
    p.scratch_bytes = rank_scratch_bytes(p.n, out.pairs != 0);
    return counted(out, [&](tc::LaunchCounter &L) { return rank_launches(L, out, RadixIo{}, nullptr, nullptr); });
}
bool best_block_radix(int64_t n, int64_t batch, bool pairs, const tc_device &dev) {
    return n > kRadixTile / 2 && n <= kRadixTile && (pairs || batch >= dev.multiprocessors);
}
bool best_takes_radix(int64_t n, int64_t batch, bool pairs, const tc_device &dev) {
    return n > kRadixTile ? n > best_radix_above(dev) : best_block_radix(n, batch, pairs, dev);
}

}  // namespace

extern "C" const tc_program *tc_urejanje_program(void) { return &program; }

extern "C" tc_status tc_urejanje_make_plan(const tc_urejanje_request *r, const tc_device *dev, tc_urejanje_plan *out) {
    if (!r) return TC_BAD_ARGUMENT;
    TC_TRY_STATUS(tc::begin_plan(program, r, dev, r->base.variant == VBEST ? 512 : 256, out));
    if (r->batch < 1) return TC_BAD_ARGUMENT;
    tc_launch &p = out->launch;
    const int64_t n = p.n;
    out->batch = r->batch;
    out->pairs = r->pairs ? 1 : 0;
    if (r->type != TC_FLOAT32 && r->type != TC_INT32 && r->type != TC_UINT32) return TC_BAD_ARGUMENT;
    out->type = r->type;
    out->descending = r->descending ? 1 : 0;
    if (n > (int64_t(1) << 32) || r->batch > (int64_t(1) << 40) / n) return TC_OUTSIDE_DOMAIN;
    out->padded = int64_t(1) << tc::ceil_log2(n);
    p.out_count = p.items = n * r->batch;
    if (p.variant == VRADIX) return radix_plan(*out, *r, *dev);
    if (p.variant == VBEST) {
        out->radix_above = best_radix_above(*dev);
        out->rank_most = best_rank_most(*dev);
        if (r->base.threads == 0 && best_takes_rank(n, r->batch, *dev)) return rank_plan(*out);
        tc_urejanje_plan radix = *out;
        if (r->base.threads == 0 && best_takes_radix(n, r->batch, out->pairs != 0, *dev) && radix_plan(radix, *r, *dev) == TC_OK) {
            *out = radix;  // (outside radix's domain, n = 2^32 or a grid too long: the network)
            return TC_OK;
        }
    }
    if (p.variant == VCUB) {
        size_t temp = 0;
        TC_TRY(cub_bytes(*out, temp));
        const size_t words = tc::align256(sizeof(uint32_t) * size_t(p.items));
        p.scratch_bytes = tc::align256(temp) + words + (out->pairs ? words : 0);  // temp, canonical keys, indices
        p.threads = p.blocks = p.launches = 0;  // CUB's own
        p.bytes_moved = sort_bytes(p.items, out->pairs != 0);
        return TC_OK;
    }
    p.scratch_bytes = (out->pairs ? 8 : 4) * size_t(out->padded * out->batch);
    return out->pairs ? dry_run<uint64_t>(*out, *dev) : dry_run<uint32_t>(*out, *dev);
}

extern "C" tc_status tc_urejanje_run(const tc_urejanje_plan *p, const void *keys_in, const uint32_t *values_in,
                                     void *keys_out, uint32_t *values_out, void *scratch, cudaStream_t s) {
    if (!p || !keys_in || !keys_out || (!scratch && p->launch.scratch_bytes > 0) || (p->pairs && !values_out) || p->padded < 1 ||
        p->batch < 1)
        return TC_BAD_ARGUMENT;
    const tc_dtype type = p->type;  // (the plan's)
    const int descending = p->descending;
    if (type != TC_FLOAT32 && type != TC_INT32 && type != TC_UINT32) return TC_BAD_ARGUMENT;
    const int64_t items = p->launch.items;
    if (p->radix || p->rank) {  // radix, and best where it chose radix or its rank sort
        const RadixIo io{static_cast<const uint32_t *>(keys_in), p->pairs ? values_in : nullptr, static_cast<uint32_t *>(keys_out),
                         p->pairs ? values_out : nullptr, {}, {}, p->launch.n, p->batch, type, descending != 0};
        tc::LaunchCounter L{false};
        if (p->rank) return rank_launches(L, *p, io, static_cast<unsigned char *>(scratch), s);
        return radix_launches(L, *p, io, static_cast<unsigned char *>(scratch), unsigned(p->launch.blocks), s);
    }
    if (p->launch.variant == VCUB) {
        const size_t words = tc::align256(sizeof(uint32_t) * size_t(items));
        size_t temp = p->launch.scratch_bytes - words - (p->pairs ? words : 0);
        unsigned char *after = static_cast<unsigned char *>(scratch) + temp;
        const bool as_words = type == TC_FLOAT32 && p->batch > 1;  // (float_words)
        if (type == TC_FLOAT32) {
            uint32_t *canonical = reinterpret_cast<uint32_t *>(after);
            if (as_words)
                float_words<<<copy_grid(items), 256, 0, s>>>(static_cast<const uint32_t *>(keys_in), canonical, items, false);
            else
                canonical_nans<<<copy_grid(items), 256, 0, s>>>(static_cast<const uint32_t *>(keys_in), canonical, items);
            TC_LAUNCHED();
            keys_in = canonical;
        }
        if (p->pairs && !values_in) {
            uint32_t *iota = reinterpret_cast<uint32_t *>(after + words);
            iota_kernel<<<copy_grid(items), 256, 0, s>>>(iota, p->launch.n, items);
            TC_LAUNCHED();
            values_in = iota;
        }
        switch (as_words ? TC_UINT32 : type) {
        case TC_FLOAT32:
            TC_TRY(cub_sort(scratch, temp, *p, descending, static_cast<const float *>(keys_in), static_cast<float *>(keys_out),
                            values_in, values_out, s));
            break;
        case TC_INT32:
            TC_TRY(cub_sort(scratch, temp, *p, descending, static_cast<const int *>(keys_in), static_cast<int *>(keys_out),
                            values_in, values_out, s));
            break;
        default:
            TC_TRY(cub_sort(scratch, temp, *p, descending, static_cast<const unsigned *>(keys_in),
                            static_cast<unsigned *>(keys_out), values_in, values_out, s));
        }
        TC_LAUNCHED();
        if (as_words) {
            float_words<<<copy_grid(items), 256, 0, s>>>(static_cast<const uint32_t *>(keys_out),
                                                         static_cast<uint32_t *>(keys_out), items, true);
            TC_LAUNCHED();
        }
        return TC_OK;
    }
    Io io{static_cast<const uint32_t *>(keys_in), values_in, static_cast<uint32_t *>(keys_out), values_out,
          p->launch.n, p->padded, tc::ceil_log2(p->padded), type, descending != 0};
    const int64_t total = p->padded * p->batch;
    if (p->pairs) {
        Launches<uint64_t> L{{false}, *p, static_cast<uint64_t *>(scratch), total, s, io};
        return network_run(L);
    }
    Launches<uint32_t> L{{false}, *p, static_cast<uint32_t *>(scratch), total, s, io};
    return network_run(L);
}
