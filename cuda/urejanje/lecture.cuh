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
// best (beyond the lecture, in best.cuh) keeps blocks of up to 8192 elements in
// registers; cub is the library a user would pick instead. The variant table, plans and runs are
// plan.cu, the translation unit that includes both (CUB's sorts: cub_*.cu).
#pragma once
#include "runtime/common.cuh"
#include "tecaj/urejanje.h"

namespace {

// ---- keys to ordered words and back ----------------------------------------------------------

__device__ __forceinline__ uint32_t to_ordered(uint32_t bits, tc_dtype type, bool descending) {
    uint32_t key;
    if (type == TC_FLOAT32) {
        if ((bits & 0x7fffffffu) > 0x7f800000u) key = 0xffffffffu;  // every NaN: after +Inf
        else key = (bits & 0x80000000u) ? ~bits : (bits | 0x80000000u);
    } else if (type == TC_INT32) {
        key = bits ^ 0x80000000u;
    } else {
        key = bits;
    }
    return descending ? ~key : key;
}

__device__ __forceinline__ uint32_t from_ordered(uint32_t key, tc_dtype type, bool descending) {
    if (descending) key = ~key;
    if (type == TC_FLOAT32) return (key & 0x80000000u) ? (key & 0x7fffffffu) : ~key;  // NaN -> 0x7fffffff
    if (type == TC_INT32) return key ^ 0x80000000u;
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
    tc_dtype type;
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
struct Launches : tc::LaunchCounter {  // the grid and block: of the first network launch (pack and unpack aside)
    const tc_urejanje_plan &p;
    T *work;        // the padded network: batch x padded words
    int64_t total;  // its words
    cudaStream_t s;
    Io io;
    double bytes = 0;
    size_t shared = 0;  // the most dynamic shared memory a launch takes
    int block = 0;

    void takes_shared(size_t b) { shared = b > shared ? b : shared; }
    bool next(unsigned blocks, int threads, double moved, bool network = true) {
        bytes += moved;
        if (network && block == 0) block = threads;
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
#define TC_SORT_LAUNCH(launches, blocks, threads, moved, network, ...) \
    TC_COUNTED_LAUNCH((launches).next(blocks, threads, moved, network), __VA_ARGS__)

}  // namespace
