// urejanje: bitonic sort. Keys of any 32-bit type are first mapped to unsigned integers that
// order as the keys do (pairs: key << 32 | value, so equal keys keep their values' order and
// the sort is stable for argsort), each array is padded to a power of two with the largest
// word, the network sorts, and the words are mapped back. The lecture's variants differ only in
// how the network's (k, j) steps are run.
#include "common.cuh"
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
    int64_t n, padded;  // each array's length and its padded length
    tc_key_type type;
    bool descending;
};

template <typename T>
__device__ __forceinline__ T pack(const Io &io, int64_t idx) {  // idx in [0, batch*padded)
    const int64_t b = idx / io.padded, i = idx - b * io.padded;
    if (i >= io.n) return T(~T(0));  // padding sorts last
    const int64_t src = b * io.n + i;
    const uint32_t key = to_ordered(io.keys_in[src], io.type, io.descending);
    if (sizeof(T) == 4) return T(key);
    const uint32_t value = io.values_in ? io.values_in[src] : uint32_t(i);
    return T((uint64_t(key) << 32) | value);
}

template <typename T>
__device__ __forceinline__ void unpack(const Io &io, int64_t idx, T word) {
    const int64_t b = idx / io.padded, i = idx - b * io.padded;
    if (i >= io.n) return;
    const int64_t dst = b * io.n + i;
    io.keys_out[dst] = from_ordered(uint32_t(uint64_t(word) >> (sizeof(T) == 4 ? 0 : 32)), io.type, io.descending);
    if (sizeof(T) == 8) io.values_out[dst] = uint32_t(word);
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

// Lecture step nl: start and finish load the chunk into shared memory, sort there, store back
// (the middle steps stay global: their pairs are farther apart than any block's chunk, so each
// element would be loaded for one compare-exchange and shared memory would only add a copy).
// Beyond the lecture (best), the same kernels read the caller's keys and write the caller's
// output directly when io says so, which saves the pack and unpack passes.
template <typename T>
__global__ void bitonic_shared(T *d, int chunk, int64_t padded, int64_t k_first, int64_t k_last, Io io, bool load_input,
                               bool store_output) {
    extern __shared__ unsigned char shared_bytes[];
    T *s = reinterpret_cast<T *>(shared_bytes);
    const int64_t base = int64_t(blockIdx.x) * chunk;
    for (int i = threadIdx.x; i < chunk; i += blockDim.x) s[i] = load_input ? pack<T>(io, base + i) : d[base + i];
    __syncthreads();
    for (int64_t k = k_first; k <= k_last; k *= 2)
        for (int64_t j = (k < chunk ? k : chunk) / 2; j > 0; j /= 2) {
            chunk_step(s, base, chunk, padded, j, k);
            __syncthreads();
        }
    for (int i = threadIdx.x; i < chunk; i += blockDim.x) {
        if (store_output) unpack<T>(io, base + i, s[i]);
        else d[base + i] = s[i];
    }
}

// Beyond the lecture: STEPS consecutive global steps j_hi, j_hi/2, ... fused in registers. The
// 2^STEPS elements that these steps mix differ only in bits log2(j_lo)..log2(j_hi) of their index,
// so one thread loads them all, runs the steps, and stores them: one pass over memory instead of
// STEPS. Consecutive threads take consecutive indices (coalesced, as j_lo >= the chunk >= 32).
template <typename T, int STEPS>
__global__ void bitonic_registers(T *d, int64_t total, int64_t padded, int64_t j_lo, int log_j_lo, int64_t k) {
    constexpr int R = 1 << STEPS;
    const int64_t g = int64_t(blockIdx.x) * blockDim.x + threadIdx.x;
    if (g >= total / R) return;
    const int64_t base = ((g >> log_j_lo) << (log_j_lo + STEPS)) | (g & (j_lo - 1));
    const bool up = ascending(base, padded, k);
    T x[R];
#pragma unroll
    for (int t = 0; t < R; ++t) x[t] = d[base + t * j_lo];
#pragma unroll
    for (int s = STEPS - 1; s >= 0; --s)
#pragma unroll
        for (int t = 0; t < R; ++t)
            if ((t & (1 << s)) == 0) compare_exchange(x[t], x[t + (1 << s)], up);
#pragma unroll
    for (int t = 0; t < R; ++t) d[base + t * j_lo] = x[t];
}

// ---- variants, plans and launches -----------------------------------------------------------

enum { VO, VOV, VN, VNL, VBEST, VCUB, VARIANTS };

const tc_variant variants[VARIANTS] = {
    {"o", "host runs k and j, one launch per step; thread i compares i with i^j (half the threads idle)",
     "any n and batch (padded to a power of two)", "2 * words * steps (read + write every step)", TC_OUT_ELEMENTS, 0, 3},
    {"ov", "one launch per step, n/2 threads each owning one compare-exchange pair", "any n and batch",
     "2 * words * steps", TC_OUT_ELEMENTS, 0, 3},
    {"n", "start (block sorts its chunk), middle (global step), finish (block completes k): global memory",
     "any n and batch", "2 * words * launches", TC_OUT_ELEMENTS, 0, 5},
    {"nl", "as n, with start and finish in shared memory", "any n and batch", "2 * words * launches",
     TC_OUT_ELEMENTS, 0, 4},
    {"best", "shared-memory chunks of up to 4096-8192, up to 4 global steps fused in registers, input/output fused",
     "any n and batch", "2 * words * passes", TC_OUT_ELEMENTS, 0, 3},
    {"cub", "baseline: cub::DeviceRadixSort (one array) or cub::DeviceSegmentedSort (batches)", "any n and batch",
     "-", TC_OUT_ELEMENTS, 0, 0},
};

// 4 steps: 16 words a thread; 5 needed 144 registers a thread, and the occupancy that cost more
// than the pass it saved.
constexpr int kMaxFusedSteps = 4;

int64_t next_pow2(int64_t n) {
    int64_t p = 1;
    while (p < n) p *= 2;
    return p;
}

// The shared-memory chunk: lecture variants use two elements a thread; best fills 32 KB, but
// no more than leaves 128 blocks to fill the device (and no less than 1024).
int chunk_of(const tc_plan &p) {
    int64_t want = 2 * p.threads;
    if (p.variant == VBEST) {
        want = p.pairs ? 4096 : 8192;
        while (want > 1024 && want * 128 > p.padded * p.batch) want /= 2;
    }
    return int(want < p.padded ? want : p.padded);
}

int log2_of(int64_t x) { return tc::ceil_log2(x); }

template <typename T>
struct Sorter {
    const tc_plan &p;
    T *work;
    int64_t total;
    cudaStream_t s;
    Io io;
    int launches = 0;

    unsigned grid(int64_t items, int threads) const { return unsigned(tc::ceil_div(items, threads)); }

    tc_status run() {
        const int v = p.variant, t = p.threads, chunk = chunk_of(p);
        const int64_t N = p.padded;
        const bool fused = v == VBEST;
        if (!fused) {
            pack_kernel<T><<<grid(total, 256), 256, 0, s>>>(io, work, total);
            ++launches;
            TC_LAUNCHED();
        }
        if (v == VO || v == VOV) {
            for (int64_t k = 2; k <= N; k *= 2)
                for (int64_t j = k / 2; j > 0; j /= 2) {
                    if (v == VO) bitonic_o<T><<<grid(total, t), t, 0, s>>>(work, total, N, j, k);
                    else bitonic_ov<T><<<grid(total / 2, t), t, 0, s>>>(work, total, N, j, k);
                    ++launches;
                    TC_LAUNCHED();
                }
        } else {
            const bool shared = v != VN;
            const int want = v == VBEST ? 1024 : t;
            const int block = chunk / 2 < 1 ? 1 : chunk / 2 < want ? chunk / 2 : want;
            const size_t smem = shared ? sizeof(T) * size_t(chunk) : 0;
            const unsigned blocks = unsigned(total / chunk);
            const bool one_pass = fused && chunk == N;
            // start: every k up to the chunk
            if (shared) bitonic_shared<T><<<blocks, block, smem, s>>>(work, chunk, N, 2, chunk, io, fused, one_pass);
            else bitonic_n_start<T><<<blocks, block, 0, s>>>(work, chunk, N);
            ++launches;
            TC_LAUNCHED();
            for (int64_t k = 2 * int64_t(chunk); k <= N; k *= 2) {
                for (int64_t j = k / 2; j >= chunk;) {
                    if (v == VBEST) {
                        const int steps_left = log2_of(j) - log2_of(chunk) + 1;
                        const int steps = steps_left < kMaxFusedSteps ? steps_left : kMaxFusedSteps;
                        TC_TRY(fused_steps(steps, j, k));
                        j >>= steps;
                    } else {
                        bitonic_ov<T><<<grid(total / 2, t), t, 0, s>>>(work, total, N, j, k);
                        j /= 2;
                    }
                    ++launches;
                    TC_LAUNCHED();
                }
                const bool last = fused && k == N;
                if (shared) bitonic_shared<T><<<blocks, block, smem, s>>>(work, chunk, N, k, k, io, false, last);
                else bitonic_n_finish<T><<<blocks, block, 0, s>>>(work, chunk, N, k);
                ++launches;
                TC_LAUNCHED();
            }
            if (fused) return TC_OK;
        }
        unpack_kernel<T><<<grid(total, 256), 256, 0, s>>>(io, work, total);
        ++launches;
        TC_LAUNCHED();
        return TC_OK;
    }

    cudaError_t fused_steps(int steps, int64_t j_hi, int64_t k) {
        const int log_lo = log2_of(j_hi) - steps + 1;
        const int64_t j_lo = int64_t(1) << log_lo;
        const int threads = 256;
        const unsigned g = grid(total >> steps, threads);
        switch (steps) {
        case 1: bitonic_registers<T, 1><<<g, threads, 0, s>>>(work, total, p.padded, j_lo, log_lo, k); break;
        case 2: bitonic_registers<T, 2><<<g, threads, 0, s>>>(work, total, p.padded, j_lo, log_lo, k); break;
        case 3: bitonic_registers<T, 3><<<g, threads, 0, s>>>(work, total, p.padded, j_lo, log_lo, k); break;
        default: bitonic_registers<T, 4><<<g, threads, 0, s>>>(work, total, p.padded, j_lo, log_lo, k); break;
        }
        return cudaGetLastError();
    }
};

// The number of launches a sort makes, for the plan (the same loops as Sorter::run, counted).
int count_launches(const tc_plan &p) {
    const int64_t N = p.padded;
    const int L = log2_of(N);
    if (p.variant == VO || p.variant == VOV) return 2 + L * (L + 1) / 2;
    const int c = log2_of(chunk_of(p));
    int launches = p.variant == VBEST ? 1 : 3;
    for (int k = c + 1; k <= L; ++k) {
        const int global_steps = k - c;
        launches += 1 + (p.variant == VBEST ? (global_steps + kMaxFusedSteps - 1) / kMaxFusedSteps : global_steps);
    }
    return launches;
}

// The CUB baseline on the raw keys: radix sort for one array, segmented sort for batches.
struct SegmentOffset {
    int64_t n;
    __host__ __device__ int64_t operator()(int64_t b) const { return b * n; }
};

template <typename K>
cudaError_t cub_sort(void *temp, size_t &temp_bytes, const tc_plan &p, bool descending, const K *keys_in, K *keys_out,
                     const uint32_t *values_in, uint32_t *values_out, cudaStream_t s) {
    const int64_t items = p.n * p.batch;
    if (p.batch == 1) {
        if (p.pairs)
            return descending ? cub::DeviceRadixSort::SortPairsDescending(temp, temp_bytes, keys_in, keys_out, values_in,
                                                                          values_out, items, 0, 32, s)
                              : cub::DeviceRadixSort::SortPairs(temp, temp_bytes, keys_in, keys_out, values_in,
                                                                values_out, items, 0, 32, s);
        return descending ? cub::DeviceRadixSort::SortKeysDescending(temp, temp_bytes, keys_in, keys_out, items, 0, 32, s)
                          : cub::DeviceRadixSort::SortKeys(temp, temp_bytes, keys_in, keys_out, items, 0, 32, s);
    }
    auto begins = thrust::make_transform_iterator(thrust::counting_iterator<int64_t>(0), SegmentOffset{p.n});
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
cudaError_t cub_bytes(const tc_plan &p, size_t &bytes) {
    size_t a = 0, b = 0, c = 0;
    cudaError_t e;
    if ((e = cub_sort<float>(nullptr, a, p, false, nullptr, nullptr, nullptr, nullptr, nullptr)) != cudaSuccess) return e;
    if ((e = cub_sort<int>(nullptr, b, p, true, nullptr, nullptr, nullptr, nullptr, nullptr)) != cudaSuccess) return e;
    if ((e = cub_sort<unsigned>(nullptr, c, p, false, nullptr, nullptr, nullptr, nullptr, nullptr)) != cudaSuccess) return e;
    bytes = a > b ? a : b;
    bytes = bytes > c ? bytes : c;
    return cudaSuccess;
}

size_t align256(size_t x) { return (x + 255) & ~size_t(255); }

tc_status plan(int v, int64_t, int threads, int, const tc_device &, tc_plan &p) {
    if (threads & (threads - 1)) return TC_BAD_ARGUMENT;  // the chunks are powers of two
    (void)v;
    return TC_OK;
}

const void *kernel(int v, int k, const char **name) {
    switch (v) {
    case VO:
        if (k == 1) { *name = "bitonic_o<u64>"; return reinterpret_cast<const void *>(bitonic_o<uint64_t>); }
        break;
    case VOV:
        if (k == 1) { *name = "bitonic_ov<u64>"; return reinterpret_cast<const void *>(bitonic_ov<uint64_t>); }
        break;
    case VN:
        if (k == 1) { *name = "bitonic_n_start<u64>"; return reinterpret_cast<const void *>(bitonic_n_start<uint64_t>); }
        if (k == 2) { *name = "bitonic_ov<u64>"; return reinterpret_cast<const void *>(bitonic_ov<uint64_t>); }
        if (k == 3) { *name = "bitonic_n_finish<u64>"; return reinterpret_cast<const void *>(bitonic_n_finish<uint64_t>); }
        break;
    case VNL:
        if (k == 1) { *name = "bitonic_shared<u64>"; return reinterpret_cast<const void *>(bitonic_shared<uint64_t>); }
        if (k == 2) { *name = "bitonic_ov<u64>"; return reinterpret_cast<const void *>(bitonic_ov<uint64_t>); }
        if (k == 3) { *name = "unpack_kernel<u64>"; return reinterpret_cast<const void *>(unpack_kernel<uint64_t>); }
        break;
    case VBEST:
        if (k == 0) { *name = "bitonic_shared<u64>"; return reinterpret_cast<const void *>(bitonic_shared<uint64_t>); }
        if (k == 1) { *name = "bitonic_registers<u64,4>"; return reinterpret_cast<const void *>(bitonic_registers<uint64_t, 4>); }
        if (k == 2) { *name = "bitonic_registers<u32,4>"; return reinterpret_cast<const void *>(bitonic_registers<uint32_t, 4>); }
        break;
    }
    if (k == 0) { *name = "pack_kernel<u64>"; return reinterpret_cast<const void *>(pack_kernel<uint64_t>); }
    *name = "unpack_kernel<u64>";
    return reinterpret_cast<const void *>(unpack_kernel<uint64_t>);
}

}  // namespace

const tc::Program tc::urejanje = {variants, VARIANTS, plan, kernel};

extern "C" tc_status tc_urejanje_plan(int variant, int64_t n, int64_t batch, int pairs, int threads,
                                      const tc_device *device, tc_plan *out) {
    if (batch < 1 || n < 1) return TC_BAD_ARGUMENT;
    if (threads == 0) threads = variant == VBEST ? 1024 : 256;
    const tc_status st = tc_plan_launch(TC_UREJANJE, variant, n, threads, 0, device, out);
    if (st != TC_OK) return st;
    out->batch = batch;
    out->pairs = pairs ? 1 : 0;
    out->padded = next_pow2(n);
    if (out->padded > (int64_t(1) << 32) || n * batch > (int64_t(1) << 40)) return TC_OUTSIDE_DOMAIN;
    out->out_count = n * batch;
    const size_t word = pairs ? 8 : 4;
    if (variant == VCUB) {
        size_t temp = 0;
        TC_TRY(cub_bytes(*out, temp));
        out->scratch_bytes = align256(temp) + (pairs ? align256(sizeof(uint32_t) * size_t(n * batch)) : 0);
        out->launches = 1;
        out->bytes_moved = 0;
        return TC_OK;
    }
    out->scratch_bytes = word * size_t(out->padded * batch);
    out->launches = count_launches(*out);
    // every launch reads and writes every word (pack/unpack move less; this is the network's traffic)
    out->bytes_moved = 2.0 * double(word) * double(out->padded * batch) * out->launches;
    return TC_OK;
}

extern "C" tc_status tc_urejanje_run(const tc_plan *p, tc_key_type type, int descending, const void *keys_in,
                                     const uint32_t *values_in, void *keys_out, uint32_t *values_out, void *scratch,
                                     cudaStream_t s) {
    if (!p || !keys_in || !keys_out || !scratch || (p->pairs && !values_out) || p->padded < 1 || p->batch < 1)
        return TC_BAD_ARGUMENT;
    if (type != TC_KEY_FLOAT32 && type != TC_KEY_INT32 && type != TC_KEY_UINT32) return TC_BAD_ARGUMENT;
    if (p->variant == VCUB) {
        const int64_t items = p->n * p->batch;
        size_t temp = align256(p->scratch_bytes) - (p->pairs ? align256(sizeof(uint32_t) * size_t(items)) : 0);
        if (p->pairs && !values_in) {
            uint32_t *iota = reinterpret_cast<uint32_t *>(static_cast<unsigned char *>(scratch) + temp);
            iota_kernel<<<unsigned(tc::ceil_div(items, 256) < 4096 ? tc::ceil_div(items, 256) : 4096), 256, 0, s>>>(
                iota, p->n, items);
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
          p->n, p->padded, type, descending != 0};
    const int64_t total = p->padded * p->batch;
    if (p->pairs) return Sorter<uint64_t>{*p, static_cast<uint64_t *>(scratch), total, s, io}.run();
    return Sorter<uint32_t>{*p, static_cast<uint32_t *>(scratch), total, s, io}.run();
}
