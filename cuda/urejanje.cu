// urejanje: bitonic sort, the lecture's variants in its order. Keys of any 32-bit type are first
// mapped to unsigned integers that order as the keys do (pairs: key << 32 | value, so equal keys
// keep their values' order and the sort is stable, an argsort), each array is padded to a power
// of two with the largest word, the network sorts, and the words are mapped back. The variants
// differ only in how the network's (k, j) steps are run:
//   o    the host runs the k and j loops, one launch per step, half the threads idle;
//   ov   one launch per step, one thread per compare-exchange pair;
//   n    start (a block sorts its chunk), middle (one global step a launch), finish (a block
//        completes a merge once j fits in it), all in global memory;
//   nl   as n, start and finish in shared memory.
// best (beyond the lecture, in urejanje_best.cuh) keeps blocks of up to 8192 elements in
// registers; cub is the library a user would pick instead.
#include "common.cuh"
#include "tecaj/urejanje.h"
#include <cub/device/device_radix_sort.cuh>
#include <cub/device/device_segmented_sort.cuh>
#include <thrust/iterator/counting_iterator.h>
#include <thrust/iterator/transform_iterator.h>

namespace {

// ---- keys to ordered words and back ----------------------------------------------------------

__device__ __forceinline__ uint32_t to_ordered(uint32_t bits, tc_key_type type, bool descending) {
    uint32_t key;
    if (type == TC_KEY_FLOAT32) {
        if ((bits & 0x7fffffffu) > 0x7f800000u) key = 0xffffffffu;  // every NaN: after +Inf
        else key = (bits & 0x80000000u) ? ~bits : (bits | 0x80000000u);
    } else if (type == TC_KEY_INT32) {
        key = bits ^ 0x80000000u;
    } else {
        key = bits;
    }
    return descending ? ~key : key;
}

__device__ __forceinline__ uint32_t from_ordered(uint32_t key, tc_key_type type, bool descending) {
    if (descending) key = ~key;
    if (type == TC_KEY_FLOAT32) return (key & 0x80000000u) ? (key & 0x7fffffffu) : ~key;  // NaN -> 0x7fffffff
    if (type == TC_KEY_INT32) return key ^ 0x80000000u;
    return key;
}

// Where a sort reads its input from and writes its output to.
struct Io {
    const uint32_t *keys_in;
    const uint32_t *values_in;  // null: the index within the array
    uint32_t *keys_out;
    uint32_t *values_out;
    int64_t n, padded;  // each array's length and its padded length (a power of two)
    int log_padded;
    tc_key_type type;
    bool descending;

    // Array b's part: its keys and values from its first element (null values stay null).
    struct Array {
        const uint32_t *keys_in, *values_in;
        uint32_t *keys_out, *values_out;
    };
    __device__ __forceinline__ Array array(int64_t b) const {
        const int64_t at = b * n;
        return {keys_in + at, values_in ? values_in + at : nullptr, keys_out + at, values_out ? values_out + at : nullptr};
    }
};

// The word for element i of an array (i in [0, padded)): padding sorts last.
template <typename T>
__device__ __forceinline__ T pack(const Io &io, const Io::Array &a, int64_t i) {
    if (i >= io.n) return T(~T(0));
    const uint32_t key = to_ordered(a.keys_in[i], io.type, io.descending);
    if (sizeof(T) == 4) return T(key);
    const uint32_t value = a.values_in ? a.values_in[i] : uint32_t(i);
    return T((uint64_t(key) << 32) | value);
}
template <typename T>
__device__ __forceinline__ void unpack(const Io &io, const Io::Array &a, int64_t i, T word) {
    if (i >= io.n) return;
    a.keys_out[i] = from_ordered(uint32_t(uint64_t(word) >> (sizeof(T) == 4 ? 0 : 32)), io.type, io.descending);
    if (sizeof(T) == 8) a.values_out[i] = uint32_t(word);
}
// The same for element idx of the whole work array, idx in [0, batch*padded).
template <typename T>
__device__ __forceinline__ T pack(const Io &io, int64_t idx) {
    return pack<T>(io, io.array(idx >> io.log_padded), idx & (io.padded - 1));
}
template <typename T>
__device__ __forceinline__ void unpack(const Io &io, int64_t idx, T word) {
    unpack<T>(io, io.array(idx >> io.log_padded), idx & (io.padded - 1), word);
}

template <typename T>
__global__ void pack_kernel(Io io, T *work, int64_t total) {
    for (int64_t i = int64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < total; i += int64_t(gridDim.x) * blockDim.x)
        work[i] = pack<T>(io, i);
}

template <typename T>
__global__ void unpack_kernel(Io io, const T *work, int64_t total) {
    for (int64_t i = int64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < total; i += int64_t(gridDim.x) * blockDim.x)
        unpack<T>(io, i, work[i]);
}

// ---- the network's compare-exchange --------------------------------------------------------

// Sorts the pair ascending when up, descending otherwise. k is the size of the bitonic sequences
// being merged; the direction alternates with bit k of the index within its array, so that each
// array (of `padded` elements, a power of two) is sorted ascending at the end.
template <typename T>
__device__ __forceinline__ void compare_exchange(T &a, T &b, bool up) {
    if ((a > b) == up) {
        const T t = a;
        a = b;
        b = t;
    }
}

__device__ __forceinline__ bool ascending(int64_t i, int64_t padded, int64_t k) { return ((i & (padded - 1)) & k) == 0; }

// Lecture step o: the host runs the k and j loops, one launch per step (relaunching is the
// global barrier); thread i compares i with i ^ j, so only the half with i ^ j > i works.
template <typename T>
__global__ void bitonic_o(T *d, int64_t total, int64_t padded, int64_t j, int64_t k) {
    const int64_t i = int64_t(blockIdx.x) * blockDim.x + threadIdx.x;
    if (i >= total) return;
    const int64_t partner = i ^ j;
    if (partner > i) compare_exchange(d[i], d[partner], ascending(i, padded, k));
}

// The pair thread p owns in step j: i1 = 2j*(p/j) + p%j and i1 + j.
__device__ __forceinline__ int64_t pair_low(int64_t p, int64_t j) { return 2 * j * (p / j) + p % j; }

// Lecture step ov: total/2 threads, every one owns one compare-exchange pair.
template <typename T>
__global__ void bitonic_ov(T *d, int64_t total, int64_t padded, int64_t j, int64_t k) {
    const int64_t p = int64_t(blockIdx.x) * blockDim.x + threadIdx.x;
    if (p >= total / 2) return;
    const int64_t i = pair_low(p, j);
    compare_exchange(d[i], d[i + j], ascending(i, padded, k));
}

// The __device__ step of n and nl: the block's threads run step (k, j) over the block's chunk of
// `chunk` elements that start at `base` (global index) and are held at `d` (global or shared).
template <typename T>
__device__ __forceinline__ void chunk_step(T *d, int64_t base, int chunk, int64_t padded, int64_t j, int64_t k) {
    for (int p = threadIdx.x; p < chunk / 2; p += blockDim.x) {
        const int i = int(pair_low(p, j));
        compare_exchange(d[i], d[i + j], ascending(base + i, padded, k));
    }
}

// Lecture step n, start: each block sorts its chunk (k up to the chunk) with __syncthreads()
// between steps, in global memory.
template <typename T>
__global__ void bitonic_n_start(T *d, int chunk, int64_t padded) {
    const int64_t base = int64_t(blockIdx.x) * chunk;
    for (int k = 2; k <= chunk; k *= 2)
        for (int j = k / 2; j > 0; j /= 2) {
            chunk_step(d + base, base, chunk, padded, j, k);
            __syncthreads();
        }
}

// Lecture step n, finish: once j fits inside a block, the block completes merge k alone.
template <typename T>
__global__ void bitonic_n_finish(T *d, int chunk, int64_t padded, int64_t k) {
    const int64_t base = int64_t(blockIdx.x) * chunk;
    for (int j = chunk / 2; j > 0; j /= 2) {
        chunk_step(d + base, base, chunk, padded, j, k);
        __syncthreads();
    }
}

// Lecture step nl: start and finish load the chunk into shared memory, sort there and store it
// back; the middle steps stay global (their pairs are farther apart than any block's chunk, so
// each element would be loaded for one compare-exchange and shared memory would only add a copy).
template <typename T>
__device__ __forceinline__ void shared_merges(T *d, int chunk, int64_t padded, int64_t k_first, int64_t k_last) {
    extern __shared__ unsigned char shared_bytes[];
    T *s = reinterpret_cast<T *>(shared_bytes);
    const int64_t base = int64_t(blockIdx.x) * chunk;
    for (int i = threadIdx.x; i < chunk; i += blockDim.x) s[i] = d[base + i];
    __syncthreads();
    for (int64_t k = k_first; k <= k_last; k *= 2)
        for (int64_t j = (k < chunk ? k : chunk) / 2; j > 0; j /= 2) {
            chunk_step(s, base, chunk, padded, j, k);
            __syncthreads();
        }
    for (int i = threadIdx.x; i < chunk; i += blockDim.x) d[base + i] = s[i];
}

template <typename T>
__global__ void bitonic_nl_start(T *d, int chunk, int64_t padded) {
    shared_merges(d, chunk, padded, 2, chunk);
}

template <typename T>
__global__ void bitonic_nl_finish(T *d, int chunk, int64_t padded, int64_t k) {
    shared_merges(d, chunk, padded, k, k);
}

// ---- launches -----------------------------------------------------------------------------

// Every launch of a sort goes through one Launches value: counted, with the grid and a lower
// bound of the bytes it moves, and made unless the plan only counts. The plan's launch count,
// grid and bytes come from a dry run of the same code as the run.
template <typename T>
struct Launches : tc::LaunchCounter {  // the grid: of the first network launch (pack and unpack aside)
    const tc_urejanje_plan &p;
    T *work;        // the padded network: batch x padded words
    int64_t total;  // its words
    cudaStream_t s;
    Io io;
    double bytes = 0;
    size_t shared = 0;  // the most dynamic shared memory a launch takes

    void takes_shared(size_t b) { shared = b > shared ? b : shared; }
    bool next(unsigned blocks, double moved, bool network = true) {
        bytes += moved;
        return LaunchCounter::next(blocks, network);
    }
    // Lower bounds of the bytes a launch moves: every word read (a compare-exchange writes only
    // when it swaps), every word read and written (a shared-memory pass stores its whole chunk),
    // the caller's keys read, the caller's output written.
    double words() const { return double(sizeof(T)) * double(total); }
    double keys_in() const { return 4.0 * double(p.launch.items); }
    double result_out() const { return (p.pairs ? 8.0 : 4.0) * double(p.launch.items); }
    unsigned blocks_for(int64_t items, int threads) const { return unsigned(tc::ceil_div(items, threads)); }
};
#define TC_SORT_LAUNCH(launches, blocks, moved, network, ...) \
    TC_COUNTED_LAUNCH((launches).next(blocks, moved, network), __VA_ARGS__)

}  // namespace

#include "urejanje_best.cuh"

namespace {

enum { VO, VOV, VN, VNL, VBEST, VCUB, VARIANTS };

// The lecture's variants: pack, the network's launches, unpack.
template <typename T>
tc_status lecture_run(Launches<T> &L) {
    const int v = L.p.launch.variant, t = L.p.launch.threads;
    const int64_t N = L.p.padded, total = L.total;
    TC_SORT_LAUNCH(L, L.blocks_for(total, 256), L.keys_in() + L.words(), false,
                   pack_kernel<T><<<L.blocks_for(total, 256), 256, 0, L.s>>>(L.io, L.work, total));
    if (v == VO || v == VOV) {
        for (int64_t k = 2; k <= N; k *= 2)
            for (int64_t j = k / 2; j > 0; j /= 2) {
                if (v == VO)
                    TC_SORT_LAUNCH(L, L.blocks_for(total, t), L.words(), true,
                                   bitonic_o<T><<<L.blocks_for(total, t), t, 0, L.s>>>(L.work, total, N, j, k));
                else
                    TC_SORT_LAUNCH(L, L.blocks_for(total / 2, t), L.words(), true,
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
        if (shared) TC_SORT_LAUNCH(L, blocks, in_block, true, bitonic_nl_start<T><<<blocks, block, smem, L.s>>>(L.work, chunk, N));
        else TC_SORT_LAUNCH(L, blocks, in_block, true, bitonic_n_start<T><<<blocks, block, 0, L.s>>>(L.work, chunk, N));
        for (int64_t k = 2 * int64_t(chunk); k <= N; k *= 2) {
            for (int64_t j = k / 2; j >= chunk; j /= 2)  // middle: one global step a launch
                TC_SORT_LAUNCH(L, L.blocks_for(total / 2, t), L.words(), true,
                               bitonic_ov<T><<<L.blocks_for(total / 2, t), t, 0, L.s>>>(L.work, total, N, j, k));
            if (shared)
                TC_SORT_LAUNCH(L, blocks, in_block, true,
                               bitonic_nl_finish<T><<<blocks, block, smem, L.s>>>(L.work, chunk, N, k));
            else
                TC_SORT_LAUNCH(L, blocks, in_block, true,
                               bitonic_n_finish<T><<<blocks, block, 0, L.s>>>(L.work, chunk, N, k));
        }
    }
    TC_SORT_LAUNCH(L, L.blocks_for(total, 256), L.words() + L.result_out(), false,
                   unpack_kernel<T><<<L.blocks_for(total, 256), 256, 0, L.s>>>(L.io, L.work, total));
    return TC_OK;
}

template <typename T>
tc_status network_run(Launches<T> &L) {
    return L.p.launch.variant == VBEST ? best_run(L) : lecture_run(L);
}

// ---- the baseline -------------------------------------------------------------------------

// The CUB baseline on the raw keys: radix sort for one array, segmented sort for batches.
struct SegmentOffset {
    int64_t n;
    __host__ __device__ int64_t operator()(int64_t b) const { return b * n; }
};

template <typename K>
cudaError_t cub_sort(void *temp, size_t &temp_bytes, const tc_urejanje_plan &p, bool descending, const K *keys_in, K *keys_out,
                     const uint32_t *values_in, uint32_t *values_out, cudaStream_t s) {
    const int64_t items = p.launch.n * p.batch;
    if (p.batch == 1) {
        if (p.pairs)
            return descending ? cub::DeviceRadixSort::SortPairsDescending(temp, temp_bytes, keys_in, keys_out, values_in,
                                                                          values_out, items, 0, 32, s)
                              : cub::DeviceRadixSort::SortPairs(temp, temp_bytes, keys_in, keys_out, values_in,
                                                                values_out, items, 0, 32, s);
        return descending ? cub::DeviceRadixSort::SortKeysDescending(temp, temp_bytes, keys_in, keys_out, items, 0, 32, s)
                          : cub::DeviceRadixSort::SortKeys(temp, temp_bytes, keys_in, keys_out, items, 0, 32, s);
    }
    auto begins = thrust::make_transform_iterator(thrust::counting_iterator<int64_t>(0), SegmentOffset{p.launch.n});
    auto ends = begins + 1;
    const int64_t segs = p.batch;
    if (p.pairs)
        return descending ? cub::DeviceSegmentedSort::StableSortPairsDescending(temp, temp_bytes, keys_in, keys_out, values_in,
                                                                                values_out, items, segs, begins, ends, s)
                          : cub::DeviceSegmentedSort::StableSortPairs(temp, temp_bytes, keys_in, keys_out, values_in,
                                                                      values_out, items, segs, begins, ends, s);
    return descending ? cub::DeviceSegmentedSort::StableSortKeysDescending(temp, temp_bytes, keys_in, keys_out, items, segs,
                                                                           begins, ends, s)
                      : cub::DeviceSegmentedSort::StableSortKeys(temp, temp_bytes, keys_in, keys_out, items, segs, begins,
                                                                 ends, s);
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
    if ((e = cub_sort<float>(nullptr, a, p, false, nullptr, nullptr, nullptr, nullptr, nullptr)) != cudaSuccess) return e;
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

unsigned copy_grid(int64_t items) { return unsigned(tc::ceil_div(items, 256) < 4096 ? tc::ceil_div(items, 256) : 4096); }

template <typename T>
tc_status dry_run(tc_urejanje_plan &p, const tc_device &dev) {
    p.block_log = block_log<T>(p, dev);
    p.rest_log = rest_log<T>(p, dev);
    Launches<T> L{{true}, p, nullptr, p.padded * p.batch, nullptr, Io{}};
    TC_TRY_STATUS(network_run(L));
    p.launch.launches = L.count;
    p.launch.blocks = int(L.grid);
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
                           tc::kernel("bitonic_block<u64,2^13,strided,3>", bitonic_block<uint64_t, 13, STRIDED, 3>)};

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
    {"best", "blocks of up to 8192 in registers (16 a thread), 4 steps between shared-memory transposes, up to 9 global steps a pass",
     "any n and batch", "read and write every word each pass (the first reads the keys, the last writes the result)",
     TC_POW2_THREADS | TC_OWN_GRID, TC_KERNELS(kbest)},
    {"cub", "baseline: cub::DeviceRadixSort (one array) or cub::DeviceSegmentedSort (batches), NaNs canonicalised first",
     "any n and batch", "lower bound: read the keys once, write the result once",
     TC_POW2_THREADS | TC_OWN_GRID | TC_LIBRARY, nullptr, 0},
};

const tc_program program = {"urejanje", "keys", variants, VARIANTS};

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
    if (n > (int64_t(1) << 32) || r->batch > (int64_t(1) << 40) / n) return TC_OUTSIDE_DOMAIN;
    out->padded = int64_t(1) << tc::ceil_log2(n);
    p.out_count = p.items = n * r->batch;
    if (p.variant == VCUB) {
        size_t temp = 0;
        TC_TRY(cub_bytes(*out, temp));
        const size_t words = tc::align256(sizeof(uint32_t) * size_t(p.items));
        p.scratch_bytes = tc::align256(temp) + words + (out->pairs ? words : 0);  // temp, canonical keys, indices
        p.threads = p.blocks = p.launches = 0;  // CUB's own
        p.bytes_moved = 4.0 * double(p.items) + (out->pairs ? 8.0 : 4.0) * double(p.items);
        return TC_OK;
    }
    p.scratch_bytes = (out->pairs ? 8 : 4) * size_t(out->padded * out->batch);
    return out->pairs ? dry_run<uint64_t>(*out, *dev) : dry_run<uint32_t>(*out, *dev);
}

extern "C" tc_status tc_urejanje_run(const tc_urejanje_plan *p, tc_key_type type, int descending, const void *keys_in,
                                     const uint32_t *values_in, void *keys_out, uint32_t *values_out, void *scratch,
                                     cudaStream_t s) {
    if (!p || !keys_in || !keys_out || !scratch || (p->pairs && !values_out) || p->padded < 1 || p->batch < 1)
        return TC_BAD_ARGUMENT;
    if (type != TC_KEY_FLOAT32 && type != TC_KEY_INT32 && type != TC_KEY_UINT32) return TC_BAD_ARGUMENT;
    const int64_t items = p->launch.items;
    if (p->launch.variant == VCUB) {
        const size_t words = tc::align256(sizeof(uint32_t) * size_t(items));
        size_t temp = p->launch.scratch_bytes - words - (p->pairs ? words : 0);
        unsigned char *after = static_cast<unsigned char *>(scratch) + temp;
        if (type == TC_KEY_FLOAT32) {
            uint32_t *canonical = reinterpret_cast<uint32_t *>(after);
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
        switch (type) {
        case TC_KEY_FLOAT32:
            TC_TRY(cub_sort(scratch, temp, *p, descending, static_cast<const float *>(keys_in), static_cast<float *>(keys_out),
                            values_in, values_out, s));
            break;
        case TC_KEY_INT32:
            TC_TRY(cub_sort(scratch, temp, *p, descending, static_cast<const int *>(keys_in), static_cast<int *>(keys_out),
                            values_in, values_out, s));
            break;
        default:
            TC_TRY(cub_sort(scratch, temp, *p, descending, static_cast<const unsigned *>(keys_in),
                            static_cast<unsigned *>(keys_out), values_in, values_out, s));
        }
        TC_LAUNCHED();
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
